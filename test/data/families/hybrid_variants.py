#!/usr/bin/env python3
"""Variant configs of the state-space, linear-attention and hybrid families
(src/model/fam_hybrid.c), counted by transformers on the meta device.

usage: python hybrid_variants.py > hybrid-variants-5.17.jsonl
(written with transformers 5.17.0, torch 2.11, peft 0.21; a CPU is enough)

Each record: the family's default config as save_pretrained writes it, with
the variant's keys set ("__drop__" removes keys: the Hub spellings such as
hybrid_override_pattern or linear_attn_config are then what decides), the
parameter count of AutoModelForCausalLM built from it on the meta device, and
the modules peft's target_modules="all-linear" wraps, with the decoder-layer
index as {i} and any other index as {j} (the format of
transformers-5.17-families.jsonl, read by test/families.py). The "default"
variants are the unmodified default configs."""
import contextlib
import copy
import io
import json
import re
import sys
import warnings

warnings.filterwarnings("ignore")
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoModelForCausalLM, CONFIG_MAPPING  # noqa: E402

transformers.logging.set_verbosity_error()

FAMILIES = ("mamba mamba2 falcon_mamba bamba falcon_h1 granitemoehybrid jamba nemotron_h zamba zamba2 kimi_linear "
            "lfm2 minimax minimax_m2 minimax_m3_vl_text qwen3_next qwen3_5_text qwen3_5_moe_text olmo_hybrid "
            "recurrent_gemma rwkv xlstm hrm_text inkling_text").split()

