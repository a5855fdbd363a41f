// Integration tests of the load engine (plan → runner → workers) on 127.0.0.1: exact counts
// against the reference server's own counts, and every failure reason against scripted
// misbehaving servers. Each run is bounded in requests and time.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

#include "microbench.hpp"
#include "scripted_server.hpp"

using namespace microbench;

namespace {

const std::string ok_response = "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n3628800";

struct timed_run {
    result r;
    double seconds = 0;
};

timed_run run_plan(const plan& p) {
    timed_run t;
    auto start = std::chrono::steady_clock::now();
    error e = run(p, t.r);
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    REQUIRE_MESSAGE(!e, e.message());
    CHECK(t.r.requests_ended == t.r.requests_completed + t.r.requests_failed);
    std::uint64_t by_reason = 0;
    for (std::uint64_t f : t.r.failures) by_reason += f;
    CHECK(by_reason == t.r.requests_failed);
    return t;
}

}  // namespace

TEST_CASE("reference server: client and server counts agree in every mode") {
    server srv;
    server_options so;
    so.threads = 2;
    REQUIRE_FALSE(srv.start(so));
    const std::string url = "http://127.0.0.1:" + std::to_string(srv.port()) + "/factorial/10";
    for (bool keep_alive : {true, false})
        for (std::uint32_t c : {1u, 10u, 200u})
            for (std::uint32_t t : {1u, 2u})
                for (std::uint32_t depth : {1u, 8u}) {
                    if ((depth > 1 && !keep_alive) || t > c) continue;
                    CAPTURE(keep_alive);
                    CAPTURE(c);
                    CAPTURE(t);
                    CAPTURE(depth);
                    std::uint64_t before = srv.counts().factorial;
                    plan p;
                    p.url(url).requests(1000).concurrency(c).threads(t).keep_alive(keep_alive).pipeline(depth);
                    timed_run run = run_plan(p);
                    const result& r = run.r;
                    CHECK(r.requests_ended == 1000);
                    CHECK(r.requests_completed == 1000);
                    CHECK(r.requests_failed == 0);
                    CHECK(srv.counts().factorial - before == 1000);
                    CHECK(r.status_counts[200] == 1000);
                    CHECK(r.body_bytes == 1000 * std::string("{\"factorial\":3628800}").size());
                    CHECK(r.first_body_length == 21);
                    CHECK(r.total_ns.count() == 1000);
                    // Each worker w has 1000/t requests and c/t connections; a connection's
                    // first batch of `depth` requests is the only one not sent on a reused one.
                    std::uint64_t used = 0, reused = 0;
                    for (std::uint32_t w = 0; w < t; ++w) {
                        std::uint64_t quota = 1000 / t + (w < 1000 % t), conns = c / t + (w < c % t);
                        used += std::min<std::uint64_t>(conns, (quota + depth - 1) / depth);
                        reused += quota - std::min<std::uint64_t>(quota, conns * depth);
                    }
                    CHECK(r.connects == (keep_alive ? used : 1000));
                    CHECK(r.keep_alive_requests == (keep_alive ? reused : 0));
                    CHECK(r.concurrency_requested == c);
                    CHECK(r.concurrency_peak <= c);
                    CHECK(r.retries == 0);
                }
}

TEST_CASE("keep-alive timings: Connect is 0 on a reused connection, Total = Connect + Processing") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/echo?x").requests(200).concurrency(2);
    result r = run_plan(p).r;
    CHECK(r.connect_ns.count() == 200);
    CHECK(r.connect_ns.value_at_percentile(95) == 0);  // 198 of 200 were on reused connections
    CHECK(r.processing_ns.sum() + r.connect_ns.sum() == r.total_ns.sum());
    CHECK(r.waiting_ns.max() <= r.total_ns.max());
}

TEST_CASE("delay endpoint: concurrent requests overlap instead of queueing" * doctest::test_suite("timing")) {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/delay/100").requests(40).concurrency(20);
    timed_run t = run_plan(p);
    CHECK(t.r.requests_completed == 40);
    CHECK(t.seconds >= 0.2);
    CHECK(t.seconds < 2.0);  // ceil(40/20) · 100 ms = 0.2 s, not 40 · 100 ms = 4 s
    CHECK(t.r.total_ns.min() >= 100'000'000);
}

TEST_CASE("connection refused: every request fails to connect, quickly" * doctest::test_suite("timing")) {
    int port;
    {
        scripted_server gone([](scripted_server::context&) {});
        port = std::stoi(gone.url().substr(17));
    }  // closed: nothing listens there now
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(port) + "/").requests(50).concurrency(5);
    timed_run t = run_plan(p);
    CHECK(t.r.requests_ended == 50);
    CHECK(t.r.failed(failure::connect) == 50);
    CHECK(t.seconds < 5);
}

