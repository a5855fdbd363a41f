// examples/cli/merge_command.hpp — `microbench merge RESULT.json... [--json OUT] [--html OUT]`: the
// results of one plan from many generators (each one's --json, e.g. the shards of a Kubernetes
// Indexed Job) merged into one, printed as ab's report of the whole with what was merged: which
// shards (and which are missing), and how many histogram values the merge dropped; rows of runs
// that kept their intervals' histograms (--interval-histograms) merge exactly. `microbench merge
// LOG.hlog... [--hgrm TAG] [--html OUT]`: HdrHistogram interval logs merged per tag, exactly
// (hlog_command.hpp). Exit: 0 merged, 1 a usage error, an unreadable file, or inputs that do not
// merge (the message says which input differs and how).
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "options.hpp"
#include "microbench.hpp"
#include "hlog_command.hpp"
#include "report_command.hpp"

namespace cli {

inline const char* merge_usage() {
#ifndef MICROBENCH_NO_HTML
    return "Usage: microbench merge RESULT.json... [--json OUT|-] [--html OUT] [--title TEXT]\n"
           "       microbench merge LOG.hlog... [--hgrm TAG] [--html OUT] [--title TEXT] [--hlog-memory MB]   "
           "(microbench --help-all: in detail)\n";
#else
    return "Usage: microbench merge RESULT.json... [--json OUT|-]\n"
           "       microbench merge LOG.hlog... [--hgrm TAG] [--hlog-memory MB]   (microbench --help-all: in detail)\n";
#endif
}

inline int merge_usage_error(const std::string& problem) { return subcommand_error("merge", problem, merge_usage()); }

// "Merged 4 results: shards 0, 1, 2, 3 of 4" / "Merged 2 results: shards 0, 2 of 4 (missing 1, 3: the
// figures are of the shards present only)" / "Merged 2 results" (the caller adds the elapsed clause).
inline std::string merge_line(const mb::merge_summary& s) {
    std::string line;
    mb::detail::appendf(line, "Merged %zu result%s", s.inputs, s.inputs == 1 ? "" : "s");
    if (!s.shard_count) return line;
    std::vector<bool> seen(s.shard_count, false);
    for (std::uint32_t i : s.shards) seen[i] = true;
    std::string have, missing;
    for (std::uint32_t i = 0; i < s.shard_count; ++i)
        mb::detail::appendf(seen[i] ? have : missing, "%s%u", (seen[i] ? have : missing).empty() ? "" : ", ", i);
    mb::detail::appendf(line, ": shards %s of %u", have.c_str(), s.shard_count);
    if (!missing.empty())
        mb::detail::appendf(line, " (missing %s: the figures are of the shards present only)", missing.c_str());
    return line;
}

inline int run_merge_command(int argc, char** argv, int first) {
    std::vector<std::string> files;
    std::string json_path, html_path, hgrm_tag, title = "microbench merge", hlog_memory;
    for (int i = first; i < argc; ++i) {
        std::string arg = argv[i];
        std::string* value = arg == "--json"    ? &json_path
                             : arg == "--html"  ? &html_path
                             : arg == "--title" ? &title
                             : arg == "--hgrm"  ? &hgrm_tag
                             : arg == "--hlog-memory" ? &hlog_memory : nullptr;
        if (value) {
            if (i + 1 >= argc || !*argv[i + 1]) return merge_usage_error("option " + arg + " needs a value");
            *value = argv[++i];
        } else if (arg == "-h" || arg == "--help") {
            std::fputs(merge_usage(), stdout);
            return 0;
        } else if (arg.size() > 1 && arg[0] == '-') {
            return merge_usage_error("unknown option " + shown(arg));
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) return merge_usage_error("no results or logs given");
    if (html_path == "-") return merge_usage_error("--html needs a file name");
#ifdef MICROBENCH_NO_HTML
    if (!html_path.empty() || title != "microbench merge")
        return merge_usage_error("--html and --title are not in this build of microbench "
                                 "(built with MICROBENCH_NO_HTML)");
#endif
    std::size_t logs = 0;
    std::string a_log, a_result;  // one of each, for the message when both are given
    for (const std::string& path : files) {
        bool log = false;
        if (!file_is_hlog("microbench merge", path, log)) return 1;
        logs += log;
        (log ? a_log : a_result) = path;
    }
    if (logs > 0 && logs < files.size())
        return merge_usage_error("results and logs do not merge together: " + shown(a_log) +
                                 " is an HdrHistogram log, " + shown(a_result) + " is not");
    if (logs) {
        if (!json_path.empty())
            return merge_usage_error("--json takes results: logs merge into the table, --hgrm TAG or --html OUT");
        hlog_merge_options o{hgrm_tag, html_path, title};
        if (!hlog_memory.empty() && !parse_hlog_memory(hlog_memory.c_str(), o.max_bytes))
            return merge_usage_error(hlog_memory_rule);
        return run_hlog_merge("microbench merge", files, o);
    }
    if (!hgrm_tag.empty() || !hlog_memory.empty())
        return merge_usage_error(std::string(hgrm_tag.empty() ? "--hlog-memory" : "--hgrm") +
                                 " takes logs (NAME.hlog), not results");
    std::vector<mb::report_run> runs;
    std::string problem;  // the field a result was refused for
    for (const std::string& path : files) {
        std::string text;
        if (!read_file(path.c_str(), text)) {
            std::fprintf(stderr, "microbench merge: cannot read %s: %s\n", shown(path).c_str(), std::strerror(errno));
            return 1;
        }
        mb::json_value doc;
        runs.emplace_back();
        runs.back().label = shown(path);
        mb::error e = mb::parse_json(text, doc);
        if (!e && !doc.find("microbench")) e = {mb::errc::merge_nothing, 0};  // a --compare or --suite document
        if (!e) e = mb::read_result_json(doc, runs.back().config, runs.back().r, &problem);
        if (e) {
            std::fprintf(stderr, "microbench merge: %s: %s (%s)%s%s\n", shown(path).c_str(), e.message(), e.name(),
                         problem.empty() ? "" : ": ", problem.c_str());
            return 1;
        }
    }
    mb::report_run merged;
    mb::merge_summary summary;
    if (mb::error e = mb::merge_runs(runs, merged, summary)) {
        std::fprintf(stderr, "microbench merge: %s (%s): %s\n", e.message(), e.name(), summary.problem.c_str());
        return 1;
    }
    std::string text;
    if (json_path != "-") {
        mb::append_ab_report(mb::report_context_of(merged.config), merged.r, text);
        mb::append_open_model_section(merged.r, text);
        mb::detail::appendf(text, "\n%s; elapsed is from the earliest start to the latest end.\n",
                            merge_line(summary).c_str());
        mb::detail::appendf(text, "Histogram values dropped by the merge: %llu\n",
                            static_cast<unsigned long long>(summary.dropped));
        std::fwrite(text.data(), 1, text.size(), stdout);
    }
    std::vector<double> percentiles = {50, 90, 99, 99.9, 99.99};
    if (!json_path.empty()) {
        std::string merge;  // what was merged, as the document's last member
        mb::detail::appendf(merge, ",\"merge\":{\"inputs\":%zu,\"dropped\":%llu,\"shard_count\":%u,\"shards\":[",
                            summary.inputs, static_cast<unsigned long long>(summary.dropped), summary.shard_count);
        for (std::size_t i = 0; i < summary.shards.size(); ++i)
            mb::detail::appendf(merge, "%s%u", i ? "," : "", summary.shards[i]);
        merge += "]}";
        if (!write_text_file(json_path, mb::result_json(merged.config, merged.r, percentiles, merge),
                             "microbench merge"))
            return 1;
    }
#ifndef MICROBENCH_NO_HTML
    if (!html_path.empty()) {  // the whole, then each generator's run in a section of its own
        for (mb::report_run& run : runs) run.scenario = "each generator";
        runs.insert(runs.begin(), merged);
        mb::html_options ho;
        ho.title = title;
        ho.generated_unix_ms = now_unix_ms();
        if (!write_text_file(html_path, mb::html_report(runs, ho), "microbench merge")) return 1;
    }
#endif
    return 0;
}

}  // namespace cli
