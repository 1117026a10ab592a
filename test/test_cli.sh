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
for cmd in estimate explain model quick plan validate presets architectures gpus params; do
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
run 0 architectures && grep -q "^decoder (" "$TMP/out" && grep -q "^refused (" "$TMP/out" && ok ||
    bad "architectures lacks its groups"
# the JSON listing holds every in-scope model_type of transformers' reference counts, and
# each refused name is refused by the reader
run 0 architectures --json
python3 - "$TMP/out" test/data/families/families-5.17.jsonl "$CLI" <<'EOF' && ok || bad "architectures --json"
import json, subprocess, sys, tempfile
kinds = {a["model_type"]: a["kind"] for a in json.load(open(sys.argv[1]))}
recs = [r for r in map(json.loads, open(sys.argv[2])) if "model_type" in r and "error" not in r]
for r in recs:
    want = "refused" if not r.get("in_scope", True) else ("decoder", "multimodal")
    got = kinds.get(r["model_type"])
    assert got in want if isinstance(want, tuple) else got == want, (r["model_type"], got)
with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
    json.dump({"model_type": "whisper"}, f); f.flush()
    cp = subprocess.run([sys.argv[3], "model", "--hf-config", f.name], capture_output=True, text=True)
    assert cp.returncode == 1 and "speech" in cp.stderr, cp.stderr
EOF
# the README's model table is the library's list
python3 - "$TMP/out" README.md <<'EOF' && ok || bad "README's Models section differs from llmmem architectures"
import json, re, sys
listed = {a["model_type"] for a in json.load(open(sys.argv[1])) if a["kind"] != "refused"}
text = open(sys.argv[2]).read()
section = text[text.index("\n## Models\n"):text.index("\n## C\n")]
body = section[section.index("Decoder families"):section.index("Encoders, encoder-decoders")]
named = set(re.findall(r"`([a-z0-9_.-]+)`", body))
assert named == listed, ("README only", sorted(named - listed), "library only", sorted(listed - named))
for kind in ("decoder", "refused"):
    n = sum(a["kind"] == kind for a in json.load(open(sys.argv[1])))
    assert ("(%d" % n) in section or ("%d model_types" % n) in section, (kind, n)
EOF
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
# A bitsandbytes optimizer under ZeRO-Offload: DeepSpeed raises ZeRORuntimeException "You are
# using ZeRO-Offload with a client provided optimizer" (deepspeed/runtime/engine.py
# _configure_optimizer, zero_force_ds_cpu_optimizer default True): refused with both settings.
run 1 estimate --preset llama-3.2-1b --engine zero2 --gpus 8 --optimizer paged_adamw_8bit \
    --offload-optimizer cpu --json && \
    one_line_error LLMMEM_E_INCONSISTENT "optimizer = paged_adamw_8bit with offload_optimizer = cpu: DeepSpeed refuses a client optimizer under ZeRO-Offload"
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
texts = ["".join(n.data for n in t.childNodes if n.nodeType == n.TEXT_NODE) for t in d.getElementsByTagName("text")]
assert any("GPU capacity" in t for t in texts)
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
run 2 quick 7B --gpus zero && one_line_error LLMMEM_E_PARSE "--gpus"
run 2 quick 7B --gpus 8 --gpu-mem lots && one_line_error LLMMEM_E_INVALID_ARG "--gpu-mem"

# ---- usage errors: exit 2, one line ------------------------------------------------
run 2 && true # no arguments prints the usage on stderr
run 2 frobnicate && one_line_error LLMMEM_E_UNKNOWN_PARAM frobnicate
run 2 estimate --no-such-flag 1 && one_line_error LLMMEM_E_UNKNOWN_PARAM "--no-such-flag"
run 2 estimate --scenario && one_line_error LLMMEM_E_INVALID_ARG "needs a value"
run 2 estimate --scenario "$S/t01.json" --micro-batch-size four && \
    one_line_error LLMMEM_E_PARSE "--micro-batch-size"
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
# no --global-batch: micro-batch x the 8 data-parallel GPUs, stated, and a layout with dp > 1
run 0 plan --preset llama-3.1-8b --gpus 8 --top 5 && grep -q "global batch 8 x 2048 tokens" "$TMP/out" &&
    grep -q "^Note: global batch 8 sequences = micro_batch_size 1 x gradient_accumulation_steps 1 x 8 data-parallel GPUs" "$TMP/out" &&
    awk '$1 ~ /^[0-9]+$/ && $3 > 1 {f = 1} END {exit !f}' "$TMP/out" && ok ||
    bad "plan default global batch: $(head -c 600 "$TMP/out")"
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
run 2 plan --preset llama-3.2-1b --gpus eight && one_line_error LLMMEM_E_PARSE "--gpus"
run 2 plan --preset llama-3.2-1b --max-batch=3 && one_line_error LLMMEM_E_INVALID_ARG "max-batch"
run 2 plan --gpus 8 && one_line_error LLMMEM_E_INVALID_ARG "no model"

