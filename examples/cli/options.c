/* The options of the CLI: the table of the CLI's own flags and the parser that reads argv
 * against it (names through lookup.c). Flags the table does not hold are model keys or
 * configuration parameters of the library (inputs.c says which). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const cli_names help_names[] = {{"--help", "-h"}};

bool cli_is_help(const char *arg)
{
    return CLI_FIND(help_names, arg) >= 0;
}

/* ---- the flag table ----------------------------------------------------------------------- */

/* How a flag takes its argument. */
enum flag_arg {
    ARG_SWITCH,      /* no value, or "--json=false": a bool as the library reads one */
    ARG_SWITCH_BARE, /* no value; "--max-batch=x" is a usage error */
    ARG_TEXT,        /* --name VALUE or --name=VALUE, kept as text */
    ARG_ENUM,        /* one of the flag's named values, kept as its number */
};

typedef struct flag_value {
    cli_names names;
    int value;
} flag_value;

static const flag_value units_values[] = {
    {{"GiB", "gib"}, UNITS_GIB},
    {{"GB", "gb"}, UNITS_GB},
    {{"both", NULL}, UNITS_BOTH},
};

/* A flag of the CLI's own. */
typedef struct cli_flag {
    cli_names names;          /* with '_' (either is written); shown with '-' */
    enum flag_arg arg;
    unsigned groups;          /* CLI_G_*: the commands that accept it */
    size_t field;             /* where its value goes: offsetof(cli_opts, ...) */
    const char *metavar;      /* its value in help texts */
    const char *help;         /* its help text; '\n' goes on at the help column */
    const flag_value *values; /* ARG_ENUM: the values, */
    size_t nvalues;
    const char *expected;     /* and what the usage error says it expected */
} cli_flag;

#define AT(field) offsetof(cli_opts, field)

/* Looked up before the library's model keys and parameters: --engine of quick is this
 * flag, on estimate the parameter. */
