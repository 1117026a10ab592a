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
    /* clang-format on */
};

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