# ---- issue 20 (5): numbers and names ---------------------------------------------------
# jget FILE EXPR: a python expression over the JSON d of FILE
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# same_json DESC ARGS-A -- ARGS-B: the two runs print the same
same_json() {
    local desc=$1 a=() b=()
    shift
    while [ "$1" != "--" ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    "$CLI" "${a[@]}" >"$TMP/ja" 2>&1
    "$CLI" "${b[@]}" >"$TMP/jb" 2>&1
    cmp -s "$TMP/ja" "$TMP/jb" && ok || bad "$desc: $(diff "$TMP/ja" "$TMP/jb" | head -c 300)"
}
E=(estimate --preset llama-3.2-1b)
# token counts: k = 1024 (4k = 4096, 32k = 32768, 128k = 131072), said in --help
same_json "--seq-len 4k = 4096" "${E[@]}" --seq-len 4k --json -- "${E[@]}" --seq-len 4096 --json
same_json "--seq-len 32k = 32768" "${E[@]}" --seq-len 32k --json -- "${E[@]}" --seq-len 32768 --json
same_json "--seq-len 32K = 32768" "${E[@]}" --seq-len 32K --json -- "${E[@]}" --seq-len 32768 --json
same_json "--prompt-len 128k = 131072" "${E[@]}" --mode inference --prompt-len 128k --json -- \
    "${E[@]}" --mode inference --prompt-len 131072 --json
"$CLI" "${E[@]}" --seq-len 4k --json >"$TMP/a" && "$CLI" "${E[@]}" --seq-len 4000 --json >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b" && bad "--seq-len 4k is 4000" || ok
run 0 estimate --help && grep -q "4k = 4096, 128k = 131072" "$TMP/out" && ok || bad "estimate --help: k = 1024"
grep -q -- "--seq-len TOKENS" "$TMP/out" && ok || bad "estimate --help: --seq-len TOKENS"
run 2 "${E[@]}" --seq-len 1M && one_line_error LLMMEM_E_PARSE "k = 1024"
# parameter counts keep B = 1e9, M = 1e6
run 0 model --num-parameters 1.5B --json && [ "$(jget "$TMP/out" 'abs(d["params"] / 1.5e9 - 1) < 0.01')" = True ] &&
    ok || bad "--num-parameters 1.5B"
run 0 model --num-parameters 770M --json && [ "$(jget "$TMP/out" 'abs(d["params"] / 770e6 - 1) < 0.01')" = True ] &&
    ok || bad "--num-parameters 770M"
# fractions and separators in integer flags are errors (they were 2 and 15)
run 2 "${E[@]}" --micro-batch-size 1.5 && one_line_error LLMMEM_E_PARSE "whole number"
run 2 "${E[@]}" --micro-batch-size 1,5 && one_line_error LLMMEM_E_PARSE "separators"
run 2 "${E[@]}" --seq-len 2_048 && one_line_error LLMMEM_E_PARSE "separators"
run 2 "${E[@]}" --gpus 1.5 && one_line_error LLMMEM_E_PARSE "--gpus"
run 2 model --num-layers 2.5 --hidden-size 1024 && one_line_error LLMMEM_E_PARSE "--num-layers"
run 2 model --num-parameters 7,000,000,000 && one_line_error LLMMEM_E_PARSE "separators"
run 2 quick 1,5B && one_line_error LLMMEM_E_PARSE "separators"
same_json "--reduce-bucket-size 5e8" "${E[@]}" --engine zero2 --reduce-bucket-size 5e8 --json -- \
    "${E[@]}" --engine zero2 --reduce-bucket-size 500000000 --json
# raw shapes: explicit fields win whatever the order
same_json "raw shape order 1/2" model --hidden-size 4096 --num-layers 2 --num-heads 64 --json -- \
    model --num-heads 64 --hidden-size 4096 --num-layers 2 --json
same_json "raw shape order 1/3" model --hidden-size 4096 --num-layers 2 --num-heads 64 --json -- \
    model --num-layers 2 --num-heads 64 --hidden-size 4096 --json
run 0 model --num-layers 2 --num-heads 64 --hidden-size 4096 --json &&
    [ "$(jget "$TMP/out" 'd["num_attention_heads"], d["num_key_value_heads"], d["head_dim"]')" = "64 64 64" ] &&
    ok || bad "raw shape: heads 64, kv 64, head_dim 64: $(head -c 300 "$TMP/out")"
for order in "--num-parameters 5e8 --num-layers 24 --hidden-size 1024 --num-heads 16" \
             "--num-layers 24 --hidden-size 1024 --num-heads 16 --num-parameters 5e8"; do
    # shellcheck disable=SC2086
    run 0 model $order --json &&
        [ "$(jget "$TMP/out" 'd["num_hidden_layers"], d["hidden_size"], d["num_attention_heads"], abs(d["params"] / 5e8 - 1) < 0.01')" = "24 1024 16 True" ] &&
        ok || bad "model $order: $(head -c 300 "$TMP/out")"
done
printf '{"model": {"num_parameters": 5e8, "num_layers": 24, "hidden_size": 1024, "num_attention_heads": 16}}\n' >"$TMP/raw.json"
run 0 model --scenario "$TMP/raw.json" --json &&
    [ "$(jget "$TMP/out" 'd["num_hidden_layers"], d["hidden_size"], d["num_attention_heads"]')" = "24 1024 16" ] &&
    ok || bad "scenario raw shape: $(head -c 300 "$TMP/out")"
# size-derived shapes: heads that tensor-parallel 2/4/8 divide
for size in 30B 34B 65B 70B 405B; do
    run 0 quick "$size" --gpus 8 --engine megatron --tensor-parallel-size 8 --json || continue
    run 0 model --num-parameters "$size" --json &&
        [ "$(jget "$TMP/out" 'd["num_attention_heads"] % 8 == 0 and d["num_key_value_heads"] % 8 == 0')" = True ] &&
        ok || bad "$size: heads not a multiple of 8"
done
run 0 quick 70B --gpus 64 --gpu-mem 80 --engine megatron --tensor-parallel-size 8 # docs/cli.md
run 0 quick 70B --tensor-parallel-size 8 && grep -q "engine megatron" "$TMP/out" && ok || bad "quick 70B tp8"
# did you mean: flags, enum values, presets, GPU names, commands
run 2 "${E[@]}" --jsno && one_line_error LLMMEM_E_UNKNOWN_PARAM "did you mean --json?"
run 2 "${E[@]}" --micro-bach-size 2 && one_line_error LLMMEM_E_UNKNOWN_PARAM "did you mean --micro-batch-size?"
run 2 "${E[@]}" --optimizer adamq && one_line_error LLMMEM_E_OUT_OF_RANGE "did you mean adam"
run 2 "${E[@]}" --units gbi && one_line_error LLMMEM_E_INVALID_ARG "did you mean GiB?"
run 2 "${E[@]}" --engine zero4 && one_line_error LLMMEM_E_INVALID_ARG "did you mean zero"
run 2 estimate --preset llama3-8x && one_line_error LLMMEM_E_UNKNOWN_PARAM "did you mean llama-3-8b?"
run 2 "${E[@]}" --gpu H300 && one_line_error LLMMEM_E_OUT_OF_RANGE "did you mean H200?"
run 2 estimat && one_line_error LLMMEM_E_UNKNOWN_PARAM "did you mean estimate?"
# the preset error points to llmmem presets, not to a C function
run 2 estimate --preset no-such-model-7b && one_line_error LLMMEM_E_UNKNOWN_PARAM "llmmem presets"
grep -q "llmmem_preset_name" "$TMP/err" && bad "preset error names a C function" || ok
# GPU names and presets: case-insensitive, aliases; an ambiguous family lists its GPUs
same_json "--gpu h200 = H200" "${E[@]}" --gpu h200 --json -- "${E[@]}" --gpu H200 --json
same_json "--gpu nvidia-smi name" "${E[@]}" --gpu "NVIDIA A100-SXM4-80GB" --json -- "${E[@]}" --gpu A100-80GB --json
same_json "--gpu Tesla T4" "${E[@]}" --gpu "Tesla T4" --json -- "${E[@]}" --gpu T4 --json
run 2 "${E[@]}" --gpu a100 && one_line_error LLMMEM_E_INCONSISTENT "A100-40GB, A100-80GB"
same_json "--preset in capitals" estimate --preset LLAMA-3.2-1B --json -- "${E[@]}" --json
same_json "--preset llama3-8b = llama-3-8b" estimate --preset llama3-8b --json -- estimate --preset llama-3-8b --json
# one flag per concept: --gpus and --num-gpus everywhere, --gpu-mem everywhere
same_json "estimate --gpus = --num-gpus" "${E[@]}" --engine ddp --gpus 4 --json -- "${E[@]}" --engine ddp --num-gpus 4 --json
same_json "quick --num-gpus = --gpus" quick 7B --num-gpus 8 --engine zero3 --json -- quick 7B --gpus 8 --engine zero3 --json
same_json "plan --num-gpus = --gpus" plan --preset llama-3.2-1b --num-gpus 2 --top 2 --json -- \
    plan --preset llama-3.2-1b --gpus 2 --top 2 --json
same_json "estimate --gpu-mem" "${E[@]}" --gpu-mem 40 --json -- "${E[@]}" --gpu-memory-bytes 40000000000 --json
# --engine deepspeed is ZeRO-2 (gpu-mem-calculator's quick) on every command
same_json "estimate --engine deepspeed" "${E[@]}" --engine deepspeed --gpus 8 --json -- \
    "${E[@]}" --engine zero --zero-stage 2 --gpus 8 --json
same_json "quick --engine deepspeed" quick 7B --gpus 8 --engine deepspeed --json -- quick 7B --gpus 8 --engine zero2 --json
same_json "--engine pytorch = ddp" quick 7B --gpus 8 --engine pytorch --json -- quick 7B --gpus 8 --engine ddp --json
run 0 estimate --preset llama-3.2-1b --engine deepspeed --gpus 8 --json &&
    [ "$(jget "$TMP/out" 'd["engine"]')" = zero ] && ok || bad "--engine deepspeed: engine zero"
run 2 "${E[@]}" --engine deepspeed --zero-stage 3 && one_line_error LLMMEM_E_INVALID_ARG "stage 2"
run 0 "${E[@]}" --engine zero3 --zero-stage 3 --gpus 8
# --engine takes every engine name of the library (llmmem params lists them), written with
# '-' or '_' in any case; an unknown one is refused with the library's names and the aliases
for e in $("$CLI" params | awk '$1 == "engine" {print $NF}' | tr '|' ' '); do
    run 0 "${E[@]}" --engine "$(echo "$e" | tr '_a-z' '-A-Z')" --json &&
        { [ "$(jget "$TMP/out" 'd["engine"]')" = "$e" ] && ok || bad "--engine $e: engine $(jget "$TMP/out" 'd["engine"]')"; }
done
run 2 "${E[@]}" --engine zer0 && one_line_error LLMMEM_E_INVALID_ARG \
    '--engine "zer0" (did you mean zero?): one of single, ddp, zero, fsdp, megatron, megatron_deepspeed; or pytorch (= ddp)'
# presets --json, gpus --json
run 0 presets --json && json_ok "presets --json"
[ "$(jget "$TMP/out" 'len(d)')" = "$("$CLI" presets | wc -l)" ] && ok || bad "presets --json count"
run 0 gpus --json && json_ok "gpus --json"
[ "$(jget "$TMP/out" '[g["memory_bytes"] for g in d if g["name"] == "A100-80GB"][0]')" = \
  "$("$CLI" "${E[@]}" --gpu A100-80GB --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["gpu_memory_bytes"])')" ] &&
    ok || bad "gpus --json memory of A100-80GB"

# ---- issue 20 (6): output that agrees with the verdict ---------------------------------------
# the table begins with the settings and the GPU with its capacity
run 0 estimate --preset llama-3.1-8b
head -n 6 "$TMP/out" >"$TMP/head"
grep -q "^Settings  *training, seq_len 2,048 tokens, micro-batch 1" "$TMP/head" && grep -q "optimizer adamw" "$TMP/head" &&
    grep -q "^Precision  *bf16 weights, bf16 compute" "$TMP/head" && ok || bad "assumptions line: $(cat "$TMP/head")"
grep -q "^GPU  *H100-80GB, 79.19 GiB / 85.03 GB per GPU (the default GPU" "$TMP/head" && ok ||
    bad "GPU line: $(cat "$TMP/head")"
run 0 estimate --preset llama-3.1-8b --mode inference --batch-size 4 --prompt-len 2k --gpu a10g --units GiB
head -n 5 "$TMP/out" | grep -q "batch 4, prompt 2,048 + decode 128 tokens" &&
    head -n 5 "$TMP/out" | grep -q "^GPU  *A10G, [0-9.]* GiB per GPU" &&
    ok || bad "inference assumptions: $(head -n 5 "$TMP/out")"
# the chart stacks what makes total_bytes_per_gpu against the capacity: "NO, 6.4 GiB short"
# although peak allocated is 1 GiB under the capacity; with a title, the settings, --units
svg_check() { # svg_check SVG JSON UNIT
    python3 test/svg_check.py "$@"
}
SHORT=(estimate --preset llama-3.2-1b --micro-batch-size 8 --seq-len 2900)
run 0 "${SHORT[@]}" --json && cp "$TMP/out" "$TMP/short.json"
[ "$(jget "$TMP/short.json" 'd["fits"] is False and d["peak_allocated_bytes"] < d["gpu_memory_bytes"]')" = True ] &&
    ok || bad "the short case is not short with allocated under the capacity"
run 0 "${SHORT[@]}" --svg "$TMP/short.svg" --units GiB && grep -q "^Fits  *NO" "$TMP/out" && ok || bad "short table"
svg_check "$TMP/short.svg" "$TMP/short.json" GiB && ok || bad "svg of a run that does not fit"
run 0 "${SHORT[@]}" --svg "$TMP/short-gb.svg" --units GB
svg_check "$TMP/short-gb.svg" "$TMP/short.json" GB && ok || bad "svg --units GB"
run 0 "${E[@]}" --json && cp "$TMP/out" "$TMP/fits.json"
run 0 "${E[@]}" --svg "$TMP/fits.svg" --units GiB
svg_check "$TMP/fits.svg" "$TMP/fits.json" GiB && ok || bad "svg of a run that fits"
# write errors exit non-zero
if [ -w /dev/full ]; then
    "$CLI" "${E[@]}" --json >/dev/full 2>"$TMP/err"
    [ $? -eq 1 ] && grep -q "LLMMEM_E_IO" "$TMP/err" && ok || bad "--json > /dev/full: $(cat "$TMP/err")"
    "$CLI" "${E[@]}" >/dev/full 2>"$TMP/err"
    [ $? -eq 1 ] && ok || bad "table > /dev/full"
    "$CLI" gpus --json >/dev/full 2>"$TMP/err"
    [ $? -eq 1 ] && ok || bad "gpus > /dev/full"
    "$CLI" "${E[@]}" --svg /dev/full >/dev/null 2>"$TMP/err"
    [ $? -eq 1 ] && grep -q "LLMMEM_E_IO" "$TMP/err" && ok || bad "--svg /dev/full: $(cat "$TMP/err")"
fi
# --decode-len 0: no generation, no KV cache
run 0 "${E[@]}" --mode inference --decode-len 0 --json &&
    [ "$(jget "$TMP/out" 'd["kv_cache_bytes"], sum(p["components"]["kv_cache"] for p in d["phases"].values()), "decode" in d["phases"]')" = "0 0 False" ] &&
    ok || bad "--decode-len 0 keeps a KV cache: $(head -c 300 "$TMP/out")"
run 0 "${E[@]}" --mode inference --decode-len 1 --json && [ "$(jget "$TMP/out" 'd["kv_cache_bytes"] > 0')" = True ] &&
    ok || bad "--decode-len 1 has a KV cache"
# gpus_needed 0, with a note, where no GPU count fits (the single engine on a T4)
run 0 estimate --preset llama-3.1-8b --gpu T4 --json &&
    [ "$(jget "$TMP/out" 'd["fits"], d["gpus_needed"], any("gpus_needed 0" in n for n in d["notes"])')" = "False 0 True" ] &&
    ok || bad "single on a T4: gpus_needed: $(head -c 300 "$TMP/out")"
run 0 estimate --preset llama-3.1-8b --gpu T4 && grep -q "gpus_needed 0: no number of GPUs" "$TMP/out" && ok ||
    bad "table lacks the gpus_needed note"

# ---- issue 14 (5): an approximate model says so where a user looks ------------------------
printf '{"model_type": "foobar", "hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 8, "intermediate_size": 4096, "vocab_size": 32000}' >"$TMP/unknown.json"
run 0 estimate --hf-config "$TMP/unknown.json" &&
    sed -n 2p "$TMP/out" | grep -q '^WARNING  *model_type "foobar" is not in the registry' &&
    grep -q "the figures below are approximate (--strict makes this an error)" "$TMP/out" && ok ||
    bad "no WARNING line for an unknown model_type: $(head -n 4 "$TMP/out")"
run 0 estimate --hf-config "$TMP/unknown.json" --json &&
    [ "$(jget "$TMP/out" 'd["approximate"], any(n.startswith("approximate: ") for n in d["notes"])')" = "True True" ] &&
    ok || bad "JSON of an unknown model_type lacks approximate: true and its note"
run 3 estimate --hf-config "$TMP/unknown.json" --strict && grep -q "^WARNING" "$TMP/out" &&
    grep -q "approximate (see the notes) and --strict was given" "$TMP/err" && ok || bad "--strict with an unknown model_type"
run 3 estimate --num-parameters 7B --strict --json &&
    [ "$(jget "$TMP/out" 'd["approximate"]')" = True ] && ok || bad "--strict with a shape from a size alone"
run 3 quick 7B --gpus 8 --gpu-mem 80 --strict
run 3 plan --hf-config "$TMP/unknown.json" --gpus 8 --top 1 --strict && grep -q "^WARNING .*foobar" "$TMP/out" &&
    ok || bad "plan of an unknown model_type: no WARNING"
run 0 estimate --preset llama-3.2-1b --strict --json && [ "$(jget "$TMP/out" 'd["approximate"]')" = False ] && ok ||
    bad "a preset is approximate"
run 0 estimate --preset llama-3.2-1b && ! grep -q "^WARNING" "$TMP/out" && ok || bad "WARNING for a preset"
run 0 estimate --num-layers 4 --hidden-size 1024 --num-heads 8 --strict
run 2 timeline --preset llama-3.2-1b --strict

# ---- models by their Hugging Face id, offline ---------------------------------------------
# A preset's id is the preset (a note says so), with --preset or --model, in any case.
same_json "--preset Hub id = its preset" estimate --preset meta-llama/Llama-3.1-8B-Instruct --json -- \
    estimate --preset llama-3.1-8b --json
same_json "--model = --preset" estimate --model META-LLAMA/llama-3.1-8b-instruct --json -- \
    estimate --preset meta-llama/Llama-3.1-8B-Instruct --json
run 0 estimate --preset meta-llama/Llama-3.1-8B-Instruct && grep -q "model: meta-llama/Llama-3.1-8B-Instruct: the built-in preset llama-3.1-8b" "$TMP/out" &&
    ok || bad "the Hub id's note is not in the table"
# A Hub cache made here, found where huggingface_hub finds it: HF_HUB_CACHE, else
# HUGGINGFACE_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub, else
# ~/.cache/huggingface/hub; refs/main names the snapshot.
H=$TMP/home/.cache/huggingface/hub/models--acme--tiny-llama
mkdir -p "$H/refs" "$H/snapshots/abc123"
printf abc123 >"$H/refs/main"
cp test/data/configs/published/llama-3.2-1b.json "$H/snapshots/abc123/config.json"
"$CLI" estimate --hf-config test/data/configs/published/llama-3.2-1b.json --json >"$TMP/want.json"
hub_env() { # ENV... -- ARGS: the CLI under `env -u` of every cache variable, then ENV
    local e=(env -u HF_HUB_CACHE -u HUGGINGFACE_HUB_CACHE -u HF_HOME -u XDG_CACHE_HOME)
    while [ "$1" != "--" ]; do e+=("$1"); shift; done
    shift
    "${e[@]}" "$CLI" "$@"
}
for how in "HOME=$TMP/home" "XDG_CACHE_HOME=$TMP/home/.cache" "HF_HOME=$TMP/home/.cache/huggingface" \
    "HUGGINGFACE_HUB_CACHE=$TMP/home/.cache/huggingface/hub" "HF_HUB_CACHE=$TMP/home/.cache/huggingface/hub" \
    "HF_HUB_CACHE=\$LLMMEM_T/.cache/huggingface/hub LLMMEM_T=$TMP/home"; do
    # shellcheck disable=SC2086
    hub_env HOME=/nonexistent $how -- estimate --preset acme/tiny-llama --json >"$TMP/got.json" 2>"$TMP/err" &&
        python3 - "$TMP/want.json" "$TMP/got.json" <<'PY' && ok || bad "Hub cache via $how: $(head -c 300 "$TMP/err")"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a.pop("notes"); b.pop("notes")
sys.exit(0 if a == b else 1)
PY
done
hub_env HOME=/nonexistent HF_HUB_CACHE="$TMP/home/.cache/huggingface/hub" -- estimate --model acme/tiny-llama \
    >"$TMP/out" && grep -q "^Model *acme/tiny-llama (llama)" "$TMP/out" &&
    grep -q "config.json from the Hugging Face cache, .*snapshots/abc123/config.json" "$TMP/out" && ok ||
    bad "Hub cache: the table does not name the id and the file"
# not found: where it looked and the nearest presets
run 2 estimate --preset acme/other && one_line_error LLMMEM_E_UNKNOWN_PARAM "not in the Hugging Face cache" &&
    grep -q "did you mean" "$TMP/err" && ok || bad "unknown Hub id: no nearest presets"
hub_env HF_HUB_CACHE="$TMP/home/.cache/huggingface/hub" -- estimate --preset meta-llama/Llama-3.1-8B-FP8 2>"$TMP/err"
grep -q "did you mean llama-3.1-8b?" "$TMP/err" && grep -q "no folder models--meta-llama--Llama-3.1-8B-FP8" "$TMP/err" &&
    grep -q "$TMP/home/.cache/huggingface/hub" "$TMP/err" && ok || bad "unknown Hub id: $(cat "$TMP/err")"
# the model a framework YAML names: axolotl base_model, LLaMA-Factory model_name_or_path
printf 'base_model: meta-llama/Llama-3.1-8B-Instruct\nsequence_len: 4096\nmicro_batch_size: 2\n' >"$TMP/ax.yaml"
same_json "axolotl base_model" estimate --axolotl-config "$TMP/ax.yaml" --json -- \
    estimate --preset llama-3.1-8b --axolotl-config "$TMP/ax.yaml" --json
printf 'model_name_or_path: acme/tiny-llama\nstage: sft\ncutoff_len: 1024\n' >"$TMP/lf.yaml"
hub_env HF_HUB_CACHE="$TMP/home/.cache/huggingface/hub" -- estimate --framework-config "$TMP/lf.yaml" \
    >"$TMP/out" && grep -q "^Model *acme/tiny-llama" "$TMP/out" && ok || bad "LLaMA-Factory model_name_or_path"
printf 'base_model: acme/unknown\nsequence_len: 4096\n' >"$TMP/ax2.yaml"
run 1 estimate --axolotl-config "$TMP/ax2.yaml" && one_line_error LLMMEM_E_UNKNOWN_PARAM "ax2.yaml:1:13: \"base_model\""
# a scenario whose model is a Hub id: the preset's, or the cache's (estimate and validate)
printf '{"model": "acme/tiny-llama", "training": {"micro_batch_size": 2}}' >"$TMP/hub-scenario.json"
hub_env HF_HUB_CACHE="$TMP/home/.cache/huggingface/hub" -- estimate --scenario "$TMP/hub-scenario.json" --json >"$TMP/a.json" &&
    "$CLI" estimate --hf-config test/data/configs/published/llama-3.2-1b.json --micro-batch-size 2 --json >"$TMP/b.json" &&
    python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); a.pop("notes"); b.pop("notes"); sys.exit(a!=b)' \
        "$TMP/a.json" "$TMP/b.json" && ok || bad "scenario with a Hub id from the cache"
