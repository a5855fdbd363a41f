// Tests of a run with targets (plan::targets): each request goes to its target in turn, with
// threads, pipelining and shards, counted exactly on the server's side; a target of another
// origin is refused by its index.
#include <doctest/doctest.h>

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "microbench.hpp"
#include "scripted_server.hpp"

namespace mb = microbench;

namespace {

// What the path-counting server has answered, path by path.
std::mutex paths_mutex;
std::map<std::string, int> paths_seen;

// Answers the request just read with its path as the body (so each target's length differs), and
// counts the path; false when the answer cannot be sent.
bool answer_with_path_once(scripted_server::context& c) {
    const std::size_t from = c.head.find(' ') + 1;
    const std::string path = c.head.substr(from, c.head.find(' ', from) - from);
    {
        std::lock_guard<std::mutex> lock(paths_mutex);
        ++paths_seen[path];
    }
    return c.send("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(path.size()) + "\r\n\r\n" + path);
}

// Keep-alive: answers each request with answer_with_path_once; a head with bytes of another
// request in it gets a 400.
void answer_with_path(scripted_server::context& c) {
    while (c.read_request()) {
        if (c.head.compare(0, 5, "GET /") != 0 || c.head.find("HTTP/1.1\r\n") != c.head.rfind("HTTP/1.1\r\n")) {
            if (!c.send("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")) return;
            continue;
        }
        if (!answer_with_path_once(c)) return;
    }
}

std::map<std::string, int> take_paths() {
    std::lock_guard<std::mutex> lock(paths_mutex);
    std::map<std::string, int> seen;
    seen.swap(paths_seen);
    return seen;
}

std::vector<mb::target> targets_of(const scripted_server& s, int n, const char* prefix = "/t/") {
    std::vector<mb::target> out;
    for (int i = 0; i < n; ++i) out.push_back(s.url(prefix) + std::to_string(i * 7));  // lengths differ
    return out;
}

}  // namespace

TEST_CASE("targets: every request goes to its target in turn, with threads and pipelining, counted exactly") {
    scripted_server server(answer_with_path);
    take_paths();
    for (std::uint32_t pipeline : {1u, 3u}) {
        mb::plan p;
        p.url(server.url("/t/0")).targets(targets_of(server, 10)).requests(1000).concurrency(4).threads(2);
        p.keep_alive(true).pipeline(pipeline);
        mb::result r;
        REQUIRE(!mb::run(p, r));
        CHECK(r.requests_completed == 1000);
        CHECK(r.requests_failed == 0);  // each target's body has its own length: no Length failures
        CHECK(r.non_2xx == 0);
        CHECK(r.connects == 4);  // every batch written in full: no connection closed for it
        const std::map<std::string, int> seen = take_paths();
        CHECK(seen.size() == 10);
        for (int i = 0; i < 10; ++i) CHECK_MESSAGE(seen.at("/t/" + std::to_string(i * 7)) == 100, "pipeline ", pipeline);
    }
}

TEST_CASE("targets: each target's length is its own, and one unlike its first is a Length failure") {
    scripted_server server([](scripted_server::context& c) {
        for (int k = 0; c.read_request(); ++k) {  // /a answers "a", /bb "bb"; every third answer one byte longer
            std::string body = c.head.compare(0, 6, "GET /a") == 0 ? "a" : "bb";
            if (k % 3 == 2) body += "+";
            if (!c.send("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body)) return;
        }
    });
    mb::plan p;
    p.url(server.url("/a")).targets({server.url("/a"), server.url("/bb")}).requests(30).concurrency(1).keep_alive(true);
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_completed == 20);
    CHECK(r.failed(mb::failure::length) == 10);
}

TEST_CASE("targets: shards take stretches of the targets, none shared, together all of them") {
    scripted_server server(answer_with_path);
    take_paths();
    mb::plan whole;
    whole.url(server.url("/t/0")).targets(targets_of(server, 10)).requests(30).concurrency(3).keep_alive(true);
    std::map<std::string, int> all;
    for (std::uint32_t shard = 0; shard < 3; ++shard) {
        mb::plan p = whole;
        REQUIRE(!mb::divide_plan(p, shard, 3));
        CHECK(p.targets().size() == (shard == 0 ? 4u : 3u));
        mb::result r;
        REQUIRE(!mb::run(p, r));
        CHECK(r.requests_completed == 10);
        for (const auto& seen : take_paths()) {
            CHECK_MESSAGE(all.count(seen.first) == 0, seen.first, " went to two shards");
            all[seen.first] = seen.second;
        }
    }
    CHECK(all.size() == 10);
    mb::plan p = whole;
    p.targets(targets_of(server, 2));
    CHECK(mb::divide_plan(p, 0, 3).code == mb::errc::plan_bad_shard);  // fewer targets than shards
}

TEST_CASE("targets: one of another origin is refused by its index, before anything is sent") {
    scripted_server server(answer_with_path);
    take_paths();
    mb::plan p;
    std::vector<mb::target> targets = targets_of(server, 3);
    targets.push_back("http://127.0.0.2:8080/x");  // another host
    p.url(server.url("/t/0")).targets(targets).requests(3);
    mb::result r;
    const mb::error e = mb::run(p, r);
    CHECK(e.code == mb::errc::plan_bad_target);
    CHECK(e.position == 3);
    p.targets({server.url("/ok"), "not a url"});
    CHECK(mb::run(p, r).position == 1);
    p.targets({"https://127.0.0.1" + server.url().substr(16)});  // the same host and port, another scheme
    CHECK(mb::run(p, r).code == mb::errc::plan_bad_target);
    CHECK(take_paths().empty());
    CHECK(server.connections == 0);
}

TEST_CASE("targets: a pipelined batch the kernel takes in pieces resumes inside the right request") {
    scripted_server server(answer_with_path);
    take_paths();
    mb::plan p;  // 20 KB requests through a 4 KB send buffer: writes end anywhere in a batch of four
    p.url(server.url("/t/0")).targets(targets_of(server, 5)).header("X-Pad", std::string(20000, 'p'));
    p.requests(40).concurrency(2).keep_alive(true).pipeline(4).socket_buffer_bytes(4096);
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_completed == 40);
    CHECK(r.requests_failed == 0);
    CHECK(r.non_2xx == 0);  // no head held bytes of another request
    const std::map<std::string, int> seen = take_paths();
    REQUIRE(seen.size() == 5);
    for (const auto& path : seen) CHECK_MESSAGE(path.second == 8, path.first);
}

TEST_CASE("targets: a request sent again after a keep-alive close keeps its target") {
    // Closes each connection after three answers: of a batch of two, the second meets the close and
    // goes again, first on the next connection (so it is answered: a request goes again once).
    scripted_server server([](scripted_server::context& c) {
        for (int k = 0; k < 3 && c.read_request(); ++k) answer_with_path_once(c);
    });
    take_paths();
    mb::plan p;
    p.url(server.url("/t/0")).targets(targets_of(server, 5)).requests(60).concurrency(2).keep_alive(true).pipeline(2);
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_completed == 60);
    CHECK(r.requests_failed == 0);
    CHECK(r.retries > 0);  // pipelined requests met the close and went again
    const std::map<std::string, int> seen = take_paths();  // counted when answered: once each
    REQUIRE(seen.size() == 5);
    for (const auto& path : seen) CHECK_MESSAGE(path.second == 12, path.first);
}

