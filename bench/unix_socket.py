#!/usr/bin/env python3
"""Client cost over a Unix socket against TCP loopback, side by side: microbench against one nginx
listening on both.

nginx (1 worker, `return 200 "3628800"`, access log off) runs pinned to CPU 1, listening on
127.0.0.1 and on a Unix socket; microbench runs pinned to CPU 0, the two transports alternating
in rounds. For every run: the client's CPU time (user+sys from wait4) per request; per scenario
the median over rounds, and Unix / TCP.

    bench/unix_socket.py [--build build/run] [--rounds 3] [--scenarios ka50,close10,rate10k]

  ka50     keep-alive, c=50, 100,000 requests
  close10  a connection per request, c=10, 20,000 requests
  rate10k  keep-alive, c=50, a fixed 10,000 requests/s for 3 s (over TCP the worker sleeps through
           responses by their kernel arrival stamps; Linux stamps nothing on a Unix stream socket,
           so there it wakes for each response)

Needs nginx and taskset; build first: cmake --build build/run --target microbench-cli microbench-rusage
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import free_port, raise_nofile, run_measured, wait_for  # noqa: E402  (the same harness)

PATH = "/factorial/10"
SCENARIOS = {  # name: (flags)
    "ka50": ["-k", "-n", "100000", "-c", "50"],
    "close10": ["-n", "20000", "-c", "10"],
    "rate10k": ["-k", "-c", "50", "--rate", "10000", "-t", "3"],
}

NGINX_CONF = """daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    server {{
        listen 127.0.0.1:{port} backlog=4096;
        listen unix:{dir}/nginx.sock backlog=4096;
        location = {path} {{ default_type text/plain; return 200 "3628800"; }}
    }}
}}
"""


def measure(transport, scenario, port, workdir, build):
    over = ["--unix-socket", f"{workdir}/nginx.sock"] if transport == "unix" else []
    url = f"http://127.0.0.1:{port}{PATH}"
    out, cpu, _, _ = run_measured([f"{build}/examples/microbench", "-q"] + SCENARIOS[scenario] + over + [url], build)
    requests = int(re.search(r"Complete requests:\s+(\d+)", out).group(1))
    requests -= int(re.search(r"Failed requests:\s+(\d+)", out).group(1))
    if requests == 0:
        raise RuntimeError(f"{transport} {scenario}: no requests\n{out}")
    return cpu / requests * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scenarios", default="ka50,close10,rate10k")
    args = ap.parse_args()
    for prog in ("nginx", "taskset"):
        if not shutil.which(prog) and not os.path.exists(f"/usr/sbin/{prog}"):
            sys.exit(f"unix_socket.py: {prog} is missing")
    scenarios = args.scenarios.split(",")
    workdir = tempfile.mkdtemp(prefix="microbench-unix-bench-")
    port = free_port()
    with open(f"{workdir}/nginx.conf", "w") as f:
        f.write(NGINX_CONF.format(dir=workdir, port=port, path=PATH))
    nginx = subprocess.Popen(["taskset", "-c", "1", "/usr/sbin/nginx", "-p", workdir + "/", "-c", f"{workdir}/nginx.conf",
                              "-e", f"{workdir}/error.log"], preexec_fn=raise_nofile)
    results = {}
    try:
        wait_for(port)
        for r in range(args.rounds):
            for s in scenarios:
                order = ("tcp", "unix") if r % 2 == 0 else ("unix", "tcp")  # alternate who goes first
                got = {t: measure(t, s, port, workdir, args.build) for t in order}
                for t in order:
                    results.setdefault((s, t), []).append(got[t])
                print(f"round {r + 1} {s}: tcp {got['tcp']:.2f} µs/req, unix {got['unix']:.2f} µs/req", file=sys.stderr)
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(workdir, ignore_errors=True)

    med = statistics.median
    print(f"\nmedians of {args.rounds} rounds (client pinned to CPU 0, nginx to CPU 1), client CPU per request\n")
    print("| scenario | TCP loopback µs/req | Unix socket µs/req | Unix / TCP |")
    print("|---|---|---|---|")
    for s in scenarios:
        tcp, unix = med(results[(s, "tcp")]), med(results[(s, "unix")])
        print(f"| {s} | {tcp:.2f} | {unix:.2f} | {unix / tcp:.2f} |")


if __name__ == "__main__":
    main()
