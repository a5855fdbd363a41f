// microbench/report/report_merge.hpp — results of one plan from many generators (shards, or the
// same plan run on several machines) merged into one result: counts and bytes summed exactly,
// the histograms merged bucket for bucket (percentiles of the whole within the histograms'
// precision), the run's span taken on the wall clock, the interval rows aligned on it and tiling
// it. The order of the inputs changes nothing but the order of the shards listed. Refuses
// results of different targets or plans, or whose histograms cannot merge exactly, and says
// which input differs and how; counts what a merge dropped instead of hiding it.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "../core/appendf.hpp"
#include "../stats/result.hpp"
#include "report_read.hpp"

namespace microbench {

// The most interval rows a merge makes (about 100 MB): 2.8 hours at 10 ms, 11 days at 1 s.
constexpr std::size_t max_merged_intervals = 1'000'000;

struct merge_summary {
    std::size_t inputs = 0;
    std::uint32_t shard_count = 0;      // the shards' N; 0: the inputs are not shards
    std::vector<std::uint32_t> shards;  // the shard indexes merged, in input order
    std::uint64_t dropped = 0;          // histogram values above the merge's highest trackable value
    std::string problem;                // when refused: which input differs from the first, and how
};

namespace detail {

// Why `b` cannot merge with `a`, as "keep-alive: yes in A, no in B"; empty when it can.
inline std::string plan_difference(const report_run& a, const report_run& b) {
    std::string why;
    auto differs = [&](const char* what, std::string_view x, std::string_view y) {
        if (why.empty() && x != y)
            appendf(why, "%s: %.*s in %s, %.*s in %s", what, static_cast<int>(x.size()), x.data(), a.label.c_str(),
                    static_cast<int>(y.size()), y.data(), b.label.c_str());
    };
    auto differs_number = [&](const char* what, double x, double y) {
        if (why.empty() && x != y)
            appendf(why, "%s: %.17g in %s, %.17g in %s", what, x, a.label.c_str(), y, b.label.c_str());
    };
    auto yes = [](bool v) { return v ? "yes" : "no"; };
    auto listed = [](const std::string& checks) {
        return checks.empty() ? std::string_view("none") : std::string_view(checks);
    };
    const run_description &x = a.config, &y = b.config;
    differs("URL", x.url, y.url);
    differs("method", x.method, y.method);
    differs("keep-alive", yes(x.keep_alive), yes(y.keep_alive));
    differs_number("pipeline", x.pipeline, y.pipeline);
    differs_number("timeout (ms)", static_cast<double>(x.timeout_ms), static_cast<double>(y.timeout_ms));
    differs("length check", yes(x.length_check), yes(y.length_check));
    differs_number("duration (ms)", static_cast<double>(x.duration_ms), static_cast<double>(y.duration_ms));
    differs("checks", listed(x.checks), listed(y.checks));
    differs("targets' order", listed(x.order), listed(y.order));
    differs_number("shards", x.shard_count, y.shard_count);
    if (!x.shard_count) {  // the same plan run whole on each generator
        differs_number("requests (-n)", static_cast<double>(x.requests), static_cast<double>(y.requests));
        differs_number("connections (-c)", x.concurrency, y.concurrency);
        differs_number("targets", static_cast<double>(x.targets), static_cast<double>(y.targets));
    }
    differs_number("rate (requests/s)", a.r.rate_target, b.r.rate_target);
    differs("arrivals", a.r.rate_arrivals == arrivals::poisson ? "poisson" : "uniform",
            b.r.rate_arrivals == arrivals::poisson ? "poisson" : "uniform");
    differs_number("batch lag (us)", static_cast<double>(a.r.rate_batch_lag_ns / 1000),
                   static_cast<double>(b.r.rate_batch_lag_ns / 1000));
    differs_number("interval (ms)", static_cast<double>(a.r.interval_ns / 1'000'000),
                   static_cast<double>(b.r.interval_ns / 1'000'000));
    return why;
}

// Why `b`'s histograms cannot merge exactly into `a`'s; empty when they can. A different highest
// trackable value is allowed: what lies above the merge's is counted as dropped.
inline std::string histogram_difference(const report_run& a, const report_run& b) {
    const histogram_config &x = a.r.total_ns.config(), &y = b.r.total_ns.config();
    std::string why;
    if (x.significant_figures != y.significant_figures || x.lowest_discernible_value != y.lowest_discernible_value)
        appendf(why, "%s has %d significant digits from %lld ns, %s %d from %lld ns", a.label.c_str(),
                x.significant_figures, static_cast<long long>(x.lowest_discernible_value), b.label.c_str(),
                y.significant_figures, static_cast<long long>(y.lowest_discernible_value));
    return why;
}

// One generator's interval rows, and how long after the merged run's start that generator began.
struct rows_at {
    const std::vector<interval_stats>* rows;
    std::int64_t offset_ns;
};

// Adds `row` into the merged row `m`: counts add up; percentiles of a merged row are the highest of
// its parts' (an upper bound, made exact by merge_kept_histograms when the rows kept histograms).
inline void add_interval_row(interval_stats& m, const interval_stats& row) {
    m.sent += row.sent;
    m.ended += row.ended;
    m.completed += row.completed;
    m.failed += row.failed;
    m.target += row.target;
    m.latency_count += row.latency_count;
    m.p50_ns = std::max(m.p50_ns, row.p50_ns);
    m.p90_ns = std::max(m.p90_ns, row.p90_ns);
    m.p99_ns = std::max(m.p99_ns, row.p99_ns);
    m.max_ns = std::max(m.max_ns, row.max_ns);
    m.lag_p99_ns = std::max(m.lag_p99_ns, row.lag_p99_ns);
    m.lag_max_ns = std::max(m.lag_max_ns, row.lag_max_ns);
}

// The generators' rows on one grid of `interval_ns` from the merged start, tiling the merged run:
// a row goes to the grid interval its start falls in and covers its length in intervals, rounded
// (one that spans several, because its generator fell behind, covers them all); intervals that
// rows cover together become one merged row, intervals no row covers become empty rows, and the
// last row ends where the latest row ends. Time and memory grow with the rows and the intervals
// (one sweep). `merged_into` gets, for every input row in input order, the merged row it went to.
// Refused (the input's index in `bad_input`, the interval its row starts in in `bad_at`) when a
// row would reach max_merged_intervals or beyond: the rows would not fit.
inline bool merge_interval_rows(const std::vector<rows_at>& inputs, std::int64_t interval_ns,
                                std::vector<interval_stats>& rows, std::vector<std::size_t>& merged_into,
                                std::size_t& bad_input, std::uint64_t& bad_at) {
    struct placed {
        std::int64_t first, count;
        const interval_stats* row;
    };
    std::vector<placed> all;
    std::int64_t last = -1, end_ns = 0;
    const double step = static_cast<double>(interval_ns);
    for (std::size_t i = 0; i < inputs.size(); ++i)
        for (const interval_stats& row : *inputs[i].rows) {
            // In doubles first: a saved start, offset and duration may each be near 2^62.
            const double at =
                std::max(0.0, static_cast<double>(row.start_ns) + static_cast<double>(inputs[i].offset_ns));
            const double count = std::max(1.0, std::round(static_cast<double>(row.duration_ns) / step));
            if (std::floor(at / step) + count > static_cast<double>(max_merged_intervals)) {
                bad_input = i;
                bad_at = static_cast<std::uint64_t>(std::min(at / step, 1e18));
                return false;
            }
            // Now every figure is below max_merged_intervals intervals of at most an hour: no overflow.
            const std::int64_t start = std::max<std::int64_t>(0, row.start_ns + inputs[i].offset_ns);
            all.push_back({start / interval_ns, static_cast<std::int64_t>(count), &row});
            last = std::max(last, all.back().first + all.back().count - 1);
            end_ns = std::max(end_ns, start + row.duration_ns);
        }
    rows.clear();
    merged_into.clear();
    if (last < 0) return true;
    // From interval k, the rows cover up to reach[k].
    std::vector<std::int64_t> reach(static_cast<std::size_t>(last + 1), -1);
    for (const placed& p : all)
        reach[static_cast<std::size_t>(p.first)] =
            std::max(reach[static_cast<std::size_t>(p.first)], p.first + p.count - 1);
    std::vector<std::size_t> row_of(static_cast<std::size_t>(last + 1), 0);
    std::int64_t covered = -1;  // the last interval the current merged row must take in
    for (std::int64_t k = 0; k <= last; ++k) {
        if (k > covered) {
            rows.emplace_back();
            rows.back().start_ns = k * interval_ns;
        }
        covered = std::max(covered, reach[static_cast<std::size_t>(k)]);
        rows.back().duration_ns = (k + 1) * interval_ns - rows.back().start_ns;
        row_of[static_cast<std::size_t>(k)] = rows.size() - 1;
    }
    rows.back().duration_ns = std::max<std::int64_t>(1, end_ns - rows.back().start_ns);
    for (const placed& p : all) {
        merged_into.push_back(row_of[static_cast<std::size_t>(p.first)]);
        add_interval_row(rows[merged_into.back()], *p.row);
    }
    return true;
}

// When every input row kept its histograms: each merged row's are its rows' merged bucket for
// bucket (in `out`'s layout, the widest input's: a value above it is dropped here as merge_runs
// counted it dropped from the run's own histograms, which hold the same values), and its
// percentiles theirs, exact (in place of add_interval_row's upper bound). Rows no input row
// reached get empty histograms. False when a kept histogram does not decode.
inline bool merge_kept_histograms(const std::vector<report_run>& in, const std::vector<std::size_t>& merged_into,
                                  result& out) {
    std::vector<std::vector<const interval_histogram_set*>> parts(out.intervals.size());
    std::size_t k = 0;
    for (const report_run& run : in)
        for (const interval_histogram_set& kept : run.r.interval_histograms) parts[merged_into[k++]].push_back(&kept);
    const histogram_config layout = out.total_ns.config();
    histogram sum[3] = {histogram(layout), histogram(layout), histogram(layout)}, part;
    std::string none;
    encode_histogram(sum[0], none);
    out.interval_histograms.assign(out.intervals.size(), interval_histogram_set{none, none, none});
    for (std::size_t m = 0; m < parts.size(); ++m) {
        if (parts[m].empty()) continue;
        for (histogram& h : sum) h.reset();
        for (const interval_histogram_set* kept : parts[m]) {
            const std::string* bytes[3] = {&kept->response, &kept->service, &kept->schedule_lag};
            for (int i = 0; i < 3; ++i) {
                if (decode_histogram(*bytes[i], part)) return false;
                sum[i].merge(part);
            }
        }
        interval_stats& row = out.intervals[m];
        row.p50_ns = sum[0].value_at_percentile(50);
        row.p90_ns = sum[0].value_at_percentile(90);
        row.p99_ns = sum[0].value_at_percentile(99);
        row.max_ns = sum[0].max();
        row.lag_p99_ns = sum[2].value_at_percentile(99);
        row.lag_max_ns = sum[2].max();
        encode_histogram(sum[0], out.interval_histograms[m].response);
        encode_histogram(sum[1], out.interval_histograms[m].service);
        encode_histogram(sum[2], out.interval_histograms[m].schedule_lag);
    }
    return true;
}

}  // namespace detail


namespace detail {
// The stages of merged shards: each stage's shape from the base, its counts summed; the shards'
// p50 and p99 cannot be summed, so they are not known (-1). None when the inputs' stages differ.
inline void merge_stages(const std::vector<report_run>& in, std::size_t base, std::vector<stage_result>& out) {
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (i == base) continue;
        const std::vector<stage_result>& other = in[i].r.stages;
        bool same = other.size() == out.size();
        for (std::size_t k = 0; same && k < out.size(); ++k)
            same = other[k].start_ms == out[k].start_ms && other[k].duration_ms == out[k].duration_ms;
        if (!same) {
            out.clear();
            return;
        }
        for (std::size_t k = 0; k < out.size(); ++k) {
            out[k].from_rate += other[k].from_rate;
            out[k].to_rate += other[k].to_rate;
            out[k].intended += other[k].intended;
            out[k].sent += other[k].sent;
            out[k].completed += other[k].completed;
            out[k].failed += other[k].failed;
            out[k].p50_ns = out[k].p99_ns = -1;
        }
    }
}
}  // namespace detail

