// microbench/worker_receive.hpp — the receiving half of the worker: reads until drained,
// parses in place (stashing only a head split across reads), completes requests with ab's
// timings, and applies the rule for a keep-alive connection the server closed while idle.
#pragma once

#include "worker.hpp"

namespace microbench {
namespace detail {

// Reads until the socket is drained. A short read means drained — unless the peer also closed:
// its FIN came with the same edge and no further edge will announce it, so read on to EOF.
inline void worker::on_readable(std::uint32_t ci, bool peer_closed) {
    const std::size_t cap = defaults::worker_read_buffer_bytes;
    for (;;) {
        connection& c = conns_[ci];
        io_result r = read_some(c.fd, read_buf_.get(), cap);
        std::int64_t now = now_ns();
        if (r.status == io::again) return;
        if (r.status == io::closed) return on_eof(ci, now);
        if (r.status == io::error) {
            if (c.served && !c.parser.started()) {
                ++stats_.server_closes;
                return resend_or_fail(ci, failure::receive, now);
            }
            return fail_in_flight(ci, failure::receive, failure::receive, true);
        }
        stats_.bytes_received += r.bytes;
        if (!consume(ci, read_buf_.get(), r.bytes, now)) return;
        if (r.bytes < cap && !peer_closed) return;  // drained: the next arrival raises a new edge
    }
}

// Parses what arrived. False when the connection was closed or replaced meanwhile, so the
// caller must not read from it again in this round.
inline bool worker::consume(std::uint32_t ci, const char* data, std::size_t len, std::int64_t now) {
    connection& c = conns_[ci];
    const bool stashed = !c.stash.empty();
    if (stashed) c.stash.append(data, len);
    const std::string_view in = stashed ? std::string_view(c.stash) : std::string_view(data, len);
    std::size_t used = 0;
    MICROBENCH_ASSERT(c.in_flight() > 0);  // a connection is read only while it has requests in flight
    for (;;) {
        request_slot& slot = c.oldest();
        if (!slot.first_byte_ns && used < in.size()) slot.first_byte_ns = now;
        parse_result r = c.parser.parse(in.data() + used, in.size() - used);
        used += r.consumed;
        const checks* ck = s_.response_checks;
        if (ck && r.event == parse_event::headers) ck->on_headers(c.checked, c.parser);
        if (ck && !r.body.empty()) ck->on_body(c.checked, r.body);
        if (r.event == parse_event::need_more) break;
        if (r.event == parse_event::error) {
            fail_in_flight(ci, failure::parse, failure::receive, true);
            return false;
        }
        if (r.event == parse_event::headers && !looked_for_server_) {  // once: views die with the buffer
            looked_for_server_ = true;
            const header_view* server = c.parser.find_header("Server");
            if (server) stats_.server_software.assign(server->value.data(), server->value.size());
        }
        if (r.event != parse_event::complete) continue;
        // A response that came before the request was fully written leaves the rest of the
        // request on the wire: the connection cannot be reused.
        const bool server_closes = !c.parser.keep_alive();
        if (s_.keep_alive && !server_closes) ++stats_.keep_alive_responses;
        const bool reuse = s_.keep_alive && !server_closes && c.state == connection::phase::reading;
        complete_oldest(c, now, !ck || ck->on_complete(c.checked, c.parser.status(), c.parser.body_bytes()));
        c.parser.reset(s_.head);
        if (!reuse) {
            if (s_.keep_alive && server_closes) ++stats_.server_closes;
            if (c.in_flight() > 0) {
                resend_or_fail(ci, failure::receive, now);
                return false;
            }
            close_connection(c, false);
            issue(ci, now);
            return false;
        }
        if (c.in_flight() > 0) continue;
        // Batch done on a reusable connection. Bytes beyond it were never asked for: the
        // connection cannot be trusted, so start afresh.
        if (used < in.size()) close_connection(c, true);
        else c.stash.clear();
        issue(ci, now);
        return c.fd >= 0 && c.state == connection::phase::reading;
    }
    if (stashed) c.stash.erase(0, used);
    else c.stash.assign(in.data() + used, in.size() - used);
    return true;
}

// Ends the oldest request in flight with the response the parser just completed.
inline void worker::complete_oldest(connection& c, std::int64_t now, bool passed_checks) {
    const request_slot& q = c.oldest();
    const std::uint64_t body = c.parser.body_bytes();
    ++c.done;
    c.served = true;
    last_end_ns_ = now;
    if (s_.length_check && s_.reference_length) {
        // A plain load once the first response has set it: a compare-exchange per response would
        // take the shared cache line exclusively and bounce it between worker threads.
        auto length = static_cast<std::int64_t>(body);
        std::int64_t reference = s_.reference_length->load(std::memory_order_relaxed);
        if (reference < 0 && s_.reference_length->compare_exchange_strong(reference, length, std::memory_order_relaxed))
            reference = length;
        if (reference != length) return end_failed(failure::length);
    }
    std::int64_t total = now - q.start_ns;
    stats_.responses_total_ns.record(total);  // every whole response, passed or not
    if (!passed_checks) return end_failed(failure::check);
    int status = c.parser.status();
    ++stats_.requests_completed;
    ++stats_.status_counts[status < 1000 ? status : 0];
    if (status < 200 || status > 299) ++stats_.non_2xx;
    stats_.body_bytes += body;
    stats_.head_bytes += c.parser.head_bytes();
    std::int64_t connect = q.connected_ns - q.start_ns;
    std::int64_t waiting = q.written_ns && q.first_byte_ns > q.written_ns ? q.first_byte_ns - q.written_ns : 0;
    stats_.connect_ns.record(connect);
    stats_.waiting_ns.record(waiting);
    stats_.processing_ns.record(total - connect);
    stats_.total_ns.record(total);
    if (stats_.requests.size() < stats_.requests.capacity())  // reserved up front: never reallocates
        stats_.requests.push_back(request_timing{q.start_ns, connect, waiting, total - connect, total});
    note_ended();
}

inline void worker::on_eof(std::uint32_t ci, std::int64_t now) {
    connection& c = conns_[ci];
    if (c.parser.finish().event == parse_event::complete) {  // a body delimited by the close
        const checks* ck = s_.response_checks;
        complete_oldest(c, now, !ck || ck->on_complete(c.checked, c.parser.status(), c.parser.body_bytes()));
        if (s_.keep_alive) ++stats_.server_closes;
        c.parser.reset(s_.head);
        if (c.in_flight() > 0) return resend_or_fail(ci, failure::receive, now);
        close_connection(c, false);
        return issue(ci, now);
    }
    if (c.served && !c.parser.started()) {  // closed while idle between keep-alive requests
        ++stats_.server_closes;
        return resend_or_fail(ci, failure::receive, now);
    }
    fail_in_flight(ci, failure::receive, failure::receive, false);
}

}  // namespace detail
}  // namespace microbench
