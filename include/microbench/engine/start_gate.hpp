// microbench/engine/start_gate.hpp — where a run's worker threads wait until all of them are ready, so
// the run's clock starts when the last one has allocated and started, not before. The runner
// opens the gate with the start time, or with -1 to tell the workers to give up.
#pragma once

#include <pthread.h>

#include <cstdint>

namespace microbench {
namespace detail {

class start_gate {
public:
    start_gate() = default;
    start_gate(const start_gate&) = delete;
    start_gate& operator=(const start_gate&) = delete;
    ~start_gate() {
        pthread_cond_destroy(&cv_);
        pthread_mutex_destroy(&mutex_);
    }

    // A worker: says it is ready and waits for the gate; returns the start time, or -1.
    std::int64_t arrive_and_wait() {
        pthread_mutex_lock(&mutex_);
        ++ready_;
        pthread_cond_broadcast(&cv_);
        while (!open_) pthread_cond_wait(&cv_, &mutex_);
        std::int64_t start = start_ns_;
        pthread_mutex_unlock(&mutex_);
        return start;
    }

    // The runner: waits until `workers` have arrived.
    void wait_ready(std::uint32_t workers) {
        pthread_mutex_lock(&mutex_);
        while (ready_ < workers) pthread_cond_wait(&cv_, &mutex_);
        pthread_mutex_unlock(&mutex_);
    }

    void open(std::int64_t start_ns) {
        pthread_mutex_lock(&mutex_);
        start_ns_ = start_ns;
        open_ = true;
        pthread_cond_broadcast(&cv_);
        pthread_mutex_unlock(&mutex_);
    }

private:
    pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cv_ = PTHREAD_COND_INITIALIZER;
    std::uint32_t ready_ = 0;
    bool open_ = false;
    std::int64_t start_ns_ = -1;
};

}  // namespace detail
}  // namespace microbench
