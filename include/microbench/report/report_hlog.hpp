// microbench/report/report_hlog.hpp — HdrHistogram's interval log, format version 1.3, both ways.
// Written as Java's HistogramLogWriter writes it: "#[Logged with …]", "#[Histogram log format
// version 1.3]", "#[StartTime: …]", "#[BaseTime: …]", the legend, then a row per metric per
// interval, "Tag=NAME,start,length,max,BASE64": start relative to BaseTime and length in seconds,
// the interval's maximum in milliseconds (values are nanoseconds), the histogram in the compressed
// V2 encoding (histogram_hdr.hpp). HdrHistogram's log processor, plotter and libraries read it.
// Read as its readers read it: comments and the legend skipped, StartTime and BaseTime taken, a
// log without BaseTime taken as absolute unless its first row lies more than a year before its
// StartTime (then relative to it); tags optional; UTF-8, or UTF-16 as HdrHistogram.NET writes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/appendf.hpp"
#include "../core/ascii.hpp"
#include "../core/decimal.hpp"
#include "../core/version.hpp"
#include "../stats/histogram.hpp"
#include "../stats/histogram_codec.hpp"
#include "../stats/histogram_hdr.hpp"
#include "../stats/result.hpp"

namespace microbench {

// Appends the log's header for a run that started `start_s` seconds after the epoch; rows then
// give their start relative to it.
inline void append_hlog_header(double start_s, std::string& out) {
    static constexpr char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    const auto whole = static_cast<std::time_t>(start_s);
    std::tm t{};
    gmtime_r(&whole, &t);
    using detail::appendf;
    appendf(out, "#[Logged with microbench %s]\n", MICROBENCH_VERSION_STRING);
    appendf(out, "#[Histogram log format version 1.3]\n");
    // The date as Java's Date.toString() gives it, in UTC and in English whatever the locale.
    appendf(out, "#[StartTime: %.3f (seconds since epoch), %s %s %02d %02d:%02d:%02d UTC %d]\n", start_s,
            days[t.tm_wday % 7], months[t.tm_mon % 12], t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, t.tm_year + 1900);
    appendf(out, "#[BaseTime: %.3f (seconds since epoch)]\n", start_s);
    out += "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
}

// Appends one interval's row: `tag` (letters, digits, '_' or '-'; empty: none), its start after
// the log's BaseTime and its length in seconds, and `h` (nanoseconds). False, and nothing
// appended, for a tag with another character (a ',' or a line break would break the row).
inline bool append_hlog_row(std::string_view tag, double start_s, double length_s, const histogram& h,
                            std::string& out) {
    for (char c : tag)
        if (!detail::is_alpha(c) && !detail::is_digit(c) && c != '_' && c != '-') return false;
    std::string encoded, text;
    encode_hdr_v2_compressed(h, encoded);
    base64_encode(encoded, text);
    if (!tag.empty()) out.append("Tag=").append(tag).push_back(',');
    detail::appendf(out, "%.3f,%.3f,%.3f,", start_s, length_s, static_cast<double>(h.max()) / 1e6);
    out += text;
    out.push_back('\n');
    return true;
}

// Appends one interval's rows as microbench tags them: Tag=total in a closed loop; at a fixed
// rate Tag=response, Tag=service and Tag=schedule_lag.
inline void append_hlog_interval(const interval_stats& row, bool fixed_rate, const histogram& response,
                                 const histogram& service, const histogram& schedule_lag, std::string& out) {
    const double start = static_cast<double>(row.start_ns) / 1e9, length = static_cast<double>(row.duration_ns) / 1e9;
    append_hlog_row(fixed_rate ? "response" : "total", start, length, response, out);
    if (!fixed_rate) return;
    append_hlog_row("service", start, length, service, out);
    append_hlog_row("schedule_lag", start, length, schedule_lag, out);
}

// Appends the whole log of a run that kept its interval histograms (plan::interval_histograms):
// the header at the run's start, then each interval's rows. False, and nothing appended, when the
// result has no interval rows, kept no histograms, or one does not decode.
inline bool append_hlog(const result& r, std::string& out) {
    if (r.intervals.empty() || r.interval_histograms.size() != r.intervals.size()) return false;
    std::string log;
    append_hlog_header(static_cast<double>(r.start_realtime_ns) / 1e9, log);
    histogram response, service, lag;
    for (std::size_t i = 0; i < r.intervals.size(); ++i) {
        const interval_histogram_set& kept = r.interval_histograms[i];
        if (decode_histogram(kept.response, response) || decode_histogram(kept.service, service) ||
            decode_histogram(kept.schedule_lag, lag))
            return false;
        append_hlog_interval(r.intervals[i], r.rate_target > 0, response, service, lag, log);
    }
    out += log;
    return true;
}

namespace detail {

// "38.0 MiB", or "1000 bytes" below a tenth of a MiB.
inline std::string size_text(std::size_t bytes) {
    std::string out;
    if (bytes < (std::size_t{1} << 20) / 10) appendf(out, "%zu bytes", bytes);
    else appendf(out, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    return out;
}

// "its highest trackable value, 9007199254740992 at 5 significant figures, needs 38.0 MiB of
// counters" (`whose`: "its"), then `rest`.
inline std::string layout_needs(const char* whose, const histogram_config& c, const char* rest) {
    std::string out;
    appendf(out, "%s highest trackable value, %lld at %d significant figures, needs %s of counters%s", whose,
            static_cast<long long>(c.highest_trackable_value), c.significant_figures,
            size_text(histogram::memory_bytes(c)).c_str(), rest);
    return out;
}

}  // namespace detail

// One row of a log.
struct hlog_interval {
    std::string tag;  // empty when the row has none
    double start_s = 0;   // seconds since the epoch (or since the log's start when it gives no time)
    double length_s = 0;
    histogram values;
    std::vector<std::size_t> filled;  // values' non-empty bucket indexes, lowest first: merge(values, filled)
};

// What the counters of a log's histograms may take at most, by default: a row's own, and in
// add_hlog_totals and add_hlog_runs every tag's total with it. Counters are mapped lazily, so this
// bounds address space more than memory touched: 128 MiB fits a 32-bit process (3 GiB) many
// times, and holds 256 tags of 3 significant figures up to an hour (264 KiB each), or a tag of 5
// figures over the whole 63-bit range beside such a row (47 MiB each).
constexpr std::size_t hlog_default_max_bytes = std::size_t{128} << 20;

// Reads a log's rows one at a time, from its own copy of the text. A row whose histogram's layout
// needs more than `max_bytes` of counters is refused (the line and its layout in message()).
class hlog_reader {
public:
    explicit hlog_reader(std::string text, std::size_t max_bytes = hlog_default_max_bytes)
        : text_(std::move(text)), max_bytes_(max_bytes) {
        if (text_.compare(0, 2, "\xff\xfe") == 0) {
            narrow_utf16(std::string_view(text_).substr(2));
        } else if (text_.find('\0') == 1) {  // UTF-16LE without a mark: ASCII, then the first NUL
            narrow_utf16(text_);
        } else if (text_.compare(0, 3, "\xef\xbb\xbf") == 0) {
            pos_ = 3;
        }
    }

