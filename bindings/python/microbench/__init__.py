"""microbench for Python: HTTP/1.1 load tests, response checks, the five-scenario suite and the
reference server, run in-process through libmicrobench's C API with ctypes — standard library only.

    import microbench
    with microbench.Server() as srv:
        r = microbench.run(srv.url("/factorial/10"), n=1000, c=10, check_factorial=10)
        print(r.completed, r.timings["total"].p99_ms)

Installed with pip (bindings/python), the package carries its own libmicrobench.so; the
MICROBENCH_LIBRARY environment variable (a path) overrides it, and without either the system's
library path is searched. Errors raise MicrobenchError with the status's number and name.
`python3 -m microbench URL -n N -c C` runs a load test and prints ab's report.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import json as _json
import math
import numbers
import operator
import os
import pathlib
import threading
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

__all__ = ["MicrobenchError", "Timing", "Interval", "Result", "TargetRow", "Suite", "Cancel", "Server", "HlogTag", "Capacity", "CapacityStep",
           "run", "validate", "find_capacity", "suite", "self_test", "report_html", "read_hlog", "version"]

VERSION = (0, 1)  # the major.minor of microbench.h this module was written against

FAILURES = ("connect", "write", "receive", "parse", "timeout", "length", "check", "tls")
TIMINGS = ("connect", "waiting", "processing", "total", "response", "schedule_lag",  # those two at a fixed rate
           "tls_handshake")  # over TLS: each handshake, within "connect"
_COUNTS = ("ended", "completed", "failed", "unfinished", "non_2xx", "keep_alive_requests", "retries", "connects",
           "server_closes", "bytes_sent", "bytes_received", "body_bytes", "document_length", "concurrency_peak",
           "local_waits", "connection_waits", "schedule_missed", "tls_handshakes", "tls_resumed",
           "tls_handshake_failures", "request_fn_faults", "backlog_waits", "tls_no_session")
TLS_VERSIONS = {"ALL": 0, "TLS1": 0x0301, "TLS1.1": 0x0302, "TLS1.2": 0x0303, "TLS1.3": 0x0304}  # ab -f's names


class MicrobenchError(Exception):
    """A call into microbench failed; `status` is the number, `name` the stable name."""

    def __init__(self, status: int, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.status, self.name, self.message = status, name, message


def _find_library():
    candidates = []
    if os.environ.get("MICROBENCH_LIBRARY"):
        candidates.append(os.environ["MICROBENCH_LIBRARY"])
    here = pathlib.Path(__file__).resolve().parent
    candidates += sorted(str(p) for p in here.glob("libmicrobench.so*"))
    found = ctypes.util.find_library("microbench")
    if found:
        candidates.append(found)
    candidates.append("libmicrobench.so")
    errors = []
    for path in candidates:
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise OSError("libmicrobench not found; set MICROBENCH_LIBRARY to its path. Tried:\n  " + "\n  ".join(errors))


_lib = _find_library()
_P, _U64, _I64, _U32, _SZ, _D = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int64, ctypes.c_uint32, ctypes.c_size_t, ctypes.c_double
_RESPONSE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p)
_PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int64, ctypes.c_void_p)


class _TargetRow(ctypes.Structure):  # mb_target_row
    _fields_ = [("index", _U64), ("requests", _U64), ("completed", _U64), ("failed", _U64), ("unfinished", _U64),
                ("non_2xx", _U64), ("wrong", _U64), ("p50_ns", _I64), ("p99_ns", _I64)]


class _Interval(ctypes.Structure):  # mb_interval
    _fields_ = [("start_ns", _I64), ("duration_ns", _I64), ("sent", _U64), ("ended", _U64), ("completed", _U64),
                ("failed", _U64), ("target_requests", ctypes.c_double), ("rate_per_s", ctypes.c_double), ("p50_ns", _I64),
                ("p90_ns", _I64), ("p99_ns", _I64), ("max_ns", _I64), ("lag_p99_ns", _I64), ("lag_max_ns", _I64),
                ("target_per_s", ctypes.c_double)]


class _Stage(ctypes.Structure):  # mb_stage
    _fields_ = [("start_ms", _I64), ("duration_ms", _I64), ("from_per_s", ctypes.c_double), ("to_per_s", ctypes.c_double),
                ("intended", ctypes.c_double), ("sent", _U64), ("completed", _U64), ("failed", _U64), ("p50_ns", _I64),
                ("p99_ns", _I64)]


class _TlsSession(ctypes.Structure):  # mb_tls_session
    _fields_ = [("protocol", ctypes.c_char * 16), ("cipher", ctypes.c_char * 64), ("server_key_bits", ctypes.c_int),
                ("secret_bits", ctypes.c_int), ("temp_key", ctypes.c_char * 96), ("server_name", ctypes.c_char * 256)]


class _ServerLimits(ctypes.Structure):  # mb_server_limits
    _fields_ = [("size", _SZ), ("header_timeout_ms", _I64), ("idle_timeout_ms", _I64),
                ("max_connections", _U64)]


class _HlogTag(ctypes.Structure):  # mb_hlog_tag
    _fields_ = [("tag", ctypes.c_char_p), ("intervals", _U64), ("count", _U64), ("start_s", _D), ("end_s", _D),
                ("min", _I64), ("max", _I64), ("mean", _D), ("stddev", _D)]


class _CapacityStep(ctypes.Structure):  # mb_capacity_step
    _fields_ = [("target_rate", _D), ("achieved_rate", _D), ("window_ns", _I64), ("completed", _U64), ("failed", _U64),
                ("p50_ns", _I64), ("p99_ns", _I64), ("p999_ns", _I64), ("max_ns", _I64), ("lag_p99_ns", _I64),
                ("connection_waits", _U64), ("schedule_missed", _U64), ("verdict", ctypes.c_int), ("generator_suspect", ctypes.c_int),
                ("retry", ctypes.c_int)]


_CAPACITY_STEP_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(_CapacityStep), ctypes.c_void_p)


class _CapacityObjective(ctypes.Structure):  # mb_capacity_objective
    _fields_ = [("size", _SZ), ("max_p99_ms", _D), ("max_failure_ratio", _D), ("min_rate_ratio", _D), ("start_rate", _D),
                ("max_rate", _D), ("resolution", _D), ("warmup_ms", _I64), ("step_ms", _I64), ("min_responses", _U64),
                ("cooldown_ms", _I64), ("max_steps", _U32), ("on_step", _CAPACITY_STEP_FN), ("on_step_user", _P)]


_INTERVAL_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Interval), ctypes.c_void_p)


class _RequestCall(ctypes.Structure):  # mb_request_call
    _fields_ = [("data", ctypes.c_void_p), ("capacity", ctypes.c_size_t), ("index", ctypes.c_uint64),
                ("worker", ctypes.c_uint32), ("target", ctypes.c_uint32), ("prepared", ctypes.c_void_p),
                ("prepared_length", ctypes.c_size_t)]


_REQUEST_FN = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.POINTER(_RequestCall), ctypes.c_void_p)
_SIGNATURES = {
    "mb_version": (ctypes.c_char_p, []),
    "mb_version_number": (ctypes.c_int, []),
    "mb_status_name": (ctypes.c_char_p, [ctypes.c_int]),
    "mb_status_message": (ctypes.c_char_p, [ctypes.c_int]),
    "mb_plan_create": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P)]),
    "mb_plan_destroy": (None, [_P]),
    "mb_plan_set_method": (ctypes.c_int, [_P, ctypes.c_char_p]),
    "mb_plan_add_header": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p]),
    "mb_plan_set_body": (ctypes.c_int, [_P, ctypes.c_char_p, _SZ, ctypes.c_char_p]),
    "mb_plan_set_requests": (ctypes.c_int, [_P, _U64]),
    "mb_plan_set_duration_ms": (ctypes.c_int, [_P, _I64]),
    "mb_plan_set_concurrency": (ctypes.c_int, [_P, _U32]),
    "mb_plan_set_threads": (ctypes.c_int, [_P, _U32]),
    "mb_plan_set_keep_alive": (ctypes.c_int, [_P, ctypes.c_int]),
    "mb_plan_set_pipeline": (ctypes.c_int, [_P, _U32]),
    "mb_plan_set_timeout_ms": (ctypes.c_int, [_P, _I64, _I64]),
    "mb_plan_set_drain_ms": (ctypes.c_int, [_P, _I64]),
    "mb_plan_set_socket_buffer_bytes": (ctypes.c_int, [_P, _U32]),
    "mb_plan_set_resend_non_idempotent": (ctypes.c_int, [_P, ctypes.c_int]),
    "mb_plan_set_start_at_unix_ms": (ctypes.c_int, [_P, _I64]),
    "mb_plan_divide": (ctypes.c_int, [_P, _U32, _U32]),
    "mb_plan_validate": (ctypes.c_int, [_P]),
    "mb_plan_set_bind_address": (ctypes.c_int, [_P, ctypes.c_char_p]),
    "mb_plan_add_connect_to": (ctypes.c_int, [_P, ctypes.c_char_p]),
    "mb_plan_set_unix_socket": (ctypes.c_int, [_P, ctypes.c_char_p]),
    "mb_plan_add_stage": (ctypes.c_int, [_P, _I64, ctypes.c_double]),
    "mb_plan_clear_stages": (ctypes.c_int, [_P]),
    "mb_plan_set_length_check": (ctypes.c_int, [_P, ctypes.c_int]),
    "mb_plan_set_raise_fd_limit": (ctypes.c_int, [_P, ctypes.c_int]),
    "mb_plan_set_rate": (ctypes.c_int, [_P, ctypes.c_double]),
    "mb_plan_set_arrivals": (ctypes.c_int, [_P, ctypes.c_int, _U64]),
    "mb_plan_set_max_batch_lag_us": (ctypes.c_int, [_P, _I64]),
    "mb_plan_set_interval_ms": (ctypes.c_int, [_P, _I64]),
    "mb_plan_set_interval_histograms": (ctypes.c_int, [_P, ctypes.c_int]),
    "mb_plan_on_interval": (ctypes.c_int, [_P, _INTERVAL_FN, _P]),
    "mb_plan_expect_status": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_int), _SZ]),
    "mb_plan_check_body_equals": (ctypes.c_int, [_P, ctypes.c_char_p, _SZ]),
    "mb_plan_check_body_starts_with": (ctypes.c_int, [_P, ctypes.c_char_p, _SZ]),
    "mb_plan_check_body_contains": (ctypes.c_int, [_P, ctypes.c_char_p, _SZ]),
    "mb_plan_check_body_matches": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, _SZ]),
    "mb_plan_check_factorial": (ctypes.c_int, [_P, ctypes.c_uint]),
    "mb_plan_add_target": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, _SZ]),
    "mb_plan_set_targets_file": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(_SZ), ctypes.POINTER(_SZ)]),
    "mb_plan_set_url_ranges": (ctypes.c_int, [_P, ctypes.c_int]),
    "mb_plan_set_order": (ctypes.c_int, [_P, ctypes.c_int, _U64]),
    "mb_plan_set_each_once": (ctypes.c_int, [_P, ctypes.c_int]),
    "mb_plan_set_by_target": (ctypes.c_int, [_P, ctypes.c_int]),
    "mb_plan_check_factorial_of_each_target": (ctypes.c_int, [_P]),
    "mb_plan_on_response": (ctypes.c_int, [_P, _RESPONSE_FN, _P]),
    "mb_plan_set_request_fn": (ctypes.c_int, [_P, _REQUEST_FN, _P, _SZ]),
    "mb_plan_on_progress": (ctypes.c_int, [_P, _PROGRESS_FN, _P, _I64, _U64]),
    "mb_plan_set_cancel": (ctypes.c_int, [_P, _P]),
    "mb_plan_set_tls": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]),
    "mb_plan_set_tls_verify": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_char_p]),
    "mb_plan_set_tls_resume": (ctypes.c_int, [_P, ctypes.c_int]),
    "mb_plan_set_libssl": (ctypes.c_int, [_P, ctypes.c_char_p]),
    "mb_run": (ctypes.c_int, [_P, ctypes.POINTER(_P)]),
    "mb_result_destroy": (None, [_P]),
    "mb_result_count": (_U64, [_P, ctypes.c_int]),
    "mb_result_failures": (_U64, [_P, ctypes.c_int]),
    "mb_result_status_count": (_U64, [_P, ctypes.c_int]),
    "mb_result_cancelled": (ctypes.c_int, [_P]),
    "mb_result_elapsed_ns": (_I64, [_P]),
    "mb_result_requests_per_second": (_D, [_P]),
    "mb_result_goodput_per_second": (_D, [_P]),
    "mb_result_server_software": (ctypes.c_char_p, [_P]),
    "mb_result_connected_to": (ctypes.c_char_p, [_P]),
    "mb_result_tls_session": (ctypes.c_int, [_P, ctypes.POINTER(_TlsSession), _SZ]),
    "mb_result_tls_failure_reason_count": (_SZ, [_P]),
    "mb_result_tls_failure_reason": (ctypes.c_char_p, [_P, _SZ]),
    "mb_result_target_count": (_U64, [_P]),
    "mb_result_target_row_count": (_SZ, [_P]),
    "mb_result_target_row": (ctypes.c_int, [_P, _SZ, ctypes.POINTER(_TargetRow), _SZ]),
    "mb_result_target_name": (ctypes.c_char_p, [_P, _SZ]),
    "mb_result_factorial_verdict": (_SZ, [_P, ctypes.c_char_p, _SZ]),
    "mb_result_interval_count": (_SZ, [_P]),
    "mb_result_interval": (ctypes.c_int, [_P, _SZ, ctypes.POINTER(_Interval), _SZ]),
    "mb_result_stage_count": (_SZ, [_P]),
    "mb_result_stage": (ctypes.c_int, [_P, _SZ, ctypes.POINTER(_Stage), _SZ]),
    "mb_result_timing_count": (_U64, [_P, ctypes.c_int]),
    "mb_result_timing_percentile_ns": (_I64, [_P, ctypes.c_int, _D]),
    "mb_result_timing_min_ns": (_I64, [_P, ctypes.c_int]),
    "mb_result_timing_max_ns": (_I64, [_P, ctypes.c_int]),
    "mb_result_timing_mean_ns": (_D, [_P, ctypes.c_int]),
    "mb_result_timing_stddev_ns": (_D, [_P, ctypes.c_int]),
    "mb_result_report_ab": (_SZ, [_P, ctypes.c_char_p, _SZ]),
    "mb_result_report_latency": (_SZ, [_P, ctypes.POINTER(_D), _SZ, ctypes.c_char_p, _SZ]),
    "mb_result_hgrm": (_SZ, [_P, ctypes.c_int, ctypes.c_char_p, _SZ]),
    "mb_result_hlog": (_SZ, [_P, ctypes.c_char_p, _SZ]),
    "mb_result_json": (_SZ, [_P, ctypes.POINTER(_D), _SZ, ctypes.c_char_p, _SZ]),
    "mb_capacity_objective_init": (None, [ctypes.POINTER(_CapacityObjective)]),
    "mb_find_capacity": (ctypes.c_int, [_P, ctypes.POINTER(_CapacityObjective), ctypes.POINTER(_P)]),
    "mb_capacity_destroy": (None, [_P]),
    "mb_capacity_rate": (_D, [_P]),
    "mb_capacity_flags": (ctypes.c_int, [_P]),
    "mb_capacity_step_count": (_SZ, [_P]),
    "mb_capacity_step_info": (ctypes.c_int, [_P, _SZ, ctypes.POINTER(_CapacityStep), _SZ]),
    "mb_capacity_stopped": (ctypes.c_int, [_P]),
    "mb_capacity_table": (_SZ, [_P, ctypes.c_char_p, _SZ]),
    "mb_capacity_json": (_SZ, [_P, ctypes.c_char_p, _SZ]),
    "mb_capacity_report_html": (_SZ, [_P, ctypes.c_char_p, ctypes.c_char_p, _SZ]),
    "mb_hlog_create": (ctypes.c_int, [ctypes.POINTER(_P)]),
    "mb_hlog_destroy": (None, [_P]),
    "mb_hlog_add": (ctypes.c_int, [_P, ctypes.c_char_p, _SZ]),
    "mb_hlog_set_max_memory": (ctypes.c_int, [_P, _U64]),
    "mb_hlog_message": (ctypes.c_char_p, [_P]),
    "mb_hlog_tag_count": (_SZ, [_P]),
    "mb_hlog_tag_info": (ctypes.c_int, [_P, _SZ, ctypes.POINTER(_HlogTag), _SZ]),
    "mb_hlog_percentile": (_I64, [_P, _SZ, _D]),
    "mb_hlog_hgrm": (_SZ, [_P, _SZ, _D, ctypes.c_char_p, _SZ]),
    "mb_report_html_json": (ctypes.c_int, [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p), _SZ,
                                           ctypes.c_char_p, ctypes.c_char_p, _SZ, ctypes.POINTER(_SZ)]),
    "mb_suite_run": (ctypes.c_int, [ctypes.c_char_p, _D, ctypes.c_int, ctypes.POINTER(_P)]),
    "mb_self_test": (ctypes.c_int, [_D, ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_int)]),
    "mb_suite_destroy": (None, [_P]),
    "mb_suite_count": (_SZ, [_P]),
    "mb_suite_scenario": (ctypes.c_char_p, [_P, _SZ]),
    "mb_suite_result": (_P, [_P, _SZ]),
    "mb_suite_table": (_SZ, [_P, ctypes.c_char_p, _SZ]),
    "mb_suite_report_html": (_SZ, [_P, ctypes.c_char_p, ctypes.c_char_p, _SZ]),
    "mb_server_port": (ctypes.c_uint16, [_P]),
    "mb_server_requests": (_U64, [_P]),
    "mb_server_stop": (None, [_P]),
    "mb_server_start_limited": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint16, ctypes.c_char_p, _U32,
                                               ctypes.POINTER(_ServerLimits), ctypes.POINTER(_P)]),
    "mb_server_count": (_U64, [_P, ctypes.c_int]),
    "mb_server_limits_init": (None, [ctypes.POINTER(_ServerLimits)]),
    "mb_cancel_create": (ctypes.c_int, [ctypes.POINTER(_P)]),
    "mb_cancel_trigger": (None, [_P]),
    "mb_cancel_destroy": (None, [_P]),
}
for _name, (_restype, _argtypes) in _SIGNATURES.items():
    _f = getattr(_lib, _name)
    _f.restype, _f.argtypes = _restype, _argtypes

_linked = _lib.mb_version_number()
if (_linked // 10000, _linked // 100 % 100) != VERSION:
    raise OSError(f"libmicrobench {_lib.mb_version().decode()} does not match this module (for {VERSION[0]}.{VERSION[1]}.x)")


__version__ = _lib.mb_version().decode()  # the loaded library's, e.g. "0.1.0" (the package is versioned as its header)


def version() -> str:
    """The linked library's version, e.g. "0.1.0"."""
    return _lib.mb_version().decode()


