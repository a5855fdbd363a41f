#!/usr/bin/env python3
"""The real peers of the classic comparison, run by CTest: the ASP.NET Core minimal API under
Kestrel and FastAPI under uvicorn, each on a free loopback port, bounded in time, stopped by PID.

    test_peers.py MICROBENCH_BINARY BUILD_DIR

Asserts that --check factorial passes every Kestrel answer for n=10 and fails every one for n=21
and n=25 (long overflows; exit 3); that FastAPI's answers pass up to its recursion limit and are
500s (non-2xx) past it; that the five-scenario suite runs against both with exact counts, over
http and over https (Kestrel with a PEM certificate, uvicorn with --ssl-certfile); and that
tools/compare-stacks runs, over both, and shows the wrong answers at a glance; and that one run over
n = 0..30 (Kestrel) or 0..1000 (FastAPI) says where the answers turn wrong.
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import peers  # noqa: E402

MICROBENCH = BUILD = None


def microbench(*args, timeout=300):
    return subprocess.run([MICROBENCH, *args], capture_output=True, text=True, timeout=timeout)


def failed_line(stdout):
    m = re.search(r"^Failed requests:\s+(\d+)$", stdout, re.M)
    return int(m.group(1)) if m else None


class Peers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        dll = peers.build_aspnet(pathlib.Path(BUILD) / "aspnet")
        cls.aspnet = peers.start_aspnet(dll)
        cls.fastapi = peers.start_fastapi()

    @classmethod
    def tearDownClass(cls):
        cls.aspnet.stop()
        cls.fastapi.stop()

    def test_kestrel_is_right_up_to_20_and_wrong_past_it(self):
        r = microbench("-q", "-n", "500", "-c", "10", "-k", "--check", "factorial", self.aspnet.url(10))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(failed_line(r.stdout), 0)
        for n in (21, 25):
            r = microbench("-q", "-n", "200", "-c", "10", "-k", "--check", "factorial", self.aspnet.url(n))
            self.assertEqual(r.returncode, 3, r.stdout)
            self.assertIn("Failed requests:        200\n   (Connect: 0, Receive: 0, Length: 0, Exceptions: 200)\n"
                          "Failure reasons:        check 200\n", r.stdout)

    def test_fastapi_is_right_up_to_its_recursion_limit_and_500_past_it(self):
        for n in (10, 21, 100, 900):
            r = microbench("-q", "-n", "100", "-c", "10", "-k", "--check", "factorial", self.fastapi.url(n))
            self.assertEqual(r.returncode, 0, f"n={n}: {r.stdout}")
            self.assertEqual(failed_line(r.stdout), 0)
        r = microbench("-q", "-n", "50", "-c", "5", "-k", self.fastapi.url(1000))
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("Non-2xx responses:      50\n", r.stdout)

    def test_one_command_finds_where_kestrel_turns_wrong(self):
        """The article's question over n = 0..30 in one run: each URL's answer checked against its own n!."""
        r = microbench("-q", "-n", "310", "-c", "10", "-k", "--check", "factorial", "--by-target",
                       self.aspnet.url("{0..30}"))
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("\nChecks:                right for n = 0..20; wrong from n = 21 "
                      "(status 200, answer -4249290049419214848)\n", r.stdout)
        self.assertIn("Failure reasons:        check 100\n", r.stdout)  # n = 21..30, ten requests each
        self.assertIn("By target, the worst first (31 of 31):", r.stdout)

    def test_one_command_finds_where_fastapi_starts_failing(self):
        r = microbench("-q", "-n", "1001", "-c", "10", "-k", "--check", "factorial", self.fastapi.url("{0..1000}"))
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        m = re.search(r"^Checks:\s+right for n = 0\.\.(\d+); wrong from n = (\d+) \(status 500, answer (.*)\)$",
                      r.stdout, re.M)
        self.assertIsNotNone(m, r.stdout)
        right_to, wrong_from = int(m.group(1)), int(m.group(2))
        self.assertEqual(wrong_from, right_to + 1)
        self.assertGreater(right_to, 900)  # Python's recursion limit, 1,000 frames, less uvicorn's own
        self.assertIn("Internal Server Error", m.group(3))
        self.assertIn(f"Failure reasons:        check {1000 - right_to}\n", r.stdout)

    def assert_suite_exact(self, *args):
        """Runs the suite against the two URLs in `args` (and flags): every scenario completes every
        request it planned, none failed; the results."""
        r = microbench("--suite", *args, "--scale", "0.01", "--check", "factorial", "--json", "-", timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr)
        results = json.loads(r.stdout)
        self.assertEqual(len(results), 10)
        for item in results:
            res, planned = item["result"], item["result"]["config"]["requests"]
            self.assertEqual(res["requests"]["completed"], planned, item["scenario"])
            self.assertEqual(res["requests"]["failed"], 0, item["scenario"])
        return results

    def test_suite_against_both_with_exact_counts(self):
        self.assert_suite_exact(self.aspnet.url(10), self.fastapi.url(10))

    def test_compare_stacks_shows_the_wrong_answers(self):
        for https in ([], ["--https"]):
            with self.subTest(https=https):
                r = subprocess.run([sys.executable, str(ROOT / "tools" / "compare-stacks"), "--scale", "0.01", "--rounds", "1",
                                    "--microbench", MICROBENCH, "--check-requests", "20", "--ns", "10,21,1000"] + https,
                                   capture_output=True, text=True, timeout=900)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("https://" if https else "http://", r.stdout.splitlines()[0])
                self.assertEqual(len(re.findall(r"^\| (basic load|latency|failure rate|keep-alive|stress) ", r.stdout, re.M)), 10)
                self.assertRegex(r.stdout, r"\| 21 \| wrong \(-4249290049419214848\) \| 0 / 20 / 0 \| 0 \| correct \| 20 / 0 / 0 \|")
                self.assertRegex(r.stdout, r"\| 1000 \| wrong \(0\) \| 0 / 20 / 0 \| 0 \| error \(HTTP 500\) \| 0 / 0 / 20 \| 0 \|")

    def test_suite_over_https_against_kestrel_and_uvicorn(self):
        with tempfile.TemporaryDirectory() as folder:
            tls = peers.make_certificate(folder)
            with peers.start_aspnet(pathlib.Path(BUILD) / "aspnet" / "bin" / "FactorialApi" / "release" / "factorial-api.dll",
                                    tls=tls) as a, peers.start_fastapi(tls=tls) as b:
                for item in self.assert_suite_exact(a.url(10), b.url(10), "--cacert", tls[0]):
                    self.assertTrue(item["result"]["config"]["url"].startswith("https://"))
                    self.assertGreater(item["result"]["tls"]["handshakes"], 0, item["scenario"])
                r = microbench("-q", "-n", "100", "-c", "10", "-k", "--cacert", tls[0], "--check", "factorial", a.url(21))
                self.assertEqual(r.returncode, 3, r.stdout)  # Kestrel's long overflow, over TLS as over TCP
                self.assertIn("Failure reasons:        check 100\n", r.stdout)


if __name__ == "__main__":
    MICROBENCH, BUILD = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=1)
