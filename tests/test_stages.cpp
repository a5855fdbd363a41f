// Rate ramps and stages (plan::stages): the curve's area and its inverse, the intended send times
// it gives (uniform and Poisson, threads and shards: the count before each stage's end is its area
// to within a request per stage), the plan's refusals, and runs against the reference server whose
// stages, interval rows and totals add up exactly.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "microbench.hpp"
#include "run_helpers.hpp"

namespace {

// How many of `streams`' times fall before `t_ns`.
std::uint64_t count_before(const std::vector<std::vector<double>>& streams, double t_ns) {
    std::uint64_t n = 0;
    for (const auto& s : streams)
        for (double t : s) n += t < t_ns;
    return n;
}

microbench::plan staged(double start, std::vector<microbench::rate_stage> stages) {
    microbench::plan p;
    p.url("http://127.0.0.1:1/").requests(0).concurrency(8).threads(4).rate(start).stages(std::move(stages));
    return p;
}

}  // namespace

TEST_CASE("stages: the curve's area, and the time each count falls due") {
    microbench::detail::rate_curve c;
    c.build(100, {{1000, 300}, {2000, 300}, {1000, 0}}, 1.0);  // 100 -> 300 in 1 s, hold 2 s, down to 0 in 1 s
    CHECK(c.total() == doctest::Approx(200 + 600 + 150));
    CHECK(c.count_at(1e9) == doctest::Approx(200));
    CHECK(c.count_at(2e9) == doctest::Approx(500));
    CHECK(c.count_at(5e9) == doctest::Approx(950));
    std::size_t cursor = 0;
    CHECK(c.time_of(200, cursor) == doctest::Approx(1e9));
    CHECK(c.time_of(500, cursor) == doctest::Approx(2e9));
    for (double n : {0.5, 10.0, 150.0, 420.0, 799.0, 880.0, 949.9}) {
        std::size_t from = 0;
        CHECK(c.count_at(c.time_of(n, from)) == doctest::Approx(n).epsilon(1e-9));
    }
    std::size_t past = 0;
    CHECK(std::isinf(c.time_of(951, past)));
    CHECK(c.stage_at(999'999'999) == 0);
    CHECK(c.stage_at(1'000'000'000) == 1);
    CHECK(c.stage_at(9'000'000'000) == 2);
    microbench::detail::rate_curve zero;  // from 0, and a stage held at 0 in the middle
    zero.build(0, {{1000, 100}, {1000, 0}, {500, 0}, {1000, 200}}, 1.0);
    std::size_t z = 0;
    CHECK(zero.time_of(50, z) == doctest::Approx(1e9));                   // the top of the ramp up
    CHECK(zero.time_of(100, z) == doctest::Approx(2e9));                  // the end of the way down
    CHECK(zero.time_of(100.5, z) == doctest::Approx(2.5e9 + std::sqrt(2 * 0.5 / 200e-18)).epsilon(1e-6));  // past the hold
    microbench::detail::rate_curve held;  // a first stage held at 0 sends nothing in it, not even at 0
    held.build(0, {{1000, 0}, {1000, 100}}, 1.0);
    std::size_t h = 0;
    CHECK(held.time_of(0, h) == doctest::Approx(1e9));
    CHECK(held.rate_at_start(1) == 0);
    CHECK(held.rate_at_end(1) == 100);  // as given, not rounded through nanoseconds
    microbench::detail::rate_curve fifteen;
    fifteen.build(15, {{1000, 15}}, 1.0);
    CHECK(fifteen.rate_at_start(0) == 15);
    CHECK(fifteen.rate_at_end(0) == 15);
}

TEST_CASE("stages: the batch wake under a curve is the last intended time within the window, as one by one") {
    const microbench::plan p = staged(300, {{1000, 3000}, {1000, 0}});
    microbench::detail::rate_curve c;
    c.build(300, p.stages(), 1.0);
    microbench::detail::rate_schedule s;
    s.start_staged(0, &c, 4, 1, microbench::arrivals::uniform, 0);
    std::uint64_t issued = 0;
    for (int round = 0; round < 200; ++round) {
        for (std::int64_t window : {0, 50'000, 2'000'000, 30'000'000})
            for (std::uint64_t limit : {1, 3, 1000}) {
                microbench::detail::rate_schedule copy = s;  // one by one, as the worker would send them
                std::int64_t last = s.next();
                for (std::uint64_t n = 1; n < limit; ++n) {
                    copy.advance(issued + n);
                    if (copy.next() > s.next() + window) break;
                    last = copy.next();
                }
                CAPTURE(window);
                CAPTURE(limit);
                CHECK(std::llabs(s.last_within(window, limit, c.end_ns()) - last) <= 1);
            }
        for (int k = 0; k < 7; ++k) s.advance(++issued);
    }
}

TEST_CASE("stages: the intended times before each stage's end are its area, to within a request per stage") {
    const std::vector<microbench::rate_stage> shape{{1000, 2000}, {1500, 2000}, {700, 50}, {800, 0}};
    for (double start : {0.0, 500.0})
        for (std::uint32_t shards : {0u, 3u}) {
            CAPTURE(start);
            CAPTURE(shards);
            const microbench::plan p = staged(start, shape);
            REQUIRE_FALSE(p.validate());
            microbench::detail::rate_curve c;
            c.build(start, shape, 1.0);
            const auto streams = scheduled_times(p, c.end_ns(), shards);
            for (std::size_t k = 0; k < shape.size(); ++k) {
                const double end = k + 1 < shape.size() ? static_cast<double>(c.stage_start_ns(k + 1))
                                                        : static_cast<double>(c.end_ns());
                const double meant = c.count_at(end);
                CHECK(std::fabs(static_cast<double>(count_before(streams, end)) - meant) <= 1.0 + 1e-9);
            }
        }
}

TEST_CASE("stages: Poisson arrivals follow the curve (the count in each stage within 5 sigma of its area)") {
    microbench::plan p = staged(0, {{2000, 4000}, {2000, 4000}, {2000, 0}});
    p.arrivals(microbench::arrivals::poisson).seed(7);
    microbench::detail::rate_curve c;
    c.build(0, p.stages(), 1.0);
    const auto streams = scheduled_times(p, c.end_ns());
    for (std::size_t k = 0; k < 3; ++k) {
        const double from = static_cast<double>(c.stage_start_ns(k));
        const double to = k + 1 < 3 ? static_cast<double>(c.stage_start_ns(k + 1)) : static_cast<double>(c.end_ns());
        const double meant = c.count_at(to) - c.count_at(from);
        const double got = static_cast<double>(count_before(streams, to) - count_before(streams, from));
        CAPTURE(k);
        CHECK(std::fabs(got - meant) <= 5 * std::sqrt(meant));
    }
}

TEST_CASE("stages: a plan's stages set its duration and leave its count open, and a later count caps the run") {
    microbench::plan p;
    p.url("http://127.0.0.1:1/").requests(5).stages({{1500, 100}, {500, 0}});
    CHECK(p.requests() == 0);
    CHECK(p.duration_ms() == 2000);
    CHECK_FALSE(p.concurrency(4).validate());
    CHECK(p.requests(50).requests() == 50);
    CHECK(p.stages({}).duration_ms() == 2000);  // none: what was set stays
    using microbench::errc;
    microbench::plan many = staged(0, std::vector<microbench::rate_stage>(1000, {10, 100}));
    CHECK_FALSE(many.concurrency(65).threads(65).validate());  // 65,000 tallies
    CHECK(many.concurrency(66).threads(66).validate().code == errc::plan_bad_stages);  // 66,000: past the bound
}

TEST_CASE("stages: a count caps a staged run, which then ends when the count is sent" * doctest::test_suite("timing")) {
    microbench::server srv;
    REQUIRE_FALSE(srv.start(microbench::server_options{}));
    microbench::plan p;
    p.url(url_of(srv, "/")).concurrency(4).rate(500).stages({{2000, 500}}).requests(100);
    const microbench::result r = run_ok(p);
    CHECK(r.requests_ended + r.unfinished == 100);
    CHECK(r.elapsed_ns < 2'000'000'000);  // not stretched to the stages' end
    REQUIRE(r.stages.size() == 1);
    CHECK(r.stages[0].sent == 100);
}

TEST_CASE("stages: what a plan refuses") {
    using microbench::errc;
    CHECK(staged(0, {{0, 100}}).validate().code == errc::plan_bad_stages);
    CHECK(staged(0, {{1000, -1}}).validate().code == errc::plan_bad_stages);
    CHECK(staged(0, {{1000, 100}, {1000, 2e7}}).validate().position == 1);
    CHECK(staged(0, {{1000, NAN}}).validate().code == errc::plan_bad_stages);
    CHECK(staged(0, {{100, 0}}).validate().code == errc::plan_bad_stages);  // not one request
    CHECK(staged(0, {{1000, 100}}).duration_ms(500).validate().code == errc::plan_bad_stages);
    CHECK(staged(0, {{1000, 100}}).keep_alive(true).pipeline(2).validate().code == errc::plan_bad_stages);
    CHECK(staged(0, std::vector<microbench::rate_stage>(1001, {10, 100})).validate().code == errc::plan_bad_stages);
    CHECK(staged(0, {{1000, 100}}).duration_ms() == 1000);
    CHECK_FALSE(staged(0, {{1000, 100}}).arrivals(microbench::arrivals::poisson).validate());
}

TEST_CASE("stages: a run against the reference server: each stage's requests, the rows' targets and the totals add up"
          * doctest::test_suite("timing")) {
    microbench::server srv;
    microbench::server_options o;
    o.threads = 2;
    REQUIRE_FALSE(srv.start(o));
    microbench::plan p;
    p.url(url_of(srv, "/factorial/6")).requests(0).concurrency(20).threads(2).keep_alive(true).rate(200);
    p.stages({{500, 1200}, {400, 1200}, {300, 0}}).interval_ms(100);
    microbench::checks c;
    c.factorial(6);
    p.check(c);
    const microbench::result r = run_ok(p);
    REQUIRE(r.stages.size() == 3);
    const double meant[] = {350, 480, 180};
    std::uint64_t sent = 0, completed = 0, failed = 0;
    for (std::size_t k = 0; k < 3; ++k) {
        const microbench::stage_result& s = r.stages[k];
        CAPTURE(k);
        CHECK(s.intended == doctest::Approx(meant[k]));
        CHECK(s.completed + s.failed <= s.sent);
        sent += s.sent;
        completed += s.completed;
        failed += s.failed;
        if (!emulated() && r.schedule_missed == 0) CHECK(std::fabs(static_cast<double>(s.sent) - meant[k]) <= 1.0);
    }
    CHECK(r.stages[1].from_rate == doctest::Approx(1200));
    CHECK(r.stages[2].to_rate == doctest::Approx(0));
    CHECK(sent == r.requests_ended + r.unfinished);  // every request sent is in one stage
    CHECK(completed == r.requests_completed);
    CHECK(failed == r.requests_failed);
    CHECK(static_cast<double>(sent + r.schedule_missed) == doctest::Approx(1010).epsilon(0.003));
    CHECK(r.rate_target == doctest::Approx(1010 / 1.2));
    CHECK(r.elapsed_ns >= 1'200'000'000);  // the run lasts the stages, though its last request is due before
    // Achieved never above the target: the requests are the curve's area (to within one), over at least its length.
    CHECK(r.requests_per_second() <= r.rate_target * (1 + 1.0 / 1010));
    double targets = 0;
    for (const microbench::interval_stats& row : r.intervals) targets += row.target;
    CHECK(targets == doctest::Approx(1010).epsilon(0.003));
    const std::string text = microbench::result_json(p, r, {50, 99});
    microbench::json_value doc;
    REQUIRE_FALSE(microbench::parse_json(text, doc));
    microbench::result back;
    microbench::run_description d;
    std::string why;
    REQUIRE_MESSAGE(!microbench::read_result_json(doc, d, back, &why), why);
    REQUIRE(back.stages.size() == 3);
    CHECK(back.stages[1].sent == r.stages[1].sent);
    CHECK(back.stages[2].p99_ns == r.stages[2].p99_ns);
}
