/* What autograd saves in training for decoder layers other than softmax
 * attention, from the HF transformers 5.17 modeling code with the kernels
 * packages absent (mamba_ssm, causal_conv1d, flash-linear-attention): the
 * torch fallback of each mixer, which a plain `pip install transformers` runs
 * and which the project's measurements used. With the kernels installed the
 * fused paths (mamba_inner_fn, mamba_chunk_scan_combined, fla's
 * chunk_gated_delta_rule) save far less; they are not modelled.
 *
 * Every term is the bytes of one tensor autograd keeps, op by op (an op keeps
 * the inputs its backward formula needs, and only when an input requires
 * grad: torch/csrc/autograd, derivatives.yaml; a saved view keeps its whole
 * base). Shapes are per layer over a micro-batch of b sequences of s tokens
 * (T = b s); the chunked scans pad s to a multiple of their chunk. Checked
 * against saved-tensor dumps of tiny CPU models (test/data/kinds/saved_kinds.py,
 * saved-kinds.tsv; test/test_kinds.c), which agree to the byte up to a few
 * parameter-sized constants. Pure-dtype runs (parameters in the compute
 * dtype): x is its size; base weights train (full fine-tuning) or are frozen
 * (LoRA, whose adapters add what saved.c's readers say). Autocast is refused
 * for these layers (kinds.c). */
#include "train/train.h"

#include <string.h>

#define u llmmem__nonneg

typedef struct kctx {
    const struct llmmem_model *m;
    const struct llmmem_config *c;
    const llmmem__recipe *rc;
    uint64_t b, s, T; /* sequences, tokens per sequence, b s */
    uint64_t x;       /* activation dtype bytes */
    bool ft;          /* base weights train */
    llmmem__ovf *o;
    uint64_t sum;     /* the layer being added up */
} kctx;

/* sum += a b c d */
static void add4(kctx *k, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    k->sum = llmmem__add(k->o, k->sum, llmmem__mul(k->o, llmmem__mul3(k->o, a, b, c), d));
}
static void add3(kctx *k, uint64_t a, uint64_t b, uint64_t c) { add4(k, a, b, c, 1); }

/* s padded to a multiple of `chunk` (F.pad in the chunked scans). */
static uint64_t padded(uint64_t s, uint64_t chunk) { return chunk ? llmmem__ceil_div(s, chunk) * chunk : s; }

/* The Linears reading a w-wide activation of the compute dtype (per token,
 * saved.c's readers: the shared input when a weight trains, LoRA's own). */
static void readers(kctx *k, uint64_t w, int n, const char *lora1, const char *lora2)
{
    int lora = (lora1 && llmmem__recipe_lora_on(k->c, lora1)) + (lora2 && llmmem__recipe_lora_on(k->c, lora2));
    k->sum = llmmem__add(k->o, k->sum,
                         llmmem__mul(k->o, k->T, llmmem__saved_readers(k->rc, k->x, w, n, k->ft ? n : 0, lora)));
}

/* causal_conv1d_fn (the torch fallback of causal_conv1d): F.conv1d over the
 * channel-first input with padding K-1 saves its input (convolution's one
 * backward formula keeps input and weight whenever either needs grad) and
 * its output [b, ch, s+K-1] stays whole behind the [..., :s] view that the
 * activation saves. `in_w` is the width of the tensor whose view is the
 * input (a split of a projection keeps the projection). */
static void conv1d_fn(kctx *k, uint64_t in_w, uint64_t ch, uint64_t K)
{
    add3(k, k->x, k->T, in_w);
    add4(k, k->x, k->b, ch, k->s + K - 1);
}

