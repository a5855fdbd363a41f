// microbench/core/clock.hpp — the one clock every timing uses: CLOCK_MONOTONIC in nanoseconds.
// Never the wall clock: NTP steps must not bend latencies. One vDSO call, no syscall. The wall
// clock (realtime_ns) only converts arrival times the kernel stamps on it, anchors a run's start
// for ab -g and for merging results, and times a start at a given wall-clock instant.
#pragma once

#include <errno.h>
#include <time.h>

#include <cstdint>

namespace microbench {

inline std::int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Sleeps `ns` nanoseconds on the monotonic clock (the whole time, also when a signal comes).
inline void sleep_ns(std::int64_t ns) {
    timespec left{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &left, &left) == EINTR) {
    }
}

inline std::int64_t realtime_ns() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The wall clock minus the monotonic clock, now: the monotonic clock read between two wall-clock
// reads, keeping the closest pair of up to three tries, so a thread preempted between two reads
// does not skew every time converted with it by the length of the preemption.
inline std::int64_t realtime_minus_monotonic_ns() {
    std::int64_t best_gap = INT64_MAX, offset = 0;
    for (int i = 0; i < 3 && best_gap > 2'000; ++i) {
        const std::int64_t before = realtime_ns(), monotonic = now_ns(), after = realtime_ns();
        if (after - before < best_gap) {
            best_gap = after - before;
            offset = before + (after - before) / 2 - monotonic;
        }
    }
    return offset;
}

}  // namespace microbench
