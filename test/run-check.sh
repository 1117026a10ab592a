#!/usr/bin/env bash
# Test runner behind `make check`, `make sanitize` and `make memcheck`.
#
#   bash test/run-check.sh all   C tests, test/*.sh, test/python/test_*.py  (make check)
#   bash test/run-check.sh c     C tests only, and the CLI runs when CLI is set
#                                (make sanitize, make memcheck)
#
# Environment (the Makefile sets it): CC, CFLAGS, LIBA (the static library the C tests
# link), BINDIR_TEST (where test binaries go), LOGDIR (one log per test), WRAP (a command
# put before each C test and CLI run: valgrind for make memcheck), CLI (a CLI binary to
# run with each argument list of test/memcheck-cli.txt).
# Each test prints "PASS name" or "FAIL name" (with its output); the last line is
# "check: N passed, N failed" and the exit status is non-zero when any failed.
# Runs from the repository root; each test runs there too.
set -u
cd "$(dirname "$0")/.."

mode=${1:-all}
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2 -g}
LIBA=${LIBA:-lib/libllmmem.a}
BINDIR_TEST=${BINDIR_TEST:-test/bin}
LOGDIR=${LOGDIR:-build/check}
WRAP=${WRAP:-}
CLI=${CLI:-}
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
mkdir -p "$BINDIR_TEST" "$LOGDIR"

passed=0
failed=0
failed_names=()

# record NAME STATUS LOG: prints the verdict and, for a failure, the log.
record() {
    local name=$1 status=$2 log=$3
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        printf 'PASS  %s\n' "$name"
        # The accuracy test's table is part of the report (issue 3): show it.
        case "$name" in *test_accuracy* | *test_anchors* | *test_vllm_anchors* | *test_llamacpp_anchors*) sed -e 's/^/    | /' "$log" ;; esac
    else
        failed=$((failed + 1))
        failed_names+=("$name")
        printf 'FAIL  %s (exit %s)\n' "$name" "$status"
        sed -e 's/^/    | /' "$log" | tail -n 200
    fi
}

# run_test NAME CMD...: runs CMD with a timeout, output into the log.
run_test() {
    local name=$1
    shift
    local log="$LOGDIR/$(echo "$name" | tr '/ ' '__').log"
    timeout "$TEST_TIMEOUT" "$@" >"$log" 2>&1
    record "$name" $? "$log"
}

# ---- C unit tests: test/test_*.c, each its own cmocka program ----------------
c_tests=()
for src in test/test_*.c; do
    [ -e "$src" ] || continue
    c_tests+=("$src")
done

build_c_test() {
    local src=$1 bin=$2 log=$3
    # shellcheck disable=SC2086
    $CC -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wno-unused-parameter \
        -Iinclude -Isrc $CFLAGS "$src" "$LIBA" -lcmocka -lcjson -lyaml -lm -o "$bin" >"$log" 2>&1
}

for src in "${c_tests[@]}"; do
    name=$(basename "$src" .c)
    bin="$BINDIR_TEST/$name"
    log="$LOGDIR/$name.build.log"
    if ! build_c_test "$src" "$bin" "$log"; then
        echo "compile failed: $src" >>"$log"
        record "$name (build)" 1 "$log"
        continue
    fi
    # shellcheck disable=SC2086
    run_test "$name" $WRAP "$bin"
done

# ---- the CLI, for make memcheck and make sanitize ---------------------------------
if [ -n "$CLI" ]; then
    if [ ! -x "$CLI" ]; then
        echo "no $CLI" >"$LOGDIR/cli.log"
        record "$CLI" 1 "$LOGDIR/cli.log"
    else
        while IFS= read -r args; do
            case "$args" in '' | '#'*) continue ;; esac
            # shellcheck disable=SC2086
            run_test "llmmem $args" $WRAP "$CLI" $args
        done <test/memcheck-cli.txt
    fi
fi

# ---- shell tests and Python tests ---------------------------------------------
if [ "$mode" = all ]; then
    for sh in test/*.sh; do
        [ -e "$sh" ] || continue
        case "$sh" in test/run-check.sh | test/abi-check.sh) continue ;; esac
        run_test "$(basename "$sh")" bash "$sh"
    done

    for py in test/python/test_*.py; do
        [ -e "$py" ] || continue
        if ! command -v python3 >/dev/null; then
            echo "python3 not found" >"$LOGDIR/python.log"
            record "$(basename "$py")" 1 "$LOGDIR/python.log"
            continue
        fi
        # discover with -s puts test/python first on sys.path (a bare "test.python.x"
        # module name would collide with the standard library's "test" package). The
        # package of this tree (python/llmmem) with this tree's library; .ci/run runs the
        # same tests against the installed wheel.
        run_test "$(basename "$py")" env PYTHONPATH="python:examples/python${PYTHONPATH:+:$PYTHONPATH}" \
            LLMMEM_LIBRARY="$PWD/lib/libllmmem.so" \
            python3 -m unittest discover -s test/python -t test/python -p "$(basename "$py")"
    done
fi

if [ "$failed" -gt 0 ]; then
    echo "failed:"
    printf '    %s\n' "${failed_names[@]}"
fi
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
