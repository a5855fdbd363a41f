// microbench/engine/intervals.hpp — per-interval statistics in constant memory. Each worker counts the
// requests it sends and ends into the open slot of a small ring of reusable slots (counters and
// three histograms) and hands each finished interval over to the calling thread; the calling
// thread merges the workers' slots of an interval into one row, passes it to the plan's callback,
// clears the slots and gives them back. Only the rows grow: one small struct per interval (and,
// when the plan keeps them, its histograms encoded). The merged histograms go to the plan's
// histogram callback, if it has one, before they are cleared.
// A request counts in the interval in which its worker saw it sent, and saw it end.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "../stats/histogram.hpp"
#include "../stats/histogram_codec.hpp"
#include "plan.hpp"
#include "rate_curve.hpp"
#include "../stats/result.hpp"

namespace microbench {
namespace detail {

// One worker's share of one or more consecutive intervals, first..last (more than one only when
// the calling thread fell so far behind that the ring was full).
struct interval_slot {
    std::int64_t first = 0, last = 0;
    std::uint64_t sent = 0, ended = 0, completed = 0, failed = 0;
    histogram response_ns, service_ns, schedule_lag_ns;  // service and lag at a fixed rate only

    void clear() {
        sent = ended = completed = failed = 0;
        response_ns.reset();
        service_ns.reset();
        schedule_lag_ns.reset();
    }
};

// The slots one worker shares with the calling thread: a single-producer, single-consumer ring.
// Slots [tail, head) are finished and wait to be collected; slot `head` is the worker's open one.
struct interval_ring {
    static constexpr std::uint32_t size = 4;
    interval_slot slots[size];
    std::atomic<std::uint64_t> head{0}, tail{0};
    std::atomic<std::int64_t> open_first{0};  // the open slot's first interval: all before it are handed over

    interval_slot& at(std::uint64_t i) { return slots[i % size]; }
};

// The worker's side: finds the open slot for a time, handing the previous one over when a new
// interval has begun. Off (every call a no-op) without a ring.
class interval_recorder {
public:
    void start(interval_ring* ring, std::int64_t start_ns, std::int64_t interval_ns) {
        ring_ = ring;
        start_ns_ = start_ns;
        interval_ns_ = interval_ns;
        if (ring_) open_end_ns_ = start_ns + interval_ns;
    }
    // Hands the open slot over if its interval has ended.
    void tick(std::int64_t now) {
        if (ring_ && now >= open_end_ns_) advance(now);
    }

    // The slot that counts what happens at `now`.
    interval_slot& slot(std::int64_t now) {
        if (now >= open_end_ns_) advance(now);
        return ring_->at(ring_->head.load(std::memory_order_relaxed));
    }
    void sent(std::int64_t now, std::uint32_t k) {
        if (ring_) slot(now).sent += k;
    }
    void failed(std::int64_t now) {
        if (!ring_) return;
        interval_slot& s = slot(now);
        ++s.ended;
        ++s.failed;
    }
    void completed(std::int64_t now, std::int64_t response_ns, std::int64_t lag_ns, bool fixed_rate) {
        if (!ring_) return;
        interval_slot& s = slot(now);
        ++s.ended;
        ++s.completed;
        s.response_ns.record_clamped(response_ns);
        if (!fixed_rate) return;
        s.service_ns.record_clamped(response_ns - lag_ns);
        s.schedule_lag_ns.record_clamped(lag_ns);
    }

private:
    // A new interval began: hand the open slot over and open the next one, or, when the calling
    // thread has not yet given a slot back, let the open slot cover this interval too.
    void advance(std::int64_t now) {
        const std::int64_t index = (now - start_ns_) / interval_ns_;
        open_end_ns_ = start_ns_ + (index + 1) * interval_ns_;
        const std::uint64_t head = ring_->head.load(std::memory_order_relaxed);
        if (head + 1 - ring_->tail.load(std::memory_order_acquire) >= interval_ring::size) {
            ring_->at(head).last = index;
            return;
        }
        interval_slot& next = ring_->at(head + 1);  // cleared by the calling thread before it gave it back
        next.first = next.last = index;
        ring_->head.store(head + 1, std::memory_order_release);
        ring_->open_first.store(index, std::memory_order_release);
    }

    interval_ring* ring_ = nullptr;
    std::int64_t start_ns_ = 0, interval_ns_ = 1;
    std::int64_t open_end_ns_ = INT64_MAX;
};

// The calling thread's side: merges the workers' slots into rows, in order.
class interval_collector {
public:
    // Reserves the rows a run of this plan is expected to need (from its duration, or its count at
    // a fixed rate; 256 when neither tells; at most 4096), so a run that keeps to it allocates no
    // row while it runs (kept histograms are encoded into strings of their own, per interval); a
    // longer one grows the rows by doubling, never per request.
    // `curve`: under stages, the run's rate curve (each row's target comes from it); null: a steady rate.
    interval_collector(const plan& p, std::vector<interval_stats>& rows, std::vector<interval_histogram_set>& kept,
                       const rate_curve* curve = nullptr)
        : interval_ns_(p.effective_interval_ms() * 1'000'000), plan_(p), curve_(curve), rows_(rows), kept_(kept) {
        double seconds = static_cast<double>(p.duration_ms() > 0 ? p.duration_ms() + p.drain_ms() : 0) / 1e3;
        if (seconds == 0 && p.rate() > 0)
            seconds = static_cast<double>(p.requests()) / p.rate() + static_cast<double>(p.drain_ms()) / 1e3;
        const double expected = seconds > 0 ? seconds * 1e9 / static_cast<double>(interval_ns_) + 2 : 256;
        rows_.reserve(static_cast<std::size_t>(std::min(expected, 4096.0)));
    }

