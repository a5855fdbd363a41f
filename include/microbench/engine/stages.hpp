// microbench/engine/stages.hpp — a staged run's parts outside the workers (plan::stages): the rate
// curve made from the plan, one tally per stage for each worker (made before the run, so nothing
// is allocated per request), and after the run the result's row for each stage summed from them.
#pragma once

#include <cstdint>
#include <vector>

#include "../stats/result.hpp"
#include "plan.hpp"
#include "rate_curve.hpp"
#include "worker_setup.hpp"

namespace microbench {
namespace detail {

struct run_stages {
    rate_curve curve;
    std::vector<std::vector<stage_tally>> tallies;  // worker i's: tallies[i], one per stage

    void prepare(const plan& p, std::uint32_t threads) {
        if (p.stages().empty()) return;
        curve.build(p.rate(), p.stages(), 1.0);
        tallies.assign(threads, std::vector<stage_tally>(p.stages().size()));
    }

    // Each stage's row: its shape from the curve, its requests from every worker's tally.
    void summarize(std::vector<stage_result>& out) const {
        out.assign(curve.stages(), stage_result());
        for (std::size_t k = 0; k < out.size(); ++k) {
            stage_result& s = out[k];
            s.start_ms = curve.stage_start_ns(k) / 1'000'000;
            s.duration_ms = ((k + 1 < out.size() ? curve.stage_start_ns(k + 1) : curve.end_ns()) -
                             curve.stage_start_ns(k) + 500'000) / 1'000'000;
            s.from_rate = curve.rate_at_start(k);
            s.to_rate = curve.rate_at_end(k);
            s.intended = curve.count_of(k);
            std::uint64_t latency[target_buckets::count] = {};
            for (const std::vector<stage_tally>& worker : tallies) {
                s.sent += worker[k].sent;
                s.completed += worker[k].completed;
                s.failed += worker[k].failed;
                for (int b = 0; b < target_buckets::count; ++b) latency[b] += worker[k].latency[b];
            }
            s.p50_ns = s.completed ? target_buckets::quantile(latency, s.completed, 0.50) : -1;  // -1: none to read
            s.p99_ns = s.completed ? target_buckets::quantile(latency, s.completed, 0.99) : -1;
        }
    }
};

}  // namespace detail
}  // namespace microbench
