#!/usr/bin/env python3
"""Walk the autograd graph after one forward of a one-layer model and print,
per node, the tensors it saved (PyTorch exposes them as _saved_* attributes):
op, attribute, shape, dtype and bytes of the underlying storage, deduplicated
by storage. Also prints memory_allocated after the forward minus before, so
memory alive but not saved shows up. Checks src/train.c's accounting against
the real modeling code. Needs torch + transformers on a CUDA GPU."""
import json, sys
import torch
from transformers import AutoConfig, AutoModelForCausalLM

B, S = 2, 512
CASES = [
    ("falcon_amp_sdpa", "falcon", dict(vocab_size=1024, hidden_size=1024, num_hidden_layers=1, num_attention_heads=16,
        new_decoder_architecture=False, multi_query=True, parallel_attn=True, bias=False, alibi=False), "amp_bf16", "sdpa"),
    ("gemma2_bf16_sdpa", "gemma2", dict(vocab_size=1024, hidden_size=1152, intermediate_size=4608, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=256, sliding_window=256), "bf16", "sdpa"),
    ("gemma2_amp_eager", "gemma2", dict(vocab_size=1024, hidden_size=1152, intermediate_size=4608, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=256, sliding_window=256), "amp_bf16", "eager"),
    ("gptoss_bf16_eager", "gpt_oss", dict(vocab_size=1024, hidden_size=1024, intermediate_size=1024, num_hidden_layers=2,
        num_attention_heads=16, num_key_value_heads=4, head_dim=64, num_local_experts=8, num_experts_per_tok=2,
        sliding_window=128), "bf16", "eager"),
    ("dsv2_bf16_sdpa", "deepseek_v2", dict(vocab_size=1024, hidden_size=1024, intermediate_size=2816, moe_intermediate_size=512,
        num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=8, n_routed_experts=8, n_shared_experts=1,
        num_experts_per_tok=2, first_k_dense_replace=1, q_lora_rank=None, kv_lora_rank=256, qk_nope_head_dim=64,
        qk_rope_head_dim=32, v_head_dim=64, topk_method="greedy", n_group=1, topk_group=1), "bf16", "sdpa"),
    ("llama_amp_eager", "llama", dict(vocab_size=1024, hidden_size=1536, intermediate_size=4096, num_hidden_layers=1,
        num_attention_heads=12, num_key_value_heads=4), "amp_bf16", "eager"),
]


def walk(root):
    seen_nodes, stack, out = set(), [root], []
    while stack:
        n = stack.pop()
        if n is None or n in seen_nodes:
            continue
        seen_nodes.add(n)
        for attr in dir(n):
            if not attr.startswith("_saved_"):
                continue
            try:
                v = getattr(n, attr)
            except Exception:
                continue
            vs = v if isinstance(v, (tuple, list)) else [v]
            for t in vs:
                if isinstance(t, torch.Tensor) and t.is_cuda:
                    out.append((type(n).__name__, attr, t))
        for nxt, _ in n.next_functions:
            stack.append(nxt)
    return out


def run(name, mtype, kw, prec, attn):
    cfg = AutoConfig.for_model(mtype, **kw)
    dt = torch.float32 if prec.startswith("amp") or prec == "fp32" else torch.bfloat16
    with torch.device("cuda"):
        m = AutoModelForCausalLM.from_config(cfg, dtype=dt, attn_implementation=attn)
    m.train()
    m.config.use_cache = False
    params = {p.untyped_storage().data_ptr() for p in m.parameters()}
    ids = torch.randint(0, cfg.vocab_size, (B, S), device="cuda")
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    if prec.startswith("amp"):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = m(input_ids=ids)
    else:
        out = m(input_ids=ids)
    h = out.logits
    torch.cuda.synchronize()
    after = torch.cuda.memory_allocated() - h.untyped_storage().nbytes()
    saved = walk(h.grad_fn)
    T = B * S
    seen, tot, rows = set(), 0, []
    for op, attr, t in saved:
        st = t.untyped_storage()
        p = st.data_ptr()
        if p in seen or p in params:
            continue
        seen.add(p)
        tot += st.nbytes()
        rows.append(f"    {op}.{attr} {tuple(t.shape)} {str(t.dtype)[6:]} {st.nbytes() / T:.1f}/tok")
    print(json.dumps({"case": name, "T": T, "saved_per_token": tot / T, "alive_per_token": (after - before) / T}))
    print("\n".join(rows))
    sys.stdout.flush()


for c in CASES:
    try:
        run(*c)
    except Exception as e:
        print("ERROR", c[0], repr(e)[:300])
