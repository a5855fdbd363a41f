#!/usr/bin/env python3
"""The Python binding (examples/python/microbench.py) against libmicrobench, run by CTest with
MICROBENCH_LIBRARY set: a load test with exact counts against the reference server, the
factorial check catching a wrong body, cancel from another thread, the JSON read by the json
module, errors as exceptions with their status name, the suite and the self-test, the HTML report,
and all of it alike in a comma locale."""
import json
import locale
import pathlib
import sys
import threading
import time
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"))
import microbench  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from http_fixture import scripted_http  # noqa: E402


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

    def test_factorial_check_catches_a_wrong_body(self):
        with scripted_http(lambda _: (200, b'{"factorial": 3628801}')) as base:  # 10! + 1
            r = microbench.run(f"{base}/factorial/10", n=20, c=2, check_factorial=10)
        self.assertEqual(r.failures["check"], 20)
        self.assertEqual(r.completed, 0)
        self.assertEqual(r.goodput_per_second, 0.0)

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

    def test_progress_on_the_calling_thread(self):
        calls = []
        microbench.run(self.server.url("/delay/5"), n=200, c=2, on_progress=lambda e, t, s: calls.append((e, threading.get_ident())))
        self.assertGreaterEqual(len(calls), 2)
        self.assertEqual({ident for _, ident in calls}, {threading.get_ident()})

    def test_errors_carry_the_status_name(self):
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run("https://127.0.0.1/")
        self.assertEqual(e.exception.name, "url_tls_unsupported")
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run(self.server.url("/"), n=5, c=10)
        self.assertEqual(e.exception.name, "plan_concurrency_above_requests")
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run(self.server.url("/"), c=0)
        self.assertEqual(e.exception.name, "invalid_argument")

    def test_refused_port_counts_connect_failures(self):
        with microbench.Server() as gone:
            url = gone.url("/")
        r = microbench.run(url, n=10, c=2)
        self.assertEqual(r.failures["connect"], 10)

    def test_suite_and_self_test(self):
        results = microbench.suite(self.server.url("/factorial/10"), scale=0.02, factorial_check=True)
        self.assertEqual([name for name, _ in results], ["basic load", "latency", "failure rate", "keep-alive", "stress"])
        self.assertTrue(all(r.failed == 0 and r.completed >= 20 for _, r in results))
        passed, results = microbench.self_test(scale=0.01)
        self.assertTrue(passed)
        self.assertEqual(len(results), 10)

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
        r = microbench.run(self.server.url("/factorial/10"), n=200, c=4, rate=1000)
        self.assertEqual(r.completed, 200)
        self.assertEqual(r.timings["response"].count, 200)
        self.assertGreaterEqual(r.timings["response"].min_ms, r.timings["total"].min_ms)
        self.assertEqual(r.json["open_model"]["rate"], 1000)

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
        self.assertAlmostEqual(r.intervals[0].target, 125.0)
        self.assertEqual(microbench.run(self.server.url("/"), n=10).intervals, [])
        with self.assertRaises(ValueError):
            microbench.run(self.server.url("/"), n=10, rate=10, arrivals="bursty")
        with self.assertRaises(microbench.MicrobenchError) as e:
            microbench.run(self.server.url("/"), n=10, interval=0.001)
        self.assertEqual(e.exception.name, "invalid_argument")

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
            self.assertAlmostEqual(again.json["intervals"][0]["target"], 1000.5 * 0.02, places=6)
        finally:
            locale.setlocale(locale.LC_ALL, "C")

    def test_version(self):
        self.assertRegex(microbench.version(), r"^\d+\.\d+\.\d+$")


if __name__ == "__main__":
    unittest.main(verbosity=1)
