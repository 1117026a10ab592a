/* Training recipes that change when tensors live rather than which exist:
 * activation offloading (which checkpoint inputs stay on the GPU), the
 * optimizer step fused into backward (gradients freed as they go), paged
 * optimizer state (CUDA managed memory) and the QLoRA load-and-quantise peak.
 * phases.c reads the fields this file fills. */
#include "train/train.h"

int llmmem__recipes_check(const struct llmmem_model *m, const struct llmmem_config *c, unsigned caps)
{
    (void)m;
    if (c->activation_offloading != LLMMEM__AOFF_NONE && c->checkpointing != LLMMEM__CKPT_FULL)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "activation_offloading %s needs activation_checkpointing full: torchtune's "
                             "recipes raise without it, and offloading every saved tensor is not modelled",
                             c->activation_offloading == LLMMEM__AOFF_STREAMS ? "streams" : "save_on_cpu");
    if ((c->loss == LLMMEM__LOSS_TORCHTUNE_CHUNKED && c->activation_profile != LLMMEM__PROFILE_TORCHTUNE) ||
        (c->loss == LLMMEM__LOSS_LITGPT_CHUNKED && c->activation_profile != LLMMEM__PROFILE_LITGPT))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "loss %s is the %s model's chunked output head; set activation_profile %s",
                             c->loss == LLMMEM__LOSS_TORCHTUNE_CHUNKED ? "torchtune_chunked" : "litgpt_chunked",
                             c->loss == LLMMEM__LOSS_TORCHTUNE_CHUNKED ? "torchtune" : "litgpt",
                             c->loss == LLMMEM__LOSS_TORCHTUNE_CHUNKED ? "torchtune" : "litgpt");
    if (c->optimizer_in_backward && c->grad_accum_steps > 1)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "optimizer_in_backward steps each parameter as its gradient is ready: it cannot "
                             "accumulate gradients (gradient_accumulation_steps %lld); torchtune raises too",
                             (long long)c->grad_accum_steps);
    if (c->optimizer_in_backward && !(caps & LLMMEM__CAP_OPTIM_IN_BWD))
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "optimizer_in_backward is modelled for one GPU (engine single); under a "
                             "distributed engine the gradient reduction interacts with the hooks");
    if (c->liger_kernels) {
        /* apply_liger_kernel_to_{llama,mistral,qwen2,qwen3}: the Llama-style modules */
        bool llama_like = m->family == LLMMEM__FAM_LLAMA && m->norm == LLMMEM__NORM_RMS &&
                          m->act == LLMMEM__ACT_SILU_GLU && !llmmem__saved_has_moe(m) && m->vision_params == 0;
        if (!llama_like || c->activation_profile == LLMMEM__PROFILE_TORCHTUNE ||
            c->activation_profile == LLMMEM__PROFILE_LITGPT)
            return llmmem__error(LLMMEM_E_UNSUPPORTED,
                                 "liger_kernels is modelled for HF Llama-style models (llama, mistral, qwen2, "
                                 "qwen3: RMSNorm, SiLU-gated MLP); model_type \"%s\" with this profile is not",
                                 m->model_type);
        if (c->compile != LLMMEM__COMPILE_NONE)
            return llmmem__error(LLMMEM_E_UNSUPPORTED, "liger_kernels under compile is not modelled");
    }
    if (c->checkpointing == LLMMEM__CKPT_SELECTIVE_OP) {
        bool llama_like = m->family == LLMMEM__FAM_LLAMA && m->norm == LLMMEM__NORM_RMS &&
                          m->act == LLMMEM__ACT_SILU_GLU && !m->qk_norm && !m->parallel_block;
        if (!llama_like || llmmem__saved_has_moe(m) || m->vision_params > 0)
            return llmmem__error(LLMMEM_E_UNSUPPORTED,
                                 "activation_checkpointing selective_op is modelled for dense Llama-style layers "
                                 "(seven matmuls in q, k, v, o, gate, up, down order); model_type \"%s\" is not",
                                 m->model_type);
        if (!(caps & LLMMEM__CAP_TORCH_RECOMPUTE))
            return llmmem__error(LLMMEM_E_UNSUPPORTED,
                                 "activation_checkpointing selective_op is torch op-level SAC; Megatron engines "
                                 "use selective (recompute_granularity selective)");
    }
    if (c->activation_offloading != LLMMEM__AOFF_NONE && !(caps & LLMMEM__CAP_TORCH_RECOMPUTE))
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "activation_offloading with Megatron engines is not modelled");
    return LLMMEM_OK;
}