/* ---- Mamba-1 (modeling_mamba.py MambaMixer.forward, mamba_selective_scan) -----------------
 * in_proj -> [x, z]; conv1d + silu over x; x_proj -> dt, B, C; dt_proj as a
 * matmul; softplus; discrete_A = exp(A dt) and discrete_B = dt B kept whole
 * [b, I, s, N] fp32, deltaB_u = discrete_B x.float(); the recurrence over s
 * steps keeps each step's state: the fp32 state read by the next step's
 * multiply and its cast to the input dtype read by the output matmul (one
 * tensor when that dtype is fp32), from the zero state on; y + x D, y silu(z),
 * out_proj. x_proj reads the transposed conv output: with one sequence that
 * reshape is a view of it, else F.linear's contiguous copy. `.float()` of an
 * fp32 tensor is the tensor itself, so fp32 runs keep fewer storages.
 * FalconMamba adds weightless RMS norms on dt, B and C
 * (FalconMambaWeightlessRMSNorm), Jamba weighted ones (JambaRMSNorm): each
 * keeps its fp32 input and rsqrt, Jamba's the normed cast for its weight; dt
 * and C are then the normed tensors. */
enum { BCDT_NONE = 0, BCDT_WEIGHTLESS, BCDT_WEIGHTED };
static void saved_mamba1(kctx *k, int bcdt)
{
    const struct llmmem_model *m = k->m;
    const uint64_t I = u(m->ssm.inner), N = u(m->ssm.state), R = u(m->ssm.dt_rank), K = u(m->ssm.conv);
    const uint64_t x = k->x, b = k->b, s = k->s, T = k->T;
    const bool fp32 = x == 4;
    const bool xproj_keeps = k->ft || llmmem__recipe_lora_on(k->c, "x_proj");
    readers(k, u(m->hidden_size), 1, "in_proj", NULL);
    conv1d_fn(k, 2 * I, I, K);                    /* in_proj output [b, s, 2I]; conv output */
    /* silu(conv) = x: kept by x D (D trains), as x.float() when fp32, and as
     * x_proj's input when that is a view (one sequence) */
    if (k->ft || fp32 || (b == 1 && xproj_keeps))
        add4(k, x, b, I, s);
    if (b > 1)
        readers(k, I, 1, "x_proj", NULL);         /* x_proj's contiguous input */
    if (!fp32)
        add4(k, 4, b, I, s);                      /* x.float() */
    if (bcdt == BCDT_NONE) {
        add3(k, x, T, R + 2 * N);                 /* x_proj output: dt_proj's input, C's views */
        if (!fp32)
            add3(k, 4, T, N);                     /* B.float() */
    } else {
        add3(k, 4, T, R + 2 * N);                 /* the norms' fp32 inputs (fp32: the x_proj output) */
        add3(k, 3 * 4, T, 1);                     /* their rsqrt */
        if (bcdt == BCDT_WEIGHTED && k->ft)
            add3(k, x, T, R + 2 * N);             /* the normed casts, for the norms' weights */
        if (k->ft)
            add3(k, x, T, R);                     /* normed dt, dt_proj's input */
        add3(k, x, T, N);                         /* normed C, the output matmuls' */
        add3(k, 4, T, N);                         /* B.float() (fp32: normed B) */
    }
    add4(k, 2 * x, b, I, s);                      /* softplus input and output (dt) */
    add4(k, 2 * 4, b, I, s * N);                  /* discrete_A, discrete_B */
    if (fp32) {
        add4(k, 4, b, I, N * (s + 1));            /* states 0 .. s */
    } else {
        add4(k, x, b, I, N * (s + 1));            /* the zero state, each state's cast */
        add4(k, 4, b, I, N * (s > 0 ? s - 1 : 0)); /* fp32 states 1 .. s-1 */
    }
    add4(k, x, b, I, s);                          /* silu(z) */
    add4(k, 4, b, I, s);                          /* y before the gate (fp32) */
    readers(k, I, 1, "out_proj", NULL);
    add3(k, 4, I, N * (k->ft ? 2 : 1));           /* exp(A_log) and A: parameter-sized */
}

