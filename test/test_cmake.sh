#!/usr/bin/env bash
# The CMake package: make install into a staging prefix, then a project
# that does find_package(llmmem X.Y REQUIRED) builds examples/minimal.c against
# llmmem::llmmem (shared), llmmem::llmmem_static and, with llmmem_USE_STATIC, llmmem::llmmem
# again; each runs and prints what the C example prints. The same with LIBDIR lib64 (found
# through llmmem_DIR: CMake does not search lib64 on Debian). A request for another major
# (or, before 1.0, another minor) is refused. Without cmake it FAILS, saying what to install
# (./setup.sh test-deps installs it): a test that cannot run never reports PASS.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cmake >/dev/null; then
    echo "FAIL: cmake not found, the CMake package is not tested (apt-get install cmake; ./setup.sh test-deps installs it)"
    exit 1
fi
MAKE=${MAKE:-make}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/stage/opt/llmmem
unset LD_LIBRARY_PATH
$MAKE -s install DESTDIR="$tmp/stage" PREFIX=/opt/llmmem >/dev/null

major=$(sed -n 's/^#define LLMMEM_VERSION_MAJOR \([0-9]*\)/\1/p' include/llmmem.h)
minor=$(sed -n 's/^#define LLMMEM_VERSION_MINOR \([0-9]*\)/\1/p' include/llmmem.h)
soversion=$(sed -n 's/^#define LLMMEM_SOVERSION \([0-9]*\)/\1/p' include/llmmem.h)

mkdir -p "$tmp/proj"
cp examples/minimal.c "$tmp/proj/"
cat >"$tmp/proj/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.13)
project(llmmem_consumer C)
find_package(llmmem $major.$minor REQUIRED)
message(STATUS "llmmem \${llmmem_VERSION} soversion \${llmmem_SOVERSION}: \${llmmem_INCLUDE_DIRS}")
add_executable(minimal_default minimal.c)
target_link_libraries(minimal_default PRIVATE llmmem::llmmem)
add_executable(minimal_shared minimal.c)
target_link_libraries(minimal_shared PRIVATE llmmem::llmmem_shared)
add_executable(minimal_static minimal.c)
target_link_libraries(minimal_static PRIVATE llmmem::llmmem_static)
CMAKE
cmake -S "$tmp/proj" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/configure.log" 2>&1 ||
    { cat "$tmp/configure.log"; exit 1; }
grep -- "-- llmmem " "$tmp/configure.log"
cmake --build "$tmp/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }

needs() { grep -q "NEEDED.*libllmmem.so.$soversion" <<<"$(readelf -d "$1")"; }
needs "$tmp/build/minimal_default" || { echo "llmmem::llmmem does not link libllmmem.so.$soversion"; exit 1; }
needs "$tmp/build/minimal_shared" || { echo "llmmem::llmmem_shared does not link libllmmem.so.$soversion"; exit 1; }
if needs "$tmp/build/minimal_static"; then echo "llmmem::llmmem_static links the shared library"; exit 1; fi
# CMake puts the imported library's folder into the build RUNPATH: no LD_LIBRARY_PATH needed
for b in minimal_default minimal_shared minimal_static; do
    "$tmp/build/$b" >"$tmp/$b.out" || { echo "$b failed"; exit 1; }
    grep -Eq '^peak allocated: [1-9][0-9]* bytes' "$tmp/$b.out" || { cat "$tmp/$b.out"; echo "$b: no peak line"; exit 1; }
done
cmp "$tmp/minimal_shared.out" "$tmp/minimal_static.out"
echo "cmake: find_package(llmmem $major.$minor) and the shared and static targets: ok"

# llmmem_USE_STATIC makes llmmem::llmmem the static library
cmake -S "$tmp/proj" -B "$tmp/build-static" -DCMAKE_PREFIX_PATH="$prefix" -Dllmmem_USE_STATIC=ON >/dev/null
cmake --build "$tmp/build-static" --target minimal_default >/dev/null
if needs "$tmp/build-static/minimal_default"; then echo "llmmem_USE_STATIC: still the shared library"; exit 1; fi
echo "cmake: llmmem_USE_STATIC: ok"

# LIBDIR lib64: the package computes its paths from its own folder
$MAKE -s install DESTDIR="$tmp/stage64" PREFIX=/opt/llmmem LIBDIR=/opt/llmmem/lib64 >/dev/null
cmake -S "$tmp/proj" -B "$tmp/build64" -Dllmmem_DIR="$tmp/stage64/opt/llmmem/lib64/cmake/llmmem" >/dev/null
cmake --build "$tmp/build64" --target minimal_shared >/dev/null
grep -q "R.*PATH.*stage64/opt/llmmem/lib64" <<<"$(readelf -d "$tmp/build64/minimal_shared")" ||
    { echo "lib64: minimal_shared is not linked with the lib64 library"; exit 1; }
"$tmp/build64/minimal_shared" >/dev/null
echo "cmake: LIBDIR lib64: ok"

# incompatible requests are refused by llmmemConfigVersion.cmake
for want in "$((major + 1)).0" "$major.$((minor + 1))"; do
    sed -i "s/^find_package(llmmem .* REQUIRED)/find_package(llmmem $want REQUIRED)/" "$tmp/proj/CMakeLists.txt"
    if cmake -S "$tmp/proj" -B "$tmp/build-$want" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/bad.log" 2>&1; then
        echo "find_package(llmmem $want) accepted version $major.$minor"; exit 1
    fi
    grep -q "compatible" "$tmp/bad.log" || { cat "$tmp/bad.log"; exit 1; }
done
echo "cmake: version check: ok"
