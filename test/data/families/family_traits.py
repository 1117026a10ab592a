#!/usr/bin/env python3
"""Derive per-family tensor traits from families-5.17.jsonl (no model is built).

usage: python family_traits.py [--families families-5.17.jsonl] [--out family-traits-5.17.json]

For each family that built: which parameters are fused projections, whether routed
experts are stored as 3-D tensors or as per-expert Linear modules, which tensors are
biases, which parameters are bare (not a .weight/.bias of a module), which layers hold
which tensors, and the tensors outside the decoder-layer list.
"""

import argparse
import json
import re

FUSED = re.compile(r"(qkv|c_attn|query_key_value|Wqkv|gate_up|in_proj|w13|kv_proj_with|qkvz|in_proj_ba|"
                   r"fused|wqkv|gate_up_proj|qkv_proj)", re.I)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--families", default="families-5.17.jsonl")
    ap.add_argument("--out", default="family-traits-5.17.json")
    a = ap.parse_args()
    out = {}
    for line in open(a.families):
        r = json.loads(line)
        if "about" in r or "error" in r:
            continue
        t = {"class": r["class"], "params": r["params"], "tied": r["tied"], "in_scope": r["in_scope"]}
        ts = r["tensors"]
        lp = r.get("layers_path")
        t["layers_path"] = lp
        t["experts_3d"] = sorted({e["name"] + " " + str(e["shape"]) for e in ts
                                  if ".experts." in e["name"] + "." and len(e["shape"]) >= 3
                                  and "shared" not in e["name"]})
        t["experts_per_module"] = sorted({e["name"] for e in ts if re.search(r"experts\.\{j\}\.", e["name"])})
        t["fused_projections"] = sorted({e["name"] for e in ts if FUSED.search(e["name"].rsplit(".", 1)[0] + "."
                                                                               + e["name"].rsplit(".", 1)[-1])})
        t["biases"] = sorted({e["name"] for e in ts if e["name"].endswith(".bias") or e["name"].endswith("_bias")})
        t["bare_parameters"] = sorted({e["name"] for e in ts
                                       if not (e["name"].endswith(".weight") or e["name"].endswith(".bias"))})
        t["outside_layers"] = [{"name": e["name"], "shape": e["shape"], "n": e["n"]} for e in ts if "layers" not in e]
        per_layer_variation = any(len(e.get("layers", [])) not in (0, r["layer_pattern"]["n_layers"]) for e in ts) \
            if r.get("layer_pattern") else None
        t["layers_differ"] = per_layer_variation
        t["norm_tensors_per_layer"] = sorted({e["name"].split("{i}.", 1)[-1] for e in ts
                                              if "{i}" in e["name"] and re.search(r"norm|ln_|layernorm", e["name"], re.I)})
        t["peft_all_linear"] = r.get("peft_all_linear")
        pg = r.get("peft_get_peft_model", {})
        t["peft_get_peft_model_same_as_all_linear"] = pg.get("same_as_all_linear", None) if "error" not in pg else None
        if "error" in pg:
            t["peft_get_peft_model_error"] = pg["error"][:160]
        if pg.get("target_parameters"):
            t["peft_target_parameters"] = pg["target_parameters"]
        t["layer_kinds"] = [{k: v for k, v in kd.items() if k in ("layers", "layer_type", "mixer", "ffn", "moe",
                                                                   "layers_block_type")}
                            for kd in (r.get("layer_pattern") or {}).get("kinds", [])]
        t["decided_by"] = (r.get("layer_pattern") or {}).get("decided_by")
        out[r["model_type"]] = t
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
