// microbench-floor: the least work any HTTP/1.1 client can do, for comparisons. Pre-built
// request; counts response bytes (every response has the same, known length); no parsing.
// One write + one read + at most one epoll_wait per keep-alive request.
//   microbench-floor HOST PORT REQUESTS CONCURRENCY KEEPALIVE(0|1) RESPONSE_BYTES PATH
// Prints: requests=N seconds=S mean_latency_us=L
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

long long now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct conn {
    int fd = -1;
    long got = 0;
    long long started = 0;
    bool connecting = false;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 8) {
        std::fprintf(stderr, "usage: microbench-floor HOST PORT REQUESTS CONCURRENCY KEEPALIVE RESPONSE_BYTES PATH\n");
        return 2;
    }
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(std::atoi(argv[2])));
    inet_pton(AF_INET, argv[1], &to.sin_addr);
    const long total = std::atol(argv[3]);
    const int c = std::atoi(argv[4]);
    const bool keep_alive = std::atoi(argv[5]) != 0;
    const long response_bytes = std::atol(argv[6]);
    std::string req = std::string("GET ") + argv[7] + " HTTP/1.1\r\nHost: " + argv[1] + "\r\n" +
                      (keep_alive ? "" : "Connection: close\r\n") + "\r\n";
    int ep = epoll_create1(0);
    std::vector<conn> conns(static_cast<size_t>(c));
    long issued = 0, done = 0;
    long long latency_sum = 0;
    char buf[65536];
    auto open_conn = [&](int i) {
        conn& k = conns[static_cast<size_t>(i)];
        k.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        int one = 1;
        setsockopt(k.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        connect(k.fd, reinterpret_cast<sockaddr*>(&to), sizeof to);
        k.connecting = true;
        epoll_event ev{};
        ev.events = EPOLLOUT;
        ev.data.u32 = static_cast<uint32_t>(i);
        epoll_ctl(ep, EPOLL_CTL_ADD, k.fd, &ev);
    };
    auto send_req = [&](int i) {
        conn& k = conns[static_cast<size_t>(i)];
        k.got = 0;
        if (write(k.fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) std::abort();
    };
    long long start = now_ns();
    for (int i = 0; i < c && issued < total; ++i, ++issued) {
        conns[static_cast<size_t>(i)].started = now_ns();
        open_conn(i);
    }
    epoll_event events[256];
    while (done < total) {
        int n = epoll_wait(ep, events, 256, 1000);
        for (int e = 0; e < n; ++e) {
            int i = static_cast<int>(events[e].data.u32);
            conn& k = conns[static_cast<size_t>(i)];
            if (k.connecting) {
                k.connecting = false;
                epoll_event ev{};
                ev.events = EPOLLIN;
                ev.data.u32 = static_cast<uint32_t>(i);
                epoll_ctl(ep, EPOLL_CTL_MOD, k.fd, &ev);
                send_req(i);
                continue;
            }
            ssize_t r = read(k.fd, buf, sizeof buf);
            if (r <= 0) std::abort();
            k.got += r;
            if (k.got < response_bytes) continue;
            ++done;
            long long t = now_ns();
            latency_sum += t - k.started;
            if (issued >= total) {
                close(k.fd);
                continue;
            }
            ++issued;
            k.started = t;
            if (keep_alive) {
                send_req(i);
            } else {
                close(k.fd);
                open_conn(i);
            }
        }
    }
    double seconds = static_cast<double>(now_ns() - start) / 1e9;
    std::printf("requests=%ld seconds=%.3f mean_latency_us=%.1f\n", done, seconds,
                static_cast<double>(latency_sum) / static_cast<double>(done) / 1e3);
    return 0;
}
