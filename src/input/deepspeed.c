/* A DeepSpeed ds_config.json onto a configuration:
 * llmmem_config_apply_deepspeed_json, and the inline "deepspeed" object of HF
 * TrainingArguments (training_args.c). Keys as DeepSpeed reads them
 * (deepspeed/runtime/config.py, zero/config.py); "auto" as HF Trainer resolves
 * it. Every error names the key path, the value and source:line:col. */
#include "input/input.h"

#include <math.h>
#include <string.h>

static bool is_auto(const llmmem__jnode *n)
{
    return n && llmmem__json_is_string(n) && strcmp(llmmem__json_string(n), "auto") == 0;
}

/* Integer-valued key that may be "auto": sets the parameter, resolves "auto"
 * with `auto_value` (< 0: cannot be resolved here, left as is). */
static int ds_int(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *obj,
                  const char *key, const char *prefix, int id, int64_t auto_value)
{
    const llmmem__jnode *n = llmmem__json_get(obj, key);
    if (!n || llmmem__json_is_null(n))
        return LLMMEM_OK;
    char path[LLMMEM__KEYPATH_MAX];
    llmmem__input_join_path(path, sizeof path, prefix, key);
    if (is_auto(n))
        return auto_value >= 0 ? llmmem__input_set_i64(doc, cfg, id, auto_value, n, path)
                               : LLMMEM_OK;
    if (!llmmem__json_is_number(n))
        return llmmem__input_type_error(doc, n, path, "an integer or \"auto\"");
    /* DeepSpeed accepts 5e8 written as a real number */
    double d = llmmem__json_number(n);
    if (!isfinite(d) || d != floor(d) || fabs(d) > 9.0e18)
        return llmmem__input_type_error(doc, n, path, "an integer or \"auto\"");
    return llmmem__input_set_i64(doc, cfg, id, (int64_t)d, n, path);
}

static int ds_bool(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *obj,
                   const char *key, const char *prefix, int id, bool tristate)
{
    const llmmem__jnode *n = llmmem__json_get(obj, key);
    if (!n || llmmem__json_is_null(n) || is_auto(n))
        return LLMMEM_OK;
    char path[LLMMEM__KEYPATH_MAX];
    llmmem__input_join_path(path, sizeof path, prefix, key);
    if (!llmmem__json_is_bool(n))
        return llmmem__input_type_error(doc, n, path, "true or false");
    if (tristate)
        return llmmem__input_set_str(doc, cfg, id, llmmem__json_true(n) ? "on" : "off", n, path);
    return llmmem__input_set_i64(doc, cfg, id, llmmem__json_true(n) ? 1 : 0, n, path);
}

/* "bf16": {"enabled": true}: *out 1 enabled, 0 disabled, -1 absent/auto. */
static int ds_enabled(int *out, const llmmem__json *doc, const llmmem__jnode *root, const char *key)
{
    *out = -1;
    const llmmem__jnode *o = llmmem__json_get(root, key);
    if (!o || llmmem__json_is_null(o))
        return LLMMEM_OK;
    if (!llmmem__json_is_object(o))
        return llmmem__input_type_error(doc, o, key, "an object");
    const llmmem__jnode *e = llmmem__json_get(o, "enabled");
    char path[LLMMEM__KEYPATH_MAX];
    llmmem__input_join_path(path, sizeof path, key, "enabled");
    if (!e || is_auto(e))
        return LLMMEM_OK; /* HF Trainer fills it from --bf16/--fp16 */
    if (!llmmem__json_is_bool(e))
        return llmmem__input_type_error(doc, e, path, "true, false or \"auto\"");
    *out = llmmem__json_true(e) ? 1 : 0;
    return LLMMEM_OK;
}

/* DeepSpeed optimizer.type, lower case (config/optimizers.def
 * LLMMEM__OPTIMIZER_DEEPSPEED). */
