// Tests for url.hpp: table-driven, valid URLs and every error with its byte position.
#include <doctest/doctest.h>

#include <string>

#include "microbench.hpp"

using namespace microbench;

namespace {

struct good_case {
    const char* text;
    const char* host;
    int port;
    const char* target;
    bool ipv6;
    const char* authority;
};

const good_case good_cases[] = {
    {"http://127.0.0.1:8000/factorial/10", "127.0.0.1", 8000, "/factorial/10", false, "127.0.0.1:8000"},
    {"http://localhost", "localhost", 80, "/", false, "localhost"},
    {"http://localhost/", "localhost", 80, "/", false, "localhost"},
    {"HTTP://Example.COM:80/a?b=c", "Example.COM", 80, "/a?b=c", false, "Example.COM"},
    {"http://host?n=10", "host", 80, "/?n=10", false, "host"},
    {"http://host/factorial?n=10#frag", "host", 80, "/factorial?n=10", false, "host"},
    {"http://host#frag", "host", 80, "/", false, "host"},
    {"http://[::1]:8080/x", "::1", 8080, "/x", true, "[::1]:8080"},
    {"http://[::1]", "::1", 80, "/", true, "[::1]"},
    {"http://[2001:db8::7]/", "2001:db8::7", 80, "/", true, "[2001:db8::7]"},
    {"http://[::ffff:127.0.0.1]:1/", "::ffff:127.0.0.1", 1, "/", true, "[::ffff:127.0.0.1]:1"},
    {"http://my_host.internal-1.:65535/p", "my_host.internal-1.", 65535, "/p", false, "my_host.internal-1.:65535"},
    {"http://h:080/", "h", 80, "/", false, "h"},
    {"http://h/%20a%2Fb/~x;y=1,2", "h", 80, "/%20a%2Fb/~x;y=1,2", false, "h"},
    {"https://localhost/", "localhost", 443, "/", false, "localhost"},
    {"HTTPS://h:443/x", "h", 443, "/x", false, "h"},
    {"https://h:80/", "h", 80, "/", false, "h:80"},
    {"https://[::1]:8443/", "::1", 8443, "/", true, "[::1]:8443"},
};

struct bad_case {
    const char* text;
    errc code;
    std::size_t position;
};

const bad_case bad_cases[] = {
    {"", errc::url_empty, 0},
    {"127.0.0.1:8000/x", errc::url_no_scheme, 0},
    {"://host/", errc::url_no_scheme, 0},
    {"1http://host/", errc::url_no_scheme, 0},
    {"httpx://host/", errc::url_unsupported_scheme, 0},
    {"ftp://host/", errc::url_unsupported_scheme, 0},
    {"http://user:pw@host/", errc::url_userinfo_unsupported, 14},
    {"http:///path", errc::url_empty_host, 7},
    {"http://:80/", errc::url_empty_host, 7},
    {"http://ho$t/", errc::url_bad_host, 7},
    {"http://a..b/", errc::url_bad_host, 7},
    {"http://999.1.1.1/", errc::url_bad_host, 7},
    {"http://1.2.3/", errc::url_bad_host, 7},
    {"http://[::1/", errc::url_bad_ipv6, 7},
    {"http://[:::1]/", errc::url_bad_ipv6, 8},
    {"http://[fe80::1%25eth0]/", errc::url_bad_ipv6, 8},
    {"http://[::1]x/", errc::url_bad_port, 12},
    {"http://host:/", errc::url_bad_port, 12},
    {"http://host:0/", errc::url_bad_port, 12},
    {"http://host:65536/", errc::url_bad_port, 12},
    {"http://host:123456/", errc::url_bad_port, 12},
    {"http://host:8o/", errc::url_bad_port, 12},
    {"http://host:-1/", errc::url_bad_port, 12},
    {"http://[::1]:99999/", errc::url_bad_port, 13},
    {"http://host/a b", errc::url_bad_char, 13},
    {" http://host/", errc::url_bad_char, 0},
    {"http://host/\r\nX: y", errc::url_bad_char, 12},
    {"http://host/\x7f", errc::url_bad_char, 12},
    {"http://host/caf\xc3\xa9", errc::url_bad_char, 15},
};

}  // namespace

TEST_CASE("parse_url accepts valid URLs") {
    for (const good_case& c : good_cases) {
        CAPTURE(c.text);
        url u;
        error e = parse_url(c.text, u);
        REQUIRE_FALSE(e);
        CHECK(u.host == c.host);
        CHECK(u.port == c.port);
        CHECK(u.target == c.target);
        CHECK(u.host_is_ipv6 == c.ipv6);
        CHECK(u.authority() == c.authority);
        CHECK(u.tls == (c.text[4] == 's' || c.text[4] == 'S'));
    }
}

TEST_CASE("parse_url rejects bad URLs with a code and position") {
    for (const bad_case& c : bad_cases) {
        CAPTURE(c.text);
        url u;
        error e = parse_url(c.text, u);
        CHECK(e.code == c.code);
        CHECK(e.position == c.position);
    }
}

TEST_CASE("https:// in a build without TLS: the error says what to do") {
    const std::string message = error{errc::url_tls_unsupported, 0}.message();
    CHECK(message.find("MICROBENCH_NO_TLS") != std::string::npos);
    CHECK(message.find("transport") != std::string::npos);
}

TEST_CASE("parse_url rejects host names over 253 bytes and labels over 63") {
    url u;
    std::string label63(63, 'a');
    CHECK_FALSE(parse_url("http://" + label63 + ".com/", u));
    CHECK(parse_url("http://" + label63 + "a.com/", u).code == errc::url_bad_host);
    std::string long_host;
    while (long_host.size() < 254) long_host += "abcdefgh.";
    CHECK(parse_url("http://" + long_host + "/", u).code == errc::url_bad_host);
}
