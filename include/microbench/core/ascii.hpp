// microbench/core/ascii.hpp — the ASCII character classes HTTP and URLs are defined over, and the
// small token helpers built on them (case-insensitive compare, decimal numbers, comma lists).
// Locale-free on purpose: <cctype> depends on the C locale and is slower.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
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
constexpr bool is_tchar_slow(char c) {
    if (is_alpha(c) || is_digit(c)) return true;
    switch (c) {
        case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
        case '-': case '.': case '^': case '_': case '`': case '|': case '~':
            return true;
        default:
            return false;
    }
}

// Field values and reason phrases: visible ASCII, obs-text (>= 0x80), SP and HTAB.
constexpr bool is_field_char_slow(unsigned char c) { return c == '\t' || (c >= 0x20 && c != 0x7f); }

// The parser asks these per byte, so they are table lookups.
enum : unsigned char { char_tchar = 1, char_field = 2 };
struct char_table {
    unsigned char flags[256] = {};
    constexpr char_table() {
        for (int c = 0; c < 256; ++c)
            flags[c] = static_cast<unsigned char>((is_tchar_slow(static_cast<char>(c)) ? char_tchar : 0) |
                                                  (is_field_char_slow(static_cast<unsigned char>(c)) ? char_field : 0));
    }
};
constexpr char_table char_classes{};

constexpr bool is_tchar(char c) { return char_classes.flags[static_cast<unsigned char>(c)] & char_tchar; }
constexpr bool is_field_char(char c) { return char_classes.flags[static_cast<unsigned char>(c)] & char_field; }

constexpr bool is_token(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!is_tchar(c)) return false;
    return true;
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

// A decimal number of at most 18 digits (so it cannot overflow), nothing else.
inline bool parse_decimal(std::string_view s, std::uint64_t& out) {
    if (s.empty() || s.size() > 18) return false;  // 18 digits cannot overflow 64 bits
    out = 0;
    for (char c : s) {
        if (!detail::is_digit(c)) return false;
        out = out * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return true;
}

// Calls f(item) for each non-empty item of a comma-separated list, whitespace trimmed.
template <class F>
void for_each_list_item(std::string_view list, F&& f) {
    while (!list.empty()) {
        std::size_t comma = list.find(',');
        std::string_view item = list.substr(0, comma);
        while (!item.empty() && detail::is_ows(item.front())) item.remove_prefix(1);
        while (!item.empty() && detail::is_ows(item.back())) item.remove_suffix(1);
        if (!item.empty()) f(item);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
}

inline std::string_view last_list_item(std::string_view list) {
    std::string_view last;
    for_each_list_item(list, [&last](std::string_view item) { last = item; });
    return last;
}

// In a query "n=10&x=y": true and the value of `key`, or false when the key is absent.
inline bool query_value(std::string_view query, std::string_view key, std::string_view& out) {
    while (!query.empty()) {
        std::size_t amp = query.find('&');
        std::string_view pair = query.substr(0, amp);
        if (pair.size() > key.size() && pair.substr(0, key.size()) == key && pair[key.size()] == '=') {
            out = pair.substr(key.size() + 1);
            return true;
        }
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    return false;
}

// In a query: whether `key` is there, alone ("paths") or with a value ("paths=1").
inline bool has_query_key(std::string_view query, std::string_view key) {
    for (std::size_t from = 0; from <= query.size();) {
        const std::size_t amp = std::min(query.find('&', from), query.size());
        const std::string_view pair = query.substr(from, amp - from);
        if (pair.substr(0, pair.find('=')) == key) return true;
        from = amp + 1;
    }
    return false;
}

}  // namespace detail
}  // namespace microbench