static const cli_flag flags[] = {
    {.names.name = "json", .arg = ARG_SWITCH, .groups = CLI_G_OUTPUT | CLI_G_JSON,
     .field = AT(json), .help = "the result as JSON (docs/json-schema.md)"},
    {.names.name = "explain", .arg = ARG_SWITCH, .groups = CLI_G_OUTPUT, .field = AT(explain),
     .help = "every term with its formula, source and bytes"},
    {.names.name = "max_batch", .arg = ARG_SWITCH_BARE, .groups = CLI_G_PLAN,
     .field = AT(max_batch),
     .help = "largest micro_batch_size (inference: batch_size; vllm:\n"
             "max_num_seqs) that fits"},
    {.names = {"max_seq_len", "max_ctx"}, .arg = ARG_SWITCH_BARE, .groups = CLI_G_PLAN,
     .field = AT(max_seq_len),
     .help = "longest seq_len (inference: prompt_len + decode_len; vllm:\n"
             "max_model_len; llama_cpp: ctx_size) that fits; also --max-ctx"},
    {.names.name = "max_ngl", .arg = ARG_SWITCH_BARE, .groups = CLI_G_PLAN, .field = AT(max_ngl),
     .help = "llama_cpp: the most layers on the GPU (-ngl) that fit"},
    {.names.name = "min_gpus", .arg = ARG_SWITCH_BARE, .groups = CLI_G_PLAN, .field = AT(min_gpus),
     .help = "fewest GPUs: data-parallel ranks x tp x pp x cp for training with\n"
             "the configured engine, tensor-parallel ranks for inference"},
    {.names.name = "scenario", .arg = ARG_TEXT, .groups = CLI_G_SCENARIO, .field = AT(scenario),
     .metavar = "FILE",
     .help = "scenario JSON (docs/config-format.md); gpu-mem-calculator\n"
             "config files load as they are"},
    {.names.name = "hf_config", .arg = ARG_TEXT, .groups = CLI_G_MODEL, .field = AT(hf_config),
     .metavar = "FILE", .help = "a HuggingFace config.json"},
    {.names.name = "gguf", .arg = ARG_TEXT, .groups = CLI_G_MODEL, .field = AT(gguf),
     .metavar = "FILE",
     .help = "a GGUF file (only its header is read); implies --mode inference\n"
             "--runtime llama_cpp unless they are given"},
    {.names = {"preset", "model"}, .arg = ARG_TEXT, .groups = CLI_G_MODEL, .field = AT(preset),
     .metavar = "NAME",
     .help = "a built-in model (llmmem presets), or a Hugging Face id (org/name):\n"
             "its preset, else its config.json in the local HF cache (HF_HUB_CACHE,\n"
             "HF_HOME/hub, ~/.cache/huggingface/hub); also --model"},
    {.names.name = "deepspeed_config", .arg = ARG_TEXT, .groups = CLI_G_FILES,
     .field = AT(ds_config), .metavar = "FILE",
     .help = "DeepSpeed ds_config.json (\"auto\" resolved as HF Trainer does)"},
    {.names.name = "hf_training_args", .arg = ARG_TEXT, .groups = CLI_G_FILES,
     .field = AT(hf_args), .metavar = "FILE",
     .help = "HF TrainingArguments JSON (also LLaMA-Factory keys)"},
    {.names.name = "framework_config", .arg = ARG_TEXT, .groups = CLI_G_FILES,
     .field = AT(fw_config), .metavar = "FILE",
     .help = "a framework YAML, its kind detected: torchtune recipe, axolotl,\n"
             "accelerate config or LLaMA-Factory"},
    {.names.name = "torchtune_config", .arg = ARG_TEXT, .groups = CLI_G_FILES,
     .field = AT(torchtune_config), .metavar = "FILE", .help = "a torchtune recipe config (YAML)"},
    {.names.name = "axolotl_config", .arg = ARG_TEXT, .groups = CLI_G_FILES,
     .field = AT(axolotl_config), .metavar = "FILE", .help = "an axolotl config (YAML)"},
    {.names.name = "accelerate_config", .arg = ARG_TEXT, .groups = CLI_G_FILES,
     .field = AT(accelerate_config), .metavar = "FILE", .help = "an accelerate config (YAML)"},
    {.names.name = "llamafactory_config", .arg = ARG_TEXT, .groups = CLI_G_FILES,
     .field = AT(llamafactory_config), .metavar = "FILE", .help = "a LLaMA-Factory training config (YAML)"},
    {.names.name = "calibration", .arg = ARG_TEXT, .groups = CLI_G_FILES,
     .field = AT(calibration), .metavar = "FILE",
     .help = "a calibration profile fitted from probe records\n"
             "(docs/calibration.md; default: none, the identity)"},
    {.names.name = "strict", .arg = ARG_SWITCH, .groups = CLI_G_STRICT, .field = AT(strict),
     .help = "exit 3 when the estimate is approximate (a model_type the\n"
             "registry does not know, a shape from a size alone, QLoRA,\n"
             "a precision no framework trains in)"},
    {.names.name = "svg", .arg = ARG_TEXT, .groups = CLI_G_SVG, .field = AT(svg),
     .metavar = "FILE", .help = "a stacked bar per phase with the GPU capacity line"},
    {.names.name = "units", .arg = ARG_ENUM, .groups = CLI_G_OUTPUT | CLI_G_UNITS, .field = AT(units),
     .metavar = "GiB|GB|both", .help = "units of the table (default both)",
     .values = units_values, .nvalues = sizeof units_values / sizeof units_values[0],
     .expected = "expected GiB, GB or both"},
    {.names.name = "top", .arg = ARG_TEXT, .groups = CLI_G_PLAN, .field = AT(top), .metavar = "K",
     .help = "layouts to print (1..64, default 10)"},
    {.names.name = "global_batch", .arg = ARG_TEXT, .groups = CLI_G_PLAN,
     .field = AT(global_batch), .metavar = "G",
     .help = "sequences per optimizer step (default: micro_batch_size x\n"
             "gradient_accumulation_steps x data-parallel GPUs, N / (tp x pp x cp))"},
    /* one name per concept on every command that takes parameters */
    {.names = {"gpus", "num_gpus"}, .arg = ARG_TEXT, .groups = CLI_G_PARAMS, .field = AT(gpus),
     .metavar = "N",
     .help = "GPUs (num_gpus; also --num-gpus): data parallel = N / (tp x pp x cp)\n"
             "unless --data-parallel-size is given"},
    {.names = {"gpu_mem", "gpu_memory_gb"}, .arg = ARG_TEXT, .groups = CLI_G_PARAMS,
     .field = AT(gpu_mem), .metavar = "GB",
     .help = "memory of one GPU in GB (1e9 bytes), instead of the --gpu table's"},
    {.names.name = "engine", .arg = ARG_TEXT, .groups = CLI_G_PARAMS, .field = AT(engine),
     .metavar = "ENGINE",
     .help = "single, ddp (= pytorch), zero (stage from --zero-stage), zero0..zero3,\n"
             "deepspeed (= zero2), fsdp, megatron, megatron_deepspeed"},
};

