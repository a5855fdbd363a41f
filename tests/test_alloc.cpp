// The engine allocates nothing per request: this binary replaces operator new and malloc with
// counting versions, runs the engine against the reference server in a child process (so the
// server's allocations are not counted), and asserts zero allocations between the 20 % and 90 %
// progress marks of long runs — closed loops, pipelined, new connections, checks, -g, failures, fixed
// rates and per-interval rows; and over keep-alive TLS connections, where the engine allocates
// nothing and OpenSSL 3.0's own allocations (told apart by their caller) are bounded. Built
// without sanitizers only (they own malloc).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "microbench.hpp"
#include "child_server.hpp"
#include "nginx_process.hpp"
#include "tls/tls_files.hpp"

namespace {
std::atomic<std::uint64_t> allocations{0};
std::atomic<std::uint64_t> allocated_bytes{0};
std::atomic<bool> classify{false};              // tell OpenSSL's allocations apart (slow: dladdr on each)
std::atomic<std::uint64_t> openssl_allocations{0};  // made by code in libcrypto or libssl
std::atomic<std::uint64_t> other_allocations{0};    // all the others, while classifying
thread_local std::uint64_t this_thread_allocations = 0;  // those of the thread that made them

void count(const void* caller, std::size_t bytes) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    ++this_thread_allocations;
    allocated_bytes.fetch_add(bytes, std::memory_order_relaxed);
    if (!classify.load(std::memory_order_relaxed)) return;
    Dl_info where;
    const bool openssl = dladdr(caller, &where) && where.dli_fname &&
                         (std::strstr(where.dli_fname, "libcrypto.so") || std::strstr(where.dli_fname, "libssl.so"));
    (openssl ? openssl_allocations : other_allocations).fetch_add(1, std::memory_order_relaxed);
}
}

extern "C" void* __libc_malloc(std::size_t);
extern "C" void* __libc_calloc(std::size_t, std::size_t);
extern "C" void* __libc_realloc(void*, std::size_t);
extern "C" void __libc_free(void*);
extern "C" void* malloc(std::size_t n) {
    count(__builtin_return_address(0), n);
    return __libc_malloc(n);
}
extern "C" void* calloc(std::size_t n, std::size_t size) {
    count(__builtin_return_address(0), n * size);
    return __libc_calloc(n, size);
}
extern "C" void* realloc(void* p, std::size_t n) {
    count(__builtin_return_address(0), n);
    return __libc_realloc(p, n);
}
// delete frees through __libc_free: GCC, seeing operator new inlined into malloc and delete into
// free, takes them for a mismatched pair (-Wmismatched-new-delete at -O3).
void* operator new(std::size_t n) {
    if (void* p = malloc(n ? n : 1)) return p;
    std::abort();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return malloc(n ? n : 1); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return malloc(n ? n : 1); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }

namespace {

struct marks {
    std::uint64_t requests = 0;  // the marks are at 20 % and 90 % of these; or, when 0,
    std::int64_t duration_ns = 0;  // of this
    std::uint64_t at_20 = 0, at_90 = 0;
    std::uint64_t openssl_at_20 = 0, openssl_at_90 = 0, other_at_20 = 0, other_at_90 = 0, ended_at_20 = 0, ended_at_90 = 0;
    bool seen_20 = false, seen_90 = false;
};

void on_progress(const microbench::progress& p, void* user) {
    auto* m = static_cast<marks*>(user);
    std::uint64_t now = allocations.load(std::memory_order_relaxed);
    const double done = m->requests ? static_cast<double>(p.ended) / static_cast<double>(m->requests)
                                    : static_cast<double>(p.elapsed_ns) / static_cast<double>(m->duration_ns);
    const std::uint64_t by_openssl = openssl_allocations.load(std::memory_order_relaxed), other = other_allocations.load(std::memory_order_relaxed);
    if (!m->seen_20 && done >= 0.2)
        m->at_20 = now, m->openssl_at_20 = by_openssl, m->other_at_20 = other, m->ended_at_20 = p.ended, m->seen_20 = true;
    if (!m->seen_90 && done >= 0.9)
        m->at_90 = now, m->openssl_at_90 = by_openssl, m->other_at_90 = other, m->ended_at_90 = p.ended, m->seen_90 = true;
}

}  // namespace

// Fails every 7th response it sees: a run with some failed requests.
bool fail_every_seventh(int, std::uint64_t, void*) {
    static std::atomic<std::uint64_t> seen{0};
    return seen.fetch_add(1, std::memory_order_relaxed) % 7 != 0;
}

// A request callback that writes the request the plan would send.
std::size_t copy_prepared(microbench::request_call& call, void*) {
    if (call.prepared.size() > call.capacity) return 0;
    std::memcpy(call.data, call.prepared.data(), call.prepared.size());
    return call.prepared.size();
}

