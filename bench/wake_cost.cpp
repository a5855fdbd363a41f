// microbench-wake-cost: what one wake costs the thread that wakes, on this machine — the figure
// that bounds a fixed rate's client CPU per request (bench/open_model.py prints it beside the
// load runs). The measuring thread runs on CPU 0, a peer thread on CPU 1; each case repeats an
// event every GAP µs and reports the measuring thread's own CPU time per event
// (CLOCK_THREAD_CPUTIME_ID) and, for timed cases, how late the wake came:
//   null syscall       getppid(): the price of entering the kernel at all
//   timer wake         clock_nanosleep to an absolute time (how a worker sleeps through to a send)
//   response wake      epoll_wait woken by a byte the peer sends, then its read (a closed loop's
//                      wake), per wake
//   timer + send       clock_nanosleep, then a 1-byte send the blocked peer wakes for (one request
//                      of the open model, less its response)
//   io_uring send      the same send issued by the kernel: IORING_OP_TIMEOUT (absolute, expiry a
//                      success so the link goes on: Linux 5.16) linked to IORING_OP_SEND, 16
//                      submitted ahead, completions reaped as they come; every send checked
// The measuring thread has 1 us of timer slack, as the engine's workers do. Lag is from the
// intended time to when the thread saw the event (for io_uring: reaped its completion).
//   microbench-wake-cost [GAP_US=100] [EVENTS=20000]
// Prints one line per case: "case: X.XX us CPU per event, lag mean Y us p99 Z us".
#include <errno.h>
#if __has_include(<linux/io_uring.h>)
#include <linux/io_uring.h>
#endif
#if defined(IORING_TIMEOUT_ETIME_SUCCESS)  // Linux 5.16's headers
#define MICROBENCH_WAKE_COST_URING 1
#endif
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

