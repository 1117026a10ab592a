#!/usr/bin/env bash
# vLLM startup logs re-predicted (issue 15): every anchor of test/data/anchors/vllm whose
# config and engine the library reads, through `llmmem vllm` with the anchor's vLLM flags,
# version and GPU. Prints the table; fails when the median |error| of the KV-cache tokens
# exceeds 3%, any exceeds 10%, or a "Model loading took" figure is off by more than 10%.
set -eu
cd "$(dirname "$0")/.."
python3 test/vllm_anchors.py --cli examples/llmmem --dir test/data/anchors/vllm \
    --max-median 3 --max-any 10 --max-weights 10
