// microbench/engine/plan.hpp — what a run sends, how hard and for how long, as a fluent value:
//   plan().url("http://127.0.0.1:8000/").requests(10000).concurrency(100).keep_alive(true)
// Every knob starts at its default from config.hpp; validate() says what is wrong, never throws.
// A plan is plain data: copy it, keep it, run it again.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../http/checks.hpp"
#include "../http/connect_to.hpp"
#include "../http/request.hpp"
#include "../http/response_parser.hpp"
#include "../stats/result.hpp"
#include "net.hpp"
#include "rate_curve.hpp"
#include "target.hpp"
#include "plan_callbacks.hpp"
#include "tls_options.hpp"
#include "transport.hpp"

namespace microbench {

class plan {
public:
#define MICROBENCH_PLAN_FIELD(type, name)                 \
    plan& name(type v) {                                  \
        name##_ = std::move(v);                           \
        return *this;                                     \
    }                                                     \
    const type& name() const { return name##_; }

    MICROBENCH_PLAN_FIELD(std::string, url)
    // The targets the requests go to, in turn, each of url()'s origin (scheme, host and port; an
    // empty url() takes the first target's), at most defaults::max_targets; empty: url() alone.
    // Worker w of T sends its k-th request to target (w + k·T) mod N; a shard takes its own
    // stretch of them (shard.hpp). Each target's request is built once, before the run.
    MICROBENCH_PLAN_FIELD(std::vector<microbench::target>, targets)
    // One more target, after the others (without copying them).
    plan& add_target(microbench::target t) {
        targets_.push_back(std::move(t));
        return *this;
    }
    // url() may hold ranges ({A..B}, {a,b,c}: url_ranges.hpp): the URLs they stand for are the
    // targets, made when the run starts (no list is kept; a shard makes its stretch only). Off:
    // a brace is sent as written. Not with targets().
    MICROBENCH_PLAN_FIELD(bool, url_ranges)
    // Keep what each target got (result::by_target: counts by outcome, p50 and p99, the worst
    // first): one record per target the threads share, 96 bytes and 1 KiB of latency buckets. The
    // factorial check of each target's n keeps the counts too (not the buckets), for its verdict.
    MICROBENCH_PLAN_FIELD(bool, by_target)
    // How each request's target is picked: in turn (the default) or at random from seed().
    MICROBENCH_PLAN_FIELD(microbench::target_order, order)
    // Each target exactly once (a shard: each of its stretch): the run sends as many requests as
    // there are targets, whatever requests() says (0 allowed), over at most that many connections,
    // and no duration; in a random order, a shuffle from seed(). A request sent again keeps its target.
    MICROBENCH_PLAN_FIELD(bool, each_once)
    // curl's --connect-to rules, "HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT" (connect_to.hpp): the
    // first that matches the URL's host and port says where to connect instead; the Host header,
    // SNI and the certificate check still name the URL's host (result::connected_to says where).
    MICROBENCH_PLAN_FIELD(std::vector<std::string>, connect_to)
    // The path of a Unix socket every connection goes to instead of the URL's host and port
    // (curl's --unix-socket): the URL still gives the Host header, the path and, for https://,
    // SNI. At most max_unix_path bytes; not with connect_to() or bind_address(). "": TCP.
    MICROBENCH_PLAN_FIELD(std::string, unix_socket)
    MICROBENCH_PLAN_FIELD(std::string, method)
    MICROBENCH_PLAN_FIELD(std::string, body)
    MICROBENCH_PLAN_FIELD(std::string, content_type)
    MICROBENCH_PLAN_FIELD(std::uint64_t, requests)       // 0: no count limit (needs a duration)
    MICROBENCH_PLAN_FIELD(std::int64_t, duration_ms)     // 0: no time limit (needs a count); at most 30 days
    MICROBENCH_PLAN_FIELD(std::uint32_t, concurrency)    // connections, split across threads
    MICROBENCH_PLAN_FIELD(std::uint32_t, threads)
    MICROBENCH_PLAN_FIELD(bool, keep_alive)
    MICROBENCH_PLAN_FIELD(std::int64_t, timeout_ms)      // per request, from its start
    MICROBENCH_PLAN_FIELD(std::int64_t, connect_timeout_ms)
    MICROBENCH_PLAN_FIELD(std::int64_t, drain_ms)        // after a duration ends, for requests in flight
    MICROBENCH_PLAN_FIELD(std::uint32_t, pipeline)       // requests in flight per connection
    // Local address(es) to connect from: "" any; one; a list "a,b"; IPv4 ranges "a-b" (up to 1024).
    // Connections take them in turn, so each address brings its own ephemeral ports.
    MICROBENCH_PLAN_FIELD(std::string, bind_address)
    MICROBENCH_PLAN_FIELD(bool, length_check)            // ab's rule: a body length unlike the first is a failure
    MICROBENCH_PLAN_FIELD(response_limits, limits)
    MICROBENCH_PLAN_FIELD(std::uint64_t, record_requests)  // keep each request's timings, up to this many (ab -g)
    MICROBENCH_PLAN_FIELD(std::uint32_t, socket_buffer_bytes)  // SO_SNDBUF and SO_RCVBUF (ab -b); 0 = the kernel's
    // May run() raise the soft open-file limit toward the hard one when the connections need it?
    // Off: a library leaves its host's limits alone (run_fd_limit instead). On: raised for the
    // run and restored afterwards (the command line turns it on).
    MICROBENCH_PLAN_FIELD(bool, raise_fd_limit)
    // A request that met a keep-alive connection the server had closed is sent again once when
    // its method is idempotent (GET, HEAD, PUT, DELETE, OPTIONS, TRACE; RFC 9110 §9.2.2). On:
    // also POST, PATCH and other methods, which the server may already have acted on.
    MICROBENCH_PLAN_FIELD(bool, resend_non_idempotent)
    // Requests per second in all, on a fixed schedule (the open model); with stages, the rate they
    // start from (0 allowed). 0 without stages: a closed loop, each
    // connection sending its next request when the last one ended. At most `concurrency` are in
    // flight: a request whose time comes while every connection is busy waits, and its wait
    // counts in its response time.
    MICROBENCH_PLAN_FIELD(double, rate)
    MICROBENCH_PLAN_FIELD(microbench::arrivals, arrivals)  // at a fixed rate; uniform by default
    // A fixed rate that changes (k6's stages): from rate() (0 allowed here), each stage ramps
    // linearly to its target over its duration; a stage with the last one's target holds. Every
    // intended send time comes from that curve (rate_curve.hpp), Poisson arrivals too. Sets the
    // duration to the stages' total and the request count to none (a later requests() caps the
    // run); an empty list leaves both alone. At most defaults::max_stages, and threads x stages at
    // most defaults::max_stage_tallies (each thread keeps 1 KiB a stage).
    plan& stages(std::vector<rate_stage> list) {
        stages_ = std::move(list);
        if (!stages_.empty()) duration_ms_ = requests_ = 0;  // none: the duration and count stay as they were
        for (const rate_stage& s : stages_)
            if (s.duration_ms > 0 && s.duration_ms <= defaults::max_duration_ms) duration_ms_ += s.duration_ms;
        return *this;
    }
    const std::vector<rate_stage>& stages() const { return stages_; }
    // The open model: a fixed rate or stages; else a closed loop.
    bool open_model() const { return rate_ > 0 || !stages_.empty(); }
    // Of the Poisson arrivals and a random order: the same seed, the same schedule and picks.
    MICROBENCH_PLAN_FIELD(std::uint64_t, seed)
    // At a fixed rate: how late a request may be sent so that one wake of its worker thread sends
    // it together with the requests due after it, in microseconds (0 to 10,000). Each is still
    // timed from its own intended time; its lag grows by at most this. -1, the default:
    // defaults::batch_lag_us.
    MICROBENCH_PLAN_FIELD(std::int64_t, max_batch_lag_us)
    // Per-interval statistics (result::intervals) every this many milliseconds, 10 ms to 1 hour;
    // 0: none. The default, -1: every second at a fixed rate, none in a closed loop.
    MICROBENCH_PLAN_FIELD(std::int64_t, interval_ms)
    // Keep each interval's histograms in result::interval_histograms (and the JSON): merged rows
    // of many generators then get exact percentiles, and a result writes HdrHistogram's log. Only
    // with intervals (interval_ms, or a fixed rate's default).
    MICROBENCH_PLAN_FIELD(bool, interval_histograms)
    // The wall-clock time (Unix milliseconds) the run starts at, so generators on several machines
    // begin together: run() connects nothing before it, prepares, waits, then starts. 0: at once.
    // A time already past starts at once (result::start_requested_ns says how late).
    MICROBENCH_PLAN_FIELD(std::int64_t, start_at_unix_ms)
    MICROBENCH_PLAN_FIELD(tls_options, tls)  // for https:// without a transport of the plan's own
#undef MICROBENCH_PLAN_FIELD

    // This plan is shard `index` (from 0) of `count` generators sharing one plan (shard.hpp
    // divides a whole plan): shards space their fixed-rate schedules and Poisson seeds apart.
    plan& shard(std::uint32_t index, std::uint32_t count) {
        shard_index_ = index;
        shard_count_ = count;
        return *this;
    }
    std::uint32_t shard_index() const { return shard_index_; }
    std::uint32_t shard_count() const { return shard_count_; }  // 0: not a shard

    // Only these statuses count as success; any other is a failed request with reason `check`.
    // Empty (the default): every status is a response, non-2xx counted apart, as ab does.
    plan& expect_status(std::vector<int> codes) {
        expected_status_ = std::move(codes);
        return *this;
    }
    const std::vector<int>& expect_status() const { return expected_status_; }

    // Checks every response must pass; one that fails is a failed request with reason `check`.
    plan& check(microbench::checks c) {
        checks_ = std::move(c);
        return *this;
    }
    const microbench::checks& check() const { return checks_; }

    // Adds a request header; one named like a default replaces it (ab's -H).
    plan& header(std::string name, std::string value) {
        headers_.push_back({std::move(name), std::move(value)});
        return *this;
    }
    const std::vector<microbench::header>& headers() const { return headers_; }

    // Carries every connection of the run through `t` (its functions, not its user data, are
    // copied; what `user` points to must outlive the run): an embedder's TLS, whatever the URL's
    // scheme. Without one, https:// uses the built-in OpenSSL loader (tls_options).
    plan& transport(const microbench::transport& t) {
        transport_ = t;
        return *this;
    }
    const microbench::transport& transport() const { return transport_; }
    bool has_transport() const { return transport_.open != nullptr; }

    // Stops the run when `token` is cancelled; the token must outlive the run.
    plan& cancel_with(const cancel_token* token) {
        cancel_ = token;
        return *this;
    }
    const cancel_token* cancel_with() const { return cancel_; }

    // Calls fn every `every_ms` (0, or more than the longest duration, 30 days: never) and each
    // time another `every_requests` requests ended (0: never). Costs the workers nothing:
    // the calling thread polls their counters. Like every callback of a plan, fn must not throw:
    // the workers are running (stop a run with cancel_with instead).
    plan& on_progress(progress_fn fn, void* user, std::int64_t every_ms, std::uint64_t every_requests = 0) {
        progress_fn_ = fn;
        progress_user_ = user;
        progress_every_ms_ = every_ms;
        progress_every_requests_ = every_requests;
        return *this;
    }
    // Each request written by fn, on the worker thread that sends it, into `capacity` bytes the
    // engine keeps for each request in flight (16 bytes to 1 MiB; concurrency × pipeline × capacity
    // at most 1 GiB): no allocation per request. The plan's URL still says where to connect, and
    // its targets and order what each call is handed. ab's length rule is off with it: the
    // requests may differ. The method the request starts with decides whether a HEAD's response
    // has a body and whether the request may go again after a keep-alive close.
    plan& on_request(request_fn fn, void* user, std::size_t capacity = defaults::request_capacity) {
        request_fn_ = fn;
        request_user_ = user;
        request_capacity_ = capacity;
        return *this;
    }
    request_fn request_callback() const { return request_fn_; }
    void* request_user() const { return request_user_; }
    std::size_t request_capacity() const { return request_capacity_; }
    // Calls fn with each interval's row as soon as every worker has finished that interval.
    plan& on_interval(interval_fn fn, void* user) {
        interval_fn_ = fn;
        interval_user_ = user;
        return *this;
    }
    interval_fn interval_callback() const { return interval_fn_; }
    void* interval_user() const { return interval_user_; }
    // Calls fn with each interval's row and its histograms (to log them, as --hlog does), right
    // after the on_interval callback, on the same thread; only when the plan has intervals.
    plan& on_interval_histograms(interval_histograms_fn fn, void* user) {
        interval_histograms_fn_ = fn;
        interval_histograms_user_ = user;
        return *this;
    }
    interval_histograms_fn interval_histograms_callback() const { return interval_histograms_fn_; }
    void* interval_histograms_user() const { return interval_histograms_user_; }
    // The interval this plan's statistics use, in milliseconds; 0: none.
    std::int64_t effective_interval_ms() const {
        return interval_ms_ >= 0 ? interval_ms_ : open_model() ? defaults::interval_ms_at_rate : 0;
    }
    // The batch lag this plan's fixed rate uses, in microseconds.
    std::int64_t effective_batch_lag_us() const {
        return max_batch_lag_us_ >= 0 ? max_batch_lag_us_ : defaults::batch_lag_us;
    }

    progress_fn progress_callback() const { return progress_fn_; }
    void* progress_user() const { return progress_user_; }
    std::int64_t progress_every_ms() const { return progress_every_ms_; }
    std::uint64_t progress_every_requests() const { return progress_every_requests_; }

    // The request options this plan describes.
    request_options request() const {
        request_options r;
        r.method = method_;
        r.headers = headers_;
        r.body = body_;
        r.content_type = content_type_;
        r.keep_alive = keep_alive_;
        return r;
    }

    // Checks everything that does not need the network (the URL is checked by run()): each knob
    // in its range, then the knobs that depend on one another.
    error validate() const {
        if (error e = check_ranges()) return e;
        if (error e = check_stages()) return e;
        if (error e = checks_.problem()) return e;
        if (threads_ > concurrency_) return {errc::plan_bad_threads, 0};
        if (requests_ == 0 && duration_ms_ == 0 && !each_once_) return {errc::plan_no_limit, 0};
        if (each_once_ && duration_ms_ != 0) return {errc::plan_each_once_duration, 0};
        if (requests_ != 0 && requests_ < concurrency_ && !each_once_)  // each once: run() checks the targets
            return {errc::plan_concurrency_above_requests, 0};
        if (pipeline_ > 1 && !keep_alive_) return {errc::plan_bad_pipeline, 0};
        if (static_cast<std::uint64_t>(concurrency_) * pipeline_ > defaults::max_requests_in_flight)
            return {errc::plan_too_many_in_flight, 0};
        if (rate_ > 0 && pipeline_ > 1) return {errc::plan_bad_rate, 0};
        if (!stages_.empty() && pipeline_ > 1) return {errc::plan_bad_stages, stages_.size()};
        if (arrivals_ == microbench::arrivals::poisson && !open_model()) return {errc::plan_bad_arrivals, 0};
        if (shard_count_ && shard_index_ >= shard_count_) return {errc::plan_bad_shard, 0};
        if (has_transport() && !transport_.complete()) return {errc::plan_bad_transport, 0};
        if (!unix_socket_.empty() && !bind_address_.empty()) return {errc::plan_bad_unix_socket, 1};
        if (!unix_socket_.empty() && !connect_to_.empty()) return {errc::plan_bad_unix_socket, 2};
        const std::uint64_t rooms = std::uint64_t{concurrency_} * pipeline_;  // a request callback's: one a request
        if (request_fn_ && rooms * request_capacity_ > defaults::max_request_room_bytes)
            return {errc::plan_bad_request_capacity, 0};
        return {};
    }

    // Each knob on its own against its range (config.hpp): the first one outside it, or none.
    error check_ranges() const {
        using namespace defaults;
        auto within = [](auto v, auto lo, auto hi) { return v >= lo && v <= hi; };  // false for NaN
        if (!within(concurrency_, 1u, max_concurrency)) return {errc::plan_bad_concurrency, 0};
        if (!within(threads_, 1u, max_threads)) return {errc::plan_bad_threads, 0};
        if (!within(timeout_ms_, 1, max_timeout_ms) || !within(connect_timeout_ms_, 1, max_timeout_ms) ||
            !within(drain_ms_, 0, max_timeout_ms))
            return {errc::plan_bad_timeout, 0};
        if (!within(duration_ms_, 0, max_duration_ms)) return {errc::plan_bad_duration, 0};
        if (!within(pipeline_, 1u, max_pipeline)) return {errc::plan_bad_pipeline, 0};
        if (record_requests_ > max_recorded_requests) return {errc::plan_too_many_records, 0};
        if (socket_buffer_bytes_ > max_socket_buffer_bytes) return {errc::plan_bad_socket_buffer, 0};
        if (rate_ != 0 && !within(rate_, min_rate, max_rate)) return {errc::plan_bad_rate, 0};
        if (arrivals_ != microbench::arrivals::uniform && arrivals_ != microbench::arrivals::poisson)
            return {errc::plan_bad_arrivals, 0};
        if (order_ != target_order::in_turn && order_ != target_order::random) return {errc::plan_bad_target, 0};
        if (max_batch_lag_us_ != -1 && !within(max_batch_lag_us_, std::int64_t{0}, batch_lag_limit_us))
            return {errc::plan_bad_batch_lag, 0};
        if (interval_ms_ != -1 && interval_ms_ != 0 && !within(interval_ms_, min_interval_ms, max_interval_ms))
            return {errc::plan_bad_interval, 0};
        for (std::size_t i = 0; i < expected_status_.size(); ++i)
            if (!within(expected_status_[i], 100, 999)) return {errc::plan_bad_status, i};
        if (start_at_unix_ms_ < 0) return {errc::plan_bad_start_time, 0};
        if (shard_count_ > max_shards) return {errc::plan_bad_shard, 0};
        if (tls_.version != 0 && !within(tls_.version, 0x0301, 0x0304)) return {errc::plan_bad_tls_version, 0};
        connect_rule rule;
        for (std::size_t i = 0; i < connect_to_.size(); ++i)
            if (!parse_connect_rule(connect_to_[i], rule)) return {errc::plan_bad_connect_to, i};
        if (request_fn_ && !within(request_capacity_, min_request_capacity, max_request_capacity))
            return {errc::plan_bad_request_capacity, 0};
        endpoint socket;
        if (!unix_socket_.empty() && !unix_endpoint(unix_socket_, socket)) return {errc::plan_bad_unix_socket, 0};

        return {};
    }

private:
    // The stages on their own and together: each in range, their total the duration, some request.
    error check_stages() const {
        if (stages_.empty()) return {};
        if (stages_.size() > defaults::max_stages || stages_.size() * threads_ > defaults::max_stage_tallies)
            return {errc::plan_bad_stages, stages_.size()};
        std::int64_t total = 0;
        double area = 0, from = rate_;
        for (std::size_t i = 0; i < stages_.size(); ++i) {
            const rate_stage& s = stages_[i];
            if (!(s.duration_ms >= 1 && s.duration_ms <= defaults::max_duration_ms && s.target >= 0 &&
                  s.target <= defaults::max_rate))
                return {errc::plan_bad_stages, i};
            total += s.duration_ms;
            if (total > defaults::max_duration_ms) return {errc::plan_bad_stages, i};
            area += (from + s.target) / 2 * static_cast<double>(s.duration_ms) / 1e3;
            from = s.target;
        }
        if (duration_ms_ != total || area < 1) return {errc::plan_bad_stages, stages_.size()};
        return {};
    }

    std::string url_;
    std::vector<microbench::target> targets_;
    bool url_ranges_ = false;
    bool by_target_ = false;
    microbench::target_order order_ = microbench::target_order::in_turn;
    bool each_once_ = false;
    std::vector<std::string> connect_to_;
    std::string unix_socket_;
    std::string method_ = "GET";
    std::string body_;
    std::string content_type_ = defaults::content_type;
    std::uint64_t requests_ = defaults::requests;
    std::int64_t duration_ms_ = 0;
    std::uint32_t concurrency_ = defaults::concurrency;
    std::uint32_t threads_ = defaults::threads;
    bool keep_alive_ = defaults::keep_alive;
    std::int64_t timeout_ms_ = defaults::timeout_ms;
    std::int64_t connect_timeout_ms_ = defaults::timeout_ms;
    std::int64_t drain_ms_ = defaults::drain_ms;
    std::uint32_t pipeline_ = 1;
    std::string bind_address_;
    bool length_check_ = true;
    response_limits limits_;
    std::uint64_t record_requests_ = 0;
    std::uint32_t socket_buffer_bytes_ = 0;
    bool raise_fd_limit_ = false;
    bool resend_non_idempotent_ = false;
    double rate_ = 0;
    microbench::arrivals arrivals_ = microbench::arrivals::uniform;
    std::vector<rate_stage> stages_;
    std::uint64_t seed_ = 0;
    std::int64_t max_batch_lag_us_ = -1;
    std::int64_t interval_ms_ = -1;
    bool interval_histograms_ = false;
    std::int64_t start_at_unix_ms_ = 0;
    std::uint32_t shard_index_ = 0, shard_count_ = 0;
    tls_options tls_;
    microbench::transport transport_;
    std::vector<microbench::header> headers_;
    std::vector<int> expected_status_;
    microbench::checks checks_;
    const cancel_token* cancel_ = nullptr;
    progress_fn progress_fn_ = nullptr;
    void* progress_user_ = nullptr;
    std::int64_t progress_every_ms_ = 0;
    std::uint64_t progress_every_requests_ = 0;
    request_fn request_fn_ = nullptr;
    void* request_user_ = nullptr;
    std::size_t request_capacity_ = defaults::request_capacity;
    interval_fn interval_fn_ = nullptr;
    void* interval_user_ = nullptr;
    interval_histograms_fn interval_histograms_fn_ = nullptr;
    void* interval_histograms_user_ = nullptr;
};

}  // namespace microbench
