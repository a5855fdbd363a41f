// microbench/core/error.hpp — error codes and the small `error` value every fallible call returns.
// Codes have explicit numbers that are never reused: the C API exposes them as MB_ statuses.
// No exceptions, no allocation: names and messages are static strings.
#pragma once

#include <cstddef>
#include <cstdint>

namespace microbench {

enum class errc : std::uint16_t {
    ok = 0,

    // URL (10–29)
    url_empty = 10,
    url_no_scheme = 11,
    url_unsupported_scheme = 12,
    url_tls_unsupported = 13,
    url_userinfo_unsupported = 14,
    url_empty_host = 15,
    url_bad_host = 16,
    url_bad_ipv6 = 17,
    url_bad_port = 18,
    url_bad_char = 19,

    // Request building (30–39)
    request_bad_method = 30,
    request_bad_header_name = 31,
    request_bad_header_value = 32,
    request_content_length_mismatch = 33,
    request_transfer_encoding_unsupported = 34,
    request_bad_header_line = 35,

    // Response parsing (40–69)
    response_bad_status_line = 40,
    response_bad_version = 41,
    response_bad_status_code = 42,
    response_bad_header = 43,
    response_obsolete_line_folding = 44,
    response_headers_too_large = 45,
    response_too_many_headers = 46,
    response_bad_content_length = 47,
    response_duplicate_content_length = 48,
    response_conflicting_content_length = 49,
    response_bad_chunk_size = 50,
    response_bad_chunk = 51,
    response_trailers_too_large = 52,
    response_truncated = 53,

    // Histogram (70–89)
    histogram_bad_config = 70,
    histogram_encoding_bad_magic = 71,
    histogram_encoding_bad_version = 72,
    histogram_encoding_truncated = 73,
    histogram_encoding_corrupt = 74,

    // Plans (90–99)
    plan_bad_concurrency = 90,
    plan_bad_threads = 91,
    plan_no_limit = 92,
    plan_concurrency_above_requests = 93,
    plan_bad_timeout = 94,
    plan_bad_pipeline = 95,
    plan_bad_bind_address = 96,
    plan_bad_status = 97,
    plan_not_factorial_url = 98,
    plan_too_many_in_flight = 99,

    // Starting a run (100–119)
    run_resolve_failed = 100,
    run_fd_limit = 101,
    run_system = 102,
    run_tls_unavailable = 103,
    run_tls_setup = 104,

    // Plans, continued (120–139)
    plan_too_many_records = 120,
    plan_bad_rate = 121,
    plan_bad_interval = 122,
    plan_bad_arrivals = 123,
    plan_bad_start_time = 124,
    plan_bad_shard = 125,
    plan_bad_duration = 126,
    plan_bad_socket_buffer = 127,
    plan_bad_transport = 128,
    plan_bad_tls_version = 129,

    // Reading saved results (140–159)
    json_bad = 140,
    json_too_deep = 141,
    result_not_microbench = 142,
    result_bad_field = 143,
    merge_nothing = 144,
    merge_different_plans = 145,
    merge_incompatible_histograms = 146,
    merge_duplicate_shard = 147,
    merge_too_many_intervals = 148,

