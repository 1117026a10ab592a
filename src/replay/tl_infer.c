/* The allocation timeline of an HF generate-style run as the measuring
 * process makes it (shared/groundtruth/measure.py run_infer): the cuBLAS
 * workspace, the weights in module order, the prompt ids, one prefill
 * forward under torch.inference_mode (nothing is saved: every intermediate
 * goes when its last Python name drops it) with use_cache=True and
 * logits_to_keep=1, then decode_len one-token steps. The cache of each layer
 * is the torch.cat of its previous tensor and the new token
 * (cache_utils.py DynamicLayer.update; DynamicSlidingWindowLayer keeps a view
 * of the last window - 1 tokens of the concatenation), so every step
 * allocates each layer's keys and values anew before the old ones go: the
 * churn that leaves the allocator with slightly-too-small cached blocks.
 * Shapes and kernel paths are the estimator's (prefill.c, decode.c). */
#include "replay/replay.h"

#include <stdlib.h>
#include <string.h>

#define A(bytes, cat, what) ig_alloc(s, (bytes), (cat), (what))
#define F(id) llmmem__rp_free(r, (id))
#define ACT LLMMEM_C_ACTIVATION_TRANSIENT
#define KV LLMMEM_C_KV_CACHE

typedef struct ig {
    llmmem__replay *r;
    const llmmem__infer *x;
    const struct llmmem_model *m;
    uint64_t L;          /* layers replayed */
    uint64_t rot;        /* roped width per head */
    bool rope, gated, moe, rms, fused;
    int32_t *keys, *vals; /* each layer's cache tensors */
    uint64_t *ktok;      /* tokens of each layer's current tensors */
    int32_t prev_probs;  /* GPT-J: the probabilities the previous layer returned */
    bool large_only;     /* replay only the large pool's blocks */
} ig;

/* After the first decode step the small pool (blocks of at most 1 MiB, apart
 * from the large pool) repeats itself step after step: the later steps replay
 * only their large blocks (the caches' concatenations, score-sized tensors),
 * unless the timeline is recorded. */
static int32_t ig_alloc(ig *s, uint64_t bytes, int cat, const char *what)
{
    if (s->large_only && bytes <= (UINT64_C(1) << 20))
        return -1;
    return llmmem__rp_alloc(s->r, bytes, cat, LLMMEM__ST_DEFAULT, what);
}

static void phase(ig *s, const char *name)
{
    if (s->r->rec)
        llmmem__tl_phase(s->r->rec, s->r, name);
}

/* Layer i is sliding when the sliding layers are spread over the stack. */
static bool sliding(const ig *s, uint64_t i)
{
    const uint64_t ns = s->x->layers.n[LLMMEM__KV_SLIDING] * s->L / (s->x->L ? s->x->L : 1);
    return (i + 1) * ns / s->L != i * ns / s->L;
}

/* The norm over `rows` tokens: RMSNorm's fp32 copy, pow, the normalised
 * fp32 tensor, its cast and the weight product; LayerNorm one fused op. */
static int32_t norm(ig *s, uint64_t rows)
{
    llmmem__replay *r = s->r;
    const uint64_t e = s->x->e, n = rows * s->x->h;
    if (!s->rms)
        return A(n * e, ACT, "norm");
    int32_t x32 = e != 4 ? A(n * 4, ACT, "RMSNorm: to(float32)") : -1;
    int32_t sq = A(n * 4, ACT, "RMSNorm: pow(2)");
    F(sq);
    int32_t nn = A(n * 4, ACT, "RMSNorm: normalised");
    F(x32);
    int32_t nc = e != 4 ? A(n * e, ACT, "RMSNorm: to(input dtype)") : -1;
    int32_t out = A(n * e, ACT, "RMSNorm: weight * normed");
    F(nc);
    F(nn);
    return out;
}

/* RoPE on `width` columns of `rows` tokens; returns the roped tensor, `v`
 * dropped. */
