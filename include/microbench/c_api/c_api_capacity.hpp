// microbench/c_api/c_api_capacity.hpp — the C API's capacity search: mb_find_capacity runs
// find_capacity (engine/capacity.hpp) on a plan, passing each step to the caller's callback as it
// ends, and an mb_capacity keeps the rate found and every step, and writes them as a table, JSON
// or HTML. Compiled only where MICROBENCH_C_IMPLEMENTATION is defined, after c_api.hpp.
#pragma once

#ifdef MICROBENCH_C_IMPLEMENTATION

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>

#include "../engine/capacity.hpp"
#include "../report/report_capacity.hpp"
#include "c_api.hpp"

struct mb_capacity {
    microbench::capacity_result r;
    microbench::capacity_objective o;  // what was asked, for the table and the JSON
};

namespace microbench {
namespace detail {

inline mb_capacity_step c_step(const capacity_step& s) {
    mb_capacity_step c{};
    c.target_rate = s.target_rate;
    c.achieved_rate = s.achieved_rate;
    c.window_ns = s.window_ns;
    c.completed = s.completed;
    c.failed = s.failed;
    c.p50_ns = s.p50_ns;
    c.p99_ns = s.p99_ns;
    c.p999_ns = s.p999_ns;
    c.max_ns = s.max_ns;
    c.lag_p99_ns = s.lag_p99_ns;
    c.connection_waits = s.connection_waits;
    c.schedule_missed = s.schedule_missed;
    c.verdict = static_cast<int>(s.verdict);
    c.generator_suspect = s.generator_suspect ? 1 : 0;
    c.retry = s.retry ? 1 : 0;
    return c;
}

inline void c_step_trampoline(const capacity_step& s, void* user) {
    const auto* o = static_cast<const mb_capacity_objective*>(user);
    const mb_capacity_step c = c_step(s);
    o->on_step(&c, o->on_step_user);
}

}  // namespace detail
}  // namespace microbench

static_assert(static_cast<int>(microbench::capacity_verdict::no_response) == MB_CAPACITY_NO_RESPONSE &&
                  static_cast<int>(microbench::capacity_verdict::no_connection) == MB_CAPACITY_NO_CONNECTION &&
                  static_cast<int>(microbench::capacity_verdict::latency) == MB_CAPACITY_LATENCY,
              "the C verdicts are capacity_verdict's numbers");

extern "C" {

MB_API void mb_capacity_objective_init(mb_capacity_objective* objective) {
    if (!objective) return;
    const microbench::capacity_objective d;
    *objective = mb_capacity_objective{};
    objective->size = sizeof *objective;
    objective->max_p99_ms = d.max_p99_ms;
    objective->max_failure_ratio = d.max_failure_ratio;
    objective->min_rate_ratio = d.min_rate_ratio;
    objective->start_rate = d.start_rate;
    objective->max_rate = d.max_rate;
    objective->resolution = d.resolution;
    objective->warmup_ms = d.warmup_ms;
    objective->step_ms = d.step_ms;
    objective->min_responses = d.min_responses;
    objective->cooldown_ms = d.cooldown_ms;
    objective->max_steps = d.max_steps;
}

MB_API int mb_find_capacity(const mb_plan* plan, const mb_capacity_objective* objective, mb_capacity** out) {
    using namespace microbench;
    if (out) *out = nullptr;
    // The caller's struct may be an older, shorter one: what it lacks keeps the defaults. The
    // callback and its user pointer come together or not at all.
    const std::size_t given_size = objective ? objective->size : 0;
    if (!plan || !objective || !out || given_size < offsetof(mb_capacity_objective, on_step) ||
        (given_size > offsetof(mb_capacity_objective, on_step) && given_size < sizeof(mb_capacity_objective)))
        return detail::invalid;
    mb_capacity_objective given;
    mb_capacity_objective_init(&given);
    std::memcpy(&given, objective, objective->size < sizeof given ? objective->size : sizeof given);
    MICROBENCH_C_TRY
    capacity_objective o;
    o.max_p99_ms = given.max_p99_ms;
    o.max_failure_ratio = given.max_failure_ratio;
    o.min_rate_ratio = given.min_rate_ratio;
    o.start_rate = given.start_rate;
    o.max_rate = given.max_rate;
    o.resolution = given.resolution;
    o.warmup_ms = given.warmup_ms;
    o.step_ms = given.step_ms;
    o.min_responses = given.min_responses;
    o.cooldown_ms = given.cooldown_ms;
    o.max_steps = given.max_steps;
    if (given.on_step) {
        o.on_step = detail::c_step_trampoline;
        o.on_step_user = &given;
    }
    std::unique_ptr<mb_capacity> c(new (std::nothrow) mb_capacity);
    if (!c) return detail::no_memory;
    if (error e = find_capacity(detail::plan_to_run(plan), o, c->r)) return detail::status_of(e);
    c->o = o;
    c->o.on_step = nullptr;  // the caller's, valid during the call only
    c->o.on_step_user = nullptr;
    *out = c.release();
    return MB_OK;
    MICROBENCH_C_CATCH(detail::no_memory)
}

MB_API void mb_capacity_destroy(mb_capacity* capacity) { delete capacity; }

MB_API double mb_capacity_rate(const mb_capacity* capacity) { return capacity ? capacity->r.capacity : 0; }

MB_API int mb_capacity_flags(const mb_capacity* capacity) {
    if (!capacity) return 0;
    return (capacity->r.at_max_rate ? MB_CAPACITY_AT_MAX_RATE : 0) |
           (capacity->r.generator_limited ? MB_CAPACITY_GENERATOR_LIMITED : 0) |
           (capacity->r.cancelled ? MB_CAPACITY_CANCELLED : 0);
}

MB_API int mb_capacity_stopped(const mb_capacity* capacity) {
    return capacity ? microbench::detail::status_of(capacity->r.stopped) : MB_INVALID_ARGUMENT;
}

MB_API size_t mb_capacity_step_count(const mb_capacity* capacity) { return capacity ? capacity->r.steps.size() : 0; }

MB_API int mb_capacity_step_info(const mb_capacity* capacity, size_t index, mb_capacity_step* out, size_t size) {
    if (!capacity || !out || index >= capacity->r.steps.size()) return MB_INVALID_ARGUMENT;
    const mb_capacity_step c = microbench::detail::c_step(capacity->r.steps[index]);
    std::memcpy(out, &c, size < sizeof c ? size : sizeof c);
    return MB_OK;
}

MB_API size_t mb_capacity_table(const mb_capacity* capacity, char* buf, size_t size) {
    if (!capacity) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    std::string text;
    microbench::append_capacity_table(capacity->r, capacity->o, text);
    return microbench::detail::copy_out(text, buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}

MB_API size_t mb_capacity_json(const mb_capacity* capacity, char* buf, size_t size) {
    if (!capacity) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    return microbench::detail::copy_out(microbench::capacity_json(capacity->r, capacity->o), buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}

MB_API size_t mb_capacity_report_html(const mb_capacity* capacity, const char* title, char* buf, size_t size) {
    if (!capacity) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    const std::string page = title ? microbench::capacity_html(capacity->r, capacity->o, title)
                                   : microbench::capacity_html(capacity->r, capacity->o);
    return microbench::detail::copy_out(page, buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}

}  // extern "C"

#endif  // MICROBENCH_C_IMPLEMENTATION
