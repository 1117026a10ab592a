#!/usr/bin/env bash
# Builds the browser page of examples/web/ (make web): libllmmem compiled to WebAssembly
# with Debian's emscripten, next to index.html, app.js and style.css.
#
#   bash mk/web.sh            examples/web/llmmem.js + examples/web/llmmem.wasm
#
# What it needs, installed when missing (as root, apt-get; else it says what to install):
#   emscripten (Debian 3.1.6; its optimizer needs Debian's acorn: NODE_PATH=/usr/share/nodejs)
#   dpkg-dev   (dpkg-source applies Debian's patches to cJSON's source)
# cJSON: Debian ships no wasm build, so its source package (with Debian's security
# patches) is fetched with `apt-get source` through a private apt state under
# build/web/apt (the machine's apt configuration is not touched) and compiled into
# build/web. cJSON's code is never committed to this project.
#
# Environment: EMCC (default emcc), WEB_OUT (default examples/web).
set -euo pipefail
cd "$(dirname "$0")/.."

EMCC=${EMCC:-emcc}
OUT=${WEB_OUT:-examples/web}
B=build/web
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

say() { printf 'web: %s\n' "$*"; }

apt_install() {
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            say "missing $*: run as root or install them (apt-get install $*)" >&2
            exit 1
        fi
    fi
    say "installing $*"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q </dev/null >/dev/null
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "$@" </dev/null
}

need=()
command -v "$EMCC" >/dev/null 2>&1 || need+=(emscripten)
command -v dpkg-source >/dev/null 2>&1 || need+=(dpkg-dev)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

# ---- cJSON from Debian's source package ---------------------------------------------
# The deb-src lines name the suites the machine's apt uses for bookworm; CJSON_SUITES
# overrides them ("bookworm bookworm-security").
CJSON_DIR=$B/cjson
if [ ! -f "$CJSON_DIR/cJSON.c" ]; then
    say "fetching Debian's cjson source package into $B/apt"
    mkdir -p "$B/apt/lists/partial" "$B/apt/cache/archives/partial" "$B/apt/src"
    : >"$B/apt/status"
    codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-bookworm}")
    codename=${codename:-bookworm}
    {
        echo "deb-src http://deb.debian.org/debian $codename main"
        echo "deb-src http://deb.debian.org/debian-security $codename-security main"
    } >"$B/apt/sources.list"
    abs=$(pwd)/$B/apt
    aptopts=(-o "Dir::Etc::SourceList=$abs/sources.list" -o Dir::Etc::SourceParts=/dev/null
             -o "Dir::State::Lists=$abs/lists" -o "Dir::Cache=$abs/cache"
             -o "Dir::State::status=$abs/status")
    [ "$(id -u)" = 0 ] && aptopts+=(-o APT::Sandbox::User=root)
    apt-get "${aptopts[@]}" update -q </dev/null >"$B/apt/update.log" 2>&1 || {
        cat "$B/apt/update.log" >&2
        say "apt-get update of the deb-src lists failed (network?)" >&2
        exit 1
    }
    rm -rf "$B/apt/src"/*
    (cd "$B/apt/src" && apt-get "${aptopts[@]}" source -q cjson </dev/null) >"$B/apt/source.log" 2>&1 || {
        cat "$B/apt/source.log" >&2
        say "apt-get source cjson failed" >&2
        exit 1
    }
    srcdir=$(find "$B/apt/src" -maxdepth 1 -type d -name 'cjson-*' | head -n 1)
    [ -n "$srcdir" ] && [ -f "$srcdir/cJSON.c" ] || { say "no cJSON.c in the source package" >&2; exit 1; }
    dsc=$(ls "$B/apt/src"/cjson_*.dsc | head -n 1)
    mkdir -p "$CJSON_DIR/include/cjson"
    cp "$srcdir/cJSON.c" "$CJSON_DIR/cJSON.c"
    cp "$srcdir/cJSON.h" "$CJSON_DIR/cJSON.h"
    cp "$srcdir/cJSON.h" "$CJSON_DIR/include/cjson/cJSON.h"
    basename "$dsc" .dsc >"$CJSON_DIR/VERSION"
    grep -o 'applying .*' "$B/apt/source.log" >"$CJSON_DIR/PATCHES" || true
fi
say "cJSON: $(cat "$CJSON_DIR/VERSION") ($(wc -l <"$CJSON_DIR/PATCHES") Debian patches applied)"

# ---- libyaml from Debian's source package (the framework YAML readers) ---------------
# Fetched like cJSON, with the same private apt state; its src/*.c compiled as its
# own build does, the version macros its configure script would define given here.
YAML_DIR=$B/libyaml
if [ ! -f "$YAML_DIR/src/api.c" ]; then
    say "fetching Debian's libyaml source package into $B/apt"
    abs=$(pwd)/$B/apt
    aptopts=(-o "Dir::Etc::SourceList=$abs/sources.list" -o Dir::Etc::SourceParts=/dev/null
             -o "Dir::State::Lists=$abs/lists" -o "Dir::Cache=$abs/cache"
             -o "Dir::State::status=$abs/status")
    [ "$(id -u)" = 0 ] && aptopts+=(-o APT::Sandbox::User=root)
    mkdir -p "$B/apt/ysrc"
    rm -rf "$B/apt/ysrc"/*
    (cd "$B/apt/ysrc" && apt-get "${aptopts[@]}" source -q libyaml </dev/null) >"$B/apt/ysource.log" 2>&1 || {
        cat "$B/apt/ysource.log" >&2
        say "apt-get source libyaml failed" >&2
        exit 1
    }
    ysrc=$(find "$B/apt/ysrc" -maxdepth 1 -type d -name 'libyaml-*' | head -n 1)
    [ -n "$ysrc" ] && [ -f "$ysrc/src/api.c" ] || { say "no src/api.c in the libyaml source package" >&2; exit 1; }
    mkdir -p "$YAML_DIR/src" "$YAML_DIR/include"
    cp "$ysrc"/src/*.c "$ysrc"/src/*.h "$YAML_DIR/src/"
    cp "$ysrc/include/yaml.h" "$YAML_DIR/include/yaml.h"
    basename "$(ls "$B/apt/ysrc"/libyaml_*.dsc | head -n 1)" .dsc >"$YAML_DIR/VERSION"
fi
yver=$(sed -n 's/^libyaml_\([0-9]*\)\.\([0-9]*\)\.\([0-9]*\).*/\1 \2 \3/p' "$YAML_DIR/VERSION")
set -- $yver
YAML_DEFS=(-DYAML_VERSION_MAJOR="${1:-0}" -DYAML_VERSION_MINOR="${2:-2}" -DYAML_VERSION_PATCH="${3:-5}"
           -DYAML_VERSION_STRING="\"${1:-0}.${2:-2}.${3:-5}\"" -I"$YAML_DIR/include")
