// microbench/engine/worker_connect.hpp — how a worker opens and closes connections: socket, buffer
// sizes, source address, non-blocking connect, the transport's handshake (timed apart, and
// counted in ab's Connect), the transport's reads, close or reset. A connect that meets a local
// shortage (no free port, descriptor or kernel buffer) is not the server's failure: the
// connection waits, and is tried again when another connection closes or after a short
// back-off, within its connect timeout. A Unix socket's full listen queue waits the same way.
#pragma once

#include <cstdio>
#include <cstring>

#include "worker.hpp"

namespace microbench {
namespace detail {

// Opens a socket and starts connecting, or waits out a local shortage (see above).
inline void worker::open_connection(std::uint32_t ci, std::int64_t now) {
    connection& c = conns_[ci];
    if (c.state != connection::phase::waiting) c.deadline_ns = now + s_.connect_timeout_ns;
    int fd = open_stream_socket(s_.target.family());
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
        local_shortage what = shortage_of(r.err, s_.target.family());
        if (what != local_shortage::none) return wait_for_local(ci, what, now);
        return fail_in_flight(ci, failure::connect, failure::connect, false);
    }
    c.fd = fd;
    c.state = connection::phase::connecting;
    watch(ci);
    local_backoff_ns_ = defaults::local_retry_min_ns;
    if (r.status == io::ok && connected(ci, now_ns())) try_write(ci);
}

inline void worker::wait_for_local(std::uint32_t ci, local_shortage what, std::int64_t now) {
    switch (what) {
        case local_shortage::port: ++stats_.port_waits; break;
        case local_shortage::descriptor: ++stats_.descriptor_waits; break;
        case local_shortage::backlog:  // a connect's wait, counted once however often it tries again
            if (conns_[ci].state != connection::phase::waiting) ++stats_.backlog_waits;
            break;
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

// The TCP connect ended: over a transport its handshake starts, else the requests may go. False
// while the handshake goes on, or when it failed (the requests then failed with it).
inline bool worker::connected(std::uint32_t ci, std::int64_t now) {
    connection& c = conns_[ci];
    if (!s_.tls) {
        on_connected(c, now);
        return true;
    }
    c.state = connection::phase::handshaking;
    c.handshake_ns = now;
    c.tls = s_.tls->open(s_.tls->user, c.fd, s_.server_name);
    if (!c.tls) {
        fail_handshake(ci, transport_failed);
        return false;
    }
    return shake(ci);
}

// The handshake failed (or outlasted the connect timeout): every request in flight fails as `tls`.
inline void worker::fail_handshake(std::uint32_t ci, long status) {
    connection& c = conns_[ci];
    note_tls_failure(c, status, true);
    stats_.tls_handshake_failures += c.in_flight();
    fail_in_flight(ci, failure::tls, failure::tls, true);
}

// One step of the handshake; true when it ended and the requests may go. Waiting needs no epoll
// change: the descriptor is watched for reading and writing at once, edge-triggered.
inline bool worker::shake(std::uint32_t ci) {
    connection& c = conns_[ci];
    const long r = s_.tls->handshake(c.tls);
    if (r == transport_want_read || r == transport_want_write) return false;
    if (r != transport_done && r != transport_resumed && r != transport_no_session) {
        fail_handshake(ci, r);
        return false;
    }
    const std::int64_t now = now_ns();
    ++stats_.tls_handshakes;
    if (r == transport_resumed) ++stats_.tls_resumed;
    if (r == transport_no_session) ++stats_.tls_no_session;
    stats_.tls_handshake_ns.record_clamped(now - c.handshake_ns);
    if (stats_.tls_handshakes == 1 && s_.tls->session) {  // what the first handshake negotiated, if the transport says
        s_.tls->session(c.tls, &stats_.tls);
        // Each string ends within its array, whatever the transport wrote.
        stats_.tls.protocol[sizeof stats_.tls.protocol - 1] = stats_.tls.cipher[sizeof stats_.tls.cipher - 1] = 0;
        stats_.tls.temp_key[sizeof stats_.tls.temp_key - 1] =
            stats_.tls.server_name[sizeof stats_.tls.server_name - 1] = 0;
        stats_.tls_used = stats_.tls.protocol[0] != 0;
    }
    on_connected(c, now);
    return true;
}

// Keeps the words for why `status` failed requests on `c` as `tls` (the layer's own when it has
// them) among the first distinct ones. A close or a socket error is `tls` only during the
// handshake; afterwards it is the read's or the write's.
inline void worker::note_tls_failure(connection& c, long status, bool handshaking) {
    char why[200];
    std::size_t n = 0;
    const int err = errno;
    if (status == transport_failed && c.tls && s_.tls->why)
        n = std::min(s_.tls->why(c.tls, why, sizeof why), sizeof why - 1);
    if (n == 0) {
        const char* what = status == transport_want_read || status == transport_want_write
                               ? "the handshake did not finish within the connect timeout"
                           : status == transport_closed ? "the server closed the connection during the handshake"
                           : status == transport_socket_error
                               ? (err == ECONNRESET ? "the connection was reset during the handshake"
                                                    : "the socket failed during the handshake")
                           : !c.tls && handshaking ? "the transport could not set up the connection"
                                                   : "the TLS layer failed without saying why";
        n = std::strlen(what);
        std::memcpy(why, what, n);
    }
    const std::string_view text(why, n);
    bool known = stats_.tls_failure_reasons.size() >= defaults::max_tls_failure_reasons;
    for (const std::string& seen : stats_.tls_failure_reasons) known = known || seen == text;
    if (!known) stats_.tls_failure_reasons.emplace_back(text);  // a handful per run: not per request
}

// Reads through the transport; a read that must wait for the socket to be writable is retried
// at the next readiness of either kind.
inline io_result worker::receive(connection& c, std::int64_t& stamped) {
    const std::size_t cap = defaults::worker_read_buffer_bytes;
    if (!c.tls)
        return s_.stamp_arrivals ? read_stamped(c.fd, read_buf_.get(), cap, stamped)
                                 : read_some(c.fd, read_buf_.get(), cap);
    const long n = s_.tls->read(c.tls, read_buf_.get(), cap);
    c.read_wants_write = n == transport_want_write;
    if (n > 0) return {io::ok, static_cast<std::size_t>(n), 0};
    if (n == transport_want_read || n == transport_want_write) return {io::again, 0, 0};
    if (n == transport_closed || n == 0) return {io::closed, 0, 0};
    if (n == transport_socket_error) return {io::error, 0, errno};
    return {io::tls, 0, 0};
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
    c.read_wants_write = false;
    if (c.fd < 0) return;
    if (was != connection::phase::connecting && was != connection::phase::handshaking) --open_;
    if (c.tls) s_.tls->close(c.tls);
    c.tls = nullptr;
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