def _check(status):
    if status != 0:
        raise MicrobenchError(status, _lib.mb_status_name(status).decode(), _lib.mb_status_message(status).decode())


def _text(fn, *args):
    size = fn(*args, None, 0)
    buf = ctypes.create_string_buffer(size + 1)
    fn(*args, buf, size + 1)
    return buf.value.decode(errors="replace")  # a server's own bytes (its Server header) pass through


def _count(value: int, bits: int, name: str) -> int:
    """An unsigned C integer of `bits` bits (any integer type: numpy's too), or ValueError (ctypes
    would wrap it silently)."""
    try:
        number = operator.index(value)
    except TypeError:
        number = -1
    if isinstance(value, bool) or not 0 <= number < 1 << bits:
        raise ValueError(f"{name} is a whole number from 0 to {(1 << bits) - 1}, not {value!r}")
    return number


def _ms(seconds: float, name: str, unit: float = 1000) -> int:
    """Seconds as whole milliseconds (the C API's unit; unit=1e6: microseconds), a positive time at
    least 1; a negative or non-finite time is a ValueError."""
    if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or not (math.isfinite(seconds) and seconds >= 0):
        raise ValueError(f"{name} is seconds, 0 or more, not {seconds!r}")
    n = min(round(float(seconds) * unit), (1 << 63) - 1)  # the C API says what is out of its range
    return 1 if n == 0 and seconds > 0 else n


