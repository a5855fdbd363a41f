// microbench/engine/net.hpp — the few socket operations the engine and server need, as values:
// name resolution (once, at setup), Unix socket addresses, source addresses (-B), non-blocking
// sockets, and reads and writes that answer one of ok / again / closed / error. Never raises SIGPIPE (MSG_NOSIGNAL);
// installs no signal handler.
#pragma once

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace microbench {

// A resolved socket address (IPv4, IPv6 or a Unix socket's path), copyable plain data.
struct endpoint {
    sockaddr_storage addr{};
    socklen_t len = 0;

    int family() const { return addr.ss_family; }
    // "127.0.0.1:80", "[::1]:80", or a Unix socket's path.
    std::string to_string() const {
        if (family() == AF_UNIX) return reinterpret_cast<const sockaddr_un*>(&addr)->sun_path;
        char host[INET6_ADDRSTRLEN] = "?";
        std::uint16_t port = 0;
        if (family() == AF_INET) {
            const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
            inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
            port = ntohs(a->sin_port);
            return std::string(host) + ":" + std::to_string(port);
        }
        const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
        inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
        port = ntohs(a->sin6_port);
        return "[" + std::string(host) + "]:" + std::to_string(port);
    }
};

// Resolves host:port (numeric or by name, IPv4 or IPv6) to its first address. Returns 0 or a
// getaddrinfo error code (gai_strerror() explains it).
inline int resolve(const std::string& host, std::uint16_t port, endpoint& out, bool passive = false) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    addrinfo* list = nullptr;
    int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), std::to_string(port).c_str(), &hints, &list);
    if (rc != 0) return rc;
    std::memcpy(&out.addr, list->ai_addr, list->ai_addrlen);
    out.len = static_cast<socklen_t>(list->ai_addrlen);
    freeaddrinfo(list);
    return 0;
}

// The longest Unix socket path, in bytes: sun_path less its terminating NUL.
constexpr std::size_t max_unix_path = sizeof(sockaddr_un::sun_path) - 1;

// The address of the Unix socket at `path`: false when the path is empty, longer than
// max_unix_path or holds a NUL byte.
inline bool unix_endpoint(const std::string& path, endpoint& out) {
    if (path.empty() || path.size() > max_unix_path || path.find('\0') != std::string::npos) return false;
    out = endpoint();
    auto* a = reinterpret_cast<sockaddr_un*>(&out.addr);
    a->sun_family = AF_UNIX;
    std::memcpy(a->sun_path, path.data(), path.size());
    out.len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
    return true;
}

enum class io : std::uint8_t {
    ok,      // some bytes moved (or the operation finished)
    again,   // would block: wait for the next readiness event
    closed,  // the peer closed (read returned 0)
    error,   // errno says why
    tls,     // the transport's TLS layer failed (transport.hpp); never from a plain socket
};

struct io_result {
    io status;
    std::size_t bytes;
    int err;  // errno for io::error
};

inline io_result read_some(int fd, char* buf, std::size_t len) {
    for (;;) {
        ssize_t n = ::recv(fd, buf, len, 0);
        if (n > 0) return {io::ok, static_cast<std::size_t>(n), 0};
        if (n == 0) return {io::closed, 0, 0};
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return {io::again, 0, 0};
        return {io::error, 0, errno};
    }
}

