#!/usr/bin/env python3
"""What the generation cache holds for families with non-KV state.

usage: python probe_caches.py [--out caches-5.17.jsonl] [--only a,b]

For each family: a TINY float32 CPU model (the default config shrunk: few layers
covering every layer kind, small widths), batch 2 x 7 prompt tokens.  We run
model.generate(max_new_tokens=1) -> the cache after the prefill (7 positions), and
model.generate(max_new_tokens=2) -> the cache after one decode step (8 positions),
and record the cache object's class and every tensor it holds, per layer.
"""

import argparse
import copy
import json
import sys
import time
import traceback

import famlib
import torch
from make_variants import LAYER_KEYS, tile

FAMILIES = ["mamba", "mamba2", "falcon_mamba", "falcon_h1", "bamba", "jamba", "nemotron_h", "granitemoehybrid",
            "qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "kimi_linear", "lfm2", "recurrent_gemma", "rwkv",
            "xlstm", "zamba", "zamba2", "olmo_hybrid", "minimax", "gemma3n_text", "gemma4_text", "gpt_oss", "llama",
            "gemma3_text"]

TINY = {
    "hidden_size": 64, "n_embd": 64, "d_model": 64, "embedding_dim": 64,
    "num_attention_heads": 4, "n_head": 4, "num_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "attention_head_dim": 16, "global_head_dim": 32,
    "intermediate_size": 128, "n_inner": 128, "moe_intermediate_size": 32, "shared_expert_intermediate_size": 32,
    "shared_intermediate_size": 32, "moe_shared_expert_intermediate_size": 32,
    "num_experts": 4, "n_routed_experts": 4, "num_local_experts": 4, "moe_num_experts": 4,
    "num_experts_per_tok": 2, "num_experts_per_token": 2, "moe_k": 2, "n_shared_experts": 1,
    "num_shared_experts": 1, "n_group": 1, "topk_group": 1,
    "vocab_size": 512, "vocab_size_per_layer_input": 512, "hidden_size_per_layer_input": 8,
    "mamba_n_heads": 8, "mamba_num_heads": 8, "mamba_d_head": 16, "mamba_head_dim": 16, "mamba_n_groups": 1,
    "n_groups": 1, "ssm_state_size": 16, "mamba_d_state": 16, "state_size": 16, "time_step_rank": 8,
    "mamba_dt_rank": 8,
    "linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 16, "linear_value_head_dim": 16,
    "kv_lora_rank": 32, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16,
    "lru_width": 64, "block_width": 16, "num_kv_shared_layers": 2, "laurel_rank": 8, "altup_num_inputs": 4,
    "sliding_window": 4, "attention_window_size": 4, "conv_L_cache": 3,
}
# per-family fixes on top of TINY (keys that must move together)
OVERRIDES = {
    # the default bamba / granitemoehybrid configs have no attention layer at all; a hybrid cache then fails
    # (DynamicCache.get_seq_length needs an attention layer), so put one attention layer at index 2
    "bamba": {"attn_layer_indices": [2]},
    "granitemoehybrid": {"layer_types": ["mamba", "mamba", "attention", "mamba", "mamba", "mamba"]},
    "rwkv": {"attention_hidden_size": 64},
    "kimi_linear": {"linear_num_heads": 4, "linear_head_dim": 16, "num_key_value_heads": 4},
    # xLSTMModel builds config.num_blocks blocks but sizes its cache by num_hidden_layers: keep them equal
    "xlstm": {"hidden_size": 256, "embedding_dim": 256, "num_heads": 4, "num_blocks": 6},
    "zamba": {"attention_hidden_size": 128, "attention_head_dim": 32, "n_mamba_heads": 2},
    "zamba2": {"attention_hidden_size": 128, "attention_head_dim": 32, "mamba_headdim": 16, "n_mamba_heads": 8,
               "mamba_ngroups": 1},
    # the last num_kv_shared_layers layers reuse the KV of the last earlier layer of the same type
    # the default lfm2 config is all attention (full_attn_idxs = every layer): put two attention layers
    # among short-conv layers
    "lfm2": {"full_attn_idxs": [2, 5],
             "layer_types": ["conv", "conv", "full_attention", "conv", "conv", "full_attention"]},
    "gemma3n_text": {"intermediate_size": [128] * 6,
                     "layer_types": ["sliding_attention", "sliding_attention", "full_attention",
                                     "sliding_attention", "sliding_attention", "full_attention"]},
}
TOKEN_KEYS = ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id")


