/* Runtime hf: HF transformers generate on one GPU, a prefill forward over the
 * prompt (infer/prefill.c), then decode_len one-token steps
 * (infer/decode.c), composed into the result's prefill and decode phases.
 * The runtime's row is at the end; the allocator replay draws its run
 * (replay/reserved.c, tl_infer.c). */
#include "engines/engines.h"

#include <string.h>

#define u llmmem__nonneg

/* The shapes of one generate call on this GPU. */
static void hf_shapes(llmmem__infer *x, llmmem__ovf *o, const struct llmmem_model *m,
                      const struct llmmem_config *c, const llmmem__infer_base *b)
{
    const llmmem__run *run = b->run; /* the shapes of one tensor-parallel rank, B, S */
    memset(x, 0, sizeof *x);
    x->B = run->B;
    x->S = llmmem__add(o, run->S, b->vb.lm_tokens);
    x->N = run->N;
    x->T = llmmem__mul(o, x->B, x->S);
    x->e = b->e;
    x->h = run->h;
    x->L = run->L;
    x->a = run->a_r;
    x->k = run->k_r;
    x->d = run->d;
    x->f = run->f_r;
    x->V = run->V;
    /* decode_len 0 generates nothing: a forward over the prompt with use_cache=False
     * (generate refuses max_new_tokens=0), so no KV cache is kept */
    x->kv_tl = x->N ? b->kv_tl : 0;
    x->kv_part_tl = x->N ? llmmem__kv_part_token_layer(o, m, b->kvb, x->k) : 0;
    x->half = b->fmt == LLMMEM__Q_FP16 || (b->fmt != LLMMEM__Q_BF16 && b->fmt != LLMMEM__Q_FP32 &&
                                           m->torch_dtype == LLMMEM__DT_FP16);
    x->tp = run->tp;
    x->classic = llmmem__kinds_classic(m);
    if (x->classic)
        llmmem__kv_layers_of(&x->layers, m, x->L);
    else /* attention layers keep K and V, the others their states (state.c) */
        llmmem__state_kv_layers(&x->layers, o, m, x->B, x->e, x->tp);
    if (!x->N) /* no cache without decode steps */
        x->layers.state = 0;
    x->eager = c->attention == LLMMEM__ATTN_EAGER;
    x->repeat_kv = x->k < x->a && m->family != LLMMEM__FAM_FALCON;
    x->math_gqa = c->attention == LLMMEM__ATTN_SDPA && x->e == 4 && x->k < x->a &&
                  m->family != LLMMEM__FAM_FALCON;
}

/* Prefill then decode. The vision encoder runs before the language model
 * (weights only besides its own working set), so it is a separate point of
 * the prefill. */
static void hf_generate(llmmem__infer *x, llmmem__ovf *o, const struct llmmem_model *m,
                        const llmmem__infer_base *b)
{
    llmmem__prefill_peak(o, x, m, b->ws);
    if (b->vb.transient > llmmem__add(o, x->prefill.act, x->prefill.kv)) {
        x->prefill.act = b->vb.transient;
        x->prefill.kv = 0;
        x->prefill.logits = 0;
    }
    llmmem__decode_peak(o, x, m, b->ws);
}

/* One phase's components from its peak point. */
static void hf_phase(struct llmmem_result *r, int phase, const llmmem__point *p, uint64_t weights,
                     uint64_t ws)
{
    r->phase_used[phase] = true;
    r->bytes[phase][LLMMEM_C_WEIGHTS] = weights;
    r->bytes[phase][LLMMEM_C_KV_CACHE] = p->kv;
    r->bytes[phase][LLMMEM_C_ACTIVATION_TRANSIENT] = p->act;
    r->bytes[phase][LLMMEM_C_LOGITS] = p->logits;
    r->bytes[phase][LLMMEM_C_WORKSPACE] = ws;
    r->bytes[phase][LLMMEM_C_OTHER] = llmmem__sub0(p->other, ws);
}

