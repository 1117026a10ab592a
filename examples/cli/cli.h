/* llmmem: command-line front end of libllmmem (built as examples/llmmem).
 *
 *   llmmem estimate --scenario FILE [--json] [--explain] [--units GiB|GB] [--svg FILE]
 *   llmmem model (--hf-config FILE | --preset NAME | raw numbers) [--json]
 *   llmmem quick SIZE --gpus N --gpu-mem GB --engine E
 *   llmmem plan (--scenario FILE | model) --gpus N [--top K] [--json]
 *   llmmem plan ... --max-batch | --max-seq-len | --min-gpus
 *   llmmem validate FILE | presets | gpus | params | explain ... | --version
 *
 * Uses only the public API (include/llmmem.h). Parameter flags are generated from the
 * library's parameter table at run time. Errors: one line on stderr,
 * "llmmem: LLMMEM_E_XXX: message"; exit status 2 for usage errors, 1 otherwise.
 *
 * Files: main.c (the commands and the dispatcher), lookup.c (the one name lookup and the one
 * reader of numbers in flags), options.c (the table of the CLI's own flags, the parser),
 * inputs.c (flags -> model, configuration and framework files: where flags meet library
 * parameters), help.c, errors.c, format.c (numbers and bytes as text, JSON out, a
 * configuration's integers), table.c (the estimate table), svg.c, and one file per
 * command: estimate.c (estimate, explain), model.c, quick.c, plan.c, plan_table.c,
 * validate.c, presets.c, gpus.c, params.c.
 * A new flag is a row of flags[] in options.c (its value goes to a field of cli_opts; a
 * command's help lists it by name); a new command is a file and a row of commands[] in
 * main.c. Every written name is looked up through cli_find / cli_name_is, and an unknown
 * flag is reported in one place (set_library_flag in options.c). */
#ifndef LLMMEM_CLI_H
#define LLMMEM_CLI_H

#include "llmmem.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__) || defined(__clang__)
#define LLMMEM_PRINTF_CLI(f, a) __attribute__((format(printf, f, a)))
#else
#define LLMMEM_PRINTF_CLI(f, a)
#endif

#define EXIT_USAGE 2
#define EXIT_FAIL 1
#define EXIT_APPROXIMATE 3 /* --strict with an approximate model */
#define CLI_MAX_SETTINGS 256

/* ---- errors.c ------------------------------------------------------------------------ */

/* Prints "llmmem: STATUS: message" (one line) and exits with exit_code. */
_Noreturn void cli_fail_msg(int status, int exit_code, const char *fmt, ...);
/* The library's last error (or rc's text), prefixed with `what` when given; exits. */
_Noreturn void cli_fail_lib(int rc, int exit_code, const char *what);
#define cli_usage_error(...) cli_fail_msg(LLMMEM_E_INVALID_ARG, EXIT_USAGE, __VA_ARGS__)

/* ---- lookup.c: names -------------------------------------------------------------------- */

/* The head of every row the CLI looks up by a written name (flags, their values, engines,
 * model-key aliases, commands): its name and another spelling, or NULL. */
typedef struct cli_names {
    const char *name, *alias;
} cli_names;

/* The one name lookup of the CLI: the index of the first of n rows (each `size` bytes,
 * starting with a cli_names) whose name or alias is `written`, or -1. */
int cli_find(const void *rows, size_t n, size_t size, const char *written);
#define CLI_FIND(rows, written)                                                                  \
    cli_find((rows), sizeof(rows) / sizeof((rows)[0]), sizeof((rows)[0]), (written))
/* Whether a written name is `name`: the one comparison behind every lookup. */
bool cli_name_is(const char *written, const char *name);
/* in with '-' -> '_' (flag and engine names are written either way). */
void cli_normalize(char *out, size_t cap, const char *in);
/* The name of `names` nearest to `written` (edit distance, case, '-' and '_' ignored;
 * or the only one it begins), NULL if none is near. */
const char *cli_suggest(const char *written, const char *const *names, int n);
/* " (did you mean PREFIXname?)" ('_' shown as '-' when prefix is "--"), "" for NULL. */
void cli_did_you_mean(char *out, size_t cap, const char *prefix, const char *name);

/* ---- options.c: the flag table, the parser --------------------------------------------- */

/* "--help" or "-h". */
bool cli_is_help(const char *arg);

enum cli_units { UNITS_BOTH, UNITS_GIB, UNITS_GB };

