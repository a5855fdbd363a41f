// microbench: an ab-compatible command line over the microbench library. ab's flags, ab's report
// (line for line), plus threads, durations without ab's 50,000 cap, pipelining, JSON, exact
// percentiles. Exit: 0 run completed, 1 usage error, 2 target unreachable, 130 interrupted.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cli_options.hpp"
#include "microbench.hpp"

namespace mb = microbench;

namespace {

mb::cancel_token* interrupt_token = nullptr;
void on_sigint(int) {
    if (interrupt_token) interrupt_token->cancel();  // a lock-free atomic store: signal-safe
}

struct progress_state {
    bool tty = false;
    std::uint64_t every = 0;  // ab's heartbeat: a line every max(n/10, 100) requests
    std::uint64_t next = 0;
};

void on_progress(const mb::progress& p, void* user) {
    auto* s = static_cast<progress_state*>(user);
    if (s->tty) {
        double seconds = static_cast<double>(p.elapsed_ns) / 1e9;
        if (p.target) std::fprintf(stderr, "\r%llu/%llu requests (%.0f%%), %.1f s   ", static_cast<unsigned long long>(p.ended),
                                   static_cast<unsigned long long>(p.target), 100.0 * static_cast<double>(p.ended) / static_cast<double>(p.target), seconds);
        else std::fprintf(stderr, "\r%llu requests, %.1f s   ", static_cast<unsigned long long>(p.ended), seconds);
        return;
    }
    while (s->every && p.ended >= s->next) {
        std::fprintf(stderr, "Completed %llu requests\n", static_cast<unsigned long long>(s->next));
        s->next += s->every;
    }
}

bool write_file(const std::string& path, const std::string& text) {
    if (path == "-") return std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    return std::fclose(f) == 0 && ok;
}

// The target could not be reached at all: every request failed before a byte came back.
bool unreachable(const mb::result& r) {
    return r.requests_ended > 0 && r.failed(mb::failure::connect) == r.requests_ended;
}

}  // namespace

int main(int argc, char** argv) {
    cli::options o;
    cli::parse_outcome parsed = cli::parse(argc, argv, o);
    if (parsed.exit_now) return parsed.exit_code;

    mb::plan plan = cli::to_plan(o);
    mb::cancel_token interrupted;
    plan.cancel_with(&interrupted);
    progress_state progress;
    progress.tty = isatty(STDERR_FILENO) != 0;
    if (!o.quiet) {
        progress.every = o.requests > 150 ? std::max<std::uint64_t>(o.requests / 10, 100) : 0;  // ab's heartbeat
        progress.next = progress.every;
        plan.on_progress(on_progress, &progress, progress.tty ? 200 : 0, progress.tty ? 0 : (progress.every ? progress.every : 0));
    }
    const bool json_to_stdout = o.json_path == "-";
    if (!json_to_stdout) {
        std::printf("This is microbench, Version %s (ab-compatible)\n\nBenchmarking %s (be patient)%s", mb::version_string,
                    o.target.host.c_str(), o.quiet ? "....." : "\n");
        std::fflush(stdout);
    }
    if (o.verbosity >= 2) {
        std::string request;
        if (!mb::build_request(o.target, plan.request(), request)) std::fprintf(stderr, "---\n%s\n---\n", request.c_str());
    }

    interrupt_token = &interrupted;
    signal(SIGINT, on_sigint);
    mb::result r;
    mb::error e = mb::run(plan, r);
    signal(SIGINT, SIG_DFL);
    if (progress.tty && !o.quiet) std::fprintf(stderr, "\r%60s\r", "");
    if (e) {
        std::fprintf(stderr, "microbench: %s (%s)\n", e.message(), e.name());
        return e.code == mb::errc::run_resolve_failed ? 2 : 1;
    }
    if (!o.quiet && !progress.tty && progress.every) {  // the heartbeats the last poll missed, then ab's last line
        on_progress(mb::progress{r.requests_ended, o.requests, r.elapsed_ns}, &progress);
        if (!r.cancelled) std::fprintf(stderr, "Finished %llu requests\n", static_cast<unsigned long long>(r.requests_ended));
    }
    if (o.quiet && !json_to_stdout) std::printf("..done\n");

    std::string text;
    if (r.cancelled)
        mb::detail::appendf(text, "\nTest interrupted after %llu requests: the figures below are partial (%llu still in flight were not counted).\n",
                            static_cast<unsigned long long>(r.requests_ended), static_cast<unsigned long long>(r.unfinished));
    text += "\n\n";
    mb::report_context ctx = cli::to_report_context(o);
    mb::ab_report_options ab;
    ab.confidence = !o.short_table;
    ab.percentiles = !o.no_percentiles;
    mb::append_ab_report(ctx, r, text, ab);
    mb::append_report_notes(ctx, r, text);
    if (o.latency) mb::append_latency_section(r, o.percentiles, text);
    if (!json_to_stdout) std::fwrite(text.data(), 1, text.size(), stdout);

    int status = r.cancelled ? 130 : 0;
    if (!o.csv_path.empty() && !write_file(o.csv_path, mb::percentiles_csv(r)))
        std::fprintf(stderr, "microbench: cannot write %s: %s\n", o.csv_path.c_str(), std::strerror(errno)), status = 1;
    if (!o.gnuplot_path.empty() && !write_file(o.gnuplot_path, mb::gnuplot_tsv(r)))
        std::fprintf(stderr, "microbench: cannot write %s: %s\n", o.gnuplot_path.c_str(), std::strerror(errno)), status = 1;
    if (!o.json_path.empty() && !write_file(o.json_path, mb::result_json(plan, r, o.percentiles)))
        std::fprintf(stderr, "microbench: cannot write %s: %s\n", o.json_path.c_str(), std::strerror(errno)), status = 1;
    if (unreachable(r)) {
        std::fprintf(stderr, "microbench: %s:%u cannot be reached: all %llu connection attempts failed\n",
                     o.target.host.c_str(), static_cast<unsigned>(o.target.port), static_cast<unsigned long long>(r.requests_ended));
        return 2;
    }
    return status;
}
