/* The attention kernel of the prefill's last layer (prefill.c point 2): the
 * q/k/v tensors alive around the call and the working set of each path
 * transformers and aten take, eager (with its family variants), SDPA's math
 * backend, its memory-efficient kernel with a mask, and the flash kernel. */
#include "infer/infer.h"

#define blk llmmem__alloc_tensor

/* A float [B,1,S,S] mask in the activation dtype (eager_mask, or aten
 * convert_boolean_attn_mask of a bool mask). */
uint64_t llmmem__prefill_float_mask(llmmem__ovf *o, const llmmem__prefill *p)
{
    return blk(o, llmmem__mul3(o, p->x->B, p->SS, p->x->e));
}

/* Query-side tensors alive at the kernel: q (with the fused c_attn output
 * without RoPE). PhiAttention.forward with partial rotary: query_pass/key_pass
 * are views that keep the q_proj and k_proj outputs, query_rot/key_rot hold
 * the roped rotary_ndims columns, and torch.cat builds the query (the key's
 * cat goes into the cache): beyond that query, Q + K + the two rotated parts
 * are alive at the attention (H200 allocation trace of the probe's p12,
 * phi-2 eager: 41 + 40 + 16 + 16 MiB). */
static uint64_t query_live(llmmem__ovf *o, const llmmem__prefill *p)
{
    const llmmem__infer *x = p->x;
    uint64_t q = p->rope ? p->Q : llmmem__add(o, p->Q, llmmem__mul(o, 2, p->K));
    if (p->fam == LLMMEM__FAM_PHI && p->partial) {
        q = llmmem__add(o, q, llmmem__add(o, p->Q, p->K));
        q = llmmem__add(o, q, blk(o, llmmem__mul3(o, x->e, x->T, llmmem__mul(o, x->a, p->rot))));
        q = llmmem__add(o, q, blk(o, llmmem__mul3(o, x->e, x->T, llmmem__mul(o, x->k, p->rot))));
    }
    return q;
}

/* repeat_kv copies of K and V to every head (GQA without enable_gqa). */
static uint64_t repeat_kv_copies(llmmem__ovf *o, const llmmem__prefill *p)
{
    const llmmem__infer *x = p->x;
    if (x->k >= x->a)
        return 0;
    return llmmem__mul(o, 2,
                       blk(o, llmmem__mul3(o, x->e, x->B, llmmem__mul3(o, x->a, x->S, x->d))));
}

/* Score elements [B, a, S, S]. */
static uint64_t scores(llmmem__ovf *o, const llmmem__prefill *p)
{
    return llmmem__mul3(o, p->x->B, p->x->a, p->SS);
}

/* eager_attention_forward: matmul -> *scaling -> +mask -> softmax(fp32) ->
 * .to(dtype). bf16: softmax converts its input to fp32 first (aten softmax:
 * input.toType(dtype)), so input 2 + copy 4 + output 4; fp16 uses the fused
 * half_to_float kernel (2 + 4); fp32 4 + 4. The peak is the larger of the
 * softmax point (10 in bf16; 2 + 4 in fp16) and the `.to(query.dtype)` point
 * (input + fp32 probs + the cast: 2 + 4 + 2 = 8 in fp16; h16 measures 8 B per
 * score element for fp16). GPT-2's softmax keeps the input dtype (2 tensors). */
static uint64_t eager_softmax(llmmem__ovf *o, const llmmem__prefill *p)
{
    const uint64_t e = p->x->e;
    uint64_t per = e == 4 ? 8 : (p->x->half ? 8 : 10);
    if (p->fam == LLMMEM__FAM_GPT2 || p->fam == LLMMEM__FAM_OPT)
        per = 2 * e;
    return llmmem__mul(o, per, scores(o, p));
}

/* modeling_gpt_oss.py eager_attention_forward: the masked scores [B,a,S,S]
 * stay alive while torch.cat appends the sink column ([B,a,S,S+1]),
 * `combined - combined.max(-1).values` makes a second one (max values +
 * int64 indices alive), and softmax(dtype=combined.dtype) stays in the
 * compute dtype: e per score + 2 e per (S+1)-column element, no fp32 copy. */
