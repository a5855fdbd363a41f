// microbench/engine/rate_curve.hpp — a fixed rate that changes over the run (plan::stages, k6's
// stages): from a start rate, each stage ramps linearly to its target over its duration (a stage
// whose target is the last one's holds). The curve says how many requests it means before a time
// (the area under it) and, the other way, when the k-th falls due: the intended send times of a
// staged run come from it, so with uniform arrivals the count due before any time is the area to
// within a request (Poisson arrivals: the area is its expectation).
// Built once before the run; read by every worker, never written while it runs.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace microbench {

// One stage of a staged fixed rate: over `duration_ms`, the rate goes linearly from where the last
// stage left it (or the plan's rate()) to `target` requests per second.
struct rate_stage {
    std::int64_t duration_ms = 0;
    double target = 0;
};

namespace detail {

class rate_curve {
public:
    // From `start` requests per second, through `stages`, every rate times `share` (a shard's).
    void build(double start, const std::vector<rate_stage>& stages, double share) {
        segments_.clear();
        double t = 0, n = 0, r = start * share / 1e9;  // per nanosecond
        double from = start * share;  // per second, as given
        for (const rate_stage& s : stages) {
            const double length = static_cast<double>(s.duration_ms) * 1e6, to = s.target * share / 1e9;
            segments_.push_back({t, n, r, (to - r) / length, t + length, from, s.target * share});
            n += (r + to) / 2 * length;
            t += length;
            r = to;
            from = s.target * share;
        }
        total_ = n;
    }
    bool on() const { return !segments_.empty(); }
    std::size_t stages() const { return segments_.size(); }
    double total() const { return total_; }  // requests the whole curve means
    std::int64_t stage_start_ns(std::size_t i) const { return static_cast<std::int64_t>(segments_[i].t0); }
    std::int64_t end_ns() const { return segments_.empty() ? 0 : static_cast<std::int64_t>(segments_.back().t1); }

    // Requests the curve means before `t_ns` after the start.
    double count_at(double t_ns) const {
        if (segments_.empty() || t_ns <= 0) return 0;
        for (const segment& s : segments_)
            if (t_ns < s.t1) {
                const double tau = t_ns - s.t0;
                return s.n0 + s.r0 * tau + s.a * tau * tau / 2;
            }
        return total_;
    }

    // When the curve's count reaches `count` (ns after the start): the first time it does, past
    // stages at rate 0; +infinity when the curve ends before. `cursor` is the segment to look
    // from, moved forward: counts asked for in rising order cost one step each.
    double time_of(double count, std::size_t& cursor) const {
        for (; cursor < segments_.size(); ++cursor) {
            const segment& s = segments_[cursor];
            const double end = cursor + 1 < segments_.size() ? segments_[cursor + 1].n0 : total_;
            if (count > end || (s.r0 == 0 && s.a == 0)) continue;  // a hold at 0 has no due time
            const double delta = count - s.n0;
            if (delta <= 0) return s.t0;
            // n0 + r0·τ + a·τ²/2 = count, in the form that holds for a = 0 and r0 = 0 alike.
            const double root = std::sqrt(std::fmax(0.0, s.r0 * s.r0 + 2 * s.a * delta));
            const double tau = s.r0 + root > 0 ? 2 * delta / (s.r0 + root) : 0;
            return std::fmin(s.t0 + tau, s.t1);
        }
        return HUGE_VAL;
    }

    // The stage `t_ns` after the start falls in (the last one's for later times).
    std::size_t stage_at(std::int64_t t_ns) const {
        std::size_t lo = 0, hi = segments_.size();
        while (hi - lo > 1) {
            const std::size_t mid = (lo + hi) / 2;
            if (static_cast<double>(t_ns) < segments_[mid].t0) hi = mid;
            else lo = mid;
        }
        return lo;
    }
    double rate_at_start(std::size_t i) const { return segments_[i].from_per_s; }  // as given
    double rate_at_end(std::size_t i) const { return segments_[i].to_per_s; }
    double count_of(std::size_t i) const {  // the requests stage i means
        return (i + 1 < segments_.size() ? segments_[i + 1].n0 : total_) - segments_[i].n0;
    }

private:
    struct segment {
        double t0, n0, r0, a, t1;    // start (ns), count before it, rate at its start (per ns), slope, end
        double from_per_s, to_per_s;  // its rates as given, per second
    };
    std::vector<segment> segments_;
    double total_ = 0;
};

}  // namespace detail
}  // namespace microbench
