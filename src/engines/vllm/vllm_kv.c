/* vLLM's KV cache layout on one rank: the spec of each layer
 * (v1/kv_cache_interface.py), the page-size unification of attention +
 * Mamba hybrids (model_executor/models/config.py
 * HybridAttentionMambaModelConfig.verify_and_update_config), the KV cache
 * groups of the hybrid KV cache manager (v1/core/kv_cache_utils.py
 * _get_kv_cache_groups_uniform_page_size) and the blocks one max_model_len
 * request holds (max_memory_usage_bytes of each spec,
 * get_max_concurrency_for_kv_cache_config). */
#include "engines/vllm/vllm.h"

#include <string.h>

#define u llmmem__nonneg

/* Layers of each spec kind among the model's L layers, by mixer
 * (registry layer pattern); a model without the per-kind counts is all full
 * attention, its sliding layers as num_sliding_layers says. */
static int kinds_of(uint64_t n[LLMMEM__VS_KINDS], const struct llmmem_model *m)
{
    uint64_t mx[LLMMEM__MX_COUNT] = {0}, all = 0;
    for (int x = 0; x < LLMMEM__MX_COUNT; x++)
        for (int y = 0; y < LLMMEM__FF_COUNT; y++) {
            mx[x] += u(m->layers_of[x][y]);
            all += u(m->layers_of[x][y]);
        }
    memset(n, 0, sizeof(uint64_t) * LLMMEM__VS_KINDS);
    if (all == 0) {
        uint64_t L = u(m->num_layers), sw = m->sliding_window > 0 ? u(m->num_sliding_layers) : 0;
        n[LLMMEM__VS_SLIDING] = llmmem__min(sw, L);
        n[LLMMEM__VS_FULL] = L - n[LLMMEM__VS_SLIDING];
        return 0;
    }
    if (mx[LLMMEM__MX_HYBRID])
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "vllm: Mamba layers with a shared attention block (%s) are not "
                             "modelled",
                             m->model_type);
    n[LLMMEM__VS_FULL] = mx[LLMMEM__MX_FULL];
    n[LLMMEM__VS_SLIDING] = m->sliding_window > 0 ? mx[LLMMEM__MX_SLIDING] : 0;
    n[LLMMEM__VS_FULL] += m->sliding_window > 0 ? 0 : mx[LLMMEM__MX_SLIDING];
    n[LLMMEM__VS_CHUNKED] = mx[LLMMEM__MX_CHUNKED];
    n[LLMMEM__VS_MAMBA] = mx[LLMMEM__MX_LINEAR] + mx[LLMMEM__MX_MAMBA] + mx[LLMMEM__MX_CONV];
    return 0;
}

/* The state of one Mamba-like layer on one rank
 * (model_executor/layers/mamba/mamba_utils.py MambaStateShapeCalculator,
 * MambaStateDtypeCalculator): conv state in the model dtype, the SSM or
 * recurrent state in `ssmb`. */
