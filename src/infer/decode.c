/* The decode steps of HF transformers generation: each step appends one
 * token per layer with torch.cat (old and new tensors coexist while one layer
 * updates), the cache of each layer kind growing as kv.c says. Step 1 and
 * step N are the candidates, each at three points: the last layer's update
 * (its keys or values held twice), the logits after every layer, and the
 * attention of the first or the last layer. Sliding layers shrink at step 1
 * (prompt-long storage replaced by window-long), so there the first layer's
 * attention, with every other layer still holding the prompt, is the larger;
 * growing layers peak at the last. docs/inference.md "HF decode". */
#include "infer/infer.h"

#define blk llmmem__alloc_tensor

/* What every point of a decode step holds besides its KV. */
typedef struct step {
    const llmmem__infer *x;
    uint64_t tok;    /* KV bytes of one token of one layer over the batch */
    uint64_t state;  /* the layers' state beside their tokens (kv.c) */
    uint64_t other;  /* workspaces, ids, the next token */
    uint64_t logits; /* [B, 1, V] */
    uint64_t act;    /* the step's own activations */
} step;

/* The prompt ids (B*S int64) and the next token (one 512-byte block). */
static uint64_t decode_ids(llmmem__ovf *o, const llmmem__infer *x)
{
    return llmmem__add(o, blk(o, llmmem__mul3(o, x->B, x->S, 8)), 512);
}

/* The step's own activations are B x 1 x width: small, counted as the gated
 * MLP of one token per sequence. */
static uint64_t decode_step_act(llmmem__ovf *o, const llmmem__infer *x)
{
    return llmmem__mul(o, 3, blk(o, llmmem__mul3(o, x->e, x->B, x->f ? x->f : 4 * x->h)));
}

/* The largest decode-step working set of a non-attention mixer (state.c). */
static uint64_t mixers_step(llmmem__ovf *o, const llmmem__infer *x, const struct llmmem_model *m)
{
    if (x->classic)
        return 0;
    llmmem__kinds ks;
    llmmem__kinds_of(&ks, m);
    uint64_t most = 0;
    for (int i = 0; i < ks.n; i++)
        most = llmmem__max(most, llmmem__state_decode_ws(o, m, ks.k[i].mixer, x->B, x->e, x->tp));
    return most;
}

/* Cache bytes of every layer after step n, with the layers' state. */
static uint64_t all_layers(llmmem__ovf *o, const step *s, uint64_t n)
{
    return llmmem__add(o, llmmem__kv_bytes_at(o, &s->x->layers, s->x->S, n, s->tok), s->state);
}

/* The last layer's update: DynamicLayer.update concatenates keys, then
 * values, each replacing its previous tensor, so one of them (the larger
 * part) is held twice at a time. */
static uint64_t update_second_copy(llmmem__ovf *o, const step *s, uint64_t n)
{
    uint64_t prev = llmmem__kv_layer_tokens_max(&s->x->layers, s->x->S, n - 1);
    return llmmem__mul3(o, prev, s->x->B, s->x->kv_part_tl);
}

/* The attention working set of one layer of `kind` at a context of ctx
 * tokens. repeat_kv copies K and V to every head: always in eager with GQA;
 * in SDPA only where a mask is built (sdpa_mask skips it when kv_length < the
 * window: a sliding layer once S + n >= window; a full layer of one token
 * never), since use_gqa_in_sdpa needs attention_mask None
 * (sdpa_attention.py). fp32 GQA without a mask: the math backend repeats K
 * and V and scales the repeated K (prefill_attn.c). Eager adds the scores,
 * fp32 softmax and the cast back: [B, a, 1, ctx], 10 B each. */
