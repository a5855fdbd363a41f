// The engine over a transport (transport.hpp), with no TLS library involved: a toy transport whose
// handshake is a real exchange of bytes with a scripted server, whose reads and writes move a
// few bytes at a time, and whose "would block" answers all come from real EAGAINs — so every
// step of the worker's handshake, read and write paths waits for a real readiness event. Counts
// are exact; every connection the transport opens is closed.
#include <doctest/doctest.h>

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "microbench.hpp"
#include "run_helpers.hpp"
#include "scripted_server.hpp"

using namespace microbench;

namespace {

const std::string ok_reply = "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n3628800";

// The toy handshake: the client sends `hello` bytes of 'C', the server answers `reply` bytes of 'S'.
struct toy {
    std::size_t hello = 1, reply = 1;
    std::size_t handshake_chunk = 1;  // bytes per send/recv during the handshake
    std::size_t io_chunk = 1;         // bytes per send/recv afterwards
    bool fail_open = false;
    bool resume_odd = false;          // odd-numbered connections report a resumed session
    bool with_pending = false;        // offer pending(): whether the socket holds bytes a read would return
    std::atomic<int> opens{0}, closes{0}, moved_writes{0};
    std::atomic<long> want_reads{0}, want_writes{0};
    std::atomic<long> write_blocks{0};  // of the want_writes, those of write() (not of the handshake)
    std::string hello_bytes;

    transport table() {
        hello_bytes.assign(hello, 'C');
        transport t;
        t.user = this;
        t.open = open;
        t.handshake = handshake;
        t.read = read;
        t.write = write;
        t.close = close;
        t.why = why;
        if (with_pending) t.pending = pending;
        return t;
    }

    struct conn {
        toy* owner;
        int fd;
        int number;
        std::size_t sent = 0, got = 0;
        const char* blocked_at = nullptr;  // a write that would block: the next must bring the same bytes
        std::size_t blocked_len = 0;
        const char* fault = nullptr;
    };

