// microbench/stats/by_target.hpp — what each target of a run got (plan::by_target): a row per
// target with its counts by outcome and its median and 99th percentile, worst first and capped,
// the rest folded into one row; and, under the factorial check of each target's own n, the
// verdict over n (right for n = 0..20; wrong from n = 21). Plain data the runner fills and
// reports read; the per-target percentiles come from coarse buckets (target_buckets).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "failure.hpp"

namespace microbench {

// A target's latencies in buckets four to an octave, each 2^(1/4) wide, from 2^10 ns (about 1 µs)
// to 2^42 ns (about 73 minutes, past the longest timeout, an hour): a percentile read from them,
// the bucket's geometric middle, is within 10% of the true value (one below 1 µs reads as about
// 1.1 µs). The run's own histograms stay exact.
namespace target_buckets {
constexpr int count = 128;
constexpr int first_octave = 10;

inline int of(std::int64_t ns) {
    if (ns < (std::int64_t{1} << first_octave)) return 0;
    const int octave = 63 - __builtin_clzll(static_cast<unsigned long long>(ns));
    // The 16 bits after the leading one, against 2^(1/4), 2^(1/2) and 2^(3/4) in the same scale.
    const auto fraction = static_cast<std::uint32_t>((static_cast<std::uint64_t>(ns) << (63 - octave)) >> 47) & 0xFFFF;
    const int quarter = (fraction >= 12400) + (fraction >= 27146) + (fraction >= 44682);
    const int b = (octave - first_octave) * 4 + quarter;
    return b < count ? b : count - 1;
}
// The geometric middle of bucket b's range, in nanoseconds: 2^(first_octave + (b + 1/2) / 4).
inline std::int64_t middle(int b) {
    return static_cast<std::int64_t>(__builtin_exp2((first_octave * 4 + b + 0.5) / 4.0));
}
// The q-th quantile (0 < q ≤ 1) of `counts`, whose sum is `total`; 0 when total is 0.
template <class Counts>
inline std::int64_t quantile(const Counts& counts, std::uint64_t total, double q) {
    if (total == 0) return 0;
    auto rank = static_cast<std::uint64_t>(q * static_cast<double>(total) + 0.999999);
    if (rank < 1) rank = 1;
    std::uint64_t seen = 0;
    for (int b = 0; b < count; ++b)
        if ((seen += counts[b]) >= rank) return middle(b);
    return middle(count - 1);
}
}  // namespace target_buckets

// One target's outcomes. A folded row stands for several targets: `index` is then how many.
struct target_row {
    std::string target;       // its request target (path and query), as sent
    std::uint64_t index = 0;  // its place in the run's targets (a shard's own stretch counts from 0)
    std::uint64_t completed = 0, failed = 0, unfinished = 0, non_2xx = 0;
    std::uint64_t failures[failure_count] = {};  // a wrong answer is failures[check]
    std::int64_t p50_ns = 0, p99_ns = 0;         // of the completed ones, within 10%; 0 when none

    std::uint64_t wrong() const { return failures[static_cast<int>(failure::check)]; }
    std::uint64_t requests() const { return completed + failed + unfinished; }
};

// The factorial check of each target's n, over n ascending: runs of one outcome.
enum class n_outcome : std::uint8_t {
    right,       // every response it got was n!
    wrong,       // a whole response was not n!
    failed,      // no wrong answer, but requests that failed otherwise (`reason`, the most common)
    unanswered,  // sent, but still in flight when the run stopped (its duration, a cancel)
    unsent,      // no request of it was sent
};
struct n_run {
    std::uint32_t from = 0, to = 0;
    n_outcome outcome = n_outcome::right;
    failure reason = failure::connect;  // of a failed run
};

// A wrong answer as it came: the status and the body's first bytes.
struct wrong_answer {
    std::uint32_t n = 0;  // its target's n (without the factorial check of each target: its index)
    int status = 0;       // 0: none kept
    std::string body;     // at most defaults::answer_bytes
    bool cut = false;     // the body went on past them
};

struct target_breakdown {
    std::uint64_t targets = 0;     // the run's (a shard's own stretch); 0: not kept
    std::vector<target_row> rows;  // worst first (wrong and failed, then non-2xx, then p99), at most max_target_rows
    target_row folded;             // the rest added together; index: how many
    // Under the factorial check of each target's n: the outcomes over n ascending, a run each of
    // neighbouring n with one outcome (at most max_verdict_runs; verdict_cut when there were more),
    // and the wrong answer of the lowest n that got one.
    std::vector<n_run> verdict;
    bool verdict_cut = false;
    wrong_answer first_wrong;
};

}  // namespace microbench
