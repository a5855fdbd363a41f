// microbench/server/server.hpp — the reference server's sockets and threads: epoll, HTTP/1.1
// keep-alive, pipelining-safe (one request at a time per connection, answered in order),
// N threads sharing one listening socket (TCP, or a Unix socket: listener.hpp), delayed answers
// (/delay, /stall) on a per-thread timer heap.
// What it answers is server_endpoints.hpp. A test fixture: malformed requests get a 400 and a
// close, never a crash; it never blocks its loop (but for /work, which holds its thread on
// purpose), and when accept() finds no free descriptor
// or buffer it stops listening for a moment instead of spinning. With chaos options it cuts
// responses short and closes connections at random, counting each (server_options). /stats also
// counts connections by the client's address (to check that -B spreads them).
#pragma once

#include <pthread.h>
#include <sys/eventfd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../core/clock.hpp"
#include "../core/error.hpp"
#include "../core/splitmix.hpp"
#include "../engine/event_loop.hpp"
#include "../engine/net.hpp"
#include "request_parser.hpp"
#include "server_endpoints.hpp"
#include "listener.hpp"

namespace microbench {

class server {
public:
    server() = default;
    ~server() { stop(); }
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    // Binds, listens and starts the threads. The error's position holds errno when the
    // system refuses (errc::run_system); a bad host is errc::plan_bad_bind_address.
    error start(const server_options& options) {
        stop();
        options_ = options;
        sources_.clear();  // no thread runs between stop() and here
        paths_.reset(options.count_paths);
        factorials_.reset(new factorial_cache(options.max_factorial));
        listen_fd_ = detail::listen_on(options.host, options.port, options.unix_path, 4096, port_, unix_file_);
        if (listen_fd_ == -2) {
            listen_fd_ = -1;
            return {errc::plan_bad_bind_address, 0};
        }
        if (listen_fd_ < 0) return fail_start();
        wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (wake_fd_ < 0) return fail_start();
        thread_count_ = std::max<std::uint32_t>(1, options.threads);
        threads_.reset(new thread[thread_count_]);
        for (std::uint32_t i = 0; i < thread_count_; ++i) {
            thread& t = threads_[i];
            t.owner = this;
            t.chaos_state = options.chaos_seed + i;
            if (!t.loop.ok() || !t.loop.add(listen_fd_, listen_token, EPOLLIN | EPOLLEXCLUSIVE) ||
                !t.loop.add(wake_fd_, wake_token, EPOLLIN))
                return fail_start();
            t.started = pthread_create(&t.id, nullptr, &server::thread_main, &t) == 0;
            if (!t.started) return fail_start();
        }
        return {};
    }

    std::uint16_t port() const { return port_; }  // 0 on a Unix socket

    // Stops every thread and closes every connection; safe to call twice.
    void stop() {
        if (wake_fd_ >= 0) {
            std::uint64_t one = 1;
            ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
            (void)ignored;
        }
        for (std::uint32_t i = 0; i < thread_count_; ++i) {
            if (threads_[i].started) {
                pthread_join(threads_[i].id, nullptr);
                threads_[i].started = false;
            }
        }
        detail::remove_unix_socket_file(unix_file_);
        unix_file_ = {};
        if (listen_fd_ >= 0) ::close(listen_fd_);
        if (wake_fd_ >= 0) ::close(wake_fd_);
        listen_fd_ = wake_fd_ = -1;
        port_ = 0;
        threads_.reset();
        thread_count_ = 0;
    }

