/* The allocations of one decoder layer in training, forward and backward, op
 * by op as HF transformers 5.x runs it under PyTorch 2.x autograd: a pre-norm
 * block (norm, attention, residual add, norm, MLP, residual add), what each
 * op allocates, which tensors autograd saves (derivatives.yaml: an op keeps
 * the inputs its backward formula needs) and when Python drops the rest
 * (modeling_llama.py LlamaDecoderLayer/LlamaAttention/LlamaMLP/LlamaRMSNorm,
 * integrations/sdpa_attention.py, eager_attention_forward). Under
 * torch.autocast every Linear casts its input to the compute dtype (a new
 * tensor per call, autocast_mode.cpp) and its weight once per forward (the
 * cache of leaf weights that require grad). Backward runs node by node in
 * reverse creation order (engine.cpp: the ready queue by sequence number),
 * each node allocating its input gradients, then releasing what it saved.
 *
 * The families differ in their norms (RMSNorm with an fp32 upcast, Gemma's
 * fp32 weight, LayerNorm), the MLP (gated, GELU, NewGELU in Python ops,
 * ReLU, routed experts), the attention (SDPA/flash or eager; RoPE or not) and
 * the block (sequential, parallel, post-norms). What a family keeps beyond
 * this program (the estimator's saved bytes per layer, saved.c) is one more
 * block allocated at the end of the layer and freed when its backward starts,
 * so the replay's live bytes follow the estimator's. */
#include "replay/tl_gen.h"

#include <string.h>

#define N llmmem__tl_new
#define HOLD llmmem__tl_hold
#define DROP llmmem__tl_drop
#define SAVE llmmem__tl_save

#define ACT LLMMEM_C_ACTIVATIONS
#define TMP LLMMEM_C_ACTIVATION_TRANSIENT
#define CAST LLMMEM_C_AUTOCAST_CACHE

#define MAXLIN 16

/* The parameters of one layer by role. */
typedef struct roles {
    tl_param *attn[MAXLIN]; /* attention Linears; the last is the output projection */
    int nattn;
    tl_param *mlp[MAXLIN];  /* gate, up, down / fc1, fc2 */
    int nmlp;
    tl_param *norm[6];
    int nnorm;
    tl_param *experts[4];
    int nexp;
    tl_param *router;
} roles;

typedef tl_kept kept;

struct tl_layer {
    int32_t ckpt_x;          /* the checkpoint's inputs */
    kept n1, n2, n3, n4;     /* norms */
    kept attn_in;            /* what the q/k/v (and router) matmuls keep of their input */
    int32_t wc[2 * MAXLIN];  /* weight casts kept by their matmul */
    kept core;               /* the attention kernel's (eager: q @ k^T's) */
    kept core_sm, core_pv;   /* eager: the softmax's, probs @ v's */
    uint64_t mask_b, score_b; /* eager: dtype of the masked scores, of the softmax's input gradient */
    kept o_in;               /* the output projection's input */
    kept mlp_in;             /* what gate/up (fc1) keep of their input */
    kept mlp;                /* the activation's input (released after its backward) */
    kept mlp_prod;           /* the gated product's factors (NewGELU's products) */
    kept mlp_down_in;        /* the down projection's input */
    uint64_t mlp_act_b;      /* dtype bytes of the down projection's input */
    kept router_in;          /* what the MoE router keeps of its input */
    int32_t rem;             /* the estimator's remainder */
    int32_t lora_x[2 * MAXLIN], lora_a[2 * MAXLIN]; /* what LoRA's lora_A and lora_B keep */
    uint64_t lora_xb[2 * MAXLIN];                     /* dtype bytes of lora_A's input */
    uint64_t xb;             /* dtype bytes of the layer input */
};

size_t llmmem__tl_layer_size(void) { return sizeof(struct tl_layer); }
void llmmem__tl_layer_set_input(tl_layer *y, int32_t x) { y->ckpt_x = x; }
int32_t llmmem__tl_layer_input(const tl_layer *y) { return y->ckpt_x; }

#define keep llmmem__tl_keep
#define release llmmem__tl_unkeep

/* ---- roles ------------------------------------------------------------------------ */

static bool is_qk_norm(const tl_param *p)
{
    return strstr(p->name, "q_norm") || strstr(p->name, "k_norm") || strstr(p->name, "q_a_layernorm") ||
           strstr(p->name, "kv_a_layernorm");
}

static void roles_of(roles *r, tl_gen *g, int64_t layer)
{
    memset(r, 0, sizeof *r);
    /* the layers' parameters come layer after layer (params_build): the
     * first of this layer's by binary search */
    int lo = g->first_layer_param, hi = g->after_layer_param;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (g->p[mid].layer < layer)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int i = lo; i < g->after_layer_param; i++) {
        tl_param *p = &g->p[i];
        if (p->layer != layer)
            break;
        if (p->adapter)
            continue;
        switch (p->kind) {
        case LLMMEM__T_ATTN:
            if (p->linear && r->nattn < MAXLIN)
                r->attn[r->nattn++] = p;
            break;
        case LLMMEM__T_MLP:
            if (p->linear && r->nmlp < MAXLIN)
                r->mlp[r->nmlp++] = p;
            break;
        case LLMMEM__T_EXPERT:
            if (r->nexp < 4)
                r->experts[r->nexp++] = p;
            break;
        case LLMMEM__T_ROUTER:
            r->router = p;
            break;
        case LLMMEM__T_NORM:
            if (!is_qk_norm(p) && r->nnorm < 6)
                r->norm[r->nnorm++] = p;
            break;
        default:
            break;
        }
    }
}

/* ---- forward pieces ------------------------------------------------------------------ */

static bool trains(const tl_param *p) { return p && p->trains; }

/* The norm of the family over an input of `xb` bytes (LlamaRMSNorm: x.to(fp32),
 * pow, mean, rsqrt, mul, .to(input dtype), weight *; Gemma/Olmo2 RMSNorm
 * with an fp32 weight; LayerNorm under autocast runs in fp32). Returns the
 * output; *ob its dtype bytes. What it keeps, by position in k: the input
 * (or its fp32 copy) for pow and for the product with rsqrt, rsqrt, the
 * normalised tensor the weight multiplies. */
enum { NV_X = 0, NV_X2, NV_RS, NV_N, NV_COUNT };