static int mamba_state(uint64_t *bytes, llmmem__ovf *o, const struct llmmem_model *m,
                       const llmmem__vllm_kv_in *in)
{
    const uint64_t tp = in->tp, e = in->e, s = in->ssmb ? in->ssmb : in->e;
    uint64_t mx_lin = 0, mx_mamba = 0, mx_conv = 0;
    for (int y = 0; y < LLMMEM__FF_COUNT; y++) {
        mx_lin += u(m->layers_of[LLMMEM__MX_LINEAR][y]);
        mx_mamba += u(m->layers_of[LLMMEM__MX_MAMBA][y]);
        mx_conv += u(m->layers_of[LLMMEM__MX_CONV][y]);
    }
    uint64_t most = 0;
    if (mx_lin) {
        const struct llmmem__lin *l = &m->lin;
        if (l->kind != 1)
            return llmmem__error(LLMMEM_E_UNSUPPORTED,
                                 "vllm: the state of linear-attention kind %lld (%s) is not "
                                 "modelled (gated delta rule only)",
                                 (long long)l->kind, m->model_type);
        /* gated_delta_net_state_shape: conv (kernel-1, conv_dim/tp),
         * recurrent (v_heads/tp, k_dim, v_dim) */
        const uint64_t conv_dim = 2 * u(l->k_heads) * u(l->k_dim) + u(l->v_heads) * u(l->v_dim);
        const uint64_t conv = llmmem__mul3(o, llmmem__ceil_div(conv_dim, tp), u(l->conv) ? u(l->conv) - 1 : 0, e);
        const uint64_t rec =
            llmmem__mul3(o, llmmem__ceil_div(u(l->v_heads), tp), llmmem__mul(o, u(l->k_dim), u(l->v_dim)), s);
        most = llmmem__max(most, llmmem__add(o, conv, rec));
    }
    if (mx_mamba) {
        const struct llmmem__ssm *x = &m->ssm;
        const uint64_t kconv = u(x->conv) ? u(x->conv) - 1 : 0;
        uint64_t st;
        if (x->version == 2) {
            /* mamba2_state_shape: conv (kernel-1, (inner + 2*groups*state)/tp),
             * temporal (heads/tp, head_dim, state); groups are replicated when
             * tp does not divide them */
            const uint64_t groups = u(x->groups) ? u(x->groups) : 1;
            const uint64_t g_r = groups % tp == 0 ? groups / tp : groups;
            const uint64_t heads = u(x->heads) ? u(x->heads) : 1;
            const uint64_t conv_w = llmmem__ceil_div(u(x->inner), tp) + 2 * g_r * u(x->state);
            st = llmmem__add(o, llmmem__mul3(o, conv_w, kconv, e),
                             llmmem__mul3(o, llmmem__ceil_div(heads, tp),
                                          llmmem__mul(o, u(x->inner) / heads, u(x->state)), s));
        } else {
            /* mamba1_state_shape: conv (inner/tp, kernel-1), temporal (inner/tp, state) */
            const uint64_t in_r = llmmem__ceil_div(u(x->inner), tp);
            st = llmmem__add(o, llmmem__mul3(o, in_r, kconv, e), llmmem__mul3(o, in_r, u(x->state), s));
        }
        most = llmmem__max(most, st);
    }
    if (mx_conv) /* short_conv_state_shape: (h/tp, L_cache-1) */
        most = llmmem__max(most, llmmem__mul3(o, llmmem__ceil_div(u(m->hidden_size), tp),
                                              u(m->conv_kernel) ? u(m->conv_kernel) - 1 : 0, e));
    *bytes = most;
    return 0;
}

/* Blocks of `block` tokens one max_model_len request holds in a layer of `kind`
 * (each spec's max_memory_usage_bytes / page). */
static uint64_t blocks_of(int kind, const struct llmmem_model *m, const llmmem__vllm_kv_in *in,
                          uint64_t block)
{
    switch (kind) {
    case LLMMEM__VS_SLIDING: {
        /* SlidingWindowSpec: the last window-1 tokens plus what is in flight, +1
         * because the window need not start at a block boundary */
        uint64_t t = llmmem__min(u(m->sliding_window) - 1 + in->in_flight, in->maxlen);
        return llmmem__ceil_div(t, block) + 1;
    }
    case LLMMEM__VS_CHUNKED:
        return llmmem__ceil_div(llmmem__min(u(m->chunk_size) + in->in_flight, in->maxlen), block);
    case LLMMEM__VS_MAMBA: return in->mamba_pages;
    default: return llmmem__ceil_div(in->maxlen, block);
    }
}

