#!/usr/bin/env python3
"""What targets cost the command line: client CPU per request with N targets (a URL range) against
one URL, and peak RSS with 1,000,000 targets against one URL.

nginx (1 worker, every path answered `return 200 "3628800"`, access log off) runs pinned to CPU 1
on 127.0.0.1; `microbench -q -k` runs pinned to CPU 0 under microbench-rusage (its own CPU time
and peak RSS from wait4). The two forms alternate in rounds; the report gives, per round, CPU µs
per request of each and their ratio in that round, then the medians.

    bench/targets.py [--build build/run] [--rounds 5] [--targets 10000] [--requests 200000]

Build first: cmake --build build/run --target microbench-cli microbench-rusage
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import free_port, raise_nofile, run_measured, wait_for  # noqa: E402

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
        location / {{ default_type text/plain; return 200 "3628800"; }}
    }}
}}
"""


def client(build, url, requests, threads):
    """One run: (CPU µs per request, peak RSS KiB)."""
    cmd = [f"{build}/examples/microbench", "-q", "-k", "-n", str(requests), "-c", "100", "-W", str(threads), url]
    out, cpu_s, rss_kib, code = run_measured(cmd, build)
    if code != 0 or "Failed requests:        0\n" not in out:
        raise RuntimeError(f"{cmd} failed:\n{out[-2000:]}")
    return cpu_s * 1e6 / requests, rss_kib


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/run")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--targets", type=int, default=10_000)
    ap.add_argument("--requests", type=int, default=200_000)
    args = ap.parse_args()
    for prog in ("/usr/sbin/nginx", "taskset"):
        if not shutil.which(prog):
            sys.exit(f"targets.py: {prog} is missing")
    raise_nofile()
    work = tempfile.mkdtemp(prefix="microbench-targets-")
    port = free_port()
    with open(f"{work}/nginx.conf", "w") as f:
        f.write(NGINX_CONF.format(dir=work, port=port))
    nginx = subprocess.Popen(["taskset", "-c", "1", "/usr/sbin/nginx", "-p", work + "/", "-c", f"{work}/nginx.conf"])
    try:
        wait_for(port)
        one = f"http://127.0.0.1:{port}/factorial/10"
        many = f"http://127.0.0.1:{port}/factorial/{{0..{args.targets - 1}}}"
        ratios, cpu_one, cpu_many = [], [], []
        for k in range(args.rounds):
            a, _ = client(args.build, one, args.requests, 1)
            b, _ = client(args.build, many, args.requests, 1)
            cpu_one.append(a)
            cpu_many.append(b)
            ratios.append(b / a)
            print(f"round {k + 1}: one URL {a:.2f} µs/request, {args.targets:,} targets {b:.2f} µs/request, "
                  f"ratio {b / a:.3f}", flush=True)
        print(f"median: one URL {statistics.median(cpu_one):.2f} µs/request, {args.targets:,} targets "
              f"{statistics.median(cpu_many):.2f}; ratio {statistics.median(ratios):.3f}")
        _, rss_one = client(args.build, one, args.requests, 2)
        _, rss_many = client(args.build, f"http://127.0.0.1:{port}/t/{{0..999999}}", args.requests, 2)
        print(f"peak RSS at -W 2: one URL {rss_one / 1024:.1f} MiB, 1,000,000 targets {rss_many / 1024:.1f} MiB")
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
