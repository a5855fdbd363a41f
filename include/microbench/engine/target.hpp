// microbench/engine/target.hpp — what a plan's requests are made of beyond its one URL: a
// target (a URL with its own method, headers and body), how each request picks one, and the
// request callback an embedder writes each request with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../http/request.hpp"

namespace microbench {

// How a run picks each request's target (plan::order).
enum class target_order : std::uint8_t {
    in_turn,  // worker w of T sends its k-th request to target (w + k·T) mod N: the same sequence every run
    random,   // each at random, from plan::seed: the same seed, the same picks
};

// One of a run's targets: a URL of the run's origin, and what its request has of its own — a
// method, more headers (a name it gives replaces every plan header of that name), a body. A URL
// alone takes the plan's (a target converts from a URL's text). Targets files give the rest
// (targets_file.hpp).
struct target {
    std::string url;
    std::string method;                      // "": the plan's
    std::vector<microbench::header> headers;  // after the plan's
    std::string body;
    bool has_body = false;                   // false: the plan's body

    target() = default;
    target(std::string u) : url(std::move(u)) {}  // NOLINT(google-explicit-constructor): a URL is a target
    target(const char* u) : url(u) {}            // NOLINT(google-explicit-constructor)
};

// What a request callback (plan::on_request) is handed, on the worker thread about to send the
// request: room to write it in, which request it is, and what the plan would send.
struct request_call {
    // The request's room, `capacity` bytes (plan::request_capacity()); kept until the request
    // ends, so a resend sends the same bytes.
    char* data;
    std::size_t capacity;
    std::uint64_t index;     // unique in the run (or the shard): worker + k·threads for the worker's k-th request
    std::uint32_t worker;    // the calling worker thread, 0 to threads − 1
    // In: the target the plan's order picked (0 without targets). Out: the one the request counts
    // under — in checks of each target's n and in result::by_target — below the targets' count.
    std::uint32_t target;
    std::string_view prepared;  // the request the plan would send to that target, to copy or start from
};
// Writes one whole HTTP/1.x request into call.data and returns its length. 0: no request, and
// this worker sends no more (what it has in flight still ends, by its response, its timeout or
// the duration's drain; the others go on until they are told to). A length above the capacity,
// or a target outside the targets: no request either, the worker sends no more, and
// result::request_fn_faults counts it. Must not throw.
using request_fn = std::size_t (*)(request_call& call, void* user);

}  // namespace microbench
