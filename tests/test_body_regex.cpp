// Tests for body_regex.hpp and checks::body_matches: verdicts whether the body arrives whole or in
// pieces, what is refused and why, the per-connection body buffer reset between responses on one
// connection, and the check in the engine against the reference server and a scripted one.
#include <doctest/doctest.h>

#include <regex.h>

#include <clocale>
#include <string>
#include <vector>

#include "checks_verdict.hpp"
#include "microbench.hpp"
#include "scripted_server.hpp"

using namespace microbench;

TEST_CASE("body regex: found anywhere, anchored by ^ and $, across pieces") {
    checks digits;
    digits.body_matches("^[0-9]+\n?$");
    CHECK_FALSE(digits.problem());
    CHECK(digits.regex_message().empty());
    CHECK_FALSE(digits.empty());
    CHECK(verdict(digits, "3628800"));
    CHECK(verdict(digits, "3628800\n"));
    CHECK_FALSE(verdict(digits, "3628800\n\n"));
    CHECK_FALSE(verdict(digits, " 3628800"));
    CHECK_FALSE(verdict(digits, ""));

    checks inside;
    inside.body_matches("\"factorial\": *[1-9][0-9]*[,}]");
    CHECK(verdict(inside, "{\"n\":10,\"factorial\": 3628800}"));
    CHECK(verdict(inside, "{\"factorial\":3628800,\"n\":10}"));
    CHECK_FALSE(verdict(inside, "{\"factorial\":\"3628800\"}"));

    checks lines;  // '.' crosses lines, and ^ and $ are the body's ends, not a line's
    lines.body_matches("^a.b$");
    CHECK(verdict(lines, "a\nb"));
    CHECK_FALSE(verdict(lines, "x\na\nb"));

    checks past_nul;  // the whole body is searched, NUL bytes and all; '.' is any byte
    past_nul.body_matches("b$");
    CHECK(verdict(past_nul, std::string("a\0b", 3)));
    checks dot;
    dot.body_matches("a.b");
    CHECK(verdict(dot, std::string("a\0b", 3)));
    checks bracket;
    bracket.body_matches("a[^x]b");
    CHECK(verdict(bracket, std::string("a\0b", 3)));
    CHECK_FALSE(verdict(bracket, "axb"));
    checks newline;  // a match after a newline
    newline.body_matches("a.b$");
    CHECK(verdict(newline, "x\na\nb"));

    checks alternatives;  // ^ in one alternative only
    alternatives.body_matches("^x|y$");
    CHECK(verdict(alternatives, "xa"));
    CHECK(verdict(alternatives, "ay"));
    CHECK_FALSE(verdict(alternatives, "axa"));
    checks wrapped;  // a '|' splits the whole pattern
    wrapped.body_matches("x$|y");
    CHECK(verdict(wrapped, "ax"));
    CHECK(verdict(wrapped, "yb"));
    CHECK_FALSE(verdict(wrapped, "xb"));
}

TEST_CASE("body regex: the same verdicts as the C library's regexec, over patterns and bodies of every kind") {
    // glibc's <regex.h> in the C locale as the reference, where the two agree on what ERE means:
    // no NUL bytes in the bodies, ^ only where no text comes before it, $ only at the end.
    const char* patterns[] = {"a", "ab|ba", "^ab", "b$", "^a*$", "a+b+", "a?b", "(ab)+", "(a|b)*c", "a{2}", "a{2,}",
                              "^a{1,3}b", "[ab]{3}", "[^a]", "[a-c]+$", "[[:digit:]]+", "[[:alpha:]][[:digit:]]",
                              "[]a]", "[^]a]", "\\{", "\\.", ".", "^.$", "a.c", "(a|)b", "((a|b)c)+d", "^(a|aa)*b$",
                              "x*", "^$", "(^a|b)", "a|b$", "[[:space:]]", "[[:punct:]]+", "[[:upper:]]", "[a-]",
                              "[-a]", "[.]", "a{0,1}b{2}", "(a{2}){2}", "\"id\": *\"[0-9a-f]{4}\""};
    std::vector<std::string> bodies = {"", "a", "b", "ab", "ba", "aab", "abc", "aaab", "c", "xyz", "a b", "a\nb", "A1",
                                       "{\"id\": \"12ef\"}", "a.c", "abcabc", "]", "-", "aa", "aaaa", "1234",
                                       "ab\n", "\n", "a\tb"};
    std::uint64_t seed = 42;
    for (int i = 0; i < 200; ++i) {  // and bodies drawn from the patterns' alphabet
        std::string b;
        for (int n = static_cast<int>((seed >> 7) % 9); n > 0; --n) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            b += "abc1 .-]\n{"[(seed >> 33) % 10];
        }
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        bodies.push_back(b);
    }
    int compared = 0;
    for (const char* pattern : patterns) {
        CAPTURE(pattern);
        std::string why;
        const std::shared_ptr<const body_regex> ours = body_regex::compile(pattern, why);
        REQUIRE_MESSAGE(ours.get() != nullptr, why);
        regex_t theirs;
        REQUIRE(regcomp(&theirs, pattern, REG_EXTENDED | REG_NOSUB) == 0);
        regex_scratch room;
        room.fit(ours->steps());
        for (const std::string& body : bodies) {
            CAPTURE(body);
            CHECK(ours->matches(body, &room) == (regexec(&theirs, body.c_str(), 0, nullptr, 0) == 0));
            ++compared;
        }
        regfree(&theirs);
    }
    CHECK(compared == 40 * 224);
}

