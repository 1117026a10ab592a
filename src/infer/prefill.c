/* The prefill working set of HF transformers generation: what PyTorch's
 * caching allocator holds at each point of one forward under
 * torch.inference_mode (transformers 5.x, torch 2.x) over B x S prompt tokens
 * with use_cache=True and logits_to_keep=1 (groundtruth/measure.py
 * run_infer). The peak is inside the last decoder layer, where the KV of every
 * layer is allocated; the candidates are the points where the most transients
 * coexist. Each term below names the upstream code it follows;
 * docs/inference.md has the formulas, docs/accuracy-inference.md the
 * comparison with the H200 measurements. The attention kernel's terms are in
 * prefill_attn.c. */
#include "infer/infer.h"

#include <string.h>

#define u   llmmem__nonneg
#define blk llmmem__alloc_tensor

#define MiB (UINT64_C(1) << 20)

void llmmem__point_keep_max(llmmem__ovf *o, llmmem__point *best, const llmmem__point *p)
{
    uint64_t a = llmmem__add(o, llmmem__add(o, p->kv, p->act), llmmem__add(o, p->logits, p->other));
    uint64_t b = llmmem__add(o, llmmem__add(o, best->kv, best->act),
                             llmmem__add(o, best->logits, best->other));
    if (a > b)
        *best = *p;
}

/* The decoder layers that keep K and V (all of them but in a model with
 * other layer kinds: kinds.c, state.c). */
static uint64_t attention_layers(const llmmem__infer *x)
{
    return x->layers.n[LLMMEM__KV_FULL] + x->layers.n[LLMMEM__KV_SLIDING];
}

static void prefill_shape(llmmem__prefill *p, llmmem__ovf *o, const llmmem__infer *x,
                          const struct llmmem_model *m)
{
    p->x = x;
    p->m = m;
    p->fam = m->family;
    p->rope = p->fam != LLMMEM__FAM_GPT2 && p->fam != LLMMEM__FAM_OPT;
    p->Th = blk(o, llmmem__mul3(o, x->e, x->T, x->h));
    p->Q = blk(o, llmmem__mul3(o, x->e, x->T, llmmem__mul(o, x->a, x->d)));
    p->K = blk(o, llmmem__mul3(o, x->e, x->T, llmmem__mul(o, x->k, x->d)));
    p->SS = llmmem__mul(o, x->S, x->S);
    /* the roped width of q and k: partial rotary, or MLA's rope part */
    p->partial = m->partial_rotary_factor > 0.0 && m->partial_rotary_factor < 1.0;
    p->rot = p->partial ? (uint64_t)((double)x->d * m->partial_rotary_factor) : x->d;
    if (m->kv_lora_rank > 0)
        p->rot = u(m->qk_rope_head_dim);
    const uint64_t ns = x->layers.n[LLMMEM__KV_SLIDING];
    p->two_kinds = ns > 0 && ns < ns + x->layers.n[LLMMEM__KV_FULL];
    /* sdpa skips the mask (is_causal) unless a sliding window is not larger
     * than the prompt (masking_utils _ignore_causal_mask_sdpa: kv_length <
     * local_attention_size) */
    p->sdpa_mask = !x->eager && ns > 0 && x->S >= x->layers.window;
}

/* ---- always alive during the layers -------------------------------------- */

/* Input ids (B*S int64, kept by the caller) and cache_position (S int64). */
static uint64_t inputs_ids_positions(llmmem__ovf *o, const llmmem__prefill *p)
{
    return llmmem__add(o, blk(o, llmmem__mul3(o, p->x->B, p->x->S, 8)),
                       blk(o, llmmem__mul(o, p->x->S, 8)));
}

/* RoPE cos/sin [1, S, rot] in the model dtype (LlamaRotaryEmbedding.forward;
 * position_ids = cache_position.unsqueeze(0)). Gemma3TextModel.forward
 * computes one (cos, sin) pair per layer type (`position_embeddings[layer_type]
 * = self.rotary_emb(hidden_states, position_ids, layer_type)`: local
 * rope_theta for sliding layers, global for full ones), both alive through
 * the layers; the other families compute one pair. */
static uint64_t rope_cos_sin(llmmem__ovf *o, const llmmem__prefill *p)
{
    uint64_t pairs = strncmp(p->m->model_type, "gemma3", 6) == 0 && p->two_kinds ? 2 : 1;
    return llmmem__mul(o, 2 * pairs, blk(o, llmmem__mul3(o, p->x->S, p->rot, p->x->e)));
}

