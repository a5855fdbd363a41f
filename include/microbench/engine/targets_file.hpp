// microbench/engine/targets_file.hpp — targets files, as vegeta reads them: its HTTP format
// ("METHOD URL", then the target's headers "Name: value" and at most one "@FILE" line naming its
// body, a regular file; the next "METHOD URL" line starts the next target, blank lines between
// are optional; '#' comments, CRLF or LF, a UTF-8 byte order mark) and its JSON lines (one
// object a line: "url", and "method", "header" {"Name": ["value"]} and "body" in base64; '#'
// comments). Every fault is an error at its byte; line_column() turns that into what an editor
// shows. The file and the bodies together are bounded (max_target_bytes), before they are read.
#pragma once

#include <sys/stat.h>

#include <algorithm>
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

// Line and column (each from 1) of byte `at` of `text`.
inline void line_column(std::string_view text, std::size_t at, std::size_t& line, std::size_t& column) {
    line = 1;
    std::size_t line_start = 0;
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
// or a terminal could block forever).
inline bool read_whole_file(const std::string& path, std::string& out, std::size_t limit = defaults::max_target_bytes,
                            bool regular = false, bool* too_long = nullptr) {
    struct stat st {};
    out.clear();
    if (too_long) *too_long = false;
    if (regular && (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))) return false;
    if (regular && static_cast<std::uint64_t>(st.st_size) > limit) {  // refused before a byte is read
        if (too_long) *too_long = true;
        return false;
    }
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    char buf[65536];
    std::size_t n = 0;
    while (out.size() <= limit && (n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    const bool ok = !std::ferror(f) && out.size() <= limit;
    if (too_long) *too_long = out.size() > limit;
    std::fclose(f);
    return ok;
}

inline std::string_view trimmed(std::string_view s, std::size_t& skipped) {
    skipped = 0;
    while (skipped < s.size() && (s[skipped] == ' ' || s[skipped] == '\t')) ++skipped;
    s.remove_prefix(skipped);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
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

// "METHOD URL" (a token, blanks, then http:// or https://): a line that starts a target.
inline bool starts_target(std::string_view line, std::size_t token_end) {
    if (token_end == std::string_view::npos || line[token_end] == ':') return false;
    const std::size_t url_at = line.find_first_not_of(" \t", token_end);
    return url_at != std::string_view::npos && line.compare(url_at, 4, "http") == 0;
}

// vegeta's HTTP format. The bodies together, with the file, are bounded by max_target_bytes.
inline error read_http_targets(std::string_view text, std::vector<target>& out, std::vector<std::size_t>* starts) {
    bool open = false;  // a target's lines may follow
    bool has_body = false;
    std::size_t budget = defaults::max_target_bytes - std::min(text.size(), defaults::max_target_bytes);
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        std::size_t skipped = 0;
        const std::string_view line = trimmed(text.substr(at, end - at), skipped);
        const std::size_t line_at = at + skipped;
        at = end + 1;
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
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        std::size_t skipped = 0;
        const std::string_view line = trimmed(text.substr(at, end - at), skipped);
        const std::size_t line_at = at + skipped;
        at = end + 1;
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
// each target's first byte. On error the position is the byte at fault and nothing is kept.
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

// The same, from the file at `path` (targets_unreadable when it cannot be read).
inline error read_targets_file(const std::string& path, std::vector<target>& out) {
    std::string text;
    if (!detail::read_whole_file(path, text)) return {errc::targets_unreadable, 0};
    return read_targets(text, out);
}

}  // namespace microbench
