// The HTML report's parts: the JSON reader (strict, exact 64-bit numbers, errors with their byte),
// saved results read back (a fixed-rate run with intervals against the reference server on
// 127.0.0.1 writes the same JSON again and draws the same report), the SVG charts (axis mapping,
// ticks, escaping, accessibility) and the document (sections by scenario, colours by label).
// The browser-side checks are tests/report/test_html_report.py.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "microbench.hpp"
#include "run_helpers.hpp"

using namespace microbench;

namespace {

// A fixed-rate run with intervals and a check, against the reference server: every part of the
// JSON is present. Its rows of 50 ms stay apart only while the calling thread keeps up, so the
// cases that use it are in the suite "timing" (tests/CMakeLists.txt).
void run_sample(plan& p, result& r, const char* path) {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    p.url("http://127.0.0.1:" + std::to_string(srv.port()) + path).requests(400).concurrency(4).keep_alive(true).rate(2000).interval_ms(50);
    checks c;
    c.factorial(20);
    p.check(c);
    REQUIRE_FALSE(run(p, r));
    REQUIRE(r.requests_completed == 400);
    REQUIRE(r.intervals.size() >= 3);
}

// `json` with the value of the first "key" after `after` replaced by `value`.
std::string with_value(std::string json, const char* after, const char* key, const std::string& value) {
    const std::size_t from = json.find(after);
    REQUIRE(from != std::string::npos);
    const std::size_t at = json.find(std::string("\"") + key + "\":", from);
    REQUIRE(at != std::string::npos);
    const std::size_t begin = at + std::strlen(key) + 3, end = json.find_first_of(",}", begin);
    return json.replace(begin, end - begin, value);
}

}  // namespace

