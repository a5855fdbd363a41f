// microbench/runner.hpp — runs a plan: checks it, builds the request once, resolves the target
// once, makes sure the open-file limit allows the connections, splits connections and requests
// across worker threads, polls progress, and merges the workers' results after join.
// Setup problems are an error; everything that happens to requests is counted in the result.
#pragma once

#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "plan.hpp"
#include "request.hpp"
#include "result.hpp"
#include "url.hpp"
#include "worker.hpp"

namespace microbench {
namespace detail {

struct alignas(64) worker_thread {  // one cache line each: workers never share one
    std::unique_ptr<worker> w;
    pthread_t thread{};
    bool started = false;
    std::atomic<std::uint64_t> ended{0};
    std::atomic<bool> finished{false};
};

inline void* run_worker(void* arg) {
    auto* t = static_cast<worker_thread*>(arg);
    t->w->run();
    t->finished.store(true, std::memory_order_release);
    return nullptr;
}

// Makes the soft open-file limit at least `needed`, raising it toward the hard limit.
inline bool ensure_fd_limit(rlim_t needed) {
    rlimit lim{};
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return false;
    if (lim.rlim_cur >= needed) return true;
    if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < needed) return false;
    lim.rlim_cur = needed;
    return setrlimit(RLIMIT_NOFILE, &lim) == 0;
}

inline bool numeric_address(const std::string& text, int family, endpoint& out) {
    addrinfo hints{};
    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
    addrinfo* list = nullptr;
    if (getaddrinfo(text.c_str(), "0", &hints, &list) != 0) return false;
    std::memcpy(&out.addr, list->ai_addr, list->ai_addrlen);
    out.len = static_cast<socklen_t>(list->ai_addrlen);
    freeaddrinfo(list);
    return true;
}

inline void sleep_ms(std::int64_t ms) {
    timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>((ms % 1000) * 1'000'000)};
    nanosleep(&ts, nullptr);
}

}  // namespace detail

// Runs `p` and fills `out`. Returns an error only when the run cannot start; once it starts,
// every request is accounted for in `out` (ended = completed + failed; unfinished when stopped).
inline error run(const plan& p, result& out) {
    using namespace detail;
    if (error e = p.validate()) return e;
    url target;
    if (error e = parse_url(p.url(), target)) return e;
    std::string request;
    if (error e = build_request(target, p.request(), request)) return e;
    endpoint to;
    if (resolve(target.host, target.port, to) != 0) return {errc::run_resolve_failed, 0};
    endpoint from;
    if (!p.bind_address().empty() && !numeric_address(p.bind_address(), to.family(), from))
        return {errc::plan_bad_bind_address, 0};
    // Each worker holds an epoll descriptor; leave room for the caller's own files too.
    if (!ensure_fd_limit(static_cast<rlim_t>(p.concurrency()) + p.threads() + 64)) return {errc::run_fd_limit, 0};

    const std::uint32_t t = p.threads();
    std::atomic<std::int64_t> reference_length{-1};
    cancel_token abort;
    checks response_checks = p.check();
    if (!p.expect_status().empty()) response_checks.status(p.expect_status());
    std::unique_ptr<worker_thread[]> threads(new worker_thread[t]);
    const std::int64_t start = now_ns();
    timespec wall{};
    clock_gettime(CLOCK_REALTIME, &wall);  // only to label per-request records (ab -g)
    for (std::uint32_t i = 0; i < t; ++i) {
        worker_setup s;
        s.target = to;
        s.bind = from;
        s.request_bytes = request.size();
        for (std::uint32_t k = 0; k < p.pipeline(); ++k) s.batch += request;
        s.connections = p.concurrency() / t + (i < p.concurrency() % t ? 1 : 0);
        s.quota = p.requests() ? p.requests() / t + (i < p.requests() % t ? 1 : 0) : 0;
        s.pipeline = p.pipeline();
        s.keep_alive = p.keep_alive();
        s.head = p.method() == "HEAD";
        s.length_check = p.length_check();
        s.record_requests = p.record_requests();
        s.socket_buffer_bytes = static_cast<int>(p.socket_buffer_bytes());
        s.response_checks = response_checks.empty() ? nullptr : &response_checks;
        s.start_ns = start;
        s.stop_issuing_ns = p.duration_ms() > 0 ? start + p.duration_ms() * 1'000'000 : INT64_MAX;
        s.drain_ns = p.drain_ms() * 1'000'000;
        s.timeout_ns = p.timeout_ms() * 1'000'000;
        s.connect_timeout_ns = p.connect_timeout_ms() * 1'000'000;
        s.limits = p.limits();
        s.cancel = p.cancel_with();
        s.abort = &abort;
        s.reference_length = &reference_length;
        s.ended_counter = &threads[i].ended;
        threads[i].w.reset(new worker(std::move(s)));
        if (error e = threads[i].w->prepare()) return e;
    }
    bool start_failed = false;
    for (std::uint32_t i = 0; i < t && !start_failed; ++i) {
        threads[i].started = pthread_create(&threads[i].thread, nullptr, run_worker, &threads[i]) == 0;
        start_failed = !threads[i].started;
    }
    if (start_failed) {  // stop the ones that started; nothing is reported
        abort.cancel();
        for (std::uint32_t i = 0; i < t; ++i)
            if (threads[i].started) pthread_join(threads[i].thread, nullptr);
        return {errc::run_system, 0};
    }

    if (p.progress_callback()) {
        std::int64_t every_ms = p.progress_every_ms();
        std::uint64_t every_n = p.progress_every_requests();
        std::int64_t poll_ms = every_ms > 0 ? std::min<std::int64_t>(every_ms, 10) : 10;
        std::int64_t next_call = every_ms > 0 ? start + every_ms * 1'000'000 : INT64_MAX;
        std::uint64_t next_count = every_n ? every_n : UINT64_MAX;
        for (;;) {
            bool all_done = true;
            std::uint64_t ended = 0;
            for (std::uint32_t i = 0; i < t; ++i) {
                all_done = all_done && threads[i].finished.load(std::memory_order_acquire);
                ended += threads[i].ended.load(std::memory_order_relaxed);
            }
            if (all_done) break;
            std::int64_t now = now_ns();
            if (now >= next_call || ended >= next_count) {
                p.progress_callback()(progress{ended, p.requests(), now - start}, p.progress_user());
                while (next_call <= now) next_call += every_ms * 1'000'000;
                while (next_count <= ended) next_count += every_n;
            }
            sleep_ms(poll_ms);
        }
    }
    out = result();
    for (std::uint32_t i = 0; i < t; ++i) {
        pthread_join(threads[i].thread, nullptr);
        out.merge(threads[i].w->stats());
    }
    out.concurrency_requested = p.concurrency();
    out.start_ns = start;
    out.start_realtime_ns = static_cast<std::int64_t>(wall.tv_sec) * 1'000'000'000 + wall.tv_nsec;
    std::sort(out.requests.begin(), out.requests.end(),
              [](const request_timing& a, const request_timing& b) { return a.start_ns < b.start_ns; });
    std::int64_t first = reference_length.load(std::memory_order_relaxed);
    out.first_body_length = first > 0 ? static_cast<std::uint64_t>(first) : 0;
    return {};
}

}  // namespace microbench