int32_t llmmem__tl_norm_fwd(tl_gen *g, kept *k, const tl_param *w, int32_t x, uint64_t xb, uint64_t *ob)
{
    const uint64_t Th = g->T * g->h;
    const struct llmmem_model *m = g->m;
    const bool wt = trains(w);
    for (int i = 0; i < NV_COUNT; i++)
        k->v[i] = -1;
    k->n = NV_COUNT;
    if (m->norm != LLMMEM__NORM_RMS) {
        bool fp32 = g->amp || m->norm == LLMMEM__NORM_NONPARAM;
        int32_t in = x;
        if (fp32 && xb != 4)
            in = N(g, Th * 4, ACT, "norm: input to fp32");
        else
            HOLD(g, in);
        k->v[NV_X] = SAVE(g, in); /* native_layer_norm keeps its input, mean and rstd */
        int32_t mr = N(g, g->T * 8, ACT, "norm: mean, rstd");
        k->v[NV_RS] = SAVE(g, mr);
        DROP(g, mr);
        *ob = fp32 ? 4 : xb;
        int32_t out = N(g, Th * *ob, TMP, "norm: output");
        DROP(g, in);
        if (fp32 && xb != 4 && m->norm == LLMMEM__NORM_NONPARAM) {
            int32_t back = N(g, Th * xb, TMP, "norm: output to the input dtype");
            DROP(g, out);
            out = back;
            *ob = xb;
        }
        return out;
    }
    const bool fp32_weight = m->family == LLMMEM__FAM_GEMMA || !strcmp(m->model_type, "olmo2");
    int32_t x32 = x;
    if (xb != 4)
        x32 = N(g, Th * 4, ACT, "RMSNorm: hidden_states.to(float32)");
    else
        HOLD(g, x32);
    k->v[NV_X] = SAVE(g, x32); /* pow(2) */
    int32_t sq = N(g, Th * 4, TMP, "RMSNorm: pow(2)");
    int32_t var = N(g, g->T * 4, TMP, "RMSNorm: mean");
    DROP(g, sq);
    int32_t rs = N(g, g->T * 4, ACT, "RMSNorm: rsqrt(variance + eps)");
    k->v[NV_X2] = SAVE(g, x32); /* x * rsqrt */
    k->v[NV_RS] = SAVE(g, rs);
    int32_t n = N(g, Th * 4, TMP, "RMSNorm: normalised (fp32)");
    DROP(g, rs);
    DROP(g, x32);
    int32_t out;
    if (fp32_weight) {
        if (wt)
            k->v[NV_N] = SAVE(g, n); /* n * (1 + weight) */
        out = N(g, Th * 4, TMP, "RMSNorm: * (1 + weight)");
        DROP(g, n);
        *ob = 4;
        if (xb != 4) {
            int32_t back = N(g, Th * xb, TMP, "RMSNorm: .type_as(x)");
            DROP(g, out);
            out = back;
            *ob = xb;
        }
        DROP(g, var);
        return out;
    }
    int32_t nc = n;
    if (xb != 4)
        nc = N(g, Th * xb, TMP, "RMSNorm: .to(input dtype)");
    else
        HOLD(g, nc);
    if (wt)
        k->v[NV_N] = SAVE(g, nc); /* weight * normed */
    *ob = xb > g->pb ? xb : g->pb;
    out = N(g, Th * *ob, TMP, "RMSNorm: weight * normed");
    DROP(g, nc);
    DROP(g, n);
    DROP(g, var);
    return out;
}

/* A Linear reading `in` (`ib` bytes, `win` wide) into `wout`: under autocast
 * the input cast (kept when the weight trains) and the weight's cast (cached
 * for a trainable weight, per call for a frozen one; kept for the input's
 * gradient); the output in the compute dtype. */
static int32_t G(tl_gen *g, uint64_t bytes, const char *what) { return N(g, bytes, TMP, what); }

static void drop_slot(tl_gen *g, int32_t *id)
{
    DROP(g, *id);
    *id = -1;
}

/* The LoRA adapters of a base weight (registered right after it), or NULL. */
static const tl_param *lora_of(const tl_gen *g, const tl_param *w)
{
    if (!w || w + 2 >= g->p + g->np || !w[1].adapter || !w[2].adapter)
        return NULL;
    return w + 1;
}

/* peft LoRA Linear.forward (tuners/lora/layer.py): `result + lora_B(lora_A(
 * dropout(x))) * scaling`, x cast to the adapter dtype first
 * (_cast_input_dtype; fp32 adapters over 16-bit weights), the sum cast back
 * to the result's dtype; under autocast the adapters' matmuls run in the
 * compute dtype. lora_A keeps its input, lora_B lora_A's output. */
static int32_t lora_fwd(tl_gen *g, struct tl_layer *y, int slot, const tl_param *ad, int32_t in, uint64_t ib,
                        uint64_t win, uint64_t wout, int32_t out)
{
    const uint64_t r = ad[0].rows, T = g->T, cb = g->cb;
    const uint64_t xb = g->amp ? cb : g->rc.ab;
    int32_t xa = in;
    if (ib != xb)
        xa = N(g, T * win * xb, ACT, "LoRA: input to the adapter dtype");
    else
        HOLD(g, xa);
    int32_t ao = N(g, T * r * xb, ACT, "LoRA: lora_A output");
    int32_t bo = N(g, T * wout * xb, TMP, "LoRA: lora_B output");
    int32_t sc = N(g, T * wout * xb, TMP, "LoRA: * scaling");
    DROP(g, bo);
    const uint64_t sb = xb > cb ? xb : cb;
    int32_t sum = N(g, T * wout * sb, TMP, "LoRA: result + adapter");
    DROP(g, sc);
    DROP(g, out);
    if (sb != cb) {
        int32_t back = N(g, T * wout * cb, TMP, "LoRA: result.to(base dtype)");
        DROP(g, sum);
        sum = back;
    }
    if (slot >= 0 && slot < 2 * MAXLIN && g->saving) {
        y->lora_x[slot] = xa;
        y->lora_a[slot] = ao;
        y->lora_xb[slot] = xb;
    } else {
        DROP(g, xa);
        DROP(g, ao);
    }
    return sum;
}

/* LoRA's backward before the base matmul's (its nodes were created after
 * it): the cast back, the sum (the base branch's gradient cast to the base
 * dtype), the scaling, lora_B and lora_A (their weights' gradients), the
 * input cast back; *dout becomes the base matmul's gradient, the return the
 * adapters' input gradient in `ib` bytes (-1 without adapters). */
