// microbench/report/report_hgrm.hpp — a histogram's percentile spectrum as HdrHistogram's `.hgrm`
// text, the CLASSIC format of HdrHistogram_c's hdr_percentiles_print as wrk2 prints it: a header,
// a row per step of HdrHistogram's percentile iteration (the value at the top of its bucket, the
// percentile as a fraction, the cumulative count, 1/(1-percentile)), a last row at 100 %, and the
// #[Mean/StdDeviation], #[Max/Total count], #[Buckets/SubBuckets] footer. Every figure is computed
// as HdrHistogram_c computes it — mean and deviation from each bucket's middle value, the maximum
// at the top of its bucket — so the text equals HdrHistogram_c's for the same counts (a test
// holds files it printed): the text HdrHistogram's plotter and wrk2's plotting scripts take. Two
// differences: counts of 2^31 and more print whole (HdrHistogram_c's %d cuts them), and an empty
// histogram's footer shows 0 (HdrHistogram_c's shows -nan).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "../core/appendf.hpp"
#include "../stats/histogram.hpp"

namespace microbench {

// Appends `h`'s spectrum to `out`, values divided by `value_scale` (1e6: nanoseconds to
// milliseconds), with `ticks_per_half_distance` steps each time the distance to 100 % halves (wrk2
// and HdrHistogram's examples: 5; below 1 counts as 1). An empty histogram gives the 100 % row at 0
// and a footer of 0s.
inline void append_hgrm(const histogram& h, double value_scale, int ticks_per_half_distance, std::string& out) {
    using detail::appendf;
    const int digits = h.config().significant_figures;
    const int ticks = ticks_per_half_distance < 1 ? 1 : ticks_per_half_distance;
    const std::uint64_t total = h.count();
    auto row = [&](std::int64_t top, double percentile, std::uint64_t cumulative) {
        const double fraction = percentile / 100.0;
        appendf(out, "%12.*f %12f %12llu %12.2f\n", digits, static_cast<double>(top) / value_scale, fraction,
                static_cast<unsigned long long>(cumulative), 1.0 / (1.0 - fraction));
    };
    appendf(out, "%12s %12s %12s %12s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
    // The iteration: bucket by bucket while counts remain; a bucket with a count reports each level
    // the cumulative percentage has reached, one row per level, except the bucket that holds the
    // last count, which reports one level and then the 100 % row.
    double level = 0.0;
    std::uint64_t cumulative = 0;
    std::int64_t top = 0;
    for (std::size_t i = 0; i < h.counts_length() && cumulative < total; ++i) {
        const std::uint64_t count = h.count_at_index(i);
        cumulative += count;
        top = h.highest_equivalent(h.value_at_index(i));
        if (count == 0) continue;
        while (level <= 100.0 * static_cast<double>(cumulative) / static_cast<double>(total)) {
            row(top, level, cumulative);
            // The step halves each time the distance to 100 % halves (computed as HdrHistogram_c does).
            const auto halvings = static_cast<int>(std::log(100 / (100.0 - level)) / std::log(2)) + 1;
            const double next = level + 100.0 / std::ldexp(static_cast<double>(ticks), halvings);
            // With counts past ~1e15 the step drops below the rounding of `level`: stop there
            // (HdrHistogram_c loops for ever); the 100 % row follows.
            if (cumulative >= total || !(next > level && next < 100.0)) break;
            level = next;
        }
    }
    row(top, 100.0, cumulative);
    // Mean and deviation over each bucket's middle value, as HdrHistogram_c's hdr_mean/hdr_stddev.
    double mean = 0, deviation = 0;
    if (total) {
        std::uint64_t sum = 0;
        h.for_each_recorded([&](const histogram_bucket& b) {
            sum += b.count * static_cast<std::uint64_t>(h.median_equivalent(b.lowest_value));
        });
        mean = static_cast<double>(static_cast<std::int64_t>(sum)) / static_cast<double>(total);
        deviation = h.deviation_around(mean);
    }
    const std::int64_t max = h.max() == 0 ? 0 : h.highest_equivalent(h.max());
    appendf(out, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", mean / value_scale, deviation / value_scale);
    appendf(out, "#[Max     = %12.3f, Total count    = %12llu]\n", static_cast<double>(max) / value_scale,
            static_cast<unsigned long long>(total));
    detail::histogram_layout layout;  // a histogram's configuration is valid: this cannot fail
    static_cast<void>(detail::compute_histogram_layout(h.config(), layout));
    appendf(out, "#[Buckets = %12d, SubBuckets     = %12d]\n", layout.bucket_count,
            static_cast<int>(layout.sub_bucket_count));
}

}  // namespace microbench
