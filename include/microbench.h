/* microbench.h — the C API of microbench: HTTP/1.1 load tests, response checks, the five-scenario
 * suite and the reference server, for C and for any language with a C FFI (Python ctypes, C#
 * P/Invoke). C99, also valid C++; no C++ type crosses it, no exception escapes it, nothing in it
 * aborts. Link libmicrobench (CMake target microbench::c), or build it yourself from the single
 * header: one C++17 file containing
 *     #define MICROBENCH_C_IMPLEMENTATION
 *     #include "microbench.hpp"
 *
 * Conventions.
 * - Handles are opaque: mb_plan, mb_result, mb_suite, mb_server, mb_cancel, mb_hlog, mb_capacity.
 *   Each has a
 *   constructor and a destroy function; destroy accepts NULL.
 * - Fallible functions return an int status: MB_OK (0) or one of the MB_ codes below, whose
 *   numbers never change. mb_status_name() and mb_status_message() describe any of them. A NULL
 *   handle or pointer, or a value out of range, is MB_INVALID_ARGUMENT; running out of memory is
 *   MB_OUT_OF_MEMORY.
 * - A string returned as const char* belongs to its handle and lives as long as the handle
 *   (static strings, for the version and status functions). Text reports are written into a
 *   buffer you pass, snprintf-style: the return value is the full length without the NUL; at
 *   most size - 1 bytes and a NUL are written; pass size 0 (buf may be NULL) to ask the length.
 *   With a NULL handle, or when memory runs out, the return value is 0 and "" is written (the one
 *   text function that returns a status, mb_report_html_json, writes "" when it fails).
 *   Nothing is ever returned for you to free().
 * - Times are nanoseconds unless a name says otherwise; counts are uint64_t.
 * - Thread safety: one handle is used by one thread at a time, except mb_cancel_trigger(), which
 *   any thread (or a signal handler) may call while a run is in progress.
 */
#ifndef MICROBENCH_H
#define MICROBENCH_H

#include <stddef.h>
#include <stdint.h>

#define MB_VERSION_MAJOR 0
#define MB_VERSION_MINOR 1
#define MB_VERSION_PATCH 0
#define MB_VERSION_NUMBER (MB_VERSION_MAJOR * 10000 + MB_VERSION_MINOR * 100 + MB_VERSION_PATCH)

#ifndef MB_API
#if defined(MICROBENCH_C_BUILD) && defined(__GNUC__)
#define MB_API __attribute__((visibility("default")))
#else
#define MB_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: the library's error numbers, fixed forever. */
enum {
    MB_OK = 0,
    MB_URL_EMPTY = 10, MB_URL_NO_SCHEME = 11, MB_URL_UNSUPPORTED_SCHEME = 12, MB_URL_TLS_UNSUPPORTED = 13,
    MB_URL_USERINFO_UNSUPPORTED = 14, MB_URL_EMPTY_HOST = 15, MB_URL_BAD_HOST = 16, MB_URL_BAD_IPV6 = 17,
    MB_URL_BAD_PORT = 18, MB_URL_BAD_CHAR = 19, MB_URL_BAD_RANGE = 20, MB_URL_RANGE_UNCLOSED = 21,
    MB_URL_RANGE_IN_ORIGIN = 22, MB_URL_TOO_MANY_TARGETS = 23,
    MB_REQUEST_BAD_METHOD = 30, MB_REQUEST_BAD_HEADER_NAME = 31, MB_REQUEST_BAD_HEADER_VALUE = 32,
    MB_REQUEST_CONTENT_LENGTH_MISMATCH = 33, MB_REQUEST_TRANSFER_ENCODING_UNSUPPORTED = 34,
    MB_REQUEST_BAD_HEADER_LINE = 35,
    MB_PLAN_BAD_CONCURRENCY = 90, MB_PLAN_BAD_THREADS = 91, MB_PLAN_NO_LIMIT = 92,
    MB_PLAN_CONCURRENCY_ABOVE_REQUESTS = 93, MB_PLAN_BAD_TIMEOUT = 94, MB_PLAN_BAD_PIPELINE = 95,
    MB_PLAN_BAD_BIND_ADDRESS = 96, MB_PLAN_BAD_STATUS = 97, MB_PLAN_NOT_FACTORIAL_URL = 98,
    MB_PLAN_TOO_MANY_IN_FLIGHT = 99,
    MB_RUN_RESOLVE_FAILED = 100, MB_RUN_FD_LIMIT = 101, MB_RUN_SYSTEM = 102, MB_RUN_TLS_UNAVAILABLE = 103,
    MB_RUN_TLS_SETUP = 104,
    MB_PLAN_TOO_MANY_RECORDS = 120, MB_PLAN_BAD_RATE = 121, MB_PLAN_BAD_INTERVAL = 122, MB_PLAN_BAD_ARRIVALS = 123,
    MB_PLAN_BAD_START_TIME = 124, MB_PLAN_BAD_SHARD = 125, MB_PLAN_BAD_DURATION = 126, MB_PLAN_BAD_SOCKET_BUFFER = 127,
    MB_PLAN_BAD_TRANSPORT = 128, MB_PLAN_BAD_TLS_VERSION = 129, MB_PLAN_BAD_CONNECT_TO = 130,
    MB_PLAN_BAD_BATCH_LAG = 131, MB_PLAN_BAD_UNIX_SOCKET = 132,
    MB_PLAN_BAD_CAPACITY_SEARCH = 133, MB_PLAN_BAD_TARGET = 134, MB_PLAN_TARGETS_UNSUPPORTED = 135,
    MB_PLAN_TARGETS_TOO_LARGE = 136, MB_PLAN_FACTORIAL_TARGET = 137,
    MB_PLAN_EACH_ONCE_DURATION = 138,
    MB_PLAN_BAD_REQUEST_CAPACITY = 139, MB_PLAN_BAD_STAGES = 170, MB_PLAN_BAD_REGEX = 171,
    MB_JSON_BAD = 140, MB_JSON_TOO_DEEP = 141, MB_RESULT_NOT_MICROBENCH = 142, MB_RESULT_BAD_FIELD = 143,
    MB_MERGE_NOTHING = 144, MB_MERGE_DIFFERENT_PLANS = 145, MB_MERGE_INCOMPATIBLE_HISTOGRAMS = 146,
    MB_MERGE_DUPLICATE_SHARD = 147, MB_MERGE_TOO_MANY_INTERVALS = 148, MB_HLOG_BAD = 149,
    MB_TARGETS_BAD_LINE = 160, MB_TARGETS_BODY_UNREADABLE = 161, MB_TARGETS_BAD_JSON = 162, MB_TARGETS_NONE = 163,
    MB_TARGETS_UNREADABLE = 164, MB_TARGETS_TOO_MANY = 165,
    MB_INVALID_ARGUMENT = 200, MB_OUT_OF_MEMORY = 201
};

