// microbench/engine/tls_options.hpp — the built-in TLS's settings for an https:// run (ab's -f,
// -Z, -E and -I, and what ab lacks), and which of them the TLS library refused. Plain data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace microbench {

// How the built-in TLS (OpenSSL 3, loaded at run time) connects to an https:// URL; ab's -f, -Z,
// -E and -I, and what ab lacks. A plan's own transport ignores these.
struct tls_options {
    // The one protocol version to speak (0x0303 TLS 1.2, 0x0304 TLS 1.3, as on the wire; ab -f);
    // 0: any the library allows.
    std::uint16_t version = 0;
    std::string ciphers;           // ab -Z: OpenSSL names; TLS_* names choose TLS 1.3's suites
    std::string certificate_file;  // ab -E: PEM holding the client's certificate chain and its key
    bool server_name = true;       // send the host in SNI (never for an IP address); ab -I: off
    bool verify = false;           // check the certificate and that it names the host (off, as in ab, wrk, h2load)
    std::string ca_file;           // PEM of the authorities to trust under verify; "": the system's
    // Resume instead of a full handshake per connection: each worker keeps the sessions servers
    // send it (one per connection it runs) and offers the newest, a TLS 1.3 ticket once.
    bool resume = false;
    std::string libssl;            // the library's path; "": $MICROBENCH_LIBSSL, else libssl.so.3
};

// run_tls_setup's position: which setting the TLS library refused.
namespace tls_setup_fault {
constexpr std::size_t version = 1, ciphers = 2, certificate = 3, ca_file = 4;
}

}  // namespace microbench
