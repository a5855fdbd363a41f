#!/usr/bin/env python3
"""Client cost over TLS, side by side: microbench vs wrk, ab and h2load against nginx over https.

nginx (1 worker, TLS 1.3, X25519, an RSA-2048 certificate made here, `return 200 "3628800"`,
access log off) runs pinned to CPU 1 on 127.0.0.1; each client runs pinned to CPU 0, tools
alternating in rounds. OpenSSL does the crypto for every tool, so what differs is the client's
own cost. For every run: the client's CPU time (user+sys from wait4) per request and its peak
RSS; per scenario the median over rounds.

    bench/tls.py [--build build/run] [--rounds 3] [--scenarios ka100,full10,resume10,ka1000]

  ka100     keep-alive, c=100: one handshake per connection, then requests (microbench -k, wrk, ab -k, h2load --h1)
  full10    a full handshake per request, c=10 (microbench, ab: a new connection each time)
  resume10  a new connection per request, c=10, microbench resuming the session (--tls-resume), next to wrk
            with Connection: close (whether wrk resumes is not checked here)
  ka1000    keep-alive, c=1000: peak RSS against wrk's

Needs nginx, openssl, ab (apache2-utils), wrk, h2load (nghttp2-client) and taskset; build first:
cmake --build build/run --target microbench-cli microbench-rusage
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
SCENARIOS = {
    # name: (keep_alive, concurrency, requests, wrk seconds, tools)
    "ka100": (True, 100, 100_000, 2, ("microbench", "wrk", "ab", "h2load")),
    "full10": (False, 10, 5_000, 0, ("microbench", "ab")),
    "resume10": (False, 10, 10_000, 2, ("microbench", "wrk")),
    "ka1000": (True, 1000, 100_000, 3, ("microbench", "wrk")),
}

NGINX_CONF = """daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 16000; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    server {{
        listen 127.0.0.1:{port} ssl backlog=16384;
        ssl_certificate {dir}/cert.pem;
        ssl_certificate_key {dir}/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_ecdh_curve X25519;
        ssl_session_cache shared:bench:10m;
        location = {path} {{ default_type text/plain; return 200 "3628800"; }}
    }}
}}
"""


def measure(tool, scenario, port, build):
    keep_alive, c, n, seconds, _ = SCENARIOS[scenario]
    url = f"https://127.0.0.1:{port}{PATH}"
    if tool == "microbench":
        cmd = [f"{build}/examples/microbench", "-q", "-n", str(n), "-c", str(c)] + (["-k"] if keep_alive else []) + \
              (["--tls-resume"] if scenario == "resume10" else []) + [url]
    elif tool == "ab":
        cmd = ["ab", "-q", "-n", str(n), "-c", str(c)] + (["-k"] if keep_alive else []) + [url]
    elif tool == "wrk":
        cmd = ["wrk", "-t1", f"-c{c}", f"-d{seconds}s"] + ([] if keep_alive else ["-H", "Connection: close"]) + [url]
    else:  # h2load over HTTP/1.1: each client keeps its connection
        cmd = ["h2load", "--h1", "-n", str(n), "-c", str(c), url]
    out, cpu, rss, _ = run_measured(cmd, build)
    if tool in ("microbench", "ab"):
        requests = int(re.search(r"Complete requests:\s+(\d+)", out).group(1))
        requests -= int(re.search(r"Failed requests:\s+(\d+)", out).group(1))
    elif tool == "wrk":
        requests = int(re.search(r"(\d+) requests in", out).group(1))
    else:
        requests = int(re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", out).group(1))
    if requests == 0:
        raise RuntimeError(f"{tool} {scenario}: no requests\n{out}")
    handshakes = None
    if tool == "microbench":
        m = re.search(r"TLS handshakes: (\d+) \((\d+) resumed\)", out)
        handshakes = f"{m.group(1)} ({m.group(2)} resumed)" if m else "?"
    return {"us_per_req": cpu / requests * 1e6, "rss_mib": rss / 1024, "requests": requests, "handshakes": handshakes}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scenarios", default="ka100,full10,resume10,ka1000")
    args = ap.parse_args()
    for prog in ("nginx", "openssl", "ab", "wrk", "h2load", "taskset"):
        if not shutil.which(prog) and not os.path.exists(f"/usr/sbin/{prog}"):
            sys.exit(f"tls.py: {prog} is missing")
    scenarios = args.scenarios.split(",")
    workdir = tempfile.mkdtemp(prefix="microbench-tls-bench-")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{workdir}/key.pem", "-out",
                    f"{workdir}/cert.pem", "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
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
                tools = list(SCENARIOS[s][4])
                order = tools[r % len(tools):] + tools[:r % len(tools)]  # rotate who goes first
                got = {t: measure(t, s, port, args.build) for t in order}
                for t in tools:
                    results.setdefault((s, t), []).append(got[t])
                print(f"round {r + 1} {s}: " + ", ".join(f"{t} {got[t]['us_per_req']:.2f} µs/req" for t in tools), file=sys.stderr)
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(workdir, ignore_errors=True)

    med = statistics.median
    print(f"\nmedians of {args.rounds} rounds (client pinned to CPU 0, nginx to CPU 1), https with TLS 1.3\n")
    print("| scenario | tool | client CPU µs/req | × microbench | peak RSS MiB |")
    print("|---|---|---|---|---|")
    for s in scenarios:
        ours = med(x["us_per_req"] for x in results[(s, "microbench")])
        for t in SCENARIOS[s][4]:
            rs = results[(s, t)]
            cpu = med(x["us_per_req"] for x in rs)
            print(f"| {s} | {t} | {cpu:.2f} | {cpu / ours:.2f} | {med(x['rss_mib'] for x in rs):.1f} |")
        hs = results[(s, "microbench")][-1]["handshakes"]
        print(f"|  | (microbench's last round: {hs} handshakes) | | | |")


if __name__ == "__main__":
    main()