/* Why a request failed: each failed request has exactly one reason. */
typedef enum mb_failure {
    MB_FAILURE_CONNECT = 0, /* refused, unreachable or timed out while connecting */
    MB_FAILURE_WRITE = 1,   /* the connection broke while sending */
    MB_FAILURE_RECEIVE = 2, /* reset or closed before the response was complete */
    MB_FAILURE_PARSE = 3,   /* the response was not valid HTTP/1.x */
    MB_FAILURE_TIMEOUT = 4, /* no complete response within the timeout */
    MB_FAILURE_LENGTH = 5,  /* ab's rule: body length differs from the first response's */
    MB_FAILURE_CHECK = 6,   /* a whole response failed a check */
    MB_FAILURE_TLS = 7      /* the TLS layer failed: handshake, alert, certificate, or a record */
} mb_failure;

/* Counters of a result, for mb_result_count(). */
typedef enum mb_count {
    MB_COUNT_ENDED = 0,           /* completed + failed: every request exactly once */
    MB_COUNT_COMPLETED = 1,       /* a whole response that passed the checks (any status) */
    MB_COUNT_FAILED = 2,
    MB_COUNT_UNFINISHED = 3,      /* in flight when a duration ended or a cancel came */
    MB_COUNT_NON_2XX = 4,
    MB_COUNT_KEEP_ALIVE_REQUESTS = 5,  /* sent on a connection that had served one */
    MB_COUNT_RETRIES = 6,         /* met a closed keep-alive connection, sent again once */
    MB_COUNT_CONNECTS = 7,
    MB_COUNT_SERVER_CLOSES = 8,
    MB_COUNT_BYTES_SENT = 9,
    MB_COUNT_BYTES_RECEIVED = 10,
    MB_COUNT_BODY_BYTES = 11,     /* decoded bodies of every whole response, failed ones too */
    MB_COUNT_DOCUMENT_LENGTH = 12, /* body length of the first response that passed, else of the first whole one */
    MB_COUNT_CONCURRENCY_PEAK = 13,
    MB_COUNT_LOCAL_WAITS = 14,    /* connects that waited for a local port, descriptor or buffer */
    MB_COUNT_CONNECTION_WAITS = 15, /* fixed rate: requests sent late, every connection busy at their time */
    MB_COUNT_SCHEDULE_MISSED = 16,  /* fixed rate: requests whose time came before the end, never sent */
    MB_COUNT_TLS_HANDSHAKES = 17,   /* over TLS: handshakes made */
    MB_COUNT_TLS_RESUMED = 18,      /* over TLS: of them, those that resumed a session */
    MB_COUNT_TLS_HANDSHAKE_FAILURES = 19, /* of the tls failures, requests whose handshake failed
                                            (ab's Connect column) */
    MB_COUNT_REQUEST_FN_FAULTS = 20, /* request callback calls that overflowed or named no target */
    MB_COUNT_BACKLOG_WAITS = 21,    /* over a Unix socket: connects that found the listen queue full and waited */
    MB_COUNT_TLS_NO_SESSION = 22    /* with TLS resume: full handshakes made with no session at hand to offer */
} mb_count;

/* ab's timing columns, for the mb_result_timing_* functions (their int column). Values outside
 * an enum's range are accepted everywhere and read as empty: the functions take plain ints. */
typedef enum mb_timing {
    MB_TIMING_CONNECT = 0,    /* start -> connected; 0 on a reused connection */
    MB_TIMING_WAITING = 1,    /* request written -> first response byte */
    MB_TIMING_PROCESSING = 2, /* total - connect */
    MB_TIMING_TOTAL = 3,      /* start -> last byte (at a fixed rate: the service time) */
    MB_TIMING_RESPONSE = 4,   /* fixed rate: intended send time -> last byte */
    MB_TIMING_SCHEDULE_LAG = 5, /* fixed rate: intended send time -> actual send */
    MB_TIMING_TLS_HANDSHAKE = 6 /* over TLS, per handshake: TCP connected -> handshake done (within connect) */
} mb_timing;

/* How requests are spread over time at a fixed rate, for mb_plan_set_arrivals(). */
typedef enum mb_arrivals {
    MB_ARRIVALS_UNIFORM = 0, /* evenly spaced, 1/rate apart (the default) */
    MB_ARRIVALS_POISSON = 1  /* independent arrivals: exponential gaps averaging 1/rate, seeded */
} mb_arrivals;

/* How a run picks each request's target (mb_plan_set_order). */
typedef enum mb_order {
    MB_ORDER_IN_TURN = 0, /* worker w of T sends its k-th request to target (w + k*T) mod N (the default) */
    MB_ORDER_RANDOM = 1   /* each at random from the seed: the same seed, the same picks */
} mb_order;

/* What one target got (mb_plan_set_by_target): its counts, and its median and 99th percentile
 * total time within 10% (0 when none completed). Later versions only append fields: pass
 * sizeof(mb_target_row) to mb_result_target_row(). */
typedef struct mb_target_row {
    uint64_t index;  /* its place in the run's targets; the folded row: how many it stands for */
    uint64_t requests, completed, failed, unfinished, non_2xx;
    uint64_t wrong;  /* failed its checks (of `failed`) */
    int64_t p50_ns, p99_ns;
} mb_target_row;

/* One interval of a run (mb_plan_set_interval_ms): what was sent and ended in it, across all
 * workers. Response times are from the intended send time at a fixed rate, else the total time.
 * Later versions only append fields: pass sizeof(mb_interval) to mb_result_interval(). */