TEST_CASE("json: values, exact 64-bit integers, escapes and surrogate pairs") {
    json_value v;
    REQUIRE_FALSE(parse_json(R"( {"a": [1, -2.5e3, true, false, null], "n": 18446744073709551615,
                                  "s": "q\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "e": {}, "z": []} )", v));
    REQUIRE(v.is(json_value::kind::object));
    const json_value* a = v.find("a");
    REQUIRE(a);
    REQUIRE(a->items.size() == 5);
    std::uint64_t u = 0;
    double real = 0;
    CHECK((a->items[0].to_u64(u) && u == 1));
    CHECK((a->items[1].to_real(real) && real == -2500.0));
    CHECK_FALSE(a->items[1].to_u64(u));  // not an unsigned integer
    CHECK_FALSE(a->items[2].to_real(real));  // not a number
    CHECK(a->items[2].boolean);
    CHECK_FALSE(a->items[3].boolean);
    CHECK(a->items[4].is(json_value::kind::null));
    CHECK((v.find("n")->to_u64(u) && u == 18446744073709551615ULL));
    CHECK(v.find("s")->text == "q\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
    CHECK(v.find("e")->is(json_value::kind::object));
    CHECK(v.find("z")->items.empty());
    CHECK(v.find("missing") == nullptr);
}

TEST_CASE("json: malformed documents are errors at the byte where reading stopped") {
    struct bad { const char* text; errc code; std::size_t at; };
    const bad cases[] = {
        {"", errc::json_bad, 0},           {"{\"a\":1,}", errc::json_bad, 7}, {"[1,]", errc::json_bad, 3},
        {"01", errc::json_bad, 1},          {"1.", errc::json_bad, 2},         {"-", errc::json_bad, 0},
        {"\"a\nb\"", errc::json_bad, 2},    {"\"\\x\"", errc::json_bad, 2},    {"\"\\ud800\"", errc::json_bad, 7},
        {"\"\\udc00\"", errc::json_bad, 7}, {"tru", errc::json_bad, 0},        {"{\"a\" 1}", errc::json_bad, 5},
        {"[1] 2", errc::json_bad, 4},       {"{1:2}", errc::json_bad, 1},      {"\"open", errc::json_bad, 5},
    };
    for (const bad& b : cases) {
        CAPTURE(b.text);
        json_value v;
        const error e = parse_json(b.text, v);
        CHECK(e.code == b.code);
        CHECK(e.position == b.at);
    }
}

// Issue 19: the header said "at most 64 deep" and 65 was accepted.
TEST_CASE("json: at most 64 arrays and objects one inside another") {
    json_value v;
    CHECK_FALSE(parse_json(std::string(64, '[') + "1" + std::string(64, ']'), v));
    CHECK(parse_json(std::string(65, '[') + std::string(65, ']'), v) == error(errc::json_too_deep, 64));
    std::string objects;
    for (int i = 0; i < 64; ++i) objects += "{\"a\":";
    CHECK_FALSE(parse_json(objects + "1" + std::string(64, '}'), v));
    CHECK(parse_json(objects + "{}" + std::string(64, '}'), v) == error(errc::json_too_deep, 64 * 5));
}

// Issue 19: after an error `keys` had one more entry than `items`, and find() read past the end.
TEST_CASE("json: a failed parse leaves nothing to query") {
    for (const char* text : {"{\"a\":1,\"b", "{\"a\":1,\"b\":", "{\"a\":[1,{\"c\":x", "[1,2,"}) {
        CAPTURE(text);
        json_value v;
        REQUIRE(parse_json(text, v).code == errc::json_bad);
        CHECK(v.is(json_value::kind::null));
        CHECK(v.keys.empty());
        CHECK(v.items.empty());
        CHECK(v.find("a") == nullptr);
        CHECK(v.find("b") == nullptr);
    }
}

// Issue 19: u64() saturated, a minus or a fraction read as 0, 1e999 as infinity.
TEST_CASE("json: numbers are read only when they fit, alike in every locale") {
    struct row { const char* text; bool u64, i64, real; };
    static const std::string digits_400 = "1." + std::string(399, '0'), digits_401 = "1." + std::string(400, '0');
    const row rows[] = {
        {"0", true, true, true},
        {"18446744073709551615", true, false, true},
        {"18446744073709551616", false, false, true},
        {"9223372036854775807", true, true, true},
        {"-9223372036854775808", false, true, true},
        {"-9223372036854775809", false, false, true},
        {"-0", false, true, true},
        {"1.5", false, false, true},
        {"1e3", false, false, true},
        {"1e308", false, false, true},
        {"1e309", false, false, false},
        {"1e999", false, false, false},
        {"-1e999", false, false, false},
        {"1e-400", false, false, false},  // a non-zero value that would read as 0
        {digits_400.c_str(), false, false, true},  // 1.000…: 400 digits are read, 401 refused
        {digits_401.c_str(), false, false, false},
        {"0e-400", false, false, true},
        {"4.9e-324", false, false, true},
    };
    for (const row& r : rows) {
        CAPTURE(r.text);
        json_value v;
        REQUIRE_FALSE(parse_json(r.text, v));
        std::uint64_t u = 7;
        std::int64_t i = 7;
        double d = 7;
        CHECK(v.to_u64(u) == r.u64);
        CHECK(v.to_i64(i) == r.i64);
        CHECK(v.to_real(d) == r.real);
        if (!r.u64) CHECK(u == 7);  // left alone
        if (!r.real) CHECK(d == 7);
    }
    json_value v;
    REQUIRE_FALSE(parse_json("[18446744073709551615, -9223372036854775808, 0.1, 2.5e-3, 123456789.123456789]", v));
    std::uint64_t u = 0;
    std::int64_t i = 0;
    double d = 0;
    CHECK((v.items[0].to_u64(u) && u == UINT64_MAX));
    CHECK((v.items[1].to_i64(i) && i == INT64_MIN));
    CHECK((v.items[2].to_real(d) && d == 0.1));
    CHECK((v.items[3].to_real(d) && d == 0.0025));
    CHECK((v.items[4].to_real(d) && d == 123456789.123456789));
}

TEST_CASE("saved results come back exactly: the same JSON, the same report" * doctest::test_suite("timing")) {
    plan p;
    result r;
    run_sample(p, r, "/factorial/20");
    // And a run whose rate has no short decimal form and whose every response fails its check:
    // what the report draws from the failed responses must come back too.
    server srv;
    REQUIRE_FALSE(srv.start({}));
    plan third;
    third.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/factorial/20").requests(100).concurrency(2).keep_alive(true)
        .rate(1000.0 / 3).interval_ms(100);
    checks wrong;
    wrong.factorial(19);
    third.check(wrong);
    result failing;
    REQUIRE_FALSE(run(third, failing));
    REQUIRE(failing.failed(failure::check) == 100);
    REQUIRE(failing.responses_total_ns.count() == 100);
    REQUIRE(failing.total_ns.empty());
    const std::vector<double> percentiles = {50, 90, 99, 99.9};
    for (const auto& [plan_of, result_of] : {std::make_pair(&p, &r), std::make_pair(&third, &failing)}) {
        const std::string json = result_json(*plan_of, *result_of, percentiles);
        std::vector<report_run> back;
        REQUIRE_FALSE(read_report_runs(json, "", back));
        REQUIRE(back.size() == 1);
        CHECK(back[0].label == "/factorial/20");  // as the command line labels a single run
        CHECK(back[0].r.intervals.size() == result_of->intervals.size());
        CHECK(back[0].r.responses_total_ns.count() == result_of->responses_total_ns.count());
        CHECK(result_json(back[0].config, back[0].r, percentiles) == json);

        std::vector<report_run> live(1);
        live[0].label = back[0].label;
        live[0].config = describe(*plan_of);
        live[0].r = *result_of;
        html_options o;
        o.percentiles = percentiles;
        CHECK(html_report(back, o) == html_report(live, o));
        std::string text_back, text_live;
        append_report_notes(report_context_of(back[0].config), back[0].r, text_back);
        append_report_notes(report_context_of(live[0].config), live[0].r, text_live);
        CHECK(text_back == text_live);
    }
}

TEST_CASE("saved results over TLS come back exactly, with the handshakes in the notes and a TLS table" *
          doctest::test_suite("timing")) {
    plan p;
    result r;
    run_sample(p, r, "/factorial/20");
    REQUIRE_FALSE(r.tls_used);  // plain HTTP: what follows is set by hand
    r.tls_handshakes = 10;
    r.tls_resumed = 3;
    r.tls_no_session = 2;
    r.failures[static_cast<int>(failure::tls)] = 2;
    r.tls_handshake_failures = 1;
    r.requests_failed += 2;
    r.requests_ended += 2;
    r.tls_used = true;
    std::snprintf(r.tls.protocol, sizeof r.tls.protocol, "TLSv1.3");
    std::snprintf(r.tls.cipher, sizeof r.tls.cipher, "TLS_AES_256_GCM_SHA384");
    r.tls.server_key_bits = 2048;
    r.tls.secret_bits = 256;
    std::snprintf(r.tls.temp_key, sizeof r.tls.temp_key, "X25519 253 bits");
    std::snprintf(r.tls.server_name, sizeof r.tls.server_name, "localhost");
    for (std::int64_t ns : {1'500'000, 2'000'000, 9'000'000}) r.tls_handshake_ns.record(ns);
    r.note_tls_failure("certificate verify failed: hostname mismatch");
    r.note_tls_failure("tlsv13 alert certificate required");
    const std::string json = result_json(p, r, {50, 99});
    CHECK(json.find("\"tls\":{\"handshakes\":10,\"resumed\":3,\"no_session\":2,\"handshake_failures\":1,"
                    "\"protocol\":\"TLSv1.3\"") != std::string::npos);
    std::vector<report_run> back;
    REQUIRE_FALSE(read_report_runs(json, "", back));
    CHECK(result_json(back[0].config, back[0].r, {50, 99}) == json);
    CHECK(back[0].r.tls_failure_reasons == r.tls_failure_reasons);
    std::string notes;
    append_report_notes(report_context_of(back[0].config), back[0].r, notes);
    CHECK(back[0].r.tls_no_session == 2);
    CHECK(notes.find("TLS handshakes: 10 (3 resumed, 2 with no session at hand), each in ms: min 1.500") != std::string::npos);
    CHECK(notes.find("TLS failures: certificate verify failed: hostname mismatch; tlsv13 alert certificate required\n") !=
          std::string::npos);
    std::string ab;
    append_ab_report(report_context_of(back[0].config), back[0].r, ab);
    CHECK(ab.find("Server Port:            " + std::to_string(report_context_of(back[0].config).port) +
                  "\nSSL/TLS Protocol:       TLSv1.3,TLS_AES_256_GCM_SHA384,2048,256\nServer Temp Key:        X25519 253 bits\n"
                  "TLS Server Name:        localhost\n\n") != std::string::npos);
    const std::string page = html_report(back, html_options{});
    CHECK(page.find("TLS (handshakes within Connect)") != std::string::npos);
    CHECK(page.find("TLSv1.3, TLS_AES_256_GCM_SHA384, 2048, 256") != std::string::npos);
    std::vector<report_run> plain;
    REQUIRE_FALSE(read_report_runs(result_json(p, result(), {50}), "", plain));
    CHECK(html_report(plain, html_options{}).find("TLS (handshakes") == std::string::npos);  // only for runs over TLS

    // More handshake failures than tls failures cannot be: refused, naming the field.
    std::string bad = json;
    bad.replace(bad.find("\"handshake_failures\":1"), 22, "\"handshake_failures\":5");
    std::string why;
    CHECK(read_report_runs(bad, "", back, &why).code == errc::result_bad_field);
    CHECK(why.find("tls.handshake_failures") != std::string::npos);
    bad = json;  // more resumed than made
    bad.replace(bad.find("\"resumed\":3"), 11, "\"resumed\":11");
    CHECK(read_report_runs(bad, "", back, &why).code == errc::result_bad_field);
    CHECK(why.find("tls.resumed") != std::string::npos);
    bad = json;  // and more handshakes with no session at hand than full ones
    bad.replace(bad.find("\"no_session\":2"), 14, "\"no_session\":8");
    CHECK(read_report_runs(bad, "", back, &why).code == errc::result_bad_field);
    CHECK(why.find("tls.no_session") != std::string::npos);
}

TEST_CASE("saved results: rows saved with \"target\" read as rows with \"target_requests\"" *
          doctest::test_suite("timing")) {
    plan p;
    result r;
    run_sample(p, r, "/factorial/20");
    REQUIRE(r.intervals.size() >= 2);
    r.intervals[0].target = 250;  // due in the row's duration
    const std::string json = result_json(p, r, {50});
    const std::size_t at = json.find("\"target_requests\":");
    REQUIRE(at != std::string::npos);
    std::string old = json;
    const std::size_t end = old.find(',', at);
    old.replace(at, end - at, "\"target\":250");  // as files were saved before the rows named their unit
    std::vector<report_run> back, again;
    REQUIRE_FALSE(read_report_runs(old, "", back));
    REQUIRE_FALSE(read_report_runs(json, "", again));
    CHECK(back[0].r.intervals[0].target == 250);
    CHECK(again[0].r.intervals[0].target == 250);
    CHECK(result_json(back[0].config, back[0].r, {50}) == json);  // and it is written back with the new name
    CHECK(back[0].r.intervals[0].target_rate() == doctest::Approx(250e9 / static_cast<double>(r.intervals[0].duration_ns)));
}

TEST_CASE("saved results: --compare and two-URL --suite documents are labelled A and B" *
          doctest::test_suite("timing")) {
    plan p;
    result r;
    run_sample(p, r, "/factorial/20");
    const std::string one = result_json(p, r, {50});
    std::vector<report_run> runs;
    REQUIRE_FALSE(read_report_runs("{\"a\":" + one + ",\"b\":" + one + "}", "cmp", runs));
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].label == "cmp A");
    CHECK(runs[1].label == "cmp B");
    plan other = p;
    other.url(p.url() + "0");  // another URL: the suite's B
    const std::string two = result_json(other, r, {50});
    runs.clear();
    REQUIRE_FALSE(read_report_runs("[{\"scenario\":\"x\",\"result\":" + one + "},{\"scenario\":\"x\",\"result\":" + two + "}]", "", runs));
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].label == "A");
    CHECK(runs[1].label == "B");
    CHECK(runs[1].scenario == "x");
}

