// microbench/stats/histogram_codec.hpp — a compact, versioned byte form of a histogram and its parser,
// so results from several processes or machines can be merged exactly; base64 for JSON.
// Format v1, all integers unsigned LEB128:
//   'M' 'B' 'H' 0x01 · lowest · highest · figures · count · sum · min · max · n ·
//   n counter slots, run-length coded: 2·c for a counter holding c > 0, 2·k+1 for k empty ones.
// The decoder trusts nothing: every field is checked and a bad input is an error, never a crash.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "../core/error.hpp"
#include "histogram.hpp"

namespace microbench {

namespace detail {

constexpr unsigned char histogram_magic[3] = {'M', 'B', 'H'};
constexpr unsigned char histogram_format_version = 1;

inline void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

class byte_reader {
public:
    explicit byte_reader(std::string_view in) : in_(in) {}
    // errc::ok, or truncated / corrupt (more than 64 bits).
    errc varint(std::uint64_t& v) {
        v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos_ == in_.size()) return errc::histogram_encoding_truncated;
            auto byte = static_cast<unsigned char>(in_[pos_++]);
            std::uint64_t bits = byte & 0x7fu;
            if (shift == 63 && bits > 1) return errc::histogram_encoding_corrupt;
            v |= bits << shift;
            if (!(byte & 0x80)) return errc::ok;
        }
        return errc::histogram_encoding_corrupt;
    }
    std::size_t position() const { return pos_; }
    bool at_end() const { return pos_ == in_.size(); }

private:
    std::string_view in_;
    std::size_t pos_ = 0;
};

}  // namespace detail

// Replaces `out` with the encoding of `h`.
inline void encode_histogram(const histogram& h, std::string& out) {
    using detail::put_varint;
    out.clear();
    for (unsigned char c : detail::histogram_magic) out.push_back(static_cast<char>(c));
    out.push_back(static_cast<char>(detail::histogram_format_version));
    const histogram_config& c = h.config();
    put_varint(out, static_cast<std::uint64_t>(c.lowest_discernible_value));
    put_varint(out, static_cast<std::uint64_t>(c.highest_trackable_value));
    put_varint(out, static_cast<std::uint64_t>(c.significant_figures));
    put_varint(out, h.count());
    put_varint(out, h.sum());
    put_varint(out, static_cast<std::uint64_t>(h.min()));
    put_varint(out, static_cast<std::uint64_t>(h.max()));
    std::size_t n = 0;
    for (std::size_t i = 0; i < h.counts_length(); ++i)
        if (h.count_at_index(i)) n = i + 1;
    put_varint(out, n);
    for (std::size_t i = 0; i < n;) {
        std::uint64_t count = h.count_at_index(i);
        if (count) {
            put_varint(out, count << 1);
            ++i;
            continue;
        }
        std::uint64_t run = 0;
        while (i < n && h.count_at_index(i) == 0) {
            ++run;
            ++i;
        }
        put_varint(out, (run << 1) | 1);
    }
}

