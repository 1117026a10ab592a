/* JSON values onto configuration parameters: what the three readers of
 * framework files share (scenario.c, deepspeed.c, training_args.c).
 *
 * - type checks and messages that name the key path, the value and
 *   source:line:col;
 * - a parameter set from a JSON value by the parameter's type (params.c);
 * - the value translations the formats share: optimizer names, activation
 *   checkpointing, offload and LoRA target lists. */
#include "input/input.h"

#include <stdlib.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- paths, messages, integers --------------------------------------------- */

void llmmem__input_join_path(char *out, size_t cap, const char *a, const char *b)
{
    if (a && *a)
        snprintf(out, cap, "%s.%s", a, b);
    else
        snprintf(out, cap, "%s", b);
}

int llmmem__input_wrap(const llmmem__json *doc, const llmmem__jnode *n, const char *path,
                       int status)
{
    char inner[512];
    snprintf(inner, sizeof inner, "%s", llmmem_last_error());
    return llmmem__json_error_at(doc, n, status, path, "%s", inner);
}

const char *llmmem__input_value_text(char *buf, size_t cap, const llmmem__jnode *n)
{
    switch (llmmem__json_type(n)) {
    case LLMMEM__J_NULL: snprintf(buf, cap, "null"); break;
    case LLMMEM__J_BOOL: snprintf(buf, cap, "%s", llmmem__json_true(n) ? "true" : "false"); break;
    case LLMMEM__J_NUMBER: snprintf(buf, cap, "%.17g", llmmem__json_number(n)); break;
    case LLMMEM__J_STRING: snprintf(buf, cap, "\"%.60s\"", llmmem__json_string(n)); break;
    case LLMMEM__J_ARRAY: snprintf(buf, cap, "an array"); break;
    case LLMMEM__J_OBJECT: snprintf(buf, cap, "an object"); break;
    default: snprintf(buf, cap, "a value"); break;
    }
    return buf;
}

int llmmem__input_type_error(const llmmem__json *doc, const llmmem__jnode *n, const char *path,
                             const char *expected)
{
    char v[96];
    return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "expected %s, got %s", expected,
                                 llmmem__input_value_text(v, sizeof v, n));
}

int llmmem__input_node_i64(int64_t *out, const llmmem__json *doc, const llmmem__jnode *n,
                           const char *path)
{
    if (!llmmem__json_is_number(n))
        return llmmem__input_type_error(doc, n, path, "an integer");
    double d = llmmem__json_number(n);
    char v[96];
    if (!isfinite(d) || fabs(d) > 9007199254740992.0)
        return llmmem__json_error_at(doc, n, LLMMEM_E_OUT_OF_RANGE, path,
                                     "integer %s is beyond 2^53",
                                     llmmem__input_value_text(v, sizeof v, n));
    if (d != floor(d))
        return llmmem__input_type_error(doc, n, path, "an integer");
    *out = (int64_t)d;
    return LLMMEM_OK;
}

void llmmem__input_lower_copy(char *out, size_t cap, const char *s)
{
    size_t i = 0;
    for (; s && s[i] && i + 1 < cap; i++)
        out[i] = (char)(s[i] == '-' ? '_' : tolower((unsigned char)s[i]));
    out[i] = '\0';
}

/* ---- parameters from JSON values ------------------------------------------- */

/* An enum or string parameter from a JSON string. An enum gets a second
 * chance, case-insensitive with '-' as '_' ("FULL_SHARD", "zero-3"); when that
 * fails too, the first attempt runs again so that its message is the one left. */
