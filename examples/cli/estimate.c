/* llmmem estimate and llmmem explain: the per-GPU memory of a scenario, as a table (with
 * every term for explain), JSON or SVG. */
#include "cli.h"

#include <string.h>

static const cli_help_line estimate_help_flags[] = {
    {.flag = "scenario"},
    {.text = "Model (replaces the scenario's model):\n"},
    {.flag = "hf_config"},
    {.flag = "preset"},
    {.text = "  --num-parameters 7B      raw numbers; also --num-layers, --hidden-size, "
             "--num-heads,\n"
             "                           --num-kv-heads, --head-dim, --intermediate-size, "
             "--vocab-size, ...\n"},
    {.text = "GPUs and engine (every command that takes parameters):\n"},
    {.text = "  --gpu NAME               the GPU (llmmem gpus): H100-80GB, h200, \"NVIDIA "
             "A100-SXM4-80GB\", ...\n"},
    {.flag = "gpus"},
    {.flag = "gpu_mem"},
    {.flag = "engine"},
    {.text = "Framework files (applied after the scenario, before the parameter flags):\n"},
    {.flag = "framework_config"},
    {.flag = "torchtune_config"},
    {.flag = "axolotl_config"},
    {.flag = "accelerate_config"},
    {.flag = "llamafactory_config"},
    {.flag = "hf_training_args"},
    {.flag = "deepspeed_config"},
    {.flag = "calibration"},
    {.text = "Output:\n"},
    {.flag = "json"},
    {.flag = "explain"},
    {.flag = "units"},
    {.flag = "svg"},
    {.flag = "strict"},
    {0},
};
const cli_help cli_help_estimate = {
    "usage: llmmem estimate [--scenario FILE] [model] [files] [--PARAM VALUE ...]\n"
    "                       [--json] [--explain] [--units GiB|GB|both] [--svg FILE] [--strict]\n"
    "\n"
    "Estimates the per-GPU memory of a training step or an inference run.\n"
    "Integer flags take whole numbers (e-notation for large counts: 5e8); token counts\n"
    "(--seq-len, --prompt-len, --decode-len, --max-model-len, ...) also take k = 1024:\n"
    "4k = 4096, 128k = 131072. Parameter counts (--num-parameters) take B = 1e9, M = 1e6.\n"
    "\n",
    27, estimate_help_flags};

const cli_help cli_help_explain = {
    "usage: llmmem explain [same options as estimate]\n"
    "\n"
    "Same as llmmem estimate --explain: the table, then each term of the estimate with\n"
    "its formula, its source and its bytes.\n",
    0, NULL};

static int result_json(char *buf, size_t cap, size_t *need, const void *r)
{
    return llmmem_result_to_json(buf, cap, need, r);
}

int cli_estimate_print(llmmem_model *m, llmmem_config *cfg, const cli_opts *o)
{
    llmmem_result *r = NULL;
    int rc = llmmem_result_new(&r);
    if (rc)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    rc = llmmem_estimate(r, m, cfg);
    if (rc)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    if (o->svg) {
        char title[512], settings[CLI_MAX_ITEMS * (CLI_ITEM_MAX + 2) + 260] = "";
        char items[CLI_MAX_ITEMS][CLI_ITEM_MAX];
        int n = cli_settings(items, CLI_MAX_ITEMS, r, cfg);
        for (int i = 0; i < n; i++) {
            strcat(settings, i ? ", " : "");
            strcat(settings, items[i]);
        }
        char prec[256];
        if (cli_precision(prec, sizeof prec, r)[0]) {
            strcat(settings, "; ");
            strcat(settings, prec);
        }
        cli_verdict(title, sizeof title, r, m, cfg, o->units == UNITS_BOTH ? UNITS_GIB : o->units);
        cli_write_svg(o->svg, r, title, settings, o->units);
    }
    if (o->json) {
        cli_print_json(result_json, r, false);
    } else {
        cli_print_table(r, m, cfg, o->units);
        if (o->explain)
            cli_print_terms(r, o->units);
    }
    /* --strict: the output stands, and the exit status says it is approximate */
    const bool refused = o->strict && cli_result_i64(r, LLMMEM_R_APPROXIMATE);
    llmmem_result_free(r);
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    if (refused) {
        fprintf(stderr, "llmmem: the estimate is approximate (see the notes) and --strict was given\n");
        return EXIT_APPROXIMATE;
    }
    return 0;
}

int cli_run_estimate(cli_opts *o)
{
    llmmem_model *m;
    llmmem_config *cfg;
    cli_build_inputs(&m, &cfg, o, "estimate");
    return cli_estimate_print(m, cfg, o);
}

int cli_run_explain(cli_opts *o)
{
    llmmem_model *m;
    llmmem_config *cfg;
    o->explain = true;
    cli_build_inputs(&m, &cfg, o, "explain");
    return cli_estimate_print(m, cfg, o);
}
