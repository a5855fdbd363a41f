// tests/scripted_server.hpp — a deliberately misbehaving HTTP server for the engine's tests:
// every accepted connection runs a script (a function) on its own thread, with blocking I/O.
// Counts connections and requests so tests can compare them with the client's counts.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

class scripted_server {
public:
    struct context {
        int fd;
        int connection;  // 0, 1, 2 … in accept order
        scripted_server* server;
        std::string pending;  // bytes read past the last request
        std::string head;     // the last request head read, without its blank line

        // Reads one request head (tests send no bodies) into `head`; false at EOF or error.
        bool read_request() {
            for (;;) {
                std::size_t end = pending.find("\r\n\r\n");
                if (end != std::string::npos) {
                    head.assign(pending, 0, end);
                    pending.erase(0, end + 4);
                    server->requests.fetch_add(1);
                    return true;
                }
                char buf[4096];
                ssize_t n = ::recv(fd, buf, sizeof buf, 0);
                if (n < 0 && (errno == EAGAIN || errno == EINTR) && !stopping()) continue;
                if (n <= 0) return false;
                pending.append(buf, static_cast<std::size_t>(n));
            }
        }
        bool send(const std::string& bytes) {
            return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
        }
        void small_send_buffer() {  // 4 KiB asked (the kernel doubles it): a send blocks early
            int bytes = 4096;
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
        }
        void reset() {  // close with RST
            linger l{1, 0};
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
        }
        bool stopping() const { return server->stop_.load(); }
    };
    using script = void (*)(context&);

    explicit scripted_server(script s) : script_(s) {
        listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(listen_fd_, 1024);
        socklen_t len = sizeof a;
        getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        acceptor_ = std::thread([this] { accept_loop(); });
    }
    ~scripted_server() {
        stop_ = true;
        acceptor_.join();
        std::lock_guard<std::mutex> lock(mutex_);
        for (std::thread& t : handlers_) t.join();
        ::close(listen_fd_);
    }

    std::uint16_t port() const { return port_; }
    std::string url(const char* path = "/") const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
    std::atomic<int> connections{0};
    std::atomic<int> requests{0};

private:
    void accept_loop() {
        while (!stop_) {
            pollfd p{listen_fd_, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0) continue;
            int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) continue;
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            timeval tv{0, 100'000};  // blocking reads wake up to notice stop_
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            int index = connections.fetch_add(1);
            std::lock_guard<std::mutex> lock(mutex_);
            handlers_.emplace_back([this, fd, index] {
                context c{fd, index, this, {}, {}};
                script_(c);
                ::close(fd);
            });
        }
    }

    script script_;
    int listen_fd_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread acceptor_;
    std::mutex mutex_;
    std::vector<std::thread> handlers_;
};
