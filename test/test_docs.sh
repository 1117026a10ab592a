#!/usr/bin/env bash
# make docs: Doxygen over include/llmmem.h and docs/mainpage.md with warnings as errors
# (an undocumented public function or a broken reference fails), and the main page
# really shows examples/minimal.c.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v doxygen >/dev/null || { echo "doxygen not found (apt-get install doxygen)"; exit 1; }
${MAKE:-make} -s docs
[ -f docs/html/index.html ] || { echo "docs/html/index.html was not written"; exit 1; }
grep -q 'llmmem_model_from_preset' docs/html/index.html ||
    { echo "the main page does not show examples/minimal.c"; exit 1; }
echo "docs: ok"
