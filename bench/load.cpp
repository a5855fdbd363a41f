// microbench-load: runs one load test with the engine and prints its figures on one line, for
// bench/compare.py (until the ab-compatible command line exists).
//   microbench-load URL REQUESTS CONCURRENCY KEEPALIVE(0|1) [THREADS]
// Prints: requests=N failed=F seconds=S mean_latency_us=L p99_us=P connects=C
#include <cstdio>
#include <cstdlib>

#include "microbench.hpp"

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: microbench-load URL REQUESTS CONCURRENCY KEEPALIVE [THREADS]\n");
        return 2;
    }
    microbench::plan p;
    p.url(argv[1])
        .requests(std::strtoull(argv[2], nullptr, 10))
        .concurrency(static_cast<std::uint32_t>(std::atoi(argv[3])))
        .keep_alive(std::atoi(argv[4]) != 0)
        .threads(argc > 5 ? static_cast<std::uint32_t>(std::atoi(argv[5])) : 1)
        .raise_fd_limit(true);  // c=10000 needs more than a default soft limit
    microbench::result r;
    if (microbench::error e = microbench::run(p, r)) {
        std::fprintf(stderr, "microbench-load: %s\n", e.message());
        return 1;
    }
    std::printf("requests=%llu failed=%llu seconds=%.3f mean_latency_us=%.1f p99_us=%.1f connects=%llu\n",
                static_cast<unsigned long long>(r.requests_completed), static_cast<unsigned long long>(r.requests_failed),
                static_cast<double>(r.elapsed_ns) / 1e9, r.total_ns.mean() / 1e3,
                static_cast<double>(r.total_ns.value_at_percentile(99)) / 1e3, static_cast<unsigned long long>(r.connects));
    return r.requests_failed == 0 ? 0 : 3;
}