hub_env HF_HUB_CACHE="$TMP/home/.cache/huggingface/hub" -- validate "$TMP/hub-scenario.json" >"$TMP/out" &&
    grep -q "OK (model llama" "$TMP/out" && ok || bad "validate a scenario with a Hub id: $(cat "$TMP/out")"
# vllm MODEL: a Hub id
same_json "vllm Hub id" vllm Qwen/Qwen2.5-7B-Instruct --json -- vllm qwen2.5-7b --json

# llmmem advise (issue 29 item 1): each printed command line is ready: run as printed it
# gives the total and verdict of that suggestion in advise --json; the run as given does not
# fit and the first suggestion does
advise_check() {
    local desc=$1 n=0 line words
    shift
    "$CLI" advise "$@" --json >"$TMP/adv.json" 2>"$TMP/err" || { bad "$desc: advise --json: $(cat "$TMP/err")"; return; }
    "$CLI" advise "$@" --top 3 >"$TMP/out" 2>"$TMP/err" || { bad "$desc: advise: $(cat "$TMP/err")"; return; }
    grep '^ *llmmem estimate ' "$TMP/out" | sed 's/^ *llmmem //' >"$TMP/adv-cmds"
    while IFS= read -r line; do
        n=$((n + 1))
        eval "words=($line)"
        "$CLI" "${words[@]}" --json >"$TMP/e.json" 2>"$TMP/err" &&
            python3 -c 'import json,sys
a=json.load(open(sys.argv[1]))["suggestions"][int(sys.argv[3])-1]; e=json.load(open(sys.argv[2]))
sys.exit(not (a["total_bytes_per_gpu"]==e["total_bytes_per_gpu"] and a["fits"]==e["fits"]))' \
                "$TMP/adv.json" "$TMP/e.json" "$n" && ok || bad "$desc: command $n ($line) does not give the advice's total: $(cat "$TMP/err")"
    done <"$TMP/adv-cmds"
    [ "$n" -eq 3 ] && ok || bad "$desc: advise --top 3 printed $n command lines"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (not d["as_configured"]["fits"] and d["suggestions"][0]["fits"]))' \
        "$TMP/adv.json" && ok || bad "$desc: the run should not fit as given and the first suggestion should"
}
advise_check "advise 70B ZeRO-3" --preset llama-3.1-70b --gpu H100-80GB --engine zero3 --gpus 8
advise_check "advise 8B single" --preset llama-3.1-8b --gpu H100-80GB --seq-len 8k --micro-batch-size 2
advise_check "advise vLLM 72B TP 2" --preset qwen2.5-72b --mode inference --runtime vllm --gpu A100-80GB --tensor-parallel-size 2
run 2 advise --preset llama-3.1-8b --explain && one_line_error LLMMEM_E_INVALID_ARG "advise: --explain"
run 2 advise --preset llama-3.1-8b --max-batch && one_line_error LLMMEM_E_INVALID_ARG "advise: --max-batch"

