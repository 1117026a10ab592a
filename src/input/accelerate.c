/* accelerate config files (accelerate/commands/config/config_args.py,
 * `accelerate launch --config_file`): the distributed type, processes,
 * mixed precision, the dynamo (torch.compile) section, and the FSDP and
 * DeepSpeed plugin sections. docs/research/training-recipes.md §9.5. */
#include "input/framework.h"

#include <stdio.h>
#include <string.h>

static const char *const ignored[] = {
    "compute_environment", "debug", "machine_rank", "main_process_ip", "main_process_port",
    "main_training_function", "rdzv_backend", "same_network", "tpu_env", "tpu_use_cluster", "tpu_use_sudo",
    "downcast_bf16", "enable_cpu_affinity", "gpu_ids", "num_machines", "ipex_config", "mpirun_config",
    "megatron_lm_config", "commands", "command_file", "tpu_name", "tpu_zone", NULL};

/* distributed_type onto the engine. */
static int read_distributed(fw_ctx *x, const llmmem__jnode *root)
{
    const char *dt;
    int rc = llmmem__fw_str(&dt, x, root, "distributed_type", "distributed_type");
    if (rc || !dt)
        return rc;
    const llmmem__jnode *n = llmmem__fw_get(root, "distributed_type");
    const char *engine = !strcmp(dt, "NO") ? "single"
                         : !strcmp(dt, "MULTI_GPU") ? "ddp"
                         : !strcmp(dt, "FSDP") ? "fsdp"
                         : !strcmp(dt, "DEEPSPEED") ? "zero"
                                                    : NULL;
    if (!engine)
        return llmmem__fw_refuse(x, n, "distributed_type", "\"%.20s\" is not modelled (NO, MULTI_GPU, FSDP, DEEPSPEED)", dt);
    if ((rc = llmmem__fw_set(x, LLMMEM_P_ENGINE, engine, n, "distributed_type")) != 0)
        return rc;
    int64_t procs = 1, machines = 1;
    bool have_p, have_m;
    if ((rc = llmmem__fw_int(&procs, &have_p, x, root, "num_processes", "num_processes")) != 0 ||
        (rc = llmmem__fw_int(&machines, &have_m, x, root, "num_machines", "num_machines")) != 0)
        return rc;
    /* num_processes counts every process over all machines (launch.py) */
    if (have_p && strcmp(engine, "single") &&
        ((rc = llmmem__fw_set_i64(x, LLMMEM_P_NUM_GPUS, procs, llmmem__fw_get(root, "num_processes"), "num_processes")) != 0 ||
         (rc = llmmem__fw_set_i64(x, LLMMEM_P_DATA_PARALLEL, procs, llmmem__fw_get(root, "num_processes"), "num_processes")) != 0))
        return rc;
    if (have_m && machines > 1 && have_p && procs % machines == 0 &&
        (rc = llmmem__fw_set_i64(x, LLMMEM_P_GPUS_PER_NODE, procs / machines, llmmem__fw_get(root, "num_machines"), "num_machines")))
        return rc;
    return LLMMEM_OK;
}

/* mixed_precision: no, fp16, bf16 (fp8 refused): autocast to that dtype. Under
 * FSDP it is also the FSDP plugin's MixedPrecision policy, param_dtype and
 * reduce_dtype both that dtype (accelerate 1.15 state.py:1015
 * fsdp_plugin.set_mixed_precision(self._mixed_precision); utils/dataclasses.py:2136
 * dtype_args = {"param_dtype": dtype, "reduce_dtype": dtype}): the units
 * all-gather and compute in 16 bits over the stored (fp32) shards, which the
 * optimizer steps, and reduce-scatter their gradients in 16 bits. */
static int read_precision(fw_ctx *x, const llmmem__jnode *root)
{
    const char *mp;
    int rc = llmmem__fw_str(&mp, x, root, "mixed_precision", "mixed_precision");
    if (rc || !mp)
        return rc;
    const llmmem__jnode *n = llmmem__fw_get(root, "mixed_precision");
    if (!strcmp(mp, "no"))
        return LLMMEM_OK;
    if (strcmp(mp, "bf16") && strcmp(mp, "fp16"))
        return llmmem__fw_refuse(x, n, "mixed_precision", "\"%.20s\" is not modelled (no, fp16, bf16)", mp);
    if ((rc = llmmem__fw_set(x, LLMMEM_P_COMPUTE_DTYPE, mp, n, "mixed_precision")) != 0)
        return rc;
    const llmmem__jnode *dt = llmmem__fw_get(root, "distributed_type");
    if (!dt || !llmmem__json_is_string(dt) || strcmp(llmmem__json_string(dt), "FSDP"))
        return LLMMEM_OK;
    if ((rc = llmmem__fw_set(x, LLMMEM_P_FSDP_PARAM_DTYPE, mp, n, "mixed_precision")) != 0)
        return rc;
    return llmmem__fw_set(x, LLMMEM_P_FSDP_REDUCE_DTYPE, mp, n, "mixed_precision");
}