    // The next row into `out`: true; false at the end of the log, or at a line it cannot read —
    // then message() says which line and why.
    bool next(hlog_interval& out) {
        while (message_.empty() && pos_ < text_.size()) {
            std::size_t end = text_.find('\n', pos_);
            if (end == std::string::npos) end = text_.size();
            std::string_view line = std::string_view(text_).substr(pos_, end - pos_);
            pos_ = end + 1;
            ++line_number_;
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            if (line.empty() || line[0] == '"') continue;  // the legend
            if (line[0] == '#') {
                header_time(line, "#[StartTime: ", start_time_s_);
                if (header_time(line, "#[BaseTime: ", base_time_s_)) base_known_ = true;
                continue;
            }
            if (row(line, out)) return true;
        }
        return false;
    }

    const std::string& message() const { return message_; }
    // The line the last row (or the message) came from, from 1.
    std::size_t line_number() const { return line_number_; }
    // From #[StartTime: …], NaN when the log has none.
    double start_time_s() const { return start_time_s_; }

private:
    // HdrHistogram.NET writes UTF-16LE; a log is ASCII, so every second byte must be 0.
    void narrow_utf16(std::string_view wide) {
        std::string narrow;
        for (std::size_t i = 0; i + 1 < wide.size(); i += 2) {
            if (wide[i + 1] != 0 || wide[i] == 0) {
                line_number_ = 1 + static_cast<std::size_t>(std::count(narrow.begin(), narrow.end(), '\n'));
                fail("the log is UTF-16 with characters beyond ASCII");
                break;
            }
            narrow.push_back(wide[i]);
        }
        text_ = std::move(narrow);
    }