static int32_t rope(ig *s, int32_t v, uint64_t rows, uint64_t heads)
{
    llmmem__replay *r = s->r;
    const uint64_t e = s->x->e, n = rows * heads * s->rot;
    int32_t qc = A(n * e, ACT, "RoPE: q * cos");
    int32_t neg = A(n / 2 * e, ACT, "RoPE: -x2");
    int32_t cat = A(n * e, ACT, "RoPE: cat");
    F(neg);
    int32_t qs = A(n * e, ACT, "RoPE: * sin");
    F(cat);
    int32_t qe = A(n * e, ACT, "RoPE: q_embed");
    F(qc);
    F(qs);
    if (s->rot < s->x->d) { /* partial rotary: cat with the pass-through part */
        int32_t full = A(rows * heads * s->x->d * e, ACT, "RoPE: cat(rot, pass)");
        F(qe);
        qe = full;
    }
    F(v);
    return qe;
}

/* The cache update of layer i over `add` new tokens: the concatenation of
 * the kept tensor and the new one, keys then values, each replacing its
 * predecessor. */
static void cache_update(ig *s, uint64_t i, uint64_t add)
{
    llmmem__replay *r = s->r;
    const llmmem__infer *x = s->x;
    uint64_t kept = s->ktok[i];
    if (sliding(s, i) && x->layers.window && kept >= x->layers.window)
        kept = x->layers.window - 1;
    const uint64_t tok = kept + add;
    const uint64_t part = x->kv_part_tl, other = x->kv_tl > part ? x->kv_tl - part : part;
    int32_t k = A(x->B * tok * part, KV, "DynamicLayer.update: torch.cat keys");
    F(s->keys[i]);
    s->keys[i] = k;
    int32_t v = A(x->B * tok * other, KV, "DynamicLayer.update: torch.cat values");
    F(s->vals[i]);
    s->vals[i] = v;
    s->ktok[i] = tok;
}

/* The scores side of SDPA's math backend (aten attention.cpp
 * _scaled_dot_product_attention_math): the causal mask as an fp32 bias,
 * fp32 scores and their masked copy, _safe_softmax's output with its bool
 * masks, the fp32 output. */
static int32_t math_scores(ig *s, uint64_t rows, uint64_t ctx, uint64_t sc)
{
    llmmem__replay *r = s->r;
    const llmmem__infer *x = s->x;
    int32_t bias = A((rows / x->B) * ctx * 4, ACT, "math: causal mask as fp32 bias");
    int32_t s1 = A(sc * 4, ACT, "math: q @ k^T (fp32)");
    int32_t s2 = A(sc * 4, ACT, "math: + bias");
    F(s1);
    int32_t p = A(sc * 4, ACT, "math: _safe_softmax");
    int32_t em = A(sc, ACT, "math: eq(-inf) mask");
    int32_t rm = A(x->B * x->a * (rows / x->B), ACT, "math: row mask");
    F(em);
    F(rm);
    F(s2);
    int32_t out = A(rows * x->a * x->d * 4, ACT, "math: probs @ v (fp32)");
    F(p);
    F(bias);
    return out;
}

/* The attention kernel over `rows` query tokens and `ctx` keys, by the path
 * transformers and aten take (prefill_attn.c names the sources): SDPA's
 * fused kernels (output and log-sum-exp); its math backend for fp32 GQA
 * (the scaled query, K and V repeated to every head, the scaled K) and for
 * Falcon's multi-query call (fp32 copies of q, k, v); eager with repeat_kv
 * copies and the scores (bf16: the fp32 copy softmax makes; fp16: the
 * half-to-float kernel; GPT-2/OPT: softmax in the input dtype after
 * torch.where; GPT-J: fp32 q and k and scores, the previous layer's returned
 * probabilities still alive; gpt-oss: the sink column concatenated and the
 * row maximum subtracted, softmax in the compute dtype). */
/* Falcon's multi-query call: fp32 copies of q, k, v into the math backend. */
static int32_t kernel_falcon(ig *s, uint64_t rows, uint64_t ctx, uint64_t q, uint64_t q4, uint64_t sc)
{
    llmmem__replay *r = s->r;
    const llmmem__infer *x = s->x;
    const uint64_t k4 = x->B * x->k * ctx * x->d * 4;
    int32_t qa = A(q4, ACT, "falcon: query.to(float)");
    int32_t qs = A(q4, ACT, "falcon: query * sqrt(scale)");
    int32_t ka = A(k4, ACT, "falcon: key.to(float)");
    int32_t va = A(k4, ACT, "falcon: value.to(float)");
    int32_t o = math_scores(s, rows, ctx, sc);
    F(va);
    F(ka);
    F(qs);
    F(qa);
    int32_t out = A(q, ACT, "falcon: output to the model dtype");
    F(o);
    return out;
}

