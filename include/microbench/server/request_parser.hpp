// microbench/server/request_parser.hpp — parses one HTTP/1.x request head for the reference server:
// request line, headers it cares about (Content-Length, Connection, Transfer-Encoding), and
// where the body ends. Zero-copy views into the caller's buffer; no allocation; no chunked
// request bodies (the server answers them with 400). A fixture's parser, strict on purpose.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "../core/ascii.hpp"
#include "../core/config.hpp"

namespace microbench {

struct request_head {
    std::string_view method;
    std::string_view target;
    int http_minor = 1;
    bool keep_alive = true;
    std::uint64_t content_length = 0;
    std::size_t head_bytes = 0;  // through the blank line; the body follows
};

enum class request_parse : std::uint8_t { incomplete, ok, bad };

// Parses the head at the start of `in` (at most max_head_bytes). `incomplete` means: read more.
inline request_parse parse_request_head(std::string_view in, request_head& out,
                                        std::size_t max_head_bytes = defaults::max_header_bytes) {
    std::size_t end = in.find("\r\n\r\n");
    std::size_t term = 4;
    if (std::size_t lf = in.find("\n\n"); lf != std::string_view::npos && lf < end) {
        end = lf;
        term = 2;
    }
    if (end == std::string_view::npos) {
        // Bytes no request line starts with (a TLS ClientHello's 0x16, another protocol) are bad
        // at once, not after the header timeout: the method is a token up to the first space.
        for (char c : in.substr(0, in.find(' ')))
            if (!detail::is_tchar(c)) return request_parse::bad;
        return in.size() > max_head_bytes ? request_parse::bad : request_parse::incomplete;
    }
    if (end + term > max_head_bytes) return request_parse::bad;
    out = request_head{};
    out.head_bytes = end + term;
    std::string_view head = in.substr(0, end + term / 2);  // every line, each with its line end

    std::size_t line_end = head.find('\n');
    std::string_view line = head.substr(0, line_end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
    if (sp1 == std::string_view::npos || sp2 == sp1) return request_parse::bad;
    out.method = line.substr(0, sp1);
    out.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    std::string_view version = line.substr(sp2 + 1);
    if (!detail::is_token(out.method) || out.target.empty() || out.target[0] != '/') return request_parse::bad;
    if (version.size() != 8 || version.substr(0, 7) != "HTTP/1." || !detail::is_digit(version[7]))
        return request_parse::bad;
    for (char c : out.target)
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return request_parse::bad;
    out.http_minor = version[7] - '0';
    bool conn_close = false, conn_keep = false, has_length = false;

    for (std::size_t pos = line_end + 1; pos < head.size();) {
        std::size_t lf = head.find('\n', pos);
        std::string_view h = head.substr(pos, lf - pos);
        pos = lf + 1;
        if (!h.empty() && h.back() == '\r') h.remove_suffix(1);
        if (h.empty()) break;
        std::size_t colon = h.find(':');
        if (colon == std::string_view::npos || !detail::is_token(h.substr(0, colon))) return request_parse::bad;
        std::string_view name = h.substr(0, colon), value = h.substr(colon + 1);
        while (!value.empty() && detail::is_ows(value.front())) value.remove_prefix(1);
        while (!value.empty() && detail::is_ows(value.back())) value.remove_suffix(1);
        if (!detail::is_field_value(value)) return request_parse::bad;
        if (detail::iequals(name, "content-length")) {
            std::uint64_t n = 0;
            if (!detail::parse_decimal(value, n) || (has_length && n != out.content_length)) return request_parse::bad;
            has_length = true;
            out.content_length = n;
        } else if (detail::iequals(name, "transfer-encoding")) {
            return request_parse::bad;
        } else if (detail::iequals(name, "connection")) {
            detail::for_each_list_item(value, [&](std::string_view t) {
                conn_close = conn_close || detail::iequals(t, "close");
                conn_keep = conn_keep || detail::iequals(t, "keep-alive");
            });
        }
    }
    out.keep_alive = !conn_close && (out.http_minor >= 1 || conn_keep);
    return request_parse::ok;
}

}  // namespace microbench
