"""Builds microbench's Python package: libmicrobench.so compiled from the single header
(microbench.hpp with MICROBENCH_C_IMPLEMENTATION, as CMake's libmicrobench is) by the system's C++
compiler — $CXX, else c++ — into the package beside the ctypes module that loads it, exporting
only the mb_ functions. The headers come from native/ (an sdist carries them there) or from the
source tree's single_include/. The version is microbench.h's. The wheel is tagged py3-none-PLATFORM:
the library does not depend on the Python version."""
import os
import pathlib
import re
import shlex
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist

HERE = pathlib.Path(__file__).resolve().parent
HEADERS = ("microbench.hpp", "microbench.h")


def native_dir():
    for folder in (HERE / "native", HERE.parents[1] / "single_include"):
        if all((folder / name).is_file() for name in HEADERS):
            return folder
    raise SystemExit("microbench.hpp and microbench.h not found: build from microbench's source tree or its sdist")


def version():
    header = (native_dir() / "microbench.h").read_text()
    return ".".join(re.search(rf"#define MB_VERSION_{part} (\d+)", header).group(1) for part in ("MAJOR", "MINOR", "PATCH"))


class BuildNative(build_ext):
    """The one "extension" is libmicrobench.so, a plain shared library for ctypes, not a CPython module."""

    def get_ext_filename(self, fullname):
        return os.path.join(*fullname.split(".")) + ".so"

    def build_extension(self, ext):
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        work = pathlib.Path(self.build_temp)
        work.mkdir(parents=True, exist_ok=True)
        source, exports = work / "libmicrobench.cpp", work / "libmicrobench.map"
        source.write_text("#define MICROBENCH_C_IMPLEMENTATION\n#include \"microbench.hpp\"\n")
        exports.write_text("{\n  global: mb_*;\n  local: *;\n};\n")
        command = shlex.split(os.environ.get("CXX", "c++")) + [
            "-std=c++17", "-O2", "-fPIC", "-shared", "-pthread", "-fvisibility=hidden", "-DMICROBENCH_C_BUILD",
            f"-I{native_dir()}", f"-ffile-prefix-map={native_dir()}=.", f"-ffile-prefix-map={work.resolve()}=.", str(source.resolve()),
            "-o", str(target), f"-Wl,--version-script={exports}", "-Wl,--no-undefined",
            "-Wl,-s", "-ldl"]
        self.announce(" ".join(shlex.quote(part) for part in command), level=2)
        try:
            subprocess.run(command, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            raise SystemExit(f"compiling libmicrobench failed ({e}); a C++17 compiler is needed, GCC 8 or later or clang (set CXX), "
                             "or install a wheel built where there is one (pip wheel)")


class SdistWithHeaders(sdist):
    """An sdist carries the single header and microbench.h in native/, so it builds outside the tree."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        native = pathlib.Path(base_dir) / "native"
        native.mkdir(exist_ok=True)
        for name in HEADERS:
            shutil.copyfile(native_dir() / name, native / name)


commands = {"build_ext": BuildNative, "sdist": SdistWithHeaders}
try:  # setuptools 70.1 and later carry bdist_wheel; before, the wheel package does
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:  # no wheels to build here: setuptools says so if one is asked for
        bdist_wheel = None

if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    commands["bdist_wheel"] = PlatformWheel
setup(version=version(), ext_modules=[Extension("microbench.libmicrobench", sources=[])], cmdclass=commands)
