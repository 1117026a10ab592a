/* torchtune recipe configs (recipes/configs/<model>/<recipe>.yaml, read by the
 * recipes in recipes/<recipe>.py through OmegaConf and
 * torchtune/config/_instantiate.py) onto a
 * configuration, with activation_profile torchtune. The keys and what each
 * recipe does with them: docs/research/training-recipes.md §1.4 and §9.2. */
#include "input/framework.h"

#include <stdio.h>
#include <string.h>

/* Top-level keys without an effect on GPU memory (logging, paths, schedule). */
static const char *const ignored[] = {
    "output_dir", "metric_logger", "profiler", "checkpointer", "seed", "shuffle", "epochs",
    "max_steps_per_epoch", "lr_scheduler", "resume_from_checkpoint", "save_adapter_weights_only",
    "log_every_n_steps", "log_peak_memory_stats", "log_level", "run_val_every_n_steps", "dataset_val",
    "recipe_checkpoint", "low_cpu_ram", "cudnn_deterministic_mode", "save_last_epoch_only",
    "collate_fn", "num_training_steps", "seed_everything", "dataloader", "clip_grad_norm_type", NULL};

/* The model builders whose model is a preset (torchtune/models/<family>/_model_builders.py:
 * the same vocab, layers, heads, KV heads, widths and max_seq_len as the preset's
 * config.json); their lora_ and qlora_ builders build the same model. The Qwen2.5 and Qwen3
 * _base builders (a longer or shorter max_seq_len than the presets') are not listed. */
static const struct {
    const char *builder, *preset;
} builders[] = {
    {"llama2_7b", "llama-2-7b"}, {"llama2_13b", "llama-2-13b"}, {"llama2_70b", "llama-2-70b"},
    {"llama3_8b", "llama-3-8b"}, {"llama3_70b", "llama-3-70b"}, {"llama3_1_8b", "llama-3.1-8b"},
    {"llama3_1_70b", "llama-3.1-70b"}, {"llama3_1_405b", "llama-3.1-405b"}, {"llama3_2_1b", "llama-3.2-1b"},
    {"llama3_2_3b", "llama-3.2-3b"}, {"llama3_3_70b", "llama-3.3-70b"},
    {"qwen2_5_0_5b", "qwen2.5-0.5b"}, {"qwen2_5_1_5b_instruct", "qwen2.5-1.5b"}, {"qwen2_5_3b", "qwen2.5-3b"},
    {"qwen2_5_7b_instruct", "qwen2.5-7b"}, {"qwen2_5_14b_instruct", "qwen2.5-14b"},
    {"qwen2_5_32b_instruct", "qwen2.5-32b"}, {"qwen2_5_72b_instruct", "qwen2.5-72b"},
    {"qwen3_0_6b_instruct", "qwen3-0.6b"}, {"qwen3_1_7b_instruct", "qwen3-1.7b"}, {"qwen3_4b_instruct", "qwen3-4b"},
    {"qwen3_8b_instruct", "qwen3-8b"}, {"qwen3_14b_instruct", "qwen3-14b"}, {"qwen3_32b", "qwen3-32b"},
    {"qwen3_moe_30b_a3b_instruct", "qwen3-30b-a3b"}, {"qwen3_moe_235b_a22b", "qwen3-235b-a22b"},
    {"gemma_2b", "gemma-2b"}, {"gemma_7b", "gemma-7b"}, {"gemma2_2b", "gemma-2-2b"}, {"gemma2_9b", "gemma-2-9b"},
    {"gemma2_27b", "gemma-2-27b"}, {"phi3_mini", "phi-3-mini"},
};

const char *llmmem__torchtune_preset(const char *component)
{
    const char *last = component ? strrchr(component, '.') : NULL;
    last = last ? last + 1 : (component ? component : "");
    if (!strncmp(last, "qlora_", 6))
        last += 6;
    else if (!strncmp(last, "lora_", 5))
        last += 5;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(builders); i++)
        if (!strcmp(builders[i].builder, last))
            return builders[i].preset;
    return NULL;
}