typedef struct mb_interval {
    int64_t start_ns;        /* from the run's start */
    int64_t duration_ns;     /* the last interval ends with the run */
    uint64_t sent, ended, completed, failed;  /* ended = completed + failed */
    double target_requests;  /* fixed rate: requests the schedule meant to send in it (a count) */
    double rate_per_s;       /* requests that ended in it, per second */
    int64_t p50_ns, p90_ns, p99_ns, max_ns;   /* response time of the completed requests */
    int64_t lag_p99_ns, lag_max_ns;           /* fixed rate: schedule lag */
    double target_per_s;     /* fixed rate: target_requests per second, to set beside rate_per_s */
} mb_interval;

/* One stage of a staged rate (mb_plan_add_stage), as the run went: its shape and what the requests
 * whose intended send time fell in it got. Later versions only append fields: pass
 * sizeof(mb_stage) to mb_result_stage(). */
typedef struct mb_stage {
    int64_t start_ms, duration_ms;  /* from the run's start */
    double from_per_s, to_per_s;    /* the rate at its start and at its end */
    double intended;                /* requests the schedule meant to send in it */
    uint64_t sent, completed, failed;  /* sent - completed - failed were unfinished */
    int64_t p50_ns, p99_ns;         /* response time from the intended time, within 10 %; -1: not known (none
                                       completed, or merged) */
} mb_stage;

/* HTTPS. Without a transport, https:// loads OpenSSL 3's libssl.so.3 when the first such run
 * starts (mb_plan_set_libssl or MICROBENCH_LIBSSL name another file): MB_RUN_TLS_UNAVAILABLE when
 * it cannot. A transport (mb_plan_set_transport) carries every connection instead — an embedder's
 * own TLS (mbedTLS, wolfSSL …) — whatever the URL's scheme. Its functions are called on the
 * worker threads, concurrently for different connections, never for one at once; besides byte
 * counts they return these statuses. */
enum {
    MB_IO_DONE = 0,          /* handshake: finished with a full handshake */
    MB_IO_RESUMED = 1,       /* handshake: finished by resuming an earlier session */
    MB_IO_NO_SESSION = 2,    /* handshake: finished in full, with no session at hand to offer */
    MB_IO_WANT_READ = -1,    /* would block until the socket is readable: call again then */
    MB_IO_WANT_WRITE = -2,   /* would block until the socket is writable (a write: again with the same bytes) */
    MB_IO_CLOSED = -3,       /* the peer ended the stream (with or without a close_notify) */
    MB_IO_FAILED = -4,       /* the TLS layer failed: a `tls` failure, described by why() */
    MB_IO_SOCKET_ERROR = -5  /* the socket failed; errno says why */
};

/* What a handshake negotiated, in the words of ab's report; "" and 0 where unknown. A
 * transport's session() fills it; the library ends each string at its last byte. */
typedef struct mb_tls_session {
    char protocol[16];     /* "TLSv1.3" */
    char cipher[64];       /* "TLS_AES_256_GCM_SHA384" */
    int server_key_bits;   /* the server certificate's public key */
    int secret_bits;       /* the cipher's secret key */
    char temp_key[96];     /* "X25519 253 bits" (ab's Server Temp Key) */
    char server_name[256]; /* the name sent in SNI; "" when none */
} mb_tls_session;

/* A transport: open() makes a connection's state over the connected, non-blocking socket `fd`
 * (the library owns and closes fd; server_name is the URL's host) or returns NULL; handshake()
 * until MB_IO_DONE, MB_IO_RESUMED or MB_IO_NO_SESSION; read() and write() move bytes (> 0) or return a status
 * (read() may come between a write() that said MB_IO_WANT_* and its retry, which brings the same
 * bytes); close() frees the state. Optional (NULL): after MB_IO_FAILED, why() writes why into buf
 * and returns its length (the library keeps up to cap - 1 bytes, no NUL needed; 0: its own words);
 * session() fills what the first handshake negotiated; pending() says whether the layer holds
 * bytes a read would return without the socket. Set size to sizeof(mb_transport): later
 * versions only append members. */
typedef struct mb_transport {
    size_t size;
    void* user;
    void* (*open)(void* user, int fd, const char* server_name);
    long (*handshake)(void* conn);
    long (*read)(void* conn, char* buf, size_t len);
    long (*write)(void* conn, const char* buf, size_t len);
    void (*close)(void* conn);
    size_t (*why)(void* conn, char* buf, size_t cap);
    void (*session)(void* conn, mb_tls_session* out);
    int (*pending)(void* conn);
} mb_transport;

typedef struct mb_plan mb_plan;
typedef struct mb_result mb_result;
typedef struct mb_suite mb_suite;
typedef struct mb_server mb_server;
typedef struct mb_cancel mb_cancel;
typedef struct mb_hlog mb_hlog;
typedef struct mb_capacity mb_capacity;

/* Called on a worker thread for every whole response; return nonzero to pass it, 0 to fail it
 * with MB_FAILURE_CHECK. Several worker threads may call it at once. */
typedef int (*mb_response_fn)(int status, uint64_t body_bytes, void* user);
/* Called on the thread that called mb_run(), never on a worker. target is 0 for a duration run.
 * mb_plan_on_progress: every every_ms (at least 0; 0, or more than 30 days: never) and each time
 * another every_requests ended (0: never). */
typedef void (*mb_progress_fn)(uint64_t ended, uint64_t target, int64_t elapsed_ns, void* user);
/* Called with each interval as it closes, on the thread that called mb_run(); `row` lives for the call. */
typedef void (*mb_interval_fn)(const mb_interval* row, void* user);
/* What a request callback is handed: room for the request, which one it is, and what the plan
 * would send to its target. */
