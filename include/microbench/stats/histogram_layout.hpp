// microbench/stats/histogram_layout.hpp — a histogram's configuration (the lowest discernible and
// highest trackable value, 1–5 significant figures) and the bucket layout it implies, as in
// HdrHistogram: sub-buckets, buckets and the number of counters, which fix its memory. validate()
// says whether a configuration can make a histogram; nothing here allocates or records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "../core/config.hpp"
#include "../core/error.hpp"

namespace microbench {

struct histogram_config {
    std::int64_t lowest_discernible_value = defaults::histogram_lowest_discernible_ns;
    std::int64_t highest_trackable_value = defaults::histogram_highest_trackable_ns;
    int significant_figures = defaults::histogram_significant_figures;
};

namespace detail {

struct histogram_layout {
    int unit_magnitude = 0;                   // log2 of the lowest discernible value, rounded down
    int sub_bucket_half_count_magnitude = 0;
    std::int64_t sub_bucket_count = 0;
    std::int64_t sub_bucket_half_count = 0;
    std::int64_t sub_bucket_mask = 0;
    int bucket_count = 0;
    std::size_t counts_length = 0;
};

inline error compute_histogram_layout(const histogram_config& c, histogram_layout& out) {
    if (c.lowest_discernible_value < 1 || c.significant_figures < 1 || c.significant_figures > 5 ||
        c.highest_trackable_value / 2 < c.lowest_discernible_value)
        return {errc::histogram_bad_config, 0};
    std::int64_t single_unit_limit = 2;  // 2 * 10^figures values keep unit resolution
    for (int i = 0; i < c.significant_figures; ++i) single_unit_limit *= 10;
    int sub_bucket_count_magnitude = 0;
    while ((std::int64_t{1} << sub_bucket_count_magnitude) < single_unit_limit) ++sub_bucket_count_magnitude;
    histogram_layout l;
    l.sub_bucket_half_count_magnitude = sub_bucket_count_magnitude - 1;
    while ((std::int64_t{2} << l.unit_magnitude) <= c.lowest_discernible_value) ++l.unit_magnitude;
    if (l.unit_magnitude + l.sub_bucket_half_count_magnitude > 61) return {errc::histogram_bad_config, 0};
    l.sub_bucket_count = std::int64_t{1} << (l.sub_bucket_half_count_magnitude + 1);
    l.sub_bucket_half_count = l.sub_bucket_count / 2;
    l.sub_bucket_mask = (l.sub_bucket_count - 1) << l.unit_magnitude;
    std::int64_t smallest_untrackable = l.sub_bucket_count << l.unit_magnitude;
    l.bucket_count = 1;
    while (smallest_untrackable <= c.highest_trackable_value) {
        ++l.bucket_count;
        if (smallest_untrackable > std::numeric_limits<std::int64_t>::max() / 2) break;
        smallest_untrackable <<= 1;
    }
    l.counts_length = static_cast<std::size_t>(l.bucket_count + 1) * static_cast<std::size_t>(l.sub_bucket_half_count);
    out = l;
    return {};
}

}  // namespace detail

inline error validate(const histogram_config& config) {
    detail::histogram_layout unused;
    return detail::compute_histogram_layout(config, unused);
}

}  // namespace microbench
