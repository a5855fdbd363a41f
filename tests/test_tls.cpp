// https:// through the built-in TLS (OpenSSL 3 loaded at run time) against real nginx with the
// certificates tests/tls/tls_files.hpp makes, and against scripted servers that break the
// handshake: exact counts, each failure with its reason, what the handshake negotiated.
// Under an emulator there is no libssl of the target's architecture: those runs check only
// that its absence is an error value.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

#include "microbench.hpp"
#include "nginx_process.hpp"
#include "run_helpers.hpp"
#include "scripted_server.hpp"
#include "tls/tls_files.hpp"

using namespace microbench;

namespace {

// Whether libssl.so.3 loads here; natively it must (CI installs it).
bool have_libssl() {
    if (detail::load_openssl("")) return true;
    REQUIRE_MESSAGE(emulated(), "libssl.so.3 did not load: apt-get install libssl3");
    MESSAGE("no libssl.so.3 for this architecture under the emulator: skipped");
    return false;
}

std::string https_url(std::uint16_t port, const char* path = "/factorial/10", const char* host = "127.0.0.1") {
    return std::string("https://") + host + ":" + std::to_string(port) + path;
}

// Reads the client's first TLS record (a ClientHello, whatever its size): its 5-byte header says
// how long it is. False if the connection ended first.
bool read_client_hello(scripted_server::context& c) {
    std::string got;
    char buf[4096];
    while (got.size() < 5 || got.size() < 5 + ((static_cast<std::size_t>(static_cast<unsigned char>(got[3])) << 8) |
                                               static_cast<unsigned char>(got[4]))) {
        ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR) && !c.stopping()) continue;
        if (n <= 0) return false;
        got.append(buf, static_cast<std::size_t>(n));
    }
    return true;
}

// nginx serving `cert`: the self-signed one has its own key, the others the server's.
nginx_process tls_nginx(const tls_files& f, const std::string& cert = "server.pem", const std::string& extra = "") {
    const char* key = cert == "self.pem" ? "self.key" : "server.key";
    return nginx_process("nginx_tls.conf.in", {{"CERT", f.path(cert.c_str())}, {"KEY", f.path(key)}, {"EXTRA", extra}});
}

}  // namespace

TEST_CASE("https against nginx: every request served once and counted once, in every mode") {
    if (!have_libssl()) return;
    tls_files f;
    nginx_process nginx = tls_nginx(f);
    struct mode {
        bool keep_alive;
        std::uint32_t c, t, pipeline;
        std::uint64_t n;
    };
    std::uint64_t expected = 0;
    for (mode m : {mode{true, 10, 1, 1, 2000}, mode{false, 10, 2, 1, 300}, mode{true, 4, 1, 8, 800}, mode{true, 20, 2, 1, 2000}}) {
        CAPTURE(m.keep_alive);
        CAPTURE(m.c);
        CAPTURE(m.pipeline);
        plan p;
        p.url(https_url(nginx.port)).requests(m.n).concurrency(m.c).threads(m.t).keep_alive(m.keep_alive).pipeline(m.pipeline);
        result r = run_ok(p);
        expected += m.n;
        CHECK(r.requests_completed == m.n);
        CHECK(r.requests_failed == 0);
        CHECK(r.body_bytes == 7 * m.n);
        CHECK(r.connects == (m.keep_alive ? m.c : m.n));
        CHECK(r.tls_handshakes == r.connects);
        CHECK(r.tls_resumed == 0);  // a full handshake per connection unless asked, as ab
        CHECK(r.tls_handshake_ns.count() == r.tls_handshakes);
        CHECK(nginx.served(expected) == expected);
    }
}