typedef struct mb_request_call {
    char* data;              /* `capacity` bytes, kept until the request ends (a resend sends them again) */
    size_t capacity;
    uint64_t index;          /* unique in the run (in a shard): worker + k * threads for the worker's k-th */
    uint32_t worker;         /* the calling worker thread, 0 to threads - 1 */
    uint32_t target;         /* in: the target the order picked (0 without targets); out: the one the
                                request counts under in checks and by target, below their count */
    const char* prepared;    /* the request the plan would send to it: prepared_length bytes, no NUL */
    size_t prepared_length;
} mb_request_call;
/* Called on a worker thread before each request is sent; several may call it at once. Writes one
 * whole HTTP/1.x request into call->data and returns its length. 0: none, and that worker sends no
 * more (as at the end of a duration). A length above the capacity, or a target outside the
 * targets: none either, that worker sends no more, and MB_COUNT_REQUEST_FN_FAULTS counts it. */
typedef size_t (*mb_request_fn)(mb_request_call* call, void* user);

/* Version and statuses. */
MB_API const char* mb_version(void);           /* "0.1.0" */
MB_API int mb_version_number(void);            /* MB_VERSION_NUMBER of the library you linked */
MB_API const char* mb_status_name(int status); /* "url_bad_port"; "unknown" for other numbers */
MB_API const char* mb_status_message(int status);

/* Plans: what to send, how hard, for how long. Defaults as in ab: 1 request, 1 connection.
 * A setter given a value outside its knob's range returns that knob's MB_PLAN_ status (its
 * message gives the range) and leaves the plan as it was; a null handle or pointer is
 * MB_INVALID_ARGUMENT. What depends on several knobs is checked by mb_plan_validate and mb_run. */
MB_API int mb_plan_create(const char* url, mb_plan** out); /* checks the URL */
MB_API void mb_plan_destroy(mb_plan* plan);
MB_API int mb_plan_set_url(mb_plan* plan, const char* url);
MB_API int mb_plan_set_method(mb_plan* plan, const char* method);
MB_API int mb_plan_add_header(mb_plan* plan, const char* name, const char* value);
MB_API int mb_plan_set_body(mb_plan* plan, const void* data, size_t size, const char* content_type);
MB_API int mb_plan_set_requests(mb_plan* plan, uint64_t requests);        /* 0: until the duration ends */
MB_API int mb_plan_set_duration_ms(mb_plan* plan, int64_t duration_ms);   /* 0: no time limit; at most 30 days */
MB_API int mb_plan_set_concurrency(mb_plan* plan, uint32_t connections);
MB_API int mb_plan_set_threads(mb_plan* plan, uint32_t threads);
MB_API int mb_plan_set_keep_alive(mb_plan* plan, int on);                  /* default on */
MB_API int mb_plan_set_pipeline(mb_plan* plan, uint32_t depth);
MB_API int mb_plan_set_timeout_ms(mb_plan* plan, int64_t request_ms, int64_t connect_ms);
MB_API int mb_plan_set_drain_ms(mb_plan* plan, int64_t drain_ms);
MB_API int mb_plan_set_bind_address(mb_plan* plan, const char* address);
/* curl's --connect-to: "HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT" connects there when the URL names
 * HOST:PORT (the Host header, SNI and the certificate check still name HOST); each part may be
 * empty (any / the URL's), an IPv6 address in brackets; the first rule that matches applies.
 * MB_PLAN_BAD_CONNECT_TO for one that does not read; NULL removes every rule. */
MB_API int mb_plan_add_connect_to(mb_plan* plan, const char* rule);
/* curl's --unix-socket: every connection goes to the Unix socket at path (1 to 107 bytes) instead
 * of the URL's host and port; the URL still gives the Host header and the path. NULL or "" goes
 * back to TCP. MB_PLAN_BAD_UNIX_SOCKET for a path too long; mb_run refuses it beside a bind
 * address or connect-to rules. */
MB_API int mb_plan_set_unix_socket(mb_plan* plan, const char* path);
/* k6's stages at a fixed rate: each added stage ramps linearly, over duration_ms, from where the
 * last left the rate (from mb_plan_set_rate's, which may then be 0) to per_s; a stage with the
 * last one's rate holds. The run lasts their total: each stage added sets the duration to it (mb_run
 * refuses another set after) and, unless mb_plan_set_requests gave one, the request count to none
 * (a count given, before or after, caps the run).
 * MB_PLAN_BAD_STAGES for a duration outside 1 ms..30 days or a rate outside 0..10,000,000; mb_run
 * checks them together. mb_plan_clear_stages removes them all (the
 * duration they set stays). */
MB_API int mb_plan_add_stage(mb_plan* plan, int64_t duration_ms, double per_s);
MB_API int mb_plan_clear_stages(mb_plan* plan);
MB_API int mb_plan_set_length_check(mb_plan* plan, int on);                /* default on, as ab */
MB_API int mb_plan_set_raise_fd_limit(mb_plan* plan, int on);              /* default off */
MB_API int mb_plan_set_socket_buffer_bytes(mb_plan* plan, uint32_t bytes); /* ab -b; 0: the kernel's */
MB_API int mb_plan_set_resend_non_idempotent(mb_plan* plan, int on);       /* default off: docs/internals.md */
MB_API int mb_plan_set_rate(mb_plan* plan, double requests_per_second);  /* 0: closed loop (default); 0.001..10000000 */
MB_API int mb_plan_set_arrivals(mb_plan* plan, int arrivals, uint64_t seed);  /* an mb_arrivals; Poisson needs a rate */
/* At a fixed rate: a request may go up to `us` microseconds late (0..10000) when one wake of its
 * worker thread then sends it with the requests due after it; each is still timed from its own
 * intended time. -1 (default): 50. */
MB_API int mb_plan_set_max_batch_lag_us(mb_plan* plan, int64_t us);
MB_API int mb_plan_set_interval_ms(mb_plan* plan, int64_t interval_ms);   /* 10..3600000; 0: none; -1 (default):
                                                                             1000 at a fixed rate */
/* Keep each interval's histograms (default off): in mb_result_json, so merged results' intervals
 * get exact percentiles, and for mb_result_hlog. Intervals need mb_plan_set_interval_ms (or a rate). */