/* model._component_: lora_* and qlora_* builders (torchtune/models/<family>/_model_builders.py). */
static int read_model(fw_ctx *x, const llmmem__jnode *model)
{
    if (!llmmem__json_is_object(model))
        return llmmem__input_type_error(x->doc, model, "model", "a mapping with _component_");
    const char *comp;
    int rc = llmmem__fw_str(&comp, x, model, "_component_", "model._component_");
    if (rc)
        return rc;
    const char *last = comp ? strrchr(comp, '.') : NULL;
    last = last ? last + 1 : (comp ? comp : "");
    bool qlora = !strncmp(last, "qlora_", 6);
    bool lora = qlora || !strncmp(last, "lora_", 5);
    int quantize;
    if ((rc = llmmem__fw_bool(&quantize, x, model, "quantize_base", "model.quantize_base")) != 0)
        return rc;
    /* qlora_<model> = partial(lora_<model>, quantize_base=True) (_model_builders.py): the
     * config's quantize_base keyword overrides the partial's, both ways */
    if (quantize == 1)
        qlora = lora = true;
    else if (quantize == 0)
        qlora = false;
    int dora;
    if ((rc = llmmem__fw_bool(&dora, x, model, "use_dora", "model.use_dora")) != 0)
        return rc;
    if (dora == 1)
        return llmmem__fw_refuse(x, llmmem__fw_get(model, "use_dora"), "model.use_dora",
                         "DoRA (modules/peft/dora.py) builds the adapted weight and its row norms in forward; "
                         "not modelled");
    if (!lora)
        return llmmem__fw_set_i64(x, LLMMEM_P_LORA_RANK, 0, model, "model._component_");
    int64_t rank;
    bool have;
    if ((rc = llmmem__fw_int(&rank, &have, x, model, "lora_rank", "model.lora_rank")) != 0)
        return rc;
    if (!have)
        return llmmem__json_error_at(x->doc, model, LLMMEM_E_SCHEMA, "model.lora_rank",
                                     "a LoRA builder needs lora_rank");
    /* torchtune 0.6 modules/peft/lora.py:138 LoRALinear.forward scales by alpha / rank */
    if (rank <= 0)
        return llmmem__json_error_at(x->doc, llmmem__fw_get(model, "lora_rank"), LLMMEM_E_OUT_OF_RANGE, "model.lora_rank",
                                     "lora_rank %lld: torchtune's LoRALinear divides by the rank (alpha / rank); a "
                                     "full fine-tune is a builder without lora_",
                                     (long long)rank);
    if ((rc = llmmem__fw_set_i64(x, LLMMEM_P_LORA_RANK, rank, llmmem__fw_get(model, "lora_rank"), "model.lora_rank")) != 0)
        return rc;
    const llmmem__jnode *n;
    if ((n = llmmem__fw_get(model, "lora_alpha")) && (rc = llmmem__input_set_param(x->doc, x->cfg, LLMMEM_P_LORA_ALPHA, n,
                                                                          "model.lora_alpha")))
        return rc;
    if ((n = llmmem__fw_get(model, "lora_dropout")) &&
        (rc = llmmem__input_set_param(x->doc, x->cfg, LLMMEM_P_LORA_DROPOUT, n, "model.lora_dropout")))
        return rc;
    /* lora_attn_modules (q_proj, k_proj, v_proj, output_proj), apply_lora_to_mlp
     * (w1, w2, w3) and apply_lora_to_output, as the HF module names the model
     * description uses */
    char targets[LLMMEM__STR_MAX] = "";
    size_t used = 0;
    const llmmem__jnode *attn = llmmem__fw_get(model, "lora_attn_modules");
    if (attn && llmmem__json_type(attn) != LLMMEM__J_ARRAY)
        return llmmem__input_type_error(x->doc, attn, "model.lora_attn_modules", "a list of module names");
    int i = 0;
    for (const llmmem__jnode *it = attn ? llmmem__json_first(attn) : NULL; it; it = llmmem__json_next(it), i++) {
        char ip[64];
        snprintf(ip, sizeof ip, "model.lora_attn_modules[%d]", i);
        const char *s = llmmem__json_is_string(it) ? llmmem__json_string(it) : "";
        const char *hf = !strcmp(s, "output_proj") ? "o_proj"
                         : (!strcmp(s, "q_proj") || !strcmp(s, "k_proj") || !strcmp(s, "v_proj")) ? s
                                                                                                    : NULL;
        if (!hf)
            return llmmem__json_error_at(x->doc, it, LLMMEM_E_SCHEMA, ip,
                                         "expected q_proj, k_proj, v_proj or output_proj");
        used += (size_t)snprintf(targets + used, sizeof targets - used, "%s%s", used ? "," : "", hf);
    }
    int mlp, out;
    if ((rc = llmmem__fw_bool(&mlp, x, model, "apply_lora_to_mlp", "model.apply_lora_to_mlp")) != 0 ||
        (rc = llmmem__fw_bool(&out, x, model, "apply_lora_to_output", "model.apply_lora_to_output")) != 0)
        return rc;
    if (mlp == 1)
        used += (size_t)snprintf(targets + used, sizeof targets - used, "%sgate_proj,up_proj,down_proj",
                                 used ? "," : "");
    if (out == 1)
        used += (size_t)snprintf(targets + used, sizeof targets - used, "%slm_head", used ? "," : "");
    if (!used)
        return llmmem__json_error_at(x->doc, model, LLMMEM_E_SCHEMA, "model.lora_attn_modules",
                                     "a LoRA builder with no adapted module");
    if ((rc = llmmem__fw_set(x, LLMMEM_P_LORA_TARGETS, targets, model, "model")) != 0)
        return rc;
    /* torchao NF4Tensor: blocks of 64, scalers double-quantised (always) */
    if (qlora && ((rc = llmmem__fw_set(x, LLMMEM_P_QLORA, "nf4", model, "model._component_")) != 0 ||
                  (rc = llmmem__fw_set_i64(x, LLMMEM_P_QLORA_DOUBLE_QUANT, 1, model, "model._component_")) != 0))
        return rc;
    return LLMMEM_OK;
}

