// microbench/report/report_capacity.hpp — a capacity search's result (engine/capacity.hpp) as text:
// the objective, a table of the steps in the order they ran and the rate found, with a word when
// the generator may have been the limit; as JSON, the objective, the rate found and every step;
// and as an HTML page: p99 and p50 against the target rate, with the objective, and the table.
#pragma once

#include <cmath>
#include <string>

#include <algorithm>
#include <vector>

#include "../core/appendf.hpp"
#include "../core/json_write.hpp"
#include "../core/version.hpp"
#include "../engine/capacity.hpp"
#include "report_html.hpp"
#include "svg_chart.hpp"

namespace microbench {

inline void append_capacity_table(const capacity_result& r, const capacity_objective& o, std::string& out) {
    using detail::appendf;
    auto ms = [](std::int64_t ns) { return static_cast<double>(ns) / 1e6; };
    appendf(out, "Capacity search: p99 <= %g ms, failures <= %g %%, achieved >= %g %% of the target rate\n\n",
            o.max_p99_ms, o.max_failure_ratio * 100, o.min_rate_ratio * 100);
    appendf(out, "%4s %11s %11s %9s %9s %9s %8s %10s %11s  %s\n", "step", "target/s", "achieved/s", "p50 ms", "p99 ms",
            "p99.9 ms", "failed", "completed", "lag p99 ms", "verdict");
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
        const capacity_step& s = r.steps[i];
        appendf(out, "%4zu %11.1f %11.1f %9.2f %9.2f %9.2f %8llu %10llu %11.2f  %s%s%s\n", i + 1, s.target_rate,
                s.achieved_rate, ms(s.p50_ns), ms(s.p99_ns), ms(s.p999_ns), static_cast<unsigned long long>(s.failed),
                static_cast<unsigned long long>(s.completed), ms(s.lag_p99_ns), capacity_verdict_name(s.verdict),
                s.generator_suspect ? " (the generator?)" : "", s.retry ? " (tried again)" : "");
    }
    double lowest_failed = 0;
    const capacity_step* limit = nullptr;
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
        const capacity_step& s = r.steps[i];
        const bool tried_again = i + 1 < r.steps.size() && r.steps[i + 1].retry;  // its retry's verdict counts
        if (!s.held() && !tried_again && (lowest_failed == 0 || s.target_rate < lowest_failed)) {
            lowest_failed = s.target_rate;
            limit = &s;
        }
    }
    out += '\n';
    if (r.steps.empty()) out += "Capacity: no step ran.\n";
    else if (r.capacity == 0)
        appendf(out, "Capacity: no step held the objective (the lowest tried: %.1f/s).\n", lowest_failed);
    else if (r.at_max_rate)
        appendf(out, "Capacity: at least %.1f requests/s, the search's maximum, held the objective.\n", r.capacity);
    else if (limit)
        appendf(out, "Capacity: %.1f requests/s held the objective; %.1f/s did not (%s).\n", r.capacity, lowest_failed,
                capacity_verdict_name(limit->verdict));
    else
        appendf(out, "Capacity: %.1f requests/s held the objective; no step failed before the search ended.\n",
                r.capacity);
    if (r.generator_limited && limit) {
        if (limit->connection_waits > 0)
            appendf(out, "The generator, not the server, may have been the limit: %llu requests waited for a "
                         "connection, and %u connections cannot hold %.1f/s at %g ms each (raise -c to at least "
                         "%.0f).\n",
                    static_cast<unsigned long long>(limit->connection_waits), r.concurrency, limit->target_rate,
                    o.max_p99_ms, std::ceil(limit->target_rate * o.max_p99_ms / 1000));
        else
            appendf(out, "The generator, not the server, may have been the limit: it sent late (schedule lag p99 "
                         "%.2f ms); give it more threads or a quieter machine, or run several generators.\n",
                    ms(limit->lag_p99_ns));
    }
    if (r.cancelled) out += "Interrupted: the steps above are all that ran.\n";
    if (r.stopped)
        appendf(out, "The search stopped after step %zu: the next could not start: %s (%s). The capacity is that of "
                     "the steps above.\n",
                r.steps.size(), r.stopped.message(), r.stopped.name());
}