TEST_CASE("reset before any byte on a new connection: receive failures, no retry") {
    scripted_server s([](scripted_server::context& c) {
        if (c.read_request()) c.reset();
    });
    plan p;
    p.url(s.url()).requests(20).concurrency(4);
    timed_run t = run_plan(p);
    CHECK(t.r.failed(failure::receive) == 20);
    CHECK(t.r.retries == 0);
    CHECK(s.requests.load() == 20);
}

TEST_CASE("truncated body: receive failure") {
    scripted_server s([](scripted_server::context& c) {
        if (c.read_request()) c.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort");
    });
    plan p;
    p.url(s.url()).requests(10).concurrency(2);
    timed_run t = run_plan(p);
    CHECK(t.r.failed(failure::receive) == 10);
    CHECK(t.r.requests_completed == 0);
}

TEST_CASE("a silent server: every request times out and the run ends in about the timeout" *
          doctest::test_suite("timing")) {
    scripted_server s([](scripted_server::context& c) {
        c.read_request();
        while (!c.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    });
    plan p;
    p.url(s.url()).requests(6).concurrency(3).timeout_ms(300);
    timed_run t = run_plan(p);
    CHECK(t.r.failed(failure::timeout) == 6);
    CHECK(t.seconds >= 0.55);  // two rounds of three connections, 300 ms each
    CHECK(t.seconds < 5);  // the bound is about 2 · 300 ms, far from the 30 s default timeout
}

TEST_CASE("a slow drip completes within the timeout and times out beyond it") {
    auto drip = [](scripted_server::context& c) {
        while (c.read_request()) {
            for (char ch : ok_response) {
                if (!c.send(std::string(1, ch))) return;
                std::this_thread::sleep_for(std::chrono::milliseconds(4));
            }
        }
    };
    scripted_server s(drip);
    plan p;
    p.url(s.url()).requests(4).concurrency(2).timeout_ms(3000);
    timed_run slow = run_plan(p);
    CHECK(slow.r.requests_completed == 4);
    CHECK(slow.r.total_ns.min() >= 150'000'000);  // 45 bytes · 4 ms
    p.timeout_ms(60);
    timed_run cut = run_plan(p);
    CHECK(cut.r.failed(failure::timeout) == 4);
}

TEST_CASE("server closes a keep-alive connection after k responses without saying so: retried, counted once") {
    scripted_server s([](scripted_server::context& c) {
        for (int i = 0; i < 3 && c.read_request(); ++i) c.send(ok_response);
    });
    plan p;
    p.url(s.url()).requests(60).concurrency(2);
    timed_run t = run_plan(p);
    CHECK(t.r.requests_completed == 60);
    CHECK(t.r.requests_failed == 0);
    CHECK(t.r.connects >= 20);                   // at most 3 responses per connection
    CHECK(t.r.connects <= 22);                   // only the last one of each client slot may serve fewer
    CHECK(t.r.retries == t.r.server_closes);     // each close was met by a request, sent again
    CHECK(t.r.server_closes >= 18);              // the last two closes come after the run
    CHECK(s.requests.load() == 60);  // the server answered each request once
}

TEST_CASE("server says Connection: close after k responses: no retry needed") {
    scripted_server s([](scripted_server::context& c) {
        for (int i = 0; i < 3 && c.read_request(); ++i)
            c.send(i < 2 ? ok_response : "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 7\r\n\r\n3628800");
    });
    plan p;
    p.url(s.url()).requests(30).concurrency(1);
    timed_run t = run_plan(p);
    CHECK(t.r.requests_completed == 30);
    CHECK(t.r.retries == 0);
    CHECK(t.r.server_closes == 10);
    CHECK(t.r.connects == 10);
}

TEST_CASE("framings: chunked, close-delimited, 204, 304, HEAD, interim 100") {
    struct shape {
        const char* name;
        std::string response;
        const char* method;
        std::uint64_t body_bytes;
        bool closes;
    };
    const shape shapes[] = {
        {"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\n362\r\n4\r\n8800\r\n0\r\nT: 1\r\n\r\n", "GET", 7, false},
        {"no length", "HTTP/1.1 200 OK\r\n\r\n3628800", "GET", 7, true},
        {"204", "HTTP/1.1 204 No Content\r\n\r\n", "GET", 0, false},
        {"304", "HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n", "GET", 0, false},
        {"HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n", "HEAD", 0, false},
        {"100-continue", "HTTP/1.1 100 Continue\r\n\r\n" + ok_response, "GET", 7, false},
    };
    for (const shape& sh : shapes) {
        CAPTURE(sh.name);
        static std::string response;  // the script is a plain function pointer
        static bool closes;
        response = sh.response;
        closes = sh.closes;
        scripted_server s([](scripted_server::context& c) {
            while (c.read_request() && c.send(response) && !closes) {
            }
        });
        plan p;
        p.url(s.url()).method(sh.method).requests(20).concurrency(2);
        timed_run t = run_plan(p);
        CHECK(t.r.requests_completed == 20);
        CHECK(t.r.body_bytes == 20 * sh.body_bytes);
        CHECK(t.r.connects == (sh.closes ? 20 : 2));
        CHECK(s.requests.load() == 20);
    }
}

TEST_CASE("garbage instead of HTTP: parse failures") {
    scripted_server s([](scripted_server::context& c) {
        if (c.read_request()) c.send("SSH-2.0-OpenSSH_9.2\r\n\r\n");
    });
    plan p;
    p.url(s.url()).requests(8).concurrency(2);
    timed_run t = run_plan(p);
    CHECK(t.r.failed(failure::parse) == 8);
}

TEST_CASE("ab's length rule: bodies unlike the first are failures, unless switched off") {
    scripted_server s([](scripted_server::context& c) {
        for (int i = 0; c.read_request(); ++i)
            c.send(i % 2 ? "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab" : ok_response);
    });
    plan p;
    p.url(s.url()).requests(10).concurrency(1);
    timed_run t = run_plan(p);
    CHECK(t.r.failed(failure::length) == 5);
    CHECK(t.r.requests_completed == 5);
    p.length_check(false);
    t = run_plan(p);
    CHECK(t.r.requests_completed == 10);
}

TEST_CASE("a duration run stops issuing at the end and reports what was still in flight" *
          doctest::test_suite("timing")) {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/delay/400").requests(0).duration_ms(300).concurrency(4).drain_ms(50);
    timed_run t = run_plan(p);
    CHECK(t.r.requests_ended == 0);
    CHECK(t.r.unfinished == 4);
    CHECK(t.seconds < 3.0);  // 300 ms + 50 ms drain, not the 400 ms requests' completion times 4
    p.drain_ms(1000);
    t = run_plan(p);
    CHECK(t.r.requests_completed == 4);
    CHECK(t.r.unfinished == 0);
}

TEST_CASE("cancel from another thread stops the run" * doctest::test_suite("timing")) {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    cancel_token token;
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/delay/50").requests(100000).concurrency(4).cancel_with(&token);
    std::thread canceller([&token] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        token.cancel();
    });
    timed_run t = run_plan(p);
    canceller.join();
    CHECK(t.r.cancelled);
    CHECK(t.seconds < 5);  // cancelled after 0.2 s of a run that would take 20 minutes
    CHECK(t.r.requests_ended + t.r.unfinished < 100000);
    CHECK(t.r.unfinished <= 4);
}

