// microbench/engine/worker_receive.hpp — the receiving half of the worker: reads until drained (also
// while a batch is still being written), parses in place (stashing only what a head split
// across reads still needs), completes requests with ab's timings — checks first, then ab's
// length rule — and applies the rule for a keep-alive connection the server closed while idle.
#pragma once

#include "worker.hpp"

namespace microbench {
namespace detail {

// Reads until the socket is drained. A short read means drained — unless the peer also closed:
// its FIN came with the same edge and no further edge will announce it, so read on to EOF.
// Over a transport a short read does not mean drained: it reads on until the transport says so.
// False when the connection was closed or replaced meanwhile: the caller must leave it alone.
// `broken` is the reason a read error or an unexpected EOF gives the requests in flight.
inline bool worker::on_readable(std::uint32_t ci, bool peer_closed, failure broken) {
    const std::size_t cap = defaults::worker_read_buffer_bytes;
    for (;;) {
        connection& c = conns_[ci];
        std::int64_t stamped = 0;
        io_result r = receive(c, stamped);
        std::int64_t now = arrival_time(stamped, now_ns());
        // Never before the oldest request in flight was sent, whatever the wall clock did meanwhile.
        if (stamped && c.in_flight()) now = std::max(now, c.oldest().start_ns);
        if (s_.stamp_arrivals && r.status == io::ok) {  // stamps work while every read has come with one
            stamps_work_ = (stamps_work_ || !stamps_known_) && stamped != 0;
            stamps_known_ = true;
        }
        if (r.status == io::again) return true;
        if (r.status == io::closed) {
            on_eof(ci, now, broken);
            return false;
        }
        if (r.status == io::error || r.status == io::tls) {
            const failure reason = r.status == io::tls ? failure::tls : broken;
            if (c.served && !c.parser.started()) {
                ++stats_.server_closes;
                resend_or_fail(ci, reason, now);
            } else {
                if (r.status == io::tls) note_tls_failure(c, transport_failed, false);
                fail_in_flight(ci, reason, reason, true);
            }
            return false;
        }
        stats_.bytes_received += r.bytes;
        if (!consume(ci, read_buf_.get(), r.bytes, now)) return false;
        if (r.bytes < cap && !peer_closed && !conns_[ci].tls) {  // drained: the next arrival raises a new edge
            if (conns_[ci].parser.started()) watch(ci);  // part-way through a response
            return true;
        }
    }
}

// Parses what arrived. A head split across reads is completed in the connection's stash, which
// takes from each read only what a head can still need (max_header_bytes + 1: one more byte
// than an acceptable head, so an oversized one is refused); the rest is parsed in place.
inline bool worker::consume(std::uint32_t ci, const char* data, std::size_t len, std::int64_t now) {
    connection& c = conns_[ci];
    const std::size_t stash_cap = s_.limits.max_header_bytes + 1;
    while (!c.stash.empty()) {
        const std::size_t take = std::min(len, stash_cap - std::min(stash_cap, c.stash.size()));
        c.stash.append(data, take);
        data += take;
        len -= take;
        std::size_t used = 0;
        if (!parse_in(ci, c.stash, len > 0, now, used)) return false;
        c.stash.erase(0, used);
        if (len == 0) return true;
        MICROBENCH_ASSERT(take > 0 || c.stash.empty());  // a full stash is a complete head or an error
    }
    std::size_t used = 0;
    if (!parse_in(ci, std::string_view(data, len), false, now, used)) return false;
    c.stash.assign(data + used, len - used);
    return true;
}

// Parses `in` for the requests in flight on `ci`; `used` is how much of it was consumed, and
// `more_follows` says whether bytes come after it. False when the connection was closed or
// replaced meanwhile, so the caller must not read from it again in this round.
inline bool worker::parse_in(std::uint32_t ci, std::string_view in, bool more_follows, std::int64_t now,
                             std::size_t& used) {
    connection& c = conns_[ci];
    MICROBENCH_ASSERT(c.in_flight() > 0);  // a connection is read only while it has requests in flight
    for (;;) {
        request_slot& slot = c.oldest();
        if (!slot.first_byte_ns && used < in.size()) slot.first_byte_ns = now;
        if (s_.writer)  // a callback's request: a HEAD's response has no body
            c.parser.head_request(request_of(slot).substr(0, 5) == "HEAD ");
        else if (s_.table && !s_.table->flags.empty())  // targets with methods of their own: likewise
            c.parser.head_request(s_.table->flags[slot.target] & request_table::head_flag);
        parse_result r = c.parser.parse(in.data() + used, in.size() - used);
        used += r.consumed;
        const checks* ck = s_.response_checks;
        if (ck && r.event == parse_event::headers) {
            ck->on_headers(c.checked, c.parser);
            if (s_.factorials) c.checked.factorial = s_.factorials->of(slot.target);
            if (capturing()) {
                const header_view* type = c.parser.find_header("Content-Type");
                seen_[ci].clear(type ? type->value : std::string_view{});
            }
        }
        if (ck && !r.body.empty()) {
            ck->on_body(c.checked, r.body);
            if (capturing()) seen_[ci].add(r.body);
        }
        if (r.event == parse_event::need_more) return true;
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
        // A response that came before its request was fully written (an early 413) leaves the
        // rest of that request unsent: the connection cannot be reused.
        const bool fully_sent = c.written > c.done;
        const bool server_closes = !c.parser.keep_alive();
        if (s_.keep_alive && !server_closes) ++stats_.keep_alive_responses;
        const bool reuse = s_.keep_alive && !server_closes && fully_sent;
        complete_oldest(c, now, !ck || ck->on_complete(c.checked, c.parser.status(), c.parser.body_bytes()));
        c.parser.reset(s_.head);
        if (!reuse) {
            if (s_.keep_alive && server_closes) ++stats_.server_closes;
            if (c.in_flight() > 0) {
                resend_or_fail(ci, failure::receive, now);
                return false;
            }
            close_connection(c, !fully_sent);  // abandoning unsent bytes: reset, do not linger
            issue(ci, now);
            return false;
        }
        if (c.in_flight() > 0) continue;
        // Batch done on a reusable connection. Bytes beyond it were never asked for: the
        // connection cannot be trusted, so start afresh.
        const bool extra = used < in.size() || more_follows || (c.tls && s_.tls->pending && s_.tls->pending(c.tls));
        if (extra) close_connection(c, true);
        const std::uint32_t closes = c.closes;
        issue(ci, now);  // may close, or meet a closed connection and open another, or wait (fixed rate)
        return !extra && c.closes == closes && c.fd >= 0 && c.in_flight() > 0;
    }
}

// Ends the oldest request in flight with the response the parser just completed. Its total time
// and bytes count whether or not it passes (as ab counts them). Checks come first: a response that
// failed them is `check`, and only one that passed them may set or be compared with ab's reference
// length; the first one that failed sets the length shown when none passed.
inline void worker::complete_oldest(connection& c, std::int64_t now, bool passed_checks) {
    const request_slot& q = c.oldest();
    const std::uint64_t body = c.parser.body_bytes();
    ++c.done;
    c.served = true;
    last_end_ns_ = c.freed_ns = now;
    const std::int64_t total = now - q.start_ns;
    stats_.responses_total_ns.record_clamped(total);  // every whole response, passed or not
    stats_.body_bytes += body;
    stats_.head_bytes += c.parser.head_bytes();
    if (!passed_checks) {
        if (s_.failed_length && s_.failed_length->load(std::memory_order_relaxed) < 0) {
            std::int64_t unset = -1;
            s_.failed_length->compare_exchange_strong(unset, static_cast<std::int64_t>(body),
                                                      std::memory_order_relaxed);
        }
        const auto ci = static_cast<std::size_t>(&c - conns_.data());
        if (s_.records) s_.records->wrong(q.target, c.parser.status(), seen_[ci]);  // the lowest n's first
        if (!stats_.first_failed_check.status) keep_failed_check(c, q, seen_[ci], now);
        return end_failed(failure::check, q);
    }
    std::atomic<std::int64_t>* shared_length = s_.target_lengths ? &s_.target_lengths[q.target] : s_.reference_length;
    if (s_.length_check && shared_length) {  // with targets, each target's own first length
        // A plain load once the first response has set it: a compare-exchange per response would
        // take the shared cache line exclusively and bounce it between worker threads.
        auto length = static_cast<std::int64_t>(body);
        std::int64_t reference = shared_length->load(std::memory_order_relaxed);
        if (reference < 0 && shared_length->compare_exchange_strong(reference, length, std::memory_order_relaxed))
            reference = length;
        if (reference != length) return end_failed(failure::length, q);
    }
    int status = c.parser.status();
    ++stats_.requests_completed;
    ++stats_.status_counts[status < 1000 ? status : 0];
    if (status < 200 || status > 299) ++stats_.non_2xx;
    if (s_.records) s_.records->completed(q.target, status, total);
    std::int64_t connect = q.connected_ns - q.start_ns;
    std::int64_t waiting = q.written_ns && q.first_byte_ns > q.written_ns ? q.first_byte_ns - q.written_ns : 0;
    // Clamped to the histograms' range (1 h), so their counts always equal the completed requests.
    stats_.connect_ns.record_clamped(connect);
    stats_.waiting_ns.record_clamped(waiting);
    stats_.processing_ns.record_clamped(total - connect);
    stats_.total_ns.record_clamped(total);
    if (fixed_rate()) {  // response time from the schedule's time; the lag before the actual send
        stats_.response_ns.record_clamped(now - q.intended_ns);
        stats_.schedule_lag_ns.record_clamped(q.start_ns - q.intended_ns);
        if (s_.stage_tallies) {
            stage_tally& t = tally_of(q.intended_ns);
            ++t.completed;
            ++t.latency[target_buckets::of(now - q.intended_ns)];
        }
    }
    intervals_.completed(now, fixed_rate() ? now - q.intended_ns : total, q.start_ns - q.intended_ns, fixed_rate());
    if (stats_.requests.size() < stats_.requests.capacity())  // reserved up front: never reallocates
        stats_.requests.push_back(request_timing{q.start_ns, connect, waiting, total - connect, total});
    note_ended();
}

// The requests in flight met a connection the server closed before answering them: each goes
// again once on a new connection — a fully sent one only if its method is safe to repeat — and
// the others fail with `reason`.
inline void worker::resend_or_fail(std::uint32_t ci, failure reason, std::int64_t now) {
    connection& c = conns_[ci];
    const std::uint32_t written = c.written;
    close_connection(c, false);
    c.parser.reset(s_.head);
    std::uint32_t kept = 0;
    for (std::uint32_t j = c.done; j < c.batch; ++j) {
        request_slot q = c.requests[j];
        bool may_resend = s_.resend_sent;
        if (s_.writer) {  // a callback's request: the method it starts with decides
            const std::string_view r = request_of(c.requests[j]);
            may_resend = s_.resend_any || idempotent(r.substr(0, r.find(' ')));
        } else if (s_.table && !s_.table->flags.empty()) {  // a target's method decides
            may_resend = !(s_.table->flags[q.target] & request_table::keep_flag);
        }
        if (q.retried || (j < written && !may_resend)) {
            end_failed(reason, q);
            continue;
        }
        ++stats_.retries;
        if (s_.writer) move_room(c.requests[j], c.requests[kept]);
        c.requests[kept++] = request_slot{q.start_ns, 0, 0, 0, true, false, q.target, q.intended_ns};
    }
    c.batch = kept;
    c.done = 0;
    if (kept == 0) next_ready_.push_back(ci);
    else send(ci, now);
}

// Keeps this worker's first response that failed the checks as it came, beside what they expected.
inline void worker::keep_failed_check(const connection& c, const request_slot& q, const answer_capture& seen,
                                      std::int64_t now) {
    check_failure_sample& k = stats_.first_failed_check;
    k.status = c.parser.status();
    k.target.assign(request_target(request_of(q)));
    k.content_type.assign(seen.type, seen.type_size);
    k.body_bytes = c.parser.body_bytes();
    k.body.assign(seen.bytes, seen.size);
    k.cut = seen.cut;
    k.expected = s_.response_checks->expected(c.checked.factorial);
    k.at_ns = now - start_ns_;
}

inline void worker::on_eof(std::uint32_t ci, std::int64_t now, failure broken) {
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
        return resend_or_fail(ci, broken, now);
    }
    fail_in_flight(ci, broken, broken, false);
}

}  // namespace detail
}  // namespace microbench
