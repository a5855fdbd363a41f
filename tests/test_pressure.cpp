// The engine under pressure, on 127.0.0.1: checks that gate before ab's length rule, a server
// that answers early or stops reading, a pipelined batch larger than the socket buffers, local
// resources running out (descriptors, ports), cancel during the drain, nothing started after the
// stop time, first-wave timestamps, and a library that leaves its host process as it found it.
// Each case is a regression test named after the defect it covers.
#include <doctest/doctest.h>

#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "microbench.hpp"
#include "run_helpers.hpp"
#include "child_server.hpp"
#include "scripted_server.hpp"

using namespace microbench;

namespace {

std::string response(int status, const std::string& body, const char* extra = "") {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\n" + extra + "Content-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
}

// Runs `body` in a forked child (so limits and namespaces it changes stay there); the child's
// exit status is the number of failed expectations, 77 when the system does not allow the setup.
// Call it while this process has no other thread (no server of its own running).
int in_child(int (*body)()) {
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) _exit(body());
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    return WEXITSTATUS(status);
}

// In a forked child, where doctest cannot report: counts a failed expectation and names it.
int expect(bool ok, const char* what) {
    if (!ok) std::fprintf(stderr, "child: expected %s\n", what);
    return ok ? 0 : 1;
}

}  // namespace

TEST_CASE("regression: a response that fails a check is `check`, never `length`, and cannot set the reference length") {
    // A warm-up 503 with a long error page first, then 200s with short bodies and more long 503s.
    scripted_server s([](scripted_server::context& c) {
        for (int i = 0; c.read_request(); ++i)
            c.send(i % 3 == 0 ? response(503, std::string(300, 'e')) : response(200, "3628800"));
    });
    plan p;
    p.url(s.url()).requests(30).concurrency(1).expect_status({200});
    result r = run_ok(p);
    CHECK(r.failed(failure::check) == 10);
    CHECK(r.failed(failure::length) == 0);
    CHECK(r.requests_completed == 20);
    CHECK(r.status_counts[200] == 20);
    CHECK(r.first_body_length == 7);
    CHECK(r.responses_total_ns.count() == 30);  // every whole response, whatever its verdict
    CHECK(r.total_ns.count() == 20);
}

TEST_CASE("regression: a response failing ab's length rule is still in responses_total_ns") {
    scripted_server s([](scripted_server::context& c) {
        for (int i = 0; c.read_request(); ++i) c.send(response(200, i % 2 ? "ab" : "3628800"));
    });
    plan p;
    p.url(s.url()).requests(10).concurrency(1);
    result r = run_ok(p);
    CHECK(r.failed(failure::length) == 5);
    CHECK(r.responses_total_ns.count() == 10);
}

