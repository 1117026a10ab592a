/* HF transformers generation for layers other than softmax attention: the
 * fixed-size state each keeps per sequence instead of K and V
 * (cache_utils.py LinearAttentionLayer: conv_states in the model dtype,
 * recurrent_states as the scan returns them, fp32), and the working sets of
 * their prefill and decode step, from the torch fallback of each mixer (the
 * kernels packages absent, as for training: saved_kinds.c). Attention layers
 * keep K and V as kv.c says; a layer without a mixer keeps nothing.
 *
 * Working sets are what one layer's forward allocates beyond its input at
 * its peak under torch.inference_mode, counted as the caching allocator
 * counts them (512-byte blocks), checked against tiny CPU models
 * (test/data/kinds/live_kinds.py, live-kinds.jsonl; test/test_kinds.c).
 * Python locals keep a mixer's intermediates alive until it returns, so the
 * chunked scans hold every chunk-sized tensor they made at once. */
#include "memory/kinds.h"

#include <string.h>

#define u   llmmem__nonneg
#define blk llmmem__alloc_tensor

/* Channels split over tp ranks (the HF runtime runs tp 1; the same split as vLLM's state shapes). */
static uint64_t split(uint64_t n, uint64_t tp) { return llmmem__ceil_div(n, tp ? tp : 1); }

/* The state of one layer of `mixer` over B sequences: the conv state [B,
 * channels, K] in the model dtype (Mamba and the gated delta rule pad the
 * prefill's conv input to the kernel: update_conv_state) and the recurrent
 * state in fp32 (Mamba-1 [B, I, N]; Mamba-2 [B, H, P, N]; gated delta rule
 * [B, Hv, dk, dv]); lfm2's short convolution keeps [B, h, L_cache]. */
uint64_t llmmem__state_layer(llmmem__ovf *o, const struct llmmem_model *m, int mixer, uint64_t B, uint64_t e,
                             uint64_t tp)
{
    switch (mixer) {
    case LLMMEM__MX_MAMBA: {
        const uint64_t I = split(u(m->ssm.inner), tp), N = u(m->ssm.state), K = u(m->ssm.conv);
        if (m->ssm.version == 2) {
            const uint64_t H = split(u(m->ssm.heads), tp), P = m->ssm.heads > 0 ? u(m->ssm.inner / m->ssm.heads) : 0;
            const uint64_t CD = I + 2 * u(m->ssm.groups) * N;
            return llmmem__add(o, blk(o, llmmem__mul3(o, B, CD * K, e)), blk(o, llmmem__mul3(o, B, H * P * N, 4)));
        }
        return llmmem__add(o, blk(o, llmmem__mul3(o, B, I * K, e)), blk(o, llmmem__mul3(o, B, I * N, 4)));
    }
    case LLMMEM__MX_LINEAR: {
        const struct llmmem__lin *l = &m->lin;
        const uint64_t Hv = split(u(l->v_heads), tp);
        const uint64_t CD = split(2 * u(l->k_heads) * u(l->k_dim) + u(l->v_heads) * u(l->v_dim), tp);
        return llmmem__add(o, blk(o, llmmem__mul3(o, B, CD * u(l->conv), e)),
                           blk(o, llmmem__mul3(o, B, Hv * u(l->k_dim) * u(l->v_dim), 4)));
    }
    case LLMMEM__MX_CONV:
        return blk(o, llmmem__mul3(o, B, split(u(m->hidden_size), tp) * u(m->conv_kernel), e));
    default: return 0;
    }
}

void llmmem__state_kv_layers(llmmem__kv_layers *l, llmmem__ovf *o, const struct llmmem_model *m, uint64_t B,
                             uint64_t e, uint64_t tp)
{
    llmmem__kinds ks;
    llmmem__kinds_of(&ks, m);
    memset(l, 0, sizeof *l);
    l->window = u(m->sliding_window);
    if (!l->window && m->layers_of[LLMMEM__MX_CHUNKED][LLMMEM__FF_DENSE] + m->layers_of[LLMMEM__MX_CHUNKED][LLMMEM__FF_MOE] > 0)
        l->window = u(m->chunk_size); /* HF caches chunked layers as a window of the chunk (kinds.c) */
    for (int i = 0; i < ks.n; i++) {
        const llmmem__kind *k = &ks.k[i];
        if (k->mixer == LLMMEM__MX_CHUNKED)
            l->n[LLMMEM__KV_SLIDING] += k->n;
        else if (k->mixer == LLMMEM__MX_FULL || (k->mixer == LLMMEM__MX_SLIDING && !l->window))
            l->n[LLMMEM__KV_FULL] += k->n;
        else if (k->mixer == LLMMEM__MX_SLIDING)
            l->n[LLMMEM__KV_SLIDING] += k->n;
        else
            l->state = llmmem__add(o, l->state, llmmem__mul(o, k->n, llmmem__state_layer(o, m, k->mixer, B, e, tp)));
    }
}

