// microbench/report/report_json.hpp — the whole result as one JSON document: the plan echoed back
// (as a run_description, what report_read.hpp reads back),
// counts, failures by reason (and in ab's four columns), status codes, bytes, connections, and
// the four timing breakdowns with percentiles and their encoded histograms (mergeable later),
// the open model's figures at a fixed rate and the per-interval rows when there are any.
// Hand-written and dependency-free; strings are escaped per RFC 8259.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "../core/appendf.hpp"
#include "../stats/histogram_codec.hpp"
#include "../engine/plan.hpp"
#include "../engine/shard.hpp"
#include "report_ab.hpp"
#include "../core/json_write.hpp"
#include "report_by_target.hpp"
#include "../stats/result.hpp"
#include "../core/version.hpp"

namespace microbench {

// What a run was asked to do, as the reports show it: from a plan (describe), or read back from a
// saved result's "config".
struct run_description {
    std::string url;
    std::string method = "GET";
    std::uint64_t requests = 0;     // 0: until the duration ends
    std::int64_t duration_ms = 0;   // 0: no time limit
    std::uint32_t concurrency = 1, threads = 1, pipeline = 1;
    bool keep_alive = false;
    bool length_check = true;
    std::int64_t timeout_ms = 0;
    std::string checks;             // what every response had to pass (checks::summary); empty: nothing
    std::uint32_t shard_index = 0, shard_count = 0;  // shard I of N (plan::shard); count 0: not a shard
    std::int64_t start_at_unix_ms = 0;               // plan::start_at_unix_ms; 0: at once
    std::uint64_t targets = 0;                       // how many targets (shard.hpp target_count); 0: url alone
    std::string order;  // with targets: "in turn" or "random (seed S)", after "each once, " when each went once
};

// With targets, how they were picked, as run_description::order says it; "" without.
inline std::string order_of(const plan& p) {
    if (!target_count(p) && !p.each_once()) return {};
    std::string out = p.each_once() ? "each once, " : "";
    if (p.order() == target_order::random)
        detail::appendf(out, "random (seed %llu)", static_cast<unsigned long long>(p.seed()));
    else
        out += "in turn";
    return out;
}

inline run_description describe(const plan& p) {
    run_description d;
    d.url = p.url().empty() && !p.targets().empty() ? p.targets()[0].url : p.url();  // run() takes the first's
    d.method = p.method();
    d.requests = p.requests();
    d.duration_ms = p.duration_ms();
    d.concurrency = p.concurrency();
    d.threads = p.threads();
    d.pipeline = p.pipeline();
    d.keep_alive = p.keep_alive();
    d.length_check = p.length_check();
    d.timeout_ms = p.timeout_ms();
    d.shard_index = p.shard_index();
    d.shard_count = p.shard_count();
    d.start_at_unix_ms = p.start_at_unix_ms();
    d.targets = target_count(p);
    d.order = order_of(p);
    for (int code : p.expect_status()) detail::appendf(d.checks, d.checks.empty() ? "status %d" : ",%d", code);
    const std::string rest = p.check().summary();
    if (!rest.empty()) d.checks.append(d.checks.empty() ? "" : "; ").append(rest);
    return d;
}

// What ab's report says about a run besides its result (report_ab.hpp), from what was planned: a
// saved result's description, or a live plan — the one way the command line, the C API and
// merge make it.
inline report_context report_context_of(const run_description& d) {
    report_context c;
    url target;
    if (!parse_url(d.url, target)) {
        c.host = target.host;
        c.port = target.port;
        c.path = target.target;
    }
    c.concurrency = d.concurrency;
    c.keep_alive = d.keep_alive;
    c.variable_length = !d.length_check;
    c.checked = !d.checks.empty();
    c.targets = d.targets;
    if (!d.order.empty()) c.order = d.order;  // a result saved before orders were named: in turn
    return c;
}

// How a run is labelled in reports when nobody names it: its URL's path ("/factorial/10"), or
// the URL as given when it does not parse.
inline std::string run_label(const std::string& url_text) {
    url target;
    return parse_url(url_text, target) ? url_text : target.target;
}

inline report_context report_context_of(const plan& p) {
    report_context c = report_context_of(describe(p));
    c.sent_body = !p.body().empty();
    return c;
}

namespace detail {

inline void append_json_target_row(std::string& out, const target_row& t) {
    auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
    appendf(out, "{\"target\":");
    append_json_string(out, t.target);
    appendf(out, ",\"index\":%llu,\"requests\":%llu,\"completed\":%llu,\"failed\":%llu,\"unfinished\":%llu,"
                 "\"non_2xx\":%llu,\"wrong\":%llu,\"p50_ns\":%lld,\"p99_ns\":%lld,\"failures\":{",
            u(t.index), u(t.requests()), u(t.completed), u(t.failed), u(t.unfinished), u(t.non_2xx), u(t.wrong()),
            static_cast<long long>(t.p50_ns), static_cast<long long>(t.p99_ns));
    for (int i = 0; i < failure_count; ++i)
        appendf(out, "%s\"%s\":%llu", i ? "," : "", failure_name(static_cast<failure>(i)), u(t.failures[i]));
    out += "}}";
}

// ,"by_target":{"targets":N,"rows":[...],"folded":{...},"verdict":[...],"first_wrong":{...}}
inline void append_json_by_target(std::string& out, const target_breakdown& b) {
    if (!b.targets) return;
    appendf(out, ",\"by_target\":{\"targets\":%llu,\"rows\":[", static_cast<unsigned long long>(b.targets));
    for (std::size_t i = 0; i < b.rows.size(); ++i) {
        if (i) out += ",";
        append_json_target_row(out, b.rows[i]);
    }
    appendf(out, "],\"folded_targets\":%llu,\"folded\":", static_cast<unsigned long long>(b.folded.index));
    append_json_target_row(out, b.folded);
    if (!b.verdict.empty()) {
        static const char* const names[] = {"right", "wrong", "failed", "unanswered", "unsent"};
        out += ",\"verdict\":[";
        for (std::size_t i = 0; i < b.verdict.size(); ++i) {
            const n_run& run = b.verdict[i];
            appendf(out, "%s{\"from\":%u,\"to\":%u,\"outcome\":\"%s\"", i ? "," : "", run.from, run.to,
                    names[static_cast<int>(run.outcome)]);
            if (run.outcome == n_outcome::failed) appendf(out, ",\"reason\":\"%s\"", failure_name(run.reason));
            out += "}";
        }
        appendf(out, "],\"verdict_cut\":%s", b.verdict_cut ? "true" : "false");
    }
    if (b.first_wrong.status) {
        appendf(out, ",\"first_wrong\":{\"n\":%u,\"status\":%d,\"answer\":", b.first_wrong.n, b.first_wrong.status);
        std::string answer;  // as the text report shows it, in ASCII: the body may be cut inside a UTF-8 sequence
        append_escaped_answer(answer, b.first_wrong.body, b.first_wrong.cut);
        append_json_string(out, answer);
        appendf(out, ",\"cut\":%s}", b.first_wrong.cut ? "true" : "false");
    }
    out += "}";
}

inline void append_json_histogram(std::string& out, const char* name, const histogram& h,
                                  const std::vector<double>& percentiles) {
    appendf(out, "\"%s\":{\"count\":%llu,\"min\":%lld,\"mean\":%.1f,\"stddev\":%.1f,\"max\":%lld,\"percentiles\":{",
            name, static_cast<unsigned long long>(h.count()), static_cast<long long>(h.min()), h.mean(), h.stddev(),
            static_cast<long long>(h.max()));
    for (std::size_t i = 0; i < percentiles.size(); ++i)
        appendf(out, "%s\"%g\":%lld", i ? "," : "", percentiles[i],
                static_cast<long long>(h.value_at_percentile(percentiles[i])));
    std::string bytes, text;
    encode_histogram(h, bytes);
    base64_encode(bytes, text);
    appendf(out, "},\"histogram\":\"%s\"}", text.c_str());
}

}  // namespace detail

// The result as one JSON document (read back by report_read.hpp). `extra` (",\"name\":value…",
// empty by default) is written as the document's last members: what a caller adds, such as
// merge's inputs, goes inside the document instead of being spliced into its text.
inline std::string result_json(const run_description& d, const result& r, const std::vector<double>& percentiles,
                               const std::string& extra = std::string()) {
    using detail::appendf;
    auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
    std::string out = "{\"microbench\":\"" MICROBENCH_VERSION_STRING "\",\"partial\":";
    out += r.cancelled ? "true" : "false";
    out += ",\"config\":{\"url\":";
    detail::append_json_string(out, d.url);
    out += ",\"method\":";
    detail::append_json_string(out, d.method);
    appendf(out, ",\"requests\":%llu,\"duration_ms\":%lld,\"concurrency\":%u,\"threads\":%u,\"keep_alive\":%s,"
                 "\"pipeline\":%u,\"timeout_ms\":%lld,\"length_check\":%s,\"checks\":",
            u(d.requests), static_cast<long long>(d.duration_ms), d.concurrency, d.threads,
            d.keep_alive ? "true" : "false", d.pipeline, static_cast<long long>(d.timeout_ms),
            d.length_check ? "true" : "false");
    detail::append_json_string(out, d.checks);
    if (d.shard_count) appendf(out, ",\"shard\":{\"index\":%u,\"count\":%u}", d.shard_index, d.shard_count);
    if (d.start_at_unix_ms) appendf(out, ",\"start_at_unix_ms\":%lld", static_cast<long long>(d.start_at_unix_ms));
    if (d.targets) appendf(out, ",\"targets\":%llu", u(d.targets));
    if (!d.order.empty()) {
        out += ",\"order\":";
        detail::append_json_string(out, d.order);
    }
    out += "},";
    appendf(out, "\"start_unix_ms\":%lld,\"start_unix_ns\":%lld,",
            static_cast<long long>(r.start_realtime_ns / 1'000'000), static_cast<long long>(r.start_realtime_ns));
    appendf(out, "\"elapsed_s\":%.6f,\"elapsed_ns\":%lld,\"requests_per_second\":%.2f,",
            static_cast<double>(r.elapsed_ns) / 1e9, static_cast<long long>(r.elapsed_ns), r.requests_per_second());
    appendf(out, "\"requests\":{\"ended\":%llu,\"completed\":%llu,\"failed\":%llu,\"unfinished\":%llu,\"non_2xx\":%llu,"
                 "\"keep_alive\":%llu,\"keep_alive_responses\":%llu,\"retries\":%llu},",
            u(r.requests_ended), u(r.requests_completed), u(r.requests_failed), u(r.unfinished), u(r.non_2xx),
            u(r.keep_alive_requests), u(r.keep_alive_responses), u(r.retries));
    if (r.request_fn_faults) appendf(out, "\"request_fn_faults\":%llu,", u(r.request_fn_faults));
    if (!r.connected_to.empty()) {  // a --connect-to rule matched, or a Unix socket
        out += "\"connected_to\":";
        detail::append_json_string(out, r.connected_to);
        out += ",";
    }
    out += "\"failures\":{";
    for (int i = 0; i < failure_count; ++i)
        appendf(out, "%s\"%s\":%llu", i ? "," : "", failure_name(static_cast<failure>(i)), u(r.failures[i]));
    ab_failures ab = ab_failure_columns(r);
    appendf(out, "},\"ab_failures\":{\"connect\":%llu,\"receive\":%llu,\"length\":%llu,\"exceptions\":%llu},",
            u(ab.connect), u(ab.receive), u(ab.length), u(ab.exceptions));
    if (const check_failure_sample& k = r.first_failed_check; k.status) {
        out += "\"first_failed_check\":{\"target\":";
        detail::append_json_string(out, k.target);
        appendf(out, ",\"status\":%d,\"content_type\":", k.status);
        std::string body;  // both as their bytes escaped (\xNN), so they read back exactly
        detail::append_escaped_answer(body, k.content_type, false);
        detail::append_json_string(out, body);
        body.clear();
        detail::append_escaped_answer(body, k.body, k.cut);
        appendf(out, ",\"body_bytes\":%llu,\"body\":", u(k.body_bytes));
        detail::append_json_string(out, body);
        appendf(out, ",\"cut\":%s,\"at_ns\":%lld,\"expected\":", k.cut ? "true" : "false",
                static_cast<long long>(k.at_ns));
        detail::append_json_string(out, k.expected);
        out += "},";
    }
    out += "\"status_codes\":{";
    const char* sep = "";
    for (int code = 0; code < 1000; ++code) {
        if (!r.status_counts[code]) continue;
        appendf(out, "%s\"%d\":%llu", sep, code, u(r.status_counts[code]));
        sep = ",";
    }
    appendf(out, "},\"bytes\":{\"sent\":%llu,\"received\":%llu,\"body\":%llu,\"head\":%llu,\"document_length\":%llu},",
            u(r.bytes_sent), u(r.bytes_received), u(r.body_bytes), u(r.head_bytes), u(r.first_body_length));
    appendf(out, "\"connections\":{\"requested\":%u,\"peak\":%u,\"connects\":%llu,\"server_closes\":%llu,"
                 "\"local_waits\":{\"port\":%llu,\"descriptor\":%llu,\"memory\":%llu},\"backlog_waits\":%llu},",
            r.concurrency_requested, r.concurrency_peak, u(r.connects), u(r.server_closes), u(r.port_waits),
            u(r.descriptor_waits), u(r.memory_waits), u(r.backlog_waits));
    out += "\"server_software\":";
    detail::append_json_string(out, r.server_software);
    out += ",\"latency_ns\":{";
    detail::append_json_histogram(out, "connect", r.connect_ns, percentiles);
    out += ",";
    detail::append_json_histogram(out, "waiting", r.waiting_ns, percentiles);
    out += ",";
    detail::append_json_histogram(out, "processing", r.processing_ns, percentiles);
    out += ",";
    detail::append_json_histogram(out, "total", r.total_ns, percentiles);
    out += ",";  // every whole response's total time, those that then failed a check too
    detail::append_json_histogram(out, "responses_total", r.responses_total_ns, percentiles);
    out += "}";
    if (r.rate_target > 0) {  // the open model: response time and schedule lag next to the service time
        appendf(out, ",\"open_model\":{\"rate\":%.3f,\"achieved\":%.3f,\"arrivals\":\"%s\",\"seed\":%llu,"
                     "\"max_batch_lag_us\":%lld,\"connection_waits\":%llu,\"schedule_missed\":%llu,",
                r.rate_target, r.requests_per_second(), r.rate_arrivals == arrivals::poisson ? "poisson" : "uniform",
                u(r.rate_seed), static_cast<long long>(r.rate_batch_lag_ns / 1000), u(r.connection_waits),
                u(r.schedule_missed));
        detail::append_json_histogram(out, "response_ns", r.response_ns, percentiles);
        out += ",";
        detail::append_json_histogram(out, "schedule_lag_ns", r.schedule_lag_ns, percentiles);
        if (!r.stages.empty()) out += ",\"stages\":[";
        for (std::size_t i = 0; i < r.stages.size(); ++i) {
            const stage_result& st = r.stages[i];
            appendf(out, "%s{\"start_ms\":%lld,\"duration_ms\":%lld,\"from\":%.3f,\"to\":%.3f,\"intended\":%.3f,"
                         "\"sent\":%llu,\"completed\":%llu,\"failed\":%llu",
                    i ? "," : "", static_cast<long long>(st.start_ms), static_cast<long long>(st.duration_ms),
                    st.from_rate, st.to_rate, st.intended, u(st.sent), u(st.completed), u(st.failed));
            if (st.p50_ns >= 0)  // not known after a merge
                appendf(out, ",\"p50_ns\":%lld,\"p99_ns\":%lld", static_cast<long long>(st.p50_ns),
                        static_cast<long long>(st.p99_ns));
            out += "}";
        }
        if (!r.stages.empty()) out += "]";
        out += "}";
    }
    // Over TLS: what the first handshake negotiated, each handshake's time, why TLS failed.
    if (r.tls_handshakes || r.tls_used || r.failed(failure::tls)) {
        appendf(out, ",\"tls\":{\"handshakes\":%llu,\"resumed\":%llu,\"no_session\":%llu,\"handshake_failures\":%llu,"
                     "\"protocol\":",
                u(r.tls_handshakes), u(r.tls_resumed), u(r.tls_no_session), u(r.tls_handshake_failures));
        detail::append_json_string(out, r.tls.protocol);
        out += ",\"cipher\":";
        detail::append_json_string(out, r.tls.cipher);
        appendf(out, ",\"server_key_bits\":%d,\"secret_bits\":%d,\"temp_key\":", std::max(r.tls.server_key_bits, 0),
                std::max(r.tls.secret_bits, 0));
        detail::append_json_string(out, r.tls.temp_key);
        out += ",\"server_name\":";
        detail::append_json_string(out, r.tls.server_name);
        out += ",\"failure_reasons\":[";
        for (std::size_t i = 0; i < r.tls_failure_reasons.size(); ++i) {
            if (i) out += ",";
            detail::append_json_string(out, r.tls_failure_reasons[i]);
        }
        out += "],";
        detail::append_json_histogram(out, "handshake_ns", r.tls_handshake_ns, percentiles);
        out += "}";
    }
    if (r.interval_ns > 0) {  // per-interval rows: times in ns from the run's start
        appendf(out, ",\"interval_ms\":%lld,\"intervals\":[", static_cast<long long>(r.interval_ns / 1'000'000));
        for (std::size_t i = 0; i < r.intervals.size(); ++i) {
            const interval_stats& row = r.intervals[i];
            appendf(out, "%s{\"start_ns\":%lld,\"duration_ns\":%lld,\"sent\":%llu,\"ended\":%llu,\"completed\":%llu,"
                         "\"failed\":%llu,\"rate_per_s\":%.2f,\"target_requests\":%.6f,\"response_ns\":{\"count\":%llu,"
                         "\"p50\":%lld,\"p90\":%lld,\"p99\":%lld,\"max\":%lld},\"schedule_lag_ns\":{\"p99\":%lld,"
                         "\"max\":%lld}",
                    i ? "," : "", static_cast<long long>(row.start_ns), static_cast<long long>(row.duration_ns),
                    u(row.sent), u(row.ended), u(row.completed), u(row.failed), row.rate(), row.target,
                    u(row.latency_count), static_cast<long long>(row.p50_ns), static_cast<long long>(row.p90_ns),
                    static_cast<long long>(row.p99_ns), static_cast<long long>(row.max_ns),
                    static_cast<long long>(row.lag_p99_ns), static_cast<long long>(row.lag_max_ns));
            if (r.interval_histograms.size() == r.intervals.size()) {  // kept (plan::interval_histograms)
                const interval_histogram_set& kept = r.interval_histograms[i];
                std::string text;
                const char* separator = ",\"histograms\":{";
                for (const auto& [name, bytes] :
                     {std::pair{"response", &kept.response}, std::pair{"service", &kept.service},
                      std::pair{"schedule_lag", &kept.schedule_lag}}) {
                    base64_encode(*bytes, text);
                    appendf(out, "%s\"%s\":\"%s\"", separator, name, text.c_str());
                    separator = ",";
                }
                out += "}";
            }
            out += "}";
        }
        out += "]";
    }
#ifndef MICROBENCH_NO_TARGETS
    detail::append_json_by_target(out, r.by_target);
#endif
    out += extra;
    out += "}\n";
    return out;
}

inline std::string result_json(const plan& p, const result& r, const std::vector<double>& percentiles) {
    return result_json(describe(p), r, percentiles);
}

}  // namespace microbench
