// Fuzz target for HdrHistogram's interval logs and what they are made of: any bytes, read as a
// log, are rows merged by tag — each tag's total holding every value and row its rows hold — or
// refused at a named line (never a crash, a hang or unbounded memory);
// read as a zlib stream, bytes that inflate store and inflate back to the same bytes; read as a
// V2-encoded histogram, one that decodes encodes and decodes back to the same counts.
// Built as a libFuzzer target by tests/fuzz/CMakeLists.txt; the unit tests replay the corpus.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "microbench.hpp"

// 0 when every property holds.
int microbench_fuzz_hlog(const std::uint8_t* data, std::size_t size) {
    using namespace microbench;
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    std::vector<hlog_tag_total> totals;
    std::string message;
    if (!add_hlog_totals(bytes, totals, message)) {
        if (message.compare(0, 5, "line ") != 0) return 1;
    } else if (detail::hlog_totals_bytes(totals) > hlog_default_max_bytes) {
        return 7;  // the totals' counters stay within the reader's limit
    } else {
        // The rows again, one at a time: every tag's values and rows are in its total.
        hlog_reader reader(bytes);
        hlog_interval row;
        std::vector<std::uint64_t> counts(totals.size()), rows(totals.size());
        while (reader.next(row)) {
            std::size_t k = 0;
            while (k < totals.size() && totals[k].tag != row.tag) ++k;
            if (k == totals.size()) return 2;
            counts[k] += row.values.count();
            ++rows[k];
        }
        for (std::size_t k = 0; k < totals.size(); ++k)
            if (totals[k].values.count() != counts[k] || totals[k].intervals != rows[k]) return 2;
        // As the HTML report's runs: a run per tag, its interval rows adding up to its total.
        std::vector<report_run> runs;
        if (!add_hlog_runs(bytes, "log", "log", runs, message) || runs.size() != totals.size()) return 6;
        for (std::size_t k = 0; k < runs.size(); ++k) {
            std::uint64_t sum = 0;
            for (const interval_stats& s : runs[k].r.intervals) sum += s.ended;
            if (sum != counts[k] || runs[k].r.requests_ended != counts[k] || runs[k].log_rows != rows[k]) return 6;
        }
    }

    std::string inflated, framed, again;
    if (!zlib_inflate(bytes, inflated, std::size_t{1} << 20)) {
        zlib_store(inflated, framed);
        if (zlib_inflate(framed, again, inflated.size()) || again != inflated) return 3;
    }

    histogram h;
    if (!decode_hdr_v2(bytes, h)) {
        std::string encoded;
        encode_hdr_v2_compressed(h, encoded);
        histogram back;
        if (decode_hdr_v2(encoded, back) || back.count() != h.count() || back.counts_length() != h.counts_length()) return 4;
        for (std::size_t i = 0; i < h.counts_length(); ++i)
            if (back.count_at_index(i) != h.count_at_index(i)) return 5;
    }
    return 0;
}

#ifndef MICROBENCH_FUZZ_NO_ENTRY_POINT
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (microbench_fuzz_hlog(data, size) != 0) __builtin_trap();
    return 0;
}
#endif
