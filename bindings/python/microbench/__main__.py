"""python3 -m microbench URL [-n N] [-c C] [-t S] [-k] ...: a load test from the command line
through the library, with ab's main flags and ab's report (the command line's, from libmicrobench).
Each flag is the microbench command line's, with its meaning (a test holds the two to it).
Exit status as the microbench command line's: 0 the run completed (failed requests alone do not
change it), 1 a usage error or a plan the library refused, 2 the target could not be reached at all
(its name did not resolve, https without libssl, or every connect failed), 3 a response failed a
check, 130 interrupted by Ctrl-C (the partial report is printed).

With --find-capacity --max-p99-ms X it searches for the highest fixed rate the server holds with
its p99 within X ms (find_capacity), prints a line per step on stderr as it ends and the table at
the end (--json: the search as JSON); exit 0 when a step held, 3 when none did, 2 when none did
and the search ended on a step in which no request got a connection."""
from __future__ import annotations

import argparse
import json
import math
import re
import signal
import sys
from typing import Callable, Dict, List, NoReturn, Optional, Tuple

from . import Cancel, CapacityStep, MicrobenchError, find_capacity, run

UNREACHABLE = ("run_resolve_failed", "run_tls_unavailable")  # as the command line, exit 2
# The capacity search's flags and their defaults (None in the namespace until --find-capacity).
SEARCH_DEFAULTS = {"max_failures_ratio": 0.01, "start_rate": 100.0, "max_rate": 1e6, "warmup": 1.0, "step": 5.0, "min_responses": 1000}


class _Parser(argparse.ArgumentParser):
    """argparse with the command line's usage status, 1 (argparse's own is 2: unreachable here)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: {message}\n")


def _whole(minimum: int) -> Callable[[str], int]:
    """A flag's type: a whole number, `minimum` or more."""
    def check(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more, not {text}")
        return value
    return check


_count, _number = _whole(1), _whole(0)


def _statuses(text: str) -> List[int]:
    """--expect-status's list: status codes (100-999) separated by commas."""
    codes = [int(code) if code.isdigit() else -1 for code in text.split(",")]
    if not codes or any(not 100 <= code <= 999 for code in codes):
        raise argparse.ArgumentTypeError(f"needs status codes (100-999) separated by commas, not {text!r}")
    return codes


def _amount(text: str) -> float:
    """A finite number, 0 or more (seconds, a rate, milliseconds, a ratio)."""
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number, 0 or more, not {text}")
    return value


def _duration(text: str) -> float:
    """A duration as microbench's --warmup and --step take it: 500ms, 10s, 2m, 1h, or a plain number
    of seconds; in seconds."""
    found = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)(ms|s|m|h)?", text)
    value = float(found.group(1)) if found else -1.0
    if not found or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"needs a duration such as 500ms, 10s or 2m (a plain number is seconds), not {text!r}")
    return value * {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}[found.group(2) or "s"]


def _contained(text: str) -> str:
    """--expect-body-contains's text: not empty."""
    if not text:
        raise argparse.ArgumentTypeError("--expect-body-contains needs the text the body must contain")
    return text


