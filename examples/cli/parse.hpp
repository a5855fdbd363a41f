// examples/cli/parse.hpp — reads the microbench command line against the option table
// (table.hpp): each value by its row's kind, one path per kind; a setting given twice (again,
// or under another name) is refused; then check.hpp's checks. -h and --help-all are written
// from the same table.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "check.hpp"
#include "table.hpp"

namespace cli {

// The option a long flag names (without its "--" and "=value"): every --max-p<percentile>-ms is
// the gate "max-pNN-ms". Null when none does.
inline const option_spec* find_long(const std::string& name) {
    const bool gate =
        name.size() > 7 && name.compare(0, 5, "max-p") == 0 && name.compare(name.size() - 3, 3, "-ms") == 0;
    for (const option_spec& spec : option_table())
        if (spec.long_name && std::strcmp(gate ? "max-pNN-ms" : name.c_str(), spec.long_name) == 0) return &spec;
    return nullptr;
}

inline const option_spec* find_short(char c) {
    for (const option_spec& spec : option_table())
        if (spec.short_name == c) return &spec;
    return nullptr;
}

inline bool takes_value(kind k) {
    return k != kind::on && k != kind::accepted && k != kind::off && k != kind::refuse && k != kind::act;
}

inline std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

// What a number option's value must be, for its refusal: "-c must be from 1 to 1000000 connections".
inline std::string number_rule(const std::string& flag, const option_spec& spec) {
    if (spec.reads == kind::duration)
        return flag + " must be like 500ms, 10s or 2m, from " + number_text(spec.lo) + " to " + number_text(spec.hi) +
               spec.unit;
    if (spec.reads == kind::real && spec.lo == 0) {
        if (std::isinf(spec.hi)) return flag + " needs a positive number" + spec.unit;
        return flag + " must be above 0 and at most " + number_text(spec.hi) + spec.unit;
    }
    if (spec.hi >= no_limit) return flag + " needs a whole number from " + number_text(spec.lo) + spec.unit;
    return flag + " must be from " + number_text(spec.lo) + " to " + number_text(spec.hi) + spec.unit;
}

inline void store_whole(options& o, const field& f, std::uint64_t v) {
    switch (f.is) {
        case field::type::u32: o.*f.u32 = static_cast<std::uint32_t>(v); break;
        case field::type::u64: o.*f.u64 = v; break;
        case field::type::i64: o.*f.i64 = static_cast<std::int64_t>(v); break;
        case field::type::integer: o.*f.integer = static_cast<int>(v); break;
        case field::type::gate_u64: o.limits.*f.gate_u64 = v; break;
        default: break;  // row_fits() allows no other field for a whole number
    }
}

inline void store_text(options& o, const field& f, const std::string& v) {
    if (f.is == field::type::tls_text) o.tls.*f.tls_text = v;
    else o.*f.text = v;
}

inline void store_switch(options& o, const field& f, bool on) {
    if (f.is == field::type::boolean) o.*f.boolean = on;
    else if (f.is == field::type::tls_boolean) o.tls.*f.tls_boolean = on;
}

// Reads `value` for `spec` (typed as `flag`) into `o`: the one path of each kind.
inline parse_outcome read_value(options& o, const option_spec& spec, const std::string& flag,
                                const std::string& value) {
    std::uint64_t whole = 0;
    double real = 0;
    std::int64_t ms = 0;
    switch (spec.reads) {
        case kind::on:
        case kind::off: store_switch(o, spec.to, spec.reads == kind::on); return {};
        case kind::accepted: return {};
        case kind::count:
        case kind::seconds:
            if (!mb::detail::parse_u64(value, whole) || static_cast<double>(whole) < spec.lo ||
                static_cast<double>(whole) > spec.hi)
                return bad_value(number_rule(flag, spec), value);
            store_whole(o, spec.to, spec.reads == kind::seconds ? whole * 1000 : whole);
            return {};
        case kind::real:
            if (!mb::detail::parse_real(value, real) || !std::isfinite(real) || real > spec.hi ||
                (spec.lo == 0 ? !(real > 0) : real < spec.lo))
                return bad_value(number_rule(flag, spec), value);
            if (spec.to.is == field::type::gate_real) o.limits.*spec.to.gate_real = real;
            else o.*spec.to.real = real;
            return {};
        case kind::duration:
            if (!parse_duration_ms(value.c_str(), ms) || static_cast<double>(ms) < spec.lo ||
                static_cast<double>(ms) > spec.hi)
                return bad_value(number_rule(flag, spec), value);
            o.*spec.to.i64 = ms;
            return {};
        case kind::text:
            if (value.empty() && spec.unit[0]) return usage_error(flag + " needs " + spec.unit);
            store_text(o, spec.to, value);
            return {};
        case kind::file:
            if (value.empty() || value == "-") return usage_error(flag + " needs a file name");
            store_text(o, spec.to, value);
            return {};
        case kind::file_or_dash:
            if (value.empty()) return usage_error(flag + " needs a file name, or - for stdout");
            store_text(o, spec.to, value);
            return {};
        case kind::readable: {
            std::string contents;
            if (!read_file(value.c_str(), contents))
                return usage_errorf("cannot read %s file '%s': %s", flag.c_str(), shown(value).c_str(),
                                    std::strerror(errno));
            store_text(o, spec.to, value);
            return {};
        }
        case kind::refuse: return usage_error(flag + " " + spec.unit);
        case kind::act:
        case kind::custom:
        case kind::each: return spec.apply(o, flag, value);
    }
    return {};
}

// A flag as given: the setting it changes (shared by -p and -u, -t and --duration, …; each
// percentile's gate its own), its spelling and its option.
struct given_flag {
    std::string setting, typed;
    const option_spec* spec;
};

inline bool was_given(const std::vector<given_flag>& given, const char* setting) {
    for (const given_flag& g : given)
        if (g.setting == setting) return true;
    return false;
}

// The setting a flag changes: its row's (or the row it shares one with); a gate's is its
// percentile, however written (--max-p99-ms and --max-p99.0-ms are one).
inline std::string setting_of(const option_spec& spec, const std::string& typed) {
    double p = 0;
    if (spec.sets) return spec.sets;
    if (spec.apply == add_gate && gate_percentile(typed, p)) return "--max-p" + number_text(p) + "-ms";
    if (spec.short_name) return std::string("-") + spec.short_name;
    return std::string("--") + spec.long_name;
}

// Applies `spec` as `typed` with `value`, unless its setting was given already: again, or under
// another name (switches may repeat; -H and -C add).
inline parse_outcome apply_flag(options& o, std::vector<given_flag>& given, const option_spec& spec,
                                const std::string& typed, const std::string& value) {
    if (!built(spec.needs))
        return usage_error(typed + " is not in this build of microbench (built with " + macro_of(spec.needs) + ")");
    const std::string setting = setting_of(spec, typed);
    for (const given_flag& g : given) {
        if (g.setting != setting) continue;
        if (!takes_value(g.spec->reads) && !takes_value(spec.reads)) return read_value(o, spec, typed, value);
        if (spec.reads == kind::each && g.typed == typed) break;
        if (g.typed == typed) return usage_error(typed + " is given twice: give it once");
        return usage_error(g.typed + " and " + typed + " set the same thing: give one");
    }
    given.push_back({setting, typed, &spec});
    return read_value(o, spec, typed, value);
}

// The command line into `o`: flags grouped (-kq) or with attached values (-n10), long options
// with "=value" or the next argument, "--" ending the options; then the checks of check.hpp.
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
            double level = 0;
            if (!spec) return usage_errorf("unknown option %s", flag.c_str());
            if (spec->apply == add_gate && !gate_percentile(flag, level))
                return usage_errorf("unknown option %s (write --max-p99-ms X)", flag.c_str());
            std::string value;
            if (!takes_value(spec->reads) && eq != std::string::npos)
                return usage_errorf("%s takes no value", flag.c_str());
            if (takes_value(spec->reads)) {
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
            if (takes_value(spec->reads)) {
                if (k + 1 < arg.size()) value = arg.substr(k + 1);
                else if (i + 1 < argc) value = argv[++i];
                else return usage_errorf("option %s needs a value", flag.c_str());
                k = arg.size();  // the rest of this argument was the value
            }
            if (parse_outcome out = apply_flag(o, given, *spec, flag, value); out.exit_now) return out;
        }
    }
    // The duration alone ends the run: -t, or the stages' total.
    if (!was_given(given, "-n") && (was_given(given, "-t") || was_given(given, "--stages"))) o.requests = 0;
    given_settings settings;
    for (const given_flag& g : given) {
        if (!(g.spec->modes & bit_of(o.run_mode))) settings.unread.push_back({g.typed, g.spec->modes});
        if (g.setting == "--seed") settings.seed = true;
        if (g.setting == "-n") settings.requests = true;
    }
    return check_arguments(o, settings);
}

