// Tests of the request callback (plan::on_request): each request is what the callback wrote —
// counted on the server exactly, across threads and pipelining — its index unique, its target
// the one the callback left (in checks and the breakdown); a call that writes nothing stops its
// worker, one that overflows is counted; a resend sends the same bytes, and the written method
// decides a HEAD's body and whether a request goes again.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "microbench.hpp"
#include "scripted_server.hpp"

namespace mb = microbench;

namespace {

std::mutex lines_mutex;
std::map<std::string, int> seen;  // request lines the server answered, each counted

std::map<std::string, int> take_lines() {
    std::lock_guard<std::mutex> lock(lines_mutex);
    std::map<std::string, int> out;
    out.swap(seen);
    return out;
}

// Answers one request: counts its request line, and answers its path as the body (none to a
// HEAD, whose Content-Length still says the path's length).
bool answer_once(scripted_server::context& c) {
    const std::string line = c.head.substr(0, c.head.find("\r\n"));
    const std::size_t from = line.find(' ') + 1;
    const std::string path = line.substr(from, line.find(' ', from) - from);
    {
        std::lock_guard<std::mutex> lock(lines_mutex);
        ++seen[line];
    }
    const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(path.size()) + "\r\n\r\n";
    return c.send(line.compare(0, 5, "HEAD ") == 0 ? head : head + path);
}

void answer_all(scripted_server::context& c) {
    while (c.read_request() && answer_once(c)) {}
}

// What the test callbacks share: calls made, the indices handed out, and what each writes.
struct writer_state {
    std::mutex mutex;
    std::set<std::uint64_t> indices;
    std::atomic<std::uint64_t> calls{0};
    std::uint64_t stop_after = UINT64_MAX;  // calls past this write nothing
    const char* method = "GET";
    std::uint32_t target = UINT32_MAX;  // UINT32_MAX: leave the order's
    bool overflow = false;              // return one more than the room
    bool prepared_seen_wrong = false;   // a call's prepared request was not the plan's for its target
    std::string host;                   // "127.0.0.1:port"
};

// Writes "METHOD /w/<index> HTTP/1.1" with the Host header, a request of its own for every index.
std::size_t write_indexed(mb::request_call& call, void* user) {
    auto& w = *static_cast<writer_state*>(user);
    if (w.calls.fetch_add(1) >= w.stop_after) return 0;
    if (w.overflow) return call.capacity + 1;
    {
        std::lock_guard<std::mutex> lock(w.mutex);
        if (!w.indices.insert(call.index).second) w.indices.insert(UINT64_MAX);  // a repeat: marked
    }
    if (call.prepared.compare(0, 4, "GET ") != 0) w.prepared_seen_wrong = true;
    if (w.target != UINT32_MAX) call.target = w.target;
    const int n = std::snprintf(call.data, call.capacity, "%s /w/%llu HTTP/1.1\r\nHost: %s\r\n\r\n", w.method,
                                static_cast<unsigned long long>(call.index), w.host.c_str());
    return n > 0 ? static_cast<std::size_t>(n) : 0;
}

std::string host_of(const scripted_server& s) {
    const std::string u = s.url("/");
    return u.substr(7, u.size() - 8);  // between "http://" and the last "/"
}

}  // namespace

TEST_CASE("request callback: each request is the one it wrote, its index unique, counted exactly on the server") {
    scripted_server server(answer_all);
    for (std::uint32_t pipeline : {1u, 3u}) {
        take_lines();
        writer_state w;
        w.host = host_of(server);
        mb::plan p;
        p.url(server.url("/")).requests(600).concurrency(4).threads(2).keep_alive(true).pipeline(pipeline);
        p.on_request(write_indexed, &w, 256);
        mb::result r;
        REQUIRE(!mb::run(p, r));
        CHECK(r.requests_completed == 600);
        CHECK(r.requests_failed == 0);  // the lengths differ: ab's length rule is off with a callback
        CHECK(w.calls.load() == 600);
        CHECK(w.indices.size() == 600);
        CHECK(w.indices.count(UINT64_MAX) == 0);  // none handed out twice
        CHECK_FALSE(w.prepared_seen_wrong);
        const std::map<std::string, int> got = take_lines();
        CHECK(got.size() == 600);
        for (std::uint64_t i : w.indices) {
            const auto it = got.find("GET /w/" + std::to_string(i) + " HTTP/1.1");
            CHECK_MESSAGE((it != got.end() && it->second == 1), "index ", i, " pipeline ", pipeline);
        }
        CHECK(r.retries == 0);
        CHECK(r.request_fn_faults == 0);
    }
}