/* Groups of flags; a command accepts the groups of its row in main.c. */
enum {
    CLI_G_SCENARIO = 1 << 0,
    CLI_G_MODEL = 1 << 1,  /* --hf-config, --preset, raw numbers */
    CLI_G_FILES = 1 << 2,  /* --deepspeed-config, --hf-training-args, --calibration, YAML configs */
    CLI_G_OUTPUT = 1 << 3, /* --json, --explain, --units */
    CLI_G_JSON = 1 << 4,   /* --json only */
    CLI_G_PARAMS = 1 << 5, /* --<parameter>, and --gpus, --gpu-mem, --engine */
    CLI_G_QUICK = 1 << 6,  /* llmmem quick (no flags of its own beyond CLI_G_PARAMS) */
    CLI_G_PLAN = 1 << 7,   /* --top, --global-batch, --max-batch, --max-seq-len,
                              --min-gpus */
    CLI_G_SVG = 1 << 8,    /* --svg */
    CLI_G_STRICT = 1 << 9, /* --strict: an approximate model is an error */
    CLI_G_UNITS = 1 << 10, /* --units alone (plan's table) */
};

/* A model key or parameter flag as given. */
typedef struct cli_setting {
    const char *flag; /* as written */
    char name[64];    /* the library's name */
    const char *value;
} cli_setting;

typedef struct cli_opts {
    const char *scenario, *hf_config, *gguf, *preset, *ds_config, *hf_args, *svg;
    const char *calibration;
    /* framework YAML files: accelerate, then the recipe (auto-detected or named) */
    const char *fw_config, *torchtune_config, *axolotl_config, *accelerate_config, *llamafactory_config;
    bool json, explain, help, strict;
    int units; /* enum cli_units */
    const char *positional[4];
    int npositional;
    cli_setting model_set[CLI_MAX_SETTINGS];
    int nmodel;
    cli_setting params[CLI_MAX_SETTINGS];
    int nparams;
    const char *gpus, *gpu_mem, *engine;
    const char *top, *global_batch;
    bool max_batch, max_seq_len, min_gpus, max_ngl;
} cli_opts;

/* Parses argv (after the command) into o; flags outside `accepts` (CLI_G_*) are unknown.
 * Usage errors exit. */
void cli_parse(cli_opts *o, int argc, char **argv, unsigned accepts, const char *cmd);
/* An integer flag value in lo..hi (read by llmmem_parse_value as a whole number), or a
 * usage error naming cmd and flag (lookup.c, as cli_value). */
long long cli_parse_count(const char *cmd, const char *flag, const char *value, long long lo,
                          long long hi);
/* A flag's value read as the library reads text of that llmmem_value_kind
 * (llmmem_parse_value); a usage error naming cmd and flag when it is not one. */
int64_t cli_value(const char *cmd, const char *flag, const char *value, int kind);
/* A usage error when o has positional arguments. */
void cli_need_no_positional(const cli_opts *o, const char *cmd);

/* ---- help.c ---------------------------------------------------------------------------- */

/* One piece of a command's help: text as it is, or a flag of the table shown as
 * "  --name METAVAR" and its help text (the command's own wording when help is set). */
typedef struct cli_help_line {
    const char *text, *flag, *help;
} cli_help_line;

typedef struct cli_help {
    const char *text;           /* usage and description */
    int column;                 /* where the flags' help texts start */
    const cli_help_line *lines; /* then these, or NULL; the last is {0} */
} cli_help;

void cli_help_print(FILE *out, const cli_help *h);
/* The flag's "--name METAVAR" and help text of the table, for help.c. */
void cli_flag_doc(char *flag, size_t cap, const char **help, const char *name);
/* "Parameter flags ...": every parameter of the library as a flag. */
void cli_print_param_flags(FILE *out);

/* ---- inputs.c: flags -> library --------------------------------------------------------- */

/* The library name of a settable model key written as a flag (normalized), or NULL. */
const char *cli_model_key(const char *name);
/* The flag spellings of the settable model keys, at most cap of them; their count. */
int cli_model_key_names(const char **out, int cap);
/* Whether a normalized flag name is a configuration parameter of the library. */
bool cli_param_known(const char *name);
/* Sets --engine, --gpus, --gpu-mem, then the parameter flags of o on cfg; cmd names the
 * command in errors. */
void cli_apply_params(llmmem_config *cfg, const cli_opts *o, const char *cmd);
/* Scenario, then model flags, then framework files, then parameter flags. */
void cli_build_inputs(llmmem_model **model, llmmem_config **cfg, const cli_opts *o,
                      const char *cmd);

