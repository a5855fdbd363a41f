// Tests of what each target got (plan::by_target) and of the factorial check of each target's n,
// against a server that answers n! in a signed 64-bit integer (wrong from n = 21, as ASP.NET
// Core's `long`): each target's counts equal the server's, the rows come worst first and fold
// past the cap, and the verdict over n says where answers turn wrong, fail or were not sent.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "microbench.hpp"
#include "scripted_server.hpp"

namespace mb = microbench;

namespace {

std::mutex seen_mutex;
std::map<std::string, int> seen_paths;

std::map<std::string, int> take_seen() {
    std::lock_guard<std::mutex> lock(seen_mutex);
    std::map<std::string, int> out;
    out.swap(seen_paths);
    return out;
}

// n! as a signed 64-bit integer, wrapping as C#'s unchecked `long` does.
std::string long_factorial(unsigned n) {
    std::uint64_t f = 1;
    for (unsigned k = 2; k <= n; ++k) f *= k;
    return std::to_string(static_cast<std::int64_t>(f));
}

// Keep-alive: /factorial/{n} answers long_factorial(n), except n = 25, whose connection is reset
// (a failure that is no wrong answer); /other/... answers its path. Every path is counted.
void long_factorials(scripted_server::context& c) {
    while (c.read_request()) {
        const std::size_t from = c.head.find(' ') + 1;
        const std::string path = c.head.substr(from, c.head.find(' ', from) - from);
        {
            std::lock_guard<std::mutex> lock(seen_mutex);
            ++seen_paths[path];
        }
        std::string body = path;
        if (path.compare(0, 11, "/factorial/") == 0) {
            const unsigned n = static_cast<unsigned>(std::stoul(path.substr(11)));
            if (n == 25) return c.reset();
            body = long_factorial(n);
        }
        if (!c.send("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body)) return;
    }
}

mb::checks each_n() {
    mb::checks c;
    c.factorial_of_each_target();
    return c;
}

// Every row's and the folded row's counts added up.
mb::target_row total_of(const mb::target_breakdown& b) {
    mb::target_row sum = b.folded;
    for (const mb::target_row& r : b.rows) {
        sum.completed += r.completed;
        sum.failed += r.failed;
        sum.unfinished += r.unfinished;
        sum.non_2xx += r.non_2xx;
    }
    return sum;
}

}  // namespace

TEST_CASE("by target: the factorial of each target's n is right to 20 and wrong from 21, with the answer") {
    scripted_server server(long_factorials);
    take_seen();
    mb::plan p;
    p.url(server.url("/factorial/{0..24}")).url_ranges(true).requests(250).concurrency(4).threads(2);
    p.keep_alive(true).check(each_n()).by_target(true);
    for (std::uint32_t pipeline : {1u, 3u}) {
        p.pipeline(pipeline);
        mb::result r;
        REQUIRE(!mb::run(p, r));
        CHECK(r.requests_completed == 210);  // 0..20, ten each
        CHECK(r.failed(mb::failure::check) == 40);
        const mb::target_breakdown& b = r.by_target;
        CHECK(b.targets == 25);
        REQUIRE(b.verdict.size() == 2);
        CHECK(b.verdict[0].outcome == mb::n_outcome::right);
        CHECK(b.verdict[0].from == 0);
        CHECK(b.verdict[0].to == 20);
        CHECK(b.verdict[1].outcome == mb::n_outcome::wrong);
        CHECK(b.verdict[1].from == 21);
        CHECK(b.verdict[1].to == 24);
        CHECK_FALSE(b.verdict_cut);
        CHECK(b.first_wrong.n == 21);
        CHECK(b.first_wrong.status == 200);
        CHECK(b.first_wrong.body == "-4249290049419214848");
        REQUIRE(b.rows.size() == 25);
        for (int i = 0; i < 4; ++i) {  // the wrong ones first
            CHECK(b.rows[i].wrong() == 10);
            CHECK(b.rows[i].target.compare(0, 12, "/factorial/2") == 0);
        }
        CHECK(b.rows[4].failed == 0);
        const std::map<std::string, int> seen = take_seen();
        for (const mb::target_row& row : b.rows) {
            CHECK_MESSAGE(seen.at(row.target) == 10, row.target);
            CHECK(row.requests() == 10);
            CHECK((row.completed == 0) == (row.p50_ns == 0));  // wrong answers are no completed latencies
            CHECK(row.p99_ns >= row.p50_ns);
        }
    }
}

TEST_CASE("by target: a verdict names an n that failed otherwise, and leaves out what was not sent") {
    scripted_server server(long_factorials);
    take_seen();
    mb::plan p;
    p.url(server.url("/factorial/{18..40}")).url_ranges(true).requests(12).concurrency(1).keep_alive(true);
    p.check(each_n());
    mb::result r;
    REQUIRE(!mb::run(p, r));  // n = 18..29 get one each; 30..40 none
    const mb::target_breakdown& b = r.by_target;
    REQUIRE(b.verdict.size() == 5);
    CHECK((b.verdict[0].outcome == mb::n_outcome::right && b.verdict[0].from == 18 && b.verdict[0].to == 20));
    CHECK((b.verdict[1].outcome == mb::n_outcome::wrong && b.verdict[1].from == 21 && b.verdict[1].to == 24));
    CHECK((b.verdict[2].outcome == mb::n_outcome::failed && b.verdict[2].from == 25 && b.verdict[2].to == 25));
    CHECK(b.verdict[2].reason == mb::failure::receive);
    CHECK((b.verdict[3].outcome == mb::n_outcome::wrong && b.verdict[3].from == 26 && b.verdict[3].to == 29));
    CHECK((b.verdict[4].outcome == mb::n_outcome::unsent && b.verdict[4].from == 30 && b.verdict[4].to == 40));
    CHECK(b.first_wrong.n == 21);
    CHECK(r.requests_ended == 12);
    CHECK(take_seen().size() == 12);
}

TEST_CASE("by target: counts equal the server's, the worst first, the rest folded past the cap") {
    scripted_server server(long_factorials);
    take_seen();
    mb::plan p;
    p.url(server.url("/other/{1..1500}")).url_ranges(true).requests(3000).concurrency(6).threads(2);
    p.keep_alive(true).by_target(true).expect_status({200});
    mb::result r;
    REQUIRE(!mb::run(p, r));
    const mb::target_breakdown& b = r.by_target;
    CHECK(b.targets == 1500);
    CHECK(b.rows.size() == mb::defaults::max_target_rows);
    CHECK(b.folded.index == 500);
    CHECK(b.verdict.empty());  // no factorial check: no verdict
    const mb::target_row sum = total_of(b);
    CHECK(sum.completed == 3000);
    CHECK(sum.failed == 0);
    CHECK(b.folded.completed == 1000);
    CHECK(b.folded.p50_ns > 0);
    const std::map<std::string, int> seen = take_seen();
    CHECK(seen.size() == 1500);
    for (const mb::target_row& row : b.rows) CHECK_MESSAGE(seen.at(row.target) == 2, row.target);
    // A run of one URL has one row.
    p.url(server.url("/other/one")).url_ranges(false).requests(7).concurrency(2);
    REQUIRE(!mb::run(p, r));
    REQUIRE(r.by_target.rows.size() == 1);
    CHECK(r.by_target.rows[0].target == "/other/one");
    CHECK(r.by_target.rows[0].completed == 7);
}

TEST_CASE("by target: the factorial of each target's n needs an n in every target") {
    scripted_server server(long_factorials);
    mb::plan p;
    p.url(server.url("/factorial/1")).targets({server.url("/factorial/3"), server.url("/other/x")}).requests(2);
    p.concurrency(1).check(each_n());
    mb::result r;
    mb::error e = mb::run(p, r);
    CHECK(e.code == mb::errc::plan_factorial_target);
    CHECK(e.position == 1);
    p.targets({}).url(server.url("/other/y"));  // one URL without an n
    CHECK(mb::run(p, r).code == mb::errc::plan_factorial_target);
    CHECK(server.connections == 0);
    p.url(server.url("/factorial/7")).requests(3);  // one URL with one: checked as factorial(7)
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_completed == 3);
    CHECK(r.by_target.targets == 0);  // not asked for
}

TEST_CASE("target buckets: four to an octave, each middle within 10% of what falls in it") {
    int last = 0;
    for (std::int64_t ns = 1024; ns < (std::int64_t{1} << 42); ns += ns / 97 + 1) {  // ascending, about 1% apart
        const int b = mb::target_buckets::of(ns);
        const std::int64_t mid = mb::target_buckets::middle(b);
        CHECK_MESSAGE(std::abs(static_cast<double>(mid - ns)) <= 0.0906 * static_cast<double>(ns), ns);
        CHECK((b == last || b == last + 1));  // no bucket skipped, none going back
        last = b;
    }
    CHECK(last == mb::target_buckets::count - 1);
    CHECK(mb::target_buckets::of(10) == 0);
    const std::int64_t hour = 3'600'000'000'000;  // the longest timeout
    CHECK(mb::target_buckets::of(hour) < mb::target_buckets::count - 1);
    CHECK(std::abs(static_cast<double>(mb::target_buckets::middle(mb::target_buckets::of(hour)) - hour)) <= 0.0906 * hour);
    CHECK(mb::target_buckets::of(std::int64_t{1} << 50) == mb::target_buckets::count - 1);
    std::uint64_t counts[mb::target_buckets::count] = {};
    counts[mb::target_buckets::of(100'000)] = 98;  // 98 at 100 µs, 2 at 10 ms
    counts[mb::target_buckets::of(10'000'000)] = 2;
    CHECK(mb::target_buckets::quantile(counts, 100, 0.50) == mb::target_buckets::middle(mb::target_buckets::of(100'000)));
    CHECK(mb::target_buckets::quantile(counts, 100, 0.99) ==
          mb::target_buckets::middle(mb::target_buckets::of(10'000'000)));
    CHECK(mb::target_buckets::quantile(counts, 0, 0.5) == 0);
}

namespace {

// /factorial/{n} answers n! for n <= 20 (a long is still right), except n = 15: read, never answered.
void stuck_at_15(scripted_server::context& c) {
    while (c.read_request()) {
        const std::size_t from = c.head.find(' ') + 12;
        const unsigned n = static_cast<unsigned>(std::stoul(c.head.substr(from, c.head.find(' ', from) - from)));
        if (n == 15) {
            while (!c.stopping()) usleep(10'000);
            return;
        }
        const std::string body = long_factorial(n);
        if (!c.send("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body)) return;
    }
}

std::string verdict_text(const mb::result& r) {
    std::string out;
    mb::append_factorial_verdict(r, out);
    return out;
}

}  // namespace

TEST_CASE("by target: an n still in flight at the stop is unanswered, one that timed out failed, each apart") {
    scripted_server server(stuck_at_15);
    mb::plan p;
    p.url(server.url("/factorial/{10..20}")).url_ranges(true).duration_ms(400).drain_ms(50).requests(0);
    p.concurrency(2).keep_alive(true).check(each_n()).by_target(true);
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(r.unfinished == 2);  // both connections end up waiting on n = 15
    CHECK(verdict_text(r) == "\nChecks:                right for n = 10..14, 16..20; no answer before the stop for n = 15\n");
    REQUIRE(!r.by_target.rows.empty());
    CHECK(r.by_target.rows[0].target == "/factorial/15");  // the worst: unfinished
    CHECK(r.by_target.rows[0].unfinished == 2);
    p.duration_ms(0).requests(22).timeout_ms(300);  // two rounds of 10..20, n = 15 timing out
    REQUIRE(!mb::run(p, r));
    CHECK(r.failed(mb::failure::timeout) == 2);
    CHECK(verdict_text(r) == "\nChecks:                right for n = 10..14, 16..20; failed for n = 15 (timeout)\n");
    CHECK(r.by_target.rows[0].failures[static_cast<int>(mb::failure::timeout)] == 2);
}

TEST_CASE("by target: runs of n join only neighbours, and a connect failure is named") {
    scripted_server server(long_factorials);
    mb::plan p;
    p.url(server.url("/")).targets({server.url("/factorial/10"), server.url("/factorial/20"), server.url("/factorial/30"),
                                    server.url("/factorial/31")});
    p.requests(4).concurrency(1).keep_alive(true).check(each_n());
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(verdict_text(r) == "\nChecks:                right for n = 10, 20; wrong from n = 30 "
                             "(status 200, answer -8764578968847253504)\n");
    p.url("http://127.0.0.1:1/").targets({"http://127.0.0.1:1/factorial/1", "http://127.0.0.1:1/factorial/2"});
    REQUIRE(!mb::run(p, r));
    CHECK(verdict_text(r) == "\nChecks:                failed for n = 1..2 (connect)\n");
}

TEST_CASE("by target: the verdict's wording, from the breakdown alone") {
    mb::result r;
    mb::target_breakdown& b = r.by_target;
    b.targets = 9;
    using o = mb::n_outcome;
    b.verdict = {{0, 3, o::right}, {4, 5, o::wrong}, {6, 6, o::right}, {7, 7, o::wrong}, {8, 8, o::failed,
                 mb::failure::receive}, {9, 9, o::unanswered}, {10, 12, o::unsent}};
    b.first_wrong.n = 4;
    b.first_wrong.status = 500;
    b.first_wrong.body = std::string("Err\"or\n\x01") + std::string(50, 'x');
    CHECK(verdict_text(r) == "\nChecks:                right for n = 0..3, 6; wrong for n = 4..5, 7 (n = 4: status 500, "
                             "answer Err\"or\\n\\x01" + std::string(50, 'x') + "); failed for n = 8 (receive); no answer "
                             "before the stop for n = 9; not sent: n = 10..12\n");
    b.first_wrong.cut = true;  // the body went on past what was kept
    b.verdict = {{0, 3, o::right}, {4, 5, o::wrong}};
    b.verdict_cut = true;  // more runs than kept: no "from"
    CHECK(verdict_text(r) == "\nChecks:                right for n = 0..3; wrong for n = 4..5 (status 500, answer "
                             "Err\"or\\n\\x01" + std::string(50, 'x') + "...); more n not shown\n");
    b.verdict_cut = false;
    CHECK(verdict_text(r).find("wrong from n = 4 ") != std::string::npos);
    b.verdict.clear();
    CHECK(verdict_text(r).empty());
}

TEST_CASE("by target: a saved result reads back into the same breakdown, and the HTML report shows it") {
    scripted_server server(long_factorials);
    take_seen();
    mb::plan p;
    p.url(server.url("/factorial/{18..40}")).url_ranges(true).requests(12).concurrency(1).keep_alive(true);
    p.check(each_n()).by_target(true);
    mb::result r;
    REQUIRE(!mb::run(p, r));
    take_seen();
    const std::string json = mb::result_json(p, r, {50, 99});
    std::vector<mb::report_run> runs;
    std::string problem;
    REQUIRE_MESSAGE(!mb::read_report_runs(json, "side A", runs, &problem), problem);
    REQUIRE(runs.size() == 1);
    const mb::target_breakdown& a = r.by_target;
    const mb::target_breakdown& b = runs[0].r.by_target;
    CHECK(b.targets == a.targets);
    REQUIRE(b.rows.size() == a.rows.size());
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
        CHECK(b.rows[i].target == a.rows[i].target);
        CHECK(b.rows[i].index == a.rows[i].index);
        CHECK(b.rows[i].requests() == a.rows[i].requests());
        CHECK(b.rows[i].wrong() == a.rows[i].wrong());
        CHECK(b.rows[i].failures[static_cast<int>(mb::failure::receive)] ==
              a.rows[i].failures[static_cast<int>(mb::failure::receive)]);
        CHECK(b.rows[i].p99_ns == a.rows[i].p99_ns);
    }
    CHECK(b.folded.index == a.folded.index);
    REQUIRE(b.verdict.size() == a.verdict.size());
    for (std::size_t i = 0; i < a.verdict.size(); ++i) {
        CHECK(b.verdict[i].from == a.verdict[i].from);
        CHECK(b.verdict[i].to == a.verdict[i].to);
        CHECK(b.verdict[i].outcome == a.verdict[i].outcome);
        if (a.verdict[i].outcome == mb::n_outcome::failed) CHECK(b.verdict[i].reason == a.verdict[i].reason);
    }
    CHECK(b.first_wrong.n == 21);
    CHECK(b.first_wrong.status == 200);
    CHECK(b.first_wrong.body == "-4249290049419214848");
    // The text report says the same of both.
    std::string verdict_a, verdict_b, table_a, table_b;
    mb::append_verdict_text(a, verdict_a);
    mb::append_verdict_text(b, verdict_b);
    CHECK(verdict_b == verdict_a);
    mb::append_by_target_table(r, table_a);
    mb::append_by_target_table(runs[0].r, table_b);
    CHECK(table_b == table_a);
    // The HTML report: the verdict and a row per target, drawn from the run and from the file alike.
    for (const mb::report_run& run : {mb::report_run{"side A", "", mb::describe(p), r}, runs[0]}) {
        const std::string html = mb::html_report({run});
        CHECK(html.find("<h3>By target: side A</h3>") != std::string::npos);
        CHECK(html.find("<p class=\"text\">Checks: " + verdict_a + "</p>") != std::string::npos);
        CHECK(html.find("the worst first, 23 of 23</caption>") != std::string::npos);
        CHECK(html.find("<th scope=\"row\" class=\"text\">/factorial/25</th><td>1</td><td>0</td><td>1 (receive 1)</td>") !=
              std::string::npos);
    }
    // A target's name is escaped in the HTML.
    mb::report_run hostile{"side A", "", mb::describe(p), r};
    hostile.r.by_target.rows[0].target = "/<b>&\"x";
    CHECK(mb::html_report({hostile}).find("<th scope=\"row\" class=\"text\">/&lt;b&gt;&amp;&quot;x</th>") !=
          std::string::npos);
    // A breakdown that does not add up is refused, naming the field.
    std::string bad = json;
    const std::size_t at = bad.find(",\"folded_targets\":0,");
    REQUIRE(at != std::string::npos);
    bad.replace(at, 20, ",\"folded_targets\":3,");
    runs.clear();
    CHECK(mb::read_report_runs(bad, "", runs, &problem).code == mb::errc::result_bad_field);
    CHECK(problem == "by_target.folded_targets is not folded.index");
}

TEST_CASE("by target: a wrong answer's escaped text reads back into its bytes") {
    mb::wrong_answer w;
    mb::detail::read_escaped_answer("a\\nb\\x01\\\\c\\t\\r...", true, w);
    CHECK(w.body == std::string("a\nb\x01\\c\t\r"));
    CHECK(w.cut);
    std::string again;
    mb::detail::append_escaped_answer(again, w.body, w.cut);
    CHECK(again == "a\\nb\\x01\\x5cc\\t\\r...");  // a backslash is written as \x5c
    mb::detail::read_escaped_answer(again, true, w);
    CHECK(w.body == std::string("a\nb\x01\\c\t\r"));
    mb::detail::read_escaped_answer("6...", false, w);  // a body that ends in dots, whole
    CHECK((w.body == "6..." && !w.cut));
    mb::detail::read_escaped_answer(std::string(300, 'z'), false, w);  // more than is kept: cut
    CHECK(w.body.size() == mb::defaults::answer_bytes);
    CHECK(w.cut);
}
