#!/usr/bin/env python3
"""The README's paths are the ones its commands produce.

Every program or library the README names is under build/run/, the folder `tools/run` builds,
and is the artifact of a target that `tools/run` builds or that a `cmake --build build/run
--target ...` command in the README names. Other build folders it names are the test folders
its own commands make. The artifacts come from CMake's file API, configured in a scratch folder
with tools/run's own flags (nothing is built).
Usage: test_readme_paths.py"""
import json
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def tools_run():
    """tools/run's build folder, configure flags and targets, as the script itself says them."""
    text = (ROOT / "tools" / "run").read_text()
    folder = re.search(r'^build="\$root/([^"]+)"$', text, re.M).group(1)
    configure = re.search(r'^cmake -S "\$root" -B "\$build" (.*?) >/dev/null$', text, re.M).group(1)
    targets = re.search(r"^targets=\((.*)\)$", text, re.M).group(1).split()
    return folder, shlex.split(configure), targets


def artifacts(flags):
    """{artifact path relative to the build folder: target name} of a configure with `flags`."""
    with tempfile.TemporaryDirectory() as build:
        query = pathlib.Path(build, ".cmake", "api", "v1", "query")
        query.mkdir(parents=True)
        (query / "codemodel-v2").touch()
        subprocess.run(["cmake", "-S", str(ROOT), "-B", build, *flags], check=True, capture_output=True, text=True)
        reply = pathlib.Path(build, ".cmake", "api", "v1", "reply")
        index = json.loads(next(reply.glob("index-*.json")).read_text())
        codemodel = json.loads((reply / index["reply"]["codemodel-v2"]["jsonFile"]).read_text())
        out = {}
        for target in codemodel["configurations"][0]["targets"]:
            detail = json.loads((reply / target["jsonFile"]).read_text())
            for artifact in detail.get("artifacts", []):
                out[artifact["path"]] = detail["name"]
        return out


def main():
    readme = (ROOT / "README.md").read_text()
    folder, flags, run_targets = tools_run()
    problems = []
    if folder != "build/run":
        problems.append(f"tools/run builds into {folder}, the README says build/run")
    named = set(re.findall(r"(?<![\w.-])build/[\w.+/-]*\w", readme))
    built_by_readme = set()
    for command in re.findall(r"cmake --build build/run --target ([\w -]+?)(?=`|\s*&&|\s*$)", readme, re.M):
        built_by_readme.update(name for name in command.split() if name != "NAME")  # NAME: the placeholder
    made = artifacts(flags)
    for target in sorted(built_by_readme - set(made.values())):
        problems.append(f"the README builds target {target}, which tools/run's configuration does not have")
    checked = 0
    for path in sorted(named):
        if path == "build/run":
            continue
        if not path.startswith("build/run/"):
            folder_commands = {"build/dev": "cmake -S . -B build/dev", "build/ci-gcc": "tools/test-all gcc"}
            if path not in folder_commands or folder_commands[path] not in readme:
                problems.append(f"{path}: not under build/run/, and not a test folder the README's own command makes")
            continue
        rel = path[len("build/run/"):]
        target = made.get(rel)
        if target is None:
            problems.append(f"{path}: no target of tools/run's configuration makes it")
        elif target not in run_targets and target not in built_by_readme:
            problems.append(f"{path}: made by target {target}, which neither tools/run nor a README command builds")
        checked += 1
    for p in problems:
        print("README:", p)
    print(f"{checked} paths under build/run/ checked, {len(problems)} problem(s)")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
