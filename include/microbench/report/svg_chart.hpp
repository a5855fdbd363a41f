// microbench/report/svg_chart.hpp — line charts as inline SVG, for the HTML report: a linear or a
// percentile x axis (HdrHistogram's plot: x = log10(1/(1-p)), so 90 %, 99 %, 99.9 % … are evenly
// spaced), a linear y axis from 0 with round ticks, one colour and dash per run (Okabe–Ito
// colours, dashes so print in grey still tells them apart), a legend, and markers whose <title>
// gives the exact value. Accessible: role="img" with a <title> and <desc>. No script, no fonts.
// Any data draws in bounded time and size: points that are not finite or beyond ±1e300 are left
// out, and each axis has at most chart_max_ticks ticks, whatever its range.
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/appendf.hpp"

namespace microbench {

struct chart_marker {
    double x, y;
    std::string label;  // the marker's <title>: "A p99: 1.234 ms"
};

struct chart_series {
    std::string name;      // in the legend; empty: not listed
    unsigned style = 0;    // the run's index: its colour and dash
    bool secondary = false;  // a thinner, dotted line of the same run (p50 under p99, the target rate)
    std::vector<std::pair<double, double>> points;  // x, y in data units
    std::vector<chart_marker> markers;
};

enum class chart_axis : std::uint8_t { linear, percentile };

struct chart {
    std::string id;           // unique in the document: ids of the title and description derive from it
    std::string title, description, x_label, y_label;
    chart_axis x_axis = chart_axis::linear;
    double font_px = 12;      // in the chart's 480 × 300 units: larger for a chart drawn small
    std::vector<chart_series> series;
};

namespace detail {

inline void append_html_escaped(std::string& out, std::string_view s) {
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out.push_back(c);
        }
    }
}

constexpr const char* chart_colours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9"};
constexpr const char* chart_dashes[] = {"", "7 4", "2 3", "9 3 2 3"};

constexpr int chart_max_ticks = 20;

// A round step (1, 2 or 5 × 10^k) giving about `ticks` intervals up to `max`; 1 when `max` is not
// a positive finite number, or the step would be no normal number.
inline double nice_step(double max, int ticks) {
    double raw = max / ticks, power = std::pow(10.0, std::floor(std::log10(raw))), f = raw / power;
    const double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
    return std::isnormal(step) ? step : 1;
}

// How many ticks `from`, `from` + step, … reach `to` (within a millionth of a step): 0 when that
// is not a number from 1 to chart_max_ticks.
inline int tick_count(double from, double to, double step) {
    const double n = std::floor((to - from) / step + 1e-6) + 1;
    return n >= 1 && n <= chart_max_ticks ? static_cast<int>(n) : 0;
}

// A point the chart can place: finite, within ±1e300 (so ranges and steps stay finite).
inline bool drawable(double x, double y) { return std::fabs(x) <= 1e300 && std::fabs(y) <= 1e300; }

// A tick value as short text: "0", "2.5", "0.05", "1200", "15k", "2.5M".
inline std::string tick_text(double v) {
    std::string out;
    if (std::fabs(v) < 1e-12) v = 0;
    if (std::fabs(v) >= 1e6) appendf(out, "%.6gM", v / 1e6);
    else if (std::fabs(v) >= 1e4) appendf(out, "%.6gk", v / 1e3);
    else appendf(out, "%.6g", v);
    return out;
}

// "99.99%" for x = 4 on the percentile axis.
inline std::string percentile_tick_text(int decades) {
    std::string nines = decades <= 0 ? "0" : decades == 1 ? "90" : "99";
    if (decades > 2) nines += "." + std::string(static_cast<std::size_t>(decades - 2), '9');
    return nines + "%";
}

}  // namespace detail

// x on the percentile axis for percentile p (0–100): log10(1/(1-p/100)), capped at 9 decades.
inline double percentile_axis_x(double p) {
    double rest = 1.0 - p / 100.0;
    return rest <= 1e-9 ? 9.0 : -std::log10(rest);
}