// -h's and --help-all's sections, with their titles.
struct section_title {
    section part;
    const char* brief;  // -h
    const char* title;  // --help-all
};

inline const section_title* section_titles(std::size_t& count) {
    static const section_title titles[] = {
        {section::ab, "ab's options:", "ab's options, with ab's meaning:"},
        {section::own, "microbench's own:", "microbench's own options:"},
        {section::tls, "https://:",
         "https:// (OpenSSL 3's libssl.so.3, loaded when the first https:// run starts; MICROBENCH_LIBSSL\n"
         "names another file):"},
        {section::gates, "Gates (exit 3):",
         "Gates for CI (a broken gate, or any failed check, exits 3 and says which and by how much; every\n"
         "verdict goes to stderr, and into the JSON as \"gates\"):"},
        {section::suites, "Suites:", "Suites and comparisons:"},
        {section::generators, "Generators:", "Many generators, one plan:"},
        {section::unsupported, "Refused:", "Not supported, each refused with a clear error:"},
    };
    count = sizeof titles / sizeof titles[0];
    return titles;
}

// Whether a section has an option in this build (a build without https has no https section).
inline bool section_built(section part) {
    for (const option_spec& spec : option_table())
        if (spec.part == part && spec.shown && built(spec.needs)) return true;
    return false;
}

