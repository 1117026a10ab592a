/* axolotl configs (axolotl/utils/schemas/config.py, peft.py, integrations.py;
 * the keys pass through to HF TrainingArguments, PEFT and BitsAndBytesConfig)
 * onto a configuration. Keys and effects: docs/research/training-recipes.md
 * §9.3. */
#include "input/framework.h"

#include <string.h>

static const char *const ignored[] = {
    "base_model", "base_model_config", "model_type", "tokenizer_type", "tokenizer_config", "trust_remote_code",
    "datasets", "test_datasets", "dataset_prepared_path", "val_set_size", "output_dir", "num_epochs",
    "learning_rate", "lr_scheduler", "lr_scheduler_kwargs", "warmup_steps", "warmup_ratio", "cosine_min_lr_ratio",
    "logging_steps", "evals_per_epoch", "saves_per_epoch", "eval_steps", "save_steps", "save_strategy",
    "eval_strategy", "weight_decay", "max_grad_norm", "special_tokens", "tokens", "strict", "seed",
    "train_on_inputs", "group_by_length", "debug", "resume_from_checkpoint", "auto_resume_from_checkpoints",
    "local_rank", "hub_model_id", "hub_strategy", "chat_template", "chat_template_jinja", "default_system_message",
    "save_total_limit", "early_stopping_patience", "tf32", "shuffle_merged_datasets", "dataloader_num_workers",
    "dataloader_pin_memory", "dataloader_prefetch_factor", "remove_unused_columns", "plugins", "adam_beta1",
    "adam_beta2", "adam_epsilon", "loss_watchdog_threshold", "loss_watchdog_patience", "wandb_project",
    "wandb_entity", "wandb_watch", "wandb_name", "wandb_log_model", "wandb_mode", "mlflow_tracking_uri",
    "use_wandb", "use_tensorboard", "peft_use_rslora", "lora_fan_in_fan_out", "save_safetensors",
    "is_llama_derived_model", "is_mistral_derived_model", "is_qwen_derived_model", "gptq", "hf_use_auth_token",
    "eval_table_size", "eval_max_new_tokens", "eval_sample_packing", "eval_causal_lm_metrics",
    "sample_packing_eff_est", "total_num_tokens", "max_steps", "save_first_step", "embeddings_skip_upcast",
    "lr_quadratic_warmup", "dataset_processes", "push_dataset_to_hub", "shuffle_before_merging_datasets", NULL};

/* Keys that change memory in ways the library does not model. */
static const struct {
    const char *key, *why;
} refused[] = {
    {"cut_cross_entropy", "Apple's cut cross-entropy never materialises the logits; not modelled"},
    {"chunked_cross_entropy", "axolotl's chunked cross-entropy is not modelled"},
    {"liger_cross_entropy", "Liger's in-place cross_entropy on materialised logits is not modelled"},
    {"tiled_mlp", "ALST tiled MLP (the MLP over sequence tiles) is not modelled"},
    {"unsloth_lora_mlp", "Unsloth's fused LoRA kernels save less than PEFT's modules; not modelled"},
    {"unsloth_lora_qkv", "Unsloth's fused LoRA kernels are not modelled"},
    {"unsloth_lora_o", "Unsloth's fused LoRA kernels are not modelled"},
    {"unsloth_cross_entropy_loss", "Unsloth's cross-entropy is not modelled"},
    {"unsloth_rms_norm", "Unsloth's RMSNorm is not modelled"},
    {"unsloth_rope", "Unsloth's RoPE is not modelled"},
    {"lora_mlp_kernel", "axolotl's fused LoRA autograd kernels save less than PEFT's modules; not modelled"},
    {"lora_qkv_kernel", "axolotl's fused LoRA autograd kernels are not modelled"},
    {"lora_o_kernel", "axolotl's fused LoRA autograd kernels are not modelled"},
    {"peft_use_dora", "DoRA builds the adapted weight and its row norms in forward; not modelled"},
    {"flex_attention", "flex attention is not modelled (sdp_attention or flash_attention)"},
    {"s2_attention", "shifted-sparse attention is not modelled"},
    {"relora_steps", "ReLoRA is not modelled"},
    {"fp8", "fp8 training through torchao is not modelled"},
    {"layer_offloading", "layer offloading is not modelled"},
    {"sequence_parallel_degree", "sequence (context) parallelism is not modelled for axolotl"},
    {"context_parallel_size", "context parallelism is not modelled for axolotl"},
    {"tensor_parallel_size", "tensor parallelism is not modelled for axolotl"},
};

