#!/bin/sh
# Builds libmicrobench for linux-x64 and linux-arm64 from the single header (as CMake's libmicrobench
# is: MICROBENCH_C_IMPLEMENTATION, only the mb_ functions exported; paths written relative, so the
# bytes do not depend on where the tree is), checks each is built for its machine, and packs the
# Microbench NuGet package with both under runtimes/<rid>/native/, saying each step on stderr.
#   bindings/dotnet/pack.sh OUT_DIR        -> OUT_DIR/Microbench.<version>.nupkg
# CXX_X64 and CXX_ARM64 name the compilers (default c++, on an x86-64 host, and aarch64-linux-gnu-g++,
# Debian's g++-aarch64-linux-gnu).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)

build() {  # COMPILER DIR MACHINE: DIR/libmicrobench.so, whose ELF header must say MACHINE
    echo "pack.sh: compiling libmicrobench.so for $3 with $1 (about a minute)" >&2
    mkdir -p "$2"
    printf '#define MICROBENCH_C_IMPLEMENTATION\n#include "microbench.hpp"\n' > "$2/libmicrobench.cpp"
    $1 -std=c++17 -O2 -fPIC -shared -pthread -fvisibility=hidden -DMICROBENCH_C_BUILD -I"$root/single_include" \
        -ffile-prefix-map="$root"=. -ffile-prefix-map="$2"=. "$2/libmicrobench.cpp" -o "$2/libmicrobench.so" \
        -Wl,--version-script="$root/cmake/microbench_c.map" -Wl,--no-undefined -Wl,-s -ldl
    machine=$(LC_ALL=C readelf -h "$2/libmicrobench.so" | sed -n 's/^ *Machine: *//p')
    [ "$machine" = "$3" ] || { echo "pack.sh: $2/libmicrobench.so is built for '$machine', not '$3' (set CXX_X64 / CXX_ARM64)" >&2; exit 1; }
}

# One after the other: a failure stops the script with nothing left running.
build "${CXX_X64:-c++}" "$out/native/linux-x64" "Advanced Micro Devices X86-64"
build "${CXX_ARM64:-aarch64-linux-gnu-g++}" "$out/native/linux-arm64" "AArch64"
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
echo "pack.sh: packing the NuGet package into $out" >&2
dotnet pack "$here" -c Release -o "$out" --artifacts-path "$out/artifacts" --nologo -v quiet \
    -p:NativeLinuxX64="$out/native/linux-x64" -p:NativeLinuxArm64="$out/native/linux-arm64"
ls "$out"/Microbench.*.nupkg
