// microbench/c_api/c_api_plan.hpp — the C API's plan: creating one and setting its knobs, its
// checks and its callbacks, each setter checking its argument and the knob's range (plan::
// check_ranges) before it keeps it. Compiled only where MICROBENCH_C_IMPLEMENTATION is defined,
// after c_api.hpp.
#pragma once

#ifdef MICROBENCH_C_IMPLEMENTATION

#include <string>
#include <vector>

#include "c_api.hpp"

extern "C" {

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
    MICROBENCH_C_SET(plan, true, (plan->p.requests(requests), plan->requests_set = true))
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
MB_API int mb_plan_add_connect_to(mb_plan* plan, const char* rule) {
    if (!plan) return microbench::detail::invalid;
    if (!rule) {
        plan->p.connect_to({});
        return MB_OK;
    }
    MICROBENCH_C_TRY
    microbench::connect_rule parsed;
    if (!microbench::parse_connect_rule(rule, parsed)) return MB_PLAN_BAD_CONNECT_TO;
    std::vector<std::string> rules = plan->p.connect_to();
    rules.emplace_back(rule);
    plan->p.connect_to(std::move(rules));
    return MB_OK;
    MICROBENCH_C_CATCH(microbench::detail::no_memory)
}
MB_API int mb_plan_set_unix_socket(mb_plan* plan, const char* path) {
    if (!plan) return microbench::detail::invalid;
    MICROBENCH_C_TRY
    microbench::endpoint at;
    if (path && *path && !microbench::unix_endpoint(path, at)) return MB_PLAN_BAD_UNIX_SOCKET;
    plan->p.unix_socket(path ? path : "");
    return MB_OK;
    MICROBENCH_C_CATCH(microbench::detail::no_memory)
}
MB_API int mb_plan_add_stage(mb_plan* plan, int64_t duration_ms, double per_s) {
    namespace defaults = microbench::defaults;
    if (!plan) return microbench::detail::invalid;
    if (!(duration_ms >= 1 && duration_ms <= defaults::max_duration_ms && per_s >= 0 && per_s <= defaults::max_rate) ||
        plan->p.stages().size() >= defaults::max_stages)
        return MB_PLAN_BAD_STAGES;
    MICROBENCH_C_TRY
    std::vector<microbench::rate_stage> stages = plan->p.stages();
    stages.push_back({duration_ms, per_s});
    const std::uint64_t count = plan->p.requests();
    plan->p.stages(std::move(stages));
    if (plan->requests_set) plan->p.requests(count);  // a count given caps the staged run
    return MB_OK;
    MICROBENCH_C_CATCH(microbench::detail::no_memory)
}
MB_API int mb_plan_clear_stages(mb_plan* plan) {
    if (!plan) return microbench::detail::invalid;
    plan->p.stages({});
    return MB_OK;
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
MB_API int mb_plan_check_body_matches(mb_plan* plan, const char* regex, char* why, size_t why_size) {
    if (!plan || !regex || (!why && why_size > 0)) return microbench::detail::invalid;
    MICROBENCH_C_TRY
    std::string reason;
    std::shared_ptr<const microbench::body_regex> compiled = microbench::body_regex::compile(regex, reason);
    microbench::detail::copy_out(reason, why, why_size);
    if (!compiled) return MB_PLAN_BAD_REGEX;
    plan->c.body_matches(std::move(compiled));
    return MB_OK;
    MICROBENCH_C_CATCH(microbench::detail::no_memory)
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
MB_API int mb_plan_set_request_fn(mb_plan* plan, mb_request_fn fn, void* user, size_t capacity) {
    using namespace microbench::defaults;
    if (!plan) return microbench::detail::invalid;
    if (capacity == 0) capacity = request_capacity;
    if (capacity < min_request_capacity || capacity > max_request_capacity) return MB_PLAN_BAD_REQUEST_CAPACITY;
    plan->request = fn;
    plan->request_user = user;
    plan->request_capacity = capacity;
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

}  // extern "C"

#endif  // MICROBENCH_C_IMPLEMENTATION
