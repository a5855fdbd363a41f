#!/usr/bin/env python3
"""Both bindings offer what the C API offers. Reads include/microbench.h and fails when a function
of it is used by neither the Python binding (bindings/python/microbench/__init__.py calls `_lib.mb_name`) nor
named in its list of deliberate omissions below — likewise for C# (bindings/dotnet: a LibraryImport
of the mb_ name whose method some code calls). It also fails when an omission is stale (the binding
uses the function, or the header no longer has it), and when the bindings' copies of the C enums
(counts, timing columns, failures, arrivals, capacity verdicts, server counts) and of structs mb_interval, mb_hlog_tag,
mb_capacity_step, mb_capacity_objective and mb_server_limits differ from the header's, and when a ctypes prototype of the
Python binding (_SIGNATURES) differs from the header's declaration in its return or argument types.
Source only: no library is loaded."""
import pathlib
import re
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADER = (ROOT / "include" / "microbench.h").read_text()
PYTHON = (ROOT / "bindings" / "python" / "microbench" / "__init__.py").read_text()
CSHARP = {p.name: p.read_text() for p in sorted((ROOT / "bindings" / "dotnet").glob("*.cs"))}

# Deliberate omissions, each with its reason. A function belongs here only when a binding has a
# better way to the same thing; everything else the C API has, both bindings expose.
OMITTED = {
    "python": {
        # run() makes a plan per call from its url (mb_plan_create checks it): no plan object to re-point.
        "mb_plan_set_url": "run(url, ...) creates each plan with its URL",
        # Results are copied into plain Result objects and their handles freed at once; the same
        # page is drawn from their JSON, which reads back exactly (report_html).
        "mb_report_html": "report_html draws from the results' JSON through mb_report_html_json",
        # Called on the worker threads for every read and write of every connection: a transport
        # is native code (an embedder's TLS library), plugged in from C.
        "mb_plan_set_transport": "a transport is native code, given to the plan from C",
        # Server(...) passes its limits (None: the defaults), and a Unix socket's path when given.
        "mb_server_start": "Server(...) starts through mb_server_start_limited",
        "mb_server_start_unix": "Server(unix_socket=...) starts through mb_server_start_limited",
    },
    "csharp": {
        # As in Python: Plan.Run copies a result out and releases its handle at once.
        "mb_report_html": "Report.Html draws from the results' JSON through mb_report_html_json",
        "mb_plan_set_transport": "a transport is native code, given to the plan from C",
        "mb_server_start": "new Server(...) starts through mb_server_start_limited",
        "mb_server_start_unix": "Server.OnUnixSocket starts through mb_server_start_limited",
    },
}


def c_functions():
    return re.findall(r"^MB_API\s[^(]*?\b(mb_\w+)\s*\(", HEADER, re.M)


def c_enum(prefix):
    """{NAME_WITHOUT_PREFIX: number} of the header's `prefix`NAME = N entries."""
    return {name: int(value) for name, value in re.findall(rf"\b{prefix}(\w+)\s*=\s*(\d+)", HEADER)}


def pascal(name):
    """C's snake_case as C#'s PascalCase; the unit suffix _per_s reads PerSecond."""
    if name.endswith("_per_s"):
        return pascal(name[:-len("_per_s")]) + "PerSecond"
    return "".join(part[:1].upper() + part[1:].lower() for part in name.split("_"))


def python_uses(name):
    return re.search(rf"_lib\.{name}\b", PYTHON) is not None


def csharp_imports():
    """{mb_name: C# method name} of the LibraryImport declarations."""
    source = "\n".join(CSHARP.values())
    return dict(re.findall(r'EntryPoint\s*=\s*"(mb_\w+)"[^;]*?\bpartial\s+[\w<>\[\]?*, ]+?\s(\w+)\s*\(', source, re.S))


def csharp_uses(name, imports):
    method = imports.get(name)
    if method is None:
        return False
    source = "\n".join(CSHARP.values())
    return re.search(rf"\bNative\.{method}\s*\(", source) is not None


def csharp_enum(name):
    source = "\n".join(CSHARP.values())
    body = re.search(rf"\benum\s+{name}\b[^{{]*\{{([^}}]*)\}}", source)
    if body is None:
        return None
    return {m: int(v) for m, v in re.findall(r"(\w+)\s*=\s*(\d+)", body.group(1))}


def c_struct_fields(name):
    body = re.search(rf"typedef struct {name} \{{(.*?)\}} {name};", HEADER, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S).replace("const char*", "string").replace("void*", "pointer")
    fields = []
    for ctype, names in re.findall(r"(\w+)\s+([^;]+);", body):
        fields += [(n.strip(), ctype) for n in names.split(",")]
    return fields


