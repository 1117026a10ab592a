#!/usr/bin/env bash
# vLLM startup logs re-predicted (issue 15): every anchor of test/data/anchors/vllm whose
# config and engine the library reads, through `llmmem vllm` with the anchor's vLLM flags,
# version and GPU. Prints the table; fails when the median |error| of the KV-cache tokens
# exceeds 3%, any exceeds 10%, or a "Model loading took" figure is off by more than 10%.
set -eu
cd "$(dirname "$0")/.."
python3 test/vllm_anchors.py --cli examples/llmmem --dir test/data/anchors/vllm \
    --max-median 3 --max-any 10 --max-weights 10 --pins test/data/anchors/vllm/pins.tsv ${WRITE_PINS:+--write-pins}
# The test's own guards (issue 25): with an anchor that cannot be compared and does not say
# so, or with a pin moved by 0.2 point, the same run fails, naming why.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# (a copy of the directory two levels below a link to test/data/configs, as config_path expects)
mkdir -p "$T/d/anchors" && cp -r test/data/anchors/vllm "$T/d/anchors/vllm" && ln -s "$PWD/test/data/configs" "$T/d/configs"
grep -v '"expected_skip"' test/data/anchors/vllm/a003-llava-v1.6-mistral-7b-h100.json > "$T/d/anchors/vllm/a003-llava-v1.6-mistral-7b-h100.json"
if python3 test/vllm_anchors.py --cli examples/llmmem --dir "$T/d/anchors/vllm" --pins test/data/anchors/vllm/pins.tsv > "$T/out" 2>&1 ||
   ! grep -q "a003: listed but not compared" "$T/out" || ! grep -q "compared 18 of the 26 anchors listed" "$T/out"; then
    echo "FAIL: an anchor skipped without expected_skip did not fail the test"; tail -3 "$T/out"; exit 1
fi
awk -F'\t' 'BEGIN{OFS="\t"} $1=="a001"{$2=sprintf("%+.2f", $2+0.2)} {print}' test/data/anchors/vllm/pins.tsv > "$T/pins.tsv"
if python3 test/vllm_anchors.py --cli examples/llmmem --dir test/data/anchors/vllm --pins "$T/pins.tsv" > "$T/out" 2>&1 ||
   ! grep -q "regression check: a001 tokens error" "$T/out"; then
    echo "FAIL: a pin moved by 0.2 point did not fail the test"; tail -3 "$T/out"; exit 1
fi
echo "guards: an anchor skipped without expected_skip fails; a pin moved by 0.2 point fails"