static const struct {
    const char *type;
    int optimizer; /* LLMMEM_OPTIMIZER_* */
    int impl;      /* LLMMEM__IMPL_*, -1: leave */
    bool adam;     /* reads params.adam_w_mode and params.torch_adam */
} ds_optim[] = {
#define SPELLING(type, V, I, adam) {type, LLMMEM_OPTIMIZER_##V, LLMMEM__OPTIM_IMPL(I), adam},
    LLMMEM__OPTIMIZER_DEEPSPEED(SPELLING)
#undef SPELLING
};

/* The Adam family's params: adam_w_mode false is torch Adam (L2 in the
 * gradient), torch_adam true runs torch.optim's foreach kernels instead. */
static void ds_adam_params(const llmmem__jnode *o, const char **opt, const char **impl)
{
    const llmmem__jnode *p = llmmem__json_get(o, "params");
    const llmmem__jnode *wm = p ? llmmem__json_get(p, "adam_w_mode") : NULL;
    if (wm && llmmem__json_is_bool(wm) && !llmmem__json_true(wm))
        *opt = "adam";
    const llmmem__jnode *ta = p ? llmmem__json_get(p, "torch_adam") : NULL;
    if (ta && llmmem__json_is_bool(ta) && llmmem__json_true(ta))
        *impl = "foreach";
}

static int ds_optimizer(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root)
{
    const llmmem__jnode *o = llmmem__json_get(root, "optimizer");
    if (!o || llmmem__json_is_null(o))
        return LLMMEM_OK;
    if (!llmmem__json_is_object(o))
        return llmmem__input_type_error(doc, o, "optimizer", "an object");
    const llmmem__jnode *t = llmmem__json_get(o, "type");
    if (!t || is_auto(t))
        return LLMMEM_OK;
    if (!llmmem__json_is_string(t))
        return llmmem__input_type_error(doc, t, "optimizer.type", "an optimizer name");
    char low[64];
    llmmem__input_lower_copy(low, sizeof low, llmmem__json_string(t));
    size_t i = 0;
    while (i < LLMMEM_ARRAY_LEN(ds_optim) && strcmp(ds_optim[i].type, low) != 0)
        i++;
    if (i == LLMMEM_ARRAY_LEN(ds_optim))
        return llmmem__json_error_at(doc, t, LLMMEM_E_UNSUPPORTED, "optimizer.type",
                                     "DeepSpeed optimizer \"%.60s\" is not modelled",
                                     llmmem__json_string(t));
    const char *opt = llmmem_param_enum_name(LLMMEM_P_OPTIMIZER, ds_optim[i].optimizer);
    const char *impl = ds_optim[i].impl >= 0 ? llmmem_param_enum_name(LLMMEM_P_OPTIMIZER_IMPL, ds_optim[i].impl) : NULL;
    if (ds_optim[i].adam)
        ds_adam_params(o, &opt, &impl);
    int rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_OPTIMIZER, opt, t, "optimizer.type");
    if (rc == 0 && impl)
        rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_OPTIMIZER_IMPL, impl, t, "optimizer.type");
    return rc;
}

/* Mixed precision: DeepSpeed holds bf16/fp16 weights and fp32 masters in the
 * optimizer (deepspeed/runtime/bf16_optimizer.py, zero/stage_1_and_2.py
 * single_partition_of_fp32_groups). Neither enabled: fp32 training. */