/* ---- prefill ---------------------------------------------------------------------------------- */

typedef struct ws {
    llmmem__ovf *o;
    uint64_t sum;
} ws;
static void t4(ws *w, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    w->sum = llmmem__add(w->o, w->sum, blk(w->o, llmmem__mul(w->o, llmmem__mul3(w->o, a, b, c), d)));
}

/* Mamba-1 (mamba_selective_scan, recurrent loop): in_proj's output, the conv
 * output's silu, x_proj's output, dt_proj's output and its softplus;
 * discrete_A, discrete_B and deltaB_u [B, I, S, N] fp32 alive through the
 * loop; each step's output [B, I] kept in a list (one block each) and
 * stacked; then y + x D and y silu(z) in fp32, with silu(z). */
static uint64_t prefill_mamba1(llmmem__ovf *o, const struct llmmem_model *m, uint64_t B, uint64_t S, uint64_t e,
                               uint64_t tp)
{
    const uint64_t I = split(u(m->ssm.inner), tp), N = u(m->ssm.state), R = u(m->ssm.dt_rank);
    ws w = {o, 0};
    t4(&w, B, S, 2 * I, e);           /* in_proj */
    t4(&w, B, I, S, e);               /* silu(conv) */
    t4(&w, B, S, R + 2 * N, e);       /* x_proj */
    t4(&w, 2 * B, I, S, e);           /* dt, softplus(dt) */
    t4(&w, 3 * B, I, S, 4 * N);       /* discrete_A, discrete_B, deltaB_u */
    w.sum = llmmem__add(o, w.sum, llmmem__mul(o, S, blk(o, llmmem__mul3(o, B, I, e)))); /* the steps' outputs */
    t4(&w, B, I, N, 4);               /* the last state */
    t4(&w, B, I, S, 4);               /* y + x D */
    t4(&w, B, I, S, e);               /* silu(z) */
    t4(&w, B, I, S, 4);               /* y silu(z) */
    return w.sum;
}

/* Mamba-2 (mamba2_chunk_scan): in_proj's output, the conv output's silu, x
 * and dt in fp32, B and C repeated to H heads and padded to sp (chunks of cs);
 * its locals L [B, H, sp, cs], G and M [B, sp, cs, H], the chunk states, and
 * at its peak G's broadcast product [B, sp, cs, H, N] fp32 before the sum. */
static uint64_t prefill_mamba2(llmmem__ovf *o, const struct llmmem_model *m, uint64_t B, uint64_t S, uint64_t e,
                               uint64_t tp)
{
    const uint64_t I = split(u(m->ssm.inner), tp), N = u(m->ssm.state), H = split(u(m->ssm.heads), tp);
    const uint64_t G = u(m->ssm.groups), cs = u(m->ssm.chunk), P = H ? I / H : 0;
    const uint64_t sp = cs ? llmmem__ceil_div(S, cs) * cs : S;
    ws w = {o, 0};
    t4(&w, B, S, 2 * I + 2 * G * N + H, e); /* in_proj */
    t4(&w, B, S, I + 2 * G * N, e);         /* silu(conv) */
    t4(&w, 2 * B, sp, H * P, 4);            /* x fp32, x dt padded */
    t4(&w, 2 * B, sp, H * N, 4);            /* B and C repeated, padded */
    t4(&w, B, H, sp, 4 * cs);               /* L */
    t4(&w, B, sp, cs, 4 * H);               /* G */
    t4(&w, B, sp, cs, 4 * H * llmmem__max(N, P)); /* the broadcast product before G's (Y_diag's) sum */
    return w.sum;
}

/* Gated delta rule (torch_chunk_gated_delta_rule): the projections and the
 * conv output's silu; q, k, v, beta, g in fp32, normalised, padded to sp
 * (chunks of 64); k beta, v beta; the decay P, the UT system and the
 * intra-chunk attention [B, Hv, sp, 64]; the solves, decayed q and k, the
 * output buffer; all alive until the function returns. */
