#!/usr/bin/env python3
"""Footprint of microbench for a target, against its budgets: stripped sizes, memory, include cost.

For each target (native, or a Debian cross triple such as aarch64-linux-gnu) it compiles, with
that target's g++ and nothing else:
  - the CLI (examples/cli/microbench.cpp) at -Os, dynamic and fully static, stripped, with the flags
    examples/CMakeLists.txt builds it with (no exceptions, RTTI or unwind tables): its bytes without
    the zeros the linker leaves between segments for the target's largest page (an aarch64 file
    pads its data segment to a 64 KB boundary, up to 64 KB more file for no more program), and the
    file's size beside them; and its small-device profile (MICROBENCH_CLI_PROFILE_SMALL, as
    examples/cli/profile.hpp defines it: no https, HTML report, merge or targets), dynamic;
  - with --features, what each of the CLI's features adds to it (the CLI built without it, its
    MICROBENCH_NO_* macro, against the full one): a table per target;
  - libmicrobench.so (the C API) at -Os, stripped;
  - a translation unit that only includes microbench.hpp, at -O0 and -O2, and beside it, in the
    same rounds, a baseline that includes only what the library needs from the standard library
    (BASELINE_HEADERS): the include cost is budgeted as the ratio of the compilers' CPU times (the
    least of 5 alternating rounds each at -O0, 2 at -O2), so neither a slower machine nor other work sharing it
    breaks the budget; the seconds are reported beside it;
  - examples/device_selftest.cpp (an on-device check: run, checks, no reports) at -Os, as it is
    and in the small-device profile (MICROBENCH_NO_SERVER, MICROBENCH_NO_REPORTS, MICROBENCH_NO_TLS,
    MICROBENCH_HISTOGRAM_DIGITS=2): code and data (`size`: text + data, what a device's flash
    holds; an aarch64 file is padded to 64 KB pages), compile CPU time, and natively its peak RSS;
    and that it carries none of the TLS loader (no dlopen, no OpenSSL function names) while the
    CLI does;
and, natively only (an emulator's memory is not the program's), peak RSS of the static and the
dynamic CLI at start (-V), of one request, of --self-test, and of keep-alive runs at c=100 and
c=10,000 against the reference server (bench/rusage.cpp measures; build microbench-rusage and
microbench-server first).

    bench/footprint.py [--targets native,aarch64-linux-gnu,arm-linux-gnueabihf] [--build build] [--check]

With --check the exit status is 1 when a budget is broken (the CTest entry footprint_budget).
Budgets (BUDGETS): dynamic CLI <= 408 KB (320 KB on 32-bit ARM), its small-device profile <= 227 KB
on 32-bit ARM, static CLI <= 1.59 MB, the device self-test's text + data <= 113 KB, idle RSS of the static CLI <= 2 MB and at --self-test <= 8 MB,
and the include-only file at -O0 in at most INCLUDE_O0_RATIO times the baseline's time.
"""
import argparse
import concurrent.futures
import contextlib
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What the library needs from the standard library. The include-only file took 2.2-3.0x this
# baseline's CPU time at -O0 here (x86-64 and both ARM cross compilers, on a machine that also ran
# a CI build and four CPU hogs: shared caches still move CPU times a little), and 2.8-4.0x on
# 2026-12-06's machine, whose compiler took 0.37-0.47 s for the baseline where the earlier one took
# 0.56 s (the include-only file: 1.3-1.6 s, as before). On 2026-12-07, with issue 39's reach
# features and the bounded log reader, it measured 4.6-4.8x alone and 5.05x in CI beside the
# suite; side by side (5 alternating rounds, CPU time) the log work added 1.78 -> 1.94 s: the
# budget is 5.5x.
BASELINE_HEADERS = ["string", "vector", "thread", "atomic", "algorithm", "memory", "cmath", "cstdio"]
INCLUDE_O0_RATIO = 5.5
# self_test_rss_static_kib guards a regression: --self-test at 4.4 MiB once grew to 14.7 MiB when
# results were written as JSON that nothing asked for.
# The budgets guard against bloat; a feature an issue asks for raises them by its measured cost.
BUDGETS = {"cli_dynamic_bytes": 408_000, "cli_static_bytes": 1_590_000, "device_text_data_bytes": 113_000,
           "idle_rss_static_kib": 2048, "self_test_rss_static_kib": 8192, "include_o0_ratio": INCLUDE_O0_RATIO}