TEST_CASE("targets: url_ranges makes them from the URL when the run starts, a shard its own stretch") {
    scripted_server server(answer_with_path);
    take_paths();
    mb::plan whole;
    whole.url(server.url("/r/{1..7}")).url_ranges(true).requests(14).concurrency(2).keep_alive(true);
    CHECK(mb::target_count(whole) == 7);
    mb::result r;
    REQUIRE(!mb::run(whole, r));
    std::map<std::string, int> seen = take_paths();
    REQUIRE(seen.size() == 7);
    CHECK(seen["/r/1"] == 2);
    CHECK(seen["/r/7"] == 2);
    mb::plan second = whole;
    REQUIRE(!mb::divide_plan(second, 1, 2));  // shard 1 of 2: /r/5 to /r/7
    CHECK(mb::target_count(second) == 3);
    REQUIRE(!mb::run(second, r));
    seen = take_paths();
    CHECK(seen == std::map<std::string, int>{{"/r/5", 3}, {"/r/6", 2}, {"/r/7", 2}});
    mb::plan one;  // a range of one URL is that URL, braces gone
    one.url(server.url("/r/{07..07}")).url_ranges(true).requests(2);
    REQUIRE(!mb::run(one, r));
    CHECK(take_paths() == std::map<std::string, int>{{"/r/07", 2}});
    one.url_ranges(false);  // off: the braces are sent as written
    REQUIRE(!mb::run(one, r));
    CHECK(take_paths() == std::map<std::string, int>{{"/r/{07..07}", 2}});
    mb::plan plain = whole;  // no ranges in it: every shard sends to the one URL
    plain.url(server.url("/plain"));
    REQUIRE(!mb::divide_plan(plain, 1, 2));
    CHECK(mb::target_count(plain) == 0);
    REQUIRE(!mb::run(plain, r));
    CHECK(take_paths() == std::map<std::string, int>{{"/plain", 7}});
    mb::plan heavy = whole;  // 20,000 copies of a 64 KiB body: past 1 GiB, refused before anything is made
    heavy.url(server.url("/r/{1..20000}")).body(std::string(64 * 1024, 'b')).method("POST");
    CHECK(mb::run(heavy, r).code == mb::errc::plan_targets_too_large);
    CHECK(take_paths().empty());
    mb::plan both = whole;
    both.targets({server.url("/x")});
    CHECK(mb::run(both, r).code == mb::errc::plan_bad_target);  // a list and ranges: one or the other
    mb::plan fewer = whole;
    CHECK(mb::divide_plan(fewer, 0, 8).code == mb::errc::plan_bad_shard);  // 7 URLs for 8 shards
    CHECK(mb::divide_plan(both, 0, 2).code == mb::errc::plan_bad_target);  // a list and ranges
}