/* ---- Mamba-2 (modeling_mamba2.py / modeling_bamba.py mamba2_chunk_scan, torch path) --------
 * in_proj -> [z, xBC, dt]; conv1d + silu over xBC (CD = I + 2 G N channels);
 * dt + dt_bias, softplus, clamp; x and dt cast to fp32, B and C to fp32 and
 * repeated to the H heads; the chunked SSD over chunks of cs (s padded to
 * sp = nc cs): L = exp(segsum) [b, H, nc, cs, cs], G and M [b, nc, cs, cs, H],
 * the chunk states, decay terms, Y_diag and Y_off; D x; the gated RMSNorm in
 * fp32 (MambaRMSNormGated: x silu(z), then the norm, weight times the fp32
 * result), out_proj over a cast back. */
static void saved_mamba2(kctx *k, uint64_t cs)
{
    const struct llmmem_model *m = k->m;
    const uint64_t I = u(m->ssm.inner), N = u(m->ssm.state), G = u(m->ssm.groups), H = u(m->ssm.heads);
    const uint64_t K = u(m->ssm.conv), P = H ? I / H : 0, CD = I + 2 * G * N;
    const uint64_t x = k->x, b = k->b, s = k->s, T = k->T;
    const uint64_t sp = padded(s, cs), nc = cs ? sp / cs : 0;
    const bool fp32 = x == 4;
    readers(k, u(m->hidden_size), 1, "in_proj", NULL);
    conv1d_fn(k, I + CD + H, CD, K);          /* in_proj output [b, s, I + CD + H]; conv output */
    add3(k, 2 * x, T, H);                     /* softplus input and output (clamp's input) */
    if (fp32) {
        add3(k, 4, T, H);                     /* clamp's output, which dt.float() returns */
        add3(k, 4, T, CD);                    /* x.float() is a view of silu's output: kept whole */
    } else {
        add3(k, 4, T, H * (k->ft ? 2 : 1));   /* dt.float() for x dt, and for A dt (A_log trains) */
        add3(k, 4, T, I);                     /* x.float() */
    }
    if (k->ft)
        add4(k, 4, b, sp, I);                 /* the padded x kept by D's multiply */
    add4(k, 4, b, H * sp, cs);                /* L = exp(segsum(A)) */
    add4(k, 3 * 4, b, sp, H * N);             /* B and C (fp32, repeated, padded), B decayed */
    add4(k, 2 * 4, b, sp, cs * H);            /* G and M */
    add4(k, 2 * 4, b, sp, H * P);             /* x dt (padded), C states summed */
    add4(k, 2 * 4, b, H, sp);                 /* decay_states, state_decay_out */
    add4(k, 2 * 4, b, (nc + 1) * H, P * N);   /* the chunk states with the initial one, new_states */
    add4(k, 4, b, H, (nc + 1) * (nc + 1));    /* decay_chunk */
    add3(k, 2, cs, cs);                       /* segsum's two bool masks */
    add3(k, 2, nc + 1, nc + 1);
    /* the gated norm: the padded fp32 output, z.float() (fp32: a view of the
     * in_proj output, kept already), silu(z), their product, rsqrt, and the
     * normed tensor for the weight's gradient */
    add4(k, 4, b, sp, I);
    add3(k, (fp32 ? 2 : 3) * 4, T, I);
    add3(k, 4, T, 1);
    if (k->ft)
        add3(k, 4, T, I);
    readers(k, I, 1, "out_proj", NULL);
    add3(k, 4, H, k->ft ? 2 : 1);             /* exp(A_log), A */
}

