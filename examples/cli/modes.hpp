// examples/cli/modes.hpp — the microbench command line's modes beyond a single run: --self-test
// (the suite against the built-in server), --suite (the five scenarios against one or two
// targets) and --compare (one workload against two targets in alternating rounds). Each prints
// its table, says its gates and writes --json and --html; the exit status is the mode's.
#pragma once

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "microbench.hpp"
#include "options.hpp"
#include "outputs.hpp"

namespace cli {

// Adds {"scenario":…,"result":…} to a JSON array being written ("[" so far, or items and no "]").
inline void append_scenario_json(std::string& json, const mb::scenario_result& s,
                                 const std::vector<double>& percentiles, const std::string& extra) {
    if (json.size() > 1) json += ",";
    json += "{\"scenario\":\"" + s.scenario + "\",\"result\":";
    json += mb::result_json(mb::describe(s.p), s.r, percentiles, extra) + "}";
}

inline int run_self_test(const options& o) {
    const double scale = o.scale > 0 ? o.scale : 0.25;
    FILE* says = o.json_path == "-" ? stderr : stdout;  // stdout carries the JSON alone
    std::fprintf(says,
                 "microbench %s self-test: the built-in server on 127.0.0.1, the five-scenario suite (scale %g) "
                 "against\n/factorial/100 and /factorial?n=100, every response checked to be exactly 100!\n\n",
                 mb::version_string, scale);
    std::fflush(says);
    std::vector<mb::scenario_result> results;
    bool passed = false;
    if (mb::error e = mb::self_test(scale, 100, results, passed)) {
        std::fprintf(stderr, "microbench: self-test could not run: %s\n", e.message());
        return 1;
    }
    std::string text;
    std::string json = "[";
    mb::append_suite_table(results, text);
    std::uint64_t total = 0;
    std::uint64_t failed = 0;
    std::vector<mb::junit_suite> junit;
    for (const mb::scenario_result& s : results) {
        total += s.r.requests_ended;
        failed += s.r.requests_failed;
        const judged j = judge(o, s.r, true);  // all checked
        if (!o.json_path.empty()) append_scenario_json(json, s, o.percentiles, j.json);
        std::string broke;  // the self-test's own rule: every request of the scenario completed and 2xx
        if (s.r.requests_failed || s.r.non_2xx || s.r.requests_completed != s.p.requests())
            mb::detail::appendf(broke,
                                "%llu of %llu requests completed, %llu failed, %llu non-2xx: the self-test needs "
                                "every one to pass",
                                static_cast<unsigned long long>(s.r.requests_completed),
                                static_cast<unsigned long long>(s.p.requests()),
                                static_cast<unsigned long long>(s.r.requests_failed),
                                static_cast<unsigned long long>(s.r.non_2xx));
        junit.push_back({s.scenario + " " + mb::run_label(s.url), &s.r, j.verdicts, broke});
    }
    std::string verdict;
    mb::detail::appendf(verdict, "Self-test %s: %llu requests, %llu failed.\n", passed ? "passed" : "FAILED",
                        static_cast<unsigned long long>(total), static_cast<unsigned long long>(failed));
    text += "\n" + verdict;
    if (o.json_path == "-") std::fputs(verdict.c_str(), stderr);
    else std::fwrite(text.data(), 1, text.size(), stdout);
    if (!o.json_path.empty() && !write_file(o.json_path, json + "]\n")) return 1;
    if (!o.junit_path.empty() && !write_file(o.junit_path, mb::junit_xml(junit, "microbench self-test"))) return 1;
    if (!o.html_path.empty()) {
        html_runs html;  // the two URL forms side by side, labelled by their paths
        for (const mb::scenario_result& s : results) html.add(mb::run_label(s.url), s.scenario, s.p, s.r);
        if (!html.write(o, "microbench self-test")) return 1;
    }
    return passed ? 0 : 3;
}

// Before each scenario of --suite (unless -q): "  scenario 2/5, c1: -n 1000 -c 1".
inline void say_scenario(const char* name, const mb::plan& p, std::size_t index, std::size_t count, void*) {
    std::fprintf(stderr, "  scenario %zu/%zu, %s: -n %llu -c %u%s\n", index + 1, count, name,
                 static_cast<unsigned long long>(p.requests()), p.concurrency(), p.keep_alive() ? " -k" : "");
}

// --suite: the scenarios against each target in turn, into `a` and `b`; the exit status of a
// scenario that could not start, else -1.
inline int run_suite_scenarios(const options& o, std::vector<mb::scenario_result>& a,
                               std::vector<mb::scenario_result>& b) {
    mb::suite_options so;
    so.scale = o.scale > 0 ? o.scale : 1.0;
    so.threads = o.threads;
    so.factorial_check = o.check_factorial;
    so.timeout_ms = o.timeout_ms;
    so.headers = o.headers;
    so.tls = o.tls;
    so.unix_socket = o.unix_socket;
    so.raise_fd_limit = true;
    so.cancel = &interrupted;
    if (!o.quiet) so.on_scenario = say_scenario;
    interrupt_scope ctrl_c;
    for (auto target : {std::make_pair(&o.url_text, &a), std::make_pair(&o.url_b, &b)}) {
        if (target.first->empty() || interrupted.cancelled()) continue;
        if (!o.quiet)
            std::fprintf(stderr, "Running the suite against %s%s%s\n", target.first->c_str(),
                         o.unix_socket.empty() ? "" : " over the Unix socket ", o.unix_socket.c_str());
        if (mb::error e = mb::run_suite(*target.first, so, *target.second)) {
            const std::size_t last = std::size(mb::classic_suite) - 1;
            const mb::scenario& failed = mb::classic_suite[std::min(target.second->size(), last)];
            mb::plan p;
            (void)mb::suite_plan(*target.first, failed, so, p);  // what it tried, for the message
            return start_failed(e, o, p, std::string("the ") + failed.name + " scenario's ");
        }
    }
    return -1;
}

inline int run_suites(const options& o) {
    std::vector<mb::scenario_result> a;
    std::vector<mb::scenario_result> b;
    if (const int failed = run_suite_scenarios(o, a, b); failed >= 0) return failed;
    std::string text = interrupted.cancelled() ? interrupted_line : "";
    std::string json = "[";
    mb::append_suite_table(a, text);
    if (!b.empty()) {
        text += "\n";
        mb::append_suite_table(b, text);
        text += "\nSide by side (A = " + o.url_text + ", B = " + o.url_b + "):\n";
        mb::append_compare_table(a, b, text);
    }
    std::vector<judged> verdicts;
    for (const auto* list : {&a, &b})
        for (const mb::scenario_result& s : *list) {
            verdicts.push_back(judge(o, s.r, o.checks_responses()));
            append_scenario_json(json, s, o.percentiles, verdicts.back().json);
        }
    json += "]\n";
    if (o.json_path != "-") std::fwrite(text.data(), 1, text.size(), stdout);
    int broken = 0;
    std::size_t at = 0;
    for (const auto* list : {&a, &b})
        for (const mb::scenario_result& s : *list) {
            const std::string label = b.empty() ? s.scenario : (list == &a ? "A " : "B ") + s.scenario;
            broken += say_gates(o, verdicts[at++], label.c_str());
        }
    if (!o.json_path.empty() && !write_file(o.json_path, json)) return 1;
    if (!o.junit_path.empty()) {  // each scenario a test suite, A's then B's
        std::vector<mb::junit_suite> junit;
        at = 0;
        for (const auto* list : {&a, &b})
            for (const mb::scenario_result& s : *list)
                junit.push_back({(b.empty() ? "" : list == &a ? "A " : "B ") + s.scenario + " " + s.url, &s.r,
                                 verdicts[at++].verdicts});
        if (!write_file(o.junit_path, mb::junit_xml(junit, "microbench suite"))) return 1;
    }
    if (!o.html_path.empty()) {
        html_runs html;
        for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)  // scenario by scenario: A, then B
            for (const auto* list : {&a, &b})
                if (i < list->size()) html.add(list == &a ? "A" : "B", (*list)[i].scenario, (*list)[i].p, (*list)[i].r);
        if (!html.write(o)) return 1;
    }
    if (interrupted.cancelled()) return 130;
    return broken ? 3 : 0;
}

