/* PyTorch FSDP (1: FlatParameter units, torch/distributed/fsdp/_flat_param.py,
 * _runtime_utils.py; 2: fully_shard, torch/distributed/fsdp/_fully_shard/
 * _fsdp_param_group.py, _fsdp_collectives.py, _fsdp_state.py): sharding
 * strategies and reshard_after_forward, the mixed-precision policy (the dtype
 * units are all-gathered and computed in, the reduce-scatter dtype), the
 * unsharded units alive at each point of the step, the reduce-scatter inputs
 * and CPU offload. The wrap assumed is the usual one: each decoder layer is a
 * unit, the root holds the embedding, final norm and head; with
 * fsdp_custom_sharded_layers the embedding and the head are units of their
 * own (torchtune training/_distributed.py shard_model, custom_sharded_layers
 * ["tok_embeddings", "output"]) and the root keeps the final norm. */
#include "engines/engines.h"

#include <string.h>

/* Shard group: all data-parallel ranks, or the ranks of one node for
 * HYBRID_SHARD (replicated across nodes; api.py ShardingStrategy), 1 for
 * NO_SHARD. */
static int fsdp_shard_group(int64_t *shard, const llmmem__layout *l, int strat)
{
    *shard = l->dp;
    if (strat == LLMMEM__FSDP_NO_SHARD) {
        *shard = 1;
    } else if (strat == LLMMEM__FSDP_HYBRID_SHARD) {
        *shard = l->per_node;
        if (l->dp % *shard != 0)
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "hybrid_shard: data_parallel_size = %lld is not a multiple of the "
                                 "shard group (gpus_per_node) = %lld",
                                 (long long)l->dp, (long long)*shard);
    }
    return LLMMEM_OK;
}

/* One FSDP estimate: the training model being sharded and the unit buffers. */
typedef struct fsdp_run {
    llmmem__train *t; /* the training model being sharded (the skeleton's) */
    llmmem__engine_extra *x; /* the skeleton's (engines.h) */
    llmmem__ovf o;
    int strat;
    int version;            /* 1 or 2 */
    int64_t reshard;        /* FSDP2 reshard_after_forward: 0 keep, 1 reshard, k: to k ranks */
    bool gathers;           /* world > 1: all-gathers allocate their own output buffers */
    uint64_t N;             /* ranks of the shard group */
    uint64_t P;             /* parameters */
    uint64_t sb;            /* bytes per stored (sharded) parameter element */
    uint64_t ub;            /* bytes per unsharded element (MixedPrecisionPolicy.param_dtype) */
    uint64_t rb;            /* bytes per reduce-scatter element (reduce_dtype) */
    uint64_t layer_params;  /* parameters of one decoder-layer unit */
    uint64_t root_params;   /* parameters of the root unit (embedding, final norm, head) */
    uint64_t head_params;   /* the head's weight (the root's first gradient in backward) */
    uint64_t unit, root;    /* unsharded bytes of a layer unit / of the root */
    uint64_t layer_gp, root_gp, head_gp, side_gp; /* elements with a gradient (trainable) of a
                                                     layer unit, the root, the head, a side unit */
    uint64_t kept;          /* layer units' parameters kept from forward to backward */
    uint64_t rs;            /* a layer unit's reduce-scatter input */
    uint64_t root_rs;       /* the root's reduce-scatter input (end of backward) */
    uint64_t pinned, pageable; /* host RAM per node */
    uint64_t sharded;       /* bytes per GPU that shrink as 1/dp */
    bool lora;              /* LoRA/QLoRA: the base weights are frozen */
    bool separate;          /* fsdp_custom_sharded_layers: embedding and head are units */
    bool tied;              /* ... and the head is the embedding's weight (one unit) */
    uint64_t side_unit;     /* ... the embedding's (= an untied head's) unsharded bytes */
    uint64_t side_rs;       /* ... its reduce-scatter input */
    bool units;             /* the model is split into units (not NO_SHARD, not FSDP1 on one rank) */
} fsdp_run;
LLMMEM__ENGINE_STATE_FITS(fsdp_run);

