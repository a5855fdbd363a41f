// microbench/http/connect_to.hpp — curl's --connect-to rules, "HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT":
// a run whose URL names HOST:PORT connects to CONNECT-TO-HOST:CONNECT-TO-PORT instead, while the
// Host header, SNI and the certificate's name check still say HOST. An empty HOST or PORT matches
// any; an empty CONNECT-TO-HOST or CONNECT-TO-PORT (or none: "HOST:PORT:CONNECT-TO-HOST") keeps the
// URL's. An IPv6 address goes in brackets. Of several rules, the first that matches and changes
// something applies (as in curl: a rule with both CONNECT-TO parts empty is passed over). Hosts
// match as written, in any case ("example.com." is not "example.com"). Every rule must read,
// matched or not (curl passes over one that does not).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../core/ascii.hpp"

namespace microbench {

struct connect_rule {
    std::string host, to_host;  // "": any host / the URL's; IPv6 without brackets
    std::uint16_t port = 0, to_port = 0;  // 0: any port / the URL's
};

namespace detail {

// One field of a rule from `text` on: a host (in brackets when it holds ':') up to the next ':'
// (or the end, for the last field); false when it is malformed.
inline bool connect_host_field(std::string_view& text, std::string& out, bool last) {
    std::size_t end = 0;
    if (!text.empty() && text[0] == '[') {
        end = text.find(']');
        if (end == std::string_view::npos || end == 1) return false;
        out.assign(text.substr(1, end - 1));
        ++end;
    } else {
        end = last ? text.size() : text.find(':');
        if (end == std::string_view::npos) return false;
        out.assign(text.substr(0, end));
        if (out.find_first_of("[]/: ") != std::string::npos) return false;  // an IPv6 address goes in brackets
    }
    if (last ? end != text.size() : (end >= text.size() || text[end] != ':')) return false;
    text.remove_prefix(last ? end : end + 1);
    return true;
}

// A port field: empty (0) or 1 to 65535.
inline bool connect_port_field(std::string_view digits, std::uint16_t& out) {
    std::uint32_t port = 0;
    if (digits.size() > 5) return false;
    for (char c : digits) {
        if (!is_digit(c)) return false;
        port = port * 10 + static_cast<std::uint32_t>(c - '0');
    }
    if (!digits.empty() && (port == 0 || port > 65535)) return false;
    out = static_cast<std::uint16_t>(port);
    return true;
}

}  // namespace detail

// "host:port", an IPv6 address in brackets ("[::1]:8443").
inline std::string host_port_text(const std::string& host, std::uint16_t port) {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// Reads one rule; false when it is not HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT.
inline bool parse_connect_rule(std::string_view text, connect_rule& out) {
    out = connect_rule();
    std::size_t colon = 0;
    if (!detail::connect_host_field(text, out.host, false)) return false;
    colon = text.find(':');
    if (colon == std::string_view::npos || !detail::connect_port_field(text.substr(0, colon), out.port)) return false;
    text.remove_prefix(colon + 1);
    // The last port follows the last ':' outside brackets; without one the rule ends at the host.
    colon = text.rfind(':');
    if (colon != std::string_view::npos && !text.empty() && text.back() != ']') {
        if (!detail::connect_port_field(text.substr(colon + 1), out.to_port)) return false;
        text = text.substr(0, colon);
    }
    return detail::connect_host_field(text, out.to_host, true);
}

// Where a run whose URL names `host`:`port` connects under `rules`: the first that matches and
// names somewhere else changes `host` and `port` (true); none does: they stay (false). `bad` is
// the index of the first rule that does not read (rules.size() when all do), checked before any
// applies.
inline bool apply_connect_rules(const std::vector<std::string>& rules, std::string& host, std::uint16_t& port,
                                std::size_t& bad) {
    connect_rule r;
    for (bad = 0; bad < rules.size(); ++bad)
        if (!parse_connect_rule(rules[bad], r)) return false;
    for (const std::string& text : rules) {
        parse_connect_rule(text, r);
        if ((!r.host.empty() && !detail::iequals(r.host, host)) || (r.port && r.port != port)) continue;
        const std::string to_host = r.to_host.empty() ? host : r.to_host;
        const std::uint16_t to_port = r.to_port ? r.to_port : port;
        if (detail::iequals(to_host, host) && to_port == port) continue;  // nowhere else: the next rule
        host = to_host;
        port = to_port;
        return true;
    }
    return false;
}

}  // namespace microbench
