/* What autograd saves for backward in each layer of the HF transformers
 * implementation, per token, under the recipe of the run.
 *
 * Saved-tensor accounting follows the rule autograd applies op by op: an op
 * keeps the inputs its backward formula needs, and only when some input
 * requires grad (torch/csrc/autograd/generated, derivatives.yaml). Dtypes
 * follow the recipe: under torch.autocast the residual stream stays in the
 * parameter dtype (fp32) and every Linear casts its input separately. Each
 * term is one function below with its source; docs/formulas.md lists them.
 *
 * A layer is the sum of its blocks (saved_layer): a new layer kind is a new
 * block function plus one line in saved_layer or llmmem__saved_per_layer.
 * Per-token sums are unchecked; their products with the token count and the
 * layer count are checked (llmmem__saved_per_layer, train.c). */
#include "train/train.h"

#include <string.h>

static bool lora_on(const struct llmmem_config *c, const char *name)
{
    return llmmem__recipe_lora_on(c, name);
}

/* ---- Linears reading an activation ----------------------------------------- */

/* Which Linear layers of a family read a given activation. */
typedef struct readers {
    int all;       /* Linears reading it */
    int trainable; /* of which the weight is trainable (they save the input) */
    int lora;      /* of which carry a LoRA adapter */
} readers;

/* What the base Linears reading an activation of `w` elements in `in_b`-byte
 * dtype keep. A Linear saves its input when its weight needs a gradient; under
 * autocast each one saves its own cast (torch/csrc/autograd: the cast is a new
 * tensor per call; autocast caches only leaf weights, autocast_mode.cpp).
 * Transformer Engine Linear (te.pytorch module/linear.py) quantises its input
 * to fp8 and keeps that copy (1 B) for the weight gradient. */
static uint64_t saved_linear_inputs(const llmmem__recipe *rc, uint64_t in_b, uint64_t w, readers u)
{
    if (u.trainable <= 0)
        return 0;
    if (rc->fp8)
        return (uint64_t)u.trainable * w;
    if (rc->amp && in_b != rc->cb)
        return (uint64_t)u.trainable * rc->cb * w; /* one cast per Linear */
    return in_b * w;                                /* one shared tensor */
}

/* What the LoRA adapters on those Linears keep. peft LoRA casts the input to
 * the adapter dtype per module (peft/tuners/lora/layer.py _cast_input_dtype)
 * and saves it plus A's output; lora_dropout keeps the dropped copy and a
 * 1-byte mask. Under autocast lora_A is an autocast Linear: it saves its own
 * compute-dtype cast of the input and lora_B the compute-dtype A output. */
static uint64_t saved_lora(const llmmem__recipe *rc, uint64_t in_b, uint64_t w, readers u)
{
    if (u.lora <= 0 || !rc->lora)
        return 0;
    uint64_t s = 0;
    if (rc->lora_dropout > 0)
        s += (uint64_t)u.lora * (rc->ab + 1) * w; /* dropped copy + mask */
    if (rc->amp)
        return s + (uint64_t)u.lora * rc->cb * (w + (uint64_t)rc->rank);
    if (in_b == rc->ab && u.trainable == 0)
        s += in_b * w; /* input already in adapter dtype: shared */
    else if (in_b != rc->ab)
        s += (uint64_t)u.lora * rc->ab * w;                 /* per-module cast */
    return s + (uint64_t)u.lora * rc->ab * (uint64_t)rc->rank; /* lora_A output */
}

static uint64_t saved_readers(const llmmem__recipe *rc, uint64_t in_b, uint64_t w, readers u)
{
    return saved_linear_inputs(rc, in_b, w, u) + saved_lora(rc, in_b, w, u);
}

/* ---- norms ----------------------------------------------------------------- */

/* LlamaRMSNorm (modeling_llama.py): x.to(fp32) (saved by pow and mul), rsqrt
 * (4 B), normed.to(input dtype) saved by `weight *` when the weight trains;
 * output in the promoted dtype of weight (param dtype) and input. */
static uint64_t saved_rmsnorm_llama(const llmmem__recipe *rc, uint64_t in_b, uint64_t w, bool weight_trains,
                                    uint64_t *out_b)
{
    /* LigerRMSNorm (liger_kernel ops/rms_norm.py): keeps its input X and an
     * fp32 rstd per row, output in the input dtype */
    if (rc->liger) {
        *out_b = in_b;
        return in_b * w + 4;
    }
    *out_b = in_b > rc->pb ? in_b : rc->pb;
    return 4 * w + 4 + (weight_trains ? in_b * w : 0);
}

/* GemmaRMSNorm (modeling_gemma.py): fp32 x and fp32 normed (saved by
 * `* (1 + w)`); Olmo2RMSNorm (modeling_olmo2.py): (weight *
 * normed_fp32).to(input dtype), the weight multiply keeps the fp32 normed
 * tensor. Output cast back to the input dtype. */
static uint64_t saved_rmsnorm_fp32_weight(uint64_t in_b, uint64_t w, bool weight_trains, uint64_t *out_b)
{
    *out_b = in_b;
    return 4 * w + 4 + (weight_trains ? 4 * w : 0);
}

