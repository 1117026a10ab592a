/* LLaMA-Factory training YAML (llamafactory/hparams/{model,finetuning,data}_args.py
 * beside HF TrainingArguments): the TrainingArguments and LoRA/quantisation
 * keys as training_args.c reads them, LLaMA-Factory's own defaults and
 * switches on top. docs/research/training-recipes.md §9.4. */
#include "input/framework.h"

#include <string.h>

static const char *const ignored[] = {
    "model_name_or_path", "template", "dataset", "eval_dataset", "dataset_dir", "output_dir", "logging_steps",
    "save_steps", "plot_loss", "overwrite_output_dir", "overwrite_cache", "preprocessing_num_workers",
    "num_train_epochs", "learning_rate", "lr_scheduler_type", "warmup_ratio", "warmup_steps", "val_size",
    "eval_strategy", "eval_steps", "per_device_eval_batch_size", "report_to", "trust_remote_code", "ddp_timeout",
    "save_only_model", "max_samples", "do_train", "do_eval", "do_predict", "resume_from_checkpoint", "seed",
    "weight_decay", "max_grad_norm", "save_strategy", "save_total_limit", "logging_dir", "run_name",
    "adapter_name_or_path", "export_dir", "tokenized_path", "streaming", "buffer_size", "mix_strategy",
    "interleave_probs", "use_reentrant_gc", "lora_alpha", "lora_dropout", "lora_target", "use_rslora",
    "create_new_adapter", "loraplus_lr_ratio", "loraplus_lr_embedding", "train_on_prompt", "mask_history",
    "dataloader_num_workers", "neat_packing", "packing", "flash_attn", "stage", "enable_liger_kernel",
    "use_unsloth_gc", "disable_gradient_checkpointing", "quantization_method", "quantization_type",
    "double_quantization", "upcast_layernorm", "upcast_lmhead_output", "pissa_init", "pissa_iter",
    "pissa_convert", "use_adam_mini", "print_param_status", "include_num_input_tokens_seen", NULL};

static const struct {
    const char *key, *why;
} refused[] = {
    {"use_dora", "DoRA builds the adapted weight and its row norms in forward; not modelled"},
    {"use_unsloth", "Unsloth's kernels are not modelled"},
    {"shift_attn", "shift short attention (LongLoRA) is not modelled"},
    {"use_galore", "GaLore's projected optimizer states are not modelled"},
    {"use_apollo", "APOLLO's low-rank optimizer states are not modelled"},
    {"use_badam", "BAdam's block-wise updates are not modelled"},
    {"additional_target", "additional_target trains full copies of those modules; not modelled"},
    {"use_llama_pro", "LLaMA Pro's expanded blocks are not modelled"},
};

/* stage: sft and pt train one model; rm adds a value head (noted); dpo, kto
 * and ppo keep a reference (and value) model: refused. */
static int read_stage(fw_ctx *x, const llmmem__jnode *root)
{
    const char *stage;
    int rc = llmmem__fw_str(&stage, x, root, "stage", "stage");
    if (rc || !stage)
        return rc;
    if (!strcmp(stage, "sft") || !strcmp(stage, "pt"))
        return LLMMEM_OK;
    if (!strcmp(stage, "rm")) {
        llmmem__fw_note(x, "stage rm: the value head (h x 1) is not counted");
        return LLMMEM_OK;
    }
    return llmmem__fw_refuse(x, llmmem__fw_get(root, "stage"), "stage",
                     "stage \"%.20s\" keeps a reference (and value) model beside the policy; not modelled", stage);
}

/* flash_attn (model_args.py AttentionFunction): auto lets transformers pick
 * (SDPA), disabled is eager, sdpa and fa2 the kernels. */
static int read_attention(fw_ctx *x, const llmmem__jnode *root)
{
    const char *fa;
    int rc = llmmem__fw_str(&fa, x, root, "flash_attn", "flash_attn");
    if (rc || !fa)
        return rc;
    const llmmem__jnode *n = llmmem__fw_get(root, "flash_attn");
    if (!strcmp(fa, "auto") || !strcmp(fa, "sdpa"))
        return llmmem__fw_set(x, LLMMEM_P_ATTENTION, "sdpa", n, "flash_attn");
    if (!strcmp(fa, "fa2"))
        return llmmem__fw_set(x, LLMMEM_P_ATTENTION, "flash", n, "flash_attn");
    if (!strcmp(fa, "disabled"))
        return llmmem__fw_set(x, LLMMEM_P_ATTENTION, "eager", n, "flash_attn");
    return llmmem__fw_refuse(x, n, "flash_attn", "\"%.20s\" is not modelled (auto, disabled, sdpa, fa2)", fa);
}

