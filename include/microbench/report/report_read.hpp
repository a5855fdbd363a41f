// microbench/report/report_read.hpp — saved JSON results read back into results: a single run's
// document (result_json), a --compare document {"a": …, "b": …} and a --suite array of
// {"scenario", "result"}. Counts, bytes, failures, status codes, the open model and the interval
// rows come back as written (exactly, but for decimals: the rate to the thousandth, an interval's
// target to the millionth), the timing histograms — the four of ab's table, every whole response's
// total and the open model's two — bucket for bucket from their encodings, so a report drawn from
// a file equals one drawn from the run itself. A
// number its field cannot hold (1e999, a count above 2^64 - 1, a negative time) is refused, and
// the refusal names the field.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/appendf.hpp"
#include "../core/json_read.hpp"
#include "../http/url.hpp"
#include "../stats/histogram_codec.hpp"
#include "../stats/result.hpp"
#include "json_fields.hpp"
#include "report_read_targets.hpp"
#include "report_json.hpp"

namespace microbench {

// One run as the HTML report draws it: runs with the same scenario share charts, one colour each.
struct report_run {
    std::string label;     // the legend's name: "A", "B", a file's name
    std::string scenario;  // "" for a single workload; a suite's scenario name
    run_description config;
    result r;
    // 0 for a run's result; for an HdrHistogram interval log's tag (report_hlog_runs.hpp), the
    // rows merged: only its values (as total_ns), their count and the time they span are known.
    std::size_t log_rows = 0;
};

namespace detail {

// Why a saved histogram was refused: its counters could not be mapped, or it does not decode.
inline const char* histogram_refusal(error e) {
    return e.code == errc::out_of_memory ? "needs more memory for its counters than can be mapped" : "does not decode";
}

inline void read_histogram(json_fields& f, const char* key, histogram& out) {
    json_fields h = f.object(key);
    const json_value* text = h.get("histogram", json_value::kind::string);
    std::string bytes;
    if (!text) return;
    if (!base64_decode(text->text, bytes)) h.fail("histogram", "does not decode");
    else if (error e = decode_histogram(bytes, out)) h.fail("histogram", histogram_refusal(e));
}

}  // namespace detail

// Reads one result document (what result_json writes) into `d` and `r`. When a field is missing,
// has the wrong type or a value out of range, `problem` (if given) names the first such one.
inline error read_result_json(const json_value& doc, run_description& d, result& r, std::string* problem = nullptr) {
    std::string why;
    detail::json_fields top(&doc, why);
    const json_value* version = doc.find("microbench");
    if (!version || !version->is(json_value::kind::string)) return {errc::result_not_microbench, 0};
    r = result();
    top.flag("partial", r.cancelled);
    detail::json_fields config = top.object("config");
    config.text("url", d.url);
    config.text("method", d.method);
    config.number("requests", d.requests);
    config.time("duration_ms", d.duration_ms, detail::saved_ms_max);
    config.number("concurrency", d.concurrency);
    config.number("threads", d.threads);
    config.flag("keep_alive", d.keep_alive);
    config.number("pipeline", d.pipeline);
    config.time("timeout_ms", d.timeout_ms, detail::saved_ms_max);
    config.flag("length_check", d.length_check);
    d.checks.clear();
    if (const json_value* c = config.optional("checks", json_value::kind::string)) d.checks = c->text;
    d.shard_index = d.shard_count = 0;
    if (config.optional("shard", json_value::kind::object)) {
        detail::json_fields shard = config.object("shard");
        shard.number("index", d.shard_index);
        shard.number("count", d.shard_count);
        if (d.shard_index >= d.shard_count) shard.fail("index", "is not below the count");
    }
    d.start_at_unix_ms = 0;
    if (config.optional("start_at_unix_ms", json_value::kind::number))
        config.time("start_at_unix_ms", d.start_at_unix_ms, detail::saved_ms_max);
    r.start_requested_realtime_ns = d.start_at_unix_ms * 1'000'000;
    d.targets = 0;
    if (config.optional("targets", json_value::kind::number)) config.number("targets", d.targets);
    d.order = d.targets ? "in turn" : "";  // a result saved before orders were named went in turn
    if (const json_value* o = config.optional("order", json_value::kind::string)) d.order = o->text;
    std::int64_t start_ms = 0;
    top.time("start_unix_ms", start_ms, detail::saved_ms_max);
    r.start_realtime_ns = start_ms * 1'000'000;
    if (top.optional("start_unix_ns", json_value::kind::number)) top.time("start_unix_ns", r.start_realtime_ns);
    if (top.optional("elapsed_ns", json_value::kind::number)) {
        top.time("elapsed_ns", r.elapsed_ns);
    } else {  // results written before elapsed_ns
        double seconds = 0;
        top.real("elapsed_s", seconds, 4e9);
        r.elapsed_ns = static_cast<std::int64_t>(seconds * 1e9 + 0.5);
    }
    detail::json_fields requests = top.object("requests");
    requests.number("ended", r.requests_ended);
    requests.number("completed", r.requests_completed);
    requests.number("failed", r.requests_failed);
    requests.number("unfinished", r.unfinished);
    requests.number("non_2xx", r.non_2xx);
    requests.number("keep_alive", r.keep_alive_requests);
    requests.number("keep_alive_responses", r.keep_alive_responses);
    requests.number("retries", r.retries);
    if (top.optional("request_fn_faults", json_value::kind::number))  // written only when not 0
        top.number("request_fn_faults", r.request_fn_faults);
    if (top.optional("connected_to", json_value::kind::string)) top.text("connected_to", r.connected_to);
    detail::json_fields failures = top.object("failures");
    for (int i = 0; i < failure_count; ++i) {
        const char* name = failure_name(static_cast<failure>(i));
        if (static_cast<failure>(i) == failure::tls && !failures.optional(name, json_value::kind::number))
            continue;  // before https
        failures.number(name, r.failures[i]);
    }
    if (top.optional("first_failed_check", json_value::kind::object)) {  // saved since checks show what came
        detail::json_fields f = top.object("first_failed_check");
        check_failure_sample& k = r.first_failed_check;
        std::string body, type;
        bool cut = false, type_cut = false;
        std::uint32_t status = 0;
        f.text("target", k.target);
        f.number("status", status);
        k.status = static_cast<int>(std::min<std::uint32_t>(status, 1000));
        f.text("content_type", type);
        detail::read_escaped_body(type, false, defaults::check_sample_type_bytes, k.content_type, type_cut);
        f.number("body_bytes", k.body_bytes);
        f.text("body", body);
        f.flag("cut", cut);
        f.time("at_ns", k.at_ns);
        f.text("expected", k.expected);
        detail::read_escaped_body(body, cut, defaults::check_sample_bytes, k.body, k.cut);
        if (k.status < 100 || k.status > 999) f.fail("status", "is not a status code");
    }
    if (const json_value* codes = top.get("status_codes", json_value::kind::object)) {
        detail::json_fields status(codes, why, &top, "status_codes");
        for (std::size_t i = 0; i < codes->keys.size(); ++i) {
            const std::string& key = codes->keys[i];
            std::uint64_t code = 0;
            if (key.size() != 3 || !detail::parse_u64(key, code) || code < 100)
                status.fail(key.c_str(), "is not a status code");
            else status.number(key.c_str(), r.status_counts[code]);
        }
    }
    detail::json_fields bytes = top.object("bytes");
    bytes.number("sent", r.bytes_sent);
    bytes.number("received", r.bytes_received);
    bytes.number("body", r.body_bytes);
    bytes.number("head", r.head_bytes);
    bytes.number("document_length", r.first_body_length);
    detail::json_fields connections = top.object("connections");
    connections.number("requested", r.concurrency_requested);
    connections.number("peak", r.concurrency_peak);
    connections.number("connects", r.connects);
    connections.number("server_closes", r.server_closes);
    detail::json_fields waits = connections.object("local_waits");
    waits.number("port", r.port_waits);
    waits.number("descriptor", r.descriptor_waits);
    waits.number("memory", r.memory_waits);
    if (connections.optional("backlog_waits", json_value::kind::number))  // saved since Unix sockets
        connections.number("backlog_waits", r.backlog_waits);
    top.text("server_software", r.server_software);
    detail::json_fields latency = top.object("latency_ns");
    detail::read_histogram(latency, "connect", r.connect_ns);
    detail::read_histogram(latency, "waiting", r.waiting_ns);
    detail::read_histogram(latency, "processing", r.processing_ns);
    detail::read_histogram(latency, "total", r.total_ns);
    // Every whole response, passed or not; a file written before it was saved has only the ones
    // that passed, which is what it held there unless checks failed.
    if (latency.optional("responses_total", json_value::kind::object))
        detail::read_histogram(latency, "responses_total", r.responses_total_ns);
    else r.responses_total_ns = r.total_ns;
    if (top.optional("open_model", json_value::kind::object)) {
        detail::json_fields open = top.object("open_model");
        open.real("rate", r.rate_target, defaults::max_rate);
        std::string kind;
        open.text("arrivals", kind);
        r.rate_arrivals = kind == "poisson" ? arrivals::poisson : arrivals::uniform;
        open.number("seed", r.rate_seed);
        std::uint64_t batch_lag_us = 0;  // written since batching came
        if (open.optional("max_batch_lag_us", json_value::kind::number) &&
            open.number_to("max_batch_lag_us", static_cast<std::uint64_t>(defaults::batch_lag_limit_us), batch_lag_us))
            r.rate_batch_lag_ns = static_cast<std::int64_t>(batch_lag_us) * 1000;
        open.number("connection_waits", r.connection_waits);
        open.number("schedule_missed", r.schedule_missed);
        detail::read_histogram(open, "response_ns", r.response_ns);
        detail::read_histogram(open, "schedule_lag_ns", r.schedule_lag_ns);
        if (const json_value* stages = open.optional("stages", json_value::kind::array)) {  // saved under stages
            if (stages->items.size() > defaults::max_stages) open.fail("stages", "are more than 1,000");
            for (std::size_t i = 0; i < stages->items.size() && !open.failed(); ++i) {
                detail::json_fields f(&stages->items[i], why, &open, "stages", static_cast<long>(i));
                r.stages.emplace_back();
                stage_result& st = r.stages.back();
                f.time("start_ms", st.start_ms, defaults::max_duration_ms);
                f.time("duration_ms", st.duration_ms, defaults::max_duration_ms);
                f.real("from", st.from_rate, defaults::max_rate);
                f.real("to", st.to_rate, defaults::max_rate);
                f.real("intended", st.intended, 1e18);
                f.number("sent", st.sent);
                f.number("completed", st.completed);
                f.number("failed", st.failed);
                st.p50_ns = st.p99_ns = -1;
                if (f.optional("p50_ns", json_value::kind::number)) {
                    f.time("p50_ns", st.p50_ns);
                    f.time("p99_ns", st.p99_ns);
                }
                if (!f.failed() && (st.completed > st.sent || st.failed > st.sent - st.completed))
                    f.fail("sent", "is below completed + failed");
            }
        }
    }
    if (top.optional("tls", json_value::kind::object)) {
        detail::json_fields tls = top.object("tls");
        tls.number("handshakes", r.tls_handshakes);
        tls.number("resumed", r.tls_resumed);
        if (r.tls_resumed > r.tls_handshakes) tls.fail("resumed", "is more than the handshakes");
        if (tls.optional("no_session", json_value::kind::number)) {  // saved since sessions are kept per worker
            tls.number("no_session", r.tls_no_session);
            if (r.tls_no_session > r.tls_handshakes - r.tls_resumed)
                tls.fail("no_session", "is more than the full handshakes");
        }
        // Files written before it was saved counted every tls failure in ab's Connect column.
        if (tls.optional("handshake_failures", json_value::kind::number))
            tls.number("handshake_failures", r.tls_handshake_failures);
        else r.tls_handshake_failures = r.failures[static_cast<int>(failure::tls)];
        if (r.tls_handshake_failures > r.failures[static_cast<int>(failure::tls)])
            tls.fail("handshake_failures", "is more than the tls failures");
        std::string text;
        auto copy = [&](const char* key, char* to, std::size_t cap) {
            text.clear();
            tls.text(key, text);
            std::snprintf(to, cap, "%s", text.c_str());
        };
        copy("protocol", r.tls.protocol, sizeof r.tls.protocol);
        copy("cipher", r.tls.cipher, sizeof r.tls.cipher);
        copy("temp_key", r.tls.temp_key, sizeof r.tls.temp_key);
        copy("server_name", r.tls.server_name, sizeof r.tls.server_name);
        std::uint32_t bits = 0;
        tls.number("server_key_bits", bits);
        r.tls.server_key_bits = static_cast<int>(bits);
        bits = 0;
        tls.number("secret_bits", bits);
        r.tls.secret_bits = static_cast<int>(bits);
        r.tls_used = r.tls.protocol[0] != 0;
        if (const json_value* reasons = tls.get("failure_reasons", json_value::kind::array))
            for (const json_value& why : reasons->items) {
                if (!why.is(json_value::kind::string))
                    tls.fail("failure_reasons", "holds a value that is not a string");
                else r.note_tls_failure(why.text);
            }
        detail::read_histogram(tls, "handshake_ns", r.tls_handshake_ns);
    }
    if (const json_value* rows = top.optional("intervals", json_value::kind::array)) {
        std::int64_t interval_ms = 0;
        top.time("interval_ms", interval_ms, defaults::max_interval_ms);
        if (interval_ms < defaults::min_interval_ms)
            top.fail("interval_ms", "is out of range", std::to_string(interval_ms));
        r.interval_ns = interval_ms * 1'000'000;
        histogram check;  // what a kept histogram decodes into, to be checked
        for (const json_value& item : rows->items) {
            interval_stats row{};
            detail::json_fields f(&item, why, &top, "intervals", static_cast<long>(r.intervals.size()));
            f.time("start_ns", row.start_ns);
            f.time("duration_ns", row.duration_ns);
            f.number("sent", row.sent);
            f.number("ended", row.ended);
            f.number("completed", row.completed);
            f.number("failed", row.failed);
            // Requests due in an interval of at most an hour; "target" in files saved before the name said so.
            f.real(item.find("target") ? "target" : "target_requests", row.target, defaults::max_rate * 3600);
            detail::json_fields response = f.object("response_ns");
            response.number("count", row.latency_count);
            response.time("p50", row.p50_ns);
            response.time("p90", row.p90_ns);
            response.time("p99", row.p99_ns);
            response.time("max", row.max_ns);
            detail::json_fields lag = f.object("schedule_lag_ns");
            lag.time("p99", row.lag_p99_ns);
            lag.time("max", row.lag_max_ns);
            r.intervals.push_back(row);
            if (!item.find("histograms")) continue;
            detail::json_fields kept = f.object("histograms");  // plan::interval_histograms
            r.interval_histograms.emplace_back();
            interval_histogram_set& set = r.interval_histograms.back();
            for (const auto& [name, bytes] : {std::pair{"response", &set.response}, std::pair{"service", &set.service},
                                              std::pair{"schedule_lag", &set.schedule_lag}}) {
                const json_value* text = kept.get(name, json_value::kind::string);
                if (!text) continue;
                if (!base64_decode(text->text, *bytes)) kept.fail(name, "does not decode");
                else if (error e = decode_histogram(*bytes, check)) kept.fail(name, detail::histogram_refusal(e));
            }
        }
        if (!r.interval_histograms.empty() && r.interval_histograms.size() != r.intervals.size())
            top.fail("intervals", "have histograms in some rows only");
    }
    if (top.optional("by_target", json_value::kind::object)) detail::read_by_target(top, why, r.by_target);
    r.concurrency_requested = r.concurrency_requested ? r.concurrency_requested : d.concurrency;
    if (problem) *problem = why;
    return why.empty() ? error{} : error{errc::result_bad_field, 0};
}

// Reads a saved document — a single run, a --compare {"a", "b"} or a --suite array — and appends
// one run per result. Labels: `label` for a single run (when empty: its URL's path, as the command
// line labels a run); with "A", "B" after it (or alone when `label` is empty) for the two targets
// of a comparison or of a two-URL suite. `problem` (if given) names a field read_result_json
// refused ("b.elapsed_ns: -1 is out of range": in a comparison after "a." or "b.").
inline error read_report_runs(std::string_view text, const std::string& label, std::vector<report_run>& out,
                              std::string* problem = nullptr) {
    json_value doc;
    if (error e = parse_json(text, doc)) return e;
    auto named = [&label](const char* side) { return label.empty() ? std::string(side) : label + " " + side; };
    auto add = [&out, problem](const json_value& item, std::string name, std::string scenario, const char* where) {
        report_run run;
        run.label = std::move(name);
        run.scenario = std::move(scenario);
        if (error e = read_result_json(item, run.config, run.r, problem)) {
            if (problem) problem->insert(0, where);
            return e;
        }
        out.push_back(std::move(run));
        return error{};
    };
    if (doc.is(json_value::kind::object) && doc.find("microbench")) {
        if (error e = add(doc, label, "", "")) return e;
        if (label.empty()) out.back().label = run_label(out.back().config.url);
        return {};
    }
    if (doc.is(json_value::kind::object) && doc.find("a") && doc.find("b")) {
        if (error e = add(*doc.find("a"), named("A"), "", "a.")) return e;
        return add(*doc.find("b"), named("B"), "", "b.");
    }
    if (!doc.is(json_value::kind::array) || doc.items.empty()) return {errc::result_not_microbench, 0};
    const std::size_t first = out.size();
    std::string first_url;
    for (const json_value& item : doc.items) {
        const json_value* scenario = item.find("scenario");
        const json_value* result_doc = item.find("result");
        if (!scenario || !scenario->is(json_value::kind::string) || !result_doc)
            return {errc::result_not_microbench, 0};
        if (error e = add(*result_doc, "", scenario->text, "")) return e;
        if (first_url.empty()) first_url = out.back().config.url;
        out.back().label = out.back().config.url == first_url ? "A" : "B";
    }
    bool two = false;
    for (std::size_t i = first; i < out.size(); ++i) two = two || out[i].label == "B";
    for (std::size_t i = first; i < out.size(); ++i)
        out[i].label = two ? named(out[i].label.c_str()) : label.empty() ? "A" : label;
    return {};
}

}  // namespace microbench
