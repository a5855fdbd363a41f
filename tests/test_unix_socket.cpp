// Unix domain sockets: plan::unix_socket against the reference server and nginx on a socket (every
// mode, exact counts on both sides), the Host header still from the URL, a listen queue that is
// full (waits, then connect failures, each request counted once), and the reference server's
// socket file: a stale one taken over, a live one or a regular file refused, two servers racing
// for one path, the file removed at stop only while it is the server's own.
#include <doctest/doctest.h>

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

#include "microbench.hpp"
#include "nginx_process.hpp"
#include "run_helpers.hpp"

namespace {

// A fresh path in a directory of its own, removed with it.
struct socket_dir {
    std::string dir;
    socket_dir() {
        char tmpl[] = "/tmp/microbench-unix-XXXXXX";
        REQUIRE(mkdtemp(tmpl) != nullptr);
        dir = tmpl;
    }
    ~socket_dir() {
        const std::string cmd = "rm -rf '" + dir + "'";
        if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", dir.c_str());
    }
    std::string path(const char* name) const { return dir + "/" + name; }
};

// A Unix socket bound at `path` and listening with `backlog`, accepting nothing itself.
int listening_socket(const std::string& path, int backlog) {
    microbench::endpoint at;
    REQUIRE(microbench::unix_endpoint(path, at));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd >= 0);
    REQUIRE(bind(fd, reinterpret_cast<const sockaddr*>(&at.addr), at.len) == 0);
    REQUIRE(listen(fd, backlog) == 0);
    return fd;
}

// Accepts up to `count` connections on `fd` (each within 5 s), reads each request's head and
// answers it with a close; keeps the first head.
void answer_each(int fd, int count, std::string& first_head) {
    for (int i = 0; i < count; ++i) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 5000) != 1) return;
        int c = accept(fd, nullptr, nullptr);
        if (c < 0) return;
        std::string head;
        char buf[1024];
        while (head.find("\r\n\r\n") == std::string::npos) {
            ssize_t n = recv(c, buf, sizeof buf, 0);
            if (n <= 0) break;
            head.append(buf, static_cast<std::size_t>(n));
        }
        if (i == 0) first_head = head;
        const char reply[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
        if (send(c, reply, sizeof reply - 1, MSG_NOSIGNAL) < 0) std::fprintf(stderr, "send failed\n");
        close(c);
    }
}

bool is_socket_file(const std::string& path) {
    struct stat st{};
    return lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

}  // namespace

TEST_CASE("unix socket: the reference server over a socket, every mode, counted exactly on both sides") {
    socket_dir d;
    const std::string path = d.path("s.sock");
    microbench::server srv;
    microbench::server_options o;
    o.unix_path = path;
    o.threads = 2;
    REQUIRE_FALSE(srv.start(o));
    CHECK(srv.port() == 0);
    CHECK(is_socket_file(path));
    struct mode {
        bool keep_alive;
        std::uint32_t c, t, pipeline;
        std::uint64_t n;
        double rate;
    };
    std::uint64_t expected = 0;
    for (mode m : {mode{true, 10, 1, 1, 4000, 0}, mode{true, 100, 2, 1, 4000, 0}, mode{false, 10, 2, 1, 1000, 0},
                   mode{true, 4, 1, 8, 4000, 0}, mode{true, 10, 2, 1, 300, 3000}, mode{false, 10, 1, 1, 200, 2000}}) {
        CAPTURE(m.keep_alive);
        CAPTURE(m.c);
        CAPTURE(m.pipeline);
        CAPTURE(m.rate);
        microbench::plan p;
        p.url("http://localhost/factorial/12").unix_socket(path).requests(m.n).concurrency(m.c).threads(m.t);
        p.keep_alive(m.keep_alive).pipeline(m.pipeline).rate(m.rate);
        microbench::checks c;
        c.factorial(12);
        p.check(c);
        microbench::result r = run_ok(p);
        expected += m.n;
        CHECK(r.requests_completed == m.n);
        CHECK(r.requests_failed == 0);
        if (m.rate > 0 && m.keep_alive) CHECK(r.connects <= m.c);  // a fixed rate opens what it needs
        else CHECK(r.connects == (m.keep_alive ? m.c : m.n));
        CHECK(r.connected_to == "unix:" + path);
        CHECK(srv.requests() == expected);
    }
    srv.stop();
    CHECK_FALSE(is_socket_file(path));  // removed at stop
}

