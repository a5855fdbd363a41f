// microbench/worker.hpp — one thread's share of a run: its own epoll loop, connections, counters
// and histograms; nothing is shared with other workers while running except a set-once
// reference length and a progress counter only this worker writes.
// Each request ends exactly once: completed, failed with one reason, or (when a run is stopped)
// unfinished. No allocation per request: buffers are sized at prepare(); a connection's head
// stash grows only when a response head is split across reads, and keeps its capacity.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clock.hpp"
#include "connection.hpp"
#include "event_loop.hpp"
#include "net.hpp"
#include "plan.hpp"
#include "result.hpp"

namespace microbench {
namespace detail {

// Everything a worker needs, prepared by the runner.
struct worker_setup {
    endpoint target;
    endpoint bind;  // len == 0: any local address
    std::string batch;  // the request, repeated `pipeline` times
    std::size_t request_bytes = 0;
    std::uint32_t connections = 1;
    std::uint64_t quota = 0;  // requests to issue; 0: until stopped
    std::uint32_t pipeline = 1;
    bool keep_alive = true;
    bool head = false;
    bool length_check = true;
    const checks* response_checks = nullptr;  // null: no checks; shared, immutable during the run
    std::uint64_t record_requests = 0;  // per-request timings to keep (allocated up front)
    int socket_buffer_bytes = 0;        // SO_SNDBUF/SO_RCVBUF, 0 = the kernel's
    std::int64_t start_ns = 0;
    std::int64_t stop_issuing_ns = INT64_MAX;
    std::int64_t drain_ns = 0;
    std::int64_t timeout_ns = 0;
    std::int64_t connect_timeout_ns = 0;
    response_limits limits;
    const cancel_token* cancel = nullptr;  // the user's
    const cancel_token* abort = nullptr;   // the runner's, when it cannot start every thread
    std::atomic<std::int64_t>* reference_length = nullptr;  // -1 until the first response sets it
    std::atomic<std::uint64_t>* ended_counter = nullptr;    // for progress; written only here
};

class worker {
public:
    explicit worker(worker_setup setup) : s_(std::move(setup)) {}
    worker(const worker&) = delete;
    worker& operator=(const worker&) = delete;

    // Allocates everything the run needs; errc::run_system if the system says no.
    error prepare() {
        if (!loop_.ok()) return {errc::run_system, 0};
        headers_.resize(s_.limits.max_headers);
        requests_.resize(static_cast<std::size_t>(s_.connections) * s_.pipeline);
        conns_.reserve(s_.connections);
        for (std::uint32_t i = 0; i < s_.connections; ++i) {
            conns_.emplace_back(s_.limits, headers_.data(), &requests_[static_cast<std::size_t>(i) * s_.pipeline]);
            conns_.back().parser.reset(s_.head);
        }
        read_buf_.reset(new char[defaults::worker_read_buffer_bytes]);
        ready_.reserve(s_.connections);
        next_ready_.reserve(s_.connections);
        stats_.concurrency_requested = s_.connections;
        if (s_.record_requests)
            stats_.requests.reserve(static_cast<std::size_t>(s_.quota ? std::min(s_.quota, s_.record_requests) : s_.record_requests));
        return {};
    }

    void run();
    result& stats() { return stats_; }

private:
    void issue(std::uint32_t ci, std::int64_t now);
    void send(std::uint32_t ci, std::int64_t now);
    void on_event(std::uint32_t ci, std::uint32_t events);
    void on_connected(connection& c, std::int64_t now);
    void try_write(std::uint32_t ci);
    void on_readable(std::uint32_t ci, bool peer_closed);
    bool consume(std::uint32_t ci, const char* data, std::size_t len, std::int64_t now);
    void complete_oldest(connection& c, std::int64_t now, bool passed_checks = true);
    void on_eof(std::uint32_t ci, std::int64_t now);
    void resend_or_fail(std::uint32_t ci, failure reason, std::int64_t now);
    void fail_in_flight(std::uint32_t ci, failure first, failure rest, bool abortive);
    void end_failed(failure reason);
    void end_unfinished(connection& c);
    void close_connection(connection& c, bool abortive);
    void scan_deadlines(std::int64_t now);
    bool stop_requested(std::int64_t now) const {
        return now >= s_.stop_issuing_ns || cancelled();
    }
    bool cancelled() const {
        return (s_.cancel && s_.cancel->cancelled()) || (s_.abort && s_.abort->cancelled());
    }
    void note_ended() {
        ++stats_.requests_ended;
        if (s_.ended_counter) s_.ended_counter->store(stats_.requests_ended, std::memory_order_relaxed);
    }