/* Learned positions (GPT-2 wpe): [S, h] in the model dtype. */
static uint64_t learned_positions(llmmem__ovf *o, const llmmem__prefill *p)
{
    return blk(o, llmmem__mul3(o, p->x->S, p->x->h, p->x->e));
}

/* Masks (transformers masking_utils): eager always builds a float [B,1,S,S]
 * mask (eager_mask: torch.where on the bool mask), and models with sliding
 * and full layers one per layer type (gemma2/gemma3/gpt-oss forward:
 * causal_mask_mapping with create_causal_mask and
 * create_sliding_window_causal_mask), both materialised by eager_mask. sdpa
 * keeps only a needed bool mask, whose storage is [1,1,S,S] broadcast over
 * the batch. */
static uint64_t attention_masks(llmmem__ovf *o, const llmmem__prefill *p)
{
    if (p->x->eager)
        return llmmem__mul(o, p->two_kinds ? 2 : 1, llmmem__prefill_float_mask(o, p));
    return p->sdpa_mask ? blk(o, p->SS) : 0;
}

/* A Linear with a bias runs as addmm with a 1-D bias, which takes the
 * cuBLASLt path (aten Blas.cpp addmm_out_cuda_impl useLtInterface ->
 * CUDABlas.cpp gemm_and_bias); its workspace (CublasHandlePool.cpp
 * getCUDABlasLtWorkspace, CUBLASLT_WORKSPACE_SIZE default 1024 KiB) is
 * allocated at the first biased matmul and stays, like the cuBLAS one (H200
 * allocation trace of h03: 1,048,576 B at the first q_proj). */
uint64_t llmmem__prefill_cublaslt_workspace(const struct llmmem_model *m)
{
    return m->attention_bias || m->o_bias || m->mlp_bias ? MiB : 0;
}

/* Everything alive through the layers besides activations and KV: the
 * workspace, inputs, positions, masks, each sliding layer's state, the
 * cuBLASLt workspace. */
static uint64_t prefill_other(llmmem__ovf *o, const llmmem__prefill *p, uint64_t ws)
{
    uint64_t other = llmmem__add(o, ws, inputs_ids_positions(o, p));
    if (attention_layers(p->x)) /* a model of Mamba layers only has no positions */
        other = llmmem__add(o, other, p->rope ? rope_cos_sin(o, p) : learned_positions(o, p));
    other = llmmem__add(o, other, attention_masks(o, p));
    other = llmmem__add(o, other, llmmem__kv_state_all(o, &p->x->layers));
    return llmmem__add(o, other, llmmem__prefill_cublaslt_workspace(p->m));
}

/* The embeddings and the last layer's input (the loop variable of the
 * model's forward keeps it while the layer runs). */
static uint64_t residual_stream(llmmem__ovf *o, const llmmem__prefill *p)
{
    return llmmem__mul(o, p->x->L > 1 ? 2 : 1, p->Th);
}

/* ---- (1) RoPE, (3) norms ------------------------------------------------- */

/* RoPE inside attention (llama apply_rotary_pos_emb): q, k, v plus q*cos,
 * rotate_half(q), rotate_half(q)*sin, before this layer's update; without
 * RoPE the fused c_attn output (q, k, v). */
static uint64_t rope_qkv(llmmem__ovf *o, const llmmem__prefill *p)
{
    if (!p->rope)
        return llmmem__add(o, p->Q, llmmem__mul(o, 2, p->K));
    return llmmem__add(o, llmmem__mul(o, 4, p->Q), llmmem__mul(o, 2, p->K));
}

/* RMSNorm holds an fp32 copy and the fp32 normalised tensor (8 B per
 * element); LayerNorm is one fused op. */
static uint64_t norm_working_set(llmmem__ovf *o, const llmmem__prefill *p)
{
    if (p->m->norm == LLMMEM__NORM_RMS)
        return blk(o, llmmem__mul3(o, 8, p->x->T, p->x->h));
    return p->Th;
}

uint64_t llmmem__prefill_logits_last(llmmem__ovf *o, const llmmem__infer *x)
{
    return blk(o, llmmem__mul3(o, x->B, x->V, x->e));
}

/* One layer's KV after the prompt: K and V of all S tokens (every layer kind
 * keeps the whole prompt during prefill, kv.c), one tensor per layer. */
static uint64_t kv_prompt_layer(llmmem__ovf *o, const llmmem__infer *x)
{
    return blk(o, llmmem__mul3(o, x->B, x->S, x->kv_tl));
}

/* ---- the phase ----------------------------------------------------------- */

/* The mixers other than attention (state.c): each kind's working set at the
 * last layer, every layer's cache and state made. */
