// microbench: an ab-compatible command line over the microbench library. ab's flags, ab's report
// (line for line), plus threads, durations without ab's 50,000 cap, pipelining, JSON, exact
// percentiles, response checks with CI gates, the five-scenario suite, side-by-side comparison
// and the self-test, an HTML report of every mode (--html) and of saved results (`microbench
// report`). Exit: 0 done, 1 usage, 2 unreachable, 3 check/gate failed, 130 interrupted.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <iterator>
#include <utility>
#include <cstring>
#include <string>
#include <vector>

#include "cli_parse.hpp"
#include "microbench.hpp"
#include "merge_command.hpp"
#include "report_command.hpp"

namespace mb = microbench;

namespace {

mb::cancel_token interrupted;
void on_sigint(int) { interrupted.cancel(); }  // a lock-free atomic store: signal-safe

// Ctrl-C cancels the run in progress (the library's cancel token) for as long as this lives.
struct interrupt_scope {
    interrupt_scope() { signal(SIGINT, on_sigint); }
    ~interrupt_scope() { signal(SIGINT, SIG_DFL); }
};

const char* interrupted_line = "\nTest interrupted: the figures below are partial.\n";

struct progress_state {
    bool tty = false;
    std::uint64_t every = 0;  // ab's heartbeat: a line every max(n/10, 100) requests
    std::uint64_t next = 0;
    bool timed = false;       // -t without -n: a line every tenth of the duration instead
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
    if (s->timed) {
        std::fprintf(stderr, "Completed %llu requests\n", static_cast<unsigned long long>(p.ended));
        return;
    }
    while (s->every && p.ended >= s->next) {
        std::fprintf(stderr, "Completed %llu requests\n", static_cast<unsigned long long>(s->next));
        s->next += s->every;
    }
}

bool write_file(const std::string& path, const std::string& text) { return cli::write_text_file(path, text); }

// PATH with `tag` before its extension (r.hgrm -> r.service.hgrm; r -> r.service).
std::string tagged_path(const std::string& path, const char* tag) {
    const std::size_t slash = path.rfind('/'), dot = path.rfind('.');
    const bool has_ext = dot != std::string::npos && dot > 0 && (slash == std::string::npos || dot > slash + 1);
    return has_ext ? path.substr(0, dot) + "." + tag + path.substr(dot) : path + "." + tag;
}

// --hgrm: the total time's spectrum in a closed loop; at a fixed rate the response time's in PATH
// and the service time's beside it, or both on stdout after wrk2's titles.
bool write_hgrm(const std::string& path, const mb::result& r) {
    constexpr double ms = 1e6;
    std::string main_text, service_text;
    if (r.rate_target <= 0) {
        mb::append_hgrm(r.total_ns, ms, 5, main_text);
        return write_file(path, main_text);
    }
    mb::append_hgrm(r.response_ns, ms, 5, main_text);
    mb::append_hgrm(r.total_ns, ms, 5, service_text);
    if (path == "-")
        return write_file(path, "  Latency Distribution (HdrHistogram - Recorded Latency)\n" + main_text +
                                    "\n  Latency Distribution (HdrHistogram - Uncorrected Latency (measured without taking delayed starts into "
                                    "account))\n" + service_text);
    return write_file(path, main_text) && write_file(tagged_path(path, "service"), service_text);
}

// --html FILE: the runs drawn in one report; false (said on stderr) when it cannot be written.
bool write_html(const cli::options& o, const std::vector<mb::report_run>& runs, const std::string& title) {
    mb::html_options ho;
    ho.title = title;
    ho.generated_unix_ms = cli::now_unix_ms();
    ho.percentiles = o.percentiles;
    return write_file(o.html_path, mb::html_report(runs, ho));
}

// Adds a run to a report (a copy of its result: the caller still prints its own report).
void add_run(std::vector<mb::report_run>& runs, std::string label, const std::string& scenario, const mb::plan& p, const mb::result& r) {
    runs.emplace_back();
    runs.back().label = std::move(label);
    runs.back().scenario = scenario;
    runs.back().config = mb::describe(p);
    runs.back().r = r;
}

// --intervals FILE and --hlog FILE: a row written and flushed as each interval closes. The file is
// opened before the run (so an unwritable path stops it at once) but emptied only once the run has
// started: a run that cannot start leaves an existing file as it was, and removes one it made.
struct interval_file {
    std::string path;
    std::string header;    // written first, when the run has started
    FILE* file = nullptr;
    bool made = false;     // the file did not exist before
    bool started = false;  // emptied and headed
    int error = 0;         // errno of the first failed write
    std::string line;

