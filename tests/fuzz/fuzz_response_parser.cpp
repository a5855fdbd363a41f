// Fuzz target for response_parser: the first byte picks HEAD or not and a piece size; the rest
// is fed once whole and once in pieces, each piece in an exactly sized heap copy so that any
// over-read trips AddressSanitizer. The two transcripts must be identical.
// Built as a libFuzzer target by tests/fuzz/CMakeLists.txt; the unit tests replay the corpus.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "microbench.hpp"

namespace {

using namespace microbench;

// Everything observable about how `input` parses, as text: heads, bodies, ends, errors.
std::string transcript(std::string_view input, std::size_t step, bool head) {
    response_parser p;
    p.reset(head);
    std::string out, pending, body;
    for (std::size_t fed = 0; fed < input.size();) {
        std::size_t n = step < input.size() - fed ? step : input.size() - fed;
        pending.append(input.substr(fed, n));
        fed += n;
        for (;;) {
            std::unique_ptr<char[]> exact(new char[pending.size() ? pending.size() : 1]);
            if (!pending.empty()) std::memcpy(exact.get(), pending.data(), pending.size());
            parse_result r = p.parse(exact.get(), pending.size());
            if (r.consumed > pending.size()) __builtin_trap();
            if (r.event == parse_event::headers) {
                out += "H" + std::to_string(p.status()) + "," + std::to_string(p.keep_alive()) + "," +
                       std::to_string(static_cast<int>(p.framing())) + "," + std::to_string(p.header_count());
                for (std::size_t i = 0; i < p.header_count(); ++i)
                    out.append(";").append(p.header(i).name).append("=").append(p.header(i).value);
                out += "\n";
            }
            body.append(r.body.data(), r.body.size());
            pending.erase(0, r.consumed);
            if (r.event == parse_event::need_more) break;
            if (r.event == parse_event::complete) {
                if (body.size() != p.body_bytes()) __builtin_trap();
                out += "C" + std::to_string(body.size()) + ":" + body + "\n";
                body.clear();
                p.reset(head);
            }
            if (r.event == parse_event::error) {
                error e = p.last_error();
                return out + "E" + e.name() + "@" + std::to_string(e.position) + "\n";
            }
        }
    }
    parse_result end = p.finish();
    if (end.event == parse_event::complete) return out + "C" + std::to_string(body.size()) + ":" + body + "\nEOF\n";
    return out + (p.started() ? "T" + std::to_string(p.last_error().position) : std::string("idle")) + "\n";
}

}  // namespace

// 0 when whole and piecewise parsing agree.
int microbench_fuzz_response_parser(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    bool head = data[0] & 1;
    std::size_t step = 1 + (data[0] >> 1) % 16;
    std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
    std::string whole = transcript(input, input.size() ? input.size() : 1, head);
    std::string pieces = transcript(input, step, head);
    return whole == pieces ? 0 : 1;
}

#ifndef MICROBENCH_FUZZ_NO_ENTRY_POINT
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (microbench_fuzz_response_parser(data, size) != 0) __builtin_trap();
    return 0;
}
#endif
