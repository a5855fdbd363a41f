// microbench.hpp — the whole microbench C++ library: include this and nothing else.
// Header-only; each part under microbench/ has one job and says so in its first lines.
// For a small device, define before including it (README, "A small-device profile"):
//   MICROBENCH_NO_SERVER     without the reference server (and self_test())
//   MICROBENCH_NO_REPORTS    without ab's report, the other reports, the gates and the suite
//   MICROBENCH_HISTOGRAM_DIGITS=2   every latency histogram at 1 % (config.hpp)
// The C API (MICROBENCH_C_IMPLEMENTATION) needs the server and the reports.
#pragma once

#include "microbench/version.hpp"
#include "microbench/config.hpp"
#include "microbench/error.hpp"
#include "microbench/ascii.hpp"
#include "microbench/url.hpp"
#include "microbench/request.hpp"
#include "microbench/chunked_decoder.hpp"
#include "microbench/response_parser.hpp"
#include "microbench/histogram.hpp"
#include "microbench/histogram_codec.hpp"
#include "microbench/bigint.hpp"
#include "microbench/checks.hpp"
#include "microbench/clock.hpp"
#include "microbench/net.hpp"
#include "microbench/event_loop.hpp"
#include "microbench/result.hpp"
#include "microbench/plan.hpp"
#include "microbench/connection.hpp"
#include "microbench/start_gate.hpp"
#include "microbench/schedule.hpp"
#include "microbench/intervals.hpp"
#include "microbench/worker.hpp"
#include "microbench/worker_connect.hpp"
#include "microbench/worker_receive.hpp"
#include "microbench/worker_rate.hpp"
#include "microbench/runner.hpp"
#ifndef MICROBENCH_NO_REPORTS
#include "microbench/appendf.hpp"
#include "microbench/report_ab.hpp"
#include "microbench/report_text.hpp"
#include "microbench/report_json.hpp"
#include "microbench/gates.hpp"
#endif
#ifndef MICROBENCH_NO_SERVER
#include "microbench/request_parser.hpp"
#include "microbench/server_endpoints.hpp"
#include "microbench/server.hpp"
#endif
#ifndef MICROBENCH_NO_REPORTS
#include "microbench/suite.hpp"
#endif
#include "microbench/c_api.hpp"
#include "microbench/c_api_result.hpp"
#include "microbench/c_api_suite.hpp"
