#!/usr/bin/env python3
"""Side-by-side client benchmark: microbench vs wrk vs ab vs a minimal "floor" client.

nginx (1 worker, `return 200 "3628800"`, access log off) runs pinned to CPU 1 on 127.0.0.1;
each client runs pinned to CPU 0, tools alternating in rounds. For every run we take the
client's own CPU time (user+sys from wait4) and peak RSS, and report per scenario the median
over rounds of: client CPU µs per request, its ratio to the floor's *in the same round*,
requests/s, mean latency, peak RSS.

    bench/compare.py [--build build] [--rounds 3] [--scenarios ka10,ka100,ka1,close10,ka1000,ka10000]

Needs nginx, ab (apache2-utils), wrk and taskset; build the targets first:
cmake --build build --target microbench-load microbench-floor microbench-rusage
"""
import argparse
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SCENARIOS = {
    # name: (keep_alive, concurrency, requests, wrk seconds)
    "ka10": (True, 10, 100_000, 2),
    "ka100": (True, 100, 100_000, 2),
    "ka1": (True, 1, 20_000, 2),
    "close10": (False, 10, 20_000, 2),
    "ka1000": (True, 1000, 100_000, 2),
    "ka10000": (True, 10000, 100_000, 3),
}
PATH = "/factorial/10"

NGINX_CONF = """daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 16000; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    server {{
        listen 127.0.0.1:{port} backlog=16384;
        location = {path} {{ default_type text/plain; return 200 "3628800"; }}
    }}
}}
"""


def raise_nofile():
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port):
    """Waits until something listens on 127.0.0.1:port (at most 10 s)."""
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def response_length(port, keep_alive):
    req = f"GET {PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n" + ("" if keep_alive else "Connection: close\r\n") + "\r\n"
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(req.encode())
        data = b""
        while b"\r\n\r\n" not in data:
            data += s.recv(4096)
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(re.search(rb"Content-Length: (\d+)", head, re.I).group(1))
        while len(body) < length:
            body += s.recv(4096)
        return len(head) + 4 + length


def run_measured(cmd, build):
    """Runs cmd pinned to CPU 0 under microbench-rusage: (output, CPU s, peak RSS KiB, exit code)."""
    p = subprocess.run(["taskset", "-c", "0", f"{build}/bench/microbench-rusage"] + cmd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=180)
    m = re.search(r"rusage user_s=([\d.]+) sys_s=([\d.]+) maxrss_kib=(\d+) exit=(\d+)", p.stdout)
    if not m:
        raise RuntimeError(f"no rusage line from {cmd}:\n{p.stdout}")
    return p.stdout, float(m.group(1)) + float(m.group(2)), int(m.group(3)), int(m.group(4))