/* A precision key that is on: true, or "auto" (the GPU supports it). */
static bool fw_on(const llmmem__jnode *n)
{
    return n && (llmmem__json_is_bool(n) ? llmmem__json_true(n)
                                         : llmmem__json_is_string(n) && !strcmp(llmmem__json_string(n), "auto"));
}

/* adapter: lora/qlora, lora_r, lora_alpha, lora_dropout, lora_target_modules,
 * lora_target_linear, lora_modules_to_save, load_in_4bit/8bit, bnb_config_kwargs. */
static int read_adapter(fw_ctx *x, const llmmem__jnode *root)
{
    const char *adapter;
    int rc = llmmem__fw_str(&adapter, x, root, "adapter", "adapter");
    if (rc)
        return rc;
    int l4, l8;
    if ((rc = llmmem__fw_bool(&l4, x, root, "load_in_4bit", "load_in_4bit")) != 0 ||
        (rc = llmmem__fw_bool(&l8, x, root, "load_in_8bit", "load_in_8bit")) != 0)
        return rc;
    const llmmem__jnode *an = llmmem__fw_get(root, "adapter");
    if (!adapter || !*adapter) {
        if (l4 == 1 || l8 == 1)
            return llmmem__fw_refuse(x, llmmem__fw_get(root, l4 == 1 ? "load_in_4bit" : "load_in_8bit"),
                             l4 == 1 ? "load_in_4bit" : "load_in_8bit", "a quantised base without an adapter");
        return llmmem__fw_set_i64(x, LLMMEM_P_LORA_RANK, 0, root, "adapter");
    }
    if (strcmp(adapter, "lora") && strcmp(adapter, "qlora"))
        return llmmem__fw_refuse(x, an, "adapter", "adapter \"%.40s\" is not modelled (lora, qlora)", adapter);
    int64_t r;
    bool have;
    if ((rc = llmmem__fw_int(&r, &have, x, root, "lora_r", "lora_r")) != 0)
        return rc;
    if (!have)
        return llmmem__json_error_at(x->doc, an, LLMMEM_E_SCHEMA, "lora_r", "adapter %s needs lora_r", adapter);
    /* peft 0.21 tuners/lora/layer.py:239 LoraLayer.update_layer: "`r` should be a positive
     * integer value"; axolotl passes lora_r to LoraConfig(r=...) unchecked */
    if (r <= 0)
        return llmmem__json_error_at(x->doc, llmmem__fw_get(root, "lora_r"), LLMMEM_E_OUT_OF_RANGE, "lora_r",
                                     "adapter %s with lora_r %lld: peft refuses a rank below 1 (LoraLayer.update_layer); "
                                     "leave adapter out for full fine-tuning",
                                     adapter, (long long)r);
    if ((rc = llmmem__fw_set_i64(x, LLMMEM_P_LORA_RANK, r, llmmem__fw_get(root, "lora_r"), "lora_r")) != 0)
        return rc;
    const llmmem__jnode *n;
    if ((n = llmmem__fw_get(root, "lora_alpha")) &&
        (rc = llmmem__input_set_param(x->doc, x->cfg, LLMMEM_P_LORA_ALPHA, n, "lora_alpha")) != 0)
        return rc;
    if ((n = llmmem__fw_get(root, "lora_dropout")) &&
        (rc = llmmem__input_set_param(x->doc, x->cfg, LLMMEM_P_LORA_DROPOUT, n, "lora_dropout")) != 0)
        return rc;
    int linear;
    if ((rc = llmmem__fw_bool(&linear, x, root, "lora_target_linear", "lora_target_linear")) != 0)
        return rc;
    if (linear == 1) {
        if ((rc = llmmem__fw_set(x, LLMMEM_P_LORA_TARGETS, "all-linear", llmmem__fw_get(root, "lora_target_linear"),
                         "lora_target_linear")) != 0)
            return rc;
    } else if ((n = llmmem__fw_get(root, "lora_target_modules")) &&
               (rc = llmmem__input_set_targets(x->doc, x->cfg, n, "lora_target_modules")) != 0) {
        return rc;
    }
    if ((n = llmmem__fw_get(root, "lora_modules_to_save")) && llmmem__json_array_size(n) > 0)
        return llmmem__fw_refuse(x, n, "lora_modules_to_save",
                         "modules_to_save trains full copies of those modules beside the adapters; not modelled");
    bool q4 = !strcmp(adapter, "qlora") || l4 == 1;
    if (q4 || l8 == 1) {
        const char *quant = q4 ? "nf4" : "int8";
        int dq = 1; /* axolotl's default BitsAndBytesConfig: bnb_4bit_use_double_quant */
        const llmmem__jnode *kw = llmmem__fw_get(root, "bnb_config_kwargs");
        if (kw && llmmem__json_is_object(kw)) {
            const char *qt;
            if ((rc = llmmem__fw_str(&qt, x, kw, "bnb_4bit_quant_type", "bnb_config_kwargs.bnb_4bit_quant_type")) != 0 ||
                (rc = llmmem__fw_bool(&dq, x, kw, "bnb_4bit_use_double_quant", "bnb_config_kwargs.bnb_4bit_use_double_quant")))
                return rc;
            if (qt && !strcmp(qt, "fp4"))
                quant = "fp4";
            if (dq < 0)
                dq = 1;
        }
        if ((rc = llmmem__fw_set(x, LLMMEM_P_QLORA, quant, an, "adapter")) != 0 ||
            (rc = llmmem__fw_set_i64(x, LLMMEM_P_QLORA_DOUBLE_QUANT, dq, an, "adapter")) != 0)
            return rc;
        /* bnb_4bit_compute_dtype = cfg.torch_dtype (loaders/model.py), which is
         * bf16 with bf16/bfloat16, fp16 with fp16/float16, else fp32
         * (utils/config/__init__.py normalize_config) */
        if (q4) {
            const char *dt = "fp32";
            if (fw_on(llmmem__fw_get(root, "bf16")) || fw_on(llmmem__fw_get(root, "bfloat16")))
                dt = "bf16";
            else if (fw_on(llmmem__fw_get(root, "fp16")) || fw_on(llmmem__fw_get(root, "float16")))
                dt = "fp16";
            if ((rc = llmmem__fw_set(x, LLMMEM_P_QLORA_COMPUTE_DTYPE, dt, an, "adapter")) != 0)
                return rc;
        }
    }
    return LLMMEM_OK;
}

