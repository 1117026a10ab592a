/* The training estimator: model states, what autograd saves in each layer of
 * the HF transformers implementation, loss/logits, and the live bytes of each
 * phase of a step (forward, backward, optimizer) on one GPU.
 *
 * Saved-tensor accounting follows the rule autograd applies op by op: an op
 * keeps the inputs its backward formula needs, and only when some input
 * requires grad (torch/csrc/autograd/generated, derivatives.yaml). Dtypes
 * follow the recipe: under torch.autocast the residual stream stays in the
 * parameter dtype (fp32) and every Linear casts its input separately. Sources
 * for each term are named where it is computed; docs/formulas.md lists them. */
#include "memory/memory.h"

#include <stdio.h>
#include <string.h>

/* ---- the recipe ---------------------------------------------------------- */

typedef struct recipe {
    uint64_t pb;   /* bytes of stored trainable weights (param dtype) */
    uint64_t cb;   /* compute (matmul output) bytes */
    uint64_t rb;   /* residual stream bytes: the param dtype (autocast) or cb */
    bool amp;      /* torch.autocast: param dtype wider than compute dtype */
    bool lora;
    bool full_ft;  /* all base weights trainable */
    uint64_t ab;   /* LoRA adapter dtype bytes (peft casts adapters to fp32) */
    int64_t rank;
    double dropout_p;      /* residual / hidden dropout in training */
    double attn_dropout_p; /* attention-probability dropout */
    double lora_dropout;
    int attention;
    bool masked;   /* SDPA gets a materialised mask (sliding window shorter than s) */
    bool fp8;      /* Transformer Engine fp8 Linears */
    bool selective; /* Korthikanti et al. 2022 §5: the attention core is recomputed */
} recipe;

static uint64_t dtype_or(int64_t dt, uint64_t fallback)
{
    int b = llmmem__dtype_bytes((int)dt);
    return b ? (uint64_t)b : fallback;
}

/* ---- per-token saved bytes of the building blocks -------------------------- */

/* Which Linear layers of a family read a given activation. */
typedef struct consumers {
    int all;       /* Linears reading it */
    int trainable; /* of which the weight is trainable (they save the input) */
    int lora;      /* of which carry a LoRA adapter */
} consumers;

/* What the Linears reading an activation of `w` elements in `in_b`-byte dtype
 * keep. A Linear saves its input when its weight needs a gradient; under
 * autocast each one saves its own cast (torch/csrc/autograd: the cast is a new
 * tensor per call; autocast caches only leaf weights, autocast_mode.cpp). peft
 * LoRA casts the input to the adapter dtype per module
 * (peft/tuners/lora/layer.py _cast_input_dtype) and saves it plus A's output. */
static uint64_t consumers_saved(const recipe *rc, uint64_t in_b, uint64_t w, consumers u)
{
    uint64_t s = 0;
    if (u.trainable > 0 && rc->fp8) {
        /* Transformer Engine Linear (te.pytorch module/linear.py) quantises
         * its input to fp8 and keeps that copy (1 B) for the weight gradient. */
        s += (uint64_t)u.trainable * w;
    } else if (u.trainable > 0) {
        if (rc->amp && in_b != rc->cb)
            s += (uint64_t)u.trainable * rc->cb * w; /* one cast per Linear */
        else
            s += in_b * w; /* one shared tensor */
    }
    if (u.lora > 0 && rc->lora && rc->amp) {
        /* Under autocast lora_A is an autocast Linear: it saves its own
         * compute-dtype cast of the input and lora_B the compute-dtype A output. */
        s += (uint64_t)u.lora * rc->cb * (w + (uint64_t)rc->rank);
        if (rc->lora_dropout > 0)
            s += (uint64_t)u.lora * (rc->ab + 1) * w;
        return s;
    }
    if (u.lora > 0 && rc->lora) {
        if (in_b == rc->ab && u.trainable == 0)
            s += in_b * w; /* input already in adapter dtype: shared */
        else if (in_b != rc->ab)
            s += (uint64_t)u.lora * rc->ab * w; /* per-module cast */
        if (rc->lora_dropout > 0)
            s += (uint64_t)u.lora * (rc->ab + 1) * w; /* dropped copy + mask */
        s += (uint64_t)u.lora * rc->ab * (uint64_t)rc->rank; /* lora_A output */
    }
    return s;
}

/* RMSNorm / LayerNorm over `w` elements of an `in_b`-byte input. Returns the
 * saved bytes; *out_b receives the output dtype bytes.
 * - LlamaRMSNorm (modeling_llama.py): x.to(fp32) (saved by pow and mul),
 *   rsqrt (4 B), normed.to(input dtype) saved by `weight *` when the weight
 *   trains; output in the promoted dtype of weight and input.
 * - GemmaRMSNorm (modeling_gemma.py): fp32 x and fp32 normed (saved by
 *   `* (1 + w)`), output cast back to the input dtype.
 * - LayerNorm (torch native_layer_norm): saves the input (autocast runs it in
 *   fp32: a cast copy when the input is 16-bit), mean and rstd (8 B). */
static uint64_t norm_saved(const struct llmmem_model *m, const recipe *rc, uint64_t in_b, uint64_t w,
                           bool weight_trains, uint64_t *out_b)
{
    if (m->norm == LLMMEM__NORM_RMS) {
        if (m->family == LLMMEM__FAM_GEMMA) {
            *out_b = in_b;
            return 4 * w + 4 + (weight_trains ? 4 * w : 0);
        }
        uint64_t wdt = rc->pb; /* norm weight dtype = param dtype */
        *out_b = in_b > wdt ? in_b : wdt;
        if (!strcmp(m->model_type, "olmo2")) {
            /* Olmo2RMSNorm: (weight * normed_fp32).to(input dtype): the weight
             * multiply keeps the fp32 normed tensor (modeling_olmo2.py). */
            *out_b = in_b;
            return 4 * w + 4 + (weight_trains ? 4 * w : 0);
        }
        return 4 * w + 4 + (weight_trains ? in_b * w : 0);
    }
    /* LayerNorm, with or without affine parameters. OlmoLayerNorm
     * (modeling_olmo.py) casts its input to fp32 itself and the output back. */
    if (m->norm == LLMMEM__NORM_NONPARAM) {
        *out_b = in_b;
        return 4 * w + 8;
    }
    uint64_t x = rc->amp ? 4 : in_b;
    *out_b = rc->amp ? 4 : in_b;
    return x * w + 8;
}

/* A fused or in-Python activation between the MLP's Linears, per token, for
 * an `f`-wide intermediate in compute dtype; `down_saves` says whether the
 * down projection keeps its input. */
static uint64_t mlp_saved(const struct llmmem_model *m, const recipe *rc, uint64_t f, bool down_saves,
                          bool down_lora)
{
    const uint64_t cb = rc->cb;
    uint64_t s = 0;
    uint64_t out_b = cb; /* dtype of the tensor the down projection reads */
    switch (m->act) {
    case LLMMEM__ACT_SILU_GLU:
    case LLMMEM__ACT_GELU_TANH_GLU:
    case LLMMEM__ACT_SWIGLU_OAI:
        /* act(gate) saves gate; act * up saves both (LlamaMLP.forward). */
        s = 3 * cb * f;
        break;
    case LLMMEM__ACT_GELU:
        s = cb * f; /* F.gelu saves its input */
        break;
    case LLMMEM__ACT_RELU:
        s = 0; /* relu saves its output, which is also the down input */
        if (!down_saves && !down_lora)
            s = cb * f;
        break;
    case LLMMEM__ACT_GELU_NEW:
        /* NewGELUActivation (activations.py): 0.5*x*(1+tanh(c*(x+0.044715*x^3)))
         * keeps x (pow), tanh output, 0.5*x and (1+tanh). Under autocast pow
         * runs in fp32, so x, tanh and (1+tanh) are fp32 and the product is
         * fp32 (cast again by the down projection). */
        if (rc->amp) {
            s = 4 * f + 4 * f + cb * f + 4 * f;
            out_b = 4;
        } else {
            s = 4 * cb * f;
        }
        break;
    }
    if (m->act == LLMMEM__ACT_RELU)
        out_b = cb;
    consumers down = {1, down_saves ? 1 : 0, down_lora ? 1 : 0};
    s += consumers_saved(rc, out_b, f, down);
    return s;
}