    void add(interval_ring* ring) { rings_.push_back(ring); }
    // When the run started on the real-time clock, for the histogram callback.
    void started(std::int64_t realtime_ns) { start_realtime_ns_ = realtime_ns; }

    // Emits every row whose intervals every worker has handed over. `final`: the workers have all
    // been joined — their open slots count too, and the rows run to `end_ns` after the start.
    void collect(bool final, std::int64_t end_ns = 0) {
        for (;;) {
            std::int64_t last = next_;
            if (!row_ready(final, last)) {
                if (!final || (next_ * interval_ns_ >= end_ns && !unread(final))) return;
                last = next_;  // an interval in which nothing was sent or ended
            }
            emit(last, final, end_ns);
        }
    }

private:
    // The workers' slots that may be read: finished ones, and after the join the open one too.
    std::uint64_t readable_end(interval_ring& r, bool final) const {
        return r.head.load(std::memory_order_acquire) + (final ? 1 : 0);
    }

    bool unread(bool final) const {
        for (interval_ring* r : rings_)
            if (r->tail.load(std::memory_order_relaxed) < readable_end(*r, final)) return true;
        return false;
    }

    // Whether the rows from next_ up to `last` (widened to take in every slot that reaches into
    // it) have been handed over by every worker; false when there is nothing for next_ yet.
    bool row_ready(bool final, std::int64_t& last) {
        bool any = false;
        for (bool widened = true; widened;) {
            widened = false;
            for (interval_ring* r : rings_) {
                if (!final && r->open_first.load(std::memory_order_acquire) <= last) return false;
                const std::uint64_t end = readable_end(*r, final);
                for (std::uint64_t i = r->tail.load(std::memory_order_relaxed); i < end && r->at(i).first <= last;
                     ++i) {
                    any = true;
                    if (r->at(i).last > last) {
                        last = r->at(i).last;
                        widened = true;
                    }
                }
            }
        }
        return any || !final;
    }

    // Merges every slot up to `last` into one row, clears them and gives them back.
    void emit(std::int64_t last, bool final, std::int64_t run_end_ns) {
        interval_stats row{};
        row.start_ns = next_ * interval_ns_;
        std::int64_t end_ns = (last + 1) * interval_ns_;
        if (final && run_end_ns > row.start_ns && run_end_ns < end_ns) end_ns = run_end_ns;  // the run ended inside it
        row.duration_ns = end_ns - row.start_ns;
        response_.reset();
        service_.reset();
        lag_.reset();
        for (interval_ring* r : rings_) {
            const std::uint64_t end = readable_end(*r, final);
            std::uint64_t tail = r->tail.load(std::memory_order_relaxed);
            for (; tail < end && r->at(tail).first <= last; ++tail) {
                interval_slot& s = r->at(tail);
                row.sent += s.sent;
                row.ended += s.ended;
                row.completed += s.completed;
                row.failed += s.failed;
                response_.merge(s.response_ns);
                service_.merge(s.service_ns);
                lag_.merge(s.schedule_lag_ns);
                s.clear();
            }
            r->tail.store(tail, std::memory_order_release);
        }
        row.target = curve_ ? curve_->count_at(static_cast<double>(row.start_ns + row.duration_ns)) -
                                  curve_->count_at(static_cast<double>(row.start_ns))
                                 : plan_.rate() * static_cast<double>(row.duration_ns) / 1e9;
        row.latency_count = response_.count();
        row.p50_ns = response_.value_at_percentile(50);
        row.p90_ns = response_.value_at_percentile(90);
        row.p99_ns = response_.value_at_percentile(99);
        row.max_ns = response_.max();
        row.lag_p99_ns = lag_.value_at_percentile(99);
        row.lag_max_ns = lag_.max();
        rows_.push_back(row);
        if (plan_.interval_histograms()) {
            kept_.emplace_back();
            encode_histogram(response_, kept_.back().response);
            encode_histogram(service_, kept_.back().service);
            encode_histogram(lag_, kept_.back().schedule_lag);
        }
        if (plan_.interval_callback()) plan_.interval_callback()(row, plan_.interval_user());
        if (plan_.interval_histograms_callback())
            plan_.interval_histograms_callback()(row,
                                                 interval_histograms{&response_, &service_, &lag_, start_realtime_ns_},
                                                 plan_.interval_histograms_user());
        next_ = last + 1;
    }

    std::int64_t interval_ns_;
    const plan& plan_;
    const rate_curve* curve_;  // under stages: the rows' targets come from it
    std::vector<interval_stats>& rows_;
    std::vector<interval_histogram_set>& kept_;
    std::vector<interval_ring*> rings_;
    std::int64_t next_ = 0;  // the first interval not yet in a row
    std::int64_t start_realtime_ns_ = 0;
    histogram response_, service_, lag_;
};

}  // namespace detail
}  // namespace microbench
