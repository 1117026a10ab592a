/* The torch peak of vLLM's profile run (v1/worker/gpu_model_runner.py
 * profile_run; v1/worker/gpu/model_runner.py for the V2 runner): the dummy
 * forward over max_num_batched_tokens tokens (attention is skipped: there is
 * no KV cache yet), the dummy sampler run over min(tokens, max_num_seqs)
 * requests, and for multimodal models the encoder run over the items of the
 * largest size that the encoder budget admits. What matters is what is live at
 * once under torch.compile (inductor frees each buffer after its last use),
 * per token of the largest layer piece. */
#include "engines/vllm/vllm.h"

#include <string.h>

#define u llmmem__nonneg

/* ---- the dummy forward ---------------------------------------------------------- */

/* Routed experts through fused_moe (fused_moe/fused_moe.py fused_experts_impl):
 * the input and residual, the router logits, the top-k weights and ids, one
 * cache for gate/up and down outputs (cache13: top_k * max(N, K)), the
 * activated intermediate (cache2: top_k * N/2), and for fp8 w8a8 the
 * quantized copies of both GEMM inputs; shared experts add their output. */
static uint64_t moe_token(llmmem__ovf *o, const struct llmmem_model *m,
                          const llmmem__vllm_profile_in *in)
{
    const uint64_t h = u(m->hidden_size), e = in->e, k = u(m->experts_per_token);
    const uint64_t E = u(m->num_experts);
    const uint64_t I = (u(m->moe_intermediate_size) ? u(m->moe_intermediate_size)
                                                     : u(m->intermediate_size));
    const uint64_t I_r = in->ep > 1 ? I : llmmem__ceil_div(I, in->tp);
    const uint64_t N = (m->gated_mlp ? 2 : 1) * I_r;
    uint64_t b = llmmem__mul(o, 2 * h + E, e);                           /* x, residual, logits */
    b = llmmem__add(o, b, 12 * k);                                       /* weights, ids, sorted ids */
    b = llmmem__add(o, b, llmmem__mul3(o, k, llmmem__max(N, h), e));    /* cache13 */
    b = llmmem__add(o, b, llmmem__mul3(o, k, N / (m->gated_mlp ? 2 : 1), e)); /* cache2 */
    if (in->fmt == LLMMEM__Q_FP8 || in->fmt == LLMMEM__Q_FP8_BLOCK)
        b = llmmem__add(o, b, h + k * I_r); /* a1q, a2q in fp8 */
    if (m->shared_expert_intermediate_size > 0)
        b = llmmem__add(o, b, llmmem__mul(o, h, e));
    return b;
}

/* Linear-attention (gated delta rule) and Mamba layers in the profile run.
 * The run has no attention metadata, so the gated DeltaNet's core returns
 * before any kernel ("V1 profile run": the fla chunk_gated_delta_rule
 * kernels and their fp32 chunk states never run at max_num_batched_tokens;
 * 0.29 only warms them up on 64 tokens). Up to 0.11 the whole layer is one
 * custom op (qwen3_next.py gdn_attention), in_proj included: what is left is
 * the decoder layer's empty_like output. From 0.12 the input projections
 * run outside the op (gdn_attention_core): the residual, the qkvz and ba
 * outputs, the zeroed core output and the gated norm's output. */
static uint64_t mixer_token(llmmem__ovf *o, const struct llmmem_model *m,
                            const llmmem__vllm_profile_in *in)
{
    const uint64_t h = u(m->hidden_size), e = in->e, tp = in->tp;
    uint64_t b = 0;
    if (m->lin.kind > 0 && !LLMMEM__VLLM_HAS(in->vb, GDN_PROFILE)) {
        b = llmmem__mul(o, 2 * h, e);
    } else if (m->lin.kind > 0) {
        const struct llmmem__lin *l = &m->lin;
        const uint64_t vh = llmmem__ceil_div(u(l->v_heads), tp);
        const uint64_t proj = llmmem__ceil_div(2 * u(l->k_heads) * u(l->k_dim) + 2 * u(l->v_heads) * u(l->v_dim), tp);
        b = llmmem__mul(o, h + proj + 2 * vh + 2 * vh * u(l->v_dim), e);
    }
    if (m->ssm.inner > 0) {
        const uint64_t inner = llmmem__ceil_div(u(m->ssm.inner), tp);
        b = llmmem__max(b, llmmem__mul(o, h + 3 * inner + 2 * u(m->ssm.groups) * u(m->ssm.state), e));
    }
    return b;
}

