// tests/server_program.hpp — the reference server as a program (microbench-server) in a child
// process: for code built without the in-process server (the small-device profile) or that must
// not share memory and descriptors with it (the soak). Stopped when this object goes away.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <initializer_list>
#include <vector>

struct server_program {
    pid_t pid = -1;
    unsigned port = 0;

    server_program() = default;
    server_program(const server_program&) = delete;
    server_program& operator=(const server_program&) = delete;
    ~server_program() {
        if (pid <= 0) return;
        kill(pid, SIGTERM);
        waitpid(pid, nullptr, 0);
    }

    // Runs `path -p 0 extra…` and reads the port it says it listens on; false if it did not.
    bool start(const char* path, std::initializer_list<const char*> extra) {
        std::vector<const char*> args = {path, "-p", "0"};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back(nullptr);
        int out[2];
        if (pipe(out) != 0) return false;
        pid = fork();
        if (pid == 0) {
            dup2(out[1], STDOUT_FILENO);
            close(out[0]);
            close(out[1]);
            execv(path, const_cast<char* const*>(args.data()));
            _exit(127);
        }
        close(out[1]);
        char line[256] = {};
        const bool said = pid > 0 && read(out[0], line, sizeof line - 1) > 0 &&
                          std::sscanf(line, "microbench-server listening on %*s port %u", &port) == 1;
        close(out[0]);
        return said;
    }
};