VARIANTS = [
    ('mamba', 'small-rank', {'hidden_size': 1024, 'num_hidden_layers': 3, 'state_size': 8, 'expand': 3, 'conv_kernel': 3, 'time_step_rank': 20, 'use_bias': True, 'use_conv_bias': False, 'tie_word_embeddings': False, 'vocab_size': 1000}),
    ('mamba', 'auto-rank', {'hidden_size': 1000, 'time_step_rank': 'auto', 'num_hidden_layers': 2, '__drop__': ['intermediate_size']}),
    ('falcon_mamba', 'v1', {'hidden_size': 512, 'num_hidden_layers': 4, 'state_size': 32, 'expand': 4, 'time_step_rank': 17, 'use_bias': True}),
    ('mamba2', 'v1', {'hidden_size': 768, 'num_heads': 24, 'head_dim': 64, 'n_groups': 2, 'state_size': 64, 'num_hidden_layers': 3, 'use_bias': True, 'use_conv_bias': False, 'tie_word_embeddings': True, 'conv_kernel': 3}),
    ('mamba2', 'v2', {'hidden_size': 512, 'expand': 3, 'num_heads': 48, 'head_dim': 32, 'n_groups': 1, 'state_size': 16, 'num_hidden_layers': 2}),
    ('bamba', 'idx', {'hidden_size': 512, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 1024, 'num_hidden_layers': 5, 'attn_layer_indices': [1, 3], 'mamba_n_heads': 16, 'mamba_d_head': 'auto', 'mamba_n_groups': 2, 'mamba_d_state': 32, 'mamba_proj_bias': True, 'mamba_conv_bias': False, 'attention_bias': True, 'mlp_bias': True, 'head_dim': 32, 'mamba_d_conv': 3}),
    ('bamba', 'allmamba', {'hidden_size': 512, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 1024, 'num_hidden_layers': 3, 'mamba_n_heads': 8, 'mamba_d_head': 128, 'mamba_expand': 2, 'tie_word_embeddings': True}),
    ('granitemoehybrid', 'legacy', {'hidden_size': 512, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 1024, 'num_hidden_layers': 4, 'layer_types': ['mamba', 'attention', 'mamba', 'mamba'], 'num_local_experts': 4, 'num_experts_per_tok': 2, 'shared_intermediate_size': 256, 'mamba_n_heads': 16, 'mamba_d_head': 64, 'mamba_n_groups': 2, 'attention_bias': True, 'mamba_proj_bias': True}),
    ('granitemoehybrid', 'dense', {'hidden_size': 512, 'num_attention_heads': 8, 'num_key_value_heads': None, 'vocab_size': 1000, 'intermediate_size': 1024, 'num_hidden_layers': 3, 'layer_types': ['linear_attention', 'full_attention', 'linear_attention'], 'num_local_experts': 0, 'shared_intermediate_size': 768, 'mamba_n_heads': 8, 'mamba_d_head': 'auto'}),
    ('falcon_h1', 'v1', {'hidden_size': 512, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 1024, 'num_hidden_layers': 3, 'mamba_d_ssm': None, 'mamba_n_heads': 16, 'mamba_d_head': 'auto', 'mamba_n_groups': 2, 'mamba_rms_norm': True, 'projectors_bias': True, 'mamba_proj_bias': True, 'attention_bias': True, 'mlp_bias': True, 'mamba_d_state': 64}),
    ('falcon_h1', 'v2', {'hidden_size': 512, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 1024, 'num_hidden_layers': 2, 'mamba_d_ssm': 768, 'mamba_n_heads': 12, 'mamba_d_head': 64, 'mamba_rms_norm': True, 'mamba_conv_bias': False, 'tie_word_embeddings': True}),
    ('nemotron_h', 'pattern', {'hidden_size': 512, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 1024, '__drop__': ['layers_block_type'], 'hybrid_override_pattern': 'M-M*-ME', 'num_hidden_layers': 7, 'mamba_num_heads': 16, 'mamba_head_dim': 32, 'ssm_state_size': 32, 'mamba_n_groups': 2, 'n_routed_experts': 4, 'num_experts_per_tok': 2, 'moe_intermediate_size': 256, 'moe_shared_expert_intermediate_size': 384, 'moe_latent_size': 128, 'mlp_bias': True, 'use_bias': True, 'head_dim': 64}),
    ('nemotron_h', 'list', {'hidden_size': 512, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 1024, 'layers_block_type': ['mamba', 'attention', 'moe', 'mlp', 'mamba'], 'mamba_num_heads': 8, 'mamba_head_dim': 64, 'n_groups': 1, 'n_routed_experts': 6, 'moe_intermediate_size': 128, 'moe_shared_expert_intermediate_size': 0, 'conv_kernel': 3, 'use_conv_bias': False}),
    ('jamba', 'v1', {'hidden_size': 512, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 1024, 'num_hidden_layers': 7, 'attn_layer_period': 4, 'attn_layer_offset': 1, 'expert_layer_period': 3, 'expert_layer_offset': 2, 'num_experts': 4, 'mamba_dt_rank': 'auto', 'mamba_proj_bias': True, 'mamba_conv_bias': False, 'mamba_d_state': 8}),
    ('jamba', 'dense', {'hidden_size': 512, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 1024, 'num_hidden_layers': 4, 'num_experts': 1, 'mamba_dt_rank': 20, 'mamba_expand': 3, 'tie_word_embeddings': True}),
    ('zamba', 'rule', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, '__drop__': ['layers_block_type', 'attention_hidden_size', 'attention_head_dim'], 'num_hidden_layers': 14, 'attn_layer_period': 4, 'attn_layer_offset': 1, 'n_mamba_heads': 4, 'mamba_dt_rank': 'auto', 'mamba_d_state': 8, 'mamba_proj_bias': True, 'mamba_conv_bias': False, 'tie_word_embeddings': False}),
    ('zamba', 'list', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'layers_block_type': ['mamba', 'hybrid', 'mamba', 'hybrid', 'mamba'], 'num_hidden_layers': 5, 'attention_hidden_size': 512, 'attention_head_dim': 48, 'mamba_dt_rank': 10}),
    ('zamba2', 'mem2', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'layers_block_type': ['mamba', 'hybrid', 'mamba', 'hybrid', 'hybrid', 'mamba', 'hybrid'], 'num_hidden_layers': 7, 'hybrid_layer_ids': [1, 3, 4, 6], 'num_mem_blocks': 2, 'use_shared_attention_adapter': True, 'adapter_rank': 16, 'mamba_ngroups': 2, 'n_mamba_heads': 4, 'mamba_d_state': 16, 'add_bias_linear': True, 'tie_word_embeddings': False}),
    ('zamba2', 'mem3', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': None, 'layers_block_type': ['linear_attention', 'hybrid', 'linear_attention', 'hybrid'], 'num_hidden_layers': 4, 'hybrid_layer_ids': [1, 3], 'num_mem_blocks': 3, 'n_mamba_heads': 8}),
    ('zamba2', 'mem2tied', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'layers_block_type': ['mamba', 'hybrid', 'hybrid', 'mamba', 'hybrid', 'hybrid', 'hybrid'], 'hybrid_layer_ids': [1, 2, 4, 5, 6], 'num_hidden_layers': 7, 'num_mem_blocks': 2, 'use_shared_attention_adapter': True, 'adapter_rank': 8, 'tie_word_embeddings': True}),
    ('qwen3_next', 'rule', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, '__drop__': ['layer_types'], 'num_hidden_layers': 6, 'full_attention_interval': 2, 'mlp_only_layers': [1], 'decoder_sparse_step': 2, 'attention_bias': True, 'shared_expert_intermediate_size': 32, 'num_experts': 8, 'num_experts_per_tok': 2, 'moe_intermediate_size': 64, 'head_dim': 32, 'linear_num_key_heads': 4, 'linear_num_value_heads': 8, 'linear_key_head_dim': 32, 'linear_value_head_dim': 48, 'linear_conv_kernel_dim': 3}),
    ('qwen3_5_text', 'rule', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, '__drop__': ['layer_types'], 'num_hidden_layers': 5, 'full_attention_interval': 3, 'tie_word_embeddings': True, 'head_dim': 64, 'linear_num_key_heads': 2, 'linear_num_value_heads': 6, 'linear_key_head_dim': 64, 'linear_value_head_dim': 32}),
    ('qwen3_5_moe_text', 'list', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'layer_types': ['full_attention', 'linear_attention', 'linear_attention'], 'num_hidden_layers': 3, 'num_experts': 16, 'num_experts_per_tok': 4, 'moe_intermediate_size': 96, 'shared_expert_intermediate_size': 128, 'attention_bias': True}),
    ('olmo_hybrid', 'nulls', {'hidden_size': 256, 'num_attention_heads': 4, 'num_key_value_heads': None, 'vocab_size': 1000, 'intermediate_size': 640, 'pad_token_id': 0, '__drop__': ['layer_types'], 'num_hidden_layers': 3, 'linear_num_key_heads': None, 'linear_key_head_dim': None, 'attention_bias': True}),
    ('olmo_hybrid', 'dims', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'pad_token_id': 0, '__drop__': ['layer_types'], 'num_hidden_layers': 8, 'linear_num_key_heads': 2, 'linear_num_value_heads': 4, 'linear_key_head_dim': 40, 'linear_value_head_dim': 24, 'linear_conv_kernel_dim': 3}),
    ('minimax', 'rule', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, '__drop__': ['layer_types'], 'num_hidden_layers': 5, 'head_dim': 48, 'num_local_experts': 4, 'num_experts_per_tok': 1}),
    ('minimax_m2', 'v1', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'num_hidden_layers': 3, 'head_dim': 64, 'num_local_experts': 16, 'num_experts_per_tok': 4}),
    ('minimax_m3_vl_text', 'lists', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'num_hidden_layers': 4, 'layer_types': ['full_attention', 'minimax_m3_sparse', 'minimax_m3_sparse', 'full_attention'], 'mlp_layer_types': ['dense', 'sparse', 'dense', 'sparse'], 'dense_intermediate_size': 512, 'shared_intermediate_size': 64, 'num_local_experts': 8, 'num_experts_per_tok': 2, 'index_n_heads': 2, 'index_head_dim': 32, 'head_dim': 64}),
    ('minimax_m3_vl_text', 'hub', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, '__drop__': ['layer_types', 'mlp_layer_types'], 'num_hidden_layers': 3, 'sparse_attention_config': {'sparse_attention_freq': [0, 1, 1], 'sparse_num_index_heads': 3, 'sparse_index_dim': 16}, 'moe_layer_freq': [0, 1, 1], 'dense_intermediate_size': 384, 'num_local_experts': 8, 'num_experts_per_tok': 2, 'head_dim': 32}),
    ('kimi_linear', 'qlora', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'pad_token_id': 0, 'bos_token_id': 1, 'eos_token_id': 2, '__drop__': ['layer_types', 'mlp_layer_types', 'linear_head_dim', 'linear_num_heads', 'linear_conv_kernel_dim'], 'num_hidden_layers': 5, 'q_lora_rank': 64, 'kv_lora_rank': 32, 'qk_rope_head_dim': 16, 'qk_nope_head_dim': 32, 'v_head_dim': 24, 'first_k_dense_replace': 2, 'attention_bias': True, 'num_experts': 8, 'num_experts_per_token': 2, 'num_shared_experts': 2, 'moe_intermediate_size': 48, 'linear_attn_config': {'full_attn_layers': [2, 5], 'kda_layers': [1, 3, 4], 'head_dim': 32, 'num_heads': 4, 'short_conv_kernel_size': 3}}),
    ('kimi_linear', 'lists', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'pad_token_id': 0, 'bos_token_id': 1, 'eos_token_id': 2, 'num_hidden_layers': 3, 'layer_types': ['full_attention', 'linear_attention', 'full_attention'], 'mlp_layer_types': ['sparse', 'dense', 'sparse'], 'num_experts': 4, 'num_experts_per_token': 2, 'linear_head_dim': 16, 'linear_num_heads': 8}),
    ('lfm2', 'idx', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, '__drop__': ['layer_types'], 'num_hidden_layers': 5, 'full_attn_idxs': [1, 3], 'block_ffn_dim_multiplier': 1.5, 'block_multiple_of': 96, 'conv_bias': True, 'conv_L_cache': 4, 'tie_word_embeddings': False}),
    ('lfm2', 'noadjust', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'layer_types': ['conv', 'full_attention', 'conv'], 'num_hidden_layers': 3, 'block_auto_adjust_ff_dim': False, '__drop__': ['full_attn_idxs']}),
    ('recurrent_gemma', 'v1', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 2, 'vocab_size': 1000, 'intermediate_size': 640, 'pad_token_id': 0, 'bos_token_id': 1, 'eos_token_id': 2, 'num_hidden_layers': 5, 'block_types': ['recurrent', 'attention'], 'lru_width': 512, 'attention_bias': True, 'conv1d_width': 3, 'tie_word_embeddings': False, 'head_dim': 32}),
    ('recurrent_gemma', 'v2', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 768, 'pad_token_id': 0, 'bos_token_id': 1, 'eos_token_id': 2, 'num_hidden_layers': 4, 'block_types': ['attention', 'recurrent', 'recurrent', 'recurrent'], 'lru_width': None}),
    ('rwkv', 'v1', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': None, 'pad_token_id': 0, 'bos_token_id': 0, 'eos_token_id': 0, 'num_hidden_layers': 3, 'attention_hidden_size': 384, 'tie_word_embeddings': True}),
    ('rwkv', 'v2', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 900, 'pad_token_id': 0, 'bos_token_id': 0, 'eos_token_id': 0, 'num_hidden_layers': 2, 'attention_hidden_size': None}),
    ('xlstm', 'bias', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'pad_token_id': 0, 'bos_token_id': 1, 'eos_token_id': 2, 'embedding_dim': 256, 'num_hidden_layers': 3, 'num_blocks': 3, 'use_bias': True, 'qk_dim_factor': 0.3, 'v_dim_factor': 0.75, 'ffn_proj_factor': 1.3, 'num_heads': 4, 'ffn_round_up_to_multiple_of': 32}),
    ('xlstm', 'plain', {'hidden_size': 384, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'pad_token_id': 0, 'bos_token_id': 1, 'eos_token_id': 2, 'embedding_dim': 384, 'num_hidden_layers': 2, 'num_blocks': 2, 'num_heads': 6, 'qk_dim_factor': 0.5, 'v_dim_factor': 1.0, 'tie_word_embeddings': True}),
    ('hrm_text', 'nostack', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, '__drop__': ['num_layers_per_stack'], 'num_hidden_layers': 3, 'H_cycles': 3, 'L_cycles': 2, 'L_bp_cycles': [1, 2], 'attention_bias': True, 'mlp_bias': True, 'head_dim': 16}),
    ('hrm_text', 'stack', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'num_layers_per_stack': 2, 'num_hidden_layers': 12, 'H_cycles': 2, 'L_cycles': 2, 'tie_word_embeddings': True}),
    ('inkling_text', 'idx', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, '__drop__': ['layer_types', 'mlp_layer_types'], 'pad_token_id': 0, 'bos_token_id': 1, 'eos_token_id': 2, 'num_hidden_layers': 4, 'local_layer_ids': [0, 2], 'dense_mlp_idx': 1, 'swa_num_attention_heads': 4, 'swa_num_key_value_heads': 2, 'swa_head_dim': 48, 'head_dim': 32, 'sliding_window_size': 64, 'rel_extent': 96, 'd_rel': 8, 'n_routed_experts': 8, 'num_experts_per_tok': 2, 'n_shared_experts': 1, 'moe_intermediate_size': 64, 'conv_kernel_size': 3}),
    ('inkling_text', 'rule', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, '__drop__': ['layer_types', 'mlp_layer_types'], 'pad_token_id': 0, 'bos_token_id': 1, 'eos_token_id': 2, 'num_hidden_layers': 7, 'head_dim': 32, 'swa_head_dim': 32, 'n_routed_experts': 4, 'num_experts_per_tok': 2, 'moe_intermediate_size': 32}),
    ('nemotron_h', 'tied', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'layers_block_type': ['mamba', 'attention', 'moe', 'mlp'], 'mamba_num_heads': 8, 'mamba_head_dim': 64, 'n_groups': 1, 'n_routed_experts': 4, 'moe_intermediate_size': 64, 'moe_shared_expert_intermediate_size': 32, 'tie_word_embeddings': True, 'head_dim': 32}),
    ('kimi_linear', 'tied', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, 'pad_token_id': 0, 'bos_token_id': 1, 'eos_token_id': 2, 'num_hidden_layers': 3, 'num_experts': 4, 'num_experts_per_token': 2, 'linear_head_dim': 16, 'linear_num_heads': 8, 'tie_word_embeddings': True, 'layer_types': ['linear_attention', 'full_attention', 'linear_attention'], 'mlp_layer_types': ['dense', 'sparse', 'sparse']}),
    ('inkling_text', 'tied', {'hidden_size': 256, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'vocab_size': 1000, 'intermediate_size': 640, '__drop__': ['layer_types', 'mlp_layer_types'], 'pad_token_id': 0, 'bos_token_id': 1, 'eos_token_id': 2, 'num_hidden_layers': 2, 'head_dim': 32, 'swa_head_dim': 32, 'n_routed_experts': 4, 'num_experts_per_tok': 2, 'moe_intermediate_size': 32, 'tie_word_embeddings': True}),
]


