/* HF TrainingArguments (transformers/training_args.py), with the keys of TRL's
 * SFTConfig and LLaMA-Factory's argument files, onto a configuration:
 * llmmem_config_apply_hf_training_args_json. Every error names the key path,
 * the value and source:line:col. */
#include "input/framework.h"

#include <stdio.h>
#include <string.h>

/* A bool-valued key; *out -1 absent, 0/1. */
static int hf_bool(int *out, const llmmem__json *doc, const llmmem__jnode *root, const char *key)
{
    *out = -1;
    const llmmem__jnode *n = llmmem__json_get(root, key);
    if (!n || llmmem__json_is_null(n))
        return LLMMEM_OK;
    if (!llmmem__json_is_bool(n))
        return llmmem__input_type_error(doc, n, key, "true or false");
    *out = llmmem__json_true(n) ? 1 : 0;
    return LLMMEM_OK;
}

static int hf_int(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root,
                  const char *key, int id)
{
    const llmmem__jnode *n = llmmem__json_get(root, key);
    if (!n || llmmem__json_is_null(n))
        return LLMMEM_OK;
    return llmmem__input_set_param(doc, cfg, id, n, key);
}

/* A key that is present and not null, else NULL. */
static const llmmem__jnode *hf_get(const llmmem__jnode *root, const char *key)
{
    const llmmem__jnode *n = llmmem__json_get(root, key);
    return n && !llmmem__json_is_null(n) ? n : NULL;
}

/* Integer keys straight onto parameters. */
static int hf_sizes(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root)
{
    static const struct {
        const char *key;
        int id;
    } sizes[] = {
        {"per_device_train_batch_size", LLMMEM_P_MICRO_BATCH_SIZE},
        {"gradient_accumulation_steps", LLMMEM_P_GRAD_ACCUM_STEPS},
        /* LLaMA-Factory cutoff_len; TRL SFTConfig max_seq_length / max_length */
        {"cutoff_len", LLMMEM_P_SEQ_LEN},
        {"max_seq_length", LLMMEM_P_SEQ_LEN},
        {"ddp_bucket_cap_mb", LLMMEM_P_BUCKET_CAP_MB},
    };
    int rc;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(sizes); i++)
        if ((rc = hf_int(doc, cfg, root, sizes[i].key, sizes[i].id)) != 0)
            return rc;
    return LLMMEM_OK;
}

/* Mixed precision: Trainer's bf16/fp16 autocast the fp32 model
 * (transformers/trainer.py: autocast_smart_context_manager); LLaMA-Factory
 * pure_bf16 stores the weights in bf16 too. */
static int hf_precision(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root)
{
    int bf16, fp16, pure, rc;
    if ((rc = hf_bool(&bf16, doc, root, "bf16")) != 0 ||
        (rc = hf_bool(&fp16, doc, root, "fp16")) != 0 ||
        (rc = hf_bool(&pure, doc, root, "pure_bf16")) != 0)
        return rc;
    if (bf16 == 1 && fp16 == 1)
        return llmmem__json_error_at(doc, llmmem__json_get(root, "fp16"), LLMMEM_E_INCONSISTENT,
                                     "fp16", "bf16 and fp16 are both true");
    if (bf16 == 1 && (rc = llmmem_config_set_str(cfg, LLMMEM_P_COMPUTE_DTYPE, "bf16")) != 0)
        return rc;
    if (fp16 == 1 && (rc = llmmem_config_set_str(cfg, LLMMEM_P_COMPUTE_DTYPE, "fp16")) != 0)
        return rc;
    if (pure == 1 && ((rc = llmmem_config_set_str(cfg, LLMMEM_P_PARAM_DTYPE, "bf16")) != 0 ||
                      (rc = llmmem_config_set_str(cfg, LLMMEM_P_COMPUTE_DTYPE, "bf16")) != 0))
        return rc;
    return LLMMEM_OK;
}

/* gradient_checkpointing and optim (OptimizerNames). */
static int hf_training(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root)
{
    const llmmem__jnode *n;
    int rc;
    if ((n = hf_get(root, "gradient_checkpointing")) != NULL &&
        (rc = llmmem__input_set_checkpointing(doc, cfg, n, "gradient_checkpointing")) != 0)
        return rc;
    if ((n = hf_get(root, "optim")) == NULL)
        return LLMMEM_OK;
    rc = llmmem__input_set_optimizer(doc, cfg, n, "optim");
    if (rc == LLMMEM_E_OUT_OF_RANGE)
        return llmmem__json_error_at(doc, n, LLMMEM_E_UNSUPPORTED, "optim",
                                     "optimizer \"%.60s\" is not modelled (see llmmem params)",
                                     llmmem__json_string(n));
    return rc;
}

