#!/usr/bin/env python3
"""Many keep-alive connections from one microbench process, over several source addresses.

nginx (1 worker, 25,000 connections and 20,000 descriptors allowed, access log off) on 127.0.0.1; microbench connects from
127.0.0.2–127.0.0.9 (-B, IP_BIND_ADDRESS_NO_PORT), keep-alive, 1 worker thread, at c = 100 and
c = 19,000 (the machines here allow a process 20,000 descriptors). For each, medians of --rounds:

  setup   -n c: each connection opens and carries one request — the time to bring them all up
  load    -n 20·c: requests/s with every connection open
  peak RSS of the client (ru_maxrss, under microbench-rusage), and the connects it made

Per-connection memory = (RSS at 19,000 − RSS at 100) / 18,900; projected to 100,000 connections
as RSS at 100 + 99,900 × that. Build first:
  cmake --build build --target microbench-cli microbench-rusage
  bench/many_connections.py [--build build] [--rounds 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import free_port, raise_nofile, wait_for  # noqa: E402

NGINX_CONF = """daemon off;
worker_processes 1;
worker_rlimit_nofile 20000;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 25000; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    server {{
        listen 127.0.0.1:{port} backlog=20000;
        location = /factorial/10 {{ default_type text/plain; return 200 "3628800"; }}
    }}
}}
"""
SOURCES = "127.0.0.2-127.0.0.9"


def client(build, port, connections, requests):
    """One run: (requests/s, elapsed s, peak RSS KiB, connects) from microbench's JSON and rusage."""
    cmd = [f"{build}/bench/microbench-rusage", f"{build}/examples/microbench", "-q", "-k", "-c", str(connections),
           "-n", str(requests), "-B", SOURCES, "-s", "60", "--json", "-", f"http://127.0.0.1:{port}/factorial/10"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    doc = json.loads(p.stdout)
    rss = int(p.stderr.split("maxrss_kib=")[1].split()[0])
    if doc["requests"]["completed"] != requests:
        raise RuntimeError(f"{requests} asked, {doc['requests']['completed']} completed: {doc['failures']}")
    return doc["requests_per_second"], doc["elapsed_s"], rss, doc["connections"]["connects"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build/run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--many", type=int, default=19_000)
    args = ap.parse_args()
    raise_nofile()
    work = tempfile.mkdtemp(prefix="mb-many-")
    port = free_port()
    with open(f"{work}/nginx.conf", "w") as f:
        f.write(NGINX_CONF.format(dir=work, port=port))
    nginx = subprocess.Popen(["/usr/sbin/nginx", "-p", work + "/", "-c", f"{work}/nginx.conf"])
    try:
        wait_for(port)
        rows = {}
        for c in (100, args.many):
            setup = [client(args.build, port, c, c) for _ in range(args.rounds)]
            load = [client(args.build, port, c, 20 * c) for _ in range(args.rounds)]
            rows[c] = {
                "setup_s": statistics.median(r[1] for r in setup),
                "rps": statistics.median(r[0] for r in load),
                "rss_kib": statistics.median(r[2] for r in load),
                "connects": statistics.median(r[3] for r in load),
            }
            print(f"c={c:>6}: all connected and answered once in {rows[c]['setup_s']:.3f} s; {rows[c]['rps']:,.0f} requests/s "
                  f"over {rows[c]['connects']:.0f} connections; peak RSS {rows[c]['rss_kib'] / 1024:.2f} MiB "
                  f"(medians of {args.rounds})")
        few, many = rows[100], rows[args.many]
        per = (many["rss_kib"] - few["rss_kib"]) * 1024 / (args.many - 100)
        projected = few["rss_kib"] * 1024 + 99_900 * per
        print(f"per connection: {per:,.0f} bytes of RSS; 100,000 connections: {few['rss_kib'] / 1024:.2f} MiB + "
              f"99,900 x {per:,.0f} B = {projected / 2**20:.1f} MiB (budget 128 MiB)")
        return 0 if projected < 128 * 2**20 else 1
    finally:
        nginx.terminate()
        nginx.wait()


if __name__ == "__main__":
    sys.exit(main())
