/* Working sets inside one layer, not kept across layers: the MLP
 * intermediates of a checkpointed layer's forward, eager's causal mask, the
 * gradient temporaries of one layer's backward, and the point where a
 * checkpointed LoRA layer's recompute peaks. */
#include "train/train.h"

/* Width of the f-wide intermediates per token: the dense MLP, or the top-k
 * experts' intermediates of a MoE layer. */
static uint64_t f_eff(const struct llmmem_model *m)
{
    return (uint64_t)(llmmem__saved_has_moe(m) ? m->moe_intermediate_size * m->experts_per_token
                                                : m->intermediate_size);
}

/* Forward: a checkpointed layer runs without saving, but its MLP's
 * intermediates (gate, up, act in compute dtype) exist at once; without full
 * checkpointing eager's causal mask (b, 1, s, s) in the compute dtype is a
 * transient (under checkpointing it is a checkpoint input, saved.c). */
static uint64_t forward_layer_transient(const llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    uint64_t x = t->checkpointing ? llmmem__mul3(o, in->T, f_eff(in->m), 3 * in->rc.cb) : 0;
    if (in->rc.attention == LLMMEM__ATTN_EAGER && in->c->checkpointing != LLMMEM__CKPT_FULL)
        x = llmmem__add(o, x, llmmem__saved_eager_mask(in->c, &in->rc, in->s, o));
    return x;
}

/* Eager backward through one layer's scores: the fp32 gradient of the softmax
 * output and the softmax input gradient (_softmax_backward_data writes the
 * input dtype) beyond the kept probabilities: 4as in 16-bit, 8as in fp32;
 * under selective recompute also the layer's rebuilt softmax (and its cast). */
static uint64_t backward_scores_grad(const llmmem__train_in *in, llmmem__ovf *o)
{
    const uint64_t cb = in->rc.cb;
    /* Falcon's math SDPA backend: fp32 probabilities at any compute dtype */
    uint64_t per = cb == 4 || llmmem__saved_falcon_math(in->m, &in->rc) ? 8 : 4;
    if (in->rc.selective)
        per += cb == 4 ? 4 : 6;
    return llmmem__mul3(o, in->T, (uint64_t)in->m->num_heads * in->s, per);
}

/* Backward: the gradients of the f-wide intermediates (two in compute dtype),
 * or with eager (and falcon's matmul attention) the scores' gradients when
 * larger; with full fine-tuning under autocast, the compute-dtype gradient of
 * the largest weight's cast. */
static uint64_t backward_layer_transient(const llmmem__train_in *in, llmmem__ovf *o)
{
    uint64_t x = llmmem__mul3(o, in->T, f_eff(in->m), 2 * in->rc.cb);
    if (llmmem__saved_falcon_math(in->m, &in->rc)) /* at the attention's backward the MLP's saved
                                                      tensors (after the softmax) are freed */
        x = llmmem__max(x, llmmem__sub0(backward_scores_grad(in, o),
                                        llmmem__mul(o, in->T, llmmem__saved_falcon_after_softmax(in->m, in->c,
                                                                                                  &in->rc))));
    else if (in->rc.attention == LLMMEM__ATTN_EAGER || in->m->family == LLMMEM__FAM_FALCON)
        x = llmmem__max(x, backward_scores_grad(in, o));
    if (in->rc.full_ft && in->rc.amp)
        x = llmmem__add(o, x, llmmem__mul(o, in->lin.largest, in->rc.cb));
    return x;
}

/* peft's LoRA Linear forward (tuners/lora/layer.py): `result = result +
 * lora_B(lora_A(dropout(x))) * scaling` runs in the adapter dtype, so an fp32
 * adapter on a 16-bit gate/up projection makes lora_B's fp32 [T, f] output and
 * its scaled copy (or the scaled copy and the fp32 sum) before
 * `result.to(bf16)`. Under checkpointing this happens again in the recompute
 * of each layer in backward, with the down projection's saved tensors not
 * made yet (mlp_tail): a backward candidate of its own. Beside it: the
 * residual and the MLP input (locals of the layer's forward), and for the
 * first layer in backward the gradients in flight from the head: the one
 * reaching the layer and the final norm's 16-bit and fp32 input gradients
 * (2 x T h cb + 4 T h). */
