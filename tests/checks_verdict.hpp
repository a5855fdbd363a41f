// tests/checks_verdict.hpp — runs a `checks` over one 200 response with a given body, split at every
// position, whole and a byte at a time, and requires every way to give the same verdict.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "microbench.hpp"

// Runs `c` over a 200 response with `body`, split once at every position (and whole).
// Returns the verdict, requiring all splits to agree.
inline bool verdict(const microbench::checks& c, const std::string& body, int status = 200) {
    std::string head = "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n";
    microbench::response_parser p;
    p.reset();
    REQUIRE(p.parse(head).event == microbench::parse_event::headers);
    bool first = false;
    for (std::size_t split = 0; split <= body.size(); ++split) {
        microbench::check_state s;
        c.on_headers(s, p);
        c.on_body(s, std::string_view(body).substr(0, split));
        c.on_body(s, std::string_view(body).substr(split));
        bool ok = c.on_complete(s, status, body.size());
        if (split == 0) first = ok;
        CHECK(ok == first);
    }
    microbench::check_state bytewise;  // and one byte at a time
    c.on_headers(bytewise, p);
    for (char ch : body) c.on_body(bytewise, std::string_view(&ch, 1));
    CHECK(c.on_complete(bytewise, status, body.size()) == first);
    return first;
}

