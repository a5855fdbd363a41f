// An on-device self-test: check that this device's own HTTP endpoint answers correctly and fast
// enough, the way firmware runs it at boot or in a health check. Exit 0 healthy, 1 not.
//   microbench-device-selftest [URL]     (default: http://127.0.0.1/factorial/10)
#include <cstdio>

#include "microbench.hpp"

int main(int argc, char** argv) {
    namespace mb = microbench;
    const char* url = argc > 1 ? argv[1] : "http://127.0.0.1/factorial/10";

    mb::plan plan;
    plan.url(url).requests(200).concurrency(4).keep_alive(true).timeout_ms(2000);
    mb::url target;
    unsigned n = 0;
    mb::checks checks;
    checks.status({200});
    if (!mb::parse_url(url, target) && mb::factorial_argument(target, n)) checks.factorial(n);  // exact n!
    plan.check(checks);

    mb::result r;
    if (mb::error e = mb::run(plan, r)) return std::fprintf(stderr, "self-test: %s\n", e.message()), 1;
    const double p99_ms = static_cast<double>(r.total_ns.value_at_percentile(99)) / 1e6;
    const bool healthy = r.requests_failed == 0 && r.requests_completed == 200 && p99_ms < 100;
    std::printf("self-test %s: %llu/200 correct, %llu failed (check %llu, timeout %llu), p99 %.2f ms\n",
                healthy ? "ok" : "FAILED", static_cast<unsigned long long>(r.requests_completed),
                static_cast<unsigned long long>(r.requests_failed), static_cast<unsigned long long>(r.failed(mb::failure::check)),
                static_cast<unsigned long long>(r.failed(mb::failure::timeout)), p99_ms);
    return healthy ? 0 : 1;
}
