// tests/run_helpers.hpp — small helpers the tests share: the reference server's URL for a path,
// a run that must start and whose accounting must add up, how often a text occurs in a report,
// whether the tests run under an emulator, and the fixed-rate schedules a plan gives its workers
// (what the code decides, checked without timing anything).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "microbench.hpp"

inline std::string url_of(const microbench::server& s, const char* path) {
    return "http://127.0.0.1:" + std::to_string(s.port()) + path;
}

// Runs `p`; the run must start, and every request that ended is completed or failed.
inline microbench::result run_ok(const microbench::plan& p) {
    microbench::result r;
    microbench::error e = microbench::run(p, r);
    REQUIRE_MESSAGE(!e, std::string(e.message()));
    CHECK(r.requests_ended == r.requests_completed + r.requests_failed);
    return r;
}

// How many times `what` occurs in `text`, not overlapping.
inline std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

// A cross build's tests run under qemu-user (MICROBENCH_EMULATED is set by tests/CMakeLists.txt):
// ten times slower, and without the kernel's arrival stamps (qemu drops the control messages),
// so bounds meant for real hardware are not checked there.
inline bool emulated() { return std::getenv("MICROBENCH_EMULATED") != nullptr; }

// The intended send times (ns after the start) before `stop_ns` of every worker of `whole`, or of
// every worker of every shard when it is divided into `shards`, as the runner sets them up (under
// stages, from their curve): one vector per worker.
inline std::vector<std::vector<double>> scheduled_times(const microbench::plan& whole, std::int64_t stop_ns, std::uint32_t shards = 0) {
    std::vector<std::vector<double>> streams;
    for (std::uint32_t k = 0; k < std::max<std::uint32_t>(shards, 1); ++k) {
        microbench::plan p = whole;
        if (shards) REQUIRE_FALSE(microbench::divide_plan(p, k, shards));
        microbench::detail::rate_curve curve;  // under stages, as the runner builds it
        curve.build(p.rate(), p.stages(), 1.0);
        for (std::uint32_t i = 0; i < p.threads(); ++i) {
            const microbench::detail::worker_rate w = microbench::detail::rate_of_worker(p, i, p.threads());
            microbench::detail::rate_schedule s;
            if (curve.on()) s.start_staged(0, &curve, w.interval_ns, w.offset_ns, p.arrivals(), w.seed);
            else s.start(0, w.interval_ns, w.offset_ns, p.arrivals(), w.seed);
            std::vector<double> times;
            for (std::uint64_t n = 1; s.next() < stop_ns; ++n) times.push_back(static_cast<double>(s.next())), s.advance(n);
            streams.push_back(times);
        }
    }
    return streams;
}

// Variance / mean of the times counted per `bin_ns` over [0, stop_ns): 1 for Poisson arrivals.
inline double dispersion_of(const std::vector<std::vector<double>>& streams, std::int64_t bin_ns, std::int64_t stop_ns) {
    std::vector<double> bins(static_cast<std::size_t>(stop_ns / bin_ns), 0.0);
    for (const auto& s : streams)
        for (double t : s) bins[static_cast<std::size_t>(t / static_cast<double>(bin_ns))] += 1;
    double sum = 0, squares = 0;
    for (double b : bins) sum += b;
    const double mean = sum / static_cast<double>(bins.size());
    for (double b : bins) squares += (b - mean) * (b - mean);
    return squares / static_cast<double>(bins.size() - 1) / mean;
}
