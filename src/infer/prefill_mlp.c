/* The MLP of the prefill's last layer (prefill.c point 4): the dense MLP of
 * each family and the routed and shared experts of MoE layers. The residual
 * and the normed input stay alive (parallel blocks keep the attention output
 * instead of the residual sum). */
#include "infer/infer.h"

#include <string.h>

#define u   llmmem__nonneg
#define blk llmmem__alloc_tensor

/* Live [T, f] intermediates of the dense MLP. */
static uint64_t mlp_dense_tensors(const llmmem__prefill *p)
{
    if (p->m->gated_mlp && p->fam == LLMMEM__FAM_PHI3)
        return 4; /* Phi3MLP: the fused gate_up_proj output [T, 2f] stays alive
                   * through its chunk views, + act(gate) + the product */
    if (p->m->gated_mlp)
        return 3; /* act(gate), up, their product (LlamaMLP.forward) */
    if (p->m->act == LLMMEM__ACT_GELU_NEW)
        return 4; /* NewGELUActivation in Python ops: fc1 out, 0.5*x, two chain temps */
    return 2;     /* fc1 out + fused activation */
}

/* transformers integrations/moe.py grouped_mm_experts_forward: S_k = T*top_k
 * (token, expert) pairs; gate_up [S_k, 2f] + act(gate) + gated [S_k, f], one
 * gathered [S_k, h] copy, int64 index vectors, router logits [T, E] and top-k
 * ids/weights. Gate point: one gathered copy [S_k, h] + gate_up [S_k, 2f] +
 * act(gate) + product; weighting point (`proj_out * sample_weights_g`, then
 * `weighted_out[inv_perm]`): the gathered copy, the down output, the weighted
 * output and its reordered copy, 4 [S_k, h] (h33/h15 measure the larger of
 * the two). DeepSeek's routers return fp32 top-k weights
 * (modeling_deepseek_v2/v3 route_tokens_to_experts: the fp32 router logits'
 * softmax or sigmoid, not cast back), so type promotion makes the weighted
 * output and its reordered copy fp32; the other families cast the weights to
 * the hidden dtype first. An H200 allocation trace of h13/h34
 * (test/gpu/trace_alloc.py) shows the two fp32 [S_k, h] blocks. */
static uint64_t moe_routed_experts(llmmem__ovf *o, const llmmem__prefill *p, uint64_t fm,
                                   uint64_t Sk)
{
    const llmmem__infer *x = p->x;
    const uint64_t e = x->e, h = x->h, E = u(p->m->num_experts);
    const uint64_t Skh = blk(o, llmmem__mul3(o, e, Sk, h));
    const uint64_t wb = p->fam == LLMMEM__FAM_DEEPSEEK ? llmmem__max(e, 4) : e;
    const uint64_t weighted = llmmem__mul(o, 2, blk(o, llmmem__mul3(o, wb, Sk, h)));
    uint64_t t =
        llmmem__max(llmmem__add(o, Skh, llmmem__mul(o, 4, blk(o, llmmem__mul3(o, e, Sk, fm)))),
                    llmmem__add(o, llmmem__mul(o, 2, Skh), weighted));
    t = llmmem__add(o, t, llmmem__mul(o, 4, blk(o, llmmem__mul(o, 8, Sk))));
    t = llmmem__add(o, t, blk(o, llmmem__mul(o, e, Sk)));
    t = llmmem__add(o, t, blk(o, llmmem__mul3(o, e, x->T, E)));
    t = llmmem__add(o, t, blk(o, llmmem__mul(o, 8 + e, Sk)));
    /* Qwen2MoeSparseMoeBlock.forward runs the shared expert first, so its
     * [T, h] output is alive during the routed experts */
    if (p->m->shared_expert_intermediate_size > 0 && strncmp(p->m->model_type, "qwen2_moe", 9) == 0)
        t = llmmem__add(o, t, p->Th);
    return t;
}

/* Shared experts run after the routed ones (routed output [T, h] alive): a
 * gated MLP of width shared_expert_intermediate_size. */
static uint64_t moe_shared_experts(llmmem__ovf *o, const llmmem__prefill *p)
{
    uint64_t fs = u(p->m->shared_expert_intermediate_size);
    return llmmem__add(o, p->Th, llmmem__mul(o, 3, blk(o, llmmem__mul3(o, p->x->e, p->x->T, fs))));
}

int llmmem__prefill_mlp(llmmem__ovf *o, const llmmem__prefill *p,
                        uint64_t act[LLMMEM__PREFILL_MLP_POINTS], uint64_t *largest)
{
    const struct llmmem_model *m = p->m;
    const llmmem__infer *x = p->x;
    const bool moe = m->num_experts > 0;
    const bool dense = !moe || (m->num_moe_layers > 0 && m->num_moe_layers < m->num_layers);
    int n = 0;
    if (dense && x->f) {
        uint64_t Tf = blk(o, llmmem__mul3(o, x->e, x->T, x->f));
        act[n++] = llmmem__mul(o, mlp_dense_tensors(p), Tf);
        *largest = llmmem__max(*largest, Tf);
    }
    if (moe) {
        uint64_t fm = m->moe_intermediate_size > 0 ? u(m->moe_intermediate_size) : x->f;
        uint64_t Sk = llmmem__mul(o, x->T, u(m->experts_per_token));
        act[n++] = moe_routed_experts(o, p, fm, Sk);
        if (m->shared_expert_intermediate_size > 0)
            act[n++] = moe_shared_experts(o, p);
        *largest = llmmem__max(*largest, blk(o, llmmem__mul3(o, 2 * x->e, Sk, fm)));
    }
    return n;
}
