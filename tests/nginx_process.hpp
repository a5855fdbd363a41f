// tests/nginx_process.hpp — real nginx (Debian's nginx-light) as a test's child process, on a free
// 127.0.0.1 port, configured from a template under tests/nginx/ (@DIR@ its own directory, @PORT@
// its port, and any other @NAME@ the test gives); its access log is the server-side count.
#pragma once

#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

inline std::uint16_t free_port() {
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

inline bool can_connect(std::uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(fd);
    return ok;
}

inline std::string read_all(const std::string& path) {
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

    explicit nginx_process(const char* conf_template = "nginx.conf.in", const std::map<std::string, std::string>& values = {}) {
        REQUIRE_MESSAGE(access("/usr/sbin/nginx", X_OK) == 0, "nginx is missing: apt-get install nginx-light");
        char tmpl[] = "/tmp/microbench-nginx-XXXXXX";
        REQUIRE(mkdtemp(tmpl) != nullptr);
        dir = tmpl;
        std::string conf = read_all(std::string(MICROBENCH_TESTS_DIR "/nginx/") + conf_template);
        REQUIRE_FALSE(conf.empty());
        for (int attempt = 0; attempt < 5 && pid < 0; ++attempt) {
            port = free_port();
            std::string text = conf;
            for (std::size_t at; (at = text.find("@DIR@")) != std::string::npos;) text.replace(at, 5, dir);
            for (std::size_t at; (at = text.find("@PORT@")) != std::string::npos;) text.replace(at, 6, std::to_string(port));
            for (const auto& v : values)
                for (std::size_t at; (at = text.find("@" + v.first + "@")) != std::string::npos;) text.replace(at, v.first.size() + 2, v.second);
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
    std::string url(const char* path, const char* scheme = "http") const {
        return std::string(scheme) + "://127.0.0.1:" + std::to_string(port) + path;
    }
};

