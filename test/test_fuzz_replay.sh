#!/usr/bin/env bash
# Replays every seed input (fuzz/corpus/<target>/) and every past crash input
# (fuzz/crashes/<target>/) through its fuzz target, built with $CC and the standalone
# driver fuzz/replay.c (no libFuzzer), linking $LIBA. Where the compiler supports it the
# harness is built with ASan + UBSan (leaks and bad frees in the library are caught by the
# interceptors; the library itself is as built). Run from the repository root (make check).
set -u
cd "$(dirname "$0")/.."
CC=${CC:-cc}
LIBA=${LIBA:-lib/libllmmem.a}
OUT=${FUZZ_REPLAY_DIR:-build/fuzz-replay}
mkdir -p "$OUT"
[ -f "$LIBA" ] || { echo "no $LIBA (run make)"; exit 1; }

CFLAGS_R="-std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Wall -Wextra -Wno-unused-parameter -Iinclude"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
echo 'int main(void){return 0;}' >"$OUT/probe.c"
# shellcheck disable=SC2086
if ! $CC $SAN "$OUT/probe.c" -o "$OUT/probe" 2>/dev/null || ! "$OUT/probe"; then
    SAN=""
    echo "note: $CC cannot build with ASan/UBSan here; replaying without sanitizers"
fi
WRAP="-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free"

fail=0
targets=0
inputs=0
for src in fuzz/fuzz_*.c; do
    t=$(basename "$src" .c)
    bin="$OUT/$t"
    extra=""
    if [ "$t" = fuzz_cli ]; then
        # the CLI's files (examples/cli/), each compiled with the shim
        mkdir -p "$OUT/cli"
        cli_ok=1
        for c in examples/cli/*.c; do
            o="$OUT/cli/$(basename "$c" .c).o"
            # shellcheck disable=SC2086
            if ! $CC $CFLAGS_R $SAN -include fuzz/cli_shim.h -c "$c" -o "$o" \
                >"$OUT/$t.build.log" 2>&1; then
                echo "FAIL: cannot compile $c for $t"
                cat "$OUT/$t.build.log"
                cli_ok=0
                break
            fi
            extra="$extra $o"
        done
        [ "$cli_ok" = 1 ] || { fail=1; continue; }
        extra="$extra $WRAP"
    fi
    # shellcheck disable=SC2086
    if ! $CC $CFLAGS_R $SAN fuzz/replay.c "$src" $extra "$LIBA" -lcjson -lyaml -lm -o "$bin" \
        >"$OUT/$t.build.log" 2>&1; then
        echo "FAIL: cannot build $t"
        cat "$OUT/$t.build.log"
        fail=1
        continue
    fi
    dirs=()
    for d in "fuzz/corpus/$t" "fuzz/crashes/$t"; do
        [ -d "$d" ] && dirs+=("$d")
    done
    [ ${#dirs[@]} -gt 0 ] || { echo "FAIL: $t has no corpus"; fail=1; continue; }
    targets=$((targets + 1))
    if ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
        "$bin" "${dirs[@]}" >"$OUT/$t.log" 2>&1; then
        n=$(sed -n 's/^replay: \([0-9]*\) inputs.*/\1/p' "$OUT/$t.log")
        inputs=$((inputs + ${n:-0}))
        echo "ok: $t (${n:-?} inputs)"
    else
        echo "FAIL: $t"
        tail -n 60 "$OUT/$t.log"
        fail=1
    fi
done
echo "replayed $inputs inputs of $targets targets"
exit "$fail"
