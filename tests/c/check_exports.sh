#!/bin/sh
# libmicrobench.so exports the C API and nothing else, and carries its soname.
#   check_exports.sh LIBRARY EXPECTED_SONAME
lib=$1 soname=$2
exports=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }')
[ -n "$exports" ] || { echo "FAIL: $lib exports nothing"; exit 1; }
others=$(echo "$exports" | grep -v '^mb_')
[ -z "$others" ] || { echo "FAIL: exports beyond mb_:"; echo "$others"; exit 1; }
count=$(echo "$exports" | wc -l)
objdump -p "$lib" | grep -q "SONAME *$soname\$" || { echo "FAIL: soname is not $soname"; objdump -p "$lib" | grep SONAME; exit 1; }
echo "ok: $count symbols, all mb_; soname $soname"
