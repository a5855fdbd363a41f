// examples/cli/check.hpp — what the microbench command line checks once every flag is read: the
// mode's URLs and flags, the targets, the workload, the outputs and the shard, one function per
// concern, each refusal one line. Nothing connects, and with --check-args nothing resolves a
// name: checking the arguments asks no one outside the process.
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "table.hpp"

namespace cli {

inline unsigned bit_of(options::mode m) {
    switch (m) {
        case options::mode::single: return in_single;
        case options::mode::suite: return in_suite;
        case options::mode::compare: return in_compare;
        case options::mode::self_test: return in_self_test;
    }
    return in_single;
}

// What parse() saw beyond the values: the flags the mode does not read (as typed, with the modes
// that do), and whether --seed and -n were given.
struct given_settings {
    std::vector<std::pair<std::string, unsigned>> unread;
    bool seed = false;
    bool requests = false;  // -n
};

// The reason a mode gives for not reading a flag.
inline const char* unread_in(options::mode m) {
    switch (m) {
        case options::mode::single: return nullptr;
        case options::mode::suite:
            return "does not apply to --suite: its scenarios set their own -n, -c, -k and the rest";
        case options::mode::compare:
            return "does not apply to --compare: it prints the comparison table (and --json, --html) only";
        case options::mode::self_test:
            return "does not apply to --self-test: it runs its own suite against the built-in server";
    }
    return nullptr;
}

// "--suite and --self-test": the modes that read an option, for a single run's refusal.
inline std::string modes_reading(unsigned modes) {
    std::string out;
    const std::pair<unsigned, const char*> names[] = {
        {in_suite, "--suite"}, {in_compare, "--compare"}, {in_self_test, "--self-test"}};
    for (const auto& n : names)
        if (modes & n.first) out += (out.empty() ? "" : " and ") + std::string(n.second);
    return out;
}

// The mode's URLs and flags; a Kubernetes Indexed Job's shard from the environment.
inline parse_outcome check_mode(options& o, const given_settings& given) {
    const bool two_allowed = o.run_mode == options::mode::suite || o.run_mode == options::mode::compare;
    if (!o.url_b.empty() && !two_allowed)
        return usage_errorf("more than one URL: '%s' and '%s'", shown(o.url_text).c_str(), shown(o.url_b).c_str());
    if (o.run_mode == options::mode::compare && o.url_b.empty()) return usage_error("--compare needs two URLs");
    if (!o.intervals_path.empty() && o.run_mode != options::mode::single)
        return usage_error("--intervals is for a single run, not --suite, --compare or --self-test");
    if (!o.shard_count) {  // a Kubernetes Indexed Job's pod: its index, and the total the job says
        const char* index = std::getenv("JOB_COMPLETION_INDEX");
        const char* total = std::getenv("MICROBENCH_SHARDS");
        if (index && total && !parse_shard(std::string(index) + "/" + total, o.shard_index, o.shard_count))
            return usage_errorf("JOB_COMPLETION_INDEX=%s and MICROBENCH_SHARDS=%s do not make a shard I/N",
                                shown(index).c_str(), shown(total).c_str());
    }
    if ((o.shard_count || o.start_at_unix_ms) && o.run_mode != options::mode::single)
        return usage_error(
            "--shard, --start-at and --start-in are for a single run, not --suite, --compare or --self-test");
    for (const auto& flag : given.unread) {
        if (o.run_mode == options::mode::single)
            return usage_errorf("%s is for %s", flag.first.c_str(), modes_reading(flag.second).c_str());
        return usage_errorf("%s %s", flag.first.c_str(), unread_in(o.run_mode));
    }
    if (o.run_mode == options::mode::self_test && !o.url_text.empty())
        return usage_error("--self-test runs against the built-in server: give no URL");
    if (!o.targets_path.empty() && !o.url_text.empty())
        return usage_errorf("--targets gives the URLs: give no URL ('%s')", shown(o.url_text).c_str());
    if (o.run_mode != options::mode::self_test && o.url_text.empty() && o.targets_path.empty())
        return usage_error("no URL given");
    return {};
}

// --targets: the file's targets read (a fault names file:line:column), every one of the first's
// origin, each request buildable, and under --check factorial each with an n; the first target's
// URL stands for the run's (its origin, the report's path). Nothing is sent before this passes.
inline parse_outcome check_targets_file(options& o) {
    std::vector<std::size_t> starts;
    const std::string& text = o.targets_text;
    const std::string name = o.targets_path == "-" ? "stdin" : o.targets_path;
    auto at = [&](std::size_t byte, const std::string& what) {
        std::size_t line = 0, column = 0;
        mb::line_column(text, byte, line, column);
        return usage_errorf("--targets %s:%zu:%zu: %s", shown(name).c_str(), line, column, what.c_str());
    };
    if (mb::error e = mb::read_targets(text, o.file_targets, &starts)) return at(e.position, e.message());
    o.url_text = o.file_targets[0].url;
    o.no_ranges = true;  // a targets file's URLs are sent as written
    if (mb::parse_url(o.url_text, o.target)) return at(starts[0], "bad URL");  // read_targets parsed it
    const mb::plan p = to_plan(o, o.url_text);
    mb::request_options own;
    std::string request;
    for (std::size_t k = 0; k < o.file_targets.size(); ++k) {
        const mb::target& t = o.file_targets[k];
        mb::url u;
        unsigned n = 0;
        const mb::error e = mb::detail::target_request(o.target, t.url, p.request(), &t, own, u, request);
        if (e.code == mb::errc::plan_bad_target)
            return at(starts[k], "another origin: '" + shown(t.url) + "' (the first target's is " +
                                     o.target.authority() + (o.target.tls ? ", https" : ", http") + ")");
        if (e) return at(starts[k], std::string("bad request: ") + e.message());
        if (o.check_factorial && !mb::factorial_argument(u, n))
            return at(starts[k], "--check factorial needs /factorial/{n} or /factorial?n=N URLs, n at most 100,000: '" +
                                     shown(t.url) + "' has none");
    }
    return {};
}

// "bad URL 'TEXT': why (at byte N)"; for one of the URLs TEXT's ranges stand for, "bad URL 'ONE'
// (of 'TEXT'): ...".
inline parse_outcome bad_url(const std::string& text, const std::string& one, const mb::error& e) {
    if (one == text)
        return usage_errorf("bad URL '%s': %s (at byte %zu)", shown(text).c_str(), e.message(), e.position);
    return usage_errorf("bad URL '%s' (of '%s'): %s (at byte %zu)", shown(one).c_str(), shown(text).c_str(),
                        e.message(), e.position);
}

// A URL as typed: each URL its ranges stand for (not with --no-ranges) parses, and `first` is the
// first of them, or the URL itself; --suite takes no ranges, and under --check factorial each URL
// has an n.
inline parse_outcome check_url(const options& o, const std::string& text, mb::url& first) {
    const bool braces = text.find_first_of("{}") < text.find('#');  // a fragment is not sent
    if (o.no_ranges || !braces) {
        if (mb::error e = mb::parse_url(text, first)) return bad_url(text, text, e);
        return {};
    }
    if (!built(feature::targets))
        return usage_errorf("URL ranges are not in this build of microbench (built with %s): write a brace of the URL "
                            "as %%7B or %%7D", macro_of(feature::targets));
    std::uint64_t count = 1;
    if (mb::error e = mb::count_url_ranges(text, count)) return bad_url(text, text, e);
    std::string bad, without_n;
    mb::error fault;
    (void)mb::for_each_url(text, 0, count, [&](const std::string& u, std::uint64_t k) {
        mb::url parsed;
        unsigned n = 0;
        if (fault || !without_n.empty()) return;
        fault = mb::parse_url(u, k == 0 ? first : parsed);
        if (fault) bad = u;
        else if (o.check_factorial && !mb::factorial_argument(k == 0 ? first : parsed, n)) without_n = u;
    });
    if (fault) return bad_url(text, bad, fault);
    if (!without_n.empty())
        return usage_errorf("--check factorial needs /factorial/{n} or /factorial?n=N URLs, n at most 100,000: %s "
                            "has none", without_n.c_str());
    if (o.run_mode == options::mode::suite)
        return usage_error("URL ranges are for a single run or --compare, not --suite "
                           "(--no-ranges sends braces as typed)");
    return {};
}

// The URLs parse, and a single run's ranges expand into its targets; --check factorial has an n
// in each; -B's addresses are this machine's and of the targets' family: a target's name is
// resolved for that, but not by --check-args.
inline parse_outcome check_targets(options& o) {
    mb::url second;
    if (!o.url_b.empty())  // the second first, as before ranges
        if (parse_outcome out = check_url(o, o.url_b, second); out.exit_now) return out;
    if (!o.targets_path.empty()) {
        if (parse_outcome out = check_targets_file(o); out.exit_now) return out;
    } else if (parse_outcome out = check_url(o, o.url_text, o.target); out.exit_now) {
        return out;
    }
    if (!built(feature::tls) && (o.target.tls || second.tls))
        return usage_errorf("https:// is not in this build of microbench (built with %s)", macro_of(feature::tls));
    unsigned n = 0;
    if (o.check_factorial &&
        (!mb::factorial_argument(o.target, n) || (!o.url_b.empty() && !mb::factorial_argument(second, n))))
        return usage_error("--check factorial needs /factorial/{n} or /factorial?n=N URLs");
    if (!o.unix_socket.empty() && !o.bind_address.empty())
        return usage_error("--unix-socket and -B do not go together: a Unix socket has no local address to bind");
    if (!o.unix_socket.empty() && !o.connect_to.empty())
        return usage_error("--unix-socket and --connect-to do not go together: the socket is where every connection "
                           "goes");
    for (const mb::url* target : {&o.target, &second})
        if (!o.bind_address.empty() && !target->host.empty())
            if (mb::source_fault f = bind_fault(o.bind_address, *target, o.connect_to, !o.check_args))
                return usage_error(bind_fault_line(o.bind_address, f));
    return {};
}

// The counts, the method and the open model's settings agree.
inline parse_outcome check_workload(options& o, const given_settings& given) {
    if (o.each_once && given.requests) return usage_error("--each-once sends each target once: give no -n");
    if (o.each_once && o.duration_ms)
        return usage_error("--each-once sends each target once: give no -t or --duration");
    if (o.each_once) {  // -n is the number of targets
        std::uint64_t urls = 1;
        if (!o.file_targets.empty()) urls = o.file_targets.size();
        else if (!o.no_ranges) (void)mb::count_url_ranges(o.url_text, urls);  // checked before
        o.requests = urls;
        if (o.concurrency > urls)
            return usage_errorf("--each-once sends %llu requests, one a target: -c %u is more connections than that",
                                static_cast<unsigned long long>(urls), o.concurrency);
    }
    if (o.requests && o.concurrency > o.requests)
        return usage_error("cannot use concurrency level greater than total number of requests (-c " +
                           std::to_string(o.concurrency) + " > -n " + std::to_string(o.requests) + ")");
    if (o.threads > o.concurrency)
        return usage_errorf("more threads (%u) than connections (-c %u)", o.threads, o.concurrency);
    if (o.pipeline > 1 && !o.keep_alive) return usage_error("--pipeline needs keep-alive (-k)");
    if (o.sent_body && (o.head_given || o.method == "HEAD"))
        return usage_error("-i (HEAD) sends no body: drop -p/-u, or -i");
    if (o.rate_to >= 0 && !o.stages.empty())
        return usage_error("--rate FROM:TO and --stages are two ways to vary the rate: give one");
    if (o.rate_to >= 0 && o.duration_ms == 0)
        return usage_error("--rate FROM:TO ramps over the duration: give -t");
    // ab's default of one request would be the whole run, reported as far above the rate.
    if (o.rate > 0 && o.stages.empty() && !given.requests && o.duration_ms == 0 && !o.each_once &&
        (o.run_mode == options::mode::single || o.run_mode == options::mode::compare))
        return usage_error("--rate sends on a schedule: say how many requests (-n) or for how long (-t)");
    if (!o.stages.empty() && o.duration_ms)
        return usage_error("--stages make the run as long as they are together: drop -t");
    const bool open_model = o.rate > 0 || o.rate_to >= 0 || !o.stages.empty();
    if (open_model && o.pipeline > 1)
        return usage_error("--rate sends one request at a time per connection: drop --pipeline");
    if (o.poisson && !open_model) return usage_error("--arrivals poisson needs --rate");
    if (given.seed && !o.poisson && !o.order_random)
        return usage_error("--seed is for --arrivals poisson and --order random");
    if (o.max_batch_lag_us >= 0 && !open_model) return usage_error("--max-batch-lag is for --rate");
    return {};
}

// The files written: each its own, at most one on stdout, intervals where they are asked for.
inline parse_outcome check_outputs(const options& o) {
    struct stat st {};
    const bool open_model = o.rate > 0 || o.rate_to >= 0 || !o.stages.empty();
    if (open_model && !o.hgrm_path.empty() && o.hgrm_path != "-" && stat(o.hgrm_path.c_str(), &st) == 0 &&
        !S_ISREG(st.st_mode))
        return usage_error(
            "--hgrm at a fixed rate writes FILE and FILE.service: give a file's name (not a device or pipe), or -");
    if (!o.intervals_path.empty() && o.interval_ms == 0)
        return usage_error("--intervals needs intervals: drop --interval 0");
    if (!o.hlog_path.empty() && o.interval_ms == 0) return usage_error("--hlog needs intervals: drop --interval 0");
    if (o.interval_histograms && o.interval_ms == 0)
        return usage_error("--interval-histograms needs intervals: drop --interval 0");
    if (o.interval_histograms && o.json_path.empty())
        return usage_error("--interval-histograms keeps them in --json: give --json FILE");
    for (const std::string* other :
         {&o.intervals_path, &o.json_path, &o.hgrm_path, &o.csv_path, &o.gnuplot_path, &o.html_path})
        if (!o.hlog_path.empty() && o.hlog_path != "-" && o.hlog_path == *other)
            return usage_errorf("--hlog and another output both write '%s': give each its own file",
                                shown(o.hlog_path).c_str());
    if (o.stdout_writers() > 1)
        return usage_error("--json -, --intervals -, --hgrm -, --hlog -, -e - and -g - would share stdout: "
                           "send all but one to files");
    return {};
}

// The plan divides into the shards, and its request can be built.
inline parse_outcome check_plan(const options& o) {
    if (o.shard_count) {
        mb::plan whole = to_plan(o.without_shard(), o.url_text);
        const mb::error e = mb::divide_plan(whole, o.shard_index, o.shard_count);
        if (e.code == mb::errc::plan_bad_rate)
            return usage_errorf(
                "--shard %u/%u: each of %u shards would send %g requests/s, below the smallest rate (0.001)",
                o.shard_index, o.shard_count, o.shard_count, o.rate / o.shard_count);
        std::uint64_t urls = 1;
        if (!o.file_targets.empty()) urls = o.file_targets.size();
        else if (!o.no_ranges) (void)mb::count_url_ranges(o.url_text, urls);  // checked above
        if (e && urls > 1)
            return usage_errorf("--shard %u/%u: each of %u shards needs a connection, a request and a URL of the "
                                "ranges (-c %u, -n %llu, %llu URLs)", o.shard_index, o.shard_count, o.shard_count,
                                o.concurrency, static_cast<unsigned long long>(o.requests),
                                static_cast<unsigned long long>(urls));
        if (e)
            return usage_errorf("--shard %u/%u: each of %u shards needs a connection and a request (-c %u, -n %llu)",
                                o.shard_index, o.shard_count, o.shard_count, o.concurrency,
                                static_cast<unsigned long long>(o.requests));
    }
    std::string request;
    if (mb::error e = mb::build_request(o.target, to_plan(o, o.url_text).request(), request))
        return usage_errorf("bad request: %s", e.message());
    return {};
}

// --find-capacity's flags: its objective is the p99 gate; it sets -n, -t and the rate itself, and
// writes its table, --json and --html only. Its own flags are not for anything else.
inline parse_outcome check_capacity(const options& o, const given_settings& given) {
    const options defaults;
    const bool own = o.max_failures_ratio != defaults.max_failures_ratio || o.start_rate != defaults.start_rate ||
                     o.max_rate != defaults.max_rate || o.warmup_ms != defaults.warmup_ms ||
                     o.step_ms != defaults.step_ms || o.min_responses != defaults.min_responses;
    if (!o.find_capacity)
        return own ? usage_error("--max-failures-ratio, --start-rate, --max-rate, --warmup, --step and "
                                 "--min-responses are for --find-capacity")
                   : parse_outcome{};
    bool p99 = false;
    for (const auto& gate : o.limits.max_percentile_ms) p99 = p99 || gate.first == 99;
    if (!p99) return usage_error("--find-capacity needs its objective: --max-p99-ms X");
    if (o.limits.max_percentile_ms.size() > 1 || o.limits.max_failures != UINT64_MAX || o.limits.min_rps > 0)
        return usage_error(
            "--find-capacity's objective is --max-p99-ms and --max-failures-ratio: drop the other gates");
    if (given.requests || o.duration_ms || o.rate > 0 || o.rate_to >= 0 || !o.stages.empty())
        return usage_error("--find-capacity sets the rate and length of each step itself: drop -n, -t, --rate and "
                           "--stages");
    if (o.start_rate > o.max_rate) return usage_error("--start-rate is above --max-rate");
    for (const auto& gate : o.limits.max_percentile_ms)
        if (gate.second > static_cast<double>(mb::defaults::max_timeout_ms))
            return usage_error("--find-capacity's --max-p99-ms is at most 3600000 (an hour)");
    if (o.threads > o.concurrency)
        return usage_errorf("more threads (%u) than connections (-c %u)", o.threads, o.concurrency);
    if (o.latency || o.interval_ms >= 0 || o.interval_histograms || o.by_target || o.gnuplot_path.size())
        return usage_error("--find-capacity writes its table, --json and --html: drop --latency, --interval, "
                           "--interval-histograms, --by-target and -g");
    if (!o.csv_path.empty() || !o.gnuplot_path.empty() || !o.hgrm_path.empty() || !o.hlog_path.empty() ||
        !o.intervals_path.empty() || !o.junit_path.empty() || o.shard_count || o.each_once || o.pipeline > 1)
        return usage_error("--find-capacity writes its table, --json and --html: drop -e, -g, --hgrm, --hlog, "
                           "--intervals, --junit, --shard (or JOB_COMPLETION_INDEX), --each-once and --pipeline");
    return {};
}

// Every check, in order: the first refusal ends it.
inline parse_outcome check_arguments(options& o, const given_settings& given) {
    if (parse_outcome out = check_mode(o, given); out.exit_now) return out;
    if (o.run_mode == options::mode::self_test) return {};
    if (parse_outcome out = check_targets(o); out.exit_now) return out;
    if (o.run_mode == options::mode::suite) return {};  // the suite sets its own -n, -c and -k
    if (parse_outcome out = check_capacity(o, given); out.exit_now) return out;
    if (o.find_capacity) return check_plan(o);  // -n 1 and the rest of a single run's rules do not apply
    if (parse_outcome out = check_workload(o, given); out.exit_now) return out;
    if (parse_outcome out = check_outputs(o); out.exit_now) return out;
    return check_plan(o);
}

}  // namespace cli
