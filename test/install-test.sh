#!/usr/bin/env bash
# make install into a staging directory (DESTDIR + PREFIX, LIBDIR = PREFIX/lib64), then:
# the installed files; the CLI runs from its RUNPATH (LIBDIR, not only $ORIGIN/../lib);
# examples/minimal.c built with pkg-config dynamically (llmmem) and statically
# (llmmem-static, and llmmem --static giving the archive's private needs), with only the
# staged .pc files visible (no cJSON .pc needed) and no PKG_CONFIG_SYSROOT_DIR (the .pc is
# relocatable: ${pcfiledir}); the same after moving the whole tree elsewhere; then
# make uninstall leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/.."
CC=${CC:-cc}
MAKE=${MAKE:-make}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
prefix=/opt/llmmem-test
root=$stage$prefix
unset LD_LIBRARY_PATH PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH

$MAKE -s install DESTDIR="$stage" PREFIX="$prefix" LIBDIR="$prefix/lib64" >/dev/null

soversion=$(sed -n 's/^#define LLMMEM_SOVERSION \([0-9]*\)/\1/p' include/llmmem.h)
expect=$(sed -n 's/^#define LLMMEM_VERSION_STRING "\(.*\)"/\1/p' include/llmmem.h)
for f in include/llmmem.h lib64/libllmmem.a lib64/libllmmem.so "lib64/libllmmem.so.$soversion" \
         "lib64/libllmmem.so.$expect" lib64/pkgconfig/llmmem.pc lib64/pkgconfig/llmmem-static.pc \
         lib64/cmake/llmmem/llmmemConfig.cmake lib64/cmake/llmmem/llmmemConfigVersion.cmake bin/llmmem; do
    [ -e "$root/$f" ] || { echo "not installed: $prefix/$f"; exit 1; }
done
for man in docs/*.1; do
    [ -e "$man" ] || continue
    [ -e "$root/share/man/man1/$(basename "$man")" ] || { echo "not installed: man page $man"; exit 1; }
done
[ -L "$root/lib64/libllmmem.so" ] && [ -L "$root/lib64/libllmmem.so.$soversion" ] ||
    { echo "libllmmem.so and libllmmem.so.$soversion must be symlinks"; exit 1; }
[ "$(ls "$root/include")" = llmmem.h ] || { echo "only llmmem.h is installed in include/"; exit 1; }
soname=$(readelf -d "$root/lib64/libllmmem.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libllmmem.so.$soversion" ] || { echo "SONAME is '$soname'"; exit 1; }
echo "installed files: ok (SONAME $soname, LIBDIR lib64)"

# The installed CLI finds the library in LIBDIR = PREFIX/lib64 through its RUNPATH.
runpath=$(readelf -d "$root/bin/llmmem" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
case ":$runpath:" in
*':$ORIGIN/../lib64:'*) ;;
*) echo "installed llmmem: RUNPATH '$runpath' lacks \$ORIGIN/../lib64"; exit 1 ;;
esac
case ":$runpath:" in *":$prefix/lib64:"*) ;; *) echo "installed llmmem: RUNPATH '$runpath' lacks $prefix/lib64"; exit 1 ;; esac
[ "$("$root/bin/llmmem" --version)" = "llmmem $expect (library $expect, soversion $soversion)" ] ||
    { echo "installed llmmem --version: $("$root/bin/llmmem" --version 2>&1)"; exit 1; }
"$root/bin/llmmem" estimate --preset llama-3.2-1b --json >/dev/null
echo "installed CLI: ok (RUNPATH $runpath)"

# pkg-config sees only the staged .pc files: no libcjson.pc or yaml-0.1.pc is needed to link dynamically.
# (A Requires.private would be resolved even without --static by pkg-config.)
check_pkgconfig() {
    local libdir=$1 out=$2
    export PKG_CONFIG_LIBDIR=$libdir/pkgconfig
    [ "$(pkg-config --modversion llmmem)" = "$expect" ] || { echo "pkg-config version != header $expect"; exit 1; }
    [ "$(pkg-config --variable=libdir llmmem)" -ef "$libdir" ] ||
        { echo "pkg-config libdir $(pkg-config --variable=libdir llmmem) is not $libdir"; exit 1; }
    ! grep -q '^Requires' "$libdir/pkgconfig/llmmem.pc" || { echo "llmmem.pc has a Requires line"; exit 1; }
    grep -q -e -lcjson -e -lyaml <<<"$(pkg-config --libs llmmem)" && { echo "--libs names cJSON or libyaml (only --static should)"; exit 1; }
    grep -q -- '-lcjson -lyaml -lm' <<<"$(pkg-config --static --libs llmmem)" || { echo "--static --libs lacks -lcjson -lyaml -lm"; exit 1; }

    # Dynamic: the loader finds the staged library through LD_LIBRARY_PATH.
    # shellcheck disable=SC2046
    $CC -std=c99 -Wall -Wextra -Werror examples/minimal.c -o "$out/minimal-dyn" $(pkg-config --cflags --libs llmmem)
    grep -q "NEEDED.*libllmmem.so.$soversion" <<<"$(readelf -d "$out/minimal-dyn")" ||
        { echo "minimal-dyn does not need libllmmem.so.$soversion"; exit 1; }
    LD_LIBRARY_PATH=$libdir "$out/minimal-dyn" >"$out/dyn.out"

    # Static, two ways: llmmem-static names the archive itself; llmmem --static gives the
    # archive's needs after -Wl,-Bstatic picked the archive for -lllmmem.
    # shellcheck disable=SC2046
    $CC -std=c99 -Wall -Wextra -Werror examples/minimal.c -o "$out/minimal-static" \
        $(pkg-config --cflags --libs llmmem-static)
    # shellcheck disable=SC2046
    $CC -std=c99 -Wall -Wextra -Werror examples/minimal.c -o "$out/minimal-static2" $(pkg-config --cflags llmmem) \
        $(pkg-config --libs-only-L llmmem) -Wl,-Bstatic -lllmmem -Wl,-Bdynamic $(pkg-config --static --libs-only-l llmmem | sed 's/-lllmmem//')
    for b in minimal-static minimal-static2; do
        if grep -q 'NEEDED.*libllmmem' <<<"$(readelf -d "$out/$b")"; then
            echo "$b still needs libllmmem.so"; exit 1
        fi
        "$out/$b" >"$out/$b.out"
        cmp "$out/dyn.out" "$out/$b.out" || { echo "$b and the dynamic build print different things"; exit 1; }
    done
    unset PKG_CONFIG_LIBDIR
}
mkdir -p "$stage/out1" "$stage/out2"
check_pkgconfig "$root/lib64" "$stage/out1"
echo "pkg-config: ok ($(PKG_CONFIG_LIBDIR=$root/lib64/pkgconfig pkg-config --cflags --libs llmmem))"

# Relocated: the whole prefix moved elsewhere still resolves (${pcfiledir}) and runs.
moved=$stage/elsewhere/prefix
mkdir -p "$(dirname "$moved")"
cp -a "$root" "$moved"
check_pkgconfig "$moved/lib64" "$stage/out2"
"$moved/bin/llmmem" --version >/dev/null || { echo "moved llmmem --version failed"; exit 1; }
echo "relocated: ok"
rm -rf "$stage/elsewhere"

$MAKE -s uninstall DESTDIR="$stage" PREFIX="$prefix" LIBDIR="$prefix/lib64" >/dev/null
left=$(find "$stage" -type f -o -type l | grep -v -e '/out[12]/' || true)
[ -z "$left" ] || { echo "left after uninstall:"; echo "$left"; exit 1; }
echo "uninstall: ok"
