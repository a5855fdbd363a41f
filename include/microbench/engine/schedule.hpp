// microbench/engine/schedule.hpp — one worker's fixed-rate schedule (the open model): when each of its
// requests is meant to be sent, and each worker's share of a plan's rate. Uniform: the i-th at
// offset + i × gap after the start, computed from i so no rounding adds up. Poisson: exponential
// gaps averaging `gap`, drawn from a SplitMix64 generator whose seed hashes the plan's seed, the
// shard and the worker, so the same seed gives the same schedule. Off (a closed loop) when the
// gap is 0. Under stages (rate_curve.hpp) the same holds in requests instead of time: the i-th is
// due when the curve's count reaches offset + i × step (Poisson: gaps averaging `step` requests),
// the time change that keeps a Poisson process Poisson under a varying rate.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "../core/splitmix.hpp"
#include "plan.hpp"
#include "rate_curve.hpp"

namespace microbench {
namespace detail {

class rate_schedule {
public:
    void start(std::int64_t start_ns, double gap_ns, double offset_ns, arrivals kind, std::uint64_t seed) {
        start_ns_ = start_ns;
        gap_ns_ = gap_ns;
        offset_ns_ = offset_ns;
        poisson_ = kind == arrivals::poisson;
        state_ = seed;
        at_ns_ = poisson_ ? draw_gap() : offset_ns;
    }
    // Under stages: `step` and `offset` count requests on `curve` (which outlives the schedule).
    void start_staged(std::int64_t start_ns, const rate_curve* curve, double step, double offset, arrivals kind,
                      std::uint64_t seed) {
        curve_ = curve;
        cursor_ = 0;
        start(start_ns, step, offset, kind, seed);
        at_ = at_ns_;  // start() drew the first count
        at_ns_ = curve_->time_of(at_, cursor_);
    }
    bool on() const { return gap_ns_ > 0; }

    // The next request's intended send time; after the curve's end, later than any stop.
    std::int64_t next() const {
        return at_ns_ < 4e18 ? start_ns_ + static_cast<std::int64_t>(at_ns_) : INT64_MAX / 2;
    }

    // The next request took its time: `issued` requests have now been given one.
    void advance(std::uint64_t issued) {
        issued_ = issued;
        if (!curve_) {
            at_ns_ = poisson_ ? at_ns_ + draw_gap() : offset_ns_ + static_cast<double>(issued) * gap_ns_;
            return;
        }
        at_ = poisson_ ? at_ + draw_gap() : offset_ns_ + static_cast<double>(issued) * gap_ns_;
        at_ns_ = curve_->time_of(at_, cursor_);
    }

    // How many intended times, from next() on, fall before `stop_ns` (at most `limit`).
    std::uint64_t count_before(std::int64_t stop_ns, std::uint64_t limit) const {
        if (next() >= stop_ns || limit == 0) return 0;
        if (curve_ && !poisson_) {  // the count the curve means before the stop, in steps from the next
            const double left = curve_->count_at(static_cast<double>(stop_ns - start_ns_)) - at_;
            const auto n = static_cast<std::uint64_t>(std::ceil(left / gap_ns_));
            return n < limit ? n : limit;
        }
        if (!poisson_ && !curve_) {
            auto n = static_cast<std::uint64_t>(static_cast<double>(stop_ns - 1 - next()) / gap_ns_) + 1;
            return n < limit ? n : limit;
        }
        rate_schedule copy = *this;  // Poisson, steady or staged: draw them as they would come
        std::uint64_t n = 0;
        for (; n < limit && copy.next() < stop_ns; ++n) copy.advance(copy.issued_ + 1);
        return n;
    }

