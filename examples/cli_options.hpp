// examples/cli_options.hpp — the microbench command line: ab's flags with ab's meaning, the long
// options ab lacks, their checks, the usage texts, and the mapping to a plan and a report context.
// Every bad flag or value is one clear line naming it, then the short usage; exit code 1.
#pragma once

#include <cerrno>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "microbench.hpp"

namespace cli {

namespace mb = microbench;

struct options {
    mb::url target;
    std::string url_text;
    std::uint64_t requests = 1;
    bool requests_given = false;
    std::uint32_t concurrency = 1;
    std::uint32_t threads = 1;
    std::int64_t duration_ms = 0;
    std::int64_t timeout_ms = 30'000;
    std::uint32_t pipeline = 1;
    bool keep_alive = false;
    std::string method = "GET";
    std::vector<mb::header> headers;
    std::string body;
    bool sent_body = false;
    bool head_given = false;      // -i
    std::string content_type = "text/plain";
    std::string bind_address;
    std::uint32_t socket_buffer_bytes = 0;  // -b
    bool length_check = true;
    std::vector<int> expect_status;
    std::string csv_path, json_path, gnuplot_path;
    std::string html_path;        // --html FILE: the report with charts, self-contained
    std::uint32_t shard_index = 0, shard_count = 0;  // --shard I/N (or JOB_COMPLETION_INDEX and MICROBENCH_SHARDS)
    std::int64_t start_at_unix_ms = 0;               // --start-at T / --start-in S
    bool check_args = false;      // --check-args: say whether the arguments are valid, run nothing
    std::vector<double> percentiles = {50, 90, 99, 99.9, 99.99};
    bool latency = false;
    bool quiet = false;
    bool short_table = false;     // -S
    bool check_factorial = false; // --check factorial
    std::string expect_body_path;
    std::string expect_body;
    mb::gates limits;             // --max-failures, --max-pNN-ms, --min-rps
    enum class mode { single, suite, compare, self_test } run_mode = mode::single;
    std::string url_b;            // --compare A B, --suite A B
    double rate = 0;              // --rate R: requests/s on a fixed schedule; 0: closed loop
    bool poisson = false;         // --arrivals poisson
    std::uint64_t seed = 0;       // --seed S
    bool seed_given = false;
    std::int64_t interval_ms = -1;  // --interval D; -1: 1 s with --rate or --intervals, else none
    std::string intervals_path;   // --intervals FILE: CSV, a row per interval as it closes
    double scale = 1.0;
    bool scale_given = false;
    std::uint32_t rounds = 0;     // 0: the mode's default
    bool no_percentiles = false;  // -d
    int verbosity = 1;
    std::vector<std::pair<std::string, std::string>> given;  // each flag given: {canonical name, as typed}

    bool checks_responses() const { return check_factorial || !expect_body_path.empty() || !expect_status.empty(); }

    // Whether stdout carries a file's contents (--json -, --intervals -, -e -, -g -) instead of the report.
    bool stdout_is_data() const { return json_path == "-" || intervals_path == "-" || csv_path == "-" || gnuplot_path == "-"; }

