/* Scenario files and framework configuration files.
 *
 * - llmmem_scenario_from_json/_file: the project's scenario format (the records of
 *   ../shared/groundtruth/h200-dev.jsonl), a superset of gpu-mem-calculator's config
 *   file (George614/gpu-mem-calculator, src/gpu_mem_calculator/config/parser.py).
 *   Keys map to parameters through the parameter table (params.c: name + section);
 *   the few spellings that differ are in `special[]` below. Unknown keys are errors.
 * - llmmem_config_apply_deepspeed_json: a DeepSpeed ds_config.json.
 * - llmmem_config_apply_hf_training_args_json: HF TrainingArguments (+ LLaMA-Factory).
 *
 * Every error names the key path, the value and source:line:col. */
#include "input/input.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PATH_MAX_LEN 4096
#define KEYPATH_MAX 256

typedef struct ctx {
    const llmmem__json *doc;
    llmmem_config *cfg;
    llmmem_model *model;      /* NULL when the caller does not want one */
    bool want_model;
    const char *base_dir;
    bool saw_seq_len;         /* training.seq_len given */
    bool saw_mode;
    bool saw_training, saw_inference;
    int64_t model_max_seq_len; /* gpu-mem-calculator: model.max_seq_len is the sequence */
    bool saw_gpu_memory;      /* hardware memory given: an ambiguous gpu name is fine */
} ctx;

/* ---- small helpers ---------------------------------------------------------- */

static void join_path(char *out, size_t cap, const char *a, const char *b)
{
    if (a && *a)
        snprintf(out, cap, "%s.%s", a, b);
    else
        snprintf(out, cap, "%s", b);
}

/* Re-reports the current thread error (set by a public setter) at a JSON node:
 * "source:line:col: "path": <inner message>". */
static int wrap(const llmmem__json *doc, const llmmem__jnode *n, const char *path, int status)
{
    char inner[512];
    snprintf(inner, sizeof inner, "%s", llmmem_last_error());
    return llmmem__json_error_at(doc, n, status, path, "%s", inner);
}

/* Short text of a JSON value for messages. */
static const char *value_text(char *buf, size_t cap, const llmmem__jnode *n)
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

static int type_error(const llmmem__json *doc, const llmmem__jnode *n, const char *path,
                      const char *expected)
{
    char v[96];
    return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "expected %s, got %s", expected,
                                 value_text(v, sizeof v, n));
}

static bool is_string(const llmmem__jnode *n) { return llmmem__json_type(n) == LLMMEM__J_STRING; }
static bool is_number(const llmmem__jnode *n) { return llmmem__json_type(n) == LLMMEM__J_NUMBER; }
static bool is_bool(const llmmem__jnode *n) { return llmmem__json_type(n) == LLMMEM__J_BOOL; }
static bool is_object(const llmmem__jnode *n) { return llmmem__json_type(n) == LLMMEM__J_OBJECT; }
static bool is_null(const llmmem__jnode *n) { return llmmem__json_type(n) == LLMMEM__J_NULL; }

/* A JSON number that is an exact integer within +-2^53. */
static int node_i64(int64_t *out, const llmmem__json *doc, const llmmem__jnode *n, const char *path)
{
    if (!is_number(n))
        return type_error(doc, n, path, "an integer");
    double d = llmmem__json_number(n);
    char v[96];
    if (!isfinite(d) || fabs(d) > 9007199254740992.0)
        return llmmem__json_error_at(doc, n, LLMMEM_E_OUT_OF_RANGE, path,
                                     "integer %s is beyond 2^53", value_text(v, sizeof v, n));
    if (d != floor(d))
        return type_error(doc, n, path, "an integer");
    *out = (int64_t)d;
    return LLMMEM_OK;
}

static void lower_copy(char *out, size_t cap, const char *s)
{
    size_t i = 0;
    for (; s && s[i] && i + 1 < cap; i++)
        out[i] = (char)(s[i] == '-' ? '_' : tolower((unsigned char)s[i]));
    out[i] = '\0';
}

/* Sets parameter `id` from a JSON value, by the parameter's type. */
static int set_param_node(const llmmem__json *doc, llmmem_config *cfg, int id,
                          const llmmem__jnode *n, const char *path)
{
    int type = llmmem_param_type(id);
    int rc;
    switch (type) {
    case LLMMEM_TYPE_I64: {
        int64_t v;
        if ((rc = node_i64(&v, doc, n, path)) != 0)
            return rc;
        rc = llmmem_config_set_i64(cfg, id, v);
        break;
    }
    case LLMMEM_TYPE_BOOL:
        if (is_bool(n))
            rc = llmmem_config_set_i64(cfg, id, llmmem__json_true(n) ? 1 : 0);
        else if (is_number(n) && (llmmem__json_number(n) == 0.0 || llmmem__json_number(n) == 1.0))
            rc = llmmem_config_set_i64(cfg, id, (int64_t)llmmem__json_number(n));
        else
            return type_error(doc, n, path, "true or false");
        break;
    case LLMMEM_TYPE_F64:
        if (!is_number(n))
            return type_error(doc, n, path, "a number");
        rc = llmmem_config_set_f64(cfg, id, llmmem__json_number(n));
        break;
    case LLMMEM_TYPE_ENUM:
    case LLMMEM_TYPE_STR:
        if (!is_string(n))
            return type_error(doc, n, path, type == LLMMEM_TYPE_ENUM ? "a name (string)" : "a string");
        rc = llmmem_config_set_str(cfg, id, llmmem__json_string(n));
        if (rc != 0 && type == LLMMEM_TYPE_ENUM) {
            /* second chance: case-insensitive, '-' as '_' ("FULL_SHARD", "zero-3") */
            char low[64];
            lower_copy(low, sizeof low, llmmem__json_string(n));
            if (strcmp(low, llmmem__json_string(n)) != 0 && llmmem_config_set_str(cfg, id, low) == 0)
                return LLMMEM_OK;
            /* restore the first message */
            rc = llmmem_config_set_str(cfg, id, llmmem__json_string(n));
        }
        break;
    default:
        return llmmem__json_error_at(doc, n, LLMMEM_E_INTERNAL, path, "parameter %d has no type", id);
    }
    if (rc != 0)
        return wrap(doc, n, path, rc);
    return LLMMEM_OK;
}

static int set_str(const llmmem__json *doc, llmmem_config *cfg, int id, const char *value,
                   const llmmem__jnode *n, const char *path)
{
    int rc = llmmem_config_set_str(cfg, id, value);
    return rc ? wrap(doc, n, path, rc) : LLMMEM_OK;
}

static int set_i64(const llmmem__json *doc, llmmem_config *cfg, int id, int64_t value,
                   const llmmem__jnode *n, const char *path)
{
    int rc = llmmem_config_set_i64(cfg, id, value);
    return rc ? wrap(doc, n, path, rc) : LLMMEM_OK;
}

/* ---- value translations shared by the three formats ------------------------- */

/* Optimizer names of the scenario format and of the frameworks. The suffix
 * selects the PyTorch implementation (torch/optim/adamw.py: foreach, fused). */
static const struct {
    const char *name;
    const char *optimizer;
    const char *impl; /* NULL: leave */
} optim_alias[] = {
    /* scenario format (groundtruth/README.md) */
    {"adamw_fused", "adamw", "fused"},
    {"adamw_foreach_off", "adamw", "forloop"},
    {"adamw_forloop", "adamw", "forloop"},
    {"adamw_foreach", "adamw", "foreach"},
    {"adam_fused", "adam", "fused"},
    {"adam_foreach_off", "adam", "forloop"},
    /* HF TrainingArguments.optim (transformers/training_args.py OptimizerNames) */
    {"adamw_torch", "adamw", "foreach"},
    {"adamw_torch_fused", "adamw", "fused"},
    {"adamw_apex_fused", "adamw", "fused"},
    {"adamw_hf", "adamw", "forloop"},
    {"adamw_torch_xla", "adamw", "foreach"},
    {"adamw_bnb_8bit", "adamw_8bit", NULL},
    {"adamw_8bit", "adamw_8bit", NULL},
    {"adamw-8bit", "adamw_8bit", NULL},
    {"paged_adamw_8bit", "paged_adamw_8bit", NULL},
    {"paged_adamw", "paged_adamw_8bit", NULL},
    {"adam_8bit", "adam_8bit", NULL},
    {"paged_adam_8bit", "paged_adam_8bit", NULL},
    {"lion_32bit", "lion", NULL},
    {"lion", "lion", NULL},
    {"sgd", "sgd", NULL},
    {"adagrad", "adagrad", NULL},
    {"rmsprop", "rmsprop", NULL},
    {"adafactor", "adafactor", NULL},
};