/* "--name" of a flag as help texts and errors show it: '_' -> '-'. */
static void flag_shown(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "--%s", name);
    for (char *c = out + 2; *c; c++)
        if (*c == '_')
            *c = '-';
}

void cli_flag_doc(char *flag, size_t cap, const char **help, const char *name)
{
    int k = CLI_FIND(flags, name);
    char shown[64];
    flag_shown(shown, sizeof shown, name);
    if (k < 0 || !flags[k].metavar)
        snprintf(flag, cap, "%s", shown);
    else
        snprintf(flag, cap, "%s %s", shown, flags[k].metavar);
    *help = k < 0 ? "" : flags[k].help;
}

/* ---- the parser ----------------------------------------------------------------------------- */

typedef struct parser {
    cli_opts *o;
    int argc, i;
    char **argv;
    unsigned accepts;
    const char *cmd;
    const char *arg; /* argv[i] */
    const char *eq;  /* its '=', or NULL */
    char raw[64];    /* the flag's name as written, between "--" and '=' */
    char name[64];   /* raw with '-' -> '_' */
} parser;

static void add_positional(parser *p)
{
    cli_opts *o = p->o;
    if (o->npositional >= (int)(sizeof o->positional / sizeof o->positional[0]))
        cli_usage_error("%s: unexpected argument \"%s\"", p->cmd, p->arg);
    o->positional[o->npositional++] = p->arg;
}

/* Splits "--name" or "--name=value"; a name of 64 characters or more is unknown. */
static void split_flag(parser *p)
{
    p->eq = strchr(p->arg, '=');
    size_t nlen = p->eq ? (size_t)(p->eq - p->arg - 2) : strlen(p->arg + 2);
    if (nlen >= sizeof p->name)
        cli_fail_msg(LLMMEM_E_UNKNOWN_PARAM, EXIT_USAGE, "%s: unknown option \"%.80s\"", p->cmd,
                     p->arg);
    memcpy(p->raw, p->arg + 2, nlen);
    p->raw[nlen] = '\0';
    cli_normalize(p->name, sizeof p->name, p->raw);
}

/* The flag's value: after '=', else the next argument. */
static const char *take_value(parser *p)
{
    if (p->eq)
        return p->eq + 1;
    if (p->i + 1 >= p->argc)
        cli_usage_error("%s: option \"--%s\" needs a value", p->cmd, p->raw);
    return p->argv[++p->i];
}

static int enum_value(const parser *p, const cli_flag *f, const char *value)
{
    int k = cli_find(f->values, f->nvalues, sizeof f->values[0], value);
    if (k < 0) {
        char shown[64], hint[96];
        const char *names[16];
        int n = 0;
        for (size_t i = 0; i < f->nvalues && n < 16; i++)
            names[n++] = f->values[i].names.name;
        cli_did_you_mean(hint, sizeof hint, "", cli_suggest(value, names, n));
        flag_shown(shown, sizeof shown, f->names.name);
        cli_usage_error("%s: %s \"%s\"%s: %s", p->cmd, shown, value, hint, f->expected);
    }
    return f->values[k].value;
}

