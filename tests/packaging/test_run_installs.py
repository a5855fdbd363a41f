#!/usr/bin/env python3
"""`cmake --install build/run` works after `tools/run` alone: every target with an install rule in
tools/run's configuration is among the targets tools/run builds. The install rules come from
CMake's file API, configured in a scratch folder with tools/run's own flags (nothing is built).
Usage: test_run_installs.py"""
import json
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def tools_run():
    """tools/run's configure flags and every target it builds (its targets=( ) and targets+=( ) lines)."""
    text = (ROOT / "tools" / "run").read_text()
    configure = re.search(r'^cmake -S "\$root" -B "\$build" (.*?) >/dev/null$', text, re.M).group(1)
    targets = [name for line in re.findall(r"^targets\+?=\((.*)\)", text, re.M) for name in line.split()]
    return shlex.split(configure), targets


def installed_targets(flags):
    """Names of the targets that have install rules, in a configure with `flags`."""
    with tempfile.TemporaryDirectory() as build:
        query = pathlib.Path(build, ".cmake", "api", "v1", "query")
        query.mkdir(parents=True)
        (query / "codemodel-v2").touch()
        subprocess.run(["cmake", "-S", str(ROOT), "-B", build, *flags], check=True, capture_output=True, text=True)
        reply = pathlib.Path(build, ".cmake", "api", "v1", "reply")
        index = json.loads(next(reply.glob("index-*.json")).read_text())
        codemodel = json.loads((reply / index["reply"]["codemodel-v2"]["jsonFile"]).read_text())
        names = []
        for target in codemodel["configurations"][0]["targets"]:
            detail = json.loads((reply / target["jsonFile"]).read_text())
            if detail.get("install") and detail["type"] != "INTERFACE_LIBRARY":  # an interface library builds nothing
                names.append(detail["name"])
        return names


def main():
    flags, built = tools_run()
    installed = installed_targets(flags)
    missing = sorted(set(installed) - set(built))
    if len(installed) < 6:  # the four programs and the two libraries at least: the parse found them
        print(f"test_run_installs: only {installed} have install rules", file=sys.stderr)
        return 1
    if missing:
        print(f"test_run_installs: `cmake --install build/run` needs {missing}, which tools/run does not build",
              file=sys.stderr)
        return 1
    print(f"tools/run builds every installed target: {', '.join(sorted(installed))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