/* Parameters of one decoder-layer unit: the per-layer gradient bytes / the
 * stored bytes per element; under LoRA (frozen layers are still gathered)
 * P / (layers + 1), split evenly. */
static uint64_t fsdp_layer_params(const fsdp_run *f)
{
    const uint64_t L = (uint64_t)(f->t->layers > 0 ? f->t->layers : 1);
    const uint64_t gb = (uint64_t)(f->t->st.grad_bytes > 0 ? f->t->st.grad_bytes : 4);
    uint64_t n = f->t->st.trainable == f->t->st.params ? f->t->layer_grad / gb : 0;
    return n ? n : f->P / (L + 1);
}

/* Unsharded units in MixedPrecisionPolicy.param_dtype: a decoder layer (layer
 * params x ub) and the root, which holds the embedding, final norm and head
 * ((P - layer params x L) x ub). With custom_sharded_layers the embedding and
 * an untied head (vocab x hidden each) leave the root: fully_shard on each,
 * so the root keeps the final norm (torchtune shard_model). */
static void fsdp_unit_sizes(fsdp_run *f, const struct llmmem_model *m)
{
    const uint64_t L = (uint64_t)(f->t->layers > 0 ? f->t->layers : 1);
    f->layer_params = fsdp_layer_params(f);
    f->root_params = llmmem__sub0(f->P, llmmem__mul(&f->o, f->layer_params, L));
    const uint64_t vh = llmmem__mul(&f->o, (uint64_t)m->vocab_size, (uint64_t)m->hidden_size);
    f->head_params = llmmem__min(f->root_params, vh);
    if (f->separate) {
        const uint64_t sides = llmmem__mul(&f->o, f->head_params, f->tied ? 1 : 2);
        f->root_params = llmmem__sub0(f->root_params, sides);
        f->side_unit = llmmem__mul(&f->o, f->head_params, f->ub);
    }
    f->unit = llmmem__mul(&f->o, f->layer_params, f->ub);
    f->root = llmmem__mul(&f->o, f->root_params, f->ub);
    /* A LoRA/QLoRA base is frozen: no gradient, not reduce-scattered
     * (_fsdp_collectives.py foreach_reduce takes the params with a gradient);
     * the trainable elements are the model's gradient bytes (the adapters) /
     * grad bytes, before sharding. */
    const bool frozen = f->lora;
    const uint64_t gb = (uint64_t)(f->t->st.grad_bytes > 0 ? f->t->st.grad_bytes : 4);
    f->layer_gp = frozen ? f->t->layer_grad / gb : f->layer_params;
    f->root_gp = frozen ? f->t->other_grad / gb : f->root_params;
    f->head_gp = frozen ? llmmem__min(f->head_params, f->root_gp) : f->head_params;
    f->side_gp = frozen || !f->separate ? 0 : f->head_params;
}

/* Sharded params + masters + grads + optimizer state of one rank. */
static uint64_t fsdp_rank_states(fsdp_run *f)
{
    const llmmem__states *st = &f->t->st;
    return llmmem__add(&f->o, llmmem__add(&f->o, st->weights, st->master),
                       llmmem__add(&f->o, st->grads, st->optim));
}

/* States sharded over the shard group, 1/N each (FlatParameter / DTensor
 * shards, in the stored dtype: the reduce-scatter output is cast back to it,
 * _fsdp_collectives.py foreach_reduce). The root's sharded gradients appear
 * only at the end of backward, after its reduce-scatter; an untied head unit
 * of its own has its sharded gradient from its post-backward on (the first
 * in backward). */
