// microbench/server/server_endpoints.hpp — what the reference server answers, as a function of the
// request alone: routing, the factorial / delay / work / stall / echo / status / stats endpoints, and
// the response bytes. No sockets and no clock here, so every answer is testable on its own.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>
#include <string_view>
#include <vector>

#include "../core/ascii.hpp"
#include "../core/bigint.hpp"
#include "request_parser.hpp"
#include "server_counts.hpp"
#include "../core/version.hpp"

namespace microbench {

struct server_options {
    std::string host = "127.0.0.1";  // numeric: 127.0.0.1, ::1, 0.0.0.0 …
    std::uint16_t port = 0;          // 0: an ephemeral port; server::port() tells which
    // A Unix socket's path to listen on instead of host and port (up to 107 bytes): a stale socket
    // file there is replaced, a live one refused; the file is removed at stop.
    std::string unix_path;
    std::uint32_t threads = 1;
    unsigned max_factorial = 10000;
    std::int64_t max_delay_ms = 60'000;
    std::size_t max_body_bytes = 1 << 20;
    // Chaos, for soak tests: of every 1000 responses, about `chaos_cut_permille` are cut after a
    // random number of bytes (at least one, never all) and the connection closed — half of them
    // with a FIN, half with a reset — and about `chaos_close_permille` are sent whole and the
    // connection closed after them. Drawn from `chaos_seed` (each thread its own stream).
    unsigned chaos_cut_permille = 0;
    unsigned chaos_close_permille = 0;
    std::uint64_t chaos_seed = 1;
    // Count requests by their target (path and query, as sent) for /stats?paths: at most this many
    // targets, the rest together; 0 (the default): not counted, and no cost per request.
    std::size_t count_paths = 0;
    // A request must be whole (head and body) within header_timeout_ms of its first byte, and a
    // connection that reads and writes nothing for idle_timeout_ms (but while an answer is held
    // back by /delay or /stall) is closed; 0: never (server_deadlines.hpp). nginx's defaults.
    std::int64_t header_timeout_ms = 60'000;
    std::int64_t idle_timeout_ms = 75'000;
    // At most this many connections at once (0: the open-file limit less 64): a new one past it
    // closes the one quiet longest on its thread, or is closed itself when none is quiet.
    std::uint64_t max_connections = 0;
};

enum class endpoint_kind : std::uint8_t { factorial, delay, echo, status, other, bad_request, stats };

// n! as decimal text, each computed once on first use; safe to share between threads.
class factorial_cache {
public:
    explicit factorial_cache(unsigned max_n) : values_(max_n + 1) {}
    const std::string& get(unsigned n) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!values_[n]) values_[n].reset(new std::string(factorial_decimal(n)));
        return *values_[n];
    }
    unsigned max() const { return static_cast<unsigned>(values_.size() - 1); }

private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<std::string>> values_;
};

struct answer {
    endpoint_kind kind = endpoint_kind::other;
    std::int64_t delay_ns = 0;  // send the response this much later
    std::int64_t hold_ns = 0;   // /work: hold the server's thread this long first (a synchronous handler)
    // /stall: once every `stall_every_ms` (on the monotonic clock), for `stall_for_ms`, every
    // response is held until that stall ends; the server, which has the clock, applies it.
    std::int64_t stall_every_ms = 0, stall_for_ms = 0;
    bool close = false;         // close the connection after the response
};

namespace detail {

inline const char* reason_phrase(int status) {
    switch (status) {
        case 200: return "OK";
        case 201: return "Created";
        case 204: return "No Content";
        case 304: return "Not Modified";
        case 400: return "Bad Request";
        case 404: return "Not Found";
        case 405: return "Method Not Allowed";
        case 500: return "Internal Server Error";
        case 503: return "Service Unavailable";
        default: return "Status";
    }
}

inline bool small_number(std::string_view s, std::uint64_t max, std::uint64_t& out) {
    return s.size() <= 9 && parse_decimal(s, out) && out <= max;
}

// `connection`: "close", "keep-alive" (what an HTTP/1.0 client must be told to keep the
// connection, as ab -k expects) or "" for HTTP/1.1's silent default.
inline void append_response(std::string& out, int status, std::string_view content_type, std::string_view body,
                            std::string_view connection, bool head) {
    char line[160];
    int n = std::snprintf(line, sizeof line, "HTTP/1.1 %d %s\r\nServer: microbench/%s\r\n", status,
                          reason_phrase(status), MICROBENCH_VERSION_STRING);
    out.append(line, static_cast<std::size_t>(n));
    bool bodyless = status == 204 || status == 304;
    if (!bodyless) {
        n = std::snprintf(line, sizeof line, "Content-Type: %.*s\r\nContent-Length: %zu\r\n",
                          static_cast<int>(content_type.size()), content_type.data(), body.size());
        out.append(line, static_cast<std::size_t>(n));
    }
    if (!connection.empty()) out.append("Connection: ").append(connection.data(), connection.size()).append("\r\n");
    out.append("\r\n");
    if (!head && !bodyless) out.append(body.data(), body.size());
}

}  // namespace detail

