#!/usr/bin/env python3
"""The Python package as a user installs it, from clean, without network and without
a MICROBENCH_ variable or PYTHONPATH anywhere (the package finds its own library):
- a fresh venv (with the system's setuptools and wheel) installs bindings/python with
  `pip install --no-index --no-build-isolation`, compiling libmicrobench from the single header;
  from a folder outside the tree, `import microbench` finds the installed package and its own
  library, the binding's tests (tests/python/test_binding.py) pass against it, and
  `python3 -m microbench` prints ab's report with exact counts, and takes the command line's flags;
- `python3 -m microbench` exits as the command line does: 1 for a usage error, 2 when nothing
  answers (a capacity search too), 3 when a check fails, 130 on Ctrl-C with the partial report;
- `python3 -m microbench --find-capacity` finds the knee of a server of 50 answers a second;
- an sdist carries the headers (native/) and installs from its archive, outside the tree;
- `pip wheel` makes a py3-none-PLATFORM wheel holding the library (exporting only mb_ functions),
  py.typed and the module, which installs into a venv of its own with no compiler on PATH and runs
  the README's example.
The tree is copied first (bindings/python with its LICENSE link, single_include, LICENSE), so the
build leaves nothing in it.
    test_package.py [WORKDIR]"""
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from consumer import CLEAN_ENV as NO_MICROBENCH_ENV, header_version, run_ok  # noqa: E402

