// microbench/report/report_hlog_runs.hpp — HdrHistogram interval logs (report_hlog.hpp) as the
// HTML report's runs (report_read.hpp): a tag is a run, its rows merged exactly as its values
// (drawn as the total time), their count as its requests and the time from its first row's start
// to its last row's end as its elapsed time; each row, in time order, is an interval row (its
// count per second and its p50, p90, p99 and max). A log knows nothing else of a run — failures,
// bytes, connections — so report_run::log_rows marks such runs and the report shows only what
// the log holds.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../stats/histogram.hpp"
#include "../stats/result.hpp"
#include "report_hlog.hpp"
#include "report_read.hpp"

namespace microbench {

// A tag's merged values as a run in section `scenario`, labelled by its tag ("(none)" for rows
// without one); `source` is what the report's key says it is ("Tag=response in a.hlog").
inline report_run hlog_tag_run(const hlog_tag_total& t, const std::string& scenario, const std::string& source) {
    report_run run;
    run.label = t.tag.empty() ? "(none)" : t.tag;
    run.scenario = scenario;
    run.config.method.clear();
    run.config.url = source;
    run.log_rows = t.intervals;
    result& r = run.r;
    r.total_ns = t.values;
    r.requests_ended = r.requests_completed = t.values.count();
    r.elapsed_ns = std::llround(std::max(0.0, t.last_end_s - t.first_start_s) * 1e9);
    return run;
}

// What the report's key says of tag `tag` of the log `file`: "Tag=response in a.hlog", "rows without
// a tag in a.hlog".
inline std::string hlog_source(const std::string& tag, const std::string& file) {
    return (tag.empty() ? std::string("rows without a tag") : "Tag=" + tag) + " in " + file;
}

// Appends the log `text` (named `file`) to `runs`: a run per tag, in the order the tags first
// appear, in section `scenario`, each with its rows as interval rows. False, with the line and why
// in `message` ("line N: …"), when a line cannot be read or there are more than hlog_max_tags tags;
// then nothing is appended.
inline bool add_hlog_runs(std::string text, const std::string& file, const std::string& scenario,
                          std::vector<report_run>& runs, std::string& message) {
    hlog_reader reader(std::move(text));
    hlog_interval row;
    std::vector<hlog_tag_total> totals;
    std::vector<std::vector<std::pair<double, interval_stats>>> rows;  // per tag: each row's start (s) and figures
    std::size_t index = 0;
    while (reader.next(row)) {
        if (!detail::add_hlog_row(row, reader.line_number(), totals, index, message)) return false;
        if (index == rows.size()) rows.emplace_back();
        const histogram& h = row.values;
        interval_stats s{};
        s.duration_ns = std::llround(std::max(0.0, row.length_s) * 1e9);
        s.sent = s.ended = s.completed = s.latency_count = h.count();
        if (!h.empty()) {
            s.p50_ns = h.value_at_percentile(50);
            s.p90_ns = h.value_at_percentile(90);
            s.p99_ns = h.value_at_percentile(99);
            s.max_ns = h.max();
        }
        rows[index].emplace_back(row.start_s, s);
    }
    message = reader.message();
    if (!message.empty()) return false;
    for (std::size_t i = 0; i < totals.size(); ++i) {
        report_run run = hlog_tag_run(totals[i], scenario, hlog_source(totals[i].tag, file));
        std::vector<std::pair<double, interval_stats>>& own = rows[i];
        std::stable_sort(own.begin(), own.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        run.r.intervals.reserve(own.size());
        for (auto& [start_s, s] : own) {
            s.start_ns = std::llround((start_s - totals[i].first_start_s) * 1e9);
            run.r.intervals.push_back(s);
        }
        runs.push_back(std::move(run));
    }
    return true;
}

}  // namespace microbench
