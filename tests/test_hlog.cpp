// HdrHistogram's interval log: zlib streams both ways (core/zlib.hpp), the V2 histogram encoding
// (stats/histogram_hdr.hpp), the log's text (report/report_hlog.hpp) and the rows a run hands to
// on_interval_histograms. tests/data/zlib holds streams Python's zlib 1.2.13 deflated from
// plain.bin — stored, fixed and dynamic Huffman blocks — so the reader is held to zlib's writer.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "microbench.hpp"
#include "run_helpers.hpp"

using namespace microbench;

namespace {

std::string data_file(const std::string& name) {
    std::ifstream in(std::string(MICROBENCH_TESTS_DIR) + "/data/zlib/" + name, std::ios::binary);
    REQUIRE(in.good());
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string hex(const std::string& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) out += {digits[c >> 4], digits[c & 15]};
    return out;
}

bool same_counts(const histogram& a, const histogram& b) {
    if (a.count() != b.count() || a.counts_length() != b.counts_length()) return false;
    for (std::size_t i = 0; i < a.counts_length(); ++i)
        if (a.count_at_index(i) != b.count_at_index(i)) return false;
    return true;
}

}  // namespace

TEST_CASE("zlib: Adler-32 and stored streams") {
    CHECK(adler32("Wikipedia") == 0x11E60398u);  // RFC 1950's checksum of a known text
    CHECK(adler32("") == 1u);
    std::string big(200'000, '\0');
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 7919) >> 5);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{65535}, std::size_t{65536}, big.size()}) {
        CAPTURE(n);
        std::string framed, back;
        zlib_store(std::string_view(big).substr(0, n), framed);
        CHECK(framed.size() == 2 + 5 * (n / 65535 + (n % 65535 || n == 0 ? 1 : 0)) + n + 4);
        REQUIRE_FALSE(zlib_inflate(framed, back, n));
        CHECK(back == big.substr(0, n));
        if (n) CHECK(zlib_inflate(framed, back, n - 1).code == errc::histogram_encoding_corrupt);  // past the limit
    }
}

TEST_CASE("zlib: inflates what zlib deflated, every block type") {
    const std::string plain = data_file("plain.bin");
    REQUIRE(plain.size() == 39796);
    for (const char* name : {"level0.z", "level1.z", "level9.z", "fixed.z", "huffman_only.z", "rle.z"}) {
        CAPTURE(name);
        const std::string z = data_file(name);
        std::string out = "kept";  // appends
        REQUIRE_FALSE(zlib_inflate(z, out, plain.size()));
        CHECK(out == "kept" + plain);
        // Cut anywhere, it is never read as whole; without its whole Adler-32 (HdrHistogram.NET
        // writes none) it is read as long as its blocks are whole.
        for (std::size_t cut = 0; cut < z.size(); cut += cut + 8 < z.size() ? 1 + cut / 16 : 1) {
            CAPTURE(cut);
            std::string part;
            if (cut == z.size() - 4) {
                REQUIRE_FALSE(zlib_inflate(std::string_view(z).substr(0, cut), part, plain.size()));
                CHECK(part == plain);
            } else {
                CHECK(zlib_inflate(std::string_view(z).substr(0, cut), part, plain.size()));
            }
        }
        // A changed bit is an error, never a crash or wrong bytes read as right (a bit the format
        // ignores — padding after a block header or the last code — changes nothing).
        for (std::size_t at = 0; at < z.size(); at += 1 + at / 8) {
            std::string bad = z, part;
            bad[at] = static_cast<char>(bad[at] ^ (1 << (at % 8)));
            if (!zlib_inflate(bad, part, plain.size())) CHECK(part == plain);
        }
    }
    std::string out;
    CHECK(zlib_inflate(std::string("\x78\x01\x07", 3), out, 10).code == errc::histogram_encoding_corrupt);  // block type 3
    CHECK(zlib_inflate(std::string("\x78\x21", 2), out, 10).code == errc::histogram_encoding_corrupt);      // a dictionary
    CHECK(zlib_inflate(std::string("\x79\x01", 2), out, 10).code == errc::histogram_encoding_corrupt);      // not deflate
}