/* LayerNorm (torch native_layer_norm): saves the input (autocast runs it in
 * fp32: a cast copy when the input is 16-bit), mean and rstd (8 B).
 * OlmoLayerNorm without affine parameters (modeling_olmo.py) casts its input
 * to fp32 itself and the output back. */
static uint64_t saved_layernorm(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t in_b,
                                uint64_t w, uint64_t *out_b)
{
    if (m->norm == LLMMEM__NORM_NONPARAM) {
        *out_b = in_b;
        return 4 * w + 8;
    }
    *out_b = rc->amp ? 4 : in_b;
    return (rc->amp ? 4 : in_b) * w + 8;
}

/* A norm over `w` elements of an `in_b`-byte input: the saved bytes; *out_b
 * receives the output dtype bytes. RMSNorms that multiply by the weight in fp32
 * are the recipe's norm_fp32 (recipe.c). */

static uint64_t saved_norm(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t in_b, uint64_t w,
                           bool weight_trains, uint64_t *out_b)
{
    if (m->norm != LLMMEM__NORM_RMS)
        return saved_layernorm(m, rc, in_b, w, out_b);
    if (rc->norm_fp32)
        return saved_rmsnorm_fp32_weight(in_b, w, weight_trains, out_b);
    return saved_rmsnorm_llama(rc, in_b, w, weight_trains, out_b);
}

/* The dtype bytes a norm's output has for an `in_b`-byte input. */
static uint64_t norm_out_b(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t in_b)
{
    uint64_t nb;
    (void)saved_norm(m, rc, in_b, 1, false, &nb);
    return nb;
}

/* A norm and the Linears reading its output; with no norm (norm false) the
 * Linears read the `in_b`-byte input itself. */
static uint64_t saved_norm_readers(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t in_b,
                                   uint64_t w, bool norm, readers u)
{
    uint64_t nb = in_b, s = 0;
    if (norm)
        s = saved_norm(m, rc, in_b, w, rc->full_ft, &nb);
    return s + saved_readers(rc, nb, w, u);
}

/* q_norm/k_norm on the projections (qwen3, gemma3: per head; olmo2: whole
 * projection): input in compute dtype, one rsqrt per normalised vector. */
static uint64_t saved_qk_norm(const struct llmmem_model *m, const llmmem__recipe *rc)
{
    const uint64_t a = (uint64_t)m->num_heads, k = (uint64_t)m->num_kv_heads, d = (uint64_t)m->head_dim;
    uint64_t qb, kb;
    uint64_t s = saved_norm(m, rc, rc->cb, a * d, rc->full_ft, &qb) - 4;
    s += saved_norm(m, rc, rc->cb, k * d, rc->full_ft, &kb) - 4;
    bool per_head = m->family == LLMMEM__FAM_GEMMA || !strcmp(m->model_type, "qwen3") ||
                    !strcmp(m->model_type, "qwen3_moe") || !strcmp(m->model_type, "qwen3_next") ||
                    !strncmp(m->model_type, "qwen3_5", 7);
    return s + (per_head ? 4 * (a + k) : 8);
}

/* ---- MLP activations ------------------------------------------------------- */

/* Gated MLPs (LlamaMLP.forward): act(gate) saves gate; act * up saves both. */
static uint64_t saved_mlp_swiglu(const llmmem__recipe *rc, uint64_t f)
{
    /* LigerSiLUMulFunction (ops/swiglu.py) keeps gate and up and rebuilds silu */
    return (rc->liger ? 2 : 3) * rc->cb * f;
}

/* F.gelu saves its input. */
static uint64_t saved_mlp_gelu(const llmmem__recipe *rc, uint64_t f) { return rc->cb * f; }

/* relu saves its output, which is also the down projection's input: kept by
 * relu only when the down projection keeps nothing. */
static uint64_t saved_mlp_relu(const llmmem__recipe *rc, uint64_t f, readers down)
{
    return down.trainable || down.lora ? 0 : rc->cb * f;
}

/* NewGELUActivation (activations.py): 0.5*x*(1+tanh(c*(x+0.044715*x^3)))
 * keeps x (pow), tanh output, 0.5*x and (1+tanh). Under autocast pow runs in
 * fp32, so x, tanh and (1+tanh) are fp32 and the product is fp32 (cast again
 * by the down projection). */
static uint64_t saved_mlp_gelu_new(const llmmem__recipe *rc, uint64_t f, uint64_t *out_b)
{
    if (!rc->amp)
        return 4 * rc->cb * f;
    *out_b = 4;
    return 4 * f + 4 * f + rc->cb * f + 4 * f;
}

/* The activation between the MLP's Linears for an `f`-wide intermediate in
 * compute dtype, then what the down projection (`down`) keeps of its input. */
