#!/usr/bin/env python3
"""Variant configs of the dense/MoE decoder families h-z (src/model/fam_dense2.c), counted
on the meta device with transformers 5.17 (the venv of the families reference).

usage: /work/venv-tf/bin/python test/data/families/make_dense2.py > test/data/families/variants-dense2.jsonl

Each variant is the family's configuration class built with the keyword arguments below
(its __post_init__ derives the per-layer lists), written as save_pretrained writes it
(to_json_string); `drop` then removes keys from that JSON, as older config.json files lack
them, and the count is of the class rebuilt from what remains (from_dict), so the record
says what a reader of that exact file must find. Output: one JSON record a line with
model_type, variant, class, params, config and the modules peft's target_modules=
"all-linear" wraps (peft_all_linear_modules, the decoder layer index as {i}), the format
test/families.py reads."""
import contextlib
import io
import json
import re
import sys

import torch
from transformers import AutoModelForCausalLM, CONFIG_MAPPING

# model_type -> [(variant, constructor kwargs, keys to drop from the saved JSON)]
V = {}


def var(mt, name, drop=(), **kw):
    V.setdefault(mt, []).append((name, kw, tuple(drop)))


def layers_path(model):
    best, n_best = None, -1
    for name, mod in model.named_modules():
        if isinstance(mod, torch.nn.ModuleList) and len(mod) > 0:
            n = sum(p.numel() for p in mod.parameters())
            if n > n_best:
                best, n_best = name, n
    return best


def template(name, lp):
    if lp and name.startswith(lp + "."):
        idx, _, tail = name[len(lp) + 1:].partition(".")
        parts, head = tail.split("."), lp + ".{i}"
    else:
        parts, head = name.split("."), None
    parts = ["{j}" if re.match(r"^\d+$", p) else p for p in parts]
    return ".".join(([head] if head else []) + parts)


def all_linear(model):
    from peft import LoraConfig
    from peft.tuners.tuners_utils import _maybe_include_all_linear_layers

    cfg = _maybe_include_all_linear_layers(LoraConfig(target_modules="all-linear"), model)
    lp = layers_path(model)
    return sorted({template(n, lp) for n in cfg.target_modules})


def record(mt, name, kw, drop):
    cls = CONFIG_MAPPING[mt]
    saved = json.loads(cls(**kw).to_json_string())
    for k in drop:
        saved.pop(k, None)
    d = dict(saved)
    d.pop("transformers_version", None)
    cfg = cls.from_dict(d)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(cfg)
    return {
        "model_type": mt,
        "variant": name,
        "class": type(model).__name__,
        "params": sum(p.numel() for p in model.parameters()),
        "config": saved,
        "peft_all_linear_modules": all_linear(model),
    }


def main():
    from transformers.utils import logging

    logging.set_verbosity_error()
    only = set(sys.argv[1].split(",")) if len(sys.argv) > 1 else None
    bad = 0
    for mt, vs in V.items():
        if only and mt not in only:
            continue
        for name, kw, drop in vs:
            try:
                r = record(mt, name, kw, drop)
            except Exception as e:  # a variant transformers cannot build is a mistake here
                print(f"{mt}:{name}: {e!r}"[:400], file=sys.stderr)
                bad += 1
                continue
            print(json.dumps(r, sort_keys=True))
            sys.stdout.flush()
    sys.exit(1 if bad else 0)


# ---- the variants ----------------------------------------------------------------------

SMALL = dict(vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=5, num_attention_heads=8,
             num_key_value_heads=2)

var("granite", "bias_gqa_headdim", attention_bias=True, mlp_bias=True, head_dim=48, **SMALL)
var("granite", "tied_mha", tie_word_embeddings=True, vocab_size=777, hidden_size=192, intermediate_size=300,
    num_hidden_layers=3, num_attention_heads=6)
var("granite_swa", "bias_7layers", attention_bias=True, mlp_bias=True, tie_word_embeddings=False, **SMALL)
var("granite_swa", "no_lists", drop=("layer_types", "layer_rope_theta"), sliding_window=64, **SMALL)
var("granite_swa", "no_window", sliding_window=None, num_hidden_layers=6, hidden_size=128, num_attention_heads=4,
    num_key_value_heads=4, intermediate_size=200, vocab_size=500)