CLEAN_ENV = {k: v for k, v in NO_MICROBENCH_ENV.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
CLEAN_ENV["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"


def sh(*command, cwd, env=None, timeout=600):
    return run_ok(*command, cwd=cwd, env=env or CLEAN_ENV, timeout=timeout)


class Package(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        base = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else None
        cls.work = pathlib.Path(tempfile.mkdtemp(prefix="mb-package-", dir=base))
        cls.src = cls.work / "src"
        shutil.copytree(ROOT / "bindings" / "python", cls.src / "bindings" / "python", symlinks=True)
        shutil.copytree(ROOT / "single_include", cls.src / "single_include")
        shutil.copyfile(ROOT / "LICENSE", cls.src / "LICENSE")
        cls.outside = cls.work / "elsewhere"
        cls.outside.mkdir()
        cls.venv = cls.work / "venv"
        sh(sys.executable, "-m", "venv", "--system-site-packages", cls.venv, cwd=cls.work)
        cls.python = cls.venv / "bin" / "python"
        sh(cls.python, "-m", "pip", "install", "--no-index", "--no-build-isolation", cls.src / "bindings" / "python", cwd=cls.outside)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def test_import_finds_the_installed_package_and_its_library(self):
        out = sh(self.python, "-c", "import microbench, sys; print(microbench.__file__); print(microbench._lib._name); "
                 "print(microbench.version())", cwd=self.outside)
        module, library, version = out.split("\n")[:3]
        site = str(self.venv / "lib")
        self.assertTrue(module.startswith(site), module)
        self.assertEqual(pathlib.Path(library).parent, pathlib.Path(module).parent)
        expected = header_version()
        self.assertEqual(version, expected)
        metadata = sh(self.python, "-m", "pip", "show", "microbench", cwd=self.outside)
        self.assertIn(f"Version: {expected}\n", metadata)
        typed = pathlib.Path(module).parent / "py.typed"
        self.assertTrue(typed.is_file())

    def test_the_bindings_tests_pass_against_the_installed_package(self):
        # test_binding.py imports `microbench` from wherever Python finds it: here, the venv.
        out = subprocess.run([str(self.python), str(ROOT / "tests" / "python" / "test_binding.py")], cwd=self.outside, env=CLEAN_ENV,
                             capture_output=True, text=True, timeout=600)
        self.assertEqual(out.returncode, 0, out.stderr[-4000:])
        self.assertRegex(out.stderr, r"Ran \d+ tests")

    def test_python_m_microbench_prints_abs_report(self):
        script = ("import json, subprocess, sys, microbench\n"
                  "with microbench.Server() as s:\n"
                  "    for path, n, more in (('/factorial/12', '300', ['--expect-body-regex', '^[{]\"factorial\":[0-9]+}$']),\n"
                  "                          ('/factorial/11', '7', ['--expect-status', '201']),\n"
                  "                          ('/factorial/10', '5', ['--expect-body-contains', '3628801'])):\n"
                  "        done = subprocess.run([sys.executable, '-m', 'microbench', '-n', n, '-W', '2', '-c', '3', '-k',\n"
                  "                               '--check', 'factorial', '--json', 'run.json', *more,\n"
                  "                              s.url(path)], capture_output=True, text=True, timeout=120)\n"
                  "        print(done.stdout, end='')\n"
                  "        print('server answered', s.requests)\n"
                  "        print('exit', done.returncode, done.stderr.strip())\n"
                  "        print('json ended', json.load(open('run.json'))['requests']['ended'])\n")
        right, wrong = sh(self.python, "-c", script, cwd=self.outside).split("server answered 300\n")
        wrong, no_digits = wrong.split("json ended 7\n")
        self.assertRegex(right, r"\nComplete requests:\s+300\n")
        self.assertRegex(right, r"\nFailed requests:\s+0\n")
        self.assertTrue(wrong.startswith("exit 0 \njson ended 300\n"), wrong[:200])
        # 11! is right for /factorial/11, but its status is not the 201 asked for: each fails, exit 3
        self.assertRegex(wrong, r"\nFailed requests:\s+7\n")
        self.assertTrue(wrong.endswith("server answered 307\nexit 3 \n"), wrong[-200:])
        # 10! does not contain 3628801's digits: each fails the check, exit 3
        self.assertRegex(no_digits, r"\nFailed requests:\s+5\n")
        self.assertIn('   expected:            body contains "3628801"; body is 10!, 7 digits: "3628800"\n', no_digits)
        self.assertTrue(no_digits.endswith("server answered 312\nexit 3 \njson ended 5\n"), no_digits[-200:])

    def test_python_m_microbench_finds_capacity(self):
        # One server thread held 20 ms a request answers at most 50 a second: the search finds it
        # within 10 % and prints the table; a usage error without the objective exits 1.
        script = ("import subprocess, sys, microbench\n"
                  "with microbench.Server(threads=1) as s:\n"
                  "    done = subprocess.run([sys.executable, '-m', 'microbench', '-c', '20', '-k', '--find-capacity', '--max-p99-ms', '200',\n"
                  "                           '--start-rate', '20', '--warmup', '300ms', '--step', '1s', '--min-responses', '20',\n"
                  "                           s.url('/work?us=20000')], capture_output=True, text=True, timeout=300)\n"
                  "    print('exit', done.returncode); print(done.stdout); print(done.stderr)\n")
        out = sh(self.python, "-c", script, cwd=self.outside)
        self.assertTrue(out.startswith("exit 0\nCapacity search: p99 <= 200 ms"), out[:300])
        found = float(re.search(r"\nCapacity: ([0-9.]+) requests/s held the objective", out).group(1))
        self.assertTrue(45 <= found <= 55, out)
        self.assertIn("step at 20.0/s: achieved", out)  # each step on stderr as it ends
        done = subprocess.run([str(self.python), "-m", "microbench", "--find-capacity", "http://127.0.0.1/"], cwd=self.outside,
                              env=CLEAN_ENV, capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 1)
        self.assertIn("--find-capacity needs --max-p99-ms", done.stderr)

    def test_python_m_microbench_exits_as_the_command_line(self):
        def cli(*args):
            return subprocess.run([str(self.python), "-m", "microbench", *args], cwd=self.outside, env=CLEAN_ENV,
                                  capture_output=True, text=True, timeout=60)
        bad_url = cli("-n", "5", "127.0.0.1/")
        self.assertEqual((bad_url.returncode, bad_url.stdout), (1, ""))
        self.assertIn("(url_no_scheme)", bad_url.stderr)
        no_n = cli("-n", "5", "--check", "factorial", "http://127.0.0.1/")  # the library reads n, as microbench does
        self.assertEqual((no_n.returncode, no_n.stdout), (1, ""))
        self.assertIn("(plan_factorial_target)", no_n.stderr)
        bad_regex = cli("-n", "5", "--expect-body-regex", "a(b", "http://127.0.0.1/")  # the library compiles it
        self.assertEqual((bad_regex.returncode, bad_regex.stdout), (1, ""))
        self.assertIn("with its counts written out: a '(' is not closed (plan_bad_regex)", bad_regex.stderr)
        for usage in (["-n", "0", "http://127.0.0.1/"], ["-H", "no colon", "http://127.0.0.1/"], ["--no-such-flag"],
                      ["-t", "nan", "http://127.0.0.1/"], ["-s", "inf", "http://127.0.0.1/"], ["--check", "fact", "http://127.0.0.1/"],
                      ["--warmup", "2", "http://127.0.0.1/"], ["-c", "5000000000", "http://127.0.0.1/"],
                      ["--find-capacity", "--max-p99-ms", "9", "--step", "5x", "http://127.0.0.1/"],
                      ["--expect-body-contains", "", "http://127.0.0.1/"]):
            done = cli(*usage)
            self.assertEqual(done.returncode, 1, usage)
            self.assertIn("usage: python3 -m microbench", done.stderr)
        with socket.socket() as s:  # a port nothing listens on
            s.bind(("127.0.0.1", 0))
            closed = s.getsockname()[1]
        refused = cli("-n", "4", "-c", "2", f"http://127.0.0.1:{closed}/")
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("every connect failed (4 of 4)", refused.stderr)
        search = cli("--find-capacity", "--max-p99-ms", "10", "--warmup", "0", "--step", "0.2", "--min-responses", "1",
                     f"http://127.0.0.1:{closed}/")
        self.assertEqual(search.returncode, 2, search.stderr)
        self.assertIn("no connection", search.stdout)  # the one step's verdict, in the table
        self.assertIn("microbench: no request got a connection (", search.stderr)
        # Ctrl-C during a run: the partial report, exit 130
        script = ("import signal, subprocess, sys, time, microbench\n"
                  "with microbench.Server() as s:\n"
                  "    p = subprocess.Popen([sys.executable, '-m', 'microbench', '-n', '100000', '-c', '2', s.url('/delay/20')],\n"
                  "                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)\n"
                  "    while s.requests < 10: time.sleep(0.02)\n"
                  "    p.send_signal(signal.SIGINT)\n"
                  "    out, err = p.communicate(timeout=60)\n"
                  "    print('exit', p.returncode); print(err.strip()); print(out)\n")
        out = sh(self.python, "-c", script, cwd=self.outside)
        self.assertTrue(out.startswith("exit 130\nmicrobench: interrupted after "), out[:300])
        self.assertRegex(out, r"\nComplete requests:\s+\d+\n")

    def test_an_sdist_carries_the_headers_and_builds_outside_the_tree(self):
        dist = self.work / "sdist"
        sh(self.python, "setup.py", "-q", "sdist", "-d", dist, cwd=self.src / "bindings" / "python")
        archives = list(dist.glob("microbench-*.tar.gz"))
        self.assertEqual(len(archives), 1)
        with tarfile.open(archives[0]) as tar:
            names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
        for member in ("native/microbench.hpp", "native/microbench.h", "setup.py", "pyproject.toml", "LICENSE", "README.md",
                       "microbench/__init__.py", "microbench/py.typed"):
            self.assertIn(member, names)
        venv = self.work / "from-sdist"
        sh(sys.executable, "-m", "venv", "--system-site-packages", venv, cwd=self.work)
        sh(venv / "bin" / "python", "-m", "pip", "install", "--no-index", "--no-build-isolation", archives[0], cwd=self.outside)
        out = sh(venv / "bin" / "python", ROOT / "examples" / "python" / "example.py", cwd=self.outside)
        self.assertRegex(out, r"^2000 correct of 2000, ")

    def test_a_wheel_installs_and_runs_without_a_compiler(self):
        dist = self.work / "dist"
        sh(self.python, "-m", "pip", "wheel", "--no-index", "--no-build-isolation", "--no-deps", "-w", dist,
           self.src / "bindings" / "python", cwd=self.outside)
        wheels = list(dist.glob("microbench-*.whl"))
        self.assertEqual(len(wheels), 1)
        self.assertRegex(wheels[0].name, r"^microbench-\d+\.\d+\.\d+-py3-none-linux_[a-z0-9_]+\.whl$")
        names = zipfile.ZipFile(wheels[0]).namelist()
        for member in ("microbench/__init__.py", "microbench/__main__.py", "microbench/py.typed", "microbench/libmicrobench.so"):
            self.assertIn(member, names)
        with zipfile.ZipFile(wheels[0]) as whl:
            library = self.work / "libmicrobench.so"
            library.write_bytes(whl.read("microbench/libmicrobench.so"))
        symbols = sh("nm", "-D", "--defined-only", library, cwd=self.work).split()
        exported = [s for s in symbols if re.fullmatch(r"[A-Za-z_]\w*", s) and not s.startswith("mb_") and len(s) > 1]
        self.assertEqual(exported, [], "libmicrobench exports only the C API")
        self.assertIn("mb_run", symbols)
        bare = self.work / "bare"
        sh(sys.executable, "-m", "venv", bare, cwd=self.work)
        no_compiler = dict(CLEAN_ENV, PATH=str(bare / "bin"), CXX="false", CC="false")  # no c++, g++ or gcc to find
        sh(bare / "bin" / "python", "-m", "pip", "install", "--no-index", wheels[0], cwd=self.outside, env=no_compiler)
        out = sh(bare / "bin" / "python", ROOT / "examples" / "python" / "example.py", cwd=self.outside, env=no_compiler)
        self.assertRegex(out, r"^2000 correct of 2000, ")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