# seed rows (issue 29 item 8): the sgd-momentum spelling; AdaBelief's two moments like p
# (torch_optimizer/adabelief.py: exp_avg, exp_avg_var; amsgrad + max_exp_avg_var) and its
# per-parameter step (grad_residual, sqrt, quotient, the previous denom: 4 copies of the
# largest parameter, llama-3.2-1b's tied 128256 x 2048 embedding, bf16); Shampoo refused
same_json "optimizer sgd-momentum" estimate --preset llama-3.2-1b --optimizer sgd-momentum --json -- \
    estimate --preset llama-3.2-1b --optimizer sgd_momentum --json
for o in adabelief:2 adabelief-amsgrad:3; do
    "$CLI" estimate --preset llama-3.2-1b --optimizer "${o%%:*}" --json >"$TMP/ab.json" &&
        python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); n=int(sys.argv[2])
want_state = n * d["trainable_params"] * 2
want_tmp = 4 * 128256 * 2048 * 2
got = (d["components"]["optimizer_state"] if d["peak_phase"] == "optimizer" else d["phases"]["optimizer"]["components"]["optimizer_state"],
       d["phases"]["optimizer"]["components"]["optimizer_transient"])
sys.exit(0 if got == (want_state, want_tmp) else "got %s, want %s" % (got, (want_state, want_tmp)))' "$TMP/ab.json" "${o##*:}" &&
        ok || bad "optimizer ${o%%:*}"