/* Sets optimizer (+ impl) from a name. */
static int set_optimizer(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *n,
                         const char *path)
{
    if (!is_string(n))
        return type_error(doc, n, path, "an optimizer name (string)");
    char low[64];
    lower_copy(low, sizeof low, llmmem__json_string(n));
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(optim_alias); i++) {
        char an[64];
        lower_copy(an, sizeof an, optim_alias[i].name);
        if (strcmp(an, low) != 0)
            continue;
        int rc = set_str(doc, cfg, LLMMEM_P_OPTIMIZER, optim_alias[i].optimizer, n, path);
        if (rc == 0 && optim_alias[i].impl)
            rc = set_str(doc, cfg, LLMMEM_P_OPTIMIZER_IMPL, optim_alias[i].impl, n, path);
        return rc;
    }
    return set_param_node(doc, cfg, LLMMEM_P_OPTIMIZER, n, path);
}

/* Activation checkpointing: "none"/"full"/"selective", a bool (HF
 * gradient_checkpointing), or gpu-mem-calculator's level 0..4 (0 none, 4 full,
 * 1..3 partial: formulas.py calculate_activation_memory). */
static int set_checkpointing(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *n,
                             const char *path)
{
    if (is_bool(n))
        return set_str(doc, cfg, LLMMEM_P_CHECKPOINTING, llmmem__json_true(n) ? "full" : "none", n,
                       path);
    if (is_number(n)) {
        int64_t lvl;
        int rc = node_i64(&lvl, doc, n, path);
        if (rc)
            return rc;
        if (lvl < 0 || lvl > 4)
            return llmmem__json_error_at(doc, n, LLMMEM_E_OUT_OF_RANGE, path,
                                         "checkpointing level %lld is outside [0, 4]",
                                         (long long)lvl);
        return set_str(doc, cfg, LLMMEM_P_CHECKPOINTING,
                       lvl == 0 ? "none" : lvl == 4 ? "full" : "selective", n, path);
    }
    return set_param_node(doc, cfg, LLMMEM_P_CHECKPOINTING, n, path);
}

/* Engine names of the scenario format, gpu-mem-calculator (parser.py
 * _convert_engine) and the CLI's quick command. */
static const struct {
    const char *name;
    const char *engine;
    int stage;   /* -1: leave */
    int version; /* FSDP version, 0: leave */
} engine_alias[] = {
    {"single", "single", -1, 0},        {"none", "single", -1, 0},
    {"pytorch", "ddp", -1, 0},          {"pytorch_ddp", "ddp", -1, 0},
    {"ddp", "ddp", -1, 0},              {"deepspeed", "zero", -1, 0},
    {"zero", "zero", -1, 0},            {"zero0", "zero", 0, 0},
    {"zero1", "zero", 1, 0},            {"zero2", "zero", 2, 0},
    {"zero3", "zero", 3, 0},            {"deepspeed_zero1", "zero", 1, 0},
    {"deepspeed_zero2", "zero", 2, 0},  {"deepspeed_zero3", "zero", 3, 0},
    {"fsdp", "fsdp", -1, 0},            {"fsdp1", "fsdp", -1, 1},
    {"fsdp2", "fsdp", -1, 2},           {"megatron", "megatron", -1, 0},
    {"megatron_lm", "megatron", -1, 0}, {"megatron_core", "megatron", -1, 0},
    {"megatron_deepspeed", "megatron_deepspeed", -1, 0},
};

static int set_engine(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *n,
                      const char *path)
{
    if (!is_string(n))
        return type_error(doc, n, path, "an engine name (string)");
    char low[64];
    lower_copy(low, sizeof low, llmmem__json_string(n));
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(engine_alias); i++) {
        if (strcmp(engine_alias[i].name, low) != 0)
            continue;
        int rc = set_str(doc, cfg, LLMMEM_P_ENGINE, engine_alias[i].engine, n, path);
        if (rc == 0 && engine_alias[i].stage >= 0)
            rc = set_i64(doc, cfg, LLMMEM_P_ZERO_STAGE, engine_alias[i].stage, n, path);
        if (rc == 0 && engine_alias[i].version > 0)
            rc = set_i64(doc, cfg, LLMMEM_P_FSDP_VERSION, engine_alias[i].version, n, path);
        return rc;
    }
    char v[96];
    return llmmem__json_error_at(doc, n, LLMMEM_E_OUT_OF_RANGE, path,
                                 "unknown engine %s (one of: single, ddp, deepspeed, zero, zero1, "
                                 "zero2, zero3, fsdp, fsdp1, fsdp2, megatron, megatron_deepspeed)",
                                 value_text(v, sizeof v, n));
}

/* Offload: "none"/"cpu"/"nvme", a bool, or DeepSpeed's {"device": ...}. */
static int set_offload(const llmmem__json *doc, llmmem_config *cfg, int id, const llmmem__jnode *n,
                       const char *path)
{
    if (is_bool(n))
        return set_str(doc, cfg, id, llmmem__json_true(n) ? "cpu" : "none", n, path);
    if (is_null(n))
        return set_str(doc, cfg, id, "none", n, path);
    if (is_object(n)) {
        const llmmem__jnode *d = llmmem__json_get(n, "device");
        char p2[KEYPATH_MAX];
        join_path(p2, sizeof p2, path, "device");
        if (!d)
            return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, p2, "missing required key");
        if (is_null(d))
            return set_str(doc, cfg, id, "none", d, p2);
        return set_param_node(doc, cfg, id, d, p2);
    }
    return set_param_node(doc, cfg, id, n, path);
}

/* GPU by name: exact, then case-insensitive, then a unique prefix ("H200" for
 * "H200-141GB"); a leading "NVIDIA " is dropped. */
static int set_gpu(ctx *c, const llmmem__jnode *n, const char *path)
{
    if (!is_string(n))
        return type_error(c->doc, n, path, "a GPU name (string)");
    const char *name = llmmem__json_string(n);
    if (strncasecmp(name, "nvidia ", 7) == 0)
        name += 7;
    int count = llmmem_param_enum_count(LLMMEM_P_GPU);
    int found = -1, prefix = -1, prefixes = 0;
    size_t len = strlen(name);
    for (int i = 0; i < count; i++) {
        const char *g = llmmem_param_enum_name(LLMMEM_P_GPU, i);
        if (!g)
            continue;
        if (strcmp(g, name) == 0) {
            found = i;
            break;
        }
        if (found < 0 && strcasecmp(g, name) == 0)
            found = i;
        if (len > 0 && strncasecmp(g, name, len) == 0 && (g[len] == '-' || g[len] == ' ' ||
                                                           g[len] == '_')) {
            if (prefix < 0)
                prefix = i;
            prefixes++;
        }
    }
    if (found < 0 && prefixes == 1)
        found = prefix;
    if (found < 0 && prefixes > 1) {
        if (c->saw_gpu_memory) {
            found = prefix; /* the memory given overrides the table anyway */
        } else {
            char list[256] = "";
            size_t used = 0;
            for (int i = 0; i < count; i++) {
                const char *g = llmmem_param_enum_name(LLMMEM_P_GPU, i);
                if (g && strncasecmp(g, name, len) == 0 && used + strlen(g) + 3 < sizeof list) {
                    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                             used ? ", " : "", g);
                }
            }
            return llmmem__json_error_at(c->doc, n, LLMMEM_E_INCONSISTENT, path,
                                         "GPU \"%.60s\" is ambiguous (one of: %s); name one, or "
                                         "give gpu_memory_gib",
                                         llmmem__json_string(n), list);
        }
    }
    if (found < 0)
        return set_param_node(c->doc, c->cfg, LLMMEM_P_GPU, n, path); /* its error lists them */
    return set_i64(c->doc, c->cfg, LLMMEM_P_GPU, found, n, path);
}