TEST_CASE("https: what the handshake negotiated, as ab reports it, and SNI only for a name") {
    if (!have_libssl()) return;
    tls_files f;
    nginx_process nginx = tls_nginx(f);
    plan p;
    p.url(https_url(nginx.port)).requests(4).concurrency(2);
    result r = run_ok(p);
    REQUIRE(r.tls_used);
    CHECK(std::string(r.tls.protocol) == "TLSv1.3");
    CHECK(std::string(r.tls.cipher) == "TLS_AES_256_GCM_SHA384");
    CHECK(r.tls.server_key_bits == 2048);
    CHECK(r.tls.secret_bits == 256);
    CHECK(std::string(r.tls.temp_key) == "X25519 253 bits");
    CHECK(std::string(r.tls.server_name).empty());  // an IP address is never sent in SNI

    p.url(https_url(nginx.port, "/factorial/10", "localhost"));
    r = run_ok(p);
    CHECK(r.requests_completed == 4);
    CHECK(std::string(r.tls.server_name) == "localhost");
    tls_options o;
    o.server_name = false;  // ab -I
    p.tls(o);
    r = run_ok(p);
    CHECK(std::string(r.tls.server_name).empty());

    o = tls_options();
    o.version = 0x0303;  // ab -f TLS1.2
    o.ciphers = "ECDHE-RSA-AES128-GCM-SHA256";
    p.tls(o);
    r = run_ok(p);
    CHECK(r.requests_completed == 4);
    CHECK(std::string(r.tls.protocol) == "TLSv1.2");
    CHECK(std::string(r.tls.cipher) == "ECDHE-RSA-AES128-GCM-SHA256");
    CHECK(r.tls.secret_bits == 128);
}

TEST_CASE("https: sessions are resumed within each worker only when asked") {
    if (!have_libssl()) return;
    tls_files f;
    nginx_process nginx = tls_nginx(f);
    for (std::uint16_t version : {0x0303, 0x0304}) {
        CAPTURE(version);
        tls_options o;
        o.version = version;
        o.resume = true;
        plan p;
        p.url(https_url(nginx.port)).requests(60).concurrency(2).threads(2).keep_alive(false).tls(o);
        result r = run_ok(p);
        CHECK(r.requests_completed == 60);
        CHECK(r.tls_handshakes == 60);
        CHECK(r.tls_resumed >= 58);  // each worker's first handshake is a full one
        CHECK(r.tls_resumed < 60);
    }
}

TEST_CASE("https --verify: the certificate and its name are checked, each refusal counted with its reason") {
    if (!have_libssl()) return;
    tls_files f;
    struct scenario {
        const char* cert;
        const char* host;
        bool trust_test_ca;
        const char* reason;  // "": it connects
    };
    const scenario scenarios[] = {
        {"server.pem", "127.0.0.1", true, ""},
        {"server.pem", "localhost", true, ""},
        {"other.pem", "localhost", true, "certificate verify failed: hostname mismatch"},
        {"other.pem", "127.0.0.1", true, "certificate verify failed: IP address mismatch"},
        {"expired.pem", "localhost", true, "certificate verify failed: certificate has expired"},
        {"self.pem", "localhost", false, "certificate verify failed: self-signed certificate"},
        {"server.pem", "localhost", false, "certificate verify failed: unable to get local issuer certificate"},
    };
    for (const scenario& s : scenarios) {
        CAPTURE(s.cert);
        CAPTURE(s.host);
        CAPTURE(s.trust_test_ca);
        nginx_process nginx = tls_nginx(f, s.cert);
        tls_options o;
        o.verify = true;
        if (s.trust_test_ca) o.ca_file = f.path("ca.pem");
        plan p;
        p.url(https_url(nginx.port, "/factorial/10", s.host)).requests(6).concurrency(2).keep_alive(false).tls(o);
        result r = run_ok(p);
        if (*s.reason == 0) {
            CHECK(r.requests_completed == 6);
        } else {
            CHECK(r.failed(failure::tls) == 6);
            CHECK(r.requests_failed == 6);
            REQUIRE(r.tls_failure_reasons.size() == 1);
            CHECK(r.tls_failure_reasons[0] == s.reason);
        }
        p.tls(tls_options());  // without --verify every one connects, as with ab
        r = run_ok(p);
        CHECK(r.requests_completed == 6);
    }
}

TEST_CASE("https --connect-to: a name that does not resolve, verified, with its SNI, reached at 127.0.0.1") {
    if (!have_libssl()) return;
    tls_files f;
    nginx_process nginx = tls_nginx(f, "other.pem");  // its certificate names other.example only
    tls_options o;
    o.verify = true;
    o.ca_file = f.path("ca.pem");
    plan p;
    p.url(https_url(nginx.port, "/factorial/10", "other.example")).requests(6).concurrency(2).keep_alive(false).tls(o);
    p.connect_to({"other.example:" + std::to_string(nginx.port) + ":127.0.0.1:"});  // the URL's port
    std::string host = "other.example";  // the rule takes it to 127.0.0.1: nothing asks a resolver
    std::uint16_t port = nginx.port;
    std::size_t bad = 0;
    REQUIRE(apply_connect_rules(p.connect_to(), host, port, bad));
    REQUIRE(host == "127.0.0.1");
    result r = run_ok(p);
    CHECK(r.requests_completed == 6);
    CHECK(r.tls_failure_reasons.empty());
    CHECK(std::string(r.tls.server_name) == "other.example");
    CHECK(r.connected_to == "127.0.0.1:" + std::to_string(nginx.port));
    // Reached by the address alone, the name check fails: it was the URL's name that passed.
    p.url(https_url(nginx.port)).connect_to({});
    r = run_ok(p);
    CHECK(r.failed(failure::tls) == 6);
    CHECK(r.connected_to.empty());
}