static int set_name_node(const llmmem__json *doc, llmmem_config *cfg, int id, int type,
                         const llmmem__jnode *n, const char *path)
{
    if (llmmem__json_is_bool(n) && llmmem__param_is_tribool(llmmem__param_find(id))) {
        int rb = llmmem_config_set_i64(cfg, id, llmmem__json_true(n) ? 1 : 0);
        return rb ? llmmem__input_wrap(doc, n, path, rb) : LLMMEM_OK;
    }
    if (!llmmem__json_is_string(n))
        return llmmem__input_type_error(doc, n, path,
                                        type == LLMMEM_TYPE_ENUM ? "a name (string)" : "a string");
    int rc = llmmem_config_set_str(cfg, id, llmmem__json_string(n));
    if (rc != 0 && type == LLMMEM_TYPE_ENUM) {
        char low[64];
        llmmem__input_lower_copy(low, sizeof low, llmmem__json_string(n));
        if (strcmp(low, llmmem__json_string(n)) != 0 && llmmem_config_set_str(cfg, id, low) == 0)
            return LLMMEM_OK;
        rc = llmmem_config_set_str(cfg, id, llmmem__json_string(n));
    }
    return rc ? llmmem__input_wrap(doc, n, path, rc) : LLMMEM_OK;
}

/* A bool parameter: true/false, or the numbers 0 and 1. */
static int set_bool_node(const llmmem__json *doc, llmmem_config *cfg, int id,
                         const llmmem__jnode *n, const char *path)
{
    int rc;
    if (llmmem__json_is_bool(n))
        rc = llmmem_config_set_i64(cfg, id, llmmem__json_true(n) ? 1 : 0);
    else if (llmmem__json_is_number(n) &&
             (llmmem__json_number(n) == 0.0 || llmmem__json_number(n) == 1.0))
        rc = llmmem_config_set_i64(cfg, id, (int64_t)llmmem__json_number(n));
    else
        return llmmem__input_type_error(doc, n, path, "true or false");
    return rc ? llmmem__input_wrap(doc, n, path, rc) : LLMMEM_OK;
}

/* Records where a value was read, for the estimate's errors to cite. */
static void note_origin(const llmmem__json *doc, llmmem_config *cfg, int id, const llmmem__jnode *n,
                        const char *path)
{
    int line = 0, col = 0;
    llmmem__json_pos(doc, n, &line, &col);
    char where[LLMMEM__ORIGIN_MAX];
    const char *src = llmmem__json_source(doc);
    snprintf(where, sizeof where, "%.80s:%d:%d: %.60s", src ? src : "<json>", line, col, path ? path : "");
    llmmem__config_set_origin(cfg, id, where);
}

static int set_param_node(const llmmem__json *doc, llmmem_config *cfg, int id,
                          const llmmem__jnode *n, const char *path);

int llmmem__input_set_param(const llmmem__json *doc, llmmem_config *cfg, int id,
                            const llmmem__jnode *n, const char *path)
{
    int rc = set_param_node(doc, cfg, id, n, path);
    if (rc == 0)
        note_origin(doc, cfg, id, n, path);
    return rc;
}

static int set_param_node(const llmmem__json *doc, llmmem_config *cfg, int id,
                          const llmmem__jnode *n, const char *path)
{
    int type = llmmem_param_type(id);
    int rc;
    switch (type) {
    case LLMMEM_TYPE_I64: {
        int64_t v;
        if ((rc = llmmem__input_node_i64(&v, doc, n, path)) != 0)
            return rc;
        rc = llmmem_config_set_i64(cfg, id, v);
        break;
    }
    case LLMMEM_TYPE_BOOL: return set_bool_node(doc, cfg, id, n, path);
    case LLMMEM_TYPE_F64:
        if (!llmmem__json_is_number(n))
            return llmmem__input_type_error(doc, n, path, "a number");
        rc = llmmem_config_set_f64(cfg, id, llmmem__json_number(n));
        break;
    case LLMMEM_TYPE_ENUM:
    case LLMMEM_TYPE_STR: return set_name_node(doc, cfg, id, type, n, path);
    default:
        return llmmem__json_error_at(doc, n, LLMMEM_E_INTERNAL, path, "parameter %d has no type",
                                     id);
    }
    return rc ? llmmem__input_wrap(doc, n, path, rc) : LLMMEM_OK;
}

int llmmem__input_set_str(const llmmem__json *doc, llmmem_config *cfg, int id, const char *value,
                          const llmmem__jnode *n, const char *path)
{
    int rc = llmmem_config_set_str(cfg, id, value);
    if (rc == 0)
        note_origin(doc, cfg, id, n, path);
    return rc ? llmmem__input_wrap(doc, n, path, rc) : LLMMEM_OK;
}

