// microbench/http/url.hpp — parse http[s]://host[:port][/path][?query] into the parts a client needs.
// Accepts IPv4, [IPv6] and host names; the port defaults to 80 (443 for https) and the target to "/".
// No DNS, no percent-decoding, no normalisation: the target is sent exactly as written.
// Allocates only for the strings of the result.
#pragma once

#include <arpa/inet.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "../core/ascii.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"

namespace microbench {

struct url {
    std::string host;    // as written; IPv6 without its brackets
    std::uint16_t port = defaults::http_port;
    std::string target;  // path and query as sent on the request line, never empty
    bool host_is_ipv6 = false;
    bool tls = false;    // https://

    std::uint16_t default_port() const { return tls ? defaults::https_port : defaults::http_port; }
    // The Host header value: "host", "host:8080", "[::1]:8080"; the port only when not the scheme's.
    std::string authority() const {
        std::string out;
        if (host_is_ipv6) out.append("[").append(host).append("]");
        else out.append(host);
        if (port != default_port()) out.append(":").append(std::to_string(port));
        return out;
    }
};

namespace detail {

// Host names: dot-separated labels of letters, digits, '-' and '_' (seen in the wild on
// internal hosts), at most 63 bytes a label and 253 in all; one trailing dot allowed.
inline bool valid_host_name(std::string_view h) {
    if (h.size() > 253) return false;
    std::size_t label = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
        char c = h[i];
        if (c == '.') {
            if (label == 0) return false;
            label = 0;
        } else if (is_alpha(c) || is_digit(c) || c == '-' || c == '_') {
            if (++label > 63) return false;
        } else {
            return false;
        }
    }
    return true;
}

inline bool looks_numeric_ipv4(std::string_view h) {
    for (char c : h)
        if (!is_digit(c) && c != '.') return false;
    return true;
}

template <int Family, std::size_t Max>
bool inet_valid(std::string_view text) {
    if (text.empty() || text.size() > Max) return false;
    char buf[Max + 1];
    text.copy(buf, text.size());
    buf[text.size()] = '\0';
    unsigned char addr[16];
    return inet_pton(Family, buf, addr) == 1;
}

}  // namespace detail

// Parses `text`; on success fills `out`. On failure `out` is unspecified and the error's
// position is the byte offset in `text` where the fault was found.
inline error parse_url(std::string_view text, url& out) {
    using namespace detail;
    if (text.empty()) return {errc::url_empty, 0};
    for (std::size_t i = 0; i < text.size(); ++i) {
        auto c = static_cast<unsigned char>(text[i]);
        if (c <= 0x20 || c >= 0x7f) return {errc::url_bad_char, i};
    }

    // scheme "://"
    std::size_t sep = text.find("://");
    bool scheme_ok = sep != std::string_view::npos && sep > 0 && is_alpha(text[0]);
    for (std::size_t i = 1; scheme_ok && i < sep; ++i)
        scheme_ok = is_alpha(text[i]) || is_digit(text[i]) || text[i] == '+' || text[i] == '-' || text[i] == '.';
    if (!scheme_ok) return {errc::url_no_scheme, 0};
    std::string_view scheme = text.substr(0, sep);
    const bool tls = iequals(scheme, "https");
    if (!tls && !iequals(scheme, "http")) return {errc::url_unsupported_scheme, 0};

    std::size_t auth_begin = sep + 3;
    std::size_t auth_end = text.find_first_of("/?#", auth_begin);
    if (auth_end == std::string_view::npos) auth_end = text.size();
    std::string_view auth = text.substr(auth_begin, auth_end - auth_begin);
    if (std::size_t at = auth.find('@'); at != std::string_view::npos)
        return {errc::url_userinfo_unsupported, auth_begin + at};
    if (auth.empty()) return {errc::url_empty_host, auth_begin};

    // host, then an optional ":port"
    std::string_view host;
    std::size_t port_at;  // offset in `auth` of ':' or auth.size()
    bool ipv6 = auth[0] == '[';
    if (ipv6) {
        std::size_t close = auth.find(']');
        if (close == std::string_view::npos) return {errc::url_bad_ipv6, auth_begin};
        host = auth.substr(1, close - 1);
        if (!inet_valid<AF_INET6, 45>(host)) return {errc::url_bad_ipv6, auth_begin + 1};
        port_at = close + 1;
        if (port_at < auth.size() && auth[port_at] != ':') return {errc::url_bad_port, auth_begin + port_at};
    } else {
        port_at = auth.find(':');
        if (port_at == std::string_view::npos) port_at = auth.size();
        host = auth.substr(0, port_at);
        if (host.empty()) return {errc::url_empty_host, auth_begin};
        bool ok = looks_numeric_ipv4(host) ? inet_valid<AF_INET, 15>(host) : valid_host_name(host);
        if (!ok) return {errc::url_bad_host, auth_begin};
    }

    std::uint32_t port = tls ? defaults::https_port : defaults::http_port;
    if (port_at < auth.size()) {
        std::string_view digits = auth.substr(port_at + 1);
        std::size_t at = auth_begin + port_at + 1;
        if (digits.empty() || digits.size() > 5) return {errc::url_bad_port, at};
        port = 0;
        for (char c : digits) {
            if (!is_digit(c)) return {errc::url_bad_port, at};
            port = port * 10 + static_cast<std::uint32_t>(c - '0');
        }
        if (port == 0 || port > 65535) return {errc::url_bad_port, at};
    }

    // The fragment is never sent; a query without a path gets "/" in front.
    std::string_view rest = text.substr(auth_end);
    rest = rest.substr(0, rest.find('#'));
    out.host.assign(host.data(), host.size());
    out.port = static_cast<std::uint16_t>(port);
    out.host_is_ipv6 = ipv6;
    out.tls = tls;
    out.target.clear();
    if (rest.empty() || rest[0] == '?') out.target.push_back('/');
    out.target.append(rest.data(), rest.size());
    return {};
}

}  // namespace microbench