int llmmem__llamafactory_apply(fw_ctx *x, const llmmem__jnode *root)
{
    int rc, b;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(refused); i++) {
        const llmmem__jnode *n = llmmem__fw_get(root, refused[i].key);
        if (n && !(llmmem__json_is_bool(n) && !llmmem__json_true(n)))
            return llmmem__fw_refuse(x, n, refused[i].key, "%s", refused[i].why);
    }
    const char *qm;
    if ((rc = llmmem__fw_str(&qm, x, root, "quantization_method", "quantization_method")) != 0)
        return rc;
    if (qm && strcmp(qm, "bnb") && strcmp(qm, "bitsandbytes"))
        return llmmem__fw_refuse(x, llmmem__fw_get(root, "quantization_method"), "quantization_method",
                         "quantisation \"%.20s\" is not modelled for training (bnb)", qm);
    const llmmem__jnode *ds = llmmem__fw_get(root, "deepspeed");
    if (ds && llmmem__json_is_string(ds))
        return llmmem__fw_refuse(x, ds, "deepspeed",
                         "pass the DeepSpeed config itself (--deepspeed-config, llmmem_config_apply_deepspeed_file)");
    if ((rc = read_stage(x, root)) != 0 || (rc = read_attention(x, root)) != 0)
        return rc;
    /* model_utils/checkpointing.py prepare_model_for_training: gradient
     * checkpointing is on unless disable_gradient_checkpointing */
    if ((rc = llmmem__fw_bool(&b, x, root, "disable_gradient_checkpointing", "disable_gradient_checkpointing")) != 0)
        return rc;
    if ((rc = llmmem__fw_set(x, LLMMEM_P_CHECKPOINTING, b == 1 ? "none" : "full",
                     b >= 0 ? llmmem__fw_get(root, "disable_gradient_checkpointing") : root,
                     "disable_gradient_checkpointing")) != 0)
        return rc;
    if (b < 0)
        llmmem__fw_note(x, "gradient checkpointing on (LLaMA-Factory's default: disable_gradient_checkpointing false)");
    /* transformers training_args.py TrainingArguments: per_device_train_batch_size
     * defaults to 8 (LLaMA-Factory's Seq2SeqTrainingArguments keeps it) */
    if (!llmmem__fw_get(root, "per_device_train_batch_size")) {
        if ((rc = llmmem__fw_set_i64(x, LLMMEM_P_MICRO_BATCH_SIZE, 8, root, "per_device_train_batch_size")) != 0)
            return rc;
        llmmem__fw_note(x, "per_device_train_batch_size not given: TrainingArguments' default 8");
    }
    if ((rc = llmmem__hf_args_apply(x->doc, root, x->cfg)) != 0)
        return rc;
    if ((rc = llmmem__fw_bool(&b, x, root, "use_unsloth_gc", "use_unsloth_gc")) != 0)
        return rc;
    if (b == 1 && (rc = llmmem__fw_set(x, LLMMEM_P_ACTIVATION_OFFLOADING, "save_on_cpu", llmmem__fw_get(root, "use_unsloth_gc"),
                               "use_unsloth_gc")))
        return rc;
    /* model_utils/liger_kernel.py apply_liger_kernel: rope, rms_norm, swiglu and,
     * for sft without logits, fused_linear_cross_entropy */
    if ((rc = llmmem__fw_bool(&b, x, root, "enable_liger_kernel", "enable_liger_kernel")) != 0)
        return rc;
    if (b == 1) {
        if ((rc = llmmem__fw_set(x, LLMMEM_P_LOSS, "liger", llmmem__fw_get(root, "enable_liger_kernel"), "enable_liger_kernel")))
            return rc;
        if ((rc = llmmem__fw_set_i64(x, LLMMEM_P_LIGER_KERNELS, 1, llmmem__fw_get(root, "enable_liger_kernel"), "enable_liger_kernel")))
            return rc;
    }
    if ((rc = llmmem__fw_bool(&b, x, root, "use_adam_mini", "use_adam_mini")) != 0)
        return rc;
    if (b == 1 && (rc = llmmem__fw_set(x, LLMMEM_P_OPTIMIZER, "adam_mini", llmmem__fw_get(root, "use_adam_mini"), "use_adam_mini")))
        return rc;
    /* model/adapter.py init_adapter: trainable parameters are cast to fp32
     * unless pure_bf16 (full fine-tuning then keeps fp32 weights under bf16
     * autocast; LoRA adapters are fp32 either way through PEFT) */
    const char *ft;
    int pure;
    if ((rc = llmmem__fw_str(&ft, x, root, "finetuning_type", "finetuning_type")) != 0 ||
        (rc = llmmem__fw_bool(&pure, x, root, "pure_bf16", "pure_bf16")) != 0)
        return rc;
    if (ft && !strcmp(ft, "full") && pure != 1) {
        if ((rc = llmmem__fw_set(x, LLMMEM_P_PARAM_DTYPE, "fp32", llmmem__fw_get(root, "finetuning_type"), "finetuning_type")))
            return rc;
        llmmem__fw_note(x, "finetuning_type full without pure_bf16: init_adapter casts the weights to fp32");
    }
    if ((rc = llmmem__fw_bool(&b, x, root, "upcast_layernorm", "upcast_layernorm")) != 0)
        return rc;
    if (b == 1)
        llmmem__fw_note(x, "upcast_layernorm: fp32 norm weights not counted apart");
    if ((rc = llmmem__fw_bool(&b, x, root, "packing", "packing")) != 0)
        return rc;
    llmmem__fw_note(x, b == 1 ? "packing: every sequence taken as cutoff_len tokens"
                      : "no packing: batches pad to their longest sample; cutoff_len is the bound");
    for (const llmmem__jnode *it = llmmem__json_first(root); it; it = llmmem__json_next(it)) {
        const char *k = llmmem__json_key(it);
        static const char *const hf[] = {"per_device_train_batch_size", "gradient_accumulation_steps", "bf16", "fp16",
                                         "optim", "gradient_checkpointing", "fsdp", "fsdp_config", "deepspeed",
                                         "finetuning_type", "lora_rank", "quantization_bit", "cutoff_len",
                                         "max_seq_length", "ddp_bucket_cap_mb", "pure_bf16", "tf32", NULL};
        if (llmmem__fw_in(k, llmmem__hf_recipe_key_names))
            x->read_n++;
        else
            llmmem__fw_tally(x, k, hf, ignored);
    }
    return LLMMEM_OK;
}
