// microbench/report/report_html_targets.hpp — the HTML report's part on what each target got: for
// every run that kept it (plan::by_target, or the factorial check of each target's n), the
// factorial verdict over n and the table of targets, the worst first, with the rest folded into
// one row — the text report's --by-target figures, a failed cell naming its reasons.
#pragma once

#include <string>
#include <vector>

#include "../core/appendf.hpp"
#include "report_by_target.hpp"
#include "report_read.hpp"
#include "svg_chart.hpp"

namespace microbench {
namespace detail {

// One target's row: its name, then requests, completed, failed (with the reasons other than a
// wrong answer), non-2xx, wrong, p50 and p99 in ms.
inline void append_html_target_row(const target_row& t, const std::string& name, std::string& out) {
    auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
    out += "<tr><th scope=\"row\" class=\"text\">";
    append_html_escaped(out, name);
    appendf(out, "</th><td>%llu</td><td>%llu</td><td>%llu", u(t.requests()), u(t.completed), u(t.failed));
    const char* sep = " (";
    for (int i = 0; i < failure_count; ++i) {
        if (!t.failures[i] || i == static_cast<int>(failure::check)) continue;
        appendf(out, "%s%s %llu", sep, failure_name(static_cast<failure>(i)), u(t.failures[i]));
        sep = ", ";
    }
    char p50[32], p99[32];
    appendf(out, "%s</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td></tr>\n", *sep == ',' ? ")" : "",
            u(t.non_2xx), u(t.wrong()), p_ms(t.p50_ns, p50), p_ms(t.p99_ns, p99));
}

// Each run's verdict and table of targets, in the runs' order; nothing for a run that kept none.
inline void append_html_targets(const std::vector<const report_run*>& runs, std::string& out) {
    for (const report_run* run : runs) {
        const target_breakdown& b = run->r.by_target;
        if (!b.targets && b.verdict.empty()) continue;
        out += "<div class=\"targets\"><h3>By target: ";
        append_html_escaped(out, run->label);
        out += "</h3>\n";
        if (!b.verdict.empty()) {
            std::string verdict;
            append_verdict_text(b, verdict);
            out += "<p class=\"text\">Checks: ";
            append_html_escaped(out, verdict);
            out += "</p>\n";
        }
        if (!b.rows.empty()) {
            appendf(out, "<div class=\"scroll\"><table><caption class=\"text\">the worst first, %zu of %llu</caption>",
                    b.rows.size(), static_cast<unsigned long long>(b.targets));
            out += "<thead><tr><th scope=\"col\">target</th><th scope=\"col\">requests</th><th scope=\"col\">completed"
                   "</th><th scope=\"col\">failed</th><th scope=\"col\">non-2xx</th><th scope=\"col\">wrong</th>"
                   "<th scope=\"col\">p50 (ms)</th><th scope=\"col\">p99 (ms)</th></tr></thead><tbody>\n";
            for (const target_row& t : b.rows) append_html_target_row(t, t.target, out);
            if (b.folded.index)
                append_html_target_row(b.folded, "(" + std::to_string(b.folded.index) + " other targets)", out);
            out += "</tbody></table></div>\n<p class=\"meta\">p50 and p99 per target within 10%; wrong: failed its "
                   "checks</p>\n";
        }
        out += "</div>\n";
    }
}

}  // namespace detail
}  // namespace microbench