/* Attention core per token: SDPA/flash keep q, k, v (GQA not expanded when no
 * mask: transformers integrations/sdpa_attention.py use_gqa_in_sdpa), the
 * output and the fp32 log-sum-exp (Dao et al. 2022 §3.1). Eager
 * (eager_attention_forward) keeps q, repeat_kv(k), the fp32 softmax, its cast
 * to the compute dtype, repeat_kv(v) and the transposed output; dropout keeps
 * a 1-byte mask and the dropped copy instead of the cast. `s` is the sequence. */
static uint64_t attn_core_saved(const struct llmmem_model *m, const recipe *rc, uint64_t a, uint64_t k,
                                uint64_t dq, uint64_t dv, uint64_t s)
{
    const uint64_t cb = rc->cb;
    if (rc->attention == LLMMEM__ATTN_EAGER) {
        uint64_t scores;
        if (m->family == LLMMEM__FAM_GPT_OSS) {
            /* gpt-oss (modeling_gpt_oss.py eager_attention_forward): sinks
             * concatenated as one more column, max subtracted (int64
             * indices kept), softmax in the compute dtype. */
            scores = cb * a * (s + 1) + 8 * a;
        } else {
            scores = 4 * a * s; /* softmax(dtype=float32) output */
            if (rc->attn_dropout_p > 0)
                scores += a * s + cb * a * s; /* mask + dropped probabilities */
            else if (cb != 4)
                scores += cb * a * s; /* .to(query.dtype) copy */
        }
        if (m->attn_logit_softcapping > 0)
            scores += cb * a * s; /* tanh output of the soft-capped scores (gemma2) */
        if (rc->selective)
            scores = 0; /* selective recompute keeps the core's inputs, rebuilds the scores */
        return cb * a * dq * 2 + cb * a * dv * 2 + scores;
    }
    if (cb == 4 && k < a && !rc->masked) {
        /* fp32 with GQA: flash has no fp32 and the memory-efficient kernel no
         * enable_gqa, so SDPA falls back to the math backend (torch
         * sdp_utils): it keeps q, repeat-expanded k and v and the fp32
         * probabilities; the output is only kept by the o projection. */
        return cb * (a * dq + a * dq + a * dv + a * dv) + 4 * a * s;
    }
    uint64_t core = cb * (a * dq + k * dq + k * dv + a * dv) + 4 * a;
    if (rc->masked)
        core += cb * s; /* the bool mask converted to an additive bias per call, kept for backward */
    return core;
}

/* Extra bytes per token kept because of how q, k and v are built:
 * - a fused projection (phi3 qkv_proj, gpt_neox query_key_value, falcon) whose
 *   q and k are rebuilt by RoPE keeps the whole fused output alive through the
 *   v view: a*d + k*d elements beyond v;
 * - when q is a new tensor laid out [b, a, s, d] (partial-rotary torch.cat, or
 *   RoPE over a slice of a fused output), the SDPA output follows q's layout
 *   and attn_output.transpose(1, 2).contiguous() copies it for the output
 *   projection (sdpa_attention.py); a q from its own Linear is laid out
 *   [b, s, a, d] and the copy is free. Measured with saved-tensor hooks on
 *   phi3 and on H200 runs of phi-2, phi3 and gpt_neox (test/gpu/). */
static uint64_t attn_layout_extra(const struct llmmem_model *m, const recipe *rc, uint64_t a, uint64_t k,
                                  uint64_t d)
{
    const bool fused = m->family == LLMMEM__FAM_PHI3 || m->family == LLMMEM__FAM_GPT_NEOX ||
                       m->family == LLMMEM__FAM_FALCON;
    const bool rope = m->partial_rotary_factor > 0;
    const bool cat = rope && m->partial_rotary_factor < 1 &&
                     (m->family == LLMMEM__FAM_PHI || m->family == LLMMEM__FAM_GPT_NEOX);
    uint64_t extra = 0;
    /* Eager's matmul reshapes the non-contiguous v view into a copy, so the
     * fused output is not kept there. */
    if (fused && rope && rc->attention != LLMMEM__ATTN_EAGER)
        extra += rc->cb * (a * d + k * d);
    if (rc->attention != LLMMEM__ATTN_EAGER && ((fused && rope) || cat))
        extra += rc->cb * a * d;
    return extra;
}

/* ---- one decoder layer ----------------------------------------------------- */

static bool lora_on(const struct llmmem_config *c, const char *name)
{
    /* the kind matters only to "all-linear", which leaves out the output
     * layer (peft tuners_utils _maybe_include_all_linear_layers) */
    llmmem__tensor x = {name, strcmp(name, "lm_head") ? LLMMEM__T_ATTN : LLMMEM__T_HEAD, 1, 1, 1, true};
    return c->lora_rank > 0 && llmmem__lora_targets(c->lora_targets, &x);
}