/* optimizer._component_ (with fused/foreach) onto optimizer/optimizer_impl. */
static int read_optimizer(fw_ctx *x, const llmmem__jnode *opt)
{
    /* config/optimizers.def LLMMEM__OPTIMIZER_TORCHTUNE */
    static const struct {
        const char *component;
        int optimizer; /* LLMMEM_OPTIMIZER_* */
    } known[] = {
#define SPELLING(component, V) {component, LLMMEM_OPTIMIZER_##V},
        LLMMEM__OPTIMIZER_TORCHTUNE(SPELLING)
#undef SPELLING
    };
    if (!llmmem__json_is_object(opt))
        return llmmem__input_type_error(x->doc, opt, "optimizer", "a mapping with _component_");
    const char *comp;
    int rc = llmmem__fw_str(&comp, x, opt, "_component_", "optimizer._component_");
    if (rc || !comp)
        return rc;
    const llmmem__jnode *n = llmmem__fw_get(opt, "_component_");
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(known); i++) {
        if (strcmp(comp, known[i].component))
            continue;
        if ((rc = llmmem__fw_set(x, LLMMEM_P_OPTIMIZER, llmmem_param_enum_name(LLMMEM_P_OPTIMIZER, known[i].optimizer), n,
                                 "optimizer._component_")) != 0)
            return rc;
        int fused, foreach;
        if ((rc = llmmem__fw_bool(&fused, x, opt, "fused", "optimizer.fused")) != 0 ||
            (rc = llmmem__fw_bool(&foreach, x, opt, "foreach", "optimizer.foreach")) != 0)
            return rc;
        if (known[i].optimizer == LLMMEM__OPT_SGD) {
            const llmmem__jnode *mom = llmmem__fw_get(opt, "momentum");
            if (mom && (!llmmem__json_is_number(mom) || llmmem__json_number(mom) != 0) &&
                (rc = llmmem__fw_set(x, LLMMEM_P_OPTIMIZER, "sgd_momentum", mom, "optimizer.momentum")) != 0)
                return rc;
        }
        const char *impl = fused == 1 ? "fused" : foreach == 0 ? "forloop" : NULL;
        return impl && (known[i].optimizer == LLMMEM__OPT_ADAMW || known[i].optimizer == LLMMEM__OPT_ADAM)
                   ? llmmem__fw_set(x, LLMMEM_P_OPTIMIZER_IMPL, impl, n, "optimizer")
                   : LLMMEM_OK;
    }
    return llmmem__fw_refuse(x, n, "optimizer._component_", "optimizer \"%.80s\" is not modelled (llmmem params)", comp);
}

