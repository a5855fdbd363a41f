#!/usr/bin/env bash
# tools/test-all prints its final line and fails when a configuration's test step prints no
# ctest summary or its build fails, and says each configuration's minutes: run with stand-ins for cmake and ctest that do nothing.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/cmake"
printf '#!/bin/sh\necho "No tests were found!!!"\n' >"$tmp/bin/ctest"
chmod +x "$tmp/bin/cmake" "$tmp/bin/ctest"
out=$(PATH="$tmp/bin:$PATH" MICROBENCH_BUILD_ROOT="$tmp/build" "$top/tools/test-all" gcc clang 2>&1)
rc=$?
echo "$out"
[ "$rc" -ne 0 ] || { echo "FAIL: exit status 0"; exit 1; }
echo "$out" | grep -qx 'failing configurations: gcc(no tests) clang(no tests)' || { echo "FAIL: configurations not named"; exit 1; }
echo "$out" | tail -n 1 | grep -qx '0 passed, 2 failed' || { echo "FAIL: no final line"; exit 1; }
for config in gcc clang; do  # each configuration's minutes, for CI's time budget
  echo "$out" | grep -qx "time: $config: build [0-9]*\.[0-9] min, test [0-9]*\.[0-9] min" || { echo "FAIL: no time for $config"; exit 1; }
done
echo "ok"