done
run 2 estimate --preset llama-3.2-1b --optimizer shampoo && one_line_error LLMMEM_E_UNSUPPORTED "--optimizer shampoo: parameter \"optimizer\": shampoo: Distributed Shampoo"

# which cards fit a run (seed row): llmmem gpus with inputs = llmmem estimate on each GPU
"$CLI" gpus --preset llama-3.1-8b --lora-rank 16 --seq-len 4k --json >"$TMP/g.json" &&
    python3 - "$CLI" "$TMP/g.json" <<'PY' && ok || bad "gpus with a run"
import json, subprocess, sys
cli, rows = sys.argv[1], json.load(open(sys.argv[2]))
names = [g["name"] for g in json.loads(subprocess.run([cli, "gpus", "--json"], capture_output=True, text=True, check=True).stdout)]
assert [g["name"] for g in rows] == names, "every GPU of the table, in order"
for g in rows:
    e = json.loads(subprocess.run([cli, "estimate", "--preset", "llama-3.1-8b", "--lora-rank", "16", "--seq-len", "4k",
                                   "--gpu", g["name"], "--json"], capture_output=True, text=True, check=True).stdout)
    assert (g["fits"], g["total_bytes_per_gpu"], g["headroom_bytes"], g["memory_bytes"]) == \
        (e["fits"], e["total_bytes_per_gpu"], e["headroom_bytes"], e["gpu_memory_bytes"]), g["name"]