static uint64_t saved_mlp(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t f, readers down)
{
    uint64_t out_b = rc->cb; /* dtype of the tensor the down projection reads */
    uint64_t s = 0;
    switch (m->act) {
    case LLMMEM__ACT_SILU_GLU:
    case LLMMEM__ACT_GELU_TANH_GLU:
    case LLMMEM__ACT_SWIGLU_OAI:
        s = saved_mlp_swiglu(rc, f);
        break;
    case LLMMEM__ACT_GELU:
        s = saved_mlp_gelu(rc, f);
        break;
    case LLMMEM__ACT_RELU:
        s = saved_mlp_relu(rc, f, down);
        break;
    case LLMMEM__ACT_GELU_NEW:
        s = saved_mlp_gelu_new(rc, f, &out_b);
        break;
    }
    return s + saved_readers(rc, out_b, f, down);
}

/* ---- the attention core ---------------------------------------------------- */

/* Eager's score-sized tensors per token (eager_attention_forward): the fp32
 * softmax and its cast to the compute dtype, or with dropout a 1-byte mask and
 * the dropped copy instead of the cast. gpt-oss (modeling_gpt_oss.py) concats
 * its sinks as one more column, subtracts the max (int64 indices kept) and
 * runs softmax in the compute dtype. Soft-capping (gemma2) keeps the tanh
 * output; selective recompute keeps the core's inputs and rebuilds these. */
static uint64_t saved_attention_eager_scores(const struct llmmem_model *m, const llmmem__recipe *rc,
                                             uint64_t a, uint64_t s)
{
    const uint64_t cb = rc->cb;
    uint64_t scores;
    if (m->family == LLMMEM__FAM_GPT_OSS) {
        scores = cb * a * (s + 1) + 8 * a;
    } else {
        scores = 4 * a * s; /* softmax(dtype=float32) output */
        if (rc->attn_dropout_p > 0)
            scores += a * s + cb * a * s; /* mask + dropped probabilities */
        else if (cb != 4)
            scores += cb * a * s; /* .to(query.dtype) copy */
    }
    if (m->attn_logit_softcapping > 0)
        scores += cb * a * s;
    return rc->selective ? 0 : scores;
}

/* Eager attention (eager_attention_forward) keeps q, repeat_kv(k),
 * repeat_kv(v), the transposed output and the scores. `s` is the sequence. */
static uint64_t saved_attention_eager(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t a,
                                      uint64_t dq, uint64_t dv, uint64_t s)
{
    return rc->cb * a * dq * 2 + rc->cb * a * dv * 2 + saved_attention_eager_scores(m, rc, a, s);
}

/* fp32 with GQA: flash has no fp32 and the memory-efficient kernel no
 * enable_gqa, so SDPA falls back to the math backend (torch sdp_utils): it
 * keeps q, repeat-expanded k and v and the fp32 probabilities; the output is
 * only kept by the o projection. */
static uint64_t saved_attention_sdpa_math(const llmmem__recipe *rc, uint64_t a, uint64_t dq, uint64_t dv,
                                          uint64_t s)
{
    return rc->cb * (a * dq + a * dq + a * dv + a * dv) + 4 * a * s;
}

/* SDPA/flash keep q, k, v (GQA not expanded when no mask: transformers
 * integrations/sdpa_attention.py use_gqa_in_sdpa), the output and the fp32
 * log-sum-exp (Dao et al. 2022 §3.1); with a mask, the bool mask converted to
 * an additive bias per call, kept for backward. */
static uint64_t saved_attention_sdpa(const llmmem__recipe *rc, uint64_t a, uint64_t k, uint64_t dq,
                                     uint64_t dv, uint64_t s)
{
    uint64_t core = rc->cb * (a * dq + k * dq + k * dv + a * dv) + 4 * a;
    return rc->masked ? core + rc->cb * s : core;
}

/* The attention core per token for a query heads and k kv heads of dq/dv. */
static uint64_t saved_attention_core(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t a,
                                     uint64_t k, uint64_t dq, uint64_t dv, uint64_t s)
{
    if (rc->attention == LLMMEM__ATTN_EAGER)
        return saved_attention_eager(m, rc, a, dq, dv, s);
    if (rc->cb == 4 && k < a && !rc->masked)
        return saved_attention_sdpa_math(rc, a, dq, dv, s);
    return saved_attention_sdpa(rc, a, k, dq, dv, s);
}

/* FalconAttention's SDPA call (transformers 5.17 modeling_falcon.py) always
 * gets a materialised mask (create_causal_mask, allow_is_causal_skip=False)
 * and no enable_gqa: with fewer kv heads than heads neither flash (no mask)
 * nor the memory-efficient kernel (equal head counts) takes it (torch
 * sdp_utils.cpp), so SDPA runs the math backend, which upcasts 16-bit q, k
 * and v to fp32 (attention.cpp _scaled_dot_product_attention_math). */
bool llmmem__saved_falcon_math(const struct llmmem_model *m, const llmmem__recipe *rc)
{
    /* multi_query of the old architecture (one kv head, parallel block); the
     * new architecture broadcasts k and v to every head (_split_heads) */
    return m->family == LLMMEM__FAM_FALCON && rc->attention == LLMMEM__ATTN_SDPA && m->partial_rotary_factor > 0 &&
           m->num_kv_heads == 1 && m->num_heads > 1 && m->parallel_block;
}