/* ---- gated delta rule (modeling_qwen3_next.py / qwen3_5 torch_chunk_gated_delta_rule) ------
 * in_proj (qwen3_5: qkv, z, b, a; qwen3_next: the fused qkvz and ba, then a
 * concatenated q k v; z a reshaped copy either way) -> conv1d + silu over CD = 2 Hk dk + Hv dv channels;
 * beta = sigmoid(b); g = -exp(A_log) softplus(a + dt_bias) in fp32; q and k
 * repeated to Hv heads, cast to fp32 [b, Hv, s, d] and l2-normalised; s padded
 * to sp (chunks of 64); v beta, k beta; the within-chunk decay P, k_beta k^T,
 * q k^T, the UT system [b, Hv, nc, 64, 64] fp32; the triangular solves; the
 * scan over chunks keeps each chunk's state [b, Hv, dk, dv] fp32 and v_new;
 * the gated RMSNorm (Qwen3NextRMSNormGated) in fp32; out_proj. In fp32 runs
 * `.to(torch.float32, memory_format=torch.contiguous_format)` returns its
 * input as it is (no conversion, so no copy): q, k, v, beta and g stay
 * transposed views, q and k of the repeated heads (or, with as many key as
 * value heads, of the conv output, kept whole); F.pad without padding (s a
 * multiple of 64) keeps that layout, and the matmuls over chunks then copy
 * key^T twice, k_beta and q once each (at::matmul's reshape of a
 * non-contiguous batch). */
#define GDN_CHUNK 64
static void saved_gdn(kctx *k, bool fused_qkvz)
{
    const struct llmmem_model *m = k->m;
    const uint64_t Hk = u(m->lin.k_heads), dk = u(m->lin.k_dim), Hv = u(m->lin.v_heads), dv = u(m->lin.v_dim);
    const uint64_t K = u(m->lin.conv), CD = 2 * Hk * dk + Hv * dv, c = GDN_CHUNK;
    const uint64_t x = k->x, b = k->b, s = k->s, T = k->T;
    const uint64_t sp = padded(s, c), nc = sp / c;
    if (fused_qkvz)
        readers(k, u(m->hidden_size), 2, "in_proj_qkvz", "in_proj_ba");
    else
        readers(k, u(m->hidden_size), 4, "in_proj_qkv", "in_proj_z");
    conv1d_fn(k, CD, CD, K);               /* in_proj_qkv output (qwen3_next: the concatenated q k v);
                                              the conv output */
    add3(k, x, T, Hv);                     /* sigmoid(b) */
    add3(k, 4, T, Hv * (k->ft ? 2 : 1));   /* softplus input, output (kept for A_log's gradient) */
    if (x == 4 && Hv == Hk) {
        add3(k, 4, T, CD);                 /* q, k: views of the conv output (l2norm keeps x) */
        add4(k, 2 * 4, b, Hv, s);          /* their rsqrt */
    } else {
        add4(k, 2 * 4, b, Hv, s * (dk + 1)); /* q, k in fp32 and their rsqrt (l2norm) */
    }
    if (x == 4 && sp == s)
        add4(k, 4 * 4, b, Hv, sp * dk);    /* the matmuls' contiguous copies */
    add4(k, 4, b, Hv, sp * (1 + dv + dk)); /* padded beta, v, k */
    add4(k, 5 * 4, b, Hv, sp * c);         /* P, k_beta k^T, q k^T, the UT system, intra-chunk attention */
    add4(k, 4, b, Hv, sp * (5 * dk + dv)); /* k_beta, q, the solves' results, decayed q and k */
    add4(k, 3 * 4, b, Hv, sp);             /* exp of the cumulative decays */
    add4(k, 4, b, Hv, nc);                 /* the chunk decay */
    add4(k, 4, b, Hv, nc * dk * dv);       /* each chunk's state */
    add4(k, 4, b, Hv, sp * dv);            /* each chunk's v_new */
    add3(k, 1, c, c);                      /* the causal bool mask */
    /* the gated norm over T Hv vectors of dv: x.float(), rsqrt, the normed cast
     * (weight's gradient), gate.float(), silu(gate), weight times normed */
    add4(k, 3 * 4, T, Hv, dv);
    add3(k, 4, T, Hv);
    add4(k, x * (k->ft ? 2 : 1), T, Hv, dv);
    readers(k, Hv * dv, 1, "out_proj", NULL);
    add3(k, 4, Hv, k->ft ? 2 : 1);         /* exp(A_log), its negation */
}

/* ---- gated short convolution (modeling_lfm2.py Lfm2ShortConv) ---------------------------------
 * in_proj -> B, C, x (views of its [b, s, 3h] output, kept by B x); conv1d
 * over B x with padding K-1 (its output kept whole by C y); out_proj over a
 * contiguous copy. */