TEST_CASE("body regex: byte by byte in the C locale, whatever locale the host set") {
    checks one;
    one.body_matches("^.$");
    checks two;
    two.body_matches("^..$");
    const std::string e_acute = "\xc3\xa9";  // one character in UTF-8, two bytes
    const std::string before = std::setlocale(LC_ALL, nullptr);
    const bool utf8 = std::setlocale(LC_ALL, "C.UTF-8") != nullptr;
    checks compiled_in_utf8;
    compiled_in_utf8.body_matches("^.$");
    CHECK_FALSE(verdict(one, e_acute));
    CHECK(verdict(two, e_acute));
    CHECK_FALSE(verdict(compiled_in_utf8, e_acute));
    std::setlocale(LC_ALL, before.c_str());
    if (!utf8) MESSAGE("no C.UTF-8 locale here: matched in the C locale only");
}

TEST_CASE("body regex: refused patterns say why, and a refused one leaves no check") {
    for (const std::string& bad :
         {std::string(""), std::string("a(b"), std::string("[z-a]"), std::string("x{2,1}"), std::string(4097, 'a'),
          std::string("a\0b", 3), std::string("(a*)\\1"), std::string("a|b)"), std::string("a{256}"),
          std::string("a{,300}"), std::string("(a{255}){5}"), std::string("\\d+"), std::string("a\\"),
          std::string("*a"), std::string("a|+b"), std::string("(?:a)"), std::string("^*"), std::string("[a"),
          std::string("[[:digits:]]"), std::string("[[.ab.]]"), std::string("a{2"), std::string(65, '(') + "a" +
          std::string(65, ')'), std::string(1001, 'a'), std::string("a{1}{2}"), std::string("\\<a")}) {
        CAPTURE(bad.size());
        checks c;
        c.body_matches(bad);
        CHECK(c.problem().code == errc::plan_bad_regex);
        CHECK_FALSE(c.regex_message().empty());
        CHECK(c.empty());  // no regex kept
        plan p;
        p.url("http://127.0.0.1:9/").requests(1).check(c);
        CHECK(p.validate().code == errc::plan_bad_regex);
    }
    checks longest;  // 1,000 steps at most (and the match)
    longest.body_matches(std::string(1000, 'a'));
    CHECK_FALSE(longest.problem());
    longest.body_matches(std::string(1001, 'a'));
    CHECK(longest.regex_message() == "the expression, its counts written out, takes more than 1,000 steps");
    // Counts of nothing end at once, and counts stacked on counts are refused: neither nests or
    // repeats the compiler's work without bound (x{0}{255}{255}{255}{255} was 4e9 calls).
    checks nothing;
    nothing.body_matches("(a(x{0}){255}){2}b((){255}){255}");
    CHECK_FALSE(nothing.problem());
    CHECK(verdict(nothing, "aab"));
    CHECK_FALSE(verdict(nothing, "ab"));
    for (const std::string& stacked : {std::string("x{0}{255}{255}"), "a" + std::string(4095, '+'), std::string("a**")}) {
        checks c;
        c.body_matches(stacked);
        CHECK(c.regex_message() == "a count follows a count (not POSIX extended: group the first, (a+)*)");
    }
    checks deepest;
    deepest.body_matches(std::string(64, '(') + "a" + std::string(64, ')'));
    CHECK_FALSE(deepest.problem());
    struct case_ {
        const char* pattern;
        const char* yes;  // a body it matches
        const char* no;   // and one it does not
    };
    for (const case_& fine : {case_{"[)]", ")", "("}, case_{"\\)", "a)", "a"}, case_{"[]1]\\.", "].", "]x"},
                              case_{"[[:digit:]]{3}", "x123", "12x3"}, case_{"(a{20}){20}", nullptr, nullptr},
                              case_{"[^]x]", "a", "]x"}, case_{"[[.-.]]", "-", "a"}, case_{"\\/", "/", "a"},
                              case_{"^a{,3}$", "aaa", "aaaa"}, case_{"^bx{0}c$", "bc", "bxc"}, case_{"^()$", "", "a"},
                              case_{"^(a||b)$", "", "ab"}, case_{"\\{", "{", "a"}, case_{"a^b", nullptr, "a^b"},
                              case_{"(a$)b", nullptr, "ab"}, case_{"x*^a", "a", "xa"}, case_{"[[=e=]]", "e", "f"},
                              case_{"[[.a.]-c]", "b", "d"}, case_{"\\*\\+\\?\\|\\(\\[\\^\\$", "*+?|([^$", "*+?|([^"},
                              case_{"^(a*)*$", "aaa", "ab"}}) {
        CAPTURE(fine.pattern);
        checks c;
        c.body_matches(fine.pattern);
        CHECK_FALSE(c.problem());
        if (fine.yes) CHECK(verdict(c, fine.yes));  // null: nothing matches it
        if (fine.no) CHECK_FALSE(verdict(c, fine.no));
    }
    for (const char* gnu : {"\\<id\\>", "\\`a", "a\\'"}) {
        checks c;
        c.body_matches(gnu);
        CHECK(c.regex_message() == "\\< \\> \\` and \\' are GNU anchors, not POSIX extended");
    }
    checks messages;  // the first fault is the one said
    messages.body_matches("a{300");
    CHECK(messages.regex_message() == "a count {n,m} is not closed");
    messages.body_matches("[a-[.ab.]]");
    CHECK(messages.regex_message() == "[.c.] and [=c=] take one character, and end with .] or =]");
    checks why;
    why.body_matches("(a*)\\1");
    CHECK(why.regex_message() == "a back-reference (\\1 to \\9) is not POSIX extended");
    why.body_matches("a(b");
    CHECK(why.regex_message() == "a '(' is not closed");
    why.body_matches("\\d");
    CHECK(why.regex_message() ==
          "an escaped letter or digit is not POSIX extended (\\d: write [0-9]; \\w: [[:alnum:]_]; \\s: [[:space:]])");
    checks fixed;  // a good pattern after a bad one clears the problem
    fixed.body_matches("(").body_matches("ok");
    CHECK_FALSE(fixed.problem());
    CHECK(verdict(fixed, "is ok"));
    CHECK(std::string(errc_message(errc::plan_bad_regex)).find("POSIX extended") != std::string::npos);
}

