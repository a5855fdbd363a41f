// microbench/stats/failure.hpp — why a request failed: one reason each, and its name in reports.
#pragma once

#include <cstdint>

namespace microbench {

// Why a request failed; each failed request has exactly one reason.
enum class failure : std::uint8_t {
    connect,  // refused, unreachable or timed out while connecting
    write,    // the connection broke while sending
    receive,  // reset or closed before the response was complete
    parse,    // the response was not valid HTTP/1.x
    timeout,  // no complete response within the timeout
    length,   // ab's rule: body length differs from the first response's
    check,    // a whole response arrived but failed a check (e.g. an unexpected status)
    tls,      // the TLS layer failed: handshake, alert, certificate, or a record it could not read
};
constexpr int failure_count = 8;

constexpr const char* failure_name(failure f) {
    switch (f) {
        case failure::connect: return "connect";
        case failure::write: return "write";
        case failure::receive: return "receive";
        case failure::parse: return "parse";
        case failure::timeout: return "timeout";
        case failure::length: return "length";
        case failure::check: return "check";
        case failure::tls: return "tls";
    }
    return "unknown";
}

}  // namespace microbench