/* bf16/fp16/float32: axolotl loads the model in that dtype (torch_dtype) and
 * Trainer's autocast matches it: weights and matmuls in one dtype. */
static int read_precision(fw_ctx *x, const llmmem__jnode *root)
{
    static const struct {
        const char *key, *dtype;
    } keys[] = {{"bf16", "bf16"}, {"bfloat16", "bf16"}, {"fp16", "fp16"}, {"float16", "fp16"}, {"float32", "fp32"}};
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(keys); i++) {
        const llmmem__jnode *n = llmmem__fw_get(root, keys[i].key);
        if (!n)
            continue;
        bool on = llmmem__json_is_bool(n) ? llmmem__json_true(n)
                                          : (llmmem__json_is_string(n) && !strcmp(llmmem__json_string(n), "auto"));
        if (!llmmem__json_is_bool(n) && !on)
            return llmmem__input_type_error(x->doc, n, keys[i].key, "true, false or auto");
        if (!on)
            continue;
        if (llmmem__json_is_string(n))
            llmmem__fw_note(x, "%s: auto taken as %s (the GPU supports it)", keys[i].key, keys[i].dtype);
        /* axolotl 0.19 utils/config/__init__.py resolve_dtype: "if cfg.bf16: cfg.fp16 = False" */
        for (size_t j = i + 1; j < LLMMEM_ARRAY_LEN(keys); j++) {
            const llmmem__jnode *o = llmmem__fw_get(root, keys[j].key);
            if (o && llmmem__json_is_bool(o) && llmmem__json_true(o) && strcmp(keys[j].dtype, keys[i].dtype))
                llmmem__fw_note(x, "%s and %s both true: %s wins, as axolotl's resolve_dtype sets %s false", keys[i].key,
                                keys[j].key, keys[i].key, keys[j].key);
        }
        int rc;
        if ((rc = llmmem__fw_set(x, LLMMEM_P_PARAM_DTYPE, keys[i].dtype, n, keys[i].key)) != 0 ||
            (rc = llmmem__fw_set(x, LLMMEM_P_COMPUTE_DTYPE, keys[i].dtype, n, keys[i].key)) != 0)
            return rc;
        return LLMMEM_OK;
    }
    return LLMMEM_OK;
}

