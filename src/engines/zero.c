/* DeepSpeed ZeRO stages 0-3 with CPU/NVMe offload and ZeRO++ hpZ, and
 * DeepSpeed's own model-state estimators as a mode (accounting =
 * deepspeed_estimator). Sources: microsoft/DeepSpeed
 * deepspeed/runtime/zero/stage_1_and_2.py (DeepSpeedZeroOptimizer),
 * stage3.py (DeepSpeedZeroOptimizer_Stage3), partition_parameters.py,
 * config.py (defaults); ZeRO paper (Rajbhandari et al. 2020) sections 5-6;
 * ZeRO++ (Wang et al. 2023) section 3.2 (hpZ). */
#include "engines/engines.h"

#include <string.h>

/* stage_1_and_2.py estimate_zero2_model_states_mem_needs (current code:
 * 2P + int(18P / total_gpus); the docs' prose still says 4P + 16P/N). The
 * additional_buffer_factor = 1.5 of both estimators is applied as x3/2. */
static void estimator_zero2(uint64_t *gpu, uint64_t *cpu, uint64_t P, uint64_t gpus_per_node,
                            uint64_t total_gpus, bool offload_optimizer)
{
    if (offload_optimizer) {
        *gpu = 2 * P;
        uint64_t f = 4 * total_gpus > 16 ? 4 * total_gpus : 16;
        *cpu = P * f * 3 / 2;
    } else {
        *gpu = 2 * P + 18 * P / total_gpus;
        *cpu = P * 4 * gpus_per_node * 3 / 2;
    }
}

/* stage3.py estimate_zero3_model_states_mem_needs; gpus_factor = 1/nodes;
 * 4 x largest_layer_params for the fp16 params + grads of the largest module. */
static void estimator_zero3(uint64_t *gpu, uint64_t *cpu, uint64_t P, uint64_t largest_layer_params,
                            uint64_t gpus_per_node, uint64_t nodes, bool offload_optimizer,
                            bool offload_param, bool zero_init)
{
    const uint64_t total_gpus = nodes * gpus_per_node;
    const uint64_t largest = 4 * largest_layer_params;
    if (!offload_optimizer) {
        *gpu = largest + 18 * P / total_gpus;
        *cpu = zero_init ? largest_layer_params * 4 * gpus_per_node * 3 / 2
                         : P * 4 * gpus_per_node * 3 / 2;
        return;
    }
    uint64_t k = offload_param ? 18 : 16;
    *gpu = offload_param ? largest : largest + 2 * P / total_gpus;
    if (zero_init) {
        *cpu = P * k * 3 / (2 * nodes);
    } else {
        /* max(4 * num_gpus_per_node, k / nodes) in Python floats */
        double f = (double)k / (double)nodes;
        double g = 4.0 * (double)gpus_per_node;
        double m = g > f ? g : f;
        *cpu = (uint64_t)((double)P * m * 1.5);
    }
}

void llmmem__zero_estimator(uint64_t *gpu, uint64_t *cpu, int stage, uint64_t total_params,
                            uint64_t largest_layer_params, uint64_t gpus_per_node, uint64_t nodes,
                            bool offload_optimizer, bool offload_param, bool zero_init)
{
    if (stage <= 2)
        estimator_zero2(gpu, cpu, total_params, gpus_per_node, nodes * gpus_per_node,
                        offload_optimizer);
    else
        estimator_zero3(gpu, cpu, total_params, largest_layer_params, gpus_per_node, nodes,
                        offload_optimizer, offload_param, zero_init);
}

/* The GPU bytes of DeepSpeed's estimators split as its terms: stage 3 =
 * largest_layer_memory (gathered params) + model_states; stages 1-2 =
 * fp16_params (weights) + model_states (optimizer state). */
static void estimator_terms(struct llmmem_result *r, const struct llmmem_model *m,
                            const struct llmmem_config *c, uint64_t gpu)
{
    const bool off_opt = c->offload_optimizer != LLMMEM__OFFLOAD_NONE;
    const bool off_par = c->offload_param != LLMMEM__OFFLOAD_NONE;
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
}

/* accounting = deepspeed_estimator: DeepSpeed's own model-state estimator as
 * the result (stages 2 and 3 only). */