static int ds_precision(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root)
{
    int bf16, fp16, rc;
    if ((rc = ds_enabled(&bf16, doc, root, "bf16")) != 0 ||
        (rc = ds_enabled(&fp16, doc, root, "fp16")) != 0)
        return rc;
    if (bf16 == 1 && fp16 == 1)
        return llmmem__json_error_at(doc, llmmem__json_get(root, "fp16"), LLMMEM_E_INCONSISTENT,
                                     "fp16.enabled", "bf16 and fp16 are both enabled");
    const char *dt = bf16 == 1 ? "bf16" : fp16 == 1 ? "fp16" : NULL;
    if (!dt && bf16 == 0 && fp16 <= 0 && llmmem__json_get(root, "bf16"))
        dt = "fp32";
    if (!dt && fp16 == 0 && bf16 <= 0 && llmmem__json_get(root, "fp16"))
        dt = "fp32";
    if (!dt)
        return LLMMEM_OK;
    if ((rc = llmmem_config_set_str(cfg, LLMMEM_P_PARAM_DTYPE, dt)) != 0 ||
        (rc = llmmem_config_set_str(cfg, LLMMEM_P_COMPUTE_DTYPE, dt)) != 0 ||
        (rc = llmmem_config_set_i64(cfg, LLMMEM_P_MASTER_WEIGHTS, strcmp(dt, "fp32") != 0)) != 0)
        return rc;
    return LLMMEM_OK;
}

/* zero_optimization.offload_optimizer / offload_param, and the legacy
 * cpu_offload: true. */
static int ds_zero_offload(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *z)
{
    const llmmem__jnode *n;
    int rc;
    if ((n = llmmem__json_get(z, "offload_optimizer")) != NULL &&
        (rc = llmmem__input_set_offload(doc, cfg, LLMMEM_P_OFFLOAD_OPTIMIZER, n,
                                        "zero_optimization.offload_optimizer")) != 0)
        return rc;
    if ((n = llmmem__json_get(z, "offload_param")) != NULL &&
        (rc = llmmem__input_set_offload(doc, cfg, LLMMEM_P_OFFLOAD_PARAM, n,
                                        "zero_optimization.offload_param")) != 0)
        return rc;
    if ((n = llmmem__json_get(z, "cpu_offload")) != NULL) { /* legacy spelling */
        if (!llmmem__json_is_bool(n))
            return llmmem__input_type_error(doc, n, "zero_optimization.cpu_offload",
                                            "true or false");
        if (llmmem__json_true(n) &&
            (rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_OFFLOAD_OPTIMIZER, "cpu", n,
                                        "zero_optimization.cpu_offload")) != 0)
            return rc;
    }
    return LLMMEM_OK;
}

/* Bucket sizes, hpZ and the communication switches of zero_optimization.
 * "auto" as HF Trainer resolves it (transformers/integrations/deepspeed.py,
 * HfTrainerDeepSpeedConfig.trainer_config_finalize): reduce_bucket_size = h*h;
 * stage 3: stage3_prefetch_bucket_size = int(0.9*h*h),
 * stage3_param_persistence_threshold = 10*h. Without a model (h 0) they stay
 * as they are. */
static int ds_zero_sizes(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *z,
                         int64_t h, int64_t stage)
{
    const char *zp = "zero_optimization";
    const int64_t hh = h > 0 && h < 3000000000LL ? h * h : -1;
    const struct {
        const char *key;
        int id;
        int64_t auto_value; /* < 0: "auto" left as is */
    } sizes[] = {
        {"reduce_bucket_size", LLMMEM_P_REDUCE_BUCKET_SIZE, hh},
        {"allgather_bucket_size", LLMMEM_P_ALLGATHER_BUCKET_SIZE, -1},
        {"stage3_max_live_parameters", LLMMEM_P_STAGE3_MAX_LIVE_PARAMETERS, -1},
        {"stage3_prefetch_bucket_size", LLMMEM_P_STAGE3_PREFETCH_BUCKET_SIZE,
         hh >= 0 && stage == 3 ? (int64_t)(0.9 * (double)hh) : -1},
        {"stage3_param_persistence_threshold", LLMMEM_P_STAGE3_PARAM_PERSISTENCE_THRESHOLD,
         h > 0 && stage == 3 ? 10 * h : -1},
        {"zero_hpz_partition_size", LLMMEM_P_ZERO_HPZ_PARTITION_SIZE, -1},
    };
    int rc;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(sizes); i++)
        if ((rc = ds_int(doc, cfg, z, sizes[i].key, zp, sizes[i].id, sizes[i].auto_value)) != 0)
            return rc;
    if ((rc = ds_bool(doc, cfg, z, "contiguous_gradients", zp, LLMMEM_P_CONTIGUOUS_GRADIENTS,
                      false)) != 0 ||
        (rc = ds_bool(doc, cfg, z, "overlap_comm", zp, LLMMEM_P_OVERLAP_COMM, true)) != 0)
        return rc;
    return LLMMEM_OK;
}

