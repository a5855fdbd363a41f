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
    bool requests_set = false;  // mb_plan_set_requests was called: a stage added later keeps the count
    mb_response_fn response = nullptr;
    void* response_user = nullptr;
    mb_progress_fn progress = nullptr;
    void* progress_user = nullptr;
    std::int64_t progress_every_ms = 0;
    std::uint64_t progress_every_requests = 0;
    mb_interval_fn interval = nullptr;
    void* interval_user = nullptr;
    mb_request_fn request = nullptr;
    void* request_user = nullptr;
    std::size_t request_capacity = microbench::defaults::request_capacity;
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

inline std::size_t c_request_trampoline(request_call& call, void* user) {
    const auto* plan = static_cast<const mb_plan*>(user);
    mb_request_call c{call.data,   call.capacity,        call.index, call.worker, call.target,
                      call.prepared.data(), call.prepared.size()};
    const std::size_t n = plan->request(&c, plan->request_user);
    call.target = c.target;
    return n;
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
    if (cp->request) p.on_request(c_request_trampoline, const_cast<mb_plan*>(cp), cp->request_capacity);
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

MB_API int mb_plan_validate(const mb_plan* plan) {
    using namespace microbench;
    if (!plan) return detail::invalid;
    MICROBENCH_C_TRY
    const microbench::plan p = detail::plan_to_run(plan);  // with its callbacks: the request callback's room
    if (error e = p.validate()) return detail::status_of(e);
    url u;
    if (error e = parse_url(p.url(), u)) return detail::status_of(e);
    std::string request;
    return detail::status_of(build_request(u, p.request(), request));
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

#include "c_api_plan.hpp"
#include "c_api_result.hpp"
#include "c_api_suite.hpp"
#include "c_api_targets.hpp"

#endif  // MICROBENCH_C_IMPLEMENTATION