static int zero_estimator_mode(struct llmmem_result *r, const struct llmmem_model *m,
                               const struct llmmem_config *c, const llmmem__layout *l)
{
    if (c->zero_stage < 2)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "accounting deepspeed_estimator: DeepSpeed has estimators for zero_stage 2 "
                             "and 3 only (zero_stage = %lld)",
                             (long long)c->zero_stage);
    uint64_t gpu, cpu;
    llmmem__zero_estimator(&gpu, &cpu, (int)c->zero_stage, (uint64_t)m->params,
                           (uint64_t)m->largest_module_params, (uint64_t)l->per_node,
                           (uint64_t)l->nodes, c->offload_optimizer != LLMMEM__OFFLOAD_NONE,
                           c->offload_param != LLMMEM__OFFLOAD_NONE, c->zero_init != 0);
    estimator_terms(r, m, c, gpu);
    llmmem__result_term(r, "cpu_memory", "host RAM per node, x 1.5 additional_buffer_factor", cpu);
    llmmem__engine_formula_keys(r, m, LLMMEM_PHASE_OPTIMIZER);
    llmmem__result_note(r, "deepspeed_estimator: model states only, DeepSpeed's formula (no "
                           "activations, buffers or workspaces)");
    int rc = llmmem__result_finish(r, c);
    if (rc)
        return rc;
    llmmem__engine_keys(r, l, 0, 0);
    /* DeepSpeed's one figure: no pinned / pageable split */
    llmmem__result_set_u64(r, LLMMEM_R_HOST_BYTES, cpu);
    return LLMMEM_OK;
}

static int zero_formula(llmmem__engine_run *r)
{
    if (r->c.accounting == LLMMEM__ACC_DEEPSPEED)
        return zero_estimator_mode(r->out, r->m, &r->c, &r->l);
    return llmmem__error(LLMMEM_E_INCONSISTENT, "accounting megatron_theoretical needs engine megatron");
}

/* The stage, offload and hpZ options DeepSpeed accepts together
 * (deepspeed/runtime/zero/config.py, ZeRO++ 3.2). */
static int zero_check(llmmem__engine_run *r)
{
    const struct llmmem_config *cfg = r->orig;
    const llmmem__layout *l = &r->l;
    const int stage = (int)cfg->zero_stage;
    if (cfg->offload_param != LLMMEM__OFFLOAD_NONE && stage != 3)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "offload_param = %s%s needs zero_stage 3 (zero_stage = %d%s)",
                             cfg->offload_param == LLMMEM__OFFLOAD_CPU ? "cpu" : "nvme",
                             llmmem__config_origin(cfg, LLMMEM_P_OFFLOAD_PARAM), stage,
                             llmmem__config_origin(cfg, LLMMEM_P_ZERO_STAGE));
    if (cfg->offload_optimizer != LLMMEM__OFFLOAD_NONE && stage == 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT, "offload_optimizer%s needs zero_stage 1, 2 or 3 (zero_stage = 0%s)",
                             llmmem__config_origin(cfg, LLMMEM_P_OFFLOAD_OPTIMIZER),
                             llmmem__config_origin(cfg, LLMMEM_P_ZERO_STAGE));
    /* ZeRO-Offload steps DeepSpeed's own CPU optimizer, built from the config's optimizer
     * section (engine.py _configure_basic_optimizer: DeepSpeedCPUAdam); a bitsandbytes one is
     * a client optimizer, which engine.py _configure_optimizer refuses when
     * zero_use_cpu_optimizer() (offload_optimizer cpu or nvme) with ZeRORuntimeException while
     * zero_force_ds_cpu_optimizer holds (runtime/constants.py default True). With it false the
     * client optimizer steps the CPU fp32 partitions (bitsandbytes 0.50.2 backends/cpu/ops.py
     * _optimizer_update_8bit_blockwise_cpu, fp32 copies of each state; paged falls back to
     * CPU state, optim/optimizer.py get_state_buffer): not modelled here. */
    if (cfg->offload_optimizer != LLMMEM__OFFLOAD_NONE && llmmem__optim_bnb((int)cfg->optimizer))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "optimizer = %s%s with offload_optimizer = %s%s: DeepSpeed refuses a client "
                             "optimizer under ZeRO-Offload (deepspeed/runtime/engine.py _configure_optimizer "
                             "raises ZeRORuntimeException \"You are using ZeRO-Offload with a client provided "
                             "optimizer\" while zero_force_ds_cpu_optimizer is true, its default); set "
                             "optimizer adamw or adam (DeepSpeed's DeepSpeedCPUAdam) or offload_optimizer none",
                             llmmem_param_enum_name(LLMMEM_P_OPTIMIZER, cfg->optimizer),
                             llmmem__config_origin(cfg, LLMMEM_P_OPTIMIZER),
                             cfg->offload_optimizer == LLMMEM__OFFLOAD_CPU ? "cpu" : "nvme",
                             llmmem__config_origin(cfg, LLMMEM_P_OFFLOAD_OPTIMIZER));
    const int64_t hpz = cfg->zero_hpz_partition_size;
    if (hpz > 1 && (stage != 3 || l->dp % hpz != 0))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "zero_hpz_partition_size = %lld needs zero_stage 3 and to divide the "
                             "data-parallel size %lld (zero_stage = %d)",
                             (long long)hpz, (long long)l->dp, stage);
    return LLMMEM_OK;
}