namespace {

std::vector<std::string> arrivals_seen;  // with paths_mutex: each path as it came

// One connection at a time: answers as answer_with_path does, and keeps the order paths came in.
void answer_in_order(scripted_server::context& c) {
    while (c.read_request()) {
        const std::size_t from = c.head.find(' ') + 1;
        {
            std::lock_guard<std::mutex> lock(paths_mutex);
            arrivals_seen.push_back(c.head.substr(from, c.head.find(' ', from) - from));
        }
        if (!answer_with_path_once(c)) return;
    }
}

std::vector<std::string> take_arrivals() {
    std::lock_guard<std::mutex> lock(paths_mutex);
    std::vector<std::string> out;
    out.swap(arrivals_seen);
    return out;
}

std::vector<std::string> arrivals_of(const mb::plan& p) {
    take_arrivals();
    take_paths();
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_failed == 0);
    return take_arrivals();
}

}  // namespace

TEST_CASE("targets: each once sends every target exactly once, with threads, pipelining, a rate and shards") {
    scripted_server server(answer_with_path);
    for (mb::target_order order : {mb::target_order::in_turn, mb::target_order::random}) {
        for (int variant = 0; variant < 3; ++variant) {
            mb::plan p;
            p.url(server.url("/e/{1..1000}")).url_ranges(true).each_once(true).order(order).seed(5);
            p.requests(0).concurrency(4).threads(2).keep_alive(true);
            if (variant == 1) p.pipeline(3);
            if (variant == 2) p.rate(4000);
            take_paths();
            mb::result r;
            REQUIRE(!mb::run(p, r));
            CHECK(r.requests_completed == 1000);
            const std::map<std::string, int> seen = take_paths();
            CHECK_MESSAGE(seen.size() == 1000, "variant ", variant);
            for (const auto& path : seen) CHECK_MESSAGE(path.second == 1, path.first);
        }
        std::map<std::string, int> all;  // three shards: each of its stretch once, none shared
        for (std::uint32_t shard = 0; shard < 3; ++shard) {
            mb::plan p;
            p.url(server.url("/s/{1..100}")).url_ranges(true).each_once(true).order(order).concurrency(3);
            REQUIRE(!mb::divide_plan(p, shard, 3));
            take_paths();
            mb::result r;
            REQUIRE(!mb::run(p, r));
            for (const auto& seen : take_paths()) all[seen.first] += seen.second;
        }
        CHECK(all.size() == 100);
        for (const auto& path : all) CHECK_MESSAGE(path.second == 1, path.first);
    }
    mb::plan p;
    p.url(server.url("/e/{1..3}")).url_ranges(true).each_once(true).concurrency(4).requests(0);
    mb::result r;
    CHECK(mb::run(p, r).code == mb::errc::plan_concurrency_above_requests);  // more connections than targets
    p.concurrency(2).duration_ms(1000);
    CHECK(p.validate().code == mb::errc::plan_each_once_duration);  // a count, not a time
}

TEST_CASE("targets: a random order repeats with its seed and differs with another, and each once at random is a shuffle") {
    scripted_server server(answer_in_order);
    mb::plan p;
    p.url(server.url("/o/{0..9}")).url_ranges(true).requests(200).concurrency(1).keep_alive(true);
    const std::vector<std::string> in_turn = arrivals_of(p);
    REQUIRE(in_turn.size() == 200);
    CHECK(in_turn[0] == "/o/0");
    CHECK(in_turn[11] == "/o/1");
    p.order(mb::target_order::random).seed(1);
    const std::vector<std::string> first = arrivals_of(p);
    CHECK(first == arrivals_of(p));  // the same seed, the same picks
    CHECK(first != in_turn);
    p.seed(2);
    CHECK(first != arrivals_of(p));
    std::map<std::string, int> counts;
    for (const std::string& path : first) ++counts[path];
    CHECK(counts.size() == 10);
    for (const auto& c : counts) CHECK_MESSAGE((c.second >= 5 && c.second <= 40), c.first, " ", c.second);
    p.each_once(true).requests(0).seed(1);  // a shuffle: each once, not in turn, the same again
    const std::vector<std::string> shuffled = arrivals_of(p);
    REQUIRE(shuffled.size() == 10);
    CHECK(std::set<std::string>(shuffled.begin(), shuffled.end()).size() == 10);
    CHECK(shuffled != std::vector<std::string>(in_turn.begin(), in_turn.begin() + 10));
    CHECK(shuffled == arrivals_of(p));
}