int llmmem__vllm_kv_layout(llmmem__vllm_kv *k, llmmem__ovf *o, const struct llmmem_model *m,
                           const llmmem__vllm_kv_in *in)
{
    memset(k, 0, sizeof *k);
    uint64_t all[LLMMEM__VS_KINDS];
    int rc = kinds_of(all, m);
    if (rc)
        return rc;
    /* this stage's share of each kind */
    const uint64_t L = u(m->num_layers), span = in->L1 - in->L0;
    uint64_t given = 0;
    for (int i = 0; i < LLMMEM__VS_KINDS; i++) {
        k->n[i] = L ? all[i] * span / L : 0;
        given += k->n[i];
    }
    for (int i = 0; i < LLMMEM__VS_KINDS && given < span; i++)
        if (all[i] > k->n[i]) {
            k->n[i]++;
            given++;
        }
    /* Without the hybrid manager (and for chunked local attention, which
     * vLLM stores as full attention here) every attention layer is full
     * (unify_hybrid_kv_cache_specs). */
    if (!in->hybrid_manager) {
        k->n[LLMMEM__VS_FULL] += k->n[LLMMEM__VS_SLIDING];
        k->n[LLMMEM__VS_SLIDING] = 0;
    }
    k->n[LLMMEM__VS_FULL] += k->n[LLMMEM__VS_CHUNKED];
    k->n[LLMMEM__VS_CHUNKED] = 0;

    /* AttentionSpec.page_size_bytes: 2 (K and V) x block x heads x head_dim x
     * dtype; MLAAttentionSpec one latent of kv_lora_rank + rope dims */
    uint64_t page_1 = m->kv_lora_rank > 0
                          ? llmmem__mul(o, u(m->kv_lora_rank) + u(m->qk_rope_head_dim), in->kvb)
                          : 0;
    if (!page_1) {
        const uint64_t kvh = u(m->num_kv_heads ? m->num_kv_heads : m->num_heads);
        const uint64_t k_r = kvh >= in->tp ? kvh / in->tp : 1;
        page_1 = llmmem__mul3(o, 2 * k_r, u(m->head_dim), in->kvb);
    }
    const uint64_t attn_layers = k->n[LLMMEM__VS_FULL] + k->n[LLMMEM__VS_SLIDING];
    k->kv_bytes_per_token = llmmem__mul(o, page_1, attn_layers);

    uint64_t block = in->block ? in->block : 16; /* CacheConfig.block_size -> 16 on CUDA */
    uint64_t mamba_page = 0;
    if (k->n[LLMMEM__VS_MAMBA]) {
        if ((rc = mamba_state(&mamba_page, o, m, in)) != 0)
            return rc;
        if (!mamba_page)
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "vllm: %s has state-space layers without a state size",
                                 m->model_type);
        if (attn_layers) {
            /* the attention block is raised until one attention page holds a
             * Mamba state: 16 * cdiv(mamba_page, 16 * page_1) */
            uint64_t b = 16 * llmmem__ceil_div(mamba_page, 16 * page_1);
            if (block < b)
                block = b;
        } else {
            block = in->maxlen; /* mamba_block_size = max_model_len */
        }
    }
    k->block = block;
    k->attn_page = llmmem__mul(o, page_1, block);
    k->mamba_page = mamba_page;
    k->page = attn_layers ? k->attn_page : mamba_page; /* mamba pages padded to it */

    /* groups: one kind -> one group of all its layers; several -> groups of
     * group_size layers, group_size the fewest layers of a kind (or the most,
     * from 0.18, when max < 1.5 * min) */
    uint64_t kinds = 0, lo = 0, hi = 0;
    for (int i = 0; i < LLMMEM__VS_KINDS; i++)
        if (k->n[i]) {
            kinds++;
            lo = lo ? llmmem__min(lo, k->n[i]) : k->n[i];
            hi = llmmem__max(hi, k->n[i]);
        }
    if (!kinds)
        return llmmem__error(LLMMEM_E_INCONSISTENT, "vllm: %s has no layer with a KV cache",
                             m->model_type);
    k->hybrid = kinds > 1;
    uint64_t gs = lo;
    if (kinds > 1 && LLMMEM__VLLM_HAS(in->vb, KV_GROUP_LARGEST) && 2 * hi < 3 * lo)
        gs = hi;
    if (kinds == 1)
        gs = hi;
    k->group_size = gs;
    for (int i = 0; i < LLMMEM__VS_KINDS; i++)
        if (k->n[i]) {
            const uint64_t g = llmmem__ceil_div(k->n[i], gs);
            k->groups += g;
            k->per_request = llmmem__add(o, k->per_request, llmmem__mul(o, g, blocks_of(i, m, in, block)));
        }
    k->bytes_per_block = llmmem__mul(o, k->page, gs);
    return 0;
}
