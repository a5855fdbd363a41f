// microbench/stats/result.hpp — what a run measured, as plain data: counts, failures by reason,
// status codes, bytes, connections and four latency histograms (ab's Connect, Waiting,
// Processing, Total). Workers fill one each; merge() adds them after join. Reports read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "by_target.hpp"
#include "failure.hpp"
#include "histogram.hpp"

namespace microbench {

// How requests are spread over time at a fixed rate.
enum class arrivals : std::uint8_t {
    uniform,  // evenly spaced: 1/rate apart
    poisson,  // independent arrivals: exponential gaps averaging 1/rate, from a seeded generator
};

// The first response that failed the checks, as it came — its status, Content-Type, body length
// and first defaults::check_sample_bytes bytes — beside what the checks expected
// (checks::expected); status 0: none failed. Of several workers', the earliest.
struct check_failure_sample {
    int status = 0;
    std::string target;        // its request target (path and query)
    std::string content_type;  // "" when it had none
    std::uint64_t body_bytes = 0;
    std::string body;          // the body's first bytes
    bool cut = false;          // the body went on past them
    std::string expected;
    std::int64_t at_ns = 0;    // when it ended, from the run's start
};

// What a handshake negotiated, as ab reports it; empty strings and zeros where unknown.
struct tls_session {
    char protocol[16];     // "TLSv1.3"
    char cipher[64];       // "TLS_AES_256_GCM_SHA384"
    int server_key_bits;   // the server certificate's public key
    int secret_bits;       // the cipher's secret key
    char temp_key[96];     // "X25519 253 bits": the key exchange, as ab's Server Temp Key line
    char server_name[256]; // the name sent in SNI; empty when none was sent
};

// One completed request, kept only when a plan asks for them (ab -g).
struct request_timing {
    std::int64_t start_ns;  // monotonic; result::start_realtime_ns maps it to wall-clock time
    std::int64_t connect_ns, waiting_ns, processing_ns, total_ns;
};

// One interval of a run (plan::interval_ms): what was sent and what ended in it, across all
// workers. Response time is from the intended send time at a fixed rate, else the total time.
struct interval_stats {
    std::int64_t start_ns;     // from the run's start
    std::int64_t duration_ns;  // the interval's length (the last one ends with the run)
    std::uint64_t sent, ended, completed, failed;  // ended = completed + failed
    double target;             // at a fixed rate: requests the schedule meant to send in it (a count)
    std::uint64_t latency_count;  // response times recorded: the completed requests
    std::int64_t p50_ns, p90_ns, p99_ns, max_ns;  // response time
    std::int64_t lag_p99_ns, lag_max_ns;          // schedule lag, at a fixed rate

