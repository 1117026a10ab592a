#!/usr/bin/env python3
"""Trims harness.py output to the rows committed as test data (test/data/reference/*.harness.jsonl):
the scenario, versions, assumptions, SDPA choices and the figures make check compares.

usage: trim.py HARNESS_OUT.jsonl [--known FILE] > ROWS.jsonl
--known: lines "id phase error_pct half_width reason" carried into the rows as "known" (a figure the
library is known to miss, and why; reference_check.py holds it to its band)."""
import argparse
import json

KEEP = ("params", "trainable_params", "weights_bytes", "persistent_bytes", "forward_saved_bytes",
        "peak_allocated_bytes", "peak_phase", "phase_peak_bytes", "phase_peak_owner", "prefill_peak_bytes",
        "kv_cache_bytes_after_decode", "layer_fwd_delta", "sdpa", "notes")



def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--known")
    ap.add_argument("--config-prefix", default="", help="put before each hf_config path (the rows' folder "
                    "differs from the set's)")
    a = ap.parse_args()
    known = {}
    if a.known:
        for line in open(a.known):
            if line.strip() and not line.startswith("#"):
                rid, ph, err, hw, why = line.split(None, 4)
                known.setdefault(rid, {})[ph] = {"error_pct": float(err), "half_width": float(hw), "reason": why.strip()}
    rows = {}
    for line in open(a.out):
        r = json.loads(line)
        if "harness" not in r:
            continue
        h = r["harness"]
        row = {"id": r["id"], **r["scenario"], "versions": r["versions"], "assumptions": r["assumptions"],
               "harness": {k: h[k] for k in KEEP if k in h}}
        row["harness"]["replay"] = {k: h["replay"][k] for k in ("peak_allocated_bytes", "peak_reserved_bytes")}
        if r["id"] in known:
            row["known"] = known[r["id"]]
        if a.config_prefix:
            row["model"] = dict(row["model"], hf_config=a.config_prefix + row["model"]["hf_config"])
        if any("one process" in x for x in r["assumptions"]):  # the library's estimate of the same process
            row["cli_args"] = ["--prior-workspace-segment-bytes", "33554432"]
        if "error_pct" in r:  # harness vs the measurement of the same scenario
            row["harness_vs_measured_pct"] = r["error_pct"]
        rows[r["id"]] = row
    for rid in sorted(rows):
        print(json.dumps(rows[rid]))


if __name__ == "__main__":
    main()
