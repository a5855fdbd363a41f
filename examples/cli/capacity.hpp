// examples/cli/capacity.hpp — --find-capacity: the library's capacity search (engine/capacity.hpp)
// from the command line, with python3 -m microbench's flags; its objective is the p99 gate
// (--max-p99-ms). Each step is said on stderr as it ends (unless -q); the table goes to stdout, and
// --json and --html take the search's JSON and page. Exit: 0 a rate held, 3 none did, 2 nothing
// got a connection, 1 a step could not start after others ran (the table still printed) or a file
// could not be written, 130 interrupted.
#pragma once

#include <cstdio>
#include <string>

#include "outputs.hpp"

namespace cli {

inline void say_step(const mb::capacity_step& s, void* user) {
    if (*static_cast<const bool*>(user)) return;  // -q
    std::fprintf(stderr, "step at %.1f/s%s: achieved %.1f/s, p99 %.2f ms, %llu failed: %s%s\n", s.target_rate,
                 s.retry ? " (again)" : "", s.achieved_rate, static_cast<double>(s.p99_ns) / 1e6,
                 static_cast<unsigned long long>(s.failed), mb::capacity_verdict_name(s.verdict),
                 s.generator_suspect ? " (the generator?)" : "");
}

inline int run_capacity(const options& o) {
    mb::plan plan = to_plan(o, o.url_text);
    plan.cancel_with(&interrupted);
    mb::capacity_objective objective;
    for (const auto& gate : o.limits.max_percentile_ms)
        if (gate.first == 99) objective.max_p99_ms = gate.second;
    objective.max_failure_ratio = o.max_failures_ratio;
    objective.start_rate = o.start_rate;
    objective.max_rate = o.max_rate;
    objective.warmup_ms = o.warmup_ms;
    objective.step_ms = o.step_ms;
    objective.min_responses = o.min_responses;
    objective.on_step = say_step;
    objective.on_step_user = const_cast<bool*>(&o.quiet);
    if (!o.quiet)
        std::fprintf(stderr, "Finding the capacity of %s: p99 <= %g ms, from %g/s (be patient)\n", o.url_text.c_str(),
                     objective.max_p99_ms, objective.start_rate);
    mb::capacity_result found;
    mb::error e;
    {
        interrupt_scope ctrl_c;
        e = mb::find_capacity(plan, objective, found);
    }
    if (e) return start_failed(e, o, plan);
    std::string table;
    mb::append_capacity_table(found, objective, table);
    if (o.json_path != "-") std::fputs(table.c_str(), stdout);
    int status = found.cancelled ? 130 : found.capacity > 0 ? 0 : 3;
    const bool unreachable = !found.steps.empty() && found.steps.back().verdict == mb::capacity_verdict::no_connection;
    if (!found.cancelled && found.capacity == 0 && unreachable) {
        std::fprintf(stderr, "microbench: no request got a connection (%llu failed in the step's window): is the "
                             "server listening?\n", static_cast<unsigned long long>(found.steps.back().failed));
        status = 2;
    }
    if (found.stopped) {
        std::fprintf(stderr, "microbench: the search stopped after step %zu: %s (%s)\n", found.steps.size(),
                     found.stopped.message(), found.stopped.name());
        status = 1;
    }
    if (!o.json_path.empty() && !write_file(o.json_path, mb::capacity_json(found, objective) + "\n")) status = 1;
#ifndef MICROBENCH_NO_HTML
    if (!o.html_path.empty() && !write_file(o.html_path, mb::capacity_html(found, objective))) status = 1;
#endif
    return status;
}

}  // namespace cli