static void prefill_mixers(llmmem__ovf *o, llmmem__point *best, llmmem__infer *x,
                           const struct llmmem_model *m, llmmem__point c, uint64_t in_mixer)
{
    if (x->classic)
        return;
    llmmem__kinds ks;
    llmmem__kinds_of(&ks, m);
    for (int i = 0; i < ks.n; i++) {
        uint64_t w = llmmem__state_prefill_ws(o, m, ks.k[i].mixer, x->B, x->S, x->e, x->tp);
        if (!w)
            continue;
        c.act = llmmem__add(o, in_mixer, w);
        x->largest_mixer = llmmem__max(x->largest_mixer, w);
        llmmem__point_keep_max(o, best, &c);
    }
}

/* Whether some layer has a feed-forward (Mamba models have none). */
static bool has_ffn(const struct llmmem_model *m, const llmmem__infer *x)
{
    if (x->classic)
        return true;
    for (int mx = 0; mx < LLMMEM__MX_COUNT; mx++)
        if (m->layers_of[mx][LLMMEM__FF_DENSE] > 0 || m->layers_of[mx][LLMMEM__FF_MOE] > 0)
            return true;
    return false;
}

/* The candidate points of the last layer: (1) RoPE, before this layer's
 * update; (2) the attention kernel, this layer's KV appended; (3) the
 * post-attention norm; (4) the MLP (prefill_mlp.c); (5) the final norm over
 * all T positions, then the head on the last position (LlamaForCausalLM:
 * logits = lm_head(hidden_states[:, -1:, :])). A model with other layer
 * kinds has (2') each mixer's working set (state.c) instead where it has no
 * attention layer; the layers' states count with the KV cache. */
void llmmem__prefill_peak(llmmem__ovf *o, llmmem__infer *x, const struct llmmem_model *m,
                          uint64_t ws)
{
    llmmem__prefill p;
    prefill_shape(&p, o, x, m);
    const uint64_t nkv = attention_layers(x);
    const uint64_t kv_layer = kv_prompt_layer(o, x);
    const uint64_t kv_all = llmmem__add(o, llmmem__mul(o, kv_layer, nkv), x->layers.state);
    const uint64_t other = prefill_other(o, &p, ws);
    const uint64_t base = residual_stream(o, &p);
    const uint64_t x_norm = p.Th; /* the normed input of attention / MLP */
    const uint64_t norm_t = norm_working_set(o, &p);
    const uint64_t held = llmmem__prefill_held_probs(o, &p);
    const uint64_t in_attn = llmmem__add(o, base, x_norm);
    llmmem__point best = {0, 0, 0, 0};

    llmmem__point c;
    if (nkv) {
        /* (1) */
        c = (llmmem__point){llmmem__add(o, llmmem__mul(o, kv_layer, nkv - 1), x->layers.state), 0, 0, other};
        c.act = llmmem__add(o, in_attn, rope_qkv(o, &p));
        llmmem__point_keep_max(o, &best, &c);
        /* (2) */
        c = (llmmem__point){kv_all, 0, 0, other};
        c.act = llmmem__add(o, in_attn, llmmem__prefill_attention(o, &p, &x->largest));
        llmmem__point_keep_max(o, &best, &c);
    }
    /* (2') */
    c = (llmmem__point){kv_all, 0, 0, other};
    prefill_mixers(o, &best, x, m, c, in_attn);
    /* (3) */
    c.act = llmmem__add(o, llmmem__add(o, base, p.Th), llmmem__add(o, norm_t, held));
    llmmem__point_keep_max(o, &best, &c);
    /* (4) the residual, the normed input and eager's probabilities alive */
    const uint64_t in_mlp =
        llmmem__add(o, llmmem__add(o, base, p.Th), llmmem__add(o, x_norm, held));
    uint64_t mlp[LLMMEM__PREFILL_MLP_POINTS];
    for (int i = 0, n = has_ffn(m, x) ? llmmem__prefill_mlp(o, &p, mlp, &x->largest) : 0; i < n; i++) {
        c.act = llmmem__add(o, in_mlp, mlp[i]);
        llmmem__point_keep_max(o, &best, &c);
    }
    /* (5) */
    c = (llmmem__point){kv_all, llmmem__add(o, llmmem__add(o, p.Th, p.Th), norm_t), 0, other};
    llmmem__point_keep_max(o, &best, &c);
    c = (llmmem__point){kv_all, p.Th, llmmem__prefill_logits_last(o, x), other};
    llmmem__point_keep_max(o, &best, &c);
    x->prefill = best;
}