MB_API int mb_plan_set_interval_histograms(mb_plan* plan, int on);
/* Many generators, one plan: start at a wall-clock time (Unix ms; 0: at once), and make this plan
 * shard `index` (from 0) of `count` — its share of the requests, connections and rate, set
 * those first (MB_PLAN_BAD_SHARD when a shard would get no connection or no request). A start
 * more than 7 days ahead, like a bind address that is not this machine's, is refused when the run
 * starts (by mb_run or mb_find_capacity, not by the setter or mb_plan_validate). */
MB_API int mb_plan_set_start_at_unix_ms(mb_plan* plan, int64_t unix_ms);
MB_API int mb_plan_divide(mb_plan* plan, uint32_t index, uint32_t count);
MB_API int mb_plan_expect_status(mb_plan* plan, const int* codes, size_t count);
MB_API int mb_plan_check_body_equals(mb_plan* plan, const void* data, size_t size);
MB_API int mb_plan_check_body_starts_with(mb_plan* plan, const void* data, size_t size);
MB_API int mb_plan_check_body_contains(mb_plan* plan, const void* data, size_t size);
/* The body must match `regex`, a NUL-terminated POSIX extended regular expression (grep -E's,
 * byte by byte: found anywhere in the body unless anchored with ^ and $), and be at most 1 MiB;
 * matched in one pass by microbench's own automaton (docs/checks.md). MB_PLAN_BAD_REGEX when it is
 * empty, longer than 4,096 bytes, not ERE (a back-reference, \d), malformed, nested deeper than 64
 * groups or more than 1,000 steps with its counts written out: the plan keeps its earlier one, if
 * any, and why (when not NULL) gets the reason, cut to why_size bytes with its NUL; "" on success. */
MB_API int mb_plan_check_body_matches(mb_plan* plan, const char* regex, char* why, size_t why_size);
MB_API int mb_plan_check_factorial(mb_plan* plan, unsigned n);            /* body is exactly n! */
/* Targets (docs/targets.md): the requests go to them in turn, each a URL of the plan's origin with
 * its own method and body (NULL: the plan's); mb_plan_add_target checks the URL and the method,
 * at most 1,000,000 (MB_PLAN_BAD_TARGET). A vegeta targets file (its HTTP format or JSON lines)
 * replaces them; on a fault in it, its MB_TARGETS_* (or a URL's, a method's or a header's) status
 * with *line and *column (when not NULL) where it is; MB_PLAN_TARGETS_TOO_LARGE past 1 GiB with
 * its bodies; MB_TARGETS_UNREADABLE for a file that cannot be read. A target of another origin,
 * or whose request cannot be built, is refused by mb_run (MB_PLAN_BAD_TARGET and the others). With
 * ranges on, {A..B} and {a,b,c} in the plan's URL stand for its targets instead. */
MB_API int mb_plan_add_target(mb_plan* plan, const char* url, const char* method, const void* body, size_t size);
MB_API int mb_plan_set_targets_file(mb_plan* plan, const char* path, size_t* line, size_t* column);
MB_API int mb_plan_set_url_ranges(mb_plan* plan, int on);                  /* default off */
/* An mb_order. `seed` is the plan's one seed, which mb_plan_set_arrivals sets too: the later call's
 * seed is the one both the order and Poisson arrivals use. */
MB_API int mb_plan_set_order(mb_plan* plan, int order, uint64_t seed);
/* Each target once: the count is theirs (no duration: mb_run says MB_PLAN_EACH_ONCE_DURATION). */
MB_API int mb_plan_set_each_once(mb_plan* plan, int on);
MB_API int mb_plan_set_by_target(mb_plan* plan, int on);  /* what each target got, in the result */
MB_API int mb_plan_check_factorial_of_each_target(mb_plan* plan);  /* body is n! of the target's own n */
MB_API int mb_plan_on_response(mb_plan* plan, mb_response_fn fn, void* user);
/* Each request written by fn (NULL: the plan's own again) into `capacity` bytes kept for each
 * request in flight (0: 4096; 16 to 1 MiB, else MB_PLAN_BAD_REQUEST_CAPACITY, as from mb_run when
 * concurrency x pipeline x capacity passes 1 GiB). The URL still says where to connect; ab's length
 * rule is off; the method written decides a HEAD's body and whether a request may go again. */
MB_API int mb_plan_set_request_fn(mb_plan* plan, mb_request_fn fn, void* user, size_t capacity);
MB_API int mb_plan_on_progress(mb_plan* plan, mb_progress_fn fn, void* user, int64_t every_ms, uint64_t every_requests);
MB_API int mb_plan_on_interval(mb_plan* plan, mb_interval_fn fn, void* user);
MB_API int mb_plan_set_cancel(mb_plan* plan, mb_cancel* cancel);           /* must outlive the runs */
/* TLS for https:// (ab's -f, -Z, -E, -I): version 0 (any), 0x0301..0x0304 (0x0304 is TLS 1.3);
 * ciphers and certificate_file (PEM with the client's chain and key) NULL or "" for none;
 * server_name 0 sends no SNI. verify: check the certificate and its name (off by default, as
 * ab), trusting ca_file (NULL: the system's). resume: each thread keeps the sessions servers send
 * it (one per connection it runs, the newest kept) and offers the newest to each new connection,
 * a TLS 1.3 ticket once; MB_COUNT_TLS_NO_SESSION counts the full handshakes made when it had none. */
MB_API int mb_plan_set_tls(mb_plan* plan, int version, const char* ciphers, const char* certificate_file,
                           int server_name);
MB_API int mb_plan_set_tls_verify(mb_plan* plan, int on, const char* ca_file);
MB_API int mb_plan_set_tls_resume(mb_plan* plan, int on);
MB_API int mb_plan_set_libssl(mb_plan* plan, const char* path);            /* NULL or "": the default */
MB_API int mb_plan_set_transport(mb_plan* plan, const mb_transport* transport);  /* copied; NULL: none */
MB_API int mb_plan_validate(const mb_plan* plan);

/* Runs. MB_OK and a result whenever the run started: what happened to requests is counted in
 * it. Another status (and *out NULL) when it could not start. */