static void set_flag(parser *p, const cli_flag *f)
{
    char *dst = (char *)p->o + f->field;
    if (f->arg == ARG_SWITCH_BARE && p->eq)
        cli_usage_error("%s: --%s takes no value", p->cmd, p->raw);
    if (f->arg == ARG_SWITCH || f->arg == ARG_SWITCH_BARE) {
        /* "--json=false" turns it off: the value read as llmmem_parse_value reads a bool */
        char shown[80];
        snprintf(shown, sizeof shown, "--%s", p->raw);
        *(bool *)(void *)dst = p->eq ? cli_value(p->cmd, shown, p->eq + 1, LLMMEM_VALUE_BOOL) != 0 : true;
        return;
    }
    const char *value = take_value(p);
    if (f->arg == ARG_TEXT)
        *(const char **)(void *)dst = value;
    else
        *(int *)(void *)dst = enum_value(p, f, value);
}

static void add_setting(parser *p, cli_setting *list, int *n, const char *name, const char *value)
{
    if (*n >= CLI_MAX_SETTINGS)
        cli_usage_error("%s: too many options", p->cmd);
    cli_setting *s = &list[(*n)++];
    s->flag = p->arg;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->value = value;
}

/* The flag of this command nearest to an unknown one: its own flags, the model keys
 * and the parameters (whichever it takes). */
static const char *nearest_flag(const parser *p)
{
    static const char *names[512];
    int n = 0;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (flags[i].groups & p->accepts)
            names[n++] = flags[i].names.name;
    if (p->accepts & CLI_G_MODEL)
        n += cli_model_key_names(names + n, 128);
    if (p->accepts & CLI_G_PARAMS)
        for (int i = 0; i < llmmem_param_count() && n < 512; i++)
            names[n++] = llmmem_param_name(llmmem_param_at(i));
    return cli_suggest(p->name, names, n);
}

/* A model key (raw numbers), else a configuration parameter, else an unknown option. */
static void set_library_flag(parser *p)
{
    cli_opts *o = p->o;
    const char *key = (p->accepts & CLI_G_MODEL) ? cli_model_key(p->name) : NULL;
    if (key) {
        const char *value = take_value(p);
        add_setting(p, o->model_set, &o->nmodel, key, value);
        return;
    }
    if (!(p->accepts & CLI_G_PARAMS) || !cli_param_known(p->name)) {
        char hint[120];
        cli_did_you_mean(hint, sizeof hint, "--", nearest_flag(p));
        cli_fail_msg(LLMMEM_E_UNKNOWN_PARAM, EXIT_USAGE,
                     "%s: unknown option \"--%s\"%s; see llmmem %s --help", p->cmd, p->raw, hint,
                     p->cmd);
    }
    const char *value = take_value(p);
    add_setting(p, o->params, &o->nparams, p->name, value);
}

void cli_parse(cli_opts *o, int argc, char **argv, unsigned accepts, const char *cmd)
{
    memset(o, 0, sizeof *o);
    parser p = {.o = o, .argc = argc, .argv = argv, .accepts = accepts, .cmd = cmd};
    for (p.i = 0; p.i < argc; p.i++) {
        p.arg = argv[p.i];
        if (cli_is_help(p.arg)) {
            o->help = true;
        } else if (strncmp(p.arg, "--", 2) != 0 || p.arg[2] == '\0') {
            add_positional(&p);
        } else {
            split_flag(&p);
            int k = CLI_FIND(flags, p.name);
            if (k >= 0 && (flags[k].groups & accepts))
                set_flag(&p, &flags[k]);
            else
                set_library_flag(&p);
        }
    }
}

void cli_need_no_positional(const cli_opts *o, const char *cmd)
{
    if (o->npositional > 0)
        cli_usage_error("%s: unexpected argument \"%s\"", cmd, o->positional[0]);
}
