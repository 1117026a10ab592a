#!/usr/bin/env python3
"""Count the parameters of every decoder-only LLM family of transformers 5.17 on the meta device.

usage: python count_families.py [--out families-5.17.jsonl] [--only a,b,c] [--no-peft-check]

For each model_type: the family's config class with no arguments, saved as
save_pretrained writes it (to_json_string), AutoModelForCausalLM.from_config
under `with torch.device("meta")`, then the record described in README.md.
"""

import argparse
import gc
import json
import sys
import time
import traceback

import famlib
import torch
import transformers
from transformers import CONFIG_MAPPING
from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES


def family_list(shared):
    fams = []
    src = {}
    for mt in shared:
        fams.append(mt)
        src[mt] = "shared"
    for mt in famlib.BRIEF_FAMILIES:
        if mt not in src:
            fams.append(mt)
            src[mt] = "brief"
    for mt in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        if mt not in src:
            fams.append(mt)
            src[mt] = "extra"
    # composite VLM families the brief names whose model_type has no AutoModelForCausalLM class
    for mt in COMPOSITE_EXTRAS:
        if mt not in src:
            fams.append(mt)
            src[mt] = "extra-composite"
    return fams, src


COMPOSITE_EXTRAS = ["mistral3"]


def one(mt, shared, source, peft_check):
    rec = {"model_type": mt, "source": source}
    if mt not in CONFIG_MAPPING_NAMES:
        rec["error"] = f"model_type {mt!r} is not registered in transformers {transformers.__version__}"
        return rec
    cfg = CONFIG_MAPPING[mt]()
    saved = famlib.saved_config(cfg)
    sh = shared.get(mt)
    if sh is not None and saved != sh["config"]:
        rec["config_note"] = "default config differs from the shared file's; the shared config was used"
        saved = sh["config"]
        cfg = famlib.config_from_saved(mt, saved)
    t = time.time()
    cls = None
    if mt not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES
        cls = getattr(transformers, MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES[mt])
        rec["note"] = (f"{mt} has no AutoModelForCausalLM class in 5.17; counted with {cls.__name__} "
                       "(AutoModelForImageTextToText)")
    d = famlib.describe(mt, cfg, detail=True, with_peft_check=peft_check, cls=cls)
    rec.update({k: d[k] for k in ("class", "params", "tied")})
    if sh is not None:
        rec["in_scope"] = sh["in_scope"]
    else:
        rec["in_scope"] = mt not in famlib.EXTRA_OUT_OF_SCOPE
    rec["config"] = saved
    if sh is not None:
        rec["matches_shared"] = (d["params"] == sh["params"] and d["class"] == sh["class"] and d["tied"] == sh["tied"])
        if not rec["matches_shared"]:
            rec["shared_values"] = {k: sh[k] for k in ("class", "params", "tied")}
    for k in d:
        if k not in ("model_type", "class", "params", "tied"):
            rec[k] = d[k]
    # invariant: the tensor table adds up to params
    tot = 0
    for e in d["tensors"]:
        n = 1
        for s in e["shape"]:
            n *= s
        tot += n * e["n"]
    assert tot == d["params"], (mt, tot, d["params"])
    # composite (multimodal) configs
    if hasattr(cfg, "sub_configs") and cfg.sub_configs and cfg.get_text_config() is not cfg:
        comp = {"text_model": famlib.text_only(cfg)}
        fm = famlib.full_multimodal(cfg, d["class"])
        if fm is not None:
            comp["full_model"] = fm
        comp["sub_configs"] = sorted(cfg.sub_configs)
        rec["composite"] = comp
    rec["seconds"] = round(time.time() - t, 2)
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="families-5.17.jsonl")
    ap.add_argument("--only", default=None)
    ap.add_argument("--no-peft-check", action="store_true")
    a = ap.parse_args()
    header, shared = famlib.load_shared()
    fams, src = family_list(shared)
    if a.only:
        keep = a.only.split(",")
        fams = [f for f in fams if f in keep] + [f for f in keep if f not in src]
    import peft

    about = {
        "about": "transformers 5.17 causal-LM families built from their default config on the meta device; "
        "fields model_type/class/params/tied/in_scope/config as in the shared groundtruth file, plus tensors, "
        "linear_modules, peft_all_linear, layer_pattern, composite (see README.md)",
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "peft": peft.__version__,
        "python": sys.version.split()[0],
    }
    n_ok = n_err = 0
    with open(a.out, "w") as f:
        f.write(json.dumps(about) + "\n")
        for mt in fams:
            t = time.time()
            try:
                rec = one(mt, shared, src.get(mt, "cli"), not a.no_peft_check)
            except Exception as e:
                rec = {"model_type": mt, "source": src.get(mt, "cli"), "error": repr(e)[:500],
                       "traceback_tail": traceback.format_exc().strip().splitlines()[-3:]}
            if "error" in rec:
                n_err += 1
            else:
                n_ok += 1
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(f"{mt:28s} {rec.get('class', '-'):45s} {rec.get('params', rec.get('error'))} "
                  f"{'' if rec.get('matches_shared', True) else 'MISMATCH'} {time.time() - t:.1f}s",
                  file=sys.stderr, flush=True)
            gc.collect()
    print(f"ok {n_ok} errors {n_err}", file=sys.stderr)


if __name__ == "__main__":
    main()
