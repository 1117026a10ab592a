#!/usr/bin/env bash
# The web page's path of the property test (issue 25 item 7): N random scenarios of
# test/properties.py (the same generator and seed as make check's test_properties.sh),
# answered by the C API through libllmmem.so, then run through examples/web's llmmem-api.js
# over the WebAssembly library in Node (test/web/properties.js): the same JSON bytes, or the
# same status and message.
#
#   bash test/web/properties.sh [N]     N scenarios (default 10000, the issue's count)
#
# Needs make, make web and node. make check-web (mk/check-web.sh) runs all 10,000 (2.5 min
# on a loaded 2-core machine); a smaller N is for a quick look.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-10000}
command -v node >/dev/null || { echo "FAIL: node is needed (apt-get install nodejs)"; exit 1; }
[ -f examples/web/llmmem.wasm ] || { echo "FAIL: examples/web/llmmem.wasm missing: run make web"; exit 1; }
[ -f lib/libllmmem.so ] || { echo "FAIL: lib/libllmmem.so missing: run make"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PYTHONPATH="python${PYTHONPATH:+:$PYTHONPATH}" LLMMEM_LIBRARY="${LLMMEM_LIBRARY:-$PWD/lib/libllmmem.so}" \
    python3 test/properties.py -n "$N" --web-out "$T/scenarios.jsonl" --c-only
node test/web/properties.js "$T/scenarios.jsonl"
