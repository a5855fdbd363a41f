#!/usr/bin/env python3
"""The Python binding (the package bindings/python) against libmicrobench — in the tree as CTest runs
it (PYTHONPATH=bindings/python, MICROBENCH_LIBRARY the build's), and installed, as test_package.py
runs it (neither set: the package's own library): a load test with exact counts against the reference server, the
factorial check catching a wrong body, cancel from another thread, the JSON read by the json
module, errors as exceptions with their status name, the suite and the self-test, the HTML report,
and all of it alike in a comma locale; https:// against Python's own TLS server."""
import http.server
import json
import locale
import math
import os
import pathlib
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import microbench  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from http_fixture import scripted_http  # noqa: E402
from hdr_v2 import decode_row_histogram  # noqa: E402


MASK64 = (1 << 64) - 1


def mix64(z):
    """SplitMix64's output function (include/microbench/core/splitmix.hpp)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def poisson_arrivals_before(seed, worker, gap_ns, end_ns):
    """How many intended send times worker `worker`'s Poisson schedule (include/microbench/engine/
    schedule.hpp) puts before end_ns in an unsharded run seeded `seed`: its stream's seed hashes the
    run's seed, the shard (0) and the worker (stream_seed); SplitMix64, exponential gaps of mean
    gap_ns, the same doubles and the same libm log. Change it with the generator."""
    state = mix64(mix64(seed ^ 0x6A09E667F3BCC909) ^ worker)

    def gap():
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        return -math.log(float((mix64(state) >> 11) + 1) * 2.0 ** -53) * gap_ns

    at, count = gap(), 0
    while int(at) < end_ns:
        count, at = count + 1, at + gap()
    return count


class Binding(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = microbench.Server(threads=2)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_exact_counts(self):
        before = self.server.requests
        seen = []
        r = microbench.run(self.server.url("/factorial/10"), n=1000, c=10, threads=2, pipeline=2,
                           check_factorial=10, expect_status=[200], on_response=lambda status, size: seen.append(status) or True)
        self.assertEqual((r.ended, r.completed, r.failed, r.unfinished), (1000, 1000, 0, 0))
        self.assertEqual(self.server.requests - before, 1000)
        self.assertEqual(len(seen), 1000)
        self.assertEqual(r.document_length, 21)
        self.assertEqual(r.body_bytes, 21000)
        self.assertEqual(r.connects, 10)
        t = r.timings["total"]
        self.assertEqual(t.count, 1000)
        self.assertTrue(0 < t.min_ms <= t.p50_ms <= t.p99_ms <= t.max_ms * 1.001)
        self.assertIn("Complete requests:      1000\n", r.report)
        self.assertEqual(r.failures, dict.fromkeys(microbench.FAILURES, 0))

    def test_json_is_the_result(self):
        r = microbench.run(self.server.url("/factorial/5"), n=50, c=5)
        self.assertEqual(r.json["requests"]["completed"], 50)
        self.assertEqual(r.json["status_codes"], {"200": 50})
        self.assertEqual(json.loads(json.dumps(r.json)), r.json)

    def test_a_server_header_that_is_not_utf8_does_not_lose_the_result(self):
        # Regression: the report carries the Server header's own bytes, and run() raised
        # UnicodeDecodeError after the run, losing the result.
        with scripted_http(lambda _: (200, b"ok"), server_header="caf\xe9") as base:  # the byte 0xe9
            r = microbench.run(f"{base}/", n=3)
        self.assertEqual(r.completed, 3)
        self.assertIn("Server Software:        caf\ufffd\n", r.report)

    def test_out_of_range_arguments_are_value_errors_and_times_round(self):
        # ctypes wraps integers silently (n=-1 was 2**64 - 1 requests), and seconds were cut, not
        # rounded, to milliseconds (timeout=1.0015 was 1001, duration=0.0004 was 0: no limit).
        url = self.server.url("/")
        for bad in ({"n": -1}, {"c": 2 ** 32 + 3}, {"threads": -2}, {"timeout": float("nan")}, {"duration": -1},
                    {"interval": -0.5}, {"start_at": float("inf")}, {"max_batch_lag": -1},
                    {"progress_every": -1, "on_progress": print}):
            with self.subTest(bad), self.assertRaises(ValueError):
                microbench.run(url, **{"n": 1, **bad})
        with self.assertRaises(ValueError):
            microbench.Server(port=70000)
        with self.assertRaises(ValueError):
            microbench.validate(url, progress_every=-1, on_progress=print)  # validate sees the callbacks' settings too
        r = microbench.run(url, n=2, timeout=1.0016)
        self.assertEqual(r.json["config"]["timeout_ms"], 1002)
        r = microbench.run(url, duration=0.0004)  # a positive time is at least 1 ms, not "no limit"
        self.assertEqual(r.json["config"]["duration_ms"], 1)

    def test_interval_histograms_alone_give_rows_of_a_second_and_a_log(self):
        r = microbench.run(self.server.url("/"), duration=1.5, c=2, interval_histograms=True)
        self.assertGreaterEqual(len(r.intervals), 2)
        self.assertTrue(r.hlog.startswith("#[Logged with microbench"), r.hlog[:100])

    def test_factorial_check_catches_a_wrong_body(self):
        with scripted_http(lambda _: (200, b'{"factorial": 3628801}')) as base:  # 10! + 1
            r = microbench.run(f"{base}/factorial/10", n=20, c=2, check_factorial=10)
        self.assertEqual(r.failures["check"], 20)
        self.assertEqual(r.completed, 0)
        self.assertEqual(r.goodput_per_second, 0.0)

    def test_body_checks_and_the_first_failed_response(self):
        url = self.server.url("/factorial/10")
        r = microbench.run(url, n=20, c=2, body_contains='"factorial":', body_regex=r'^\{"factorial": *3628800\}$')
        self.assertEqual((r.completed, r.failures["check"]), (20, 0))
        r = microbench.run(url, n=20, c=2, body_regex=b"3628801")
        self.assertEqual((r.completed, r.failures["check"]), (0, 20))
        first = r.json["first_failed_check"]
        self.assertEqual((first["body"], first["expected"]),
                         ('{"factorial":3628800}', 'body matches /3628801/ (a body of at most 1048576 bytes)'))
        for bad in ("a(b", "", "x" * 4097):
            with self.subTest(pattern=bad[:10]), self.assertRaises(microbench.MicrobenchError) as e:
                microbench.run(url, body_regex=bad)
            self.assertEqual(e.exception.name, "plan_bad_regex")

    def test_cancel_from_another_thread(self):
        with microbench.Cancel() as cancel:
            timer = threading.Timer(0.3, cancel.trigger)
            timer.start()
            t0 = time.monotonic()
            r = microbench.run(self.server.url("/delay/50"), n=100000, c=4, cancel=cancel)
            timer.join()
        self.assertTrue(r.cancelled)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertLess(r.ended + r.unfinished, 100000)

    def test_a_raising_callback_stops_the_run(self):
        # An exception in a callback cancels the run and comes out of run(), the very object;
        # the callback is not called again. Without the stop each run would take 5 to 10 s more
        # and call it hundreds of times; with it the server sees a small part of the plan.
        class Stop(Exception):
            pass

        def raising(on_call):
            calls = []

            def callback(*args):
                calls.append(args)
                if len(calls) == on_call:
                    raise Stop(len(calls))
                return True
            return callback, calls

        cases = (("on_interval", 1, dict(duration=10, rate=100, interval=0.05), "/factorial/10", 1000),
                 ("on_progress", 2, dict(n=2000), "/delay/5", 2000),      # on this thread, every 100 ms
                 ("on_response", 3, dict(n=2000), "/delay/5", 2000))      # on a worker thread
        for name, on_call, plan, path, planned in cases:
            with self.subTest(name):
                callback, calls = raising(on_call)
                before = self.server.requests
                with self.assertRaises(Stop) as e:
                    microbench.run(self.server.url(path), c=2, **plan, **{name: callback})
                self.assertEqual(e.exception.args, (on_call,))
                self.assertEqual(len(calls), on_call)
                self.assertLess(self.server.requests - before, planned)

    def test_cancel_stays_triggered(self):
        with microbench.Cancel() as cancel:
            cancel.trigger()
            r = microbench.run(self.server.url("/delay/50"), n=1000, c=2, cancel=cancel)
        self.assertTrue(r.cancelled)
        self.assertEqual(r.completed, 0)

    def test_progress_on_the_calling_thread(self):
        calls = []
        microbench.run(self.server.url("/delay/5"), n=200, c=2, on_progress=lambda e, t, s: calls.append((e, threading.get_ident())))
        self.assertGreaterEqual(len(calls), 2)
        self.assertEqual({ident for _, ident in calls}, {threading.get_ident()})

    def test_progress_by_count(self):
        # Not by time, only each time another 50 requests have ended: every call has seen its 50 more.
        calls = []
        microbench.run(self.server.url("/delay/5"), n=200, c=2, progress_every=0, progress_every_requests=50,
                       on_progress=lambda ended, target, elapsed: calls.append(ended))
        self.assertGreaterEqual(len(calls), 1)
        self.assertTrue(all(ended >= 50 * (i + 1) for i, ended in enumerate(calls)), calls)

    def test_errors_carry_the_status_name(self):
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run("ftp://127.0.0.1/")
        self.assertEqual(e.exception.name, "url_unsupported_scheme")
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run(self.server.url("/"), n=5, c=10)
        self.assertEqual(e.exception.name, "plan_concurrency_above_requests")
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run(self.server.url("/"), c=0)
        self.assertEqual(e.exception.name, "plan_bad_concurrency")

    def test_refused_port_counts_connect_failures(self):
        with microbench.Server() as gone:
            url = gone.url("/")
        r = microbench.run(url, n=10, c=2)
        self.assertEqual(r.failures["connect"], 10)

    def test_suite_and_self_test(self):
        results = microbench.suite(self.server.url("/factorial/10"), scale=0.02, factorial_check=True)
        self.assertEqual([name for name, _ in results], ["basic load", "latency", "failure rate", "keep-alive", "stress"])
        self.assertTrue(all(r.failed == 0 and r.completed >= 20 for _, r in results))
        self.assertTrue(all(f"\n{name}" in results.table or results.table.startswith(name) for name, _ in results), results.table)
        self.assertTrue(results.html.startswith("<!DOCTYPE html>"))
        self.assertEqual(results.html.count("<h2"), 5)  # a section per scenario
        passed, results = microbench.self_test(scale=0.01, title="self & test")
        self.assertTrue(passed)
        self.assertEqual(len(results), 10)
        self.assertIn("<title>self &amp; test</title>", results.html)

    def test_html_report(self):
        a = microbench.run(self.server.url("/factorial/10"), n=300, c=3, check_factorial=10)
        b = microbench.run(self.server.url("/delay?us=200"), n=300, c=3)
        page = microbench.report_html([a, b.json], labels=["fast", "slow"], title="A & B")
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        self.assertIn("<title>A &amp; B</title>", page)
        self.assertIn("<th scope=\"row\">Complete requests</th><td>300</td><td>300</td>", page)
        self.assertIn(f"fast p99: {a.json['latency_ns']['total']['percentiles']['99'] / 1e6:.3f} ms", page)
        self.assertNotIn("<script", page)
        self.assertIn("<b>/delay?us=200</b>", microbench.report_html([json.dumps(b.json)]))  # labelled as the run was
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.report_html(['{"microbench": "0.1.0"}'])
        self.assertEqual(e.exception.name, "result_bad_field")
        with self.assertRaises(ValueError):
            microbench.report_html([a], labels=[])

    def test_fixed_rate(self):
        # At a fixed rate a request's response time runs from its intended send time: it is its
        # schedule lag (intended -> sent) plus its total time (sent -> last byte), request by request,
        # so the exact sums, and the means, add up. The server holds every response 2 ms.
        r = microbench.run(self.server.url("/delay?us=2000"), n=200, c=4, rate=1000)
        self.assertEqual((r.completed, r.failed, r.schedule_missed), (200, 0, 0))
        response, total, lag = (r.timings[k] for k in ("response", "total", "schedule_lag"))
        self.assertEqual((response.count, total.count, lag.count), (200, 200, 200))
        self.assertGreaterEqual(total.min_ms, 2.0)
        self.assertAlmostEqual(response.mean_ms, total.mean_ms + lag.mean_ms, delta=1e-9 * response.mean_ms)
        self.assertLessEqual(response.max_ms, total.max_ms + lag.max_ms)
        self.assertGreater(lag.max_ms, 0)  # nothing leaves at its exact nanosecond
        self.assertEqual(r.json["open_model"]["rate"], 1000)
        # A batch lag of 2 ms at 5,000/s: ten requests a wake, each waiting for the last of its window
        # (a late, loaded machine only adds to the lag).
        r = microbench.run(self.server.url("/factorial/10"), n=200, c=20, rate=5000, max_batch_lag=0.002)
        self.assertEqual((r.completed, r.timings["schedule_lag"].count), (200, 200))
        self.assertGreaterEqual(r.timings["schedule_lag"].mean_ms, 0.3)
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run(self.server.url("/"), n=10, rate=10, max_batch_lag=0.0101)
        self.assertEqual(e.exception.name, "plan_bad_batch_lag")
        with self.assertRaises(ValueError):  # not the C API's -1, "the default"
            microbench.run(self.server.url("/"), n=10, rate=10, max_batch_lag=-1e-6)

    def test_intervals_and_poisson_arrivals(self):
        seen = []
        r = microbench.run(self.server.url("/factorial/10"), n=0, duration=1.0, c=4, threads=2, rate=500,
                           arrivals="poisson", seed=3, interval=0.25, on_interval=seen.append)
        # Rows at 0, 0.25, 0.5 and 0.75 s, the last one ending with the run; when a busy machine is
        # still receiving at 1 s, rows of that drain follow, in which nothing is sent.
        self.assertEqual([round(i.start_s, 6) for i in r.intervals[:4]], [0.0, 0.25, 0.5, 0.75])
        self.assertTrue(all(abs(i.duration_s - 0.25) < 1e-6 for i in r.intervals[:-1]))
        self.assertTrue(all(i.start_s >= 1.0 - 1e-9 and i.sent == 0 for i in r.intervals[4:]))
        self.assertEqual([i.start_s for i in seen], [i.start_s for i in r.intervals])
        self.assertEqual(sum(i.ended for i in r.intervals), r.ended)
        self.assertEqual(sum(i.completed for i in r.intervals), r.timings["response"].count)
        self.assertEqual(sum(i.sent for i in r.intervals), r.ended + r.unfinished)
        self.assertEqual(r.json["open_model"]["arrivals"], "poisson")
        # What the Poisson schedule decided, whatever the timing: its arrivals before the end,
        # each sent or counted missed. An evenly spaced schedule would have made exactly 500.
        due = sum(poisson_arrivals_before(3, worker, 1e9 * 2 / 500, 1_000_000_000) for worker in range(2))
        self.assertNotEqual(due, 500)
        self.assertEqual(r.ended + r.unfinished + r.schedule_missed, due)
        self.assertAlmostEqual(r.intervals[0].target_requests, 125.0)  # due in 0.25 s
        self.assertAlmostEqual(r.intervals[0].target_per_s, 500.0)  # per second, as rate_per_s
        self.assertAlmostEqual(r.intervals[0].rate_per_s, r.intervals[0].ended / 0.25)
        self.assertEqual(microbench.run(self.server.url("/"), n=10).intervals, [])
        with self.assertRaises(ValueError):
            microbench.run(self.server.url("/"), n=10, rate=10, arrivals="bursty")
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run(self.server.url("/"), n=10, interval=0.001)
        self.assertEqual(e.exception.name, "plan_bad_interval")

    def test_interval_histograms_and_hdrhistogram_log(self):
        # Kept per row in the JSON; the log read with Python's own zlib: three rows an interval,
        # each response row's count that interval's completed requests.
        r = microbench.run(self.server.url("/factorial/10"), n=400, c=4, rate=2000, interval=0.05, interval_histograms=True)
        self.assertEqual(r.completed, 400)
        self.assertTrue(all(set(row["histograms"]) == {"response", "service", "schedule_lag"} for row in r.json["intervals"]))
        lines = r.hlog.splitlines()
        self.assertTrue(lines[0].startswith("#[Logged with microbench "))
        self.assertEqual(lines[1], "#[Histogram log format version 1.3]")
        rows = [line.split(",") for line in lines if line.startswith("Tag=")]
        self.assertEqual([row[0] for row in rows], ["Tag=response", "Tag=service", "Tag=schedule_lag"] * len(r.intervals))
        for k, interval in enumerate(r.intervals):
            header, counts = decode_row_histogram(rows[3 * k][4])
            self.assertEqual(header[0], 0x1C849313)
            self.assertEqual(sum(counts.values()), interval.completed)
        plain_run = microbench.run(self.server.url("/factorial/10"), n=50, c=2, rate=2000, interval=0.05)
        self.assertEqual(plain_run.hlog, "")
        self.assertTrue(all("histograms" not in row for row in plain_run.json["intervals"]))

    def test_read_hlog_merges_logs_exactly(self):
        # A run's log read back through the library: a tag per metric, every interval, the run's
        # counts and percentiles; two generators' logs (one UTF-16, as HdrHistogram.NET writes) add up.
        r = microbench.run(self.server.url("/factorial/10"), n=400, c=4, rate=2000, interval=0.05, interval_histograms=True)
        tags = microbench.read_hlog(r.hlog)
        self.assertEqual(list(tags), ["response", "service", "schedule_lag"])
        for tag, column in (("response", "response"), ("service", "total"), ("schedule_lag", "schedule_lag")):
            t, timing = tags[tag], r.timings[column]
            self.assertEqual((t.tag, t.intervals, t.count), (tag, len(r.intervals), 400))
            # the same bucket: the log's value is its highest, the run's is clamped to the exact maximum
            for q in (50, 99):
                run_ns = round(timing.percentiles_ms[q] * 1e6)
                self.assertTrue(run_ns <= t.percentiles[q] <= run_ns + t.percentiles[q] // 1024 + 1, (tag, q, t.percentiles[q], run_ns))
            self.assertLessEqual(t.min, round(timing.min_ms * 1e6))
            self.assertGreaterEqual(t.max, round(timing.max_ms * 1e6))
        self.assertIn(f"Total count    = {400:12d}]", tags["response"].hgrm)
        both = microbench.read_hlog(r.hlog.encode(), ("\ufeff" + r.hlog).encode("utf-16-le"))
        self.assertEqual((both["response"].count, both["response"].intervals), (800, 2 * len(r.intervals)))
        self.assertEqual(both["response"].percentiles[99], tags["response"].percentiles[99])
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.read_hlog(r.hlog, "#[BaseTime: 0.000]\nTag=x,0.0,1.0\n")
        self.assertEqual(e.exception.name, "hlog_bad")
        self.assertTrue(e.exception.message.startswith("line 2: "), e.exception.message)
        self.assertEqual(microbench.read_hlog(), {})
        # A limit on the histograms' counters below what a row needs: refused, naming the line.
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.read_hlog(r.hlog, max_memory=1000)
        self.assertEqual(e.exception.name, "hlog_bad")
        self.assertIn("line 6: its highest trackable value, ", e.exception.message)
        self.assertIn("above the reader's limit of 1000 bytes", e.exception.message)
        self.assertEqual(microbench.read_hlog(r.hlog, max_memory=1 << 30)["response"].count, 400)

    def test_duration_without_n_is_unlimited(self):
        # Like ab's -t (the command line zeroes -n): a duration and no count means no count limit.
        # At a fixed rate the schedule decides how many requests were due before the end, 0, 10,
        # ..., 390 ms: 40, each sent or counted missed, however busy the machine.
        r = microbench.run(self.server.url("/factorial/10"), duration=0.4, c=2, rate=100)
        self.assertEqual(r.ended + r.unfinished + r.schedule_missed, 40)
        # An explicit count with a duration keeps both limits.
        r = microbench.run(self.server.url("/factorial/10"), n=5, duration=0.4, c=2, rate=100)
        self.assertEqual(r.ended + r.unfinished + r.schedule_missed, 5)

    def test_result_fields_match_its_json(self):
        # The counters the binding reads one by one are the ones the JSON report writes.
        r = microbench.run(self.server.url("/factorial/5"), n=60, c=3, keep_alive=False)
        j = r.json
        self.assertEqual((r.concurrency_peak, r.connects, r.server_closes, r.local_waits),
                         (j["connections"]["peak"], j["connections"]["connects"], j["connections"]["server_closes"], 0))
        self.assertEqual((r.connects, r.concurrency_peak), (60, 3))
        self.assertEqual(r.status_codes, {200: 60})
        self.assertEqual({str(k): v for k, v in r.status_codes.items()}, j["status_codes"])
        t = r.timings["total"]
        rows = {line.split()[0]: line.split()[-1] for line in r.latency_report.splitlines()[3:] if line.strip()}
        self.assertEqual(rows["stddev"], f"{t.stddev_ms * 1000:.1f}")  # total is the last column, in µs
        self.assertEqual(rows["p99"], f"{t.percentiles_ms[99] * 1000:.1f}")
        # HdrHistogram's .hgrm text of the column: its header, its 100 % row and footer with the count.
        self.assertTrue(t.hgrm.startswith("       Value   Percentile   TotalCount 1/(1-Percentile)\n\n"))
        self.assertIn(" 1.000000           60          inf\n", t.hgrm)
        self.assertIn("Total count    =           60]\n", t.hgrm)
        answered = microbench.run(self.server.url("/status/503"), n=3)
        self.assertEqual((answered.status_codes, answered.non_2xx), ({503: 3}, 3))

    def test_targets_each_n_and_by_target(self):
        # A range with each answer checked against its own n, every target counted.
        r = microbench.run(self.server.url("/factorial/{0..30}"), n=62, c=2, url_ranges=True, check_factorial="each",
                           by_target=True)
        self.assertEqual((r.completed, r.failed), (62, 0))
        self.assertEqual(r.factorial_verdict, "right for n = 0..30")
        self.assertEqual(sorted(row.target for row in r.targets), sorted(f"/factorial/{n}" for n in range(31)))
        self.assertTrue(all(row.requests == 2 and row.completed == 2 and row.p50_ms > 0 for row in r.targets))
        self.assertEqual((r.targets_folded.index, r.targets_folded.requests), (0, 0))
        self.assertEqual(r.json["by_target"]["targets"], 31)
        # A list, each once at random; then a targets file, and one with a fault.
        targets = [self.server.url(f"/factorial/{n}") for n in (3, 4, 5)] + [{"url": self.server.url("/factorial/6"),
                                                                               "method": "GET"}]
        r = microbench.run(self.server.url("/"), c=2, targets=targets, each_once=True, order="random", seed=3,
                           check_factorial="each", by_target=True)
        self.assertEqual(r.completed, 4)
        self.assertEqual([row.requests for row in r.targets], [1, 1, 1, 1])
        self.assertEqual(r.factorial_verdict, "right for n = 3..6")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "targets.txt")
            with open(path, "w") as f:
                f.write(f"GET {self.server.url('/factorial/7')}\n\nGET {self.server.url('/factorial/8')}\n")
            r = microbench.run(self.server.url("/"), n=4, targets_file=path, check_factorial="each")
            self.assertEqual((r.completed, r.factorial_verdict), (4, "right for n = 7..8"))
            with open(path, "w") as f:
                f.write(f"GET {self.server.url('/factorial/7')}\nnot a header\n")
            with self.assertRaises(microbench.MicrobenchError) as caught:
                microbench.run(self.server.url("/"), targets_file=path)
            self.assertEqual(caught.exception.name, "targets_bad_line")
            self.assertIn("targets.txt:2:1:", caught.exception.message)
        with self.assertRaises(ValueError):
            microbench.run(self.server.url("/"), order="shuffled")
        with self.assertRaises(ValueError):
            microbench.run(self.server.url("/"), targets=[{"url": self.server.url("/"), "headers": {}}])
        with self.assertRaises(TypeError):
            microbench.run(self.server.url("/"), targets=self.server.url("/"))
        with self.assertRaises(ValueError):
            microbench.run(self.server.url("/"), n=3, targets=targets, each_once=True)
        with self.assertRaises(microbench.MicrobenchError) as caught:
            microbench.run(self.server.url("/"), targets_file="/no/such/targets")
        self.assertEqual(caught.exception.message, "/no/such/targets: the targets file cannot be read")

    def test_on_request_writes_each_request(self):
        # Each request as the callback writes it: /factorial/<index mod 10>, counted under that n's
        # target, so the check of each target's n checks what was written.
        indices = []
        lock = threading.Lock()

        def write(index, target, prepared):
            with lock:
                indices.append(index)
            host = prepared[prepared.index(b"\r\nHost: "):]
            return b"GET /factorial/%d HTTP/1.1" % (index % 10) + host, index % 10

        r = microbench.run(self.server.url("/factorial/{0..9}"), n=100, c=4, threads=2, url_ranges=True,
                           check_factorial="each", by_target=True, on_request=write, request_capacity=256)
        self.assertEqual((r.completed, r.failed, r.request_fn_faults), (100, 0, 0))
        self.assertEqual(sorted(indices), sorted(set(indices)))  # each index once
        self.assertEqual(len(indices), 100)
        self.assertEqual(r.factorial_verdict, "right for n = 0..9")
        self.assertEqual(sorted(row.requests for row in r.targets), [10] * 10)
        # None stops the worker: one connection, five requests, then no more.
        calls = []
        r = microbench.run(self.server.url("/"), duration=30, c=1,
                           on_request=lambda i, t, prepared: None if len(calls) >= 5 or calls.append(i) else prepared)
        self.assertEqual((r.completed, r.failed, r.unfinished), (5, 0, 0))
        self.assertLess(r.elapsed_s, 20)
        # A target outside the targets is counted; more than the room raises.
        r = microbench.run(self.server.url("/"), n=10, c=1, on_request=lambda i, t, prepared: (prepared, 1))
        self.assertEqual((r.ended, r.request_fn_faults), (0, 1))
        with self.assertRaises(ValueError) as caught:
            microbench.run(self.server.url("/"), n=10, c=1, on_request=lambda i, t, p: p + b"x" * 64, request_capacity=64)
        self.assertIn("more than request_capacity (64)", str(caught.exception))
        with self.assertRaises(microbench.MicrobenchError) as caught:
            microbench.run(self.server.url("/"), on_request=lambda i, t, p: p, request_capacity=8)
        self.assertEqual(caught.exception.name, "plan_bad_request_capacity")
        with self.assertRaises(microbench.MicrobenchError) as caught:  # 1,100 rooms of 1 MiB: past 1 GiB
            microbench.run(self.server.url("/"), n=1100, c=1100, on_request=lambda i, t, p: p, request_capacity=1 << 20,
                           _validate_only=True)
        self.assertEqual(caught.exception.name, "plan_bad_request_capacity")
        with self.assertRaises(ValueError):
            microbench.run(self.server.url("/"), n=2, on_request=lambda i, t, p: (p, 1 << 32))
        with self.assertRaises(TypeError):
            microbench.run(self.server.url("/"), n=2, on_request=lambda i, t, p: 64)

    def test_connect_to(self):
        # A name nothing resolves, reached by the rule at the reference server.
        rule = f"microbench.invalid:81:127.0.0.1:{self.server.port}"
        r = microbench.run("http://microbench.invalid:81/factorial/5", n=6, c=2, connect_to=[rule], check_factorial=5)
        self.assertEqual((r.completed, r.failed, r.connected_to), (6, 0, f"127.0.0.1:{self.server.port}"))
        self.assertEqual(r.json["connected_to"], r.connected_to)
        self.assertIn(f"Note: connected to 127.0.0.1:{self.server.port} by --connect-to", r.report)
        self.assertEqual(microbench.run(self.server.url("/"), n=2).connected_to, "")
        with self.assertRaises(microbench.MicrobenchError) as caught:
            microbench.run(self.server.url("/"), connect_to=["a:x:b:1"])
        self.assertEqual(caught.exception.name, "plan_bad_connect_to")
        with self.assertRaises(TypeError):
            microbench.run(self.server.url("/"), connect_to=rule)

    def test_unix_socket(self):
        # The reference server on a Unix socket, a run over it, the file gone at stop; bad paths refused.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.sock")
            with microbench.Server(unix_socket=path, threads=2) as server:
                self.assertEqual((server.port, server.url("/factorial/5")), (0, "http://localhost/factorial/5"))
                r = microbench.run(server.url("/factorial/5"), n=30, c=3, unix_socket=pathlib.Path(path), check_factorial=5)
                self.assertEqual((r.completed, r.failed, r.connected_to, r.backlog_waits), (30, 0, f"unix:{path}", 0))
                self.assertEqual(server.requests, 30)
                self.assertIn(f"Note: connected to the Unix socket {path}, not to the URL's host and port.", r.report)
                with self.assertRaises(microbench.MicrobenchError) as caught:
                    microbench.Server(unix_socket=path)  # a live server holds it
                self.assertEqual(caught.exception.name, "run_system")
            self.assertFalse(os.path.exists(path))
            for bad in ("", "a\0b", "x" * 108):
                with self.assertRaises(ValueError):
                    microbench.run("http://localhost/", unix_socket=bad)
                with self.assertRaises(ValueError):
                    microbench.Server(unix_socket=bad)
            with self.assertRaises(microbench.MicrobenchError) as caught:
                microbench.run("http://localhost/", unix_socket=path, bind_address="127.0.0.1")
            self.assertEqual(caught.exception.name, "plan_bad_unix_socket")
            r = microbench.run("http://localhost/", n=3, unix_socket=path)  # nobody listens there now
            self.assertEqual(r.failures["connect"], 3)

    def test_stages(self):
        # A ramp from 100/s, then a hold: each stage's row, their sums the run's; bad stages refused.
        r = microbench.run(self.server.url("/factorial/5"), c=4, rate=100, stages=[(0.3, 500), (0.2, 500)], check_factorial=5)
        self.assertEqual([(s.start_s, s.duration_s, s.from_per_s, s.to_per_s) for s in r.stages],
                         [(0.0, 0.3, 100.0, 500.0), (0.3, 0.2, 500.0, 500.0)])
        self.assertAlmostEqual(r.stages[0].intended, 90.0)
        self.assertEqual(sum(s.sent for s in r.stages), r.ended + r.unfinished)
        self.assertEqual(sum(s.completed for s in r.stages), r.completed)
        self.assertIsNotNone(r.stages[0].p99_ms)
        self.assertEqual([s["sent"] for s in r.json["open_model"]["stages"]], [s.sent for s in r.stages])
        capped = microbench.run(self.server.url("/factorial/5"), n=12, c=2, stages=[(2.0, 300)])
        self.assertEqual(capped.ended + capped.unfinished, 12)  # n caps a staged run
        with self.assertRaises(microbench.MicrobenchError) as caught:
            microbench.run(self.server.url("/"), stages=[(1, -5)])
        self.assertEqual(caught.exception.name, "plan_bad_stages")
        with self.assertRaises(ValueError):
            microbench.run(self.server.url("/"), stages=[(1, 5)], duration=1)

    def test_drain(self):
        # Two requests the server holds 500 ms, a 0.1 s run: without a drain they are cut off
        # (unfinished) when it ends; with 2 s of drain they end.
        cut = microbench.run(self.server.url("/delay/500"), duration=0.1, c=2, drain=0)
        self.assertEqual((cut.ended, cut.unfinished), (0, 2))
        drained = microbench.run(self.server.url("/delay/500"), duration=0.1, c=2, drain=2.0)
        self.assertEqual((drained.completed, drained.unfinished), (2, 0))

    def test_shards_start_time_bind_lists_and_validate(self):
        before = self.server.requests
        r = microbench.run(self.server.url("/factorial/5"), n=101, c=8, shard=(1, 4))  # 101 = 26 + 25 + 25 + 25
        self.assertEqual((r.completed, r.connects), (25, 2))
        self.assertEqual(self.server.requests - before, 25)
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run(self.server.url("/"), n=3, c=1, shard=(0, 4))  # a shard with no connection
        self.assertEqual(e.exception.name, "plan_bad_shard")
        start_at = time.time() + 0.3
        r = microbench.run(self.server.url("/factorial/5"), n=4, c=2, start_at=start_at)
        self.assertEqual(r.json["config"]["start_at_unix_ms"], round(start_at * 1000))
        self.assertGreaterEqual(r.json["start_unix_ms"], round(start_at * 1000) - 1)  # not before its time
        r = microbench.run(self.server.url("/factorial/5"), n=20, c=2, keep_alive=False, bind_address="127.0.0.1,127.0.0.2",
                           socket_buffer=65536, resend_non_idempotent=True)
        self.assertEqual((r.completed, r.connects), (20, 20))
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run(self.server.url("/"), bind_address="127.0.0.1,::1")  # an IPv6 source for an IPv4 server
        self.assertEqual(e.exception.name, "plan_bad_bind_address")
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run(self.server.url("/"), socket_buffer=1 << 30)
        self.assertEqual(e.exception.name, "plan_bad_socket_buffer")
        before = self.server.requests
        self.assertIsNone(microbench.validate(self.server.url("/"), n=10, c=2, rate=100, shard=(0, 2)))
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.validate(self.server.url("/"), n=5, c=10)
        self.assertEqual(e.exception.name, "plan_concurrency_above_requests")
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.validate(self.server.url("/"), headers={"Bad Name": "x"})
        self.assertEqual(e.exception.name, "request_bad_header_name")
        self.assertEqual(self.server.requests, before)  # validating sends nothing

    def test_connect_timeout(self):
        # A listener whose accept queue is full drops the SYNs: connecting hangs until the connect
        # timeout (0.3 s), which ends the request as a connect failure long before the request
        # timeout (60 s) would — by causality it could not end sooner than 0.3 s.
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(0)
            port = listener.getsockname()[1]
            queued = [socket.socket() for _ in range(3)]
            for q in queued:
                q.setblocking(False)
                q.connect_ex(("127.0.0.1", port))
            try:
                r = microbench.run(f"http://127.0.0.1:{port}/", n=1, timeout=60, connect_timeout=0.3)
            finally:
                for q in queued:
                    q.close()
        self.assertEqual((r.failures["connect"], r.failed), (1, 1))
        self.assertGreaterEqual(r.elapsed_s, 0.3)
        self.assertLess(r.elapsed_s, 60)

    def test_comma_locale(self):
        # Issue 19: after locale.setlocale(LC_ALL, "") with LANG=de_DE.UTF-8 the library wrote
        # "1000,500" into its JSON (json.loads failed) and read saved results' decimals wrongly.
        r = microbench.run(self.server.url("/factorial/10"), n=100, c=2, rate=1000.5, interval=0.02)
        page = microbench.report_html([r.json], title="t")
        # locale.Error, a failure, when the locale is not installed (.ci/run generates it).
        locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
        try:
            self.assertEqual(locale.localeconv()["decimal_point"], ",")
            self.assertEqual(microbench.report_html([r.json], title="t"), page)
            again = microbench.run(self.server.url("/factorial/10"), n=100, c=2, rate=1000.5, interval=0.02)
            self.assertEqual(again.json["open_model"]["rate"], 1000.5)
            self.assertEqual(again.json["interval_ms"], 20)
            self.assertAlmostEqual(again.json["intervals"][0]["target_requests"], 1000.5 * 0.02, places=6)
        finally:
            locale.setlocale(locale.LC_ALL, "C")

    def test_server_limits_and_counts(self):
        # A half-sent request is closed at its header timeout and a silent connection at its idle
        # timeout, each counted as /stats counts it; limits out of range refused.
        for bad in ({"header_timeout": -1}, {"idle_timeout": float("nan")}, {"max_connections": -1}):
            with self.subTest(bad), self.assertRaises(ValueError):
                microbench.Server(**bad)
        with microbench.Server(header_timeout=0.2, idle_timeout=0.4) as server:
            with socket.create_connection(("127.0.0.1", server.port)) as half, \
                    socket.create_connection(("127.0.0.1", server.port)):
                half.sendall(b"GET /factorial/5 HTTP/1.1\r\nHost: x")
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline and server.counts["idle_timeouts"] + server.counts["header_timeouts"] < 2:
                    time.sleep(0.01)
                counts = server.counts
                self.assertEqual((counts["header_timeouts"], counts["idle_timeouts"], counts["connections"], counts["open"]),
                                 (1, 1, 2, 0))
                self.assertEqual(half.recv(1), b"")  # closed by the server
        self.assertEqual(set(server.counts.values()), {0})  # stopped

    def test_find_capacity(self):
        # One server thread held 20 ms a request (/work) answers at most 50 a second: the search,
        # from 20/s, finds that knee within 10 %; every step's verdict follows from its figures.
        seen = []
        quick = dict(start_rate=20, warmup=0.3, step=1.0, min_responses=20, cooldown=0.3, max_steps=12)
        with microbench.Server(threads=1) as one:
            capacity = microbench.find_capacity(one.url("/work?us=20000"), 200, c=20, on_step=seen.append, **quick)
        self.assertGreaterEqual(capacity.rate, 45)
        self.assertLessEqual(capacity.rate, 55)
        self.assertFalse(capacity.at_max_rate or capacity.cancelled)
        if capacity.generator_limited:  # only a machine that sent the lowest failed step 20 ms late
            counted = [s for i, s in enumerate(capacity.steps)
                       if not (i + 1 < len(capacity.steps) and capacity.steps[i + 1].retry)]
            low = min((s for s in counted if not s.held), key=lambda s: s.target_rate)
            self.assertEqual(low.connection_waits, 0)
            self.assertGreater(low.lag_p99_ms, 20)
        self.assertEqual(seen, capacity.steps)
        self.assertEqual(capacity.stopped, "")
        for i, s in enumerate(capacity.steps[:-1]):  # a failed step is tried once more at its rate
            if not s.held and not s.retry:
                self.assertEqual((capacity.steps[i + 1].retry, capacity.steps[i + 1].target_rate), (True, s.target_rate))
        self.assertEqual(capacity.steps[0].target_rate, 20)
        climb = [s.target_rate for s in capacity.steps[:next(i for i, s in enumerate(capacity.steps) if not s.held) + 1]]
        self.assertEqual(climb, [20 * 2 ** i for i in range(len(climb))])  # doubling while steps hold
        for s in capacity.steps:
            holds = (s.completed > 0 and s.failed <= 0.01 * (s.completed + s.failed) and s.p99_ms <= 200
                     and s.achieved_rate >= 0.95 * s.target_rate)
            self.assertEqual(s.held, holds, s)
        self.assertEqual(capacity.rate, max(s.target_rate for s in capacity.steps if s.held))
        doc = json.loads(capacity.json)["capacity_search"]
        self.assertEqual(doc["capacity"], round(capacity.rate, 3))
        self.assertEqual([s["target_rate"] for s in doc["steps"]], [round(s.target_rate, 3) for s in capacity.steps])
        self.assertEqual([s["completed"] for s in doc["steps"]], [s.completed for s in capacity.steps])
        self.assertIn(f"Capacity: {capacity.rate:.1f} requests/s held the objective", capacity.table)
        self.assertTrue(capacity.html.startswith("<!DOCTYPE html>"))
        self.assertEqual(capacity.html.count("/s: p99 "), len(capacity.steps))  # a marker per step
        # A raising on_step stops the search after that step and comes out of find_capacity.
        calls = []
        with self.assertRaises(ZeroDivisionError):
            microbench.find_capacity(self.server.url("/"), 100, c=2, on_step=lambda s: calls.append(s) or 1 / 0, **quick)
        self.assertEqual(len(calls), 1)
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.find_capacity(self.server.url("/"), 0)
        self.assertEqual(e.exception.name, "plan_bad_capacity_search")
        for option in (dict(rate=5), dict(interval=1), dict(shard=(0, 2))):
            with self.assertRaises(TypeError):
                microbench.find_capacity(self.server.url("/"), 100, **option)

    def test_version(self):
        self.assertRegex(microbench.version(), r"^\d+\.\d+\.\d+$")


class _Factorial(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "7")
        self.end_headers()
        self.wfile.write(b"3628800")

    def log_message(self, *args):
        pass


class Https(unittest.TestCase):
    """https:// through the binding: the built-in TLS against Python's ssl module serving 10!."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="microbench-py-tls-")
        cls.cert, key = f"{cls.tmp}/cert.pem", f"{cls.tmp}/key.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cls.cert, "-days", "30",
                        "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cls.cert, key)
        cls.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Factorial)
        cls.httpd.socket = context.wrap_socket(cls.httpd.socket, server_side=True)
        cls.thread = threading.Thread(target=cls.httpd.serve_forever, daemon=True)
        cls.thread.start()
        cls.url = f"https://127.0.0.1:{cls.httpd.server_address[1]}/factorial/10"

    @classmethod
    def tearDownClass(cls):
        cls.httpd.shutdown()
        cls.httpd.server_close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_a_verified_run_with_the_factorial_check(self):
        r = microbench.run(self.url, n=20, c=2, check_factorial=10, cacert=self.cert)
        self.assertEqual((r.completed, r.failed), (20, 0))
        self.assertEqual(r.tls_handshakes, 2)  # keep-alive: one per connection
        self.assertEqual(r.tls["protocol"], "TLSv1.3")
        self.assertEqual(r.tls["server_key_bits"], 2048)
        self.assertEqual(r.tls["server_name"], "")  # an IP address is not sent in SNI
        self.assertEqual(r.timings["tls_handshake"].count, 2)
        self.assertEqual(r.json["tls"]["handshakes"], 2)

    def test_version_resumption_and_refusals(self):
        r = microbench.run(self.url, n=4, tls_version="TLS1.2")
        self.assertEqual(r.tls["protocol"], "TLSv1.2")
        r = microbench.run(self.url, n=10, keep_alive=False, tls_resume=True)
        self.assertEqual((r.completed, r.tls_handshakes, r.tls_resumed, r.tls_no_session), (10, 10, 9, 1))
        r = microbench.run(self.url, n=6, c=2, verify=True)  # a certificate no system authority signed
        self.assertEqual((r.failed, r.failures["tls"]), (6, 6))
        self.assertEqual(r.tls_failure_reasons, ["certificate verify failed: self-signed certificate"])
        with self.assertRaises(ValueError):
            microbench.run(self.url, tls_version="SSL3")


if __name__ == "__main__":
    unittest.main(verbosity=1)
