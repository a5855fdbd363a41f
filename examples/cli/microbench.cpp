// microbench: an ab-compatible command line over the microbench library. ab's flags, ab's report
// (line for line), plus threads, durations without ab's 50,000 cap, pipelining, JSON, exact
// percentiles, response checks with CI gates, the five-scenario suite, side-by-side comparison
// and the self-test, an HTML report of every mode (--html) and of saved results (`microbench
// report`). Exit: 0 done, 1 usage, 2 unreachable, 3 check/gate failed, 130 interrupted.
#include "profile.hpp"  // first: it may leave features of the library out

#include <cstdio>
#include <cstring>

#include "microbench.hpp"
#include "modes.hpp"
#include "parse.hpp"
#include "single.hpp"
#ifndef MICROBENCH_NO_MERGE
#include "merge_command.hpp"
#endif

namespace {

namespace mb = microbench;

// --check-args: the arguments passed every check parse() makes; say what would run.
int check_args(const cli::options& o) {
    if (o.run_mode != cli::options::mode::single) {
        std::printf("microbench: the arguments are valid\n");
        return 0;
    }
    const mb::plan p = cli::to_plan(o, o.url_text);
    std::printf("microbench: the arguments are valid: %s %s, -n %llu, -c %u, %u thread(s)", p.method().c_str(),
                p.url().c_str(), static_cast<unsigned long long>(p.requests()), p.concurrency(), p.threads());
    if (const std::uint64_t targets = mb::target_count(p))
        std::printf(", %llu targets in turn", static_cast<unsigned long long>(targets));
    if (p.duration_ms()) std::printf(", for %.3f s", static_cast<double>(p.duration_ms()) / 1e3);
    if (p.rate() > 0 && p.stages().empty()) std::printf(", %.3f requests/s", p.rate());
    if (!p.stages().empty()) std::printf(", the rate in %zu stages from %.3f requests/s", p.stages().size(), p.rate());
    if (o.find_capacity) std::printf(", searching for the capacity");
    if (p.shard_count()) std::printf(", shard %u of %u", p.shard_index(), p.shard_count());
    if (p.start_at_unix_ms())
        std::printf(", starting at Unix time %.3f", static_cast<double>(p.start_at_unix_ms()) / 1e3);
    std::printf("\n");
    return 0;
}

// `microbench report` and `microbench merge`, or -1 when the command line names neither.
int run_subcommand(int argc, char** argv) {
    if (argc < 2) return -1;
    const bool report = std::strcmp(argv[1], "report") == 0;
    const bool merge = std::strcmp(argv[1], "merge") == 0;
    if (!report && !merge) return -1;
#ifndef MICROBENCH_NO_HTML
    if (report) return cli::run_report_command(argc, argv, 2);
#endif
#ifndef MICROBENCH_NO_MERGE
    if (merge) return cli::run_merge_command(argc, argv, 2);
#endif
    std::fprintf(stderr, "microbench %s: not in this build of microbench (built with MICROBENCH_NO_%s)\n", argv[1],
                 report ? "HTML" : "MERGE");
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (const int status = run_subcommand(argc, argv); status >= 0) return status;
    cli::options o;
    const cli::parse_outcome parsed = cli::parse(argc, argv, o);
    if (parsed.exit_now) return parsed.exit_code;
    if (o.check_args) return check_args(o);
    if (const char* name = o.unverified_credentials())
        std::fprintf(
            stderr, "microbench: warning: %s is sent over TLS without --verify: the server's identity is not checked\n",
            name);
    switch (o.run_mode) {
        case cli::options::mode::self_test: return cli::run_self_test(o);
        case cli::options::mode::suite: return cli::run_suites(o);
        case cli::options::mode::compare: return cli::run_compare(o);
        case cli::options::mode::single: break;
    }
    return cli::run_single(o);
}
