// --tls-resume against a TLS server whose every move the test decides: OpenSSL's own server side
// (linked here from libssl-dev; the library itself loads libssl at run time) over
// scripted_server's blocking connections. It honours a TLS 1.3 ticket once (OpenSSL's
// anti-replay, on when a server takes early data), counts the handshakes it resumed, and can send
// a ticket to a connection that waits between requests or drop a keep-alive connection without
// close_notify. The client's counts must match the server's exactly.
#include <doctest/doctest.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "microbench.hpp"
#include "run_helpers.hpp"
#include "scripted_server.hpp"
#include "tls/tls_files.hpp"

using namespace microbench;

namespace {

// What the server does after each response, and what it counted; its context outlives every
// connection (the server's member declared first, it is destroyed last).
struct ticket_server_state {
    ~ticket_server_state() { SSL_CTX_free(ctx); }
    SSL_CTX* ctx = nullptr;
    bool ticket_when_idle = false;      // 30 ms after each response, one more ticket
    bool drop_second_request = false;   // a keep-alive connection reads its second request and closes, no close_notify
    std::atomic<int> full{0}, resumed{0}, idle_tickets{0}, dropped{0};
};
ticket_server_state* state = nullptr;  // the one the script serves: one server at a time, each set before use

// SSL_accept, SSL_read: again while the socket's 100 ms receive timeout is what stopped them.
bool again(SSL* ssl, int ret, const scripted_server::context& c) {
    const int e = SSL_get_error(ssl, ret);
    return (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) && !c.stopping();
}

// One request head over TLS into `head`; false at the end of the stream or an error.
bool read_head(SSL* ssl, scripted_server::context& c, std::string& pending, std::string& head) {
    for (;;) {
        const std::size_t end = pending.find("\r\n\r\n");
        if (end != std::string::npos) {
            head.assign(pending, 0, end);
            pending.erase(0, end + 4);
            return true;
        }
        char buf[4096];
        const int n = SSL_read(ssl, buf, sizeof buf);
        if (n > 0) pending.append(buf, static_cast<std::size_t>(n));
        else if (!again(ssl, n, c)) return false;
    }
}

void serve_tls(scripted_server::context& c) {
    ticket_server_state& s = *state;
    SSL* ssl = SSL_new(s.ctx);
    SSL_set_fd(ssl, c.fd);
    int r;
    while ((r = SSL_accept(ssl)) != 1)
        if (!again(ssl, r, c)) return SSL_free(ssl);
    ++(SSL_session_reused(ssl) ? s.resumed : s.full);
    std::string pending, head;
    for (int served = 0; read_head(ssl, c, pending, head); ++served) {
        if (s.drop_second_request && served == 1) {  // as nginx drops one it timed out: its sessions stay good
            SSL_set_quiet_shutdown(ssl, 1);
            SSL_shutdown(ssl);
            ++s.dropped;
            break;
        }
        const bool close = head.find("\r\nConnection: close") != std::string::npos;
        const std::string response =
            std::string("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n") + (close ? "Connection: close\r\n" : "") + "\r\nok";
        if (SSL_write(ssl, response.data(), static_cast<int>(response.size())) != static_cast<int>(response.size())) break;
        if (close) {
            SSL_shutdown(ssl);
            break;
        }
        if (s.ticket_when_idle) {  // the client waits for its schedule meanwhile
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
            if (SSL_new_session_ticket(ssl) == 1 && SSL_do_handshake(ssl) == 1) ++s.idle_tickets;
        }
    }
    SSL_free(ssl);
}

// A ticket key callback that seals tickets as OpenSSL's own does (AES-256-CBC, HMAC-SHA256) and
// asks for a new ticket whenever one is used (2), as a server that rotates its keys does.
int renewing_ticket_keys(SSL*, unsigned char name[16], unsigned char* iv, EVP_CIPHER_CTX* cipher, EVP_MAC_CTX* mac,
                         int encrypt) {
    static unsigned char key_name[16] = {'m', 'i', 'c', 'r', 'o', 'b', 'e', 'n', 'c', 'h'};
    static unsigned char aes_key[32] = {1, 2, 3}, hmac_key[32] = {4, 5, 6};
    OSSL_PARAM params[] = {OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, hmac_key, sizeof hmac_key),
                           OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char*>("SHA256"), 0),
                           OSSL_PARAM_construct_end()};
    if (encrypt) {
        std::memcpy(name, key_name, sizeof key_name);
        if (RAND_bytes(iv, EVP_CIPHER_get_iv_length(EVP_aes_256_cbc())) != 1) return -1;
        return EVP_EncryptInit_ex(cipher, EVP_aes_256_cbc(), nullptr, aes_key, iv) == 1 &&
                       EVP_MAC_CTX_set_params(mac, params) == 1
                   ? 1
                   : -1;
    }
    if (std::memcmp(name, key_name, sizeof key_name) != 0) return 0;  // not ours: a full handshake
    return EVP_DecryptInit_ex(cipher, EVP_aes_256_cbc(), nullptr, aes_key, iv) == 1 &&
                   EVP_MAC_CTX_set_params(mac, params) == 1
               ? 2
               : -1;
}

// OpenSSL's server over the test certificates; `version` 0: TLS 1.2 or 1.3.
struct ticket_server {
    ticket_server_state s;
    tls_files files;
    scripted_server server{serve_tls};

