// microbench/event_loop.hpp — a thin epoll wrapper: one per worker thread, and one per server
// thread. Tokens are plain 64-bit numbers (a connection index), never pointers into containers
// that may move. No allocation after construction; no signal handling.
#pragma once

#include <errno.h>
#include <sys/epoll.h>
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

private:
    int fd_;
};

}  // namespace microbench
