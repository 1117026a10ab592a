#!/usr/bin/env bash
# The flagship presets against transformers' exact counts and the vendors' published
# figures (test/data/presets-published.tsv says how each vendor rounds and what it counts).
set -eu
cd "$(dirname "$0")/.."
python3 - examples/llmmem test/data/presets-published.tsv <<'PY'
import json, math, subprocess, sys
cli, tsv = sys.argv[1], sys.argv[2]
bad, n = [], 0
def agrees(value_b, published, rule):
    p = float(published)
    step = 10 ** math.floor(math.log10(p)) if rule == "round100" else (0.1 if "." in published else 1.0)
    if rule == "round100":
        step = 100.0
    return (math.floor(value_b / step + 1e-9) * step if rule == "floor" else round(value_b / step) * step) == p \
        or abs((math.floor(value_b / step) if rule == "floor" else round(value_b / step)) * step - p) < 1e-6
for line in open(tsv):
    if line.startswith("#") or not line.strip():
        continue
    preset, exact, tot, rule, act, arule, src = (line.rstrip("\n").split("\t") + [""] * 7)[:7]
    d = json.loads(subprocess.run([cli, "model", "--preset", preset, "--json"], capture_output=True,
                                  text=True, check=True).stdout)
    n += 1
    # composites count the full model: a composite whose AutoModelForCausalLM class is the
    # text model (llama4, qwen3_5) reports that class as params and the towers apart
    d["params"] += d.get("vision_tower_params", 0)
    msg = f"{preset:26s} {d['params']:>17,}"
    if d["params"] != int(exact):
        bad.append(f"{preset}: {d['params']:,} parameters, transformers counts {int(exact):,}")
    if tot:
        v = d["params"] - (d["components"]["head"] if rule == "round-minus-head" else 0)
        r = "floor" if rule == "floor" else "round100" if rule == "round100" else "round"
        ok = agrees(v / 1e9, tot, r)
        msg += f"  published {tot}B ({rule}): {'ok' if ok else 'DIFFERS'}"
        if not ok:
            bad.append(f"{preset}: {v / 1e9:.2f}B does not give the published {tot}B ({rule})")
    if act:
        how, conv = arule.split(":")
        a = d["active_params"]
        if conv in ("active-emb", "active-emb-head"):
            a -= d["components"]["embedding"]
        if conv == "active-emb-head":
            a -= d["components"]["head"]
        if conv == "active-text":
            a -= sum(d["components"].get(k, 0) for k in ("vision", "audio"))
        ok = agrees(a / 1e9, act, how)
        msg += f"  active {a / 1e9:.2f}B vs {act}B ({arule}): {'ok' if ok else 'DIFFERS'}"
        if not ok:
            bad.append(f"{preset}: active {a / 1e9:.2f}B does not give the published {act}B ({arule})")
    print(msg)
for b in bad:
    print("FAIL", b)
print(f"flagship presets: {n} checked, {len(bad)} failing")
sys.exit(1 if bad else 0)
PY
