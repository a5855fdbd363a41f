// Scale-out against the reference server on 127.0.0.1: a plan divided into shards whose shares
// add up; shards run and merged equal the whole (counts exactly, percentiles within the
// histogram's precision of the exact ones); a result merged with itself; what merge refuses and
// what it counts as dropped; interval rows aligned on the wall clock; a delayed, synchronized
// start (and a cancel while waiting); connections spread over several source addresses (-B).
#include <doctest/doctest.h>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "microbench.hpp"
#include "run_helpers.hpp"

using namespace microbench;

namespace {

std::int64_t unix_ms_now() { return realtime_ns() / 1'000'000; }

// A run as merge sees it: written as JSON and read back, as from a generator's --json.
report_run saved(const run_description& p, const result& r, const std::string& label) {
    std::vector<report_run> back;
    REQUIRE_FALSE(read_report_runs(result_json(p, r, {50}), label, back));
    REQUIRE(back.size() == 1);
    return back[0];
}

report_run saved(const plan& p, const result& r, const std::string& label) { return saved(describe(p), r, label); }
report_run saved_copy(const report_run& run) { return saved(run.config, run.r, run.label); }

}  // namespace

TEST_CASE("shards: the shares of requests, connections and rate add up to the whole plan") {
    plan whole;
    whole.url("http://127.0.0.1:1/").requests(1000).concurrency(7).threads(4).rate(900);
    std::uint64_t requests = 0;
    std::uint32_t connections = 0;
    double rate = 0;
    for (std::uint32_t i = 0; i < 3; ++i) {
        plan s = whole;
        REQUIRE_FALSE(divide_plan(s, i, 3));
        CHECK(s.shard_index() == i);
        CHECK(s.shard_count() == 3);
        CHECK(s.threads() <= s.concurrency());
        CHECK_FALSE(s.validate());
        requests += s.requests(), connections += s.concurrency(), rate += s.rate();
    }
    CHECK(requests == 1000);
    CHECK(connections == 7);
    CHECK(rate == doctest::Approx(900));
    plan few = whole;
    few.concurrency(2);
    CHECK(divide_plan(few, 0, 3).code == errc::plan_bad_shard);  // a shard without a connection
    plan bad = whole;
    CHECK(divide_plan(bad, 3, 3).code == errc::plan_bad_shard);
    CHECK(plan(whole).shard(2, 2).validate().code == errc::plan_bad_shard);
}

TEST_CASE("shards run one by one and merged equal the whole: exact counts, percentiles of all requests") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    plan whole;
    whole.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/delay?us=150").requests(3000).concurrency(6).keep_alive(true)
        .record_requests(3000);
    std::vector<report_run> shards;
    std::vector<std::int64_t> totals;  // every request's total time: the exact percentiles
    for (std::uint32_t i = 0; i < 3; ++i) {
        plan p = whole;
        REQUIRE_FALSE(divide_plan(p, i, 3));
        result r;
        REQUIRE_FALSE(run(p, r));
        REQUIRE(r.requests_completed == p.requests());
        for (const request_timing& t : r.requests) totals.push_back(t.total_ns);
        shards.push_back(saved(p, r, "shard " + std::to_string(i)));
    }
    report_run merged;
    merge_summary s;
    REQUIRE_FALSE(merge_runs(shards, merged, s));
    CHECK(s.inputs == 3);
    CHECK(s.shard_count == 3);
    CHECK(s.dropped == 0);
    CHECK(merged.config.requests == 3000);
    CHECK(merged.config.concurrency == 6);
    CHECK(merged.config.shard_count == 0);
    CHECK(merged.r.requests_ended == 3000);
    CHECK(merged.r.requests_completed == 3000);
    CHECK(merged.r.status_counts[200] == 3000);
    CHECK(merged.r.total_ns.count() == 3000);
    CHECK(srv.counts().requests == 3000);
    REQUIRE(totals.size() == 3000);
    std::sort(totals.begin(), totals.end());
    CHECK(merged.r.total_ns.min() == totals.front());
    CHECK(merged.r.total_ns.max() == totals.back());
    for (double p : {50.0, 90.0, 99.0, 99.9}) {
        CAPTURE(p);
        const auto rank = std::max<long long>(1, std::llround(p / 100 * 3000));  // the histogram's rank rule
        const std::int64_t exact = totals[static_cast<std::size_t>(rank) - 1];
        CHECK(std::llabs(merged.r.total_ns.value_at_percentile(p) - exact) <= exact / 1000 + 1);
    }
    // The span is the wall clock's: from the first shard's start to the last one's end.
    CHECK(merged.r.elapsed_ns >= shards[2].r.start_realtime_ns + shards[2].r.elapsed_ns - shards[0].r.start_realtime_ns);
}

