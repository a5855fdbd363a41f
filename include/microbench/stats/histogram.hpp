// microbench/stats/histogram.hpp — log-linear latency histogram with HdrHistogram's bucket layout.
// Fixed memory set by the configuration alone, a stated relative precision (1–5 significant
// figures), exact count/min/max/sum, mergeable. Allocates once at construction, or never when
// given caller storage; record() is a few shifts and adds. Single-threaded: one per worker.
// Empty histograms report 0 for min/max/mean/percentiles; ask empty() to tell them apart. One
// whose counters could not be allocated records nothing and says so (allocated()): a layout
// read from a file fails as a value, never by aborting.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include "../core/config.hpp"
#include "../core/error.hpp"
#include "histogram_layout.hpp"

namespace microbench {

// One non-empty bucket, for for_each_recorded.
struct histogram_bucket {
    std::int64_t lowest_value;   // smallest value this bucket stands for
    std::int64_t highest_value;  // largest value this bucket stands for
    std::uint64_t count;
    std::uint64_t cumulative_count;  // this bucket and all below it
};

// One step of a percentile spectrum, for for_each_percentile.
struct histogram_percentile {
    double percentile;  // 0..100, the level asked for
    std::int64_t value;
    std::uint64_t cumulative_count;
};

namespace detail {

// Frees a histogram's own counters (an anonymous mapping of `bytes`).
struct unmap_counts {
    std::size_t bytes = 0;
    void operator()(std::uint64_t* p) const { munmap(p, bytes); }
};

}  // namespace detail

class histogram {
public:
    // Counters a histogram of this configuration needs (0 if the configuration is invalid).
    static std::size_t counts_needed(const histogram_config& config) {
        detail::histogram_layout l;
        return detail::compute_histogram_layout(config, l) ? 0 : l.counts_length;
    }
    static std::size_t memory_bytes(const histogram_config& config) {
        return counts_needed(config) * sizeof(std::uint64_t);
    }

    // The configuration must be valid (check with validate()); allocates its counters once (when
    // that fails, allocated() is false).
    explicit histogram(const histogram_config& config = {}) : config_(config) {
        init_layout();
        allocate_zeroed();
    }

    // No allocation, ever: counts live in `storage`, which must hold counts_needed(config)
    // values and outlive the histogram. Copies of it own their counters.
    histogram(const histogram_config& config, std::uint64_t* storage, std::size_t storage_length)
        : config_(config), counts_(storage) {
        init_layout();
        MICROBENCH_ASSERT(storage != nullptr && storage_length >= layout_.counts_length);
        for (std::size_t i = 0; i < layout_.counts_length; ++i) counts_[i] = 0;
    }

    histogram(const histogram& o)
        : config_(o.config_), layout_(o.layout_), total_(o.total_), sum_(o.sum_), min_(o.min_), max_(o.max_) {
        allocate_zeroed();
        if (!allocated()) forget_counts();  // and its totals: it holds nothing
        for (std::size_t i = 0; i < layout_.counts_length && i < o.layout_.counts_length; ++i)
            if (o.counts_[i]) counts_[i] = o.counts_[i];  // leave untouched pages untouched
    }
    histogram(histogram&& o) noexcept
        : config_(o.config_), layout_(o.layout_), owned_(std::move(o.owned_)), counts_(o.counts_),
          total_(o.total_), sum_(o.sum_), min_(o.min_), max_(o.max_) {
        o.forget_counts();
    }
    histogram& operator=(const histogram& o) {
        if (this != &o) *this = histogram(o);
        return *this;
    }
    histogram& operator=(histogram&& o) noexcept {
        if (this == &o) return *this;
        config_ = o.config_;
        layout_ = o.layout_;
        owned_ = std::move(o.owned_);
        counts_ = o.counts_;
        total_ = o.total_;
        sum_ = o.sum_;
        min_ = o.min_;
        max_ = o.max_;
        o.forget_counts();
        return *this;
    }
    ~histogram() = default;

    // Records `count` occurrences of `value`. False (and nothing recorded) when value is
    // negative or above highest_trackable_value.
    bool record(std::int64_t value, std::uint64_t count = 1) {
        if (value < 0 || value > config_.highest_trackable_value) return false;
        std::size_t i = index_of(value);
        if (i >= layout_.counts_length) return false;  // a moved-from histogram
        if (count == 0) return true;
        counts_[i] += count;
        if (total_ == 0) {
            min_ = max_ = value;
        } else {
            if (value < min_) min_ = value;
            if (value > max_) max_ = value;
        }
        total_ += count;
        sum_ += static_cast<std::uint64_t>(value) * count;
        return true;
    }

