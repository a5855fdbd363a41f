// microbench/report/report_html_tables.hpp — the HTML report's tables (report_html.hpp draws the
// charts around them): a column per run, a row per figure. A section of runs has ab's summary,
// total time by percentile, failures by reason, status codes, checks, the open model, TLS and the
// configuration; a section of interval logs' tags (report_hlog_runs.hpp) only what a log holds:
// the values' count, span and rate, and their percentiles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "../core/appendf.hpp"
#include "report_ab.hpp"
#include "report_charts.hpp"
#include "report_read.hpp"
#include "svg_chart.hpp"

namespace microbench {

struct html_options {
    std::string title = "microbench report";
    std::int64_t generated_unix_ms = 0;  // shown when not 0
    std::vector<double> percentiles = {50, 90, 99, 99.9, 99.99};
};

namespace detail {

inline std::string utc_text(std::int64_t unix_ms) {
    time_t seconds = static_cast<time_t>(unix_ms / 1000);
    tm t{};
    gmtime_r(&seconds, &t);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &t);
    return buf;
}

// What one cell of a table shows about a run (`arg`: the percentile, failure reason or status).
enum class run_figure : std::uint8_t {
    ended, failed, non_2xx, unfinished, seconds, rps, goodput, time_per_request, transfer_rate, received,
    document_length, keep_alive, connects, server,
    total_min, total_mean, total_percentile, total_max, failure_count, ab_columns, status,
    checked_for, correct, wrong, errors,
    rate_target, rate_achieved, rate_arrivals, response_p99, lag_p99, sent_late, never_sent,
    url, method, requests, duration, concurrency, threads, keep_alive_on, pipeline, timeout, length_check,
    started, interrupted,
    tls_protocol, tls_temp_key, tls_server_name, tls_handshakes, tls_resumed, tls_no_session, tls_handshake_failures,
    tls_handshake_p50, tls_handshake_p99, tls_handshake_max, log_rows,
};

// Appends one cell's figure: numbers as the JSON rounds them, text escaped.
inline void append_run_cell(run_figure f, const report_run& x, double arg, std::string& out) {
    using ull = unsigned long long;
    const result& r = x.r;
    const double seconds = static_cast<double>(r.elapsed_ns) / 1e9, ended = static_cast<double>(r.requests_ended);
    const histogram& t = r.total_ns;
    const bool open = r.rate_target > 0;  // the open model's figures; "-" for a closed-loop run
    auto count = [&out](std::uint64_t v) { appendf(out, "%llu", static_cast<ull>(v)); };
    auto ms = [&out](double ns) { appendf(out, "%.3f", ns / 1e6); };
    auto text = [&out](const std::string& s) { append_html_escaped(out, s); };
    switch (f) {
        case run_figure::ended: return count(r.requests_ended);
        case run_figure::failed: return count(r.requests_failed);
        case run_figure::non_2xx: return count(r.non_2xx);
        case run_figure::unfinished: return count(r.unfinished);
        case run_figure::seconds: return appendf(out, "%.3f", seconds);
        case run_figure::rps: return appendf(out, "%.2f", r.requests_per_second());
        case run_figure::goodput: return appendf(out, "%.2f", r.goodput_per_second());
        case run_figure::time_per_request:
            return ended > 0 ? appendf(out, "%.3f", x.config.concurrency * seconds * 1000 / ended) : text("-");
        case run_figure::transfer_rate:
            return seconds > 0 ? appendf(out, "%.2f", static_cast<double>(r.bytes_received) / 1024 / seconds)
                               : text("-");
        case run_figure::received: return count(r.bytes_received);
        case run_figure::document_length: return count(r.first_body_length);
        case run_figure::keep_alive: return count(r.keep_alive_responses);
        case run_figure::connects: return count(r.connects);
        case run_figure::server: return text(r.server_software);
        case run_figure::total_min: return t.empty() ? text("-") : ms(static_cast<double>(t.min()));
        case run_figure::total_mean: return t.empty() ? text("-") : ms(t.mean());
        case run_figure::total_percentile:
            return t.empty() ? text("-") : ms(static_cast<double>(t.value_at_percentile(arg)));
        case run_figure::total_max: return t.empty() ? text("-") : ms(static_cast<double>(t.max()));
        case run_figure::failure_count: return count(r.failures[static_cast<int>(arg)]);
        case run_figure::ab_columns: {
            const ab_failures c = ab_failure_columns(r);
            return appendf(out, "%llu, %llu, %llu, %llu", static_cast<ull>(c.connect), static_cast<ull>(c.receive),
                           static_cast<ull>(c.length), static_cast<ull>(c.exceptions));
        }
        case run_figure::status: return count(r.status_counts[static_cast<int>(arg)]);
        case run_figure::checked_for: return text(x.config.checks.empty() ? "nothing" : x.config.checks);
        case run_figure::correct: return count(r.requests_completed);
        case run_figure::wrong: return count(r.failed(failure::check));
        case run_figure::errors: return count(r.requests_failed - r.failed(failure::check));
        case run_figure::rate_target: return open ? appendf(out, "%.3f", r.rate_target) : text("-");
        case run_figure::rate_achieved: return open ? appendf(out, "%.3f", r.requests_per_second()) : text("-");
        case run_figure::rate_arrivals:
            if (!open) return text("-");
            if (r.rate_arrivals == arrivals::uniform) return text("uniform");
            return appendf(out, "Poisson, seed %llu", static_cast<ull>(r.rate_seed));
        case run_figure::response_p99:
            return open ? ms(static_cast<double>(r.response_ns.value_at_percentile(99))) : text("-");
        case run_figure::lag_p99:
            return open ? ms(static_cast<double>(r.schedule_lag_ns.value_at_percentile(99))) : text("-");
        case run_figure::sent_late: return open ? count(r.connection_waits) : text("-");
        case run_figure::never_sent: return open ? count(r.schedule_missed) : text("-");
        case run_figure::url: return text(x.config.url);
        case run_figure::method: return text(x.config.method);
        case run_figure::requests: return x.config.requests ? count(x.config.requests) : text("no limit");
        case run_figure::duration:
            return x.config.duration_ms ? appendf(out, "%.3f s", static_cast<double>(x.config.duration_ms) / 1e3)
                                        : text("no limit");
        case run_figure::concurrency: return count(x.config.concurrency);
        case run_figure::threads: return count(x.config.threads);
        case run_figure::keep_alive_on: return text(x.config.keep_alive ? "yes" : "no");
        case run_figure::pipeline: return count(x.config.pipeline);
        case run_figure::timeout: return appendf(out, "%lld", static_cast<long long>(x.config.timeout_ms));
        case run_figure::length_check: return text(x.config.length_check ? "yes" : "no (-l)");
        case run_figure::started: return text(r.start_realtime_ns ? utc_text(r.start_realtime_ns / 1'000'000) : "-");
        case run_figure::interrupted: return text(r.cancelled ? "yes: partial figures" : "no");
        case run_figure::tls_protocol:  // ab's SSL/TLS Protocol line
            if (!r.tls_used) return text("-");
            text(r.tls.protocol);
            out += ", ";
            text(r.tls.cipher);
            return appendf(out, ", %d, %d", r.tls.server_key_bits, r.tls.secret_bits);
        case run_figure::tls_temp_key: return text(r.tls.temp_key[0] ? r.tls.temp_key : "-");
        case run_figure::tls_server_name: return text(r.tls.server_name[0] ? r.tls.server_name : "-");
        case run_figure::tls_handshakes: return count(r.tls_handshakes);
        case run_figure::tls_resumed: return count(r.tls_resumed);
        case run_figure::tls_no_session: return count(r.tls_no_session);
        case run_figure::tls_handshake_failures: return count(r.tls_handshake_failures);
        case run_figure::tls_handshake_p50:
            return r.tls_handshake_ns.empty() ? text("-")
                                              : ms(static_cast<double>(r.tls_handshake_ns.value_at_percentile(50)));
        case run_figure::tls_handshake_p99:
            return r.tls_handshake_ns.empty() ? text("-")
                                              : ms(static_cast<double>(r.tls_handshake_ns.value_at_percentile(99)));
        case run_figure::tls_handshake_max:
            return r.tls_handshake_ns.empty() ? text("-") : ms(static_cast<double>(r.tls_handshake_ns.max()));
        case run_figure::log_rows: return count(x.log_rows);
    }
}

struct table_row {
    const char* label;
    run_figure figure;
};

// A table with a column per run, written in three steps: its head, rows, its end.
inline void append_table_head(const char* caption, const std::vector<const report_run*>& runs, std::string& out) {
    out += "<div class=\"scroll\"><table><caption class=\"text\"><h3>";
    out += caption;
    out += "</h3></caption><thead><tr><th scope=\"col\"></th>";
    for (const report_run* run : runs) {
        out += "<th scope=\"col\">";
        append_html_escaped(out, run->label);
        out += "</th>";
    }
    out += "</tr></thead><tbody>\n";
}

// One row: `label`, then each run's figure. URLs, server names and check descriptions wrap anywhere.
inline void append_table_row(const char* label, run_figure f, double arg, const std::vector<const report_run*>& runs,
                             std::string& out) {
    const bool wraps = f == run_figure::server || f == run_figure::url || f == run_figure::checked_for;
    appendf(out, "<tr><th scope=\"row\">%s</th>", label);
    for (const report_run* run : runs) {
        out += wraps ? "<td class=\"text\">" : "<td>";
        append_run_cell(f, *run, arg, out);
        out += "</td>";
    }
    out += "</tr>\n";
}

template <std::size_t n>
void append_table(const char* caption, const table_row (&rows)[n], const std::vector<const report_run*>& runs,
                  std::string& out) {
    append_table_head(caption, runs, out);
    for (const table_row& row : rows) append_table_row(row.label, row.figure, 0, runs, out);
    out += "</tbody></table></div>\n";
}

// True when a run in `runs` is an interval log's tag: the section shows only what a log holds.
inline bool any_log(const std::vector<const report_run*>& runs) {
    return std::any_of(runs.begin(), runs.end(), [](const report_run* run) { return run->log_rows > 0; });
}

// The tables of a section of interval logs' tags: the values' count and span, and their percentiles.
inline void append_log_tables(const std::vector<const report_run*>& runs, const html_options& o, std::string& out) {
    using f = run_figure;
    static constexpr table_row log[] = {{"values", f::ended},
                                        {"rows merged", f::log_rows},
                                        {"seconds (first row's start to last row's end)", f::seconds},
                                        {"values per second", f::rps},
                                        {"source", f::url}};
    out += "<div class=\"tables\">\n";
    append_table("Interval log", log, runs, out);
    append_table_head("Values (ms), every row merged exactly", runs, out);
    append_table_row("min", f::total_min, 0, runs, out);
    append_table_row("mean", f::total_mean, 0, runs, out);
    for (double p : o.percentiles) append_table_row(percentile_name(p).c_str(), f::total_percentile, p, runs, out);
    append_table_row("max", f::total_max, 0, runs, out);
    out += "</tbody></table></div>\n</div>\n";
}

inline void append_run_tables(const std::vector<const report_run*>& runs, const html_options& o, std::string& out) {
    using f = run_figure;
    if (any_log(runs)) return append_log_tables(runs, o, out);
    bool checked = false, open = false, tls = false;
    for (const report_run* run : runs) {
        checked = checked || !run->config.checks.empty();
        open = open || run->r.rate_target > 0;
        tls = tls || run->r.tls_handshakes > 0 || run->r.failed(failure::tls) > 0;
    }
    static constexpr table_row summary[] = {
        {"Complete requests", f::ended}, {"Failed requests", f::failed}, {"Non-2xx responses", f::non_2xx},
        {"Unfinished requests", f::unfinished}, {"Time taken (s)", f::seconds}, {"Requests per second", f::rps},
        {"Goodput (correct/s)", f::goodput}, {"Time per request (ms, mean)", f::time_per_request},
        {"Transfer rate (KB/s received)", f::transfer_rate}, {"Total transferred (bytes)", f::received},
        {"Document length (bytes)", f::document_length}, {"Keep-alive requests", f::keep_alive},
        {"Connections opened", f::connects}, {"Server software", f::server}};
    static constexpr table_row checks[] = {
        {"checked for", f::checked_for}, {"correct", f::correct}, {"wrong", f::wrong}, {"error", f::errors}};
    static constexpr table_row open_model[] = {
        {"target (requests/s)", f::rate_target}, {"achieved (requests/s)", f::rate_achieved},
        {"arrivals", f::rate_arrivals}, {"response p99 (ms)", f::response_p99}, {"schedule lag p99 (ms)", f::lag_p99},
        {"sent late (no free connection)", f::sent_late}, {"never sent", f::never_sent}};
    static constexpr table_row tls_rows[] = {
        {"protocol, cipher, key bits, secret bits", f::tls_protocol}, {"server temp key", f::tls_temp_key},
        {"server name (SNI)", f::tls_server_name}, {"handshakes", f::tls_handshakes}, {"resumed", f::tls_resumed},
        {"full: no session at hand", f::tls_no_session},
        {"failed handshakes (requests)", f::tls_handshake_failures}, {"handshake p50 (ms)", f::tls_handshake_p50},
        {"handshake p99 (ms)", f::tls_handshake_p99}, {"handshake max (ms)", f::tls_handshake_max}};
    static constexpr table_row configuration[] = {
        {"URL", f::url}, {"method", f::method}, {"requests (-n)", f::requests}, {"duration", f::duration},
        {"connections (-c)", f::concurrency}, {"threads", f::threads}, {"keep-alive", f::keep_alive_on},
        {"pipeline", f::pipeline}, {"timeout (ms)", f::timeout}, {"length check", f::length_check},
        {"started", f::started}, {"interrupted", f::interrupted}};
    out += "<div class=\"tables\">\n";
    append_table_head("Summary (as ab reports it)", runs, out);
    for (const table_row& row : summary)
        if (row.figure != f::goodput || checked)
            append_table_row(row.label, row.figure, 0, runs, out);  // goodput: with checks
    out += "</tbody></table></div>\n";
    append_table_head("Total time (ms)", runs, out);
    append_table_row("min", f::total_min, 0, runs, out);
    append_table_row("mean", f::total_mean, 0, runs, out);
    for (double p : o.percentiles) append_table_row(percentile_name(p).c_str(), f::total_percentile, p, runs, out);
    append_table_row("max", f::total_max, 0, runs, out);
    out += "</tbody></table></div>\n";
    append_table_head("Failures by reason", runs, out);
    for (int i = 0; i < failure_count; ++i)
        append_table_row(failure_name(static_cast<failure>(i)), f::failure_count, i, runs, out);
    append_table_row("ab's columns (connect, receive, length, exceptions)", f::ab_columns, 0, runs, out);
    out += "</tbody></table></div>\n";
    append_table_head("Status codes", runs, out);
    for (int code = 100; code < 1000; ++code) {
        bool seen = false;
        for (const report_run* run : runs) seen = seen || run->r.status_counts[code];
        if (seen) append_table_row(std::to_string(code).c_str(), f::status, code, runs, out);
    }
    out += "</tbody></table></div>\n";
    if (checked) append_table("Checks", checks, runs, out);
    if (open) append_table("Open model", open_model, runs, out);
    if (tls) append_table("TLS (handshakes within Connect)", tls_rows, runs, out);
    append_table("Configuration", configuration, runs, out);
    out += "</div>\n";
}

}  // namespace detail

}  // namespace microbench
