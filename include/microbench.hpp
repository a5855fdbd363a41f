// microbench.hpp — the whole microbench C++ library: include this and nothing else.
// Header-only; each part under microbench/ has one job and says so in its first lines. The parts
// are grouped by layer, each including only its own layer and those before it: core/ (version,
// errors, text helpers), http/ (URLs, requests, the response parser, checks), stats/ (histograms,
// the result), engine/ (plan, event loop, workers, runner), server/ (the reference server),
// report/ (ab's report, text, JSON, HdrHistogram's .hgrm and interval logs, HTML, merge, gates,
// suite) and c_api/ (microbench.h's implementation).
// For a small device, define before including it (docs/footprint.md, "A small-device profile"):
//   MICROBENCH_NO_SERVER     without the reference server (and self_test())
//   MICROBENCH_NO_REPORTS    without ab's report, the other reports, the gates and the suite
//   MICROBENCH_HISTOGRAM_DIGITS=2   every latency histogram at 1 % (config.hpp)
//   MICROBENCH_NO_TLS        without the built-in TLS (OpenSSL loaded at run time): https:// then
//                            needs a transport of the plan's own
//   MICROBENCH_NO_TARGETS    without targets and URL ranges (plan::targets, plan::url_ranges)
// The C API (MICROBENCH_C_IMPLEMENTATION) needs the server and the reports.
#pragma once

#include "microbench/core/version.hpp"
#include "microbench/core/config.hpp"
#include "microbench/core/error.hpp"
#include "microbench/core/ascii.hpp"
#include "microbench/http/url.hpp"
#include "microbench/http/connect_to.hpp"
#include "microbench/http/url_ranges.hpp"
#include "microbench/http/request.hpp"
#include "microbench/http/chunked_decoder.hpp"
#include "microbench/http/response_parser.hpp"
#include "microbench/stats/histogram_layout.hpp"
#include "microbench/stats/histogram.hpp"
#include "microbench/stats/histogram_codec.hpp"
#include "microbench/core/zlib.hpp"
#include "microbench/stats/histogram_hdr.hpp"
#include "microbench/core/bigint.hpp"
#include "microbench/http/regex_syntax.hpp"
#include "microbench/http/body_regex.hpp"
#include "microbench/http/checks.hpp"
#include "microbench/core/clock.hpp"
#include "microbench/core/splitmix.hpp"
#include "microbench/engine/net.hpp"
#include "microbench/engine/event_loop.hpp"
#include "microbench/stats/failure.hpp"
#include "microbench/stats/by_target.hpp"
#include "microbench/stats/result.hpp"
#include "microbench/engine/transport.hpp"
#include "microbench/engine/target.hpp"
#include "microbench/engine/plan_callbacks.hpp"
#include "microbench/engine/rate_curve.hpp"
#include "microbench/engine/tls_options.hpp"
#include "microbench/engine/plan.hpp"
#include "microbench/engine/shard.hpp"
#include "microbench/engine/connection.hpp"
#include "microbench/engine/start_gate.hpp"
#include "microbench/engine/schedule.hpp"
#include "microbench/engine/intervals.hpp"
#include "microbench/engine/worker_setup.hpp"
#include "microbench/engine/worker.hpp"
#include "microbench/engine/worker_connect.hpp"
#include "microbench/engine/worker_send.hpp"
#include "microbench/engine/worker_receive.hpp"
#include "microbench/engine/worker_rate.hpp"
#ifndef MICROBENCH_NO_TLS
#include "microbench/engine/openssl_api.hpp"
#include "microbench/engine/tls_sessions.hpp"
#include "microbench/engine/tls_openssl.hpp"
#endif
#include "microbench/engine/targets.hpp"
#include "microbench/engine/targets_file.hpp"
#include "microbench/engine/target_records.hpp"
#include "microbench/engine/fd_budget.hpp"
#include "microbench/engine/stages.hpp"
#include "microbench/engine/runner.hpp"
#include "microbench/engine/capacity.hpp"
#ifndef MICROBENCH_NO_REPORTS
#include "microbench/core/appendf.hpp"
#include "microbench/core/decimal.hpp"
#include "microbench/report/report_ab.hpp"
#include "microbench/report/report_text.hpp"
#include "microbench/report/report_by_target.hpp"
#include "microbench/report/report_json.hpp"
#include "microbench/report/report_hgrm.hpp"
#include "microbench/report/report_hlog.hpp"
#include "microbench/core/json_read.hpp"
#include "microbench/core/json_write.hpp"
#include "microbench/report/json_fields.hpp"
#include "microbench/report/report_read_targets.hpp"
#include "microbench/report/report_read.hpp"
#include "microbench/report/report_merge.hpp"
#include "microbench/report/report_hlog_runs.hpp"
#include "microbench/report/svg_chart.hpp"
#include "microbench/report/report_charts.hpp"
#include "microbench/report/report_html_targets.hpp"
#include "microbench/report/report_html_tables.hpp"
#include "microbench/report/report_html.hpp"
#include "microbench/report/gates.hpp"
#include "microbench/report/report_junit.hpp"
#include "microbench/report/report_capacity.hpp"
#endif
#ifndef MICROBENCH_NO_SERVER
#include "microbench/server/request_parser.hpp"
#include "microbench/server/server_counts.hpp"
#include "microbench/server/server_endpoints.hpp"
#include "microbench/server/server_deadlines.hpp"
#include "microbench/server/server_connection.hpp"
#include "microbench/server/listener.hpp"
#include "microbench/server/server.hpp"
#endif
#ifndef MICROBENCH_NO_REPORTS
#include "microbench/report/suite.hpp"
#endif
#include "microbench/c_api/c_api.hpp"
#include "microbench/c_api/c_api_plan.hpp"
#include "microbench/c_api/c_api_result.hpp"
#include "microbench/c_api/c_api_tls.hpp"
#include "microbench/c_api/c_api_suite.hpp"
#include "microbench/c_api/c_api_targets.hpp"
#include "microbench/c_api/c_api_hlog.hpp"
#include "microbench/c_api/c_api_capacity.hpp"
