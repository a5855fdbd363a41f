// microbench/engine/target_records.hpp — what each target gets while a run goes (plan::by_target):
// one record per target that every worker adds to with relaxed atomics, so its memory does not
// grow with threads; the expected n! of each target under the factorial check of each target's
// n, worked out once before the run; and, after it, the records summed up into the result's
// breakdown (rows worst first, the rest folded, the verdict over n).
#pragma once

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "../core/bigint.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../http/checks.hpp"
#include "../stats/by_target.hpp"
#include "plan.hpp"
#include "worker_setup.hpp"

namespace microbench {
namespace detail {

// One target's counts; zeroed when made (value-initialised), added to by any worker.
struct target_record {
    std::atomic<std::uint64_t> completed, non_2xx, unfinished;
    std::atomic<std::uint64_t> failures[failure_count];
    std::atomic<bool> answer_seen;  // a wrong answer of it was offered to keep
};

// A response's Content-Type and first body bytes as they came, kept per connection by a worker
// that checks responses or has records (to show a wrong answer); `cut` when more followed.
struct answer_capture {
    char bytes[defaults::check_sample_bytes];
    char type[defaults::check_sample_type_bytes];
    std::uint8_t size = 0, type_size = 0;
    bool cut = false;

    void clear(std::string_view content_type) {
        size = 0;
        cut = false;
        type_size = static_cast<std::uint8_t>(std::min(content_type.size(), sizeof type));
        if (type_size) std::memcpy(type, content_type.data(), type_size);  // none: data() may be null
    }
    void add(std::string_view chunk) {
        const std::size_t n = std::min(chunk.size(), sizeof bytes - size);
        std::memcpy(bytes + size, chunk.data(), n);
        size = static_cast<std::uint8_t>(size + n);
        cut = cut || n < chunk.size();
    }
};
static_assert(defaults::check_sample_bytes < 256 && defaults::check_sample_type_bytes < 256 &&
                  defaults::answer_bytes <= defaults::check_sample_bytes,
              "answer_capture counts its bytes in a byte");

// The request target (path and query) of a request's bytes: between the request line's spaces.
inline std::string_view request_target(std::string_view request) {
    const std::size_t from = request.find(' ') + 1, to = request.find(' ', from);
    return from == 0 || to == std::string_view::npos ? std::string_view{} : request.substr(from, to - from);
}

// Each target's expected n!, under the factorial check of each target's n: the digits of every
// distinct n once, and per target where its own are.
struct target_factorials {
    struct entry {
        std::uint32_t n, at, size;
    };
    std::string digits;
    std::vector<entry> of_target;

    std::string_view of(std::uint32_t t) const { return {digits.data() + of_target[t].at, of_target[t].size}; }

    // Every target's n from its URL (/factorial/{n} or /factorial?n=N): one without is refused by
    // its index (plan_factorial_target). The digits of all the n together are bounded like the
    // requests, before any is worked out (plan_targets_too_large, at the first target past it).
    error build(const request_table& table) {
        std::vector<std::uint32_t> ns(table.size());
        for (std::uint32_t t = 0; t < table.size(); ++t) {
            url u;
            u.target = std::string(request_target(table.at(t)));
            unsigned n = 0;
            if (!factorial_argument(u, n)) return {errc::plan_factorial_target, t};
            ns[t] = n;
        }
        std::vector<std::uint32_t> distinct = ns;
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
        // n! has floor(lgamma(n + 1) / ln 10) + 1 digits; counted in the targets' order, each n once.
        std::vector<bool> counted(distinct.size());
        double total = static_cast<double>(table.bytes.size());
        for (std::uint32_t t = 0; t < table.size(); ++t) {
            const std::size_t i = index_of(distinct, ns[t]);
            if (counted[i]) continue;
            counted[i] = true;
            total += std::floor(std::lgamma(ns[t] + 1.0) / std::log(10.0)) + 1;
            if (total > static_cast<double>(defaults::max_target_bytes)) return {errc::plan_targets_too_large, t};
        }
        digits.reserve(static_cast<std::size_t>(total) - table.bytes.size());
        std::vector<std::uint32_t> at(distinct.size() + 1);
        factorial_walk walk;
        for (std::size_t i = 0; i < distinct.size(); ++i) {
            walk.walk_to(distinct[i]);
            at[i] = static_cast<std::uint32_t>(digits.size());
            walk.append_decimal(digits);
        }
        at[distinct.size()] = static_cast<std::uint32_t>(digits.size());
        of_target.resize(table.size());
        for (std::uint32_t t = 0; t < table.size(); ++t) {
            const std::size_t i = index_of(distinct, ns[t]);
            of_target[t] = entry{ns[t], at[i], at[i + 1] - at[i]};
        }
        return {};
    }

private:
    static std::size_t index_of(const std::vector<std::uint32_t>& sorted, std::uint32_t n) {
        return static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), n) - sorted.begin());
    }
};