/* GPU memory from GiB (2^30) or GB (1e9) as a real number. */
static int set_gpu_memory(ctx *c, const llmmem__jnode *n, const char *path, double unit)
{
    if (!is_number(n))
        return type_error(c->doc, n, path, "a number");
    double v = llmmem__json_number(n) * unit;
    char t[96];
    if (!isfinite(v) || v < 1.0 || v > 1.0e15)
        return llmmem__json_error_at(c->doc, n, LLMMEM_E_OUT_OF_RANGE, path,
                                     "GPU memory %s is outside (0, 1e15 bytes]",
                                     value_text(t, sizeof t, n));
    return set_i64(c->doc, c->cfg, LLMMEM_P_GPU_MEMORY_BYTES, (int64_t)llround(v), n, path);
}

/* lora.target_modules: ["q_proj", ...] or "q_proj,v_proj" or "all-linear". */
static int set_targets(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *n,
                       const char *path)
{
    char list[LLMMEM__STR_MAX];
    size_t used = 0;
    list[0] = '\0';
    if (is_string(n)) {
        const char *s = llmmem__json_string(n);
        if (strcmp(s, "all") == 0) /* LLaMA-Factory lora_target: all */
            s = "all-linear";
        return set_str(doc, cfg, LLMMEM_P_LORA_TARGETS, s, n, path);
    }
    if (llmmem__json_type(n) != LLMMEM__J_ARRAY)
        return type_error(doc, n, path, "a list of module names");
    int i = 0;
    for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it), i++) {
        char ip[KEYPATH_MAX];
        snprintf(ip, sizeof ip, "%s[%d]", path, i);
        if (!is_string(it))
            return type_error(doc, it, ip, "a module name (string)");
        const char *s = llmmem__json_string(it);
        if (!*s || strchr(s, ','))
            return llmmem__json_error_at(doc, it, LLMMEM_E_SCHEMA, ip,
                                         "module name \"%.60s\" is empty or has a comma", s);
        size_t len = strlen(s);
        if (used + len + 2 > sizeof list)
            return llmmem__json_error_at(doc, it, LLMMEM_E_OUT_OF_RANGE, ip,
                                         "target list longer than %d bytes", LLMMEM__STR_MAX - 1);
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? "," : "", s);
    }
    if (i == 0)
        return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "empty list of target modules");
    return set_str(doc, cfg, LLMMEM_P_LORA_TARGETS, list, n, path);
}

/* A key written twice in one object is an error (the second would silently win). */
static int no_duplicates(const llmmem__json *doc, const llmmem__jnode *obj, const char *section)
{
    for (const llmmem__jnode *m = llmmem__json_first(obj); m; m = llmmem__json_next(m))
        for (const llmmem__jnode *e = llmmem__json_first(obj); e != m; e = llmmem__json_next(e))
            if (strcmp(llmmem__json_key(e), llmmem__json_key(m)) == 0) {
                char path[KEYPATH_MAX];
                join_path(path, sizeof path, section, llmmem__json_key(m));
                int line, col;
                llmmem__json_pos(doc, e, &line, &col);
                return llmmem__json_error_at(doc, m, LLMMEM_E_SCHEMA, path,
                                             "duplicate key (first at %d:%d)", line, col);
            }
    return LLMMEM_OK;
}

/* ---- scenario sections --------------------------------------------------------- */

typedef int (*special_fn)(ctx *c, const llmmem__jnode *n, const char *path, int arg);

static int sp_param(ctx *c, const llmmem__jnode *n, const char *path, int id)
{
    return set_param_node(c->doc, c->cfg, id, n, path);
}
static int sp_ignore(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    return LLMMEM_OK;
}
static int sp_optimizer(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    return set_optimizer(c->doc, c->cfg, n, path);
}
static int sp_ckpt(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    return set_checkpointing(c->doc, c->cfg, n, path);
}
static int sp_engine(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    return set_engine(c->doc, c->cfg, n, path);
}
static int sp_offload(ctx *c, const llmmem__jnode *n, const char *path, int id)
{
    return set_offload(c->doc, c->cfg, id, n, path);
}
static int sp_gpu(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    return set_gpu(c, n, path);
}
static int sp_gib(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    return set_gpu_memory(c, n, path, 1073741824.0);
}
static int sp_gb(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    return set_gpu_memory(c, n, path, 1e9);
}
static int sp_targets(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    return set_targets(c->doc, c->cfg, n, path);
}
static int sp_seq_len(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    c->saw_seq_len = true;
    return set_param_node(c->doc, c->cfg, LLMMEM_P_SEQ_LEN, n, path);
}
/* gpu-mem-calculator training.dtype: weights and compute in one dtype. */
static int sp_dtype(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    int rc = set_param_node(c->doc, c->cfg, LLMMEM_P_PARAM_DTYPE, n, path);
    return rc ? rc : set_param_node(c->doc, c->cfg, LLMMEM_P_COMPUTE_DTYPE, n, path);
}

/* Scenario keys whose name is not the parameter's, or whose value needs a
 * translation. Everything else is looked up in the parameter table. */
static const struct {
    const char *section;
    const char *key;
    special_fn fn;
    int arg;
} special[] = {
    {"training", "batch_size", sp_param, LLMMEM_P_MICRO_BATCH_SIZE}, /* gpu-mem-calculator */
    {"training", "seq_len", sp_seq_len, 0},
    {"training", "sequence_length", sp_seq_len, 0},
    {"training", "dtype", sp_dtype, 0},
    {"training", "optimizer", sp_optimizer, 0},
    {"training", "activation_checkpointing", sp_ckpt, 0},
    {"training", "gradient_checkpointing", sp_ckpt, 0},
    {"inference", "attention", sp_param, LLMMEM_P_ATTENTION},
    {"inference", "param_dtype", sp_param, LLMMEM_P_PARAM_DTYPE},
    {"inference", "compute_dtype", sp_param, LLMMEM_P_COMPUTE_DTYPE},
    {"lora", "rank", sp_param, LLMMEM_P_LORA_RANK},
    {"lora", "r", sp_param, LLMMEM_P_LORA_RANK},
    {"lora", "alpha", sp_param, LLMMEM_P_LORA_ALPHA},
    {"lora", "dropout", sp_param, LLMMEM_P_LORA_DROPOUT},
    {"lora", "target_modules", sp_targets, 0},
    {"lora", "targets", sp_targets, 0},
    {"lora", "lora_targets", sp_targets, 0},
    {"lora", "double_quant", sp_param, LLMMEM_P_QLORA_DOUBLE_QUANT},
    {"lora", "task_type", sp_ignore, 0},
    {"lora", "bias", sp_ignore, 0},
    {"engine", "type", sp_engine, 0},
    {"engine", "engine", sp_engine, 0},
    {"engine", "version", sp_param, LLMMEM_P_FSDP_VERSION},
    {"engine", "offload_optimizer", sp_offload, LLMMEM_P_OFFLOAD_OPTIMIZER},
    {"engine", "offload_param", sp_offload, LLMMEM_P_OFFLOAD_PARAM},
    {"engine", "cpu_offload", sp_param, LLMMEM_P_FSDP_CPU_OFFLOAD},
    {"engine", "wrap", sp_ignore, 0}, /* free text describing the FSDP wrap policy */
    {"hardware", "gpu", sp_gpu, 0},
    {"hardware", "gpu_memory_gib", sp_gib, 0},
    {"hardware", "gpu_memory_gb", sp_gb, 0},        /* gpu-mem-calculator, SI GB */
    {"hardware", "total_gpu_memory_gb", sp_ignore, 0}, /* gpu-mem-calculator: derived */
    {"hardware", "num_gpus", sp_param, LLMMEM_P_NUM_GPUS},
    {"hardware", "gpus_per_node", sp_param, LLMMEM_P_GPUS_PER_NODE},
    {"parallelism", "dp", sp_param, LLMMEM_P_DATA_PARALLEL},
};

