#!/bin/sh
# Builds and runs the consumer with flags from the installed microbench.pc.
# usage: pkg_config_consumer.sh PKGCONFIG_DIR CXX SOURCE OUTPUT
set -eu
dir=$1 cxx=$2 src=$3 out=$4
flags=$(PKG_CONFIG_PATH="$dir" pkg-config --cflags --libs microbench)
# shellcheck disable=SC2086  # flags are words on purpose
"$cxx" -std=c++17 $flags "$src" -o "$out"
"$out"
