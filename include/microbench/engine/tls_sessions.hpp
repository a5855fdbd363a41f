// microbench/engine/tls_sessions.hpp — the sessions one worker may resume under tls_options::resume:
// the ones its servers sent it (TLS 1.3 tickets, TLS 1.2 tickets or session IDs), kept in a ring
// that holds one per connection the worker runs, and which one to offer a new connection. A
// TLS 1.3 ticket is offered once and dropped (RFC 8446 §C.4: a client should not reuse one;
// servers with anti-replay honour each once); a TLS 1.2 session until it can no longer be
// resumed (a server that renews its ticket retires the old one) or a newer one comes. Only the
// worker's thread touches its ring.
#pragma once

#include <cstdint>
#include <ctime>
#include <memory>
#include <new>

#include "openssl_api.hpp"

namespace microbench {
namespace detail {

class tls_sessions {
public:
    tls_sessions() = default;
    tls_sessions(const tls_sessions&) = delete;
    tls_sessions& operator=(const tls_sessions&) = delete;
    ~tls_sessions() { clear(); }

    // Room for `capacity` sessions (at least one); false when the memory cannot be had.
    bool reserve(const openssl_api* api, std::uint32_t capacity) {
        api_ = api;
        capacity_ = capacity ? capacity : 1;
        ring_.reset(new (std::nothrow) ssl_session_st*[capacity_]);
        return ring_ != nullptr;
    }

    // Takes the reference the library gives with a session; false (nothing taken) when it is not
    // one to resume. When full, the oldest makes way.
    bool keep(ssl_session_st* s) {
        if (!api_->SSL_SESSION_is_resumable(s)) return false;
        if (count_ == capacity_) {
            api_->SSL_SESSION_free(ring_[head_]);
            ring_[head_] = s;
            head_ = (head_ + 1) % capacity_;
        } else {
            ring_[(head_ + count_++) % capacity_] = s;
        }
        return true;
    }

    // Sets the newest session still resumable and not past its lifetime on `ssl` (which takes its
    // own reference) and returns it; null when there is none. The ones passed over are dropped.
    ssl_session_st* offer(ssl_st* ssl) {
        const long now = static_cast<long>(std::time(nullptr));
        while (count_ > 0) {
            ssl_session_st* s = ring_[(head_ + count_ - 1) % capacity_];
            const bool usable = api_->SSL_SESSION_is_resumable(s) &&
                                now - api_->SSL_SESSION_get_time(s) < api_->SSL_SESSION_get_timeout(s) &&
                                api_->SSL_set_session(ssl, s) == 1;
            if (usable && api_->SSL_SESSION_get_protocol_version(s) < openssl::tls1_3_version) return s;  // kept
            --count_;
            api_->SSL_SESSION_free(s);  // the connection's own reference keeps an offered one alive
            if (usable) return s;
        }
        return nullptr;
    }

    void clear() {
        for (; count_ > 0; --count_) api_->SSL_SESSION_free(ring_[(head_ + count_ - 1) % capacity_]);
        head_ = 0;
    }

private:
    const openssl_api* api_ = nullptr;
    std::unique_ptr<ssl_session_st*[]> ring_;
    std::uint32_t capacity_ = 0, head_ = 0, count_ = 0;  // the oldest at head_
};

}  // namespace detail
}  // namespace microbench