/* Per token, the fp32 k or v the math backend's matmul keeps: broadcast over
 * the heads, matmul's reshape copies it when the batch is above 1 (the
 * expanded batch and head dims do not merge into a view); with one sequence
 * it stays the one-head tensor. */
static uint64_t falcon_math_kv(const struct llmmem_model *m, const llmmem__recipe *rc)
{
    const uint64_t d = (uint64_t)m->head_dim;
    return rc->batched ? 4 * (uint64_t)m->num_heads * d : 4 * d;
}

/* FalconAttention per token: the math backend keeps the scaled fp32 q, k and
 * v broadcast over the heads by matmul (contiguous copies) and the fp32
 * softmax, whatever the compute dtype (the reference harness,
 * test/reference/, on falcon-7b); eager's matmuls run in the dtype RoPE
 * leaves (its fp32 cos/sin promote q and k, fp32 under autocast): q, expanded
 * k and v and the softmax (saved-tensor hooks, test/gpu/saved_graph.out.txt).
 * Then `dense` reads a compute-dtype copy of the output (its input when it
 * trains, a LoRA's own cast). */
static uint64_t saved_attention_falcon(const struct llmmem_model *m, const struct llmmem_config *c,
                                       const llmmem__recipe *rc, uint64_t s)
{
    const uint64_t a = (uint64_t)m->num_heads, d = (uint64_t)m->head_dim;
    const uint64_t dense = saved_readers(rc, rc->cb, a * d, (readers){1, rc->full_ft ? 1 : 0, lora_on(c, "dense")});
    if (llmmem__saved_falcon_math(m, rc))
        return 4 * a * d + 2 * falcon_math_kv(m, rc) + 4 * a * s + dense;
    const uint64_t xb = rc->amp ? rc->pb : rc->cb;
    return 3 * xb * a * d + xb * a * s + dense;
}

uint64_t llmmem__saved_falcon_after_softmax(const struct llmmem_model *m, const struct llmmem_config *c,
                                            const llmmem__recipe *rc)
{
    const uint64_t a = (uint64_t)m->num_heads, d = (uint64_t)m->head_dim, h = (uint64_t)m->hidden_size;
    const int ft = rc->full_ft ? 1 : 0;
    uint64_t s = falcon_math_kv(m, rc); /* v for probs @ v */
    s += saved_readers(rc, rc->cb, a * d, (readers){1, ft, lora_on(c, "dense")});
    s += saved_readers(rc, rc->rb, h, (readers){0, 0, lora_on(c, "dense_h_to_4h")}); /* the MLP's own casts */
    bool down_lora = lora_on(c, "dense_4h_to_h");
    s += saved_mlp(m, rc, (uint64_t)m->intermediate_size, (readers){1, ft, down_lora});
    return s;
}

/* ---- how q, k and v are built ------------------------------------------------ */

static bool qkv_fused_rope(const struct llmmem_model *m)
{
    return (m->family == LLMMEM__FAM_PHI3 || m->family == LLMMEM__FAM_GPT_NEOX ||
            m->family == LLMMEM__FAM_FALCON) &&
           m->partial_rotary_factor > 0;
}

/* A fused projection (phi3 qkv_proj, gpt_neox query_key_value, falcon) whose
 * q and k are rebuilt by RoPE keeps the whole fused output alive through the
 * v view: a*d + k*d elements beyond v. Eager's matmul reshapes the
 * non-contiguous v view into a copy, so the fused output is not kept there.
 * Measured with saved-tensor hooks on phi3 and on H200 runs of phi-2, phi3
 * and gpt_neox (test/gpu/). */
static uint64_t saved_qkv_fused(const struct llmmem_model *m, const llmmem__recipe *rc)
{
    const uint64_t a = (uint64_t)m->num_heads, k = (uint64_t)m->num_kv_heads, d = (uint64_t)m->head_dim;
    if (!qkv_fused_rope(m) || rc->attention == LLMMEM__ATTN_EAGER)
        return 0;
    return rc->cb * (a * d + k * d);
}

/* When q is a new tensor laid out [b, a, s, d] (partial-rotary torch.cat, or
 * RoPE over a slice of a fused output), the SDPA output follows q's layout and
 * attn_output.transpose(1, 2).contiguous() copies it for the output
 * projection (sdpa_attention.py); a q from its own Linear is laid out
 * [b, s, a, d] and the copy is free (same measurements). */
static uint64_t saved_attention_output_copy(const struct llmmem_model *m, const llmmem__recipe *rc)
{
    const bool cat = m->partial_rotary_factor > 0 && m->partial_rotary_factor < 1 &&
                     (m->family == LLMMEM__FAM_PHI || m->family == LLMMEM__FAM_GPT_NEOX);
    if (rc->attention == LLMMEM__ATTN_EAGER || !(qkv_fused_rope(m) || cat))
        return 0;
    return rc->cb * (uint64_t)m->num_heads * (uint64_t)m->head_dim;
}