var("granitemoe", "small_bias", attention_bias=True, num_local_experts=4, num_experts_per_tok=1, **SMALL)
var("granitemoe", "tied", tie_word_embeddings=True, num_local_experts=6, num_experts_per_tok=3, vocab_size=640,
    hidden_size=128, intermediate_size=96, num_hidden_layers=3, num_attention_heads=4)
var("granitemoe_swa", "shared_mlp", shared_intermediate_size=320, num_local_experts=4, num_experts_per_tok=2,
    sliding_window=32, **SMALL)
var("granitemoe_swa", "no_lists", drop=("layer_types", "layer_rope_theta"), num_local_experts=3,
    num_experts_per_tok=1, **SMALL)
var("granitemoeshared", "shared", shared_intermediate_size=384, num_local_experts=4, num_experts_per_tok=2, **SMALL)
var("granitemoeshared", "bias_tied", attention_bias=True, tie_word_embeddings=True, shared_intermediate_size=64,
    num_local_experts=8, num_experts_per_tok=2, **SMALL)
var("helium", "gqa_bias", attention_bias=True, mlp_bias=True, head_dim=32, **SMALL)
var("helium", "tied", tie_word_embeddings=True, head_dim=48, vocab_size=900, hidden_size=384, intermediate_size=512,
    num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=8)
var("hyperclovax", "no_post_norm", use_post_norm=False, attention_bias=True, mlp_bias=True, **SMALL)
var("hyperclovax", "head_dim_tied", head_dim=64, tie_word_embeddings=True, **SMALL)
var("mellum", "mixed_layers", layer_types=["full_attention", "sliding_attention"] * 2 + ["full_attention"],
    mlp_layer_types=["dense", "sparse", "sparse", "dense", "sparse"], num_experts=6, num_experts_per_tok=2,
    moe_intermediate_size=96, head_dim=40, attention_bias=True, **SMALL)
var("mellum", "no_lists", drop=("layer_types", "mlp_layer_types"), num_experts=4, num_experts_per_tok=2,
    moe_intermediate_size=64, **SMALL)
var("ministral3", "small_window", sliding_window=128, head_dim=24, **SMALL)
var("ministral3", "tied_no_head_dim", drop=("head_dim",), tie_word_embeddings=True, **SMALL)
var("smollm3", "sliding", pad_token_id=0, use_sliding_window=True, sliding_window=64, no_rope_layer_interval=2,
    attention_bias=True, mlp_bias=True, **SMALL)
var("smollm3", "no_lists", drop=("layer_types", "no_rope_layers"), pad_token_id=0, use_sliding_window=True, sliding_window=64,
    tie_word_embeddings=False, **SMALL)
var("seed_oss", "biases", attention_bias=False, attention_out_bias=True, mlp_bias=True, head_dim=40, **SMALL)
var("seed_oss", "tied_no_head_dim", head_dim=None, tie_word_embeddings=True, **SMALL)
var("solar_open", "two_shared", n_shared_experts=2, n_routed_experts=8, num_experts_per_tok=2,
    moe_intermediate_size=96, head_dim=40, attention_bias=True, vocab_size=1000, hidden_size=256,
    num_hidden_layers=3, num_attention_heads=8, num_key_value_heads=2)
var("solar_open", "three_shared", n_shared_experts=3, n_routed_experts=4, num_experts_per_tok=1,
    moe_intermediate_size=64, tie_word_embeddings=True, vocab_size=1000, hidden_size=256, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=4)
var("vaultgemma", "small", head_dim=48, attention_bias=True, **SMALL)
var("vaultgemma", "no_lists", drop=("layer_types",), tie_word_embeddings=False, **SMALL)
var("olmo3", "bias", attention_bias=True, sliding_window=32, **SMALL)
var("olmo3", "no_lists", drop=("layer_types",), tie_word_embeddings=True, num_hidden_layers=9, hidden_size=128,
    num_attention_heads=4, num_key_value_heads=2, intermediate_size=256, vocab_size=512)
