/* Where flags meet the library: model keys and their CLI spellings, configuration
 * parameters and how their values are written (whole numbers, token counts), the engine
 * names, the presets, the framework files, and the order in which a command's inputs are
 * applied (scenario, model flags, framework files, --engine/--gpus/--gpu-mem, parameter
 * flags). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- model keys and parameters ------------------------------------------------------------ */

typedef struct model_alias {
    cli_names names;
    const char *key;
} model_alias;

/* Spellings of the raw-number flags that the library's model key names do not
 * cover, and the library name they set (llmmem_model_set also takes its aliases). */
static const model_alias model_aliases[] = {
    {{"num_layers", NULL}, "num_hidden_layers"},
    {{"num_heads", NULL}, "num_attention_heads"},
    {{"num_kv_heads", NULL}, "num_key_value_heads"},
    {{"max_positions", NULL}, "max_position_embeddings"},
    {{"max_seq_len", NULL}, "max_position_embeddings"},
    {{"top_k", NULL}, "num_experts_per_tok"},
    {{"experts_per_token", NULL}, "num_experts_per_tok"},
    {{"num_local_experts", NULL}, "num_experts"},
    {{"expert_intermediate_size", NULL}, "moe_intermediate_size"},
    {{"tie_embeddings", NULL}, "tie_word_embeddings"},
};

/* The settable model keys are the raw numbers, not the read-only counts. */
const char *cli_model_key(const char *name)
{
    int n = llmmem_model_key_count();
    for (int i = 0; i < n; i++) {
        int key = llmmem_model_key_at(i);
        const char *kn = llmmem_model_key_name(key);
        if (key < LLMMEM_M_PARAMS && kn && cli_name_is(name, kn))
            return kn;
    }
    int k = CLI_FIND(model_aliases, name);
    return k < 0 ? NULL : model_aliases[k].key;
}

int cli_model_key_names(const char **out, int cap)
{
    int n = 0, keys = llmmem_model_key_count();
    for (int i = 0; i < keys && n < cap; i++) {
        int key = llmmem_model_key_at(i);
        if (key < LLMMEM_M_PARAMS)
            out[n++] = llmmem_model_key_name(key);
    }
    for (size_t i = 0; i < sizeof model_aliases / sizeof model_aliases[0] && n < cap; i++)
        out[n++] = model_aliases[i].names.name;
    return n;
}

bool cli_param_known(const char *name)
{
    int id;
    return llmmem_param_from_name(&id, name) == 0;
}

int cli_model_key_kind(const char *name)
{
    int n = llmmem_model_key_count();
    for (int i = 0; i < n; i++) {
        int key = llmmem_model_key_at(i);
        if (cli_name_is(name, llmmem_model_key_name(key)))
            return llmmem_model_key_value_kind(key);
    }
    return 0;
}

/* ---- engines ---------------------------------------------------------------------------------- */

/* The CLI's own names for an engine, beside the library's (llmmem_param_enum_name of
 * LLMMEM_P_ENGINE, which --engine takes as they are: a new engine needs no row here).
 * "deepspeed" is ZeRO-2 as gpu-mem-calculator's quick command has it (cli/main.py:
 * zero_stage=2 if engine == "deepspeed"). */
static const cli_engine aliases[] = {
    {{"pytorch", NULL}, "ddp", -1},    {{"zero0", NULL}, "zero", 0}, {{"zero1", NULL}, "zero", 1},
    {{"zero2", "deepspeed"}, "zero", 2}, {{"zero3", NULL}, "zero", 3},
};
#define NALIASES (int)(sizeof aliases / sizeof aliases[0])
#define MAX_ENGINES 32

