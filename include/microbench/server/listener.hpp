// microbench/server/listener.hpp — the reference server's listening socket: TCP at an address and
// port, or a Unix socket at a path. For a Unix socket, it takes over a stale file at the path (a
// socket nobody accepts on, left by a server that died) and removes the file at stop while it is
// still the one this server made (its device and inode). The check, the removal and the bind
// happen under an exclusive lock on the socket's directory (flock, waited for at most 2 s), so two
// servers starting at once never both take the same stale file over; a live socket, any other
// kind of file at the path, or a stale one when the directory cannot be locked, is EADDRINUSE.
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <string>

#include "../engine/net.hpp"

namespace microbench {
namespace detail {

// Holds the lock on a Unix socket path's directory while it lives, waited for at most 2 s (another
// holder never stalls a start); without a readable directory, or past the wait, it holds none
// (and a stale file is then left alone).
class directory_lock {
public:
    explicit directory_lock(const std::string& path) {
        const std::size_t slash = path.rfind('/');
        const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
        fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        for (int tries = 0; fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) != 0; ++tries) {
            if (errno != EWOULDBLOCK || tries == 200) {
                ::close(fd_);
                fd_ = -1;
                break;
            }
            const timespec pause{0, 10'000'000};
            nanosleep(&pause, nullptr);
        }
    }
    ~directory_lock() {
        if (fd_ >= 0) ::close(fd_);  // closing releases the lock
    }
    directory_lock(const directory_lock&) = delete;
    directory_lock& operator=(const directory_lock&) = delete;
    bool held() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

// Whether a server accepts on the Unix socket at `at`: a connect that succeeds, or finds its
// listen queue full, says so; ECONNREFUSED (nobody listens) or ENOENT (the file went) says the
// file is stale. Never blocks.
inline bool unix_socket_live(const endpoint& at) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return true;  // cannot tell: leave the file alone
    const bool refused = ::connect(fd, reinterpret_cast<const sockaddr*>(&at.addr), at.len) != 0 &&
                         (errno == ECONNREFUSED || errno == ENOENT);
    ::close(fd);
    return !refused;
}

// The file a listener made: removed at close only while the path still names it.
struct unix_socket_file {
    std::string path;
    dev_t device = 0;
    ino_t inode = 0;
};

// Binds and listens on the Unix socket at `path` (non-blocking, close-on-exec). Returns the
// descriptor, or -1 with errno: EINVAL for a path unix_endpoint refuses, EADDRINUSE when a live
// socket or another kind of file is there.
inline int listen_unix(const std::string& path, int backlog, unix_socket_file& made) {
    endpoint at;
    if (!unix_endpoint(path, at)) {
        errno = EINVAL;
        return -1;
    }
    directory_lock lock(path);
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    auto bind_it = [&] { return ::bind(fd, reinterpret_cast<const sockaddr*>(&at.addr), at.len) == 0; };
    bool bound = bind_it();
    struct stat st{};
    if (!bound && errno == EADDRINUSE) {  // taken over only when stale, a socket, and under the lock
        const bool stale = lock.held() && ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) &&
                           !unix_socket_live(at) && (::unlink(path.c_str()) == 0 || errno == ENOENT);
        bound = stale && bind_it();
        if (!stale) errno = EADDRINUSE;  // the probe's or the unlink's errno does not say why
    }
    if (!bound || ::listen(fd, backlog) != 0 || ::lstat(path.c_str(), &st) != 0) {
        const int err = errno;
        if (bound) ::unlink(path.c_str());
        ::close(fd);
        errno = err;
        return -1;
    }
    made = {path, st.st_dev, st.st_ino};
    return fd;
}

// Listens on host:port (numeric or "localhost"; port 0: an ephemeral one), or on the Unix socket
// at `unix_path` when it is not empty. Returns the descriptor and sets `port` (0 on a Unix
// socket), or -1 with errno; -2 when the host does not resolve.
inline int listen_on(const std::string& host, std::uint16_t wanted, const std::string& unix_path, int backlog,
                     std::uint16_t& port, unix_socket_file& made) {
    port = 0;
    if (!unix_path.empty()) return listen_unix(unix_path, backlog, made);
    endpoint at, bound;
    if (resolve(host, wanted, at, true) != 0) return -2;
    int fd = ::socket(at.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    bound.len = sizeof bound.addr;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        ::bind(fd, reinterpret_cast<const sockaddr*>(&at.addr), at.len) != 0 || ::listen(fd, backlog) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&bound.addr), &bound.len) != 0) {
        const int err = errno;
        if (fd >= 0) ::close(fd);
        errno = err;
        return -1;
    }
    port = ntohs(bound.family() == AF_INET ? reinterpret_cast<sockaddr_in*>(&bound.addr)->sin_port
                                           : reinterpret_cast<sockaddr_in6*>(&bound.addr)->sin6_port);
    return fd;
}

// Removes the file `made` names if it is still the one listen_unix made (another server may
// have taken the path over since). No lock: the listening descriptor is still open, so no other
// server takes this file for stale meanwhile. A relative path is looked up from the working
// directory of now.
inline void remove_unix_socket_file(const unix_socket_file& made) {
    if (made.path.empty()) return;
    struct stat st{};
    if (::lstat(made.path.c_str(), &st) == 0 && st.st_dev == made.device && st.st_ino == made.inode)
        ::unlink(made.path.c_str());
}

// accept()'s errors that mean this machine had no descriptor or buffer to give (a local shortage,
// not the peer's doing).
inline bool no_descriptor_or_buffer(int err) {
    return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

}  // namespace detail
}  // namespace microbench