/* The "fsdp" value as one text: a string, or a list of option strings joined
 * with spaces (cut at the buffer). */
static int fsdp_text(char *text, size_t cap, const llmmem__json *doc, const llmmem__jnode *n)
{
    text[0] = '\0';
    if (llmmem__json_is_string(n)) {
        snprintf(text, cap, "%s", llmmem__json_string(n));
    } else if (llmmem__json_type(n) == LLMMEM__J_ARRAY) {
        size_t used = 0;
        for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it)) {
            if (!llmmem__json_is_string(it))
                return llmmem__input_type_error(doc, it, "fsdp[]", "an FSDP option (string)");
            used += (size_t)snprintf(text + used, used < cap ? cap - used : 0, " %s",
                                     llmmem__json_string(it));
            if (used >= cap)
                used = cap - 1;
        }
    } else if (!llmmem__json_is_bool(n)) {
        return llmmem__input_type_error(doc, n, "fsdp", "FSDP options (string or list)");
    }
    return LLMMEM_OK;
}

/* A member of fsdp_config by its name or with the "fsdp_" prefix accelerate's
 * YAML uses (training_args.py strips that prefix). */
static const llmmem__jnode *fsdp_key(const llmmem__jnode *fc, const char *key, char *path, size_t cap)
{
    char pre[64];
    snprintf(pre, sizeof pre, "fsdp_%s", key);
    const llmmem__jnode *n = llmmem__json_get(fc, key);
    snprintf(path, cap, "fsdp_config.%s", n ? key : pre);
    return n ? n : llmmem__json_get(fc, pre);
}

/* fsdp_config.reshard_after_forward: a bool (FSDP2), or a sharding strategy
 * name (FSDP1, accelerate FullyShardedDataParallelPlugin). */
static int hf_fsdp_reshard(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *n,
                           const char *path)
{
    if (llmmem__json_is_bool(n))
        return llmmem__input_set_i64(doc, cfg, LLMMEM_P_FSDP_RESHARD_AFTER_FORWARD,
                                     llmmem__json_true(n) ? 1 : 0, n, path);
    return llmmem__input_set_param(doc, cfg, LLMMEM_P_FSDP_SHARDING, n, path);
}

/* FSDP through Trainer: "fsdp": "full_shard auto_wrap" (training_args.py: each
 * word an FSDPOption, else ValueError), fsdp_config (version, reshard_after_forward,
 * offload_params), and the mixed precision accelerate gives it: bf16/fp16 set
 * MixedPrecisionPolicy(param_dtype, reduce_dtype) to that dtype
 * (FullyShardedDataParallelPlugin.set_mixed_precision) and FSDP2 upcasts the
 * trainable parameters to fp32 (utils/fsdp_utils.py fsdp2_prepare_model). */
static int hf_fsdp(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root)
{
    static const char *const options[] = {"full_shard", "shard_grad_op", "no_shard", "hybrid_shard",
                                          "hybrid_shard_zero2", "offload", "auto_wrap", NULL};
    const llmmem__jnode *n = hf_get(root, "fsdp");
    char text[256] = "";
    int rc;
    if (n && (rc = fsdp_text(text, sizeof text, doc, n)) != 0)
        return rc;
    if (!text[0])
        return LLMMEM_OK;
    if ((rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_ENGINE, "fsdp", n, "fsdp")) != 0)
        return rc;
    char words[256];
    snprintf(words, sizeof words, "%s", text);
    for (char *save = NULL, *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        int k = llmmem__name_index(options, w);
        if (k < 0)
            return llmmem__json_error_at(doc, n, LLMMEM_E_OUT_OF_RANGE, "fsdp",
                                         "\"%.40s\" is not an FSDPOption (one of: full_shard, "
                                         "shard_grad_op, no_shard, hybrid_shard, hybrid_shard_zero2, "
                                         "offload, auto_wrap)",
                                         w);
        const char *strategy = k == 4 ? "hybrid_shard" : k <= 3 ? options[k] : NULL;
        if (strategy && (rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_FSDP_SHARDING, strategy, n, "fsdp")) != 0)
            return rc;
        if (k == 5 && (rc = llmmem__input_set_i64(doc, cfg, LLMMEM_P_FSDP_CPU_OFFLOAD, 1, n, "fsdp")) != 0)
            return rc;
    }
    const llmmem__jnode *fc = llmmem__json_get(root, "fsdp_config");
    char path[96];
    if (fc && llmmem__json_is_object(fc)) {
        if ((n = fsdp_key(fc, "version", path, sizeof path)) != NULL &&
            (rc = llmmem__input_set_param(doc, cfg, LLMMEM_P_FSDP_VERSION, n, path)) != 0)
            return rc;
        if ((n = fsdp_key(fc, "reshard_after_forward", path, sizeof path)) != NULL &&
            (rc = hf_fsdp_reshard(doc, cfg, n, path)) != 0)
            return rc;
        if ((n = fsdp_key(fc, "offload_params", path, sizeof path)) != NULL &&
            (rc = llmmem__input_set_param(doc, cfg, LLMMEM_P_FSDP_CPU_OFFLOAD, n, path)) != 0)
            return rc;
    }
    const int64_t mp = cfg->compute_dtype;
    if (mp == LLMMEM__DT_BF16 || mp == LLMMEM__DT_FP16) {
        n = hf_get(root, mp == LLMMEM__DT_BF16 ? "bf16" : "fp16");
        const char *name = mp == LLMMEM__DT_BF16 ? "bf16" : "fp16";
        if ((rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_FSDP_PARAM_DTYPE, name, n, name)) != 0 ||
            (rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_FSDP_REDUCE_DTYPE, name, n, name)) != 0)
            return rc;
        if (cfg->fsdp_version != 1 &&
            (rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_PARAM_DTYPE, "fp32", n, name)) != 0)
            return rc;
    }
    return LLMMEM_OK;
}