assert any(g["fits"] for g in rows) and not all(g["fits"] for g in rows)
PY
run 2 gpus --preset llama-3.1-8b --gpu A100-80GB && one_line_error LLMMEM_E_INVALID_ARG "gpus: --gpu with a run"

# quick 70 --gpus 64 --engine megatron (seed row): the planner's fastest Megatron layout that
# fits, not TP 1 x PP 1: its total is that layout's in llmmem plan, and it fits
"$CLI" quick 70 --gpus 64 --engine megatron --json >"$TMP/q.json" 2>"$TMP/q.err" &&
    "$CLI" plan --num-parameters 70B --gpus 64 --top 64 --json >"$TMP/p.json" 2>/dev/null &&
    python3 - "$TMP/q.json" "$TMP/p.json" "$TMP/q.err" <<'PY' && ok || bad "quick megatron layout: $(cat "$TMP/q.err")"
import json, re, sys
q, p, err = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
l = next(x for x in p["layouts"] if x["engine"] == "megatron")
m = re.search(r"^Layout +the planner's fastest megatron layout of 64 GPUs that fits: TP (\d+) x PP (\d+) x DP (\d+)", err, re.M)
assert m and tuple(map(int, m.groups())) == (l["tp"], l["pp"], l["dp"]), (err, l)
assert q["fits"] and q["total_bytes_per_gpu"] == l["total_bytes_per_gpu"], (q["total_bytes_per_gpu"], l)
PY
"$CLI" quick 70 --gpus 64 --engine megatron --tensor-parallel-size 8 >"$TMP/out" 2>&1 && ! grep -q "^Layout" "$TMP/out" &&
    ok || bad "quick megatron with a TP size given keeps it"