say "libyaml: $(cat "$YAML_DIR/VERSION")"

# ---- the library in WebAssembly -------------------------------------------------------
# Every function between the header's cdef markers is exported, as the ABI list is.
mkdir -p "$B/obj" "$OUT"
funcs=$(sed -n '/LLMMEM_CDEF_BEGIN/,/LLMMEM_CDEF_END/p' include/llmmem.h |
        grep -o 'LLMMEM_API[^;(]*[ *]llmmem_[a-z0-9_]*[ ]*(' | grep -o 'llmmem_[a-z0-9_]*' | sort -u)
exports=$(printf '"_%s",' $funcs malloc free)
echo "[${exports%,}]" >"$B/exports.json"
say "exporting $(echo "$funcs" | wc -l) functions"

CFLAGS_WEB=(-std=c11 -O2 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -I"$CJSON_DIR/include"
            -I"$YAML_DIR/include" -Wall -Wextra -Wno-unused-parameter)
objs=()
newest_header=$(ls -t include/llmmem.h src/*/*.h src/*/*/*.h src/*/*.def | head -n 1)
for src in src/*/*.c src/*/*/*.c "$CJSON_DIR/cJSON.c" "$YAML_DIR"/src/*.c; do
    obj=$B/obj/$(echo "${src#src/}" | tr / _ | sed 's/\.c$//').o
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_header" -nt "$obj" ]; then
        if [ "$src" = "$CJSON_DIR/cJSON.c" ]; then
            "$EMCC" -O2 -c "$src" -o "$obj"  # as Debian builds it: its own flags, no ours
        elif [ "${src#$YAML_DIR/}" != "$src" ]; then
            "$EMCC" -O2 "${YAML_DEFS[@]}" -c "$src" -o "$obj"
        else
            "$EMCC" "${CFLAGS_WEB[@]}" -c "$src" -o "$obj"
        fi
    fi
    objs+=("$obj")
done

"$EMCC" -O2 "${objs[@]}" -o "$OUT/llmmem.js" \
    -s MODULARIZE=1 -s EXPORT_NAME=createLlmmem -s WASM_BIGINT=1 -s ALLOW_MEMORY_GROWTH=1 \
    -s ENVIRONMENT=web,node -s EXPORTED_FUNCTIONS=@"$B/exports.json" \
    -s EXPORTED_RUNTIME_METHODS='["UTF8ToString","stringToUTF8","lengthBytesUTF8","getValue","setValue"]'
cp "$CJSON_DIR/VERSION" "$OUT/cjson-version.txt"
cp "$YAML_DIR/VERSION" "$OUT/libyaml-version.txt"
say "built $OUT/llmmem.js and $OUT/llmmem.wasm ($(stat -c %s "$OUT/llmmem.wasm") bytes)"
say "serve it: (cd $OUT && python3 -m http.server 8000), then open http://localhost:8000/"
