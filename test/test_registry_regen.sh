#!/usr/bin/env bash
# The registry's compiled expressions (src/model/registry_code.c) are what mk/gen_registry.c
# makes of the family tables as they are now: the generator is built from its source and
# the tables (src/model/fam_*.c), run, and its output compared with the committed file byte
# for byte. test_registry_code.c checks that the code computes what the texts say.
set -euo pipefail
cd "$(dirname "$0")/.."
CC=${CC:-cc}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck disable=SC2086
$CC -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wno-unused-parameter -Iinclude -Isrc -O1 \
    mk/gen_registry.c src/model/fam_*.c -o "$T/gen_registry"
"$T/gen_registry" > "$T/registry_code.c"
if ! cmp -s "$T/registry_code.c" src/model/registry_code.c; then
    diff -u src/model/registry_code.c "$T/registry_code.c" | head -n 40
    echo "src/model/registry_code.c is not what mk/gen_registry.c makes of the family tables:"
    echo "run 'make regen' (or make, which writes it again) and commit the file"
    exit 1
fi
echo "ok: src/model/registry_code.c is current ($(grep -c 'LLMMEM__X_' src/model/registry_code.c) lines of code)"