long long clock_ns(clockid_t id) {
    timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
long long now_ns() { return clock_ns(CLOCK_MONOTONIC); }
long long cpu_ns() { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

void sleep_until(long long t) {
    timespec until{static_cast<time_t>(t / 1000000000), static_cast<long>(t % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {
    }
}

struct outcome {
    double cpu_us = 0;  // per event
    std::vector<long long> lags;
};

void print(const char* name, const outcome& o) {
    std::printf("%s: %.2f us CPU per event", name, o.cpu_us);
    if (!o.lags.empty()) {
        std::vector<long long> l = o.lags;
        std::sort(l.begin(), l.end());
        double mean = 0;
        for (long long x : l) mean += static_cast<double>(x);
        mean /= static_cast<double>(l.size());
        std::printf(", lag mean %.1f us p99 %.1f us", mean / 1000, static_cast<double>(l[l.size() * 99 / 100]) / 1000);
    }
    std::printf("\n");
    std::fflush(stdout);
}

// A connected TCP pair on loopback: {ours, peer's}.
bool tcp_pair(int fds[2]) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(listener, 1) != 0 ||
        getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        return false;
    fds[0] = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fds[0], reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return false;
    fds[1] = accept(listener, nullptr, nullptr);
    close(listener);
    int one = 1;
    setsockopt(fds[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fds[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fds[1] >= 0;
}

// The peer on CPU 1: reads until the socket closes (each byte it blocks for is a wake it pays).
void* drain(void* arg) {
    pin(1);
    int fd = *static_cast<int*>(arg);
    char buf[256];
    while (read(fd, buf, sizeof buf) > 0) {
    }
    return nullptr;
}

struct ticker_args {
    int fd;
    long long gap_ns;
    int events;
};
// The peer on CPU 1: sends a byte every gap, `events` times.
void* tick(void* arg) {
    pin(1);
    auto* t = static_cast<ticker_args*>(arg);
    long long at = now_ns();
    for (int i = 0; i < t->events; ++i) {
        at += t->gap_ns;
        sleep_until(at);
        if (write(t->fd, "x", 1) != 1) break;
    }
    return nullptr;
}

outcome null_syscall(int events) {
    long long c = cpu_ns();
    for (int i = 0; i < events; ++i) syscall(SYS_getppid);
    return {static_cast<double>(cpu_ns() - c) / events / 1000, {}};
}

outcome timer_wake(long long gap, int events, int send_fd) {
    outcome o;
    o.lags.reserve(events);
    long long c = cpu_ns(), at = now_ns();
    for (int i = 0; i < events; ++i) {
        at += gap;
        sleep_until(at);
        o.lags.push_back(now_ns() - at);
        if (send_fd >= 0 && send(send_fd, "x", 1, 0) != 1) break;
    }
    o.cpu_us = static_cast<double>(cpu_ns() - c) / events / 1000;
    return o;
}

outcome response_wake(long long gap, int events) {
    int fds[2];
    if (!tcp_pair(fds)) return {};
    ticker_args args{fds[1], gap, events};
    pthread_t peer;
    pthread_create(&peer, nullptr, tick, &args);
    int ep = epoll_create1(0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev);
    char buf[64];
    long long c = cpu_ns();
    int got = 0, wakes = 0;
    while (got < events) {
        epoll_event out;
        if (epoll_wait(ep, &out, 1, 1000) != 1) break;
        ++wakes;
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n <= 0) break;
        got += static_cast<int>(n);
    }
    outcome o{static_cast<double>(cpu_ns() - c) / std::max(wakes, 1) / 1000, {}};
    pthread_join(peer, nullptr);
    close(ep);
    close(fds[0]);
    close(fds[1]);
    return o;
}

#ifdef MICROBENCH_WAKE_COST_URING
// A minimal io_uring: the rings mapped, SQEs written in order, raw syscalls (no liburing).
struct ring {
    int fd = -1;
    unsigned *sq_tail = nullptr, *sq_mask = nullptr, *sq_array = nullptr, *cq_head = nullptr, *cq_tail = nullptr, *cq_mask = nullptr;
    io_uring_sqe* sqes = nullptr;
    io_uring_cqe* cqes = nullptr;

    bool open(unsigned entries) {
        io_uring_params p{};
        fd = static_cast<int>(syscall(__NR_io_uring_setup, entries, &p));
        if (fd < 0) return false;
        size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
        size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
        size_t size = std::max(sq_size, cq_size);  // one mapping for both (IORING_FEAT_SINGLE_MMAP, Linux 5.4)
        auto* sq = static_cast<char*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING));
        auto* s = mmap(nullptr, p.sq_entries * sizeof(io_uring_sqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
        if (sq == MAP_FAILED || s == MAP_FAILED || !(p.features & IORING_FEAT_SINGLE_MMAP)) return false;
        sq_tail = reinterpret_cast<unsigned*>(sq + p.sq_off.tail);
        sq_mask = reinterpret_cast<unsigned*>(sq + p.sq_off.ring_mask);
        sq_array = reinterpret_cast<unsigned*>(sq + p.sq_off.array);
        cq_head = reinterpret_cast<unsigned*>(sq + p.cq_off.head);
        cq_tail = reinterpret_cast<unsigned*>(sq + p.cq_off.tail);
        cq_mask = reinterpret_cast<unsigned*>(sq + p.cq_off.ring_mask);
        cqes = reinterpret_cast<io_uring_cqe*>(sq + p.cq_off.cqes);
        sqes = static_cast<io_uring_sqe*>(s);
        return true;
    }
    // The k-th entry after the tail, cleared; publish() hands them to the kernel once filled.
    io_uring_sqe* entry(unsigned k) {
        unsigned i = (*sq_tail + k) & *sq_mask;
        sq_array[i] = i;
        std::memset(&sqes[i], 0, sizeof sqes[i]);
        return &sqes[i];
    }
    void publish(unsigned n) { __atomic_store_n(sq_tail, *sq_tail + n, __ATOMIC_RELEASE); }
    int enter(unsigned submit, unsigned wait) {
        return static_cast<int>(syscall(__NR_io_uring_enter, fd, submit, wait, wait ? IORING_ENTER_GETEVENTS : 0, nullptr, 0));
    }
};

outcome uring_send(long long gap, int events, int send_fd) {
    constexpr int ahead = 16;  // timed sends in the kernel's hands at once
    ring r;
    if (!r.open(4 * ahead)) {
        std::printf("io_uring send: not available here\n");
        return {};
    }
    std::vector<__kernel_timespec> times(static_cast<std::size_t>(events));
    std::vector<long long> due(static_cast<std::size_t>(events));
    outcome o;
    o.lags.reserve(events);
    long long c = cpu_ns(), start = now_ns();
    int queued = 0, sent = 0;
    auto queue = [&](int i) {
        due[i] = start + (i + 1) * gap;
        times[i] = {due[i] / 1000000000, due[i] % 1000000000};
        io_uring_sqe* t = r.entry(0);
        t->opcode = IORING_OP_TIMEOUT;
        t->addr = reinterpret_cast<std::uint64_t>(&times[i]);
        t->len = 1;
        t->timeout_flags = IORING_TIMEOUT_ABS | IORING_TIMEOUT_ETIME_SUCCESS;  // expiry must not cancel the send
        t->flags = IOSQE_IO_LINK;
        t->user_data = ~0ULL;
        io_uring_sqe* s = r.entry(1);
        s->opcode = IORING_OP_SEND;
        s->fd = send_fd;
        s->addr = reinterpret_cast<std::uint64_t>("x");
        s->len = 1;
        s->user_data = static_cast<std::uint64_t>(i);
        r.publish(2);
    };
    for (; queued < std::min(ahead, events); ++queued) queue(queued);
    unsigned to_submit = 2 * queued;
    int failed = 0, failure = 0;
    while (sent + failed < events) {
        int n = r.enter(to_submit, 1);
        if (n < 0 && errno != EINTR) {
            std::printf("io_uring send: io_uring_enter failed (errno %d)\n", errno);
            break;
        }
        if (n > 0) to_submit -= static_cast<unsigned>(n);
        long long t = now_ns();
        unsigned head = *r.cq_head, tail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
        for (; head != tail; ++head) {
            const io_uring_cqe& e = r.cqes[head & *r.cq_mask];
            if (e.user_data == ~0ULL) continue;  // the timeout's own completion
            if (e.res == 1) {
                o.lags.push_back(t - due[e.user_data]);
                ++sent;
            } else {
                ++failed;
                failure = e.res;
            }
            if (queued < events) {
                queue(queued++);
                to_submit += 2;
            }
        }
        __atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
    }
    o.cpu_us = static_cast<double>(cpu_ns() - c) / std::max(sent, 1) / 1000;
    if (failed) {
        std::printf("io_uring send: %d of %d sends failed (res %d): no figure\n", failed, events, failure);
        o.lags.clear();
    }
    close(r.fd);
    return o;
}

#endif

}  // namespace

int main(int argc, char** argv) {
    const long long gap = (argc > 1 ? std::atoll(argv[1]) : 100) * 1000;
    const int events = argc > 2 ? std::atoi(argv[2]) : 20000;
    if (gap <= 0 || events <= 0) {
        std::fprintf(stderr, "usage: microbench-wake-cost [GAP_US>0] [EVENTS>0]\n");
        return 2;
    }
    pin(0);
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);  // as the engine's workers (runner.hpp)
    std::printf("every %lld us, %d events; this thread on CPU 0, its peer on CPU 1\n", gap / 1000, events);
    print("null syscall", null_syscall(events));
    print("timer wake", timer_wake(gap, events, -1));
    print("response wake", response_wake(gap, events));
    int fds[2];
    if (!tcp_pair(fds)) return 1;
    pthread_t peer;
    pthread_create(&peer, nullptr, drain, &fds[1]);
    print("timer + send", timer_wake(gap, events, fds[0]));
#ifdef MICROBENCH_WAKE_COST_URING
    outcome u = uring_send(gap, events, fds[0]);
    if (!u.lags.empty()) print("io_uring send", u);
#else
    std::printf("io_uring send: not built (these kernel headers lack IORING_TIMEOUT_ETIME_SUCCESS)\n");
#endif
    shutdown(fds[0], SHUT_WR);
    pthread_join(peer, nullptr);
    close(fds[0]);
    close(fds[1]);
    return 0;
}
