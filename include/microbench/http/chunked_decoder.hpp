// microbench/http/chunked_decoder.hpp — decodes a chunked body (RFC 9112 §7.1) as it streams in:
// sizes, extensions, data, trailers. Hands out the data as views into the input and consumes
// everything it is given, so it never needs the caller to keep bytes. Extensions and trailers
// are checked and skipped, held to a byte limit. No allocation; never reads past `len`.
#pragma once

#include <cstdint>
#include <string_view>

#include "../core/ascii.hpp"
#include "../core/error.hpp"

namespace microbench {

class chunked_decoder {
public:
    enum class step : std::uint8_t { need_more, data, done, error };
    struct result {
        step what = step::need_more;
        std::size_t consumed = 0;
        std::string_view data;  // for step::data
    };

    explicit chunked_decoder(std::size_t max_framing_bytes) : max_framing_bytes_(max_framing_bytes) {}

    void reset() {
        state_ = state::size_start;
        remaining_ = 0;
        framing_bytes_ = 0;
        offset_ = 0;
        error_ = {};
    }

    // Decodes from the start of `data`; drop `consumed` bytes afterwards. At most one data view
    // per call. After `done`, the bytes past `consumed` belong to the next message.
    result decode(const char* data, std::size_t len) {
        result r = decode_step(data, len);
        offset_ += r.consumed;
        return r;
    }

    // Position: byte offset from the start of the chunked body.
    error last_error() const { return error_; }

private:
    enum class state : std::uint8_t {
        size_start, size, ext, size_lf, data, data_cr, data_lf,
        trailer_line_start, trailer_line, trailer_end_lf, done, failed,
    };

    result fail(errc code, std::size_t at) {
        state_ = state::failed;
        error_ = {code, offset_ + at};
        return {step::error, 0, {}};
    }
    void end_size_line() { state_ = remaining_ == 0 ? state::trailer_line_start : state::data; }
    bool count_framing_byte() { return ++framing_bytes_ <= max_framing_bytes_; }

    result decode_step(const char* data, std::size_t len);

    std::size_t max_framing_bytes_;
    state state_ = state::size_start;
    std::uint64_t remaining_ = 0;    // of the current chunk
    std::size_t framing_bytes_ = 0;  // extensions + trailers so far
    std::size_t offset_ = 0;         // bytes consumed since reset()
    error error_;
};

inline chunked_decoder::result chunked_decoder::decode_step(const char* data, std::size_t len) {
    for (std::size_t i = 0; i < len; ++i) {
        const char c = data[i];
        switch (state_) {
            case state::data: {
                std::size_t take = remaining_ < len - i ? static_cast<std::size_t>(remaining_) : len - i;
                remaining_ -= take;
                if (remaining_ == 0) state_ = state::data_cr;
                return {step::data, i + take, {data + i, take}};
            }
            case state::size_start: {
                int v = detail::hex_value(c);
                if (v < 0) return fail(errc::response_bad_chunk_size, i);
                remaining_ = static_cast<std::uint64_t>(v);
                state_ = state::size;
                break;
            }
            case state::size: {
                int v = detail::hex_value(c);
                if (v >= 0) {
                    if (remaining_ >> 56) return fail(errc::response_bad_chunk_size, i);
                    remaining_ = remaining_ * 16 + static_cast<std::uint64_t>(v);
                } else if (c == ';' || detail::is_ows(c)) {
                    state_ = state::ext;
                    if (!count_framing_byte()) return fail(errc::response_trailers_too_large, i);
                } else if (c == '\r') {
                    state_ = state::size_lf;
                } else if (c == '\n') {
                    end_size_line();
                } else {
                    return fail(errc::response_bad_chunk_size, i);
                }
                break;
            }
            case state::ext:
                if (c == '\r') state_ = state::size_lf;
                else if (c == '\n') end_size_line();
                else if (!detail::is_field_char(c)) return fail(errc::response_bad_chunk, i);
                else if (!count_framing_byte()) return fail(errc::response_trailers_too_large, i);
                break;
            case state::size_lf:
                if (c != '\n') return fail(errc::response_bad_chunk, i);
                end_size_line();
                break;
            case state::data_cr:
                if (c == '\r') state_ = state::data_lf;
                else if (c == '\n') state_ = state::size_start;
                else return fail(errc::response_bad_chunk, i);
                break;
            case state::data_lf:
                if (c != '\n') return fail(errc::response_bad_chunk, i);
                state_ = state::size_start;
                break;
            case state::trailer_line_start:
                if (c == '\r') {
                    state_ = state::trailer_end_lf;
                } else if (c == '\n') {
                    state_ = state::done;
                    return {step::done, i + 1, {}};
                } else {
                    state_ = state::trailer_line;
                    if (!count_framing_byte()) return fail(errc::response_trailers_too_large, i);
                }
                break;
            case state::trailer_line:
                if (c == '\n') state_ = state::trailer_line_start;
                else if (c != '\r' && !detail::is_field_char(c)) return fail(errc::response_bad_chunk, i);
                else if (!count_framing_byte()) return fail(errc::response_trailers_too_large, i);
                break;
            case state::trailer_end_lf:
                if (c != '\n') return fail(errc::response_bad_chunk, i);
                state_ = state::done;
                return {step::done, i + 1, {}};
            case state::done:
            case state::failed:
                return state_ == state::done ? result{step::done, 0, {}} : result{step::error, 0, {}};
        }
    }
    return {step::need_more, len, {}};
}

}  // namespace microbench