/* One ZeRO estimate: the single-GPU training model being partitioned, the
 * engine's buffers per phase, and what leaves the GPU. */
typedef struct zero_run {
    llmmem__train *t; /* the training model being sharded (the skeleton's) */
    llmmem__engine_extra *x; /* the skeleton's (engines.h) */
    llmmem__ovf o;
    int stage;
    uint64_t N;                /* data-parallel ranks the states are partitioned over */
    uint64_t per_node;         /* ranks per node (host and NVMe bytes are per node) */
    uint64_t P, trainable;     /* parameters, trainable parameters */
    uint64_t pb, gb;           /* bytes per parameter / gradient element */
    uint64_t pinned, pageable, nvme; /* bytes per node off the GPU */
    bool pin;                  /* offload_*.pin_memory */
    uint64_t largest;          /* elements of the largest trainable tensor */
    uint64_t sharded;          /* bytes per GPU that shrink as 1/dp */
    uint64_t grad32, bucket, gathered, secondary;
    uint64_t keep;             /* ZeRO-3 persistent (unpartitioned) parameters */
    uint64_t w_part, w_keep;   /* ZeRO-3 partitioned / persistent parameter bytes */
} zero_run;
LLMMEM__ENGINE_STATE_FITS(zero_run);

/* ZeRO-1: fp32 masters and optimizer state partitioned over dp
 * (stage_1_and_2.py single_partition_of_fp32_groups). */
static void zero1_partition_optimizer(zero_run *z)
{
    llmmem__states *st = &z->t->st;
    st->master = llmmem__ceil_div(st->master, z->N);
    st->optim = llmmem__ceil_div(st->optim, z->N);
    st->optim_transient = llmmem__ceil_div(st->optim_transient, z->N);
    /* a paged (bitsandbytes) client optimizer's state is that of this rank's partition too */
    z->t->managed = llmmem__ceil_div(z->t->managed, z->N);
    z->sharded = llmmem__add(&z->o, st->master, st->optim);
}

/* 4 x trainable / dp: the step converts this rank's gradient partition to
 * fp32 when the gradients are not fp32 already (stage_1_and_2.py
 * single_grad_partition). */
static uint64_t zero1_fp32_grad_partition(zero_run *z)
{
    if (z->t->st.master && z->gb != 4)
        return llmmem__ceil_div(llmmem__mul(&z->o, z->trainable, 4), z->N);
    return 0;
}

/* ZeRO-2: gradients partitioned too (averaged_gradients of this partition). */
static void zero2_partition_grads(zero_run *z)
{
    z->t->st.grads = llmmem__ceil_div(z->t->st.grads, z->N);
    z->t->layer_grad = llmmem__ceil_div(z->t->layer_grad, z->N);
    z->t->other_grad = llmmem__ceil_div(z->t->other_grad, z->N);
    z->sharded = llmmem__add(&z->o, z->sharded, z->t->st.grads);
}

/* Gradient reduction bucket: the contiguous ipg buffer of
 * min(reduce_bucket_size, trainable) elements x grad bytes, doubled under
 * overlap_comm in stages 1-2 (stage_1_and_2.py setup_buffers / stage3.py
 * __ipg_bucket_flat_buffer). */
