// A user's program: includes microbench the documented way and uses a little of everything.
// Exits 0 only if the library behaves, so a broken package fails the packaging tests.
#include <microbench.hpp>

#include <cstdio>
#include <cstring>

int main() {
    microbench::url target;
    if (microbench::parse_url("http://127.0.0.1:8000/factorial/10", target)) return 1;
    std::string request;
    if (microbench::build_request(target, {}, request)) return 2;
    microbench::histogram latency;
    latency.record(42'000);
    if (latency.value_at_percentile(50) != 42'000) return 3;
    if (std::strcmp(microbench::version_string, MICROBENCH_VERSION_STRING) != 0) return 4;
    std::printf("microbench %s consumer ok\n", microbench::version_string);
    return 0;
}
