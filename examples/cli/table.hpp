// examples/cli/table.hpp — the microbench command line's options as rows of data: each option's
// names, the kind of value it takes, the field it sets, its range and unit, the modes that read
// it and its help. parse.hpp reads every value by its kind, one path per kind; an option with
// a rule of its own (a mode, -H, the gates) names a function. A static_assert checks each row's
// kind against its field. Nothing here reads the command line.
#pragma once

#include <cerrno>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "options.hpp"

namespace cli {

// Which modes read an option.
enum mode_bits : unsigned { in_single = 1, in_suite = 2, in_compare = 4, in_self_test = 8, in_all = 15 };

constexpr unsigned workload = in_single | in_compare;             // what a plan is made of
constexpr unsigned everywhere = in_all;
constexpr unsigned suite_too = in_single | in_suite | in_compare;  // the suite reads it as well
constexpr unsigned gated = in_single | in_suite | in_compare;      // the gates: not the self-test's

// -h's and --help-all's sections, in order.
enum class section { ab, own, tls, gates, suites, generators, unsupported };

// How an option's value is read: one path each in parse.hpp's read_value().
enum class kind : unsigned char {
    on,            // a switch: sets its field
    accepted,      // a switch kept for ab's sake: changes nothing (-r)
    off,           // a switch: clears its field
    count,         // a whole number from lo to hi
    seconds,       // a whole number of seconds from lo to hi, kept in milliseconds
    real,          // a number from lo to hi; a lo of 0 means above 0
    duration,      // 500ms, 10s, 2m, 1h (a plain number is seconds), from lo to hi ms
    text,          // any text; `unit` says what it needs ("an address") when it must not be empty
    file,          // the name of a file to write
    file_or_dash,  // the name of a file to write, or - for stdout
    readable,      // the name of a file that can be read (its contents are read later)
    refuse,        // one of ab's flags microbench lacks: a switch refused with `unit`'s words
    act,           // a switch with a function of its own
    custom,        // a value with a function of its own
    each           // a value with a function of its own; each use adds one (-H, -C)
};

// Where a row's value goes: one field of the options, of their TLS settings or of their gates,
// with its type (so that a row's kind can be checked against it at compile time).
struct field {
    enum class type : unsigned char {
        none,
        boolean,
        u32,
        u64,
        i64,
        integer,
        real,
        text,
        tls_boolean,
        tls_text,
        gate_u64,
        gate_real
    };
    type is = type::none;
    union {
        bool options::*boolean;
        std::uint32_t options::*u32;
        std::uint64_t options::*u64;
        std::int64_t options::*i64;
        int options::*integer;
        double options::*real;
        std::string options::*text;
        bool mb::tls_options::*tls_boolean;
        std::string mb::tls_options::*tls_text;
        std::uint64_t mb::gates::*gate_u64;
        double mb::gates::*gate_real;
    };
    constexpr field() : boolean(nullptr) {}
    constexpr field(bool options::*p) : is(type::boolean), boolean(p) {}
    constexpr field(std::uint32_t options::*p) : is(type::u32), u32(p) {}
    constexpr field(std::uint64_t options::*p) : is(type::u64), u64(p) {}
    constexpr field(std::int64_t options::*p) : is(type::i64), i64(p) {}
    constexpr field(int options::*p) : is(type::integer), integer(p) {}
    constexpr field(double options::*p) : is(type::real), real(p) {}
    constexpr field(std::string options::*p) : is(type::text), text(p) {}
    constexpr field(bool mb::tls_options::*p) : is(type::tls_boolean), tls_boolean(p) {}
    constexpr field(std::string mb::tls_options::*p) : is(type::tls_text), tls_text(p) {}
    constexpr field(std::uint64_t mb::gates::*p) : is(type::gate_u64), gate_u64(p) {}
    constexpr field(double mb::gates::*p) : is(type::gate_real), gate_real(p) {}
};

using apply_fn = parse_outcome (*)(options& o, const std::string& flag, const std::string& value);

struct option_spec {
    char short_name;        // 0: none
    const char* long_name;  // nullptr: none; "max-pNN-ms" stands for every --max-p<percentile>-ms
    const char* sets;       // the setting, when options share one ("-p" for -p and -u); nullptr: its own
    kind reads;
    field to;
    unsigned modes;
    section part;
    const char* shown;  // -h's and --help-all's name for it: "-n requests", "-W N, --threads N"
    const char* help;   // --help-all's text; "\n" starts a line in the same column
    double lo = 0, hi = 0;     // count, seconds, real, duration: the range (hi >= 2^64: none)
    const char* unit = "";     // after the range in a refusal (" connections"); refuse: why
    apply_fn apply = nullptr;  // act, custom, each
    feature needs = feature::always;  // a build without it refuses the option (profile.hpp)
};

// --- Refusals: one line naming the flag, then one pointing at -h (exit code 1) --------------------

// -h: every option's name by section (parse.hpp, from the option table).
inline std::string short_usage();

inline parse_outcome usage_error(const std::string& problem) {
    std::fprintf(stderr, "microbench: %s\n%s", problem.c_str(),
                 "microbench -h lists the options; microbench --help-all says what each does.\n");
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

// "RULE, not 'VALUE'": a flag's value broke its rule.
inline parse_outcome bad_value(const std::string& rule, const std::string& value) {
    return usage_error(rule + ", not '" + shown(value) + "'");
}

// --- The functions of the options with a rule of their own ------------------------------------

// --suite, --compare, --self-test: one mode per run.
inline parse_outcome set_mode(options& o, const std::string& flag, options::mode m) {
    if (o.run_mode != options::mode::single && o.run_mode != m)
        return usage_errorf("%s: --suite, --compare and --self-test are separate modes; give one", flag.c_str());
    o.run_mode = m;
    return {};
}

inline parse_outcome set_suite(options& o, const std::string& flag, const std::string&) {
    return set_mode(o, flag, options::mode::suite);
}
inline parse_outcome set_compare(options& o, const std::string& flag, const std::string&) {
    return set_mode(o, flag, options::mode::compare);
}
inline parse_outcome set_self_test(options& o, const std::string& flag, const std::string&) {
    return set_mode(o, flag, options::mode::self_test);
}

// --start-at T (Unix seconds) or --start-in S (from now): from a day ago to 7 days ahead. A start
// more than a day past is a mistake (a time in ms, a stale script), not a start "at once".
inline parse_outcome set_start(options& o, const std::string& flag, const std::string& v) {
    double s = -1;
    const bool number = mb::detail::parse_real(v, s);
    const double now_ms = static_cast<double>(mb::realtime_ns() / 1'000'000);
    const double at_ms = flag == "--start-at" ? s * 1000 : now_ms + s * 1000;
    constexpr double day_ms = 24 * 3'600'000.0;
    const double ahead_ms = static_cast<double>(mb::defaults::max_start_ahead_ms);
    if (!number || s < 0 || at_ms < now_ms - day_ms || at_ms > now_ms + ahead_ms) {
        if (flag == "--start-at")
            return bad_value("--start-at needs a Unix time in seconds, from a day ago to 7 days ahead", v);
        return bad_value(range_rule("--start-in", 0, mb::defaults::max_start_ahead_ms / 1000, " seconds"), v);
    }
    o.start_at_unix_ms = std::max<std::int64_t>(1, static_cast<std::int64_t>(at_ms));
    return {};
}

// -p FILE (POST) and -u FILE (PUT).
inline parse_outcome set_body(options& o, const std::string& flag, const std::string& v) {
    if (!read_file(v.c_str(), o.body))
        return usage_errorf("cannot read %s file '%s': %s", flag.c_str(), shown(v).c_str(), std::strerror(errno));
    o.method = flag == "-p" ? "POST" : "PUT";
    o.sent_body = true;
    return {};
}

// -f PROTOCOL: ab's names for one protocol version, or ALL.
inline parse_outcome set_tls_protocol(options& o, const std::string&, const std::string& v) {
    const std::pair<const char*, std::uint16_t> names[] = {
        {"ALL", 0}, {"TLS1", 0x0301}, {"TLS1.1", 0x0302}, {"TLS1.2", 0x0303}, {"TLS1.3", 0x0304}};
    for (const auto& n : names) {
        if (!mb::detail::iequals(v, n.first)) continue;
        o.tls.version = n.second;
        return {};
    }
    if (mb::detail::iequals(v, "SSL2") || mb::detail::iequals(v, "SSL3"))
        return bad_value("-f: SSL 2 and 3 are gone from OpenSSL 3; use TLS1.2 or TLS1.3", v);
    return bad_value("-f needs a protocol: TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL", v);
}

// The percentile a gate flag names ("--max-p99.9-ms" -> 99.9), or false.
inline bool gate_percentile(const std::string& flag, double& p) {
    std::vector<double> one;
    if (flag.size() < 11 || !mb::parse_percentile_list(flag.substr(7, flag.size() - 10), one) || one.size() != 1)
        return false;
    p = one[0];
    return true;
}

inline parse_outcome add_gate(options& o, const std::string& flag, const std::string& v) {
    double p = 0;
    double limit = 0;
    if (!gate_percentile(flag, p)) return usage_errorf("unknown option %s (write --max-p99-ms X)", flag.c_str());
    if (!mb::detail::parse_real(v, limit) || !(limit > 0) || !std::isfinite(limit))
        return usage_errorf("%s needs a positive number of milliseconds, not '%s'", flag.c_str(), shown(v).c_str());
    o.limits.max_percentile_ms.push_back({p, limit});
    return {};
}

inline parse_outcome add_header(options& o, const std::string&, const std::string& v) {
    mb::header h;
    if (mb::parse_header_line(v, h)) return bad_value("-H needs 'Name: value'", v);
    o.headers.push_back(h);
    return {};
}

inline parse_outcome add_connect_to(options& o, const std::string&, const std::string& v) {
    mb::connect_rule rule;
    if (!mb::parse_connect_rule(v, rule))
        return bad_value("--connect-to needs HOST:PORT:ADDR:PORT (each may be empty; IPv6 in brackets)", v);
    o.connect_to.push_back(v);
    return {};
}

inline parse_outcome set_unix_socket(options& o, const std::string&, const std::string& v) {
    mb::endpoint at;
    if (!mb::unix_endpoint(v, at)) return bad_value("--unix-socket needs a path of 1 to 107 bytes", v);
    o.unix_socket = v;
    return {};
}

// --rate R, or FROM:TO (a ramp over the duration; either end may be 0).
inline parse_outcome set_rate(options& o, const std::string&, const std::string& v) {
    const std::size_t colon = v.find(':');
    double from = 0, to = -1;
    const bool read = mb::detail::parse_real(v.substr(0, colon), from) &&
                      (colon == std::string::npos || mb::detail::parse_real(v.substr(colon + 1), to));
    const double top = mb::defaults::max_rate;
    const bool fits = colon == std::string::npos ? from >= mb::defaults::min_rate && from <= top
                                                 : from >= 0 && from <= top && to >= 0 && to <= top && from + to > 0;
    if (!read || !fits)
        return bad_value("--rate needs requests per second from 0.001 to 10000000, or FROM:TO (each 0 to 10000000) "
                         "to ramp over -t",
                         v);
    o.rate = from;
    o.rate_to = to;
    return {};
}

// --stages 30s:100,1m:1000,30s:0: each DURATION:RATE ramps to RATE over DURATION (k6's stages).
inline parse_outcome set_stages(options& o, const std::string&, const std::string& v) {
    o.stages.clear();
    for (std::size_t at = 0; at <= v.size();) {
        const std::size_t comma = std::min(v.find(',', at), v.size());
        const std::string item = v.substr(at, comma - at);
        const std::size_t colon = item.find(':');
        mb::rate_stage s;
        if (colon == std::string::npos || !parse_duration_ms(item.substr(0, colon).c_str(), s.duration_ms) ||
            !mb::detail::parse_real(item.substr(colon + 1), s.target) || !(s.target >= 0) ||
            s.target > mb::defaults::max_rate || o.stages.size() == mb::defaults::max_stages)
            return usage_error("--stages needs DURATION:RATE,... (at most 1000; 30s:100 ramps to 100/s over 30 s, "
                               "rates 0 to 10000000): '" + shown(item) + "' is not one");
        o.stages.push_back(s);
        at = comma + 1;
    }
    return {};
}

// --max-failures-ratio F: 0 (no failure allowed) to 1.
inline parse_outcome set_failures_ratio(options& o, const std::string&, const std::string& v) {
    double f = 0;
    if (!mb::detail::parse_real(v, f) || !(f >= 0 && f <= 1))
        return bad_value("--max-failures-ratio needs a ratio from 0 to 1", v);
    o.max_failures_ratio = f;
    return {};
}

// --warmup D: 0 (none), or 10ms to 1h.
inline parse_outcome set_warmup(options& o, const std::string&, const std::string& v) {
    std::int64_t ms = 0;
    if (v != "0" && (!parse_duration_ms(v.c_str(), ms) || ms < 10 || ms > 3'600'000))
        return bad_value("--warmup needs 0, or a duration from 10ms to 1h", v);
    o.warmup_ms = ms;
    return {};
}

inline parse_outcome add_cookie(options& o, const std::string&, const std::string& v) {
    o.headers.push_back({"Cookie", v});
    return {};
}

inline parse_outcome add_basic_auth(options& o, const std::string&, const std::string& v) {
    if (v.find(':') == std::string::npos) return usage_error("-A needs user:password");
    std::string encoded;
    mb::base64_encode(v, encoded);
    o.headers.push_back({"Authorization", "Basic " + encoded});
    return {};
}

inline parse_outcome set_head(options& o, const std::string&, const std::string&) {
    o.method = "HEAD";
    o.head_given = true;
    return {};
}

inline parse_outcome set_expect_status(options& o, const std::string&, const std::string& v) {
    for (std::size_t at = 0; at <= v.size();) {
        const std::size_t comma = v.find(',', at);
        std::uint64_t n = 0;
        if (!parse_uint(v.substr(at, comma == std::string::npos ? std::string::npos : comma - at).c_str(), 100, 999, n))
            return bad_value("--expect-status needs status codes (100-999) separated by commas", v);
        o.expect_status.push_back(static_cast<int>(n));
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return {};
}

inline parse_outcome set_percentiles(options& o, const std::string&, const std::string& v) {
    if (!mb::parse_percentile_list(v, o.percentiles))
        return bad_value("--percentiles needs numbers from 0 to 100 separated by commas", v);
    return {};
}

inline parse_outcome set_expect_body_contains(options& o, const std::string&, const std::string& v) {
    if (v.empty()) return bad_value("--expect-body-contains needs the text the body must contain", v);
    o.expect_body_contains = v;
    return {};
}

inline parse_outcome set_expect_body_regex(options& o, const std::string&, const std::string& v) {
    std::string why;  // compiled once, here, where a refusal can say why; the plan shares it
    o.expect_body_regex = mb::body_regex::compile(v, why);
    if (!o.expect_body_regex)
        return usage_error("--expect-body-regex '" + shown(v) + "' is not a POSIX extended regular expression: " + why);
    return {};
}

inline parse_outcome set_expect_body(options& o, const std::string&, const std::string& v) {
    if (!read_file(v.c_str(), o.expect_body))
        return usage_errorf("cannot read --expect-body file '%s': %s", shown(v).c_str(), std::strerror(errno));
    o.expect_body_path = v;
    return {};
}

// --targets FILE|-: its bytes now (stdin's for -), read into targets by check_targets.
inline parse_outcome set_targets(options& o, const std::string&, const std::string& v) {
    bool too_long = false;
    errno = 0;
    if (!mb::detail::read_whole_file(v == "-" ? "/dev/stdin" : v, o.targets_text, mb::defaults::max_target_bytes, false,
                                     &too_long))
        return usage_errorf("cannot read --targets file '%s': %s", shown(v).c_str(),
                            too_long ? "more than 1 GiB" : std::strerror(errno));
    o.targets_path = v;
    return {};
}

inline parse_outcome set_order(options& o, const std::string&, const std::string& v) {
    if (v != "sequential" && v != "random") return bad_value("--order knows 'sequential' and 'random'", v);
    o.order_random = v == "random";
    return {};
}

inline parse_outcome set_check(options& o, const std::string&, const std::string& v) {
    if (v != "factorial") return bad_value("--check knows 'factorial'", v);
    o.check_factorial = true;
    return {};
}

inline parse_outcome set_arrivals(options& o, const std::string&, const std::string& v) {
    if (v != "poisson" && v != "uniform") return bad_value("--arrivals knows 'uniform' and 'poisson'", v);
    o.poisson = v == "poisson";
    return {};
}

// --interval D: from 10ms to 1h, or 0 (or off) for none.
inline parse_outcome set_interval(options& o, const std::string&, const std::string& v) {
    if (v == "0" || v == "off") {
        o.interval_ms = 0;
        return {};
    }
    if (!parse_duration_ms(v.c_str(), o.interval_ms) || o.interval_ms < mb::defaults::min_interval_ms ||
        o.interval_ms > mb::defaults::max_interval_ms)
        return bad_value("--interval must be from 10ms to 1h (like 250ms, 1s, 1m), or 0 for none", v);
    return {};
}

// --cacert FILE: trust its authorities, which implies --verify.
inline parse_outcome set_ca_file(options& o, const std::string&, const std::string& v) {
    std::string pem;
    if (!read_file(v.c_str(), pem))
        return usage_errorf("cannot read --cacert file '%s': %s", shown(v).c_str(), std::strerror(errno));
    o.tls.ca_file = v;
    o.tls.verify = true;
    return {};
}

inline parse_outcome set_shard(options& o, const std::string&, const std::string& v) {
    if (parse_shard(v, o.shard_index, o.shard_count)) return {};
    return bad_value(
        "--shard needs I/N: shard I (from 0) of N generators, N from 1 to " + std::to_string(mb::defaults::max_shards),
        v);
}

inline parse_outcome print_version(options&, const std::string& flag, const std::string&) {
    std::printf(flag == "-V" ? "microbench %s (ab-compatible)\n" : "microbench %s\n", mb::version_string);
    return {true, 0};
}

inline std::string long_usage();

inline parse_outcome print_usage(options&, const std::string& flag, const std::string&) {
    std::fputs((flag == "--help-all" ? long_usage() : short_usage()).c_str(), stdout);
    return {true, 0};
}

// --- The table ----------------------------------------------------------------------------------

struct option_list {
    const option_spec* first;
    std::size_t count;
    const option_spec* begin() const { return first; }
    const option_spec* end() const { return first + count; }
};

constexpr double no_limit = 18446744073709551616.0;  // 2^64: a count with no upper bound but its type's

// A row's kind fits its field: a number kind a number field whose type holds hi, a text kind a
// text field, a switch a flag; a function exactly where the kind calls one.
constexpr bool row_fits(const option_spec& s) {
    using t = field::type;
    const t f = s.to.is;
    const bool function = s.reads == kind::act || s.reads == kind::custom || s.reads == kind::each;
    if (function != (s.apply != nullptr)) return false;
    switch (s.reads) {
        case kind::on: return f == t::boolean || f == t::tls_boolean;
        case kind::accepted: return f == t::none;
        case kind::off: return f == t::boolean || f == t::tls_boolean;
        case kind::count:
            return s.lo <= s.hi &&
                   ((f == t::u32 && s.hi <= 4294967295.0) || (f == t::integer && s.hi <= 2147483647.0) ||
                    ((f == t::u64 || f == t::gate_u64) && s.hi <= no_limit) || (f == t::i64 && s.hi < 9.2e18));
        case kind::seconds:
        case kind::duration: return f == t::i64 && s.lo <= s.hi;
        case kind::real: return (f == t::real || f == t::gate_real) && s.lo <= s.hi;
        case kind::text:
        case kind::file:
        case kind::file_or_dash:
        case kind::readable: return f == t::text || f == t::tls_text;
        case kind::refuse: return f == t::none && s.unit[0] != '\0';
        case kind::act:
        case kind::custom:
        case kind::each: return f == t::none;
    }
    return false;
}

constexpr bool same_text(const char* a, const char* b) {
    if (!a || !b) return a == b;
    while (*a && *a == *b) {
        ++a;
        ++b;
    }
    return *a == *b;
}

// Every row fits (above), the https section's rows and only they need https, and no name is
// given twice.
template <std::size_t n>
constexpr bool rows_fit(const option_spec (&rows)[n]) {
    for (std::size_t i = 0; i < n; ++i) {
        const option_spec& s = rows[i];
        if (!row_fits(s) || (s.part == section::tls) != (s.needs == feature::tls)) return false;
        for (std::size_t j = i + 1; j < n; ++j) {
            if (s.short_name && s.short_name == rows[j].short_name) return false;
            if (s.long_name && same_text(s.long_name, rows[j].long_name)) return false;
        }
    }
    return true;
}

// ab's -w -x -y -z (its HTML tables), refused: pointing at --html where this build has it.
constexpr const char* html_refusal = built(feature::html)
                                         ? "(HTML output) is not supported: --html FILE writes microbench's report"
                                         : "(HTML output) is not supported";

// clang-format off
// The options, in --help-all's order within each section.
inline option_list option_table() {
    using mb::defaults::max_duration_ms;
    static constexpr option_spec table[] = {
        {'n', nullptr, nullptr, kind::count, &options::requests, workload, section::ab, "-n requests",
         "Number of requests to perform (default 1).", 1, 1e12, " requests"},
        {'c', nullptr, nullptr, kind::count, &options::concurrency, workload, section::ab, "-c concurrency",
         "Number of connections kept busy at once (default 1); at most -n.",
         1, mb::defaults::max_concurrency, " connections"},
        {'t', nullptr, nullptr, kind::seconds, &options::duration_ms, workload, section::ab, "-t timelimit",
         "Seconds to run. Unlike ab there is no implied 50000-request cap; with -n too,\n"
         "whichever limit comes first ends the run.", 1, max_duration_ms / 1000, " seconds (30 days)"},
        {'s', nullptr, nullptr, kind::seconds, &options::timeout_ms, suite_too, section::ab, "-s timeout",
         "Seconds before a request times out (default 30). The request is counted as\n"
         "failed (timeout) and the run goes on.", 1, mb::defaults::max_timeout_ms / 1000, " seconds"},
        {'k', nullptr, nullptr, kind::on, &options::keep_alive, workload, section::ab, "-k",
         "Use HTTP keep-alive (HTTP/1.1, works with chunked bodies and without a\nKeep-Alive response header)."},
        {'H', nullptr, nullptr, kind::each, {}, suite_too, section::ab, "-H 'Name: value'",
         "Add a header; one named like a default (Host, User-Agent, Accept) replaces it.", 0, 0, "", add_header},
        {'C', nullptr, nullptr, kind::each, {}, suite_too, section::ab, "-C name=value",
         "Add a Cookie header (repeatable).", 0, 0, "", add_cookie},
        {'A', nullptr, nullptr, kind::custom, {}, suite_too, section::ab, "-A user:pass",
         "Add Basic authentication.", 0, 0, "", add_basic_auth},
        {'p', nullptr, nullptr, kind::custom, {}, workload, section::ab, "-p file",
         "POST the file's contents.", 0, 0, "", set_body},
        {'u', nullptr, "-p", kind::custom, {}, workload, section::ab, "-u file",
         "PUT the file's contents.", 0, 0, "", set_body},
        {'T', nullptr, nullptr, kind::text, &options::content_type, workload, section::ab, "-T content-type",
         "Content-Type of the body (default text/plain)."},
        {'m', nullptr, nullptr, kind::text, &options::method, workload, section::ab, "-m method",
         "Use this method."},
        {'i', nullptr, "-m", kind::act, {}, workload, section::ab, "-i",
         "Use HEAD.", 0, 0, "", set_head},
        {'B', nullptr, nullptr, kind::text, &options::bind_address, workload, section::ab, "-B address",
         "Local address(es) to connect from: one, a list (10.0.0.5,10.0.0.6) or an IPv4\n"
         "range (127.0.0.2-127.0.0.9); connections take them in turn, each with its own\n"
         "~28,000 ports per target (IP_BIND_ADDRESS_NO_PORT).", 0, 0, "an address, a list or a range"},
        {'b', nullptr, nullptr, kind::count, &options::socket_buffer_bytes, workload, section::ab, "-b windowsize",
         "Size of the TCP send/receive buffers, in bytes.", 512, mb::defaults::max_socket_buffer_bytes, " bytes"},
        {'e', nullptr, nullptr, kind::file_or_dash, &options::csv_path, in_single, section::ab, "-e file",
         "Write ab's CSV: percentage served (0-100) and time in ms (- for stdout)."},
        {'g', nullptr, nullptr, kind::file_or_dash, &options::gnuplot_path, in_single, section::ab, "-g file",
         "Write ab's gnuplot TSV, a row per request (with -t alone: the first 1000000; - for stdout)."},
        {'l', nullptr, nullptr, kind::off, &options::length_check, workload, section::ab, "-l",
         "Accept responses of varying length (no Length failures)."},
        {'r', nullptr, nullptr, kind::accepted, {}, everywhere, section::ab, "-r",
         "Accepted for compatibility: microbench never stops on errors."},
        {'q', nullptr, nullptr, kind::on, &options::quiet, everywhere, section::ab, "-q",
         "No progress output."},
        {'S', nullptr, nullptr, kind::on, &options::short_table, in_single, section::ab, "-S",
         "Short connection table."},
        {'d', nullptr, nullptr, kind::on, &options::no_percentiles, in_single, section::ab, "-d",
         "No percentile table."},
        {'v', nullptr, nullptr, kind::count, &options::verbosity, in_single, section::ab, "-v level",
         "2 or more: print the request sent, as ab's \"INFO: GET header ==\" block. ab's lines\n"
         "per response (at 2: LOG: header received, WARNING: Response code not 2xx; from 3:\n"
         "LOG: Response code =) are not printed: status codes are counted instead (in the\n"
         "JSON), and microbench-inspect shows how one response is read.", 0, 5},
        {'V', nullptr, nullptr, kind::act, {}, everywhere, section::ab, "-V",
         "Print the version, as ab does.", 0, 0, "", print_version},
        {'h', "help", nullptr, kind::act, {}, everywhere, section::ab, "-h, --help",
         "Print the short usage.", 0, 0, "", print_usage},

        {0, "version", nullptr, kind::act, {}, everywhere, section::own, "--version",
         "Print the version alone.", 0, 0, "", print_version},
        {'W', "threads", nullptr, kind::count, &options::threads, suite_too, section::own, "-W N, --threads N",
         "Worker threads, each with its own epoll loop (default 1).", 1, mb::defaults::max_threads, " threads"},
        {0, "duration", "-t", kind::duration, &options::duration_ms, workload, section::own, "--duration D",
         "Like -t, with units: 500ms, 10s, 2m (a plain number is seconds).", 1, max_duration_ms, " ms (30 days)"},
        {0, "pipeline", nullptr, kind::count, &options::pipeline, workload, section::own, "--pipeline N",
         "Requests in flight per connection (needs -k; default 1).", 1, mb::defaults::max_pipeline},
        {0, "timeout-ms", "-s", kind::count, &options::timeout_ms, suite_too, section::own, "--timeout-ms N",
         "Request timeout in milliseconds.", 1, mb::defaults::max_timeout_ms},
        {0, "json", nullptr, kind::file_or_dash, &options::json_path, everywhere, section::own, "--json FILE|-",
         "Write the whole result as JSON (- = stdout, instead of the report)."},
        {0, "hgrm", nullptr, kind::file_or_dash, &options::hgrm_path, in_single, section::own, "--hgrm FILE|-",
         "Write the percentile spectrum as HdrHistogram's .hgrm text in ms (what\n"
         "HdrHistogram_c's hdr_percentiles_print prints; its plotter reads it): the total\n"
         "time; at a fixed rate the response time, and the service time in FILE with\n"
         ".service before its extension (- = stdout: both, each after a title line)."},
        {0, "hlog", nullptr, kind::file_or_dash, &options::hlog_path, in_single, section::own, "--hlog FILE|-",
         "Write HdrHistogram's interval log (format 1.3; its log processor, plotter\n"
         "and libraries read it), a row per metric as each interval closes: Tag=total;\n"
         "at a fixed rate Tag=response, Tag=service and Tag=schedule_lag (ns; 1s\n"
         "intervals unless --interval says)."},
        {0, "interval-histograms", nullptr, kind::on, &options::interval_histograms, in_single, section::own,
         "--interval-histograms",
         "Keep each interval's histograms in --json (1s intervals unless --interval\n"
         "says): microbench merge then gives merged intervals exact percentiles, and\n"
         "microbench-hlog --from RESULT.json writes them as HdrHistogram's log."},
        {0, "html", nullptr, kind::file, &options::html_path, everywhere, section::own, "--html FILE",
         "Write the report as one self-contained HTML file (inline SVG charts, no\n"
         "script or link): latency by percentile, throughput and response time over\n"
         "time, the summary, failures, status codes, checks and the configuration.\n"
         "Every mode has it; --compare and --suite draw A and B together.", 0, 0, "", nullptr, feature::html},
        {0, "latency", nullptr, kind::on, &options::latency, in_single, section::own, "--latency",
         "Add a latency section in microseconds (exact min/mean/max)."},
        {0, "rate", nullptr, kind::custom, {}, workload, section::own, "--rate R | FROM:TO",
         "Send R requests per second on a fixed schedule (the open model), with at\n"
         "most -c in flight. Adds response time (from the intended send time: what a\n"
         "user in line sees), service time and schedule lag, and says when the\n"
         "generator could not hold the rate. Not with --pipeline. FROM:TO ramps\n"
         "linearly from FROM to TO per second over -t (either may be 0).", 0, 0, "", set_rate},
        {0, "stages", nullptr, kind::custom, {}, workload, section::own, "--stages D:R,...",
         "A fixed rate in stages, as k6's: each DURATION:RATE ramps linearly to RATE\n"
         "over DURATION from where the last left it (from --rate R, else 0); a stage\n"
         "with the last one's rate holds: --stages 30s:100,1m:100,30s:0. The run lasts\n"
         "their total; each intended send time comes from the curve (Poisson too),\n"
         "interval rows carry its target, and the report gives each stage apart.", 0, 0, "", set_stages},
        {0, "arrivals", nullptr, kind::custom, {}, workload, section::own, "--arrivals KIND",
         "At a fixed rate: uniform (the default: evenly spaced) or poisson (independent\n"
         "arrivals, exponential gaps averaging 1/R, as many users acting alone).", 0, 0, "", set_arrivals},
        {0, "seed", nullptr, kind::count, &options::seed, workload, section::own, "--seed S",
         "Seed of the Poisson arrivals and of --order random (default 0): the same\n"
         "seed, the same schedule and picks.", 0, no_limit},
        {0, "max-batch-lag", nullptr, kind::count, &options::max_batch_lag_us, workload, section::own,
         "--max-batch-lag US",
         "At a fixed rate: send a request up to US microseconds late (0 to 10000) when\n"
         "one wake of its thread can then send it with the requests due after it; each\n"
         "is still timed from its own intended time. Fewer wakes, less client CPU; lag\n"
         "grows by at most US. Default 50.", 0, mb::defaults::batch_lag_limit_us},
        {0, "interval", nullptr, kind::custom, {}, workload, section::own, "--interval D",
         "Statistics per interval of D (10ms to 1h; 0 for none): requests sent and\n"
         "ended, failures, achieved rate, p50/p90/p99/max response time (and schedule\n"
         "lag at a fixed rate). Default 1s with --rate, --intervals, --hlog or\n"
         "--interval-histograms, else none. In --json as \"intervals\"; a summary in\n"
         "the report. Memory: a small row per interval (and its histograms, a few KB,\n"
         "with --interval-histograms).", 0, 0, "", set_interval},
        {0, "intervals", nullptr, kind::file_or_dash, &options::intervals_path, in_single, section::own,
         "--intervals FILE|-",
         "Write the intervals as CSV, a row as each one closes (tail -f works); - for\n"
         "stdout, instead of the report."},
        {0, "no-ranges", nullptr, kind::on, &options::no_ranges, suite_too, section::own, "--no-ranges",
         "Send the URL's braces as written: without it, {A..B} (integers, 08..11 zero-\n"
         "padded) and {a,b,c} in the path and query are ranges, and the run's requests\n"
         "go in turn to every URL they stand for (up to 1,000,000; --compare too).",
         0, 0, "", nullptr, feature::targets},
        {0, "percentiles", nullptr, kind::custom, {}, suite_too, section::own, "--percentiles LIST",
         "Percentiles for --latency and --json (default 50,90,99,99.9,99.99).", 0, 0, "", set_percentiles},
        {0, "expect-status", nullptr, kind::custom, {}, workload, section::own, "--expect-status LIST",
         "Only these statuses succeed; others fail with reason 'check'.", 0, 0, "", set_expect_status},
        {0, "no-length-check", "-l", kind::off, &options::length_check, workload, section::own, "--no-length-check",
         "Same as -l."},
        {0, "expect-body", nullptr, kind::custom, {}, workload, section::own, "--expect-body FILE",
         "The body must equal the file's contents (else: failure 'check').", 0, 0, "", set_expect_body},
        {0, "expect-body-contains", nullptr, kind::custom, {}, workload, section::own, "--expect-body-contains TEXT",
         "The body must contain TEXT (else: failure 'check').", 0, 0, "", set_expect_body_contains},
        {0, "expect-body-regex", nullptr, kind::custom, {}, workload, section::own, "--expect-body-regex RE",
         "The body must match RE, a POSIX extended regular expression found anywhere\n"
         "in it (^ and $ anchor it to the body's ends), and be at most 1 MiB.", 0, 0, "", set_expect_body_regex},
        {0, "check", nullptr, kind::custom, {}, suite_too, section::own, "--check factorial",
         "The body must be exactly n! for /factorial/{n} or /factorial?n=N,\n"
         "as text or as JSON {\"factorial\": n!} with any whitespace. With ranges\n"
         "in the URL, each URL's own n, and a line says where answers turn wrong:\n"
         "right for n = 0..20; wrong from n = 21 (status 200, answer ...).", 0, 0, "", set_check},
        {0, "targets", nullptr, kind::custom, {}, in_single, section::own, "--targets FILE|-",
         "Send the targets of a vegeta targets file (- for stdin), in turn, instead\n"
         "of a URL: 'METHOD URL' lines, each with its headers and an optional\n"
         "'@FILE' body line, blank lines between, '#' comments; or JSON lines\n"
         "{\"method\",\"url\",\"header\":{\"Name\":[\"value\"]},\"body\":\"<base64>\"}. One\n"
         "origin; a fault is named by file:line:column and nothing is sent.",
         0, 0, "", set_targets, feature::targets},
        {0, "order", nullptr, kind::custom, {}, in_single, section::own, "--order sequential|random",
         "How each request picks its target (ranges, --targets): in turn (the\n"
         "default; worker w of W sends its k-th to target (w + k*W) mod N), or at\n"
         "random from --seed (the same seed, the same picks).", 0, 0, "", set_order, feature::targets},
        {0, "each-once", nullptr, kind::on, &options::each_once, in_single, section::own, "--each-once",
         "Send each target exactly once: -n is the number of targets (give no -n);\n"
         "with --order random, in a shuffle from --seed. A shard sends each of its\n"
         "stretch once.", 0, 0, "", nullptr, feature::targets},
        {0, "connect-to", nullptr, kind::each, {}, workload, section::own, "--connect-to HOST:PORT:ADDR:PORT",
         "Connect to ADDR:PORT when the URL names HOST:PORT, as curl does: the Host\n"
         "header, SNI and --verify still name HOST. An empty HOST or PORT matches any;\n"
         "an empty ADDR or PORT keeps the URL's. Several allowed: the first that\n"
         "matches applies. The report says where it connected.", 0, 0, "", add_connect_to},
        {0, "unix-socket", nullptr, kind::custom, {}, suite_too, section::own, "--unix-socket PATH",
         "Connect to the Unix socket at PATH instead of the URL's host and port, as\n"
         "curl does: the URL still gives the Host header and the path (and SNI for\n"
         "https). Not with -B or --connect-to. The report says where it connected.", 0, 0, "", set_unix_socket},
        {0, "by-target", nullptr, kind::on, &options::by_target, workload, section::own, "--by-target",
         "With ranges or --targets: a table of the targets, the worst first (failed,\n"
         "non-2xx, wrong answers, p50 and p99 within 10%), at most 1,000 rows, the\n"
         "rest folded into one; always in --json. About 1.1 KB a target.",
         0, 0, "", nullptr, feature::targets},

        {'f', nullptr, nullptr, kind::custom, {}, suite_too, section::tls, "-f protocol",
         "Speak only this TLS version: TLS1, TLS1.1, TLS1.2, TLS1.3, or ALL (the default).",
         0, 0, "", set_tls_protocol, feature::tls},
        {'Z', nullptr, nullptr, kind::text, &mb::tls_options::ciphers, suite_too, section::tls, "-Z ciphers",
         "OpenSSL cipher names (ab -Z); TLS_* names choose TLS 1.3's suites.", 0, 0, "cipher names", nullptr,
         feature::tls},
        {'E', nullptr, nullptr, kind::readable, &mb::tls_options::certificate_file, suite_too, section::tls,
         "-E certfile",
         "Client certificate chain and its private key, in one PEM file.", 0, 0, "", nullptr, feature::tls},
        {'I', nullptr, nullptr, kind::off, &mb::tls_options::server_name, suite_too, section::tls, "-I",
         "Send no server name (SNI); none is sent for an IP address anyway.", 0, 0, "", nullptr, feature::tls},
        {0, "verify", nullptr, kind::on, &mb::tls_options::verify, suite_too, section::tls, "--verify",
         "Check the server's certificate and that it names the host (off by default,\n"
         "as in ab, wrk and h2load); a refusal is a `tls` failure with its reason.", 0, 0, "", nullptr, feature::tls},
        {0, "cacert", nullptr, kind::custom, {}, suite_too, section::tls, "--cacert FILE",
         "Trust the authorities in this PEM file instead of the system's (implies --verify).", 0, 0, "", set_ca_file,
         feature::tls},
        {0, "tls-resume", nullptr, kind::on, &mb::tls_options::resume, suite_too, section::tls, "--tls-resume",
         "Resume sessions on new connections: each thread keeps the tickets\n"
         "servers send and offers a TLS 1.3 one once; by default each connection\n"
         "makes a full handshake, as in ab.", 0, 0, "", nullptr, feature::tls},

        {0, "max-failures", nullptr, kind::count, &mb::gates::max_failures, gated, section::gates, "--max-failures N",
         "At most N failed requests.", 0, no_limit},
        {0, "max-pNN-ms", nullptr, kind::custom, {}, gated, section::gates, "--max-pNN-ms X",
         "Total time percentile NN (e.g. p99, p99.9, p50) at most X ms.", 0, 0, "", add_gate},
        {0, "min-rps", nullptr, kind::real, &mb::gates::min_rps, gated, section::gates, "--min-rps R",
         "At least R requests per second.", 0, HUGE_VAL},
        {0, "junit", nullptr, kind::file, &options::junit_path, everywhere, section::gates, "--junit FILE",
         "Write the gates' verdicts as JUnit XML (what Jenkins and GitLab read): each\n"
         "run a test suite (each scenario of --suite and --self-test, each side of\n"
         "--compare), each gate and the checks a test case, a broken one a <failure>\n"
         "with the figure, the limit and the difference. A gate over no response is\n"
         "broken. Without gates, one case per run that fails when nothing came back."},

        {0, "suite", nullptr, kind::act, {}, everywhere, section::suites, "--suite URL [URL_B]",
         "The five scenarios of the classic comparison: basic load (-n 10000 -c 100),\n"
         "latency (-n 1000 -c 1), failure rate (-n 10000 -c 10), keep-alive\n"
         "(-n 10000 -c 10 -k), stress (-n 50000 -c 200); one table (and --json).\n"
         "With URL_B, both targets side by side with ratios.", 0, 0, "",
         set_suite},
        {0, "scale", nullptr, kind::real, &options::scale, in_suite | in_self_test, section::suites, "--scale F",
         "Multiply every suite request count by F (e.g. 0.1 on a small device).", 0, 100},
        {0, "compare", nullptr, kind::act, {}, everywhere, section::suites, "--compare URL_A URL_B",
         "The workload given by the other flags against both, in alternating\n"
         "rounds (--rounds N, default 3; the median round by requests/s is shown).", 0, 0, "",
         set_compare},
        {0, "rounds", nullptr, kind::count, &options::rounds, in_compare, section::suites, "--rounds N",
         "Rounds of --compare (1 to 100; default 3).", 1, 100},
        {0, "self-test", nullptr, kind::act, {}, everywhere, section::suites, "--self-test",
         "Start the built-in server and run the suite (scale 0.25, or --scale)\n"
         "against /factorial/100 and /factorial?n=100 with the factorial check;\n"
         "exit 0 only if every request passed.", 0, 0, "",
         set_self_test},
        {0, "find-capacity", nullptr, kind::on, &options::find_capacity, in_single, section::suites,
         "--find-capacity",
         "Find the highest fixed rate the server holds with its response-time p99\n"
         "within --max-p99-ms X (required): short steps at one rate each (a warm-up,\n"
         "then a measured window), doubling while they hold, then halving the gap\n"
         "between the highest held and the lowest failed; a failed step is run once\n"
         "more before it counts. Every step on stderr as it ends, the table on\n"
         "stdout, --json and --html. Uses -c, -k, --threads, -H, checks and TLS; sets\n"
         "-n, -t and the rate itself. Exit 0 a rate held, 3 none did.", 0, 0, ""},
        {0, "max-failures-ratio", nullptr, kind::custom, {}, in_single, section::suites, "--max-failures-ratio F",
         "--find-capacity: failed / ended a step may have (0 to 1; default 0.01).", 0, 0, "", set_failures_ratio},
        {0, "start-rate", nullptr, kind::real, &options::start_rate, in_single, section::suites, "--start-rate R",
         "--find-capacity: the first step's rate (default 100).", mb::defaults::min_rate, mb::defaults::max_rate,
         " requests per second"},
        {0, "max-rate", nullptr, kind::real, &options::max_rate, in_single, section::suites, "--max-rate R",
         "--find-capacity: no step above this (default 1000000).", mb::defaults::min_rate, mb::defaults::max_rate,
         " requests per second"},
        {0, "warmup", nullptr, kind::custom, {}, in_single, section::suites, "--warmup D",
         "--find-capacity: each step's warm-up, not measured (0, or 10ms to 1h; default\n1s).", 0, 0, "",
         set_warmup},
        {0, "step", nullptr, kind::duration, &options::step_ms, in_single, section::suites, "--step D",
         "--find-capacity: each step's measured window (10ms to 1h; default 5s),\n"
         "longer when --min-responses would not fit.", 10, 3'600'000},
        {0, "min-responses", nullptr, kind::count, &options::min_responses, in_single, section::suites,
         "--min-responses N",
         "--find-capacity: a window lasts long enough for N responses at its rate\n"
         "(default 1000; at most a minute).", 1, 1'000'000'000},
        {0, "help-all", nullptr, kind::act, {}, everywhere, section::suites, "--help-all",
         "This text.", 0, 0, "", print_usage},

        {0, "shard", nullptr, kind::custom, {}, in_single, section::generators, "--shard I/N",
         "Be shard I (from 0) of N generators: take 1/N of -n, -c and --rate (the first\n"
         "shards one more request or connection when they do not divide); fixed-rate\n"
         "schedules and Poisson seeds interleave across shards. Without the flag, the\n"
         "environment's JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) and\n"
         "MICROBENCH_SHARDS (N) give it. The --json says which shard it was.", 0, 0, "", set_shard},
        {0, "start-at", nullptr, kind::custom, {}, in_single, section::generators, "--start-at T",
         "Start at Unix time T (seconds, fractions allowed), so generators on several\n"
         "machines begin together; connects nothing before. A time up to a day past\n"
         "starts at once; one further back is refused.", 0, 0, "", set_start},
        {0, "start-in", "--start-at", kind::custom, {}, in_single, section::generators, "--start-in S",
         "Start S seconds from now.", 0, 0, "", set_start},
        {0, "check-args", nullptr, kind::on, &options::check_args, everywhere, section::generators, "--check-args",
         "Check the arguments (URL, flags, shard, -B's addresses) and exit 0 if they\n"
         "are valid; run nothing, connect nowhere and resolve no name (-B's family is\n"
         "checked against a target given as an address; the run checks it for a name)."},

        {'X', nullptr, nullptr, kind::refuse, {}, everywhere, section::unsupported, "-X proxy:port, -P user:pass",
         "(proxy)", 0, 0, "(proxy) is not supported"},
        {'P', nullptr, nullptr, kind::refuse, {}, everywhere, section::unsupported, nullptr, nullptr, 0, 0,
         "(proxy) is not supported"},
        {'w', nullptr, nullptr, kind::refuse, {}, everywhere, section::unsupported, "-w, -x, -y, -z",
         "(ab's HTML tables)", 0, 0, html_refusal},
        {'x', nullptr, nullptr, kind::refuse, {}, everywhere, section::unsupported, nullptr, nullptr, 0, 0,
         html_refusal},
        {'y', nullptr, nullptr, kind::refuse, {}, everywhere, section::unsupported, nullptr, nullptr, 0, 0,
         html_refusal},
        {'z', nullptr, nullptr, kind::refuse, {}, everywhere, section::unsupported, nullptr, nullptr, 0, 0,
         html_refusal},
    };
    static_assert(rows_fit(table), "a row's kind does not fit its field, its range or its function");
    return {table, sizeof table / sizeof table[0]};
}
// clang-format on

}  // namespace cli