/* SDPA's math backend for fp32 GQA: the scaled query, K and V repeated to
 * every head, the scaled K. */
static int32_t kernel_math_gqa(ig *s, uint64_t rows, uint64_t ctx, uint64_t q4, uint64_t sc)
{
    llmmem__replay *r = s->r;
    const llmmem__infer *x = s->x;
    const uint64_t kv4 = x->B * x->a * ctx * x->d * 4;
    int32_t qs = A(q4, ACT, "math: scaled query");
    int32_t kr = A(kv4, ACT, "math: key repeated to every head");
    int32_t vr = A(kv4, ACT, "math: value repeated to every head");
    int32_t ks = A(kv4, ACT, "math: scaled key");
    int32_t out = math_scores(s, rows, ctx, sc);
    F(ks);
    F(vr);
    F(kr);
    F(qs);
    return out;
}

/* Eager attention of GPT-2/OPT (softmax in the input dtype after torch.where)
 * and gpt-oss (the sink column, the row maximum subtracted). */
static int32_t eager_gpt2_oss(ig *s, uint64_t rows, uint64_t ctx, uint64_t q, uint64_t sc)
{
    llmmem__replay *r = s->r;
    const llmmem__infer *x = s->x;
    const uint64_t e = x->e, B = x->B, a = x->a;
    int32_t out;
    if (s->m->family != LLMMEM__FAM_GPT_OSS) {
        int32_t s1 = A(sc * e, ACT, "scores");
        int32_t s2 = A(sc * e, ACT, "scores / sqrt(d)");
        F(s1);
        int32_t s3 = A(sc * e, ACT, "torch.where(causal_mask, ...)");
        F(s2);
        int32_t p = A(sc * e, ACT, "softmax (input dtype)");
        F(s3);
        out = A(q, ACT, "probs @ v");
        F(p);
        return out;
    }
    const uint64_t sc1 = B * a * (rows / B) * (ctx + 1);
    int32_t s1 = A(sc * e, ACT, "scores * scaling + mask");
    int32_t cat = A(sc1 * e, ACT, "cat(scores, sinks)");
    int32_t mx = A(B * a * (rows / B) * e, ACT, "max values");
    int32_t ix = A(B * a * (rows / B) * 8, ACT, "max indices");
    int32_t sub = A(sc1 * e, ACT, "combined - max");
    F(cat);
    F(ix);
    F(mx);
    int32_t p = A(sc1 * e, ACT, "softmax (compute dtype)");
    F(sub);
    F(s1);
    out = A(q, ACT, "probs[..., :-1] @ v");
    F(p);
    return out;
}

/* Eager attention of GPT-J (fp32 q, k and scores; the previous layer's
 * returned probabilities alive) and of the rest (the fp32 softmax). */
static int32_t eager_other(ig *s, uint64_t ctx, uint64_t q, uint64_t q4, uint64_t sc)
{
    llmmem__replay *r = s->r;
    const llmmem__infer *x = s->x;
    const uint64_t e = x->e;
    int32_t out;
    if (s->m->family == LLMMEM__FAM_GPTJ) {
        int32_t q32 = A(q4, ACT, "GPT-J: query.to(float32)");
        int32_t k32 = A(x->B * x->a * ctx * x->d * 4, ACT, "GPT-J: key.to(float32)");
        int32_t s1 = A(sc * 4, ACT, "GPT-J: scores + mask (fp32)");
        int32_t s2 = A(sc * 4, ACT, "GPT-J: / scale_attn");
        F(s1);
        int32_t p = A(sc * e, ACT, "GPT-J: softmax .to(value dtype)");
        F(s2);
        F(k32);
        F(q32);
        out = A(q, ACT, "GPT-J: probs @ v");
        F(s->prev_probs); /* the previous layer's returned probabilities */
        s->prev_probs = p;
        return out;
    }
    int32_t s1 = A(sc * e, ACT, "attention scores");
    int32_t s2 = A(sc * e, ACT, "scores * scaling + mask");
    F(s1);
    int32_t conv = (e != 4 && !x->half) ? A(sc * 4, ACT, "softmax input to fp32") : -1;
    int32_t p = A(sc * 4, ACT, "softmax (fp32)");
    F(conv);
    int32_t pc = e != 4 ? A(sc * e, ACT, "softmax .to(query dtype)") : -1;
    F(p);
    F(s2);
    int32_t o = A(q, ACT, "probs @ v");
    F(pc);
    out = A(q, ACT, "attention output transpose");
    F(o);
    return out;
}