/* loss._component_: CEWithChunkedOutputLoss (num_output_chunks) or CrossEntropyLoss. */
static int read_loss(fw_ctx *x, const llmmem__jnode *loss)
{
    if (!llmmem__json_is_object(loss))
        return llmmem__input_type_error(x->doc, loss, "loss", "a mapping with _component_");
    const char *comp;
    int rc = llmmem__fw_str(&comp, x, loss, "_component_", "loss._component_");
    if (rc || !comp)
        return rc;
    const llmmem__jnode *n = llmmem__fw_get(loss, "_component_");
    if (strstr(comp, "CEWithChunkedOutputLoss")) {
        int64_t chunks;
        bool have;
        if ((rc = llmmem__fw_set(x, LLMMEM_P_LOSS, "torchtune_chunked", n, "loss._component_")) != 0 ||
            (rc = llmmem__fw_int(&chunks, &have, x, loss, "num_output_chunks", "loss.num_output_chunks")) != 0)
            return rc;
        return have ? llmmem__fw_set_i64(x, LLMMEM_P_LOSS_CHUNKS, chunks, llmmem__fw_get(loss, "num_output_chunks"),
                                 "loss.num_output_chunks")
                    : LLMMEM_OK;
    }
    if (!strcmp(comp, "torch.nn.CrossEntropyLoss"))
        return llmmem__fw_set(x, LLMMEM_P_LOSS, "hf", n, "loss._component_"); /* the model output is .float() */
    return llmmem__fw_refuse(x, n, "loss._component_",
                     "loss \"%.80s\" is not modelled (CEWithChunkedOutputLoss, torch.nn.CrossEntropyLoss)", comp);
}

/* tokenizer.max_seq_len and dataset.packed: the sequence length. */
static int read_sequence(fw_ctx *x, const llmmem__jnode *root)
{
    const llmmem__jnode *tok = llmmem__fw_get(root, "tokenizer");
    int64_t len = 0;
    bool have = false;
    int rc;
    if (tok && llmmem__json_is_object(tok) &&
        (rc = llmmem__fw_int(&len, &have, x, tok, "max_seq_len", "tokenizer.max_seq_len")) != 0)
        return rc;
    if (have && (rc = llmmem__fw_set_i64(x, LLMMEM_P_SEQ_LEN, len, llmmem__fw_get(tok, "max_seq_len"), "tokenizer.max_seq_len")))
        return rc;
    const llmmem__jnode *ds = llmmem__fw_get(root, "dataset");
    int packed = -1;
    if (ds && llmmem__json_is_object(ds) && (rc = llmmem__fw_bool(&packed, x, ds, "packed", "dataset.packed")) != 0)
        return rc;
    if (packed == 1 && !have)
        return llmmem__json_error_at(x->doc, ds, LLMMEM_E_SCHEMA, "tokenizer.max_seq_len",
                                     "dataset.packed needs tokenizer.max_seq_len (the pack size)");
    if (packed == 1)
        llmmem__fw_note(x, "dataset.packed: every sequence is %lld tokens (PackedDataset pads to max_seq_len)",
                (long long)len);
    else if (have)
        llmmem__fw_note(x, "dataset not packed: batches pad to their longest sample; seq_len %lld is the bound", (long long)len);
    else
        llmmem__fw_note(x, "tokenizer.max_seq_len is null: the sequence length comes from the data; seq_len kept");
    return LLMMEM_OK;
}