TEST_CASE("unix socket: nginx on a socket serves each request once, and the Host header is the URL's") {
    nginx_process nginx;
    const std::string path = nginx.dir + "/nginx.sock";
    std::uint64_t expected = 0;
    for (bool keep_alive : {true, false}) {
        microbench::plan p;
        p.url("http://localhost/factorial/10").unix_socket(path).requests(3000).concurrency(20).threads(2);
        p.keep_alive(keep_alive).length_check(true);
        microbench::result r = run_ok(p);
        expected += 3000;
        CHECK(r.requests_completed == 3000);
        CHECK(r.requests_failed == 0);
        CHECK(r.body_bytes == 7 * 3000);
        CHECK(r.status_counts[200] == 3000);
        CHECK(nginx.served(expected) == expected);
    }
    // The request a socket carries names the URL's host, not the socket.
    socket_dir d;
    const std::string own = d.path("one.sock");
    int fd = listening_socket(own, 8);
    std::string head;
    std::thread answer([&] { answer_each(fd, 1, head); });
    microbench::plan p;
    p.url("http://api.example:8080/v1/items?x=1").unix_socket(own).requests(1).concurrency(1).keep_alive(false);
    microbench::result r = run_ok(p);
    answer.join();
    close(fd);
    CHECK(r.requests_completed == 1);
    CHECK(head.rfind("GET /v1/items?x=1 HTTP/1.1\r\n", 0) == 0);
    CHECK(head.find("\r\nHost: api.example:8080\r\n") != std::string::npos);
}

TEST_CASE("unix socket: a full listen queue waits as the server's overload, then fails as connect, each once") {
    socket_dir d;
    const std::string path = d.path("full.sock");
    int fd = listening_socket(path, 1);  // never accepts: one or two connects fit in its queue
    microbench::plan p;
    p.url("http://localhost/").unix_socket(path).requests(8).concurrency(8).keep_alive(false);
    p.timeout_ms(300).connect_timeout_ms(300);
    microbench::result r = run_ok(p);
    close(fd);
    CHECK(r.requests_ended == 8);
    CHECK(r.requests_failed == 8);
    CHECK(r.failed(microbench::failure::connect) + r.failed(microbench::failure::timeout) == 8);
    CHECK(r.failed(microbench::failure::connect) >= 5);  // those the queue never took
    CHECK(r.backlog_waits >= r.failed(microbench::failure::connect));  // each waited, counted once
    CHECK(r.backlog_waits <= 8);
    CHECK(r.port_waits + r.descriptor_waits + r.memory_waits == 0);  // not a shortage of this machine's
    std::string notes;
    microbench::append_report_notes(microbench::report_context(), r, notes);
    CHECK(notes.find("found the server's listen queue full and waited") != std::string::npos);
}

TEST_CASE("unix socket: connects that found the queue full go through once the server accepts") {
    socket_dir d;
    const std::string path = d.path("slow.sock");
    int fd = listening_socket(path, 1);
    int held[2];  // fill the queue (backlog 1 holds two): the run's first connects find it full
    for (int& h : held) {
        microbench::endpoint at;
        REQUIRE(microbench::unix_endpoint(path, at));
        h = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        REQUIRE(connect(h, reinterpret_cast<const sockaddr*>(&at.addr), at.len) == 0);
    }
    std::string head;
    std::thread late([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        for (int h : held) close(h);  // closed before the server takes them: answer_each meets them first
        answer_each(fd, 10, head);
    });
    microbench::plan p;
    p.url("http://localhost/").unix_socket(path).requests(8).concurrency(8).keep_alive(false);
    p.timeout_ms(5000).connect_timeout_ms(5000);
    microbench::result r = run_ok(p);
    late.join();
    close(fd);
    CHECK(r.requests_completed == 8);
    CHECK(r.requests_failed == 0);
    CHECK(r.backlog_waits > 0);
}

