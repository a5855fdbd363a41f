// microbench/http/checks.hpp — declarative response checks, evaluated as a response streams in,
// on the parser's views: expected statuses, body equals / starts with / contains (KMP across chunk
// boundaries) / matches a regular expression, a header present or equal, a body length, exact n! as
// text or as JSON {"factorial": n!} with any whitespace, and a user callback.
// A `checks` object is immutable during a run and shared by all connections; each connection
// keeps a `check_state`, a few words, and with a regular expression a copy of the body: the one
// check that needs it whole, in a buffer that grows to the longest body (at most 1 MiB) and is
// reused. No other check copies the body or allocates per response.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../core/appendf.hpp"
#include "../core/ascii.hpp"
#include "../core/bigint.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"
#include "body_regex.hpp"
#include "response_parser.hpp"
#include "url.hpp"

namespace microbench {

// Per connection, reset for every response.
struct check_state {
    std::string_view factorial;   // the n! this response must be (checks::factorial; the worker sets a
                                  // target's own under factorial_of_each_target)
    bool failed = false;
    std::uint64_t offset = 0;     // body bytes seen so far
    std::size_t contains_at = 0;  // KMP: length of the needle prefix matched so far
    bool contains_found = false;
    std::uint8_t fact_phase = 0;  // factorial matcher: see checks::feed_factorial
    std::size_t fact_at = 0;
    std::string body;             // the body so far, for checks::body_matches (its capacity is kept)
    regex_scratch* scratch = nullptr;  // where this connection's thread matches the regex (the
                                       // worker's); null: room made for each match

    // Back to a new response's state, keeping the body buffer's memory and the scratch.
    void reset(std::string_view expected_factorial) {
        std::string kept = std::move(body);
        regex_scratch* room = scratch;
        *this = check_state{};
        kept.clear();
        body = std::move(kept);
        scratch = room;
        factorial = expected_factorial;
    }
};

// Called when a response is complete: return false to fail it (reason `check`).
using response_callback = bool (*)(int status, std::uint64_t body_bytes, void* user);

class checks {
public:
    checks& status(std::vector<int> codes) {
        statuses_ = std::move(codes);
        return *this;
    }
    checks& body_equals(std::string s) {
        equals_ = std::move(s);
        has_equals_ = true;
        return *this;
    }
    checks& body_starts_with(std::string s) {
        starts_ = std::move(s);
        return *this;
    }
    checks& body_contains(std::string s) {
        contains_ = std::move(s);
        kmp_.assign(contains_.size(), 0);  // prefix function, computed once
        for (std::size_t i = 1, k = 0; i < contains_.size(); ++i) {
            while (k && contains_[i] != contains_[k]) k = kmp_[k - 1];
            if (contains_[i] == contains_[k]) ++k;
            kmp_[i] = k;
        }
        return *this;
    }
    // The body must match `pattern`, a POSIX extended regular expression found anywhere in it
    // (body_regex.hpp), and be at most defaults::max_regex_body_bytes long. A pattern that is
    // refused leaves no regex check and makes the checks invalid: problem() says so, and
    // regex_message() gives the reason.
    checks& body_matches(std::string_view pattern) {
        regex_ = body_regex::compile(pattern, regex_message_);
        return *this;
    }
    // The same with a regex compiled already (body_regex::compile): one that is not null.
    checks& body_matches(std::shared_ptr<const body_regex> compiled) {
        regex_ = std::move(compiled);
        regex_message_.clear();
        return *this;
    }
    const std::string& regex_message() const { return regex_message_; }
    const body_regex* regex() const { return regex_.get(); }
    // What makes these checks unusable (a body_matches pattern that did not compile), or nothing.
    error problem() const { return regex_message_.empty() ? error{} : error{errc::plan_bad_regex, 0}; }

    checks& header(std::string name, std::string value = {}, bool must_equal = false) {
        headers_.push_back({std::move(name), std::move(value), must_equal});
        return *this;
    }
    checks& body_length(std::uint64_t n) {
        length_ = static_cast<std::int64_t>(n);
        return *this;
    }
    // The body must be exactly n!: "<digits>" or {"factorial": <digits>}, whitespace allowed.
    checks& factorial(unsigned n) {
        factorial_ = factorial_decimal(n);
        factorial_n_ = n;
        has_factorial_ = true;
        each_target_ = false;
        return *this;
    }
    // The same, with each target's own n (/factorial/{n} or /factorial?n=N: factorial_argument),
    // worked out once when the run starts; a run of one URL takes that URL's.
    checks& factorial_of_each_target() {
        factorial_.clear();
        has_factorial_ = each_target_ = true;
        return *this;
    }
    bool factorial_of_each_target_set() const { return each_target_; }
    checks& callback(response_callback fn, void* user) {
        callback_ = fn;
        callback_user_ = user;
        return *this;
    }

    bool empty() const {
        return statuses_.empty() && !has_equals_ && starts_.empty() && contains_.empty() && !regex_ &&
               headers_.empty() && length_ < 0 && !has_factorial_ && !callback_;
    }

