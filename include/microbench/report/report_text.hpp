// microbench/report/report_text.hpp — microbench's own text after ab's report: plain notes about what
// ab would hide (keep-alive that did not happen, requests sent again, connects that waited for
// a local port, descriptor or buffer, the TLS handshakes and why TLS failed), the opt-in latency
// section in microseconds, and ab's two files (-e CSV, -g gnuplot TSV). Nothing printed after
// the report looks like an ab line, so ab parsers skip it.
#pragma once

#include <algorithm>
#include <cmath>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "../core/appendf.hpp"
#include "../core/decimal.hpp"
#include "report_ab.hpp"
#include "../stats/result.hpp"

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
                static_cast<unsigned long long>(r.server_closes),
                static_cast<unsigned long long>(r.keep_alive_requests), sent);
    if (r.connected_to.compare(0, 5, "unix:") == 0)
        appendf(out, "Note: connected to the Unix socket %s, not to the URL's host and port.\n",
                r.connected_to.c_str() + 5);
    else if (!r.connected_to.empty())
        appendf(out, "Note: connected to %s by --connect-to, not to the URL's host and port.\n",
                r.connected_to.c_str());
    if (r.request_fn_faults)
        appendf(out, "Note: the request callback wrote past its room, or named a target outside the targets, %llu "
                     "times; each stopped its thread's requests.\n",
                static_cast<unsigned long long>(r.request_fn_faults));
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
    if (r.backlog_waits)
        appendf(out, "Note: %llu connects found the server's listen queue full and waited (the server accepts too "
                     "slowly for -c; one still waiting at the timeout failed as connect).\n",
                static_cast<unsigned long long>(r.backlog_waits));
    if (r.tls_handshakes) {
        const histogram& h = r.tls_handshake_ns;
        appendf(out, "TLS handshakes: %llu (%llu resumed", static_cast<unsigned long long>(r.tls_handshakes),
                static_cast<unsigned long long>(r.tls_resumed));
        if (r.tls_no_session)
            appendf(out, ", %llu with no session at hand", static_cast<unsigned long long>(r.tls_no_session));
        appendf(out, "), each in ms: min %.3f, median %.3f, p99 %.3f, max %.3f (within ab's Connect)\n",
                h.min() / 1e6, h.value_at_percentile(50) / 1e6, h.value_at_percentile(99) / 1e6, h.max() / 1e6);
    }
    for (std::size_t i = 0; i < r.tls_failure_reasons.size(); ++i)
        appendf(out, "%s%s", i ? "; " : "TLS failures: ", r.tls_failure_reasons[i].c_str());
    if (!r.tls_failure_reasons.empty()) appendf(out, "\n");
    const histogram& timed = ab_table_times(r);
    if (!timed.empty() && detail::ab_round_ms(timed.max()) == 0)
        appendf(out, "Note: every time in the table is under 0.5 ms, which ab's whole milliseconds show as 0: "
                     "--latency gives them in microseconds.\n");
}

// Under stages: each stage's shape and what the requests meant for it got (by intended time).
inline void append_stages(const result& r, std::string& out) {
    using detail::appendf;
    appendf(out, "  the stages' average; each stage by its requests' intended send times:\n"
                 "  %5s %11s %11s %9s %10s %10s %10s %8s %9s %9s\n",
            "stage", "from /s", "to /s", "seconds", "meant", "sent", "completed", "failed", "p50 ms", "p99 ms");
    for (std::size_t i = 0; i < r.stages.size(); ++i) {
        const stage_result& s = r.stages[i];
        appendf(out, "  %5zu %11.2f %11.2f %9.3f %10.1f %10llu %10llu %8llu", i + 1, s.from_rate, s.to_rate,
                static_cast<double>(s.duration_ms) / 1e3, s.intended, static_cast<unsigned long long>(s.sent),
                static_cast<unsigned long long>(s.completed), static_cast<unsigned long long>(s.failed));
        if (s.p50_ns < 0) appendf(out, " %9s %9s\n", "-", "-");  // nothing completed, or merged: not known
        else appendf(out, " %9.3f %9.3f\n", static_cast<double>(s.p50_ns) / 1e6, static_cast<double>(s.p99_ns) / 1e6);
    }
}