static void fsdp_shard_states(fsdp_run *f, bool units)
{
    const uint64_t gb = (uint64_t)(f->t->st.grad_bytes > 0 ? f->t->st.grad_bytes : 4);
    const uint64_t head_grad =
        llmmem__min(f->t->other_grad, llmmem__mul(&f->o, f->head_params, gb));
    llmmem__states *st = &f->t->st;
    st->weights = llmmem__ceil_div(st->weights, f->N);
    st->master = llmmem__ceil_div(st->master, f->N);
    st->grads = llmmem__ceil_div(st->grads, f->N);
    st->optim = llmmem__ceil_div(st->optim, f->N);
    st->optim_transient = llmmem__ceil_div(st->optim_transient, f->N);
    /* a paged (bitsandbytes) optimizer steps the sharded parameters: its state is a shard's */
    f->t->managed = llmmem__ceil_div(f->t->managed, f->N);
    f->t->layer_grad = llmmem__ceil_div(f->t->layer_grad, f->N);
    f->t->other_grad = !units                     ? llmmem__ceil_div(f->t->other_grad, f->N)
                       : f->separate && !f->tied ? llmmem__ceil_div(head_grad, f->N)
                                                 : 0;
    f->sharded = f->N > 1 || f->strat != LLMMEM__FSDP_NO_SHARD ? fsdp_rank_states(f) : 0;
}

/* Layer units (and the embedding and head units of their own) kept unsharded
 * from their forward to their backward: none when resharded after forward
 * (FULL_SHARD, FSDP2 True), all of them when not (SHARD_GRAD_OP, FSDP2
 * False), a 1/k slice each when FSDP2 reshards to k ranks (_fsdp_param.py
 * to_sharded_post_forward, in param_dtype). */
static uint64_t fsdp_kept_units(fsdp_run *f)
{
    const uint64_t L = (uint64_t)(f->t->layers > 0 ? f->t->layers : 1);
    const uint64_t sides = llmmem__mul(&f->o, f->side_unit, f->tied ? 1 : 2);
    const uint64_t all = llmmem__add(&f->o, llmmem__mul(&f->o, f->unit, L), sides);
    if (f->reshard == 0)
        return all;
    if (f->reshard >= 2)
        return llmmem__ceil_div(all, (uint64_t)f->reshard);
    return 0;
}

/* The unsharded parameters alive at each point (both versions keep the root
 * unsharded from its forward to its backward: FSDP2 _fsdp_state.py lazy init
 * sets the root's reshard_after_forward False, FSDP1 _runtime_utils.py
 * _post_forward_reshard skips the root):
 *  - forward, at the loss (inside the root's forward): root + kept units; FSDP2
 *    also still holds the last layer's all-gather output, freed by the root's
 *    post-forward (_fsdp_state.py _post_forward: comm_ctx.all_gather_state);
 *  - backward, at its start: root + kept + the unit prefetched for the last
 *    layer's backward (FSDP2 _backward_prefetch, FSDP1 BACKWARD_PRE);
 *  - inside a layer's backward: root + kept + the layer's unit + the next one
 *    prefetched (a kept unit is already unsharded: no prefetch).
 * With an embedding and a head unit of their own (custom_sharded_layers) the
 * last all-gather of forward is the head's, and backward starts with the head
 * regathered for its backward beside the last layer prefetched; the head is
 * resharded at its post-backward, before the layers' backward. */
static void fsdp_gathered_params(fsdp_run *f)
{
    f->kept = fsdp_kept_units(f);
    const uint64_t in_flight = f->gathers ? f->unit : 0;
    const uint64_t base = llmmem__add(&f->o, f->root, f->kept);
    const uint64_t head = f->separate ? f->side_unit : 0;
    /* FSDP2's last all-gather of forward: the last layer's, or the head's */
    const uint64_t last_gather = f->separate ? (f->gathers ? head : 0) : in_flight;
    const uint64_t last = f->version == 2 ? last_gather : 0;
    f->x->fwd[LLMMEM_C_GATHERED_PARAMS] = llmmem__add(&f->o, base, f->reshard == 0 ? 0 : last);
    f->x->bwd_start[LLMMEM_C_GATHERED_PARAMS] =
        llmmem__add(&f->o, base, f->reshard == 0 ? 0 : llmmem__add(&f->o, in_flight, head));
    f->x->bwd_layer[LLMMEM_C_GATHERED_PARAMS] =
        f->reshard == 0 ? base : llmmem__add(&f->o, base, llmmem__add(&f->o, f->unit, in_flight));
}