int llmmem__input_set_i64(const llmmem__json *doc, llmmem_config *cfg, int id, int64_t value,
                          const llmmem__jnode *n, const char *path)
{
    int rc = llmmem_config_set_i64(cfg, id, value);
    if (rc == 0)
        note_origin(doc, cfg, id, n, path);
    return rc ? llmmem__input_wrap(doc, n, path, rc) : LLMMEM_OK;
}

/* ---- value translations shared by the three formats ------------------------- */

/* Optimizer names of the scenario format and of the frameworks
 * (config/optimizers.def LLMMEM__OPTIMIZER_NAMES). The suffix selects the
 * PyTorch implementation (torch/optim/adamw.py: foreach, fused). */
static const struct {
    const char *name;
    int optimizer; /* LLMMEM_OPTIMIZER_* */
    int impl;      /* LLMMEM__IMPL_*, -1: leave */
} optim_alias[] = {
#define SPELLING(name, V, I) {name, LLMMEM_OPTIMIZER_##V, LLMMEM__OPTIM_IMPL(I)},
    LLMMEM__OPTIMIZER_NAMES(SPELLING)
#undef SPELLING
};

int llmmem__input_set_optimizer(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *n,
                                const char *path)
{
    if (!llmmem__json_is_string(n))
        return llmmem__input_type_error(doc, n, path, "an optimizer name (string)");
    char low[64];
    llmmem__input_lower_copy(low, sizeof low, llmmem__json_string(n));
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(optim_alias); i++) {
        char an[64];
        llmmem__input_lower_copy(an, sizeof an, optim_alias[i].name);
        if (strcmp(an, low) != 0)
            continue;
        int rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_OPTIMIZER,
                                       llmmem_param_enum_name(LLMMEM_P_OPTIMIZER, optim_alias[i].optimizer), n, path);
        if (rc == 0 && optim_alias[i].impl >= 0)
            rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_OPTIMIZER_IMPL,
                                       llmmem_param_enum_name(LLMMEM_P_OPTIMIZER_IMPL, optim_alias[i].impl), n, path);
        return rc;
    }
    return llmmem__input_set_param(doc, cfg, LLMMEM_P_OPTIMIZER, n, path);
}

/* Activation checkpointing: "none"/"full"/"selective", a bool (HF
 * gradient_checkpointing), or gpu-mem-calculator's level 0..4 (0 none, 4 full,
 * 1..3 partial: formulas.py calculate_activation_memory). */
int llmmem__input_set_checkpointing(const llmmem__json *doc, llmmem_config *cfg,
                                    const llmmem__jnode *n, const char *path)
{
    if (llmmem__json_is_bool(n))
        return llmmem__input_set_str(doc, cfg, LLMMEM_P_CHECKPOINTING,
                                     llmmem__json_true(n) ? "full" : "none", n, path);
    if (llmmem__json_is_number(n)) {
        int64_t lvl;
        int rc = llmmem__input_node_i64(&lvl, doc, n, path);
        if (rc)
            return rc;
        if (lvl < 0 || lvl > 4)
            return llmmem__json_error_at(doc, n, LLMMEM_E_OUT_OF_RANGE, path,
                                         "checkpointing level %lld is outside [0, 4]",
                                         (long long)lvl);
        return llmmem__input_set_str(doc, cfg, LLMMEM_P_CHECKPOINTING,
                                     lvl == 0   ? "none"
                                     : lvl == 4 ? "full"
                                                : "selective",
                                     n, path);
    }
    return llmmem__input_set_param(doc, cfg, LLMMEM_P_CHECKPOINTING, n, path);
}

/* Offload: "none"/"cpu"/"nvme", a bool, or DeepSpeed's {"device": ...}. */
int llmmem__input_set_offload(const llmmem__json *doc, llmmem_config *cfg, int id,
                              const llmmem__jnode *n, const char *path)
{
    if (llmmem__json_is_bool(n))
        return llmmem__input_set_str(doc, cfg, id, llmmem__json_true(n) ? "cpu" : "none", n, path);
    if (llmmem__json_is_null(n))
        return llmmem__input_set_str(doc, cfg, id, "none", n, path);
    if (llmmem__json_is_object(n)) {
        const llmmem__jnode *d = llmmem__json_get(n, "device");
        char p2[LLMMEM__KEYPATH_MAX];
        llmmem__input_join_path(p2, sizeof p2, path, "device");
        if (!d)
            return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, p2, "missing required key");
        if (llmmem__json_is_null(d))
            return llmmem__input_set_str(doc, cfg, id, "none", d, p2);
        return llmmem__input_set_param(doc, cfg, id, d, p2);
    }
    return llmmem__input_set_param(doc, cfg, id, n, path);
}