TEST_CASE("saved results: what is not a result is refused with a reason" * doctest::test_suite("timing")) {
    std::vector<report_run> runs;
    CHECK(read_report_runs("{\"x\":1}", "", runs).code == errc::result_not_microbench);
    CHECK(read_report_runs("[]", "", runs).code == errc::result_not_microbench);
    CHECK(read_report_runs("[{\"result\":{}}]", "", runs).code == errc::result_not_microbench);
    CHECK(read_report_runs("{\"microbench\":\"0.1.0\"}", "", runs).code == errc::result_bad_field);
    CHECK(read_report_runs("{\"microbench\":", "", runs).code == errc::json_bad);
    plan p;
    result r;
    run_sample(p, r, "/factorial/20");
    std::string json = result_json(p, r, {50});
    const std::size_t at = json.find("\"histogram\":\"") + 13;
    json[at] = json[at] == 'A' ? 'B' : 'A';  // the encoded histogram's first byte: no longer 'MBH'
    std::string problem;
    CHECK(read_report_runs(json, "", runs, &problem).code == errc::result_bad_field);
    CHECK(problem == "latency_ns.connect.histogram does not decode");
    std::string wrong_type = result_json(p, r, {50});
    const std::size_t ended = wrong_type.find("\"ended\":") + 8;
    wrong_type.insert(ended, "\"");
    wrong_type.insert(wrong_type.find(',', ended), "\"");
    CHECK(read_report_runs(wrong_type, "", runs, &problem).code == errc::result_bad_field);
    CHECK(problem == "requests.ended has the wrong type");
    CHECK(read_report_runs(with_value(result_json(p, r, {50}), "{", "server_software", "5"), "", runs, &problem).code == errc::result_bad_field);
    CHECK(problem == "server_software has the wrong type");
    CHECK(read_report_runs("[{\"scenario\":\"x\",\"result\":{\"microbench\":\"0\",\"partial\":false}}]", "", runs, &problem).code ==
          errc::result_bad_field);
    CHECK(problem == "config is missing");
    CHECK(runs.empty());
}