static void saved_short_conv(kctx *k)
{
    const uint64_t h = u(k->m->hidden_size), K = u(k->m->conv_kernel);
    readers(k, h, 1, "in_proj", NULL);
    add3(k, k->x, k->T, 3 * h);
    conv1d_fn(k, h, h, K);
    readers(k, h, 1, "out_proj", NULL);
}

/* ---- around the mixers: what the hybrid families do differently ------------------------------- */

/* Beyond saved.c's attention block (SDPA): a partial rotary built by
 * torch.cat lays q out [b, a, s, d], so the SDPA output's transpose for
 * o_proj is a copy (bamba 0.5, qwen3_next / qwen3_5 0.25: their
 * apply_rotary_pos_emb); the Qwen3-Next / Qwen3.5 attention multiplies that
 * output by sigmoid(gate) (gate from q_proj's second half): the sigmoid and
 * the product (o_proj's input, when o_proj keeps it) are kept besides. */
static void attention_extra(kctx *k)
{
    const struct llmmem_model *m = k->m;
    const uint64_t ad = u(m->num_heads) * u(m->head_dim);
    const bool gated = !strcmp(m->model_type, "qwen3_next") || !strncmp(m->model_type, "qwen3_5", 7);
    const bool cat = (gated || !strcmp(m->model_type, "bamba")) && m->partial_rotary_factor > 0 &&
                     m->partial_rotary_factor < 1;
    const bool o_keeps = k->ft || llmmem__recipe_lora_on(k->c, "o_proj");
    if (gated) {
        if (cat)
            add3(k, k->x, k->T, ad);  /* the transposed copy, kept by the gate's multiply */
        add3(k, k->x, k->T, ad);      /* sigmoid(gate) */
        if (o_keeps)
            add3(k, k->x, k->T, ad);  /* the product, o_proj's input */
    } else if (cat && o_keeps) {
        add3(k, k->x, k->T, ad);      /* the transposed copy, o_proj's input */
    }
}

/* NemotronH's MLP and MoE blocks (modeling_nemotron_h.py): non-gated, with
 * relu2 (ReLUSquaredActivation: relu, then square, keeps relu's output and
 * the squared tensor down_proj reads). The MoE routes with a sigmoid over
 * an fp32 router (the input cast to fp32 for its matmul), the top-k indices
 * (int64), their weights and the normalising sum; each routed slot keeps the
 * gathered input, relu's output, the squared tensor, the down output (for
 * the routing weight), its weight and int64/bool indices; the shared expert
 * is an MLP of moe_shared_expert_intermediate_size. In fp32 the router's cast
 * is the norm output itself, which the shared expert's up_proj keeps too;
 * with frozen weights the grouped matmuls keep no input (saved-kinds.tsv). */
static void nemotron_mlp(kctx *k, uint64_t f)
{
    readers(k, u(k->m->hidden_size), 1, "up_proj", NULL);
    add3(k, k->x, k->T, f);                           /* relu's output */
    readers(k, f, 1, "down_proj", NULL);              /* the squared tensor */
}

static void nemotron_ffn(kctx *k, int ffn)
{
    const struct llmmem_model *m = k->m;
    const uint64_t h = u(m->hidden_size), E = u(m->num_experts), K = u(m->experts_per_token);
    const uint64_t fm = u(m->moe_intermediate_size), x = k->x, T = k->T;
    k->sum = llmmem__add(k->o, k->sum, llmmem__mul(k->o, T, llmmem__saved_norm_only(m, k->rc, h)));
    if (ffn == LLMMEM__FF_DENSE) {
        nemotron_mlp(k, u(m->intermediate_size));
        return;
    }
    if (k->ft && x != 4)
        add3(k, 4, T, h);                             /* the router's fp32 copy of its input */
    add3(k, 4, T, E + K + 1);                         /* sigmoid scores, top-k weights, the sum */
    add3(k, 8, T, K);                                 /* top-k indices */
    uint64_t slot = 2 * 8 + 1 + 4 + 8 + x * h + x * fm; /* indices, mask, weight; down's output, relu's */
    if (k->ft)
        slot += x * h + x * fm;                       /* the grouped matmuls' inputs */
    add4(k, T, K, slot, 1);
    nemotron_mlp(k, u(m->shared_expert_intermediate_size));
}

