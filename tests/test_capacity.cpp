// The capacity search (capacity.hpp) against servers whose capacity is known: the reference
// server's /work holds its one thread 20 ms a request (at most 50 answers a second), and one
// connection to /delay, answered after 20 ms, carries at most 50 a second however fast the server
// is (the generator's limit). Also: a server that is not there, one that never answers, the
// objective's bounds, and a cancel.
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "microbench.hpp"
#include "run_helpers.hpp"
#include "scripted_server.hpp"

using namespace microbench;

namespace {

// Steps of 1 s after 0.3 s of warm-up, from 20/s; objectives ten times the service time, so a
// busy machine's hiccups do not fail a step below the knee.
capacity_objective quick(double max_p99_ms) {
    capacity_objective o;
    o.max_p99_ms = max_p99_ms;
    o.start_rate = 20;
    o.warmup_ms = 300;
    o.step_ms = 1000;
    o.min_responses = 20;
    o.cooldown_ms = 300;
    o.max_steps = 12;
    return o;
}

// Steps of `step_ms` alone, from `start_rate`: no warm-up, no cool-down, any number of responses.
capacity_objective bare(double max_p99_ms, double start_rate, std::int64_t step_ms) {
    capacity_objective o;
    o.max_p99_ms = max_p99_ms;
    o.start_rate = start_rate;
    o.warmup_ms = 0;
    o.step_ms = step_ms;
    o.min_responses = 1;
    o.cooldown_ms = 0;
    return o;
}

// Each step's verdict follows from its own figures, as the objective says.
void check_verdicts(const capacity_result& r, const capacity_objective& o) {
    for (const capacity_step& s : r.steps) {
        CAPTURE(s.target_rate);
        const std::uint64_t ended = s.completed + s.failed;
        const bool holds = s.completed > 0 && static_cast<double>(s.failed) <= o.max_failure_ratio * static_cast<double>(ended) &&
                           static_cast<double>(s.p99_ns) <= o.max_p99_ms * 1e6 && s.achieved_rate >= o.min_rate_ratio * s.target_rate;
        CHECK(s.held() == holds);
        CHECK(s.window_ns >= o.step_ms * 1'000'000);
        CHECK(s.p50_ns <= s.p99_ns);
        CHECK(s.p99_ns <= s.p999_ns);
        CHECK(s.p999_ns <= s.max_ns);
    }
}

// The points ("x,y x,y ...", in the chart's own units) of the <polyline> drawn in `colour`, the
// secondary (dotted) one or the solid one; none when no such line is drawn.
std::vector<std::pair<double, double>> line_points(const std::string& page, const char* colour, bool secondary) {
    const std::string head = std::string("<polyline class=\"line") + (secondary ? " secondary" : "") + "\" stroke=\"" +
                             colour + "\"";
    std::vector<std::pair<double, double>> points;
    const std::size_t at = page.find(head);
    if (at == std::string::npos) return points;
    const std::size_t from = page.find(" points=\"", at);
    REQUIRE(from != std::string::npos);
    const std::size_t end = page.find('"', from + 9);
    REQUIRE(end != std::string::npos);
    const std::string text = page.substr(from + 9, end - from - 9);
    const char* p = text.c_str();
    for (char* next = nullptr; *p; p = next) {
        const double x = std::strtod(p, &next);
        REQUIRE(*next == ',');
        const double y = std::strtod(next + 1, &next);
        points.emplace_back(x, y);
        while (*next == ' ') ++next;
    }
    return points;
}

}  // namespace

