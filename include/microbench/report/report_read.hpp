// microbench/report/report_read.hpp — saved JSON results read back into results: a single run's
// document (result_json), a --compare document {"a": …, "b": …} and a --suite array of
// {"scenario", "result"}. Counts, bytes, failures, status codes, the open model and the interval
// rows come back exactly, the four timing histograms (and the open model's two) bucket for bucket
// from their encodings — so a report drawn from a file equals one drawn from the run itself.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "../core/json_read.hpp"
#include "../http/url.hpp"
#include "../stats/histogram_codec.hpp"
#include "../stats/result.hpp"
#include "report_json.hpp"

namespace microbench {

// One run as the HTML report draws it: runs with the same scenario share charts, one colour each.
struct report_run {
    std::string label;     // the legend's name: "A", "B", a file's name
    std::string scenario;  // "" for a single workload; a suite's scenario name
    run_description config;
    result r;
};

namespace detail {

// Reads fields of one JSON object; the first missing or mistyped one is the error.
class json_fields {
public:
    explicit json_fields(const json_value* object) : object_(object) {
        if (!object_ || !object_->is(json_value::kind::object)) failed_ = true;
    }
    bool failed() const { return failed_; }

    const json_value* get(const char* key, json_value::kind k) {
        const json_value* v = failed_ ? nullptr : object_->find(key);
        if (!v || !v->is(k)) failed_ = true;
        return failed_ ? nullptr : v;
    }
    // Optional members: absent leaves the value alone; present with the wrong type is an error.
    const json_value* optional(const char* key, json_value::kind k) {
        const json_value* v = failed_ ? nullptr : object_->find(key);
        if (v && !v->is(k)) failed_ = true;
        return failed_ ? nullptr : v;
    }
    void number(const char* key, std::uint64_t& out) {
        if (const json_value* v = get(key, json_value::kind::number)) out = v->u64();
    }
    void number(const char* key, std::uint32_t& out) {
        std::uint64_t v = out;
        number(key, v);
        out = static_cast<std::uint32_t>(v);
    }
    void signed_number(const char* key, std::int64_t& out) {
        if (const json_value* v = get(key, json_value::kind::number)) out = v->i64();
    }
    void real(const char* key, double& out) {
        if (const json_value* v = get(key, json_value::kind::number)) out = v->number();
    }
    void text(const char* key, std::string& out) {
        if (const json_value* v = get(key, json_value::kind::string)) out = v->text;
    }
    void flag(const char* key, bool& out) {
        if (const json_value* v = get(key, json_value::kind::boolean)) out = v->boolean;
    }
    json_fields object(const char* key) { return json_fields(get(key, json_value::kind::object)); }
    void fail() { failed_ = true; }

private:
    const json_value* object_;
    bool failed_ = false;
};

inline bool read_histogram(json_fields& f, const char* key, histogram& out) {
    json_fields h = f.object(key);
    const json_value* text = h.get("histogram", json_value::kind::string);
    std::string bytes;
    if (!text || !base64_decode(text->text, bytes) || decode_histogram(bytes, out)) return false;
    return true;
}

}  // namespace detail

// Reads one result document (what result_json writes) into `d` and `r`.
inline error read_result_json(const json_value& doc, run_description& d, result& r) {
    detail::json_fields top(&doc);
    if (!top.get("microbench", json_value::kind::string)) return {errc::result_not_microbench, 0};
    r = result();
    top.flag("partial", r.cancelled);
    detail::json_fields config = top.object("config");
    config.text("url", d.url);
    config.text("method", d.method);
    config.number("requests", d.requests);
    config.signed_number("duration_ms", d.duration_ms);
    config.number("concurrency", d.concurrency);
    config.number("threads", d.threads);
    config.flag("keep_alive", d.keep_alive);
    config.number("pipeline", d.pipeline);
    config.signed_number("timeout_ms", d.timeout_ms);
    config.flag("length_check", d.length_check);
    d.checks.clear();
    if (const json_value* c = config.optional("checks", json_value::kind::string)) d.checks = c->text;
    d.shard_index = d.shard_count = 0;
    if (config.optional("shard", json_value::kind::object)) {
        detail::json_fields shard = config.object("shard");
        shard.number("index", d.shard_index);
        shard.number("count", d.shard_count);
        if (shard.failed() || d.shard_index >= d.shard_count) config.fail();
    }
    d.start_at_unix_ms = 0;
    if (const json_value* at = config.optional("start_at_unix_ms", json_value::kind::number)) d.start_at_unix_ms = at->i64();
    r.start_requested_realtime_ns = d.start_at_unix_ms * 1'000'000;
    std::int64_t start_ms = 0;
    top.signed_number("start_unix_ms", start_ms);
    r.start_realtime_ns = start_ms * 1'000'000;
    if (const json_value* ns = top.optional("start_unix_ns", json_value::kind::number)) r.start_realtime_ns = ns->i64();
    if (const json_value* ns = top.optional("elapsed_ns", json_value::kind::number)) r.elapsed_ns = ns->i64();
    else if (const json_value* s = top.get("elapsed_s", json_value::kind::number)) r.elapsed_ns = static_cast<std::int64_t>(s->number() * 1e9 + 0.5);
    detail::json_fields requests = top.object("requests");
    requests.number("ended", r.requests_ended);
    requests.number("completed", r.requests_completed);
    requests.number("failed", r.requests_failed);
    requests.number("unfinished", r.unfinished);
    requests.number("non_2xx", r.non_2xx);
    requests.number("keep_alive", r.keep_alive_requests);
    requests.number("keep_alive_responses", r.keep_alive_responses);
    requests.number("retries", r.retries);
    detail::json_fields failures = top.object("failures");
    for (int i = 0; i < failure_count; ++i) failures.number(failure_name(static_cast<failure>(i)), r.failures[i]);
    if (const json_value* codes = top.get("status_codes", json_value::kind::object))
        for (std::size_t i = 0; i < codes->keys.size(); ++i) {
            const std::string& key = codes->keys[i];
            int code = key.size() == 3 ? std::atoi(key.c_str()) : 0;
            if (code < 100 || code > 999 || !codes->items[i].is(json_value::kind::number)) top.fail();
            else r.status_counts[code] = codes->items[i].u64();
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
    top.text("server_software", r.server_software);
    detail::json_fields latency = top.object("latency_ns");
    bool histograms = detail::read_histogram(latency, "connect", r.connect_ns) &&
                      detail::read_histogram(latency, "waiting", r.waiting_ns) &&
                      detail::read_histogram(latency, "processing", r.processing_ns) &&
                      detail::read_histogram(latency, "total", r.total_ns);
    if (top.optional("open_model", json_value::kind::object)) {
        detail::json_fields open = top.object("open_model");
        open.real("rate", r.rate_target);
        std::string kind;
        open.text("arrivals", kind);
        r.rate_arrivals = kind == "poisson" ? arrivals::poisson : arrivals::uniform;
        open.number("seed", r.rate_seed);
        open.number("connection_waits", r.connection_waits);
        open.number("schedule_missed", r.schedule_missed);
        histograms = histograms && detail::read_histogram(open, "response_ns", r.response_ns) &&
                     detail::read_histogram(open, "schedule_lag_ns", r.schedule_lag_ns);
        if (open.failed()) top.fail();
    }
    if (const json_value* rows = top.optional("intervals", json_value::kind::array)) {
        std::int64_t interval_ms = 0;
        top.signed_number("interval_ms", interval_ms);
        r.interval_ns = interval_ms * 1'000'000;
        for (const json_value& item : rows->items) {
            interval_stats row{};
            detail::json_fields f(&item);
            f.signed_number("start_ns", row.start_ns);
            f.signed_number("duration_ns", row.duration_ns);
            f.number("sent", row.sent);
            f.number("ended", row.ended);
            f.number("completed", row.completed);
            f.number("failed", row.failed);
            f.real("target", row.target);
            detail::json_fields response = f.object("response_ns");
            response.number("count", row.latency_count);
            response.signed_number("p50", row.p50_ns);
            response.signed_number("p90", row.p90_ns);
            response.signed_number("p99", row.p99_ns);
            response.signed_number("max", row.max_ns);
            detail::json_fields lag = f.object("schedule_lag_ns");
            lag.signed_number("p99", row.lag_p99_ns);
            lag.signed_number("max", row.lag_max_ns);
            if (f.failed() || response.failed() || lag.failed()) top.fail();
            r.intervals.push_back(row);
        }
    }
    r.concurrency_requested = r.concurrency_requested ? r.concurrency_requested : d.concurrency;
    // responses_total_ns is not saved: the whole responses that passed are what it would hold.
    r.responses_total_ns = r.total_ns;
    const bool bad = top.failed() || config.failed() || requests.failed() || failures.failed() || bytes.failed() ||
                     connections.failed() || waits.failed() || latency.failed() || !histograms;
    return bad ? error{errc::result_bad_field, 0} : error{};
}

// Reads a saved document — a single run, a --compare {"a", "b"} or a --suite array — and appends
// one run per result. Labels: `label` for a single run (when empty: its URL's path, as the command
// line labels a run); with "A", "B" after it (or alone when `label` is empty) for the two targets
// of a comparison or of a two-URL suite.
inline error read_report_runs(std::string_view text, const std::string& label, std::vector<report_run>& out) {
    json_value doc;
    if (error e = parse_json(text, doc)) return e;
    auto named = [&label](const char* side) { return label.empty() ? std::string(side) : label + " " + side; };
    auto add = [&out](const json_value& item, std::string name, std::string scenario) {
        report_run run;
        run.label = std::move(name);
        run.scenario = std::move(scenario);
        if (error e = read_result_json(item, run.config, run.r)) return e;
        out.push_back(std::move(run));
        return error{};
    };
    if (doc.is(json_value::kind::object) && doc.find("microbench")) {
        if (error e = add(doc, label, "")) return e;
        if (label.empty()) out.back().label = run_label(out.back().config.url);
        return {};
    }
    if (doc.is(json_value::kind::object) && doc.find("a") && doc.find("b")) {
        if (error e = add(*doc.find("a"), named("A"), "")) return e;
        return add(*doc.find("b"), named("B"), "");
    }
    if (!doc.is(json_value::kind::array) || doc.items.empty()) return {errc::result_not_microbench, 0};
    const std::size_t first = out.size();
    std::string first_url;
    for (const json_value& item : doc.items) {
        const json_value* scenario = item.find("scenario");
        const json_value* result_doc = item.find("result");
        if (!scenario || !scenario->is(json_value::kind::string) || !result_doc) return {errc::result_not_microbench, 0};
        if (error e = add(*result_doc, "", scenario->text)) return e;
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