    worker_setup s_;
    event_loop loop_;
    std::vector<header_view> headers_;   // shared by all parsers of this worker
    std::vector<request_slot> requests_; // pipeline slots of every connection
    std::vector<connection> conns_;
    std::unique_ptr<char[]> read_buf_;
    std::vector<std::uint32_t> ready_, next_ready_;  // connections to issue requests on
    std::uint64_t issued_ = 0;
    std::uint32_t open_ = 0;
    bool stopping_ = false;
    bool looked_for_server_ = false;
    std::int64_t drain_until_ns_ = INT64_MAX;
    std::int64_t last_end_ns_ = 0;
    result stats_;
};

inline void worker::run() {
    for (std::uint32_t i = 0; i < s_.connections; ++i) next_ready_.push_back(i);
    epoll_event events[256];
    std::int64_t next_scan = 0;
    const std::int64_t scan_every = std::max<std::int64_t>(
        1'000'000, std::min<std::int64_t>(50'000'000, std::min(s_.timeout_ns, s_.connect_timeout_ns) / 20));
    for (;;) {
        std::int64_t now = now_ns();
        if (!stopping_ && stop_requested(now)) {
            stopping_ = true;
            stats_.cancelled = cancelled();
            drain_until_ns_ = stats_.cancelled ? now : now + s_.drain_ns;
        }
        if (now >= drain_until_ns_) {  // stop waiting: what is still in flight is unfinished
            for (connection& c : conns_) end_unfinished(c);
            break;
        }
        ready_.swap(next_ready_);
        for (std::uint32_t ci : ready_) issue(ci, now);
        ready_.clear();
        // Every issued request ends once (or is abandoned as unfinished): none in flight means done.
        bool busy = !next_ready_.empty() || issued_ != stats_.requests_ended + stats_.unfinished;
        if (!busy) break;

        if (now >= next_scan) {
            scan_deadlines(now);
            next_scan = now + scan_every;
        }
        std::int64_t wake = std::min(next_scan, std::min(drain_until_ns_, s_.stop_issuing_ns));
        int timeout_ms = next_ready_.empty() ? static_cast<int>(std::max<std::int64_t>(0, wake - now) / 1'000'000 + 1) : 0;
        int n = loop_.wait(events, 256, timeout_ms);
        for (int i = 0; i < n; ++i) on_event(static_cast<std::uint32_t>(events[i].data.u64), events[i].events);
    }
    for (connection& c : conns_) close_connection(c, false);
    stats_.elapsed_ns = (last_end_ns_ ? last_end_ns_ : now_ns()) - s_.start_ns;
}

// Starts the next batch of requests on an idle connection, or closes it when none are left.
inline void worker::issue(std::uint32_t ci, std::int64_t now) {
    connection& c = conns_[ci];
    std::uint64_t left = s_.quota ? s_.quota - issued_ : UINT64_MAX;
    auto k = static_cast<std::uint32_t>(stopping_ ? 0 : std::min<std::uint64_t>(s_.pipeline, left));
    if (k == 0) {
        close_connection(c, false);
        return;
    }
    issued_ += k;
    c.batch = k;
    c.done = 0;
    bool reused = c.fd >= 0;
    for (std::uint32_t j = 0; j < k; ++j) c.requests[j] = request_slot{now, reused ? now : 0, 0, 0, false, reused};
    send(ci, now);
}

// Sends the requests in flight on `c`, connecting first if it has no descriptor.
inline void worker::send(std::uint32_t ci, std::int64_t now) {
    connection& c = conns_[ci];
    c.write_offset = 0;
    c.write_length = static_cast<std::size_t>(c.in_flight()) * s_.request_bytes;
    if (c.fd >= 0) {
        c.state = connection::phase::writing;
        c.deadline_ns = c.oldest().start_ns + s_.timeout_ns;
        if (c.oldest().reused) stats_.keep_alive_requests += c.in_flight();
        try_write(ci);
        return;
    }
    c.fd = open_tcp_socket(s_.target.family());
    if (c.fd >= 0 && s_.socket_buffer_bytes) {  // before connect, so the window scale is negotiated for it
        setsockopt(c.fd, SOL_SOCKET, SO_SNDBUF, &s_.socket_buffer_bytes, sizeof s_.socket_buffer_bytes);
        setsockopt(c.fd, SOL_SOCKET, SO_RCVBUF, &s_.socket_buffer_bytes, sizeof s_.socket_buffer_bytes);
    }
    if (c.fd >= 0 && s_.bind.len && ::bind(c.fd, reinterpret_cast<const sockaddr*>(&s_.bind.addr), s_.bind.len) != 0) {
        ::close(c.fd);
        c.fd = -1;
    }
    c.state = connection::phase::connecting;
    if (c.fd < 0 || !loop_.add(c.fd, ci)) return fail_in_flight(ci, failure::connect, failure::connect, false);
    c.deadline_ns = now + s_.connect_timeout_ns;
    io_result r = start_connect(c.fd, s_.target);
    if (r.status == io::error) return fail_in_flight(ci, failure::connect, failure::connect, false);
    if (r.status == io::ok) {
        on_connected(c, now_ns());
        try_write(ci);
    }
}

inline void worker::on_connected(connection& c, std::int64_t now) {
    ++stats_.connects;
    if (++open_ > stats_.concurrency_peak) stats_.concurrency_peak = open_;
    for (std::uint32_t j = c.done; j < c.batch; ++j) c.requests[j].connected_ns = now;
    c.state = connection::phase::writing;
    c.deadline_ns = c.oldest().start_ns + s_.timeout_ns;
}

inline void worker::on_event(std::uint32_t ci, std::uint32_t events) {
    connection& c = conns_[ci];
    if (c.fd < 0) return;  // closed earlier in this batch of events
    if (c.state == connection::phase::connecting) {
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
        if (connect_result(c.fd) != 0) return fail_in_flight(ci, failure::connect, failure::connect, false);
        on_connected(c, now_ns());
    }
    // A response that arrived while a write was blocked raised its edge then: read it now.
    bool read_anyway = false;
    if (c.state == connection::phase::writing) {
        read_anyway = c.write_blocked;
        try_write(ci);
    }
    if (c.fd >= 0 && c.state == connection::phase::reading &&
        (read_anyway || (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))))
        on_readable(ci, events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR));
}

