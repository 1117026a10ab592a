#!/usr/bin/env bash
# `llmmem vllm MODEL [vllm flags]` (issue 15): a pasted `vllm serve` line gives the lines
# vLLM prints; vLLM's flag spellings (--flag v, --flag=v, -tp 2, 32K, --no-flag,
# --flag true) reach the same parameters as llmmem's own flags; flags without effect on
# GPU memory are accepted and listed; flags that change memory in a way not modelled, and
# flags llmmem does not know, are refused with one stderr line. Run from the repository
# root (make check does).
set -u
cd "$(dirname "$0")/.."
CLI=${LLMMEM_CLI:-examples/llmmem}
A=test/data/anchors/vllm/configs
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}
run() { # run EXPECTED_STATUS ARGS...
    local want=$1
    shift
    "$CLI" "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        bad "llmmem $* -> exit $got, want $want; stderr: $(head -c 300 "$TMP/err")"
        return 1
    fi
    ok
}
has() { # has FILE TEXT
    if grep -qF -- "$2" "$TMP/$1"; then ok; else bad "$1 lacks \"$2\": $(head -c 400 "$TMP/$1")"; fi
}
one_line() { # one_line STATUS FRAGMENT
    if [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^llmmem: $1: " "$TMP/err" &&
        grep -qF -- "$2" "$TMP/err" && [ ! -s "$TMP/out" ]; then ok; else
        bad "want one line \"llmmem: $1: ...$2...\", got: $(cat "$TMP/err") / $(head -c 200 "$TMP/out")"
    fi
}
key() { # key NAME: the value of a key of the JSON on stdout
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$TMP/out" "$1"
}

[ -x "$CLI" ] || { echo "no $CLI (run make)"; exit 1; }

run 0 vllm --help && has out "usage: llmmem vllm"
run 0 help vllm && has out "usage: llmmem vllm"

# a pasted serve line (anchor a019): the four lines vLLM logs
run 0 vllm "$A/qwen2-7b-instruct.json" --host 0.0.0.0 --port 8081 --max-model-len 16384 \
    --gpu-memory-utilization 0.25 --gpu A100-80GB --vllm-version 0.10.1.1 \
    --flashinfer-sampler on --trust-remote-code
has out "Model loading took 14.2487 GiB"
has out "Available KV cache memory:"
has out "GPU KV cache size:"
has out "Maximum concurrency for 16,384 tokens per request:"
has out "vLLM flags without effect on GPU memory: --host, --port, --trust-remote-code"

# capacity first, also on `llmmem estimate`: the lines vLLM logs come before the phases, with
# the longest context that fits; when vLLM does not start, its own error instead of a KV
# pool, the estimated maximum model length, and a KV cache line equal to the component
run 0 estimate --preset llama-3.1-8b --mode inference --runtime vllm --gpu H100-80GB --max-model-len 8192
[ "$(grep -n "^vLLM, per GPU" "$TMP/out" | cut -d: -f1)" -lt "$(grep -n "^Live bytes per phase" "$TMP/out" | cut -d: -f1)" ] &&
    ok || bad "the vLLM lines are not above the phases"
has out "Maximum concurrency for 8,192 tokens per request:"
has out "Longest context that fits: 131,072 tokens (--max-model-len up to 131072)"
run 0 estimate --preset llama-3.1-8b --mode inference --runtime vllm --gpu L4 --json
n=$(key estimated_max_model_len)
[ "$(key max_model_len)" = 131072 ] && [ "$n" -gt 0 ] && [ "$n" -lt 131072 ] &&
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["kv_cache_bytes"] != d["components"]["kv_cache"])' "$TMP/out" &&
    ok || bad "L4 capacity keys: $(head -c 300 "$TMP/out")"
run 0 estimate --preset llama-3.1-8b --mode inference --runtime vllm --gpu L4
has out "vLLM, per GPU (as it logs them): it does not start"
has out "To serve at least one request with the model's max seq len (131072)"
has out "Based on the available memory, the estimated maximum model length is $n."
has out "Longest context that fits: $(python3 -c "print(f'{$n:,}')") tokens (--max-model-len $n starts it)"
grep -q "GPU KV cache size" "$TMP/out" && bad "a KV pool for a start that fails" || ok
kvline=$(grep "^KV cache " "$TMP/out")
kvcomp=$(grep "^  kv_cache " "$TMP/out" | sed 's/.* \([0-9.]* GiB\).*/\1/')
case "$kvline" in *"$kvcomp"*) ok ;; *) bad "KV cache line \"$kvline\" is not the component's $kvcomp" ;; esac
run 0 estimate --preset llama-3.1-8b --mode inference --runtime vllm --gpu L4 --max-model-len "$n" --json
[ "$(key fits)" = True ] && ok || bad "--max-model-len $n (the estimated maximum) does not start"

# vLLM's spellings give the same estimate as llmmem's parameter flags
run 0 vllm qwen3-8b -tp 2 --max-model-len=32K --no-enable-prefix-caching --enforce-eager true \
    --gpu H100-80GB --json
a=$(key kv_tokens)
run 0 estimate --preset qwen3-8b --mode inference --runtime vllm --tensor-parallel-size 2 \
    --max-model-len 32768 --enable-prefix-caching off --enforce-eager true --gpu H100-80GB --json