    // Requests that ended per second in this interval.
    double rate() const {
        return duration_ns > 0 ? static_cast<double>(ended) * 1e9 / static_cast<double>(duration_ns) : 0.0;
    }
    // The schedule's target per second in this interval: what rate() is measured against.
    double target_rate() const { return duration_ns > 0 ? target * 1e9 / static_cast<double>(duration_ns) : 0.0; }
};

// One interval's histograms in histogram_codec's encoding (exact counts, min, max and sum):
// response time (the total time in a closed loop) and, at a fixed rate, service time and schedule
// lag (empty histograms in a closed loop).
struct interval_histogram_set {
    std::string response, service, schedule_lag;
};

// One stage of a staged rate (plan::stages): its shape, and what the requests whose intended time
// fell in it got (sent - completed - failed were unfinished).
struct stage_result {
    std::int64_t start_ms = 0, duration_ms = 0;  // from the run's start
    double from_rate = 0, to_rate = 0;           // requests/s at its start and at its end
    double intended = 0;                         // requests the schedule meant to send in it
    std::uint64_t sent = 0, completed = 0, failed = 0;
    // Response time from the intended time, read from buckets within 10 % (as by_target's); -1:
    // not known (nothing completed in it, or a merge of several results).
    std::int64_t p50_ns = 0, p99_ns = 0;
};

struct result {
    std::uint64_t requests_ended = 0;      // completed + failed: every request exactly once
    std::uint64_t requests_completed = 0;  // a whole response arrived and passed (any status)
    std::uint64_t requests_failed = 0;     // sum of failures[]
    std::uint64_t failures[failure_count] = {};
    std::uint64_t unfinished = 0;          // in flight when the run stopped (duration, cancel)
    std::uint64_t non_2xx = 0;             // completed with a status outside 200–299
    std::uint64_t status_counts[1000] = {};  // completed, by status code
    std::uint64_t keep_alive_requests = 0; // sent on a connection that had already served one
    std::uint64_t keep_alive_responses = 0;  // let the connection stay open (what ab's -k counts)
    std::uint64_t retries = 0;             // met a closed keep-alive connection, sent again once
    std::uint64_t connects = 0;            // connections established
    std::uint64_t server_closes = 0;       // keep-alive connections the server closed
    // Connects that met a local shortage and waited for another connection to close (not
    // failures): no free local port (widen ip_local_port_range or add -B addresses), no free
    // descriptor (ulimit -n), no kernel memory or buffers.
    std::uint64_t port_waits = 0;
    std::uint64_t descriptor_waits = 0;
    std::uint64_t memory_waits = 0;
    // Over a Unix socket: connects that found the server's listen queue full and waited (the
    // server's overload, not a local shortage; one still full at the connect timeout fails as connect).
    std::uint64_t backlog_waits = 0;
    std::uint32_t concurrency_requested = 0;
    std::uint32_t concurrency_peak = 0;    // most connections open at once
    std::uint64_t bytes_sent = 0;
    std::uint64_t bytes_received = 0;      // everything read: heads, bodies, framing
    std::uint64_t body_bytes = 0;          // decoded bodies of every whole response, failed ones too (ab's HTML
                                           // transferred)
    std::uint64_t head_bytes = 0;          // response heads of every whole response
    std::uint64_t first_body_length = 0;   // of the run's first response that passed its checks (ab's Document
                                           // Length), or when none did, of the first whole one
    std::string server_software;           // Server header of the first response (ab's Server Software)
    std::int64_t elapsed_ns = 0;           // run start to last request end
    std::int64_t start_ns = 0;             // run start, monotonic
    std::int64_t start_realtime_ns = 0;    // the same instant on the wall clock
    std::int64_t start_requested_realtime_ns = 0;  // when the plan asked it to start (plan::start_at_unix_ms);
                                                   // 0: at once
    std::vector<request_timing> requests;  // per request, when the plan records them (by start time)
    bool cancelled = false;

    // Nanoseconds, per completed request, as ab defines them: Connect (0 on a reused
    // connection), Waiting (request written → first response byte), Processing (Total − Connect),
    // Total (start → last byte).
    histogram connect_ns, waiting_ns, processing_ns, total_ns;
    // Total time of every whole response, including those that then failed a check or ab's length
    // rule: with total_ns (successful ones only) it shows whether failures are fast or slow.
    histogram responses_total_ns;
    // At a fixed rate (plan::rate): per completed request, response time — from when the schedule
    // said to send it to its last byte, what a user waiting in line sees — and schedule lag, from
    // that intended time to the actual send. total_ns stays the service time (actual send → last
    // byte). Empty in a closed loop.
    histogram response_ns, schedule_lag_ns;
    double rate_target = 0;              // requests/s asked for (under stages, their average); 0: closed loop
    std::vector<stage_result> stages;    // under plan::stages: one row each
    arrivals rate_arrivals = arrivals::uniform;
    std::uint64_t rate_seed = 0;         // of Poisson arrivals
    std::int64_t rate_batch_lag_ns = 0;  // plan::max_batch_lag_us in effect: how much of the lag batching may add
    std::uint64_t connection_waits = 0;  // requests sent late: their time came while every connection was busy
    std::uint64_t schedule_missed = 0;   // requests whose time came before the duration ended, never sent
    // With a request callback (plan::on_request): its calls that returned a length above the room
    // or a target outside the targets; each stopped its worker's requests.
    std::uint64_t request_fn_faults = 0;
    // Where the run connected when not to the URL's host and port: "host:port" ("[::1]:8443") by a
    // plan::connect_to rule that matched, "unix:PATH" over plan::unix_socket; empty: the URL's.
    // The runner sets it; merge() leaves it alone.
    std::string connected_to;
    // One row per interval when the plan asks for them (plan::interval_ms); the runner fills it,
    // merge() leaves it alone.
    std::vector<interval_stats> intervals;
    // With plan::interval_histograms: each row's histograms, one set per row of `intervals`.
    std::vector<interval_histogram_set> interval_histograms;
    std::int64_t interval_ns = 0;

    // Over TLS (a transport): handshakes made, how many resumed a session, each one's time from
    // the TCP connect to its end (ab's Connect column counts both), what the first one
    // negotiated (tls_used: the transport said; its protocol is not empty), and the first
    // distinct reasons the TLS layer gave for `tls` failures.
    std::uint64_t tls_handshakes = 0;
    std::uint64_t tls_resumed = 0;
    std::uint64_t tls_no_session = 0;  // of the full ones, those made with no session at hand to offer
    std::uint64_t tls_handshake_failures = 0;  // of the `tls` failures, those of requests whose handshake failed
    histogram tls_handshake_ns;
    bool tls_used = false;
    tls_session tls{};
    std::vector<std::string> tls_failure_reasons;  // at most defaults::max_tls_failure_reasons
    check_failure_sample first_failed_check;