/* zero_optimization: the stage, then offload and sizes (which read it). */
static int ds_zero(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root,
                   const llmmem_model *model)
{
    const llmmem__jnode *z = llmmem__json_get(root, "zero_optimization");
    if (!z || llmmem__json_is_null(z))
        return LLMMEM_OK;
    if (!llmmem__json_is_object(z))
        return llmmem__input_type_error(doc, z, "zero_optimization", "an object");
    int rc;
    if ((rc = ds_int(doc, cfg, z, "stage", "zero_optimization", LLMMEM_P_ZERO_STAGE, -1)) != 0)
        return rc;
    int64_t stage = 0, h = 0;
    llmmem_config_get_i64(&stage, cfg, LLMMEM_P_ZERO_STAGE);
    if (model && llmmem_model_get_i64(&h, model, LLMMEM_M_HIDDEN_SIZE) != 0)
        h = 0;
    if ((rc = ds_zero_offload(doc, cfg, z)) != 0)
        return rc;
    return ds_zero_sizes(doc, cfg, z, h, stage);
}

int llmmem__deepspeed_apply(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg,
                            const llmmem_model *model)
{
    static const char *const keys[] = {"zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size",
                                       "gradient_accumulation_steps", "bf16", "fp16", "optimizer", NULL};
    if (!llmmem__json_is_object(root))
        return llmmem__input_type_error(doc, root, "", "a JSON object (a DeepSpeed config)");
    int rc = llmmem__input_expect_keys(doc, root, keys, "a DeepSpeed config");
    if (rc)
        return rc;
    /* The engine is DeepSpeed whatever the stage; keep Megatron-DeepSpeed. */
    int64_t eng = 0;
    llmmem_config_get_i64(&eng, cfg, LLMMEM_P_ENGINE);
    if (eng != LLMMEM__ENG_ZERO && eng != LLMMEM__ENG_MEGATRON_DEEPSPEED &&
        (rc = llmmem_config_set_str(cfg, LLMMEM_P_ENGINE, "zero")) != 0)
        return rc;
    if ((rc = ds_int(doc, cfg, root, "train_micro_batch_size_per_gpu", "",
                     LLMMEM_P_MICRO_BATCH_SIZE, -1)) != 0 ||
        (rc = ds_int(doc, cfg, root, "gradient_accumulation_steps", "", LLMMEM_P_GRAD_ACCUM_STEPS,
                     -1)) != 0 ||
        (rc = ds_precision(doc, cfg, root)) != 0 || (rc = ds_optimizer(doc, cfg, root)) != 0)
        return rc;
    return ds_zero(doc, cfg, root, model);
}

static int apply_file(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg,
                      const void *model)
{
    return llmmem__deepspeed_apply(doc, root, cfg, model);
}

int llmmem_config_apply_deepspeed_file(llmmem_config *cfg, const llmmem_model *model, const char *path)
{
    return llmmem__input_apply_file(cfg, path, "llmmem_config_apply_deepspeed_file", apply_file, model);
}

int llmmem_config_apply_deepspeed_json(llmmem_config *cfg, const llmmem_model *model,
                                       const char *json, size_t len)
{
    if (!cfg || !json)
        return llmmem__error(LLMMEM_E_INVALID_ARG,
                             "llmmem_config_apply_deepspeed_json: NULL argument");
    return llmmem__input_apply_copy(cfg, json, len, "deepspeed config", apply_file, model);
}
