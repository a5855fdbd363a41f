// Tests of targets files (vegeta's HTTP format and JSON lines): what each target holds, each fault
// at its byte (line and column), and a run of a file's targets against a server that records
// each request as it came — methods of their own (a HEAD's answer read without a body, pipelined
// behind GETs), headers, bodies, and a POST never sent twice.
#include <doctest/doctest.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "microbench.hpp"
#include "scripted_server.hpp"

namespace mb = microbench;

namespace {

std::string temp_file(const std::string& bytes) {
    char path[] = "/tmp/microbench-targets-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    close(fd);
    return path;
}

// Where a fault is, as "line:column".
std::string fault_at(const std::string& text) {
    std::vector<mb::target> out;
    const mb::error e = mb::read_targets(text, out);
    if (!e) return "none";
    std::size_t line = 0, column = 0;
    mb::line_column(text, e.position, line, column);
    return std::string(mb::errc_name(e.code)) + " " + std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

TEST_CASE("targets file: vegeta's HTTP format — methods, headers, @bodies, comments, CRLF") {
    const std::string body_path = temp_file("{\"n\": 5}");
    const std::string text = "# a comment\r\n"
                             "GET http://127.0.0.1:8000/a?x=1\r\n"
                             "X-Account: 8675309\r\n"
                             "\r\n"
                             "POST http://127.0.0.1:8000/things\r\n"
                             "Content-Type: application/json\r\n"
                             "@" + body_path + "\r\n"
                             "\r\n\r\n"
                             "  HEAD   http://127.0.0.1:8000/h  \n";
    std::vector<mb::target> out;
    std::vector<std::size_t> starts;
    REQUIRE(!mb::read_targets(text, out, &starts));
    REQUIRE(out.size() == 3);
    CHECK(out[0].method == "GET");
    CHECK(out[0].url == "http://127.0.0.1:8000/a?x=1");
    REQUIRE(out[0].headers.size() == 1);
    CHECK(out[0].headers[0].name == "X-Account");
    CHECK(out[0].headers[0].value == "8675309");
    CHECK_FALSE(out[0].has_body);
    CHECK(out[1].method == "POST");
    CHECK(out[1].has_body);
    CHECK(out[1].body == "{\"n\": 5}");
    CHECK(out[2].method == "HEAD");
    CHECK(out[2].url == "http://127.0.0.1:8000/h");
    CHECK(starts == std::vector<std::size_t>{text.find("GET"), text.find("POST"), text.find("HEAD")});
    std::remove(body_path.c_str());
}

TEST_CASE("targets file: vegeta's simple list — each METHOD URL line starts a target, blank lines or not") {
    const std::string body_path = temp_file("b");
    const std::string text = "\xEF\xBB\xBFGET http://127.0.0.1:8000/a\nGET http://127.0.0.1:8000/b\nX-A: 1\n"
                             "POST http://127.0.0.1:8000/c\n@" + body_path + "\nHEAD http://127.0.0.1:8000/d\n";
    std::vector<mb::target> out;
    std::vector<std::size_t> starts;
    REQUIRE(!mb::read_targets(text, out, &starts));  // a byte order mark first, as some editors write
    REQUIRE(out.size() == 4);
    CHECK(out[0].url == "http://127.0.0.1:8000/a");
    CHECK(out[1].headers.size() == 1);
    CHECK(out[2].body == "b");
    CHECK(out[3].method == "HEAD");
    CHECK(starts[0] == 3);
    std::remove(body_path.c_str());
}

TEST_CASE("targets file: the bodies together are bounded before they are read") {
    // A small body, then a sparse file that fits 1 GiB alone but not with the file and the first:
    // refused at its '@' line before a byte of it is read.
    const std::string small = temp_file("0123456789");
    const std::string big = temp_file("");
    std::vector<mb::target> out;
    const std::string text = "POST http://127.0.0.1/a\n@" + small + "\n\nPOST http://127.0.0.1/b\n@" + big + "\n";
    REQUIRE(truncate(big.c_str(), static_cast<off_t>(mb::defaults::max_target_bytes - text.size() - 9)) == 0);
    const mb::error e = mb::read_targets(text, out);
    CHECK(e.code == mb::errc::plan_targets_too_large);
    CHECK(e.position == text.rfind('@'));
    CHECK(out.empty());
    std::remove(small.c_str());
    std::remove(big.c_str());
}

TEST_CASE("targets file: vegeta's JSON lines — method, header lists, base64 bodies") {
    const std::string text = "# JSON lines, commented\n"
                             "{\"method\":\"PUT\",\"url\":\"http://127.0.0.1:8000/p\",\"header\":{\"A\":[\"1\",\"2\"]},"
                             "\"body\":\"aGVsbG8=\"}\n"
                             "\n# another\n"
                             "{\"url\":\"http://127.0.0.1:8000/q\"}\r\n"
                             "{\"url\":\"http://127.0.0.1:8000/r\",\"body\":\"\"}\n";
    std::vector<mb::target> out;
    REQUIRE(!mb::read_targets(text, out));
    REQUIRE(out.size() == 3);
    CHECK(out[0].method == "PUT");
    REQUIRE(out[0].headers.size() == 2);
    CHECK(out[0].headers[1].value == "2");
    CHECK(out[0].body == "hello");
    CHECK(out[1].method.empty());  // the plan's
    CHECK_FALSE(out[1].has_body);
    CHECK((out[2].has_body && out[2].body.empty()));  // "": an empty body, not the plan's
}

TEST_CASE("targets file: each fault at its line and column, nothing kept") {
    const std::string one = temp_file("a body");
    CHECK(fault_at("GET http://127.0.0.1/\n\nX-A: 1\n") == "targets_bad_line 3:1");  // a header of no target
    CHECK(fault_at("GET http://127.0.0.1/\n@" + one + "\nX-A: 1\n") == "targets_bad_line 3:1");  // a header after the body
    CHECK(fault_at("GET http://127.0.0.1/\n@/dev/null\n") == "targets_body_unreadable 2:1");  // not a regular file
    CHECK(fault_at("GET http://127.0.0.1/\nOrigin http://127.0.0.1/\n") == "targets_bad_line 2:1");  // no colon: no target
    CHECK(fault_at("\xEF\xBB\xBFG(T http://127.0.0.1/\n") == "request_bad_method 1:1");  // the mark is no column
    CHECK(fault_at("GET http://127.0.0.1/\n@/no/such/file\n") == "targets_body_unreadable 2:1");
    CHECK(fault_at("GET http://127.0.0.1/\n@" + one + "\n@" + one + "\n") == "targets_bad_line 3:1");
    CHECK(fault_at("G(T http://127.0.0.1/\n") == "request_bad_method 1:1");
    CHECK(fault_at("# c\nGET  http://127.0.0.1:99999/\n") == "url_bad_port 2:23");  // the URL's own fault, at its byte
    CHECK(fault_at("GET http://127.0.0.1/\nBad Name: 1\n") == "targets_bad_line 2:1");
    CHECK(fault_at("GET http://127.0.0.1/\nX-A: a\x01" "b\n") == "request_bad_header_value 2:1");
    CHECK(fault_at("GET http://127.0.0.1/\nTransfer-Encoding: chunked\n") == "request_transfer_encoding_unsupported 2:1");
    CHECK(fault_at("GET\n") == "targets_bad_line 1:1");
    CHECK(fault_at("# only a comment\n\n") == "targets_none 3:1");
    CHECK(fault_at("{\"url\":\"http://127.0.0.1/\"}\n{\"url\":1}\n") == "targets_bad_json 2:1");
    CHECK(fault_at("{\"url\":\"http://127.0.0.1/\"}\n{\"url\":\"http://127.0.0.1/\",\"body\":\"***\"}\n") ==
          "targets_bad_json 2:1");
    CHECK(fault_at("{\"url\":\"http://127.0.0.1/\"}\n  {\"url\":\"x\" \n") == "json_bad 2:13");
    CHECK(fault_at("{\"url\":\"http://127.0.0.1/\",\"header\":{\"A\":\"not a list\"}}\n") == "targets_bad_json 1:1");
    std::vector<mb::target> out{mb::target("kept?")};
    CHECK(mb::read_targets("GET http://127.0.0.1/\n\nnot-a-line\n", out).code == mb::errc::targets_bad_line);
    CHECK(out.empty());
    CHECK(mb::read_targets_file("/no/such/targets", out).code == mb::errc::targets_unreadable);
    std::remove(one.c_str());
}

namespace {

std::mutex heads_mutex;
std::vector<std::string> heads;  // each request as it came: its head, then its body

// Keep-alive: records each request (its head and Content-Length body); a HEAD gets a head saying
// 5 bytes and no body, the rest "hello". /drop closes the connection unanswered.
void recording_server(scripted_server::context& c) {
    while (c.read_request()) {
        std::string request = c.head;
        const std::size_t cl = c.head.find("Content-Length: ");
        if (cl != std::string::npos) {
            const std::size_t n = std::stoul(c.head.substr(cl + 16));
            while (c.pending.size() < n) {
                char buf[4096];
                const ssize_t got = ::recv(c.fd, buf, sizeof buf, 0);
                if (got <= 0) return;
                c.pending.append(buf, static_cast<std::size_t>(got));
            }
            request += "|" + c.pending.substr(0, n);
            c.pending.erase(0, n);
        }
        {
            std::lock_guard<std::mutex> lock(heads_mutex);
            heads.push_back(request);
        }
        if (c.head.find(" /drop ") != std::string::npos) return;
        const bool head = c.head.compare(0, 5, "HEAD ") == 0;
        if (!c.send(std::string("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n") + (head ? "" : "hello"))) return;
    }
}

std::vector<std::string> take_heads() {
    std::lock_guard<std::mutex> lock(heads_mutex);
    std::vector<std::string> out;
    out.swap(heads);
    return out;
}

std::size_t count_starting(const std::vector<std::string>& seen, const std::string& prefix) {
    std::size_t n = 0;
    for (const std::string& s : seen) n += s.compare(0, prefix.size(), prefix) == 0;
    return n;
}

}  // namespace

TEST_CASE("targets file: a run sends each target's own method, headers and body, a HEAD pipelined behind GETs") {
    scripted_server server(recording_server);
    const std::string base = server.url("");
    std::vector<mb::target> targets;
    REQUIRE(!mb::read_targets("GET " + base + "/g\nX-Mine: yes\nUser-Agent: vegeta\nCookie: a=1\nCookie: b=2\n\n"
                              "HEAD " + base + "/h\n", targets));
    targets.push_back(mb::target(base + "/p"));
    targets.back().method = "POST";
    targets.back().body = "post";
    targets.back().has_body = true;
    take_heads();
    for (std::uint32_t pipeline : {1u, 3u}) {
        mb::plan p;
        p.targets(targets).requests(60).concurrency(2).keep_alive(true).pipeline(pipeline);
        p.header("Cookie", "plan=1").header("Cookie", "plan=2").header("X-Plan", "p");
        mb::result r;
        REQUIRE(!mb::run(p, r));
        CHECK_MESSAGE(r.requests_completed == 60, "pipeline ", pipeline);
        CHECK(r.requests_failed == 0);  // the HEAD's answer read without its 5 bytes: nothing out of step
        const std::vector<std::string> seen = take_heads();
        CHECK(seen.size() == 60);
        CHECK(count_starting(seen, "GET /g HTTP/1.1\r\n") == 20);
        CHECK(count_starting(seen, "HEAD /h HTTP/1.1\r\n") == 20);
        CHECK(count_starting(seen, "POST /p HTTP/1.1\r\n") == 20);
        for (const std::string& s : seen) {
            if (s.compare(0, 3, "GET") == 0) {
                CHECK(s.find("\r\nX-Mine: yes") != std::string::npos);
                CHECK(s.find("\r\nUser-Agent: vegeta") != std::string::npos);  // replaces the default
                CHECK(s.find("microbench/") == std::string::npos);
                CHECK(s.find("\r\nCookie: a=1\r\nCookie: b=2") != std::string::npos);  // both of the target's
                CHECK(s.find("plan=") == std::string::npos);  // every plan Cookie replaced
                CHECK(s.find("\r\nX-Plan: p") != std::string::npos);
            }
            if (s.compare(0, 4, "POST") == 0) CHECK(s.substr(s.size() - 5) == "|post");
            if (s.compare(0, 4, "HEAD") == 0) CHECK(s.find("X-Mine") == std::string::npos);
        }
    }
}

TEST_CASE("targets file: after a keep-alive close, a GET is sent again, a POST is not") {
    scripted_server server(recording_server);
    const std::string base = server.url("");
    std::vector<mb::target> targets;
    // On one connection at a time: /g served, then POST /drop met the close (failed), /g on a new
    // connection, then GET /drop met the close and went again once on a fresh one (failed there).
    REQUIRE(!mb::read_targets("GET " + base + "/g\n\nPOST " + base + "/drop\n\nGET " + base + "/g\n\nGET " + base +
                              "/drop\n", targets));
    take_heads();
    mb::plan p;
    p.targets(targets).requests(4).concurrency(1).keep_alive(true);
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_ended == 4);
    CHECK(r.requests_completed == 2);
    CHECK(r.requests_failed == 2);
    CHECK(r.retries == 1);
    const std::vector<std::string> seen = take_heads();
    CHECK(count_starting(seen, "POST /drop ") == 1);  // not idempotent: once
    CHECK(count_starting(seen, "GET /drop ") == 2);   // idempotent: sent again once, then failed
}