TARGET_BUDGETS = {"arm-linux-gnueabihf": {"cli_dynamic_bytes": 320_000, "cli_small_bytes": 227_000}}
# The CLI's features that a build may leave out, each by its macro (examples/cli/profile.hpp's
# small-device profile is a set of them).
FEATURES = [("https: the OpenSSL 3 loader, -f -Z -E -I --verify --cacert --tls-resume", "MICROBENCH_NO_TLS"),
            ("the HTML report: --html, microbench report", "MICROBENCH_NO_HTML"),
            ("microbench merge", "MICROBENCH_NO_MERGE"),
            ("targets: URL ranges, --no-ranges", "MICROBENCH_NO_TARGETS")]


def tool(target, name):
    return name if target == "native" else f"{target}-{name}"


def flags(target):  # what cmake/toolchains/ adds for the target
    return ["-D_FILE_OFFSET_BITS=64", "-Wno-psabi"] if target == "arm-linux-gnueabihf" else []


# How examples/CMakeLists.txt builds the CLI outside Debug.
CLI_FLAGS = ["-fno-exceptions", "-fno-rtti", "-fno-unwind-tables", "-fno-asynchronous-unwind-tables"]


def alignment_padding(path):
    """Bytes of zeros between a file's loaded segments: what the linker leaves so that each segment
    starts at its page offset (up to the target's largest page: 64 KB on ARM), not program."""
    with open(path, "rb") as f:
        elf = f.read()
    if elf[:4] != b"\x7fELF":
        raise ValueError(f"{path} is not an ELF file")
    wide = elf[4] == 2  # ELFCLASS64
    end = "<" if elf[5] == 1 else ">"
    phoff, phentsize, phnum = (struct.unpack_from(end + "Q", elf, 32)[0], *struct.unpack_from(end + "HH", elf, 54)) if wide else \
                              (struct.unpack_from(end + "I", elf, 28)[0], *struct.unpack_from(end + "HH", elf, 42))
    loads = []
    for i in range(phnum):
        at = phoff + i * phentsize
        kind = struct.unpack_from(end + "I", elf, at)[0]
        offset, filesz = struct.unpack_from(end + "QxxxxxxxxxxxxxxxxQ", elf, at + 8) if wide else struct.unpack_from(end + "IxxxxxxxxI", elf, at + 4)
        if kind == 1:  # PT_LOAD
            loads.append((offset, filesz))
    padding, reached = 0, 0
    for offset, filesz in sorted(loads):  # a gap counts from the furthest end so far, and only if it is all zeros
        gap = elf[reached:offset]
        if reached and gap and gap.count(0) == len(gap):
            padding += len(gap)
        reached = max(reached, offset + filesz)
    return padding


def compile_cli(target, out, static, defines=()):
    """The stripped CLI: (bytes of program — the file without alignment padding —, file bytes)."""
    cmd = [tool(target, "g++"), "-std=c++17", "-Os"] + CLI_FLAGS + flags(target) + [f"-D{d}" for d in defines] + \
          ["-I", f"{ROOT}/include", f"{ROOT}/examples/cli/microbench.cpp", "-o", out, "-pthread"] + (["-static"] if static else [])
    subprocess.run(cmd, check=True)
    subprocess.run([tool(target, "strip"), out], check=True)
    size = os.path.getsize(out)
    return size - alignment_padding(out), size


def compile_c_library(target, out):
    src = out + ".cpp"
    with open(src, "w") as f:
        f.write('#define MICROBENCH_C_IMPLEMENTATION\n#include "microbench.hpp"\n')
    subprocess.run([tool(target, "g++"), "-std=c++17", "-Os"] + flags(target) + ["-fPIC", "-shared", "-fvisibility=hidden", "-I",
                    f"{ROOT}/include", src, "-o", out, "-pthread", f"-Wl,--version-script={ROOT}/cmake/microbench_c.map"],
                   check=True)
    subprocess.run([tool(target, "strip"), out], check=True)
    return os.path.getsize(out)


PROFILE = ["-DMICROBENCH_NO_SERVER", "-DMICROBENCH_NO_REPORTS", "-DMICROBENCH_NO_TLS", "-DMICROBENCH_NO_TARGETS",
           "-DMICROBENCH_HISTOGRAM_DIGITS=2"]


def device_program(target, out, switches):
    """examples/device_selftest.cpp at -Os, stripped: (text + data bytes, file bytes, compile CPU seconds)."""
    seconds = cpu_seconds([tool(target, "g++"), "-std=c++17", "-Os"] + flags(target) + switches +
                          ["-I", f"{ROOT}/include", f"{ROOT}/examples/device_selftest.cpp", "-o", out, "-pthread"])
    subprocess.run([tool(target, "strip"), out], check=True)
    return text_and_data(target, out), os.path.getsize(out), seconds


def text_and_data(target, path):
    """Code and initialized data, as binutils' size counts them (Berkeley format: text data bss)."""
    rows = subprocess.run([tool(target, "size"), path], check=True, capture_output=True, text=True).stdout.splitlines()
    text, data = rows[1].split()[:2]
    return int(text) + int(data)


