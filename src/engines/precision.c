/* The precision each training engine runs with where the config leaves it to
 * the engine (master_weights, grad_dtype, optimizer_state_dtype "auto"), read
 * from the engine's own code, and the dtypes the result reports.
 *
 *   single, ddp  torch.optim steps the parameters themselves: no masters; HF
 *                Trainer's bf16=True on an fp32 model is torch.autocast
 *                (accelerate native_amp), a bf16 model trains in bf16.
 *   fsdp         the sharded parameters are the optimizer's
 *                (fsdp/_fully_shard/_fsdp_param.py, fsdp/_flat_param.py): with a
 *                MixedPrecisionPolicy they are the fp32 master copy, no other.
 *   zero         bf16/fp16 config: the module is cast to 16 bits
 *                (engine.py _configure_distributed_model) and the optimizer
 *                keeps fp32 partitions (zero/stage_1_and_2.py
 *                single_partition_of_fp32_groups, zero/stage3.py
 *                _create_fp32_partitions, bf16_optimizer.py / fp16 optimizer at
 *                stage 0) with fp32 Adam state; stages 1-2 clone the partition
 *                even for an fp32 model; gradients stay in the model dtype
 *                (engine.py get_data_types: grad_accum_dtype = model dtype).
 *   megatron     --bf16 / --fp16: fp32 main params and Adam state
 *                (megatron/core/optimizer/optimizer.py
 *                Float16OptimizerWithFloat16Params, distrib_optimizer.py); fp32
 *                main grads with --bf16 (training/arguments.py forces
 *                accumulate_allreduce_grads_in_fp32), 16-bit with --fp16.
 *   megatron_deepspeed  DeepSpeed's optimizer over Megatron's model: as zero. */
#include "engines/engines.h"

#include <stdio.h>
#include <string.h>

static bool is16(int64_t dt) { return dt == LLMMEM__DT_BF16 || dt == LLMMEM__DT_FP16; }

/* The dtype the matmuls run in: compute_dtype, else param_dtype. */
static int64_t compute_of(const struct llmmem_config *c)
{
    return c->compute_dtype != LLMMEM__DT_AUTO ? c->compute_dtype : c->param_dtype;
}

/* The engine's own choice of separate fp32 masters. */
static bool engine_masters(const struct llmmem_config *c, int engine)
{
    switch (engine) {
    case LLMMEM__ENG_ZERO:
        return is16(compute_of(c)) || c->zero_stage == 1 || c->zero_stage == 2;
    case LLMMEM__ENG_MEGATRON_DEEPSPEED:
        return is16(compute_of(c)) || c->zero_stage >= 1;
    case LLMMEM__ENG_MEGATRON: return is16(compute_of(c));
    default: return false;
    }
}

static llmmem__str engine_source(int engine)
{
    switch (engine) {
    case LLMMEM__ENG_ZERO:
        return LLMMEM__STRV("DeepSpeed: 16-bit module, fp32 optimizer partitions and Adam state, grads in the "
                           "model dtype (zero/stage_1_and_2.py, stage3.py, engine.py get_data_types)");
    case LLMMEM__ENG_MEGATRON:
        return LLMMEM__STRV("Megatron --bf16/--fp16: fp32 main params and Adam state, fp32 main grads with "
                           "bf16 (optimizer.py Float16OptimizerWithFloat16Params, arguments.py)");
    case LLMMEM__ENG_MEGATRON_DEEPSPEED:
        return LLMMEM__STRV("Megatron-DeepSpeed: DeepSpeed's optimizer, fp32 masters and Adam state, grads in "
                           "the model dtype (zero/stage_1_and_2.py)");
    case LLMMEM__ENG_FSDP:
        return LLMMEM__STRV("FSDP: the sharded parameters are the optimizer's, no separate masters "
                           "(_fully_shard/_fsdp_param.py, _flat_param.py)");
    default:
        return LLMMEM__STRV("PyTorch: the optimizer steps the parameters, no masters; fp32 weights with 16-bit "
                           "compute = torch.autocast (HF Trainer bf16/fp16)");
    }
}