    static bool header_time(std::string_view line, std::string_view prefix, double& out) {
        if (line.substr(0, prefix.size()) != prefix) return false;
        line.remove_prefix(prefix.size());
        return detail::parse_real(line.substr(0, line.find_first_of(" ]")), out);
    }

    bool fail(const char* why) {
        message_ = "line " + std::to_string(line_number_) + ": " + why;
        return false;
    }

    bool row(std::string_view line, hlog_interval& out) {
        out.tag.clear();
        if (line.substr(0, 4) == "Tag=") {
            const std::size_t comma = line.find(',');
            if (comma == std::string_view::npos || comma == 4) return fail("a tag without a row");
            out.tag.assign(line.substr(4, comma - 4));
            line.remove_prefix(comma + 1);
        }
        double fields[3];
        for (double& f : fields) {
            const std::size_t comma = line.find(',');
            if (comma == std::string_view::npos || !detail::parse_real(line.substr(0, comma), f))
                return fail("not a row: expected [Tag=NAME,]START,LENGTH,MAX,HISTOGRAM");
            line.remove_prefix(comma + 1);
        }
        std::string bytes;
        if (!base64_decode(line, bytes)) return fail("the histogram is not base64");
        out.values = histogram({1, 2, 1});  // the last row's counters go before the next row's come
        hdr_v2_decoding d;
        d.max_bytes = max_bytes_;
        d.filled = &out.filled;
        if (error e = decode_hdr_v2(bytes, out.values, &d)) {
            message_ = "line " + std::to_string(line_number_) + ": ";
            if (e.code == errc::histogram_too_large)
                message_ += detail::layout_needs("its", d.layout, ": above the reader's limit of ") +
                            detail::size_text(max_bytes_);
            else if (e.code == errc::out_of_memory)
                message_ += "out of memory for the histogram's counters: " + detail::layout_needs("its", d.layout, "");
            else
                message_ += std::string("the histogram does not decode: ") + e.message();
            return false;
        }
        if (!base_decided_) {  // as HdrHistogram's readers decide it, from the first row
            if (std::isnan(start_time_s_)) start_time_s_ = fields[0];
            if (!base_known_) base_time_s_ = fields[0] < start_time_s_ - 365 * 24 * 3600.0 ? start_time_s_ : 0.0;
            base_decided_ = true;
        }
        out.start_s = fields[0] + base_time_s_;
        out.length_s = fields[1];
        return true;
    }

