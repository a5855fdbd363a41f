// The reference server's deadlines (server/server_deadlines.hpp) against real sockets: a
// slowloris of partial requests closed at the header timeout while a load test runs through the
// server with exact counts, quiet keep-alive connections closed at the idle timeout (an answer
// held back by /delay kept), and at the connection cap the quietest closed to make room, or the
// newcomer when every other is busy.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "microbench.hpp"
#include "run_helpers.hpp"

using namespace microbench;

namespace {

// A blocking loopback connection to `port` that sent `bytes`; -1 when it cannot connect.
int connected(std::uint16_t port, const std::string& bytes) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        (!bytes.empty() && ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size()))) {
        if (fd >= 0) ::close(fd);
        return -1;
    }
    return fd;
}

// How many of `fds` the server has closed (a read sees the end or a reset) within `wait_ms`,
// reading past any answer; each one closed is closed here too and set to -1.
std::size_t closed_by_server(std::vector<int>& fds, int wait_ms) {
    std::size_t closed = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    for (;;) {
        std::vector<pollfd> p;
        for (int fd : fds)
            if (fd >= 0) p.push_back({fd, POLLIN, 0});
        if (p.empty()) break;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
        if (left.count() <= 0 || ::poll(p.data(), p.size(), static_cast<int>(left.count())) <= 0) break;
        for (const pollfd& q : p) {
            if (!q.revents) continue;
            char buf[4096];
            if (::recv(q.fd, buf, sizeof buf, MSG_DONTWAIT) > 0) continue;  // an answer: read on
            for (int& fd : fds)
                if (fd == q.fd) fd = -1;
            ::close(q.fd);
            ++closed;
        }
    }
    return closed;
}

void close_all(std::vector<int>& fds) {
    for (int& fd : fds) {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
}

}  // namespace

