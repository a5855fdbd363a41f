#!/usr/bin/env python3
"""Tests of the `microbench` command line, run by CTest:

    test_cli.py MICROBENCH_BINARY MICROBENCH_SERVER_BINARY

Starts the reference server (and, for one test, Python's http.server) on 127.0.0.1, runs real
ApacheBench and microbench side by side, and checks: every line of ab's report has its
counterpart in microbench's, in order and in the same number format; the strict patterns real
scripts use to read ab's report give the same keys on both; usage errors, exit codes, the -e
CSV, the --json document, the keep-alive note and the partial report after SIGINT.
"""
import base64
import csv
import http.server
import json
import math
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import sys
import threading
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from http_fixture import scripted_http  # noqa: E402
from hdr_v2 import decode_row_histogram, deep_log  # noqa: E402

MICROBENCH = SERVER = HLOG = None  # HLOG: microbench-hlog, beside MICROBENCH
AB_HEADER = ("This is ApacheBench", "Copyright", "Licensed to", "Benchmarking", "Completed ", "Finished ")


def run(args, timeout=60):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def skeleton(line):
    """A line with its numbers replaced by their format (12 → <int>, 3.25 → <dec2>) and runs of
    spaces made one: column widths follow the values (ab pads with printf widths too)."""
    line = re.sub(r"\d+\.(\d+)|\d+", lambda m: f"<dec{len(m.group(1))}>" if m.group(1) else "<int>", line.rstrip())
    return re.sub(r" +", " ", line)


def report_lines(stdout):
    """The report proper: lines after the banner, without the advisory WARNING and ERROR
    paragraphs (the ones under the timing table follow each run's own spread, so two runs may
    differ; test_reports.cpp checks microbench prints them by ab's rule)."""
    lines, skip = [], False
    for line in stdout.splitlines():
        if line.startswith(AB_HEADER) or line.startswith("This is microbench"):
            continue
        if line.startswith(("WARNING:", "ERROR:")):
            skip = True
            continue
        if skip and line.startswith(" "):
            continue
        skip = False
        if line.strip():
            lines.append(line)
    return lines


def strict_parse(stdout):
    """What real scripts pull out of an ab report with strict patterns."""
    out = {}
    for name, pattern in [("complete", r"^Complete requests:\s+(\d+)$"),
                          ("taken", r"^Time taken for tests:\s+(\d+\.\d+) seconds$"),
                          ("failed", r"^Failed requests:\s+(\d+)$"),
                          ("rps", r"^Requests per second:\s+([\d.]+) \[#/sec\] \(mean\)$"),
                          ("total", r"^Total:\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(\d+)$")]:
        m = re.search(pattern, stdout, re.M)
        out[name] = m.groups() if m else None
    out["percentiles"] = dict(re.findall(r"^\s*(\d+)%\s+([0-9.]+)", stdout, re.M))
    return out


def exact_values(stdout):
    """The report lines whose values do not depend on timing, as ab prints them."""
    keys = ("Document Length:", "Complete requests:", "Failed requests:", "   (Connect:", "Non-2xx responses:",
            "Keep-Alive requests:", "Total transferred:", "HTML transferred:")
    return {line.split(":")[0].strip(): re.sub(r" +", " ", line.split(":", 1)[1].strip())
            for line in stdout.splitlines() if line.startswith(keys)}


class Servers:
    port = None
    proc = None

    @classmethod
    def start(cls):
        cls.proc = subprocess.Popen([SERVER, "-p", "0", "-t", "1", "-d", "600"], stdout=subprocess.PIPE, text=True)
        line = cls.proc.stdout.readline()
        cls.proc.stdout.close()  # the server's last line (its counts) is not needed
        cls.port = int(re.search(r"port (\d+)", line).group(1))

    @classmethod
    def stop(cls):
        cls.proc.send_signal(signal.SIGTERM)
        cls.proc.wait(timeout=10)

    @classmethod
    def url(cls, path="/factorial/10"):
        return f"http://127.0.0.1:{cls.port}{path}"


class AbCompatibility(unittest.TestCase):
    def compare(self, flags, path="/factorial/10"):
        ab = run(["ab"] + flags + [Servers.url(path)])
        mb = run([MICROBENCH] + flags + [Servers.url(path)])
        self.assertEqual(ab.returncode, 0, ab.stderr)
        self.assertEqual(mb.returncode, 0, mb.stderr)
        ab_lines = [skeleton(l) for l in report_lines(ab.stdout)]
        mb_lines = [skeleton(l) for l in report_lines(mb.stdout)]
        self.assertGreater(len(ab_lines), 15)
        at = 0
        for line in ab_lines:  # ab's lines, in order, each found in microbench's
            while at < len(mb_lines) and mb_lines[at] != line:
                at += 1
            self.assertLess(at, len(mb_lines), f"ab line {line!r} has no counterpart in order in:\n{mb.stdout}")
            at += 1
        a, m = strict_parse(ab.stdout), strict_parse(mb.stdout)
        for key in ("complete", "taken", "failed", "rps", "total"):
            self.assertEqual(a[key] is None, m[key] is None, f"{key}: ab {a[key]} microbench {m[key]}")
        self.assertEqual(sorted(a["percentiles"]), sorted(m["percentiles"]))
        self.assertEqual(a["complete"], m["complete"])
        # Where the figures are deterministic, they are ab's own, not just in ab's format.
        av, mv = exact_values(ab.stdout), exact_values(mb.stdout)
        self.assertGreaterEqual(len(av), 5, ab.stdout)
        if "-k" in flags:  # ab speaks HTTP/1.0: the server adds "Connection: keep-alive\r\n" to each response
            total = int(av["Total transferred"].split()[0]) - len("Connection: keep-alive\r\n") * int(a["complete"][0])
            av["Total transferred"] = f"{total} bytes"
        self.assertEqual(av, mv, f"ab:\n{ab.stdout}\nmicrobench:\n{mb.stdout}")
        return ab, mb

    def test_keep_alive(self):
        ab, mb = self.compare(["-n", "300", "-c", "5", "-k"])
        self.assertIn("Keep-Alive requests:    300\n", mb.stdout)

    def test_new_connection_per_request(self):
        self.compare(["-n", "200", "-c", "4"])

    def test_short_table(self):
        self.compare(["-n", "100", "-c", "2", "-S"])

    def test_no_percentile_table(self):
        ab, mb = self.compare(["-n", "100", "-c", "2", "-d"])
        self.assertNotIn("Percentage of the requests", mb.stdout)

    def test_non_2xx(self):
        ab, mb = self.compare(["-n", "50", "-c", "2", "-k"], "/status/404")
        self.assertIn("Non-2xx responses:      50\n", mb.stdout)

    def test_window_size(self):
        self.compare(["-n", "100", "-c", "2", "-b", "8192"])

    def test_variable_length(self):
        ab, mb = self.compare(["-n", "50", "-c", "2", "-l"])
        self.assertIn("Document Length:        Variable\n", mb.stdout)

    def test_progress_on_stderr(self):
        mb = run([MICROBENCH, "-n", "1000", "-c", "4", "-k", Servers.url()])
        self.assertEqual([f"Completed {i * 100} requests" for i in range(1, 11)] + ["Finished 1000 requests"],
                         mb.stderr.splitlines())
        quiet = run([MICROBENCH, "-q", "-n", "1000", "-c", "4", "-k", Servers.url()])
        self.assertEqual(quiet.stderr, "")

    def test_default_report_has_no_stray_percentile_lines(self):
        mb = run([MICROBENCH, "-n", "200", "-c", "4", "-k", "--latency", Servers.url()])
        found = re.findall(r"^\s*(\d+)%\s+([0-9.]+)", mb.stdout, re.M)
        self.assertEqual([k for k, _ in found], ["50", "66", "75", "80", "90", "95", "98", "99", "100"])
        self.assertIn("p99.9", mb.stdout)


