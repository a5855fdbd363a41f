// Using microbench's parts from your own program: build a request once, read a response as it
// arrives, record latencies, ask for p99. (The load engine that does the sending comes next.)
#include <cstdio>
#include "microbench.hpp"

int main() {
    namespace mb = microbench;
    mb::url target;
    if (mb::error e = mb::parse_url("http://127.0.0.1:8000/factorial/10", target)) {
        std::fprintf(stderr, "bad URL: %s at byte %zu\n", e.message(), e.position);
        return 1;
    }
    std::string request;                            // built once, sent unchanged every time
    if (mb::build_request(target, {}, request)) return 1;

    mb::response_parser parser;                     // zero-copy, incremental
    parser.reset();
    std::string_view received = "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n3628800";
    for (mb::parse_result r;;) {
        r = parser.parse(received);
        received.remove_prefix(r.consumed);
        if (r.event == mb::parse_event::complete || r.event == mb::parse_event::error) break;
    }

    mb::histogram latency_ns;                       // 1 ns … 1 h at 3 significant digits
    for (std::int64_t ns : {41'000, 39'500, 44'200, 120'000}) latency_ns.record(ns);
    std::printf("status %d, p99 %.1f µs\n", parser.status(), latency_ns.value_at_percentile(99) / 1e3);
    return parser.status() == 200 ? 0 : 1;
}
