// HdrHistogram's .hgrm text (report/report_hgrm.hpp), byte for byte as HdrHistogram_c prints it:
// tests/data/hgrm holds what HdrHistogram_c 0.11.10 (commit 18c7a32) printed with
// hdr_percentiles_print(h, file, 5, scale, CLASSIC) after hdr_init(lowest, highest, figures) and
// hdr_record_value for each value below — its own implementation, not ours, made the files.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "microbench.hpp"

using namespace microbench;

namespace {

std::string golden(const char* name) {
    std::ifstream in(std::string(MICROBENCH_TESTS_DIR) + "/data/hgrm/" + name, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// 20,000 values from a 64-bit LCG: 50 us to 2.05 ms, one in a hundred 40 times that (a tail).
void record_lcg(histogram& h) {
    std::uint64_t x = 42;
    for (int i = 0; i < 20000; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        auto v = static_cast<std::int64_t>((x >> 33) % 2'000'000) + 50'000;
        if ((x >> 20) % 100 == 0) v *= 40;
        REQUIRE(h.record(v));
    }
}

}  // namespace

TEST_CASE("hgrm: the percentile spectrum is HdrHistogram_c's, byte for byte") {
    SUBCASE("nanoseconds in milliseconds, 3 figures (microbench's own histograms)") {
        histogram h;  // 1 ns to 1 h, 3 figures
        REQUIRE(h.config().lowest_discernible_value == 1);
        REQUIRE(h.config().highest_trackable_value == 3'600'000'000'000);
        record_lcg(h);
        std::string out;
        append_hgrm(h, 1e6, 5, out);
        const std::string expected = golden("lcg20000_ms.hgrm");
        REQUIRE(expected.size() > 1000);
        CHECK(out == expected);
    }
    SUBCASE("another layout: 1000 to 6e10, 2 figures, in thousands") {
        histogram h(histogram_config{1000, 60'000'000'000, 2});
        record_lcg(h);
        std::string out;
        append_hgrm(h, 1000, 5, out);
        CHECK(out == golden("lcg20000_us_2digits.hgrm"));
    }
    SUBCASE("five values, unscaled: several rows from one bucket, then the 100 % row; mean, deviation, max") {
        histogram h;
        for (std::int64_t v = 1; v <= 5; ++v) h.record(v);
        std::string out;
        append_hgrm(h, 1, 5, out);
        CHECK(out == golden("five_ns.hgrm"));
    }
}

TEST_CASE("hgrm: an empty histogram gives the 100 % row and a footer of zeros, not nan") {
    histogram h;
    std::string out;
    append_hgrm(h, 1e6, 5, out);
    CHECK(out == "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n"
                 "       0.000     1.000000            0          inf\n"
                 "#[Mean    =        0.000, StdDeviation   =        0.000]\n"
                 "#[Max     =        0.000, Total count    =            0]\n"
                 "#[Buckets =           32, SubBuckets     =         2048]\n");
}