    bool open() {
        if (path == "-") {
            file = stdout;
            return true;
        }
        int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        made = fd >= 0;
        if (fd < 0 && errno == EEXIST) fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd >= 0 && !(file = fdopen(fd, "w"))) ::close(fd);
        return file != nullptr;
    }
    void write(const std::string& text) {
        if (!started) {
            started = true;
            struct stat st {};
            const bool regular = file != stdout && fstat(fileno(file), &st) == 0 && S_ISREG(st.st_mode);
            if (regular && ftruncate(fileno(file), 0) != 0) error = errno;  // not a pipe or a device
            write(header);
        }
        if (!error && (std::fwrite(text.data(), 1, text.size(), file) != text.size() || std::fflush(file) != 0)) error = errno;
    }
    // After the run: closes the file, or puts things back when the run did not start.
    void close(bool run_started) {
        if (!file) return;
        if (run_started) write("");  // a run without a whole interval still leaves the header
        if (file != stdout) {
            if (std::fclose(file) != 0 && !error && run_started) error = errno;
            if (!run_started && made) ::unlink(path.c_str());
        }
        file = nullptr;
    }
};

void on_interval(const mb::interval_stats& row, void* user) {
    auto* csv = static_cast<interval_file*>(user);
    csv->line.clear();
    mb::append_interval_csv_row(row, csv->line);
    csv->write(csv->line);
}

// --hlog: the interval's histograms as tagged rows of HdrHistogram's log, its header first.
void on_interval_histograms(const mb::interval_stats& row, const mb::interval_histograms& h, void* user) {
    auto* log = static_cast<interval_file*>(user);
    if (!log->started) mb::append_hlog_header(static_cast<double>(h.run_start_realtime_ns) / 1e9, log->header);
    log->line.clear();
    mb::append_hlog_interval(row, row.target > 0, *h.response, *h.service, *h.schedule_lag, log->line);
    log->write(log->line);
}

// The gates' verdicts on a result, judged once: for stderr and for the JSON.
struct judged {
    std::vector<mb::gate_verdict> verdicts;
    std::string json;  // result_json's `extra`: ,"gates":{…}
};

// `checked`: the run checked its responses (--check, --expect-status, --expect-body; the self-test always).
judged judge(const cli::options& o, const mb::result& r, bool checked) {
    judged j;
    j.verdicts = mb::judge_gates(o.limits, r, checked);
    if (!j.verdicts.empty()) mb::append_gates_json(j.verdicts, j.json);
    return j;
}

// The verdicts as lines on stderr, whatever stdout carries: the broken ones always, the held ones
// unless -q. Returns how many broke.
int say_gates(const cli::options& o, const judged& j, const char* label) {
    std::string lines;
    const int broken = mb::append_gate_lines(j.verdicts, label, lines, !o.quiet);
    std::fflush(stdout);  // after the report on a terminal
    std::fputs(lines.c_str(), stderr);
    return broken;
}

// The target could not be reached at all: every request failed before a byte came back.
bool unreachable(const mb::result& r) {
    return r.requests_ended > 0 && r.failed(mb::failure::connect) == r.requests_ended;
}

}  // namespace