/* Gradients outside the sharded ones. The head's unsharded gradient (ub) is
 * made at the start of backward and waits for the root's reduce-scatter at
 * its end (the root's post-backward runs last, _fsdp_state.py
 * _root_post_backward_final_callback); a layer's unsharded gradients (ub)
 * are reduce-scattered when its backward ends, into a reduce_dtype input of
 * the whole unit (foreach_reduce: reduce_scatter_input, kept in
 * reduce_scatter_state until the next unit's post-backward frees it; FSDP1
 * casts the flat gradient to reduce_dtype the same way). The end of backward:
 * the root's unsharded gradients and its reduce-scatter input. An untied
 * head unit of its own is reduce-scattered at its post-backward, before the
 * layers' backward; the embedding unit (also a tied head's) is the last
 * before the root: its unsharded gradient and reduce-scatter input beside
 * the root's at the end. */
static void fsdp_gradients(fsdp_run *f)
{
    const uint64_t head_grad = f->separate && !f->tied ? 0 : llmmem__mul(&f->o, f->head_gp, f->ub);
    f->rs = llmmem__mul(&f->o, f->layer_gp, f->rb);
    f->root_rs = llmmem__mul(&f->o, f->root_gp, f->rb);
    f->side_rs = llmmem__mul(&f->o, f->side_gp, f->rb);
    f->x->bwd_layer[LLMMEM_C_GRADIENTS] =
        llmmem__add(&f->o, head_grad, llmmem__mul(&f->o, f->layer_gp, f->ub));
    f->x->bwd_layer[LLMMEM_C_COMM_BUFFERS] = f->rs;
    f->x->bwd_end[LLMMEM_C_GRADIENTS] =
        llmmem__mul(&f->o, llmmem__add(&f->o, f->root_gp, f->side_gp), f->ub);
    f->x->bwd_end[LLMMEM_C_COMM_BUFFERS] = llmmem__add(&f->o, f->root_rs, f->side_rs);
    f->x->end_point = true;
}

/* Pinned bytes of the sharded parameters (and of their gradients) of one rank:
 * FSDP2 pins each parameter's padded dim-0 shard (_fsdp_param.py
 * _init_sharded_param: padded_sharded_param.pin_memory()), and its gradient
 * arrives by a non_blocking copy to the CPU (_fsdp_collectives.py
 * foreach_reduce), a pinned block too; FSDP1 pins each unit's flat shard and
 * pre-allocates a pinned gradient of the same size for every unit, frozen or
 * not (_flat_param.py shard: _local_shard.pin_memory(), _cpu_grad). Each is a
 * block of torch's pinned allocator (a power of two). */
static uint64_t fsdp_pinned_shards(fsdp_run *f, const struct llmmem_model *m, bool grads)
{
    if (f->version == 1) {
        const uint64_t L = (uint64_t)(f->t->layers > 0 ? f->t->layers : 1);
        uint64_t unit = llmmem__pinned_block(llmmem__mul(&f->o, llmmem__ceil_div(f->layer_params, f->N), f->sb));
        uint64_t root = llmmem__pinned_block(llmmem__mul(&f->o, llmmem__ceil_div(f->root_params, f->N), f->sb));
        return llmmem__add(&f->o, llmmem__mul(&f->o, unit, L), root);
    }
    if (grads && f->lora) /* adapters: many small tensors, their rounding not modelled */
        return f->t->st.grads;
    uint64_t sum = 0;
    for (int i = 0; i < m->tensors.n; i++) {
        const llmmem__tensor *x = &m->tensors.t[i];
        const uint64_t rows = llmmem__ceil_div((uint64_t)x->rows, f->N);
        const uint64_t b = llmmem__pinned_block(llmmem__mul3(&f->o, rows, (uint64_t)x->cols, f->sb));
        sum = llmmem__add(&f->o, sum, llmmem__mul(&f->o, b, (uint64_t)x->count));
    }
    return sum;
}

