// microbench-server: the reference server as a program, for experiments and other clients.
//   microbench-server [-a ADDRESS] [-p PORT] [-t THREADS] [-d SECONDS] [-x CUT:CLOSE[:SEED]]
// Serves /factorial/{n}, /factorial?n=N, /delay/{ms}, /echo, /status/{code} and /stats on
// 127.0.0.1 (or ADDRESS) until SIGINT/SIGTERM, or for SECONDS. Prints the port it listens on.
// -x: chaos for soak tests — of every 1000 responses, CUT are cut short (closed or reset) and
// after CLOSE the connection is closed (server_options::chaos_*).
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "microbench.hpp"

namespace {

volatile sig_atomic_t stop_requested = 0;
void on_signal(int) { stop_requested = 1; }

int usage(const char* why) {
    std::fprintf(stderr, "microbench-server: %s\nusage: microbench-server [-a ADDRESS] [-p PORT] [-t THREADS] [-d SECONDS] [-x CUT:CLOSE[:SEED]]\n", why);
    return 1;
}

bool number(const char* text, long min, long max, long& out) {
    char* end = nullptr;
    out = std::strtol(text, &end, 10);
    return end && *end == '\0' && end != text && out >= min && out <= max;
}

// "CUT:CLOSE[:SEED]", permille each, at most 1000 together.
bool chaos(const char* text, microbench::server_options& options) {
    unsigned long cut = 0, close = 0;
    unsigned long long seed = 1;
    int used = 0;
    int n = std::sscanf(text, "%lu:%lu%n:%llu%n", &cut, &close, &used, &seed, &used);
    if (n < 2 || text[used] != '\0' || *text == '-' || cut > 1000 || close > 1000 || cut + close > 1000) return false;
    options.chaos_cut_permille = static_cast<unsigned>(cut);
    options.chaos_close_permille = static_cast<unsigned>(close);
    options.chaos_seed = seed;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    microbench::server_options options;
    long seconds = 0, v = 0;
    for (int i = 1; i < argc; ++i) {
        const char* flag = argv[i];
        if (std::strcmp(flag, "-h") == 0) return usage("the reference server"), 0;
        if (i + 1 >= argc) return usage("a flag needs a value");
        const char* value = argv[++i];
        if (std::strcmp(flag, "-a") == 0) options.host = value;
        else if (std::strcmp(flag, "-p") == 0 && number(value, 0, 65535, v)) options.port = static_cast<std::uint16_t>(v);
        else if (std::strcmp(flag, "-t") == 0 && number(value, 1, 256, v)) options.threads = static_cast<std::uint32_t>(v);
        else if (std::strcmp(flag, "-d") == 0 && number(value, 1, 86400, v)) seconds = v;
        else if (std::strcmp(flag, "-x") == 0 && chaos(value, options)) continue;
        else return usage("unknown flag or value out of range");
    }
    microbench::server srv;
    if (microbench::error e = srv.start(options)) {
        std::fprintf(stderr, "microbench-server: cannot serve on %s:%u: %s (%s)\n", options.host.c_str(),
                     static_cast<unsigned>(options.port), e.message(), e.code == microbench::errc::run_system ? std::strerror(static_cast<int>(e.position)) : "");
        return 2;
    }
    std::printf("microbench-server listening on %s port %u\n", options.host.c_str(), static_cast<unsigned>(srv.port()));
    std::fflush(stdout);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    for (long waited_ms = 0; !stop_requested && (seconds == 0 || waited_ms < seconds * 1000); waited_ms += 50) {
        timespec ts{0, 50'000'000};
        nanosleep(&ts, nullptr);
    }
    microbench::server_counts served = srv.counts();
    srv.stop();
    std::printf("%s\n", microbench::server_counts_json(served).c_str());
    return 0;
}