// Asks the kernel to stamp each read with the time the data arrived (SO_TIMESTAMPNS).
inline void stamp_arrivals(int fd) {
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

// read_some, also giving the arrival time the kernel stamped on the data read (CLOCK_REALTIME
// nanoseconds; 0 when there is none).
inline io_result read_stamped(int fd, char* buf, std::size_t len, std::int64_t& arrival_ns) {
    iovec part{buf, len};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    msghdr m{};
    m.msg_iov = &part;
    m.msg_iovlen = 1;
    for (;;) {
        m.msg_control = control;
        m.msg_controllen = sizeof control;
        ssize_t n = ::recvmsg(fd, &m, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return {errno == EAGAIN || errno == EWOULDBLOCK ? io::again : io::error, 0, errno};
        arrival_ns = 0;
        for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
            timespec ts;
            std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
            arrival_ns = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
        }
        return n == 0 ? io_result{io::closed, 0, 0} : io_result{io::ok, static_cast<std::size_t>(n), 0};
    }
}

inline io_result write_some(int fd, const char* buf, std::size_t len) {
    for (;;) {
        ssize_t n = ::send(fd, buf, len, MSG_NOSIGNAL);
        if (n >= 0) return {io::ok, static_cast<std::size_t>(n), 0};
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return {io::again, 0, 0};
        return {io::error, 0, errno};
    }
}

// At most this many parts go in one sendmsg.
constexpr int max_write_parts = 64;
inline io_result send_parts(int fd, iovec* parts, int n);

// Writes bytes [from, to) of `copies` back-to-back copies of `data` (a pipelined batch of one
// request) in one sendmsg, straight from the single copy: the batch is never built in memory.
inline io_result write_repeated(int fd, const char* data, std::size_t size, std::size_t from, std::size_t to) {
    iovec parts[max_write_parts];
    int n = 0;
    for (std::size_t at = from; at < to && n < max_write_parts; ++n) {
        std::size_t in = at % size, len = size - in < to - at ? size - in : to - at;
        parts[n] = iovec{const_cast<char*>(data + in), len};
        at += len;
    }
    return send_parts(fd, parts, n);
}

// Sends `n` parts (1 to max_write_parts) in one call: ok with the bytes the kernel took (maybe
// fewer), again, or error.
inline io_result send_parts(int fd, iovec* parts, int n) {
    msghdr m{};
    m.msg_iov = parts;
    m.msg_iovlen = static_cast<std::size_t>(n);
    for (;;) {
        ssize_t w =
            n == 1 ? ::send(fd, parts[0].iov_base, parts[0].iov_len, MSG_NOSIGNAL) : ::sendmsg(fd, &m, MSG_NOSIGNAL);
        if (w >= 0) return {io::ok, static_cast<std::size_t>(w), 0};
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return {io::again, 0, 0};
        return {io::error, 0, errno};
    }
}

// A non-blocking stream socket of `family` (TCP with TCP_NODELAY, or a Unix socket), or -1 (errno set).
inline int open_stream_socket(int family) {
    int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || family == AF_UNIX) return fd;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

// Binds `fd` to the local address `from` (port 0). IP_BIND_ADDRESS_NO_PORT defers the choice of
// a port to connect(), which can then reuse one port for different targets. 0 or errno.
inline int bind_source(int fd, const endpoint& from) {
#ifdef IP_BIND_ADDRESS_NO_PORT
    int one = 1;
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
#endif
    return ::bind(fd, reinterpret_cast<const sockaddr*>(&from.addr), from.len) == 0 ? 0 : errno;
}

// A numeric address (no DNS) of `family` as a local endpoint with port 0.
inline bool numeric_address(const std::string& text, int family, endpoint& out) {
    addrinfo hints{};
    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
    addrinfo* list = nullptr;
    if (getaddrinfo(text.c_str(), "0", &hints, &list) != 0) return false;
    std::memcpy(&out.addr, list->ai_addr, list->ai_addrlen);
    out.len = static_cast<socklen_t>(list->ai_addrlen);
    freeaddrinfo(list);
    return true;
}

// Whether this machine has the local address `from`: a test bind, once at setup, so a wrong
// -B is a clear error rather than every connect waiting for a "port" that never comes.
inline bool local_address(const endpoint& from) {
    int fd = open_stream_socket(from.family());
    if (fd < 0) return true;  // cannot tell; connects will say
    int err = bind_source(fd, from);
    ::close(fd);
    return err != EADDRNOTAVAIL;
}

// Why a -B text was refused, and which item: text.substr(at, length).
struct source_fault {
    enum class kind { none, empty, not_numeric, other_family, range_not_ipv4, reversed, too_many, not_here };
    kind what = kind::none;
    std::size_t at = 0, length = 0;
    explicit operator bool() const { return what != kind::none; }
};

inline const char* source_fault_text(source_fault::kind k) {
    using K = source_fault::kind;
    switch (k) {
        case K::none: return "is valid";
        case K::empty: return "is empty";
        case K::not_numeric: return "is not a numeric IPv4 or IPv6 address";
        case K::other_family: return "is not of the target's address family (IPv4 or IPv6)";
        case K::range_not_ipv4: return "is a range of other than IPv4 addresses";
        case K::reversed: return "is a range whose last address comes before its first";
        case K::too_many: return "makes more than 1024 addresses";
        case K::not_here: return "is not an address of this machine";
    }
    return "is not valid";
}

// -B's addresses: one, a list ("10.0.0.5,10.0.0.6") or IPv4 ranges ("127.0.0.2-127.0.0.9"),
// mixed as "a,b-c"; each numeric, of `family` (AF_UNSPEC: of the first item's) and present on this
// machine (a test bind each, once), at most max_source_addresses in all. The first fault, if any.
constexpr std::size_t max_source_addresses = 1024;

inline source_fault source_addresses(const std::string& text, int family, std::vector<endpoint>& out) {
    using K = source_fault::kind;
    out.clear();
    std::vector<std::size_t> item_of;  // where each address's item starts, to name a missing one
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t comma = text.find(',', at);
        const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        auto fault = [&](K k) { return source_fault{k, at, item.size()}; };
        auto parse = [&](const std::string& one, endpoint& e) {
            endpoint any;
            if (!numeric_address(one, AF_UNSPEC, any)) return K::not_numeric;
            if (family == AF_UNSPEC) family = any.family();
            return numeric_address(one, family, e) ? K::none : K::other_family;
        };
        const std::size_t dash = item.find('-');
        endpoint low, high;
        if (item.empty()) return fault(K::empty);
        if (dash == std::string::npos) {
            if (K k = parse(item, low); k != K::none) return fault(k);
            out.push_back(low);
            item_of.push_back(at);
        } else {
            if (K k = parse(item.substr(0, dash), low); k != K::none) return fault(k);
            if (K k = parse(item.substr(dash + 1), high); k != K::none) return fault(k);
            if (family != AF_INET) return fault(K::range_not_ipv4);
            const std::uint32_t first = ntohl(reinterpret_cast<const sockaddr_in*>(&low.addr)->sin_addr.s_addr);
            const std::uint32_t last = ntohl(reinterpret_cast<const sockaddr_in*>(&high.addr)->sin_addr.s_addr);
            if (last < first) return fault(K::reversed);
            if (last - first >= max_source_addresses) return fault(K::too_many);
            for (std::uint64_t a = first; a <= last; ++a) {
                reinterpret_cast<sockaddr_in*>(&low.addr)->sin_addr.s_addr = htonl(static_cast<std::uint32_t>(a));
                out.push_back(low);
                item_of.push_back(at);
            }
        }
        if (out.size() > max_source_addresses) return fault(K::too_many);
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!local_address(out[i])) {
            const std::size_t end = text.find(',', item_of[i]);
            return {K::not_here, item_of[i], (end == std::string::npos ? text.size() : end) - item_of[i]};
        }
    return {};
}

