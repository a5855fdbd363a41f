// microbench/engine/event_loop.hpp — a thin epoll wrapper: one per worker thread, and one per server
// thread. Tokens are plain 64-bit numbers (a connection index), never pointers into containers
// that may move. No allocation after construction; no signal handling.
#pragma once

#include <errno.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

namespace microbench {

class event_loop {
public:
    event_loop() : fd_(epoll_create1(EPOLL_CLOEXEC)) {}
    ~event_loop() {
        if (fd_ >= 0) ::close(fd_);
    }
    event_loop(const event_loop&) = delete;
    event_loop& operator=(const event_loop&) = delete;

    bool ok() const { return fd_ >= 0; }

    // Edge-triggered registration for reading and writing at once: a connection is registered
    // once for its lifetime, so a request costs no epoll_ctl (wrk pays two per request).
    bool add(int fd, std::uint64_t token, std::uint32_t events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET) {
        epoll_event ev{};
        ev.events = events;
        ev.data.u64 = token;
        return epoll_ctl(fd_, EPOLL_CTL_ADD, fd, &ev) == 0;
    }
    bool modify(int fd, std::uint64_t token, std::uint32_t events) {
        epoll_event ev{};
        ev.events = events;
        ev.data.u64 = token;
        return epoll_ctl(fd_, EPOLL_CTL_MOD, fd, &ev) == 0;
    }
    // Closing a descriptor removes it too; this is for descriptors that stay open.
    void remove(int fd) { epoll_ctl(fd_, EPOLL_CTL_DEL, fd, nullptr); }

    // Ready events into `events`; 0 on timeout or interruption.
    int wait(epoll_event* events, int max_events, int timeout_ms) {
        int n = epoll_wait(fd_, events, max_events, timeout_ms);
        return n < 0 ? 0 : n;
    }

    // The same with a timeout in nanoseconds (< 0: none): epoll_pwait2 where the kernel has it
    // (Linux 5.11), so a fixed-rate schedule is kept to tens of microseconds, not to the next
    // millisecond; elsewhere the timeout is rounded up to whole milliseconds.
    int wait_ns(epoll_event* events, int max_events, std::int64_t timeout_ns) {
#ifdef SYS_epoll_pwait2
        if (pwait2_) {
            timespec ts{static_cast<time_t>(timeout_ns / 1'000'000'000), static_cast<long>(timeout_ns % 1'000'000'000)};
            long n = syscall(SYS_epoll_pwait2, fd_, events, max_events, timeout_ns < 0 ? nullptr : &ts, nullptr, 0);
            if (n >= 0) return static_cast<int>(n);
            if (errno != ENOSYS) return 0;
            pwait2_ = false;
        }
#endif
        int ms = timeout_ns < 0 ? -1 : static_cast<int>((timeout_ns + 999'999) / 1'000'000);
        return wait(events, max_events, ms);
    }

private:
    int fd_;
    bool pwait2_ = true;
};

}  // namespace microbench