TEST_CASE("body regex: a body over 1 MiB fails, and the buffer is reused, not regrown, on one connection") {
    checks c;
    c.body_matches("x$");
    response_parser p;
    p.reset();
    REQUIRE(p.parse(std::string("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n")).event == parse_event::headers);
    check_state s;
    const std::string at_limit(defaults::max_regex_body_bytes - 1, 'a');
    c.on_headers(s, p);
    c.on_body(s, at_limit);
    c.on_body(s, "x");
    CHECK(c.on_complete(s, 200, defaults::max_regex_body_bytes));
    const std::size_t room = s.body.capacity();
    CHECK(room >= defaults::max_regex_body_bytes);
    c.on_headers(s, p);  // the next response on the connection: empty buffer, same memory
    CHECK(s.body.empty());
    CHECK(s.body.capacity() == room);
    c.on_body(s, at_limit);
    c.on_body(s, "ax");  // one byte over
    CHECK_FALSE(c.on_complete(s, 200, defaults::max_regex_body_bytes + 1));
    c.on_headers(s, p);
    c.on_body(s, "x");
    CHECK(c.on_complete(s, 200, 1));
}

TEST_CASE("body regex: patterns that take glibc quadratic time or memory take one pass here") {
    // (a|aa)*b over 40 KB of 'a' took glibc 2.4 s, searched from every byte: over 1 MiB, half an
    // hour. One pass of the automaton: a hang here is the test's timeout.
    checks c;
    c.body_matches("(a|aa)*b");
    response_parser p;
    p.reset();
    REQUIRE(p.parse(std::string("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n")).event == parse_event::headers);
    check_state s;
    c.on_headers(s, p);
    c.on_body(s, std::string(defaults::max_regex_body_bytes, 'a'));
    CHECK_FALSE(c.on_complete(s, 200, defaults::max_regex_body_bytes));
    c.on_headers(s, p);
    c.on_body(s, std::string(defaults::max_regex_body_bytes - 1, 'a') + "b");
    CHECK(c.on_complete(s, 200, defaults::max_regex_body_bytes));
    // a.{200}z over random a and b: a DFA would need a state for each set of the last 200 a's
    // (glibc's grew by kilobytes a byte); the automaton's lists hold at most its 203 steps.
    checks wide;
    wide.body_matches("a.{200}z");
    std::string coins(256 * 1024, 'a');
    std::uint64_t seed = 7;
    for (char& ch : coins) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        ch = (seed >> 40) & 1 ? 'a' : 'b';
    }
    wide.on_headers(s, p);
    wide.on_body(s, coins);
    CHECK_FALSE(wide.on_complete(s, 200, coins.size()));
    coins[coins.size() - 1] = 'z';
    coins[coins.size() - 202] = 'a';
    wide.on_headers(s, p);
    wide.on_body(s, coins);
    CHECK(wide.on_complete(s, 200, coins.size()));
}