/* ---- op-level selective activation checkpointing --------------------------------- */

/* torch.utils.checkpoint with create_selective_checkpoint_contexts and
 * torchtitan's policy (parallelisms/parallelize_llama.py _save_list,
 * _get_custom_policy): the outputs of aten.mm are MUST_SAVE except every
 * second one in a layer, the flash/efficient attention outputs are
 * MUST_SAVE, everything else PREFER_RECOMPUTE. A Llama layer runs its mms in
 * the order q, k, v, o, gate, up, down: q, v, gate and the down projection's
 * output are kept, with the attention output and logsumexp and the layer's
 * input (the checkpoint's _NoopSaveInputs). The rest of the layer is rebuilt
 * in its backward (phases.c counts that as under full checkpointing). */
uint64_t llmmem__recipes_sac_layer(const struct llmmem_model *m, const llmmem__recipe *rc)
{
    const uint64_t h = (uint64_t)m->hidden_size, a = (uint64_t)m->num_heads, k = (uint64_t)m->num_kv_heads;
    const uint64_t d = (uint64_t)m->head_dim, f = (uint64_t)m->intermediate_size, cb = rc->cb;
    return rc->rb * h + cb * (a * d + k * d + a * d + f + h) + 4 * a;
}

/* ---- activation offloading ------------------------------------------------------ */

/* Which checkpoint inputs stay on the GPU. The checkpoint keeps each layer's
 * inputs through _NoopSaveInputs (torch/utils/checkpoint.py), outside the
 * checkpoint's own hooks, so an outer saved_tensors_hooks sees them:
 *  - streams: torchtune training/_activation_offloading.py OffloadActivations
 *    (TRL copies it): copies each saved tensor >= 1024 B to pinned CPU memory
 *    on a side stream and keeps the last max_fwd_stash_size = 5 packed ids
 *    alive until their copy ends; a checkpointed layer packs two (the 0-size
 *    dummy and its input), so the inputs of the last three layers are on the
 *    GPU at the end of forward. In backward a brought-back tensor lives until
 *    the next autograd node's hook (bwd_tensor_stash): two at a time.
 *  - save_on_cpu: torch.autograd.graph.save_on_cpu(pin_memory=True) copies at
 *    pack time and brings one back per use: none stays in forward, one in
 *    backward. */
static void offload_residency(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    const uint64_t L = (uint64_t)(t->layers > 0 ? t->layers : 1);
    t->ckpt_live_fwd = L;
    t->ckpt_live_bwd = L;
    if (in->c->activation_offloading == LLMMEM__AOFF_NONE || !t->checkpointing)
        return;
    bool streams = in->c->activation_offloading == LLMMEM__AOFF_STREAMS;
    t->ckpt_live_fwd = llmmem__min(L, streams ? 3 : 0);
    t->ckpt_live_bwd = llmmem__min(L, streams ? 2 : 1);
    t->host_offload = llmmem__mul(o, t->ckpt_layer, L);
    /* both copy into pinned host tensors (OffloadActivations use_pin_memory=True:
     * torch.empty_like(pin_memory=True); save_on_cpu(pin_memory=True)), one block
     * of the pinned allocator each, all alive at the end of forward */
    t->host_pinned = llmmem__mul(o, llmmem__pinned_block(t->ckpt_layer), L);
    /* The offloading context covers the whole model forward but the output
     * head (get_act_offloading_ctx_manager wraps it in a NoOpManager): the
     * final RMSNorm's fp32 input, rstd and (when its scale trains) 16-bit
     * normed tensor go to the host too, and come back only when its backward
     * runs, after the loss's. */
    if (streams && in->m->norm == LLMMEM__NORM_RMS) {
        const uint64_t h = (uint64_t)in->m->hidden_size;
        uint64_t norm = llmmem__mul(o, in->T, 4 * h + 4 + (in->rc.full_ft ? in->rc.cb * h : 0));
        const bool all = norm <= t->act_other;
        norm = llmmem__min(norm, t->act_other);
        t->act_other -= norm;
        t->host_offload = llmmem__add(o, t->host_offload, norm);
        /* three tensors (fp32 input, rstd, the normed one), a pinned block each */
        uint64_t pinned = !all ? norm
                               : llmmem__add(o, llmmem__pinned_block(llmmem__mul(o, in->T, 4 * h)),
                                             llmmem__add(o, llmmem__pinned_block(llmmem__mul(o, in->T, 4)),
                                                         llmmem__pinned_block(llmmem__mul(
                                                             o, in->T, in->rc.full_ft ? in->rc.cb * h : 0))));
        t->host_pinned = llmmem__add(o, t->host_pinned, pinned);
    }
}

