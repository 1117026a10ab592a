#!/usr/bin/env python3
"""Three variant configs per in-scope family, each counted on the meta device.

usage: python make_variants.py [--families families-5.17.jsonl] [--out variants-5.17.jsonl] [--only a,b]

Each variant starts from the family's saved default config (what save_pretrained
writes), changes the main integer keys (layers, hidden, heads, kv heads, head_dim,
intermediate sizes, expert counts, top-k, shared experts, dense-first layers,
per-layer type lists, vocab, tie_word_embeddings), rebuilds the config with
ConfigClass.from_dict and builds AutoModelForCausalLM on meta.  When the full set
of changes does not build, change groups are added one at a time and a group that
breaks the build is left out (recorded in "dropped").  The record's config is the
variant's own to_json_string(), i.e. exactly what a C reader would be handed.
"""

import argparse
import copy
import json
import math
import sys
import time
import traceback

import famlib
from transformers import CONFIG_MAPPING

LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")
HIDDEN_KEYS = ("hidden_size", "n_embd", "d_model", "dim")
HEAD_KEYS = ("num_attention_heads", "n_head", "num_heads", "n_heads")
KV_KEYS = ("num_key_value_heads", "multi_query_group_num", "n_kv_heads", "num_kv_heads")
INTER_KEYS = ("intermediate_size", "ffn_dim", "n_inner", "ffn_hidden_size", "moe_intermediate_size",
              "shared_expert_intermediate_size", "expert_intermediate_size", "moe_ffn_hidden_size",
              "dense_intermediate_size", "shared_intermediate_size", "mlp_hidden_size", "ff_intermediate_size",
              "expert_ffn_hidden_size", "moe_shared_expert_intermediate_size")
EXPERT_KEYS = ("num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts", "n_experts",
               "num_routed_experts")
TOPK_KEYS = ("num_experts_per_tok", "num_experts_per_token", "moe_topk", "moe_k", "top_k", "experts_per_token",
             "num_selected_experts", "moe_top_k")
SHARED_KEYS = ("n_shared_experts", "num_shared_experts", "moe_num_shared_experts", "shared_experts")
DENSE_FIRST_KEYS = ("first_k_dense_replace", "num_dense_layers", "first_k_dense", "moe_layer_start_index")
SECONDARY_KEYS = ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
                  "ssm_state_size", "mamba_d_state", "state_size", "linear_key_head_dim", "linear_value_head_dim",
                  "linear_num_key_heads", "linear_num_value_heads", "mamba_n_heads", "mamba_head_dim",
                  "mamba_d_conv", "conv_kernel", "linear_conv_kernel_dim", "global_head_dim", "num_global_key_value_heads",
                  "hidden_size_per_layer_input", "num_kv_shared_layers", "mamba_expand", "expand", "time_step_rank",
                  "n_groups", "mamba_n_groups", "attention_head_dim")


def r64(x, m=64):
    return max(m, int(round(x / m)) * m)


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def tile(seq, n):
    return [seq[i % len(seq)] for i in range(n)]


def text_part(d):
    """(dict to mutate, path) -- the text_config of composite configs, else d."""
    if isinstance(d.get("text_config"), dict):
        return d["text_config"], "text_config"
    return d, None


def full_values(cfg):
    tc = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
    return json.loads(tc.to_json_string(use_diff=False)), tc


def first_key(full, keys):
    for k in keys:
        if k in full and isinstance(full[k], int) and not isinstance(full[k], bool):
            return k
    return None