/* Saved bytes per token of one decoder layer. */
static uint64_t layer_saved(const struct llmmem_model *m, const struct llmmem_config *c,
                            const recipe *rc, uint64_t s)
{
    const uint64_t h = (uint64_t)m->hidden_size, a = (uint64_t)m->num_heads;
    const uint64_t k = (uint64_t)m->num_kv_heads, d = (uint64_t)m->head_dim;
    const uint64_t f = (uint64_t)m->intermediate_size;
    const int ft = rc->full_ft ? 1 : 0;
    uint64_t total = 0, nb;

    /* Families with a single norm feeding attention and MLP in parallel. */
    if (m->parallel_block) {
        bool neox2 = m->family == LLMMEM__FAM_GPT_NEOX; /* two norms, parallel residual */
        total += norm_saved(m, rc, rc->rb, h, rc->full_ft, &nb);
        int nq = m->family == LLMMEM__FAM_GPT_NEOX || m->family == LLMMEM__FAM_FALCON ? 1 : 3; /* fused query_key_value */
        consumers attn_in = {nq, nq * ft, lora_on(c, "q_proj") + lora_on(c, "k_proj") +
                                              lora_on(c, "v_proj") + lora_on(c, "query_key_value")};
        consumers mlp_in = {1, ft, lora_on(c, "fc1") + lora_on(c, "fc_in") + lora_on(c, "dense_h_to_4h")};
        if (neox2) {
            total += consumers_saved(rc, nb, h, attn_in);
            uint64_t nb2;
            total += norm_saved(m, rc, rc->rb, h, rc->full_ft, &nb2);
            total += consumers_saved(rc, nb2, h, mlp_in);
        } else {
            consumers all = {attn_in.all + 1, attn_in.trainable + mlp_in.trainable,
                             attn_in.lora + mlp_in.lora};
            total += consumers_saved(rc, nb, h, all);
        }
        if (m->family == LLMMEM__FAM_FALCON) {
            /* FalconAttention (transformers 5.17) computes attention with
             * matmuls in the dtype RoPE leaves (its fp32 cos/sin promote q and
             * k, fp32 under autocast): q, expanded k and v, the softmax and a
             * compute-dtype copy of the output for `dense` (saved-tensor
             * hooks, test/gpu/saved_graph.out.txt). */
            const uint64_t xb = rc->amp ? rc->pb : rc->cb;
            total += 3 * xb * a * d + xb * a * s + rc->cb * a * d;
        } else {
            total += attn_core_saved(m, rc, a, k, d, d, s) + attn_layout_extra(m, rc, a, k, d);
        }
        total += mlp_saved(m, rc, f, rc->full_ft, lora_on(c, "fc2") || lora_on(c, "fc_out") ||
                                                      lora_on(c, "dense_4h_to_h"));
        if (rc->dropout_p > 0)
            total += 2 * h; /* resid dropout masks (1 B each) */
        return total;
    }

    const bool post_only = !strcmp(m->model_type, "olmo2"); /* OLMo2: norms after the sublayers */
    const bool sandwich = m->norms_per_layer >= 4;           /* gemma2/3 post-norms as well */
    uint64_t in_b = rc->rb;

    /* Attention input. */
    consumers qkv;
    if (m->family == LLMMEM__FAM_GPT2 || m->family == LLMMEM__FAM_PHI3 ||
        m->family == LLMMEM__FAM_GPT_NEOX) {
        bool l = lora_on(c, m->family == LLMMEM__FAM_GPT2   ? "c_attn"
                            : m->family == LLMMEM__FAM_PHI3 ? "qkv_proj"
                                                            : "query_key_value");
        qkv = (consumers){1, ft, l};
    } else if (m->family == LLMMEM__FAM_DEEPSEEK) {
        qkv = (consumers){2, 2 * ft, lora_on(c, "q_a_proj") + lora_on(c, "q_proj") +
                                         lora_on(c, "kv_a_proj_with_mqa")};
    } else {
        qkv = (consumers){3, 3 * ft, lora_on(c, "q_proj") + lora_on(c, "k_proj") + lora_on(c, "v_proj")};
    }
    if (post_only) {
        total += consumers_saved(rc, in_b, h, qkv);
    } else {
        total += norm_saved(m, rc, in_b, h, rc->full_ft, &nb);
        total += consumers_saved(rc, nb, h, qkv);
    }

    if (m->family == LLMMEM__FAM_DEEPSEEK) {
        /* MLA (modeling_deepseek_v3.py): q_a -> q_a_layernorm -> q_b;
         * kv_a -> kv_a_layernorm -> kv_b; SDPA over a heads of nope+rope. */
        const uint64_t dq = (uint64_t)(m->qk_nope_head_dim + m->qk_rope_head_dim);
        const uint64_t dv = (uint64_t)m->v_head_dim;
        if (m->q_lora_rank > 0) {
            uint64_t ql = (uint64_t)m->q_lora_rank;
            total += norm_saved(m, rc, rc->cb, ql, rc->full_ft, &nb);
            total += consumers_saved(rc, nb, ql, (consumers){1, ft, lora_on(c, "q_b_proj")});
        }
        uint64_t kl = (uint64_t)m->kv_lora_rank;
        total += norm_saved(m, rc, rc->cb, kl, rc->full_ft, &nb);
        total += consumers_saved(rc, nb, kl, (consumers){1, ft, lora_on(c, "kv_b_proj")});
        total += attn_core_saved(m, rc, a, a, dq, dv, s);
        /* v is a view of kv_b_proj's output, which stays whole (nope + v per
         * head); q is built by torch.cat, so the output transpose copies for
         * o_proj (saved-tensor hooks on deepseek_v2, test/gpu/saved_graph.py). */
        total += rc->cb * a * (uint64_t)m->qk_nope_head_dim;
        if (rc->attention != LLMMEM__ATTN_EAGER && !rc->full_ft && !lora_on(c, "o_proj"))
            total -= rc->cb * a * dv;
        total += consumers_saved(rc, rc->cb, a * dv,
                                 (consumers){1, ft, lora_on(c, "o_proj")});
        if (rc->attention == LLMMEM__ATTN_EAGER)
            total -= rc->full_ft ? rc->cb * a * dv : 0;
        goto mlp;
    }

    if (m->qk_norm) {
        /* q_norm/k_norm on the projections (qwen3, gemma3: per head; olmo2:
         * whole projection): input in compute dtype. */
        uint64_t qb, kb;
        total += norm_saved(m, rc, rc->cb, a * d, rc->full_ft, &qb) - 4;
        total += norm_saved(m, rc, rc->cb, k * d, rc->full_ft, &kb) - 4;
        bool per_head = m->family == LLMMEM__FAM_GEMMA || !strcmp(m->model_type, "qwen3") ||
                        !strcmp(m->model_type, "qwen3_moe");
        total += per_head ? 4 * (a + k) : 8; /* rsqrt per normalised vector */
    }
    /* With a mask SDPA gets repeat_kv-expanded k and v (use_gqa_in_sdpa needs
     * attention_mask None, integrations/sdpa_attention.py). */
    total += attn_core_saved(m, rc, a, rc->masked ? a : k, d, d, s) + attn_layout_extra(m, rc, a, k, d);
    /* o_proj reads the attention output, already kept by SDPA (same tensor:
     * flash writes [b, s, a, d], so transpose().contiguous() is free); with
     * eager the contiguous copy is counted in attn_core_saved. LoRA adds its
     * own cast. */
    if (lora_on(c, "o_proj") || (m->family == LLMMEM__FAM_GPT2 && lora_on(c, "c_proj")))
        total += consumers_saved(rc, rc->cb, a * d, (consumers){1, 0, 1});
    if (rc->attention == LLMMEM__ATTN_EAGER && !rc->full_ft)
        total -= rc->cb * a * d; /* frozen o_proj keeps no input (a LoRA keeps its own cast) */
    if (post_only || sandwich)
        total += norm_saved(m, rc, rc->cb, h, rc->full_ft, &nb); /* post-attention norm */
    if (rc->dropout_p > 0)
        total += h; /* resid dropout mask */

mlp:;
    /* MLP input. */
    const bool moe = m->num_experts > 0 && m->num_moe_layers > 0;
    consumers mlp_in;
    if (m->family == LLMMEM__FAM_PHI3)
        mlp_in = (consumers){1, ft, lora_on(c, "gate_up_proj")};
    else if (m->gated_mlp)
        mlp_in = (consumers){2, 2 * ft, lora_on(c, "gate_proj") + lora_on(c, "up_proj")};
    else
        mlp_in = (consumers){1, ft, lora_on(c, "c_fc") + lora_on(c, "fc1")};
    if (post_only) {
        total += consumers_saved(rc, in_b, h, mlp_in);
    } else if (m->family == LLMMEM__FAM_GPT_NEOX) {
        /* use_parallel_residual (default): post_attention_layernorm reads the
         * same layer input as input_layernorm; the input is kept once and
         * this norm adds its mean and rstd. */
        (void)norm_saved(m, rc, in_b, h, rc->full_ft, &nb);
        total += 8 + consumers_saved(rc, nb, h, mlp_in);
    } else {
        total += norm_saved(m, rc, in_b, h, rc->full_ft, &nb);
        if (!moe)
            total += consumers_saved(rc, nb, h, mlp_in);
    }
    if (!moe) {
        total += mlp_saved(m, rc, f, rc->full_ft, lora_on(c, "down_proj") || lora_on(c, "c_proj") ||
                                                      lora_on(c, "fc2"));
    }
    if (post_only || sandwich)
        total += norm_saved(m, rc, rc->cb, h, rc->full_ft, &nb); /* post-feedforward norm */
    if (rc->dropout_p > 0)
        total += h;
    return total;
}

/* A MoE block per token (modeling_mixtral.py / qwen3_moe in transformers 5):
 * the router Linear, softmax(dtype=float) over E, top-k indices and weights;
 * then per routed slot (T * top_k of them) the gathered input (cast under
 * autocast), the fused gate_up output (both halves kept by act and mul), the
 * activation, the product (kept by down) and the down output (kept by the
 * routing-weight mul), plus int64 indices. Shared experts run on every token.
 * Frozen experts and router (LoRA): a matmul keeps its input only for its
 * weight's gradient (autograd saves what the inputs that need a gradient
 * need), so the router input, each grouped matmul's input (the gathered slot
 * input, the product) and the shared experts' down input are not kept; the
 * gate_up output, the activation and the down output still are (the
 * activation's and the routing weights' backward). The probe's p09
 * (mixtral-mini, LoRA on q/v) measured 2.5 GiB less than the full-FT set. */
