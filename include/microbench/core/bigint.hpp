// microbench/core/bigint.hpp — exact n! in decimal, for the factorial endpoint and its checks.
// Schoolbook multiplication in base 10^9 limbs: 10000! (35,660 digits) takes a few ms.
// Allocates its result; callers compute each n once and cache it, or walk n upward.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace microbench {

// n! for n = 0, 1, 2, ... in turn: walk_to(n) multiplies on from where the last call stopped, so
// the factorials of many ascending n cost one walk (the factorial checks of a run's targets).
class factorial_walk {
public:
    // Moves to n! (n not below the last n walked to).
    void walk_to(unsigned n) {
        const std::uint32_t base = 1'000'000'000;
        for (; k_ < n; ++k_) {
            std::uint64_t carry = 0;
            for (std::uint32_t& limb : limbs_) {
                std::uint64_t v = static_cast<std::uint64_t>(limb) * (k_ + 1) + carry;
                limb = static_cast<std::uint32_t>(v % base);
                carry = v / base;
            }
            while (carry) {
                limbs_.push_back(static_cast<std::uint32_t>(carry % base));
                carry /= base;
            }
        }
    }
    // The current factorial's decimal digits, appended to `out`.
    void append_decimal(std::string& out) const {
        out += std::to_string(limbs_.back());
        char digits[16];
        for (std::size_t i = limbs_.size() - 1; i-- > 0;) {
            std::snprintf(digits, sizeof digits, "%09u", static_cast<unsigned>(limbs_[i]));
            out += digits;
        }
    }

private:
    std::vector<std::uint32_t> limbs_{1};  // least significant first
    unsigned k_ = 0;                       // limbs_ holds k_!
};

inline std::string factorial_decimal(unsigned n) {
    factorial_walk walk;
    walk.walk_to(n);
    std::string out;
    walk.append_decimal(out);
    return out;
}

}  // namespace microbench
