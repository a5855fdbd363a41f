// Tests for request.hpp: exact bytes for the common shapes, header replacement, and refusal of
// anything that could inject a header or break framing.
#include <doctest/doctest.h>

#include <string>

#include "microbench.hpp"

using namespace microbench;

namespace {

url make_url(const char* text) {
    url u;
    REQUIRE_FALSE(parse_url(text, u));
    return u;
}

const std::string ua = "User-Agent: microbench/" MICROBENCH_VERSION_STRING "\r\n";

}  // namespace

TEST_CASE("GET with keep-alive: Host with port, defaults, no Connection header") {
    std::string out;
    REQUIRE_FALSE(build_request(make_url("http://127.0.0.1:8000/factorial/10"), {}, out));
    CHECK(out == "GET /factorial/10 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n" + ua + "Accept: */*\r\n\r\n");
}

TEST_CASE("Host omits port 80, IPv6 keeps brackets, keep_alive=false sends Connection: close") {
    std::string out;
    request_options o;
    o.keep_alive = false;
    REQUIRE_FALSE(build_request(make_url("http://[::1]/x?y=1"), o, out));
    CHECK(out == "GET /x?y=1 HTTP/1.1\r\nHost: [::1]\r\n" + ua + "Accept: */*\r\nConnection: close\r\n\r\n");
}

TEST_CASE("POST body gets Content-Type and Content-Length") {
    std::string out;
    request_options o;
    o.method = "POST";
    o.body = "{\"n\":10}";
    o.content_type = "application/json";
    REQUIRE_FALSE(build_request(make_url("http://h/echo"), o, out));
    CHECK(out == "POST /echo HTTP/1.1\r\nHost: h\r\n" + ua +
                     "Accept: */*\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n{\"n\":10}");
}

TEST_CASE("POST without a body still says Content-Length: 0, GET does not") {
    std::string out;
    request_options o;
    o.method = "POST";
    REQUIRE_FALSE(build_request(make_url("http://h/"), o, out));
    CHECK(out.find("Content-Length: 0\r\n") != std::string::npos);
    CHECK(out.find("Content-Type") == std::string::npos);
    o.method = "GET";
    REQUIRE_FALSE(build_request(make_url("http://h/"), o, out));
    CHECK(out.find("Content-Length") == std::string::npos);
}

TEST_CASE("any token is a method, HEAD and OPTIONS work") {
    std::string out;
    for (const char* m : {"HEAD", "OPTIONS", "DELETE", "PATCH", "PUT", "PURGE"}) {
        request_options o;
        o.method = m;
        REQUIRE_FALSE(build_request(make_url("http://h/"), o, out));
        CHECK(out.rfind(std::string(m) + " / HTTP/1.1\r\n", 0) == 0);
    }
}

TEST_CASE("user headers replace defaults in place (case-insensitive) and others follow in order") {
    std::string out;
    request_options o;
    o.headers = {{"X-One", "1"}, {"accept", "application/json"}, {"Host", "virtual.example"}, {"X-Two", "2"}};
    REQUIRE_FALSE(build_request(make_url("http://127.0.0.1:9/"), o, out));
    CHECK(out == "GET / HTTP/1.1\r\nHost: virtual.example\r\n" + ua +
                     "accept: application/json\r\nX-One: 1\r\nX-Two: 2\r\n\r\n");
}

TEST_CASE("a matching user Content-Length is allowed, a mismatching one is refused") {
    std::string out;
    request_options o;
    o.method = "PUT";
    o.body = "abc";
    o.headers = {{"Content-Length", "3"}};
    REQUIRE_FALSE(build_request(make_url("http://h/"), o, out));
    CHECK(out.find("Content-Length: 3\r\n") != std::string::npos);
    o.headers = {{"Content-Length", "4"}};
    error e = build_request(make_url("http://h/"), o, out);
    CHECK(e.code == errc::request_content_length_mismatch);
    CHECK(out.empty());
}

TEST_CASE("header injection and bad tokens are refused with the header's index") {
    std::string out;
    struct bad {
        const char* method;
        header h;
        errc code;
    };
    const bad cases[] = {
        {"GET", {"X-A", "v\r\nInjected: 1"}, errc::request_bad_header_value},
        {"GET", {"X-A", "v\nInjected: 1"}, errc::request_bad_header_value},
        {"GET", {"X-A", std::string("v\0x", 3)}, errc::request_bad_header_value},
        {"GET", {"X A", "v"}, errc::request_bad_header_name},
        {"GET", {"", "v"}, errc::request_bad_header_name},
        {"GET", {"X:A", "v"}, errc::request_bad_header_name},
        {"GET", {"Transfer-Encoding", "chunked"}, errc::request_transfer_encoding_unsupported},
        {"G ET", {"X-A", "v"}, errc::request_bad_method},
        {"GET\r\n", {"X-A", "v"}, errc::request_bad_method},
        {"", {"X-A", "v"}, errc::request_bad_method},
    };
    for (const bad& c : cases) {
        CAPTURE(c.h.name);
        request_options o;
        o.method = c.method;
        o.headers = {{"X-Ok", "fine"}, c.h};
        error e = build_request(make_url("http://h/"), o, out);
        CHECK(e.code == c.code);
        if (c.code != errc::request_bad_method) CHECK(e.position == 1);
        CHECK(out.empty());
    }
    request_options o;
    o.body = "x";
    o.content_type = "text/plain\r\nX: y";
    CHECK(build_request(make_url("http://h/"), o, out).code == errc::request_bad_header_value);
}

TEST_CASE("parse_header_line splits ab-style -H values") {
    header h;
    REQUIRE_FALSE(parse_header_line("Authorization:  Bearer abc \t", h));
    CHECK(h.name == "Authorization");
    CHECK(h.value == "Bearer abc");
    REQUIRE_FALSE(parse_header_line("X-Empty:", h));
    CHECK(h.value.empty());
    CHECK(parse_header_line("NoColon", h).code == errc::request_bad_header_line);
    CHECK(parse_header_line(": value", h).code == errc::request_bad_header_line);
}
