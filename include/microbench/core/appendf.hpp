// microbench/core/appendf.hpp — printf-style appending to a std::string, for the reports, alike in
// every locale: a host that set LC_NUMERIC (to de_DE, say) still gets "0.5", never "0,5", and
// neither the process's nor the thread's locale is changed. vsnprintf formats as before; then each
// %f, %e or %g conversion's place in the output is measured (by formatting the format up to it),
// and its radix character, the only part of it a locale changes, is written as '.'. No positional
// arguments. Never throws. And a body's first bytes escaped onto one line.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "ascii.hpp"

namespace microbench {
namespace detail {

// The length vsnprintf gives the first `n` bytes of `format`.
inline std::size_t formatted_length(const char* format, std::size_t n, va_list args) {
    const std::string prefix(format, n);
    va_list copy;
    va_copy(copy, args);
    const int length = std::vsnprintf(nullptr, 0, prefix.c_str(), copy);
    va_end(copy);
    return length > 0 ? static_cast<std::size_t>(length) : 0;
}

// In out[from, to) — one floating conversion's output — the radix character, which is neither a
// digit nor a letter (e, inf, nan), a sign nor a space, written as '.'. Returns the bytes removed.
inline std::size_t write_radix_as_point(std::string& out, std::size_t from, std::size_t to) {
    auto plain = [](char c) { return is_digit(c) || is_alpha(c) || c == '-' || c == '+' || c == ' '; };
    for (std::size_t i = from; i < to; ++i) {
        if (plain(out[i])) continue;
        std::size_t end = i;
        while (end < to && !plain(out[end])) ++end;
        out.replace(i, end - i, 1, '.');
        return end - i - 1;
    }
    return 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
inline void appendf(std::string& out, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const std::size_t at = out.size();
    int n = 0;
    for (int room = 256;; room = n + 1) {  // formatted in place; again, in room enough, if it was too long
        out.resize(at + static_cast<std::size_t>(room));
        va_list copy;
        va_copy(copy, args);
        n = std::vsnprintf(&out[at], static_cast<std::size_t>(room), format, copy);
        va_end(copy);
        out.resize(at + static_cast<std::size_t>(n > 0 ? n : 0));
        if (n < room) break;
    }
    std::size_t removed = 0;  // by earlier radix characters longer than one byte
    for (const char* p = std::strchr(format, '%'); n > 0 && p; p = std::strchr(p, '%')) {
        const char* spec = p++;
        p += std::strspn(p, "-+ #0123456789.*hlLjzt");
        if (!*p) break;
        if (std::strchr("fFeEgGaA", *p)) {
            const std::size_t from = formatted_length(format, static_cast<std::size_t>(spec - format), args);
            const std::size_t to = formatted_length(format, static_cast<std::size_t>(p + 1 - format), args);
            removed += write_radix_as_point(out, at + from - removed, at + to - removed);
        }
        ++p;  // past the conversion (or the second '%' of "%%")
    }
    va_end(args);
}

// A body's first bytes as one line: printable ASCII as is, the rest as \n, \r, \t or \xNN; "..."
// after them when the body went on.
inline void append_escaped_answer(std::string& out, std::string_view body, bool cut) {
    for (unsigned char c : body) {
        if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c == '\t') out += "\\t";
        else if (c < 0x20 || c > 0x7e || c == '\\') appendf(out, "\\x%02x", c);
        else out += static_cast<char>(c);
    }
    if (cut) out += "...";
}

}  // namespace detail
}  // namespace microbench