def shrink(mt, saved, n_layers=6):
    cfg0 = famlib.config_from_saved(mt, saved)
    tc0 = cfg0.get_text_config()
    full = json.loads(tc0.to_json_string(use_diff=False))
    d = copy.deepcopy(saved)
    d.pop("transformers_version", None)
    tgt = d["text_config"] if isinstance(d.get("text_config"), dict) else d
    lk = next((k for k in LAYER_KEYS if isinstance(full.get(k), int)), None)
    L = full.get(lk) if lk else None
    changes = {}
    if lk and L:
        # layers: keep every layer kind (same mapping as make_variants: new layer i copies old layer src[i])
        def is_index_list(k, v):
            return (isinstance(v, list) and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
                    and len(set(v)) == len(v) and sorted(v) == v and max(v) < L
                    and ("layer" in k or "idx" in k or "ids" in k or "indices" in k))

        per_list = {k: v for k, v in full.items() if isinstance(v, list) and len(v) == L and L > 1
                    and not is_index_list(k, v)}
        per_str = {k: v for k, v in full.items() if isinstance(v, str) and len(v) == L and k != "model_type"}

        def kind(j):
            return tuple([str(v[j]) for v in per_list.values()] + [v[j] for v in per_str.values()])

        kinds = {}
        for j in range(L):
            kinds.setdefault(kind(j), j)
        newL = max(n_layers, len(kinds)) if len(kinds) <= 8 else len(kinds)
        src = tile(list(range(L)), newL)
        have = {kind(j) for j in src}
        missing = [kinds[k] for k in kinds if k not in have]
        for i, j in enumerate(missing):
            src[newL - 1 - i] = j
        changes[lk] = newL
        for k, v in per_list.items():
            changes[k] = [v[j] for j in src]
        for k, v in per_str.items():
            changes[k] = "".join(v[j] for j in src)
        for k, v in full.items():
            if isinstance(v, list) and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v) \
                    and k not in per_list and ("layer" in k or "idx" in k or "ids" in k):
                changes[k] = [i for i in range(newL) if src[i] in set(v)] or [min(newL - 1, 1)]
        for k, dv in full.items():
            if isinstance(dv, dict) and dv and all(str(x).isdigit() for x in dv) and "layer" in k:
                width = max(len(str(x)) for x in dv)
                byint = {int(x): val for x, val in dv.items()}
                changes[k] = {str(i).zfill(width): byint[src[i]] for i in range(newL) if src[i] in byint}
        for k in ("first_k_dense_replace", "num_dense_layers"):
            if isinstance(full.get(k), int) and full[k] > 0:
                changes[k] = 1
    for k, v in TINY.items():
        if k in full and full[k] is not None and not isinstance(full[k], (bool, list, dict, str)) and full[k] != 0:
            changes[k] = v
    if "expand" in full and isinstance(full["expand"], int):
        changes["expand"] = 2
    if mt == "mamba2":  # hidden*expand == num_heads*head_dim
        changes["num_heads"] = 8
    changes.update(OVERRIDES.get(mt, {}))
    for k in TOKEN_KEYS:
        v = full.get(k)
        if isinstance(v, int) and v >= 512:
            changes[k] = 1
        if isinstance(v, list):
            changes[k] = [x if x < 512 else 1 for x in v]
    return d, tgt, changes


