// microbench/report/json_fields.hpp — the fields of a saved result's JSON objects read one by
// one: each number checked against its field's range, each type against the field's, and the
// first field refused named by its path ("config.concurrency: 4294967296 is out of range").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "../core/appendf.hpp"
#include "../core/json_read.hpp"

namespace microbench {
namespace detail {

// Times in saved results, in ns (offsets, durations, Unix times up to the year 2116) and in ms:
// two of them add up, and one doubles, without overflow.
constexpr std::int64_t saved_ns_max = (std::int64_t{1} << 62) - 1;
constexpr std::int64_t saved_ms_max = saved_ns_max / 1'000'000;

// Reads fields of one JSON object. The first missing, mistyped or out-of-range field of any
// json_fields sharing `problem` is named there: "config.concurrency: 4294967296 is out of range".
class json_fields {
public:
    // `name`: this object's key in `parent`; with `index` >= 0 the key of the array it is element `index` of.
    json_fields(const json_value* object, std::string& problem, const json_fields* parent = nullptr,
                const char* name = "", long index = -1)
        : object_(object), problem_(problem), parent_(parent), name_(name), index_(index) {
        if (!object_) failed_ = true;  // its parent said why
        else if (!object_->is(json_value::kind::object)) fail("", "is not an object");  // an interval row
    }
    bool failed() const { return failed_; }

    const json_value* get(const char* key, json_value::kind k) {
        const json_value* v = failed_ ? nullptr : object_->find(key);
        if (!failed_ && (!v || !v->is(k))) fail(key, v ? "has the wrong type" : "is missing");
        return failed_ ? nullptr : v;
    }
    // Optional members: absent leaves the value alone; present with the wrong type is an error.
    const json_value* optional(const char* key, json_value::kind k) {
        const json_value* v = failed_ ? nullptr : object_->find(key);
        if (v && !v->is(k)) fail(key, "has the wrong type");
        return failed_ ? nullptr : v;
    }
    // An integer from 0 to `max`: true when read.
    bool number_to(const char* key, std::uint64_t max, std::uint64_t& out) {
        const json_value* v = get(key, json_value::kind::number);
        std::uint64_t x = 0;
        if (v && (!v->to_u64(x) || x > max)) {
            fail(key, "is out of range", v->text);
        } else if (v) {
            out = x;
            return true;
        }
        return false;
    }
    void number(const char* key, std::uint64_t& out) { number_to(key, UINT64_MAX, out); }
    void number(const char* key, std::uint32_t& out) {
        std::uint64_t x = 0;
        if (number_to(key, UINT32_MAX, x)) out = static_cast<std::uint32_t>(x);
    }
    // A time in ns from 0 to saved_ns_max (or in ms, to saved_ms_max).
    void time(const char* key, std::int64_t& out, std::int64_t max = saved_ns_max) {
        std::uint64_t x = 0;
        if (number_to(key, static_cast<std::uint64_t>(max), x)) out = static_cast<std::int64_t>(x);
    }
    // A decimal from 0 to `max`.
    void real(const char* key, double& out, double max) {
        const json_value* v = get(key, json_value::kind::number);
        double x = 0;
        if (v && (!v->to_real(x) || !(x >= 0 && x <= max))) fail(key, "is out of range", v->text);
        else if (v) out = x;
    }
    void text(const char* key, std::string& out) {
        if (const json_value* v = get(key, json_value::kind::string)) out = v->text;
    }
    void flag(const char* key, bool& out) {
        if (const json_value* v = get(key, json_value::kind::boolean)) out = v->boolean;
    }
    json_fields object(const char* key) { return json_fields(get(key, json_value::kind::object), problem_, this, key); }
    // Names the field in `problem` (unless a field was named before): "PATH.KEY WHY", or with a
    // value "PATH.KEY: VALUE WHY".
    void fail(const char* key, const char* why, std::string_view value = {}) {
        if (!failed_ && problem_.empty()) {
            append_path(problem_);
            problem_.append(problem_.empty() || !*key ? "" : ".").append(key);
            if (!value.empty()) problem_.append(": ").append(value.substr(0, 40));
            problem_.append(" ").append(why);
        }
        failed_ = true;
    }

private:
    const json_value* object_;
    std::string& problem_;
    const json_fields* parent_;
    const char* name_;
    long index_;
    bool failed_ = false;

    void append_path(std::string& out) const {
        if (parent_) parent_->append_path(out);
        if (*name_) out.append(out.empty() ? "" : ".").append(name_);
        if (index_ >= 0) appendf(out, "[%ld]", index_);
    }
};

}  // namespace detail
}  // namespace microbench
