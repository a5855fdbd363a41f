// examples/cli/outputs.hpp — what the microbench command line's runs share around the library's
// run: Ctrl-C, ab's progress lines, the files written beside the report (--hgrm, --html, the
// interval files of --intervals and --hlog), the gates' verdicts, and the messages for a run that
// could not start. It starts no run itself.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "report_command.hpp"
#include "microbench.hpp"
#include "options.hpp"

namespace cli {

inline mb::cancel_token interrupted;
inline void on_sigint(int) { interrupted.cancel(); }  // a lock-free atomic store: signal-safe

// Ctrl-C cancels the run in progress (the library's cancel token) for as long as this lives.
struct interrupt_scope {
    interrupt_scope() { signal(SIGINT, on_sigint); }
    ~interrupt_scope() { signal(SIGINT, SIG_DFL); }
};

constexpr const char* interrupted_line = "\nTest interrupted: the figures below are partial.\n";

struct progress_state {
    bool tty = false;
    std::uint64_t every = 0;  // ab's heartbeat: a line every max(n/10, 100) requests
    std::uint64_t next = 0;
    bool timed = false;       // -t without -n: a line every tenth of the duration instead
    // On a terminal: the live line's rate (each window of at least 0.2 s weighed half against the
    // rate before it), the run's length for -t, the percentiles so far (of every interval's
    // response times, merged: the run has intervals for them, its own or the line's), and how wide
    // the last line was, to cover it.
    std::int64_t duration_ms = 0;
    std::uint64_t last_ended = 0;
    std::int64_t last_ns = 0;
    double rate = -1;  // requests/s; -1: not measured yet
    std::unique_ptr<mb::histogram> so_far;  // on a terminal: the response times of the intervals ended
    std::int64_t p50_ns = -1, p99_ns = -1;  // of so_far; -1 until a response is in it
    bool own_intervals = false;  // the intervals are the live line's alone: their rows leave the result
    std::size_t width = 0;    // of the line on the terminal now; 0: none
    void* chained = nullptr;  // --hlog's file, which the intervals' histograms go on to
};

// Columns of the terminal on stderr; 0 when it does not say.
inline std::size_t terminal_columns() {
    winsize size{};
    return ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

// The live line: "4520/10000 (45%)  1502/s  0 failed  p50 1.20 ms  p99 3.45 ms  3.0 s, ~3.6 s left",
// rewritten in place a few times a second, padded with spaces over a longer line before it (no
// escape sequence: a dumb terminal shows it as well), and cut one short of the terminal's width (a
// line that filled it would wrap, and '\r' would go back to the wrong line).
inline void print_live_line(progress_state& s, const mb::progress& p) {
    const double seconds = static_cast<double>(p.elapsed_ns) / 1e9;
    const std::int64_t since = p.elapsed_ns - s.last_ns;
    if (since >= 200'000'000) {  // the rate over at least 0.2 s, smoothed
        const double now = static_cast<double>(p.ended - s.last_ended) * 1e9 / static_cast<double>(since);
        s.rate = s.rate < 0 ? now : 0.5 * s.rate + 0.5 * now;
        s.last_ended = p.ended;
        s.last_ns = p.elapsed_ns;
    }
    std::string line = "\r";
    if (p.target)
        mb::detail::appendf(line, "%llu/%llu (%.0f%%)", static_cast<unsigned long long>(p.ended),
                            static_cast<unsigned long long>(p.target),
                            100.0 * static_cast<double>(p.ended) / static_cast<double>(p.target));
    else
        mb::detail::appendf(line, "%llu requests", static_cast<unsigned long long>(p.ended));
    if (s.rate >= 0) mb::detail::appendf(line, "  %.0f/s", s.rate);
    mb::detail::appendf(line, "  %llu failed", static_cast<unsigned long long>(std::min(p.failed, p.ended)));
    if (s.p50_ns >= 0) mb::detail::appendf(line, "  p50 %.2f ms  p99 %.2f ms", s.p50_ns / 1e6, s.p99_ns / 1e6);
    mb::detail::appendf(line, "  %.1f s", seconds);
    // Whichever ends the run first: the duration, or -n at the current rate.
    double left = -1;
    if (s.duration_ms > 0) left = std::max(0.0, static_cast<double>(s.duration_ms) / 1e3 - seconds);
    if (p.target && s.rate > 0) {
        const double by_count = static_cast<double>(p.target - std::min(p.ended, p.target)) / s.rate;
        left = left < 0 ? by_count : std::min(left, by_count);
    }
    if (left >= 0) mb::detail::appendf(line, ", ~%.1f s left", left);
    const std::size_t columns = terminal_columns();
    const std::size_t room = columns > 0 ? columns - 1 : SIZE_MAX;
    if (line.size() - 1 > room) line.resize(1 + room);
    const std::size_t width = line.size() - 1;  // without the '\r'
    if (width < s.width) line.append(std::min(s.width, room) - width, ' ');
    s.width = width;
    std::fputs(line.c_str(), stderr);
}

// Takes the live line off the terminal, if one is there.
inline void clear_live_line(progress_state& s) {
    if (!s.width) return;
    std::fprintf(stderr, "\r%*s\r", static_cast<int>(s.width), "");
    s.width = 0;
}

inline void on_progress(const mb::progress& p, void* user) {
    auto* s = static_cast<progress_state*>(user);
    const auto count = [](std::uint64_t n) { return static_cast<unsigned long long>(n); };
    if (s->tty) return print_live_line(*s, p);
    if (s->timed) {
        std::fprintf(stderr, "Completed %llu requests\n", count(p.ended));
        return;
    }
    while (s->every && p.ended >= s->next) {
        std::fprintf(stderr, "Completed %llu requests\n", count(s->next));
        s->next += s->every;
    }
}

inline bool write_file(const std::string& path, const std::string& text) { return write_text_file(path, text); }

// PATH with `tag` before its extension (r.hgrm -> r.service.hgrm; r -> r.service).
inline std::string tagged_path(const std::string& path, const char* tag) {
    const std::size_t slash = path.rfind('/');
    const std::size_t dot = path.rfind('.');
    const bool has_ext = dot != std::string::npos && dot > 0 && (slash == std::string::npos || dot > slash + 1);
    return has_ext ? path.substr(0, dot) + "." + tag + path.substr(dot) : path + "." + tag;
}

// --hgrm: the total time's spectrum in a closed loop; at a fixed rate the response time's in PATH
// and the service time's beside it, or both on stdout after wrk2's titles.
inline bool write_hgrm(const std::string& path, const mb::result& r) {
    constexpr double ms = 1e6;
    std::string main_text;
    std::string service_text;
    if (r.rate_target <= 0) {
        mb::append_hgrm(r.total_ns, ms, 5, main_text);
        return write_file(path, main_text);
    }
    mb::append_hgrm(r.response_ns, ms, 5, main_text);
    mb::append_hgrm(r.total_ns, ms, 5, service_text);
    if (path == "-")
        return write_file(path, "  Latency Distribution (HdrHistogram - Recorded Latency)\n" + main_text +
                                    "\n  Latency Distribution (HdrHistogram - Uncorrected Latency (measured without "
                                    "taking delayed starts into account))\n" +
                                    service_text);
    return write_file(path, main_text) && write_file(tagged_path(path, "service"), service_text);
}

// --html FILE: a mode's runs, drawn in one report at the end. A build without the HTML report
// (MICROBENCH_NO_HTML) refuses --html while parsing, so it never has runs to draw.
struct html_runs {
#ifndef MICROBENCH_NO_HTML
    std::vector<mb::report_run> runs;

    // Adds a run (a copy of its result: the caller still prints its own report).
    void add(std::string label, const std::string& scenario, const mb::plan& p, const mb::result& r) {
        runs.emplace_back();
        runs.back().label = std::move(label);
        runs.back().scenario = scenario;
        runs.back().config = mb::describe(p);
        runs.back().r = r;
    }
    // Writes the report to --html's file (false, said on stderr, when it cannot); `title` empty:
    // the runs' own title.
    bool write(const options& o, const std::string& title = "") const {
        mb::html_options ho;
        ho.title = title.empty() ? report_title(runs) : title;
        ho.generated_unix_ms = now_unix_ms();
        ho.percentiles = o.percentiles;
        return write_file(o.html_path, mb::html_report(runs, ho));
    }
#else
    void add(const std::string&, const std::string&, const mb::plan&, const mb::result&) {}
    bool write(const options&, const std::string& = "") const { return true; }
#endif
};

// --intervals FILE and --hlog FILE: a row written and flushed as each interval closes. The file is
// opened before the run (so an unwritable path stops it at once) but emptied only once the run has
// started: a run that cannot start leaves an existing file as it was, and removes one it made.
struct interval_file {
    std::string path;
    std::string header;    // written first, when the run has started
    FILE* file = nullptr;
    bool made = false;     // the file did not exist before
    bool started = false;  // emptied and headed
    bool open_model = false;  // --hlog: rows of a fixed rate or stages (three tags each, one a target of 0 too)
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
        if (error) return;
        if (std::fwrite(text.data(), 1, text.size(), file) != text.size() || std::fflush(file) != 0) error = errno;
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

inline void on_interval(const mb::interval_stats& row, void* user) {
    auto* csv = static_cast<interval_file*>(user);
    csv->line.clear();
    mb::append_interval_csv_row(row, csv->line);
    csv->write(csv->line);
}

// --hlog: the interval's histograms as tagged rows of HdrHistogram's log, its header first.
inline void on_interval_histograms(const mb::interval_stats& row, const mb::interval_histograms& h, void* user) {
    auto* log = static_cast<interval_file*>(user);
    if (!log->started) mb::append_hlog_header(static_cast<double>(h.run_start_realtime_ns) / 1e9, log->header);
    log->line.clear();
    mb::append_hlog_interval(row, log->open_model, *h.response, *h.service, *h.schedule_lag, log->line);
    log->write(log->line);
}

// On a terminal: each interval's response times join the run's so far, whose p50 and p99 the
// live line shows; the histograms then go on to --hlog's file.
inline void on_interval_histograms_live(const mb::interval_stats& row, const mb::interval_histograms& h, void* user) {
    auto* s = static_cast<progress_state*>(user);
    s->so_far->merge(*h.response);
    if (s->so_far->count()) {
        s->p50_ns = s->so_far->value_at_percentile(50);
        s->p99_ns = s->so_far->value_at_percentile(99);
    }
    if (s->chained) on_interval_histograms(row, h, s->chained);
}

// The gates' verdicts on a result, judged once: for stderr and for the JSON.
struct judged {
    std::vector<mb::gate_verdict> verdicts;
    std::string json;  // result_json's `extra`: ,"gates":{…}
};

// `checked`: the run checked its responses (--check, --expect-status, --expect-body,
// --expect-body-contains, --expect-body-regex; the self-test always).
inline judged judge(const options& o, const mb::result& r, bool checked) {
    judged j;
    j.verdicts = mb::judge_gates(o.limits, r, checked);
    if (!j.verdicts.empty()) mb::append_gates_json(j.verdicts, j.json);
    return j;
}

// The verdicts as lines on stderr, whatever stdout carries: the broken ones always, the held ones
// unless -q. Returns how many broke.
inline int say_gates(const options& o, const judged& j, const char* label) {
    std::string lines;
    const int broken = mb::append_gate_lines(j.verdicts, label, lines, !o.quiet);
    std::fflush(stdout);  // after the report on a terminal
    std::fputs(lines.c_str(), stderr);
    return broken;
}

// The target could not be reached at all: every request failed before a byte came back.
inline bool unreachable(const mb::result& r) {
    return r.requests_ended > 0 && r.failed(mb::failure::connect) == r.requests_ended;
}

// -E, -Z, -f or --cacert: the flag whose setting the TLS library refused, and why.
inline std::pair<const char*, const char*> refused_tls_setting(std::size_t fault) {
    switch (fault) {
        case mb::tls_setup_fault::ciphers: return {"-Z", "no cipher it knows (openssl ciphers -v lists them)"};
        case mb::tls_setup_fault::certificate:
            return {"-E", "not a PEM certificate chain with its matching private key"};
        case mb::tls_setup_fault::ca_file: return {"--cacert", "no certificate authorities could be read from it"};
        default: return {"-f", "a version it will not speak"};
    }
}

// A run of plan `p` that could not start: say why — for a low open-file limit the need, the
// limit and the command; for -B the address at fault — and exit 2 when the target cannot be
// resolved, else 1. `who`: "" for the run, or the suite's scenario ("the stress scenario's ").
inline int start_failed(const mb::error& e, const options& o, const mb::plan& p, const std::string& who = "") {
    std::fflush(stdout);
    rlimit files{};
    mb::url target;
    mb::source_fault fault;
    if (e.code == mb::errc::plan_bad_bind_address && !mb::parse_url(p.url(), target))
        fault = bind_fault(o.bind_address, target, o.connect_to, true);
    if (e.code == mb::errc::run_fd_limit && getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_max != RLIM_INFINITY) {
        const unsigned long long need = mb::detail::descriptors_needed(p);  // besides those already open
        const unsigned long long limit = files.rlim_max;
        std::fprintf(stderr,
                     "microbench: %s-c %u needs more than %llu open files, but this process may open at most %llu "
                     "(its hard limit, ulimit -Hn): raise it (as root: ulimit -Hn %llu && ulimit -n %llu; for a "
                     "service, LimitNOFILE=) or lower -c\n",
                     who.c_str(), p.concurrency(), need, limit, need + 1024, need + 1024);
    } else if (fault) {
        std::fprintf(stderr, "microbench: %s\n", bind_fault_line(o.bind_address, fault).c_str());
#ifndef MICROBENCH_NO_TLS
    } else if (e.code == mb::errc::run_tls_unavailable) {  // the remedy, and what the loader met
        std::fprintf(stderr, "microbench: %s (%s): %s\n", e.message(), e.name(),
                     mb::detail::openssl_load_problem().c_str());
#endif
    } else if (e.code == mb::errc::run_tls_setup && e.position != 0) {  // which flag's setting the TLS library refused
        const auto refused = refused_tls_setting(e.position);
        std::fprintf(stderr, "microbench: %s%s was refused by the TLS library: %s (%s)\n", who.c_str(), refused.first,
                     refused.second, e.name());
    } else {
        std::fprintf(stderr, "microbench: %s (%s)\n", e.message(), e.name());
    }
    return e.code == mb::errc::run_resolve_failed || e.code == mb::errc::run_tls_unavailable ? 2 : 1;
}

}  // namespace cli