// A run of plan `p` that could not start: say why — for a low open-file limit the need, the
// limit and the command; for -B the address at fault — and exit 2 when the target cannot be
// resolved, else 1. `who`: "" for the run, or the suite's scenario ("the stress scenario's ").
int start_failed(const mb::error& e, const cli::options& o, const mb::plan& p, const std::string& who = "") {
    std::fflush(stdout);
    rlimit files{};
    mb::url target;
    mb::source_fault fault;
    if (e.code == mb::errc::plan_bad_bind_address && !mb::parse_url(p.url(), target)) fault = cli::bind_fault(o.bind_address, target, true);
    if (e.code == mb::errc::run_fd_limit && getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_max != RLIM_INFINITY) {
        const unsigned long long need = mb::detail::descriptors_needed(p);  // besides those already open
        std::fprintf(stderr, "microbench: %s-c %u needs more than %llu open files, but this process may open at most %llu (its hard "
                             "limit, ulimit -Hn): raise it (as root: ulimit -Hn %llu && ulimit -n %llu; for a service, LimitNOFILE=) "
                             "or lower -c\n", who.c_str(), p.concurrency(), need, static_cast<unsigned long long>(files.rlim_max),
                     need + 1024, need + 1024);
    } else if (fault) {
        std::fprintf(stderr, "microbench: %s\n", cli::bind_fault_line(o.bind_address, fault).c_str());
#ifndef MICROBENCH_NO_TLS
    } else if (e.code == mb::errc::run_tls_unavailable) {  // the remedy, and what the loader met
        std::fprintf(stderr, "microbench: %s (%s): %s\n", e.message(), e.name(), mb::detail::openssl_load_problem().c_str());
#endif
    } else if (e.code == mb::errc::run_tls_setup && e.position != 0) {  // which flag's setting the TLS library refused
        const char* flag = "-f";
        const char* why = "a version it will not speak";
        switch (e.position) {
            case mb::tls_setup_fault::ciphers: flag = "-Z", why = "no cipher it knows (openssl ciphers -v lists them)"; break;
            case mb::tls_setup_fault::certificate: flag = "-E", why = "not a PEM certificate chain with its matching private key"; break;
            case mb::tls_setup_fault::ca_file: flag = "--cacert", why = "no certificate authorities could be read from it"; break;
            default: break;
        }
        std::fprintf(stderr, "microbench: %s%s was refused by the TLS library: %s (%s)\n", who.c_str(), flag, why, e.name());
    } else {
        std::fprintf(stderr, "microbench: %s (%s)\n", e.message(), e.name());
    }
    return e.code == mb::errc::run_resolve_failed || e.code == mb::errc::run_tls_unavailable ? 2 : 1;
}

// --check-args: the arguments passed every check parse() makes; say what would run.
int check_args(const cli::options& o) {
    if (o.run_mode != cli::options::mode::single) {
        std::printf("microbench: the arguments are valid\n");
        return 0;
    }
    const mb::plan p = cli::to_plan(o, o.url_text);
    std::printf("microbench: the arguments are valid: %s %s, -n %llu, -c %u, %u thread(s)", p.method().c_str(), p.url().c_str(),
                static_cast<unsigned long long>(p.requests()), p.concurrency(), p.threads());
    if (p.duration_ms()) std::printf(", for %.3f s", static_cast<double>(p.duration_ms()) / 1e3);
    if (p.rate() > 0) std::printf(", %.3f requests/s", p.rate());
    if (p.shard_count()) std::printf(", shard %u of %u", p.shard_index(), p.shard_count());
    if (p.start_at_unix_ms()) std::printf(", starting at Unix time %.3f", static_cast<double>(p.start_at_unix_ms()) / 1e3);
    std::printf("\n");
    return 0;
}

// Adds {"scenario":…,"result":…} to a JSON array being written ("[" so far, or items and no "]").
void append_scenario_json(std::string& json, const mb::scenario_result& s, const std::vector<double>& percentiles,
                          const std::string& extra) {
    if (json.size() > 1) json += ",";
    json += "{\"scenario\":\"" + s.scenario + "\",\"result\":" + mb::result_json(mb::describe(s.p), s.r, percentiles, extra) + "}";
}

