// microbench/report_text.hpp — microbench's own text after ab's report: plain notes about what
// ab would hide (keep-alive that did not happen, requests sent again, connects that waited for
// a local port, descriptor or buffer), the opt-in latency
// section in microseconds, and ab's two files (-e CSV, -g gnuplot TSV). Nothing printed after
// the report looks like an ab line, so ab parsers skip it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "appendf.hpp"
#include "report_ab.hpp"
#include "result.hpp"

namespace microbench {

inline void append_report_notes(const report_context& ctx, const result& r, std::string& out) {
    using detail::appendf;
    const unsigned long long sent = r.requests_ended + r.unfinished;
    const std::uint64_t responses = r.responses_total_ns.count();  // whole responses, passed or not
    if (ctx.keep_alive && r.keep_alive_requests == 0 && responses > ctx.concurrency)
        appendf(out, "\nNote: keep-alive was requested, but the server closed every connection: no request reused one, "
                     "so these are new-connection figures.\n");
    else if (ctx.keep_alive && r.server_closes > 0)
        appendf(out, "\nNote: keep-alive was requested; the server closed connections %llu times, and %llu of %llu "
                     "requests reused a connection.\n",
                static_cast<unsigned long long>(r.server_closes), static_cast<unsigned long long>(r.keep_alive_requests), sent);
    if (r.retries)
        appendf(out, "Note: %llu requests met a keep-alive connection the server had closed and were sent again "
                     "(each counted once).\n", static_cast<unsigned long long>(r.retries));
    if (r.port_waits)
        appendf(out, "Note: %llu connects waited for a free local port (not counted as failures); widen "
                     "net.ipv4.ip_local_port_range, use keep-alive (-k) or connect from more addresses (-B).\n",
                static_cast<unsigned long long>(r.port_waits));
    if (r.descriptor_waits)
        appendf(out, "Note: %llu connects waited for a free file descriptor (not counted as failures); raise the "
                     "open-file limit (ulimit -n) or lower -c.\n", static_cast<unsigned long long>(r.descriptor_waits));
    if (r.memory_waits)
        appendf(out, "Note: %llu connects waited for kernel memory or buffers (not counted as failures); lower -c "
                     "or -b.\n", static_cast<unsigned long long>(r.memory_waits));
}

// At a fixed rate: target and achieved rate, response time (from the intended send time) next to
// service time (from the actual send) and schedule lag, and — when the generator could not hold
// the rate — what fell behind and the remedy. Nothing in a closed loop.
inline void append_open_model_section(const result& r, std::string& out) {
    using detail::appendf;
    if (r.rate_target <= 0) return;
    const double achieved = r.requests_per_second();
    appendf(out, "\nOpen model: target %.2f requests/s, achieved %.2f (%.1f %%)\n", r.rate_target, achieved,
            100.0 * achieved / r.rate_target);
    appendf(out, "  (ms)          %10s %10s %10s %10s %10s\n", "p50", "p90", "p99", "p99.9", "max");
    const std::pair<const char*, const histogram*> rows[] = {
        {"response", &r.response_ns}, {"service", &r.total_ns}, {"schedule lag", &r.schedule_lag_ns}};
    for (const auto& row : rows) {
        const histogram& h = *row.second;
        appendf(out, "  %-12s  %10.3f %10.3f %10.3f %10.3f %10.3f\n", row.first, h.value_at_percentile(50) / 1e6,
                h.value_at_percentile(90) / 1e6, h.value_at_percentile(99) / 1e6, h.value_at_percentile(99.9) / 1e6,
                static_cast<double>(h.max()) / 1e6);
    }
    appendf(out, "  response = intended send time -> last byte (what a user in line sees); service = actual send -> last byte\n");
    // Behind: below 99.5 % of the target, requests never sent, or more than 1 % sent late for want of a connection.
    const bool behind = achieved < 0.995 * r.rate_target || r.schedule_missed || r.connection_waits * 100 > r.requests_ended;
    if (!behind) return;
    appendf(out, "Note: the generator could not hold the rate: target %.0f/s, achieved %.0f/s, %.3f ms max schedule lag",
            r.rate_target, achieved, static_cast<double>(r.schedule_lag_ns.max()) / 1e6);
    if (r.connection_waits || r.schedule_missed)
        appendf(out, "; %llu requests waited for a connection and %llu were never sent before the end — all %u connections "
                     "were busy: raise -c (rate x latency needs that many in flight) or --threads.\n",
                static_cast<unsigned long long>(r.connection_waits), static_cast<unsigned long long>(r.schedule_missed),
                r.concurrency_requested);
    else
        appendf(out, " with connections free — the generator itself fell behind (CPU): raise --threads.\n");
}

// "50,90,99,99.9" → {50, 90, 99, 99.9}; false if any item is not a number in [0, 100].
inline bool parse_percentile_list(const std::string& text, std::vector<double>& out) {
    out.clear();
    std::size_t at = 0;
    while (at <= text.size()) {
        std::size_t comma = text.find(',', at);
        std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        char* end = nullptr;
        double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !(v >= 0 && v <= 100)) return false;
        out.push_back(v);
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return !out.empty();
}

// The four breakdowns in µs with 1 decimal: exact min/mean/max, percentiles from the histogram.
inline void append_latency_section(const result& r, const std::vector<double>& percentiles, std::string& out) {
    using detail::appendf;
    appendf(out, "\nLatency (microseconds; min, mean and max exact, percentiles within 0.1 %%)\n");
    appendf(out, "           %12s %12s %12s %12s\n", "connect", "waiting", "processing", "total");
    const histogram* h[] = {&r.connect_ns, &r.waiting_ns, &r.processing_ns, &r.total_ns};
    auto row = [&](const char* label, auto value) {
        appendf(out, "  %-8s", label);
        for (const histogram* x : h) appendf(out, " %12.1f", value(*x) / 1e3);
        appendf(out, "\n");
    };
    row("min", [](const histogram& x) { return static_cast<double>(x.min()); });
    row("mean", [](const histogram& x) { return x.mean(); });
    row("stddev", [](const histogram& x) { return x.stddev(); });
    for (double p : percentiles) {
        char label[24];
        std::snprintf(label, sizeof label, "p%g", p);
        row(label, [p](const histogram& x) { return static_cast<double>(x.value_at_percentile(p)); });
    }
    row("max", [](const histogram& x) { return static_cast<double>(x.max()); });
}

// ab -e: "Percentage served,Time in ms" and rows 0 … 100 of the Total time.
inline std::string percentiles_csv(const result& r) {
    std::string out = "Percentage served,Time in ms\n";
    for (int p = 0; p <= 100; ++p)
        detail::appendf(out, "%d,%.3f\n", p, static_cast<double>(r.total_ns.value_at_percentile(p)) / 1e6);
    return out;
}

// ab -g: one tab-separated row per recorded request, by start time: its start as text and in
// seconds since the epoch, then ctime (Connect), dtime (Processing), ttime (Total) and wait
// (Waiting) in ms rounded as ab rounds.
inline std::string gnuplot_tsv(const result& r) {
    std::string out = "starttime\tseconds\tctime\tdtime\tttime\twait\n";
    for (const request_timing& t : r.requests) {
        std::int64_t wall_ns = r.start_realtime_ns + (t.start_ns - r.start_ns);
        time_t seconds = static_cast<time_t>(wall_ns / 1'000'000'000);
        tm local{};
        localtime_r(&seconds, &local);
        char when[64];
        std::strftime(when, sizeof when, "%a %b %d %H:%M:%S %Y", &local);
        detail::appendf(out, "%s\t%lld\t%lld\t%lld\t%lld\t%lld\n", when, static_cast<long long>(seconds),
                        detail::ab_round_ms(t.connect_ns), detail::ab_round_ms(t.processing_ns),
                        detail::ab_round_ms(t.total_ns), detail::ab_round_ms(t.waiting_ns));
    }
    return out;
}

}  // namespace microbench