static int32_t kernel(ig *s, uint64_t rows, uint64_t ctx, bool masked)
{
    llmmem__replay *r = s->r;
    const llmmem__infer *x = s->x;
    const int fam = s->m->family;
    const uint64_t e = x->e, B = x->B, a = x->a, d = x->d;
    const uint64_t q = rows * a * d * e, q4 = rows * a * d * 4;
    const uint64_t sc = B * a * (rows / B) * ctx;
    if (fam == LLMMEM__FAM_FALCON)
        return kernel_falcon(s, rows, ctx, q, q4, sc);
    if (!x->eager && x->math_gqa && !masked)
        return kernel_math_gqa(s, rows, ctx, q4, sc);
    int32_t kr = -1, vr = -1, out;
    if (x->repeat_kv && (x->eager || masked)) {
        kr = A(B * a * ctx * d * e, ACT, "repeat_kv(key)");
        vr = A(B * a * ctx * d * e, ACT, "repeat_kv(value)");
    }
    if (!x->eager) {
        out = A(q, ACT, "SDPA output");
        int32_t lse = A(B * a * (rows / B) * 4, ACT, "SDPA logsumexp");
        F(lse);
    } else if (fam == LLMMEM__FAM_GPT2 || fam == LLMMEM__FAM_OPT || fam == LLMMEM__FAM_GPT_OSS) {
        out = eager_gpt2_oss(s, rows, ctx, q, sc);
    } else {
        out = eager_other(s, ctx, q, q4, sc);
    }
    F(vr);
    F(kr);
    return out;
}

/* The MLP over `rows` tokens (or the routed experts over rows x top-k). */
static int32_t mlp(ig *s, int32_t n, uint64_t rows)
{
    llmmem__replay *r = s->r;
    const llmmem__infer *x = s->x;
    const uint64_t e = x->e, h = x->h;
    if (s->moe) {
        const uint64_t E = llmmem__nonneg(s->m->num_experts), K = llmmem__nonneg(s->m->experts_per_token);
        const uint64_t fm = s->m->moe_intermediate_size > 0 ? (uint64_t)s->m->moe_intermediate_size : x->f;
        const uint64_t Sk = rows * K;
        int32_t lg = A(rows * E * e, ACT, "router logits");
        int32_t pr = A(rows * E * 4, ACT, "routing softmax");
        F(lg);
        int32_t tw = A(Sk * (8 + e), ACT, "top-k ids and weights");
        F(pr);
        int32_t xg = A(Sk * h * e, ACT, "gathered tokens");
        int32_t gu = A(Sk * 2 * fm * e, ACT, "experts gate_up");
        int32_t ac = A(Sk * fm * e, ACT, "act(gate)");
        int32_t pd = A(Sk * fm * e, ACT, "act(gate) * up");
        F(ac);
        F(gu);
        int32_t dn = A(Sk * h * e, ACT, "experts down");
        F(pd);
        int32_t w = A(Sk * h * e, ACT, "weighted outputs");
        F(dn);
        F(xg);
        int32_t out = A(rows * h * e, ACT, "sum over top-k");
        F(w);
        F(tw);
        (void)n;
        return out;
    }
    const uint64_t f = x->f ? x->f : 4 * h;
    int32_t gate = A(rows * f * e, ACT, "MLP gate / fc1");
    int32_t act = A(rows * f * e, ACT, "MLP activation");
    F(gate);
    if (s->gated) {
        int32_t up = A(rows * f * e, ACT, "MLP up");
        int32_t prod = A(rows * f * e, ACT, "act(gate) * up");
        F(act);
        F(up);
        act = prod;
    }
    int32_t down = A(rows * h * e, ACT, "MLP down / fc2");
    F(act);
    return down;
}