/* ---- attention blocks ---------------------------------------------------------- */

/* The Linears reading the attention input, by family. */
static readers qkv_readers(const struct llmmem_model *m, const struct llmmem_config *c, int ft)
{
    if (m->family == LLMMEM__FAM_GPT2 || m->family == LLMMEM__FAM_PHI3 || m->family == LLMMEM__FAM_GPT_NEOX) {
        bool l = lora_on(c, m->family == LLMMEM__FAM_GPT2   ? "c_attn"
                            : m->family == LLMMEM__FAM_PHI3 ? "qkv_proj"
                                                            : "query_key_value");
        return (readers){1, ft, l};
    }
    if (m->family == LLMMEM__FAM_DEEPSEEK)
        return (readers){2, 2 * ft,
                         lora_on(c, "q_a_proj") + lora_on(c, "q_proj") + lora_on(c, "kv_a_proj_with_mqa")};
    return (readers){3, 3 * ft, lora_on(c, "q_proj") + lora_on(c, "k_proj") + lora_on(c, "v_proj")};
}

/* Multi-head (GQA) attention after the q/k/v projections: q/k norms, the
 * core, the layout extras and the output projection. o_proj reads the
 * attention output, already kept by SDPA (same tensor: flash writes
 * [b, s, a, d], so transpose().contiguous() is free); with eager the
 * contiguous copy is counted in the core. LoRA adds its own cast. With a mask
 * SDPA gets repeat_kv-expanded k and v (use_gqa_in_sdpa needs attention_mask
 * None, integrations/sdpa_attention.py). */
static uint64_t saved_attention_mha(const struct llmmem_model *m, const struct llmmem_config *c,
                                    const llmmem__recipe *rc, uint64_t s)
{
    const uint64_t a = (uint64_t)m->num_heads, k = (uint64_t)m->num_kv_heads, d = (uint64_t)m->head_dim;
    uint64_t total = m->qk_norm ? saved_qk_norm(m, rc) : 0;
    total += saved_attention_core(m, rc, a, rc->masked ? a : k, d, d, s);
    total += saved_qkv_fused(m, rc) + saved_attention_output_copy(m, rc);
    if (lora_on(c, "o_proj") || (m->family == LLMMEM__FAM_GPT2 && lora_on(c, "c_proj")))
        total += saved_readers(rc, rc->cb, a * d, (readers){1, 0, 1});
    if (rc->attention == LLMMEM__ATTN_EAGER && !rc->full_ft)
        total -= rc->cb * a * d; /* frozen o_proj keeps no input (a LoRA keeps its own cast) */
    return total;
}

/* MLA (modeling_deepseek_v3.py): q_a -> q_a_layernorm -> q_b; kv_a ->
 * kv_a_layernorm -> kv_b; SDPA over a heads of nope+rope. v is a view of
 * kv_b_proj's output, which stays whole (nope + v per head); q is built by
 * torch.cat, so the output transpose copies for o_proj (saved-tensor hooks on
 * deepseek_v2, test/gpu/saved_graph.py). */
static uint64_t saved_attention_mla(const struct llmmem_model *m, const struct llmmem_config *c,
                                    const llmmem__recipe *rc, uint64_t s)
{
    const uint64_t a = (uint64_t)m->num_heads, nope = (uint64_t)m->qk_nope_head_dim;
    const uint64_t dq = (uint64_t)(m->qk_nope_head_dim + m->qk_rope_head_dim), dv = (uint64_t)m->v_head_dim;
    const int ft = rc->full_ft ? 1 : 0;
    const bool eager = rc->attention == LLMMEM__ATTN_EAGER;
    uint64_t total = 0;
    if (m->q_lora_rank > 0)
        total += saved_norm_readers(m, rc, rc->cb, (uint64_t)m->q_lora_rank, true,
                                    (readers){1, ft, lora_on(c, "q_b_proj")});
    total += saved_norm_readers(m, rc, rc->cb, (uint64_t)m->kv_lora_rank, true,
                                (readers){1, ft, lora_on(c, "kv_b_proj")});
    total += saved_attention_core(m, rc, a, a, dq, dv, s);
    total += rc->cb * a * nope;
    if (!eager && !rc->full_ft && !lora_on(c, "o_proj"))
        total -= rc->cb * a * dv;
    total += saved_readers(rc, rc->cb, a * dv, (readers){1, ft, lora_on(c, "o_proj")});
    if (eager && rc->full_ft)
        total -= rc->cb * a * dv;
    return total;
}

/* OLMo2 has its norms after the sublayers only. */
static bool norms_after_only(const struct llmmem_model *m) { return llmmem__model_type_is(m, "olmo2"); }

/* After each sublayer of a sequential layer: the post norm (gemma2/3
 * sandwich norms, OLMo2) over its compute-dtype output and the residual
 * dropout mask (1 B). */