def plan(variant, full, L):
    """Change groups for one variant: list of (group name, {key: value})."""
    groups = []
    lk = first_key(full, LAYER_KEYS)
    hk = first_key(full, HIDDEN_KEYS)
    nk = first_key(full, HEAD_KEYS)
    kk = first_key(full, KV_KEYS)
    H = full.get(hk) if hk else None
    nh = full.get(nk) if nk else None
    kv = full.get(kk) if kk else None
    hd = full.get("head_dim") if isinstance(full.get("head_dim"), int) else None
    newL = {0: 5, 1: 6, 2: 7}[variant]
    if L is not None and newL == L:
        newL += 1
    # 1. layers (first: it makes every later build cheap) + the per-layer lists.
    # Each new layer i copies old layer src[i]; every per-layer list / string / index
    # list / index-keyed dict is remapped through src, so the config stays consistent.
    g = {}
    if lk:
        g[lk] = newL
        per_list, per_str, idx_lists, idx_dicts = {}, {}, {}, {}
        for k, v in full.items():
            if k in LAYER_KEYS or not L or L < 2:
                continue
            if isinstance(v, list) and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v) and (
                    len(set(v)) == len(v) and sorted(v) == v and max(v) < L and (len(v) != L or v == list(range(L)))) and (
                    "layer" in k or "idx" in k or "ids" in k or "indices" in k):
                idx_lists[k] = v
            elif isinstance(v, list) and len(v) == L:
                per_list[k] = v
            elif isinstance(v, str) and len(v) == L and k != "model_type":
                per_str[k] = v
            elif isinstance(v, dict) and v and all(str(x).isdigit() for x in v) and "layer" in k:
                idx_dicts[k] = v

        def kind(j):
            return tuple([str(v[j]) for v in per_list.values()] + [v[j] for v in per_str.values()] +
                         [j in v for v in idx_lists.values()] +
                         [json.dumps(d.get(next((x for x in d if int(x) == j), None)), sort_keys=True) for d in idx_dicts.values()])

        order = list(range(L)) if variant != 2 else list(reversed(range(L)))
        src = tile(order, newL)
        kinds = {}
        for j in order:
            kinds.setdefault(kind(j), j)
        have = {kind(j) for j in src}
        missing = [kinds[k] for k in kinds if k not in have]
        pos = newL - 1
        for j in missing:
            if pos < 0:
                break
            # never overwrite the only carrier of a kind
            while pos >= 0 and sum(1 for x in src if kind(x) == kind(src[pos])) <= 1:
                pos -= 1
            if pos < 0:
                break
            src[pos] = j
            pos -= 1
        for k, v in per_list.items():
            g[k] = [v[j] for j in src]
        for k, v in per_str.items():
            g[k] = "".join(v[j] for j in src)
        for k, v in idx_lists.items():
            sv = set(v)
            nv = [i for i in range(newL) if src[i] in sv]
            g[k] = nv
        for k, d in idx_dicts.items():
            width = max(len(str(x)) for x in d)
            byint = {int(x): val for x, val in d.items()}
            g[k] = {str(i).zfill(width): byint[src[i]] for i in range(newL) if src[i] in byint}
        for k in DENSE_FIRST_KEYS:
            if k in full and isinstance(full[k], int) and not isinstance(full[k], bool):
                g[k] = {0: 1, 1: 2, 2: 0}[variant] if full[k] != {0: 1, 1: 2, 2: 0}[variant] else 3
        if "decoder_sparse_step" in full and variant == 1:
            g["decoder_sparse_step"] = 2
        if "moe_layer_freq" in full and isinstance(full["moe_layer_freq"], int) and variant == 1:
            g["moe_layer_freq"] = 2
        if "mlp_only_layers" in full and variant == 2 and not full.get("mlp_only_layers"):
            g["mlp_only_layers"] = [1]
    groups.append(("layers", g))
    # 2. hidden / heads / kv / head_dim
    g = {}
    if H and nh:
        phd = H // nh if H % nh == 0 else None
        if variant == 0:
            nh2 = max(2, nh // 2)
            if hd is None and phd:
                H2 = nh2 * phd
            else:
                H2 = r64(H / 2)
            kv2 = None
            if kv:
                cands = [d for d in divisors(nh2) if d <= max(1, kv // 2)] or [1]
                kv2 = max(cands)
                if kv2 == kv:
                    kv2 = 1 if kv != 1 else None
            g.update({hk: H2, nk: nh2})
            if kv2:
                g[kk] = kv2
            if hd is not None and phd and hd == phd and hd != H2 // nh2:
                g["head_dim"] = H2 // nh2 if H2 % nh2 == 0 else hd
        elif variant == 1:
            if kv and kv > 1:
                g[kk] = 1 if nh % 1 == 0 else kv
            elif kv == 1 and nh % 2 == 0:
                g[kk] = 2
            if hd is not None:
                g["head_dim"] = hd * 2 if hd <= 128 else hd // 2
        else:
            nh3 = max(2, (nh * 3) // 4)
            if hd is None and phd:
                H3 = nh3 * phd
            else:
                H3 = r64(H * 0.75)
            g.update({hk: H3, nk: nh3})
            if kv:
                cands = [d for d in divisors(nh3) if d <= kv] or [1]
                g[kk] = max(cands)
            if hd is not None and phd and hd == phd:
                g["head_dim"] = phd  # keep per-head width explicit
    groups.append(("attention", g))
    # 3. intermediate sizes
    g = {}
    f = {0: 0.5, 1: 1.5, 2: 0.75}[variant]
    for k in INTER_KEYS:
        v = full.get(k)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            g[k] = r64(v * f, 32)
    groups.append(("intermediate", g))
    # 4. experts / top-k / shared experts
    g = {}
    ek = first_key(full, EXPERT_KEYS)
    if ek and full[ek] > 1:
        E = full[ek]
        E2 = {0: max(4, E // 4), 1: E + 8, 2: max(4, E // 2)}[variant]
        g[ek] = E2
        tk = first_key(full, TOPK_KEYS)
        if tk:
            K = full[tk]
            K2 = {0: max(1, K // 2), 1: K + 1, 2: K + 2}[variant]
            g[tk] = min(K2, E2)
        for k in ("n_group", "topk_group"):
            if k in full and isinstance(full[k], int) and full[k] > 1:
                g["n_group"] = 1
                g["topk_group"] = 1
        sk = first_key(full, SHARED_KEYS)
        if sk:
            S = full[sk]
            g[sk] = {0: S + 1, 1: 0 if S else 2, 2: S + 2}[variant]
    groups.append(("experts", g))
    # 5. secondary dims (MLA ranks, SSM state, linear-attention heads, ...)
    g = {}
    for k in SECONDARY_KEYS:
        v = full.get(k)
        if isinstance(v, int) and not isinstance(v, bool) and v > 1:
            g[k] = {0: v // 2, 1: v * 2, 2: v + v // 2}[variant]
    groups.append(("secondary", g))
    # 6. vocab and tying
    g = {}
    if isinstance(full.get("vocab_size"), int):
        g["vocab_size"] = full["vocab_size"] + {0: 256, 1: 1000, 2: 77}[variant]
    groups.append(("vocab", g))
    return groups


def apply(saved, groups, tie_flip, model_type):
    d = copy.deepcopy(saved)
    d.pop("transformers_version", None)
    tgt, path = text_part(d)
    for _, g in groups:
        for k, v in g.items():
            tgt[k] = v
    if tie_flip is not None:
        # tie_word_embeddings can sit on the top-level config and/or the text config
        cfg = famlib.config_from_saved(model_type, saved)
        cur = getattr(cfg, "tie_word_embeddings", None)
        tc = cfg.get_text_config()
        curt = getattr(tc, "tie_word_embeddings", cur)
        new = not bool(curt if curt is not None else cur)
        d["tie_word_embeddings"] = new
        if path:
            tgt["tie_word_embeddings"] = new
    return d


def model_class(model_type):
    """None (AutoModelForCausalLM) or, for composite types without a causal-LM class (mistral3), the
    AutoModelForImageTextToText class."""
    from transformers.models.auto.modeling_auto import (MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
                                                        MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES)
    import transformers
    if model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        return None
    return getattr(transformers, MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES[model_type])


def try_build(model_type, d):
    with famlib.quiet():
        cfg = famlib.config_from_saved(model_type, d)
        rec = famlib.describe(model_type, cfg, detail=False, cls=model_class(model_type))
    return cfg, rec


def layer_kinds(model_type, cfg):
    with famlib.quiet():
        m = famlib.build_meta(cfg, model_class(mt))
    lp = famlib.find_layer_list(m)
    pat = famlib.layer_pattern(m, cfg, lp)
    out = None
    if pat:
        out = [{k: v for k, v in kd.items() if k != "children"} for kd in pat["kinds"]]
    del m
    return out


def one_variant(mt, saved, variant):
    cfg0 = famlib.config_from_saved(mt, saved)
    full, tc = full_values(cfg0)
    lk = first_key(full, LAYER_KEYS)
    L = full.get(lk) if lk else None
    groups = plan(variant, full, L)
    tie_flip = True if variant in (0, 2) else None
    dropped = []
    try:
        d = apply(saved, groups, tie_flip, mt)
        cfg, rec = try_build(mt, d)
    except Exception:
        # greedy: add groups one at a time, keep those that build
        kept = []
        for gname, g in groups:
            if not g:
                continue
            try:
                d = apply(saved, kept + [(gname, g)], None, mt)
                try_build(mt, d)
                kept.append((gname, g))
            except Exception as e:
                # try the keys of the group one by one
                sub_kept = {}
                for k, v in g.items():
                    try:
                        d = apply(saved, kept + [(gname, {**sub_kept, k: v})], None, mt)
                        try_build(mt, d)
                        sub_kept[k] = v
                    except Exception as e2:
                        dropped.append({"group": gname, "key": k, "value": v, "error": repr(e2)[:200]})
                if sub_kept:
                    kept.append((gname, sub_kept))
        if tie_flip:
            try:
                d = apply(saved, kept, True, mt)
                try_build(mt, d)
            except Exception as e:
                dropped.append({"group": "tie", "error": repr(e)[:200]})
                d = apply(saved, kept, None, mt)
        else:
            d = apply(saved, kept, None, mt)
        cfg, rec = try_build(mt, d)
    new_saved = famlib.saved_config(cfg)
    # what really changed (flattened, text config included)
    changed = {}
    f0 = famlib._flat_config(saved)
    f1 = famlib._flat_config(new_saved)
    for k in sorted(set(f0) | set(f1)):
        if k.endswith("transformers_version"):
            continue
        if f0.get(k, "<absent>") != f1.get(k, "<absent>"):
            changed[k] = [f0.get(k, "<absent>"), f1.get(k, "<absent>")]
    out = {"model_type": mt, "variant": variant, "class": rec["class"], "params": rec["params"],
           "tied": rec["tied"], "config": new_saved, "changed": changed}
    if dropped:
        out["dropped"] = dropped
    try:
        out["layer_kinds"] = layer_kinds(mt, cfg)
    except Exception as e:
        out["layer_kinds_error"] = repr(e)[:200]
    # the saved config must rebuild to the same count (what a C reader sees)
    cfg_re = famlib.config_from_saved(mt, new_saved)
    rec2 = famlib.describe(mt, cfg_re, detail=False, cls=model_class(mt))
    out["roundtrip_ok"] = rec2["params"] == rec["params"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--families", default="families-5.17.jsonl")
    ap.add_argument("--out", default="variants-5.17.jsonl")
    ap.add_argument("--only", default=None)
    a = ap.parse_args()
    fams = []
    with open(a.families) as f:
        for line in f:
            r = json.loads(line)
            if "about" in r or "error" in r or not r.get("in_scope"):
                continue
            fams.append(r)
    if a.only:
        keep = set(a.only.split(","))
        fams = [r for r in fams if r["model_type"] in keep]
    import torch
    import transformers
    with open(a.out, "w") as f:
        f.write(json.dumps({"about": "3 variant configs per in-scope transformers 5.17 causal-LM family, params on the meta device; "
                                     "config = the variant's to_json_string() (see README.md)",
                            "transformers": transformers.__version__, "torch": torch.__version__}) + "\n")
        for r in fams:
            mt = r["model_type"]
            base = r["params"]
            for v in range(3):
                t = time.time()
                try:
                    out = one_variant(mt, r["config"], v)
                    out["default_params"] = base
                    if out["params"] == base:
                        out["note"] = "same count as the default config"
                except Exception as e:
                    out = {"model_type": mt, "variant": v, "error": repr(e)[:400],
                           "traceback_tail": traceback.format_exc().strip().splitlines()[-3:]}
                f.write(json.dumps(out) + "\n")
                f.flush()
                print(f"{mt:28s} v{v} {out.get('params', out.get('error'))} changed={len(out.get('changed', {}))} "
                      f"dropped={len(out.get('dropped', []))} rt={out.get('roundtrip_ok')} {time.time() - t:.1f}s",
                      file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