    // Records `value` brought into [0, highest_trackable_value]: a value outside the range is
    // counted at its nearest edge, so the count always equals the values offered. False when it
    // had to move the value.
    bool record_clamped(std::int64_t value) {
        const std::int64_t v = value < 0 ? 0
                               : value > config_.highest_trackable_value ? config_.highest_trackable_value : value;
        record(v);
        return v == value;
    }

    // Records `value`, then the values a closed-loop client would have seen had it kept sending
    // every `expected_interval` while stalled: value - interval, value - 2·interval, … down to
    // interval (HdrHistogram's coordinated-omission correction). interval <= 0 records only value.
    bool record_corrected(std::int64_t value, std::int64_t expected_interval, std::uint64_t count = 1) {
        if (!record(value, count)) return false;
        if (expected_interval <= 0) return true;
        for (std::int64_t missing = value - expected_interval; missing >= expected_interval;
             missing -= expected_interval)
            record(missing, count);
        return true;
    }

    // Adds `other`'s values; returns how many it dropped because they lie above this
    // histogram's highest_trackable_value (all of them when this one has no counters). Count,
    // sum, min and max stay exact when nothing is dropped; across different layouts values land
    // on `other`'s bucket bounds. Walks other's counters up to its last value.
    std::uint64_t merge(const histogram& other) { return merge_counts(other, nullptr); }
    // merge(other), where `filled` lists other's non-empty bucket indexes, lowest first (what
    // decode_hdr_v2 gives beside a histogram): it walks those alone, whatever other's range.
    std::uint64_t merge(const histogram& other, const std::vector<std::size_t>& filled) {
        return merge_counts(other, &filled);
    }

    void reset() {
        for (std::size_t i = 0; i < layout_.counts_length; ++i)
            if (counts_[i]) counts_[i] = 0;  // leave untouched pages untouched
        total_ = sum_ = 0;
        min_ = max_ = 0;
    }

    // False when the counters could not be allocated (or it was moved from): it records nothing.
    bool allocated() const { return layout_.counts_length > 0; }
    std::uint64_t count() const { return total_; }
    bool empty() const { return total_ == 0; }
    std::int64_t min() const { return min_; }
    std::int64_t max() const { return max_; }
    std::uint64_t sum() const { return sum_; }  // exact, of the recorded values
    double mean() const { return total_ ? static_cast<double>(sum_) / static_cast<double>(total_) : 0.0; }

    // Standard deviation (population) from bucket midpoints: around the exact mean, or around `m`.
    double stddev() const { return deviation_around(mean()); }
    double deviation_around(double m) const {
        if (total_ == 0) return 0.0;
        double acc = 0.0;
        for_each_recorded([&](const histogram_bucket& b) {
            double d = static_cast<double>(median_equivalent(b.lowest_value)) - m;
            acc += d * d * static_cast<double>(b.count);
        });
        return std::sqrt(acc / static_cast<double>(total_));
    }

    // The value at or below which `percentile` % (0..100) of recorded values fall: the
    // value of rank round(p/100 · count) (at least 1), reported as the highest value equivalent
    // to it and clamped to [min, max]; ranks 1 and count are min and max, exactly.
    std::int64_t value_at_percentile(double percentile) const {
        if (total_ == 0) return 0;
        std::uint64_t rank = rank_of(percentile);
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < layout_.counts_length; ++i) {
            cumulative += counts_[i];
            if (cumulative >= rank) return value_of_rank(rank, i);
        }
        return max_;
    }
    // value_at_percentile(percentile), where `filled` lists the non-empty bucket indexes, lowest
    // first (what decode_hdr_v2 gives beside a histogram): it walks those alone.
    std::int64_t value_at_percentile(double percentile, const std::vector<std::size_t>& filled) const {
        if (total_ == 0) return 0;
        std::uint64_t rank = rank_of(percentile);
        std::uint64_t cumulative = 0;
        for (std::size_t i : filled) {
            cumulative += count_at_index(i);
            if (cumulative >= rank) return value_of_rank(rank, i);
        }
        return max_;
    }