    // Calls through the C API (200–219)
    invalid_argument = 200,
    out_of_memory = 201,
};

namespace detail {

struct errc_entry {
    errc code;
    const char* name;
    const char* message;
};

// One row per code; keep in the enum's order.
constexpr errc_entry errc_table[] = {
    {errc::ok, "ok", "no error"},
    {errc::url_empty, "url_empty", "URL is empty"},
    {errc::url_no_scheme, "url_no_scheme", "URL has no scheme; write it as http://host[:port]/path"},
    {errc::url_unsupported_scheme, "url_unsupported_scheme", "URL scheme is neither http nor https"},
    {errc::url_tls_unsupported, "url_tls_unsupported", "https:// needs TLS, and this build has none (MICROBENCH_NO_TLS): give the plan a transport"},
    {errc::url_userinfo_unsupported, "url_userinfo_unsupported", "user:password@ in URLs is not supported; send an Authorization header instead"},
    {errc::url_empty_host, "url_empty_host", "URL has no host"},
    {errc::url_bad_host, "url_bad_host", "URL host is not a valid host name or IPv4 address"},
    {errc::url_bad_ipv6, "url_bad_ipv6", "URL host is not a valid bracketed IPv6 address"},
    {errc::url_bad_port, "url_bad_port", "URL port must be a number from 1 to 65535"},
    {errc::url_bad_char, "url_bad_char", "URL contains a space, control or non-ASCII character (percent-encode it)"},
    {errc::request_bad_method, "request_bad_method", "method is not a valid HTTP token"},
    {errc::request_bad_header_name, "request_bad_header_name", "header name is empty or not a valid HTTP token"},
    {errc::request_bad_header_value, "request_bad_header_value", "header value contains CR, LF or another control character"},
    {errc::request_content_length_mismatch, "request_content_length_mismatch", "Content-Length header does not match the body size"},
    {errc::request_transfer_encoding_unsupported, "request_transfer_encoding_unsupported", "Transfer-Encoding request headers are not supported; the body is sent with Content-Length"},
    {errc::request_bad_header_line, "request_bad_header_line", "header must be written as 'Name: value'"},
    {errc::response_bad_status_line, "response_bad_status_line", "malformed status line"},
    {errc::response_bad_version, "response_bad_version", "response is not HTTP/1.x"},
    {errc::response_bad_status_code, "response_bad_status_code", "status code is not three digits from 100 to 999"},
    {errc::response_bad_header, "response_bad_header", "malformed header field"},
    {errc::response_obsolete_line_folding, "response_obsolete_line_folding", "header uses obsolete line folding"},
    {errc::response_headers_too_large, "response_headers_too_large", "response head exceeds the header size limit"},
    {errc::response_too_many_headers, "response_too_many_headers", "response has more header fields than the limit"},
    {errc::response_bad_content_length, "response_bad_content_length", "Content-Length is not a decimal number"},
    {errc::response_duplicate_content_length, "response_duplicate_content_length", "Content-Length appears more than once"},
    {errc::response_conflicting_content_length, "response_conflicting_content_length", "Content-Length appears more than once with different values"},
    {errc::response_bad_chunk_size, "response_bad_chunk_size", "chunk size is not a hexadecimal number below 2^60"},
    {errc::response_bad_chunk, "response_bad_chunk", "malformed chunk framing"},
    {errc::response_trailers_too_large, "response_trailers_too_large", "chunk extensions or trailers exceed the header size limit"},
    {errc::response_truncated, "response_truncated", "connection closed before the response was complete"},
    {errc::histogram_bad_config, "histogram_bad_config", "histogram needs 1 <= lowest, 2 * lowest <= highest, 1..5 significant figures"},
    {errc::histogram_encoding_bad_magic, "histogram_encoding_bad_magic", "not an encoded microbench histogram"},
    {errc::histogram_encoding_bad_version, "histogram_encoding_bad_version", "encoded histogram has an unsupported format version"},
    {errc::histogram_encoding_truncated, "histogram_encoding_truncated", "encoded histogram ends early"},
    {errc::histogram_encoding_corrupt, "histogram_encoding_corrupt", "encoded histogram is inconsistent"},
    {errc::plan_bad_concurrency, "plan_bad_concurrency", "concurrency must be from 1 to 1,000,000 connections"},
    {errc::plan_bad_threads, "plan_bad_threads", "threads must be from 1 to 1024 and at most the concurrency"},
    {errc::plan_no_limit, "plan_no_limit", "give a request count, a duration or both"},
    {errc::plan_concurrency_above_requests, "plan_concurrency_above_requests", "concurrency is greater than the number of requests"},
    {errc::plan_bad_timeout, "plan_bad_timeout", "timeouts must be from 1 ms to 1 hour"},
    {errc::plan_bad_pipeline, "plan_bad_pipeline", "pipeline depth must be from 1 to 256, and above 1 only with keep-alive"},
    {errc::plan_bad_bind_address, "plan_bad_bind_address", "local bind address (or one of a list or range) is not a numeric address of the target's family on this machine, or there are more than 1024"},
    {errc::plan_bad_status, "plan_bad_status", "expected status codes must be from 100 to 999"},
    {errc::plan_not_factorial_url, "plan_not_factorial_url", "the factorial check needs a /factorial/{n} or /factorial?n=N URL"},
    {errc::plan_too_many_in_flight, "plan_too_many_in_flight", "concurrency x pipeline is above 1,000,000 requests in flight: lower the concurrency (-c) or the pipeline depth"},
    {errc::run_resolve_failed, "run_resolve_failed", "cannot resolve the target host"},
    {errc::run_fd_limit, "run_fd_limit", "the open-file limit is below the descriptors already open plus the concurrency (raise ulimit -n, or let the run raise it: plan::raise_fd_limit)"},
    {errc::run_system, "run_system", "the system refused a resource the run needs (epoll, thread or memory)"},
    {errc::run_tls_unavailable, "run_tls_unavailable", "https:// needs OpenSSL 3 (libssl.so.3), which could not be loaded: install it (apt-get install libssl3), name it with MICROBENCH_LIBSSL, or give the plan a transport"},
    {errc::run_tls_setup, "run_tls_setup", "the TLS library refused the run's TLS settings (protocol, ciphers, certificate, key or CA file)"},
    {errc::plan_too_many_records, "plan_too_many_records", "per-request timings (ab -g, record_requests) are limited to 10,000,000: lower -n or record fewer"},
    {errc::plan_bad_rate, "plan_bad_rate", "rate must be 0 (a closed loop) or from 0.001 to 10,000,000 requests per second, and works without pipelining"},
    {errc::plan_bad_interval, "plan_bad_interval", "the statistics interval must be from 10 ms to 1 hour, or 0 for none"},
    {errc::plan_bad_arrivals, "plan_bad_arrivals", "Poisson arrivals need a rate (--rate); arrivals are uniform or poisson"},
    {errc::plan_bad_start_time, "plan_bad_start_time", "the start time must be a Unix time in milliseconds, at most 7 days ahead"},
    {errc::plan_bad_shard, "plan_bad_shard", "a shard is I/N with I from 0 to N-1 and N from 1 to 10,000, and each shard needs at least one connection and one request"},
    {errc::plan_bad_duration, "plan_bad_duration", "the duration must be from 0 (none: a request count ends the run) to 30 days"},
    {errc::plan_bad_socket_buffer, "plan_bad_socket_buffer", "socket buffers must be from 0 (the kernel's size) to 64 MiB"},
    {errc::plan_bad_transport, "plan_bad_transport", "a transport needs open, handshake, read, write and close functions"},
    {errc::plan_bad_tls_version, "plan_bad_tls_version", "TLS version must be 0 (any), 0x0301 (TLS 1.0), 0x0302, 0x0303 (TLS 1.2) or 0x0304 (TLS 1.3)"},
    {errc::json_bad, "json_bad", "not valid JSON (the position is the byte where reading stopped)"},
    {errc::json_too_deep, "json_too_deep", "JSON nested more than 64 levels deep"},
    {errc::result_not_microbench, "result_not_microbench", "not a microbench result: no \"microbench\" version, or not a single run, a --compare or a --suite document"},
    {errc::result_bad_field, "result_bad_field", "a field of the result is missing or has the wrong type (or its histogram does not decode)"},
    {errc::merge_nothing, "merge_nothing", "nothing to merge: give the results of one plan, each a single run (--json of a run or a shard)"},
    {errc::merge_different_plans, "merge_different_plans", "the results come from different targets or plans (URL, method, keep-alive, pipeline, timeout, duration, checks, rate or shards differ)"},
    {errc::merge_incompatible_histograms, "merge_incompatible_histograms", "the results' histograms are configured differently (lowest value or significant digits): they cannot be merged exactly"},
    {errc::merge_duplicate_shard, "merge_duplicate_shard", "the same shard appears twice"},
    {errc::merge_too_many_intervals, "merge_too_many_intervals", "the results' interval rows would span more than 1,000,000 intervals on the wall clock: their starts (or a row's) are too far apart"},
    {errc::invalid_argument, "invalid_argument", "a null handle or pointer, or a value out of range, was passed to the C API"},
    {errc::out_of_memory, "out_of_memory", "memory ran out"},
};

constexpr const errc_entry* find_errc(errc code) {
    for (const errc_entry& e : errc_table)
        if (e.code == code) return &e;
    return nullptr;
}

}  // namespace detail

// "response_truncated": stable, for logs, JSON and tests.
constexpr const char* errc_name(errc code) {
    const detail::errc_entry* e = detail::find_errc(code);
    return e ? e->name : "unknown";
}

// One sentence for people.
constexpr const char* errc_message(errc code) {
    const detail::errc_entry* e = detail::find_errc(code);
    return e ? e->message : "unknown error";
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