class Outputs(unittest.TestCase):
    def test_csv(self):
        path = f"/tmp/microbench-cli-{os.getpid()}.csv"
        mb = run([MICROBENCH, "-q", "-n", "300", "-c", "3", "-k", "-e", path, Servers.url()])
        self.assertEqual(mb.returncode, 0, mb.stderr)
        with open(path) as f:
            rows = f.read().splitlines()
        os.unlink(path)
        self.assertEqual(rows[0], "Percentage served,Time in ms")
        self.assertEqual(len(rows), 102)
        values = []
        for i, row in enumerate(rows[1:]):
            self.assertRegex(row, rf"^{i},\d+\.\d{{3}}$")
            values.append(float(row.split(",")[1]))
        self.assertEqual(values, sorted(values))

    def test_gnuplot(self):
        path = f"/tmp/microbench-cli-{os.getpid()}.tsv"
        mb = run([MICROBENCH, "-q", "-n", "250", "-c", "5", "-k", "-g", path, Servers.url()])
        self.assertEqual(mb.returncode, 0, mb.stderr)
        with open(path) as f:
            rows = f.read().splitlines()
        os.unlink(path)
        self.assertEqual(rows[0], "starttime\tseconds\tctime\tdtime\tttime\twait")
        self.assertEqual(len(rows), 251)  # one per request
        seconds = []
        for row in rows[1:]:
            self.assertRegex(row, r"^\w{3} \w{3} \d{2} \d{2}:\d{2}:\d{2} \d{4}\t\d+\t\d+\t\d+\t\d+\t\d+$")
            seconds.append(int(row.split("\t")[1]))
        self.assertEqual(seconds, sorted(seconds))
        self.assertLess(abs(seconds[0] - time.time()), 60)

    def test_hgrm(self):
        # HdrHistogram's .hgrm text, read as its plotter reads it: the header, rows of four numbers,
        # '#' footer lines. The spectrum is the JSON's histogram: the same count, and the row at
        # each percentile the same bucket as the JSON's value (shown in ms to 3 decimals).
        def spectrum(text):
            lines = text.splitlines()
            self.assertEqual(lines[0].split(), ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"])
            self.assertEqual(lines[1], "")
            rows = [line.split() for line in lines[2:] if not line.startswith("#")]
            footer = [line for line in lines if line.startswith("#[")]
            self.assertEqual(len(footer), 3)
            for r in rows[:-1]:
                # from the percentile before it was rounded to 6 decimals
                self.assertAlmostEqual(float(r[3]), 1 / (1 - float(r[1])), delta=0.01 + float(r[3]) * 1e-3)
            self.assertEqual(rows[-1][1:], ["1.000000", rows[-1][2], "inf"])
            counts = [int(r[2]) for r in rows]
            self.assertEqual(counts, sorted(counts))
            return {float(r[1]): (float(r[0]), int(r[2])) for r in reversed(rows)}, footer  # the first row of each level

        def agrees(rows, histogram, count):
            self.assertEqual(rows[1.0][1], count)
            for p in ("50", "90", "95", "97.5"):  # levels the spectrum has a row at (it has none at 99 %)
                ms, _ = rows[float(p) / 100]
                ns = histogram["percentiles"][p]
                # The same bucket: its top, or the exact maximum when that is in it; then rounding to 3 decimals.
                self.assertLessEqual(abs(ms * 1e6 - ns), 500 + ns * 0.001, p)

        with tempfile.TemporaryDirectory() as d:
            mb = run([MICROBENCH, "-q", "-n", "300", "-c", "4", "-k", "--percentiles", "50,90,95,97.5", "--json", f"{d}/r.json",
                      "--hgrm", f"{d}/r.hgrm", Servers.url()])
            self.assertEqual(mb.returncode, 0, mb.stderr)
            doc = json.load(open(f"{d}/r.json"))
            rows, footer = spectrum(open(f"{d}/r.hgrm").read())
            agrees(rows, doc["latency_ns"]["total"], 300)
            self.assertRegex(footer[1], r"^#\[Max     = +[\d.]+, Total count    = +300\]$")
            self.assertFalse(os.path.exists(f"{d}/r.service.hgrm"))  # a closed loop: total time only
            # At a fixed rate: the response time in the file, the service time beside it.
            mb = run([MICROBENCH, "-q", "-n", "200", "-c", "4", "-k", "--rate", "400", "--percentiles", "50,90,95,97.5", "--json",
                      f"{d}/f.json", "--hgrm", f"{d}/f.hgrm", Servers.url()])
            self.assertEqual(mb.returncode, 0, mb.stderr)
            doc = json.load(open(f"{d}/f.json"))
            agrees(spectrum(open(f"{d}/f.hgrm").read())[0], doc["open_model"]["response_ns"], 200)
            agrees(spectrum(open(f"{d}/f.service.hgrm").read())[0], doc["latency_ns"]["total"], 200)
        # On stdout, both after wrk2's titles, and nothing else.
        mb = run([MICROBENCH, "-q", "-n", "100", "-c", "2", "-k", "--rate", "400", "--hgrm", "-", Servers.url()])
        self.assertEqual(mb.returncode, 0, mb.stderr)
        first, second = mb.stdout.split("\n\n  Latency Distribution (HdrHistogram - Uncorrected Latency (measured without taking "
                                        "delayed starts into account))\n")
        self.assertTrue(first.startswith("  Latency Distribution (HdrHistogram - Recorded Latency)\n"))
        for text in (first.split("\n", 1)[1], second):
            self.assertEqual(spectrum(text)[0][1.0][1], 100)

    def test_hlog(self):
        # HdrHistogram's interval log, read here with Python's own zlib and base64 (not microbench's
        # reader): the header Java's HistogramLogWriter writes, one row per tag per interval, each
        # histogram's counts adding up to the JSON's row for that interval, its maximum the row's.
        def v2_counts(text):
            header, counts = decode_row_histogram(text)
            cookie, _, offset, digits, lowest, highest, ratio = header
            self.assertEqual((cookie, offset, digits, lowest, highest, ratio), (0x1C849313, 0, 3, 1, 3600 * 10**9, 1.0))
            return counts

        with tempfile.TemporaryDirectory() as d:
            log, result = os.path.join(d, "r.hlog"), os.path.join(d, "r.json")
            r = run([MICROBENCH, "-q", "-n", "600", "-c", "4", "-k", "--rate", "1000", "--interval", "200ms", "--hlog", log,
                     "--json", result, Servers.url()])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(result) as f:
                doc = json.load(f)
            with open(log) as f:
                lines = f.read().splitlines()
            self.assertEqual(lines[0], f"#[Logged with microbench {doc['microbench']}]")
            self.assertEqual(lines[1], "#[Histogram log format version 1.3]")
            start = doc["start_unix_ns"] / 1e9
            m = re.fullmatch(r"#\[StartTime: (\d+\.\d{3}) \(seconds since epoch\), (\w{3} \w{3} \d\d \d\d:\d\d:\d\d) UTC (\d{4})\]", lines[2])
            self.assertTrue(m, lines[2])
            self.assertAlmostEqual(float(m.group(1)), start, delta=0.002)
            self.assertEqual(f"{m.group(2)} {m.group(3)}", time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(int(float(m.group(1))))))
            self.assertEqual(lines[3], f"#[BaseTime: {m.group(1)} (seconds since epoch)]")
            self.assertEqual(lines[4], '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"')
            rows = [line.split(",") for line in lines[5:]]
            self.assertEqual(len(rows), 3 * len(doc["intervals"]))
            for k, interval in enumerate(doc["intervals"]):
                tags = [row[0] for row in rows[3 * k:3 * k + 3]]
                self.assertEqual(tags, ["Tag=response", "Tag=service", "Tag=schedule_lag"])
                for row in rows[3 * k:3 * k + 3]:
                    self.assertEqual(float(row[1]), round(interval["start_ns"] / 1e9, 3))
                    self.assertEqual(float(row[2]), round(interval["duration_ns"] / 1e9, 3))
                    self.assertEqual(sum(v2_counts(row[4]).values()), interval["completed"], row[0])
                self.assertAlmostEqual(float(rows[3 * k][3]), interval["response_ns"]["max"] / 1e6, delta=0.0006)
                self.assertAlmostEqual(float(rows[3 * k + 2][3]), interval["schedule_lag_ns"]["max"] / 1e6, delta=0.0006)
            self.assertEqual(sum(i["completed"] for i in doc["intervals"]), 600)
            # microbench-hlog reads it back: every interval merged, per tag.
            r = run([HLOG, log])
            self.assertEqual(r.returncode, 0, r.stderr)
            table = {line.split()[0]: line.split() for line in r.stdout.splitlines()[3:]}
            self.assertEqual(sorted(table), ["response", "schedule_lag", "service"])
            for tag in table:
                self.assertEqual(table[tag][1:3], [str(len(doc["intervals"])), "600"])
            r = run([HLOG, log, "--hgrm", "service"])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout, r"#\[Max     = +[\d.]+, Total count    = +600\]")
            # A closed loop: Tag=total, 1 s intervals unless --interval says, rows written as
            # intervals close (the file holds rows while the run still runs).
            os.unlink(log)
            p = subprocess.Popen([MICROBENCH, "-q", "--duration", "2500ms", "-c", "2", "-k", "--hlog", log, Servers.url()],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            during = []
            for _ in range(200):  # the first interval's row, while the run still runs
                if os.path.exists(log):
                    with open(log) as f:
                        during = f.read().splitlines()
                if len(during) > 5 or p.poll() is not None:
                    break
                time.sleep(0.05)
            running = p.poll() is None
            out, err = p.communicate(timeout=30)
            self.assertEqual(p.returncode, 0, err)
            self.assertTrue(running, "the run had ended before its first row was in the file")
            self.assertEqual([line[:15] for line in during[5:]], ["Tag=total,0.000"])
            with open(log) as f:
                after = [line.split(",") for line in f.read().splitlines()[5:]]
            self.assertEqual([row[:3] for row in after[:2]], [["Tag=total", "0.000", "1.000"], ["Tag=total", "1.000", "1.000"]])
            self.assertEqual(after[2][:2], ["Tag=total", "2.000"])
            self.assertTrue(0.5 <= float(after[2][2]) < 0.6, after[2][2])  # the run's end, stragglers included
            self.assertEqual(len(after), 3)

    def test_hlog_tool_reads_other_writers_logs(self):
        # Logs HdrHistogram.NET (UTF-16, .NET's deflate, no Adler-32) and hdr-histogram-js (pako)
        # wrote (tests/fuzz/hlog_corpus/README says how), read as their writers printed them: rows,
        # counts and the minimum (its bucket's lowest value: HdrHistogram.NET printed 22271 and
        # 16159, the same buckets' highest; hdr-histogram-js printed 51680 and 14584).
        corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "hlog_corpus")
        for name, expected in (("net_200.hlog", {"response": "3 600 0.022256", "service": "3 600 0.016152"}),
                               ("js_200.hlog", {"response": "3 600 0.051680", "service": "3 600 0.014584"})):
            r = run([HLOG, os.path.join(corpus, name)])
            self.assertEqual(r.returncode, 0, r.stderr)
            table = {line.split()[0]: " ".join(line.split()[1:4]) for line in r.stdout.splitlines()[3:]}
            self.assertEqual(table, expected, r.stdout)
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.hlog")
            with open(os.path.join(corpus, "closed_loop.hlog")) as f:
                lines = f.read().splitlines()
            with open(bad, "w") as f:
                f.write("\n".join(lines[:5] + [lines[5][:-8] + "AAAAAAAA"]) + "\n")
            r = run([HLOG, bad])
            self.assertEqual(r.returncode, 1)
            self.assertIn("bad.hlog: line 6: the histogram does not decode: ", r.stderr)
            r = run([HLOG, os.path.join(corpus, "..", "report_corpus", "single.json")])
            self.assertEqual(r.returncode, 1)
            self.assertIn("single.json: line 1: not a row: expected [Tag=NAME,]START,LENGTH,MAX,HISTOGRAM", r.stderr)
            empty = os.path.join(d, "empty.hlog")
            with open(empty, "w") as f:
                f.write("#[Histogram log format version 1.3]\n")
            r = run([HLOG, empty])
            self.assertEqual(r.returncode, 1)
            self.assertIn("no interval rows in", r.stderr)
            for missing in ([], [""]):
                r = run([HLOG, empty, "--hgrm"] + missing)
                self.assertEqual(r.returncode, 1)
                self.assertIn("--hgrm needs a tag", r.stderr)
            r = run([HLOG, os.path.join(corpus, "closed_loop.hlog"), "--hgrm", "response"])
            self.assertEqual(r.returncode, 1)
            self.assertIn("no rows tagged response", r.stderr)
            # Untagged rows: "(none)" in the table, and what --hgrm "(none)" picks.
            untagged = os.path.join(d, "untagged.hlog")
            with open(untagged, "w") as f:
                f.write("\n".join(line.replace("Tag=total,", "") for line in lines) + "\n")
            r = run([HLOG, untagged])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.splitlines()[3].split()[:3], ["(none)", "1", "100"])
            r = run([HLOG, untagged, "--hgrm", "(none)"])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout, r"Total count    = +100\]")

    def test_logs_beyond_the_memory_limit_are_refused(self):
        # 256 tags, each one value 4,000,000 buckets deep in a 5-figure histogram up to 2^53 (21 KB):
        # in a 32-bit process's address space (3 GiB) the reader aborted on it (signal 6, its
        # totals took 47 MiB a tag). Now a tag's total spans its values (32 MiB here) and the
        # totals stay within --hlog-memory (128 MiB): refused at the third tag, naming it.
        def address_space_of_32_bits():
            resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

        if os.environ.get("MICROBENCH_SANITIZED"):
            self.skipTest("a sanitizer's runtime maps more than 3 GiB of address space")

        def limited(command):
            return subprocess.run(command, capture_output=True, text=True, timeout=60,
                                  preexec_fn=address_space_of_32_bits)

        with tempfile.TemporaryDirectory() as d:
            log, page = os.path.join(d, "deep.hlog"), os.path.join(d, "deep.html")
            with open(log, "w") as f:
                f.write(deep_log())
            for command in ([HLOG, log], [MICROBENCH, "merge", log], [MICROBENCH, "report", log, "--html", page]):
                r = limited(command)
                self.assertEqual((r.returncode, r.stdout), (1, ""), r.stderr)
                self.assertRegex(r.stderr, r"deep\.hlog: line 4: Tag=t2: its total's highest trackable value, 140737488355328 "
                                           r"at 5 significant figures, needs 32\.0 MiB of counters; with the tags' "
                                           r"totals \(64\.0 MiB\) and the row's \(38\.0 MiB\), above the reader's limit of "
                                           r"128\.0 MiB\n")
            self.assertFalse(os.path.exists(page))
            # A limit raised past what the process may map: the mapping fails, and that too is a message.
            r = limited([MICROBENCH, "merge", log, "--hlog-memory", "9000"])
            self.assertEqual((r.returncode, r.stdout), (1, ""), r.stderr)
            self.assertRegex(r.stderr, r"deep\.hlog: line \d+: (Tag=t\d+: )?out of memory for (the histogram's|its total's) "
                                       r"counters: ")
            # Without the address-space limit, the raised limit reads every tag.
            r = run([MICROBENCH, "merge", log, "--hlog-memory", "9000"])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(len(r.stdout.splitlines()), 3 + 256)
            for bad in ("0", "65537", "x"):
                r = run([MICROBENCH, "merge", log, "--hlog-memory", bad])
                self.assertEqual(r.returncode, 1)
                self.assertIn("--hlog-memory takes MiB from 1 to 65536 (the default: 128)", r.stderr)

    def test_merge_and_report_read_logs(self):
        # `microbench merge LOG...` prints what microbench-hlog prints; two copies of a log merge
        # exactly (twice the rows and values, the same minimum, percentiles and maximum);
        # `microbench report` draws a log as a section of its own, a run per tag.
        corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "hlog_corpus")
        fixed, closed = os.path.join(corpus, "fixed_rate.hlog"), os.path.join(corpus, "closed_loop.hlog")
        result = os.path.join(corpus, "..", "report_corpus", "single.json")
        alone, merged = run([HLOG, fixed]), run([MICROBENCH, "merge", fixed])
        self.assertEqual(alone.returncode, 0, alone.stderr)
        self.assertEqual((merged.returncode, merged.stdout), (0, alone.stdout), merged.stderr)
        twice = run([MICROBENCH, "merge", fixed, fixed])
        self.assertEqual(twice.returncode, 0, twice.stderr)
        self.assertTrue(twice.stdout.startswith("2 logs, every interval merged exactly; values in ms\n"), twice.stdout)
        one = {line.split()[0]: line.split() for line in alone.stdout.splitlines()[3:]}
        two = {line.split()[0]: line.split() for line in twice.stdout.splitlines()[3:]}
        self.assertEqual(sorted(two), ["response", "schedule_lag", "service"])
        for tag in two:
            self.assertEqual([int(v) for v in two[tag][1:3]], [2 * int(v) for v in one[tag][1:3]], tag)
            self.assertEqual(two[tag][3:], one[tag][3:], tag)
        spectrum_alone = run([HLOG, fixed, "--hgrm", "service"])
        spectrum = run([MICROBENCH, "merge", fixed, "--hgrm", "service"])
        self.assertEqual((spectrum.returncode, spectrum.stdout), (0, spectrum_alone.stdout), spectrum.stderr)
        r = run([MICROBENCH, "merge", fixed, "--hgrm", "total"])
        self.assertEqual((r.returncode, r.stdout), (1, ""))
        self.assertIn("no rows tagged total (the logs' tags: response service schedule_lag)", r.stderr)
        # Refused: results beside logs, --json of logs, --hgrm of results, --html to stdout.
        for args, message in (([fixed, result], f"results and logs do not merge together: {fixed} is an HdrHistogram log, "
                                                f"{result} is not"),
                              ([fixed, "--json", "-"], "--json takes results: logs merge into the table, --hgrm TAG or --html OUT"),
                              ([result, "--hgrm", "total"], "--hgrm takes logs (NAME.hlog), not results"),
                              ([fixed, "--html", "-"], "--html needs a file name")):
            r = run([MICROBENCH, "merge"] + args)
            self.assertEqual((r.returncode, r.stdout), (1, ""), args)
            self.assertIn(message, r.stderr)
        with tempfile.TemporaryDirectory() as d:
            # A log is told by its first bytes too: a '#' header or a Tag= row, whatever its name.
            renamed = os.path.join(d, "lag.txt")
            with open(fixed) as f, open(renamed, "w") as out:
                out.write("".join(line for line in f if not line.startswith(("#", '"'))))  # rows only: Tag= first
            page = os.path.join(d, "m.html")
            r = run([MICROBENCH, "merge", closed, renamed, "--html", page, "--title", "fleet"])
            self.assertEqual(r.returncode, 0, r.stderr)
            table = {line.split()[0]: line.split()[1:3] for line in r.stdout.splitlines()[3:]}
            self.assertEqual(table, {"total": ["1", "100"], "response": ["4", "200"], "service": ["4", "200"],
                                     "schedule_lag": ["4", "200"]})
            with open(page) as f:
                html = f.read()
            self.assertIn("<title>fleet</title>", html)
            self.assertEqual(html.count("<section "), 3)  # every log merged, then each log
            self.assertIn(">every log merged</h2>", html)
            self.assertIn("Tag=schedule_lag in every log", html)
            self.assertIn(f"Tag=total in {closed}", html)
            self.assertIn(">closed_loop</h2>", html)  # each log's section is named after its file
            self.assertIn("values per second over time", html)  # a log's rows are drawn over time
            self.assertNotIn("Failures by reason", html)
            # report: each log a section named after its file, beside a result's.
            r = run([MICROBENCH, "report", fixed, result, "--html", page])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"{fixed}: 3 runs\n", r.stderr)
            with open(page) as f:
                html = f.read()
            self.assertIn(">fixed_rate</h2>", html)
            self.assertIn(f"Tag=service in {fixed}", html)
            self.assertIn("Failures by reason", html)  # the result's section keeps its tables
            self.assertEqual(html.count("<h3>Interval log</h3>"), 1)
            r = run([MICROBENCH, "report", renamed, "--html", page])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(page) as f:
                self.assertIn("<title>microbench report: lag.txt</title>", f.read())
            # A log named like a suite's scenario keeps a section of its own: the suite's keeps its tables.
            suite = os.path.join(corpus, "..", "report_corpus", "suite.json")
            latency = os.path.join(d, "latency.hlog")
            shutil.copy(fixed, latency)
            r = run([MICROBENCH, "report", suite, latency, "--html", page])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(page) as f:
                html = f.read()
            self.assertEqual(html.count(">latency</h2>"), 2)
            self.assertEqual(html.count("<h3>Failures by reason</h3>"), 5)  # each of the suite's five scenarios
            # microbench-hlog draws as merge does; a missing file is said to be missing.
            r = run([HLOG, closed, renamed, "--html", page])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(page) as f:
                self.assertEqual(f.read().count("<section "), 3)
            for command in ([MICROBENCH, "merge", closed, os.path.join(d, "nope.json")], [HLOG, closed, os.path.join(d, "nope")]):
                r = run(command)
                self.assertEqual((r.returncode, r.stdout), (1, ""), command)
                self.assertIn(f"cannot read {os.path.join(d, 'nope')}", r.stderr)
            bad = os.path.join(d, "bad.hlog")
            with open(bad, "w") as f:
                f.write("#[Histogram log format version 1.3]\nTag=total,0,1,1,!!!\n")
            for command in (["report", bad, "--html", page], ["merge", bad]):
                r = run([MICROBENCH] + command)
                self.assertEqual((r.returncode, r.stdout), (1, ""), command)
                self.assertIn(f"{bad}: line 2: the histogram is not base64", r.stderr)

    def test_json(self):
        mb = run([MICROBENCH, "-n", "400", "-c", "4", "-k", "--json", "-", "--percentiles", "50,99.9", Servers.url()])
        self.assertEqual(mb.returncode, 0, mb.stderr)
        doc = json.loads(mb.stdout)  # stdout holds the JSON document only
        self.assertEqual(doc["requests"]["completed"], 400)
        self.assertEqual(doc["requests"]["ended"], 400)
        self.assertEqual(doc["status_codes"], {"200": 400})
        self.assertEqual(doc["config"]["concurrency"], 4)
        self.assertTrue(doc["config"]["keep_alive"])
        self.assertEqual(doc["bytes"]["document_length"], 21)
        self.assertEqual(set(doc["failures"]), {"connect", "write", "receive", "parse", "timeout", "length", "check", "tls"})
        total = doc["latency_ns"]["total"]
        self.assertEqual(total["count"], 400)
        self.assertEqual(set(total["percentiles"]), {"50", "99.9"})
        self.assertLessEqual(total["min"], total["percentiles"]["50"])
        self.assertLessEqual(total["percentiles"]["99.9"], total["max"])
        self.assertTrue(base64.b64decode(total["histogram"]).startswith(b"MBH\x01"))

    def test_expect_status(self):
        mb = run([MICROBENCH, "-n", "20", "--expect-status", "200", Servers.url("/status/503")])
        self.assertEqual(mb.returncode, 3)  # failed checks exit 3
        self.assertRegex(mb.stdout, r"Failed requests:        20\n   \(Connect: 0, Receive: 0, Length: 0, Exceptions: 20\)\n"
                                    r"Failure reasons:        check 20\n")
        self.assertIn("First failed check:     /status/503: status 503, ", mb.stdout)
        self.assertIn("   expected:            status 200\n", mb.stdout)
        self.assertNotIn("warning", mb.stderr)  # the statuses were asked for

    def test_failed_check_shows_what_came_back(self):
        # A body file written with echo ends in a newline the answer lacks: the report shows both.
        with tempfile.TemporaryDirectory() as d:
            body = os.path.join(d, "body")
            with open(body, "w") as f:
                f.write('{"factorial":3628800}\n')
            mb = run([MICROBENCH, "-n", "20", "-c", "2", "--expect-body", body, Servers.url("/factorial/10")])
        self.assertEqual(mb.returncode, 3)
        self.assertIn("Failure reasons:        check 20\n"
                      'First failed check:     /factorial/10: status 200, application/json, 21 body bytes: '
                      '"{"factorial":3628800}"\n'
                      '   expected:            body equals "{"factorial":3628800}\\n" (22 bytes)\n', mb.stdout)
        mb = run([MICROBENCH, "-n", "20", "--expect-body-contains", '"factorial":3628800', Servers.url("/factorial/10")])
        self.assertEqual(mb.returncode, 0)
        self.assertIn("Failed requests:        0\n", mb.stdout)
        mb = run([MICROBENCH, "-n", "20", "--json", "-", "--expect-body-contains", "3628801", Servers.url("/factorial/10")])
        self.assertEqual(mb.returncode, 3)
        doc = json.loads(mb.stdout)
        self.assertEqual(doc["failures"]["check"], 20)
        first = doc["first_failed_check"]
        self.assertEqual((first["status"], first["body"], first["expected"]),
                         (200, '{"factorial":3628800}', 'body contains "3628801"'))

    def test_expect_body_regex(self):
        url = Servers.url("/factorial/10")
        mb = run([MICROBENCH, "-n", "20", "-c", "2", "--expect-body-regex", '^\\{"factorial": *[0-9]+\\}$', url])
        self.assertEqual(mb.returncode, 0, mb.stdout + mb.stderr)
        self.assertIn("Failed requests:        0\n", mb.stdout)
        mb = run([MICROBENCH, "-n", "20", "--json", "-", "--expect-body-regex", '"factorial":3628801', url])
        self.assertEqual(mb.returncode, 3)
        doc = json.loads(mb.stdout)
        self.assertEqual(doc["failures"]["check"], 20)
        self.assertEqual(doc["first_failed_check"]["expected"],
                         'body matches /"factorial":3628801/ (a body of at most 1048576 bytes)')
        self.assertEqual(doc["config"]["checks"], 'body matches /"factorial":3628801/')

    @staticmethod
    def on_a_terminal(args, columns=0):
        """Runs microbench with stderr on a pseudo-terminal (`columns` wide, when given): (exit status,
        stdout, what the terminal got)."""
        import fcntl
        import pty
        import select
        import struct
        import termios
        master, slave = pty.openpty()
        p = None
        try:
            if columns:
                fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
            p = subprocess.Popen([MICROBENCH] + args, stdout=subprocess.PIPE, stderr=slave)
            os.close(slave)
            slave = -1
            seen, deadline = b"", time.monotonic() + 60
            while time.monotonic() < deadline:  # a program that hangs fails the test, not the whole run
                if not select.select([master], [], [], 1)[0]:
                    continue
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the program's end of the terminal closed
                    break
                if not chunk:
                    break
                seen += chunk
            out = p.communicate(timeout=10)[0]
            return p.returncode, out.decode(), seen.decode()
        finally:
            if p and p.poll() is None:
                p.kill()
                p.wait()
            if p:
                p.stdout.close()
            for fd in (master, slave):
                if fd >= 0:
                    os.close(fd)

    def test_a_terminal_gets_a_live_line(self):
        # Done, rate, failures, time and time left, rewritten in place; cleared before the report.
        status, out, tty = self.on_a_terminal(["-n", "300", "-c", "2", "-k", Servers.url("/delay/5")])
        self.assertEqual(status, 0, tty)
        lines = [line.rstrip(" ") for line in re.findall(r"\r(\d+/300 \(\d+%\)[^\r]*)", tty)]
        self.assertGreaterEqual(len(lines), 2, repr(tty))
        self.assertTrue(any(re.fullmatch(r"\d+/300 \(\d+%\)  \d+/s  0 failed  [\d.]+ s, ~[\d.]+ s left", line)
                            for line in lines), lines)
        self.assertRegex(tty, r"\r +\r$")  # the line taken off with spaces: no escape sequence anywhere
        self.assertNotIn("\x1b", tty)
        self.assertNotIn("Completed", tty)  # ab's heartbeat lines are for a log, not a terminal
        self.assertIn("Complete requests:      300\n", out)
        # The percentiles so far, from intervals of the line's own that the result does not keep:
        # its JSON is the one a run off a terminal writes.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            status, out, tty = self.on_a_terminal(["-n", "600", "-c", "2", "-k", "--json", path, Servers.url("/delay/5")])
            with open(path) as f:
                doc = json.load(f)
        self.assertEqual(status, 0, tty)
        self.assertRegex(tty, r"\r\d+/600 \(\d+%\)  \d+/s  0 failed  p50 [\d.]+ ms  p99 [\d.]+ ms  [\d.]+ s, ~[\d.]+ s left")
        self.assertNotIn("intervals", doc)
        self.assertNotIn("interval_ms", doc)
        self.assertNotIn("\nIntervals: ", out)
        # A narrow terminal: each line cut one short of its width, so that none wraps.
        status, out, tty = self.on_a_terminal(["-n", "300", "-c", "2", "-k", Servers.url("/delay/5")], columns=30)
        self.assertEqual(status, 0, tty)
        lines = tty.split("\r")
        self.assertGreaterEqual(len([line for line in lines if line.startswith("300/300") or "/300 (" in line]), 2, repr(tty))
        self.assertEqual([line for line in lines if len(line) > 29], [], repr(tty))
        # With intervals (a fixed rate): the percentiles so far; for -t, the time left.
        status, out, tty = self.on_a_terminal(["-t", "1", "-c", "4", "-k", "--rate", "200", "--interval", "200ms",
                                               Servers.url()])
        self.assertEqual(status, 0, tty)
        self.assertRegex(tty, r"\r\d+ requests  \d+/s  0 failed  p50 [\d.]+ ms  p99 [\d.]+ ms  [\d.]+ s, ~[\d.]+ s left")
        # Failures are counted as they happen; -q silences the line.
        status, out, tty = self.on_a_terminal(["-n", "400", "-c", "1", "-k", "--expect-status", "201",
                                               Servers.url("/delay/2")])
        self.assertEqual(status, 3, tty)
        self.assertRegex(tty, r"  [1-9]\d* failed  ")
        status, out, tty = self.on_a_terminal(["-q", "-n", "300", "-c", "2", "-k", Servers.url("/delay/5")])
        self.assertEqual((status, tty), (0, ""))

    def test_no_2xx_response_is_said_once(self):
        mb = run([MICROBENCH, "-n", "20", Servers.url("/status/404")])
        self.assertEqual(mb.returncode, 0)  # as ab, without a gate
        self.assertEqual(mb.stderr.count("warning: no completed response had a 2xx status (404: 20)"), 1, mb.stderr)
        mb = run([MICROBENCH, "-n", "20", Servers.url("/factorial/5")])
        self.assertNotIn("warning", mb.stderr)


