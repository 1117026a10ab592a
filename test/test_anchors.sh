#!/usr/bin/env bash
# Published training peaks (test/data/anchors/training/, README there) re-predicted:
# torchtune anchors read through the torchtune recipe reader, LitGPT and torchtitan ones
# through parameters; like with like (allocated/active vs peak_allocated, reserved vs
# peak_reserved). Prints the table; fails when an estimate fails or the median |error|
# of the included anchors exceeds 5% or the worst 15% (only low-confidence anchors may be
# left out, with their reason printed).
set -eu
cd "$(dirname "$0")/.."
python3 test/anchors.py --cli examples/llmmem --median 5 --max 15
