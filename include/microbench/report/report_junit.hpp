// microbench/report/report_junit.hpp — gate verdicts as JUnit XML, the shape Jenkins and GitLab read:
// <testsuites> holding one <testsuite> per run (a single run, each suite scenario, each compare
// side), with its name, counts, time and start; one <testcase> per gate verdict (the checks,
// --max-failures, each --max-pNN-ms, --min-rps), a broken one holding a <failure> with the figure,
// the limit and the difference (gates.hpp's words). A run without gates is one test case, "run",
// which fails when no response came back. Text is escaped for XML; bytes that XML 1.0 cannot
// hold (control characters) become '?'.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "../core/appendf.hpp"
#include "../stats/result.hpp"
#include "gates.hpp"

namespace microbench {

// One run as a test suite: its name (the URL, or the scenario and URL), its result and verdicts.
struct junit_suite {
    std::string name;
    const result* r = nullptr;
    std::vector<gate_verdict> verdicts;
};

namespace detail {

inline void append_xml_text(std::string& out, const std::string& text) {
    for (unsigned char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? '?' : static_cast<char>(c);
        }
    }
}

// A verdict's test case name: "checks", "max-failures", "max-p99-ms", "min-rps".
inline std::string junit_case_name(const gate_verdict& v) {
    using k = gate_verdict::kind;
    std::string name;
    switch (v.what) {
        case k::checks: return "checks";
        case k::max_failures: return "max-failures";
        case k::max_percentile_ms:
            name = "max-p";
            append_plain_number(name, v.percentile);
            return name + "-ms";
        case k::min_rps: return "min-rps";
    }
    return "gate";
}

}  // namespace detail

// The JUnit XML document of `suites`, named `name` (the <testsuites> element's).
inline std::string junit_xml(const std::vector<junit_suite>& suites, const std::string& name) {
    using detail::appendf;
    std::uint64_t tests = 0, failures = 0;
    double seconds = 0;
    for (const junit_suite& s : suites) {
        tests += s.verdicts.empty() ? 1 : s.verdicts.size();
        for (const gate_verdict& v : s.verdicts) failures += !v.held;
        if (s.verdicts.empty() && s.r->responses_total_ns.count() == 0) ++failures;
        seconds += static_cast<double>(s.r->elapsed_ns) / 1e9;
    }
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"";
    detail::append_xml_text(out, name);
    appendf(out, "\" tests=\"%llu\" failures=\"%llu\" errors=\"0\" time=\"%.3f\">\n",
            static_cast<unsigned long long>(tests), static_cast<unsigned long long>(failures), seconds);
    for (const junit_suite& s : suites) {
        const result& r = *s.r;
        const double time = static_cast<double>(r.elapsed_ns) / 1e9;
        std::uint64_t broken = 0;
        for (const gate_verdict& v : s.verdicts) broken += !v.held;
        const bool silent = s.verdicts.empty() && r.responses_total_ns.count() == 0;
        char stamp[32] = "1970-01-01T00:00:00";
        const std::time_t start = static_cast<std::time_t>(r.start_realtime_ns / 1'000'000'000);
        std::tm utc{};
        if (gmtime_r(&start, &utc)) std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
        out += "  <testsuite name=\"";
        detail::append_xml_text(out, s.name);
        appendf(out,
                "\" tests=\"%zu\" failures=\"%llu\" errors=\"0\" skipped=\"0\" time=\"%.3f\" timestamp=\"%s\">\n",
                s.verdicts.empty() ? std::size_t{1} : s.verdicts.size(),
                static_cast<unsigned long long>(silent ? 1 : broken), time, stamp);
        appendf(out, "    <properties><property name=\"requests\" value=\"%llu\"/><property name=\"completed\" "
                     "value=\"%llu\"/><property name=\"failed\" value=\"%llu\"/><property name=\"requests_per_second\" "
                     "value=\"%.2f\"/></properties>\n",
                static_cast<unsigned long long>(r.requests_ended),
                static_cast<unsigned long long>(r.requests_completed),
                static_cast<unsigned long long>(r.requests_failed), r.requests_per_second());
        if (s.verdicts.empty()) {
            appendf(out, "    <testcase classname=\"microbench\" name=\"run\" time=\"%.3f\"", time);
            if (!silent) out += "/>\n";
            else
                appendf(out, "><failure message=\"no response came back\" type=\"unreachable\">all %llu requests "
                             "failed before a response</failure></testcase>\n",
                        static_cast<unsigned long long>(r.requests_ended));
        }
        for (const gate_verdict& v : s.verdicts) {
            out += "    <testcase classname=\"microbench.gates\" name=\"";
            out += detail::junit_case_name(v);
            appendf(out, "\" time=\"%.3f\"", time);
            if (v.held) {
                out += "/>\n";
                continue;
            }
            std::string line;
            append_gate_lines({v}, "", line, false);  // "Gate broken: <figure>, above <limit> by <difference>"
            if (!line.empty() && line.back() == '\n') line.pop_back();
            const std::string said = line.compare(0, 13, "Gate broken: ") == 0 ? line.substr(13) : line;
            out += "><failure message=\"";
            detail::append_xml_text(out, said);
            out += "\" type=\"gate\">";
            detail::append_xml_text(out, said);
            out += "</failure></testcase>\n";
        }
        out += "  </testsuite>\n";
    }
    out += "</testsuites>\n";
    return out;
}

}  // namespace microbench