TEST_CASE("hdr v2: the bytes HdrHistogram's encoders write") {
    histogram_config c;
    c.lowest_discernible_value = 1;
    c.highest_trackable_value = 3600LL * 1000 * 1000 * 1000;
    c.significant_figures = 3;
    const std::string header_tail = "00000000" "00000003" "0000000000000001" "0000034630b8a000" "3ff0000000000000";
    SUBCASE("an empty histogram: one bucket, a single 0") {
        histogram h(c);
        std::string out;
        encode_hdr_v2(h, out);
        CHECK(hex(out) == "1c849313" "00000001" + header_tail + "00");
    }
    SUBCASE("buckets 1 and 2, and a run of empty ones before 1000") {
        histogram h(c);
        h.record(1, 2);
        h.record(2);
        h.record(1000, 3);
        std::string out;
        encode_hdr_v2(h, out);
        // 0 (one empty bucket), 2 and 1 zigzagged (4, 2), 997 empty ones (-997: 1993 = c9 0f), 3 (6).
        CHECK(hex(out) == "1c849313" "00000006" + header_tail + "00" "04" "02" "c90f" "06");
        histogram back;
        REQUIRE_FALSE(decode_hdr_v2(out, back));
        CHECK(same_counts(h, back));
        CHECK(back.min() == 1);
        CHECK(back.max() == 1000);
        CHECK(back.value_at_percentile(50) == 2);
    }
    SUBCASE("counts of 56 bits and more take the ninth byte whole") {
        histogram h(c);
        h.record(5, std::uint64_t{1} << 62);
        h.record(7, 3);
        std::string out, compressed;
        encode_hdr_v2(h, out);
        // Five empty buckets (-5: 09), then 2^62 zigzagged to 2^63: eight empty 7-bit groups and 0x80.
        CHECK(hex(out).substr(80, 20) == "09" "808080808080808080");
        encode_hdr_v2_compressed(h, compressed);
        CHECK(hex(compressed).substr(0, 8) == "1c849314");
        histogram back;
        REQUIRE_FALSE(decode_hdr_v2(compressed, back));
        CHECK(same_counts(h, back));
    }
}

TEST_CASE("hdr v2: round trips and refusals") {
    histogram h;
    std::uint64_t x = 9;
    for (int i = 0; i < 50'000; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        h.record(static_cast<std::int64_t>((x >> 30) % 50'000'000));
    }
    std::string bytes;
    encode_hdr_v2_compressed(h, bytes);
    histogram back;
    REQUIRE_FALSE(decode_hdr_v2(bytes, back));
    CHECK(same_counts(h, back));
    CHECK(back.equivalent(back.min(), h.min()));
    CHECK(back.equivalent(back.max(), h.max()));
    for (double p : {1.0, 50.0, 90.0, 99.0, 99.9, 99.99}) CHECK(back.equivalent(back.value_at_percentile(p), h.value_at_percentile(p)));
    CHECK(std::fabs(back.mean() - h.mean()) < h.mean() * 1e-3);

    for (std::size_t cut = 0; cut < bytes.size(); cut += 1 + cut / 4) CHECK(decode_hdr_v2(bytes.substr(0, cut), back));
    std::string plain;
    encode_hdr_v2(h, plain);
    std::string bad = plain;
    bad[3] = '\x11';  // V1's cookie
    CHECK(decode_hdr_v2(bad, back).code == errc::histogram_encoding_bad_magic);
    bad = plain;
    bad[11] = '\x01';  // a normalizing offset of 1 and a ratio of 1 as an integer, as hdr-histogram-js writes them
    bad.replace(32, 8, std::string("\0\0\0\0\0\0\0\x01", 8));
    REQUIRE_FALSE(decode_hdr_v2(bad, back));
    CHECK(same_counts(h, back));
    bad = plain;
    bad[15] = '\x00';  // 0 significant figures: HdrHistogram allows it, microbench cannot hold it
    CHECK(decode_hdr_v2(bad, back).code == errc::histogram_bad_config);
    histogram empty;  // a run of empty buckets to the layout's end, then one more bucket
    std::string far_past;
    detail::put_zigzag(far_past, -static_cast<std::int64_t>(empty.counts_length()));
    std::string past = plain.substr(0, 40) + far_past + "\x02";
    past[4] = past[5] = past[6] = 0;
    past[7] = static_cast<char>(far_past.size() + 1);
    CHECK(decode_hdr_v2(past, back).code == errc::histogram_encoding_corrupt);
}

