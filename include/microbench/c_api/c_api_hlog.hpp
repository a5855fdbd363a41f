// microbench/c_api/c_api_hlog.hpp — the C API's reading of HdrHistogram interval logs: an mb_hlog
// holds every row added so far merged per tag (add_hlog_totals), and hands out each tag's figures,
// percentiles and .hgrm spectrum. Compiled only where MICROBENCH_C_IMPLEMENTATION is defined, after
// c_api.hpp.
#pragma once

#ifdef MICROBENCH_C_IMPLEMENTATION

#include "../report/report_hgrm.hpp"
#include "../report/report_hlog.hpp"
#include "c_api.hpp"

struct mb_hlog {
    // Room for every tag a log may have, made once: the tags' strings, handed out as const char*,
    // never move.
    mb_hlog() { totals.reserve(microbench::hlog_max_tags); }
    std::vector<microbench::hlog_tag_total> totals;
    std::string message;
    std::size_t max_bytes = microbench::hlog_default_max_bytes;
};

extern "C" {

MB_API int mb_hlog_create(mb_hlog** out) {
    if (!out) return MB_INVALID_ARGUMENT;
    *out = nullptr;
    MICROBENCH_C_TRY
    *out = new (std::nothrow) mb_hlog;
    return *out ? MB_OK : MB_OUT_OF_MEMORY;
    MICROBENCH_C_CATCH(MB_OUT_OF_MEMORY)
}

MB_API void mb_hlog_destroy(mb_hlog* hlog) { delete hlog; }

MB_API int mb_hlog_add(mb_hlog* hlog, const char* text, size_t size) {
    if (!hlog || (!text && size)) return MB_INVALID_ARGUMENT;
    MICROBENCH_C_TRY
    hlog->message.clear();
    std::string copy(text ? text : "", size);
    return microbench::add_hlog_totals(std::move(copy), hlog->totals, hlog->message, hlog->max_bytes) ? MB_OK
                                                                                                       : MB_HLOG_BAD;
    MICROBENCH_C_CATCH(MB_OUT_OF_MEMORY)
}

MB_API int mb_hlog_set_max_memory(mb_hlog* hlog, uint64_t bytes) {
    if (!hlog || bytes == 0) return MB_INVALID_ARGUMENT;
    hlog->max_bytes = bytes > SIZE_MAX ? SIZE_MAX : static_cast<std::size_t>(bytes);
    return MB_OK;
}

MB_API const char* mb_hlog_message(const mb_hlog* hlog) { return hlog ? hlog->message.c_str() : ""; }

MB_API size_t mb_hlog_tag_count(const mb_hlog* hlog) { return hlog ? hlog->totals.size() : 0; }

MB_API int mb_hlog_tag_info(const mb_hlog* hlog, size_t index, mb_hlog_tag* out, size_t size) {
    if (!hlog || !out || index >= hlog->totals.size()) return MB_INVALID_ARGUMENT;
    const microbench::hlog_tag_total& t = hlog->totals[index];
    const microbench::histogram& h = t.values;
    mb_hlog_tag c{};
    c.tag = t.tag.c_str();
    c.intervals = t.intervals;
    c.count = h.count();
    c.start_s = t.first_start_s;
    c.end_s = t.last_end_s;
    if (!h.empty()) {
        c.min = h.min();
        c.max = h.max();
        c.mean = h.mean();
        c.stddev = h.stddev();
    }
    std::memcpy(out, &c, size < sizeof c ? size : sizeof c);
    return MB_OK;
}

MB_API int64_t mb_hlog_percentile(const mb_hlog* hlog, size_t index, double percentile) {
    if (!hlog || index >= hlog->totals.size() || !(percentile >= 0 && percentile <= 100)) return 0;
    const microbench::histogram& h = hlog->totals[index].values;
    return h.empty() ? 0 : h.value_at_percentile(percentile);
}

MB_API size_t mb_hlog_hgrm(const mb_hlog* hlog, size_t index, double scale, char* buf, size_t size) {
    if (!hlog || index >= hlog->totals.size() || !(scale > 0)) return microbench::detail::no_text(buf, size);
    MICROBENCH_C_TRY
    std::string text;
    microbench::append_hgrm(hlog->totals[index].values, scale, 5, text);
    return microbench::detail::copy_out(text, buf, size);
    MICROBENCH_C_CATCH(microbench::detail::no_text(buf, size))
}

}  // extern "C"

#endif  // MICROBENCH_C_IMPLEMENTATION