inline void append_svg_chart(const chart& c, std::string& out) {
    using detail::appendf;
    constexpr double width = 480, height = 300, left = 58, right = 30, bottom = 42;
    // The legend takes rows at the top: entries are laid out left to right, ~0.55 em per character.
    std::vector<const chart_series*> legend;
    for (const chart_series& s : c.series)
        if (!s.name.empty()) legend.push_back(&s);
    std::vector<std::pair<double, double>> legend_at;
    const double em = c.font_px;
    double lx = left, ly = 4 + em;
    for (const chart_series* s : legend) {
        double w = 30 + 0.55 * em * static_cast<double>(s->name.size()) + 14;
        if (lx + w > width - right && lx > left) {
            lx = left;
            ly += 1.5 * em;
        }
        legend_at.push_back({lx, ly});
        lx += w;
    }
    const double top = legend.empty() ? 14 : ly + 1.3 * em;
    const double plot_w = width - left - right, plot_h = height - top - bottom;

    double x_min = 0, x_max = 0, y_max = 0;
    bool any = false;
    for (const chart_series& s : c.series)
        for (const auto& pt : s.points) {
            if (!detail::drawable(pt.first, pt.second)) continue;
            if (!any) x_min = x_max = pt.first;
            x_min = std::min(x_min, pt.first);
            x_max = std::max(x_max, pt.first);
            y_max = std::max(y_max, pt.second);
            any = true;
        }
    if (c.x_axis == chart_axis::percentile) {
        x_min = 0;
        x_max = std::min(9.0, std::max(1.0, std::ceil(x_max - 1e-9)));
    }
    if (!(x_max > x_min)) x_max = x_min + std::max(1.0, std::fabs(x_min));  // one value: a range around it
    const double y_step = detail::nice_step(y_max, 5);
    const double y_top = std::max(y_step, std::ceil(y_max / y_step - 1e-9) * y_step);
    const double x_step = detail::nice_step(x_max - x_min, 6), x_first = std::ceil(x_min / x_step) * x_step;
    auto sx = [&](double x) { return left + (x - x_min) / (x_max - x_min) * plot_w; };
    auto sy = [&](double y) { return top + plot_h - y / y_top * plot_h; };

    appendf(out, "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" font-size=\"%.0f\" role=\"img\" "
                 "aria-labelledby=\"%s-t %s-d\" id=\"%s\">\n",
            width, height, em, c.id.c_str(), c.id.c_str(), c.id.c_str());
    appendf(out, "<title id=\"%s-t\">", c.id.c_str());
    detail::append_html_escaped(out, c.title);
    appendf(out, "</title><desc id=\"%s-d\">", c.id.c_str());
    detail::append_html_escaped(out, c.description);
    out += "</desc>\n";
    // A grid line across the plot at `at` (a y when `y_axis`, else an x) and its label.
    auto tick = [&](bool y_axis, double at, const std::string& label) {
        const double x = y_axis ? left : at, y = y_axis ? at : top;
        appendf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y,
                y_axis ? left + plot_w : x, y_axis ? y : top + plot_h);
        appendf(out, "<text class=\"tick %c\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", y_axis ? 'y' : 'x',
                y_axis ? left - 6 : x, y_axis ? y + em / 3 : top + plot_h + 4 + em, label.c_str());
    };
    // The grid and the y axis: round values, labelled with their unit in the axis label.
    for (int i = 0, n = detail::tick_count(0, y_top, y_step); i < n; ++i)
        tick(true, sy(i * y_step), detail::tick_text(i * y_step));
    if (c.x_axis == chart_axis::percentile) {
        for (int d = 1; d <= x_max; ++d) tick(false, sx(d), detail::percentile_tick_text(d));
        appendf(out, "<text class=\"tick x\" x=\"%.1f\" y=\"%.1f\">50%%</text>\n", sx(std::log10(2.0)),
                top + plot_h + 4 + em);
    } else {
        for (int i = 0, n = detail::tick_count(x_first, x_max, x_step); i < n; ++i)
            tick(false, sx(x_first + i * x_step), detail::tick_text(x_first + i * x_step));
    }
    appendf(out, "<path class=\"axis\" d=\"M%.1f %.1fV%.1fH%.1f\"/>\n", left, top, top + plot_h, left + plot_w);
    appendf(out, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\">", left + plot_w / 2, height - 6);
    detail::append_html_escaped(out, c.x_label);
    appendf(out, "</text><text class=\"label\" transform=\"translate(14 %.1f) rotate(-90)\">", top + plot_h / 2);
    detail::append_html_escaped(out, c.y_label);
    out += "</text>\n";

    for (const chart_series& s : c.series) {
        std::size_t drawn = 0;
        const std::pair<double, double>* one = nullptr;
        for (const auto& pt : s.points) {
            if (detail::drawable(pt.first, pt.second)) {
                ++drawn;
                one = &pt;
            }
        }
        if (!drawn) continue;
        const char* colour = detail::chart_colours[s.style % 6];
        const char* dash = s.secondary ? "2 3" : detail::chart_dashes[s.style % 4];
        appendf(out, "<polyline class=\"line%s\" stroke=\"%s\"%s%s%s points=\"", s.secondary ? " secondary" : "",
                colour, *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
        const char* space = "";
        for (const auto& pt : s.points) {
            if (detail::drawable(pt.first, pt.second)) {
                appendf(out, "%s%.1f,%.1f", space, sx(pt.first), sy(pt.second));
                space = " ";
            }
        }
        out += "\"/>\n";
        if (drawn == 1)  // a line of one point would not show
            appendf(out, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", sx(one->first),
                    sy(one->second), colour);
        for (const chart_marker& m : s.markers) {
            if (!detail::drawable(m.x, m.y)) continue;
            appendf(out, "<circle class=\"marker\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", sx(m.x),
                    sy(m.y), colour);
            detail::append_html_escaped(out, m.label);
            out += "</title></circle>\n";
        }
    }
    for (std::size_t i = 0; i < legend.size(); ++i) {
        const chart_series& s = *legend[i];
        const char* dash = s.secondary ? "2 3" : detail::chart_dashes[s.style % 4];
        const double x = legend_at[i].first, y = legend_at[i].second;
        appendf(out, "<g class=\"legend\"><line class=\"line%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"%s\"%s%s%s/>",
                s.secondary ? " secondary" : "", x, y - em / 3, x + 24, y - em / 3, detail::chart_colours[s.style % 6],
                *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
        appendf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 30, y);
        detail::append_html_escaped(out, s.name);
        out += "</text></g>\n";
    }
    out += "</svg>\n";
}

}  // namespace microbench
