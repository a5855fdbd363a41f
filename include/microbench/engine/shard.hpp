// microbench/engine/shard.hpp — one plan divided among N generators (processes, machines, pods):
// shard I of N takes its share of the requests, the connections and the rate, and is marked as
// that shard so its fixed-rate schedule and Poisson seed interleave with the others' instead of
// repeating them. The shares add up exactly to the whole plan.
#pragma once

#include <algorithm>
#include <cstdint>

#include "../core/config.hpp"
#include "../core/error.hpp"
#include "plan.hpp"

namespace microbench {

// `whole` as shard `index` (from 0) of `count`: requests and connections split as evenly as
// whole numbers allow (the first shards take one more), the rate split exactly, threads at most
// the shard's connections. Refused when a shard would get no connection or no request
// (plan_bad_shard), or a share of the rate below the smallest rate (plan_bad_rate).
inline error divide_plan(plan& whole, std::uint32_t index, std::uint32_t count) {
    if (count < 1 || count > defaults::max_shards || index >= count) return {errc::plan_bad_shard, 0};
    if (whole.concurrency() < count || (whole.requests() != 0 && whole.requests() < count))
        return {errc::plan_bad_shard, 0};
    if (whole.rate() > 0 && whole.rate() / count < defaults::min_rate)
        return {errc::plan_bad_rate, 0};  // a share too small to schedule
    auto share = [index, count](std::uint64_t total) { return total / count + (index < total % count ? 1 : 0); };
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
