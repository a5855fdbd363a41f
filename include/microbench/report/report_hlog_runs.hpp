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

// Seconds as nanoseconds, within [0, 4e9 s] (so a start and a length add up without overflow).
inline std::int64_t hlog_ns(double seconds) {
    return std::llround(std::min(std::max(seconds, 0.0), 4e9) * 1e9);
}

// A tag's merged values as a run in section `scenario`, labelled by its tag (hlog_tag_name);
// `source` is what the report's key says it is ("Tag=response in a.hlog"). Given a copy, the run's
// total_ns is not allocated() when the copy's counters could not be mapped.
inline report_run hlog_tag_run(hlog_tag_total t, const std::string& scenario, const std::string& source) {
    report_run run;
    run.label = hlog_tag_name(t.tag);
    run.scenario = scenario;
    run.config.method.clear();
    run.config.url = source;
    run.log_rows = t.intervals;
    result& r = run.r;
    r.requests_ended = r.requests_completed = t.values.count();
    r.total_ns = std::move(t.values);
    r.elapsed_ns = hlog_ns(t.last_end_s - t.first_start_s);
    return run;
}

// What the report's key says of tag `tag` of the log `file`: "Tag=response in a.hlog", "rows without
// a tag in a.hlog".
inline std::string hlog_source(const std::string& tag, const std::string& file) {
    return (tag.empty() ? std::string("rows without a tag") : "Tag=" + tag) + " in " + file;
}

// Appends the log `text` (named `file`) to `runs`: a run per tag, in the order the tags first
// appear, in section `scenario`, each with its rows as interval rows, timed from the log's first
// row (so tags that began later start later). When `all` is given, every row is also added to its
// tag's total there (add_hlog_totals' totals, across logs). False, with the line and why in
// `message` ("line N: …"), when a line cannot be read, there are more than hlog_max_tags tags, or
// a row's histogram with the log's totals, or with `all`'s, would need more than `max_bytes` of
// counters; then nothing is appended to `runs` (rows before it stay added to `all`).
inline bool add_hlog_runs(std::string text, const std::string& file, const std::string& scenario,
                          std::vector<report_run>& runs, std::string& message,
                          std::vector<hlog_tag_total>* all = nullptr, std::size_t max_bytes = hlog_default_max_bytes) {
    hlog_reader reader(std::move(text), max_bytes);
    hlog_interval row;
    std::vector<hlog_tag_total> totals;
    std::vector<std::vector<std::pair<double, interval_stats>>> rows;  // per tag: each row's start (s) and figures
    std::size_t index = 0, ignored = 0;
    while (reader.next(row)) {
        if (all && !detail::add_hlog_row(row, reader.line_number(), max_bytes, *all, ignored, message)) return false;
        if (!detail::add_hlog_row(row, reader.line_number(), max_bytes, totals, index, message)) return false;
        if (index == rows.size()) rows.emplace_back();
        const histogram& h = row.values;
        interval_stats s{};
        s.duration_ns = hlog_ns(row.length_s);
        s.sent = s.ended = s.completed = s.latency_count = h.count();
        if (!h.empty()) {  // by its non-empty buckets: the cost is theirs, not the range's
            s.p50_ns = h.value_at_percentile(50, row.filled);
            s.p90_ns = h.value_at_percentile(90, row.filled);
            s.p99_ns = h.value_at_percentile(99, row.filled);
            s.max_ns = h.max();
        }
        rows[index].emplace_back(row.start_s, s);
    }
    message = reader.message();
    if (!message.empty()) return false;
    double first_s = 0;  // the log's first row's start
    for (std::size_t i = 0; i < totals.size(); ++i)
        first_s = i == 0 ? totals[i].first_start_s : std::min(first_s, totals[i].first_start_s);
    for (std::size_t i = 0; i < totals.size(); ++i) {
        const std::string source = hlog_source(totals[i].tag, file);
        report_run run = hlog_tag_run(std::move(totals[i]), scenario, source);  // the total's counters move
        std::vector<std::pair<double, interval_stats>>& own = rows[i];
        std::stable_sort(own.begin(), own.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        run.r.intervals.reserve(own.size());
        for (auto& [start_s, s] : own) {
            s.start_ns = hlog_ns(start_s - first_s);
            run.r.intervals.push_back(s);
        }
        runs.push_back(std::move(run));
    }
    return true;
}

}  // namespace microbench
