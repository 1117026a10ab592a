#!/usr/bin/env python3
"""Non-default configs of the dense/MoE families a-g (src/model/fam_dense1.c) and their
transformers 5.17 parameter counts, for test/families.py: writes variants-dense1.jsonl.

usage: /path/to/venv/bin/python make_variants_dense1.py > variants-dense1.jsonl
(transformers 5.17.0, torch, peft 0.21; models are built on the meta device)

Each case is a model_type and keyword arguments of its configuration class. The record's
config is what save_pretrained writes (to_json_string()); with "__strip" the listed per-layer
keys are left out of it, so the registry's own layer rules are checked against the lists the
class derives (the keyword arguments stay, as in a config that predates the lists).
peft_all_linear_modules is peft's all-linear resolution (_maybe_include_all_linear_layers)
with the decoder-layer index written {i}."""
import json
import re
import sys
import warnings

warnings.filterwarnings("ignore")
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoModelForCausalLM, CONFIG_MAPPING  # noqa: E402

transformers.logging.set_verbosity_error()

CASES = [
    ("afmoe", {"num_dense_layers": 3, "num_shared_experts": 1, "num_key_value_heads": 4, "head_dim": 64,
               "attention_bias": True, "global_attn_every_n_layers": 3, "num_hidden_layers": 10}),
    ("afmoe", {"num_experts": 16, "moe_intermediate_size": 512, "hidden_size": 1024, "intermediate_size": 2048,
               "num_hidden_layers": 6, "sliding_window": None}),
    ("afmoe", {"__strip": ["layer_types"], "global_attn_every_n_layers": 3, "num_hidden_layers": 7}),
    ("apertus", {"hidden_act": "relu2"}),
    ("apertus", {"num_key_value_heads": 8, "attention_bias": True, "head_dim": 64, "num_hidden_layers": 4}),
    ("arcee", {"mlp_bias": True, "attention_bias": True, "head_dim": 128, "num_key_value_heads": 8}),
    ("arcee", {"num_hidden_layers": 3, "hidden_size": 1024, "num_attention_heads": 8}),
    ("aria_text", {"moe_num_shared_experts": 1, "mlp_bias": True, "moe_num_experts": 4, "attention_bias": True,
                   "num_key_value_heads": 8, "num_hidden_layers": 4}),
    ("aria_text", {"moe_num_shared_experts": 3, "moe_topk": 1, "num_hidden_layers": 2}),
    ("axk1", {"first_k_dense_replace": 3, "n_shared_experts": 2, "num_hidden_layers": 8, "attention_bias": True}),
    ("axk1", {"q_lora_rank": 768, "kv_lora_rank": 256, "num_hidden_layers": 4}),
    ("axk2", {"first_k_dense_replace": 2, "moe_layer_freq": 2, "num_hidden_layers": 8}),
    ("axk2", {"mlp_layer_types": ["sparse", "dense", "sparse", "dense"], "num_hidden_layers": 4,
              "gated_norm_rank": 32, "index_n_heads": 8, "attention_bias": True}),
    ("axk2", {"__strip": ["mlp_layer_types", "layer_types"], "first_k_dense_replace": 2, "moe_layer_freq": 3,
              "num_hidden_layers": 9}),
    ("bitnet", {"num_key_value_heads": 20, "attention_bias": True}),
    ("bitnet", {"head_dim": 64, "num_hidden_layers": 3}),
    ("bloom", {"n_embed": 128, "n_layer": 4, "n_head": 4}),
    ("bloom", {"hidden_size": 256, "tie_word_embeddings": False}),
    ("codegen", {"n_inner": 1000, "rotary_dim": 32, "n_embd": 512, "n_layer": 3, "n_head": 8,
                 "tie_word_embeddings": True}),
    ("codegen", {"n_layer": 2, "vocab_size": 1000}),
    ("cohere", {"use_qk_norm": True, "num_key_value_heads": 8, "attention_bias": True, "num_hidden_layers": 4}),
    ("cohere", {"tie_word_embeddings": False, "num_hidden_layers": 2, "head_dim": 64}),
    ("cohere2", {"sliding_window_pattern": 3, "num_hidden_layers": 7, "head_dim": 64}),
    ("cohere2", {"sliding_window": None, "num_key_value_heads": 8, "attention_bias": True, "num_hidden_layers": 4}),
    ("cohere2", {"__strip": ["layer_types"], "sliding_window_pattern": 3, "num_hidden_layers": 7}),
    ("cohere2_moe", {"first_k_dense_replace": 2, "prefix_dense_intermediate_size": 1000, "num_shared_experts": 2,
                     "prefix_dense_sliding_window_pattern": 2, "num_hidden_layers": 8}),
    ("cohere2_moe", {"rms_norm_eps": 1e-05, "attention_bias": True, "num_hidden_layers": 5, "head_dim": 64}),
    ("cohere2_moe", {"__strip": ["layer_types", "mlp_layer_types"], "first_k_dense_replace": 3,
                     "prefix_dense_sliding_window_pattern": 2, "sliding_window_pattern": 3, "num_hidden_layers": 10}),
    ("cwm", {"head_dim": 64, "mlp_bias": True, "num_hidden_layers": 6}),
    ("cwm", {"__strip": ["layer_types"], "num_hidden_layers": 9}),
    ("deepseek_v32", {"first_k_dense_replace": 1, "num_experts": 32, "n_shared_experts": 2, "num_hidden_layers": 6}),
    ("deepseek_v32", {"mlp_layer_types": ["dense", "sparse", "dense", "sparse"], "num_hidden_layers": 4,
                      "index_head_dim": 64, "attention_bias": True}),
    ("deepseek_v32", {"__strip": ["mlp_layer_types", "layer_types"], "first_k_dense_replace": 2,
                      "num_hidden_layers": 5}),
    ("deepseek_v4", {"num_hidden_layers": 7, "o_groups": 4, "hc_mult": 2,
                     "compress_rates": {"compressed_sparse_attention": 8, "heavily_compressed_attention": 64}}),
    ("deepseek_v4", {"num_hidden_layers": 5, "layer_types": ["sliding_attention", "compressed_sparse_attention",
                                                             "heavily_compressed_attention", "sliding_attention",
                                                             "compressed_sparse_attention"],
                     "mlp_bias": True, "index_n_heads": 16}),
    ("deepseek_v4", {"__strip": ["layer_types", "mlp_layer_types"], "num_hidden_layers": 8}),
    ("deepseek_v4", {"__strip": ["layer_types", "mlp_layer_types"], "num_hidden_layers": 1}),
    ("deepseek_v4", {"__strip": ["layer_types", "mlp_layer_types", "compress_rates", "partial_rotary_factor"],
                     "compress_ratios": [128, 4, 0, 4, 128, 0], "num_hidden_layers": 5, "compress_rate_csa": 8,
                     "qk_rope_head_dim": 32}),
    ("diffllama", {"head_dim": 32, "num_key_value_heads": 8, "attention_bias": True}),
    ("diffllama", {"num_hidden_layers": 2, "hidden_size": 512, "num_attention_heads": 8}),
    ("doge", {"is_moe": True, "num_experts": 1024, "num_experts_per_tok": 16, "num_hidden_layers": 4}),
    ("doge", {"is_moe": True, "num_experts": 1000, "mlp_bias": True, "attention_bias": True, "num_hidden_layers": 3}),
    ("doge", {"sliding_window": 512, "num_key_value_heads": 4}),
    ("ernie4_5", {"use_bias": True, "head_dim": None, "tie_word_embeddings": False}),
    ("ernie4_5", {"num_key_value_heads": 16, "num_hidden_layers": 4}),
    ("ernie4_5_moe", {"moe_layer_start_index": 2, "moe_layer_end_index": 20, "moe_layer_interval": 2,
                      "use_bias": True, "moe_num_shared_experts": 0}),
    ("ernie4_5_moe", {"moe_layer_interval": 3, "num_hidden_layers": 10, "tie_word_embeddings": False}),
    ("exaone4", {"sliding_window_pattern": 2, "num_hidden_layers": 6}),
    ("exaone4", {"head_dim": 64, "num_key_value_heads": 8, "num_hidden_layers": 4}),
    ("exaone4", {"__strip": ["layer_types"], "sliding_window_pattern": 4, "num_hidden_layers": 9}),
    ("exaone_moe", {"first_k_dense_replace": 3, "num_shared_experts": 2, "num_hidden_layers": 8}),
    ("exaone_moe", {"__strip": ["layer_types", "mlp_layer_types"], "first_k_dense_replace": 2,
                    "num_hidden_layers": 9}),
    ("flex_olmo", {"num_experts": 4, "num_experts_per_tok": 2, "num_key_value_heads": 8, "attention_bias": True,
                   "num_hidden_layers": 4}),
    ("flex_olmo", {"num_hidden_layers": 2, "intermediate_size": 1024}),
    ("glm", {"attention_bias": False, "head_dim": 64, "num_key_value_heads": 4, "num_hidden_layers": 4}),
    ("glm", {"num_hidden_layers": 2, "tie_word_embeddings": True}),
    ("glm4", {"head_dim": 64, "attention_bias": False, "num_hidden_layers": 4}),
    ("glm4", {"num_hidden_layers": 2, "num_key_value_heads": 32}),
    ("glm4_moe", {"use_qk_norm": True, "head_dim": 128, "first_k_dense_replace": 3, "n_shared_experts": 2,
                  "attention_bias": True, "num_hidden_layers": 8}),
    ("glm4_moe", {"n_routed_experts": 8, "num_hidden_layers": 3, "first_k_dense_replace": 0}),
    ("glm4_moe_lite", {"q_lora_rank": None, "mlp_layer_types": ["dense", "sparse", "dense", "sparse", "sparse", "dense"],
                       "num_hidden_layers": 6}),
    ("glm4_moe_lite", {"__strip": ["mlp_layer_types"], "num_hidden_layers": 5, "attention_bias": True}),
    ("glm_moe_dsa", {"indexer_types": ["full", "shared", "full", "shared", "shared", "full"], "num_hidden_layers": 6}),
    ("glm_moe_dsa", {"index_topk_freq": 3, "num_hidden_layers": 10, "first_k_dense_replace": 1}),
    ("glm_moe_dsa", {"__strip": ["mlp_layer_types", "layer_types", "indexer_types"], "index_topk_freq": 3,
                     "index_skip_topk_offset": 3, "num_hidden_layers": 11, "first_k_dense_replace": 2}),
    ("gpt_bigcode", {"multi_query": False}),
    ("gpt_bigcode", {"n_inner": 1000, "n_positions": 512, "n_layer": 3}),
    ("gpt_bigcode", {"multi_query": False, "add_cross_attention": True, "n_layer": 2}),
    ("gpt_neo", {"attention_types": [[["global", "local"], 2], [["local"], 2]], "num_layers": 6}),
    ("gpt_neo", {"intermediate_size": 1000, "window_size": 128, "attention_types": [[["global"], 4]], "num_layers": 4}),
    ("gpt_neo", {"__strip": ["attention_types"], "num_layers": 24, "hidden_size": 256, "num_heads": 4}),
    ("gpt_neox_japanese", {"intermediate_multiple_size": 2, "num_hidden_layers": 3}),
    ("gpt_neox_japanese", {"num_hidden_layers": 1, "tie_word_embeddings": False}),
]