static int32_t lora_bwd(tl_gen *g, struct tl_layer *y, int slot, const tl_param *w, int32_t *dout, uint64_t win,
                        uint64_t ib)
{
    const tl_param *ad = lora_of(g, w);
    if (!ad || slot < 0 || slot >= 2 * MAXLIN || y->lora_a[slot] < 0)
        return -1;
    tl_param *pa = (tl_param *)&ad[0], *pb = (tl_param *)&ad[1];
    const uint64_t r = ad[0].rows, wout = ad[1].rows, T = g->T, cb = g->cb, xb = y->lora_xb[slot];
    const uint64_t sb = xb > cb ? xb : cb;
    int32_t d = *dout;
    if (sb != cb) {
        d = G(g, T * wout * sb, "LoRA backward: to the sum's dtype");
        DROP(g, *dout);
        *dout = G(g, T * wout * cb, "LoRA backward: base branch cast");
    } else {
        HOLD(g, d);
    }
    int32_t ds = G(g, T * wout * xb, "LoRA backward: * scaling");
    DROP(g, d);
    llmmem__tl_bwd_matmul(g);
    int32_t dao = G(g, T * r * xb, "LoRA backward: lora_B input gradient");
    int32_t db = llmmem__tl_weight_grad_mm(g, pb, g->amp);
    DROP(g, ds);
    drop_slot(g, &y->lora_a[slot]);
    llmmem__tl_weight_grad_done(g, pb, db, g->amp);
    int32_t dxa = G(g, T * win * xb, "LoRA backward: lora_A input gradient");
    int32_t da = llmmem__tl_weight_grad_mm(g, pa, g->amp);
    DROP(g, dao);
    drop_slot(g, &y->lora_x[slot]);
    llmmem__tl_weight_grad_done(g, pa, da, g->amp);
    if (xb != ib) {
        int32_t dx = G(g, T * win * ib, "LoRA backward: input cast");
        DROP(g, dxa);
        dxa = dx;
    }
    return dxa;
}

static int32_t linear_fwd(tl_gen *g, struct tl_layer *y, int slot, kept *k, const tl_param *w, int32_t in,
                          uint64_t ib, uint64_t win, uint64_t wout, const char *what)
{
    int32_t cin = in;
    if (g->amp && ib != g->cb)
        cin = N(g, g->T * win * g->cb, TMP, "Linear: autocast input cast");
    else
        HOLD(g, cin);
    if (trains(w))
        keep(g, k, cin);
    if (g->amp && w) {
        /* a trainable weight's cast lives in autocast's cache until the
         * outermost autocast region ends; a frozen one is cast per call */
        int32_t wc = N(g, w->n * g->cb, CAST, "autocast weight cast");
        if (w->trains)
            llmmem__tl_cache(g, wc);
        if (slot >= 0 && slot < 2 * MAXLIN && g->saving) {
            HOLD(g, wc);
            y->wc[slot] = wc;
        }
        DROP(g, wc);
    }
    int32_t out = N(g, g->T * wout * g->cb, TMP, what);
    DROP(g, cin);
    const tl_param *ad = lora_of(g, w);
    if (ad)
        out = lora_fwd(g, y, slot, ad, in, ib, win, wout, out);
    return out;
}

/* RoPE on q or k (apply_rotary_pos_emb): q * cos, rotate_half(q) (neg and
 * cat), * sin, the sum, in the dtype cos/sin promote to (the residual
 * dtype). Keeps nothing beyond cos and sin. */
static int32_t rope_fwd(tl_gen *g, int32_t v, uint64_t width)
{
    const uint64_t pr = g->cb > g->rb ? g->cb : g->rb;
    const uint64_t n = g->T * width;
    int32_t qc = N(g, n * pr, TMP, "RoPE: q * cos");
    int32_t neg = N(g, n / 2 * g->cb, TMP, "RoPE: -x2");
    int32_t cat = N(g, n * g->cb, TMP, "RoPE: rotate_half cat");
    DROP(g, neg);
    int32_t qs = N(g, n * pr, TMP, "RoPE: rotate_half(q) * sin");
    DROP(g, cat);
    int32_t qe = N(g, n * pr, TMP, "RoPE: q_embed");
    DROP(g, qc);
    DROP(g, qs);
    DROP(g, v);
    return qe;
}

/* The attention kernel over q, k, v: SDPA (flash: keeps its inputs in the
 * compute dtype, the output and the fp32 log-sum-exp; repeat_kv copies when
 * a mask is passed) or eager (scores, scaled, masked, fp32 softmax kept, its
 * compute-dtype copy kept, the output transposed). Returns the output the
 * output projection reads. */
static int32_t core_fwd(tl_gen *g, struct tl_layer *y, int32_t q, int32_t k, int32_t v, uint64_t qb)
{
    const uint64_t Tq = g->T * g->q, Tk = g->T * g->kv, cb = g->cb;
    int32_t qc = q, kc = k;
    if (g->amp && qb != cb) {
        qc = N(g, Tq * cb, ACT, "SDPA: autocast q");
        kc = N(g, Tk * cb, ACT, "SDPA: autocast k");
    } else {
        HOLD(g, qc);
        HOLD(g, kc);
    }
    int32_t vc = v;
    HOLD(g, vc);
    if (g->gqa_expand) {
        int32_t kr = N(g, Tq * cb, ACT, "repeat_kv(key)");
        int32_t vr = N(g, Tq * cb, ACT, "repeat_kv(value)");
        DROP(g, kc);
        DROP(g, vc);
        kc = kr;
        vc = vr;
    }
    int32_t out;
    if (!g->eager) {
        keep(g, &y->core, qc);
        keep(g, &y->core, kc);
        keep(g, &y->core, vc);
        out = N(g, Tq * cb, ACT, "SDPA: output");
        keep(g, &y->core, out);
        int32_t lse = N(g, g->B * g->a * g->S * 4, ACT, "SDPA: logsumexp");
        keep(g, &y->core, lse);
        DROP(g, lse);
    } else {
        const uint64_t SS = g->B * g->a * g->S * g->S;
        keep(g, &y->core, qc);
        keep(g, &y->core, kc);
        int32_t s1 = N(g, SS * cb, TMP, "eager: q @ k^T");
        int32_t s2 = N(g, SS * cb, TMP, "eager: * scaling");
        DROP(g, s1);
        /* the float mask is in the embeddings' dtype (masking_utils eager_mask) */
        y->mask_b = g->mask >= 0 && g->rb > cb ? g->rb : cb;
        int32_t s3 = s2;
        if (g->mask >= 0) {
            s3 = N(g, SS * y->mask_b, TMP, "eager: + causal_mask");
            DROP(g, s2);
        }
        /* softmax(dtype=float32) converts a bf16 input to fp32 first; fp16
         * takes the half-to-float kernel (aten SoftMax.cpp softmax) */
        const bool half = y->mask_b == 2 && g->c->compute_dtype == LLMMEM__DT_FP16;
        y->score_b = half ? 2 : 4;
        int32_t conv = -1;
        if (y->mask_b != 4 && !half)
            conv = N(g, SS * 4, TMP, "eager: softmax input to fp32");
        int32_t p = N(g, SS * 4, ACT, "eager: softmax(float32)");
        DROP(g, conv);
        keep(g, &y->core_sm, p);
        int32_t pc = p;
        if (cb != 4)
            pc = N(g, SS * cb, ACT, "eager: softmax .to(query dtype)");
        else
            HOLD(g, pc);
        DROP(g, p);
        DROP(g, s3);
        keep(g, &y->core_pv, pc);
        keep(g, &y->core_pv, vc);
        int32_t o = N(g, Tq * cb, TMP, "eager: probs @ v");
        DROP(g, pc);
        out = N(g, Tq * cb, ACT, "eager: transpose(1, 2).contiguous()");
        DROP(g, o);
    }
    DROP(g, qc);
    DROP(g, kc);
    DROP(g, vc);
    return out;
}

