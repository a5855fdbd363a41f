// microbench-hlog LOG... [--hgrm TAG]: HdrHistogram interval logs — microbench --hlog's, or any
// HdrHistogram writer's (Java, C, .NET's UTF-16, hdr-histogram-js') — read, and every interval of
// every file merged exactly, per tag: a table of counts and percentiles in milliseconds, or one
// tag's .hgrm spectrum (HdrHistogram's plotter reads it; "(none)" picks untagged rows). Several
// generators' logs give the whole fleet's percentiles. `microbench-hlog --from RESULT.json` prints
// the log of a saved result that kept its intervals' histograms (microbench --interval-histograms
// --json, or microbench merge's --json of such results). A program of its own (microbench report
// and merge do not read logs yet).
// Exit: 0 printed, 1 a usage error or a file that cannot be read, is not a log or kept nothing.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "microbench.hpp"

namespace mb = microbench;
using cli::read_file;

namespace {

const char usage[] = "Usage: microbench-hlog LOG... [--hgrm TAG]\n       microbench-hlog --from RESULT.json\n";

int usage_error(const std::string& problem) {
    std::fprintf(stderr, "microbench-hlog: %s\n%s", problem.c_str(), usage);
    return 1;
}

bool write_out(const std::string& out) {
    if (std::fwrite(out.data(), 1, out.size(), stdout) == out.size() && std::fflush(stdout) == 0) return true;
    std::fprintf(stderr, "microbench-hlog: cannot write the output: %s\n", std::strerror(errno));
    return false;
}

// --from: a saved single-run result's kept interval histograms as a log.
int log_of_result(const char* path) {
    std::string text, problem;
    if (!read_file(path, text)) {
        std::fprintf(stderr, "microbench-hlog: cannot read %s: %s\n", path, std::strerror(errno));
        return 1;
    }
    mb::json_value doc;
    mb::run_description d;
    mb::result r;
    mb::error e = mb::parse_json(text, doc);
    if (!e) e = mb::read_result_json(doc, d, r, &problem);
    if (e) {
        std::fprintf(stderr, "microbench-hlog: %s: %s%s%s\n", path, e.message(), problem.empty() ? "" : ": ",
                     problem.c_str());
        return 1;
    }
    std::string log;
    if (!mb::append_hlog(r, log)) {
        std::fprintf(stderr, "microbench-hlog: %s kept no interval histograms: run it with --interval-histograms\n",
                     path);
        return 1;
    }
    return write_out(log) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::string(argv[1]) == "--from") {
        if (argc != 3) return usage_error("--from takes one result");
        return log_of_result(argv[2]);
    }
    std::vector<std::string> files;
    std::string hgrm_tag;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--hgrm") {
            if (i + 1 >= argc || !*argv[i + 1]) return usage_error("--hgrm needs a tag (\"(none)\" for untagged rows)");
            hgrm_tag = argv[++i];
        } else if (arg == "-h" || arg == "--help") {
            return std::fputs(usage, stdout) < 0;
        } else if (arg.size() > 1 && arg[0] == '-') {
            return usage_error("unknown option " + arg);
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) return usage_error("no logs given");
    std::vector<mb::hlog_tag_total> totals;
    for (const std::string& path : files) {
        std::string text, problem;
        if (!read_file(path.c_str(), text)) {
            std::fprintf(stderr, "microbench-hlog: cannot read %s: %s\n", path.c_str(), std::strerror(errno));
            return 1;
        }
        if (!mb::add_hlog_totals(std::move(text), totals, problem)) {
            std::fprintf(stderr, "microbench-hlog: %s: %s\n", path.c_str(), problem.c_str());
            return 1;
        }
    }
    if (totals.empty()) {
        std::fprintf(stderr, "microbench-hlog: no interval rows in %s\n",
                     files.size() == 1 ? files[0].c_str() : "these logs");
        return 1;
    }
    std::string out;
    using mb::detail::appendf;
    if (!hgrm_tag.empty()) {
        for (const mb::hlog_tag_total& t : totals)
            if ((t.tag.empty() ? "(none)" : t.tag) == hgrm_tag) mb::append_hgrm(t.values, 1e6, 5, out);
        if (out.empty()) return usage_error("no rows tagged " + hgrm_tag);
    } else {
        appendf(out, "%zu log%s, every interval merged exactly; values in ms\n\n", files.size(),
                files.size() == 1 ? "" : "s");
        appendf(out, "%-14s %9s %12s %12s %12s %12s %12s %12s %12s %12s %9s\n", "Tag", "Intervals", "Count", "Min",
                "50%", "90%", "99%", "99.9%", "99.99%", "Max", "Seconds");
        for (const mb::hlog_tag_total& t : totals) {
            const mb::histogram& h = t.values;
            appendf(out, "%-14s %9zu %12llu %12.6f", t.tag.empty() ? "(none)" : t.tag.c_str(), t.intervals,
                    static_cast<unsigned long long>(h.count()), static_cast<double>(h.min()) / 1e6);
            for (double p : {50.0, 90.0, 99.0, 99.9, 99.99})
                appendf(out, " %12.6f", static_cast<double>(h.value_at_percentile(p)) / 1e6);
            appendf(out, " %12.6f %9.3f\n", static_cast<double>(h.max()) / 1e6, t.last_end_s - t.first_start_s);
        }
    }
    return write_out(out) ? 0 : 1;
}
