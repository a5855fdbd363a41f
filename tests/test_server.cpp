// Tests for the reference server: what it answers (server_endpoints.hpp, no sockets), the
// request-head parser, exact factorials, and — over real sockets — malformed requests, IPv6,
// pipelining order and /stats.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "microbench.hpp"

using namespace microbench;

namespace {

struct exchange {
    answer a;
    std::string out;
};

exchange ask(const std::string& raw_request, const std::string& body = "") {
    static factorial_cache cache(10000);
    request_head head;
    REQUIRE(parse_request_head(raw_request, head) == request_parse::ok);
    exchange x;
    x.a = answer_request(head, body, server_options{}, cache, [](bool) { return server_counts{3, 1, 0, 0, 0, 2, 0, 1, 0, 0, 0, {{"127.0.0.1", 1}}, {}, 0}; }, x.out);
    return x;
}

std::string body_of(const std::string& response) { return response.substr(response.find("\r\n\r\n") + 4); }

// Sends raw bytes to the server and reads until it closes or `expect` bytes arrived.
std::string talk(std::uint16_t port, const std::string& bytes, bool v6 = false, std::size_t expect = 0) {
    endpoint to;
    REQUIRE(resolve(v6 ? "::1" : "127.0.0.1", port, to) == 0);
    int fd = socket(to.family(), SOCK_STREAM, 0);
    REQUIRE(connect(fd, reinterpret_cast<const sockaddr*>(&to.addr), to.len) == 0);
    timeval tv{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    REQUIRE(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
    std::string got;
    char buf[65536];
    for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) {
        got.append(buf, static_cast<std::size_t>(n));
        if (expect && got.size() >= expect) break;
    }
    close(fd);
    return got;
}

}  // namespace

TEST_CASE("factorial_decimal is exact") {
    CHECK(factorial_decimal(0) == "1");
    CHECK(factorial_decimal(1) == "1");
    CHECK(factorial_decimal(10) == "3628800");
    CHECK(factorial_decimal(20) == "2432902008176640000");
    CHECK(factorial_decimal(25) == "15511210043330985984000000");
    std::string f100 = factorial_decimal(100);
    CHECK(f100.size() == 158);
    CHECK(f100.substr(0, 20) == "93326215443944152681");
    CHECK(f100.substr(f100.size() - 24) == std::string(24, '0'));  // 100! ends in 24 zeros
    std::string f10000 = factorial_decimal(10000);
    CHECK(f10000.size() == 35660);
    CHECK(f10000.substr(0, 10) == "2846259680");
    CHECK(f10000.substr(f10000.size() - 2499) == std::string(2499, '0'));  // 10000! ends in 2499 zeros…
    CHECK(f10000[f10000.size() - 2500] != '0');                             // …and no more
}

TEST_CASE("endpoints: both factorial forms, delay, echo, status, stats, errors") {
    exchange x = ask("GET /factorial/10 HTTP/1.1\r\nHost: h\r\n\r\n");
    CHECK(x.a.kind == endpoint_kind::factorial);
    CHECK(body_of(x.out) == "{\"factorial\":3628800}");
    CHECK(x.out.find("Content-Type: application/json\r\n") != std::string::npos);
    CHECK_FALSE(x.a.close);

    x = ask("GET /factorial?n=10 HTTP/1.1\r\n\r\n");
    CHECK(body_of(x.out) == "3628800");
    CHECK(x.out.find("Content-Type: text/plain\r\n") != std::string::npos);
    x = ask("GET /factorial?x=1&n=0 HTTP/1.1\r\n\r\n");
    CHECK(body_of(x.out) == "1");

    for (const char* bad : {"/factorial/-1", "/factorial/10001", "/factorial/abc", "/factorial?n=", "/factorial",
                            "/factorial/99999999999999999999"}) {
        CAPTURE(bad);
        x = ask(std::string("GET ") + bad + " HTTP/1.1\r\n\r\n");
        CHECK(x.out.rfind("HTTP/1.1 400 ", 0) == 0);
        CHECK(x.a.kind == endpoint_kind::bad_request);
    }

    x = ask("GET /delay/250 HTTP/1.1\r\n\r\n");
    CHECK(x.a.delay_ns == 250'000'000);
    x = ask("GET /delay?ms=5 HTTP/1.1\r\n\r\n");
    CHECK(x.a.delay_ns == 5'000'000);
    x = ask("GET /delay?us=150 HTTP/1.1\r\n\r\n");
    CHECK(x.a.delay_ns == 150'000);
    x = ask("GET /work?us=2500 HTTP/1.1\r\n\r\n");  // holds the thread instead
    CHECK(x.a.hold_ns == 2'500'000);
    CHECK(x.a.delay_ns == 0);
    CHECK(x.a.kind == endpoint_kind::delay);
    CHECK(ask("GET /work?ms=3 HTTP/1.1\r\n\r\n").a.hold_ns == 3'000'000);
    for (const char* bad : {"/work", "/work/5", "/work?us=60000001", "/work?us=x"}) {
        CAPTURE(bad);
        x = ask(std::string("GET ") + bad + " HTTP/1.1\r\n\r\n");
        CHECK(x.out.rfind("HTTP/1.1 ", 0) == 0);
        CHECK(x.a.hold_ns == 0);
        CHECK(x.out.rfind("HTTP/1.1 200 ", 0) != 0);
    }
    x = ask("GET /delay?us=60000001 HTTP/1.1\r\n\r\n");
    CHECK(x.a.kind == endpoint_kind::bad_request);
    x = ask("GET /delay/60001 HTTP/1.1\r\n\r\n");
    CHECK(x.a.kind == endpoint_kind::bad_request);

    x = ask("GET /echo?hello=1 HTTP/1.1\r\n\r\n");
    CHECK(body_of(x.out) == "hello=1");
    x = ask("POST /echo HTTP/1.1\r\nContent-Length: 5\r\n\r\n", "abcde");
    CHECK(body_of(x.out) == "abcde");

    x = ask("GET /status/503 HTTP/1.1\r\n\r\n");
    CHECK(x.out.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0) == 0);
    x = ask("GET /status/204 HTTP/1.1\r\n\r\n");
    CHECK(x.out.find("Content-Length") == std::string::npos);
    x = ask("GET /status/99 HTTP/1.1\r\n\r\n");
    CHECK(x.a.kind == endpoint_kind::bad_request);

    x = ask("GET /stats HTTP/1.1\r\n\r\n");
    CHECK(x.a.kind == endpoint_kind::stats);
    CHECK(body_of(x.out).find("\"requests\":3,\"factorial\":1") != std::string::npos);
    CHECK(body_of(x.out).find("\"closed\":0,\"listen_pauses\":0,\"header_timeouts\":0,\"idle_timeouts\":0,"
                              "\"evicted\":0,\"refused\":0,\"open\":0,\"sources\":{\"127.0.0.1\":1}}") != std::string::npos);

    x = ask("GET /nope HTTP/1.1\r\n\r\n");
    CHECK(x.out.rfind("HTTP/1.1 404 ", 0) == 0);
    x = ask("POST /factorial/3 HTTP/1.1\r\n\r\n");
    CHECK(x.out.rfind("HTTP/1.1 405 ", 0) == 0);

    x = ask("HEAD /factorial/10 HTTP/1.1\r\n\r\n");
    CHECK(x.out.find("Content-Length: 21\r\n") != std::string::npos);
    CHECK(body_of(x.out).empty());

    x = ask("GET /factorial/3 HTTP/1.0\r\n\r\n");
    CHECK(x.a.close);
    CHECK(x.out.find("Connection: close\r\n") != std::string::npos);
    x = ask("GET /factorial/3 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    CHECK_FALSE(x.a.close);
    CHECK(x.out.find("Connection: keep-alive\r\n") != std::string::npos);  // HTTP/1.0 must be told (ab -k waits otherwise)
}

TEST_CASE("request heads: what the server refuses") {
    request_head h;
    CHECK(parse_request_head("GET / HTTP/1.1\r\n", h) == request_parse::incomplete);
    CHECK(parse_request_head("GET / HTTP/1.1\r\nHost: x\r\n\r\n", h) == request_parse::ok);
    CHECK(h.head_bytes == 27);
    CHECK(parse_request_head("GET / HTTP/1.1\nHost: x\n\n", h) == request_parse::ok);
    CHECK(h.head_bytes == 24);
    for (const char* bad : {"GET\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET x HTTP/1.1\r\n\r\n", "G@T / HTTP/1.1\r\n\r\n",
                            "GET / HTTP/1.1\r\nNo colon\r\n\r\n", "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                            "GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                            "GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n"}) {
        CAPTURE(bad);
        CHECK(parse_request_head(bad, h) == request_parse::bad);
    }
    CHECK(parse_request_head(std::string(20000, 'a'), h) == request_parse::bad);
    // Bytes no request line starts with are bad before the head is whole; a method's start is not.
    for (const char* partial : {"G", "GET", "GET /fact", "PATCH / HTTP/1.1\r\nHost"}) {
        CAPTURE(partial);
        CHECK(parse_request_head(partial, h) == request_parse::incomplete);
    }
    const std::string hello("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11);  // a TLS ClientHello's start
    for (const std::string& bad : {hello, std::string("GE\x01"), std::string("\r\n")}) {
        CAPTURE(bad);
        CHECK(parse_request_head(bad, h) == request_parse::bad);
    }
}

TEST_CASE("server over sockets: malformed → 400 and close, pipelined answers in order, IPv6") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    std::string got = talk(srv.port(), "BLAH\r\n\r\n");
    CHECK(got.rfind("HTTP/1.1 400 Bad Request\r\n", 0) == 0);
    CHECK(got.find("Connection: close\r\n") != std::string::npos);  // and talk() saw the close

    std::string three = "GET /delay/30 HTTP/1.1\r\n\r\nGET /factorial/5 HTTP/1.1\r\n\r\nGET /factorial?n=3 HTTP/1.1\r\nConnection: close\r\n\r\n";
    got = talk(srv.port(), three);
    std::size_t first = got.find("\r\n\r\n30"), second = got.find("{\"factorial\":120}"), third = got.rfind("\r\n\r\n6");
    CHECK(first != std::string::npos);
    CHECK(second != std::string::npos);
    CHECK(third != std::string::npos);
    CHECK(first < second);
    CHECK(second < third);
    CHECK(srv.counts().requests == 4);
    CHECK(srv.counts().bad_request == 1);
    CHECK(srv.counts().delay == 1);
    CHECK(srv.counts().factorial == 2);

    server v6;
    server_options o;
    o.host = "::1";
    REQUIRE_FALSE(v6.start(o));
    got = talk(v6.port(), "GET /factorial/4 HTTP/1.1\r\nConnection: close\r\n\r\n", true);
    CHECK(body_of(got) == "{\"factorial\":24}");
    plan p;
    p.url("http://[::1]:" + std::to_string(v6.port()) + "/factorial/10").requests(100).concurrency(2).bind_address("::1");
    result r;
    REQUIRE_FALSE(run(p, r));
    CHECK(r.requests_completed == 100);
    CHECK(v6.counts().factorial == 101);
}

TEST_CASE("server over sockets: https:// to it is refused at once with a 400, not at the header timeout") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    const std::string got = talk(srv.port(), std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11));
    CHECK(got.rfind("HTTP/1.1 400 Bad Request\r\n", 0) == 0);
    CHECK(srv.counts().bad_request == 1);
    if (!detail::load_openssl("")) return;  // no libssl here (an emulator): the ClientHello above stands for it
    plan p;
    p.url("https://127.0.0.1:" + std::to_string(srv.port()) + "/factorial/5").requests(4).timeout_ms(20'000);
    result r;
    REQUIRE_FALSE(run(p, r));
    CHECK(r.failed(failure::tls) == 4);  // each handshake met an HTTP answer
    CHECK(srv.counts().bad_request == 5);
    CHECK(srv.counts().header_timeouts == 0);
}

TEST_CASE("server over sockets: /work without us= or ms= names /work, and /stats's delay counts /delay, /work and /stall") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    for (std::string bad : {"/work", "/work?n=5"}) {
        CAPTURE(bad);
        std::string got = talk(srv.port(), "GET " + bad + " HTTP/1.1\r\nConnection: close\r\n\r\n");
        CHECK(got.rfind("HTTP/1.1 400 Bad Request\r\n", 0) == 0);
        CHECK(body_of(got) == "missing us: use /work?us=N or /work?ms=N\n");
    }
    std::string got = talk(srv.port(), "GET /delay HTTP/1.1\r\nConnection: close\r\n\r\n");
    CHECK(body_of(got) == "missing ms: use /delay/{ms}, /delay?ms=N or /delay?us=N\n");
    got = talk(srv.port(), "GET /work?us=100 HTTP/1.1\r\n\r\nGET /stall?every=1000&for=0 HTTP/1.1\r\n\r\n"
                           "GET /delay?us=10 HTTP/1.1\r\nConnection: close\r\n\r\n");
    CHECK(got.find("\r\n\r\nstall\n") != std::string::npos);
    got = talk(srv.port(), "GET /stats HTTP/1.1\r\nConnection: close\r\n\r\n");
    CHECK(body_of(got).rfind("{\"requests\":6,\"factorial\":0,\"delay\":3,\"echo\":0,\"status\":0,\"other\":0,\"bad_request\":3,", 0) == 0);
}

