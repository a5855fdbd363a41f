// examples/cli/options.hpp — the microbench command line's settings (what the flags give), the
// value readers and file helpers its options and subcommands share, and the mapping to a plan. The flags themselves
// are rows in table.hpp; parse.hpp reads them.
#pragma once

#include "profile.hpp"  // first: a profile may leave features of the library out

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "microbench.hpp"

namespace cli {

namespace mb = microbench;

struct options {
    mb::url target;
    std::string url_text;
    bool no_ranges = false;  // --no-ranges: braces are sent as typed, not read as ranges
    std::uint64_t requests = 1;  // 0: no cap (-t or --duration without -n)
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
    std::vector<std::string> connect_to;  // --connect-to HOST:PORT:ADDR:PORT, each use one rule
    std::string unix_socket;              // --unix-socket PATH: every connection to it
    std::uint32_t socket_buffer_bytes = 0;  // -b
    bool length_check = true;
    std::vector<int> expect_status;
    std::string csv_path, json_path, gnuplot_path;
    std::string hgrm_path;  // --hgrm FILE|-: HdrHistogram's percentile spectrum
    std::string hlog_path;  // --hlog FILE|-: HdrHistogram's interval log
    bool interval_histograms = false;  // --interval-histograms: each interval's histograms in the JSON
    std::string html_path;        // --html FILE: the report with charts, self-contained
    std::string junit_path;       // --junit FILE: the gates' verdicts as JUnit XML
    std::uint32_t shard_index = 0, shard_count = 0;  // --shard I/N (or JOB_COMPLETION_INDEX and MICROBENCH_SHARDS)
    std::int64_t start_at_unix_ms = 0;               // --start-at T / --start-in S
    bool check_args = false;      // --check-args: say whether the arguments are valid, run nothing
    std::vector<double> percentiles = {50, 90, 99, 99.9, 99.99};
    bool latency = false;
    bool quiet = false;
    bool short_table = false;     // -S
    bool check_factorial = false; // --check factorial
    bool by_target = false;       // --by-target: the table of targets, the worst first
    bool order_random = false;    // --order random (sequential: in turn)
    bool each_once = false;       // --each-once: -n is the number of targets
    std::string targets_path;     // --targets FILE|-: where the targets came from (- for stdin)
    std::string targets_text;     // its bytes, read when the option is
    std::vector<mb::target> file_targets;  // read from them by check_targets
    std::string expect_body_path;
    std::string expect_body;
    std::string expect_body_contains;  // --expect-body-contains TEXT
    std::shared_ptr<const mb::body_regex> expect_body_regex;  // --expect-body-regex RE, compiled when read
    mb::gates limits;             // --max-failures, --max-pNN-ms, --min-rps
    enum class mode { single, suite, compare, self_test } run_mode = mode::single;
    std::string url_b;            // --compare A B, --suite A B
    double rate = 0;              // --rate R: requests/s on a fixed schedule (with --stages, the start); 0: none
    double rate_to = -1;          // --rate FROM:TO: the rate the run ramps to over -t; -1: a steady rate
    std::vector<mb::rate_stage> stages;  // --stages D:R,...: k6's stages
    // --find-capacity: the capacity search, its objective the p99 gate (--max-p99-ms) and these
    // (python3 -m microbench's flags, the library's defaults)
    bool find_capacity = false;
    double max_failures_ratio = 0.01;
    double start_rate = 100, max_rate = 1'000'000;
    std::int64_t warmup_ms = 1000, step_ms = 5000;
    std::uint64_t min_responses = 1000;
    bool poisson = false;         // --arrivals poisson
    std::uint64_t seed = 0;       // --seed S
    std::int64_t max_batch_lag_us = -1;  // --max-batch-lag US; -1: the library's default
    std::int64_t interval_ms = -1;  // --interval D; -1: 1 s with --rate or --intervals, else none
    std::string intervals_path;   // --intervals FILE: CSV, a row per interval as it closes
    double scale = 0;             // --scale F; 0: the mode's default (1 for --suite, 0.25 for --self-test)
    std::uint32_t rounds = 0;     // 0: the mode's default
    bool no_percentiles = false;  // -d
    int verbosity = 1;
    mb::tls_options tls;          // -f, -Z, -E, -I, --verify, --cacert, --tls-resume

