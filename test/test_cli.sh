#!/usr/bin/env bash
# CLI tests: examples/llmmem on the scenario files, --help of every subcommand, bad flags
# (exit status 2 or 1 and exactly one stderr line "llmmem: LLMMEM_E_...: ..."), and JSON
# output that parses (python3 -m json.tool). Run from the repository root (make check does).
set -u
cd "$(dirname "$0")/.."
CLI=${LLMMEM_CLI:-examples/llmmem}
S=test/data/scenarios
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

# run EXPECTED_STATUS ARGS...: runs the CLI, stdout/stderr into $TMP/out, $TMP/err.
run() {
    local want=$1
    shift
    "$CLI" "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        bad "llmmem $* -> exit $got, want $want; stderr: $(head -c 300 "$TMP/err")"
        return 1
    fi
    ok
    return 0
}

# one_line_error STATUS_NAME FRAGMENT: stderr is one line "llmmem: STATUS: ...FRAGMENT..."
one_line_error() {
    local lines
    lines=$(wc -l <"$TMP/err")
    if [ "$lines" -ne 1 ]; then
        bad "stderr has $lines lines, want 1: $(cat "$TMP/err")"
        return
    fi
    if ! grep -q "^llmmem: $1: " "$TMP/err"; then
        bad "stderr \"$(cat "$TMP/err")\" does not start with \"llmmem: $1: \""
        return
    fi
    if [ -n "${2:-}" ] && ! grep -qF -- "$2" "$TMP/err"; then
        bad "stderr \"$(cat "$TMP/err")\" lacks \"$2\""
        return
    fi
    if [ -s "$TMP/out" ]; then
        bad "stdout not empty on error: $(head -c 200 "$TMP/out")"
        return
    fi
    ok
}

json_ok() {
    if python3 -m json.tool "$TMP/out" >/dev/null 2>"$TMP/jerr"; then ok; else bad "$1: not JSON: $(cat "$TMP/jerr")"; fi
}

json_has() { # json_has DESC KEY...
    local desc=$1
    shift
    if python3 - "$TMP/out" "$@" <<'EOF'; then ok; else bad "$desc: JSON lacks a key of: $*"; fi
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if all(k in d for k in sys.argv[2:]) else 1)
EOF
}

[ -x "$CLI" ] || { echo "no $CLI (run make)"; exit 1; }

# ---- version and help --------------------------------------------------------
run 0 --version && grep -q "^llmmem [0-9]*\.[0-9]*\.[0-9]*" "$TMP/out" && ok || bad "--version output"
run 0 --help && grep -q "^usage: llmmem" "$TMP/out" && ok || bad "--help output"
for cmd in estimate explain model quick plan validate presets gpus params; do
    run 0 "$cmd" --help && grep -q "^usage: llmmem $cmd" "$TMP/out" && ok || bad "$cmd --help"
    run 0 help "$cmd" && grep -q "^usage: llmmem $cmd" "$TMP/out" && ok || bad "help $cmd"
done
# every parameter appears as a flag in estimate --help
run 0 estimate --help
run 0 params --json
python3 - "$TMP/out" >"$TMP/names" <<'EOF' && ok || bad "params --json"
import json, sys
for p in json.load(open(sys.argv[1])):
    assert p["name"] and p["type"] in ("i64", "f64", "bool", "enum", "str")
    print(p["name"])
EOF
"$CLI" estimate --help >"$TMP/help"
missing=0
while read -r name; do
    grep -q -- "--${name//_/-} " "$TMP/help" || { missing=1; bad "estimate --help lacks --${name//_/-}"; }
done <"$TMP/names"
[ "$missing" -eq 0 ] && ok
[ "$(wc -l <"$TMP/names")" -ge 50 ] && ok || bad "fewer than 50 parameters"

