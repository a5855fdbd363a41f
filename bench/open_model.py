#!/usr/bin/env python3
"""Open-model benchmark: how exactly microbench holds a fixed rate, what the rate costs it, and the
same against the open-model tools from npm (autocannon -R, loadtest --rps).

1. Rate: against nginx (1 worker, pinned to CPU 1), each tool pinned to CPU 0 in turn sends
   R requests/s for --seconds over 50 keep-alive connections, R = 1,000, 10,000 and 50,000.
   Reported per tool and rate, medians over rounds: achieved rate (the tool's completed requests
   over its own elapsed time), its error against R, client CPU per request (user+sys from wait4),
   and microbench's schedule-lag p99.
2. Cost of the rate: the client CPU per request at a fixed rate against a closed loop at the
   same throughput. The closed loop is one connection to the reference server's /delay?us=D
   (pinned to CPU 1), so its responses come one at a time; the fixed-rate run then asks for
   exactly the rate the closed loop achieved, same URL, 8 connections.

    bench/open_model.py [--build build] [--rounds 3] [--seconds 10] [--npm DIR]

Needs nginx and taskset; autocannon and loadtest from npm (npm install --prefix DIR autocannon
loadtest; a tool that is missing is left out); build microbench-cli, microbench-server and
microbench-rusage first.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from compare import NGINX_CONF, free_port, raise_nofile, run_measured, wait_for

PATH = "/factorial/10"
RATES = (1_000, 10_000, 50_000)
CONNECTIONS = 50


def microbench(build, url, args):
    """Runs the CLI with --json -: (JSON document, client CPU seconds)."""
    out, cpu, _, rc = run_measured([f"{build}/examples/microbench", "-q", "-k", "--json", "-"] + args + [url], build)
    if rc != 0:
        raise RuntimeError(f"microbench {args} exited {rc}:\n{out}")
    return json.loads(out[out.index("{"):out.rindex("}") + 1]), cpu


def rate_run(tool, rate, url, seconds, build, npm):
    """One fixed-rate run: achieved requests/s, client CPU µs per request, schedule-lag p99 µs (microbench only)."""
    if tool == "microbench":
        doc, cpu = microbench(build, url, ["-c", str(CONNECTIONS), "-t", str(seconds), "--rate", str(rate)])
        done = doc["requests"]["completed"]
        lag = doc["open_model"]["schedule_lag_ns"]["percentiles"]["99"] / 1000
        return {"rate": doc["requests_per_second"], "us": cpu / done * 1e6, "lag_p99_us": lag, "failed": doc["requests"]["failed"]}
    if tool == "autocannon":
        out, cpu, _, _ = run_measured([f"{npm}/node_modules/.bin/autocannon", "-c", str(CONNECTIONS), "-R", str(rate), "-d",
                                       str(seconds), "--json", url], build)
        doc = json.loads(out[out.index("{"):out.rindex("}") + 1])
        done = doc["2xx"]
        return {"rate": done / doc["duration"], "us": cpu / done * 1e6, "lag_p99_us": None,
                "failed": doc["errors"] + doc["timeouts"] + doc["non2xx"]}
    out, cpu, _, _ = run_measured([f"{npm}/node_modules/.bin/loadtest", "-k", "-c", str(CONNECTIONS), "--rps", str(rate), "-t",
                                   str(seconds), url], build)
    done = int(re.search(r"Completed requests:\s+(\d+)", out).group(1))
    errors = int(re.search(r"Total errors:\s+(\d+)", out).group(1))
    elapsed = float(re.search(r"Total time:\s+([\d.]+) s", out).group(1))
    return {"rate": done / elapsed, "us": cpu / done * 1e6, "lag_p99_us": None, "failed": errors}


def cost_pair(build, port, delay_us, seconds):
    """A closed loop of one connection, then the same throughput at a fixed rate: CPU µs per request of each."""
    url = f"http://127.0.0.1:{port}/delay?us={delay_us}"
    closed, closed_cpu = microbench(build, url, ["-c", "1", "-t", str(seconds)])
    rate = closed["requests_per_second"]
    fixed, fixed_cpu = microbench(build, url, ["-c", "8", "-t", str(seconds), "--rate", f"{rate:.0f}"])
    return {"throughput": rate, "closed_us": closed_cpu / closed["requests"]["completed"] * 1e6,
            "fixed_us": fixed_cpu / fixed["requests"]["completed"] * 1e6, "fixed_rate": fixed["requests_per_second"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--npm", default=os.environ.get("MICROBENCH_NPM", "npm-tools"), help="folder with node_modules/.bin")
    args = ap.parse_args()
    if not os.path.exists("/usr/sbin/nginx") or not shutil.which("taskset"):
        sys.exit("open_model.py: needs nginx and taskset")
    tools = ["microbench"] + [t for t in ("autocannon", "loadtest") if os.path.exists(f"{args.npm}/node_modules/.bin/{t}")]

    workdir = tempfile.mkdtemp(prefix="microbench-open-")
    nginx_port, server_port = free_port(), free_port()
    with open(f"{workdir}/nginx.conf", "w") as f:
        f.write(NGINX_CONF.format(dir=workdir, port=nginx_port, path=PATH))
    nginx = subprocess.Popen(["taskset", "-c", "1", "/usr/sbin/nginx", "-p", workdir + "/", "-c", f"{workdir}/nginx.conf",
                              "-e", f"{workdir}/error.log"], preexec_fn=raise_nofile)
    server = subprocess.Popen(["taskset", "-c", "1", f"{args.build}/examples/microbench-server", "-p", str(server_port), "-d",
                               "3600"], stdout=subprocess.DEVNULL)
    rates = {(t, r): [] for t in tools for r in RATES}
    costs = {d: [] for d in (1000, 60, 0)}
    try:
        wait_for(nginx_port)
        wait_for(server_port)
        url = f"http://127.0.0.1:{nginx_port}{PATH}"
        for i in range(args.rounds):
            for r in RATES:
                order = tools[i % len(tools):] + tools[:i % len(tools)]  # rotate who goes first
                for t in order:
                    rates[(t, r)].append(rate_run(t, r, url, args.seconds, args.build, args.npm))
                print(f"round {i + 1} rate {r}: " + ", ".join(f"{t} {rates[(t, r)][-1]['rate']:.1f}/s "
                                                              f"{rates[(t, r)][-1]['us']:.1f} µs" for t in tools), file=sys.stderr)
            for d in costs:
                costs[d].append(cost_pair(args.build, server_port, d, max(3, args.seconds // 2)))
                c = costs[d][-1]
                print(f"round {i + 1} cost /delay?us={d}: {c['throughput']:.0f}/s closed {c['closed_us']:.1f} µs, "
                      f"fixed {c['fixed_us']:.1f} µs", file=sys.stderr)
    finally:
        for p in (nginx, server):
            p.terminate()
            p.wait()
        shutil.rmtree(workdir, ignore_errors=True)

    med = statistics.median
    print(f"\n1. Fixed rate against nginx, {CONNECTIONS} keep-alive connections, {args.seconds} s, medians of {args.rounds} "
          "rounds (client on CPU 0, nginx on CPU 1)\n")
    print("| target/s | tool | achieved/s | error | client CPU µs/request | schedule lag p99 µs | failed |")
    print("|---|---|---|---|---|---|---|")
    for r in RATES:
        for t in tools:
            rs = rates[(t, r)]
            achieved = med(x["rate"] for x in rs)
            lag = "" if t != "microbench" else f"{med(x['lag_p99_us'] for x in rs):.0f}"
            print(f"| {r:,} | {t} | {achieved:,.1f} | {100 * (achieved - r) / r:+.2f} % | {med(x['us'] for x in rs):.1f} | "
                  f"{lag} | {max(x['failed'] for x in rs)} |")
    print(f"\n2. Client CPU per request at a fixed rate vs a closed loop at the same throughput (the reference "
          f"server's /delay?us=D, one connection closed, 8 at the fixed rate), medians of {args.rounds} rounds\n")
    print("| delay | throughput/s | closed loop µs/request | fixed rate µs/request | fixed / closed |")
    print("|---|---|---|---|---|")
    for d, cs in costs.items():
        print(f"| {d} µs | {med(c['throughput'] for c in cs):,.0f} | {med(c['closed_us'] for c in cs):.1f} | "
              f"{med(c['fixed_us'] for c in cs):.1f} | {med(c['fixed_us'] / c['closed_us'] for c in cs):.2f} |")


if __name__ == "__main__":
    main()