int run_self_test(const cli::options& o) {
    const double scale = o.scale > 0 ? o.scale : 0.25;
    FILE* says = o.json_path == "-" ? stderr : stdout;  // stdout carries the JSON alone
    std::fprintf(says, "microbench %s self-test: the built-in server on 127.0.0.1, the five-scenario suite (scale %g) against\n"
                       "/factorial/100 and /factorial?n=100, every response checked to be exactly 100!\n\n", mb::version_string, scale);
    std::fflush(says);
    std::vector<mb::scenario_result> results;
    bool passed = false;
    if (mb::error e = mb::self_test(scale, 100, results, passed)) {
        std::fprintf(stderr, "microbench: self-test could not run: %s\n", e.message());
        return 1;
    }
    std::string text, json = "[";
    mb::append_suite_table(results, text);
    std::uint64_t total = 0, failed = 0;
    for (const mb::scenario_result& s : results) {
        total += s.r.requests_ended;
        failed += s.r.requests_failed;
        if (!o.json_path.empty()) append_scenario_json(json, s, o.percentiles, judge(o, s.r, true).json);  // every answer checked
    }
    std::string verdict;
    mb::detail::appendf(verdict, "Self-test %s: %llu requests, %llu failed.\n", passed ? "passed" : "FAILED",
                        static_cast<unsigned long long>(total), static_cast<unsigned long long>(failed));
    text += "\n" + verdict;
    if (o.json_path == "-") std::fputs(verdict.c_str(), stderr);
    else std::fwrite(text.data(), 1, text.size(), stdout);
    if (!o.json_path.empty() && !write_file(o.json_path, json + "]\n")) return 1;
    if (!o.html_path.empty()) {
        std::vector<mb::report_run> runs;  // the two URL forms side by side, labelled by their paths
        for (const mb::scenario_result& s : results) add_run(runs, mb::run_label(s.url), s.scenario, s.p, s.r);
        if (!write_html(o, runs, "microbench self-test")) return 1;
    }
    return passed ? 0 : 3;
}

int run_suites(const cli::options& o) {
    mb::suite_options so;
    so.scale = o.scale > 0 ? o.scale : 1.0;
    so.threads = o.threads;
    so.factorial_check = o.check_factorial;
    so.timeout_ms = o.timeout_ms;
    so.headers = o.headers;
    so.tls = o.tls;
    so.raise_fd_limit = true;
    so.cancel = &interrupted;
    std::vector<mb::scenario_result> a, b;
    {
        interrupt_scope ctrl_c;
        for (auto target : {std::make_pair(&o.url_text, &a), std::make_pair(&o.url_b, &b)}) {
            if (target.first->empty() || interrupted.cancelled()) continue;
            if (!o.quiet) std::fprintf(stderr, "Running the suite against %s\n", target.first->c_str());
            if (mb::error e = mb::run_suite(*target.first, so, *target.second)) {
                const mb::scenario& failed = mb::classic_suite[std::min(target.second->size(), std::size(mb::classic_suite) - 1)];
                mb::plan p;
                (void)mb::suite_plan(*target.first, failed, so, p);  // what it tried, for the message
                return start_failed(e, o, p, std::string("the ") + failed.name + " scenario's ");
            }
        }
    }
    std::string text = interrupted.cancelled() ? interrupted_line : "", json = "[";
    mb::append_suite_table(a, text);
    if (!b.empty()) {
        text += "\n";
        mb::append_suite_table(b, text);
        text += "\nSide by side (A = " + o.url_text + ", B = " + o.url_b + "):\n";
        mb::append_compare_table(a, b, text);
    }
    std::vector<judged> verdicts;
    for (const auto* list : {&a, &b})
        for (const mb::scenario_result& s : *list) {
            verdicts.push_back(judge(o, s.r, o.checks_responses()));
            append_scenario_json(json, s, o.percentiles, verdicts.back().json);
        }
    json += "]\n";
    if (o.json_path != "-") std::fwrite(text.data(), 1, text.size(), stdout);
    int broken = 0;
    std::size_t at = 0;
    for (const auto* list : {&a, &b})
        for (const mb::scenario_result& s : *list) {
            const std::string label = b.empty() ? s.scenario : (list == &a ? "A " : "B ") + s.scenario;
            broken += say_gates(o, verdicts[at++], label.c_str());
        }
    if (!o.json_path.empty() && !write_file(o.json_path, json)) return 1;
    if (!o.html_path.empty()) {
        std::vector<mb::report_run> runs;
        for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)  // scenario by scenario: A, then B
            for (const auto* list : {&a, &b})
                if (i < list->size()) add_run(runs, list == &a ? "A" : "B", (*list)[i].scenario, (*list)[i].p, (*list)[i].r);
        if (!write_html(o, runs, cli::report_title(runs))) return 1;
    }
    return interrupted.cancelled() ? 130 : broken ? 3 : 0;
}

