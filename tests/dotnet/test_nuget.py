#!/usr/bin/env python3
"""The Microbench NuGet package as a .NET user meets it, from clean, with no MICROBENCH_ variable (the
runtime finds the packaged library):
- bindings/dotnet/pack.sh builds libmicrobench for linux-x64 and linux-arm64 and packs
  Microbench.<version>.nupkg; the package holds the assembly, its XML docs, both native libraries
  (each for its machine, exporting only mb_ functions), README and LICENSE, with microbench.h's
  version and no repository or commit (SourceLink-free); pack.sh run again from a copy of the tree
  elsewhere gives the same bytes;
- a new console project in a temporary folder, whose nuget.config names only a local folder with
  that package (and an empty packages cache of its own), adds it with `dotnet add package`, takes
  tests/dotnet/Consumer/Program.cs (the package README's first use), builds, and runs it against
  Kestrel (the seed's ASP.NET Core app): 2000 of 2000 bodies exactly 20!, and at n = 21, where
  Kestrel's long overflows, 2000 of 2000 wrong.
    test_nuget.py WORKDIR"""
import hashlib
import pathlib
import re
import shutil
import subprocess
import sys
import unittest
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import peers  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from consumer import CLEAN_ENV, header_version, run_ok  # noqa: E402

ENV = dict(CLEAN_ENV, DOTNET_NOLOGO="1", DOTNET_CLI_TELEMETRY_OPTOUT="1", DOTNET_SKIP_FIRST_TIME_EXPERIENCE="1")


def sh(*command, cwd, env=None, timeout=900):
    return run_ok(*command, cwd=cwd, env=env or ENV, timeout=timeout)


class NuGet(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = pathlib.Path(sys.argv[1]).resolve() / "nuget"
        shutil.rmtree(cls.work, ignore_errors=True)
        cls.work.mkdir(parents=True)
        cls.version = header_version()
        cls.feed = cls.work / "feed"
        sh(ROOT / "bindings" / "dotnet" / "pack.sh", cls.feed, cwd=cls.work)
        cls.package = cls.feed / f"Microbench.{cls.version}.nupkg"

    def test_the_package_holds_the_assembly_docs_both_native_libraries_readme_and_license(self):
        names = set(zipfile.ZipFile(self.package).namelist())
        for member in ("lib/net10.0/Microbench.dll", "lib/net10.0/Microbench.xml", "runtimes/linux-x64/native/libmicrobench.so",
                       "runtimes/linux-arm64/native/libmicrobench.so", "README.md", "LICENSE", "Microbench.nuspec"):
            self.assertIn(member, names)
        with zipfile.ZipFile(self.package) as nupkg:
            nuspec = nupkg.read("Microbench.nuspec").decode()
            docs = nupkg.read("lib/net10.0/Microbench.xml").decode()
            for rid, machine in (("linux-x64", "Advanced Micro Devices X86-64"), ("linux-arm64", "AArch64")):
                library = self.work / f"{rid}.so"
                library.write_bytes(nupkg.read(f"runtimes/{rid}/native/libmicrobench.so"))
                header = sh("readelf", "-h", library, cwd=self.work, env=dict(ENV, LC_ALL="C"))
                self.assertRegex(header, rf"Machine:\s+{re.escape(machine)}\n")
                symbols = sh("readelf", "--dyn-syms", "-W", library, cwd=self.work, env=dict(ENV, LC_ALL="C"))
                defined = [line.split()[-1] for line in symbols.splitlines()
                           if re.search(r"\s(FUNC|OBJECT)\s+GLOBAL\s+DEFAULT\s+\d+\s", line)]
                self.assertIn("mb_run", defined)
                self.assertEqual([s for s in defined if not s.startswith("mb_")], [], f"{rid}: only the C API is exported")
        self.assertIn(f"<version>{self.version}</version>", nuspec)
        self.assertIn('<license type="file">LICENSE</license>', nuspec)
        self.assertIn("<readme>README.md</readme>", nuspec)
        self.assertNotIn("<repository", nuspec)  # SourceLink-free: no repository or commit
        self.assertIn('<member name="M:Microbench.Plan.RunAsync(System.Threading.CancellationToken)">', docs)

    def test_packing_is_deterministic(self):
        # pack.sh again, from a copy of the tree elsewhere into another folder: the same bytes.
        tree = self.work / "elsewhere" / "tree"
        for part in ("bindings/dotnet", "single_include", "include", "cmake"):
            shutil.copytree(ROOT / part, tree / part, ignore=shutil.ignore_patterns("bin", "obj"))
        shutil.copyfile(ROOT / "LICENSE", tree / "LICENSE")
        again = self.work / "again"
        sh(tree / "bindings" / "dotnet" / "pack.sh", again, cwd=self.work)
        first = hashlib.sha256(self.package.read_bytes()).hexdigest()
        second = hashlib.sha256((again / self.package.name).read_bytes()).hexdigest()
        self.assertEqual(first, second)

    def test_a_new_console_project_adds_the_package_and_checks_kestrel(self):
        consumer = self.work / "consumer"
        env = dict(ENV, NUGET_PACKAGES=str(self.work / "packages"))  # nothing cached from elsewhere
        sh("dotnet", "new", "console", "-o", consumer, "-n", "Consumer", "--framework", "net10.0", "--no-restore", cwd=self.work, env=env)
        (consumer / "nuget.config").write_text(
            '<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSources>\n    <clear />\n'
            f'    <add key="local" value="{self.feed}" />\n  </packageSources>\n</configuration>\n')
        sh("dotnet", "add", "package", "Microbench", "--version", self.version, cwd=consumer, env=env)
        shutil.copyfile(ROOT / "tests" / "dotnet" / "Consumer" / "Program.cs", consumer / "Program.cs")
        sh("dotnet", "build", "-c", "Release", "--nologo", "-v", "quiet", "-o", consumer / "out", cwd=consumer, env=env)
        self.assertTrue((consumer / "out" / "runtimes" / "linux-x64" / "native" / "libmicrobench.so").is_file())
        kestrel_dll = peers.build_aspnet(self.work / "aspnet")
        with peers.start_aspnet(kestrel_dll) as kestrel:
            right = subprocess.run(["dotnet", str(consumer / "out" / "Consumer.dll"), kestrel.url(20), "20"], cwd=self.work, env=env,
                                   capture_output=True, text=True, timeout=300)
            wrong = subprocess.run(["dotnet", str(consumer / "out" / "Consumer.dll"), kestrel.url(21), "21"], cwd=self.work, env=env,
                                   capture_output=True, text=True, timeout=300)
        self.assertEqual(right.returncode, 0, right.stdout + right.stderr)
        self.assertRegex(right.stdout, rf"^libmicrobench {re.escape(self.version)}: 2000 correct of 2000, 0 wrong, ")
        self.assertEqual(wrong.returncode, 1, wrong.stdout + wrong.stderr)
        self.assertRegex(wrong.stdout, r": 0 correct of 2000, 2000 wrong, ")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