def layers_path(model, n):
    for name, mod in model.named_modules():
        if isinstance(mod, torch.nn.ModuleList) and len(mod) == n:
            return name
    return None


def all_linear(model, path):
    from peft import LoraConfig
    from peft.tuners.tuners_utils import _maybe_include_all_linear_layers

    cfg = _maybe_include_all_linear_layers(LoraConfig(target_modules="all-linear"), model)
    pat = re.compile(re.escape(path) + r"\.\d+\.") if path else None
    return sorted({pat.sub(path + ".{i}.", n, count=1) if pat else n for n in cfg.target_modules})


def main():
    print(json.dumps({"about": "non-default configs of the fam_dense1 families, counted by transformers "
                               + transformers.__version__ + " on the meta device (make_variants_dense1.py)"}))
    for mt, kwargs in CASES:
        kwargs = dict(kwargs)
        strip = kwargs.pop("__strip", [])
        cfg = CONFIG_MAPPING[mt](**kwargs)
        saved = json.loads(cfg.to_json_string())
        if strip:
            saved = {k: v for k, v in saved.items() if k not in strip}
            for k, v in kwargs.items():
                saved.setdefault(k, v)
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(cfg)
        rec = {
            "model_type": mt,
            "variant": ",".join(sorted(kwargs)) + (" (no " + ", ".join(strip) + ")" if strip else ""),
            "class": type(model).__name__,
            "params": sum(p.numel() for p in model.parameters()),
            "in_scope": True,
            "config": saved,
            "peft_all_linear_modules": all_linear(model, layers_path(model, cfg.num_hidden_layers)),
        }
        print(json.dumps(rec, sort_keys=True))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
