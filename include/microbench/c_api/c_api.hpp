// microbench/c_api/c_api.hpp — the implementation of the C API declared in microbench.h, compiled only
// where MICROBENCH_C_IMPLEMENTATION is defined (libmicrobench, or your one .cpp file). Each
// function checks its arguments, maps errors to their fixed status numbers and catches every
// exception, so nothing but a status crosses extern "C". Handles wrap the C++ values.
#pragma once

#ifdef MICROBENCH_C_IMPLEMENTATION

#if defined(MICROBENCH_NO_SERVER) || defined(MICROBENCH_NO_REPORTS)
#error "the C API implements every function of microbench.h: build it without MICROBENCH_NO_SERVER and \
MICROBENCH_NO_REPORTS"
#endif

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "../../microbench.h"
#include "../http/checks.hpp"
#include "../engine/plan.hpp"
#include "../report/report_ab.hpp"
#include "../report/report_json.hpp"
#include "../report/report_text.hpp"
#include "../stats/result.hpp"
#include "../engine/runner.hpp"
#include "../server/server.hpp"
#include "../report/suite.hpp"
#include "../core/version.hpp"

static_assert(MB_VERSION_MAJOR == MICROBENCH_VERSION_MAJOR && MB_VERSION_MINOR == MICROBENCH_VERSION_MINOR &&
                  MB_VERSION_PATCH == MICROBENCH_VERSION_PATCH, "microbench.h and version.hpp disagree");
static_assert(MB_URL_BAD_PORT == static_cast<int>(microbench::errc::url_bad_port) &&
                  MB_REQUEST_BAD_HEADER_LINE == static_cast<int>(microbench::errc::request_bad_header_line) &&
                  MB_PLAN_TOO_MANY_IN_FLIGHT == static_cast<int>(microbench::errc::plan_too_many_in_flight) &&
                  MB_RUN_SYSTEM == static_cast<int>(microbench::errc::run_system) &&
                  MB_RUN_TLS_SETUP == static_cast<int>(microbench::errc::run_tls_setup) &&
                  MB_PLAN_BAD_TLS_VERSION == static_cast<int>(microbench::errc::plan_bad_tls_version) &&
                  MB_PLAN_TOO_MANY_RECORDS == static_cast<int>(microbench::errc::plan_too_many_records) &&
                  MB_HLOG_BAD == static_cast<int>(microbench::errc::hlog_bad) &&
                  MB_INVALID_ARGUMENT == static_cast<int>(microbench::errc::invalid_argument) &&
                  MB_OUT_OF_MEMORY == static_cast<int>(microbench::errc::out_of_memory),
              "microbench.h status numbers must be the errc numbers");
static_assert(MB_FAILURE_TLS == static_cast<int>(microbench::failure::tls) &&
                  MB_FAILURE_TLS + 1 == microbench::failure_count && MB_FAILURE_CONNECT == 0,
              "mb_failure must follow microbench::failure");

