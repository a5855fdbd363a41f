// microbench/engine/worker_setup.hpp — what the runner gives a worker: the target and the source
// addresses, the request bytes (one request, or a table of them when the run has targets), its
// share of the connections, requests and rate, its limits and timeouts, and the few things it
// shares with the run (the start gate, the cancel token, the reference lengths, its progress
// counter and the transport). Plain data; the worker reads it only.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../http/checks.hpp"
#include "../http/response_parser.hpp"
#include "../stats/by_target.hpp"
#include "../stats/result.hpp"
#include "intervals.hpp"
#include "net.hpp"
#include "plan.hpp"
#include "rate_curve.hpp"
#include "start_gate.hpp"
#include "transport.hpp"

namespace microbench {
namespace detail {

// A run's requests when it has targets: each target's bytes back to back, built once before the
// run and only read while it runs.
struct request_table {
    std::string bytes;
    std::vector<std::size_t> ends;  // where each target's request ends in `bytes`
    // When targets have methods of their own: per target, head_flag (a HEAD: its response has no
    // body) and keep_flag (not sent again after a keep-alive close: not idempotent). Empty: every
    // target has the plan's method.
    std::vector<std::uint8_t> flags;
    static constexpr std::uint8_t head_flag = 1, keep_flag = 2;

    std::uint32_t size() const { return static_cast<std::uint32_t>(ends.size()); }
    std::string_view at(std::uint32_t i) const {
        const std::size_t from = i ? ends[i - 1] : 0;
        return {bytes.data() + from, ends[i] - from};
    }
};

// What one stage's requests got in one worker, by the stage their intended time falls in.
struct stage_tally {
    std::uint64_t sent = 0, completed = 0, failed = 0;
    std::uint64_t latency[target_buckets::count] = {};  // response times, as by_target keeps them
};

class target_records;
struct target_factorials;

// Everything a worker needs, prepared by the runner.
struct worker_setup {
    endpoint target;
    const endpoint* sources = nullptr;  // -B: connection k binds to sources[(first_connection + k) % source_count]
    std::uint32_t source_count = 0;     // 0: any local address
    std::uint32_t first_connection = 0; // this worker's first connection's number in the run
    std::string_view request;  // the runner's one copy, sent `pipeline` times back to back
    const request_table* table = nullptr;  // with targets: the requests, picked by index; null: `request`
    // Its k-th request: with targets, to target (index + k·workers) mod N; a request callback's index.
    std::uint32_t worker_index = 0, workers = 1;
    request_fn writer = nullptr;      // plan::on_request: each request written into its slot's room
    void* writer_user = nullptr;
    std::size_t writer_capacity = 0;  // each slot's room, with a writer
    bool resend_any = false;          // with a writer: any method may go again (plan::resend_non_idempotent)
    bool random_order = false;                    // with targets: each picked from order_seed instead
    std::uint64_t order_seed = 0;                 // this worker's own
    const std::uint32_t* shuffled = nullptr;      // each once at random: the targets' order; null: as listed
    std::uint32_t connections = 1;
    std::uint64_t quota = 0;  // requests to issue; 0: until stopped
    std::uint32_t pipeline = 1;
    bool keep_alive = true;
    bool head = false;
    bool resend_sent = true;  // a fully sent request may go again after a keep-alive close
    bool length_check = true;
    const checks* response_checks = nullptr;  // null: no checks; shared, immutable during the run
    std::uint64_t record_requests = 0;  // per-request timings to keep (allocated up front)
    int socket_buffer_bytes = 0;        // SO_SNDBUF/SO_RCVBUF, 0 = the kernel's
    std::int64_t duration_ns = 0;       // 0: no time limit
    double rate_interval_ns = 0;        // at a fixed rate: this worker's time between requests; 0: closed loop
    double rate_offset_ns = 0;          // its first request's time after the start (workers stagger)
    const rate_curve* curve = nullptr;  // under stages: the run's; the interval and offset then count requests
    std::vector<stage_tally>* stage_tallies = nullptr;  // under stages: this worker's, one per stage
    arrivals rate_arrivals = arrivals::uniform;
    std::uint64_t rate_seed = 0;        // this worker's own, for Poisson arrivals
    std::int64_t batch_lag_ns = 0;      // plan::max_batch_lag_us: how late a wake may be to send several due
                                        // requests at once
    bool stamp_arrivals = false;        // read responses with kernel arrival times and sleep through to sends
                                        // (worker_rate.hpp)
    interval_ring* intervals = nullptr; // per-interval statistics; null: none
    std::int64_t interval_ns = 0;
    std::int64_t drain_ns = 0;
    std::int64_t timeout_ns = 0;
    std::int64_t connect_timeout_ns = 0;
    response_limits limits;
    start_gate* gate = nullptr;            // gives the run's start time, or tells it to give up
    const cancel_token* cancel = nullptr;  // the user's
    std::atomic<std::int64_t>* reference_length = nullptr;  // -1 until the first response sets it
    std::atomic<std::int64_t>* target_lengths = nullptr;    // with targets: one reference length each
    target_records* records = nullptr;            // plan::by_target: what each target got; null: not kept
    const target_factorials* factorials = nullptr;  // the n! each target's responses must be; null: the checks' own
    std::atomic<std::int64_t>* failed_length = nullptr;     // -1 until the first response that failed a check sets it
    std::atomic<std::uint64_t>* ended_counter = nullptr;    // for progress; written only here
    std::atomic<std::uint64_t>* failed_counter = nullptr;   // the same, of the failed ones
    const transport* tls = nullptr;  // carries every connection (a handshake, then its read and write);
                                     // null: plain bytes
    const char* server_name = "";    // the URL's host, given to the transport
};

}  // namespace detail
}  // namespace microbench
