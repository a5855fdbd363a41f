// microbench/http/response_parser.hpp — incremental, zero-copy HTTP/1.0 and 1.1 response parser.
//
// Contract. Call reset() before each response, then parse() with the bytes received and not yet
// consumed, and drop the first `consumed` bytes of them after every call. While the head
// (status line + headers) is incomplete, parse() consumes nothing: keep those bytes and call
// again with more appended — the head must be contiguous so its views can point into it. The
// body is consumed as it arrives and handed out as views into the input (chunk framing
// removed). Keep calling until `need_more`, `complete` or `error`, even with no bytes left: a
// response without a body completes on the call after `headers`. At EOF call finish().
// Interim 1xx responses (other than 101) are consumed silently.
//
// Never reads past `len`, never allocates after construction, never throws. A malformed
// response is an `error` event with a code and the byte offset in the response where it was found.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "../core/ascii.hpp"
#include "chunked_decoder.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"

namespace microbench {

struct response_limits {
    std::size_t max_header_bytes = defaults::max_header_bytes;  // also bounds chunk extensions + trailers
    std::size_t max_headers = defaults::max_header_count;
};

struct header_view {
    std::string_view name;
    std::string_view value;  // without surrounding whitespace
};

enum class parse_event : std::uint8_t {
    need_more,  // give me more bytes (or call finish() at EOF)
    headers,    // the head is parsed: status(), headers() and framing() are valid
    body,       // `body` holds the next body bytes
    complete,   // the response ended; `body` may hold its last bytes
    error,      // last_error() says why; the connection cannot be reused
};

struct parse_result {
    parse_event event = parse_event::need_more;
    std::size_t consumed = 0;  // bytes of the input to drop, whatever the event
    std::string_view body;     // body bytes, for `body` and `complete`
};

enum class body_framing : std::uint8_t {
    none,            // HEAD, 1xx, 204, 304
    content_length,  // exactly content_length() bytes
    chunked,         // Transfer-Encoding ending in chunked
    until_close,     // delimited by the server closing the connection
};

class response_parser {
public:
    explicit response_parser(const response_limits& limits = {})
        : limits_(limits), owned_headers_(limits.max_headers), headers_(owned_headers_.data()),
          chunked_(limits.max_header_bytes) {}
    // Header views go to `storage` (limits.max_headers of them), which may be shared by parsers
    // that never parse at the same time — a worker's connections — to save memory per connection.
    response_parser(const response_limits& limits, header_view* storage)
        : limits_(limits), headers_(storage), chunked_(limits.max_header_bytes) {}
    response_parser(const response_parser&) = delete;  // headers_ may point into owned_headers_
    response_parser& operator=(const response_parser&) = delete;
    response_parser(response_parser&&) = default;  // a moved vector keeps its buffer
    response_parser& operator=(response_parser&&) = default;

    // The response being read answers a HEAD (no body, whatever its head says); read when its head
    // ends, so it may be set any time before that.
    void head_request(bool head) { head_request_ = head; }
    // Starts a new response. `head_request`: the request was HEAD, so no body follows.
    void reset(bool head_request = false) {
        state_ = state::head;
        head_request_ = head_request;
        error_ = {};
        response_offset_ = 0;
        scan_from_ = 0;
        head_seen_ = 0;
        clear_head();
    }

    parse_result parse(std::string_view input) { return parse(input.data(), input.size()); }

    parse_result parse(const char* data, std::size_t len) {
        std::size_t used = 0;  // consumed by earlier steps of this call (interim responses)
        while (state_ == state::head) {
            std::size_t head_len = 0;
            parse_result r = parse_head(data + used, len - used, head_len);
            if (r.event == parse_event::error) return {parse_event::error, used, {}};
            if (r.event == parse_event::need_more) return {parse_event::need_more, used, {}};
            used += head_len;
            response_offset_ += head_len;
            body_start_ = response_offset_;
            if (state_ != state::head) return {parse_event::headers, used, {}};
            // An interim response: its head is gone; look for the next one.
        }
        parse_result r = parse_body(data, len);
        response_offset_ += r.consumed;
        return r;
    }

