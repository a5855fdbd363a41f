#!/usr/bin/env python3
"""The README's and the docs' paths, options, targets and links are ones that exist.

It reads README.md and every docs/*.md and fails, naming the file and the text, when:
- a program or library they name under build/run/ (the folder `tools/run` builds) is not the
  artifact of a target that `tools/run` builds or that a `cmake --build build/run --target ...`
  command in them names; another build folder they name is not a test folder their own commands
  make (build/dev, build/ci-gcc);
- a CMake target a `cmake --build ... --target ...` command builds is not a target of tools/run's
  configure;
- a repository path they name (tools/..., tests/..., include/..., examples/..., bindings/...,
  bench/..., docs/..., .ci/...) does not exist (a segment in capitals, such as LAYER, stands for
  any name);
- a --long-option written after `microbench` (or `tools/run`) in a command, in a code block or an
  inline code span, or in the first cell of a flag or feature table, is not in docs/options.md
  (`microbench --help-all`'s text);
- a relative link or image ([text](path), [text](path#heading)) names a file that does not exist
  or a heading that the page does not have (GitHub's anchors).
The targets and artifacts come from CMake's file API, configured in a scratch folder with
tools/run's own flags (nothing is built); nothing else leaves the machine or the tree.
Usage: test_readme_paths.py"""
import json
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDER_COMMANDS = {"build/dev": "cmake -S . -B build/dev", "build/ci-gcc": "tools/test-all gcc"}
REPO_PATH = re.compile(r"(?<![\w./<>-])(?:tools|tests|include|examples|bindings|bench|docs|\.ci)/[\w.+*/-]*")
LONG_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9.-]*[a-z0-9]")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def tools_run():
    """tools/run's build folder, configure flags and targets (its targets=( ) and targets+=( ) lines)."""
    text = (ROOT / "tools" / "run").read_text()
    folder = re.search(r'^build="\$root/([^"]+)"$', text, re.M).group(1)
    configure = re.search(r'^cmake -S "\$root" -B "\$build" (.*?) >/dev/null$', text, re.M).group(1)
    targets = [name for line in re.findall(r"^targets\+?=\((.*)\)", text, re.M) for name in line.split()]
    return folder, shlex.split(configure), targets


def target_details(flags):
    """Every target of a configure with `flags`, as CMake's file API describes it (codemodel-v2's
    target objects: name, type, artifacts, install rules), configured in a scratch folder."""
    with tempfile.TemporaryDirectory() as build:
        query = pathlib.Path(build, ".cmake", "api", "v1", "query")
        query.mkdir(parents=True)
        (query / "codemodel-v2").touch()
        subprocess.run(["cmake", "-S", str(ROOT), "-B", build, *flags], check=True, capture_output=True, text=True)
        reply = pathlib.Path(build, ".cmake", "api", "v1", "reply")
        index = json.loads(next(reply.glob("index-*.json")).read_text())
        codemodel = json.loads((reply / index["reply"]["codemodel-v2"]["jsonFile"]).read_text())
        targets = codemodel["configurations"][0]["targets"]
        return [json.loads((reply / target["jsonFile"]).read_text()) for target in targets]


def configure(flags):
    """({artifact path relative to the build folder: target name}, {every target name}) of a
    configure with `flags`."""
    artifacts, names = {}, set()
    for detail in target_details(flags):
        names.add(detail["name"])
        for artifact in detail.get("artifacts", []):
            artifacts[artifact["path"]] = detail["name"]
    return artifacts, names


