#!/usr/bin/env bash
# The Python package as users get it (pyproject.toml, python/backend/llmmem_build.py):
#  1. README's install: a bare `python3 -m venv` (no setuptools/wheel/cffi needed), then
#     `pip install --no-build-isolation .` of this tree; the README's one-liner and
#     `llmmem --version` run from the venv.
#  2. `make dist`, unpacked elsewhere (no git, no build output): `pip wheel
#     --no-build-isolation` builds the C library from that source; the wheel holds the
#     package, the prototypes generated from the header, libllmmem under its SONAME, the
#     cJSON it links, the CLI (RUNPATH $ORIGIN/../lib), a RECORD whose hashes match, the
#     tag py3-none-<platform>; installed in another bare venv it runs with no tree around
#     (the library and the CLI's cJSON are the wheel's own).
# When python3 cannot make a venv it FAILS, saying what to install (apt-get install python3-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
MAKE=${MAKE:-make}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LLMMEM_LIBRARY LLMMEM_CLI LLMMEM_HEADER PYTHONPATH LD_LIBRARY_PATH PIP_REQUIRE_VIRTUALENV
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INDEX=1 PIP_NO_CACHE_DIR=1
if ! "$PYTHON" -m venv "$tmp/v" >"$tmp/venv.log" 2>&1; then
    cat "$tmp/venv.log"
    echo "FAIL: $PYTHON -m venv does not work, the package is not tested (apt-get install python3-venv; ./setup.sh test-deps installs it)"
    exit 1
fi
version=$(sed -n 's/^#define LLMMEM_VERSION_STRING "\(.*\)"/\1/p' include/llmmem.h)
soversion=$(sed -n 's/^#define LLMMEM_SOVERSION \([0-9]*\)/\1/p' include/llmmem.h)

# 1. pip install . into a bare venv, then the README's commands
"$tmp/v/bin/pip" install -q --no-build-isolation . >"$tmp/pip1.log" 2>&1 || { cat "$tmp/pip1.log"; exit 1; }
cd "$tmp"  # not the tree: the installed package must be the one imported
peak=$(v/bin/python -c 'import llmmem; print(llmmem.estimate("llama-3.1-8b", micro_batch_size=4, seq_len=4096)["peak_allocated_bytes"])')
want=$("$OLDPWD/examples/llmmem" estimate --preset llama-3.1-8b --micro_batch_size 4 --seq_len 4096 --json |
    v/bin/python -c 'import json, sys; print(json.load(sys.stdin)["peak_allocated_bytes"])')
[ "$peak" = "$want" ] || { echo "installed package: peak $peak, the CLI of the tree says $want"; exit 1; }
[ "$(v/bin/llmmem --version)" = "llmmem $version (library $version, soversion $soversion)" ] ||
    { echo "v/bin/llmmem --version: $(v/bin/llmmem --version 2>&1)"; exit 1; }
cd "$OLDPWD"
echo "pip install . into a bare venv: ok (peak $peak, llmmem --version)"

# 2. make dist -> pip wheel from the unpacked tarball -> another bare venv
$MAKE -s dist >/dev/null
mkdir -p "$tmp/src" "$tmp/wheels"
tar -C "$tmp/src" -xzf "build/dist/llmmem-$version.tar.gz"
src=$tmp/src/llmmem-$version
[ -f "$src/pyproject.toml" ] && [ -f "$src/include/llmmem.h" ] && [ ! -e "$src/.git" ] && [ ! -e "$src/lib/libllmmem.a" ] ||
    { echo "make dist: unexpected tarball content"; exit 1; }
"$tmp/v/bin/pip" wheel -q --no-build-isolation --no-deps -w "$tmp/wheels" "$src" >"$tmp/pip2.log" 2>&1 ||
    { tail -n 40 "$tmp/pip2.log"; exit 1; }