// The records of a run's targets, shared by its workers.
class target_records {
public:
    // With `latency` (plan::by_target), each target's latency buckets too. False when the memory
    // for them cannot be had.
    bool make(std::uint32_t targets, const target_factorials* factorials, bool latency) {
        records_.reset(new (std::nothrow) target_record[targets]());
        const std::size_t buckets = std::size_t{targets} * target_buckets::count;
        if (latency && records_) latency_.reset(new (std::nothrow) std::atomic<std::uint64_t>[buckets]());
        count_ = records_ && (latency_ || !latency) ? targets : 0;
        factorials_ = factorials;
        return count_ == targets;
    }
    std::uint32_t size() const { return count_; }

    void completed(std::uint32_t t, int status, std::int64_t total_ns) {
        target_record& r = records_[t];
        r.completed.fetch_add(1, std::memory_order_relaxed);
        if (status < 200 || status > 299) r.non_2xx.fetch_add(1, std::memory_order_relaxed);
        if (latency_)
            latency_[std::size_t{t} * target_buckets::count + target_buckets::of(total_ns)].fetch_add(
                1, std::memory_order_relaxed);
    }
    void failed(std::uint32_t t, failure reason) {
        records_[t].failures[static_cast<int>(reason)].fetch_add(1, std::memory_order_relaxed);
    }
    void unfinished(std::uint32_t t) { records_[t].unfinished.fetch_add(1, std::memory_order_relaxed); }

    // A response of target t that failed its checks, as it came. Kept when it is the first of its
    // target and its n (or its index, without factorials) is the lowest yet: nothing allocated, a
    // lock at most once a target, and only for a rank below the lowest kept.
    void wrong(std::uint32_t t, int status, const answer_capture& seen) {
        std::atomic<bool>& offered = records_[t].answer_seen;
        if (offered.load(std::memory_order_relaxed) || offered.exchange(true, std::memory_order_relaxed)) return;
        const std::uint32_t rank = factorials_ ? factorials_->of_target[t].n : t;
        if (rank >= lowest_rank_.load(std::memory_order_relaxed)) return;
        std::lock_guard<std::mutex> hold(lock_);
        if (rank >= lowest_rank_.load(std::memory_order_relaxed)) return;
        lowest_rank_.store(rank, std::memory_order_relaxed);
        first_status_ = status;
        first_answer_ = seen;
    }

    // The records summed up into `out`: every target's row ranked, the worst max_target_rows
    // kept, the rest folded; and under factorial checks, the verdict over n.
    void summarize(const request_table* table, std::string_view one_request, target_breakdown& out) const {
        out = target_breakdown{};
        out.targets = count_;
        // Worst first: failed or unfinished, then non-2xx, then sent but never answered, then p99.
        struct rank {
            std::uint64_t bad, non_2xx;
            bool silent;
            std::int64_t p99_ns;
            std::uint32_t index;
        };
        std::vector<rank> ranks(count_);
        for (std::uint32_t t = 0; t < count_; ++t) {
            target_row r;
            row_of(t, r);
            ranks[t] = rank{r.failed + r.unfinished, r.non_2xx, r.completed == 0 && r.requests() > 0, r.p99_ns, t};
        }
        auto worse = [](const rank& a, const rank& b) {
            if (a.bad != b.bad) return a.bad > b.bad;
            if (a.non_2xx != b.non_2xx) return a.non_2xx > b.non_2xx;
            if (a.silent != b.silent) return a.silent;
            if (a.p99_ns != b.p99_ns) return a.p99_ns > b.p99_ns;
            return a.index < b.index;
        };
        const std::size_t kept = std::min<std::size_t>(ranks.size(), defaults::max_target_rows);
        std::partial_sort(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(kept), ranks.end(), worse);
        out.rows.resize(kept);
        for (std::size_t i = 0; i < kept; ++i) {
            row_of(ranks[i].index, out.rows[i]);
            out.rows[i].target = std::string(request_target(table ? table->at(ranks[i].index) : one_request));
        }
        std::vector<std::uint64_t> folded_latency(target_buckets::count, 0);
        for (std::size_t i = kept; i < ranks.size(); ++i) {
            target_row r;
            row_of(ranks[i].index, r);
            add_counts(out.folded, r);
            ++out.folded.index;
            for (int b = 0; latency_ && b < target_buckets::count; ++b)
                folded_latency[b] += latency_[std::size_t{ranks[i].index} * target_buckets::count + b].load(
                    std::memory_order_relaxed);
        }
        out.folded.p50_ns = target_buckets::quantile(folded_latency, out.folded.completed, 0.50);
        out.folded.p99_ns = target_buckets::quantile(folded_latency, out.folded.completed, 0.99);
        if (factorials_) verdict_of(out);
    }

private:
    void row_of(std::uint32_t t, target_row& r) const {
        const target_record& rec = records_[t];
        r.index = t;
        r.completed = rec.completed.load(std::memory_order_relaxed);
        r.non_2xx = rec.non_2xx.load(std::memory_order_relaxed);
        r.unfinished = rec.unfinished.load(std::memory_order_relaxed);
        for (int i = 0; i < failure_count; ++i) {
            r.failures[i] = rec.failures[i].load(std::memory_order_relaxed);
            r.failed += r.failures[i];
        }
        if (!latency_) return;
        const std::atomic<std::uint64_t>* buckets = &latency_[std::size_t{t} * target_buckets::count];
        r.p50_ns = target_buckets::quantile(buckets, r.completed, 0.50);
        r.p99_ns = target_buckets::quantile(buckets, r.completed, 0.99);
    }
    static void add_counts(target_row& to, const target_row& r) {
        to.completed += r.completed;
        to.failed += r.failed;
        to.unfinished += r.unfinished;
        to.non_2xx += r.non_2xx;
        for (int i = 0; i < failure_count; ++i) to.failures[i] += r.failures[i];
    }

