// microbench/server/server_counts.hpp — what the reference server counts and how /stats says it:
// requests by endpoint, connections, chaos, listen pauses, connections by source address, and
// (when asked for) requests by target, kept by a path_counter the threads share under one lock.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/json_write.hpp"

namespace microbench {

// Requests answered, by endpoint (`delay` counts /delay, /work and /stall); /stats itself is not
// counted. With chaos: responses cut short (`cut`) and connections closed after a whole response
// (`closed`). `listen_pauses`: times a thread stopped accepting for a moment because the system
// had no descriptor or buffer to give. Connections closed by the server's deadlines
// (server_deadlines.hpp): a request not whole in time (`header_timeouts`), nothing read or
// written in time (`idle_timeouts`), and at the cap, the quiet one closed to make room (`evicted`)
// or the new one closed (`refused`); `open`: connections open when counted.
struct server_counts {
    std::uint64_t requests = 0, factorial = 0, delay = 0, echo = 0, status = 0, other = 0, bad_request = 0;
    std::uint64_t connections = 0;
    std::uint64_t cut = 0, closed = 0;
    std::uint64_t listen_pauses = 0;
    // Connections accepted by the client's address, in order of first connection (the first 256
    // addresses; later ones are counted under "other").
    std::vector<std::pair<std::string, std::uint64_t>> sources;
    // With server_options::count_paths: requests by target (path and query), in byte order, and
    // those of the targets past the cap.
    std::vector<std::pair<std::string, std::uint64_t>> paths;
    std::uint64_t paths_other = 0;
    std::uint64_t header_timeouts = 0, idle_timeouts = 0, evicted = 0, refused = 0, open = 0;
};

namespace detail {

// Requests by target, at most `cap` targets (the rest counted together), shared by the server's
// threads under one lock; only a target's first request allocates.
class path_counter {
public:
    path_counter() = default;
    path_counter(const path_counter&) = delete;
    path_counter& operator=(const path_counter&) = delete;

    void reset(std::size_t cap) {
        counts_.clear();
        other_ = 0;
        cap_ = cap;
    }
    void count(std::string_view target) {
        pthread_mutex_lock(&mutex_);
        auto it = counts_.find(target);
        if (it != counts_.end()) ++it->second;
        else if (counts_.size() < cap_) counts_.emplace(std::string(target), 1);
        else ++other_;
        pthread_mutex_unlock(&mutex_);
    }
    void copy_to(server_counts& c) const {
        pthread_mutex_lock(&mutex_);
        c.paths.assign(counts_.begin(), counts_.end());
        c.paths_other = other_;
        pthread_mutex_unlock(&mutex_);
    }

private:
    mutable pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
    struct text_less {  // a target is looked up as a string_view: nothing copied
        using is_transparent = void;
        bool operator()(std::string_view a, std::string_view b) const { return a < b; }
    };
    std::map<std::string, std::uint64_t, text_less> counts_;
    std::uint64_t other_ = 0;
    std::size_t cap_ = 0;
};

// Connections accepted by the client's address (server_counts::sources), shared by the server's
// threads under one lock: one lock per accepted connection, none per request.
class source_counter {
public:
    source_counter() = default;
    source_counter(const source_counter&) = delete;
    source_counter& operator=(const source_counter&) = delete;

    void reset() { sources_.clear(); }
    void count(const sockaddr_storage& peer) {
        char text[INET6_ADDRSTRLEN] = "other";
        if (peer.ss_family == AF_UNIX) std::strcpy(text, "unix");
        if (peer.ss_family == AF_INET)
            inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&peer)->sin_addr, text, sizeof text);
        if (peer.ss_family == AF_INET6)
            inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&peer)->sin6_addr, text, sizeof text);
        pthread_mutex_lock(&mutex_);
        auto it = std::find_if(sources_.begin(), sources_.end(), [&](const auto& s) { return s.first == text; });
        if (it == sources_.end() && sources_.size() >= 256)
            it = std::find_if(sources_.begin(), sources_.end(), [](const auto& s) { return s.first == "other"; });
        if (it == sources_.end()) {
            sources_.emplace_back(sources_.size() >= 256 ? "other" : text, 0);
            it = sources_.end() - 1;
        }
        ++it->second;
        pthread_mutex_unlock(&mutex_);
    }
    void copy_to(server_counts& c) const {
        pthread_mutex_lock(&mutex_);
        c.sources = sources_;
        pthread_mutex_unlock(&mutex_);
    }

private:
    mutable pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
    std::vector<std::pair<std::string, std::uint64_t>> sources_;
};

}  // namespace detail

// The counts as /stats answers them: one JSON object; with `paths`, the requests of each target
// ("paths") and of the targets past the cap ("paths_other").
inline std::string server_counts_json(const server_counts& c, bool paths = false) {
    using ull = unsigned long long;
    char buf[600];
    std::snprintf(buf, sizeof buf,
                  "{\"requests\":%llu,\"factorial\":%llu,\"delay\":%llu,\"echo\":%llu,\"status\":%llu,"
                  "\"other\":%llu,\"bad_request\":%llu,\"connections\":%llu,\"cut\":%llu,\"closed\":%llu,"
                  "\"listen_pauses\":%llu,\"header_timeouts\":%llu,\"idle_timeouts\":%llu,\"evicted\":%llu,"
                  "\"refused\":%llu,\"open\":%llu",
                  static_cast<ull>(c.requests), static_cast<ull>(c.factorial), static_cast<ull>(c.delay),
                  static_cast<ull>(c.echo), static_cast<ull>(c.status), static_cast<ull>(c.other),
                  static_cast<ull>(c.bad_request), static_cast<ull>(c.connections), static_cast<ull>(c.cut),
                  static_cast<ull>(c.closed), static_cast<ull>(c.listen_pauses), static_cast<ull>(c.header_timeouts),
                  static_cast<ull>(c.idle_timeouts), static_cast<ull>(c.evicted), static_cast<ull>(c.refused),
                  static_cast<ull>(c.open));
    std::string out = buf;  // the sources follow
    out += ",\"sources\":{";
    for (std::size_t i = 0; i < c.sources.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%s\"%s\":%llu", i ? "," : "", c.sources[i].first.c_str(),
                      static_cast<unsigned long long>(c.sources[i].second));
        out += buf;
    }
    out += '}';
    if (paths) {
        out += ",\"paths\":{";
        for (std::size_t i = 0; i < c.paths.size(); ++i) {
            if (i) out += ',';
            detail::append_json_string(out, c.paths[i].first);
            std::snprintf(buf, sizeof buf, ":%llu", static_cast<unsigned long long>(c.paths[i].second));
            out += buf;
        }
        std::snprintf(buf, sizeof buf, "},\"paths_other\":%llu", static_cast<unsigned long long>(c.paths_other));
        out += buf;
    }
    out += '}';
    return out;
}

}  // namespace microbench