// At a fixed rate: target and achieved rate, response time (from the intended send time) next to
// service time (from the actual send) and schedule lag, and — when the generator could not hold
// the rate — what fell behind and the remedy. Nothing in a closed loop.
inline void append_open_model_section(const result& r, std::string& out) {
    using detail::appendf;
    if (r.rate_target <= 0) return;
    const double achieved = r.requests_per_second();
    appendf(out, "\nOpen model: target %.2f requests/s", r.rate_target);
    if (r.rate_arrivals == arrivals::poisson)
        appendf(out, " (Poisson arrivals, seed %llu)", static_cast<unsigned long long>(r.rate_seed));
    appendf(out, ", achieved %.2f (%.1f %%)\n", achieved, 100.0 * achieved / r.rate_target);
    if (!r.stages.empty()) append_stages(r, out);
    appendf(out, "  (ms)          %10s %10s %10s %10s %10s\n", "p50", "p90", "p99", "p99.9", "max");
    const std::pair<const char*, const histogram*> rows[] = {
        {"response", &r.response_ns}, {"service", &r.total_ns}, {"schedule lag", &r.schedule_lag_ns}};
    for (const auto& row : rows) {
        const histogram& h = *row.second;
        appendf(out, "  %-12s  %10.3f %10.3f %10.3f %10.3f %10.3f\n", row.first, h.value_at_percentile(50) / 1e6,
                h.value_at_percentile(90) / 1e6, h.value_at_percentile(99) / 1e6, h.value_at_percentile(99.9) / 1e6,
                static_cast<double>(h.max()) / 1e6);
    }
    appendf(out, "  response = intended send time -> last byte (what a user in line sees); "
                 "service = actual send -> last byte\n"
                 "  (ab's lines above, at a fixed rate: Time per request is -c x elapsed / requests and "
                 "elapsed / requests,\n"
                 "  the schedule's pacing rather than a response time; "
                 "Connection Times are service times in whole ms)\n");
    if (r.rate_batch_lag_ns > 0)
        appendf(out, "  schedule lag = intended -> actual send; up to %lld us of it lets one wake send several "
                     "(--max-batch-lag)\n",
                static_cast<long long>(r.rate_batch_lag_ns / 1000));
    // Behind: below 99.5 % of the target, requests never sent, or more than 1 % sent late for want of a connection.
    const bool behind =
        achieved < 0.995 * r.rate_target || r.schedule_missed || r.connection_waits * 100 > r.requests_ended;
    if (!behind) return;
    appendf(out,
            "Note: the generator could not hold the rate: target %.0f/s, achieved %.0f/s, %.3f ms max schedule lag",
            r.rate_target, achieved, static_cast<double>(r.schedule_lag_ns.max()) / 1e6);
    if (r.connection_waits || r.schedule_missed) {
        // Little's law: the rate times the time each request holds its connection is how many are
        // in flight; at the p99 service time, with one more than now at the least.
        // No more than the run's requests, though (ended, in flight at the end, never sent): -c
        // above -n is refused, and each request would have its own connection already. A cancelled
        // run's requests are not all known: no cap then.
        const double p99_s = static_cast<double>(r.total_ns.value_at_percentile(99)) / 1e9;
        const double needed = std::max(std::ceil(r.rate_target * p99_s), r.concurrency_requested + 1.0);
        const double requests = static_cast<double>(r.requests_ended + r.unfinished + r.schedule_missed);
        appendf(out,
                "; %llu requests waited for a connection and %llu were never sent before the end — all %u connections "
                "were busy: ",
                static_cast<unsigned long long>(r.connection_waits), static_cast<unsigned long long>(r.schedule_missed),
                r.concurrency_requested);
        if (needed > requests && requests > r.concurrency_requested && !r.cancelled)
            appendf(out, "raise -c to %.0f, a connection for each request (%.0f/s x the p99 service time, %.1f ms, "
                         "would keep %.0f in flight) or --threads.\n",
                    requests, r.rate_target, p99_s * 1e3, needed);
        else
            appendf(out, "raise -c to at least %.0f (%.0f/s x the p99 service time, %.1f ms) or --threads.\n", needed,
                    r.rate_target, p99_s * 1e3);
    }
    else
        appendf(out, " with connections free — the generator itself fell behind (CPU): raise --threads.\n");
}

// The per-interval rows in brief: how steady the rate and the response time were, and when the
// worst interval was. Nothing without rows. `rows_written`: the rows went to a file already, so
// the line that points to --intervals FILE is left out.
inline void append_intervals_summary(const result& r, std::string& out, bool rows_written = false) {
    using detail::appendf;
    std::vector<double> rates, p99s;
    const interval_stats* worst = nullptr;
    for (const interval_stats& row : r.intervals) {
        if (row.duration_ns < r.interval_ns) continue;  // a last, shorter interval would skew the spread
        rates.push_back(row.rate());
        p99s.push_back(static_cast<double>(row.p99_ns) / 1e6);
        if (!worst || row.p99_ns > worst->p99_ns) worst = &row;
    }
    if (!worst) return;
    std::sort(rates.begin(), rates.end());
    std::sort(p99s.begin(), p99s.end());
    const std::size_t n = rates.size();
    appendf(out, "\nIntervals: %zu of %.3f s%s\n", r.intervals.size(), static_cast<double>(r.interval_ns) / 1e9,
            rows_written ? "" : " (--intervals FILE for every row)");
    appendf(out, "  requests/s      min %10.2f   median %10.2f   max %10.2f\n", rates[0], rates[n / 2], rates[n - 1]);
    appendf(out, "  p99 (ms)        min %10.3f   median %10.3f   max %10.3f (at %.3f s)\n", p99s[0], p99s[n / 2],
            p99s[n - 1], static_cast<double>(worst->start_ns) / 1e9);
}

