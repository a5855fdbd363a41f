// microbench/engine/openssl_api.hpp — OpenSSL 3's functions and constants as the built-in TLS uses
// them, declared here (no OpenSSL headers at build time), and the loader that finds them in
// libssl.so.3 with dlopen at run time. Loaded once per process, under a lock, and never
// unloaded; a failed load is tried again by the next run and says why. The first load
// initialises OpenSSL for the whole process (OPENSSL_init_ssl, with the system's openssl.cnf), as
// any user of the shared libssl.so.3 does: a host that uses OpenSSL itself shares that one
// library. tests/tls/test_openssl_decls.cpp checks every prototype and constant here against
// the real headers (in CI, where libssl-dev is installed).
#pragma once

#include <dlfcn.h>
#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../core/config.hpp"

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
    X(int, SSL_has_pending, (const ssl_st*))                                                             \
    X(long, SSL_get_verify_result, (const ssl_st*))                                                      \
    X(const char*, SSL_get_version, (const ssl_st*))                                                     \
    X(const ssl_cipher_st*, SSL_get_current_cipher, (const ssl_st*))                                     \
    X(const char*, SSL_CIPHER_get_name, (const ssl_cipher_st*))                                          \
    X(int, SSL_CIPHER_get_bits, (const ssl_cipher_st*, int*))                                            \
    X(x509_st*, SSL_get0_peer_certificate, (const ssl_st*))                                              \
    X(int, SSL_set_session, (ssl_st*, ssl_session_st*))                                                  \
    X(int, SSL_session_reused, (const ssl_st*))                                                          \
    X(int, SSL_SESSION_is_resumable, (const ssl_session_st*))                                            \
    X(void, SSL_SESSION_free, (ssl_session_st*))                                                         \
    X(void, SSL_set_shutdown, (ssl_st*, int))                                                            \
    X(int, SSL_SESSION_get_protocol_version, (const ssl_session_st*))                                    \
    X(long, SSL_SESSION_get_time, (const ssl_session_st*))                                               \
    X(long, SSL_SESSION_get_timeout, (const ssl_session_st*))                                            \
    X(ssl_session_st*, SSL_get1_session, (ssl_st*))                                                      \
    X(void, SSL_CTX_sess_set_new_cb, (ssl_ctx_st*, int (*)(ssl_st*, ssl_session_st*)))                   \
    X(int, SSL_set_ex_data, (ssl_st*, int, void*))                                                       \
    X(void*, SSL_get_ex_data, (const ssl_st*, int))                                                      \
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
constexpr int ctrl_set_read_ahead = 41, ctrl_set_sess_cache_mode = 44;
constexpr long sess_cache_client = 0x0001, sess_cache_no_auto_clear = 0x0080, sess_cache_no_internal_store = 0x0200;
constexpr int tls1_3_version = 0x0304;
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

// The functions' names, each ended by a NUL, and where each one's pointer sits in openssl_api: the
// loader walks them in step.
#define MICROBENCH_OPENSSL_NAME(ret, name, params) #name "\0"
#define MICROBENCH_OPENSSL_OFFSET(ret, name, params) static_cast<std::uint16_t>(offsetof(openssl_api, name)),
inline constexpr char openssl_names[] = MICROBENCH_OPENSSL_FUNCTIONS(MICROBENCH_OPENSSL_NAME);
inline constexpr std::uint16_t openssl_offsets[] = {MICROBENCH_OPENSSL_FUNCTIONS(MICROBENCH_OPENSSL_OFFSET)};
#undef MICROBENCH_OPENSSL_NAME
#undef MICROBENCH_OPENSSL_OFFSET

struct openssl_loader {
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    openssl_api api;
    bool loaded = false;
    char problem[320] = "";  // why the last load failed, for the command line's message
};
inline openssl_loader& the_openssl_loader() {
    static openssl_loader loader;
    return loader;
}

// The library named by the plan, else by $MICROBENCH_LIBSSL, else libssl.so.3; null when it cannot
// be loaded (no such file, older than 3.0, a function missing), and openssl_load_problem() says
// which. The first load that works is the process's for good: later runs use it whatever they name.
inline const openssl_api* load_openssl(const std::string& wanted) {
    openssl_loader& l = the_openssl_loader();
    pthread_mutex_lock(&l.lock);
    if (!l.loaded) {
        const char* env = std::getenv("MICROBENCH_LIBSSL");
        const char* path = !wanted.empty() ? wanted.c_str() : env && *env ? env : defaults::libssl_name;
        void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!handle) std::snprintf(l.problem, sizeof l.problem, "%s", dlerror());
        openssl_api found;
        const char* missing = nullptr;
        // libcrypto's functions are found through libssl's handle: it is among its dependencies.
        const char* name = openssl_names;
        for (std::uint16_t offset : openssl_offsets) {
            void* symbol = handle ? dlsym(handle, name) : nullptr;
            if (!symbol) {
                missing = handle ? name : nullptr;
                break;
            }
            std::memcpy(reinterpret_cast<char*>(&found) + offset, &symbol, sizeof symbol);
            name += std::strlen(name) + 1;
        }
        if (handle && missing)
            std::snprintf(l.problem, sizeof l.problem, "%s has no %s: not OpenSSL 3's libssl", path, missing);
        const unsigned long version = handle && !missing ? found.OpenSSL_version_num() : 0;
        if (handle && !missing && version < openssl::version_3_0)
            std::snprintf(l.problem, sizeof l.problem, "%s is OpenSSL %lu.%lu, older than 3.0", path, version >> 28,
                          (version >> 20) & 0xff);
        l.loaded = version >= openssl::version_3_0 && found.OPENSSL_init_ssl(0, nullptr) == 1;
        if (!l.loaded && version >= openssl::version_3_0)
            std::snprintf(l.problem, sizeof l.problem, "%s could not be initialised", path);
        if (l.loaded) l.api = found;
        else if (handle) dlclose(handle);
    }
    const openssl_api* out = l.loaded ? &l.api : nullptr;
    pthread_mutex_unlock(&l.lock);
    return out;
}

// Why the last load failed ("libssl.so.3: cannot open shared object file: …"); "" once one worked.
inline std::string openssl_load_problem() {
    openssl_loader& l = the_openssl_loader();
    pthread_mutex_lock(&l.lock);
    std::string out = l.loaded ? "" : l.problem;
    pthread_mutex_unlock(&l.lock);
    return out;
}

}  // namespace detail
}  // namespace microbench