int llmmem__engine_precision(struct llmmem_config *out, const struct llmmem_config *c, int engine)
{
    memcpy(out, c, sizeof *out);
    if (c->master_weights == LLMMEM__MASTER_AUTO)
        out->master_weights = engine_masters(c, engine) ? LLMMEM__MASTER_ON : LLMMEM__MASTER_OFF;
    /* Megatron's main-grad buffer: fp32 with --bf16, the 16-bit dtype with --fp16
     * (accumulate_allreduce_grads_in_fp32 defaults to False there). */
    if (engine == LLMMEM__ENG_MEGATRON && c->grad_dtype == LLMMEM__DT_AUTO &&
        out->master_weights == LLMMEM__MASTER_ON)
        out->grad_dtype = compute_of(c) == LLMMEM__DT_BF16 ? LLMMEM__DT_FP32 : compute_of(c);
    return LLMMEM_OK;
}

/* The 16-bit dtype of a run: compute, else param, else bf16. */
static int64_t dtype16(const struct llmmem_config *c)
{
    if (is16(compute_of(c)))
        return compute_of(c);
    return is16(c->param_dtype) ? c->param_dtype : LLMMEM__DT_BF16;
}

/* A dtype enum from bytes per element (2: the run's 16-bit dtype). */
static int64_t dtype_of_bytes(const struct llmmem_config *c, int bytes)
{
    switch (bytes) {
    case 4: return LLMMEM__DT_FP32;
    case 2: return dtype16(c);
    case 1: return LLMMEM__DT_FP8;
    default: return 0;
    }
}

void llmmem__engine_precision_report(struct llmmem_result *r, const struct llmmem_config *orig,
                                     const struct llmmem_config *c, const llmmem__states *st,
                                     int engine, int64_t stored, int64_t grad)
{
    const bool defaulted = orig->master_weights == LLMMEM__MASTER_AUTO ||
                           orig->grad_dtype == LLMMEM__DT_AUTO ||
                           orig->optimizer_state_dtype == LLMMEM__DT_AUTO;
    if (stored == 0) /* with masters the module runs in the compute dtype */
        stored = c->master_weights == LLMMEM__MASTER_ON ? compute_of(c) : c->param_dtype;
    llmmem__result_set_i64(r, LLMMEM_R_PARAM_DTYPE, stored);
    llmmem__result_set_i64(r, LLMMEM_R_COMPUTE_DTYPE, compute_of(c));
    const bool master = st->master > 0 || c->master_weights == LLMMEM__MASTER_ON;
    llmmem__result_set_i64(r, LLMMEM_R_MASTER_DTYPE, master ? LLMMEM__DT_FP32 : 0);
    llmmem__result_set_i64(r, LLMMEM_R_GRAD_DTYPE, grad ? grad : dtype_of_bytes(c, st->grad_bytes));
    int64_t state = llmmem__optim_state_rdt((int)c->optimizer);
    if (!state)
        state = dtype_of_bytes(c, st->state_bytes);
    llmmem__result_set_i64(r, LLMMEM_R_OPTIMIZER_STATE_DTYPE, state);
    static const llmmem__str names[] = {LLMMEM__STR("none"), LLMMEM__STR("fp32"), LLMMEM__STR("fp16"),
                                        LLMMEM__STR("bf16"), LLMMEM__STR("fp8"),  LLMMEM__STR("int8"),
                                        LLMMEM__STR("int4")};
    const int64_t g = r->v[LLMMEM_R_GRAD_DTYPE - LLMMEM_R_PARAMS].i;
    const llmmem__str parts[] = {LLMMEM__STR("precision: "),
                                 names[stored],
                                 LLMMEM__STR(" weights, "),
                                 names[compute_of(c)],
                                 LLMMEM__STR(" compute, "),
                                 master ? LLMMEM__STRV("fp32") : LLMMEM__STRV("no"),
                                 LLMMEM__STR(" masters, "),
                                 names[g],
                                 LLMMEM__STR(" grads, "),
                                 names[state],
                                 LLMMEM__STR(" optimizer state ("),
                                 defaulted ? LLMMEM__STRV("engine defaults: ") : LLMMEM__STRV("as configured; "),
                                 engine_source(engine),
                                 LLMMEM__STR(")")};
    llmmem__result_note_cat(r, parts, (int)LLMMEM_ARRAY_LEN(parts));
}
