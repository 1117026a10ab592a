#!/usr/bin/env bash
# make install into a staging directory (DESTDIR + PREFIX), then build examples/minimal.c
# against the staged copy with pkg-config, dynamically and statically, and run both;
# then make uninstall and check that nothing is left behind.
set -euo pipefail
cd "$(dirname "$0")/.."
CC=${CC:-cc}
MAKE=${MAKE:-make}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
prefix=/opt/llmmem-test
root=$stage$prefix

$MAKE -s install DESTDIR="$stage" PREFIX="$prefix" >/dev/null

soversion=$(sed -n 's/^#define LLMMEM_SOVERSION \([0-9]*\)/\1/p' include/llmmem.h)
for f in include/llmmem.h lib/libllmmem.a lib/libllmmem.so "lib/libllmmem.so.$soversion" \
         lib/pkgconfig/llmmem.pc bin/llmmem; do
    [ -e "$root/$f" ] || { echo "not installed: $prefix/$f"; exit 1; }
done
for man in docs/*.1; do
    [ -e "$man" ] || continue
    [ -e "$root/share/man/man1/$(basename "$man")" ] || { echo "not installed: man page $man"; exit 1; }
done
[ -L "$root/lib/libllmmem.so" ] && [ -L "$root/lib/libllmmem.so.$soversion" ] ||
    { echo "libllmmem.so and libllmmem.so.$soversion must be symlinks"; exit 1; }
[ "$(ls "$root/include")" = llmmem.h ] || { echo "only llmmem.h is installed in include/"; exit 1; }
soname=$(readelf -d "$root/lib/libllmmem.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libllmmem.so.$soversion" ] || { echo "SONAME is '$soname'"; exit 1; }
echo "installed files: ok (SONAME $soname)"

# pkg-config sees the staged tree: the .pc names $prefix, PKG_CONFIG_SYSROOT_DIR maps it.
export PKG_CONFIG_PATH=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
version=$(pkg-config --modversion llmmem)
expect=$(sed -n 's/^#define LLMMEM_VERSION_STRING "\(.*\)"/\1/p' include/llmmem.h)
[ "$version" = "$expect" ] || { echo "pkg-config version $version != header $expect"; exit 1; }
pkg-config --static --libs llmmem | grep -q -- -lcjson || { echo "--static --libs lacks -lcjson"; exit 1; }
pkg-config --static --libs llmmem | grep -q -- -lyaml || { echo "--static --libs lacks -lyaml"; exit 1; }
echo "pkg-config: $(pkg-config --cflags --libs llmmem)"

# Dynamic: the loader finds the staged library through LD_LIBRARY_PATH.
# shellcheck disable=SC2046
$CC -std=c99 -Wall -Wextra -Werror examples/minimal.c -o "$stage/minimal-dyn" $(pkg-config --cflags --libs llmmem)
readelf -d "$stage/minimal-dyn" | grep -q "NEEDED.*libllmmem.so.$soversion" ||
    { echo "minimal-dyn does not need libllmmem.so.$soversion"; exit 1; }
LD_LIBRARY_PATH=$root/lib "$stage/minimal-dyn" >"$stage/dyn.out"
echo "dynamic: ok: $(head -n 3 "$stage/dyn.out" | tr '\n' ' ')"

# Static: the archive, with the private requirements pkg-config --static adds (cJSON, libm).
# -l:libllmmem.a makes the linker take the archive although the .so sits beside it.
# shellcheck disable=SC2046
$CC -std=c99 -Wall -Wextra -Werror examples/minimal.c -o "$stage/minimal-static" \
    $(pkg-config --static --cflags --libs llmmem | sed 's/-lllmmem/-l:libllmmem.a/')
if readelf -d "$stage/minimal-static" | grep -q 'NEEDED.*libllmmem'; then
    echo "minimal-static still needs libllmmem.so"; exit 1
fi
"$stage/minimal-static" >"$stage/static.out"
cmp "$stage/dyn.out" "$stage/static.out" || { echo "static and dynamic outputs differ"; exit 1; }
echo "static: ok"

# The installed CLI runs (its rpath $ORIGIN/../lib finds the staged library).
"$root/bin/llmmem" --version >/dev/null || { echo "installed llmmem --version failed"; exit 1; }
echo "installed CLI: ok"

$MAKE -s uninstall DESTDIR="$stage" PREFIX="$prefix" >/dev/null
left=$(find "$stage" -type f -o -type l | grep -v -e '/minimal-' -e '\.out$' || true)
[ -z "$left" ] || { echo "left after uninstall:"; echo "$left"; exit 1; }
echo "uninstall: ok"
