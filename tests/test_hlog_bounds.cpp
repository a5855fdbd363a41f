// What an HdrHistogram log may ask of the reader (report/report_hlog.hpp), bounded: a row's
// layout and the tags' totals within a limit of counter memory, refused past it with the line and
// the layout; totals as large as their values, not the 63-bit range; a row merged by its non-empty
// buckets alone; a histogram whose counters cannot be mapped a value, not an abort.
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "microbench.hpp"
#include "run_helpers.hpp"

using namespace microbench;

namespace {

// A log of one row per tag in `tags`, each holding one value `value` in a histogram of 5
// significant figures up to 2^53 (as hdr-histogram-js writes them).
std::string deep_rows(const std::vector<std::string>& tags, std::int64_t value) {
    histogram h({1, std::int64_t{1} << 53, 5});
    h.record(value);
    std::string log;
    append_hlog_header(1000.0, log);
    for (std::size_t k = 0; k < tags.size(); ++k) REQUIRE(append_hlog_row(tags[k], static_cast<double>(k), 1, h, log));
    return log;
}

bool same_figures(const histogram& a, const histogram& b) {
    if (a.count() != b.count() || a.min() != b.min() || a.max() != b.max() || a.sum() != b.sum()) return false;
    for (double p : {1.0, 50.0, 90.0, 99.0, 99.99})
        if (a.value_at_percentile(p) != b.value_at_percentile(p)) return false;
    return true;
}

}  // namespace

TEST_CASE("hlog bounds: a row whose layout needs more counters than the limit is refused, naming line and layout") {
    const std::string log = deep_rows({"a"}, 1'000'000);
    std::vector<hlog_tag_total> totals;
    std::string message;
    CHECK_FALSE(add_hlog_totals(log, totals, message, std::size_t{1} << 20));
    CHECK(message == "line 6: its highest trackable value, 9007199254740992 at 5 significant figures, needs 38.0 "
                     "MiB of counters: above the reader's limit of 1.0 MiB");
    CHECK(totals.empty());
    REQUIRE(add_hlog_totals(log, totals, message));  // the default limit, 128 MiB, takes it
    CHECK(totals[0].values.count() == 1);
}

TEST_CASE("hlog bounds: the tags' totals together stay within the limit, a total spans its values, not 2^63") {
    // Each value near 2^52 needs a total of 38 MiB beside the row's 38 MiB: two tags fit 128 MiB, a third not.
    const std::string log = deep_rows({"t0", "t1", "t2"}, std::int64_t{1} << 52);
    std::vector<hlog_tag_total> totals;
    std::string message;
    CHECK_FALSE(add_hlog_totals(log, totals, message));
    CHECK(message == "line 8: Tag=t2: its total's highest trackable value, 9007199254740992 at 5 significant "
                     "figures, needs 38.0 MiB of counters; with the tags' totals (76.0 MiB) and the row's (38.0 MiB), "
                     "above the reader's limit of 128.0 MiB");
    REQUIRE(totals.size() == 2);  // the rows before it stay added
    CHECK(totals[1].values.count() == 1);
    CHECK(detail::hlog_totals_bytes(totals) <= hlog_default_max_bytes);

    // A log of small values takes small totals, whatever its rows' declared range.
    totals.clear();
    REQUIRE(add_hlog_totals(deep_rows({"small"}, 5'000'000), totals, message));
    CHECK(totals[0].values.config().highest_trackable_value == std::int64_t{1} << 23);  // 2, doubled past 5e6
    CHECK(histogram::memory_bytes(totals[0].values.config()) < (std::size_t{16} << 20));
    CHECK(totals[0].values.equivalent(totals[0].values.max(), 5'000'000));
}