    // Each target's outcome over its n (the worst of the targets that share an n), then runs of one
    // outcome over n ascending; a failed run's reason is its most common.
    void verdict_of(target_breakdown& out) const {
        struct at_n {
            std::uint32_t n;
            n_outcome outcome;
            failure reason;
        };
        std::vector<at_n> all(count_);
        for (std::uint32_t t = 0; t < count_; ++t) {
            target_row r;
            row_of(t, r);
            int most = 0;
            for (int i = 1; i < failure_count; ++i)
                if (r.failures[i] > r.failures[most]) most = i;
            const n_outcome o = r.wrong()        ? n_outcome::wrong
                                : r.failed       ? n_outcome::failed
                                : r.completed    ? n_outcome::right
                                : r.unfinished   ? n_outcome::unanswered
                                                 : n_outcome::unsent;
            all[t] = at_n{factorials_->of_target[t].n, o, static_cast<failure>(most)};
        }
        // Ascending n; of one n, the worst outcome first: wrong, failed, unanswered, unsent, right.
        auto severity = [](n_outcome o) {
            static constexpr int by_outcome[] = {4, 0, 1, 2, 3};  // in n_outcome's order
            return by_outcome[static_cast<int>(o)];
        };
        std::sort(all.begin(), all.end(), [&](const at_n& a, const at_n& b) {
            return a.n != b.n ? a.n < b.n : severity(a.outcome) < severity(b.outcome);
        });
        for (std::size_t i = 0; i < all.size(); ++i) {
            if (i && all[i].n == all[i - 1].n) continue;  // the worst of this n is already in
            const at_n& a = all[i];
            n_run* last = out.verdict.empty() ? nullptr : &out.verdict.back();
            const bool same = last && last->outcome == a.outcome && last->to + 1 == a.n &&
                              (a.outcome != n_outcome::failed || last->reason == a.reason);
            if (same) {  // n next to the run's last, with its outcome
                last->to = a.n;
                continue;
            }
            if (out.verdict.size() == defaults::max_verdict_runs) {
                out.verdict_cut = true;
                break;
            }
            out.verdict.push_back(n_run{a.n, a.n, a.outcome, a.reason});
        }
        if (first_status_) {
            out.first_wrong.n = lowest_rank_.load(std::memory_order_relaxed);
            out.first_wrong.status = first_status_;
            const std::size_t kept = std::min<std::size_t>(first_answer_.size, defaults::answer_bytes);
            out.first_wrong.body.assign(first_answer_.bytes, kept);
            out.first_wrong.cut = first_answer_.cut || kept < first_answer_.size;
        }
    }

    std::unique_ptr<target_record[]> records_;
    std::unique_ptr<std::atomic<std::uint64_t>[]> latency_;  // target t's buckets from t * target_buckets::count
    std::uint32_t count_ = 0;
    const target_factorials* factorials_ = nullptr;
    std::mutex lock_;
    std::atomic<std::uint32_t> lowest_rank_{UINT32_MAX};  // of the wrong answer kept (first_*)
    int first_status_ = 0;                                 // 0: none kept
    answer_capture first_answer_;
};

// What each target gets, when the plan asks or its factorial check takes each target's n: each
// target's n! (with a table; a run of one URL checks that URL's n, as checks::factorial) and the
// shared records.
inline error prepare_by_target(const plan& p, const url& target, const request_table& table, checks& ck,
                               target_factorials& factorials, target_records& records) {
    const bool each_n = ck.factorial_of_each_target_set();
    if (each_n && !table.size()) {
        unsigned n = 0;
        if (!factorial_argument(target, n)) return {errc::plan_factorial_target, 0};
        ck.factorial(n);
    }
    if (!p.by_target() && !(each_n && table.size())) return {};
#ifdef MICROBENCH_NO_TARGETS
    (void)factorials;
    (void)records;
    return {errc::plan_targets_unsupported, 0};
#else
    if (each_n && table.size())
        if (error e = factorials.build(table)) return e;
    if (!records.make(table.size() ? table.size() : 1, factorials.of_target.empty() ? nullptr : &factorials,
                      p.by_target()))
        return {errc::out_of_memory, 0};
    return {};
#endif
}

}  // namespace detail
}  // namespace microbench