MB_API int mb_run(const mb_plan* plan, mb_result** out);
MB_API void mb_result_destroy(mb_result* result);
MB_API uint64_t mb_result_count(const mb_result* result, int which);      /* an mb_count */
MB_API uint64_t mb_result_failures(const mb_result* result, int reason);  /* an mb_failure */
MB_API uint64_t mb_result_status_count(const mb_result* result, int status);  /* 100..999 */
MB_API int mb_result_cancelled(const mb_result* result);
MB_API int64_t mb_result_elapsed_ns(const mb_result* result);
MB_API double mb_result_requests_per_second(const mb_result* result);
MB_API double mb_result_goodput_per_second(const mb_result* result);      /* completed requests/s */
MB_API const char* mb_result_server_software(const mb_result* result);    /* owned by the result */
/* With a connect-to rule that matched: "host:port" it connected to ("[::1]:8443"); else "". Owned
 * by the result. */
MB_API const char* mb_result_connected_to(const mb_result* result);
/* Over TLS: what the first handshake negotiated (MB_INVALID_ARGUMENT when no handshake finished,
 * or the transport has no session() or left its protocol empty; pass sizeof(mb_tls_session)),
 * and the first distinct reasons of `tls` failures. */
MB_API int mb_result_tls_session(const mb_result* result, mb_tls_session* out, size_t size);
MB_API size_t mb_result_tls_failure_reason_count(const mb_result* result);
MB_API const char* mb_result_tls_failure_reason(const mb_result* result, size_t index);  /* owned by the result;
                                                                                            "" past the end */
/* Per target (mb_plan_set_by_target, or the factorial check of each target's n): the run's
 * targets, the rows kept (the worst first, at most 1,000), row `row` into *out (row == the count
 * of rows: the rest folded into one) and its request target ("" past them); and the factorial
 * verdict ("right for n = 0..20; wrong from n = 21 (status 200, answer ...)"; "" without one). */
MB_API uint64_t mb_result_target_count(const mb_result* result);
MB_API size_t mb_result_target_row_count(const mb_result* result);
MB_API int mb_result_target_row(const mb_result* result, size_t row, mb_target_row* out, size_t size);
MB_API const char* mb_result_target_name(const mb_result* result, size_t row);  /* owned by the result */
MB_API size_t mb_result_factorial_verdict(const mb_result* result, char* buf, size_t size);
MB_API size_t mb_result_stage_count(const mb_result* result);
/* Copies stage `index` into *out (its first `size` bytes: pass sizeof(mb_stage)). */
MB_API int mb_result_stage(const mb_result* result, size_t index, mb_stage* out, size_t size);
MB_API size_t mb_result_interval_count(const mb_result* result);
/* Copies interval `index` into *out (its first `size` bytes: pass sizeof(mb_interval)). */
MB_API int mb_result_interval(const mb_result* result, size_t index, mb_interval* out, size_t size);
MB_API uint64_t mb_result_timing_count(const mb_result* result, int column);
MB_API int64_t mb_result_timing_percentile_ns(const mb_result* result, int column, double percentile);
MB_API int64_t mb_result_timing_min_ns(const mb_result* result, int column);  /* exact */
MB_API int64_t mb_result_timing_max_ns(const mb_result* result, int column);  /* exact */
MB_API double mb_result_timing_mean_ns(const mb_result* result, int column);  /* exact */
MB_API double mb_result_timing_stddev_ns(const mb_result* result, int column);
/* Text, snprintf-style (see the conventions above). percentiles: NULL for the defaults; values
 * outside 0..100 (NaN too) are left out, and none left gives the defaults. */
MB_API size_t mb_result_report_ab(const mb_result* result, char* buf, size_t size);
MB_API size_t mb_result_report_latency(const mb_result* result, const double* percentiles, size_t count, char* buf,
                                       size_t size);
MB_API size_t mb_result_json(const mb_result* result, const double* percentiles, size_t count, char* buf, size_t size);
/* One timing column's percentile spectrum as HdrHistogram's .hgrm text in ms (what
 * hdr_percentiles_print(h, f, 5, 1e6, CLASSIC) prints; wrk2's distribution), for HdrHistogram's
 * plotter. `column` an mb_timing; 0 (and "" in a buffer) for a bad one. */
MB_API size_t mb_result_hgrm(const mb_result* result, int column, char* buf, size_t size);
/* The run's intervals as HdrHistogram's interval log, format version 1.3 (what its log processor,
 * plotter and libraries read): a row per interval and metric — Tag=total in a closed loop;
 * Tag=response, Tag=service, Tag=schedule_lag at a fixed rate — each histogram in nanoseconds in
 * HdrHistogram's compressed V2 encoding. Needs mb_plan_set_interval_histograms: 0 (and "" in a
 * buffer) when the run kept none. Text, snprintf-style. */
MB_API size_t mb_result_hlog(const mb_result* result, char* buf, size_t size);
/* The capacity search: the highest fixed rate the plan's server holds with its response-time p99
 * (from each request's intended send time) within max_p99_ms. Each step runs the plan — its URL,
 * connections, threads, keep-alive, checks, cancel; not its count, duration or rate — at one rate
 * for warmup_ms, then for a window of step_ms (longer when min_responses would not fit); a step
 * holds when its window's p99, failure ratio and achieved rate are within the objective. The rate
 * doubles from start_rate while steps hold, then the gap between the highest held and the lowest
 * failed rate is halved until it is within `resolution`; while no step has held it halves, down
 * to a sixteenth of start_rate, and a step in which nothing completed ends the search
 * (MB_CAPACITY_NO_RESPONSE; MB_CAPACITY_NO_CONNECTION when no request of it got a connection and
 * the generator lacked nothing); any other failed step is run once more at its rate before it
 * counts (mb_capacity_step.retry). A window grows to fit min_responses, up to a minute (or
 * step_ms). mb_capacity_objective_init sets the defaults (and size); later versions only append
 * fields. on_step (may be NULL) is called after each step on the calling thread; the plan's own
 * progress, response and interval callbacks are called during every step as in a run (a step's
 * rows are as long as its warm-up, or its window without one). MB_PLAN_BAD_CAPACITY_SEARCH: an
 * objective out of range. */