var("stablelm", "qk_ln_bias", qk_layernorm=True, use_qkv_bias=True, **SMALL)
var("stablelm", "parallel_tied", use_parallel_residual=True, tie_word_embeddings=True, **SMALL)
var("phimoe", "bias_head", attention_bias=True, lm_head_bias=True, num_local_experts=4, num_experts_per_tok=2,
    sliding_window=64, **SMALL)
var("phimoe", "tied", tie_word_embeddings=True, num_local_experts=3, num_experts_per_tok=1, **SMALL)
var("persimmon", "no_qk_ln", qk_layernorm=False, vocab_size=1000, hidden_size=256, intermediate_size=512,
    num_hidden_layers=3, num_attention_heads=8)
var("persimmon", "tied", tie_word_embeddings=True, vocab_size=1000, hidden_size=192, intermediate_size=320,
    num_hidden_layers=2, num_attention_heads=4)
var("nanochat", "gqa_bias", attention_bias=True, final_logit_softcapping=None, **SMALL)
var("nanochat", "tied", tie_word_embeddings=True, head_dim=48, **SMALL)
var("jais2", "gqa_nobias", attention_bias=False, mlp_bias=False, **SMALL)
var("jais2", "tied_head_dim", tie_word_embeddings=True, head_dim=40, **SMALL)
var("mpt", "small", d_model=256, n_heads=8, n_layers=3, expansion_ratio=2, vocab_size=1000, no_bias=False)
var("mpt", "untied", d_model=128, n_heads=4, n_layers=2, vocab_size=500, tie_word_embeddings=False)
var("xglm", "small", d_model=256, ffn_dim=384, num_layers=3, attention_heads=8, vocab_size=1000)
var("xglm", "cross_untied", d_model=128, ffn_dim=256, num_layers=2, attention_heads=4, vocab_size=700,
    add_cross_attention=True, tie_word_embeddings=False)
var("youtu", "no_q_lora", q_lora_rank=None, attention_bias=True, v_head_dim=48, kv_lora_rank=64,
    qk_rope_head_dim=16, qk_nope_head_dim=32, **SMALL)
var("youtu", "untied", tie_word_embeddings=False, q_lora_rank=96, kv_lora_rank=64, qk_rope_head_dim=16,
    qk_nope_head_dim=24, v_head_dim=24, **SMALL)
var("minicpm3", "no_q_lora", q_lora_rank=None, attention_bias=True, mlp_bias=True, v_head_dim=40, kv_lora_rank=64,
    qk_rope_head_dim=16, qk_nope_head_dim=32, **SMALL)
var("minicpm3", "untied", tie_word_embeddings=False, q_lora_rank=96, kv_lora_rank=48, qk_rope_head_dim=8,
    qk_nope_head_dim=24, v_head_dim=None, **SMALL)

var("hy_v3", "small", num_experts=6, num_experts_per_tok=2, num_shared_experts=2, moe_intermediate_size=96,
    head_dim=40, attention_bias=True, mlp_bias=True, **SMALL)
var("hy_v3", "no_shared_list", num_experts=4, num_experts_per_tok=2, num_shared_experts=0, moe_intermediate_size=64,
    mlp_layer_types=["sparse", "dense", "sparse", "sparse", "dense"], **SMALL)
var("hy_v3", "no_lists", drop=("mlp_layer_types",), num_experts=4, num_experts_per_tok=1, moe_intermediate_size=64,
    **SMALL)
var("hy_v4", "small", pad_token_id=0, n_routed_experts=6, num_experts_per_tok=2, n_shared_experts=2, moe_intermediate_size=96,
    q_lora_rank=64, kv_lora_rank=48, qk_nope_head_dim=24, qk_rope_head_dim=8, v_head_dim=32, index_head_dim=16,
    index_n_heads=4, hc_mult=3, attention_bias=True, **SMALL)
var("hy_v4", "lists", pad_token_id=0, n_routed_experts=4, num_experts_per_tok=1, n_shared_experts=1, moe_intermediate_size=64,
    q_lora_rank=32, kv_lora_rank=32, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16, index_head_dim=8,
    index_n_heads=2, indexer_types=["full", "shared", "full", "full", "shared", "shared", "full"],
    mlp_layer_types=["dense", "dense", "sparse", "sparse", "dense", "sparse", "sparse"], vocab_size=1000,
    hidden_size=128, intermediate_size=256, num_hidden_layers=7, num_attention_heads=4)
