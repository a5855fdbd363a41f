// microbench/engine/plan_callbacks.hpp — what a plan hands back while it runs: the cancel token that
// stops it from any thread, and the callbacks' types (progress, interval rows and their
// histograms), each called on the thread that called run().
#pragma once

#include <atomic>
#include <cstdint>

#include "../stats/histogram.hpp"
#include "../stats/result.hpp"

namespace microbench {

// Stops a run from any thread: the run stops issuing requests, aborts those in flight (counted
// as unfinished) and returns its partial result marked cancelled.
class cancel_token {
public:
    void cancel() { flag_.store(true, std::memory_order_relaxed); }
    bool cancelled() const { return flag_.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> flag_{false};
};

// What a progress callback is told; called on the thread that called run(), never a worker.
struct progress {
    std::uint64_t ended;       // requests that ended so far, complete or failed
    std::uint64_t target;      // requests asked for, 0 for a duration-only run
    std::int64_t elapsed_ns;
    std::uint64_t failed = 0;  // of the ended, those that failed
};
using progress_fn = void (*)(const progress&, void* user);
// Called with each interval's row as it closes (plan::interval_ms), on the thread that called run().
using interval_fn = void (*)(const interval_stats&, void* user);
// The histograms behind an interval's row, in nanoseconds: response time (the total time in a
// closed loop) and, at a fixed rate, service time and schedule lag (empty in a closed loop); and
// when the run started on the real-time clock, to place the row in time. Valid during the call.
struct interval_histograms {
    const histogram* response;
    const histogram* service;
    const histogram* schedule_lag;
    std::int64_t run_start_realtime_ns;
};
using interval_histograms_fn = void (*)(const interval_stats&, const interval_histograms&, void* user);

}  // namespace microbench