// -h: the usage line, then each section's options by name, wrapped at 100 columns.
// The usage line's URL: https:// only where this build has it.
constexpr const char* url_form = built(feature::tls) ? "http[s]://host[:port]/path" : "http://host[:port]/path";

inline std::string short_usage() {
    std::string out = std::string("Usage: microbench [options] ") + url_form + "\n";
    std::size_t count = 0;
    const section_title* titles = section_titles(count);
    for (std::size_t t = 0; t < count; ++t) {
        if (!section_built(titles[t].part)) continue;
        std::string line = "  " + std::string(titles[t].brief);
        for (const option_spec& spec : option_table()) {
            if (spec.part != titles[t].part || !spec.shown || !built(spec.needs)) continue;
            if (line.size() + 2 + std::strlen(spec.shown) > 100) {
                out += line + "\n";
                line = std::string(4, ' ');
            } else {
                line += "  ";
            }
            line += spec.shown;
        }
        out += line + "\n";
    }
#ifndef MICROBENCH_NO_HTML
    out += "  microbench report RESULT.json|LOG.hlog... --html FILE   (saved results and logs drawn together)\n";
#endif
#if !defined(MICROBENCH_NO_MERGE) && !defined(MICROBENCH_NO_HTML)
    out += "  microbench merge RESULT.json... [--json OUT] [--html OUT]   (the generators' results as one)\n";
    out += "  microbench merge LOG.hlog... [--hgrm TAG] [--html OUT]   (HdrHistogram logs merged per tag)\n";
#elif !defined(MICROBENCH_NO_MERGE)
    out += "  microbench merge RESULT.json... [--json OUT]   (the generators' results as one)\n";
    out += "  microbench merge LOG.hlog... [--hgrm TAG]   (HdrHistogram logs merged per tag)\n";
#endif
    out += "  --help-all: every option, in detail\n";
    return out;
}

