// microbench/engine/targets.hpp — a run's targets made ready before it starts: each target's
// request built once into the table the workers share (from a list, or from the URLs of url()'s
// ranges, this shard's stretch only, with no list kept), a reference length each, and the URL the
// run's origin comes from. Nothing here runs while the workers do. MICROBENCH_NO_TARGETS leaves
// it out (a plan with targets or ranges is then refused: plan_targets_unsupported).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../core/error.hpp"
#include "../http/request.hpp"
#include "../http/url.hpp"
#include "../http/url_ranges.hpp"
#include "plan.hpp"
#include "shard.hpp"
#include "worker_setup.hpp"

namespace microbench {
namespace detail {

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
// With targets (a list, or the URLs of url()'s ranges: this shard's stretch of them): each one's
// request into the shared table, and a reference length each. A target that is not a URL of the
// run's origin is refused by its index (plan_bad_target), and so is the first request that
// takes them past 1 GiB in all (plan_targets_too_large; the bodies alone are checked first).
inline error build_targets(const plan& p, const url& origin, request_table& table,
                           std::unique_ptr<std::atomic<std::int64_t>[]>& lengths) {
    const std::vector<std::string>& list = p.targets();
    if (list.size() > defaults::max_targets) return {errc::plan_bad_target, defaults::max_targets};
    if (p.url_ranges() && !list.empty()) return {errc::plan_bad_target, 0};  // one or the other
    url_stretch stretch;
    if (p.url_ranges()) {
        if (error e = stretch_of(p, stretch)) return e;
    } else {
        stretch.count = list.size();
    }
    if (stretch.count < 2 && list.empty()) return {};  // url() alone, or the one URL of its ranges
    const request_options options = p.request();
    // The bodies alone past the bound: refused before any request is made.
    if (!options.body.empty() && stretch.count > defaults::max_target_bytes / options.body.size())
        return {errc::plan_targets_too_large, defaults::max_target_bytes / options.body.size()};
    error fault;
    std::string request;
    auto add = [&](const std::string& text, std::uint64_t k) {
        url u;
        if (fault) return;
        if (parse_url(text, u) || u.tls != origin.tls || u.host != origin.host || u.port != origin.port)
            fault = {errc::plan_bad_target, static_cast<std::size_t>(k)};
        else if (error e = build_request(u, options, request))
            fault = e;
        else if (request.size() > defaults::max_target_bytes - table.bytes.size())
            fault = {errc::plan_targets_too_large, static_cast<std::size_t>(k)};
        if (fault) return;
        table.bytes += request;
        table.ends.push_back(table.bytes.size());
    };
    table.ends.reserve(static_cast<std::size_t>(stretch.count));
    if (!list.empty())
        for (std::size_t k = 0; k < list.size(); ++k) add(list[k], k);
    else if (error e = for_each_url(p.url(), stretch.first, stretch.count, add))
        return e;
    if (fault) return fault;
    lengths.reset(new std::atomic<std::int64_t>[table.size()]);
    for (std::uint32_t i = 0; i < table.size(); ++i) lengths[i].store(-1, std::memory_order_relaxed);
    return {};
}

// The URL a run's origin comes from: url(), or with ranges the first URL they stand for (this
// shard's stretch).
inline error first_url(const plan& p, std::string& out) {
    out = p.url();
    if (!p.url_ranges() || !p.targets().empty()) return {};
    url_stretch stretch;
    if (error e = stretch_of(p, stretch)) return e;
    return for_each_url(p.url(), stretch.first, 1, [&out](const std::string& text, std::uint64_t) { out = text; });
}

#endif  // MICROBENCH_NO_TARGETS

}  // namespace detail
}  // namespace microbench