const cli_engine *cli_engine_find(const char *cmd, const char *written)
{
    static cli_engine found; /* a library engine's row (the CLI is single-threaded) */
    char name[64];
    cli_normalize(name, sizeof name, written);
    for (char *c = name; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    const char *names[MAX_ENGINES + 2 * NALIASES];
    int n = 0, count = llmmem_param_enum_count(LLMMEM_P_ENGINE);
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    for (int v = 0; v < count && n < MAX_ENGINES; v++) {
        const char *e = llmmem_param_enum_name(LLMMEM_P_ENGINE, v);
        if (!e)
            continue;
        if (cli_name_is(name, e)) {
            found = (cli_engine){{e, NULL}, e, -1};
            return &found;
        }
        names[n++] = e;
        used += (size_t)snprintf(list + used, used < sizeof list ? sizeof list - used : 0, "%s%s",
                                 v ? ", " : "", e);
    }
    int k = CLI_FIND(aliases, name);
    if (k >= 0)
        return &aliases[k];
    for (int i = 0; i < NALIASES; i++) {
        names[n++] = aliases[i].names.name;
        if (aliases[i].names.alias)
            names[n++] = aliases[i].names.alias;
    }
    char hint[96];
    cli_did_you_mean(hint, sizeof hint, "", cli_suggest(name, names, n));
    cli_usage_error("%s: --engine \"%s\"%s: one of %s; or pytorch (= ddp), zero0..zero3 (zero at that "
                    "stage), deepspeed (= zero2)",
                    cmd, written, hint, list);
}

/* The parameter flag that sets `id`, or NULL. */
static const cli_setting *param_flag(const cli_opts *o, int id)
{
    const cli_setting *found = NULL;
    for (int i = 0; i < o->nparams; i++) {
        int p;
        if (llmmem_param_from_name(&p, o->params[i].name) == 0 && p == id)
            found = &o->params[i];
    }
    return found;
}

/* --engine NAME: the engine and, for zero0..zero3 and deepspeed, the stage; a --zero-stage
 * that says otherwise is a contradiction. */
static void apply_engine(llmmem_config *cfg, const cli_opts *o, const char *cmd)
{
    const cli_engine *e = cli_engine_find(cmd, o->engine);
    int rc;
    if ((rc = llmmem_config_set(cfg, "engine", e->engine)) != 0)
        cli_fail_lib(rc, EXIT_USAGE, "--engine");
    if (e->stage < 0)
        return;
    const cli_setting *st = param_flag(o, LLMMEM_P_ZERO_STAGE);
    if (st && cli_value(cmd, st->flag, st->value, LLMMEM_VALUE_WHOLE) != e->stage)
        cli_usage_error("%s: --engine %s means ZeRO stage %d, but %s %s says otherwise", cmd,
                        o->engine, e->stage, st->flag, st->value);
    if ((rc = llmmem_config_set_i64(cfg, LLMMEM_P_ZERO_STAGE, e->stage)) != 0)
        cli_fail_lib(rc, EXIT_USAGE, "--engine");
}

/* --gpu-mem GB: the memory of one GPU in 1e9 bytes. */
static void apply_gpu_mem(llmmem_config *cfg, const cli_opts *o, const char *cmd)
{
    char *end;
    errno = 0;
    double gb = strtod(o->gpu_mem, &end);
    if (*end || end == o->gpu_mem || errno || !(gb > 0) || gb > 1e6)
        cli_usage_error("%s: --gpu-mem \"%s\": expected GB per GPU, like 80", cmd, o->gpu_mem);
    int rc = llmmem_config_set_i64(cfg, LLMMEM_P_GPU_MEMORY_BYTES, (int64_t)(gb * 1e9 + 0.5));
    if (rc)
        cli_fail_lib(rc, EXIT_USAGE, "--gpu-mem");
}

void cli_apply_params(llmmem_config *cfg, const cli_opts *o, const char *cmd)
{
    int rc;
    if (o->engine)
        apply_engine(cfg, o, cmd);
    if (o->gpus && (rc = llmmem_config_set_i64(cfg, LLMMEM_P_NUM_GPUS,
                                               cli_value(cmd, "--gpus", o->gpus, LLMMEM_VALUE_WHOLE))) != 0)
        cli_fail_lib(rc, EXIT_USAGE, "--gpus");
    if (o->gpu_mem)
        apply_gpu_mem(cfg, o, cmd);
    for (int i = 0; i < o->nparams; i++) {
        const cli_setting *s = &o->params[i];
        int id = -1;
        /* the value as the library reads it (llmmem_config_set), checked here first so
         * that the error names the flag */
        if (llmmem_param_from_name(&id, s->name) == 0 && llmmem_param_value_kind(id) > 0)
            (void)cli_value(cmd, s->flag, s->value, llmmem_param_value_kind(id));
        if ((rc = llmmem_config_set(cfg, s->name, s->value)) != 0) {
            char what[200];
            snprintf(what, sizeof what, "%.80s %.80s", s->flag, s->value);
            cli_fail_lib(rc, EXIT_USAGE, what);
        }
    }
}

/* ---- presets ------------------------------------------------------------------------------------ */

/* Letters and digits of a name, lower case ("Llama-3.1-8B" -> "llama318b"). */
static void alnum_key(char *out, size_t cap, const char *in)
{
    size_t o = 0;
    for (; *in && o + 1 < cap; in++) {
        char c = *in;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            out[o++] = c;
    }
    out[o] = '\0';
}

/* The preset a written name means: its name in any case, or the one preset whose letters
 * and digits match ("llama3-8b" = llama-3-8b); NULL when none. */
static const char *preset_match(const char *written)
{
    int n = llmmem_preset_count();
    char want[128], key[128];
    alnum_key(want, sizeof want, written);
    const char *match = NULL;
    int matches = 0;
    for (int i = 0; i < n; i++) {
        const char *name = llmmem_preset_name(i);
        if (strcasecmp(name, written) == 0)
            return name;
        alnum_key(key, sizeof key, name);
        if (want[0] && strcmp(key, want) == 0) {
            match = name;
            matches++;
        }
    }
    return matches == 1 ? match : NULL;
}

/* $NAME and ${NAME} replaced by their values where set (os.path.expandvars), after a leading
 * ~ is the home folder (os.path.expanduser). */
static void expand_path(char *out, size_t cap, const char *in)
{
    size_t o = 0;
    const char *home = getenv("HOME");
    if (in[0] == '~' && (in[1] == '/' || in[1] == '\0') && home) {
        o = (size_t)snprintf(out, cap, "%s", home);
        in++;
    }
    while (*in && o + 1 < cap) {
        const char *end = NULL;
        char var[256];
        size_t n = 0;
        if (in[0] == '$' && in[1] == '{' && (end = strchr(in + 2, '}')) != NULL && end > in + 2 &&
            (n = (size_t)(end - in - 2)) < sizeof var) {
            memcpy(var, in + 2, n);
            end++;
        } else if (in[0] == '$') {
            for (end = in + 1; (*end >= 'A' && *end <= 'Z') || (*end >= 'a' && *end <= 'z') ||
                               (*end >= '0' && *end <= '9') || *end == '_';
                 end++)
                ;
            n = (size_t)(end - in - 1);
            if (n >= sizeof var)
                n = 0;
            memcpy(var, in + 1, n);
        }
        var[n] = '\0';
        const char *v = n ? getenv(var) : NULL;
        if (v) {
            o += (size_t)snprintf(out + o, cap - o, "%s", v);
            in = end;
        } else {
            out[o++] = *in++;
        }
    }
    out[o < cap ? o : cap - 1] = '\0';
}

/* The Hugging Face cache folder, as huggingface_hub's constants.py decides it: $HF_HUB_CACHE,
 * else $HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub with HF_HOME defaulting to
 * $XDG_CACHE_HOME/huggingface, then ~/.cache/huggingface; "~" and $VARs expanded. */
const char *cli_hub_cache(void)
{
    static char dir[4096];
    char raw[4096];
    const char *v;
    if ((v = getenv("HF_HUB_CACHE")) != NULL || (v = getenv("HUGGINGFACE_HUB_CACHE")) != NULL) {
        expand_path(dir, sizeof dir, v);
        return dir;
    }
    if ((v = getenv("HF_HOME")) != NULL)
        snprintf(raw, sizeof raw, "%s", v);
    else if ((v = getenv("XDG_CACHE_HOME")) != NULL)
        snprintf(raw, sizeof raw, "%s/huggingface", v);
    else
        snprintf(raw, sizeof raw, "~/.cache/huggingface");
    char home[4096];
    expand_path(home, sizeof home, raw);
    snprintf(dir, sizeof dir, "%.4090s/hub", home);
    return dir;
}

/* --preset NAME (also --model): a preset (any case, or its letters and digits), else what
 * llmmem_model_from_pretrained finds: a Hugging Face id's preset or its config.json in the
 * local cache, or a local folder with a config.json. */
static int model_named(llmmem_model **m, const char *written)
{
    const char *preset = preset_match(written);
    return preset ? llmmem_model_from_preset(m, preset)
                  : llmmem_model_from_pretrained(m, written, cli_hub_cache());
}

/* ---- the model ------------------------------------------------------------------------------- */

static bool has_model_source(const cli_opts *o)
{
    return o->hf_config || o->gguf || o->preset || o->nmodel > 0;
}

/* A model from --hf-config, --preset or (raw numbers without a base) an empty one. */
static llmmem_model *new_model(const cli_opts *o, const char *cmd)
{
    llmmem_model *m = NULL;
    int rc;
    if (o->hf_config)
        rc = llmmem_model_from_hf_file(&m, o->hf_config);
    else if (o->gguf)
        rc = llmmem_model_from_gguf_file(&m, o->gguf);
    else if (o->preset)
        rc = model_named(&m, o->preset);
    else
        rc = llmmem_model_new(&m);
    if (rc && o->preset) {
        char what[160];
        snprintf(what, sizeof what, "%s \"%.100s\"", strcmp(cmd, "vllm") ? "--preset" : "vllm: MODEL",
                 o->preset);
        cli_fail_lib(rc, rc == LLMMEM_E_UNKNOWN_PARAM ? EXIT_USAGE : EXIT_FAIL, what);
    }
    if (rc)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    return m;
}

/* A raw-number flag's value, checked as the library reads it (llmmem_model_set: whole
 * numbers for the shape, token counts with k = 1024, a size such as 7B for
 * num_parameters) so that the error names the flag. */
static void check_model_value(const cli_setting *s, const char *cmd)
{
    int kind = cli_model_key_kind(s->name);
    if (kind > 0)
        (void)cli_value(cmd, s->flag, s->value, kind);
}

/* The model a framework YAML names (axolotl base_model, LLaMA-Factory model_name_or_path,
 * torchtune checkpointer/model), the first of the files that names one; NULL when none. */
static llmmem_model *yaml_model(const cli_opts *o)
{
    const struct {
        const char *path;
        int kind;
    } yaml[] = {{o->fw_config, LLMMEM_FW_AUTO}, {o->torchtune_config, LLMMEM_FW_TORCHTUNE},
                {o->axolotl_config, LLMMEM_FW_AXOLOTL}, {o->llamafactory_config, LLMMEM_FW_LLAMAFACTORY}};
    for (size_t i = 0; i < sizeof yaml / sizeof yaml[0]; i++) {
        llmmem_model *m = NULL;
        if (!yaml[i].path)
            continue;
        int rc = llmmem_model_from_framework_file(&m, yaml[i].kind, yaml[i].path, cli_hub_cache());
        if (rc == 0)
            return m;
        if (rc != LLMMEM_E_SCHEMA) /* a model named but not found */
            cli_fail_lib(rc, EXIT_FAIL, NULL);
    }
    return NULL;
}

/* The model flags over `base` (the scenario's model, or NULL); without either, the model
 * a framework YAML names. */
static llmmem_model *build_model(const cli_opts *o, llmmem_model *base, const char *cmd)
{
    if (!base && !o->hf_config && !o->gguf && !o->preset)
        base = yaml_model(o);
    llmmem_model *m = base;
    if (!!o->hf_config + !!o->gguf + !!o->preset > 1)
        cli_usage_error("%s: give --hf-config, --gguf or --preset, not both (one model source)", cmd);
    if (o->hf_config || o->gguf || o->preset || (o->nmodel > 0 && !base)) {
        llmmem_model_free(base);
        m = new_model(o, cmd);
    }
    for (int i = 0; i < o->nmodel; i++) {
        check_model_value(&o->model_set[i], cmd);
        int rc = llmmem_model_set(m, o->model_set[i].name, o->model_set[i].value);
        if (rc) {
            char what[160];
            snprintf(what, sizeof what, "%s %s", o->model_set[i].flag, o->model_set[i].value);
            cli_fail_lib(rc, EXIT_USAGE, what);
        }
    }
    if (!m)
        cli_usage_error("%s: no model: give --scenario, --hf-config FILE, --preset NAME (or a "
                        "Hugging Face id), a framework YAML that names one, or raw numbers "
                        "(--num-parameters 7B, --num-layers ..., --hidden-size ...)",
                        cmd);
    return m;
}

/* ---- framework files ------------------------------------------------------------------------- */

/* The framework files in their order: the accelerate config (engine, processes),
 * the recipe YAMLs, TrainingArguments, DeepSpeed, calibration. The library
 * reads each (regular files up to 64 MiB) and names the path in its errors. */
static void apply_files(llmmem_config *cfg, const llmmem_model *model, const cli_opts *o)
{
    int rc = 0;
    const char *path = NULL;
    const struct {
        const char *path;
        int kind;
    } yaml[] = {{o->accelerate_config, LLMMEM_FW_ACCELERATE}, {o->fw_config, LLMMEM_FW_AUTO},
                {o->torchtune_config, LLMMEM_FW_TORCHTUNE}, {o->axolotl_config, LLMMEM_FW_AXOLOTL},
                {o->llamafactory_config, LLMMEM_FW_LLAMAFACTORY}};
    for (size_t i = 0; !rc && i < sizeof yaml / sizeof yaml[0]; i++)
        if (yaml[i].path)
            rc = llmmem_config_apply_framework_file(cfg, model, yaml[i].kind, yaml[i].path);
    if (!rc && o->hf_args && (rc = llmmem_config_apply_hf_training_args_file(cfg, path = o->hf_args)) == 0)
        path = NULL;
    if (!rc && o->ds_config && (rc = llmmem_config_apply_deepspeed_file(cfg, model, path = o->ds_config)) == 0)
        path = NULL;
    if (!rc && o->calibration && (rc = llmmem_config_apply_calibration_file(cfg, path = o->calibration)) == 0)
        path = NULL;
    if (rc)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
}

/* ---- all inputs ------------------------------------------------------------------------------ */

void cli_build_inputs(llmmem_model **model, llmmem_config **cfg, const cli_opts *o,
                      const char *cmd)
{
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    int rc;
    if (o->scenario) {
        rc = llmmem_scenario_from_file_hub(has_model_source(o) ? NULL : &m, &c, o->scenario, cli_hub_cache());
        if (rc)
            cli_fail_lib(rc, EXIT_FAIL, NULL);
    } else if ((rc = llmmem_config_new(&c)) != 0) {
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    }
    m = build_model(o, m, cmd);
    apply_files(c, m, o);
    /* a GGUF file is llama.cpp's: inference with runtime llama_cpp unless said otherwise */
    if (o->gguf && !param_flag(o, LLMMEM_P_MODE) && (rc = llmmem_config_set(c, "mode", "inference")) != 0)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    if (o->gguf && !param_flag(o, LLMMEM_P_RUNTIME) &&
        (rc = llmmem_config_set(c, "runtime", "llama_cpp")) != 0)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    cli_apply_params(c, o, cmd);
    *model = m;
    *cfg = c;
}
