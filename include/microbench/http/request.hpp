// microbench/http/request.hpp — build the bytes of one HTTP/1.1 request, once, before a run.
// The engine sends these bytes unchanged for every request, so all validation happens here:
// a method that is not a token or a CR/LF in a header is an error, never injected.
// Allocates while building (setup time only); no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "../core/ascii.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"
#include "url.hpp"
#include "../core/version.hpp"

namespace microbench {

struct header {
    std::string name;
    std::string value;
};

struct request_options {
    std::string method = "GET";       // GET, HEAD, POST, … or any token
    std::vector<header> headers;      // a header named like a default replaces it, as ab's -H does
    std::string body;                 // sent with Content-Length when not empty
    std::string content_type = defaults::content_type;  // sent only with a body; "" omits it
    bool keep_alive = true;           // false adds "Connection: close"
};

namespace detail {

inline bool method_sends_length(std::string_view method) {
    return method == "POST" || method == "PUT" || method == "PATCH";
}

}  // namespace detail

// Splits "Name: value" (ab's -H syntax) into a header; surrounding whitespace of the value is
// dropped. The parts are validated by build_request, not here.
inline error parse_header_line(std::string_view line, header& out) {
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return {errc::request_bad_header_line, 0};
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    out.name.assign(line.data(), colon);
    out.value.assign(value.data(), value.size());
    return {};
}

namespace detail {
// An idempotent method may be sent again after the server closed its connection (RFC 9110 §9.2.2).
inline bool idempotent(std::string_view method) {
    for (const char* m : {"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"})
        if (method == m) return true;
    return false;
}
}  // namespace detail

// Builds the request for `target` into `out` (replacing its contents). Header order: Host,
// User-Agent, Accept, Connection, Content-Type, Content-Length, then the user's other headers
// in their order. On error `out` is left empty; `position` is the offending header's index.
inline error build_request(const url& target, const request_options& options, std::string& out) {
    using namespace detail;
    out.clear();
    if (!is_token(options.method)) return {errc::request_bad_method, 0};
    for (std::size_t i = 0; i < options.headers.size(); ++i) {
        const header& h = options.headers[i];
        if (!is_token(h.name)) return {errc::request_bad_header_name, i};
        if (!is_field_value(h.value)) return {errc::request_bad_header_value, i};
        if (iequals(h.name, "Transfer-Encoding")) return {errc::request_transfer_encoding_unsupported, i};
        if (iequals(h.name, "Content-Length") && h.value != std::to_string(options.body.size()))
            return {errc::request_content_length_mismatch, i};
    }
    if (!is_field_value(options.content_type)) return {errc::request_bad_header_value, options.headers.size()};

    bool with_length = !options.body.empty() || method_sends_length(options.method);
    std::string length = std::to_string(options.body.size());
    struct field {
        std::string_view name;
        std::string_view value;
        bool send;
    };
    const field fields[] = {
        {"Host", {}, true},  // value filled below: it is the only one that needs building
        {"User-Agent", "microbench/" MICROBENCH_VERSION_STRING, true},
        {"Accept", "*/*", true},
        {"Connection", "close", !options.keep_alive},
        {"Content-Type", options.content_type, !options.body.empty() && !options.content_type.empty()},
        {"Content-Length", length, with_length},
    };
    std::string host = target.authority();

    out.reserve(64 + target.target.size() + options.body.size());
    out.append(options.method).append(" ").append(target.target).append(" HTTP/1.1\r\n");
    auto append_field = [&out](std::string_view name, std::string_view value) {
        out.append(name.data(), name.size()).append(": ").append(value.data(), value.size()).append("\r\n");
    };
    auto is_default = [&fields](std::string_view name) {
        for (const field& f : fields)
            if (iequals(name, f.name)) return true;
        return false;
    };
    for (const field& f : fields) {
        bool replaced = false;
        for (const header& h : options.headers) {
            if (!iequals(h.name, f.name)) continue;
            append_field(h.name, h.value);
            replaced = true;
        }
        if (!replaced && f.send) append_field(f.name, f.name == "Host" ? std::string_view(host) : f.value);
    }
    for (const header& h : options.headers)
        if (!is_default(h.name)) append_field(h.name, h.value);
    out.append("\r\n").append(options.body);
    return {};
}

}  // namespace microbench
