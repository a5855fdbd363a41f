// microbench/ascii.hpp — the ASCII character classes HTTP and URLs are defined over.
// Locale-free and constexpr on purpose: <cctype> depends on the C locale and is slower.
#pragma once

#include <cstddef>
#include <string_view>

namespace microbench {
namespace detail {

constexpr bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

constexpr bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (to_lower(a[i]) != to_lower(b[i])) return false;
    return true;
}

// RFC 9110 tchar: what header names and methods are made of.
constexpr bool is_tchar(char c) {
    if (is_alpha(c) || is_digit(c)) return true;
    switch (c) {
        case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
        case '-': case '.': case '^': case '_': case '`': case '|': case '~':
            return true;
        default:
            return false;
    }
}

constexpr bool is_token(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!is_tchar(c)) return false;
    return true;
}

// Field values and reason phrases: visible ASCII, obs-text (>= 0x80), SP and HTAB.
constexpr bool is_field_char(char ch) {
    auto c = static_cast<unsigned char>(ch);
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

constexpr bool is_field_value(std::string_view s) {
    for (char c : s)
        if (!is_field_char(c)) return false;
    return true;
}

constexpr bool is_ows(char c) { return c == ' ' || c == '\t'; }

// -1 when `c` is not a hexadecimal digit.
constexpr int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace detail
}  // namespace microbench
