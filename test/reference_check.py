#!/usr/bin/env python3
"""The library against the reference harness's rows (test/data/reference/*.harness.jsonl, made by
test/reference/harness.py: the real transformers/peft/torch step run on fake tensors at full size).

usage: reference_check.py [--cli examples/llmmem] [--tol 1.0] ROWS.jsonl...

For each row it runs `llmmem estimate --scenario` on the row's scenario (its hf_config relative to
the rows file; a row's cli_args are added: the one-process runs' prior cuBLAS workspace) and compares every
phase peak the harness recorded (phase_peak_bytes: forward,
backward, optimizer; prefill, decode) and the parameter counts. A phase peak must be within --tol
percent, unless the row names it in "known" (error_pct +- half_width and the reason): then it must
stay inside that band (a figure that leaves it, either way, fails: a regression, or a fix whose
row must be updated). Exits 1 on any failure; prints one line per row and a summary."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


SCENARIO_KEYS = ("id", "model", "mode", "training", "inference", "lora", "engine", "parallelism", "hardware",
                 "vision", "vllm")
PHASES = ("forward", "backward", "optimizer", "prefill", "decode")


def estimate(cli, sc, folder, extra=()):
    with tempfile.NamedTemporaryFile("w", suffix=".json", dir=folder, delete=False) as f:
        json.dump(sc, f)
        path = f.name
    try:
        p = subprocess.run([cli, "estimate", "--scenario", path, "--json"] + list(extra), capture_output=True, text=True,
                           timeout=120)
    finally:
        os.unlink(path)
    if p.returncode:
        return None, (p.stderr or p.stdout).strip()
    return json.loads(p.stdout), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", nargs="+")
    ap.add_argument("--cli", default="examples/llmmem")
    ap.add_argument("--tol", type=float, default=1.0)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    fails = n = skipped = refused = 0
    errs = []
    for path in a.rows:
        folder = os.path.dirname(os.path.abspath(path))
        for line in open(path):
            row = json.loads(line)
            if "not_run" in row or "harness_error" in row:
                skipped += 1
                why = row.get("not_run") or row.get("harness_error")
                if a.verbose:
                    print(f"--   {row['id']}: no harness figures: {why[:150]}")
                continue
            h = row["harness"]
            sc = {k: v for k, v in row.items() if k not in ("harness", "versions", "assumptions", "known")}
            sc = {k: v for k, v in sc.items() if k in SCENARIO_KEYS}
            out, err = estimate(a.cli, sc, folder, row.get("cli_args", ()))
            n += 1
            if out is None:
                if row.get("library_refuses"):  # expected, and said why in the row
                    refused += 1
                    print(f"ok   {row['id']:6s} refused by the library, as the row says: {err[:120]}")
                    continue
                print(f"FAIL {row['id']}: the library refused: {err}")
                fails += 1
                continue
            if row.get("library_refuses"):
                msgs_pre = [f"the row says the library refuses ({row['library_refuses'][:80]}), it estimated"]
            else:
                msgs_pre = []
            msgs, cols = list(msgs_pre), []
            for k in ("params", "trainable_params"):
                if k in h and out.get(k) != h[k]:
                    kn = row.get("known", {}).get(k)
                    if kn and kn["error_pct"] == out.get(k) - h[k]:  # a known count difference
                        cols.append(f"{k} {out.get(k) - h[k]:+d} KNOWN")
                    else:
                        msgs.append(f"{k} {out.get(k)} != harness {h[k]}")
            for ph, hv in sorted(h["phase_peak_bytes"].items()):
                if ph not in PHASES:
                    continue
                lv = out.get("phases", {}).get(ph, {}).get("total")
                if lv is None:
                    msgs.append(f"no {ph} phase in the estimate")
                    continue
                e = 100.0 * (lv - hv) / hv
                errs.append(abs(e))
                kn = row.get("known", {}).get(ph)
                if kn:
                    lo, hi = kn["error_pct"] - kn["half_width"], kn["error_pct"] + kn["half_width"]
                    ok = lo <= e <= hi
                    cols.append(f"{ph} {e:+.2f}% KNOWN")
                    if not ok:
                        msgs.append(f"{ph} {e:+.2f}% left its known band [{lo:+.2f}, {hi:+.2f}] ({kn['reason']})")
                else:
                    cols.append(f"{ph} {e:+.2f}%")
                    if abs(e) > a.tol:
                        msgs.append(f"{ph} {e:+.2f}% beyond {a.tol}%")
            status = "FAIL" if msgs else "ok  "
            fails += bool(msgs)
            print(f"{status} {row['id']:6s} {os.path.basename(row['model']['hf_config']):22s} " + ", ".join(cols)
                  + ("; " + "; ".join(msgs) if msgs else ""))
    errs.sort()
    med = errs[len(errs) // 2] if errs else 0.0
    print(f"{n} rows compared ({refused} refused as stated), {skipped} without harness figures (reason in the "
          f"row), {len(errs)} phase peaks: median |error| {med:.2f}%, max {errs[-1] if errs else 0:.2f}%; "
          f"{fails} failing")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
