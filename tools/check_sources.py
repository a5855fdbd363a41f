#!/usr/bin/env python3
"""Checks the library's source rules that a compiler cannot (run by CTest as source_rules).

- every part include/microbench/LAYER/NAME.hpp opens with '// microbench/LAYER/NAME.hpp — what it does';
- the umbrella include/microbench.hpp includes every part;
- a part includes only parts of its own layer and of the layers before it in LAYERS;
- parts stay under MAX_LINES lines (a bigger part has two jobs);
- README.md shows examples/embed.cpp, examples/c/example.c, examples/python/example.py (so does
  bindings/python/README.md, the package's; bindings/dotnet/README.md shows tests/dotnet/Consumer/Program.cs) and
  examples/dotnet/Program.cs verbatim (so the snippets people copy compile and run);
- microbench.h has a status constant for every error number the C API can return;
- the core stays small and exception-free: no <iostream>, <regex>, <sstream>, <functional>,
  and no throw / try / catch / dynamic_cast / typeid (it must build with -fno-exceptions -fno-rtti),
  except on lines marked '// bad_alloc guard' (run() turns bad_alloc into an error when exceptions are on).
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_LINES = 400
LAYERS = ("core", "http", "stats", "engine", "server", "report", "c_api")
FORBIDDEN_INCLUDES = ("iostream", "regex", "sstream", "functional")
FORBIDDEN_WORDS = re.compile(r"\b(throw|try|catch|dynamic_cast|typeid)\b")


def code_only(line: str) -> str:
    """The line without // comments and string literals (good enough for these checks)."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    return line.split("//", 1)[0]


def main() -> int:
    problems = []
    parts = sorted((ROOT / "include" / "microbench").glob("*/*.hpp"))
    umbrella = (ROOT / "include" / "microbench.hpp").read_text(encoding="utf-8")
    for part in parts:
        rel = part.relative_to(ROOT).as_posix()
        lines = part.read_text(encoding="utf-8").splitlines()
        name = f"{part.parent.name}/{part.name}"
        if not lines or not lines[0].startswith(f"// microbench/{name} — "):
            problems.append(f"{rel}:1: must open with '// microbench/{name} — <responsibility>'")
        if len(lines) > MAX_LINES:
            problems.append(f"{rel}: {len(lines)} lines; split it below {MAX_LINES}")
        if f'#include "microbench/{name}"' not in umbrella:
            problems.append(f"include/microbench.hpp does not include microbench/{name}")
        for n, line in enumerate(lines, 1):
            local = re.match(r'\s*#\s*include\s*"(?:\.\./([a-z_]+)/)?[a-z_]+\.hpp"', line)
            if local and LAYERS.index(local.group(1) or part.parent.name) > LAYERS.index(part.parent.name):
                problems.append(f"{rel}:{n}: {part.parent.name}/ cannot use the later layer {local.group(1)}/")
            m = re.match(r"\s*#\s*include\s*<([^>]+)>", line)
            if m and m.group(1) in FORBIDDEN_INCLUDES:
                problems.append(f"{rel}:{n}: <{m.group(1)}> is kept out of the core")
            if FORBIDDEN_WORDS.search(code_only(line)) and not line.endswith("// bad_alloc guard"):
                problems.append(f"{rel}:{n}: exceptions and RTTI are not used in the library")
    # Every error number the C API can return (all but the parser's and the histogram codec's) is
    # a status constant of microbench.h, with the same value.
    error_hpp = (ROOT / "include" / "microbench" / "core" / "error.hpp").read_text(encoding="utf-8")
    errc = dict(re.findall(r"^\s+X\((\w+), (\d+),", error_hpp, re.M))
    if not errc or len(errc) != len(re.findall(r"^\s+X\(", error_hpp, re.M)):  # a layout this reader cannot follow
        problems.append("include/microbench/core/error.hpp: the MICROBENCH_ERRORS list is not in the form X(name, number, \"message\")")
    c_header = (ROOT / "include" / "microbench.h").read_text(encoding="utf-8")
    for name, number in errc.items():
        if name.startswith(("response_", "histogram_")):
            continue
        if not re.search(rf"\bMB_{name.upper()} = {number}\b", c_header):
            problems.append(f"include/microbench.h: no MB_{name.upper()} = {number} for errc::{name}")
    embed = (ROOT / "examples" / "embed.cpp").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    if f"```cpp\n{embed}```" not in readme:
        problems.append("README.md: the embedding snippet differs from examples/embed.cpp")
    for fence, rel in (("c", "examples/c/example.c"), ("python", "examples/python/example.py"),
                       ("csharp", "examples/dotnet/Program.cs")):
        text = (ROOT / rel).read_text(encoding="utf-8")
        if f"```{fence}\n{text}```" not in readme:
            problems.append(f"README.md: the {fence} snippet differs from {rel}")
    for readme_rel, fence, rel in (("bindings/python/README.md", "python", "examples/python/example.py"),
                                   ("bindings/dotnet/README.md", "csharp", "tests/dotnet/Consumer/Program.cs")):
        text = (ROOT / rel).read_text(encoding="utf-8")
        if f"```{fence}\n{text}```" not in (ROOT / readme_rel).read_text(encoding="utf-8"):
            problems.append(f"{readme_rel}: the {fence} snippet differs from {rel}")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"checked {len(parts)} parts: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
