// microbench/core/decimal.hpp — decimal numbers read from text the same way in every locale, for
// saved results, lists of percentiles and the command line's values: a whole string into a
// uint64_t, an int64_t or a finite double, or false. A value that does not fit is refused, never
// saturated, truncated or made infinite. No whitespace, no hexadecimal, no "inf" or "nan".
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace microbench {
namespace detail {

// Digits only, at most 2^64 - 1.
inline bool parse_u64(std::string_view text, std::uint64_t& out) {
    if (text.empty()) return false;
    std::uint64_t v = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    out = v;
    return true;
}

// An optional minus, then digits: from -2^63 to 2^63 - 1.
inline bool parse_i64(std::string_view text, std::int64_t& out) {
    const bool minus = !text.empty() && text[0] == '-';
    std::uint64_t v = 0;
    if (!parse_u64(text.substr(minus ? 1 : 0), v) || v > static_cast<std::uint64_t>(INT64_MAX) + (minus ? 1 : 0))
        return false;
    out = static_cast<std::int64_t>(minus ? 0 - v : v);  // modulo 2^64, as GCC and Clang convert (and C++20 says)
    return true;
}

// [+-] digits [. digits] [(e|E) [+-] digits], with a digit before or after the point; false when
// the value is beyond double's range, a non-zero value would read as 0, or there are more than
// 400 digits. Correctly rounded: strtod reads it — but strtod's radix character is LC_NUMERIC's,
// which a host may have set to ',', so it gets the digits without one ("-12.5e1" as "-125e0"),
// which every locale reads alike.
inline bool parse_real(std::string_view text, double& out) {
    char plain[432];
    std::size_t n = 0, digits = 0;
    long exponent = 0;  // less one for each digit after the point
    bool point = false, nonzero = false;
    const char *p = text.data(), *end = p + text.size();
    if (p < end && (*p == '-' || *p == '+')) plain[n++] = *p++;
    for (; p < end && digits < 400; ++p) {
        if (*p == '.' && !point) {
            point = true;
        } else if (*p >= '0' && *p <= '9') {
            plain[n++] = *p;
            ++digits;
            exponent -= point;
            nonzero = nonzero || *p != '0';
        } else {
            break;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        const bool minus = ++p < end && *p == '-';
        p += p < end && (*p == '-' || *p == '+');
        long e = 0;
        const char* first = p;
        for (; p < end && *p >= '0' && *p <= '9'; ++p)
            if (e < 1'000'000) e = e * 10 + (*p - '0');  // beyond: 0 or out of range either way
        if (p == first) return false;
        exponent += minus ? -e : e;
    }
    if (!digits || p != end) return false;
    std::snprintf(plain + n, sizeof plain - n, "e%ld", exponent);
    char* last = nullptr;
    const double v = std::strtod(plain, &last);
    if (*last || !std::isfinite(v) || (v == 0 && nonzero)) return false;
    out = v;
    return true;
}

}  // namespace detail
}  // namespace microbench