// What a failed socket(), bind() or connect() ran out of on this machine, if anything: these are
// not the server's failures, and end when another connection closes. One is not local: a Unix
// socket's connect that finds the server's listen queue full (EAGAIN) is the server's overload,
// and waits as a TCP connect waits out a full queue (its SYN sent again), within the connect timeout.
enum class local_shortage : std::uint8_t { none, port, descriptor, memory, backlog };

inline local_shortage shortage_of(int err, int family) {
    if (family == AF_UNIX && (err == EAGAIN || err == EWOULDBLOCK)) return local_shortage::backlog;
    switch (err) {
        case EADDRNOTAVAIL: case EADDRINUSE: return local_shortage::port;
        case EMFILE: case ENFILE: return local_shortage::descriptor;
        case ENOBUFS: case ENOMEM: case ENOSPC: case EAGAIN: return local_shortage::memory;  // EAGAIN: routing cache
        default: return local_shortage::none;
    }
}

// Starts a non-blocking connect: io::ok when already connected (loopback can be), io::again
// while in progress (wait for writability, then check connect_result), io::error otherwise.
inline io_result start_connect(int fd, const endpoint& to) {
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&to.addr), to.len) == 0) return {io::ok, 0, 0};
    if (errno == EINPROGRESS || errno == EINTR) return {io::again, 0, 0};
    return {io::error, 0, errno};
}

// The outcome of a finished non-blocking connect: 0 or the errno it failed with.
inline int connect_result(int fd) {
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
    return err;
}

// Closes at once with an RST instead of lingering in TIME_WAIT: for aborted connections.
inline void close_abortive(int fd) {
    linger l{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::close(fd);
}

}  // namespace microbench
