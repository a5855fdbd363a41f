// microbench/core/clock.hpp — the one clock every timing uses: CLOCK_MONOTONIC in nanoseconds.
// Never the wall clock: NTP steps must not bend latencies. One vDSO call, no syscall. The wall
// clock (realtime_ns) only converts arrival times the kernel stamps on it, anchors a run's start
// for ab -g and for merging results, and times a start at a given wall-clock instant.
#pragma once

#include <time.h>

#include <cstdint>

namespace microbench {

inline std::int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

inline std::int64_t realtime_ns() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace microbench
