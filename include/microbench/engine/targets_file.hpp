// microbench/engine/targets_file.hpp — targets files, as vegeta reads them: its HTTP format
// ("METHOD URL", then the target's headers "Name: value" and at most one "@FILE" line naming its
// body, a regular file; the next "METHOD URL" line starts the next target, blank lines between
// are optional; '#' comments, CRLF or LF, a UTF-8 byte order mark) and its JSON lines (one
// object a line: "url", and "method", "header" {"Name": ["value"]} and "body" in base64; '#'
// comments). Every fault is an error at its byte; line_column() turns that into what an editor
// shows. The file and the bodies together are bounded (max_target_bytes), before they are read.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "../core/ascii.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../core/json_read.hpp"
#include "../http/request.hpp"
#include "../http/url.hpp"
#include "../stats/histogram_codec.hpp"
#include "plan.hpp"

namespace microbench {

// Line and column (each from 1) of byte `at` of `text`; a UTF-8 byte order mark is no column.
inline void line_column(std::string_view text, std::size_t at, std::size_t& line, std::size_t& column) {
    line = 1;
    std::size_t line_start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 && at >= 3 ? 3 : 0;
    for (std::size_t i = 0; i < at && i < text.size(); ++i)
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    column = at - line_start + 1;
}

namespace detail {

// A whole file's bytes into `out`, at most `limit` of them; false when it cannot be read, is
// longer (then *too_long, when given, is true), or (with `regular`) is not a regular file (a FIFO
// or a terminal could block forever). The file is opened without blocking and then looked at, so
// what is read is what was checked; a regular file longer than `limit` is refused before a byte
// of it is read, and its bytes are read into room made once.
inline bool read_whole_file(const std::string& path, std::string& out, std::size_t limit = defaults::max_target_bytes,
                            bool regular = false, bool* too_long = nullptr) {
    out.clear();
    if (too_long) *too_long = false;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (regular ? O_NONBLOCK : 0));
    if (fd < 0) return false;
    struct stat st {};
    bool ok = fstat(fd, &st) == 0 && (!regular || S_ISREG(st.st_mode));
    if (ok && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > limit) {
        if (too_long) *too_long = true;
        ok = false;
    }
    if (ok && S_ISREG(st.st_mode)) out.reserve(static_cast<std::size_t>(st.st_size));
    char buf[65536];
    ssize_t n = 0;
    while (ok && out.size() <= limit && (n = ::read(fd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) ok = false;
        else out.append(buf, static_cast<std::size_t>(n));
    }
    if (ok && out.size() > limit) {
        if (too_long) *too_long = true;
        ok = false;
    }
    ::close(fd);
    return ok;
}

inline std::string_view trimmed(std::string_view s, std::size_t& skipped) {
    skipped = 0;
    while (skipped < s.size() && (s[skipped] == ' ' || s[skipped] == '\t')) ++skipped;
    s.remove_prefix(skipped);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

// The line from byte `at` on, trimmed of blanks (and a CR) at both ends; `line_at` is its first
// byte left, and `at` moves to the next line.
inline std::string_view next_line(std::string_view text, std::size_t& at, std::size_t& line_at) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::size_t skipped = 0;
    const std::string_view line = trimmed(text.substr(at, end - at), skipped);
    line_at = at + skipped;
    at = end + 1;
    return line;
}

// A header of a target, checked as build_request checks it; `at` is its line's first byte.
inline error add_target_header(std::string_view name, std::string_view value, std::size_t at, target& t) {
    if (!is_token(name)) return {errc::request_bad_header_name, at};
    if (!is_field_value(value)) return {errc::request_bad_header_value, at};
    if (iequals(name, "Transfer-Encoding")) return {errc::request_transfer_encoding_unsupported, at};
    t.headers.push_back({std::string(name), std::string(value)});
    return {};
}

// A target's method ("": the plan's) and URL, checked; the URL's fault is at its own byte.
inline error start_target(std::string_view method, std::string_view url_text, std::size_t method_at,
                          std::size_t url_at, std::vector<target>& out) {
    if (!method.empty() && !is_token(method)) return {errc::request_bad_method, method_at};  // "": the plan's
    url u;
    if (error e = parse_url(url_text, u)) return {e.code, url_at + e.position};
    if (out.size() == defaults::max_targets) return {errc::targets_too_many, method_at};
    out.emplace_back(std::string(url_text));
    out.back().method = std::string(method);
    return {};
}

// While a target is open, a line that starts the next one: a standard method, blanks, then
// http:// or https:// (as vegeta reads its simple lists), so a header line missing its colon
// ("Origin http://...") is a fault, not a target.
inline bool starts_target(std::string_view line, std::size_t token_end) {
    if (token_end == std::string_view::npos) return false;
    bool method = false;
    for (std::string_view m : {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"})
        method = method || line.substr(0, token_end) == m;
    const std::size_t url_at = line.find_first_not_of(" \t", token_end);
    return method && url_at != std::string_view::npos && line.compare(url_at, 4, "http") == 0;
}

// vegeta's HTTP format. The bodies together, with the file, are bounded by max_target_bytes.
inline error read_http_targets(std::string_view text, std::vector<target>& out, std::vector<std::size_t>* starts) {
    bool open = false;  // a target's lines may follow
    bool has_body = false;
    std::size_t budget = defaults::max_target_bytes - std::min(text.size(), defaults::max_target_bytes);
    for (std::size_t at = 0; at < text.size();) {
        std::size_t line_at = 0;
        const std::string_view line = next_line(text, at, line_at);
        if (line.empty()) {
            open = false;
            continue;
        }
        if (line[0] == '#') continue;
        if (line[0] == '@') {
            if (!open || has_body) return {errc::targets_bad_line, line_at};
            std::string& body = out.back().body;
            bool too_long = false;
            if (!read_whole_file(std::string(line.substr(1)), body, budget, true, &too_long))
                return {too_long ? errc::plan_targets_too_large : errc::targets_body_unreadable, line_at};
            budget -= body.size();
            out.back().has_body = has_body = true;
            continue;
        }
        const std::size_t token_end = line.find_first_of(" \t:");
        if (token_end != std::string_view::npos && line[token_end] == ':') {  // a header of the open target
            if (!open || has_body) return {errc::targets_bad_line, line_at};
            std::size_t value_skipped = 0;
            const std::string_view value = trimmed(line.substr(token_end + 1), value_skipped);
            if (error e = add_target_header(line.substr(0, token_end), value, line_at, out.back())) return e;
            continue;
        }
        if (open && !starts_target(line, token_end)) return {errc::targets_bad_line, line_at};
        if (token_end == std::string_view::npos) return {errc::targets_bad_line, line_at};
        std::size_t url_skipped = 0;
        const std::string_view url_text = trimmed(line.substr(token_end), url_skipped);
        const std::size_t url_at = line_at + token_end + url_skipped;
        if (error e = start_target(line.substr(0, token_end), url_text, line_at, url_at, out)) return e;
        if (starts) starts->push_back(line_at);
        open = true;
        has_body = false;
    }
    return out.empty() ? error{errc::targets_none, text.size()} : error{};
}

// vegeta's JSON lines: each line one object.
inline error read_json_targets(std::string_view text, std::vector<target>& out, std::vector<std::size_t>* starts) {
    json_value v;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t line_at = 0;
        const std::string_view line = next_line(text, at, line_at);
        if (line.empty() || line[0] == '#') continue;
        if (error e = parse_json(line, v)) return {e.code, line_at + e.position};
        const json_value* u = v.find("url");
        const json_value* method = v.find("method");
        const json_value* headers = v.find("header");
        const json_value* body = v.find("body");
        if (!u || !u->is(json_value::kind::string) || (method && !method->is(json_value::kind::string)) ||
            (headers && !headers->is(json_value::kind::object)) || (body && !body->is(json_value::kind::string)))
            return {errc::targets_bad_json, line_at};
        if (method && method->text.empty()) return {errc::request_bad_method, line_at};
        if (error e = start_target(method ? std::string_view(method->text) : std::string_view(), u->text, line_at,
                                   line_at, out))
            return {e.code, line_at};
        for (std::size_t i = 0; headers && i < headers->keys.size(); ++i) {
            const json_value& values = headers->items[i];
            if (!values.is(json_value::kind::array)) return {errc::targets_bad_json, line_at};
            for (const json_value& value : values.items) {
                if (!value.is(json_value::kind::string)) return {errc::targets_bad_json, line_at};
                if (error e = add_target_header(headers->keys[i], value.text, line_at, out.back())) return e;
            }
        }
        if (body) {  // "" too: an empty body, not the plan's
            if (!base64_decode(body->text, out.back().body)) return {errc::targets_bad_json, line_at};
            out.back().has_body = true;
        }
        if (starts) starts->push_back(line_at);
    }
    return out.empty() ? error{errc::targets_none, text.size()} : error{};
}

}  // namespace detail

// A targets file's text into `out` (replacing it): JSON lines when its first character that is
// neither blank nor in a '#' comment is '{', else vegeta's HTTP format. `starts`, when given, gets
// each target's first byte. On error the position is the byte at fault and nothing is kept; where
// exceptions are on, running out of memory is out_of_memory.
inline error read_targets(std::string_view text, std::vector<target>& out, std::vector<std::size_t>* starts = nullptr) {
    out.clear();
    if (starts) starts->clear();
    std::size_t first = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // past a UTF-8 byte order mark
    for (;;) {  // past blank lines and comments
        first = text.find_first_not_of(" \t\r\n", first);
        if (first == std::string_view::npos || text[first] != '#') break;
        first = text.find('\n', first);
    }
    const bool json = first != std::string_view::npos && text[first] == '{';
    const std::size_t bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    std::string_view rest = text.substr(bom);
    error e;
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    try {  // bad_alloc guard
#endif
        e = json ? detail::read_json_targets(rest, out, starts) : detail::read_http_targets(rest, out, starts);
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    } catch (const std::bad_alloc&) {  // bad_alloc guard
        e = {errc::out_of_memory, 0};
    }
#endif
    e.position += e ? bom : 0;
    if (starts)
        for (std::size_t& s : *starts) s += bom;
    if (e) {
        out.clear();
        if (starts) starts->clear();
    }
    return e;
}

// The same, from the file at `path`: targets_unreadable when it cannot be read, and
// plan_targets_too_large past 1 GiB.
inline error read_targets_file(const std::string& path, std::vector<target>& out) {
    std::string text;
    bool too_long = false;
    if (!detail::read_whole_file(path, text, defaults::max_target_bytes, false, &too_long))
        return {too_long ? errc::plan_targets_too_large : errc::targets_unreadable, 0};
    return read_targets(text, out);
}

}  // namespace microbench
