#!/bin/sh
# The Debian package of this build, as `cpack -G DEB` makes it: its name, architecture and
# dependencies, and its contents extracted (dpkg-deb -x) and checked as an install under /usr,
# its programs run from there (under the emulator for a cross build).
# usage: test_deb.sh CPACK BUILD_DIR WORK_DIR ARCH LIBDIR SOURCE_DIR [EMULATOR...]
set -eu
cpack=$1 build=$2 work=$3 arch=$4 libdir=$5 src=$6
shift 6
fail() { echo "test_deb: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
"$cpack" -G DEB -B "$work" --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; fail "cpack failed"; }
deb=$(find "$work" -maxdepth 1 -name "microbench_*_$arch.deb")
[ -n "$deb" ] || fail "no microbench_*_$arch.deb in $work: $(ls "$work")"
[ "$(dpkg-deb -f "$deb" Package)" = microbench ] || fail "Package: $(dpkg-deb -f "$deb" Package)"
[ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "Architecture: $(dpkg-deb -f "$deb" Architecture)"
dpkg-deb -f "$deb" Depends | grep -q "libc6 (>= 2.34), libstdc++6" || fail "Depends: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -x "$deb" "$work/root"
sh "$(dirname "$0")/installed_layout.sh" "$work/root/usr" "$libdir" "$src" "$@"
echo "$(basename "$deb"): $(du -k "$deb" | cut -f1) KB"