    // What is checked, for reports: "status 200,201; body is 100! (158 digits)"; empty when nothing.
    std::string summary() const { return describe(nullptr); }

    // What was expected of a response, with the expected bytes themselves (their first
    // defaults::check_sample_bytes, escaped), to show beside one that failed: `factorial` is the
    // n! that response had to be (check_state::factorial). "body equals \"3628800\\n\" (8 bytes)".
    std::string expected(std::string_view factorial) const { return describe(&factorial); }

    void on_headers(check_state& s, const response_parser& p) const {
        s.reset(factorial_);
        if (!statuses_.empty()) {
            bool ok = false;
            for (int code : statuses_) ok = ok || code == p.status();
            s.failed = s.failed || !ok;
        }
        for (const header_rule& h : headers_) {
            const header_view* v = p.find_header(h.name);
            s.failed = s.failed || !v || (h.must_equal && v->value != h.value);
        }
    }

    void on_body(check_state& s, std::string_view chunk) const {
        if (s.failed) return;
        if (has_equals_) s.failed = !matches_at(equals_, s.offset, chunk, true);
        if (!starts_.empty() && s.offset < starts_.size())
            s.failed = s.failed || !matches_at(starts_, s.offset, chunk, false);
        if (!contains_.empty() && !s.contains_found) feed_contains(s, chunk);
        if (has_factorial_) feed_factorial(s, chunk);
        if (regex_) {
            const std::size_t need = static_cast<std::size_t>(s.offset) + chunk.size();
            if (need > defaults::max_regex_body_bytes) {
                s.failed = true;
            } else {
                if (need > s.body.capacity())  // doubling, but never past the limit
                    s.body.reserve(std::min(defaults::max_regex_body_bytes, std::max(need, 2 * s.body.capacity())));
                s.body.append(chunk.data(), chunk.size());
            }
        }
        s.offset += chunk.size();
    }

    // True when the completed response passed every check.
    bool on_complete(check_state& s, int status, std::uint64_t body_bytes) const {
        if (s.failed) return false;
        if (has_equals_ && body_bytes != equals_.size()) return false;
        if (!starts_.empty() && body_bytes < starts_.size()) return false;
        if (!contains_.empty() && !s.contains_found) return false;
        if (length_ >= 0 && body_bytes != static_cast<std::uint64_t>(length_)) return false;
        if (has_factorial_ && !factorial_complete(s)) return false;
        if (regex_ && !regex_->matches(s.body, s.scratch)) return false;
        return !callback_ || callback_(status, body_bytes, callback_user_);
    }

private:
    struct header_rule {
        std::string name, value;
        bool must_equal;
    };

    // summary() without `factorial`, expected() with it: the same rules in the same order; the
    // expected bytes themselves only in expected().
    std::string describe(const std::string_view* factorial) const {
        using detail::appendf;
        std::string out;
        auto next = [&out]() -> std::string& { return out.empty() ? out : out.append("; "); };
        auto quoted = [&out](std::string_view bytes) {
            out += '"';
            detail::append_escaped_answer(out, bytes.substr(0, defaults::check_sample_bytes),
                                          bytes.size() > defaults::check_sample_bytes);
            out += '"';
        };
        auto body_rule = [&](const char* rule, const std::string& bytes) {
            next() += rule;
            if (factorial) quoted(bytes);
            else appendf(out, "%zu bytes", bytes.size());
        };
        for (std::size_t i = 0; i < statuses_.size(); ++i)
            appendf(i ? out : next(), i ? ",%d" : "status %d", statuses_[i]);
        if (has_equals_) {
            body_rule("body equals ", equals_);
            if (factorial) appendf(out, " (%zu bytes)", equals_.size());
        }
        if (!starts_.empty()) body_rule("body starts with ", starts_);
        if (!contains_.empty()) body_rule("body contains ", contains_);
        if (regex_) {  // as typed, between slashes: only control and non-ASCII bytes escaped
            next() += "body matches /";
            for (unsigned char c : regex_->pattern()) {
                if (c < 0x20 || c > 0x7e) appendf(out, "\\x%02x", c);
                else out += static_cast<char>(c);
            }
            out += '/';
            if (factorial) appendf(out, " (a body of at most %zu bytes)", defaults::max_regex_body_bytes);
        }
        for (const header_rule& h : headers_)
            appendf(next(), "header %s%s%s", h.name.c_str(), h.must_equal ? " equals " : "",
                    h.must_equal ? h.value.c_str() : "");
        if (length_ >= 0) appendf(next(), "body length %lld", static_cast<long long>(length_));
        if (has_factorial_ && !factorial) {
            if (each_target_) next() += "body is n! of each target's n";
            else appendf(next(), "body is %u! (%zu digits)", factorial_n_, factorial_.size());
        } else if (has_factorial_) {
            if (each_target_) next() += "body is n! of the target's n, ";
            else appendf(next(), "body is %u!, ", factorial_n_);
            appendf(out, "%zu digits: ", factorial->size());
            quoted(*factorial);
        }
        if (callback_) next() += factorial ? "the callback's yes" : "callback";
        return out;
    }