static int apply_section(ctx *c, const char *section, const llmmem__jnode *obj)
{
    if (!is_object(obj))
        return type_error(c->doc, obj, section, "an object");
    int dup = no_duplicates(c->doc, obj, section);
    if (dup)
        return dup;
    if (strcmp(section, "hardware") == 0)
        c->saw_gpu_memory = llmmem__json_get(obj, "gpu_memory_gib") ||
                            llmmem__json_get(obj, "gpu_memory_gb") ||
                            llmmem__json_get(obj, "gpu_memory_bytes");
    for (const llmmem__jnode *m = llmmem__json_first(obj); m; m = llmmem__json_next(m)) {
        const char *key = llmmem__json_key(m);
        char path[KEYPATH_MAX];
        join_path(path, sizeof path, section, key);
        int rc = 0;
        bool done = false;
        for (size_t i = 0; i < LLMMEM_ARRAY_LEN(special); i++) {
            if (strcmp(special[i].section, section) == 0 && strcmp(special[i].key, key) == 0) {
                rc = special[i].fn(c, m, path, special[i].arg);
                done = true;
                break;
            }
        }
        if (!done) {
            const llmmem__param_info *p = llmmem__param_by_name(key);
            if (p && strcmp(p->section, section) == 0) {
                rc = set_param_node(c->doc, c->cfg, p->id, m, path);
            } else if (p && *p->section) {
                return llmmem__json_error_at(c->doc, m, LLMMEM_E_UNKNOWN_PARAM, path,
                                             "unknown key (parameter \"%s\" belongs in \"%s\")",
                                             p->name, p->section);
            } else if (p) {
                return llmmem__json_error_at(c->doc, m, LLMMEM_E_UNKNOWN_PARAM, path,
                                             "unknown key (parameter \"%s\" is a top-level key)",
                                             p->name);
            } else {
                return llmmem__json_error_at(c->doc, m, LLMMEM_E_UNKNOWN_PARAM, path,
                                             "unknown key in \"%s\" (see llmmem params)", section);
            }
        }
        if (rc)
            return rc;
    }
    return LLMMEM_OK;
}

/* "params": {"name": value, ...}: any parameter by its table name. */
static int apply_params(ctx *c, const llmmem__jnode *obj)
{
    if (!is_object(obj))
        return type_error(c->doc, obj, "params", "an object");
    int dup = no_duplicates(c->doc, obj, "params");
    if (dup)
        return dup;
    for (const llmmem__jnode *m = llmmem__json_first(obj); m; m = llmmem__json_next(m)) {
        char path[KEYPATH_MAX];
        join_path(path, sizeof path, "params", llmmem__json_key(m));
        int id;
        if (llmmem_param_from_name(&id, llmmem__json_key(m)) != 0)
            return llmmem__json_error_at(c->doc, m, LLMMEM_E_UNKNOWN_PARAM, path,
                                         "unknown parameter (see llmmem params)");
        int rc = set_param_node(c->doc, c->cfg, id, m, path);
        if (rc)
            return rc;
    }
    return LLMMEM_OK;
}

/* ---- the model section ---------------------------------------------------------- */

/* Raw-number keys: the scenario/HF/gpu-mem-calculator spellings of the model keys. */
static const struct {
    const char *key;
    int mkey;
} model_alias[] = {
    {"num_parameters", LLMMEM_M_NUM_PARAMETERS},
    {"num_layers", LLMMEM_M_NUM_LAYERS},
    {"num_hidden_layers", LLMMEM_M_NUM_LAYERS},
    {"hidden_size", LLMMEM_M_HIDDEN_SIZE},
    {"num_attention_heads", LLMMEM_M_NUM_HEADS},
    {"num_heads", LLMMEM_M_NUM_HEADS},
    {"num_key_value_heads", LLMMEM_M_NUM_KV_HEADS},
    {"num_kv_heads", LLMMEM_M_NUM_KV_HEADS},
    {"head_dim", LLMMEM_M_HEAD_DIM},
    {"intermediate_size", LLMMEM_M_INTERMEDIATE_SIZE},
    {"ffn_hidden_size", LLMMEM_M_INTERMEDIATE_SIZE},
    {"vocab_size", LLMMEM_M_VOCAB_SIZE},
    {"max_position_embeddings", LLMMEM_M_MAX_POSITIONS},
    {"max_positions", LLMMEM_M_MAX_POSITIONS},
    {"max_seq_len", LLMMEM_M_MAX_POSITIONS}, /* gpu-mem-calculator */
    {"num_experts", LLMMEM_M_NUM_EXPERTS},
    {"num_local_experts", LLMMEM_M_NUM_EXPERTS},
    {"top_k", LLMMEM_M_EXPERTS_PER_TOKEN},
    {"num_experts_per_tok", LLMMEM_M_EXPERTS_PER_TOKEN},
    {"experts_per_token", LLMMEM_M_EXPERTS_PER_TOKEN},
    {"expert_intermediate_size", LLMMEM_M_MOE_INTERMEDIATE_SIZE},
    {"moe_intermediate_size", LLMMEM_M_MOE_INTERMEDIATE_SIZE},
    {"tie_word_embeddings", LLMMEM_M_TIE_EMBEDDINGS},
    {"tie_embeddings", LLMMEM_M_TIE_EMBEDDINGS},
    {"sliding_window", LLMMEM_M_SLIDING_WINDOW},
};

static bool is_moe_key(int mkey)
{
    return mkey == LLMMEM_M_NUM_EXPERTS || mkey == LLMMEM_M_EXPERTS_PER_TOKEN ||
           mkey == LLMMEM_M_MOE_INTERMEDIATE_SIZE;
}

static int set_model_key(ctx *c, int mkey, const llmmem__jnode *n, const char *path)
{
    int rc;
    if (is_string(n)) {
        const char *name = llmmem_model_key_name(mkey);
        if (!name)
            return llmmem__json_error_at(c->doc, n, LLMMEM_E_INTERNAL, path, "model key %d has no name",
                                         mkey);
        rc = llmmem_model_set(c->model, name, llmmem__json_string(n));
    } else if (is_bool(n)) {
        rc = llmmem_model_set_i64(c->model, mkey, llmmem__json_true(n) ? 1 : 0);
    } else if (is_number(n)) {
        int64_t v;
        if (mkey == LLMMEM_M_NUM_PARAMETERS && llmmem__json_number(n) != floor(llmmem__json_number(n)))
            return type_error(c->doc, n, path, "a whole number of parameters");
        if ((rc = node_i64(&v, c->doc, n, path)) != 0)
            return rc;
        rc = llmmem_model_set_i64(c->model, mkey, v);
    } else {
        return type_error(c->doc, n, path, "a number");
    }
    return rc ? wrap(c->doc, n, path, rc) : LLMMEM_OK;
}

