// microbench/http/body_regex.hpp — a POSIX extended regular expression (<regex.h>, REG_EXTENDED)
// that a response body must match (checks::body_matches). It is found anywhere in the body: ^ and
// $ are the body's start and end, and . matches any byte but NUL, a newline too. It is compiled
// and matched in the "C" locale, byte by byte, whatever locale the host set (uselocale: this
// thread only, for the call). A pattern without ^ is searched as ^(.|[^.])*(PATTERN): anchored,
// so that the C library's matcher takes time linear in the body (glibc's unanchored search retries
// from every byte: (a|aa)*b took 2.4 s over 40 KB). One with ^ is searched as written (glibc lets
// a ^ after matched text match after a newline: the wrapped x\na\nb would match ^a). What could
// still blow up is refused: back-references
// (\1-\9: not POSIX extended, exponential), an unmatched ')', counts above 255, and patterns whose
// repetitions, counted out, exceed 100,000 items. regexec may allocate inside the C library (glibc
// does, per call), and glibc locks each regex_t while it matches: each worker compiles its own.
// MICROBENCH_NO_REGEX leaves it out (a libc without <regex.h>): every pattern is then refused.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#ifndef MICROBENCH_NO_REGEX
#include <locale.h>
#include <regex.h>
#endif

#include "../core/config.hpp"

namespace microbench {
namespace detail {

// What makes an extended regular expression one body_regex refuses before regcomp sees it, or
// null. Outside bracket expressions it reads escapes, groups, alternatives and {n,m} counts, and
// sizes the pattern with its repetitions counted out: a character, escape or bracket expression is
// 1, a group its contents, an atom followed by {n,m} times its larger count.
class regex_shape {
public:
    static const char* refusal(std::string_view pattern) {
        regex_shape s(pattern);
        s.alternatives(0);
        return s.why_;
    }
    // Does the pattern hold a ^ anchor (one outside bracket expressions, not escaped)?
    static bool anchored(std::string_view pattern) {
        regex_shape s(pattern);
        s.alternatives(0);
        return s.caret_;
    }

private:
    explicit regex_shape(std::string_view p) : p_(p) {}

    double alternatives(int depth) {
        double total = 0, last = 0;
        while (i_ < p_.size() && !why_) {
            const char c = p_[i_];
            if (c == ')') {
                if (depth == 0) why_ = "an unmatched ')' (write \\) for the character)";
                return total;
            }
            if (c == '|' || c == '*' || c == '+' || c == '?' || c == '^' || c == '$') {
                caret_ = caret_ || c == '^';
                ++i_;
                continue;
            }
            if (c == '{' && i_ + 1 < p_.size() && (digit(p_[i_ + 1]) || p_[i_ + 1] == ',')) {
                const double times = count();
                total += last * (times - 1);
                last *= times;
            } else {
                last = c == '(' ? group(depth) : c == '[' ? bracket() : c == '\\' ? escape() : (++i_, 1.0);
                total += last;
            }
            if (total > 100'000 && !why_) why_ = "its repetitions, counted out, exceed 100,000 items";
        }
        return total;
    }
    double group(int depth) {
        ++i_;
        const double inside = alternatives(depth + 1);
        if (i_ < p_.size() && p_[i_] == ')') ++i_;  // else unclosed: regcomp says so
        return inside;
    }
    double escape() {
        if (i_ + 1 < p_.size() && p_[i_ + 1] >= '1' && p_[i_ + 1] <= '9')
            why_ = "a back-reference (\\1 to \\9) is not POSIX extended, and can take exponential time";
        i_ += 2;
        return 1;
    }
    double bracket() {  // [...], []...], [^]...], with [:class:], [.x.] and [=x=] inside
        std::size_t j = i_ + 1;
        if (j < p_.size() && p_[j] == '^') ++j;
        if (j < p_.size() && p_[j] == ']') ++j;
        while (j < p_.size() && p_[j] != ']') {
            if (p_[j] == '[' && j + 1 < p_.size() && (p_[j + 1] == ':' || p_[j + 1] == '.' || p_[j + 1] == '=')) {
                const std::size_t end = p_.find(std::string{p_[j + 1], ']'}, j + 2);
                j = end == std::string_view::npos ? p_.size() : end + 2;
            } else {
                ++j;
            }
        }
        i_ = j + 1;
        return 1;
    }
    double count() {  // {n}, {n,}, {,m} or {n,m}: the larger count (n + 1 for {n,}), each at most 255
        ++i_;
        double n = number(), m = n;
        if (i_ < p_.size() && p_[i_] == ',') {
            ++i_;
            m = i_ < p_.size() && digit(p_[i_]) ? number() : n + 1;
        }
        if (i_ < p_.size() && p_[i_] == '}') ++i_;
        if ((n > 255 || m > 255) && !why_) why_ = "a count in {n,m} is above 255";
        return m > n ? m : n;
    }
    double number() {
        double v = 0;
        while (i_ < p_.size() && digit(p_[i_]) && v < 1e6) v = v * 10 + (p_[i_++] - '0');
        return v;
    }
    static bool digit(char c) { return c >= '0' && c <= '9'; }

    std::string_view p_;
    std::size_t i_ = 0;
    const char* why_ = nullptr;
    bool caret_ = false;
};

}  // namespace detail

class body_regex {
public:
    // Compiles `pattern`: null, with the reason in `why` (regcomp's, or what is refused above),
    // when it is empty, longer than defaults::max_regex_bytes, holds a NUL byte, has a shape
    // regex_shape refuses or does not compile.
    static std::shared_ptr<const body_regex> compile(std::string_view pattern, std::string& why) {
        why.clear();
#ifdef MICROBENCH_NO_REGEX
        why = "this build has no regular expressions (MICROBENCH_NO_REGEX)";
#else
        if (pattern.empty()) why = "the expression is empty";
        else if (pattern.size() > defaults::max_regex_bytes) why = "the expression is longer than 4096 bytes";
        else if (pattern.find('\0') != std::string_view::npos) why = "the expression holds a NUL byte";
        else if (const char* shape = detail::regex_shape::refusal(pattern)) why = shape;
#endif
        if (!why.empty()) return nullptr;
        std::shared_ptr<body_regex> r(new body_regex(pattern));
        why = r->build();
        r->again_ = [](const body_regex& done) {
            std::string unused;
            return compile(done.pattern_, unused);
        };
        return why.empty() ? r : nullptr;
    }

