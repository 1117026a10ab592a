/* The training estimator for one GPU holding the whole model: it builds what
 * the terms read (recipe.c, the vision tower, the tensor list) and composes
 * them: model states (states.c), saved activations (saved.c), weight casts
 * (casts.c), loss and logits (loss.c) and the working sets inside a layer
 * (transient.c). The live bytes of each phase are built from the result by
 * llmmem__train_fill (phases.c). Sources for each term are named where it is
 * computed; docs/formulas.md lists them. */
#include "train/train.h"

#include <string.h>

/* What autograd keeps through the step: every layer's saved tensors (per
 * token from saved.c), each layer's input under checkpointing
 * (torch/utils/checkpoint.py, non-reentrant: the saved-tensor hooks keep only
 * the inputs), the final norm and head input, the masks kept for backward,
 * the vision tower's tensors and the int64 input ids. */
static void activations(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    const struct llmmem_model *m = in->m;
    const struct llmmem_config *c = in->c;
    const llmmem__recipe *rc = &in->rc;
    const uint64_t T = in->T, h = (uint64_t)m->hidden_size;
    /* whose saved tensors: the partitioner's (compile.c), a framework's
     * module code (frameworks.c), HF transformers' (saved.c), or for layers
     * of several kinds (saved_kinds.c) their mean, and the largest for the
     * one layer a checkpointed backward recomputes (compile, frameworks and
     * selective checkpointing are refused for those: kinds.c) */
    if (!in->classic) {
        const uint64_t L = (uint64_t)(m->num_layers > 0 ? m->num_layers : 1);
        uint64_t all = llmmem__saved_kinds_all(m, c, rc, (uint64_t)c->micro_batch_size, in->s,
                                               &t->act_layer_max, o);
        t->act_layer = llmmem__ceil_div(all, L);
    } else {
        uint64_t per_tok;
        if (c->compile != LLMMEM__COMPILE_NONE)
            per_tok = llmmem__compile_saved_layer(m, c, rc);
        else if (llmmem__frameworks_own(c))
            per_tok = llmmem__frameworks_saved_layer(m, c, rc);
        else
            per_tok = llmmem__saved_per_layer(m, c, rc, in->s, o);
        t->act_layer = llmmem__mul(o, per_tok, T);
    }
    t->ckpt_layer = c->checkpointing == LLMMEM__CKPT_SELECTIVE_OP
                        ? llmmem__mul(o, T, llmmem__recipes_sac_layer(m, rc))
                        : llmmem__mul3(o, T, h, llmmem__saved_kinds_residual_bytes(m, rc));
    uint64_t head_b;
    t->act_other = llmmem__mul(o, llmmem__saved_head(m, c, rc, &head_b), T);
    if (c->compile == LLMMEM__COMPILE_MODEL)
        t->act_other = llmmem__mul(o, llmmem__compile_saved_head(m, c, rc), T);
    /* LitGPT quantises lm_head too; the 4-bit matmul keeps its input (frameworks.c) */
    if (rc->qlora && !rc->full_ft && c->activation_profile == LLMMEM__PROFILE_LITGPT &&
        c->qlora_quantize_head != LLMMEM__TRI_OFF)
        t->act_other = llmmem__add(o, t->act_other, llmmem__mul3(o, T, h, rc->cb));
    /* A frozen head keeps no input, but LlamaForCausalLM.forward's
     * `hidden_states` local (the final norm's output) is alive until the loss
     * returns: the forward's point at the loss holds it (the probe's p01,
     * LoRA, H200 allocation trace: the 128 MiB norm output beside the loss
     * tensors). */
    t->head_input_live = rc->full_ft || llmmem__frameworks_own(c) ? 0 : llmmem__mul3(o, T, h, head_b);
    /* Eager's causal mask (b, 1, s, s) in the compute dtype is a checkpoint
     * input under checkpointing (kept to the end of backward), a forward
     * transient otherwise (transient.c). */
    uint64_t mask_bytes = llmmem__saved_window_mask(m, rc, in->s, o);
    if (rc->attention == LLMMEM__ATTN_EAGER && c->checkpointing == LLMMEM__CKPT_FULL)
        mask_bytes = llmmem__saved_eager_mask(c, rc, in->s, o);
    t->act_other = llmmem__add(o, t->act_other, mask_bytes);
    t->act_other = llmmem__add(o, t->act_other, in->vb.saved);
    t->vision_saved = in->vb.saved;
    t->encoder_transient = in->vb.transient;
    t->inputs = llmmem__alloc_block(llmmem__mul(o, T, 8)); /* int64 input ids */
}

/* The symbols of the formulas (docs/formulas.md), for --explain. */
static void explain_inputs(struct llmmem_result *r, const llmmem__train *t, const llmmem__train_in *in)
{
    const struct llmmem_model *m = in->m;
    llmmem__result_input(r, "T tokens per micro-batch", (int64_t)in->T);
    llmmem__result_input(r, "b micro-batch", in->c->micro_batch_size);
    llmmem__result_input(r, "s sequence (with image tokens)", (int64_t)in->s);
    llmmem__result_input(r, "L layers", m->num_layers);
    llmmem__result_input(r, "h hidden", m->hidden_size);
    llmmem__result_input(r, "a heads", m->num_heads);
    llmmem__result_input(r, "k kv heads", m->num_kv_heads);
    llmmem__result_input(r, "d head dim", m->head_dim);
    llmmem__result_input(r, "f intermediate", m->intermediate_size);
    llmmem__result_input(r, "V vocabulary", m->vocab_size);
    llmmem__result_input(r, "P parameters", m->params);
    llmmem__result_input(r, "trainable parameters", t->st.trainable);
    llmmem__result_input(r, "pb param dtype bytes", (int64_t)in->rc.pb);
    llmmem__result_input(r, "cb compute dtype bytes", (int64_t)in->rc.cb);
    llmmem__result_input(r, "autocast (0/1)", in->rc.amp);
    if (m->num_experts > 0) {
        llmmem__result_input(r, "E experts", m->num_experts);
        llmmem__result_input(r, "top-k experts", m->experts_per_token);
        llmmem__result_input(r, "f_moe expert intermediate", m->moe_intermediate_size);
    }
    if (in->rc.lora)
        llmmem__result_input(r, "r LoRA rank", in->c->lora_rank);
    llmmem__result_input(r, "per-token saved bytes of one layer", (int64_t)(t->act_layer / (in->T ? in->T : 1)));
}