TEST_CASE("merge: shards that kept their targets merge into a run that keeps none of them") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    plan whole;
    whole.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/factorial/{0..9}").url_ranges(true).by_target(true);
    whole.requests(40).concurrency(2).keep_alive(true);
    std::vector<report_run> shards;
    for (std::uint32_t i = 0; i < 2; ++i) {
        plan p = whole;
        REQUIRE_FALSE(divide_plan(p, i, 2));
        result r;
        REQUIRE_FALSE(run(p, r));
        shards.push_back(saved(p, r, "shard " + std::to_string(i)));
        REQUIRE(shards.back().r.by_target.targets == 5);  // read back: its own stretch
    }
    report_run merged;
    merge_summary s;
    REQUIRE_FALSE(merge_runs(shards, merged, s));
    CHECK(merged.r.requests_completed == 40);
    CHECK(merged.r.by_target.targets == 0);  // not one shard's passed off as the whole run's
    CHECK(merged.r.by_target.rows.empty());
}

TEST_CASE("merge: a result with itself doubles every count and keeps every percentile") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/factorial/30").requests(500).concurrency(4).keep_alive(true).interval_ms(20);
    result r;
    REQUIRE_FALSE(run(p, r));
    const report_run one = saved(p, r, "x");
    report_run merged;
    merge_summary s;
    REQUIRE_FALSE(merge_runs({one, one}, merged, s));
    CHECK(merged.r.requests_ended == 2 * r.requests_ended);
    CHECK(merged.r.bytes_received == 2 * r.bytes_received);
    CHECK(merged.r.status_counts[200] == 2 * r.status_counts[200]);
    CHECK(merged.r.total_ns.count() == 2 * r.total_ns.count());
    CHECK(merged.r.elapsed_ns == one.r.elapsed_ns);
    for (double q : {0.0, 50.0, 90.0, 99.0, 100.0}) CHECK(merged.r.total_ns.value_at_percentile(q) == r.total_ns.value_at_percentile(q));
    CHECK(merged.r.total_ns.mean() == doctest::Approx(r.total_ns.mean()));
    REQUIRE(merged.r.intervals.size() == r.intervals.size());
    for (std::size_t i = 0; i < r.intervals.size(); ++i) {
        CHECK(merged.r.intervals[i].ended == 2 * r.intervals[i].ended);
        CHECK(merged.r.intervals[i].p99_ns == r.intervals[i].p99_ns);
    }
}

