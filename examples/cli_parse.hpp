// examples/cli_parse.hpp — the microbench command line's options as one table: each option's
// names, its value, the modes that read it, its --help-all text and how it is applied. parse()
// and long_usage() both walk the table (the one-screen short_usage() is written by hand). A flag
// given twice (or under two names for one setting) or where the mode does not read it is refused.
#pragma once

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cli_options.hpp"

namespace cli {

// Which modes read an option.
enum mode_bits : unsigned { in_single = 1, in_suite = 2, in_compare = 4, in_self_test = 8, in_all = 15 };

inline unsigned bit_of(options::mode m) {
    switch (m) {
        case options::mode::single: return in_single;
        case options::mode::suite: return in_suite;
        case options::mode::compare: return in_compare;
        case options::mode::self_test: return in_self_test;
    }
    return in_single;
}

// --help-all's sections, in order.
enum class section { ab, own, tls, gates, suites, generators, unsupported };

enum class takes {
    nothing,  // a switch: given again under any of its names it changes nothing (a second mode is refused)
    value,    // one value: given twice, or with another flag that sets the same, it is refused
    values    // each use adds one (-H, -C)
};

struct option_spec;
using apply_fn = parse_outcome (*)(options& o, const std::string& flag, const std::string& value);

struct option_spec {
    char short_name;        // 0: none
    const char* long_name;  // nullptr: none; "max-pNN-ms" stands for every --max-p<percentile>-ms
    const char* sets;       // what it sets, when flags share it ("-p" for -p and -u); nullptr: its own name
    takes arg;
    unsigned modes;
    section part;
    const char* shown;      // --help-all's left column: "-n requests", "-W N, --threads N"
    const char* help;       // --help-all's text; "\n" starts a line in the same column
    apply_fn apply;
};

inline std::string long_usage();

// The gate option: --max-p<percentile>-ms, one option for every percentile.
inline bool is_gate(const option_spec& spec) { return spec.long_name && std::strcmp(spec.long_name, "max-pNN-ms") == 0; }

// The percentile a gate flag names ("--max-p99.9-ms" -> 99.9), or false.
inline bool gate_percentile(const std::string& flag, double& p) {
    std::vector<double> one;
    if (flag.size() < 11 || !mb::parse_percentile_list(flag.substr(7, flag.size() - 10), one) || one.size() != 1) return false;
    p = one[0];
    return true;
}


// --suite, --compare, --self-test: one mode per run.
inline parse_outcome set_mode(options& o, const std::string& flag, options::mode m) {
    if (o.run_mode != options::mode::single && o.run_mode != m)
        return usage_errorf("%s: --suite, --compare and --self-test are separate modes; give one", flag.c_str());
    o.run_mode = m;
    return {};
}

// --start-at T (Unix seconds) or --start-in S (from now): from a day ago to 7 days ahead. A start
// more than a day past is a mistake (a time in ms, a stale script), not a start "at once".
inline parse_outcome set_start(options& o, const std::string& flag, const std::string& v) {
    double s = -1;
    const bool number = mb::detail::parse_real(v, s);
    const double now_ms = static_cast<double>(mb::realtime_ns() / 1'000'000);
    const double at_ms = flag == "--start-at" ? s * 1000 : now_ms + s * 1000;
    constexpr double day_ms = 24 * 3'600'000.0;
    if (!number || s < 0 || at_ms < now_ms - day_ms || at_ms > now_ms + static_cast<double>(mb::defaults::max_start_ahead_ms))
        return bad_value(flag == "--start-at" ? "--start-at needs a Unix time in seconds, from a day ago to 7 days ahead"
                                              : range_rule("--start-in", 0, mb::defaults::max_start_ahead_ms / 1000, " seconds"), v);
    o.start_at_unix_ms = std::max<std::int64_t>(1, static_cast<std::int64_t>(at_ms));
    return {};
}

// -p FILE (POST) and -u FILE (PUT).
inline parse_outcome set_body(options& o, const std::string& flag, const std::string& v) {
    if (!read_file(v.c_str(), o.body)) return usage_errorf("cannot read %s file '%s': %s", flag.c_str(), shown(v).c_str(), std::strerror(errno));
    o.method = flag == "-p" ? "POST" : "PUT";
    o.sent_body = true;
    return {};
}

// ab's flags microbench does not have: one line saying so (and what to use instead).
inline parse_outcome refuse_proxy(options&, const std::string& flag, const std::string&) {
    return usage_errorf("%s (proxy) is not supported", flag.c_str());
}
inline parse_outcome refuse_html(options&, const std::string& flag, const std::string&) {
    return usage_errorf("%s (HTML output) is not supported: --html FILE writes microbench's report", flag.c_str());
}

// -f PROTOCOL: ab's names for one protocol version, or ALL.
inline parse_outcome set_tls_protocol(options& o, const std::string&, const std::string& v) {
    const std::pair<const char*, std::uint16_t> names[] = {{"ALL", 0}, {"TLS1", 0x0301}, {"TLS1.1", 0x0302}, {"TLS1.2", 0x0303}, {"TLS1.3", 0x0304}};
    for (const auto& n : names)
        if (mb::detail::iequals(v, n.first)) {
            o.tls.version = n.second;
            return {};
        }
    if (mb::detail::iequals(v, "SSL2") || mb::detail::iequals(v, "SSL3")) return bad_value("-f: SSL 2 and 3 are gone from OpenSSL 3; use TLS1.2 or TLS1.3", v);
    return bad_value("-f needs a protocol: TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL", v);
}

// The reason a mode gives for not reading a flag.
inline const char* unread_in(options::mode m) {
    switch (m) {
        case options::mode::single: return nullptr;
        case options::mode::suite: return "does not apply to --suite: its scenarios set their own -n, -c, -k and the rest";
        case options::mode::compare: return "does not apply to --compare: it prints the comparison table (and --json, --html) only";
        case options::mode::self_test: return "does not apply to --self-test: it runs its own suite against the built-in server";
    }
    return nullptr;
}

constexpr unsigned workload = in_single | in_compare;                // what a plan is made of
constexpr unsigned everywhere = in_all;
constexpr unsigned suite_too = in_single | in_suite | in_compare;   // the suite reads it as well
constexpr unsigned gated = in_single | in_suite | in_compare;       // the gates: not the self-test's

// clang-format off
// The options, in --help-all's order within each section: a constant array, no code builds it.
struct option_list {
    const option_spec* first;
    std::size_t count;
    const option_spec* begin() const { return first; }
    const option_spec* end() const { return first + count; }
};

inline option_list option_table() {
    static constexpr option_spec table[] = {
        {'n', nullptr, nullptr, takes::value, workload, section::ab, "-n requests", "Number of requests to perform (default 1).",
         [](options& o, const std::string&, const std::string& v) {
             std::uint64_t n = 0;
             if (!parse_uint(v.c_str(), 1, 1'000'000'000'000ULL, n)) return bad_value("-n must be a number of requests from 1", v);
             o.requests = n;
             o.requests_given = true;
             return parse_outcome{};
         }},
        {'c', nullptr, nullptr, takes::value, workload, section::ab, "-c concurrency",
         "Number of connections kept busy at once (default 1); at most -n.",
         [](options& o, const std::string&, const std::string& v) {
             std::uint64_t n = 0;
             if (!parse_uint(v.c_str(), 1, mb::defaults::max_concurrency, n))
                 return bad_value(range_rule("-c", 1, mb::defaults::max_concurrency, " connections"), v);
             o.concurrency = static_cast<std::uint32_t>(n);
             return parse_outcome{};
         }},
        {'t', nullptr, nullptr, takes::value, workload, section::ab, "-t timelimit",
         "Seconds to run. Unlike ab there is no implied 50000-request cap; with -n too,\n"
         "whichever limit comes first ends the run.",
         [](options& o, const std::string&, const std::string& v) {
             std::uint64_t n = 0;
             if (!parse_uint(v.c_str(), 1, mb::defaults::max_duration_ms / 1000, n))
                 return bad_value(range_rule("-t", 1, mb::defaults::max_duration_ms / 1000, " seconds (30 days)"), v);
             o.duration_ms = static_cast<std::int64_t>(n) * 1000;
             o.duration_given = true;
             return parse_outcome{};
         }},
        {'s', nullptr, nullptr, takes::value, suite_too, section::ab, "-s timeout",
         "Seconds before a request times out (default 30). The request is counted as\n"
         "failed (timeout) and the run goes on.",
         [](options& o, const std::string&, const std::string& v) {
             std::uint64_t n = 0;
             if (!parse_uint(v.c_str(), 1, mb::defaults::max_timeout_ms / 1000, n))
                 return bad_value(range_rule("-s", 1, mb::defaults::max_timeout_ms / 1000, " seconds"), v);
             o.timeout_ms = static_cast<std::int64_t>(n) * 1000;
             return parse_outcome{};
         }},
        {'k', nullptr, nullptr, takes::nothing, workload, section::ab, "-k",
         "Use HTTP keep-alive (HTTP/1.1, works with chunked bodies and without a\nKeep-Alive response header).",
         [](options& o, const std::string&, const std::string&) {
             o.keep_alive = true;
             return parse_outcome{};
         }},
        {'H', nullptr, nullptr, takes::values, suite_too, section::ab, "-H 'Name: value'",
         "Add a header; one named like a default (Host, User-Agent, Accept) replaces it.",
         [](options& o, const std::string&, const std::string& v) {
             mb::header h;
             if (mb::parse_header_line(v, h)) return bad_value("-H needs 'Name: value'", v);
             o.headers.push_back(h);
             return parse_outcome{};
         }},
        {'C', nullptr, nullptr, takes::values, suite_too, section::ab, "-C name=value", "Add a Cookie header (repeatable).",
         [](options& o, const std::string&, const std::string& v) {
             o.headers.push_back({"Cookie", v});
             return parse_outcome{};
         }},
        {'A', nullptr, nullptr, takes::value, suite_too, section::ab, "-A user:pass", "Add Basic authentication.",
         [](options& o, const std::string&, const std::string& v) {
             if (v.find(':') == std::string::npos) return usage_error("-A needs user:password");
             std::string encoded;
             mb::base64_encode(v, encoded);
             o.headers.push_back({"Authorization", "Basic " + encoded});
             return parse_outcome{};
         }},
        {'p', nullptr, nullptr, takes::value, workload, section::ab, "-p file", "POST the file's contents.",
         [](options& o, const std::string& flag, const std::string& v) { return set_body(o, flag, v); }},
        {'u', nullptr, "-p", takes::value, workload, section::ab, "-u file", "PUT the file's contents.",
         [](options& o, const std::string& flag, const std::string& v) { return set_body(o, flag, v); }},
        {'T', nullptr, nullptr, takes::value, workload, section::ab, "-T content-type", "Content-Type of the body (default text/plain).",
         [](options& o, const std::string&, const std::string& v) {
             o.content_type = v;
             return parse_outcome{};
         }},
        {'m', nullptr, nullptr, takes::value, workload, section::ab, "-m method", "Use this method.",
         [](options& o, const std::string&, const std::string& v) {
             o.method = v;
             return parse_outcome{};
         }},
        {'i', nullptr, "-m", takes::nothing, workload, section::ab, "-i", "Use HEAD.",
         [](options& o, const std::string&, const std::string&) {
             o.method = "HEAD";
             o.head_given = true;
             return parse_outcome{};
         }},
        {'B', nullptr, nullptr, takes::value, workload, section::ab, "-B address",
         "Local address(es) to connect from: one, a list (10.0.0.5,10.0.0.6) or an IPv4\n"
         "range (127.0.0.2-127.0.0.9); connections take them in turn, each with its own\n"
         "~28,000 ports per target (IP_BIND_ADDRESS_NO_PORT).",
         [](options& o, const std::string&, const std::string& v) {
             if (v.empty()) return usage_error("-B needs an address, a list or a range");
             o.bind_address = v;
             return parse_outcome{};
         }},
        {'b', nullptr, nullptr, takes::value, workload, section::ab, "-b windowsize", "Size of the TCP send/receive buffers, in bytes.",
         [](options& o, const std::string&, const std::string& v) {
             std::uint64_t n = 0;
             if (!parse_uint(v.c_str(), 512, mb::defaults::max_socket_buffer_bytes, n))
                 return bad_value(range_rule("-b", 512, mb::defaults::max_socket_buffer_bytes, " bytes"), v);
             o.socket_buffer_bytes = static_cast<std::uint32_t>(n);
             return parse_outcome{};
         }},
        {'e', nullptr, nullptr, takes::value, in_single, section::ab, "-e file",
         "Write ab's CSV: percentage served (0-100) and time in ms (- for stdout).",
         [](options& o, const std::string&, const std::string& v) {
             if (v.empty()) return usage_error("-e needs a file name");
             o.csv_path = v;
             return parse_outcome{};
         }},
        {'g', nullptr, nullptr, takes::value, in_single, section::ab, "-g file",
         "Write ab's gnuplot TSV, a row per request (with -t alone: the first 1000000; - for stdout).",
         [](options& o, const std::string&, const std::string& v) {
             if (v.empty()) return usage_error("-g needs a file name");
             o.gnuplot_path = v;
             return parse_outcome{};
         }},
        {'l', nullptr, nullptr, takes::nothing, workload, section::ab, "-l", "Accept responses of varying length (no Length failures).",
         [](options& o, const std::string&, const std::string&) {
             o.length_check = false;
             return parse_outcome{};
         }},
        {'r', nullptr, nullptr, takes::nothing, everywhere, section::ab, "-r", "Accepted for compatibility: microbench never stops on errors.",
         [](options&, const std::string&, const std::string&) { return parse_outcome{}; }},
        {'q', nullptr, nullptr, takes::nothing, everywhere, section::ab, "-q", "No progress output.",
         [](options& o, const std::string&, const std::string&) {
             o.quiet = true;
             return parse_outcome{};
         }},
        {'S', nullptr, nullptr, takes::nothing, in_single, section::ab, "-S", "Short connection table.",
         [](options& o, const std::string&, const std::string&) {
             o.short_table = true;
             return parse_outcome{};
         }},
        {'d', nullptr, nullptr, takes::nothing, in_single, section::ab, "-d", "No percentile table.",
         [](options& o, const std::string&, const std::string&) {
             o.no_percentiles = true;
             return parse_outcome{};
         }},
        {'v', nullptr, nullptr, takes::value, in_single, section::ab, "-v level",
         "2 or more: print the request sent, as ab's \"INFO: GET header ==\" block. ab's lines\n"
         "per response (at 2: LOG: header received, WARNING: Response code not 2xx; from 3:\n"
         "LOG: Response code =) are not printed: status codes are counted instead (in the\n"
         "JSON), and microbench-inspect shows how one response is read.",
         [](options& o, const std::string&, const std::string& v) {
             std::uint64_t n = 0;
             if (!parse_uint(v.c_str(), 0, 5, n)) return bad_value("-v must be a verbosity from 0 to 5", v);
             o.verbosity = static_cast<int>(n);
             return parse_outcome{};
         }},
        {'V', nullptr, nullptr, takes::nothing, everywhere, section::ab, "-V", "Print the version, as ab does.",
         [](options&, const std::string&, const std::string&) {
             std::printf("microbench %s (ab-compatible)\n", mb::version_string);
             return parse_outcome{true, 0};
         }},
        {'h', "help", nullptr, takes::nothing, everywhere, section::ab, "-h, --help", "Print the short usage.",
         [](options&, const std::string&, const std::string&) {
             std::fputs(short_usage(), stdout);
             return parse_outcome{true, 0};
         }},

        {0, "version", nullptr, takes::nothing, everywhere, section::own, "--version", "Print the version alone.",
         [](options&, const std::string&, const std::string&) {
             std::printf("microbench %s\n", mb::version_string);
             return parse_outcome{true, 0};
         }},
        {'W', "threads", nullptr, takes::value, suite_too, section::own, "-W N, --threads N",
         "Worker threads, each with its own epoll loop (default 1).",
         [](options& o, const std::string& flag, const std::string& v) {
             std::uint64_t n = 0;
             if (!parse_uint(v.c_str(), 1, mb::defaults::max_threads, n))
                 return bad_value(range_rule(flag.c_str(), 1, mb::defaults::max_threads, flag == "-W" ? " threads" : ""), v);
             o.threads = static_cast<std::uint32_t>(n);
             return parse_outcome{};
         }},
        {0, "duration", "-t", takes::value, workload, section::own, "--duration D",
         "Like -t, with units: 500ms, 10s, 2m (a plain number is seconds).",
         [](options& o, const std::string&, const std::string& v) {
             if (!parse_duration_ms(v.c_str(), o.duration_ms) || o.duration_ms > mb::defaults::max_duration_ms)
                 return bad_value("--duration must be like 500ms, 10s or 2m, at most 30 days", v);
             o.duration_given = true;
             return parse_outcome{};
         }},
        {0, "pipeline", nullptr, takes::value, workload, section::own, "--pipeline N",
         "Requests in flight per connection (needs -k; default 1).",
         [](options& o, const std::string&, const std::string& v) {
             std::uint64_t n = 0;
             if (!parse_uint(v.c_str(), 1, mb::defaults::max_pipeline, n)) return bad_value(range_rule("--pipeline", 1, mb::defaults::max_pipeline), v);
             o.pipeline = static_cast<std::uint32_t>(n);
             return parse_outcome{};
         }},
        {0, "timeout-ms", "-s", takes::value, suite_too, section::own, "--timeout-ms N", "Request timeout in milliseconds.",
         [](options& o, const std::string&, const std::string& v) {
             std::uint64_t n = 0;
             if (!parse_uint(v.c_str(), 1, mb::defaults::max_timeout_ms, n)) return bad_value(range_rule("--timeout-ms", 1, mb::defaults::max_timeout_ms), v);
             o.timeout_ms = static_cast<std::int64_t>(n);
             return parse_outcome{};
         }},
        {0, "json", nullptr, takes::value, everywhere, section::own, "--json FILE|-",
         "Write the whole result as JSON (- = stdout, instead of the report).",
         [](options& o, const std::string&, const std::string& v) {
             if (v.empty()) return usage_error("--json needs a file name, or - for stdout");
             o.json_path = v;
             return parse_outcome{};
         }},
        {0, "hgrm", nullptr, takes::value, in_single, section::own, "--hgrm FILE|-",
         "Write the percentile spectrum as HdrHistogram's .hgrm text in ms (what\n"
         "HdrHistogram_c's hdr_percentiles_print prints; its plotter reads it): the total\n"
         "time; at a fixed rate the response time, and the service time in FILE with\n"
         ".service before its extension (- = stdout: both, each after a title line).",
         [](options& o, const std::string&, const std::string& v) {
             if (v.empty()) return usage_error("--hgrm needs a file name, or - for stdout");
             o.hgrm_path = v;
             return parse_outcome{};
         }},
        {0, "hlog", nullptr, takes::value, in_single, section::own, "--hlog FILE|-",
         "Write HdrHistogram's interval log (format 1.3; its log processor, plotter\n"
         "and libraries read it), a row per metric as each interval closes: Tag=total;\n"
         "at a fixed rate Tag=response, Tag=service and Tag=schedule_lag (ns; 1s\n"
         "intervals unless --interval says).",
         [](options& o, const std::string&, const std::string& v) {
             if (v.empty()) return usage_error("--hlog needs a file name, or - for stdout");
             o.hlog_path = v;
             return parse_outcome{};
         }},
        {0, "interval-histograms", nullptr, takes::nothing, in_single, section::own, "--interval-histograms",
         "Keep each interval's histograms in --json (1s intervals unless --interval\n"
         "says): microbench merge then gives merged intervals exact percentiles, and\n"
         "microbench-hlog --from RESULT.json writes them as HdrHistogram's log.",
         [](options& o, const std::string&, const std::string&) {
             o.interval_histograms = true;
             return parse_outcome{};
         }},
        {0, "html", nullptr, takes::value, everywhere, section::own, "--html FILE",
         "Write the report as one self-contained HTML file (inline SVG charts, no\n"
         "script or link): latency by percentile, throughput and response time over\n"
         "time, the summary, failures, status codes, checks and the configuration.\n"
         "Every mode has it; --compare and --suite draw A and B together.",
         [](options& o, const std::string&, const std::string& v) {
             if (v.empty() || v == "-") return usage_error("--html needs a file name");
             o.html_path = v;
             return parse_outcome{};
         }},
        {0, "latency", nullptr, takes::nothing, in_single, section::own, "--latency",
         "Add a latency section in microseconds (exact min/mean/max).",
         [](options& o, const std::string&, const std::string&) {
             o.latency = true;
             return parse_outcome{};
         }},
        {0, "rate", nullptr, takes::value, workload, section::own, "--rate R",
         "Send R requests per second on a fixed schedule (the open model), with at\n"
         "most -c in flight. Adds response time (from the intended send time: what a\n"
         "user in line sees), service time and schedule lag, and says when the\n"
         "generator could not hold the rate. Not with --pipeline.",
         [](options& o, const std::string&, const std::string& v) {
             double d = 0;
             if (!mb::detail::parse_real(v, d) || !(d >= mb::defaults::min_rate && d <= mb::defaults::max_rate))
                 return bad_value("--rate needs requests per second from 0.001 to 10000000", v);
             o.rate = d;
             return parse_outcome{};
         }},
        {0, "arrivals", nullptr, takes::value, workload, section::own, "--arrivals KIND",
         "At a fixed rate: uniform (the default: evenly spaced) or poisson (independent\n"
         "arrivals, exponential gaps averaging 1/R, as many users acting alone).",
         [](options& o, const std::string&, const std::string& v) {
             if (v != "poisson" && v != "uniform") return bad_value("--arrivals knows 'uniform' and 'poisson'", v);
             o.poisson = v == "poisson";
             return parse_outcome{};
         }},
        {0, "seed", nullptr, takes::value, workload, section::own, "--seed S",
         "Seed of the Poisson arrivals (default 0): the same seed, the same schedule.",
         [](options& o, const std::string&, const std::string& v) {
             if (!parse_uint(v.c_str(), 0, UINT64_MAX, o.seed)) return bad_value("--seed needs a number from 0 to 18446744073709551615", v);
             o.seed_given = true;
             return parse_outcome{};
         }},
        {0, "max-batch-lag", nullptr, takes::value, workload, section::own, "--max-batch-lag US",
         "At a fixed rate: send a request up to US microseconds late (0 to 10000) when\n"
         "one wake of its thread can then send it with the requests due after it; each\n"
         "is still timed from its own intended time. Fewer wakes, less client CPU; lag\n"
         "grows by at most US. Default 50.",
         [](options& o, const std::string&, const std::string& v) {
             std::uint64_t n = 0;
             if (!parse_uint(v.c_str(), 0, mb::defaults::batch_lag_limit_us, n))
                 return bad_value(range_rule("--max-batch-lag", 0, mb::defaults::batch_lag_limit_us), v);
             o.max_batch_lag_us = static_cast<std::int64_t>(n);
             return parse_outcome{};
         }},
        {0, "interval", nullptr, takes::value, workload, section::own, "--interval D",
         "Statistics per interval of D (10ms to 1h; 0 for none): requests sent and\n"
         "ended, failures, achieved rate, p50/p90/p99/max response time (and schedule\n"
         "lag at a fixed rate). Default 1s with --rate, --intervals, --hlog or\n"
         "--interval-histograms, else none. In --json as \"intervals\"; a summary in\n"
         "the report. Memory: a small row per interval (and its histograms, a few KB,\n"
         "with --interval-histograms).",
         [](options& o, const std::string&, const std::string& v) {
             if (v == "0" || v == "off") o.interval_ms = 0;
             else if (!parse_duration_ms(v.c_str(), o.interval_ms) || o.interval_ms < mb::defaults::min_interval_ms ||
                      o.interval_ms > mb::defaults::max_interval_ms)
                 return bad_value("--interval must be from 10ms to 1h (like 250ms, 1s, 1m), or 0 for none", v);
             return parse_outcome{};
         }},
        {0, "intervals", nullptr, takes::value, in_single, section::own, "--intervals FILE|-",
         "Write the intervals as CSV, a row as each one closes (tail -f works); - for\n"
         "stdout, instead of the report.",
         [](options& o, const std::string&, const std::string& v) {
             if (v.empty()) return usage_error("--intervals needs a file name");
             o.intervals_path = v;
             return parse_outcome{};
         }},
        {0, "percentiles", nullptr, takes::value, suite_too, section::own, "--percentiles LIST",
         "Percentiles for --latency and --json (default 50,90,99,99.9,99.99).",
         [](options& o, const std::string&, const std::string& v) {
             if (!mb::parse_percentile_list(v, o.percentiles)) return bad_value("--percentiles needs numbers from 0 to 100 separated by commas", v);
             return parse_outcome{};
         }},
        {0, "expect-status", nullptr, takes::value, workload, section::own, "--expect-status LIST",
         "Only these statuses succeed; others fail with reason 'check'.",
         [](options& o, const std::string&, const std::string& v) {
             for (std::size_t at = 0; at <= v.size();) {
                 const std::size_t comma = v.find(',', at);
                 std::uint64_t n = 0;
                 if (!parse_uint(v.substr(at, comma == std::string::npos ? std::string::npos : comma - at).c_str(), 100, 999, n))
                     return bad_value("--expect-status needs status codes (100-999) separated by commas", v);
                 o.expect_status.push_back(static_cast<int>(n));
                 if (comma == std::string::npos) break;
                 at = comma + 1;
             }
             return parse_outcome{};
         }},
        {0, "no-length-check", "-l", takes::nothing, workload, section::own, "--no-length-check", "Same as -l.",
         [](options& o, const std::string&, const std::string&) {
             o.length_check = false;
             return parse_outcome{};
         }},
        {0, "expect-body", nullptr, takes::value, workload, section::own, "--expect-body FILE",
         "The body must equal the file's contents (else: failure 'check').",
         [](options& o, const std::string&, const std::string& v) {
             if (!read_file(v.c_str(), o.expect_body))
                 return usage_errorf("cannot read --expect-body file '%s': %s", shown(v).c_str(), std::strerror(errno));
             o.expect_body_path = v;
             return parse_outcome{};
         }},
        {0, "check", nullptr, takes::value, suite_too, section::own, "--check factorial",
         "The body must be exactly n! for /factorial/{n} or /factorial?n=N,\nas text or as JSON {\"factorial\": n!} with any whitespace.",
         [](options& o, const std::string&, const std::string& v) {
             if (v != "factorial") return bad_value("--check knows 'factorial'", v);
             o.check_factorial = true;
             return parse_outcome{};
         }},

        {'f', nullptr, nullptr, takes::value, suite_too, section::tls, "-f protocol",
         "Speak only this TLS version: TLS1, TLS1.1, TLS1.2, TLS1.3, or ALL (the default).", set_tls_protocol},
        {'Z', nullptr, nullptr, takes::value, suite_too, section::tls, "-Z ciphers",
         "OpenSSL cipher names (ab -Z); TLS_* names choose TLS 1.3's suites.",
         [](options& o, const std::string&, const std::string& v) {
             if (v.empty()) return bad_value("-Z needs cipher names", v);
             o.tls.ciphers = v;
             return parse_outcome{};
         }},
        {'E', nullptr, nullptr, takes::value, suite_too, section::tls, "-E certfile",
         "Client certificate chain and its private key, in one PEM file.",
         [](options& o, const std::string&, const std::string& v) {
             std::string pem;
             if (!read_file(v.c_str(), pem)) return usage_errorf("cannot read -E file '%s': %s", shown(v).c_str(), std::strerror(errno));
             o.tls.certificate_file = v;
             return parse_outcome{};
         }},
        {'I', nullptr, nullptr, takes::nothing, suite_too, section::tls, "-I", "Send no server name (SNI); none is sent for an IP address anyway.",
         [](options& o, const std::string&, const std::string&) {
             o.tls.server_name = false;
             return parse_outcome{};
         }},
        {0, "verify", nullptr, takes::nothing, suite_too, section::tls, "--verify",
         "Check the server's certificate and that it names the host (off by default,\n"
         "as in ab, wrk and h2load); a refusal is a `tls` failure with its reason.",
         [](options& o, const std::string&, const std::string&) {
             o.tls.verify = true;
             return parse_outcome{};
         }},
        {0, "cacert", nullptr, takes::value, suite_too, section::tls, "--cacert FILE",
         "Trust the authorities in this PEM file instead of the system's (implies --verify).",
         [](options& o, const std::string&, const std::string& v) {
             std::string pem;
             if (!read_file(v.c_str(), pem)) return usage_errorf("cannot read --cacert file '%s': %s", shown(v).c_str(), std::strerror(errno));
             o.tls.ca_file = v;
             o.tls.verify = true;
             return parse_outcome{};
         }},
        {0, "tls-resume", nullptr, takes::nothing, suite_too, section::tls, "--tls-resume",
         "Resume each thread's last TLS session on a new connection; by default\n"
         "each connection makes a full handshake, as in ab.",
         [](options& o, const std::string&, const std::string&) {
             o.tls.resume = true;
             return parse_outcome{};
         }},

        {0, "max-failures", nullptr, takes::value, gated, section::gates, "--max-failures N", "At most N failed requests.",
         [](options& o, const std::string&, const std::string& v) {
             if (!parse_uint(v.c_str(), 0, UINT64_MAX, o.limits.max_failures)) return bad_value("--max-failures needs a count", v);
             return parse_outcome{};
         }},
        {0, "max-pNN-ms", nullptr, takes::value, gated, section::gates, "--max-pNN-ms X",
         "Total time percentile NN (e.g. p99, p99.9, p50) at most X ms.",
         [](options& o, const std::string& flag, const std::string& v) {
             double p = 0, limit = 0;
             if (!gate_percentile(flag, p)) return usage_errorf("unknown option %s (write --max-p99-ms X)", flag.c_str());
             if (!mb::detail::parse_real(v, limit) || !(limit > 0))
                 return usage_errorf("%s needs a positive number of milliseconds, not '%s'", flag.c_str(), shown(v).c_str());
             o.limits.max_percentile_ms.push_back({p, limit});
             return parse_outcome{};
         }},
        {0, "min-rps", nullptr, takes::value, gated, section::gates, "--min-rps R", "At least R requests per second.",
         [](options& o, const std::string&, const std::string& v) {
             if (!mb::detail::parse_real(v, o.limits.min_rps) || !(o.limits.min_rps > 0))
                 return usage_errorf("--min-rps needs a positive number, not '%s'", shown(v).c_str());
             return parse_outcome{};
         }},

        {0, "suite", nullptr, takes::nothing, everywhere, section::suites, "--suite URL [URL_B]",
         "The five scenarios of the classic comparison: basic load (-n 10000 -c 100),\n"
         "latency (-n 1000 -c 1), failure rate (-n 10000 -c 10), keep-alive\n"
         "(-n 10000 -c 10 -k), stress (-n 50000 -c 200); one table (and --json).\n"
         "With URL_B, both targets side by side with ratios.",
         [](options& o, const std::string& flag, const std::string&) { return set_mode(o, flag, options::mode::suite); }},
        {0, "scale", nullptr, takes::value, in_suite | in_self_test, section::suites, "--scale F",
         "Multiply every suite request count by F (e.g. 0.1 on a small device).",
         [](options& o, const std::string&, const std::string& v) {
             if (!mb::detail::parse_real(v, o.scale) || !(o.scale > 0) || o.scale > 100)
                 return usage_errorf("--scale needs a positive number, not '%s'", shown(v).c_str());
             o.scale_given = true;
             return parse_outcome{};
         }},
        {0, "compare", nullptr, takes::nothing, everywhere, section::suites, "--compare URL_A URL_B",
         "The workload given by the other flags against both, in alternating\n"
         "rounds (--rounds N, default 3; the median round by requests/s is shown).",
         [](options& o, const std::string& flag, const std::string&) { return set_mode(o, flag, options::mode::compare); }},
        {0, "rounds", nullptr, takes::value, in_compare, section::suites, "--rounds N", "Rounds of --compare (1 to 100; default 3).",
         [](options& o, const std::string&, const std::string& v) {
             std::uint64_t n = 0;
             if (!parse_uint(v.c_str(), 1, 100, n)) return bad_value("--rounds must be from 1 to 100", v);
             o.rounds = static_cast<std::uint32_t>(n);
             return parse_outcome{};
         }},
        {0, "self-test", nullptr, takes::nothing, everywhere, section::suites, "--self-test",
         "Start the built-in server and run the suite (scale 0.25, or --scale)\n"
         "against /factorial/100 and /factorial?n=100 with the factorial check;\n"
         "exit 0 only if every request passed.",
         [](options& o, const std::string& flag, const std::string&) { return set_mode(o, flag, options::mode::self_test); }},
        {0, "help-all", nullptr, takes::nothing, everywhere, section::suites, "--help-all", "This text.",
         [](options&, const std::string&, const std::string&) {
             std::fputs(long_usage().c_str(), stdout);
             return parse_outcome{true, 0};
         }},

        {0, "shard", nullptr, takes::value, in_single, section::generators, "--shard I/N",
         "Be shard I (from 0) of N generators: take 1/N of -n, -c and --rate (the first\n"
         "shards one more request or connection when they do not divide); fixed-rate\n"
         "schedules and Poisson seeds interleave across shards. Without the flag, the\n"
         "environment's JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) and\n"
         "MICROBENCH_SHARDS (N) give it. The --json says which shard it was.",
         [](options& o, const std::string&, const std::string& v) {
             if (!parse_shard(v, o.shard_index, o.shard_count))
                 return bad_value("--shard needs I/N: shard I (from 0) of N generators, N from 1 to " + std::to_string(mb::defaults::max_shards), v);
             return parse_outcome{};
         }},
        {0, "start-at", nullptr, takes::value, in_single, section::generators, "--start-at T",
         "Start at Unix time T (seconds, fractions allowed), so generators on several\n"
         "machines begin together; connects nothing before. A time up to a day past\n"
         "starts at once; one further back is refused.",
         [](options& o, const std::string& flag, const std::string& v) { return set_start(o, flag, v); }},
        {0, "start-in", "--start-at", takes::value, in_single, section::generators, "--start-in S", "Start S seconds from now.",
         [](options& o, const std::string& flag, const std::string& v) { return set_start(o, flag, v); }},
        {0, "check-args", nullptr, takes::nothing, everywhere, section::generators, "--check-args",
         "Check the arguments (URL, flags, shard, -B's addresses) and exit 0 if they\nare valid; run nothing.",
         [](options& o, const std::string&, const std::string&) {
             o.check_args = true;
             return parse_outcome{};
         }},

        {'X', nullptr, nullptr, takes::value, everywhere, section::unsupported, "-X proxy:port, -P user:pass", "(proxy)", refuse_proxy},
        {'P', nullptr, nullptr, takes::value, everywhere, section::unsupported, nullptr, nullptr, refuse_proxy},
        {'w', nullptr, nullptr, takes::nothing, everywhere, section::unsupported, "-w, -x, -y, -z",
         "(ab's HTML tables: --html FILE writes microbench's report)", refuse_html},
        {'x', nullptr, nullptr, takes::nothing, everywhere, section::unsupported, nullptr, nullptr, refuse_html},
        {'y', nullptr, nullptr, takes::nothing, everywhere, section::unsupported, nullptr, nullptr, refuse_html},
        {'z', nullptr, nullptr, takes::nothing, everywhere, section::unsupported, nullptr, nullptr, refuse_html},
    };
    return {table, sizeof table / sizeof table[0]};
}
// clang-format on

// The option a long flag names (without its "--" and "=value"): every --max-p<percentile>-ms is
// the gate "max-pNN-ms". Null when none does.
inline const option_spec* find_long(const std::string& name) {
    const bool gate = name.size() > 7 && name.compare(0, 5, "max-p") == 0 && name.compare(name.size() - 3, 3, "-ms") == 0;
    for (const option_spec& spec : option_table())
        if (spec.long_name && (gate ? is_gate(spec) : name == spec.long_name)) return &spec;
    return nullptr;
}

inline const option_spec* find_short(char c) {
    for (const option_spec& spec : option_table())
        if (spec.short_name == c) return &spec;
    return nullptr;
}

// A flag as given: the setting it changes (shared by -p and -u, -t and --duration, …; each
// --max-pNN-ms its own), its spelling and its option.
struct given_flag {
    std::string setting, typed;
    const option_spec* spec;
};

// Applies `spec` as `typed` with `value`, unless the setting was given already: again, or under
// another name (switches may repeat; -H and -C add).
inline parse_outcome apply_flag(options& o, std::vector<given_flag>& given, const option_spec& spec, const std::string& typed,
                                const std::string& value) {
    const std::string setting = spec.sets ? spec.sets : is_gate(spec) ? typed
                              : spec.short_name ? std::string("-") + spec.short_name : std::string("--") + spec.long_name;
    for (const given_flag& g : given) {
        if (g.setting != setting) continue;
        if (g.spec->arg == takes::nothing && spec.arg == takes::nothing) return spec.apply(o, typed, value);
        if (spec.arg == takes::values && g.typed == typed) break;
        return usage_error(g.typed == typed ? typed + " is given twice: give it once" : g.typed + " and " + typed + " set the same thing: give one");
    }
    given.push_back({setting, typed, &spec});
    return spec.apply(o, typed, value);
}

// "--suite and --self-test": the modes that read an option, for a single run's refusal.
inline std::string modes_reading(unsigned modes) {
    std::string out;
    const std::pair<unsigned, const char*> names[] = {{in_suite, "--suite"}, {in_compare, "--compare"}, {in_self_test, "--self-test"}};
    for (const auto& n : names)
        if (modes & n.first) out += (out.empty() ? "" : " and ") + std::string(n.second);
    return out;
}

// After every flag: what the mode does not read, and the combinations no run can make.
inline parse_outcome check_combination(options& o, const std::vector<given_flag>& given) {
    const bool two_allowed = o.run_mode == options::mode::suite || o.run_mode == options::mode::compare;
    if (!o.url_b.empty() && !two_allowed) return usage_errorf("more than one URL: '%s' and '%s'", shown(o.url_text).c_str(), shown(o.url_b).c_str());
    if (o.run_mode == options::mode::compare && o.url_b.empty()) return usage_error("--compare needs two URLs");
    if (!o.intervals_path.empty() && o.run_mode != options::mode::single) return usage_error("--intervals is for a single run, not --suite, --compare or --self-test");
    if (!o.shard_count) {  // a Kubernetes Indexed Job's pod: its index, and the total the job says
        const char* index = std::getenv("JOB_COMPLETION_INDEX");
        const char* total = std::getenv("MICROBENCH_SHARDS");
        if (index && total && !parse_shard(std::string(index) + "/" + total, o.shard_index, o.shard_count))
            return usage_errorf("JOB_COMPLETION_INDEX=%s and MICROBENCH_SHARDS=%s do not make a shard I/N", shown(index).c_str(), shown(total).c_str());
    }
    if ((o.shard_count || o.start_at_unix_ms) && o.run_mode != options::mode::single)
        return usage_error("--shard, --start-at and --start-in are for a single run, not --suite, --compare or --self-test");
    for (const given_flag& g : given) {
        if (g.spec->modes & bit_of(o.run_mode)) continue;
        if (o.run_mode == options::mode::single) return usage_errorf("%s is for %s", g.typed.c_str(), modes_reading(g.spec->modes).c_str());
        return usage_errorf("%s %s", g.typed.c_str(), unread_in(o.run_mode));
    }
    if (o.run_mode == options::mode::self_test) {
        if (!o.url_text.empty()) return usage_error("--self-test runs against the built-in server: give no URL");
        return {};
    }
    if (o.url_text.empty()) return usage_error("no URL given");
    mb::url second;
    if (!o.url_b.empty()) {
        if (mb::error e = mb::parse_url(o.url_b, second))
            return usage_errorf("bad URL '%s': %s (at byte %zu)", shown(o.url_b).c_str(), e.message(), e.position);
    }
    unsigned factorial_n = 0;
    if (mb::error e = mb::parse_url(o.url_text, o.target))
        return usage_errorf("bad URL '%s': %s (at byte %zu)", shown(o.url_text).c_str(), e.message(), e.position);
    if (o.check_factorial && (!mb::factorial_argument(o.target, factorial_n) || (!o.url_b.empty() && !mb::factorial_argument(second, factorial_n))))
        return usage_error("--check factorial needs /factorial/{n} or /factorial?n=N URLs");
    for (const mb::url* target : {&o.target, &second})  // -B as the run checks it, against each target
        if (!o.bind_address.empty() && !target->host.empty())
            if (mb::source_fault f = bind_fault(o.bind_address, *target)) return usage_error(bind_fault_line(o.bind_address, f));
    if (o.run_mode == options::mode::suite) return {};  // the suite sets its own -n, -c and -k
    if (o.duration_given && !o.requests_given) o.requests = 0;
    if (o.requests && o.concurrency > o.requests)
        return usage_error("cannot use concurrency level greater than total number of requests (-c " + std::to_string(o.concurrency) +
                           " > -n " + std::to_string(o.requests) + ")");
    if (o.threads > o.concurrency) return usage_errorf("more threads (%u) than connections (-c %u)", o.threads, o.concurrency);
    if (o.pipeline > 1 && !o.keep_alive) return usage_error("--pipeline needs keep-alive (-k)");
    if (o.sent_body && (o.head_given || o.method == "HEAD")) return usage_error("-i (HEAD) sends no body: drop -p/-u, or -i");
    if (o.rate > 0 && o.pipeline > 1) return usage_error("--rate sends one request at a time per connection: drop --pipeline");
    if (o.poisson && o.rate == 0) return usage_error("--arrivals poisson needs --rate");
    if (o.seed_given && !o.poisson) return usage_error("--seed is for --arrivals poisson");
    if (o.max_batch_lag_us >= 0 && o.rate == 0) return usage_error("--max-batch-lag is for --rate");
    struct stat st {};
    if (o.rate > 0 && !o.hgrm_path.empty() && o.hgrm_path != "-" && stat(o.hgrm_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        return usage_error("--hgrm at a fixed rate writes FILE and FILE.service: give a file's name (not a device or pipe), or -");
    if (!o.intervals_path.empty() && o.interval_ms == 0) return usage_error("--intervals needs intervals: drop --interval 0");
    if (!o.hlog_path.empty() && o.interval_ms == 0) return usage_error("--hlog needs intervals: drop --interval 0");
    if (o.interval_histograms && o.interval_ms == 0) return usage_error("--interval-histograms needs intervals: drop --interval 0");
    if (o.interval_histograms && o.json_path.empty()) return usage_error("--interval-histograms keeps them in --json: give --json FILE");
    for (const std::string* other : {&o.intervals_path, &o.json_path, &o.hgrm_path, &o.csv_path, &o.gnuplot_path, &o.html_path})
        if (!o.hlog_path.empty() && o.hlog_path != "-" && o.hlog_path == *other)
            return usage_errorf("--hlog and another output both write '%s': give each its own file", shown(o.hlog_path).c_str());
    if (o.stdout_writers() > 1)
        return usage_error("--json -, --intervals -, --hgrm -, --hlog -, -e - and -g - would share stdout: send all but one to files");
    if (o.shard_count) {
        mb::plan whole = to_plan(o.without_shard(), o.url_text);
        if (mb::error e = mb::divide_plan(whole, o.shard_index, o.shard_count); e.code == mb::errc::plan_bad_rate)
            return usage_errorf("--shard %u/%u: each of %u shards would send %g requests/s, below the smallest rate (0.001)", o.shard_index,
                                o.shard_count, o.shard_count, o.rate / o.shard_count);
        else if (e)
            return usage_errorf("--shard %u/%u: each of %u shards needs a connection and a request (-c %u, -n %llu)", o.shard_index,
                                o.shard_count, o.shard_count, o.concurrency, static_cast<unsigned long long>(o.requests));
    }
    std::string request;
    if (mb::error e = mb::build_request(o.target, to_plan(o, o.url_text).request(), request)) return usage_errorf("bad request: %s", e.message());
    return {};
}

// The command line into `o`: flags grouped (-kq) or with attached values (-n10), long options
// with "=value" or the next argument, "--" ending the options; then the checks above.
inline parse_outcome parse(int argc, char** argv, options& o) {
    std::vector<given_flag> given;
    bool options_ended = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--" && !options_ended) {  // what follows are URLs, even those that start with '-'
            options_ended = true;
            continue;
        }
        if (options_ended || arg.size() < 2 || arg[0] != '-') {  // a URL
            if (o.url_text.empty()) o.url_text = arg;
            else if (o.url_b.empty()) o.url_b = arg;
            else return usage_errorf("more than two URLs: '%s'", shown(arg).c_str());
            continue;
        }
        if (arg[1] == '-') {
            const std::size_t eq = arg.find('=');
            const std::string flag = arg.substr(0, eq);
            const option_spec* spec = find_long(flag.substr(2));
            if (!spec) return usage_errorf("unknown option %s", flag.c_str());
            double level = 0;
            if (is_gate(*spec) && !gate_percentile(flag, level)) return usage_errorf("unknown option %s (write --max-p99-ms X)", flag.c_str());
            std::string value;
            if (spec->arg == takes::nothing && eq != std::string::npos) return usage_errorf("%s takes no value", flag.c_str());
            if (spec->arg != takes::nothing) {
                if (eq != std::string::npos) value = arg.substr(eq + 1);
                else if (i + 1 < argc) value = argv[++i];
                else return usage_errorf("option %s needs a value", flag.c_str());
            }
            if (parse_outcome out = apply_flag(o, given, *spec, flag, value); out.exit_now) return out;
            continue;
        }
        for (std::size_t k = 1; k < arg.size(); ++k) {
            const std::string flag = std::string("-") + arg[k];
            const option_spec* spec = find_short(arg[k]);
            if (!spec) return usage_errorf("unknown option %s", flag.c_str());
            std::string value;
            if (spec->arg != takes::nothing) {
                if (k + 1 < arg.size()) value = arg.substr(k + 1);
                else if (i + 1 < argc) value = argv[++i];
                else return usage_errorf("option %s needs a value", flag.c_str());
                k = arg.size();  // the rest of this argument was the value
            }
            if (parse_outcome out = apply_flag(o, given, *spec, flag, value); out.exit_now) return out;
        }
    }
    return check_combination(o, given);
}

// --help-all, from the table: each section's options, the left column 25 wide.
inline std::string long_usage() {
    const std::pair<section, const char*> parts[] = {
        {section::ab, "ab's options, with ab's meaning:"},
        {section::own, "microbench's own options:"},
        {section::tls, "https:// (OpenSSL 3's libssl.so.3, loaded when the first https:// run starts; MICROBENCH_LIBSSL\n"
                       "names another file):"},
        {section::gates, "Gates for CI (a broken gate, or any failed check, exits 3 and says which and by how much; every\n"
                         "verdict goes to stderr, and into the JSON as \"gates\"):"},
        {section::suites, "Suites and comparisons:"},
        {section::generators, "Many generators, one plan:"},
        {section::unsupported, "Not supported, each refused with a clear error:"},
    };
    std::string out = "microbench — an ab-compatible HTTP/1.1 load tester. Usage: microbench [options] http[s]://host[:port]/path\n";
    for (const auto& part : parts) {
        out += "\n" + std::string(part.second) + "\n";
        for (const option_spec& spec : option_table()) {
            if (spec.part != part.first || !spec.shown) continue;
            std::string left = std::string("  ") + spec.shown;
            left += left.size() < 25 ? std::string(25 - left.size(), ' ') : "\n" + std::string(25, ' ');
            out += left;
            for (const char* at = spec.help; *at; ++at) out += *at == '\n' ? "\n" + std::string(25, ' ') : std::string(1, *at);
            out += "\n";
        }
        if (part.first == section::generators)
            out += "  microbench merge RESULT.json... [--json OUT|-] [--html OUT] [--title TEXT]\n"
                   "                         One result from the generators' --json: counts summed, histograms merged\n"
                   "                         exactly, elapsed from the earliest start to the latest end, interval rows\n"
                   "                         aligned on the wall clock (a merged row's percentiles are its parts'\n"
                   "                         highest, or exact when every run kept them: --interval-histograms; then\n"
                   "                         microbench-hlog --from OUT writes them as HdrHistogram's log). Refuses\n"
                   "                         different targets or plans, or histograms that cannot merge\n"
                   "                         exactly, naming the input and the difference; says which shards are missing\n"
                   "                         and how many values the merge dropped.\n"
                   "\nReports from saved results:\n"
                   "  microbench report RESULT.json... --html FILE [--title TEXT]\n"
                   "                         Draws --json results of any mode (runs from different times or machines)\n"
                   "                         in one report: runs of the same scenario share charts, labelled by file.\n";
    }
    out += "\nA flag sets one thing once: given twice, or with another flag that sets the same, it is refused\n"
           "(-H and -C add; a switch such as -k may repeat); a flag the mode does not read is refused too.\n"
           "-- ends the options.\n"
           "\nExit status: 0 the run completed, 1 usage error, 2 the target could not be reached at all,\n"
           "3 a check failed or a gate broke, 130 interrupted (Ctrl-C prints the partial report).\n";
    return out;
}

}  // namespace cli
