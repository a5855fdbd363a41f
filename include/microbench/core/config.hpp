// microbench/core/config.hpp — every user-tunable default in one place, and the assertion hook.
// Defaults are plain constants; objects copy them at construction, so changing one here changes
// the library's behaviour everywhere. Nothing here allocates or does I/O except a failed assert.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// Programmer errors (a broken precondition, never bad input) go through MICROBENCH_ASSERT.
// Define it before including microbench to route them into your own handler.
#ifndef MICROBENCH_ASSERT
#define MICROBENCH_ASSERT(cond)                                                     \
    ((cond) ? static_cast<void>(0)                                                  \
            : ::microbench::detail::assert_failed(#cond, __FILE__, __LINE__))
#endif

namespace microbench {
namespace detail {

[[noreturn]] inline void assert_failed(const char* cond, const char* file, int line) {
    std::fprintf(stderr, "microbench: assertion failed: %s (%s:%d)\n", cond, file, line);
    std::abort();
}

}  // namespace detail

namespace defaults {

// Response parsing. Status line + header fields + the blank line must fit in this many bytes;
// chunk-extension lines and trailers are held to the same bound. 16 KiB is twice nginx's
// default large_client_header_buffers and far above any real API response head.
constexpr std::size_t max_header_bytes = 16 * 1024;
constexpr std::size_t max_header_count = 64;

// Latency histograms record nanoseconds. Lowest discernible 1 ns keeps loopback latencies
// (tens of µs) at full 3-digit precision; 1 hour is above any timeout we accept. Define
// MICROBENCH_HISTOGRAM_DIGITS (1–5) before including microbench to change the precision of
// every histogram: 2 on a small device gives 1 % and 36 KiB of counters instead of 264 KiB.
#ifndef MICROBENCH_HISTOGRAM_DIGITS
#define MICROBENCH_HISTOGRAM_DIGITS 3
#endif
static_assert(MICROBENCH_HISTOGRAM_DIGITS >= 1 && MICROBENCH_HISTOGRAM_DIGITS <= 5,
              "MICROBENCH_HISTOGRAM_DIGITS is 1 to 5");
constexpr std::int64_t histogram_lowest_discernible_ns = 1;
constexpr std::int64_t histogram_highest_trackable_ns = 3600LL * 1000 * 1000 * 1000;
constexpr int histogram_significant_figures = MICROBENCH_HISTOGRAM_DIGITS;

// Requests.
constexpr const char* content_type = "text/plain";  // ab's default for -p/-u bodies
constexpr std::uint16_t http_port = 80;

// Runs (ab's defaults where ab has one).
constexpr std::uint64_t requests = 1;      // ab -n
constexpr std::uint32_t concurrency = 1;   // ab -c
constexpr std::uint32_t threads = 1;
constexpr bool keep_alive = true;          // HTTP/1.1's default; ab needs -k
constexpr std::int64_t timeout_ms = 30'000;  // ab -s
constexpr std::int64_t drain_ms = 1'000;   // a duration run waits this long for requests in flight
// Receive buffer shared by a worker's connections: reads land here and are parsed in place;
// only a response head split across reads is kept per connection.
constexpr std::size_t worker_read_buffer_bytes = 256 * 1024;
// Readiness events a worker takes from epoll per wait.
constexpr int worker_event_batch = 256;
// A worker finds timed-out requests by scanning its connections every timeout/20, bounded to
// this range; the scan is also the longest a worker sleeps, so a cancel is seen within it.
constexpr std::int64_t deadline_scan_min_ns = 1'000'000;
constexpr std::int64_t deadline_scan_max_ns = 50'000'000;
// A connect that met a local shortage (no free port, descriptor or buffer) is tried again when
// another connection closes, or after this back-off, doubling up to the maximum.
constexpr std::int64_t local_retry_min_ns = 1'000'000;
constexpr std::int64_t local_retry_max_ns = 64'000'000;
// At a fixed rate with keep-alive, a worker whose next send is at most this far off sleeps
// through to it and reads the responses that came meanwhile with their kernel arrival times.
constexpr std::int64_t sleep_through_max_ns = 2'000'000;
// The calling thread polls the workers' counters this often for progress callbacks.
constexpr std::int64_t progress_poll_ms = 10;

// Per-interval statistics: every second at a fixed rate unless the plan says otherwise, and
// never finer than 10 ms (each interval costs the calling thread a merge of the workers' slots).
constexpr std::int64_t interval_ms_at_rate = 1'000;
constexpr std::int64_t batch_lag_us = 50;        // plan::max_batch_lag_us's default (measured: bench/open_model.py)
constexpr std::int64_t batch_lag_limit_us = 10'000;  // plan::max_batch_lag_us at most
constexpr std::int64_t min_interval_ms = 10;

// What a plan may ask for before validate() refuses it, naming the knob and this range — the one
// place these limits live (the C API and the command line check through validate() or name
// these). Memory stays bounded: request slots are concurrency × pipeline (48 bytes each),
// per-request timings (ab -g) 40 bytes each. Times stay far inside 64-bit nanoseconds.
constexpr std::uint32_t max_concurrency = 1'000'000;
constexpr std::uint32_t max_threads = 1024;
constexpr std::uint32_t max_pipeline = 256;
constexpr std::uint64_t max_requests_in_flight = 1'000'000;
// A request callback's room for each request in flight (plan::on_request), and all of it.
constexpr std::size_t request_capacity = 4096, min_request_capacity = 16, max_request_capacity = std::size_t{1} << 20;
constexpr std::uint64_t max_request_room_bytes = std::uint64_t{1} << 30;
constexpr std::uint64_t max_recorded_requests = 10'000'000;
constexpr std::uint64_t max_targets = 1'000'000;  // the URLs a URL's ranges may stand for
constexpr std::size_t max_target_bytes = std::size_t{1} << 30;  // their requests together (each with its body)
constexpr std::size_t max_target_rows = 1000;   // plan::by_target: rows a result keeps, the rest folded into one
constexpr std::size_t max_verdict_runs = 64;   // the factorial verdict's runs of one outcome over n
constexpr std::size_t answer_bytes = 64;       // of a wrong answer's body, kept to show it in the verdict
constexpr std::size_t check_sample_bytes = 200; // of the first response that failed a check, kept to show it
constexpr std::size_t check_sample_type_bytes = 64;  // and of its Content-Type
constexpr std::size_t max_regex_bytes = 4096;         // a body check's regular expression (body_regex.hpp)
constexpr std::size_t max_regex_steps = 1000;         // and its automaton, its counts written out
constexpr std::size_t max_regex_body_bytes = std::size_t{1} << 20;  // a body it reads; a longer one fails
constexpr std::int64_t max_timeout_ms = 3'600'000;           // a request's, a connect's, the drain
constexpr std::int64_t max_duration_ms = 30LL * 86'400'000;  // 30 days
constexpr double min_rate = 0.001;                           // requests/s: one every 1000 s
constexpr double max_rate = 10'000'000;
constexpr std::size_t max_stages = 1000;                     // plan::stages
constexpr std::size_t max_stage_tallies = 65'536;            // threads x stages (1 KiB each)
constexpr std::int64_t max_interval_ms = 3'600'000;
constexpr std::uint32_t max_socket_buffer_bytes = 64u << 20;

// TLS: the OpenSSL 3 library loaded at run time for https:// when the plan gives no transport
// (MICROBENCH_LIBSSL or tls_options::libssl name another), the https port, and how many distinct
// reasons for `tls` failures a result keeps.
constexpr const char* libssl_name = "libssl.so.3";
constexpr std::uint16_t https_port = 443;
constexpr std::size_t max_tls_failure_reasons = 4;
// Over a transport, a pipelined batch is written from copies of the request back to back, as many
// as fit in this (at least two), so that a record carries several requests.
constexpr std::size_t transport_batch_bytes = 16 * 1024;

// Scale-out: generators sharing one plan, and how far ahead a run may be told to start.
constexpr std::uint32_t max_shards = 10'000;
constexpr std::int64_t max_start_ahead_ms = 7LL * 24 * 3'600'000;

}  // namespace defaults
}  // namespace microbench
