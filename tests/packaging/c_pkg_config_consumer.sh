#!/bin/sh
# Builds the C example against the installed libmicrobench with flags from microbench-c.pc
# (static, so it runs without an rpath) and runs it.
# usage: c_pkg_config_consumer.sh PREFIX LIBDIR CC SOURCE OUTPUT
set -eu
prefix=$1 libdir=$2 cc=$3 src=$4 out=$5
flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --static --cflags --libs microbench-c)
# shellcheck disable=SC2086  # flags are words on purpose
"$cc" -std=c99 "$src" -o "$out" -Wl,-Bstatic $flags -Wl,-Bdynamic -lstdc++ -lm -pthread
"$out"