    // Does `chunk`, found at body offset `at`, agree with `expected` there? For equality, bytes
    // beyond the expected text are a mismatch; for a prefix they do not matter.
    static bool matches_at(const std::string& expected, std::uint64_t at, std::string_view chunk, bool whole) {
        if (at >= expected.size()) return !whole || chunk.empty();
        std::size_t n = std::min<std::size_t>(chunk.size(), expected.size() - static_cast<std::size_t>(at));
        if (expected.compare(static_cast<std::size_t>(at), n, chunk.data(), n) != 0) return false;
        return !whole || n == chunk.size();
    }

    void feed_contains(check_state& s, std::string_view chunk) const {
        std::size_t k = s.contains_at;
        for (char c : chunk) {
            while (k && c != contains_[k]) k = kmp_[k - 1];
            if (c == contains_[k]) ++k;
            if (k == contains_.size()) {
                s.contains_found = true;
                return;
            }
        }
        s.contains_at = k;
    }

    // Phases: 0 leading space · 1 plain digits · 2 JSON '"factorial"' key · 3 space before ':' ·
    // 4 space before the digits · 5 JSON digits · 6 space before '}' · 7 trailing space (done) · 8 failed.
    enum : std::uint8_t { lead, plain, key, colon, value_start, json_digits, close, trail, bad };

    void feed_factorial(check_state& s, std::string_view chunk) const {
        static constexpr std::string_view key_text = "\"factorial\"";
        if (s.factorial.empty()) {  // no n to check against (a run gives every target its own)
            s.fact_phase = bad;
            return;
        }
        for (char c : chunk) {
            const bool space = c == ' ' || c == '\t' || c == '\r' || c == '\n';
            switch (s.fact_phase) {
                case lead:
                    if (space) break;
                    if (c == '{') {
                        s.fact_phase = key;
                        s.fact_at = 0;
                    } else if (c == s.factorial[0]) {
                        s.fact_phase = plain;
                        s.fact_at = 1;
                    } else {
                        s.fact_phase = bad;
                    }
                    break;
                case plain:
                case json_digits:
                    if (s.fact_at < s.factorial.size() && c == s.factorial[s.fact_at]) ++s.fact_at;
                    else if (s.fact_at == s.factorial.size() && (space || (s.fact_phase == json_digits && c == '}')))
                        s.fact_phase = s.fact_phase == plain ? trail : (c == '}' ? trail : close);
                    else s.fact_phase = bad;
                    break;
                case key:
                    if (s.fact_at == 0 && space) break;
                    if (s.fact_at < key_text.size() && c == key_text[s.fact_at]) {
                        if (++s.fact_at == key_text.size()) s.fact_phase = colon;
                    } else {
                        s.fact_phase = bad;
                    }
                    break;
                case colon:
                    if (space) break;
                    s.fact_phase = c == ':' ? value_start : bad;
                    break;
                case value_start:
                    if (space) break;
                    if (c == s.factorial[0]) {
                        s.fact_phase = json_digits;
                        s.fact_at = 1;
                    } else {
                        s.fact_phase = bad;
                    }
                    break;
                case close:
                    if (space) break;
                    s.fact_phase = c == '}' ? trail : bad;
                    break;
                case trail:
                    if (!space) s.fact_phase = bad;
                    break;
                default:
                    return;
            }
        }
    }

    bool factorial_complete(const check_state& s) const {
        return s.fact_phase == trail || (s.fact_phase == plain && s.fact_at == s.factorial.size());
    }

    std::vector<int> statuses_;
    std::string equals_, starts_, contains_;
    bool has_equals_ = false;
    std::vector<std::size_t> kmp_;
    std::shared_ptr<const body_regex> regex_;  // body_matches; shared by copies of these checks
    std::string regex_message_;                 // why the last body_matches pattern did not compile
    std::vector<header_rule> headers_;
    std::int64_t length_ = -1;
    std::string factorial_;
    unsigned factorial_n_ = 0;
    bool has_factorial_ = false;
    bool each_target_ = false;  // factorial_of_each_target: factorial_ empty, each response's own n
    response_callback callback_ = nullptr;
    void* callback_user_ = nullptr;
};

// n from a /factorial/{n} or /factorial?n=N target; false when the target is neither.
inline bool factorial_argument(const url& target, unsigned& n) {
    std::string_view t = target.target, path = t.substr(0, t.find('?')), digits;
    if (path.substr(0, 11) == "/factorial/") {
        digits = path.substr(11);
    } else if (path == "/factorial" && t.size() > path.size()) {
        detail::query_value(t.substr(path.size() + 1), "n", digits);
    }
    std::uint64_t v = 0;
    if (digits.empty() || digits.size() > 6 || !detail::parse_decimal(digits, v) || v > 100000) return false;
    n = static_cast<unsigned>(v);
    return true;
}

}  // namespace microbench
