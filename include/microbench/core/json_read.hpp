// microbench/core/json_read.hpp — a small JSON reader (RFC 8259) for reading saved results back:
// parse_json() builds a tree of json_value; numbers keep their text, so 64-bit counts come back
// exact, and are read out checked (a value that does not fit is refused) and alike in every locale.
// Strict: one value, no trailing commas, no comments, \u escapes to UTF-8 (surrogate pairs
// joined), at most 64 arrays and objects one inside another. Errors carry the byte offset. Never
// throws.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "decimal.hpp"
#include "error.hpp"

namespace microbench {

struct json_value {
    enum class kind : std::uint8_t { null, boolean, number, string, array, object };
    kind type = kind::null;
    bool boolean = false;
    std::string text;               // a string's value, or a number as written
    std::vector<std::string> keys;  // an object's member names, in order (items[i] is keys[i]'s value)
    std::vector<json_value> items;  // an array's elements, or an object's member values

    bool is(kind k) const { return type == k; }
    // Null again: no text, keys or items.
    void clear() {
        type = kind::null;
        text.clear();
        keys.clear();
        items.clear();
    }
    // The member named `key` (the first, if repeated), or nullptr: also when this is no object.
    const json_value* find(std::string_view key) const {
        if (type != kind::object) return nullptr;
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return &items[i];
        return nullptr;
    }
    // The number as written, if it fits: false (and `out` left alone) when this is no number, or
    // for the integers when it has a fraction or an exponent, a minus (unsigned) or is beyond the
    // type's range, for to_real when it is beyond double's range ("1e999").
    bool to_u64(std::uint64_t& out) const { return type == kind::number && detail::parse_u64(text, out); }
    bool to_i64(std::int64_t& out) const { return type == kind::number && detail::parse_i64(text, out); }
    bool to_real(double& out) const { return type == kind::number && detail::parse_real(text, out); }
};

namespace detail {

class json_parser {
public:
    explicit json_parser(std::string_view text) : s_(text) {}

    error parse(json_value& out) {
        out.clear();
        error e = value(out, 0);
        skip_space();
        if (!e && at_ != s_.size()) e = {errc::json_bad, at_};
        if (e) out.clear();  // nothing half-read to query
        return e;
    }

private:
    static constexpr int max_depth = 64;  // arrays and objects one inside another
    std::string_view s_;
    std::size_t at_ = 0;

    void skip_space() {
        while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n' || s_[at_] == '\r')) ++at_;
    }
    bool take(char c) {
        skip_space();
        if (at_ < s_.size() && s_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }
    bool literal(std::string_view word) {
        if (s_.substr(at_, word.size()) != word) return false;
        at_ += word.size();
        return true;
    }

    // `depth`: the arrays and objects around this value.
    error value(json_value& out, int depth) {
        skip_space();
        if (at_ >= s_.size()) return {errc::json_bad, at_};
        if ((s_[at_] == '{' || s_[at_] == '[') && depth == max_depth) return {errc::json_too_deep, at_};
        switch (s_[at_]) {
            case '{': return object(out, depth);
            case '[': return array(out, depth);
            case '"': out.type = json_value::kind::string; return string(out.text);
            case 't': case 'f':
                out.type = json_value::kind::boolean;
                out.boolean = s_[at_] == 't';
                return literal(out.boolean ? "true" : "false") ? error{} : error{errc::json_bad, at_};
            case 'n': return literal("null") ? error{} : error{errc::json_bad, at_};
            default: out.type = json_value::kind::number; return number(out.text);
        }
    }

    error object(json_value& out, int depth) {
        out.type = json_value::kind::object;
        ++at_;
        if (take('}')) return {};
        do {
            skip_space();
            out.keys.emplace_back();
            if (at_ >= s_.size() || s_[at_] != '"') return {errc::json_bad, at_};
            if (error e = string(out.keys.back())) return e;
            if (!take(':')) return {errc::json_bad, at_};
            out.items.emplace_back();
            if (error e = value(out.items.back(), depth + 1)) return e;
        } while (take(','));
        return take('}') ? error{} : error{errc::json_bad, at_};
    }

    error array(json_value& out, int depth) {
        out.type = json_value::kind::array;
        ++at_;
        if (take(']')) return {};
        do {
            out.items.emplace_back();
            if (error e = value(out.items.back(), depth + 1)) return e;
        } while (take(','));
        return take(']') ? error{} : error{errc::json_bad, at_};
    }

    // -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
    error number(std::string& out) {
        const std::size_t start = at_;
        auto digits = [&] {
            std::size_t from = at_;
            while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9') ++at_;
            return at_ - from;
        };
        if (at_ < s_.size() && s_[at_] == '-') ++at_;
        if (at_ < s_.size() && s_[at_] == '0') ++at_;
        else if (!digits()) return {errc::json_bad, start};
        if (at_ < s_.size() && s_[at_] == '.') {
            ++at_;
            if (!digits()) return {errc::json_bad, at_};
        }
        if (at_ < s_.size() && (s_[at_] == 'e' || s_[at_] == 'E')) {
            ++at_;
            if (at_ < s_.size() && (s_[at_] == '+' || s_[at_] == '-')) ++at_;
            if (!digits()) return {errc::json_bad, at_};
        }
        out.assign(s_.substr(start, at_ - start));
        return {};
    }

    bool hex4(unsigned& out) {
        if (s_.size() - at_ < 4) return false;
        out = 0;
        for (int i = 0; i < 4; ++i) {
            char c = s_[at_++];
            unsigned d = c >= '0' && c <= '9' ? c - '0'
                         : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 16;
            if (d > 15) return false;
            out = out * 16 + d;
        }
        return true;
    }

    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xc0 | cp >> 6));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
        } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xe0 | cp >> 12));
            out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
        } else {
            out.push_back(static_cast<char>(0xf0 | cp >> 18));
            out.push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3f)));
            out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
        }
    }

    error string(std::string& out) {
        ++at_;  // the opening quote
        for (;;) {
            if (at_ >= s_.size()) return {errc::json_bad, at_};
            const char c = s_[at_++];
            if (c == '"') return {};
            if (static_cast<unsigned char>(c) < 0x20) return {errc::json_bad, at_ - 1};
            if (c != '\\') {
                out.push_back(c);
                continue;
            }
            if (at_ >= s_.size()) return {errc::json_bad, at_};
            const char esc = s_[at_++];
            switch (esc) {
                case '"': case '\\': case '/': out.push_back(esc); break;
                case 'b': out.push_back('\b'); break;
                case 'f': out.push_back('\f'); break;
                case 'n': out.push_back('\n'); break;
                case 'r': out.push_back('\r'); break;
                case 't': out.push_back('\t'); break;
                case 'u': {
                    unsigned cp = 0, low = 0;
                    if (!hex4(cp)) return {errc::json_bad, at_};
                    if (cp >= 0xd800 && cp < 0xdc00) {  // a high surrogate needs its low half
                        if (!literal("\\u") || !hex4(low) || low < 0xdc00 || low > 0xdfff) return {errc::json_bad, at_};
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                    } else if (cp >= 0xdc00 && cp < 0xe000) {
                        return {errc::json_bad, at_};
                    }
                    append_utf8(out, cp);
                    break;
                }
                default: return {errc::json_bad, at_ - 1};
            }
        }
    }
};

}  // namespace detail

// Parses one JSON document. On error `out` is null and the error's position is the byte offset
// where reading stopped.
inline error parse_json(std::string_view text, json_value& out) {
    return detail::json_parser(text).parse(out);
}

}  // namespace microbench