// Appends the response to `head` (with `body`) to `out`. `stats(paths)` returns the counts for
// /stats (with the requests by target for /stats?paths).
template <class StatsFn>
answer answer_request(const request_head& head, std::string_view body, const server_options& options,
                      factorial_cache& factorials, StatsFn&& stats, std::string& out) {
    using namespace detail;
    answer a;
    a.close = !head.keep_alive;
    const bool is_head = head.method == "HEAD";
    const bool readonly = head.method == "GET" || is_head;
    std::string_view path = head.target, query;
    if (std::size_t q = path.find('?'); q != std::string_view::npos) {
        query = path.substr(q + 1);
        path = path.substr(0, q);
    }
    auto reply = [&](int status, std::string_view type, std::string_view text) {
        append_response(out, status, type, text, a.close ? "close" : (head.http_minor == 0 ? "keep-alive" : ""),
                        is_head);
        return a;
    };
    auto bad = [&](std::string_view why) {
        a.kind = endpoint_kind::bad_request;
        return reply(400, "text/plain", why);
    };
    std::uint64_t n = 0;
    std::string_view arg;

    if (path == "/factorial" || path.substr(0, 11) == "/factorial/") {
        a.kind = endpoint_kind::factorial;
        if (!readonly) return reply(405, "text/plain", "use GET\n");
        bool json = path.size() > 11;
        arg = json ? path.substr(11) : std::string_view();
        if (!json && !query_value(query, "n", arg)) return bad("missing n: use /factorial/{n} or /factorial?n=N\n");
        if (!small_number(arg, options.max_factorial, n)) return bad("n must be an integer from 0 to 10000\n");
        const std::string& digits = factorials.get(static_cast<unsigned>(n));
        if (!json) return reply(200, "text/plain", digits);
        std::string doc = "{\"factorial\":" + digits + "}";
        return reply(200, "application/json", doc);
    }
    const bool work = path == "/work";  // as /delay?…, but holding the thread instead of a timer
    if (work || path == "/delay" || path.substr(0, 7) == "/delay/") {
        a.kind = endpoint_kind::delay;
        bool in_path = !work && path.size() > 7;
        arg = in_path ? path.substr(7) : std::string_view();
        const bool micro = !in_path && query_value(query, "us", arg);
        if (!in_path && !micro && !query_value(query, "ms", arg))
            return bad(work ? "missing us: use /work?us=N or /work?ms=N\n"
                            : "missing ms: use /delay/{ms}, /delay?ms=N or /delay?us=N\n");
        const std::uint64_t unit = micro ? 1'000 : 1'000'000;
        if (!small_number(arg, static_cast<std::uint64_t>(options.max_delay_ms) * (1'000'000 / unit), n))
            return bad("delay out of range\n");
        (work ? a.hold_ns : a.delay_ns) = static_cast<std::int64_t>(n * unit);
        return reply(200, "text/plain", arg);
    }
    if (path == "/stall") {
        a.kind = endpoint_kind::delay;
        std::string_view every, hold;
        std::uint64_t e = 0, f = 0;
        if (!query_value(query, "every", every) || !query_value(query, "for", hold) ||
            !small_number(every, static_cast<std::uint64_t>(options.max_delay_ms), e) ||
            !small_number(hold, static_cast<std::uint64_t>(options.max_delay_ms), f) || e == 0 || f >= e)
            return bad("use /stall?every=MS&for=MS with 0 <= for < every\n");
        a.stall_every_ms = static_cast<std::int64_t>(e);
        a.stall_for_ms = static_cast<std::int64_t>(f);
        return reply(200, "text/plain", "stall\n");
    }
    if (path == "/echo") {
        a.kind = endpoint_kind::echo;
        return reply(200, "text/plain", readonly ? query : body);
    }
    if (path.substr(0, 8) == "/status/") {
        a.kind = endpoint_kind::status;
        if (!small_number(path.substr(8), 599, n) || n < 200) return bad("status must be from 200 to 599\n");
        return reply(static_cast<int>(n), "text/plain", "status\n");
    }
    if (path == "/stats") {
        a.kind = endpoint_kind::stats;
        const bool paths = has_query_key(query, "paths");
        if (paths && !options.count_paths)
            return reply(400, "text/plain", "requests are counted by path only when the server counts them: "
                                            "microbench-server --count-paths N (server_options::count_paths)\n");
        return reply(200, "application/json", server_counts_json(stats(paths), paths));
    }
    if (path == "/")
        return reply(200, "text/plain",
                     "microbench reference server: /factorial/{n} /factorial?n=N /delay/{ms} /delay?us=N /work?us=N "
                     "/stall?every=MS&for=MS /echo /status/{code} /stats /stats?paths\n");
    return reply(404, "text/plain", "not found\n");
}

}  // namespace microbench
