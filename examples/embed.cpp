// Run a load test from your own program: start the built-in reference server, send it 10,000
// requests over 10 keep-alive connections, and fail unless all succeeded with p99 under 500 ms.
#include <cstdio>
#include "microbench.hpp"

int main() {
    namespace mb = microbench;
    mb::server server;                                   // or test your own endpoint instead
    if (mb::error e = server.start({})) {
        std::fprintf(stderr, "server: %s\n", e.message());
        return 1;
    }

    mb::plan plan;
    plan.url("http://127.0.0.1:" + std::to_string(server.port()) + "/factorial/10")
        .requests(10'000).concurrency(10).keep_alive(true);
    mb::result r;
    if (mb::error e = mb::run(plan, r)) {
        std::fprintf(stderr, "run: %s\n", e.message());
        return 1;
    }

    double p99_ms = r.total_ns.value_at_percentile(99) / 1e6;
    std::printf("%llu ok, %llu failed, %.0f req/s, p50 %.3f ms, p99 %.3f ms, server counted %llu\n",
                (unsigned long long)r.requests_completed, (unsigned long long)r.requests_failed,
                r.requests_per_second(), r.total_ns.value_at_percentile(50) / 1e6, p99_ms,
                (unsigned long long)server.counts().factorial);
    return r.requests_failed == 0 && r.requests_completed == 10'000 && p99_ms < 500 ? 0 : 1;
}