// --intervals FILE: a header, then one row per interval (append_interval_csv_row); each column's
// unit in its name: seconds, counts, requests per second (ended and the schedule's target), ms.
constexpr const char* intervals_csv_header =
    "start_s,duration_s,sent,ended,completed,failed,rate_per_s,target_per_s,"
    "p50_ms,p90_ms,p99_ms,max_ms,lag_p99_ms,lag_max_ms\n";

inline void append_interval_csv_row(const interval_stats& row, std::string& out) {
    detail::appendf(out, "%.3f,%.3f,%llu,%llu,%llu,%llu,%.2f,%.2f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n",
                    static_cast<double>(row.start_ns) / 1e9, static_cast<double>(row.duration_ns) / 1e9,
                    static_cast<unsigned long long>(row.sent), static_cast<unsigned long long>(row.ended),
                    static_cast<unsigned long long>(row.completed), static_cast<unsigned long long>(row.failed),
                    row.rate(), row.target_rate(), static_cast<double>(row.p50_ns) / 1e6,
                    static_cast<double>(row.p90_ns) / 1e6, static_cast<double>(row.p99_ns) / 1e6,
                    static_cast<double>(row.max_ns) / 1e6, static_cast<double>(row.lag_p99_ns) / 1e6,
                    static_cast<double>(row.lag_max_ns) / 1e6);
}

inline std::string intervals_csv(const result& r) {
    std::string out = intervals_csv_header;
    for (const interval_stats& row : r.intervals) append_interval_csv_row(row, out);
    return out;
}

// "50,90,99,99.9" → {50, 90, 99, 99.9}; false if any item is not a number in [0, 100].
inline bool parse_percentile_list(const std::string& text, std::vector<double>& out) {
    out.clear();
    std::size_t at = 0;
    while (at <= text.size()) {
        std::size_t comma = text.find(',', at);
        double v = -1;
        if (!detail::parse_real(
                std::string_view(text).substr(at, comma == std::string::npos ? std::string::npos : comma - at), v) ||
            !(v >= 0 && v <= 100))
            return false;
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
    // Some whole responses failed a check or ab's length rule: their times too, in a column of their own.
    const bool failures_timed = r.responses_total_ns.count() > r.total_ns.count();
    if (failures_timed)
        appendf(out, "(total: successful responses; responses: every whole response, %llu failed ones included)\n",
                static_cast<unsigned long long>(r.responses_total_ns.count() - r.total_ns.count()));
    appendf(out, "           %12s %12s %12s %12s%s\n", "connect", "waiting", "processing", "total",
            failures_timed ? "    responses" : "");
    const histogram* h[] = {&r.connect_ns, &r.waiting_ns, &r.processing_ns, &r.total_ns, &r.responses_total_ns};
    auto row = [&](const char* label, auto value) {
        appendf(out, "  %-8s", label);
        for (std::size_t i = 0; i < (failures_timed ? 5u : 4u); ++i) appendf(out, " %12.1f", value(*h[i]) / 1e3);
        appendf(out, "\n");
    };
    row("min", [](const histogram& x) { return static_cast<double>(x.min()); });
    row("mean", [](const histogram& x) { return x.mean(); });
    row("stddev", [](const histogram& x) { return x.stddev(); });
    for (double p : percentiles) {
        std::string label;
        appendf(label, "p%g", p);
        row(label.c_str(), [p](const histogram& x) { return static_cast<double>(x.value_at_percentile(p)); });
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

// ab -g: one tab-separated row per recorded request, by start time: its start as text (local
// time, English names as in the C locale whatever LC_TIME says) and in seconds since the epoch,
// then ctime (Connect), dtime (Processing), ttime (Total) and wait (Waiting) in ms rounded as ab
// rounds.
inline std::string gnuplot_tsv(const result& r) {
    std::string out = "starttime\tseconds\tctime\tdtime\tttime\twait\n";
    for (const request_timing& t : r.requests) {
        std::int64_t wall_ns = r.start_realtime_ns + (t.start_ns - r.start_ns);
        time_t seconds = static_cast<time_t>(wall_ns / 1'000'000'000);
        tm local{};
        localtime_r(&seconds, &local);
        detail::appendf(out, "%.3s %.3s %02d %02d:%02d:%02d %d\t%lld\t%lld\t%lld\t%lld\t%lld\n",
                        &"SunMonTueWedThuFriSat"[3 * local.tm_wday],
                        &"JanFebMarAprMayJunJulAugSepOctNovDec"[3 * local.tm_mon], local.tm_mday, local.tm_hour,
                        local.tm_min, local.tm_sec, local.tm_year + 1900, static_cast<long long>(seconds),
                        detail::ab_round_ms(t.connect_ns), detail::ab_round_ms(t.processing_ns),
                        detail::ab_round_ms(t.total_ns), detail::ab_round_ms(t.waiting_ns));
    }
    return out;
}

}  // namespace microbench