/* gradient_checkpointing (true, offload, offload_disk), activation_offloading. */
static int read_checkpointing(fw_ctx *x, const llmmem__jnode *root)
{
    const llmmem__jnode *gc = llmmem__fw_get(root, "gradient_checkpointing");
    int rc;
    if (gc) {
        const char *s = llmmem__json_is_string(gc) ? llmmem__json_string(gc) : NULL;
        if (s && !strcmp(s, "offload")) {
            /* Unsloth-style: each checkpointed layer's input to the CPU in forward, back in backward */
            if ((rc = llmmem__fw_set(x, LLMMEM_P_CHECKPOINTING, "full", gc, "gradient_checkpointing")) != 0 ||
                (rc = llmmem__fw_set(x, LLMMEM_P_ACTIVATION_OFFLOADING, "save_on_cpu", gc, "gradient_checkpointing")) != 0)
                return rc;
        } else if (s) {
            return llmmem__fw_refuse(x, gc, "gradient_checkpointing", "\"%.30s\" is not modelled (true, false, offload)", s);
        } else if ((rc = llmmem__input_set_checkpointing(x->doc, x->cfg, gc, "gradient_checkpointing")) != 0) {
            return rc;
        }
    }
    const llmmem__jnode *ao = llmmem__fw_get(root, "activation_offloading");
    if (!ao)
        return LLMMEM_OK;
    if (llmmem__json_is_bool(ao))
        return llmmem__json_true(ao) ? llmmem__fw_set(x, LLMMEM_P_ACTIVATION_OFFLOADING, "streams", ao, "activation_offloading")
                                     : LLMMEM_OK;
    return llmmem__fw_refuse(x, ao, "activation_offloading", "only true (TRL's streamed offloading) is modelled");
}

