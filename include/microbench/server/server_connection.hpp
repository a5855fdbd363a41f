// microbench/server/server_connection.hpp — one connection as a reference-server thread holds it:
// its socket, what it has read and has still to write, an answer held back until its time (and
// the per-thread heap of those times), the marks chaos leaves on it, and its deadlines' clock
// (server_deadlines.hpp); and chaos itself: cutting an answer short or closing after it.
#pragma once

#include <cstdint>
#include <string>

#include "../core/splitmix.hpp"
#include "server_deadlines.hpp"
#include "server_endpoints.hpp"

namespace microbench {
namespace detail {

struct server_connection {
    int fd = -1;
    std::uint32_t generation = 0;
    std::string in, out;
    std::size_t in_used = 0, out_sent = 0;
    std::int64_t release_ns = 0;  // a delayed response waits in `out` until then
    bool close_after = false;
    bool reset_after = false;     // chaos: close with a reset, not a FIN
    bool writing = false;         // registered for EPOLLOUT
    connection_clock clock;       // its deadlines

    // Nothing under way: no request begun, nothing to write, no answer held back.
    bool quiet() const { return in_used == in.size() && out_sent == out.size() && release_ns == 0; }
    overstay overstayed(std::int64_t now, std::int64_t header_ns, std::int64_t idle_ns) const {
        return detail::overstayed(clock, release_ns != 0, now, header_ns, idle_ns);
    }
};

// An answer held back until `at_ns`, of the connection in `slot` while it has `generation`.
struct held_answer {
    std::int64_t at_ns;
    std::uint32_t slot, generation;
};
struct held_answer_later {  // makes the std heap functions keep the earliest at the front
    bool operator()(const held_answer& a, const held_answer& b) const { return a.at_ns > b.at_ns; }
};

enum class chaos_done : std::uint8_t { nothing, cut, closed };

// Chaos (server_options::chaos_*), drawn from `state`: cuts the response that starts at `at` in
// c.out short (closing after it, half of the time with a reset), or marks the connection to close
// after it, or leaves it; says which.
inline chaos_done chaos(const server_options& o, std::uint64_t& state, server_connection& c, std::size_t at) {
    const std::uint64_t z = splitmix64(state);
    const auto roll = static_cast<unsigned>(z % 1000);
    const std::size_t length = c.out.size() - at;
    if (roll < o.chaos_cut_permille && length > 1) {
        c.out.resize(at + 1 + static_cast<std::size_t>((z >> 20) % (length - 1)));  // 1 .. length-1 bytes
        c.close_after = true;
        c.reset_after = (z >> 10) & 1;
        return chaos_done::cut;
    }
    if (roll < o.chaos_cut_permille + o.chaos_close_permille) {
        c.close_after = true;
        return chaos_done::closed;
    }
    return chaos_done::nothing;
}

}  // namespace detail
}  // namespace microbench