/* Attention: q/k/v projections (one fused Linear or several), RoPE, the
 * kernel, the output projection; the projections' outputs and RoPE's are
 * dropped when the module returns. */
static int32_t attention_fwd(tl_gen *g, struct tl_layer *y, const roles *r, int32_t n, uint64_t nb)
{
    const int nin = r->nattn > 1 ? r->nattn - 1 : 1;
    int32_t proj[MAXLIN];
    uint64_t width[MAXLIN];
    for (int i = 0; i < nin; i++) {
        const tl_param *w = r->nattn ? r->attn[i] : NULL;
        width[i] = w ? (uint64_t)w->rows : g->q;
        proj[i] = linear_fwd(g, y, i, &y->attn_in, w, n, nb, g->h, width[i], "attention projection");
    }
    int32_t q, k, v;
    uint64_t qb = g->cb;
    if (nin >= 3) {
        q = proj[0], k = proj[1], v = proj[2];
        for (int i = 3; i < nin; i++)
            DROP(g, proj[i]);
    } else { /* a fused projection: q, k and v are views of it */
        q = proj[0];
        k = -1;
        HOLD(g, q);
        v = proj[0];
        HOLD(g, v);
        for (int i = 1; i < nin; i++)
            DROP(g, proj[i]);
        DROP(g, proj[0]);
    }
    if (g->rope) {
        q = rope_fwd(g, q, g->q);
        k = k >= 0 ? rope_fwd(g, k, g->kv) : N(g, g->T * g->kv * (g->cb > g->rb ? g->cb : g->rb), TMP, "RoPE: k");
        qb = g->cb > g->rb ? g->cb : g->rb;
    } else if (k < 0) {
        HOLD(g, q);
        k = q;
    }
    int32_t out = core_fwd(g, y, q, k, v, qb);
    DROP(g, q);
    DROP(g, k);
    DROP(g, v);
    const tl_param *wo = r->nattn > 1 ? r->attn[r->nattn - 1] : NULL;
    int32_t o = linear_fwd(g, y, MAXLIN - 1, &y->o_in, wo, out, g->cb, g->q, g->h, "attention output projection");
    DROP(g, out);
    return o;
}

/* The activation between the MLP's Linears: SiLU/GELU keep their input; the
 * gated product keeps both factors; NewGELU in Python ops keeps x (fp32
 * under autocast), tanh, 0.5 x and 1 + tanh; ReLU its output. Returns the
 * down projection's input and its bytes. */
static int32_t mlp_act_fwd(tl_gen *g, struct tl_layer *y, int32_t gate, int32_t up, uint64_t f, uint64_t *ob)
{
    const uint64_t n = g->T * f, cb = g->cb;
    *ob = cb;
    switch (g->m->act) {
    case LLMMEM__ACT_GELU_NEW: {
        const uint64_t pb = g->amp ? 4 : cb;
        int32_t x = gate;
        if (g->amp)
            x = N(g, n * 4, ACT, "NewGELU: autocast pow input");
        else
            HOLD(g, x);
        keep(g, &y->mlp, x);
        int32_t x3 = N(g, n * pb, TMP, "NewGELU: pow(x, 3)");
        int32_t t1 = N(g, n * pb, TMP, "NewGELU: 0.044715 * x^3");
        DROP(g, x3);
        int32_t t2 = N(g, n * pb, TMP, "NewGELU: x + ...");
        DROP(g, t1);
        DROP(g, x);
        int32_t t3 = N(g, n * pb, TMP, "NewGELU: * sqrt(2/pi)");
        DROP(g, t2);
        int32_t th = N(g, n * pb, ACT, "NewGELU: tanh");
        DROP(g, t3);
        keep(g, &y->mlp_prod, th);
        int32_t t5 = N(g, n * pb, ACT, "NewGELU: 1 + tanh");
        DROP(g, th);
        int32_t t6 = N(g, n * cb, ACT, "NewGELU: 0.5 * x");
        keep(g, &y->mlp_prod, t6);
        keep(g, &y->mlp_prod, t5);
        *ob = pb;
        int32_t out = N(g, n * pb, ACT, "NewGELU: output");
        DROP(g, t5);
        DROP(g, t6);
        return out;
    }
    case LLMMEM__ACT_RELU: {
        int32_t out = N(g, n * cb, ACT, "ReLU");
        keep(g, &y->mlp_prod, out);
        return out;
    }
    default:
        break;
    }
    keep(g, &y->mlp, gate); /* the activation keeps its input */
    int32_t act = N(g, n * cb, ACT, "MLP activation");
    if (up < 0)
        return act;
    keep(g, &y->mlp_prod, act);
    keep(g, &y->mlp_prod, up);
    int32_t prod = N(g, n * cb, ACT, "MLP act(gate) * up");
    DROP(g, act);
    return prod;
}

/* Routed experts (transformers integrations/moe.py, grouped_mm): router
 * logits and fp32 routing weights, each token's hidden state gathered per
 * chosen expert, the experts' gate/up and down outputs over T x top-k rows,
 * weighted and summed back to T rows. */
static int32_t experts_fwd(tl_gen *g, struct tl_layer *y, const roles *r, int32_t n, uint64_t nb)
{
    const struct llmmem_model *m = g->m;
    const uint64_t E = llmmem__nonneg(m->num_experts), K = llmmem__nonneg(m->experts_per_token);
    const uint64_t fm = llmmem__nonneg(m->moe_intermediate_size ? m->moe_intermediate_size : m->intermediate_size);
    const uint64_t TK = g->T * K, cb = g->cb;
    int32_t logits = linear_fwd(g, y, MAXLIN, &y->router_in, r->router, n, nb, g->h, E, "MoE router logits");
    int32_t probs = N(g, g->T * E * 4, TMP, "MoE routing softmax (fp32)");
    DROP(g, logits);
    keep(g, &y->mlp, probs);
    int32_t topw = N(g, TK * 4, ACT, "MoE top-k weights");
    DROP(g, probs);
    int32_t nc = n;
    if (nb != cb)
        nc = N(g, g->T * g->h * cb, TMP, "MoE input cast");
    else
        HOLD(g, nc);
    int32_t xg = N(g, TK * g->h * cb, ACT, "MoE gathered tokens");
    DROP(g, nc);
    keep(g, &y->mlp, xg);
    int32_t gu = N(g, TK * 2 * fm * cb, ACT, "MoE experts gate_up");
    keep(g, &y->mlp, gu);
    int32_t act = N(g, TK * fm * cb, ACT, "MoE experts act(gate) * up");
    keep(g, &y->mlp, act);
    DROP(g, gu);
    int32_t down = N(g, TK * g->h * cb, ACT, "MoE experts down");
    DROP(g, act);
    DROP(g, xg);
    keep(g, &y->mlp, down);
    keep(g, &y->mlp, topw);
    int32_t wsum = N(g, TK * g->h * cb, TMP, "MoE weighted outputs");
    DROP(g, down);
    DROP(g, topw);
    int32_t out = N(g, g->T * g->h * cb, TMP, "MoE sum over top-k");
    DROP(g, wsum);
    (void)E;
    return out;
}