# calibration profile's flat settings (seed row): fragmentation_gib into peak reserved,
# overhead_gib into the total, safety_margin kept free of the capacity for fits/headroom
printf '{"fragmentation_gib": 1.5, "overhead_gib": 2, "safety_margin": 0.1}' >"$TMP/flat.json"
"$CLI" estimate --preset llama-3.1-8b --lora-rank 16 --json >"$TMP/f0.json" &&
    "$CLI" estimate --preset llama-3.1-8b --lora-rank 16 --calibration "$TMP/flat.json" --json >"$TMP/f1.json" &&
    python3 - "$TMP/f0.json" "$TMP/f1.json" <<'PY' && ok || bad "calibration flat settings"
import json, math, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
G = 2 ** 30
assert b["peak_reserved_bytes"] == a["peak_reserved_bytes"] + int(1.5 * G)
assert b["total_bytes_per_gpu"] == a["total_bytes_per_gpu"] + int(1.5 * G) + 2 * G
cap = a["gpu_memory_bytes"]
assert b["headroom_bytes"] == cap - math.ceil(cap * 0.1) - b["total_bytes_per_gpu"]
assert b["fits"] == (b["headroom_bytes"] >= 0)
assert sum("safety margin of 10%" in n for n in b["notes"]) == 1
PY
printf '{"safety_margin": 0.6}' >"$TMP/flat2.json"
run 1 estimate --preset llama-3.1-8b --calibration "$TMP/flat2.json" && one_line_error LLMMEM_E_OUT_OF_RANGE "$TMP/flat2.json:1:19: \"safety_margin\": expected a number in [0, 0.5]"