    static long status_of(conn* c, ssize_t n, bool writing) {
        if (n == 0) return transport_closed;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            ++(writing ? c->owner->want_writes : c->owner->want_reads);
            return writing ? transport_want_write : transport_want_read;
        }
        return transport_socket_error;
    }
    static void* open(void* user, int fd, const char*) {
        auto* t = static_cast<toy*>(user);
        if (t->fail_open) return nullptr;
        return new conn{t, fd, t->opens++};
    }
    static long handshake(void* p) {
        auto* c = static_cast<conn*>(p);
        toy& t = *c->owner;
        while (c->sent < t.hello) {
            ssize_t n = ::send(c->fd, t.hello_bytes.data() + c->sent, std::min(t.handshake_chunk, t.hello - c->sent), MSG_NOSIGNAL);
            if (n <= 0) return status_of(c, n < 0 ? -1 : 0, true);
            c->sent += static_cast<std::size_t>(n);
        }
        while (c->got < t.reply) {
            char buf[65536];
            ssize_t n = ::recv(c->fd, buf, std::min({t.handshake_chunk, t.reply - c->got, sizeof buf}), 0);
            if (n <= 0) return status_of(c, n, false);
            for (ssize_t i = 0; i < n; ++i)
                if (buf[i] != 'S') {
                    c->fault = "bad server hello";
                    return transport_failed;
                }
            c->got += static_cast<std::size_t>(n);
        }
        return t.resume_odd && c->number % 2 ? transport_resumed : transport_done;
    }
    static long read(void* p, char* buf, std::size_t len) {
        auto* c = static_cast<conn*>(p);
        ssize_t n = ::recv(c->fd, buf, std::min(len, c->owner->io_chunk), 0);
        return n > 0 ? n : status_of(c, n, false);
    }
    static long write(void* p, const char* buf, std::size_t len) {
        auto* c = static_cast<conn*>(p);
        if (c->blocked_at && (buf != c->blocked_at || len != c->blocked_len)) ++c->owner->moved_writes;
        c->blocked_at = nullptr;
        ssize_t n = ::send(c->fd, buf, std::min(len, c->owner->io_chunk), MSG_NOSIGNAL);
        if (n > 0) return n;
        long s = status_of(c, n < 0 ? -1 : 0, true);
        if (s == transport_want_write) c->blocked_at = buf, c->blocked_len = len, ++c->owner->write_blocks;
        return s;
    }
    static void close(void* p) {
        auto* c = static_cast<conn*>(p);
        ++c->owner->closes;
        delete c;
    }
    static int pending(void* p) {
        char byte;
        return ::recv(static_cast<conn*>(p)->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
    }
    static std::size_t why(void* p, char* buf, std::size_t cap) {
        const char* f = static_cast<conn*>(p)->fault;
        return f ? static_cast<std::size_t>(std::snprintf(buf, cap, "%s", f)) : 0;
    }
};

// The server's half of the toy handshake: reads `hello` bytes, then answers `reply` bytes of
// `answer` in `pieces` sends a millisecond apart (each one a new readiness for the client).
bool server_handshake(scripted_server::context& c, std::size_t hello, std::size_t reply, int pieces = 1, char answer = 'S') {
    while (c.pending.size() < hello) {
        char buf[65536];
        ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR) && !c.stopping()) continue;
        if (n <= 0) return false;
        c.pending.append(buf, static_cast<std::size_t>(n));
    }
    c.pending.erase(0, hello);
    for (int i = 0; i < pieces; ++i) {
        std::size_t part = reply / static_cast<std::size_t>(pieces) + (i == pieces - 1 ? reply % static_cast<std::size_t>(pieces) : 0);
        if (!c.send(std::string(part, answer))) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

void serve_forever(scripted_server::context& c) {
    while (c.read_request()) c.send(ok_reply);
}

result run_counted(const plan& p, toy& t) {
    result r = run_ok(p);
    CHECK(t.opens.load() == t.closes.load());  // every connection's state freed
    CHECK(t.moved_writes.load() == 0);         // a write that would block is retried with the same bytes
    std::uint64_t by_reason = 0;
    for (std::uint64_t f : r.failures) by_reason += f;
    CHECK(by_reason == r.requests_failed);
    return r;
}

}  // namespace

TEST_CASE("transport: a handshake of many round trips, then byte-by-byte reads and writes: exact counts in every mode") {
    scripted_server s([](scripted_server::context& c) {
        if (server_handshake(c, 512, 512, 8)) serve_forever(c);
    });
    struct mode {
        bool keep_alive;
        std::uint32_t c, t, pipeline;
        std::uint64_t n;
    };
    int served = 0;
    for (mode m : {mode{true, 4, 1, 1, 200}, mode{false, 4, 2, 1, 40}, mode{true, 2, 1, 4, 80}, mode{true, 6, 2, 1, 120}}) {
        CAPTURE(m.keep_alive);
        CAPTURE(m.pipeline);
        CAPTURE(m.t);
        toy t;
        t.hello = t.reply = 512;
        t.handshake_chunk = 7;
        t.resume_odd = true;
        plan p;
        p.url(s.url("/")).requests(m.n).concurrency(m.c).threads(m.t).keep_alive(m.keep_alive).pipeline(m.pipeline).transport(t.table());
        result r = run_counted(p, t);
        served += static_cast<int>(m.n);
        CHECK(r.requests_completed == m.n);
        CHECK(r.requests_failed == 0);
        CHECK(r.body_bytes == 7 * m.n);
        CHECK(r.connects == (m.keep_alive ? m.c : m.n));
        CHECK(r.tls_handshakes == r.connects);
        CHECK(r.tls_resumed == r.tls_handshakes / 2);  // the toy resumes every odd-numbered connection
        CHECK(r.tls_handshake_ns.count() == r.tls_handshakes);
        CHECK(r.connect_ns.max() >= r.tls_handshake_ns.max());  // ab's Connect holds each new connection's handshake
        CHECK(t.want_reads.load() > 0);
        CHECK(s.requests.load() == served);
    }
}

