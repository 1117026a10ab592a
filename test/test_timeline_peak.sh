#!/usr/bin/env bash
# The timeline's own allocated peak against the estimate's (issue 25 item 7: "the timeline
# drawing fp32 masters at 2 bytes" survived make check). For every scenario of
# test/data/scenarios the timeline draws, and a bf16 run with fp32 masters: the highest sum
# of the JSON's category columns is its peak_allocated_bytes, and that is the estimate's
# peak_allocated_bytes within 1%. Not equal: the estimate's allocated peak is the phase
# model's and the timeline's the replay's (docs/allocator.md, "peak_reserved = ..."); they
# differ by at most 0.57% today (i01, HF generate), so a term drawn at half its bytes
# (masters at 2 B: -10% on Llama-3.2-1B) or left out fails. Run from the repository root.
set -u
cd "$(dirname "$0")/.."
CLI=${CLI:-examples/llmmem}
[ -x "$CLI" ] || { echo "FAIL: no $CLI (run make)"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 is needed (apt-get install python3)"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0 checked=0
check() { # NAME ARGS...: the timeline and the estimate of one scenario
    local name=$1
    shift
    if ! "$CLI" timeline json "$@" >"$T/t.json" 2>"$T/err"; then
        grep -q "no allocation timeline" "$T/err" && return 0 # a run the timeline does not draw
        echo "FAIL $name: timeline: $(cat "$T/err")"
        fails=$((fails + 1))
        return 0
    fi
    "$CLI" estimate "$@" --json >"$T/e.json" || { echo "FAIL $name: estimate"; fails=$((fails + 1)); return 0; }
    checked=$((checked + 1))
    python3 - "$T" "$name" <<'PY' || fails=$((fails + 1))
import json, sys
d, name = sys.argv[1], sys.argv[2]
t = json.load(open(d + "/t.json"))
e = json.load(open(d + "/e.json"))
own = max(sum(p[1:-1]) for p in t["points"])
est = e["peak_allocated_bytes"]
err = 100.0 * (own - est) / est
print("%-28s timeline %15d  estimate %15d  %+.3f%%" % (name, own, est, err))
bad = []
if own != t["peak_allocated_bytes"]:
    bad.append("the points' peak %d is not the JSON's peak_allocated_bytes %d" % (own, t["peak_allocated_bytes"]))
if t["estimate_peak_allocated_bytes"] != est:
    bad.append("estimate_peak_allocated_bytes %d, the estimate says %d" % (t["estimate_peak_allocated_bytes"], est))
if abs(err) > 1.0:
    bad.append("the timeline's allocated peak is %+.3f%% off the estimate's (at most 1%%)" % err)
if bad:
    print("FAIL %s: %s" % (name, "; ".join(bad)))
    sys.exit(1)
PY
}
for sc in test/data/scenarios/*.json; do
    check "$(basename "$sc")" --scenario "$sc"
done
check "llama-3.2-1b bf16 + fp32 masters" --preset llama-3.2-1b --param-dtype bf16 --master-weights true
check "llama-3.2-1b adamw fp32" --preset llama-3.2-1b --param-dtype fp32
echo "timeline peaks: $checked compared, $fails failing"
[ "$fails" -eq 0 ] && [ "$checked" -ge 8 ]
