// tests/guarded_buffer.hpp — puts bytes right before a PROT_NONE page, so that reading even one
// byte past them crashes the test instead of passing silently (picohttpparser's trick).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

class guarded_buffer {
public:
    explicit guarded_buffer(std::size_t capacity) {
        page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        size_ = (capacity + page_ - 1) / page_ * page_ + page_;  // at least one readable page
        void* mem = mmap(nullptr, size_ + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED) return;
        base_ = static_cast<char*>(mem);
        if (mprotect(base_ + size_, page_, PROT_NONE) != 0) {
            munmap(base_, size_ + page_);
            base_ = nullptr;
        }
    }
    ~guarded_buffer() {
        if (base_) munmap(base_, size_ + page_);
    }
    guarded_buffer(const guarded_buffer&) = delete;
    guarded_buffer& operator=(const guarded_buffer&) = delete;

    bool ok() const { return base_ != nullptr; }

    // Copies `bytes` so that their last byte is the last readable byte; returns the copy.
    const char* place(std::string_view bytes) {
        if (!base_ || bytes.size() > size_) return nullptr;
        char* dst = base_ + size_ - bytes.size();
        if (!bytes.empty()) std::memcpy(dst, bytes.data(), bytes.size());
        return dst;
    }

private:
    char* base_ = nullptr;
    std::size_t size_ = 0;
    std::size_t page_ = 0;
};