/* Joins a JSON list of module names into "a,b,c" in list[LLMMEM__STR_MAX]. */
/* Whether a comma-separated list names "all" beside other modules (spaces around the
 * names stripped, as LLaMA-Factory's split_arg does). */
static bool list_has_all(const char *s)
{
    if (!strchr(s, ','))
        return false;
    for (const char *p = s; *p;) {
        while (*p == ' ')
            p++;
        const char *e = p;
        while (*e && *e != ',')
            e++;
        const char *t = e;
        while (t > p && t[-1] == ' ')
            t--;
        if (t - p == 3 && !strncmp(p, "all", 3))
            return true;
        p = *e ? e + 1 : e;
    }
    return false;
}

/* LLaMA-Factory model/adapter.py:205: "all" means every linear layer only when it is the
 * list's one item; beside other names it reaches PEFT as a module name that matches
 * nothing, and only the others are adapted. A list that says both is refused. */
static int all_in_list(const llmmem__json *doc, const llmmem__jnode *n, const char *path)
{
    return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path,
                                 "\"all\" beside other module names: LLaMA-Factory reads all (every linear layer) "
                                 "only alone (model/adapter.py); in a list PEFT matches no module named all and "
                                 "adapts the others only. Write all alone, or the modules");
}

static int target_list(char *list, const llmmem__json *doc, const llmmem__jnode *n,
                       const char *path)
{
    size_t used = 0;
    int i = 0;
    bool has_all = false;
    list[0] = '\0';
    for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it), i++) {
        char ip[LLMMEM__KEYPATH_MAX];
        snprintf(ip, sizeof ip, "%s[%d]", path, i);
        if (!llmmem__json_is_string(it))
            return llmmem__input_type_error(doc, it, ip, "a module name (string)");
        const char *s = llmmem__json_string(it);
        if (!*s || strchr(s, ','))
            return llmmem__json_error_at(doc, it, LLMMEM_E_SCHEMA, ip,
                                         "module name \"%.60s\" is empty or has a comma", s);
        size_t len = strlen(s);
        if (used + len + 2 > LLMMEM__STR_MAX)
            return llmmem__json_error_at(doc, it, LLMMEM_E_OUT_OF_RANGE, ip,
                                         "target list longer than %d bytes", LLMMEM__STR_MAX - 1);
        used += (size_t)snprintf(list + used, LLMMEM__STR_MAX - used, "%s%s", used ? "," : "", s);
        has_all = has_all || !strcmp(s, "all");
    }
    if (i == 0)
        return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "empty list of target modules");
    if (has_all && i > 1)
        return all_in_list(doc, n, path);
    if (has_all)
        snprintf(list, LLMMEM__STR_MAX, "all-linear");
    return LLMMEM_OK;
}

/* lora.target_modules: ["q_proj", ...] or "q_proj,v_proj" or "all-linear". */
int llmmem__input_set_targets(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *n,
                              const char *path)
{
    if (llmmem__json_is_string(n)) {
        const char *s = llmmem__json_string(n);
        if (strcmp(s, "all") == 0) /* LLaMA-Factory lora_target: all */
            s = "all-linear";
        else if (list_has_all(s))
            return all_in_list(doc, n, path);
        return llmmem__input_set_str(doc, cfg, LLMMEM_P_LORA_TARGETS, s, n, path);
    }
    if (llmmem__json_type(n) != LLMMEM__J_ARRAY)
        return llmmem__input_type_error(doc, n, path, "a list of module names");
    char list[LLMMEM__STR_MAX];
    int rc = target_list(list, doc, n, path);
    if (rc)
        return rc;
    return llmmem__input_set_str(doc, cfg, LLMMEM_P_LORA_TARGETS, list, n, path);
}

