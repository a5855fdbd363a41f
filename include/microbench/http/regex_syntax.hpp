// microbench/http/regex_syntax.hpp — reads a POSIX extended regular expression (ERE) into a tree
// of nodes and the byte sets its characters, dots and bracket expressions stand for, or says what
// in it is refused (body_regex.hpp lists the rules and turns the tree into an automaton). It
// reads bytes: the "C" locale, whatever locale the host set.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/ascii.hpp"

namespace microbench {
namespace detail {

using regex_byte_set = std::array<std::uint64_t, 4>;  // 256 bits: the bytes one step reads

struct regex_node {  // a parsed pattern
    enum kind : std::uint8_t { set, begin, end, empty, sequence, either, repeat } k;
    explicit regex_node(kind what = empty) : k(what) {}
    std::uint32_t set_index = 0;
    int min = 1, max = 1;  // repeat: its counts; max -1: no bound
    std::vector<regex_node> kids;
};

// A recursive-descent reader of ERE into nodes and their byte sets; `why` is the first fault, and
// `at` where reading stopped (short of the end: at an unmatched ')').
struct regex_parser {
    using node = regex_node;
    using byte_set = regex_byte_set;
    std::string_view p;
    std::vector<byte_set>& sets;
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
        if (any.kids.size() == 1) return std::move(any.kids[0]);
        return any;
    }
    node sequence(int depth) {
        node seq{node::sequence};
        bool counted_last = false;  // the last item is a count's: another may not follow it
        while (!why && at < p.size() && p[at] != '|' && p[at] != ')') {
            const char c = p[at];
            if (c == '*' || c == '+' || c == '?' || (c == '{' && count_follows())) {
                if (seq.kids.empty() || seq.kids.back().k == node::begin || seq.kids.back().k == node::end) {
                    why = "a count (* + ? {n,m}) has nothing to repeat";
                    break;
                }
                if (counted_last) {
                    why = "a count follows a count (not POSIX extended: group the first, (a+)*)";
                    break;
                }
                node once = std::move(seq.kids.back());
                seq.kids.back() = counted(std::move(once));
                counted_last = true;
                continue;
            }
            seq.kids.push_back(atom(depth));
            counted_last = false;
        }
        return seq;
    }
    bool count_follows() const { return at + 1 < p.size() && (is_digit(p[at + 1]) || p[at + 1] == ','); }
    node counted(node once) {
        node rep{node::repeat};
        const char c = p[at++];
        rep.min = c == '+' ? 1 : 0;
        rep.max = c == '?' ? 1 : -1;
        if (c == '{') {
            rep.min = is_digit(p[at]) ? number() : 0;
            rep.max = rep.min;
            if (at < p.size() && p[at] == ',') {
                ++at;
                rep.max = at < p.size() && is_digit(p[at]) ? number() : -1;
            }
            if (at >= p.size() || p[at] != '}') why = "a count {n,m} is not closed";
            else ++at;
            if (why) return rep;
            if (rep.min > 255 || rep.max > 255) why = "a count in {n,m} is above 255";
            else if (rep.max >= 0 && rep.max < rep.min) why = "the counts in {n,m} are backwards";
        }
        rep.kids.push_back(std::move(once));
        return rep;
    }
    int number() {
        int v = 0;
        while (at < p.size() && is_digit(p[at])) v = v < 1000 ? v * 10 + (p[at++] - '0') : (++at, v);
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
        else if (c == '<' || c == '>' || c == '`' || c == '\'')
            why = "\\< \\> \\` and \\' are GNU anchors, not POSIX extended";
        else if (is_digit(static_cast<char>(c)) || is_alpha(static_cast<char>(c)))
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
                if (hi < lo && !why) why = "a range in [ ] is backwards";
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
        const bool upper = b >= 'A' && b <= 'Z', lower = b >= 'a' && b <= 'z', dig = is_digit(static_cast<char>(b));
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
    node set_node(const byte_set& s) {
        node n{node::set};
        n.set_index = static_cast<std::uint32_t>(sets.size());
        sets.push_back(s);
        return n;
    }
};

}  // namespace detail
}  // namespace microbench