whl=$(ls "$tmp"/wheels/llmmem-"$version"-py3-none-*.whl)
"$tmp/v/bin/python" - "$whl" "$soversion" "$src/python/llmmem" <<'EOF'
import base64, csv, hashlib, io, os, re, sys, zipfile
whl, so = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(whl)
names = set(z.namelist())
need = {"llmmem/__init__.py", "llmmem/_ffi.py", "llmmem/_header.py", "llmmem/_cli.py", "llmmem/__main__.py",
        "_llmmem_cli.py",
        "llmmem/py.typed", "llmmem/_prototypes.py", "llmmem/lib/libllmmem.so." + so, "llmmem/bin/llmmem"}
# every module of the package (the tarball's python/llmmem, as git tracks it)
need |= {"llmmem/" + f for f in os.listdir(sys.argv[3]) if f.endswith(".py")}
assert len(need) >= 15, sorted(need)
missing = need - names
assert not missing, missing
assert any(re.match(r"llmmem/lib/libcjson\.so\.\d+$", n) for n in names), "no bundled cJSON"
assert any(re.match(r"llmmem/lib/libyaml-0\.so\.\d+$", n) for n in names), "no bundled libyaml"
info = [n for n in names if n.endswith(".dist-info/RECORD")]
assert len(info) == 1, info
rows = list(csv.reader(io.StringIO(z.read(info[0]).decode())))
assert {r[0] for r in rows} == names, "RECORD does not list exactly the wheel's files"
for name, digest, size in rows:
    if name == info[0]:
        continue
    data = z.read(name)
    h = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert digest == h and int(size) == len(data), name
meta = z.read(info[0].replace("RECORD", "METADATA")).decode()
assert "Requires-Python: >=3.9" in meta
assert "llmmem = _llmmem_cli:main" in z.read(info[0].replace("RECORD", "entry_points.txt")).decode()
assert z.getinfo("llmmem/bin/llmmem").external_attr >> 16 & 0o111, "the CLI is not executable"
assert "FUNCTIONS = " in z.read("llmmem/_prototypes.py").decode()
print("wheel content: ok (%d files)" % len(names))
EOF
"$PYTHON" -m venv "$tmp/w"
"$tmp/w/bin/pip" install -q --no-deps "$whl" >"$tmp/pip3.log" 2>&1 || { cat "$tmp/pip3.log"; exit 1; }
rm -rf "$src"  # nothing of the source may be needed any more
cd "$tmp"
w/bin/python - <<'EOF'
import os, llmmem
pkg = os.path.dirname(llmmem.__file__)
assert llmmem.LIBRARY_PATH.startswith(pkg), llmmem.LIBRARY_PATH
maps = open("/proc/self/maps").read()
assert os.path.join(pkg, "lib", "libcjson") in maps, "the bundled cJSON is not the one loaded"
assert os.path.join(pkg, "lib", "libyaml") in maps, "the bundled libyaml is not the one loaded"
r = llmmem.estimate("llama-3.2-1b", micro_batch_size=2)
assert r.fits and r.peak_allocated_bytes > 0 and r.engine == "single"
print("installed wheel: ok (%s)" % r)
EOF
cli=$(w/bin/python -c 'import llmmem; print(llmmem.cli_path())')
# ldd's output read whole first: grep -q stops reading at its match, and with pipefail
# ldd's SIGPIPE would fail the check
deps=$(ldd "$cli")
grep -q "libcjson.*=> .*/site-packages/llmmem/.*lib/libcjson" <<<"$deps" || { echo "$deps"; echo "the bundled CLI does not take the wheel's cJSON"; exit 1; }
grep -q "libyaml.*=> .*/site-packages/llmmem/.*lib/libyaml" <<<"$deps" || { echo "$deps"; echo "the bundled CLI does not take the wheel's libyaml"; exit 1; }
if grep -q libllmmem <<<"$deps"; then echo "the bundled CLI needs libllmmem.so (it links the archive)"; exit 1; fi
w/bin/llmmem estimate --preset llama-3.2-1b >/dev/null
[ "$(w/bin/python -m llmmem --version)" = "$(w/bin/llmmem --version)" ]
echo "wheel from make dist: ok ($(basename "$whl"))"