inline std::string capacity_json(const capacity_result& r, const capacity_objective& o) {
    using detail::appendf;
    static constexpr const char* verdict_ids[] = {"held", "latency", "failures", "rate", "no_response",
                                                  "no_connection"};  // capacity_verdict's order
    static_assert(sizeof verdict_ids / sizeof verdict_ids[0] ==
                      static_cast<std::size_t>(capacity_verdict::no_connection) + 1,
                  "a JSON name for every verdict");
    std::string out = "{\"microbench\":\"" MICROBENCH_VERSION_STRING "\",\"capacity_search\":{";
    appendf(out, "\"objective\":{\"max_p99_ms\":%.17g,\"max_failure_ratio\":%.17g,\"min_rate_ratio\":%.17g,"
                 "\"start_rate\":%.17g,\"max_rate\":%.17g,\"resolution\":%.17g,\"warmup_ms\":%lld,\"step_ms\":%lld,"
                 "\"min_responses\":%llu,\"cooldown_ms\":%lld,\"max_steps\":%u},",
            o.max_p99_ms, o.max_failure_ratio, o.min_rate_ratio, o.start_rate, o.max_rate, o.resolution,
            static_cast<long long>(o.warmup_ms), static_cast<long long>(o.step_ms),
            static_cast<unsigned long long>(o.min_responses), static_cast<long long>(o.cooldown_ms), o.max_steps);
    appendf(out, "\"concurrency\":%u,\"capacity\":%.3f,\"at_max_rate\":%s,\"generator_limited\":%s,\"cancelled\":%s,"
                 "\"steps\":[",
            r.concurrency, r.capacity, r.at_max_rate ? "true" : "false", r.generator_limited ? "true" : "false",
            r.cancelled ? "true" : "false");
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
        const capacity_step& s = r.steps[i];
        appendf(out, "%s{\"target_rate\":%.3f,\"achieved_rate\":%.3f,\"window_ns\":%lld,\"completed\":%llu,"
                     "\"failed\":%llu,\"p50_ns\":%lld,\"p99_ns\":%lld,\"p999_ns\":%lld,\"max_ns\":%lld,"
                     "\"lag_p99_ns\":%lld,\"connection_waits\":%llu,\"schedule_missed\":%llu,\"verdict\":\"%s\","
                     "\"generator_suspect\":%s,\"retry\":%s}",
                i ? "," : "", s.target_rate, s.achieved_rate, static_cast<long long>(s.window_ns),
                static_cast<unsigned long long>(s.completed), static_cast<unsigned long long>(s.failed),
                static_cast<long long>(s.p50_ns), static_cast<long long>(s.p99_ns), static_cast<long long>(s.p999_ns),
                static_cast<long long>(s.max_ns), static_cast<long long>(s.lag_p99_ns),
                static_cast<unsigned long long>(s.connection_waits), static_cast<unsigned long long>(s.schedule_missed),
                verdict_ids[static_cast<int>(s.verdict)], s.generator_suspect ? "true" : "false",
                s.retry ? "true" : "false");
    }
    out += "]";
    if (r.stopped) {
        appendf(out, ",\"stopped\":{\"status\":\"%s\",\"message\":", r.stopped.name());
        detail::append_json_string(out, r.stopped.message());
        out += "}";
    }
    out += "}}";
    return out;
}

// The search as one self-contained HTML page titled `title`: a chart of p99 (and p50) against the
// target rate, each step that got responses a marker, the objective a line; then the text table.
inline std::string capacity_html(const capacity_result& r, const capacity_objective& o,
                                 const std::string& title = "microbench capacity search") {
    using detail::appendf;
    std::vector<const capacity_step*> by_rate;
    for (const capacity_step& s : r.steps) by_rate.push_back(&s);
    std::stable_sort(by_rate.begin(), by_rate.end(),  // a retry after its first try
              [](const capacity_step* a, const capacity_step* b) { return a->target_rate < b->target_rate; });
    chart c;
    c.id = "capacity";
    c.title = "Response time p99 by target rate";
    c.description = "Each step of the search: its p99 and p50 response time against the rate it was asked for; "
                    "the dotted line is the objective.";
    c.x_label = "target rate (requests/s)";
    c.y_label = "response time (ms)";
    chart_series p99{"p99", 0, false, {}, {}}, p50{"p50", 0, true, {}, {}}, objective{"objective", 1, true, {}, {}};
    for (const capacity_step* s : by_rate) {
        if (ends_search(s->verdict)) continue;  // no time to draw: the table says so
        const double x = s->target_rate, y = static_cast<double>(s->p99_ns) / 1e6;
        p99.points.push_back({x, y});
        p50.points.push_back({x, static_cast<double>(s->p50_ns) / 1e6});
        std::string label;
        appendf(label, "%.1f/s: p99 %.2f ms, %s", x, y, capacity_verdict_name(s->verdict));
        p99.markers.push_back({x, y, label});
    }
    if (!by_rate.empty())
        objective.points = {{by_rate.front()->target_rate, o.max_p99_ms}, {by_rate.back()->target_rate, o.max_p99_ms}};
    c.series = {p99, p50, objective};
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
    detail::append_html_escaped(out, title);
    out += "</title>\n<style>";
    out += detail::html_style;
    out += "</style>\n</head>\n<body>\n<main>\n<header>\n<h1>";
    detail::append_html_escaped(out, title);
    out += "</h1>\n<p class=\"meta\">microbench " MICROBENCH_VERSION_STRING "</p>\n</header>\n<section>\n<figure>";
    append_svg_chart(c, out);
    out += "</figure>\n<pre class=\"text\">";
    std::string table;
    append_capacity_table(r, o, table);
    detail::append_html_escaped(out, table);
    out += "</pre>\n</section>\n</main>\n</body>\n</html>\n";
    return out;
}

}  // namespace microbench
