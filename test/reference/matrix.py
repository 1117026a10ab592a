#!/usr/bin/env python3
"""The coverage matrix: every in-scope family of transformers 5.17 x the recipes below, run
through the reference harness (harness.py), written as scenarios and harness rows.

usage: matrix.py scenarios [--families a,b]      writes test/data/reference/matrix.jsonl and the
                                                 cut configs test/data/reference/configs/matrix/
       matrix.py run [--only ids] [--timeout S]  runs harness.py over matrix.jsonl into
                                                 /tmp/llmmem-matrix/matrix.harness.out.jsonl
                                                 (resumable: ids already there are skipped)
       matrix.py trim                            writes test/data/reference/matrix.harness.jsonl
                                                 from that output, with the library's known
                                                 bands (matrix-known.txt)

Families: ../shared/groundtruth/transformers-5.17-families.jsonl, in_scope rows, each with its
default config (what save_pretrained writes). Widths are the family's own (full); the layer
count is cut (every term of the library is linear in the layers, one pattern period of layer
kinds kept: layer_types' shortest prefix holding every kind, at least 2 layers, and MoE's dense
first layers plus one MoE layer); the row's config file carries the cut, `layers_cut` in the
row names it.

Recipes (training: AdamW, micro-batch 2 x 1024 tokens; generate: 2 x 1024 prompt, 8 steps):
  bf16      bf16 weights and compute, SDPA, no checkpointing
  amp       fp32 weights under bf16 autocast, SDPA
  lora      bf16, peft LoRA r16 on the family's own target names (peft's
            TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING; families it does not map: the
            attention's q_proj and v_proj where the family has them, else all-linear)
  ckpt      bf16, full activation checkpointing
  eager     bf16, eager attention
  generate  bf16 weights, SDPA, HF prefill + decode (measure.py's loop)
  qlora     not run: bitsandbytes' 4-bit Linear quantises on a CUDA device (Params4bit.cuda()),
            which fake CPU tensors cannot stand in for; rows say so
Families whose model refuses SDPA (attention-free mixers) run eager in the SDPA recipes, noted.
"""

import argparse
import copy
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FAMILIES = os.path.join(ROOT, "..", "shared", "groundtruth", "transformers-5.17-families.jsonl")
DATA = os.path.join(ROOT, "test", "data", "reference")
SCEN = os.path.join(DATA, "matrix.jsonl")
OUT = os.environ.get("MATRIX_OUT", "/tmp/llmmem-matrix/matrix.harness.out.jsonl")
RECIPES = ["bf16", "amp", "lora", "ckpt", "eager", "generate", "qlora"]
B, S, DECODE = 2, 1024, 8
HW = {"gpu": "H200", "gpu_memory_gib": 139.8}


def cut_layers(mt, cfgd):
    """The config with fewer layers, and (from, to)."""
    from transformers import AutoConfig
    def unjson(v):  # the families file writes inf as {"__float__": "Infinity"}
        if isinstance(v, dict) and set(v) == {"__float__"}:
            return float(v["__float__"])
        if isinstance(v, list):
            return [unjson(x) for x in v]
        return v
    d = {k: unjson(v) for k, v in cfgd.items() if k not in ("architectures", "transformers_version")}
    cfg = AutoConfig.for_model(mt, **{k: v for k, v in d.items() if k != "model_type"})
    tc = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
    L = getattr(tc, "num_hidden_layers", None)
    if not isinstance(L, int) or L <= 2:
        return cfg, (L, L)
    k = 2
    lt = getattr(tc, "layer_types", None)
    if isinstance(lt, (list, tuple)) and lt:
        kinds = set(lt)
        for i in range(1, len(lt) + 1):
            if set(lt[:i]) == kinds:
                k = max(k, i)
                break
    for key in ("first_k_dense_replace", "num_dense_layers", "first_dense_layers"):
        v = getattr(tc, key, None)
        if isinstance(v, int) and v > 0:
            k = max(k, v + 1)
    for key in ("attn_layer_period", "expert_layer_period", "global_attn_every_n_layers", "full_attention_interval",
                "sliding_window_pattern", "hybrid_layer_period"):
        v = getattr(tc, key, None)
        if isinstance(v, int) and v > 1:
            k = max(k, v)
    k = min(k, L)
    tc.num_hidden_layers = k
    if isinstance(lt, (list, tuple)) and lt:
        try:
            tc.layer_types = list(lt[:k])
        except AttributeError:  # derived from other keys (a period): follows the cut count
            pass
    for key in ("mlp_only_layers",):
        v = getattr(tc, key, None)
        if isinstance(v, list):
            setattr(tc, key, [i for i in v if i < k])
    for key, v in list(tc.to_dict().items()):  # per-layer lists (mlp_layer_types, ...) follow the cut
        if key != "layer_types" and isinstance(v, list) and len(v) == L:
            try:
                setattr(tc, key, list(v[:k]))
            except AttributeError:
                pass
    return cfg, (L, k)


def lora_targets(mt):
    from peft.utils.constants import TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING as M
    if mt in M:
        return list(M[mt]), "peft's default targets for " + mt
    return None, None


