/* An embedder's own TLS: mbedTLS (Debian's libmbedtls-dev) carries every connection of a run through
 * microbench's transport (mb_transport), so no OpenSSL is involved — what a device that ships
 * mbedTLS, wolfSSL or BearSSL does. One worker thread: the random generator below is shared.
 *   mbedtls_transport URL [REQUESTS] [CONNECTIONS] [CA.pem]   (with CA.pem, the certificate is checked)
 * Prints ab's report and whether libssl was loaded; exits 0 when every request completed. */
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#include <errno.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "microbench.h"

static mbedtls_ssl_config config;
static mbedtls_entropy_context entropy;
static mbedtls_ctr_drbg_context random_bytes;
static mbedtls_x509_crt authorities;

struct connection {
    mbedtls_ssl_context ssl;
    int fd;
    char why[128];
};

/* mbedTLS's BIO over the library's non-blocking socket: never a SIGPIPE, EAGAIN as "want". */
static int send_bytes(void* ctx, const unsigned char* buf, size_t len) {
    ssize_t n = send(*(int*)ctx, buf, len, MSG_NOSIGNAL);
    if (n >= 0) return (int)n;
    return errno == EAGAIN || errno == EWOULDBLOCK ? MBEDTLS_ERR_SSL_WANT_WRITE : MBEDTLS_ERR_NET_SEND_FAILED;
}
static int receive_bytes(void* ctx, unsigned char* buf, size_t len) {
    ssize_t n = recv(*(int*)ctx, buf, len, 0);
    if (n >= 0) return (int)n; /* 0: the peer closed */
    return errno == EAGAIN || errno == EWOULDBLOCK ? MBEDTLS_ERR_SSL_WANT_READ : MBEDTLS_ERR_NET_RECV_FAILED;
}

/* An mbedTLS return value as a transport status. */
static long status_of(struct connection* c, int ret) {
    if (ret == MBEDTLS_ERR_SSL_WANT_READ) return MB_IO_WANT_READ;
    if (ret == MBEDTLS_ERR_SSL_WANT_WRITE) return MB_IO_WANT_WRITE;
    if (ret == 0 || ret == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY || ret == MBEDTLS_ERR_SSL_CONN_EOF) return MB_IO_CLOSED;
    if (ret == MBEDTLS_ERR_NET_SEND_FAILED || ret == MBEDTLS_ERR_NET_RECV_FAILED) return MB_IO_SOCKET_ERROR;
    mbedtls_strerror(ret, c->why, sizeof c->why);
    return MB_IO_FAILED;
}

static void* tls_open(void* user, int fd, const char* server_name) {
    struct connection* c = calloc(1, sizeof *c);
    (void)user;
    if (!c) return NULL;
    c->fd = fd;
    mbedtls_ssl_init(&c->ssl);
    if (mbedtls_ssl_setup(&c->ssl, &config) != 0 || mbedtls_ssl_set_hostname(&c->ssl, server_name) != 0) {
        mbedtls_ssl_free(&c->ssl);
        free(c);
        return NULL;
    }
    mbedtls_ssl_set_bio(&c->ssl, &c->fd, send_bytes, receive_bytes, NULL);
    return c;
}
static long tls_handshake(void* conn) {
    struct connection* c = conn;
    int ret = mbedtls_ssl_handshake(&c->ssl);
    return ret == 0 ? MB_IO_DONE : status_of(c, ret);
}
static long tls_read(void* conn, char* buf, size_t len) {
    int ret = mbedtls_ssl_read(&((struct connection*)conn)->ssl, (unsigned char*)buf, len);
    return ret > 0 ? ret : status_of(conn, ret);
}
static long tls_write(void* conn, const char* buf, size_t len) {
    int ret = mbedtls_ssl_write(&((struct connection*)conn)->ssl, (const unsigned char*)buf, len);
    return ret > 0 ? ret : status_of(conn, ret);
}
static void tls_close(void* conn) {
    mbedtls_ssl_free(&((struct connection*)conn)->ssl);
    free(conn);
}
static size_t tls_why(void* conn, char* buf, size_t cap) {
    return (size_t)snprintf(buf, cap, "%s", ((struct connection*)conn)->why);
}
static void tls_session(void* conn, mb_tls_session* out) {
    const mbedtls_ssl_context* ssl = &((struct connection*)conn)->ssl;
    memset(out, 0, sizeof *out);
    snprintf(out->protocol, sizeof out->protocol, "%s", mbedtls_ssl_get_version(ssl));
    snprintf(out->cipher, sizeof out->cipher, "%s", mbedtls_ssl_get_ciphersuite(ssl));
}

