// examples/cli/report_command.hpp — `microbench report RESULT.json... --html FILE [--title TEXT]`:
// saved --json results of any mode read back and drawn in one HTML report. With several files,
// each file's runs are labelled by its name (and A/B within a comparison or a two-URL suite); one
// file is labelled as the run that wrote it labelled it (its URL's path, or A and B). Exit: 0 written,
// 1 a usage error, an unreadable or unrecognised file, or an unwritable output.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "options.hpp"
#include "microbench.hpp"

namespace cli {

inline const char* report_usage() {
    return "Usage: microbench report RESULT.json... --html FILE [--title TEXT]   (microbench --help-all: in detail)\n";
}

// A subcommand's usage error: "microbench COMMAND: PROBLEM", then its usage; exit status 1.
inline int subcommand_error(const char* command, const std::string& problem, const char* usage) {
    std::fprintf(stderr, "microbench %s: %s\n%s", command, problem.c_str(), usage);
    return 1;
}

inline int report_usage_error(const std::string& problem) {
    return subcommand_error("report", problem, report_usage());
}

// True when an argument from `first` on names an HdrHistogram interval log (NAME.hlog).
inline bool names_a_log(int argc, char** argv, int first) {
    for (int i = first; i < argc; ++i) {
        const std::size_t n = std::strlen(argv[i]);
        if (n > 5 && std::strcmp(argv[i] + n - 5, ".hlog") == 0) return true;
    }
    return false;
}

// `microbench report|merge LOG.hlog...`: interval logs are read by microbench-hlog, the program
// installed beside this one (it holds the log reader and inflate, which the CLI's size budget
// leaves out). Says so; exit status 1.
inline int refuse_logs(const char* command) {
    std::fprintf(stderr, "microbench %s: HdrHistogram logs are read by microbench-hlog LOG... [--hgrm TAG]\n", command);
    return 1;
}

// "runs/b.json" -> "b".
inline std::string file_label(const std::string& path) {
    std::size_t slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) name.resize(name.size() - 5);
    return name;
}

// Says on stderr, as `who`, that `path` could not be written and why (`err`, an errno value read
// where the call failed: by the time of the message other calls have changed errno).
inline void say_cannot_write(const char* who, const std::string& path, int err) {
    std::fprintf(stderr, "%s: cannot write %s: %s\n", who, shown(path).c_str(), std::strerror(err));
}

// Writes `text` to `path` ("-": stdout); false, after saying why, when it cannot.
inline bool write_text_file(const std::string& path, const std::string& text, const char* who = "microbench") {
    int err = 0;
    if (path == "-") {
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) err = errno;
    } else if (FILE* f = std::fopen(path.c_str(), "wb")) {
        if (std::fwrite(text.data(), 1, text.size(), f) != text.size()) err = errno;
        if (std::fclose(f) != 0 && !err) err = errno;
    } else {
        err = errno;
    }
    if (err) say_cannot_write(who, path, err);
    return err == 0;
}

inline std::int64_t now_unix_ms() { return mb::realtime_ns() / 1'000'000; }

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
    for (int i = first; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--html" || arg == "--title") {
            if (i + 1 >= argc) return report_usage_error("option " + arg + " needs a value");
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
    if (files.empty()) return report_usage_error("no result files given");
    if (html_path.empty()) return report_usage_error("--html FILE is needed (- for stdout)");
    std::vector<mb::report_run> runs;
    std::vector<std::string> labels;
    std::string problem;  // the field a result was refused for
    for (const std::string& path : files) {
        std::string text;
        if (!read_file(path.c_str(), text)) {
            std::fprintf(stderr, "microbench report: cannot read %s: %s\n", shown(path).c_str(), std::strerror(errno));
            return 1;
        }
        std::string label = file_label(path);
        for (int k = 2; std::find(labels.begin(), labels.end(), label) != labels.end(); ++k)
            mb::detail::appendf(label = file_label(path), " (%d)", k);
        labels.push_back(label);
        const std::size_t before = runs.size();
        if (mb::error e = mb::read_report_runs(text, files.size() == 1 ? std::string() : label, runs, &problem)) {
            std::fprintf(stderr, "microbench report: %s: %s (%s", shown(path).c_str(), e.message(), e.name());
            if (e.code == mb::errc::json_bad) std::fprintf(stderr, ", at byte %zu", e.position);
            std::fprintf(stderr, ")%s%s\n", problem.empty() ? "" : ": ", problem.c_str());
            return 1;
        }
        std::fprintf(stderr, "%s: %zu run%s\n", shown(path).c_str(), runs.size() - before,
                     runs.size() - before == 1 ? "" : "s");
    }
    ho.generated_unix_ms = now_unix_ms();
    if (!titled)
        ho.title = files.size() == 1 ? report_title(runs) : "microbench report";  // one file: as its run titled it
    if (!write_text_file(html_path, mb::html_report(runs, ho), "microbench report")) return 1;
    if (html_path != "-")
        std::fprintf(stderr, "Wrote %s: %zu runs from %zu files.\n", html_path.c_str(), runs.size(), files.size());
    return 0;
}

}  // namespace cli