@dataclasses.dataclass
class Timing:
    """One of ab's timing columns, in milliseconds: exact count/min/mean/max, percentiles within 0.1 %."""
    count: int
    min_ms: float
    mean_ms: float
    max_ms: float
    percentiles_ms: Dict[float, float]  # {50: …, 90: …, 99: …, 99.9: …}
    stddev_ms: float = 0.0  # population, from the histogram's buckets around the exact mean
    hgrm: str = dataclasses.field(default="", repr=False)  # the spectrum as HdrHistogram's .hgrm text in ms, for its plotter

    @property
    def p50_ms(self) -> float:
        """The median."""
        return self.percentiles_ms[50]

    @property
    def p99_ms(self) -> float:
        """The 99th percentile."""
        return self.percentiles_ms[99]


@dataclasses.dataclass
class Interval:
    """One interval of a run: what was sent and ended in it; response times in milliseconds."""
    start_s: float
    duration_s: float
    sent: int
    ended: int
    completed: int
    failed: int
    target_requests: float  # at a fixed rate: requests the schedule meant to send in it (a count)
    rate_per_s: float       # requests that ended in it, per second
    target_per_s: float     # at a fixed rate: target_requests per second, to set beside rate_per_s
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    lag_p99_ms: float  # at a fixed rate: schedule lag
    lag_max_ms: float


def _interval_from(row):
    return Interval(start_s=row.start_ns / 1e9, duration_s=row.duration_ns / 1e9, sent=row.sent, ended=row.ended,
                    completed=row.completed, failed=row.failed, target_requests=row.target_requests, rate_per_s=row.rate_per_s,
                    target_per_s=row.target_per_s,
                    p50_ms=row.p50_ns / 1e6, p90_ms=row.p90_ns / 1e6, p99_ms=row.p99_ns / 1e6, max_ms=row.max_ns / 1e6,
                    lag_p99_ms=row.lag_p99_ns / 1e6, lag_max_ms=row.lag_max_ns / 1e6)


@dataclasses.dataclass
class Stage:
    """One stage of a staged rate (run(stages=...)): its start and length (s), its rate at its start
    and end (per s), the requests the schedule meant to send in it and what those sent got, by
    their intended send time; p50/p99 response time in ms within 10 % (None when none completed in
    it, or after a merge)."""
    start_s: float
    duration_s: float
    from_per_s: float
    to_per_s: float
    intended: float
    sent: int
    completed: int
    failed: int
    p50_ms: Optional[float]
    p99_ms: Optional[float]


@dataclasses.dataclass
class Result:
    """What a run measured: every request ended exactly once, completed or failed with one reason."""
    ended: int
    completed: int
    failed: int
    unfinished: int
    non_2xx: int
    keep_alive_requests: int
    retries: int
    connects: int
    server_closes: int
    bytes_sent: int
    bytes_received: int
    body_bytes: int
    document_length: int
    concurrency_peak: int
    local_waits: int         # connects that waited for a local port, descriptor or buffer
    connection_waits: int   # at a fixed rate: sent late, every connection busy at their time
    schedule_missed: int    # at a fixed rate: their time came before the end, never sent
    failures: Dict[str, int]  # reason -> count, for every reason in FAILURES
    status_codes: Dict[int, int]  # status -> count of the complete responses, e.g. {200: 998, 503: 2}
    cancelled: bool
    elapsed_s: float
    requests_per_second: float
    goodput_per_second: float  # completed (correct) responses per second
    server_software: str
    connected_to: str       # with connect_to: the "host:port" it connected to; with unix_socket "unix:PATH"; "" when the URL's
    tls_handshakes: int     # over TLS (https://): handshakes made, and how many resumed a session
    tls_resumed: int
    tls_handshake_failures: int  # of the tls failures, requests whose handshake failed (ab's Connect column)
    tls: Dict[str, Any]     # what the first handshake negotiated (protocol, cipher, server_key_bits, secret_bits,
                            # temp_key, server_name), as ab reports it; {} without TLS
    tls_failure_reasons: List[str]  # the first distinct reasons of `tls` failures
    timings: Dict[str, Timing]  # each of TIMINGS ("connect" … "schedule_lag", "tls_handshake") -> Timing
    intervals: List[Interval]  # when the run had them (rate, interval= or interval_histograms)
    report: str             # ab's report and microbench's notes
    latency_report: str     # the percentile table of every timing column
    json: Dict[str, Any]    # the whole result, histograms' percentiles included
    # HdrHistogram's interval log (format 1.3) of the intervals, with interval_histograms=True; else ""
    hlog: str = dataclasses.field(default="", repr=False)
    # What each target got (by_target=True, or check_factorial="each" with targets): the worst first,
    # at most 1,000, the rest folded into `targets_folded` (its index: how many it stands for)
    targets: List["TargetRow"] = dataclasses.field(default_factory=list)
    targets_folded: Optional["TargetRow"] = None
    # check_factorial="each": where the answers turn wrong, "right for n = 0..20; wrong from n = 21 (...)"
    factorial_verdict: str = ""
    # on_request: its answers that named a target outside the targets (each stopped its worker)
    request_fn_faults: int = 0
    backlog_waits: int = 0   # over a Unix socket: connects that found the server's listen queue full and waited
    tls_no_session: int = 0  # with tls_resume: full handshakes made with no session at hand to offer
    stages: List[Stage] = dataclasses.field(default_factory=list)  # with stages=: one each


