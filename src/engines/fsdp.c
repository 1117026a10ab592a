/* PyTorch FSDP (1: FlatParameter units, torch/distributed/fsdp/_flat_param.py;
 * 2: fully_shard, torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py):
 * sharding strategies, the unsharded all-gather outputs of the unit being
 * computed and of the root, reduce-scatter inputs, mixed-precision dtypes and
 * CPU offload. The wrap assumed is the usual one: each decoder layer is a
 * unit, the root holds the embedding, final norm and head. */
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
    llmmem__train *t; /* the training model being sharded (on the caller's stack) */
    llmmem__engine_extra x;
    llmmem__ovf o;
    int strat;
    uint64_t N;             /* ranks of the shard group */
    uint64_t P;             /* parameters */
    uint64_t gb;            /* bytes per gradient element (reduce dtype) */
    uint64_t ub;            /* bytes per unsharded parameter element */
    uint64_t layer_params;  /* parameters of one decoder-layer unit */
    uint64_t unit, root;    /* unsharded bytes of a layer unit / of the root */
    bool separate;          /* embedding and head wrapped as units of their own */
    uint64_t vh;            /* elements of the embedding (= of an untied head) */
    bool tied;
    uint64_t head_unit;     /* ... the larger of them, unsharded */
    uint64_t rs;            /* reduce-scatter input */
    uint64_t host, sharded; /* host RAM per node; bytes per GPU that shrink as 1/dp */
} fsdp_run;

/* Parameters of one decoder-layer unit: its gradient bytes / grad bytes; under
 * LoRA (frozen layers are still gathered) P / (layers + 1), split evenly. */
static uint64_t fsdp_layer_params(const fsdp_run *f)
{
    const uint64_t L = (uint64_t)(f->t->layers > 0 ? f->t->layers : 1);
    uint64_t n = f->t->st.trainable == f->t->st.params && f->gb ? f->t->layer_grad / f->gb : 0;
    return n ? n : f->P / (L + 1);
}

/* Unsharded units in MixedPrecision.param_dtype: a decoder layer (layer
 * params x ub) and the root, which holds the embedding, final norm and head
 * ((P - layer params x L) x ub). */
static void fsdp_unit_sizes(fsdp_run *f)
{
    const uint64_t L = (uint64_t)(f->t->layers > 0 ? f->t->layers : 1);
    f->layer_params = fsdp_layer_params(f);
    uint64_t root_params = llmmem__sub0(f->P, llmmem__mul(&f->o, f->layer_params, L));
    f->unit = llmmem__mul(&f->o, f->layer_params, f->ub);
    if (f->separate) {
        /* torchtune shard_model(custom_sharded_layers=["tok_embeddings",
         * "output"]): fully_shard on each, so the root keeps the final norm */
        root_params = llmmem__sub0(root_params, llmmem__mul(&f->o, f->vh, f->tied ? 1 : 2));
        f->head_unit = llmmem__mul(&f->o, f->vh, f->ub);
    }
    f->root = llmmem__mul(&f->o, root_params, f->ub);
}

/* Sharded params + masters + grads + optimizer state of one rank. */
static uint64_t fsdp_rank_states(fsdp_run *f)
{
    const llmmem__states *st = &f->t->st;
    return llmmem__add(&f->o, llmmem__add(&f->o, st->weights, st->master),
                       llmmem__add(&f->o, st->grads, st->optim));
}

/* States sharded over the shard group, 1/N each (FlatParameter / DTensor
 * shards). */
static void fsdp_shard_states(fsdp_run *f)
{
    llmmem__states *st = &f->t->st;
    st->weights = llmmem__ceil_div(st->weights, f->N);
    st->master = llmmem__ceil_div(st->master, f->N);
    st->grads = llmmem__ceil_div(st->grads, f->N);
    st->optim = llmmem__ceil_div(st->optim, f->N);
    st->optim_transient = llmmem__ceil_div(st->optim_transient, f->N);
    f->t->layer_grad = llmmem__ceil_div(f->t->layer_grad, f->N);
    f->t->other_grad = llmmem__ceil_div(f->t->other_grad, f->N);
    f->sharded = f->N > 1 || f->strat != LLMMEM__FSDP_NO_SHARD ? fsdp_rank_states(f) : 0;
}

/* The all-gather outputs alive in forward and backward. SHARD_GRAD_OP: not
 * resharded after forward, every unit stays unsharded until the end of
 * backward (api.py SHARD_GRAD_OP): P x ub. Otherwise the root is not
 * resharded after forward; a layer unit is gathered for its forward and again
 * for its backward, with the next one prefetched (FSDP1 limit_all_gathers
 * keeps two in flight; FSDP2 prefetches one). Measured at world size 1: the
 * forward peak (at the loss) holds the root alone; backward holds root + one
 * unit. */