var("hy_v4", "no_lists", drop=("indexer_types", "mlp_layer_types", "layer_types"), pad_token_id=0,
    n_routed_experts=4,
    num_experts_per_tok=2, moe_intermediate_size=64, q_lora_rank=32, kv_lora_rank=32, qk_nope_head_dim=16,
    qk_rope_head_dim=8, v_head_dim=16, index_head_dim=8, index_n_heads=2, vocab_size=1000, hidden_size=128,
    intermediate_size=256, num_hidden_layers=10, num_attention_heads=4)
var("jetmoe", "small", num_local_experts=4, num_experts_per_tok=2, num_key_value_heads=4, kv_channels=32,
    vocab_size=1000, hidden_size=256, intermediate_size=384, num_hidden_layers=3, tie_word_embeddings=False)
var("jetmoe", "top1", num_local_experts=6, num_experts_per_tok=1, num_key_value_heads=2, kv_channels=48,
    vocab_size=800, hidden_size=192, intermediate_size=128, num_hidden_layers=2)
var("laguna", "per_layer_heads", num_attention_heads_per_layer=[8, 4, 16, 8, 4], gating=False,
    layer_types=["full_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention"],
    mlp_layer_types=["dense", "sparse", "dense", "sparse", "sparse"], num_experts=6, num_experts_per_tok=2,
    moe_intermediate_size=96, shared_expert_intermediate_size=80, head_dim=40, attention_bias=True,
    sliding_window=64, **SMALL)
var("laguna", "per_head_gate", num_attention_heads_per_layer=[4, 8, 8, 4, 12], gating="per-head", num_experts=4,
    num_experts_per_tok=1, moe_intermediate_size=64, shared_expert_intermediate_size=128, **SMALL)
var("laguna", "no_lists", drop=("num_attention_heads_per_layer", "mlp_layer_types", "layer_types"), num_experts=4,
    num_experts_per_tok=2, moe_intermediate_size=64, shared_expert_intermediate_size=32, **SMALL)
var("longcat_flash", "small", vocab_size=1000, hidden_size=256, ffn_hidden_size=384, num_layers=3,
    num_hidden_layers=6, num_attention_heads=8, n_routed_experts=6, zero_expert_num=2, moe_topk=2,
    expert_ffn_hidden_size=64, q_lora_rank=64, kv_lora_rank=32, qk_nope_head_dim=16, qk_rope_head_dim=8,
    v_head_dim=24, attention_bias=True)
var("longcat_flash", "router_bias", vocab_size=1000, hidden_size=128, ffn_hidden_size=256, num_layers=2,
    num_hidden_layers=4, num_attention_heads=4, n_routed_experts=4, zero_expert_num=0, moe_topk=1,
    expert_ffn_hidden_size=32, q_lora_rank=32, kv_lora_rank=32, qk_nope_head_dim=16, qk_rope_head_dim=8,
    v_head_dim=16, qk_head_dim=20, tie_word_embeddings=True, router_bias=True)
var("mimo_v2_flash", "small", n_routed_experts=6, num_experts_per_tok=2, moe_intermediate_size=96, head_dim=40,
    v_head_dim=24, attention_bias=True, sliding_window=32, vocab_size=1000, hidden_size=256, intermediate_size=512,
    num_hidden_layers=8, num_attention_heads=8, num_key_value_heads=2)
var("mimo_v2_flash", "lists", n_routed_experts=4, num_experts_per_tok=1, moe_intermediate_size=64,
    layer_types=["sliding_attention", "full_attention", "full_attention", "sliding_attention", "sliding_attention"],
    mlp_layer_types=["sparse", "dense", "sparse", "dense", "sparse"], tie_word_embeddings=True, **SMALL)
var("mimo_v2_flash", "no_lists", drop=("layer_types", "mlp_layer_types"), n_routed_experts=4, num_experts_per_tok=2,
    moe_intermediate_size=64, vocab_size=1000, hidden_size=128, intermediate_size=256, num_hidden_layers=13,
    num_attention_heads=4, num_key_value_heads=2)
