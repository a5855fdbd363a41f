// microbench/engine/shard.hpp — one plan divided among N generators (processes, machines, pods):
// shard I of N takes its share of the requests, the connections and the rate, and is marked as
// that shard so its fixed-rate schedule and Poisson seed interleave with the others' instead of
// repeating them; with targets, its own stretch of them. The shares add up exactly to the whole plan.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../http/url_ranges.hpp"
#include "plan.hpp"

namespace microbench {

// Where shard `index` of `count` starts in `total` things split as evenly as whole numbers allow
// (the first shards take one more).
inline std::uint64_t shard_start(std::uint64_t total, std::uint32_t index, std::uint32_t count) {
    return total / count * index + std::min<std::uint64_t>(index, total % count);
}
inline std::uint64_t shard_share(std::uint64_t total, std::uint32_t index, std::uint32_t count) {
    return total / count + (index < total % count ? 1 : 0);
}

// The URLs a plan with url_ranges sends to: [first, first + count) of the `total` that url()
// stands for, a shard's own stretch of them when there are several (one URL is every shard's).
struct url_stretch {
    std::uint64_t first = 0, count = 1, total = 1;
};
inline error stretch_of(const plan& p, url_stretch& out) {
    std::uint64_t total = 1;
    if (error e = count_url_ranges(p.url(), total)) return e;
    out = url_stretch{0, total, total};
    if (total > 1 && p.shard_count() && p.shard_index() < p.shard_count()) {
        out.first = shard_start(total, p.shard_index(), p.shard_count());
        out.count = shard_share(total, p.shard_index(), p.shard_count());
    }
    return {};
}

// How many targets a plan sends to: its list's, or its ranges' (a shard's stretch); 0 for url() alone.
inline std::uint64_t target_count(const plan& p) {
    if (!p.targets().empty()) return p.targets().size();
    url_stretch s;
    if (!p.url_ranges() || stretch_of(p, s) || s.total < 2) return 0;
    return s.count;
}

// `whole` as shard `index` (from 0) of `count`: requests and connections split as evenly as
// whole numbers allow (the first shards take one more), the rate split exactly, threads at most
// the shard's connections; the targets split into stretches the same way, so that no two shards
// send to the same target. Refused when a shard would get no connection, no request or no target
// (plan_bad_shard), or a share of the rate below the smallest rate (plan_bad_rate).
inline error divide_plan(plan& whole, std::uint32_t index, std::uint32_t count) {
    if (count < 1 || count > defaults::max_shards || index >= count) return {errc::plan_bad_shard, 0};
    const bool requests_short = whole.requests() != 0 && whole.requests() < count && !whole.each_once();
    if (whole.concurrency() < count || requests_short) return {errc::plan_bad_shard, 0};  // each once: its targets
    if (whole.url_ranges() && !whole.targets().empty()) return {errc::plan_bad_target, 0};  // one or the other
    std::uint64_t targets = whole.targets().size();
    if (whole.url_ranges() && count_url_ranges(whole.url(), targets)) targets = 0;  // run() says why
    if (targets > 1 || !whole.targets().empty()) {
        if (targets < count) return {errc::plan_bad_shard, 0};
    }
    if (whole.stages().empty() && whole.rate() > 0 && whole.rate() / count < defaults::min_rate)
        return {errc::plan_bad_rate, 0};  // a share too small to schedule
    auto share = [index, count](std::uint64_t total) { return shard_share(total, index, count); };
    if (!whole.targets().empty()) {  // shards before this one take their stretches first (ranges: run() does)
        const auto first = static_cast<std::ptrdiff_t>(shard_start(targets, index, count));
        const auto n = static_cast<std::ptrdiff_t>(share(targets));
        std::vector<target> stretch(whole.targets().begin() + first, whole.targets().begin() + first + n);
        whole.targets(std::move(stretch));
    }
    if (!whole.stages().empty()) {  // each stage's target split like the rate; the duration stays theirs
        std::vector<rate_stage> stages = whole.stages();
        for (rate_stage& s : stages) s.target /= count;
        whole.stages(std::move(stages));
    }
    const auto connections = static_cast<std::uint32_t>(share(whole.concurrency()));
    whole.requests(share(whole.requests()))
        .concurrency(connections)
        .threads(std::min(whole.threads(), connections))
        .rate(whole.rate() / count)
        .record_requests(share(whole.record_requests()))
        .shard(index, count);
    return {};
}

}  // namespace microbench
