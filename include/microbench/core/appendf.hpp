// microbench/core/appendf.hpp — printf-style appending to a std::string, for the reports.
// Formats into a stack buffer first and grows only for long lines; never throws.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace microbench {
namespace detail {

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
inline void appendf(std::string& out, const char* format, ...) {
    char buf[512];
    va_list args;
    va_start(args, format);
    int n = std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    if (n < 0) return;
    if (static_cast<std::size_t>(n) < sizeof buf) {
        out.append(buf, static_cast<std::size_t>(n));
        return;
    }
    std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(n) + 1);
    va_start(args, format);
    std::vsnprintf(&out[at], static_cast<std::size_t>(n) + 1, format, args);
    va_end(args);
    out.resize(at + static_cast<std::size_t>(n));
}

}  // namespace detail
}  // namespace microbench
