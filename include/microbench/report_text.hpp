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
