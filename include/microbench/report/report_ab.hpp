// microbench/report/report_ab.hpp — ApacheBench 2.3's text report as a pure function of a result:
// the same lines, labels, order, units and number formats, so scripts that parse ab keep
// working. Figures come from exact counters and the histograms, in ms rounded as ab rounds.
// microbench's own additions go in lines ab never prints (see append_ab_notes) — never in ab's.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "../core/appendf.hpp"
#include "../stats/result.hpp"

namespace microbench {

// What the report says about the run besides the result.
struct report_context {
    std::string host;
    std::uint16_t port = 80;
    std::string path;
    std::uint32_t concurrency = 1;
    bool keep_alive = false;       // ab -k: print Keep-Alive requests
    bool variable_length = false;  // ab -l: Document Length is Variable
    bool sent_body = false;        // ab -p/-u: print the body-sent lines
    bool checked = false;          // responses were checked: print goodput next to requests/s
    std::uint64_t targets = 0;     // how many targets the requests went to (0: the path alone)
    std::string order = "in turn";  // how they were picked (run_description::order)
};

// ab's four failure columns; each of microbench's reasons counts in exactly one.
struct ab_failures {
    std::uint64_t connect, receive, length, exceptions;
};

// The times ab's Connection Times and percentile tables show: the successful responses', or, when
// none succeeded, every whole response's (of which only the Total is kept).
inline const histogram& ab_table_times(const result& r) {
    return r.total_ns.empty() ? r.responses_total_ns : r.total_ns;
}

// A failed TLS handshake is a Connect failure (ab's connect includes the handshake); a TLS failure
// after it, a Receive one.
inline ab_failures ab_failure_columns(const result& r) {
    const std::uint64_t handshake = r.tls_handshake_failures;
    return {r.failed(failure::connect) + handshake,
            r.failed(failure::receive) + r.failed(failure::write) + r.failed(failure::tls) - handshake,
            r.failed(failure::length),
            r.failed(failure::parse) + r.failed(failure::timeout) + r.failed(failure::check)};
}

namespace detail {

constexpr long long ab_round_ms(std::int64_t ns) { return static_cast<long long>((ns + 500'000) / 1'000'000); }

// The first response that failed the checks, under "Failure reasons", and what was expected:
//   First failed check:     /factorial/10: status 200, text/plain, 7 body bytes: "3628800"
//      expected:            body equals "3628800\n" (8 bytes)
inline void append_failed_check(const check_failure_sample& k, std::string& out) {
    if (!k.status) return;
    appendf(out, "First failed check:     %s: status %d, ", k.target.c_str(), k.status);
    append_escaped_answer(out, k.content_type, false);  // a header's bytes, escaped as the body's are
    appendf(out, "%s%llu body bytes: \"", k.content_type.empty() ? "" : ", ",
            static_cast<unsigned long long>(k.body_bytes));
    append_escaped_answer(out, k.body, k.cut);
    appendf(out, "\"\n   expected:            %s\n", k.expected.c_str());
}

inline long long ab_mean_ms(const histogram& h) { return static_cast<long long>(h.mean() / 1e6 + 0.5); }

inline void append_ab_times_row(std::string& out, const char* label, const histogram& h) {
    appendf(out, "%s%5lld %4lld %5.1f %6lld %7lld\n", label, ab_round_ms(h.min()), ab_mean_ms(h), h.stddev() / 1e6,
            ab_round_ms(h.value_at_percentile(50)), ab_round_ms(h.max()));
}

// ab's warning under the table when a column's mean and median, in whole milliseconds as the table
// shows them, lie more than one (WARNING) or two (ERROR) standard deviations apart.
inline void append_ab_sanity_line(std::string& out, const char* what, const histogram& h) {
    const double apart = std::fabs(static_cast<double>(ab_mean_ms(h) - ab_round_ms(h.value_at_percentile(50))));
    const double sd = h.stddev() / 1e6;
    if (apart > 2 * sd)
        appendf(out, "ERROR: The median and mean for %s are more than twice the standard\n"
                     "       deviation apart. These results are NOT reliable.\n", what);
    else if (apart > sd)
        appendf(out, "WARNING: The median and mean for %s are not within a normal deviation\n"
                     "        These results are probably not that reliable.\n", what);
}

}  // namespace detail

struct ab_report_options {
    bool confidence = true;   // false: ab -S, the short min/avg/max table without +/-sd
    bool percentiles = true;  // false: ab -d, no "Percentage of the requests" table
};

inline void append_ab_report(const report_context& ctx, const result& r, std::string& out,
                             const ab_report_options& options = {}) {
    using detail::appendf;
    const unsigned long long done = r.requests_ended;
    const double seconds = static_cast<double>(r.elapsed_ns) / 1e9;
    appendf(out, "Server Software:        %s\n", r.server_software.c_str());
    appendf(out, "Server Hostname:        %s\n", ctx.host.c_str());
    appendf(out, "Server Port:            %u\n", static_cast<unsigned>(ctx.port));
    if (r.tls_used) {  // ab's lines for an https:// run: what the first handshake negotiated
        appendf(out, "SSL/TLS Protocol:       %s,%s,%d,%d\n", r.tls.protocol, r.tls.cipher, r.tls.server_key_bits,
                r.tls.secret_bits);
        if (r.tls.temp_key[0]) appendf(out, "Server Temp Key:        %s\n", r.tls.temp_key);
        if (r.tls.server_name[0]) appendf(out, "TLS Server Name:        %s\n", r.tls.server_name);
    }
    appendf(out, "\n");
    appendf(out, "Document Path:          %s\n", ctx.path.c_str());
    if (ctx.targets > 1 || ctx.order.compare(0, 9, "each once") == 0)
        appendf(out, "Targets:                %llu, %s\n",
                static_cast<unsigned long long>(ctx.targets ? ctx.targets : 1), ctx.order.c_str());
    if (ctx.variable_length) appendf(out, "Document Length:        Variable\n\n");
    else appendf(out, "Document Length:        %llu bytes\n\n", static_cast<unsigned long long>(r.first_body_length));
    appendf(out, "Concurrency Level:      %u\n", ctx.concurrency);
    appendf(out, "Time taken for tests:   %.3f seconds\n", seconds);
    appendf(out, "Complete requests:      %llu\n", done);
    appendf(out, "Failed requests:        %llu\n", static_cast<unsigned long long>(r.requests_failed));
    if (r.requests_failed) {
        ab_failures f = ab_failure_columns(r);
        appendf(out, "   (Connect: %llu, Receive: %llu, Length: %llu, Exceptions: %llu)\n",
                static_cast<unsigned long long>(f.connect), static_cast<unsigned long long>(f.receive),
                static_cast<unsigned long long>(f.length), static_cast<unsigned long long>(f.exceptions));
        // microbench's finer reasons, on a line of their own that matches none of ab's.
        appendf(out, "Failure reasons:       ");
        const char* sep = " ";
        for (int i = 0; i < failure_count; ++i) {
            if (!r.failures[i]) continue;
            appendf(out, "%s%s %llu", sep, failure_name(static_cast<failure>(i)),
                    static_cast<unsigned long long>(r.failures[i]));
            sep = ", ";
        }
        appendf(out, "\n");
        detail::append_failed_check(r.first_failed_check, out);
    }
    if (r.unfinished)
        appendf(out, "Unfinished requests:    %llu (in flight when the run stopped)\n",
                static_cast<unsigned long long>(r.unfinished));
    if (r.non_2xx) appendf(out, "Non-2xx responses:      %llu\n", static_cast<unsigned long long>(r.non_2xx));
    if (ctx.keep_alive)
        appendf(out, "Keep-Alive requests:    %llu\n", static_cast<unsigned long long>(r.keep_alive_responses));
    appendf(out, "Total transferred:      %llu bytes\n", static_cast<unsigned long long>(r.bytes_received));
    if (ctx.sent_body) appendf(out, "Total body sent:        %llu\n", static_cast<unsigned long long>(r.bytes_sent));
    appendf(out, "HTML transferred:       %llu bytes\n", static_cast<unsigned long long>(r.body_bytes));
    if (seconds > 0 && done > 0) {
        appendf(out, "Requests per second:    %.2f [#/sec] (mean)\n", static_cast<double>(done) / seconds);
        if (ctx.checked)  // not an ab line: correct responses only
            appendf(out, "Goodput:                %.2f correct responses/sec\n", r.goodput_per_second());
        appendf(out, "Time per request:       %.3f [ms] (mean)\n",
                ctx.concurrency * seconds * 1000 / static_cast<double>(done));
        appendf(out, "Time per request:       %.3f [ms] (mean, across all concurrent requests)\n",
                seconds * 1000 / static_cast<double>(done));
        appendf(out, "Transfer rate:          %.2f [Kbytes/sec] received\n",
                static_cast<double>(r.bytes_received) / 1024 / seconds);
        if (ctx.sent_body) {
            appendf(out, "                        %.2f kb/s sent\n",
                    static_cast<double>(r.bytes_sent) / 1024 / seconds);
            appendf(out, "                        %.2f kb/s total\n",
                    static_cast<double>(r.bytes_received + r.bytes_sent) / 1024 / seconds);
        }
    }
    // When no response succeeded, the times of every whole response (failed ones too), so labelled:
    // only their Total is known.
    const histogram& total = ab_table_times(r);
    if (total.empty()) return;  // no response to time
    const bool all_responses = &total == &r.responses_total_ns;
    if (all_responses)
        appendf(out,
                "\nNote: no response succeeded: the times below are of all %llu whole responses, failed ones\n"
                "included (their Total only: Connect, Processing and Waiting are kept for successful responses).\n",
                static_cast<unsigned long long>(total.count()));
    struct row {
        const char* label;
        const histogram* h;
        const char* what;  // in ab's sanity lines
    };
    const row rows[] = {{"Connect:    ", &r.connect_ns, "the initial connection time"},
                        {"Processing: ", &r.processing_ns, "the processing time"},
                        {"Waiting:    ", &r.waiting_ns, "the waiting time"},
                        {"Total:      ", &total, "the total time"}};
    const std::size_t first_row = all_responses ? 3 : 0;
    appendf(out, "\nConnection Times (ms)\n");
    if (options.confidence) {
        appendf(out, "              min  mean[+/-sd] median   max\n");
        for (std::size_t i = first_row; i < 4; ++i) detail::append_ab_times_row(out, rows[i].label, *rows[i].h);
        for (std::size_t i = first_row; i < 4; ++i) detail::append_ab_sanity_line(out, rows[i].what, *rows[i].h);
    } else {  // ab -S prints these rows, in exactly this format
        appendf(out, "              min   avg   max\n");
        for (std::size_t i = first_row; i < 4; ++i)
            appendf(out, "%s%5lld %5lld%5lld\n", rows[i].label, detail::ab_round_ms(rows[i].h->min()),
                    detail::ab_round_ms(static_cast<std::int64_t>(rows[i].h->mean())),
                    detail::ab_round_ms(rows[i].h->max()));
    }
    if (!options.percentiles) return;
    appendf(out, "\nPercentage of the requests served within a certain time (ms)\n");
    for (int p : {50, 66, 75, 80, 90, 95, 98, 99})
        appendf(out, "  %d%%  %5lld\n", p, detail::ab_round_ms(total.value_at_percentile(p)));
    appendf(out, " 100%%  %5lld (longest request)\n", detail::ab_round_ms(total.max()));
}

}  // namespace microbench