/* attention kernels, torch_compile, Liger, FSDP, deepspeed. */
static int read_kernels(fw_ctx *x, const llmmem__jnode *root)
{
    int b, rc;
    if ((rc = llmmem__fw_bool(&b, x, root, "flash_attention", "flash_attention")) != 0)
        return rc;
    if (b == 1 && (rc = llmmem__fw_set(x, LLMMEM_P_ATTENTION, "flash", llmmem__fw_get(root, "flash_attention"), "flash_attention")))
        return rc;
    if ((rc = llmmem__fw_bool(&b, x, root, "sdp_attention", "sdp_attention")) != 0)
        return rc;
    if (b == 1 && (rc = llmmem__fw_set(x, LLMMEM_P_ATTENTION, "sdpa", llmmem__fw_get(root, "sdp_attention"), "sdp_attention")))
        return rc;
    /* xformers' memory-efficient attention keeps q, k, v, the output and the
     * logsumexp, as SDPA's does */
    if ((rc = llmmem__fw_bool(&b, x, root, "xformers_attention", "xformers_attention")) != 0)
        return rc;
    if (b == 1 && (rc = llmmem__fw_set(x, LLMMEM_P_ATTENTION, "sdpa", llmmem__fw_get(root, "xformers_attention"), "xformers_attention")))
        return rc;
    const llmmem__jnode *tc = llmmem__fw_get(root, "torch_compile");
    if (tc) {
        bool on = llmmem__json_is_bool(tc) ? llmmem__json_true(tc)
                                           : (llmmem__json_is_string(tc) && !strcmp(llmmem__json_string(tc), "auto"));
        if (!llmmem__json_is_bool(tc) && !on)
            return llmmem__input_type_error(x->doc, tc, "torch_compile", "true, false or auto");
        if (llmmem__json_is_string(tc))
            llmmem__fw_note(x, "torch_compile: auto taken as on (torch >= 2.5.1)");
        if (on && (rc = llmmem__fw_set(x, LLMMEM_P_COMPILE, "model", tc, "torch_compile")) != 0)
            return rc;
    }
    if ((rc = llmmem__fw_bool(&b, x, root, "liger_fused_linear_cross_entropy", "liger_fused_linear_cross_entropy")) != 0)
        return rc;
    if (b == 1 && (rc = llmmem__fw_set(x, LLMMEM_P_LOSS, "liger", llmmem__fw_get(root, "liger_fused_linear_cross_entropy"),
                               "liger_fused_linear_cross_entropy")))
        return rc;
    /* integrations/liger: RMSNorm with SwiGLU is liger_kernels; one without the other is refused */
    int norm, swiglu, glu;
    if ((rc = llmmem__fw_bool(&norm, x, root, "liger_rms_norm", "liger_rms_norm")) != 0 ||
        (rc = llmmem__fw_bool(&swiglu, x, root, "liger_swiglu", "liger_swiglu")) != 0 ||
        (rc = llmmem__fw_bool(&glu, x, root, "liger_glu_activation", "liger_glu_activation")) != 0)
        return rc;
    bool g = swiglu == 1 || glu == 1;
    if ((norm == 1) != g)
        return llmmem__fw_refuse(x, llmmem__fw_get(root, norm == 1 ? "liger_rms_norm" : (swiglu == 1 ? "liger_swiglu" : "liger_glu_activation")),
                         norm == 1 ? "liger_rms_norm" : "liger_glu_activation",
                         "Liger RMSNorm without the SwiGLU kernel (or the reverse) is not modelled");
    if (norm == 1 && (rc = llmmem__fw_set_i64(x, LLMMEM_P_LIGER_KERNELS, 1, llmmem__fw_get(root, "liger_rms_norm"), "liger_rms_norm")))
        return rc;
    const llmmem__jnode *ln = llmmem__fw_get(root, "liger_layer_norm");
    if (ln && llmmem__json_is_bool(ln) && llmmem__json_true(ln))
        return llmmem__fw_refuse(x, ln, "liger_layer_norm", "Liger's LayerNorm is not modelled");
    const llmmem__jnode *ds = llmmem__fw_get(root, "deepspeed");
    if (ds)
        return llmmem__fw_refuse(x, ds, "deepspeed",
                         "pass the DeepSpeed config itself (--deepspeed-config, llmmem_config_apply_deepspeed_file)");
    int64_t v;
    bool have;
    if ((rc = llmmem__fw_int(&v, &have, x, root, "fsdp_version", "fsdp_version")) != 0)
        return rc;
    const llmmem__jnode *fc = llmmem__fw_get(root, "fsdp_config"), *fs = llmmem__fw_get(root, "fsdp");
    if (have || fc || fs) {
        if ((rc = llmmem__fw_set(x, LLMMEM_P_ENGINE, "fsdp", have ? llmmem__fw_get(root, "fsdp_version") : (fc ? fc : fs),
                         have ? "fsdp_version" : (fc ? "fsdp_config" : "fsdp"))) != 0)
            return rc;
        if (have && (rc = llmmem__fw_set_i64(x, LLMMEM_P_FSDP_VERSION, v, llmmem__fw_get(root, "fsdp_version"), "fsdp_version")))
            return rc;
    }
    return LLMMEM_OK;
}