def _parser() -> _Parser:
    """The command line's flags."""
    p = _Parser(prog="python3 -m microbench", description="An HTTP/1.1 load test with ab's main flags and its report.")
    p.add_argument("url", help="http:// or https:// URL")
    p.add_argument("-n", type=_count, default=None, metavar="REQUESTS", help="requests to send (default 1, or unlimited with -t)")
    p.add_argument("-c", type=_count, default=1, metavar="CONCURRENCY", help="connections at once (default 1)")
    p.add_argument("-t", type=_amount, default=None, metavar="SECONDS", help="at most this long")
    p.add_argument("-k", action="store_true", help="keep-alive (HTTP/1.1 persistent connections)")
    p.add_argument("-s", type=_amount, default=30.0, metavar="SECONDS", help="timeout per request (default 30)")
    p.add_argument("-m", default="GET", metavar="METHOD", help="request method (default GET)")
    p.add_argument("-H", action="append", default=[], metavar="'NAME: VALUE'", help="a request header (repeatable)")
    p.add_argument("-W", "--threads", type=_count, default=1, help="worker threads (default 1)")
    p.add_argument("--rate", type=_amount, default=0.0, metavar="PER_SECOND", help="a fixed rate (the open model)")
    p.add_argument("--check", choices=["factorial"], default=None,
                   help="every body must be exactly n! of the URL's /factorial/{n} or /factorial?n=N")
    p.add_argument("--expect-status", type=_statuses, default=None, metavar="LIST",
                   help="only these statuses succeed; others fail with reason 'check'")
    p.add_argument("--expect-body-contains", type=_contained, default=None, metavar="TEXT",
                   help="the body must contain TEXT (else: failure 'check')")
    p.add_argument("--expect-body-regex", default=None, metavar="RE",
                   help="the body must match RE, a POSIX extended regular expression (not Python's re), and be at most 1 MiB")
    p.add_argument("--unix-socket", default=None, metavar="PATH", help="connect to this Unix socket (the URL gives Host and path)")
    p.add_argument("--json", default=None, metavar="FILE|-", help="write the result as JSON to FILE (-: stdout, instead of the report)")
    search = p.add_argument_group("capacity search")
    search.add_argument("--find-capacity", action="store_true", help="find the highest fixed rate held within --max-p99-ms")
    search.add_argument("--max-p99-ms", type=_amount, default=None, metavar="MS", help="the p99 objective (required)")
    search.add_argument("--max-failures-ratio", type=_amount, default=None, metavar="F", help="failed / ended allowed (default 0.01)")
    search.add_argument("--start-rate", type=_amount, default=None, metavar="PER_SECOND", help="the first step's rate (default 100)")
    search.add_argument("--max-rate", type=_amount, default=None, metavar="PER_SECOND", help="no step above this (default 1000000)")
    search.add_argument("--warmup", type=_duration, default=None, metavar="D",
                        help="each step's warm-up: 0, or 10ms to 1h (500ms, 10s, 2m; a plain number is seconds; default 1s)")
    search.add_argument("--step", type=_duration, default=None, metavar="D",
                        help="each step's measured window: 10ms to 1h (default 5s)")
    search.add_argument("--min-responses", type=_count, default=None, metavar="N",
                        help="a window lasts long enough for N responses at its rate (default 1000)")
    return p


def parse(argv: List[str]) -> Tuple[argparse.Namespace, Dict[str, str]]:
    """The arguments as a namespace, and the -H headers as {name: value}; a usage error exits 1."""
    p = _parser()
    args = p.parse_args(argv)
    if args.find_capacity:
        if args.max_p99_ms is None:
            p.error("--find-capacity needs --max-p99-ms")
        for flag, given in (("-n", args.n is not None), ("-t", args.t is not None), ("--rate", args.rate != 0.0)):
            if given:
                p.error(f"--find-capacity sets the rate and length of each step itself: drop {flag}")
        for name, default in SEARCH_DEFAULTS.items():
            if getattr(args, name) is None:
                setattr(args, name, default)
    else:
        for name in ("max_p99_ms", *SEARCH_DEFAULTS):
            if getattr(args, name) is not None:
                p.error(f"--{name.replace('_', '-')} is for --find-capacity")
    # n from the URL, read by the library as microbench reads it (a URL without one is refused, exit 1)
    args.check_factorial = "each" if args.check else None
    headers = {}
    for header in args.H:
        name, sep, value = header.partition(":")
        if not sep or not name.strip():
            p.error(f"-H takes 'Name: value', not {header!r}")
        headers[name.strip()] = value.strip()
    return args, headers


def _refused(e: MicrobenchError) -> int:
    """What the library refused, said as the command line says it; its exit status."""
    print(f"microbench: {e.message} ({e.name})", file=sys.stderr)
    return 2 if e.name in UNREACHABLE else 1


