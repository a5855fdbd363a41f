// microbench/http/body_regex.hpp — a POSIX extended regular expression (ERE, as grep -E reads it)
// that a response body must match (checks::body_matches), matched by a small automaton of our own
// in time linear in the body and memory linear in the pattern, whatever the body holds.
// Syntax: characters; . (any byte); [...] bracket expressions with ranges, [:class:], [.c.] and
// [=c=] of one character, ^ for negation; ^ and $ (the body's start and end); ( ) groups; |; and
// the counts * + ? {n} {n,} {,m} {n,m} (at most 255 each). It is found anywhere in the body and
// reads bytes, not characters (the "C" locale). Refused, with the reason: what is not ERE
// (back-references \1-\9; escaped letters and digits such as \d and \w: [0-9], [[:alnum:]_]; the GNU
// anchors \< \> \` \'; a count with nothing to repeat, or right after another count), what is
// malformed (an unclosed ( [ or {, an unmatched ), a backwards range or count, an unknown class,
// [.ab.]), a NUL byte, more than 4,096 bytes, groups nested deeper than 64, and more than 1,000
// steps with the counts written out (the time is at most the body's bytes times the steps).
// The C library's <regex.h> is not used: glibc's searched (a|aa)*b in time quadratic in the body
// (2.4 s over 40 KB), grew its cache by kilobytes per body byte for a.{16}z once anchored (127 MB
// over 64 KB), allocated on every call and locked each compiled expression.
// regex_syntax.hpp reads the pattern; this file turns it into the automaton and runs it. A compiled
// expression is immutable and shared; each thread matches with its own regex_scratch.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.hpp"
#include "regex_syntax.hpp"

namespace microbench {

// The room one thread matches in: the automaton's two lists of live steps and its stack, sized
// once for a pattern (fit), then reused for every body.
struct regex_scratch {
    std::vector<std::uint32_t> dense[2], sparse[2], stack;
    std::uint32_t live[2] = {0, 0};
    void fit(std::size_t steps) {
        for (int i = 0; i < 2; ++i) {
            dense[i].assign(steps, 0);
            sparse[i].assign(steps, 0);
        }
        stack.assign(2 * steps + 1, 0);  // each step in a list pushes at most two
    }
};

class body_regex {
public:
    // Compiles `pattern`: null, with the reason in `why`, when it is empty, longer than
    // defaults::max_regex_bytes, holds a NUL byte or is not an ERE this matcher takes.
    static std::shared_ptr<const body_regex> compile(std::string_view pattern, std::string& why) {
        why.clear();
        if (pattern.empty()) why = "the expression is empty";
        else if (pattern.size() > defaults::max_regex_bytes) why = "the expression is longer than 4096 bytes";
        else if (pattern.find('\0') != std::string_view::npos) why = "the expression holds a NUL byte";
        if (!why.empty()) return nullptr;
        std::shared_ptr<body_regex> r(new body_regex(pattern));
        detail::regex_parser p{pattern, r->sets_};
        node tree = p.alternatives(0);
        if (!p.why && p.at < pattern.size()) p.why = "an unmatched ')' (write \\) for the character)";
        if (!p.why) r->emit(tree, p.why);
        if (!p.why) r->steps_.push_back({step::match, 0, 0});
        if (p.why) {
            why = p.why;
            return nullptr;
        }
        r->run_ = [](const body_regex& re, std::string_view body, regex_scratch& w) { return re.run(body, w); };
        return r;
    }

    // The steps a regex_scratch needs room for.
    std::size_t steps() const { return steps_.size(); }
    const std::string& pattern() const { return pattern_; }

    // Does `body` hold a match? `scratch` is the calling thread's, fitted to steps() (null: one
    // made for this call). Through compile()'s own pointer to the automaton: a program that never
    // compiles a pattern links none of it.
    bool matches(std::string_view body, regex_scratch* scratch = nullptr) const {
        regex_scratch own;
        if (!scratch || scratch->dense[0].size() < steps_.size()) {  // none, or fitted to a smaller pattern
            own.fit(steps_.size());
            scratch = &own;
        }
        return run_(*this, body, *scratch);
    }

private:
    bool run(std::string_view body, regex_scratch& w) const {
        w.live[0] = w.live[1] = 0;
        int now = 0;
        for (std::size_t at = 0;; ++at) {
            if (add(w, now, 0, at, body.size())) return true;  // a match may start at every byte
            if (at == body.size()) return false;
            const unsigned char c = static_cast<unsigned char>(body[at]);
            const int next = 1 - now;
            w.live[next] = 0;
            for (std::uint32_t i = 0; i < w.live[now]; ++i) {
                const step& s = steps_[w.dense[now][i]];
                if (s.op == step::byte_set && (sets_[s.x][c >> 6] >> (c & 63) & 1) &&
                    add(w, next, w.dense[now][i] + 1, at + 1, body.size()))
                    return true;
            }
            now = next;
        }
    }