class Coverage(unittest.TestCase):
    maxDiff = None

    def test_every_function_is_bound_or_omitted_with_a_reason(self):
        functions = c_functions()
        self.assertGreater(len(functions), 60)  # the parse found the API
        imports = csharp_imports()
        for binding, uses in (("python", python_uses), ("csharp", lambda f: csharp_uses(f, imports))):
            omitted = OMITTED[binding]
            with self.subTest(binding):
                missing = [f for f in functions if not uses(f) and f not in omitted]
                self.assertEqual(missing, [], f"the {binding} binding lacks these without a reason in OMITTED")
                stale = [f for f in omitted if uses(f) or f not in functions]
                self.assertEqual(stale, [], f"OMITTED[{binding!r}] names functions it uses or the header lacks")
                self.assertTrue(all(reason.strip() for reason in omitted.values()))

    def test_python_enums_are_the_headers(self):
        sys.path.insert(0, str(ROOT / "bindings" / "python"))
        tables = {"MB_COUNT_": "_COUNTS", "MB_TIMING_": "TIMINGS", "MB_FAILURE_": "FAILURES"}
        for prefix, table in tables.items():
            names = re.search(rf"^{table}\s*=\s*\(([^)]*)\)", PYTHON, re.M | re.S).group(1)
            listed = re.findall(r'"(\w+)"', names)
            expected = sorted(c_enum(prefix).items(), key=lambda item: item[1])
            with self.subTest(table):
                self.assertEqual([value for _, value in expected], list(range(len(expected))))  # dense from 0
                self.assertEqual(listed, [name.lower() for name, _ in expected])
        self.assertEqual(c_enum("MB_ARRIVALS_"), {"UNIFORM": 0, "POISSON": 1})
        servers = re.search(r"^SERVER_COUNTS\s*=\s*\(([^)]*)\)", PYTHON, re.M | re.S).group(1)
        expected = sorted(c_enum("MB_SERVER_").items(), key=lambda item: item[1])
        self.assertEqual([value for _, value in expected], list(range(len(expected))))
        self.assertEqual(re.findall(r'"(\w+)"', servers), [name.lower() for name, _ in expected])
        self.assertIn('int(arrivals == "poisson")', PYTHON)

    def test_python_prototypes_are_the_headers(self):
        # ctypes trusts its prototypes: a size_t returned as c_int, or an argument short of one,
        # would go wrong without a word. Each is compared with the header's declaration by kind.
        c_kinds = {"int": "int", "unsigned": "unsigned", "size_t": "size_t", "int64_t": "int64", "uint64_t": "uint64",
                   "uint32_t": "uint32", "uint16_t": "uint16", "double": "double", "void": "void"}
        py_kinds = {"ctypes.c_int": "int", "ctypes.c_uint": "unsigned", "_SZ": "size_t", "_I64": "int64", "_U64": "uint64",
                    "_U32": "uint32", "ctypes.c_uint16": "uint16", "_D": "double", "ctypes.c_double": "double", "None": "void",
                    "ctypes.c_char_p": "pointer", "_P": "pointer"}

        def c_kind(declaration):
            ctype = re.sub(r"\bconst\b", "", declaration).strip()
            if "*" in ctype or ctype.endswith("_fn"):
                return "pointer"
            return c_kinds[ctype]

        def py_kind(token):
            token = token.strip()
            return "pointer" if token.startswith("ctypes.POINTER(") or token.endswith("_FN") else py_kinds[token]

        header = re.sub(r"/\*.*?\*/", "", HEADER, flags=re.S)
        declared = {}
        for ret, name, args in re.findall(r"^MB_API\s+(.*?)\b(mb_\w+)\s*\(([^)]*)\)\s*;", header, re.M | re.S):
            params = [] if args.strip() == "void" else [re.sub(r"\w+\s*$", "", a).strip() for a in args.split(",")]
            declared[name] = (c_kind(ret), [c_kind(p) for p in params])
        table = re.search(r"^_SIGNATURES = \{(.*?)^\}", PYTHON, re.M | re.S).group(1)
        bound = {name: (py_kind(ret), [py_kind(a) for a in re.split(r",(?![^(]*\))", args) if a.strip()])
                 for name, ret, args in re.findall(r'"(mb_\w+)":\s*\(([^,]+),\s*\[(.*?)\]\)', table, re.S)}
        self.assertGreater(len(bound), 90)  # the parse found the table
        for name, kinds in bound.items():
            with self.subTest(name):
                self.assertIn(name, declared)
                self.assertEqual(kinds, declared[name])

    def test_capacity_verdicts_are_the_headers(self):
        verdicts = re.search(r"^CAPACITY_VERDICTS\s*=\s*\(([^)]*)\)", PYTHON, re.M).group(1)
        expected = sorted(c_enum("MB_CAPACITY_").items(), key=lambda item: item[1])
        self.assertEqual([value for _, value in expected], list(range(len(expected))))
        library = (ROOT / "include" / "microbench" / "engine" / "capacity.hpp").read_text()
        named = dict(re.findall(r'case capacity_verdict::(\w+): return "([^"]+)";', library))
        self.assertEqual(re.findall(r'"([^"]+)"', verdicts), [named[name.lower()] for name, _ in expected])
        self.assertEqual(csharp_enum("CapacityVerdict"), {pascal(name): value for name, value in c_enum("MB_CAPACITY_").items()})

    def test_csharp_enums_are_the_headers(self):
        for prefix, enum in (("MB_COUNT_", "Count"), ("MB_TIMING_", "Column"), ("MB_FAILURE_", "Failure"),
                             ("MB_ARRIVALS_", "Arrivals"), ("MB_SERVER_", "ServerCount")):
            with self.subTest(enum):
                self.assertEqual(csharp_enum(enum), {pascal(name): value for name, value in c_enum(prefix).items()})

    def test_python_m_microbench_takes_the_command_lines_flags(self):
        # `python3 -m microbench` is the command line through the library: each of its flags is one of
        # microbench's (docs/options.md is its --help-all), and it has the flags both need by those names.
        main = (ROOT / "bindings" / "python" / "microbench" / "__main__.py").read_text()
        flags = set()
        for call in re.findall(r"add_argument\((.*?)\)\n", main, re.S):  # each call, over all its lines
            names = re.split(r",\s*\w+=", call, maxsplit=1)[0]  # the names come before the first keyword
            flags.update(re.findall(r"['\"](-[\w-]+)['\"]", names))
        self.assertGreater(len(flags), 20)  # the parse found them
        options = (ROOT / "docs" / "options.md").read_text()
        cli = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", options))
        self.assertEqual(sorted(flags - cli), [], "flags of python3 -m microbench that microbench does not have")
        for flag in ("--json", "--check", "-W", "--threads", "--expect-status", "--unix-socket", "--rate", "-k", "-H"):
            self.assertIn(flag, flags)
        self.assertIn('"--check", choices=["factorial"]', main)  # as `microbench --check factorial`
        self.assertIn('"--json", default=None, metavar="FILE|-"', main)  # a file, or - for stdout

    def test_structs_are_the_headers(self):
        # The structs as each binding declares them: the same fields, types and order.
        python_types = {"int64_t": ("_I64",), "uint64_t": ("_U64",), "double": ("ctypes.c_double", "_D"),
                        "string": ("ctypes.c_char_p",), "int": ("ctypes.c_int",), "size_t": ("_SZ",), "uint32_t": ("_U32",),
                        "pointer": ("_P",), "mb_capacity_step_fn": ("_CAPACITY_STEP_FN",)}
        csharp_types = {"int64_t": "long", "uint64_t": "ulong", "double": "double", "string": "IntPtr", "int": "int", "size_t": "nuint",
                        "uint32_t": "uint", "pointer": "IntPtr", "mb_capacity_step_fn": "IntPtr"}
        for c_name, py_class, cs_struct, first in (("mb_interval", "_Interval", "Interval", ("start_ns", "int64_t")),
                                                   ("mb_hlog_tag", "_HlogTag", "HlogTag", ("tag", "string")),
                                                   ("mb_capacity_step", "_CapacityStep", "CapacityStepNative", ("target_rate", "double")),
                                                   ("mb_capacity_objective", "_CapacityObjective", "CapacityObjectiveNative", ("size", "size_t")),
                                                   ("mb_server_limits", "_ServerLimits", "ServerLimitsNative", ("size", "size_t"))):
            with self.subTest(c_name):
                fields = c_struct_fields(c_name)
                self.assertEqual(fields[0], first)
                python = re.findall(r'\("(\w+)",\s*([\w.]+)\)', re.search(rf"class {py_class}\(.*?\]\n", PYTHON, re.S).group(0))
                self.assertEqual([name for name, _ in python], [name for name, _ in fields])
                for (_, py_type), (name, ctype) in zip(python, fields):
                    self.assertIn(py_type, python_types[ctype], name)
                body = re.search(rf"struct {cs_struct}\s*\{{(.*?)\}}", CSHARP["Native.cs"], re.S).group(1)
                csharp = []
                for ctype, names in re.findall(r"public\s+(\w+)\s+([^;]+);", body):
                    csharp += [(n.strip(), ctype) for n in names.split(",")]
                self.assertEqual(csharp, [(pascal(name), csharp_types[ctype]) for name, ctype in fields])


if __name__ == "__main__":
    unittest.main(verbosity=1)
