#!/usr/bin/env bash
# make check-python-installed (.ci/run): builds the wheel (pip wheel --no-build-isolation),
# installs it into a fresh `python3 -m venv --system-site-packages`, and runs every test of
# test/python against the installed package: not the tree (PYTHONPATH unset, run from
# another folder, LLMMEM_TEST_INSTALLED=1 makes test_package.py check where llmmem, its
# library and its CLI come from).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
PYTHON=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset PYTHONPATH LLMMEM_LIBRARY LLMMEM_CLI LLMMEM_HEADER LD_LIBRARY_PATH
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INDEX=1 PIP_NO_CACHE_DIR=1
"$PYTHON" -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/pip" wheel -q --no-build-isolation --no-deps -w "$tmp/wheels" . >"$tmp/wheel.log" 2>&1 ||
    { tail -n 40 "$tmp/wheel.log"; exit 1; }
"$tmp/venv/bin/pip" install -q --no-deps "$tmp"/wheels/llmmem-*.whl
echo "installed $(basename "$tmp"/wheels/llmmem-*.whl) into a venv"
cd "$tmp"
LLMMEM_TEST_INSTALLED=1 "$tmp/venv/bin/python" -m unittest discover -s "$root/test/python" -t "$root/test/python" -v \
    2>&1 | tail -n 200
exit "${PIPESTATUS[0]}"