static uint64_t saved_sublayer_tail(const struct llmmem_model *m, const llmmem__recipe *rc)
{
    const uint64_t h = (uint64_t)m->hidden_size;
    uint64_t s = 0, nb;
    if (norms_after_only(m) || m->norms_per_layer >= 4)
        s += saved_norm(m, rc, rc->cb, h, rc->full_ft, &nb);
    return rc->dropout_p > 0 ? s + h : s;
}

/* The attention half of a sequential layer: the input norm, the q/k/v
 * projections' inputs, the attention and the sublayer tail. */
static uint64_t saved_attention_block(const struct llmmem_model *m, const struct llmmem_config *c,
                                      const llmmem__recipe *rc, uint64_t s)
{
    const uint64_t h = (uint64_t)m->hidden_size;
    const bool post_only = norms_after_only(m);
    uint64_t total = saved_norm_readers(m, rc, rc->rb, h, !post_only, qkv_readers(m, c, rc->full_ft ? 1 : 0));
    if (m->family == LLMMEM__FAM_DEEPSEEK)
        return total + saved_attention_mla(m, c, rc, s);
    total += saved_attention_mha(m, c, rc, s);
    return total + saved_sublayer_tail(m, rc);
}

/* ---- MLP blocks ------------------------------------------------------------------ */

/* The Linears reading the MLP input, by family. */
static readers mlp_in_readers(const struct llmmem_model *m, const struct llmmem_config *c, int ft)
{
    if (m->family == LLMMEM__FAM_PHI3)
        return (readers){1, ft, lora_on(c, "gate_up_proj")};
    if (m->gated_mlp)
        return (readers){2, 2 * ft, lora_on(c, "gate_proj") + lora_on(c, "up_proj")};
    return (readers){1, ft, lora_on(c, "c_fc") + lora_on(c, "fc1")};
}

bool llmmem__saved_has_moe(const struct llmmem_model *m) { return m->num_experts > 0 && m->num_moe_layers > 0; }

/* The MLP half of a sequential layer: its input norm and Linears (a MoE
 * layer's experts are counted by saved_moe), the activation and the down
 * projection, and the sublayer tail. gpt_neox
 * use_parallel_residual (default): post_attention_layernorm reads the same
 * layer input as input_layernorm; the input is kept once and this norm adds
 * its mean and rstd. `moe`: the layer is a MoE layer (false for the dense layers of a
 * MoE model, which use the dense MLP width). */
static uint64_t saved_mlp_block(const struct llmmem_model *m, const struct llmmem_config *c,
                                const llmmem__recipe *rc, bool moe)
{
    const uint64_t h = (uint64_t)m->hidden_size;
    const int ft = rc->full_ft ? 1 : 0;
    const bool post_only = norms_after_only(m);
    const readers in = mlp_in_readers(m, c, ft);
    uint64_t total;
    if (post_only)
        total = saved_readers(rc, rc->rb, h, in);
    else if (m->family == LLMMEM__FAM_GPT_NEOX)
        total = 8 + saved_readers(rc, norm_out_b(m, rc, rc->rb), h, in);
    else
        total = saved_norm_readers(m, rc, rc->rb, h, true, moe ? (readers){0, 0, 0} : in);
    if (!moe)
        total += saved_mlp(m, rc, (uint64_t)m->intermediate_size,
                           (readers){1, ft, lora_on(c, "down_proj") || lora_on(c, "c_proj") || lora_on(c, "fc2")});
    return total + saved_sublayer_tail(m, rc);
}

/* ---- layers ------------------------------------------------------------------------ */

/* The input of a parallel layer (phi, gpt_neox, falcon): one norm feeding
 * attention and MLP (the Linears of both read it), or with gpt_neox two norms
 * of the same input, one per branch (parallel residual). */
static uint64_t saved_parallel_inputs(const struct llmmem_model *m, const struct llmmem_config *c,
                                      const llmmem__recipe *rc)
{
    const uint64_t h = (uint64_t)m->hidden_size;
    const int ft = rc->full_ft ? 1 : 0;
    int nq = m->family == LLMMEM__FAM_GPT_NEOX || m->family == LLMMEM__FAM_FALCON ? 1 : 3; /* fused query_key_value */
    readers attn_in = {nq, nq * ft, lora_on(c, "q_proj") + lora_on(c, "k_proj") + lora_on(c, "v_proj") +
                                        lora_on(c, "query_key_value")};
    readers mlp_in = {1, ft, lora_on(c, "fc1") + lora_on(c, "fc_in") + lora_on(c, "dense_h_to_4h")};
    if (m->family == LLMMEM__FAM_GPT_NEOX)
        return saved_norm_readers(m, rc, rc->rb, h, true, attn_in) +
               saved_norm_readers(m, rc, rc->rb, h, true, mlp_in);
    readers all = {attn_in.all + 1, attn_in.trainable + mlp_in.trainable, attn_in.lora + mlp_in.lora};
    return saved_norm_readers(m, rc, rc->rb, h, true, all);
}

/* A parallel layer: inputs, attention (falcon's own, or the core and layout
 * extras), the MLP and two residual dropout masks (1 B each). */