enum {
    MB_CAPACITY_HELD = 0, MB_CAPACITY_LATENCY = 1, MB_CAPACITY_FAILURES = 2, MB_CAPACITY_RATE = 3,
    MB_CAPACITY_NO_RESPONSE = 4, MB_CAPACITY_NO_CONNECTION = 5  /* later versions may add verdicts: any but
                                                                   HELD failed */
};
typedef struct mb_capacity_step {
    double target_rate, achieved_rate; /* requests/s asked for; ended in the window per second */
    int64_t window_ns;
    uint64_t completed, failed;        /* ended in the window */
    int64_t p50_ns, p99_ns, p999_ns, max_ns, lag_p99_ns;  /* response time; schedule lag */
    uint64_t connection_waits, schedule_missed;           /* in the whole step */
    int verdict;                       /* MB_CAPACITY_HELD or why it did not hold */
    int generator_suspect;             /* failed, and the generator may be why (its lag, too few connections) */
    int retry;                         /* a second try at the rate of the step before it, which failed */
} mb_capacity_step;                    /* later versions only append fields: pass sizeof(mb_capacity_step) */
typedef void (*mb_capacity_step_fn)(const mb_capacity_step* step, void* user);
typedef struct mb_capacity_objective {
    size_t size;
    double max_p99_ms;          /* required: above 0 */
    double max_failure_ratio;   /* 0.01 */
    double min_rate_ratio;      /* 0.95: achieved against target */
    double start_rate;          /* 100 */
    double max_rate;            /* 1,000,000 */
    double resolution;          /* 0.05 */
    int64_t warmup_ms;          /* 1000 */
    int64_t step_ms;            /* 5000 */
    uint64_t min_responses;     /* 1000 */
    int64_t cooldown_ms;        /* 500 */
    uint32_t max_steps;         /* 30 */
    mb_capacity_step_fn on_step;
    void* on_step_user;
} mb_capacity_objective;
#define MB_CAPACITY_AT_MAX_RATE 1         /* the step at max_rate held */
#define MB_CAPACITY_GENERATOR_LIMITED 2   /* the lowest failed step was suspect: the rate is a lower bound */
#define MB_CAPACITY_CANCELLED 4
MB_API void mb_capacity_objective_init(mb_capacity_objective* objective);
MB_API int mb_find_capacity(const mb_plan* plan, const mb_capacity_objective* objective, mb_capacity** out);
MB_API void mb_capacity_destroy(mb_capacity* capacity);
MB_API double mb_capacity_rate(const mb_capacity* capacity);  /* the highest rate held; 0: none held */
MB_API int mb_capacity_flags(const mb_capacity* capacity);    /* MB_CAPACITY_AT_MAX_RATE | ... */
/* MB_OK when the search ended by itself; else the status of the step that could not start (a host
 * that stopped resolving...), which ended it after the steps before it: those stand, and the rate
 * is theirs. (A first step that cannot start is mb_find_capacity's own status, with no result.) */
MB_API int mb_capacity_stopped(const mb_capacity* capacity);
MB_API size_t mb_capacity_step_count(const mb_capacity* capacity);
MB_API int mb_capacity_step_info(const mb_capacity* capacity, size_t index, mb_capacity_step* out, size_t size);
/* The objective, every step and the rate found, as a text table (with a word when the generator may
 * have been the limit) and as JSON {"microbench":…,"capacity_search":{…}}; snprintf-style. */
MB_API size_t mb_capacity_table(const mb_capacity* capacity, char* buf, size_t size);
MB_API size_t mb_capacity_json(const mb_capacity* capacity, char* buf, size_t size);
/* As one self-contained HTML page (title NULL: "microbench capacity search"): p99 and p50 by target
 * rate with the objective, then the table; snprintf-style. */
MB_API size_t mb_capacity_report_html(const mb_capacity* capacity, const char* title, char* buf, size_t size);

/* HdrHistogram interval logs read back — microbench's (mb_result_hlog, --hlog) or another
 * HdrHistogram writer's (format 1.3, V2 histograms, deflated or stored; read in tests from
 * HdrHistogram.NET's UTF-16 logs and hdr-histogram-js's) — every row of every log
 * added to an mb_hlog, merged exactly per tag: several generators' logs give the fleet's figures.
 * Values are in the logs' unit: nanoseconds in microbench's. mb_hlog_add returns MB_OK or
 * MB_HLOG_BAD (mb_hlog_message says the line and why; the rows before it stay added) — also for a
 * row whose histogram, or the tags' totals, would need more counter memory than the limit
 * (mb_hlog_set_max_memory: 128 MiB unless set; counters are mapped lazily, so this bounds address
 * space more than memory touched). Tags are
 * numbered 0..mb_hlog_tag_count - 1 in the order they first appear; untagged rows have tag "". */
typedef struct mb_hlog_tag {
    const char* tag;          /* owned by the mb_hlog, valid as long as it */
    uint64_t intervals;       /* rows read */
    uint64_t count;           /* values in them */
    double start_s, end_s;    /* the earliest row's start and latest row's end, seconds (since the epoch
                                 when the log says) */
    int64_t min, max;         /* as the histograms' buckets give them */
    double mean, stddev;      /* over each bucket's middle value, as HdrHistogram computes them */
} mb_hlog_tag;                /* later versions only append fields: pass sizeof(mb_hlog_tag) */
MB_API int mb_hlog_create(mb_hlog** out);
MB_API void mb_hlog_destroy(mb_hlog* hlog);
MB_API int mb_hlog_add(mb_hlog* hlog, const char* text, size_t size);
MB_API int mb_hlog_set_max_memory(mb_hlog* hlog, uint64_t bytes);  /* for the next mb_hlog_add; 0: invalid */
MB_API const char* mb_hlog_message(const mb_hlog* hlog);  /* "" after MB_OK; valid until the next mb_hlog_add */
MB_API size_t mb_hlog_tag_count(const mb_hlog* hlog);
MB_API int mb_hlog_tag_info(const mb_hlog* hlog, size_t index, mb_hlog_tag* out, size_t size);
MB_API int64_t mb_hlog_percentile(const mb_hlog* hlog, size_t index, double percentile);  /* 0 out of range */
/* One tag's percentile spectrum as .hgrm text, values divided by `scale` (1e6: ns to ms, as
 * mb_result_hgrm). Text, snprintf-style; "" for a bad index or a scale <= 0. */