/* dynamo_config: Accelerator(dynamo_plugin) compiles the whole model, or each
 * repeated block with dynamo_use_regional_compilation. */
static int read_dynamo(fw_ctx *x, const llmmem__jnode *root)
{
    const llmmem__jnode *dc = llmmem__fw_get(root, "dynamo_config");
    if (!dc)
        return LLMMEM_OK;
    if (!llmmem__json_is_object(dc))
        return llmmem__input_type_error(x->doc, dc, "dynamo_config", "a mapping");
    const char *backend, *mode;
    int rc, regional;
    if ((rc = llmmem__fw_str(&backend, x, dc, "dynamo_backend", "dynamo_config.dynamo_backend")) != 0 ||
        (rc = llmmem__fw_str(&mode, x, dc, "dynamo_mode", "dynamo_config.dynamo_mode")) != 0 ||
        (rc = llmmem__fw_bool(&regional, x, dc, "dynamo_use_regional_compilation",
                      "dynamo_config.dynamo_use_regional_compilation")) != 0)
        return rc;
    if (!backend || !strcmp(backend, "NO") || !strcmp(backend, "no"))
        return LLMMEM_OK;
    if (strcmp(backend, "INDUCTOR") && strcmp(backend, "inductor"))
        return llmmem__fw_refuse(x, llmmem__fw_get(dc, "dynamo_backend"), "dynamo_config.dynamo_backend",
                         "only the inductor backend's partitioning is modelled");
    if (mode && strcmp(mode, "default"))
        return llmmem__fw_refuse(x, llmmem__fw_get(dc, "dynamo_mode"), "dynamo_config.dynamo_mode",
                         "reduce-overhead/max-autotune keep CUDA-graph pools and autotuning workspaces; not modelled");
    return llmmem__fw_set(x, LLMMEM_P_COMPILE, regional == 1 ? "layers" : "model", llmmem__fw_get(dc, "dynamo_backend"),
                  "dynamo_config.dynamo_backend");
}

/* fsdp_config (FullyShardedDataParallelPlugin): version, sharding, offload,
 * activation checkpointing; the rest noted. */
static int read_fsdp(fw_ctx *x, const llmmem__jnode *fc)
{
    int rc, b;
    int64_t v;
    bool have;
    if ((rc = llmmem__fw_int(&v, &have, x, fc, "fsdp_version", "fsdp_config.fsdp_version")) != 0)
        return rc;
    if (have && (rc = llmmem__fw_set_i64(x, LLMMEM_P_FSDP_VERSION, v, llmmem__fw_get(fc, "fsdp_version"), "fsdp_config.fsdp_version")))
        return rc;
    const llmmem__jnode *rs = llmmem__fw_get(fc, "fsdp_reshard_after_forward"), *ss = llmmem__fw_get(fc, "fsdp_sharding_strategy");
    const llmmem__jnode *strat = rs && llmmem__json_is_string(rs) ? rs : ss;
    if (strat && llmmem__json_is_string(strat)) {
        char low[32];
        llmmem__input_lower_copy(low, sizeof low, llmmem__json_string(strat));
        if ((rc = llmmem__fw_set(x, LLMMEM_P_FSDP_SHARDING, low, strat, rs == strat ? "fsdp_config.fsdp_reshard_after_forward"
                                                                             : "fsdp_config.fsdp_sharding_strategy")))
            return rc;
    } else if (rs && llmmem__json_is_bool(rs) && !llmmem__json_true(rs) &&
               (rc = llmmem__fw_set(x, LLMMEM_P_FSDP_SHARDING, "shard_grad_op", rs, "fsdp_config.fsdp_reshard_after_forward"))) {
        return rc;
    }
    if ((rc = llmmem__fw_bool(&b, x, fc, "fsdp_offload_params", "fsdp_config.fsdp_offload_params")) != 0)
        return rc;
    if (b >= 0 && (rc = llmmem__fw_set_i64(x, LLMMEM_P_FSDP_CPU_OFFLOAD, b, llmmem__fw_get(fc, "fsdp_offload_params"),
                                   "fsdp_config.fsdp_offload_params")))
        return rc;
    if ((rc = llmmem__fw_bool(&b, x, fc, "fsdp_activation_checkpointing", "fsdp_config.fsdp_activation_checkpointing")) != 0)
        return rc;
    if (b == 1 && (rc = llmmem__fw_set(x, LLMMEM_P_CHECKPOINTING, "full", llmmem__fw_get(fc, "fsdp_activation_checkpointing"),
                               "fsdp_config.fsdp_activation_checkpointing")))
        return rc;
    static const char *const read[] = {"fsdp_version", "fsdp_reshard_after_forward", "fsdp_sharding_strategy",
                                       "fsdp_offload_params", "fsdp_activation_checkpointing", NULL};
    char names[LLMMEM__NOTE_MAX] = "";
    size_t used = 0;
    for (const llmmem__jnode *it = llmmem__json_first(fc); it; it = llmmem__json_next(it))
        if (!llmmem__fw_in(llmmem__json_key(it), read) && used + 4 < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                                     llmmem__json_key(it) + (strncmp(llmmem__json_key(it), "fsdp_", 5) ? 0 : 5));
    if (used)
        llmmem__fw_note(x, "fsdp_config %s: the fsdp engine's wrapping and prefetch defaults are used", names);
    return LLMMEM_OK;
}

