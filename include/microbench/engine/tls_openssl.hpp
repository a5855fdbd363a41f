// microbench/engine/tls_openssl.hpp — the built-in TLS: OpenSSL 3's libssl.so.3 loaded at run time
// (dlopen) on the first https:// run, with our own prototypes and constants, so nothing of
// OpenSSL is needed to build and nothing is loaded by a program that never speaks https. It is
// one implementation of transport.hpp's interface: the engine drives it like an embedder's TLS.
// Loaded once per process, under a lock, and never unloaded; a failed load is tried again by
// the next run. tests/tls/test_openssl_decls.cpp checks every prototype and constant here
// against the real headers (in CI, where libssl-dev is installed).
#pragma once

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

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
#include "plan.hpp"
#include "transport.hpp"

// OpenSSL's opaque types, declared as its headers declare them, so the prototypes below are
// exactly OpenSSL's and a program that also includes <openssl/ssl.h> sees no conflict.
struct ssl_st;
struct ssl_ctx_st;
struct ssl_method_st;
struct ssl_cipher_st;
struct ssl_session_st;
struct x509_st;
struct x509_store_ctx_st;
struct evp_pkey_st;
struct ossl_init_settings_st;

namespace microbench {
namespace detail {

// Every function the built-in TLS calls: (return type, name, parameters). All exported by 3.0.
#define MICROBENCH_OPENSSL_FUNCTIONS(X)                                                                 \
    X(unsigned long, OpenSSL_version_num, (void))                                                        \
    X(int, OPENSSL_init_ssl, (std::uint64_t, const ossl_init_settings_st*))                              \
    X(const ssl_method_st*, TLS_client_method, (void))                                                   \
    X(ssl_ctx_st*, SSL_CTX_new, (const ssl_method_st*))                                                  \
    X(void, SSL_CTX_free, (ssl_ctx_st*))                                                                 \
    X(long, SSL_CTX_ctrl, (ssl_ctx_st*, int, long, void*))                                               \
    X(std::uint64_t, SSL_CTX_set_options, (ssl_ctx_st*, std::uint64_t))                                  \
    X(void, SSL_CTX_set_verify, (ssl_ctx_st*, int, int (*)(int, x509_store_ctx_st*)))                    \
    X(int, SSL_CTX_set_default_verify_paths, (ssl_ctx_st*))                                              \
    X(int, SSL_CTX_load_verify_locations, (ssl_ctx_st*, const char*, const char*))                       \
    X(int, SSL_CTX_set_cipher_list, (ssl_ctx_st*, const char*))                                          \
    X(int, SSL_CTX_set_ciphersuites, (ssl_ctx_st*, const char*))                                         \
    X(int, SSL_CTX_use_certificate_chain_file, (ssl_ctx_st*, const char*))                               \
    X(int, SSL_CTX_use_PrivateKey_file, (ssl_ctx_st*, const char*, int))                                 \
    X(int, SSL_CTX_check_private_key, (const ssl_ctx_st*))                                               \
    X(ssl_st*, SSL_new, (ssl_ctx_st*))                                                                   \
    X(void, SSL_free, (ssl_st*))                                                                         \
    X(int, SSL_set_fd, (ssl_st*, int))                                                                   \
    X(void, SSL_set_connect_state, (ssl_st*))                                                            \
    X(long, SSL_ctrl, (ssl_st*, int, long, void*))                                                       \
    X(int, SSL_set1_host, (ssl_st*, const char*))                                                        \
    X(int, SSL_do_handshake, (ssl_st*))                                                                  \
    X(int, SSL_read, (ssl_st*, void*, int))                                                              \
    X(int, SSL_write, (ssl_st*, const void*, int))                                                       \
    X(int, SSL_get_error, (const ssl_st*, int))                                                          \
    X(long, SSL_get_verify_result, (const ssl_st*))                                                      \
    X(const char*, SSL_get_version, (const ssl_st*))                                                     \
    X(const ssl_cipher_st*, SSL_get_current_cipher, (const ssl_st*))                                     \
    X(const char*, SSL_CIPHER_get_name, (const ssl_cipher_st*))                                          \
    X(int, SSL_CIPHER_get_bits, (const ssl_cipher_st*, int*))                                            \
    X(x509_st*, SSL_get0_peer_certificate, (const ssl_st*))                                              \
    X(ssl_session_st*, SSL_get1_session, (ssl_st*))                                                      \
    X(int, SSL_set_session, (ssl_st*, ssl_session_st*))                                                  \
    X(int, SSL_session_reused, (const ssl_st*))                                                          \
    X(int, SSL_SESSION_is_resumable, (const ssl_session_st*))                                            \
    X(void, SSL_SESSION_free, (ssl_session_st*))                                                         \
    X(void, SSL_set_shutdown, (ssl_st*, int))                                                            \
    X(void, ERR_clear_error, (void))                                                                     \
    X(unsigned long, ERR_peek_last_error, (void))                                                        \
    X(const char*, ERR_reason_error_string, (unsigned long))                                             \
    X(const char*, X509_verify_cert_error_string, (long))                                                \
    X(evp_pkey_st*, X509_get0_pubkey, (const x509_st*))                                                  \
    X(int, EVP_PKEY_get_bits, (const evp_pkey_st*))                                                      \
    X(int, EVP_PKEY_get_id, (const evp_pkey_st*))                                                        \
    X(int, EVP_PKEY_get_group_name, (const evp_pkey_st*, char*, std::size_t, std::size_t*))              \
    X(void, EVP_PKEY_free, (evp_pkey_st*))                                                               \
    X(const char*, OBJ_nid2sn, (int))                                                                    \
    X(int, OBJ_sn2nid, (const char*))                                                                    \
    X(const char*, EC_curve_nid2nist, (int))

// OpenSSL 3.0's constants: its macros' names, lower-cased (the macros themselves would clash with
// its headers in a program that includes both).
namespace openssl {
constexpr unsigned long version_3_0 = 0x30000000UL;  // OpenSSL_version_num() of 3.0.0
constexpr int error_none = 0, error_ssl = 1, error_want_read = 2, error_want_write = 3,
              error_syscall = 5, error_zero_return = 6;
constexpr int verify_none = 0, verify_peer = 1;
constexpr int filetype_pem = 1;
constexpr int sent_shutdown = 1, received_shutdown = 2;
constexpr long mode_enable_partial_write = 0x1, mode_accept_moving_write_buffer = 0x2;
constexpr std::uint64_t op_ignore_unexpected_eof = std::uint64_t{1} << 7;
constexpr int ctrl_mode = 33, ctrl_set_tlsext_hostname = 55, ctrl_get_peer_tmp_key = 109,
              ctrl_set_min_proto_version = 123, ctrl_set_max_proto_version = 124;
constexpr long tlsext_nametype_host_name = 0;
constexpr long x509_v_ok = 0;
constexpr int evp_pkey_rsa = 6, evp_pkey_dh = 28, evp_pkey_ec = 408;
}  // namespace openssl

struct openssl_api {
#define MICROBENCH_OPENSSL_DECLARE(ret, name, params) ret(*name) params = nullptr;
    MICROBENCH_OPENSSL_FUNCTIONS(MICROBENCH_OPENSSL_DECLARE)
#undef MICROBENCH_OPENSSL_DECLARE
};

// The library named by the plan, else by $MICROBENCH_LIBSSL, else libssl.so.3; null when it cannot
// be loaded (no such file, older than 3.0, a function missing). The first load that works is the
// process's for good: later runs use it whatever they name.
inline const openssl_api* load_openssl(const std::string& wanted) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static openssl_api api;
    static bool loaded = false;
    pthread_mutex_lock(&lock);
    if (!loaded) {
        const char* env = std::getenv("MICROBENCH_LIBSSL");
        const char* path = !wanted.empty() ? wanted.c_str() : env && *env ? env : defaults::libssl_name;
        if (void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
            openssl_api found;
            bool complete = true;
            // libcrypto's functions are found through libssl's handle: it is among its dependencies.
#define MICROBENCH_OPENSSL_RESOLVE(ret, name, params)           \
    if (void* symbol = dlsym(handle, #name))                    \
        std::memcpy(&found.name, &symbol, sizeof symbol);       \
    else                                                        \
        complete = false;
            MICROBENCH_OPENSSL_FUNCTIONS(MICROBENCH_OPENSSL_RESOLVE)
#undef MICROBENCH_OPENSSL_RESOLVE
            loaded = complete && found.OpenSSL_version_num() >= openssl::version_3_0 && found.OPENSSL_init_ssl(0, nullptr) == 1;
            if (loaded) api = found;
            else dlclose(handle);
        }
    }
    pthread_mutex_unlock(&lock);
    return loaded ? &api : nullptr;
}

struct openssl_worker;

// One run's TLS: its SSL_CTX made from the plan's tls_options, and a transport per worker (so a
// worker resumes its own last session). Freed after every worker has joined.
class openssl_run {
public:
    openssl_run() = default;
    openssl_run(const openssl_run&) = delete;
    openssl_run& operator=(const openssl_run&) = delete;
    ~openssl_run();

    // Loads the library and makes the context; the error says what failed.
    error start(const tls_options& options, std::uint32_t workers);
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
    ssl_session_st* session = nullptr;  // the last resumable session, when the run resumes
};

struct openssl_connection {
    ssl_st* ssl;
    openssl_worker* worker;
    unsigned long error;  // the library's code for the last failure
    char server_name[256];
};

inline bool is_ip_address(const char* host) {
    unsigned char addr[16];
    return inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
}

inline void* openssl_open(void* user, int fd, const char* server_name) {
    auto* w = static_cast<openssl_worker*>(user);
    const openssl_api& a = *w->run->api;
    auto* c = new (std::nothrow) openssl_connection{a.SSL_new(w->run->ctx), w, 0, {}};
    if (!c) return nullptr;
    bool ok = c->ssl && a.SSL_set_fd(c->ssl, fd) == 1;
    const bool name = w->run->send_server_name && !is_ip_address(server_name) && std::strlen(server_name) < sizeof c->server_name;
    if (ok && name) {
        std::strcpy(c->server_name, server_name);
        ok = a.SSL_ctrl(c->ssl, openssl::ctrl_set_tlsext_hostname, openssl::tlsext_nametype_host_name, c->server_name) == 1;
    }
    if (ok && w->run->verify) ok = a.SSL_set1_host(c->ssl, server_name) == 1;  // a name or an IP address
    if (ok && w->session) ok = a.SSL_set_session(c->ssl, w->session) == 1;
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
        case openssl::error_syscall:
            if (a.ERR_peek_last_error() == 0) return errno == 0 ? transport_closed : transport_socket_error;
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
    if (r == 1) return a.SSL_session_reused(c->ssl) ? transport_resumed : transport_done;
    return openssl_status(c, r);
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

// Frees the connection; with resumption its session becomes the worker's next one to resume.
// No close_notify is sent (as ab); marking the connection as shut down keeps SSL_free from
// taking its session out of use.
inline void openssl_close(void* conn) {
    auto* c = static_cast<openssl_connection*>(conn);
    openssl_worker& w = *c->worker;
    const openssl_api& a = *w.run->api;
    if (w.run->resume) {
        ssl_session_st* s = a.SSL_get1_session(c->ssl);
        if (s && a.SSL_SESSION_is_resumable(s)) {
            a.SSL_set_shutdown(c->ssl, openssl::sent_shutdown | openssl::received_shutdown);
            if (w.session) a.SSL_SESSION_free(w.session);
            w.session = s;
        } else if (s) {
            a.SSL_SESSION_free(s);
        }
    }
    a.SSL_free(c->ssl);
    delete c;
}

// The library's reason for the last failure, with the certificate check's own when it failed:
// "certificate verify failed: hostname mismatch".
inline std::size_t openssl_why(void* conn, char* buf, std::size_t cap) {
    auto* c = static_cast<openssl_connection*>(conn);
    const openssl_api& a = *c->worker->run->api;
    const char* reason = c->error ? a.ERR_reason_error_string(c->error) : nullptr;
    const long verify = a.SSL_get_verify_result(c->ssl);
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
    if (!v12.empty() && a.SSL_CTX_set_cipher_list(ctx, v12.c_str()) != 1) return false;
    if (!v13.empty() && a.SSL_CTX_set_ciphersuites(ctx, v13.c_str()) != 1) return false;
    return !v12.empty() || !v13.empty();
}

inline error openssl_run::start(const tls_options& o, std::uint32_t workers) {
    api = load_openssl(o.libssl);
    if (!api) return {errc::run_tls_unavailable, 0};
    const openssl_api& a = *api;
    ctx = a.SSL_CTX_new(a.TLS_client_method());
    if (!ctx) return {errc::run_tls_setup, 0};
    a.SSL_CTX_ctrl(ctx, openssl::ctrl_mode, openssl::mode_enable_partial_write | openssl::mode_accept_moving_write_buffer, nullptr);
    a.SSL_CTX_set_options(ctx, openssl::op_ignore_unexpected_eof);  // a close without close_notify is a close
    a.SSL_CTX_set_verify(ctx, o.verify ? openssl::verify_peer : openssl::verify_none, nullptr);
    bool ok = true;
    if (o.verify)
        ok = o.ca_file.empty() ? a.SSL_CTX_set_default_verify_paths(ctx) == 1
                               : a.SSL_CTX_load_verify_locations(ctx, o.ca_file.c_str(), nullptr) == 1;
    if (ok && o.version)
        ok = a.SSL_CTX_ctrl(ctx, openssl::ctrl_set_min_proto_version, o.version, nullptr) == 1 &&
             a.SSL_CTX_ctrl(ctx, openssl::ctrl_set_max_proto_version, o.version, nullptr) == 1;
    if (ok && !o.ciphers.empty()) ok = set_ciphers(a, ctx, o.ciphers);
    if (ok && !o.certificate_file.empty())
        ok = a.SSL_CTX_use_certificate_chain_file(ctx, o.certificate_file.c_str()) == 1 &&
             a.SSL_CTX_use_PrivateKey_file(ctx, o.certificate_file.c_str(), openssl::filetype_pem) == 1 &&
             a.SSL_CTX_check_private_key(ctx) == 1;
    a.ERR_clear_error();
    if (!ok) return {errc::run_tls_setup, 0};
    send_server_name = o.server_name;
    verify = o.verify;
    resume = o.resume;
    workers_.reset(new openssl_worker[workers]);
    transports_.resize(workers);
    for (std::uint32_t i = 0; i < workers; ++i) {
        workers_[i].run = this;
        transport& t = transports_[i];
        t.user = &workers_[i];
        t.open = openssl_open;
        t.handshake = openssl_handshake;
        t.read = openssl_read;
        t.write = openssl_write;
        t.close = openssl_close;
        t.why = openssl_why;
        t.session = openssl_session;
    }
    return {};
}

inline openssl_run::~openssl_run() {
    for (std::size_t i = 0; i < transports_.size(); ++i)
        if (workers_[i].session) api->SSL_SESSION_free(workers_[i].session);
    if (ctx) api->SSL_CTX_free(ctx);
}

}  // namespace detail
}  // namespace microbench