TEST_CASE("no allocation per request in steady state") {
    child_server srv;
    struct mode {
        const char* name;
        bool keep_alive;
        std::uint32_t concurrency, pipeline, threads;
        std::uint64_t requests;
        bool checks, record, some_fail;
        double rate = 0;              // requests/s on a fixed schedule; 0: a closed loop
        std::int64_t interval_ms = 0;  // per-interval rows
        std::int64_t duration_ms = 0;  // with requests 0: a run for this long (its rows are reserved up front)
        bool written = false;          // each request written by a request callback (copy_prepared)
    };
    const mode modes[] = {
        {"keep-alive", true, 10, 1, 1, 100'000, false, false, false},
        {"pipelined", true, 4, 8, 1, 100'000, false, false, false},
        {"new connections", false, 10, 1, 1, 20'000, false, false, false},
        {"checks, -g, two threads", true, 10, 1, 2, 100'000, true, true, false},
        {"some requests fail", true, 10, 1, 2, 100'000, true, false, true},
        {"fixed rate, keep-alive", true, 8, 1, 2, 30'000, false, false, false, 20'000},
        {"fixed rate, new connections", false, 8, 1, 1, 10'000, false, false, false, 10'000},
        {"fixed rate with intervals", true, 8, 1, 2, 0, true, false, false, 10'000, 100, 2'000},
        {"closed loop with intervals", true, 10, 1, 2, 0, false, false, false, 0, 20, 2'000},
        {"request callback, pipelined", true, 4, 4, 2, 100'000, true, false, false, 0, 0, 0, true},
    };
    for (const mode& m : modes) {
        const std::string name = m.name;
        CAPTURE(name);
        marks mk;
        mk.requests = m.requests;
        mk.duration_ns = m.duration_ms * 1'000'000;
        microbench::plan p;
        p.url("http://127.0.0.1:" + std::to_string(srv.port) + "/factorial/10")
            .requests(m.requests)
            .duration_ms(m.duration_ms)
            .concurrency(m.concurrency)
            .threads(m.threads)
            .keep_alive(m.keep_alive)
            .pipeline(m.pipeline)
            .rate(m.rate)
            .interval_ms(m.interval_ms)
            .on_progress(on_progress, &mk, m.requests ? 0 : 10, m.requests ? 1 : 0);
        microbench::checks c;
        if (m.checks) c.factorial(10).body_contains("3628800").status({200});
        if (m.some_fail) c.callback(fail_every_seventh, nullptr);
        p.check(c);
        if (m.record) p.record_requests(m.requests);
        if (m.written) p.on_request(copy_prepared, nullptr);
        microbench::result r;
        REQUIRE_FALSE(microbench::run(p, r));
        if (m.requests) CHECK(r.requests_ended == m.requests);
        else CHECK(r.requests_ended > 1000);
        if (m.some_fail) CHECK(r.failed(microbench::failure::check) >= m.requests / 7);
        else CHECK(r.requests_completed == r.requests_ended);
        if (m.record) CHECK(r.requests.size() == m.requests);
        // The rows tile the run from its start, a row per interval — or one for several where a
        // worker's ring of slots filled while the collecting thread was late (a loaded machine), so
        // their number is not asserted.
        if (m.interval_ms) {
            REQUIRE_FALSE(r.intervals.empty());
            std::int64_t covered = 0;
            bool tiled = true;
            for (const microbench::interval_stats& row : r.intervals) {
                tiled = tiled && row.start_ns == covered && row.duration_ns > 0;
                covered += row.duration_ns;
            }
            CHECK(tiled);
            CHECK(covered >= m.duration_ms * 1'000'000);
        }
        REQUIRE(mk.seen_20);
        REQUIRE(mk.seen_90);
        CHECK(mk.at_20 > 0);  // the counter works: setting up the run allocated
        CHECK(mk.at_90 - mk.at_20 == 0);
    }
}

TEST_CASE("regression: one copy of the request per run, however deep the pipeline and however many threads") {
    child_server srv;
    const std::size_t body = 1'000'000;  // under the reference server's 1 MiB body limit
    microbench::plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port) + "/factorial/10").method("POST").body(std::string(body, 'b'))
        .requests(256).concurrency(4).threads(4).pipeline(16);
    std::uint64_t before = allocated_bytes.load();
    microbench::result r;
    REQUIRE_FALSE(microbench::run(p, r));
    std::uint64_t during = allocated_bytes.load() - before;
    CHECK(r.requests_completed == 256);
    // Measured: 13.2 MB — the request built once (a few MB with the string's growth and the
    // plan's copy of the body), five 264 KiB histograms and a 256 KiB read buffer per worker and
    // for the merged result. A copy of the 16-request batch per worker alone would be 64 MB.
    MESSAGE("bytes allocated by run(): " << during);
    CHECK(during < 20'000'000);
}

TEST_CASE("regression: the -g cap is the run's, not each worker's") {
    child_server srv;
    microbench::plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port) + "/factorial/10").requests(0).duration_ms(300)
        .concurrency(4).threads(4).record_requests(1000);
    microbench::result r;
    REQUIRE_FALSE(microbench::run(p, r));
    CHECK(r.requests_completed > 1000);
    CHECK(r.requests.size() <= 1000);
}

namespace {

// Every response's head arrives in two parts, the second with a body of `split_body_bytes`.
std::size_t split_body_bytes = 0;
void split_heads(scripted_server::context& c) {
    const std::string rest = "ngth: " + std::to_string(split_body_bytes) + "\r\n\r\n" + std::string(split_body_bytes, 'b');
    while (c.read_request()) {
        if (!c.send("HTTP/1.1 200 OK\r\nContent-Le")) return;
        usleep(2000);
        if (!c.send(rest)) return;
    }
}

std::uint64_t bytes_allocated_by_run(std::size_t body_bytes) {
    split_body_bytes = body_bytes;  // before the fork: the child sees it
    child_server srv(split_heads);
    microbench::plan p;
    p.url("http://127.0.0.1:" + std::to_string(srv.port) + "/").requests(100).concurrency(50);
    std::uint64_t before = allocated_bytes.load();
    microbench::result r;
    REQUIRE_FALSE(microbench::run(p, r));
    CHECK(r.requests_completed == 100);
    return allocated_bytes.load() - before;
}

}  // namespace

TEST_CASE("regression: a head split across reads keeps only what the head needs, not the whole next read") {
    std::uint64_t small = bytes_allocated_by_run(10);
    std::uint64_t big = bytes_allocated_by_run(1'000'000);
    MESSAGE("bytes allocated: " << small << " with 10-byte bodies, " << big << " with 1 MB bodies");
    // At most max_header_bytes + 1 per connection (50 of them) however large the read that
    // completed the head; keeping the whole read would be 64-256 KiB each.
    CHECK(big - small < 50 * 40'000);
}

// mb_server_requests reads this: it copied counts(), whose sources allocate, and so could throw
// out of the C API.
TEST_CASE("the reference server's request count is read without allocating") {
    microbench::server srv;
    REQUIRE_FALSE(srv.start({}));
    microbench::result r;
    REQUIRE_FALSE(microbench::run(microbench::plan().url("http://127.0.0.1:" + std::to_string(srv.port()) + "/").requests(5), r));
    REQUIRE(srv.counts().sources.size() == 1);  // counts() copies a vector
    const std::uint64_t before = this_thread_allocations;  // the server's threads may still be closing
    const std::uint64_t n = srv.requests();
    CHECK(this_thread_allocations == before);
    CHECK(n == 5);
}

TEST_CASE("no allocation per request over keep-alive TLS connections") {
    if (!microbench::detail::load_openssl("")) {
        REQUIRE_MESSAGE(std::getenv("MICROBENCH_EMULATED"), "libssl.so.3 did not load: apt-get install libssl3");
        return;  // no libssl of the target's architecture under the emulator
    }
    classify = true;
    tls_files f;
    nginx_process nginx("nginx_tls.conf.in", {{"CERT", f.path("server.pem")}, {"KEY", f.path("server.key")}, {"EXTRA", ""}});
    struct mode {
        const char* name;
        std::uint32_t concurrency, pipeline, threads;
        std::uint64_t requests;
        double rate;
    };
    for (const mode& m : {mode{"keep-alive", 10, 1, 2, 40'000, 0}, mode{"pipelined", 4, 8, 1, 40'000, 0},
                          mode{"fixed rate", 8, 1, 1, 10'000, 10'000}}) {
        const std::string name = m.name;
        CAPTURE(name);
        marks mk;
        mk.requests = m.requests;
        microbench::plan p;
        p.url(nginx.url("/factorial/10", "https")).requests(m.requests).concurrency(m.concurrency).threads(m.threads)
            .pipeline(m.pipeline).rate(m.rate).interval_ms(0).on_progress(on_progress, &mk, 0, 1);
        microbench::result r;
        REQUIRE_FALSE(microbench::run(p, r));
        CHECK(r.requests_completed == m.requests);
        CHECK(r.tls_handshakes == r.connects);
        if (m.rate == 0) CHECK(r.connects == m.concurrency);
        REQUIRE(mk.seen_20);
        REQUIRE(mk.seen_90);
        // OpenSSL 3.0 allocates (and frees) small parts of each record it writes or reads — 4 per
        // request measured on keep-alive connections — which no API turns off. The engine
        // allocates nothing per request: only a connection opened in the window (at a fixed rate
        // connections open as the schedule needs them) allocates its TLS state.
        const std::uint64_t by_openssl = mk.openssl_at_90 - mk.openssl_at_20, requests = mk.ended_at_90 - mk.ended_at_20;
        CHECK(mk.other_at_90 - mk.other_at_20 <= (m.rate > 0 ? r.connects : 0));
        CHECK(by_openssl <= 5 * requests);
        MESSAGE(name << ": OpenSSL allocated " << by_openssl << " times for " << requests << " requests");
    }
    classify = false;
}