@dataclasses.dataclass
class TargetRow:
    """One target's outcomes: its request target (path and query), its place in the run's targets,
    its counts (wrong: failed its checks, of `failed`) and its p50 and p99 total time in ms, within
    10% (0 when none completed)."""
    target: str
    index: int
    requests: int
    completed: int
    failed: int
    unfinished: int
    non_2xx: int
    wrong: int
    p50_ms: float
    p99_ms: float


def _target_rows(handle):
    rows = []
    for i in range(_lib.mb_result_target_row_count(handle) + (1 if _lib.mb_result_target_count(handle) else 0)):
        row = _TargetRow()
        _check(_lib.mb_result_target_row(handle, i, ctypes.byref(row), ctypes.sizeof(row)))
        rows.append(TargetRow(target=_lib.mb_result_target_name(handle, i).decode(errors="replace"), index=row.index,
                              requests=row.requests, completed=row.completed, failed=row.failed,
                              unfinished=row.unfinished, non_2xx=row.non_2xx, wrong=row.wrong,
                              p50_ms=row.p50_ns / 1e6, p99_ms=row.p99_ns / 1e6))
    return rows


def _result_from(handle, percentiles=(50, 90, 99, 99.9)):
    counts = {name: _lib.mb_result_count(handle, i) for i, name in enumerate(_COUNTS)}
    timings = {}
    for i, name in enumerate(TIMINGS):
        timings[name] = Timing(
            count=_lib.mb_result_timing_count(handle, i),
            min_ms=_lib.mb_result_timing_min_ns(handle, i) / 1e6,
            mean_ms=_lib.mb_result_timing_mean_ns(handle, i) / 1e6,
            max_ms=_lib.mb_result_timing_max_ns(handle, i) / 1e6,
            percentiles_ms={p: _lib.mb_result_timing_percentile_ns(handle, i, p) / 1e6 for p in percentiles},
            stddev_ms=_lib.mb_result_timing_stddev_ns(handle, i) / 1e6,
            hgrm=_text(_lib.mb_result_hgrm, handle, i))
    ps = (ctypes.c_double * len(percentiles))(*percentiles)
    session, tls = _TlsSession(), {}
    if _lib.mb_result_tls_session(handle, ctypes.byref(session), ctypes.sizeof(session)) == 0:
        tls = {name: getattr(session, name).decode(errors="replace") if kind is not ctypes.c_int else getattr(session, name)
               for name, kind in ((f[0], f[1]) for f in _TlsSession._fields_)}
    intervals = []
    for i in range(_lib.mb_result_interval_count(handle)):
        row = _Interval()
        _check(_lib.mb_result_interval(handle, i, ctypes.byref(row), ctypes.sizeof(row)))
        intervals.append(_interval_from(row))
    stages = []
    for i in range(_lib.mb_result_stage_count(handle)):
        st = _Stage()
        _check(_lib.mb_result_stage(handle, i, ctypes.byref(st), ctypes.sizeof(st)))
        known = st.p50_ns >= 0
        stages.append(Stage(st.start_ms / 1e3, st.duration_ms / 1e3, st.from_per_s, st.to_per_s, st.intended, st.sent,
                            st.completed, st.failed, st.p50_ns / 1e6 if known else None, st.p99_ns / 1e6 if known else None))
    return Result(
        ended=counts["ended"], completed=counts["completed"], failed=counts["failed"], unfinished=counts["unfinished"],
        non_2xx=counts["non_2xx"], keep_alive_requests=counts["keep_alive_requests"], retries=counts["retries"],
        connects=counts["connects"], server_closes=counts["server_closes"], bytes_sent=counts["bytes_sent"],
        bytes_received=counts["bytes_received"], body_bytes=counts["body_bytes"], document_length=counts["document_length"],
        concurrency_peak=counts["concurrency_peak"], local_waits=counts["local_waits"],
        connection_waits=counts["connection_waits"], schedule_missed=counts["schedule_missed"],
        failures={name: _lib.mb_result_failures(handle, i) for i, name in enumerate(FAILURES)},
        status_codes={code: count for code in range(100, 1000) if (count := _lib.mb_result_status_count(handle, code))},
        cancelled=bool(_lib.mb_result_cancelled(handle)),
        elapsed_s=_lib.mb_result_elapsed_ns(handle) / 1e9,
        requests_per_second=_lib.mb_result_requests_per_second(handle),
        goodput_per_second=_lib.mb_result_goodput_per_second(handle),
        server_software=_lib.mb_result_server_software(handle).decode(errors="replace"),
        connected_to=_lib.mb_result_connected_to(handle).decode(errors="replace"),
        tls_handshakes=counts["tls_handshakes"], tls_resumed=counts["tls_resumed"],
        tls_handshake_failures=counts["tls_handshake_failures"], tls=tls, request_fn_faults=counts["request_fn_faults"],
        backlog_waits=counts["backlog_waits"], tls_no_session=counts["tls_no_session"], stages=stages,
        tls_failure_reasons=[_lib.mb_result_tls_failure_reason(handle, i).decode(errors="replace")
                             for i in range(_lib.mb_result_tls_failure_reason_count(handle))],
        timings=timings,
        intervals=intervals,
        report=_text(_lib.mb_result_report_ab, handle),
        latency_report=_text(_lib.mb_result_report_latency, handle, ps, len(percentiles)),
        json=_json.loads(_text(_lib.mb_result_json, handle, ps, len(percentiles))),
        hlog=_text(_lib.mb_result_hlog, handle),
        targets=(rows := _target_rows(handle))[:-1], targets_folded=rows[-1] if rows else None,
        factorial_verdict=_text(_lib.mb_result_factorial_verdict, handle))


class Cancel:
    """Stops runs from another thread: pass it to run(cancel=…), then call trigger(). Once
    triggered it stays so: a run given it afterwards stops at once."""

    def __init__(self) -> None:
        self._lock = threading.RLock()  # reentrant: trigger() may come from a signal handler on this thread
        self._triggered = False
        self._runs = []  # the cancel tokens of the runs in progress that were given this

    def trigger(self) -> None:
        """Stops every run given this that is in progress, and every later one at once."""
        with self._lock:
            self._triggered = True
            for token in self._runs:
                _lib.mb_cancel_trigger(token)

    def _attach(self, token):
        with self._lock:
            self._runs.append(token)
            if self._triggered:
                _lib.mb_cancel_trigger(token)

    def _detach(self, token):
        with self._lock:
            self._runs.remove(token)

    def close(self) -> None:
        """Nothing to release: kept so `with Cancel() as cancel:` reads as before."""

    def __enter__(self) -> Cancel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Stopper:
    """A run's own cancel token, triggered by Cancel.trigger() and by the first exception a
    callback raises, which run() raises once the run has stopped (ctypes would print it and go on)."""

    def __init__(self):
        self.token = _P()
        _check(_lib.mb_cancel_create(ctypes.byref(self.token)))
        self.error = None
        self._lock = threading.Lock()  # on_response runs on several worker threads

    def guard(self, fn, when_raised):
        """fn as a callback that, once any callback has raised, is no longer called."""
        def call(*args):
            if self.error is not None:
                return when_raised
            try:
                return fn(*args)
            except BaseException as e:  # KeyboardInterrupt too: it stops the run the same way
                with self._lock:
                    if self.error is None:
                        self.error = e
                _lib.mb_cancel_trigger(self.token)
                return when_raised
        return call

    def close(self):
        if self.token:
            _lib.mb_cancel_destroy(self.token)
            self.token = _P()