static uint64_t decode_attention(llmmem__ovf *o, const llmmem__infer *x, int kind, uint64_t ctx)
{
    const uint64_t ad =
        llmmem__mul3(o, x->B, x->a, x->d); /* one token of K (or V) over all heads */
    bool masked = kind == LLMMEM__KV_SLIDING && ctx >= x->layers.window;
    bool rep = x->repeat_kv && (x->eager || masked);
    uint64_t act = rep ? llmmem__mul(o, 2, blk(o, llmmem__mul3(o, x->e, ad, ctx))) : 0;
    if (x->math_gqa && !masked)
        act = llmmem__mul(o, 3, blk(o, llmmem__mul3(o, 4, ad, ctx)));
    if (x->eager)
        act = llmmem__add(o, act, blk(o, llmmem__mul3(o, 10, llmmem__mul(o, x->B, x->a), ctx)));
    return act;
}

/* Attention of the first layer (sliding where there are any; the others not
 * updated yet) or of the last (full where there are any; all updated, the
 * previous tensor freed by the reassignment) at step n. */
static llmmem__point attention_point(llmmem__ovf *o, const step *s, uint64_t n, bool first)
{
    const llmmem__kv_layers *l = &s->x->layers;
    const bool slide = first ? l->n[LLMMEM__KV_SLIDING] > 0 : l->n[LLMMEM__KV_FULL] == 0;
    const int kind = slide ? LLMMEM__KV_SLIDING : LLMMEM__KV_FULL;
    const uint64_t ctx = llmmem__kv_layer_tokens(l, kind, s->x->S, n);
    uint64_t kv = all_layers(o, s, n);
    if (first) {
        uint64_t before = llmmem__kv_layer_tokens(l, kind, s->x->S, n - 1);
        kv = llmmem__add(o,
                         llmmem__sub0(llmmem__kv_bytes_at(o, l, s->x->S, n - 1, s->tok),
                                      llmmem__mul(o, before, s->tok)),
                         llmmem__add(o, llmmem__mul(o, ctx, s->tok), s->state));
    }
    llmmem__point p = {kv, llmmem__add(o, decode_attention(o, s->x, kind, ctx), s->act), 0,
                       s->other};
    return p;
}

/* The points of step n: the last layer's update, the logits after every
 * layer, the first and the last layer's attention. */
static void decode_step(llmmem__ovf *o, const step *s, uint64_t n, llmmem__point *best)
{
    const uint64_t all = all_layers(o, s, n); /* every layer at step n */
    llmmem__point p = {llmmem__add(o, all, update_second_copy(o, s, n)), s->act, 0, s->other};
    llmmem__point_keep_max(o, best, &p);
    p = (llmmem__point){all, s->act, s->logits, s->other};
    llmmem__point_keep_max(o, best, &p);
    if (s->x->layers.n[LLMMEM__KV_FULL] + s->x->layers.n[LLMMEM__KV_SLIDING] == 0)
        return; /* no attention layer */
    p = attention_point(o, s, n, true);
    llmmem__point_keep_max(o, best, &p);
    p = attention_point(o, s, n, false);
    llmmem__point_keep_max(o, best, &p);
}

void llmmem__decode_peak(llmmem__ovf *o, llmmem__infer *x, const struct llmmem_model *m,
                         uint64_t ws)
{
    step s = {x, llmmem__mul(o, x->B, x->kv_tl),
              llmmem__add(o, llmmem__kv_state_all(o, &x->layers), x->layers.state), 0, 0, 0};
    /* the decode steps also hold the cuBLASLt workspace of a biased model */
    s.other =
        llmmem__add(o, llmmem__add(o, ws, llmmem__prefill_cublaslt_workspace(m)), decode_ids(o, x));
    s.logits = llmmem__prefill_logits_last(o, x);
    s.act = llmmem__max(decode_step_act(o, x), mixers_step(o, x, m));
    x->kv_after = all_layers(o, &s, x->N);
    llmmem__point best = {0, 0, 0, 0};
    if (x->N > 0) {
        decode_step(o, &s, 1, &best);
        decode_step(o, &s, x->N, &best);
    }
    x->decode = best;
}
