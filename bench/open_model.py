#!/usr/bin/env python3
"""Open-model benchmark: how exactly microbench holds a fixed rate, what the rate costs it, and the
same against the open-model tools from npm (autocannon -R, loadtest --rps).

1. Rate: against nginx (1 worker, pinned to CPU 1), each tool pinned to CPU 0 in turn sends
   R requests/s for --seconds over 50 keep-alive connections, R = 1,000, 10,000 and 50,000.
   Reported per tool and rate, medians over rounds: achieved rate (the tool's completed requests
   over its own elapsed time), its error against R, client CPU per request (user+sys from wait4),
   and microbench's schedule-lag p99.
   microbench runs once per batch lag (--batch-lags, µs: 0 sends every request at its own time;
   the library's default is 50).
2. Cost of the rate: the client CPU per request at a fixed rate against a closed loop at the
   same throughput. The closed loop is one connection to the reference server's /delay?us=D
   (pinned to CPU 1), so its responses come one at a time; the fixed-rate run then asks for
   exactly the rate the closed loop achieved, same URL, 8 connections, the default batch lag.
3. Where the cost goes: after the rounds, one more run of each (under `perf stat`, so its CPU is
   not used) counts per request the client's wakes (context switches), system calls and timer
   programmings (hrtimer_start). And microbench-wake-cost prints what one wake costs here: a
   timer's against a response's, and a send the kernel times itself (io_uring).

    bench/open_model.py [--build build] [--rounds 3] [--seconds 10] [--npm DIR] [--batch-lags 0,50]

Needs nginx and taskset, and perf for the counts (their columns stay empty without it); autocannon and loadtest
from npm (npm install --prefix DIR autocannon loadtest; a tool that is missing is left out);
build microbench-cli, microbench-server, microbench-rusage and microbench-wake-cost first.
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


# What the counting runs count, per request: wakes, system calls, timer programmings.
EVENTS = {"context-switches": "wakes", "raw_syscalls:sys_enter": "syscalls", "timer:hrtimer_start": "timers"}


def perf_works():
    p = subprocess.run(["perf", "stat", "-x,", "-e", ",".join(EVENTS), "--", "true"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True) if shutil.which("perf") else None
    return p is not None and p.returncode == 0 and "not supported" not in p.stderr


def measured(cmd, build, count):
    """run_measured, or with count=True under perf stat: (output, CPU s, {wakes, syscalls, timers} or None)."""
    if not count:
        out, cpu, _, rc = run_measured(cmd, build)
        return out, cpu, rc, None
    with tempfile.NamedTemporaryFile("r", suffix=".perf") as f:
        out, cpu, _, rc = run_measured(["perf", "stat", "-x,", "-e", ",".join(EVENTS), "-o", f.name, "--"] + cmd, build)
        counts = {}
        for line in f.read().splitlines():
            fields = line.split(",")
            event = fields[2].split(":u")[0] if len(fields) > 2 else ""  # perf may add a :u modifier
            if event in EVENTS and fields[0].isdigit():
                counts[EVENTS[event]] = int(fields[0])
    if len(counts) != len(EVENTS):
        print(f"open_model.py: perf counted {sorted(counts)} of {sorted(EVENTS.values())} for {cmd[0]}", file=sys.stderr)
    return out, cpu, rc, counts


def microbench(build, url, args, count=False):
    """Runs the CLI with --json -: (JSON document, client CPU seconds, counts or None)."""
    out, cpu, rc, counts = measured([f"{build}/examples/microbench", "-q", "-k", "--json", "-"] + args + [url], build, count)
    if rc != 0:
        raise RuntimeError(f"microbench {args} exited {rc}:\n{out}")
    return json.loads(out[out.index("{"):out.rindex("}") + 1]), cpu, counts


def per_request(counts, done):
    return {k: v / done for k, v in counts.items()} if counts else None


def rate_run(tool, rate, url, seconds, build, npm, count=False):
    """One fixed-rate run: achieved requests/s, client CPU µs per request, schedule-lag p99 µs (microbench
    only), failures, and with count=True the counts per request. A microbench tool is "microbench:LAG"."""
    if tool.startswith("microbench"):
        doc, cpu, counts = microbench(build, url, ["-c", str(CONNECTIONS), "-t", str(seconds), "--rate", str(rate),
                                                   "--max-batch-lag", tool.split(":")[1]], count)
        done = doc["requests"]["completed"]
        lag = doc["open_model"]["schedule_lag_ns"]["percentiles"]["99"] / 1000
        return {"rate": doc["requests_per_second"], "us": cpu / done * 1e6, "lag_p99_us": lag, "failed": doc["requests"]["failed"],
                "counts": per_request(counts, done)}
    if tool == "autocannon":
        out, cpu, _, counts = measured([f"{npm}/node_modules/.bin/autocannon", "-c", str(CONNECTIONS), "-R", str(rate), "-d",
                                        str(seconds), "--json", url], build, count)
        doc = json.loads(out[out.index("{"):out.rindex("}") + 1])
        done = doc["2xx"]
        return {"rate": done / doc["duration"], "us": cpu / done * 1e6, "lag_p99_us": None,
                "failed": doc["errors"] + doc["timeouts"] + doc["non2xx"], "counts": per_request(counts, done)}
    out, cpu, _, counts = measured([f"{npm}/node_modules/.bin/loadtest", "-k", "-c", str(CONNECTIONS), "--rps", str(rate), "-t",
                                    str(seconds), url], build, count)
    done = int(re.search(r"Completed requests:\s+(\d+)", out).group(1))
    errors = int(re.search(r"Total errors:\s+(\d+)", out).group(1))
    elapsed = float(re.search(r"Total time:\s+([\d.]+) s", out).group(1))
    return {"rate": done / elapsed, "us": cpu / done * 1e6, "lag_p99_us": None, "failed": errors, "counts": per_request(counts, done)}


def cost_pair(build, port, delay_us, seconds, count=False):
    """A closed loop of one connection, then the same throughput at a fixed rate: CPU µs per request of
    each, and with count=True the counts per request of each."""
    url = f"http://127.0.0.1:{port}/delay?us={delay_us}"
    closed, closed_cpu, closed_counts = microbench(build, url, ["-c", "1", "-t", str(seconds)], count)
    rate = closed["requests_per_second"]
    fixed, fixed_cpu, fixed_counts = microbench(build, url, ["-c", "8", "-t", str(seconds), "--rate", f"{rate:.0f}"], count)
    closed_done, fixed_done = closed["requests"]["completed"], fixed["requests"]["completed"]
    return {"throughput": rate, "closed_us": closed_cpu / closed_done * 1e6, "fixed_us": fixed_cpu / fixed_done * 1e6,
            "fixed_rate": fixed["requests_per_second"], "closed_counts": per_request(closed_counts, closed_done),
            "fixed_counts": per_request(fixed_counts, fixed_done)}


def counts_cells(c):
    return " | ".join(f"{c[k]:.2f}" if c and k in c else "" for k in EVENTS.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--npm", default=os.environ.get("MICROBENCH_NPM", "npm-tools"), help="folder with node_modules/.bin")
    ap.add_argument("--batch-lags", default="0,50", help="microbench's --max-batch-lag values to run, µs")
    args = ap.parse_args()
    if not os.path.exists("/usr/sbin/nginx") or not shutil.which("taskset"):
        sys.exit("open_model.py: needs nginx and taskset")
    tools = [f"microbench:{lag}" for lag in args.batch_lags.split(",")]
    tools += [t for t in ("autocannon", "loadtest") if os.path.exists(f"{args.npm}/node_modules/.bin/{t}")]
    count = perf_works()
    wake_cost = subprocess.run(["taskset", "-c", "0,1", f"{args.build}/bench/microbench-wake-cost", "100", "20000"],
                               stdout=subprocess.PIPE, text=True, timeout=120).stdout

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
        counted = {}
        if count:  # one more run of each, only for its counts
            for r in RATES:
                for t in tools:
                    counted[(t, r)] = rate_run(t, r, url, args.seconds, args.build, args.npm, count=True)["counts"]
            for d in costs:
                counted[d] = cost_pair(args.build, server_port, d, max(3, args.seconds // 2), count=True)
    finally:
        for p in (nginx, server):
            p.terminate()
            p.wait()
        shutil.rmtree(workdir, ignore_errors=True)

    med = statistics.median
    print(f"\n1. Fixed rate against nginx, {CONNECTIONS} keep-alive connections, {args.seconds} s, medians of {args.rounds} "
          "rounds (client on CPU 0, nginx on CPU 1)\n")
    print("| target/s | tool | achieved/s | error | client CPU µs/request | schedule lag p99 µs | failed "
          "| wakes/request | syscalls/request | timers/request |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in RATES:
        for t in tools:
            rs = rates[(t, r)]
            achieved = med(x["rate"] for x in rs)
            lag = "" if not t.startswith("microbench") else f"{med(x['lag_p99_us'] for x in rs):.0f}"
            name = t if not t.startswith("microbench") else f"microbench, batch lag {t.split(':')[1]} µs"
            print(f"| {r:,} | {name} | {achieved:,.1f} | {100 * (achieved - r) / r:+.2f} % | {med(x['us'] for x in rs):.1f} | "
                  f"{lag} | {max(x['failed'] for x in rs)} | {counts_cells(counted.get((t, r)))} |")
    print(f"\n2. Client CPU per request at a fixed rate vs a closed loop at the same throughput (the reference "
          f"server's /delay?us=D, one connection closed, 8 at the fixed rate), medians of {args.rounds} rounds\n")
    print("| delay | throughput/s | closed loop µs/request | fixed rate µs/request | fixed / closed "
          "| closed: wakes, syscalls, timers /request | fixed: wakes, syscalls, timers /request |")
    print("|---|---|---|---|---|---|---|")
    for d, cs in costs.items():
        n = counted.get(d, {})
        print(f"| {d} µs | {med(c['throughput'] for c in cs):,.0f} | {med(c['closed_us'] for c in cs):.1f} | "
              f"{med(c['fixed_us'] for c in cs):.1f} | {med(c['fixed_us'] / c['closed_us'] for c in cs):.2f} | "
              f"{counts_cells(n.get('closed_counts')).replace(' | ', ', ')} | {counts_cells(n.get('fixed_counts')).replace(' | ', ', ')} |")
    print(f"\n3. What one wake costs the client's thread here (microbench-wake-cost 100 20000, CPU 0, its peer on CPU 1)\n")
    print("\n".join("    " + line for line in wake_cost.splitlines()))


if __name__ == "__main__":
    main()
