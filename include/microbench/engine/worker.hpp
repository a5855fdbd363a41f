// microbench/engine/worker.hpp — one thread's share of a run: its own epoll loop, connections, counters
// and histograms; nothing is shared with other workers while running except the request bytes
// (read-only; with targets, a table of them), set-once reference lengths, the targets' records
// and a progress counter only this worker writes. A request callback writes into rooms of this
// worker's own.
// Each request ends exactly once: completed, failed with one reason, or (when a run is stopped)
// unfinished. No allocation per request: buffers are sized at prepare(); a connection's head
// stash grows only when a response head is split across reads, and keeps its capacity.
// This file holds the loop and issuing; worker_setup.hpp is what the runner gives a worker;
// worker_connect.hpp opens connections, makes the transport's handshake and waits out local
// shortages; worker_send.hpp is the sending half; worker_receive.hpp is the receiving half;
// worker_rate.hpp holds the fixed-rate dispatch and how the worker waits.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "../core/clock.hpp"
#include "connection.hpp"
#include "event_loop.hpp"
#include "intervals.hpp"
#include "net.hpp"
#include "plan.hpp"
#include "../stats/result.hpp"
#include "schedule.hpp"
#include "start_gate.hpp"
#include "target_records.hpp"
#include "transport.hpp"
#include "worker_setup.hpp"

namespace microbench {
namespace detail {

class worker {
public:
    explicit worker(worker_setup setup) : s_(std::move(setup)) {}
    worker(const worker&) = delete;
    worker& operator=(const worker&) = delete;

    // Allocates everything the run needs; errc::run_system if the system says no.
    error prepare() {
        if (!loop_.ok() || !stats_.histograms_allocated()) return {errc::run_system, 0};
        headers_.resize(s_.limits.max_headers);
        requests_.resize(static_cast<std::size_t>(s_.connections) * s_.pipeline);
        conns_.reserve(s_.connections);
        for (std::uint32_t i = 0; i < s_.connections; ++i) {
            conns_.emplace_back(s_.limits, headers_.data(), &requests_[static_cast<std::size_t>(i) * s_.pipeline]);
            conns_.back().parser.reset(s_.head);
        }
        read_buf_.reset(new char[defaults::worker_read_buffer_bytes]);
        // Wrong answers are shown: each connection's response's first body bytes are kept.
        if (s_.records || s_.response_checks) seen_.resize(s_.connections);
        // A body regex is matched in this thread's own room, made once.
        if (s_.response_checks && s_.response_checks->regex()) {
            regex_room_.fit(s_.response_checks->regex()->steps());
            for (connection& c : conns_) c.checked.scratch = &regex_room_;
        }
        if (s_.writer) {  // each slot's room for the request the callback writes, made once
            room_.reset(new (std::nothrow) char[requests_.size() * s_.writer_capacity]);
            room_lengths_.reset(new (std::nothrow) std::uint32_t[requests_.size()]);
            if (!room_ || !room_lengths_) return {errc::run_system, 0};
        }
        // A transport writes a pipelined batch from copies of the request back to back, as many
        // as fit in transport_batch_bytes (at least two): a record carries several requests. With
        // targets or a request callback, each request goes from its own bytes, one write each.
        const std::size_t fit =
            std::max<std::size_t>(2, defaults::transport_batch_bytes / std::max<std::size_t>(1, s_.request.size()));
        if (s_.tls && s_.pipeline > 1 && !own_bytes())
            for (std::size_t i = 0; i < std::min<std::size_t>(s_.pipeline, fit); ++i)
                batch_copies_.append(s_.request.data(), s_.request.size());
        ready_.reserve(s_.connections);
        next_ready_.reserve(s_.connections);
        waiting_.resize(s_.connections);
        unsettled_.reserve(s_.connections);
        idle_.reserve(s_.connections);
        stats_.concurrency_requested = s_.connections;
        if (s_.record_requests)
            stats_.requests.reserve(
                static_cast<std::size_t>(s_.quota ? std::min(s_.quota, s_.record_requests) : s_.record_requests));
        return {};
    }