/* ---- a layer -------------------------------------------------------------------------------- */


/* The mixer block of a layer: its input norm and the mixer. */
static void mixer_block(kctx *k, int mixer, const llmmem__kind *kind)
{
    const struct llmmem_model *m = k->m;
    const uint64_t h = u(m->hidden_size);
    if (mixer == LLMMEM__MX_NONE)
        return;
    if (mixer == LLMMEM__MX_FULL || mixer == LLMMEM__MX_SLIDING) {
        k->sum = llmmem__add(k->o, k->sum,
                             llmmem__mul(k->o, k->T, llmmem__saved_attention_part(m, k->c, k->rc, k->s,
                                                                                  mixer == LLMMEM__MX_SLIDING)));
        attention_extra(k);
        return;
    }
    (void)kind;
    k->sum = llmmem__add(k->o, k->sum, llmmem__mul(k->o, k->T, llmmem__saved_norm_only(m, k->rc, h)));
    switch (mixer) {
    case LLMMEM__MX_MAMBA:
        if (m->ssm.version == 2)
            saved_mamba2(k, u(m->ssm.chunk));
        else
            saved_mamba1(k, !strcmp(m->model_type, "jamba")          ? BCDT_WEIGHTED
                            : !strcmp(m->model_type, "falcon_mamba") ? BCDT_WEIGHTLESS
                                                                     : BCDT_NONE);
        break;
    case LLMMEM__MX_LINEAR: saved_gdn(k, !strcmp(m->model_type, "qwen3_next")); break;
    case LLMMEM__MX_CONV: saved_short_conv(k); break;
    default: break;
    }
}

uint64_t llmmem__saved_kind_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                                  const llmmem__recipe *rc, const llmmem__kind *kind, uint64_t b, uint64_t s,
                                  llmmem__ovf *o)
{
    kctx k = {m, c, rc, b, s, llmmem__mul(o, b, s), rc->cb, rc->full_ft, o, 0};
    mixer_block(&k, kind->mixer, kind);
    if (kind->ffn != LLMMEM__FF_NONE && !strcmp(m->model_type, "nemotron_h"))
        nemotron_ffn(&k, kind->ffn);
    else if (kind->ffn != LLMMEM__FF_NONE)
        k.sum = llmmem__add(o, k.sum, llmmem__mul(o, k.T, llmmem__saved_ffn_part(m, c, rc, kind->ffn)));
    return k.sum;
}

uint64_t llmmem__saved_kinds_all(const struct llmmem_model *m, const struct llmmem_config *c,
                                 const llmmem__recipe *rc, uint64_t b, uint64_t s, uint64_t *largest,
                                 llmmem__ovf *o)
{
    llmmem__kinds ks;
    llmmem__kinds_of(&ks, m);
    uint64_t all = 0;
    *largest = 0;
    for (int i = 0; i < ks.n; i++) {
        uint64_t one = llmmem__saved_kind_layer(m, c, rc, &ks.k[i], b, s, o);
        *largest = llmmem__max(*largest, one);
        all = llmmem__add(o, all, llmmem__mul(o, one, ks.k[i].n));
    }
    return all;
}

/* The residual stream's dtype bytes: MambaBlock / Mamba2Block keep it in fp32
 * (residual_in_fp32, default true: `residual = residual.to(torch.float32)`),
 * so a checkpointed layer's input is fp32 there. */
uint64_t llmmem__saved_kinds_residual_bytes(const struct llmmem_model *m, const llmmem__recipe *rc)
{
    static const char *const fp32_residual[] = {"mamba", "falcon_mamba", "mamba2"};
    for (size_t i = 0; i < sizeof fp32_residual / sizeof fp32_residual[0]; i++)
        if (llmmem__model_type_is(m, fp32_residual[i]) && llmmem__qvals_get(&m->q, "rf32", 1))
            return 4;
    return rc->rb;
}

