// An on-device self-test: check that this device's own HTTP endpoint answers correctly and fast
// enough, the way firmware runs it at boot or in a health check. Exit 0 healthy, 1 not, 2 usage.
//   microbench-device-selftest [URL]     (default: http://127.0.0.1/factorial/10)
#include <cstdio>
#include <cstring>

// The device's own endpoint is plain HTTP here: without the built-in TLS's loader (11 KB). A
// device that serves https drops this line, or gives the plan its own TLS (plan::transport).
#ifndef MICROBENCH_NO_TLS
#define MICROBENCH_NO_TLS
#endif
// One URL, so without targets and URL ranges (6.7 KB of code and data on x86-64).
#ifndef MICROBENCH_NO_TARGETS
#define MICROBENCH_NO_TARGETS
#endif
#include "microbench.hpp"

int main(int argc, char** argv) {
    namespace mb = microbench;
    const char* usage =
        "usage: microbench-device-selftest [URL]   (default http://127.0.0.1/factorial/10)\n"
        "  200 requests over 4 keep-alive connections; healthy when every one answers 200 (exactly n! for\n"
        "  a /factorial URL) and p99 is under 100 ms. Exit 0 healthy, 1 not, 2 usage.\n";
    if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0)) {
        std::fputs(usage, stdout);
        return 0;
    }
    if (argc > 2 || (argc > 1 && argv[1][0] == '-')) {
        std::fprintf(stderr, "self-test: one URL, not '%s'\n%s", argv[argc - 1], usage);
        return 2;
    }
    const char* url = argc > 1 ? argv[1] : "http://127.0.0.1/factorial/10";

    mb::plan plan;
    plan.url(url).requests(200).concurrency(4).keep_alive(true).timeout_ms(2000);
    mb::url target;
    unsigned n = 0;
    mb::checks checks;
    checks.status({200});
    if (mb::error e = mb::parse_url(url, target)) {
        std::fprintf(stderr, "self-test: bad URL '%s': %s\n%s", url, e.message(), usage);
        return 2;
    }
    if (mb::factorial_argument(target, n)) checks.factorial(n);  // exact n!
    plan.check(checks);

    mb::result r;
    if (mb::error e = mb::run(plan, r)) {
        std::fprintf(stderr, "self-test of %s: %s\n", url, e.message());
        return 1;
    }
    const double p99_ms = static_cast<double>(r.total_ns.value_at_percentile(99)) / 1e6;
    const bool healthy = r.requests_failed == 0 && r.requests_completed == 200 && p99_ms < 100;
    std::printf("self-test %s: %s: %llu/200 correct, %llu failed", healthy ? "ok" : "FAILED", url,
                static_cast<unsigned long long>(r.requests_completed),
                static_cast<unsigned long long>(r.requests_failed));
    bool listed = false;
    for (int i = 0; i < mb::failure_count; ++i) {  // every reason that occurred: connect, check, timeout …
        if (!r.failures[i]) continue;
        std::printf("%s%s %llu", listed ? ", " : " (", mb::failure_name(static_cast<mb::failure>(i)),
                    static_cast<unsigned long long>(r.failures[i]));
        listed = true;
    }
    // The p99 of the correct responses; else of the ones that came back wrong; else none to time.
    if (!r.total_ns.empty()) std::printf("%s, p99 %.2f ms\n", listed ? ")" : "", p99_ms);
    else if (!r.responses_total_ns.empty())
        std::printf("%s, p99 %.2f ms of the wrong responses\n", listed ? ")" : "",
                    static_cast<double>(r.responses_total_ns.value_at_percentile(99)) / 1e6);
    else std::printf("%s, no response to time\n", listed ? ")" : "");
    return healthy ? 0 : 1;
}
