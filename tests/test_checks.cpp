// Tests for checks.hpp: every verdict must be the same whether the body arrives whole or split
// at every possible point; the factorial check against both endpoint forms; checks in the engine.
#include <doctest/doctest.h>

#include <string>

#include "checks_verdict.hpp"
#include "microbench.hpp"
#include "scripted_server.hpp"

using namespace microbench;

TEST_CASE("factorial check: plain and JSON forms, any whitespace, nothing else") {
    checks c;
    c.factorial(10);
    for (const char* good : {"3628800", "3628800\n", " 3628800 ", "{\"factorial\":3628800}", "{ \"factorial\" : 3628800 }\n",
                             "\n{\n  \"factorial\":\t3628800\n}"}) {
        CAPTURE(good);
        CHECK(verdict(c, good));
    }
    for (const char* bad : {"", " ", "3628801", "362880", "36288000", "03628800", "3628800x", "{\"factorial\":3628800",
                            "{\"factorial\":\"3628800\"}", "{\"fact\":3628800}", "{\"factorial\":3628800}}", "[3628800]",
                            "{\"factorial\":3628800,\"n\":10}", "3628800 3628800"}) {
        CAPTURE(bad);
        CHECK_FALSE(verdict(c, bad));
    }
    checks one;
    one.factorial(0);
    CHECK(verdict(one, "1"));
    CHECK(verdict(one, "{\"factorial\":1}"));
    CHECK_FALSE(verdict(one, "0"));
}

TEST_CASE("factorial check on 10000! (35,660 digits), split anywhere") {
    checks c;
    c.factorial(10000);
    std::string digits = factorial_decimal(10000);
    std::string json = "{\"factorial\": " + digits + "}";
    check_state s;
    response_parser p;
    p.reset();
    REQUIRE(p.parse(std::string("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n")).event == parse_event::headers);
    for (const std::string& body : {digits, json}) {
        for (std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{4096}}) {
            c.on_headers(s, p);
            for (std::size_t at = 0; at < body.size(); at += piece) c.on_body(s, std::string_view(body).substr(at, piece));
            CHECK(c.on_complete(s, 200, body.size()));
        }
        std::string wrong = body;
        wrong[wrong.size() / 2] = wrong[wrong.size() / 2] == '1' ? '2' : '1';
        c.on_headers(s, p);
        c.on_body(s, wrong);
        CHECK_FALSE(c.on_complete(s, 200, wrong.size()));
    }
}

TEST_CASE("body equals, starts with, contains (across chunk boundaries), length") {
    checks eq;
    eq.body_equals("hello world");
    CHECK(verdict(eq, "hello world"));
    CHECK_FALSE(verdict(eq, "hello worl"));
    CHECK_FALSE(verdict(eq, "hello world!"));
    CHECK_FALSE(verdict(eq, "hellO world"));

    checks st;
    st.body_starts_with("{\"ok\"");
    CHECK(verdict(st, "{\"ok\":true}"));
    CHECK_FALSE(verdict(st, "{\"ko\":true}"));
    CHECK_FALSE(verdict(st, "{\"o"));

    checks co;
    co.body_contains("aab");  // overlapping prefixes need the KMP fallback
    CHECK(verdict(co, "aaab"));
    CHECK(verdict(co, "xxaabxx"));
    CHECK_FALSE(verdict(co, "aaa ab"));
    CHECK_FALSE(verdict(co, ""));

    checks len;
    len.body_length(3);
    CHECK(verdict(len, "abc"));
    CHECK_FALSE(verdict(len, "abcd"));
}

TEST_CASE("status, headers and a callback") {
    checks st;
    st.status({200, 201});
    CHECK(verdict(st, "x", 201));
    CHECK_FALSE(verdict(st, "x", 500));

    checks h;
    h.header("content-type");
    CHECK(verdict(h, "x"));
    checks h2;
    h2.header("Content-Type", "text/plain", true);
    CHECK_FALSE(verdict(h2, "x"));
    checks h3;
    h3.header("X-Missing");
    CHECK_FALSE(verdict(h3, "x"));

    static int calls = 0;
    checks cb;
    cb.callback([](int status, std::uint64_t body_bytes, void* user) {
        ++*static_cast<int*>(user);
        return status == 200 && body_bytes == 2;
    }, &calls);
    CHECK(verdict(cb, "ok"));
    CHECK_FALSE(verdict(cb, "okk"));
    CHECK(calls > 0);
    CHECK(checks().empty());
    CHECK_FALSE(cb.empty());
}

TEST_CASE("factorial_argument reads both URL forms") {
    auto arg = [](const char* text, unsigned& n) {
        url u;
        REQUIRE_FALSE(parse_url(text, u));
        return factorial_argument(u, n);
    };
    unsigned n = 0;
    CHECK(arg("http://h/factorial/10", n));
    CHECK(n == 10);
    CHECK(arg("http://h/factorial?n=7", n));
    CHECK(n == 7);
    CHECK(arg("http://h/factorial?x=1&n=12&y=2", n));
    CHECK(n == 12);
    CHECK_FALSE(arg("http://h/factorial", n));
    CHECK_FALSE(arg("http://h/factorial/", n));
    CHECK_FALSE(arg("http://h/factorial/x", n));
    CHECK_FALSE(arg("http://h/fact/10", n));
    CHECK_FALSE(arg("http://h/factorial?m=3", n));
    CHECK(arg("http://h/factorial/100000", n));  // the largest n, six digits
    CHECK(n == 100000);
    CHECK_FALSE(arg("http://h/factorial/100001", n));
    CHECK_FALSE(arg("http://h/factorial/1000000", n));
}

