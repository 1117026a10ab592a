#!/usr/bin/env python3
"""Re-predicts the published training peak measurements of test/data/anchors/training/.

usage: anchors.py [--cli examples/llmmem] [--median 5] [--max 15]

Each anchor (trNNN.json) carries an "llmmem" block: the framework config it is
read from (a torchtune recipe YAML under configs/, through the library's reader)
and/or parameter flags, the result key that is compared with the reported figure
(peak_allocated_bytes for allocated or active, peak_reserved_bytes for reserved:
like with like), the assumptions made to map the source's settings, and, only for
anchors of low confidence, a reason to leave it out of the bound. The table shows
every anchor; the bound (median |error| and worst |error|) is over those included.
Exit status 1 when an estimate fails or the bound is not met."""
import argparse, glob, json, os, statistics, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--cli", default="examples/llmmem")
ap.add_argument("--median", type=float, default=5.0, help="bound on the median |error| in percent")
ap.add_argument("--max", type=float, default=15.0, help="bound on the worst |error| in percent")
a = ap.parse_args()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(root)
base = "test/data/anchors/training"

METRIC = {"peak_allocated_bytes": "alloc", "peak_reserved_bytes": "reserved"}


def reported_bytes(rep):
    # GB where the source printed GB (LitGPT, torchtune v0.1), else GiB
    return rep["gb"] * 1e9 if "gb" in rep else rep["gib"] * 2**30


def model_path(mc):
    return os.path.join("test/data", mc) if mc.startswith("anchors/") else os.path.join("test/data/configs", mc)


def metric_word(anchor):
    m = anchor["reported"]["metric"].lower()
    for w in ("active", "reserved", "allocated"):
        if m.startswith("peak " + w) or m.startswith("peak memory " + w) or ("peak " + w) in m[:40]:
            return w
    return "allocated"


rows, fails = [], []
for path in sorted(glob.glob(os.path.join(base, "tr*.json"))):
    an = json.load(open(path))
    blk = an.get("llmmem")
    if not blk:
        fails.append(f"{an['id']}: no llmmem block")
        continue
    if "excluded" in blk and an["confidence"] != "low":
        fails.append(f"{an['id']}: excluded but its confidence is {an['confidence']} (only low may be left out)")
    args = [a.cli, "estimate", "--hf-config", model_path(an["model_config"]), "--json"]
    if "framework_config" in blk:
        args += ["--framework-config", os.path.join(base, blk["framework_config"])]
    for k, v in blk.get("params", {}).items():
        args += ["--" + k.replace("_", "-"), str(v)]
    cp = subprocess.run(args, capture_output=True, text=True)
    if cp.returncode:
        fails.append(f"{an['id']}: {cp.stderr.strip()}")
        continue
    res = json.loads(cp.stdout)
    rep = reported_bytes(an["reported"])
    pred = res[blk["compare"]]
    err = (pred - rep) / rep * 100
    rows.append(dict(id=an["id"], fw=an["framework"].split(" (")[0][:30], model=an["model"].split("/")[-1][:26],
                     gpu=(an["gpu"].split(" (")[0] + f" x{an['num_gpus']}")[:22], rep=rep, what=metric_word(an),
                     cmp=METRIC[blk["compare"]], pred=pred, err=err, conf=an["confidence"],
                     excluded=blk.get("excluded")))

print(f"{'anchor':6} {'framework':30} {'model':26} {'GPU':22} {'reported':>9} {'measures':9} "
      f"{'predicted':>9} {'compared':8} {'error':>7}  conf")
for r in rows:
    print(f"{r['id']:6} {r['fw']:30} {r['model']:26} {r['gpu']:22} {r['rep']/2**30:7.2f}Gi {r['what']:9} "
          f"{r['pred']/2**30:7.2f}Gi {r['cmp']:8} {r['err']:+6.1f}%  {r['conf']}{'  (excluded)' if r['excluded'] else ''}")
inc = [r for r in rows if not r["excluded"]]
for r in rows:
    if r["excluded"]:
        print(f"  {r['id']} left out of the bound ({r['err']:+.1f}%): {r['excluded']}")
if inc:
    errs = [abs(r["err"]) for r in inc]
    med, worst = statistics.median(errs), max(errs)
    w = max(inc, key=lambda r: abs(r["err"]))
    print(f"{len(inc)} of {len(rows)} anchors in the bound: median |error| {med:.1f}% (bound {a.median:g}%), "
          f"worst {worst:.1f}% ({w['id']}, bound {a.max:g}%)")
    if med > a.median:
        fails.append(f"median |error| {med:.1f}% above {a.median:g}%")
    if worst > a.max:
        fails.append(f"worst |error| {worst:.1f}% ({w['id']}) above {a.max:g}%")
for f in fails:
    print("FAIL", f)
sys.exit(1 if fails else 0)
