#!/usr/bin/env python3
"""List what autograd keeps for backward in one forward of a small model:
each unique storage (deduplicated by data pointer) with its shape, dtype and
bytes, in the order first saved. Used to check the saved-tensor accounting of
src/train.c against the real modeling code. Needs torch + transformers."""
import json, os, sys
import torch
from transformers import AutoConfig, AutoModelForCausalLM

CASES = [
    # name, model_type, config kwargs, precision, attn
    ("phi3", "phi3", dict(vocab_size=1024, hidden_size=1024, intermediate_size=2816, num_hidden_layers=1,
                          num_attention_heads=16, num_key_value_heads=16, pad_token_id=0), "bf16", "sdpa"),
    ("phi", "phi", dict(vocab_size=1024, hidden_size=1024, intermediate_size=4096, num_hidden_layers=1,
                        num_attention_heads=16, partial_rotary_factor=0.4), "bf16", "sdpa"),
    ("mixtral_amp", "mixtral", dict(vocab_size=1024, hidden_size=1024, intermediate_size=3584, num_hidden_layers=1,
                                    num_attention_heads=16, num_key_value_heads=8, num_local_experts=8,
                                    num_experts_per_tok=2), "amp_bf16", "sdpa"),
    ("neox_amp", "gpt_neox", dict(vocab_size=1024, hidden_size=1024, intermediate_size=4096, num_hidden_layers=1,
                                  num_attention_heads=16, rotary_pct=0.25), "amp_bf16", "sdpa"),
    ("llama_fp32_eager", "llama", dict(vocab_size=1024, hidden_size=896, intermediate_size=4864, num_hidden_layers=1,
                                       num_attention_heads=14, num_key_value_heads=2), "fp32", "eager"),
]
B, S = 2, 512


def run(name, mtype, kw, prec, attn):
    cfg = AutoConfig.for_model(mtype, **kw)
    dt = torch.float32 if prec in ("fp32", "amp_bf16") else torch.bfloat16
    with torch.device("cuda"):
        m = AutoModelForCausalLM.from_config(cfg, dtype=dt, attn_implementation=attn)
    m.train()
    m.config.use_cache = False
    ids = torch.randint(0, cfg.vocab_size, (B, S), device="cuda")
    seen = {}
    order = []

    def pack(t):
        try:
            ptr = t.untyped_storage().data_ptr()
            nb = t.untyped_storage().nbytes()
        except Exception:
            return t
        if ptr not in seen:
            seen[ptr] = (tuple(t.shape), str(t.dtype).replace("torch.", ""), nb, isinstance(t, torch.nn.Parameter) or t.is_leaf and t.requires_grad)
            order.append(ptr)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if prec.startswith("amp"):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                out = m.model(input_ids=ids)
        else:
            out = m.model(input_ids=ids)
    T = B * S
    rows = []
    tot = 0
    for p in order:
        shape, dtype, nb, leaf = seen[p]
        if leaf:
            continue
        rows.append((shape, dtype, nb, round(nb / T, 1)))
        tot += nb
    print(json.dumps({"case": name, "tokens": T, "hidden": cfg.hidden_size, "total_per_token": tot / T}))
    for r in rows:
        print("   ", r)
    sys.stdout.flush()


for c in CASES:
    try:
        run(*c)
    except Exception as e:
        print("ERROR", c[0], repr(e)[:300])
