/* The KV cache of inference: bytes per token by attention kind (MHA/GQA,
 * MLA) and tokens kept by layer kind (full, sliding window), after the HF
 * transformers caches (cache_utils.py DynamicLayer, DynamicSlidingWindowLayer)
 * and vLLM's KV specs (vllm/v1/kv_cache_interface.py). A new layer kind is one
 * enum value (memory/kinds.h) and one case in layer_tokens/layer_state below. */
#include "infer/infer.h"

#define u llmmem__nonneg

void llmmem__kv_layers_of(llmmem__kv_layers *l, const struct llmmem_model *m, uint64_t L)
{
    l->window = u(m->sliding_window);
    l->n[LLMMEM__KV_SLIDING] = l->window ? llmmem__min(u(m->num_sliding_layers), L) : 0;
    l->n[LLMMEM__KV_FULL] = L - l->n[LLMMEM__KV_SLIDING];
}

/* MLA caches the compressed latent and the roped key part, (kv_lora_rank +
 * qk_rope_head_dim) per token: vllm/v1/kv_cache_interface.py MLAAttentionSpec
 * (one latent + rope); HF transformers 5.17 the same, measured on H200 for
 * deepseek_v2 and deepseek_v3 (h13, h34: 576 B per token per layer =
 * (256 + 32) * 2). */
static uint64_t mla_token_layer(llmmem__ovf *o, const struct llmmem_model *m, uint64_t kvb)
{
    return llmmem__mul(o, u(m->kv_lora_rank) + u(m->qk_rope_head_dim), kvb);
}

uint64_t llmmem__kv_token_layer(llmmem__ovf *o, const struct llmmem_model *m, uint64_t kvb,
                                uint64_t k_r)
{
    if (m->kv_lora_rank > 0)
        return mla_token_layer(o, m, kvb);
    /* cache_utils.DynamicLayer / vLLM AttentionSpec: 2*k*d elements */
    return llmmem__mul3(o, 2 * k_r, u(m->head_dim), kvb);
}

uint64_t llmmem__kv_part_token_layer(llmmem__ovf *o, const struct llmmem_model *m, uint64_t kvb,
                                     uint64_t k_r)
{
    /* MLA caches the latent as keys and the roped part as values */
    if (m->kv_lora_rank > 0)
        return llmmem__mul(o, llmmem__max(u(m->kv_lora_rank), u(m->qk_rope_head_dim)), kvb);
    return llmmem__mul3(o, k_r, u(m->head_dim), kvb);
}

/* Decode appends one token per step with torch.cat. A full layer keeps them
 * all; DynamicSlidingWindowLayer keeps a view of the last window-1 tokens of
 * the concatenation, so its storage after step n >= 1 is min(S+n, window)
 * tokens, and during prefill the whole prompt (cache_utils.py). */
uint64_t llmmem__kv_layer_tokens(const llmmem__kv_layers *l, int kind, uint64_t S, uint64_t step)
{
    switch (kind) {
    case LLMMEM__KV_SLIDING: return step == 0 ? S : llmmem__min(S + step, l->window);
    default: return S + step;
    }
}

/* Each sliding layer's _sliding_window_tensor (int64 scalar, one 512-byte
 * block) is moved to the GPU at its first update
 * (DynamicSlidingWindowLayer.lazy_initialization). */
uint64_t llmmem__kv_layer_state(int kind) { return kind == LLMMEM__KV_SLIDING ? 512 : 0; }

uint64_t llmmem__kv_bytes_at(llmmem__ovf *o, const llmmem__kv_layers *l, uint64_t S, uint64_t step,
                             uint64_t tok)
{
    uint64_t sum = 0;
    for (int kind = 0; kind < LLMMEM__KV_KINDS; kind++)
        sum = llmmem__add(
            o, sum, llmmem__mul3(o, l->n[kind], llmmem__kv_layer_tokens(l, kind, S, step), tok));
    return sum;
}

uint64_t llmmem__kv_state_all(llmmem__ovf *o, const llmmem__kv_layers *l)
{
    uint64_t sum = 0;
    for (int kind = 0; kind < LLMMEM__KV_KINDS; kind++)
        sum = llmmem__add(o, sum, llmmem__mul(o, l->n[kind], llmmem__kv_layer_state(kind)));
    return sum;
}

uint64_t llmmem__kv_layer_tokens_max(const llmmem__kv_layers *l, uint64_t S, uint64_t step)
{
    uint64_t most = 0;
    for (int kind = 0; kind < LLMMEM__KV_KINDS; kind++)
        if (l->n[kind])
            most = llmmem__max(most, llmmem__kv_layer_tokens(l, kind, S, step));
    return most;
}