TEST_CASE("capacity search: the knee of a server that answers 50 a second is found within 10 %" *
          doctest::test_suite("timing")) {
    server_options so;
    so.threads = 1;
    server srv;
    REQUIRE_FALSE(srv.start(so));
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/work?us=20000").concurrency(20);
    capacity_objective o = quick(200);
    int calls = 0;
    o.on_step = [](const capacity_step&, void* user) { ++*static_cast<int*>(user); };
    o.on_step_user = &calls;
    capacity_result r;
    REQUIRE_FALSE(find_capacity(p, o, r));
    CHECK(calls == static_cast<int>(r.steps.size()));
    check_verdicts(r, o);
    CHECK(r.capacity >= 45);
    CHECK(r.capacity <= 55);
    // 20 connections hold 50/s x 200 ms = 10 in flight: never too few. Only a machine busy enough to
    // send the lowest failed step 20 ms late (a tenth of the objective) may name the generator, and
    // it is that step's suspicion that names it.
    const capacity_step* low = nullptr;  // the lowest failed step that counted (not one tried again)
    for (std::size_t i = 0; i < r.steps.size(); ++i)
        if (!r.steps[i].held() && !(i + 1 < r.steps.size() && r.steps[i + 1].retry) &&
            (!low || r.steps[i].target_rate < low->target_rate))
            low = &r.steps[i];
    REQUIRE(low);
    CHECK(r.generator_limited == low->generator_suspect);
    if (low->generator_suspect) {
        CHECK(low->connection_waits == 0);
        CHECK(low->lag_p99_ns > 20'000'000);
    }
    CHECK_FALSE(r.at_max_rate);
    CHECK_FALSE(r.cancelled);
    // It climbs by doubling from 20/s until a step fails, then narrows the gap to 5 %.
    REQUIRE(r.steps.size() >= 4);
    CHECK(r.steps[0].target_rate == 20);
    for (std::size_t i = 1; i < r.steps.size() && r.steps[i - 1].held(); ++i)
        CHECK(r.steps[i].target_rate == r.steps[i - 1].target_rate * 2);
    // Every failed step is tried once more at its rate; the second try's verdict is the one that counts.
    double held = 0, failed = 1e18;
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
        const capacity_step& s = r.steps[i];
        const bool tried_again = i + 1 < r.steps.size() && r.steps[i + 1].retry;
        if (!s.held() && !s.retry && i + 1 < r.steps.size()) {
            CHECK(tried_again);
            CHECK(r.steps[i + 1].target_rate == s.target_rate);
        }
        if (s.retry) CHECK((i > 0 && !r.steps[i - 1].held() && !r.steps[i - 1].retry));
        if (tried_again) continue;
        if (s.held()) held = std::max(held, s.target_rate);
        else failed = std::min(failed, s.target_rate);
    }
    CHECK(held == r.capacity);
    CHECK((failed <= held * 1.05 || r.steps.size() == o.max_steps));
    // The page draws a marker per step (its <title> the step's figures) and the objective.
    const std::string page = capacity_html(r, o, "knee <50/s>");
    std::size_t markers = 0;
    for (std::size_t at = 0; (at = page.find("/s: p99 ", at)) != std::string::npos; ++at) ++markers;
    CHECK(markers == r.steps.size());
    CHECK(page.find("<title>knee &lt;50/s&gt;</title>") != std::string::npos);
    // The objective is the dotted line of the chart's second colour (the p99 line is the first's,
    // solid): level, from the lowest rate tried to the highest, with every held step's p99 on or
    // below it and every p99 that failed its step on latency on or above it (SVG's y grows down).
    // The words alone prove nothing: the chart's description and its legend say "objective" whether
    // the line is drawn or not.
    const auto p99_line = line_points(page, detail::chart_colours[0], false);
    const auto objective_line = line_points(page, detail::chart_colours[1], true);
    REQUIRE(p99_line.size() == r.steps.size());
    REQUIRE(objective_line.size() == 2);
    const double objective_y = objective_line[0].second;
    CHECK(objective_line[1].second == objective_y);
    CHECK(objective_line[0].first == p99_line.front().first);
    CHECK(objective_line[1].first == p99_line.back().first);
    std::vector<capacity_step> by_rate = r.steps;
    std::sort(by_rate.begin(), by_rate.end(),
              [](const capacity_step& a, const capacity_step& b) { return a.target_rate < b.target_rate; });
    for (std::size_t i = 0; i < by_rate.size(); ++i) {
        CAPTURE(by_rate[i].target_rate);
        if (by_rate[i].held()) CHECK(p99_line[i].second >= objective_y);
        if (by_rate[i].verdict == capacity_verdict::latency) CHECK(p99_line[i].second <= objective_y);
    }
    std::string table;
    append_capacity_table(r, o, table);
    std::string said;
    detail::appendf(said, "\nCapacity: %.1f requests/s held the objective", r.capacity);
    CHECK(table.find(said) != std::string::npos);
    // The failed steps failed on latency (the server's queue grows) or, just above the knee, where
    // the step (300 ms warm-up + 1 s window) ends before the queue's wait passes 200 ms, on the
    // rate it cannot reach (from 50 / 0.95 = 52.6/s to about 57/s); none on failures. The generator
    // is suspect at none of them but the lowest, and there only for its lag (above).
    for (const capacity_step& s : r.steps) {
        if (s.held()) continue;
        CAPTURE(s.target_rate);
        CHECK((s.verdict == capacity_verdict::latency || (s.verdict == capacity_verdict::rate && s.target_rate < 60)));
        if (&s != low && s.target_rate != low->target_rate) CHECK_FALSE(s.generator_suspect);
    }
}