static int load_model(ctx *c, const llmmem__jnode *obj)
{
    const llmmem__json *doc = c->doc;
    int rc;
    if (is_string(obj)) { /* "model": "llama-3.1-8b" = a preset */
        rc = llmmem_model_from_preset(&c->model, llmmem__json_string(obj));
        return rc ? wrap(doc, obj, "model", rc) : LLMMEM_OK;
    }
    if (!is_object(obj))
        return type_error(doc, obj, "model", "an object or a preset name");
    if ((rc = no_duplicates(doc, obj, "model")) != 0)
        return rc;
    const llmmem__jnode *hf = llmmem__json_get(obj, "hf_config");
    const llmmem__jnode *preset = llmmem__json_get(obj, "preset");
    const llmmem__jnode *moe = llmmem__json_get(obj, "moe_enabled");
    const llmmem__jnode *mseq = llmmem__json_get(obj, "max_seq_len");
    bool moe_off = false;
    if (hf && preset)
        return llmmem__json_error_at(doc, preset, LLMMEM_E_INCONSISTENT, "model.preset",
                                     "give either model.hf_config or model.preset, not both");
    if (moe) {
        if (!is_bool(moe))
            return type_error(doc, moe, "model.moe_enabled", "true or false");
        moe_off = !llmmem__json_true(moe);
    }
    if (mseq && is_number(mseq)) {
        int64_t v;
        if ((rc = node_i64(&v, doc, mseq, "model.max_seq_len")) != 0)
            return rc;
        c->model_max_seq_len = v;
    }
    if (hf) {
        if (!is_string(hf))
            return type_error(doc, hf, "model.hf_config", "a file path (string)");
        const char *rel = llmmem__json_string(hf);
        char full[PATH_MAX_LEN];
        int w;
        if (rel[0] == '/' || !c->base_dir || !*c->base_dir)
            w = snprintf(full, sizeof full, "%s", rel);
        else
            w = snprintf(full, sizeof full, "%s/%s", c->base_dir, rel);
        if (w < 0 || (size_t)w >= sizeof full)
            return llmmem__json_error_at(doc, hf, LLMMEM_E_OUT_OF_RANGE, "model.hf_config",
                                         "path longer than %d bytes", PATH_MAX_LEN - 1);
        rc = llmmem_model_from_hf_file(&c->model, full);
    } else if (preset) {
        if (!is_string(preset))
            return type_error(doc, preset, "model.preset", "a preset name (string)");
        rc = llmmem_model_from_preset(&c->model, llmmem__json_string(preset));
    } else {
        rc = llmmem_model_new(&c->model);
    }
    if (rc)
        return wrap(doc, hf ? hf : preset ? preset : obj, hf ? "model.hf_config" : "model.preset", rc);

    /* Two passes: the shape fields first, the size target (num_parameters) last, so
     * that the library derives only what was not given. */
    bool any_raw = false;
    for (int pass = 0; pass < 2; pass++)
    for (const llmmem__jnode *m = llmmem__json_first(obj); m; m = llmmem__json_next(m)) {
        const char *key = llmmem__json_key(m);
        if ((strcmp(key, "num_parameters") == 0) != (pass == 1))
            continue;
        char path[KEYPATH_MAX];
        join_path(path, sizeof path, "model", key);
        if (strcmp(key, "hf_config") == 0 || strcmp(key, "preset") == 0 ||
            strcmp(key, "moe_enabled") == 0)
            continue;
        if (strcmp(key, "name") == 0 || strcmp(key, "description") == 0) {
            if (!is_string(m))
                return type_error(doc, m, path, "a string");
            if (strcmp(key, "name") == 0 && !hf && !preset)
                snprintf(c->model->name, sizeof c->model->name, "%s", llmmem__json_string(m));
            continue;
        }
        if (strcmp(key, "largest_layer_params") == 0 ||
            strcmp(key, "shared_expert_intermediate_size") == 0) {
            /* gpu-mem-calculator keys; the shape decides these here */
            llmmem__model_note(c->model, "%s ignored: computed from the model's shape", path);
            continue;
        }
        int mkey = -1;
        for (size_t i = 0; i < LLMMEM_ARRAY_LEN(model_alias); i++)
            if (strcmp(model_alias[i].key, key) == 0)
                mkey = model_alias[i].mkey;
        if (mkey < 0)
            return llmmem__json_error_at(doc, m, LLMMEM_E_UNKNOWN_PARAM, path,
                                         "unknown key in \"model\" (hf_config, preset, or raw "
                                         "numbers: num_parameters, num_layers, hidden_size, ...)");
        if (moe_off && is_moe_key(mkey))
            continue; /* gpu-mem-calculator: experts only count with moe_enabled */
        if ((rc = set_model_key(c, mkey, m, path)) != 0)
            return rc;
        any_raw = true;
    }
    if (!hf && !preset && !any_raw)
        return llmmem__json_error_at(doc, obj, LLMMEM_E_SCHEMA, "model",
                                     "no model: give hf_config, preset, or raw numbers "
                                     "(num_parameters, num_layers, hidden_size, ...)");
    return LLMMEM_OK;
}

/* ---- scenario entry points -------------------------------------------------------- */

static int load_scenario(ctx *c, const llmmem__jnode *root)
{
    const llmmem__json *doc = c->doc;
    if (!is_object(root))
        return type_error(doc, root, "", "a JSON object (a scenario)");
    int rc = no_duplicates(doc, root, "");
    if (rc)
        return rc;
    static const char *const sections[] = {"training", "inference", "lora", "engine",
                                           "parallelism", "hardware", "vision", NULL};
    const llmmem__jnode *model = NULL;
    for (const llmmem__jnode *m = llmmem__json_first(root); m; m = llmmem__json_next(m)) {
        const char *key = llmmem__json_key(m);
        if (strcmp(key, "measured") == 0 || strcmp(key, "id") == 0 || strcmp(key, "name") == 0 ||
            strcmp(key, "description") == 0 || strcmp(key, "comment") == 0 ||
            strcmp(key, "$schema") == 0)
            continue;
        if (strcmp(key, "model") == 0) {
            model = m;
            continue;
        }
        if (strcmp(key, "mode") == 0) {
            c->saw_mode = true;
            if ((rc = set_param_node(doc, c->cfg, LLMMEM_P_MODE, m, "mode")) != 0)
                return rc;
            continue;
        }
        if (strcmp(key, "params") == 0) {
            if ((rc = apply_params(c, m)) != 0)
                return rc;
            continue;
        }
        if (strcmp(key, "engine") == 0 && is_string(m)) { /* "engine": "zero3" */
            if ((rc = set_engine(doc, c->cfg, m, "engine")) != 0)
                return rc;
            continue;
        }
        int s = llmmem__name_index(sections, key);
        if (s < 0)
            return llmmem__json_error_at(doc, m, LLMMEM_E_UNKNOWN_PARAM, key,
                                         "unknown top-level key (one of: id, model, mode, training, "
                                         "inference, lora, engine, parallelism, hardware, vision, "
                                         "params, measured)");
        if (s == 0)
            c->saw_training = true;
        if (s == 1)
            c->saw_inference = true;
        if ((rc = apply_section(c, key, m)) != 0)
            return rc;
    }
    /* mode from the sections when not given */
    if (!c->saw_mode && c->saw_inference && !c->saw_training &&
        (rc = llmmem_config_set_str(c->cfg, LLMMEM_P_MODE, "inference")) != 0)
        return rc;
    if (c->want_model) {
        if (!model)
            return llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "model", "missing required key");
        if ((rc = load_model(c, model)) != 0)
            return rc;
    } else if (model && is_object(model)) {
        /* as load_model reads it: a number is the sequence; anything else is
         * a model value (llmmem_model_set), not read without the model */
        const llmmem__jnode *mseq = llmmem__json_get(model, "max_seq_len");
        if (mseq && is_number(mseq) &&
            (rc = node_i64(&c->model_max_seq_len, doc, mseq, "model.max_seq_len")) != 0)
            return rc;
    }
    /* gpu-mem-calculator: the activations use model.max_seq_len as the sequence
     * (core/calculator.py passes model_config.max_seq_len as seq_len). */
    if (!c->saw_seq_len && c->model_max_seq_len > 0 && c->saw_training) {
        rc = llmmem_config_set_i64(c->cfg, LLMMEM_P_SEQ_LEN, c->model_max_seq_len);
        if (rc)
            return wrap(doc, llmmem__json_get(model, "max_seq_len"), "model.max_seq_len", rc);
    }
    return LLMMEM_OK;
}

static int scenario_parse(llmmem_model **model_out, llmmem_config **cfg_out, const char *json,
                          size_t len, const char *base_dir, const char *source)
{
    if (!json)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_scenario_from_json: json is NULL");
    llmmem__json *doc = NULL;
    int rc = llmmem__json_parse(&doc, json, len, source ? source : "scenario");
    if (rc)
        return rc;
    ctx c = {0};
    c.doc = doc;
    c.base_dir = base_dir;
    c.want_model = model_out != NULL;
    rc = llmmem_config_new(&c.cfg);
    if (rc == 0)
        rc = load_scenario(&c, llmmem__json_root(doc));
    llmmem__json_free(doc);
    if (rc) {
        llmmem_config_free(c.cfg);
        llmmem_model_free(c.model);
        return rc;
    }
    if (model_out)
        *model_out = c.model;
    else
        llmmem_model_free(c.model);
    if (cfg_out)
        *cfg_out = c.cfg;
    else
        llmmem_config_free(c.cfg);
    return LLMMEM_OK;
}

