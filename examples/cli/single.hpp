// examples/cli/single.hpp — one run of the microbench command line, as ab makes it: the banner
// and progress lines, the run, ab's report with microbench's sections after it, the gates, and
// the files asked for (-e, -g, --hgrm, --json, --html, --intervals, --hlog). Exit: 0 done, 1 a
// file could not be written, 2 unreachable, 3 a gate broke or a check failed, 130 interrupted.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "microbench.hpp"
#include "capacity.hpp"
#include "options.hpp"
#include "outputs.hpp"

namespace cli {

// A run on a terminal without intervals of its own gets them, this long, for the live line.
constexpr std::int64_t live_interval_ms = 1000;

// ab's progress: a heartbeat every tenth of -n (at least 100 requests) when more than 150, a line
// every tenth of the duration for -t alone, or on a terminal a live line five times a second
// (done, rate, failures, p50 and p99 so far, time left).
inline void follow_progress(const options& o, mb::plan& plan, progress_state& progress) {
    progress.tty = isatty(STDERR_FILENO) != 0;
    if (o.quiet) return;
    progress.every = o.requests > 150 ? std::max<std::uint64_t>(o.requests / 10, 100) : 0;
    progress.next = progress.every;
    progress.timed = !progress.tty && o.requests == 0;
    progress.duration_ms = o.duration_ms;
    std::int64_t every_ms = 0;
    if (progress.tty) every_ms = 200;
    else if (progress.timed) every_ms = std::max<std::int64_t>(o.duration_ms / 10, 1);
    plan.on_progress(on_progress, &progress, every_ms, progress.tty ? 0 : progress.every);
}

// --intervals and --hlog: their files opened before the run; false (said) when one cannot be.
inline bool open_interval_files(const options& o, mb::plan& plan, interval_file& csv, interval_file& hlog) {
    if (!o.intervals_path.empty()) {
        csv.path = o.intervals_path;
        csv.header = mb::intervals_csv_header;
        if (!csv.open()) {
            say_cannot_write("microbench", csv.path, errno);
            return false;
        }
        plan.on_interval(on_interval, &csv);
    }
    if (!o.hlog_path.empty()) {
        hlog.path = o.hlog_path;
        hlog.open_model = plan.open_model();
        if (!hlog.open()) {
            say_cannot_write("microbench", hlog.path, errno);
            csv.close(false);
            return false;
        }
        plan.on_interval_histograms(on_interval_histograms, &hlog);
    }
    return true;
}

// ab's banner: its line ends at once when heartbeats follow (more than 150 requests, or a
// duration), else it takes "..." now and "..done" at the end (`dots`). With -v 2 or more, the
// request as ab's block. Nothing on stdout when stdout carries data.
inline void print_banner(const options& o, const mb::plan& plan, bool dots) {
    const bool stdout_is_data = o.stdout_is_data();
    if (!stdout_is_data) {
        std::printf("This is microbench, Version %s (ab-compatible)\n\nBenchmarking %s (be patient)%s",
                    mb::version_string, o.target.host.c_str(), dots ? "..." : "\n");
        std::fflush(stdout);
    }
    if (o.verbosity < 2) return;
    std::string request;
    if (!mb::build_request(o.target, plan.request(), request))
        std::fprintf(stdout_is_data ? stderr : stdout, "INFO: %s header == \n---\n%s\n---\n", o.method.c_str(),
                     request.c_str());
    std::fflush(stdout);
}

// ab's report of `r`, then microbench's sections: notes, latency, the open model, intervals,
// the shard and the start time.
inline std::string single_report(const options& o, const mb::plan& plan, const mb::result& r) {
    std::string text;
    if (r.cancelled)
        mb::detail::appendf(text,
                            "\nTest interrupted after %llu requests: the figures below are partial (%llu still in "
                            "flight were not counted).\n",
                            static_cast<unsigned long long>(r.requests_ended),
                            static_cast<unsigned long long>(r.unfinished));
    text += "\n\n";
    mb::report_context ctx = mb::report_context_of(plan);
    ctx.sent_body = o.sent_body;  // ab prints the body-sent lines whenever -p or -u is given, an empty file too
    mb::ab_report_options ab;
    ab.confidence = !o.short_table;
    ab.percentiles = !o.no_percentiles;
    mb::append_ab_report(ctx, r, text, ab);
    mb::append_report_notes(ctx, r, text);
    mb::append_factorial_verdict(r, text);
    if (o.by_target) mb::append_by_target_table(r, text);
    if (o.latency) mb::append_latency_section(r, o.percentiles, text);
    mb::append_open_model_section(r, text);
    mb::append_intervals_summary(r, text, !o.intervals_path.empty());
    if (plan.shard_count())
        mb::detail::appendf(text,
                            "\nShard %u of %u (from 0): -n, -c and --rate above are this shard's share; merge the "
                            "shards' --json with microbench merge.\n",
                            plan.shard_index(), plan.shard_count());
    if (plan.start_at_unix_ms() && !r.cancelled)
        mb::detail::appendf(text, "Started %.3f ms after the requested start time (--start-at/--start-in).\n",
                            static_cast<double>(r.start_realtime_ns - r.start_requested_realtime_ns) / 1e6);
    return text;
}

// The files asked for beside the report; false when one could not be written (each said).
inline bool write_outputs(const options& o, const mb::plan& plan, const mb::result& r, const judged& verdicts,
                          const interval_file& csv, const interval_file& hlog) {
    bool ok = true;
    if (!o.csv_path.empty() && !write_file(o.csv_path, mb::percentiles_csv(r))) ok = false;
    if (!o.gnuplot_path.empty() && !write_file(o.gnuplot_path, mb::gnuplot_tsv(r))) ok = false;
    if (!o.hgrm_path.empty() && !write_hgrm(o.hgrm_path, r)) ok = false;
    for (const interval_file* f : {&csv, &hlog}) {
        if (!f->error) continue;
        say_cannot_write("microbench", f->path, f->error);
        ok = false;
    }
    if (!o.json_path.empty() &&
        !write_file(o.json_path, mb::result_json(mb::describe(plan), r, o.percentiles, verdicts.json)))
        ok = false;
    if (!o.html_path.empty()) {
        html_runs html;
        html.add(mb::run_label(plan.url()), "", plan, r);
        if (!html.write(o)) ok = false;
    }
    return ok;
}

inline int run_single(const options& o) {
    if (o.find_capacity) return run_capacity(o);
    mb::plan plan = to_plan(o, o.url_text);
    plan.cancel_with(&interrupted);
    progress_state progress;
    follow_progress(o, plan, progress);
    interval_file csv;
    interval_file hlog;
    if (!open_interval_files(o, plan, csv, hlog)) return 1;
    if (progress.tty && !o.quiet) {  // the live line's percentiles so far: every interval's histograms merged
        progress.own_intervals = plan.effective_interval_ms() == 0;
        if (progress.own_intervals) plan.interval_ms(live_interval_ms);
        progress.so_far = std::make_unique<mb::histogram>();
        progress.chained = hlog.path.empty() ? nullptr : &hlog;
        plan.on_interval_histograms(on_interval_histograms_live, &progress);
    }
    const bool stdout_is_data = o.stdout_is_data();  // then no banner, request block or report there
    const bool dots = o.quiet || (o.requests > 0 && o.requests <= 150);
    print_banner(o, plan, dots);

    mb::result r;
    mb::error e;
    {
        interrupt_scope ctrl_c;
        e = mb::run(plan, r);
    }
    clear_live_line(progress);
    if (progress.own_intervals) {  // the result is the same as off a terminal
        r.intervals.clear();
        r.interval_histograms.clear();
        r.interval_ns = 0;
    }
    csv.close(!e && r.start_realtime_ns != 0);  // a run cancelled while it waited to start never started
    if (!hlog.started) mb::append_hlog_header(static_cast<double>(r.start_realtime_ns) / 1e9, hlog.header);
    hlog.close(!e && r.start_realtime_ns != 0);
    if (e && dots && !stdout_is_data) std::printf("\n");  // end the banner's line of dots
    if (e) return start_failed(e, o, plan);
    if (!o.quiet && !progress.tty && (progress.every || progress.timed)) {
        // the heartbeats the last poll missed, then ab's last line
        if (progress.every) on_progress(mb::progress{r.requests_ended, o.requests, r.elapsed_ns}, &progress);
        if (!r.cancelled)
            std::fprintf(stderr, "Finished %llu requests\n", static_cast<unsigned long long>(r.requests_ended));
    }
    if (dots && !stdout_is_data) std::printf("..done\n");

    const std::string text = single_report(o, plan, r);
    if (!stdout_is_data) std::fwrite(text.data(), 1, text.size(), stdout);
    const judged verdicts = judge(o, r, o.checks_responses());
    const int broken = say_gates(o, verdicts, "");
    int status = 0;
    if (r.cancelled) status = 130;
    else if (broken) status = 3;
    if (!write_outputs(o, plan, r, verdicts, csv, hlog)) status = 1;
    if (!o.junit_path.empty() &&
        !write_file(o.junit_path, mb::junit_xml({{o.url_text, &r, verdicts.verdicts}}, "microbench")))
        status = 1;
    if (unreachable(r) && !r.cancelled) {  // interrupted is 130, whatever had failed by then
        const bool local = r.port_waits || r.descriptor_waits || r.memory_waits;
        const std::string where = !o.unix_socket.empty() ? "the Unix socket " + o.unix_socket
                                  : !r.connected_to.empty() ? r.connected_to
                                                            : mb::host_port_text(o.target.host, o.target.port);
        if (r.backlog_waits)  // something listens: its queue stayed full
            std::fprintf(stderr,
                         "microbench: %s took no connection: its listen queue stayed full for the whole connect "
                         "timeout (%llu connection attempts failed)\n",
                         where.c_str(),
                         static_cast<unsigned long long>(r.requests_ended));
        else
            std::fprintf(stderr, "microbench: %s cannot be reached: all %llu connection attempts failed%s\n",
                         where.c_str(), static_cast<unsigned long long>(r.requests_ended),
                         local ? " (some waited in vain for a local port, descriptor or buffer: see the notes above)"
                               : "");
        return 2;
    }
    // Every completed response an error status, none asked for: said once; the exit status stays ab's.
    if (r.requests_completed && r.non_2xx == r.requests_completed && o.expect_status.empty()) {
        std::string codes;
        for (int code = 100; code < 1000; ++code)
            if (r.status_counts[code])
                mb::detail::appendf(codes, "%s%d: %llu", codes.empty() ? "" : ", ", code,
                                    static_cast<unsigned long long>(r.status_counts[code]));
        std::fprintf(stderr, "microbench: warning: no completed response had a 2xx status (%s); they count as "
                             "completed, as in ab: --expect-status 200 fails them\n", codes.c_str());
    }
    return status;
}

}  // namespace cli
