// Tests for histogram_codec.hpp: exact round trips, a golden encoding, and a decoder that turns
// every truncation, flipped byte and inconsistent field into an error.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "microbench.hpp"

using namespace microbench;

namespace {

bool same(const histogram& a, const histogram& b) {
    if (a.count() != b.count() || a.min() != b.min() || a.max() != b.max() || a.sum() != b.sum() ||
        a.counts_length() != b.counts_length())
        return false;
    for (std::size_t i = 0; i < a.counts_length(); ++i)
        if (a.count_at_index(i) != b.count_at_index(i)) return false;
    return true;
}

histogram sample_histogram() {
    histogram h;
    std::mt19937_64 rng(1);
    std::lognormal_distribution<double> d(10.0, 1.5);
    for (int i = 0; i < 20'000; ++i) h.record(static_cast<std::int64_t>(d(rng)));
    return h;
}

}  // namespace

TEST_CASE("encode then decode gives back the same histogram") {
    histogram h = sample_histogram();
    std::string bytes;
    encode_histogram(h, bytes);
    std::size_t nonzero = 0;
    for (std::size_t i = 0; i < h.counts_length(); ++i) nonzero += h.count_at_index(i) != 0;
    CHECK(bytes.size() <= 40 + 3 * nonzero);  // compact: a few bytes per used bucket, not 270 KB
    MESSAGE(bytes.size(), " bytes for ", nonzero, " non-empty buckets");
    histogram back({10, 1000, 1});
    REQUIRE_FALSE(decode_histogram(bytes, back));
    CHECK(same(h, back));
    CHECK(back.config().significant_figures == 3);
    CHECK(back.value_at_percentile(99.9) == h.value_at_percentile(99.9));

    histogram empty;
    encode_histogram(empty, bytes);
    REQUIRE_FALSE(decode_histogram(bytes, back));
    CHECK(back.empty());
    CHECK(back.counts_length() == empty.counts_length());
}

TEST_CASE("the v1 layout, byte by byte") {
    histogram h({1, 1000, 1});
    h.record(3, 2);
    h.record(5);
    std::string bytes;
    encode_histogram(h, bytes);
    const unsigned char expected[] = {
        'M', 'B', 'H', 1,   // magic, version
        1, 0xe8, 0x07, 1,   // lowest 1, highest 1000, 1 figure
        3, 11, 3, 5,        // count 3, sum 11, min 3, max 5
        6,                  // 6 counter slots follow
        (3 << 1) | 1,       // 3 empty (0, 1, 2)
        2 << 1,             // value 3: 2
        (1 << 1) | 1,       // value 4: empty
        1 << 1,             // value 5: 1
    };
    CHECK(bytes == std::string(reinterpret_cast<const char*>(expected), sizeof expected));
}

TEST_CASE("every truncation is an error, never a crash") {
    std::string bytes;
    encode_histogram(sample_histogram(), bytes);
    for (std::size_t len = 0; len < bytes.size(); ++len) {
        CAPTURE(len);
        histogram out;
        error e = decode_histogram(std::string_view(bytes).substr(0, len), out);
        CHECK((e.code == errc::histogram_encoding_truncated || e.code == errc::histogram_encoding_corrupt));
        CHECK(out.empty());  // unchanged on error
    }
}

TEST_CASE("flipped bytes are caught or decode to a consistent histogram") {
    std::string good;
    encode_histogram(sample_histogram(), good);
    std::mt19937 rng(5);
    int caught = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        std::string bad = good;
        std::size_t at = rng() % bad.size();
        bad[at] = static_cast<char>(bad[at] ^ (1 + rng() % 255));
        histogram out;
        error e = decode_histogram(bad, out);
        if (e) {
            ++caught;
            continue;
        }
        std::uint64_t total = 0;  // a decoded histogram is always self-consistent
        for (std::size_t i = 0; i < out.counts_length(); ++i) total += out.count_at_index(i);
        CHECK(total == out.count());
        CHECK(out.min() <= out.max());
    }
    CHECK(caught > 1900);
}

TEST_CASE("named decoding errors") {
    histogram out;
    CHECK(decode_histogram("XBH\x01", out).code == errc::histogram_encoding_bad_magic);
    CHECK(decode_histogram("MB", out).code == errc::histogram_encoding_truncated);
    CHECK(decode_histogram(std::string("MBH\x02", 4), out).code == errc::histogram_encoding_bad_version);
    std::string bytes;
    encode_histogram(sample_histogram(), bytes);
    CHECK(decode_histogram(bytes + '\0', out).code == errc::histogram_encoding_corrupt);
    // count field that disagrees with the counters
    histogram h({1, 1000, 1});
    h.record(3);
    encode_histogram(h, bytes);
    bytes[8] = 2;
    CHECK(decode_histogram(bytes, out).code == errc::histogram_encoding_corrupt);
    // an 11-byte varint
    CHECK(decode_histogram(std::string("MBH\x01") + std::string(10, '\xff') + '\x01', out).code ==
          errc::histogram_encoding_corrupt);
}

TEST_CASE("base64 round trip and rejection") {
    std::string text, back;
    for (std::string raw : {std::string(""), std::string("f"), std::string("fo"), std::string("foo"),
                            std::string("foob"), std::string("\x00\xff\x10", 3)}) {
        base64_encode(raw, text);
        REQUIRE(base64_decode(text, back));
        CHECK(back == raw);
    }
    base64_encode("foobar", text);
    CHECK(text == "Zm9vYmFy");
    base64_encode("fooba", text);
    CHECK(text == "Zm9vYmE=");
    CHECK_FALSE(base64_decode("Zm9", back));
    CHECK_FALSE(base64_decode("Zm9v!mFy", back));
    CHECK_FALSE(base64_decode("Zm=v", back));
}
