// microbench/report/gates.hpp — pass/fail limits for CI on a finished result: failed checks, a failure
// budget, total-time percentiles and a minimum rate. Pure functions of the result: a verdict per
// limit (its figure, the limit, held or broken), written as one line each or as JSON. No I/O.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../core/appendf.hpp"
#include "../core/decimal.hpp"
#include "../stats/result.hpp"

namespace microbench {

struct gates {
    std::uint64_t max_failures = UINT64_MAX;                   // at most this many failed requests
    std::vector<std::pair<double, double>> max_percentile_ms;  // {p, ms}: total time at p at most ms
    double min_rps = 0;                                        // 0: no minimum
};

// One limit applied to a result.
struct gate_verdict {
    enum class kind { checks, max_failures, max_percentile_ms, min_rps } what = kind::checks;
    double percentile = 0;  // max_percentile_ms: which one
    double limit = 0;       // checks: 0 responses failing them
    double figure = 0;      // what the run gave, in the limit's unit
    bool measured = true;   // false: nothing to measure (a percentile of no successful response): broken
    bool held = true;
};

namespace detail {

// A limit as a person writes it: the fewest significant digits that read back as `v`, without an
// exponent from 1e-9 to 1e17 (1000000, 0.0000015, 99.9999999; never 1e+06), with one beyond.
inline void append_plain_number(std::string& out, double v) {
    int digits = 1;
    for (std::string probe; digits < 17; ++digits) {  // the shortest %.*g that reads back exactly
        double back = 0;
        probe.clear();
        appendf(probe, "%.*g", digits, v);
        if (parse_real(probe, back) && back == v) break;
    }
    const int exponent = v == 0 ? 0 : static_cast<int>(std::floor(std::log10(std::fabs(v))));
    if (exponent < -9 || exponent > 17) return appendf(out, "%.*g", digits, v);
    appendf(out, "%.*f", std::max(0, digits - 1 - exponent), v);
}

}  // namespace detail

// The verdict of every limit `g` sets, in the order checks, --max-failures, --max-pNN-ms,
// --min-rps. `checked`: the run checked its responses (statuses, bodies or factorials); any
// response that failed a check is a broken verdict whether or not it was asked for.
inline std::vector<gate_verdict> judge_gates(const gates& g, const result& r, bool checked) {
    std::vector<gate_verdict> out;
    using k = gate_verdict::kind;
    // A gate over nothing is broken, never passed: checks with no whole response to check, a
    // failure count with no request ended.
    const std::uint64_t check_failures = r.failed(failure::check);
    const bool responses = r.responses_total_ns.count() > 0;
    if (checked || check_failures)
        out.push_back({k::checks, 0, 0, static_cast<double>(check_failures), responses,
                       responses && check_failures == 0});
    if (g.max_failures != UINT64_MAX)
        out.push_back({k::max_failures, 0, static_cast<double>(g.max_failures), static_cast<double>(r.requests_failed),
                       r.requests_ended > 0, r.requests_ended > 0 && r.requests_failed <= g.max_failures});
    for (const auto& gate : g.max_percentile_ms) {  // of successful responses: none, nothing measured, broken
        const double got = static_cast<double>(r.total_ns.value_at_percentile(gate.first)) / 1e6;
        const bool measured = !r.total_ns.empty();
        out.push_back({k::max_percentile_ms, gate.first, gate.second, got, measured, measured && got <= gate.second});
    }
    if (g.min_rps > 0)
        out.push_back({k::min_rps, 0, g.min_rps, r.requests_per_second(), true, r.requests_per_second() >= g.min_rps});
    return out;
}

// Appends "Gate broken[ in LABEL]: …" for each broken verdict — the figure, the limit and the
// difference — and with `held_too` "Gate held[ in LABEL]: …" for the others; returns how many broke.
inline int append_gate_lines(const std::vector<gate_verdict>& verdicts, const char* label, std::string& out,
                             bool held_too) {
    using detail::appendf;
    using k = gate_verdict::kind;
    int broken = 0;
    for (const gate_verdict& v : verdicts) {
        if (v.held && !held_too) continue;
        broken += !v.held;
        appendf(out, "Gate %s%s%s: ", v.held ? "held" : "broken", *label ? " in " : "", label);
        const auto count = static_cast<unsigned long long>(v.figure);
        const auto limit = static_cast<unsigned long long>(v.limit);
        switch (v.what) {
            case k::checks:
                if (v.held) out += "no response failed the checks\n";
                else if (!v.measured) out += "no response came back to check\n";
                else appendf(out, "%llu responses failed the checks (reason check)\n", count);
                break;
            case k::max_failures:
                if (!v.measured) {
                    appendf(out, "no request ended: nothing to judge (--max-failures %llu)\n", limit);
                    break;
                }
                appendf(out, "%llu failed requests, %s --max-failures %llu", count, v.held ? "within" : "above", limit);
                if (!v.held) appendf(out, " by %llu", count - limit);
                out += "\n";
                break;
            case k::max_percentile_ms:
                out += "p";
                detail::append_plain_number(out, v.percentile);
                if (v.measured) appendf(out, " = %.3f ms, %s --max-p", v.figure, v.held ? "within" : "above");
                else out += " cannot be measured: no response succeeded (--max-p";
                detail::append_plain_number(out, v.percentile);
                out += "-ms ";
                detail::append_plain_number(out, v.limit);
                if (!v.measured) out += ")";
                else if (!v.held) appendf(out, " by %.3f ms", v.figure - v.limit);
                out += "\n";
                break;
            case k::min_rps:
                appendf(out, "%.2f requests/s, %s --min-rps ", v.figure, v.held ? "at least" : "below");
                detail::append_plain_number(out, v.limit);
                if (!v.held) appendf(out, " by %.2f", v.limit - v.figure);
                out += "\n";
                break;
        }
    }
    return broken;
}

// The verdicts as a JSON member for result_json's `extra`: ,"gates":{"passed":…,"verdicts":[{"gate":
// "checks"|"max-failures"|"max-pNN-ms"|"min-rps","limit":…,"figure":…,"held":…},…]}. Figures
// are in the limit's unit: responses, requests, milliseconds, requests per second; null when
// there was nothing to measure.
inline void append_gates_json(const std::vector<gate_verdict>& verdicts, std::string& out) {
    using k = gate_verdict::kind;
    bool passed = true;
    for (const gate_verdict& v : verdicts) passed = passed && v.held;
    detail::appendf(out, ",\"gates\":{\"passed\":%s,\"verdicts\":[", passed ? "true" : "false");
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
        const gate_verdict& v = verdicts[i];
        out += i ? ",{\"gate\":\"" : "{\"gate\":\"";
        switch (v.what) {
            case k::checks: out += "checks"; break;
            case k::max_failures: out += "max-failures"; break;
            case k::max_percentile_ms:
                out += "max-p";
                detail::append_plain_number(out, v.percentile);
                out += "-ms";
                break;
            case k::min_rps: out += "min-rps"; break;
        }
        out += "\",\"limit\":";
        detail::append_plain_number(out, v.limit);
        if (v.measured) detail::appendf(out, ",\"figure\":%.6f,\"held\":%s}", v.figure, v.held ? "true" : "false");
        else detail::appendf(out, ",\"figure\":null,\"held\":false}");
    }
    out += "]}";
}

// Appends "Gate broken[ in LABEL]: …" for each limit `r` breaks — any response that failed a
// check always counts as one — and returns how many broke.
inline int apply_gates(const gates& g, const result& r, const char* label, std::string& out) {
    return append_gate_lines(judge_gates(g, r, false), label, out, false);
}

}  // namespace microbench