TEST_CASE("server deadlines: 2,000 partial requests are closed at the header timeout, a load test beside them exact" *
          doctest::test_suite("timing")) {
    rlimit files{};  // both ends of 2,000 connections and the load test's in this process
    REQUIRE(getrlimit(RLIMIT_NOFILE, &files) == 0);
    if (files.rlim_cur < 4200) {
        files.rlim_cur = std::min<rlim_t>(4200, files.rlim_max);
        setrlimit(RLIMIT_NOFILE, &files);
    }
    if (files.rlim_cur < 4200) {
        MESSAGE("skipped: the open-file limit holds fewer than 4,200 descriptors");
        return;
    }
    server srv;
    server_options o;
    o.header_timeout_ms = 500;
    o.idle_timeout_ms = 0;  // the header timeout alone
    REQUIRE_FALSE(srv.start(o));
    std::vector<int> slow;
    const auto sent = std::chrono::steady_clock::now();
    for (int i = 0; i < 2000; ++i) {  // half a request line each, as a slowloris sends them
        const int fd = connected(srv.port(), "GET /factorial/5 HTTP/1.1\r\nHost: a\r\nX-a: ");
        REQUIRE(fd >= 0);
        slow.push_back(fd);
    }
    if (std::chrono::steady_clock::now() - sent < std::chrono::milliseconds(300))
        CHECK(closed_by_server(slow, 100) == 0);  // none before its time (when opening them was quick)
    plan p;
    p.url(url_of(srv, "/factorial/10")).requests(2000).concurrency(10).keep_alive(true);
    const result r = run_ok(p);
    CHECK(r.requests_completed == 2000);
    CHECK(r.requests_failed == 0);
    const auto ran = std::chrono::steady_clock::now();
    CHECK(closed_by_server(slow, 10'000) == 2000);
    // On time: by the timeout and a sweep (62.5 ms) after the later of their send and the load test's end.
    const auto last = std::max(ran, sent + std::chrono::milliseconds(500));
    if (!emulated()) CHECK(std::chrono::steady_clock::now() - last < std::chrono::milliseconds(2000));
    close_all(slow);
    const server_counts c = srv.counts();
    CHECK(c.header_timeouts == 2000);
    CHECK(c.idle_timeouts == 0);
    CHECK(c.requests == 2000);  // the partial requests never became requests
    CHECK(c.evicted + c.refused == 0);
}

TEST_CASE("server deadlines: quiet connections close at the idle timeout, an answer held back by /delay is kept" *
          doctest::test_suite("timing")) {
    server srv;
    server_options o;
    o.idle_timeout_ms = 300;
    REQUIRE_FALSE(srv.start(o));
    std::vector<int> quiet;
    for (int i = 0; i < 50; ++i) quiet.push_back(connected(srv.port(), ""));
    std::vector<int> held = {connected(srv.port(), "GET /delay/700 HTTP/1.1\r\nHost: a\r\n\r\n")};
    REQUIRE(held[0] >= 0);
    const auto start = std::chrono::steady_clock::now();
    CHECK(closed_by_server(quiet, 5'000) == 50);
    const auto took = std::chrono::steady_clock::now() - start;
    CHECK(took >= std::chrono::milliseconds(250));  // not before their time
    if (!emulated()) CHECK(took < std::chrono::milliseconds(2300));  // nor long after it
    // The held answer arrives after 700 ms, past the idle timeout; then the connection goes quiet.
    char buf[256];
    const ssize_t n = ::recv(held[0], buf, sizeof buf, 0);
    REQUIRE(n > 0);
    CHECK(std::string(buf, static_cast<std::size_t>(n)).rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    CHECK(closed_by_server(held, 5'000) == 1);
    const server_counts c = srv.counts();
    CHECK(c.idle_timeouts == 51);
    CHECK(c.header_timeouts == 0);
    CHECK(c.delay == 1);
    CHECK(c.open == 0);
}

TEST_CASE("server deadlines: at the connection cap the quietest makes room, and a newcomer is refused when none is quiet" *
          doctest::test_suite("timing")) {
    server srv;
    server_options o;
    o.max_connections = 100;
    REQUIRE_FALSE(srv.start(o));
    std::vector<int> idle;
    for (int i = 0; i < 100; ++i) idle.push_back(connected(srv.port(), ""));
    for (int i = 0; i < 200 && srv.counts().connections < 100; ++i) usleep(5'000);
    plan p;  // five connections past the cap: each closes an idle one, and every request is answered
    p.url(url_of(srv, "/factorial/10")).requests(500).concurrency(5).keep_alive(true);
    const result r = run_ok(p);
    CHECK(r.requests_completed == 500);
    CHECK(r.requests_failed == 0);
    CHECK(closed_by_server(idle, 2'000) == 5);
    server_counts c = srv.counts();
    CHECK(c.evicted == 5);
    CHECK(c.refused == 0);
    close_all(idle);

    server busy;  // every connection holds an answer back: the newcomer is the one closed
    o.max_connections = 3;
    REQUIRE_FALSE(busy.start(o));
    std::vector<int> waiting;
    for (int i = 0; i < 3; ++i) waiting.push_back(connected(busy.port(), "GET /delay/1500 HTTP/1.1\r\nHost: a\r\n\r\n"));
    for (int i = 0; i < 200 && busy.counts().delay < 3; ++i) usleep(5'000);
    std::vector<int> late = {connected(busy.port(), "GET /factorial/5 HTTP/1.1\r\nHost: a\r\n\r\n")};
    CHECK(closed_by_server(late, 1'000) == 1);  // closed without an answer
    c = busy.counts();
    CHECK(c.refused == 1);
    CHECK(c.evicted == 0);
    CHECK(c.factorial == 0);
    close_all(waiting);
    close_all(late);
}

TEST_CASE("server deadlines: a request pipelined behind a held answer waits for it, past the header timeout" *
          doctest::test_suite("timing")) {
    server srv;
    server_options o;
    o.header_timeout_ms = 300;
    REQUIRE_FALSE(srv.start(o));
    const int fd = connected(srv.port(), "GET /delay/800 HTTP/1.1\r\nHost: a\r\n\r\n"
                                         "GET /factorial/5 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
    REQUIRE(fd >= 0);
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    CHECK(got.find("HTTP/1.1 200 OK\r\n") == 0);
    CHECK(got.find("{\"factorial\":120}") != std::string::npos);  // the second answer came: not cut at 300 ms
    CHECK(srv.counts().header_timeouts == 0);
}
