// examples/cli/hlog_command.hpp — HdrHistogram interval logs (microbench --hlog's, or any
// HdrHistogram writer's: Java, C, .NET's UTF-16, hdr-histogram-js') as `microbench merge LOG...`
// and microbench-hlog read them: every interval of every log merged exactly, per tag, printed as
// a table of counts and percentiles in milliseconds, or one tag's .hgrm spectrum (--hgrm TAG,
// "(none)" for untagged rows), and drawn in an HTML report (--html: with several logs the merged
// tags, then each log's tags with its rows over time). Also how a file is told to be a log.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "options.hpp"
#include "microbench.hpp"

namespace cli {

// True when `path` or its `text` (its first 8 bytes are enough) is an HdrHistogram interval log
// rather than a --json result: its name ends in .hlog, or it starts (after a UTF-8 byte-order
// mark) with a '#' header or a "Tag=" row, or it is UTF-16 as hlog_reader takes it (FF FE, or a
// NUL second byte: .NET's logs); a result starts with '{' or '['.
inline bool is_hlog(const std::string& path, const std::string& text) {
    if (path.size() > 5 && path.compare(path.size() - 5, 5, ".hlog") == 0) return true;
    if (text.compare(0, 2, "\xff\xfe") == 0 || text.find('\0') == 1) return true;
    const std::size_t at = text.compare(0, 3, "\xef\xbb\xbf") == 0 ? 3 : 0;
    return text.compare(at, 1, "#") == 0 || text.compare(at, 4, "Tag=") == 0;
}

// is_hlog from the file's name and first bytes into `log`; false, after saying on stderr as `who`
// that it cannot be read and why, when it cannot be opened.
inline bool file_is_hlog(const char* who, const std::string& path, bool& log) {
    char head[8] = {};
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        std::fprintf(stderr, "%s: cannot read %s: %s\n", who, shown(path).c_str(), std::strerror(errno));
        return false;
    }
    const std::size_t n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    log = is_hlog(path, std::string(head, n));
    return true;
}

// The table: a line per tag — its intervals, count, min, percentiles and max in ms, and the
// seconds from its first row's start to its last row's end.
inline void append_hlog_table(const std::vector<mb::hlog_tag_total>& totals, std::size_t files, std::string& out) {
    using mb::detail::appendf;
    appendf(out, "%zu log%s, every interval merged exactly; values in ms\n\n", files, files == 1 ? "" : "s");
    appendf(out, "%-14s %9s %12s %12s %12s %12s %12s %12s %12s %12s %9s\n", "Tag", "Intervals", "Count", "Min", "50%",
            "90%", "99%", "99.9%", "99.99%", "Max", "Seconds");
    for (const mb::hlog_tag_total& t : totals) {
        const mb::histogram& h = t.values;
        appendf(out, "%-14s %9zu %12llu %12.6f", mb::hlog_tag_name(t.tag).c_str(), t.intervals,
                static_cast<unsigned long long>(h.count()), static_cast<double>(h.min()) / 1e6);
        for (double p : {50.0, 90.0, 99.0, 99.9, 99.99})
            appendf(out, " %12.6f", static_cast<double>(h.value_at_percentile(p)) / 1e6);
        appendf(out, " %12.6f %9.3f\n", static_cast<double>(h.max()) / 1e6, t.last_end_s - t.first_start_s);
    }
}

// Writes `out` to stdout; false after saying why, as `who`, when it cannot.
inline bool write_stdout(const char* who, const std::string& out) {
    if (std::fwrite(out.data(), 1, out.size(), stdout) == out.size() && std::fflush(stdout) == 0) return true;
    std::fprintf(stderr, "%s: cannot write the output: %s\n", who, std::strerror(errno));
    return false;
}

// What to do with the merged logs: print the table, or one tag's spectrum, and maybe draw them.
struct hlog_merge_options {
    std::string hgrm_tag;   // non-empty: print this tag's .hgrm instead of the table
    std::string html_path;  // non-empty: draw the merged tags and each log's (needs the HTML report)
    std::string title = "microbench merge";
    std::size_t max_bytes = mb::hlog_default_max_bytes;  // --hlog-memory
};

// --hlog-memory MB: the most the logs' histogram counters may take, 1 to 65,536 MiB (as much as
// this machine's size_t holds), into `bytes`; false when out of range.
inline bool parse_hlog_memory(const char* text, std::size_t& bytes) {
    std::uint64_t mib = 0;
    if (!parse_uint(text, 1, 65536, mib)) return false;
    bytes = mib > (SIZE_MAX >> 20) ? SIZE_MAX : static_cast<std::size_t>(mib << 20);
    return true;
}

constexpr const char* hlog_memory_rule = "--hlog-memory takes MiB from 1 to 65536 (the default: 128)";

// The counters the runs of logs in `runs` hold (their values).
inline std::size_t log_runs_bytes(const std::vector<mb::report_run>& runs) {
    std::size_t bytes = 0;
    for (const mb::report_run& run : runs)
        if (run.log_rows) bytes += mb::histogram::memory_bytes(run.r.total_ns.config());
    return bytes;
}

