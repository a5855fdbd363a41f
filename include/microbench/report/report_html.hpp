// microbench/report/report_html.hpp — the HTML report: one self-contained file (inline CSS and
// SVG; no script, font, image or link to fetch) drawing one or more runs. Runs of the same
// scenario share a section: latency by percentile overlaid (total large; connect, waiting and
// processing small), the open model's response time and schedule lag, throughput and response
// time over time from the interval rows, then the tables (report_html_tables.hpp) and each run's
// targets when it kept them (report_html_targets.hpp). A section of interval logs' tags has their
// values by percentile and over time, and their tables. Readable on a phone and in print.
#pragma once

#include <algorithm>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "../core/appendf.hpp"
#include "../core/version.hpp"
#include "report_ab.hpp"
#include "report_charts.hpp"
#include "report_html_tables.hpp"
#include "report_html_targets.hpp"
#include "report_read.hpp"

namespace microbench {

namespace detail {

constexpr const char* html_style =
    "*{box-sizing:border-box}"
    "body{margin:0;font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1a1a1a;background:#fff}"
    "main{max-width:1120px;margin:0 auto;padding:12px 16px 32px}"
    "h1{font-size:1.5em;margin:.4em 0 .2em;overflow-wrap:anywhere}"
    "h2{font-size:1.25em;margin:1.6em 0 .4em;border-bottom:1px solid #ccc}"
    "h3{font-size:1em;margin:1em 0 .3em}p{margin:.3em 0}"
    ".meta{color:#555;font-size:.9em}"
    ".charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,440px),1fr));gap:12px 20px}"
    ".small{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,330px),1fr));gap:8px 14px}"
    "figure{margin:0;min-width:0}figcaption{font-weight:600;font-size:.95em;margin:.2em 0}"
    "svg.chart{display:block;width:100%;height:auto;overflow:hidden}"
    "svg .grid{stroke:#e3e3e3;stroke-width:1}svg .axis{stroke:#555;fill:none;stroke-width:1}"
    "svg .tick{fill:#444}svg .tick.y{text-anchor:end}svg .tick.x{text-anchor:middle}"
    "svg .label{fill:#222;text-anchor:middle}svg .line{fill:none;stroke-width:2}"
    "svg .line.secondary{stroke-width:1.3}svg .legend text{fill:#222}"
    "details{font-size:.85em;margin:.2em 0 .6em}summary{cursor:pointer;color:#0b5394}"
    ".scroll{overflow-x:auto;max-width:100%}"
    "table{border-collapse:collapse;margin:.3em 0 1em;font-variant-numeric:tabular-nums;width:100%}"
    "th,td{padding:3px 0 3px 10px;text-align:right;vertical-align:top;border-bottom:1px solid #eee}"
    "th[scope=row]{padding-left:0}"
    "th[scope=row],thead th:first-child{text-align:left;font-weight:500}"
    ".tables{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,320px),1fr));gap:0 28px}"
    ".text{overflow-wrap:anywhere;text-align:left}"
    ".key{list-style:none;padding:0;margin:.4em 0}"
    ".swatch{display:inline-block;width:1.6em;height:.35em;vertical-align:middle;margin-right:.4em}"
    "@media (max-width:480px){body{font-size:14px}main{padding:8px 10px 24px}table{font-size:.9em}}"
    "@media print{main{max-width:none;padding:0}figure,table{break-inside:avoid}summary{display:none}"
    "body{font-size:11pt}}";


inline const histogram& total_of(const result& r) { return r.total_ns; }
inline const histogram& connect_of(const result& r) { return r.connect_ns; }
inline const histogram& waiting_of(const result& r) { return r.waiting_ns; }
inline const histogram& processing_of(const result& r) { return r.processing_ns; }
inline const histogram& response_of(const result& r) { return r.response_ns; }
inline const histogram& lag_of(const result& r) { return r.schedule_lag_ns; }

inline void append_section(const std::vector<const report_run*>& runs, const std::vector<unsigned>& styles,
                           std::size_t index, const html_options& o, std::string& out) {
    const std::string& name = runs[0]->scenario;
    const std::string id = "s" + std::to_string(index + 1);
    appendf(out, "<section aria-labelledby=\"%s\"><h2 id=\"%s\">", id.c_str(), id.c_str());
    append_html_escaped(out, name.empty() ? std::string("Results") : name);
    out += "</h2>\n<div class=\"charts\">\n";
    const std::string prefix = name.empty() ? "" : name + ": ";
    const bool logs = any_log(runs);  // a log's values are whatever its tag measured
    append_percentile_figure(runs, styles, total_of, id + "-total",
                             prefix + (logs ? "values by percentile" : "total time by percentile"), o.percentiles,
                             false, out);
    bool open = false, rows = false;
    for (const report_run* run : runs) {
        open = open || run->r.rate_target > 0;
        rows = rows || !run->r.intervals.empty();
    }
    if (open)
        append_percentile_figure(runs, styles, response_of, id + "-response",
                                 prefix + "response time by percentile (from the intended send time)", o.percentiles,
                                 false, out);
    if (rows) {
        append_interval_figure(runs, styles, interval_view::rate, id + "-rate",
                               prefix + (logs ? "values per second over time" : "throughput over time"), out);
        append_interval_figure(runs, styles, interval_view::latency, id + "-latency",
                               prefix + (logs ? "values over time (p99, p50)" : "response time over time (p99, p50)"),
                               out);
        if (open)
            append_interval_figure(runs, styles, interval_view::lag, id + "-lag",
                                   prefix + "schedule lag over time (p99)", out);
    }
    out += "</div>\n";
    if (logs) {  // a log has no connect, waiting or processing times
        append_run_tables(runs, o, out);
        out += "</section>\n";
        return;
    }
    out += "<div class=\"small\">\n";
    append_percentile_figure(runs, styles, connect_of, id + "-connect", prefix + "connect by percentile", o.percentiles,
                             true, out);
    append_percentile_figure(runs, styles, waiting_of, id + "-waiting", prefix + "waiting by percentile", o.percentiles,
                             true, out);
    append_percentile_figure(runs, styles, processing_of, id + "-processing", prefix + "processing by percentile",
                             o.percentiles, true, out);
    if (open)
        append_percentile_figure(runs, styles, lag_of, id + "-lag-spectrum", prefix + "schedule lag by percentile",
                                 o.percentiles, true, out);
    out += "</div>\n";
    append_run_tables(runs, o, out);
    append_html_targets(runs, out);
    out += "</section>\n";
}

}  // namespace detail

// The report as one HTML document. Runs are drawn in the order given, the first in the first
// colour; runs sharing a scenario name share a section (in order of first appearance), interval
// logs' tags apart from results' runs.
inline std::string html_report(const std::vector<report_run>& runs, const html_options& o = {}) {
    using detail::appendf;
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
    detail::append_html_escaped(out, o.title);
    out += "</title>\n<style>";
    out += detail::html_style;
    out += "</style>\n</head>\n<body>\n<main>\n<header>\n<h1>";
    detail::append_html_escaped(out, o.title);
    out += "</h1>\n<p class=\"meta\">microbench " MICROBENCH_VERSION_STRING;
    if (o.generated_unix_ms) out += " · generated " + detail::utc_text(o.generated_unix_ms);
    appendf(out, " · %zu run%s</p>\n", runs.size(), runs.size() == 1 ? "" : "s");
    // The key: each label's colour and target, once (a suite repeats labels across scenarios).
    std::vector<std::string> labels;
    out += "<ul class=\"key\">\n";
    for (const report_run& run : runs) {
        if (std::find(labels.begin(), labels.end(), run.label) != labels.end()) continue;
        appendf(out, "<li><span class=\"swatch\" style=\"background:%s\"></span><b>",
                detail::chart_colours[labels.size() % 6]);
        labels.push_back(run.label);
        detail::append_html_escaped(out, run.label);
        out += "</b> <span class=\"text\">";
        detail::append_html_escaped(out, run.log_rows ? run.config.url  // a log's tag: its source
                                                      : run.config.method + " " + run.config.url);
        out += "</span></li>\n";
    }
    out += "</ul>\n</header>\n";
    // Sections: a scenario's runs, or a log's tags (kept apart from a scenario of the same name).
    using section = std::pair<std::string, bool>;
    auto section_of = [](const report_run& run) { return section(run.scenario, run.log_rows > 0); };
    std::vector<section> sections;
    for (const report_run& run : runs)
        if (std::find(sections.begin(), sections.end(), section_of(run)) == sections.end())
            sections.push_back(section_of(run));
    for (std::size_t i = 0; i < sections.size(); ++i) {
        std::vector<const report_run*> group;
        std::vector<unsigned> styles;  // a label's colour is the same in every section
        for (const report_run& run : runs) {
            if (section_of(run) != sections[i]) continue;
            group.push_back(&run);
            styles.push_back(
                static_cast<unsigned>(std::find(labels.begin(), labels.end(), run.label) - labels.begin()));
        }
        detail::append_section(group, styles, i, o, out);
    }
    out += "<footer class=\"meta\"><p>Latency by percentile: HdrHistogram's axis, x = log10(1/(1−p)); values "
           "within the histogram's precision, min, max and counts exact. Total = start → last byte; waiting = request "
           "written → first byte; processing = total − connect (ab's columns).</p></footer>\n</main>\n</body>\n"
           "</html>\n";
    return out;
}

}  // namespace microbench