    // The latest of the next `limit` intended times (from next() on) that is at most `window_ns`
    // after next(): waking then sends them all at once, none later than the window. next() itself
    // when no other fits, when limit ≤ 1, and when the window reaches `stop_ns` (a wake late past
    // the stop would send none of them).
    std::int64_t last_within(std::int64_t window_ns, std::uint64_t limit, std::int64_t stop_ns) const {
        const std::int64_t first = next(), end = first + window_ns;
        if (limit <= 1 || window_ns <= 0 || end >= stop_ns) return first;
        if (curve_ && !poisson_) {  // the requests the curve means by the window's end, in steps from the next
            const double left = curve_->count_at(static_cast<double>(end - start_ns_)) - at_;
            const auto more = std::min(static_cast<std::uint64_t>(std::max(0.0, left / gap_ns_)), limit - 1);
            std::size_t cursor = cursor_;
            const double at = curve_->time_of(at_ + static_cast<double>(more) * gap_ns_, cursor);
            return at < 4e18 ? std::min(end, start_ns_ + static_cast<std::int64_t>(at)) : first;
        }
        if (!poisson_ && !curve_) {  // the next time plus whole gaps
            auto more = static_cast<std::uint64_t>(static_cast<double>(window_ns) / gap_ns_);
            more = std::min(more, limit - 1);
            return start_ns_ + static_cast<std::int64_t>(at_ns_ + static_cast<double>(more) * gap_ns_);
        }
        rate_schedule copy = *this;  // Poisson, steady or staged: draw them as they would come
        std::int64_t last = first;
        for (std::uint64_t n = 1; n < limit; ++n) {
            copy.advance(copy.issued_ + 1);
            if (copy.next() > end) break;
            last = copy.next();
        }
        return last;
    }

private:
    // An exponential gap with mean gap_ns_: −ln(u) × gap for u uniform in (0, 1].
    double draw_gap() {
        double u = static_cast<double>((splitmix64(state_) >> 11) + 1) * 0x1.0p-53;
        return -std::log(u) * gap_ns_;
    }

    std::int64_t start_ns_ = 0;
    double gap_ns_ = 0, offset_ns_ = 0;  // under stages: the step and the offset, in requests
    double at_ns_ = 0;  // the next intended time, after the start
    const rate_curve* curve_ = nullptr;  // stages: the curve; null: a steady rate
    std::size_t cursor_ = 0;             // the curve's segment the next time is in
    double at_ = 0;                      // under stages: the count the next time is due at
    std::uint64_t issued_ = 0;
    bool poisson_ = false;
    std::uint64_t state_ = 0;
};

// The seed of worker `worker`'s Poisson stream in shard `shard` of a run seeded `seed`: the three
// hashed together, so no two streams of a run, nor of runs with nearby seeds, are one stream
// shifted (SplitMix64 steps its state by a constant: seeds a multiple of it apart would be).
inline std::uint64_t stream_seed(std::uint64_t seed, std::uint32_t shard, std::uint32_t worker) {
    return mix64(mix64(seed ^ 0x6a09e667f3bcc909ULL) ^ (static_cast<std::uint64_t>(shard) << 32 | worker));
}

// Worker `i` of `t`'s share of plan `p`'s fixed rate (the plan may be a shard of a divided plan).
// Under stages, the interval and the offset count requests on the curve instead of nanoseconds.
struct worker_rate {
    double interval_ns = 0;  // between this worker's requests; 0: a closed loop
    double offset_ns = 0;    // its first request's time after the start
    std::uint64_t seed = 0;  // its Poisson stream's
};

inline worker_rate rate_of_worker(const plan& p, std::uint32_t i, std::uint32_t t) {
    worker_rate w;
    if (!p.stages().empty()) {  // worker i of t takes the curve's i-th request, then every t-th
        w.interval_ns = t;
        w.offset_ns = i;
        if (p.shard_count() > 1) w.offset_ns += static_cast<double>(p.shard_index()) / p.shard_count();
    } else if (p.rate() > 0) {  // each worker keeps its share of the rate; their schedules interleave
        w.interval_ns = 1e9 * t / p.rate();
        w.offset_ns = 1e9 * i / p.rate();
        // So do shards': shard k of n starts k/n of its own gap between requests (1/rate) after
        // shard 0, so the shards' times together are the undivided plan's schedule.
        if (p.shard_count() > 1) w.offset_ns += 1e9 * p.shard_index() / (p.rate() * p.shard_count());
    }
    w.seed = stream_seed(p.seed(), p.shard_index(), i);
    return w;
}

}  // namespace detail
}  // namespace microbench
