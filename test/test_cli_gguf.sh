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
exit $fail
