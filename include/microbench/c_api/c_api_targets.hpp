// microbench/c_api/c_api_targets.hpp — the C API's targets: a plan's list of them (each with its
// own method and body), a vegeta targets file, ranges in the URL, their order and each-once, the
// factorial check of each target's n; and what a result says of each target (rows worst first,
// the folded rest, the factorial verdict line). Compiled only where MICROBENCH_C_IMPLEMENTATION is
// defined, after c_api.hpp.
#pragma once

#ifdef MICROBENCH_C_IMPLEMENTATION

#include <cstring>
#include <string>
#include <vector>

#include "c_api.hpp"

namespace microbench {
namespace detail {

inline mb_target_row c_target_row(const target_row& t) {
    mb_target_row c{};
    c.index = t.index;
    c.requests = t.requests();
    c.completed = t.completed;
    c.failed = t.failed;
    c.unfinished = t.unfinished;
    c.non_2xx = t.non_2xx;
    c.wrong = t.wrong();
    c.p50_ns = t.p50_ns;
    c.p99_ns = t.p99_ns;
    return c;
}

// Row `row` of a result's breakdown: the rows kept, then the folded rest; null past them.
inline const target_row* row_of(const mb_result* result, std::size_t row) {
    if (!result) return nullptr;
    const target_breakdown& b = result->r.by_target;
    if (row < b.rows.size()) return &b.rows[row];
    return row == b.rows.size() && b.targets ? &b.folded : nullptr;
}

}  // namespace detail
}  // namespace microbench

extern "C" {

MB_API int mb_plan_add_target(mb_plan* plan, const char* url, const char* method, const void* body, size_t size) {
    if (!plan || !url || (!body && size > 0)) return microbench::detail::invalid;
    if (plan->p.targets().size() >= microbench::defaults::max_targets) return MB_PLAN_BAD_TARGET;
    if (method && !microbench::detail::is_token(method)) return MB_REQUEST_BAD_METHOD;
    microbench::url checked;
    if (microbench::error e = microbench::parse_url(url, checked)) return microbench::detail::status_of(e);
    MICROBENCH_C_TRY
    microbench::target t(url);
    if (method) t.method = method;
    if (body) {
        t.body.assign(static_cast<const char*>(body), size);
        t.has_body = true;
    }
    plan->p.add_target(std::move(t));
    return MB_OK;
    MICROBENCH_C_CATCH(microbench::detail::no_memory)
}
MB_API int mb_plan_set_targets_file(mb_plan* plan, const char* path, size_t* line, size_t* column) {
    if (line) *line = 0;
    if (column) *column = 0;
    if (!plan || !path) return microbench::detail::invalid;
    MICROBENCH_C_TRY
    std::string text;
    bool too_long = false;
    if (!microbench::detail::read_whole_file(path, text, microbench::defaults::max_target_bytes, false, &too_long))
        return too_long ? MB_PLAN_TARGETS_TOO_LARGE : MB_TARGETS_UNREADABLE;
    std::vector<microbench::target> targets;
    if (microbench::error e = microbench::read_targets(text, targets)) {
        std::size_t l = 0, c = 0;
        microbench::line_column(text, e.position, l, c);
        if (line) *line = l;
        if (column) *column = c;
        return microbench::detail::status_of(e);
    }
    plan->p.targets(std::move(targets));
    return MB_OK;
    MICROBENCH_C_CATCH(microbench::detail::no_memory)
}
MB_API int mb_plan_set_url_ranges(mb_plan* plan, int on) { MICROBENCH_C_SET(plan, true, plan->p.url_ranges(on != 0)) }
MB_API int mb_plan_set_order(mb_plan* plan, int order, uint64_t seed) {
    MICROBENCH_C_SET(plan, order == MB_ORDER_IN_TURN || order == MB_ORDER_RANDOM,
                     plan->p.order(static_cast<microbench::target_order>(order)).seed(seed))
}
MB_API int mb_plan_set_each_once(mb_plan* plan, int on) { MICROBENCH_C_SET(plan, true, plan->p.each_once(on != 0)) }
MB_API int mb_plan_set_by_target(mb_plan* plan, int on) { MICROBENCH_C_SET(plan, true, plan->p.by_target(on != 0)) }
MB_API int mb_plan_check_factorial_of_each_target(mb_plan* plan) {
    MICROBENCH_C_SET(plan, true, plan->c.factorial_of_each_target())
}

MB_API uint64_t mb_result_target_count(const mb_result* result) { return result ? result->r.by_target.targets : 0; }
MB_API size_t mb_result_target_row_count(const mb_result* result) {
    return result ? result->r.by_target.rows.size() : 0;
}
MB_API int mb_result_target_row(const mb_result* result, size_t row, mb_target_row* out, size_t size) {
    const microbench::target_row* t = microbench::detail::row_of(result, row);
    if (!t || !out) return MB_INVALID_ARGUMENT;
    const mb_target_row c = microbench::detail::c_target_row(*t);
    std::memcpy(out, &c, size < sizeof c ? size : sizeof c);
    return MB_OK;
}
MB_API const char* mb_result_target_name(const mb_result* result, size_t row) {
    const microbench::target_row* t = microbench::detail::row_of(result, row);
    return t ? t->target.c_str() : "";
}
MB_API size_t mb_result_factorial_verdict(const mb_result* result, char* buf, size_t size) {
    if (!result) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    std::string text;
    microbench::append_verdict_text(result->r.by_target, text);
    return microbench::detail::copy_out(text, buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}

}  // extern "C"

#endif  // MICROBENCH_C_IMPLEMENTATION