def measure(tool, scenario, port, build, lengths):
    keep_alive, c, n, seconds = SCENARIOS[scenario]
    url = f"http://127.0.0.1:{port}{PATH}"
    if tool == "microbench":
        cmd = [f"{build}/bench/microbench-load", url, str(n), str(c), "1" if keep_alive else "0"]
    elif tool == "floor":
        cmd = [f"{build}/bench/microbench-floor", "127.0.0.1", str(port), str(n), str(c), "1" if keep_alive else "0",
               str(lengths[keep_alive]), PATH]
    elif tool == "ab":
        cmd = ["ab", "-q", "-n", str(n), "-c", str(c)] + (["-k"] if keep_alive else []) + [url]
    elif tool == "wrk":
        cmd = ["wrk", "-t1", f"-c{c}", f"-d{seconds}s"] + ([] if keep_alive else ["-H", "Connection: close"]) + [url]
    out, cpu, rss, rc = run_measured(cmd, build)
    if tool in ("microbench", "floor"):
        requests = int(re.search(r"requests=(\d+)", out).group(1))
        elapsed = float(re.search(r"seconds=([\d.]+)", out).group(1))
        latency_us = float(re.search(r"mean_latency_us=([\d.]+)", out).group(1))
    elif tool == "ab":
        requests = int(re.search(r"Complete requests:\s+(\d+)", out).group(1))
        failed = int(re.search(r"Failed requests:\s+(\d+)", out).group(1))
        requests -= failed
        elapsed = float(re.search(r"Time taken for tests:\s+([\d.]+)", out).group(1))
        latency_us = float(re.search(r"Time per request:\s+([\d.]+) \[ms\] \(mean\)", out).group(1)) * 1000
    else:
        m = re.search(r"(\d+) requests in ([\d.]+)(\w+)", out)
        requests = int(m.group(1))
        elapsed = float(m.group(2)) * {"ms": 1e-3, "s": 1, "m": 60}[m.group(3)]
        lat = re.search(r"Latency\s+([\d.]+)(\w+)", out)
        latency_us = float(lat.group(1)) * {"us": 1, "ms": 1e3, "s": 1e6}[lat.group(2)]
    if requests == 0:
        raise RuntimeError(f"{tool} {scenario}: no requests\n{out}")
    return {"us_per_req": cpu / requests * 1e6, "rps": requests / elapsed, "latency_us": latency_us,
            "rss_mib": rss / 1024, "requests": requests}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scenarios", default="ka10,ka100,ka1,close10,ka1000,ka10000")
    ap.add_argument("--tools", default="floor,microbench,wrk,ab")
    args = ap.parse_args()
    for prog in ("nginx", "ab", "wrk", "taskset"):
        if not shutil.which(prog) and not os.path.exists(f"/usr/sbin/{prog}"):
            sys.exit(f"compare.py: {prog} is missing")
    scenarios = args.scenarios.split(",")
    tools = args.tools.split(",")

    workdir = tempfile.mkdtemp(prefix="microbench-bench-")
    port = free_port()
    with open(f"{workdir}/nginx.conf", "w") as f:
        f.write(NGINX_CONF.format(dir=workdir, port=port, path=PATH))
    nginx = subprocess.Popen(["taskset", "-c", "1", "/usr/sbin/nginx", "-p", workdir + "/", "-c", f"{workdir}/nginx.conf",
                              "-e", f"{workdir}/error.log"], preexec_fn=raise_nofile)
    try:
        wait_for(port)
        lengths = {True: response_length(port, True), False: response_length(port, False)}
        results = {(s, t): [] for s in scenarios for t in tools}
        for r in range(args.rounds):
            for s in scenarios:
                order = tools[r % len(tools):] + tools[:r % len(tools)]  # rotate who goes first
                round_results = {t: measure(t, s, port, args.build, lengths) for t in order}
                for t in tools:
                    res = round_results[t]
                    res["ratio"] = res["us_per_req"] / round_results["floor"]["us_per_req"] if "floor" in round_results else 0
                    res["lat_ratio"] = res["latency_us"] / round_results["floor"]["latency_us"] if "floor" in round_results else 0
                    results[(s, t)].append(res)
                print(f"round {r + 1} {s}: " + ", ".join(f"{t} {round_results[t]['us_per_req']:.2f} µs/req"
                                                          for t in tools), file=sys.stderr)
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(workdir, ignore_errors=True)

    print(f"\nmedians of {args.rounds} rounds (client pinned to CPU 0, nginx to CPU 1)\n")
    print("| scenario | tool | client CPU µs/req | × floor (same round) | req/s | mean latency µs | × floor latency | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|---|")
    med = statistics.median
    for s in scenarios:
        for t in tools:
            rs = results[(s, t)]
            print(f"| {s} | {t} | {med(x['us_per_req'] for x in rs):.2f} | {med(x['ratio'] for x in rs):.2f} | "
                  f"{med(x['rps'] for x in rs):,.0f} | {med(x['latency_us'] for x in rs):.1f} | "
                  f"{med(x['lat_ratio'] for x in rs):.2f} | {med(x['rss_mib'] for x in rs):.1f} |")


if __name__ == "__main__":
    main()
