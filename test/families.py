#!/usr/bin/env python3
"""The model layer against transformers' own parameter counts (issue 14).

usage: families.py [--cli examples/llmmem] [--pending FILE] [-v] FILE.jsonl...

Each line of a reference file (format of ../shared/groundtruth/transformers-5.17-families.jsonl;
test/data/families/README.md says how each file was made) is a family's config.json and the
parameter count of the transformers class built from it on the meta device. For every line:
- in_scope true: `llmmem model --hf-config` must give exactly `params`; where the record lists
  the modules peft's target_modules="all-linear" wraps (`peft_all_linear_modules`), the
  model's Linear tensors (`llmmem model --json` "tensors", lm_head left out) must be the
  same modules, so that LoRA target names resolve as peft resolves them;
- in_scope false: it must be refused with LLMMEM_E_UNSUPPORTED.
A composite (a multimodal ForConditionalGeneration config: "composite" in the model JSON,
its towers and projectors in components.vision and "vision_tensors") is compared as the
record counted it: the whole model when the record's class is the composite's, the text
model alone (params less components.vision, the text "tensors") when the record's class is
a ForCausalLM that AutoModelForCausalLM built from the composite config; the record's
composite.full_model.params, when present, must then equal the whole count.
A family listed in --pending (one model_type a line, '#' comments) is not in the registry
yet: it must then be refused or estimated with "generic": true (the approximate flag),
never silently. Prints one line per family with -v and a summary; exit 1 on any failure."""
import argparse, json, os, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--cli", default="examples/llmmem")
ap.add_argument("--pending", default=None)
ap.add_argument("--refused", default=None, help="records whose config the modeling code cannot run: "
                "tag, a fragment of the expected refusal, why (tab-separated)")
ap.add_argument("-v", action="store_true")
ap.add_argument("files", nargs="+")
a = ap.parse_args()
refused = {}
if a.refused:
    for line in open(a.refused):
        line = line.rstrip("\n")
        if line and not line.startswith("#"):
            tag, frag, why = line.split("\t")
            refused[tag] = frag
pending = set()
if a.pending:
    for line in open(a.pending):
        line = line.split("#", 1)[0].strip()
        if line:
            pending.add(line)

tmp = tempfile.mkdtemp()
fails, counted, seen = [], 0, set()


def norm_module(name):
    """model.layers.{i}.self_attn.q_proj -> self_attn.q_proj; other modules keep their path."""
    return name.split("{i}.", 1)[1] if "{i}." in name else name


def check(r, tag):
    global counted
    mt = r["model_type"]
    p = os.path.join(tmp, mt.replace("/", "_") + ".json")
    with open(p, "w") as f:
        json.dump(r["config"], f)
    cp = subprocess.run([a.cli, "model", "--hf-config", p, "--json"], capture_output=True, text=True)
    scope = r.get("in_scope", True)
    counted += 1
    if not scope:
        ok = cp.returncode != 0 and "LLMMEM_E_UNSUPPORTED" in cp.stderr
        return ok, "refused" if ok else f"out of scope but not refused: {cp.stdout[:80]}{cp.stderr[:120]}"
    if tag in refused:
        ok = cp.returncode != 0 and refused[tag] in cp.stderr
        return ok, "refused (the modeling code cannot run it)" if ok else f"not refused with \"{refused[tag]}\": {cp.stderr[:160]}"
    if cp.returncode:
        msg = "refused: " + cp.stderr.strip()[:160]
        return mt in pending, msg
    d = json.loads(cp.stdout)
    got = d["params"]
    # a composite whose AutoModelForCausalLM class is the text model (llama4, qwen3_5,
    # qwen3_5_moe): params is that class, vision_tower_params the towers it leaves out
    tower = d.get("vision_tower_params", 0)
    text_only = "composite" in d and r.get("class", "").endswith("ForCausalLM")
    if text_only:
        full = (r.get("composite") or {}).get("full_model", {}).get("params")
        if full is not None and full != got + tower:
            return False, f"composite OFF {100 * (got + tower - full) / full:+.3f}% ({got + tower:,} vs {full:,} of {r['composite']['full_model']['class']})"
        got -= d["components"]["vision"]
    elif tower and r.get("class", "").endswith("ForConditionalGeneration"):
        got += tower
    if d.get("generic") and mt not in pending:
        return False, f"estimated generically ({got:,} vs {r['params']:,}): the family needs its registry entry"
    if got != r["params"]:
        msg = f"OFF {100 * (got - r['params']) / r['params']:+.3f}% ({got:,} vs {r['params']:,})"
        if mt in pending:
            return d.get("generic", False), msg + (" generic" if d.get("generic") else " NOT flagged approximate")
        return False, msg
    want = r.get("peft_all_linear_modules")
    if want is not None and not d.get("generic"):
        tensors = d["tensors"] + ([] if text_only else d.get("vision_tensors", []))
        ours = {t["name"] for t in tensors if t["linear"] and t["kind"] != "head"}
        theirs = {norm_module(x) for x in want}
        if ours != theirs:
            return False, f"exact, but Linear modules differ from peft all-linear: ours-only {sorted(ours - theirs)}, peft-only {sorted(theirs - ours)}"
    if mt in pending:
        if d.get("generic"):
            return True, "exact by the generic entry (pending its registry entry)"
        return False, "exact: remove it from the pending list"
    return True, "exact"


for fn in a.files:
    for line in open(fn):
        r = json.loads(line)
        if "model_type" not in r or "config" not in r or "params" not in r:
            continue
        tag = f"{os.path.basename(fn)}:{r['model_type']}{':' + str(r['variant']) if 'variant' in r else ''}"
        ok, msg = check(r, tag)
        if not ok:
            fails.append(f"{tag}: {msg}")
        if a.v:
            print(f"{'ok  ' if ok else 'FAIL'} {tag:50s} {msg}")
        seen.add(r["model_type"])
for f in fails:
    print("FAIL", f)
stale = sorted(pending - seen)
for s in stale:
    print("FAIL pending family not in any reference file:", s)
print(f"families: {counted} records checked, {len(fails) + len(stale)} failing, {len(pending)} pending")
sys.exit(1 if fails or stale else 0)