    // With `paths` (and server_options::count_paths): the requests by target too.
    server_counts counts(bool paths = true) const {
        server_counts c;
        std::uint64_t* fields[] = {&c.requests, &c.factorial, &c.delay, &c.echo, &c.status,
                                   &c.other, &c.bad_request, &c.connections, &c.cut, &c.closed,
                                   &c.listen_pauses};
        for (std::uint32_t i = 0; i < thread_count_; ++i)
            for (int f = 0; f < count_fields; ++f) *fields[f] += threads_[i].counts[f].load(std::memory_order_relaxed);
        pthread_mutex_lock(&sources_mutex_);
        c.sources = sources_;
        pthread_mutex_unlock(&sources_mutex_);
        if (paths && options_.count_paths) paths_.copy_to(c);
        return c;
    }
    // Requests answered so far (counts().requests without copying anything: no allocation).
    std::uint64_t requests() const {
        std::uint64_t n = 0;
        for (std::uint32_t i = 0; i < thread_count_; ++i)
            n += threads_[i].counts[f_requests].load(std::memory_order_relaxed);
        return n;
    }

private:
    static constexpr std::uint64_t listen_token = ~std::uint64_t{0};
    static constexpr std::uint64_t wake_token = ~std::uint64_t{0} - 1;
    enum count_field { f_requests, f_factorial, f_delay, f_echo, f_status, f_other, f_bad_request, f_connections,
                       f_cut, f_closed, f_listen_pauses };
    static constexpr int count_fields = 11;

    struct connection {
        int fd = -1;
        std::uint32_t generation = 0;
        std::string in, out;
        std::size_t in_used = 0, out_sent = 0;
        std::int64_t release_ns = 0;  // a delayed response waits in `out` until then
        bool close_after = false;
        bool reset_after = false;     // chaos: close with a reset, not a FIN
        bool writing = false;         // registered for EPOLLOUT
    };
    struct timer {
        std::int64_t at_ns;
        std::uint32_t slot, generation;
    };
    struct later {  // makes the std heap functions keep the earliest timer at the front
        bool operator()(const timer& a, const timer& b) const { return a.at_ns > b.at_ns; }
    };
    struct alignas(64) thread {
        server* owner = nullptr;
        pthread_t id{};
        bool started = false;
        event_loop loop;
        std::vector<connection> conns;
        std::vector<std::uint32_t> free_slots;
        std::vector<timer> timers;  // a min-heap by time
        std::int64_t listen_again_ns = 0;  // accepting paused by a local shortage until then
        std::atomic<std::uint64_t> counts[count_fields] = {};
        std::uint64_t chaos_state = 0;  // SplitMix64, seeded from server_options::chaos_seed
    };

    error fail_start() {
        int err = errno;
        stop();
        return {errc::run_system, static_cast<std::size_t>(err)};
    }

    static void* thread_main(void* arg) {
        auto* t = static_cast<thread*>(arg);
        t->owner->serve(*t);
        return nullptr;
    }

    void bump(thread& t, count_field f) { t.counts[f].fetch_add(1, std::memory_order_relaxed); }

    void serve(thread& t) {
        epoll_event events[128];
        for (;;) {
            std::int64_t wake = t.timers.empty() ? INT64_MAX : t.timers.front().at_ns;
            if (t.listen_again_ns) wake = std::min(wake, t.listen_again_ns);
            const std::int64_t timeout_ns = wake == INT64_MAX ? -1 : std::max<std::int64_t>(0, wake - now_ns());
            int n = t.loop.wait_ns(events, 128, timeout_ns);  // to the microsecond: /delay?us=N
            for (int i = 0; i < n; ++i) {
                std::uint64_t token = events[i].data.u64;
                if (token == wake_token) {
                    for (connection& c : t.conns)
                        if (c.fd >= 0) ::close(c.fd);
                    return;
                }
                if (token == listen_token) accept_all(t);
                else on_io(t, static_cast<std::uint32_t>(token), events[i].events);
            }
            std::int64_t now = now_ns();
            if (t.listen_again_ns && now >= t.listen_again_ns &&
                t.loop.add(listen_fd_, listen_token, EPOLLIN | EPOLLEXCLUSIVE))
                t.listen_again_ns = 0;
            while (!t.timers.empty() && t.timers.front().at_ns <= now) {
                timer due = t.timers.front();
                std::pop_heap(t.timers.begin(), t.timers.end(), later());
                t.timers.pop_back();
                connection& c = t.conns[due.slot];
                if (c.fd < 0 || c.generation != due.generation) continue;
                c.release_ns = 0;
                flush(t, due.slot);
                if (t.conns[due.slot].fd >= 0) process(t, due.slot);
            }
        }
    }

    static bool no_descriptor_or_buffer(int err) {
        return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
    }

