#!/usr/bin/env python3
"""Regenerates the tables of docs/accuracy.md from test/accuracy.py's output
(run `bash test/test_accuracy.sh > build/accuracy.txt` first). Prints markdown."""
import re, sys

rows = []
for line in open(sys.argv[1]):
    m = re.match(r"^(\w\d\d)\s+(train|infer)\s+(\S+)\s+([\d.]+)\s+(\S+)\s+(\S*)", line)
    if m:
        rows.append(m.groups())
print("| id | mode | model | estimate GiB | measured GiB | error |")
print("|---|---|---|---:|---:|---:|")
for r in rows:
    print("| " + " | ".join(r) + " |")