/* ---- --explain -------------------------------------------------------------------------------- */

/* One term per layer kind (static names and formulas, as the result keeps them). */
static const char *const kind_term[LLMMEM__MX_COUNT] = {
    [LLMMEM__MX_FULL] = "activations_attention_layer",
    [LLMMEM__MX_SLIDING] = "activations_sliding_layer",
    [LLMMEM__MX_LINEAR] = "activations_gated_delta_layer",
    [LLMMEM__MX_MAMBA] = "activations_mamba_layer",
    [LLMMEM__MX_CONV] = "activations_short_conv_layer",
    [LLMMEM__MX_NONE] = "activations_ffn_only_layer",
};
static const char *const kind_formula[LLMMEM__MX_COUNT] = {
    [LLMMEM__MX_FULL] = "one softmax-attention layer of the micro-batch: norms, q/k/v, SDPA, MLP or experts "
                        "(saved.c; gated attention's sigmoid and product, a partial rotary's output copy)",
    [LLMMEM__MX_SLIDING] = "one sliding-window attention layer (saved.c, the bool mask when s >= window)",
    [LLMMEM__MX_LINEAR] = "one gated-delta-rule layer, torch fallback: conv1d in/out, q/k fp32 l2norm, "
                          "5 x 4 b Hv sp 64 chunk matrices, a 4 b Hv dk dv state per 64-token chunk, the gated "
                          "RMSNorm in fp32, + its MLP/experts (modeling_qwen3_next.py torch_chunk_gated_delta_rule)",
    [LLMMEM__MX_CONV] = "one short-convolution layer: in_proj output, conv1d input and padded output, "
                        "+ its MLP (modeling_lfm2.py Lfm2ShortConv)",
    [LLMMEM__MX_NONE] = "one layer without a mixer: its norm and MLP or experts",
};
static const char *const mamba_formula[2] = {
    "one Mamba-1 layer, torch fallback (mamba_selective_scan): conv1d in/out, x_proj, softplus, "
    "discrete_A and discrete_B 2 x 4 b I s N, each step's state (4 + x) b I N per token, out_proj "
    "(modeling_mamba.py; jamba/falcon_mamba: the dt/B/C norms)",
    "one Mamba-2 layer, torch fallback (mamba2_chunk_scan): conv1d in/out, L, G, M 3 x 4 b H sp chunk, "
    "B/C repeated to H heads, chunk states 4 b (nc+1) H P N, the gated RMSNorm in fp32 "
    "(modeling_mamba2.py / modeling_bamba.py)",
};

void llmmem__saved_kinds_explain(struct llmmem_result *r, const struct llmmem_model *m,
                                 const struct llmmem_config *c, const llmmem__recipe *rc, uint64_t b,
                                 uint64_t s, llmmem__ovf *o)
{
    llmmem__kinds ks;
    llmmem__kinds_of(&ks, m);
    bool done[LLMMEM__MX_COUNT] = {false};
    for (int i = 0; i < ks.n; i++) {
        const int x = ks.k[i].mixer;
        if (done[x] || !kind_term[x])
            continue;
        done[x] = true;
        /* the largest layer of this mixer (its feed-forward kinds differ) */
        uint64_t most = 0, n = 0;
        for (int j = 0; j < ks.n; j++)
            if (ks.k[j].mixer == x) {
                most = llmmem__max(most, llmmem__saved_kind_layer(m, c, rc, &ks.k[j], b, s, o));
                n += ks.k[j].n;
            }
        const char *f = x == LLMMEM__MX_MAMBA ? mamba_formula[m->ssm.version == 2] : kind_formula[x];
        llmmem__result_term(r, kind_term[x], f, most);
        static const char *const count_name[LLMMEM__MX_COUNT] = {
            [LLMMEM__MX_FULL] = "layers: full attention",       [LLMMEM__MX_SLIDING] = "layers: sliding window",
            [LLMMEM__MX_LINEAR] = "layers: gated delta rule",   [LLMMEM__MX_MAMBA] = "layers: Mamba",
            [LLMMEM__MX_CONV] = "layers: short convolution",   [LLMMEM__MX_NONE] = "layers: MLP only",
        };
        llmmem__result_input(r, count_name[x], (int64_t)n);
    }
    llmmem__result_note(r, "%s: layers other than softmax attention are estimated for the torch fallback "
                           "of HF transformers 5.17 (mamba_ssm, causal_conv1d and flash-linear-attention not "
                           "installed, what `pip install transformers` runs); the fused kernels save far less",
                        m->model_type);
}

