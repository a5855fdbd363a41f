// microbench-server: the reference server as a program, for experiments and other clients.
//   microbench-server [-a ADDRESS] [-p PORT | -u PATH] [-t THREADS] [-d SECONDS] [-x CUT:CLOSE[:SEED]]
//                     [--count-paths N] [--header-timeout S] [--idle-timeout S] [--max-connections N] | -h
// Serves /factorial/{n}, /factorial?n=N, /delay/{ms}, /work?us=N, /stall, /echo, /status/{code} and /stats on
// 127.0.0.1 (or ADDRESS), or on the Unix socket PATH, until SIGINT/SIGTERM, or for SECONDS. Prints
// where it listens.
// -x: chaos for soak tests — of every 1000 responses, CUT are cut short (closed or reset) and
// after CLOSE the connection is closed (server_options::chaos_*). --count-paths N: requests by
// target for /stats?paths (server_options::count_paths). --header-timeout, --idle-timeout and
// --max-connections bound what slow or quiet clients may hold (server_deadlines.hpp); listening
// beyond loopback, it says so on stderr, with those bounds.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "microbench.hpp"

namespace {

volatile sig_atomic_t stop_requested = 0;
void on_signal(int) { stop_requested = 1; }

const char* usage_text =
    "usage: microbench-server [-a ADDRESS] [-p PORT | -u PATH] [-t THREADS] [-d SECONDS] [-x CUT:CLOSE[:SEED]]\n"
    "                         [--count-paths N] [--header-timeout S] [--idle-timeout S] [--max-connections N]\n"
    "  -a ADDRESS   address to listen on (default 127.0.0.1; ::1, or 0.0.0.0 for every IPv4 one)\n"
    "  -p PORT      port, 0 to 65535 (default 0: a free one); the first line printed says which\n"
    "  -u PATH      listen on the Unix socket PATH instead (up to 107 bytes): a stale socket file there is\n"
    "               replaced, a live one refused; the file is removed at exit\n"
    "  -t THREADS   worker threads, 1 to 256 (default 1)\n"
    "  -d SECONDS   stop after SECONDS, 1 to 86400 (default: at Ctrl-C or SIGTERM); then print the counts as JSON\n"
    "  -x CUT:CLOSE[:SEED]  chaos: of every 1000 responses about CUT are cut short and after about CLOSE the\n"
    "               connection is closed (each 0 to 1000, together at most 1000; SEED default 1)\n"
    "  --count-paths N  count requests by target (path and query) for /stats?paths: at most N targets, 1 to\n"
    "               1,000,000, the rest together (default: not counted)\n"
    "  --header-timeout S  close a connection whose request is not whole S seconds after its first byte,\n"
    "               0 to 86400, 0: never (default 60, as nginx's client_header_timeout)\n"
    "  --idle-timeout S  close a connection that reads and writes nothing for S seconds (an answer held back\n"
    "               by /delay or /stall aside), 0 to 86400, 0: never (default 75, as nginx's keepalive_timeout)\n"
    "  --max-connections N  at most N connections, 1 to 10,000,000 (default: the open-file limit less 64); a\n"
    "               new one past it closes the quietest, or is closed itself when none is quiet\n"
    "  -h, --help   this text\n"
    "Serves /factorial/{n}, /factorial?n=N, /delay/{ms}, /stall?every=N&for=MS, /echo, /status/{code}, /stats,\n"
    "/stats?paths, "
    "and /work?us=N, which holds its thread N microseconds: -t T threads answer at most T x 1,000,000 / N a second.\n";

// One line naming the problem, then the usage; exit 1.
int usage_error(const std::string& problem) {
    std::fprintf(stderr, "microbench-server: %s\n%s", problem.c_str(), usage_text);
    return 1;
}

bool number(const char* text, long min, long max, long& out) {
    char* end = nullptr;
    out = std::strtol(text, &end, 10);
    return end && *end == '\0' && end != text && out >= min && out <= max;
}

// Whether `host` is a loopback address (127.0.0.0/8, ::1, ::ffff:127.x.y.z) or names one.
bool loopback(const std::string& host) {
    if (host == "localhost" || host == "ip6-localhost") return true;
    in_addr v4{};
    in6_addr v6{};
    if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host.c_str(), &v6) != 1) return false;
    return IN6_IS_ADDR_LOOPBACK(&v6) || (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127);
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
    microbench::endpoint at;
    bool port_given = false, address_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "-h" || flag == "--help") {
            std::fputs(usage_text, stdout);
            return 0;
        }
        if (flag != "-a" && flag != "-p" && flag != "-t" && flag != "-d" && flag != "-x" && flag != "-u" &&
            flag != "--count-paths" && flag != "--header-timeout" && flag != "--idle-timeout" &&
            flag != "--max-connections")
            return usage_error("unknown option '" + flag + "'");
        if (i + 1 >= argc) return usage_error("option " + flag + " needs a value");
        const char* value = argv[++i];
        port_given = port_given || flag == "-p";
        address_given = address_given || flag == "-a";
        const std::string bad = std::string(", not '") + value + "'";
        if (flag == "-a") options.host = value;
        else if (flag == "-u" && !microbench::unix_endpoint(value, at))
            return usage_error("-u needs a path of 1 to 107 bytes" + bad);
        else if (flag == "-u") options.unix_path = value;
        else if (flag == "-p" && !number(value, 0, 65535, v))
            return usage_error("-p needs a port from 0 to 65535" + bad);
        else if (flag == "-p") options.port = static_cast<std::uint16_t>(v);
        else if (flag == "-t" && !number(value, 1, 256, v))
            return usage_error("-t needs a thread count from 1 to 256" + bad);
        else if (flag == "-t") options.threads = static_cast<std::uint32_t>(v);
        else if (flag == "-d" && !number(value, 1, 86400, v))
            return usage_error("-d needs seconds from 1 to 86400" + bad);
        else if (flag == "-d") seconds = v;
        else if (flag == "-x" && !chaos(value, options))
            return usage_error("-x needs CUT:CLOSE[:SEED], permille each, at most 1000 together" + bad);
        else if (flag == "--count-paths" && !number(value, 1, 1'000'000, v))
            return usage_error("--count-paths needs a count of targets from 1 to 1,000,000" + bad);
        else if (flag == "--count-paths") options.count_paths = static_cast<std::size_t>(v);
        else if ((flag == "--header-timeout" || flag == "--idle-timeout") && !number(value, 0, 86400, v))
            return usage_error(flag + " needs seconds from 0 to 86400 (0: never)" + bad);
        else if (flag == "--header-timeout") options.header_timeout_ms = v * 1000;
        else if (flag == "--idle-timeout") options.idle_timeout_ms = v * 1000;
        else if (flag == "--max-connections" && !number(value, 1, 10'000'000, v))
            return usage_error("--max-connections needs a count from 1 to 10,000,000" + bad);
        else if (flag == "--max-connections") options.max_connections = static_cast<std::uint64_t>(v);
    }
    if (!options.unix_path.empty() && (port_given || address_given))
        return usage_error("-u listens on a Unix socket: give no -a or -p with it");
    microbench::server srv;
    if (microbench::error e = srv.start(options)) {
        const int err = e.code == microbench::errc::run_system ? static_cast<int>(e.position) : 0;
        std::string why = e.message();
        if (e.code == microbench::errc::plan_bad_bind_address)
            why = "-a needs an address of this machine (127.0.0.1, ::1, 0.0.0.0, localhost)";
        else if (err == EADDRNOTAVAIL) why = "the address is not one of this machine's (see ip addr)";
        else if (err == EADDRINUSE && !options.unix_path.empty())
            why = "a server listens there, or the path is a file other than a socket (pick another -u)";
        else if (err == EADDRINUSE)
            why = "the port is in use: another program listens there (pick another -p, or -p 0 for a free one)";
        else if (err == EACCES && !options.unix_path.empty())
            why = "permission denied: this user may not create a file in that directory";
        else if (err == EACCES) why = "permission denied: ports below 1024 need root (pick -p 1024 or above)";
        else if (err) why += std::string(" (") + std::strerror(err) + ")";
        if (!options.unix_path.empty())
            std::fprintf(stderr, "microbench-server: cannot serve on the Unix socket %s: %s\n",
                         options.unix_path.c_str(), why.c_str());
        else
            std::fprintf(stderr, "microbench-server: cannot serve on %s port %u: %s\n", options.host.c_str(),
                         static_cast<unsigned>(options.port), why.c_str());
        return 2;
    }
    if (!options.unix_path.empty())
        std::printf("microbench-server listening on the Unix socket %s\n", options.unix_path.c_str());
    else
        std::printf("microbench-server listening on %s port %u\n", options.host.c_str(),
                    static_cast<unsigned>(srv.port()));
    std::fflush(stdout);
    if (options.unix_path.empty() && !loopback(options.host)) {
        auto seconds_or_none = [](std::int64_t ms) { return ms ? std::to_string(ms / 1000) + " s" : "none"; };
        std::fprintf(stderr,
                     "microbench-server: warning: listening beyond loopback (%s): whoever reaches this machine can "
                     "load it; at most %llu connections, header timeout %s, idle timeout %s "
                     "(--max-connections, --header-timeout, --idle-timeout)\n",
                     options.host.c_str(),
                     static_cast<unsigned long long>(microbench::detail::connection_cap(options.max_connections)),
                     seconds_or_none(options.header_timeout_ms).c_str(),
                     seconds_or_none(options.idle_timeout_ms).c_str());
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    for (long waited_ms = 0; !stop_requested && (seconds == 0 || waited_ms < seconds * 1000); waited_ms += 50) {
        timespec ts{0, 50'000'000};
        nanosleep(&ts, nullptr);
    }
    microbench::server_counts served = srv.counts();
    srv.stop();
    std::printf("%s\n", microbench::server_counts_json(served, options.count_paths > 0).c_str());
    return 0;
}