int run_compare(const cli::options& o) {
    const std::uint32_t rounds = o.rounds ? o.rounds : 3;
    std::vector<mb::result> ra(rounds), rb(rounds);
    mb::plan pa = cli::to_plan(o, o.url_text), pb = cli::to_plan(o, o.url_b);
    pa.cancel_with(&interrupted);
    pb.cancel_with(&interrupted);
    std::uint32_t complete = 0;  // rounds in which both ran uninterrupted
    {
        interrupt_scope ctrl_c;
        for (std::uint32_t i = 0; i < rounds && !interrupted.cancelled(); ++i) {  // alternate who goes first
            for (int k = 0; k < 2 && !interrupted.cancelled(); ++k) {
                bool first_a = i % 2 == 0;
                bool run_a = (k == 0) == first_a;
                if (!o.quiet) std::fprintf(stderr, "Round %u: %s\n", i + 1, (run_a ? o.url_text : o.url_b).c_str());
                if (mb::error e = mb::run(run_a ? pa : pb, run_a ? ra[i] : rb[i])) return start_failed(e, o, run_a ? pa : pb);
            }
            if (!interrupted.cancelled()) ++complete;
        }
    }
    if (complete < rounds) {
        std::printf("%s", interrupted_line);
        if (complete == 0) {
            std::printf("No round of both targets completed: nothing to compare.\n");
            return 130;
        }
        ra.resize(complete);
        rb.resize(complete);
    }
    auto median = [](std::vector<mb::result>& rs) -> mb::result& {
        std::vector<std::size_t> order(rs.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return rs[x].requests_per_second() < rs[y].requests_per_second(); });
        return rs[order[order.size() / 2]];
    };
    std::vector<mb::scenario_result> a(1), b(1);
    a[0].scenario = b[0].scenario = "workload";
    a[0].url = o.url_text, b[0].url = o.url_b;
    a[0].r = median(ra), b[0].r = median(rb);
    std::string text;
    mb::detail::appendf(text, "A = %s\nB = %s\n%u rounds, alternating; the median round by requests/s of each:\n\n", o.url_text.c_str(),
                        o.url_b.c_str(), complete);
    mb::append_compare_table(a, b, text);
    const judged verdict_a = judge(o, a[0].r, o.checks_responses()), verdict_b = judge(o, b[0].r, o.checks_responses());
    if (o.json_path != "-") std::fwrite(text.data(), 1, text.size(), stdout);
    const int broken = say_gates(o, verdict_a, "A") + say_gates(o, verdict_b, "B");
    if (!o.json_path.empty() &&
        !write_file(o.json_path, "{\"a\":" + mb::result_json(mb::describe(pa), a[0].r, o.percentiles, verdict_a.json) +
                                     ",\"b\":" + mb::result_json(mb::describe(pb), b[0].r, o.percentiles, verdict_b.json) + "}\n"))
        return 1;
    if (!o.html_path.empty()) {
        std::vector<mb::report_run> runs;
        add_run(runs, "A", "", pa, a[0].r);
        add_run(runs, "B", "", pb, b[0].r);
        if (!write_html(o, runs, cli::report_title(runs))) return 1;
    }
    return complete < rounds ? 130 : broken ? 3 : 0;
}

