// microbench/http/url_ranges.hpp — the URLs a URL with ranges stands for: `{A..B}` (integers,
// ascending or descending; a bound written with a leading zero pads every number to the wider
// bound's digits) and `{a,b,c}` (words, an empty one allowed: `/item{,s}`), in the path and the
// query, several per URL for every combination, the last range varying fastest. A URL without
// ranges stands for itself. A fault gives the byte it is at; the count is known, and checked
// against the limit, before anything is built. It does not parse the URL itself (url.hpp does).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../core/ascii.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"

namespace microbench {

namespace detail {

// One `{...}` of a URL: bytes [at, end) of the text, braces included.
struct url_range {
    std::size_t at = 0, end = 0;
    bool numeric = false;
    std::int64_t first = 0, last = 0;  // numeric
    std::size_t width = 0;             // numeric: digits to pad to (0: none)
    std::vector<std::string_view> words;

    std::uint64_t count() const {
        if (!numeric) return words.size();
        return static_cast<std::uint64_t>(first <= last ? last - first : first - last) + 1;
    }
    // The k-th value (k < count()) appended to `out`.
    void append(std::uint64_t k, std::string& out) const {
        if (!numeric) {
            out.append(words[k]);
            return;
        }
        const std::int64_t step = first <= last ? 1 : -1;
        const std::int64_t v = first + step * static_cast<std::int64_t>(k);
        std::uint64_t magnitude = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
        char digits[24];
        std::size_t n = 0;
        do {
            digits[n++] = static_cast<char>('0' + magnitude % 10);
            magnitude /= 10;
        } while (magnitude);
        if (v < 0) out.push_back('-');
        for (std::size_t i = n; i < width; ++i) out.push_back('0');
        while (n) out.push_back(digits[--n]);
    }
};

// An integer bound of `{A..B}`: an optional '-', then 1 to 18 digits.
inline bool range_bound(std::string_view text, std::int64_t& value, std::size_t& digits, bool& padded) {
    const bool negative = !text.empty() && text[0] == '-';
    const std::string_view number = text.substr(negative ? 1 : 0);
    if (number.empty() || number.size() > 18) return false;
    std::int64_t v = 0;
    for (char c : number) {
        if (!is_digit(c)) return false;
        v = v * 10 + (c - '0');
    }
    value = negative ? -v : v;
    digits = number.size();
    padded = number.size() > 1 && number[0] == '0';
    return true;
}

// The range `text[at, end)` (braces included) into `out`.
inline error read_range(std::string_view text, std::size_t at, std::size_t end, url_range& out) {
    const std::string_view inside = text.substr(at + 1, end - at - 2);
    out.at = at;
    out.end = end;
    const std::size_t dots = inside.find("..");
    if (dots != std::string_view::npos && inside.find(',') == std::string_view::npos) {
        std::size_t first_digits = 0, last_digits = 0;
        bool first_padded = false, last_padded = false;
        if (!range_bound(inside.substr(0, dots), out.first, first_digits, first_padded))
            return {errc::url_bad_range, at + 1};
        if (!range_bound(inside.substr(dots + 2), out.last, last_digits, last_padded))
            return {errc::url_bad_range, at + 1 + dots + 2};
        out.numeric = true;
        out.width = first_padded || last_padded ? std::max(first_digits, last_digits) : 0;
        return {};
    }
    if (inside.find(',') == std::string_view::npos) return {errc::url_bad_range, at};
    for (std::size_t from = 0;;) {
        const std::size_t comma = inside.find(',', from);
        const std::size_t length = comma == std::string_view::npos ? std::string_view::npos : comma - from;
        out.words.push_back(inside.substr(from, length));
        if (comma == std::string_view::npos) break;
        from = comma + 1;
    }
    return {};
}

// Where the path begins: after "scheme://authority"; the whole text when it has no "://".
inline std::size_t path_begins(std::string_view text) {
    const std::size_t scheme = text.find("://");
    if (scheme == std::string_view::npos) return 0;
    const std::size_t path = text.find_first_of("/?#", scheme + 3);
    return path == std::string_view::npos ? text.size() : path;
}

// Every range of `text`, in order; the first fault, if any. A fragment (after '#') is never sent:
// its braces are left as they are.
inline error find_ranges(std::string_view text, std::vector<url_range>& out) {
    const std::size_t path = path_begins(text);
    const std::size_t fragment = std::min(text.size(), text.find('#', path));
    for (std::size_t i = 0; i < fragment; ++i) {
        if (text[i] == '}') return {errc::url_bad_range, i};
        if (text[i] != '{') continue;
        if (i < path) return {errc::url_range_in_origin, i};
        const std::size_t close = text.find_first_of("{}", i + 1);
        if (close == std::string_view::npos || close > fragment || text[close] == '{')
            return {errc::url_range_unclosed, i};
        out.emplace_back();
        if (error e = read_range(text, i, close + 1, out.back())) return e;
        i = close;
    }
    return {};
}

// The ranges of `text` and how many URLs they stand for (at most `limit`).
inline error count_ranges(std::string_view text, std::vector<url_range>& ranges, std::uint64_t& count,
                          std::uint64_t limit) {
    if (error e = find_ranges(text, ranges)) return e;
    count = 1;
    for (const url_range& r : ranges) {
        if (r.count() > limit / count) return {errc::url_too_many_targets, r.at};
        count *= r.count();
    }
    return {};
}

}  // namespace detail

// How many URLs `text` stands for (1 without ranges), or the fault: at most `limit`.
inline error count_url_ranges(std::string_view text, std::uint64_t& count,
                              std::uint64_t limit = defaults::max_targets) {
    std::vector<detail::url_range> ranges;
    return detail::count_ranges(text, ranges, count, limit);
}

// Calls fn(url, k) for the URLs `text` stands for with k in [first, first + n), in order (the last
// range varies fastest), after checking them all (at most `limit`, and first + n at most their
// count); nothing is called on a fault. One string is reused for every URL.
template <class Fn>
inline error for_each_url(std::string_view text, std::uint64_t first, std::uint64_t n, Fn&& fn,
                          std::uint64_t limit = defaults::max_targets) {
    std::vector<detail::url_range> ranges;
    std::uint64_t count = 0;
    if (error e = detail::count_ranges(text, ranges, count, limit)) return e;
    if (first > count || n > count - first) return {errc::url_too_many_targets, 0};
    std::vector<std::uint64_t> k(ranges.size(), 0);  // each range's value, the last one fastest
    for (std::uint64_t at = first, r = ranges.size(); r-- > 0;) {  // the first one's values
        k[r] = at % ranges[r].count();
        at /= ranges[r].count();
    }
    std::string url;
    for (std::uint64_t made = 0; made < n; ++made) {
        url.clear();
        std::size_t from = 0;
        for (std::size_t r = 0; r < ranges.size(); ++r) {
            url.append(text.substr(from, ranges[r].at - from));
            ranges[r].append(k[r], url);
            from = ranges[r].end;
        }
        url.append(text.substr(from));
        fn(static_cast<const std::string&>(url), first + made);
        for (std::size_t r = ranges.size(); r-- > 0;) {  // the next combination
            if (++k[r] < ranges[r].count()) break;
            k[r] = 0;
        }
    }
    return {};
}

// The URLs `text` stands for, appended to `out` in order: at most `limit`, else nothing is added.
inline error expand_url_ranges(std::string_view text, std::vector<std::string>& out,
                               std::uint64_t limit = defaults::max_targets) {
    std::uint64_t count = 0;
    if (error e = count_url_ranges(text, count, limit)) return e;
    out.reserve(out.size() + static_cast<std::size_t>(count));
    return for_each_url(text, 0, count, [&out](const std::string& url, std::uint64_t) { out.push_back(url); }, limit);
}

}  // namespace microbench