static uint64_t eager_gpt_oss_sinks(llmmem__ovf *o, const llmmem__prefill *p)
{
    const llmmem__infer *x = p->x;
    const uint64_t e = x->e, aS = llmmem__mul(o, x->a, x->S);
    uint64_t sc1 = llmmem__mul3(o, x->B, x->a, llmmem__mul(o, x->S, x->S + 1));
    uint64_t t = llmmem__add(o, blk(o, llmmem__mul(o, e, scores(o, p))),
                             llmmem__mul(o, 2, blk(o, llmmem__mul(o, e, sc1))));
    t = llmmem__add(o, t, blk(o, llmmem__mul3(o, e, x->B, aS)));
    return llmmem__add(o, t, blk(o, llmmem__mul3(o, 8, x->B, aS)));
}

/* modeling_gptj.py GPTJAttention._attn: query.to(float32), key.to(float32)
 * (both alive in _attn), fp32 scores + mask, the `/ scale_attn` copy (8 B per
 * score in any dtype); GPTJModel's `outputs = block(...)` still holds the
 * previous layer's returned probabilities (e per score); q_pass/k_pass are
 * views that keep the q_proj and k_proj outputs, beside the rotated
 * q_rot/k_rot (rotary_dim columns) and the concatenated query. h31 measures
 * this point within 0.6 MiB. */
static uint64_t eager_gptj_fp32(llmmem__ovf *o, const llmmem__prefill *p)
{
    const llmmem__infer *x = p->x;
    const uint64_t sc = scores(o, p);
    uint64_t rd = (uint64_t)((double)x->d * p->m->partial_rotary_factor); /* rotary_dim */
    uint64_t q32 = blk(o, llmmem__mul3(o, 4, x->T, llmmem__mul(o, x->a, x->d)));
    uint64_t qrot = blk(o, llmmem__mul3(o, x->e, x->T, llmmem__mul(o, x->a, rd)));
    uint64_t t = llmmem__add(o, llmmem__mul(o, 8, sc), blk(o, llmmem__mul(o, x->e, sc)));
    t = llmmem__add(o, t, llmmem__add(o, llmmem__mul(o, 2, q32), llmmem__mul(o, 2, p->Q)));
    return llmmem__add(o, t, llmmem__mul(o, 2, qrot));
}

/* Eager attention: the query side, repeat_kv copies and the scores of the
 * family's softmax. */
static uint64_t attn_eager(llmmem__ovf *o, const llmmem__prefill *p, uint64_t *largest)
{
    uint64_t s = eager_softmax(o, p);
    if (p->fam == LLMMEM__FAM_GPT_OSS)
        s = eager_gpt_oss_sinks(o, p);
    if (p->fam == LLMMEM__FAM_GPTJ)
        s = eager_gptj_fp32(o, p);
    *largest = llmmem__max(*largest, llmmem__mul(o, 4, scores(o, p)));
    return llmmem__add(o, llmmem__add(o, query_live(o, p), repeat_kv_copies(o, p)), s);
}

/* An fp32 [B, heads, S, d] tensor. */
static uint64_t fp32_heads(llmmem__ovf *o, const llmmem__prefill *p, uint64_t heads)
{
    return blk(o, llmmem__mul3(o, 4, p->x->B, llmmem__mul3(o, heads, p->x->S, p->x->d)));
}

/* The scores side of aten _scaled_dot_product_attention_math
 * (attention.cpp): the causal mask made an fp32 [S,S] bias
 * (convert_boolean_attn_mask of ones.tril), fp32 scores [B,a,S,S] and
 * _safe_softmax's fp32 output, 1 B per score of its `self.eq(-inf)` bool mask
 * and its [B,a,S,1] row mask. */
static uint64_t sdpa_math_scores(llmmem__ovf *o, const llmmem__prefill *p, uint64_t *largest)
{
    const uint64_t sc = scores(o, p);
    uint64_t t = llmmem__add(o, blk(o, llmmem__mul(o, 4, p->SS)),
                             llmmem__mul(o, 2, blk(o, llmmem__mul(o, 4, sc))));
    t = llmmem__add(o, t, blk(o, sc));
    t = llmmem__add(o, t, blk(o, llmmem__mul3(o, p->x->B, p->x->a, p->x->S)));
    *largest = llmmem__max(*largest, blk(o, llmmem__mul(o, 4, sc)));
    return t;
}

/* fp32 with GQA and no mask: transformers passes enable_gqa
 * (use_gqa_in_sdpa), flash has no fp32 and the memory-efficient kernel no
 * enable_gqa, so SDPA runs the math backend: the scaled query [B,a,S,d], K
 * and V repeated to a heads (pre_process_group_query_attention_input) and
 * the scaled K, then its scores (as h12's Falcon call); the probe's p11
 * (llama-3.2-1b fp32, B 4, S 8192) measured this at 80.6 GiB where the fused
 * kernels would need 10.6. */
