// Every OpenSSL prototype and constant openssl_api.hpp declares for itself, checked at compile time
// against OpenSSL's own headers (Debian's libssl-dev, which CI installs): a wrong type or value
// does not compile. Nothing of OpenSSL is linked; main() only says what was checked.
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/opensslv.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <cstdio>
#include <type_traits>

#include "microbench.hpp"

namespace ours = microbench::detail;
namespace k = microbench::detail::openssl;

#define MICROBENCH_SAME_PROTOTYPE(ret, name, params)                                                       \
    static_assert(std::is_same<decltype(ours::openssl_api::name), decltype(&::name)>::value,              \
                  #name " is declared unlike OpenSSL's");
MICROBENCH_OPENSSL_FUNCTIONS(MICROBENCH_SAME_PROTOTYPE)
#undef MICROBENCH_SAME_PROTOTYPE

static_assert(OPENSSL_VERSION_MAJOR >= 3, "these are OpenSSL 3's headers");
static_assert(k::error_none == SSL_ERROR_NONE && k::error_ssl == SSL_ERROR_SSL && k::error_want_read == SSL_ERROR_WANT_READ &&
              k::error_want_write == SSL_ERROR_WANT_WRITE && k::error_syscall == SSL_ERROR_SYSCALL &&
              k::error_zero_return == SSL_ERROR_ZERO_RETURN, "SSL_ERROR_*");
static_assert(k::verify_none == SSL_VERIFY_NONE && k::verify_peer == SSL_VERIFY_PEER, "SSL_VERIFY_*");
static_assert(k::filetype_pem == SSL_FILETYPE_PEM, "SSL_FILETYPE_PEM");
static_assert(k::sent_shutdown == SSL_SENT_SHUTDOWN && k::received_shutdown == SSL_RECEIVED_SHUTDOWN, "SSL_*_SHUTDOWN");
static_assert(k::mode_enable_partial_write == SSL_MODE_ENABLE_PARTIAL_WRITE &&
              k::mode_accept_moving_write_buffer == SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, "SSL_MODE_*");
static_assert(k::op_ignore_unexpected_eof == SSL_OP_IGNORE_UNEXPECTED_EOF, "SSL_OP_IGNORE_UNEXPECTED_EOF");
static_assert(k::ctrl_mode == SSL_CTRL_MODE && k::ctrl_set_tlsext_hostname == SSL_CTRL_SET_TLSEXT_HOSTNAME &&
              k::ctrl_get_peer_tmp_key == SSL_CTRL_GET_PEER_TMP_KEY &&
              k::ctrl_set_min_proto_version == SSL_CTRL_SET_MIN_PROTO_VERSION &&
              k::ctrl_set_max_proto_version == SSL_CTRL_SET_MAX_PROTO_VERSION, "SSL_CTRL_*");
static_assert(k::tlsext_nametype_host_name == TLSEXT_NAMETYPE_host_name, "TLSEXT_NAMETYPE_host_name");
static_assert(k::ctrl_set_read_ahead == SSL_CTRL_SET_READ_AHEAD, "SSL_CTRL_SET_READ_AHEAD");
static_assert(k::ctrl_set_sess_cache_mode == SSL_CTRL_SET_SESS_CACHE_MODE && k::sess_cache_client == SSL_SESS_CACHE_CLIENT &&
              k::sess_cache_no_internal_store == SSL_SESS_CACHE_NO_INTERNAL_STORE &&
              k::sess_cache_no_auto_clear == SSL_SESS_CACHE_NO_AUTO_CLEAR, "SSL_SESS_CACHE_*");
static_assert(k::tls1_3_version == TLS1_3_VERSION, "TLS1_3_VERSION");
static_assert(k::x509_v_ok == X509_V_OK, "X509_V_OK");
static_assert(k::evp_pkey_rsa == EVP_PKEY_RSA && k::evp_pkey_dh == EVP_PKEY_DH && k::evp_pkey_ec == EVP_PKEY_EC, "EVP_PKEY_*");
static_assert(k::version_3_0 == 0x30000000UL && OPENSSL_VERSION_NUMBER >= k::version_3_0, "the 3.0 version number");
// The versions tls_options::version takes are the protocol numbers OpenSSL uses.
static_assert(TLS1_VERSION == 0x0301 && TLS1_1_VERSION == 0x0302 && TLS1_2_VERSION == 0x0303 && TLS1_3_VERSION == 0x0304, "versions");

int main() {
#define MICROBENCH_COUNT(ret, name, params) +1
    std::printf("checked %d OpenSSL prototypes and every constant against OpenSSL %s's headers\n",
                0 MICROBENCH_OPENSSL_FUNCTIONS(MICROBENCH_COUNT), OPENSSL_VERSION_STR);
#undef MICROBENCH_COUNT
    return 0;
}
