#!/usr/bin/env python3
"""Client-concurrency benchmark: how close does microbench get to the ideal total time?

The reference server's /delay/{ms} endpoint answers after d without blocking, so with c
connections n requests can take no less than the bound ceil(n/c)·d. For each (n, d, c, threads)
whose bound is at most --max-bound seconds, runs microbench (keep-alive) and reports the time
taken against the bound; the target is ≤ 5 % over it while the server is not the bottleneck.

    bench/delay_bound.py [--build build] [--max-bound 11]
"""
import argparse
import math
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/run")
    ap.add_argument("--max-bound", type=float, default=11.0)
    args = ap.parse_args()
    server = subprocess.Popen([f"{args.build}/examples/microbench-server", "-p", "0", "-t", "2", "-d", "3600"],
                              stdout=subprocess.PIPE, text=True)
    port = int(re.search(r"port (\d+)", server.stdout.readline()).group(1))
    rows = []
    try:
        for n in (100, 1000, 10000):
            for d in (0.1, 0.5, 1.0):
                for c in (10, 100, 1000):
                    for threads in (1, 2):
                        if c > n:
                            continue
                        bound = math.ceil(n / c) * d
                        if bound > args.max_bound or (threads == 2 and c < 100):
                            continue
                        url = f"http://127.0.0.1:{port}/delay/{int(d * 1000)}"
                        out = subprocess.run([f"{args.build}/examples/microbench", "-q", "-k", "-n", str(n), "-c", str(c),
                                              "-W", str(threads), url], capture_output=True, text=True, timeout=120).stdout
                        taken = float(re.search(r"^Time taken for tests:\s+([\d.]+)", out, re.M).group(1))
                        failed = int(re.search(r"^Failed requests:\s+(\d+)", out, re.M).group(1))
                        rows.append((n, d, c, threads, bound, taken, failed))
                        print(f"n={n} d={d}s c={c} t={threads}: {taken:.3f} s vs bound {bound:.1f} s", file=sys.stderr)
    finally:
        server.terminate()
        server.wait()
    print("| n | delay | c | threads | bound ceil(n/c)·d | time taken | over the bound | failed |")
    print("|---|---|---|---|---|---|---|---|")
    for n, d, c, t, bound, taken, failed in rows:
        print(f"| {n} | {d:g} s | {c} | {t} | {bound:.1f} s | {taken:.3f} s | {100 * (taken / bound - 1):+.1f} % | {failed} |")


if __name__ == "__main__":
    main()