// With exceptions on, every entry point catches them all (std::bad_alloc above all).
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define MICROBENCH_C_TRY try {                       // bad_alloc guard
#define MICROBENCH_C_CATCH(failed) } catch (...) { return failed; }  // bad_alloc guard
#else
#define MICROBENCH_C_TRY {
#define MICROBENCH_C_CATCH(failed) }
#endif

struct mb_plan {
    microbench::plan p;
    microbench::checks c;
    mb_response_fn response = nullptr;
    void* response_user = nullptr;
    mb_progress_fn progress = nullptr;
    void* progress_user = nullptr;
    std::int64_t progress_every_ms = 0;
    std::uint64_t progress_every_requests = 0;
    mb_interval_fn interval = nullptr;
    void* interval_user = nullptr;
};

struct mb_result {
    microbench::result r;
    microbench::plan p;  // what ran, for the reports
};

struct mb_suite {
    std::vector<std::string> names;
    std::vector<mb_result> results;
};

struct mb_server {
    microbench::server s;
};

struct mb_cancel {
    microbench::cancel_token t;
};

namespace microbench {
namespace detail {

constexpr int invalid = static_cast<int>(errc::invalid_argument);
constexpr int no_memory = static_cast<int>(errc::out_of_memory);

inline int status_of(error e) { return static_cast<int>(e.code); }

// A text function's answer when it has none (no handle, out of memory): "" and length 0.
inline std::size_t no_text(char* buf, std::size_t size) {
    if (buf && size > 0) buf[0] = '\0';
    return 0;
}

// snprintf's contract: the whole length back, at most size - 1 bytes and a NUL written.
inline std::size_t copy_out(const std::string& text, char* buf, std::size_t size) {
    if (buf && size > 0) {
        std::size_t n = text.size() < size - 1 ? text.size() : size - 1;
        std::memcpy(buf, text.data(), n);
        buf[n] = '\0';
    }
    return text.size();
}

// The caller's percentiles from 0 to 100 (others, NaN too, are left out), or the defaults.
inline std::vector<double> percentiles_or_default(const double* list, std::size_t count) {
    std::vector<double> kept;
    for (std::size_t i = 0; list && i < count; ++i)
        if (list[i] >= 0 && list[i] <= 100) kept.push_back(list[i]);
    if (kept.empty()) return {50, 90, 99, 99.9, 99.99};
    return kept;
}

inline const histogram* column(const mb_result* r, int which) {
    if (!r) return nullptr;
    switch (which) {
        case MB_TIMING_CONNECT: return &r->r.connect_ns;
        case MB_TIMING_WAITING: return &r->r.waiting_ns;
        case MB_TIMING_PROCESSING: return &r->r.processing_ns;
        case MB_TIMING_TOTAL: return &r->r.total_ns;
        case MB_TIMING_RESPONSE: return &r->r.response_ns;
        case MB_TIMING_SCHEDULE_LAG: return &r->r.schedule_lag_ns;
        case MB_TIMING_TLS_HANDSHAKE: return &r->r.tls_handshake_ns;
    }
    return nullptr;
}

inline bool c_response_trampoline(int status, std::uint64_t body_bytes, void* user) {
    const auto* plan = static_cast<const mb_plan*>(user);
    return plan->response(status, body_bytes, plan->response_user) != 0;
}

inline void c_progress_trampoline(const progress& pr, void* user) {
    const auto* plan = static_cast<const mb_plan*>(user);
    plan->progress(pr.ended, pr.target, pr.elapsed_ns, plan->progress_user);
}

inline mb_interval c_interval(const interval_stats& row) {
    mb_interval c{};
    c.start_ns = row.start_ns;
    c.duration_ns = row.duration_ns;
    c.sent = row.sent;
    c.ended = row.ended;
    c.completed = row.completed;
    c.failed = row.failed;
    c.target_requests = row.target;
    c.rate_per_s = row.rate();
    c.target_per_s = row.target_rate();
    c.p50_ns = row.p50_ns;
    c.p90_ns = row.p90_ns;
    c.p99_ns = row.p99_ns;
    c.max_ns = row.max_ns;
    c.lag_p99_ns = row.lag_p99_ns;
    c.lag_max_ns = row.lag_max_ns;
    return c;
}

inline void c_interval_trampoline(const interval_stats& row, void* user) {
    const auto* plan = static_cast<const mb_plan*>(user);
    mb_interval c = c_interval(row);
    plan->interval(&c, plan->interval_user);
}

// The plan a run uses: the C plan's knobs, its checks and its callbacks.
inline plan plan_to_run(const mb_plan* cp) {
    plan p = cp->p;
    checks c = cp->c;
    if (cp->response) c.callback(c_response_trampoline, const_cast<mb_plan*>(cp));
    p.check(c);
    if (cp->progress)
        p.on_progress(c_progress_trampoline, const_cast<mb_plan*>(cp), cp->progress_every_ms,
                      cp->progress_every_requests);
    if (cp->interval) p.on_interval(c_interval_trampoline, const_cast<mb_plan*>(cp));
    return p;
}

}  // namespace detail
}  // namespace microbench

extern "C" {

MB_API const char* mb_version(void) { return microbench::version_string; }
MB_API int mb_version_number(void) { return MB_VERSION_NUMBER; }

MB_API const char* mb_status_name(int status) {
    return status < 0 || status > 0xffff ? "unknown" : microbench::errc_name(static_cast<microbench::errc>(status));
}
MB_API const char* mb_status_message(int status) {
    return status < 0 || status > 0xffff ? "unknown error"
                                         : microbench::errc_message(static_cast<microbench::errc>(status));
}

MB_API int mb_plan_create(const char* url, mb_plan** out) {
    using namespace microbench::detail;
    if (out) *out = nullptr;
    if (!url || !out) return invalid;
    MICROBENCH_C_TRY
    std::unique_ptr<mb_plan> p(new (std::nothrow) mb_plan);
    if (!p) return no_memory;
    if (int status = mb_plan_set_url(p.get(), url)) return status;  // checks the URL
    *out = p.release();
    return MB_OK;
    MICROBENCH_C_CATCH(no_memory)
}

MB_API void mb_plan_destroy(mb_plan* plan) { delete plan; }

// A setter: checks the plan and the condition, then applies `apply` to the plan.
#define MICROBENCH_C_SET(plan, ok, apply)                   \
    if (!(plan) || !(ok)) return microbench::detail::invalid; \
    MICROBENCH_C_TRY                                         \
    apply;                                                   \
    return MB_OK;                                            \
    MICROBENCH_C_CATCH(microbench::detail::no_memory)

// A setter of a knob with a range: sets `knob` to `value` and keeps it only when plan::check_ranges
// (the one place the ranges are kept) finds nothing it did not find before; otherwise the knob
// gets its old value back and the setter returns the knob's status. Copies only the knob's value.
#define MICROBENCH_C_SET_RANGED(plan, knob, value)                                              \
    if (!(plan)) return microbench::detail::invalid;                                          \
    MICROBENCH_C_TRY                                                                          \
    const microbench::error was = (plan)->p.check_ranges();                                   \
    auto old_value = (plan)->p.knob();                                                        \
    (plan)->p.knob(value);                                                                    \
    if (microbench::error e = (plan)->p.check_ranges(); e && e != was) {                      \
        (plan)->p.knob(std::move(old_value));                                                 \
        return microbench::detail::status_of(e);                                              \
    }                                                                                         \
    return MB_OK;                                                                             \
    MICROBENCH_C_CATCH(microbench::detail::no_memory)

MB_API int mb_plan_set_url(mb_plan* plan, const char* url) {
    if (!plan || !url) return microbench::detail::invalid;
    MICROBENCH_C_TRY
    microbench::url parsed;
    if (microbench::error e = microbench::parse_url(url, parsed)) return microbench::detail::status_of(e);
    plan->p.url(url);
    return MB_OK;
    MICROBENCH_C_CATCH(microbench::detail::no_memory)
}
MB_API int mb_plan_set_method(mb_plan* plan, const char* method) {
    MICROBENCH_C_SET(plan, method && *method, plan->p.method(method))
}
MB_API int mb_plan_add_header(mb_plan* plan, const char* name, const char* value) {
    MICROBENCH_C_SET(plan, name && value, plan->p.header(name, value))
}
MB_API int mb_plan_set_body(mb_plan* plan, const void* data, size_t size, const char* content_type) {
    if (!plan || (!data && size > 0)) return microbench::detail::invalid;
    MICROBENCH_C_TRY
    plan->p.body(std::string(static_cast<const char*>(data), size));
    if (content_type) plan->p.content_type(content_type);
    return MB_OK;
    MICROBENCH_C_CATCH(microbench::detail::no_memory)
}
MB_API int mb_plan_set_requests(mb_plan* plan, uint64_t requests) {
    MICROBENCH_C_SET(plan, true, plan->p.requests(requests))
}
MB_API int mb_plan_set_duration_ms(mb_plan* plan, int64_t ms) { MICROBENCH_C_SET_RANGED(plan, duration_ms, ms) }
MB_API int mb_plan_set_concurrency(mb_plan* plan, uint32_t n) { MICROBENCH_C_SET_RANGED(plan, concurrency, n) }
MB_API int mb_plan_set_threads(mb_plan* plan, uint32_t n) { MICROBENCH_C_SET_RANGED(plan, threads, n) }
MB_API int mb_plan_set_keep_alive(mb_plan* plan, int on) { MICROBENCH_C_SET(plan, true, plan->p.keep_alive(on != 0)) }
MB_API int mb_plan_set_pipeline(mb_plan* plan, uint32_t depth) { MICROBENCH_C_SET_RANGED(plan, pipeline, depth) }
MB_API int mb_plan_set_timeout_ms(mb_plan* plan, int64_t request_ms, int64_t connect_ms) {
    if (!plan) return microbench::detail::invalid;
    const microbench::error was = plan->p.check_ranges();  // as MICROBENCH_C_SET_RANGED, for two knobs
    const std::int64_t old_request_ms = plan->p.timeout_ms(), old_connect_ms = plan->p.connect_timeout_ms();
    plan->p.timeout_ms(request_ms).connect_timeout_ms(connect_ms);
    if (microbench::error e = plan->p.check_ranges(); e && e != was) {
        plan->p.timeout_ms(old_request_ms).connect_timeout_ms(old_connect_ms);
        return microbench::detail::status_of(e);
    }
    return MB_OK;
}
MB_API int mb_plan_set_drain_ms(mb_plan* plan, int64_t ms) { MICROBENCH_C_SET_RANGED(plan, drain_ms, ms) }
MB_API int mb_plan_set_bind_address(mb_plan* plan, const char* address) {
    MICROBENCH_C_SET(plan, address, plan->p.bind_address(address))
}
MB_API int mb_plan_set_length_check(mb_plan* plan, int on) {
    MICROBENCH_C_SET(plan, true, plan->p.length_check(on != 0))
}
MB_API int mb_plan_set_raise_fd_limit(mb_plan* plan, int on) {
    MICROBENCH_C_SET(plan, true, plan->p.raise_fd_limit(on != 0))
}
MB_API int mb_plan_set_socket_buffer_bytes(mb_plan* plan, uint32_t bytes) {
    MICROBENCH_C_SET_RANGED(plan, socket_buffer_bytes, bytes)
}
MB_API int mb_plan_set_resend_non_idempotent(mb_plan* plan, int on) {
    MICROBENCH_C_SET(plan, true, plan->p.resend_non_idempotent(on != 0))
}
MB_API int mb_plan_set_rate(mb_plan* plan, double requests_per_second) {
    MICROBENCH_C_SET_RANGED(plan, rate, requests_per_second)
}
MB_API int mb_plan_set_arrivals(mb_plan* plan, int arrivals, uint64_t seed) {
    if (plan && arrivals != MB_ARRIVALS_UNIFORM && arrivals != MB_ARRIVALS_POISSON) return MB_PLAN_BAD_ARRIVALS;
    MICROBENCH_C_SET(plan, true,
                     plan->p.arrivals(arrivals == MB_ARRIVALS_POISSON ? microbench::arrivals::poisson
                                                                      : microbench::arrivals::uniform).seed(seed))
}
MB_API int mb_plan_set_max_batch_lag_us(mb_plan* plan, int64_t us) {
    MICROBENCH_C_SET_RANGED(plan, max_batch_lag_us, us)
}
MB_API int mb_plan_set_interval_histograms(mb_plan* plan, int on) {
    MICROBENCH_C_SET(plan, true, plan->p.interval_histograms(on != 0))
}
MB_API int mb_plan_set_interval_ms(mb_plan* plan, int64_t interval_ms) {
    MICROBENCH_C_SET_RANGED(plan, interval_ms, interval_ms)
}
MB_API int mb_plan_set_start_at_unix_ms(mb_plan* plan, int64_t unix_ms) {
    MICROBENCH_C_SET_RANGED(plan, start_at_unix_ms, unix_ms)
}
MB_API int mb_plan_divide(mb_plan* plan, uint32_t index, uint32_t count) {
    if (!plan) return microbench::detail::invalid;
    return static_cast<int>(microbench::divide_plan(plan->p, index, count).code);
}
MB_API int mb_plan_expect_status(mb_plan* plan, const int* codes, size_t count) {
    if (!codes && count > 0) return microbench::detail::invalid;
    MICROBENCH_C_SET_RANGED(plan, expect_status, std::vector<int>(codes, codes + count))
}
MB_API int mb_plan_check_body_equals(mb_plan* plan, const void* data, size_t size) {
    MICROBENCH_C_SET(plan, data || size == 0, plan->c.body_equals(std::string(static_cast<const char*>(data), size)))
}
MB_API int mb_plan_check_body_starts_with(mb_plan* plan, const void* data, size_t size) {
    MICROBENCH_C_SET(plan, data && size > 0,
                     plan->c.body_starts_with(std::string(static_cast<const char*>(data), size)))
}
MB_API int mb_plan_check_body_contains(mb_plan* plan, const void* data, size_t size) {
    MICROBENCH_C_SET(plan, data && size > 0, plan->c.body_contains(std::string(static_cast<const char*>(data), size)))
}
MB_API int mb_plan_check_factorial(mb_plan* plan, unsigned n) {
    MICROBENCH_C_SET(plan, n <= 100'000, plan->c.factorial(n))
}
MB_API int mb_plan_on_response(mb_plan* plan, mb_response_fn fn, void* user) {
    if (!plan) return microbench::detail::invalid;
    plan->response = fn;
    plan->response_user = user;
    return MB_OK;
}
MB_API int mb_plan_on_progress(mb_plan* plan, mb_progress_fn fn, void* user, int64_t every_ms,
                               uint64_t every_requests) {
    if (!plan || every_ms < 0) return microbench::detail::invalid;
    plan->progress = fn;
    plan->progress_user = user;
    plan->progress_every_ms = every_ms;
    plan->progress_every_requests = every_requests;
    return MB_OK;
}
MB_API int mb_plan_on_interval(mb_plan* plan, mb_interval_fn fn, void* user) {
    if (!plan) return microbench::detail::invalid;
    plan->interval = fn;
    plan->interval_user = user;
    return MB_OK;
}
MB_API int mb_plan_set_cancel(mb_plan* plan, mb_cancel* cancel) {
    MICROBENCH_C_SET(plan, true, plan->p.cancel_with(cancel ? &cancel->t : nullptr))
}

MB_API int mb_plan_validate(const mb_plan* plan) {
    using namespace microbench;
    if (!plan) return detail::invalid;
    MICROBENCH_C_TRY
    if (error e = plan->p.validate()) return detail::status_of(e);
    url u;
    if (error e = parse_url(plan->p.url(), u)) return detail::status_of(e);
    std::string request;
    return detail::status_of(build_request(u, plan->p.request(), request));
    MICROBENCH_C_CATCH(detail::no_memory)
}

MB_API int mb_run(const mb_plan* plan, mb_result** out) {
    using namespace microbench;
    if (out) *out = nullptr;
    if (!plan || !out) return detail::invalid;
    MICROBENCH_C_TRY
    std::unique_ptr<mb_result> r(new (std::nothrow) mb_result);
    if (!r) return detail::no_memory;
    r->p = detail::plan_to_run(plan);
    if (error e = run(r->p, r->r)) return detail::status_of(e);
    *out = r.release();
    return MB_OK;
    MICROBENCH_C_CATCH(detail::no_memory)
}

}  // extern "C"

#include "c_api_result.hpp"
#include "c_api_suite.hpp"
#include "c_api_targets.hpp"

#endif  // MICROBENCH_C_IMPLEMENTATION
