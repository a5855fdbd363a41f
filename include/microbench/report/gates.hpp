// microbench/report/gates.hpp — pass/fail limits for CI on a finished result: failed checks, a failure
// budget, total-time percentiles and a minimum rate. A pure function of the result: it says
// which limits broke and by how much, one line each, and how many broke. No I/O.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../core/appendf.hpp"
#include "../stats/result.hpp"

namespace microbench {

struct gates {
    std::uint64_t max_failures = UINT64_MAX;                   // at most this many failed requests
    std::vector<std::pair<double, double>> max_percentile_ms;  // {p, ms}: total time at p at most ms
    double min_rps = 0;                                        // 0: no minimum
};

// Appends "Gate broken[ in LABEL]: …" for each limit `r` breaks — any response that failed a
// check always counts as one — and returns how many broke.
inline int apply_gates(const gates& g, const result& r, const char* label, std::string& out) {
    using detail::appendf;
    int broken = 0;
    auto line = [&](const char* fmt, auto... args) {
        appendf(out, "Gate broken%s%s: ", *label ? " in " : "", label);
        appendf(out, fmt, args...);
        ++broken;
    };
    if (std::uint64_t failed = r.failed(failure::check))
        line("%llu responses failed the checks (reason check)\n", static_cast<unsigned long long>(failed));
    if (r.requests_failed > g.max_failures)
        line("%llu failed requests, above --max-failures %llu by %llu\n", static_cast<unsigned long long>(r.requests_failed),
             static_cast<unsigned long long>(g.max_failures), static_cast<unsigned long long>(r.requests_failed - g.max_failures));
    for (const auto& gate : g.max_percentile_ms) {
        double got = static_cast<double>(r.total_ns.value_at_percentile(gate.first)) / 1e6;
        if (got > gate.second) line("p%g = %.3f ms, above --max-p%g-ms %g by %.3f ms\n", gate.first, got, gate.first, gate.second, got - gate.second);
    }
    if (g.min_rps > 0 && r.requests_per_second() < g.min_rps)
        line("%.2f requests/s, below --min-rps %g by %.2f\n", r.requests_per_second(), g.min_rps, g.min_rps - r.requests_per_second());
    return broken;
}

}  // namespace microbench