    void accept_all(thread& t) {
        for (;;) {
            sockaddr_storage peer{};
            socklen_t peer_len = sizeof peer;
            int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &peer_len, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EINTR || errno == ECONNABORTED) continue;  // that one is gone; others may wait
                // Accept's EAGAIN means none left (or another thread took it), never a shortage.
                if (no_descriptor_or_buffer(errno)) {
                    // Level-triggered: the pending connection would wake this loop at once, forever.
                    t.loop.remove(listen_fd_);
                    t.listen_again_ns = now_ns() + 2'000'000;
                    bump(t, f_listen_pauses);
                }
                return;
            }
            int one = 1;
            if (options_.unix_path.empty()) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            std::uint32_t slot;
            if (!t.free_slots.empty()) {
                slot = t.free_slots.back();
                t.free_slots.pop_back();
            } else {
                slot = static_cast<std::uint32_t>(t.conns.size());
                t.conns.emplace_back();
            }
            connection& c = t.conns[slot];
            c.fd = fd;
            ++c.generation;
            c.in.clear();
            c.out.clear();
            c.in_used = c.out_sent = 0;
            c.release_ns = 0;
            c.close_after = c.reset_after = c.writing = false;
            bump(t, f_connections);
            count_source(peer);
            if (!t.loop.add(fd, slot, EPOLLIN | EPOLLRDHUP)) close_slot(t, slot);
        }
    }

    // A connection from `peer`, by address (one lock per accepted connection, none per request).
    void count_source(const sockaddr_storage& peer) {
        char text[INET6_ADDRSTRLEN] = "other";
        if (peer.ss_family == AF_UNIX) std::strcpy(text, "unix");
        if (peer.ss_family == AF_INET)
            inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&peer)->sin_addr, text, sizeof text);
        if (peer.ss_family == AF_INET6)
            inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&peer)->sin6_addr, text, sizeof text);
        pthread_mutex_lock(&sources_mutex_);
        auto it = std::find_if(sources_.begin(), sources_.end(), [&](const auto& s) { return s.first == text; });
        if (it == sources_.end() && sources_.size() >= 256)
            it = std::find_if(sources_.begin(), sources_.end(), [](const auto& s) { return s.first == "other"; });
        if (it == sources_.end()) {
            sources_.emplace_back(sources_.size() >= 256 ? "other" : text, 0);
            it = sources_.end() - 1;
        }
        ++it->second;
        pthread_mutex_unlock(&sources_mutex_);
    }

    void on_io(thread& t, std::uint32_t slot, std::uint32_t events) {
        if (t.conns[slot].fd < 0) return;
        if (events & EPOLLOUT) flush(t, slot);
        if (t.conns[slot].fd < 0 || !(events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) return;
        char buf[16384];
        for (;;) {
            connection& c = t.conns[slot];
            io_result r = read_some(c.fd, buf, sizeof buf);
            if (r.status == io::again) break;
            if (r.status != io::ok) return close_slot(t, slot);
            if (c.close_after) continue;  // answering a bad request: ignore the rest
            c.in.append(buf, r.bytes);
            if (r.bytes < sizeof buf) break;
        }
        process(t, slot);
    }

    // Answers complete requests in order; stops at a delayed answer, which must go out first.
    void process(thread& t, std::uint32_t slot) {
        connection& c = t.conns[slot];
        while (c.fd >= 0 && c.release_ns == 0 && !c.close_after) {
            std::string_view pending = std::string_view(c.in).substr(c.in_used);
            request_head head;
            request_parse parsed = parse_request_head(pending, head);
            if (parsed == request_parse::incomplete) break;
            if (parsed == request_parse::ok && head.content_length > options_.max_body_bytes)
                parsed = request_parse::bad;
            if (parsed == request_parse::bad) {
                bump(t, f_requests);
                bump(t, f_bad_request);
                c.close_after = true;
                detail::append_response(c.out, 400, "text/plain", "bad request\n", "close", false);
                break;
            }
            if (pending.size() < head.head_bytes + head.content_length) break;
            std::string_view body = pending.substr(head.head_bytes, head.content_length);
            const std::size_t response_at = c.out.size();
            auto stats = [this](bool paths) { return counts(paths); };
            answer a = answer_request(head, body, options_, *factorials_, stats, c.out);
            c.in_used += head.head_bytes + head.content_length;
            c.close_after = a.close;
            if (a.kind != endpoint_kind::stats) {
                bump(t, f_requests);
                if (options_.count_paths) paths_.count(head.target);
                static constexpr count_field by_kind[] = {f_factorial, f_delay, f_echo, f_status, f_other,
                                                          f_bad_request};
                bump(t, by_kind[static_cast<int>(a.kind)]);
                if (options_.chaos_cut_permille || options_.chaos_close_permille) chaos(t, c, response_at);
            }
            if (a.hold_ns > 0) sleep_ns(a.hold_ns);  // /work: this thread serves nothing else meanwhile, on purpose
            if (a.stall_every_ms > 0) {  // inside a stall window: held until the window ends
                std::int64_t phase_ms = now_ns() / 1'000'000 % a.stall_every_ms;
                a.delay_ns = (phase_ms < a.stall_for_ms ? a.stall_for_ms - phase_ms : 0) * 1'000'000;
            }
            if (a.delay_ns > 0) {
                c.release_ns = now_ns() + a.delay_ns;
                t.timers.push_back({c.release_ns, slot, c.generation});
                std::push_heap(t.timers.begin(), t.timers.end(), later());
            }
        }
        if (c.in_used == c.in.size()) {
            c.in.clear();
            c.in_used = 0;
        } else if (c.in_used > 4096) {  // a pipelining client may never leave it empty: compact
            c.in.erase(0, c.in_used);
            c.in_used = 0;
        }
        flush(t, slot);
    }

    void flush(thread& t, std::uint32_t slot) {
        connection& c = t.conns[slot];
        if (c.release_ns != 0) return;
        while (c.out_sent < c.out.size()) {
            io_result r = write_some(c.fd, c.out.data() + c.out_sent, c.out.size() - c.out_sent);
            if (r.status == io::again) {
                if (!c.writing) c.writing = t.loop.modify(c.fd, slot, EPOLLIN | EPOLLOUT | EPOLLRDHUP);
                return;
            }
            if (r.status != io::ok) return close_slot(t, slot);
            c.out_sent += r.bytes;
        }
        c.out.clear();
        c.out_sent = 0;
        if (c.writing) c.writing = !t.loop.modify(c.fd, slot, EPOLLIN | EPOLLRDHUP);
        if (c.close_after) close_slot(t, slot);
    }

    // Chaos (server_options): cuts the response that starts at `at` in c.out short, or marks the
    // connection to close after it.
    void chaos(thread& t, connection& c, std::size_t at) {
        const std::uint64_t z = detail::splitmix64(t.chaos_state);
        const auto roll = static_cast<unsigned>(z % 1000);
        const std::size_t length = c.out.size() - at;
        if (roll < options_.chaos_cut_permille && length > 1) {
            c.out.resize(at + 1 + static_cast<std::size_t>((z >> 20) % (length - 1)));  // 1 .. length-1 bytes
            c.close_after = true;
            c.reset_after = (z >> 10) & 1;
            bump(t, f_cut);
        } else if (roll < options_.chaos_cut_permille + options_.chaos_close_permille) {
            c.close_after = true;
            bump(t, f_closed);
        }
    }

    void close_slot(thread& t, std::uint32_t slot) {
        connection& c = t.conns[slot];
        if (c.fd < 0) return;
        if (c.reset_after) close_abortive(c.fd);
        else ::close(c.fd);
        c.fd = -1;
        c.reset_after = false;
        ++c.generation;
        t.free_slots.push_back(slot);
    }

    server_options options_;
    std::unique_ptr<factorial_cache> factorials_;
    int listen_fd_ = -1;
    detail::unix_socket_file unix_file_;  // on a Unix socket: the file to remove at stop
    mutable pthread_mutex_t sources_mutex_ = PTHREAD_MUTEX_INITIALIZER;
    std::vector<std::pair<std::string, std::uint64_t>> sources_;  // counts().sources
    detail::path_counter paths_;  // counts().paths, with server_options::count_paths
    int wake_fd_ = -1;
    std::uint16_t port_ = 0;
    std::unique_ptr<thread[]> threads_;
    std::uint32_t thread_count_ = 0;
};

}  // namespace microbench
