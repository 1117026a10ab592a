#!/usr/bin/env bash
# Estimate vs H200 measurement (issue 3/4/9): the dev set copy, the engine runs at
# world size 1, the project's own extra measurements and the probe's records
# (examples/python/llmmem_probe.py, per-phase peaks too). Prints the error table.
set -eu
cd "$(dirname "$0")/.."
python3 test/accuracy.py --cli examples/llmmem --known-gaps test/data/h200-extra/known-gaps.txt \
    test/data/groundtruth/h200-dev.jsonl test/data/h200-extra/h200-extra.jsonl
python3 test/accuracy.py --cli examples/llmmem test/data/groundtruth/h200-engines-ws1-rerun.jsonl
# the probe records: every peak and every phase peak within 1%
python3 test/accuracy.py --cli examples/llmmem --max-err 1.0 test/data/probe/h200-probe.jsonl
