// libFuzzer target for the whole client path: a run of the engine against a loopback server whose
// every connection answers with the fuzzed bytes — written in fuzzed pieces, then closed or reset
// — and the engine's invariants checked after every run: each request ended exactly once,
// completed + failed = ended, one latency value and one status per completed request, and no
// descriptor left open.
//   input: [requests] [flags] [piece] [server bytes…]
//     requests: 1 + byte % 6;  flags: bit 0 keep-alive, bit 1 reset instead of close,
//     bits 2–3 pipeline depth − 1 (with keep-alive), bit 4 two connections, bit 5 HEAD;
//     piece: 1 + byte % 64 bytes per write.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "microbench.hpp"

namespace {

// What every connection of a run answers.
struct script {
    std::string bytes;
    std::size_t piece = 1;
    bool reset = false;
};

// A run's server: one thread accepts and serves connections one at a time until stopped; then
// it closes whatever is still waiting to be accepted, so no descriptor outlives the run.
class server {
public:
    explicit server(const script& s) : script_(s) {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 64) != 0) std::abort();
        socklen_t len = sizeof a;
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~server() {
        stop_ = true;
        thread_.join();
        ::close(fd_);
    }
    std::uint16_t port() const { return port_; }

private:
    void serve() {
        for (;;) {
            pollfd l{fd_, POLLIN, 0};
            if (::poll(&l, 1, 5) <= 0) {
                if (stop_) return;
                continue;
            }
            int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0) continue;
            if (!stop_) answer(c);
            ::close(c);
        }
    }
    void answer(int c) {
        char buf[4096];
        pollfd p{c, POLLIN, 0};
        if (::poll(&p, 1, 100) > 0) ::recv(c, buf, sizeof buf, MSG_DONTWAIT);  // the request, usually
        for (std::size_t at = 0; at < script_.bytes.size(); at += script_.piece)
            if (::send(c, script_.bytes.data() + at, std::min(script_.piece, script_.bytes.size() - at), MSG_NOSIGNAL) < 0) break;
        while (::recv(c, buf, sizeof buf, MSG_DONTWAIT) > 0) {
        }
        if (script_.reset) {
            linger lg{1, 0};
            setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        }
    }
    const script& script_;
    int fd_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

void require(bool ok, const char* what) {
    if (ok) return;
    std::fprintf(stderr, "fuzz_client: invariant broken: %s\n", what);
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) return 0;
    const std::uint64_t requests = 1 + data[0] % 6;
    const std::uint8_t flags = data[1];
    const bool keep_alive = flags & 1;
    const std::uint32_t pipeline = keep_alive ? 1 + ((flags >> 2) & 3) : 1;
    const std::uint32_t connections = (flags & 16) && requests > 1 ? 2 : 1;
    script s;
    s.piece = 1 + data[2] % 64;
    s.reset = flags & 2;
    s.bytes.assign(reinterpret_cast<const char*>(data + 3), size - 3);

    const std::size_t fds_before = microbench::detail::open_descriptors();
    {
        server srv(s);
        microbench::plan p;
        p.url("http://127.0.0.1:" + std::to_string(srv.port()) + "/").requests(requests).concurrency(connections)
            .keep_alive(keep_alive).pipeline(pipeline).method(flags & 32 ? "HEAD" : "GET").timeout_ms(300).connect_timeout_ms(300);
        microbench::result r;
        require(!microbench::run(p, r), "the run starts");
        require(r.requests_ended == requests && r.unfinished == 0, "every request ended exactly once");
        require(r.requests_completed + r.requests_failed == r.requests_ended, "completed + failed = ended");
        std::uint64_t reasons = 0, statuses = 0;
        for (int i = 0; i < microbench::failure_count; ++i) reasons += r.failures[i];
        for (std::uint64_t n : r.status_counts) statuses += n;
        require(reasons == r.requests_failed, "one reason per failure");
        require(statuses == r.requests_completed, "one status per completed request");
        require(r.total_ns.count() == r.requests_completed && r.connect_ns.count() == r.requests_completed,
                "one latency value per completed request");
    }
    require(microbench::detail::open_descriptors() == fds_before, "no descriptor left open");
    return 0;
}