/* deepspeed_config (DeepSpeedPlugin): stage, offload devices, accumulation. */
static int read_deepspeed(fw_ctx *x, const llmmem__jnode *dc)
{
    int rc;
    const llmmem__jnode *n;
    if ((n = llmmem__fw_get(dc, "deepspeed_config_file")))
        return llmmem__fw_refuse(x, n, "deepspeed_config.deepspeed_config_file",
                         "pass the DeepSpeed config itself (--deepspeed-config, llmmem_config_apply_deepspeed_file)");
    if ((n = llmmem__fw_get(dc, "zero_stage")) &&
        (rc = llmmem__input_set_param(x->doc, x->cfg, LLMMEM_P_ZERO_STAGE, n, "deepspeed_config.zero_stage")))
        return rc;
    if ((n = llmmem__fw_get(dc, "offload_optimizer_device")) &&
        (rc = llmmem__input_set_offload(x->doc, x->cfg, LLMMEM_P_OFFLOAD_OPTIMIZER, n,
                                        "deepspeed_config.offload_optimizer_device")))
        return rc;
    if ((n = llmmem__fw_get(dc, "offload_param_device")) &&
        (rc = llmmem__input_set_offload(x->doc, x->cfg, LLMMEM_P_OFFLOAD_PARAM, n, "deepspeed_config.offload_param_device")))
        return rc;
    if ((n = llmmem__fw_get(dc, "gradient_accumulation_steps")) &&
        (rc = llmmem__input_set_param(x->doc, x->cfg, LLMMEM_P_GRAD_ACCUM_STEPS, n,
                                      "deepspeed_config.gradient_accumulation_steps")))
        return rc;
    if ((n = llmmem__fw_get(dc, "zero3_init_flag")) && llmmem__json_is_bool(n) &&
        (rc = llmmem__fw_set_i64(x, LLMMEM_P_ZERO_INIT, llmmem__json_true(n), n, "deepspeed_config.zero3_init_flag")))
        return rc;
    static const char *const read[] = {"zero_stage", "offload_optimizer_device", "offload_param_device",
                                       "gradient_accumulation_steps", "zero3_init_flag", "gradient_clipping",
                                       "zero3_save_16bit_model", NULL};
    for (const llmmem__jnode *it = llmmem__json_first(dc); it; it = llmmem__json_next(it))
        if (!llmmem__fw_in(llmmem__json_key(it), read))
            llmmem__fw_unread(x, "deepspeed_config.<key>");
    return LLMMEM_OK;
}

int llmmem__accelerate_apply(fw_ctx *x, const llmmem__jnode *root)
{
    static const char *const read[] = {"distributed_type", "num_processes", "mixed_precision", "dynamo_config",
                                       "fsdp_config", "deepspeed_config", "use_cpu", NULL};
    int rc, cpu;
    if ((rc = llmmem__fw_bool(&cpu, x, root, "use_cpu", "use_cpu")) != 0)
        return rc;
    if (cpu == 1)
        return llmmem__fw_refuse(x, llmmem__fw_get(root, "use_cpu"), "use_cpu", "the estimate is for CUDA GPUs");
    if ((rc = read_distributed(x, root)) != 0 || (rc = read_precision(x, root)) != 0 ||
        (rc = read_dynamo(x, root)) != 0)
        return rc;
    const llmmem__jnode *n;
    if ((n = llmmem__fw_get(root, "fsdp_config")) && llmmem__json_is_object(n) && (rc = read_fsdp(x, n)) != 0)
        return rc;
    if ((n = llmmem__fw_get(root, "deepspeed_config")) && llmmem__json_is_object(n) && (rc = read_deepspeed(x, n)) != 0)
        return rc;
    for (const llmmem__jnode *it = llmmem__json_first(root); it; it = llmmem__json_next(it)) {
        const char *k = llmmem__json_key(it);
        llmmem__fw_tally(x, k, read, ignored);
    }
    return LLMMEM_OK;
}
