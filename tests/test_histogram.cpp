// Tests for histogram.hpp: percentiles against exact sorted arrays for several distributions and
// precisions, exact count/min/max/sum, merging, correction, caller storage and edge cases.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "microbench.hpp"

using namespace microbench;

namespace {

std::vector<std::int64_t> make_values(const char* shape, std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::int64_t> v(n);
    std::string s = shape;
    if (s == "uniform") {
        std::uniform_int_distribution<std::int64_t> d(0, 10'000'000);
        for (auto& x : v) x = d(rng);
    } else if (s == "lognormal") {  // loopback-like latencies around 40 µs with a long tail, in ns
        std::lognormal_distribution<double> d(std::log(40'000.0), 1.0);
        for (auto& x : v) x = static_cast<std::int64_t>(d(rng));
    } else if (s == "bimodal") {  // fast cache hits and slow misses
        std::normal_distribution<double> fast(50'000, 5'000), slow(20'000'000, 2'000'000);
        std::bernoulli_distribution pick_slow(0.1);
        for (auto& x : v) x = std::max<std::int64_t>(0, static_cast<std::int64_t>(pick_slow(rng) ? slow(rng) : fast(rng)));
    } else {  // constant
        for (auto& x : v) x = 123'456;
    }
    return v;
}

// The exact value of the histogram's percentile definition: rank round(p/100·n), at least 1.
std::int64_t exact_percentile(const std::vector<std::int64_t>& sorted, double p) {
    auto rank = static_cast<std::size_t>(p / 100.0 * static_cast<double>(sorted.size()) + 0.5);
    rank = std::max<std::size_t>(rank, 1);
    return sorted[rank - 1];
}

const double percentiles[] = {0, 1, 10, 25, 50, 66, 75, 90, 95, 99, 99.9, 99.99, 100};

}  // namespace

TEST_CASE("memory depends only on the configuration and matches HdrHistogram's layout") {
    // HdrHistogram's documented example: 1 µs … 1 h (in µs) at 3 digits uses 23552 counters.
    CHECK(histogram::counts_needed({1, 3'600'000'000LL, 3}) == 23552);
    // microbench's default: 1 ns … 1 h (in ns) at 3 digits.
    CHECK(histogram::counts_needed({}) == 33792);
    CHECK(histogram::memory_bytes({}) == 33792 * 8);
    histogram h;
    CHECK(h.counts_length() == 33792);
    CHECK(histogram::counts_needed({0, 100, 3}) == 0);
}

TEST_CASE("record_clamped counts every value, out-of-range ones at the nearest edge") {
    histogram h;
    const std::int64_t top = h.config().highest_trackable_value;
    CHECK(h.record_clamped(1'000));
    CHECK_FALSE(h.record_clamped(top + 5'000'000'000));  // a 1 h timeout plus scan lag
    CHECK_FALSE(h.record_clamped(-3));
    CHECK(h.count() == 3);
    CHECK(h.max() == top);
    CHECK(h.min() == 0);
    CHECK_FALSE(h.record(top + 1));  // record() itself still refuses
    CHECK(h.count() == 3);
}

TEST_CASE("validate rejects impossible configurations") {
    CHECK_FALSE(validate(histogram_config{}));
    CHECK(validate({0, 1000, 3}).code == errc::histogram_bad_config);
    CHECK(validate({1, 1000, 0}).code == errc::histogram_bad_config);
    CHECK(validate({1, 1000, 6}).code == errc::histogram_bad_config);
    CHECK(validate({100, 199, 3}).code == errc::histogram_bad_config);
    CHECK_FALSE(validate({100, 200, 3}));
    CHECK_FALSE(validate({1, std::numeric_limits<std::int64_t>::max(), 5}));
}

TEST_CASE("percentiles are within the configured precision of the exact value") {
    for (const char* shape : {"uniform", "lognormal", "bimodal", "constant"}) {
        for (int figures : {1, 2, 3, 4}) {
            CAPTURE(shape);
            CAPTURE(figures);
            std::vector<std::int64_t> values = make_values(shape, 100'000, 42);
            histogram h({1, 10'000'000'000LL, figures});
            for (std::int64_t v : values) REQUIRE(h.record(v));
            std::sort(values.begin(), values.end());
            CHECK(h.count() == values.size());
            CHECK(h.min() == values.front());
            CHECK(h.max() == values.back());
            long double exact_sum = 0;
            for (std::int64_t v : values) exact_sum += v;
            CHECK(h.sum() == static_cast<std::uint64_t>(exact_sum));
            CHECK(h.mean() == doctest::Approx(static_cast<double>(exact_sum / values.size())).epsilon(1e-12));
            double precision = std::pow(10.0, -figures);
            for (double p : percentiles) {
                CAPTURE(p);
                std::int64_t exact = exact_percentile(values, p);
                std::int64_t got = h.value_at_percentile(p);
                CHECK(got >= exact);  // the reported value is the top of the exact value's bucket
                CHECK(static_cast<double>(got - exact) <= static_cast<double>(exact) * precision);
            }
            CHECK(h.value_at_percentile(0) == values.front());
            CHECK(h.value_at_percentile(100) == values.back());
        }
    }
}

// Regression: NaN was cast to an integer rank (undefined; on x86-64 it gave the maximum).
TEST_CASE("a percentile outside 0..100, or NaN, is taken at the nearest end, NaN at 0") {
    histogram h({1, 1'000'000, 3});
    for (std::int64_t v = 1; v <= 1000; ++v) REQUIRE(h.record(v * 100));
    CHECK(h.value_at_percentile(-5) == h.value_at_percentile(0));
    CHECK(h.value_at_percentile(250) == h.value_at_percentile(100));
    CHECK(h.value_at_percentile(std::nan("")) == h.value_at_percentile(0));
    CHECK(h.value_at_percentile(0) == 100);
}

TEST_CASE("stddev agrees with the exact value within the precision") {
    std::vector<std::int64_t> values = make_values("lognormal", 50'000, 7);
    histogram h;
    long double sum = 0, sq = 0;
    for (std::int64_t v : values) {
        h.record(v);
        sum += v;
    }
    long double mean = sum / values.size();
    for (std::int64_t v : values) sq += (v - mean) * (v - mean);
    double exact = static_cast<double>(std::sqrt(sq / values.size()));
    CHECK(h.stddev() == doctest::Approx(exact).epsilon(1e-3));
}

TEST_CASE("merging k parts equals the histogram of the whole") {
    for (const char* shape : {"uniform", "lognormal", "bimodal", "constant"}) {
        CAPTURE(shape);
        std::vector<std::int64_t> values = make_values(shape, 40'000, 99);
        histogram whole;
        std::vector<histogram> parts(5);
        for (std::size_t i = 0; i < values.size(); ++i) {
            whole.record(values[i]);
            parts[i % parts.size()].record(values[i]);
        }
        histogram merged;
        for (const histogram& part : parts) CHECK(merged.merge(part) == 0);
        CHECK(merged.count() == whole.count());
        CHECK(merged.min() == whole.min());
        CHECK(merged.max() == whole.max());
        CHECK(merged.sum() == whole.sum());
        bool same_counts = true;
        for (std::size_t i = 0; i < whole.counts_length(); ++i)
            same_counts = same_counts && merged.count_at_index(i) == whole.count_at_index(i);
        CHECK(same_counts);
        for (double p : percentiles) CHECK(merged.value_at_percentile(p) == whole.value_at_percentile(p));
    }
}

TEST_CASE("merge across layouts keeps count, min, max and reports what it drops") {
    histogram fine({1, 1'000'000'000, 3});
    for (std::int64_t v : {5, 1000, 50'000, 900'000'000}) fine.record(v);
    histogram coarse({1000, 1'000'000, 2});
    coarse.record(2000);
    CHECK(coarse.merge(fine) == 1);  // 900 ms is above coarse's 1 ms ceiling
    CHECK(coarse.count() == 4);
    CHECK(coarse.min() == 5);
    CHECK(coarse.max() <= 1'000'000);
    CHECK(coarse.max() >= 50'000);

    histogram wide({1, 10'000'000'000LL, 3});
    wide.record(7);
    CHECK(wide.merge(fine) == 0);
    CHECK(wide.count() == 5);
    CHECK(wide.min() == 5);
    CHECK(wide.max() == 900'000'000);
    CHECK(wide.sum() == 7 + 5 + 1000 + 50'000 + 900'000'000);

    histogram empty;
    CHECK(empty.merge(histogram{}) == 0);
    CHECK(empty.empty());
}

TEST_CASE("record refuses negative values and values above the ceiling") {
    histogram h({1, 1000, 3});
    CHECK_FALSE(h.record(-1));
    CHECK_FALSE(h.record(1001));
    CHECK(h.record(1000));
    CHECK(h.record(0));
    CHECK(h.record(5, 0));  // a zero count records nothing
    CHECK(h.count() == 2);
    CHECK(h.min() == 0);
    CHECK(h.max() == 1000);
}

TEST_CASE("record_corrected fills in the requests a stalled closed loop did not send") {
    histogram h;
    CHECK(h.record_corrected(1000, 100));
    CHECK(h.count() == 10);  // 1000, 900, …, 100
    CHECK(h.min() == 100);
    CHECK(h.sum() == 5500);
    histogram plain;
    CHECK(plain.record_corrected(50, 100));
    CHECK(plain.count() == 1);
    CHECK(plain.record_corrected(50, 0));
    CHECK(plain.count() == 2);
}

TEST_CASE("empty histograms report zeros and iterate nothing") {
    histogram h;
    CHECK(h.empty());
    CHECK(h.min() == 0);
    CHECK(h.max() == 0);
    CHECK(h.mean() == 0.0);
    CHECK(h.stddev() == 0.0);
    CHECK(h.value_at_percentile(99) == 0);
    int calls = 0;
    h.for_each_recorded([&](const histogram_bucket&) { ++calls; });
    h.for_each_percentile(5, [&](const histogram_percentile&) { ++calls; });
    CHECK(calls == 0);
}

TEST_CASE("for_each_recorded walks non-empty buckets upward with running totals") {
    histogram h;
    for (std::int64_t v : {3, 3, 70'000, 5'000'000, 5'000'001}) h.record(v);
    std::vector<histogram_bucket> seen;
    h.for_each_recorded([&](const histogram_bucket& b) { seen.push_back(b); });
    REQUIRE(seen.size() == 3);  // 5'000'000 and 5'000'001 share a bucket at 3 digits
    CHECK(seen[0].lowest_value == 3);
    CHECK(seen[0].count == 2);
    CHECK(seen[1].lowest_value <= 70'000);
    CHECK(seen[1].highest_value >= 70'000);
    CHECK(seen[2].count == 2);
    CHECK(seen[2].cumulative_count == 5);
}

TEST_CASE("the percentile spectrum rises to 100 % and agrees with value_at_percentile") {
    std::vector<std::int64_t> values = make_values("lognormal", 10'000, 3);
    histogram h;
    for (std::int64_t v : values) h.record(v);
    std::vector<histogram_percentile> steps;
    h.for_each_percentile(5, [&](const histogram_percentile& p) { steps.push_back(p); });
    REQUIRE(steps.size() > 20);
    CHECK(steps.front().percentile == 0.0);
    CHECK(steps.back().percentile == 100.0);
    CHECK(steps.back().value == h.max());
    CHECK(steps.back().cumulative_count == h.count());
    for (std::size_t i = 1; i < steps.size(); ++i) {
        CHECK(steps[i].percentile > steps[i - 1].percentile);
        CHECK(steps[i].value >= steps[i - 1].value);
    }
    for (const histogram_percentile& p : steps) CHECK(p.value == h.value_at_percentile(p.percentile));

    histogram one;
    one.record(42);
    steps.clear();
    one.for_each_percentile(5, [&](const histogram_percentile& p) { steps.push_back(p); });
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].value == 42);
    CHECK(steps[1].percentile == 100.0);
}

TEST_CASE("bucket equivalence") {
    histogram h({1, 3'600'000'000'000LL, 3});
    CHECK(h.size_of_equivalent_range(1000) == 1);  // below 2048 every integer has its own bucket
    CHECK(h.lowest_equivalent(2047) == 2047);
    CHECK(h.size_of_equivalent_range(10'000) == 8);
    CHECK(h.lowest_equivalent(10'007) == 10'000);
    CHECK(h.highest_equivalent(10'000) == 10'007);
    CHECK(h.median_equivalent(10'000) == 10'004);
    CHECK(h.equivalent(10'000, 10'007));
    CHECK_FALSE(h.equivalent(10'000, 10'008));
    for (std::int64_t v : {0LL, 1LL, 2048LL, 123'456'789LL, 3'600'000'000'000LL}) {
        CHECK(h.value_at_index(h.index_of(v)) == h.lowest_equivalent(v));
        CHECK(h.index_of(v) < h.counts_length());
    }
}

TEST_CASE("caller-provided storage: no allocation, copies own their counters") {
    histogram_config cfg{1000, 60'000'000'000LL, 2};
    std::vector<std::uint64_t> storage(histogram::counts_needed(cfg), 7);  // dirty on purpose
    histogram h(cfg, storage.data(), storage.size());
    CHECK(h.empty());
    h.record(123'000);
    histogram copy = h;
    copy.record(5'000);
    CHECK(h.count() == 1);
    CHECK(copy.count() == 2);
    std::uint64_t in_storage = 0;
    for (std::uint64_t c : storage) in_storage += c;
    CHECK(in_storage == 1);
    histogram moved = std::move(copy);
    CHECK(moved.count() == 2);
    h.reset();
    CHECK(h.empty());
    CHECK(h.value_at_percentile(50) == 0);
}