/* The MLP: gate and up (or fc1) read the normed input, the activation, the
 * down projection (or fc2); experts when the layer routes. */
static int32_t mlp_fwd(tl_gen *g, struct tl_layer *y, const roles *r, int32_t n, uint64_t nb)
{
    const struct llmmem_model *m = g->m;
    if (r->nexp > 0)
        return experts_fwd(g, y, r, n, nb);
    const bool gated = m->gated_mlp;
    const tl_param *wg = r->nmlp > 0 ? r->mlp[0] : NULL;
    const tl_param *wu = gated && r->nmlp > 2 ? r->mlp[1] : NULL;
    const tl_param *wd = r->nmlp > 0 ? r->mlp[r->nmlp - 1] : NULL;
    uint64_t f = wg ? (uint64_t)wg->rows : g->f;
    if (gated && wg && r->nmlp == 2)
        f /= 2; /* a fused gate_up projection */
    int32_t gate = linear_fwd(g, y, MAXLIN + 1, &y->mlp_in, wg, n, nb, g->h, gated && r->nmlp == 2 ? 2 * f : f,
                              "MLP gate / fc1");
    int32_t up = -1;
    if (gated && r->nmlp > 2)
        up = linear_fwd(g, y, MAXLIN + 2, &y->mlp_in, wu, n, nb, g->h, f, "MLP up");
    uint64_t ab;
    int32_t a = mlp_act_fwd(g, y, gate, up, f, &ab);
    DROP(g, gate);
    DROP(g, up);
    y->mlp_act_b = ab;
    int32_t d = linear_fwd(g, y, MAXLIN + 3, &y->mlp_down_in, wd, a, ab, f, g->h, "MLP down / fc2");
    DROP(g, a);
    return d;
}

/* The dtype bytes of a norm's output over an `xb`-byte input (norm_fwd). */
static uint64_t norm_out_bytes(const tl_gen *g, uint64_t xb)
{
    const struct llmmem_model *m = g->m;
    if (m->norm == LLMMEM__NORM_NONPARAM)
        return xb;
    if (m->norm != LLMMEM__NORM_RMS)
        return g->amp ? 4 : xb;
    if (m->family == LLMMEM__FAM_GEMMA || !strcmp(m->model_type, "olmo2"))
        return xb;
    return xb > g->pb ? xb : g->pb;
}

/* residual + branch in the residual dtype. */
static int32_t residual_add(tl_gen *g, int32_t x, int32_t branch)
{
    int32_t out = N(g, g->T * g->h * g->rb, TMP, "residual add");
    DROP(g, branch);
    (void)x;
    return out;
}

/* The estimator's saved bytes per layer that the program did not keep
 * (family specifics): one block kept to the layer's backward. */
static void remainder_fwd(tl_gen *g, struct tl_layer *y, uint64_t kept_bytes, int64_t i)
{
    if (!g->saving)
        return;
    if (i == 0 && !g->act_prog)
        g->act_prog = kept_bytes;
    if (g->act_target > kept_bytes + 4096)
        y->rem = N(g, g->act_target - kept_bytes, ACT, "saved tensors of the family (estimator)");
}

void llmmem__tl_layer_fwd(tl_gen *g, tl_layer *y, int64_t i, int32_t *x, bool recompute)
{
    roles r;
    roles_of(&r, g, i);
    memset(y, 0, sizeof *y);
    y->ckpt_x = y->rem = -1;
    for (int k = 0; k < 2 * MAXLIN; k++)
        y->wc[k] = y->lora_x[k] = y->lora_a[k] = -1;
    y->xb = g->rb;
    const uint64_t before = g->rp->allocated;
    const struct llmmem_model *m = g->m;
    const int nn = r.nnorm;
    const bool post_only = !strcmp(m->model_type, "olmo2");
    uint64_t nb;
    int32_t in = *x, out;
    if (m->parallel_block) {
        int32_t n1 = llmmem__tl_norm_fwd(g, &y->n1, nn > 0 ? r.norm[0] : NULL, in, g->rb, &nb);
        int32_t a = attention_fwd(g, y, &r, n1, nb);
        int32_t n2 = n1;
        uint64_t nb2 = nb;
        if (nn > 1)
            n2 = llmmem__tl_norm_fwd(g, &y->n2, r.norm[1], in, g->rb, &nb2);
        else
            HOLD(g, n2);
        int32_t mo = mlp_fwd(g, y, &r, n2, nb2);
        DROP(g, n2);
        DROP(g, n1);
        int32_t s = N(g, g->T * g->h * g->cb, TMP, "attention + mlp");
        DROP(g, a);
        out = residual_add(g, in, s);
        DROP(g, mo);
    } else {
        int32_t n1 = in;
        nb = g->rb;
        if (!post_only)
            n1 = llmmem__tl_norm_fwd(g, &y->n1, nn > 0 ? r.norm[0] : NULL, in, g->rb, &nb);
        else
            HOLD(g, n1);
        int32_t a = attention_fwd(g, y, &r, n1, nb);
        DROP(g, n1);
        if (nn >= 4 || post_only) {
            uint64_t pb_;
            int32_t pa = llmmem__tl_norm_fwd(g, &y->n3, r.norm[post_only ? 0 : 1], a, g->cb, &pb_);
            DROP(g, a);
            a = pa;
        }
        int32_t h1 = residual_add(g, in, a);
        int32_t n2 = h1;
        nb = g->rb;
        if (!post_only)
            n2 = llmmem__tl_norm_fwd(g, &y->n2, nn >= 4 ? r.norm[2] : (nn > 1 ? r.norm[1] : NULL), h1, g->rb, &nb);
        else
            HOLD(g, n2);
        int32_t mo = mlp_fwd(g, y, &r, n2, nb);
        DROP(g, n2);
        if (nn >= 4 || post_only) {
            uint64_t pb_;
            int32_t pm = llmmem__tl_norm_fwd(g, &y->n4, r.norm[post_only ? 1 : 3], mo, g->cb, &pb_);
            DROP(g, mo);
            mo = pm;
        }
        out = residual_add(g, h1, mo);
        DROP(g, h1);
    }
    if (recompute) {
        DROP(g, out); /* the recompute stops after the last saved tensor */
        out = -1;
    }
    /* what the layer kept: live bytes now, less the output; the input
     * counts when the layer saved it (a reference beyond the caller's) */
    uint64_t kept_b = g->rp->allocated - before - llmmem__tl_bytes(g, out);
    if (in >= 0 && g->ref[in] > 1 + (g->ckpt && !recompute))
        kept_b += llmmem__tl_bytes(g, in);
    remainder_fwd(g, y, kept_b, i);
    *x = out;
}

