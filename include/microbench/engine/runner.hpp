// microbench/engine/runner.hpp — runs a plan: checks it, builds the request once, resolves the target
// once, sets up its transport (the plan's, or for https:// the built-in OpenSSL), makes sure the
// open-file limit allows the connections (raising it only when the plan
// says so, and restoring it), splits connections and requests across worker threads, starts
// their clock when all are ready, polls progress and collects per-interval rows while they run,
// and merges the workers' results after join.
// Setup problems are an error; everything that happens to requests is counted in the result.
#pragma once

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "../core/clock.hpp"
#include "intervals.hpp"
#include "plan.hpp"
#include "../http/request.hpp"
#include "../stats/result.hpp"
#include "start_gate.hpp"
#include "../http/url.hpp"
#include "shard.hpp"
#include "fd_budget.hpp"
#include "stages.hpp"
#include "targets.hpp"
#ifndef MICROBENCH_NO_TLS
#include "tls_openssl.hpp"
#endif
#include "worker.hpp"

namespace microbench {
namespace detail {

struct alignas(64) worker_thread {  // one cache line each: workers never share one
    std::unique_ptr<worker> w;
    std::unique_ptr<interval_ring> intervals;  // when the plan asks for per-interval statistics
    pthread_t thread{};
    bool started = false;
    bool fixed_rate = false;
    std::atomic<std::uint64_t> ended{0};
    std::atomic<std::uint64_t> failed{0};
    std::atomic<bool> finished{false};
};

inline void* run_worker(void* arg) {
    auto* t = static_cast<worker_thread*>(arg);
    // This thread is the library's own: at a fixed rate its timers may fire 1 µs late instead of
    // the default 50 µs, so the schedule holds.
    if (t->fixed_rate) prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    // A transport may write() to a socket the server has closed: EPIPE, not a SIGPIPE that would
    // end the host process. Blocked on this thread only; the host's own handling is untouched.
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    t->w->run();
    t->finished.store(true, std::memory_order_release);
    return nullptr;
}

// Sleeps until the wall clock reads `unix_ms` (at once if it already has), in slices of at most
// 50 ms so a cancel is seen; false if cancelled first. A signal that interrupts a slice only
// starts the next one: the wall clock decides when the wait is over.
inline bool wait_until_unix_ms(std::int64_t unix_ms, const cancel_token* cancel) {
    const timespec at{static_cast<time_t>(unix_ms / 1000), static_cast<long>((unix_ms % 1000) * 1'000'000)};
    for (;;) {
        if (cancel && cancel->cancelled()) return false;
        const std::int64_t left_ns = unix_ms * 1'000'000 - realtime_ns();
        if (left_ns <= 0) return true;
        if (left_ns <= 50'000'000) clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, nullptr);
        else sleep_ns(50'000'000);
    }
}

// Polls the workers from the calling thread until every one has finished: calls the plan's
// progress callback, and turns the intervals the workers have handed over into rows.
inline void watch_workers(const plan& p, worker_thread* threads, std::uint32_t t, std::int64_t start,
                          interval_collector* rows) {
    // A period beyond the longest duration is never (and would overflow in nanoseconds).
    std::int64_t every_ms =
        p.progress_callback() && p.progress_every_ms() <= defaults::max_duration_ms ? p.progress_every_ms() : 0;
    std::uint64_t every_n = p.progress_every_requests();
    std::int64_t poll_ms = every_ms > 0 ? std::min(every_ms, defaults::progress_poll_ms) : defaults::progress_poll_ms;
    std::int64_t next_call = every_ms > 0 ? start + every_ms * 1'000'000 : INT64_MAX;
    std::uint64_t next_count = every_n && p.progress_callback() ? every_n : UINT64_MAX;
    for (;;) {
        bool all_done = true;
        std::uint64_t ended = 0, failed = 0;
        for (std::uint32_t i = 0; i < t; ++i) {
            all_done = all_done && threads[i].finished.load(std::memory_order_acquire);
            failed += threads[i].failed.load(std::memory_order_acquire);  // first: never above ended
            ended += threads[i].ended.load(std::memory_order_relaxed);
        }
        if (all_done) return;
        if (rows) rows->collect(false);
        std::int64_t now = now_ns();
        if (now >= next_call || ended >= next_count) {
            p.progress_callback()(progress{ended, p.requests(), now - start, failed}, p.progress_user());
            while (next_call <= now) next_call += every_ms * 1'000'000;
            while (next_count <= ended) next_count += every_n;
        }
        sleep_ns(poll_ms * 1'000'000);
    }
}

// What the workers of one run share: set up before they start, read-only while they run (the
// gate and the reference lengths aside, which are made for sharing).
struct run_shared {
    endpoint to;
    std::vector<endpoint> sources;  // -B: connections take them in turn
    std::string request;            // the run's one copy: every worker sends from it
    request_table table;            // with targets: each one's request; empty without
    std::unique_ptr<std::atomic<std::int64_t>[]> target_lengths;  // with targets: each one's reference length
    target_records records;         // plan::by_target (or each target's factorial): what each one got
    target_factorials factorials;   // under the factorial check of each target's n, with targets
    std::vector<std::uint32_t> shuffled;  // each target once at random: their order
    checks response_checks;
    start_gate gate;
    std::atomic<std::int64_t> reference_length{-1};
    std::atomic<std::int64_t> failed_length{-1};  // the first whole response that failed a check
    std::int64_t interval_ns = 0;
    run_stages stages;              // under plan::stages: the curve and the tallies
    std::string server_name;        // the URL's host, for the transport
    const transport* carrier = nullptr;  // the plan's transport; null: the built-in TLS or none
#ifndef MICROBENCH_NO_TLS
    std::unique_ptr<openssl_run> tls;  // for https:// without a transport of the plan's own
#endif
};

// Worker `i` of `t`'s share of the plan: its connections (from `first_connection` on), its quota
// of requests and records, its part of the rate, and what it shares with the others.
inline worker_setup setup_of(const plan& p, run_shared& shared, worker_thread& thread, std::uint32_t i, std::uint32_t t,
                             std::uint32_t first_connection) {
    auto share = [i, t](std::uint64_t total) { return shard_share(total, i, t); };
    worker_setup s;
    s.target = shared.to;
    s.sources = shared.sources.data();
    s.source_count = static_cast<std::uint32_t>(shared.sources.size());
    s.first_connection = first_connection;
    s.request = shared.request;
    s.worker_index = i;
    s.workers = t;
    s.writer_user = p.request_user();
    s.writer_capacity = p.request_capacity();
    s.resend_any = p.resend_non_idempotent();
    s.writer = p.request_callback();
    if (shared.records.size()) s.records = &shared.records;
    if (shared.table.size()) {
        s.table = &shared.table;
        s.target_lengths = shared.target_lengths.get();
        if (!shared.factorials.of_target.empty()) s.factorials = &shared.factorials;
        s.shuffled = shared.shuffled.empty() ? nullptr : shared.shuffled.data();
        s.random_order = p.order() == target_order::random;
        s.order_seed = detail::mix64(p.seed() ^ detail::mix64((std::uint64_t{p.shard_index()} << 32) + i + 1));
    }
    s.connections = static_cast<std::uint32_t>(share(p.concurrency()));
    // Each once: one request a target, dealt as in turn deals them (worker w's: w, w + T, ...).
    s.quota = p.each_once() ? share(shared.table.size() ? shared.table.size() : 1)
                            : p.requests() ? share(p.requests()) : 0;
    s.pipeline = p.pipeline();
    s.keep_alive = p.keep_alive();
    s.head = p.method() == "HEAD";
    s.resend_sent = p.resend_non_idempotent() || idempotent(p.method());
    s.length_check = p.length_check() && !s.writer;  // a callback's requests may differ
    s.record_requests = share(p.record_requests());  // the cap is the run's
    s.socket_buffer_bytes = static_cast<int>(p.socket_buffer_bytes());
    s.response_checks = shared.response_checks.empty() ? nullptr : &shared.response_checks;
    s.duration_ns = p.duration_ms() * 1'000'000;
    const worker_rate rate = rate_of_worker(p, i, t);
    s.rate_interval_ns = rate.interval_ns;
    s.rate_offset_ns = rate.offset_ns;
    s.rate_seed = rate.seed;
    s.rate_arrivals = p.arrivals();
    if (shared.stages.curve.on()) {
        s.curve = &shared.stages.curve;
        s.stage_tallies = &shared.stages.tallies[i];
    }
    s.batch_lag_ns = p.effective_batch_lag_us() * 1000;
    s.stamp_arrivals = p.open_model() && p.keep_alive();
    if (shared.interval_ns) {
        s.intervals = thread.intervals.get();
        s.interval_ns = shared.interval_ns;
    }
    s.drain_ns = p.drain_ms() * 1'000'000;
    s.timeout_ns = p.timeout_ms() * 1'000'000;
    s.connect_timeout_ns = p.connect_timeout_ms() * 1'000'000;
    s.limits = p.limits();
    s.gate = &shared.gate;
    s.cancel = p.cancel_with();
    s.reference_length = &shared.reference_length;
    s.failed_length = &shared.failed_length;
    s.ended_counter = &thread.ended;
    s.failed_counter = &thread.failed;
    s.tls = shared.carrier;
#ifndef MICROBENCH_NO_TLS
    if (shared.tls) s.tls = shared.tls->for_worker(i);
#endif
    s.server_name = shared.server_name.c_str();
    // A transport reads the socket itself, without stamps; Linux stamps nothing on a Unix stream socket.
    s.stamp_arrivals = s.stamp_arrivals && !s.tls && shared.to.family() != AF_UNIX;
    return s;
}

// After every worker has joined: their results merged into `out`, with the rows and what the plan
// asked for.
inline void collect_result(const plan& p, run_shared& shared, worker_thread* threads, std::uint32_t t,
                           std::int64_t start, std::int64_t wall, interval_collector* rows,
                           std::vector<interval_stats>& interval_rows, std::vector<interval_histogram_set>& kept,
                           result& out) {
    out = result();
    for (std::uint32_t i = 0; i < t; ++i) out.merge(threads[i].w->stats());
    if (rows) {
        // The rows run to the last worker's end: requests may be sent after the last one ended.
        std::int64_t stopped = 0;
        for (std::uint32_t i = 0; i < t; ++i) stopped = std::max(stopped, threads[i].w->stopped_ns());
        rows->collect(true, stopped);
        out.intervals.swap(interval_rows);
        out.interval_histograms.swap(kept);
        out.interval_ns = shared.interval_ns;
    }
    out.concurrency_requested = p.concurrency();
    out.rate_target = p.rate();
    if (shared.stages.curve.on()) {
        shared.stages.summarize(out.stages);
        // The run lasts the stages (unless its count ended it): its workers stop at the last
        // intended time, which a ramp down to 0 or a last hold at 0 brings well before their end.
        const bool counted_out = p.requests() && out.requests_ended + out.unfinished >= p.requests();
        if (!out.cancelled && !counted_out) out.elapsed_ns = std::max(out.elapsed_ns, shared.stages.curve.end_ns());
        out.rate_target = shared.stages.curve.total() * 1e9 / static_cast<double>(shared.stages.curve.end_ns());
    }
    out.rate_arrivals = p.arrivals();
    out.rate_seed = p.seed();
    out.rate_batch_lag_ns = p.open_model() ? p.effective_batch_lag_us() * 1000 : 0;
    out.start_ns = start;
    out.start_realtime_ns = wall;
    out.start_requested_realtime_ns = p.start_at_unix_ms() * 1'000'000;
    std::sort(out.requests.begin(), out.requests.end(),
              [](const request_timing& a, const request_timing& b) { return a.start_ns < b.start_ns; });
    std::int64_t first = shared.reference_length.load(std::memory_order_relaxed);
    for (std::uint32_t k = 0; first < 0 && k < shared.table.size(); ++k)  // with targets: the lowest-numbered one's
        first = shared.target_lengths[k].load(std::memory_order_relaxed);
    if (first < 0) first = shared.failed_length.load(std::memory_order_relaxed);  // none passed: what came
    out.first_body_length = first > 0 ? static_cast<std::uint64_t>(first) : 0;
#ifndef MICROBENCH_NO_TARGETS
    if (shared.records.size())
        shared.records.summarize(shared.table.size() ? &shared.table : nullptr, shared.request, out.by_target);
#endif
}

// The descriptors a run of `p` needs besides those already open: one per connection, an epoll
// descriptor per worker, and a margin.
inline std::size_t descriptors_needed(const plan& p) {
    return static_cast<std::size_t>(p.concurrency()) + p.threads() + 16;
}

// run() without its guard against std::bad_alloc.
inline error run_plan(const plan& p, result& out) {
    if (error e = p.validate()) return e;
    url target;
    std::string origin;
    if (error e = first_url(p, origin)) return e;
    if (error e = parse_url(origin, target)) return e;
    run_shared shared;
    if (error e = build_request(target, p.request(), shared.request)) return e;
    if (error e = build_targets(p, target, shared.table, shared.target_lengths)) return e;
    if (error e = order_targets(p, shared.table, shared.shuffled)) return e;
    // Where to connect: a Unix socket, the URL's host and port, or a --connect-to rule's.
    std::string connect_host = target.host;
    std::uint16_t connect_port = target.port;
    std::size_t bad_rule = 0;
    const bool rerouted = apply_connect_rules(p.connect_to(), connect_host, connect_port, bad_rule);
    if (bad_rule < p.connect_to().size()) return {errc::plan_bad_connect_to, bad_rule};
    if (!p.unix_socket().empty()) unix_endpoint(p.unix_socket(), shared.to);  // validate() checked the path
    else if (resolve(connect_host, connect_port, shared.to) != 0) return {errc::run_resolve_failed, 0};
    if (!p.bind_address().empty())
        if (source_fault f = source_addresses(p.bind_address(), shared.to.family(), shared.sources))
            return {errc::plan_bad_bind_address, f.at};  // the byte of -B's text where the item at fault starts
    if (p.start_at_unix_ms() - realtime_ns() / 1'000'000 > defaults::max_start_ahead_ms)
        return {errc::plan_bad_start_time, 0};
    shared.server_name = target.host;
    if (p.has_transport()) {
        shared.carrier = &p.transport();
    } else if (target.tls) {
#ifdef MICROBENCH_NO_TLS
        return {errc::url_tls_unsupported, 0};
#else
        shared.tls.reset(new openssl_run());
        const std::uint32_t per_worker = (p.concurrency() + p.threads() - 1) / p.threads();
        if (error e = shared.tls->start(p.tls(), p.threads(), per_worker)) return e;
#endif
    }
    fd_budget budget(descriptors_needed(p), p.raise_fd_limit());
    const std::uint32_t t = p.threads();
    if (!budget.ok()) return {errc::run_fd_limit, 0};

    shared.response_checks = p.check();
    if (!p.expect_status().empty()) shared.response_checks.status(p.expect_status());
    if (error e = prepare_by_target(p, target, shared.table, shared.response_checks, shared.factorials, shared.records))
        return e;
    shared.interval_ns = p.effective_interval_ms() * 1'000'000;
    shared.stages.prepare(p, p.threads());
    std::unique_ptr<worker_thread[]> threads(new worker_thread[t]);
    std::vector<interval_stats> interval_rows;
    std::vector<interval_histogram_set> kept;
    std::unique_ptr<interval_collector> rows;  // only when the plan asks for intervals
    if (shared.interval_ns)
        rows.reset(new interval_collector(p, interval_rows, kept,
                                          shared.stages.curve.on() ? &shared.stages.curve : nullptr));
    for (std::uint32_t i = 0, first_connection = 0; i < t; ++i) {
        if (rows) {
            threads[i].intervals.reset(new interval_ring());
            rows->add(threads[i].intervals.get());
        }
        worker_setup s = setup_of(p, shared, threads[i], i, t, first_connection);
        first_connection += s.connections;
        threads[i].fixed_rate = p.open_model();
        threads[i].w.reset(new worker(std::move(s)));
        if (error e = threads[i].w->prepare()) return e;
    }
    std::uint32_t started = 0;
    while (started < t && pthread_create(&threads[started].thread, nullptr, run_worker, &threads[started]) == 0)
        ++started;
    if (started < t) {  // the ones that started give up at the gate; nothing is reported
        shared.gate.open(-1);
        for (std::uint32_t i = 0; i < started; ++i) pthread_join(threads[i].thread, nullptr);
        return {errc::run_system, 0};
    }
    // The clock starts when every worker has allocated and is waiting: setup is not run time.
    shared.gate.wait_ready(t);
    if (p.start_at_unix_ms() && !wait_until_unix_ms(p.start_at_unix_ms(), p.cancel_with())) {
        shared.gate.open(-1);  // cancelled while waiting: nothing was sent
        for (std::uint32_t i = 0; i < t; ++i) pthread_join(threads[i].thread, nullptr);
        out = result();
        out.cancelled = true;
        out.concurrency_requested = p.concurrency();
        return {};
    }
    const std::int64_t start = now_ns();
    const std::int64_t wall = realtime_ns();  // labels per-request records (ab -g) and aligns merged results
    shared.gate.open(start);
    if (rows) rows->started(wall);

    if (p.progress_callback() || rows) watch_workers(p, threads.get(), t, start, rows.get());
    for (std::uint32_t i = 0; i < t; ++i) pthread_join(threads[i].thread, nullptr);
    // After every join: nothing below may leave a thread running.
    collect_result(p, shared, threads.get(), t, start, wall, rows.get(), interval_rows, kept, out);
    if (rerouted) out.connected_to = host_port_text(connect_host, connect_port);
    if (!p.unix_socket().empty()) out.connected_to = "unix:" + p.unix_socket();
    return {};
}

}  // namespace detail

// Runs `p` and fills `out`. Returns an error only when the run cannot start; once it starts,
// every request is accounted for in `out` (ended = completed + failed; unfinished when stopped).
// Running out of memory is run_system, never an exception.
inline error run(const plan& p, result& out) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    try {  // bad_alloc guard
        return detail::run_plan(p, out);
    } catch (const std::bad_alloc&) {  // bad_alloc guard
        return {errc::run_system, 0};
    }
#else
    return detail::run_plan(p, out);
#endif
}

}  // namespace microbench
