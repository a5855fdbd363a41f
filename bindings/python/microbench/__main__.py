"""python3 -m microbench URL [-n N] [-c C] [-t S] [-k] ...: a load test from the command line
through the library, with ab's flags and ab's report (the command line's, from libmicrobench).
Exit status as the microbench command line's: 0 the run completed (failed requests alone do not
change it), 1 a usage error or a plan the library refused, 2 every connect failed, 3 a response
failed a check, 130 interrupted by Ctrl-C."""
import argparse
import json
import signal
import sys

from . import Cancel, MicrobenchError, run


def parse(argv):
    p = argparse.ArgumentParser(prog="python3 -m microbench", description="An HTTP/1.1 load test with ab's flags and report.")
    p.add_argument("url", help="http:// or https:// URL")
    p.add_argument("-n", type=int, default=None, metavar="REQUESTS", help="requests to send (default 1, or unlimited with -t)")
    p.add_argument("-c", type=int, default=1, metavar="CONCURRENCY", help="connections at once (default 1)")
    p.add_argument("-t", type=float, default=None, metavar="SECONDS", help="at most this long")
    p.add_argument("-k", action="store_true", help="keep-alive (HTTP/1.1 persistent connections)")
    p.add_argument("-s", type=float, default=30.0, metavar="SECONDS", help="timeout per request (default 30)")
    p.add_argument("-m", default="GET", metavar="METHOD", help="request method (default GET)")
    p.add_argument("-H", action="append", default=[], metavar="'NAME: VALUE'", help="a request header (repeatable)")
    p.add_argument("--threads", type=int, default=1, help="worker threads (default 1)")
    p.add_argument("--rate", type=float, default=0.0, metavar="PER_SECOND", help="a fixed rate (the open model)")
    p.add_argument("--check-factorial", type=int, default=None, metavar="N", help="every body must be exactly N!")
    p.add_argument("--json", action="store_true", help="print the result as JSON instead of the report")
    args = p.parse_args(argv)
    headers = {}
    for header in args.H:
        name, sep, value = header.partition(":")
        if not sep or not name.strip():
            p.error(f"-H takes 'Name: value', not {header!r}")
        headers[name.strip()] = value.strip()
    return args, headers


def main(argv=None):
    args, headers = parse(sys.argv[1:] if argv is None else argv)
    cancel = Cancel()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.trigger())
    try:
        r = run(args.url, args.n, args.c, duration=args.t, keep_alive=args.k, timeout=args.s, method=args.m, headers=headers,
                threads=args.threads, rate=args.rate, check_factorial=args.check_factorial, cancel=cancel)
    except MicrobenchError as e:
        print(f"microbench: {e}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGINT, previous)
    print(json.dumps(r.json, indent=2) if args.json else r.report, end="" if not args.json else "\n")
    if r.cancelled:
        return 130
    if r.ended and r.failures["connect"] == r.ended:
        return 2
    return 3 if r.failures["check"] else 0


if __name__ == "__main__":
    sys.exit(main())
