#!/usr/bin/env python3
"""Known bands for the rows reference_check.py fails, from its output: one line per phase beyond the
tolerance, "id phase error_pct half_width reason", the reason saying the gap is open (found by the
harness, not traced yet) unless --reason gives one. Appends nothing for rows already known.

usage: python3 test/reference_check.py ROWS.jsonl | known_from_check.py [--reason TEXT] >> KNOWN.txt"""
import argparse
import re
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--reason", default="open: the harness's figure differs from the library's; not traced yet")
ap.add_argument("--half-width", type=float, default=0.3)
a = ap.parse_args()
for line in sys.stdin:
    if not line.startswith("FAIL"):
        continue
    rid = line.split()[1].rstrip(":")
    for k, lib, har in re.findall(r"(\w*params) (\d+) != harness (\d+)", line):
        print(f"{rid} {k} {int(lib) - int(har)} 0 open: the library counts {lib} where the real model has {har}; "
              f"not traced yet")
    for ph, e in re.findall(r"(\w+) ([+-]\d+\.\d+)% beyond", line):
        print(f"{rid} {ph} {float(e):+.2f} {a.half_width} {a.reason}")
    if "the library refused:" in line:
        why = line.split("the library refused:", 1)[1].strip()
        print(f"{rid} refused 0 0 the library refuses where the real program runs ({why})")
