/* HF TrainingArguments keys of the training recipes (transformers
 * training_args.py, trainer.py, modeling_utils.py), beside training_args.c:
 * use_liger_kernel / liger_kernel_config, torch_compile and its backend and
 * mode, gradient_checkpointing_kwargs (activation_checkpointing_kwargs in
 * 5.x), activation_checkpointing, torch_empty_cache_steps, and the fsdp_config
 * keys that are not its mixed precision. Each key is set, refused at its
 * position, or noted on the configuration. */
#include "input/framework.h"

#include <string.h>

const char *const llmmem__hf_recipe_key_names[] = {
    "use_liger_kernel", "liger_kernel_config", "torch_compile", "torch_compile_backend", "torch_compile_mode",
    "gradient_checkpointing_kwargs", "activation_checkpointing_kwargs", "activation_checkpointing",
    "torch_empty_cache_steps", NULL};

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

static int refuse(const llmmem__json *doc, const llmmem__jnode *n, const char *path, const char *why)
{
    return llmmem__json_error_at(doc, n, LLMMEM_E_UNSUPPORTED, path, "%s", why);
}

/* Trainer.__init__ -> integrations/liger.py apply_liger_kernel: the family's
 * defaults are rope, rms_norm, swiglu and fused_linear_cross_entropy;
 * liger_kernel_config switches each. The fused linear cross-entropy is loss
 * liger, RMSNorm with SwiGLU is liger_kernels (RoPE keeps nothing either
 * way); RMSNorm without SwiGLU or the reverse is refused. */
static int liger(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg)
{
    int use, rc;
    if ((rc = hf_bool(&use, doc, root, "use_liger_kernel")) != 0 || use != 1)
        return rc;
    bool flce = true, norm = true, glu = true;
    const llmmem__jnode *kc = llmmem__json_get(root, "liger_kernel_config");
    if (kc && llmmem__json_is_object(kc)) {
        for (const llmmem__jnode *it = llmmem__json_first(kc); it; it = llmmem__json_next(it)) {
            const char *k = llmmem__json_key(it);
            char path[LLMMEM__KEYPATH_MAX];
            llmmem__input_join_path(path, sizeof path, "liger_kernel_config", k);
            if (!llmmem__json_is_bool(it))
                return llmmem__input_type_error(doc, it, path, "true or false");
            bool on = llmmem__json_true(it);
            if (!strcmp(k, "fused_linear_cross_entropy"))
                flce = on;
            else if (!strcmp(k, "cross_entropy") && on)
                return refuse(doc, it, path, "Liger's in-place cross_entropy on materialised logits is not modelled");
            else if (!strcmp(k, "rms_norm"))
                norm = on;
            else if (!strcmp(k, "swiglu") || !strcmp(k, "geglu"))
                glu = on;
            else if (strcmp(k, "rope") && strcmp(k, "layer_norm") && on)
                return refuse(doc, it, path, "this Liger kernel is not modelled");
        }
    } else if (kc && !llmmem__json_is_null(kc)) {
        return llmmem__input_type_error(doc, kc, "liger_kernel_config", "a mapping of kernel: true/false");
    }
    if (flce && (rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_LOSS, "liger", llmmem__json_get(root, "use_liger_kernel"),
                                            "use_liger_kernel")) != 0)
        return rc;
    if (norm != glu)
        return refuse(doc, kc, "liger_kernel_config", "rms_norm without swiglu (or the reverse) is not modelled");
    return norm ? llmmem__input_set_i64(doc, cfg, LLMMEM_P_LIGER_KERNELS, 1, llmmem__json_get(root, "use_liger_kernel"),
                                        "use_liger_kernel")
                : LLMMEM_OK;
}

/* torch_compile: accelerate compiles the whole model (one graph with the
 * loss when there is no graph break): compile model. Modes with CUDA graphs
 * or autotuning keep pools and workspaces that are not modelled. */
static int compile(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg)
{
    int on = -1, rc;
    const llmmem__jnode *tc = llmmem__json_get(root, "torch_compile");
    if (tc && llmmem__json_is_string(tc) && !strcmp(llmmem__json_string(tc), "auto"))
        on = 1; /* axolotl: on from torch 2.5.1 */
    else if ((rc = hf_bool(&on, doc, root, "torch_compile")) != 0)
        return rc;
    const llmmem__jnode *mode = llmmem__json_get(root, "torch_compile_mode");
    const llmmem__jnode *backend = llmmem__json_get(root, "torch_compile_backend");
    bool implied = (mode && !llmmem__json_is_null(mode)) || (backend && !llmmem__json_is_null(backend));
    if (on == 0 || (on < 0 && !implied))
        return LLMMEM_OK;
    if (backend && llmmem__json_is_string(backend) && strcmp(llmmem__json_string(backend), "inductor"))
        return refuse(doc, backend, "torch_compile_backend", "only the inductor backend's partitioning is modelled");
    if (mode && llmmem__json_is_string(mode) && strcmp(llmmem__json_string(mode), "default"))
        return refuse(doc, mode, "torch_compile_mode",
                      "reduce-overhead/max-autotune keep CUDA-graph pools and autotuning workspaces; not modelled");
    const llmmem__jnode *at = llmmem__json_get(root, "torch_compile");
    if (!at || llmmem__json_is_null(at))
        at = mode && !llmmem__json_is_null(mode) ? mode : backend;
    llmmem__config_note(cfg, "torch_compile: a graph break splits the partition and saves at the boundary; "
                             "the estimate assumes one graph");
    return llmmem__input_set_str(doc, cfg, LLMMEM_P_COMPILE, "model", at, "torch_compile");
}