// Parses `in` into `out` (which gets the encoded configuration). On error `out` is unchanged;
// the position is the byte offset where the fault was found.
inline error decode_histogram(std::string_view in, histogram& out) {
    constexpr std::size_t header = sizeof(detail::histogram_magic) + 1;
    for (std::size_t i = 0; i < sizeof(detail::histogram_magic); ++i) {
        if (i == in.size()) return {errc::histogram_encoding_truncated, i};
        if (static_cast<unsigned char>(in[i]) != detail::histogram_magic[i])
            return {errc::histogram_encoding_bad_magic, i};
    }
    if (in.size() < header) return {errc::histogram_encoding_truncated, in.size()};
    if (static_cast<unsigned char>(in[3]) != detail::histogram_format_version)
        return {errc::histogram_encoding_bad_version, 3};

    detail::byte_reader r(in.substr(header));
    auto at = [&r] { return header + r.position(); };
    std::uint64_t f[8];  // lowest, highest, figures, count, sum, min, max, n
    for (std::uint64_t& v : f)
        if (errc e = r.varint(v); e != errc::ok) return {e, at()};
    const std::uint64_t int64_max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (f[0] > int64_max || f[1] > int64_max || f[2] > 5 || f[5] > f[1] || f[6] > f[1])
        return {errc::histogram_encoding_corrupt, header};
    histogram_config config{static_cast<std::int64_t>(f[0]), static_cast<std::int64_t>(f[1]), static_cast<int>(f[2])};
    if (validate(config)) return {errc::histogram_encoding_corrupt, header};
    const std::uint64_t total = f[3], sum = f[4], n = f[7];
    const auto min = static_cast<std::int64_t>(f[5]), max = static_cast<std::int64_t>(f[6]);

    histogram h(config);
    if (!h.allocated()) return {errc::out_of_memory, header};
    if (n > h.counts_length()) return {errc::histogram_encoding_corrupt, at()};
    std::uint64_t counted = 0;
    std::size_t first = 0, last = 0;
    for (std::size_t i = 0; i < n;) {
        std::uint64_t v;
        std::size_t entry_at = at();
        if (errc e = r.varint(v); e != errc::ok) return {e, at()};
        std::uint64_t amount = v >> 1;
        if (amount == 0 || ((v & 1) && amount > n - i)) return {errc::histogram_encoding_corrupt, entry_at};
        if (v & 1) {
            i += static_cast<std::size_t>(amount);
            continue;
        }
        if (amount > ~counted) return {errc::histogram_encoding_corrupt, entry_at};
        if (counted == 0) first = i;
        last = i;
        counted += amount;
        h.add_at_index(i++, amount);
    }
    if (!r.at_end()) return {errc::histogram_encoding_corrupt, at()};
    // The totals must agree with the counters: count exactly, min and max by bucket.
    bool consistent = counted == total &&
                      (total == 0 ? (min == 0 && max == 0 && sum == 0)
                                  : (min <= max && h.index_of(min) == first && h.index_of(max) == last));
    if (!consistent) return {errc::histogram_encoding_corrupt, header};
    h.restore_totals(total, sum, min, max);
    out = std::move(h);
    return {};
}

namespace detail {

constexpr char base64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

}  // namespace detail

// Standard base64 with padding (RFC 4648 §4).
inline void base64_encode(std::string_view in, std::string& out) {
    out.clear();
    out.reserve((in.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < in.size(); i += 3) {
        std::uint32_t chunk = static_cast<std::uint32_t>(static_cast<unsigned char>(in[i])) << 16;
        if (i + 1 < in.size()) chunk |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[i + 1])) << 8;
        if (i + 2 < in.size()) chunk |= static_cast<unsigned char>(in[i + 2]);
        out.push_back(detail::base64_alphabet[(chunk >> 18) & 63]);
        out.push_back(detail::base64_alphabet[(chunk >> 12) & 63]);
        out.push_back(i + 1 < in.size() ? detail::base64_alphabet[(chunk >> 6) & 63] : '=');
        out.push_back(i + 2 < in.size() ? detail::base64_alphabet[chunk & 63] : '=');
    }
}

// False for anything that is not padded base64.
inline bool base64_decode(std::string_view in, std::string& out) {
    out.clear();
    if (in.size() % 4) return false;
    for (std::size_t i = 0; i < in.size(); i += 4) {
        bool final_group = i + 4 == in.size();
        int pad = final_group ? (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=') : 0;
        std::uint32_t chunk = 0;
        for (int k = 0; k < 4; ++k) {
            int v = k >= 4 - pad ? 0 : detail::base64_value(in[i + static_cast<std::size_t>(k)]);
            if (v < 0) return false;
            chunk = (chunk << 6) | static_cast<std::uint32_t>(v);
        }
        out.push_back(static_cast<char>(chunk >> 16));
        if (pad < 2) out.push_back(static_cast<char>((chunk >> 8) & 0xff));
        if (pad < 1) out.push_back(static_cast<char>(chunk & 0xff));
    }
    return true;
}

}  // namespace microbench
