// microbench/report/report_junit.hpp — gate verdicts as JUnit XML, the shape Jenkins and GitLab read:
// <testsuites> holding one <testsuite> per run (a single run, each suite scenario, each compare
// side), with its name, counts, time and start; one <testcase> per gate verdict (the checks,
// --max-failures, each --max-pNN-ms, --min-rps), a broken one holding a <failure> with the figure,
// the limit and the difference (gates.hpp's words). A run without gates is one test case, "run",
// which fails when no response came back (or with the suite's own run_failure). The run's time is
// the test suite's; its cases take none of their own (a gate is judged, not run). Text is escaped
// for XML; what XML 1.0 cannot hold (control characters, bytes that are not UTF-8) becomes '?'.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "../core/appendf.hpp"
#include "../core/json_write.hpp"
#include "../stats/result.hpp"
#include "gates.hpp"

namespace microbench {

// One run as a test suite: its name (the URL, or the scenario and URL), its result (not null) and
// verdicts; with `run_failure`, a "run" test case that fails with those words (the self-test's
// own rule), whatever the gates said.
struct junit_suite {
    junit_suite(std::string name_, const result* r_, std::vector<gate_verdict> verdicts_, std::string failure = "")
        : name(std::move(name_)), r(r_), verdicts(std::move(verdicts_)), run_failure(std::move(failure)) {}
    std::string name;
    const result* r;
    std::vector<gate_verdict> verdicts;
    std::string run_failure;
};

namespace detail {

inline void append_xml_text(std::string& out, const std::string& text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {  // a well-formed UTF-8 sequence passes whole (not U+FFFE, U+FFFF); any other byte is '?'
            const std::size_t n = utf8_sequence(std::string_view(text).substr(i));
            const bool nonchar = n == 3 && static_cast<unsigned char>(text[i]) == 0xEF &&
                                 static_cast<unsigned char>(text[i + 1]) == 0xBF &&
                                 static_cast<unsigned char>(text[i + 2]) >= 0xBE;
            if (n == 0 || nonchar) out += '?';
            else out.append(text, i, n);
            i += n ? n - 1 : 0;
            continue;
        }
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
    // The "run" case: without gates, or with a run_failure; it fails with those words, or when no
    // response came back to a run without gates.
    auto has_run_case = [](const junit_suite& s) { return s.verdicts.empty() || !s.run_failure.empty(); };
    auto run_fails = [](const junit_suite& s) {
        return !s.run_failure.empty() || (s.verdicts.empty() && s.r->responses_total_ns.count() == 0);
    };
    for (const junit_suite& s : suites) {
        tests += s.verdicts.size() + has_run_case(s);
        for (const gate_verdict& v : s.verdicts) failures += !v.held;
        failures += run_fails(s);
        seconds += static_cast<double>(s.r->elapsed_ns) / 1e9;
    }
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"";
    detail::append_xml_text(out, name);
    appendf(out, "\" tests=\"%llu\" failures=\"%llu\" errors=\"0\" time=\"%.3f\">\n",
            static_cast<unsigned long long>(tests), static_cast<unsigned long long>(failures), seconds);
    for (const junit_suite& s : suites) {
        const result& r = *s.r;
        const double time = static_cast<double>(r.elapsed_ns) / 1e9;
        std::uint64_t broken = run_fails(s);
        for (const gate_verdict& v : s.verdicts) broken += !v.held;
        out += "  <testsuite name=\"";
        detail::append_xml_text(out, s.name);
        appendf(out, "\" tests=\"%zu\" failures=\"%llu\" errors=\"0\" skipped=\"0\" time=\"%.3f\"",
                s.verdicts.size() + has_run_case(s), static_cast<unsigned long long>(broken), time);
        const std::time_t start = static_cast<std::time_t>(r.start_realtime_ns / 1'000'000'000);
        std::tm utc{};
        char stamp[32];
        if (r.start_realtime_ns > 0 && gmtime_r(&start, &utc) &&
            std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc))
            appendf(out, " timestamp=\"%s\"", stamp);  // none for a run that never started
        out += ">\n";
        appendf(out, "    <properties><property name=\"requests\" value=\"%llu\"/><property name=\"completed\" "
                     "value=\"%llu\"/><property name=\"failed\" value=\"%llu\"/><property name=\"requests_per_second\" "
                     "value=\"%.2f\"/></properties>\n",
                static_cast<unsigned long long>(r.requests_ended),
                static_cast<unsigned long long>(r.requests_completed),
                static_cast<unsigned long long>(r.requests_failed), r.requests_per_second());
        if (has_run_case(s)) {
            out += "    <testcase classname=\"microbench\" name=\"run\" time=\"0\"";
            if (!run_fails(s)) {
                out += "/>\n";
            } else if (!s.run_failure.empty()) {
                out += "><failure message=\"";
                detail::append_xml_text(out, s.run_failure);
                out += "\" type=\"run\">";
                detail::append_xml_text(out, s.run_failure);
                out += "</failure></testcase>\n";
            } else {
                appendf(out, "><failure message=\"no response came back\" type=\"unreachable\">%llu requests ended, "
                             "none with a response</failure></testcase>\n",
                        static_cast<unsigned long long>(r.requests_ended));
            }
        }
        for (const gate_verdict& v : s.verdicts) {
            out += "    <testcase classname=\"microbench.gates\" name=\"";
            out += detail::junit_case_name(v);
            out += "\" time=\"0\"";
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