/* ---- a framework file applied all or nothing --------------------------------- */

int llmmem__input_apply_copy(llmmem_config *cfg, const char *json, size_t len, const char *source,
                             llmmem__input_apply_fn apply, const void *arg)
{
    llmmem__json *doc = NULL;
    int rc = llmmem__json_parse(&doc, json, len, source);
    if (rc)
        return rc;
    llmmem_config *tmp = NULL;
    rc = llmmem_config_clone(&tmp, cfg);
    if (rc == 0)
        rc = apply(doc, llmmem__json_root(doc), tmp, arg);
    llmmem__json_free(doc);
    if (rc == 0)
        llmmem__config_take(cfg, tmp);
    llmmem_config_free(tmp);
    return rc;
}

/* The same from a file: the source in messages is the path. */
int llmmem__input_apply_file(llmmem_config *cfg, const char *path, const char *fn, llmmem__input_apply_fn apply,
                             const void *arg)
{
    if (!cfg || !path)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "%s: NULL argument", fn);
    char *text = NULL;
    size_t len = 0;
    int rc = llmmem__read_file(&text, &len, path);
    if (rc)
        return rc;
    rc = llmmem__input_apply_copy(cfg, text, len, path, apply, arg);
    free(text);
    return rc;
}

/* What a JSON object looks like, by the keys only one kind of file has. */
static const struct {
    const char *what;
    const char *keys[6];
} kinds[] = {
    {"a HuggingFace config.json", {"model_type", "architectures", "num_hidden_layers", "hidden_size", NULL}},
    {"a scenario file", {"model", "mode", "training", "inference", "engine", "hardware"}},
    {"a DeepSpeed config", {"zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size", NULL}},
    {"HF TrainingArguments", {"per_device_train_batch_size", "output_dir", "learning_rate", "num_train_epochs", NULL}},
    {"a calibration profile", {"components", "reserved_headroom", "fitted_from", NULL}},
};

/* A file with none of the keys its reader knows: an error that says what it
 * looks like (a scenario given as a DeepSpeed config applies nothing). */
int llmmem__input_expect_keys(const llmmem__json *doc, const llmmem__jnode *root, const char *const *keys,
                              const char *reader)
{
    if (!llmmem__json_is_object(root))
        return 0;
    for (const char *const *k = keys; *k; k++)
        if (llmmem__json_get(root, *k))
            return 0;
    const char *what = "an object without any of them";
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(kinds); i++)
        for (int j = 0; j < 6 && kinds[i].keys[j]; j++)
            if (llmmem__json_get(root, kinds[i].keys[j])) {
                what = kinds[i].what;
                goto found;
            }
found:
    return llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "", "none of the keys %s reads (%s, %s, ...): this looks like %s",
                                 reader, keys[0], keys[1], what);
}

/* ---- vLLM's own argument names (the "vllm" section of a scenario) ---------- */

/* How a vLLM argument (engine/arg_utils.py EngineArgs) is read. */
enum vkind {
    VK_PARAM,    /* the parameter `param`, by its type */
    VK_TRI,      /* a bool onto an auto/off/on parameter */
    VK_DTYPE,    /* --dtype: param_dtype and compute_dtype */
    VK_KV_DTYPE, /* a vLLM dtype name onto a dtype parameter */
    VK_QUANT,    /* --quantization: null = auto */
    VK_IGNORE,   /* no effect on GPU memory */
    VK_REFUSE    /* changes GPU memory in a way not modelled */
};

