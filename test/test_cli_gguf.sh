#!/usr/bin/env bash
# The CLI with a GGUF file (runtime llama_cpp, issue 30): --gguf implies mode inference and
# runtime llama_cpp; -ngl moves weights to the GPU layer by layer; plan --max-ngl / --max-ctx
# answer; bad files and contradicting flags fail with the file or the flag named. The numbers
# themselves are checked in test/test_llamacpp.c against llama.cpp's logs.
set -u
cd "$(dirname "$0")/.."
CLI=${CLI:-examples/llmmem}
F=fuzz/corpus/fuzz_gguf/llama.gguf
fail=0
check() { # name, command output, expected fragment
    if printf '%s' "$2" | grep -qF -- "$3"; then echo "ok   $1"; else
        echo "FAIL $1: expected \"$3\" in:"; printf '%s\n' "$2" | head -5; fail=1; fi
}
weights() { "$CLI" estimate --gguf "$F" --ctx-size 4096 "$@" --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["weights_bytes"])'; }

out=$("$CLI" estimate --gguf "$F" --ctx-size 4096 2>&1)
check "estimate runs llama_cpp" "$out" "inference (llama_cpp)"
check "states the layers" "$out" "2 of 2 repeating layers on the GPU and the output layer"
w0=$(weights --ngl 0); w1=$(weights --ngl 1); w2=$(weights --ngl 2); wall=$(weights)
[ "$w0" = 0 ] && echo "ok   -ngl 0: no weight on the GPU" || { echo "FAIL -ngl 0: $w0"; fail=1; }
if [ "$w1" -gt 0 ] && [ "$w2" -gt "$w1" ] && [ "$wall" -ge "$w2" ]; then
    echo "ok   -ngl 1 < 2 <= all ($w1 < $w2 <= $wall)"; else echo "FAIL -ngl order: $w0 $w1 $w2 $wall"; fail=1; fi
out=$("$CLI" plan --gguf "$F" --max-ngl --max-ctx 2>&1)
check "plan --max-ngl" "$out" "max_ngl      3"
check "plan --max-ctx" "$out" "max_ctx"
out=$("$CLI" plan --gguf "$F" --max-ngl --gpu-memory-bytes 1 --cuda-context-bytes 0 2>&1)
check "nothing fits" "$out" "not even -ngl 0 fits"
out=$("$CLI" estimate --gguf /nonexistent.gguf 2>&1)
check "missing file" "$out" 'cannot open "/nonexistent.gguf"'
out=$("$CLI" estimate --gguf fuzz/crashes/fuzz_gguf/crash-b0a852044e086a54aed9bd5934202f18b8e3cc4c 2>&1)
check "bad metadata names the file" "$out" "crash-b0a852044e086a54aed9bd5934202f18b8e3cc4c: architecture"
out=$("$CLI" estimate --gguf "$F" --preset llama-3.2-1b 2>&1)
check "one model source" "$out" "give --hf-config, --gguf or --preset, not both"
out=$("$CLI" estimate --preset llama-3.2-1b --mode inference --runtime llama_cpp 2>&1)
check "llama_cpp needs a GGUF" "$out" "must be read from its GGUF file"
out=$("$CLI" plan --preset llama-3.2-1b --max-ngl 2>&1)
check "max-ngl is llama.cpp's" "$out" "needs mode inference, runtime llama_cpp"
# the settings line is llama.cpp's, not the HF runtime's batch and prompt
out=$("$CLI" estimate --gguf "$F" --ngl 2 --ctx-size 4096 --n-ubatch 256 --cache-type-k f32 2>&1)
check "settings: llama.cpp's" "$out" "inference (llama_cpp), 2 layers on the GPU (-ngl), context 4,096 tokens"
check "settings: the cache types" "$out" "KV cache f32/f16, flash attention auto"
# the HF runtime's settings are not read by llama.cpp: refused, not dropped
out=$("$CLI" estimate --gguf "$F" --batch-size 512 2>&1)
check "batch_size refused" "$out" "batch_size = 512 does not apply: it is read with runtime hf only, and the runtime is llama_cpp; with runtime llama_cpp, set n_parallel"
out=$("$CLI" estimate --gguf "$F" --kv-cache-dtype fp8 2>&1)
check "kv_cache_dtype refused" "$out" "does not read kv_cache_dtype (fp8): set cache_type_k and cache_type_v"
out=$("$CLI" estimate --gguf "$F" --prompt-len 8192 2>&1)
check "prompt_len refused" "$out" "prompt_len = 8192 does not apply: it is read with runtime hf only, and the runtime is llama_cpp; with runtime llama_cpp, set ctx_size"
out=$("$CLI" plan --gguf "$F" --gpus 4 2>&1)
check "no layouts for llama.cpp" "$out" "runtime llama_cpp: no layouts of 4 GPUs to rank"
# a scenario names the GGUF (a path relative to it) and implies llama.cpp
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cp "$F" "$d/m.gguf"
printf '{"model": {"gguf": "m.gguf"}, "inference": {"ctx_size": 4096, "n_gpu_layers": 2}}' >"$d/s.json"
a=$("$CLI" estimate --scenario "$d/s.json" --json 2>&1)
b=$("$CLI" estimate --gguf "$F" --ctx-size 4096 --ngl 2 --json 2>&1)
[ "$a" = "$b" ] && echo "ok   scenario model.gguf == --gguf" || { echo "FAIL scenario model.gguf: $a"; fail=1; }
printf '{"model": {"gguf": "m.gguf", "num_layers": 3}}' >"$d/s.json"
out=$("$CLI" estimate --scenario "$d/s.json" 2>&1)
check "scenario: no numbers on a GGUF" "$out" "model.gguf describes the model by its tensors"
printf '{"model": {"gguf": "m.gguf", "preset": "llama-3.2-1b"}}' >"$d/s.json"
out=$("$CLI" estimate --scenario "$d/s.json" 2>&1)
check "scenario: one model source" "$out" "are each a model: give one, not both"
exit $fail