    // The first credential header (-A, -C, -H Authorization/Cookie) sent to an https:// target
    // whose certificate is not checked, or null.
    const char* unverified_credentials() const {
        if (tls.verify) return nullptr;
        bool https = false;
        for (const std::string* u : {&url_text, &url_b})
            https = https || (u->size() > 8 && mb::detail::iequals(u->substr(0, 8), "https://"));
        if (!https) return nullptr;
        for (const mb::header& h : headers)
            for (const char* name : {"Authorization", "Cookie", "Proxy-Authorization"})
                if (mb::detail::iequals(h.name, name)) return name;
        return nullptr;
    }
    bool checks_responses() const {
        return check_factorial || !expect_body_path.empty() || !expect_body_contains.empty() ||
               expect_body_regex || !expect_status.empty();
    }

    // How many files go to stdout (--json -, --intervals -, -e -, -g -, --hgrm -, --hlog -); with
    // any, the report does not.
    int stdout_writers() const {
        return (json_path == "-") + (intervals_path == "-") + (csv_path == "-") + (gnuplot_path == "-") +
               (hgrm_path == "-") + (hlog_path == "-");
    }
    bool stdout_is_data() const { return stdout_writers() > 0; }

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

// Text from the command line for a one-line message: at most 200 bytes of it.
inline std::string shown(const std::string& text) {
    return text.size() <= 200 ? text : text.substr(0, 200) + "... (" + std::to_string(text.size()) + " bytes)";
}

// "FLAG must be from LO to HI[UNIT]", the range being the library's (config.hpp).
inline std::string range_rule(const char* flag, std::uint64_t lo, std::uint64_t hi, const char* unit = "") {
    return std::string(flag) + " must be from " + std::to_string(lo) + " to " + std::to_string(hi) + unit;
}

// -B's first fault for a run against `target` (where --connect-to's rules send it): its addresses
// must be of that host's family, known when the host is an address (or, when `may_resolve`, when
// it resolves here), else taken from -B's first. Checking the arguments does not resolve: it asks
// no one outside the process.
inline mb::source_fault bind_fault(const std::string& bind, const mb::url& target,
                                   const std::vector<std::string>& connect_to, bool may_resolve) {
    int family = AF_UNSPEC;
    unsigned char any[sizeof(in6_addr)];
    mb::endpoint at;
    std::string host = target.host;
    std::uint16_t port = target.port;
    std::size_t bad = 0;
    mb::apply_connect_rules(connect_to, host, port, bad);
    if (inet_pton(AF_INET, host.c_str(), any) == 1) family = AF_INET;
    else if (inet_pton(AF_INET6, host.c_str(), any) == 1) family = AF_INET6;
    else if (may_resolve && mb::resolve(host, port, at) == 0) family = at.family();
    std::vector<mb::endpoint> sources;
    return mb::source_addresses(bind, family, sources);
}

// "-B TEXT: 'ITEM' is not an address of this machine": which of -B's addresses is at fault, and why.
inline std::string bind_fault_line(const std::string& text, const mb::source_fault& f) {
    return "-B '" + shown(text) + "': '" + shown(text.substr(f.at, f.length)) + "' " + mb::source_fault_text(f.what);
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
    double scale = unit == "ms"                    ? 1
                   : (unit.empty() || unit == "s") ? 1000
                   : unit == "m"                   ? 60'000
                   : unit == "h"                   ? 3'600'000
                                                   : -1;
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

// Says on stderr, as `who`, that `path` could not be written and why (`err`, an errno value read
// where the call failed: by the time of the message other calls have changed errno).
inline void say_cannot_write(const char* who, const std::string& path, int err) {
    std::fprintf(stderr, "%s: cannot write %s: %s\n", who, shown(path).c_str(), std::strerror(err));
}

// Writes `text` to `path` ("-": stdout); false, after saying why, when it cannot.
inline bool write_text_file(const std::string& path, const std::string& text, const char* who = "microbench") {
    int err = 0;
    if (path == "-") {
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) err = errno;
    } else if (FILE* f = std::fopen(path.c_str(), "wb")) {
        if (std::fwrite(text.data(), 1, text.size(), f) != text.size()) err = errno;
        if (std::fclose(f) != 0 && !err) err = errno;
    } else {
        err = errno;
    }
    if (err) say_cannot_write(who, path, err);
    return err == 0;
}

inline std::int64_t now_unix_ms() { return mb::realtime_ns() / 1'000'000; }

// "runs/b.json" -> "b", "logs/a.hlog" -> "a".
inline std::string file_label(const std::string& path) {
    std::size_t slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::string end = name.size() > 5 ? name.substr(name.size() - 5) : std::string();
    if (end == ".json" || end == ".hlog") name.resize(name.size() - 5);
    return name;
}

// file_label(path), made unique among `labels` ("b (2)", "b (3)", ...) and added to them.
inline std::string unique_file_label(const std::string& path, std::vector<std::string>& labels) {
    std::string label = file_label(path);
    for (int k = 2; std::find(labels.begin(), labels.end(), label) != labels.end(); ++k)
        label = file_label(path) + " (" + std::to_string(k) + ")";
    labels.push_back(label);
    return label;
}

constexpr std::uint64_t gnuplot_cap = 1'000'000;

// "2/8" -> 2 and 8: shard I (from 0, as Kubernetes' JOB_COMPLETION_INDEX) of N.
inline bool parse_shard(const std::string& text, std::uint32_t& index, std::uint32_t& count) {
    std::size_t slash = text.find('/');
    std::uint64_t i = 0, n = 0;
    if (slash == std::string::npos || !parse_uint(text.substr(0, slash).c_str(), 0, mb::defaults::max_shards - 1, i) ||
        !parse_uint(text.substr(slash + 1).c_str(), 1, mb::defaults::max_shards, n) || i >= n)
        return false;
    index = static_cast<std::uint32_t>(i);
    count = static_cast<std::uint32_t>(n);
    return true;
}

inline mb::plan to_plan(const options& o, const std::string& url) {
    mb::plan p;
    if (!o.file_targets.empty()) p.targets(o.file_targets);
    p.url(url)
        .url_ranges(!o.no_ranges)
        .method(o.method)
        .body(o.body)
        .content_type(o.content_type)
        .requests(o.requests)
        .duration_ms(o.duration_ms)
        .concurrency(o.concurrency)
        .threads(o.threads)
        .keep_alive(o.keep_alive)
        .timeout_ms(o.timeout_ms)
        .connect_timeout_ms(o.timeout_ms)
        .pipeline(o.pipeline)
        .bind_address(o.bind_address)
        .connect_to(o.connect_to)
        .unix_socket(o.unix_socket)
        .length_check(o.length_check)
        .expect_status(o.expect_status)
        .socket_buffer_bytes(o.socket_buffer_bytes)
        .raise_fd_limit(true)  // a command line may: the library restores the limit after the run
        .rate(o.rate)
        .stages(!o.stages.empty() ? o.stages
                : o.rate_to >= 0  ? std::vector<mb::rate_stage>{{o.duration_ms, o.rate_to}}
                                  : std::vector<mb::rate_stage>{})
        .requests(o.requests)  // after the stages, which leave the count open: -n caps a staged run
        .arrivals(o.poisson ? mb::arrivals::poisson : mb::arrivals::uniform)
        .seed(o.seed)
        .max_batch_lag_us(o.max_batch_lag_us)
        .interval_ms(o.interval_ms < 0 && (!o.intervals_path.empty() || !o.hlog_path.empty() || o.interval_histograms)
                         ? 1000
                         : o.interval_ms)
        .interval_histograms(o.interval_histograms)
        .by_target(o.by_target)
        .order(o.order_random ? mb::target_order::random : mb::target_order::in_turn)
        .each_once(o.each_once);
    // -g keeps every request's timings, allocated before the run; a duration-only run keeps the first million.
    if (!o.gnuplot_path.empty()) p.record_requests(o.requests ? o.requests : gnuplot_cap);
    for (const mb::header& h : o.headers) p.header(h.name, h.value);
    mb::checks c;
    mb::url u;
    unsigned n = 0;
    const bool ranges = !o.no_ranges && url.find_first_of("{}") < url.find('#');
    if (o.check_factorial && (ranges || !o.file_targets.empty()))
        c.factorial_of_each_target();  // every URL had an n (check_url, check_targets_file)
    else if (o.check_factorial && !mb::parse_url(url, u) && mb::factorial_argument(u, n)) c.factorial(n);
    if (!o.expect_body_path.empty()) c.body_equals(o.expect_body);
    if (!o.expect_body_contains.empty()) c.body_contains(o.expect_body_contains);
    if (o.expect_body_regex) c.body_matches(o.expect_body_regex);
    p.check(c);
    p.start_at_unix_ms(o.start_at_unix_ms);
    p.tls(o.tls);
    if (o.shard_count) (void)mb::divide_plan(p, o.shard_index, o.shard_count);  // parse() checked that it divides
    return p;
}

}  // namespace cli
