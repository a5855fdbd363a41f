// The reports as pure functions of hand-built results: ab's text (every figure computed here
// independently), microbench's notes and latency section, ab's CSV and gnuplot files, the JSON,
// the suite and comparison tables, and the CI gates.
#include <doctest/doctest.h>

#include <algorithm>
#include <clocale>
#include <string>
#include <vector>

#include "microbench.hpp"

using namespace microbench;

namespace {

// 100 requests in 2 s at -c 10: 96 whole responses taking 1, 2, … 96 ms (connect 0, waiting
// 0.5 ms less than total), 90 of them 200 and 6 of them 503, and 4 failures of 4 reasons.
result sample() {
    result r;
    r.requests_ended = 100;
    r.requests_completed = 96;
    r.requests_failed = 4;
    r.failures[static_cast<int>(failure::connect)] = 1;
    r.failures[static_cast<int>(failure::receive)] = 1;
    r.failures[static_cast<int>(failure::timeout)] = 1;
    r.failures[static_cast<int>(failure::check)] = 1;
    r.non_2xx = 6;
    r.status_counts[200] = 90;
    r.status_counts[503] = 6;
    r.keep_alive_requests = 86;
    r.keep_alive_responses = 90;
    r.server_closes = 4;
    r.retries = 2;
    r.port_waits = 3;
    r.connects = 14;
    r.concurrency_requested = 10;
    r.concurrency_peak = 10;
    r.bytes_sent = 5000;
    r.bytes_received = 12345;
    r.body_bytes = 2100;
    r.first_body_length = 21;
    r.server_software = "nginx";
    r.elapsed_ns = 2'000'000'000;
    for (std::int64_t ms = 1; ms <= 96; ++ms) {
        const std::int64_t total = ms * 1'000'000;
        r.connect_ns.record(0);
        r.waiting_ns.record(total - 500'000);
        r.processing_ns.record(total);
        r.total_ns.record(total);
        r.responses_total_ns.record(total);
    }
    return r;
}

report_context context() {
    report_context c;
    c.host = "127.0.0.1";
    c.port = 8080;
    c.path = "/factorial/10";
    c.concurrency = 10;
    c.keep_alive = true;
    return c;
}

bool has(const std::string& text, const std::string& line) { return text.find(line) != std::string::npos; }

}  // namespace

TEST_CASE("ab report: every figure as ab computes and prints it") {
    std::string out;
    append_ab_report(context(), sample(), out);
    CAPTURE(out);
    CHECK(has(out, "Server Software:        nginx\nServer Hostname:        127.0.0.1\nServer Port:            8080\n\n"));
    CHECK(has(out, "Document Path:          /factorial/10\nDocument Length:        21 bytes\n\n"));
    CHECK(has(out, "Concurrency Level:      10\nTime taken for tests:   2.000 seconds\n"));
    CHECK(has(out, "Complete requests:      100\nFailed requests:        4\n"));
    CHECK(has(out, "   (Connect: 1, Receive: 1, Length: 0, Exceptions: 2)\n"));  // timeout and check are ab's exceptions
    CHECK(has(out, "Failure reasons:        connect 1, receive 1, timeout 1, check 1\n"));
    CHECK(has(out, "Non-2xx responses:      6\nKeep-Alive requests:    90\n"));
    CHECK(has(out, "Total transferred:      12345 bytes\nHTML transferred:       2100 bytes\n"));
    CHECK(has(out, "Requests per second:    50.00 [#/sec] (mean)\n"));                         // 100 / 2 s
    CHECK(has(out, "Time per request:       200.000 [ms] (mean)\n"));                          // 10 · 2000 ms / 100
    CHECK(has(out, "Time per request:       20.000 [ms] (mean, across all concurrent requests)\n"));
    CHECK(has(out, "Transfer rate:          6.03 [Kbytes/sec] received\n"));                   // 12345 / 1024 / 2
    // 1 … 96 ms: mean 48.5 (ab adds 0.5 and truncates: 49), sd sqrt((96² − 1) / 12) = 27.7, median 48.
    CHECK(has(out, "Connect:        0    0   0.0      0       0\n"));
    CHECK(has(out, "Processing:     1   49  27.7     48      96\n"));
    CHECK(has(out, "Total:          1   49  27.7     48      96\n"));
    // The percentile of rank round(p · 96 / 100): 48, 63, 72, 77, 86, 91, 94, 95 ms.
    CHECK(has(out, "  50%     48\n  66%     63\n  75%     72\n  80%     77\n  90%     86\n  95%     91\n  98%     94\n  99%     95\n"
                   " 100%     96 (longest request)\n"));
    CHECK_FALSE(has(out, "Total body sent:"));

    out.clear();
    report_context c = context();
    c.variable_length = true;
    c.keep_alive = false;
    c.sent_body = true;
    append_ab_report(c, sample(), out, {false, false});  // ab -l -S -d with a body sent
    CHECK(has(out, "Document Length:        Variable\n"));
    CHECK_FALSE(has(out, "Keep-Alive requests:"));
    CHECK(has(out, "Total body sent:        5000\n"));
    CHECK(has(out, "                        2.44 kb/s sent\n                        8.47 kb/s total\n"));
    CHECK(has(out, "              min   avg   max\nConnect:        0     0    0\n"));
    CHECK_FALSE(has(out, "Percentage of the requests"));
}

// Regression: ab prints a warning under the table when a column's mean and median (whole ms, as
// shown) lie more than one or two standard deviations apart; microbench printed none, so its
// report lost a line of ab's for fast, tight runs (the CLI's comparison with real ab met it).
TEST_CASE("ab report: ab's ERROR and WARNING lines under the timing table") {
    std::string out;
    append_ab_report(context(), sample(), out);  // mean 49, median 48, sd 27.7: no line
    CHECK_FALSE(has(out, "The median and mean"));

    result r = sample();
    r.total_ns = r.processing_ns = r.waiting_ns = r.connect_ns = r.total_ns;
    r.total_ns.reset();
    for (int i = 0; i < 60; ++i) r.total_ns.record(200'000);     // 0.2 ms: median 0 ms
    for (int i = 0; i < 40; ++i) r.total_ns.record(1'400'000);   // mean 0.68 ms: 1 ms; sd 0.59 ms
    out.clear();
    append_ab_report(context(), r, out);
    CAPTURE(out);
    CHECK(has(out, "Total:          0    1   0.6      0       1\n"
                   "WARNING: The median and mean for the total time are not within a normal deviation\n"
                   "        These results are probably not that reliable.\n"));
    r.total_ns.reset();
    for (int i = 0; i < 60; ++i) r.total_ns.record(400'000);
    for (int i = 0; i < 40; ++i) r.total_ns.record(700'000);     // mean 0.52: 1 ms, median 0 ms, sd 0.15
    out.clear();
    append_ab_report(context(), r, out);
    CHECK(has(out, "ERROR: The median and mean for the total time are more than twice the standard\n"
                   "       deviation apart. These results are NOT reliable.\n"));
    out.clear();
    append_ab_report(context(), r, out, {false, true});  // ab -S: the short table has none
    CHECK_FALSE(has(out, "The median and mean"));
}

TEST_CASE("ab report: a run without a response prints no timing tables") {
    result r;
    r.requests_ended = r.requests_failed = 5;
    r.failures[static_cast<int>(failure::connect)] = 5;
    r.elapsed_ns = 1'000'000;
    std::string out;
    append_ab_report(context(), r, out);
    CHECK(has(out, "Failed requests:        5\n   (Connect: 5, Receive: 0, Length: 0, Exceptions: 0)\n"));
    CHECK_FALSE(has(out, "Connection Times"));
}

TEST_CASE("notes say what ab hides: closed keep-alive connections, requests sent again, local waits") {
    std::string out;
    append_report_notes(context(), sample(), out);
    CHECK(has(out, "the server closed connections 4 times, and 86 of 100 requests reused a connection"));
    CHECK(has(out, "Note: 2 requests met a keep-alive connection the server had closed and were sent again"));
    CHECK(has(out, "Note: 3 connects waited for a free local port (not counted as failures)"));
    CHECK_FALSE(has(out, "free file descriptor"));
    result none = sample();
    none.server_closes = none.retries = none.port_waits = 0;
    out.clear();
    append_report_notes(context(), none, out);
    CHECK(out.empty());
}

TEST_CASE("no response succeeded: the report times every whole response, so labelled") {
    result r;  // 40 whole responses of 2..41 ms, every one failing its check
    r.requests_ended = r.requests_failed = 40;
    r.failures[static_cast<int>(failure::check)] = 40;
    r.body_bytes = 280;
    r.first_body_length = 7;
    r.elapsed_ns = 1'000'000'000;
    for (std::int64_t ms = 2; ms <= 41; ++ms) r.responses_total_ns.record(ms * 1'000'000);
    std::string out;
    append_ab_report(context(), r, out);
    CHECK(has(out, "Document Length:        7 bytes\n"));
    CHECK(has(out, "HTML transferred:       280 bytes\n"));
    CHECK(has(out, "\nNote: no response succeeded: the times below are of all 40 whole responses, failed ones\nincluded"));
    CHECK(has(out, "Connection Times (ms)\n              min  mean[+/-sd] median   max\nTotal:          2   22  11.5     21      41\n"));  // rank round(0.5 * 40) = 20: 21 ms
    CHECK_FALSE(has(out, "Connect:    "));
    CHECK(has(out, "  50%     21\n"));
    CHECK(has(out, " 100%     41 (longest request)\n"));
    out.clear();
    append_ab_report(context(), r, out, {false, true});  // -S
    CHECK(has(out, "              min   avg   max\nTotal:          2    22   41\n"));
    out.clear();
    append_latency_section(r, {50}, out);
    CHECK(has(out, "(total: successful responses; responses: every whole response, 40 failed ones included)\n"));
    CHECK(has(out, "  max               0.0          0.0          0.0          0.0      41000.0\n"));
    out.clear();
    append_latency_section(sample(), {50}, out);
    CHECK_FALSE(has(out, "responses"));  // no failed response timed: four columns
}

TEST_CASE("notes: ab's whole milliseconds showing every time as 0 are pointed to --latency") {
    result fast;
    fast.requests_ended = fast.requests_completed = 3;
    fast.elapsed_ns = 1'000'000;
    for (std::int64_t ns : {100'000, 200'000, 499'000}) {
        fast.total_ns.record(ns);
        fast.responses_total_ns.record(ns);
    }
    std::string out;
    append_report_notes(context(), fast, out);
    CHECK(out == "Note: every time in the table is under 0.5 ms, which ab's whole milliseconds show as 0: "
                 "--latency gives them in microseconds.\n");
    fast.total_ns.record(600'000);  // rounds to 1 ms: the table says something
    out.clear();
    append_report_notes(context(), fast, out);
    CHECK(out.empty());
}

TEST_CASE("latency section, ab's CSV and gnuplot rows") {
    const result r = sample();
    std::string out;
    append_latency_section(r, {50, 99}, out);
    CHECK(has(out, "  min               0.0        500.0       1000.0       1000.0\n"));
    CHECK(has(out, "  mean              0.0      48000.0      48500.0      48500.0\n"));
    CHECK(has(out, "  p50 "));
    CHECK(has(out, "  p99 "));
    CHECK(has(out, "  max               0.0      95500.0      96000.0      96000.0\n"));

    std::string csv = percentiles_csv(r);
    CHECK(csv.rfind("Percentage served,Time in ms\n0,1.000\n", 0) == 0);
    CHECK(has(csv, "\n50,48.0"));
    CHECK(has(csv, "\n100,96.0"));
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 102);

    result g;
    g.start_ns = 1'000'000'000;
    g.start_realtime_ns = 1'700'000'000'000'000'000;
    g.requests.push_back(request_timing{1'500'000'000, 1'400'000, 2'600'000, 7'500'000, 8'900'000});
    std::string tsv = gnuplot_tsv(g);
    CHECK(tsv.rfind("starttime\tseconds\tctime\tdtime\tttime\twait\n", 0) == 0);
    CHECK(has(tsv, "\t1700000000\t1\t8\t9\t3\n"));  // 0.5 s after the start; ms rounded as ab rounds
}

TEST_CASE("JSON carries the counts, the failure reasons, ab's columns, status codes and local waits") {
    plan p;
    p.url("http://127.0.0.1:8080/factorial/10").requests(100).concurrency(10);
    std::string json = result_json(p, sample(), {50, 99});
    CAPTURE(json);
    CHECK(has(json, "\"requests\":{\"ended\":100,\"completed\":96,\"failed\":4,\"unfinished\":0,\"non_2xx\":6,"));
    CHECK(has(json, "\"failures\":{\"connect\":1,\"write\":0,\"receive\":1,\"parse\":0,\"timeout\":1,\"length\":0,\"check\":1,\"tls\":0}"));
    CHECK(has(json, "\"ab_failures\":{\"connect\":1,\"receive\":1,\"length\":0,\"exceptions\":2}"));
    CHECK(has(json, "\"status_codes\":{\"200\":90,\"503\":6}"));
    CHECK(has(json, "\"local_waits\":{\"port\":3,\"descriptor\":0,\"memory\":0}"));
    CHECK(has(json, "\"server_software\":\"nginx\""));
    CHECK(json.back() == '\n');
}

TEST_CASE("suite and comparison tables: one row per scenario, B/A ratios") {
    std::vector<scenario_result> a(1), b(1);
    a[0].scenario = b[0].scenario = "basic load";
    a[0].url = "http://a/";
    b[0].url = "http://b/";
    a[0].r = sample();
    b[0].r = sample();
    b[0].r.elapsed_ns = 1'000'000'000;  // B: twice the rate
    std::string out;
    append_suite_table(a, out);
    CHECK(has(out, "basic load           50.0    48.500"));
    CHECK(has(out, "       4        6  http://a/\n"));
    out.clear();
    append_compare_table(a, b, out);
    CHECK(has(out, "basic load            50.0       100.0   2.00"));
}

TEST_CASE("gates: each broken limit is one line with the figure, the limit and the difference") {
    const result r = sample();
    gates g;
    std::string out;
    CHECK(apply_gates(g, r, "", out) == 1);  // a failed check always breaks the run
    CHECK(out == "Gate broken: 1 responses failed the checks (reason check)\n");
    g.max_failures = 3;
    g.max_percentile_ms = {{99, 50}, {50, 100}};
    g.min_rps = 40;
    out.clear();
    CHECK(apply_gates(g, r, "A", out) == 3);
    CHECK(has(out, "Gate broken in A: 4 failed requests, above --max-failures 3 by 1\n"));
    CHECK(has(out, "Gate broken in A: p99 = 95.0"));
    CHECK(has(out, "above --max-p99-ms 50 by 45.0"));
    CHECK_FALSE(has(out, "p50"));      // 48 ms is within 100 ms
    CHECK_FALSE(has(out, "min-rps"));  // 50/s is above 40/s
    g.min_rps = 60;
    out.clear();
    CHECK(apply_gates(g, r, "", out) == 4);
    CHECK(has(out, "Gate broken: 50.00 requests/s, below --min-rps 60 by 10.00\n"));
}

TEST_CASE("gates: a verdict per limit, held ones on request, limits as written, the JSON has them all") {
    const result r = sample();  // 1 check failure, 4 failed, p99 95 ms, p50 48 ms, 50/s
    gates g;
    g.max_failures = 5;
    g.max_percentile_ms = {{99.9, 1000000}};
    g.min_rps = 1000000;
    const std::vector<gate_verdict> v = judge_gates(g, r, true);
    REQUIRE(v.size() == 4);
    CHECK((v[0].what == gate_verdict::kind::checks && !v[0].held && v[0].figure == 1));
    CHECK((v[1].what == gate_verdict::kind::max_failures && v[1].held && v[1].figure == 4 && v[1].limit == 5));
    CHECK((v[2].what == gate_verdict::kind::max_percentile_ms && v[2].held && v[2].percentile == 99.9));
    CHECK((v[3].what == gate_verdict::kind::min_rps && !v[3].held && v[3].figure == doctest::Approx(50)));
    std::string out;
    CHECK(append_gate_lines(v, "", out, true) == 2);
    CHECK(has(out, "Gate broken: 1 responses failed the checks (reason check)\n"));
    CHECK(has(out, "Gate held: 4 failed requests, within --max-failures 5\n"));
    CHECK(has(out, ", within --max-p99.9-ms 1000000\n"));
    CHECK(has(out, "Gate broken: 50.00 requests/s, below --min-rps 1000000 by 999950.00\n"));
    CHECK_FALSE(has(out, "e+"));
    out.clear();
    CHECK(append_gate_lines(v, "", out, false) == 2);
    CHECK_FALSE(has(out, "held"));
    out.clear();
    append_gates_json(v, out);
    CHECK(out.rfind(",\"gates\":{\"passed\":false,\"verdicts\":[{\"gate\":\"checks\",\"limit\":0,\"figure\":1.000000,\"held\":false},"
                    "{\"gate\":\"max-failures\",\"limit\":5,\"figure\":4.000000,\"held\":true},{\"gate\":\"max-p99.9-ms\",\"limit\":1000000,", 0) == 0);
    CHECK(has(out, "{\"gate\":\"min-rps\",\"limit\":1000000,\"figure\":50."));
    json_value doc;
    CHECK_FALSE(parse_json("{\"x\":0" + out + "}", doc));
    CHECK(judge_gates(gates{}, sample(), false).size() == 1);  // a failed check is judged though none was asked for
    result clean;
    CHECK(judge_gates(gates{}, clean, false).empty());
    CHECK(judge_gates(gates{}, clean, true).size() == 1);
}

TEST_CASE("gates: a percentile of no successful response is broken, not 0 ms, and limits print as written") {
    result none;  // every response failed: nothing in total_ns
    none.requests_ended = none.requests_failed = 10;
    none.failures[static_cast<int>(failure::receive)] = 10;
    none.elapsed_ns = 1'000'000'000;
    gates g;
    g.max_percentile_ms = {{99, 50}};
    const std::vector<gate_verdict> v = judge_gates(g, none, false);
    REQUIRE(v.size() == 1);
    CHECK_FALSE(v[0].measured);
    CHECK_FALSE(v[0].held);
    std::string out;
    CHECK(append_gate_lines(v, "", out, true) == 1);
    CHECK(out == "Gate broken: p99 cannot be measured: no response succeeded (--max-p99-ms 50)\n");
    out.clear();
    append_gates_json(v, out);
    CHECK(out == ",\"gates\":{\"passed\":false,\"verdicts\":[{\"gate\":\"max-p99-ms\",\"limit\":50,\"figure\":null,\"held\":false}]}");
    const std::pair<double, const char*> written[] = {{1000000, "1000000"}, {1e12, "1000000000000"}, {0.5, "0.5"},
                                                      {0.0000015, "0.0000015"}, {1e-7, "0.0000001"}, {99.9999999, "99.9999999"},
                                                      {50, "50"}, {0, "0"}, {1e300, "1e+300"}};
    for (const auto& w : written) {
        CAPTURE(w.second);
        std::string text;
        detail::append_plain_number(text, w.first);
        CHECK(text == w.second);
    }
}

TEST_CASE("intervals: the CSV has a row per interval, the JSON an array, the summary their spread") {
    result r;
    r.interval_ns = 1'000'000'000;
    r.rate_target = 100;
    // Three whole seconds at 90, 100 and 110 requests, p99 5, 50 and 7 ms; then a last 0.5 s.
    const std::uint64_t ended[] = {90, 100, 110, 20};
    const std::int64_t p99_ms[] = {5, 50, 7, 3};
    for (int i = 0; i < 4; ++i) {
        interval_stats row{};
        row.start_ns = i * r.interval_ns;
        row.duration_ns = i < 3 ? r.interval_ns : r.interval_ns / 2;
        row.sent = row.ended = row.completed = row.latency_count = ended[i];
        row.target = i < 3 ? 100 : 50;
        row.p50_ns = 1'000'000;
        row.p90_ns = 2'000'000;
        row.p99_ns = p99_ms[i] * 1'000'000;
        row.max_ns = row.p99_ns + 1'000'000;
        row.lag_p99_ns = 25'000;
        row.lag_max_ns = 40'000;
        r.intervals.push_back(row);
    }
    CHECK(intervals_csv(r) ==
          "start_s,duration_s,sent,ended,completed,failed,rate_per_s,target_per_s,p50_ms,p90_ms,p99_ms,max_ms,lag_p99_ms,lag_max_ms\n"
          "0.000,1.000,90,90,90,0,90.00,100.00,1.000,2.000,5.000,6.000,0.025,0.040\n"
          "1.000,1.000,100,100,100,0,100.00,100.00,1.000,2.000,50.000,51.000,0.025,0.040\n"
          "2.000,1.000,110,110,110,0,110.00,100.00,1.000,2.000,7.000,8.000,0.025,0.040\n"
          "3.000,0.500,20,20,20,0,40.00,100.00,1.000,2.000,3.000,4.000,0.025,0.040\n");  // 50 due in 0.5 s: 100/s
    std::string text;
    append_intervals_summary(r, text);  // the last, shorter interval is left out of the spread
    CHECK(text ==
          "\nIntervals: 4 of 1.000 s (--intervals FILE for every row)\n"
          "  requests/s      min      90.00   median     100.00   max     110.00\n"
          "  p99 (ms)        min      5.000   median      7.000   max     50.000 (at 1.000 s)\n");
    text.clear();
    append_intervals_summary(r, text, true);  // the rows went to a file: no pointer to one
    CHECK(text.rfind("\nIntervals: 4 of 1.000 s\n  requests/s", 0) == 0);
    plan p;
    const std::string json = result_json(p, r, {50});
    CHECK(json.find("\"interval_ms\":1000,\"intervals\":[{\"start_ns\":0,\"duration_ns\":1000000000,\"sent\":90,\"ended\":90,"
                    "\"completed\":90,\"failed\":0,\"rate_per_s\":90.00,\"target_requests\":100.000000,\"response_ns\":{\"count\":90,\"p50\":1000000,"
                    "\"p90\":2000000,\"p99\":5000000,\"max\":6000000},\"schedule_lag_ns\":{\"p99\":25000,\"max\":40000}},") != std::string::npos);
    CHECK(json.find("{\"start_ns\":3000000000,\"duration_ns\":500000000,") != std::string::npos);
    CHECK(json.find("\"rate_per_s\":40.00,\"target_requests\":50.000000,") != std::string::npos);  // 80/s and 100/s in the CSV
    result closed;
    text.clear();
    append_intervals_summary(closed, text);
    CHECK(text.empty());
    CHECK(result_json(p, closed, {50}).find("intervals") == std::string::npos);
}

namespace {

// LC_ALL set to de_DE.UTF-8 (radix ',', German day names) for its scope, then "C" again.
struct comma_locale {
    const bool set = std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr;
    ~comma_locale() { std::setlocale(LC_ALL, "C"); }
};

// Every machine-readable output of one result, and the text report.
std::string every_output(const result& r, const run_description& d) {
    std::string out = result_json(d, r, {50, 99.9}) + intervals_csv(r) + percentiles_csv(r) + gnuplot_tsv(r);
    append_ab_report(context(), r, out);
    append_report_notes(context(), r, out);
    append_open_model_section(r, out);
    append_intervals_summary(r, out);
    append_latency_section(r, {50, 99.9}, out);
    std::vector<report_run> runs(1);
    runs[0].label = "A";
    runs[0].config = d;
    runs[0].r = r;
    html_options o;
    o.generated_unix_ms = 1'700'000'000'000;
    return out + html_report(runs, o);
}

}  // namespace

// Issue 19: numbers were written with printf and read with strtod, so a host that set LC_NUMERIC to
// a comma locale got "0,5" in its JSON and CSV and misread saved files.
TEST_CASE("every output is the same in a comma locale, and saved results read back exactly in it") {
    result r = sample();
    r.rate_target = 2000.5;
    r.interval_ns = 250'000'000;
    r.start_ns = 1'000'000'000;
    r.start_realtime_ns = 1'700'000'000'123'456'789;
    r.requests.push_back(request_timing{1'500'000'000, 1'400'000, 2'600'000, 7'500'000, 8'900'000});
    for (int i = 0; i < 3; ++i) {
        interval_stats row{};
        row.start_ns = i * r.interval_ns;
        row.duration_ns = r.interval_ns;
        row.sent = row.ended = row.completed = row.latency_count = 33 + i;
        row.target = 500.125 + i;
        row.p50_ns = row.p90_ns = row.p99_ns = row.max_ns = 1'250'000;
        r.intervals.push_back(row);
    }
    run_description d;
    d.url = "http://127.0.0.1:8080/factorial/10";
    d.concurrency = 10;
    const std::string in_c = every_output(r, d);
    const std::string json = result_json(d, r, {50, 99.9});
    std::vector<double> percentiles;

    comma_locale comma;
    REQUIRE_MESSAGE(comma.set, "de_DE.UTF-8 is not installed: generate it (.ci/run does: locale-gen)");
    REQUIRE(std::string(std::localeconv()->decimal_point) == ",");  // what the test is about
    CHECK(every_output(r, d) == in_c);
    CHECK(has(json, "\"rate\":2000.500,"));
    CHECK(has(json, "\"target_requests\":500.125000,"));
    CHECK(has(json, "\"99.9\":"));

    std::vector<report_run> back;
    REQUIRE_FALSE(read_report_runs(json, "", back));
    REQUIRE(back.size() == 1);
    CHECK(back[0].r.rate_target == 2000.5);
    REQUIRE(back[0].r.intervals.size() == 3);
    CHECK(back[0].r.intervals[2].target == 502.125);
    CHECK(result_json(back[0].config, back[0].r, {50, 99.9}) == json);
    REQUIRE(parse_percentile_list("50,99.9,99.99", percentiles));
    CHECK(percentiles == std::vector<double>{50, 99.9, 99.99});
}