    explicit ticket_server(int version = 0) {
        signal(SIGPIPE, SIG_IGN);  // OpenSSL writes with write(): a ticket to a closed connection is EPIPE
        s.ctx = SSL_CTX_new(TLS_server_method());
        REQUIRE(SSL_CTX_use_certificate_chain_file(s.ctx, files.path("server.pem").c_str()) == 1);
        REQUIRE(SSL_CTX_use_PrivateKey_file(s.ctx, files.path("server.key").c_str(), SSL_FILETYPE_PEM) == 1);
        if (version) REQUIRE(SSL_CTX_set_max_proto_version(s.ctx, version) == 1);
        // Taking early data turns on OpenSSL's anti-replay: each TLS 1.3 ticket resumes once.
        REQUIRE(SSL_CTX_set_max_early_data(s.ctx, 16384) == 1);
        state = &s;
    }
    std::string url() const { return "https://127.0.0.1:" + std::to_string(server.port()) + "/"; }
};

plan resuming(const std::string& url) {
    tls_options o;
    o.resume = true;
    plan p;
    p.url(url).tls(o);
    return p;
}

}  // namespace

TEST_CASE("--tls-resume offers each TLS 1.3 ticket once: every offer resumes, the rest are counted") {
    for (std::uint32_t threads : {1u, 2u}) {
        CAPTURE(threads);
        ticket_server ts;
        plan p = resuming(ts.url());
        p.requests(200).concurrency(8).threads(threads).keep_alive(false);
        result r = run_ok(p);
        CHECK(r.requests_completed == 200);
        CHECK(r.requests_failed == 0);
        CHECK(r.tls_handshakes == 200);
        CHECK(r.tls_resumed == static_cast<std::uint64_t>(ts.s.resumed.load()));
        CHECK(r.tls_handshakes - r.tls_resumed == static_cast<std::uint64_t>(ts.s.full.load()));
        // Every offer resumed: the full handshakes are those with no ticket at hand. The tickets run
        // short only while fewer full handshakes than connections have sent theirs (two each), so
        // at most 8 — fewer when a slow start lets the first ones' tickets come before the others
        // open, as under a sanitizer.
        CHECK(r.tls_handshakes == r.tls_resumed + r.tls_no_session);
        CHECK(r.tls_no_session >= 1);
        CHECK(r.tls_no_session <= 8);
        CHECK(std::string(r.tls.protocol) == "TLSv1.3");
    }
}

TEST_CASE("--tls-resume offers a TLS 1.2 session until a newer one comes") {
    ticket_server ts(TLS1_2_VERSION);
    plan p = resuming(ts.url());
    p.requests(100).concurrency(4).threads(1).keep_alive(false);
    result r = run_ok(p);
    CHECK(r.requests_completed == 100);
    CHECK(r.tls_handshakes == 100);
    CHECK(std::string(r.tls.protocol) == "TLSv1.2");
    CHECK(r.tls_resumed == static_cast<std::uint64_t>(ts.s.resumed.load()));
    CHECK(r.tls_handshakes == r.tls_resumed + r.tls_no_session);  // every offer resumed
    CHECK(r.tls_no_session >= 1);
    CHECK(r.tls_no_session <= 4);  // only among each connection's first handshake
}

TEST_CASE("--tls-resume keeps the session a TLS 1.2 server renews on resuming (the used one is retired)") {
    ticket_server ts(TLS1_2_VERSION);
    REQUIRE(SSL_CTX_set_tlsext_ticket_key_evp_cb(ts.s.ctx, renewing_ticket_keys) == 1);
    plan p = resuming(ts.url());
    p.requests(100).concurrency(4).threads(1).keep_alive(false);
    result r = run_ok(p);
    CHECK(r.requests_completed == 100);
    CHECK(r.tls_handshakes == 100);
    CHECK(r.tls_resumed == static_cast<std::uint64_t>(ts.s.resumed.load()));
    CHECK(r.tls_handshakes == r.tls_resumed + r.tls_no_session);
    CHECK(r.tls_no_session >= 1);
    CHECK(r.tls_no_session <= 4);  // without keeping the renewed session, about one in four had none
}

TEST_CASE("without --tls-resume every connection makes a full handshake and none is counted as lacking a session") {
    ticket_server ts;
    plan p;
    p.url(ts.url()).requests(20).concurrency(2).keep_alive(false);
    result r = run_ok(p);
    CHECK(r.requests_completed == 20);
    CHECK(r.tls_handshakes == 20);
    CHECK(r.tls_resumed == 0);
    CHECK(r.tls_no_session == 0);
    CHECK(ts.s.full.load() == 20);
}

TEST_CASE("a ticket that comes to a keep-alive connection between requests is read, and the connection kept") {
    ticket_server ts;
    ts.s.ticket_when_idle = true;
    plan p = resuming(ts.url());
    p.requests(8).concurrency(1).keep_alive(true).rate(5);  // 200 ms apart: the ticket comes 30 ms after each answer
    result r = run_ok(p);
    CHECK(r.requests_completed == 8);
    CHECK(r.requests_failed == 0);
    CHECK(r.connects == 1);
    CHECK(r.server_closes == 0);
    CHECK(ts.s.idle_tickets.load() >= 7);  // the last may find the connection closed by the run's end
}

TEST_CASE("a keep-alive TLS connection dropped without close_notify: the request is sent again, once, and resumes") {
    ticket_server ts;
    ts.s.drop_second_request = true;  // each connection answers one request and drops the next
    plan p = resuming(ts.url());
    p.requests(20).concurrency(1).keep_alive(true);
    result r = run_ok(p);
    CHECK(r.requests_completed == 20);
    CHECK(r.requests_failed == 0);
    CHECK(r.connects == 20);
    CHECK(r.retries == 19);
    CHECK(ts.s.dropped.load() == 19);
    CHECK(r.tls_no_session == 1);
    CHECK(r.tls_resumed == 19);  // a close without close_notify leaves the sessions resumable
}
