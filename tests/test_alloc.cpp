// The engine allocates nothing per request: this binary replaces operator new and malloc with
// counting versions, runs the engine against the reference server in a child process (so the
// server's allocations are not counted), and asserts zero allocations between the 20 % and 90 %
// progress marks of long runs. Built without sanitizers only (they own malloc).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "microbench.hpp"

namespace {
std::atomic<std::uint64_t> allocations{0};
}

extern "C" void* __libc_malloc(std::size_t);
extern "C" void* __libc_calloc(std::size_t, std::size_t);
extern "C" void* __libc_realloc(void*, std::size_t);
extern "C" void* malloc(std::size_t n) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_malloc(n);
}
extern "C" void* calloc(std::size_t n, std::size_t size) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_calloc(n, size);
}
extern "C" void* realloc(void* p, std::size_t n) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_realloc(p, n);
}
void* operator new(std::size_t n) {
    if (void* p = malloc(n ? n : 1)) return p;
    std::abort();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return malloc(n ? n : 1); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return malloc(n ? n : 1); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

// The reference server in a child process; it stops when this object goes away.
struct child_server {
    pid_t pid = -1;
    std::uint16_t port = 0;
    child_server() {
        int to_parent[2], to_child[2];
        REQUIRE(pipe(to_parent) == 0);
        REQUIRE(pipe(to_child) == 0);
        pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            close(to_parent[0]);
            close(to_child[1]);
            microbench::server srv;
            microbench::server_options o;
            if (srv.start(o)) _exit(1);
            std::uint16_t p = srv.port();
            if (write(to_parent[1], &p, sizeof p) != sizeof p) _exit(1);
            char c;
            while (read(to_child[0], &c, 1) > 0) {
            }
            srv.stop();
            _exit(0);
        }
        close(to_parent[1]);
        close(to_child[0]);
        stop_fd = to_child[1];
        REQUIRE(read(to_parent[0], &port, sizeof port) == sizeof port);
        close(to_parent[0]);
    }
    ~child_server() {
        close(stop_fd);  // EOF tells the child to stop
        int status = 0;
        waitpid(pid, &status, 0);
    }
    int stop_fd = -1;
};

struct marks {
    std::uint64_t requests = 0;
    std::uint64_t at_20 = 0, at_90 = 0;
    bool seen_20 = false, seen_90 = false;
};

void on_progress(const microbench::progress& p, void* user) {
    auto* m = static_cast<marks*>(user);
    std::uint64_t now = allocations.load(std::memory_order_relaxed);
    if (!m->seen_20 && p.ended >= m->requests / 5) m->at_20 = now, m->seen_20 = true;
    if (!m->seen_90 && p.ended >= m->requests * 9 / 10) m->at_90 = now, m->seen_90 = true;
}

}  // namespace

TEST_CASE("no allocation per request in steady state") {
    child_server srv;
    struct mode {
        bool keep_alive;
        std::uint32_t concurrency, pipeline;
        std::uint64_t requests;
    };
    for (mode m : {mode{true, 10, 1, 100'000}, mode{true, 4, 8, 100'000}, mode{false, 10, 1, 20'000}}) {
        CAPTURE(m.keep_alive);
        CAPTURE(m.pipeline);
        marks mk;
        mk.requests = m.requests;
        microbench::plan p;
        p.url("http://127.0.0.1:" + std::to_string(srv.port) + "/factorial/10")
            .requests(m.requests)
            .concurrency(m.concurrency)
            .keep_alive(m.keep_alive)
            .pipeline(m.pipeline)
            .on_progress(on_progress, &mk, 0, 1);
        microbench::result r;
        REQUIRE_FALSE(microbench::run(p, r));
        CHECK(r.requests_completed == m.requests);
        REQUIRE(mk.seen_20);
        REQUIRE(mk.seen_90);
        CHECK(mk.at_20 > 0);  // the counter works: setting up the run allocated
        CHECK(mk.at_90 - mk.at_20 == 0);
    }
}
