// Fuzz target for saved results and the HTML report together: any document is either refused —
// with the field named when a field is at fault — or read and drawn as one bounded document, and
// what was read writes back to JSON that reads back to the same JSON. Its runs are merged as
// 'microbench merge' does: refused with a reason, or at most max_merged_intervals rows (drawn too
// when there are few: rows far apart make one per interval between them). libFuzzer's -timeout
// and -rss_limit_mb bound the time and memory of each input.
// Built as a libFuzzer target by tests/fuzz/CMakeLists.txt; the unit tests replay the corpus.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "microbench.hpp"

// 0 when the document was refused with a reason, or read, drawn and written back alike.
int microbench_fuzz_report(const std::uint8_t* data, std::size_t size) {
    using namespace microbench;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<report_run> runs;
    std::string problem;
    if (error e = read_report_runs(text, "", runs, &problem)) return e.code == errc::result_bad_field && problem.empty() ? 1 : 0;
    html_options o;
    o.title = "fuzz";
    const std::string html = html_report(runs, o);
    if (html.size() > 2'000'000 + 1000 * size || html.find("</html>") == std::string::npos) return 2;
    for (const report_run& run : runs) {
        // A string that is not UTF-8 is written valid (a stray byte as \u00XX, read back as its
        // code point) the first time: from the second writing on, each reads back as written.
        const std::string first = result_json(run.config, run.r, {50, 99});
        std::vector<report_run> again;
        if (read_report_runs(first, "x", again) || again.size() != 1) return 3;
        const std::string json = result_json(again[0].config, again[0].r, {50, 99});
        again.clear();
        if (read_report_runs(json, "x", again) || again.size() != 1) return 3;
        if (result_json(again[0].config, again[0].r, {50, 99}) != json) return 4;
    }
    report_run merged;
    merge_summary summary;
    if (merge_runs(runs, merged, summary)) return summary.problem.empty() ? 5 : 0;
    if (merged.r.intervals.size() > max_merged_intervals) return 6;
    if (merged.r.intervals.size() > 10'000) return 0;
    runs.insert(runs.begin(), merged);
    for (std::size_t i = 1; i < runs.size(); ++i) runs[i].scenario = "each generator";
    const std::string whole = html_report(runs, o);
    if (whole.size() > 4'000'000 + 2000 * size || whole.find("</html>") == std::string::npos) return 7;
    return 0;
}

#ifndef MICROBENCH_FUZZ_NO_ENTRY_POINT
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (microbench_fuzz_report(data, size) != 0) __builtin_trap();
    return 0;
}
#endif
