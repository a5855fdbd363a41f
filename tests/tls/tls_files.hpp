// tests/tls/tls_files.hpp — the certificates the TLS tests need, made fresh by `openssl` in a
// temporary directory (no network, nothing kept): a test CA; server certificates it signs for
// localhost and 127.0.0.1, for another name, and one already expired; a self-signed one; and a
// client certificate with its key in one PEM (ab -E's form).
#pragma once

#include <doctest/doctest.h>

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

struct tls_files {
    std::string dir;

    tls_files() {
        char tmpl[] = "/tmp/microbench-tls-XXXXXX";
        REQUIRE(mkdtemp(tmpl) != nullptr);
        dir = tmpl;
        std::ofstream(dir + "/local.ext") << "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n";
        std::ofstream(dir + "/other.ext") << "subjectAltName=DNS:other.example\n";
        const std::string d = "cd '" + dir + "' && ";
        const char* quiet = " >/dev/null 2>&1";
        auto sh = [&](const std::string& cmd) { REQUIRE_MESSAGE(std::system((d + cmd + quiet).c_str()) == 0, cmd); };
        sh("openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 30 -subj /CN=microbench-test-ca");
        sh("openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=localhost");
        auto sign = [&](const char* out, const char* ext, const char* days) {
            sh(std::string("openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out ") + out +
               " -days " + days + " -extfile " + ext);
        };
        sign("server.pem", "local.ext", "30");
        sign("other.pem", "other.ext", "30");
        sign("expired.pem", "local.ext", "-1");
        sh("openssl req -x509 -newkey rsa:2048 -nodes -keyout self.key -out self.pem -days 30 -subj /CN=localhost "
           "-addext subjectAltName=DNS:localhost,IP:127.0.0.1");
        sh("openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr -subj /CN=microbench-client");
        sh("openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.crt -days 30");
        std::ofstream(dir + "/client.pem") << std::ifstream(dir + "/client.crt").rdbuf() << std::ifstream(dir + "/client.key").rdbuf();
    }
    ~tls_files() {
        std::string cmd = "rm -rf '" + dir + "'";
        if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", dir.c_str());
    }
    std::string path(const char* name) const { return dir + "/" + name; }
};
