// microbench-bench-parts: micro-benchmarks of the parts that run per request — the response
// parser and the histogram — each as the median of several rounds, next to a "floor" measured
// in the same run (the least work that task can take), so results read as ratios on a noisy host.
//   microbench-bench-parts [rounds=7]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "microbench.hpp"

namespace mb = microbench;
using clock_type = std::chrono::steady_clock;

namespace {

volatile std::uint64_t sink;  // keeps results alive so the optimizer cannot drop the work

template <class F>
double median_ns_per_op(int rounds, std::uint64_t ops, F&& run) {
    std::vector<double> per_op;
    run();  // warm-up
    for (int r = 0; r < rounds; ++r) {
        auto t0 = clock_type::now();
        run();
        auto t1 = clock_type::now();
        per_op.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(ops));
    }
    std::sort(per_op.begin(), per_op.end());
    return per_op[per_op.size() / 2];
}

// The 147-byte response nginx sends in shared/research/baseline.md.
const std::string typical =
    "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Mon, 30 Nov 2026 00:00:00 GMT\r\n"
    "Content-Type: text/plain\r\nContent-Length: 7\r\nConnection: keep-alive\r\n\r\n3628800";

std::uint64_t parse_all(mb::response_parser& p, std::string_view in) {
    std::uint64_t body = 0;
    p.reset();
    for (;;) {
        mb::parse_result r = p.parse(in);
        in.remove_prefix(r.consumed);
        body += r.body.size();
        if (r.event == mb::parse_event::complete) {
            if (in.empty()) return body;
            p.reset();
        } else if (r.event == mb::parse_event::need_more || r.event == mb::parse_event::error) {
            std::fprintf(stderr, "bench: unexpected parse event\n");
            std::exit(1);
        }
    }
}

// Floor: find the end of the head and read Content-Length, nothing else.
std::uint64_t floor_scan(std::string_view in) {
    const char* end = static_cast<const char*>(memmem(in.data(), in.size(), "\r\n\r\n", 4));
    const char* cl = static_cast<const char*>(memmem(in.data(), in.size(), "Content-Length: ", 16));
    return static_cast<std::uint64_t>(end - in.data()) + std::strtoull(cl + 16, nullptr, 10);
}

}  // namespace

int main(int argc, char** argv) {
    int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
    if (rounds < 1 || rounds > 1000) {
        std::fprintf(stderr, "usage: microbench-bench-parts [rounds 1..1000]\n");
        return 2;
    }
    std::printf("microbench %s parts benchmark, median of %d rounds\n\n", mb::version_string, rounds);
    mb::response_parser parser;

    // 1. A typical small response, whole.
    const std::uint64_t n_small = 2'000'000;
    double small_ns = median_ns_per_op(rounds, n_small, [&] {
        std::uint64_t acc = 0;
        for (std::uint64_t i = 0; i < n_small; ++i) acc += parse_all(parser, typical);
        sink = acc;
    });
    double floor_ns = median_ns_per_op(rounds, n_small, [&] {
        std::uint64_t acc = 0;
        for (std::uint64_t i = 0; i < n_small; ++i) {
            std::string_view v(typical);
            sink = i;  // stops the compiler from hoisting the scan out of the loop
            acc += floor_scan(v);
        }
        sink = acc;
    });
    std::printf("parse %zu-byte response:  %7.1f ns/response  (floor: memmem head end + strtoull %5.1f ns; %.2fx floor)\n",
                typical.size(), small_ns, floor_ns, small_ns / floor_ns);

    // 2. 64 pipelined copies in one buffer, as a busy keep-alive connection receives them.
    std::string piped;
    for (int i = 0; i < 64; ++i) piped += typical;
    const std::uint64_t n_piped = 30'000;
    double piped_ns = median_ns_per_op(rounds, n_piped * 64, [&] {
        std::uint64_t acc = 0;
        for (std::uint64_t i = 0; i < n_piped; ++i) acc += parse_all(parser, piped);
        sink = acc;
    });
    std::printf("parse pipelined responses: %7.1f ns/response\n", piped_ns);

    // 3. Chunked bodies of 4 MiB in chunks of 64 B, 1 KiB and 16 KiB. The parser hands data
    //    out as views without touching it, so its cost is per chunk, not per byte.
    for (std::size_t chunk_size : {std::size_t{64}, std::size_t{1024}, std::size_t{16384}}) {
        char size_line[32];
        std::snprintf(size_line, sizeof size_line, "%zx\r\n", chunk_size);
        std::string chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        std::size_t chunks = (4u << 20) / chunk_size;
        for (std::size_t i = 0; i < chunks; ++i) chunked.append(size_line).append(chunk_size, 'x').append("\r\n");
        chunked += "0\r\n\r\n";
        const std::uint64_t n_large = 1 + 4096 / chunks * 20;
        double ns_per_byte = median_ns_per_op(rounds, n_large * chunked.size(), [&] {
            std::uint64_t acc = 0;
            for (std::uint64_t i = 0; i < n_large; ++i) acc += parse_all(parser, chunked);
            sink = acc;
        });
        std::printf("parse 4 MiB chunked body:  %7.0f MB/s in %5zu-byte chunks (%.1f ns/chunk)\n", 1e3 / ns_per_byte,
                    chunk_size, ns_per_byte * static_cast<double>(chunked.size()) / static_cast<double>(chunks));
    }
    std::printf("\n");

    // 4. Histogram record: log-normal latencies around 40 µs, in ns, precomputed.
    std::vector<std::int64_t> values(1 << 20);
    std::mt19937_64 rng(1);
    std::lognormal_distribution<double> d(std::log(40'000.0), 1.0);
    for (auto& v : values) v = static_cast<std::int64_t>(d(rng));
    mb::histogram h;
    const std::uint64_t n_values = 20 * values.size();
    double record_ns = median_ns_per_op(rounds, n_values, [&] {
        for (int pass = 0; pass < 20; ++pass)
            for (std::int64_t v : values) h.record(v);
        sink = h.count();
    });
    double array_ns = median_ns_per_op(rounds, n_values, [&] {  // floor: one counter increment per value
        static std::uint64_t flat[1 << 16];
        for (int pass = 0; pass < 20; ++pass)
            for (std::int64_t v : values) ++flat[static_cast<std::uint64_t>(v) & 0xffff];
        sink = flat[sink & 0xffff];
    });
    std::printf("histogram record:          %7.2f ns/value (floor: flat array increment %.2f ns; %.2fx floor)\n",
                record_ns, array_ns, record_ns / array_ns);
    double p99_ns = median_ns_per_op(rounds, 1000, [&] {
        std::uint64_t acc = 0;
        for (int i = 0; i < 1000; ++i) acc += static_cast<std::uint64_t>(h.value_at_percentile(99.0));
        sink = acc;
    });
    mb::histogram other = h;
    double merge_ns = median_ns_per_op(rounds, 100, [&] {
        for (int i = 0; i < 100; ++i) other.merge(h);
        sink = other.count();
    });
    std::string encoded;
    mb::encode_histogram(h, encoded);
    std::printf("histogram p99 query:       %7.0f ns   merge: %.0f ns   encoded: %zu bytes (%zu of counters)\n",
                p99_ns, merge_ns, encoded.size(), h.counts_length() * sizeof(std::uint64_t));
    return 0;
}
