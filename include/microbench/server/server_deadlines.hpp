// microbench/server/server_deadlines.hpp — when the reference server gives up on a connection,
// so that a device exposing it cannot be held by clients that send slowly or not at all: a request
// not whole (head and body) within the header timeout of its first byte, a connection that has
// neither read nor written a byte for the idle timeout (keep-alive between requests, or a client
// that stopped reading its answers) unless an answer is being held back on purpose (/delay,
// /stall); and, at the connection cap, which connection makes room for a new one: the one quiet
// longest with nothing under way. Defaults as nginx's: client_header_timeout 60 s (here the body
// too must arrive within it), keepalive_timeout 75 s.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>

namespace microbench {
namespace detail {

// A connection's clock, as its server thread keeps it.
struct connection_clock {
    std::int64_t request_started_ns = 0;  // the first byte of a request not yet whole; 0: none
    std::int64_t active_ns = 0;           // the last byte read or written, or the accept
};

enum class overstay : std::uint8_t { none, header, idle };

// What a connection with clock `c` has overstayed at `now`: the header timeout (`header_ns`: a
// request begun and not whole), else the idle timeout (`idle_ns`: nothing read or written). While
// an answer is `held` back, neither: the requests behind it wait for it. A timeout of 0 never ends.
inline overstay overstayed(const connection_clock& c, bool held, std::int64_t now, std::int64_t header_ns,
                           std::int64_t idle_ns) {
    if (held) return overstay::none;
    if (c.request_started_ns && header_ns > 0 && now - c.request_started_ns >= header_ns) return overstay::header;
    if (idle_ns > 0 && now - c.active_ns >= idle_ns) return overstay::idle;
    return overstay::none;
}

// A timeout in ms as ns: negative is 0 (none), and at most ten years.
inline std::int64_t timeout_ns(std::int64_t ms) {
    return std::min<std::int64_t>(std::max<std::int64_t>(ms, 0), 315'360'000'000) * 1'000'000;
}

// How often a thread looks for connections that overstayed: an eighth of the shorter timeout,
// from 5 ms to 1 s; 0 when neither is set. A connection is closed at most that long after its
// time (while the thread is not held by /work).
inline std::int64_t sweep_interval_ns(std::int64_t header_ns, std::int64_t idle_ns) {
    std::int64_t shorter = 0;
    for (std::int64_t t : {header_ns, idle_ns})
        if (t > 0) shorter = shorter ? std::min(shorter, t) : t;
    if (!shorter) return 0;
    return std::clamp<std::int64_t>(shorter / 8, 5'000'000, 1'000'000'000);
}

// The connection cap when server_options::max_connections is 0: the open-file limit less 64 (the
// listening socket, epoll, eventfds and the host's own files), at least 16.
inline std::uint64_t default_connection_cap() {
    rlimit r{};
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 1'000'000;
    return std::max<std::uint64_t>(16, static_cast<std::uint64_t>(r.rlim_cur) > 64 ? r.rlim_cur - 64 : 0);
}

// The cap on connections: `configured`, or when 0 the default from the open-file limit as it is
// now (a run in the same process may have raised it since the server started).
inline std::uint64_t connection_cap(std::uint64_t configured) {
    return configured ? configured : default_connection_cap();
}

}  // namespace detail
}  // namespace microbench