/* ---- optimizer step in backward ------------------------------------------------- */

/* torchtune training/memory.py register_optim_in_bwd_hooks (and torch's
 * _apply_optimizer_in_backward): one optimizer per parameter, stepped by a
 * post-accumulate-grad hook that then sets .grad to None. A gradient exists
 * only from its AccumulateGrad to its step: one parameter's at a time, plus
 * that step's temporaries (the optimizer over a single tensor). A weight used
 * twice (a tied head and embedding) has one AccumulateGrad node, which runs
 * once all its inputs are summed in its input buffer: the head's gradient is
 * held from the loss to the embedding's backward at the end. */
static void largest_tensor(uint64_t *layer, uint64_t *other, const llmmem__train_in *in)
{
    *layer = 0;
    *other = 0;
    for (int i = 0; i < in->ts->n; i++) {
        const llmmem__tensor *x = &in->ts->t[i];
        uint64_t n = (uint64_t)x->rows * (uint64_t)x->cols;
        if (x->kind == LLMMEM__T_EMBED || x->kind == LLMMEM__T_HEAD)
            *other = llmmem__max(*other, n);
        else
            *layer = llmmem__max(*layer, n);
    }
}

/* The step temporaries of the optimizer over one tensor of n elements. */
static uint64_t step_one(const llmmem__train_in *in, const llmmem__states *st, int64_t rows, int64_t cols,
                         llmmem__ovf *o)
{
    llmmem__tensors one = {.n = 1, .t = {{.name = "p", .kind = LLMMEM__T_MLP, .rows = rows, .cols = cols,
                                          .count = 1, .linear = true}}};
    llmmem__optim_bytes ob;
    if (llmmem__optim_compute(&ob, (int)in->c->optimizer, (int)in->c->optimizer_impl, &one, NULL,
                              st->state_bytes, o))
        return 0;
    return ob.transient;
}

static void optim_in_backward(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    const llmmem__states *st = &t->st;
    if (!in->c->optimizer_in_backward)
        return;
    t->optim_in_bwd = true;
    const uint64_t gb = (uint64_t)st->grad_bytes;
    uint64_t layer_n, other_n;
    if (in->rc.lora) {
        /* adapters: at most a layer's adapters at a time; no embedding gradient */
        layer_n = (uint64_t)st->trainable / (uint64_t)(t->layers > 0 ? t->layers : 1);
        t->grad_inflight = llmmem__mul(o, layer_n, gb);
        t->step_inflight = step_one(in, st, 1, (int64_t)layer_n, o);
        return;
    }
    largest_tensor(&layer_n, &other_n, in);
    t->grad_inflight = llmmem__mul(o, layer_n, gb);
    t->step_inflight = step_one(in, st, 1, (int64_t)layer_n, o);
    t->grad_inflight_end = llmmem__add(o, llmmem__mul(o, other_n, gb), step_one(in, st, 1, (int64_t)other_n, o));
    if (in->m->tie_embeddings)
        t->grad_held = llmmem__mul3(o, (uint64_t)in->m->vocab_size, (uint64_t)in->m->hidden_size, gb);
}

/* ---- QLoRA: loading and quantising ---------------------------------------------- */

/* The weights are quantised one at a time as they reach the GPU, so the load
 * peaks at the final weights plus one 16-bit weight and its quantisation
 * temporaries (the largest quantised Linear):
 *  - bitsandbytes (transformers Bnb4BitHfQuantizer, Lightning
 *    BitsandbytesPrecision): Params4bit._quantize / functional.quantize_4bit
 *    on the 16-bit copy: fp32 absmax per 64 and, with double quantisation,
 *    its centred copy before quantize_blockwise (8 B per 64 elements);
 *  - torchao to_nf4 (torchtune LoRALinear quantize_base):
 *    convert_to_norm_float_weight keeps the 16-bit input, the scaled blocks
 *    and one uint8 index per element, and quantises in chunks of 2^20
 *    elements against the 16 NF4 values (a 16 x 2^20 16-bit difference).
 * torchtune logs and resets the peak after model setup
 * (training.get_memory_stats), so its step figures do not include this. */