TEST_CASE("progress is reported from the calling thread") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    struct seen {
        int calls = 0;
        std::uint64_t last = 0;
        bool monotonic = true;
    } s;
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/delay/1").requests(300).concurrency(3);
    p.on_progress([](const progress& pr, void* user) {
        auto* st = static_cast<seen*>(user);
        ++st->calls;
        st->monotonic = st->monotonic && pr.ended >= st->last;
        st->last = pr.ended;
    }, &s, 0, 50);
    result r = run_plan(p).r;
    CHECK(r.requests_completed == 300);
    CHECK(s.calls >= 3);
    CHECK(s.monotonic);
}

// Regression: every_ms * 1,000,000 overflowed for a period meant as "never" (INT64_MAX), and the
// calling thread then looped adding a negative period.
TEST_CASE("a progress period longer than any run is never reached, and the run ends") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    for (std::int64_t every_ms : {INT64_MAX, INT64_MAX / 1000, defaults::max_duration_ms + 1}) {
        int calls = 0;
        plan p;
        p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/delay/1").requests(40).concurrency(2);
        p.on_progress([](const progress&, void* user) { ++*static_cast<int*>(user); }, &calls, every_ms);
        result r = run_plan(p).r;
        CHECK(r.requests_completed == 40);
        CHECK(calls == 0);
    }
}