int llmmem_scenario_from_json(llmmem_model **model_out, llmmem_config **cfg_out, const char *json,
                              size_t len, const char *base_dir)
{
    return scenario_parse(model_out, cfg_out, json, len, base_dir, "scenario");
}

int llmmem_scenario_from_file(llmmem_model **model_out, llmmem_config **cfg_out, const char *path)
{
    if (!path)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_scenario_from_file: path is NULL");
    char *text = NULL;
    size_t len = 0;
    int rc = llmmem__read_file(&text, &len, path);
    if (rc)
        return rc;
    char dir[PATH_MAX_LEN];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    rc = scenario_parse(model_out, cfg_out, text, len, dir, path);
    free(text);
    return rc;
}

/* ---- DeepSpeed ds_config.json ------------------------------------------------------ */

static bool is_auto(const llmmem__jnode *n)
{
    return n && is_string(n) && strcmp(llmmem__json_string(n), "auto") == 0;
}

/* Integer-valued key that may be "auto": sets the parameter, resolves "auto"
 * with `auto_value` (< 0: cannot be resolved here, left as is). */
static int ds_int(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *obj,
                  const char *key, const char *prefix, int id, int64_t auto_value)
{
    const llmmem__jnode *n = llmmem__json_get(obj, key);
    if (!n || is_null(n))
        return LLMMEM_OK;
    char path[KEYPATH_MAX];
    join_path(path, sizeof path, prefix, key);
    if (is_auto(n))
        return auto_value >= 0 ? set_i64(doc, cfg, id, auto_value, n, path) : LLMMEM_OK;
    if (!is_number(n))
        return type_error(doc, n, path, "an integer or \"auto\"");
    /* DeepSpeed accepts 5e8 written as a real number */
    double d = llmmem__json_number(n);
    if (!isfinite(d) || d != floor(d) || fabs(d) > 9.0e18)
        return type_error(doc, n, path, "an integer or \"auto\"");
    return set_i64(doc, cfg, id, (int64_t)d, n, path);
}

static int ds_bool(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *obj,
                   const char *key, const char *prefix, int id, bool tristate)
{
    const llmmem__jnode *n = llmmem__json_get(obj, key);
    if (!n || is_null(n) || is_auto(n))
        return LLMMEM_OK;
    char path[KEYPATH_MAX];
    join_path(path, sizeof path, prefix, key);
    if (!is_bool(n))
        return type_error(doc, n, path, "true or false");
    if (tristate)
        return set_str(doc, cfg, id, llmmem__json_true(n) ? "on" : "off", n, path);
    return set_i64(doc, cfg, id, llmmem__json_true(n) ? 1 : 0, n, path);
}

/* "bf16": {"enabled": true}: returns 1 enabled, 0 disabled/absent/auto. */
static int ds_enabled(int *out, const llmmem__json *doc, const llmmem__jnode *root, const char *key)
{
    *out = -1;
    const llmmem__jnode *o = llmmem__json_get(root, key);
    if (!o || is_null(o))
        return LLMMEM_OK;
    if (!is_object(o))
        return type_error(doc, o, key, "an object");
    const llmmem__jnode *e = llmmem__json_get(o, "enabled");
    char path[KEYPATH_MAX];
    join_path(path, sizeof path, key, "enabled");
    if (!e || is_auto(e))
        return LLMMEM_OK; /* HF Trainer fills it from --bf16/--fp16 */
    if (!is_bool(e))
        return type_error(doc, e, path, "true, false or \"auto\"");
    *out = llmmem__json_true(e) ? 1 : 0;
    return LLMMEM_OK;
}

/* DeepSpeed optimizer.type (deepspeed/runtime/engine.py _configure_basic_optimizer). */
static int ds_optimizer(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root)
{
    const llmmem__jnode *o = llmmem__json_get(root, "optimizer");
    if (!o || is_null(o))
        return LLMMEM_OK;
    if (!is_object(o))
        return type_error(doc, o, "optimizer", "an object");
    const llmmem__jnode *t = llmmem__json_get(o, "type");
    if (!t || is_auto(t))
        return LLMMEM_OK;
    if (!is_string(t))
        return type_error(doc, t, "optimizer.type", "an optimizer name");
    char low[64];
    lower_copy(low, sizeof low, llmmem__json_string(t));
    const char *opt = NULL;
    const char *impl = "fused"; /* DeepSpeed's FusedAdam/FusedLamb: multi-tensor kernels */
    if (strcmp(low, "adam") == 0 || strcmp(low, "adamw") == 0 || strcmp(low, "fusedadam") == 0 ||
        strcmp(low, "onebitadam") == 0 || strcmp(low, "zerooneadam") == 0 ||
        strcmp(low, "cpuadam") == 0) {
        /* deepspeed: Adam uses adam_w_mode=True unless params.adam_w_mode is false */
        opt = strcmp(low, "adam") == 0 ? "adamw" : strcmp(low, "adamw") == 0 ? "adamw" : "adam";
        const llmmem__jnode *p = llmmem__json_get(o, "params");
        const llmmem__jnode *wm = p ? llmmem__json_get(p, "adam_w_mode") : NULL;
        if (wm && is_bool(wm) && !llmmem__json_true(wm))
            opt = "adam";
        const llmmem__jnode *ta = p ? llmmem__json_get(p, "torch_adam") : NULL;
        if (ta && is_bool(ta) && llmmem__json_true(ta))
            impl = "foreach";
    } else if (strcmp(low, "lamb") == 0 || strcmp(low, "onebitlamb") == 0 ||
               strcmp(low, "fusedlamb") == 0) {
        opt = "lamb";
    } else if (strcmp(low, "lion") == 0 || strcmp(low, "fusedlion") == 0) {
        opt = "lion";
    } else if (strcmp(low, "adagrad") == 0 || strcmp(low, "cpuadagrad") == 0) {
        opt = "adagrad";
        impl = NULL;
    } else if (strcmp(low, "sgd") == 0) {
        opt = "sgd";
        impl = NULL;
    } else if (strcmp(low, "muadam") == 0 || strcmp(low, "muadamw") == 0) {
        opt = "adamw";
        impl = "foreach";
    } else {
        return llmmem__json_error_at(doc, t, LLMMEM_E_UNSUPPORTED, "optimizer.type",
                                     "DeepSpeed optimizer \"%.60s\" is not modelled",
                                     llmmem__json_string(t));
    }
    int rc = set_str(doc, cfg, LLMMEM_P_OPTIMIZER, opt, t, "optimizer.type");
    if (rc == 0 && impl)
        rc = set_str(doc, cfg, LLMMEM_P_OPTIMIZER_IMPL, impl, t, "optimizer.type");
    return rc;
}