def layers_path(model):
    """The decoder-layer ModuleList: the one holding the most parameters."""
    best, best_n = None, -1
    for name, mod in model.named_modules():
        if isinstance(mod, torch.nn.ModuleList) and len(mod) > 0:
            n = sum(p.numel() for p in mod.parameters())
            if n > best_n:
                best, best_n = name, n
    return best


def template(name, lp):
    head, parts = None, name.split(".")
    if lp and name.startswith(lp + "."):
        head, parts = lp + ".{i}", name[len(lp) + 1:].split(".")[1:]
    parts = ["{j}" if re.match(r"^\d+$", p) else p for p in parts]
    return ".".join(([head] if head else []) + parts)


def record(mt, name, config):
    from peft import LoraConfig
    from peft.tuners.tuners_utils import _maybe_include_all_linear_layers

    cfg = CONFIG_MAPPING[mt]._decode_special_floats(copy.deepcopy(config))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cfg = CONFIG_MAPPING[mt].from_dict(cfg)
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(cfg)
    lp = layers_path(model)
    lora = _maybe_include_all_linear_layers(LoraConfig(target_modules="all-linear"), model)
    return {"model_type": mt, "variant": name, "class": type(model).__name__,
            "params": sum(p.numel() for p in model.parameters()), "config": config,
            "peft_all_linear_modules": sorted({template(n, lp) for n in lora.target_modules})}


def main():
    print(json.dumps({"about": "variant configs of the hybrid families counted on the meta device "
                               "(test/data/families/hybrid_variants.py)",
                      "transformers": transformers.__version__, "torch": torch.__version__}))
    for mt, name, changes in [(mt, "default", {}) for mt in FAMILIES] + VARIANTS:
        d = json.loads(CONFIG_MAPPING[mt]().to_json_string())
        d.pop("transformers_version", None)
        for k in changes.get("__drop__", []):
            d.pop(k, None)
        d.update({k: v for k, v in changes.items() if k != "__drop__"})
        print(json.dumps(record(mt, name, d)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