    // The peer closed the connection: completes a close-delimited body, fails anything else.
    parse_result finish() {
        if (state_ == state::body_until_close) {
            state_ = state::complete;
            return {parse_event::complete, 0, {}};
        }
        if (state_ == state::complete) return {parse_event::complete, 0, {}};
        if (state_ != state::failed) fail(errc::response_truncated, response_offset_ + head_seen_);
        return {parse_event::error, 0, {}};
    }

    // Valid after the `headers` event.
    int status() const { return status_; }
    int http_minor() const { return http_minor_; }
    // Whether the connection may carry another request once this response is complete.
    bool keep_alive() const { return keep_alive_; }
    body_framing framing() const { return framing_; }
    std::uint64_t content_length() const { return content_length_; }
    std::size_t header_count() const { return header_count_; }
    const header_view& header(std::size_t i) const { return headers_[i]; }
    // First header named `name` (case-insensitive), or nullptr.
    const header_view* find_header(std::string_view name) const {
        for (std::size_t i = 0; i < header_count_; ++i)
            if (detail::iequals(headers_[i].name, name)) return &headers_[i];
        return nullptr;
    }
    std::size_t head_bytes() const { return head_bytes_; }

    // Body bytes handed out so far (chunk framing excluded).
    std::uint64_t body_bytes() const { return body_bytes_; }
    // True once any byte of this response arrived: EOF before that means the server closed an
    // idle keep-alive connection, which callers may retry; after it, the response was cut.
    bool started() const { return response_offset_ > 0 || head_seen_ > 0; }
    bool is_complete() const { return state_ == state::complete; }
    error last_error() const { return error_; }

private:
    enum class state : std::uint8_t {
        head, body_none, body_length, body_until_close, body_chunked, complete, failed,
    };

    parse_result fail(errc code, std::size_t position) {
        state_ = state::failed;
        error_ = {code, position};
        return {parse_event::error, 0, {}};
    }

    void clear_head() {
        status_ = 0;
        http_minor_ = 0;
        keep_alive_ = false;
        framing_ = body_framing::none;
        content_length_ = 0;
        remaining_ = 0;
        header_count_ = 0;
        head_bytes_ = 0;
        body_bytes_ = 0;
    }

    // Length of the head (through its blank line) in data[0, len), or 0 if not all there yet.
    // Resumes where the previous call stopped, so byte-by-byte input costs O(n) in all.
    std::size_t find_head_end(const char* data, std::size_t len) {
        std::size_t i = scan_from_;
        while (i < len) {
            const void* hit = std::memchr(data + i, '\n', len - i);
            if (!hit) break;
            std::size_t lf = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
            if (lf + 1 < len && data[lf + 1] == '\n') return lf + 2;
            if (lf + 2 < len && data[lf + 1] == '\r' && data[lf + 2] == '\n') return lf + 3;
            if (lf + 1 >= len || (lf + 2 >= len && data[lf + 1] == '\r')) {
                scan_from_ = lf;  // undecided until more bytes come
                return 0;
            }
            i = lf + 1;
        }
        scan_from_ = len;
        return 0;
    }

    parse_result parse_head(const char* data, std::size_t len, std::size_t& head_len) {
        head_seen_ = len;
        std::size_t end = find_head_end(data, len);
        std::size_t limit = limits_.max_header_bytes;
        if (end == 0) {
            if (len > limit) return fail(errc::response_headers_too_large, response_offset_ + limit);
            return {};
        }
        if (end > limit) return fail(errc::response_headers_too_large, response_offset_ + limit);
        clear_head();
        if (error e = parse_head_block(data, end)) return fail(e.code, response_offset_ + e.position);
        head_len = end;
        head_bytes_ = end;
        scan_from_ = 0;
        head_seen_ = 0;
        if (status_ >= 100 && status_ < 200 && status_ != 101) return {parse_event::headers, 0, {}};
        enter_body();
        return {parse_event::headers, 0, {}};
    }

