#!/usr/bin/env bash
# The library against the reference harness's rows (issue 24): the real transformers / peft /
# torch step of each scenario, run at full size on fake tensors by test/reference/harness.py
# (dev-time; its output is committed, so this test needs no torch). Each phase peak within 1%,
# or inside the band its row's "known" names with the reason.
set -eu
cd "$(dirname "$0")/.."
python3 test/reference_check.py --cli examples/llmmem "$@" test/data/reference/*.harness.jsonl