// Issue 19: a saved result whose interval target is 1e999 hung the report; counts above 2^64 - 1
// saturated, a uint32_t field truncated, a minus or a fraction read as 0, huge times overflowed.
TEST_CASE("saved results: a number its field cannot hold is refused, naming the field" *
          doctest::test_suite("timing")) {
    plan p;
    result r;
    run_sample(p, r, "/factorial/20");
    const std::string json = result_json(p, r, {50});
    std::vector<report_run> runs;
    REQUIRE_FALSE(read_report_runs(json, "", runs));
    struct row { const char* after; const char* key; const char* value; const char* problem; };
    const row rows[] = {
        {"\"intervals\"", "target_requests", "1e999", "intervals[0].target_requests: 1e999 is out of range"},
        {"\"intervals\"", "target_requests", "-1e999", "intervals[0].target_requests: -1e999 is out of range"},
        {"\"intervals\"", "target_requests", "36000000001", "intervals[0].target_requests: 36000000001 is out of range"},
        {"\"open_model\"", "rate", "1e400", "open_model.rate: 1e400 is out of range"},
        {"\"config\"", "requests", "18446744073709551616", "config.requests: 18446744073709551616 is out of range"},
        {"\"config\"", "concurrency", "4294967297", "config.concurrency: 4294967297 is out of range"},
        {"\"config\"", "threads", "-1", "config.threads: -1 is out of range"},
        {"\"requests\"", "ended", "-1", "requests.ended: -1 is out of range"},
        {"\"requests\"", "completed", "1.5", "requests.completed: 1.5 is out of range"},
        {"\"failures\"", "timeout", "1e3", "failures.timeout: 1e3 is out of range"},
        {"\"status_codes\"", "200", "1e999", "status_codes.200: 1e999 is out of range"},
        {"\"connections\"", "peak", "99999999999", "connections.peak: 99999999999 is out of range"},
        {"{", "start_unix_ms", "9223372036854775807", "start_unix_ms: 9223372036854775807 is out of range"},
        {"{", "elapsed_ns", "-1", "elapsed_ns: -1 is out of range"},
        {"{", "interval_ms", "9223372036854775807", "interval_ms: 9223372036854775807 is out of range"},
        {"\"intervals\"", "duration_ns", "9223372036854775807", "intervals[0].duration_ns: 9223372036854775807 is out of range"},
        {"\"intervals\"", "p99", "-3", "intervals[0].response_ns.p99: -3 is out of range"},
    };
    for (const row& x : rows) {
        CAPTURE(x.problem);
        const std::string bad = with_value(json, x.after, x.key, x.value);
        std::string problem;
        runs.clear();
        CHECK(read_report_runs(bad, "", runs, &problem).code == errc::result_bad_field);
        CHECK(problem == x.problem);
        CHECK(runs.empty());
        problem.clear();
        CHECK(read_report_runs("{\"a\":" + json + ",\"b\":" + bad + "}", "", runs, &problem).code == errc::result_bad_field);
        CHECK(problem == std::string("b.") + x.problem);
    }
}

