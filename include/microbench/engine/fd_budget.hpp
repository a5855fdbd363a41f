// microbench/engine/fd_budget.hpp — the open-file limit a run needs: the descriptors open now,
// and room for the run's on top of them, the soft limit raised for the run only when the plan
// allows it (plan::raise_fd_limit) and put back after.
#pragma once

#include <dirent.h>
#include <sys/resource.h>

#include <cstddef>

namespace microbench {
namespace detail {

// Descriptors this process has open now (counted in /proc/self/fd), or 0 when it cannot tell.
inline std::size_t open_descriptors() {
    DIR* d = opendir("/proc/self/fd");
    if (!d) return 0;
    std::size_t n = 0;
    while (const dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
    return n > 0 ? n - 1 : 0;  // not the directory's own descriptor
}

// Makes room for `needed` more descriptors than are open now: the soft open-file limit must
// allow them, and only when `may_raise` is it raised (toward the hard limit) for the run; the
// destructor puts the old limit back.
class fd_budget {
public:
    fd_budget(std::size_t needed, bool may_raise) {
        if (getrlimit(RLIMIT_NOFILE, &old_) != 0) return;
        const rlim_t want = static_cast<rlim_t>(open_descriptors() + needed);
        if (old_.rlim_cur == RLIM_INFINITY || old_.rlim_cur >= want) {
            ok_ = true;
            return;
        }
        if (!may_raise || (old_.rlim_max != RLIM_INFINITY && old_.rlim_max < want)) return;
        rlimit raised = old_;
        raised.rlim_cur = want;
        ok_ = raised_ = setrlimit(RLIMIT_NOFILE, &raised) == 0;
    }
    ~fd_budget() {
        if (raised_) setrlimit(RLIMIT_NOFILE, &old_);
    }
    fd_budget(const fd_budget&) = delete;
    fd_budget& operator=(const fd_budget&) = delete;
    bool ok() const { return ok_; }

private:
    rlimit old_{};
    bool ok_ = false, raised_ = false;
};

}  // namespace detail
}  // namespace microbench