TEST_CASE("capacity search: one connection cannot carry the rate: the generator is named as the limit" *
          doctest::test_suite("timing")) {
    server_options so;
    so.threads = 2;
    server srv;
    REQUIRE_FALSE(srv.start(so));
    plan p;  // /delay answers on a timer: the server is not the limit, the one connection is
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/delay?us=20000").concurrency(1);
    capacity_objective o = quick(200);
    capacity_result r;
    REQUIRE_FALSE(find_capacity(p, o, r));
    check_verdicts(r, o);
    CHECK(r.generator_limited);
    CHECK(r.capacity >= 20);  // the first step held
    CHECK(r.capacity < 55);
    std::string table;
    append_capacity_table(r, o, table);
    CHECK(table.find("The generator, not the server, may have been the limit") != std::string::npos);
    CHECK(table.find("raise -c") != std::string::npos);
    bool suspect_seen = false;
    for (const capacity_step& s : r.steps) {
        if (s.held()) continue;
        CHECK(s.generator_suspect);
        CHECK(s.connection_waits > 0);
        suspect_seen = true;
    }
    CHECK(suspect_seen);
}

TEST_CASE("capacity search: no server: no request of the first step gets a connection, which ends the search") {
    std::uint16_t port = 0;
    {
        server gone;
        REQUIRE_FALSE(gone.start(server_options{}));
        port = gone.port();
    }  // stopped: nothing listens there now
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(port) + "/").concurrency(2);
    const capacity_objective o = bare(10, 640, 100);
    capacity_result r;
    REQUIRE_FALSE(find_capacity(p, o, r));
    CHECK(r.capacity == 0);
    REQUIRE(r.steps.size() == 1);
    CHECK(r.steps[0].target_rate == 640);
    CHECK(r.steps[0].verdict == capacity_verdict::no_connection);
    CHECK(r.steps[0].completed == 0);
    CHECK(r.steps[0].failed > 0);
    std::string table;
    append_capacity_table(r, o, table);
    CHECK(table.find("no connection") != std::string::npos);
    CHECK(table.find("Capacity: no step held the objective (the lowest tried: 640.0/s).") != std::string::npos);
    CHECK(capacity_json(r, o).find("\"verdict\":\"no_connection\"") != std::string::npos);
}

TEST_CASE("capacity search: a server that stops after the first step: the next gets no connection, and the rate held stands" *
          doctest::test_suite("timing")) {
    server srv;
    REQUIRE_FALSE(srv.start(server_options{}));
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/").concurrency(2);
    capacity_objective o = bare(1000, 20, 300);
    o.min_rate_ratio = 0;  // the first step holds on a busy machine too
    o.on_step = [](const capacity_step&, void* user) { static_cast<server*>(user)->stop(); };
    o.on_step_user = &srv;
    capacity_result r;
    REQUIRE_FALSE(find_capacity(p, o, r));
    REQUIRE(r.steps.size() == 2);
    CHECK(r.steps[0].held());
    CHECK(r.steps[1].target_rate == 40);
    CHECK(r.steps[1].verdict == capacity_verdict::no_connection);
    CHECK(r.capacity == 20);
}

TEST_CASE("capacity search: a server that takes connections and never answers: no response, and the search ends") {
    scripted_server silent([](scripted_server::context& c) {
        c.read_request();
        while (!c.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    });
    plan p;
    p.url(silent.url()).concurrency(2).timeout_ms(150);
    capacity_result r;
    REQUIRE_FALSE(find_capacity(p, bare(10, 40, 400), r));
    CHECK(r.capacity == 0);
    REQUIRE(r.steps.size() == 1);
    CHECK(r.steps[0].verdict == capacity_verdict::no_response);
    CHECK(r.steps[0].completed == 0);
    CHECK(silent.connections.load() > 0);  // it did connect: the requests timed out
}

TEST_CASE("capacity search: while no step holds the rate halves down to a sixteenth, then stops" *
          doctest::test_suite("timing")) {
    server srv;
    REQUIRE_FALSE(srv.start(server_options{}));
    plan p;  // every answer takes 30 ms: no step holds a 10 ms p99, yet each gets responses
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/delay/30").concurrency(20);
    capacity_result r;
    REQUIRE_FALSE(find_capacity(p, bare(10, 160, 200), r));
    CHECK(r.capacity == 0);
    REQUIRE(r.steps.size() == 10);  // 160, 80, 40, 20, 10 = 160 / 16, each tried twice
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
        CHECK(r.steps[i].target_rate == 160.0 / std::pow(2.0, static_cast<double>(i / 2)));
        CHECK(r.steps[i].retry == (i % 2 == 1));
        CHECK(r.steps[i].verdict == capacity_verdict::latency);
        CHECK(r.steps[i].completed > 0);
    }
    std::string table;
    append_capacity_table(r, bare(10, 160, 200), table);
    CHECK(count_of(table, "  p99 over") == 10);  // the first try of each rate is not marked, the second
    CHECK(count_of(table, " (tried again)\n") == 5);  // is (qemu may add "(the generator?)" between the two)
}