static void fsdp_gathered_params(fsdp_run *f)
{
    if (f->strat == LLMMEM__FSDP_SHARD_GRAD_OP) {
        uint64_t all = llmmem__mul(&f->o, f->P, f->ub);
        f->x.fwd[LLMMEM_C_GATHERED_PARAMS] = all;
        f->x.bwd[LLMMEM_C_GATHERED_PARAMS] = all;
    } else {
        f->x.fwd[LLMMEM_C_GATHERED_PARAMS] = f->root;
        /* separate head unit: regathered for the loss's backward beside the
         * prefetched last layer */
        f->x.bwd[LLMMEM_C_GATHERED_PARAMS] = llmmem__add(&f->o, llmmem__add(&f->o, f->root, f->unit), f->head_unit);
    }
}

/* Reduce-scatter input: one unit's unsharded gradients, layer params x reduce
 * dtype (_fsdp_collectives.py foreach_reduce, reduce_dtype). */
static uint64_t fsdp_reduce_scatter(fsdp_run *f)
{
    return llmmem__mul(&f->o, f->layer_params, f->gb);
}

/* CPUOffload(offload_params=True): sharded params, grads and the optimizer
 * (which then steps on the CPU) live in host RAM: per rank x ranks per node. */
static void fsdp_cpu_offload(fsdp_run *f, uint64_t per_node)
{
    f->host = llmmem__mul(&f->o, fsdp_rank_states(f), per_node);
    f->t->st.weights = 0;
    f->t->st.master = 0;
    f->t->st.grads = 0;
    f->t->st.optim = 0;
    f->t->st.optim_transient = 0;
    f->t->layer_grad = 0;
    f->t->other_grad = 0;
    f->sharded = 0;
}

/* The engine's terms, after llmmem__train_fill. */
static void fsdp_terms(struct llmmem_result *out, const fsdp_run *f, bool unshard_copies)
{
    if (unshard_copies) {
        llmmem__result_term(out, "fsdp_root_unsharded", "(embedding + final norm + head params) x "
                                                        "unsharded dtype: root kept after forward",
                            f->root);
        llmmem__result_term(out, "fsdp_unit_unsharded", "one decoder layer's params x unsharded dtype "
                                                        "(all-gather output)",
                            f->unit);
        llmmem__result_term(out, "fsdp_reduce_scatter", "one decoder layer's params x reduce dtype "
                                                        "(reduce-scatter input)",
                            f->rs);
    }
    if (f->host)
        llmmem__result_term(out, "fsdp_cpu_offload", "sharded params + grads + optimizer per rank x "
                                                     "ranks per node (host RAM)",
                            f->host);
}

int llmmem_estimate_fsdp(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = llmmem__check_args(out, model, cfg, "llmmem_estimate_fsdp");
    if (rc)
        return rc;
    llmmem__layout l;
    fsdp_run f;
    llmmem__train t;
    memset(&f, 0, sizeof f);
    f.t = &t;
    f.strat = (int)cfg->fsdp_sharding;
    int64_t shard;
    if ((rc = llmmem__engine_layout(&l, model, cfg, false, "fsdp")) != 0 ||
        (rc = fsdp_shard_group(&shard, &l, f.strat)) != 0)
        return rc;
    /* FSDP1 falls back to NO_SHARD on one rank (fully_sharded_data_parallel.py
     * _init_core_state warns and switches); FSDP2 still all-gathers. */
    const bool unshard_copies = !(cfg->fsdp_version == 1 && shard == 1) &&
                                f.strat != LLMMEM__FSDP_NO_SHARD;
    llmmem__result_clear(out);
    out->engine = LLMMEM__ENG_FSDP;
    if ((rc = llmmem__train_compute(&t, out, model, cfg)) != 0)
        return rc;
    f.N = (uint64_t)shard;
    f.P = (uint64_t)t.st.params;
    f.gb = (uint64_t)(t.st.grad_bytes > 0 ? t.st.grad_bytes : 4);
    /* Unsharded parameters are in MixedPrecision.param_dtype (the compute
     * dtype when the model trains with masters) else in the stored dtype. */
    f.ub = (uint64_t)(t.st.weight_bytes > 0 ? t.st.weight_bytes : 4);
    f.separate = cfg->fsdp_custom_sharded_layers != 0;
    f.vh = llmmem__mul(&f.o, llmmem__nonneg(model->vocab_size), llmmem__nonneg(model->hidden_size));
    f.tied = model->tie_embeddings;
    fsdp_unit_sizes(&f);
    fsdp_shard_states(&f);
    if (unshard_copies) {
        fsdp_gathered_params(&f);
        f.rs = fsdp_reduce_scatter(&f);
        f.x.bwd[LLMMEM_C_COMM_BUFFERS] = f.rs;
    }
    if (cfg->fsdp_cpu_offload)
        fsdp_cpu_offload(&f, (uint64_t)l.per_node);
    if (f.o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "FSDP estimate overflows 64-bit byte counts");
    if ((rc = llmmem__train_fill(out, &t, &f.x, model, cfg)) != 0)
        return rc;
    fsdp_terms(out, &f, unshard_copies);
    llmmem__engine_keys(out, &l, f.host, 0, f.strat == LLMMEM__FSDP_NO_SHARD ? 0 : f.sharded);
    return LLMMEM_OK;
}