    void run();
    result& stats() { return stats_; }
    std::int64_t stopped_ns() const { return stopped_ns_; }  // after the start, when run() ended

private:
    void issue(std::uint32_t ci, std::int64_t now);
    void send(std::uint32_t ci, std::int64_t now);
    void open_connection(std::uint32_t ci, std::int64_t now);
    void wait_for_local(std::uint32_t ci, local_shortage what, std::int64_t now);
    void retry_waiting(std::int64_t now);
    void on_event(std::uint32_t ci, std::uint32_t events);
    bool connected(std::uint32_t ci, std::int64_t now);
    bool shake(std::uint32_t ci);
    void on_connected(connection& c, std::int64_t now);
    io_result receive(connection& c, std::int64_t& stamped);
    io_result transmit(connection& c);
    io_result write_targets(connection& c);
    std::uint32_t write_requests(connection& c, std::uint32_t k);
    void move_room(const request_slot& from, const request_slot& to);
    void note_tls_failure(connection& c, long status, bool handshaking);
    void fail_handshake(std::uint32_t ci, long status);
    void try_write(std::uint32_t ci);
    bool on_readable(std::uint32_t ci, bool peer_closed, failure broken);
    bool consume(std::uint32_t ci, const char* data, std::size_t len, std::int64_t now);
    bool parse_in(std::uint32_t ci, std::string_view in, bool more_follows, std::int64_t now, std::size_t& used);
    void complete_oldest(connection& c, std::int64_t now, bool passed_checks);
    // Whether responses are kept as they come (answer_capture): with records, each; for the
    // checks, until this worker has kept the first one that failed them.
    bool capturing() const { return !seen_.empty() && (s_.records || !stats_.first_failed_check.status); }
    void keep_failed_check(const connection& c, const request_slot& q, const answer_capture& seen, std::int64_t now);
    void on_eof(std::uint32_t ci, std::int64_t now, failure broken);
    void resend_or_fail(std::uint32_t ci, failure reason, std::int64_t now);
    void fail_in_flight(std::uint32_t ci, failure first, failure rest, bool abortive);
    void end_failed(failure reason, const request_slot& q);
    void end_unfinished(connection& c);
    void close_connection(connection& c, bool abortive);
    void scan_deadlines(std::int64_t now);
    int wait_for_events(epoll_event* events, std::int64_t now, std::int64_t wake, bool more_now);
    void watch(std::uint32_t ci);
    bool settled();
    std::int64_t arrival_time(std::int64_t stamped_realtime_ns, std::int64_t now) const;
    bool cancelled() const { return s_.cancel && s_.cancel->cancelled(); }
    // Under stages: the tally of the stage a request's intended time falls in.
    stage_tally& tally_of(std::int64_t intended_ns) {
        return (*s_.stage_tallies)[s_.curve->stage_at(intended_ns - start_ns_)];
    }
    // Each request has bytes of its own (a target's, or a callback's), not the run's one request.
    bool own_bytes() const { return s_.table || s_.writer; }
    // Where the slot `q` (one of requests_) keeps what a request callback wrote.
    std::size_t room_of(const request_slot& q) const { return static_cast<std::size_t>(&q - requests_.data()); }
    // The bytes of the request `q` stands for: what the callback wrote, its target's, or the run's one request.
    std::string_view request_of(const request_slot& q) const {
        if (s_.writer) return {room_.get() + room_of(q) * s_.writer_capacity, room_lengths_[room_of(q)]};
        return s_.table ? s_.table->at(q.target) : s_.request;
    }
    // With targets: the next request's — at random, or in turn (this worker's k-th: (index +
    // k·workers) mod N, through the shuffle when each goes once at random).
    std::uint32_t next_target() {
        if (!s_.table) return 0;
        if (s_.random_order && !s_.shuffled)
            return static_cast<std::uint32_t>(detail::splitmix64(order_state_) % s_.table->size());
        const std::uint64_t k = picked_++;
        const auto i = static_cast<std::uint32_t>((s_.worker_index + k * s_.workers) % s_.table->size());
        return s_.shuffled ? s_.shuffled[i] : i;
    }
    bool fixed_rate() const { return schedule_.on(); }
    // At a fixed rate: another request is scheduled before the stop time (and within the quota).
    bool schedule_pending() const {
        return !stopping_ && (s_.quota == 0 || issued_ < s_.quota) && schedule_.next() < stop_issuing_ns_;
    }
    // At a fixed rate: the next request's time has come.
    bool due(std::int64_t now) const { return schedule_pending() && schedule_.next() <= now; }
    void dispatch_due(std::int64_t now);
    std::int64_t batch_wake();
    void on_idle_event(connection& c, std::uint32_t events);
    void note_ended() {
        ++stats_.requests_ended;
        if (s_.ended_counter) s_.ended_counter->store(stats_.requests_ended, std::memory_order_relaxed);
    }

