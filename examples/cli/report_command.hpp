// examples/cli/report_command.hpp — `microbench report FILE... --html OUT [--title TEXT]`: saved
// --json results of any mode read back and drawn in one HTML report. With several files, each
// file's runs are labelled by its name (and A/B within a comparison or a two-URL suite); one file
// is labelled as the run that wrote it labelled it (its URL's path, or A and B). An HdrHistogram
// interval log (hlog_command.hpp's is_hlog) is a section of its own, named after the file, each of
// its tags a run with its rows over time. Exit: 0 written, 1 a usage error, an unreadable or
// unrecognised file, or an unwritable output.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "hlog_command.hpp"
#include "options.hpp"
#include "microbench.hpp"

namespace cli {

inline const char* report_usage() {
    return "Usage: microbench report RESULT.json|LOG.hlog... --html FILE [--title TEXT] [--hlog-memory MB]   "
           "(microbench --help-all: in detail)\n";
}

// A subcommand's usage error: "microbench COMMAND: PROBLEM", then its usage; exit status 1.
inline int subcommand_error(const char* command, const std::string& problem, const char* usage) {
    std::fprintf(stderr, "microbench %s: %s\n%s", command, problem.c_str(), usage);
    return 1;
}

inline int report_usage_error(const std::string& problem) {
    return subcommand_error("report", problem, report_usage());
}

// The title a single run, a comparison or a suite gives its HTML report, from its runs alone, so
// `microbench report` of its saved result draws the same one: "microbench: GET URL", "microbench:
// A vs B", "microbench suite" or "microbench suite: A vs B"; else "microbench report". (The
// self-test titles its own "microbench self-test"; its JSON redraws as a two-URL suite.)
inline std::string report_title(const std::vector<mb::report_run>& runs) {
    if (runs.empty()) return "microbench report";
    const bool two = std::any_of(runs.begin(), runs.end(), [](const mb::report_run& r) { return r.label == "B"; });
    if (!runs[0].scenario.empty()) return two ? "microbench suite: A vs B" : "microbench suite";
    if (two && runs.size() == 2) return "microbench: A vs B";
    if (runs.size() == 1) return "microbench: " + runs[0].config.method + " " + runs[0].config.url;
    return "microbench report";
}

// `argv[first]` onwards: the files and the options.
inline int run_report_command(int argc, char** argv, int first) {
    std::vector<std::string> files;
    std::string html_path;
    mb::html_options ho;
    bool titled = false;
    std::size_t max_bytes = mb::hlog_default_max_bytes;  // a log's counters, at most
    for (int i = first; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--html" || arg == "--title" || arg == "--hlog-memory") {
            if (i + 1 >= argc) return report_usage_error("option " + arg + " needs a value");
            if (arg == "--hlog-memory") {
                if (!parse_hlog_memory(argv[++i], max_bytes)) return report_usage_error(hlog_memory_rule);
                continue;
            }
            (arg == "--html" ? html_path : ho.title) = argv[++i];
            titled = titled || arg == "--title";
        } else if (arg.compare(0, 7, "--html=") == 0) {
            html_path = arg.substr(7);
        } else if (arg.compare(0, 8, "--title=") == 0) {
            ho.title = arg.substr(8);
            titled = true;
        } else if (arg == "-h" || arg == "--help") {
            std::fputs(report_usage(), stdout);
            return 0;
        } else if (arg.size() > 1 && arg[0] == '-') {
            return report_usage_error("unknown option " + shown(arg));
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) return report_usage_error("no results or logs given");
    if (html_path.empty()) return report_usage_error("--html FILE is needed (- for stdout)");
    std::vector<mb::report_run> runs;
    std::vector<std::string> labels;
    std::string problem;  // the field a result was refused for, or a log's line
    bool logs = false;
    for (const std::string& path : files) {
        std::string text;
        if (!read_file(path.c_str(), text)) {
            std::fprintf(stderr, "microbench report: cannot read %s: %s\n", shown(path).c_str(), std::strerror(errno));
            return 1;
        }
        const std::string label = unique_file_label(path, labels);
        const std::size_t before = runs.size();
        if (is_hlog(path, text)) {  // a section named after the file, a run per tag
            if (!add_log_runs("microbench report", std::move(text), path, label, max_bytes, runs)) return 1;
            if (runs.size() == before) {
                std::fprintf(stderr, "microbench report: no interval rows in %s\n", shown(path).c_str());
                return 1;
            }
            logs = true;
        } else if (mb::error e =
                       mb::read_report_runs(text, files.size() == 1 ? std::string() : label, runs, &problem)) {
            std::fprintf(stderr, "microbench report: %s: %s (%s", shown(path).c_str(), e.message(), e.name());
            if (e.code == mb::errc::json_bad) std::fprintf(stderr, ", at byte %zu", e.position);
            std::fprintf(stderr, ")%s%s\n", problem.empty() ? "" : ": ", problem.c_str());
            return 1;
        }
        std::fprintf(stderr, "%s: %zu run%s\n", shown(path).c_str(), runs.size() - before,
                     runs.size() - before == 1 ? "" : "s");
    }
    ho.generated_unix_ms = now_unix_ms();
    if (!titled && files.size() == 1)  // one file: as its run titled it; a log by its name
        ho.title = logs ? "microbench report: " + labels[0] : report_title(runs);
    else if (!titled)
        ho.title = "microbench report";
    if (!write_text_file(html_path, mb::html_report(runs, ho), "microbench report")) return 1;
    if (html_path != "-")
        std::fprintf(stderr, "Wrote %s: %zu run%s from %zu file%s.\n", html_path.c_str(), runs.size(),
                     runs.size() == 1 ? "" : "s", files.size(), files.size() == 1 ? "" : "s");
    return 0;
}

}  // namespace cli
