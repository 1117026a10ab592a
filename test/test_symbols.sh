#!/usr/bin/env bash
# The exported ABI in one place, four ways, which must all agree:
#   the functions declared LLMMEM_API in include/llmmem.h,
#   the global: list of the version script src/libllmmem.map,
#   test/abi/symbols.txt (the committed list; make abi-baseline rewrites it),
#   nm -D --defined-only lib/libllmmem.so (what the linker really exports).
# And the static archive (LIBA, lib/libllmmem.a) defines no global symbol without the
# llmmem_ / llmmem__ prefix: a program linking it statically meets no bare name of ours.
# And the enum values of the header are append-only: every "NAME VALUE" line of
# test/abi/constants.txt is still in the header with that value (new ones may be added).
# With --header-list / --constants it only prints the header's functions / enum values.
set -euo pipefail
cd "$(dirname "$0")/.."

header_list() {
    # One declaration per LLMMEM_API line: the name is the identifier before "(".
    grep '^LLMMEM_API' include/llmmem.h |
        sed -E 's/^LLMMEM_API[^(]*[ *](llmmem_[A-Za-z0-9_]+)[[:space:]]*\(.*/\1/' | LC_ALL=C sort
}

constants() {
    grep -oE '^[[:space:]]*LLMMEM_[A-Z0-9_]+ = -?[0-9]+' include/llmmem.h |
        sed -E 's/^[[:space:]]*//; s/ = / /' | LC_ALL=C sort
}

case "${1:-}" in
--header-list) header_list; exit 0 ;;
--constants) constants; exit 0 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

header_list >"$tmp/header"
if grep -v '^llmmem_[A-Za-z0-9_]*$' "$tmp/header"; then
    echo "could not parse the LLMMEM_API lines above in include/llmmem.h"
    exit 1
fi
# Every llmmem_ function declared in the header must carry LLMMEM_API.
grep -E '^[A-Za-z].*[ *]llmmem_[a-z0-9_]+\(' include/llmmem.h | grep -v '^LLMMEM_API' >"$tmp/bare" || true
if [ -s "$tmp/bare" ]; then
    echo "declarations without LLMMEM_API in include/llmmem.h:"
    cat "$tmp/bare"
    exit 1
fi

# The map: names between "global:" and "local:", comments removed.
perl -0777 -pe 's{/\*.*?\*/}{}gs' src/libllmmem.map |
    awk '/global:/ {g = 1; next} /local:/ || /^[[:space:]]*}/ {g = 0} g' |
    tr -d ' \t;' | grep -v '^$' | LC_ALL=C sort >"$tmp/map"
grep -q 'local:' src/libllmmem.map && grep -q '^[[:space:]]*\*;' src/libllmmem.map ||
    { echo "src/libllmmem.map must have local: *; in its first node"; exit 1; }

LC_ALL=C sort test/abi/symbols.txt >"$tmp/committed"

so=lib/libllmmem.so
[ -e "$so" ] || { echo "$so is not built"; exit 1; }
# Defined dynamic symbols, version suffix removed; the version node itself (type A) skipped.
nm -D --defined-only "$so" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | LC_ALL=C sort >"$tmp/nm"
# Every export must carry the version node.
nm -D --defined-only "$so" | awk '$2 != "A" && $3 !~ /@@?LLMMEM_/ {print "unversioned export: " $3; bad = 1} END {exit bad}'

status=0
compare() {
    if ! diff -u "$tmp/$1" "$tmp/$2" >"$tmp/diff"; then
        echo "$3 differs from $4 (- only in $3, + only in $4):"
        grep -E '^[-+][^-+]' "$tmp/diff" || true
        status=1
    fi
}
compare header map "include/llmmem.h" "src/libllmmem.map"
compare header committed "include/llmmem.h" "test/abi/symbols.txt"
compare header nm "include/llmmem.h" "nm -D $so"
constants >"$tmp/constants"
LC_ALL=C sort test/abi/constants.txt | LC_ALL=C comm -23 - "$tmp/constants" >"$tmp/lost"
if [ -s "$tmp/lost" ]; then
    echo "enum values renumbered or removed (test/abi/constants.txt lists them; enums are append-only):"
    cat "$tmp/lost"
    status=1
fi
# The static archive: every global symbol it defines is prefixed (issue 26).
liba=${LIBA:-lib/libllmmem.a}
[ -e "$liba" ] || { echo "$liba is not built"; exit 1; }
nm -g --defined-only "$liba" | awk -v lib="$liba" 'NF == 3 && $3 !~ /^llmmem_/ {print lib ": " $3}' >"$tmp/bare_ar"
if [ -s "$tmp/bare_ar" ]; then
    echo "globals without the llmmem_ / llmmem__ prefix in $liba:"
    cat "$tmp/bare_ar"
    status=1
fi
nar=$(nm -g --defined-only "$liba" | awk 'NF == 3' | wc -l)
n=$(wc -l <"$tmp/header")
[ "$status" -eq 0 ] && echo "symbols: $n functions; header, map, symbols.txt and nm -D agree; $(wc -l <"$tmp/constants") enum values, none renumbered; $nar globals of $liba, all prefixed"
exit "$status"