    using byte_set = detail::regex_byte_set;
    using node = detail::regex_node;
    struct step {  // one instruction of the automaton
        enum kind : std::uint8_t { byte_set, split, jump, begin, end, match } op;
        std::uint32_t x, y;  // byte_set: its set; split: both next steps; jump: the next step
    };
    explicit body_regex(std::string_view pattern) : pattern_(pattern) {}

    // Appends the steps of `n`; `why` when they would pass defaults::max_regex_steps.
    void emit(const node& n, const char*& why) {
        static constexpr const char* too_many = "the expression, its counts written out, takes more than 1,000 steps";
        if (why) return;
        if (steps_.size() > defaults::max_regex_steps) {
            why = too_many;
            return;
        }
        switch (n.k) {
            case node::set: steps_.push_back({step::byte_set, n.set_index, 0}); break;
            case node::begin: steps_.push_back({step::begin, 0, 0}); break;
            case node::end: steps_.push_back({step::end, 0, 0}); break;
            case node::empty: break;
            case node::sequence:
                for (const node& k : n.kids) emit(k, why);
                break;
            case node::either: {  // split a, rest; a; jump out; rest: split b, rest' ...
                std::vector<std::size_t> outs;
                for (std::size_t i = 0; i < n.kids.size() && !why; ++i) {
                    const std::size_t fork = steps_.size();
                    if (i + 1 < n.kids.size()) steps_.push_back({step::split, 0, 0});
                    emit(n.kids[i], why);
                    if (i + 1 < n.kids.size()) {
                        outs.push_back(steps_.size());
                        steps_.push_back({step::jump, 0, 0});
                        steps_[fork].x = static_cast<std::uint32_t>(fork + 1);
                        steps_[fork].y = static_cast<std::uint32_t>(steps_.size());
                    }
                }
                for (std::size_t o : outs) steps_[o].x = static_cast<std::uint32_t>(steps_.size());
                break;
            }
            case node::repeat: {
                // One copy first, to see that it is something: copies of nothing are nothing,
                // however many (x{0}{255} would otherwise take 255 calls for no step). Under a
                // count from 0 that copy is not one to keep.
                const std::size_t before = steps_.size();
                emit(n.kids[0], why);
                if (steps_.size() == before) break;
                int copies = 1;
                if (n.min == 0) {
                    steps_.resize(before);
                    copies = 0;
                }
                for (int i = copies; i < n.min && !why; ++i) emit(n.kids[0], why);
                if (n.max < 0) {  // loop: split body, out; body; jump loop
                    const std::size_t loop = steps_.size();
                    steps_.push_back({step::split, 0, 0});
                    emit(n.kids[0], why);
                    steps_.push_back({step::jump, static_cast<std::uint32_t>(loop), 0});
                    steps_[loop].x = static_cast<std::uint32_t>(loop + 1);
                    steps_[loop].y = static_cast<std::uint32_t>(steps_.size());
                    break;
                }
                std::vector<std::size_t> forks;  // each optional copy may be where it stops
                for (int i = n.min; i < n.max && !why; ++i) {
                    forks.push_back(steps_.size());
                    steps_.push_back({step::split, 0, 0});
                    emit(n.kids[0], why);
                }
                for (std::size_t f : forks) {
                    steps_[f].x = static_cast<std::uint32_t>(f + 1);
                    steps_[f].y = static_cast<std::uint32_t>(steps_.size());
                }
                break;
            }
        }
        if (!why && steps_.size() > defaults::max_regex_steps) why = too_many;
    }

    // Adds step `from` and every step it reaches without reading a byte, at body offset `at`, to
    // list `l`; true when one of them is the match.
    bool add(regex_scratch& w, int l, std::uint32_t from, std::size_t at, std::size_t size) const {
        std::size_t top = 0;
        w.stack[top++] = from;
        while (top) {
            const std::uint32_t i = w.stack[--top];
            const std::uint32_t slot = w.sparse[l][i];
            if (slot < w.live[l] && w.dense[l][slot] == i) continue;  // in the list already
            w.sparse[l][i] = w.live[l];
            w.dense[l][w.live[l]++] = i;
            const step& s = steps_[i];
            switch (s.op) {
                case step::match: return true;
                case step::jump: w.stack[top++] = s.x; break;
                case step::split:
                    w.stack[top++] = s.y;
                    w.stack[top++] = s.x;
                    break;
                case step::begin:
                    if (at == 0) w.stack[top++] = i + 1;
                    break;
                case step::end:
                    if (at == size) w.stack[top++] = i + 1;
                    break;
                case step::byte_set: break;
            }
        }
        return false;
    }

    std::string pattern_;
    std::vector<step> steps_;
    std::vector<byte_set> sets_;
    bool (*run_)(const body_regex&, std::string_view, regex_scratch&) = nullptr;  // set by compile()
};

}  // namespace microbench
