// microbench/engine/targets.hpp — a run's targets made ready before it starts: each target's
// request built once into the table the workers share (from a list, or from the URLs of url()'s
// ranges, this shard's stretch only, with no list kept), a reference length each, and the URL the
// run's origin comes from. Nothing here runs while the workers do. MICROBENCH_NO_TARGETS leaves
// it out (a plan with targets or ranges is then refused: plan_targets_unsupported).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../core/error.hpp"
#include "../core/splitmix.hpp"
#include "../http/request.hpp"
#include "../http/url.hpp"
#include "../http/url_ranges.hpp"
#include "plan.hpp"
#include "shard.hpp"
#include "worker_setup.hpp"

namespace microbench {
namespace detail {

// A target's request options: the plan's, with its own method, headers (a name it gives replaces
// every plan header of that name; its own given twice are both sent) and body; into `out`, which
// it returns.
inline const request_options& options_of(const request_options& plan_options, const target& t, request_options& out) {
    out = plan_options;
    if (!t.method.empty()) out.method = t.method;
    if (t.has_body) out.body = t.body;
    auto named_by_target = [&t](const header& mine) {
        for (const header& h : t.headers)
            if (iequals(mine.name, h.name)) return true;
        return false;
    };
    out.headers.erase(std::remove_if(out.headers.begin(), out.headers.end(), named_by_target), out.headers.end());
    out.headers.insert(out.headers.end(), t.headers.begin(), t.headers.end());  // a name given twice: both sent
    return out;
}

// A target's request, as run() builds it: its URL `text`, parsed into `u`, of the origin's scheme,
// host and port (else plan_bad_target), with the plan's options and, for a listed target `t`, its
// own (options_of, through `scratch`). The error's position is 0: the caller names the target.
inline error target_request(const url& origin, const std::string& text, const request_options& options,
                            const target* t, request_options& scratch, url& u, std::string& request) {
    if (parse_url(text, u) || u.tls != origin.tls || u.host != origin.host || u.port != origin.port)
        return {errc::plan_bad_target, 0};
    return build_request(u, t ? options_of(options, *t, scratch) : options, request);
}

// Each once in a random order: the targets' shuffle (Fisher–Yates from the plan's seed and its
// shard), into `out`; empty otherwise. With each once, the run's connections may not outnumber
// its targets (plan_concurrency_above_requests).
inline error order_targets(const plan& p, const request_table& table, std::vector<std::uint32_t>& out) {
    out.clear();
    if (!p.each_once()) return {};
    if (p.concurrency() > (table.size() ? table.size() : 1)) return {errc::plan_concurrency_above_requests, 0};
    if (p.order() != target_order::random || !table.size()) return {};
    out.resize(table.size());
    for (std::uint32_t i = 0; i < table.size(); ++i) out[i] = i;
    std::uint64_t state = detail::mix64(p.seed() ^ detail::mix64(p.shard_index() + 0x5eed));
    for (std::uint32_t i = table.size() - 1; i > 0; --i)
        std::swap(out[i], out[detail::splitmix64(state) % (i + 1)]);
    return {};
}

#ifdef MICROBENCH_NO_TARGETS
// Without targets: a plan that asks for them (a list, or a brace in url() with url_ranges) is refused.
inline error build_targets(const plan& p, const url&, request_table&, std::unique_ptr<std::atomic<std::int64_t>[]>&) {
    const std::string& u = p.url();
    const bool braces = p.url_ranges() && u.find_first_of("{}") < u.find('#');  // a fragment is not sent
    return p.targets().empty() && !braces ? error{} : error{errc::plan_targets_unsupported, 0};
}
inline error first_url(const plan& p, std::string& out) {
    out = p.url();
    return {};
}
#else
// When a target has a method of its own: each target's flags (request_table::flags), so a HEAD's
// response is read without a body and a request that is not idempotent is not sent twice.
inline void flag_methods(const plan& p, request_table& table) {
    bool own = false;
    for (const target& t : p.targets()) own = own || (!t.method.empty() && t.method != p.method());
    if (!own) return;
    table.flags.resize(table.size());
    for (std::size_t k = 0; k < table.flags.size(); ++k) {
        const std::string& m = p.targets()[k].method.empty() ? p.method() : p.targets()[k].method;
        const bool resend = p.resend_non_idempotent() || idempotent(m);
        table.flags[k] = static_cast<std::uint8_t>((m == "HEAD" ? request_table::head_flag : 0) |
                                                   (resend ? 0 : request_table::keep_flag));
    }
}

// With targets (a list, or the URLs of url()'s ranges: this shard's stretch of them): each one's
// request into the shared table, and a reference length each. A target that is not a URL of the
// run's origin is refused by its index (plan_bad_target), and so is the first request that
// takes them past 1 GiB in all (plan_targets_too_large; the bodies alone are checked first).
inline error build_targets(const plan& p, const url& origin, request_table& table,
                           std::unique_ptr<std::atomic<std::int64_t>[]>& lengths) {
    const std::vector<target>& list = p.targets();
    if (list.size() > defaults::max_targets) return {errc::plan_bad_target, defaults::max_targets};
    if (p.url_ranges() && !list.empty()) return {errc::plan_bad_target, 0};  // one or the other
    url_stretch stretch;
    if (p.url_ranges()) {
        if (error e = stretch_of(p, stretch)) return e;
    } else {
        stretch.count = list.size();
    }
    // url() alone; ranges that stand for one URL make a table only for the factorial check of each
    // target's n, whose verdict reads the table.
    const bool one = stretch.count < 2 && !p.check().factorial_of_each_target_set();
    if (list.empty() && (!p.url_ranges() || one)) return {};
    const request_options options = p.request();
    // The bodies alone past the bound: refused before any request is made.
    if (!options.body.empty() && stretch.count > defaults::max_target_bytes / options.body.size())
        return {errc::plan_targets_too_large, defaults::max_target_bytes / options.body.size()};
    error fault;
    std::string request;
    request_options own;  // a target's, when it has a method, headers or a body of its own
    auto add = [&](const std::string& text, std::uint64_t k, const target* t) {
        url u;
        if (fault) return;
        if (error e = target_request(origin, text, options, t, own, u, request))
            fault = {e.code, static_cast<std::size_t>(k)};
        else if (request.size() > defaults::max_target_bytes - table.bytes.size())
            fault = {errc::plan_targets_too_large, static_cast<std::size_t>(k)};
        if (fault) return;
        table.bytes += request;
        table.ends.push_back(table.bytes.size());
    };
    table.ends.reserve(static_cast<std::size_t>(stretch.count));
    if (!list.empty())
        for (std::size_t k = 0; k < list.size(); ++k) add(list[k].url, k, &list[k]);
    else if (error e = for_each_url(p.url(), stretch.first, stretch.count,
                                    [&add](const std::string& text, std::uint64_t k) { add(text, k, nullptr); }))
        return e;
    if (fault) return fault;
    flag_methods(p, table);
    lengths.reset(new std::atomic<std::int64_t>[table.size()]);
    for (std::uint32_t i = 0; i < table.size(); ++i) lengths[i].store(-1, std::memory_order_relaxed);
    return {};
}

// The URL a run's origin comes from: url() (empty: the first target's), or with ranges the first
// URL they stand for (this shard's stretch).
inline error first_url(const plan& p, std::string& out) {
    out = p.url().empty() && !p.targets().empty() ? p.targets()[0].url : p.url();
    if (!p.url_ranges() || !p.targets().empty()) return {};
    url_stretch stretch;
    if (error e = stretch_of(p, stretch)) return e;
    return for_each_url(p.url(), stretch.first, 1, [&out](const std::string& text, std::uint64_t) { out = text; });
}

#endif  // MICROBENCH_NO_TARGETS

}  // namespace detail
}  // namespace microbench