static const struct {
    const char *name;
    int kind;
    int param;
} vllm_args[] = {
    {"gpu_memory_utilization", VK_PARAM, LLMMEM_P_GPU_MEMORY_UTILIZATION},
    {"max_model_len", VK_PARAM, LLMMEM_P_MAX_MODEL_LEN},
    {"max_num_seqs", VK_PARAM, LLMMEM_P_MAX_NUM_SEQS},
    {"max_num_batched_tokens", VK_PARAM, LLMMEM_P_MAX_NUM_BATCHED_TOKENS},
    {"tensor_parallel_size", VK_PARAM, LLMMEM_P_TENSOR_PARALLEL},
    {"pipeline_parallel_size", VK_PARAM, LLMMEM_P_PIPELINE_PARALLEL},
    {"data_parallel_size", VK_PARAM, LLMMEM_P_DATA_PARALLEL},
    {"block_size", VK_PARAM, LLMMEM_P_KV_BLOCK_SIZE},
    {"enforce_eager", VK_PARAM, LLMMEM_P_ENFORCE_EAGER},
    {"enable_expert_parallel", VK_PARAM, LLMMEM_P_ENABLE_EXPERT_PARALLEL},
    {"disable_custom_all_reduce", VK_PARAM, LLMMEM_P_DISABLE_CUSTOM_ALL_REDUCE},
    {"disable_hybrid_kv_cache_manager", VK_PARAM, LLMMEM_P_DISABLE_HYBRID_KV_CACHE_MANAGER},
    {"kv_cache_memory_bytes", VK_PARAM, LLMMEM_P_KV_CACHE_MEMORY_BYTES},
    {"kv_cache_memory", VK_PARAM, LLMMEM_P_KV_CACHE_MEMORY_BYTES},
    {"num_gpu_blocks_override", VK_PARAM, LLMMEM_P_NUM_GPU_BLOCKS_OVERRIDE},
    {"version", VK_PARAM, LLMMEM_P_VLLM_VERSION},
    {"vllm_version", VK_PARAM, LLMMEM_P_VLLM_VERSION},
    {"usage_context", VK_PARAM, LLMMEM_P_VLLM_USAGE_CONTEXT},
    {"flashinfer_sampler", VK_TRI, LLMMEM_P_FLASHINFER_SAMPLER},
    {"vllm_image", VK_PARAM, LLMMEM_P_VLLM_IMAGE},
    {"enable_chunked_prefill", VK_TRI, LLMMEM_P_ENABLE_CHUNKED_PREFILL},
    {"enable_prefix_caching", VK_TRI, LLMMEM_P_ENABLE_PREFIX_CACHING},
    {"dtype", VK_DTYPE, 0},
    {"kv_cache_dtype", VK_KV_DTYPE, LLMMEM_P_KV_CACHE_DTYPE},
    {"mamba_ssm_cache_dtype", VK_KV_DTYPE, LLMMEM_P_MAMBA_SSM_CACHE_DTYPE},
    {"quantization", VK_QUANT, LLMMEM_P_QUANTIZATION},
    {"swap_space", VK_PARAM, LLMMEM_P_SWAP_SPACE},
    {"cpu_offload_gb", VK_PARAM, LLMMEM_P_CPU_OFFLOAD_GB},
    {"seed", VK_IGNORE, 0},
    {"trust_remote_code", VK_IGNORE, 0},
    {"served_model_name", VK_IGNORE, 0},
    {"tokenizer", VK_IGNORE, 0},
    {"revision", VK_IGNORE, 0},
    {"load_format", VK_IGNORE, 0},
    {"distributed_executor_backend", VK_IGNORE, 0},
    {"max_logprobs", VK_IGNORE, 0},
    {"speculative_config", VK_REFUSE, 0},
    {"enable_lora", VK_REFUSE, 0},
    {"compilation_config", VK_REFUSE, 0},
    {"cudagraph_capture_sizes", VK_REFUSE, 0},
    {"limit_mm_per_prompt", VK_REFUSE, 0},
    {"kv_transfer_config", VK_REFUSE, 0},
    {"hf_overrides", VK_REFUSE, 0},
};

/* vLLM dtype names (auto, half, float16, bfloat16, float, float32, fp8, fp8_e4m3,
 * fp8_e5m2) onto the library's. */
static const char *vllm_dtype(const char *v)
{
    static const struct {
        const char *vllm, *lib;
    } map[] = {{"auto", "auto"},     {"half", "fp16"},    {"float16", "fp16"},
               {"bfloat16", "bf16"}, {"float", "fp32"},   {"float32", "fp32"},
               {"fp8", "fp8"},       {"fp8_e4m3", "fp8"}, {"fp8_e5m2", "fp8"},
               {"fp8_inc", "fp8"}};
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(map); i++)
        if (strcmp(map[i].vllm, v) == 0)
            return map[i].lib;
    return NULL;
}