def build_tiny(mt, saved):
    d, tgt, changes = shrink(mt, saved)
    dropped = []

    def attempt(ch, real=False):
        dd = copy.deepcopy(d)
        t = dd["text_config"] if isinstance(dd.get("text_config"), dict) else dd
        t.update(ch)
        with famlib.quiet():
            cfg = famlib.config_from_saved(mt, dd)
            if not real:  # validate on meta: cheap, and a failed shrink never builds a big model for real
                m = famlib.build_meta(cfg)
                n = famlib.count_params(m)
                del m
                return cfg, n
            torch.manual_seed(0)
            m = transformers_auto().from_config(cfg, torch_dtype=torch.float32)
        return cfg, m

    try:
        attempt(changes)
        kept = changes
    except Exception:
        kept = {}
        # the layer keys first (they go together), then one key at a time
        layer_keys = {k: v for k, v in changes.items() if k in LAYER_KEYS or isinstance(v, (list, str))}
        try:
            attempt(layer_keys)
            kept.update(layer_keys)
        except Exception as e:
            dropped.append({"keys": sorted(layer_keys), "error": repr(e)[:200]})
        for k, v in changes.items():
            if k in layer_keys:
                continue
            try:
                attempt({**kept, k: v})
                kept[k] = v
            except Exception as e:
                dropped.append({"key": k, "value": v, "error": repr(e)[:200]})
    _, n = attempt(kept)
    if n > 50_000_000:
        raise RuntimeError(f"could not shrink below 50M params ({n}); dropped: {dropped}")
    cfg, m = attempt(kept, real=True)
    return cfg, m, dropped


def transformers_auto():
    from transformers import AutoModelForCausalLM
    return AutoModelForCausalLM


def _desc(v, depth=0):
    """Tensors as {shape, dtype}; lists/tuples/dicts of them described recursively; None for anything else."""
    if isinstance(v, torch.Tensor):
        return {"shape": list(v.shape), "dtype": str(v.dtype).replace("torch.", "")}
    if depth >= 3:
        return None
    if isinstance(v, (list, tuple)):
        items = [_desc(x, depth + 1) for x in v]
        return items if any(x is not None for x in items) else None
    if isinstance(v, dict):
        items = {str(k): _desc(x, depth + 1) for k, x in v.items()}
        return items if any(x is not None for x in items.values()) else None
    return None


def tensors_of(obj):
    """Tensors held by a cache (layer) object: {attr: description} (lists/dicts/tuples of tensors included)."""
    out = {}
    for k, v in vars(obj).items():
        if k == "layers":
            continue
        dv = _desc(v)
        if dv is not None:
            out[k] = dv
    return out


def describe_cache(c):
    if c is None:
        return None
    if isinstance(c, (list, tuple)) and all(isinstance(x, torch.Tensor) for x in c):
        return {"class": type(c).__name__, "tensors": [{"shape": list(x.shape), "dtype": str(x.dtype)} for x in c]}
    r = {"class": type(c).__name__}
    layers = getattr(c, "layers", None)
    if isinstance(layers, (list, tuple)) and layers and not isinstance(layers[0], torch.Tensor):
        runs = []
        for i, layer in enumerate(layers):
            desc = {"class": type(layer).__name__, "tensors": tensors_of(layer)}
            for attr in ("sliding_window", "max_cache_len", "is_sliding", "is_compileable"):
                v = getattr(layer, attr, None)
                if isinstance(v, (int, bool)) and not isinstance(v, torch.Tensor):
                    desc[attr] = v
            if runs and runs[-1]["desc"] == desc:
                runs[-1]["layers"].append(i)
            else:
                runs.append({"layers": [i], "desc": desc})
        merged = []
        for rr in runs:
            for mm in merged:
                if mm["desc"] == rr["desc"]:
                    mm["layers"].extend(rr["layers"])
                    break
            else:
                merged.append(rr)
        r["n_layers"] = len(layers)
        r["layers"] = [{"layers": mm["layers"], **mm["desc"]} for mm in merged]
    other = tensors_of(c)
    if other:
        r["tensors"] = other
    return r


