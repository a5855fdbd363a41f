// tests/child_server.hpp — the reference server, or a scripted one, in a child process of its
// own: its allocations, threads and descriptors are not the test's. Fork it while the test
// process has no other thread (ThreadSanitizer forbids threads in a child of a threaded process).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include <doctest/doctest.h>

#include "microbench.hpp"
#include "scripted_server.hpp"

// Stops when this object goes away.
struct child_server {
    pid_t pid = -1;
    std::uint16_t port = 0;
    explicit child_server(scripted_server::script script = nullptr) {
        int to_parent[2], to_child[2];
        REQUIRE(pipe(to_parent) == 0);
        REQUIRE(pipe(to_child) == 0);
        pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            close(to_parent[0]);
            close(to_child[1]);
            auto serve_until_told = [&](std::uint16_t p) {
                if (write(to_parent[1], &p, sizeof p) != sizeof p) _exit(1);
                char c;
                while (read(to_child[0], &c, 1) > 0) {
                }
            };
            if (script) {
                scripted_server srv(script);
                serve_until_told(static_cast<std::uint16_t>(std::stoi(srv.url().substr(17))));
                _exit(0);
            }
            microbench::server srv;
            microbench::server_options o;
            if (srv.start(o)) _exit(1);
            serve_until_told(srv.port());
            srv.stop();
            _exit(0);
        }
        close(to_parent[1]);
        close(to_child[0]);
        stop_fd = to_child[1];
        REQUIRE(read(to_parent[0], &port, sizeof port) == sizeof port);
        close(to_parent[0]);
    }
    ~child_server() {
        close(stop_fd);  // EOF tells the child to stop
        int status = 0;
        waitpid(pid, &status, 0);
    }
    int stop_fd = -1;
};