int llmmem__input_set_vllm_arg(const llmmem__json *doc, llmmem_config *cfg, const char *key,
                               const llmmem__jnode *n, const char *path)
{
    char name[64];
    llmmem__input_lower_copy(name, sizeof name, key);
    size_t i = 0;
    while (i < LLMMEM_ARRAY_LEN(vllm_args) && strcmp(vllm_args[i].name, name) != 0)
        i++;
    if (i == LLMMEM_ARRAY_LEN(vllm_args))
        return llmmem__json_error_at(doc, n, LLMMEM_E_UNKNOWN_PARAM, path,
                                     "not a vLLM argument llmmem reads (docs/inference.md lists "
                                     "them)");
    const int id = vllm_args[i].param;
    /* vLLM refuses 0 where the parameter reads 0 as "vLLM's default": CacheConfig
     * gpu_memory_utilization and block_size (gt=0), SchedulerConfig max_num_seqs and
     * max_num_batched_tokens (ge=1) (vllm/config/cache.py, scheduler.py); a zero
     * max_model_len, KV cache size or block count leaves no request room */
    if (vllm_args[i].kind == VK_PARAM && llmmem__json_is_number(n) && llmmem__json_number(n) <= 0 &&
        (id == LLMMEM_P_GPU_MEMORY_UTILIZATION || id == LLMMEM_P_KV_BLOCK_SIZE || id == LLMMEM_P_MAX_NUM_SEQS ||
         id == LLMMEM_P_MAX_NUM_BATCHED_TOKENS || id == LLMMEM_P_MAX_MODEL_LEN ||
         id == LLMMEM_P_KV_CACHE_MEMORY_BYTES || id == LLMMEM_P_NUM_GPU_BLOCKS_OVERRIDE))
        return llmmem__json_error_at(doc, n, LLMMEM_E_OUT_OF_RANGE, path,
                                     "vLLM refuses %g here (a value above 0; vllm/config/cache.py, scheduler.py)",
                                     llmmem__json_number(n));
    switch (vllm_args[i].kind) {
    case VK_PARAM: return llmmem__input_set_param(doc, cfg, id, n, path);
    case VK_TRI:
        if (llmmem__json_is_bool(n))
            return llmmem__input_set_str(doc, cfg, id, llmmem__json_true(n) ? "on" : "off", n, path);
        if (llmmem__json_type(n) == LLMMEM__J_NULL)
            return llmmem__input_set_str(doc, cfg, id, "auto", n, path);
        return llmmem__input_type_error(doc, n, path, "true, false or null");
    case VK_DTYPE:
    case VK_KV_DTYPE: {
        if (!llmmem__json_is_string(n))
            return llmmem__input_type_error(doc, n, path, "a vLLM dtype name (string)");
        const char *lib = vllm_dtype(llmmem__json_string(n));
        if (!lib)
            return llmmem__json_error_at(doc, n, LLMMEM_E_UNSUPPORTED, path,
                                         "dtype \"%.40s\" is not modelled",
                                         llmmem__json_string(n));
        if (vllm_args[i].kind == VK_KV_DTYPE)
            return llmmem__input_set_str(doc, cfg, id, lib, n, path);
        if (strcmp(lib, "auto") == 0)
            return LLMMEM_OK; /* the checkpoint's dtype */
        int rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_PARAM_DTYPE, lib, n, path);
        return rc ? rc : llmmem__input_set_str(doc, cfg, LLMMEM_P_COMPUTE_DTYPE, lib, n, path);
    }
    case VK_QUANT:
        if (llmmem__json_type(n) == LLMMEM__J_NULL)
            return llmmem__input_set_str(doc, cfg, id, "auto", n, path);
        return llmmem__input_set_param(doc, cfg, id, n, path);
    case VK_IGNORE: return LLMMEM_OK;
    default:
        return llmmem__json_error_at(doc, n, LLMMEM_E_UNSUPPORTED, path,
                                     "changes GPU memory in a way llmmem does not model");
    }
}
