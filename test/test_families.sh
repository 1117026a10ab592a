#!/usr/bin/env bash
# Parameter counts of every family against transformers 5.17 (test/families.py):
# the shared reference (a copy, byte-identical to ../shared when it is there), and the
# extra families and variant configs of test/data/families/ (README.md there says how they
# were made; make_variants_dense1.py writes variants-dense1.jsonl, make_dense2.py
# variants-dense2.jsonl, hybrid_variants.py hybrid-variants-5.17.jsonl). Families not in the
# registry yet are listed in pending.txt and must be refused or flagged approximate.
set -eu
cd "$(dirname "$0")/.."
REF=test/data/families/transformers-5.17-families.jsonl
if [ -f ../shared/groundtruth/transformers-5.17-families.jsonl ]; then
    cmp ../shared/groundtruth/transformers-5.17-families.jsonl "$REF"
fi
files=("$REF")
for f in test/data/families/families-5.17.jsonl test/data/families/variants-*.jsonl \
         test/data/families/hub-flagships.jsonl test/data/families/multimodal-5.17.jsonl \
         test/data/families/hybrid-variants-5.17.jsonl; do
    [ -f "$f" ] && files+=("$f")
done
python3 test/families.py --cli examples/llmmem --pending test/data/families/pending.txt \
    --refused test/data/families/refused.tsv "${files[@]}"