    worker_setup s_;
    event_loop loop_;
    std::vector<header_view> headers_;   // shared by all parsers of this worker
    std::vector<request_slot> requests_; // pipeline slots of every connection
    std::vector<connection> conns_;
    std::vector<answer_capture> seen_;   // with checks or records: each connection's response as it came
    std::unique_ptr<char[]> read_buf_;
    regex_scratch regex_room_;           // with a body regex: where this thread matches it
    std::unique_ptr<char[]> room_;                   // with a request callback: each slot's room, back to back
    std::unique_ptr<std::uint32_t[]> room_lengths_;  // and the length written in it
    std::uint64_t writes_ = 0;                       // with a request callback: its calls so far
    std::string batch_copies_;    // over a transport, pipelined: copies of the request, back to back
    std::vector<std::uint32_t> ready_, next_ready_;  // connections to issue requests on
    std::vector<std::uint32_t> waiting_;  // a ring of connections waiting for a local resource
    std::size_t waiting_head_ = 0, waiting_count_ = 0;
    std::uint32_t closes_since_retry_ = 0;  // each close may free what a waiting connect needs
    std::int64_t local_retry_at_ = INT64_MAX;
    std::int64_t local_backoff_ns_ = defaults::local_retry_min_ns;
    std::uint64_t issued_ = 0;
    std::uint64_t picked_ = 0;  // with targets: requests given a target so far
    std::uint64_t order_state_ = s_.order_seed;  // a random order's generator
    std::uint32_t open_ = 0;
    bool stopping_ = false;
    bool looked_for_server_ = false;
    std::int64_t start_ns_ = 0;
    std::int64_t stop_issuing_ns_ = INT64_MAX;
    std::int64_t drain_until_ns_ = INT64_MAX;
    std::int64_t last_end_ns_ = 0;
    std::int64_t stopped_ns_ = 0;
    std::vector<std::uint32_t> idle_;       // at a fixed rate: connections waiting for the schedule
    rate_schedule schedule_;                // off in a closed loop
    struct {
        std::uint64_t issued, limit;
        std::int64_t wake;
    } batch_wake_for_{UINT64_MAX, 0, 0};    // batch_wake()'s last answer, and what it was for
    interval_recorder intervals_;           // off unless the plan asks for intervals
    std::vector<std::uint32_t> unsettled_;  // with stamp_arrivals: connections whose events must wake the worker
    std::int64_t realtime_offset_ns_ = 0;   // with stamp_arrivals: wall clock − monotonic clock, this pass
    bool stamps_known_ = false, stamps_work_ = false;  // with stamp_arrivals: whether reads come stamped
    result stats_;
};

inline void worker::run() {
    start_ns_ = s_.gate ? s_.gate->arrive_and_wait() : now_ns();
    if (start_ns_ < 0) return;  // the runner could not start every thread: nothing runs
    if (s_.duration_ns > 0) stop_issuing_ns_ = start_ns_ + s_.duration_ns;
    if (s_.curve)
        schedule_.start_staged(start_ns_, s_.curve, s_.rate_interval_ns, s_.rate_offset_ns, s_.rate_arrivals,
                               s_.rate_seed);
    else
        schedule_.start(start_ns_, s_.rate_interval_ns, s_.rate_offset_ns, s_.rate_arrivals, s_.rate_seed);
    intervals_.start(s_.intervals, start_ns_, s_.interval_ns);
    for (std::uint32_t i = 0; i < s_.connections; ++i) next_ready_.push_back(i);
    epoll_event events[defaults::worker_event_batch];
    std::int64_t next_scan = 0;
    const std::int64_t scan_every =
        std::max(defaults::deadline_scan_min_ns,
                 std::min(defaults::deadline_scan_max_ns, std::min(s_.timeout_ns, s_.connect_timeout_ns) / 20));
    for (;;) {
        std::int64_t now = now_ns();
        if (s_.stamp_arrivals) realtime_offset_ns_ = realtime_minus_monotonic_ns();
        if (drain_until_ns_ == INT64_MAX && now >= stop_issuing_ns_) {
            // At a fixed rate, requests whose time came before the end but found no connection
            // are not sent after it: they are counted as missed, not dropped in silence (unless a
            // request callback had already said there were no more).
            if (fixed_rate() && !stopping_)
                stats_.schedule_missed =
                    schedule_.count_before(stop_issuing_ns_, s_.quota ? s_.quota - issued_ : UINT64_MAX);
            stopping_ = true;
            drain_until_ns_ = now + s_.drain_ns;
        }
        if (!stats_.cancelled && cancelled()) {  // also during the drain: stop waiting at once
            stopping_ = stats_.cancelled = true;
            drain_until_ns_ = now;
        }
        if (now >= drain_until_ns_) {  // stop waiting: what is still in flight is unfinished
            for (connection& c : conns_) end_unfinished(c);
            break;
        }
        intervals_.tick(now);  // hands a finished interval over even when nothing happens
        retry_waiting(now);
        ready_.swap(next_ready_);
        for (std::uint32_t ci : ready_) issue(ci, now);
        ready_.clear();
        if (fixed_rate()) dispatch_due(now);
        // Every issued request ends once (or is abandoned as unfinished): none in flight means done.
        bool busy = !next_ready_.empty() || issued_ != stats_.requests_ended + stats_.unfinished ||
                    (fixed_rate() && schedule_pending());
        if (!busy) break;

        if (now >= next_scan) {
            scan_deadlines(now);
            next_scan = now + scan_every;
        }
        // The drain's end once it has started, else the duration's (also after a request callback
        // stopped this worker: its drain starts then).
        const std::int64_t stop_wake = drain_until_ns_ != INT64_MAX ? drain_until_ns_ : stop_issuing_ns_;
        std::int64_t wake = std::min({next_scan, stop_wake, local_retry_at_});
        if (fixed_rate() && !idle_.empty() && schedule_pending()) wake = std::min(wake, batch_wake());
        bool more_now = !next_ready_.empty() || (waiting_count_ && closes_since_retry_);
        int n = wait_for_events(events, now, wake, more_now);
        for (int i = 0; i < n; ++i) on_event(static_cast<std::uint32_t>(events[i].data.u64), events[i].events);
    }
    for (connection& c : conns_) close_connection(c, false);
    stopped_ns_ = now_ns() - start_ns_;
    stats_.elapsed_ns = last_end_ns_ ? last_end_ns_ - start_ns_ : stopped_ns_;
}

// Starts the next batch of requests on an idle connection, or closes it when none are left.
// Nothing starts at or after the stop time, whatever pass of the loop `now` comes from. At a
// fixed rate the batch is the one request whose time has come; a connection with none due waits
// in idle_ (open, if keep-alive) for the schedule.
inline void worker::issue(std::uint32_t ci, std::int64_t now) {
    connection& c = conns_[ci];
    if (fixed_rate() && schedule_pending() && schedule_.next() > now) {  // not yet: wait for the schedule
        idle_.push_back(ci);
        return;
    }
    std::uint64_t left = s_.quota ? s_.quota - issued_ : UINT64_MAX;
    bool stop = stopping_ || now >= stop_issuing_ns_ || (fixed_rate() && !due(now));
    auto k = static_cast<std::uint32_t>(stop ? 0 : std::min<std::uint64_t>(s_.pipeline, left));
    if (k && s_.writer) k = write_requests(c, k);
    if (k == 0) {
        close_connection(c, false);
        return;
    }
    issued_ += k;
    c.batch = k;
    c.done = 0;
    bool reused = c.fd >= 0;
    // A new connection starts now, not when this pass of the loop began: a wave of thousands of
    // connects takes milliseconds, which must not count as the last ones' Connect time. At a
    // fixed rate `now` may be when the last response arrived, long before this send.
    std::int64_t start = reused && !fixed_rate() ? now : now_ns();
    std::int64_t intended = start;
    if (fixed_rate()) {
        // It waited for a connection when it fell due before this one freed up and none stood idle
        // (an idle one went idle before anything was due): decided by the times, not by whether
        // the worker happened to be awake when it fell due.
        if (schedule_.next() < c.freed_ns && idle_.empty()) ++stats_.connection_waits;
        intended = schedule_.next();
        schedule_.advance(issued_);
        if (s_.stage_tallies) ++tally_of(intended).sent;
    }
    intervals_.sent(start, k);
    for (std::uint32_t j = 0; j < k; ++j) {
        const std::uint32_t target = s_.writer ? c.requests[j].target : next_target();  // a callback's: its own
        c.requests[j] = request_slot{start, reused ? start : 0, 0, 0, false, reused, target, intended};
    }
    send(ci, start);
}

// Reads whenever the socket is readable, also while the batch is still being written: a server
// may answer early (413) and stop reading, or write each response before it reads the next
// request. Then writes what is left.
inline void worker::on_event(std::uint32_t ci, std::uint32_t events) {
    connection& c = conns_[ci];
    if (c.fd < 0) return;  // closed earlier in this batch of events
    if (c.in_flight() == 0) return on_idle_event(c, events);  // at a fixed rate, between requests
    if (c.state == connection::phase::connecting) {
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
        if (connect_result(c.fd) != 0) return fail_in_flight(ci, failure::connect, failure::connect, false);
        if (!connected(ci, now_ns())) return;
    } else if (c.state == connection::phase::handshaking) {  // any readiness may be the one it waits for
        if (!shake(ci)) return;
    }
    if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) || c.read_wants_write)
        if (!on_readable(ci, events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR), failure::receive)) return;
    if (c.state == connection::phase::writing) try_write(ci);
}