/* CPUOffload(offload_params=True) / CPUOffloadPolicy: sharded params, grads
 * and the optimizer (which then steps on the CPU) live in host RAM, per rank x
 * ranks per node: the parameters and gradients pinned (FSDP1 always, FSDP2
 * with pin_memory, its default), the optimizer state pageable (torch.optim's
 * zeros_like of a CPU parameter).
 * Without units (NO_SHARD, or FSDP1 on one rank) nothing is gathered and freed:
 * each handle's pre_unshard copies its whole flat parameter to the GPU
 * (torch 2.11 fsdp/_flat_param.py:1336 flat_param_to(self.device)) and the
 * views autograd saves keep the copy until that unit's backward, so the
 * model's parameters are on the GPU through the step: counted as weights. */
static void fsdp_cpu_offload(fsdp_run *f, const struct llmmem_model *m, const struct llmmem_config *c,
                             uint64_t per_node)
{
    const llmmem__states *st = &f->t->st;
    const bool pin = f->version == 1 || c->offload_pin_memory != LLMMEM__TRI_OFF;
    const bool exact = f->version == 2 && !m->tensors.overflow && m->tensors.n > 0;
    uint64_t params = llmmem__add(&f->o, st->weights, st->master), grads = st->grads;
    /* a paged optimizer over CPU parameters keeps ordinary CPU state (bitsandbytes 0.50
     * optim/optimizer.py get_state_buffer: "Paged optimizers are not supported on CPU") */
    uint64_t pinned = 0, pageable = llmmem__add(&f->o, st->optim, f->t->managed);
    f->t->managed = 0;
    if (pin && (exact || f->version == 1) && st->master == 0) {
        pinned = llmmem__add(&f->o, fsdp_pinned_shards(f, m, false),
                             f->version == 1 || st->grads ? fsdp_pinned_shards(f, m, true) : 0);
    } else if (pin) {
        pinned = llmmem__add(&f->o, params, grads);
    } else {
        pageable = llmmem__add(&f->o, pageable, llmmem__add(&f->o, params, grads));
    }
    f->pinned = llmmem__mul(&f->o, pinned, per_node);
    f->pageable = llmmem__mul(&f->o, pageable, per_node);
    f->t->st.weights = f->units ? 0 : llmmem__mul(&f->o, f->P, f->ub);
    f->t->st.master = 0;
    f->t->st.grads = 0;
    f->t->st.optim = 0;
    f->t->st.optim_transient = 0;
    f->t->layer_grad = 0;
    f->t->other_grad = 0;
    f->sharded = 0;
}

