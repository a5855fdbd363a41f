// microbench/server/server.hpp — the reference server's sockets and threads: epoll, HTTP/1.1
// keep-alive, pipelining-safe (requests answered in order), N threads sharing one listening socket
// (listener.hpp), delayed answers on a per-thread timer heap. It answers as server_endpoints.hpp
// says, keeps a connection as server_connection.hpp; malformed requests get a 400 and a close; it
// never blocks its loop (but for /work, on purpose) nor spins when accept() finds no descriptor;
// slow or quiet connections are closed and the cap makes room (server_deadlines.hpp), each counted.
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
#include "../engine/event_loop.hpp"
#include "../engine/net.hpp"
#include "request_parser.hpp"
#include "server_connection.hpp"
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
        sources_.reset();  // no thread runs between stop() and here
        paths_.reset(options.count_paths);
        factorials_.reset(new factorial_cache(options.max_factorial));
        header_ns_ = detail::timeout_ns(options.header_timeout_ms);
        idle_ns_ = detail::timeout_ns(options.idle_timeout_ms);
        sweep_ns_ = detail::sweep_interval_ns(header_ns_, idle_ns_);
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
        open_.store(0);  // the threads closed theirs
    }

    // With `paths` (and server_options::count_paths): the requests by target too.
    server_counts counts(bool paths = true) const {
        server_counts c;
        std::uint64_t* fields[] = {&c.requests, &c.factorial, &c.delay, &c.echo, &c.status,
                                   &c.other, &c.bad_request, &c.connections, &c.cut, &c.closed,
                                   &c.listen_pauses, &c.header_timeouts, &c.idle_timeouts, &c.evicted,
                                   &c.refused};
        for (std::uint32_t i = 0; i < thread_count_; ++i)
            for (int f = 0; f < count_fields; ++f) *fields[f] += threads_[i].counts[f].load(std::memory_order_relaxed);
        sources_.copy_to(c);
        c.open = open_.load(std::memory_order_relaxed);
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
                       f_cut, f_closed, f_listen_pauses, f_header_timeouts, f_idle_timeouts, f_evicted, f_refused };
    static constexpr int count_fields = 15;

    using connection = detail::server_connection;
    using timer = detail::held_answer;
    using later = detail::held_answer_later;
    struct alignas(64) thread {
        server* owner = nullptr;
        pthread_t id{};
        bool started = false;
        event_loop loop;
        std::vector<connection> conns;
        std::vector<std::uint32_t> free_slots;
        std::vector<timer> timers;  // a min-heap by time
        std::int64_t listen_again_ns = 0;  // accepting paused by a local shortage until then
        std::int64_t sweep_at_ns = 0;      // the next look for connections past their deadlines
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
            if (t.sweep_at_ns) wake = std::min(wake, t.sweep_at_ns);
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
            if (t.sweep_at_ns && now >= t.sweep_at_ns) sweep(t, now);
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

    void accept_all(thread& t) {
        for (;;) {
            sockaddr_storage peer{};
            socklen_t peer_len = sizeof peer;
            int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &peer_len, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EINTR || errno == ECONNABORTED) continue;  // that one is gone; others may wait
                // Accept's EAGAIN means none left (or another thread took it), never a shortage.
                if (detail::no_descriptor_or_buffer(errno)) {
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
            c.clock = {0, now_ns()};
            bump(t, f_connections);
            sources_.count(peer);
            if (open_.fetch_add(1, std::memory_order_relaxed) >= detail::connection_cap(options_.max_connections))
                make_room(t, slot);
            if (t.conns[slot].fd >= 0 && !t.loop.add(fd, slot, EPOLLIN | EPOLLRDHUP)) close_slot(t, slot);
            if (sweep_ns_ && !t.sweep_at_ns) t.sweep_at_ns = now_ns() + sweep_ns_;
        }
    }

    // Past the cap: closes this thread's connection quiet longest with nothing under way (no
    // request begun, nothing to write, no answer held), or `fresh` itself when there is none.
    void make_room(thread& t, std::uint32_t fresh) {
        std::uint32_t quiet = fresh;
        for (std::uint32_t i = 0; i < t.conns.size(); ++i) {
            const connection& c = t.conns[i];
            if (i != fresh && c.fd >= 0 && c.quiet() &&
                (quiet == fresh || c.clock.active_ns < t.conns[quiet].clock.active_ns))
                quiet = i;
        }
        bump(t, quiet == fresh ? f_refused : f_evicted);
        close_slot(t, quiet);
    }

    // Closes every connection past its deadline, counting each, and sets the next look. One with
    // bytes not yet read (the loop was busy) reads them first: they may be a request, or its end.
    void sweep(thread& t, std::int64_t now) {
        bool any = false;
        for (std::uint32_t i = 0; i < t.conns.size(); ++i) {
            if (t.conns[i].fd < 0) continue;
            char byte;
            if (t.conns[i].overstayed(now, header_ns_, idle_ns_) != detail::overstay::none &&
                ::recv(t.conns[i].fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0)
                on_io(t, i, EPOLLIN);
            if (t.conns[i].fd < 0) continue;
            const detail::overstay o = t.conns[i].overstayed(now, header_ns_, idle_ns_);
            if (o == detail::overstay::none) {
                any = true;
                continue;
            }
            bump(t, o == detail::overstay::header ? f_header_timeouts : f_idle_timeouts);
            close_slot(t, i);
        }
        t.sweep_at_ns = any ? now + sweep_ns_ : 0;  // the next accept starts it again
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
            c.clock.active_ns = now_ns();
            if (c.close_after) continue;  // answering a bad request: ignore the rest
            if (c.in_used == c.in.size()) c.clock.request_started_ns = c.clock.active_ns;  // a request's first byte
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
            c.clock.request_started_ns = c.in_used < c.in.size() ? now_ns() : 0;  // the next one's first bytes
            c.close_after = a.close;
            if (a.kind != endpoint_kind::stats) {
                bump(t, f_requests);
                if (options_.count_paths) paths_.count(head.target);
                static constexpr count_field by_kind[] = {f_factorial, f_delay, f_echo, f_status, f_other,
                                                          f_bad_request};
                bump(t, by_kind[static_cast<int>(a.kind)]);
                if (options_.chaos_cut_permille || options_.chaos_close_permille) {
                    const detail::chaos_done done = detail::chaos(options_, t.chaos_state, c, response_at);
                    if (done != detail::chaos_done::nothing)
                        bump(t, done == detail::chaos_done::cut ? f_cut : f_closed);
                }
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
            c.clock.active_ns = now_ns();
        }
        c.out.clear();
        c.out_sent = 0;
        if (c.writing) c.writing = !t.loop.modify(c.fd, slot, EPOLLIN | EPOLLRDHUP);
        if (c.close_after) close_slot(t, slot);
    }

    void close_slot(thread& t, std::uint32_t slot) {
        connection& c = t.conns[slot];
        if (c.fd < 0) return;
        open_.fetch_sub(1, std::memory_order_relaxed);  // before the peer can see the close
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
    detail::source_counter sources_;  // counts().sources
    detail::path_counter paths_;  // counts().paths, with server_options::count_paths
    int wake_fd_ = -1;
    std::uint16_t port_ = 0;
    std::int64_t header_ns_ = 0, idle_ns_ = 0;    // the deadlines, 0: none
    std::int64_t sweep_ns_ = 0;                   // how often a thread looks for connections past them
    std::atomic<std::uint64_t> open_{0};          // connections open, across threads
    std::unique_ptr<thread[]> threads_;
    std::uint32_t thread_count_ = 0;
};

}  // namespace microbench