static uint64_t zero_reduce_bucket(zero_run *z, const struct llmmem_config *cfg, bool overlap)
{
    uint64_t elems = llmmem__min((uint64_t)cfg->reduce_bucket_size, z->trainable);
    return llmmem__mul3(&z->o, elems, z->gb, overlap && z->stage < 3 ? 2 : 1);
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

/* ZeRO-3: the 16-bit parameters partitioned over dp, except the persistent
 * tensors (partition_parameters.py): weights x (P - keep) / (P x dp) + weights
 * x keep / P. */
static void zero3_partition_params(zero_run *z, const struct llmmem_model *m,
                                   const struct llmmem_config *cfg)
{
    z->keep = llmmem__min(persistent_params(m, cfg->stage3_param_persistence_threshold), z->P);
    z->w_part = llmmem__engine_scale(z->t->st.weights, z->P - z->keep, z->P * z->N);
    z->w_keep = llmmem__engine_scale(z->t->st.weights, z->keep, z->P);
    z->t->st.weights = llmmem__add(&z->o, z->w_part, z->w_keep);
    z->sharded = llmmem__add(&z->o, z->sharded, z->w_part);
}

/* ZeRO-3 live gathered parameters: the module being computed (the largest one
 * at worst) plus the prefetch bucket, bounded by stage3_max_live_parameters:
 * min(largest module + stage3_prefetch_bucket_size, max_live, P) x param
 * bytes (stage3.py, config.py). */
static uint64_t zero3_gathered_params(zero_run *z, const struct llmmem_model *m,
                                      const struct llmmem_config *cfg)
{
    uint64_t live = llmmem__add(&z->o, (uint64_t)m->largest_module_params,
                                (uint64_t)cfg->stage3_prefetch_bucket_size);
    live = llmmem__min(llmmem__min(live, (uint64_t)cfg->stage3_max_live_parameters), z->P);
    return llmmem__mul(&z->o, live, z->pb);
}

/* ZeRO++ hpZ (Wang et al. 2023, 3.2): a secondary copy of the partitioned
 * parameters within groups of hpz ranks, built in forward and kept for
 * backward: (P - keep) x param bytes / zero_hpz_partition_size. */
static uint64_t zeropp_hpz_secondary(zero_run *z, int64_t hpz)
{
    return llmmem__engine_scale(llmmem__mul(&z->o, z->P - z->keep, z->pb), 1, (uint64_t)hpz);
}

/* Adds per-rank bytes x ranks per node to host RAM: `pinned` goes through
 * DeepSpeed's get_accelerator().pin_memory (tensor.pin_memory(): one block of
 * torch's pinned allocator, a power of two) when pin_memory is on, else it is
 * pageable like `pageable`; `always` is pinned whatever the setting. */
static void zero_host(zero_run *z, uint64_t pinned, uint64_t pageable, uint64_t always)
{
    const uint64_t n = z->per_node;
    z->pinned = llmmem__add(&z->o, z->pinned, llmmem__mul(&z->o, llmmem__pinned_block(always), n));
    if (z->pin)
        z->pinned = llmmem__add(&z->o, z->pinned, llmmem__mul(&z->o, llmmem__pinned_block(pinned), n));
    else
        pageable = llmmem__add(&z->o, pageable, pinned);
    z->pageable = llmmem__add(&z->o, z->pageable, llmmem__mul(&z->o, pageable, n));
}

static void zero_nvme(zero_run *z, uint64_t per_rank)
{
    z->nvme = llmmem__add(&z->o, z->nvme, llmmem__mul(&z->o, per_rank, z->per_node));
}

/* offload_param (ZeRO-Infinity): the parameter partitions live in host RAM
 * or NVMe; the persistent tensors stay on the GPU. On the CPU they are one
 * flat buffer per parameter group, pinned whatever pin_memory says (stage3.py
 * _create_param_groups_fp16_flat_cpu_memory); on NVMe the swapper keeps
 * buffer_count x buffer_size pinned elements (offload_config.py defaults 5 x
 * 1e8; swap_tensor/partitioned_param_swapper.py). */
static void zero3_offload_params(zero_run *z, const struct llmmem_config *cfg)
{
    if (cfg->offload_param == LLMMEM__OFFLOAD_CPU) {
        zero_host(z, 0, 0, z->w_part);
    } else {
        zero_nvme(z, z->w_part);
        zero_host(z, 0, 0, llmmem__mul(&z->o, 500000000, z->pb));
    }
    z->t->st.weights = z->w_keep;
    z->sharded = llmmem__sub0(z->sharded, z->w_part);
}

/* Optimizer offload (ZeRO-Offload / ZeRO-Infinity): fp32 masters, optimizer
 * state and the step move to the host (or NVMe), per rank (Pp = trainable / dp):
 *  - stages 1-2 (stage_1_and_2.py): the fp32 partition (clone of the 16-bit one,
 *    pin_memory'd), a 16-bit buffer of the partition for the copy back
 *    (param_buffer_of_bit16_for_cpu_offload_groups), the fp32 gradient partition
 *    (initialize_optimizer_states: single_partition_of_fp32_groups.grad), a
 *    buffer of the largest parameter (temp_grad_buffer_for_cpu_offload), pinned
 *    when pin_memory; with gradient accumulation a 16-bit CPU copy of each
 *    parameter's gradient (accumulated_grads_in_cpu, per parameter: counted at
 *    Pp x grad bytes, its blocks' rounding not modelled);
 *  - stage 3 (stage3.py): the fp32 partition (pageable: .to(cpu).clone()), per
 *    sub-group (sub_group_size 1e9 elements of the partition) an fp32 gradient
 *    buffer (initialize_optimizer_states: subgroup_gradient_buffer) and the
 *    flat gradient partitions in the model dtype (grad_partitions_flat_buffer),
 *    both pinned when pin_memory;
 *  - the optimizer state of DeepSpeedCPUAdam (torch.zeros_like: pageable). */
static void zero_offload_optimizer(zero_run *z, const struct llmmem_config *cfg, bool off_par)
{
    const uint64_t Pp = llmmem__ceil_div(z->trainable, z->N);
    const uint64_t f32 = llmmem__mul(&z->o, Pp, 4);
    const bool cpu = cfg->offload_optimizer == LLMMEM__OFFLOAD_CPU;
    const uint64_t state = z->t->st.optim;
    if (z->stage < 3) {
        /* stages 1-2 have no swapper: any offload device sets cpu_offload
         * (stage_1_and_2.py __init__), nvme included */
        zero_host(z, f32, state, 0);                              /* fp32 partition */
        zero_host(z, llmmem__mul(&z->o, Pp, z->pb), 0, 0);        /* 16-bit copy-back buffer */
        zero_host(z, f32, 0, 0);                                  /* fp32 gradient partition */
        zero_host(z, llmmem__mul(&z->o, z->largest, z->gb), 0, 0); /* temp_grad_buffer_for_cpu_offload */
        if (cfg->grad_accum_steps > 1) { /* many small blocks: their rounding is not modelled */
            const uint64_t acc = llmmem__mul3(&z->o, Pp, z->gb, z->per_node);
            if (z->pin)
                z->pinned = llmmem__add(&z->o, z->pinned, acc);
            else
                z->pageable = llmmem__add(&z->o, z->pageable, acc);
        }
    } else {
        const uint64_t sub = 1000000000, groups = llmmem__ceil_div(Pp, sub);
        const uint64_t each = llmmem__ceil_div(Pp, groups > 0 ? groups : 1);
        if (cpu)
            zero_host(z, 0, llmmem__add(&z->o, f32, state), 0);
        else
            zero_nvme(z, llmmem__add(&z->o, f32, state));
        for (uint64_t g = 0; g < groups && g < 1024; g++)
            zero_host(z, llmmem__mul(&z->o, each, 4), 0, 0);     /* sub-group fp32 gradients */
        zero_host(z, llmmem__mul(&z->o, Pp, z->gb), 0, 0);       /* grad_partitions_flat_buffer */
    }
    z->t->st.master = 0;
    z->t->st.optim = 0;
    z->t->st.optim_transient = 0;
    z->x->opt[LLMMEM_C_OPTIMIZER_TRANSIENT] = 0;
    if (z->stage >= 2) {
        z->t->st.grads = 0;
        z->t->layer_grad = 0;
        z->t->other_grad = 0;
    }
    z->sharded = z->stage == 3 && !off_par ? z->w_part : 0;
}

/* ZeRO-3's parameter terms and where they live in each phase. */
static void zero3_params(zero_run *z, const struct llmmem_model *m, const struct llmmem_config *cfg)
{
    zero3_partition_params(z, m, cfg);
    z->gathered = zero3_gathered_params(z, m, cfg);
    z->x->fwd[LLMMEM_C_GATHERED_PARAMS] = z->gathered;
    z->x->bwd[LLMMEM_C_GATHERED_PARAMS] = z->gathered;
    if (cfg->zero_hpz_partition_size > 1) {
        z->secondary = zeropp_hpz_secondary(z, cfg->zero_hpz_partition_size);
        z->x->fwd[LLMMEM_C_WEIGHTS] = z->secondary;
        z->x->bwd[LLMMEM_C_WEIGHTS] = z->secondary;
    }
    if (cfg->offload_param != LLMMEM__OFFLOAD_NONE)
        zero3_offload_params(z, cfg);
}

/* The phase builder: partitions the training model stage by stage, adds the
 * buffers, moves what is offloaded. */
static void zero_shard_states(zero_run *z, const struct llmmem_model *m, const struct llmmem_config *cfg)
{
    const bool overlap = cfg->overlap_comm == LLMMEM__TRI_ON ||
                         (cfg->overlap_comm == LLMMEM__TRI_AUTO && z->stage == 3);
    if (z->stage >= 1) {
        zero1_partition_optimizer(z);
        z->grad32 = zero1_fp32_grad_partition(z);
    }
    if (z->stage >= 2)
        zero2_partition_grads(z);
    if (z->stage >= 1) {
        z->bucket = zero_reduce_bucket(z, cfg, overlap);
        z->x->bwd[LLMMEM_C_COMM_BUFFERS] = z->bucket;
        if (z->stage == 3) { /* allocated once at init, lives through the step */
            z->x->fwd[LLMMEM_C_COMM_BUFFERS] = z->bucket;
            z->x->opt[LLMMEM_C_COMM_BUFFERS] = z->bucket;
        }
    }
    if (z->stage == 3)
        zero3_params(z, m, cfg);
    z->x->opt[LLMMEM_C_OPTIMIZER_TRANSIENT] = z->grad32;
    if (cfg->offload_optimizer != LLMMEM__OFFLOAD_NONE)
        zero_offload_optimizer(z, cfg, cfg->offload_param != LLMMEM__OFFLOAD_NONE);
}

/* The engine's terms, once the phases are built. */
static void zero_terms(llmmem__engine_run *r)
{
    struct llmmem_result *out = r->out;
    zero_run *z = LLMMEM__ENGINE_STATE(zero_run, r);
    if (z->bucket)
        llmmem__result_term(out, "zero_reduce_bucket",
                            "reduce_bucket_size x grad bytes (x2 overlap_comm, stages 1-2): ipg buffer "
                            "(stage_1_and_2.py / stage3.py)",
                            z->bucket);
    if (z->grad32)
        llmmem__result_term(out, "zero_fp32_grad_partition",
                            "4 x trainable / dp: fp32 gradient partition for the step "
                            "(stage_1_and_2.py single_grad_partition)",
                            z->grad32);
    if (z->gathered)
        llmmem__result_term(out, "zero3_gathered_params",
                            "min(largest module + stage3_prefetch_bucket_size, "
                            "stage3_max_live_parameters) x param bytes (stage3.py)",
                            z->gathered);
    if (z->secondary)
        llmmem__result_term(out, "zeropp_hpz_secondary", "params x param bytes / zero_hpz_partition_size "
                                                         "(ZeRO++ 3.2)",
                            z->secondary);
    if (z->pinned)
        llmmem__result_term(out, "offload_host_pinned",
                            "per rank, pinned blocks (powers of two): fp32 partition, 16-bit buffer, fp32 "
                            "gradients, largest-parameter buffer (stages 1-2); gradient buffers (stage 3); "
                            "parameter partitions (offload_param); x ranks per node (stage_1_and_2.py, "
                            "stage3.py; zero.c zero_offload_optimizer)",
                            z->pinned);
    if (z->pageable)
        llmmem__result_term(out, "offload_host_pageable",
                            "per rank: DeepSpeedCPUAdam state (+ the fp32 partition at stage 3, + all buffers "
                            "when pin_memory is off); x ranks per node",
                            z->pageable);
    if (z->nvme)
        llmmem__result_term(out, "offload_nvme", "per rank: fp32 masters + optimizer state (offload_optimizer "
                                                 "nvme), parameter partitions (offload_param nvme); x ranks "
                                                 "per node",
                            z->nvme);
}

/* Elements of the largest trainable tensor (stage_1_and_2.py largest_param_numel):
 * the largest weight of the model, or under LoRA an adapter of the widest Linear
 * (rank x max(hidden, intermediate)). */
static uint64_t zero_largest_trainable(const struct llmmem_model *m, const struct llmmem_config *c, bool full)
{
    if (!full) {
        const int64_t w = m->intermediate_size > m->hidden_size ? m->intermediate_size : m->hidden_size;
        return (uint64_t)(c->lora_rank > 0 ? c->lora_rank : 0) * (uint64_t)(w > 0 ? w : 0);
    }
    uint64_t n = 0;
    for (int i = 0; i < m->tensors.n; i++)
        n = llmmem__max(n, (uint64_t)m->tensors.t[i].rows * (uint64_t)m->tensors.t[i].cols);
    return n;
}

/* One ZeRO estimate: partitions the training model stage by stage, adds the
 * buffers, moves what is offloaded. */
static int zero_shard(llmmem__engine_run *r)
{
    const struct llmmem_config *cfg = &r->c;
    zero_run *z = LLMMEM__ENGINE_STATE(zero_run, r);
    memset(z, 0, sizeof *z);
    z->t = &r->t;
    z->x = &r->x;
    z->stage = (int)cfg->zero_stage;
    z->N = (uint64_t)r->l.dp;
    z->per_node = (uint64_t)r->l.per_node;
    z->P = (uint64_t)r->t.st.params;
    z->trainable = (uint64_t)r->t.st.trainable;
    z->pb = (uint64_t)(r->t.st.weight_bytes > 0 ? r->t.st.weight_bytes : 2);
    z->gb = (uint64_t)(r->t.st.grad_bytes > 0 ? r->t.st.grad_bytes : 2);
    z->pin = cfg->offload_pin_memory != LLMMEM__TRI_OFF;
    z->largest = zero_largest_trainable(r->m, cfg, z->trainable == z->P);
    zero_shard_states(z, r->m, cfg);
    if (z->o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "ZeRO estimate overflows 64-bit byte counts");
    if (z->stage == 0)
        llmmem__result_note(r->out, "ZeRO stage 0: states replicated as in DDP; gradient all-reduce "
                                    "buffers not counted");
    if (z->stage < 3 && cfg->offload_optimizer == LLMMEM__OFFLOAD_NVME)
        llmmem__result_note(r->out, "offload_optimizer nvme at ZeRO stage %d: stages 1-2 have no NVMe swapper "
                                    "(stage_1_and_2.py sets cpu_offload for any device), the optimizer stays "
                                    "in host RAM (host_bytes)",
                            (int)z->stage);
    r->host_pinned = z->pinned;
    r->host_pageable = z->pageable;
    r->nvme = z->nvme;
    r->sharded = z->sharded;
    return LLMMEM_OK;
}

/* DeepSpeed's own choice of fp32 masters: a bf16/fp16 config casts the module
 * to 16 bits (engine.py _configure_distributed_model) and the optimizer keeps
 * fp32 partitions (zero/stage_1_and_2.py single_partition_of_fp32_groups,
 * zero/stage3.py _create_fp32_partitions, bf16_optimizer.py / fp16 optimizer at
 * stage 0) with fp32 Adam state; stages 1-2 clone the partition even for an
 * fp32 model; gradients stay in the model dtype (engine.py get_data_types:
 * grad_accum_dtype = model dtype). */
static bool zero_masters(const struct llmmem_config *c)
{
    return llmmem__is16(llmmem__compute_of(c)) || c->zero_stage == 1 || c->zero_stage == 2;
}

/* ---- the planner ---------------------------------------------------------------- */

/* ZeRO stage 0..2 with optimizer offload to the CPU from stage 1; stage 3
 * with optimizer and parameters to none / cpu / nvme (ZeRO-Infinity). */
static int zero_variants(struct llmmem_config *c, llmmem__plan_visit visit, void *ctx, int pre)
{
    int rc = 0;
    for (int st = 0; st <= 3 && !rc; st++) {
        c->zero_stage = st;
        int max_opt = st == 0 ? 0 : st < 3 ? 1 : 2, max_par = st < 3 ? 0 : 2;
        for (int o = 0; o <= max_opt && !rc; o++)
            for (int q = 0; q <= max_par && !rc; q++) {
                c->offload_optimizer = o;
                c->offload_param = q;
                rc = visit(ctx, pre);
            }
    }
    c->offload_optimizer = c->offload_param = 0;
    return rc;
}

/* Data-parallel bytes per GPU by stage, ring collectives (Rajbhandari et al.
 * 2020 "ZeRO" section 7: stage 1/2 = 2 x params, stage 3 = 3 x params); also
 * Megatron-DeepSpeed's over its data-parallel group. */
double llmmem__zero_dp_seconds(const struct llmmem_config *c, const llmmem__dp_traffic *d)
{
    const double n = d->n_dp, G_B = d->G_B, W_B = d->W_B;
    double bytes;
    switch (c->zero_stage) {
    case 0: bytes = 2 * llmmem__ring(n) * G_B; break;
    case 1: bytes = llmmem__ring(n) * (G_B + W_B); break;
    /* stage 2 reduce-scatters gradients every micro-step */
    case 2: bytes = d->ga * llmmem__ring(n) * G_B + llmmem__ring(n) * W_B; break;
    /* stage 3: all-gather in forward and backward, reduce-scatter, every micro-step */
    default: bytes = d->ga * llmmem__ring(n) * (2 * W_B + G_B); break;
    }
    return bytes / d->bw;
}

/* offload_optimizer from stage 1, offload_param at stage 3. */
static void zero_offloads(const struct llmmem_config *c, int *opt_dev, int *param_dev)
{
    if (c->zero_stage >= 1 && c->offload_optimizer)
        *opt_dev = (int)c->offload_optimizer;
    if (c->zero_stage == 3 && c->offload_param)
        *param_dev = (int)c->offload_param;
}

static const int zero_reads[] = {LLMMEM_P_ZERO_STAGE,
                                 LLMMEM_P_OFFLOAD_OPTIMIZER,
                                 LLMMEM_P_OFFLOAD_PARAM,
                                 LLMMEM_P_REDUCE_BUCKET_SIZE,
                                 LLMMEM_P_ALLGATHER_BUCKET_SIZE,
                                 LLMMEM_P_CONTIGUOUS_GRADIENTS,
                                 LLMMEM_P_OVERLAP_COMM,
                                 LLMMEM_P_STAGE3_MAX_LIVE_PARAMETERS,
                                 LLMMEM_P_STAGE3_PREFETCH_BUCKET_SIZE,
                                 LLMMEM_P_STAGE3_PARAM_PERSISTENCE_THRESHOLD,
                                 LLMMEM_P_ZERO_HPZ_PARTITION_SIZE,
                                 LLMMEM_P_ACCOUNTING,
                                 LLMMEM_P_ZERO_INIT,
                                 LLMMEM_P_OFFLOAD_PIN_MEMORY,
                                 0};
static const int zero_plan_options[] = {LLMMEM_P_ZERO_STAGE, LLMMEM_P_OFFLOAD_OPTIMIZER, LLMMEM_P_OFFLOAD_PARAM, 0};

const llmmem__engine llmmem__engine_zero = {
    .name = "zero",
    .fn = "llmmem_estimate_zero",
    .gate = LLMMEM_P_ENGINE,
    .value = LLMMEM_ENGINE_ZERO,
    .flags = LLMMEM__CAP_ZERO | LLMMEM__CAP_ZERO_OFFLOAD | LLMMEM__CAP_FUSED_ADAM | LLMMEM__CAP_TORCH_RECOMPUTE,
    .reads = zero_reads,
    .precision_source = LLMMEM__STR("DeepSpeed: 16-bit module, fp32 optimizer partitions and Adam state, grads "
                                    "in the model dtype (zero/stage_1_and_2.py, stage3.py, engine.py "
                                    "get_data_types)"),
    .masters = zero_masters,
    .no_replay = "a multi-GPU engine",
    .check = zero_check,
    .formula = zero_formula,
    .shard = zero_shard,
    .terms = zero_terms,
    .plan_options = zero_plan_options,
    .variants = zero_variants,
    .dp_seconds = llmmem__zero_dp_seconds,
    .offloads = zero_offloads,
};