/* One decoder layer over `rows` tokens (prefill: B x S; decode: B). */
static void layer(ig *s, uint64_t i, int32_t *xs, uint64_t rows, uint64_t add, bool masked)
{
    llmmem__replay *r = s->r;
    const llmmem__infer *x = s->x;
    const uint64_t e = x->e, n = rows * x->h;
    const uint64_t qw = x->a * x->d, kw = x->k * x->d;
    int32_t n1 = norm(s, rows);
    int32_t q, k, v, fused = -1;
    if (s->fused) {
        fused = A(rows * (qw + 2 * kw) * e, ACT, "fused qkv projection");
        q = k = v = -1;
    } else {
        q = A(rows * qw * e, ACT, "q projection");
        k = A(rows * kw * e, ACT, "k projection");
        v = A(rows * kw * e, ACT, "v projection");
    }
    if (s->rope) {
        q = rope(s, q, rows, x->a);
        k = rope(s, k, rows, x->k);
    }
    cache_update(s, i, add);
    F(k);
    F(v);
    int32_t att = kernel(s, rows, s->ktok[i], masked);
    F(q);
    F(fused);
    int32_t o = A(n * e, ACT, "attention output projection");
    F(att);
    int32_t h1 = A(n * e, ACT, "residual add");
    F(o);
    F(n1);
    int32_t n2 = norm(s, rows);
    int32_t mo = mlp(s, n2, rows);
    F(n2);
    int32_t h2 = A(n * e, ACT, "residual add");
    F(mo);
    F(h1);
    F(*xs);
    *xs = h2;
}

/* One forward of the model over `rows` tokens appending `add` per sequence. */
static void forward(ig *s, uint64_t rows, uint64_t add, bool prefill)
{
    llmmem__replay *r = s->r;
    const llmmem__infer *x = s->x;
    const uint64_t e = x->e;
    int32_t xs = A(rows * x->h * e, ACT, "embedding");
    int32_t pos = A((prefill ? x->S : 1) * 8, LLMMEM_C_OTHER, "cache_position");
    int32_t cs[2] = {-1, -1};
    if (s->rope)
        for (int j = 0; j < 2; j++)
            cs[j] = A((prefill ? x->S : 1) * s->rot * e, LLMMEM_C_OTHER, j ? "RoPE sin" : "RoPE cos");
    int32_t mask = -1;
    const uint64_t ctx = s->ktok[0] + add;
    if (prefill && x->eager)
        mask = A(x->B * x->S * x->S * e, LLMMEM_C_OTHER, "causal mask (float)");
    for (uint64_t i = 0; i < s->L; i++) {
        bool masked = sliding(s, i) && x->layers.window && ctx >= x->layers.window;
        layer(s, i, &xs, rows, add, masked || (prefill && mask >= 0));
    }
    F(s->prev_probs);
    s->prev_probs = -1;
    int32_t fn = norm(s, rows);
    F(xs);
    int32_t logits = A(x->B * x->V * e, LLMMEM_C_LOGITS, "logits (last position)");
    F(fn);
    F(mask);
    F(cs[0]);
    F(cs[1]);
    F(pos);
    int32_t nxt = A(x->B * 8, LLMMEM_C_OTHER, "next token (argmax)");
    F(logits); /* del out */
    F(nxt);
}

