// microbench-soak: rounds of keep-alive load against the reference server in chaos mode (a child
// process that cuts about 0.5 % of responses short — half closed, half reset — and closes the
// connection after another 0.5 %), checking after every round that the counts are exact and that
// nothing leaks:
//   - every request ended once: ended == n, completed + failed == n;
//   - the client's completed requests equal the server's whole responses, and its failures (all
//     `receive`) equal the server's cut ones; requests resent after a close are at most the
//     server's closes;
//   - open descriptors after the round equal those before the first;
//   - resident memory after the second round grows by at most 1 MiB (unless --no-rss-check).
//     microbench-soak SERVER [ROUNDS=10] [REQUESTS=100000] [CONNECTIONS=100] [--no-rss-check]
// Prints a line per round; exit 0 when every check held. One million requests: the defaults.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "microbench.hpp"
#include "server_program.hpp"

namespace mb = microbench;

namespace {

// Resident memory now, from /proc/self/statm, in KiB.
long rss_kib() {
    long pages = 0, resident = 0;
    FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return 0;
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

// The server's counters, from GET /stats on a connection of its own.
bool server_stats(std::uint16_t port, mb::server_counts& out) {
    mb::endpoint to;
    if (mb::resolve("127.0.0.1", port, to) != 0) return false;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return false;
    std::string text;
    if (connect(fd, reinterpret_cast<const sockaddr*>(&to.addr), to.len) == 0) {
        const char request[] = "GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        if (write(fd, request, sizeof request - 1) == static_cast<ssize_t>(sizeof request - 1)) {
            char buf[4096];
            for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
        }
    }
    close(fd);
    auto field = [&](const char* name, std::uint64_t& value) {
        std::size_t at = text.find(std::string("\"") + name + "\":");
        if (at == std::string::npos) return false;
        value = std::strtoull(text.c_str() + at + std::strlen(name) + 3, nullptr, 10);
        return true;
    };
    return field("requests", out.requests) && field("cut", out.cut) && field("closed", out.closed);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: microbench-soak SERVER [ROUNDS] [REQUESTS] [CONNECTIONS] [--no-rss-check]\n");
        return 2;
    }
    bool rss_check = true;
    long numbers[3] = {10, 100'000, 100};
    for (int i = 2, k = 0; i < argc; ++i) {
        if (std::strcmp(argv[i], "--no-rss-check") == 0) rss_check = false;
        else if (k < 3) numbers[k++] = std::atol(argv[i]);
    }
    const long rounds = numbers[0];
    const auto requests = static_cast<std::uint64_t>(numbers[1]);
    const auto connections = static_cast<std::uint32_t>(numbers[2]);
    if (rounds < 1 || requests < connections || connections < 1) return std::fprintf(stderr, "microbench-soak: bad numbers\n"), 2;

    server_program srv;  // chaos 5:5 (server_options::chaos_*), always the same stream
    if (!srv.start(argv[1], {"-t", "1", "-x", "5:5:7"})) return std::fprintf(stderr, "microbench-soak: the server did not start\n"), 2;
    const unsigned port = srv.port;

    mb::plan plan;
    plan.url("http://127.0.0.1:" + std::to_string(port) + "/factorial/10").requests(requests).concurrency(connections)
        .keep_alive(true).timeout_ms(10'000);
    const std::size_t fds_before = mb::detail::open_descriptors();
    mb::server_counts last{};
    if (!server_stats(static_cast<std::uint16_t>(port), last)) return std::fprintf(stderr, "microbench-soak: no /stats\n"), 2;
    long rss_warm = 0, rss_max = 0;
    int failures = 0;
    std::uint64_t total = 0;
    for (long round = 1; round <= rounds; ++round) {
        mb::result r;
        if (mb::error e = mb::run(plan, r)) return std::fprintf(stderr, "microbench-soak: %s\n", e.message()), 2;
        mb::server_counts now{};
        if (!server_stats(static_cast<std::uint16_t>(port), now)) return std::fprintf(stderr, "microbench-soak: no /stats\n"), 2;
        const std::uint64_t answered = now.requests - last.requests, cut = now.cut - last.cut, closed = now.closed - last.closed;
        last = now;
        const std::size_t fds = mb::detail::open_descriptors();
        const long rss = rss_kib();
        if (round == 2) rss_warm = rss;
        if (rss > rss_max) rss_max = rss;
        total += r.requests_ended;
        const bool exact = r.requests_ended == requests && r.requests_completed + r.requests_failed == requests &&
                           r.requests_completed == answered - cut && r.requests_failed == cut &&
                           r.failed(mb::failure::receive) == cut && r.retries <= closed && r.unfinished == 0;
        const bool no_leak = fds == fds_before;
        const bool flat = !rss_check || round < 2 || rss - rss_warm <= 1024;
        std::printf("round %ld: %llu requests, %llu completed, %llu failed (receive %llu), %llu resent; server: %llu answered, "
                    "%llu cut, %llu closed; descriptors %zu (before %zu); RSS %ld KiB%s\n",
                    round, static_cast<unsigned long long>(r.requests_ended), static_cast<unsigned long long>(r.requests_completed),
                    static_cast<unsigned long long>(r.requests_failed), static_cast<unsigned long long>(r.failed(mb::failure::receive)),
                    static_cast<unsigned long long>(r.retries), static_cast<unsigned long long>(answered),
                    static_cast<unsigned long long>(cut), static_cast<unsigned long long>(closed), fds, fds_before, rss,
                    exact && no_leak && flat ? "" : "  <-- FAILED");
        std::fflush(stdout);
        failures += !(exact && no_leak && flat);
    }
    std::printf("%llu requests in %ld rounds: %s; RSS after round 2 %ld KiB, at most %ld KiB\n", static_cast<unsigned long long>(total),
                rounds, failures ? "FAILED" : "every count exact, no descriptor leaked", rss_warm, rss_max);
    return failures ? 1 : 0;
}