    // Per target (plan::by_target, or the factorial check of each target's n): the runner fills
    // it after the run; merge() leaves it alone.
    target_breakdown by_target;

    std::uint64_t failed(failure f) const { return failures[static_cast<int>(f)]; }

    // Adds a worker's result. Elapsed is the longest; peaks add up (an upper bound); the run's
    // first body length and wall-clock anchor are the runner's to set, not merged. Returns the
    // values the histograms dropped: those above this result's highest trackable value (none
    // between results whose histograms are configured alike).
    std::uint64_t merge(const result& o) {
        requests_ended += o.requests_ended;
        requests_completed += o.requests_completed;
        requests_failed += o.requests_failed;
        for (int i = 0; i < failure_count; ++i) failures[i] += o.failures[i];
        unfinished += o.unfinished;
        non_2xx += o.non_2xx;
        for (int i = 0; i < 1000; ++i) status_counts[i] += o.status_counts[i];
        keep_alive_requests += o.keep_alive_requests;
        keep_alive_responses += o.keep_alive_responses;
        retries += o.retries;
        request_fn_faults += o.request_fn_faults;
        connects += o.connects;
        server_closes += o.server_closes;
        port_waits += o.port_waits;
        descriptor_waits += o.descriptor_waits;
        memory_waits += o.memory_waits;
        backlog_waits += o.backlog_waits;
        concurrency_peak += o.concurrency_peak;
        bytes_sent += o.bytes_sent;
        bytes_received += o.bytes_received;
        body_bytes += o.body_bytes;
        head_bytes += o.head_bytes;
        if (elapsed_ns < o.elapsed_ns) elapsed_ns = o.elapsed_ns;
        cancelled = cancelled || o.cancelled;
        if (server_software.empty()) server_software = o.server_software;
        requests.insert(requests.end(), o.requests.begin(), o.requests.end());
        std::uint64_t dropped = connect_ns.merge(o.connect_ns) + waiting_ns.merge(o.waiting_ns) +
                                processing_ns.merge(o.processing_ns) + total_ns.merge(o.total_ns) +
                                responses_total_ns.merge(o.responses_total_ns) + response_ns.merge(o.response_ns) +
                                schedule_lag_ns.merge(o.schedule_lag_ns) + tls_handshake_ns.merge(o.tls_handshake_ns);
        tls_handshakes += o.tls_handshakes;
        tls_resumed += o.tls_resumed;
        tls_no_session += o.tls_no_session;
        tls_handshake_failures += o.tls_handshake_failures;
        if (!tls_used && o.tls_used) tls = o.tls;
        tls_used = tls_used || o.tls_used;
        for (const std::string& why : o.tls_failure_reasons) note_tls_failure(why);
        if (o.first_failed_check.status &&
            (!first_failed_check.status || o.first_failed_check.at_ns < first_failed_check.at_ns))
            first_failed_check = o.first_failed_check;
        connection_waits += o.connection_waits;
        schedule_missed += o.schedule_missed;
        return dropped;
    }

    // Keeps `why` among the first distinct reasons for `tls` failures.
    void note_tls_failure(const std::string& why) {
        if (tls_failure_reasons.size() >= defaults::max_tls_failure_reasons) return;
        for (const std::string& seen : tls_failure_reasons)
            if (seen == why) return;
        tls_failure_reasons.push_back(why);
    }

    // Correct responses per second (goodput), next to ab's requests per second.
    double goodput_per_second() const {
        return elapsed_ns > 0 ? static_cast<double>(requests_completed) * 1e9 / static_cast<double>(elapsed_ns) : 0.0;
    }
    // Requests that ended per second, failed ones included (ab's figure).
    double requests_per_second() const {
        return elapsed_ns > 0 ? static_cast<double>(requests_ended) * 1e9 / static_cast<double>(elapsed_ns) : 0.0;
    }
    // False when a histogram's counters could not be mapped (histogram::allocated): a run refuses to
    // start without them rather than lose what they would hold.
    bool histograms_allocated() const {
        for (const histogram* h : {&connect_ns, &waiting_ns, &processing_ns, &total_ns, &responses_total_ns,
                                   &response_ns, &schedule_lag_ns, &tls_handshake_ns})
            if (!h->allocated()) return false;
        return true;
    }
};

}  // namespace microbench