/* Whether this process has OpenSSL's libssl mapped (it must not: mbedTLS does the work). */
static int libssl_loaded(void) {
    char line[512];
    int found = 0;
    FILE* maps = fopen("/proc/self/maps", "r");
    while (maps && !found && fgets(line, sizeof line, maps)) found = strstr(line, "libssl.so") != NULL;
    if (maps) fclose(maps);
    return found;
}

int main(int argc, char** argv) {
    const mb_transport transport = {sizeof(mb_transport), NULL, tls_open, tls_handshake, tls_read, tls_write,
                                    tls_close, tls_why, tls_session, NULL};
    mb_plan* plan = NULL;
    mb_result* result = NULL;
    static char report[16384];
    unsigned long long requests = argc > 2 ? strtoull(argv[2], NULL, 10) : 100;
    int status;
    if (argc < 2) {
        fprintf(stderr, "usage: %s URL [REQUESTS] [CONNECTIONS] [CA.pem]\n", argv[0]);
        return 1;
    }
    mbedtls_ssl_config_init(&config);
    mbedtls_entropy_init(&entropy);
    mbedtls_ctr_drbg_init(&random_bytes);
    mbedtls_x509_crt_init(&authorities);
    if (mbedtls_ctr_drbg_seed(&random_bytes, mbedtls_entropy_func, &entropy, NULL, 0) != 0 ||
        mbedtls_ssl_config_defaults(&config, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
                                    MBEDTLS_SSL_PRESET_DEFAULT) != 0 ||
        (argc > 4 && mbedtls_x509_crt_parse_file(&authorities, argv[4]) != 0)) {
        fprintf(stderr, "mbedTLS could not be set up\n");
        return 1;
    }
    mbedtls_ssl_conf_rng(&config, mbedtls_ctr_drbg_random, &random_bytes);
    mbedtls_ssl_conf_authmode(&config, argc > 4 ? MBEDTLS_SSL_VERIFY_REQUIRED : MBEDTLS_SSL_VERIFY_NONE);
    mbedtls_ssl_conf_ca_chain(&config, &authorities, NULL);

    status = mb_plan_create(argv[1], &plan);
    if (status == MB_OK) status = mb_plan_set_transport(plan, &transport);
    if (status == MB_OK) status = mb_plan_set_requests(plan, requests);
    if (status == MB_OK) status = mb_plan_set_concurrency(plan, argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 10);
    if (status == MB_OK) status = mb_run(plan, &result);
    if (status != MB_OK) {
        fprintf(stderr, "%s: %s\n", mb_status_name(status), mb_status_message(status));
        return 1;
    }
    mb_result_report_ab(result, report, sizeof report);
    fputs(report, stdout);
    for (size_t i = 0; i < mb_result_tls_failure_reason_count(result); ++i)
        printf("TLS failure: %s\n", mb_result_tls_failure_reason(result, i));
    printf("libssl loaded: %s\n", libssl_loaded() ? "yes" : "no");
    status = mb_result_count(result, MB_COUNT_COMPLETED) == requests ? 0 : 1;
    mb_result_destroy(result);
    mb_plan_destroy(plan);
    mbedtls_x509_crt_free(&authorities);
    mbedtls_ssl_config_free(&config);
    mbedtls_ctr_drbg_free(&random_bytes);
    mbedtls_entropy_free(&entropy);
    return status;
}
