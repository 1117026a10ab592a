/* DeepSpeed ZeRO stages 0-3 with CPU/NVMe offload and ZeRO++ hpZ, and
 * DeepSpeed's own model-state estimators as a mode (accounting =
 * deepspeed_estimator). Sources: microsoft/DeepSpeed
 * deepspeed/runtime/zero/stage_1_and_2.py (DeepSpeedZeroOptimizer),
 * stage3.py (DeepSpeedZeroOptimizer_Stage3), partition_parameters.py,
 * config.py (defaults); ZeRO paper (Rajbhandari et al. 2020) sections 5-6;
 * ZeRO++ (Wang et al. 2023) section 3.2 (hpZ). */
#include "engines/engines.h"

#include <string.h>

void llmmem__zero_estimator(uint64_t *gpu, uint64_t *cpu, int stage, uint64_t total_params,
                            uint64_t largest_layer_params, uint64_t gpus_per_node, uint64_t nodes,
                            bool offload_optimizer, bool offload_param, bool zero_init)
{
    /* The additional_buffer_factor = 1.5 of both estimators is applied as x3/2. */
    const uint64_t P = total_params, total_gpus = nodes * gpus_per_node;
    if (stage <= 2) {
        /* stage_1_and_2.py estimate_zero2_model_states_mem_needs (current code:
         * 2P + int(18P / total_gpus); the docs' prose still says 4P + 16P/N). */
        if (offload_optimizer) {
            *gpu = 2 * P;
            uint64_t f = 4 * total_gpus > 16 ? 4 * total_gpus : 16;
            *cpu = P * f * 3 / 2;
        } else {
            *gpu = 2 * P + 18 * P / total_gpus;
            *cpu = P * 4 * gpus_per_node * 3 / 2;
        }
        return;
    }
    /* stage3.py estimate_zero3_model_states_mem_needs; gpus_factor = 1/nodes. */
    const uint64_t largest = 4 * largest_layer_params;
    if (offload_optimizer) {
        uint64_t k = offload_param ? 18 : 16;
        if (offload_param)
            *gpu = largest;
        else
            *gpu = largest + 2 * P / total_gpus;
        if (zero_init) {
            *cpu = P * k * 3 / (2 * nodes);
        } else {
            /* max(4 * num_gpus_per_node, k / nodes) in Python floats */
            double f = (double)k / (double)nodes;
            double g = 4.0 * (double)gpus_per_node;
            double m = g > f ? g : f;
            *cpu = (uint64_t)((double)P * m * 1.5);
        }
    } else {
        *gpu = largest + 18 * P / total_gpus;
        *cpu = zero_init ? largest_layer_params * 4 * gpus_per_node * 3 / 2
                         : P * 4 * gpus_per_node * 3 / 2;
    }
}