TEST_CASE("merge: refuses different plans and histograms, names the input, keeps values of the widest range") {
    report_run a;
    a.label = "a.json";
    a.config.url = "http://127.0.0.1:1/x";
    a.r.total_ns.record(1'000'000);
    report_run b = a;
    b.label = "b.json";
    report_run merged;
    merge_summary s;
    CHECK(merge_runs({}, merged, s).code == errc::merge_nothing);

    b.config.url = "http://127.0.0.1:1/y";
    CHECK(merge_runs({a, b}, merged, s).code == errc::merge_different_plans);
    CHECK(s.problem == "URL: http://127.0.0.1:1/x in a.json, http://127.0.0.1:1/y in b.json");
    b.config.url = a.config.url;
    b.config.keep_alive = true;
    CHECK(merge_runs({a, b}, merged, s).code == errc::merge_different_plans);
    CHECK(s.problem == "keep-alive: no in a.json, yes in b.json");
    b.config.keep_alive = false;
    b.r.rate_target = 100;
    CHECK(merge_runs({a, b}, merged, s).code == errc::merge_different_plans);
    b.r.rate_target = 0;

    report_run two = b;
    two.r.total_ns = histogram(histogram_config{1, 3'600'000'000'000, 2});
    CHECK(merge_runs({a, two}, merged, s).code == errc::merge_incompatible_histograms);
    CHECK(s.problem == "a.json has 3 significant digits from 1 ns, b.json 2 from 1 ns");

    report_run narrow = a;  // a histogram up to 1 s, b's up to 1 h: merged into the wider one
    for (histogram* h : {&narrow.r.connect_ns, &narrow.r.waiting_ns, &narrow.r.processing_ns, &narrow.r.total_ns,
                         &narrow.r.responses_total_ns, &narrow.r.response_ns, &narrow.r.schedule_lag_ns})
        *h = histogram(histogram_config{1, 1'000'000'000, 3});
    narrow.r.total_ns.record(5'000'000);
    report_run slow = b;
    slow.r.total_ns.record(10'000'000'000);
    REQUIRE_FALSE(merge_runs({narrow, slow}, merged, s));
    CHECK(s.dropped == 0);
    CHECK(merged.r.total_ns.count() == 3);  // 5 ms, and b's 1 ms and 10 s
    // Values above every input's range are what a merge can drop: none here, as none can be held
    // by an input and not by the widest; the count is kept for results made otherwise.

    report_run s0 = a, s1 = a;
    s0.config.shard_count = s1.config.shard_count = 2;
    CHECK(merge_runs({s0, s1}, merged, s).code == errc::merge_duplicate_shard);
    CHECK(s.problem == "shard 0 of 2 appears twice (a.json)");
    s1.config.shard_index = 1;
    CHECK_FALSE(merge_runs({s0, s1}, merged, s));
    CHECK(s.shards == std::vector<std::uint32_t>{0, 1});
}

TEST_CASE("merge: interval rows line up on the wall clock") {
    report_run a;
    a.label = "a";
    a.r.interval_ns = 100'000'000;
    a.r.start_realtime_ns = 1'000'000'000'000;
    a.r.elapsed_ns = 300'000'000;
    for (int i = 0; i < 3; ++i) {
        interval_stats row{};
        row.start_ns = i * 100'000'000;
        row.duration_ns = 100'000'000;
        row.ended = row.completed = 10;
        row.p99_ns = 1'000'000 * (i + 1);
        a.r.intervals.push_back(row);
    }
    report_run b = a;  // started one interval (and 2 ms) later
    b.label = "b";
    b.r.start_realtime_ns += 102'000'000;
    for (interval_stats& row : b.r.intervals) row.p99_ns *= 10;
    report_run merged;
    merge_summary s;
    REQUIRE_FALSE(merge_runs({a, b}, merged, s));
    REQUIRE(merged.r.intervals.size() == 4);
    CHECK(merged.r.elapsed_ns == 402'000'000);
    const std::uint64_t ended[] = {10, 20, 20, 10};
    const std::int64_t p99[] = {1'000'000, 10'000'000, 20'000'000, 30'000'000};  // the slot's highest
    for (std::size_t i = 0; i < 4; ++i) {
        CAPTURE(i);
        CHECK(merged.r.intervals[i].start_ns == static_cast<std::int64_t>(i) * 100'000'000);
        CHECK(merged.r.intervals[i].ended == ended[i]);
        CHECK(merged.r.intervals[i].p99_ns == p99[i]);
    }
}

namespace {

interval_stats row_at(std::int64_t start_ns, std::int64_t duration_ns, std::uint64_t ended, std::int64_t p99_ns) {
    interval_stats row{};
    row.start_ns = start_ns;
    row.duration_ns = duration_ns;
    row.sent = row.ended = row.completed = row.latency_count = ended;
    row.p50_ns = row.p90_ns = row.p99_ns = row.max_ns = p99_ns;
    return row;
}

}  // namespace

// Regression: missing slots were padded with rows of duration 0, and a row spanning several
// intervals (a generator whose calling thread fell behind) landed whole in one slot while the
// next slots filled too: merged rows had holes and overlaps.
TEST_CASE("merge: interval rows tile the merged run, with a spilled-over row and shards that started apart") {
    const std::int64_t ms = 1'000'000, step = 100 * ms;
    report_run a;
    a.label = "a";
    a.r.interval_ns = step;
    a.r.start_realtime_ns = 1'000'000 * ms;
    a.r.elapsed_ns = 250 * ms;
    a.r.intervals = {row_at(0, step, 10, 1 * ms), row_at(step, step, 10, 2 * ms), row_at(2 * step, 50 * ms, 5, 3 * ms)};
    report_run b = a;  // started 430 ms later; its calling thread fell behind: one row spans three intervals
    b.label = "b";
    b.r.start_realtime_ns += 430 * ms;
    b.r.elapsed_ns = 470 * ms;
    b.r.intervals = {row_at(0, 3 * step, 30, 7 * ms), row_at(3 * step, step, 10, 4 * ms), row_at(4 * step, 70 * ms, 7, 5 * ms)};
    for (bool reversed : {false, true}) {
        CAPTURE(reversed);
        report_run merged;
        merge_summary s;
        REQUIRE_FALSE(merge_runs(reversed ? std::vector<report_run>{b, a} : std::vector<report_run>{a, b}, merged, s));
        const std::vector<interval_stats>& rows = merged.r.intervals;
        REQUIRE_FALSE(rows.empty());
        std::int64_t at = 0;
        std::uint64_t ended = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            CAPTURE(i);
            CHECK(rows[i].start_ns == at);  // no hole, no overlap
            CHECK(rows[i].duration_ns > 0);
            if (i + 1 < rows.size()) CHECK(rows[i].duration_ns % step == 0);
            at += rows[i].duration_ns;
            ended += rows[i].ended;
        }
        CHECK(at == 430 * ms + 470 * ms);  // to where b's last row ends
        CHECK(ended == 25 + 47);
        // a: [0,100) [100,200) [200,250); nothing in [300,400); b from 430 ms: [400,700) as one
        // row (b's spans three intervals), [700,800), [800,900).
        REQUIRE(rows.size() == 7);
        const std::int64_t starts[] = {0, 100, 200, 300, 400, 700, 800};
        const std::uint64_t ends[] = {10, 10, 5, 0, 30, 10, 7};
        for (std::size_t i = 0; i < 7; ++i) {
            CAPTURE(i);
            CHECK(rows[i].start_ns == starts[i] * ms);
            CHECK(rows[i].ended == ends[i]);
        }
        CHECK(rows[4].duration_ns == 3 * step);
        CHECK(rows[4].p99_ns == 7 * ms);
    }
}

// Rows that each span most of the allowance: merging marks each interval once, not once per row
// that covers it (2,000 rows of 999,000 intervals took 3.3 s before; this is 8,000 of them).
TEST_CASE("merge: long overlapping rows become one row, in one sweep") {
    report_run a;
    a.label = "a";
    a.r.interval_ns = 10'000'000;
    for (int i = 0; i < 8000; ++i) a.r.intervals.push_back(row_at(i * a.r.interval_ns, 990'000 * a.r.interval_ns, 1, 1'000'000));
    report_run merged;
    merge_summary s;
    REQUIRE_FALSE(merge_runs({a}, merged, s));
    REQUIRE(merged.r.intervals.size() == 1);
    CHECK(merged.r.intervals[0].ended == 8000);
    CHECK(merged.r.intervals[0].duration_ns == (7999 + 990'000) * a.r.interval_ns);
}

TEST_CASE("merge: the result does not depend on the order of the inputs") {
    report_run narrow;  // histograms up to 1 s
    narrow.label = "narrow";
    narrow.config.url = "http://127.0.0.1:1/x";
    for (histogram* h : {&narrow.r.connect_ns, &narrow.r.waiting_ns, &narrow.r.processing_ns, &narrow.r.total_ns,
                         &narrow.r.responses_total_ns, &narrow.r.response_ns, &narrow.r.schedule_lag_ns})
        *h = histogram(histogram_config{1, 1'000'000'000, 3});
    narrow.r.total_ns.record(5'000'000);
    report_run wide;  // the default, up to an hour, with a 10 s value
    wide.label = "wide";
    wide.config.url = narrow.config.url;
    wide.r.total_ns.record(10'000'000'000);
    wide.r.total_ns.record(1'000'000);
    report_run m1, m2;
    merge_summary s1, s2;
    REQUIRE_FALSE(merge_runs({narrow, wide}, m1, s1));
    REQUIRE_FALSE(merge_runs({wide, narrow}, m2, s2));
    CHECK(s1.dropped == 0);
    CHECK(s2.dropped == 0);
    CHECK(m1.r.total_ns.count() == 3);
    CHECK(m2.r.total_ns.count() == 3);
    CHECK(m1.r.total_ns.max() == m2.r.total_ns.max());
    for (double q : {0.0, 50.0, 100.0}) CHECK(m1.r.total_ns.value_at_percentile(q) == m2.r.total_ns.value_at_percentile(q));
    CHECK(m1.r.total_ns.config().highest_trackable_value == m2.r.total_ns.config().highest_trackable_value);
}

// Issue 19, found with it: a saved row starting 4e18 ns in (a time the reader accepts) made merge
// grow the merged rows, one per interval up to it, until memory ran out ('microbench merge').
TEST_CASE("merge: refuses rows that would span more than max_merged_intervals intervals") {
    report_run a;
    a.label = "a.json";
    a.r.interval_ns = 10'000'000;
    interval_stats row{};
    row.duration_ns = a.r.interval_ns;
    a.r.intervals.push_back(row);
    report_run far = a;
    far.label = "far.json";
    far.r.intervals[0].start_ns = 4'000'000'000'000'000'000;
    report_run merged;
    merge_summary s;
    CHECK(merge_runs({a, far}, merged, s).code == errc::merge_too_many_intervals);
    CHECK(s.problem == "far.json has an interval starting 400000000000 intervals after the earliest start, reaching past 1000000");
    CHECK(merged.r.intervals.size() <= max_merged_intervals);
    // One late start by the whole allowance is refused too; a row just inside it merges.
    report_run late = a;
    late.label = "late.json";
    late.r.start_realtime_ns = static_cast<std::int64_t>(max_merged_intervals) * a.r.interval_ns;
    CHECK(merge_runs({a, late}, merged, s).code == errc::merge_too_many_intervals);
    late.r.start_realtime_ns -= a.r.interval_ns;
    REQUIRE_FALSE(merge_runs({a, late}, merged, s));
    CHECK(merged.r.intervals.size() == max_merged_intervals);
}

TEST_CASE("start at a wall-clock time: nothing before it, at once after it, and a cancel while waiting ends it" *
          doctest::test_suite("timing")) {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    const std::string url = "http://127.0.0.1:" + std::to_string(srv.port()) + "/factorial/5";
    plan p;
    const std::int64_t at = unix_ms_now() + 300;
    p.url(url).requests(20).start_at_unix_ms(at);
    result r;
    REQUIRE_FALSE(run(p, r));
    CHECK(r.requests_completed == 20);
    CHECK(r.start_requested_realtime_ns == at * 1'000'000);
    CHECK(r.start_realtime_ns >= at * 1'000'000);
    CHECK(r.start_realtime_ns - at * 1'000'000 < 100'000'000);  // woken within 100 ms even on a busy machine

    plan past;
    past.url(url).requests(5).start_at_unix_ms(unix_ms_now() - 60'000);
    REQUIRE_FALSE(run(past, r));
    CHECK(r.requests_completed == 5);

    cancel_token stop;
    stop.cancel();
    plan cancelled;
    const std::uint64_t served = srv.counts().requests;
    cancelled.url(url).requests(5).start_at_unix_ms(unix_ms_now() + 60'000).cancel_with(&stop);
    REQUIRE_FALSE(run(cancelled, r));
    CHECK(r.cancelled);
    CHECK(r.requests_ended == 0);
    CHECK(srv.counts().requests == served);

    plan far;
    far.url(url).requests(5).start_at_unix_ms(unix_ms_now() + 8 * 86'400'000LL);
    CHECK(run(far, r).code == errc::plan_bad_start_time);
}

namespace {

void ignore_signal(int) {}

struct signal_sender {  // sends SIGUSR1 to `to` every millisecond until stopped
    pthread_t to = pthread_self();
    std::atomic<bool> stop{false};
    static void* main(void* arg) {
        auto* s = static_cast<signal_sender*>(arg);
        while (!s->stop.load()) {
            pthread_kill(s->to, SIGUSR1);
            usleep(1000);
        }
        return nullptr;
    }
};

}  // namespace

// Regression: the last slice of the wait returned early when a signal with a handler arrived
// (a profiler, a language runtime), so the run began up to 50 ms before its time.
TEST_CASE("start at a wall-clock time: signals during the wait do not start the run early") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    struct sigaction on{}, old{};
    on.sa_handler = ignore_signal;  // a handler, no SA_RESTART: sleeps return EINTR
    sigemptyset(&on.sa_mask);
    REQUIRE(sigaction(SIGUSR1, &on, &old) == 0);
    signal_sender sender;
    pthread_t thread;
    REQUIRE(pthread_create(&thread, nullptr, &signal_sender::main, &sender) == 0);
    plan p;
    const std::int64_t at = unix_ms_now() + 300;
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/factorial/5").requests(5).start_at_unix_ms(at);
    result r;
    const error e = run(p, r);
    sender.stop.store(true);
    pthread_join(thread, nullptr);
    sigaction(SIGUSR1, &old, nullptr);
    REQUIRE_FALSE(e);
    CHECK(r.requests_completed == 5);
    CAPTURE(r.start_realtime_ns - at * 1'000'000);
    CHECK(r.start_realtime_ns >= at * 1'000'000);
}

TEST_CASE("-B with a range or a list: connections take the addresses in turn") {
    server srv;
    server_options so;
    so.host = "0.0.0.0";  // reachable from every loopback address
    REQUIRE_FALSE(srv.start(so));
    const std::string url = "http://127.0.0.1:" + std::to_string(srv.port()) + "/factorial/5";
    plan p;
    p.url(url).requests(400).concurrency(8).threads(2).keep_alive(true).bind_address("127.0.0.2-127.0.0.5");
    result r;
    REQUIRE_FALSE(run(p, r));
    CHECK(r.requests_completed == 400);
    server_counts c = srv.counts();
    REQUIRE(c.sources.size() == 4);
    for (const auto& source : c.sources) {
        CAPTURE(source.first);
        CHECK(source.second == 2);  // 8 connections over 4 addresses
    }
    CHECK(server_counts_json(c).find("\"sources\":{\"127.0.0.") != std::string::npos);

    plan list;
    list.url(url).requests(60).concurrency(3).keep_alive(true).bind_address("127.0.0.7,127.0.0.9");
    REQUIRE_FALSE(run(list, r));
    c = srv.counts();
    auto connections_from = [&c](const char* address) {
        for (const auto& source : c.sources)
            if (source.first == address) return source.second;
        return std::uint64_t{0};
    };
    CHECK(connections_from("127.0.0.7") == 2);
    CHECK(connections_from("127.0.0.9") == 1);

    for (const char* bad : {"127.0.0.5-127.0.0.2", "127.0.0.1-127.0.8.1", "10.255.255.1", "127.0.0.1,", "::1", "127.0.0.1-::1"}) {
        CAPTURE(bad);
        plan b;
        b.url(url).requests(1).bind_address(bad);
        CHECK(run(b, r).code == errc::plan_bad_bind_address);
    }
}

TEST_CASE("source addresses: the first fault, its kind and the item that has it") {
    using K = source_fault::kind;
    struct bad_case {
        const char* text;
        int family;
        K what;
        const char* item;
    };
    const bad_case cases[] = {
        {"", AF_INET, K::empty, ""},
        {"127.0.0.2,,127.0.0.3", AF_INET, K::empty, ""},
        {"127.0.0.2,", AF_INET, K::empty, ""},
        {"foo", AF_INET, K::not_numeric, "foo"},
        {"127.0.0.2,localhost", AF_UNSPEC, K::not_numeric, "localhost"},
        {"::1", AF_INET, K::other_family, "::1"},
        {"127.0.0.2,::1", AF_UNSPEC, K::other_family, "::1"},
        {"127.0.0.5-127.0.0.2", AF_INET, K::reversed, "127.0.0.5-127.0.0.2"},
        {"::1-::2", AF_INET6, K::range_not_ipv4, "::1-::2"},
        {"127.0.0.2,127.0.0.1-127.0.8.1", AF_INET, K::too_many, "127.0.0.1-127.0.8.1"},
        {"127.0.0.2,10.99.99.99", AF_INET, K::not_here, "10.99.99.99"},
        {"127.0.0.2-127.0.0.3,10.99.99.1-10.99.99.2", AF_UNSPEC, K::not_here, "10.99.99.1-10.99.99.2"},
    };
    for (const bad_case& c : cases) {
        CAPTURE(c.text);
        std::vector<endpoint> out;
        const std::string text = c.text;
        const source_fault f = source_addresses(text, c.family, out);
        CHECK(f.what == c.what);
        CHECK(text.substr(f.at, f.length) == c.item);
    }
    std::vector<endpoint> out;
    CHECK_FALSE(source_addresses("127.0.0.2-127.0.0.4,127.0.0.9", AF_UNSPEC, out));
    CHECK(out.size() == 4);
    CHECK(std::string(source_fault_text(K::reversed)) == "is a range whose last address comes before its first");
}

namespace {

std::vector<double> gaps_of(const std::vector<double>& times) {
    std::vector<double> gaps;
    for (std::size_t i = 1; i < times.size(); ++i) gaps.push_back(times[i] - times[i - 1]);
    return gaps;
}

}  // namespace

// Regression: worker i of shard k was seeded with seed + i + k × SplitMix64's own increment, so
// shard k+1's stream was shard k's one draw later and merged shards were shifted copies.
TEST_CASE("shards' Poisson streams are independent: merged they are Poisson, and no two streams share gaps") {
    plan whole;
    whole.url("http://127.0.0.1:1/").requests(0).duration_ms(10'000).concurrency(8).threads(2).rate(4000)
        .arrivals(arrivals::poisson).seed(7);
    const std::int64_t stop_ns = 10'000'000'000;
    const auto one = scheduled_times(whole, stop_ns), four = scheduled_times(whole, stop_ns, 4);
    REQUIRE(four.size() == 8);
    const double d_one = dispersion_of(one, 10'000'000, stop_ns), d_four = dispersion_of(four, 10'000'000, stop_ns);
    CAPTURE(d_one);
    CAPTURE(d_four);
    // 1000 bins of ~40 arrivals: the sample dispersion of a Poisson count is 1 ± 0.045 (1 sd).
    CHECK(d_one > 0.8);
    CHECK(d_one < 1.2);
    CHECK(d_four > 0.8);
    CHECK(d_four < 1.2);

    // No run of four gaps (to the microsecond: times are whole nanoseconds, so a shifted copy's
    // gaps may differ by 1 ns) appears in two streams: of the four shards' eight, and of seeds 7
    // and 8 (seed 7's worker 1 was seed 8's worker 0). Two independent streams share one by
    // chance with a probability of about 1e-4 here; copies share thousands.
    auto streams = four;
    for (const auto& s : scheduled_times(whole.seed(8), stop_ns, 4)) streams.push_back(s);
    std::vector<std::pair<std::array<std::int64_t, 4>, std::size_t>> runs;  // (gaps, stream)
    for (std::size_t k = 0; k < streams.size(); ++k) {
        const std::vector<double> g = gaps_of(streams[k]);
        for (std::size_t i = 0; i + 4 <= g.size(); ++i) {
            std::array<std::int64_t, 4> run;
            for (std::size_t j = 0; j < 4; ++j) run[j] = std::llround(g[i + j] / 1000);
            runs.emplace_back(run, k);
        }
    }
    std::sort(runs.begin(), runs.end());
    std::size_t shared = 0;
    for (std::size_t i = 1; i < runs.size(); ++i) shared += runs[i].first == runs[i - 1].first && runs[i].second != runs[i - 1].second;
    CHECK(runs.size() > 79'000);  // 2 seeds x 4000/s x 10 s, less the first few of each stream
    CHECK(shared == 0);
}

TEST_CASE("shards' uniform schedules interleave into the one schedule of the undivided plan") {
    plan whole;
    whole.url("http://127.0.0.1:1/").requests(0).duration_ms(1000).concurrency(6).threads(2).rate(3000);
    const std::int64_t stop_ns = 1'000'000'000;
    std::vector<double> one, three;
    for (const auto& s : scheduled_times(whole, stop_ns)) one.insert(one.end(), s.begin(), s.end());
    for (const auto& s : scheduled_times(whole, stop_ns, 3)) three.insert(three.end(), s.begin(), s.end());
    std::sort(one.begin(), one.end());
    std::sort(three.begin(), three.end());
    REQUIRE(one.size() == 3000);
    REQUIRE(three.size() == one.size());
    double worst_ns = 0;
    for (std::size_t i = 0; i < one.size(); ++i) worst_ns = std::max(worst_ns, std::fabs(one[i] - three[i]));
    CHECK(worst_ns <= 1.0);  // the same times to the nanosecond (rounding of the offsets)
    CHECK(one.front() == 0.0);
    CHECK(std::fabs(one[1] - one[0] - 1e9 / 3000) <= 1.0);
}

namespace {

std::string encoded(std::initializer_list<std::pair<std::int64_t, std::uint64_t>> values) {
    histogram h;
    for (const auto& [value, count] : values) h.record(value, count);
    std::string out;
    encode_histogram(h, out);
    return out;
}

}  // namespace

TEST_CASE("merge: rows that kept their histograms merge to exact percentiles, kept again") {
    // Interval 0: a's 110 requests at 1 ms, b's 90 at 5 ms and 1 at 9 ms. The parts' highest p50
    // is 5 ms; the exact p50 of the 201 is 1 ms (the top of its bucket).
    report_run a;
    a.label = "a";
    a.r.interval_ns = 100'000'000;
    a.r.start_realtime_ns = 1'000'000'000'000;
    a.r.elapsed_ns = 100'000'000;
    a.r.intervals.push_back(row_at(0, 100'000'000, 110, 1'000'000));
    a.r.interval_histograms.push_back({encoded({{1'000'000, 110}}), encoded({{900'000, 110}}), encoded({{10'000, 110}})});
    report_run b = a;
    b.label = "b";
    b.r.intervals[0] = row_at(0, 100'000'000, 91, 5'000'000);
    b.r.intervals[0].max_ns = 9'000'000;
    b.r.interval_histograms[0] = {encoded({{5'000'000, 90}, {9'000'000, 1}}), encoded({{4'000'000, 91}}), encoded({{20'000, 91}})};
    histogram all;
    all.record(1'000'000, 110);
    all.record(5'000'000, 90);
    all.record(9'000'000, 1);
    report_run merged;
    merge_summary s;
    REQUIRE_FALSE(merge_runs({a, b}, merged, s));
    REQUIRE(merged.r.intervals.size() == 1);
    const interval_stats& row = merged.r.intervals[0];
    CHECK(row.ended == 201);
    CHECK(row.p50_ns == all.value_at_percentile(50));
    CHECK(all.equivalent(row.p50_ns, 1'000'000));  // not 5 ms, the upper bound
    CHECK(row.p90_ns == all.value_at_percentile(90));
    CHECK(all.equivalent(row.p90_ns, 5'000'000));
    CHECK(row.p99_ns == all.value_at_percentile(99));
    CHECK(row.max_ns == 9'000'000);
    CHECK(row.lag_max_ns == 20'000);
    REQUIRE(merged.r.interval_histograms.size() == 1);
    histogram back;
    REQUIRE_FALSE(decode_histogram(merged.r.interval_histograms[0].service, back));
    CHECK(back.count() == 201);
    CHECK(back.min() == 900'000);
    // Saved and read back, they merge alike; without them in one input, the bound comes back.
    report_run again;
    REQUIRE_FALSE(merge_runs({saved_copy(a), saved_copy(b)}, again, s));
    CHECK(again.r.intervals[0].p50_ns == all.value_at_percentile(50));
    // A generator that started two intervals later: the row between gets empty histograms.
    report_run c = a;
    c.label = "c";
    c.r.start_realtime_ns += 200'000'000;
    REQUIRE_FALSE(merge_runs({a, c}, merged, s));
    REQUIRE(merged.r.intervals.size() == 3);
    REQUIRE(merged.r.interval_histograms.size() == 3);
    REQUIRE_FALSE(decode_histogram(merged.r.interval_histograms[1].response, back));
    CHECK(back.empty());
    CHECK(merged.r.intervals[1].p99_ns == 0);
    REQUIRE_FALSE(decode_histogram(merged.r.interval_histograms[2].schedule_lag, back));
    CHECK(back.count() == 110);
    CHECK(merged.r.intervals[2].lag_max_ns == 10'000);
    b.r.interval_histograms.clear();
    REQUIRE_FALSE(merge_runs({a, b}, merged, s));
    CHECK(merged.r.intervals[0].p50_ns == 5'000'000);
    CHECK(merged.r.interval_histograms.empty());
}

TEST_CASE("interval histograms: kept per row from a run, in the JSON, and written as HdrHistogram's log") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/").requests(800).concurrency(4).keep_alive(true).rate(4000)
        .interval_ms(50).interval_histograms(true);
    result r;
    REQUIRE_FALSE(run(p, r));
    REQUIRE(r.requests_completed == 800);
    REQUIRE(r.interval_histograms.size() == r.intervals.size());
    std::uint64_t response = 0, service = 0, lag = 0;
    histogram h;
    for (std::size_t i = 0; i < r.intervals.size(); ++i) {
        CAPTURE(i);
        REQUIRE_FALSE(decode_histogram(r.interval_histograms[i].response, h));
        CHECK(h.count() == r.intervals[i].latency_count);
        if (!h.empty()) CHECK(h.value_at_percentile(99) == r.intervals[i].p99_ns);
        CHECK(h.max() == r.intervals[i].max_ns);
        response += h.count();
        REQUIRE_FALSE(decode_histogram(r.interval_histograms[i].service, h));
        service += h.count();
        REQUIRE_FALSE(decode_histogram(r.interval_histograms[i].schedule_lag, h));
        CHECK(h.max() == r.intervals[i].lag_max_ns);
        lag += h.count();
    }
    CHECK(response == 800);
    CHECK(service == 800);
    CHECK(lag == 800);
    // The JSON carries them and reads them back byte for byte.
    std::vector<report_run> back;
    REQUIRE_FALSE(read_report_runs(result_json(p, r, {50}), "x", back));
    REQUIRE(back[0].r.interval_histograms.size() == r.intervals.size());
    CHECK(back[0].r.interval_histograms.back().service == r.interval_histograms.back().service);
    // A result writes the whole log: three tagged rows an interval, the counts the run's.
    std::string log;
    REQUIRE(append_hlog(r, log));
    std::vector<hlog_tag_total> totals;
    std::string message;
    REQUIRE(add_hlog_totals(log, totals, message));
    REQUIRE(totals.size() == 3);
    CHECK(totals[0].tag == "response");
    CHECK(totals[0].intervals == r.intervals.size());
    for (const hlog_tag_total& t : totals) CHECK(t.values.count() == 800);
    r.interval_histograms.pop_back();
    CHECK_FALSE(append_hlog(r, log));  // not every row kept them
}
