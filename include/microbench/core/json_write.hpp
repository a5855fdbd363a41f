// microbench/core/json_write.hpp — a JSON string written out: quoted, with quotes, backslashes and
// control characters escaped; well-formed UTF-8 passes through as it is, and any other byte above
// 0x7f (obs-text in a header or a target, a body cut inside a sequence) is written as \u00XX, so
// the document stays valid UTF-8 whatever the bytes were.
#pragma once

#include <string>
#include <string_view>

#include "appendf.hpp"

namespace microbench {
namespace detail {

// The length of the well-formed UTF-8 sequence at the start of `s` (2 to 4 bytes; no overlong
// form, surrogate or code point past U+10FFFF), or 0.
inline std::size_t utf8_sequence(std::string_view s) {
    const auto at = [&s](std::size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; };
    const unsigned lead = at(0);
    const std::size_t n = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3
                        : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (n == 0) return 0;
    for (std::size_t i = 1; i < n; ++i)
        if ((at(i) & 0xc0) != 0x80) return 0;
    const unsigned second = at(1);
    if ((lead == 0xe0 && second < 0xa0) || (lead == 0xed && second > 0x9f) || (lead == 0xf0 && second < 0x90) ||
        (lead == 0xf4 && second > 0x8f))
        return 0;
    return n;
}

inline void append_json_string(std::string& out, std::string_view s) {
    out.push_back('"');
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char ch = s[i];
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(ch);
        } else if (c == '\n') {
            out.append("\\n");
        } else if (c == '\r') {
            out.append("\\r");
        } else if (c == '\t') {
            out.append("\\t");
        } else if (c < 0x20 || c == 0x7f) {
            appendf(out, "\\u%04x", c);
        } else if (c < 0x80) {
            out.push_back(ch);
        } else if (const std::size_t n = utf8_sequence(s.substr(i))) {
            out.append(s.substr(i, n));
            i += n - 1;
        } else {
            appendf(out, "\\u%04x", c);  // a byte that is no UTF-8: its value as a code point
        }
    }
    out.push_back('"');
}

}  // namespace detail
}  // namespace microbench