TEST_CASE("https -E: a client certificate where the server asks for one") {
    if (!have_libssl()) return;
    tls_files f;
    nginx_process nginx = tls_nginx(f, "server.pem", "ssl_verify_client on; ssl_client_certificate " + f.path("ca.pem") + ";");
    plan p;
    p.url(https_url(nginx.port)).requests(4).concurrency(1);
    result r = run_ok(p);
    CHECK(r.status_counts[400] == 4);  // nginx: "No required SSL certificate was sent"
    tls_options o;
    o.certificate_file = f.path("client.pem");
    p.tls(o);
    r = run_ok(p);
    CHECK(r.status_counts[200] == 4);
    o.certificate_file = f.path("ca.pem");  // a certificate without its key: refused before the run
    p.tls(o);
    CHECK(run(p, r).code == errc::run_tls_setup);
    o = tls_options();
    o.ciphers = "NO-SUCH-CIPHER";
    p.tls(o);
    CHECK(run(p, r).code == errc::run_tls_setup);
}

TEST_CASE("https against servers that break the handshake: `tls` failures with reasons, exact, no hang" *
          doctest::test_suite("timing")) {
    if (!have_libssl()) return;
    struct scenario {
        const char* name;
        scripted_server::script script;
        const char* reason;
    };
    const scenario scenarios[] = {
        {"plain HTTP on the TLS port",
         [](scripted_server::context& c) {
             if (read_client_hello(c)) c.send("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
         },
         "wrong version number"},
        {"garbage for a ServerHello",
         [](scripted_server::context& c) {
             if (read_client_hello(c)) c.send(std::string(64, '\x16'));
         },
         nullptr},
        {"a reset after the ClientHello",
         [](scripted_server::context& c) {
             if (read_client_hello(c)) c.reset();
         },
         "the connection was reset during the handshake"},
        {"a close after the ClientHello", [](scripted_server::context& c) { read_client_hello(c); },
         "the server closed the connection during the handshake"},
        {"no answer within the connect timeout",
         [](scripted_server::context& c) {
             while (!c.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
         },
         "the handshake did not finish within the connect timeout"},
    };
    for (const scenario& sc : scenarios) {
        CAPTURE(sc.name);
        scripted_server s(sc.script);
        plan p;
        p.url(https_url(s.port())).requests(6).concurrency(3).connect_timeout_ms(300);
        auto t0 = std::chrono::steady_clock::now();
        result r = run_ok(p);
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        CHECK(r.failed(failure::tls) == 6);
        CHECK(r.tls_handshake_failures == 6);  // in ab's Connect column
        CHECK(r.requests_failed == 6);
        CHECK(r.connects == 0);
        REQUIRE(r.tls_failure_reasons.size() == 1);
        if (sc.reason) CHECK(r.tls_failure_reasons[0] == sc.reason);
        CHECK(seconds < 3);
        CHECK(s.connections.load() == 6);
    }
}

TEST_CASE("https at a fixed rate over keep-alive: idle connections stay open, every request served once") {
    if (!have_libssl()) return;
    tls_files f;
    nginx_process nginx = tls_nginx(f);
    plan p;
    p.url(https_url(nginx.port)).rate(400).duration_ms(500).requests(0).concurrency(4).threads(2);
    result r = run_ok(p);
    CHECK(r.requests_failed == 0);
    CHECK(r.requests_completed + r.unfinished + r.schedule_missed >= 195);  // 200 scheduled in 0.5 s
    CHECK(r.requests_completed <= 200);
    CHECK(r.server_closes == 0);  // what an idle TLS connection hears (a session ticket) is not data
    CHECK(r.connects <= 4);
    CHECK(r.tls_handshakes == r.connects);
    CHECK(nginx.served(r.requests_completed) == r.requests_completed);
}