static void qlora_load_peak(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    if (!in->rc.qlora || in->c->peak_scope != LLMMEM__SCOPE_PROCESS)
        return;
    const uint64_t n = in->qlin_largest, cb = in->rc.cb;
    uint64_t extra;
    if (in->c->activation_profile == LLMMEM__PROFILE_TORCHTUNE)
        extra = llmmem__add(o, llmmem__mul(o, n, 2 * cb + 1), 16 * cb * (UINT64_C(1) << 20));
    else
        extra = llmmem__add(o, llmmem__mul(o, n, cb), 8 * llmmem__ceil_div(n, 64));
    t->load_peak = llmmem__add(o, t->st.weights, extra);
}

void llmmem__recipes_compute(llmmem__train *t, struct llmmem_result *r, const llmmem__train_in *in,
                             llmmem__ovf *o)
{
    offload_residency(t, in, o);
    optim_in_backward(t, in, o);
    t->managed = t->st.managed;
    qlora_load_peak(t, in, o);
    if (t->host_offload)
        llmmem__result_note(r, "activation offloading: %llu checkpoint inputs on the GPU in forward, %llu in "
                               "backward, the rest in pinned host memory (host_pinned_bytes: one pinned "
                               "block, a power of two, per tensor)",
                            (unsigned long long)t->ckpt_live_fwd, (unsigned long long)t->ckpt_live_bwd);
}

/* ---- --explain ------------------------------------------------------------------ */

void llmmem__recipes_explain(struct llmmem_result *r, const llmmem__train *t, const struct llmmem_config *c)
{
    if (c->compile != LLMMEM__COMPILE_NONE)
        llmmem__result_term(r, "compiled_layer_saved",
                            "per layer: input, rstd, norm outputs, q/k/v/out/lse, residual, gate/up(/product) "
                            "(torch/_functorch/partitioners.py min_cut_rematerialization_partition; compile.c)",
                            t->act_layer);
    else if (llmmem__frameworks_own(c))
        llmmem__result_term(r, "framework_layer_saved",
                            c->activation_profile == LLMMEM__PROFILE_TORCHTUNE
                                ? "per layer, torchtune modules: fp32 RMSNorm input, expanded GQA k/v, SDPA "
                                  "q/k/v/out/lse, w1/silu/w3/product (torchtune/modules; frameworks.c torchtune_layer)"
                                : "per layer, litgpt/model.py: fp32 RMSNorm input, qkv view/copies, SDPA "
                                  "q/k/v/out/lse, y copy, MLP (frameworks.c litgpt_layer)",
                            t->act_layer);
    if (t->loss_grad_accum)
        llmmem__result_term(r, "loss_head_grad_accumulation",
                            "2 x V x h x grad bytes: head weight gradient sum + newest chunk's "
                            "(autograd InputBuffer::add; loss.c loss_head_grad_accum)",
                            t->loss_grad_accum);
    if (t->host_offload)
        llmmem__result_term(r, "offloaded_checkpoint_inputs",
                            c->activation_offloading == LLMMEM__AOFF_STREAMS
                                ? "host: L x T x h x residual bytes; GPU keeps 3 in forward, 2 in backward "
                                  "(torchtune training/_activation_offloading.py OffloadActivations; recipes.c)"
                                : "host: L x T x h x residual bytes; GPU keeps 1 in backward "
                                  "(torch.autograd.graph.save_on_cpu; recipes.c)",
                            t->host_offload);
    if (t->optim_in_bwd)
        llmmem__result_term(r, "optimizer_in_backward_gradient",
                            "one parameter's gradient + step temporaries at a time; a tied head's gradient "
                            "held to the end (torchtune training/memory.py register_optim_in_bwd_hooks; "
                            "recipes.c optim_in_backward)",
                            llmmem__add(&(llmmem__ovf){false}, t->grad_inflight, t->grad_held));
    if (t->managed)
        llmmem__result_term(r, "paged_optimizer_state",
                            "optimizer state of tensors >= 1e5 elements in cudaMallocManaged memory "
                            "(bitsandbytes optim/optimizer.py get_state_buffer): managed_bytes",
                            t->managed);
    if (t->load_peak)
        llmmem__result_term(r, "qlora_load_peak",
                            c->activation_profile == LLMMEM__PROFILE_TORCHTUNE
                                ? "weights + largest quantised Linear x (2 x cb + 1) + 2^20 x 16 x cb "
                                  "(torchao nf4_tensor.py convert_to_norm_float_weight; recipes.c)"
                                : "weights + largest quantised Linear x (cb + 8/64) (bitsandbytes "
                                  "functional.py quantize_4bit; recipes.c qlora_load_peak)",
                            t->load_peak);
}
