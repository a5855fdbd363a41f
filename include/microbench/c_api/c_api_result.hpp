// microbench/c_api/c_api_result.hpp — the C API's reading of a result: counters, failures, status
// codes, timings, per-interval rows and the reports (text, JSON, HTML), each a plain value or an
// snprintf-style copy. Compiled only where MICROBENCH_C_IMPLEMENTATION is defined, after c_api.hpp.
#pragma once

#ifdef MICROBENCH_C_IMPLEMENTATION

#include "c_api.hpp"

extern "C" {

MB_API void mb_result_destroy(mb_result* result) { delete result; }

MB_API uint64_t mb_result_count(const mb_result* result, int which) {
    if (!result) return 0;
    const microbench::result& r = result->r;
    switch (which) {
        case MB_COUNT_ENDED: return r.requests_ended;
        case MB_COUNT_COMPLETED: return r.requests_completed;
        case MB_COUNT_FAILED: return r.requests_failed;
        case MB_COUNT_UNFINISHED: return r.unfinished;
        case MB_COUNT_NON_2XX: return r.non_2xx;
        case MB_COUNT_KEEP_ALIVE_REQUESTS: return r.keep_alive_requests;
        case MB_COUNT_RETRIES: return r.retries;
        case MB_COUNT_CONNECTS: return r.connects;
        case MB_COUNT_SERVER_CLOSES: return r.server_closes;
        case MB_COUNT_BYTES_SENT: return r.bytes_sent;
        case MB_COUNT_BYTES_RECEIVED: return r.bytes_received;
        case MB_COUNT_BODY_BYTES: return r.body_bytes;
        case MB_COUNT_DOCUMENT_LENGTH: return r.first_body_length;
        case MB_COUNT_CONCURRENCY_PEAK: return r.concurrency_peak;
        case MB_COUNT_LOCAL_WAITS: return r.port_waits + r.descriptor_waits + r.memory_waits;
        case MB_COUNT_CONNECTION_WAITS: return r.connection_waits;
        case MB_COUNT_SCHEDULE_MISSED: return r.schedule_missed;
        case MB_COUNT_TLS_HANDSHAKES: return r.tls_handshakes;
        case MB_COUNT_TLS_RESUMED: return r.tls_resumed;
        case MB_COUNT_TLS_HANDSHAKE_FAILURES: return r.tls_handshake_failures;
        case MB_COUNT_REQUEST_FN_FAULTS: return r.request_fn_faults;
        case MB_COUNT_BACKLOG_WAITS: return r.backlog_waits;
        case MB_COUNT_TLS_NO_SESSION: return r.tls_no_session;
    }
    return 0;
}

MB_API uint64_t mb_result_failures(const mb_result* result, int reason) {
    return result && reason >= 0 && reason < microbench::failure_count ? result->r.failures[reason] : 0;
}
MB_API uint64_t mb_result_status_count(const mb_result* result, int status) {
    return result && status >= 100 && status <= 999 ? result->r.status_counts[status] : 0;
}
MB_API int mb_result_cancelled(const mb_result* result) { return result && result->r.cancelled ? 1 : 0; }
MB_API int64_t mb_result_elapsed_ns(const mb_result* result) { return result ? result->r.elapsed_ns : 0; }
MB_API double mb_result_requests_per_second(const mb_result* result) {
    return result ? result->r.requests_per_second() : 0.0;
}
MB_API double mb_result_goodput_per_second(const mb_result* result) {
    return result ? result->r.goodput_per_second() : 0.0;
}
MB_API const char* mb_result_server_software(const mb_result* result) {
    return result ? result->r.server_software.c_str() : "";
}
MB_API const char* mb_result_connected_to(const mb_result* result) {
    return result ? result->r.connected_to.c_str() : "";
}

MB_API size_t mb_result_stage_count(const mb_result* result) { return result ? result->r.stages.size() : 0; }
MB_API int mb_result_stage(const mb_result* result, size_t index, mb_stage* out, size_t size) {
    if (!result || !out || index >= result->r.stages.size()) return MB_INVALID_ARGUMENT;
    const microbench::stage_result& s = result->r.stages[index];
    const mb_stage c{s.start_ms, s.duration_ms, s.from_rate, s.to_rate, s.intended, s.sent, s.completed, s.failed,
                     s.p50_ns, s.p99_ns};
    std::memcpy(out, &c, size < sizeof c ? size : sizeof c);
    return MB_OK;
}
MB_API size_t mb_result_interval_count(const mb_result* result) { return result ? result->r.intervals.size() : 0; }
MB_API int mb_result_interval(const mb_result* result, size_t index, mb_interval* out, size_t size) {
    if (!result || !out || index >= result->r.intervals.size()) return MB_INVALID_ARGUMENT;
    mb_interval c = microbench::detail::c_interval(result->r.intervals[index]);
    std::memcpy(out, &c, size < sizeof c ? size : sizeof c);
    return MB_OK;
}
MB_API uint64_t mb_result_timing_count(const mb_result* result, int column) {
    const microbench::histogram* h = microbench::detail::column(result, column);
    return h ? h->count() : 0;
}
MB_API int64_t mb_result_timing_percentile_ns(const mb_result* result, int column, double percentile) {
    const microbench::histogram* h = microbench::detail::column(result, column);
    return h && percentile >= 0 && percentile <= 100 && !h->empty() ? h->value_at_percentile(percentile) : 0;
}
MB_API int64_t mb_result_timing_min_ns(const mb_result* result, int column) {
    const microbench::histogram* h = microbench::detail::column(result, column);
    return h && !h->empty() ? h->min() : 0;
}
MB_API int64_t mb_result_timing_max_ns(const mb_result* result, int column) {
    const microbench::histogram* h = microbench::detail::column(result, column);
    return h && !h->empty() ? h->max() : 0;
}
MB_API double mb_result_timing_mean_ns(const mb_result* result, int column) {
    const microbench::histogram* h = microbench::detail::column(result, column);
    return h && !h->empty() ? h->mean() : 0.0;
}
MB_API double mb_result_timing_stddev_ns(const mb_result* result, int column) {
    const microbench::histogram* h = microbench::detail::column(result, column);
    return h && !h->empty() ? h->stddev() : 0.0;
}

MB_API size_t mb_result_report_ab(const mb_result* result, char* buf, size_t size) {
    if (!result) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    std::string text;
    microbench::report_context ctx = microbench::report_context_of(result->p);
    microbench::append_ab_report(ctx, result->r, text);
    microbench::append_report_notes(ctx, result->r, text);
    return microbench::detail::copy_out(text, buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}
MB_API size_t mb_result_report_latency(const mb_result* result, const double* percentiles, size_t count, char* buf,
                                       size_t size) {
    if (!result) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    std::string text;
    microbench::append_latency_section(result->r, microbench::detail::percentiles_or_default(percentiles, count), text);
    return microbench::detail::copy_out(text, buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}
MB_API size_t mb_result_json(const mb_result* result, const double* percentiles, size_t count, char* buf, size_t size) {
    if (!result) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    std::string text =
        microbench::result_json(result->p, result->r, microbench::detail::percentiles_or_default(percentiles, count));
    return microbench::detail::copy_out(text, buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}
MB_API size_t mb_result_hgrm(const mb_result* result, int column, char* buf, size_t size) {
    const microbench::histogram* h = microbench::detail::column(result, column);
    if (!h) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    std::string text;
    microbench::append_hgrm(*h, 1e6, 5, text);
    return microbench::detail::copy_out(text, buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}

MB_API size_t mb_result_hlog(const mb_result* result, char* buf, size_t size) {
    if (!result) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    std::string text;
    microbench::append_hlog(result->r, text);  // nothing when the run kept no histograms
    return microbench::detail::copy_out(text, buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}

MB_API size_t mb_report_html(const mb_result* const* results, const char* const* labels, size_t count,
                             const char* title, char* buf, size_t size) {
    using namespace microbench;
    if (!results && count) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    std::vector<report_run> runs(count);
    for (std::size_t i = 0; i < count; ++i) {
        if (!results[i]) return microbench::detail::no_text(buf, size);
        runs[i].label = labels && labels[i] ? std::string(labels[i]) : std::string(1, static_cast<char>('A' + i % 26));
        runs[i].config = describe(results[i]->p);
        runs[i].r = results[i]->r;
    }
    html_options o;
    if (title) o.title = title;
    return detail::copy_out(html_report(runs, o), buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}

MB_API int mb_report_html_json(const char* const* documents, const char* const* labels, size_t count, const char* title,
                               char* buf, size_t size, size_t* length) {
    using namespace microbench;
    if (length) *length = 0;
    detail::no_text(buf, size);  // until the report is written
    if (!documents && count) return detail::invalid;
    MICROBENCH_C_TRY
    std::vector<report_run> runs;
    for (std::size_t i = 0; i < count; ++i) {
        if (!documents[i]) return detail::invalid;
        if (error e = read_report_runs(documents[i], labels && labels[i] ? labels[i] : "", runs))
            return static_cast<int>(e.code);
    }
    html_options o;
    if (title) o.title = title;
    const std::size_t n = detail::copy_out(html_report(runs, o), buf, size);
    if (length) *length = n;
    return MB_OK;
    MICROBENCH_C_CATCH(detail::no_memory)
}

}  // extern "C"

#endif  // MICROBENCH_C_IMPLEMENTATION