inline void worker::try_write(std::uint32_t ci) {
    connection& c = conns_[ci];
    while (c.write_offset < c.write_length) {
        io_result r = write_some(c.fd, s_.batch.data() + c.write_offset, c.write_length - c.write_offset);
        if (r.status == io::again) {  // the edge-triggered EPOLLOUT brings us back
            c.write_blocked = true;
            return;
        }
        if (r.status != io::ok) {
            // A keep-alive connection the server closed while idle: send again, once.
            if (c.served && !c.parser.started()) {
                ++stats_.server_closes;
                return resend_or_fail(ci, failure::write, now_ns());
            }
            return fail_in_flight(ci, failure::write, failure::write, true);
        }
        c.write_offset += r.bytes;
        stats_.bytes_sent += r.bytes;
    }
    std::int64_t now = now_ns();
    for (std::uint32_t j = c.done; j < c.batch; ++j) c.requests[j].written_ns = now;
    c.state = connection::phase::reading;
    c.write_blocked = false;
}

// The requests in flight met a connection the server had closed before any response byte:
// each goes again once on a new connection; one that already did fails with `reason`.
inline void worker::resend_or_fail(std::uint32_t ci, failure reason, std::int64_t now) {
    connection& c = conns_[ci];
    close_connection(c, false);
    c.parser.reset(s_.head);
    std::uint32_t kept = 0;
    for (std::uint32_t j = c.done; j < c.batch; ++j) {
        request_slot q = c.requests[j];
        if (q.retried) {
            end_failed(reason);
            continue;
        }
        ++stats_.retries;
        c.requests[kept++] = request_slot{q.start_ns, 0, 0, 0, true, false};
    }
    c.batch = kept;
    c.done = 0;
    if (kept == 0) next_ready_.push_back(ci);
    else send(ci, now);
}

// Ends every request in flight on `c` as failed (the oldest with `first`, the ones pipelined
// behind it with `rest`), closes the connection and queues it for the next requests.
inline void worker::fail_in_flight(std::uint32_t ci, failure first, failure rest, bool abortive) {
    connection& c = conns_[ci];
    for (std::uint32_t j = c.done; j < c.batch; ++j) end_failed(j == c.done ? first : rest);
    c.done = c.batch;
    close_connection(c, abortive);
    c.parser.reset(s_.head);
    next_ready_.push_back(ci);
}

inline void worker::end_failed(failure reason) {
    ++stats_.failures[static_cast<int>(reason)];
    ++stats_.requests_failed;
    last_end_ns_ = now_ns();
    note_ended();
}

inline void worker::end_unfinished(connection& c) {
    stats_.unfinished += c.in_flight();
    c.done = c.batch;
    close_connection(c, true);
}

inline void worker::close_connection(connection& c, bool abortive) {
    if (c.fd < 0) return;
    if (c.state != connection::phase::connecting) --open_;
    if (abortive) close_abortive(c.fd);
    else ::close(c.fd);
    c.fd = -1;
    c.state = connection::phase::idle;
    c.served = false;
    c.write_blocked = false;
    c.stash.clear();  // keeps its capacity: no allocation next time
}

// All requests share one timeout, so a scan every 1/20 of it is precise enough and costs one
// comparison per connection; no timer heap, no syscall.
inline void worker::scan_deadlines(std::int64_t now) {
    for (std::uint32_t ci = 0; ci < conns_.size(); ++ci) {
        connection& c = conns_[ci];
        if (c.in_flight() == 0 || now < c.deadline_ns) continue;
        bool connecting = c.state == connection::phase::connecting;
        fail_in_flight(ci, connecting ? failure::connect : failure::timeout,
                       connecting ? failure::connect : failure::timeout, true);
    }
}

}  // namespace detail
}  // namespace microbench

#include "worker_receive.hpp"