TEST_CASE("capacity search: a step that cannot start ends the search, and the steps before it stand" *
          doctest::test_suite("timing")) {
    server srv;
    REQUIRE_FALSE(srv.start(server_options{}));
    plan p;  // the open-file limit, lowered after the first step, leaves the next no room: run_fd_limit
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/").concurrency(200);
    capacity_objective o = bare(1000, 20, 300);
    o.min_rate_ratio = 0;
    rlimit before{};
    REQUIRE(getrlimit(RLIMIT_NOFILE, &before) == 0);
    o.on_step = [](const capacity_step&, void* user) {
        rlimit low = *static_cast<rlimit*>(user);
        low.rlim_cur = 100;  // below 200 connections
        setrlimit(RLIMIT_NOFILE, &low);
    };
    o.on_step_user = &before;
    capacity_result r;
    const error e = find_capacity(p, o, r);
    REQUIRE(setrlimit(RLIMIT_NOFILE, &before) == 0);
    REQUIRE_FALSE(e);  // the first step ran: a result, not an error
    REQUIRE(r.steps.size() == 1);
    CHECK(r.steps[0].held());
    CHECK(r.capacity == 20);
    CHECK(r.stopped.code == errc::run_fd_limit);
    std::string table;
    append_capacity_table(r, o, table);
    CHECK(table.find("The search stopped after step 1: the next could not start") != std::string::npos);
    CHECK(capacity_json(r, o).find("\"stopped\":{\"status\":\"run_fd_limit\"") != std::string::npos);
}

TEST_CASE("capacity search: an objective out of range or a bad plan is refused before any step, and a cancel stops it" *
          doctest::test_suite("timing")) {
    plan p;
    p.url("http://127.0.0.1:9/").concurrency(2);
    capacity_result r;
    auto refused = [&](void (*change)(capacity_objective&)) {
        capacity_objective o = quick(10);
        change(o);
        return find_capacity(p, o, r).code == errc::plan_bad_capacity_search && r.steps.empty();
    };
    CHECK(refused([](capacity_objective& o) { o.max_p99_ms = 0; }));
    CHECK(refused([](capacity_objective& o) { o.max_p99_ms = std::nan(""); }));
    CHECK(refused([](capacity_objective& o) { o.max_failure_ratio = 1.5; }));
    CHECK(refused([](capacity_objective& o) { o.min_rate_ratio = -0.1; }));
    CHECK(refused([](capacity_objective& o) { o.start_rate = 0; }));
    CHECK(refused([](capacity_objective& o) { o.max_rate = 10; }));  // below the start
    CHECK(refused([](capacity_objective& o) { o.resolution = 0; }));
    CHECK(refused([](capacity_objective& o) { o.warmup_ms = 5; }));
    CHECK(refused([](capacity_objective& o) { o.step_ms = 0; }));
    CHECK(refused([](capacity_objective& o) { o.cooldown_ms = 60'001; }));
    CHECK(refused([](capacity_objective& o) { o.max_steps = 0; }));
    CHECK(refused([](capacity_objective& o) { o.max_steps = 101; }));
    CHECK(refused([](capacity_objective& o) { o.min_responses = 0; }));
    // The error's position names the field, in capacity_objective's order.
    capacity_objective bad = quick(10);
    bad.warmup_ms = 5;
    CHECK(check_capacity_objective(bad).position == 7);
    bad = quick(10);
    bad.max_steps = 0;
    CHECK(check_capacity_objective(bad).position == 11);
    CHECK_FALSE(check_capacity_objective(quick(10)));
    CHECK(find_capacity(plan(p).threads(3), quick(10), r).code == errc::plan_bad_threads);
    CHECK(find_capacity(plan(p).pipeline(2), quick(10), r).code == errc::plan_bad_rate);  // a fixed rate does not pipeline

    server srv;
    REQUIRE_FALSE(srv.start(server_options{}));
    cancel_token stop;
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/").cancel_with(&stop);
    capacity_objective o = quick(10);
    struct seen {
        cancel_token* stop;
        int steps;
    } s{&stop, 0};
    o.on_step = [](const capacity_step&, void* user) {
        auto* s = static_cast<seen*>(user);
        if (++s->steps == 2) s->stop->cancel();
    };
    o.on_step_user = &s;
    REQUIRE_FALSE(find_capacity(p, o, r));
    CHECK(r.cancelled);
    CHECK(r.steps.size() == 2);

    // A cancel during a step: that step is not kept (cut short, it says nothing), and the search ends.
    cancel_token soon;
    p.cancel_with(&soon);
    o.on_step = nullptr;
    o.step_ms = 10'000;  // a first step of 10.3 s: the cancel at 0.6 s falls in it even on a busy machine
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        soon.cancel();
    });
    REQUIRE_FALSE(find_capacity(p, o, r));
    canceller.join();
    CHECK(r.cancelled);
    CHECK(r.steps.empty());  // the first step was cut short
}
