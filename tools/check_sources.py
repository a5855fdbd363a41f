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
  except on lines marked '// bad_alloc guard' (run() turns bad_alloc into an error when exceptions are on);
- in include/ and examples/ (.hpp .h .cpp .c): no line over MAX_COLUMNS characters, and no comma-operator
  statement ('a = 1, b = 2;', 'if (x) f(), g();', 'return f(), 0;'): one statement a line says what it does.
  A declaration of several names ('int a = 1, b = 2;') is fine, and so are commas inside (), [], {} and
  template <...>, such as a for loop's 'for (i = 0, j = n; ...; ++i, --j)' (comma_statements(), a heuristic).
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_LINES = 400
MAX_COLUMNS = 120
SOURCE_SUFFIXES = (".hpp", ".h", ".cpp", ".c")
LAYERS = ("core", "http", "stats", "engine", "server", "report", "c_api")
FORBIDDEN_INCLUDES = ("iostream", "regex", "sstream", "functional")
FORBIDDEN_WORDS = re.compile(r"\b(throw|try|catch|dynamic_cast|typeid)\b")


def code_only(line: str) -> str:
    """The line without // comments and string literals (good enough for these checks)."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    return line.split("//", 1)[0]


# Comments, string and character literals, blanked out (newlines kept) before comma_statements() reads the code.
NOT_CODE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"'
                      r"|'(?:\\(?:x[0-9a-fA-F]+|[0-7]{1,3}|.)|[^'\\\n])'", re.S)
# What may come before a statement's own text: 'else', 'if (...)' (the parentheses are skipped), 'case x:'.
CONTROL = re.compile(r"\s*(?:else\b|do\b|return\b|(?:if|while|for|switch)\s*(?:constexpr\s*)?(?=\())"
                     r"|\s*(?:case\b[^;]*?|\w+)\s*(?<!:):(?!:)")
TEMPLATE_ARGS = re.compile(r"(?<=[\w>])\s*<[^<>;{}()]*>")
NESTED = re.compile(r"\([^()\[\]]*\)|\[[^()\[\]]*\]")
SIDE_EFFECT = re.compile(r"<<=|>>=|[-+*/%&|^]=|(?<![=!<>])=(?!=)|\+\+|--|[\w)]\s*\(")
DECLARATION = re.compile(r"\s*(?!(?:return|delete|throw|goto)\b)(?:[A-Za-z_][\w:]*(?:\s*[*&]+\s*|\s+))+"
                         r"[*&]*[A-Za-z_]\w*\s*(?:[=(\[:]|$)")


def skip_group(text: str, at: int) -> int:
    """The index after the (...) or [...] that opens at text[at]."""
    depth = 0
    for i in range(at, len(text)):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    return len(text)


def comma_operator(statement: str) -> int:
    """Where the statement's top-level comma is if it is a comma expression ('a = 1, b = 2', 'f(), g()',
    'return f(), 0'), else -1. The statement is code up to its ';', any braces in it already cut out.
    A comma in (), [] or template <...> does not count, nor one of a declaration ('int a = 1, b = 2')."""
    at, returned = 0, False
    while m := CONTROL.match(statement, at):
        returned = returned or m.group(0).strip() == "return"
        at = skip_group(statement, m.end()) if statement.startswith("(", m.end()) else m.end()
    text = statement[at:]
    while text != (blanked := TEMPLATE_ARGS.sub(lambda m: " " * len(m.group(0)), text)):
        text = blanked  # innermost first: std::map<int, std::pair<int, int>>
    depth = 0
    for i, c in enumerate(text):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(c, 0)
        if c == "," and depth == 0:
            head = text[:i]
            while head != (flat := NESTED.sub("()", head)):
                head = flat  # f(a = 1) is a call, not an assignment; int a[2] = ... a declaration
            if DECLARATION.match(head):
                return -1
            return at + i if returned or SIDE_EFFECT.search(head) else -1
    return -1


def comma_statements(text: str) -> list:
    """The line numbers of comma-operator statements in a source file's text (a heuristic: see
    comma_operator()). ';' ends a statement outside () and []; '{' starts a new statement stream,
    so an initializer list, an enum, a lambda's body or a block is never read as part of the
    statement around it. Preprocessor lines are not read."""
    code = NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    lines = code.split("\n")
    for n, line in enumerate(lines):
        if line.lstrip().startswith("#"):
            while True:
                more = lines[n].rstrip().endswith("\\")
                lines[n] = ""
                if not more or n + 1 == len(lines):
                    break
                n += 1
    found = []
    streams = [([], [], 0)]  # for each open brace: the statement so far, the line of each character, () depth
    for n, line in enumerate(lines, 1):
        for c in line + " ":
            chars, where, depth = streams[-1]
            if c == "{":
                if depth == 0:  # a block or a braced list ends what came before it
                    streams[-1] = ([], [], 0)
                else:  # a lambda's body inside a call: left as {}
                    chars += "{}"
                    where += [n, n]
                streams.append(([], [], 0))
            elif c == "}":
                if len(streams) > 1:
                    streams.pop()
            elif c == ";" and depth == 0:
                comma = comma_operator("".join(chars))
                if comma >= 0:
                    found.append(where[comma])
                streams[-1] = ([], [], 0)
            else:
                chars.append(c)
                where.append(n)
                streams[-1] = (chars, where, depth + {"(": 1, "[": 1, ")": -1, "]": -1}.get(c, 0))
    return found


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
    sources = [p for top in ("include", "examples") for p in sorted((ROOT / top).rglob("*"))
               if p.suffix in SOURCE_SUFFIXES and p.is_file()]
    for source in sources:
        rel = source.relative_to(ROOT).as_posix()
        text = source.read_text(encoding="utf-8")
        for n, line in enumerate(text.splitlines(), 1):
            if len(line) > MAX_COLUMNS:
                problems.append(f"{rel}:{n}: {len(line)} characters; wrap at {MAX_COLUMNS}")
        for n in comma_statements(text):
            problems.append(f"{rel}:{n}: a comma-operator statement; make it one statement a line")
    # CTest's doctest discovery splits a test's name at ';': a name with one becomes two tests that match nothing.
    for test in sorted((ROOT / "tests").glob("*.cpp")):
        for n, line in enumerate(test.read_text(encoding="utf-8").splitlines(), 1):
            if re.match(r'\s*TEST_CASE\(".*;', line):
                problems.append(f"{test.relative_to(ROOT).as_posix()}:{n}: a test's name holds ';', which CTest splits")
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
