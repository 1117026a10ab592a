#!/usr/bin/env bash
# abidiff of the built library against the committed baseline (make abi-baseline).
# Added functions pass; removed or changed functions and types fail.
#   usage: test/abi-check.sh BASELINE.abi lib/libllmmem.so.X.Y.Z
# Only types defined in include/ count: the opaque structs are defined in src/ and may change.
set -euo pipefail
cd "$(dirname "$0")/.."
base=$1
so=$2
command -v abidiff >/dev/null || { echo "abi-check: abidiff not found (apt-get install abigail-tools)"; exit 1; }
[ -f "$base" ] || { echo "abi-check: no baseline $base (make abi-baseline)"; exit 1; }
grep -q '\.debug_info' <<<"$(readelf -S "$so")" || { echo "abi-check: $so has no debug info (build with -g)"; exit 1; }

# First the full report, for reading: additions show up here.
set +e
abidiff --headers-dir2 include "$base" "$so" >build/abidiff.txt 2>&1
full=$?
# Then the verdict with additions ignored: any remaining difference is a removal or change.
abidiff --no-added-syms --headers-dir2 include "$base" "$so" >build/abidiff-strict.txt 2>&1
strict=$?
set -e
cat build/abidiff.txt
# abidiff exit bits: 1 error, 2 usage, 4 ABI change, 8 incompatible change.
if [ $((full & 3)) -ne 0 ] || [ $((strict & 3)) -ne 0 ]; then
    echo "abi-check: abidiff failed to run (exit $full / $strict)"
    exit 1
fi
if [ "$strict" -ne 0 ]; then
    echo "abi-check: FAIL: functions or types were removed or changed (abidiff exit $strict)"
    cat build/abidiff-strict.txt
    exit 1
fi
if [ "$full" -ne 0 ]; then
    echo "abi-check: ok: only additions (new functions need a new version node in src/libllmmem.map)"
else
    echo "abi-check: ok: no change against $base"
fi