def run_generate(m, ids, n):
    with torch.no_grad():
        out = m.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, min_new_tokens=n,
                         do_sample=False, use_cache=True, return_dict_in_generate=True, pad_token_id=1)
    c = getattr(out, "past_key_values", None)
    if c is None:
        c = getattr(out, "cache_params", None)
    return out.sequences.shape[1], c


def probe(mt, saved):
    cfg, m, dropped = build_tiny(mt, saved)
    m.eval()
    if famlib.count_params(m) > 50_000_000:
        raise RuntimeError(f"could not shrink below 50M params ({famlib.count_params(m)}); dropped: {dropped}")
    tc = cfg.get_text_config()
    torch.manual_seed(0)
    ids = torch.randint(2, min(tc.vocab_size, 500), (2, 7))
    rec = {"model_type": mt, "class": type(m).__name__, "params": famlib.count_params(m),
           "config": famlib.saved_config(cfg)}
    if dropped:
        rec["shrink_dropped"] = dropped
    lp = famlib.find_layer_list(m)
    pat = famlib.layer_pattern(m, cfg, lp)
    if pat:
        rec["layer_kinds"] = [{k: v for k, v in kd.items() if k != "children"} for kd in pat["kinds"]]
    # a direct forward for the cache class the model itself creates
    with torch.no_grad():
        fo = m(input_ids=ids, use_cache=True)
    c0 = getattr(fo, "past_key_values", None)
    if c0 is None:
        c0 = getattr(fo, "cache_params", None) or getattr(fo, "state", None)
    rec["forward_cache"] = describe_cache(c0)
    if c0 is None:
        held = {}
        for name, mod in m.named_modules():
            for k, v in vars(mod).items():
                if isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter) and (
                        "state" in k or "cache" in k or k in ("key_states", "value_states")):
                    t, _ = famlib.template(name, lp)
                    held.setdefault(t + "." + k, {"shape": list(v.shape), "dtype": str(v.dtype).replace("torch.", ""),
                                                  "n": 0})["n"] += 1
        rec["state_held_in_modules_after_forward"] = held
    try:
        n1, c1 = run_generate(m, ids, 1)
        rec["after_prefill"] = {"generate_sequence_length": n1, "tokens_seen_by_cache": 7, "cache": describe_cache(c1)}
        n2, c2 = run_generate(m, ids, 2)
        rec["after_one_decode_step"] = {"generate_sequence_length": n2, "tokens_seen_by_cache": 8,
                                        "cache": describe_cache(c2)}
    except Exception as e:
        rec["generate_error"] = repr(e)[:300]
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--families", default="families-5.17.jsonl")
    ap.add_argument("--out", default="caches-5.17.jsonl")
    ap.add_argument("--only", default=None)
    a = ap.parse_args()
    configs = {}
    for line in open(a.families):
        r = json.loads(line)
        if "config" in r:
            configs[r["model_type"]] = r["config"]
    fams = FAMILIES if not a.only else a.only.split(",")
    import transformers
    torch.set_num_threads(1)
    with open(a.out, "w") as f:
        f.write(json.dumps({"about": "cache contents after a batch-2 x 7-token prefill and after one decode step, "
                                     "tiny float32 CPU models (see README.md)",
                            "transformers": transformers.__version__, "torch": torch.__version__,
                            "batch": 2, "prompt_tokens": 7}) + "\n")
        for mt in fams:
            t = time.time()
            if mt not in configs:
                rec = {"model_type": mt, "error": "no default config in the families file"}
            else:
                try:
                    rec = probe(mt, configs[mt])
                except Exception as e:
                    rec = {"model_type": mt, "error": repr(e)[:400],
                           "traceback_tail": traceback.format_exc().strip().splitlines()[-3:]}
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(f"{mt:22s} {rec.get('class', '-'):35s} {rec.get('params', rec.get('error'))} "
                  f"{(rec.get('forward_cache') or {}).get('class')} {rec.get('generate_error', '')[:80]} "
                  f"{time.time() - t:.1f}s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