/* The engine's terms, once the phases are built. */
static void fsdp_terms(llmmem__engine_run *r)
{
    struct llmmem_result *out = r->out;
    const fsdp_run *f = LLMMEM__ENGINE_STATE(fsdp_run, r);
    const bool units = f->units;
    static const char *const root_all =
        "(embedding + final norm + head params) x param_dtype: the root, kept from its "
        "forward to its post-backward (_fsdp_state.py lazy init; FSDP1 "
        "_post_forward_reshard)";
    static const char *const root_norm =
        "final norm params x param_dtype: the root without the embedding and head units "
        "(custom_sharded_layers), kept from its forward to its post-backward (_fsdp_state.py "
        "lazy init)";
    static const char *const rs_all =
        "one decoder layer's params x reduce_dtype: reduce-scatter input (_fsdp_collectives.py "
        "foreach_reduce)";
    static const char *const rs_lora =
        "one decoder layer's trainable (adapter) params x reduce_dtype: reduce-scatter input "
        "(_fsdp_collectives.py foreach_reduce; a frozen base has no gradient)";
    static const char *const root_rs_all =
        "root params x reduce_dtype, beside the root's unsharded gradients: the end of backward "
        "(_root_post_backward_final_callback)";
    static const char *const root_rs_lora =
        "root trainable (adapter) params x reduce_dtype, beside the root's unsharded gradients: "
        "the end of backward (_root_post_backward_final_callback)";
    if (units) {
        llmmem__result_term(out, "fsdp_root_unsharded", f->separate ? root_norm : root_all,
                            f->root);
        if (f->separate)
            llmmem__result_term(out, "fsdp_embedding_head_unit",
                                "vocab x hidden x param_dtype: the embedding's or the head's unit "
                                "(torchtune shard_model custom_sharded_layers), gathered for the "
                                "head's forward and backward and the embedding's backward",
                                f->side_unit);
        llmmem__result_term(out, "fsdp_unit_unsharded",
                            "one decoder layer's params x param_dtype: the unit computed, and the one "
                            "prefetched (_fsdp_param_group.py wait_for_unshard, _backward_prefetch)",
                            f->unit);
        if (f->kept)
            llmmem__result_term(out, "fsdp_kept_after_forward",
                                "layer units x param_dtype (/ k for reshard_after_forward = k): not "
                                "resharded after forward (SHARD_GRAD_OP, reshard_after_forward)",
                                f->kept);
        llmmem__result_term(out, "fsdp_reduce_scatter", f->lora ? rs_lora : rs_all, f->rs);
        llmmem__result_term(out, "fsdp_root_reduce_scatter", f->lora ? root_rs_lora : root_rs_all,
                            f->root_rs);
    }
    if (f->pinned)
        llmmem__result_term(out, "fsdp_cpu_offload_pinned",
                            "sharded params + grads per rank, pinned blocks (powers of two: FSDP2 one per "
                            "parameter, FSDP1 two per unit) x ranks per node (_fsdp_param.py, _flat_param.py)",
                            f->pinned);
    if (f->pageable)
        llmmem__result_term(out, "fsdp_cpu_offload_pageable",
                            "optimizer state per rank (+ params and grads without pin_memory) x ranks per "
                            "node (host RAM)",
                            f->pageable);
    if ((f->pinned || f->pageable) && !units)
        llmmem__result_note(out, "fsdp_cpu_offload without units (NO_SHARD): each unit's parameters are "
                                 "copied to the GPU for its forward (_flat_param.py pre_unshard) and kept "
                                 "by autograd until its backward: the whole model's parameters are "
                                 "counted on the GPU");
}

/* The options FSDP accepts together (FSDP2 fully_shard: reshard_after_forward
 * an int divides the shard group, excluding 1 and the group itself; FSDP1
 * takes sharding_strategy instead; a policy's param_dtype is the compute
 * dtype). */
static int fsdp_check(const struct llmmem_config *c, int64_t shard)
{
    const int64_t raf = c->fsdp_reshard_after_forward;
    if (raf != -1 && c->fsdp_version == 1)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "reshard_after_forward = %lld with fsdp_version 1: FSDP1 takes "
                             "sharding_strategy (full_shard reshards, shard_grad_op keeps)",
                             (long long)raf);
    if (raf >= 0 && c->fsdp_sharding == LLMMEM__FSDP_SHARD_GRAD_OP && raf != 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "reshard_after_forward = %lld with sharding_strategy shard_grad_op, which "
                             "keeps the units unsharded after forward (reshard_after_forward 0)",
                             (long long)raf);
    if (raf >= 2 && (raf >= shard || shard % raf != 0))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "reshard_after_forward = %lld must divide the shard group of %lld ranks "
                             "and be smaller (fully_shard: a non-trivial divisor)",
                             (long long)raf, (long long)shard);
    const int64_t x = c->fsdp_param_dtype;
    if (x != LLMMEM__DT_AUTO && c->compute_dtype != LLMMEM__DT_AUTO && c->compute_dtype != x &&
        llmmem__dtype_bytes((int)c->compute_dtype) >= llmmem__dtype_bytes((int)x))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "fsdp_param_dtype = %s with compute_dtype = %s: the policy's param_dtype is "
                             "what the units compute in",
                             llmmem_param_enum_name(LLMMEM_P_FSDP_PARAM_DTYPE, x),
                             llmmem_param_enum_name(LLMMEM_P_COMPUTE_DTYPE, c->compute_dtype));
    return LLMMEM_OK;
}

/* The configuration the units compute with: a MixedPrecisionPolicy whose
 * param_dtype differs from the stored dtype runs the model in param_dtype
 * (no autocast copies: the weights already are in that dtype, and
 * cast_forward_inputs makes the residual stream that dtype too) while the
 * optimizer steps the stored shards, which act as the fp32 masters. */