// --help-all's words on `microbench merge` and `microbench report`, where this build has them.
inline std::string subcommands_help() {
    std::string out;
#ifndef MICROBENCH_NO_MERGE
#ifndef MICROBENCH_NO_HTML
    out += "  microbench merge RESULT.json... [--json OUT|-] [--html OUT] [--title TEXT]\n";
#else
    out += "  microbench merge RESULT.json... [--json OUT|-]\n";
#endif
    out += "                         One result from the generators' --json: counts summed, histograms merged\n"
           "                         exactly, elapsed from the earliest start to the latest end, interval rows\n"
           "                         aligned on the wall clock (a merged row's percentiles are its parts'\n"
           "                         highest, or exact when every run kept them: --interval-histograms; then\n"
           "                         microbench-hlog --from OUT writes them as HdrHistogram's log). Refuses\n"
           "                         different targets or plans, or histograms that cannot merge\n"
           "                         exactly, naming the input and the difference; says which shards are missing\n"
           "                         and how many values the merge dropped.\n";
#ifndef MICROBENCH_NO_HTML
    out += "  microbench merge LOG.hlog... [--hgrm TAG] [--html OUT] [--title TEXT] [--hlog-memory MB]\n";
#else
    out += "  microbench merge LOG.hlog... [--hgrm TAG] [--hlog-memory MB]\n";
#endif
    out += "                         HdrHistogram interval logs (microbench --hlog's, or Java's, C's, .NET's,\n"
           "                         hdr-histogram-js') merged exactly per tag, as microbench-hlog merges them: a\n"
           "                         table of counts and percentiles in ms, or --hgrm TAG's spectrum ((none):\n"
           "                         untagged rows); --html draws the merged tags, then each log's rows over\n"
           "                         time. A log is NAME.hlog, or a file that starts with '#' or Tag=, or UTF-16.\n"
           "                         --hlog-memory MB: the most the logs' histogram counters may take (default\n"
           "                         128; mapped lazily, so address space more than memory): a row or a tag's\n"
           "                         total beyond it is refused, naming the line, its highest trackable value\n"
           "                         and significant figures.\n";
#endif
#ifndef MICROBENCH_NO_HTML
    out += "\nReports from saved results:\n"
           "  microbench report RESULT.json|LOG.hlog... --html FILE [--title TEXT] [--hlog-memory MB]\n"
           "                         Draws --json results of any mode (runs from different times or machines)\n"
           "                         in one report: runs of the same scenario share charts, labelled by file.\n"
           "                         An HdrHistogram log is a section named after its file: each tag a run,\n"
           "                         its values by percentile and its rows over time; --hlog-memory MB bounds\n"
           "                         the logs' counters together, as merge's does.\n";
#endif
    return out;
}

// What this build leaves out (profile.hpp), for --help-all: "" in a full build.
inline std::string left_out() {
    std::string out;
    const std::pair<bool, const char*> parts[] = {
        {!built(feature::tls), "https:// (MICROBENCH_NO_TLS)"},
        {!built(feature::html), "the HTML report, --html and microbench report (MICROBENCH_NO_HTML)"},
        {!built(feature::targets), "URL ranges (MICROBENCH_NO_TARGETS)"},
#ifdef MICROBENCH_NO_MERGE
        {true, "microbench merge (MICROBENCH_NO_MERGE)"},
#endif
    };
    for (const auto& part : parts)
        if (part.first) out += std::string(out.empty() ? "" : "; ") + part.second;
    return out.empty() ? "" : "\nThis build leaves out: " + out + ".\n";
}

// --help-all: each section's options with their help, the left column 25 wide.
inline std::string long_usage() {
    std::string out = std::string("microbench — an ab-compatible HTTP/1.1 load tester. Usage: microbench [options] ") +
                      url_form + "\n";
    std::size_t count = 0;
    const section_title* titles = section_titles(count);
    for (std::size_t t = 0; t < count; ++t) {
        if (!section_built(titles[t].part)) continue;
        out += "\n" + std::string(titles[t].title) + "\n";
        for (const option_spec& spec : option_table()) {
            if (spec.part != titles[t].part || !spec.shown || !built(spec.needs)) continue;
            std::string left = std::string("  ") + spec.shown;
            left += left.size() < 25 ? std::string(25 - left.size(), ' ') : "\n" + std::string(25, ' ');
            out += left;
            for (const char* at = spec.help; *at; ++at)
                out += *at == '\n' ? "\n" + std::string(25, ' ') : std::string(1, *at);
            out += "\n";
        }
        if (titles[t].part == section::generators) out += subcommands_help();
    }
    out += "\nA flag sets one thing once: given twice, or with another flag that sets the same, it is refused\n"
           "(-H and -C add; a switch such as -k may repeat); a flag the mode does not read is refused too.\n"
           "-- ends the options.\n"
           "\nExit status: 0 the run completed, 1 usage error, 2 the target could not be reached at all,\n"
           "3 a check failed or a gate broke, 130 interrupted (Ctrl-C prints the partial report).\n";
    return out + left_out();
}

}  // namespace cli