// Appends the log `text` read from `path` to `runs` as `who`, in section `label`, within what is
// left of `max_bytes` beside the logs' runs already in `runs` (and, when `all` is given, adding
// every row to it too, within `max_bytes` of its own). False after saying why on stderr.
inline bool add_log_runs(const char* who, std::string text, const std::string& path, const std::string& label,
                         std::size_t max_bytes, std::vector<mb::report_run>& runs,
                         std::vector<mb::hlog_tag_total>* all = nullptr) {
    std::string problem;
    const std::size_t spent = log_runs_bytes(runs);
    if (spent < max_bytes &&
        mb::add_hlog_runs(std::move(text), shown(path), label, runs, problem, all, max_bytes - spent))
        return true;
    if (problem.empty()) problem = "no room left";
    std::fprintf(stderr, "%s: %s: %s", who, shown(path).c_str(), problem.c_str());
    if (spent)
        std::fprintf(stderr, " (the logs before it hold %s of --hlog-memory)", mb::detail::size_text(spent).c_str());
    std::fprintf(stderr, "\n");
    return false;
}

// Reads each log of `files` into `totals` (every row merged into its tag's) and, when `runs` is
// given, into it too (each log's tags, its rows over time, in a section named after the file).
// False after saying on stderr, as `who`, which file could not be read or which line of it was
// wrong and why.
inline bool read_hlogs(const char* who, const std::vector<std::string>& files, std::size_t max_bytes,
                       std::vector<mb::hlog_tag_total>& totals, std::vector<mb::report_run>* runs = nullptr) {
    std::vector<std::string> labels;
    for (const std::string& path : files) {
        std::string text, problem;
        if (!read_file(path.c_str(), text)) {
            std::fprintf(stderr, "%s: cannot read %s: %s\n", who, shown(path).c_str(), std::strerror(errno));
            return false;
        }
        if (runs) {
            const std::string label = unique_file_label(path, labels);
            if (!add_log_runs(who, std::move(text), path, label, max_bytes, *runs, &totals)) return false;
        } else if (!mb::add_hlog_totals(std::move(text), totals, problem, max_bytes)) {
            std::fprintf(stderr, "%s: %s: %s\n", who, shown(path).c_str(), problem.c_str());
            return false;
        }
    }
    if (!totals.empty()) return true;
    std::fprintf(stderr, "%s: no interval rows in %s\n", who,
                 files.size() == 1 ? shown(files[0]).c_str() : "these logs");
    return false;
}

// Merges the logs `files` and prints (or draws) them as `o` says, as `who`; nothing is written
// unless every log was read, and the table (or spectrum) only after the HTML. --html draws each
// merged tag in a section "every log merged" (with several logs), then each log's tags. Exit
// status: 0, or 1 when a log cannot be read, holds no row, has no rows of --hgrm's tag or an
// output cannot be written.
inline int run_hlog_merge(const char* who, const std::vector<std::string>& files, const hlog_merge_options& o) {
    if (o.html_path == "-") {
        std::fprintf(stderr, "%s: --html needs a file name (the table goes to stdout)\n", who);
        return 1;
    }
    std::vector<mb::hlog_tag_total> totals;
    std::vector<mb::report_run> runs;  // for --html
#ifdef MICROBENCH_NO_HTML
    if (!o.html_path.empty()) {
        std::fprintf(stderr, "%s: --html is not in this build (built with MICROBENCH_NO_HTML)\n", who);
        return 1;
    }
#endif
    if (!read_hlogs(who, files, o.max_bytes, totals, o.html_path.empty() ? nullptr : &runs)) return 1;
    std::string out;
    if (!o.hgrm_tag.empty()) {
        for (const mb::hlog_tag_total& t : totals)
            if (mb::hlog_tag_name(t.tag) == o.hgrm_tag) mb::append_hgrm(t.values, 1e6, 5, out);
        if (out.empty()) {
            std::fprintf(stderr, "%s: no rows tagged %s (the logs' tags:", who, shown(o.hgrm_tag).c_str());
            for (const mb::hlog_tag_total& t : totals)
                std::fprintf(stderr, " %s", shown(mb::hlog_tag_name(t.tag)).c_str());
            std::fprintf(stderr, ")\n");
            return 1;
        }
    } else {
        append_hlog_table(totals, files.size(), out);
    }
#ifndef MICROBENCH_NO_HTML
    if (!o.html_path.empty()) {
        if (files.size() > 1) {
            std::vector<mb::report_run> merged;
            for (mb::hlog_tag_total& t : totals) {  // the table is written: the totals move into the runs
                const std::string source = mb::hlog_source(t.tag, "every log");
                merged.push_back(mb::hlog_tag_run(std::move(t), "every log merged", source));
            }
            runs.insert(runs.begin(), std::make_move_iterator(merged.begin()), std::make_move_iterator(merged.end()));
        }
        mb::html_options ho;
        ho.title = o.title;
        ho.generated_unix_ms = now_unix_ms();
        if (!write_text_file(o.html_path, mb::html_report(runs, ho), who)) return 1;
    }
#endif
    return write_stdout(who, out) ? 0 : 1;
}

}  // namespace cli