    // Parses a complete head; positions in the returned error are offsets into `data`.
    error parse_head_block(const char* data, std::size_t len) {
        std::size_t pos = 0;
        std::string_view line = next_line(data, len, pos);

        // HTTP/1.x SP 3DIGIT [SP reason]
        if (line.size() < 12 || std::memcmp(line.data(), "HTTP/", 5) != 0) return {errc::response_bad_status_line, 0};
        if (line[5] != '1' || line[6] != '.' || !detail::is_digit(line[7])) return {errc::response_bad_version, 5};
        if (line[8] != ' ') return {errc::response_bad_status_line, 8};
        for (std::size_t i = 9; i < 12; ++i)
            if (!detail::is_digit(line[i])) return {errc::response_bad_status_code, 9};
        if (line.size() > 12 && line[12] != ' ') return {errc::response_bad_status_code, 9};
        for (std::size_t i = 13; i < line.size(); ++i)
            if (!detail::is_field_char(line[i])) return {errc::response_bad_status_line, i};
        http_minor_ = line[7] - '0';
        status_ = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
        if (status_ < 100) return {errc::response_bad_status_code, 9};

        bool has_length = false, te_seen = false, te_chunked = false;
        bool conn_close = false, conn_keep_alive = false;
        for (;;) {
            std::size_t line_at = pos;
            line = next_line(data, len, pos);
            if (line.empty()) break;
            if (detail::is_ows(line[0])) return {errc::response_obsolete_line_folding, line_at};
            std::size_t colon = 0;
            while (colon < line.size() && detail::is_tchar(line[colon])) ++colon;
            if (colon == 0 || colon == line.size() || line[colon] != ':')
                return {errc::response_bad_header, line_at + colon};
            std::size_t v = colon + 1, v_end = line.size();
            while (v < v_end && detail::is_ows(line[v])) ++v;
            while (v_end > v && detail::is_ows(line[v_end - 1])) --v_end;
            for (std::size_t i = v; i < v_end; ++i)
                if (!detail::is_field_char(line[i])) return {errc::response_bad_header, line_at + i};
            if (header_count_ == limits_.max_headers) return {errc::response_too_many_headers, line_at};
            header_view& h = headers_[header_count_++];
            h.name = line.substr(0, colon);
            h.value = line.substr(v, v_end - v);

            // Most headers matter to no one here: the length filters them before any compare.
            std::size_t n = h.name.size();
            if (n != 10 && n != 14 && n != 17) continue;
            if (n == 14 && detail::iequals(h.name, "content-length")) {
                std::uint64_t n = 0;
                if (!detail::parse_decimal(h.value, n)) return {errc::response_bad_content_length, line_at + v};
                if (has_length)
                    return {n == content_length_ ? errc::response_duplicate_content_length
                                                 : errc::response_conflicting_content_length, line_at};
                has_length = true;
                content_length_ = n;
            } else if (n == 17 && detail::iequals(h.name, "transfer-encoding")) {
                te_seen = true;
                te_chunked = detail::iequals(detail::last_list_item(h.value), "chunked");
            } else if (n == 10 && detail::iequals(h.name, "connection")) {
                detail::for_each_list_item(h.value, [&](std::string_view token) {
                    if (detail::iequals(token, "close")) conn_close = true;
                    if (detail::iequals(token, "keep-alive")) conn_keep_alive = true;
                });
            }
        }

        keep_alive_ = !conn_close && (http_minor_ >= 1 || conn_keep_alive);
        bool no_body = head_request_ || status_ < 200 || status_ == 204 || status_ == 304;
        if (no_body) {
            framing_ = body_framing::none;
            if (status_ == 101) keep_alive_ = false;  // the connection now speaks another protocol
        } else if (te_seen) {
            framing_ = te_chunked ? body_framing::chunked : body_framing::until_close;
            // Both headers: Transfer-Encoding wins (RFC 9112 §6.3), but the framing is suspect.
            if (has_length || !te_chunked) keep_alive_ = false;
        } else if (has_length) {
            framing_ = body_framing::content_length;
        } else {
            framing_ = body_framing::until_close;
            keep_alive_ = false;
        }
        if (framing_ != body_framing::content_length) content_length_ = 0;
        return {};
    }

