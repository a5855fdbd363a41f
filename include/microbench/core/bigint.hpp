// microbench/core/bigint.hpp — exact n! in decimal, for the factorial endpoint and its checks.
// Schoolbook multiplication in base 10^9 limbs: 10000! (35,660 digits) takes a few ms.
// Allocates its result; callers compute each n once and cache it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace microbench {

inline std::string factorial_decimal(unsigned n) {
    const std::uint32_t base = 1'000'000'000;
    std::vector<std::uint32_t> limbs{1};  // least significant first
    for (unsigned k = 2; k <= n; ++k) {
        std::uint64_t carry = 0;
        for (std::uint32_t& limb : limbs) {
            std::uint64_t v = static_cast<std::uint64_t>(limb) * k + carry;
            limb = static_cast<std::uint32_t>(v % base);
            carry = v / base;
        }
        while (carry) {
            limbs.push_back(static_cast<std::uint32_t>(carry % base));
            carry /= base;
        }
    }
    std::string out = std::to_string(limbs.back());
    char digits[16];
    for (std::size_t i = limbs.size() - 1; i-- > 0;) {
        std::snprintf(digits, sizeof digits, "%09u", static_cast<unsigned>(limbs[i]));
        out += digits;
    }
    return out;
}

}  // namespace microbench