// Holds every request it reads without answering, until the client closes.
void hold_all(scripted_server::context& c) {
    while (c.read_request()) {}
}

TEST_CASE("request callback: a worker it stopped still ends the run at the duration and its drain") {
    // The callback writes three requests, which the server never answers, then (for the fourth
    // connection) no more: the duration's drain still ends the three, as unfinished, long before
    // their 60 s timeout.
    scripted_server server(hold_all);
    writer_state w;
    w.host = host_of(server);
    w.stop_after = 3;
    mb::plan p;
    p.url(server.url("/")).requests(0).duration_ms(300).drain_ms(0).timeout_ms(60'000).concurrency(4);
    p.keep_alive(true).on_request(write_indexed, &w);
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(w.calls.load() == 4);
    CHECK(r.unfinished == 3);
    CHECK(r.requests_ended == 0);
    CHECK(r.failed(mb::failure::timeout) == 0);
    CHECK(r.elapsed_ns < 30'000'000'000LL);
}

TEST_CASE("request callback: writing nothing stops its worker, and what is in flight still ends") {
    scripted_server server(answer_all);
    take_lines();
    writer_state w;
    w.host = host_of(server);
    w.stop_after = 250;
    mb::plan p;
    // No count: the callback ends the run (the duration is only a bound should it not).
    p.url(server.url("/")).requests(0).duration_ms(30'000).concurrency(4).threads(2).keep_alive(true).pipeline(2);
    p.on_request(write_indexed, &w);
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_completed == 250);
    CHECK(r.requests_failed == 0);
    CHECK(r.unfinished == 0);
    CHECK(r.request_fn_faults == 0);
    CHECK(r.elapsed_ns < 20'000'000'000LL);  // ended by the callback, not by the 30 s bound
    std::size_t answered = 0;
    for (const auto& line : take_lines()) answered += static_cast<std::size_t>(line.second);
    CHECK(answered == 250);
}

TEST_CASE("request callback: a length above the room, or a target outside the targets, is counted and stops its worker") {
    scripted_server server(answer_all);
    for (int fault = 0; fault < 2; ++fault) {
        take_lines();
        writer_state w;
        w.host = host_of(server);
        w.overflow = fault == 0;
        w.target = fault == 1 ? 3 : UINT32_MAX;  // three targets: 0, 1 and 2
        mb::plan p;
        p.url(server.url("/")).requests(100).concurrency(2).threads(2).keep_alive(true);
        if (fault == 1) p.targets({server.url("/a"), server.url("/b"), server.url("/c")});
        p.on_request(write_indexed, &w, 64);
        mb::result r;
        REQUIRE(!mb::run(p, r));
        CHECK_MESSAGE(r.request_fn_faults == 2, "fault ", fault);  // each worker's first call
        CHECK(r.requests_ended == 0);
        CHECK(take_lines().empty());
        // Saved, read back and said in the notes.
        const std::string json = mb::result_json(p, r, {50});
        CHECK(json.find("\"request_fn_faults\":2,") != std::string::npos);
        std::vector<mb::report_run> runs;
        REQUIRE(!mb::read_report_runs(json, "", runs));
        CHECK(runs[0].r.request_fn_faults == 2);
        std::string notes;
        mb::append_report_notes(mb::report_context_of(p), r, notes);
        CHECK(notes.find("named a target outside the targets, 2 times") != std::string::npos);
    }
}

TEST_CASE("request callback: the target it leaves is the one checks and the breakdown count") {
    scripted_server server(answer_all);
    take_lines();
    writer_state w;
    w.host = host_of(server);
    w.target = 1;
    mb::plan p;
    p.url(server.url("/")).targets({server.url("/a"), server.url("/b"), server.url("/c")}).by_target(true);
    p.requests(90).concurrency(3).keep_alive(true).on_request(write_indexed, &w);
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_completed == 90);
    REQUIRE(r.by_target.rows.size() == 3);
    std::map<std::string, std::uint64_t> completed;
    for (const mb::target_row& row : r.by_target.rows) completed[row.target] = row.completed;
    CHECK(completed["/a"] == 0);
    CHECK(completed["/b"] == 90);
    CHECK(completed["/c"] == 0);

    // The factorial check of each target's n takes the callback's target: /w/<index> answers its
    // own path, which is no n!, so every request is wrong under the target it named.
    mb::checks each;
    each.factorial_of_each_target();
    mb::plan f;
    f.url(server.url("/factorial/{0..4}")).url_ranges(true).check(each).requests(20).concurrency(2).keep_alive(true);
    w.target = 4;
    f.on_request(write_indexed, &w);
    REQUIRE(!mb::run(f, r));
    CHECK(r.failed(mb::failure::check) == 20);
    REQUIRE(r.by_target.verdict.size() == 2);
    CHECK(r.by_target.verdict[0].outcome == mb::n_outcome::unsent);  // 0..3: nothing counted under them
    CHECK(r.by_target.verdict[1].outcome == mb::n_outcome::wrong);
    CHECK(r.by_target.verdict[1].from == 4);
    take_lines();
}

TEST_CASE("request callback: a resend sends the same bytes, and the method written decides a resend and a HEAD's body") {
    // Closes each connection after three answers: of a pipelined batch of two, the second meets the
    // close. A GET goes again (the same bytes, the callback not called again); a POST does not.
    scripted_server server([](scripted_server::context& c) {
        for (int k = 0; k < 3 && c.read_request(); ++k) answer_once(c);
    });
    for (const char* method : {"GET", "POST"}) {
        take_lines();
        writer_state w;
        w.host = host_of(server);
        w.method = method;
        mb::plan p;
        p.url(server.url("/")).requests(60).concurrency(2).keep_alive(true).pipeline(2).on_request(write_indexed, &w);
        mb::result r;
        REQUIRE(!mb::run(p, r));
        CHECK(w.calls.load() == 60);
        const std::map<std::string, int> got = take_lines();
        for (const auto& line : got) CHECK_MESSAGE(line.second == 1, line.first);  // none answered twice
        if (std::strcmp(method, "GET") == 0) {
            CHECK(r.retries > 0);
            CHECK(r.requests_completed == 60);
            CHECK(got.size() == 60);
        } else {
            CHECK(r.requests_failed > 0);  // a POST fully sent before the close is not sent again
            CHECK(r.requests_completed + r.requests_failed == 60);
            CHECK(got.size() == r.requests_completed);
        }
    }

    // A HEAD the callback writes (the plan's method is GET): its response has a length but no body.
    scripted_server heads(answer_all);
    take_lines();
    writer_state w;
    w.host = host_of(heads);
    w.method = "HEAD";
    mb::plan p;
    p.url(heads.url("/")).requests(40).concurrency(2).keep_alive(true).timeout_ms(5000).on_request(write_indexed, &w);
    mb::result r;
    REQUIRE(!mb::run(p, r));
    CHECK(r.requests_completed == 40);
    CHECK(r.body_bytes == 0);
    CHECK(take_lines().size() == 40);
}

TEST_CASE("request callback: its room is bounded") {
    writer_state w;
    mb::plan p;
    p.url("http://127.0.0.1:1/").requests(10).concurrency(1);
    CHECK(p.on_request(write_indexed, &w, 15).validate().code == mb::errc::plan_bad_request_capacity);
    CHECK(p.on_request(write_indexed, &w, (1u << 20) + 1).validate().code == mb::errc::plan_bad_request_capacity);
    CHECK(!p.on_request(write_indexed, &w, 1u << 20).validate());
    p.requests(2000).concurrency(1000).keep_alive(true).pipeline(2);  // 2,000 rooms of 1 MiB: 2 GiB
    CHECK(p.validate().code == mb::errc::plan_bad_request_capacity);
}
