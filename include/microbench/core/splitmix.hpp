// microbench/core/splitmix.hpp — SplitMix64 (Steele, Lea, Flood 2014): a 64-bit generator whose
// whole state is one word, and its output function as a hash. For schedules and chaos that
// must repeat from a seed; not for anything secret.
#pragma once

#include <cstdint>

namespace microbench {
namespace detail {

// SplitMix64's output function: a bijection of 64-bit words in which every output bit depends
// on every input bit.
inline std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// The next number of the generator whose state is `state`. The state steps by a constant, so
// two states a multiple of it apart are one stream shifted: seed streams through mix64.
inline std::uint64_t splitmix64(std::uint64_t& state) { return mix64(state += 0x9e3779b97f4a7c15ULL); }

}  // namespace detail
}  // namespace microbench
