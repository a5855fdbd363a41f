/* Load-test and check an endpoint from C through libmicrobench (microbench.h). */
#include <stdio.h>

#include "microbench.h"

int main(void) {
    mb_server* server = NULL;
    mb_plan* plan = NULL;
    mb_result* r = NULL;
    char url[64];
    int status;
    if ((status = mb_server_start("127.0.0.1", 0, 1, &server)) != MB_OK) {  /* or any http:// URL of yours */
        fprintf(stderr, "server: %s\n", mb_status_message(status));
        return 1;
    }
    snprintf(url, sizeof url, "http://127.0.0.1:%u/factorial/20", (unsigned)mb_server_port(server));
    if ((status = mb_plan_create(url, &plan)) == MB_OK && (status = mb_plan_set_requests(plan, 2000)) == MB_OK &&
        (status = mb_plan_set_concurrency(plan, 20)) == MB_OK && (status = mb_plan_check_factorial(plan, 20)) == MB_OK)
        status = mb_run(plan, &r);
    if (status != MB_OK) {
        fprintf(stderr, "microbench: %s (%s)\n", mb_status_message(status), mb_status_name(status));
    } else {
        printf("%llu correct of %llu, %.0f req/s, p99 %.3f ms\n",
               (unsigned long long)mb_result_count(r, MB_COUNT_COMPLETED),
               (unsigned long long)mb_result_count(r, MB_COUNT_ENDED), mb_result_requests_per_second(r),
               mb_result_timing_percentile_ns(r, MB_TIMING_TOTAL, 99) / 1e6);
        status = mb_result_count(r, MB_COUNT_FAILED) == 0 ? MB_OK : -1;
    }
    mb_result_destroy(r);
    mb_plan_destroy(plan);
    mb_server_stop(server);
    return status == MB_OK ? 0 : 1;
}
