/* Where flags meet the library: model keys and their CLI spellings, configuration
 * parameters, the framework files, the engines of llmmem quick, and the order in which a
 * command's inputs are applied (scenario, model flags, framework files, parameter flags). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

bool cli_param_known(const char *name)
{
    int id;
    return llmmem_param_from_name(&id, name) == 0;
}

void cli_apply_params(llmmem_config *cfg, const cli_opts *o)
{
    for (int i = 0; i < o->nparams; i++) {
        int rc = llmmem_config_set(cfg, o->params[i].name, o->params[i].value);
        if (rc) {
            char what[200];
            snprintf(what, sizeof what, "%.80s %.80s", o->params[i].flag, o->params[i].value);
            cli_fail_lib(rc, EXIT_USAGE, what);
        }
    }
}

/* ---- the engines of llmmem quick ------------------------------------------------------------ */

static const cli_engine engines[] = {
    {{"single", NULL}, "single", -1},
    {{"ddp", NULL}, "ddp", -1},
    {{"zero", NULL}, "zero", 2},
    {{"zero0", NULL}, "zero", 0},
    {{"zero1", NULL}, "zero", 1},
    {{"zero2", NULL}, "zero", 2},
    {{"zero3", "deepspeed"}, "zero", 3},
    {{"fsdp", NULL}, "fsdp", -1},
    {{"megatron", NULL}, "megatron", -1},
    {{"megatron_deepspeed", NULL}, "megatron_deepspeed", 1},
};

const cli_engine *cli_engine_find(const char *written)
{
    char name[64];
    cli_normalize(name, sizeof name, written);
    int k = CLI_FIND(engines, name);
    return k < 0 ? NULL : &engines[k];
}

/* ---- the model ------------------------------------------------------------------------------- */

static bool has_model_source(const cli_opts *o)
{
    return o->hf_config || o->preset || o->nmodel > 0;
}

/* A model from --hf-config, --preset or (raw numbers without a base) an empty one. */
static llmmem_model *new_model(const cli_opts *o)
{
    llmmem_model *m = NULL;
    int rc;
    if (o->hf_config)
        rc = llmmem_model_from_hf_file(&m, o->hf_config);
    else if (o->preset)
        rc = llmmem_model_from_preset(&m, o->preset);
    else
        rc = llmmem_model_new(&m);
    if (rc)
        cli_fail_lib(rc, o->preset && rc == LLMMEM_E_UNKNOWN_PARAM ? EXIT_USAGE : EXIT_FAIL,
                     o->preset ? "--preset" : NULL);
    return m;
}

/* The model flags over `base` (the scenario's model, or NULL). */
static llmmem_model *build_model(const cli_opts *o, llmmem_model *base, const char *cmd)
{
    llmmem_model *m = base;
    if (o->hf_config && o->preset)
        cli_usage_error("%s: give --hf-config or --preset, not both", cmd);
    if (o->hf_config || o->preset || (o->nmodel > 0 && !base)) {
        llmmem_model_free(base);
        m = new_model(o);
    }
    for (int i = 0; i < o->nmodel; i++) {
        int rc = llmmem_model_set(m, o->model_set[i].name, o->model_set[i].value);
        if (rc) {
            char what[160];
            snprintf(what, sizeof what, "%s %s", o->model_set[i].flag, o->model_set[i].value);
            cli_fail_lib(rc, EXIT_USAGE, what);
        }
    }
    if (!m)
        cli_usage_error("%s: no model: give --scenario, --hf-config FILE, --preset NAME or raw "
                        "numbers (--num-parameters 7B, --num-layers ..., --hidden-size ...)",
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
        rc = llmmem_scenario_from_file(has_model_source(o) ? NULL : &m, &c, o->scenario);
        if (rc)
            cli_fail_lib(rc, EXIT_FAIL, NULL);
    } else if ((rc = llmmem_config_new(&c)) != 0) {
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    }
    m = build_model(o, m, cmd);
    apply_files(c, m, o);
    cli_apply_params(c, o);
    *model = m;
    *cfg = c;
}
