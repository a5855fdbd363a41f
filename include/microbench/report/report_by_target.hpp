// microbench/report/report_by_target.hpp — what each target got, as text and JSON: the factorial
// verdict over n ("Checks: right for n = 0..20; wrong from n = 21 (status 200, answer ...)"), the
// table of targets worst first with the rest folded. (The JSON's "by_target" is report_json.hpp's.)
#pragma once

#include <string>
#include <string_view>

#include "../core/appendf.hpp"
#include "../stats/result.hpp"

namespace microbench {
namespace detail {

inline void append_n_run(std::string& out, const n_run& run) {
    if (run.from == run.to) appendf(out, "%u", run.from);
    else appendf(out, "%u..%u", run.from, run.to);
}

inline const char* p_ms(std::int64_t ns, char (&buf)[32]) {
    if (ns <= 0) return "-";
    std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e6);
    return buf;
}

}  // namespace detail

// The factorial verdict over n, its words alone: the n answered right, wrong (with the lowest
// one's answer), failed otherwise (with the reason), unanswered at the stop and not sent, each as
// runs of n. Nothing without a verdict (the factorial check of each target's n).
inline void append_verdict_text(const target_breakdown& b, std::string& out) {
    using detail::appendf;
    if (b.verdict.empty()) return;
    // The last n that got an answer: the one wrong run that reaches it, when nothing was cut, is
    // "wrong from n = A".
    std::uint32_t last_answered = 0;
    std::size_t wrong_runs = 0;
    for (const n_run& run : b.verdict) {
        if (run.outcome != n_outcome::unsent && run.outcome != n_outcome::unanswered) last_answered = run.to;
        wrong_runs += run.outcome == n_outcome::wrong;
    }
    const char* sep = "";
    for (n_outcome o :
         {n_outcome::right, n_outcome::wrong, n_outcome::failed, n_outcome::unanswered, n_outcome::unsent}) {
        const char* comma = nullptr;
        for (const n_run& run : b.verdict) {
            if (run.outcome != o) continue;
            if (!comma) {
                const bool from = o == n_outcome::wrong && wrong_runs == 1 && !b.verdict_cut &&
                                  run.to == last_answered && run.from != run.to;
                static const char* const labels[] = {"right for", "wrong for", "failed for",
                                                     "no answer before the stop for", "not sent:"};
                appendf(out, "%s%s n = ", sep, from ? "wrong from" : labels[static_cast<int>(o)]);
                if (from) {
                    appendf(out, "%u", run.from);
                    comma = ", ";
                    continue;
                }
            } else {
                out += comma;
            }
            detail::append_n_run(out, run);
            if (o == n_outcome::failed) appendf(out, " (%s)", failure_name(run.reason));
            comma = ", ";
        }
        if (o == n_outcome::wrong && comma && b.first_wrong.status) {
            if (wrong_runs > 1) appendf(out, " (n = %u: status %d, answer ", b.first_wrong.n, b.first_wrong.status);
            else appendf(out, " (status %d, answer ", b.first_wrong.status);
            detail::append_escaped_answer(out, b.first_wrong.body, b.first_wrong.cut);
            out += ")";
        }
        if (comma) sep = "; ";
    }
    if (b.verdict_cut) out += "; more n not shown";
}

// The verdict as the report's line, "Checks:" in ab's column; nothing without one.
inline void append_factorial_verdict(const result& r, std::string& out) {
    if (r.by_target.verdict.empty()) return;
    out += "\nChecks:                ";
    append_verdict_text(r.by_target, out);
    out += "\n";
}

// The targets, the worst first (failed, then non-2xx, then p99), with the rest folded into one row.
inline void append_by_target_table(const result& r, std::string& out) {
    using detail::appendf;
    const target_breakdown& b = r.by_target;
    if (!b.targets) return;
    appendf(out, "\nBy target, the worst first (%zu of %llu):\n", b.rows.size(),
            static_cast<unsigned long long>(b.targets));
    appendf(out, "  Requests  Completed     Failed    Non-2xx      Wrong    p50 ms    p99 ms  Target\n");
    auto row = [&out](const target_row& t, const std::string& name) {
        char p50[32], p99[32];
        appendf(out, "%10llu %10llu %10llu %10llu %10llu %9s %9s  %s", static_cast<unsigned long long>(t.requests()),
                static_cast<unsigned long long>(t.completed), static_cast<unsigned long long>(t.failed),
                static_cast<unsigned long long>(t.non_2xx), static_cast<unsigned long long>(t.wrong()),
                detail::p_ms(t.p50_ns, p50), detail::p_ms(t.p99_ns, p99), name.c_str());
        const char* sep = "  (";
        for (int i = 0; i < failure_count; ++i) {
            if (!t.failures[i] || i == static_cast<int>(failure::check)) continue;
            appendf(out, "%s%s %llu", sep, failure_name(static_cast<failure>(i)),
                    static_cast<unsigned long long>(t.failures[i]));
            sep = ", ";
        }
        out += *sep == ',' ? ")\n" : "\n";
    };
    for (const target_row& t : b.rows) row(t, t.target);
    if (b.folded.index)
        row(b.folded, "(" + std::to_string(b.folded.index) + " other targets)");
    out += "  (p50 and p99 per target within 10%; wrong: failed its checks)\n";
}

}  // namespace microbench