_StrOrBytes = Union[str, bytes]


def _write_request(on_request, call) -> int:
    """on_request's answer for `call` (an mb_request_call) written into its room; its length."""
    written = on_request(call.index, call.target, ctypes.string_at(call.prepared, call.prepared_length))
    if written is None:
        return 0
    if isinstance(written, tuple):
        written, target = written[0], operator.index(written[1])
        if not 0 <= target < 1 << 32:
            raise ValueError(f"on_request named target {target}: a target is from 0 to 2**32 - 1")
        call.target = target
    if not isinstance(written, (bytes, bytearray, memoryview)):
        raise TypeError(f"on_request returns the request's bytes, not {type(written).__name__}")
    data = bytes(written)
    if len(data) > call.capacity:
        raise ValueError(f"on_request wrote {len(data)} bytes, more than request_capacity ({call.capacity})")
    ctypes.memmove(call.data, data, len(data))
    return len(data)


def run(url: str, n: Optional[int] = None, c: int = 1, *, duration: Optional[float] = None, threads: int = 1,
        keep_alive: bool = True, pipeline: int = 1, timeout: float = 30.0, method: str = "GET",
        headers: Optional[Dict[str, str]] = None, body: Optional[_StrOrBytes] = None, content_type: Optional[str] = None,
        expect_status: Optional[Sequence[int]] = None, check_factorial: Union[int, str, None] = None,
        targets: Optional[Sequence[Union[str, Dict[str, Any]]]] = None, targets_file: Optional[str] = None,
        url_ranges: bool = False, order: str = "in_turn", each_once: bool = False, by_target: bool = False,
        body_equals: Optional[_StrOrBytes] = None,
        body_starts_with: Optional[_StrOrBytes] = None, body_contains: Optional[_StrOrBytes] = None,
        body_regex: Optional[_StrOrBytes] = None, length_check: bool = True,
        bind_address: Optional[str] = None, connect_to: Optional[Sequence[str]] = None,
        unix_socket: Optional[Union[str, bytes, os.PathLike]] = None,
        stages: Optional[Sequence[Tuple[float, float]]] = None, raise_fd_limit: bool = False, rate: float = 0.0, arrivals: str = "uniform",
        seed: int = 0, max_batch_lag: Optional[float] = None, interval: Optional[float] = None, interval_histograms: bool = False,
        on_response: Optional[Callable[[int, int], bool]] = None, on_progress: Optional[Callable[[int, int, float], None]] = None,
        on_interval: Optional[Callable[[Interval], None]] = None,
        on_request: Optional[Callable[[int, int, bytes], Union[bytes, Tuple[bytes, int], None]]] = None,
        request_capacity: int = 4096, cancel: Optional[Cancel] = None, drain: Optional[float] = None,
        socket_buffer: int = 0, resend_non_idempotent: bool = False, start_at: Optional[float] = None,
        shard: Optional[Tuple[int, int]] = None, connect_timeout: Optional[float] = None, progress_every: float = 0.1,
        progress_every_requests: int = 0, tls_version: str = "ALL", ciphers: Optional[str] = None,
        certificate: Optional[str] = None, sni: bool = True, verify: bool = False, cacert: Optional[str] = None,
        tls_resume: bool = False, libssl: Optional[str] = None, _validate_only: bool = False,
        _execute: Optional[Callable[[Any, Any], Any]] = None) -> Result:
    """Runs n requests (default 1) over c connections and returns a Result; with duration=S, for S
    seconds, and without n for as many requests as fit (like ab's -t; n with a duration: both limits);
    with rate=R, on a fixed schedule of R requests/s (the open model: see Result.timings["response"]),
    with stages=[(seconds, per_s), ...], k6's stages: each ramps linearly to per_s over its seconds from
    where the last left the rate (from rate=, else 0), the run lasting their total (Result.stages),
    evenly spaced or, with arrivals="poisson", as independent arrivals drawn from `seed`.
    max_batch_lag=S lets a request at a fixed rate go up to S seconds (0 to 0.01) late so that one
    wake of its worker thread sends it with the requests due after it (default: 50 µs).

    interval=S gives Result.intervals a row per S seconds (default: 1 s with a rate or
    interval_histograms, else none; 0: none);
    interval_histograms=True keeps each row's histograms (Result.json's intervals carry them, so merged
    results get exact percentiles) and gives Result.hlog, the rows as HdrHistogram's interval log.
    on_response(status, body_bytes) -> bool is called on worker threads for every whole response
    (False fails it as `check`); on_progress(ended, target, elapsed_s) and on_interval(Interval) on this thread.
    on_progress comes every `progress_every` seconds (0: not by time) and each time another
    `progress_every_requests` requests have ended (0: not by count).
    Checks (a response that fails one fails as `check`): expect_status=[codes], body_equals,
    body_starts_with and body_contains (bytes, or str as UTF-8), body_regex (a POSIX extended regular
    expression, not Python's re: found anywhere in a body of at most 1 MiB, ^ and $ its ends),
    check_factorial=n (the body is n!) or "each"; the report and Result.json's first_failed_check
    show the first response that failed.
    on_request(index, target, prepared) -> bytes writes each request, on worker threads: index is
    the request's number (unique in the run, or in a shard), target the target the order picked (0 without
    targets), prepared the request the plan would send to it. It returns the whole HTTP/1.x request,
    at most request_capacity bytes, or (request, target) to count it under another target, or
    None (or b"") to send no more from that worker. The URL still says where to connect.
    A callback that raises stops the run (as cancel would), and run() raises its exception.

    timeout: seconds per request; connect_timeout: seconds for connecting (default: timeout).
    bind_address: local address(es) to connect from: one, a list "a,b", IPv4 ranges "a-b".
    connect_to=["HOST:PORT:ADDR:PORT", ...]: curl's --connect-to, where to connect when the URL names
    HOST:PORT (the Host header, SNI and verify still name HOST); Result.connected_to says where.
    unix_socket=PATH: curl's --unix-socket, every connection to that Unix socket (the URL still gives
    the Host header and the path); Result.connected_to is then "unix:PATH".
    drain=S: how long requests in flight may finish once a duration ends. socket_buffer: SO_SNDBUF
    and SO_RCVBUF in bytes (ab -b; 0: the kernel's). resend_non_idempotent: also resend a POST that
    met a closed keep-alive connection. Many generators: start_at=T starts at Unix time T (seconds,
    as time.time()); shard=(index, count) runs shard `index` of `count` of this plan (its share of
    n, c and rate; their schedules and seeds interleave).

    Many requests, not one (docs/targets.md): url_ranges=True reads {A..B} and {a,b,c} in
    the URL; targets=[url, ...] (or dicts {"url", "method", "body"}) and targets_file=PATH (vegeta's
    formats) give a list, of the URL's origin; order="random" picks each at random from `seed`;
    each_once=True sends every target exactly once (n is theirs); by_target=True fills
    Result.targets; check_factorial="each" checks every answer against its own URL's n and says
    where they turn wrong in Result.factorial_verdict.

    https:// (OpenSSL 3's libssl.so.3, loaded at run time; libssl= names another file): tls_version
    "TLS1.2", "TLS1.3" … or "ALL" (ab -f), ciphers (ab -Z), certificate: a PEM with the client's
    chain and key (ab -E), sni=False (ab -I), verify=True checks the certificate and its name
    against the system's authorities, cacert=FILE (a PEM) against those in it (it turns checking
    on by itself), tls_resume=True resumes sessions
    instead of a full handshake per connection: each thread keeps the tickets servers send and
    offers a TLS 1.3 one once (Result.tls_no_session: full handshakes made with none at hand).
    """
    stopper = _Stopper()
    plan, result = _P(), _P()  # mb_plan_destroy and mb_result_destroy accept NULL
    callbacks = []  # the C functions must live as long as the run
    if each_once and (n is not None or duration is not None):
        raise ValueError("each_once sends each target once: give no n and no duration")
    if stages and duration is not None:
        raise ValueError("stages make the run as long as they are together: give no duration")
    if n is None:
        n = 0 if duration or stages else 1
    try:
        _check(_lib.mb_plan_create(url.encode(), ctypes.byref(plan)))
        _check(_lib.mb_plan_set_requests(plan, _count(n, 64, "n")))
        _check(_lib.mb_plan_set_concurrency(plan, _count(c, 32, "c")))
        _check(_lib.mb_plan_set_threads(plan, _count(threads, 32, "threads")))
        _check(_lib.mb_plan_set_keep_alive(plan, int(keep_alive)))
        _check(_lib.mb_plan_set_pipeline(plan, _count(pipeline, 32, "pipeline")))
        connect_timeout = timeout if connect_timeout is None else connect_timeout
        _check(_lib.mb_plan_set_timeout_ms(plan, _ms(timeout, "timeout"), _ms(connect_timeout, "connect_timeout")))
        _check(_lib.mb_plan_set_method(plan, method.encode()))
        _check(_lib.mb_plan_set_length_check(plan, int(length_check)))
        _check(_lib.mb_plan_set_raise_fd_limit(plan, int(raise_fd_limit)))
        _check(_lib.mb_plan_set_rate(plan, float(rate)))
        if arrivals not in ("uniform", "poisson"):
            raise ValueError(f"arrivals is 'uniform' or 'poisson', not {arrivals!r}")
        _check(_lib.mb_plan_set_arrivals(plan, int(arrivals == "poisson"), operator.index(seed) & ((1 << 64) - 1)))
        if max_batch_lag is not None:  # a negative one would mean the default to the C API: refused
            _check(_lib.mb_plan_set_max_batch_lag_us(plan, _ms(max_batch_lag, "max_batch_lag", 1e6)))
        if interval is None and interval_histograms and not rate:
            interval = 1.0  # histograms need rows: a second's, as the command line's --hlog
        if interval is not None:
            _check(_lib.mb_plan_set_interval_ms(plan, _ms(interval, "interval")))
        _check(_lib.mb_plan_set_interval_histograms(plan, int(interval_histograms)))
        if duration is not None:
            _check(_lib.mb_plan_set_duration_ms(plan, _ms(duration, "duration")))
        for name, value in (headers or {}).items():
            _check(_lib.mb_plan_add_header(plan, name.encode(), value.encode()))
        if body is not None:
            data = body.encode() if isinstance(body, str) else bytes(body)
            _check(_lib.mb_plan_set_body(plan, data, len(data), content_type.encode() if content_type else None))
        if expect_status:
            codes = (ctypes.c_int * len(expect_status))(*expect_status)
            _check(_lib.mb_plan_expect_status(plan, codes, len(expect_status)))
        if check_factorial == "each":
            _check(_lib.mb_plan_check_factorial_of_each_target(plan))
        elif check_factorial is not None:
            _check(_lib.mb_plan_check_factorial(plan, _count(check_factorial, 32, "check_factorial")))
        if isinstance(targets, (str, bytes)):
            raise TypeError("targets is a list of URLs (or dicts), not one URL")
        for target in targets or ():
            t = {"url": target} if isinstance(target, str) else dict(target)
            if not set(t) <= {"url", "method", "body"}:
                raise ValueError(f"a target has a url, a method and a body, not {sorted(set(t) - {'url', 'method', 'body'})}")
            data = t.get("body")
            data = data.encode() if isinstance(data, str) else (bytes(data) if data is not None else None)
            _check(_lib.mb_plan_add_target(plan, t["url"].encode(), t["method"].encode() if t.get("method") else None,
                                           data, len(data) if data is not None else 0))
        if targets_file is not None:
            line, column = _SZ(), _SZ()
            path = os.fsencode(targets_file)
            status = _lib.mb_plan_set_targets_file(plan, path, ctypes.byref(line), ctypes.byref(column))
            if status:
                where = f"{os.fsdecode(path)}:{line.value}:{column.value}" if line.value else os.fsdecode(path)
                raise MicrobenchError(status, _lib.mb_status_name(status).decode(),
                                      f"{where}: {_lib.mb_status_message(status).decode()}")
        _check(_lib.mb_plan_set_url_ranges(plan, int(url_ranges)))
        if order not in ("in_turn", "random"):
            raise ValueError(f"order is 'in_turn' or 'random', not {order!r}")
        _check(_lib.mb_plan_set_order(plan, int(order == "random"), operator.index(seed) & ((1 << 64) - 1)))
        _check(_lib.mb_plan_set_each_once(plan, int(each_once)))
        _check(_lib.mb_plan_set_by_target(plan, int(by_target)))
        for setter, text in ((_lib.mb_plan_check_body_equals, body_equals), (_lib.mb_plan_check_body_starts_with, body_starts_with),
                             (_lib.mb_plan_check_body_contains, body_contains)):
            if text is not None:
                data = text.encode() if isinstance(text, str) else bytes(text)
                _check(setter(plan, data, len(data)))
        if body_regex is not None:
            pattern = body_regex.encode() if isinstance(body_regex, str) else bytes(body_regex)
            if b"\0" in pattern:  # C would read a shorter pattern
                raise ValueError("body_regex holds a NUL byte")
            why = ctypes.create_string_buffer(256)
            status = _lib.mb_plan_check_body_matches(plan, pattern, why, len(why))
            if status:
                raise MicrobenchError(status, _lib.mb_status_name(status).decode(),
                                      f"{_lib.mb_status_message(status).decode()}: {why.value.decode(errors='replace')}")
        if bind_address:
            _check(_lib.mb_plan_set_bind_address(plan, bind_address.encode()))
        if isinstance(connect_to, str):
            raise TypeError("connect_to is a list of HOST:PORT:ADDR:PORT rules, not one rule")
        for rule in connect_to or ():
            _check(_lib.mb_plan_add_connect_to(plan, rule.encode()))
        if unix_socket is not None:
            _check(_lib.mb_plan_set_unix_socket(plan, _socket_path(unix_socket)))
        _check(_lib.mb_plan_clear_stages(plan))
        for seconds, per_s in stages or ():
            _check(_lib.mb_plan_add_stage(plan, _ms(seconds, "a stage's duration"), float(per_s)))
        if drain is not None:
            _check(_lib.mb_plan_set_drain_ms(plan, _ms(drain, "drain")))
        _check(_lib.mb_plan_set_socket_buffer_bytes(plan, _count(socket_buffer, 32, "socket_buffer")))
        _check(_lib.mb_plan_set_resend_non_idempotent(plan, int(resend_non_idempotent)))
        if start_at is not None:
            _check(_lib.mb_plan_set_start_at_unix_ms(plan, _ms(start_at, "start_at")))
        if tls_version not in TLS_VERSIONS:
            raise ValueError(f"tls_version is one of {', '.join(TLS_VERSIONS)}, not {tls_version!r}")
        _check(_lib.mb_plan_set_tls(plan, TLS_VERSIONS[tls_version], ciphers.encode() if ciphers else None,
                                    certificate.encode() if certificate else None, int(sni)))
        _check(_lib.mb_plan_set_tls_verify(plan, int(verify or cacert is not None), cacert.encode() if cacert else None))
        _check(_lib.mb_plan_set_tls_resume(plan, int(tls_resume)))
        if libssl:
            _check(_lib.mb_plan_set_libssl(plan, libssl.encode()))
        if shard is not None:  # after the requests, connections and rate it divides
            index, count = shard
            _check(_lib.mb_plan_divide(plan, _count(index, 32, "shard index"), _count(count, 32, "shard count")))
        if on_response:
            fn = _RESPONSE_FN(stopper.guard(lambda status, size, _user: int(bool(on_response(status, size))), 0))
            callbacks.append(fn)
            _check(_lib.mb_plan_on_response(plan, fn, None))
        if on_progress:
            fn = _PROGRESS_FN(stopper.guard(lambda ended, target, elapsed, _user: on_progress(ended, target, elapsed / 1e9), None))
            callbacks.append(fn)
            _check(_lib.mb_plan_on_progress(plan, fn, None, _ms(progress_every, "progress_every"),
                                            _count(progress_every_requests, 64, "progress_every_requests")))
        if on_interval:
            fn = _INTERVAL_FN(stopper.guard(lambda row, _user: on_interval(_interval_from(row.contents)), None))
            callbacks.append(fn)
            _check(_lib.mb_plan_on_interval(plan, fn, None))
        if on_request:
            fn = _REQUEST_FN(stopper.guard(lambda call, _user: _write_request(on_request, call.contents), 0))
            callbacks.append(fn)
            _check(_lib.mb_plan_set_request_fn(plan, fn, None, _count(request_capacity, 32, "request_capacity")))
        if _validate_only:
            _check(_lib.mb_plan_validate(plan))
            return None  # type: ignore[return-value]  # validate() only
        _check(_lib.mb_plan_set_cancel(plan, stopper.token))
        if cancel is not None:
            cancel._attach(stopper.token)
        try:
            if _execute is not None:  # find_capacity: the plan, set up as for a run, is searched instead
                value = _execute(plan, stopper)
                if stopper.error is not None:
                    raise stopper.error
                return value
            status = _lib.mb_run(plan, ctypes.byref(result))
        finally:
            if cancel is not None:
                cancel._detach(stopper.token)
        if stopper.error is not None:
            raise stopper.error
        _check(status)
        return _result_from(result)
    finally:
        _lib.mb_result_destroy(result)  # accepts NULL; here too when Ctrl-C comes right after the run
        _lib.mb_plan_destroy(plan)
        stopper.close()