static int apply_deepspeed(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg,
                           const llmmem_model *model)
{
    if (!is_object(root))
        return type_error(doc, root, "", "a JSON object (a DeepSpeed config)");
    int64_t h = 0;
    if (model && llmmem_model_get_i64(&h, model, LLMMEM_M_HIDDEN_SIZE) != 0)
        h = 0;
    int rc;
    /* The engine is DeepSpeed whatever the stage; keep Megatron-DeepSpeed. */
    int64_t eng = 0;
    llmmem_config_get_i64(&eng, cfg, LLMMEM_P_ENGINE);
    if (eng != LLMMEM__ENG_ZERO && eng != LLMMEM__ENG_MEGATRON_DEEPSPEED &&
        (rc = llmmem_config_set_str(cfg, LLMMEM_P_ENGINE, "zero")) != 0)
        return rc;

    if ((rc = ds_int(doc, cfg, root, "train_micro_batch_size_per_gpu", "",
                     LLMMEM_P_MICRO_BATCH_SIZE, -1)) != 0 ||
        (rc = ds_int(doc, cfg, root, "gradient_accumulation_steps", "", LLMMEM_P_GRAD_ACCUM_STEPS,
                     -1)) != 0)
        return rc;

    /* Mixed precision: DeepSpeed holds bf16/fp16 weights and fp32 masters in the
     * optimizer (deepspeed/runtime/bf16_optimizer.py, zero/stage_1_and_2.py
     * single_partition_of_fp32_groups). Neither enabled: fp32 training. */
    int bf16, fp16;
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
    if (dt) {
        if ((rc = llmmem_config_set_str(cfg, LLMMEM_P_PARAM_DTYPE, dt)) != 0 ||
            (rc = llmmem_config_set_str(cfg, LLMMEM_P_COMPUTE_DTYPE, dt)) != 0 ||
            (rc = llmmem_config_set_i64(cfg, LLMMEM_P_MASTER_WEIGHTS, strcmp(dt, "fp32") != 0)) != 0)
            return rc;
    }
    if ((rc = ds_optimizer(doc, cfg, root)) != 0)
        return rc;

    const llmmem__jnode *z = llmmem__json_get(root, "zero_optimization");
    if (!z || is_null(z))
        return LLMMEM_OK;
    if (!is_object(z))
        return type_error(doc, z, "zero_optimization", "an object");
    const char *zp = "zero_optimization";
    if ((rc = ds_int(doc, cfg, z, "stage", zp, LLMMEM_P_ZERO_STAGE, -1)) != 0)
        return rc;
    int64_t stage = 0;
    llmmem_config_get_i64(&stage, cfg, LLMMEM_P_ZERO_STAGE);
    const llmmem__jnode *n;
    if ((n = llmmem__json_get(z, "offload_optimizer")) != NULL &&
        (rc = set_offload(doc, cfg, LLMMEM_P_OFFLOAD_OPTIMIZER, n,
                          "zero_optimization.offload_optimizer")) != 0)
        return rc;
    if ((n = llmmem__json_get(z, "offload_param")) != NULL &&
        (rc = set_offload(doc, cfg, LLMMEM_P_OFFLOAD_PARAM, n, "zero_optimization.offload_param")) != 0)
        return rc;
    if ((n = llmmem__json_get(z, "cpu_offload")) != NULL) { /* legacy spelling */
        if (!is_bool(n))
            return type_error(doc, n, "zero_optimization.cpu_offload", "true or false");
        if (llmmem__json_true(n) &&
            (rc = set_str(doc, cfg, LLMMEM_P_OFFLOAD_OPTIMIZER, "cpu", n,
                          "zero_optimization.cpu_offload")) != 0)
            return rc;
    }
    /* "auto" as HF Trainer resolves it (transformers/integrations/deepspeed.py,
     * HfTrainerDeepSpeedConfig.trainer_config_finalize): reduce_bucket_size = h*h;
     * stage 3: stage3_prefetch_bucket_size = int(0.9*h*h),
     * stage3_param_persistence_threshold = 10*h. Without a model they stay as they are. */
    int64_t hh = h > 0 && h < 3000000000LL ? h * h : -1;
    if ((rc = ds_int(doc, cfg, z, "reduce_bucket_size", zp, LLMMEM_P_REDUCE_BUCKET_SIZE, hh)) != 0 ||
        (rc = ds_int(doc, cfg, z, "allgather_bucket_size", zp, LLMMEM_P_ALLGATHER_BUCKET_SIZE, -1)) != 0 ||
        (rc = ds_int(doc, cfg, z, "stage3_max_live_parameters", zp,
                     LLMMEM_P_STAGE3_MAX_LIVE_PARAMETERS, -1)) != 0 ||
        (rc = ds_int(doc, cfg, z, "stage3_prefetch_bucket_size", zp,
                     LLMMEM_P_STAGE3_PREFETCH_BUCKET_SIZE,
                     hh >= 0 && stage == 3 ? (int64_t)(0.9 * (double)hh) : -1)) != 0 ||
        (rc = ds_int(doc, cfg, z, "stage3_param_persistence_threshold", zp,
                     LLMMEM_P_STAGE3_PARAM_PERSISTENCE_THRESHOLD,
                     h > 0 && stage == 3 ? 10 * h : -1)) != 0 ||
        (rc = ds_int(doc, cfg, z, "zero_hpz_partition_size", zp, LLMMEM_P_ZERO_HPZ_PARTITION_SIZE,
                     -1)) != 0 ||
        (rc = ds_bool(doc, cfg, z, "contiguous_gradients", zp, LLMMEM_P_CONTIGUOUS_GRADIENTS,
                      false)) != 0 ||
        (rc = ds_bool(doc, cfg, z, "overlap_comm", zp, LLMMEM_P_OVERLAP_COMM, true)) != 0)
        return rc;
    return LLMMEM_OK;
}

int llmmem_config_apply_deepspeed_json(llmmem_config *cfg, const llmmem_model *model,
                                       const char *json, size_t len)
{
    if (!cfg || !json)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_apply_deepspeed_json: NULL argument");
    llmmem__json *doc = NULL;
    int rc = llmmem__json_parse(&doc, json, len, "deepspeed config");
    if (rc)
        return rc;
    /* apply to a copy so that a failure leaves cfg unchanged */
    llmmem_config *tmp = NULL;
    rc = llmmem_config_clone(&tmp, cfg);
    if (rc == 0)
        rc = apply_deepspeed(doc, llmmem__json_root(doc), tmp, model);
    llmmem__json_free(doc);
    if (rc == 0)
        *cfg = *tmp;
    llmmem_config_free(tmp);
    return rc;
}

/* ---- HF TrainingArguments (+ LLaMA-Factory) ---------------------------------------- */

/* A bool-valued key; returns -1 absent, 0/1. */
static int hf_bool(int *out, const llmmem__json *doc, const llmmem__jnode *root, const char *key)
{
    *out = -1;
    const llmmem__jnode *n = llmmem__json_get(root, key);
    if (!n || is_null(n))
        return LLMMEM_OK;
    if (!is_bool(n))
        return type_error(doc, n, key, "true or false");
    *out = llmmem__json_true(n) ? 1 : 0;
    return LLMMEM_OK;
}

static int hf_int(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *root,
                  const char *key, int id)
{
    const llmmem__jnode *n = llmmem__json_get(root, key);
    if (!n || is_null(n))
        return LLMMEM_OK;
    return set_param_node(doc, cfg, id, n, key);
}