b=$(key kv_tokens)
[ "$a" = "$b" ] && ok || bad "vllm spellings $a tokens, parameter flags $b"
run 0 vllm qwen3-8b --max-model-len 32k --gpu L4 --json
[ "$(python3 -c "import json;print(json.load(open('$TMP/out'))['kv_tokens']>=0)")" = True ] && ok ||
    bad "32k"

# -O0 is eager: no CUDA graphs
run 0 vllm qwen3-8b -O0 --gpu L4 --json
[ "$(key cuda_graph_bytes)" = 0 ] && ok || bad "-O0 left CUDA graphs"

# refused: memory-relevant flags not modelled, unknown flags, V0 versions
run 2 vllm qwen3-8b --speculative-config '{"method":"eagle"}'
one_line LLMMEM_E_UNSUPPORTED "--speculative-config"
run 2 vllm qwen3-8b --max-num-seq 16
one_line LLMMEM_E_UNKNOWN_PARAM "--max-num-seq"
run 2 vllm qwen3-8b --kv-cache-dtype int4
one_line LLMMEM_E_UNSUPPORTED "int4"
run 1 vllm qwen3-8b --vllm-version 0.6.4
one_line LLMMEM_E_UNSUPPORTED "V0"
run 2 vllm
one_line LLMMEM_E_INVALID_ARG "MODEL missing"
run 2 vllm qwen3-8b --max-model-len 3x
one_line LLMMEM_E_INVALID_ARG "expected a count"

# what vLLM itself refuses (issue 25): 0 where the library reads 0 as the default
# (vllm/config/cache.py gt=0, scheduler.py ge=1), and the rules its config classes check
for flag in --gpu-memory-utilization --block-size --max-num-seqs --max-num-batched-tokens --max-model-len; do
    run 2 vllm llama-3.1-8b "$flag" 0
    one_line LLMMEM_E_OUT_OF_RANGE "$flag 0"
done
run 1 vllm llama-3.1-8b --max-model-len 200000
one_line LLMMEM_E_OUT_OF_RANGE "_get_and_verify_max_len"
run 1 vllm llama-3.1-8b --max-num-batched-tokens 64 --max-num-seqs 128
one_line LLMMEM_E_INCONSISTENT "verify_max_model_len"
run 1 vllm llama-3.1-8b --block-size 7
one_line LLMMEM_E_OUT_OF_RANGE "multiple of 16"
run 1 vllm llama-3.1-8b --max-split-size-bytes 1
one_line LLMMEM_E_OUT_OF_RANGE "max_split_size_mb"
# --cpu-offload-gb (issue 28): at least the limit leaves "Model loading took" and
# lands in host RAM (pinned blocks, powers of two: no less than what moved)
run 0 vllm qwen3-8b --gpu L4 --vllm-version 0.14.1 --json
w0=$(key weights_bytes)
run 0 vllm qwen3-8b --gpu L4 --vllm-version 0.14.1 --cpu-offload-gb 4 --json
w1=$(key weights_bytes)
h1=$(key host_bytes)
[ $((w0 - w1)) -ge 4294967296 ] && [ "$h1" -ge $((w0 - w1)) ] && ok ||
    bad "--cpu-offload-gb 4: weights $w0 -> $w1, host $h1"
run 0 vllm qwen3-8b --gpu L4 --vllm-version 0.14.1 --cpu-offload-gb=4
has out "Host RAM (offload)"
# --swap-space: accepted up to 0.17 (V1 allocates none), refused from 0.18
run 0 vllm qwen3-8b --gpu L4 --vllm-version 0.17.1 --swap-space 16 --json
[ "$(key host_bytes)" = 0 ] && [ "$(key weights_bytes)" = "$w0" ] && ok || bad "--swap-space 16 on 0.17.1"
run 1 vllm qwen3-8b --gpu L4 --vllm-version 0.18.0 --swap-space 16
one_line LLMMEM_E_UNSUPPORTED "0.18.0"
# the V0 fallback of 0.8 - 0.10 is refused with vLLM's reason
run 1 vllm qwen3-8b --gpu V100-32GB --vllm-version 0.8.5
one_line LLMMEM_E_UNSUPPORTED "Compute Capability < 8.0 is not supported by the V1 Engine"
# NVFP4 (ModelOpt) with vLLM's --quantization spellings
cat >"$TMP/nvfp4.json" <<'JSON'
{"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024, "num_hidden_layers": 2,
 "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 8192,
 "max_position_embeddings": 1024, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
 "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8"}}
JSON
run 0 vllm "$TMP/nvfp4.json" --quantization modelopt_fp4 --gpu H100-80GB --vllm-version 0.14.1 --json
[ "$(key weights_bytes)" = 20001792 ] && [ "$(key kv_bytes_per_token)" = 2048 ] && ok ||
    bad "nvfp4: weights $(key weights_bytes), KV $(key kv_bytes_per_token) B/token"
run 1 vllm "$TMP/nvfp4.json" -q fp8 --gpu H100-80GB
one_line LLMMEM_E_INCONSISTENT "--quantization fp8 on a nvfp4 checkpoint"
run 1 vllm "$TMP/nvfp4.json" --gpu T4
one_line LLMMEM_E_UNSUPPORTED "compute capability 8.0"

echo "test_cli_vllm: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