CAPACITY_VERDICTS = ("held", "p99 over", "failures over", "rate not reached", "no response", "no connection")


@dataclasses.dataclass
class CapacityStep:
    """One fixed-rate step of find_capacity: its target and achieved rate (requests/s), the
    measured window after the warm-up (s), the requests that ended in it, their response-time
    percentiles and the schedule lag p99 (ms), the whole step's connection waits and missed
    requests, its verdict (CAPACITY_VERDICTS: "held" or why not) and whether the generator may be
    why it failed (its lag, or too few connections for the rate at the objective)."""
    target_rate: float
    achieved_rate: float
    window_s: float
    completed: int
    failed: int
    p50_ms: float
    p99_ms: float
    p999_ms: float
    max_ms: float
    lag_p99_ms: float
    connection_waits: int
    schedule_missed: int
    verdict: str
    generator_suspect: bool
    retry: bool = False  # a second try at the rate of the step before it, which failed

    @property
    def held(self) -> bool:
        return self.verdict == "held"


@dataclasses.dataclass
class Capacity:
    """What find_capacity found: the highest rate held (0.0: none), whether the step at max_rate
    held (the capacity is at least that), whether the lowest failed step was the generator's doing
    (the capacity is then a lower bound), whether a cancel stopped it, every step in order, and when a
    step could not start (a host that stopped resolving...) the error that ended the search after the
    steps before it, which stand (`stopped`: its name and words; "" when it ended by itself)."""
    rate: float
    at_max_rate: bool
    generator_limited: bool
    cancelled: bool
    steps: List[CapacityStep]
    stopped: str = ""
    table: str = dataclasses.field(default="", repr=False)  # the objective, the steps and the rate found, as text
    json: str = dataclasses.field(default="", repr=False)   # the same as JSON
    html: str = dataclasses.field(default="", repr=False)   # a page: p99 and p50 by target rate, the objective, the table


