// microbench/core/json_write.hpp — a JSON string written out: quoted, with quotes, backslashes and
// control characters escaped; UTF-8 (and any other byte above 0x7f) passes through as it is.
#pragma once

#include <string>
#include <string_view>

#include "appendf.hpp"

namespace microbench {
namespace detail {

inline void append_json_string(std::string& out, std::string_view s) {
    out.push_back('"');
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
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
        } else {
            out.push_back(ch);  // UTF-8 and obs-text pass through
        }
    }
    out.push_back('"');
}

}  // namespace detail
}  // namespace microbench