TEST_CASE("svg: the percentile axis, round ticks and short tick labels") {
    CHECK(percentile_axis_x(0) == 0.0);
    CHECK(percentile_axis_x(90) == doctest::Approx(1.0));
    CHECK(percentile_axis_x(99.99) == doctest::Approx(4.0));
    CHECK(percentile_axis_x(100) == 9.0);
    CHECK(detail::nice_step(7.3, 5) == 2.0);
    CHECK(detail::nice_step(0.042, 5) == doctest::Approx(0.01));
    CHECK(detail::nice_step(0, 5) == 1.0);
    CHECK(detail::tick_text(150000) == "150k");
    CHECK(detail::tick_text(2500000) == "2.5M");
    CHECK(detail::tick_text(0.05) == "0.05");
    CHECK(detail::percentile_tick_text(1) == "90%");
    CHECK(detail::percentile_tick_text(4) == "99.99%");
}

TEST_CASE("svg: a chart is an accessible image whose points sit where its axis says") {
    chart c;
    c.id = "t";
    c.title = "<latency> & \"more\"";
    c.description = "d";
    c.x_label = "x";
    c.y_label = "ms";
    chart_series s;
    s.name = "A<script>";
    s.points = {{0, 0}, {1, 5}, {2, 10}};
    s.markers = {{1, 5, "A p90: 5.000 ms"}};
    c.series.push_back(s);
    std::string svg;
    append_svg_chart(c, svg);
    CHECK(svg.find("role=\"img\" aria-labelledby=\"t-t t-d\"") != std::string::npos);
    CHECK(svg.find("<title id=\"t-t\">&lt;latency&gt; &amp; &quot;more&quot;</title>") != std::string::npos);
    CHECK(svg.find("<script") == std::string::npos);
    CHECK(svg.find("A&lt;script&gt;") != std::string::npos);
    // y from 0 to 10 with ticks every 2: the marker at 5 sits halfway between the ticks 0 and 10.
    auto y_of_tick = [&](const char* label) {
        const std::size_t at = svg.find(std::string(">") + label + "</text>");
        REQUIRE(at != std::string::npos);
        const std::size_t y = svg.rfind("y=\"", at);
        return std::stod(svg.substr(y + 3)) - 4;
    };
    const std::size_t cy = svg.find("cy=\"");
    REQUIRE(cy != std::string::npos);
    CHECK(std::stod(svg.substr(cy + 4)) == doctest::Approx((y_of_tick("0") + y_of_tick("10")) / 2).epsilon(0.01));
    CHECK(count_of(svg, "<polyline") == 1);
    CHECK(count_of(svg, "class=\"legend\"") == 1);
}