TEST_CASE("regression: a server that answers a large upload early and stops reading: the 413 is seen, no timeout" *
          doctest::test_suite("timing")) {
    scripted_server s([](scripted_server::context& c) {
        if (!c.read_request()) return;
        c.send(response(413, "too large", "Connection: close\r\n"));
        while (!c.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // never reads again
    });
    plan p;
    p.url(s.url()).method("POST").body(std::string(16 << 20, 'x')).requests(4).concurrency(2).timeout_ms(5000);
    auto t0 = std::chrono::steady_clock::now();
    result r = run_ok(p);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(r.status_counts[413] == 4);
    CHECK(r.requests_completed == 4);
    CHECK(r.failed(failure::timeout) == 0);
    CHECK(seconds < 4);  // not 2 rounds of the 5 s timeout
}

TEST_CASE("regression: the early answer also counts when the server closes right after it") {
    scripted_server s([](scripted_server::context& c) {
        if (c.read_request()) c.send(response(413, "too large", "Connection: close\r\n"));
    });  // closes with the upload unread: the client may meet a reset after the response
    plan p;
    p.url(s.url()).method("PUT").body(std::string(8 << 20, 'x')).requests(6).concurrency(2).timeout_ms(5000);
    result r = run_ok(p);
    CHECK(r.status_counts[413] == 6);
    CHECK(r.failed(failure::timeout) == 0);
}

namespace {

// A server that reads one request, writes its whole response (blocking, from a small send
// buffer), then reads the next: a client that does not read while it writes blocks it, and
// then blocks on its own writes.
void one_at_a_time(scripted_server::context& c, const std::string& answer) {
    c.small_send_buffer();
    while (c.read_request() && c.send(answer)) {
    }
}

}  // namespace

TEST_CASE("regression: a pipelined batch larger than the socket buffers does not deadlock (-b 4096 --pipeline 64)") {
    scripted_server s([](scripted_server::context& c) { one_at_a_time(c, response(200, std::string(8192, 'r'))); });
    plan p;
    p.url(s.url()).header("X-Pad", std::string(8000, 'p')).requests(256).concurrency(2).pipeline(64)
        .socket_buffer_bytes(4096).timeout_ms(4000);
    result r = run_ok(p);
    CHECK(r.requests_completed == 256);
    CHECK(r.failed(failure::timeout) == 0);
    CHECK(s.requests.load() == 256);
}

TEST_CASE("regression: a pipelined batch of 256 requests with 16 KB of headers each does not deadlock") {
    scripted_server s([](scripted_server::context& c) { one_at_a_time(c, response(200, std::string(4096, 'r'))); });
    plan p;
    p.url(s.url()).header("X-Pad", std::string(16000, 'p')).requests(1024).concurrency(2).pipeline(256)
        .socket_buffer_bytes(128 * 1024).timeout_ms(4000);
    result r = run_ok(p);
    CHECK(r.requests_completed == 1024);
    CHECK(r.failed(failure::timeout) == 0);
}

TEST_CASE("regression: cancel during the drain stops it at once and marks the result cancelled" *
          doctest::test_suite("timing")) {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    cancel_token token;
    plan p;
    p.url(url_of(srv, "/delay/3000")).requests(0).duration_ms(100).drain_ms(10'000).concurrency(2).cancel_with(&token);
    std::thread canceller([&token] {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));  // in the drain: the duration ended at 100 ms
        token.cancel();
    });
    auto t0 = std::chrono::steady_clock::now();
    result r = run_ok(p);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    canceller.join();
    CHECK(r.cancelled);
    CHECK(r.unfinished == 2);
    CHECK(seconds < 2);  // not the 3 s the requests take
}

TEST_CASE("regression: no request starts at or after the stop time of a duration run") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    for (int round = 0; round < 3; ++round) {
        plan p;
        p.url(url_of(srv, "/factorial/10")).requests(0).duration_ms(200).concurrency(8).record_requests(2'000'000);
        result r = run_ok(p);
        REQUIRE(r.requests.size() == r.requests_completed);
        REQUIRE_FALSE(r.requests.empty());
        const std::int64_t stop = r.start_ns + 200'000'000;
        std::uint64_t late = 0;
        for (const request_timing& t : r.requests) late += t.start_ns >= stop;
        CHECK(late == 0);
    }
}

TEST_CASE("regression: the drain waits without waking every millisecond" * doctest::test_suite("timing")) {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    plan p;
    p.url(url_of(srv, "/delay/1200")).requests(0).duration_ms(100).drain_ms(3000).concurrency(2);
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    result r = run_ok(p);
    getrusage(RUSAGE_SELF, &after);
    CHECK(r.requests_completed == 2);
    // ~1.1 s of drain: a 1 ms wake is ~1100 voluntary switches; the deadline scan wakes ~25 times.
    long switches = after.ru_nvcsw - before.ru_nvcsw;
    CHECK(switches < 300);
}

TEST_CASE("regression: each new connection of the first wave has its own start time") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    plan p;
    p.url(url_of(srv, "/factorial/10")).requests(500).concurrency(500).record_requests(500);
    result r = run_ok(p);
    REQUIRE(r.requests.size() == 500);
    std::set<std::int64_t> starts;
    for (const request_timing& t : r.requests) starts.insert(t.start_ns);
    CHECK(starts.size() > 250);  // one shared loop-pass time would give a handful
    CHECK(r.requests.front().start_ns >= r.start_ns);
}

