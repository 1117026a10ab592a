/* Scenario files: llmmem_scenario_from_json/_file.
 *
 * The project's scenario format (the records of ../shared/groundtruth/h200-dev.jsonl),
 * a superset of gpu-mem-calculator's config file (George614/gpu-mem-calculator,
 * src/gpu_mem_calculator/config/parser.py). Keys map to parameters through the
 * parameter table (params.c: name + section); the few spellings that differ are
 * in `special[]` below. Unknown keys are errors. DeepSpeed and TrainingArguments
 * files are read by deepspeed.c and training_args.c; the value translations the
 * three share are in values.c.
 *
 * Every error names the key path, the value and source:line:col. */
#include "input/input.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PATH_MAX_LEN 4096

typedef struct ctx {
    const llmmem__json *doc;
    llmmem_config *cfg;
    llmmem_model *model; /* NULL when the caller does not want one */
    bool want_model;
    const char *base_dir;
    const char *hub_cache; /* the Hugging Face cache for Hub ids, or NULL */
    bool saw_seq_len; /* training.seq_len given */
    bool saw_mode;
    bool saw_training, saw_inference;
    int64_t model_max_seq_len; /* gpu-mem-calculator: model.max_seq_len is the sequence */
    bool saw_gpu_memory;       /* hardware memory given: an ambiguous gpu name is fine */
    uint64_t seen[64];         /* parameters / model keys set by the current object (set_once) */
    /* the engine section's "zero3"-like name and its stage key, which must agree */
    const llmmem__jnode *alias_node, *stage_node;
    int64_t alias_stage;
    char alias_path[LLMMEM__KEYPATH_MAX], stage_path[LLMMEM__KEYPATH_MAX];
} ctx;

/* ---- values only scenarios have ------------------------------------------------ */

/* Engine names of the scenario format, gpu-mem-calculator (parser.py
 * _convert_engine) and the CLI's quick command. */
static const struct {
    const char *name;
    const char *engine;
    int stage;   /* -1: leave */
    int version; /* FSDP version, 0: leave */
} engine_alias[] = {
    {"single", "single", -1, 0},
    {"none", "single", -1, 0},
    {"pytorch", "ddp", -1, 0},
    {"pytorch_ddp", "ddp", -1, 0},
    {"ddp", "ddp", -1, 0},
    {"deepspeed", "zero", -1, 0},
    {"zero", "zero", -1, 0},
    {"zero0", "zero", 0, 0},
    {"zero1", "zero", 1, 0},
    {"zero2", "zero", 2, 0},
    {"zero3", "zero", 3, 0},
    {"deepspeed_zero1", "zero", 1, 0},
    {"deepspeed_zero2", "zero", 2, 0},
    {"deepspeed_zero3", "zero", 3, 0},
    {"fsdp", "fsdp", -1, 0},
    {"fsdp1", "fsdp", -1, 1},
    {"fsdp2", "fsdp", -1, 2},
    {"megatron", "megatron", -1, 0},
    {"megatron_lm", "megatron", -1, 0},
    {"megatron_core", "megatron", -1, 0},
    {"megatron_deepspeed", "megatron_deepspeed", -1, 0},
};

static int set_engine(const llmmem__json *doc, llmmem_config *cfg, const llmmem__jnode *n,
                      const char *path)
{
    if (!llmmem__json_is_string(n))
        return llmmem__input_type_error(doc, n, path, "an engine name (string)");
    char low[64];
    llmmem__input_lower_copy(low, sizeof low, llmmem__json_string(n));
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(engine_alias); i++) {
        if (strcmp(engine_alias[i].name, low) != 0)
            continue;
        int rc = llmmem__input_set_str(doc, cfg, LLMMEM_P_ENGINE, engine_alias[i].engine, n, path);
        if (rc == 0 && engine_alias[i].stage >= 0)
            rc = llmmem__input_set_i64(doc, cfg, LLMMEM_P_ZERO_STAGE, engine_alias[i].stage, n,
                                       path);
        if (rc == 0 && engine_alias[i].version > 0)
            rc = llmmem__input_set_i64(doc, cfg, LLMMEM_P_FSDP_VERSION, engine_alias[i].version, n,
                                       path);
        return rc;
    }
    char v[96];
    return llmmem__json_error_at(doc, n, LLMMEM_E_OUT_OF_RANGE, path,
                                 "unknown engine %s (one of: single, ddp, deepspeed, zero, zero1, "
                                 "zero2, zero3, fsdp, fsdp1, fsdp2, megatron, megatron_deepspeed)",
                                 llmmem__input_value_text(v, sizeof v, n));
}

