// microbench/stats/histogram_hdr.hpp — a histogram in HdrHistogram's own V2 encoding, the form its
// libraries (Java, C, .NET, JS, Go, Python) exchange and its interval logs carry, both ways.
// Uncompressed: a 40-byte big-endian header (cookie 0x1c849313, payload length, normalizing
// index offset 0, significant figures, lowest discernible and highest trackable value, the
// integer-to-double ratio 1.0; a decoder ignores the offset and the ratio, as HdrHistogram.NET
// and hdr-histogram-js do, whose writer puts 1 in both: the counts come in value order), then a
// count per bucket index up to the highest one in use, each a ZigZag LEB128 number of at most 9
// bytes, a run of k > 1 empty buckets written as -k.
// Compressed: cookie 0x1c849314, the zlib stream's length, the zlib stream of the uncompressed
// form. The bucket indexes are HdrHistogram's, so the bytes equal its libraries' for the same
// counts (zlib aside: microbench stores, they deflate). Decoding rebuilds the counts exactly; as
// in HdrHistogram, min and max become their buckets' edges and the sum comes from bucket middles.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../core/error.hpp"
#include "../core/zlib.hpp"
#include "histogram.hpp"

namespace microbench {

namespace detail {

constexpr std::uint32_t hdr_v2_cookie = 0x1c849313;
constexpr std::uint32_t hdr_v2_compressed_cookie = 0x1c849314;
constexpr std::size_t hdr_v2_header_bytes = 40;

inline void put_be(std::string& out, std::uint64_t v, int bytes) {
    for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}
inline std::uint64_t get_be(std::string_view in, std::size_t at, int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = v << 8 | static_cast<unsigned char>(in[at + static_cast<std::size_t>(i)]);
    return v;
}

// ZigZag, then LEB128 in at most 9 bytes: eight of 7 bits, the ninth whole (HdrHistogram's ZigZagEncoding).
inline void put_zigzag(std::string& out, std::int64_t value) {
    std::uint64_t v = (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
    for (int i = 0; i < 8; ++i) {
        if (v < 0x80) {
            out.push_back(static_cast<char>(v));
            return;
        }
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}
// False when the input ends inside the number.
inline bool get_zigzag(std::string_view in, std::size_t& pos, std::int64_t& value) {
    std::uint64_t v = 0;
    for (int i = 0; i < 9; ++i) {
        if (pos == in.size()) return false;
        const auto byte = static_cast<unsigned char>(in[pos++]);
        if (i == 8) {
            v |= static_cast<std::uint64_t>(byte) << 56;
            break;
        }
        v |= static_cast<std::uint64_t>(byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) break;
    }
    value = static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
    return true;
}

}  // namespace detail

// Appends `h` in the uncompressed V2 encoding.
inline void encode_hdr_v2(const histogram& h, std::string& out) {
    using namespace detail;
    // Up to the highest index in use, at least one: what HdrHistogram writes for an empty histogram too.
    std::size_t n = 1;
    for (std::size_t i = h.counts_length(); i > 0; --i)
        if (h.count_at_index(i - 1)) {
            n = i;
            break;
        }
    std::string payload;
    for (std::size_t i = 0; i < n;) {
        const std::uint64_t count = h.count_at_index(i++);
        std::size_t zeros = 0;
        if (count == 0)
            for (zeros = 1; i < n && h.count_at_index(i) == 0; ++i) ++zeros;
        put_zigzag(payload, zeros > 1 ? -static_cast<std::int64_t>(zeros) : static_cast<std::int64_t>(count));
    }
    const histogram_config& c = h.config();
    double ratio = 1.0;
    std::uint64_t ratio_bits = 0;
    std::memcpy(&ratio_bits, &ratio, sizeof ratio_bits);
    put_be(out, hdr_v2_cookie, 4);
    put_be(out, payload.size(), 4);
    put_be(out, 0, 4);  // normalizing index offset
    put_be(out, static_cast<std::uint64_t>(c.significant_figures), 4);
    put_be(out, static_cast<std::uint64_t>(c.lowest_discernible_value), 8);
    put_be(out, static_cast<std::uint64_t>(c.highest_trackable_value), 8);
    put_be(out, ratio_bits, 8);
    out += payload;
}

// Appends `h` in the compressed V2 encoding (what an interval log's rows hold, before base64).
inline void encode_hdr_v2_compressed(const histogram& h, std::string& out) {
    std::string plain, framed;
    encode_hdr_v2(h, plain);
    zlib_store(plain, framed);
    detail::put_be(out, detail::hdr_v2_compressed_cookie, 4);
    detail::put_be(out, framed.size(), 4);
    out += framed;
}

// What decode_hdr_v2 may take, and what it tells beside the histogram.
struct hdr_v2_decoding {
    std::size_t max_bytes = SIZE_MAX;             // the most its counters may take (histogram::memory_bytes)
    histogram_config layout{};                    // out: the layout the header declares, also when refused
    std::vector<std::size_t>* filled = nullptr;   // out: the non-empty bucket indexes, lowest first,
                                                  // for histogram::merge(h, *filled)
};

// Replaces `out` with the histogram `in` holds, in the V2 encoding, compressed or not (the cookie
// tells). errc::histogram_encoding_bad_magic: not a V2 encoding (V0 and V1, HdrHistogram's before
// 2.1.8, and DoubleHistogram's are not read); histogram_encoding_truncated / _corrupt: the bytes
// end early or disagree with themselves (a bad zlib stream, a bucket past the layout);
// histogram_bad_config: a layout microbench cannot hold (it needs 1 to 5
// significant figures); histogram_too_large: a layout whose counters take more than `d`'s
// max_bytes; out_of_memory: they could not be allocated. Counts beyond 2^63 are corrupt.
inline error decode_hdr_v2(std::string_view in, histogram& out, hdr_v2_decoding* d = nullptr) {
    using namespace detail;
    if (in.size() < 8) return {errc::histogram_encoding_truncated, 0};
    std::string inflated;
    const auto cookie = static_cast<std::uint32_t>(get_be(in, 0, 4));
    if ((cookie & ~0xf0u) == (hdr_v2_compressed_cookie & ~0xf0u)) {
        const std::uint64_t length = get_be(in, 4, 4);
        if (in.size() - 8 < length) return {errc::histogram_encoding_truncated, 0};
        // The header states the payload length; a bucket takes a byte at least, so no honest
        // histogram of microbench's largest layout inflates past a few megabytes.
        if (error e = zlib_inflate(in.substr(8, static_cast<std::size_t>(length)), inflated, std::size_t{64} << 20))
            return e;
        in = inflated;
        if (in.size() < 4) return {errc::histogram_encoding_truncated, 0};
    }
    if ((get_be(in, 0, 4) & ~0xf0u) != (hdr_v2_cookie & ~0xf0u)) return {errc::histogram_encoding_bad_magic, 0};
    if (in.size() < hdr_v2_header_bytes) return {errc::histogram_encoding_truncated, 0};
    const std::uint64_t payload_length = get_be(in, 4, 4);
    histogram_config config;
    config.significant_figures = static_cast<int>(get_be(in, 12, 4));
    config.lowest_discernible_value = static_cast<std::int64_t>(get_be(in, 16, 8));
    config.highest_trackable_value = static_cast<std::int64_t>(get_be(in, 24, 8));
    if (get_be(in, 12, 4) > 5) return {errc::histogram_bad_config, 0};
    if (error e = validate(config)) return e;
    if (in.size() - hdr_v2_header_bytes < payload_length) return {errc::histogram_encoding_truncated, 0};
    const std::string_view payload = in.substr(hdr_v2_header_bytes, static_cast<std::size_t>(payload_length));
    std::vector<std::size_t>* filled = d ? d->filled : nullptr;
    if (d) d->layout = config;
    if (d && histogram::memory_bytes(config) > d->max_bytes) return {errc::histogram_too_large, 0};
    histogram h(config);
    if (!h.allocated()) return {errc::out_of_memory, 0};
    if (filled) filled->clear();
    std::size_t pos = 0, index = 0;
    std::uint64_t total = 0;
    double sum = 0;
    std::size_t lowest = SIZE_MAX, highest = 0;
    while (pos < payload.size()) {
        std::int64_t v = 0;
        if (!get_zigzag(payload, pos, v)) return {errc::histogram_encoding_truncated, 0};
        if (v < 0) {
            const auto zeros = static_cast<std::uint64_t>(-(v + 1)) + 1;  // -INT64_MIN without overflow
            if (zeros > h.counts_length() - index) return {errc::histogram_encoding_corrupt, 0};
            index += static_cast<std::size_t>(zeros);
            continue;
        }
        if (index >= h.counts_length()) return {errc::histogram_encoding_corrupt, 0};
        const auto count = static_cast<std::uint64_t>(v);
        if (count) {
            if (count > (std::uint64_t{1} << 63) - total) return {errc::histogram_encoding_corrupt, 0};
            h.add_at_index(index, count);
            total += count;
            sum += static_cast<double>(h.median_equivalent(h.value_at_index(index))) * static_cast<double>(count);
            if (lowest == SIZE_MAX) lowest = index;
            highest = index;
            if (filled) filled->push_back(index);
        }
        ++index;
    }
    if (total) {
        const std::uint64_t whole_sum = sum < 1.8e19 ? static_cast<std::uint64_t>(sum) : UINT64_MAX;
        h.restore_totals(total, whole_sum, h.value_at_index(lowest), h.highest_equivalent(h.value_at_index(highest)));
    }
    out = std::move(h);
    return {};
}

}  // namespace microbench