int run_single(const cli::options& o) {
    mb::plan plan = cli::to_plan(o, o.url_text);
    plan.cancel_with(&interrupted);
    progress_state progress;
    progress.tty = isatty(STDERR_FILENO) != 0;
    if (!o.quiet) {
        progress.every = o.requests > 150 ? std::max<std::uint64_t>(o.requests / 10, 100) : 0;  // ab's heartbeat
        progress.next = progress.every;
        progress.timed = !progress.tty && o.requests == 0;
        const std::int64_t every_ms = progress.tty ? 200 : progress.timed ? std::max<std::int64_t>(o.duration_ms / 10, 1) : 0;
        plan.on_progress(on_progress, &progress, every_ms, progress.tty ? 0 : progress.every);
    }
    interval_file csv, hlog;
    if (!o.intervals_path.empty()) {
        csv.path = o.intervals_path;
        csv.header = mb::intervals_csv_header;
        if (!csv.open()) {
            cli::say_cannot_write("microbench", csv.path, errno);
            return 1;
        }
        plan.on_interval(on_interval, &csv);
    }
    if (!o.hlog_path.empty()) {
        hlog.path = o.hlog_path;
        if (!hlog.open()) {
            cli::say_cannot_write("microbench", hlog.path, errno);
            csv.close(false);
            return 1;
        }
        plan.on_interval_histograms(on_interval_histograms, &hlog);
    }
    const bool stdout_is_data = o.stdout_is_data();  // then no banner, request block or report there
    // ab's banner: its line ends at once when heartbeats follow (more than 150 requests, or a
    // duration), else it takes "..." now and "..done" at the end.
    const bool dots = o.quiet || (o.requests > 0 && o.requests <= 150);
    if (!stdout_is_data) {
        std::printf("This is microbench, Version %s (ab-compatible)\n\nBenchmarking %s (be patient)%s", mb::version_string,
                    o.target.host.c_str(), dots ? "..." : "\n");
        std::fflush(stdout);
    }
    if (o.verbosity >= 2) {  // ab's block, on stdout unless stdout carries the JSON
        std::string request;
        if (!mb::build_request(o.target, plan.request(), request))
            std::fprintf(stdout_is_data ? stderr : stdout, "INFO: %s header == \n---\n%s\n---\n", o.method.c_str(), request.c_str());
        std::fflush(stdout);
    }

    mb::result r;
    mb::error e;
    {
        interrupt_scope ctrl_c;
        e = mb::run(plan, r);
    }
    if (progress.tty && !o.quiet) std::fprintf(stderr, "\r%60s\r", "");
    csv.close(!e && r.start_realtime_ns != 0);  // a run cancelled while it waited to start never started
    if (!hlog.started) mb::append_hlog_header(static_cast<double>(r.start_realtime_ns) / 1e9, hlog.header);
    hlog.close(!e && r.start_realtime_ns != 0);
    if (e && dots && !stdout_is_data) std::printf("\n");  // end the banner's line of dots
    if (e) return start_failed(e, o, plan);
    if (!o.quiet && !progress.tty && (progress.every || progress.timed)) {  // the heartbeats the last poll missed, then ab's last line
        if (progress.every) on_progress(mb::progress{r.requests_ended, o.requests, r.elapsed_ns}, &progress);
        if (!r.cancelled) std::fprintf(stderr, "Finished %llu requests\n", static_cast<unsigned long long>(r.requests_ended));
    }
    if (dots && !stdout_is_data) std::printf("..done\n");

    std::string text;
    if (r.cancelled)
        mb::detail::appendf(text, "\nTest interrupted after %llu requests: the figures below are partial (%llu still in flight were not counted).\n",
                            static_cast<unsigned long long>(r.requests_ended), static_cast<unsigned long long>(r.unfinished));
    text += "\n\n";
    mb::report_context ctx = mb::report_context_of(plan);
    ctx.sent_body = o.sent_body;  // ab prints the body-sent lines whenever -p or -u is given, an empty file too
    mb::ab_report_options ab;
    ab.confidence = !o.short_table;
    ab.percentiles = !o.no_percentiles;
    mb::append_ab_report(ctx, r, text, ab);
    mb::append_report_notes(ctx, r, text);
    if (o.latency) mb::append_latency_section(r, o.percentiles, text);
    mb::append_open_model_section(r, text);
    mb::append_intervals_summary(r, text, !o.intervals_path.empty());
    if (plan.shard_count())
        mb::detail::appendf(text, "\nShard %u of %u (from 0): -n, -c and --rate above are this shard's share; merge the shards' "
                                  "--json with microbench merge.\n", plan.shard_index(), plan.shard_count());
    if (plan.start_at_unix_ms() && !r.cancelled)
        mb::detail::appendf(text, "Started %.3f ms after the requested start time (--start-at/--start-in).\n",
                            static_cast<double>(r.start_realtime_ns - r.start_requested_realtime_ns) / 1e6);
    if (!stdout_is_data) std::fwrite(text.data(), 1, text.size(), stdout);
    const judged verdicts = judge(o, r, o.checks_responses());
    const int broken = say_gates(o, verdicts, "");

    int status = r.cancelled ? 130 : broken ? 3 : 0;
    if (!o.csv_path.empty() && !write_file(o.csv_path, mb::percentiles_csv(r))) status = 1;
    if (!o.gnuplot_path.empty() && !write_file(o.gnuplot_path, mb::gnuplot_tsv(r))) status = 1;
    if (!o.hgrm_path.empty() && !write_hgrm(o.hgrm_path, r)) status = 1;
    for (const interval_file* f : {&csv, &hlog})
        if (f->error) {
            cli::say_cannot_write("microbench", f->path, f->error);
            status = 1;
        }
    if (!o.json_path.empty() && !write_file(o.json_path, mb::result_json(mb::describe(plan), r, o.percentiles, verdicts.json))) status = 1;
    if (!o.html_path.empty()) {
        std::vector<mb::report_run> runs;
        add_run(runs, mb::run_label(plan.url()), "", plan, r);
        if (!write_html(o, runs, cli::report_title(runs))) status = 1;
    }
    if (unreachable(r) && !r.cancelled) {  // interrupted is 130, whatever had failed by then
        const bool local = r.port_waits || r.descriptor_waits || r.memory_waits;
        std::fprintf(stderr, "microbench: %s:%u cannot be reached: all %llu connection attempts failed%s\n",
                     o.target.host.c_str(), static_cast<unsigned>(o.target.port), static_cast<unsigned long long>(r.requests_ended),
                     local ? " (some waited in vain for a local port, descriptor or buffer: see the notes above)" : "");
        return 2;
    }
    return status;
}

int main(int argc, char** argv) {
    if (argc > 1 && (std::strcmp(argv[1], "report") == 0 || std::strcmp(argv[1], "merge") == 0) && cli::names_a_log(argc, argv, 2))
        return cli::refuse_logs(argv[1]);
    if (argc > 1 && std::strcmp(argv[1], "report") == 0) return cli::run_report_command(argc, argv, 2);
    if (argc > 1 && std::strcmp(argv[1], "merge") == 0) return cli::run_merge_command(argc, argv, 2);
    cli::options o;
    cli::parse_outcome parsed = cli::parse(argc, argv, o);
    if (parsed.exit_now) return parsed.exit_code;
    if (o.check_args) return check_args(o);
    if (const char* name = o.unverified_credentials())
        std::fprintf(stderr, "microbench: warning: %s is sent over TLS without --verify: the server's identity is not checked\n", name);
    switch (o.run_mode) {
        case cli::options::mode::self_test: return run_self_test(o);
        case cli::options::mode::suite: return run_suites(o);
        case cli::options::mode::compare: return run_compare(o);
        case cli::options::mode::single: break;
    }
    return run_single(o);
}