/* GPU by name (llmmem_gpu_find: case, separators and vendor words do not matter, the
 * driver's names are known, a family names its only GPU). A name that fits several GPUs
 * is an error unless the memory is given too (it overrides the table's). */
static int set_gpu(ctx *c, const llmmem__jnode *n, const char *path)
{
    if (!llmmem__json_is_string(n))
        return llmmem__input_type_error(c->doc, n, path, "a GPU name (string)");
    int found, first;
    int rc = llmmem__gpu_find(&found, &first, llmmem__json_string(n));
    if (rc == LLMMEM_E_INCONSISTENT && c->saw_gpu_memory)
        found = first, rc = 0;
    if (rc)
        return llmmem__input_wrap(c->doc, n, path, rc);
    return llmmem__input_set_i64(c->doc, c->cfg, LLMMEM_P_GPU, found, n, path);
}

/* GPU memory from GiB (2^30) or GB (1e9) as a real number. */
static int set_gpu_memory(ctx *c, const llmmem__jnode *n, const char *path, double unit)
{
    if (!llmmem__json_is_number(n))
        return llmmem__input_type_error(c->doc, n, path, "a number");
    double v = llmmem__json_number(n) * unit;
    char t[96];
    if (!isfinite(v) || v < 1.0 || v > 1.0e15)
        return llmmem__json_error_at(c->doc, n, LLMMEM_E_OUT_OF_RANGE, path,
                                     "GPU memory %s is outside (0, 1e15 bytes]",
                                     llmmem__input_value_text(t, sizeof t, n));
    return llmmem__input_set_i64(c->doc, c->cfg, LLMMEM_P_GPU_MEMORY_BYTES, (int64_t)llround(v), n,
                                 path);
}

/* obj must be an object (else "expected <expected>"); the JSON layer has already
 * refused a key written twice (json.c check_duplicates), and `seen` starts
 * empty for the object's parameters. */
static int unique_object(ctx *c, const llmmem__jnode *obj, const char *section,
                         const char *expected)
{
    memset(c->seen, 0, sizeof c->seen);
    if (!llmmem__json_is_object(obj))
        return llmmem__input_type_error(c->doc, obj, section, expected);
    return LLMMEM_OK;
}

/* Two spellings of one parameter in one object ("seq_len" and "max_seq_length",
 * "num_layers" and "num_hidden_layers") would set it twice: an error naming
 * both. `id` is the parameter (or model key) that member m sets. */
static int set_once(ctx *c, int id, const llmmem__jnode *m, const char *path)
{
    if (id < 0 || id >= (int)(sizeof c->seen * 8))
        return LLMMEM_OK;
    uint64_t bit = UINT64_C(1) << (id % 64);
    if (!(c->seen[id / 64] & bit)) {
        c->seen[id / 64] |= bit;
        return LLMMEM_OK;
    }
    return llmmem__json_error_at(c->doc, m, LLMMEM_E_SCHEMA, path,
                                 "sets the same setting as an earlier key of this object (two spellings "
                                 "of one parameter)");
}

/* ---- scenario sections --------------------------------------------------------- */

typedef int (*special_fn)(ctx *c, const llmmem__jnode *n, const char *path, int arg);

