// microbench/engine/worker_connect.hpp — how a worker opens and closes connections: socket, buffer
// sizes, source address, non-blocking connect, close or reset. A connect that meets a local
// shortage (no free port, descriptor or kernel buffer) is not the server's failure: the
// connection waits, and is tried again when another connection closes or after a short
// back-off, within its connect timeout.
#pragma once

#include "worker.hpp"

namespace microbench {
namespace detail {

// Opens a socket and starts connecting, or waits out a local shortage (see above).
inline void worker::open_connection(std::uint32_t ci, std::int64_t now) {
    connection& c = conns_[ci];
    if (c.state != connection::phase::waiting) c.deadline_ns = now + s_.connect_timeout_ns;
    int fd = open_tcp_socket(s_.target.family());
    int err = fd < 0 ? errno : 0;
    if (fd >= 0 && s_.socket_buffer_bytes) {  // before connect, so the window scale is negotiated for it
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &s_.socket_buffer_bytes, sizeof s_.socket_buffer_bytes);
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &s_.socket_buffer_bytes, sizeof s_.socket_buffer_bytes);
    }
    if (fd >= 0 && s_.stamp_arrivals) stamp_arrivals(fd);
    if (fd >= 0 && s_.source_count) err = bind_source(fd, s_.sources[(s_.first_connection + ci) % s_.source_count]);
    io_result r{io::error, 0, err};
    if (!err) r = start_connect(fd, s_.target);
    if (r.status == io::again || r.status == io::ok) {
        if (!loop_.add(fd, ci)) r = {io::error, 0, errno};
    }
    if (r.status == io::error) {
        if (fd >= 0) ::close(fd);
        local_shortage what = shortage_of(r.err);
        if (what != local_shortage::none) return wait_for_local(ci, what, now);
        return fail_in_flight(ci, failure::connect, failure::connect, false);
    }
    c.fd = fd;
    c.state = connection::phase::connecting;
    watch(ci);
    local_backoff_ns_ = defaults::local_retry_min_ns;
    if (r.status == io::ok) {
        on_connected(c, now_ns());
        try_write(ci);
    }
}

inline void worker::wait_for_local(std::uint32_t ci, local_shortage what, std::int64_t now) {
    switch (what) {
        case local_shortage::port: ++stats_.port_waits; break;
        case local_shortage::descriptor: ++stats_.descriptor_waits; break;
        default: ++stats_.memory_waits; break;
    }
    connection& c = conns_[ci];
    c.state = connection::phase::waiting;
    if (!c.queued) {  // once: an entry left by a connection that timed out while waiting still stands
        c.queued = true;
        waiting_[(waiting_head_ + waiting_count_++) % waiting_.size()] = ci;
    }
    if (local_retry_at_ == INT64_MAX) local_retry_at_ = now + local_backoff_ns_;
}

// Tries the waiting connections again: one for each connection closed since the last try, all of
// them when the back-off has passed (the shortage may have ended elsewhere on the machine).
inline void worker::retry_waiting(std::int64_t now) {
    const bool all = now >= local_retry_at_;
    std::size_t n = all ? waiting_count_ : std::min<std::size_t>(waiting_count_, closes_since_retry_);
    closes_since_retry_ = 0;
    if (n == 0) return;
    if (all) {
        local_retry_at_ = INT64_MAX;
        local_backoff_ns_ = std::min(local_backoff_ns_ * 2, defaults::local_retry_max_ns);
    }
    for (; n > 0; --n) {
        std::uint32_t ci = waiting_[waiting_head_];
        waiting_head_ = (waiting_head_ + 1) % waiting_.size();
        --waiting_count_;
        conns_[ci].queued = false;
        if (conns_[ci].state == connection::phase::waiting) open_connection(ci, now);  // else it timed out meanwhile
    }
}

inline void worker::on_connected(connection& c, std::int64_t now) {
    ++stats_.connects;
    if (++open_ > stats_.concurrency_peak) stats_.concurrency_peak = open_;
    for (std::uint32_t j = c.done; j < c.batch; ++j) c.requests[j].connected_ns = now;
    c.state = connection::phase::writing;
    c.deadline_ns = c.oldest().start_ns + s_.timeout_ns;
}

inline void worker::close_connection(connection& c, bool abortive) {
    const connection::phase was = c.state;
    c.state = connection::phase::idle;
    if (c.fd < 0) return;
    if (was != connection::phase::connecting) --open_;
    if (abortive) close_abortive(c.fd);
    else ::close(c.fd);
    c.fd = -1;
    ++c.closes;
    ++closes_since_retry_;
    c.served = false;
    c.stash.clear();  // keeps its capacity: no allocation next time
}

}  // namespace detail
}  // namespace microbench
