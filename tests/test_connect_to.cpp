// Tests of --connect-to (connect_to.hpp, plan::connect_to): curl's rule syntax, each part empty or
// given, IPv6 in brackets, refusals; and runs that reach a name that does not resolve at
// 127.0.0.1 or ::1 while the Host header still names it, the report saying where they connected.
#include <doctest/doctest.h>

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "microbench.hpp"
#include "scripted_server.hpp"

namespace mb = microbench;

namespace {

std::mutex hosts_mutex;
std::set<std::string> hosts_seen;  // the Host headers the server read

void note_host(scripted_server::context& c) {
    while (c.read_request()) {
        const std::size_t at = c.head.find("\r\nHost: ");
        {
            std::lock_guard<std::mutex> lock(hosts_mutex);
            hosts_seen.insert(at == std::string::npos ? "" : c.head.substr(at + 8, c.head.find("\r\n", at + 8) - at - 8));
        }
        if (!c.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")) return;
    }
}

}  // namespace

TEST_CASE("connect-to: curl's rules, each part given or empty, IPv6 in brackets") {
    mb::connect_rule r;
    REQUIRE(mb::parse_connect_rule("example.com:443:127.0.0.1:8443", r));
    CHECK((r.host == "example.com" && r.port == 443 && r.to_host == "127.0.0.1" && r.to_port == 8443));
    REQUIRE(mb::parse_connect_rule("::127.0.0.1:", r));
    CHECK((r.host.empty() && r.port == 0 && r.to_host == "127.0.0.1" && r.to_port == 0));
    REQUIRE(mb::parse_connect_rule("[::1]:80:[fe80::1]:8080", r));
    CHECK((r.host == "::1" && r.port == 80 && r.to_host == "fe80::1" && r.to_port == 8080));
    REQUIRE(mb::parse_connect_rule(":::", r));  // everything empty: matches any, changes nothing
    REQUIRE(mb::parse_connect_rule("a:1:b", r));  // no CONNECT-TO-PORT: the URL's
    CHECK((r.host == "a" && r.port == 1 && r.to_host == "b" && r.to_port == 0));
    REQUIRE(mb::parse_connect_rule("a:1:[::1]", r));
    CHECK((r.to_host == "::1" && r.to_port == 0));
    for (const char* bad : {"", "a:1", "a:1:b:2:3", "a:x:b:2", "a:1:b:70000", "a:0:b:1", "[::1:80:b:1", "a:1:::1:2",
                            "a:1:[]:2", "a b:1:c:2"}) {
        CAPTURE(bad);
        CHECK_FALSE(mb::parse_connect_rule(bad, r));
    }
    std::string host = "example.com";
    std::uint16_t port = 443;
    std::size_t bad = 0;
    // The first that matches applies; a host matches in any case; a rule for another port does not.
    CHECK(mb::apply_connect_rules({"example.com:80:10.0.0.1:1", "EXAMPLE.com:443:127.0.0.1:", "::10.0.0.2:2"}, host, port,
                                  bad));
    CHECK((host == "127.0.0.1" && port == 443 && bad == 3));
    host = "other";
    CHECK_FALSE(mb::apply_connect_rules({"example.com:443:127.0.0.1:1"}, host, port, bad));
    CHECK(host == "other");
    CHECK_FALSE(mb::apply_connect_rules({"example.com:443:127.0.0.1:1", "nope"}, host, port, bad));
    CHECK(bad == 1);
    // A rule that matches but names nowhere else is passed over, as curl does.
    host = "example.com";
    port = 443;
    CHECK(mb::apply_connect_rules({"example.com:443::", ":::", "example.com:443:EXAMPLE.COM:443", "::127.0.0.1:"}, host,
                                  port, bad));
    CHECK((host == "127.0.0.1" && port == 443));
    host = "example.com";
    CHECK_FALSE(mb::apply_connect_rules({"example.com:443::"}, host, port, bad));
    CHECK(host == "example.com");
    CHECK(mb::host_port_text("::1", 8443) == "[::1]:8443");
    CHECK(mb::host_port_text("127.0.0.1", 80) == "127.0.0.1:80");
}

TEST_CASE("connect-to: a name that does not resolve is reached at 127.0.0.1, and its Host header still names it") {
    scripted_server server(note_host);
    const std::string port = std::to_string(server.port());
    mb::plan p;
    // Nothing resolves "microbench.invalid": only the rule takes the run anywhere.
    p.url("http://microbench.invalid:81/x").requests(20).concurrency(2).keep_alive(true);
    p.connect_to({"other.invalid:81:127.0.0.2:1", "microbench.invalid::127.0.0.1:" + port});
    std::string host = "microbench.invalid";  // the rules take it to 127.0.0.1: nothing asks a resolver
    std::uint16_t to_port = 81;
    std::size_t bad = 0;
    REQUIRE(mb::apply_connect_rules(p.connect_to(), host, to_port, bad));
    REQUIRE(host == "127.0.0.1");
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_completed == 20);
    CHECK(r.connected_to == "127.0.0.1:" + port);
    {
        std::lock_guard<std::mutex> lock(hosts_mutex);
        CHECK(hosts_seen == std::set<std::string>{"microbench.invalid:81"});
        hosts_seen.clear();
    }
    std::string notes;
    mb::append_report_notes(mb::report_context_of(p), r, notes);
    CHECK(notes.find("Note: connected to 127.0.0.1:" + port + " by --connect-to, not to the URL's host and port.\n") !=
          std::string::npos);
    const std::string json = mb::result_json(p, r, {50});
    CHECK(json.find("\"connected_to\":\"127.0.0.1:" + port + "\",") != std::string::npos);
    std::vector<mb::report_run> runs;
    REQUIRE(!mb::read_report_runs(json, "", runs));
    CHECK(runs[0].r.connected_to == r.connected_to);
    // A rule that does not read is refused by its index before anything is sent.
    p.connect_to({"microbench.invalid::127.0.0.1:" + port, "bad"});
    CHECK(p.validate().code == mb::errc::plan_bad_connect_to);
    CHECK(p.validate().position == 1);
    CHECK(mb::run(p, r).code == mb::errc::plan_bad_connect_to);
}

TEST_CASE("connect-to: an IPv6 address in brackets, and a run without a matching rule connects as it would") {
    mb::server_options o;
    o.host = "::1";
    mb::server v6;
    if (v6.start(o)) {
        MESSAGE("no ::1 here: skipped");
        return;
    }
    const std::string port = std::to_string(v6.port());
    mb::plan p;
    p.url("http://localhost.invalid:" + port + "/factorial/5").requests(4).concurrency(1).keep_alive(true);
    p.connect_to({":" + port + ":[::1]:"});  // any host on that port, to ::1 on the same port
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_completed == 4);
    CHECK(r.connected_to == "[::1]:" + port);
    p.url("http://[::1]:" + port + "/factorial/5").connect_to({"elsewhere.invalid::127.0.0.1:1"});  // no match
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_completed == 4);
    CHECK(r.connected_to.empty());
}