uint64_t llmmem__vllm_forward_token(llmmem__ovf *o, const struct llmmem_model *m,
                                    const llmmem__vllm_profile_in *in)
{
    const uint64_t h = u(m->hidden_size), e = in->e, tp = in->tp, d = u(m->head_dim);
    const uint64_t a_r = llmmem__ceil_div(u(m->num_heads), tp);
    /* attention piece: residual, qkv, the roped q and k, the output buffer
     * the attention layer allocates before its (skipped) kernel */
    uint64_t attn;
    if (m->kv_lora_rank > 0) {
        const uint64_t qk = u(m->qk_nope_head_dim) + u(m->qk_rope_head_dim);
        attn = llmmem__mul(o, h + a_r * (2 * qk + u(m->v_head_dim)) + u(m->kv_lora_rank) +
                                  u(m->qk_rope_head_dim),
                           e);
    } else {
        attn = llmmem__mul(o, h + llmmem__mul(o, 3 * a_r + 3 * in->k_r, d), e);
    }
    /* dense MLP piece: residual, gate_up output, SiluAndMul output
     * (inductor frees the normed input after the gate_up GEMM) */
    const uint64_t f_r = llmmem__ceil_div(u(m->intermediate_size), tp);
    uint64_t mlp = llmmem__mul(o, h + (m->gated_mlp ? 3 : 2) * f_r, e);
    uint64_t dense_layers = 0;
    for (int x = 0; x < LLMMEM__MX_COUNT; x++)
        dense_layers += u(m->layers_of[x][LLMMEM__FF_DENSE]);
    if (m->num_experts > 0 && dense_layers == 0 && m->num_moe_layers >= m->num_layers)
        mlp = 0;
    uint64_t b = llmmem__max(attn, mlp);
    if (m->num_experts > 0)
        b = llmmem__max(b, moe_token(o, m, in));
    b = llmmem__max(b, mixer_token(o, m, in));
    /* a row-parallel output and its all-reduced copy coexist (tp > 1) */
    if (tp > 1)
        b = llmmem__add(o, b, llmmem__mul(o, h, e));
    return b;
}

/* ---- the dummy sampler run ------------------------------------------------------ */

/* Bytes per logit (request x vocabulary entry) beyond the logits themselves at
 * the sampler's peak. The fp32 copy (Sampler.forward logits.to(float32)) and:
 *  - FlashInfer top_k_top_p_sampling_from_logits: top_k_mask_logits output and
 *    the softmax probs (4 + 4);
 *  - sort (apply_top_k_top_p): values 4 + int64 indices 8, and inside
 *    at::native launch_stable_sort_kernel: segmented_sort_pairs (>= 128
 *    rows) an int64 index input 8 + cub's alternate key/value buffers 12;
 *    segmented_sort_pairs_by_full_sort (< 128 rows) two int2 buffers 16, a key
 *    output 4 and the alternate buffers 12;
 *  - Triton apply_top_k_top_p_triton (in place): softmax probs 4 and the
 *    exponential noise q 4 (random_sample). */
static uint64_t sampler_bytes(int path, uint64_t reqs)
{
    switch (path) {
    case LLMMEM__VSAMP_FLASHINFER: return 4 + 4 + 4;
    case LLMMEM__VSAMP_TRITON: return 4 + 4 + 4;
    case LLMMEM__VSAMP_RUNNER_V2: return 0;
    default: return reqs >= 128 ? 4 + 4 + 8 + 8 + 12 : 4 + 4 + 8 + 16 + 4 + 12;
    }
}