/* ---- backward -------------------------------------------------------------------------
 * Each autograd node allocates its outputs, casts those whose dtype differs
 * from the input they flow to (validate_outputs), frees its incoming gradient
 * and then releases what it saved (engine.cpp call_function,
 * evaluate_function); the next node is the ready one created last. */


/* A Linear's MmBackward (outputs: the input's gradient, the weight's in the
 * matmul dtype; then its incoming gradient and what it kept go), the weight
 * cast's ToCopyBackward and AccumulateGrad, then the input cast's
 * ToCopyBackward back to `ib`. */
static int32_t linear_bwd(tl_gen *g, struct tl_layer *y, int slot, kept *k, tl_param *w, int32_t dout, uint64_t win,
                          uint64_t ib)
{
    int32_t dl = lora_bwd(g, y, slot, w, &dout, win, ib);
    llmmem__tl_bwd_matmul(g);
    int32_t din = G(g, g->T * win * g->cb, "MmBackward: input gradient");
    int32_t dw = llmmem__tl_weight_grad_mm(g, w, g->amp);
    DROP(g, dout);
    if (k)
        release(g, k);
    if (slot >= 0 && slot < 2 * MAXLIN)
        drop_slot(g, &y->wc[slot]);
    llmmem__tl_weight_grad_done(g, w, dw, g->amp);
    if (g->amp && ib != g->cb) {
        int32_t d32 = G(g, g->T * win * ib, "ToCopyBackward: input gradient");
        DROP(g, din);
        din = d32;
    }
    llmmem__tl_acc(g, &din, dl);
    return din;
}

/* The norm's backward nodes (RMSNorm: the weight product, the product with
 * rsqrt, rsqrt/mean, pow: `grad * 2 * x.pow(1)`; LayerNorm: one node),
 * the input's gradient added into *dx. */
void llmmem__tl_norm_bwd(tl_gen *g, kept *k, tl_param *w, int32_t dout, uint64_t xb, int32_t *dx)
{
    const uint64_t Th = g->T * g->h;
    const struct llmmem_model *m = g->m;
    if (k->n < NV_COUNT) {
        DROP(g, dout);
        return;
    }
    if (m->norm != LLMMEM__NORM_RMS) {
        bool fp32 = g->amp || m->norm == LLMMEM__NORM_NONPARAM;
        uint64_t ib = fp32 ? 4 : xb;
        if (fp32 && xb != 4 && m->norm == LLMMEM__NORM_NONPARAM) {
            int32_t d = G(g, Th * 4, "norm backward: output cast");
            DROP(g, dout);
            dout = d;
        }
        int32_t di = G(g, Th * ib, "LayerNorm backward: input gradient");
        if (trains(w))
            llmmem__tl_weight_grad_done(g, w, llmmem__tl_weight_grad_mm(g, w, false), false);
        DROP(g, dout);
        drop_slot(g, &k->v[NV_X]);
        drop_slot(g, &k->v[NV_RS]);
        if (ib != xb) {
            int32_t d = G(g, Th * xb, "ToCopyBackward: norm input");
            DROP(g, di);
            di = d;
        }
        llmmem__tl_acc(g, dx, di);
        return;
    }
    const bool fp32_weight = m->family == LLMMEM__FAM_GEMMA || !strcmp(m->model_type, "olmo2");
    uint64_t nb = fp32_weight ? 4 : xb; /* dtype of the tensor the weight multiplies */
    if (fp32_weight && xb != 4) { /* .type_as(x) */
        int32_t d = G(g, Th * 4, "ToCopyBackward: norm output");
        DROP(g, dout);
        dout = d;
    }
    /* weight * n */
    int32_t tw = trains(w) ? G(g, Th * nb, "MulBackward: grad * normed") : -1;
    int32_t dn = G(g, Th * nb, "MulBackward: grad * weight");
    if (tw >= 0) {
        llmmem__tl_weight_grad_done(g, w, llmmem__tl_weight_grad_mm(g, w, false), false);
        DROP(g, tw);
    }
    DROP(g, dout);
    drop_slot(g, &k->v[NV_N]);
    if (nb != 4) { /* n.to(input dtype) */
        int32_t d = G(g, Th * 4, "ToCopyBackward: normed");
        DROP(g, dn);
        dn = d;
    }
    /* x * rsqrt */
    int32_t gx = G(g, Th * 4, "MulBackward: grad * rsqrt");
    int32_t gr = G(g, Th * 4, "MulBackward: grad * x");
    DROP(g, gr);
    DROP(g, dn);
    drop_slot(g, &k->v[NV_X2]);
    drop_slot(g, &k->v[NV_RS]);
    /* mean, pow */
    int32_t gm = G(g, Th * 4, "MeanBackward: expand / n");
    int32_t p1 = G(g, Th * 4, "PowBackward: x.pow(1)");
    int32_t p2 = G(g, Th * 4, "PowBackward: 2 * x");
    DROP(g, p1);
    int32_t p3 = G(g, Th * 4, "PowBackward: grad * 2x");
    DROP(g, p2);
    DROP(g, gm);
    drop_slot(g, &k->v[NV_X]);
    llmmem__tl_acc(g, &gx, p3);
    if (xb != 4) { /* x.to(float32) */
        int32_t d = G(g, Th * xb, "ToCopyBackward: norm input");
        DROP(g, gx);
        gx = d;
    }
    llmmem__tl_acc(g, dx, gx);
}