def cpu_seconds(cmd):
    """Runs cmd; the CPU time (user + system) it took. Unlike its wall-clock time, this barely moves
    when other work shares the machine."""
    child = subprocess.Popen(cmd)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise subprocess.CalledProcessError(child.returncode, cmd)
    return usage.ru_utime + usage.ru_stime


def include_cost(target, work, level, rounds):
    """CPU seconds to compile a file that includes only microbench.hpp, and the baseline file that
    includes only what it needs from the standard library: the least of `rounds` alternating rounds."""
    sources = {"include_only": '#include "microbench.hpp"\n',
               "baseline": "".join(f"#include <{h}>\n" for h in BASELINE_HEADERS)}
    best = {name: float("inf") for name in sources}
    for name, text in sources.items():
        with open(f"{work}/{name}.cpp", "w") as f:
            f.write(text)
    for _ in range(rounds):
        for name in sources:
            best[name] = min(best[name], cpu_seconds([tool(target, "g++"), "-std=c++17", f"-O{level}", "-I", f"{ROOT}/single_include",
                                                      "-c", f"{work}/{name}.cpp", "-o", f"{work}/{name}.o"]))
    return best["include_only"], best["baseline"]


def peak_rss_kib(build, cmd):
    p = subprocess.run([f"{build}/bench/microbench-rusage"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    m = re.search(r"maxrss_kib=(\d+) exit=(\d+)", p.stdout)
    if not m or m.group(2) != "0":
        raise RuntimeError(f"{cmd} failed:\n{p.stdout[-2000:]}")
    return int(m.group(1))


@contextlib.contextmanager
def reference_server(build):
    """The reference server as a program, for as long as the block lasts: yields its /factorial/10 URL."""
    server = subprocess.Popen([f"{build}/examples/microbench-server", "-p", "0", "-t", "1", "-d", "600"],
                              stdout=subprocess.PIPE, text=True)
    try:
        port = re.search(r"port (\d+)", server.stdout.readline()).group(1)
        yield f"http://127.0.0.1:{port}/factorial/10"
    finally:
        server.terminate()
        server.wait()


def memory(build, cli):
    with reference_server(build) as url:
        return {"start": peak_rss_kib(build, [cli, "-V"]),
                "one request": peak_rss_kib(build, [cli, "-q", "-n", "1", url]),
                "--self-test": peak_rss_kib(build, [cli, "--self-test", "--scale", "0.05"]),
                "c=100": peak_rss_kib(build, [cli, "-q", "-k", "-n", "100000", "-c", "100", url]),
                "c=10000": peak_rss_kib(build, [cli, "-q", "-k", "-n", "50000", "-c", "10000", url])}


def tls_loader_marks(path):
    """What of the built-in TLS's loader a program holds: (an import of dlopen, the names of the
    OpenSSL functions it looks up, SSL_CTX_new among them)."""
    with open(path, "rb") as f:
        data = f.read()
    return b"dlopen" in data, b"SSL_CTX_new" in data


def device_rss(build, program):
    with reference_server(build) as url:
        return peak_rss_kib(build, [program, url])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default="native")
    ap.add_argument("--build", default="build/run", help="a build with microbench-rusage and microbench-server (native RSS)")
    ap.add_argument("--no-memory", action="store_true", help="sizes and include cost only")
    ap.add_argument("--check", action="store_true", help="exit 1 when a budget is broken")
    ap.add_argument("--features", action="store_true", help="also what each of the CLI's features adds to it, per target")
    args = ap.parse_args()
    broken = []
    features = {}  # feature -> target -> bytes it adds to the dynamic CLI
    small_saves = {}  # target -> bytes the small-device profile leaves out
    work = tempfile.mkdtemp(prefix="microbench-footprint-")
    try:
        for target in args.targets.split(","):
            if not shutil.which(tool(target, "g++")):
                sys.exit(f"footprint.py: {tool(target, 'g++')} is missing")
            # -O0 is budgeted: 5 rounds (with 3, the baseline's least moved 0.37-0.50 s from run to
            # run here, the ratio 3.96-5.56x); -O2 is only reported: 2.
            include_o0, baseline_o0 = include_cost(target, work, 0, 5)
            include_o2, baseline_o2 = include_cost(target, work, 2, 2)
            # The programs compile side by side, one a core: sizes do not depend on the order.
            with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
                jobs = [pool.submit(device_program, target, f"{work}/device-{target}", []),
                        pool.submit(device_program, target, f"{work}/device-small-{target}", PROFILE),
                        pool.submit(compile_cli, target, f"{work}/cli-{target}", False),
                        pool.submit(compile_cli, target, f"{work}/cli-static-{target}", True),
                        pool.submit(compile_cli, target, f"{work}/cli-small-{target}", False, ["MICROBENCH_CLI_PROFILE_SMALL"]),
                        pool.submit(compile_c_library, target, f"{work}/libmicrobench-{target}.so")]
                plain, small, (cli_dynamic, cli_dynamic_file), (cli_static, cli_static_file), \
                    (cli_small, cli_small_file), c_library = (job.result() for job in jobs)
            figures = {"cli_dynamic_bytes": cli_dynamic, "cli_static_bytes": cli_static, "cli_small_bytes": cli_small,
                       "c_library_bytes": c_library,
                       "device_text_data_bytes": plain[0],
                       "include_o0_ratio": include_o0 / baseline_o0}
            print(f"{target}: device self-test -Os: {plain[0] / 1000:.1f} KB text + data ({plain[1] / 1000:.1f} KB stripped file), "
                  f"compiled in {plain[2]:.2f} CPU s; small-device profile {small[0] / 1000:.1f} KB text + data "
                  f"({small[1] / 1000:.1f} KB file), {small[2]:.2f} CPU s")
            print(f"{target}: CLI stripped -Os {cli_dynamic / 1000:.1f} KB dynamic ({cli_dynamic_file / 1000:.1f} KB file with its "
                  f"alignment padding), {cli_static / 1e6:.3f} MB static ({cli_static_file / 1e6:.3f} MB file); "
                  f"libmicrobench.so {figures['c_library_bytes'] / 1000:.1f} KB; small-device profile "
                  f"{cli_small / 1000:.1f} KB ({cli_small_file / 1000:.1f} KB file)")
            if args.features:
                small_saves[target] = cli_dynamic - cli_small
                for name, macro in FEATURES:
                    without, _ = compile_cli(target, f"{work}/cli-no-{macro}-{target}", False, [macro])
                    features.setdefault(name, {})[target] = cli_dynamic - without
            print(f"{target}: include-only TU {include_o0:.2f} CPU s at -O0 = {include_o0 / baseline_o0:.2f}x the standard-library "
                  f"baseline's {baseline_o0:.2f} s; {include_o2:.2f} s at -O2 = {include_o2 / baseline_o2:.2f}x its {baseline_o2:.2f} s")
            if target == "native" and not args.no_memory:
                for kind in ("static", "dynamic"):
                    rss = memory(args.build, f"{work}/cli-{'static-' if kind == 'static' else ''}{target}")
                    print(f"{target}: peak RSS of the {kind} CLI: " + ", ".join(f"{k} {v / 1024:.2f} MiB" for k, v in rss.items()))
                    if kind == "static":
                        figures["idle_rss_static_kib"] = rss["start"]
                        figures["self_test_rss_static_kib"] = rss["--self-test"]
                print(f"{target}: device self-test peak RSS, 200 requests: {device_rss(args.build, f'{work}/device-{target}') / 1024:.2f} MiB; "
                      f"small-device profile {device_rss(args.build, f'{work}/device-small-{target}') / 1024:.2f} MiB")
            # A program that never uses https pays nothing for the loader: the device self-test (built
            # without it) holds neither dlopen nor OpenSSL's function names; the CLI, which loads it,
            # holds both (the control: the marks are there to be found).
            if any(tls_loader_marks(f"{work}/device-{target}")):
                broken.append(f"{target}: the device self-test carries the TLS loader (dlopen, SSL_CTX_new)")
            if not all(tls_loader_marks(f"{work}/cli-{target}")):
                broken.append(f"{target}: the CLI lacks dlopen or SSL_CTX_new: the check above cannot tell")
            for name, limit in dict(BUDGETS, **TARGET_BUDGETS.get(target, {})).items():
                if name in figures and figures[name] > limit:
                    broken.append(f"{target}: {name} {figures[name]:.6g} above the budget {limit:.6g}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if features:
        targets = args.targets.split(",")
        print("\nWhat each feature adds to the stripped dynamic CLI (bytes of program):")
        print("| feature | macro | " + " | ".join(targets) + " |")
        print("|---|---|" + "---|" * len(targets))
        for name, macro in FEATURES:
            print(f"| {name} | `{macro}` | " + " | ".join(f"{features[name][t]:,}" for t in targets) + " |")
        print("| all four: the small-device profile (code they share counts once) | `MICROBENCH_CLI_PROFILE_SMALL` | " +
              " | ".join(f"{small_saves[t]:,}" for t in targets) + " |")
    for b in broken:
        print("BUDGET BROKEN: " + b)
    if not broken:
        print("every budget held")
    return 1 if broken and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
