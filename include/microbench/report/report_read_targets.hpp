// microbench/report/report_read_targets.hpp — a saved result's "by_target" read back (what
// append_json_by_target writes): the rows, the folded rest, the verdict over n and the first wrong
// answer, each field checked against its range and against the others (the rows and the folded
// ones make the targets; runs of n ascend without overlap), a refusal naming the field.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../core/ascii.hpp"
#include "../core/config.hpp"
#include "../stats/result.hpp"
#include "json_fields.hpp"

namespace microbench {
namespace detail {

// A body's first bytes from their escaped text (append_escaped_answer's \\n, \\r, \\t and \\xNN,
// and "..." after it when `cut`), at most `cap` of them (`body_cut` when there were more).
inline void read_escaped_body(std::string_view text, bool cut, std::size_t cap, std::string& body, bool& body_cut) {
    body_cut = cut;
    if (cut && text.size() >= 3 && text.substr(text.size() - 3) == "...") text.remove_suffix(3);
    body.clear();
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '\\' && i + 1 < text.size()) {
            const char e = text[++i];
            const bool hex =
                e == 'x' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 && hex_value(text[i + 2]) >= 0;
            c = e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e;
            if (hex) {
                c = static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
                i += 2;
            }
        }
        if (body.size() == cap) {
            body_cut = true;
            break;
        }
        body += c;
    }
}

inline void read_escaped_answer(std::string_view text, bool cut, wrong_answer& w) {
    read_escaped_body(text, cut, defaults::answer_bytes, w.body, w.cut);
}

// One of by_target's rows, as append_json_target_row writes it; its totals must add up.
inline void read_target_row(json_fields& f, target_row& t) {
    f.text("target", t.target);
    f.number("index", t.index);
    f.number("completed", t.completed);
    f.number("failed", t.failed);
    f.number("unfinished", t.unfinished);
    f.number("non_2xx", t.non_2xx);
    f.time("p50_ns", t.p50_ns);
    f.time("p99_ns", t.p99_ns);
    json_fields reasons = f.object("failures");
    for (int i = 0; i < failure_count; ++i) reasons.number(failure_name(static_cast<failure>(i)), t.failures[i]);
    std::uint64_t requests = 0, wrong = 0;
    f.number("requests", requests);
    f.number("wrong", wrong);
    const bool overflows = t.failed > UINT64_MAX - t.completed || t.unfinished > UINT64_MAX - t.completed - t.failed;
    if (overflows || requests != t.requests()) f.fail("requests", "is not completed + failed + unfinished");
    std::uint64_t reasons_sum = 0;
    bool reasons_overflow = false;
    for (std::uint64_t n : t.failures) {
        reasons_overflow = reasons_overflow || n > UINT64_MAX - reasons_sum;
        reasons_sum += n;
    }
    if (reasons_overflow || reasons_sum != t.failed) f.fail("failed", "is not the sum of failures");
    if (wrong != t.wrong()) f.fail("wrong", "is not failures.check");
}

// "by_target", as append_json_by_target writes it: the rows, the folded rest, the verdict over n
// and the first wrong answer.
inline void read_by_target(json_fields& top, std::string& why, target_breakdown& b) {
    json_fields f = top.object("by_target");
    f.number("targets", b.targets);
    if (const json_value* rows = f.get("rows", json_value::kind::array)) {
        if (rows->items.size() > defaults::max_target_rows) f.fail("rows", "are more than 1,000");
        for (std::size_t i = 0; i < rows->items.size() && !f.failed(); ++i) {
            json_fields row(&rows->items[i], why, &f, "rows", static_cast<long>(i));
            b.rows.emplace_back();
            read_target_row(row, b.rows.back());
        }
    }
    json_fields folded = f.object("folded");
    read_target_row(folded, b.folded);
    std::uint64_t folded_targets = 0;
    f.number("folded_targets", folded_targets);
    if (folded_targets != b.folded.index) f.fail("folded_targets", "is not folded.index");
    // As the run keeps them: a row for each target up to the cap, the rest folded, each row's place
    // one of the targets'.
    if (b.targets == 0 || b.rows.size() != std::min<std::uint64_t>(b.targets, defaults::max_target_rows) ||
        b.folded.index != b.targets - b.rows.size())
        f.fail("targets", "is not the rows and the folded ones");
    std::vector<std::uint64_t> places;
    for (const target_row& row : b.rows) places.push_back(row.index);
    std::sort(places.begin(), places.end());
    if (!places.empty() && places.back() >= b.targets) f.fail("rows", "hold an index past the targets");
    if (std::adjacent_find(places.begin(), places.end()) != places.end()) f.fail("rows", "hold an index twice");
    static const char* const outcomes[] = {"right", "wrong", "failed", "unanswered", "unsent"};
    if (const json_value* runs = f.optional("verdict", json_value::kind::array)) {
        if (runs->items.size() > defaults::max_verdict_runs) f.fail("verdict", "has more than 64 runs");
        for (std::size_t i = 0; i < runs->items.size() && !f.failed(); ++i) {
            json_fields run(&runs->items[i], why, &f, "verdict", static_cast<long>(i));
            n_run n;
            run.number("from", n.from);
            run.number("to", n.to);
            std::string outcome, reason;
            run.text("outcome", outcome);
            int o = 0;
            while (o < 5 && outcome != outcomes[o]) ++o;
            if (o == 5) run.fail("outcome", "is none of right, wrong, failed, unanswered, unsent");
            n.outcome = static_cast<n_outcome>(o % 5);
            if (n.outcome == n_outcome::failed) {
                run.text("reason", reason);
                int k = 0;
                while (k < failure_count && reason != failure_name(static_cast<failure>(k))) ++k;
                if (k == failure_count) run.fail("reason", "is no failure's name");
                n.reason = static_cast<failure>(k % failure_count);
            }
            if (n.from > n.to) run.fail("to", "is below from");
            if (!b.verdict.empty() && n.from <= b.verdict.back().to) run.fail("from", "is not past the run before");
            b.verdict.push_back(n);
        }
        f.flag("verdict_cut", b.verdict_cut);
    }
    if (f.optional("first_wrong", json_value::kind::object)) {
        json_fields w = f.object("first_wrong");
        std::uint32_t status = 0;
        w.number("n", b.first_wrong.n);
        w.number("status", status);
        if (status < 100 || status > 999) w.fail("status", "is out of range", std::to_string(status));
        b.first_wrong.status = static_cast<int>(status);
        std::string answer;
        w.text("answer", answer);
        bool cut = answer.size() >= 3 && answer.compare(answer.size() - 3, 3, "...") == 0;  // before "cut" was saved
        if (w.optional("cut", json_value::kind::boolean)) w.flag("cut", cut);
        read_escaped_answer(answer, cut, b.first_wrong);
    }
}

}  // namespace detail
}  // namespace microbench
