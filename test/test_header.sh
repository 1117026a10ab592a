#!/usr/bin/env bash
# include/llmmem.h compiles alone as C99 and C++11 with -Wall -Wextra -pedantic -Werror
# (and as C11), and LLMMEM_VERSION_STRING agrees with the numeric macros.
set -euo pipefail
cd "$(dirname "$0")/.."
CC=${CC:-cc}
CXX=${CXX:-c++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strict="-Wall -Wextra -pedantic -Werror"

# Only include/ on the path: the header must not need anything from src/.
$CC -std=c99 $strict -Iinclude -c test/header_c99.c -o "$tmp/c99.o"
echo "C99: ok"
$CC -std=c11 $strict -Iinclude -c test/header_c99.c -o "$tmp/c11.o"
echo "C11: ok"
$CXX -std=c++11 $strict -Iinclude -c test/header_cxx.cpp -o "$tmp/cxx.o"
echo "C++11: ok"
# C linkage: the C++ object refers to the plain C name, not a mangled one.
grep -qw llmmem_estimate <<<"$(nm -u "$tmp/cxx.o")" || { echo "llmmem_estimate is mangled in C++"; exit 1; }
echo "C++ linkage: ok"

ver() { sed -n "s/^#define LLMMEM_VERSION_$1 \\(.*\\)/\\1/p" include/llmmem.h; }
expect="\"$(ver MAJOR).$(ver MINOR).$(ver PATCH)\""
[ "$(ver STRING)" = "$expect" ] || { echo "LLMMEM_VERSION_STRING $(ver STRING) != $expect"; exit 1; }
echo "version macros: ok ($expect)"