/* The terms --explain reports for runtime hf. */
static void hf_terms(struct llmmem_result *r, const llmmem__infer *x, const llmmem__infer_base *b)
{
    llmmem__result_term(r, "kv_cache",
                        x->layers.state
                            ? "2*k*d*bytes*B*(prompt+decode) per full attention layer, min(prompt+decode, "
                              "window) per sliding one, + recurrent_state of the other layers [transformers "
                              "cache_utils.DynamicLayer, DynamicSlidingWindowLayer, LinearAttentionLayer]"
                            : "2*k*d*bytes*B*(prompt+decode) per full layer, min(prompt+decode, window) "
                              "per sliding layer [transformers cache_utils.DynamicLayer, "
                              "DynamicSlidingWindowLayer]",
                        x->kv_after);
    llmmem__result_term(
        r, "prefill_transient",
        "max over the last layer's RoPE, attention kernel, norm, MLP/experts and "
        "final norm of the live intermediates [modeling_llama.py, sdpa_attention.py, "
        "integrations/moe.py]",
        x->prefill.act);
    llmmem__result_term(r, "prefill_kv_at_peak", "KV of every layer for the prompt at the peak",
                        x->prefill.kv);
    llmmem__result_term(r, "inputs_rope_masks",
                        "ids B*S*8 + cache_position S*8 + cos/sin 2*S*rot*bytes per rope "
                        "(2 for gemma3) + masks [masking_utils.py] + 1 MiB cuBLASLt workspace "
                        "if a Linear has a bias",
                        llmmem__sub0(x->prefill.other, b->ws));
    llmmem__result_term(r, "cublas_workspace", "per handle [CublasHandlePool.cpp]", b->ws);
    if (b->vb.lm_tokens)
        llmmem__result_term(
            r, "vision_encoder_transient",
            "the frozen encoder's largest working set for the batch's images (vision.c)",
            b->vb.transient);
    if (x->N > 0)
        llmmem__result_term(r, "decode_peak_kv",
                            "KV after a step + the layer tensor torch.cat replaces", x->decode.kv);
    if (x->layers.state)
        llmmem__result_term(r, "recurrent_state",
                            "per sequence and non-attention layer: conv state channels x kernel x bytes + "
                            "recurrent state fp32 (Mamba-1 I N, Mamba-2 H P N, gated delta rule Hv dk dv; "
                            "short conv h L) [cache_utils.py LinearAttentionLayer; state.c]",
                            x->layers.state);
    if (x->largest_mixer)
        llmmem__result_term(r, "prefill_mixer_transient",
                            "the largest non-attention mixer's prefill working set, torch fallback (Mamba-1 "
                            "discrete_A/B, deltaB_u 12 B I S N; Mamba-2 the broadcast product 4 B S chunk H N; "
                            "gated delta rule 4 B Hv S (7 dk + 4 dv + 192)) [state.c]",
                            x->largest_mixer);
}

static int infer_hf(struct llmmem_result *r, const struct llmmem_model *m, const struct llmmem_config *c,
                    const llmmem__infer_base *b)
{
    llmmem__ovf o = {b->overflow};
    llmmem__infer x;
    hf_shapes(&x, &o, m, c, b);
    hf_generate(&x, &o, m, b);
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "batch_size %llu x prompt_len %llu x decode_len %llu overflows "
                             "64-bit byte counts",
                             (unsigned long long)b->run->B, (unsigned long long)b->run->S,
                             (unsigned long long)b->run->N);
    hf_phase(r, LLMMEM_PHASE_PREFILL, &x.prefill, b->weights, b->ws);
    if (x.N > 0)
        hf_phase(r, LLMMEM_PHASE_DECODE, &x.decode, b->weights, b->ws);
    r->largest_block =
        llmmem__max(x.largest, x.kv_tl ? llmmem__mul3(&o, x.B, x.S + x.N, x.kv_tl) : 0);
    llmmem__result_set_u64(r, LLMMEM_R_KV_CACHE_BYTES, x.kv_after);
    hf_terms(r, &x, b);
    if (c->allocator_replay && !b->vb.lm_tokens) {
        int rc = llmmem__reserved_infer(r, &x, m, c, b->weights, b->ws, b->run->sink);
        if (rc)
            return rc;
    }
    return llmmem__result_finish(r, c);
}

/* The options only HF generate reads: the batch and the lengths of one call. */
static const int hf_reads[] = {LLMMEM_P_BATCH_SIZE, LLMMEM_P_PROMPT_LEN, LLMMEM_P_DECODE_LEN, 0};

const llmmem__engine llmmem__runtime_hf = {
    .name = "hf",
    .fn = "llmmem_estimate_inference",
    .gate = LLMMEM_P_RUNTIME,
    .value = LLMMEM_RUNTIME_HF,
    .flags = LLMMEM__CAP_INFERENCE | LLMMEM__CAP_REPLAY | LLMMEM__CAP_POSITIONS,
    .reads = hf_reads,
    .kinds_use = LLMMEM__USE_HF,
    .plan_batch = LLMMEM_P_BATCH_SIZE,
    .plan_len = LLMMEM_P_PROMPT_LEN,
    .infer = infer_hf,
};