// Issue 19: an infinite value (a saved target of 1e999) made the tick step infinite and the tick
// loop never ended while the output grew; NaN drew "nan" coordinates; two values 1e300 one step of
// a double apart made a tick step too small to advance.
TEST_CASE("svg: any data draws in bounded size, without nan or inf") {
    const double inf = HUGE_VAL, nan = std::nan("");
    struct row { const char* what; std::vector<std::pair<double, double>> points; chart_axis axis; };
    const std::vector<row> rows = {
        {"NaN y", {{0, 1}, {1, nan}, {2, 3}}, chart_axis::linear},
        {"NaN x", {{nan, 1}, {1, 2}}, chart_axis::linear},
        {"negative", {{-5, -7}, {-1, -2}}, chart_axis::linear},
        {"one point (min == max)", {{3, 3}}, chart_axis::linear},
        {"all equal", {{1e300, 5}, {1e300, 5}}, chart_axis::linear},
        {"huge, finite", {{0, 1e300}, {1, 1e300}}, chart_axis::linear},
        {"huge range", {{-1e300, -1e300}, {1e300, 1e300}}, chart_axis::linear},
        {"denormal", {{0, 4.9e-324}, {1e-320, 1e-323}}, chart_axis::linear},
        {"1e300 one step apart", {{1e300, 1}, {std::nextafter(1e300, inf), 2}}, chart_axis::linear},
        {"infinite y", {{0, 1}, {1, inf}}, chart_axis::linear},
        {"infinite x", {{-inf, 1}, {inf, 2}}, chart_axis::linear},
        {"percentile axis, huge x", {{0, 1}, {1e300, 2}}, chart_axis::percentile},
        {"percentile axis, infinite y", {{0, 1}, {1, inf}}, chart_axis::percentile},
    };
    for (const row& r : rows) {
        CAPTURE(r.what);
        chart c;
        c.id = "t";
        c.x_axis = r.axis;
        chart_series s;
        s.name = "A";
        s.points = r.points;
        for (const auto& pt : r.points) s.markers.push_back({pt.first, pt.second, "m"});
        c.series.push_back(s);
        std::string svg;
        append_svg_chart(c, svg);
        CHECK(svg.size() < 8000);
        CHECK(count_of(svg, "class=\"grid\"") <= 2 * detail::chart_max_ticks);
        CHECK(svg.find("nan") == std::string::npos);
        CHECK(svg.find("inf") == std::string::npos);
        CHECK(svg.find("</svg>") != std::string::npos);
    }
}

