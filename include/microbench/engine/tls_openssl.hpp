// microbench/engine/tls_openssl.hpp — the built-in TLS: OpenSSL 3's libssl.so.3, loaded at run time
// on the first https:// run (openssl_api.hpp), so nothing of OpenSSL is needed to build and
// nothing is loaded by a program that never speaks https. One run's SSL_CTX from its
// tls_options, and the transport over it: one implementation of transport.hpp's interface, which
// the engine drives like an embedder's TLS.
#pragma once

#include <arpa/inet.h>
#include <errno.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "../core/config.hpp"
#include "../core/error.hpp"
#include "openssl_api.hpp"
#include "plan.hpp"
#include "tls_sessions.hpp"
#include "transport.hpp"

namespace microbench {
namespace detail {

struct openssl_worker;

// One run's TLS: its SSL_CTX made from the plan's tls_options, and a transport per worker (so a
// worker resumes sessions it was given itself). Freed after every worker has joined.
class openssl_run {
public:
    openssl_run() = default;
    openssl_run(const openssl_run&) = delete;
    openssl_run& operator=(const openssl_run&) = delete;
    ~openssl_run();

    // Loads the library and makes the context; the error says what failed. Under resume each
    // worker keeps up to `sessions_per_worker` sessions (one per connection it runs).
    error start(const tls_options& options, std::uint32_t workers, std::uint32_t sessions_per_worker);
    const transport* for_worker(std::uint32_t i) const { return &transports_[i]; }

