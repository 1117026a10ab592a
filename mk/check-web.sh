#!/usr/bin/env bash
# make check-web: the page of examples/web in headless Chromium against the CLI.
#
# Installs what is missing (as root, or through sudo): Debian's chromium and nodejs/npm
# with apt-get, playwright-core with `npm ci` into test/web/node_modules (the version of
# test/web/package-lock.json; it drives the system browser, it downloads none). Serves
# examples/web with `python3 -m http.server` on a free local port, runs test/web/e2e.js,
# stops the server. Screenshots and the commands it ran go to build/web/e2e/.
# Expects `make all web` to have run (the Makefile target does that first).
#
# Environment: CHROMIUM (default /usr/bin/chromium), CLI (default examples/llmmem).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'check-web: %s\n' "$*"; }
CLI=${CLI:-examples/llmmem}
export CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
OUT=build/web/e2e

apt_install() {
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 || { say "missing $*: run as root or install them" >&2; exit 1; }
        sudo=(sudo)
    fi
    say "installing $*"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q </dev/null >/dev/null
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "$@" </dev/null
}

need=()
[ -x "$CHROMIUM" ] || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v python3 >/dev/null 2>&1 || need+=(python3)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
[ -x "$CHROMIUM" ] || CHROMIUM=$(command -v chromium)

if [ ! -f test/web/node_modules/playwright-core/package.json ]; then
    say "npm ci (playwright-core) in test/web"
    (cd test/web && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund </dev/null)
fi

[ -f examples/web/llmmem.wasm ] || { say "examples/web/llmmem.wasm missing: run make web" >&2; exit 1; }
[ -x "$CLI" ] || { say "$CLI missing: run make" >&2; exit 1; }

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$OUT"
python3 -m http.server "$port" --bind 127.0.0.1 --directory examples/web >"$OUT/http.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/index.html', timeout=1)" \
        2>/dev/null && break
    sleep 0.1
done
say "serving examples/web at http://127.0.0.1:$port/ (python3 -m http.server)"
# ceilings, not speed targets: a run takes about a minute, much longer on a machine shared
# with other work (the browser is closed when one is reached)
rc=0
timeout 1800 node test/web/e2e.js "http://127.0.0.1:$port/" "$CLI" "$OUT" || rc=$?
# a .gguf file (written at test time) opened in the page: its header read in slices
timeout 600 node test/web/e2e_gguf.js "http://127.0.0.1:$port/" "$CLI" "$OUT" || rc=$?
# the property test's web path (issue 25 item 7): its 10,000 random scenarios (the same
# seed as make check's test_properties.sh) through the page's llmmem-api.js and the wasm
# library in Node: the same JSON bytes as the C API (2.5 min on a loaded 2-core machine)
say "property test, web path: 10,000 scenarios (bash test/web/properties.sh)"
timeout 1800 bash test/web/properties.sh 10000 || rc=$?
exit $rc
