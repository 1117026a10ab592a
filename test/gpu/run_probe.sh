#!/bin/sh
# Runs examples/python/llmmem_probe.py on a GPU machine, one process per scenario (as the
# dev set's measure.py, each scenario starts from a fresh process), appending the records to
# test/data/probe/h200-probe.jsonl (hf_config paths relative to that file) and the printed
# comparisons to $OUT/probe.log. The library comes from lib/ (built here, carried), cJSON
# from LLMMEM_CJSON_DIR when the machine has no libcjson.
#   OUT=dir sh test/gpu/run_probe.sh test/data/probe/scenarios/p0*.json
set -u
OUT=${OUT:-probe-out}
mkdir -p "$OUT"
LLMMEM_LIBRARY=${LLMMEM_LIBRARY:-$PWD/lib/libllmmem.so.1}
export LLMMEM_LIBRARY
if [ -n "${LLMMEM_CJSON_DIR:-}" ]; then
    LD_LIBRARY_PATH=$LLMMEM_CJSON_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
fi
records=test/data/probe/h200-probe.jsonl
for sc in "$@"; do
    id=$(basename "$sc" .json)
    echo "=== $id ($sc)" >>"$OUT/probe.log"
    timeout "${PROBE_TIMEOUT_S:-150}" python3 examples/python/llmmem_probe.py "$sc" --id "$id" \
        --out "$records" >>"$OUT/probe.log" 2>&1
    echo "=== $id exit $?" >>"$OUT/probe.log"
done
[ -f "$records" ] && cp "$records" "$OUT/"
exit 0
