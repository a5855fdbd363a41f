// microbench-rusage: runs a command and prints its CPU time and peak RSS, measured with wait4.
//   microbench-rusage CMD [ARGS...]   →   stderr: "rusage user_s=U sys_s=S maxrss_kib=M exit=E"
// Exists because peak RSS survives exec: a child forked from a big process (Python) would
// report the parent's size. Forked from this small program, the command reports its own.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: microbench-rusage CMD [ARGS...]\n");
        return 2;
    }
    rlimit lim{};  // as many descriptors as allowed: clients at c=10,000 need them
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0) {
        lim.rlim_cur = lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
    }
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status = 0;
    rusage ru{};
    if (wait4(pid, &status, 0, &ru) != pid) return 2;
    std::fflush(stdout);
    std::fprintf(stderr, "rusage user_s=%.6f sys_s=%.6f maxrss_kib=%ld exit=%d\n",
                 static_cast<double>(ru.ru_utime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec) / 1e6,
                 static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) / 1e6, ru.ru_maxrss,
                 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 0;
}
