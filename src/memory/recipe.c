/* The recipe of a training run: the dtype of each class of tensor and the
 * switches (LoRA, dropout, attention kernel, fp8, selective recompute) that
 * decide what each op keeps. Read by the states, saved-tensor, cast, loss and
 * transient terms; it never computes bytes itself. */
#include "memory/recipe.h"

#include <string.h>

uint64_t llmmem__recipe_bytes(int64_t dtype, uint64_t fallback)
{
    int b = llmmem__dtype_bytes((int)dtype);
    return b ? (uint64_t)b : fallback;
}

/* RMSNorms that multiply in fp32 and cast the product back: GemmaRMSNorm,
 * Olmo2RMSNorm and the Qwen3-Next / Qwen3.5 RMSNorm ((1 + w) in fp32,
 * modeling_qwen3_next.py Qwen3NextRMSNorm). */
static bool norm_fp32_weight(const struct llmmem_model *m)
{
    static const char *const types[] = {"olmo2", "qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"};
    if (m->family == LLMMEM__FAM_GEMMA)
        return true;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (llmmem__model_type_is(m, types[i]))
            return true;
    return false;
}

/* A configured dropout probability: on (the model's, or 0.1 when it has
 * none), off, or the model's own (0 when it has none). */
static double dropout_of(const struct llmmem_config *c, double model_p)
{
    bool on = c->dropout == LLMMEM__DROPOUT_ON || (c->dropout == LLMMEM__DROPOUT_MODEL && model_p > 0);
    return on ? (model_p > 0 ? model_p : 0.1) : 0;
}

void llmmem__recipe_of(llmmem__recipe *rc, const struct llmmem_model *m, const struct llmmem_config *c)
{
    memset(rc, 0, sizeof *rc);
    rc->pdt = llmmem__recipe_bytes(c->param_dtype, 2);
    const uint64_t cdt = llmmem__recipe_bytes(c->compute_dtype, rc->pdt);
    rc->master = c->master_weights == LLMMEM__MASTER_ON; /* engines resolve "auto" */
    /* Mixed precision with masters: the model runs in the compute dtype. */
    rc->pb = rc->master ? cdt : rc->pdt;
    rc->cb = cdt;
    /* An FSDP MixedPrecisionPolicy with param_dtype = compute dtype runs the units in
     * that dtype over wider stored shards (fsdp.c fsdp_compute_config): no autocast. */
    const bool policy =
        c->fsdp_param_dtype != LLMMEM__DT_AUTO && c->fsdp_param_dtype == c->compute_dtype;
    rc->amp = !rc->master && rc->pdt > cdt && !policy;
    rc->rb = rc->amp ? rc->pdt : cdt;
    rc->lora = c->lora_rank > 0;
    rc->qlora = rc->lora && c->qlora != LLMMEM__QLORA_NONE;
    rc->full_ft = !rc->lora;
    rc->ab = rc->pb > 4 ? rc->pb : 4; /* peft autocast_adapter_dtype: 16-bit adapters become fp32 */
    if (c->activation_profile == LLMMEM__PROFILE_TORCHTUNE || c->activation_profile == LLMMEM__PROFILE_LITGPT)
        rc->ab = rc->pb; /* torchtune LoRALinear / LitGPT LoRA: adapters built in the model dtype */
    rc->rank = c->lora_rank;
    rc->lora_dropout = c->lora_dropout;
    rc->attention = (int)c->attention;
    rc->fp8 = c->fp8_recipe != LLMMEM__FP8_NONE;
    /* Selective recompute (Korthikanti et al. 2022 §5) drops the attention
     * core's score-sized tensors; with SDPA/flash there are none to drop, so
     * it saves nothing there (the kernels already recompute them). */
    rc->selective = c->checkpointing == LLMMEM__CKPT_SELECTIVE;
    rc->liger = c->liger_kernels != 0;
    rc->dropout_p = dropout_of(c, m->hidden_dropout);
    rc->attn_dropout_p = dropout_of(c, m->attention_dropout);
    rc->norm_fp32 = norm_fp32_weight(m);
}

bool llmmem__recipe_lora_on(const struct llmmem_config *c, const char *name)
{
    /* the kind matters only to "all-linear", which leaves out the output
     * layer (peft tuners_utils _maybe_include_all_linear_layers) */
    if (c->lora_rank <= 0)
        return false;
    llmmem__tensor x = {name, strcmp(name, "lm_head") ? LLMMEM__T_ATTN : LLMMEM__T_HEAD, 1, 1, 1, true, true, 0,
                        NULL};
    return llmmem__lora_targets(c->lora_targets, &x);
}

bool llmmem__frameworks_own(const struct llmmem_config *c)
{
    return c->activation_profile == LLMMEM__PROFILE_TORCHTUNE ||
           c->activation_profile == LLMMEM__PROFILE_LITGPT;
}