# ZeRO-3 + TP (seed row): DeepSpeed AutoTP training is refused with the reason, never dropped
printf '{"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 3},\n "tensor_parallel": {"autotp_size": 2}}' >"$TMP/autotp.json"
run 1 estimate --preset llama-3.1-8b --deepspeed-config "$TMP/autotp.json" &&
    one_line_error LLMMEM_E_UNSUPPORTED "$TMP/autotp.json:2:37: \"tensor_parallel.autotp_size\": 2: DeepSpeed AutoTP training"
run 1 estimate --preset llama-3.1-8b --engine zero3 --gpus 8 --tensor-parallel-size 2 &&
    grep -q "DeepSpeed AutoTP training, is not modelled" "$TMP/err" && ok || bad "zero + TP refusal names AutoTP"

# ---- issue 28 (4): host memory, pinned and pageable, and the host verdict --------------
# ZeRO-3 optimizer offload of Llama-2-7B on 8 ranks of a node: pinned + pageable = host_bytes,
# both non-zero; fits_host follows host_memory_bytes on either side of host_bytes
H="estimate --preset llama-2-7b --engine zero --zero-stage 3 --num-gpus 8 --offload-optimizer cpu"
if run 0 $H --json; then
    hb=$(jget "$TMP/out" 'd["host_bytes"]')
    [ "$(jget "$TMP/out" 'd["host_pinned_bytes"] + d["host_pageable_bytes"] == d["host_bytes"] and d["host_pinned_bytes"] > 0 and d["host_pageable_bytes"] > 0 and "fits_host" not in d')" = True ] && ok ||
        bad "host keys: $(head -c 600 "$TMP/out")"
    run 0 $H --host-memory-bytes "$hb" --json && [ "$(jget "$TMP/out" 'd["fits_host"] is True and d["host_memory_bytes"] > 0')" = True ] && ok ||
        bad "fits_host at host_bytes: $(head -c 300 "$TMP/out")"
    run 0 $H --host-memory-bytes $((hb - 1)) --json && [ "$(jget "$TMP/out" 'd["fits_host"] is False and d["fits"] is True')" = True ] && ok ||
        bad "fits_host below host_bytes"
    run 0 $H --host-memory-bytes $((hb - 1)) && grep -q "^Fits host RAM *NO" "$TMP/out" && grep -q "^  pinned " "$TMP/out" &&
        grep -q "^  pageable " "$TMP/out" && ok || bad "table host rows: $(cat "$TMP/out")"
fi
run 2 $H --host-memory-bytes -5 && one_line_error LLMMEM_E_OUT_OF_RANGE "host_memory_bytes"

# ---- issue 28 (7): the vision tower by runtime ---------------------------------------------
# Llama 4 Scout: transformers counts 108,641,793,536 for Llama4ForConditionalGeneration and
# 107,769,861,120 for Llama4ForCausalLM, the class AutoModelForCausalLM builds
# (test/data/presets-published.tsv, test/data/families/transformers-5.17-families.jsonl)
S4="--preset llama-4-scout-17b-16e --mode inference --tensor-parallel-size 8"
tower() { # tower ARGS... -> "params counted|left_out"
    "$CLI" estimate $S4 "$@" --json | python3 -c 'import json,sys; d=json.load(sys.stdin)
n=[x for x in d["notes"] if x.startswith("vision tower")]
print(d["params"], "counted" if n and " counted: " in n[0] else "left_out" if n else "none")'
}
[ "$(tower)" = "107769861120 left_out" ] && ok || bad "llama4 HF inference (AutoModelForCausalLM): $(tower)"
[ "$(tower --runtime vllm)" = "108641793536 counted" ] && ok || bad "llama4 vLLM: $(tower --runtime vllm)"
[ "$(tower --load-vision-tower on)" = "108641793536 counted" ] && ok || bad "llama4 load_vision_tower on"
[ "$(tower --runtime vllm --load-vision-tower off)" = "107769861120 left_out" ] && ok || bad "llama4 vLLM tower off"
if run 0 model --preset llama-4-scout-17b-16e --json; then
    [ "$(jget "$TMP/out" 'd["params"] + d["vision_tower_params"] == 108641793536 and d["causal_lm_class"] == "Llama4ForCausalLM"')" = True ] && ok ||
        bad "llama4 model JSON: $(head -c 300 "$TMP/out")"
fi
run 1 estimate $S4 --load-vision-tower off --images-per-sample 1 && one_line_error LLMMEM_E_INCONSISTENT "load_vision_tower = off"
run 1 estimate --preset llama-3.2-1b --load-vision-tower on && one_line_error LLMMEM_E_INCONSISTENT "no vision tower"

# the issue's four questions (issue 29) each get an answer with a next step from advise:
# it fits as given, or the first suggestion fits (and its command is ready, checked above)
for q in "--preset llama-3.1-8b --gpu H100-80GB" \
    "--preset llama-3.1-70b --engine fsdp --gpu H100-80GB" \
    "--preset qwen2.5-72b --mode inference --runtime vllm --gpu A100-80GB --tensor-parallel-size 4" \
    "--preset llama-3.1-70b --qlora nf4 --lora-rank 16 --gpu A6000"; do
    # shellcheck disable=SC2086
    "$CLI" advise $q --json >"$TMP/q4.json" 2>"$TMP/err" &&
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["suggestions"]
sys.exit(0 if d["as_configured"]["fits"] or (s and s[0]["fits"]) else 1)' "$TMP/q4.json" &&
        ok || bad "advise $q: no fitting answer: $(head -c 300 "$TMP/q4.json") $(cat "$TMP/err")"
done

echo "test_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
