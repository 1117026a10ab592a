/* PyTorch FSDP (1: FlatParameter units, torch/distributed/fsdp/_flat_param.py;
 * 2: fully_shard, torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py):
 * sharding strategies, the unsharded all-gather outputs of the unit being
 * computed and of the root, reduce-scatter inputs, mixed-precision dtypes and
 * CPU offload. The wrap assumed is the usual one: each decoder layer is a
 * unit, the root holds the embedding, final norm and head. */
#include "engines/engines.h"

#include <string.h>

int llmmem_estimate_fsdp(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = llmmem__check_args(out, model, cfg, "llmmem_estimate_fsdp");
    if (rc)
        return rc;
    llmmem__layout l;
    if ((rc = llmmem__engine_layout(&l, model, cfg, false, "fsdp")) != 0)
        return rc;
    const int strat = (int)cfg->fsdp_sharding;
    /* Shard group: all data-parallel ranks, or the ranks of one node for
     * HYBRID_SHARD (replicated across nodes; api.py ShardingStrategy). */
    int64_t shard = l.dp;
    if (strat == LLMMEM__FSDP_NO_SHARD)
        shard = 1;
    else if (strat == LLMMEM__FSDP_HYBRID_SHARD) {
        shard = l.per_node;
        if (l.dp % shard != 0)
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "hybrid_shard: data_parallel_size = %lld is not a multiple of the "
                                 "shard group (gpus_per_node) = %lld",
                                 (long long)l.dp, (long long)shard);
    }
    /* FSDP1 falls back to NO_SHARD on one rank (fully_sharded_data_parallel.py
     * _init_core_state warns and switches); FSDP2 still all-gathers. */
    const bool v1 = cfg->fsdp_version == 1;
    const bool unshard_copies = !(v1 && shard == 1) && strat != LLMMEM__FSDP_NO_SHARD;
    llmmem__result_clear(out);
    out->engine = LLMMEM__ENG_FSDP;
    llmmem__train t;
    if ((rc = llmmem__train_compute(&t, out, model, cfg)) != 0)
        return rc;
    llmmem__ovf o = {false};
    const uint64_t N = (uint64_t)shard;
    const uint64_t P = (uint64_t)t.st.params;
    const uint64_t gb = (uint64_t)(t.st.grad_bytes > 0 ? t.st.grad_bytes : 4);
    /* Unsharded parameters are in MixedPrecision.param_dtype (the compute
     * dtype when the model trains with masters) else in the stored dtype. */
    const uint64_t ub = (uint64_t)(t.st.weight_bytes > 0 ? t.st.weight_bytes : 4);
    const uint64_t L = (uint64_t)(t.layers > 0 ? t.layers : 1);
    uint64_t layer_params = t.st.trainable == t.st.params && gb ? t.layer_grad / gb : 0;
    if (!layer_params) /* LoRA: frozen layers are still gathered: split evenly */
        layer_params = P / (L + 1);
    const uint64_t root_params = llmmem__sub0(P, llmmem__mul(&o, layer_params, L));
    const uint64_t unit = llmmem__mul(&o, layer_params, ub);
    const uint64_t root = llmmem__mul(&o, root_params, ub);
    const uint64_t full_w = t.st.weights;

    /* States sharded over the shard group (FlatParameter / DTensor shards). */
    t.st.weights = llmmem__ceil_div(t.st.weights, N);
    t.st.master = llmmem__ceil_div(t.st.master, N);
    t.st.grads = llmmem__ceil_div(t.st.grads, N);
    t.st.optim = llmmem__ceil_div(t.st.optim, N);
    t.st.optim_transient = llmmem__ceil_div(t.st.optim_transient, N);
    t.layer_grad = llmmem__ceil_div(t.layer_grad, N);
    t.other_grad = llmmem__ceil_div(t.other_grad, N);
    uint64_t sharded = N > 1 || strat != LLMMEM__FSDP_NO_SHARD
                           ? llmmem__add(&o, llmmem__add(&o, t.st.weights, t.st.master),
                                         llmmem__add(&o, t.st.grads, t.st.optim))
                           : 0;

    llmmem__engine_extra x;
    memset(&x, 0, sizeof x);
    uint64_t rs = 0;
    if (unshard_copies) {
        if (strat == LLMMEM__FSDP_SHARD_GRAD_OP) {
            /* Not resharded after forward: every unit stays unsharded until
             * the end of backward (api.py SHARD_GRAD_OP). */
            uint64_t all = llmmem__mul(&o, P, ub);
            x.fwd[LLMMEM_C_GATHERED_PARAMS] = all;
            x.bwd[LLMMEM_C_GATHERED_PARAMS] = all;
        } else {
            /* The root is not resharded after forward; a layer unit is
             * gathered for its forward and again for its backward, with the
             * next one prefetched (FSDP1 limit_all_gathers keeps two in
             * flight; FSDP2 prefetches one). Measured at world size 1: the
             * forward peak (at the loss) holds the root alone. */
            x.fwd[LLMMEM_C_GATHERED_PARAMS] = root;
            x.bwd[LLMMEM_C_GATHERED_PARAMS] = llmmem__add(&o, root, unit);
        }
        /* Reduce-scatter input: one unit's unsharded gradients
         * (_fsdp_collectives.py foreach_reduce, reduce_dtype). */
        rs = llmmem__mul(&o, layer_params, gb);
        x.bwd[LLMMEM_C_COMM_BUFFERS] = rs;
    }
    uint64_t host = 0;
    if (cfg->fsdp_cpu_offload) {
        /* CPUOffload(offload_params=True): sharded params, grads and the
         * optimizer (which then steps on the CPU) live in host RAM. */
        uint64_t per_rank = llmmem__add(&o, llmmem__add(&o, t.st.weights, t.st.master),
                                        llmmem__add(&o, t.st.grads, t.st.optim));
        host = llmmem__mul(&o, per_rank, (uint64_t)l.per_node);
        t.st.weights = 0;
        t.st.master = 0;
        t.st.grads = 0;
        t.st.optim = 0;
        t.st.optim_transient = 0;
        t.layer_grad = 0;
        t.other_grad = 0;
        sharded = 0;
    }
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "FSDP estimate overflows 64-bit byte counts");
    if ((rc = llmmem__train_fill(out, &t, &x, model, cfg)) != 0)
        return rc;
    if (unshard_copies) {
        llmmem__result_term(out, "fsdp_root_unsharded", "(embedding + final norm + head params) x "
                                                        "unsharded dtype: root kept after forward",
                            root);
        llmmem__result_term(out, "fsdp_unit_unsharded", "one decoder layer's params x unsharded dtype "
                                                        "(all-gather output)",
                            unit);
        llmmem__result_term(out, "fsdp_reduce_scatter", "one decoder layer's params x reduce dtype "
                                                        "(reduce-scatter input)",
                            rs);
    }
    if (host)
        llmmem__result_term(out, "fsdp_cpu_offload", "sharded params + grads + optimizer per rank x "
                                                     "ranks per node (host RAM)",
                            host);
    (void)full_w;
    llmmem__engine_keys(out, &l, host, 0, strat == LLMMEM__FSDP_NO_SHARD ? 0 : sharded);
    return LLMMEM_OK;
}
