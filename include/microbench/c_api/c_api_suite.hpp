// microbench/c_api/c_api_suite.hpp — the C API's suite and self-test as mb_suite handles, the
// reference server, and cancel tokens. Compiled only where
// MICROBENCH_C_IMPLEMENTATION is defined, after c_api.hpp.
#pragma once

#ifdef MICROBENCH_C_IMPLEMENTATION

#include "c_api.hpp"

namespace microbench {
namespace detail {

inline int suite_out(std::vector<scenario_result>& results, mb_suite** out) {
    std::unique_ptr<mb_suite> s(new (std::nothrow) mb_suite);
    if (!s) return no_memory;
    for (scenario_result& sr : results) {
        s->names.push_back(sr.scenario);
        s->results.push_back(mb_result{std::move(sr.r), std::move(sr.p)});
    }
    *out = s.release();
    return MB_OK;
}

}  // namespace detail
}  // namespace microbench

extern "C" {

MB_API int mb_suite_run(const char* url, double scale, int factorial_check, mb_suite** out) {
    using namespace microbench;
    if (out) *out = nullptr;
    if (!url || !out || !(scale > 0 && scale <= 100)) return detail::invalid;
    MICROBENCH_C_TRY
    suite_options o;
    o.scale = scale;
    o.factorial_check = factorial_check != 0;
    std::vector<scenario_result> results;
    if (error e = run_suite(url, o, results)) return detail::status_of(e);
    return detail::suite_out(results, out);
    MICROBENCH_C_CATCH(detail::no_memory)
}

MB_API int mb_self_test(double scale, mb_suite** out, int* passed) {
    using namespace microbench;
    if (out) *out = nullptr;
    if (passed) *passed = 0;
    if (!out || !passed || !(scale > 0 && scale <= 100)) return detail::invalid;
    MICROBENCH_C_TRY
    std::vector<scenario_result> results;
    bool ok = false;
    if (error e = self_test(scale, 100, results, ok)) return detail::status_of(e);
    *passed = ok ? 1 : 0;
    return detail::suite_out(results, out);
    MICROBENCH_C_CATCH(detail::no_memory)
}

MB_API void mb_suite_destroy(mb_suite* suite) { delete suite; }
MB_API size_t mb_suite_count(const mb_suite* suite) { return suite ? suite->results.size() : 0; }
MB_API const char* mb_suite_scenario(const mb_suite* suite, size_t index) {
    return suite && index < suite->names.size() ? suite->names[index].c_str() : nullptr;
}
MB_API const mb_result* mb_suite_result(const mb_suite* suite, size_t index) {
    return suite && index < suite->results.size() ? &suite->results[index] : nullptr;
}
MB_API size_t mb_suite_table(const mb_suite* suite, char* buf, size_t size) {
    using namespace microbench;
    if (!suite) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    std::vector<scenario_result> rows(suite->results.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        rows[i].scenario = suite->names[i];
        rows[i].url = suite->results[i].p.url();
        rows[i].r = suite->results[i].r;
    }
    std::string text;
    append_suite_table(rows, text);
    return detail::copy_out(text, buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}

MB_API size_t mb_suite_report_html(const mb_suite* suite, const char* title, char* buf, size_t size) {
    using namespace microbench;
    if (!suite) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    std::vector<report_run> runs(suite->results.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        runs[i].scenario = suite->names[i];
        runs[i].config = describe(suite->results[i].p);
        runs[i].r = suite->results[i].r;
        runs[i].label = run_label(runs[i].config.url);
    }
    html_options o;
    o.title = title ? title : "microbench suite";
    return detail::copy_out(html_report(runs, o), buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}

namespace microbench {
namespace detail {
inline int start_server(const server_options& o, mb_server** out) {
    MICROBENCH_C_TRY
    std::unique_ptr<mb_server> s(new (std::nothrow) mb_server);
    if (!s) return no_memory;
    if (error e = s->s.start(o)) return status_of(e);
    *out = s.release();
    return MB_OK;
    MICROBENCH_C_CATCH(no_memory)
}
}  // namespace detail
}  // namespace microbench

MB_API void mb_server_limits_init(mb_server_limits* limits) {
    if (!limits) return;
    const microbench::server_options defaults;
    limits->size = sizeof *limits;
    limits->header_timeout_ms = defaults.header_timeout_ms;
    limits->idle_timeout_ms = defaults.idle_timeout_ms;
    limits->max_connections = defaults.max_connections;
}
MB_API int mb_server_start_limited(const char* host, uint16_t port, const char* unix_path, uint32_t threads,
                                   const mb_server_limits* limits, mb_server** out) {
    using namespace microbench;
    if (out) *out = nullptr;
    if ((!host && !unix_path) || !out || threads < 1 || threads > 256) return detail::invalid;
    // The first version of the limits ends with max_connections; later versions only append.
    constexpr std::size_t first_version = offsetof(mb_server_limits, max_connections) + sizeof(limits->max_connections);
    if (limits && (limits->size < first_version || limits->header_timeout_ms < 0 || limits->idle_timeout_ms < 0))
        return detail::invalid;
    MICROBENCH_C_TRY
    server_options o;
    if (unix_path) {
        endpoint at;
        if (!unix_endpoint(unix_path, at)) return detail::invalid;
        o.unix_path = unix_path;
    } else {
        o.host = host;
        o.port = port;
    }
    o.threads = threads;
    if (limits) {
        o.header_timeout_ms = limits->header_timeout_ms;
        o.idle_timeout_ms = limits->idle_timeout_ms;
        o.max_connections = limits->max_connections;
    }
    return detail::start_server(o, out);
    MICROBENCH_C_CATCH(detail::no_memory)
}
MB_API int mb_server_start(const char* host, uint16_t port, uint32_t threads, mb_server** out) {
    if (out) *out = nullptr;
    if (!host) return microbench::detail::invalid;
    return mb_server_start_limited(host, port, nullptr, threads, nullptr, out);
}
MB_API int mb_server_start_unix(const char* path, uint32_t threads, mb_server** out) {
    if (out) *out = nullptr;
    if (!path) return microbench::detail::invalid;
    return mb_server_start_limited(nullptr, 0, path, threads, nullptr, out);
}
MB_API uint16_t mb_server_port(const mb_server* server) { return server ? server->s.port() : 0; }
MB_API uint64_t mb_server_requests(const mb_server* server) { return server ? server->s.requests() : 0; }
MB_API uint64_t mb_server_count(const mb_server* server, int which) {
    if (!server) return 0;
    MICROBENCH_C_TRY
    const microbench::server_counts c = server->s.counts(false);
    switch (which) {
        case MB_SERVER_REQUESTS: return c.requests;
        case MB_SERVER_CONNECTIONS: return c.connections;
        case MB_SERVER_OPEN: return c.open;
        case MB_SERVER_BAD_REQUESTS: return c.bad_request;
        case MB_SERVER_HEADER_TIMEOUTS: return c.header_timeouts;
        case MB_SERVER_IDLE_TIMEOUTS: return c.idle_timeouts;
        case MB_SERVER_EVICTED: return c.evicted;
        case MB_SERVER_REFUSED: return c.refused;
        case MB_SERVER_LISTEN_PAUSES: return c.listen_pauses;
    }
    return 0;
    MICROBENCH_C_CATCH(0)
}
MB_API void mb_server_stop(mb_server* server) { delete server; }  // ~server stops and joins

MB_API int mb_cancel_create(mb_cancel** out) {
    if (!out) return microbench::detail::invalid;
    *out = new (std::nothrow) mb_cancel;
    return *out ? MB_OK : microbench::detail::no_memory;
}
MB_API void mb_cancel_trigger(mb_cancel* cancel) {
    if (cancel) cancel->t.cancel();
}
MB_API void mb_cancel_destroy(mb_cancel* cancel) { delete cancel; }

}  // extern "C"

#endif  // MICROBENCH_C_IMPLEMENTATION
