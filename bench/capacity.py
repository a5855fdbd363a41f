#!/usr/bin/env python3
"""Capacity search against the comparison's two servers: the highest fixed rate the ASP.NET Core
minimal API under Kestrel and FastAPI under uvicorn each hold with their p99 within an objective.

Each server is started on a free loopback port (tools/peers.py), then find_capacity (through the
Python binding, libmicrobench from --build) searches /factorial/N with the factorial check, over -c
keep-alive connections: steps of --warmup then --step seconds, doubling from --start-rate while
steps hold, then halving the gap to 5 %. Prints each step as it ends and each server's table.
Client and servers share this machine: the figures are this machine's, the client's CPU included.

    bench/capacity.py [--build build/run] [--max-p99-ms 10] [--c 50] [--n 20] [--step 5] [--warmup 1]

Build libmicrobench first (cmake --build build/run --target microbench_c_shared); needs the .NET SDK
for Kestrel and Debian's python3-fastapi and python3-uvicorn.
"""
import argparse
import os
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import peers  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/run", help="build folder holding libmicrobench.so")
    ap.add_argument("--max-p99-ms", type=float, default=10.0)
    ap.add_argument("--c", type=int, default=50, help="keep-alive connections")
    ap.add_argument("--n", type=int, default=20, help="the factorial asked for (20!: right in both)")
    ap.add_argument("--start-rate", type=float, default=250.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--step", type=float, default=5.0)
    ap.add_argument("--servers", default="kestrel,uvicorn")
    args = ap.parse_args()
    os.environ.setdefault("MICROBENCH_LIBRARY", str(pathlib.Path(args.build).resolve() / "libmicrobench.so"))
    sys.path.insert(0, str(ROOT / "bindings" / "python"))
    import microbench

    def say(step):
        print(f"  {step.target_rate:9.1f}/s -> {step.achieved_rate:9.1f}/s  p99 {step.p99_ms:8.2f} ms  "
              f"{step.failed} failed  {step.verdict}{' (the generator?)' if step.generator_suspect else ''}", flush=True)

    with tempfile.TemporaryDirectory() as scratch:
        for name in args.servers.split(","):
            if name == "kestrel":
                if not peers.have_dotnet():
                    print("kestrel: skipped, no .NET SDK")
                    continue
                server = peers.start_aspnet(peers.build_aspnet(scratch))
            elif name == "uvicorn":
                server = peers.start_fastapi()
            else:
                sys.exit(f"unknown server {name!r} (kestrel, uvicorn)")
            try:
                print(f"{name}: {server.url(args.n)}, -c {args.c}, p99 <= {args.max_p99_ms} ms", flush=True)
                found = microbench.find_capacity(server.url(args.n), args.max_p99_ms, args.c, check_factorial=args.n,
                                                 start_rate=args.start_rate, warmup=args.warmup, step=args.step, on_step=say)
                print(found.table)
            finally:
                server.stop()


if __name__ == "__main__":
    main()