var("zaya", "small", num_experts=6, moe_intermediate_size=96, router_hidden_size=48, head_dim=32, cca_time0=3,
    cca_time1=2, attention_bias=True, lm_head_bias=True, tie_word_embeddings=False, vocab_size=1000,
    hidden_size=256, num_hidden_layers=3, num_attention_heads=8, num_key_value_heads=2)
var("zaya", "sliding", layer_types=["hybrid", "hybrid_sliding", "hybrid_sliding", "hybrid"], sliding_window=64,
    num_experts=4, moe_intermediate_size=64, router_hidden_size=32, head_dim=16, vocab_size=1000, hidden_size=128,
    num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=4)

# families of transformers 5.17 whose default config does not build there (a None head_dim,
# no experts, no layer_types, rope parameters keyed wrong): only variants.
ROPE = {"rope_theta": 10000.0, "rope_type": "default"}
var("dbrx", "small", d_model=256, n_heads=8, n_layers=3, vocab_size=1000, rope_parameters=ROPE,
    attn_config={"kv_n_heads": 2, "rope_theta": 10000.0}, ffn_config={"ffn_hidden_size": 384, "moe_num_experts": 4, "moe_top_k": 2})
var("dbrx", "mha", d_model=128, n_heads=4, n_layers=2, vocab_size=800, rope_parameters=ROPE,
    attn_config={"kv_n_heads": 4, "rope_theta": 10000.0}, ffn_config={"ffn_hidden_size": 96, "moe_num_experts": 3, "moe_top_k": 1})
var("dots1", "small", n_routed_experts=6, num_experts_per_tok=2, n_shared_experts=2, moe_intermediate_size=96,
    first_k_dense_replace=2, max_window_layers=3, attention_bias=True, **SMALL)
var("dots1", "no_lists", drop=("layer_types",), n_routed_experts=4, num_experts_per_tok=1, n_shared_experts=1,
    moe_intermediate_size=64, max_window_layers=2, sliding_window=32, tie_word_embeddings=True, **SMALL)
var("hunyuan_v1_dense", "small", head_dim=40, attention_bias=True, **SMALL)
var("hunyuan_v1_dense", "tied", head_dim=32, tie_word_embeddings=True, **SMALL)
HY_ROPE = {"rope_theta": 10000.0, "rope_type": "dynamic", "type": "dynamic", "factor": 2.0}
var("hunyuan_v1_moe", "small", head_dim=32, num_experts=4, moe_topk=2, rope_parameters=HY_ROPE, **SMALL)
var("hunyuan_v1_moe", "topk_list", head_dim=40, num_experts=6, moe_topk=[2, 1, 2, 3, 2], attention_bias=True,
    rope_parameters=HY_ROPE, **SMALL)
var("lfm2_moe", "small", layer_types=["conv", "conv", "full_attention", "conv", "full_attention"], num_experts=6,
    num_experts_per_tok=2, moe_intermediate_size=96, num_dense_layers=2, **SMALL)
var("lfm2_moe", "conv_bias", layer_types=["full_attention", "conv", "conv", "conv", "full_attention"],
    conv_bias=True, conv_L_cache=4, num_experts=4, num_experts_per_tok=1, moe_intermediate_size=64,
    num_dense_layers=1, tie_word_embeddings=False, **SMALL)
var("nemotron", "small", attention_bias=True, mlp_bias=True, head_dim=40, **SMALL)
var("nemotron", "tied", tie_word_embeddings=True, **SMALL)
var("ministral", "small", head_dim=40, sliding_window=64, **SMALL)
var("ministral", "no_window", head_dim=32, sliding_window=None, tie_word_embeddings=True, **SMALL)
CC_ROPE = {"full_attention": {"rope_theta": 10000.0, "rope_type": "default"},
           "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}
var("cohere_compass_text", "small", rope_parameters=CC_ROPE, attention_bias=True,
    layer_types=["sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention"],
    vocab_size=1000, hidden_size=1024, intermediate_size=512, num_hidden_layers=5, num_attention_heads=8,
    num_key_value_heads=2)
var("cohere_compass_text", "untied", rope_parameters=CC_ROPE, tie_word_embeddings=False, sliding_window=None,
    vocab_size=1000, hidden_size=512, intermediate_size=384, num_hidden_layers=3, num_attention_heads=4,
    num_key_value_heads=4)

if __name__ == "__main__":
    main()