// Merges `in` (each a single run: a generator's --json) into `out`, labelled "merged": counts,
// failures, status codes, bytes and connections summed; -n, -c, threads and the rate of the whole
// (the shards' shares add up to the plan); the histograms merged into the widest range among
// them; elapsed from the earliest start to the latest end on the wall clock; interval rows
// aligned on it (merge_interval_rows), with exact percentiles and their histograms kept when every
// input kept its rows' histograms (merge_kept_histograms).
inline error merge_runs(const std::vector<report_run>& in, report_run& out, merge_summary& s) {
    s = merge_summary();
    s.inputs = in.size();
    if (in.empty()) return {errc::merge_nothing, 0};
    const report_run& first = in[0];
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (!in[i].scenario.empty()) {
            s.problem = in[i].label + " is a scenario of a suite; merge takes single runs";
            return {errc::merge_nothing, i};
        }
        if (i > 0 && !(s.problem = detail::plan_difference(first, in[i])).empty())
            return {errc::merge_different_plans, i};
        if (i > 0 && !(s.problem = detail::histogram_difference(first, in[i])).empty())
            return {errc::merge_incompatible_histograms, i};
        if (!in[i].config.shard_count) continue;
        s.shard_count = in[i].config.shard_count;
        if (std::find(s.shards.begin(), s.shards.end(), in[i].config.shard_index) != s.shards.end()) {
            detail::appendf(s.problem, "shard %u of %u appears twice (%s)", in[i].config.shard_index, s.shard_count,
                            in[i].label.c_str());
            return {errc::merge_duplicate_shard, i};
        }
        s.shards.push_back(in[i].config.shard_index);
    }
    // The base — whose histograms the others merge into, and whose configuration and single-valued
    // fields (server software, seed) the result keeps — is the input of the widest histogram range,
    // then of the earliest start, then of the lowest shard: never a matter of the inputs' order.
    auto before = [&in](std::size_t a, std::size_t b) {
        const std::int64_t wa = in[a].r.total_ns.config().highest_trackable_value,
                           wb = in[b].r.total_ns.config().highest_trackable_value;
        if (wa != wb) return wa > wb;
        if (in[a].r.start_realtime_ns != in[b].r.start_realtime_ns)
            return in[a].r.start_realtime_ns < in[b].r.start_realtime_ns;
        return in[a].config.shard_index < in[b].config.shard_index;
    };
    std::size_t widest = 0;
    for (std::size_t i = 1; i < in.size(); ++i)
        if (before(i, widest)) widest = i;
    out = report_run();
    out.label = "merged";
    out.config = in[widest].config;
    out.config.shard_index = out.config.shard_count = 0;  // the whole plan
    out.config.requests = out.config.concurrency = out.config.threads = 0;
    out.r = in[widest].r;
    if (!out.r.histograms_allocated()) return {errc::out_of_memory, 0};  // the copy's counters could not be mapped
    out.r.intervals.clear();
    out.r.interval_histograms.clear();
    out.r.by_target = target_breakdown();  // one shard's targets are not the run's: merge keeps none
    for (const report_run& x : in)  // where they connected, when all agree
        if (x.r.connected_to != out.r.connected_to) out.r.connected_to.clear();
    std::int64_t start = first.r.start_realtime_ns, end = first.r.start_realtime_ns + first.r.elapsed_ns;
    double rate = 0;
    std::uint32_t requested = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const result& r = in[i].r;
        if (i != widest) s.dropped += out.r.merge(r);
        out.config.requests += in[i].config.requests;
        out.config.concurrency += in[i].config.concurrency;
        if (i != widest && first.config.shard_count) out.config.targets += in[i].config.targets;  // each a stretch
        out.config.threads += in[i].config.threads;
        rate += r.rate_target;
        requested += r.concurrency_requested;
        start = std::min(start, r.start_realtime_ns);
        end = std::max(end, r.start_realtime_ns + r.elapsed_ns);
    }
    out.r.rate_target = rate;
    out.r.concurrency_requested = requested;
    detail::merge_stages(in, widest, out.r.stages);
    out.r.start_realtime_ns = start;
    out.r.elapsed_ns = end - start;
    if (first.r.interval_ns > 0) {
        std::vector<detail::rows_at> rows;
        for (const report_run& run : in) rows.push_back({&run.r.intervals, run.r.start_realtime_ns - start});
        std::size_t bad = 0;
        std::uint64_t at = 0;
        std::vector<std::size_t> merged_into;
        if (!detail::merge_interval_rows(rows, first.r.interval_ns, out.r.intervals, merged_into, bad, at)) {
            detail::appendf(s.problem,
                            "%s has an interval starting %llu intervals after the earliest start, reaching past %zu",
                            in[bad].label.c_str(), static_cast<unsigned long long>(at), max_merged_intervals);
            return {errc::merge_too_many_intervals, bad};
        }
        const bool all_kept = std::all_of(in.begin(), in.end(), [](const report_run& run) {
            return run.r.interval_histograms.size() == run.r.intervals.size();
        }) && !out.r.intervals.empty();
        if (all_kept && !detail::merge_kept_histograms(in, merged_into, out.r)) {
            s.problem = "an interval's kept histograms do not decode";
            return {errc::merge_incompatible_histograms, 0};
        }
    }
    return {};
}

}  // namespace microbench