def split_code(text):
    """(the lines of fenced code blocks, the prose with those blocks left out) of a Markdown text."""
    code, prose, fenced = [], [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            prose.append("")
        elif fenced:
            code.append(line)
        else:
            prose.append(line)
    return code, "\n".join(prose)


def commands(text):
    """Every shell command in the text's code blocks and inline code spans, one string each:
    continued lines joined, split at ' && ', ' | ' and '; ', a '$ ' prompt and a '# comment' dropped."""
    code, prose = split_code(text)
    lines, joined = [], ""
    for line in code:
        if line.endswith("\\"):
            joined += line[:-1] + " "
            continue
        lines.append(joined + line)
        joined = ""
    lines += [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]
    out = []
    for line in lines:
        line = re.sub(r"^\s*\$ ", "", line)
        line = re.split(r"(?:^|\s)#", line, maxsplit=1)[0]
        out += [part.strip() for part in re.split(r" && | \| |; ", line) if part.strip()]
    return out


def is_microbench(command):
    """Whether the command runs microbench (or tools/run, which runs it), after any VAR=value."""
    words = [w for w in command.split() if not re.match(r"^[A-Z_][A-Z0-9_]*=", w)]
    return bool(words) and words[0] in ("microbench", "tools/run")


def flag_table_cells(text):
    """The first cell of each row of the tables whose header's first cell is flag, option or feature."""
    _, prose = split_code(text)
    cells, in_table = [], False
    for line in prose.splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        first = line.strip("|").split("|")[0].strip()
        if not in_table:
            in_table = first.lower() in ("flag", "option", "feature")
            continue
        if not re.match(r"^-+$", first):
            cells.append(first)
    return cells


def anchors(text):
    """GitHub's heading anchors of a Markdown text."""
    _, prose = split_code(text)
    seen, out = {}, set()
    for title in re.findall(r"^#{1,6} +(.+?) *#*$", prose, re.M):
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def repo_path_exists(path):
    path = path.rstrip(".,")
    pattern = "/".join("*" if re.fullmatch(r"[A-Z][A-Z_]+", part) else part for part in path.split("/"))
    if "*" in pattern:
        return any(ROOT.glob(pattern.rstrip("/")))
    return (ROOT / path).exists()


def main():
    files = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    texts = {f.relative_to(ROOT).as_posix(): f.read_text(encoding="utf-8") for f in files}
    everything = "\n".join(texts.values())
    folder, flags, run_targets = tools_run()
    made, target_names = configure(flags)
    options = set(LONG_OPTION.findall((ROOT / "docs" / "options.md").read_text(encoding="utf-8")))
    problems = []
    if folder != "build/run":
        problems.append(("tools/run", f"builds into {folder}, the docs say build/run"))

    built_by_docs = set()
    for name, text in texts.items():
        for command in re.findall(r"cmake --build (\S+) --target ([\w -]+?)(?=`|\s*&&|\s*$)", text, re.M):
            for target in command[1].split():
                if target == "NAME":  # the placeholder
                    continue
                if target not in target_names:
                    problems.append((name, f"builds target {target}, which tools/run's configuration does not have"))
                if command[0] == "build/run":
                    built_by_docs.add(target)

    checked = {"build paths": 0, "repository paths": 0, "options": 0, "links": 0}
    for name, text in texts.items():
        for path in sorted(set(re.findall(r"(?<![\w.-])build/[\w.+/-]*\w", text))):
            if path == "build/run":
                continue
            if not path.startswith("build/run/"):
                if path not in FOLDER_COMMANDS or FOLDER_COMMANDS[path] not in everything:
                    problems.append((name, f"{path}: not under build/run/, and not a test folder the docs' own command makes"))
                continue
            rel = path[len("build/run/"):]
            if rel not in made and any(artifact.startswith(rel + "/") for artifact in made):
                continue  # a folder the artifacts are in
            target = made.get(rel)
            if target is None:
                problems.append((name, f"{path}: no target of tools/run's configuration makes it"))
            elif target not in run_targets and target not in built_by_docs:
                problems.append((name, f"{path}: made by target {target}, which neither tools/run nor a docs command builds"))
            checked["build paths"] += 1

        for path in sorted(set(REPO_PATH.findall(text))):
            if not repo_path_exists(path):
                problems.append((name, f"{path}: no such file or folder in the repository"))
            checked["repository paths"] += 1

        said = [c for c in commands(text) if is_microbench(c)] + flag_table_cells(text)
        for where in said:
            for option in LONG_OPTION.findall(where):
                if option not in options and not re.fullmatch(r"--max-p\d+(\.\d+)?-ms", option):
                    problems.append((name, f"{option} (in '{where[:100]}') is not an option in docs/options.md"))
                checked["options"] += 1

        _, prose = split_code(text)
        here = ROOT / name
        for link in LINK.findall(prose):
            if re.match(r"^[a-z]+:", link):  # http:, https:, mailto:
                continue
            file, _, anchor = link.partition("#")
            target = (here.parent / file).resolve() if file else here
            checked["links"] += 1
            if not target.exists():
                problems.append((name, f"link {link}: {file} does not exist"))
            elif anchor and target.suffix == ".md" and anchor not in anchors(target.read_text(encoding="utf-8")):
                problems.append((name, f"link {link}: {target.relative_to(ROOT).as_posix()} has no heading #{anchor}"))

    for where, problem in problems:
        print(f"{where}: {problem}")
    print(f"{len(texts)} files: " + ", ".join(f"{n} {what}" for what, n in checked.items()) +
          f" checked, {len(problems)} problem(s)")
    return 1 if problems or 0 in checked.values() else 0


if __name__ == "__main__":
    sys.exit(main())
