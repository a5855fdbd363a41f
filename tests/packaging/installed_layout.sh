#!/bin/sh
# What `cmake --install` puts under PREFIX, and its programs run from there: bin/ holds
# microbench, microbench-server, microbench-hlog and microbench-inspect; the headers, libmicrobench
# and the CMake package are in place; both .pc files share one folder. The programs run under the
# emulator's command when one follows (a cross build's package).
# usage: installed_layout.sh PREFIX LIBDIR SOURCE_DIR [EMULATOR...]
set -eu
prefix=$1 libdir=$2 src=$3
shift 3
fail() { echo "installed_layout: $*" >&2; exit 1; }
for program in microbench microbench-server microbench-hlog microbench-inspect; do
  [ -x "$prefix/bin/$program" ] || fail "no $prefix/bin/$program"
done
for file in include/microbench.hpp include/microbench.h "$libdir/libmicrobench.a" "$libdir/libmicrobench.so" \
            "$libdir/pkgconfig/microbench.pc" "$libdir/pkgconfig/microbench-c.pc" \
            "$libdir/cmake/microbench/microbenchConfig.cmake"; do
  [ -e "$prefix/$file" ] || fail "no $prefix/$file"
done
[ ! -e "$prefix/share/pkgconfig" ] || fail "a second pkg-config folder: $prefix/share/pkgconfig"
"$@" "$prefix/bin/microbench" --self-test --scale 0.01 | grep -q "Self-test passed" || fail "microbench --self-test"
"$@" "$prefix/bin/microbench-inspect" http://127.0.0.1:8000/factorial/10 "$src/examples/data/factorial_responses.http" |
  grep -q "complete: 7 body bytes" || fail "microbench-inspect"
"$@" "$prefix/bin/microbench-hlog" "$src/tests/fuzz/hlog_corpus/closed_loop.hlog" | grep -q "^total  *1  *100 " ||
  fail "microbench-hlog"
"$@" "$prefix/bin/microbench-server" --help 2>&1 | grep -q "^usage: microbench-server" || fail "microbench-server --help"
echo "installed: 4 programs in bin/, headers, libmicrobench, both .pc files in $libdir/pkgconfig, the CMake package"