int llmmem__timeline_infer(llmmem__replay *r, const llmmem__infer *x, const struct llmmem_model *m,
                           uint64_t weights, uint64_t ws, uint64_t lt_ws, uint64_t prior, uint64_t layers)
{
    ig st;
    ig *s = &st;
    memset(s, 0, sizeof *s);
    s->r = r;
    s->x = x;
    s->m = m;
    s->L = layers ? layers : 1;
    s->prev_probs = -1;
    s->rope = m->family != LLMMEM__FAM_GPT2 && m->family != LLMMEM__FAM_OPT;
    s->rot = x->d;
    if (m->partial_rotary_factor > 0 && m->partial_rotary_factor < 1)
        s->rot = (uint64_t)((double)x->d * m->partial_rotary_factor);
    if (m->kv_lora_rank > 0)
        s->rot = llmmem__nonneg(m->qk_rope_head_dim);
    s->gated = m->gated_mlp;
    s->moe = m->num_experts > 0 && m->num_moe_layers > 0;
    s->rms = m->norm == LLMMEM__NORM_RMS;
    s->fused = m->family == LLMMEM__FAM_GPT2 || m->family == LLMMEM__FAM_PHI3 || m->family == LLMMEM__FAM_GPT_NEOX ||
              m->family == LLMMEM__FAM_FALCON;
    s->keys = malloc(s->L * sizeof *s->keys);
    s->vals = malloc(s->L * sizeof *s->vals);
    s->ktok = calloc(s->L, sizeof *s->ktok);
    if (!s->keys || !s->vals || !s->ktok) {
        free(s->keys);
        free(s->vals);
        free(s->ktok);
        return LLMMEM_E_NOMEM;
    }
    for (uint64_t i = 0; i < s->L; i++)
        s->keys[i] = s->vals[i] = -1;

    phase(s, "process start");
    (void)A(ws, LLMMEM_C_WORKSPACE, "cuBLAS workspace (first matmul)");
    if (prior)
        (void)llmmem__rp_prior_segment(r, prior, ws, LLMMEM_C_WORKSPACE, "cuBLAS workspace (autograd thread, earlier run)");
    phase(s, "model build");
    /* the weights tensor by tensor in module order, scaled to the layers replayed */
    const llmmem__tensors *ts = &m->tensors;
    uint64_t elems = 0;
    for (int i = 0; i < ts->n; i++)
        elems += llmmem__nonneg(ts->t[i].rows) * llmmem__nonneg(ts->t[i].cols) * llmmem__nonneg(ts->t[i].count);
    const double per = elems ? (double)weights / (double)elems : 0.0;
    int first = ts->n;
    for (int i = 0; i < ts->n; i++)
        if (ts->t[i].layer) {
            first = i;
            break;
        }
    for (int i = 0; i < first; i++)
        (void)A((uint64_t)(per * (double)(llmmem__nonneg(ts->t[i].rows) * llmmem__nonneg(ts->t[i].cols))),
                LLMMEM_C_WEIGHTS, ts->t[i].name);
    for (uint64_t l = 0; l < s->L; l++)
        for (int i = first; i < ts->n; i++)
            if (ts->t[i].layer)
                (void)A((uint64_t)(per * (double)(llmmem__nonneg(ts->t[i].rows) * llmmem__nonneg(ts->t[i].cols))),
                        LLMMEM_C_WEIGHTS, ts->t[i].name);
    for (int i = first; i < ts->n; i++)
        if (!ts->t[i].layer)
            (void)A((uint64_t)(per * (double)(llmmem__nonneg(ts->t[i].rows) * llmmem__nonneg(ts->t[i].cols))),
                    LLMMEM_C_WEIGHTS, ts->t[i].name);
    if (!ts->n)
        (void)A(weights, LLMMEM_C_WEIGHTS, "weights");
    (void)A(x->B * x->S * 8, LLMMEM_C_OTHER, "input ids");
    phase(s, "prefill");
    if (lt_ws)
        (void)A(lt_ws, LLMMEM_C_WORKSPACE, "cuBLASLt workspace");
    forward(s, x->T, x->S, true);
    phase(s, "decode");
    for (uint64_t n = 1; n <= x->N && !r->nomem; n++) {
        s->large_only = n > 1 && !r->rec;
        if (r->rec)
            llmmem__tl_mark(r->rec, r, "decode step", n);
        forward(s, x->B, 1, false);
    }
    free(s->keys);
    free(s->vals);
    free(s->ktok);
    return r->nomem ? LLMMEM_E_NOMEM : LLMMEM_OK;
}
