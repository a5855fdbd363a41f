// tests/run_helpers.hpp — small helpers the engine's tests share: the reference server's URL for
// a path, a run that must start and whose accounting must add up, and whether the tests run
// under an emulator.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "microbench.hpp"

inline std::string url_of(const microbench::server& s, const char* path) {
    return "http://127.0.0.1:" + std::to_string(s.port()) + path;
}

// Runs `p`; the run must start, and every request that ended is completed or failed.
inline microbench::result run_ok(const microbench::plan& p) {
    microbench::result r;
    microbench::error e = microbench::run(p, r);
    REQUIRE_MESSAGE(!e, e.message());
    CHECK(r.requests_ended == r.requests_completed + r.requests_failed);
    return r;
}

// A cross build's tests run under qemu-user (MICROBENCH_EMULATED is set by tests/CMakeLists.txt):
// ten times slower, and without the kernel's arrival stamps (qemu drops the control messages),
// so bounds meant for real hardware are not checked there.
inline bool emulated() { return std::getenv("MICROBENCH_EMULATED") != nullptr; }