static uint64_t saved_layer_parallel(const struct llmmem_model *m, const struct llmmem_config *c,
                                     const llmmem__recipe *rc, uint64_t s)
{
    const uint64_t a = (uint64_t)m->num_heads, k = (uint64_t)m->num_kv_heads, d = (uint64_t)m->head_dim;
    uint64_t total = saved_parallel_inputs(m, c, rc);
    if (m->family == LLMMEM__FAM_FALCON)
        total += saved_attention_falcon(m, c, rc, s);
    else
        total += saved_attention_core(m, rc, a, k, d, d, s) + saved_qkv_fused(m, rc) +
                 saved_attention_output_copy(m, rc);
    bool down_lora = lora_on(c, "fc2") || lora_on(c, "fc_out") || lora_on(c, "dense_4h_to_h");
    total += saved_mlp(m, rc, (uint64_t)m->intermediate_size, (readers){1, rc->full_ft ? 1 : 0, down_lora});
    if (rc->dropout_p > 0)
        total += 2 * (uint64_t)m->hidden_size;
    return total;
}

/* Saved bytes per token of one decoder layer (a MoE layer's experts aside; `moe` as in
 * saved_mlp_block). */
static uint64_t saved_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                            const llmmem__recipe *rc, uint64_t s, bool moe)
{
    if (m->parallel_block)
        return saved_layer_parallel(m, c, rc, s);
    return saved_attention_block(m, c, rc, s) + saved_mlp_block(m, c, rc, moe);
}

/* ---- mixture of experts (modeling_mixtral.py / qwen3_moe in transformers 5) ---------
 * Frozen experts and router (LoRA): a matmul keeps its input only for its
 * weight's gradient (autograd saves what the inputs that need a gradient
 * need), so the router input, each grouped matmul's input (the gathered slot
 * input, the product) and the shared experts' down input are not kept; the
 * gate_up output, the activation and the down output still are (the
 * activation's and the routing weights' backward). The probe's p09
 * (mixtral-mini, LoRA on q/v) measured 2.5 GiB less than the full-FT set.
 * The experts' batched matmuls are not autocast ops: under autocast they run
 * in the parameter dtype (fp32), with no cast of the expert weights (measured
 * with saved-tensor hooks, transformers 5.17 + torch 2.11). */

/* The router Linear's input (its own cast under autocast), softmax(dtype=float)
 * over E, the top-k indices (int64) and weights, and their sum. */
static uint64_t saved_moe_router(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t nb_in)
{
    const uint64_t h = (uint64_t)m->hidden_size, E = (uint64_t)m->num_experts;
    uint64_t s = 0;
    if (rc->full_ft)
        s += (rc->amp && nb_in != rc->cb) ? rc->cb * h : nb_in * h;
    return s + 4 * E + 12 * (uint64_t)m->experts_per_token + 4;
}

/* Per routed slot (T * top_k of them): the gathered input, the fused gate_up
 * output (both halves kept by act and mul), the activation, the product (kept
 * by down) and the down output (kept by the routing-weight mul), plus int64
 * indices; swiglu_oai's clamp, gate*sigmoid(alpha*gate) and (up + 1)*glu keep
 * four f-wide tensors. */
static uint64_t saved_experts(const struct llmmem_model *m, const llmmem__recipe *rc)
{
    const uint64_t h = (uint64_t)m->hidden_size, fm = (uint64_t)m->moe_intermediate_size;
    const uint64_t xb = rc->amp ? rc->pb : rc->cb;
    uint64_t slot = 2 * xb * fm + xb * fm + xb * h + 8 + 8 + xb;
    if (rc->full_ft)
        slot += xb * h + xb * fm; /* the grouped matmuls' inputs */
    if (m->act == LLMMEM__ACT_SWIGLU_OAI)
        slot += 3 * xb * fm;
    return (uint64_t)m->experts_per_token * slot;
}

/* Shared experts run on every token: a gated MLP (gate/up casts under
 * autocast, the shared input counted by the router), and a sigmoid gate. */
static uint64_t saved_shared_experts(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t nb_in)
{
    const uint64_t h = (uint64_t)m->hidden_size, cb = rc->cb;
    const uint64_t fs = (uint64_t)m->shared_expert_intermediate_size;
    if (fs == 0)
        return 0;
    uint64_t s;
    if (rc->full_ft)
        s = ((rc->amp && nb_in != cb) ? 2 * cb * h : 0) + 4 * cb * fs;
    else
        s = 3 * cb * fs; /* act(gate), gate, up; down's input not kept */
    return m->shared_expert_gate ? s + cb * h + 4 : s;
}

/* A MoE block per token, after the layer's post-attention norm. */
static uint64_t saved_moe(const struct llmmem_model *m, const llmmem__recipe *rc)
{
    const uint64_t nb = norm_out_b(m, rc, rc->rb);
    return saved_moe_router(m, rc, nb) + saved_experts(m, rc) + saved_shared_experts(m, rc, nb);
}

/* ---- the layers of a model ------------------------------------------------------------ */