// Issue 19: `microbench report` of this file never ended (target / 1 ns = infinity).
TEST_CASE("html: a saved result with a target of 1e300 in a 1 ns interval draws in bounded size" *
          doctest::test_suite("timing")) {
    plan p;
    result r;
    run_sample(p, r, "/factorial/20");
    std::string json = with_value(result_json(p, r, {50}), "{", "interval_ms", "0");
    json = with_value(json, "\"intervals\"", "duration_ns", "1");
    json = with_value(json, "\"intervals\"", "target_requests", "1e300");
    std::vector<report_run> runs;
    std::string problem;
    CHECK(read_report_runs(json, "", runs, &problem).code == errc::result_bad_field);  // the reader refuses it now
    CHECK(problem == "interval_ms: 0 is out of range");
    // The charts are bounded for a result made in memory too.
    runs.assign(1, report_run());
    runs[0].label = "x";
    runs[0].config = describe(p);
    runs[0].r = r;
    runs[0].r.interval_ns = 1;
    runs[0].r.intervals[0].duration_ns = 1;
    runs[0].r.intervals[0].target = 1e300;
    const std::string html = html_report(runs);
    CHECK(html.size() < 200000);
    CHECK(html.find("</html>") != std::string::npos);
}

TEST_CASE("html: a section per scenario, a colour per label in every section") {
    std::vector<report_run> runs(4);
    const char* labels[] = {"A", "B", "A", "B"};
    const char* scenarios[] = {"one", "one", "two", "two"};
    for (int i = 0; i < 4; ++i) {
        runs[i].label = labels[i];
        runs[i].scenario = scenarios[i];
        runs[i].config.url = std::string("http://127.0.0.1:1/") + labels[i];
        runs[i].r.requests_ended = runs[i].r.requests_completed = 3;
        runs[i].r.status_counts[200] = 3;
        for (std::int64_t v : {1'000'000, 2'000'000, 3'000'000 + i}) runs[i].r.total_ns.record(v);
    }
    runs[3].r.total_ns.reset();  // B has no timings in "two": drawn as "-", not as a line
    const std::string html = html_report(runs);
    CHECK(count_of(html, "<section") == 2);
    CHECK(html.find(">one</h2>") < html.find(">two</h2>"));
    CHECK(count_of(html, "<li><span class=\"swatch\"") == 2);  // the key lists each label once
    CHECK(count_of(html, "stroke=\"#0072b2\"") > 0);
    const std::string two = html.substr(html.find(">two</h2>"));
    const std::string total = two.substr(0, two.find("</figure>"));
    CHECK(count_of(total, "<polyline") == 1);
    CHECK(total.find("stroke=\"#0072b2\"") != std::string::npos);  // A keeps its colour
    CHECK(total.find("<th scope=\"row\">min</th><td>1.000</td><td>-</td>") != std::string::npos);
    CHECK(total.find("<th scope=\"row\">count</th><td>3</td><td>0</td>") != std::string::npos);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("https://") == std::string::npos);
}