// The round of median requests/s among `rs`.
inline const mb::result& median_round(const std::vector<mb::result>& rs) {
    std::vector<std::size_t> order(rs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t x, std::size_t y) { return rs[x].requests_per_second() < rs[y].requests_per_second(); });
    return rs[order[order.size() / 2]];
}

inline int run_compare(const options& o) {
    const std::uint32_t rounds = o.rounds ? o.rounds : 3;
    std::vector<mb::result> ra(rounds);
    std::vector<mb::result> rb(rounds);
    mb::plan pa = to_plan(o, o.url_text);
    mb::plan pb = to_plan(o, o.url_b);
    pa.cancel_with(&interrupted);
    pb.cancel_with(&interrupted);
    std::uint32_t complete = 0;  // rounds in which both ran uninterrupted
    {
        interrupt_scope ctrl_c;
        for (std::uint32_t i = 0; i < rounds && !interrupted.cancelled(); ++i) {  // alternate who goes first
            for (int k = 0; k < 2 && !interrupted.cancelled(); ++k) {
                const bool run_a = (k == 0) == (i % 2 == 0);
                if (!o.quiet) std::fprintf(stderr, "Round %u: %s\n", i + 1, (run_a ? o.url_text : o.url_b).c_str());
                if (mb::error e = mb::run(run_a ? pa : pb, run_a ? ra[i] : rb[i]))
                    return start_failed(e, o, run_a ? pa : pb);
            }
            if (!interrupted.cancelled()) ++complete;
        }
    }
    if (complete < rounds) {
        std::printf("%s", interrupted_line);
        if (complete == 0) {
            std::printf("No round of both targets completed: nothing to compare.\n");
            return 130;
        }
        ra.resize(complete);
        rb.resize(complete);
    }
    std::vector<mb::scenario_result> a(1);
    std::vector<mb::scenario_result> b(1);
    a[0].scenario = "workload";
    b[0].scenario = "workload";
    a[0].url = o.url_text;
    b[0].url = o.url_b;
    a[0].r = median_round(ra);
    b[0].r = median_round(rb);
    std::string text;
    mb::detail::appendf(text, "A = %s\nB = %s\n", o.url_text.c_str(), o.url_b.c_str());
    if (!o.unix_socket.empty()) mb::detail::appendf(text, "Both over the Unix socket %s.\n", o.unix_socket.c_str());
    mb::detail::appendf(text, "%u rounds, alternating; the median round by requests/s of each:\n\n", complete);
    mb::append_compare_table(a, b, text);
    // Each side's verdict over n (the factorial check of each target's n) and, with --by-target,
    // its targets: both of its median round, the one whose figures the table shows.
    for (const mb::scenario_result* side : {&a[0], &b[0]}) {
        const char* name = side == &a[0] ? "A" : "B";
        if (!side->r.by_target.verdict.empty()) {
            mb::detail::appendf(text, "\nChecks, %s (its median round): ", name);
            mb::append_verdict_text(side->r.by_target, text);
            text += "\n";
        }
        if (o.by_target && side->r.by_target.targets) {
            mb::detail::appendf(text, "\n%s = %s:", name, side->url.c_str());
            mb::append_by_target_table(side->r, text);
        }
    }
    const judged verdict_a = judge(o, a[0].r, o.checks_responses());
    const judged verdict_b = judge(o, b[0].r, o.checks_responses());
    if (o.json_path != "-") std::fwrite(text.data(), 1, text.size(), stdout);
    const int broken = say_gates(o, verdict_a, "A") + say_gates(o, verdict_b, "B");
    if (!o.json_path.empty()) {
        const std::string json = "{\"a\":" + mb::result_json(mb::describe(pa), a[0].r, o.percentiles, verdict_a.json) +
                                 ",\"b\":" + mb::result_json(mb::describe(pb), b[0].r, o.percentiles, verdict_b.json) +
                                 "}\n";
        if (!write_file(o.json_path, json)) return 1;
    }
    if (!o.junit_path.empty() &&
        !write_file(o.junit_path, mb::junit_xml({{"A " + o.url_text, &a[0].r, verdict_a.verdicts},
                                                 {"B " + o.url_b, &b[0].r, verdict_b.verdicts}},
                                                "microbench compare")))
        return 1;
    if (!o.html_path.empty()) {
        html_runs html;
        html.add("A", "", pa, a[0].r);
        html.add("B", "", pb, b[0].r);
        if (!html.write(o)) return 1;
    }
    if (complete < rounds) return 130;
    return broken ? 3 : 0;
}

}  // namespace cli
