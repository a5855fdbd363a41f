// microbench/http/body_regex.hpp — a POSIX extended regular expression (ERE, as grep -E reads it)
// that a response body must match (checks::body_matches), matched by a small automaton of our own
// in time linear in the body and memory linear in the pattern, whatever the body holds.
// Syntax: characters; . (any byte); [...] bracket expressions with ranges, [:class:], [.c.] and
// [=c=] of one character, ^ for negation; ^ and $ (the body's start and end); ( ) groups; |; and
// the counts * + ? {n} {n,} {,m} {n,m} (at most 255 each). It is found anywhere in the body and
// reads bytes, not characters (the "C" locale). Refused, with the reason: back-references (\1-\9,
// not ERE), escaped letters and digits (\d, \w are not ERE: [0-9], [[:alnum:]_]), a count with
// nothing to repeat, and patterns of more than 1,000 steps with their counts written out (the
// time is at most the body's bytes times the steps).
// The C library's <regex.h> is not used: glibc's searched (a|aa)*b in time quadratic in the body
// (2.4 s over 40 KB), grew its cache by kilobytes per body byte for a.{16}z (127 MB over 64 KB),
// crashed on 2,040 nested groups, allocated on every call and locked each compiled expression.
// A compiled expression is immutable and shared; each thread matches with its own regex_scratch.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.hpp"

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
        parser p{pattern, *r};
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
        if (!scratch) {
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

    using byte_set = std::array<std::uint64_t, 4>;
    struct step {  // one instruction of the automaton
        enum kind : std::uint8_t { byte_set, split, jump, begin, end, match } op;
        std::uint32_t x, y;  // byte_set: its set; split: both next steps; jump: the next step
    };
    struct node {  // the parsed pattern
        enum kind : std::uint8_t { set, begin, end, empty, sequence, either, repeat } k;
        explicit node(kind what = empty) : k(what) {}
        std::uint32_t set_index = 0;
        int min = 1, max = 1;  // repeat: its counts; max -1: no bound
        std::vector<node> kids;
    };

    // A recursive-descent reader of ERE into nodes; `why` is the first fault.
    struct parser {
        std::string_view p;
        body_regex& r;
        std::size_t at = 0;
        const char* why = nullptr;

        node alternatives(int depth) {
            if (depth > 64) why = "groups nest deeper than 64";
            node any{node::either};
            any.kids.push_back(sequence(depth));
            while (!why && at < p.size() && p[at] == '|') {
                ++at;
                any.kids.push_back(sequence(depth));
            }
            return any.kids.size() == 1 ? std::move(any.kids[0]) : any;
        }
        node sequence(int depth) {
            node seq{node::sequence};
            while (!why && at < p.size() && p[at] != '|' && p[at] != ')') {
                const char c = p[at];
                if (c == '*' || c == '+' || c == '?' || (c == '{' && count_follows())) {
                    if (seq.kids.empty() || seq.kids.back().k == node::begin || seq.kids.back().k == node::end) {
                        why = "a count (* + ? {n,m}) has nothing to repeat";
                        break;
                    }
                    node once = std::move(seq.kids.back());
                    seq.kids.back() = counted(std::move(once));
                    continue;
                }
                seq.kids.push_back(atom(depth));
            }
            return seq;
        }
        bool count_follows() const { return at + 1 < p.size() && (digit(p[at + 1]) || p[at + 1] == ','); }
        node counted(node once) {
            node rep{node::repeat};
            const char c = p[at++];
            rep.min = c == '+' ? 1 : c == '{' ? -2 : 0;
            rep.max = c == '?' ? 1 : -1;
            if (c == '{') {
                rep.min = digit(p[at]) ? number() : 0;
                rep.max = rep.min;
                if (at < p.size() && p[at] == ',') {
                    ++at;
                    rep.max = at < p.size() && digit(p[at]) ? number() : -1;
                }
                if (at >= p.size() || p[at] != '}') why = "a count {n,m} is not closed";
                else ++at;
                if (rep.min > 255 || rep.max > 255) why = "a count in {n,m} is above 255";
                else if (rep.max >= 0 && rep.max < rep.min) why = "the counts in {n,m} are backwards";
            }
            rep.kids.push_back(std::move(once));
            return rep;
        }
        int number() {
            int v = 0;
            while (at < p.size() && digit(p[at])) v = v < 1000 ? v * 10 + (p[at++] - '0') : (++at, v);
            return v;
        }
        node atom(int depth) {
            const char c = p[at++];
            if (c == '(') {
                node inside = alternatives(depth + 1);
                if (!why && (at >= p.size() || p[at] != ')')) why = "a '(' is not closed";
                ++at;
                return inside;
            }
            if (c == '^') return node{node::begin};
            if (c == '$') return node{node::end};
            byte_set s{};
            if (c == '.') s.fill(~std::uint64_t{0});
            else if (c == '[') bracket(s);
            else if (c == '\\') escaped(s);
            else put(s, static_cast<unsigned char>(c));
            return set_node(s);
        }
        void escaped(byte_set& s) {
            if (at >= p.size()) {
                why = "a lone \\ ends the expression";
                return;
            }
            const unsigned char c = static_cast<unsigned char>(p[at++]);
            if (c >= '1' && c <= '9') why = "a back-reference (\\1 to \\9) is not POSIX extended";
            else if (digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
                why = "an escaped letter or digit is not POSIX extended (\\d: write [0-9]; \\w: [[:alnum:]_]; "
                      "\\s: [[:space:]])";
            put(s, c);
        }
        // [...] after its '[': negation, a ']' first, ranges, classes, [.c.] and [=c=].
        void bracket(byte_set& s) {
            const bool negated = at < p.size() && p[at] == '^';
            if (negated) ++at;
            bool first = true;
            while (!why) {
                if (at >= p.size()) {
                    why = "a '[' is not closed";
                    return;
                }
                if (p[at] == ']' && !first) break;
                first = false;
                if (p.substr(at, 2) == "[:") {
                    klass(s);
                    continue;
                }
                int lo = element();
                if (at + 1 < p.size() && p[at] == '-' && p[at + 1] != ']') {
                    ++at;
                    const int hi = element();
                    if (hi < lo) why = "a range in [ ] is backwards";
                    for (int b = lo; b <= hi && !why; ++b) put(s, static_cast<unsigned char>(b));
                } else if (lo >= 0) {
                    put(s, static_cast<unsigned char>(lo));
                }
            }
            ++at;
            if (negated)
                for (std::uint64_t& word : s) word = ~word;
        }
        int element() {  // one character of a bracket expression: c, [.c.] or [=c=]
            if (p.substr(at, 2) == "[." || p.substr(at, 2) == "[=") {
                const char close[3] = {p[at + 1], ']', '\0'};
                if (at + 4 < p.size() && p.substr(at + 3, 2) == close) {
                    const int c = static_cast<unsigned char>(p[at + 2]);
                    at += 5;
                    return c;
                }
                why = "[.c.] and [=c=] take one character, and end with .] or =]";
                return -1;
            }
            return static_cast<unsigned char>(p[at++]);
        }
        void klass(byte_set& s) {
            const std::size_t end = p.find(":]", at + 2);
            if (end == std::string_view::npos) {
                why = "a [:class:] is not closed";
                return;
            }
            const std::string_view name = p.substr(at + 2, end - at - 2);
            at = end + 2;
            bool known = false;
            for (int b = 0; b < 256; ++b) {
                const bool in = in_class(name, b, known);
                if (!known) break;
                if (in) put(s, static_cast<unsigned char>(b));
            }
            if (!known)
                why = "an unknown [:class:] (alnum alpha blank cntrl digit graph lower print punct space upper xdigit)";
        }
        static bool in_class(std::string_view n, int b, bool& known) {
            const bool upper = b >= 'A' && b <= 'Z', lower = b >= 'a' && b <= 'z', dig = b >= '0' && b <= '9';
            const bool graph = b > 32 && b < 127;
            known = true;
            if (n == "alpha") return upper || lower;
            if (n == "digit") return dig;
            if (n == "alnum") return upper || lower || dig;
            if (n == "upper") return upper;
            if (n == "lower") return lower;
            if (n == "space") return b == ' ' || (b >= '\t' && b <= '\r');
            if (n == "blank") return b == ' ' || b == '\t';
            if (n == "punct") return graph && !upper && !lower && !dig;
            if (n == "print") return graph || b == ' ';
            if (n == "graph") return graph;
            if (n == "cntrl") return b < 32 || b == 127;
            if (n == "xdigit") return dig || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
            known = false;
            return false;
        }
        static void put(byte_set& s, unsigned char c) { s[c >> 6] |= std::uint64_t{1} << (c & 63); }
        static bool digit(char c) { return c >= '0' && c <= '9'; }
        node set_node(const byte_set& s) {
            node n{node::set};
            n.set_index = static_cast<std::uint32_t>(r.sets_.size());
            r.sets_.push_back(s);
            return n;
        }
    };

    explicit body_regex(std::string_view pattern) : pattern_(pattern) {}

    // Appends the steps of `n`; `why` when they would pass defaults::max_regex_steps.
    void emit(const node& n, const char*& why) {
        if (why) return;
        if (steps_.size() > defaults::max_regex_steps) {
            why = "the expression, its counts written out, takes more than 1,000 steps";
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
                for (int i = 0; i < n.min && !why; ++i) emit(n.kids[0], why);
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
        if (!why && steps_.size() > defaults::max_regex_steps)
            why = "the expression, its counts written out, takes more than 1,000 steps";
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
