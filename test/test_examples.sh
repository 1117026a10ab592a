#!/usr/bin/env bash
# The examples run in the tree without LD_LIBRARY_PATH (rpath $ORIGIN/../lib) and print
# what they promise; every ```c block of README.md compiles and runs against the library,
# every ```python block runs, and every "examples/llmmem ..." line of a ```sh block succeeds.
set -euo pipefail
cd "$(dirname "$0")/.."
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH

for e in examples/minimal examples/scheduler examples/llmmem; do
    grep -q 'R.*PATH.*\$ORIGIN/../lib' <<<"$(readelf -d "$e")" || { echo "$e lacks rpath \$ORIGIN/../lib"; exit 1; }
done

examples/minimal >"$tmp/minimal.out"
cat "$tmp/minimal.out"
grep -Eq '^peak allocated: [1-9][0-9]* bytes' "$tmp/minimal.out" || { echo "minimal: no peak line"; exit 1; }
grep -Eq '^fits: (yes|no)$' "$tmp/minimal.out" || { echo "minimal: no fits line"; exit 1; }

examples/scheduler >"$tmp/scheduler.out"
cat "$tmp/scheduler.out"
grep -Eq '^(chosen: checkpointing=(none|full) micro_batch_size=[0-9]+|nothing fits.*)$' "$tmp/scheduler.out" ||
    { echo "scheduler: no decision line"; exit 1; }
# A model too large for one GPU: nothing fits, and the program says so.
examples/scheduler llama-3.1-70b H100-80GB 4096 >"$tmp/s70.out" 2>&1 || true
grep -q 'nothing fits' "$tmp/s70.out" || { cat "$tmp/s70.out"; echo "scheduler: 70B must not fit on one H100"; exit 1; }

# blocks LANG EXT: writes each ```LANG block of README.md to $tmp/readmeN.EXT.
blocks() {
    awk -v dir="$tmp" -v lang="$1" -v ext="$2" \
        '$0 == "```" lang {n++; f = dir "/readme" n "." ext; on = 1; next} /^```/ {on = 0} on {print > f}' README.md
}

# README.md: each ```c block is a whole program.
blocks c c
n=0
for src in "$tmp"/readme*.c; do
    [ -e "$src" ] || continue
    n=$((n + 1))
    $CC -std=c99 -Wall -Wextra -Werror -Iinclude "$src" -o "${src%.c}" lib/libllmmem.a -lcjson -lyaml -lm
    "${src%.c}" >/dev/null
done
[ "$n" -gt 0 ] || { echo "README.md has no C example"; exit 1; }

blocks python py
np=0
for py in "$tmp"/readme*.py; do
    [ -e "$py" ] || continue
    np=$((np + 1))
    PYTHONPATH=python LLMMEM_LIBRARY="$PWD/lib/libllmmem.so" python3 "$py" >/dev/null ||
        { echo "README python block $np failed"; exit 1; }
done

# CLI lines of ```sh blocks (those that start with examples/llmmem).
awk '/^```sh$/ {on = 1; next} /^```/ {on = 0} on && /^examples\/llmmem / {sub(/[ \t]+#.*$/, ""); print}' README.md >"$tmp/cli.txt"
nc=0
while IFS= read -r line; do
    nc=$((nc + 1))
    # shellcheck disable=SC2086
    $line >/dev/null 2>"$tmp/cli.err" || { echo "README: '$line' failed:"; cat "$tmp/cli.err"; exit 1; }
done <"$tmp/cli.txt"
# Every relative link of README.md names a file of the tree.
for target in $(grep -o '](\([^)#]*\))' README.md | sed 's/^](\(.*\))$/\1/' | grep -v '^[a-z]*://'); do
    [ -e "$target" ] || { echo "README.md links to missing $target"; exit 1; }
done
echo "examples: ok ($n README C block(s) built and run, $np Python block(s), $nc CLI line(s))"