MB_API size_t mb_hlog_hgrm(const mb_hlog* hlog, size_t index, double scale, char* buf, size_t size);

/* The HTML report (one self-contained file: inline SVG charts, no script or link) of `count`
 * results drawn together, results[i] labelled labels[i] (NULL: "A", "B", ... "Z", then "A"
 * again); title NULL: "microbench report". Text, snprintf-style: a report is tens of KB, so ask
 * for the size first. */
MB_API size_t mb_report_html(const mb_result* const* results, const char* const* labels, size_t count,
                             const char* title, char* buf, size_t size);
/* The same report drawn from saved results: documents[i] is what mb_result_json or the command
 * line's --json wrote (a run, a --compare, a --suite), labelled labels[i] (NULL: as the run was,
 * or the document's A and B). Returns MB_OK, MB_JSON_BAD, MB_JSON_TOO_DEEP,
 * MB_RESULT_NOT_MICROBENCH or MB_RESULT_BAD_FIELD (MB_INVALID_ARGUMENT for a NULL document); the
 * report is copied snprintf-style and *length (if not NULL) gets its size. */
MB_API int mb_report_html_json(const char* const* documents, const char* const* labels, size_t count, const char* title,
                               char* buf, size_t size, size_t* length);

/* The five-scenario suite against url (factorial_check: every body must be exactly n!), and the
 * self-test (the reference server on a free loopback port, the suite against both factorial
 * forms; *passed is 1 only if every request passed). scale multiplies the request counts. */
MB_API int mb_suite_run(const char* url, double scale, int factorial_check, mb_suite** out);
MB_API int mb_self_test(double scale, mb_suite** out, int* passed);
MB_API void mb_suite_destroy(mb_suite* suite);
MB_API size_t mb_suite_count(const mb_suite* suite);
/* The name and the result of scenario `index`, owned by the suite; NULL past the end. */
MB_API const char* mb_suite_scenario(const mb_suite* suite, size_t index);
MB_API const mb_result* mb_suite_result(const mb_suite* suite, size_t index);
MB_API size_t mb_suite_table(const mb_suite* suite, char* buf, size_t size);
/* The suite's HTML report: a section per scenario; runs against different URLs (the self-test's
 * two factorial forms) are labelled by their paths and drawn together; title NULL: "microbench
 * suite". */
MB_API size_t mb_suite_report_html(const mb_suite* suite, const char* title, char* buf, size_t size);

/* The reference server: /factorial/{n}, /factorial?n=N, /delay/{ms}, /echo, /status/{code}.
 * host: an address or name of this machine ("127.0.0.1", "::1"; "" for every interface): a name
 * that does not resolve is MB_PLAN_BAD_BIND_ADDRESS, one that cannot be bound MB_RUN_SYSTEM. port 0
 * picks a free one; threads 1..256. */
MB_API int mb_server_start(const char* host, uint16_t port, uint32_t threads, mb_server** out);
/* The reference server on the Unix socket at path (1 to 107 bytes): a stale socket file there (no
 * server accepts on it) is replaced; a live one, or another kind of file, is MB_RUN_SYSTEM; the
 * file is removed at stop. mb_server_port says 0. */
MB_API int mb_server_start_unix(const char* path, uint32_t threads, mb_server** out);
MB_API uint16_t mb_server_port(const mb_server* server);
MB_API uint64_t mb_server_requests(const mb_server* server);  /* answered so far */
MB_API void mb_server_stop(mb_server* server);                /* stops and destroys it */
/* What the reference server allows its clients (microbench-server's --header-timeout,
 * --idle-timeout, --max-connections): a request must be whole within header_timeout_ms of its
 * first byte (default 60000); a connection that reads and writes nothing for idle_timeout_ms is
 * closed (default 75000; not while /delay or /stall holds its answer); 0 in either: never. At
 * most max_connections at once (0, the default: the open-file limit less 64): past it the
 * connection quiet longest on the accepting thread is closed, or the new one when none is quiet.
 * mb_server_limits_init sets the defaults (and size); later versions only append members. */
typedef struct mb_server_limits {
    size_t size;
    int64_t header_timeout_ms;
    int64_t idle_timeout_ms;
    uint64_t max_connections;
} mb_server_limits;
MB_API void mb_server_limits_init(mb_server_limits* limits);
/* As mb_server_start, or with unix_path not NULL as mb_server_start_unix (host and port are then
 * unused), under these limits; limits NULL: the defaults. A timeout below 0 is MB_INVALID_ARGUMENT. */
MB_API int mb_server_start_limited(const char* host, uint16_t port, const char* unix_path, uint32_t threads,
                                   const mb_server_limits* limits, mb_server** out);
/* What the server counted so far, as its /stats says it: */
enum {
    MB_SERVER_REQUESTS = 0,         /* answered (/stats itself is not counted) */
    MB_SERVER_CONNECTIONS = 1,      /* accepted */
    MB_SERVER_OPEN = 2,             /* open now */
    MB_SERVER_BAD_REQUESTS = 3,     /* answered 400 and closed */
    MB_SERVER_HEADER_TIMEOUTS = 4,  /* closed: a request not whole within header_timeout_ms */
    MB_SERVER_IDLE_TIMEOUTS = 5,    /* closed: nothing read or written within idle_timeout_ms */
    MB_SERVER_EVICTED = 6,          /* closed at the cap to make room for a new one */
    MB_SERVER_REFUSED = 7,          /* new ones closed at the cap, none being quiet */
    MB_SERVER_LISTEN_PAUSES = 8     /* times a thread stopped accepting a moment: no descriptor or buffer */
};
MB_API uint64_t mb_server_count(const mb_server* server, int which);  /* 0 for an unknown `which` */

/* Cancelling a run from another thread. */
MB_API int mb_cancel_create(mb_cancel** out);
MB_API void mb_cancel_trigger(mb_cancel* cancel); /* lock-free: safe in a signal handler */
MB_API void mb_cancel_destroy(mb_cancel* cancel);

#ifdef __cplusplus
}
#endif

#endif /* MICROBENCH_H */
