// microbench/engine/schedule.hpp — one worker's fixed-rate schedule (the open model): when each of its
// requests is meant to be sent. Uniform: the i-th at offset + i × gap after the start, computed
// from i so no rounding adds up. Poisson: exponential gaps averaging `gap`, drawn from a
// SplitMix64 generator seeded by the plan, so the same seed gives the same schedule. Off (a
// closed loop) when the gap is 0.
#pragma once

#include <cmath>
#include <cstdint>

#include "plan.hpp"

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
    bool on() const { return gap_ns_ > 0; }

    // The next request's intended send time.
    std::int64_t next() const { return start_ns_ + static_cast<std::int64_t>(at_ns_); }

    // The next request took its time: `issued` requests have now been given one.
    void advance(std::uint64_t issued) {
        at_ns_ = poisson_ ? at_ns_ + draw_gap() : offset_ns_ + static_cast<double>(issued) * gap_ns_;
    }

    // How many intended times, from next() on, fall before `stop_ns` (at most `limit`).
    std::uint64_t count_before(std::int64_t stop_ns, std::uint64_t limit) const {
        if (next() >= stop_ns || limit == 0) return 0;
        if (!poisson_) {
            auto n = static_cast<std::uint64_t>(static_cast<double>(stop_ns - 1 - next()) / gap_ns_) + 1;
            return n < limit ? n : limit;
        }
        rate_schedule copy = *this;
        std::uint64_t n = 0;
        for (; n < limit && copy.next() < stop_ns; ++n) copy.at_ns_ += copy.draw_gap();
        return n;
    }

private:
    std::uint64_t splitmix64() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // An exponential gap with mean gap_ns_: −ln(u) × gap for u uniform in (0, 1].
    double draw_gap() {
        double u = static_cast<double>((splitmix64() >> 11) + 1) * 0x1.0p-53;
        return -std::log(u) * gap_ns_;
    }

    std::int64_t start_ns_ = 0;
    double gap_ns_ = 0, offset_ns_ = 0;
    double at_ns_ = 0;  // the next intended time, after the start
    bool poisson_ = false;
    std::uint64_t state_ = 0;
};

}  // namespace detail
}  // namespace microbench
