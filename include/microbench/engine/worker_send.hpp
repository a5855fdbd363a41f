// microbench/engine/worker_send.hpp — the sending half of a worker: what each request's bytes
// are (the run's one request, its target's from the table, or what a request callback wrote into
// its slot's room) and how a batch is written — one repeated request or each from its own bytes,
// straight to the socket or through the transport — resuming after a short write.
#pragma once

#include <sys/uio.h>

#include <cstring>
#include <string_view>

#include "worker.hpp"

namespace microbench {
namespace detail {

// Sends the requests in flight on `c`, connecting first if it has no descriptor.
inline void worker::send(std::uint32_t ci, std::int64_t now) {
    connection& c = conns_[ci];
    c.write_offset = 0;
    c.write_length = 0;
    for (std::uint32_t j = c.done; j < c.batch; ++j) c.write_length += request_of(c.requests[j]).size();
    c.written = 0;
    c.written_end = request_of(c.requests[0]).size();
    if (c.fd < 0) return open_connection(ci, now);
    c.state = connection::phase::writing;
    c.deadline_ns = c.oldest().start_ns + s_.timeout_ns;
    if (c.oldest().reused) stats_.keep_alive_requests += c.in_flight();
    try_write(ci);
    if (c.state == connection::phase::writing) watch(ci);
}

inline void worker::try_write(std::uint32_t ci) {
    connection& c = conns_[ci];
    while (c.write_offset < c.write_length) {
        io_result r = c.tls        ? transmit(c)
                      : own_bytes() ? write_targets(c)
                                    : write_repeated(c.fd, s_.request.data(), s_.request.size(), c.write_offset,
                                                     c.write_length);
        if (r.status == io::again) return;  // the edge-triggered EPOLLOUT (or EPOLLIN) brings us back
        if (r.status != io::ok) {
            const bool tls = r.status == io::tls;
            const failure reason = tls ? failure::tls : failure::write;
            // A keep-alive connection the server closed while idle: send again, once.
            if (c.served && !c.parser.started()) {
                ++stats_.server_closes;
                return resend_or_fail(ci, reason, now_ns());
            }
            // The write's own words, before a read replaces them (the requests will fail as tls).
            if (tls) note_tls_failure(c, transport_failed, false);
            // The server may have answered and then reset: what it sent is still readable.
            if (!on_readable(ci, true, reason)) return;
            return fail_in_flight(ci, reason, reason, true);
        }
        c.write_offset += r.bytes;
        stats_.bytes_sent += r.bytes;
        if (c.write_offset >= c.written_end) {
            const std::int64_t now = now_ns();
            while (c.written < c.batch && c.write_offset >= c.written_end) {
                c.requests[c.written++].written_ns = now;
                if (c.written < c.batch) c.written_end += request_of(c.requests[c.written]).size();
            }
        }
    }
    c.state = connection::phase::reading;
}

// With a request callback: the next `k` requests of `c` written into their slots' rooms, each
// slot's target the one the call left; how many were written. Fewer when a call wrote none (or
// erred, counted): then this worker issues no more, and what is in flight ends as usual.
inline std::uint32_t worker::write_requests(connection& c, std::uint32_t k) {
    const std::uint32_t targets = s_.table ? s_.table->size() : 1;
    for (std::uint32_t j = 0; j < k; ++j) {
        const std::size_t at = room_of(c.requests[j]);
        request_call call{room_.get() + at * s_.writer_capacity, s_.writer_capacity,
                          s_.worker_index + writes_++ * s_.workers, s_.worker_index, next_target(), {}};
        call.prepared = s_.table ? s_.table->at(call.target) : s_.request;
        const std::size_t n = s_.writer(call, s_.writer_user);
        if (n == 0 || n > s_.writer_capacity || call.target >= targets) {
            if (n != 0) ++stats_.request_fn_faults;
            stopping_ = true;  // what is in flight ends by its response, its timeout, or the duration's drain
            return j;
        }
        room_lengths_[at] = static_cast<std::uint32_t>(n);
        c.requests[j].target = call.target;
    }
    return k;
}

// With a request callback: what slot `from` holds moved to slot `to` (the same connection's).
inline void worker::move_room(const request_slot& from, const request_slot& to) {
    const std::size_t f = room_of(from), t = room_of(to);
    if (f == t) return;
    std::memmove(room_.get() + t * s_.writer_capacity, room_.get() + f * s_.writer_capacity, room_lengths_[f]);
    room_lengths_[t] = room_lengths_[f];
}

// With targets or a request callback: the batch's bytes from write_offset on, each request from
// its own bytes in place (one sendmsg, nothing copied). Request c.written, the first not written
// in full, ends at written_end.
inline io_result worker::write_targets(connection& c) {
    iovec parts[max_write_parts];
    int n = 0;
    for (std::uint32_t j = c.written; j < c.batch && n < max_write_parts; ++j) {
        const std::string_view r = request_of(c.requests[j]);
        const std::size_t skip = j == c.written ? c.write_offset - (c.written_end - r.size()) : 0;
        parts[n++] = iovec{const_cast<char*>(r.data() + skip), r.size() - skip};
    }
    return send_parts(c.fd, parts, n);
}

// Writes the rest of the batch through the transport, from the same bytes after a short write: as
// much of it as the copies of the request hold from where it stands (the batch is the request
// repeated, so any window of the copies is the batch's); with targets or a request callback, the
// rest of the request being written, from its own bytes.
inline io_result worker::transmit(connection& c) {
    std::string_view part;
    if (own_bytes()) {  // the rest of the first request not written in full, from its own bytes
        const std::string_view r = request_of(c.requests[c.written]);
        part = r.substr(c.write_offset - (c.written_end - r.size()));
    } else {  // the run's one request, or the copies of it that make a pipelined batch
        const std::string_view from = batch_copies_.empty() ? s_.request : std::string_view(batch_copies_);
        const std::size_t at = c.write_offset % from.size();
        part = from.substr(at, std::min(from.size() - at, c.write_length - c.write_offset));
    }
    const long n = s_.tls->write(c.tls, part.data(), part.size());
    if (n > 0) return {io::ok, static_cast<std::size_t>(n), 0};
    if (n == transport_want_read || n == transport_want_write) return {io::again, 0, 0};
    if (n == transport_closed) return {io::error, 0, EPIPE};
    if (n == transport_socket_error) return {io::error, 0, errno};
    return {io::tls, 0, 0};
}

}  // namespace detail
}  // namespace microbench
