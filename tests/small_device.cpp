// The small-device profile: with MICROBENCH_NO_SERVER, MICROBENCH_NO_REPORTS, MICROBENCH_NO_TLS and
// MICROBENCH_HISTOGRAM_DIGITS=2 the library still runs, checks and measures — 2000 requests with
// the factorial check against the reference server in a child process (this build has none),
// every one correct, every histogram at 2 digits — and leaves the server, the reports and the
// TLS loader out (the names below could not be defined if they were declared); https:// without a
// transport, and a plan with targets or URL ranges (MICROBENCH_NO_TARGETS), are refused with the
// error that says so.
//   small_device MICROBENCH_SERVER_BINARY
#define MICROBENCH_NO_SERVER
#define MICROBENCH_NO_REPORTS
#define MICROBENCH_NO_TLS
#define MICROBENCH_NO_TARGETS
#define MICROBENCH_HISTOGRAM_DIGITS 2
#include <cstdio>
#include <string>

#include "microbench.hpp"
#include "server_program.hpp"

namespace microbench {  // each would clash with what the switches leave out
int server = 0, server_options = 0, self_test = 0, append_ab_report = 0, result_json = 0, apply_gates = 0, run_suite = 0;
namespace detail {
int load_openssl = 0, openssl_run = 0;
}  // namespace detail
}  // namespace microbench

int main(int argc, char** argv) {
    namespace mb = microbench;
    if (argc < 2) return std::fprintf(stderr, "usage: small_device SERVER\n"), 2;
    server_program srv;
    if (!srv.start(argv[1], {"-d", "60"})) return std::fprintf(stderr, "small_device: the server did not start\n"), 2;
    const unsigned port = srv.port;

    mb::plan plan;
    plan.url("http://127.0.0.1:" + std::to_string(port) + "/factorial/10").requests(2000).concurrency(4).keep_alive(true);
    mb::checks checks;
    checks.status({200});
    checks.factorial(10);
    plan.check(checks);
    mb::result r;
    mb::plan https = plan;
    https.url("https://127.0.0.1:" + std::to_string(port) + "/factorial/10");
    if (mb::run(https, r).code != mb::errc::url_tls_unsupported) return std::fprintf(stderr, "small_device: https was not refused\n"), 1;
    mb::plan ranges = plan;
    ranges.url("http://127.0.0.1:" + std::to_string(port) + "/factorial/{1..3}").url_ranges(true);
    if (mb::run(ranges, r).code != mb::errc::plan_targets_unsupported)
        return std::fprintf(stderr, "small_device: URL ranges were not refused\n"), 1;
    mb::plan list = plan;
    list.targets({plan.url()});
    if (mb::run(list, r).code != mb::errc::plan_targets_unsupported)
        return std::fprintf(stderr, "small_device: targets were not refused\n"), 1;
    mb::error e = mb::run(plan, r);
    if (e) return std::fprintf(stderr, "small_device: %s\n", e.message()), 1;
    const bool ok = r.requests_completed == 2000 && r.requests_failed == 0 && r.total_ns.count() == 2000 &&
                    r.total_ns.config().significant_figures == 2 && mb::histogram::memory_bytes({}) < 40 * 1024;
    std::printf("small-device profile: %llu/2000 correct, p99 %.3f ms, %zu bytes of counters per histogram: %s\n",
                static_cast<unsigned long long>(r.requests_completed), static_cast<double>(r.total_ns.value_at_percentile(99)) / 1e6,
                mb::histogram::memory_bytes({}), ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