def _capacity_step_from(s: _CapacityStep) -> CapacityStep:
    return CapacityStep(s.target_rate, s.achieved_rate, s.window_ns / 1e9, s.completed, s.failed, s.p50_ns / 1e6,
                        s.p99_ns / 1e6, s.p999_ns / 1e6, s.max_ns / 1e6, s.lag_p99_ns / 1e6, s.connection_waits,
                        s.schedule_missed, CAPACITY_VERDICTS[s.verdict] if s.verdict < len(CAPACITY_VERDICTS) else f"verdict {s.verdict}",
                        bool(s.generator_suspect), bool(s.retry))


def find_capacity(url: str, max_p99_ms: float, c: int = 100, *, max_failure_ratio: float = 0.01, min_rate_ratio: float = 0.95,
                  start_rate: float = 100.0, max_rate: float = 1e6, resolution: float = 0.05, warmup: float = 1.0,
                  step: float = 5.0, min_responses: int = 1000, cooldown: float = 0.5, max_steps: int = 30,
                  on_step: Optional[Callable[[CapacityStep], None]] = None, **options: Any) -> Capacity:
    """The highest fixed rate the server at url holds with its response-time p99 (from each request's
    intended send time) within max_p99_ms, over c connections: steps of `warmup` seconds, then a
    measured window of `step` seconds (longer when min_responses would not fit), each holding when
    its p99, failure ratio and achieved rate (at least min_rate_ratio of the target) are within the
    objective. The rate doubles from start_rate while steps hold, then the gap between the highest
    held and lowest failed rate is halved until it is within `resolution`. on_step(CapacityStep) is
    called after each step; `options` are run()'s (threads, keep_alive, headers, checks, cancel…;
    not n, duration, rate, interval, interval_histograms or shard, which each step sets or cannot
    take). The rate halves, down to a sixteenth, while no step has held; a failed step is run once
    more at its rate before it counts (CapacityStep.retry); a step in which nothing completed ends
    the search ("no response", or "no connection" when no request of it got a connection), and one
    that cannot start ends it with the steps before it standing (Capacity.stopped)."""
    objective = _CapacityObjective()
    _lib.mb_capacity_objective_init(ctypes.byref(objective))
    objective.max_p99_ms, objective.max_failure_ratio, objective.min_rate_ratio = max_p99_ms, max_failure_ratio, min_rate_ratio
    objective.start_rate, objective.max_rate, objective.resolution = start_rate, max_rate, resolution
    objective.warmup_ms, objective.step_ms, objective.cooldown_ms = _ms(warmup, "warmup"), _ms(step, "step"), _ms(cooldown, "cooldown")
    objective.min_responses, objective.max_steps = _count(min_responses, 64, "min_responses"), _count(max_steps, 32, "max_steps")

    def search(plan, stopper):
        if on_step:
            objective.on_step = _CAPACITY_STEP_FN(stopper.guard(lambda s, _user: on_step(_capacity_step_from(s.contents)), None))
        handle = _P()
        try:
            _check(_lib.mb_find_capacity(plan, ctypes.byref(objective), ctypes.byref(handle)))
            steps = []
            for i in range(_lib.mb_capacity_step_count(handle)):
                info = _CapacityStep()
                _check(_lib.mb_capacity_step_info(handle, i, ctypes.byref(info), ctypes.sizeof(info)))
                steps.append(_capacity_step_from(info))
            flags = _lib.mb_capacity_flags(handle)
            status = _lib.mb_capacity_stopped(handle)
            stopped = f"{_lib.mb_status_name(status).decode()}: {_lib.mb_status_message(status).decode()}" if status else ""
            return Capacity(_lib.mb_capacity_rate(handle), bool(flags & 1), bool(flags & 2), bool(flags & 4), steps,
                            stopped, _text(_lib.mb_capacity_table, handle), _text(_lib.mb_capacity_json, handle),
                            _text(_lib.mb_capacity_report_html, handle, None))
        finally:
            _lib.mb_capacity_destroy(handle)

    for name in ("n", "duration", "rate", "interval", "interval_histograms", "shard"):
        if name in options:
            raise TypeError(f"find_capacity sets {name} itself, step by step")
    return run(url, 0, c, duration=step, _execute=search, **options)  # type: ignore[return-value]


def validate(url: str, n: Optional[int] = None, c: int = 1, **options: Any) -> None:
    """Checks a plan as run() would take it, without running it: raises MicrobenchError (the URL,
    the request, the limits) or returns None."""
    run(url, n, c, _validate_only=True, **options)


class Suite(list):
    """The scenarios of a suite, [(scenario, Result)], with the comparison table (`table`, text)
    and the HTML report of them all (`html`: a section per scenario)."""

    def __init__(self, items: Iterable[Tuple[str, Result]], table: str, html: str) -> None:
        super().__init__(items)
        self.table, self.html = table, html


def _suite_results(handle, title=None):
    items = [(_lib.mb_suite_scenario(handle, i).decode(), _result_from(_lib.mb_suite_result(handle, i)))
             for i in range(_lib.mb_suite_count(handle))]
    return Suite(items, _text(_lib.mb_suite_table, handle),
                 _text(_lib.mb_suite_report_html, handle, title.encode() if title is not None else None))