/* One cuBLAS workspace: the configured size or the GPU's default. */
static uint64_t cublas_workspace(const struct llmmem_config *c)
{
    const llmmem__gpu *g = llmmem__gpu_at((int)c->gpu);
    return c->cublas_workspace_bytes >= 0 ? (uint64_t)c->cublas_workspace_bytes
                                          : (g ? g->cublas_workspace_bytes : 0);
}

int llmmem__train_compute(llmmem__train *t, struct llmmem_result *r, const struct llmmem_model *m,
                          const struct llmmem_config *c)
{
    llmmem__ovf o = {false};
    memset(t, 0, sizeof *t);
    /* layer kinds the byte model has no terms for are refused (kinds.c) */
    const bool classic = llmmem__kinds_classic(m);
    int rcode = classic ? LLMMEM_OK : llmmem__kinds_check(m, c, LLMMEM__USE_TRAIN);
    if (rcode)
        return rcode;
    llmmem__train_in in = {.m = m, .c = c, .ts = &m->tensors, .classic = classic};
    llmmem__recipe_of(&in.rc, m, c);
    /* Vision-language models: image tokens join each sequence (vision.c). */
    rcode = llmmem__vision_compute(&in.vb, m, c, (uint64_t)c->micro_batch_size, &o);
    if (rcode)
        return rcode;
    in.s = llmmem__add(&o, (uint64_t)c->seq_len, in.vb.lm_tokens);
    in.T = llmmem__mul(&o, (uint64_t)c->micro_batch_size, in.s);
    t->layers = m->num_layers;
    t->tokens = in.T;
    t->checkpointing = c->checkpointing == LLMMEM__CKPT_FULL || c->checkpointing == LLMMEM__CKPT_SELECTIVE_OP;

    /* Built once with the model (llmmem__model_count); a model filled by hand
     * without the list gets it here. */
    llmmem__tensors local;
    if (m->tensors.n == 0) {
        llmmem__tensors_of(&local, m);
        in.ts = &local;
    }
    if (!in.ts->exact)
        llmmem__result_note(r, "per-tensor layout of %s approximated from component counts", m->model_type);
    llmmem__states_linears(&in.lin, in.ts, &o);
    if ((rcode = llmmem__frameworks_check(m, c, &in.rc)) || (rcode = llmmem__compile_check(m, c, &in.rc)) ||
        (rcode = llmmem__recipes_check(m, c, r->caps)))
        return rcode;
    llmmem__frameworks_qlora_linears(&in, &o);
    if (in.rc.qlora && c->qlora_compute_dtype == LLMMEM__DT_AUTO && in.qcb == 4 && in.rc.cb != 4)
        llmmem__result_note(r, "QLoRA: bitsandbytes computes the 4-bit layers in fp32 (transformers' "
                               "BitsAndBytesConfig without bnb_4bit_compute_dtype: the weight dequantised and "
                               "the layer's input and output cast to fp32); axolotl and TRL set it to the model "
                               "dtype: qlora_compute_dtype %s",
                            llmmem_param_enum_name(LLMMEM_P_COMPUTE_DTYPE, c->compute_dtype != LLMMEM__DT_AUTO
                                                                               ? c->compute_dtype
                                                                               : c->param_dtype));

    if ((rcode = llmmem__states_compute(t, r, &in, &o)))
        return rcode;
    activations(t, &in, &o);
    llmmem__casts_compute(t, &in, &o);
    llmmem__loss_compute(t, &in, &o);
    llmmem__transient_compute(t, &in, &o);
    llmmem__recipes_compute(t, r, &in, &o);
    if (!classic) { /* the mixers' own working sets (saved_kinds.c) */
        uint64_t fwd, ckpt, bwd;
        llmmem__saved_kinds_transients(m, &in.rc, (uint64_t)c->micro_batch_size, in.s, &fwd, &ckpt, &bwd, &o);
        t->fwd_layer_transient = t->checkpointing ? ckpt : fwd;
        t->bwd_transient = llmmem__max(t->bwd_transient, bwd);
        if (t->fwd_layer_transient)
            llmmem__result_term(r, "forward_mixer_transient",
                                "the largest non-attention mixer's forward working set beyond what it saves "
                                "(checkpointed: all of it), torch fallback [saved_kinds.c, state.c]",
                                t->fwd_layer_transient);
    }
    explain_inputs(r, t, &in);
    if (!classic)
        llmmem__saved_kinds_explain(r, m, c, &in.rc, (uint64_t)c->micro_batch_size, in.s, &o);
    t->workspace = cublas_workspace(c);
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "training estimate overflows 64-bit byte counts (micro_batch_size %lld x "
                             "seq_len %lld on %lld parameters)",
                             (long long)c->micro_batch_size, (long long)c->seq_len, (long long)m->params);
    return LLMMEM_OK;
}