/* An --engine name: the library engine and ZeRO stage (-1: left as configured). */
typedef struct cli_engine {
    cli_names names;
    const char *engine;
    int stage;
} cli_engine;
/* The row of a written --engine (case, '-' or '_' alike), or a usage error naming cmd. */
const cli_engine *cli_engine_find(const char *cmd, const char *written);
/* The Hugging Face cache folder huggingface_hub would use (HF_HUB_CACHE, HF_HOME, ...). */
const char *cli_hub_cache(void);
/* The llmmem_value_kind of a model key's text (num_parameters a size, ...), 0 if none. */
int cli_model_key_kind(const char *name);

/* ---- format.c -------------------------------------------------------------------------- */

/* 1234567 -> "1,234,567" */
const char *cli_group(char *buf, size_t cap, long long v);
/* Bytes in the chosen units; both when they differ. */
const char *cli_fmt_bytes(char *buf, size_t cap, uint64_t bytes, enum cli_units units);
/* A bar of `width` characters, '#' for v's share of max. */
void cli_bar(FILE *out, uint64_t v, uint64_t max, int width);
/* s as a JSON string. */
void cli_json_str(const char *s);
/* An object's JSON (llmmem_*_to_json through `to_json`) on stdout, ending with a newline
 * (one more when always_newline). */
typedef int (*cli_to_json)(char *buf, size_t cap, size_t *need, const void *obj);
void cli_print_json(cli_to_json to_json, const void *obj, bool always_newline);

/* ---- table.c, svg.c -------------------------------------------------------------------- */

void cli_print_table(const llmmem_result *r, const llmmem_model *m, const llmmem_config *cfg,
                     enum cli_units u);
/* --explain: the inputs of the formulas and every term. */
void cli_print_terms(const llmmem_result *r, enum cli_units u);
/* The settings of an estimate as short items ("training", "seq_len 2,048 tokens", ...), the
 * first lines of the table and the subtitle of the SVG; their count. */
#define CLI_ITEM_MAX 96
#define CLI_MAX_ITEMS 16
int cli_settings(char (*items)[CLI_ITEM_MAX], int max, const llmmem_result *r,
                 const llmmem_config *cfg);
/* The precision the estimate assumed, every "auto" resolved by the engine ("bf16 weights,
 * bf16 compute, fp32 masters, fp32 grads, fp32 optimizer state"); "" for inference. */
const char *cli_precision(char *buf, size_t cap, const llmmem_result *r);
/* "llama-3.1-8b: does NOT fit, 81.2 GiB of 79.2 GiB per H100-80GB GPU (2.0 GiB short)" */
void cli_print_approximate(const llmmem_result *r);
void cli_verdict(char *buf, size_t cap, const llmmem_result *r, const llmmem_model *m,
                 const llmmem_config *cfg, enum cli_units u);
/* The chart of the verdict (svg.c): title, settings line, sizes in `units`. */
void cli_write_svg(const char *path, const llmmem_result *r, const char *title,
                   const char *settings, enum cli_units units);
/* A result value; 0 when the key does not apply. */
uint64_t cli_result_u64(const llmmem_result *r, int key);
int64_t cli_result_i64(const llmmem_result *r, int key);

/* ---- commands ---------------------------------------------------------------------------- */

/* Estimates and prints (table, terms, JSON, SVG as o asks); frees m and cfg. */
int cli_estimate_print(llmmem_model *m, llmmem_config *cfg, const cli_opts *o);
/* A configuration integer (format.c); 0 when unreadable. */
int64_t cli_cfg_i64(const llmmem_config *cfg, int param);
/* The table of a plan's layouts. */
void cli_print_plan_table(const llmmem_plan *p, const llmmem_model *m, const llmmem_config *cfg,
                          enum cli_units units);

int cli_run_estimate(cli_opts *o);
int cli_run_explain(cli_opts *o);
int cli_run_model(cli_opts *o);
int cli_run_quick(cli_opts *o);
int cli_run_plan(cli_opts *o);
int cli_run_validate(cli_opts *o);
int cli_run_presets(cli_opts *o);
int cli_run_architectures(cli_opts *o);
int cli_run_gpus(cli_opts *o);
int cli_run_params(cli_opts *o);
/* llmmem vllm: reads vLLM's own flags (vllm.c). */
int cli_run_vllm(int argc, char **argv);
int cli_run_timeline(cli_opts *o); /* timeline.c */
extern const cli_help cli_help_timeline;

extern const cli_help cli_help_estimate, cli_help_explain, cli_help_model, cli_help_quick,
    cli_help_plan, cli_help_validate, cli_help_presets, cli_help_gpus, cli_help_params,
    cli_help_vllm, cli_help_architectures;

#endif