TEST_CASE("body regex: described in reports, and beside a failed response") {
    checks c;
    c.status({200}).body_matches("^\"[0-9]+\"$");
    CHECK(c.summary() == "status 200; body matches /^\"[0-9]+\"$/");
    CHECK(c.expected({}) == "status 200; body matches /^\"[0-9]+\"$/ (a body of at most 1048576 bytes)");
    checks typed;  // as typed: backslashes stay, control bytes are escaped
    typed.body_matches("^\\{\t");
    CHECK(typed.summary() == "body matches /^\\{\\x09/");
}

TEST_CASE("engine: the body regex against the reference server, chunked bodies and keep-alive") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    const std::string base = "http://127.0.0.1:" + std::to_string(srv.port());
    checks good;
    good.body_matches("^\\{\"factorial\": *3628800\\}\n?$");
    plan p;
    p.url(base + "/factorial/10").requests(100).concurrency(4).threads(2).check(good);
    result r;
    REQUIRE_FALSE(run(p, r));
    CHECK(r.requests_completed == 100);
    CHECK(r.failed(failure::check) == 0);

    checks wrong;
    wrong.body_matches("3628801");
    p.check(wrong);
    REQUIRE_FALSE(run(p, r));
    CHECK(r.failed(failure::check) == 100);
    CHECK(r.first_failed_check.expected == "body matches /3628801/ (a body of at most 1048576 bytes)");

    // On one keep-alive connection the answers alternate between digits and letters, each sent in
    // chunks: every other one fails, so each response is matched alone, its chunks joined.
    scripted_server alternating([](scripted_server::context& cx) {
        for (int i = 0; cx.read_request(); ++i) {
            const std::string chunks = i % 2 ? "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n" : "3\r\n123\r\n2\r\n45\r\n0\r\n\r\n";
            if (!cx.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)) return;
        }
    });
    checks numbers;
    numbers.body_matches("^[0-9]{5}$");
    p.url(alternating.url("/")).requests(20).concurrency(1).threads(1).check(numbers);
    REQUIRE_FALSE(run(p, r));
    CHECK(alternating.connections.load() == 1);
    CHECK(r.requests_completed == 10);
    CHECK(r.failed(failure::check) == 10);
    CHECK(r.first_failed_check.body == "abcde");
}
