#!/usr/bin/env python3
"""Scale-out from the command line, run by CTest:

    test_scaleout.py MICROBENCH_BINARY MICROBENCH_SERVER_BINARY

Against the reference server on 127.0.0.1 (one per test, so its counts are the test's): three
processes with --shard i/3 and one --start-in start together and, merged, are the whole plan —
counts exactly, the server's count equal, percentiles within the shards'; a shard taken from
Kubernetes' JOB_COMPLETION_INDEX and MICROBENCH_SHARDS; merge's refusals and their messages,
a result merged with itself, missing shards named; -B over a range of loopback addresses seen
by the server's /stats; and examples/kubernetes: the manifest (as run-job.sh renders it) parses
as YAML, is an Indexed Job of N pods, and every pod's arguments pass --check-args; the
Dockerfile's compile line builds the CLI.
"""
import json
import os
import re
import socket
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from hdr_v2 import decode_row_histogram  # noqa: E402

MICROBENCH = SERVER = None
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
K8S = os.path.join(ROOT, "examples", "kubernetes")


def run(args, env=None, timeout=120):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)


class ReferenceServer:
    def __init__(self, host="127.0.0.1"):
        self.proc = subprocess.Popen([SERVER, "-a", host, "-p", "0", "-t", "1", "-d", "300"], stdout=subprocess.PIPE, text=True)
        self.port = int(re.search(r"port (\d+)", self.proc.stdout.readline()).group(1))

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def stats(self):
        with urllib.request.urlopen(self.url("/stats"), timeout=10) as r:
            return json.loads(r.read())

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=10)


