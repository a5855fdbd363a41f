// JUnit XML from gate verdicts (report_junit.hpp), and gates over nothing: a check or a failure
// count with no response or no request to judge is broken, never passed (k6 #4283's bug).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "microbench.hpp"
#include "run_helpers.hpp"

using namespace microbench;

namespace {

result answered(std::uint64_t n, std::uint64_t check_failures) {
    result r;
    r.requests_ended = n;
    r.requests_completed = n - check_failures;
    r.requests_failed = check_failures;
    r.failures[static_cast<int>(failure::check)] = check_failures;
    r.elapsed_ns = 1'500'000'000;
    r.start_realtime_ns = 1'780'000'000'000'000'000;  // 2026-05-28T20:26:40Z
    for (std::uint64_t i = 1; i <= n; ++i) {
        r.responses_total_ns.record(static_cast<std::int64_t>(i) * 1'000'000);
        if (i > check_failures) r.total_ns.record(static_cast<std::int64_t>(i) * 1'000'000);
    }
    return r;
}

}  // namespace

TEST_CASE("gates over nothing: no response to check, no request ended: broken, never passed") {
    result none;  // every connect failed: no response came back
    none.requests_ended = none.requests_failed = 20;
    none.failures[static_cast<int>(failure::connect)] = 20;
    gates g;
    g.max_failures = 100;
    std::vector<gate_verdict> v = judge_gates(g, none, true);
    REQUIRE(v.size() == 2);
    CHECK((v[0].what == gate_verdict::kind::checks && !v[0].measured && !v[0].held));
    CHECK((v[1].what == gate_verdict::kind::max_failures && v[1].measured && v[1].held));  // 20 of 100 allowed
    std::string out;
    CHECK(append_gate_lines(v, "", out, true) == 1);
    CHECK(out.find("Gate broken: no response came back to check\n") != std::string::npos);
    result nothing;  // nothing ended at all (cancelled at once)
    v = judge_gates(g, nothing, false);
    REQUIRE(v.size() == 1);
    CHECK_FALSE(v[0].held);
    out.clear();
    append_gate_lines(v, "", out, false);
    CHECK(out == "Gate broken: no request ended: nothing to judge (--max-failures 100)\n");
    CHECK(judge_gates(g, answered(10, 0), true)[0].held);  // responses, none failed: held
}

TEST_CASE("junit: a suite per run, a case per gate, a broken gate a failure with figure, limit and difference") {
    const result a = answered(100, 0), b = answered(50, 2);
    gates g;
    g.max_percentile_ms = {{99, 60}};
    g.min_rps = 10;
    std::vector<junit_suite> suites{{"basic load <a&b>", &a, judge_gates(g, a, true)},
                                    {"latency", &b, judge_gates(g, b, true)}};
    const std::string xml = junit_xml(suites, "microbench");
    CHECK(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"microbench\" tests=\"6\" "
                    "failures=\"2\" errors=\"0\" time=\"3.000\">\n", 0) == 0);
    CHECK(xml.find("<testsuite name=\"basic load &lt;a&amp;b&gt;\" tests=\"3\" failures=\"1\" errors=\"0\" "
                   "skipped=\"0\" time=\"1.500\" timestamp=\"2026-05-28T20:26:40\">") != std::string::npos);
    CHECK(count_of(xml, "<testcase ") == 6);
    CHECK(count_of(xml, "<failure ") == 2);
    // a: p99 about 99 ms, above 60; b: 2 failed checks, its p99 (of the 48 that passed, up to 50 ms) within 60
    CHECK(xml.find("name=\"max-p99-ms\" time=\"0\"><failure message=\"p99 = 99.") != std::string::npos);
    CHECK(xml.find("above --max-p99-ms 60 by 39.") != std::string::npos);
    CHECK(xml.find("<failure message=\"2 responses failed the checks (reason check)\" type=\"gate\">") !=
          std::string::npos);
    CHECK(xml.find("name=\"min-rps\" time=\"0\"/>") != std::string::npos);
    CHECK(xml.substr(xml.size() - 14) == "</testsuites>\n");
    // A run without gates is one case, failing when no response came back.
    result none;
    none.requests_ended = none.requests_failed = 3;
    const std::string bare = junit_xml({{"down", &none, {}}}, "m");
    CHECK(bare.find("<testcase classname=\"microbench\" name=\"run\" time=\"0\"><failure message=\"no response "
                    "came back\" type=\"unreachable\">3 requests ended, none with a response</failure>") !=
          std::string::npos);
    CHECK(bare.find("timestamp=") == std::string::npos);  // it never started
    CHECK(junit_xml({{"up", &a, {}}}, "m").find("name=\"run\" time=\"0\"/>") != std::string::npos);
    // A suite's own rule adds a failing "run" case beside held gates (the self-test's).
    const std::string own = junit_xml({{"s", &a, judge_gates(gates{}, a, true), "2 failed"}}, "m");
    CHECK(own.find("tests=\"2\" failures=\"1\"") != std::string::npos);
    CHECK(own.find("<failure message=\"2 failed\" type=\"run\">2 failed</failure>") != std::string::npos);
    // What XML cannot hold is replaced: control bytes, bytes that are not UTF-8, U+FFFF; UTF-8 passes.
    CHECK(junit_xml({{std::string("x\x01y\xffz\xef\xbf\xbf \xc3\xa9"), &a, {}}}, "m").find("name=\"x?y?z? \xc3\xa9\"") !=
          std::string::npos);
}
