// examples/cli/profile.hpp — which of the microbench command line's features a build leaves out,
// each by one macro, and the small-device profile as a set of them. Included first, before the
// library (MICROBENCH_NO_TLS is the library's own). A flag of a feature left out is refused
// naming its macro; -h and --help-all leave it out.
//   MICROBENCH_NO_TLS      https:// (the OpenSSL 3 loader) and -f -Z -E -I --verify --cacert --tls-resume
//   MICROBENCH_NO_HTML     the HTML report: --html and `microbench report`
//   MICROBENCH_NO_MERGE    `microbench merge`
//   MICROBENCH_NO_TARGETS  URL ranges and --no-ranges (the library's own: plan::targets, url_ranges)
// MICROBENCH_CLI_PROFILE_SMALL (CMake: -DMICROBENCH_CLI_PROFILE=small) is all four: plain HTTP,
// ab's flags and report, checks and gates, the open model, JSON, HdrHistogram's files, the suite,
// --compare and --self-test stay. bench/footprint.py measures it and what each macro saves.
#pragma once

#ifdef MICROBENCH_CLI_PROFILE_SMALL
#ifndef MICROBENCH_NO_TLS
#define MICROBENCH_NO_TLS
#endif
#ifndef MICROBENCH_NO_HTML
#define MICROBENCH_NO_HTML
#endif
#ifndef MICROBENCH_NO_MERGE
#define MICROBENCH_NO_MERGE
#endif
#ifndef MICROBENCH_NO_TARGETS
#define MICROBENCH_NO_TARGETS
#endif
#endif

namespace cli {

// A feature of the command line, as an option's row names it (cli/table.hpp).
enum class feature : unsigned char { always, tls, html, targets };

// Whether this build has `f`.
constexpr bool built(feature f) {
    switch (f) {
        case feature::always: return true;
#ifdef MICROBENCH_NO_TLS
        case feature::tls: return false;
#endif
#ifdef MICROBENCH_NO_HTML
        case feature::html: return false;
#endif
#ifdef MICROBENCH_NO_TARGETS
        case feature::targets: return false;
#endif
        default: return true;
    }
}

// The macro that left `f` out of this build.
constexpr const char* macro_of(feature f) {
    switch (f) {
        case feature::tls: return "MICROBENCH_NO_TLS";
        case feature::html: return "MICROBENCH_NO_HTML";
        case feature::targets: return "MICROBENCH_NO_TARGETS";
        default: return "";
    }
}

}  // namespace cli
