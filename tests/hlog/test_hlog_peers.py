#!/usr/bin/env python3
"""microbench's interval logs against HdrHistogram's own implementations, both ways.

  test_hlog_peers.py MICROBENCH MICROBENCH_SERVER MICROBENCH_HLOG WORK_DIR

1. microbench runs against its reference server, at a fixed rate and in a closed loop, with
   --hlog and --json. HdrHistogram.NET (NuGet HdrHistogram 2.5.0, tests/hlog/HdrNet) and
   hdr-histogram-js (npm 3.0.1, tests/hlog/hdr_js.js) read each log; microbench-hlog reads it
   too. Per tag, all three must find the same rows and counts — the counts the JSON
   gives for the same run — and the same min, percentiles and max, equal within the histogram's
   value equivalence (the bucket a value falls in), and equivalent to the JSON's.
2. HdrHistogram.NET (UTF-16 text, .NET's deflate, no Adler-32) and hdr-histogram-js (pako's
   deflate) write logs; microbench-hlog reads each with the figures its writer printed.
Exit 0 when every comparison holds; each one is printed.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
PERCENTILES = ["0", "50", "90", "99", "99.9", "99.99"]
failures = 0


def check(what, ok):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


def lowest_equivalent(v, digits=3):
    """HdrHistogram's lowest value equivalent to v, for lowest discernible value 1."""
    sub_bucket_bits = (2 * 10 ** digits - 1).bit_length()  # 2048 sub-buckets for 3 digits
    shift = max(v.bit_length(), sub_bucket_bits) - sub_bucket_bits
    return (v >> shift) << shift


def equivalent(a, b):
    return lowest_equivalent(a) == lowest_equivalent(b)


def run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def peer_figures(text):
    """TAG ROWS COUNT P0 P50 … P99.99 MAX lines -> {tag: [rows, count, p0, …, max]}."""
    return {line.split()[0]: [int(x) for x in line.split()[1:]] for line in text.splitlines() if line.strip()}


def microbench_figures(hlog_tool, log):
    """microbench-hlog's table (ms with 6 decimals: whole ns) in the peers' form."""
    figures = {}
    for line in run([hlog_tool, str(log)]).splitlines():
        cells = line.split()
        if len(cells) == 11 and re.fullmatch(r"\d+", cells[1]):
            ns = [round(float(c) * 1e6) for c in cells[3:10]]
            figures[cells[0]] = [int(cells[1]), int(cells[2])] + ns
    return figures


def compare(what, mine, theirs):
    check(f"{what}: the same tags ({', '.join(sorted(theirs))})", sorted(mine) == sorted(theirs) and mine)
    for tag in sorted(set(mine) & set(theirs)):
        a, b = mine[tag], theirs[tag]
        check(f"{what}, {tag}: {a[0]} rows, {a[1]} values each side", a[:2] == b[:2])
        names = ["min" if p == "0" else p + "%" for p in PERCENTILES] + ["max"]
        for name, x, y in zip(names, a[2:], b[2:]):
            if not equivalent(x, y):
                check(f"{what}, {tag}: {name} {x} ns against {y} ns, not equivalent", False)
        check(f"{what}, {tag}: min, percentiles and max equivalent", all(equivalent(x, y) for x, y in zip(a[2:], b[2:])))


def json_figures(result, rows, fixed_rate):
    """The JSON's histograms in the peers' form, per tag (rows from the log)."""
    lat = result["latency_ns"]
    om = result.get("open_model") or {}
    sources = {"response": om.get("response_ns"), "service": lat["total"], "schedule_lag": om.get("schedule_lag_ns")} if fixed_rate \
        else {"total": lat["total"]}
    out = {}
    for tag, h in sources.items():
        p = h["percentiles"]
        out[tag] = [rows[tag], h["count"], h["min"]] + [p[k] for k in PERCENTILES[1:]] + [h["max"]]
    return out


def main():
    microbench, server_program, hlog_tool, work = sys.argv[1], sys.argv[2], sys.argv[3], pathlib.Path(sys.argv[4])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = dict(os.environ, DOTNET_NOLOGO="1", DOTNET_CLI_TELEMETRY_OPTOUT="1", DOTNET_SKIP_FIRST_TIME_EXPERIENCE="1")
    run(["dotnet", "build", str(HERE / "HdrNet"), "-c", "Release", "--artifacts-path", str(work / "dotnet"), "--nologo", "-v", "quiet"], env=env)
    hdr_net = ["dotnet", str(work / "dotnet" / "bin" / "HdrNet" / "release" / "hdr-net.dll")]
    run(["npm", "install", "--prefix", str(work / "js"), "--no-audit", "--no-fund", "--no-save", "hdr-histogram-js@3.0.1"])
    js_env = dict(os.environ, NODE_PATH=str(work / "js" / "node_modules"))
    hdr_js = ["node", str(HERE / "hdr_js.js")]

    server = subprocess.Popen([server_program, "-p", "0"], stdout=subprocess.PIPE, text=True)
    try:
        port = re.search(r"port (\d+)", server.stdout.readline()).group(1)
        url = f"http://127.0.0.1:{port}/factorial/20"
        runs = {"fixed rate": ["-n", "3000", "-c", "8", "--rate", "1500", "--interval", "500ms"],
                "closed loop": ["-n", "20000", "-c", "4", "--interval", "100ms"]}
        for name, flags in runs.items():
            log, result = work / (name.replace(" ", "_") + ".hlog"), work / (name.replace(" ", "_") + ".json")
            run([microbench, "-q", *flags, "--hlog", str(log), "--json", str(result), url])
            mine = microbench_figures(hlog_tool, log)
            compare(f"{name}: HdrHistogram.NET read microbench's log", mine, peer_figures(run([*hdr_net, "read", str(log)])))
            compare(f"{name}: hdr-histogram-js read microbench's log", mine, peer_figures(run([*hdr_js, "read", str(log)], env=js_env)))
            data = json.loads(result.read_text())
            rows = {tag: f[0] for tag, f in mine.items()}
            check(f"{name}: the log has every tag, each in more than one interval",
                  sorted(rows) == (["response", "schedule_lag", "service"] if "--rate" in flags else ["total"]) and min(rows.values()) > 1)
            if sorted(rows) == sorted(json_figures(data, dict.fromkeys(rows, 0), "--rate" in flags)):
                compare(f"{name}: microbench's log against its JSON", mine, json_figures(data, rows, "--rate" in flags))
    finally:
        server.terminate()
        server.wait(timeout=30)

    for name, writer, env_ in (("HdrHistogram.NET", hdr_net, None), ("hdr-histogram-js", hdr_js, js_env)):
        log = work / (name + ".hlog")
        theirs = peer_figures(run([*writer, "write", str(log)], env=env_))
        compare(f"microbench read {name}'s log", microbench_figures(hlog_tool, log), theirs)
    print(f"{failures} failed" if failures else "hlog peers: every comparison holds")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