TEST_CASE("plans and setups that cannot run are refused with a reason") {
    result r;
    CHECK(run(plan().url("http://127.0.0.1:1/").requests(5).concurrency(10), r).code == errc::plan_concurrency_above_requests);
    CHECK(run(plan().url("http://127.0.0.1:1/").requests(0), r).code == errc::plan_no_limit);
    CHECK(run(plan().url("http://127.0.0.1:1/").concurrency(2).threads(3).requests(9), r).code == errc::plan_bad_threads);
    CHECK(run(plan().url("http://127.0.0.1:1/").keep_alive(false).pipeline(4).requests(9), r).code == errc::plan_bad_pipeline);
    CHECK(run(plan().url("ftp://127.0.0.1/").requests(1), r).code == errc::url_unsupported_scheme);
    tls_options old;
    old.version = 0x0300;  // SSL 3.0
    CHECK(run(plan().url("https://127.0.0.1:1/").requests(1).tls(old), r).code == errc::plan_bad_tls_version);
    CHECK(run(plan().url("http://no-such-host.invalid/").requests(1), r).code == errc::run_resolve_failed);
    CHECK(run(plan().url("http://127.0.0.1:1/").bind_address("::1").requests(1), r).code == errc::plan_bad_bind_address);
    CHECK(run(plan().url("http://127.0.0.1:1/").requests(1).timeout_ms(0), r).code == errc::plan_bad_timeout);
}

// Regression: a tiny rate made a worker's gap overflow 64-bit nanoseconds (every request due at
// once), and a duration of INT64_MAX ms overflowed to a run without a time limit.
TEST_CASE("each knob's range: just inside is accepted, just outside refused with the knob's reason") {
    using namespace defaults;
    auto base = [] { return plan().url("http://127.0.0.1:9/").requests(0).duration_ms(1000); };
    struct knob {
        const char* name;
        plan in, out;
        errc reason;
    };
    const knob knobs[] = {
        {"duration", base().duration_ms(max_duration_ms), base().duration_ms(max_duration_ms + 1), errc::plan_bad_duration},
        {"duration < 0", base().requests(1).duration_ms(0), base().requests(1).duration_ms(-1), errc::plan_bad_duration},
        {"duration INT64_MAX", base(), base().duration_ms(INT64_MAX), errc::plan_bad_duration},
        {"rate min", base().rate(min_rate), base().rate(min_rate * 0.999), errc::plan_bad_rate},
        {"rate 1e-300", base().rate(0), base().rate(1e-300), errc::plan_bad_rate},
        {"rate max", base().rate(max_rate), base().rate(max_rate * 1.0000001), errc::plan_bad_rate},
        {"concurrency", base().concurrency(max_concurrency), base().concurrency(max_concurrency + 1), errc::plan_bad_concurrency},
        {"threads", base().concurrency(max_threads).threads(max_threads), base().concurrency(max_threads + 1).threads(max_threads + 1),
         errc::plan_bad_threads},
        {"pipeline", base().pipeline(max_pipeline), base().pipeline(max_pipeline + 1), errc::plan_bad_pipeline},
        {"timeout", base().timeout_ms(max_timeout_ms), base().timeout_ms(max_timeout_ms + 1), errc::plan_bad_timeout},
        {"connect timeout", base().connect_timeout_ms(1), base().connect_timeout_ms(0), errc::plan_bad_timeout},
        {"drain", base().drain_ms(max_timeout_ms), base().drain_ms(max_timeout_ms + 1), errc::plan_bad_timeout},
        {"interval low", base().interval_ms(min_interval_ms), base().interval_ms(min_interval_ms - 1), errc::plan_bad_interval},
        {"interval high", base().interval_ms(max_interval_ms), base().interval_ms(max_interval_ms + 1), errc::plan_bad_interval},
        {"socket buffer", base().socket_buffer_bytes(max_socket_buffer_bytes), base().socket_buffer_bytes(max_socket_buffer_bytes + 1),
         errc::plan_bad_socket_buffer},
        {"records", base().record_requests(max_recorded_requests), base().record_requests(max_recorded_requests + 1), errc::plan_too_many_records},
    };
    for (const knob& k : knobs) {
        CAPTURE(k.name);
        CHECK_FALSE(k.in.validate());
        CHECK(k.out.validate().code == k.reason);
        CHECK(k.out.check_ranges().code == k.reason);
    }
    // The rate's smallest, with the most threads, still fits a worker's gap in 64-bit nanoseconds.
    const detail::worker_rate w = detail::rate_of_worker(base().concurrency(max_threads).threads(max_threads).rate(min_rate), 0, max_threads);
    CHECK(w.interval_ns < 0x1p62);
}