/* The MLP's nodes from the down projection back to the normed input. */
static int32_t mlp_bwd(tl_gen *g, struct tl_layer *y, const roles *r, int32_t dout, uint64_t nb)
{
    const struct llmmem_model *m = g->m;
    const uint64_t cb = g->cb;
    if (r->nexp > 0) {
        const uint64_t K = llmmem__nonneg(m->experts_per_token);
        const uint64_t fm = llmmem__nonneg(m->moe_intermediate_size ? m->moe_intermediate_size : m->intermediate_size);
        const uint64_t TK = g->T * K;
        int32_t dw = G(g, TK * g->h * cb, "MoE backward: weighted outputs");
        DROP(g, dout);
        int32_t dact = G(g, TK * fm * cb, "MoE backward: down input");
        int32_t gw[4];
        for (int e = 0; e < r->nexp; e++)
            gw[e] = llmmem__tl_weight_grad_mm(g, r->experts[e], false);
        for (int e = 0; e < r->nexp; e++)
            llmmem__tl_weight_grad_done(g, r->experts[e], gw[e], false);
        int32_t dgu = G(g, TK * 2 * fm * cb, "MoE backward: gate_up");
        DROP(g, dact);
        int32_t dx = G(g, TK * g->h * cb, "MoE backward: gathered tokens");
        DROP(g, dgu);
        DROP(g, dw);
        release(g, &y->mlp);
        int32_t dn = G(g, g->T * g->h * cb, "MoE backward: scatter");
        DROP(g, dx);
        int32_t dr = G(g, g->T * g->h * cb, "MoE router backward");
        int32_t rw = llmmem__tl_weight_grad_mm(g, r->router, g->amp);
        release(g, &y->router_in);
        drop_slot(g, &y->wc[MAXLIN]);
        llmmem__tl_weight_grad_done(g, r->router, rw, g->amp);
        llmmem__tl_acc(g, &dn, dr);
        if (nb != cb) {
            int32_t d32 = G(g, g->T * g->h * nb, "MoE backward: input cast");
            DROP(g, dn);
            dn = d32;
        }
        return dn;
    }
    const bool gated = m->gated_mlp;
    tl_param *wg = r->nmlp > 0 ? r->mlp[0] : NULL;
    tl_param *wu = gated && r->nmlp > 2 ? r->mlp[1] : NULL;
    tl_param *wd = r->nmlp > 0 ? r->mlp[r->nmlp - 1] : NULL;
    uint64_t f = wg ? wg->rows : g->f;
    if (gated && r->nmlp == 2)
        f /= 2;
    const uint64_t n = g->T * f;
    /* down: input gradient in the dtype it read (fp32 NewGELU output under
     * autocast is cast back by ToCopyBackward) */
    int32_t dprod = linear_bwd(g, y, MAXLIN + 3, NULL, wd, dout, f, y->mlp_act_b);
    release(g, &y->mlp_down_in);
    int32_t dgate = -1, dup = -1;
    if (gated && (m->act == LLMMEM__ACT_SILU_GLU || m->act == LLMMEM__ACT_GELU_TANH_GLU ||
                  m->act == LLMMEM__ACT_SWIGLU_OAI)) {
        /* act * up: both factors' gradients, then the factors go */
        int32_t dact = G(g, n * cb, "MulBackward: act gradient");
        dup = G(g, n * cb, "MulBackward: up gradient");
        DROP(g, dprod);
        release(g, &y->mlp_prod);
        if (wu) /* the up projection, created after the activation: first */
            dup = linear_bwd(g, y, MAXLIN + 2, NULL, wu, dup, g->h, nb);
        dgate = G(g, n * cb, "activation backward");
        DROP(g, dact);
    } else if (m->act == LLMMEM__ACT_GELU_NEW) {
        /* 0.5 x * (1 + tanh): both factors, tanh backward, the polynomial */
        const uint64_t pb = g->amp ? 4 : cb;
        int32_t a = G(g, n * cb, "NewGELU backward: 0.5x gradient");
        int32_t b = G(g, n * pb, "NewGELU backward: (1 + tanh) gradient");
        DROP(g, dprod);
        release(g, &y->mlp_prod);
        int32_t t = G(g, n * pb, "NewGELU backward: tanh backward");
        DROP(g, b);
        int32_t u = G(g, n * pb, "NewGELU backward: polynomial");
        DROP(g, t);
        dgate = G(g, n * cb, "NewGELU backward: input gradient");
        DROP(g, u);
        DROP(g, a);
    } else {
        dgate = G(g, n * cb, "activation backward");
        DROP(g, dprod);
        release(g, &y->mlp_prod);
    }
    release(g, &y->mlp);
    int32_t dn = linear_bwd(g, y, MAXLIN + 1, &y->mlp_in, wg, dgate, g->h, nb);
    llmmem__tl_acc(g, &dn, dup);
    return dn;
}

/* RoPE's nodes for q or k (created later than the kernel's casts): the
 * product with sin (its cast back to the projection's dtype), cat, neg and
 * the two slices (zero-filled full-size gradients, summed), the product with
 * cos; the gradient of the projection's output. */
static int32_t rope_bwd(tl_gen *g, int32_t dqe, uint64_t width)
{
    const uint64_t pr = g->cb > g->rb ? g->cb : g->rb;
    const uint64_t n = g->T * width;
    int32_t dq = -1;
    int32_t a = G(g, n * pr, "RoPE backward: grad * sin");
    if (pr != g->cb) {
        int32_t c = G(g, n * g->cb, "RoPE backward: cast");
        DROP(g, a);
        a = c;
    }
    int32_t neg = G(g, n / 2 * g->cb, "RoPE backward: neg");
    int32_t s2 = G(g, n * g->cb, "RoPE backward: slice x2");
    DROP(g, neg);
    llmmem__tl_acc(g, &dq, s2);
    int32_t s1 = G(g, n * g->cb, "RoPE backward: slice x1");
    DROP(g, a);
    llmmem__tl_acc(g, &dq, s1);
    int32_t c = G(g, n * pr, "RoPE backward: grad * cos");
    if (pr != g->cb) {
        int32_t cc = G(g, n * g->cb, "RoPE backward: cast");
        DROP(g, c);
        c = cc;
    }
    DROP(g, dqe);
    llmmem__tl_acc(g, &dq, c);
    return dq;
}