static int apply_hf_args(const llmmem__json *doc, llmmem_config *cfg)
{
    const llmmem__jnode *root = llmmem__json_root(doc);
    if (!is_object(root))
        return type_error(doc, root, "", "a JSON object (TrainingArguments)");
    int rc;
    if ((rc = hf_int(doc, cfg, root, "per_device_train_batch_size", LLMMEM_P_MICRO_BATCH_SIZE)) != 0 ||
        (rc = hf_int(doc, cfg, root, "gradient_accumulation_steps", LLMMEM_P_GRAD_ACCUM_STEPS)) != 0 ||
        /* LLaMA-Factory cutoff_len; TRL SFTConfig max_seq_length / max_length */
        (rc = hf_int(doc, cfg, root, "cutoff_len", LLMMEM_P_SEQ_LEN)) != 0 ||
        (rc = hf_int(doc, cfg, root, "max_seq_length", LLMMEM_P_SEQ_LEN)) != 0 ||
        (rc = hf_int(doc, cfg, root, "ddp_bucket_cap_mb", LLMMEM_P_BUCKET_CAP_MB)) != 0)
        return rc;
    const llmmem__jnode *n;
    /* Mixed precision: Trainer's bf16/fp16 autocast the fp32 model
     * (transformers/trainer.py: autocast_smart_context_manager); LLaMA-Factory
     * pure_bf16 stores the weights in bf16 too. */
    int bf16, fp16, pure;
    if ((rc = hf_bool(&bf16, doc, root, "bf16")) != 0 || (rc = hf_bool(&fp16, doc, root, "fp16")) != 0 ||
        (rc = hf_bool(&pure, doc, root, "pure_bf16")) != 0)
        return rc;
    if (bf16 == 1 && fp16 == 1)
        return llmmem__json_error_at(doc, llmmem__json_get(root, "fp16"), LLMMEM_E_INCONSISTENT, "fp16",
                                     "bf16 and fp16 are both true");
    if (bf16 == 1 && (rc = llmmem_config_set_str(cfg, LLMMEM_P_COMPUTE_DTYPE, "bf16")) != 0)
        return rc;
    if (fp16 == 1 && (rc = llmmem_config_set_str(cfg, LLMMEM_P_COMPUTE_DTYPE, "fp16")) != 0)
        return rc;
    if (pure == 1 && ((rc = llmmem_config_set_str(cfg, LLMMEM_P_PARAM_DTYPE, "bf16")) != 0 ||
                      (rc = llmmem_config_set_str(cfg, LLMMEM_P_COMPUTE_DTYPE, "bf16")) != 0))
        return rc;
    if ((n = llmmem__json_get(root, "gradient_checkpointing")) != NULL && !is_null(n) &&
        (rc = set_checkpointing(doc, cfg, n, "gradient_checkpointing")) != 0)
        return rc;
    if ((n = llmmem__json_get(root, "optim")) != NULL && !is_null(n)) {
        rc = set_optimizer(doc, cfg, n, "optim");
        if (rc == LLMMEM_E_OUT_OF_RANGE)
            return llmmem__json_error_at(doc, n, LLMMEM_E_UNSUPPORTED, "optim",
                                         "optimizer \"%.60s\" is not modelled (see llmmem params)",
                                         llmmem__json_string(n));
        if (rc)
            return rc;
    }
    /* FSDP through Trainer: "fsdp": "full_shard auto_wrap" (training_args.py FSDPOption) */
    if ((n = llmmem__json_get(root, "fsdp")) != NULL && !is_null(n)) {
        char text[256] = "";
        if (is_string(n)) {
            snprintf(text, sizeof text, "%s", llmmem__json_string(n));
        } else if (llmmem__json_type(n) == LLMMEM__J_ARRAY) {
            size_t used = 0;
            for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it)) {
                if (!is_string(it))
                    return type_error(doc, it, "fsdp[]", "an FSDP option (string)");
                used += (size_t)snprintf(text + used, used < sizeof text ? sizeof text - used : 0,
                                         " %s", llmmem__json_string(it));
                if (used >= sizeof text)
                    used = sizeof text - 1;
            }
        } else if (!is_bool(n)) {
            return type_error(doc, n, "fsdp", "FSDP options (string or list)");
        }
        if (text[0]) {
            static const char *const strategies[] = {"full_shard", "shard_grad_op", "no_shard",
                                                     "hybrid_shard", NULL};
            if ((rc = set_str(doc, cfg, LLMMEM_P_ENGINE, "fsdp", n, "fsdp")) != 0)
                return rc;
            for (int i = 0; strategies[i]; i++)
                if (strstr(text, strategies[i]) &&
                    (rc = set_str(doc, cfg, LLMMEM_P_FSDP_SHARDING, strategies[i], n, "fsdp")) != 0)
                    return rc;
            if (strstr(text, "offload") &&
                (rc = set_i64(doc, cfg, LLMMEM_P_FSDP_CPU_OFFLOAD, 1, n, "fsdp")) != 0)
                return rc;
        }
    }
    const llmmem__jnode *fc = llmmem__json_get(root, "fsdp_config");
    if (fc && is_object(fc) && (n = llmmem__json_get(fc, "version")) != NULL &&
        (rc = set_param_node(doc, cfg, LLMMEM_P_FSDP_VERSION, n, "fsdp_config.version")) != 0)
        return rc;
    /* an inline ds_config ("deepspeed": {...}); "auto" sizes stay (no model
     * here). A path ("deepspeed": "ds.json") is the caller's to read. */
    if ((n = llmmem__json_get(root, "deepspeed")) != NULL && is_object(n) &&
        (rc = apply_deepspeed(doc, n, cfg, NULL)) != 0)
        return rc;

    /* LLaMA-Factory (src/llamafactory/hparams/finetuning_args.py, model_args.py):
     * finetuning_type lora with lora_rank (default 8), lora_alpha (default
     * rank * 2), lora_target ("all" = every linear layer), quantization_bit 4/8. */
    const llmmem__jnode *ft = llmmem__json_get(root, "finetuning_type");
    bool lora = false;
    if (ft && !is_null(ft)) {
        if (!is_string(ft))
            return type_error(doc, ft, "finetuning_type", "lora, full or freeze");
        const char *t = llmmem__json_string(ft);
        if (strcmp(t, "lora") == 0) {
            lora = true;
        } else if (strcmp(t, "full") == 0) {
            if ((rc = set_i64(doc, cfg, LLMMEM_P_LORA_RANK, 0, ft, "finetuning_type")) != 0)
                return rc;
        } else {
            return llmmem__json_error_at(doc, ft, LLMMEM_E_UNSUPPORTED, "finetuning_type",
                                         "\"%.40s\" is not modelled (lora or full)", t);
        }
    }
    if (lora) {
        int64_t rank = 8;
        const llmmem__jnode *r = llmmem__json_get(root, "lora_rank");
        if (r && (rc = node_i64(&rank, doc, r, "lora_rank")) != 0)
            return rc;
        if ((rc = set_i64(doc, cfg, LLMMEM_P_LORA_RANK, rank, r ? r : ft, r ? "lora_rank" :
                          "finetuning_type")) != 0)
            return rc;
        const llmmem__jnode *a = llmmem__json_get(root, "lora_alpha");
        if (a && !is_null(a)) {
            if ((rc = set_param_node(doc, cfg, LLMMEM_P_LORA_ALPHA, a, "lora_alpha")) != 0)
                return rc;
        } else if ((rc = llmmem_config_set_f64(cfg, LLMMEM_P_LORA_ALPHA, 2.0 * (double)rank)) != 0) {
            return wrap(doc, ft, "lora_alpha", rc);
        }
        const llmmem__jnode *t = llmmem__json_get(root, "lora_target");
        if (t && (rc = set_targets(doc, cfg, t, "lora_target")) != 0)
            return rc;
        if (!t && (rc = llmmem_config_set_str(cfg, LLMMEM_P_LORA_TARGETS, "all-linear")) != 0)
            return rc; /* LLaMA-Factory's default lora_target is "all" */
        const llmmem__jnode *d = llmmem__json_get(root, "lora_dropout");
        if (d && !is_null(d) &&
            (rc = set_param_node(doc, cfg, LLMMEM_P_LORA_DROPOUT, d, "lora_dropout")) != 0)
            return rc;
    }
    const llmmem__jnode *qb = llmmem__json_get(root, "quantization_bit");
    if (qb && !is_null(qb)) {
        int64_t bits;
        if ((rc = node_i64(&bits, doc, qb, "quantization_bit")) != 0)
            return rc;
        const char *q = NULL;
        if (bits == 4) {
            q = "nf4";
            const llmmem__jnode *qt = llmmem__json_get(root, "quantization_type");
            if (qt && is_string(qt) && strcmp(llmmem__json_string(qt), "fp4") == 0)
                q = "fp4";
        } else if (bits == 8) {
            q = "int8";
        } else {
            return llmmem__json_error_at(doc, qb, LLMMEM_E_UNSUPPORTED, "quantization_bit",
                                         "%lld-bit bitsandbytes quantization is not modelled (4 or 8)",
                                         (long long)bits);
        }
        if ((rc = set_str(doc, cfg, LLMMEM_P_QLORA, q, qb, "quantization_bit")) != 0)
            return rc;
        int dq;
        if ((rc = hf_bool(&dq, doc, root, "double_quantization")) != 0)
            return rc;
        if (dq >= 0 && (rc = set_i64(doc, cfg, LLMMEM_P_QLORA_DOUBLE_QUANT, dq,
                                     llmmem__json_get(root, "double_quantization"),
                                     "double_quantization")) != 0)
            return rc;
    }
    return LLMMEM_OK;
}

int llmmem_config_apply_hf_training_args_json(llmmem_config *cfg, const char *json, size_t len)
{
    if (!cfg || !json)
        return llmmem__error(LLMMEM_E_INVALID_ARG,
                             "llmmem_config_apply_hf_training_args_json: NULL argument");
    llmmem__json *doc = NULL;
    int rc = llmmem__json_parse(&doc, json, len, "training arguments");
    if (rc)
        return rc;
    llmmem_config *tmp = NULL;
    rc = llmmem_config_clone(&tmp, cfg);
    if (rc == 0)
        rc = apply_hf_args(doc, tmp);
    llmmem__json_free(doc);
    if (rc == 0)
        *cfg = *tmp;
    llmmem_config_free(tmp);
    return rc;
}