/* gradient_checkpointing_kwargs (PreTrainedModel.gradient_checkpointing_enable):
 * use_reentrant changes how the inputs are held, not which (noted);
 * offload wraps each checkpoint in torch.autograd.graph.save_on_cpu
 * (transformers 5.x _activation_checkpointing_enable). */
static int ckpt_kwargs(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg)
{
    int on, rc;
    if ((rc = hf_bool(&on, doc, root, "activation_checkpointing")) != 0)
        return rc;
    if (on >= 0 && (rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_CHECKPOINTING, on ? "full" : "none",
                                                llmmem__json_get(root, "activation_checkpointing"),
                                                "activation_checkpointing")) != 0)
        return rc;
    const char *names[] = {"gradient_checkpointing_kwargs", "activation_checkpointing_kwargs"};
    for (int i = 0; i < 2; i++) {
        const llmmem__jnode *kw = llmmem__json_get(root, names[i]);
        if (!kw || llmmem__json_is_null(kw))
            continue;
        if (!llmmem__json_is_object(kw))
            return llmmem__input_type_error(doc, kw, names[i], "a mapping");
        for (const llmmem__jnode *it = llmmem__json_first(kw); it; it = llmmem__json_next(it)) {
            const char *k = llmmem__json_key(it);
            char path[LLMMEM__KEYPATH_MAX];
            llmmem__input_join_path(path, sizeof path, names[i], k);
            if (!strcmp(k, "use_reentrant")) {
                if (llmmem__json_is_bool(it) && llmmem__json_true(it))
                    llmmem__config_note(cfg, "%s: reentrant checkpoints keep the same layer inputs as the "
                                             "non-reentrant ones counted", path);
            } else if (!strcmp(k, "offload")) {
                if (!llmmem__json_is_bool(it))
                    return llmmem__input_type_error(doc, it, path, "true or false");
                if (llmmem__json_true(it) &&
                    (rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_ACTIVATION_OFFLOADING, "save_on_cpu", it, path)))
                    return rc;
            } else if (!strcmp(k, "every_n_layers")) {
                if (!llmmem__json_is_number(it) || llmmem__json_number(it) != 1)
                    return refuse(doc, it, path, "checkpointing every n-th layer is not modelled");
            } else if (!strcmp(k, "preserve_rng_state") || !strcmp(k, "determinism_check") || !strcmp(k, "debug")) {
                /* no memory effect */
            } else {
                return refuse(doc, it, path, "checkpoint option not modelled");
            }
        }
    }
    return LLMMEM_OK;
}

/* fsdp_config keys beside its mixed precision (training_args.py fsdp_config,
 * accelerate FullyShardedDataParallelPlugin): activation_checkpointing,
 * offload_params / cpu_offload, reshard_after_forward. Read only when FSDP is on
 * (the fsdp key, or the framework's own switch, made the engine fsdp): Trainer
 * ignores fsdp_config otherwise, and a saved TrainingArguments always has one. */
static int fsdp_keys(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg)
{
    const llmmem__jnode *fc = llmmem__json_get(root, "fsdp_config");
    if (!fc || !llmmem__json_is_object(fc) || cfg->engine != LLMMEM__ENG_FSDP)
        return LLMMEM_OK;
    static const char *const noted[] = {"transformer_layer_cls_to_wrap", "min_num_params", "backward_prefetch",
                                        "forward_prefetch", "limit_all_gathers", "use_orig_params",
                                        "sync_module_states", "cpu_ram_efficient_loading", "state_dict_type",
                                        "auto_wrap_policy", NULL};
    int rc;
    for (const llmmem__jnode *it = llmmem__json_first(fc); it; it = llmmem__json_next(it)) {
        const char *k = llmmem__json_key(it);
        const char *key = !strncmp(k, "fsdp_", 5) ? k + 5 : k;
        char path[LLMMEM__KEYPATH_MAX];
        llmmem__input_join_path(path, sizeof path, "fsdp_config", k);
        if (!strcmp(key, "activation_checkpointing")) {
            if (!llmmem__json_is_bool(it))
                return llmmem__input_type_error(doc, it, path, "true or false");
            if (llmmem__json_true(it) &&
                (rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_CHECKPOINTING, "full", it, path)) != 0)
                return rc;
        } else if (!strcmp(key, "offload_params") || !strcmp(key, "cpu_offload")) {
            if (!llmmem__json_is_bool(it))
                return llmmem__input_type_error(doc, it, path, "true or false");
            if ((rc = llmmem__input_set_i64(doc, cfg, LLMMEM_P_FSDP_CPU_OFFLOAD, llmmem__json_true(it), it, path)))
                return rc;
        } else if (!strcmp(key, "reshard_after_forward")) {
            if (llmmem__json_is_bool(it) && !llmmem__json_true(it) &&
                (rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_FSDP_SHARDING, "shard_grad_op", it, path)) != 0)
                return rc;
        } else if (llmmem__fw_in(key, noted)) {
            llmmem__config_note(cfg, "%s: not modelled (the fsdp engine's wrapping and prefetch defaults)", path);
        }
    }
    return LLMMEM_OK;
}

int llmmem__hf_recipe_keys(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg)
{
    int rc;
    if ((rc = liger(doc, root, cfg)) != 0 || (rc = compile(doc, root, cfg)) != 0 ||
        (rc = ckpt_kwargs(doc, root, cfg)) != 0 || (rc = fsdp_keys(doc, root, cfg)) != 0)
        return rc;
    const llmmem__jnode *n = llmmem__json_get(root, "torch_empty_cache_steps");
    if (n && !llmmem__json_is_null(n))
        llmmem__config_note(cfg, "torch_empty_cache_steps: lowers what stays reserved between steps, not the peak");
    return LLMMEM_OK;
}
