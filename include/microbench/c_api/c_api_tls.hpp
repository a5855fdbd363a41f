// microbench/c_api/c_api_tls.hpp — the C API's https:// functions: the built-in TLS's options (ab's
// -f, -Z, -E, -I, verification, resumption, which libssl) and a transport of the embedder's own,
// and what a result says of TLS. Compiled only where MICROBENCH_C_IMPLEMENTATION is defined,
// after c_api.hpp.
#pragma once

#ifdef MICROBENCH_C_IMPLEMENTATION

#include <cstddef>
#include <cstring>

#include "c_api.hpp"

// mb_tls_session is microbench::tls_session member for member, and MB_IO_* are the transport
// statuses: a C transport's functions are the engine's.
static_assert(sizeof(mb_tls_session) == sizeof(microbench::tls_session) &&
                  offsetof(mb_tls_session, secret_bits) == offsetof(microbench::tls_session, secret_bits) &&
                  offsetof(mb_tls_session, temp_key) == offsetof(microbench::tls_session, temp_key) &&
                  offsetof(mb_tls_session, server_name) == offsetof(microbench::tls_session, server_name),
              "mb_tls_session must be laid out as microbench::tls_session");
static_assert(static_cast<long>(MB_IO_WANT_READ) == microbench::transport_want_read &&
                  static_cast<long>(MB_IO_RESUMED) == microbench::transport_resumed &&
                  static_cast<long>(MB_IO_NO_SESSION) == microbench::transport_no_session &&
                  static_cast<long>(MB_IO_FAILED) == microbench::transport_failed &&
                  static_cast<long>(MB_IO_SOCKET_ERROR) == microbench::transport_socket_error,
              "MB_IO_* must be microbench::transport_status");

extern "C" {

MB_API int mb_plan_set_tls(mb_plan* plan, int version, const char* ciphers, const char* certificate_file,
                           int server_name) {
    if (!plan) return microbench::detail::invalid;
    MICROBENCH_C_TRY
    microbench::tls_options o = plan->p.tls(), old = o;
    o.version = version < 0 || version > 0xffff ? 1 : static_cast<std::uint16_t>(version);  // 1: out of range
    o.ciphers = ciphers ? ciphers : "";
    o.certificate_file = certificate_file ? certificate_file : "";
    o.server_name = server_name != 0;
    // As MICROBENCH_C_SET_RANGED: refused only for a fault this call brings.
    const microbench::error was = plan->p.check_ranges();
    plan->p.tls(o);
    if (microbench::error e = plan->p.check_ranges(); e && e != was) {
        plan->p.tls(old);
        return microbench::detail::status_of(e);
    }
    return MB_OK;
    MICROBENCH_C_CATCH(microbench::detail::no_memory)
}
MB_API int mb_plan_set_tls_verify(mb_plan* plan, int on, const char* ca_file) {
    MICROBENCH_C_SET(plan, true, {
        microbench::tls_options o = plan->p.tls();
        o.verify = on != 0;
        o.ca_file = ca_file ? ca_file : "";
        plan->p.tls(o);
    })
}
MB_API int mb_plan_set_tls_resume(mb_plan* plan, int on) {
    MICROBENCH_C_SET(plan, true, {
        microbench::tls_options o = plan->p.tls();
        o.resume = on != 0;
        plan->p.tls(o);
    })
}
MB_API int mb_plan_set_libssl(mb_plan* plan, const char* path) {
    MICROBENCH_C_SET(plan, true, {
        microbench::tls_options o = plan->p.tls();
        o.libssl = path ? path : "";
        plan->p.tls(o);
    })
}
MB_API int mb_plan_set_transport(mb_plan* plan, const mb_transport* transport) {
    microbench::transport t;  // none
    // The table's first version ends with pending(); later versions only append members.
    constexpr std::size_t first_version = offsetof(mb_transport, pending) + sizeof(transport->pending);
    if (transport && transport->size < first_version) return microbench::detail::invalid;
    if (transport) {
        t.user = transport->user;
        t.open = transport->open;
        t.handshake = transport->handshake;
        t.read = transport->read;
        t.write = transport->write;
        t.close = transport->close;
        t.why = transport->why;
        // The two session structs are one layout (asserted above): the function fills either.
        t.session = reinterpret_cast<void (*)(void*, microbench::tls_session*)>(transport->session);
        t.pending = transport->pending;
    }
    if (plan && transport && !t.complete()) return MB_PLAN_BAD_TRANSPORT;
    MICROBENCH_C_SET(plan, true, plan->p.transport(t))
}

MB_API int mb_result_tls_session(const mb_result* result, mb_tls_session* out, size_t size) {
    if (!result || !out || !result->r.tls_used) return MB_INVALID_ARGUMENT;
    std::memcpy(out, &result->r.tls, size < sizeof result->r.tls ? size : sizeof result->r.tls);
    return MB_OK;
}
MB_API size_t mb_result_tls_failure_reason_count(const mb_result* result) {
    return result ? result->r.tls_failure_reasons.size() : 0;
}
MB_API const char* mb_result_tls_failure_reason(const mb_result* result, size_t index) {
    return result && index < result->r.tls_failure_reasons.size() ? result->r.tls_failure_reasons[index].c_str() : "";
}

}  // extern "C"

#endif  // MICROBENCH_C_IMPLEMENTATION
