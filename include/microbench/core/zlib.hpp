// microbench/core/zlib.hpp — zlib streams (RFC 1950) both ways, with no library: zlib_store()
// frames bytes in deflate's stored blocks (no compression: what HdrHistogram's logs need is the
// framing, and stored blocks keep the writer a few lines), zlib_inflate() reads any deflate stream
// (RFC 1951: stored, fixed and dynamic Huffman blocks) as zlib, Java's Deflater, .NET's
// DeflateStream and pako write it. The reader trusts nothing: a bad header, block, code, distance
// or Adler-32 is an error value, never a read past the input, and the output never grows past the
// caller's limit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "error.hpp"

namespace microbench {

// Adler-32 of `in`, continuing from `a` (1 for a new stream).
inline std::uint32_t adler32(std::string_view in, std::uint32_t a = 1) {
    std::uint32_t lo = a & 0xffff, hi = a >> 16;
    for (std::size_t i = 0; i < in.size();) {
        // 5552 bytes is the most that cannot overflow 32 bits before the modulo (zlib's NMAX).
        for (std::size_t end = i + 5552 < in.size() ? i + 5552 : in.size(); i < end; ++i) {
            lo += static_cast<unsigned char>(in[i]);
            hi += lo;
        }
        lo %= 65521;
        hi %= 65521;
    }
    return (hi << 16) | lo;
}

// Appends `in` to `out` as a zlib stream of stored blocks (65,535 bytes each at most).
inline void zlib_store(std::string_view in, std::string& out) {
    out.push_back(static_cast<char>(0x78));  // deflate, 32 KiB window
    out.push_back(static_cast<char>(0x01));  // no dictionary, fastest level; 0x7801 % 31 == 0
    std::size_t pos = 0;
    do {
        const std::size_t n = in.size() - pos < 65535 ? in.size() - pos : 65535;
        out.push_back(static_cast<char>(pos + n == in.size() ? 1 : 0));  // BFINAL, BTYPE 00
        out.push_back(static_cast<char>(n & 0xff));
        out.push_back(static_cast<char>(n >> 8));
        out.push_back(static_cast<char>(~n & 0xff));
        out.push_back(static_cast<char>((~n >> 8) & 0xff));
        out.append(in.substr(pos, n));
        pos += n;
    } while (pos < in.size());
    const std::uint32_t a = adler32(in);
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((a >> shift) & 0xff));
}

namespace detail {

// Canonical Huffman code as deflate defines it: how many codes of each length, and the symbols
// ordered by code. Decoded one bit at a time: slow next to zlib's tables, ample for log lines.
struct huffman {
    std::uint16_t count[16] = {};
    std::uint16_t symbol[288] = {};

    // False when the lengths over-subscribe the code (an incomplete code is allowed: a code it
    // lacks fails in decode).
    bool build(const std::uint8_t* lengths, int n) {
        for (auto& c : count) c = 0;
        for (int i = 0; i < n; ++i) ++count[lengths[i]];
        int left = 1;
        for (int len = 1; len < 16; ++len) {
            left = left * 2 - count[len];
            if (left < 0) return false;
        }
        std::uint16_t offset[16] = {};
        for (int len = 1; len < 15; ++len) offset[len + 1] = static_cast<std::uint16_t>(offset[len] + count[len]);
        for (int i = 0; i < n; ++i)
            if (lengths[i]) symbol[offset[lengths[i]]++] = static_cast<std::uint16_t>(i);
        return true;
    }
};

class inflater {
public:
    inflater(std::string_view in, std::string& out, std::size_t limit) : in_(in), out_(out), limit_(limit) {}

    errc run() {
        int final_block = 0;
        do {
            std::uint32_t header = 0;
            if (!bits(3, header)) return errc::histogram_encoding_truncated;
            final_block = header & 1;
            errc e = errc::histogram_encoding_corrupt;
            switch (header >> 1) {
                case 0: e = stored(); break;
                case 1: e = fixed(); break;
                case 2: e = dynamic(); break;
                default: break;  // type 3 is reserved
            }
            if (e != errc::ok) return e;
        } while (!final_block);
        bit_count_ = 0;  // the rest of the last byte is padding
        return errc::ok;
    }
    std::size_t position() const { return pos_; }

private:
    bool bits(int n, std::uint32_t& v) {
        while (bit_count_ < n) {
            if (pos_ == in_.size()) return false;
            bit_buffer_ |= static_cast<std::uint32_t>(static_cast<unsigned char>(in_[pos_++])) << bit_count_;
            bit_count_ += 8;
        }
        v = bit_buffer_ & ((std::uint32_t{1} << n) - 1);
        bit_buffer_ >>= n;
        bit_count_ -= n;
        return true;
    }