def suite(url: str, scale: float = 1.0, factorial_check: bool = False, title: Optional[str] = None) -> Suite:
    """The five scenarios of the classic comparison against url: a Suite, [(scenario, Result)] with
    .table and .html (titled `title`; None: "microbench suite")."""
    handle = _P()
    _check(_lib.mb_suite_run(url.encode(), scale, int(factorial_check), ctypes.byref(handle)))
    try:
        return _suite_results(handle, title)
    finally:
        _lib.mb_suite_destroy(handle)


def self_test(scale: float = 0.25, title: Optional[str] = None) -> Tuple[bool, Suite]:
    """The built-in server and the suite against both factorial forms: (passed, Suite)."""
    handle, passed = _P(), ctypes.c_int()
    _check(_lib.mb_self_test(scale, ctypes.byref(handle), ctypes.byref(passed)))
    try:
        return bool(passed.value), _suite_results(handle, title)
    finally:
        _lib.mb_suite_destroy(handle)


def report_html(results: Sequence[Union[Result, Dict[str, Any], str]], labels: Optional[Sequence[Optional[str]]] = None,
                title: Optional[str] = None) -> str:
    """The HTML report (one self-contained page: inline SVG charts, no script or link) drawing
    results together: Result objects, their .json dicts, or saved JSON documents as text (the
    command line's --json of any mode). labels: one per item (None: as each run was labelled)."""
    docs = [r if isinstance(r, str) else _json.dumps(r.json if isinstance(r, Result) else r) for r in results]
    names = list(labels) if labels is not None else [None] * len(docs)
    if len(names) != len(docs):
        raise ValueError("report_html: one label per result")
    c_docs = (ctypes.c_char_p * len(docs))(*[d.encode() for d in docs])
    c_labels = (ctypes.c_char_p * len(docs))(*[n.encode() if n is not None else None for n in names])
    c_title = title.encode() if title is not None else None
    size = _SZ()
    _check(_lib.mb_report_html_json(c_docs, c_labels, len(docs), c_title, None, 0, ctypes.byref(size)))
    buf = ctypes.create_string_buffer(size.value + 1)
    _check(_lib.mb_report_html_json(c_docs, c_labels, len(docs), c_title, buf, size.value + 1, None))
    return buf.value.decode()


@dataclasses.dataclass
class HlogTag:
    """One tag's rows of HdrHistogram interval logs, merged exactly (read_hlog). Values are in the
    logs' unit: nanoseconds in microbench's."""
    tag: str            # "" for untagged rows
    intervals: int      # rows read
    count: int          # values in them
    start_s: float      # the earliest row's start and the latest row's end, in seconds (since the
    end_s: float        # epoch when the log says)
    min: int            # as the histograms' buckets give them
    max: int
    mean: float         # over each bucket's middle value, as HdrHistogram computes them
    stddev: float
    percentiles: Dict[float, int]  # {50: …, 90: …, 99: …, 99.9: …, 99.99: …}
    hgrm: str = dataclasses.field(default="", repr=False)  # the spectrum as .hgrm text, values / hgrm_scale


def read_hlog(*logs: _StrOrBytes, percentiles: Sequence[float] = (50, 90, 99, 99.9, 99.99), hgrm_scale: float = 1e6,
              max_memory: Optional[int] = None) -> Dict[str, HlogTag]:
    """Reads HdrHistogram interval logs — Result.hlog, the command line's --hlog, or another
    HdrHistogram writer's (HdrHistogram.NET's UTF-16 and hdr-histogram-js's are tested): each log a
    str or bytes. Every row of every log is merged
    exactly per tag, so several generators' logs give the fleet's figures. Returns {tag: HlogTag} in
    the order tags first appear; raises MicrobenchError (name "hlog_bad", message "line N: why")
    when a line cannot be read, or when a row's histogram or the tags' totals would need more
    counter memory than max_memory bytes (None: the library's 128 MiB). hgrm_scale divides the
    spectrum's values (1e6: ns to ms); a percentile outside 0..100 reads 0."""
    handle = _P()
    _check(_lib.mb_hlog_create(ctypes.byref(handle)))
    try:
        if max_memory is not None:
            _check(_lib.mb_hlog_set_max_memory(handle, max_memory))
        for log in logs:
            data = log.encode() if isinstance(log, str) else bytes(log)
            status = _lib.mb_hlog_add(handle, data, len(data))
            if status != 0:
                raise MicrobenchError(status, _lib.mb_status_name(status).decode(), _lib.mb_hlog_message(handle).decode())
        tags = {}
        for i in range(_lib.mb_hlog_tag_count(handle)):
            info = _HlogTag()
            _check(_lib.mb_hlog_tag_info(handle, i, ctypes.byref(info), ctypes.sizeof(info)))
            name = info.tag.decode(errors="replace")
            tags[name] = HlogTag(tag=name, intervals=info.intervals, count=info.count, start_s=info.start_s, end_s=info.end_s,
                                 min=info.min, max=info.max, mean=info.mean, stddev=info.stddev,
                                 percentiles={p: _lib.mb_hlog_percentile(handle, i, p) for p in percentiles},
                                 hgrm=_text(_lib.mb_hlog_hgrm, handle, i, hgrm_scale))
        return tags
    finally:
        _lib.mb_hlog_destroy(handle)


def _socket_path(path: Union[str, bytes, os.PathLike]) -> bytes:
    """A Unix socket's path as the C API takes it: bytes without NUL, 1 to 107 of them."""
    data = os.fsencode(path)
    if not data or b"\0" in data or len(data) > 107:
        raise ValueError(f"a Unix socket path is 1 to 107 bytes without NUL, not {path!r}")
    return data


SERVER_COUNTS = ("requests", "connections", "open", "bad_requests", "header_timeouts", "idle_timeouts", "evicted",
                 "refused", "listen_pauses")  # mb_server_count's, in its order


class Server:
    """The reference server on a free loopback port (or, with unix_socket=PATH, on that Unix socket:
    a stale socket file there is replaced, and the file removed at stop), for as long as the `with`
    block lasts. What it allows its clients (None: the library's default): a request whole within
    header_timeout seconds of its first byte (60), a connection quiet no longer than idle_timeout
    (75; 0: never, either), at most max_connections at once (0: the open-file limit less 64; past
    it the quietest is closed, or the new one)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, threads: int = 1, *,
                 unix_socket: Optional[Union[str, bytes, os.PathLike]] = None, header_timeout: Optional[float] = None,
                 idle_timeout: Optional[float] = None, max_connections: Optional[int] = None) -> None:
        self._handle = _P()
        limits = _ServerLimits()
        _lib.mb_server_limits_init(ctypes.byref(limits))
        if header_timeout is not None:
            limits.header_timeout_ms = _ms(header_timeout, "header_timeout")
        if idle_timeout is not None:
            limits.idle_timeout_ms = _ms(idle_timeout, "idle_timeout")
        if max_connections is not None:
            limits.max_connections = _count(max_connections, 64, "max_connections")
        path = None if unix_socket is None else _socket_path(unix_socket)
        _check(_lib.mb_server_start_limited(None if path else host.encode(), _count(port, 16, "port"), path,
                                            _count(threads, 32, "threads"), ctypes.byref(limits),
                                            ctypes.byref(self._handle)))
        self.host = host
        self.port = _lib.mb_server_port(self._handle)
        self.unix_socket = None if unix_socket is None else os.fsdecode(unix_socket)

    def url(self, path: str = "/") -> str:
        """The URL of `path` on this server (on 127.0.0.1 when it listens on every interface, host "";
        on a Unix socket, http://localhost/..., to run with unix_socket=server.unix_socket)."""
        if self.unix_socket is not None:
            return f"http://localhost{path}"
        host = f"[{self.host}]" if ":" in self.host else self.host or "127.0.0.1"
        return f"http://{host}:{self.port}{path}"

    @property
    def requests(self) -> int:
        """Requests answered so far (0 once stopped)."""
        return _lib.mb_server_requests(self._handle)

    @property
    def counts(self) -> Dict[str, int]:
        """What it counted so far, as its /stats says it: each of SERVER_COUNTS (all 0 once stopped)."""
        return {name: _lib.mb_server_count(self._handle, i) for i, name in enumerate(SERVER_COUNTS)}

    def stop(self) -> None:
        """Stops the server (at the end of the `with` block too); stopping twice does nothing."""
        if self._handle:
            _lib.mb_server_stop(self._handle)
            self._handle = _P()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