class Errors(unittest.TestCase):
    def assert_usage_error(self, args, words):
        """Exit 1, one line saying `words` (no longer than 400 bytes), one pointing at -h, nothing on stdout."""
        r = run([MICROBENCH] + args, timeout=10)
        self.assertEqual(r.returncode, 1, r.stderr[:300])
        first = r.stderr.splitlines()[0]
        self.assertTrue(first.startswith("microbench: "), first[:300])
        self.assertIn(words, first)
        self.assertLess(len(first), 400)  # a huge value is shown cut short
        self.assertEqual(r.stderr.splitlines()[1:], ["microbench -h lists the options; microbench --help-all says what "
                                                     "each does."])
        self.assertEqual(r.stdout, "")

    def test_usage_errors_exit_1_with_one_clear_line(self):
        url = Servers.url()
        cases = [([], "no URL"), (["-n"], "needs a value"), (["-n", "abc", url], "-n"), (["-n", "0", url], "-n"),
                 (["-c", "0", url], "-c"), (["-n", "5", "-c", "10", url], "concurrency level greater"),
                 (["--bogus", url], "unknown option --bogus"), (["-j", url], "unknown option -j"),
                 (["-f", "SSL3", url], "-f"), (["-f", "TLS9", url], "-f"), (["-E", "/nonexistent/cert.pem", url], "cannot read"),
                 (["--cacert", "/nonexistent/ca.pem", url], "cannot read"), (["ftp://x/"], "bad URL"), (["http://h:99999/"], "port"),
                 (["-X", "proxy:3128", url], "proxy"), (["-s", "0", url], "-s"), (["--pipeline", "4", url], "keep-alive"),
                 (["-t", "soon", url], "-t"), (["-H", "NoColon", url], "-H"), (["-W", "4", "-c", "2", "-n", "9", url], "threads"),
                 (["--expect-status", "abc", url], "--expect-status"), (["--percentiles", "101", url], "--percentiles"),
                 (["-p", "/nonexistent/file", url], "cannot read"), (["-b", "12", url], "-b"), (["-m", "G T", url], "method"),
                 (["a", "b"], "more than one URL")]
        for args, words in cases:
            with self.subTest(args=args):
                self.assert_usage_error(args, words)

    def test_no_flag_is_dropped_in_silence(self):
        # A flag given twice, under two names, or where the mode does not use it is refused.
        url, b = Servers.url(), Servers.url("/factorial/11")
        cases = [(["--json", "a", "--json", "b", url], "--json is given twice: give it once"),
                 (["-t", "5", "--duration", "5s", url], "-t and --duration set the same thing: give one"),
                 (["-n", "5", "-n", "6", url], "-n is given twice"), (["-i", "-m", "POST", url], "-i and -m set the same thing"),
                 (["-p", "/dev/null", "-u", "/dev/null", url], "-p and -u set the same thing"),
                 (["--start-in", "1", "--start-at", "2000000000", url], "--start-in and --start-at set the same thing"),
                 (["--scale", "0.5", url], "--scale is for --suite and --self-test"),
                 (["--rounds", "2", url], "--rounds is for --compare"),
                 (["--suite", "-n", "5", url], "-n does not apply to --suite: its scenarios set their own -n, -c, -k"),
                 (["--suite", "-k", url], "-k does not apply to --suite"), (["--suite", "-c", "3", url], "-c does not apply"),
                 (["--suite", "--rate", "5", url], "--rate does not apply to --suite"),
                 (["--rate", "100", url], "--rate sends on a schedule: say how many requests (-n) or for how long (-t)"),
                 (["--compare", "--rate", "100", url, b], "--rate sends on a schedule: say how many requests (-n)"),
                 (["--expect-body-contains", "", url], "--expect-body-contains needs the text the body must contain"),
                 (["--expect-body-regex", "a(b", url],
                  "--expect-body-regex 'a(b' is not a POSIX extended regular expression: a '(' is not closed"),
                 (["--expect-body-regex", "", url],
                  "--expect-body-regex '' is not a POSIX extended regular expression: the expression is empty"),
                 (["--compare", "-e", "x.csv", url, b], "-e does not apply to --compare"),
                 (["--compare", "--latency", url, b], "--latency does not apply to --compare"),
                 (["--self-test", "--max-failures", "0"], "--max-failures does not apply to --self-test"),
                 (["--self-test", "-n", "5"], "-n does not apply to --self-test"),
                 (["--start-at", "1", url], "--start-at needs a Unix time in seconds, from a day ago to 7 days ahead, not '1'"),
                 (["-W", "1", "--threads", "1", url], "-W and --threads set the same thing"),
                 (["--latency=5", url], "--latency takes no value"), (["--max-p-ms", "5", url], "unknown option --max-p-ms"),
                 (["--max-p99-ms", "5", "--max-p99-ms", "6", url], "--max-p99-ms is given twice"),
                 # the rule goes by the setting, not its spelling: one percentile, one gate
                 (["--max-p99-ms=5", "--max-p99.0-ms", "6", url], "--max-p99-ms and --max-p99.0-ms set the same thing"),
                 (["--max-p50-ms", "5", "--max-p050-ms", "6", url], "--max-p50-ms and --max-p050-ms set the same thing"),
                 (["-l", "--no-length-check", "-s", "1", "--timeout-ms", "9", url], "-s and --timeout-ms set the same thing")]
        for args, words in cases:
            with self.subTest(args=args):
                self.assert_usage_error(args, words)
        for args in (["-H", "A: 1", "-H", "B: 2", "-k", "-k", url], ["--", url], ["-n", "3", "--", url],
                     ["-l", "--no-length-check", "-kq", "-n3", url], ["--max-p99-ms", "5", "--max-p50-ms=2", url],
                     ["--suite", "--suite", url],
                     ["--suite", "--scale", "0.5", "-W", "1", "-H", "A: 1", "--check", "factorial", "--max-failures", "0", url],
                     ["--compare", "-n", "10", "-k", "--rounds", "2", url, b],
                     ["--start-at", str(int(time.time()) - 3600), url], ["--rate", "100", "-n", "1", url],
                     ["--rate", "100", "-t", "1", url], ["--rate", "100", "--stages", "1s:50", url]):
            with self.subTest(args=args):
                r = run([MICROBENCH, "--check-args", *args])
                self.assertEqual(r.returncode, 0, r.stderr)

    def test_the_self_test_saves_json_when_asked(self):
        r = run([MICROBENCH, "--self-test", "--scale", "0.01", "--json", "-"], timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)  # stdout is the JSON alone; the verdict on stderr
        self.assertEqual(len(doc), 10)  # five scenarios, each against both factorial forms
        self.assertTrue(all(d["result"]["requests"]["failed"] == 0 for d in doc))
        self.assertEqual({(v["gate"], v["held"]) for d in doc for v in d["result"]["gates"]["verdicts"]}, {("checks", True)})
        self.assertEqual({d["result"]["config"]["url"].split("/", 3)[3] for d in doc}, {"factorial/100", "factorial?n=100"})
        self.assertRegex(r.stderr, r"Self-test passed: \d+ requests, 0 failed\.\n$")

    def test_every_flag_refuses_bad_values_with_one_line_naming_it(self):
        # Empty, negative, zero, non-numeric, overflowing, out-of-range and non-finite values:
        # exit 1, one line naming the flag, then the usage; nothing runs, nothing is clamped.
        bad_values = {
            "-n": ["", "-1", "0", "abc", "99999999999999999999999", "1.5", "1e3"],
            "-c": ["", "-1", "0", "abc", "99999999999999999999999", "1000001"],
            "-t": ["", "-1", "0", "abc", "99999999999999999999999", "2592001"],
            "-s": ["", "-1", "0", "abc", "99999999999999999999999", "3601"],
            "-b": ["", "-1", "0", "abc", "99999999999999999999999", "511"],
            "-v": ["", "-1", "abc", "99999999999999999999999", "6"],
            "-W": ["", "-1", "0", "abc", "99999999999999999999999", "1025"],
            "-e": [""], "-g": [""],
            "--threads": ["", "-1", "0", "abc", "99999999999999999999999"],
            "--duration": ["", "-1", "0", "abc", "1e400", "nan", "inf", "8d", "10x", "721h"],
            "--pipeline": ["", "-1", "0", "abc", "257", "99999999999999999999999"],
            "--timeout-ms": ["", "-1", "0", "abc", "3600001", "99999999999999999999999"],
            "--max-failures": ["", "-1", "abc", "99999999999999999999999"],
            "--min-rps": ["", "-1", "0", "abc", "nan", "inf", "1e400"],
            "--scale": ["", "-1", "0", "abc", "nan", "inf", "101"],
            "--rounds": ["", "-1", "0", "abc", "101"],
            "--rate": ["", "-1", "0", "abc", "nan", "inf", "1e400", "10000001", "0.0009", "1e-300"],
            "--seed": ["", "-1", "abc", "99999999999999999999999"],
            "--max-batch-lag": ["", "-1", "abc", "1.5", "10001", "99999999999999999999999"],
            "--interval": ["", "-1", "abc", "5ms", "nan", "inf", "2h"],
            "--max-p99-ms": ["", "-1", "0", "abc", "nan", "inf"],
            "--percentiles": ["", "-1", "abc", "101", "nan", "50,,99"],
            "--expect-status": ["", "-1", "abc", "99", "1000", "200,"],
            "--json": [""], "--intervals": [""], "--hgrm": [""],
        }
        url = Servers.url()
        checked = 0
        for flag, values in bad_values.items():
            for v in values:
                args = [f"{flag}={v}"] if flag.startswith("--") else [flag, v]
                if flag == "--seed":
                    args += ["--rate", "10", "--arrivals", "poisson"]
                if flag == "--max-batch-lag":
                    args += ["--rate", "10"]
                with self.subTest(flag=flag, value=v):
                    self.assert_usage_error(args + [url], flag)
                    checked += 1
        self.assertEqual(checked, sum(len(v) for v in bad_values.values()))

    def test_each_range_holds_to_its_limits(self):
        # The library's ranges (config.hpp), at the edge: just inside passes --check-args, just
        # outside is refused naming the flag.
        url = Servers.url()
        edges = [(["-t", "2592000"], ["-t", "2592001"]), (["--duration", "720h"], ["--duration", "721h"]),
                 (["-t", "1", "--rate", "0.001"], ["-t", "1", "--rate", "0.0009"]),
                 (["-t", "1", "--rate", "10000000"], ["-t", "1", "--rate", "10000000.5"]),
                 (["-s", "3600"], ["-s", "3601"]), (["--timeout-ms", "3600000"], ["--timeout-ms", "3600001"]),
                 (["-t", "1", "--interval", "10ms"], ["-t", "1", "--interval", "9ms"]),
                 (["-t", "1", "--interval", "1h"], ["-t", "1", "--interval", "3601s"]),
                 (["-n", "1000000", "-c", "1000000"], ["-n", "1000001", "-c", "1000001"]),
                 (["-n", "1024", "-c", "1024", "-W", "1024"], ["-n", "1025", "-c", "1025", "-W", "1025"]),
                 (["-k", "--pipeline", "256"], ["-k", "--pipeline", "257"]),
                 (["-t", "1", "--rate", "10", "--max-batch-lag", "10000"], ["-t", "1", "--rate", "10", "--max-batch-lag", "10001"]),
                 (["-b", "67108864"], ["-b", "67108865"])]
        for inside, outside in edges:
            with self.subTest(inside=inside):
                r = run([MICROBENCH, "--check-args"] + inside + [url])
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("the arguments are valid", r.stdout + r.stderr)
                self.assert_usage_error(outside + [url], outside[-2])

    def test_files_urls_and_contradictions_are_refused_plainly(self):
        url = Servers.url()
        with tempfile.TemporaryDirectory() as d:
            body = os.path.join(d, "body")
            with open(body, "w") as f:
                f.write("x")
            long_bad = "http://127.0.0.1/" + "a b" * 40000  # 120 KB, near the kernel's limit for one argument
            cases = [(["-p", os.path.join(d, "missing"), url], "cannot read -p file"),
                     (["-u", d, url], "Is a directory"), (["-H", "", url], "-H"),
                     (["--expect-body", d, url], "cannot read --expect-body file"),
                     (["-n", "5", "-c", "10", url], "-c 10 > -n 5"),
                     (["--suite", "--compare", url, url], "separate modes"),
                     (["--self-test", "--suite"], "separate modes"),
                     (["-i", "-p", body, url], "-i (HEAD) sends no body"),
                     (["--pipeline", "2", url], "--pipeline needs keep-alive"),
                     (["-k", "--pipeline", "2", "--rate", "5", url], "--rate"),
                     (["--arrivals", "poisson", url], "--arrivals poisson needs --rate"),
                     ([long_bad], "bad URL")]
            for args, words in cases:
                with self.subTest(args=args[:3]):
                    self.assert_usage_error(args, words)
        # A long good URL runs (and fails plainly at connecting, not at parsing).
        r = run([MICROBENCH, "-q", "-n", "1", f"http://127.0.0.1:{free_port()}/" + "a" * 100000], timeout=20)
        self.assertEqual(r.returncode, 2, r.stderr[:300])

    def test_unreachable_target_exits_2(self):
        port = free_port()  # nothing listens there
        r = run([MICROBENCH, "-n", "3", f"http://127.0.0.1:{port}/"], timeout=20)
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot be reached", r.stderr)
        self.assertIn("(Connect: 3, Receive: 0, Length: 0, Exceptions: 0)", r.stdout)
        r = run([MICROBENCH, "-n", "1", "http://no-such-host.invalid/"], timeout=20)
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot resolve", r.stderr)

    def test_help_and_version(self):
        for args, text in [(["-V"], "microbench 0.1.0 (ab-compatible)\n"), (["--version"], "microbench 0.1.0\n"),
                           (["-h"], "Usage: microbench"), (["--help"], "Usage: microbench"), (["--help-all"], "--expect-status")]:
            r = run([MICROBENCH] + args)
            self.assertEqual(r.returncode, 0)
            self.assertIn(text, r.stdout)
        self.assertEqual(run([MICROBENCH, "--version"]).stdout, "microbench 0.1.0\n")
        # docs/options.md is --help-all's text, so the docs name every option of the table; -h names
        # every one too (both are written from the table).
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        with open(os.path.join(root, "docs", "options.md"), encoding="utf-8") as f:
            docs = re.search(r"\n```text\n(.*?)```\n", f.read(), re.S)
        everything = run([MICROBENCH, "--help-all"]).stdout
        self.assertIsNotNone(docs, "docs/options.md has no ```text block")
        self.assertEqual(docs.group(1), everything,
                         "docs/options.md differs from --help-all: rewrite its text block with tools/run --help-all")
        named = {flag for line in everything.splitlines() if re.match(r"  [^ ]", line)
                 for flag in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", line[2:25])}
        self.assertGreater(len(named), 70)
        short = run([MICROBENCH, "-h"]).stdout
        for flag in sorted(named):
            with self.subTest(flag=flag):
                self.assertRegex(short, rf"(?<![\w-]){re.escape(flag)}(?![\w-])")
        # --help-all documents every flag the short usage names
        usage, everything = run([MICROBENCH, "-h"]).stdout, run([MICROBENCH, "--help-all"]).stdout
        for flag in sorted(set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", usage)) - {"--help-all"}):
            if flag.startswith("--max-p"):
                flag = "--max-pNN-ms"
            with self.subTest(flag=flag):
                self.assertRegex(everything, rf"(?m)^  (.*[ ,])?{re.escape(flag)}\b")

    def test_sigint_prints_a_partial_report(self):
        p = subprocess.Popen([MICROBENCH, "-n", "1000000", "-c", "4", Servers.url("/delay/20")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("Test interrupted after", out)
        complete = int(re.search(r"^Complete requests:\s+(\d+)$", out, re.M).group(1))
        self.assertGreater(complete, 20)
        self.assertLess(complete, 1000)

    def test_sigint_during_the_drain_exits_130(self):
        # -t 1 ends issuing at 1 s; the 3 s requests then drain until Ctrl-C, which must end it at once.
        p = subprocess.Popen([MICROBENCH, "-t", "1", "-c", "2", Servers.url("/delay/3000")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        self.assertLess(time.monotonic() - t0, 1.0)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("Test interrupted after", out)

    def test_sigint_when_every_connection_failed_exits_130_not_2(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()  # nothing listens there: every connect is refused
        p = subprocess.Popen([MICROBENCH, "-t", "5", "-c", "1", f"http://127.0.0.1:{port}/"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("Test interrupted", out)

    def test_sigint_in_suite_and_compare_prints_partial_results_and_exits_130(self):
        for args in (["--suite", Servers.url("/delay/20")],
                     ["--compare", "-n", "2000", "-c", "2", Servers.url("/delay/20"), Servers.url("/delay/20")]):
            p = subprocess.Popen([MICROBENCH, "-q"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(1.0)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=10)
            self.assertEqual(p.returncode, 130, f"{args}: {err}")
            self.assertIn("Test interrupted", out)

    def test_rate_reports_the_open_model_and_says_when_it_cannot_hold(self):
        r = run([MICROBENCH, "-q", "-n", "400", "-c", "4", "-k", "--rate", "400", "--json", "-", Servers.url()])
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["open_model"]["rate"], 400)
        self.assertEqual(doc["open_model"]["max_batch_lag_us"], 50)  # the default
        self.assertEqual(doc["open_model"]["response_ns"]["count"], 400)
        self.assertGreaterEqual(doc["elapsed_s"], 0.95)  # 400 at 400/s
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = run([MICROBENCH, "-q", "-n", "400", "-c", "4", "-k", "--rate", "400", "--json", path, Servers.url()])
            with open(path) as f:
                om = json.load(f)["open_model"]
        self.assertRegex(r.stdout, r"Open model: target 400.00 requests/s, achieved [\d.]+")
        self.assertRegex(r.stdout, r"\n  response +[\d.]+")
        # The note follows the run's own figures (4 connections hold 400/s here, unless a loaded
        # machine stalls the generator: a CI run once saw 22 ms of lag and 6 requests wait).
        behind = om["achieved"] < 0.995 * 400 or om["schedule_missed"] > 0 or om["connection_waits"] * 100 > 400
        self.assertEqual("could not hold the rate" in r.stdout, behind, r.stdout)
        r = run([MICROBENCH, "-q", "-t", "1", "-c", "2", "-k", "--rate", "100", Servers.url("/delay/100")])
        self.assertRegex(r.stdout, r"Note: the generator could not hold the rate: target 100/s, achieved \d+/s")
        # 100/s held 100 ms each needs about 10 in flight (Little's law, at the p99 service time)
        self.assertRegex(r.stdout, r"all 2 connections were busy: raise -c to at least 1[0-2] \(100/s x the p99 service "
                                   r"time, 10\d\.\d ms\)")
        # ... but never more than the run's requests: -c above -n is refused
        r = run([MICROBENCH, "-q", "-n", "6", "-c", "2", "-k", "--rate", "100", Servers.url("/delay/100")])
        self.assertRegex(r.stdout, r"all 2 connections were busy: raise -c to 6, a connection for each request \(100/s x "
                                   r"the p99 service time, 10\d\.\d ms, would keep 1[0-2] in flight\)")
        r = run([MICROBENCH, "-n", "10", "-k", "--pipeline", "4", "--rate", "10", Servers.url()])
        self.assertEqual(r.returncode, 1)
        self.assertIn("--rate sends one request at a time", r.stderr)
        # --max-batch-lag reaches the run: 5 ms at 2,000/s sends about eleven a wake, each waiting
        # for the last of its window (a loaded machine only adds lag).
        r = run([MICROBENCH, "-q", "-n", "200", "-c", "20", "-k", "--rate", "2000", "--max-batch-lag", "5000", "--json", "-",
                 Servers.url()])
        self.assertEqual(r.returncode, 0, r.stderr)
        om = json.loads(r.stdout)["open_model"]
        self.assertEqual(om["max_batch_lag_us"], 5000)
        self.assertEqual(om["schedule_lag_ns"]["count"], 200)
        self.assertGreaterEqual(om["schedule_lag_ns"]["percentiles"]["50"], 1_000_000)

    def test_intervals_csv_and_json_add_up_to_the_totals(self):
        with tempfile.TemporaryDirectory() as d:
            csv_path = os.path.join(d, "intervals.csv")
            r = run([MICROBENCH, "-q", "-t", "2", "-c", "4", "-W", "2", "-k", "--rate", "500", "--interval", "250ms",
                     "--arrivals", "poisson", "--seed", "11", "--intervals", csv_path, "--json", "-", Servers.url()])
            self.assertEqual(r.returncode, 0, r.stderr)
            doc = json.loads(r.stdout)
            with open(csv_path) as f:
                rows = list(csv.DictReader(f))
        self.assertEqual(doc["interval_ms"], 250)
        self.assertEqual(doc["open_model"]["arrivals"], "poisson")
        self.assertEqual(doc["open_model"]["seed"], 11)
        self.assertEqual(len(rows), len(doc["intervals"]))
        self.assertGreaterEqual(len(rows), 8)
        for name in ("ended", "completed", "failed"):
            self.assertEqual(sum(int(row[name]) for row in rows), doc["requests"][name], name)
        self.assertEqual(sum(int(row["sent"]) for row in rows), doc["requests"]["ended"] + doc["requests"]["unfinished"])
        self.assertEqual(sum(i["response_ns"]["count"] for i in doc["intervals"]), doc["open_model"]["response_ns"]["count"])
        for row, j in zip(rows, doc["intervals"]):
            self.assertAlmostEqual(float(row["start_s"]), j["start_ns"] / 1e9, places=3)
            self.assertEqual(int(row["ended"]), j["ended"])
        # The report sums them up; a closed loop has none unless asked. Two seconds make two rows, and a
        # third when the last responses arrive after the end (a loaded machine: seen under ASan in CI).
        r = run([MICROBENCH, "-q", "-t", "2", "-c", "2", "-k", "--rate", "200", Servers.url()])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\nIntervals: [23] of 1.000 s .*\n  requests/s +min +[\d.]+ +median +[\d.]+ +max +[\d.]+\n")
        doc = json.loads(run([MICROBENCH, "-q", "-n", "100", "-c", "2", "-k", "--json", "-", Servers.url()]).stdout)
        self.assertNotIn("intervals", doc)
        doc = json.loads(run([MICROBENCH, "-q", "-n", "100", "-c", "2", "-k", "--interval", "1s", "--json", "-", Servers.url()]).stdout)
        self.assertEqual(sum(i["ended"] for i in doc["intervals"]), 100)

    def test_interval_and_arrival_flags_are_checked(self):
        url = Servers.url()
        cases = [(["--interval", "5ms", url], "--interval"), (["--interval", "2h", url], "--interval"),
                 (["--interval", "soon", url], "--interval"), (["--arrivals", "bursty", "--rate", "10", url], "--arrivals"),
                 (["--arrivals", "poisson", url], "needs --rate"), (["--seed", "1", "-n", "10", "--rate", "10", url], "--seed"),
                 (["--seed", "-1", "--rate", "10", "--arrivals", "poisson", url], "--seed"),
                 (["--max-batch-lag", "50", url], "--max-batch-lag is for --rate"),
                 (["-n", "10", "--rate", "10", "--hgrm", "/dev/null", url], "--hgrm at a fixed rate writes FILE and FILE.service"),
                 (["--intervals", "x.csv", "--interval", "0", url], "--intervals"),
                 (["--suite", "--intervals", "x.csv", url], "--intervals")]
        for args, words in cases:
            with self.subTest(args=args):
                self.assert_usage_error(args, words)
        r = run([MICROBENCH, "-q", "-n", "10", "--intervals", "/nonexistent/dir/x.csv", url])
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot write /nonexistent/dir/x.csv", r.stderr)

    def test_stdout_carries_one_thing(self):
        # --intervals -: the CSV rows alone, no banner or report around them.
        r = run([MICROBENCH, "-t", "1", "--rate", "20", "--interval", "250ms", "--intervals", "-", Servers.url()])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.reader(r.stdout.splitlines()))
        self.assertEqual(rows[0][:8], ["start_s", "duration_s", "sent", "ended", "completed", "failed", "rate_per_s", "target_per_s"])
        self.assertGreaterEqual(len(rows), 5)
        self.assertTrue(all(len(row) == len(rows[0]) for row in rows), r.stdout)
        # ab's banner: five dots before "done" when no heartbeat follows (-q, or at most 150 requests).
        for args in (["-q", "-n", "500"], ["-n", "100"]):
            r = run([MICROBENCH, *args, Servers.url()])
            self.assertIn("\nBenchmarking 127.0.0.1 (be patient).....done\n", r.stdout)
        r = run([MICROBENCH, "-n", "200", Servers.url()])
        self.assertIn("\nBenchmarking 127.0.0.1 (be patient)\n", r.stdout)

    def test_percentiles_csv_to_stdout_is_stdout_alone(self):
        r = run([MICROBENCH, "-n", "20", "-e", "-", Servers.url()])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("Percentage served,Time in ms\n0,"), r.stdout[:200])
        self.assertEqual(r.stdout.count("\n"), 102)  # the header and rows 0 to 100, no report

    def test_a_fixed_rate_report_says_what_abs_lines_mean_there(self):
        r = run([MICROBENCH, "-n", "40", "-c", "2", "-k", "--rate", "200", "--interval", "50ms", "--intervals", "/dev/null",
                 Servers.url()])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("(ab's lines above, at a fixed rate: Time per request is -c x elapsed / requests", r.stdout)
        self.assertIn("\nIntervals: ", r.stdout)
        self.assertNotIn("--intervals FILE for every row", r.stdout)  # it was given
        if re.search(r"^Total:\s+0\s+0\s+[\d.]+\s+0\s+0$", r.stdout, re.M):
            self.assertIn("Note: every time in the table is under 0.5 ms", r.stdout)

    def test_an_open_file_limit_too_low_for_c_says_how_to_raise_it(self):
        import resource

        def low_limit():
            resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

        r = subprocess.run([MICROBENCH, "-q", "-n", "3000", "-c", "3000", Servers.url()], capture_output=True, text=True,
                           timeout=30, preexec_fn=low_limit)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("microbench: -c 3000 needs more than 3017 open files, but this process may open at most 1024 (its hard "
                      "limit, ulimit -Hn): raise it (as root: ulimit -Hn 4041 && ulimit -n 4041", r.stderr)
        self.assertNotIn("plan::", r.stderr)

    def test_hlog_usage(self):
        url = Servers.url()
        self.assert_usage_error(["-n", "5", "--hlog", "", url], "--hlog needs a file name")
        self.assert_usage_error(["-n", "5", "--interval", "0", "--hlog", "x.hlog", url], "--hlog needs intervals")
        self.assert_usage_error(["-n", "5", "--hlog", "-", "--json", "-", url], "would share stdout")
        for flag in ("--intervals", "--json", "--hgrm", "-e", "-g", "--html"):
            self.assert_usage_error(["-n", "5", "--hlog", "x", flag, "x", url], "--hlog and another output both write 'x'")
        self.assert_usage_error(["--self-test", "--hlog", "x.hlog"], "--hlog does not apply to --self-test")
        self.assert_usage_error(["-n", "5", "--interval-histograms", url], "--interval-histograms keeps them in --json: give --json FILE")
        self.assert_usage_error(["-n", "5", "--interval", "0", "--interval-histograms", "--json", "x.json", url],
                                "--interval-histograms needs intervals")

    def test_interval_files_regressions(self):
        url = Servers.url()
        # CSV rows and JSON on one stdout would interleave: the pair is refused.
        self.assert_usage_error(["-t", "1", "--rate", "10", "--intervals", "-", "--json", "-", url], "--intervals -")
        self.assert_usage_error(["-n", "5", "-e", "-", "--json", "-", url], "would share stdout")
        self.assert_usage_error(["-n", "5", "-g", "-", "-e", "-", url], "would share stdout")
        self.assert_usage_error(["-n", "5", "--hgrm", "-", "--json", "-", url], "would share stdout")
        with tempfile.TemporaryDirectory() as d:
            # A run that cannot start leaves an existing --intervals file as it was, and makes none.
            kept, made = os.path.join(d, "kept.csv"), os.path.join(d, "made.csv")
            with open(kept, "w") as f:
                f.write("yesterday's rows\n")
            for path in (kept, made):
                r = run([MICROBENCH, "-q", "-n", "5", "--intervals", path, "http://no-such-host.invalid/"])
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("cannot resolve", r.stderr)
                self.assertTrue(r.stdout.endswith("(be patient)...\n"), r.stdout)  # the banner's line is ended
            with open(kept) as f:
                self.assertEqual(f.read(), "yesterday's rows\n")
            self.assertFalse(os.path.exists(made))
            # A run that starts replaces it with its rows.
            r = run([MICROBENCH, "-q", "-t", "1", "--rate", "20", "--interval", "250ms", "--intervals", kept, url])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(kept) as f:
                rows = list(csv.reader(f))
            self.assertTrue(rows[0][0].startswith("start"), rows[0])
            self.assertGreaterEqual(len(rows), 5)
        # Interrupted while it waits to start, a run never started: the file is left as it was.
        with tempfile.TemporaryDirectory() as d:
            kept = os.path.join(d, "kept.csv")
            with open(kept, "w") as f:
                f.write("yesterday's rows\n")
            p = subprocess.Popen([MICROBENCH, "-q", "-n", "5", "--start-in", "30", "--intervals", kept, url],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(1)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=20)
            self.assertEqual(p.returncode, 130, err)
            with open(kept) as f:
                self.assertEqual(f.read(), "yesterday's rows\n")
        # A failed write says why it failed, not what errno held at the end of the run.
        for flag in ("--intervals", "--json", "-e", "-g", "--html", "--hgrm", "--hlog"):
            with self.subTest(flag=flag):
                rate = ["--rate", "20"] if flag != "--hgrm" else []  # at a fixed rate --hgrm wants a file's name (below)
                r = run([MICROBENCH, "-q", "-t", "1"] + rate + [flag, "/dev/full", url])
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("cannot write /dev/full: No space left on device", r.stderr)

    def test_duration_has_no_request_cap(self):
        # ab -t implies -n 50000; microbench runs for the time given, however many that is.
        t0 = time.monotonic()
        r = run([MICROBENCH, "-q", "-t", "3", "-c", "4", "-k", "--pipeline", "32", Servers.url()], timeout=20)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(time.monotonic() - t0, 8)
        complete = int(re.search(r"^Complete requests:\s+(\d+)$", r.stdout, re.M).group(1))
        self.assertGreater(complete, 50000)

    def test_a_timed_run_prints_progress_lines_when_stderr_is_not_a_terminal(self):
        # ab prints "Completed N requests" heartbeats with -t too; microbench one per tenth of the
        # duration, then ab's "Finished N requests" with the report's count.
        r = run([MICROBENCH, "-t", "1", "-c", "2", "-k", Servers.url()], timeout=20)
        self.assertEqual(r.returncode, 0, r.stderr)
        counts = [int(n) for n in re.findall(r"^Completed (\d+) requests$", r.stderr, re.M)]
        self.assertGreaterEqual(len(counts), 8, r.stderr)
        self.assertLessEqual(len(counts), 10, r.stderr)
        self.assertEqual(counts, sorted(counts))
        complete = int(re.search(r"^Complete requests:\s+(\d+)$", r.stdout, re.M).group(1))
        self.assertRegex(r.stderr, rf"\nFinished {complete} requests\n$")
        self.assertLessEqual(counts[-1], complete)
        r = run([MICROBENCH, "-q", "-t", "1", Servers.url()], timeout=20)
        self.assertEqual(r.stderr, "")

    def test_verbose_prints_the_request_as_ab_does(self):
        r = run([MICROBENCH, "-v", "2", "-n", "1", Servers.url("/factorial/5")])
        self.assertEqual(r.returncode, 0, r.stderr)
        # (text mode reads the request's CR LF as LF)
        self.assertIn("INFO: GET header == \n---\nGET /factorial/5 HTTP/1.1\nHost: 127.0.0.1:", r.stdout)
        self.assertIn("Accept: */*\nConnection: close\n\n\n---\n", r.stdout)
        r = run([MICROBENCH, "-v", "2", "-n", "1", "--json", "-", Servers.url("/factorial/5")])
        self.assertIn("INFO: GET header == ", r.stderr)  # stdout is the JSON's alone
        json.loads(r.stdout)

    def test_window_size_sets_the_socket_buffers(self):
        # The kernel reports twice the size asked for (its bookkeeping share): ss shows rb/tb 16384.
        p = subprocess.Popen([MICROBENCH, "-q", "-b", "8192", "-n", "4", "-c", "2", "-k", Servers.url("/delay/1500")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(0.7)
            ss = run(["ss", "-tmnH", "state", "established", "dst", f"127.0.0.1:{Servers.port}"]).stdout
        finally:
            p.communicate(timeout=20)
        buffers = re.findall(r"skmem:\(r\d+,rb(\d+),t\d+,tb(\d+)", ss)
        self.assertEqual(len(buffers), 2, ss)
        for rb, tb in buffers:
            self.assertEqual((int(rb), int(tb)), (16384, 16384), ss)


class ChecksAndGates(unittest.TestCase):
    def test_factorial_check_passes_on_both_forms(self):
        for path in ("/factorial/30", "/factorial?n=30", "/factorial/10000"):
            with self.subTest(path=path):
                r = run([MICROBENCH, "-q", "-n", "100", "-c", "4", "-k", "--check", "factorial", Servers.url(path)])
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn("Failed requests:        0\n", r.stdout)
                self.assertRegex(r.stdout, r"Goodput:\s+[\d.]+ correct responses/sec")
                self.assertNotIn("Gate broken", r.stdout + r.stderr)

    def test_wrong_factorial_fails_the_check_and_exits_3(self):
        with scripted_http(lambda _: (200, b'{"factorial": 3628801}')) as base:  # 10! + 1
            r = run([MICROBENCH, "-q", "-n", "30", "-c", "2", "-k", "--check", "factorial", f"{base}/factorial/10"])
        self.assertEqual(r.returncode, 3)
        self.assertIn("   (Connect: 0, Receive: 0, Length: 0, Exceptions: 30)\nFailure reasons:        check 30\n", r.stdout)
        self.assertIn("Gate broken: 30 responses failed the checks (reason check)", r.stderr)

    def test_when_no_response_succeeds_the_report_still_times_them_and_gives_their_length(self):
        # --expect-status 201 against a server answering 200 {"factorial":3628800}: every response fails its
        # check; the report shows their real length, their bytes and their total times, labelled.
        with tempfile.TemporaryDirectory() as d:
            saved = os.path.join(d, "out.json")
            r = run([MICROBENCH, "-n", "40", "-c", "2", "-k", "--expect-status", "201", "--latency", "--json", saved,
                     Servers.url("/factorial/10")])
            with open(saved) as f:
                doc = json.load(f)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("Document Length:        21 bytes\n", r.stdout)
        self.assertIn("HTML transferred:       840 bytes\n", r.stdout)
        self.assertIn("Note: no response succeeded: the times below are of all 40 whole responses, failed ones\nincluded", r.stdout)
        self.assertRegex(r.stdout, r"\nTotal:\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(\d+)\n")
        self.assertRegex(r.stdout, r"\n\s*99%\s+\d+\n")
        self.assertIn("40 failed ones included", r.stdout)  # the --latency section's extra column
        self.assertEqual(doc["latency_ns"]["total"]["count"], 0)
        self.assertEqual(doc["latency_ns"]["responses_total"]["count"], 40)
        self.assertEqual(doc["bytes"]["document_length"], 21)
        self.assertEqual(doc["bytes"]["body"], 840)

    def test_expect_status_gates_a_sometimes_503_service(self):
        # Every third answer is a 503 with a longer error page, the first one among them: the
        # 503s are check failures (exit 3), and ab's length rule is set by the first 200.
        def flaky(number):
            return (503, b"<html>Service Unavailable, try again later</html>") if number % 3 == 0 else (200, b"3628800")

        with scripted_http(flaky, threaded=False) as base:
            r = run([MICROBENCH, "-q", "-n", "30", "-c", "1", "-k", "--expect-status", "200", f"{base}/factorial/10"])
        self.assertEqual(r.returncode, 3, r.stdout)
        self.assertIn("Document Length:        7 bytes\n", r.stdout)
        self.assertIn("Failed requests:        10\n   (Connect: 0, Receive: 0, Length: 0, Exceptions: 10)\n", r.stdout)
        self.assertIn("Gate broken: 10 responses failed the checks (reason check)", r.stderr)

    def test_gates_say_which_broke_and_by_how_much(self):
        r = run([MICROBENCH, "-q", "-n", "50", "-c", "2", "-k", "--max-p99-ms", "0.000001", "--min-rps", "1e12",
                 Servers.url()])
        self.assertEqual(r.returncode, 3)
        self.assertRegex(r.stderr, r"Gate broken: p99 = [\d.]+ ms, above --max-p99-ms 0.000001 by [\d.]+ ms\n")
        self.assertRegex(r.stderr, r"Gate broken: [\d.]+ requests/s, below --min-rps 1000000000000 by [\d.]+\n")
        self.assertNotIn("Gate", r.stdout)  # the report is the report: verdicts go to stderr
        r = run([MICROBENCH, "-q", "-n", "20", "--expect-status", "200", "--max-failures", "5", Servers.url("/status/500")])
        self.assertEqual(r.returncode, 3)
        self.assertIn("Gate broken: 20 failed requests, above --max-failures 5 by 15", r.stderr)
        r = run([MICROBENCH, "-q", "-n", "20", "--max-failures", "0", "--max-p99.9-ms", "10000", Servers.url()])
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(r.stderr, "")  # -q: held gates say nothing

    def test_held_gates_say_so_one_line_each_unless_quiet(self):
        r = run([MICROBENCH, "-n", "20", "--expect-status", "200", "--max-failures", "0", "--max-p99.9-ms", "10000",
                 "--min-rps", "0.5", Servers.url()])
        self.assertEqual(r.returncode, 0, r.stderr)
        gates = [line for line in r.stderr.splitlines() if line.startswith("Gate")]
        self.assertEqual(len(gates), 4, r.stderr)
        self.assertEqual(gates[0], "Gate held: no response failed the checks")
        self.assertEqual(gates[1], "Gate held: 0 failed requests, within --max-failures 0")
        self.assertRegex(gates[2], r"^Gate held: p99.9 = [\d.]+ ms, within --max-p99.9-ms 10000$")
        self.assertRegex(gates[3], r"^Gate held: [\d.]+ requests/s, at least --min-rps 0.5$")

    def test_json_to_stdout_still_says_broken_gates_and_carries_every_verdict(self):
        # A CI job that keeps only the JSON still sees why it failed: the verdicts on stderr, and
        # every gate (held or broken, limit and figure) and the checks' verdict in the document.
        with scripted_http(lambda _: (200, b'{"factorial": 3628801}')) as base:  # 10! + 1
            r = run([MICROBENCH, "-q", "-n", "30", "-c", "2", "-k", "--check", "factorial", "--max-failures", "40",
                     "--min-rps", "1000000", "--json", "-", f"{base}/factorial/10"])
        self.assertEqual(r.returncode, 3)
        self.assertIn("Gate broken: 30 responses failed the checks (reason check)\n", r.stderr)
        self.assertRegex(r.stderr, r"Gate broken: [\d.]+ requests/s, below --min-rps 1000000 by [\d.]+\n")
        self.assertNotIn("Gate held", r.stderr)  # -q
        doc = json.loads(r.stdout)
        gates = doc["gates"]
        self.assertFalse(gates["passed"])
        self.assertEqual([(v["gate"], v["limit"], v["held"]) for v in gates["verdicts"]],
                         [("checks", 0, False), ("max-failures", 40, True), ("min-rps", 1000000, False)])
        self.assertEqual(gates["verdicts"][0]["figure"], 30)
        self.assertEqual(gates["verdicts"][1]["figure"], 30)
        self.assertAlmostEqual(gates["verdicts"][2]["figure"], doc["requests_per_second"], delta=0.01)

    def test_check_factorial_needs_a_factorial_url(self):
        r = run([MICROBENCH, "--check", "factorial", Servers.url("/echo")])
        self.assertEqual(r.returncode, 1)
        self.assertIn("--check factorial needs", r.stderr)


class OtherPrograms(unittest.TestCase):
    """microbench-server, microbench-inspect and microbench-device-selftest: -h, one line per bad
    argument, and failures that say what failed."""

    def program(self, name):
        return os.path.join(os.path.dirname(SERVER), name)

    def test_server_usage_and_refusals(self):
        server = self.program("microbench-server")
        for flag in ("-h", "--help"):
            r = run([server, flag])
            self.assertEqual((r.returncode, r.stderr), (0, ""))
            self.assertTrue(r.stdout.startswith("usage: microbench-server [-a ADDRESS] [-p PORT | -u PATH]"), r.stdout)
            self.assertIn("  -d SECONDS   stop after SECONDS", r.stdout)
        for args, line in ((["--bogus"], "unknown option '--bogus'"), (["-p"], "option -p needs a value"),
                           (["-p", "99999"], "-p needs a port from 0 to 65535, not '99999'"),
                           (["-t", "0"], "-t needs a thread count from 1 to 256, not '0'"),
                           (["-d", "x"], "-d needs seconds from 1 to 86400, not 'x'"),
                           (["-x", "900:200"], "-x needs CUT:CLOSE[:SEED], permille each, at most 1000 together, not '900:200'"),
                           (["--count-paths", "0"], "--count-paths needs a count of targets from 1 to 1,000,000, not '0'"),
                           (["--header-timeout", "-1"], "--header-timeout needs seconds from 0 to 86400 (0: never), not '-1'"),
                           (["--idle-timeout", "86401"], "--idle-timeout needs seconds from 0 to 86400 (0: never), not '86401'"),
                           (["--max-connections", "0"], "--max-connections needs a count from 1 to 10,000,000, not '0'")):
            with self.subTest(args=args):
                r = run([server, *args])
                self.assertEqual(r.returncode, 1)
                self.assertTrue(r.stderr.startswith(f"microbench-server: {line}\nusage: microbench-server"), r.stderr)
        r = run([server, "-p", str(Servers.port), "-d", "1"])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, f"microbench-server: cannot serve on 127.0.0.1 port {Servers.port}: the port is in use: "
                                   "another program listens there (pick another -p, or -p 0 for a free one)\n")
        r = run([server, "-a", "10.99.99.99", "-d", "1"])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "microbench-server: cannot serve on 10.99.99.99 port 0: the address is not one of this "
                                   "machine's (see ip addr)\n")
        r = run([server, "-a", "no such host", "-d", "1"])
        self.assertEqual(r.returncode, 2)
        self.assertIn(": -a needs an address of this machine", r.stderr)
        # Listening beyond loopback says so once, with the bounds on what clients may hold (in a
        # network namespace of its own: nothing outside can reach it). On loopback it says nothing.
        r = run(["unshare", "-n", server, "-a", "0.0.0.0", "-d", "1", "--idle-timeout", "0", "--max-connections", "50"])
        if r.returncode != 0 and r.stderr.startswith("unshare"):
            self.skipTest(f"no network namespace of its own here: {r.stderr.strip()}")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "microbench-server: warning: listening beyond loopback (0.0.0.0): whoever reaches this "
                                   "machine can load it; at most 50 connections, header timeout 60 s, idle timeout none "
                                   "(--max-connections, --header-timeout, --idle-timeout)\n")
        final = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual([final[k] for k in ("header_timeouts", "idle_timeouts", "evicted", "refused", "open")], [0] * 5)
        for loopback in ("127.0.0.2", "::1", "localhost"):  # no warning on loopback
            r = run([server, "-a", loopback, "-d", "1", "--header-timeout", "0"])
            self.assertEqual((r.returncode, r.stderr), (0, ""), loopback)

    def test_server_counts_paths(self):
        # --count-paths: /stats?paths says each target's requests (at most N targets), and so does the
        # JSON printed at the end; the client's --by-target rows say the same.
        server = subprocess.Popen([self.program("microbench-server"), "--count-paths", "3", "-d", "120"],
                                  stdout=subprocess.PIPE, text=True)
        try:
            port = int(server.stdout.readline().split()[-1])
            r = run([MICROBENCH, "-n", "50", "-c", "2", "-k", "--by-target", f"http://127.0.0.1:{port}/echo?k={{0..4}}"])
            self.assertEqual(r.returncode, 0, r.stderr)
            stats = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/stats?paths", timeout=10).read())
            self.assertEqual(len(stats["paths"]), 3)
            self.assertTrue(all(count == 10 for count in stats["paths"].values()), stats["paths"])
            self.assertEqual(stats["paths_other"], 20)
            for path, count in stats["paths"].items():
                self.assertRegex(r.stdout, rf"\n +10 +10 +0 +0 +0 .* {re.escape(path)}\n")
            server.send_signal(signal.SIGTERM)  # it stops and prints the counts
            final = json.loads(server.communicate(timeout=30)[0].strip().splitlines()[-1])
            self.assertEqual((final["paths"], final["paths_other"]), (stats["paths"], 20))
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()

    def test_connect_to(self):
        # A name nothing resolves, reached at the reference server; the report says where; a bad rule is refused.
        rule = f"microbench.invalid:81:127.0.0.1:{Servers.port}"
        r = run([MICROBENCH, "-n", "6", "-c", "2", "--connect-to", "other.invalid:81:127.0.0.1:1", "--connect-to", rule,
                 "--check", "factorial", "http://microbench.invalid:81/factorial/5"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Complete requests:      6\n", r.stdout)
        self.assertIn(f"Note: connected to 127.0.0.1:{Servers.port} by --connect-to, not to the URL's host and port.\n",
                      r.stdout)
        r = run([MICROBENCH, "--connect-to", "a:x:b:1", Servers.url()])
        self.assertEqual(r.returncode, 1)
        self.assertTrue(r.stderr.startswith("microbench: --connect-to needs HOST:PORT:ADDR:PORT (each may be empty; IPv6 "
                                            "in brackets), not 'a:x:b:1'\n"), r.stderr)

    def test_rate_ramps_and_stages(self):
        # --stages and --rate FROM:TO: the run lasts the stages, the report and the JSON give each; refusals name why.
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            r = run([MICROBENCH, "-c", "4", "--rate", "100", "--stages", "300ms:500,200ms:500", "--json", out,
                     Servers.url("/factorial/5")])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("the stages' average; each stage by its requests' intended send times:", r.stdout)
            self.assertRegex(r.stdout, r"\n +1 +100\.00 +500\.00 +0\.300 +90\.0 ")
            with open(out) as f:
                stages = json.load(f)["open_model"]["stages"]
            self.assertEqual([(s["start_ms"], s["duration_ms"], s["from"], s["to"]) for s in stages],
                             [(0, 300, 100, 500), (300, 200, 500, 500)])
            r = run([MICROBENCH, "-c", "4", "-n", "30", "--stages", "2s:500", Servers.url("/factorial/5")])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("Complete requests:      30\n", r.stdout)  # -n caps a staged run
            r = run([MICROBENCH, "-c", "4", "--rate", "0:400", "--duration", "500ms", Servers.url("/factorial/5")])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout, r"\n +1 +0\.00 +400\.00 +0\.500 +100\.0 ")
        for args, said in ((["--rate", "100:200"], "--rate FROM:TO ramps over the duration: give -t"),
                           (["--stages", "1s:100", "-t", "2"], "--stages make the run as long as they are together: drop -t"),
                           (["--stages", "1s:x"], "--stages needs DURATION:RATE,..."),
                           (["--rate", "0:0", "-t", "1"], "--rate needs requests per second"),
                           (["--rate", "1:2", "-t", "1", "--stages", "1s:1"], "give one")):
            r = run([MICROBENCH] + args + [Servers.url("/")])
            self.assertEqual(r.returncode, 1, args)
            self.assertIn(said, r.stderr)

    def test_find_capacity(self):
        # --find-capacity against a server of known capacity (/work?us=5000 on one thread: at most 200/s): the
        # steps on stderr, the table, the JSON; what it needs and refuses.
        server = subprocess.Popen([SERVER, "-t", "1", "-d", "60"], stdout=subprocess.PIPE, text=True)
        try:
            port = int(server.stdout.readline().split()[-1])
            with tempfile.TemporaryDirectory() as d:
                out = os.path.join(d, "c.json")
                r = run([MICROBENCH, "--find-capacity", "--max-p99-ms", "100", "-c", "20", "-k", "--start-rate", "50",
                         "--warmup", "100ms", "--step", "300ms", "--min-responses", "10", "--json", out,
                         f"http://127.0.0.1:{port}/work?us=5000"])
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn("Capacity search: p99 <= 100 ms", r.stdout)
                self.assertRegex(r.stderr, r"step at 50\.0/s: achieved [\d.]+/s, p99 [\d.]+ ms, \d+ failed: ")
                with open(out) as f:
                    found = json.load(f)["capacity_search"]
                self.assertGreaterEqual(found["capacity"], 50)  # the first step held; the knee's accuracy is
                # test_capacity's (a loaded machine may fail a step near it here)
                self.assertLessEqual(found["capacity"], 220)
                self.assertIn(f"Capacity: {found['capacity']:.1f} requests/s held the objective", r.stdout)
                self.assertEqual(len(r.stderr.splitlines()) - 1, len(found["steps"]))  # a line each, after the first
        finally:
            server.terminate()
            server.wait()
        for args, said in ((["--find-capacity"], "--find-capacity needs its objective: --max-p99-ms X"),
                           (["--find-capacity", "--max-p99-ms", "5", "-n", "10"], "drop -n, -t, --rate and --stages"),
                           (["--find-capacity", "--max-p99-ms", "5", "--min-rps", "5"], "drop the other gates"),
                           (["--find-capacity", "--max-p99-ms", "5", "--hlog", "x"], "--find-capacity writes its table"),
                           (["--start-rate", "5"], "are for --find-capacity")):
            r = run([MICROBENCH] + args + [Servers.url("/")])
            self.assertEqual(r.returncode, 1, args)
            self.assertIn(said, r.stderr)
        r = run([MICROBENCH, "--check-args", "--find-capacity", "--max-p99-ms", "5", "--max-failures-ratio", "0",
                 "--warmup", "0", Servers.url("/")])  # a strict objective and no warm-up, as the library takes them
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("searching for the capacity", r.stdout)
        r = run([MICROBENCH, "--find-capacity", "--max-p99-ms", "5", "--warmup", "100ms", "--step", "100ms",
                 "http://127.0.0.1:9/"])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("no request got a connection", r.stderr)

    def test_junit(self):
        # --junit: JUnit XML in the shape Jenkins and GitLab read, parsed with xml.etree: a single run, the suite,
        # a compare; a broken gate a <failure> with figure, limit and difference; a gate over no response broken.
        import xml.etree.ElementTree as ET

        def parsed(path):
            root = ET.parse(path).getroot()
            self.assertEqual(root.tag, "testsuites")
            total = failed = 0
            for suite in root.findall("testsuite"):
                cases = suite.findall("testcase")
                broken = [c for c in cases if c.find("failure") is not None]
                self.assertEqual(int(suite.get("tests")), len(cases))
                self.assertEqual(int(suite.get("failures")), len(broken))
                self.assertEqual((suite.get("errors"), suite.get("skipped")), ("0", "0"))
                self.assertRegex(suite.get("timestamp"), r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")
                float(suite.get("time"))
                for c in cases:
                    self.assertTrue(c.get("classname").startswith("microbench"))
                    float(c.get("time"))
                total += len(cases)
                failed += len(broken)
            self.assertEqual((int(root.get("tests")), int(root.get("failures"))), (total, failed))
            return root

        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "j.xml")
            r = run([MICROBENCH, "-n", "50", "-c", "2", "--check", "factorial", "--max-p99-ms", "0.000001",
                     "--min-rps", "1", "--junit", out, Servers.url("/factorial/5")])
            self.assertEqual(r.returncode, 3, r.stderr)
            root = parsed(out)
            suites = root.findall("testsuite")
            self.assertEqual([s.get("name") for s in suites], [Servers.url("/factorial/5")])
            cases = {c.get("name"): c for c in suites[0].findall("testcase")}
            self.assertEqual(sorted(cases), ["checks", "max-p99-ms", "min-rps"])
            self.assertIsNone(cases["checks"].find("failure"))
            failure = cases["max-p99-ms"].find("failure")
            self.assertRegex(failure.get("message"), r"^p99 = [\d.]+ ms, above --max-p99-ms 0\.000001 by [\d.]+ ms$")
            self.assertEqual(failure.get("type"), "gate")
            r = run([MICROBENCH, "-n", "4", "--check", "factorial", "--junit", out, "http://127.0.0.1:9/factorial/5"])
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(parsed(out).find("testsuite/testcase/failure").get("message"), "no response came back to check")
            r = run([MICROBENCH, "--suite", "--scale", "0.01", "--junit", out, Servers.url("/"), Servers.url("/echo")])
            self.assertEqual(r.returncode, 0, r.stderr)
            names = [s.get("name") for s in parsed(out).findall("testsuite")]
            self.assertEqual(len(names), 10)
            self.assertEqual(names[0], "A basic load " + Servers.url("/"))
            self.assertEqual(names[9], "B stress " + Servers.url("/echo"))
            r = run([MICROBENCH, "--compare", "-n", "20", "--rounds", "1", "--min-rps", "1", "--junit", out,
                     Servers.url("/"), Servers.url("/echo")])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual([s.get("name") for s in parsed(out).findall("testsuite")],
                             ["A " + Servers.url("/"), "B " + Servers.url("/echo")])
        r = run([MICROBENCH, "--junit", "-", Servers.url("/")])
        self.assertEqual(r.returncode, 1)

    def test_unix_socket(self):
        # microbench-server -u and microbench --unix-socket: a checked run, the note, the JSON, the refusals,
        # the file gone when the server exits.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.sock")
            server = subprocess.Popen([SERVER, "-u", path, "-t", "2", "-d", "30"], stdout=subprocess.PIPE, text=True)
            try:
                self.assertEqual(server.stdout.readline(), f"microbench-server listening on the Unix socket {path}\n")
                out = os.path.join(d, "r.json")
                r = run([MICROBENCH, "-n", "200", "-c", "4", "-k", "--unix-socket", path, "--check", "factorial",
                         "--json", out, "http://localhost/factorial/7"])
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("Complete requests:      200\nFailed requests:        0\n", r.stdout)
                self.assertIn(f"Note: connected to the Unix socket {path}, not to the URL's host and port.\n", r.stdout)
                with open(out) as f:
                    saved = json.load(f)
                self.assertEqual((saved["connected_to"], saved["connections"]["backlog_waits"]), (f"unix:{path}", 0))
                r = run([MICROBENCH, "merge", out, "--json", "-"])  # read back and written again
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(json.loads(r.stdout)["connected_to"], f"unix:{path}")
                r = run([SERVER, "-u", path])
                self.assertEqual(r.returncode, 2)
                self.assertIn(f"cannot serve on the Unix socket {path}: a server listens there", r.stderr)
                r = run([MICROBENCH, "--suite", "--scale", "0.01", "--unix-socket", path, "http://localhost/factorial/7"])
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn(f"Running the suite against http://localhost/factorial/7 over the Unix socket {path}\n",
                              r.stderr)
            finally:
                server.terminate()
                server.wait()
            self.assertFalse(os.path.exists(path))
            r = run([MICROBENCH, "-n", "3", "--unix-socket", path, "http://localhost/"])
            self.assertEqual(r.returncode, 2)
            self.assertIn(f"microbench: the Unix socket {path} cannot be reached: all 3 connection attempts failed",
                          r.stderr)
        r = run([MICROBENCH, "--unix-socket", "x" * 108, "http://localhost/"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("--unix-socket needs a path of 1 to 107 bytes", r.stderr)
        r = run([MICROBENCH, "--unix-socket", "/tmp/x.sock", "-B", "127.0.0.1", "http://localhost/"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("--unix-socket and -B do not go together", r.stderr)
        r = run([SERVER, "-u", "/tmp/x.sock", "-p", "80"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("-u listens on a Unix socket: give no -a or -p with it", r.stderr)

    def test_inspect_usage(self):
        inspect = self.program("microbench-inspect")
        r = run([inspect, "-h"])
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith("usage: microbench-inspect"), r.stdout)
        r = run([inspect, "--bogus", "http://127.0.0.1/"])
        self.assertEqual(r.returncode, 2)
        self.assertTrue(r.stderr.startswith("microbench-inspect: unknown option '--bogus'\nusage:"), r.stderr)

    def test_device_selftest_says_what_it_checked_and_why_it_failed(self):
        selftest = self.program("microbench-device-selftest")
        r = run([selftest, "-h"])
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith("usage: microbench-device-selftest [URL]"), r.stdout)
        r = run([selftest, Servers.url("/factorial/12")])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, rf"^self-test ok: {re.escape(Servers.url('/factorial/12'))}: 200/200 correct, 0 failed, p99 [\d.]+ ms\n$")
        r = run([selftest, "http://127.0.0.1:9/factorial/10"])
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "self-test FAILED: http://127.0.0.1:9/factorial/10: 0/200 correct, 200 failed (connect 200), "
                                   "no response to time\n")  # not p99 0.00 ms
        r = run([selftest, Servers.url("/status/503")])
        self.assertRegex(r.stdout, r": 0/200 correct, 200 failed \(check 200\), p99 [\d.]+ ms of the wrong responses\n$")
        for args in (["a", "b"], ["-x"], ["http://[::1"]):
            with self.subTest(args=args):
                r = run([selftest, *args])
                self.assertEqual(r.returncode, 2)
                self.assertIn("usage: microbench-device-selftest [URL]", r.stderr)


class SuiteCompareSelfTest(unittest.TestCase):
    def test_suite_one_table_and_json(self):
        r = run([MICROBENCH, "-q", "--suite", "--scale", "0.01", "--check", "factorial", "--json", "-",
                 Servers.url("/factorial/12")], timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual([d["scenario"] for d in doc], ["basic load", "latency", "failure rate", "keep-alive", "stress"])
        self.assertEqual([d["result"]["config"]["concurrency"] for d in doc], [100, 1, 10, 10, 200])
        self.assertEqual([d["result"]["requests"]["completed"] for d in doc], [100, 10, 100, 100, 500])
        self.assertTrue(doc[3]["result"]["config"]["keep_alive"])
        text = run([MICROBENCH, "-q", "--suite", "--scale", "0.01", Servers.url(), Servers.url("/factorial?n=10")], timeout=120)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertEqual(len(re.findall(r"^(basic load|latency|failure rate|keep-alive|stress) ", text.stdout, re.M)), 15)
        self.assertIn("Side by side", text.stdout)
        self.assertNotIn("scenario", text.stderr)  # -q
        # Without -q it says which scenario runs, as it starts it.
        said = run([MICROBENCH, "--suite", "--scale", "0.01", Servers.url()], timeout=120)
        self.assertEqual(said.returncode, 0, said.stderr)
        self.assertEqual(re.findall(r"^  scenario (\d)/5, ([\w -]+): -n (\d+) -c (\d+)( -k)?$", said.stderr, re.M),
                         [("1", "basic load", "100", "100", ""), ("2", "latency", "10", "1", ""),
                          ("3", "failure rate", "100", "10", ""), ("4", "keep-alive", "100", "10", " -k"),
                          ("5", "stress", "500", "200", "")])

    def test_compare(self):
        r = run([MICROBENCH, "-q", "--compare", "--rounds", "2", "-n", "300", "-c", "3", "-k",
                 Servers.url(), Servers.url("/factorial?n=10")], timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 rounds, alternating", r.stdout)
        self.assertRegex(r.stdout, r"\nworkload\s+[\d.]+\s+[\d.]+\s+[\d.]+")
        # Over ranges with the factorial check of each n: each side's verdict, and with --by-target its targets.
        a, b = Servers.url("/factorial/{0..5}"), Servers.url("/factorial?n={0..5}")
        r = run([MICROBENCH, "-q", "--compare", "--rounds", "2", "-n", "60", "-c", "2", "-k", "--check", "factorial",
                 "--by-target", a, b], timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("\nChecks, A (its median round): right for n = 0..5\n", r.stdout)
        self.assertIn("\nChecks, B (its median round): right for n = 0..5\n", r.stdout)
        self.assertIn(f"\nA = {a}:\nBy target, the worst first (6 of 6):\n", r.stdout)
        self.assertRegex(r.stdout, r"\n +10 +10 +0 +0 +0 .* /factorial\?n=5\n")

    def test_self_test(self):
        r = run([MICROBENCH, "--self-test", "--scale", "0.01"], timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Self-test passed: 1620 requests, 0 failed.", r.stdout)
        self.assertEqual(len(re.findall(r"/factorial(/100|\?n=100)$", r.stdout, re.M)), 10)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, proc):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited with {proc.returncode}")
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


class RealPeers(unittest.TestCase):
    def test_compare_nginx_with_the_reference_server(self):
        import tempfile
        here = os.path.dirname(os.path.abspath(__file__))
        work = tempfile.mkdtemp(prefix="microbench-cli-nginx-")
        port = free_port()
        with open(os.path.join(here, "..", "nginx", "nginx.conf.in")) as f:
            conf = f.read().replace("@DIR@", work).replace("@PORT@", str(port))
        with open(f"{work}/nginx.conf", "w") as f:
            f.write(conf)
        nginx = subprocess.Popen(["/usr/sbin/nginx", "-p", work + "/", "-c", f"{work}/nginx.conf", "-e", f"{work}/error.log"])
        try:
            wait_for_port(port, nginx)
            r = run([MICROBENCH, "-q", "--compare", "--rounds", "2", "-n", "1000", "-c", "5", "-k", "--json", f"{work}/c.json",
                     f"http://127.0.0.1:{port}/factorial/10", Servers.url("/factorial?n=10")], timeout=120)
            with open(f"{work}/c.json") as f:
                doc = json.load(f)
        finally:
            nginx.send_signal(signal.SIGQUIT)
            nginx.wait(timeout=10)
            subprocess.run(["rm", "-rf", work])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\nworkload\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+")
        self.assertEqual(doc["a"]["requests"]["completed"], 1000)
        self.assertEqual(doc["b"]["requests"]["completed"], 1000)
        self.assertEqual(doc["a"]["bytes"]["document_length"], 7)   # nginx: 3628800
        self.assertEqual(doc["b"]["bytes"]["document_length"], 7)   # /factorial?n=10: 3628800

    def test_flask_sleeping_endpoint_overlaps_requests(self):
        port = free_port()
        here = os.path.dirname(os.path.abspath(__file__))
        flask = subprocess.Popen(["/usr/bin/python3", os.path.join(here, "..", "..", "examples", "peers", "flask", "app.py"), str(port)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for_port(port, flask)
            r = run([MICROBENCH, "-q", "-n", "40", "-c", "10", "-k", "--expect-status", "200",
                     f"http://127.0.0.1:{port}/sleep"], timeout=60)
        finally:
            flask.terminate()
            flask.wait(timeout=10)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Failed requests:        0\n", r.stdout)
        taken = float(re.search(r"^Time taken for tests:\s+([\d.]+)", r.stdout, re.M).group(1))
        self.assertGreaterEqual(taken, 0.4)  # ceil(40/10) · 0.1 s
        self.assertLess(taken, 3.0)          # not 40 · 0.1 s: the requests overlap


class KeepAliveNote(unittest.TestCase):
    def test_server_that_closes_every_connection(self):
        class Handler(http.server.BaseHTTPRequestHandler):  # HTTP/1.0: closes after each response
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        try:
            r = run([MICROBENCH, "-n", "40", "-c", "2", "-k", f"http://127.0.0.1:{httpd.server_address[1]}/"])
        finally:
            httpd.shutdown()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Keep-Alive requests:    0\n", r.stdout)
        self.assertIn("Note: keep-alive was requested, but the server closed every connection", r.stdout)


class Ranges(unittest.TestCase):
    def test_a_range_sends_each_target_in_turn_counted_by_the_server(self):
        seen, lock = {}, threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                with lock:
                    seen[self.path] = seen.get(self.path, 0) + 1
                body = self.path.encode()  # each target's own length
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{httpd.server_address[1]}/t/{{08..11}}?k={{a,bb}}"
        try:
            with tempfile.TemporaryDirectory() as d:
                saved = os.path.join(d, "result.json")
                r = run([MICROBENCH, "-n", "80", "-c", "4", "-W", "2", "-k", "--json", saved, url])
                with open(saved) as f:
                    doc = json.load(f)
        finally:
            httpd.shutdown()
            httpd.server_close()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(seen, {f"/t/{n}?k={k}": 10 for n in ("08", "09", "10", "11") for k in ("a", "bb")})
        self.assertIn("Document Path:          /t/{08..11}?k={a,bb}\nTargets:                8, in turn\n", r.stdout)
        self.assertIn("Failed requests:        0\n", r.stdout)  # each target's length is its own
        self.assertEqual(doc["config"]["targets"], 8)
        self.assertEqual(doc["requests"]["completed"], 80)
        r = run([MICROBENCH, "--check-args", "-n", "8", url])
        self.assertIn("8 targets in turn", r.stdout)
        # Shards take stretches of the URLs (4 each), saved and merged back into the whole plan.
        seen.clear()
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{httpd.server_address[1]}/t/{{08..11}}?k={{a,bb}}"
        try:
            with tempfile.TemporaryDirectory() as d:
                saved = [os.path.join(d, f"{i}.json") for i in range(2)]
                for i in range(2):
                    r = run([MICROBENCH, "-q", "-n", "40", "-c", "2", "-k", "--shard", f"{i}/2", "--json", saved[i], url])
                    self.assertEqual(r.returncode, 0, r.stderr)
                merged = os.path.join(d, "merged.json")
                r = run([MICROBENCH, "merge", *saved, "--json", merged])
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(merged) as f:
                    whole = json.load(f)
                with open(saved[1]) as f:
                    second = json.load(f)
            r = run([MICROBENCH, "-q", "--compare", "-n", "16", "-c", "2", "-k", "--rounds", "1", url, url])
            self.assertEqual(r.returncode, 0, r.stderr)
        finally:
            httpd.shutdown()
            httpd.server_close()
        self.assertEqual(second["config"]["targets"], 4)  # read back from each shard's JSON
        self.assertEqual(whole["config"]["targets"], 8)
        self.assertEqual(whole["requests"]["completed"], 40)  # -n 40 split between the shards
        # 5 each from the shards (20 requests over each one's 4 URLs), 4 each from --compare (16 a side)
        self.assertEqual(seen, {f"/t/{n}?k={k}": 5 + 4 for n in ("08", "09", "10", "11") for k in ("a", "bb")})
        r = run([MICROBENCH, "--check-args", "--no-ranges", url])  # braces as typed: one URL
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("targets", r.stdout)

    def test_each_once_in_a_seeded_random_order(self):
        seen, lock = [], threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                with lock:
                    seen.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        url = f"http://127.0.0.1:{httpd.server_address[1]}/e/{{1..60}}"
        orders = []
        for seed in ("4", "4", "5"):
            seen.clear()
            r = run([MICROBENCH, "-c", "1", "-k", "--each-once", "--order", "random", "--seed", seed, "--json", "-", url])
            self.assertEqual(r.returncode, 0, r.stderr)
            doc = json.loads(r.stdout)
            self.assertEqual(doc["requests"]["completed"], 60)
            self.assertEqual(doc["config"]["order"], f"each once, random (seed {seed})")
            self.assertEqual(sorted(seen), sorted(f"/e/{n}" for n in range(1, 61)))  # each exactly once
            orders.append(list(seen))
        self.assertEqual(orders[0], orders[1])  # the same seed, the same shuffle
        self.assertNotEqual(orders[0], orders[2])
        self.assertNotEqual(orders[0], [f"/e/{n}" for n in range(1, 61)])
        seen.clear()
        r = run([MICROBENCH, "-q", "-c", "3", "-W", "3", "-k", "--each-once", url])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Targets:                60, each once, in turn\n", r.stdout)
        self.assertEqual(sorted(seen), sorted(f"/e/{n}" for n in range(1, 61)))
        for args, words in ((["-n", "60", "--each-once", url], "--each-once sends each target once: give no -n"),
                            (["--seed", "3", url], "--seed is for --arrivals poisson and --order random"),
                            (["--order", "shuffled", url], "--order knows 'sequential' and 'random'"),
                            (["-c", "61", "--each-once", url], "--each-once sends 60 requests, one a target: -c 61"),
                            (["-t", "2", "--each-once", url], "--each-once sends each target once: give no -t")):
            with self.subTest(args=args):
                r = run([MICROBENCH, "--check-args", *args])
                self.assertEqual(r.returncode, 1, r.stdout)
                self.assertIn(words, r.stderr.splitlines()[0])

    def test_range_faults_are_refused_naming_the_byte(self):
        for args, words in (
                (["http://127.0.0.1:1/f/{1..x}"], "bad URL 'http://127.0.0.1:1/f/{1..x}': a range in a URL is {A..B}"),
                (["http://127.0.0.1:1/f/{1..3"], "has no closing '}' (ranges do not nest) (at byte 21)"),
                (["http://127.0.0.1:{1,2}/"], "not in its scheme, host or port (at byte 17)"),
                (["http://127.0.0.1:1/{1..1000}/{1..1001}"], "stand for more than 1,000,000 URLs (at byte 29)"),
                (["--check", "factorial", "http://127.0.0.1:1/factorial/{7,x}"],
                 "--check factorial needs /factorial/{n} or /factorial?n=N URLs, n at most 100,000: "
                 "http://127.0.0.1:1/factorial/x has none"),
                (["--check", "factorial", "http://127.0.0.1:1/factorial/{7,100001}"],
                 "n at most 100,000: http://127.0.0.1:1/factorial/100001 has none"),
                (["--suite", "http://127.0.0.1:1/{a,b}"], "URL ranges are for a single run or --compare, not --suite"),
                (["http://127.0.0.1:1/{a,b c}"], "bad URL 'http://127.0.0.1:1/b c' (of 'http://127.0.0.1:1/{a,b c}')"),
                (["--by-target", "--suite", "http://127.0.0.1:1/"], "--by-target")):
            with self.subTest(args=args):
                r = run([MICROBENCH, "--check-args", *args])
                self.assertEqual(r.returncode, 1, r.stdout)
                self.assertIn(words, r.stderr.splitlines()[0])


class FactorialOfEachN(unittest.TestCase):
    """--check factorial over a range: each URL's own n, against a server answering n! in a signed
    64-bit integer (ASP.NET Core's `long`), then one that is right."""

    def serve(self, wrap):
        seen, lock = {}, threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                with lock:
                    seen[self.path] = seen.get(self.path, 0) + 1
                n = int(self.path.rsplit("/", 1)[1])
                f = math.factorial(n)
                if wrap:
                    f &= 2 ** 64 - 1
                    f = f - 2 ** 64 if f >= 2 ** 63 else f
                body = str(f).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        return f"http://127.0.0.1:{httpd.server_address[1]}/factorial/{{0..30}}", seen

    def test_the_verdict_says_where_answers_turn_wrong_and_the_table_shows_each_target(self):
        url, seen = self.serve(wrap=True)
        with tempfile.TemporaryDirectory() as d:
            saved = os.path.join(d, "r.json")
            r = run([MICROBENCH, "-q", "-n", "93", "-c", "3", "-k", "--check", "factorial", "--by-target",
                     "--json", saved, url])
            with open(saved) as f:
                doc = json.load(f)
        self.assertEqual(r.returncode, 3, r.stderr)  # wrong answers break the checks' gate
        self.assertIn("\nChecks:                right for n = 0..20; wrong from n = 21 "
                      "(status 200, answer -4249290049419214848)\n", r.stdout)
        self.assertEqual(seen, {f"/factorial/{n}": 3 for n in range(31)})
        table = r.stdout.split("By target, the worst first (31 of 31):\n")[1].splitlines()
        self.assertEqual(table[0].split(), ["Requests", "Completed", "Failed", "Non-2xx", "Wrong", "p50", "ms",
                                            "p99", "ms", "Target"])
        rows = [line.split() for line in table[1:32]]
        self.assertEqual([row[-1] for row in rows[:10]], [f"/factorial/{n}" for n in range(21, 31)])  # worst first
        self.assertTrue(all(row[:5] == ["3", "0", "3", "0", "3"] for row in rows[:10]), rows[:10])
        self.assertTrue(all(row[:5] == ["3", "3", "0", "0", "0"] for row in rows[10:]), rows[10:])
        by = doc["by_target"]
        self.assertEqual(by["targets"], 31)
        self.assertEqual(by["verdict"], [{"from": 0, "to": 20, "outcome": "right"},
                                         {"from": 21, "to": 30, "outcome": "wrong"}])
        self.assertEqual(by["first_wrong"], {"n": 21, "status": 200, "answer": "-4249290049419214848", "cut": False})
        self.assertEqual({row["target"]: (row["completed"], row["wrong"]) for row in by["rows"]},
                         {f"/factorial/{n}": (0, 3) if n > 20 else (3, 0) for n in range(31)})
        self.assertEqual(doc["config"]["checks"], "body is n! of each target's n")

    def test_right_answers_pass_and_unsent_n_are_named(self):
        url, seen = self.serve(wrap=False)
        r = run([MICROBENCH, "-q", "-n", "62", "-c", "2", "-k", "--check", "factorial", url])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("\nChecks:                right for n = 0..30\n", r.stdout)
        self.assertNotIn("By target", r.stdout)  # the table only with --by-target
        r = run([MICROBENCH, "-q", "-n", "12", "-c", "2", "-k", "--check", "factorial", url])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("\nChecks:                right for n = 0..11; not sent: n = 12..30\n", r.stdout)


class TargetsFile(unittest.TestCase):
    """--targets FILE|-: vegeta's formats against a server that records each request as it came."""

    def serve(self):
        seen, lock = [], threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def answer(self):
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length) if length else b""
                with lock:
                    seen.append((self.command, self.path, self.headers.get("X-Mine"), body))
                n = self.path.rsplit("/", 1)[1]
                text = str(math.factorial(int(n))).encode() if n.isdigit() else b"ok"
                self.send_response(200)
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(text)

            do_GET = do_POST = do_HEAD = answer

            def log_message(self, *args):
                pass

        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        return f"http://127.0.0.1:{httpd.server_address[1]}", seen

    def test_each_target_goes_as_written_in_turn(self):
        base, seen = self.serve()
        with tempfile.TemporaryDirectory() as d:
            body = os.path.join(d, "body.json")
            with open(body, "w") as f:
                f.write('{"n": 7}')
            targets = os.path.join(d, "targets.txt")
            with open(targets, "w", newline="") as f:  # CRLF lines, a comment, a body file
                f.write(f"# three targets\r\nGET {base}/factorial/5\r\nX-Mine: yes\r\n\r\n"
                        f"POST {base}/things\r\nContent-Type: application/json\r\n@{body}\r\n\r\n"
                        f"HEAD {base}/factorial/9\r\n")
            r = run([MICROBENCH, "-q", "-n", "30", "-c", "3", "-k", "--by-target", "--targets", targets])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Targets:                3, in turn\n", r.stdout)
        self.assertIn("Failed requests:        0\n", r.stdout)
        counts = {}
        for method, path, mine, sent in seen:
            counts[(method, path, mine, sent)] = counts.get((method, path, mine, sent), 0) + 1
        self.assertEqual(counts, {("GET", "/factorial/5", "yes", b""): 10, ("POST", "/things", None, b'{"n": 7}'): 10,
                                  ("HEAD", "/factorial/9", None, b""): 10})
        self.assertIn("By target, the worst first (3 of 3):", r.stdout)
        # JSON lines on stdin, with --check factorial taking each target's n.
        seen.clear()
        lines = "".join(json.dumps({"method": "GET", "url": f"{base}/factorial/{n}"}) + "\n" for n in (3, 4))
        r = subprocess.run([MICROBENCH, "-q", "-n", "8", "-c", "2", "-k", "--check", "factorial", "--targets", "-"],
                           input=lines, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Checks:                right for n = 3..4\n", r.stdout)
        self.assertEqual(sorted(path for _, path, _, _ in seen), ["/factorial/3"] * 4 + ["/factorial/4"] * 4)

    def test_a_fault_is_named_by_file_line_and_column_and_nothing_is_sent(self):
        base, seen = self.serve()
        other = "http://127.0.0.1:1"
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.txt")
            for text, words in (
                    (f"GET {base}/a\n\nGET {other}/b\n", f"t.txt:3:1: another origin: '{other}/b' (the first "
                                                            f"target's is 127.0.0.1:{base.rsplit(':', 1)[1]}, http)"),
                    (f"GET {base}/a\nX-A 1\n", "t.txt:2:1: a targets line must be 'METHOD URL'"),
                    (f"GET {base}/a\n@/no/such/body\n", "t.txt:2:1: a target's @FILE body cannot be read"),
                    (f"# c\nGET  {base}:9/a\n", "t.txt:2:"),
                    ("\n# nothing\n", "t.txt:3:1: the targets file holds no target"),
                    (f'{{"url":"{base}/a"}}\n{{"url":"{base}/b","body":"%%%"}}\n', "t.txt:2:1: a JSON target"),
                    (f"GET {base}/a\nContent-Length: 3\n", "t.txt:1:1: bad request: Content-Length header does not "
                                                           "match the body size")):
                with self.subTest(text=text):
                    with open(path, "w") as f:
                        f.write(text)
                    r = run([MICROBENCH, "-n", "2", "--targets", path])
                    self.assertEqual(r.returncode, 1, r.stdout)
                    self.assertIn(words, r.stderr.splitlines()[0])
            with open(path, "w") as f:
                f.write(f"GET {base}/a\n\nGET {base}/b\n")
            for args, words in ((["-n", "2", "--targets", path, f"{base}/c"], "--targets gives the URLs: give no URL"),
                                (["--suite", "--targets", path, f"{base}/c"], "--targets does not apply to --suite"),
                                (["-n", "2", "--targets", os.path.join(d, "none")], "cannot read --targets file"),
                                (["-n", "2", "--check", "factorial", "--targets", path],
                                 "t.txt:1:1: --check factorial needs")):
                with self.subTest(args=args):
                    r = run([MICROBENCH, *args])
                    self.assertEqual(r.returncode, 1, r.stdout)
                    self.assertIn(words, r.stderr.splitlines()[0])
        self.assertEqual(seen, [])


class Uvicorn(unittest.TestCase):
    """The classic FastAPI /factorial/{n} endpoint, served by uvicorn from Debian's packages."""

    @classmethod
    def setUpClass(cls):
        cls.port = free_port()
        here = os.path.dirname(os.path.abspath(__file__))
        cls.server = subprocess.Popen(["/usr/bin/python3", "-m", "uvicorn", "fastapi_app:app", "--host", "127.0.0.1",
                                       "--port", str(cls.port), "--log-level", "warning"], cwd=here)
        wait_for_port(cls.port, cls.server)

    @classmethod
    def tearDownClass(cls):
        cls.server.terminate()
        cls.server.wait(timeout=10)

    def test_keeps_alive_where_ab_cannot(self):
        """ab's HTTP/1.0 keep-alive gets nothing from uvicorn; microbench's HTTP/1.1 does."""
        url = f"http://127.0.0.1:{self.port}/factorial/10"
        ab = run(["ab", "-k", "-n", "200", "-c", "4", url])
        mb = run([MICROBENCH, "-k", "-n", "200", "-c", "4", url])
        self.assertIn("Keep-Alive requests:    0\n", ab.stdout)
        self.assertIn("Keep-Alive requests:    200\n", mb.stdout)
        self.assertIn("Document Length:        21 bytes\n", mb.stdout)
        self.assertNotIn("Note: keep-alive", mb.stdout)

    def test_suite_with_the_factorial_check_against_fastapi(self):
        r = run([MICROBENCH, "-q", "--suite", "--scale", "0.005", "--check", "factorial", "--json", "-",
                 f"http://127.0.0.1:{self.port}/factorial/1000"], timeout=180)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(sum(d["result"]["requests"]["completed"] for d in doc), 100 + 5 + 50 + 50 + 250)
        self.assertEqual(sum(d["result"]["requests"]["failed"] for d in doc), 0)


if __name__ == "__main__":
    MICROBENCH, SERVER = sys.argv[1], sys.argv[2]
    HLOG = os.path.join(os.path.dirname(os.path.abspath(MICROBENCH)), "microbench-hlog")
    Servers.start()
    try:
        result = unittest.main(argv=[sys.argv[0], "-v"], exit=False).result
    finally:
        Servers.stop()
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed or result.testsRun == 0 else 0)
