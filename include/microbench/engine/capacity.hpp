// microbench/engine/capacity.hpp — the capacity search: the highest fixed rate a server holds
// within a latency objective. It runs short fixed-rate steps of a plan (each a warm-up, then a
// measured window of at least enough responses for its p99), doubling the rate while steps hold
// (halving it, down to a sixteenth, while none has) and then halving the gap between the highest
// held and the lowest failed rate; a failed step is run once more at its rate before it counts;
// a step in which nothing completed ends it (no_response, or no_connection when no request got a
// connection), and one that cannot start ends it with the steps before it standing. It keeps every
// step's figures. A step's percentiles and counts are those of the requests that ended in its
// window (the interval rows after the warm-up, merged exactly); it says whether the generator,
// rather than the server, may have been what failed it (its schedule lag, or too few connections
// for the rate at the objective's latency).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../core/clock.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../stats/histogram.hpp"
#include "plan.hpp"
#include "runner.hpp"

namespace microbench {

struct capacity_step;
using capacity_step_fn = void (*)(const capacity_step&, void* user);

// What a step must do to hold, and how the search goes.
struct capacity_objective {
    double max_p99_ms = 0;             // response time p99 (from the intended send time), 0 < it <= 3,600,000
    double max_failure_ratio = 0.01;   // failed / ended in the window, 0 to 1
    double min_rate_ratio = 0.95;      // the window's ended requests per second against the target, 0 to 1
    double start_rate = 100;           // requests/s of the first step
    double max_rate = 1'000'000;       // the search goes no higher
    double resolution = 0.05;          // it stops when the lowest failed rate is within this of the highest held
    std::int64_t warmup_ms = 1'000;    // per step, not measured (0 to 1 h)
    std::int64_t step_ms = 5'000;      // measured window per step (10 ms to 1 h), lengthened to see min_responses
    // A window expects at least this many responses at its rate (1 or more): it grows to fit
    // them, up to a minute (or step_ms, when that is longer).
    std::uint64_t min_responses = 1'000;
    std::int64_t cooldown_ms = 500;    // idle between steps, so a server can empty its queues (0 to 1 min)
    std::uint32_t max_steps = 30;      // 1 to 100
    capacity_step_fn on_step = nullptr;  // called after each step, on the calling thread
    void* on_step_user = nullptr;
};

// Why a step did not hold (held: it did).
// no_response: nothing completed in the window; no_connection: no request of the step got a
// connection, and the generator lacked nothing (nothing listens there, or the host refuses them,
// or is unreachable). Later versions may add verdicts; every one but `held` failed.
enum class capacity_verdict : std::uint8_t { held, latency, failures, rate, no_response, no_connection };

// A step after which the search stops: nothing answered, and a lower rate would not change that.
constexpr bool ends_search(capacity_verdict v) {
    return v == capacity_verdict::no_response || v == capacity_verdict::no_connection;
}

// One fixed-rate step of the search.
struct capacity_step {
    double target_rate = 0;        // requests/s asked for
    double achieved_rate = 0;      // requests that ended in the window, per second
    std::int64_t window_ns = 0;    // the measured window after the warm-up (longer when requests ended in the drain)
    std::uint64_t completed = 0, failed = 0;  // ended in the window
    std::int64_t p50_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0;  // response time in the window
    std::int64_t lag_p99_ns = 0;   // schedule lag in the window: how late the generator sent
    std::uint64_t connection_waits = 0;  // in the whole step: requests whose time came while every connection was busy
    std::uint64_t schedule_missed = 0;   // in the whole step: never sent before it ended
    capacity_verdict verdict = capacity_verdict::held;
    // The step failed, and the generator may be why: no request waited for a connection, yet its
    // schedule lag p99 was above a tenth of the objective (at least 1 ms) — it could not send in
    // time —, or requests waited for a connection while the plan's connections could not hold
    // rate x objective requests in flight (raise the concurrency).
    bool generator_suspect = false;
    // A second try at the rate of the step before it, which failed: a failed step is run again
    // once before it caps the answer, so one hiccup does not become the capacity.
    bool retry = false;
    bool held() const { return verdict == capacity_verdict::held; }
};

struct capacity_result {
    double capacity = 0;              // the highest target rate held; 0: no step held
    bool at_max_rate = false;         // the step at max_rate held: the capacity is at least that
    bool generator_limited = false;   // the lowest failed step was suspect: the capacity is a lower bound
    bool cancelled = false;
    std::uint32_t concurrency = 0;    // the plan's connections
    std::vector<capacity_step> steps;  // in the order they ran
    // A step that could not start (its host stopped resolving, no descriptor...) ended the search
    // after the steps above, which stand: the capacity is theirs. None: it ended by itself.
    error stopped;
};

constexpr const char* capacity_verdict_name(capacity_verdict v) {
    switch (v) {
        case capacity_verdict::held: return "held";
        case capacity_verdict::latency: return "p99 over";
        case capacity_verdict::failures: return "failures over";
        case capacity_verdict::rate: return "rate not reached";
        case capacity_verdict::no_response: return "no response";
        case capacity_verdict::no_connection: return "no connection";
    }
    return "?";
}

namespace detail {

// The figures of one step's window, gathered from the interval rows as they close.
struct capacity_window {
    std::int64_t warmup_ns = 0;
    std::int64_t window_ns = 0;
    std::uint64_t completed = 0, failed = 0;
    histogram response, lag;