static uint64_t moe_saved(const struct llmmem_model *m, const recipe *rc, uint64_t nb_in)
{
    const uint64_t h = (uint64_t)m->hidden_size, E = (uint64_t)m->num_experts;
    const uint64_t kx = (uint64_t)m->experts_per_token, fm = (uint64_t)m->moe_intermediate_size;
    const uint64_t cb = rc->cb;
    const bool ft = rc->full_ft; /* experts, router and shared experts train */
    /* The experts' batched matmuls are not autocast ops: under autocast they
     * run in the parameter dtype (fp32), with no cast of the expert weights
     * (measured with saved-tensor hooks, transformers 5.17 + torch 2.11). */
    const uint64_t xb = rc->amp ? rc->pb : cb;
    uint64_t s = 0;
    /* router input: one Linear (its own cast under autocast) */
    if (ft)
        s += (rc->amp && nb_in != cb) ? cb * h : nb_in * h;
    s += 4 * E + 12 * kx + 4; /* fp32 softmax, topk indices (int64) and values, sum */
    /* per routed slot */
    uint64_t slot = 2 * xb * fm + xb * fm + xb * h + 8 + 8 + xb;
    if (ft)
        slot += xb * h + xb * fm; /* the grouped matmuls' inputs */
    if (m->act == LLMMEM__ACT_SWIGLU_OAI)
        slot += 3 * xb * fm; /* clamp, gate*sigmoid(alpha*gate), (up + 1)*glu keep four f-wide tensors */
    s += kx * slot;
    if (m->shared_expert_intermediate_size > 0) {
        uint64_t fs = (uint64_t)m->shared_expert_intermediate_size;
        if (ft) {
            s += (rc->amp && nb_in != cb) ? 2 * cb * h : 0; /* gate/up casts (shared input counted above) */
            s += 4 * cb * fs;
        } else {
            s += 3 * cb * fs; /* act(gate), gate, up; down's input not kept */
        }
        if (m->shared_expert_gate)
            s += cb * h + 4; /* sigmoid gate output */
    }
    return s;
}

/* ---- states ------------------------------------------------------------------ */

/* bitsandbytes 4-bit storage of n weights (functional.py quantize_4bit):
 * packed 4-bit + absmax per 64; double quantization stores the absmax as
 * uint8 with an fp32 scale per 256 blocks (QLoRA §3). */
static uint64_t nf4_bytes(llmmem__ovf *o, uint64_t n, bool dq)
{
    uint64_t blocks = llmmem__ceil_div(n, 64);
    uint64_t b = llmmem__ceil_div(n, 2);
    if (dq)
        return llmmem__add(o, b, llmmem__add(o, blocks, 4 * llmmem__ceil_div(blocks, 256) + 4 + 1024));
    return llmmem__add(o, b, llmmem__mul(o, blocks, 4));
}

static int lora_shape(llmmem__lora_shape *ls, const llmmem__tensors *ts, const struct llmmem_config *c)
{
    ls->n = 0;
    ls->rank = c->lora_rank;
    for (int i = 0; i < ts->n; i++) {
        const llmmem__tensor *x = &ts->t[i];
        if (!llmmem__lora_targets(c->lora_targets, x))
            continue;
        ls->in[ls->n] = x->cols;
        ls->out[ls->n] = x->rows;
        ls->count[ls->n] = x->count;
        ls->n++;
    }
    if (ls->n == 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "lora_targets \"%s\": no Linear of this model has that name",
                             c->lora_targets);
    return LLMMEM_OK;
}

/* ---- the whole model ---------------------------------------------------------- */