/* LLaMA-Factory finetuning_type: *lora true for "lora"; "full" sets rank 0. */
static int hf_finetuning_type(bool *lora, const llmmem__json *doc, llmmem_config *cfg,
                              const llmmem__jnode *ft)
{
    *lora = false;
    if (!ft)
        return LLMMEM_OK;
    if (!llmmem__json_is_string(ft))
        return llmmem__input_type_error(doc, ft, "finetuning_type", "lora, full or freeze");
    const char *t = llmmem__json_string(ft);
    if (strcmp(t, "lora") == 0) {
        *lora = true;
        return LLMMEM_OK;
    }
    if (strcmp(t, "full") == 0)
        return llmmem__input_set_i64(doc, cfg, LLMMEM_P_LORA_RANK, 0, ft, "finetuning_type");
    return llmmem__json_error_at(doc, ft, LLMMEM_E_UNSUPPORTED, "finetuning_type",
                                 "\"%.40s\" is not modelled (lora or full)", t);
}

/* lora_rank (default 8) and lora_alpha (default rank * 2). */
static int hf_lora_size(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root,
                        const llmmem__jnode *ft)
{
    int64_t rank = 8;
    int rc;
    const llmmem__jnode *r = llmmem__json_get(root, "lora_rank");
    if (r && (rc = llmmem__input_node_i64(&rank, doc, r, "lora_rank")) != 0)
        return rc;
    /* LLaMA-Factory passes lora_rank to peft's LoraConfig(r=...); peft 0.21
     * tuners/lora/layer.py:239 refuses r < 1 */
    if (rank <= 0)
        return llmmem__json_error_at(doc, r, LLMMEM_E_OUT_OF_RANGE, "lora_rank",
                                     "finetuning_type lora with lora_rank %lld: peft refuses a rank below 1 "
                                     "(LoraLayer.update_layer); finetuning_type full trains every weight",
                                     (long long)rank);
    if ((rc = llmmem__input_set_i64(doc, cfg, LLMMEM_P_LORA_RANK, rank, r ? r : ft,
                                    r ? "lora_rank" : "finetuning_type")) != 0)
        return rc;
    const llmmem__jnode *a = hf_get(root, "lora_alpha");
    if (a)
        return llmmem__input_set_param(doc, cfg, LLMMEM_P_LORA_ALPHA, a, "lora_alpha");
    if ((rc = llmmem_config_set_f64(cfg, LLMMEM_P_LORA_ALPHA, 2.0 * (double)rank)) != 0)
        return llmmem__input_wrap(doc, ft, "lora_alpha", rc);
    return LLMMEM_OK;
}

/* LLaMA-Factory (src/llamafactory/hparams/finetuning_args.py, model_args.py):
 * finetuning_type lora with lora_rank (default 8), lora_alpha (default
 * rank * 2), lora_target ("all" = every linear layer), lora_dropout. */
static int hf_lora(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root)
{
    const llmmem__jnode *ft = hf_get(root, "finetuning_type");
    bool lora;
    int rc;
    if ((rc = hf_finetuning_type(&lora, doc, cfg, ft)) != 0 || !lora)
        return rc;
    if ((rc = hf_lora_size(doc, cfg, root, ft)) != 0)
        return rc;
    const llmmem__jnode *t = llmmem__json_get(root, "lora_target");
    if (t && (rc = llmmem__input_set_targets(doc, cfg, t, "lora_target")) != 0)
        return rc;
    if (!t && (rc = llmmem_config_set_str(cfg, LLMMEM_P_LORA_TARGETS, "all-linear")) != 0)
        return rc; /* LLaMA-Factory's default lora_target is "all" */
    const llmmem__jnode *d = hf_get(root, "lora_dropout");
    if (d &&
        (rc = llmmem__input_set_param(doc, cfg, LLMMEM_P_LORA_DROPOUT, d, "lora_dropout")) != 0)
        return rc;
    return LLMMEM_OK;
}