TEST_CASE("engine: the factorial check passes on both endpoint forms and fails wrong answers") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    const std::string base = "http://127.0.0.1:" + std::to_string(srv.port());
    for (const char* path : {"/factorial/10", "/factorial?n=10", "/factorial/2000", "/factorial?n=10000"}) {
        CAPTURE(path);
        url u;
        REQUIRE_FALSE(parse_url(base + path, u));
        unsigned n = 0;
        REQUIRE(factorial_argument(u, n));
        checks c;
        c.factorial(n);
        plan p;
        p.url(base + path).requests(200).concurrency(4).check(c);
        result r;
        REQUIRE_FALSE(run(p, r));
        CHECK(r.requests_completed == 200);
        CHECK(r.failed(failure::check) == 0);
        CHECK(r.responses_total_ns.count() == 200);
    }
    scripted_server liar([](scripted_server::context& cx) {
        while (cx.read_request() && cx.send("HTTP/1.1 200 OK\r\nContent-Length: 21\r\n\r\n{\"factorial\":3628801}")) {
        }
    });
    checks c;
    c.factorial(10);
    plan p;
    p.url(liar.url("/factorial/10")).requests(50).concurrency(2).check(c);
    result r;
    REQUIRE_FALSE(run(p, r));
    CHECK(r.failed(failure::check) == 50);
    CHECK(r.requests_completed == 0);
    CHECK(r.responses_total_ns.count() == 50);  // latency is kept for failed responses too
    CHECK(r.total_ns.count() == 0);
    CHECK(r.goodput_per_second() == 0.0);
    CHECK(r.requests_per_second() > 0.0);
}

TEST_CASE("a failed check shows the first wrong response as it came, beside what was expected") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    const std::string base = "http://127.0.0.1:" + std::to_string(srv.port());
    checks c;
    c.body_equals("{\"factorial\":3628800}\n");  // a file written with echo: its newline is not in the answer
    plan p;
    p.url(base + "/factorial/10").requests(40).concurrency(4).threads(2).check(c);
    result r;
    REQUIRE_FALSE(run(p, r));
    CHECK(r.failed(failure::check) == 40);
    const check_failure_sample& k = r.first_failed_check;
    CHECK(k.status == 200);
    CHECK(k.target == "/factorial/10");
    CHECK(k.content_type == "application/json");
    CHECK(k.body_bytes == 21);
    CHECK(k.body == "{\"factorial\":3628800}");
    CHECK_FALSE(k.cut);
    CHECK(k.expected == "body equals \"{\"factorial\":3628800}\\n\" (22 bytes)");
    std::string ab;
    append_ab_report(report_context_of(p), r, ab);
    CHECK(ab.find("Failure reasons:        check 40\n"
                  "First failed check:     /factorial/10: status 200, application/json, 21 body bytes: "
                  "\"{\"factorial\":3628800}\"\n"
                  "   expected:            body equals \"{\"factorial\":3628800}\\n\" (22 bytes)\n") != std::string::npos);
    // The JSON keeps it, and reads back the same.
    const std::string json = result_json(p, r, {50});
    CHECK(json.find("\"first_failed_check\":{\"target\":\"/factorial/10\",\"status\":200,"
                    "\"content_type\":\"application/json\",\"body_bytes\":21,"
                    "\"body\":\"{\\\"factorial\\\":3628800}\",\"cut\":false") != std::string::npos);
    std::vector<report_run> back;
    REQUIRE_FALSE(read_report_runs(json, "", back));
    CHECK(back[0].r.first_failed_check.body == k.body);
    CHECK(back[0].r.first_failed_check.expected == k.expected);
    CHECK(result_json(back[0].config, back[0].r, {50}) == json);

    // A long wrong body: its first 200 bytes, cut; the factorial's digits expected.
    scripted_server liar([](scripted_server::context& cx) {
        const std::string body(500, '7');
        while (cx.read_request() &&
               cx.send("HTTP/1.1 503 Busy\r\nContent-Length: 500\r\n\r\n" + body)) {
        }
    });
    checks f;
    f.factorial(30);
    p.url(liar.url("/factorial/30")).requests(10).concurrency(1).threads(1).check(f);
    REQUIRE_FALSE(run(p, r));
    CHECK(r.failed(failure::check) == 10);
    CHECK(r.first_failed_check.status == 503);
    CHECK(r.first_failed_check.content_type.empty());
    CHECK(r.first_failed_check.body == std::string(200, '7'));
    CHECK(r.first_failed_check.cut);
    CHECK(r.first_failed_check.body_bytes == 500);
    CHECK(r.first_failed_check.expected == "body is 30!, 33 digits: \"265252859812191058636308480000000\"");
    // Nothing is kept when every response passes.
    p.url(base + "/factorial/30");
    REQUIRE_FALSE(run(p, r));
    CHECK(r.requests_completed == 10);
    CHECK(r.first_failed_check.status == 0);
}

TEST_CASE("of several workers' first failed responses, the earliest is kept, in either order") {
    result early, late;
    early.first_failed_check.status = 404;
    early.first_failed_check.at_ns = 100;
    late.first_failed_check.status = 500;
    late.first_failed_check.at_ns = 900;
    for (bool early_first : {true, false}) {
        CAPTURE(early_first);
        result merged;
        merged.merge(early_first ? early : late);
        merged.merge(result());  // a worker with none changes nothing
        merged.merge(early_first ? late : early);
        CHECK(merged.first_failed_check.status == 404);
        CHECK(merged.first_failed_check.at_ns == 100);
    }
}