static int zero_estimator_mode(struct llmmem_result *r, const struct llmmem_model *m,
                               const struct llmmem_config *c, const llmmem__layout *l)
{
    if (c->zero_stage < 2)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "accounting deepspeed_estimator: DeepSpeed has estimators for zero_stage 2 "
                             "and 3 only (zero_stage = %lld)",
                             (long long)c->zero_stage);
    const bool off_opt = c->offload_optimizer != LLMMEM__OFFLOAD_NONE;
    const bool off_par = c->offload_param != LLMMEM__OFFLOAD_NONE;
    uint64_t gpu, cpu;
    const uint64_t per_node = (uint64_t)l->per_node, nodes = (uint64_t)l->nodes;
    llmmem__zero_estimator(&gpu, &cpu, (int)c->zero_stage, (uint64_t)m->params,
                           (uint64_t)m->largest_module_params, per_node, nodes, off_opt, off_par,
                           c->zero_init != 0);
    uint64_t *op = r->bytes[LLMMEM_PHASE_OPTIMIZER];
    if (c->zero_stage == 3) {
        uint64_t largest = 4 * (uint64_t)m->largest_module_params;
        op[LLMMEM_C_GATHERED_PARAMS] = largest;
        op[LLMMEM_C_OPTIMIZER_STATE] = gpu - largest;
        llmmem__result_term(r, "largest_layer_memory",
                            "4 x largest_layer_params: fp16 params + grads of the largest module "
                            "(stage3.py estimate_zero3_model_states_mem_needs)",
                            largest);
        llmmem__result_term(r, "model_states",
                            off_opt ? (off_par ? "0 (params and optimizer offloaded)"
                                               : "int(2 x params / total_gpus)")
                                    : "int(18 x params / total_gpus)",
                            gpu - largest);
    } else {
        op[LLMMEM_C_WEIGHTS] = 2 * (uint64_t)m->params;
        op[LLMMEM_C_OPTIMIZER_STATE] = gpu - 2 * (uint64_t)m->params;
        llmmem__result_term(r, "fp16_params", "2 x params (stage_1_and_2.py "
                                              "estimate_zero2_model_states_mem_needs)",
                            2 * (uint64_t)m->params);
        llmmem__result_term(r, "model_states", off_opt ? "0 (optimizer offloaded)"
                                                        : "int(18 x params / total_gpus)",
                            gpu - 2 * (uint64_t)m->params);
    }
    llmmem__result_term(r, "cpu_memory", "host RAM per node, x 1.5 additional_buffer_factor", cpu);
    r->phase_used[LLMMEM_PHASE_OPTIMIZER] = true;
    r->mode = LLMMEM__MODE_TRAINING;
    memcpy(r->model_type, m->model_type, sizeof r->model_type);
    llmmem__result_set_i64(r, LLMMEM_R_PARAMS, m->params);
    llmmem__result_set_i64(r, LLMMEM_R_TRAINABLE_PARAMS, m->params);
    llmmem__result_set_i64(r, LLMMEM_R_ACTIVE_PARAMS, m->params_active);
    llmmem__result_note(r, "deepspeed_estimator: model states only, DeepSpeed's formula (no "
                           "activations, buffers or workspaces)");
    int rc = llmmem__result_finish(r, c);
    if (rc)
        return rc;
    llmmem__engine_keys(r, l, cpu, 0, 0);
    return LLMMEM_OK;
}

/* Parameters of tensors below the ZeRO-3 persistence threshold: kept whole on
 * every rank (partition_parameters.py: ds_persist when numel <=
 * param_persistence_threshold). The small tensors of a transformer are its
 * norm vectors (hidden-size or head-dim long); weight matrices are far above
 * any practical threshold, so the exact per-tensor walk is not needed. */
static uint64_t persistent_params(const struct llmmem_model *m, int64_t threshold)
{
    if (threshold >= m->hidden_size)
        return (uint64_t)m->params_norm;
    if (m->qk_norm && threshold >= m->head_dim)
        return (uint64_t)(2 * m->num_layers * m->head_dim);
    return 0;
}