/* LLaMA-Factory quantization_bit 4 (nf4, or quantization_type fp4) or 8
 * (bitsandbytes int8), and double_quantization. */
static int hf_quantization(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root)
{
    const llmmem__jnode *qb = hf_get(root, "quantization_bit");
    if (!qb)
        return LLMMEM_OK;
    int64_t bits;
    int rc;
    if ((rc = llmmem__input_node_i64(&bits, doc, qb, "quantization_bit")) != 0)
        return rc;
    const char *q = NULL;
    if (bits == 4) {
        q = "nf4";
        const llmmem__jnode *qt = llmmem__json_get(root, "quantization_type");
        if (qt && llmmem__json_is_string(qt) && strcmp(llmmem__json_string(qt), "fp4") == 0)
            q = "fp4";
    } else if (bits == 8) {
        q = "int8";
    } else {
        return llmmem__json_error_at(doc, qb, LLMMEM_E_UNSUPPORTED, "quantization_bit",
                                     "%lld-bit bitsandbytes quantization is not modelled (4 or 8)",
                                     (long long)bits);
    }
    if ((rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_QLORA, q, qb, "quantization_bit")) != 0)
        return rc;
    int dq;
    if ((rc = hf_bool(&dq, doc, root, "double_quantization")) != 0)
        return rc;
    if (dq >= 0 && (rc = llmmem__input_set_i64(doc, cfg, LLMMEM_P_QLORA_DOUBLE_QUANT, dq,
                                               llmmem__json_get(root, "double_quantization"),
                                               "double_quantization")) != 0)
        return rc;
    return LLMMEM_OK;
}

int llmmem__hf_args_apply(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg)
{
    static const char *const keys[] = {"per_device_train_batch_size", "gradient_accumulation_steps", "bf16", "fp16",
                                       "optim", "gradient_checkpointing", "fsdp", "fsdp_config", "deepspeed",
                                       "finetuning_type", "lora_rank", "quantization_bit", "cutoff_len",
                                       "max_seq_length", "output_dir", "learning_rate", "num_train_epochs",
                                       "ddp_bucket_cap_mb", "pure_bf16", NULL};
    if (!llmmem__json_is_object(root))
        return llmmem__input_type_error(doc, root, "", "a JSON object (TrainingArguments)");
    bool recipe_key = false; /* hf_recipes.c's keys count as TrainingArguments too */
    for (int i = 0; llmmem__hf_recipe_key_names[i]; i++)
        recipe_key = recipe_key || llmmem__json_get(root, llmmem__hf_recipe_key_names[i]);
    int rc = recipe_key ? 0 : llmmem__input_expect_keys(doc, root, keys, "TrainingArguments");
    if (rc)
        return rc;
    if ((rc = hf_sizes(doc, cfg, root)) != 0 || (rc = hf_precision(doc, cfg, root)) != 0 ||
        (rc = hf_training(doc, cfg, root)) != 0 || (rc = hf_fsdp(doc, cfg, root)) != 0 ||
        (rc = llmmem__hf_recipe_keys(doc, root, cfg)) != 0)
        return rc;
    /* an inline ds_config ("deepspeed": {...}); "auto" sizes stay (no model
     * here). A path ("deepspeed": "ds.json") is the caller's to read. */
    const llmmem__jnode *n = llmmem__json_get(root, "deepspeed");
    if (n && llmmem__json_is_object(n) && (rc = llmmem__deepspeed_apply(doc, n, cfg, NULL)) != 0)
        return rc;
    if ((rc = hf_lora(doc, cfg, root)) != 0)
        return rc;
    return hf_quantization(doc, cfg, root);
}

static int apply_hf_args(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg,
                         const void *unused)
{
    (void)unused;
    return llmmem__hf_args_apply(doc, root, cfg);
}

int llmmem_config_apply_hf_training_args_file(llmmem_config *cfg, const char *path)
{
    return llmmem__input_apply_file(cfg, path, "llmmem_config_apply_hf_training_args_file", apply_hf_args, NULL);
}

int llmmem_config_apply_hf_training_args_json(llmmem_config *cfg, const char *json, size_t len)
{
    if (!cfg || !json)
        return llmmem__error(LLMMEM_E_INVALID_ARG,
                             "llmmem_config_apply_hf_training_args_json: NULL argument");
    return llmmem__input_apply_copy(cfg, json, len, "training arguments", apply_hf_args, NULL);
}