# ---- listings ----------------------------------------------------------------
run 0 presets && [ -s "$TMP/out" ] && ok || bad "presets empty"
run 0 gpus && grep -q "H200" "$TMP/out" && ok || bad "gpus lacks H200"
run 0 params && grep -q "^micro_batch_size" "$TMP/out" && ok || bad "params lacks micro_batch_size"

# ---- validate ----------------------------------------------------------------
for f in "$S"/*.json; do
    run 0 validate "$f" && grep -q ": OK (" "$TMP/out" && ok || bad "validate $f"
done
run 1 validate test/data/invalid/scenario_mbs_zero/input.json && \
    one_line_error LLMMEM_E_OUT_OF_RANGE "3:23: \"training.micro_batch_size\""
run 1 validate test/data/invalid/scenario_unknown_top_key/input.json && \
    one_line_error LLMMEM_E_UNKNOWN_PARAM '"trainng"'
run 1 validate test/data/invalid/scenario_directory/input.json && one_line_error LLMMEM_E_IO directory
run 1 validate "$TMP/no-such-file.json" && one_line_error LLMMEM_E_IO no-such-file.json
run 2 validate && one_line_error LLMMEM_E_INVALID_ARG

# ---- estimate on scenarios: every scenario file estimates ----------------------------
# Each one is a case the library models (single, DDP, ZeRO, FSDP, inference, LoRA,
# gpu-mem-calculator's files): exit 0 and JSON with the result keys, never a refusal.
for f in "$S"/*.json; do
    run 0 estimate --scenario "$f" --json || continue
    json_ok "$f"
    json_has "$f" params trainable_params peak_allocated_bytes peak_reserved_bytes \
        total_bytes_per_gpu fits
done
run 0 estimate --scenario "$S/t01.json" --json && json_ok t01
run 0 estimate --scenario "$S/i01.json" --json && json_ok i01
# The one refusal an estimate makes on a modelled engine: DeepSpeed's own estimator
# (accounting deepspeed_estimator) exists for ZeRO stages 2 and 3 only
# (deepspeed/runtime/zero/stage_1_and_2.py and stage3.py estimate_zero*_model_states_mem_needs).
run 1 estimate --scenario "$S/t01.json" --engine zero --zero-stage 1 \
    --accounting deepspeed_estimator --json && \
    one_line_error LLMMEM_E_UNSUPPORTED "zero_stage 2 and 3 only (zero_stage = 1)"
# t01: measured 1,235,814,400 parameters (groundtruth); the JSON reports that count
"$CLI" estimate --scenario "$S/t01.json" --json >"$TMP/out" 2>/dev/null
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['params']==1235814400 else 1)" \
    "$TMP/out" && ok || bad "t01 params != 1235814400"

# table output: bars, both units, the peak; --units GiB shows no GB
run 0 estimate --scenario "$S/t01.json"
grep -q "Peak allocated" "$TMP/out" && grep -q "GiB / " "$TMP/out" && grep -q "#" "$TMP/out" && ok || bad "table"
run 0 estimate --scenario "$S/t01.json" --units GiB
grep -q " GB" "$TMP/out" && bad "--units GiB printed GB" || ok
run 0 estimate --scenario "$S/t01.json" --explain && grep -q "^Terms" "$TMP/out" && ok || bad "--explain"
run 0 explain --scenario "$S/t01.json" && grep -q "^Terms" "$TMP/out" && ok || bad "explain"
# flags override the scenario; '_' and '-' spellings; --name=value
run 0 estimate --scenario "$S/t01.json" --json --micro-batch-size 1 && json_ok "override"
cp "$TMP/out" "$TMP/mbs1"
run 0 estimate --scenario "$S/t01.json" --json --micro_batch_size=1
cmp -s "$TMP/out" "$TMP/mbs1" && ok || bad "--micro_batch_size=1 differs from --micro-batch-size 1"
# SVG: well-formed XML with one <rect> per component and the capacity line
run 0 estimate --scenario "$S/t01.json" --svg "$TMP/t01.svg"
python3 - "$TMP/t01.svg" <<'EOF' && ok || bad "svg"
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
assert d.documentElement.tagName == "svg"
assert len(d.getElementsByTagName("rect")) >= 4
assert any("GPU capacity" in (t.firstChild.data if t.firstChild else "") for t in d.getElementsByTagName("text"))
EOF

# model sources: preset, HF config, raw numbers
run 0 model --hf-config "$S/configs/dev/llama-3.2-1b.json" --json && json_ok "model --hf-config"
run 0 model --hf-config "$S/configs/dev/llama-3.2-1b.json"
grep -q "hidden_size  *2,048" "$TMP/out" && ok || bad "model summary lacks hidden_size 2,048"
run 0 model --num-parameters 7B --num-layers 32 --hidden-size 4096 --json && json_ok "model raw"
first_preset=$("$CLI" presets | head -n 1 | cut -d' ' -f1)
run 0 model --preset "$first_preset" --json && json_ok "model --preset"

# framework files
run 0 estimate --hf-config "$S/configs/dev/llama-3.2-1b.json" \
    --hf-training-args "$S/frameworks/hf_training_args.json" --json && json_ok "hf args"
run 0 estimate --hf-config "$S/configs/dev/llama-3.2-1b.json" \
    --deepspeed-config "$S/frameworks/ds_zero3_auto.json" --json && json_ok "ds config"
run 1 estimate --preset "$first_preset" --deepspeed-config test/data/invalid/ds_stage_string/input.json && \
    one_line_error LLMMEM_E_SCHEMA '"zero_optimization.stage"'

# quick
run 0 quick 7B --gpus 8 --gpu-mem 80 --engine zero3 --json && json_ok "quick"
run 0 quick 1B --gpus 1 --gpu-mem 80 --engine single --json && json_ok "quick single"
run 2 quick && one_line_error LLMMEM_E_INVALID_ARG SIZE
run 2 quick 7B --engine horovod && one_line_error LLMMEM_E_INVALID_ARG horovod
run 2 quick 7B --gpus zero && one_line_error LLMMEM_E_INVALID_ARG "--gpus"
run 2 quick 7B --gpus 8 --gpu-mem lots && one_line_error LLMMEM_E_INVALID_ARG "--gpu-mem"

# ---- usage errors: exit 2, one line ------------------------------------------------
run 2 && true # no arguments prints the usage on stderr
run 2 frobnicate && one_line_error LLMMEM_E_UNKNOWN_PARAM frobnicate
run 2 estimate --no-such-flag 1 && one_line_error LLMMEM_E_UNKNOWN_PARAM "--no-such-flag"
run 2 estimate --scenario && one_line_error LLMMEM_E_INVALID_ARG "needs a value"
run 2 estimate --scenario "$S/t01.json" --micro-batch-size four && \
    one_line_error LLMMEM_E_PARSE "micro_batch_size"
run 2 estimate --scenario "$S/t01.json" --micro-batch-size 0 && \
    one_line_error LLMMEM_E_OUT_OF_RANGE "micro_batch_size"
run 2 estimate --scenario "$S/t01.json" --optimizer adamq && one_line_error LLMMEM_E_OUT_OF_RANGE adamq
run 2 estimate --scenario "$S/t01.json" --lora-alpha nan && one_line_error "LLMMEM_E_[A-Z_]*" lora_alpha
run 2 estimate --scenario "$S/t01.json" --units furlongs && one_line_error LLMMEM_E_INVALID_ARG furlongs
run 2 estimate --scenario "$S/t01.json" stray && one_line_error LLMMEM_E_INVALID_ARG stray
run 2 estimate --preset no-such-model-7b && one_line_error LLMMEM_E_UNKNOWN_PARAM no-such-model-7b
run 2 estimate --preset "$first_preset" --hf-config "$S/configs/dev/llama-3.2-1b.json" && \
    one_line_error LLMMEM_E_INVALID_ARG "not both"
run 2 estimate --num-parameters 7Q && one_line_error LLMMEM_E_PARSE 7Q
run 2 estimate && one_line_error LLMMEM_E_INVALID_ARG "no model"
run 2 model --micro-batch-size 4 --preset "$first_preset" && one_line_error LLMMEM_E_UNKNOWN_PARAM micro-batch-size
run 2 presets extra && one_line_error LLMMEM_E_INVALID_ARG extra
run 2 help frobnicate && one_line_error LLMMEM_E_UNKNOWN_PARAM frobnicate
# file errors: exit 1
run 1 estimate --scenario "$TMP/none.json" && one_line_error LLMMEM_E_IO none.json
run 1 estimate --hf-config "$TMP/none.json" && one_line_error LLMMEM_E_IO none.json
run 1 estimate --scenario test/data/invalid/scenario_truncated/input.json && one_line_error LLMMEM_E_PARSE
run 1 estimate --scenario "$S/t01.json" --svg "$TMP/no-dir/x.svg" && one_line_error LLMMEM_E_IO x.svg

# ---- plan ------------------------------------------------------------------------
# 3 GPUs, global batch 6, Llama-3.2-1B: 540 candidates, 228 indivisible, 156 batch
# (counted by hand in test/test_plan.c)
if run 0 plan --preset llama-3.2-1b --gpus 3 --global-batch 6 --top 4 --json; then
    json_ok "plan --json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["rejected"]
sys.exit(0 if d["candidates"]==540 and r["indivisible"]==228 and r["batch"]==156 and len(d["layouts"])<=4 else 1)' \
        "$TMP/out" && ok || bad "plan --json counts: $(head -c 300 "$TMP/out")"
fi
run 0 plan --preset llama-3.2-1b --gpus 1 --global-batch 8 --top 64 && grep -q "^ *1  [a-z]" "$TMP/out" &&
    grep -q "^ *[0-9]*  single " "$TMP/out" && ok ||
    bad "plan table: $(head -c 400 "$TMP/out")"
# --max-batch is the estimator's boundary: N fits, N + 1 does not
if run 0 plan --preset llama-3.1-8b --seq-len 2048 --max-batch --json; then
    n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["max_batch"])' "$TMP/out")
    fits() { "$CLI" estimate --preset llama-3.1-8b --seq-len 2048 --micro-batch-size "$1" --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["fits"])'; }
    [ "$n" -ge 1 ] && [ "$(fits "$n")" = True ] && [ "$(fits $((n + 1)))" = False ] && ok ||
        bad "plan --max-batch $n is not the boundary"
fi
run 0 plan --preset llama-3.1-70b --mode inference --min-gpus && grep -q "^min_gpus *[2-9]" "$TMP/out" && ok ||
    bad "plan --min-gpus: $(cat "$TMP/out")"
run 2 plan --preset llama-3.2-1b --gpus 8 --top 0 && one_line_error LLMMEM_E_INVALID_ARG "--top"
run 2 plan --preset llama-3.2-1b --gpus eight && one_line_error LLMMEM_E_INVALID_ARG "--gpus"
run 2 plan --preset llama-3.2-1b --max-batch=3 && one_line_error LLMMEM_E_INVALID_ARG "max-batch"
run 2 plan --gpus 8 && one_line_error LLMMEM_E_INVALID_ARG "no model"

# ---- speed: start to JSON out -------------------------------------------------------
start=$(date +%s%N)
for _ in 1 2 3 4 5 6 7 8 9 10; do "$CLI" estimate --scenario "$S/t01.json" --json >/dev/null; done
end=$(date +%s%N)
ms=$(((end - start) / 10000000))
echo "estimate --json: ${ms} ms per run (10 runs)"
[ "$ms" -lt 100 ] && ok || bad "estimate takes ${ms} ms per run"

echo "test_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