    // Another compilation of the same pattern, for another thread (glibc locks a regex_t while it
    // matches); null when the system refuses it memory. Through compile()'s own pointer: a program
    // that never compiles a pattern links none of the compiling.
    std::shared_ptr<const body_regex> again() const { return again_(*this); }

    ~body_regex() {
#ifndef MICROBENCH_NO_REGEX
        if (compiled_) regfree(&search_);
        if (c_locale_) freelocale(c_locale_);
#endif
    }
    body_regex(const body_regex&) = delete;
    body_regex& operator=(const body_regex&) = delete;

    // Does `body` (a std::string's bytes, NUL-terminated after its size) hold a match?
    bool matches(const std::string& body) const {
#ifdef MICROBENCH_NO_REGEX
        (void)body;
        return false;
#else
        int flags = 0;
        regmatch_t whole[1] = {};
#ifdef REG_STARTEND
        whole[0].rm_so = 0;
        whole[0].rm_eo = static_cast<regoff_t>(body.size());
        flags |= REG_STARTEND;
#endif
        const locale_t was = uselocale(c_locale_);
        const bool found = regexec(&search_, body.c_str(), 1, whole, flags) == 0;
        uselocale(was);
        return found;
#endif
    }

    const std::string& pattern() const { return pattern_; }

private:
    explicit body_regex(std::string_view pattern) : pattern_(pattern) {}

    std::shared_ptr<const body_regex> (*again_)(const body_regex&) = nullptr;  // set by compile()

#ifdef MICROBENCH_NO_REGEX
    std::string build() { return "this build has no regular expressions (MICROBENCH_NO_REGEX)"; }
#else
    // Compiles the pattern as written, to refuse it with regcomp's own reason, then the anchored
    // search that matches. An empty string when both compiled.
    std::string build() {
        c_locale_ = newlocale(LC_CTYPE_MASK, "C", static_cast<locale_t>(0));
        if (!c_locale_) return "no memory for the C locale";
        const locale_t was = uselocale(c_locale_);
        regex_t alone;
        regex_t* failed = &alone;
        int code = regcomp(&alone, pattern_.c_str(), REG_EXTENDED | REG_NOSUB);
        if (code == 0) {
            regfree(&alone);
            failed = &search_;
            const std::string search =
                detail::regex_shape::anchored(pattern_) ? pattern_ : "^(.|[^.])*(" + pattern_ + ")";
            code = regcomp(&search_, search.c_str(), REG_EXTENDED | REG_NOSUB);
            compiled_ = code == 0;
        }
        std::string why;
        if (code != 0) {
            char message[256];
            regerror(code, failed, message, sizeof message);
            why = message;
        }
        uselocale(was);
        return why;
    }

    regex_t search_{};
    locale_t c_locale_ = static_cast<locale_t>(0);
    bool compiled_ = false;
#endif
    std::string pattern_;
};

}  // namespace microbench
