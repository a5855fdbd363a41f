#!/bin/sh
# Builds the C example against the installed libmicrobench.a with the flags from microbench-c.pc
# alone — `pkg-config --static` must name every library the archive needs (C++'s, libm's,
# pthreads) — and runs it (static, so without an rpath). The C driver links nothing of C++'s by itself.
# usage: c_pkg_config_consumer.sh PREFIX LIBDIR CC SOURCE OUTPUT
set -eu
prefix=$1 libdir=$2 cc=$3 src=$4 out=$5
flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --static --cflags --libs microbench-c)
# shellcheck disable=SC2086  # flags are words on purpose, here and below
# -lmicrobench as the archive itself, so the shared library installed beside it is not taken instead
flags=$(printf '%s\n' $flags | sed "s|^-lmicrobench\$|$prefix/$libdir/libmicrobench.a|" | tr '\n' ' ')
# shellcheck disable=SC2086
"$cc" -std=c99 "$src" -o "$out" $flags
"$out"
