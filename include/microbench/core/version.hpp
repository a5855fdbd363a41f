// microbench/core/version.hpp — the library's version, defined here and nowhere else.
// CMake reads these three numbers to version the package; everything else derives from them.
#pragma once

#define MICROBENCH_VERSION_MAJOR 0
#define MICROBENCH_VERSION_MINOR 1
#define MICROBENCH_VERSION_PATCH 0

#define MICROBENCH_DETAIL_STR2(x) #x
#define MICROBENCH_DETAIL_STR(x) MICROBENCH_DETAIL_STR2(x)
// "0.1.0": for User-Agent headers, reports and FFI callers.
#define MICROBENCH_VERSION_STRING                                     \
    MICROBENCH_DETAIL_STR(MICROBENCH_VERSION_MAJOR) "."               \
    MICROBENCH_DETAIL_STR(MICROBENCH_VERSION_MINOR) "."               \
    MICROBENCH_DETAIL_STR(MICROBENCH_VERSION_PATCH)

namespace microbench {

constexpr int version_major = MICROBENCH_VERSION_MAJOR;
constexpr int version_minor = MICROBENCH_VERSION_MINOR;
constexpr int version_patch = MICROBENCH_VERSION_PATCH;
constexpr const char* version_string = MICROBENCH_VERSION_STRING;

}  // namespace microbench