TEST_CASE("hlog bounds: a row merged by its non-empty buckets equals the whole merge, deep values included") {
    histogram a({1, std::int64_t{1} << 53, 5});
    a.record(3, 7);
    a.record(1'000'000'000, 2);
    a.record(std::int64_t{1} << 50);
    std::string encoded;
    encode_hdr_v2_compressed(a, encoded);
    histogram decoded;
    std::vector<std::size_t> filled;
    hdr_v2_decoding d;
    d.filled = &filled;
    REQUIRE_FALSE(decode_hdr_v2(encoded, decoded, &d));
    CHECK(filled.size() == 3);
    CHECK(d.layout.highest_trackable_value == std::int64_t{1} << 53);
    for (const histogram_config& c : {histogram_config{1, std::int64_t{1} << 53, 5}, histogram_config{1, INT64_MAX, 3}}) {
        histogram whole(c), sparse(c);  // the same layout, then another
        CHECK(whole.merge(decoded) == 0);
        CHECK(sparse.merge(decoded, filled) == 0);
        CHECK(same_figures(whole, sparse));
    }
    histogram narrow({1, 1'000'000, 3});  // above its range: dropped alike
    CHECK(narrow.merge(decoded, filled) == 1 + 2);
    CHECK(narrow.count() == 7);
}

TEST_CASE("hlog bounds: counters that cannot be mapped are a value: not allocated, refused, nothing recorded") {
    if (emulated()) return;  // qemu maps its own memory under the same limit
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return;  // the sanitizers' own mappings need room beyond any limit set here
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    return;
#endif
#endif
    // A saved result whose connect histogram asks for 47 MiB of counters, made before the limit.
    std::string saved = result_json(plan().url("http://127.0.0.1:1/"), result(), {50});
    {
        histogram wide({1, INT64_MAX, 5});
        wide.record(5);
        std::string bytes, text;
        encode_histogram(wide, bytes);
        base64_encode(bytes, text);
        const std::size_t at = saved.find("\"histogram\":\"") + 13;
        saved.replace(at, saved.find('"', at) - at, text);
    }
    std::fflush(nullptr);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // only mmap past this point: a limit just above what the process maps now
        long pages = 0;
        if (FILE* f = std::fopen("/proc/self/statm", "r")) {
            if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
            std::fclose(f);
        }
        const rlimit limit{static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (rlim_t{16} << 20),
                           RLIM_INFINITY};
        if (pages == 0 || setrlimit(RLIMIT_AS, &limit) != 0) _exit(10);
        histogram big({1, INT64_MAX, 5});  // 47 MiB of counters
        if (big.allocated() || big.record(5) || big.count() != 0 || big.min() != 0) _exit(11);
        histogram small({1, 1000, 1});
        small.record(5);
        if (big.merge(small) != 1 || big.count() != 0) _exit(12);  // all dropped, nothing written
        const histogram copy = big;
        if (copy.allocated() || copy.count() != 0) _exit(13);
        std::vector<report_run> runs;  // the saved result is refused, saying why
        std::string problem;
        if (read_report_runs(saved, "", runs, &problem).code != errc::result_bad_field) _exit(14);
        if (problem != "latency_ns.connect.histogram needs more memory for its counters than can be mapped") _exit(15);
        _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));  // not killed by an abort
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("hlog runs: tags that begin later start later, every row also joins the totals across logs") {
    histogram h({1, 3'600'000'000'000, 3});
    h.record(2'000'000, 4);
    std::string log;
    append_hlog_header(1000.0, log);
    REQUIRE(append_hlog_row("warmup", 0, 1, h, log));
    REQUIRE(append_hlog_row("steady", 1, 1, h, log));
    REQUIRE(append_hlog_row("steady", 2, 1, h, log));
    std::vector<report_run> runs;
    std::vector<hlog_tag_total> all;
    std::string message;
    REQUIRE(add_hlog_runs(log, "a.hlog", "a", runs, message, &all));
    REQUIRE(add_hlog_runs(log, "b.hlog", "b", runs, message, &all));  // a second log joins the same totals
    REQUIRE(runs.size() == 4);
    REQUIRE(runs[1].r.intervals.size() == 2);
    CHECK(runs[0].r.intervals[0].start_ns == 0);
    CHECK(runs[1].r.intervals[0].start_ns == 1'000'000'000);  // from the log's first row, not its own
    CHECK(runs[1].r.elapsed_ns == 2'000'000'000);
    REQUIRE(all.size() == 2);
    CHECK(all[1].tag == "steady");
    CHECK(all[1].intervals == 4);
    CHECK(all[1].values.count() == 16);

    std::vector<report_run> none;  // beyond the limit: refused, nothing appended
    CHECK_FALSE(add_hlog_runs(log, "c.hlog", "c", none, message, nullptr, 1024));
    CHECK(message.rfind("line 6: its highest trackable value, 3600000000000 at 3 significant figures", 0) == 0);
    CHECK(none.empty());
}

TEST_CASE("hlog bounds: a row is held within the limit beside the totals when no total grows, too") {
    histogram deep({1, std::int64_t{1} << 53, 5}), wide({1, INT64_MAX, 5});
    deep.record(std::int64_t{1} << 52);
    wide.record(5);  // within tag a's total: it does not grow, yet its row needs 47 MiB
    std::string log;
    append_hlog_header(1000.0, log);
    REQUIRE(append_hlog_row("a", 0, 1, deep, log));
    REQUIRE(append_hlog_row("a", 1, 1, wide, log));
    std::vector<hlog_tag_total> totals;
    std::string message;
    CHECK_FALSE(add_hlog_totals(log, totals, message, std::size_t{80} << 20));
    CHECK(message == "line 7: Tag=a: its row's highest trackable value, 9223372036854775807 at 5 significant figures, "
                     "needs 47.0 MiB of counters; with the tags' totals (38.0 MiB), above the reader's limit of 80.0 MiB");
}

TEST_CASE("hlog bounds: a total that grows keeps every value, its minimum, maximum and sum exact") {
    histogram small({1, 1000, 3}), large({1, std::int64_t{1} << 40, 3});
    small.record(3, 5);
    small.record(900);
    large.record(2'000'000'000, 2);
    large.record(7);
    std::string log;
    append_hlog_header(1000.0, log);
    REQUIRE(append_hlog_row("t", 0, 1, small, log));
    REQUIRE(append_hlog_row("t", 1, 1, large, log));  // past the total's range: it grows
    REQUIRE(append_hlog_row("t", 2, 1, small, log));
    std::vector<hlog_tag_total> totals;
    std::string message;
    REQUIRE(add_hlog_totals(log, totals, message));
    histogram reference({1, INT64_MAX, 3});  // the rows as decoded, merged into the widest layout
    for (const histogram* h : {&small, &large, &small}) {
        std::string encoded;
        encode_hdr_v2_compressed(*h, encoded);
        histogram decoded;
        REQUIRE_FALSE(decode_hdr_v2(encoded, decoded));
        CHECK(reference.merge(decoded) == 0);
    }
    REQUIRE(totals.size() == 1);
    const histogram& t = totals[0].values;
    CHECK(t.config().highest_trackable_value < INT64_MAX);
    CHECK(same_figures(t, reference));
    CHECK(t.count() == 15);
}