TEST_CASE("unix socket: a plan's path is checked, and a socket nobody serves fails every request as connect") {
    microbench::plan p;
    p.url("http://localhost/").requests(10).concurrency(2);
    CHECK(p.unix_socket(std::string(108, 'a')).validate().code == microbench::errc::plan_bad_unix_socket);
    CHECK(p.unix_socket(std::string("a\0b", 3)).validate().code == microbench::errc::plan_bad_unix_socket);
    CHECK_FALSE(p.unix_socket(std::string(107, 'a')).validate());
    CHECK(p.unix_socket("/tmp/x.sock").bind_address("127.0.0.1").validate().position == 1);
    p.bind_address("");
    CHECK(p.connect_to({"::127.0.0.1:"}).validate().position == 2);
    p.connect_to({});
    socket_dir d;
    microbench::result r = run_ok(p.unix_socket(d.path("nobody.sock")));
    CHECK(r.requests_ended == 10);
    CHECK(r.failed(microbench::failure::connect) == 10);
    CHECK(r.backlog_waits == 0);
}

TEST_CASE("unix socket: the server takes a stale file over, refuses a live one or a regular file, and removes "
          "only its own at stop") {
    socket_dir d;
    const std::string path = d.path("s.sock");
    microbench::server_options o;
    o.unix_path = path;
    {  // a socket file nobody listens on any more: a server that died
        int fd = listening_socket(path, 4);
        close(fd);
        REQUIRE(is_socket_file(path));
    }
    microbench::server a;
    REQUIRE_FALSE(a.start(o));
    microbench::plan p;
    p.url("http://localhost/factorial/5").unix_socket(path).requests(50).concurrency(5);
    CHECK(run_ok(p).requests_completed == 50);

    microbench::server b;  // a live server holds the path: refused, and the first one still serves
    microbench::error e = b.start(o);
    CHECK(e.code == microbench::errc::run_system);
    CHECK(e.position == EADDRINUSE);
    CHECK(run_ok(p).requests_completed == 50);

    // Another server took the path over (its file replaced a's): a's stop leaves it alone.
    REQUIRE(unlink(path.c_str()) == 0);
    REQUIRE_FALSE(b.start(o));
    a.stop();
    CHECK(is_socket_file(path));
    CHECK(run_ok(p).requests_completed == 50);
    b.stop();
    CHECK_FALSE(is_socket_file(path));

    // A regular file at the path is never removed.
    FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fclose(f);
    e = a.start(o);
    CHECK(e.code == microbench::errc::run_system);
    CHECK(e.position == EADDRINUSE);
    struct stat st{};
    CHECK((lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)));
}

TEST_CASE("unix socket: two servers starting at once on one stale path: exactly one gets it") {
    socket_dir d;
    const std::string path = d.path("race.sock");
    microbench::server_options o;
    o.unix_path = path;
    for (int round = 0; round < 30; ++round) {
        CAPTURE(round);
        int fd = listening_socket(path, 4);  // stale after close
        close(fd);
        microbench::server a, b;
        std::atomic<int> go{0};
        bool a_ok = false, b_ok = false;
        std::thread ta([&] {
            while (go.load() == 0) {}
            a_ok = !a.start(o);
        });
        std::thread tb([&] {
            while (go.load() == 0) {}
            b_ok = !b.start(o);
        });
        go.store(1);
        ta.join();
        tb.join();
        CHECK(a_ok != b_ok);
        microbench::plan p;
        p.url("http://localhost/").unix_socket(path).requests(4).concurrency(1);
        CHECK(run_ok(p).requests_completed == 4);  // the one that got it serves
        a.stop();
        b.stop();
        CHECK_FALSE(is_socket_file(path));
    }
}