TEST_CASE("hlog: written as Java's HistogramLogWriter writes it, read back") {
    histogram a, b;
    a.record(1'500'000);
    a.record(2'000'000, 9);
    b.record(700);
    std::string log;
    append_hlog_header(1764669941.25, log);
    append_hlog_row("response", 0.0, 1.0, a, log);
    append_hlog_row("service", 0.0, 1.0, b, log);
    append_hlog_row("", 1.0, 0.5, b, log);
    std::istringstream lines(log);
    std::string line;
    std::vector<std::string> all;
    while (std::getline(lines, line)) all.push_back(line);
    REQUIRE(all.size() == 8);
    CHECK(all[0] == std::string("#[Logged with microbench ") + version_string + "]");
    CHECK(all[1] == "#[Histogram log format version 1.3]");
    CHECK(all[2] == "#[StartTime: 1764669941.250 (seconds since epoch), Tue Dec 02 10:05:41 UTC 2025]");
    CHECK(all[3] == "#[BaseTime: 1764669941.250 (seconds since epoch)]");
    CHECK(all[4] == "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"");
    CHECK(all[5].rfind("Tag=response,0.000,1.000,2.000,HISTFAAA", 0) == 0);  // the compressed cookie in base64
    CHECK(all[7].rfind("1.000,0.500,0.001,HISTFAAA", 0) == 0);

    hlog_reader reader(log);
    hlog_interval row;
    REQUIRE(reader.next(row));
    CHECK(row.tag == "response");
    CHECK(row.start_s == doctest::Approx(1764669941.25));
    CHECK(row.length_s == 1.0);
    CHECK(same_counts(row.values, a));
    REQUIRE(reader.next(row));
    CHECK(row.tag == "service");
    CHECK(same_counts(row.values, b));
    REQUIRE(reader.next(row));
    CHECK(row.tag.empty());
    CHECK(row.start_s == doctest::Approx(1764669942.25));
    CHECK_FALSE(reader.next(row));
    CHECK(reader.message().empty());
    CHECK(reader.start_time_s() == doctest::Approx(1764669941.25));

    SUBCASE("UTF-16 with a byte-order mark, as HdrHistogram.NET writes; absolute times without BaseTime") {
        std::string wide = "\xff\xfe";
        std::string narrow = "#[StartTime: 1000.500 (seconds since epoch), x]\n" + all[5].substr(0, 13) + "1002.000" + all[5].substr(18) + "\r\n";
        for (char ch : narrow) wide += {ch, '\0'};
        hlog_reader wide_reader(wide);
        REQUIRE(wide_reader.next(row));
        CHECK(row.tag == "response");
        CHECK(row.start_s == 1002.0);  // within a year of StartTime: absolute
        CHECK(same_counts(row.values, a));
    }
    SUBCASE("without BaseTime, times more than a year before StartTime are relative to it") {
        const std::string text = "#[StartTime: 1764669941.000 (seconds since epoch)]\n" + all[7] + "\n";
        hlog_reader relative(text);
        REQUIRE(relative.next(row));
        CHECK(row.start_s == doctest::Approx(1764669942.0));
    }
    SUBCASE("a line it cannot read is named") {
        hlog_reader bad(log.substr(0, log.size() - 10) + "!!\n");
        CHECK(bad.next(row));
        CHECK(bad.next(row));
        CHECK_FALSE(bad.next(row));
        CHECK(bad.message() == "line 8: the histogram is not base64");
        hlog_reader garbled("0.1,0.2\n");
        CHECK_FALSE(garbled.next(row));
        CHECK(garbled.message() == "line 1: not a row: expected [Tag=NAME,]START,LENGTH,MAX,HISTOGRAM");
    }
}

TEST_CASE("hlog: totals per tag merge every row exactly, auto-resized layouts too") {
    // Rows of one layout but for the highest trackable value, as Java's auto-resizing histograms
    // and hdr-histogram-js' default write them: the second row holds a value past the first's range.
    histogram_config small{1, 1000, 3}, wide{1, 3600LL * 1000 * 1000 * 1000, 3};
    histogram first(small), second(wide);
    first.record(3, 5);
    first.record(900);
    second.record(900, 2);
    second.record(2'000'000'000);
    std::string log;
    append_hlog_header(1000.0, log);
    REQUIRE(append_hlog_row("response", 0, 1, first, log));
    REQUIRE(append_hlog_row("response", 1, 1, second, log));
    REQUIRE(append_hlog_row("", 2, 0.5, first, log));
    CHECK_FALSE(append_hlog_row("a,b", 2, 1, first, log));  // would break the row
    CHECK_FALSE(append_hlog_row("a\nb", 2, 1, first, log));
    std::vector<hlog_tag_total> totals;
    std::string message;
    REQUIRE(add_hlog_totals(log, totals, message));
    REQUIRE(add_hlog_totals(log, totals, message));  // a second generator's log: the same again
    REQUIRE(totals.size() == 2);
    CHECK(totals[0].tag == "response");
    CHECK(totals[0].intervals == 4);
    CHECK(totals[0].values.count() == 18);
    CHECK(totals[0].values.value_at_percentile(50) == 3);
    CHECK(totals[0].values.equivalent(totals[0].values.max(), 2'000'000'000));
    CHECK(totals[0].first_start_s == 1000.0);
    CHECK(totals[0].last_end_s == 1002.0);
    CHECK(totals[1].tag.empty());
    CHECK(totals[1].values.count() == 12);

    std::string many;
    append_hlog_header(1000.0, many);
    for (std::size_t k = 0; k <= hlog_max_tags; ++k) REQUIRE(append_hlog_row("t" + std::to_string(k), 0, 1, first, many));
    totals.clear();
    CHECK_FALSE(add_hlog_totals(many, totals, message));
    CHECK(message == "line " + std::to_string(5 + hlog_max_tags + 1) + ": more than 256 tags");
    CHECK(totals.size() == hlog_max_tags);
}

TEST_CASE("hlog runs: a tag is a run, its rows its interval rows in time order, drawn with what a log holds") {
    histogram fast({1, 3600LL * 1000 * 1000 * 1000, 3}), slow(fast.config());
    fast.record(2'000'000, 90);   // 2 ms
    fast.record(40'000'000, 10);  // 40 ms
    slow.record(7'000'000, 30);
    std::string log;
    append_hlog_header(1000.0, log);
    REQUIRE(append_hlog_row("response", 1, 1, slow, log));  // written out of order: sorted by start
    REQUIRE(append_hlog_row("response", 0, 1, fast, log));
    REQUIRE(append_hlog_row("", 0, 2.5, slow, log));
    std::vector<report_run> runs(1);  // a run already there stays first
    std::string message;
    REQUIRE(add_hlog_runs(log, "a.hlog", "a", runs, message));
    REQUIRE(runs.size() == 3);
    const report_run& response = runs[1];
    CHECK(response.label == "response");
    CHECK(response.scenario == "a");
    CHECK(response.config.url == "Tag=response in a.hlog");
    CHECK(response.log_rows == 2);
    CHECK(response.r.requests_ended == 130);
    CHECK(response.r.elapsed_ns == 2'000'000'000);
    CHECK(fast.equivalent(response.r.total_ns.value_at_percentile(50), 2'000'000));  // both rows' values
    CHECK(fast.equivalent(response.r.total_ns.value_at_percentile(75), 7'000'000));
    CHECK(response.r.total_ns.equivalent(response.r.total_ns.max(), 40'000'000));
    REQUIRE(response.r.intervals.size() == 2);
    const interval_stats& first = response.r.intervals[0];
    CHECK(first.start_ns == 0);
    CHECK(first.duration_ns == 1'000'000'000);
    CHECK(first.ended == 100);
    CHECK(first.rate() == 100.0);
    CHECK(fast.equivalent(first.p50_ns, 2'000'000));
    CHECK(fast.equivalent(first.p99_ns, 40'000'000));
    CHECK(response.r.intervals[1].start_ns == 1'000'000'000);
    CHECK(response.r.intervals[1].completed == 30);
    CHECK(runs[2].label == "(none)");
    CHECK(runs[2].config.url == "rows without a tag in a.hlog");
    CHECK(runs[2].r.elapsed_ns == 2'500'000'000);

    runs.erase(runs.begin());
    const std::string html = html_report(runs);
    CHECK(html.find("values by percentile") != std::string::npos);
    CHECK(html.find("values over time (p99, p50)") != std::string::npos);
    CHECK(html.find("<h3>Interval log</h3>") != std::string::npos);
    CHECK(html.find("Tag=response in a.hlog") != std::string::npos);
    CHECK(html.find("Failures by reason") == std::string::npos);  // a log knows nothing of failures
    CHECK(html.find("connect by percentile") == std::string::npos);

    std::vector<report_run> none;  // a bad line: false, the line, and nothing appended
    REQUIRE(add_hlog_runs(log + "Tag=x,1,1,1,!!!\n", "b.hlog", "b", none, message) == false);
    CHECK(message == "line 9: the histogram is not base64");
    CHECK(none.empty());
}

namespace {

struct logged {
    std::vector<interval_stats> rows;
    std::uint64_t response = 0, service = 0, lag = 0;
    std::int64_t start_realtime_ns = 0;
    bool service_within_response = true;
};

void on_histograms(const interval_stats& row, const interval_histograms& h, void* user) {
    auto* l = static_cast<logged*>(user);
    l->rows.push_back(row);
    l->response += h.response->count();
    l->service += h.service->count();
    l->lag += h.schedule_lag->count();
    l->start_realtime_ns = h.run_start_realtime_ns;
    if (h.response->count() != row.latency_count) l->service_within_response = false;
    if (!h.service->empty() && h.service->max() > h.response->max()) l->service_within_response = false;
}

}  // namespace

TEST_CASE("on_interval_histograms: every completed request in exactly one interval's histograms") {
    server srv;
    REQUIRE_FALSE(srv.start({}));
    const std::string url = "http://127.0.0.1:" + std::to_string(srv.port()) + "/";
    SUBCASE("a fixed rate: response, service and schedule lag") {
        logged l;
        plan p;
        p.url(url).rate(2000).requests(600).concurrency(8).interval_ms(100).keep_alive(true);
        p.on_interval_histograms(on_histograms, &l);
        result r = run_ok(p);
        CHECK(r.requests_completed == 600);
        CHECK(l.response == 600);
        CHECK(l.service == 600);
        CHECK(l.lag == 600);
        CHECK(l.service_within_response);
        CHECK(l.rows.size() == r.intervals.size());
        CHECK(l.start_realtime_ns == r.start_realtime_ns);
    }
    SUBCASE("a closed loop: the total time only") {
        logged l;
        plan p;
        p.url(url).requests(500).concurrency(4).interval_ms(50);
        p.on_interval_histograms(on_histograms, &l);
        result r = run_ok(p);
        CHECK(r.requests_completed == 500);
        CHECK(l.response == 500);
        CHECK(l.service == 0);
        CHECK(l.lag == 0);
        CHECK(l.service_within_response);
    }
}