int llmmem__axolotl_apply(fw_ctx *x, const llmmem__jnode *root)
{
    static const char *const read[] = {
        "micro_batch_size", "gradient_accumulation_steps", "sequence_len", "sample_packing", "pad_to_sequence_len",
        "adapter", "lora_r", "lora_alpha", "lora_dropout", "lora_target_modules", "lora_target_linear",
        "lora_modules_to_save", "load_in_4bit", "load_in_8bit", "bnb_config_kwargs", "bf16", "bfloat16", "fp16",
        "float16", "float32", "optimizer", "gradient_checkpointing", "gradient_checkpointing_kwargs",
        "activation_offloading", "flash_attention", "sdp_attention", "torch_compile", "torch_compile_backend",
        "torch_compile_mode", "liger_fused_linear_cross_entropy", "liger_rms_norm", "liger_swiglu",
        "liger_glu_activation", "liger_rope", "liger_layer_norm", "deepspeed", "fsdp", "fsdp_config",
        "fsdp_version", "use_liger_kernel", "xformers_attention", NULL};
    int rc;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(refused); i++) {
        const llmmem__jnode *n = llmmem__fw_get(root, refused[i].key);
        if (n && !(llmmem__json_is_bool(n) && !llmmem__json_true(n)))
            return llmmem__fw_refuse(x, n, refused[i].key, "%s", refused[i].why);
    }
    static const struct {
        const char *key;
        int param;
    } sizes[] = {{"micro_batch_size", LLMMEM_P_MICRO_BATCH_SIZE},
                 {"gradient_accumulation_steps", LLMMEM_P_GRAD_ACCUM_STEPS},
                 {"sequence_len", LLMMEM_P_SEQ_LEN}};
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(sizes); i++) {
        const llmmem__jnode *n = llmmem__fw_get(root, sizes[i].key);
        if (n && (rc = llmmem__input_set_param(x->doc, x->cfg, sizes[i].param, n, sizes[i].key)) != 0)
            return rc;
    }
    int packing, pad;
    if ((rc = llmmem__fw_bool(&packing, x, root, "sample_packing", "sample_packing")) != 0 ||
        (rc = llmmem__fw_bool(&pad, x, root, "pad_to_sequence_len", "pad_to_sequence_len")) != 0)
        return rc;
    if (packing == 1 || pad == 1)
        llmmem__fw_note(x, "%s: every sequence taken as sequence_len tokens", packing == 1 ? "sample_packing" : "pad_to_sequence_len");
    else
        llmmem__fw_note(x, "no packing or padding to sequence_len: batches pad to their longest sample; seq_len is the bound");
    const llmmem__jnode *n;
    if ((rc = read_adapter(x, root)) != 0 || (rc = read_precision(x, root)) != 0 ||
        (rc = read_checkpointing(x, root)) != 0 || (rc = read_kernels(x, root)) != 0)
        return rc;
    if ((n = llmmem__fw_get(root, "optimizer")) != NULL) {
        rc = llmmem__input_set_optimizer(x->doc, x->cfg, n, "optimizer");
        if (rc == LLMMEM_E_OUT_OF_RANGE)
            return llmmem__fw_refuse(x, n, "optimizer", "optimizer \"%.60s\" is not modelled (llmmem params)",
                             llmmem__json_is_string(n) ? llmmem__json_string(n) : "?");
        if (rc)
            return rc;
    }
    /* gradient_checkpointing_kwargs, torch_compile_backend/mode, fsdp_config: TrainingArguments keys */
    if ((rc = llmmem__hf_recipe_keys(x->doc, root, x->cfg)) != 0)
        return rc;
    for (const llmmem__jnode *it = llmmem__json_first(root); it; it = llmmem__json_next(it)) {
        const char *k = llmmem__json_key(it);
        llmmem__fw_tally(x, k, read, ignored);
    }
    return LLMMEM_OK;
}