static uint64_t prefill_gdn(llmmem__ovf *o, const struct llmmem_model *m, uint64_t B, uint64_t S, uint64_t e,
                            uint64_t tp)
{
    const struct llmmem__lin *l = &m->lin;
    const uint64_t Hv = split(u(l->v_heads), tp), dk = u(l->k_dim), dv = u(l->v_dim), c = 64;
    const uint64_t CD = split(2 * u(l->k_heads) * dk + u(l->v_heads) * dv, tp);
    const uint64_t sp = llmmem__ceil_div(S, c) * c;
    ws w = {o, 0};
    t4(&w, B, S, CD + Hv * dv, e);          /* in_proj_qkv(z) */
    t4(&w, B, S, CD, e);                    /* silu(conv) */
    t4(&w, 2 * B, S, Hv * dk, e);           /* q, k repeated to Hv heads */
    t4(&w, B, Hv, sp, 4 * (7 * dk + 4 * dv + 4)); /* q, k, v fp32 and their padded, beta'd, decayed forms */
    t4(&w, B, Hv, sp, 4 * 3 * c);           /* P, the UT system, the intra-chunk attention */
    return w.sum;
}

/* lfm2's short convolution: in_proj's output, B x, the conv output padded by
 * K-1, C y and its contiguous copy for out_proj. */
static uint64_t prefill_short_conv(llmmem__ovf *o, const struct llmmem_model *m, uint64_t B, uint64_t S,
                                   uint64_t e, uint64_t tp)
{
    const uint64_t h = split(u(m->hidden_size), tp), K = u(m->conv_kernel);
    ws w = {o, 0};
    t4(&w, B, S, 3 * h, e);
    t4(&w, B, h, S, e);
    t4(&w, B, h, S + K - 1, e);
    t4(&w, 2 * B, h, S, e);
    return w.sum;
}

uint64_t llmmem__state_prefill_ws(llmmem__ovf *o, const struct llmmem_model *m, int mixer, uint64_t B, uint64_t S,
                                  uint64_t e, uint64_t tp)
{
    switch (mixer) {
    case LLMMEM__MX_MAMBA:
        return m->ssm.version == 2 ? prefill_mamba2(o, m, B, S, e, tp) : prefill_mamba1(o, m, B, S, e, tp);
    case LLMMEM__MX_LINEAR: return prefill_gdn(o, m, B, S, e, tp);
    case LLMMEM__MX_CONV: return prefill_short_conv(o, m, B, S, e, tp);
    default: return 0;
    }
}

/* ---- decode ----------------------------------------------------------------------------------- */

/* One token per sequence: the recurrent update's temporaries, the size of the
 * state a few times over (Mamba-1, MambaMixer.slow_forward with a cache: the
 * state's clone, discrete_A, discrete_B, deltaB_u, the product discrete_A x
 * state and the new state, six [B, I, N] fp32 at the update; Mamba-2 dA, dB,
 * dBx per head [B, H, P, N] (three, low by about a quarter on the tiny models
 * of test/data/kinds: not derived further); the gated delta
 * rule's torch_recurrent_gated_delta_rule: the decayed state, k v^T and the
 * updated state [B, Hv, dk, dv] fp32), and the conv update's [B, ch, K+1]. */
uint64_t llmmem__state_decode_ws(llmmem__ovf *o, const struct llmmem_model *m, int mixer, uint64_t B, uint64_t e,
                                 uint64_t tp)
{
    switch (mixer) {
    case LLMMEM__MX_MAMBA: {
        const uint64_t I = split(u(m->ssm.inner), tp), N = u(m->ssm.state), K = u(m->ssm.conv);
        const uint64_t CD = m->ssm.version == 2 ? I + 2 * u(m->ssm.groups) * N : I;
        return llmmem__add(o, llmmem__mul(o, m->ssm.version == 2 ? 3 : 6, blk(o, llmmem__mul3(o, B, I * N, 4))),
                           blk(o, llmmem__mul3(o, B, CD * (K + 1), e)));
    }
    case LLMMEM__MX_LINEAR: {
        const struct llmmem__lin *l = &m->lin;
        const uint64_t Hv = split(u(l->v_heads), tp);
        const uint64_t CD = split(2 * u(l->k_heads) * u(l->k_dim) + u(l->v_heads) * u(l->v_dim), tp);
        return llmmem__add(o, llmmem__mul(o, 3, blk(o, llmmem__mul3(o, B, Hv * u(l->k_dim) * u(l->v_dim), 4))),
                           blk(o, llmmem__mul3(o, B, CD * (u(l->conv) + 1), e)));
    }
    case LLMMEM__MX_CONV:
        return blk(o, llmmem__mul3(o, B, split(u(m->hidden_size), tp) * (u(m->conv_kernel) + 1), e));
    default: return 0;
    }
}