namespace {

std::uint16_t shared_port;  // a child_server's, for the forked children that run the client


// From 100 ms to 300 ms into the run, no new descriptor can be had: the soft open-file limit is
// lowered below every descriptor number, as if the host had taken them all, then put back.
void take_descriptors_away(const progress& pr, void* user) {
    auto* phase = static_cast<int*>(user);
    rlimit lim{256, 256};
    if (*phase == 0 && pr.elapsed_ns >= 100'000'000) lim.rlim_cur = 3, *phase = 1;
    else if (*phase == 1 && pr.elapsed_ns >= 300'000'000) *phase = 2;
    else return;
    setrlimit(RLIMIT_NOFILE, &lim);
}

// Inside a forked child (its limits are its own).
int run_while_descriptors_run_out() {
    rlimit lim{256, 256};
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) return 77;
    int phase = 0;
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(shared_port) + "/factorial/10").requests(0).duration_ms(600)
        .concurrency(20).keep_alive(false).on_progress(take_descriptors_away, &phase, 5);
    result r;
    if (run(p, r)) return 100;
    int failed = 0;
    failed += expect(phase == 2, "phase == 2");  // the shortage came and went during the run
    failed += expect(r.requests_failed == 0, "r.requests_failed == 0");  // nothing is charged to the server
    failed += expect(r.descriptor_waits >= 20, "r.descriptor_waits >= 20");  // every connection waited, and it was counted
    failed += expect(r.requests_completed >= 100, "r.requests_completed >= 100");  // the run went on after the shortage
    return failed;
}

int run_with_ten_local_ports() {
    if (unshare(CLONE_NEWNET) != 0) return 77;  // needs CAP_SYS_ADMIN
    int sock = ::socket(AF_INET, SOCK_DGRAM, 0);  // bring the namespace's loopback up
    ifreq lo{};
    std::strcpy(lo.ifr_name, "lo");
    if (sock < 0 || ioctl(sock, SIOCGIFFLAGS, &lo) != 0) return 77;
    lo.ifr_flags = static_cast<short>(lo.ifr_flags | IFF_UP);
    if (ioctl(sock, SIOCSIFFLAGS, &lo) != 0) return 77;
    ::close(sock);
    std::ofstream("/proc/sys/net/ipv4/ip_local_port_range") << "40000 40009";
    server srv;
    if (srv.start({})) return 101;
    int failed = 0;
    for (bool keep_alive : {true, false}) {
        plan p;
        p.url(url_of(srv, "/factorial/10")).requests(2000).concurrency(50).keep_alive(keep_alive).timeout_ms(10'000);
        result r;
        if (run(p, r)) return 102;
        failed += expect(r.requests_completed == 2000, "r.requests_completed == 2000");  // nothing charged to the server as `connect`
        failed += expect(r.port_waits != 0, "r.port_waits != 0");
    }
    // Two ports held by 1 s requests: the other connects wait 200 ms (their connect timeout), fail
    // as `connect`, and the next requests wait again — each counted once, the run bounded, no spin.
    std::ofstream("/proc/sys/net/ipv4/ip_local_port_range") << "40020 40021";  // unused so far: none in TIME_WAIT
    plan p;
    p.url(url_of(srv, "/delay/1000")).requests(12).concurrency(6).connect_timeout_ms(200).timeout_ms(5000);
    result r;
    auto t0 = std::chrono::steady_clock::now();
    if (run(p, r)) return 103;
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    failed += expect(r.requests_ended == 12, "r.requests_ended == 12");
    failed += expect(r.requests_completed >= 1, "some requests completed");
    failed += expect(r.requests_failed == r.failed(failure::connect), "only connect failures");
    failed += expect(r.port_waits > 0 && r.failed(failure::connect) > 0, "port waits and connect timeouts");
    failed += expect(seconds <= 8, "seconds <= 8");
    return failed;
}

}  // namespace