// Ends every request in flight on `c` as failed (the oldest with `first`, the ones pipelined
// behind it with `rest`), closes the connection and queues it for the next requests.
inline void worker::fail_in_flight(std::uint32_t ci, failure first, failure rest, bool abortive) {
    connection& c = conns_[ci];
    for (std::uint32_t j = c.done; j < c.batch; ++j) end_failed(j == c.done ? first : rest, c.requests[j]);
    c.done = c.batch;
    c.freed_ns = last_end_ns_;
    close_connection(c, abortive);
    c.parser.reset(s_.head);
    next_ready_.push_back(ci);
}

inline void worker::end_failed(failure reason, const request_slot& q) {
    if (s_.records) s_.records->failed(q.target, reason);
    if (s_.stage_tallies) ++tally_of(q.intended_ns).failed;
    ++stats_.failures[static_cast<int>(reason)];
    ++stats_.requests_failed;
    last_end_ns_ = now_ns();
    intervals_.failed(last_end_ns_);
    note_ended();
    // After ended, released: a watcher that acquires this count sees at least as many ended.
    if (s_.failed_counter) s_.failed_counter->store(stats_.requests_failed, std::memory_order_release);
}

inline void worker::end_unfinished(connection& c) {
    stats_.unfinished += c.in_flight();
    if (s_.records)
        for (std::uint32_t j = c.done; j < c.batch; ++j) s_.records->unfinished(c.requests[j].target);
    c.done = c.batch;
    close_connection(c, true);
}

// All requests share one timeout, so a scan every 1/20 of it is precise enough and costs one
// comparison per connection; no timer heap, no syscall. A connection still waiting for a local
// resource when its connect timeout ends fails as `connect`.
inline void worker::scan_deadlines(std::int64_t now) {
    for (std::uint32_t ci = 0; ci < conns_.size(); ++ci) {
        connection& c = conns_[ci];
        if (c.in_flight() == 0 || now < c.deadline_ns) continue;
        // The connect timeout covers the handshake; a handshake that outlasts it is a TLS failure.
        if (c.state == connection::phase::handshaking) {
            fail_handshake(ci, transport_want_read);
            continue;
        }
        const bool connecting = c.state == connection::phase::connecting || c.state == connection::phase::waiting;
        fail_in_flight(ci, connecting ? failure::connect : failure::timeout,
                       connecting ? failure::connect : failure::timeout, true);
    }
}

}  // namespace detail
}  // namespace microbench

#include "worker_connect.hpp"
#include "worker_send.hpp"
#include "worker_receive.hpp"
#include "worker_rate.hpp"