static uint64_t next_pow2(uint64_t v)
{
    uint64_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

/* ---- the multimodal encoder ---------------------------------------------------- */

/* The encoder run over the dummy items (profile_run's first step): the
 * encoder budget is max(max_num_batched_tokens, one item's tokens)
 * (compute_encoder_budget), the items max(1, budget / tokens per item); the
 * tower's working set over their patches (hidden, qkv/out and the MLP
 * intermediate in the model dtype), what the Qwen towers hold through every
 * block (held_per_patch) and the outputs kept in the encoder cache through
 * the text forward. The largest item is the processor's largest image:
 * Qwen2-VL's preprocessor max_pixels 12845056, Qwen3.5's longest_edge
 * 16777216 (the tower's max_pixels). */
/* Bytes per patch a Qwen tower holds through all its blocks
 * (qwen2_vl.py Qwen2VisionTransformer.forward, qwen3_vl.py
 * Qwen3_VisionTransformer.forward; read in 0.8.5.post1, 0.9.2, 0.10.2, 0.11,
 * 0.13, 0.20, 0.33):
 *  - the pixel values, 3 x temporal x patch^2 per patch: the caller
 *    (_process_image_input) keeps them while the tower runs, on the GPU
 *    since group_and_batch_mm_kwargs moved them there; in the model dtype
 *    from 0.9 (the processor wrapper casts floating outputs: inputs/registry.py
 *    in 0.9.2 - 0.10, multimodal/processing.py 0.11 - 0.13,
 *    multimodal/processing/context.py later), the processor's fp32 in
 *    0.8.5.post1 (forward's own cast copy is freed after patch_embed);
 *  - the rotary position embedding of the patches, head_dim / 2 wide
 *    (partial_rotary_factor 0.5 of head_dim = hidden / heads): one fp32 table
 *    up to 0.12 (rot_pos_emb over VisionRotaryEmbedding's freqs; read up to
 *    0.11), cos and sin gathered from get_rope's cos_sin_cache in the model
 *    dtype from 0.13 (the same bytes for a 16-bit model);
 *  - Qwen3-VL only: the learned position table interpolated per patch
 *    (fast_pos_embed_interpolate, hidden wide, model dtype). */
static uint64_t held_per_patch(const struct llmmem__vision_tower *t,
                               const llmmem__vllm_profile_in *in)
{
    const uint64_t px = 3 * u(t->temporal_patch) * u(t->patch_size) * u(t->patch_size);
    const uint64_t hd = u(t->heads) ? u(t->hidden) / u(t->heads) : 0;
    uint64_t b = px * (LLMMEM__VLLM_HAS(in->vb, VISION_MODEL_DTYPE) ? in->e : 4);
    b += LLMMEM__VLLM_HAS(in->vb, VISION_ROPE_CACHE) ? in->e * hd : 4 * (hd / 2);
    if (t->kind == LLMMEM__V_QWEN3VL)
        b += u(t->hidden) * in->e;
    return b;
}

static int encoder(llmmem__vllm_profile *p, uint64_t *cache, llmmem__ovf *o,
                   const struct llmmem_model *m, const struct llmmem_config *c,
                   const llmmem__vllm_profile_in *in)
{
    *cache = 0;
    const struct llmmem__vision_tower *t = &m->vision;
    if (t->kind == LLMMEM__V_NONE || !in->first_stage)
        return 0;
    struct llmmem_config one = *c;
    one.images_per_sample = 1;
    one.video_frames = 0;
    one.image_height = one.image_width = 0;
    if (t->kind == LLMMEM__V_QWEN2VL && one.max_pixels == 0)
        one.max_pixels = 12845056; /* Qwen2-VL preprocessor max_pixels (the largest item) */
    llmmem__vision_bytes vb;
    int rc = llmmem__vision_compute(&vb, m, &one, 1, o);
    if (rc || !vb.lm_tokens)
        return rc;
    const uint64_t budget = llmmem__max(in->tokens, vb.lm_tokens);
    const uint64_t items = llmmem__max(1, budget / vb.lm_tokens);
    const uint64_t patches = llmmem__mul(o, items, vb.patches);
    const uint64_t hv = u(t->hidden), fv = u(t->intermediate);
    const uint64_t hv_r = llmmem__ceil_div(hv, in->tp), fv_r = llmmem__ceil_div(fv, in->tp);
    p->encoder = llmmem__mul3(o, patches, in->e, 2 * hv + llmmem__max(4 * hv_r, 2 * fv_r));
    if (LLMMEM__VISION_QWEN(t))
        p->encoder = llmmem__add(o, p->encoder, llmmem__mul(o, patches, held_per_patch(t, in)));
    *cache = llmmem__mul3(o, llmmem__mul(o, items, vb.lm_tokens), u(m->hidden_size), in->e);
    p->encoder = llmmem__add(o, p->encoder, *cache);
    p->enc_tokens = budget;
    p->enc_items = items;
    return 0;
}

int llmmem__vllm_profile_run(llmmem__vllm_profile *p, llmmem__ovf *o, const struct llmmem_model *m,
                             const struct llmmem_config *c, const llmmem__vllm_profile_in *in)
{
    memset(p, 0, sizeof *p);
    uint64_t cache = 0;
    int rc = encoder(p, &cache, o, m, c, in);
    if (rc)
        return rc;
    const uint64_t T = in->tokens, N = in->reqs, e = in->e, h = u(m->hidden_size);
    p->forward = llmmem__add(o, llmmem__mul(o, T, llmmem__vllm_forward_token(o, m, in)), cache);
    if (in->last_stage) {
        /* held: the model output [T, h], the sampled rows [N, h] (and the V1
         * runner's rand_like of them); the logits; the sampler's own tensors
         * over [N, V]. The V1 runner samples after compute_logits returned:
         * LogitsProcessor._gather_logits rebinds `logits` to the all-gathered
         * [N, V padded] copy (base_device_communicator.py all_gather), so the
         * rank's [N, V/tp] shard is gone by the sampler's peak. The V2
         * runner's dummy batch only computes the logits: its peak is inside
         * the gather, with the shard still referenced. */
        const uint64_t Vp = llmmem__round_up(o, u(m->vocab_size), 64), V = u(m->vocab_size);
        uint64_t s = llmmem__mul3(o, T + N * (in->mrv1_rand ? 2 : 1), h, e);
        if (in->sampler != LLMMEM__VSAMP_RUNNER_V2) {
            s = llmmem__add(o, s, llmmem__mul3(o, N, Vp, e));
        } else {
            s = llmmem__add(o, s, llmmem__mul3(o, N, llmmem__ceil_div(Vp, in->tp), e));
            if (in->tp > 1)
                s = llmmem__add(o, s, llmmem__mul3(o, N, Vp, e));
        }
        s = llmmem__add(o, s, llmmem__mul3(o, N, V, sampler_bytes(in->sampler, N)));
        p->sampler = s;
        if (in->sampler == LLMMEM__VSAMP_TRITON) {
            /* _TRITON_BUFFER_CACHE: min(next_pow2(min(sms, N)), sms) rows of fp32 */
            const uint64_t progs = llmmem__min(in->sms ? in->sms : 1, N);
            const uint64_t rows = llmmem__min(next_pow2(progs), in->sms ? in->sms : 1);
            p->persistent = llmmem__add(o, p->persistent, llmmem__mul3(o, rows, V, 4));
            p->sampler = llmmem__add(o, p->sampler, llmmem__mul3(o, rows, V, 4));
        }
    }
    /* the cuBLAS workspace comes with the first GEMM of the run */
    p->persistent = llmmem__add(o, p->persistent, in->ws);
    p->peak = llmmem__max(llmmem__max(p->forward, p->sampler), p->encoder);
    p->peak = llmmem__add(o, p->peak, in->ws);
    return 0;
}
