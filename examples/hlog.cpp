// microbench-hlog LOG... [--hgrm TAG] [--html OUT]: HdrHistogram interval logs — microbench
// --hlog's, or any HdrHistogram writer's (Java, C, .NET's UTF-16, hdr-histogram-js') — read, and
// every interval of every file merged exactly, per tag: a table of counts and percentiles in
// milliseconds, or one tag's .hgrm spectrum (HdrHistogram's plotter reads it; "(none)" picks
// untagged rows), as `microbench merge LOG...` prints them (cli/hlog_command.hpp). Several
// generators' logs give the whole fleet's percentiles. `microbench-hlog --from RESULT.json` prints
// the log of a saved result that kept its intervals' histograms (microbench --interval-histograms
// --json, or microbench merge's --json of such results).
// Exit: 0 printed, 1 a usage error or a file that cannot be read, is not a log or kept nothing.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/hlog_command.hpp"
#include "cli/options.hpp"
#include "microbench.hpp"

namespace mb = microbench;
using cli::read_file;

namespace {

const char usage[] =
    "Usage: microbench-hlog LOG... [--hgrm TAG] [--html OUT] [--hlog-memory MB]\n"
    "       microbench-hlog --from RESULT.json\n";

int usage_error(const std::string& problem) {
    std::fprintf(stderr, "microbench-hlog: %s\n%s", problem.c_str(), usage);
    return 1;
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
    return cli::write_stdout("microbench-hlog", log) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::string(argv[1]) == "--from") {
        if (argc != 3) return usage_error("--from takes one result");
        return log_of_result(argv[2]);
    }
    std::vector<std::string> files;
    cli::hlog_merge_options o;
    o.title = "microbench-hlog";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--hlog-memory") {
            if (i + 1 >= argc || !cli::parse_hlog_memory(argv[++i], o.max_bytes))
                return usage_error(cli::hlog_memory_rule);
        } else if (arg == "--hgrm" || arg == "--html") {
            if (i + 1 >= argc || !*argv[i + 1])
                return usage_error(arg == "--hgrm" ? "--hgrm needs a tag (\"(none)\" for untagged rows)"
                                                   : "--html needs a file name");
            (arg == "--hgrm" ? o.hgrm_tag : o.html_path) = argv[++i];
        } else if (arg == "-h" || arg == "--help") {
            return std::fputs(usage, stdout) < 0;
        } else if (arg.size() > 1 && arg[0] == '-') {
            return usage_error("unknown option " + arg);
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) return usage_error("no logs given");
    return cli::run_hlog_merge("microbench-hlog", files, o);
}