def scenarios(a):
    os.makedirs(os.path.join(DATA, "configs", "matrix"), exist_ok=True)
    fams = [json.loads(l) for l in open(FAMILIES)][1:]
    fams = [f for f in fams if f.get("in_scope")]
    if a.families:
        want = set(a.families.split(","))
        fams = [f for f in fams if f["model_type"] in want]
    rows = []
    for f in fams:
        mt = f["model_type"]
        try:
            cfg, (L, k) = cut_layers(mt, f["config"])
        except Exception as e:
            rows.append({"id": f"{mt}.config", "family": mt, "not_run": f"config: {e!r}"[:300]})
            continue
        path = os.path.join("configs", "matrix", mt + ".json")
        with open(os.path.join(DATA, path), "w") as fh:
            fh.write(cfg.to_json_string())
        targets, why = lora_targets(mt)
        for rc in RECIPES:
            r = {"id": f"{mt}.{rc}", "family": mt, "recipe": rc, "layers_cut": [L, k],
                 "model": {"hf_config": path}, "engine": {"type": "single"}, "hardware": HW}
            if rc == "generate":
                r.update(mode="inference", inference={"batch_size": B, "prompt_len": S, "decode_len": DECODE,
                                                      "weights_dtype": "bf16", "kv_cache_dtype": "bf16",
                                                      "attention": "sdpa"})
            else:
                amp = rc == "amp"
                r.update(mode="training", training={
                    "micro_batch_size": B, "seq_len": S, "param_dtype": "fp32" if amp else "bf16",
                    "compute_dtype": "bf16", "optimizer": "adamw",
                    "attention": "eager" if rc == "eager" else "sdpa",
                    "activation_checkpointing": "full" if rc == "ckpt" else "none"})
                if rc in ("lora", "qlora"):
                    r["lora"] = {"rank": 16, "alpha": 32, "target_modules": targets or "__family__"}
                    r["lora_targets_from"] = why or "the family's q_proj/v_proj, else all-linear"
                if rc == "qlora":
                    r["not_run"] = ("bitsandbytes' 4-bit Linear quantises its weight on a CUDA device "
                                    "(Params4bit.cuda()); fake CPU tensors cannot stand in for it")
            rows.append(r)
    with open(SCEN, "w") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    print(f"{len(rows)} rows, {len(fams)} families -> {SCEN}")


def run(a):
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    cmd = [sys.executable, os.path.join(HERE, "harness.py"), SCEN, "--out", OUT, "--timeout", str(a.timeout)]
    if a.only:
        cmd += ["--only", a.only]
    return subprocess.call(cmd)


def trim(a):
    """matrix.harness.jsonl: one row per scenario: the harness's figures (trim.py's fields), or
    why it has none (not_run, harness_error); rows named in matrix-known.txt carry their band."""
    sys.path.insert(0, HERE)
    known = {}
    kpath = os.path.join(DATA, "matrix-known.txt")
    if os.path.exists(kpath):
        for line in open(kpath):
            if line.strip() and not line.startswith("#"):
                rid, ph, err, hw, why = line.split(None, 4)
                known.setdefault(rid, {})[ph] = {"error_pct": float(err), "half_width": float(hw),
                                                 "reason": why.strip()}
    from trim import KEEP
    rows = {}
    for line in open(OUT):
        r = json.loads(line)
        sc = r["scenario"]
        row = {"id": r["id"], **{k: v for k, v in sc.items() if k != "not_run"}}
        if "not_run" in r:
            row["not_run"] = r["not_run"]
        elif "harness" not in r:
            row["harness_error"] = r.get("error", "no result")
            row["versions"] = r.get("versions")
        else:
            h = r["harness"]
            if h.get("lora_targets"):  # the family's targets the run resolved
                row["lora"] = dict(row["lora"], target_modules=h["lora_targets"])
            elif row.get("lora", {}).get("target_modules") == "__family__":
                for n in h.get("notes", []):
                    if n.startswith("LoRA targets: "):
                        t = n[len("LoRA targets: "):]
                        row["lora"] = dict(row["lora"], target_modules=t if t == "all-linear" else eval(t))
            row.update(versions=r["versions"], assumptions=r["assumptions"],
                       harness={k: h[k] for k in KEEP if k in h})
            row["harness"]["replay"] = {k: h["replay"][k] for k in ("peak_allocated_bytes", "peak_reserved_bytes")}
            if r["id"] in known:
                kn = dict(known[r["id"]])
                if "refused" in kn:
                    row["library_refuses"] = kn.pop("refused")["reason"]
                if kn:
                    row["known"] = kn
        rows[r["id"]] = row
    path = os.path.join(DATA, "matrix.harness.jsonl")
    with open(path, "w") as fh:
        for rid in sorted(rows):
            fh.write(json.dumps(rows[rid]) + "\n")
    print(f"{len(rows)} rows -> {path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["scenarios", "run", "trim"])
    ap.add_argument("--families")
    ap.add_argument("--only")
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args()
    return {"scenarios": scenarios, "run": run, "trim": trim}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main() or 0)