int llmmem__train_compute(llmmem__train *t, struct llmmem_result *r, const struct llmmem_model *m,
                          const struct llmmem_config *c)
{
    llmmem__ovf o = {false};
    memset(t, 0, sizeof *t);
    recipe rc;
    memset(&rc, 0, sizeof rc);
    const uint64_t pdt = dtype_or(c->param_dtype, 2);
    const uint64_t cdt = dtype_or(c->compute_dtype, pdt);
    const bool master = c->master_weights != 0;
    /* Mixed precision with masters: the model runs in the compute dtype. */
    rc.pb = master ? cdt : pdt;
    rc.cb = cdt;
    rc.amp = !master && pdt > cdt;
    rc.rb = rc.amp ? pdt : cdt;
    rc.lora = c->lora_rank > 0;
    rc.full_ft = !rc.lora;
    rc.ab = rc.pb > 4 ? rc.pb : 4; /* peft autocast_adapter_dtype: 16-bit adapters become fp32 */
    rc.rank = c->lora_rank;
    rc.lora_dropout = c->lora_dropout;
    rc.attention = (int)c->attention;
    rc.fp8 = c->fp8_recipe != LLMMEM__FP8_NONE;
    /* Selective recompute (Korthikanti et al. 2022 §5) drops the attention
     * core's score-sized tensors; with SDPA/flash there are none to drop, so
     * it saves nothing there (the kernels already recompute them). */
    rc.selective = c->checkpointing == LLMMEM__CKPT_SELECTIVE;
    bool drop = c->dropout == LLMMEM__DROPOUT_ON ||
                (c->dropout == LLMMEM__DROPOUT_MODEL && m->hidden_dropout > 0);
    rc.dropout_p = drop ? (m->hidden_dropout > 0 ? m->hidden_dropout : 0.1) : 0;
    bool adrop = c->dropout == LLMMEM__DROPOUT_ON ||
                 (c->dropout == LLMMEM__DROPOUT_MODEL && m->attention_dropout > 0);
    rc.attn_dropout_p = adrop ? (m->attention_dropout > 0 ? m->attention_dropout : 0.1) : 0;

    /* Vision-language models: image tokens join each sequence (vision.c). */
    llmmem__vision_bytes vb;
    int vrc = llmmem__vision_compute(&vb, m, c, (uint64_t)c->micro_batch_size, &o);
    if (vrc)
        return vrc;
    const uint64_t s = llmmem__add(&o, (uint64_t)c->seq_len, vb.lm_tokens);
    const uint64_t T = llmmem__mul(&o, (uint64_t)c->micro_batch_size, s);
    const uint64_t h = (uint64_t)m->hidden_size, V = (uint64_t)m->vocab_size;
    t->layers = m->num_layers;
    t->tokens = T;
    t->checkpointing = c->checkpointing == LLMMEM__CKPT_FULL;

    /* Built once with the model (llmmem__model_count); a model filled by hand
     * without the list gets it here. */
    llmmem__tensors local;
    const llmmem__tensors *tsp = &m->tensors;
    if (m->tensors.n == 0) {
        llmmem__tensors_of(&local, m);
        tsp = &local;
    }
    const llmmem__tensors *const ts = tsp;
    if (!ts->exact)
        llmmem__result_note(r, "per-tensor layout of %s approximated from component counts",
                            m->model_type);

    /* -- model states ------------------------------------------------------- */
    llmmem__states *st = &t->st;
    st->params = m->params;
    st->weight_bytes = (int)rc.pb;
    uint64_t linear_params = 0, largest_linear = 0;
    for (int i = 0; i < ts->n; i++) {
        if (ts->t[i].linear && ts->t[i].kind != LLMMEM__T_BIAS) {
            uint64_t n = (uint64_t)ts->t[i].rows * (uint64_t)ts->t[i].cols;
            linear_params = llmmem__add(&o, linear_params, llmmem__mul(&o, n, (uint64_t)ts->t[i].count));
            largest_linear = llmmem__max(largest_linear, n);
        }
    }
    /* Experts are 3-D parameters, not nn.Linear, but each expert's slice goes
     * through F.linear (cast under autocast). */
    uint64_t matmul_params = linear_params; /* experts run uncast (moe_saved) */
    if (m->tie_embeddings)
        matmul_params = llmmem__add(&o, matmul_params, llmmem__mul(&o, V, h)); /* lm_head uses the embedding */

    const uint64_t P = (uint64_t)m->params;
    const bool qlora = rc.lora && c->qlora != LLMMEM__QLORA_NONE;
    llmmem__lora_shape ls;
    uint64_t lora_params = 0;
    if (rc.lora) {
        int rcode = lora_shape(&ls, ts, c);
        if (rcode)
            return rcode;
        for (int i = 0; i < ls.n; i++)
            lora_params = llmmem__add(&o, lora_params,
                                      llmmem__mul3(&o, (uint64_t)ls.rank,
                                                   (uint64_t)(ls.in[i] + ls.out[i]), (uint64_t)ls.count[i]));
    }
    /* Base weights. QLoRA quantises every decoder Linear (transformers
     * BitsAndBytesConfig skips the head); the rest stays in the compute dtype. */
    uint64_t base;
    if (qlora) {
        uint64_t qlin = linear_params - (m->tie_embeddings ? 0 : V * h); /* not the head */
        uint64_t rest = P - qlin;
        uint64_t qb = c->qlora == LLMMEM__QLORA_INT8
                          ? llmmem__add(&o, qlin, 4 * (qlin / (largest_linear ? h : 1))) /* int8 + fp32 per row */
                          : nf4_bytes(&o, qlin, c->qlora_double_quant != 0);
        base = llmmem__add(&o, qb, llmmem__mul(&o, rest, rc.cb));
        t->quant_transient = llmmem__mul(&o, largest_linear, rc.cb); /* dequantised weight */
    } else {
        base = llmmem__mul(&o, P, pdt);
    }
    /* A frozen vision tower has no gradients or optimizer state. */
    const uint64_t vision_frozen = (uint64_t)(m->vision_params > vb.trainable ? m->vision_params - vb.trainable : 0);
    const uint64_t trainable = rc.lora ? lora_params + (uint64_t)vb.trainable : P - vision_frozen;
    st->trainable = (int64_t)trainable;
    const uint64_t train_wb = rc.lora ? rc.ab : pdt;
    /* LoRA adapters (on the language model and, with vision_training lora, the tower). */
    st->weights = llmmem__add(&o, base, rc.lora ? llmmem__mul(&o, lora_params + (uint64_t)vb.trainable, rc.ab) : 0);
    st->master = master && !rc.lora ? llmmem__mul(&o, trainable, 4) : 0;
    uint64_t gb = rc.lora ? rc.ab : dtype_or(c->grad_dtype, master ? cdt : pdt);
    st->grad_bytes = (int)gb;
    st->grads = llmmem__mul(&o, trainable, gb);
    uint64_t sb = dtype_or(c->optimizer_state_dtype, master ? 4 : train_wb);
    st->state_bytes = (int)sb;
    llmmem__optim_bytes ob;
    int rcode = llmmem__optim_compute(&ob, (int)c->optimizer, (int)c->optimizer_impl, ts,
                                      rc.lora ? &ls : NULL, (int)sb, &o);
    if (rcode)
        return rcode;
    st->optim = ob.state;
    st->optim_transient = ob.transient;
    if (vb.trainable > 0 && m->vision.hidden > 0) {
        /* The tower's trainable parameters as hidden-wide matrices (the
         * per-tensor layout only matters for factored/8-bit optimizers). */
        llmmem__tensors vt = {.n = 1,
                              .t = {{.name = "vision", .kind = LLMMEM__T_MLP, .rows = m->vision.hidden,
                                     .cols = vb.trainable / m->vision.hidden, .count = 1, .linear = true}}};
        llmmem__optim_bytes vo;
        if ((rcode = llmmem__optim_compute(&vo, (int)c->optimizer, (int)c->optimizer_impl, &vt, NULL, (int)sb,
                                           &o)))
            return rcode;
        st->optim = llmmem__add(&o, st->optim, vo.state);
        st->optim_transient = llmmem__add(&o, st->optim_transient, vo.transient);
    }
    if (llmmem__optim_paged((int)c->optimizer))
        llmmem__result_note(r, "paged 8-bit optimizer states live in CUDA managed memory: counted on the "
                               "GPU, invisible to torch.cuda.memory_allocated, evictable under pressure");

    /* Gradients per layer and outside the layers (embedding, head, final norm). */
    uint64_t layer_params = 0;
    for (int i = 0; i < ts->n; i++)
        if (ts->t[i].kind != LLMMEM__T_EMBED && ts->t[i].kind != LLMMEM__T_HEAD &&
            !(ts->t[i].count == 1))
            layer_params = llmmem__add(&o, layer_params,
                                       llmmem__mul3(&o, (uint64_t)ts->t[i].rows, (uint64_t)ts->t[i].cols,
                                                    (uint64_t)ts->t[i].count));
    const uint64_t L = (uint64_t)(m->num_layers > 0 ? m->num_layers : 1);
    if (rc.lora) {
        t->layer_grad = st->grads / L;
        t->other_grad = st->grads - t->layer_grad * L;
    } else {
        t->layer_grad = llmmem__mul(&o, layer_params / L, gb);
        t->other_grad = llmmem__sub0(st->grads, t->layer_grad * L);
    }

    /* The embedding lookup's backward is the last step: embedding_dense_backward
     * makes a dense [V, h] gradient in the gradient dtype. A tied embedding
     * already holds the head's gradient, so AccumulateGrad adds the new one
     * into it while both exist; an untied one takes the new tensor as its
     * .grad. The probe's p19 (gemma-2b, tied, full fine-tuning) peaks its
     * backward there: every gradient plus one more 256000 x 2048 fp32. */
    if (!rc.lora && m->tie_embeddings && !qlora)
        t->embed_grad_extra = llmmem__mul3(&o, (uint64_t)m->vocab_size, (uint64_t)m->hidden_size, gb);

    /* -- activations ---------------------------------------------------------- */
    /* Sliding-window layers with s >= window get a bool mask (1, 1, s, s) from
     * transformers masking_utils (sdpa_mask): SDPA then runs the
     * memory-efficient kernel with expanded k/v and keeps the mask for
     * backward; flash-attention 2 windows natively. */
    const bool window = m->sliding_window > 0 && (int64_t)s >= m->sliding_window && m->num_sliding_layers > 0;
    uint64_t mask_bytes = 0;
    uint64_t per_tok = layer_saved(m, c, &rc, s);
    if (window && rc.attention == LLMMEM__ATTN_SDPA) {
        recipe mr = rc;
        mr.masked = true;
        uint64_t masked_tok = layer_saved(m, c, &mr, s);
        uint64_t nsl = (uint64_t)m->num_sliding_layers, Lall = (uint64_t)m->num_layers;
        per_tok = (masked_tok * nsl + per_tok * (Lall - nsl)) / Lall;
        /* masking_utils.sdpa_mask builds the bool mask once, [1, 1, s, s],
         * expanded over the batch (a view: the probe's p14 trace holds
         * s x s bytes for a batch of 2) */
        mask_bytes = llmmem__mul(&o, s, s);
    }
    const bool moe = m->num_experts > 0 && m->num_moe_layers > 0;
    uint64_t moe_tok = 0;
    if (moe) {
        uint64_t nb;
        (void)norm_saved(m, &rc, rc.rb, h, rc.full_ft, &nb);
        moe_tok = moe_saved(m, &rc, nb);
    }
    /* Average over dense and MoE layers (first_k_dense_replace etc.). */
    uint64_t dense_layers = L - (uint64_t)(moe ? m->num_moe_layers : 0);
    uint64_t all_layers_tok = llmmem__add(&o, llmmem__mul(&o, per_tok, L),
                                          llmmem__mul(&o, moe_tok, L - dense_layers));
    if (moe && dense_layers > 0) {
        /* dense layers of a MoE model use the dense MLP width */
        struct llmmem_model dm = *m;
        dm.num_experts = 0;
        dm.num_moe_layers = 0;
        uint64_t dense_tok = layer_saved(&dm, c, &rc, s);
        all_layers_tok = llmmem__add(&o, llmmem__mul(&o, dense_tok, dense_layers),
                                     llmmem__mul(&o, llmmem__add(&o, per_tok, moe_tok), L - dense_layers));
    }
    t->act_layer = llmmem__mul(&o, all_layers_tok / L, T);
    /* Under checkpointing each layer keeps its input (torch/utils/checkpoint.py,
     * non-reentrant: the saved-tensor hooks keep only the inputs). */
    t->ckpt_layer = llmmem__mul3(&o, T, h, rc.rb);

    /* Final norm and the head's input; embedding dropout mask. */
    uint64_t nb;
    uint64_t other_tok = norm_saved(m, &rc, rc.rb, h, rc.full_ft, &nb);
    other_tok += consumers_saved(&rc, nb, h, (consumers){1, rc.full_ft ? 1 : 0, lora_on(c, "lm_head")});
    /* A frozen head keeps no input, but LlamaForCausalLM.forward's
     * `hidden_states` local (the final norm's output) is alive until the loss
     * returns: the forward's point at the loss holds it (the probe's p01,
     * LoRA, H200 allocation trace: the 128 MiB norm output beside the loss
     * tensors). */
    t->head_input_live = rc.full_ft ? 0 : llmmem__mul3(&o, T, h, nb);
    if (rc.dropout_p > 0)
        other_tok += h;
    t->act_other = llmmem__mul(&o, other_tok, T);
    /* Eager's causal mask (b, 1, s, s) in the compute dtype: a checkpoint input
     * under checkpointing (kept to the end of backward), a forward transient
     * otherwise. */
    if (rc.attention == LLMMEM__ATTN_EAGER && c->checkpointing == LLMMEM__CKPT_FULL)
        mask_bytes = llmmem__mul3(&o, (uint64_t)c->micro_batch_size, s * s, rc.cb);
    t->act_other = llmmem__add(&o, t->act_other, mask_bytes);
    t->act_other = llmmem__add(&o, t->act_other, vb.saved);
    t->vision_saved = vb.saved;
    t->encoder_transient = vb.transient;
    t->inputs = llmmem__alloc_block(llmmem__mul(&o, T, 8)); /* int64 input ids */

    /* Autocast caches the low-precision copy of each trainable fp32 weight
     * (autocast_mode.cpp cached_cast: leaf tensors that require grad); frozen
     * fp32 weights are cast on every use, and kept by the Linear's backward
     * either way. The head (tied or not) is one V x h matmul weight; experts
     * run uncast (moe_saved). */
    if (rc.amp) {
        const uint64_t head = V * h;
        uint64_t body = llmmem__sub0(matmul_params, head);
        t->cast_layer = llmmem__mul(&o, body / L, rc.cb);
        t->cast_other = llmmem__mul(&o, head, rc.cb);
        t->cast_cached_layer = rc.full_ft ? t->cast_layer : 0;
    }

    /* fp8 compute (documented model, docs/formulas.md): Transformer Engine
     * keeps an fp8 copy of each Linear weight and its transpose for the
     * backward (1 B each), per-tensor scaling state aside; the delayed recipe
     * adds an amax history of 1024 fp32 values per tensor (negligible). */
    if (rc.fp8) {
        uint64_t head = V * h;
        uint64_t body = llmmem__sub0(linear_params, m->tie_embeddings ? 0 : head);
        t->cast_layer = llmmem__mul(&o, body / L, 2);
        t->cast_other = 0;
        t->cast_cached_layer = t->cast_layer;
    }

    /* Loss (transformers loss/loss_utils.py ForCausalLMLoss): logits in the
     * compute dtype, .float() upcast, log_softmax kept (fp32). Forward peak
     * holds logits + fp32 copy + log-probs; backward starts with the kept
     * log-probs plus two fp32 gradients (nll and log_softmax backward). */
    const uint64_t TV = llmmem__mul(&o, T, V);
    switch (c->loss) {
    case LLMMEM__LOSS_LIGER: {
        /* Liger fused linear cross entropy: chunks of next_pow2(ceil(T/ceil(V/h)))
         * rows; grad_input (T x h) and grad_weight (V x h) computed in forward. */
        uint64_t ratio = llmmem__ceil_div(V, h);
        uint64_t rows = llmmem__ceil_div(T, ratio ? ratio : 1), chunk = 1;
        while (chunk < rows)
            chunk <<= 1;
        t->logits_saved = llmmem__add(&o, llmmem__mul3(&o, T, h, rc.cb),
                                      llmmem__add(&o, llmmem__mul3(&o, V, h, rc.pb), 4 * T));
        t->logits_fwd_extra = llmmem__mul3(&o, chunk, V, rc.cb + 4);
        t->logits_bwd_extra = 0;
        break;
    }
    case LLMMEM__LOSS_CHUNKED: {
        /* Chunked CE: logits of 1024-token chunks recomputed in backward. */
        uint64_t chunk = llmmem__min(T, 1024);
        t->logits_saved = 4 * T;
        t->logits_fwd_extra = llmmem__mul3(&o, chunk, V, rc.cb + 8);
        t->logits_bwd_extra = llmmem__mul3(&o, chunk, V, rc.cb + 12);
        break;
    }
    case LLMMEM__LOSS_VOCAB_PARALLEL: {
        /* Megatron vocab-parallel CE (tensor_parallel/cross_entropy.py): fp32
         * logits kept, softmax computed in place; grad written in place. */
        t->logits_saved = llmmem__mul(&o, TV, 4);
        t->logits_fwd_extra = llmmem__mul(&o, TV, rc.cb);
        t->logits_bwd_extra = llmmem__mul(&o, TV, rc.cb);
        break;
    }
    default: {
        t->logits_saved = llmmem__mul(&o, TV, 4);
        /* cap * tanh(logits / cap) (gemma2): tanh keeps its output. */
        if (m->final_logit_softcapping > 0)
            t->logits_saved = llmmem__add(&o, t->logits_saved, llmmem__mul(&o, TV, rc.cb));
        uint64_t up = rc.cb == 4 ? 0 : 4;
        t->logits_fwd_extra = llmmem__mul(&o, TV, rc.cb + up);
        t->logits_bwd_extra = llmmem__mul(&o, TV, 8);
    }
    }

    /* Working sets inside one layer (not kept): the eager causal mask
     * (b, 1, s, s) in the compute dtype, the MLP's intermediates while a
     * checkpointed layer runs forward, and the gradients of the f-wide
     * intermediates in backward. */
    uint64_t f_eff = (uint64_t)(moe ? m->moe_intermediate_size * m->experts_per_token : m->intermediate_size);
    t->fwd_transient = t->checkpointing ? llmmem__mul3(&o, T, f_eff, 3 * rc.cb) : 0;
    if (rc.attention == LLMMEM__ATTN_EAGER && c->checkpointing != LLMMEM__CKPT_FULL)
        t->fwd_transient = llmmem__add(&o, t->fwd_transient,
                                       llmmem__mul3(&o, (uint64_t)c->micro_batch_size, s * s, rc.cb));
    t->bwd_transient = llmmem__mul3(&o, T, f_eff, 2 * rc.cb);
    /* peft's LoRA Linear forward (tuners/lora/layer.py): `result = result +
     * lora_B(lora_A(dropout(x))) * scaling` runs in the adapter dtype, so an
     * fp32 adapter on a 16-bit gate/up projection makes lora_B's fp32 [T, f]
     * output and its scaled copy (or the scaled copy and the fp32 sum) before
     * `result.to(bf16)`. Under checkpointing this happens again in the
     * recompute of each layer in backward, with the down projection's saved
     * tensors not made yet (mlp_tail): a backward candidate of its own. */
    if (t->checkpointing && rc.lora && rc.ab > rc.cb && !moe &&
        (lora_on(c, "gate_proj") || lora_on(c, "up_proj"))) {
        /* + the residual and the MLP input (locals of the layer's forward),
         * and for the first layer in backward the gradients in flight from
         * the head: the one reaching the layer and the final norm's 16-bit
         * and fp32 input gradients (2 x T h cb + 4 T h) */
        uint64_t Th = llmmem__mul3(&o, T, h, rc.cb);
        t->recompute_transient = llmmem__mul3(&o, T, (uint64_t)m->intermediate_size, 2 * rc.ab);
        t->recompute_transient = llmmem__add(&o, t->recompute_transient, llmmem__mul(&o, 4, Th));
        t->recompute_transient = llmmem__add(&o, t->recompute_transient, llmmem__mul3(&o, T, h, 4));
        t->mlp_tail = llmmem__mul(&o, T, consumers_saved(&rc, rc.cb, (uint64_t)m->intermediate_size,
                                                          (consumers){1, 0, lora_on(c, "down_proj")}));
    }
    if (rc.attention == LLMMEM__ATTN_EAGER || m->family == LLMMEM__FAM_FALCON) {
        /* Eager backward through one layer's scores: the fp32 gradient of the
         * softmax output and the softmax input gradient (_softmax_backward_data
         * writes the input dtype) beyond the kept probabilities: 4as in 16-bit,
         * 8as in fp32. */
        uint64_t per = rc.cb == 4 ? 8 : 4;
        if (rc.selective)
            per += rc.cb == 4 ? 4 : 6; /* the layer's rebuilt softmax (and its cast) */
        uint64_t sc = llmmem__mul3(&o, T, (uint64_t)m->num_heads * s, per);
        t->bwd_transient = llmmem__max(t->bwd_transient, sc);
    }
    if (rc.full_ft && rc.amp)
        t->bwd_transient = llmmem__add(&o, t->bwd_transient, llmmem__mul(&o, largest_linear, rc.cb));

    /* The symbols of the formulas (docs/formulas.md), for --explain. */
    llmmem__result_input(r, "T tokens per micro-batch", (int64_t)T);
    llmmem__result_input(r, "b micro-batch", c->micro_batch_size);
    llmmem__result_input(r, "s sequence (with image tokens)", (int64_t)s);
    llmmem__result_input(r, "L layers", m->num_layers);
    llmmem__result_input(r, "h hidden", m->hidden_size);
    llmmem__result_input(r, "a heads", m->num_heads);
    llmmem__result_input(r, "k kv heads", m->num_kv_heads);
    llmmem__result_input(r, "d head dim", m->head_dim);
    llmmem__result_input(r, "f intermediate", m->intermediate_size);
    llmmem__result_input(r, "V vocabulary", m->vocab_size);
    llmmem__result_input(r, "P parameters", m->params);
    llmmem__result_input(r, "trainable parameters", st->trainable);
    llmmem__result_input(r, "pb param dtype bytes", (int64_t)rc.pb);
    llmmem__result_input(r, "cb compute dtype bytes", (int64_t)rc.cb);
    llmmem__result_input(r, "autocast (0/1)", rc.amp);
    if (m->num_experts > 0) {
        llmmem__result_input(r, "E experts", m->num_experts);
        llmmem__result_input(r, "top-k experts", m->experts_per_token);
        llmmem__result_input(r, "f_moe expert intermediate", m->moe_intermediate_size);
    }
    if (rc.lora)
        llmmem__result_input(r, "r LoRA rank", c->lora_rank);
    llmmem__result_input(r, "per-token saved bytes of one layer", (int64_t)(t->act_layer / (T ? T : 1)));

    const llmmem__gpu *g = llmmem__gpu_at((int)c->gpu);
    t->workspace = c->cublas_workspace_bytes >= 0 ? (uint64_t)c->cublas_workspace_bytes
                                                  : (g ? g->cublas_workspace_bytes : 0);
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "training estimate overflows 64-bit byte counts (micro_batch_size %lld x "
                             "seq_len %lld on %lld parameters)",
                             (long long)c->micro_batch_size, (long long)c->seq_len, (long long)m->params);
    return LLMMEM_OK;
}