    // Calls f(const histogram_bucket&) for each non-empty bucket, lowest first.
    template <class F>
    void for_each_recorded(F&& f) const {
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < layout_.counts_length && cumulative < total_; ++i) {
            if (counts_[i] == 0) continue;
            cumulative += counts_[i];
            std::int64_t low = value_at_index(i);
            f(histogram_bucket{low, highest_equivalent(low), counts_[i], cumulative});
        }
    }

    // Calls f(const histogram_percentile&) along HdrHistogram's percentile spectrum: steps of
    // 100/(2·ticks) % that halve each time the distance to 100 % halves, ending with 100 %.
    template <class F>
    void for_each_percentile(int ticks_per_half_distance, F&& f) const {
        if (total_ == 0 || ticks_per_half_distance < 1) return;
        std::size_t i = 0;
        std::uint64_t cumulative = counts_[0];
        for (double level = 0.0;;) {
            std::uint64_t rank = rank_of(level);
            while (cumulative < rank) cumulative += counts_[++i];
            if (cumulative >= total_ && level > 0.0) break;
            f(histogram_percentile{level, value_of_rank(rank, i), cumulative});
            if (cumulative >= total_) break;
            double halvings = std::floor(std::log2(100.0 / (100.0 - level)));
            level += 100.0 / (ticks_per_half_distance * std::pow(2.0, halvings + 1));
        }
        f(histogram_percentile{100.0, max_, total_});
    }

    // Bucket arithmetic, as in HdrHistogram: values in one bucket are "equivalent".
    std::int64_t lowest_equivalent(std::int64_t v) const {
        int b = bucket_of(v);
        return sub_bucket_of(v, b) << (b + layout_.unit_magnitude);
    }
    std::int64_t size_of_equivalent_range(std::int64_t v) const {
        int b = bucket_of(v);
        if (sub_bucket_of(v, b) >= layout_.sub_bucket_count) ++b;
        return std::int64_t{1} << (layout_.unit_magnitude + b);
    }
    std::int64_t highest_equivalent(std::int64_t v) const {
        return lowest_equivalent(v) + size_of_equivalent_range(v) - 1;
    }
    std::int64_t median_equivalent(std::int64_t v) const {
        return lowest_equivalent(v) + (size_of_equivalent_range(v) >> 1);
    }
    bool equivalent(std::int64_t a, std::int64_t b) const { return lowest_equivalent(a) == lowest_equivalent(b); }

    const histogram_config& config() const { return config_; }
    std::size_t counts_length() const { return layout_.counts_length; }
    std::uint64_t count_at_index(std::size_t i) const { return i < layout_.counts_length ? counts_[i] : 0; }
    std::int64_t value_at_index(std::size_t i) const {
        auto index = static_cast<std::int64_t>(i);
        int b = static_cast<int>(index >> layout_.sub_bucket_half_count_magnitude) - 1;
        std::int64_t sub = (index & (layout_.sub_bucket_half_count - 1)) + layout_.sub_bucket_half_count;
        if (b < 0) {
            sub -= layout_.sub_bucket_half_count;
            b = 0;
        }
        return sub << (b + layout_.unit_magnitude);
    }
    // Index of the bucket holding `value` (0 <= value <= highest_trackable_value).
    std::size_t index_of(std::int64_t value) const {
        int b = bucket_of(value);
        std::int64_t sub = sub_bucket_of(value, b);
        return static_cast<std::size_t>((static_cast<std::int64_t>(b + 1) << layout_.sub_bucket_half_count_magnitude) +
                                        (sub - layout_.sub_bucket_half_count));
    }

    // For decoders: installs totals that were recorded elsewhere. Counters must already hold
    // exactly `total` values; no checks beyond that are made here.
    void restore_totals(std::uint64_t total, std::uint64_t sum, std::int64_t min, std::int64_t max) {
        total_ = total;
        sum_ = sum;
        min_ = min;
        max_ = max;
    }
    void add_at_index(std::size_t i, std::uint64_t count) {
        if (i < layout_.counts_length) counts_[i] += count;
    }

