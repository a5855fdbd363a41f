// microbench/core/decimal.hpp — decimal numbers read from text the same way in every locale, for
// saved results and lists of percentiles: a whole string into a uint64_t, an int64_t or a finite
// double, or false. A value that does not fit is refused, never saturated, truncated or made
// infinite. No whitespace, no hexadecimal, no "inf" or "nan".
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
    if (!parse_u64(text.substr(minus ? 1 : 0), v) || v > static_cast<std::uint64_t>(INT64_MAX) + (minus ? 1 : 0)) return false;
    out = minus ? -static_cast<std::int64_t>(v - 1) - 1 : static_cast<std::int64_t>(v);
    return true;
}

// [+-] digits [. digits] [(e|E) [+-] digits], with a digit before or after the point; false when
// the value is beyond double's range, a non-zero value would read as 0, or the number is longer
// than 400 digits or its exponent above 100000. Correctly rounded: strtod reads it — but strtod's
// radix character is LC_NUMERIC's, which a host may have set to ',', so it gets the digits
// without one ("-12.5e1" as "-125e0"), which every locale reads alike.
inline bool parse_real(std::string_view text, double& out) {
    char plain[432];
    std::size_t n = 0, at = 0, digits = 0;
    long long fraction = 0;
    bool point = false, nonzero = false;
    if (at < text.size() && (text[at] == '-' || text[at] == '+')) plain[n++] = text[at++];
    for (; at < text.size() && digits <= 400; ++at) {
        const char c = text[at];
        if (c == '.' && !point) {
            point = true;
        } else if (c >= '0' && c <= '9') {
            plain[n++] = c;
            ++digits, fraction += point, nonzero = nonzero || c != '0';
        } else {
            break;
        }
    }
    std::int64_t exponent = 0;
    if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
        std::string_view e = text.substr(at + 1);
        if (!e.empty() && e[0] == '+') e.remove_prefix(1);
        if (!parse_i64(e, exponent) || exponent > 100000 || exponent < -100000) return false;
        at = text.size();
    }
    if (!digits || digits > 400 || at != text.size()) return false;
    std::snprintf(plain + n, sizeof plain - n, "e%lld", static_cast<long long>(exponent - fraction));
    char* end = nullptr;
    const double v = std::strtod(plain, &end);
    if (*end || !std::isfinite(v) || (v == 0 && nonzero)) return false;
    out = v;
    return true;
}

}  // namespace detail
}  // namespace microbench
