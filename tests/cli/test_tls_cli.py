#!/usr/bin/env python3
"""Tests of `microbench` over https://, run by CTest:

    test_tls_cli.py MICROBENCH_BINARY [MBEDTLS_EXAMPLE]

Makes a test CA and certificates with `openssl`, starts nginx over TLS (and `openssl s_server
-www`, which closes without close_notify) on 127.0.0.1, and runs real ApacheBench and microbench
against the same server: ab's TLS report lines value for value, the handshake line and the JSON's
"tls", each TLS flag, the reasons of `tls` failures, the credentials warning, and exit 2 with the
remedy when libssl.so.3 cannot be loaded. With MBEDTLS_EXAMPLE (examples/c/mbedtls_transport.c),
an embedder's mbedTLS carries a run against the same nginx, with no OpenSSL loaded.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

MICROBENCH = MBEDTLS_EXAMPLE = None


def run(args, timeout=60, env=None):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, proc, seconds=5):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.02)
    return False


class SServer:
    """`openssl s_server -www` on a free port with the test's certificate and `extra` flags; stopped on exit."""

    def __init__(self, files, *extra):
        self.port = free_port()
        self.proc = subprocess.Popen(["openssl", "s_server", "-accept", f"127.0.0.1:{self.port}", "-cert", files.path("server.pem"),
                                      "-key", files.path("server.key"), *extra, "-www", "-quiet"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_for_port(self.port, self.proc):
            self.__exit__()
            raise RuntimeError("openssl s_server did not start")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()

    def url(self):
        return f"https://127.0.0.1:{self.port}/"


def field(report, name):
    """The value of an ab report line `name:   value`, or None."""
    m = re.search(r"^" + re.escape(name) + r":\s+(.*)$", report, re.M)
    return m.group(1).strip() if m else None


class TlsFiles:
    def __init__(self, folder):
        self.dir = folder

        def sh(*args):
            subprocess.run(args, cwd=folder, check=True, capture_output=True)

        with open(os.path.join(folder, "local.ext"), "w") as f:
            f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
        with open(os.path.join(folder, "other.ext"), "w") as f:
            f.write("subjectAltName=DNS:other.example\n")
        sh("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "30",
           "-subj", "/CN=microbench-test-ca")
        sh("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
        for out, ext in (("server.pem", "local.ext"), ("other.pem", "other.ext")):
            sh("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", out,
               "-days", "30", "-extfile", ext)

    def path(self, name):
        return os.path.join(self.dir, name)


class Nginx:
    def __init__(self, folder, files, cert="server.pem"):
        self.dir = folder
        self.port = free_port()
        conf = os.path.join(folder, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""daemon off; worker_processes 1; pid {folder}/nginx.pid; error_log {folder}/error.log warn;
events {{ worker_connections 1024; }}
http {{ access_log off; keepalive_requests 1000000;
  server {{ listen 127.0.0.1:{self.port} ssl; ssl_certificate {files.path(cert)}; ssl_certificate_key {files.path("server.key")};
    ssl_protocols TLSv1.2 TLSv1.3;
    location = /factorial/10 {{ default_type text/plain; return 200 "3628800"; }}
    location / {{ return 404; }} }} }}
""")
        self.proc = subprocess.Popen(["/usr/sbin/nginx", "-p", folder + "/", "-c", conf, "-e", folder + "/error.log"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_for_port(self.port, self.proc):
            raise RuntimeError("nginx over TLS did not start")

    def url(self, path="/factorial/10", host="127.0.0.1"):
        return f"https://{host}:{self.port}{path}"

    def stop(self):
        self.proc.send_signal(signal.SIGQUIT)
        self.proc.wait(timeout=10)


class Tls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="microbench-tls-cli-")
        cls.files = TlsFiles(cls.tmp)
        os.mkdir(os.path.join(cls.tmp, "nginx"))
        cls.nginx = Nginx(os.path.join(cls.tmp, "nginx"), cls.files)

    @classmethod
    def tearDownClass(cls):
        cls.nginx.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_ab_tls_lines_value_for_value(self):
        # The same negotiation for both: ab's default here differs by version, so -f names it.
        for protocol in ("TLS1.2", "TLS1.3"):
            for host in ("127.0.0.1", "localhost"):
                with self.subTest(protocol=protocol, host=host):
                    url = self.nginx.url(host=host)
                    ab = run(["ab", "-n", "20", "-c", "2", "-f", protocol, url])
                    mb = run([MICROBENCH, "-n", "20", "-c", "2", "-f", protocol, url])
                    self.assertEqual(ab.returncode, 0, ab.stderr)
                    self.assertEqual(mb.returncode, 0, mb.stderr)
                    for name in ("Server Software", "Server Hostname", "Server Port", "SSL/TLS Protocol", "Server Temp Key",
                                 "TLS Server Name", "Complete requests", "Failed requests"):
                        self.assertEqual(field(mb.stdout, name), field(ab.stdout, name), name)
                    self.assertIsNotNone(field(mb.stdout, "SSL/TLS Protocol"))
                    lines = [line for line in mb.stdout.splitlines() if line.strip()]
                    at = lines.index(next(line for line in lines if line.startswith("Server Port:")))
                    self.assertTrue(lines[at + 1].startswith("SSL/TLS Protocol:"))  # where ab prints it
                    self.assertRegex(mb.stdout, r"TLS handshakes: 20 \(0 resumed\), each in ms: min [\d.]+, median [\d.]+, "
                                                r"p99 [\d.]+, max [\d.]+ \(within ab's Connect\)")
        # TLS 1.0 is refused by nginx here (TLSv1.2 TLSv1.3 only): every handshake fails, counted as Connect.
        r = run([MICROBENCH, "-n", "4", "-f", "TLS1", self.nginx.url()])
        self.assertEqual(field(r.stdout, "Failed requests"), "4")
        self.assertIn("   (Connect: 4, Receive: 0, Length: 0, Exceptions: 0)", r.stdout)

    def test_json_carries_the_handshakes(self):
        out = os.path.join(self.tmp, "run.json")
        r = run([MICROBENCH, "-q", "-n", "40", "-c", "4", "--json", out, self.nginx.url(host="localhost")])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            doc = json.load(f)
        tls = doc["tls"]
        self.assertEqual(tls["handshakes"], 40)  # without -k, a connection per request, as ab
        self.assertEqual(tls["resumed"], 0)
        self.assertEqual(doc["failures"]["tls"], 0)
        self.assertEqual(tls["protocol"], "TLSv1.3")
        self.assertEqual(tls["server_name"], "localhost")
        self.assertEqual(tls["handshake_ns"]["count"], tls["handshakes"])

    def test_tls_resume_resumes_within_each_thread(self):
        out = os.path.join(self.tmp, "resume.json")
        r = run([MICROBENCH, "-n", "50", "-c", "1", "--tls-resume", "--json", out, self.nginx.url()])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            tls = json.load(f)["tls"]
        self.assertEqual((tls["handshakes"], tls["resumed"], tls["no_session"]), (50, 49, 1))
        self.assertIn("TLS handshakes: 50 (49 resumed, 1 with no session at hand), each in ms:", r.stdout)

    def test_verify_refusals_are_tls_failures_with_their_reason(self):
        folder = os.path.join(self.tmp, "other")
        os.mkdir(folder)
        other = Nginx(folder, self.files, cert="other.pem")
        try:
            r = run([MICROBENCH, "-n", "6", "-c", "2", "--cacert", self.files.path("ca.pem"), other.url(host="localhost")])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(field(r.stdout, "Failed requests"), "6")
            self.assertIn("   (Connect: 6, Receive: 0, Length: 0, Exceptions: 0)", r.stdout)
            self.assertIn("Failure reasons:        tls 6", r.stdout)
            self.assertIn("TLS failures: certificate verify failed: hostname mismatch", r.stdout)
            r = run([MICROBENCH, "-n", "6", "-c", "2", other.url(host="localhost")])  # without --verify it connects
            self.assertEqual(field(r.stdout, "Failed requests"), "0")
        finally:
            other.stop()

    def test_client_certificate_and_ciphers(self):
        bundle = self.files.path("client-none.pem")  # a file without a key: refused before the run
        shutil.copy(self.files.path("ca.pem"), bundle)
        r = run([MICROBENCH, "-n", "2", "-E", bundle, self.nginx.url()])
        self.assertEqual(r.returncode, 1)
        self.assertIn("-E was refused by the TLS library: not a PEM certificate chain with its matching private key", r.stderr)
        r = run([MICROBENCH, "-n", "2", "-Z", "NO-SUCH-CIPHER", self.nginx.url()])
        self.assertEqual(r.returncode, 1)
        self.assertIn("-Z was refused by the TLS library: no cipher it knows", r.stderr)
        r = run([MICROBENCH, "-n", "2", "--cacert", self.files.path("local.ext"), self.nginx.url()])
        self.assertEqual(r.returncode, 1)
        self.assertIn("--cacert was refused by the TLS library", r.stderr)
        r = run([MICROBENCH, "-n", "4", "-f", "TLS1.2", "-Z", "ECDHE-RSA-AES128-GCM-SHA256", self.nginx.url()])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(field(r.stdout, "SSL/TLS Protocol"), "TLSv1.2,ECDHE-RSA-AES128-GCM-SHA256,2048,128")

    def test_credentials_over_an_unverified_connection_warn_once(self):
        r = run([MICROBENCH, "-n", "2", "-A", "user:pass", "-C", "a=b", self.nginx.url()])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.count("warning:"), 1, r.stderr)
        self.assertIn("Authorization is sent over TLS without --verify", r.stderr)
        r = run([MICROBENCH, "-n", "2", "-A", "user:pass", "--cacert", self.files.path("ca.pem"), self.nginx.url()])
        self.assertNotIn("warning:", r.stderr)

    def test_a_server_that_closes_without_close_notify(self):
        with SServer(self.files) as server:
            r = run([MICROBENCH, "-n", "20", "-c", "1", "-l", server.url()])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(field(r.stdout, "Complete requests"), "20")
            self.assertEqual(field(r.stdout, "Failed requests"), "0")

    def test_an_embedders_mbedtls_through_the_transport(self):
        if MBEDTLS_EXAMPLE and MBEDTLS_EXAMPLE.startswith("skip:"):  # the build said why it left the example out
            self.skipTest(MBEDTLS_EXAMPLE[len("skip:"):])
        if not MBEDTLS_EXAMPLE:  # built wherever libmbedtls-dev is installed, as CI installs it
            self.assertFalse(os.path.exists("/usr/include/mbedtls/ssl.h"), "libmbedtls-dev is installed but the example was not built")
            self.skipTest("libmbedtls-dev is not installed")
        url = self.nginx.url(host="localhost")  # mbedTLS 2.28 matches names, not IP addresses
        r = run([MBEDTLS_EXAMPLE, url, "300", "5", self.files.path("ca.pem")])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(field(r.stdout, "Complete requests"), "300")
        self.assertEqual(field(r.stdout, "Failed requests"), "0")
        self.assertRegex(field(r.stdout, "SSL/TLS Protocol"), r"^TLSv1\.2,TLS-ECDHE-RSA-WITH-[A-Z0-9-]+,0,0$")  # mbedTLS names its suites
        self.assertIn("libssl loaded: no", r.stdout)
        folder = os.path.join(self.tmp, "mbedtls-other")
        os.mkdir(folder)
        other = Nginx(folder, self.files, cert="other.pem")
        try:  # the wrong name, checked by mbedTLS: `tls` failures with its words
            r = run([MBEDTLS_EXAMPLE, other.url(host="localhost"), "4", "2", self.files.path("ca.pem")])
            self.assertEqual(r.returncode, 1)
            self.assertEqual(field(r.stdout, "Failed requests"), "4")
            self.assertIn("TLS failure: X509 - Certificate verification failed", r.stdout)
        finally:
            other.stop()

    def test_tls_1_0_where_a_server_still_speaks_it(self):
        # OpenSSL 3 speaks TLS 1.0 only at security level 0, which -f TLS1 asks for.
        with SServer(self.files, "-tls1", "-cipher", "DEFAULT@SECLEVEL=0") as server:
            r = run([MICROBENCH, "-n", "4", "-f", "TLS1", server.url()])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(field(r.stdout, "Failed requests"), "0")
            self.assertTrue(field(r.stdout, "SSL/TLS Protocol").startswith("TLSv1,"), r.stdout)

    def test_a_tls_alert_from_the_server(self):
        # openssl s_server asking for a client certificate that never comes: over TLS 1.2 its alert
        # ends the handshake (ab's Connect column); over TLS 1.3 the handshake is already done on
        # the client's side, and the alert comes with the first read (Receive).
        with SServer(self.files, "-Verify", "1", "-verify_return_error") as server:
            for protocol, columns, words in (("TLS1.2", "Connect: 5, Receive: 0", "alert handshake failure"),
                                             ("TLS1.3", "Connect: 0, Receive: 5", "alert certificate required")):
                with self.subTest(protocol=protocol):
                    r = run([MICROBENCH, "-n", "5", "-c", "1", "-f", protocol, server.url()])
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertEqual(field(r.stdout, "Failed requests"), "5")
                    self.assertIn(f"   ({columns}, Length: 0, Exceptions: 0)", r.stdout)
                    self.assertIn("Failure reasons:        tls 5", r.stdout)
                    self.assertRegex(r.stdout, r"TLS failures: .*" + words)

    def test_without_libssl_exit_2_with_the_remedy(self):
        # Missing; present without OpenSSL's functions; libcrypto, which has the first one looked up but
        # not the second (the loader names the one it missed).
        cases = {"/nonexistent/libssl.so.3": "cannot open shared object file", "libc.so.6": "libc.so.6 has no OpenSSL_version_num",
                 "libcrypto.so.3": "libcrypto.so.3 has no OPENSSL_init_ssl"}
        for library, why in cases.items():
            with self.subTest(library=library):
                env = dict(os.environ, MICROBENCH_LIBSSL=library)
                r = run([MICROBENCH, "-n", "2", self.nginx.url()], env=env)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn("libssl.so.3", r.stderr)
                self.assertIn("apt-get install libssl3", r.stderr)
                self.assertIn(why, r.stderr)
                self.assertEqual(r.stderr.count("\n"), 1, r.stderr)


if __name__ == "__main__":
    MICROBENCH = sys.argv.pop(1)
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        MBEDTLS_EXAMPLE = sys.argv.pop(1)
    unittest.main(verbosity=2)
