// Tests for response_parser.hpp. Every fixture is fed whole, in pieces of 1, 2, 3, 7 and 64
// bytes, and (when it can be) as three pipelined copies in one buffer; every parse() call sees
// its input right before a PROT_NONE page. All ways must give the same transcript.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "guarded_buffer.hpp"
#include "microbench.hpp"

using namespace microbench;

namespace {

// What the parser reported about one response.
struct record {
    int status = 0;
    bool keep_alive = false;
    body_framing framing = body_framing::none;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::uint64_t body_bytes = 0;
    bool complete = false;
    error err;

    bool operator==(const record& o) const {
        return status == o.status && keep_alive == o.keep_alive && framing == o.framing && headers == o.headers &&
               body == o.body && body_bytes == o.body_bytes && complete == o.complete && err == o.err;
    }
};

// Feeds `input` as a connection would: `step` bytes arrive at a time into a receive buffer of
// unconsumed bytes; every parse() call gets that buffer placed right before a guard page.
std::vector<record> run_parser(std::string_view input, std::size_t step, bool head, bool eof,
                               const response_limits& limits = {}) {
    guarded_buffer guard(input.size() + 1);
    REQUIRE(guard.ok());
    response_parser p(limits);
    p.reset(head);
    std::vector<record> out;
    record cur;
    std::string pending;
    bool failed = false;

    auto drain = [&] {
        for (;;) {
            const char* data = guard.place(pending);
            parse_result r = p.parse(data, pending.size());
            REQUIRE(r.consumed <= pending.size());
            if (r.event == parse_event::headers) {
                cur.status = p.status();
                cur.keep_alive = p.keep_alive();
                cur.framing = p.framing();
                for (std::size_t i = 0; i < p.header_count(); ++i)
                    cur.headers.emplace_back(std::string(p.header(i).name), std::string(p.header(i).value));
            }
            cur.body.append(r.body.data(), r.body.size());
            pending.erase(0, r.consumed);
            switch (r.event) {
                case parse_event::need_more: return;
                case parse_event::headers:
                case parse_event::body: break;
                case parse_event::complete:
                    cur.complete = true;
                    cur.body_bytes = p.body_bytes();
                    out.push_back(cur);
                    cur = {};
                    p.reset(head);
                    break;
                case parse_event::error:
                    cur.err = p.last_error();
                    out.push_back(cur);
                    failed = true;
                    return;
            }
        }
    };

    for (std::size_t fed = 0; fed < input.size() && !failed;) {
        std::size_t n = std::min(step, input.size() - fed);
        pending.append(input.substr(fed, n));
        fed += n;
        drain();
    }
    if (!failed && p.started()) {
        if (eof) {
            parse_result r = p.finish();
            cur.complete = r.event == parse_event::complete;
            cur.body_bytes = p.body_bytes();
            if (!cur.complete) cur.err = p.last_error();
        }
        out.push_back(cur);
    }
    return out;
}

struct fixture {
    const char* name;
    std::string input;
    bool head = false;  // the request was HEAD
    bool eof = false;   // the server closes after the input
    // expected, for the first response
    errc code = errc::ok;
    std::size_t position = 0;
    int status = 200;
    bool keep_alive = true;
    body_framing framing = body_framing::content_length;
    std::string body;
};

fixture ok(const char* name, std::string input, int status, bool keep_alive, body_framing framing, std::string body) {
    fixture f;
    f.name = name;
    f.input = std::move(input);
    f.status = status;
    f.keep_alive = keep_alive;
    f.framing = framing;
    f.body = std::move(body);
    return f;
}

fixture bad(const char* name, std::string input, errc code, std::size_t position, bool eof = false) {
    fixture f;
    f.name = name;
    f.input = std::move(input);
    f.code = code;
    f.position = position;
    f.eof = eof;
    return f;
}

fixture with_eof(fixture f) {
    f.eof = true;
    return f;
}

fixture with_head(fixture f) {
    f.head = true;
    return f;
}

const std::string ok_line = "HTTP/1.1 200 OK\r\n";  // 17 bytes
using bf = body_framing;

std::vector<fixture> fixtures() {
    std::string big(100000, 'x');
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
    std::string many_headers = ok_line;
    for (int i = 0; i < 64; ++i) many_headers += "X-" + std::to_string(i) + ": v\r\n";
    std::size_t too_many_at = many_headers.size();
    many_headers += "X-64: v\r\n\r\n";

    return {
        // framing by Content-Length
        ok("content-length", ok_line + "Content-Length: 5\r\n\r\nhello", 200, true, bf::content_length, "hello"),
        ok("header names are case-insensitive", ok_line + "content-LENGTH: 5\r\n\r\nhello", 200, true, bf::content_length, "hello"),
        ok("zero length", ok_line + "Content-Length: 0\r\n\r\n", 200, true, bf::content_length, ""),
        ok("large body", ok_line + "Content-Length: 100000\r\n\r\n" + big, 200, true, bf::content_length, big),
        ok("error status with body", "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\noops", 500, true, bf::content_length, "oops"),
        ok("no reason phrase", "HTTP/1.1 200\r\nContent-Length: 1\r\n\r\nx", 200, true, bf::content_length, "x"),
        ok("empty reason phrase", "HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n", 404, true, bf::content_length, ""),
        ok("obs-text in reason", "HTTP/1.1 200 \xc3\xa9t\xc3\xa9\r\nContent-Length: 0\r\n\r\n", 200, true, bf::content_length, ""),
        ok("value whitespace trimmed, empty value kept", ok_line + "X-A:  \t a b \t\r\nX-Empty:\r\nContent-Length: 0\r\n\r\n", 200, true, bf::content_length, ""),
        ok("bare LF line ends", "HTTP/1.1 200 OK\nContent-Length: 3\n\nabc", 200, true, bf::content_length, "abc"),
        ok("mixed line ends", "HTTP/1.1 200 OK\r\nContent-Length: 3\n\r\nabc", 200, true, bf::content_length, "abc"),
        ok("HTTP/1.2 is treated as 1.1", "HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n", 200, true, bf::content_length, ""),
        // connection persistence
        ok("HTTP/1.0 closes by default", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi", 200, false, bf::content_length, "hi"),
        ok("HTTP/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nhi", 200, true, bf::content_length, "hi"),
        ok("HTTP/1.1 Connection: close", ok_line + "Connection: x, close\r\nContent-Length: 2\r\n\r\nhi", 200, false, bf::content_length, "hi"),
        // chunked
        ok("chunked", ok_line + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", 200, true, bf::chunked, "hello world"),
        ok("chunk extensions and trailers", ok_line + "Transfer-Encoding: chunked\r\n\r\n4;name=value;x\r\nWiki\r\n5 ;e=\"q\"\r\npedia\r\n0;last\r\nExpires: never\r\nX-T: 1\r\n\r\n", 200, true, bf::chunked, "Wikipedia"),
        ok("chunk sizes in hex, either case, leading zeros", ok_line + "Transfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0000000000000000001b\r\nabcdefghijklmnopqrstuvwxyz!\r\n0\r\n\r\n", 200, true, bf::chunked, "0123456789abcdefghijklmnopqrstuvwxyz!"),
        ok("chunked with bare LF", "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n", 200, true, bf::chunked, "abc"),
        ok("large chunk", ok_line + "Transfer-Encoding: chunked\r\n\r\n186a0\r\n" + big + "\r\n0\r\n\r\n", 200, true, bf::chunked, big),
        ok("gzip, chunked is chunked", ok_line + "Transfer-Encoding: gzip, chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n", 200, true, bf::chunked, "z"),
        ok("Transfer-Encoding beats Content-Length, but no reuse", ok_line + "Content-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n", 200, false, bf::chunked, "z"),
        // no body
        with_head(ok("HEAD ignores Content-Length", ok_line + "Content-Length: 100\r\n\r\n", 200, true, bf::none, "")),
        with_head(ok("HEAD ignores chunked", ok_line + "Transfer-Encoding: chunked\r\n\r\n", 200, true, bf::none, "")),
        ok("204 has no body", "HTTP/1.1 204 No Content\r\n\r\n", 204, true, bf::none, ""),
        ok("304 has no body despite Content-Length", "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", 304, true, bf::none, ""),
        ok("101 ends the HTTP conversation", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", 101, false, bf::none, ""),
        ok("100-continue is skipped", "HTTP/1.1 100 Continue\r\n\r\n" + ok_line + "Content-Length: 2\r\n\r\nok", 200, true, bf::content_length, "ok"),
        ok("several interim responses are skipped", "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n" + ok_line + "Content-Length: 2\r\n\r\nok", 200, true, bf::content_length, "ok"),
        // close-delimited
        with_eof(ok("no length: body until close", ok_line + "\r\nbody until close", 200, false, bf::until_close, "body until close")),
        with_eof(ok("unknown coding: body until close", ok_line + "Transfer-Encoding: gzip\r\n\r\nzz", 200, false, bf::until_close, "zz")),
        with_eof(ok("empty body until close", "HTTP/1.0 200 OK\r\n\r\n", 200, false, bf::until_close, "")),

        // status line
        bad("too short", "HTTP/1.1\r\n\r\n", errc::response_bad_status_line, 0),
        bad("not HTTP", "ICY 200 OK\r\nX: y\r\n\r\n", errc::response_bad_status_line, 0),
        bad("HTTP/2", "HTTP/2.0 200 OK\r\n\r\n", errc::response_bad_version, 5),
        bad("HTTP/1.x", "HTTP/1.x 200 OK\r\n\r\n", errc::response_bad_version, 5),
        bad("tab after version", "HTTP/1.1\t200 OK\r\n\r\n", errc::response_bad_status_line, 8),
        bad("letters in status", "HTTP/1.1 2x0 OK\r\n\r\n", errc::response_bad_status_code, 9),
        bad("status below 100", "HTTP/1.1 099 OK\r\n\r\n", errc::response_bad_status_code, 9),
        bad("four-digit status", "HTTP/1.1 2000 OK\r\n\r\n", errc::response_bad_status_code, 9),
        bad("control character in reason", "HTTP/1.1 200 O\x01K\r\n\r\n", errc::response_bad_status_line, 14),
        bad("blank first line", "\r\n\r\n", errc::response_bad_status_line, 0),
        // header fields
        bad("no colon", ok_line + "NoColon\r\n\r\n", errc::response_bad_header, 24),
        bad("space before colon", ok_line + "Name : v\r\n\r\n", errc::response_bad_header, 21),
        bad("empty name", ok_line + ": v\r\n\r\n", errc::response_bad_header, 17),
        bad("obsolete folding", ok_line + "X: a\r\n  b\r\n\r\n", errc::response_obsolete_line_folding, 23),
        bad("NUL in value", ok_line + std::string("X: a\0b\r\n\r\n", 10), errc::response_bad_header, 21),
        bad("bare CR in value", ok_line + "X: a\rb\r\n\r\n", errc::response_bad_header, 21),
        bad("Content-Length with letters", ok_line + "Content-Length: 12a\r\n\r\n", errc::response_bad_content_length, 33),
        bad("negative Content-Length", ok_line + "Content-Length: -1\r\n\r\n", errc::response_bad_content_length, 33),
        bad("empty Content-Length", ok_line + "Content-Length:\r\n\r\n", errc::response_bad_content_length, 32),
        bad("Content-Length list", ok_line + "Content-Length: 5, 5\r\n\r\nhello", errc::response_bad_content_length, 33),
        bad("Content-Length over 18 digits", ok_line + "Content-Length: 1234567890123456789\r\n\r\n", errc::response_bad_content_length, 33),
        bad("duplicate Content-Length", ok_line + "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello", errc::response_duplicate_content_length, 36),
        bad("conflicting Content-Length", ok_line + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", errc::response_conflicting_content_length, 36),
        bad("too many headers", many_headers, errc::response_too_many_headers, too_many_at),
        bad("head over the size limit", ok_line + "X: " + std::string(20000, 'v') + "\r\n\r\n", errc::response_headers_too_large, 16384),
        // chunk framing
        bad("chunk size not hex", ok_line + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", errc::response_bad_chunk_size, 47),
        bad("chunk size missing", ok_line + "Transfer-Encoding: chunked\r\n\r\n\r\n", errc::response_bad_chunk_size, 47),
        bad("chunk size over 2^60", ok_line + "Transfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", errc::response_bad_chunk_size, 62),
        bad("chunk data too long", ok_line + "Transfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n", errc::response_bad_chunk, 55),
        bad("CR without LF after size", ok_line + "Transfer-Encoding: chunked\r\n\r\n5\rhello", errc::response_bad_chunk, 49),
        bad("control character in extension", ok_line + "Transfer-Encoding: chunked\r\n\r\n5;\x01\r\nhello", errc::response_bad_chunk, 49),
        bad("trailers over the limit", ok_line + "Transfer-Encoding: chunked\r\n\r\n0\r\nX: " + std::string(20000, 't') + "\r\n\r\n", errc::response_trailers_too_large, 47 + 3 + 16384),
        bad("extension over the limit", ok_line + "Transfer-Encoding: chunked\r\n\r\n1;" + std::string(20000, 'e') + "\r\nz\r\n0\r\n\r\n", errc::response_trailers_too_large, 47 + 1 + 16384),
        // EOF in the middle
        bad("EOF inside the head", ok_line + "Content-Le", errc::response_truncated, 27, true),
        bad("EOF inside a Content-Length body", ok_line + "Content-Length: 10\r\n\r\nabc", errc::response_truncated, 42, true),
        bad("EOF inside a chunk", ok_line + "Transfer-Encoding: chunked\r\n\r\n5\r\nhel", errc::response_truncated, 53, true),
        bad("EOF before the last chunk", ok_line + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", errc::response_truncated, 57, true),
    };
}

const std::size_t steps[] = {1, 2, 3, 7, 64};

}  // namespace

TEST_CASE("response fixtures: expected outcome, the same whole, in pieces and pipelined") {
    for (const fixture& f : fixtures()) {
        CAPTURE(f.name);
        std::vector<record> whole = run_parser(f.input, f.input.size(), f.head, f.eof);
        REQUIRE(whole.size() == 1);
        const record& r = whole[0];
        if (f.code == errc::ok) {
            CHECK(r.err.code == errc::ok);
            CHECK(r.complete);
            CHECK(r.status == f.status);
            CHECK(r.keep_alive == f.keep_alive);
            CHECK(r.framing == f.framing);
            CHECK(r.body == f.body);
            CHECK(r.body_bytes == f.body.size());
        } else {
            CHECK_FALSE(r.complete);
            CHECK(r.err.code == f.code);
            CHECK(r.err.position == f.position);
        }
        for (std::size_t step : steps) {
            CAPTURE(step);
            CHECK(run_parser(f.input, step, f.head, f.eof) == whole);
        }
        if (f.code == errc::ok && !f.eof && f.keep_alive) {
            std::vector<record> piped = run_parser(f.input + f.input + f.input, f.input.size(), f.head, false);
            REQUIRE(piped.size() == 3);
            for (const record& p : piped) CHECK(p == r);
            CHECK(run_parser(f.input + f.input + f.input, 5, f.head, false) == piped);
        }
    }
}

TEST_CASE("pipelined responses of different shapes in one buffer") {
    std::string in = ok_line + "Content-Length: 1\r\n\r\na" + "HTTP/1.1 204 No Content\r\n\r\n" +
                     "HTTP/1.1 100 Continue\r\n\r\n" + ok_line + "Transfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\n" +
                     "HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nc";
    for (std::size_t step : {in.size(), std::size_t{1}, std::size_t{4}}) {
        std::vector<record> out = run_parser(in, step, false, false);
        REQUIRE(out.size() == 4);
        CHECK(out[0].body == "a");
        CHECK(out[1].status == 204);
        CHECK(out[2].body == "b");
        CHECK(out[2].framing == body_framing::chunked);
        CHECK(out[3].status == 404);
        CHECK(out[3].body == "c");
    }
}

TEST_CASE("header views, find_header and head_bytes") {
    std::string in = ok_line + "Server: test\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\n362";
    response_parser p;
    p.reset();
    parse_result r = p.parse(in);
    REQUIRE(r.event == parse_event::headers);
    CHECK(r.consumed == in.size() - 3);
    CHECK(p.head_bytes() == r.consumed);
    CHECK(p.header_count() == 3);
    REQUIRE(p.find_header("content-type") != nullptr);
    CHECK(p.find_header("content-type")->value == "text/plain");
    CHECK(p.find_header("X-Missing") == nullptr);
    CHECK(p.content_length() == 3);
    CHECK(p.http_minor() == 1);
    r = p.parse(in.data() + r.consumed, 3);
    CHECK(r.event == parse_event::complete);
    CHECK(r.body == "362");
    CHECK(p.is_complete());
}

TEST_CASE("started() tells an idle close from a cut response") {
    response_parser p;
    p.reset();
    CHECK_FALSE(p.started());
    CHECK(p.finish().event == parse_event::error);
    CHECK(p.last_error().code == errc::response_truncated);
    p.reset();
    CHECK(p.parse("HTTP/1.1 2", 10).event == parse_event::need_more);
    CHECK(p.started());
    CHECK(p.finish().event == parse_event::error);
    CHECK(p.last_error().position == 10);
}

TEST_CASE("limits are configurable") {
    response_limits limits;
    limits.max_headers = 2;
    limits.max_header_bytes = 64;
    std::string three = ok_line + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n";
    std::vector<record> out = run_parser(three, three.size(), false, false, limits);
    REQUIRE(out.size() == 1);
    CHECK(out[0].err.code == errc::response_too_many_headers);
    CHECK(out[0].err.position == 29);
    std::string long_head = ok_line + "X: " + std::string(60, 'v') + "\r\n\r\n";
    for (std::size_t step : {long_head.size(), std::size_t{1}}) {
        out = run_parser(long_head, step, false, false, limits);
        REQUIRE(out.size() == 1);
        CHECK(out[0].err == error{errc::response_headers_too_large, 64});
    }
}

TEST_CASE("an error is sticky until reset") {
    response_parser p;
    p.reset();
    CHECK(p.parse("BOGUS 200 OK\r\n\r\n", 16).event == parse_event::error);
    CHECK(p.parse("HTTP/1.1 200 OK\r\n\r\n", 19).event == parse_event::error);
    p.reset();
    CHECK(p.parse("HTTP/1.1 204 OK\r\n\r\n", 19).event == parse_event::headers);
}
