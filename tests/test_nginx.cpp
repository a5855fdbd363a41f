// Integration tests against real nginx (Debian's nginx-light), started here on a free
// 127.0.0.1 port with tests/nginx/nginx.conf.in; nginx's access log is the server-side count.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "microbench.hpp"

namespace {

std::uint16_t free_port() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    close(fd);
    return ntohs(a.sin_port);
}

bool can_connect(std::uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(fd);
    return ok;
}

std::string read_all(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// nginx in the foreground as our child; stopped (SIGQUIT, then waited for) on destruction.
struct nginx_process {
    std::string dir;
    std::uint16_t port = 0;
    pid_t pid = -1;

    nginx_process() {
        REQUIRE_MESSAGE(access("/usr/sbin/nginx", X_OK) == 0, "nginx is missing: apt-get install nginx-light");
        char tmpl[] = "/tmp/microbench-nginx-XXXXXX";
        REQUIRE(mkdtemp(tmpl) != nullptr);
        dir = tmpl;
        std::string conf = read_all(MICROBENCH_TESTS_DIR "/nginx/nginx.conf.in");
        REQUIRE_FALSE(conf.empty());
        for (int attempt = 0; attempt < 5 && pid < 0; ++attempt) {
            port = free_port();
            std::string text = conf;
            for (std::size_t at; (at = text.find("@DIR@")) != std::string::npos;) text.replace(at, 5, dir);
            for (std::size_t at; (at = text.find("@PORT@")) != std::string::npos;) text.replace(at, 6, std::to_string(port));
            std::ofstream(dir + "/nginx.conf") << text;
            pid_t child = fork();
            REQUIRE(child >= 0);
            if (child == 0) {
                execl("/usr/sbin/nginx", "nginx", "-p", (dir + "/").c_str(), "-c", (dir + "/nginx.conf").c_str(),
                      "-e", (dir + "/error.log").c_str(), static_cast<char*>(nullptr));
                _exit(127);
            }
            for (int i = 0; i < 250; ++i) {  // up to 5 s
                int status;
                if (waitpid(child, &status, WNOHANG) == child) break;  // it failed: port taken?
                if (can_connect(port)) {
                    pid = child;
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        }
        REQUIRE_MESSAGE(pid > 0, "nginx did not start: " << read_all(dir + "/error.log"));
    }
    ~nginx_process() {
        if (pid > 0) {
            kill(pid, SIGQUIT);
            int status;
            waitpid(pid, &status, 0);
        }
        std::string cmd = "rm -rf '" + dir + "'";
        if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", dir.c_str());
    }
    // Requests in nginx's access log. nginx logs a request after sending its response, so the
    // last lines may land just after the client has finished: wait up to 2 s for `expected`.
    std::uint64_t served(std::uint64_t expected) const {
        std::uint64_t lines = 0;
        for (int i = 0; i < 100; ++i) {
            std::string log = read_all(dir + "/access.log");
            lines = 0;
            for (char c : log) lines += c == '\n';
            if (lines >= expected) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return lines;
    }
    std::string url(const char* path) const { return "http://127.0.0.1:" + std::to_string(port) + path; }
};

}  // namespace

TEST_CASE("nginx: every request is served once and counted once") {
    nginx_process nginx;
    struct mode {
        bool keep_alive;
        std::uint32_t c, t, pipeline;
        std::uint64_t n;
    };
    std::uint64_t expected = 0;
    for (mode m : {mode{true, 10, 1, 1, 5000}, mode{true, 100, 2, 1, 5000}, mode{false, 10, 2, 1, 2000}, mode{true, 4, 1, 8, 4000}}) {
        CAPTURE(m.keep_alive);
        CAPTURE(m.c);
        CAPTURE(m.pipeline);
        microbench::plan p;
        p.url(nginx.url("/factorial/10")).requests(m.n).concurrency(m.c).threads(m.t).keep_alive(m.keep_alive).pipeline(m.pipeline);
        microbench::result r;
        REQUIRE_FALSE(microbench::run(p, r));
        expected += m.n;
        CHECK(r.requests_completed == m.n);
        CHECK(r.requests_failed == 0);
        CHECK(r.body_bytes == 7 * m.n);
        CHECK(r.connects == (m.keep_alive ? m.c : m.n));
        CHECK(nginx.served(expected) == expected);
    }
}

TEST_CASE("nginx with keepalive_timeout 0: it closes every connection and the report says so") {
    nginx_process nginx;
    microbench::plan p;
    p.url(nginx.url("/close")).requests(500).concurrency(5);
    microbench::result r;
    REQUIRE_FALSE(microbench::run(p, r));
    CHECK(r.requests_completed == 500);
    CHECK(r.server_closes == 500);
    CHECK(r.keep_alive_requests == 0);
    CHECK(r.connects == 500);
    CHECK(nginx.served(500) == 500);
}