    // The next symbol of `h`, or -1 (truncated) / -2 (no such code).
    int decode(const huffman& h) {
        int code = 0, first = 0, index = 0;
        for (int len = 1; len < 16; ++len) {
            std::uint32_t bit = 0;
            if (!bits(1, bit)) return -1;
            code |= static_cast<int>(bit);
            const int count = h.count[len];
            if (code - count < first) return h.symbol[index + (code - first)];
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        return -2;
    }

    errc stored() {
        bit_buffer_ = 0;  // to the byte boundary
        bit_count_ = 0;
        if (in_.size() - pos_ < 4) return errc::histogram_encoding_truncated;
        auto byte = [&](std::size_t i) {
            return static_cast<std::uint32_t>(static_cast<unsigned char>(in_[pos_ + i]));
        };
        const std::uint32_t len = byte(0) | byte(1) << 8, nlen = byte(2) | byte(3) << 8;
        if (len != (~nlen & 0xffff)) return errc::histogram_encoding_corrupt;
        pos_ += 4;
        if (in_.size() - pos_ < len) return errc::histogram_encoding_truncated;
        if (limit_ - out_.size() < len) return errc::histogram_encoding_corrupt;
        out_.append(in_.substr(pos_, len));
        pos_ += len;
        return errc::ok;
    }

    errc fixed() {
        std::uint8_t lengths[288 + 30];
        for (int i = 0; i < 288; ++i) lengths[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
        for (int i = 0; i < 30; ++i) lengths[288 + i] = 5;
        huffman literal, distance;
        literal.build(lengths, 288);
        distance.build(lengths + 288, 30);
        return codes(literal, distance);
    }

    errc dynamic() {
        std::uint32_t nlen = 0, ndist = 0, ncode = 0;
        if (!bits(5, nlen) || !bits(5, ndist) || !bits(4, ncode)) return errc::histogram_encoding_truncated;
        nlen += 257;
        ndist += 1;
        ncode += 4;
        if (nlen > 286 || ndist > 30) return errc::histogram_encoding_corrupt;
        static constexpr std::uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
        std::uint8_t lengths[286 + 30] = {};
        for (std::uint32_t i = 0; i < ncode; ++i) {
            std::uint32_t v = 0;
            if (!bits(3, v)) return errc::histogram_encoding_truncated;
            lengths[order[i]] = static_cast<std::uint8_t>(v);
        }
        huffman code_lengths;
        if (!code_lengths.build(lengths, 19)) return errc::histogram_encoding_corrupt;
        for (std::uint32_t i = 0; i < nlen + ndist;) {
            const int sym = decode(code_lengths);
            if (sym < 0) return sym == -1 ? errc::histogram_encoding_truncated : errc::histogram_encoding_corrupt;
            if (sym < 16) {
                lengths[i++] = static_cast<std::uint8_t>(sym);
                continue;
            }
            std::uint8_t value = 0;
            std::uint32_t repeat = 0;
            bool ok = true;
            if (sym == 16) {
                if (i == 0) return errc::histogram_encoding_corrupt;  // nothing to repeat
                value = lengths[i - 1];
                ok = bits(2, repeat);
                repeat += 3;
            } else if (sym == 17) {
                ok = bits(3, repeat);
                repeat += 3;
            } else {
                ok = bits(7, repeat);
                repeat += 11;
            }
            if (!ok) return errc::histogram_encoding_truncated;
            if (i + repeat > nlen + ndist) return errc::histogram_encoding_corrupt;
            while (repeat--) lengths[i++] = value;
        }
        if (lengths[256] == 0) return errc::histogram_encoding_corrupt;  // no end-of-block code
        huffman literal, distance;
        if (!literal.build(lengths, static_cast<int>(nlen)) || !distance.build(lengths + nlen, static_cast<int>(ndist)))
            return errc::histogram_encoding_corrupt;
        return codes(literal, distance);
    }

    // The literals and copies of one Huffman block, up to its end-of-block code.
    errc codes(const huffman& literal, const huffman& distance) {
        static constexpr std::uint16_t length_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27,
                                                          31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
        static constexpr std::uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                          2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
        static constexpr std::uint16_t distance_base[30] = {1,    2,    3,    4,     5,     7,    9,    13,
                                                            17,   25,   33,   49,    65,    97,   129,  193,
                                                            257,  385,  513,  769,   1025,  1537, 2049, 3073,
                                                            4097, 6145, 8193, 12289, 16385, 24577};
        static constexpr std::uint8_t distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                                            6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
        for (;;) {
            int sym = decode(literal);
            if (sym < 0) return sym == -1 ? errc::histogram_encoding_truncated : errc::histogram_encoding_corrupt;
            if (sym < 256) {
                if (out_.size() >= limit_) return errc::histogram_encoding_corrupt;
                out_.push_back(static_cast<char>(sym));
                continue;
            }
            if (sym == 256) return errc::ok;
            sym -= 257;
            if (sym >= 29) return errc::histogram_encoding_corrupt;
            std::uint32_t extra = 0;
            if (!bits(length_extra[sym], extra)) return errc::histogram_encoding_truncated;
            const std::size_t length = length_base[sym] + extra;
            const int dsym = decode(distance);
            if (dsym < 0) return dsym == -1 ? errc::histogram_encoding_truncated : errc::histogram_encoding_corrupt;
            if (dsym >= 30) return errc::histogram_encoding_corrupt;
            if (!bits(distance_extra[dsym], extra)) return errc::histogram_encoding_truncated;
            const std::size_t dist = distance_base[dsym] + extra;
            if (dist > out_.size() - start_ || limit_ - out_.size() < length) return errc::histogram_encoding_corrupt;
            for (std::size_t k = 0; k < length; ++k) out_.push_back(out_[out_.size() - dist]);  // may overlap itself
        }
    }

    std::string_view in_;
    std::string& out_;
    std::size_t limit_;
    std::size_t start_ = out_.size();  // copies reach back no further than this stream's output
    std::size_t pos_ = 0;
    std::uint32_t bit_buffer_ = 0;
    int bit_count_ = 0;
};

}  // namespace detail

// Appends the bytes of the zlib stream `in` to `out`, which may grow by at most `limit` bytes.
// errc::histogram_encoding_truncated when the stream ends early; histogram_encoding_corrupt for a
// bad header, a preset dictionary, a bad block or code, a copy from before the start, more than
// `limit` bytes, or an Adler-32 that does not match. A stream that ends right after its last block
// is read without its Adler-32, as HdrHistogram.NET writes it (and Java's and .NET's inflaters
// accept it); 1 to 3 bytes of one are truncated. Bytes after the Adler-32 are ignored.
inline error zlib_inflate(std::string_view in, std::string& out, std::size_t limit) {
    if (in.size() < 2) return {errc::histogram_encoding_truncated, 0};
    const auto cmf = static_cast<unsigned char>(in[0]), flg = static_cast<unsigned char>(in[1]);
    if ((cmf & 0x0f) != 8 || (cmf >> 4) > 7 || (cmf * 256u + flg) % 31 != 0 || (flg & 0x20))
        return {errc::histogram_encoding_corrupt, 0};
    const std::size_t start = out.size();
    const std::size_t cap = limit > out.max_size() - start ? out.max_size() : start + limit;
    detail::inflater inflate(in.substr(2), out, cap);
    if (errc e = inflate.run(); e != errc::ok) return {e, 0};
    const std::size_t end = 2 + inflate.position();
    if (in.size() == end) return {};
    if (in.size() - end < 4) return {errc::histogram_encoding_truncated, 0};
    std::uint32_t stated = 0;
    for (std::size_t i = 0; i < 4; ++i) stated = stated << 8 | static_cast<unsigned char>(in[end + i]);
    if (stated != adler32(std::string_view(out).substr(start))) return {errc::histogram_encoding_corrupt, 0};
    return {};
}

}  // namespace microbench
