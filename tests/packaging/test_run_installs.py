#!/usr/bin/env python3
"""`cmake --install build/run` works after `tools/run` alone: every target with an install rule in
tools/run's configuration is among the targets tools/run builds. The install rules come from
CMake's file API, configured in a scratch folder with tools/run's own flags (nothing is built), as
tests/docs/test_readme_paths.py reads them.
Usage: test_run_installs.py"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "docs"))
from test_readme_paths import target_details, tools_run  # noqa: E402  (the path first)


def main():
    _, flags, built = tools_run()
    installed = [d["name"] for d in target_details(flags)
                 if d.get("install") and d["type"] != "INTERFACE_LIBRARY"]  # an interface library builds nothing
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
