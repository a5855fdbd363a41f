// microbench/core/error.hpp — error codes and the small `error` value every fallible call returns.
// Codes have explicit numbers that are never reused: the C API exposes them as MB_ statuses.
// One list below gives each code its number, its name and its message; the names and messages
// live in one array of text (no table of pointers). No exceptions, no allocation.
#pragma once

#include <cstddef>
#include <cstdint>

namespace microbench {

// X(name, number, message): every code, its number (never reused) and one sentence for people.
#define MICROBENCH_ERRORS(X) \
    X(ok, 0, "no error") \
    /* URL (10–29) */ \
    X(url_empty, 10, "URL is empty") \
    X(url_no_scheme, 11, "URL has no scheme; write it as http://host[:port]/path") \
    X(url_unsupported_scheme, 12, "URL scheme is neither http nor https") \
    X(url_tls_unsupported, 13, \
      "https:// needs TLS, and this build has none (MICROBENCH_NO_TLS): give the plan a transport") \
    X(url_userinfo_unsupported, 14, "user:password@ in URLs is not supported; send an Authorization header instead") \
    X(url_empty_host, 15, "URL has no host") \
    X(url_bad_host, 16, "URL host is not a valid host name or IPv4 address") \
    X(url_bad_ipv6, 17, "URL host is not a valid bracketed IPv6 address") \
    X(url_bad_port, 18, "URL port must be a number from 1 to 65535") \
    X(url_bad_char, 19, "URL contains a space, control or non-ASCII character (percent-encode it)") \
    X(url_bad_range, 20, "a range in a URL is {A..B}, A and B integers of at most 18 digits, or {a,b,c}: words " \
      "with at least one comma (a brace of the URL itself is written %7B or %7D)") \
    X(url_range_unclosed, 21, "a range in a URL has no closing '}' (ranges do not nest)") \
    X(url_range_in_origin, 22, "ranges go in a URL's path and query, not in its scheme, host or port") \
    X(url_too_many_targets, 23, "a URL's ranges stand for more than 1,000,000 URLs") \
    /* Request building (30–39) */ \
    X(request_bad_method, 30, "method is not a valid HTTP token") \
    X(request_bad_header_name, 31, "header name is empty or not a valid HTTP token") \
    X(request_bad_header_value, 32, "header value contains CR, LF or another control character") \
    X(request_content_length_mismatch, 33, "Content-Length header does not match the body size") \
    X(request_transfer_encoding_unsupported, 34, \
      "Transfer-Encoding request headers are not supported; the body is sent with Content-Length") \
    X(request_bad_header_line, 35, "header must be written as 'Name: value'") \
    /* Response parsing (40–69) */ \
    X(response_bad_status_line, 40, "malformed status line") \
    X(response_bad_version, 41, "response is not HTTP/1.x") \
    X(response_bad_status_code, 42, "status code is not three digits from 100 to 999") \
    X(response_bad_header, 43, "malformed header field") \
    X(response_obsolete_line_folding, 44, "header uses obsolete line folding") \
    X(response_headers_too_large, 45, "response head exceeds the header size limit") \
    X(response_too_many_headers, 46, "response has more header fields than the limit") \
    X(response_bad_content_length, 47, "Content-Length is not a decimal number") \
    X(response_duplicate_content_length, 48, "Content-Length appears more than once") \
    X(response_conflicting_content_length, 49, "Content-Length appears more than once with different values") \
    X(response_bad_chunk_size, 50, "chunk size is not a hexadecimal number below 2^60") \
    X(response_bad_chunk, 51, "malformed chunk framing") \
    X(response_trailers_too_large, 52, "chunk extensions or trailers exceed the header size limit") \
    X(response_truncated, 53, "connection closed before the response was complete") \
    /* Histogram (70–89) */ \
    X(histogram_bad_config, 70, "histogram needs 1 <= lowest, 2 * lowest <= highest, 1..5 significant figures") \
    X(histogram_encoding_bad_magic, 71, "not an encoded microbench histogram") \
    X(histogram_encoding_bad_version, 72, "encoded histogram has an unsupported format version") \
    X(histogram_encoding_truncated, 73, "encoded histogram ends early") \
    X(histogram_encoding_corrupt, 74, "encoded histogram is inconsistent") \
    X(histogram_too_large, 75, "the histogram's layout needs more memory for its counters than the reader allows") \
    /* Plans (90–99) */ \
    X(plan_bad_concurrency, 90, "concurrency must be from 1 to 1,000,000 connections") \
    X(plan_bad_threads, 91, "threads must be from 1 to 1024 and at most the concurrency") \
    X(plan_no_limit, 92, "give a request count, a duration or both") \
    X(plan_concurrency_above_requests, 93, "concurrency is greater than the number of requests") \
    X(plan_bad_timeout, 94, "timeouts must be from 1 ms to 1 hour") \
    X(plan_bad_pipeline, 95, "pipeline depth must be from 1 to 256, and above 1 only with keep-alive") \
    X(plan_bad_bind_address, 96, "local bind address (or one of a list or range) is not a numeric address of the " \
      "target's family on this machine, or there are more than 1024") \
    X(plan_bad_status, 97, "expected status codes must be from 100 to 999") \
    X(plan_not_factorial_url, 98, "the factorial check needs a /factorial/{n} or /factorial?n=N URL") \
    X(plan_too_many_in_flight, 99, "concurrency x pipeline is above 1,000,000 requests in flight: lower the " \
      "concurrency (-c) or the pipeline depth") \
    /* Starting a run (100–119) */ \
    X(run_resolve_failed, 100, "cannot resolve the target host") \
    X(run_fd_limit, 101, "the open-file limit is below the descriptors already open plus the concurrency (raise " \
      "ulimit -n, or let the run raise it: plan::raise_fd_limit)") \
    X(run_system, 102, "the system refused a resource the run needs (epoll, thread or memory)") \
    X(run_tls_unavailable, 103, "https:// needs OpenSSL 3 (libssl.so.3), which could not be loaded: install it " \
      "(apt-get install libssl3), name it with MICROBENCH_LIBSSL, or give the plan a transport") \
    X(run_tls_setup, 104, \
      "the TLS library refused the run's TLS settings (protocol, ciphers, certificate, key or CA file)") \
    /* Plans, continued (120–139) */ \
    X(plan_too_many_records, 120, \
      "per-request timings (ab -g, record_requests) are limited to 10,000,000: lower -n or record fewer") \
    X(plan_bad_rate, 121, \
      "rate must be 0 (a closed loop) or from 0.001 to 10,000,000 requests per second, and works without pipelining") \
    X(plan_bad_interval, 122, "the statistics interval must be from 10 ms to 1 hour, or 0 for none") \
    X(plan_bad_arrivals, 123, "Poisson arrivals need a rate (--rate); arrivals are uniform or poisson") \
    X(plan_bad_start_time, 124, "the start time must be a Unix time in milliseconds, at most 7 days ahead") \
    X(plan_bad_shard, 125, "a shard is I/N with I from 0 to N-1 and N from 1 to 10,000, and each shard needs at " \
      "least one connection, one request and, with targets, one target") \
    X(plan_bad_duration, 126, "the duration must be from 0 (none: a request count ends the run) to 30 days") \
    X(plan_bad_socket_buffer, 127, "socket buffers must be from 0 (the kernel's size) to 64 MiB") \
    X(plan_bad_transport, 128, "a transport needs open, handshake, read, write and close functions") \
    X(plan_bad_tls_version, 129, \
      "TLS version must be 0 (any), 0x0301 (TLS 1.0), 0x0302, 0x0303 (TLS 1.2) or 0x0304 (TLS 1.3)") \
    X(plan_bad_connect_to, 130, "a --connect-to rule is HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT, each part " \
      "may be empty, an IPv6 address in brackets, a port from 1 to 65535 (the position is the rule's index)") \
    X(plan_bad_unix_socket, 132, "a Unix socket path must be 1 to 107 bytes without a NUL byte, and goes without " \
      "-B and --connect-to (the position: 0 the path, 1 with -B, 2 with --connect-to)") \
    X(plan_bad_batch_lag, 131, "the batch lag must be from 0 to 10,000 microseconds, or -1 for the default") \
    X(plan_bad_capacity_search, 133, \
      "a capacity search needs a p99 objective above 0 and each of its bounds in range") \
    X(plan_bad_target, 134, "each target must be a URL of the plan's origin (its scheme, host and port), and " \
      "there may be at most 1,000,000 (the position is the target's index)") \
    X(plan_targets_unsupported, 135, \
      "targets, URL ranges and by-target counts need a build without MICROBENCH_NO_TARGETS") \
    X(plan_targets_too_large, 136, "the targets' requests, each with its headers and body, take more than 1 GiB " \
      "together (with their expected answers): send fewer targets or a smaller body (the position is the first " \
      "target past it; in a targets file, the byte of the @FILE line past it)") \
    X(plan_factorial_target, 137, "the factorial check of each target's n needs /factorial/{n} or /factorial?n=N " \
      "targets, n at most 100,000 (the position is the first target without one)") \
    X(plan_each_once_duration, 138, "each target once is a count of requests: give no duration with it") \
    X(plan_bad_request_capacity, 139, "a request callback's room must be from 16 bytes to 1 MiB a request, and " \
      "concurrency x pipeline x room at most 1 GiB") \
    /* Reading saved results (140–159) */ \
    X(json_bad, 140, "not valid JSON (the position is the byte where reading stopped)") \
    X(json_too_deep, 141, "JSON nested more than 64 levels deep") \
    X(result_not_microbench, 142, \
      "not a microbench result: no \"microbench\" version, or not a single run, a --compare or a --suite document") \
    X(result_bad_field, 143, \
      "a field of the result is missing or has the wrong type (or its histogram does not decode)") \
    X(merge_nothing, 144, \
      "nothing to merge: give the results of one plan, each a single run (--json of a run or a shard)") \
    X(merge_different_plans, 145, "the results come from different targets or plans (URL, method, keep-alive, " \
      "pipeline, timeout, duration, checks, rate or shards differ)") \
    X(merge_incompatible_histograms, 146, "the results' histograms are configured differently (lowest value or " \
      "significant digits): they cannot be merged exactly") \
    X(merge_duplicate_shard, 147, "the same shard appears twice") \
    X(merge_too_many_intervals, 148, "the results' interval rows would span more than 1,000,000 intervals on the " \
      "wall clock: their starts (or a row's) are too far apart") \
    X(hlog_bad, 149, "a line of the HdrHistogram interval log cannot be read") \
    /* Plans, continued (170–189) */ \
    X(plan_bad_stages, 170, "stages are at most 1,000 (and threads x stages at most 65,536), each 1 ms to 30 days " \
      "long with a target from 0 to 10,000,000 requests per second, together at most 30 days and meaning at least " \
      "one request; a staged run lasts their total (no other duration) and sends no pipelined batches (the position " \
      "is the stage at fault, or the number of stages when they are at fault together)") \
    X(plan_bad_regex, 171, "a body's regular expression must be POSIX extended (grep -E) without back-references, " \
      "1 to 4,096 bytes without a NUL byte and at most 1,000 steps with its counts written out") \
    /* Calls through the C API (200–219) */ \
    /* Reading targets files (160–169): the position is the byte where the fault is */ \
    X(targets_bad_line, 160, "a targets line must be 'METHOD URL', then its headers 'Name: value' and at most one " \
      "'@FILE' (its body), with blank lines between targets and '#' comments") \
    X(targets_body_unreadable, 161, "a target's @FILE body cannot be read, or is not a regular file") \
    X(targets_bad_json, 162, "a JSON target is one object a line: \"url\" (a string), and optionally \"method\" " \
      "(a string), \"header\" ({\"Name\": [\"value\", ...]}) and \"body\" (base64)") \
    X(targets_none, 163, "the targets file holds no target") \
    X(targets_unreadable, 164, "the targets file cannot be read") \
    X(targets_too_many, 165, "the targets file holds more than 1,000,000 targets") \
    X(invalid_argument, 200, "a null handle or pointer, or a value out of range, was passed to the C API") \
    X(out_of_memory, 201, "memory ran out")

enum class errc : std::uint16_t {
#define MICROBENCH_ERRC_ENUM(name, number, message) name = number,
    MICROBENCH_ERRORS(MICROBENCH_ERRC_ENUM)
#undef MICROBENCH_ERRC_ENUM
};

namespace detail {

#define MICROBENCH_ERRC_NUMBER(name, number, message) number,
#define MICROBENCH_ERRC_TEXT(name, number, message) #name "\0" message "\0"
inline constexpr std::uint16_t errc_numbers[] = {MICROBENCH_ERRORS(MICROBENCH_ERRC_NUMBER)};
// Each code's name then its message, each ended by a NUL, in the list's order.
inline constexpr char errc_text[] = MICROBENCH_ERRORS(MICROBENCH_ERRC_TEXT);
#undef MICROBENCH_ERRC_NUMBER
#undef MICROBENCH_ERRC_TEXT
constexpr std::size_t errc_count = sizeof(errc_numbers) / sizeof(errc_numbers[0]);

// Where each code's name starts in errc_text, found at compile time.
struct errc_offsets {
    std::uint16_t at[errc_count];
    constexpr errc_offsets() : at() {
        std::size_t i = 0;
        for (std::size_t k = 0; k < errc_count; ++k) {
            at[k] = static_cast<std::uint16_t>(i);
            for (int part = 0; part < 2; ++part) {  // the name, then the message
                while (errc_text[i] != '\0') ++i;
                ++i;
            }
        }
    }
};
inline constexpr errc_offsets errc_index{};
static_assert(sizeof(errc_text) < 65536, "errc_text outgrew its 16-bit offsets");

// The name of the code at `k` in the list, its message right after it.
constexpr const char* errc_name_at(std::size_t k) { return errc_text + errc_index.at[k]; }
constexpr const char* errc_message_at(std::size_t k) {
    const char* p = errc_name_at(k);
    while (*p != '\0') ++p;
    return p + 1;
}

constexpr std::size_t errc_position(errc code) {
    for (std::size_t k = 0; k < errc_count; ++k)
        if (errc_numbers[k] == static_cast<std::uint16_t>(code)) return k;
    return errc_count;
}

}  // namespace detail

// "response_truncated": stable, for logs, JSON and tests.
constexpr const char* errc_name(errc code) {
    const std::size_t k = detail::errc_position(code);
    return k < detail::errc_count ? detail::errc_name_at(k) : "unknown";
}

// One sentence for people.
constexpr const char* errc_message(errc code) {
    const std::size_t k = detail::errc_position(code);
    return k < detail::errc_count ? detail::errc_message_at(k) : "unknown error";
}

// What a fallible call returns. `position` locates the fault: a byte offset into the URL or
// response for those parts, the index of the offending header for request building.
struct [[nodiscard]] error {
    errc code = errc::ok;
    std::size_t position = 0;

    constexpr error() = default;
    constexpr error(errc c, std::size_t pos = 0) : code(c), position(pos) {}  // NOLINT: implicit by design

    constexpr explicit operator bool() const { return code != errc::ok; }
    constexpr const char* name() const { return errc_name(code); }
    constexpr const char* message() const { return errc_message(code); }
};

constexpr bool operator==(const error& a, const error& b) {
    return a.code == b.code && a.position == b.position;
}
constexpr bool operator!=(const error& a, const error& b) { return !(a == b); }

}  // namespace microbench
