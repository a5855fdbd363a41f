"""What the package consumer tests (python/test_package.py, dotnet/test_nuget.py) share: an
environment with no MICROBENCH_ variable, a command that must succeed, and microbench.h's version."""
import os
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[1]

# This process's environment without any MICROBENCH_ variable: a consumer finds the packaged library.
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("MICROBENCH_")}


def run_ok(*command, cwd, env, timeout):
    """Runs `command` (paths allowed) and returns its stdout; an AssertionError with the tails of both
    outputs when it exits non-zero."""
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, command))} exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def header_version():
    """microbench.h's MB_VERSION_MAJOR.MINOR.PATCH, e.g. "0.1.0"."""
    header = (ROOT / "include" / "microbench.h").read_text()
    return ".".join(re.search(rf"#define MB_VERSION_{p} (\d+)", header).group(1) for p in ("MAJOR", "MINOR", "PATCH"))