    const openssl_api* api = nullptr;
    ssl_ctx_st* ctx = nullptr;
    bool send_server_name = true;
    bool verify = false;
    bool resume = false;

private:
    std::unique_ptr<openssl_worker[]> workers_;
    std::vector<transport> transports_;
};

struct openssl_worker {
    const openssl_run* run = nullptr;
    tls_sessions sessions;  // under resume
};

struct openssl_connection {
    ssl_st* ssl;
    openssl_worker* worker;
    unsigned long error;       // the library's code for the last failure
    ssl_session_st* offered;   // the session offered to resume (compared, never used: the SSL holds it)
    char server_name[256];
};

// The library's new-session callback: a session the server sent on one of a worker's
// connections joins that worker's sessions. 1: the reference is kept.
inline int openssl_new_session(ssl_st* ssl, ssl_session_st* s) {
    const openssl_api& a = the_openssl_loader().api;
    auto* c = static_cast<openssl_connection*>(a.SSL_get_ex_data(ssl, 0));
    return c && c->worker->sessions.keep(s) ? 1 : 0;
}

inline bool is_ip_address(const char* host) {
    unsigned char addr[16];
    return inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
}

inline void* openssl_open(void* user, int fd, const char* server_name) {
    auto* w = static_cast<openssl_worker*>(user);
    const openssl_api& a = *w->run->api;
    auto* c = new (std::nothrow) openssl_connection{nullptr, w, 0, nullptr, {}};
    if (!c) return nullptr;  // before SSL_new: nothing of OpenSSL's to free
    c->ssl = a.SSL_new(w->run->ctx);
    bool ok = c->ssl && a.SSL_set_fd(c->ssl, fd) == 1 && a.SSL_set_ex_data(c->ssl, 0, c) == 1;
    const bool name =
        w->run->send_server_name && !is_ip_address(server_name) && std::strlen(server_name) < sizeof c->server_name;
    if (ok && name) {
        std::strcpy(c->server_name, server_name);
        ok = a.SSL_ctrl(c->ssl, openssl::ctrl_set_tlsext_hostname, openssl::tlsext_nametype_host_name,
                        c->server_name) == 1;
    }
    if (ok && w->run->verify) ok = a.SSL_set1_host(c->ssl, server_name) == 1;  // a name or an IP address
    if (ok && w->run->resume) c->offered = w->sessions.offer(c->ssl);
    if (!ok) {
        if (c->ssl) a.SSL_free(c->ssl);
        delete c;
        return nullptr;
    }
    a.SSL_set_connect_state(c->ssl);
    return c;
}

// A return value of SSL_do_handshake, SSL_read or SSL_write as a transport status.
inline long openssl_status(openssl_connection* c, int ret) {
    const openssl_api& a = *c->worker->run->api;
    switch (a.SSL_get_error(c->ssl, ret)) {
        case openssl::error_want_read: return transport_want_read;
        case openssl::error_want_write: return transport_want_write;
        case openssl::error_zero_return: return transport_closed;
        case openssl::error_syscall:  // errno decides: a socket error, else the peer's end of the stream
            if (errno != 0) return transport_socket_error;
            if (a.ERR_peek_last_error() == 0) return transport_closed;
            break;
        default: break;
    }
    c->error = a.ERR_peek_last_error();
    return transport_failed;
}

inline long openssl_handshake(void* conn) {
    auto* c = static_cast<openssl_connection*>(conn);
    const openssl_api& a = *c->worker->run->api;
    a.ERR_clear_error();
    errno = 0;
    const int r = a.SSL_do_handshake(c->ssl);
    if (r != 1) return openssl_status(c, r);
    if (!c->worker->run->resume) return a.SSL_session_reused(c->ssl) ? transport_resumed : transport_done;
    if (!a.SSL_session_reused(c->ssl)) return c->offered ? transport_done : transport_no_session;
    // A TLS 1.2 server that renews its ticket on resuming retires the old one, and the library
    // passes the renewed session to no callback: it is kept here. (TLS 1.3 tickets come to the
    // callback, resumed or not.)
    ssl_session_st* now = a.SSL_get1_session(c->ssl);
    const bool renewed =
        now && now != c->offered && a.SSL_SESSION_get_protocol_version(now) < openssl::tls1_3_version;
    if (now && !(renewed && c->worker->sessions.keep(now))) a.SSL_SESSION_free(now);
    return transport_resumed;
}

inline long openssl_read(void* conn, char* buf, std::size_t len) {
    auto* c = static_cast<openssl_connection*>(conn);
    c->worker->run->api->ERR_clear_error();
    errno = 0;
    const int r = c->worker->run->api->SSL_read(c->ssl, buf, static_cast<int>(std::min<std::size_t>(len, INT32_MAX)));
    return r > 0 ? r : openssl_status(c, r);
}

inline long openssl_write(void* conn, const char* buf, std::size_t len) {
    auto* c = static_cast<openssl_connection*>(conn);
    c->worker->run->api->ERR_clear_error();
    errno = 0;
    const int r = c->worker->run->api->SSL_write(c->ssl, buf, static_cast<int>(std::min<std::size_t>(len, INT32_MAX)));
    return r > 0 ? r : openssl_status(c, r);
}

// Bytes the layer holds that a read would return without the socket: decrypted ones, or records
// read ahead.
inline int openssl_pending(void* conn) {
    auto* c = static_cast<openssl_connection*>(conn);
    return c->worker->run->api->SSL_has_pending(c->ssl);
}

// Frees the connection. No close_notify is sent; under resume the connection is marked as shut
// down, which keeps SSL_free from taking its session (the worker may hold it) out of use.
inline void openssl_close(void* conn) {
    auto* c = static_cast<openssl_connection*>(conn);
    const openssl_api& a = *c->worker->run->api;
    if (c->worker->run->resume) a.SSL_set_shutdown(c->ssl, openssl::sent_shutdown | openssl::received_shutdown);
    a.SSL_free(c->ssl);
    delete c;
}

// The library's reason for the last failure, with the certificate check's own when it failed:
// "certificate verify failed: hostname mismatch".
inline std::size_t openssl_why(void* conn, char* buf, std::size_t cap) {
    auto* c = static_cast<openssl_connection*>(conn);
    const openssl_api& a = *c->worker->run->api;
    const char* reason = c->error ? a.ERR_reason_error_string(c->error) : nullptr;
    // The check's result is kept even when nothing asked for it: it says why only under verify.
    const long verify = c->worker->run->verify ? a.SSL_get_verify_result(c->ssl) : openssl::x509_v_ok;
    int n = std::snprintf(buf, cap, "%s", reason ? reason : "TLS error");
    if (verify != openssl::x509_v_ok && n >= 0 && static_cast<std::size_t>(n) < cap)
        n += std::snprintf(buf + n, cap - static_cast<std::size_t>(n), ": %s", a.X509_verify_cert_error_string(verify));
    return n < 0 ? 0 : std::min(static_cast<std::size_t>(n), cap - 1);
}

// What the handshake negotiated, in the words of ab's report.
inline void openssl_session(void* conn, tls_session* out) {
    auto* c = static_cast<openssl_connection*>(conn);
    const openssl_api& a = *c->worker->run->api;
    *out = tls_session{};
    std::snprintf(out->protocol, sizeof out->protocol, "%s", a.SSL_get_version(c->ssl));
    if (const ssl_cipher_st* cipher = a.SSL_get_current_cipher(c->ssl)) {
        std::snprintf(out->cipher, sizeof out->cipher, "%s", a.SSL_CIPHER_get_name(cipher));
        out->secret_bits = a.SSL_CIPHER_get_bits(cipher, nullptr);
    }
    if (const x509_st* cert = a.SSL_get0_peer_certificate(c->ssl))
        if (const evp_pkey_st* key = a.X509_get0_pubkey(cert)) out->server_key_bits = a.EVP_PKEY_get_bits(key);
    evp_pkey_st* key = nullptr;
    if (a.SSL_ctrl(c->ssl, openssl::ctrl_get_peer_tmp_key, 0, &key) > 0 && key) {
        const int id = a.EVP_PKEY_get_id(key), bits = a.EVP_PKEY_get_bits(key);
        char group[64] = "";
        std::size_t len = 0;
        const char* curve = nullptr;
        if (id == openssl::evp_pkey_ec && a.EVP_PKEY_get_group_name(key, group, sizeof group, &len) == 1) {
            curve = a.EC_curve_nid2nist(a.OBJ_sn2nid(group));
            if (!curve) curve = group;
        }
        if (id == openssl::evp_pkey_rsa) std::snprintf(out->temp_key, sizeof out->temp_key, "RSA %d bits", bits);
        else if (id == openssl::evp_pkey_dh) std::snprintf(out->temp_key, sizeof out->temp_key, "DH %d bits", bits);
        else if (curve) std::snprintf(out->temp_key, sizeof out->temp_key, "ECDH %s %d bits", curve, bits);
        else std::snprintf(out->temp_key, sizeof out->temp_key, "%s %d bits", a.OBJ_nid2sn(id), bits);
        a.EVP_PKEY_free(key);
    }
    std::snprintf(out->server_name, sizeof out->server_name, "%s", c->server_name);
}

// Splits -Z's list: TLS_* names are TLS 1.3 suites, the rest TLS 1.2 ciphers; each part is set
// when it is there. False when the library accepts neither.
inline bool set_ciphers(const openssl_api& a, ssl_ctx_st* ctx, const std::string& list) {
    std::string v12, v13;
    std::size_t at = 0;
    while (at <= list.size()) {
        std::size_t end = list.find_first_of(":, ", at);
        if (end == std::string::npos) end = list.size();
        std::string name = list.substr(at, end - at);
        std::string& part = name.compare(0, 4, "TLS_") == 0 ? v13 : v12;
        if (!name.empty()) part.append(part.empty() ? "" : ":").append(name);
        at = end + 1;
    }
    if (!v12.empty() && v12[0] == '@')
        v12.insert(0, "DEFAULT:");  // only a directive (@SECLEVEL=0): the default ciphers
    if (!v12.empty() && a.SSL_CTX_set_cipher_list(ctx, v12.c_str()) != 1) return false;
    if (!v13.empty() && a.SSL_CTX_set_ciphersuites(ctx, v13.c_str()) != 1) return false;
    return !v12.empty() || !v13.empty();
}

inline error openssl_run::start(const tls_options& o, std::uint32_t workers, std::uint32_t sessions_per_worker) {
    api = load_openssl(o.libssl);
    if (!api) return {errc::run_tls_unavailable, 0};
    const openssl_api& a = *api;
    ctx = a.SSL_CTX_new(a.TLS_client_method());
    if (!ctx) return {errc::run_tls_setup, 0};
    a.SSL_CTX_ctrl(ctx, openssl::ctrl_mode,
                   openssl::mode_enable_partial_write | openssl::mode_accept_moving_write_buffer, nullptr);
    // Read-ahead: a read takes what the socket has, not one record's worth.
    a.SSL_CTX_ctrl(ctx, openssl::ctrl_set_read_ahead, 1, nullptr);
    a.SSL_CTX_set_options(ctx, openssl::op_ignore_unexpected_eof);  // a close without close_notify is a close
    a.SSL_CTX_set_verify(ctx, o.verify ? openssl::verify_peer : openssl::verify_none, nullptr);
    // The error's position says which setting was refused (tls_setup_fault).
    std::size_t fault = 0;
    if (o.verify && !(o.ca_file.empty() ? a.SSL_CTX_set_default_verify_paths(ctx) == 1
                                        : a.SSL_CTX_load_verify_locations(ctx, o.ca_file.c_str(), nullptr) == 1))
        fault = tls_setup_fault::ca_file;
    if (!fault && o.version && !(a.SSL_CTX_ctrl(ctx, openssl::ctrl_set_min_proto_version, o.version, nullptr) == 1 &&
                                 a.SSL_CTX_ctrl(ctx, openssl::ctrl_set_max_proto_version, o.version, nullptr) == 1))
        fault = tls_setup_fault::version;
    // TLS 1.0 and 1.1 need security level 0 in OpenSSL 3 (their signatures use SHA-1 and MD5).
    const std::string old = o.version && o.version < 0x0303 ? ":@SECLEVEL=0" : "";
    if (!fault && (!o.ciphers.empty() || !old.empty()) &&
        !set_ciphers(a, ctx, (o.ciphers.empty() ? "DEFAULT" : o.ciphers) + old))
        fault = tls_setup_fault::ciphers;
    if (!fault && !o.certificate_file.empty() &&
        !(a.SSL_CTX_use_certificate_chain_file(ctx, o.certificate_file.c_str()) == 1 &&
          a.SSL_CTX_use_PrivateKey_file(ctx, o.certificate_file.c_str(), openssl::filetype_pem) == 1 &&
          a.SSL_CTX_check_private_key(ctx) == 1))
        fault = tls_setup_fault::certificate;
    a.ERR_clear_error();
    if (fault) return {errc::run_tls_setup, fault};
    send_server_name = o.server_name;
    verify = o.verify;
    resume = o.resume;
    // Under resume the sessions servers send come to openssl_new_session; the context keeps none,
    // nor sweeps its (empty) cache every 255 connections under its lock.
    if (resume) {
        a.SSL_CTX_ctrl(ctx, openssl::ctrl_set_sess_cache_mode,
                       openssl::sess_cache_client | openssl::sess_cache_no_internal_store |
                           openssl::sess_cache_no_auto_clear, nullptr);
        a.SSL_CTX_sess_set_new_cb(ctx, openssl_new_session);
    }
    workers_.reset(new (std::nothrow) openssl_worker[workers]);
    if (!workers_) return {errc::out_of_memory, 0};
    transports_.resize(workers);
    for (std::uint32_t i = 0; i < workers; ++i) {
        workers_[i].run = this;
        if (resume && !workers_[i].sessions.reserve(api, sessions_per_worker)) return {errc::out_of_memory, 0};
        transport& t = transports_[i];
        t.user = &workers_[i];
        t.open = openssl_open;
        t.handshake = openssl_handshake;
        t.read = openssl_read;
        t.write = openssl_write;
        t.close = openssl_close;
        t.pending = openssl_pending;
        t.why = openssl_why;
        t.session = openssl_session;
    }
    return {};
}

inline openssl_run::~openssl_run() {
    for (std::size_t i = 0; workers_ && i < transports_.size(); ++i) workers_[i].sessions.clear();
    if (ctx) api->SSL_CTX_free(ctx);
}

}  // namespace detail
}  // namespace microbench