def _say_step(step: CapacityStep) -> None:
    print(f"step at {step.target_rate:.1f}/s{' (again)' if step.retry else ''}: achieved {step.achieved_rate:.1f}/s, "
          f"p99 {step.p99_ms:.2f} ms, "
          f"{step.failed} failed: {step.verdict}{' (the generator?)' if step.generator_suspect else ''}", file=sys.stderr)


def _output(document: object, report: str, json_path: Optional[str]) -> bool:
    """The report on stdout, and the JSON where --json says ("-": printed instead of the report);
    False, said on stderr, when its file cannot be written."""
    text = json.dumps(document, indent=2) + "\n"
    if json_path == "-":
        print(text, end="")
        return True
    print(report, end="")
    if json_path is None:
        return True
    try:
        with open(json_path, "w") as f:
            f.write(text)
    except OSError as e:
        print(f"microbench: cannot write {json_path}: {e.strerror}", file=sys.stderr)
        return False
    return True


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the load test the arguments describe, prints its report, and returns the exit status."""
    args, headers = parse(sys.argv[1:] if argv is None else argv)
    cancel = Cancel()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.trigger())
    if args.find_capacity:
        try:
            capacity = find_capacity(args.url, args.max_p99_ms, args.c, max_failure_ratio=args.max_failures_ratio,
                                     start_rate=args.start_rate, max_rate=args.max_rate, warmup=args.warmup, step=args.step,
                                     min_responses=args.min_responses,
                                     on_step=_say_step, keep_alive=args.k, timeout=args.s, method=args.m, headers=headers,
                                     threads=args.threads, check_factorial=args.check_factorial, cancel=cancel,
                                     unix_socket=args.unix_socket, expect_status=args.expect_status,
                                     body_contains=args.expect_body_contains, body_regex=args.expect_body_regex,
                                     on_progress=lambda *_: None)
        except MicrobenchError as e:
            return _refused(e)
        except ValueError as e:  # a number beyond what the library takes: a usage error, exit 1
            _parser().error(str(e))
        finally:
            signal.signal(signal.SIGINT, previous)
        if not _output(json.loads(capacity.json), capacity.table, args.json):
            return 1
        if capacity.cancelled:
            return 130
        if capacity.stopped:  # a step could not start after others ran: the table is theirs
            print(f"microbench: the search stopped after step {len(capacity.steps)}: {capacity.stopped}", file=sys.stderr)
            return 1
        last = capacity.steps[-1] if capacity.steps else None
        if capacity.rate == 0 and last and last.verdict == "no connection":
            print(f"microbench: no request got a connection ({last.failed} failed in the step's window): is the server listening?", file=sys.stderr)
            return 2
        return 0 if capacity.rate > 0 else 3
    try:
        # The progress callback brings the run back to Python on this thread every 0.1 s, so that
        # Ctrl-C's handler runs while the library holds the thread.
        r = run(args.url, args.n, args.c, duration=args.t, keep_alive=args.k, timeout=args.s, method=args.m, headers=headers,
                threads=args.threads, rate=args.rate, check_factorial=args.check_factorial, cancel=cancel,
                unix_socket=args.unix_socket, expect_status=args.expect_status,
                body_contains=args.expect_body_contains, body_regex=args.expect_body_regex,
                on_progress=lambda *_: None)
    except MicrobenchError as e:
        return _refused(e)
    except ValueError as e:  # a number beyond what the library takes: a usage error, exit 1
        _parser().error(str(e))
    finally:
        signal.signal(signal.SIGINT, previous)
    if not _output(r.json, r.report, args.json):
        return 1
    if r.cancelled:
        print(f"microbench: interrupted after {r.ended} requests", file=sys.stderr)
        return 130
    if r.ended and r.failures["connect"] == r.ended:
        print(f"microbench: every connect failed ({r.ended} of {r.ended}): is the server listening?", file=sys.stderr)
        return 2
    return 3 if r.failures["check"] else 0


if __name__ == "__main__":
    sys.exit(main())