/* The recipe switches. */
static int read_switches(fw_ctx *x, const llmmem__jnode *root)
{
    int b, rc;
    const llmmem__jnode *n;
    if ((rc = llmmem__fw_bool(&b, x, root, "enable_activation_checkpointing", "enable_activation_checkpointing")) != 0)
        return rc;
    if (b >= 0 && (rc = llmmem__fw_set(x, LLMMEM_P_CHECKPOINTING, b ? "full" : "none",
                               llmmem__fw_get(root, "enable_activation_checkpointing"), "enable_activation_checkpointing")))
        return rc;
    if ((rc = llmmem__fw_bool(&b, x, root, "enable_activation_offloading", "enable_activation_offloading")) != 0)
        return rc;
    if (b >= 0 && (rc = llmmem__fw_set(x, LLMMEM_P_ACTIVATION_OFFLOADING, b ? "streams" : "none",
                               llmmem__fw_get(root, "enable_activation_offloading"), "enable_activation_offloading")))
        return rc;
    if ((n = llmmem__fw_get(root, "compile")) && !llmmem__json_is_bool(n))
        return llmmem__fw_refuse(x, n, "compile", "compile given per component is not read; give true or false");
    if ((rc = llmmem__fw_bool(&b, x, root, "compile", "compile")) != 0)
        return rc;
    if (b >= 0 && (rc = llmmem__fw_set(x, LLMMEM_P_COMPILE, b ? "layers" : "none", llmmem__fw_get(root, "compile"), "compile")))
        return rc;
    if ((rc = llmmem__fw_bool(&b, x, root, "optimizer_in_bwd", "optimizer_in_bwd")) != 0)
        return rc;
    if (b >= 0 && (rc = llmmem__fw_set_i64(x, LLMMEM_P_OPTIMIZER_IN_BACKWARD, b, llmmem__fw_get(root, "optimizer_in_bwd"),
                                   "optimizer_in_bwd")))
        return rc;
    if ((rc = llmmem__fw_bool(&b, x, root, "fsdp_cpu_offload", "fsdp_cpu_offload")) != 0)
        return rc;
    if (b >= 0 && (rc = llmmem__fw_set_i64(x, LLMMEM_P_FSDP_CPU_OFFLOAD, b, llmmem__fw_get(root, "fsdp_cpu_offload"),
                                   "fsdp_cpu_offload")))
        return rc;
    if ((rc = llmmem__fw_bool(&b, x, root, "fsdp_reshard_after_forward", "fsdp_reshard_after_forward")) != 0)
        return rc;
    if (b == 0 && (rc = llmmem__fw_set(x, LLMMEM_P_FSDP_SHARDING, "shard_grad_op", llmmem__fw_get(root, "fsdp_reshard_after_forward"),
                               "fsdp_reshard_after_forward")))
        return rc;
    int64_t v;
    bool have;
    if ((rc = llmmem__fw_int(&v, &have, x, root, "batch_size", "batch_size")) != 0 ||
        (have && (rc = llmmem__fw_set_i64(x, LLMMEM_P_MICRO_BATCH_SIZE, v, llmmem__fw_get(root, "batch_size"), "batch_size"))))
        return rc;
    if ((rc = llmmem__fw_int(&v, &have, x, root, "gradient_accumulation_steps", "gradient_accumulation_steps")) != 0 ||
        (have && (rc = llmmem__fw_set_i64(x, LLMMEM_P_GRAD_ACCUM_STEPS, v, llmmem__fw_get(root, "gradient_accumulation_steps"),
                                  "gradient_accumulation_steps"))))
        return rc;
    if ((rc = llmmem__fw_int(&v, &have, x, root, "tensor_parallel_dim", "tensor_parallel_dim")) != 0)
        return rc;
    if (have && v > 1)
        return llmmem__fw_refuse(x, llmmem__fw_get(root, "tensor_parallel_dim"), "tensor_parallel_dim",
                         "torchtune's tensor parallel plan is not modelled");
    if ((n = llmmem__fw_get(root, "clip_grad_norm")))
        llmmem__fw_note(x, "clip_grad_norm: the per-tensor norms (fp32 scalars) are not counted");
    if ((n = llmmem__fw_get(root, "custom_sharded_layers"))) {
        if (llmmem__json_type(n) != LLMMEM__J_ARRAY)
            return llmmem__input_type_error(x->doc, n, "custom_sharded_layers", "a list of module names");
        bool emb = false, out = false;
        for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it)) {
            const char *s = llmmem__json_is_string(it) ? llmmem__json_string(it) : "";
            emb = emb || !strcmp(s, "tok_embeddings");
            out = out || !strcmp(s, "output");
        }
        if (emb && out) {
            if ((rc = llmmem__fw_set_i64(x, LLMMEM_P_FSDP_CUSTOM_SHARDED_LAYERS, 1, n, "custom_sharded_layers")) != 0)
                return rc;
        } else if (llmmem__json_array_size(n) > 0) {
            llmmem__fw_note(x, "custom_sharded_layers other than [tok_embeddings, output]: the fsdp engine's root unit is used");
        }
    }
    return LLMMEM_OK;
}