static uint64_t attn_sdpa_math_gqa(llmmem__ovf *o, const llmmem__prefill *p, uint64_t *largest)
{
    uint64_t in = llmmem__mul(o, 4, fp32_heads(o, p, p->x->a));
    in = llmmem__add(o, in, sdpa_math_scores(o, p, largest));
    return llmmem__add(o, query_live(o, p), in);
}

/* FalconAttention (modeling_falcon.py) calls SDPA itself with the one-head
 * k/v of multi_query (no repeat, no enable_gqa): neither flash nor
 * mem-efficient accepts unequal head counts, so it runs the math backend:
 * query_acc = q.to(float) and query = query_acc * sqrt(scale) (both fp32
 * [B,a,S,d]), key_acc/value_acc fp32, then its scores; outside the call the
 * fused query_key_value output (e*T*(a+2k)*d, its views alive) and the roped
 * q. h12 measures the point within 29 MiB (docs/accuracy-inference.md). */
static uint64_t attn_falcon_math(llmmem__ovf *o, const llmmem__prefill *p, uint64_t *largest)
{
    const llmmem__infer *x = p->x;
    uint64_t fused = blk(o, llmmem__mul3(o, x->e, x->T, llmmem__mul(o, x->a + 2 * x->k, x->d)));
    uint64_t in = llmmem__add(o, llmmem__mul(o, 2, fp32_heads(o, p, x->a)),
                              llmmem__mul(o, 2, fp32_heads(o, p, x->k)));
    in = llmmem__add(o, in, sdpa_math_scores(o, p, largest));
    return llmmem__add(o, llmmem__add(o, fused, p->Q), in);
}

/* Mask present: no enable_gqa (sdpa_attention.use_gqa_in_sdpa), K/V
 * repeated; aten convert_boolean_attn_mask makes a [B,1,S,S] additive mask in
 * the query dtype; mem-efficient kernel output. */
static uint64_t attn_sdpa_masked(llmmem__ovf *o, const llmmem__prefill *p, uint64_t *largest)
{
    uint64_t fmask = llmmem__prefill_float_mask(o, p);
    *largest = llmmem__max(*largest, fmask);
    return llmmem__add(o, llmmem__add(o, query_live(o, p), repeat_kv_copies(o, p)),
                       llmmem__add(o, fmask, p->Q));
}

/* Flash kernel (is_causal, enable_gqa): output + fp32 logsumexp. */
static uint64_t attn_sdpa_flash(llmmem__ovf *o, const llmmem__prefill *p)
{
    uint64_t lse = blk(o, llmmem__mul3(o, 4, p->x->B, llmmem__mul(o, p->x->a, p->x->S)));
    return llmmem__add(o, llmmem__add(o, query_live(o, p), p->Q), lse);
}

uint64_t llmmem__prefill_attention(llmmem__ovf *o, const llmmem__prefill *p, uint64_t *largest)
{
    const llmmem__infer *x = p->x;
    if (x->eager)
        return attn_eager(o, p, largest);
    if (x->math_gqa && !p->sdpa_mask)
        return attn_sdpa_math_gqa(o, p, largest);
    if (p->fam == LLMMEM__FAM_FALCON && x->k < x->a)
        return attn_falcon_math(o, p, largest);
    if (p->sdpa_mask)
        return attn_sdpa_masked(o, p, largest);
    return attn_sdpa_flash(o, p);
}

/* Eager keeps the returned probabilities (`hidden_states, _ =
 * self.self_attn(...)`) until the layer returns, [B,a,S,S] in the activation
 * dtype; gpt-oss returns a view of its [B,a,S,S+1] probabilities. */
uint64_t llmmem__prefill_held_probs(llmmem__ovf *o, const llmmem__prefill *p)
{
    const llmmem__infer *x = p->x;
    if (!x->eager)
        return 0;
    if (p->fam == LLMMEM__FAM_GPT_OSS)
        return blk(o, llmmem__mul3(o, x->B, llmmem__mul3(o, x->a, x->S, x->S + 1), x->e));
    return blk(o, llmmem__mul3(o, x->B, llmmem__mul(o, x->a, p->SS), x->e));
}