static int sp_param(ctx *c, const llmmem__jnode *n, const char *path, int id)
{
    return llmmem__input_set_param(c->doc, c->cfg, id, n, path);
}
static int sp_ignore(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    return LLMMEM_OK;
}
static int sp_optimizer(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    return llmmem__input_set_optimizer(c->doc, c->cfg, n, path);
}
static int sp_ckpt(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    return llmmem__input_set_checkpointing(c->doc, c->cfg, n, path);
}
/* An engine name that carries a stage ("zero3") and a stage key in the same
 * object must agree: LLMMEM_E_INCONSISTENT naming both. */
static int stage_agrees(ctx *c, const llmmem__jnode *type_node, const char *type_path,
                        const llmmem__jnode *stage_node, const char *stage_path, int64_t alias_stage,
                        int64_t stage)
{
    if (alias_stage == stage)
        return LLMMEM_OK;
    int line = 0, col = 0;
    llmmem__json_pos(c->doc, stage_node, &line, &col);
    return llmmem__json_error_at(c->doc, type_node, LLMMEM_E_INCONSISTENT, type_path,
                                 "engine %s is ZeRO stage %lld, but %s (line %d:%d) says %lld",
                                 llmmem__json_string(type_node), (long long)alias_stage, stage_path,
                                 line, col, (long long)stage);
}

static int sp_engine(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    const bool stage_first = c->stage_node != NULL;
    const int64_t before = c->cfg->zero_stage;
    int rc = set_engine(c->doc, c->cfg, n, path);
    if (rc)
        return rc;
    if (c->cfg->zero_stage != before || llmmem__config_was_set(c->cfg, LLMMEM_P_ZERO_STAGE)) {
        /* the name set a stage when it differs, or when it re-set the same one */
        char low[64];
        llmmem__input_lower_copy(low, sizeof low, llmmem__json_string(n));
        const char *digit = strpbrk(low, "0123");
        if (digit && strstr(low, "zero")) {
            c->alias_node = n;
            snprintf(c->alias_path, sizeof c->alias_path, "%s", path);
            c->alias_stage = *digit - '0';
            if (stage_first)
                return stage_agrees(c, n, path, c->stage_node, c->stage_path, c->alias_stage, before);
        }
    }
    return LLMMEM_OK;
}
static int sp_offload(ctx *c, const llmmem__jnode *n, const char *path, int id)
{
    return llmmem__input_set_offload(c->doc, c->cfg, id, n, path);
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
    return llmmem__input_set_targets(c->doc, c->cfg, n, path);
}
static int sp_seq_len(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    c->saw_seq_len = true;
    return llmmem__input_set_param(c->doc, c->cfg, LLMMEM_P_SEQ_LEN, n, path);
}
/* gpu-mem-calculator training.dtype: weights and compute in one dtype. */
static int sp_dtype(ctx *c, const llmmem__jnode *n, const char *path, int arg)
{
    int rc = llmmem__input_set_param(c->doc, c->cfg, LLMMEM_P_PARAM_DTYPE, n, path);
    return rc ? rc : llmmem__input_set_param(c->doc, c->cfg, LLMMEM_P_COMPUTE_DTYPE, n, path);
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
    {"hardware", "gpu_memory_gb", sp_gb, 0},           /* gpu-mem-calculator, SI GB */
    {"hardware", "total_gpu_memory_gb", sp_ignore, 0}, /* gpu-mem-calculator: derived */
    {"hardware", "num_gpus", sp_param, LLMMEM_P_NUM_GPUS},
    {"hardware", "gpus_per_node", sp_param, LLMMEM_P_GPUS_PER_NODE},
    {"parallelism", "dp", sp_param, LLMMEM_P_DATA_PARALLEL},
};

/* The error for a key a section does not have, naming where it belongs. */
static int unknown_section_key(ctx *c, const llmmem__jnode *m, const char *section,
                               const char *path, const llmmem__param_info *p)
{
    if (p && *p->section)
        return llmmem__json_error_at(c->doc, m, LLMMEM_E_UNKNOWN_PARAM, path,
                                     "unknown key (parameter \"%s\" belongs in \"%s\")", p->name,
                                     p->section);
    if (p)
        return llmmem__json_error_at(c->doc, m, LLMMEM_E_UNKNOWN_PARAM, path,
                                     "unknown key (parameter \"%s\" is a top-level key)", p->name);
    return llmmem__json_error_at(c->doc, m, LLMMEM_E_UNKNOWN_PARAM, path,
                                 "unknown key in \"%s\" (see llmmem params)", section);
}