    options without_shard() const {
        options copy = *this;
        copy.shard_count = copy.shard_index = 0;
        return copy;
    }
};

struct parse_outcome {
    bool exit_now = false;
    int exit_code = 0;
};

inline const char* short_usage() {
    return "Usage: microbench [options] http://host[:port]/path\n"
           "  -n requests     number of requests (default 1)      -c concurrency  connections (default 1)\n"
           "  -t seconds      run for this long (no request cap)   -s seconds      timeout per request (30)\n"
           "  -k              keep-alive                           -W threads      worker threads (1)\n"
           "  -H 'Name: v'    add/replace a header                 -C name=value   add a cookie\n"
           "  -A user:pass    basic authentication                 -m METHOD / -i  method / HEAD\n"
           "  -p file / -u file  POST / PUT body, -T type          -B address      local address to bind\n"
           "  -e / -g file    ab's percentile CSV / gnuplot TSV    -l              accept variable lengths\n"
           "  -b bytes -q -S -d -v N -r -V -h   as in ab\n"
           "  --json FILE|-  --html FILE  --latency  --percentiles LIST  --pipeline N  --timeout-ms N  --duration 10s\n"
           "  --expect-status LIST  --expect-body FILE  --check factorial  --no-length-check\n"
           "  --max-failures N  --max-p99-ms X  --min-rps R        (broken gates exit 3)\n"
           "  --rate R        requests/s on a fixed schedule (open model: response time from the intended send)\n"
           "  --arrivals poisson [--seed S]  --interval D (1s with --rate or --intervals)  --intervals FILE (CSV)\n"
           "  --suite URL [URL_B] [--scale F]   --compare URL_A URL_B [--rounds N]   --self-test\n"
           "  --shard I/N  --start-at UNIX_TIME  --start-in SECONDS  --check-args   (many generators, one plan)\n"
           "  microbench report RESULT.json... --html FILE   (saved --json results drawn together)\n"
           "  microbench merge RESULT.json... [--json OUT] [--html OUT]   (the generators' results as one)\n"
           "  --help-all (every option, in detail)\n";
}

inline const char* long_usage() {
    return "microbench — an ab-compatible HTTP/1.1 load tester. Usage: microbench [options] http://host[:port]/path\n\n"
           "ab's options, with ab's meaning:\n"
           "  -n requests      Number of requests to perform (default 1).\n"
           "  -c concurrency   Number of connections kept busy at once (default 1); at most -n.\n"
           "  -t timelimit     Seconds to run. Unlike ab there is no implied 50000-request cap; with -n too,\n"
           "                   whichever limit comes first ends the run.\n"
           "  -s timeout       Seconds before a request times out (default 30). The request is counted as\n"
           "                   failed (timeout) and the run goes on.\n"
           "  -k               Use HTTP keep-alive (HTTP/1.1, works with chunked bodies and without a\n"
           "                   Keep-Alive response header).\n"
           "  -H 'Name: value' Add a header; one named like a default (Host, User-Agent, Accept) replaces it.\n"
           "  -C name=value    Add a Cookie header (repeatable).\n"
           "  -A user:pass     Add Basic authentication.\n"
           "  -p file          POST the file's contents.     -u file   PUT the file's contents.\n"
           "  -T content-type  Content-Type of the body (default text/plain).\n"
           "  -m method        Use this method.              -i        Use HEAD.\n"
           "  -B address       Local address(es) to connect from: one, a list (10.0.0.5,10.0.0.6) or an IPv4\n"
           "                   range (127.0.0.2-127.0.0.9); connections take them in turn, each with its own\n"
           "                   ~28,000 ports per target (IP_BIND_ADDRESS_NO_PORT).\n"
           "  -b windowsize    Size of the TCP send/receive buffers, in bytes.\n"
           "  -e file          Write ab's CSV: percentage served (0-100) and time in ms.\n"
           "  -g file          Write ab's gnuplot TSV, a row per request (with -t alone: the first 1000000).\n"
           "  -l               Accept responses of varying length (no Length failures).\n"
           "  -r               Accepted for compatibility: microbench never stops on errors.\n"
           "  -q               No progress output.  -S  Short connection table.  -d  No percentile table.\n"
           "  -v level         2 or more: print the request sent, as ab's \"INFO: GET header ==\" block. ab's lines\n"
           "                   per response (at 2: LOG: header received, WARNING: Response code not 2xx; from 3:\n"
           "                   LOG: Response code =) are not printed: status codes are counted instead (in the\n"
           "                   JSON), and microbench-inspect shows how one response is read.\n"
           "  -V               Print the version.   -h  Print the short usage.\n"
           "  Not supported, with an error: -X/-P (proxy),\n"
           "  -w/-x/-y/-z (HTML output), -f/-Z/-E/-I (TLS: microbench speaks plain HTTP only).\n\n"
           "microbench's own options:\n"
           "  -W N, --threads N      Worker threads, each with its own epoll loop (default 1).\n"
           "  --duration D           Like -t, with units: 500ms, 10s, 2m (a plain number is seconds).\n"
           "  --pipeline N           Requests in flight per connection (needs -k; default 1).\n"
           "  --timeout-ms N         Request timeout in milliseconds.\n"
           "  --json FILE|-          Write the whole result as JSON (- = stdout, instead of the report).\n"
           "  --html FILE            Write the report as one self-contained HTML file (inline SVG charts, no\n"
           "                         script or link): latency by percentile, throughput and response time over\n"
           "                         time, the summary, failures, status codes, checks and the configuration.\n"
           "                         Every mode has it; --compare and --suite draw A and B together.\n"
           "  --latency              Add a latency section in microseconds (exact min/mean/max).\n"
           "  --rate R               Send R requests per second on a fixed schedule (the open model), with at\n"
           "                         most -c in flight. Adds response time (from the intended send time: what a\n"
           "                         user in line sees), service time and schedule lag, and says when the\n"
           "                         generator could not hold the rate. Not with --pipeline.\n"
           "  --arrivals KIND        At a fixed rate: uniform (the default: evenly spaced) or poisson (independent\n"
           "                         arrivals, exponential gaps averaging 1/R, as many users acting alone).\n"
           "  --seed S               Seed of the Poisson arrivals (default 0): the same seed, the same schedule.\n"
           "  --interval D           Statistics per interval of D (10ms to 1h; 0 for none): requests sent and\n"
           "                         ended, failures, achieved rate, p50/p90/p99/max response time (and schedule\n"
           "                         lag at a fixed rate). Default 1s with --rate or --intervals, else none. In\n"
           "                         --json as \"intervals\"; a summary in the report. Memory stays constant.\n"
           "  --intervals FILE       Write the intervals as CSV, a row as each one closes (tail -f works).\n"
           "  --percentiles LIST     Percentiles for --latency and --json (default 50,90,99,99.9,99.99).\n"
           "  --expect-status LIST   Only these statuses succeed; others fail with reason 'check'.\n"
           "  --no-length-check      Same as -l.\n"
           "  --expect-body FILE     The body must equal the file's contents (else: failure 'check').\n"
           "  --check factorial      The body must be exactly n! for /factorial/{n} or /factorial?n=N,\n"
           "                         as text or as JSON {\"factorial\": n!} with any whitespace.\n\n"
           "Gates for CI (a broken gate, or any failed check, exits 3 and says which and by how much):\n"
           "  --max-failures N       At most N failed requests.\n"
           "  --max-pNN-ms X         Total time percentile NN (e.g. p99, p99.9, p50) at most X ms.\n"
           "  --min-rps R            At least R requests per second.\n\n"
           "Suites and comparisons:\n"
           "  --suite URL [URL_B]    The five scenarios of the classic comparison: basic load (-n 10000 -c 100),\n"
           "                         latency (-n 1000 -c 1), failure rate (-n 10000 -c 10), keep-alive\n"
           "                         (-n 10000 -c 10 -k), stress (-n 50000 -c 200); one table (and --json).\n"
           "                         With URL_B, both targets side by side with ratios.\n"
           "  --scale F              Multiply every suite request count by F (e.g. 0.1 on a small device).\n"
           "  --compare URL_A URL_B  The workload given by the other flags against both, in alternating\n"
           "                         rounds (--rounds N, default 3; the median round by requests/s is shown).\n"
           "  --self-test            Start the built-in server and run the suite (scale 0.25, or --scale)\n"
           "                         against /factorial/100 and /factorial?n=100 with the factorial check;\n"
           "                         exit 0 only if every request passed.\n"
           "  --help-all             This text.\n\n"
           "Many generators, one plan:\n"
           "  --shard I/N            Be shard I (from 0) of N generators: take 1/N of -n, -c and --rate (the first\n"
           "                         shards one more request or connection when they do not divide); fixed-rate\n"
           "                         schedules and Poisson seeds interleave across shards. Without the flag, the\n"
           "                         environment's JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) and\n"
           "                         MICROBENCH_SHARDS (N) give it. The --json says which shard it was.\n"
           "  --start-at T           Start at Unix time T (seconds, fractions allowed), so generators on several\n"
           "                         machines begin together; connects nothing before. A time up to a day past\n"
           "                         starts at once; one further back is refused.\n"
           "  --start-in S           Start S seconds from now.\n"
           "  --check-args           Check the arguments (URL, flags, shard) and exit 0 if they are valid; run nothing.\n"
           "  microbench merge RESULT.json... [--json OUT|-] [--html OUT] [--title TEXT]\n"
           "                         One result from the generators' --json: counts summed, histograms merged\n"
           "                         exactly, elapsed from the earliest start to the latest end, interval rows\n"
           "                         aligned on the wall clock (a merged row's percentiles are its parts'\n"
           "                         highest). Refuses different targets or plans, or histograms that cannot merge\n"
           "                         exactly, naming the input and the difference; says which shards are missing\n"
           "                         and how many values the merge dropped.\n\n"
           "Reports from saved results:\n"
           "  microbench report RESULT.json... --html FILE [--title TEXT]\n"
           "                         Draws --json results of any mode (runs from different times or machines)\n"
           "                         in one report: runs of the same scenario share charts, labelled by file.\n\n"
           "Exit status: 0 the run completed, 1 usage error, 2 the target could not be reached at all,\n"
           "3 a check failed or a gate broke, 130 interrupted (Ctrl-C prints the partial report).\n";
}

inline parse_outcome usage_error(const std::string& problem) {
    std::fprintf(stderr, "microbench: %s\n%s", problem.c_str(), short_usage());
    return {true, 1};
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
inline parse_outcome usage_errorf(const char* format, ...) {
    va_list args;
    va_start(args, format);
    char buf[1024];
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    return usage_error(buf);
}

// Text from the command line for a one-line message: at most 200 bytes of it.
inline std::string shown(const std::string& text) {
    return text.size() <= 200 ? text : text.substr(0, 200) + "... (" + std::to_string(text.size()) + " bytes)";
}

// "RULE, not 'VALUE'": a flag's value broke its rule.
inline parse_outcome bad_value(const std::string& rule, const std::string& value) {
    return usage_error(rule + ", not '" + shown(value) + "'");
}

// "FLAG must be from LO to HI[UNIT]", the range being the library's (config.hpp).
inline std::string range_rule(const char* flag, std::uint64_t lo, std::uint64_t hi, const char* unit = "") {
    return std::string(flag) + " must be from " + std::to_string(lo) + " to " + std::to_string(hi) + unit;
}

// -B's first fault for a run against `target`, as the run finds it: its addresses must be of the
// target's family — known when the host is an address or resolves here, else taken from -B's first.
inline mb::source_fault bind_fault(const std::string& bind, const mb::url& target) {
    mb::endpoint at;
    const int family = mb::resolve(target.host, target.port, at) == 0 ? at.family() : AF_UNSPEC;
    std::vector<mb::endpoint> sources;
    return mb::source_addresses(bind, family, sources);
}

// "-B TEXT: 'ITEM' is not an address of this machine": which of -B's addresses is at fault, and why.
inline std::string bind_fault_line(const std::string& text, const mb::source_fault& f) {
    return "-B '" + shown(text) + "': '" + shown(text.substr(f.at, f.length)) + "' " + mb::source_fault_text(f.what);
}

// The name of what a flag sets: its aliases and the flags that set the same thing share one.
inline std::string canonical_flag(const std::string& typed) {
    if (typed == "--threads") return "-W";
    if (typed == "--duration") return "-t";
    if (typed == "--timeout-ms") return "-s";
    if (typed == "--no-length-check") return "-l";
    if (typed == "-u") return "-p";  // both set the body
    if (typed == "-i") return "-m";  // both set the method
    if (typed == "--start-in") return "--start-at";
    return typed;
}

// A flag without a value, which only turns something on: given again, under any name, it changes nothing.
inline bool is_switch(const std::string& typed) {
    return (typed.size() == 2 && std::string("lrkiqSd").find(typed[1]) != std::string::npos) || typed == "--latency" ||
           typed == "--check-args" || typed == "--no-length-check" || typed == "--suite" || typed == "--compare" ||
           typed == "--self-test";
}

// Records a flag as given: "" when it may be, else why not — it sets one value and was given
// twice, or under two names (-t and --duration, -i and -m). Switches may repeat, as may a flag
// that `adds` (-H, -C) as typed.
inline std::string note_flag(options& o, const std::string& typed, bool adds) {
    const std::string canonical = canonical_flag(typed);
    for (const auto& g : o.given) {
        if (g.first != canonical) continue;
        if ((is_switch(g.second) && is_switch(typed)) || (adds && g.second == typed)) return "";
        return g.second == typed ? typed + " is given twice: give it once" : g.second + " and " + typed + " set the same thing: give one";
    }
    o.given.emplace_back(canonical, typed);
    return "";
}

// Why a flag (by canonical name) does nothing in a mode, or null when the mode uses it. A flag no
// mode path reads is refused rather than dropped.
inline const char* unused_in(options::mode m, const std::string& flag) {
    const bool everywhere = flag == "-q" || flag == "-r" || flag == "--json" || flag == "--html" || flag == "--check-args" ||
                            flag == "--suite" || flag == "--compare" || flag == "--self-test";  // these choose the mode
    const bool gate = flag == "--max-failures" || flag == "--min-rps" || flag.compare(0, 6, "--max-") == 0;
    switch (m) {
        case options::mode::single:
            if (flag == "--scale") return "is for --suite and --self-test";
            if (flag == "--rounds") return "is for --compare";
            return nullptr;
        case options::mode::suite:
            if (everywhere || gate || flag == "--percentiles" || flag == "--scale" || flag == "-W" || flag == "--check" ||
                flag == "-s" || flag == "-H" || flag == "-C" || flag == "-A")
                return nullptr;
            return "does not apply to --suite: its scenarios set their own -n, -c, -k and the rest";
        case options::mode::compare:
            if (flag == "--scale" || flag == "-e" || flag == "-g" || flag == "--latency" || flag == "-S" || flag == "-d" || flag == "-v")
                return "does not apply to --compare: it prints the comparison table (and --json, --html) only";
            return nullptr;
        case options::mode::self_test:
            if (everywhere || flag == "--scale") return nullptr;
            return "does not apply to --self-test: it runs its own suite against the built-in server";
    }
    return nullptr;
}

inline bool parse_uint(const char* text, std::uint64_t min, std::uint64_t max, std::uint64_t& out) {
    std::uint64_t v = 0;
    if (!text || !mb::detail::parse_u64(text, v) || v < min || v > max) return false;
    out = v;
    return true;
}

// "10s", "500ms", "2m", "1.5" (seconds) → milliseconds, up to the longest run (30 days).
inline bool parse_duration_ms(const char* text, std::int64_t& out) {
    const std::string all = text;
    const std::size_t digits = all.find_first_not_of("0123456789.eE+-");
    const std::string unit = digits == std::string::npos ? "" : all.substr(digits);
    double v = 0;
    if (!mb::detail::parse_real(all.substr(0, all.size() - unit.size()), v) || !(v > 0)) return false;
    double scale = unit == "ms" ? 1 : (unit.empty() || unit == "s") ? 1000 : unit == "m" ? 60'000 : unit == "h" ? 3'600'000 : -1;
    if (scale < 0 || v * scale > static_cast<double>(mb::defaults::max_duration_ms)) return false;
    out = static_cast<std::int64_t>(v * scale + 0.5);
    return out > 0;
}

inline bool read_file(const char* path, std::string& out) {
    FILE* f = std::fopen(path, "rb");
    if (!f) return false;
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    bool ok = !std::ferror(f);
    std::fclose(f);
    return ok;
}

constexpr std::uint64_t gnuplot_cap = 1'000'000;

// "2/8" -> 2 and 8: shard I (from 0, as Kubernetes' JOB_COMPLETION_INDEX) of N.
inline bool parse_shard(const std::string& text, std::uint32_t& index, std::uint32_t& count) {
    std::size_t slash = text.find('/');
    std::uint64_t i = 0, n = 0;
    if (slash == std::string::npos || !parse_uint(text.substr(0, slash).c_str(), 0, mb::defaults::max_shards - 1, i) ||
        !parse_uint(text.substr(slash + 1).c_str(), 1, mb::defaults::max_shards, n) || i >= n)
        return false;
    index = static_cast<std::uint32_t>(i), count = static_cast<std::uint32_t>(n);
    return true;
}

inline mb::plan to_plan(const options& o, const std::string& url) {
    mb::plan p;
    p.url(url).method(o.method).body(o.body).content_type(o.content_type).requests(o.requests)
        .duration_ms(o.duration_ms).concurrency(o.concurrency).threads(o.threads).keep_alive(o.keep_alive)
        .timeout_ms(o.timeout_ms).connect_timeout_ms(o.timeout_ms).pipeline(o.pipeline).bind_address(o.bind_address)
        .length_check(o.length_check).expect_status(o.expect_status).socket_buffer_bytes(o.socket_buffer_bytes)
        .raise_fd_limit(true)  // a command line may: the library restores the limit after the run
        .rate(o.rate)
        .arrivals(o.poisson ? mb::arrivals::poisson : mb::arrivals::uniform)
        .seed(o.seed)
        .interval_ms(o.interval_ms < 0 && !o.intervals_path.empty() ? 1000 : o.interval_ms);
    // -g keeps every request's timings, allocated before the run; a duration-only run keeps the first million.
    if (!o.gnuplot_path.empty()) p.record_requests(o.requests ? o.requests : gnuplot_cap);
    for (const mb::header& h : o.headers) p.header(h.name, h.value);
    mb::checks c;
    mb::url u;
    unsigned n = 0;
    if (o.check_factorial && !mb::parse_url(url, u) && mb::factorial_argument(u, n)) c.factorial(n);
    if (!o.expect_body_path.empty()) c.body_equals(o.expect_body);
    p.check(c);
    p.start_at_unix_ms(o.start_at_unix_ms);
    if (o.shard_count) (void)mb::divide_plan(p, o.shard_index, o.shard_count);  // parse() checked that it divides
    return p;
}

inline parse_outcome parse(int argc, char** argv, options& o) {
    const std::string value_flags = "nctsbTpuvCHPAgXeBmW", bool_flags = "lrkVhwiIdSqxyzZfE";
    bool duration_given = false;
    bool options_ended = false;  // after "--"
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg.size() > 2 && arg[0] == '-' && arg[1] == '-' && !options_ended) {  // long options
            std::string name = arg.substr(2), value;
            bool has_value = false;
            if (std::size_t eq = name.find('='); eq != std::string::npos) value = name.substr(eq + 1), name = name.substr(0, eq), has_value = true;
            auto need = [&](std::string& v) {
                if (has_value) return v = value, true;
                if (i + 1 >= argc) return false;
                v = argv[++i];
                return true;
            };
            std::string v;
            std::uint64_t n = 0;
            if (name == "help-all") return std::fputs(long_usage(), stdout), parse_outcome{true, 0};
            if (name == "help") return std::fputs(short_usage(), stdout), parse_outcome{true, 0};
            if (name == "version") return std::printf("microbench %s\n", mb::version_string), parse_outcome{true, 0};
            const bool gate = name.size() > 7 && name.compare(0, 5, "max-p") == 0 && name.compare(name.size() - 3, 3, "-ms") == 0;
            const bool known = is_switch("--" + name) || gate || name == "threads" || name == "duration" || name == "pipeline" ||
                               name == "timeout-ms" || name == "json" || name == "percentiles" || name == "expect-status" ||
                               name == "check" || name == "expect-body" || name == "max-failures" || name == "min-rps" ||
                               name == "scale" || name == "rounds" || name == "rate" || name == "arrivals" || name == "seed" ||
                               name == "interval" || name == "intervals" || name == "html" || name == "shard" ||
                               name == "start-at" || name == "start-in";
            if (!known) return usage_errorf("unknown option --%s", name.c_str());
            if (std::string clash = note_flag(o, "--" + name, false); !clash.empty()) return usage_error(clash);
            if (name == "latency") { o.latency = true; continue; }
            if (name == "check-args") { o.check_args = true; continue; }
            if (name == "self-test" || name == "suite" || name == "compare") {
                if (o.run_mode != options::mode::single) return usage_errorf("--%s: --suite, --compare and --self-test are separate modes; give one", name.c_str());
                o.run_mode = name == "suite" ? options::mode::suite : name == "compare" ? options::mode::compare : options::mode::self_test;
                continue;
            }
            if (gate) {
                std::string level = name.substr(5, name.size() - 8);
                std::vector<double> one;
                if (!mb::parse_percentile_list(level, one) || one.size() != 1) return usage_errorf("unknown option --%s (write --max-p99-ms X)", name.c_str());
                if (!need(v)) return usage_errorf("option --%s needs a value", name.c_str());
                double limit = 0;
                if (!mb::detail::parse_real(v, limit) || !(limit > 0)) return usage_errorf("--%s needs a positive number of milliseconds, not '%s'", name.c_str(), shown(v).c_str());
                o.limits.max_percentile_ms.push_back({one[0], limit});
                continue;
            }
            if (name == "no-length-check") { o.length_check = false; continue; }
            if (!need(v)) return usage_errorf("option --%s needs a value", name.c_str());
            if (name == "threads") {
                if (!parse_uint(v.c_str(), 1, mb::defaults::max_threads, n)) return bad_value(range_rule("--threads", 1, mb::defaults::max_threads), v);
                o.threads = static_cast<std::uint32_t>(n);
            } else if (name == "duration") {
                if (!parse_duration_ms(v.c_str(), o.duration_ms) || o.duration_ms > mb::defaults::max_duration_ms)
                    return bad_value("--duration must be like 500ms, 10s or 2m, at most 30 days", v);
                duration_given = true;
            } else if (name == "pipeline") {
                if (!parse_uint(v.c_str(), 1, mb::defaults::max_pipeline, n)) return bad_value(range_rule("--pipeline", 1, mb::defaults::max_pipeline), v);
                o.pipeline = static_cast<std::uint32_t>(n);
            } else if (name == "timeout-ms") {
                if (!parse_uint(v.c_str(), 1, mb::defaults::max_timeout_ms, n)) return bad_value(range_rule("--timeout-ms", 1, mb::defaults::max_timeout_ms), v);
                o.timeout_ms = static_cast<std::int64_t>(n);
            } else if (name == "json") {
                if (v.empty()) return usage_error("--json needs a file name, or - for stdout");
                o.json_path = v;
            } else if (name == "shard") {
                if (!parse_shard(v, o.shard_index, o.shard_count))
                    return bad_value("--shard needs I/N: shard I (from 0) of N generators, N from 1 to " + std::to_string(mb::defaults::max_shards), v);
            } else if (name == "start-at" || name == "start-in") {
                double s = -1;
                const bool number = mb::detail::parse_real(v, s);
                const double now_ms = static_cast<double>(mb::realtime_ns() / 1'000'000);
                const double at_ms = name == "start-at" ? s * 1000 : now_ms + s * 1000;
                // A start more than a day past is a mistake (a time in ms, a stale script), not a start "at once".
                constexpr double day_ms = 24 * 3'600'000.0;
                if (!number || s < 0 || at_ms < now_ms - day_ms || at_ms > now_ms + static_cast<double>(mb::defaults::max_start_ahead_ms))
                    return bad_value(name == "start-at" ? "--start-at needs a Unix time in seconds, from a day ago to 7 days ahead"
                                                        : range_rule("--start-in", 0, mb::defaults::max_start_ahead_ms / 1000, " seconds"), v);
                o.start_at_unix_ms = std::max<std::int64_t>(1, static_cast<std::int64_t>(at_ms));
            } else if (name == "html") {
                if (v.empty() || v == "-") return usage_error("--html needs a file name");
                o.html_path = v;
            } else if (name == "percentiles") {
                if (!mb::parse_percentile_list(v, o.percentiles)) return bad_value("--percentiles needs numbers from 0 to 100 separated by commas", v);
            } else if (name == "check") {
                if (v != "factorial") return bad_value("--check knows 'factorial'", v);
                o.check_factorial = true;
            } else if (name == "expect-body") {
                if (!read_file(v.c_str(), o.expect_body)) return usage_errorf("cannot read --expect-body file '%s': %s", shown(v).c_str(), std::strerror(errno));
                o.expect_body_path = v;
            } else if (name == "max-failures") {
                if (!parse_uint(v.c_str(), 0, UINT64_MAX, n)) return bad_value("--max-failures needs a count", v);
                o.limits.max_failures = n;
            } else if (name == "min-rps" || name == "scale") {
                double d = 0;
                if (!mb::detail::parse_real(v, d) || !(d > 0) || (name == "scale" && d > 100)) return usage_errorf("--%s needs a positive number, not '%s'", name.c_str(), shown(v).c_str());
                (name == "scale" ? o.scale : o.limits.min_rps) = d;
                o.scale_given = o.scale_given || name == "scale";
            } else if (name == "rate") {
                double d = 0;
                if (!mb::detail::parse_real(v, d) || !(d >= mb::defaults::min_rate && d <= mb::defaults::max_rate))
                    return bad_value("--rate needs requests per second from 0.001 to 10000000", v);
                o.rate = d;
            } else if (name == "arrivals") {
                if (v != "poisson" && v != "uniform") return bad_value("--arrivals knows 'uniform' and 'poisson'", v);
                o.poisson = v == "poisson";
            } else if (name == "seed") {
                if (!parse_uint(v.c_str(), 0, UINT64_MAX, o.seed)) return bad_value("--seed needs a number from 0 to 18446744073709551615", v);
                o.seed_given = true;
            } else if (name == "interval") {
                if (v == "0" || v == "off") o.interval_ms = 0;
                else if (!parse_duration_ms(v.c_str(), o.interval_ms) || o.interval_ms < mb::defaults::min_interval_ms ||
                         o.interval_ms > mb::defaults::max_interval_ms)
                    return bad_value("--interval must be from 10ms to 1h (like 250ms, 1s, 1m), or 0 for none", v);
            } else if (name == "intervals") {
                if (v.empty()) return usage_error("--intervals needs a file name");
                o.intervals_path = v;
            } else if (name == "rounds") {
                if (!parse_uint(v.c_str(), 1, 100, n)) return bad_value("--rounds must be from 1 to 100", v);
                o.rounds = static_cast<std::uint32_t>(n);
            } else if (name == "expect-status") {
                o.expect_status.clear();
                for (std::size_t at = 0; at <= v.size();) {
                    std::size_t comma = v.find(',', at);
                    std::string item = v.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
                    if (!parse_uint(item.c_str(), 100, 999, n)) return bad_value("--expect-status needs status codes (100-999) separated by commas", v);
                    o.expect_status.push_back(static_cast<int>(n));
                    if (comma == std::string::npos) break;
                    at = comma + 1;
                }
            }
            continue;
        }
        if (arg == "--" && !options_ended) {  // what follows are URLs, even those that start with '-'
            options_ended = true;
            continue;
        }
        if (arg.size() < 2 || arg[0] != '-' || options_ended) {  // the URL
            if (o.url_text.empty()) o.url_text = arg;
            else if (o.url_b.empty()) o.url_b = arg;
            else return usage_errorf("more than two URLs: '%s'", shown(arg).c_str());
            continue;
        }
        for (std::size_t k = 1; k < arg.size(); ++k) {  // short options, grouped or with attached values
            char f = arg[k];
            std::string flag = std::string("-") + f;
            if (bool_flags.find(f) != std::string::npos) {
                if (std::string clash = note_flag(o, flag, false); !clash.empty()) return usage_error(clash);
                switch (f) {
                    case 'k': o.keep_alive = true; break;
                    case 'l': o.length_check = false; break;
                    case 'r': break;  // microbench never exits on receive errors
                    case 'i': o.method = "HEAD", o.head_given = true; break;
                    case 'q': o.quiet = true; break;
                    case 'S': o.short_table = true; break;
                    case 'd': o.no_percentiles = true; break;
                    case 'V': return std::printf("microbench %s (ab-compatible)\n", mb::version_string), parse_outcome{true, 0};
                    case 'h': return std::fputs(short_usage(), stdout), parse_outcome{true, 0};
                    case 'w': case 'x': case 'y': case 'z': return usage_errorf("%s (HTML output) is not supported: --html FILE writes microbench's report", flag.c_str());
                    default: return usage_errorf("%s (TLS) is not supported: microbench speaks plain HTTP/1.1 only", flag.c_str());
                }
                continue;
            }
            if (value_flags.find(f) == std::string::npos) return usage_errorf("unknown option %s", flag.c_str());
            std::string v;
            if (k + 1 < arg.size()) v = arg.substr(k + 1);
            else if (i + 1 < argc) v = argv[++i];
            else return usage_errorf("option %s needs a value", flag.c_str());
            if (std::string clash = note_flag(o, flag, f == 'H' || f == 'C'); !clash.empty()) return usage_error(clash);
            k = arg.size();  // the rest of this argument was the value
            std::uint64_t n = 0;
            switch (f) {
                case 'n':
                    if (!parse_uint(v.c_str(), 1, 1'000'000'000'000ULL, n)) return bad_value("-n must be a number of requests from 1", v);
                    o.requests = n, o.requests_given = true;
                    break;
                case 'c':
                    if (!parse_uint(v.c_str(), 1, mb::defaults::max_concurrency, n)) return bad_value(range_rule("-c", 1, mb::defaults::max_concurrency, " connections"), v);
                    o.concurrency = static_cast<std::uint32_t>(n);
                    break;
                case 't':
                    if (!parse_uint(v.c_str(), 1, mb::defaults::max_duration_ms / 1000, n))
                        return bad_value(range_rule("-t", 1, mb::defaults::max_duration_ms / 1000, " seconds (30 days)"), v);
                    o.duration_ms = static_cast<std::int64_t>(n) * 1000, duration_given = true;
                    break;
                case 's':
                    if (!parse_uint(v.c_str(), 1, mb::defaults::max_timeout_ms / 1000, n)) return bad_value(range_rule("-s", 1, mb::defaults::max_timeout_ms / 1000, " seconds"), v);
                    o.timeout_ms = static_cast<std::int64_t>(n) * 1000;
                    break;
                case 'W':
                    if (!parse_uint(v.c_str(), 1, mb::defaults::max_threads, n)) return bad_value(range_rule("-W", 1, mb::defaults::max_threads, " threads"), v);
                    o.threads = static_cast<std::uint32_t>(n);
                    break;
                case 'v':
                    if (!parse_uint(v.c_str(), 0, 5, n)) return bad_value("-v must be a verbosity from 0 to 5", v);
                    o.verbosity = static_cast<int>(n);
                    break;
                case 'H': {
                    mb::header h;
                    if (mb::parse_header_line(v, h)) return bad_value("-H needs 'Name: value'", v);
                    o.headers.push_back(h);
                    break;
                }
                case 'C': o.headers.push_back({"Cookie", v}); break;
                case 'A': {
                    if (v.find(':') == std::string::npos) return usage_error("-A needs user:password");
                    std::string encoded;
                    mb::base64_encode(v, encoded);
                    o.headers.push_back({"Authorization", "Basic " + encoded});
                    break;
                }
                case 'p': case 'u':
                    if (!read_file(v.c_str(), o.body)) return usage_errorf("cannot read %s file '%s': %s", flag.c_str(), shown(v).c_str(), std::strerror(errno));
                    o.method = f == 'p' ? "POST" : "PUT", o.sent_body = true;
                    break;
                case 'T': o.content_type = v; break;
                case 'm': o.method = v; break;
                case 'B':
                    if (v.empty()) return usage_error("-B needs an address, a list or a range");
                    o.bind_address = v;
                    break;
                case 'e':
                    if (v.empty()) return usage_error("-e needs a file name");
                    o.csv_path = v;
                    break;
                case 'b':
                    if (!parse_uint(v.c_str(), 512, mb::defaults::max_socket_buffer_bytes, n)) return bad_value(range_rule("-b", 512, mb::defaults::max_socket_buffer_bytes, " bytes"), v);
                    o.socket_buffer_bytes = static_cast<std::uint32_t>(n);
                    break;
                case 'g':
                    if (v.empty()) return usage_error("-g needs a file name");
                    o.gnuplot_path = v;
                    break;
                default: return usage_errorf("%s (proxy) is not supported", flag.c_str());  // -X, -P
            }
        }
    }
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
    for (const auto& g : o.given)
        if (const char* why = unused_in(o.run_mode, g.first)) return usage_errorf("%s %s", g.second.c_str(), why);
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
    if (duration_given && !o.requests_given) o.requests = 0;
    if (o.requests && o.concurrency > o.requests)
        return usage_error("cannot use concurrency level greater than total number of requests (-c " + std::to_string(o.concurrency) +
                           " > -n " + std::to_string(o.requests) + ")");
    if (o.threads > o.concurrency) return usage_errorf("more threads (%u) than connections (-c %u)", o.threads, o.concurrency);
    if (o.pipeline > 1 && !o.keep_alive) return usage_error("--pipeline needs keep-alive (-k)");
    if (o.sent_body && (o.head_given || o.method == "HEAD")) return usage_error("-i (HEAD) sends no body: drop -p/-u, or -i");
    if (o.rate > 0 && o.pipeline > 1) return usage_error("--rate sends one request at a time per connection: drop --pipeline");
    if (o.poisson && o.rate == 0) return usage_error("--arrivals poisson needs --rate");
    if (o.seed_given && !o.poisson) return usage_error("--seed is for --arrivals poisson");
    if (!o.intervals_path.empty() && o.interval_ms == 0) return usage_error("--intervals needs intervals: drop --interval 0");
    if ((o.json_path == "-") + (o.intervals_path == "-") + (o.csv_path == "-") + (o.gnuplot_path == "-") > 1)
        return usage_error("--json -, --intervals -, -e - and -g - would share stdout: send all but one to files");
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

}  // namespace cli
