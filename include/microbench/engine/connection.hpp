// microbench/engine/connection.hpp — the state of one client connection and of the requests in flight
// on it. Plain data that the worker drives: connect → write → read → (reuse | close).
// Knows nothing of epoll or sockets; owns no descriptor (the worker closes it).
#pragma once

#include <cstdint>
#include <string>

#include "../http/checks.hpp"
#include "../http/response_parser.hpp"

namespace microbench {
namespace detail {

// One request in flight; timestamps are monotonic nanoseconds, 0 = not yet.
struct request_slot {
    std::int64_t start_ns = 0;        // issued (connect start on a new connection, else write start)
    std::int64_t connected_ns = 0;    // connection usable (== start on a reused connection)
    std::int64_t written_ns = 0;      // last request byte handed to the kernel
    std::int64_t first_byte_ns = 0;   // first response byte read
    bool retried = false;             // already sent again after a closed keep-alive connection
    bool reused = false;              // sent on a connection that had served a response
    std::uint32_t target = 0;         // with targets: which one it goes to (kept when it is sent again)
    std::int64_t intended_ns = 0;     // at a fixed rate: when the schedule said to send it
};

struct connection {
    enum class phase : std::uint8_t {
        idle,        // no descriptor, nothing in flight
        waiting,     // requests in flight, no descriptor: the last connect met a local shortage
        connecting,
        handshaking, // connected; the transport's handshake is under way
        writing,     // the batch is not all written; responses are read meanwhile
        reading,
    };

    connection(const response_limits& limits, header_view* shared_headers, request_slot* slots)
        : parser(limits, shared_headers), requests(slots) {}

    int fd = -1;
    phase state = phase::idle;
    bool served = false;         // this descriptor has delivered a whole response
    std::uint32_t batch = 0;     // requests in the batch being sent, oldest first in requests[]
    std::uint32_t done = 0;      // of them, ended
    std::uint32_t written = 0;   // of them, written to their last byte
    std::size_t written_end = 0; // where the first of them not yet written ends, in the batch's bytes
    std::uint32_t closes = 0;    // times this slot closed a descriptor: tells a reopened one apart
    bool queued = false;         // in the worker's ring of connections waiting for a local resource
    bool watched = false;        // in the worker's list of unsettled connections (worker_rate.hpp)
    std::size_t write_offset = 0;
    std::size_t write_length = 0;
    std::int64_t deadline_ns = INT64_MAX;  // of the oldest request in flight, or of the connect
    std::int64_t freed_ns = 0;   // when its last request ended: at a fixed rate, one due before then waited for it
    std::int64_t handshake_ns = 0;  // over a transport: when the TCP connect ended and the handshake began
    void* tls = nullptr;         // over a transport: its state for this descriptor
    bool read_wants_write = false;  // over a transport: the last read waits for the socket to be writable
    response_parser parser;
    request_slot* requests;      // `pipeline` slots owned by the worker
    std::string stash;           // a response head split across reads (at most max_header_bytes + 1)
    check_state checked;         // of the response being read

    std::uint32_t in_flight() const { return batch - done; }
    request_slot& oldest() { return requests[done]; }
};

}  // namespace detail
}  // namespace microbench