/* One key of a section: a special[] spelling, else the parameter table. */
static int section_key(ctx *c, const char *section, const llmmem__jnode *m)
{
    const char *key = llmmem__json_key(m);
    char path[LLMMEM__KEYPATH_MAX];
    llmmem__input_join_path(path, sizeof path, section, key);
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(special); i++)
        if (strcmp(special[i].section, section) == 0 && strcmp(special[i].key, key) == 0) {
            int rc = special[i].fn == sp_param ? set_once(c, special[i].arg, m, path) : 0;
            return rc ? rc : special[i].fn(c, m, path, special[i].arg);
        }
    const llmmem__param_info *p = llmmem__param_by_name(key);
    if (p && strcmp(p->section, section) == 0) {
        int rc = set_once(c, p->id, m, path);
        if (rc == 0 && p->id == LLMMEM_P_ZERO_STAGE) {
            c->stage_node = m;
            snprintf(c->stage_path, sizeof c->stage_path, "%s", path);
            const int64_t alias = c->alias_node ? c->alias_stage : -1;
            rc = llmmem__input_set_param(c->doc, c->cfg, p->id, m, path);
            if (rc == 0 && alias >= 0)
                rc = stage_agrees(c, c->alias_node, c->alias_path, m, path, alias, c->cfg->zero_stage);
            return rc;
        }
        return rc ? rc : llmmem__input_set_param(c->doc, c->cfg, p->id, m, path);
    }
    return unknown_section_key(c, m, section, path, p);
}

static int apply_section(ctx *c, const char *section, const llmmem__jnode *obj)
{
    int rc = unique_object(c, obj, section, "an object");
    if (rc)
        return rc;
    if (strcmp(section, "hardware") == 0)
        c->saw_gpu_memory = llmmem__json_get(obj, "gpu_memory_gib") ||
                            llmmem__json_get(obj, "gpu_memory_gb") ||
                            llmmem__json_get(obj, "gpu_memory_bytes");
    for (const llmmem__jnode *m = llmmem__json_first(obj); m; m = llmmem__json_next(m))
        if ((rc = section_key(c, section, m)) != 0)
            return rc;
    return LLMMEM_OK;
}

/* "params": {"name": value, ...}: any parameter by its table name. */
static int apply_params(ctx *c, const llmmem__jnode *obj)
{
    int dup = unique_object(c, obj, "params", "an object");
    if (dup)
        return dup;
    for (const llmmem__jnode *m = llmmem__json_first(obj); m; m = llmmem__json_next(m)) {
        char path[LLMMEM__KEYPATH_MAX];
        llmmem__input_join_path(path, sizeof path, "params", llmmem__json_key(m));
        int id;
        if (llmmem_param_from_name(&id, llmmem__json_key(m)) != 0)
            return llmmem__json_error_at(c->doc, m, LLMMEM_E_UNKNOWN_PARAM, path,
                                         "unknown parameter (see llmmem params)");
        int rc = set_once(c, id, m, path);
        if (rc == 0)
            rc = llmmem__input_set_param(c->doc, c->cfg, id, m, path);
        if (rc)
            return rc;
    }
    return LLMMEM_OK;
}

/* "vllm": {vLLM's own argument names}: an inference run of runtime vllm
 * (values.c llmmem__input_set_vllm_arg reads each argument). */