/* ---- phases ------------------------------------------------------------------- */

static void put(uint64_t *row, int comp, uint64_t v, llmmem__ovf *o) { row[comp] = llmmem__add(o, row[comp], v); }

static uint64_t row_total(const uint64_t *row, llmmem__ovf *o)
{
    uint64_t sum = 0;
    for (int k = 0; k < LLMMEM__COMPONENTS; k++)
        sum = llmmem__add(o, sum, row[k]);
    return sum;
}

/* Copies the candidate row into `phase` when its total exceeds *best. */
static void keep_larger(uint64_t *phase, uint64_t *best, const uint64_t *cand, llmmem__ovf *o)
{
    uint64_t sum = row_total(cand, o);
    if (sum > *best) {
        *best = sum;
        memcpy(phase, cand, LLMMEM__COMPONENTS * sizeof *cand);
    }
}

int llmmem__train_fill(struct llmmem_result *r, const llmmem__train *t, const llmmem__engine_extra *extra,
                       const struct llmmem_model *m, const struct llmmem_config *c)
{
    llmmem__ovf o = {false};
    const llmmem__states *st = &t->st;
    const uint64_t L = (uint64_t)(t->layers > 0 ? t->layers : 1);
    const bool steady = c->step != LLMMEM__STEP_FIRST;
    const bool ga = c->grad_accum_steps > 1;
    const uint64_t states = steady ? st->optim : 0;
    const uint64_t ga_grads = ga ? st->grads : 0;

    /* Live through the whole step: weights, masters, optimizer state (steady
     * state: created at the first step), input ids, one cuBLAS workspace. */
    uint64_t base[LLMMEM__COMPONENTS] = {0};
    put(base, LLMMEM_C_WEIGHTS, st->weights, &o);
    put(base, LLMMEM_C_MASTER_WEIGHTS, st->master, &o);
    put(base, LLMMEM_C_OPTIMIZER_STATE, states, &o);
    put(base, LLMMEM_C_OTHER, t->inputs, &o);
    put(base, LLMMEM_C_WORKSPACE, t->workspace, &o);

    uint64_t saved = t->checkpointing ? llmmem__mul(&o, t->ckpt_layer, L) : llmmem__mul(&o, t->act_layer, L);
    saved = llmmem__add(&o, saved, t->act_other);
    uint64_t cache = t->checkpointing ? t->cast_other
                                      : llmmem__add(&o, llmmem__mul(&o, t->cast_layer, L), t->cast_other);

    /* Forward: at the loss, all saved tensors plus the loss working set; under
     * checkpointing the autocast cache holds every cast until the autocast
     * region ends. */
    uint64_t *fw = r->bytes[LLMMEM_PHASE_FORWARD];
    memcpy(fw, base, sizeof base);
    /* the autograd thread's cuBLAS workspace (see backward) stays allocated
     * once the first backward has created it: steady-state forwards hold it */
    if (steady)
        put(fw, LLMMEM_C_WORKSPACE, t->workspace, &o);
    put(fw, LLMMEM_C_GRADIENTS, ga_grads, &o);
    put(fw, LLMMEM_C_ACTIVATIONS, saved, &o);
    /* Under checkpointing the layers' saved tensors are dropped as the forward
     * goes, but autocast's cache keeps every cached cast (trainable weights)
     * until the region ends; frozen weights (LoRA) are cast per use and not
     * cached, so only the head's cast, kept by its matmul, is alive at the
     * loss (the probe's p17, qwen2.5-0.5b LoRA under bf16 autocast). */
    uint64_t fwd_cache = t->checkpointing
                             ? llmmem__add(&o, llmmem__mul(&o, t->cast_cached_layer, L), t->cast_other)
                             : cache;
    put(fw, LLMMEM_C_AUTOCAST_CACHE, fwd_cache, &o);
    put(fw, LLMMEM_C_LOGITS, llmmem__add(&o, t->logits_saved, t->logits_fwd_extra), &o);
    put(fw, LLMMEM_C_ACTIVATION_TRANSIENT, llmmem__add(&o, t->quant_transient,
                                                       t->logits_fwd_extra ? t->head_input_live
                                                                           : t->fwd_transient), &o);
    if (t->encoder_transient) {
        /* The vision encoder runs first: its working set peaks while only the
         * tower's own tensors are kept. The forward phase is the larger point. */
        uint64_t enc[LLMMEM__COMPONENTS];
        memcpy(enc, base, sizeof enc);
        put(enc, LLMMEM_C_GRADIENTS, ga_grads, &o);
        put(enc, LLMMEM_C_ACTIVATIONS, t->vision_saved, &o);
        put(enc, LLMMEM_C_ACTIVATION_TRANSIENT, t->encoder_transient, &o);
        uint64_t fw_total = row_total(fw, &o);
        keep_larger(fw, &fw_total, enc, &o);
    }
    r->phase_used[LLMMEM_PHASE_FORWARD] = true;

    /* Backward: the autograd thread runs matmuls with its own cuBLAS handle
     * (a second workspace, cached per handle and stream for the life of the
     * process: CublasHandlePool.cpp cublas_handle_stream_to_workspace; the H200
     * probe runs, one fresh process each, measure it in the optimizer phase
     * and in every later forward, test/data/probe). Candidates: the start (loss gradients), the first
     * and the last decoder layer (saved tensors fall while gradients grow),
     * each with that layer's gradient temporaries. */
    uint64_t bw_base[LLMMEM__COMPONENTS];
    memcpy(bw_base, base, sizeof base);
    put(bw_base, LLMMEM_C_WORKSPACE, t->workspace, &o);
    uint64_t head_grads = ga ? st->grads : t->other_grad;

    uint64_t best = 0;
    uint64_t cand[LLMMEM__COMPONENTS];
    /* start of backward */
    memcpy(cand, bw_base, sizeof cand);
    put(cand, LLMMEM_C_GRADIENTS, ga_grads, &o);
    put(cand, LLMMEM_C_ACTIVATIONS, saved, &o);
    put(cand, LLMMEM_C_AUTOCAST_CACHE, cache, &o);
    put(cand, LLMMEM_C_LOGITS, llmmem__add(&o, t->logits_saved, t->logits_bwd_extra), &o);
    uint64_t *bw = r->bytes[LLMMEM_PHASE_BACKWARD];
    keep_larger(bw, &best, cand, &o);
    /* first and last layer */
    for (int pass = 0; pass < 2; pass++) {
        uint64_t done = pass == 0 ? 0 : L - 1; /* layers already through backward */
        uint64_t grads = ga ? st->grads : llmmem__add(&o, head_grads, llmmem__mul(&o, t->layer_grad, done));
        uint64_t left = L - done;
        memcpy(cand, bw_base, sizeof cand);
        put(cand, LLMMEM_C_GRADIENTS, grads, &o);
        if (t->checkpointing) {
            put(cand, LLMMEM_C_ACTIVATIONS, llmmem__add(&o, llmmem__mul(&o, t->ckpt_layer, left),
                                                        t->act_layer), &o);
            put(cand, LLMMEM_C_AUTOCAST_CACHE, llmmem__add(&o, t->cast_layer, t->cast_other), &o);
        } else {
            put(cand, LLMMEM_C_ACTIVATIONS, llmmem__mul(&o, t->act_layer, left), &o);
            put(cand, LLMMEM_C_AUTOCAST_CACHE, llmmem__add(&o, llmmem__mul(&o, t->cast_layer, left),
                                                           t->cast_other), &o);
        }
        put(cand, LLMMEM_C_ACTIVATION_TRANSIENT, llmmem__add(&o, t->bwd_transient, t->quant_transient), &o);
        keep_larger(bw, &best, cand, &o);
    }
    /* the end of backward: every gradient, the tied embedding's second one */
    if (t->embed_grad_extra) {
        memcpy(cand, bw_base, sizeof cand);
        put(cand, LLMMEM_C_GRADIENTS, llmmem__add(&o, st->grads, t->embed_grad_extra), &o);
        keep_larger(bw, &best, cand, &o);
    }
    if (t->recompute_transient) {
        /* The first layer's recompute, at its gate/up LoRA output: every
         * checkpoint input, the layer's saved tensors but the down
         * projection's, and recompute_transient. An H200 allocation trace of
         * the probe's p14 (mistral-7b LoRA, 2 x 8192 tokens) has exactly
         * these at its peak. */
        memcpy(cand, bw_base, sizeof cand);
        put(cand, LLMMEM_C_GRADIENTS, ga ? st->grads : head_grads, &o);
        put(cand, LLMMEM_C_ACTIVATIONS,
            llmmem__add(&o, llmmem__mul(&o, t->ckpt_layer, L), llmmem__sub0(t->act_layer, t->mlp_tail)), &o);
        put(cand, LLMMEM_C_AUTOCAST_CACHE, llmmem__add(&o, t->cast_layer, t->cast_other), &o);
        put(cand, LLMMEM_C_ACTIVATION_TRANSIENT, llmmem__add(&o, t->recompute_transient, t->quant_transient),
            &o);
        keep_larger(bw, &best, cand, &o);
    }
    r->phase_used[LLMMEM_PHASE_BACKWARD] = true;

    /* Optimizer step: all gradients, the state (created now at the first
     * step) and the step's temporaries; activations are gone. */
    uint64_t *op = r->bytes[LLMMEM_PHASE_OPTIMIZER];
    memcpy(op, base, sizeof base);
    op[LLMMEM_C_OPTIMIZER_STATE] = st->optim;
    put(op, LLMMEM_C_GRADIENTS, st->grads, &o);
    put(op, LLMMEM_C_OPTIMIZER_TRANSIENT, st->optim_transient, &o);
    put(op, LLMMEM_C_WORKSPACE, t->workspace, &o); /* the autograd thread's, after backward */
    r->phase_used[LLMMEM_PHASE_OPTIMIZER] = true;

    if (extra) {
        for (int k = 0; k < LLMMEM__COMPONENTS; k++) {
            put(fw, k, extra->fwd[k], &o);
            put(bw, k, extra->bwd[k], &o);
            put(op, k, extra->opt[k], &o);
        }
    }

    llmmem__result_set_i64(r, LLMMEM_R_PARAMS, st->params);
    llmmem__result_set_i64(r, LLMMEM_R_TRAINABLE_PARAMS, st->trainable);
    llmmem__result_set_i64(r, LLMMEM_R_ACTIVE_PARAMS, m->params_active);
    llmmem__result_set_u64(r, LLMMEM_R_WEIGHTS_BYTES, st->weights);
    uint64_t persistent = 0;
    for (int k = 0; k < LLMMEM__COMPONENTS; k++)
        persistent = llmmem__add(&o, persistent, base[k]);
    llmmem__result_set_u64(r, LLMMEM_R_PERSISTENT_BYTES, llmmem__sub0(persistent, t->workspace));
    llmmem__result_set_u64(r, LLMMEM_R_FORWARD_SAVED_BYTES,
                           llmmem__add(&o, llmmem__add(&o, saved, cache), t->logits_saved));
    r->largest_block = llmmem__max(t->logits_bwd_extra / 2, t->bwd_transient);
    r->checkpointing = t->checkpointing;
    r->mode = LLMMEM__MODE_TRAINING;
    snprintf(r->model_type, sizeof r->model_type, "%s", m->model_type);

    /* Explained terms (static formulas with sources). */
    llmmem__result_term(r, "weights", "params x param dtype bytes (QLoRA: NF4 + absmax, bitsandbytes functional.py)",
                        st->weights);
    if (st->master)
        llmmem__result_term(r, "master_weights", "4 B x trainable params (fp32 masters, ZeRO paper 3.1)", st->master);
    llmmem__result_term(r, "gradients", "trainable params x grad dtype bytes (freed by zero_grad(set_to_none))",
                        st->grads);
    llmmem__result_term(r, "optimizer_state", llmmem__optim_source((int)c->optimizer), st->optim);
    llmmem__result_term(r, "optimizer_transient", "step temporaries of the implementation (foreach copies)",
                        st->optim_transient);
    llmmem__result_term(r, "activations_per_layer",
                        "saved tensors of one decoder layer x tokens (autograd saved-tensor accounting, "
                        "HF modeling code)", t->act_layer);
    if (t->checkpointing)
        llmmem__result_term(r, "checkpoint_inputs_per_layer", "tokens x hidden x residual dtype "
                                                             "(torch.utils.checkpoint non-reentrant)",
                            t->ckpt_layer);
    llmmem__result_term(r, "activations_other", "final norm + head input (+ dropout masks, vision tower)",
                        t->act_other);
    if (t->vision_saved || t->encoder_transient) {
        llmmem__result_term(r, "vision_activations", "tower + projector tensors kept for backward (vision.c, "
                                                     "modeling_clip/siglip/qwen2_vl)", t->vision_saved);
        llmmem__result_term(r, "vision_encoder_transient", "the encoder's largest forward working set (vision.c)",
                            t->encoder_transient);
    }
    if (t->cast_layer || t->cast_other)
        llmmem__result_term(r, "autocast_cache", "compute-dtype copies of matmul weights (autocast_mode.cpp)",
                            llmmem__add(&o, llmmem__mul(&o, t->cast_layer, L), t->cast_other));
    llmmem__result_term(r, "loss_saved", "4 x tokens x vocab (fp32 log_softmax, loss_utils.py ForCausalLMLoss)",
                        t->logits_saved);
    llmmem__result_term(r, "loss_forward_peak", "tokens x vocab x (compute bytes + 4 fp32 upcast)",
                        t->logits_fwd_extra);
    llmmem__result_term(r, "loss_backward_peak", "8 x tokens x vocab (fp32 grads of log-probs and logits)",
                        t->logits_bwd_extra);
    llmmem__result_term(r, "cublas_workspace", "per handle/stream (CublasHandlePool.cpp); 2 in backward",
                        t->workspace);
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "training estimate overflows 64-bit byte counts");
    return llmmem__result_finish(r, c);
}
