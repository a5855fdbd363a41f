// microbench/report/suite.hpp — the five-scenario suite of the classic ASP.NET-Core-vs-FastAPI
// comparison (basic load, latency, failure rate, keep-alive, stress), side-by-side comparison
// of two targets in alternating rounds, and the self-test against the built-in server. Results
// are plain data; the tables are pure functions of them.
#pragma once

#include <cmath>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

#include "../core/appendf.hpp"
#include "../http/checks.hpp"
#include "../engine/plan.hpp"
#include "../stats/result.hpp"
#include "../engine/runner.hpp"
#ifndef MICROBENCH_NO_SERVER
#include "../server/server.hpp"
#endif

namespace microbench {

struct scenario {
    const char* name;
    std::uint64_t requests;
    std::uint32_t concurrency;
    bool keep_alive;
};

// As the comparisons run them with ab: -n 10000 -c 100, -n 1000 -c 1, -n 10000 -c 10,
// -n 10000 -c 10 -k, -n 50000 -c 200.
constexpr scenario classic_suite[] = {
    {"basic load", 10'000, 100, false}, {"latency", 1'000, 1, false}, {"failure rate", 10'000, 10, false},
    {"keep-alive", 10'000, 10, true},   {"stress", 50'000, 200, false},
};

struct suite_options {
    double scale = 1.0;             // multiplies every request count (at least the concurrency)
    std::uint32_t threads = 1;
    bool factorial_check = false;   // the URL must be a factorial URL; checks n! exactly
    std::int64_t timeout_ms = defaults::timeout_ms;
    std::vector<header> headers;
    tls_options tls;                         // for https://
    std::string unix_socket;                 // every scenario's connections to it (plan::unix_socket)
    bool raise_fd_limit = false;             // as plan::raise_fd_limit
    const cancel_token* cancel = nullptr;    // stops the scenario running and skips the rest
    // Called before each scenario runs, on the calling thread, with its plan and its place
    // (index from 0 of `count`): to say what is running.
    void (*on_scenario)(const char* name, const plan& p, std::size_t index, std::size_t count, void* user) = nullptr;
    void* on_scenario_user = nullptr;
};

struct scenario_result {
    std::string scenario;
    std::string url;
    plan p;  // what ran: its request count, concurrency, checks
    result r;
};

// The plan for one scenario of the suite against `url`.
inline error suite_plan(const std::string& url_text, const scenario& sc, const suite_options& o, plan& p) {
    p = plan();
    auto n = static_cast<std::uint64_t>(std::llround(static_cast<double>(sc.requests) * o.scale));
    p.url(url_text).requests(std::max<std::uint64_t>(n, sc.concurrency)).concurrency(sc.concurrency)
        .threads(std::min(o.threads, sc.concurrency)).keep_alive(sc.keep_alive).timeout_ms(o.timeout_ms)
        .connect_timeout_ms(o.timeout_ms).raise_fd_limit(o.raise_fd_limit).cancel_with(o.cancel).tls(o.tls)
        .unix_socket(o.unix_socket);
    for (const header& h : o.headers) p.header(h.name, h.value);
    if (o.factorial_check) {
        url u;
        if (error e = parse_url(url_text, u)) return e;
        unsigned k = 0;
        if (!factorial_argument(u, k)) return {errc::plan_not_factorial_url, 0};
        checks c;
        c.factorial(k);
        p.check(c);
    }
    return p.validate();
}

// Runs the five scenarios against `url`, appending one result each. A cancelled scenario is the
// last one appended (its result says cancelled); the rest do not run.
inline error run_suite(const std::string& url_text, const suite_options& o, std::vector<scenario_result>& out) {
    for (const scenario& sc : classic_suite) {
        scenario_result sr;
        sr.scenario = sc.name;
        sr.url = url_text;
        if (error e = suite_plan(url_text, sc, o, sr.p)) return e;
        if (o.on_scenario)
            o.on_scenario(sc.name, sr.p, static_cast<std::size_t>(&sc - classic_suite), std::size(classic_suite),
                          o.on_scenario_user);
        if (error e = run(sr.p, sr.r)) return e;
        out.push_back(std::move(sr));
        if (out.back().r.cancelled) break;
    }
    return {};
}

namespace detail {

inline double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace detail

// One row per scenario: requests/s, mean, p50, p90, p99, max (ms), failed, non-2xx, URL.
inline void append_suite_table(const std::vector<scenario_result>& results, std::string& out) {
    using detail::appendf;
    using detail::ms;
    appendf(out, "%-14s %10s %9s %9s %9s %9s %9s %8s %8s  %s\n", "scenario", "req/s", "mean ms", "p50 ms", "p90 ms",
            "p99 ms", "max ms", "failed", "non-2xx", "url");
    for (const scenario_result& s : results) {
        const histogram& t = s.r.total_ns;
        appendf(out, "%-14s %10.1f %9.3f %9.3f %9.3f %9.3f %9.3f %8llu %8llu  %s\n", s.scenario.c_str(),
                s.r.requests_per_second(), t.mean() / 1e6, ms(t.value_at_percentile(50)), ms(t.value_at_percentile(90)),
                ms(t.value_at_percentile(99)), ms(t.max()), static_cast<unsigned long long>(s.r.requests_failed),
                static_cast<unsigned long long>(s.r.non_2xx), s.url.c_str());
    }
}

// Side by side: the same scenarios against A and B (medians over rounds are the caller's), with
// B/A ratios for requests/s, mean, p99 and transfer rate, and failures of each.
inline void append_compare_table(const std::vector<scenario_result>& a, const std::vector<scenario_result>& b,
                                 std::string& out) {
    using detail::appendf;
    using detail::ms;
    appendf(out, "%-14s %11s %11s %6s %9s %9s %6s %9s %9s %6s %10s %10s %6s %7s %7s\n", "scenario", "A req/s",
            "B req/s", "B/A", "A mean", "B mean", "B/A", "A p99", "B p99", "B/A", "A KB/s", "B KB/s", "B/A", "A fail",
            "B fail");
    auto ratio = [](double x, double y) { return x > 0 ? y / x : 0.0; };
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const result &ra = a[i].r, &rb = b[i].r;
        double seconds_a = static_cast<double>(ra.elapsed_ns) / 1e9,
               seconds_b = static_cast<double>(rb.elapsed_ns) / 1e9;
        double kb_a = seconds_a > 0 ? static_cast<double>(ra.bytes_received) / 1024 / seconds_a : 0;
        double kb_b = seconds_b > 0 ? static_cast<double>(rb.bytes_received) / 1024 / seconds_b : 0;
        double mean_a = ra.total_ns.mean() / 1e6, mean_b = rb.total_ns.mean() / 1e6;
        double p99_a = ms(ra.total_ns.value_at_percentile(99)), p99_b = ms(rb.total_ns.value_at_percentile(99));
        appendf(out, "%-14s %11.1f %11.1f %6.2f %9.3f %9.3f %6.2f %9.3f %9.3f %6.2f %10.1f %10.1f %6.2f %7llu %7llu\n",
                a[i].scenario.c_str(), ra.requests_per_second(), rb.requests_per_second(),
                ratio(ra.requests_per_second(), rb.requests_per_second()), mean_a, mean_b, ratio(mean_a, mean_b), p99_a,
                p99_b, ratio(p99_a, p99_b), kb_a, kb_b, ratio(kb_a, kb_b),
                static_cast<unsigned long long>(ra.requests_failed),
                static_cast<unsigned long long>(rb.requests_failed));
    }
}

// The self-test: starts the reference server on a free loopback port and runs the suite,
// scaled by `scale`, against both factorial forms (/factorial/{n} and /factorial?n=N) with the
// factorial check on. `passed` is true only if every request of every scenario succeeded.
#ifndef MICROBENCH_NO_SERVER
inline error self_test(double scale, unsigned n, std::vector<scenario_result>& out, bool& passed) {
    server srv;
    server_options so;
    if (error e = srv.start(so)) return e;
    const std::string base = "http://127.0.0.1:" + std::to_string(srv.port());
    suite_options o;
    o.scale = scale;
    o.factorial_check = true;
    o.timeout_ms = 10'000;
    for (const std::string& path : {"/factorial/" + std::to_string(n), "/factorial?n=" + std::to_string(n)})
        if (error e = run_suite(base + path, o, out)) return e;
    passed = !out.empty();
    for (const scenario_result& s : out)
        passed = passed && s.r.requests_failed == 0 && s.r.non_2xx == 0 && s.r.requests_completed == s.p.requests();
    return {};
}
#endif  // MICROBENCH_NO_SERVER

}  // namespace microbench
