// The HTML report's parts: the JSON reader (strict, exact 64-bit numbers, errors with their byte),
// saved results read back (a fixed-rate run with intervals against the reference server on
// 127.0.0.1 writes the same JSON again and draws the same report), the SVG charts (axis mapping,
// ticks, escaping, accessibility) and the document (sections by scenario, colours by label).
// The browser-side checks are tests/report/test_html_report.py.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "microbench.hpp"

using namespace microbench;

namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

// A fixed-rate run with intervals and a check, against the reference server: every part of the
// JSON is present.
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

}  // namespace

TEST_CASE("json: values, exact 64-bit integers, escapes and surrogate pairs") {
    json_value v;
    REQUIRE_FALSE(parse_json(R"( {"a": [1, -2.5e3, true, false, null], "n": 18446744073709551615,
                                  "s": "q\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "e": {}, "z": []} )", v));
    REQUIRE(v.is(json_value::kind::object));
    const json_value* a = v.find("a");
    REQUIRE(a);
    REQUIRE(a->items.size() == 5);
    CHECK(a->items[0].u64() == 1);
    CHECK(a->items[1].number() == -2500.0);
    CHECK(a->items[1].u64() == 0);  // not an unsigned integer
    CHECK(a->items[2].boolean);
    CHECK_FALSE(a->items[3].boolean);
    CHECK(a->items[4].is(json_value::kind::null));
    CHECK(v.find("n")->u64() == 18446744073709551615ULL);
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
    json_value v;
    CHECK_FALSE(parse_json(std::string(64, '[') + std::string(64, ']'), v));
    CHECK(parse_json(std::string(66, '[') + std::string(66, ']'), v).code == errc::json_too_deep);
}

TEST_CASE("saved results come back exactly: the same JSON, the same report") {
    plan p;
    result r;
    run_sample(p, r, "/factorial/20");
    const std::vector<double> percentiles = {50, 90, 99, 99.9};
    const std::string json = result_json(p, r, percentiles);
    std::vector<report_run> back;
    REQUIRE_FALSE(read_report_runs(json, "", back));
    REQUIRE(back.size() == 1);
    CHECK(back[0].label == "/factorial/20");  // as the command line labels a single run
    CHECK(back[0].config.checks == "body is 20! (19 digits)");
    CHECK(back[0].r.rate_target == 2000.0);
    CHECK(back[0].r.intervals.size() == r.intervals.size());
    CHECK(result_json(back[0].config, back[0].r, percentiles) == json);

    std::vector<report_run> live(1);
    live[0].label = back[0].label;
    live[0].config = describe(p);
    live[0].r = r;
    html_options o;
    o.percentiles = percentiles;
    CHECK(html_report(back, o) == html_report(live, o));
}

TEST_CASE("saved results: --compare and two-URL --suite documents are labelled A and B") {
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

TEST_CASE("saved results: what is not a result is refused with a reason") {
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
    CHECK(read_report_runs(json, "", runs).code == errc::result_bad_field);
    std::string wrong_type = result_json(p, r, {50});
    const std::size_t ended = wrong_type.find("\"ended\":") + 8;
    wrong_type.insert(ended, "\"");
    wrong_type.insert(wrong_type.find(',', ended), "\"");
    CHECK(read_report_runs(wrong_type, "", runs).code == errc::result_bad_field);
    CHECK(runs.empty());
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