static void fsdp_compute_config(struct llmmem_config *cx, const struct llmmem_config *c)
{
    memcpy(cx, c, sizeof *cx);
    if (c->fsdp_param_dtype == LLMMEM__DT_AUTO || c->fsdp_param_dtype == c->param_dtype)
        return;
    cx->compute_dtype = c->fsdp_param_dtype;
    cx->master_weights = LLMMEM__MASTER_ON;
}

/* The shard group and the options FSDP accepts together, before anything is computed. */
static int fsdp_check_run(llmmem__engine_run *r)
{
    int64_t shard;
    int rc = fsdp_shard_group(&shard, &r->l, (int)r->orig->fsdp_sharding);
    return rc ? rc : fsdp_check(r->orig, shard);
}

/* What the units compute (activations, casts, loss) with the policy's dtype;
 * the skeleton computes the model states in the stored dtype (a second pass
 * when they differ). */
static void fsdp_compute(llmmem__engine_run *r)
{
    fsdp_compute_config(&r->cx_own, &r->c);
    r->cx = &r->cx_own;
}

static int fsdp_shard(llmmem__engine_run *r)
{
    const struct llmmem_config *cfg = r->orig, *c = &r->c;
    fsdp_run *f = LLMMEM__ENGINE_STATE(fsdp_run, r);
    memset(f, 0, sizeof *f);
    f->t = &r->t;
    f->x = &r->x;
    f->strat = (int)cfg->fsdp_sharding;
    f->version = (int)cfg->fsdp_version;
    int64_t shard;
    fsdp_shard_group(&shard, &r->l, f->strat); /* checked by fsdp_check_run */
    /* FSDP1 falls back to NO_SHARD on one rank (fully_sharded_data_parallel.py
     * _init_core_state warns and switches); FSDP2 still all-gathers. */
    f->units = !(f->version == 1 && shard == 1) && f->strat != LLMMEM__FSDP_NO_SHARD;
    f->N = (uint64_t)shard;
    f->P = (uint64_t)r->t.st.params;
    f->gathers = r->l.world > 1;
    f->reshard = f->strat == LLMMEM__FSDP_SHARD_GRAD_OP ? 0
                 : cfg->fsdp_reshard_after_forward < 0 ? 1
                                                       : cfg->fsdp_reshard_after_forward;
    f->sb = (uint64_t)(r->t.st.weight_bytes > 0 ? r->t.st.weight_bytes : 4);
    f->ub = c->fsdp_param_dtype != LLMMEM__DT_AUTO ? (uint64_t)llmmem__dtype_bytes((int)c->fsdp_param_dtype)
                                                   : f->sb;
    f->rb = c->fsdp_reduce_dtype != LLMMEM__DT_AUTO ? (uint64_t)llmmem__dtype_bytes((int)c->fsdp_reduce_dtype)
                                                    : f->ub;
    f->lora = c->lora_rank > 0;
    f->separate = f->units && cfg->fsdp_custom_sharded_layers != 0;
    f->tied = r->m->tie_embeddings != 0;
    fsdp_unit_sizes(f, r->m);
    fsdp_shard_states(f, f->units);
    if (f->units) {
        fsdp_gathered_params(f);
        fsdp_gradients(f);
    }
    if (cfg->fsdp_cpu_offload)
        fsdp_cpu_offload(f, r->m, cfg, (uint64_t)r->l.per_node);
    if (f->o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "FSDP estimate overflows 64-bit byte counts");
    r->host_pinned = f->pinned;
    r->host_pageable = f->pageable;
    r->sharded = f->strat == LLMMEM__FSDP_NO_SHARD ? 0 : f->sharded;
    return LLMMEM_OK;
}

/* ---- the planner ---------------------------------------------------------------- */

/* Every sharding strategy, with and without CPU offload; hybrid shards inside
 * a node and replicates across whole nodes. */