TEST_CASE("a fixed rate's batch lag is saved, read back, named in the report, and kept apart by merge" *
          doctest::test_suite("timing")) {
    plan p;
    result r;
    run_sample(p, r, "/factorial/20");
    r.rate_target = 1000;  // set by hand: what a fixed-rate run with 200 us of batch lag records
    r.rate_batch_lag_ns = 200'000;
    const std::string json = result_json(p, r, {50, 99});
    CHECK(json.find("\"max_batch_lag_us\":200,") != std::string::npos);
    std::vector<report_run> back;
    REQUIRE_FALSE(read_report_runs(json, "", back));
    CHECK(back[0].r.rate_batch_lag_ns == 200'000);
    CHECK(result_json(back[0].config, back[0].r, {50, 99}) == json);
    std::string text;
    append_open_model_section(back[0].r, text);
    CHECK(text.find("up to 200 us of it lets one wake send several (--max-batch-lag)") != std::string::npos);
    // A file from before batching has no such field: read as 0, which is what that engine did.
    std::string old = json;
    old.erase(old.find("\"max_batch_lag_us\":200,"), std::strlen("\"max_batch_lag_us\":200,"));
    std::vector<report_run> before;  // read_report_runs appends
    REQUIRE_FALSE(read_report_runs(old, "", before));
    REQUIRE(before.size() == 1);
    CHECK(before[0].r.rate_batch_lag_ns == 0);
    text.clear();
    append_open_model_section(before[0].r, text);
    CHECK(text.find("--max-batch-lag") == std::string::npos);
    // Runs with different batch lags are different plans to merge.
    std::vector<report_run> both = back;
    both.push_back(before[0]);
    report_run merged;
    merge_summary s;
    CHECK(merge_runs(both, merged, s).code == errc::merge_different_plans);
    CHECK(s.problem.find("batch lag (us)") != std::string::npos);
}