    static void add_row(const interval_stats& row, const interval_histograms& h, void* user) {
        auto* w = static_cast<capacity_window*>(user);
        if (row.start_ns < w->warmup_ns) return;
        w->window_ns += row.duration_ns;
        w->completed += row.completed;
        w->failed += row.failed;
        w->response.merge(*h.response);
        w->lag.merge(*h.schedule_lag);
    }
};

}  // namespace detail

// The objective's first field out of its range, or none: the error's position is the field's
// number in capacity_objective's order (1 max_p99_ms, 2 max_failure_ratio … 11 max_steps).
inline error check_capacity_objective(const capacity_objective& o) {
    auto within = [](auto v, auto lo, auto hi) { return v >= lo && v <= hi; };  // false for NaN
    const bool ok[] = {o.max_p99_ms > 0 && o.max_p99_ms <= static_cast<double>(defaults::max_timeout_ms),
                       within(o.max_failure_ratio, 0.0, 1.0),
                       within(o.min_rate_ratio, 0.0, 1.0),
                       within(o.start_rate, defaults::min_rate, defaults::max_rate),
                       within(o.max_rate, o.start_rate, defaults::max_rate),
                       within(o.resolution, 0.001, 1.0),
                       o.warmup_ms == 0 || within(o.warmup_ms, defaults::min_interval_ms, defaults::max_interval_ms),
                       within(o.step_ms, defaults::min_interval_ms, defaults::max_interval_ms),
                       o.min_responses >= 1,
                       within(o.cooldown_ms, std::int64_t{0}, std::int64_t{60'000}),
                       within(o.max_steps, 1u, 100u)};
    for (std::size_t i = 0; i < sizeof ok / sizeof ok[0]; ++i)
        if (!ok[i]) return {errc::plan_bad_capacity_search, i + 1};
    return {};
}

// Runs `base` (its URL, connections, threads, keep-alive, checks…; not its count, duration or
// rate, which each step sets) at the rate of one step; fills `step` from its window.
inline error run_capacity_step(const plan& base, const capacity_objective& o, double rate, capacity_step& step,
                               bool& cancelled) {
    // The window sees at least min_responses at this rate, up to a minute (or step_ms); in doubles
    // until then, so no count overflows the cast.
    const double longest_ms = static_cast<double>(std::max<std::int64_t>(o.step_ms, 60'000));
    const double needed_ms = std::min(longest_ms, std::ceil(static_cast<double>(o.min_responses) * 1000.0 / rate));
    const std::int64_t window_ms = std::max<std::int64_t>(o.step_ms, static_cast<std::int64_t>(needed_ms));
    detail::capacity_window w;
    w.warmup_ns = o.warmup_ms * 1'000'000;
    plan p = base;
    p.requests(0).duration_ms(o.warmup_ms + window_ms).rate(rate).interval_histograms(false);
    // Rows of the warm-up's length (the whole window's when there is none): the first is the warm-up.
    p.interval_ms(o.warmup_ms > 0 ? o.warmup_ms : window_ms)
        .on_interval_histograms(&detail::capacity_window::add_row, &w);
    result r;
    if (error e = run(p, r)) return e;
    cancelled = r.cancelled;
    step = capacity_step{};
    step.target_rate = rate;
    step.window_ns = std::max(w.window_ns, window_ms * 1'000'000);  // its rows end with the last request's end
    step.completed = w.completed;
    step.failed = w.failed;
    step.achieved_rate = static_cast<double>(w.completed + w.failed) * 1e9 / static_cast<double>(step.window_ns);
    step.p50_ns = w.response.value_at_percentile(50);
    step.p99_ns = w.response.value_at_percentile(99);
    step.p999_ns = w.response.value_at_percentile(99.9);
    step.max_ns = w.response.max();
    step.lag_p99_ns = w.lag.value_at_percentile(99);
    step.connection_waits = r.connection_waits;
    step.schedule_missed = r.schedule_missed;
    const double objective_ns = o.max_p99_ms * 1e6;
    const std::uint64_t ended = w.completed + w.failed;
    // No connection was made, every request that ended failed to connect (a connect that times out
    // after the step leaves its request unfinished), and no connect waited for a local shortage.
    const bool unreachable = r.connects == 0 && r.requests_completed == 0 &&
                             r.failed(failure::connect) == r.requests_failed && r.requests_failed + r.unfinished > 0 &&
                             r.port_waits + r.descriptor_waits + r.memory_waits + r.backlog_waits == 0;
    if (unreachable) step.verdict = capacity_verdict::no_connection;
    else if (w.completed == 0) step.verdict = capacity_verdict::no_response;
    else if (static_cast<double>(w.failed) > o.max_failure_ratio * static_cast<double>(ended))
        step.verdict = capacity_verdict::failures;
    else if (static_cast<double>(step.p99_ns) > objective_ns) step.verdict = capacity_verdict::latency;
    else if (step.achieved_rate < o.min_rate_ratio * rate) step.verdict = capacity_verdict::rate;
    if (!step.held()) {
        // A request that waited for a connection is late too: its lag is then the server's doing,
        // unless the connections were too few for the rate at the objective's latency.
        const bool lagging =
            r.connection_waits == 0 && static_cast<double>(step.lag_p99_ns) > std::max(1e6, objective_ns / 10);
        const bool short_of_connections =
            r.connection_waits > 0 && static_cast<double>(base.concurrency()) < rate * o.max_p99_ms / 1000;
        step.generator_suspect = lagging || short_of_connections;
    }
    return {};
}

// The search (see the top of this file). Errors: the objective's (plan_bad_capacity_search),
// the plan's and the first step's setup (as run() gives them); a later step that cannot start is
// out.stopped, after the steps before it. What happens to requests is in the steps.
inline error find_capacity(const plan& base, const capacity_objective& o, capacity_result& out) {
    out = capacity_result{};
    out.concurrency = base.concurrency();
    if (error e = check_capacity_objective(o)) return e;
    plan probe = base;
    if (error e = probe.requests(0).duration_ms(o.step_ms).rate(o.start_rate).validate()) return e;
    double held = 0, failed = 0;  // the highest held and lowest failed rates so far (0: none)
    double rate = o.start_rate;
    bool retrying = false;        // the next step tries the rate of a failed one again
    const double floor_rate = std::max(defaults::min_rate, o.start_rate / 16);
    const cancel_token* cancel = base.cancel_with();
    while (out.steps.size() < o.max_steps && !(cancel && cancel->cancelled())) {
        for (std::int64_t left = out.steps.empty() ? 0 : o.cooldown_ms; left > 0 && !(cancel && cancel->cancelled());
             left -= 50)
            sleep_ns(std::min<std::int64_t>(left, 50) * 1'000'000);  // in slices: a cancel ends the cool-down
        if (cancel && cancel->cancelled()) break;
        capacity_step step;
        bool cancelled = false;
        if (error e = run_capacity_step(base, o, rate, step, cancelled)) {
            if (out.steps.empty()) return e;  // nothing ran: the plan's or the machine's fault
            out.stopped = e;                  // the steps so far stand
            break;
        }
        if (cancelled) break;  // a step cut short says nothing
        step.retry = retrying;
        out.steps.push_back(step);
        if (o.on_step) o.on_step(out.steps.back(), o.on_step_user);
        if (!step.held() && !ends_search(step.verdict) && !retrying) {
            retrying = true;  // once more at this rate before it counts
            continue;
        }
        retrying = false;
        if (step.held()) held = std::max(held, rate);
        else failed = failed == 0 ? rate : std::min(failed, rate);
        if (step.held() && rate >= o.max_rate) break;
        if (ends_search(step.verdict)) break;
        if (failed == 0) rate = std::min(rate * 2, o.max_rate);  // still climbing
        else if (held == 0) rate = rate / 2;                      // not even the start held: down
        else if (failed <= held * (1 + o.resolution)) break;     // narrowed enough
        else rate = std::sqrt(held * failed);                     // halve the gap (geometrically)
        if (held == 0 && rate < floor_rate) break;
    }
    // The search ended (steps, cancel, a step that could not start) before a failed step's retry:
    // that failure counts, as the table counts it.
    if (retrying) failed = failed == 0 ? rate : std::min(failed, rate);
    out.cancelled = cancel && cancel->cancelled();
    out.capacity = held;
    out.at_max_rate = held >= o.max_rate;
    for (const capacity_step& s : out.steps)
        if (!s.held() && s.target_rate == failed) out.generator_limited = s.generator_suspect;
    return {};
}

}  // namespace microbench