static void recompute_lora_gate_up(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    const struct llmmem_config *c = in->c;
    const llmmem__recipe *rc = &in->rc;
    const uint64_t T = in->T, h = (uint64_t)in->m->hidden_size, f = (uint64_t)in->m->intermediate_size;
    if (!t->checkpointing || !rc->lora || rc->ab <= rc->cb || llmmem__saved_has_moe(in->m) ||
        !(llmmem__recipe_lora_on(c, "gate_proj") || llmmem__recipe_lora_on(c, "up_proj")))
        return;
    uint64_t Th = llmmem__mul3(o, T, h, rc->cb);
    t->recompute_transient = llmmem__mul3(o, T, f, 2 * rc->ab);
    t->recompute_transient = llmmem__add(o, t->recompute_transient, llmmem__mul(o, 4, Th));
    t->recompute_transient = llmmem__add(o, t->recompute_transient, llmmem__mul3(o, T, h, 4));
    t->mlp_tail = llmmem__mul(o, T, llmmem__saved_mlp_down_frozen(in->m, c, rc));
}

/* Falcon's math SDPA backend (attention.cpp _scaled_dot_product_attention_math,
 * then _safe_softmax: softmax, eq(-inf), all, the all-masked rows zeroed in
 * place) peaks at its -inf mask: the fp32 scores, the softmax output (the kept
 * probabilities) and the bool mask, with the call's locals (fp32 q before
 * scaling) and the layer's (the norm output, the fused qkv output, the rotated
 * q) and the masks (the causal bool [1, 1, s, s] the model builds once, each
 * call's float copy [b, 1, s, s], convert_boolean_attn_mask). Two fp32 score
 * tensors and the bool one, as the H200 measurement of Falcon's prefill (h12)
 * holds. A checkpointed layer's forward keeps nothing, so the scaled q and the
 * probabilities count there too; in its recompute the layer's saved tensors up
 * to the softmax are alive (mlp_tail: what it saves after). Derived from the
 * reference harness's falcon-7b rows (test/data/reference/). */
static void falcon_math_points(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    if (!llmmem__saved_falcon_math(in->m, &in->rc))
        return;
    const struct llmmem_model *m = in->m;
    const uint64_t a = (uint64_t)m->num_heads, k = (uint64_t)m->num_kv_heads, d = (uint64_t)m->head_dim;
    const uint64_t h = (uint64_t)m->hidden_size, cb = in->rc.cb, s = in->s;
    const uint64_t b = (uint64_t)in->c->micro_batch_size;
    const uint64_t scores = llmmem__mul3(o, in->T, a, s);
    const uint64_t masks = llmmem__add(o, llmmem__mul(o, s, s), llmmem__mul3(o, b * cb, s, s));
    const uint64_t locals = llmmem__add(o, llmmem__mul(o, in->T, 4 * a * d + cb * (h + (a + 2 * k) * d + a * d)), masks);
    if (t->checkpointing) {
        t->recompute_transient = llmmem__add(o, llmmem__mul(o, scores, 5), locals);
        t->mlp_tail = llmmem__mul(o, in->T, llmmem__saved_falcon_after_softmax(m, in->c, &in->rc));
        t->fwd_layer_transient = llmmem__add(o, llmmem__mul(o, scores, 9),
                                             llmmem__add(o, locals, llmmem__mul(o, in->T, 4 * a * d)));
    } else { /* every layer's saved tensors count in the forward point: not the last one's tail */
        const uint64_t tail = llmmem__mul(o, in->T, llmmem__saved_falcon_after_softmax(m, in->c, &in->rc));
        t->fwd_layer_transient = llmmem__sub0(llmmem__add(o, llmmem__mul(o, scores, 5), locals), tail);
    }
}

void llmmem__transient_compute(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    t->fwd_transient = forward_layer_transient(t, in, o);
    t->bwd_transient = backward_layer_transient(in, o);
    recompute_lora_gate_up(t, in, o);
    falcon_math_points(t, in, o);
}