/* The attention's nodes from the output projection back to the normed input. */
static int32_t attention_bwd(tl_gen *g, struct tl_layer *y, const roles *r, int32_t dout, uint64_t nb)
{
    const uint64_t Tq = g->T * g->q, Tk = g->T * g->kv, cb = g->cb;
    tl_param *wo = r->nattn > 1 ? r->attn[r->nattn - 1] : NULL;
    int32_t dattn = linear_bwd(g, y, MAXLIN - 1, NULL, wo, dout, g->q, cb);
    release(g, &y->o_in);
    int32_t dq, dk, dv;
    const uint64_t kb = g->gqa_expand ? Tq : Tk;
    if (!g->eager) { /* flash backward (pytorch_flash::mha_bwd) */
        dq = G(g, Tq * cb, "SDPA backward: dq");
        dk = G(g, kb * cb, "SDPA backward: dk");
        dv = G(g, kb * cb, "SDPA backward: dv");
        int32_t sd = G(g, g->B * g->a * g->S * 4, "flash backward: softmax_d");
        int32_t acc = G(g, Tq * 4, "flash backward: dq_accum (fp32)");
        int32_t ke = -1, ve = -1;
        if (kb < Tq) {
            ke = G(g, Tq * cb, "flash backward: dk over the query heads");
            ve = G(g, Tq * cb, "flash backward: dv over the query heads");
        }
        DROP(g, ve);
        DROP(g, ke);
        DROP(g, acc);
        DROP(g, sd);
        DROP(g, dattn);
    } else { /* eager: probs @ v, the cast, softmax, mask add, scaling, q @ k^T */
        const uint64_t SS = g->B * g->a * g->S * g->S;
        int32_t dt = G(g, Tq * cb, "eager backward: contiguous grad");
        DROP(g, dattn);
        int32_t dp = G(g, SS * cb, "eager backward: probs gradient");
        dv = G(g, Tq * cb, "eager backward: dv");
        DROP(g, dt);
        release(g, &y->core_pv);
        int32_t d32 = dp;
        if (cb != 4) {
            d32 = G(g, SS * 4, "eager backward: ToCopyBackward to fp32");
            DROP(g, dp);
        }
        int32_t ds = G(g, SS * y->score_b, "eager backward: softmax backward");
        /* aten/src/ATen/native/cuda/SoftMax.cu softmax_backward_cuda_out: tmp = grad * output;
         * drawn where the estimator models it (transient.c scores_point) */
        if (g->t && g->t->scores_transient)
            DROP(g, G(g, SS * 4, "eager backward: softmax backward's grad * output"));
        DROP(g, d32);
        release(g, &y->core_sm);
        if (y->score_b != y->mask_b) {
            int32_t d = G(g, SS * y->mask_b, "eager backward: softmax input cast");
            DROP(g, ds);
            ds = d;
        }
        if (y->mask_b != cb) {
            int32_t d = G(g, SS * cb, "eager backward: mask add cast");
            DROP(g, ds);
            ds = d;
        }
        int32_t dsc = G(g, SS * cb, "eager backward: * scaling");
        DROP(g, ds);
        dq = G(g, Tq * cb, "eager backward: dq");
        dk = G(g, kb * cb, "eager backward: dk");
        DROP(g, dsc);
    }
    release(g, &y->core);
    if (g->gqa_expand) { /* repeat_kv's expand: summed over the groups */
        int32_t v2 = G(g, Tk * cb, "repeat_kv backward: dv");
        DROP(g, dv);
        dv = v2;
        int32_t k2 = G(g, Tk * cb, "repeat_kv backward: dk");
        DROP(g, dk);
        dk = k2;
    }
    if (g->rope) {
        const uint64_t pr = cb > g->rb ? cb : g->rb;
        if (g->amp && pr != cb) { /* the kernel's autocast casts, k's created last */
            int32_t k32 = G(g, Tk * pr, "autocast cast backward: dk");
            DROP(g, dk);
            dk = k32;
            int32_t q32 = G(g, Tq * pr, "autocast cast backward: dq");
            DROP(g, dq);
            dq = q32;
        }
        dk = rope_bwd(g, dk, g->kv);
        dq = rope_bwd(g, dq, g->q);
    }
    const int nin = r->nattn > 1 ? r->nattn - 1 : 1;
    int32_t dn = -1;
    if (nin >= 3) { /* v, k, q: the projections created last first */
        int32_t dins[3] = {dq, dk, dv};
        for (int i = nin - 1; i >= 0; i--) {
            int32_t d = i < 3 ? dins[i] : -1;
            if (d < 0)
                continue;
            llmmem__tl_acc(g, &dn, linear_bwd(g, y, i, NULL, r->attn[i], d, g->h, nb));
        }
    } else { /* a fused projection: its gradient is the concatenation */
        int32_t cat = G(g, (Tq + 2 * Tk) * cb, "fused qkv backward: cat");
        DROP(g, dq);
        DROP(g, dk);
        DROP(g, dv);
        dn = linear_bwd(g, y, 0, NULL, r->nattn ? r->attn[0] : NULL, cat, g->h, nb);
    }
    release(g, &y->attn_in);
    return dn;
}

void llmmem__tl_layer_bwd(tl_gen *g, tl_layer *y, int64_t i, int32_t *dx)
{
    roles r;
    roles_of(&r, g, i);
    const struct llmmem_model *m = g->m;
    const int nn = r.nnorm;
    const bool post_only = !strcmp(m->model_type, "olmo2");
    const uint64_t Th = g->T * g->h;
    DROP(g, y->rem);
    y->rem = -1;
    int32_t G0 = *dx; /* the output's gradient: flows to the residual unchanged */
    int32_t dbranch = G0;
    if (g->rb != g->cb)
        dbranch = G(g, Th * g->cb, "AddBackward: branch gradient cast");
    else
        HOLD(g, dbranch);
    if (m->parallel_block) {
        int32_t da = dbranch;
        HOLD(g, da);
        const uint64_t nb = norm_out_bytes(g, g->rb);
        int32_t dn2 = mlp_bwd(g, y, &r, dbranch, nb);
        int32_t dn1 = attention_bwd(g, y, &r, da, nb);
        if (nn > 1) {
            llmmem__tl_norm_bwd(g, &y->n2, r.norm[1], dn2, g->rb, &G0);
        } else {
            llmmem__tl_acc(g, &dn1, dn2);
        }
        llmmem__tl_norm_bwd(g, &y->n1, nn > 0 ? r.norm[0] : NULL, dn1, g->rb, &G0);
    } else {
        const uint64_t nb = norm_out_bytes(g, g->rb);
        if (nn >= 4 || post_only) {
            int32_t dpm = G(g, Th * g->cb, "post-norm backward");
            llmmem__tl_norm_bwd(g, &y->n4, r.norm[post_only ? 1 : 3], dbranch, g->cb, &dpm);
            dbranch = dpm;
        }
        int32_t dn2 = mlp_bwd(g, y, &r, dbranch, post_only ? g->rb : nb);
        if (!post_only)
            llmmem__tl_norm_bwd(g, &y->n2, nn >= 4 ? r.norm[2] : (nn > 1 ? r.norm[1] : NULL), dn2, g->rb, &G0);
        else
            llmmem__tl_acc(g, &G0, dn2);
        int32_t da = G0;
        if (g->rb != g->cb)
            da = G(g, Th * g->cb, "AddBackward: branch gradient cast");
        else
            HOLD(g, da);
        if (nn >= 4 || post_only) {
            int32_t dpa = G(g, Th * g->cb, "post-norm backward");
            llmmem__tl_norm_bwd(g, &y->n3, r.norm[post_only ? 0 : 1], da, g->cb, &dpa);
            da = dpa;
        }
        int32_t dn1 = attention_bwd(g, y, &r, da, post_only ? g->rb : nb);
        if (!post_only)
            llmmem__tl_norm_bwd(g, &y->n1, nn > 0 ? r.norm[0] : NULL, dn1, g->rb, &G0);
        else
            llmmem__tl_acc(g, &G0, dn1);
    }
    for (int k = 0; k < 2 * MAXLIN; k++) {
        drop_slot(g, &y->wc[k]);
        drop_slot(g, &y->lora_x[k]);
        drop_slot(g, &y->lora_a[k]);
    }
    release(g, &y->n1);
    release(g, &y->n2);
    release(g, &y->n3);
    release(g, &y->n4);
    release(g, &y->attn_in);
    release(g, &y->core);
    release(g, &y->core_sm);
    release(g, &y->core_pv);
    release(g, &y->o_in);
    release(g, &y->mlp_in);
    release(g, &y->mlp);
    release(g, &y->mlp_prod);
    release(g, &y->mlp_down_in);
    release(g, &y->router_in);
    DROP(g, y->ckpt_x);
    y->ckpt_x = -1;
    *dx = G0;
}