TEST_CASE("too many connections for the open-file limit: refused up front, not run short") {
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // a low hard limit that cannot be raised, in a child so the tests keep theirs
        rlimit low{64, 64};
        if (setrlimit(RLIMIT_NOFILE, &low) != 0) _exit(2);
        plan p;
        p.url("http://127.0.0.1:9/").requests(1000).concurrency(500);
        result r;
        _exit(run(p, r).code == errc::run_fd_limit ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

// Regression: accept's own EAGAIN ("no connection left") was taken for a memory shortage, so every
// burst of accepts ended with the listener out of epoll for 2 ms and the next new connection waited.
TEST_CASE("server: accept's EAGAIN is not a shortage (no listen pause over 1000 new connections)") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    for (int i = 0; i < 1000; ++i) {
        std::string got = talk(srv.port(), "GET /factorial/3 HTTP/1.1\r\nConnection: close\r\n\r\n");
        REQUIRE(body_of(got) == "{\"factorial\":6}");
    }
    server_counts c = srv.counts();
    CHECK(c.connections == 1000);
    CHECK(c.listen_pauses == 0);
    CHECK(server_counts_json(c).find(",\"listen_pauses\":0,") != std::string::npos);
}

TEST_CASE("server: no free descriptor pauses accepting, counted, and it accepts again afterwards") {
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // a low limit in a child, so the tests keep theirs
        server srv;
        if (srv.start({})) _exit(2);
        // Fill the table in this process, leaving none for the server's accept().
        int held[4096];
        int count = 0;
        rlimit low{64, 64};
        if (setrlimit(RLIMIT_NOFILE, &low) != 0) _exit(3);
        endpoint to;
        if (resolve("127.0.0.1", srv.port(), to) != 0) _exit(4);
        for (int fd; count < 4096 && (fd = socket(AF_INET, SOCK_STREAM, 0)) >= 0;) held[count++] = fd;
        if (count < 2) _exit(5);
        // The last socket we got connects; the server cannot accept it: no descriptor left.
        ::close(held[--count]);
        int client = socket(AF_INET, SOCK_STREAM, 0);
        if (client < 0 || connect(client, reinterpret_cast<const sockaddr*>(&to.addr), to.len) != 0) _exit(6);
        for (int i = 0; i < 200 && srv.counts().listen_pauses == 0; ++i) usleep(10'000);
        if (srv.counts().listen_pauses == 0) _exit(7);
        for (int i = 0; i < count; ++i) ::close(held[i]);
        const char req[] = "GET /factorial/3 HTTP/1.1\r\nConnection: close\r\n\r\n";
        timeval tv{5, 0};
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (send(client, req, sizeof req - 1, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof req - 1)) _exit(8);
        std::string got;
        char buf[4096];
        for (ssize_t n; (n = recv(client, buf, sizeof buf, 0)) > 0;) got.append(buf, static_cast<std::size_t>(n));
        _exit(got.find("{\"factorial\":6}") != std::string::npos ? 0 : 9);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("server: /stats?paths counts each target as the client's rows count it, capped, and only when asked to") {
    server_options options;
    options.threads = 2;
    options.count_paths = 40;
    server srv;
    REQUIRE_FALSE(srv.start(options));
    const std::string origin = "http://127.0.0.1:" + std::to_string(srv.port());
    plan p;
    p.url(origin + "/factorial/{0..29}").url_ranges(true).by_target(true).requests(900).concurrency(6).threads(2);
    p.keep_alive(true).pipeline(2);
    result r;
    REQUIRE_FALSE(run(p, r));
    REQUIRE(r.requests_completed == 900);
    const server_counts c = srv.counts();
    REQUIRE(c.paths.size() == 30);
    CHECK(c.paths_other == 0);
    std::uint64_t total = 0;
    for (const target_row& row : r.by_target.rows) {
        const auto it = std::find_if(c.paths.begin(), c.paths.end(), [&](const auto& x) { return x.first == row.target; });
        REQUIRE_MESSAGE(it != c.paths.end(), row.target);
        CHECK_MESSAGE(it->second == row.completed, row.target);
        total += it->second;
    }
    CHECK(total == 900);
    const std::string json = body_of(talk(srv.port(), "GET /stats?paths HTTP/1.1\r\nConnection: close\r\n\r\n"));
    CHECK(json.find(",\"paths\":{\"/factorial/0\":30,\"/factorial/1\":30,\"/factorial/10\":30,") != std::string::npos);
    CHECK(json.find("},\"paths_other\":0}") != std::string::npos);
    CHECK(body_of(talk(srv.port(), "GET /stats HTTP/1.1\r\nConnection: close\r\n\r\n")).find("paths") == std::string::npos);

    // Past the cap: the first 40 targets by first request, the rest together.
    p.url(origin + "/echo?k={0..19}").requests(200).pipeline(1);
    REQUIRE_FALSE(run(p, r));
    const server_counts capped = srv.counts();
    CHECK(capped.paths.size() == 40);
    CHECK(capped.paths_other == 200 - 10 * 10);  // 10 of the 20 new targets found room, ten requests each

    // Not counted unless the server was told to: /stats?paths says how.
    server plain;
    REQUIRE_FALSE(plain.start({}));
    const std::string got = talk(plain.port(), "GET /stats?paths HTTP/1.1\r\nConnection: close\r\n\r\n");
    CHECK(got.rfind("HTTP/1.1 400 ", 0) == 0);
    CHECK(body_of(got).find("--count-paths N") != std::string::npos);
    CHECK(plain.counts().bad_request == 0);  // a question about the counts is not counted
}

TEST_CASE("server: a target in /stats?paths is a JSON string, escaped") {
    server_counts c;
    c.paths = {{"/a\"b\\c\x01\xff/\xc3\xa9/\xc3", 2}};  // a byte that is no UTF-8, an é, a cut sequence
    c.paths_other = 5;
    const std::string json = server_counts_json(c, true);
    CHECK(json.find(",\"paths\":{\"/a\\\"b\\\\c\\u0001\\u00ff/\xc3\xa9/\\u00c3\":2},\"paths_other\":5}") !=
          std::string::npos);
}