/* dtype bf16/fp32: no autocast, no master copy (training.get_dtype). */
static int read_dtype(fw_ctx *x, const llmmem__jnode *root)
{
    const char *dt;
    int rc = llmmem__fw_str(&dt, x, root, "dtype", "dtype");
    if (rc || !dt)
        return rc;
    const llmmem__jnode *n = llmmem__fw_get(root, "dtype");
    const char *v = !strcmp(dt, "bf16") ? "bf16" : !strcmp(dt, "fp32") ? "fp32" : NULL;
    if (!v)
        return llmmem__fw_refuse(x, n, "dtype", "dtype \"%.20s\": torchtune trains in bf16 or fp32 (fp16 raises)", dt);
    if ((rc = llmmem__fw_set(x, LLMMEM_P_PARAM_DTYPE, v, n, "dtype")) != 0)
        return rc;
    return llmmem__fw_set(x, LLMMEM_P_COMPUTE_DTYPE, v, n, "dtype");
}

int llmmem__torchtune_apply(fw_ctx *x, const llmmem__jnode *root)
{
    static const char *const read[] = {"dtype", "batch_size", "gradient_accumulation_steps",
                                       "enable_activation_checkpointing", "enable_activation_offloading",
                                       "compile", "optimizer_in_bwd", "optimizer", "loss", "model", "tokenizer",
                                       "dataset", "clip_grad_norm", "fsdp_cpu_offload",
                                       "fsdp_reshard_after_forward", "custom_sharded_layers",
                                       "tensor_parallel_dim", "device", NULL};
    int rc;
    const llmmem__jnode *n;
    if ((rc = llmmem__fw_set(x, LLMMEM_P_ACTIVATION_PROFILE, "torchtune", root, "")) != 0 ||
        (rc = llmmem__fw_set(x, LLMMEM_P_ATTENTION, "sdpa", root, "")) != 0)
        return rc;
    const char *dev;
    if ((rc = llmmem__fw_str(&dev, x, root, "device", "device")) != 0)
        return rc;
    if (dev && strcmp(dev, "cuda"))
        return llmmem__fw_refuse(x, llmmem__fw_get(root, "device"), "device", "device \"%.20s\": the estimate is for CUDA GPUs", dev);
    if ((rc = read_dtype(x, root)) != 0 || (rc = read_sequence(x, root)) != 0 || (rc = read_switches(x, root)) != 0)
        return rc;
    if ((n = llmmem__fw_get(root, "model")) && (rc = read_model(x, n)) != 0)
        return rc;
    if ((n = llmmem__fw_get(root, "optimizer")) && (rc = read_optimizer(x, n)) != 0)
        return rc;
    if ((n = llmmem__fw_get(root, "loss")) && (rc = read_loss(x, n)) != 0)
        return rc;
    for (const llmmem__jnode *it = llmmem__json_first(root); it; it = llmmem__json_next(it)) {
        const char *k = llmmem__json_key(it);
        llmmem__fw_tally(x, k, read, ignored);
    }
    return LLMMEM_OK;
}