private:
    std::uint64_t merge_counts(const histogram& other, const std::vector<std::size_t>* filled) {
        if (other.total_ == 0) return 0;
        if (!allocated()) return other.total_;
        bool same_layout = layout_.unit_magnitude == other.layout_.unit_magnitude &&
                           layout_.sub_bucket_count == other.layout_.sub_bucket_count;
        std::uint64_t dropped = 0, accepted = 0, approx_sum = 0;
        std::int64_t highest_accepted = 0;
        const std::size_t n = filled ? filled->size() : other.layout_.counts_length;
        for (std::size_t k = 0; k < n && accepted + dropped < other.total_; ++k) {
            const std::size_t i = filled ? (*filled)[k] : k;
            if (i >= other.layout_.counts_length) continue;
            std::uint64_t c = other.counts_[i];
            if (c == 0) continue;
            std::int64_t v = other.value_at_index(i);
            if (v > config_.highest_trackable_value) {
                dropped += c;
                continue;
            }
            counts_[same_layout ? i : index_of(v)] += c;
            accepted += c;
            approx_sum += static_cast<std::uint64_t>(other.median_equivalent(v)) * c;
            highest_accepted = other.highest_equivalent(v);
        }
        if (accepted == 0) return dropped;
        std::int64_t new_min = other.min_;
        std::int64_t new_max = other.max_;
        if (dropped == 0) {
            sum_ += other.sum_;
        } else {
            sum_ += approx_sum;
            new_max = std::min(highest_accepted, config_.highest_trackable_value);
        }
        if (total_ == 0) {
            min_ = new_min;
            max_ = new_max;
        } else {
            min_ = std::min(min_, new_min);
            max_ = std::max(max_, new_max);
        }
        total_ += accepted;
        return dropped;
    }

    void init_layout() {
        error e = detail::compute_histogram_layout(config_, layout_);
        MICROBENCH_ASSERT(!e && "invalid histogram_config: check it with validate() first");
    }
    // An anonymous mapping, not a vector or calloc: the kernel hands out zero pages lazily, so
    // only the pages that recording touches count toward RSS (a few of the 264 KiB for typical
    // latencies) — also for smaller layouts, which calloc would take from the heap and zero.
    void allocate_zeroed() {
        const std::size_t bytes = layout_.counts_length * sizeof(std::uint64_t);
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return forget_counts();  // allocated() says so
        owned_ = std::unique_ptr<std::uint64_t, detail::unmap_counts>(static_cast<std::uint64_t*>(p),
                                                                      detail::unmap_counts{bytes});
        counts_ = owned_.get();
    }
    void forget_counts() {  // no counters, and nothing counted
        counts_ = nullptr;
        layout_.counts_length = 0;
        total_ = sum_ = 0;
        min_ = max_ = 0;
    }
    int bucket_of(std::int64_t v) const {
        auto bits = static_cast<std::uint64_t>(v | layout_.sub_bucket_mask);
        int pow2ceiling = 64 - __builtin_clzll(bits);
        return pow2ceiling - layout_.unit_magnitude - (layout_.sub_bucket_half_count_magnitude + 1);
    }
    std::int64_t sub_bucket_of(std::int64_t v, int bucket) const { return v >> (bucket + layout_.unit_magnitude); }
    std::uint64_t rank_of(double percentile) const {
        double p = percentile > 0.0 ? (percentile < 100.0 ? percentile : 100.0) : 0.0;  // NaN: 0
        auto rank = static_cast<std::uint64_t>(p / 100.0 * static_cast<double>(total_) + 0.5);
        if (rank < 1) rank = 1;
        return rank > total_ ? total_ : rank;
    }
    // The value of rank `rank`, whose bucket is `index`: min and max are known exactly; other
    // ranks get the top of their bucket, which is never below the true value.
    std::int64_t value_of_rank(std::uint64_t rank, std::size_t index) const {
        if (rank <= 1) return min_;
        if (rank >= total_) return max_;
        std::int64_t v = highest_equivalent(value_at_index(index));
        return v < min_ ? min_ : (v > max_ ? max_ : v);
    }

    histogram_config config_;
    detail::histogram_layout layout_;
    std::unique_ptr<std::uint64_t, detail::unmap_counts> owned_;  // null when the caller provides storage
    std::uint64_t* counts_ = nullptr;
    std::uint64_t total_ = 0;
    std::uint64_t sum_ = 0;
    std::int64_t min_ = 0;
    std::int64_t max_ = 0;
};

}  // namespace microbench