    // The line starting at `pos` without its CRLF or LF; advances `pos` past it. The head is
    // known to end with a blank line, so a line end always exists.
    static std::string_view next_line(const char* data, std::size_t len, std::size_t& pos) {
        const char* lf = static_cast<const char*>(std::memchr(data + pos, '\n', len - pos));
        std::size_t end = static_cast<std::size_t>(lf - data);
        std::string_view line(data + pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos = end + 1;
        return line;
    }

    void enter_body() {
        switch (framing_) {
            case body_framing::none: state_ = state::body_none; break;
            case body_framing::content_length:
                remaining_ = content_length_;
                state_ = state::body_length;
                break;
            case body_framing::chunked:
                chunked_.reset();
                state_ = state::body_chunked;
                break;
            case body_framing::until_close: state_ = state::body_until_close; break;
        }
    }

    parse_result parse_body(const char* data, std::size_t len);
    parse_result parse_chunked(const char* data, std::size_t len);

    response_limits limits_;
    std::vector<header_view> owned_headers_;  // sized once, unless storage is given
    header_view* headers_;                    // views point into the caller's buffer
    std::size_t header_count_ = 0;
    state state_ = state::head;
    bool head_request_ = false;
    bool keep_alive_ = false;
    body_framing framing_ = body_framing::none;
    int status_ = 0;
    int http_minor_ = 0;
    std::uint64_t content_length_ = 0;
    std::uint64_t remaining_ = 0;        // of the Content-Length body
    std::uint64_t body_bytes_ = 0;
    chunked_decoder chunked_;            // extensions + trailers held to the header byte limit
    std::size_t head_bytes_ = 0;
    std::size_t scan_from_ = 0;          // where find_head_end resumes
    std::size_t head_seen_ = 0;          // head bytes offered but not yet consumed
    std::size_t response_offset_ = 0;    // bytes of this response consumed before this call
    std::size_t body_start_ = 0;         // offset of the body in the response
    error error_;
};

inline parse_result response_parser::parse_body(const char* data, std::size_t len) {
    switch (state_) {
        case state::body_none:
            state_ = state::complete;
            return {parse_event::complete, 0, {}};
        case state::body_length: {
            std::size_t take = remaining_ < len ? static_cast<std::size_t>(remaining_) : len;
            remaining_ -= take;
            body_bytes_ += take;
            std::string_view bytes(data, take);
            if (remaining_ == 0) {
                state_ = state::complete;
                return {parse_event::complete, take, bytes};
            }
            return {take ? parse_event::body : parse_event::need_more, take, bytes};
        }
        case state::body_until_close:
            body_bytes_ += len;
            return {len ? parse_event::body : parse_event::need_more, len, {data, len}};
        case state::body_chunked:
            return parse_chunked(data, len);
        case state::failed:
            return {parse_event::error, 0, {}};
        case state::head:
        case state::complete:
            break;
    }
    MICROBENCH_ASSERT(state_ != state::complete && "parse() after complete: call reset() first");
    return {parse_event::error, 0, {}};
}

inline parse_result response_parser::parse_chunked(const char* data, std::size_t len) {
    chunked_decoder::result r = chunked_.decode(data, len);
    switch (r.what) {
        case chunked_decoder::step::need_more: return {parse_event::need_more, r.consumed, {}};
        case chunked_decoder::step::data:
            body_bytes_ += r.data.size();
            return {parse_event::body, r.consumed, r.data};
        case chunked_decoder::step::done:
            state_ = state::complete;
            return {parse_event::complete, r.consumed, {}};
        case chunked_decoder::step::error: break;
    }
    // The decoder counts from the start of the body, which began head_bytes_ into the response
    // (plus any interim responses before it).
    error e = chunked_.last_error();
    return fail(e.code, body_start_ + e.position);
}

}  // namespace microbench