int llmmem_estimate_zero(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = llmmem__check_args(out, model, cfg, "llmmem_estimate_zero");
    if (rc)
        return rc;
    llmmem__layout l;
    if ((rc = llmmem__engine_layout(&l, model, cfg, false, "zero")) != 0)
        return rc;
    const int stage = (int)cfg->zero_stage;
    if (cfg->offload_param != LLMMEM__OFFLOAD_NONE && stage != 3)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "offload_param = %s needs zero_stage 3 (zero_stage = %d)",
                             cfg->offload_param == LLMMEM__OFFLOAD_CPU ? "cpu" : "nvme", stage);
    if (cfg->offload_optimizer != LLMMEM__OFFLOAD_NONE && stage == 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT, "offload_optimizer needs zero_stage 1, 2 or 3 (zero_stage = 0)");
    const int64_t hpz = cfg->zero_hpz_partition_size;
    if (hpz > 1 && (stage != 3 || l.dp % hpz != 0))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "zero_hpz_partition_size = %lld needs zero_stage 3 and to divide the "
                             "data-parallel size %lld (zero_stage = %d)",
                             (long long)hpz, (long long)l.dp, stage);
    llmmem__result_clear(out);
    out->engine = LLMMEM__ENG_ZERO;
    if (cfg->accounting == LLMMEM__ACC_DEEPSPEED)
        return zero_estimator_mode(out, model, cfg, &l);
    if (cfg->accounting == LLMMEM__ACC_MEGATRON)
        return llmmem__error(LLMMEM_E_INCONSISTENT, "accounting megatron_theoretical needs engine megatron");

    llmmem__train t;
    if ((rc = llmmem__train_compute(&t, out, model, cfg)) != 0)
        return rc;
    llmmem__optim_engine_fused(&t.st, cfg);
    llmmem__ovf o = {false};
    const uint64_t N = (uint64_t)l.dp;
    const bool off_opt = cfg->offload_optimizer != LLMMEM__OFFLOAD_NONE;
    const bool off_par = cfg->offload_param != LLMMEM__OFFLOAD_NONE;
    const uint64_t P = (uint64_t)t.st.params, trainable = (uint64_t)t.st.trainable;
    const uint64_t pb = (uint64_t)(t.st.weight_bytes > 0 ? t.st.weight_bytes : 2);
    const uint64_t gb = (uint64_t)(t.st.grad_bytes > 0 ? t.st.grad_bytes : 2);
    const bool overlap = cfg->overlap_comm == LLMMEM__TRI_ON ||
                         (cfg->overlap_comm == LLMMEM__TRI_AUTO && stage == 3);
    llmmem__engine_extra x;
    memset(&x, 0, sizeof x);
    uint64_t host = 0, nvme = 0, sharded = 0;

    /* ZeRO-1: fp32 masters and optimizer state partitioned over dp
     * (stage_1_and_2.py single_partition_of_fp32_groups); the step converts
     * this rank's gradient partition to fp32 (single_grad_partition). */
    uint64_t grad32 = 0;
    if (stage >= 1) {
        t.st.master = llmmem__ceil_div(t.st.master, N);
        t.st.optim = llmmem__ceil_div(t.st.optim, N);
        t.st.optim_transient = llmmem__ceil_div(t.st.optim_transient, N);
        if (t.st.master && gb != 4)
            grad32 = llmmem__ceil_div(llmmem__mul(&o, trainable, 4), N);
        sharded = llmmem__add(&o, t.st.master, t.st.optim);
    }
    /* ZeRO-2: gradients partitioned too (averaged_gradients of this partition). */
    if (stage >= 2) {
        t.st.grads = llmmem__ceil_div(t.st.grads, N);
        t.layer_grad = llmmem__ceil_div(t.layer_grad, N);
        t.other_grad = llmmem__ceil_div(t.other_grad, N);
        sharded = llmmem__add(&o, sharded, t.st.grads);
    }
    /* Gradient reduction buckets: the contiguous ipg buffer of
     * reduce_bucket_size elements, doubled under overlap_comm
     * (stage_1_and_2.py setup_buffers / stage3.py __ipg_bucket_flat_buffer). */
    uint64_t bucket = 0;
    if (stage >= 1) {
        uint64_t elems = llmmem__min((uint64_t)cfg->reduce_bucket_size, trainable);
        bucket = llmmem__mul3(&o, elems, gb, overlap && stage < 3 ? 2 : 1);
        x.bwd[LLMMEM_C_COMM_BUFFERS] = bucket;
        if (stage == 3) { /* allocated once at init, lives through the step */
            x.fwd[LLMMEM_C_COMM_BUFFERS] = bucket;
            x.opt[LLMMEM_C_COMM_BUFFERS] = bucket;
        }
    }
    /* ZeRO-3: the 16-bit parameters partitioned, except tensors under the
     * persistence threshold; the live gathered parameters are the module
     * being computed (the largest one at worst) plus the prefetch bucket,
     * bounded by stage3_max_live_parameters (stage3.py, config.py). */
    uint64_t gathered = 0, secondary = 0, w_part = 0;
    if (stage == 3) {
        uint64_t keep = llmmem__min(persistent_params(model, cfg->stage3_param_persistence_threshold), P);
        w_part = llmmem__engine_scale(t.st.weights, P - keep, P * N);
        uint64_t w_keep = llmmem__engine_scale(t.st.weights, keep, P);
        t.st.weights = llmmem__add(&o, w_part, w_keep);
        sharded = llmmem__add(&o, sharded, w_part);
        uint64_t live = llmmem__add(&o, (uint64_t)model->largest_module_params,
                                    (uint64_t)cfg->stage3_prefetch_bucket_size);
        live = llmmem__min(llmmem__min(live, (uint64_t)cfg->stage3_max_live_parameters), P);
        gathered = llmmem__mul(&o, live, pb);
        x.fwd[LLMMEM_C_GATHERED_PARAMS] = gathered;
        x.bwd[LLMMEM_C_GATHERED_PARAMS] = gathered;
        /* ZeRO++ hpZ: a secondary copy of the parameters partitioned within
         * groups of hpz ranks, built in forward and kept for backward. */
        if (hpz > 1) {
            secondary = llmmem__engine_scale(llmmem__mul(&o, P - keep, pb), 1, (uint64_t)hpz);
            x.fwd[LLMMEM_C_WEIGHTS] = secondary;
            x.bwd[LLMMEM_C_WEIGHTS] = secondary;
        }
        if (off_par) {
            /* offload_param: the partitions live in host RAM (or NVMe). */
            if (cfg->offload_param == LLMMEM__OFFLOAD_CPU)
                host = llmmem__add(&o, host, llmmem__mul(&o, w_part, (uint64_t)l.per_node));
            else
                nvme = llmmem__add(&o, nvme, llmmem__mul(&o, w_part, (uint64_t)l.per_node));
            t.st.weights = w_keep;
            sharded = llmmem__sub0(sharded, w_part);
        }
    }
    x.opt[LLMMEM_C_OPTIMIZER_TRANSIENT] = grad32;
    /* Optimizer offload (ZeRO-Offload / ZeRO-Infinity): fp32 masters, state and
     * the step move to the host; gradient partitions go to pinned fp32 host
     * buffers (memory.rst: "4b for fp32 gradients"). */
    if (off_opt) {
        uint64_t states = llmmem__add(&o, t.st.master, t.st.optim);
        uint64_t g32 = llmmem__ceil_div(llmmem__mul(&o, trainable, 4), N);
        uint64_t pn = (uint64_t)l.per_node;
        if (cfg->offload_optimizer == LLMMEM__OFFLOAD_CPU)
            host = llmmem__add(&o, host, llmmem__mul(&o, llmmem__add(&o, states, g32), pn));
        else {
            nvme = llmmem__add(&o, nvme, llmmem__mul(&o, states, pn));
            host = llmmem__add(&o, host, llmmem__mul(&o, g32, pn));
        }
        t.st.master = 0;
        t.st.optim = 0;
        t.st.optim_transient = 0;
        x.opt[LLMMEM_C_OPTIMIZER_TRANSIENT] = 0;
        if (stage >= 2) {
            t.st.grads = 0;
            t.layer_grad = 0;
            t.other_grad = 0;
        }
        sharded = stage == 3 && !off_par ? w_part : 0;
    }
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "ZeRO estimate overflows 64-bit byte counts");
    if (stage == 0)
        llmmem__result_note(out, "ZeRO stage 0: states replicated as in DDP; gradient all-reduce "
                                 "buffers not counted");
    if ((rc = llmmem__train_fill(out, &t, &x, model, cfg)) != 0)
        return rc;
    if (bucket)
        llmmem__result_term(out, "zero_reduce_bucket",
                            "reduce_bucket_size x grad bytes (x2 overlap_comm, stages 1-2): ipg buffer "
                            "(stage_1_and_2.py / stage3.py)",
                            bucket);
    if (grad32)
        llmmem__result_term(out, "zero_fp32_grad_partition",
                            "4 x trainable / dp: fp32 gradient partition for the step "
                            "(stage_1_and_2.py single_grad_partition)",
                            grad32);
    if (gathered)
        llmmem__result_term(out, "zero3_gathered_params",
                            "min(largest module + stage3_prefetch_bucket_size, "
                            "stage3_max_live_parameters) x param bytes (stage3.py)",
                            gathered);
    if (secondary)
        llmmem__result_term(out, "zeropp_hpz_secondary", "params x param bytes / zero_hpz_partition_size "
                                                         "(ZeRO++ 3.2)",
                            secondary);
    if (host || nvme)
        llmmem__result_term(out, "offload_host_or_nvme",
                            "per rank: fp32 masters + optimizer state + fp32 grads (offload_optimizer), "
                            "param partitions (offload_param); x ranks per node",
                            llmmem__add(&o, host, nvme));
    llmmem__engine_keys(out, &l, host, nvme, sharded);
    return LLMMEM_OK;
}