/* ---- working sets of one layer in training ------------------------------------------------------
 * Beyond what a mixer saves (saved above), the torch fallback makes large
 * temporaries (test/data/kinds/live_kinds.py measures each mixer's live
 * bytes, test/test_kinds.c compares):
 *  - forward, gradients on: what is alive at the mixer's peak and not kept:
 *    Mamba-1 deltaB_u [b, I, s, N] fp32 (kept by the function's locals, not
 *    by autograd) and the stacked outputs; Mamba-2 the broadcast products
 *    before their sums ([b, sp, cs, H, max(N, P)] fp32); the short conv
 *    nothing. The gated delta rule's is not modelled (0: the dumps show about
 *    a tenth of its checkpointed working set);
 *  - forward under checkpointing (no_grad): the whole working set, as in a
 *    prefill (state.c);
 *  - backward: the gradients of the largest saved tensors at once (Mamba-1:
 *    of discrete_A, discrete_B, deltaB_u and the states, 4 x 4 b I s N; Mamba-2:
 *    of the broadcast products). The gated delta rule's is not modelled: a
 *    term for its chunk matrices' gradients (12 b Hv sp 64) came out three
 *    times the whole layer's measured backward peak and was dropped. */
static void kind_transients(const struct llmmem_model *m, int mixer, uint64_t b, uint64_t s, uint64_t x,
                            uint64_t *fwd, uint64_t *ckpt, uint64_t *bwd, llmmem__ovf *o)
{
    *fwd = *ckpt = *bwd = 0;
    switch (mixer) {
    case LLMMEM__MX_MAMBA: {
        const uint64_t I = u(m->ssm.inner), N = u(m->ssm.state);
        if (m->ssm.version == 2) {
            const uint64_t H = u(m->ssm.heads), cs = u(m->ssm.chunk), P = H ? I / H : 0;
            const uint64_t sp = cs ? llmmem__ceil_div(s, cs) * cs : s;
            *fwd = llmmem__mul3(o, 4 * b, sp, llmmem__mul3(o, cs, H, llmmem__max(N, P)));
            *bwd = llmmem__mul(o, 2, *fwd);
        } else {
            *fwd = llmmem__add(o, llmmem__mul3(o, 4 * b, I, s * N), llmmem__mul3(o, 8 * b, I, s));
            *bwd = llmmem__mul3(o, 16 * b, I, s * N);
        }
        break;
    }
    default: break;
    }
    *ckpt = llmmem__state_prefill_ws(o, m, mixer, b, s, x, 1);
}

void llmmem__saved_kinds_transients(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t b,
                                    uint64_t s, uint64_t *fwd, uint64_t *ckpt, uint64_t *bwd, llmmem__ovf *o)
{
    llmmem__kinds ks;
    llmmem__kinds_of(&ks, m);
    *fwd = *ckpt = *bwd = 0;
    for (int i = 0; i < ks.n; i++) {
        uint64_t f, c, w;
        kind_transients(m, ks.k[i].mixer, b, s, rc->cb, &f, &c, &w, o);
        *fwd = llmmem__max(*fwd, f);
        *ckpt = llmmem__max(*ckpt, c);
        *bwd = llmmem__max(*bwd, w);
    }
}