TEST_CASE("transport: a write that would block waits for the socket and resumes with the same bytes") {
    scripted_server s([](scripted_server::context& c) {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));  // the client's hello fills its buffers meanwhile
        if (server_handshake(c, 4 << 20, 16)) serve_forever(c);
    });
    toy t;
    t.hello = 4 << 20;
    t.reply = 16;
    t.handshake_chunk = 1 << 20;
    t.io_chunk = 1 << 20;
    plan p;
    p.url(s.url("/")).method("POST").body(std::string(2 << 20, 'x')).requests(6).concurrency(2).socket_buffer_bytes(4096).transport(t.table());
    result r = run_counted(p, t);
    CHECK(r.requests_completed == 6);
    CHECK(t.want_writes.load() > t.write_blocks.load());  // the hello blocked
    CHECK(t.write_blocks.load() > 0);                    // and so did the requests: each retried with the same bytes
    CHECK(s.requests.load() == 6);
}

TEST_CASE("transport: each way a handshake can fail is a `tls` failure with its reason, counted exactly" *
          doctest::test_suite("timing")) {
    struct scenario {
        const char* name;
        scripted_server::script script;
        const char* reason;
    };
    const scenario scenarios[] = {
        {"closed after the hello", [](scripted_server::context& c) { server_handshake(c, 1, 0); },
         "the server closed the connection during the handshake"},
        {"reset after the hello",
         [](scripted_server::context& c) {
             if (server_handshake(c, 1, 0)) c.reset();
         },
         "the connection was reset during the handshake"},
        {"garbage for a reply", [](scripted_server::context& c) { server_handshake(c, 1, 1, 1, 'X'); }, "bad server hello"},
        {"no reply within the connect timeout",
         [](scripted_server::context& c) {
             if (server_handshake(c, 1, 0))
                 while (!c.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
         },
         "the handshake did not finish within the connect timeout"},
    };
    for (const scenario& sc : scenarios) {
        CAPTURE(sc.name);
        scripted_server s(sc.script);
        toy t;
        plan p;
        p.url(s.url("/")).requests(6).concurrency(3).connect_timeout_ms(300).transport(t.table());
        auto t0 = std::chrono::steady_clock::now();
        result r = run_counted(p, t);
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        CHECK(r.requests_failed == 6);
        CHECK(r.failed(failure::tls) == 6);
        CHECK(r.connects == 0);
        CHECK(r.tls_handshakes == 0);
        REQUIRE(r.tls_failure_reasons.size() == 1);
        CHECK(r.tls_failure_reasons[0] == sc.reason);
        CHECK(seconds < 3);  // two rounds of 300 ms at most for the stalled one
        CHECK(s.connections.load() == 6);
    }
}

TEST_CASE("transport: one that cannot set up a connection fails each request as `tls`") {
    scripted_server s(serve_forever);
    toy t;
    t.fail_open = true;
    plan p;
    p.url(s.url("/")).requests(5).concurrency(1).transport(t.table());
    result r = run_counted(p, t);
    CHECK(r.failed(failure::tls) == 5);
    REQUIRE(r.tls_failure_reasons.size() == 1);
    CHECK(r.tls_failure_reasons[0] == "the transport could not set up the connection");
}

TEST_CASE("transport: keep-alive closes are resent, early answers seen, as over plain TCP") {
    SUBCASE("the server closes a keep-alive connection after 3 responses") {
        scripted_server s([](scripted_server::context& c) {
            if (!server_handshake(c, 1, 1)) return;
            for (int i = 0; i < 3 && c.read_request(); ++i) c.send(ok_reply);
        });
        toy t;
        t.io_chunk = 5;
        plan p;
        p.url(s.url("/")).requests(60).concurrency(2).transport(t.table());
        result r = run_counted(p, t);
        CHECK(r.requests_completed == 60);
        CHECK(r.requests_failed == 0);
        CHECK(r.retries == r.server_closes);
        CHECK(s.requests.load() == 60);
    }
    SUBCASE("the server answers an upload early with 413 and stops reading") {
        scripted_server s([](scripted_server::context& c) {
            if (!server_handshake(c, 1, 1) || !c.read_request()) return;
            c.send("HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\nContent-Length: 9\r\n\r\ntoo large");
            while (!c.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        });
        toy t;
        t.io_chunk = 1 << 20;
        plan p;
        p.url(s.url("/")).method("POST").body(std::string(16 << 20, 'x')).requests(4).concurrency(2).timeout_ms(5000).transport(t.table());
        result r = run_counted(p, t);
        CHECK(r.status_counts[413] == 4);
        CHECK(r.failed(failure::timeout) == 0);
    }
}

TEST_CASE("transport: a fixed rate and a cancel work over it") {
    scripted_server s([](scripted_server::context& c) {
        if (server_handshake(c, 64, 64, 2)) serve_forever(c);
    });
    {
        toy t;
        t.hello = t.reply = 64;
        t.io_chunk = 16;
        plan p;
        p.url(s.url("/")).rate(200).duration_ms(500).requests(0).concurrency(4).transport(t.table());
        result r = run_counted(p, t);
        CHECK(r.requests_failed == 0);
        CHECK(r.requests_completed + r.unfinished + r.schedule_missed >= 95);  // 100 scheduled in 0.5 s
        CHECK(r.requests_completed <= 100);
        CHECK(r.tls_handshakes == r.connects);
    }
    {
        scripted_server stalls([](scripted_server::context& c) {
            if (server_handshake(c, 1, 0))
                while (!c.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        });
        toy t;
        cancel_token cancel;
        plan p;
        p.url(stalls.url("/")).requests(4).concurrency(4).cancel_with(&cancel).transport(t.table());
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            cancel.cancel();
        });
        result r = run_counted(p, t);
        stopper.join();
        CHECK(r.cancelled);
        CHECK(r.unfinished == 4);
    }
}

TEST_CASE("transport: a table without its required functions is refused") {
    transport t;
    t.open = [](void*, int, const char*) -> void* { return nullptr; };
    plan p;
    p.url("http://127.0.0.1:9/").transport(t);
    result r;
    CHECK(run(p, r).code == errc::plan_bad_transport);
}

TEST_CASE("transport: a large pipelined request is written from a window of its copies, byte for byte") {
    scripted_server s([](scripted_server::context& c) {
        if (server_handshake(c, 1, 1)) serve_forever(c);
    });
    toy t;
    t.io_chunk = 997;  // writes end anywhere inside a copy
    plan p;
    p.url(s.url("/")).header("X-Pad", std::string(6000, 'p')).requests(40).concurrency(2).pipeline(4).transport(t.table());
    result r = run_counted(p, t);  // 4 copies of 6 KB: 16 KB of copies hold two, so a batch takes two windows
    CHECK(r.requests_completed == 40);
    CHECK(r.requests_failed == 0);
    CHECK(s.requests.load() == 40);  // the server parsed exactly the requests sent, none torn
}

namespace {
// The paths a server saw over the toy transport, path by path.
std::mutex transport_paths_mutex;
std::map<std::string, int> transport_paths;

// The toy handshake, then each request's path counted in transport_paths and answered.
void count_paths_after_handshake(scripted_server::context& c) {
    if (!server_handshake(c, 1, 1)) return;
    while (c.read_request()) {
        const std::size_t from = c.head.find(' ') + 1;
        {
            std::lock_guard<std::mutex> lock(transport_paths_mutex);
            ++transport_paths[c.head.substr(from, c.head.find(' ', from) - from)];
        }
        c.send(ok_reply);
    }
}
}  // namespace

TEST_CASE("transport: with targets, each pipelined request is written from its own bytes, a few at a time") {
    scripted_server s(count_paths_after_handshake);
    toy t;
    t.io_chunk = 3;  // writes end anywhere inside a request, and inside a path
    std::vector<target> targets;
    for (const std::string& path :
         std::vector<std::string>{"/a", "/bbbbbbbbbbbbbbbbbbbb", "/c?n=1", "/dd", "/" + std::string(300, 'e')})
        targets.push_back(s.url(path.c_str()));
    plan p;
    p.url(targets[0].url).targets(targets).requests(100).concurrency(2).keep_alive(true).pipeline(4).transport(t.table());
    result r = run_counted(p, t);
    CHECK(r.requests_completed == 100);
    CHECK(r.requests_failed == 0);
    std::lock_guard<std::mutex> lock(transport_paths_mutex);
    REQUIRE(transport_paths.size() == 5);
    for (const auto& seen : transport_paths) CHECK_MESSAGE(seen.second == 20, seen.first);
}

TEST_CASE("transport: a request callback's pipelined requests are written from their own rooms, a few bytes at a time") {
    scripted_server s(count_paths_after_handshake);
    {
        std::lock_guard<std::mutex> lock(transport_paths_mutex);
        transport_paths.clear();
    }
    toy t;
    t.io_chunk = 3;
    // Writes GET /<index, then as many x as the index mod 50> with the prepared request's Host.
    request_fn write = [](request_call& call, void*) -> std::size_t {
        const std::string_view p = call.prepared;
        const std::string_view host = p.substr(p.find("\r\nHost: "));
        std::string r = "GET /" + std::to_string(call.index) + std::string(call.index % 50, 'x') + " HTTP/1.1";
        r.append(host.data(), host.size());
        if (r.size() > call.capacity) return 0;
        std::memcpy(call.data, r.data(), r.size());
        return r.size();
    };
    plan p;
    p.url(s.url("/")).requests(120).concurrency(2).keep_alive(true).pipeline(4).transport(t.table());
    p.on_request(write, nullptr);
    result r = run_counted(p, t);
    CHECK(r.requests_completed == 120);
    CHECK(r.requests_failed == 0);
    std::lock_guard<std::mutex> lock(transport_paths_mutex);
    CHECK(transport_paths.size() == 120);
    for (const auto& seen : transport_paths) CHECK_MESSAGE(seen.second == 1, seen.first);
}

TEST_CASE("transport: with pending(), bytes beyond a batch are seen and the connection is not trusted") {
    // The server answers every request twice in one write; the toy reads one response's worth at
    // a time, so the unasked one stays in the socket where only pending() sees it.
    scripted_server s([](scripted_server::context& c) {
        if (!server_handshake(c, 1, 1)) return;
        while (c.read_request()) c.send(ok_reply + "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nxtra");
    });
    toy t;
    t.io_chunk = ok_reply.size();
    t.with_pending = true;
    plan p;
    p.url(s.url("/")).requests(20).concurrency(1).transport(t.table());
    result r = run_counted(p, t);
    CHECK(r.requests_completed == 20);
    CHECK(r.requests_failed == 0);
    CHECK(r.body_bytes == 7 * 20);  // never the unasked "xtra" as a response
    CHECK(s.requests.load() == 20);
}

TEST_CASE("transport: a run over a transport without session() keeps its handshakes through its JSON") {
    scripted_server s([](scripted_server::context& c) {
        if (server_handshake(c, 1, 1)) serve_forever(c);
    });
    toy t;
    plan p;
    p.url(s.url("/")).requests(6).concurrency(3).keep_alive(false).transport(t.table());
    result r = run_counted(p, t);
    REQUIRE(r.tls_handshakes == 6);
    CHECK_FALSE(r.tls_used);  // nothing negotiated to say
    const std::string json = result_json(p, r, {50});
    std::vector<report_run> back;
    REQUIRE_FALSE(read_report_runs(json, "", back));
    CHECK(back[0].r.tls_handshakes == 6);
    CHECK(back[0].r.tls_handshake_ns.count() == 6);
    CHECK(result_json(back[0].config, back[0].r, {50}) == json);
}
