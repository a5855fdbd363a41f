// microbench/engine/worker_rate.hpp — the worker at a fixed rate, and how a worker waits. Due requests
// go out on idle connections; the schedule's wake is the next request's time, or up to the plan's
// batch lag later when that lets one wake send several. An idle keep-alive connection that hears
// from the server between requests is closed. A worker waits in epoll, woken by the first
// readiness or the earliest timer — except at a fixed rate with keep-alive, when its next job is
// to send within defaults::sleep_through_max_ns (plus the batch lag) on an idle connection: then
// it sleeps through to that time instead of waking for each response, and reads the responses
// that came meanwhile with the time the kernel received them (SO_TIMESTAMPNS), so a request costs
// one wake instead of two and its times stay exact. Not while a connection is connecting, writing
// or part-way through a response ("unsettled"): those times are the worker's own, read when the
// event comes. And only while every read has come with a stamp: an emulator (qemu-user) or a
// kernel may give none.
#pragma once

#include <time.h>

#include "worker.hpp"

namespace microbench {
namespace detail {

// At a fixed rate: issues every request whose time has come on an idle connection; one that
// finds none waits for the next connection to free up (and is counted).
inline void worker::dispatch_due(std::int64_t now) {
    while (due(now) && !idle_.empty()) {  // what stays due waits for a connection to free up
        std::uint32_t ci = idle_.back();
        idle_.pop_back();
        issue(ci, now);
    }
}

// When to wake for the schedule: at the next request's time, or later by at most the plan's
// batch lag when requests due within it can go out together — on idle connections, within the
// quota, before the stop time. Each still counts from its own intended time.
// Kept until a request is issued or the idle connections change: Poisson times are drawn to find it.
inline std::int64_t worker::batch_wake() {
    if (s_.batch_lag_ns == 0) return schedule_.next();
    std::uint64_t limit = idle_.size();
    if (s_.quota) limit = std::min<std::uint64_t>(limit, s_.quota - issued_);
    if (issued_ != batch_wake_for_.issued || limit != batch_wake_for_.limit)
        batch_wake_for_ = {issued_, limit, schedule_.last_within(s_.batch_lag_ns, limit, stop_issuing_ns_)};
    return batch_wake_for_.wake;
}

// An event on a keep-alive connection waiting for the schedule: the server closed it or sent
// bytes nobody asked for — either way it is closed, and reopened when its next request is due.
inline void worker::on_idle_event(connection& c, std::uint32_t events) {
    if (!(events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) && !c.read_wants_write)
        return;  // writable again: nothing to do
    std::int64_t stamped = 0;
    io_result r = receive(c, stamped);  // over TLS: a session ticket is read here, and is not data
    if (r.status == io::again) return;
    if (s_.keep_alive && r.status == io::closed) ++stats_.server_closes;
    close_connection(c, r.status == io::ok);
}

inline int worker::wait_for_events(epoll_event* events, std::int64_t now, std::int64_t wake, bool more_now) {
    if (more_now) return loop_.wait_ns(events, defaults::worker_event_batch, 0);
    const bool sleep_through = stamps_work_ && !idle_.empty() && schedule_pending() &&
                               wake - now <= defaults::sleep_through_max_ns + s_.batch_lag_ns && settled();
    if (!sleep_through)
        return loop_.wait_ns(events, defaults::worker_event_batch, std::max<std::int64_t>(0, wake - now));
    timespec until{static_cast<time_t>(wake / 1'000'000'000), static_cast<long>(wake % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {
    }
    return loop_.wait_ns(events, defaults::worker_event_batch, 0);
}

// Remembers a connection whose next event must be seen when it happens (see above).
inline void worker::watch(std::uint32_t ci) {
    connection& c = conns_[ci];
    if (!s_.stamp_arrivals || c.watched) return;
    c.watched = true;
    unsettled_.push_back(ci);
}

// Whether no connection is unsettled; forgets the ones that have settled since.
inline bool worker::settled() {
    std::size_t kept = 0;
    for (std::uint32_t ci : unsettled_) {
        connection& c = conns_[ci];
        const bool still = c.state == connection::phase::connecting || c.state == connection::phase::handshaking ||
                           c.state == connection::phase::writing ||
                           (c.state == connection::phase::reading && c.parser.started());
        if (still) unsettled_[kept++] = ci;
        else c.watched = false;
    }
    unsettled_.resize(kept);
    return kept == 0;
}

// The monotonic time of an arrival the kernel stamped on the wall clock, using the offset
// between the two clocks read at the top of this pass of the loop; never later than `now`.
inline std::int64_t worker::arrival_time(std::int64_t stamped_realtime_ns, std::int64_t now) const {
    if (stamped_realtime_ns == 0) return now;
    return std::min(now, stamped_realtime_ns - realtime_offset_ns_);
}

}  // namespace detail
}  // namespace microbench
