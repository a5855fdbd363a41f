// Integration tests against real nginx (Debian's nginx-light), started here on a free
// 127.0.0.1 port with tests/nginx/nginx.conf.in; nginx's access log is the server-side count.
#include <doctest/doctest.h>

#include <string>

#include "microbench.hpp"
#include "nginx_process.hpp"

TEST_CASE("nginx: every request is served once and counted once") {
    nginx_process nginx;
    struct mode {
        bool keep_alive;
        std::uint32_t c, t, pipeline;
        std::uint64_t n;
    };
    std::uint64_t expected = 0;
    for (mode m : {mode{true, 10, 1, 1, 5000}, mode{true, 100, 2, 1, 5000}, mode{false, 10, 2, 1, 2000}, mode{true, 4, 1, 8, 4000}}) {
        CAPTURE(m.keep_alive);
        CAPTURE(m.c);
        CAPTURE(m.pipeline);
        microbench::plan p;
        p.url(nginx.url("/factorial/10")).requests(m.n).concurrency(m.c).threads(m.t).keep_alive(m.keep_alive).pipeline(m.pipeline);
        microbench::result r;
        REQUIRE_FALSE(microbench::run(p, r));
        expected += m.n;
        CHECK(r.requests_completed == m.n);
        CHECK(r.requests_failed == 0);
        CHECK(r.body_bytes == 7 * m.n);
        CHECK(r.connects == (m.keep_alive ? m.c : m.n));
        CHECK(nginx.served(expected) == expected);
    }
}

TEST_CASE("nginx with keepalive_timeout 0: it closes every connection and the report says so") {
    nginx_process nginx;
    microbench::plan p;
    p.url(nginx.url("/close")).requests(500).concurrency(5);
    microbench::result r;
    REQUIRE_FALSE(microbench::run(p, r));
    CHECK(r.requests_completed == 500);
    CHECK(r.server_closes == 500);
    CHECK(r.keep_alive_requests == 0);
    CHECK(r.connects == 500);
    CHECK(nginx.served(500) == 500);
}
