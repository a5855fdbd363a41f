// microbench/engine/transport.hpp — what carries a run's bytes over each connected socket when they
// are not written to it as they are: TLS, from the built-in OpenSSL loader (tls_openssl.hpp) or
// from the embedder's own library (mbedTLS, wolfSSL…). A transport is a table of plain
// functions, the same shape as the C API's mb_transport, so one engine path serves both.
//
// The worker calls them on its own thread, for different connections concurrently, never
// concurrently for one connection. The socket is registered edge-triggered for reading and
// writing at once, and the worker reads until read() says want_read: bytes the layer holds
// decrypted are taken before the worker waits again. read() may be called between a write()
// that said want_* and its retry (the server may answer while a request is still going out).
//   open       after the TCP connect: the connection's state over the connected, non-blocking
//              socket `fd` (the worker owns and closes the fd); null if it cannot be made
//   handshake  until it returns done, resumed or no_session; want_read / want_write: call again
//              when the socket is readable / writable
//   read       bytes > 0, or a status (0 is taken as closed): closed is the peer's end of the
//              stream, with or without a close_notify
//   write      bytes > 0 (may be fewer than asked), or a status; after want_* it is called
//              again with the same bytes
//   close      frees the state (the fd is closed by the worker afterwards)
//   why        optional: after transport_failed, writes why into buf and returns its length
//              (up to cap - 1 bytes are kept, no NUL needed; 0: the library's own words)
//   session    optional: after the first handshake, what was negotiated (the report's TLS lines)
//   pending    optional: nonzero when the layer holds bytes a read would return without the
//              socket (decrypted, or records read ahead): after the last response of a batch they
//              were never asked for (bytes still in the socket are the plain path's `more_follows`
//              or come as the next read; OpenSSL's SSL_has_pending reports its own alone)
#pragma once

#include <cstddef>

#include "../stats/result.hpp"

namespace microbench {

// What a transport's functions return besides a byte count; the C API's MB_IO_* are the same numbers.
enum transport_status : long {
    transport_done = 0,           // handshake: finished with a full handshake
    transport_resumed = 1,        // handshake: finished by resuming an earlier session
    transport_no_session = 2,     // handshake: finished in full, with no session at hand to offer
    transport_want_read = -1,     // would block until the socket is readable
    transport_want_write = -2,    // would block until the socket is writable
    transport_closed = -3,        // the peer ended the stream
    transport_failed = -4,        // the TLS layer failed: an alert, a protocol error, a certificate refused
    transport_socket_error = -5,  // the socket failed; errno says why (ECONNRESET…)
};

struct transport {
    void* user = nullptr;  // passed to open(); the worker never looks at it
    void* (*open)(void* user, int fd, const char* server_name) = nullptr;
    long (*handshake)(void* conn) = nullptr;
    long (*read)(void* conn, char* buf, std::size_t len) = nullptr;
    long (*write)(void* conn, const char* buf, std::size_t len) = nullptr;
    void (*close)(void* conn) = nullptr;
    std::size_t (*why)(void* conn, char* buf, std::size_t cap) = nullptr;
    void (*session)(void* conn, tls_session* out) = nullptr;
    int (*pending)(void* conn) = nullptr;  // 0: none

    // The functions every transport must have are there.
    bool complete() const { return open && handshake && read && write && close; }
};

}  // namespace microbench
