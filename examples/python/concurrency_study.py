#!/usr/bin/env python3
"""The client-concurrency study, redone: n requests to an endpoint that sleeps d seconds, sent by
Python threads (a pool of 5, and a pool of c), a process pool of c, asyncio (aiohttp when it is
installed, else raw asyncio streams) with c in flight, and microbench through its binding with c
connections. One table: total time, requests/s and the bound ceil(n / workers) * d that a
perfectly concurrent client would meet.

    concurrency_study.py [--n 100] [--c 10] [--delays 0.1,0.5,1] [--flask http://127.0.0.1:5000/sleep]

The target is the reference server's /delay/{ms} (started in-process); with --flask, also a Flask
app's sleeping endpoint (?seconds=d is appended). Every request is bounded by a 30 s timeout.
"""
import argparse
import asyncio
import concurrent.futures
import http.client
import math
import sys
import time
import urllib.parse

import microbench  # noqa: E402  (the package: pip install bindings/python, or PYTHONPATH=bindings/python)

try:
    import aiohttp
except ImportError:  # Debian: python3-aiohttp
    aiohttp = None


def fetch(url):
    """One GET on a new connection, as `requests.get` does by default; returns the status."""
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request("GET", u.path + (f"?{u.query}" if u.query else ""))
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def with_threads(url, n, workers):
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fetch, [url] * n))


def with_processes(url, n, workers):
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fetch, [url] * n))


async def _asyncio_raw(url, n, limit):
    u = urllib.parse.urlsplit(url)
    target = u.path + (f"?{u.query}" if u.query else "")
    gate = asyncio.Semaphore(limit)

    async def one():
        async with gate:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(u.hostname, u.port), 30)
            writer.write(f"GET {target} HTTP/1.1\r\nHost: {u.netloc}\r\nConnection: close\r\n\r\n".encode())
            data = await asyncio.wait_for(reader.read(), 30)
            writer.close()
            return int(data.split(b" ", 2)[1])

    return await asyncio.gather(*(one() for _ in range(n)))


async def _asyncio_aiohttp(url, n, limit):
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=limit), timeout=timeout) as session:
        async def one():
            async with session.get(url) as response:
                await response.read()
                return response.status

        return await asyncio.gather(*(one() for _ in range(n)))


def with_asyncio(url, n, limit):
    return asyncio.run((_asyncio_aiohttp if aiohttp else _asyncio_raw)(url, n, limit))


def with_microbench(url, n, connections):
    r = microbench.run(url, n=n, c=connections, keep_alive=False, timeout=30)
    return [200] * r.completed + [0] * r.failed


def study(targets, n, c, delays):
    pools = [5] if c == 5 else [5, c]  # the classic pool of 5, and a pool of c beside it
    methods = [(f"threads, pool of {w}", with_threads, w) for w in pools] + [
               (f"process pool of {c}", with_processes, c),
               (f"asyncio ({'aiohttp' if aiohttp else 'raw streams'}), {c} in flight", with_asyncio, c),
               (f"microbench, {c} connections", with_microbench, c)]
    rows = []
    for target_name, url_for in targets:
        for d in delays:
            url = url_for(d)
            for name, method, workers in methods:
                t0 = time.monotonic()
                statuses = method(url, n, workers)
                seconds = time.monotonic() - t0
                ok = sum(1 for s in statuses if s == 200)
                bound = math.ceil(n / workers) * d
                rows.append((target_name, n, d, name, seconds, n / seconds, bound, ok))
                print(f"{target_name:10s} n={n} d={d:g}s {name:36s} {seconds:7.3f} s  {n / seconds:8.1f} req/s  "
                      f"bound {bound:6.2f} s  x{seconds / bound:5.2f}  ok {ok}/{n}", file=sys.stderr, flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--c", type=int, default=10)
    ap.add_argument("--delays", default="0.1,0.5,1")
    ap.add_argument("--flask", help="a Flask sleeping endpoint, e.g. http://127.0.0.1:5000/sleep")
    args = ap.parse_args()
    delays = [float(d) for d in args.delays.split(",")]
    with microbench.Server(threads=2) as server:
        targets = [("reference", lambda d: server.url(f"/delay/{round(d * 1000)}"))]
        if args.flask:
            targets.append(("flask", lambda d: f"{args.flask}?seconds={d:g}"))
        rows = study(targets, args.n, args.c, delays)
    print("| server | n | delay | method | total s | req/s | bound ceil(n/w)·d | total / bound | ok |")
    print("|---|---|---|---|---|---|---|---|---|")
    for target, n, d, name, seconds, rps, bound, ok in rows:
        print(f"| {target} | {n} | {d:g} s | {name} | {seconds:.3f} | {rps:.1f} | {bound:.2f} | {seconds / bound:.2f} | {ok}/{n} |")
    return 0 if all(ok == n for *_, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