TEST_CASE("regression: descriptors running out mid-run: connects wait, nothing fails, the waits are counted" *
          doctest::test_suite("timing")) {
    child_server srv;  // in a process of its own: the limit below is the client's alone
    shared_port = srv.port;
    CHECK(in_child(run_while_descriptors_run_out) == 0);
}

TEST_CASE("regression: ten local ports for fifty connections: connects wait for a port instead of failing" *
          doctest::test_suite("timing")) {
    int failed = in_child(run_with_ten_local_ports);
    if (failed == 77) MESSAGE("skipped: cannot create a network namespace here (needs root)");
    else CHECK(failed == 0);
}

namespace {

int fd_budget_counts_open_descriptors() {
    rlimit lim{300, 300};
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) return 77;
    for (int i = 0; i < 200; ++i)
        if (dup(0) < 0) return 100;
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(shared_port) + "/factorial/10").requests(1000).concurrency(150);
    result r;
    return run(p, r).code == errc::run_fd_limit ? 0 : 1;  // 200 open + 150 would not fit in 300
}

int fd_limit_raised_only_when_asked_and_restored() {
    rlimit lim{200, 4096};
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) return 77;
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(shared_port) + "/factorial/10").requests(600).concurrency(300);
    result r;
    int failed = 0;
    failed += expect(run(p, r).code == errc::run_fd_limit, "run(p, r).code == errc::run_fd_limit");  // the library does not raise it by itself
    p.raise_fd_limit(true);
    failed += expect(!run(p, r), "the run starts with the limit raised");
    failed += expect(r.requests_completed == 600, "r.requests_completed == 600");
    rlimit after{};
    getrlimit(RLIMIT_NOFILE, &after);
    failed += expect(after.rlim_cur == 200, "after.rlim_cur == 200");  // restored
    return failed;
}

}  // namespace

TEST_CASE("regression: the descriptor budget counts descriptors already open") {
    child_server srv;
    shared_port = srv.port;
    CHECK(in_child(fd_budget_counts_open_descriptors) == 0);
}

TEST_CASE("regression: the open-file limit is raised only when the plan asks, and restored after the run") {
    child_server srv;
    shared_port = srv.port;
    CHECK(in_child(fd_limit_raised_only_when_asked_and_restored) == 0);
}

TEST_CASE("regression: a POST that met a keep-alive connection the server closed is not sent again, unless the plan says so") {
    // Closes each connection after 3 responses without saying so; the 4th request on it meets the close.
    scripted_server s([](scripted_server::context& c) {
        for (int i = 0; i < 3 && c.read_request(); ++i) c.send(response(200, "3628800"));
    });
    plan p;
    p.url(s.url()).method("POST").body("n=10").requests(30).concurrency(1);
    result r = run_ok(p);
    CHECK(r.retries == 0);
    CHECK(r.requests_failed > 0);  // the server may have acted on them: failed, not repeated
    CHECK(r.requests_completed + r.failed(failure::receive) + r.failed(failure::write) == 30);
    CHECK(s.requests.load() == static_cast<int>(r.requests_completed));  // nothing reached the server twice
    p.resend_non_idempotent(true);
    r = run_ok(p);
    CHECK(r.requests_completed == 30);
    CHECK(r.retries > 0);
    p.method("PUT").resend_non_idempotent(false);  // idempotent: sent again by default
    r = run_ok(p);
    CHECK(r.requests_completed == 30);
}

TEST_CASE("regression: validate() bounds every product that sizes memory and names the knob") {
    plan p;
    p.url("http://127.0.0.1:1/").requests(10'000'000).concurrency(10'000).keep_alive(true).pipeline(256);
    CHECK(p.validate().code == errc::plan_too_many_in_flight);
    CHECK(std::string(p.validate().message()).find("concurrency") != std::string::npos);
    p.pipeline(100);
    CHECK_FALSE(p.validate());
    p.record_requests(20'000'000);
    CHECK(p.validate().code == errc::plan_too_many_records);
}