static int fsdp_variants(struct llmmem_config *c, llmmem__plan_visit visit, void *ctx, int pre)
{
    int rc = 0;
    for (int sh = 0; sh <= LLMMEM__FSDP_HYBRID_SHARD && !rc; sh++)
        for (int off = 0; off <= 1 && !rc; off++) {
            c->fsdp_sharding = sh;
            c->fsdp_cpu_offload = off;
            int why = pre;
            if (why < 0 && sh == LLMMEM__FSDP_HYBRID_SHARD &&
                (c->num_gpus <= c->gpus_per_node || c->num_gpus % c->gpus_per_node))
                why = LLMMEM_REJECT_INDIVISIBLE;
            rc = visit(ctx, why);
        }
    return rc;
}

/* Data-parallel traffic by sharding strategy: bytes over the data-parallel
 * link or, for HYBRID_SHARD, full shard inside a node and an all-reduce of
 * the shard across nodes. */
static double fsdp_dp_seconds(const struct llmmem_config *c, const llmmem__dp_traffic *d)
{
    const double n = d->n_dp, G_B = d->G_B, W_B = d->W_B;
    double bytes = 0, secs = 0;
    switch (c->fsdp_sharding) {
    case LLMMEM__FSDP_FULL_SHARD: bytes = d->ga * llmmem__ring(n) * (2 * W_B + G_B); break;
    /* parameters stay gathered from forward to backward */
    case LLMMEM__FSDP_SHARD_GRAD_OP: bytes = d->ga * llmmem__ring(n) * (W_B + G_B); break;
    case LLMMEM__FSDP_NO_SHARD: bytes = 2 * llmmem__ring(n) * G_B; break;
    default: {
        double in = d->gpn < n ? d->gpn : n, across = n / in;
        secs = d->ga * llmmem__ring(in) * (2 * W_B + G_B) / d->intra +
               2 * llmmem__ring(across) * G_B / in / d->inter;
    } break;
    }
    return secs + bytes / d->bw;
}

/* CPUOffload moves both the optimizer and the parameters to the CPU. */
static void fsdp_offloads(const struct llmmem_config *c, int *opt_dev, int *param_dev)
{
    if (c->fsdp_cpu_offload)
        *opt_dev = *param_dev = LLMMEM__OFFLOAD_CPU;
}

static const int fsdp_reads[] = {LLMMEM_P_FSDP_VERSION,
                                 LLMMEM_P_FSDP_SHARDING,
                                 LLMMEM_P_FSDP_CPU_OFFLOAD,
                                 LLMMEM_P_FSDP_PARAM_DTYPE,
                                 LLMMEM_P_FSDP_REDUCE_DTYPE,
                                 LLMMEM_P_FSDP_RESHARD_AFTER_FORWARD,
                                 LLMMEM_P_FSDP_CUSTOM_SHARDED_LAYERS,
                                 LLMMEM_P_OFFLOAD_PIN_MEMORY,
                                 0};
static const int fsdp_plan_options[] = {LLMMEM_P_FSDP_SHARDING, LLMMEM_P_FSDP_CPU_OFFLOAD, 0};

/* Precision: the sharded parameters are the optimizer's
 * (fsdp/_fully_shard/_fsdp_param.py, fsdp/_flat_param.py): with a
 * MixedPrecisionPolicy they are the fp32 master copy, no other. */
const llmmem__engine llmmem__engine_fsdp = {
    .name = "fsdp",
    .fn = "llmmem_estimate_fsdp",
    .gate = LLMMEM_P_ENGINE,
    .value = LLMMEM_ENGINE_FSDP,
    .flags = LLMMEM__CAP_FSDP | LLMMEM__CAP_TORCH_RECOMPUTE,
    .reads = fsdp_reads,
    .precision_source = LLMMEM__STR("FSDP: the sharded parameters are the optimizer's, no separate masters "
                                    "(_fully_shard/_fsdp_param.py, _flat_param.py)"),
    .no_replay = "a multi-GPU engine",
    .check = fsdp_check_run,
    .compute = fsdp_compute,
    .shard = fsdp_shard,
    .terms = fsdp_terms,
    .plan_options = fsdp_plan_options,
    .variants = fsdp_variants,
    .dp_seconds = fsdp_dp_seconds,
    .offloads = fsdp_offloads,
};