    std::string text_;
    std::size_t max_bytes_;
    std::size_t pos_ = 0, line_number_ = 0;
    double start_time_s_ = NAN, base_time_s_ = 0;
    bool base_known_ = false, base_decided_ = false;
    std::string message_;
};

// One tag's intervals merged.
struct hlog_tag_total {
    std::string tag;
    std::size_t intervals = 0;
    double first_start_s = 0, last_end_s = 0;
    // The lowest value and significant figures of the tag's first row, up to the largest value
    // seen: rows laid out alike (whatever their highest trackable value, so auto-resizing
    // histograms' too) merge bucket for bucket; others at each bucket's lowest value.
    histogram values;
};

// The name a tag goes by in tables, reports and --hgrm: "(none)" for rows without one.
inline std::string hlog_tag_name(const std::string& tag) { return tag.empty() ? "(none)" : tag; }

// At most this many tags in the logs given to add_hlog_totals.
constexpr std::size_t hlog_max_tags = 256;

namespace detail {

// The counters every total in `totals` takes.
inline std::size_t hlog_totals_bytes(const std::vector<hlog_tag_total>& totals) {
    std::size_t bytes = 0;
    for (const hlog_tag_total& t : totals) bytes += histogram::memory_bytes(t.values.config());
    return bytes;
}

// Adds `row` to its tag's total in `totals` (a new tag is appended). A total takes its first row's
// lowest value and significant figures, up to the largest value yet seen (doubled as needed: a
// bucket's index does not depend on the highest trackable value, so a total grows without moving a
// count). False, with why in `message` ("line N: …", N being `line`), when it would make more than
// hlog_max_tags tags, when the totals' counters with the row's (and, while a total grows, its
// larger copy's) would take more than `max_bytes`, or when they cannot be allocated; else its
// tag's index in `index`.
inline bool add_hlog_row(const hlog_interval& row, std::size_t line, std::size_t max_bytes,
                         std::vector<hlog_tag_total>& totals, std::size_t& index, std::string& message) {
    index = 0;
    while (index < totals.size() && totals[index].tag != row.tag) ++index;
    const bool added = index == totals.size();
    const std::string where = "line " + std::to_string(line) + ": ";
    if (added && totals.size() == hlog_max_tags) {
        message = where + "more than " + std::to_string(hlog_max_tags) + " tags";
        return false;
    }
    histogram_config layout = added ? row.values.config() : totals[index].values.config();
    if (added) layout.highest_trackable_value = 2 * layout.lowest_discernible_value;
    const std::int64_t highest = added ? 0 : layout.highest_trackable_value;
    const std::int64_t need = row.values.empty() ? 0 : row.values.max();
    while (layout.highest_trackable_value < need)
        layout.highest_trackable_value =
            layout.highest_trackable_value > INT64_MAX / 2 ? INT64_MAX : 2 * layout.highest_trackable_value;
    // At any moment the tags' totals, this tag's new total while it grows from the old, and the row.
    const bool grows = layout.highest_trackable_value != highest;  // a new or larger total
    const std::size_t row_bytes = histogram::memory_bytes(row.values.config());
    const std::size_t held = hlog_totals_bytes(totals);
    const std::string tag = row.tag.empty() ? std::string("rows without a tag") : "Tag=" + row.tag;
    if (held + (grows ? histogram::memory_bytes(layout) : 0) + row_bytes > max_bytes) {
        message = where + tag + ": ";
        if (grows)
            message += layout_needs("its total's", layout, "") + "; with the tags' totals (" + size_text(held) +
                       ") and the row's (" + size_text(row_bytes) + ")";
        else
            message += layout_needs("its row's", row.values.config(), "") + "; with the tags' totals (" +
                       size_text(held) + ")";
        message += ", above the reader's limit of " + size_text(max_bytes);
        return false;
    }
    if (grows) {
        histogram grown(layout);
        if (!grown.allocated()) {
            message = where + tag + ": out of memory for its total's counters: " +
                      layout_needs("its total's", layout, "");
            return false;
        }
        if (added) {
            totals.push_back(hlog_tag_total{row.tag, 0, row.start_s, row.start_s + row.length_s, std::move(grown)});
        } else {
            grown.merge(totals[index].values);  // the same layout, up to a higher value: bucket for bucket
            totals[index].values = std::move(grown);
        }
    }
    hlog_tag_total& t = totals[index];
    if (t.values.merge(row.values, row.filled)) {  // nothing is above the total's range: one this cannot merge
        message = where + "the histogram cannot be merged";
        return false;
    }
    ++t.intervals;
    t.first_start_s = std::min(t.first_start_s, row.start_s);
    t.last_end_s = std::max(t.last_end_s, row.start_s + row.length_s);
    return true;
}

}  // namespace detail

// Adds every row of the log `text` to `totals`, by tag (a new tag is appended). False, with the
// line and why in `message` ("line N: …"), when a line cannot be read, would make more than
// hlog_max_tags tags, or a row's histogram or the totals (those of earlier logs added to `totals`
// too) would need more than `max_bytes` of counters; the rows before it stay added.
inline bool add_hlog_totals(std::string text, std::vector<hlog_tag_total>& totals, std::string& message,
                            std::size_t max_bytes = hlog_default_max_bytes) {
    hlog_reader reader(std::move(text), max_bytes);
    hlog_interval row;
    std::size_t index = 0;
    while (reader.next(row))
        if (!detail::add_hlog_row(row, reader.line_number(), max_bytes, totals, index, message)) return false;
    message = reader.message();
    return message.empty();
}

}  // namespace microbench
