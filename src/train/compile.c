/* torch.compile: what AOTAutograd's partitioner saves for a decoder layer
 * instead of eager autograd's saved tensors (compile layers: each decoder
 * layer one graph, torchtune training.compile_model / torchtitan; compile
 * model: HF Trainer torch_compile, the whole forward with the loss one graph).
 *
 * torch/_functorch/partitioners.py, min_cut_rematerialization_partition (the
 * default for Inductor training graphs) traces forward + backward as one joint
 * graph and saves the cheapest set of forward values the backward can be
 * rebuilt from, under its bans (config.py defaults):
 *   - mm/bmm/addmm and the attention kernels are never recomputed
 *     (compute_intensive_ops; ban_recompute_not_in_allowlist), so a matmul
 *     output the backward needs is saved;
 *   - a value whose backward user is not fusible (a matmul's weight gradient
 *     reading it, the attention backward) must be materialised there
 *     (is_materialized_backwards, ban_recompute_materialized_backward): the
 *     Linears' inputs and the attention kernel's q, k, v are saved;
 *   - a reduction whose output is 4x smaller than its input is saved
 *     (ban_recompute_reductions): the norms' rstd;
 *   - everything else pointwise (fp32 upcasts, the normalisation, RoPE,
 *     silu, the residual sum) is recomputed from those.
 * For a pre-norm RMSNorm / attention / gated-MLP layer this leaves, per token:
 * the layer input (the norm backward's x) and rstd, the norm output when a
 * Linear reading it needs its weight gradient, q after RoPE, k and v as the
 * attention kernel gets them, its output and logsumexp, the residual after
 * attention and rstd, the second norm output, gate and up (the silu * up
 * backward) and the product when the down projection needs it. No fp32
 * copy survives. Under activation checkpointing the layer is recomputed in
 * backward anyway: this set is then what one layer holds during its own
 * backward (phases.c). */
#include "train/train.h"

#include <string.h>

static bool lora_on(const struct llmmem_config *c, const char *name)
{
    return llmmem__recipe_lora_on(c, name);
}

int llmmem__compile_check(const struct llmmem_model *m, const struct llmmem_config *c, const llmmem__recipe *rc)
{
    if (c->compile == LLMMEM__COMPILE_NONE)
        return LLMMEM_OK;
    const char *scope = c->compile == LLMMEM__COMPILE_LAYERS ? "layers" : "model";
    bool llama_like = m->family == LLMMEM__FAM_LLAMA && m->norm == LLMMEM__NORM_RMS &&
                      m->act == LLMMEM__ACT_SILU_GLU && !m->qk_norm && !m->parallel_block;
    if (!llama_like || llmmem__saved_has_moe(m) || m->num_sliding_layers > 0 || m->vision_params > 0)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "compile %s: the partitioner's saved set is modelled for dense Llama-style layers "
                             "(RMSNorm, RoPE attention, SiLU-gated MLP); model_type \"%s\" is not",
                             scope, m->model_type);
    if (rc->amp || rc->fp8)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "compile %s: compiled graphs under torch.autocast or fp8 are not modelled "
                             "(param_dtype must equal compute_dtype)", scope);
    if (c->attention == LLMMEM__ATTN_EAGER)
        return llmmem__error(LLMMEM_E_UNSUPPORTED, "compile %s with attention eager is not modelled", scope);
    if (rc->lora_dropout > 0 || (rc->dropout_p > 0 || rc->attn_dropout_p > 0))
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "compile %s with dropout is not modelled (random ops are never recomputed; "
                             "their masks would be saved)", scope);
    if (c->compile == LLMMEM__COMPILE_MODEL && c->activation_profile == LLMMEM__PROFILE_TORCHTUNE)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "compile model: torchtune compiles each decoder layer (training.compile_model); "
                             "use compile layers");
    if (c->activation_profile == LLMMEM__PROFILE_LITGPT)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "compile with activation_profile litgpt: LitGPT's finetune scripts do not "
                             "compile; not modelled");
    return LLMMEM_OK;
}

/* Width of k and v as the attention kernel gets them: torchtune expands them
 * to all a heads (MultiHeadAttention, expand().flatten()); HF SDPA passes the
 * k heads with enable_gqa (integrations/sdpa_attention.py use_gqa_in_sdpa).
 * The expanded copies are inputs of the attention backward, so they are
 * materialised there and saved, not rebuilt. */
static uint64_t kv_width(const struct llmmem_model *m, const struct llmmem_config *c)
{
    const uint64_t a = (uint64_t)m->num_heads, k = (uint64_t)m->num_kv_heads, d = (uint64_t)m->head_dim;
    return (c->activation_profile == LLMMEM__PROFILE_TORCHTUNE ? a : k) * d;
}

/* One norm's part: its input (a primal or a recomputable sum, 16-bit), rstd,
 * and its output when a Linear's weight gradient (or a LoRA A) reads it. */
static uint64_t compiled_norm(const llmmem__recipe *rc, uint64_t h, bool out_needed)
{
    return rc->cb * h + 4 + (out_needed ? rc->cb * h : 0);
}

uint64_t llmmem__compile_saved_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                                     const llmmem__recipe *rc)
{
    const uint64_t h = (uint64_t)m->hidden_size, a = (uint64_t)m->num_heads, d = (uint64_t)m->head_dim;
    const uint64_t f = (uint64_t)m->intermediate_size, ad = a * d, cb = rc->cb;
    const uint64_t r = (uint64_t)(rc->rank > 0 ? rc->rank : 0);
    const int qkv_lora = lora_on(c, "q_proj") + lora_on(c, "k_proj") + lora_on(c, "v_proj");
    const int mlp_lora = lora_on(c, "gate_proj") + lora_on(c, "up_proj");
    const bool o_lora = lora_on(c, "o_proj"), down_lora = lora_on(c, "down_proj");
    uint64_t s = compiled_norm(rc, h, rc->full_ft || qkv_lora > 0);
    s += cb * (ad + 2 * kv_width(m, c) + ad) + 4 * a; /* q (roped), k, v, output; logsumexp */
    s += compiled_norm(rc, h, rc->full_ft || mlp_lora > 0);
    s += 2 * cb * f; /* gate and up: matmul outputs the silu * up backward reads */
    if (rc->full_ft || down_lora)
        s += cb * f; /* the product, the down projection's weight-gradient input */
    /* each LoRA A output (rank wide) feeds lora_B's weight gradient */
    return s + cb * r * (uint64_t)(qkv_lora + mlp_lora + o_lora + down_lora);
}

/* compile model: the final norm is in the graph too (input, rstd, output
 * for a trainable head). */
uint64_t llmmem__compile_saved_head(const struct llmmem_model *m, const struct llmmem_config *c,
                                    const llmmem__recipe *rc)
{
    const uint64_t h = (uint64_t)m->hidden_size;
    return compiled_norm(rc, h, rc->full_ft || lora_on(c, "lm_head")) +
           (lora_on(c, "lm_head") ? rc->cb * (uint64_t)rc->rank : 0);
}