class Shards(unittest.TestCase):
    def setUp(self):
        self.server = ReferenceServer()
        self.dir = tempfile.mkdtemp(prefix="mb-scaleout-")

    def tearDown(self):
        self.server.stop()

    def path(self, name):
        return os.path.join(self.dir, name)

    def shard_runs(self, url, flags, count=3):
        procs = [subprocess.Popen([MICROBENCH, "-q", *flags, "--shard", f"{i}/{count}", "--start-in", "1",
                                   "--json", self.path(f"shard-{i}.json"), url], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for i in range(count)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, err)
            self.assertIn(f"Shard {procs.index(p)} of {count} (from 0)", out)
        docs = []
        for i in range(count):
            with open(self.path(f"shard-{i}.json")) as f:
                docs.append(json.load(f))
        return docs

    def test_shards_merged_are_the_whole_plan(self):
        docs = self.shard_runs(self.server.url("/delay?us=200"), ["-n", "3000", "-c", "6", "-k"])
        self.assertEqual([d["config"]["shard"] for d in docs], [{"index": i, "count": 3} for i in range(3)])
        self.assertEqual(sum(d["config"]["requests"] for d in docs), 3000)
        self.assertEqual([d["config"]["concurrency"] for d in docs], [2, 2, 2])
        starts = [d["start_unix_ns"] for d in docs]
        self.assertLess(max(starts) - min(starts), 250_000_000, "the shards start together")  # loose: a loaded CI machine wakes late
        self.assertTrue(all(d["start_unix_ns"] >= d["config"]["start_at_unix_ms"] * 1_000_000 for d in docs))
        r = run([MICROBENCH, "merge", *[self.path(f"shard-{i}.json") for i in range(3)], "--json", self.path("merged.json"),
                 "--html", self.path("merged.html")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Complete requests:      3000\n", r.stdout)
        self.assertIn("Merged 3 results: shards 0, 1, 2 of 3", r.stdout)
        self.assertIn("Histogram values dropped by the merge: 0", r.stdout)
        with open(self.path("merged.json")) as f:
            merged = json.load(f)
        self.assertEqual(merged["requests"]["ended"], 3000)
        self.assertEqual(merged["requests"]["completed"], 3000)
        self.assertEqual(merged["config"]["requests"], 3000)
        self.assertEqual(merged["config"]["concurrency"], 6)
        self.assertNotIn("shard", merged["config"])
        self.assertEqual(merged["merge"], {"inputs": 3, "dropped": 0, "shard_count": 3, "shards": [0, 1, 2]})
        self.assertEqual(merged["latency_ns"]["total"]["count"], 3000)
        self.assertEqual(self.server.stats()["requests"], 3000)
        # The library's merge is checked against every request's own time (test_scaleout.cpp); here:
        # the command line gives the same histogram whatever the order of its inputs.
        r = run([MICROBENCH, "merge", *[self.path(f"shard-{i}.json") for i in (2, 0, 1)], "--json", self.path("merged-201.json")])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("merged-201.json")) as f:
            reordered = json.load(f)
        self.assertEqual(reordered["latency_ns"], merged["latency_ns"])
        self.assertEqual(reordered["requests"], merged["requests"])
        self.assertEqual(merged["latency_ns"]["total"]["min"], min(d["latency_ns"]["total"]["min"] for d in docs))
        self.assertEqual(merged["latency_ns"]["total"]["max"], max(d["latency_ns"]["total"]["max"] for d in docs))
        with open(self.path("merged.html")) as f:
            page = f.read()
        self.assertIn("<b>merged</b>", page)
        self.assertIn(">each generator</h2>", page)

        # Two of three: the figures are those of the shards present, and merge says which are missing.
        r = run([MICROBENCH, "merge", self.path("shard-0.json"), self.path("shard-2.json")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("shards 0, 2 of 3 (missing 1", r.stdout)
        # A shard twice is refused.
        r = run([MICROBENCH, "merge", self.path("shard-0.json"), self.path("shard-0.json")])
        self.assertEqual(r.returncode, 1)
        self.assertIn("shard 0 of 3 appears twice", r.stderr)

    def test_a_fixed_rate_divides_and_the_merged_rate_is_the_whole(self):
        docs = self.shard_runs(self.server.url("/factorial/10"), ["-c", "6", "-k", "--rate", "1500", "--duration", "2s"])
        self.assertEqual([d["open_model"]["rate"] for d in docs], [500.0, 500.0, 500.0])
        r = run([MICROBENCH, "merge", *[self.path(f"shard-{i}.json") for i in range(3)], "--json", "-"])
        self.assertEqual(r.returncode, 0, r.stderr)
        merged = json.loads(r.stdout)
        self.assertEqual(merged["open_model"]["rate"], 1500.0)
        # What the three schedules decided, whatever the machine's speed: 1500/s for 2 s, each sent
        # (ended or unfinished) or counted missed.
        sent = merged["requests"]["ended"] + merged["requests"]["unfinished"]
        self.assertEqual(sent + merged["open_model"]["schedule_missed"], 3000)
        self.assertEqual(sum(row["ended"] for row in merged["intervals"]), merged["requests"]["ended"])

    def test_interval_histograms_merge_exactly_and_as_hdrhistogram_log(self):
        # Shards that kept their intervals' histograms: merged rows carry the merged histograms
        # (test_scaleout.cpp checks their percentiles are exact), and microbench-hlog
        # --from writes them as a log, each row's counts (read with Python's zlib) the merged row's.
        docs = self.shard_runs(self.server.url("/factorial/10"), ["-c", "6", "-k", "--rate", "1200", "--duration", "1500ms",
                                                                   "--interval", "250ms", "--interval-histograms"])
        for doc in docs:
            self.assertTrue(all("histograms" in row for row in doc["intervals"]))
        r = run([MICROBENCH, "merge", *[self.path(f"shard-{i}.json") for i in range(3)], "--json", self.path("merged.json")])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("merged.json")) as f:
            merged = json.load(f)
        hlog_tool = os.path.join(os.path.dirname(os.path.abspath(MICROBENCH)), "microbench-hlog")
        r = run([hlog_tool, "--from", self.path("merged.json")])
        self.assertEqual(r.returncode, 0, r.stderr)
        log_text = r.stdout
        rows = merged["intervals"]
        self.assertTrue(all(set(row["histograms"]) == {"response", "service", "schedule_lag"} for row in rows))
        lines = [line.split(",") for line in log_text.splitlines() if line.startswith("Tag=")]
        self.assertEqual(len(lines), 3 * len(rows))
        for k, row in enumerate(rows):
            self.assertEqual(lines[3 * k][0], "Tag=response")
            self.assertEqual(sum(decode_row_histogram(lines[3 * k][4])[1].values()), row["completed"])
        self.assertEqual(sum(row["completed"] for row in rows), merged["requests"]["completed"])
        # Without kept histograms, refused with the flag to use.
        r = run([MICROBENCH, "-q", "-n", "20", "--json", self.path("plain.json"), self.server.url("/")])
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run([hlog_tool, "--from", self.path("plain.json")])
        self.assertEqual(r.returncode, 1)
        self.assertIn("plain.json kept no interval histograms: run it with --interval-histograms", r.stderr)

    def test_the_shard_from_a_kubernetes_indexed_job(self):
        env = dict(os.environ, JOB_COMPLETION_INDEX="1", MICROBENCH_SHARDS="3")
        r = run([MICROBENCH, "-q", "-n", "300", "-c", "3", "--json", "-", self.server.url("/factorial/10")], env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["config"]["shard"], {"index": 1, "count": 3})
        self.assertEqual(doc["requests"]["completed"], 100)
        env["JOB_COMPLETION_INDEX"] = "3"
        r = run([MICROBENCH, "-n", "300", "-c", "3", self.server.url("/factorial/10")], env=env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("JOB_COMPLETION_INDEX=3 and MICROBENCH_SHARDS=3 do not make a shard I/N", r.stderr)

    def test_merge_refuses_and_merges_a_result_with_itself(self):
        one, other = self.path("one.json"), self.path("other.json")
        for path, url in ((one, self.server.url("/factorial/10")), (other, self.server.url("/factorial/11"))):
            r = run([MICROBENCH, "-q", "-n", "200", "-c", "2", "--json", path, url])
            self.assertEqual(r.returncode, 0, r.stderr)
        r = run([MICROBENCH, "merge", one, one, "--json", "-"])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(one) as f:
            single = json.load(f)
        doubled = json.loads(r.stdout)
        self.assertEqual(doubled["requests"]["ended"], 400)
        self.assertEqual(doubled["bytes"]["received"], 2 * single["bytes"]["received"])
        self.assertEqual(doubled["latency_ns"]["total"]["percentiles"], single["latency_ns"]["total"]["percentiles"])
        r = run([MICROBENCH, "merge", one])  # one result is one, not "1 results"
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"Merged 1 result\b(?!s)")
        page = self.path("one.html")
        r = run([MICROBENCH, "report", one, "--html", page])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"Wrote {page}: 1 run from 1 file.\n", r.stderr)
        r = run([MICROBENCH, "merge", one, other])
        self.assertEqual(r.returncode, 1)
        self.assertIn("come from different targets or plans", r.stderr)
        self.assertIn(f"URL: {self.server.url('/factorial/10')} in {one}, {self.server.url('/factorial/11')} in {other}", r.stderr)
        compare = self.path("compare.json")
        r = run([MICROBENCH, "-q", "-n", "50", "--rounds", "1", "--compare", self.server.url("/factorial/1"),
                 self.server.url("/factorial/2"), "--json", compare])
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run([MICROBENCH, "merge", one, compare])
        self.assertEqual(r.returncode, 1)
        self.assertIn("nothing to merge", r.stderr)
        r = run([MICROBENCH, "merge"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("no results or logs given", r.stderr)

    def test_flags_of_the_scale_out(self):
        url = self.server.url("/factorial/10")
        for args, message in ((["--shard", "3/3"], "--shard needs I/N"), (["--shard", "x"], "--shard needs I/N"),
                              (["-c", "2", "--shard", "0/3"], "each of 3 shards needs a connection"),
                              (["--start-at", "-5"], "--start-at needs a Unix time"),
                              (["--start-in", "9999999"], "--start-in must be from 0 to 604800 seconds"),
                              (["-c", "2", "--rate", "0.001", "--shard", "0/2"], "below the smallest rate (0.001)"),
                              (["--start-in", "1", "--start-at", "1"], "--start-in and --start-at set the same thing: give one"),
                              (["--suite", "--shard", "0/2"], "are for a single run")):
            r = run([MICROBENCH, "-n", "10", *args, url])
            self.assertEqual(r.returncode, 1, args)
            self.assertIn(message, r.stderr, args)
        r = run([MICROBENCH, "-n", "10", "-c", "4", "--shard", "1/2", "--check-args", url])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("the arguments are valid", r.stdout)
        self.assertIn("-n 5, -c 2", r.stdout)
        self.assertEqual(self.server.stats()["requests"], 0, "--check-args sends nothing")


class SourceAddresses(unittest.TestCase):
    def test_connections_spread_over_a_range(self):
        server = ReferenceServer("0.0.0.0")
        try:
            r = run([MICROBENCH, "-q", "-n", "600", "-c", "6", "-W", "2", "-k", "-B", "127.0.0.2-127.0.0.4",
                     server.url("/factorial/10")])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("Complete requests:      600\n", r.stdout)
            sources = server.stats()["sources"]
            self.assertEqual(sources.pop("127.0.0.1"), 1)  # this test's own /stats request
            self.assertEqual(sources, {"127.0.0.2": 2, "127.0.0.3": 2, "127.0.0.4": 2})
        finally:
            server.stop()

    def test_check_args_refuses_what_a_run_would_naming_the_address(self):
        url = "http://127.0.0.1:9/"  # nothing is sent: each is refused before a connection
        for text, item, why in (("foo", "foo", "is not a numeric IPv4 or IPv6 address"),
                                ("10.99.99.99", "10.99.99.99", "is not an address of this machine"),
                                ("127.0.0.2,10.99.99.99", "10.99.99.99", "is not an address of this machine"),
                                ("127.0.0.5-127.0.0.2", "127.0.0.5-127.0.0.2", "is a range whose last address comes before its first"),
                                ("::1", "::1", "is not of the target's address family (IPv4 or IPv6)"),
                                ("127.0.0.2,", "", "is empty")):
            for check_args in ([], ["--check-args"]):
                with self.subTest(text=text, check_args=check_args):
                    r = run([MICROBENCH, "-q", "-n", "1", *check_args, "-B", text, url])
                    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                    self.assertIn(f"microbench: -B '{text}': '{item}' {why}\n", r.stderr)
                    self.assertEqual(r.stdout, "")
        r = run([MICROBENCH, "--check-args", "-B", "", url])
        self.assertEqual(r.returncode, 1)
        self.assertIn("microbench: -B needs an address, a list or a range\n", r.stderr)
        r = run([MICROBENCH, "--check-args", "-B", "127.0.0.2-127.0.0.4", url])
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_a_host_name_target_of_the_other_family_is_refused_naming_the_address(self):
        # The family of "localhost" is known once resolved (here to 127.0.0.1): the run refuses
        # the IPv6 source, naming it. --check-args resolves no name (it asks no one outside the
        # process), so it cannot know the family and lets the source pass.
        if socket.getaddrinfo("localhost", 80, type=socket.SOCK_STREAM)[0][0] != socket.AF_INET:
            self.skipTest("localhost resolves to IPv6 first here")
        server = ReferenceServer("127.0.0.1")
        try:
            url = server.url("/").replace("127.0.0.1", "localhost")
            r = run([MICROBENCH, "-q", "-n", "1", "-B", "::1", url])
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("microbench: -B '::1': '::1' is not of the target's address family (IPv4 or IPv6)\n", r.stderr)
            r = run([MICROBENCH, "-q", "-n", "1", "--check-args", "-B", "::1", url])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("the arguments are valid", r.stdout)
            self.assertEqual(server.stats()["requests"], 0, "neither sent a request")
            r = run([MICROBENCH, "--check-args", "--compare", "-B", "127.0.0.2", url, "http://[::1]:9/"])
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)  # the second target's family counts too
            self.assertIn("'127.0.0.2' is not of the target's address family", r.stderr)
        finally:
            server.stop()


class Kubernetes(unittest.TestCase):
    def test_the_manifest_is_an_indexed_job_whose_pods_pass_check_args(self):
        url = "http://127.0.0.1:8080/factorial/10"
        r = run(["sh", os.path.join(K8S, "run-job.sh"), "--render", url, "5", "60"])
        self.assertEqual(r.returncode, 0, r.stderr)
        job = yaml.safe_load(r.stdout)
        self.assertEqual((job["apiVersion"], job["kind"]), ("batch/v1", "Job"))
        spec = job["spec"]
        self.assertEqual(spec["completionMode"], "Indexed")
        self.assertEqual((spec["completions"], spec["parallelism"]), (5, 5))
        container = spec["template"]["spec"]["containers"][0]
        env = {e["name"]: e["value"] for e in container["env"]}
        self.assertEqual(env["MICROBENCH_SHARDS"], "5")
        args = container["args"]
        self.assertIn(url, args)
        start_at = int(args[args.index("--start-at") + 1])
        self.assertAlmostEqual(start_at, time.time() + 60, delta=30)
        self.assertEqual(args[args.index("--json") + 1], "-")
        for index in range(5):
            pod_env = dict(os.environ, JOB_COMPLETION_INDEX=str(index), **env)
            r = run([MICROBENCH, *args, "--check-args"], env=pod_env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"shard {index} of 5", r.stdout)
        with open(os.path.join(K8S, "job.yaml")) as f:
            self.assertEqual(yaml.safe_load(f)["spec"]["completions"], 4)  # the file as committed parses too

    def test_the_dockerfile_compile_line_builds_the_cli(self):
        with open(os.path.join(K8S, "Dockerfile")) as f:
            text = f.read().replace("\\\n", " ")
        line = next(l for l in text.splitlines() if l.startswith("RUN g++"))
        cmd = shlex.split(line[len("RUN "):].split("&&")[0].replace("/src/", ROOT + "/"))
        out = os.path.join(tempfile.mkdtemp(prefix="mb-docker-"), "microbench")
        cmd[cmd.index("-o") + 1] = out
        r = run(cmd, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run([out, "-V"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("microbench", r.stdout)


if __name__ == "__main__":
    MICROBENCH, SERVER = sys.argv[1], sys.argv[2]
    result = unittest.main(argv=[sys.argv[0], "-v"], exit=False).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed or result.testsRun == 0 else 0)