/* Sliding-window layers with s >= window get a bool mask (1, 1, s, s) from
 * transformers masking_utils (sdpa_mask): SDPA then runs the memory-efficient
 * kernel with expanded k/v and keeps the mask for backward; flash-attention 2
 * windows natively. */
static bool window_masked(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t s)
{
    return m->sliding_window > 0 && (int64_t)s >= m->sliding_window && m->num_sliding_layers > 0 &&
           rc->attention == LLMMEM__ATTN_SDPA;
}

/* A dense layer averaged over the sliding-window (masked) and full layers. */
static uint64_t saved_layer_windows(const struct llmmem_model *m, const struct llmmem_config *c,
                                    const llmmem__recipe *rc, uint64_t s, bool moe)
{
    uint64_t per_tok = saved_layer(m, c, rc, s, moe);
    if (!window_masked(m, rc, s))
        return per_tok;
    llmmem__recipe mr = *rc;
    mr.masked = true;
    uint64_t masked_tok = saved_layer(m, c, &mr, s, moe);
    uint64_t nsl = (uint64_t)m->num_sliding_layers, all = (uint64_t)m->num_layers;
    return (masked_tok * nsl + per_tok * (all - nsl)) / all;
}

uint64_t llmmem__saved_per_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                                 const llmmem__recipe *rc, uint64_t s, llmmem__ovf *o)
{
    const uint64_t L = (uint64_t)(m->num_layers > 0 ? m->num_layers : 1);
    const bool moe = llmmem__saved_has_moe(m);
    const uint64_t per_tok = saved_layer_windows(m, c, rc, s, moe);
    const uint64_t moe_tok = moe ? saved_moe(m, rc) : 0;
    const uint64_t dense_layers = L - (uint64_t)(moe ? m->num_moe_layers : 0);
    uint64_t all_layers_tok = llmmem__add(o, llmmem__mul(o, per_tok, L), llmmem__mul(o, moe_tok, L - dense_layers));
    if (moe && dense_layers > 0) {
        /* dense layers of a MoE model use the dense MLP width */
        uint64_t dense_tok = saved_layer(m, c, rc, s, false);
        all_layers_tok = llmmem__add(o, llmmem__mul(o, dense_tok, dense_layers),
                                     llmmem__mul(o, llmmem__add(o, per_tok, moe_tok), L - dense_layers));
    }
    return all_layers_tok / L;
}

uint64_t llmmem__saved_window_mask(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t s,
                                   llmmem__ovf *o)
{
    /* masking_utils.sdpa_mask builds the bool mask once, [1, 1, s, s],
     * expanded over the batch (a view: the probe's p14 trace holds s x s
     * bytes for a batch of 2) */
    return window_masked(m, rc, s) ? llmmem__mul(o, s, s) : 0;
}

uint64_t llmmem__saved_eager_mask(uint64_t B, const llmmem__recipe *rc, uint64_t s, llmmem__ovf *o)
{
    return llmmem__mul3(o, B, s * s, rc->cb);
}

uint64_t llmmem__saved_head(const struct llmmem_model *m, const struct llmmem_config *c,
                            const llmmem__recipe *rc, uint64_t *head_b)
{
    const uint64_t h = (uint64_t)m->hidden_size;
    uint64_t tok = saved_norm(m, rc, rc->rb, h, rc->full_ft, head_b);
    tok += saved_readers(rc, *head_b, h, (readers){1, rc->full_ft ? 1 : 0, lora_on(c, "lm_head")});
    return rc->dropout_p > 0 ? tok + h : tok;
}

uint64_t llmmem__saved_mlp_down_frozen(const struct llmmem_model *m, const struct llmmem_config *c,
                                       const llmmem__recipe *rc)
{
    return saved_readers(rc, rc->cb, (uint64_t)m->intermediate_size, (readers){1, 0, lora_on(c, "down_proj")});
}

/* ---- for the other layer kinds (saved_kinds.c) ------------------------------------------ */

uint64_t llmmem__saved_readers(const llmmem__recipe *rc, uint64_t in_b, uint64_t w, int all, int trainable,
                               int lora)
{
    return saved_readers(rc, in_b, w, (readers){all, trainable, lora});
}

uint64_t llmmem__saved_norm_only(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t w)
{
    uint64_t nb;
    return saved_norm(m, rc, rc->rb, w, rc->full_ft, &nb);
}

uint64_t llmmem__saved_attention_part(const struct llmmem_model *m, const struct llmmem_config *c,
                                      const llmmem__recipe *rc, uint64_t s, bool sliding)
{
    llmmem__recipe mr = *rc;
    mr.masked = sliding && window_masked(m, rc, s);
    return saved_attention_block(m, c, &mr, s);
}

uint64_t llmmem__saved_ffn_part(const struct llmmem_model *m, const struct llmmem_config *c,
                                const llmmem__recipe *rc, int ffn)
{
    if (ffn == LLMMEM__FF_MOE && llmmem__saved_has_moe(m))
        return saved_mlp_block(m, c, rc, true) + saved_moe(m, rc);
    return saved_mlp_block(m, c, rc, false); /* a dense layer of a MoE model: the dense width */
}
