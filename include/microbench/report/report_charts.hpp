// microbench/report/report_charts.hpp — the HTML report's charts, built from results: latency by
// percentile (total, connect, waiting, processing; at a fixed rate response time and schedule lag)
// and, from the per-interval rows, throughput and response time over time. Each chart comes with
// the table of what it draws, so the figures can be read exactly (and by a screen reader).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../core/appendf.hpp"
#include "../stats/result.hpp"
#include "report_read.hpp"
#include "svg_chart.hpp"

namespace microbench {

// Which of a run's histograms a chart shows.
using histogram_of = const histogram& (*)(const result&);

namespace detail {

inline std::string ms_text(double ns) {
    std::string out;
    appendf(out, "%.3f", ns / 1e6);
    return out;
}

// "p99.9" for 99.9.
inline std::string percentile_name(double p) {
    std::string out;
    appendf(out, "p%g", p);
    return out;
}

// A <figure>: the chart, its caption and, folded, its data: `table` holds the table's rows (<tr>…).
inline void append_figure(const chart& c, const char* kind, const std::string& head, const std::string& table,
                          std::string& out) {
    appendf(out, "<figure class=\"%s\">\n", kind);
    append_svg_chart(c, out);
    out += "<figcaption>";
    append_html_escaped(out, c.title);
    out += "</figcaption>\n<details><summary>Data</summary><div class=\"scroll\"><table class=\"data\"><thead><tr>";
    out += head;
    out += "</tr></thead><tbody>\n";
    out += table;
    out += "</tbody></table></div></details>\n</figure>\n";
}

inline void append_th(std::string& out, const std::string& text, const char* scope = "col") {
    appendf(out, "<th scope=\"%s\">", scope);
    append_html_escaped(out, text);
    out += "</th>";
}

// Decades of the percentile axis for these runs: enough to reach each one's last request
// (10^d requests reach the 1 - 10^-d percentile), from 1 to 6.
inline int percentile_decades(const std::vector<const report_run*>& runs, histogram_of pick) {
    int decades = 1;
    for (const report_run* run : runs) {
        const std::uint64_t n = pick(run->r).count();
        if (n > 1) decades = std::max(decades, static_cast<int>(std::ceil(std::log10(static_cast<double>(n)) - 1e-9)));
    }
    return std::min(decades, 6);
}

}  // namespace detail

// Latency against percentile on the 1/(1-p) axis, one line per run (in styles[k], the run's
// colour and dash), markers at `percentiles`, drawn full or `small`. The table: min, the
// percentiles, max and count.
inline void append_percentile_figure(const std::vector<const report_run*>& runs, const std::vector<unsigned>& styles,
                                     histogram_of pick, const std::string& id, const std::string& title,
                                     const std::vector<double>& percentiles, bool small, std::string& out) {
    using detail::appendf;
    chart c;
    c.font_px = small ? 15 : 12;  // drawn at about half the width: larger letters
    c.id = id;
    c.title = title;
    c.x_label = "percentile";
    c.y_label = "milliseconds";
    c.x_axis = chart_axis::percentile;
    const int decades = detail::percentile_decades(runs, pick);
    c.description = title + " in milliseconds, by percentile from 0 to " + detail::percentile_tick_text(decades) + ":";
    std::string head, table;
    detail::append_th(head, "");
    for (std::size_t k = 0; k < runs.size(); ++k) {
        detail::append_th(head, runs[k]->label);
        const histogram& h = pick(runs[k]->r);
        if (h.empty()) continue;
        chart_series s;
        s.name = runs[k]->label;
        s.style = styles[k];
        constexpr int steps = 120;
        for (int i = 0; i <= steps; ++i) {
            const double x = decades * static_cast<double>(i) / steps;
            s.points.push_back(
                {x, static_cast<double>(h.value_at_percentile(100.0 * (1.0 - std::pow(10.0, -x)))) / 1e6});
        }
        for (double p : percentiles) {
            const double x = percentile_axis_x(p);
            if (x > decades + 1e-9) continue;
            const auto v = static_cast<double>(h.value_at_percentile(p));
            s.markers.push_back(
                {x, v / 1e6, runs[k]->label + " " + detail::percentile_name(p) + ": " + detail::ms_text(v) + " ms"});
        }
        c.description += " " + runs[k]->label;
        appendf(c.description, " p50 %.3f ms, p99 %.3f ms, max %.3f ms;",
                static_cast<double>(h.value_at_percentile(50)) / 1e6,
                static_cast<double>(h.value_at_percentile(99)) / 1e6, static_cast<double>(h.max()) / 1e6);
        c.series.push_back(std::move(s));
    }
    // Rows: min, each percentile, max (ms), count; a column per run.
    for (std::size_t row = 0; row < percentiles.size() + 3; ++row) {
        const bool min = row == 0, max = row == percentiles.size() + 1, count = row == percentiles.size() + 2;
        detail::append_th(table.append("<tr>"),
                          min ? "min" : max ? "max" : count ? "count" : detail::percentile_name(percentiles[row - 1]),
                          "row");
        for (const report_run* run : runs) {
            const histogram& h = pick(run->r);
            if (count) appendf(table, "<td>%llu</td>", static_cast<unsigned long long>(h.count()));
            else if (h.empty()) table += "<td>-</td>";
            else
                appendf(table, "<td>%.3f</td>",
                        static_cast<double>(min ? h.min()
                                            : max ? h.max() : h.value_at_percentile(percentiles[row - 1])) / 1e6);
        }
        table += "</tr>\n";
    }
    detail::append_figure(c, small ? "chart small" : "chart", head, table, out);
}

// What an interval chart draws.
enum class interval_view : std::uint8_t {
    rate,     // requests that ended per second, and the target at a fixed rate
    latency,  // p99 and p50 response time
    lag,      // schedule lag p99
};

// The per-interval rows over time (x: seconds from the run's start at each interval's end). The
// table has a row per interval of each run; the chart leaves out a short last one.
inline void append_interval_figure(const std::vector<const report_run*>& runs, const std::vector<unsigned>& styles,
                                   interval_view view, const std::string& id, const std::string& title,
                                   std::string& out) {
    using detail::appendf;
    chart c;
    c.id = id;
    c.title = title;
    c.x_label = "seconds from the start";
    bool logs = false;  // an interval log's tags count values, not requests
    for (const report_run* run : runs) logs = logs || run->log_rows > 0;
    c.y_label = view == interval_view::rate ? (logs ? "values per second" : "requests per second") : "milliseconds";
    c.description = title + ", one point per interval:";
    bool targets = false;
    for (const report_run* run : runs) targets = targets || run->r.rate_target > 0;
    const bool two_columns = view == interval_view::latency || (view == interval_view::rate && targets);
    std::string head, table;
    head = "<th scope=\"col\">run</th><th scope=\"col\">end (s)</th>";
    const char* rate_head = logs ? "<th scope=\"col\">values/s</th>" : "<th scope=\"col\">requests/s</th>";
    head += view == interval_view::rate ? rate_head
            : view == interval_view::lag ? "<th scope=\"col\">lag p99 (ms)</th>" : "<th scope=\"col\">p99 (ms)</th>";
    if (two_columns)
        head += view == interval_view::latency ? "<th scope=\"col\">p50 (ms)</th>" : "<th scope=\"col\">target/s</th>";
    const char* format = view == interval_view::rate ? "<td>%.2f</td>" : "<td>%.3f</td>";
    bool partial = false;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        const result& r = runs[k]->r;
        if (r.intervals.empty()) continue;
        chart_series main, second;
        main.style = second.style = styles[k];
        second.secondary = true;
        const std::string& label = runs[k]->label;
        main.name = view == interval_view::latency ? label + " p99"
                    : view == interval_view::lag ? label + " lag p99" : label;
        second.name = view == interval_view::latency ? label + " p50" : label + " target";
        const bool has_second = view == interval_view::latency || (view == interval_view::rate && r.rate_target > 0);
        double low = 0, high = 0;
        for (std::size_t i = 0; i < r.intervals.size(); ++i) {
            const interval_stats& row = r.intervals[i];
            const double x = static_cast<double>(row.start_ns + row.duration_ns) / 1e9;
            const double seconds = static_cast<double>(row.duration_ns) / 1e9;
            const double y = view == interval_view::rate ? row.rate()
                             : static_cast<double>(view == interval_view::lag ? row.lag_p99_ns : row.p99_ns) / 1e6;
            const double y2 = view == interval_view::latency ? static_cast<double>(row.p50_ns) / 1e6
                              : seconds > 0 ? row.target / seconds : 0;
            // A last interval shorter than half the others (the run's tail) is tabulated, not drawn: its
            // few requests would make a spike.
            const bool drawn = i + 1 < r.intervals.size() || row.duration_ns * 2 >= r.interval_ns;
            if (drawn) {
                main.points.push_back({x, y});
                if (has_second) second.points.push_back({x, y2});
                low = main.points.size() > 1 ? std::min(low, y) : y;
                high = main.points.size() > 1 ? std::max(high, y) : y;
            } else {
                partial = true;
            }
            detail::append_th(table.append("<tr>"), label, "row");
            appendf(table, "<td>%.3f</td>", x);
            appendf(table, format, y);
            if (two_columns && has_second) appendf(table, format, y2);
            else if (two_columns) table += "<td>-</td>";
            table += "</tr>\n";
        }
        appendf(c.description, " %s from %.2f to %.2f;", main.name.c_str(), low, high);
        c.series.push_back(std::move(main));
        if (has_second) c.series.push_back(std::move(second));
    }
    if (partial) c.description += " a last interval shorter than half the others is in the table, not drawn.";
    detail::append_figure(c, "chart", head, table, out);
}

}  // namespace microbench