static int apply_vllm(ctx *c, const llmmem__jnode *obj)
{
    int rc = unique_object(c, obj, "vllm", "an object of vLLM arguments");
    if (rc)
        return rc;
    c->saw_inference = true;
    if ((rc = llmmem__input_set_str(c->doc, c->cfg, LLMMEM_P_RUNTIME, "vllm", obj, "vllm")) != 0)
        return rc;
    for (const llmmem__jnode *m = llmmem__json_first(obj); m; m = llmmem__json_next(m)) {
        char path[LLMMEM__KEYPATH_MAX];
        llmmem__input_join_path(path, sizeof path, "vllm", llmmem__json_key(m));
        if ((rc = llmmem__input_set_vllm_arg(c->doc, c->cfg, llmmem__json_key(m), m, path)) != 0)
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
    if (llmmem__json_is_string(n)) {
        const char *name = llmmem_model_key_name(mkey);
        if (!name)
            return llmmem__json_error_at(c->doc, n, LLMMEM_E_INTERNAL, path,
                                         "model key %d has no name", mkey);
        rc = llmmem_model_set(c->model, name, llmmem__json_string(n));
    } else if (llmmem__json_is_bool(n)) {
        rc = llmmem_model_set_i64(c->model, mkey, llmmem__json_true(n) ? 1 : 0);
    } else if (llmmem__json_is_number(n)) {
        int64_t v;
        if (mkey == LLMMEM_M_NUM_PARAMETERS &&
            llmmem__json_number(n) != floor(llmmem__json_number(n)))
            return llmmem__input_type_error(c->doc, n, path, "a whole number of parameters");
        if ((rc = llmmem__input_node_i64(&v, c->doc, n, path)) != 0)
            return rc;
        rc = llmmem_model_set_i64(c->model, mkey, v);
    } else {
        return llmmem__input_type_error(c->doc, n, path, "a number");
    }
    return rc ? llmmem__input_wrap(c->doc, n, path, rc) : LLMMEM_OK;
}

/* model.max_seq_len given as a number: gpu-mem-calculator's sequence length
 * (see scenario_finish). Anything else is a model value (llmmem_model_set). */
static int model_seq_len(ctx *c, const llmmem__jnode *obj)
{
    const llmmem__jnode *mseq = llmmem__json_get(obj, "max_seq_len");
    if (mseq && llmmem__json_is_number(mseq))
        return llmmem__input_node_i64(&c->model_max_seq_len, c->doc, mseq, "model.max_seq_len");
    return LLMMEM_OK;
}

/* The model the raw numbers start from: model.hf_config or model.gguf (a path relative
 * to the scenario's folder), model.preset, or an empty model. */
static int model_base(ctx *c, const llmmem__jnode *obj, const llmmem__jnode *hf,
                      const llmmem__jnode *preset, const llmmem__jnode *gguf)
{
    const llmmem__json *doc = c->doc;
    const char *key = gguf ? "model.gguf" : "model.hf_config";
    int rc;
    if (gguf)
        hf = gguf; /* a file path too, read as a GGUF header */
    if (hf) {
        if (!llmmem__json_is_string(hf))
            return llmmem__input_type_error(doc, hf, key, "a file path (string)");
        const char *rel = llmmem__json_string(hf);
        char full[PATH_MAX_LEN];
        int w;
        if (rel[0] == '/' || !c->base_dir || !*c->base_dir)
            w = snprintf(full, sizeof full, "%s", rel);
        else
            w = snprintf(full, sizeof full, "%s/%s", c->base_dir, rel);
        if (w < 0 || (size_t)w >= sizeof full)
            return llmmem__json_error_at(doc, hf, LLMMEM_E_OUT_OF_RANGE, key,
                                         "path longer than %d bytes", PATH_MAX_LEN - 1);
        rc = gguf ? llmmem_model_from_gguf_file(&c->model, full) : llmmem_model_from_hf_file(&c->model, full);
    } else if (preset) {
        if (!llmmem__json_is_string(preset))
            return llmmem__input_type_error(doc, preset, "model.preset", "a preset name or Hub id (string)");
        rc = llmmem__model_resolve(&c->model, llmmem__json_string(preset), c->hub_cache, false);
    } else {
        rc = llmmem_model_new(&c->model);
    }
    if (rc)
        return llmmem__input_wrap(doc,
                                  hf       ? hf
                                  : preset ? preset
                                           : obj,
                                  hf ? key : "model.preset", rc);
    return LLMMEM_OK;
}

/* One key of the model object on top of the base model. `named`: the model
 * came from hf_config or a preset, whose name a "name" key does not replace;
 * `moe_off`: gpu-mem-calculator's moe_enabled false, experts do not count.
 * *any_raw is set when a raw number was applied. */
static int model_member(ctx *c, const llmmem__jnode *m, bool named, bool moe_off, bool *any_raw)
{
    const llmmem__json *doc = c->doc;
    const char *key = llmmem__json_key(m);
    char path[LLMMEM__KEYPATH_MAX];
    llmmem__input_join_path(path, sizeof path, "model", key);
    if (strcmp(key, "hf_config") == 0 || strcmp(key, "preset") == 0 || strcmp(key, "gguf") == 0 ||
        strcmp(key, "moe_enabled") == 0)
        return LLMMEM_OK;
    if (strcmp(key, "name") == 0 || strcmp(key, "description") == 0) {
        if (!llmmem__json_is_string(m))
            return llmmem__input_type_error(doc, m, path, "a string");
        if (strcmp(key, "name") == 0 && !named)
            snprintf(c->model->name, sizeof c->model->name, "%s", llmmem__json_string(m));
        return LLMMEM_OK;
    }
    if (strcmp(key, "largest_layer_params") == 0 ||
        strcmp(key, "shared_expert_intermediate_size") == 0) {
        /* gpu-mem-calculator keys; the shape decides these here */
        llmmem__model_note(c->model, "%s ignored: computed from the model's shape", path);
        return LLMMEM_OK;
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
        return LLMMEM_OK; /* gpu-mem-calculator: experts only count with moe_enabled */
    int rc = set_once(c, mkey, m, path);
    if (rc == 0)
        rc = set_model_key(c, mkey, m, path);
    if (rc == 0)
        *any_raw = true;
    return rc;
}

/* A router the raw numbers leave choosing no expert, or experts gone from an MoE
 * architecture: every estimate refuses it (engines/common.c); said here at the key
 * that set it, with its line:column. */
static int router_at_key(ctx *c, const llmmem__jnode *obj)
{
    const struct llmmem_model *m = c->model;
    if (!m)
        return LLMMEM_OK;
    static const char *const topk[] = {"top_k", "num_experts_per_tok", "experts_per_token", NULL};
    static const char *const experts[] = {"num_experts", "num_local_experts", "experts", NULL};
    const bool none_routed = m->num_experts > 0 && m->experts_per_token <= 0;
    const bool none_left = m->num_experts <= 0 && (m->num_moe_layers > 0 || (m->fam && m->fam->ffn.rule == LLMMEM__FR_MOE &&
                                                                           m->experts_per_token > 0));
    if (!none_routed && !none_left)
        return LLMMEM_OK;
    const char *const *keys = none_routed ? topk : experts;
    for (size_t i = 0; keys[i]; i++) {
        const llmmem__jnode *n = llmmem__json_get(obj, keys[i]);
        if (!n)
            continue;
        char path[64];
        snprintf(path, sizeof path, "model.%s", keys[i]);
        if (none_routed)
            return llmmem__json_error_at(c->doc, n, LLMMEM_E_INCONSISTENT, path,
                                         "%lld experts with %lld routed per token: the router picks no "
                                         "expert",
                                         (long long)m->num_experts, (long long)m->experts_per_token);
        return llmmem__json_error_at(c->doc, n, LLMMEM_E_INCONSISTENT, path,
                                     "num_experts = 0 in an MoE architecture: its router would pick %lld "
                                     "of no experts",
                                     (long long)m->experts_per_token);
    }
    return LLMMEM_OK;
}

/* "model": a preset name, or an object: hf_config, preset or gguf (a GGUF file's header),
 * then raw numbers (not with gguf). */
static int load_model(ctx *c, const llmmem__jnode *obj)
{
    const llmmem__json *doc = c->doc;
    int rc;
    if (llmmem__json_is_string(obj)) { /* "model": "llama-3.1-8b" = a preset, or a Hub id */
        rc = llmmem__model_resolve(&c->model, llmmem__json_string(obj), c->hub_cache, false);
        return rc ? llmmem__input_wrap(doc, obj, "model", rc) : LLMMEM_OK;
    }
    if ((rc = unique_object(c, obj, "model", "an object or a preset name")) != 0)
        return rc;
    const llmmem__jnode *hf = llmmem__json_get(obj, "hf_config");
    const llmmem__jnode *preset = llmmem__json_get(obj, "preset");
    const llmmem__jnode *moe = llmmem__json_get(obj, "moe_enabled");
    const llmmem__jnode *gguf = llmmem__json_get(obj, "gguf");
    if (!!hf + !!preset + !!gguf > 1)
        return llmmem__json_error_at(doc, gguf ? gguf : preset, LLMMEM_E_INCONSISTENT,
                                     gguf ? "model.gguf" : "model.preset",
                                     "model.hf_config, model.preset and model.gguf are each a model: "
                                     "give one, not both");
    if (moe && !llmmem__json_is_bool(moe))
        return llmmem__input_type_error(doc, moe, "model.moe_enabled", "true or false");
    bool moe_off = moe && !llmmem__json_true(moe);
    if ((rc = model_seq_len(c, obj)) != 0 || (rc = model_base(c, obj, hf, preset, gguf)) != 0)
        return rc;
    /* Two passes: the shape fields first, the size target (num_parameters) last, so
     * that the library derives only what was not given. */
    bool any_raw = false;
    for (int pass = 0; pass < 2; pass++)
        for (const llmmem__jnode *m = llmmem__json_first(obj); m; m = llmmem__json_next(m))
            if ((strcmp(llmmem__json_key(m), "num_parameters") == 0) == (pass == 1) &&
                (rc = model_member(c, m, hf || preset || gguf, moe_off, &any_raw)) != 0)
                return rc;
    /* a GGUF's tensors are the model: numbers on top would describe another one */
    if (gguf && any_raw)
        return llmmem__json_error_at(doc, obj, LLMMEM_E_INCONSISTENT, "model",
                                     "model.gguf describes the model by its tensors: give no other "
                                     "model numbers with it");
    if (!hf && !preset && !gguf && !any_raw)
        return llmmem__json_error_at(doc, obj, LLMMEM_E_SCHEMA, "model",
                                     "no model: give hf_config, preset, or raw numbers "
                                     "(num_parameters, num_layers, hidden_size, ...)");
    return router_at_key(c, obj);
}

/* ---- scenario entry points -------------------------------------------------------- */

/* Top-level keys that describe the record and set nothing. */
static bool is_note_key(const char *key)
{
    static const char *const notes[] = {"measured", "id",      "name", "description",
                                        "comment",  "$schema", NULL};
    return llmmem__name_index(notes, key) >= 0;
}

/* One top-level key of a scenario; the model waits in *model until every
 * other key is read. */
static int scenario_key(ctx *c, const llmmem__jnode *m, const llmmem__jnode **model)
{
    static const char *const sections[] = {"training",    "inference", "lora",   "engine",
                                           "parallelism", "hardware",  "vision", NULL};
    const char *key = llmmem__json_key(m);
    if (is_note_key(key))
        return LLMMEM_OK;
    if (strcmp(key, "model") == 0) {
        *model = m;
        return LLMMEM_OK;
    }
    if (strcmp(key, "mode") == 0) {
        c->saw_mode = true;
        return llmmem__input_set_param(c->doc, c->cfg, LLMMEM_P_MODE, m, "mode");
    }
    if (strcmp(key, "params") == 0)
        return apply_params(c, m);
    if (strcmp(key, "engine") == 0 && llmmem__json_is_string(m)) /* "engine": "zero3" */
        return set_engine(c->doc, c->cfg, m, "engine");
    if (strcmp(key, "vllm") == 0)
        return apply_vllm(c, m);
    int s = llmmem__name_index(sections, key);
    if (s < 0)
        return llmmem__json_error_at(c->doc, m, LLMMEM_E_UNKNOWN_PARAM, key,
                                     "unknown top-level key (one of: id, model, mode, training, "
                                     "inference, lora, engine, parallelism, hardware, vision, "
                                     "vllm, params, measured)");
    if (s == 0)
        c->saw_training = true;
    if (s == 1)
        c->saw_inference = true;
    return apply_section(c, key, m);
}

/* After the keys: the mode from the sections when not given, the model, and
 * the sequence from model.max_seq_len. */
static int scenario_finish(ctx *c, const llmmem__jnode *root, const llmmem__jnode *model)
{
    const llmmem__json *doc = c->doc;
    int rc;
    if (!c->saw_mode && c->saw_inference && !c->saw_training &&
        (rc = llmmem_config_set_str(c->cfg, LLMMEM_P_MODE, "inference")) != 0)
        return rc;
    /* a GGUF file is llama.cpp's: as --gguf in the CLI, it implies mode inference and
     * runtime llama_cpp unless the scenario says otherwise */
    if (model && llmmem__json_is_object(model) && llmmem__json_get(model, "gguf")) {
        if (!c->saw_mode && !llmmem__config_was_set(c->cfg, LLMMEM_P_MODE) &&
            (rc = llmmem_config_set_str(c->cfg, LLMMEM_P_MODE, "inference")) != 0)
            return rc;
        if (!llmmem__config_was_set(c->cfg, LLMMEM_P_RUNTIME) &&
            (rc = llmmem_config_set_str(c->cfg, LLMMEM_P_RUNTIME, "llama_cpp")) != 0)
            return rc;
    }
    if (c->want_model) {
        if (!model)
            return llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "model",
                                         "missing required key");
        if ((rc = load_model(c, model)) != 0)
            return rc;
    } else if (model && llmmem__json_is_object(model) && (rc = model_seq_len(c, model)) != 0) {
        /* as load_model reads it, without reading the model */
        return rc;
    }
    /* gpu-mem-calculator: the activations use model.max_seq_len as the sequence
     * (core/calculator.py passes model_config.max_seq_len as seq_len). */
    if (!c->saw_seq_len && c->model_max_seq_len > 0 && c->saw_training) {
        rc = llmmem_config_set_i64(c->cfg, LLMMEM_P_SEQ_LEN, c->model_max_seq_len);
        if (rc)
            return llmmem__input_wrap(doc, llmmem__json_get(model, "max_seq_len"),
                                      "model.max_seq_len", rc);
    }
    return LLMMEM_OK;
}

static int load_scenario(ctx *c, const llmmem__jnode *root)
{
    int rc = unique_object(c, root, "", "a JSON object (a scenario)");
    if (rc)
        return rc;
    const llmmem__jnode *model = NULL;
    for (const llmmem__jnode *m = llmmem__json_first(root); m; m = llmmem__json_next(m))
        if ((rc = scenario_key(c, m, &model)) != 0)
            return rc;
    return scenario_finish(c, root, model);
}

static int scenario_parse(llmmem_model **model_out, llmmem_config **cfg_out, const char *json,
                          size_t len, const char *base_dir, const char *source, const char *hub_cache)
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
    c.hub_cache = hub_cache;
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
    return scenario_parse(model_out, cfg_out, json, len, base_dir, "scenario", NULL);
}

static int scenario_file(llmmem_model **model_out, llmmem_config **cfg_out, const char *path,
                         const char *hub_cache, const char *fn)
{
    if (!path)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "%s: path is NULL", fn);
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
    rc = scenario_parse(model_out, cfg_out, text, len, dir, path, hub_cache);
    free(text);
    return rc;
}

int llmmem_scenario_from_file(llmmem_model **model_out, llmmem_config **cfg_out, const char *path)
{
    return scenario_file(model_out, cfg_out, path, NULL, "llmmem_scenario_from_file");
}

int llmmem_scenario_from_file_hub(llmmem_model **model_out, llmmem_config **cfg_out, const char *path,
                                  const char *hub_cache)
{
    return scenario_file(model_out, cfg_out, path, hub_cache, "llmmem_scenario_from_file_hub");
}
