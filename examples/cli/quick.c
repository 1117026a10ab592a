/* llmmem quick SIZE: training of a model known only by its size, with --gpus, --gpu-mem
 * and --engine as gpu-mem-calculator takes them (every command takes them too). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const cli_help_line quick_help_flags[] = {
    {.flag = "gpus"},
    {.flag = "gpu_mem"},
    {.flag = "engine"},
    {.text = "Output options as for llmmem estimate (--json, --explain, --units, --svg, --strict;\n"
             "a shape from a size alone is approximate, so --strict always exits 3).\n"},
    {0},
};
const cli_help cli_help_quick = {
    "usage: llmmem quick SIZE [--gpus N] [--gpu-mem GB] [--engine ENGINE] [--PARAM VALUE ...]\n"
    "                   [--json] [--explain] [--units GiB|GB|both] [--svg FILE] [--strict]\n"
    "\n"
    "Estimates training of a model known only by its size (\"7B\", \"770M\", \"1.5e9\"; B = 1e9,\n"
    "M = 1e6; a bare number below 10000 means billions, as in gpu-mem-calculator). The shape\n"
    "is derived from the size (heads a multiple of 8, so tensor-parallel sizes 2, 4 and 8\n"
    "divide them). Engine by default: megatron when --tensor/--pipeline/--context-parallel-size\n"
    "is above 1, else ddp on several GPUs, else single. With --engine megatron (or\n"
    "megatron_deepspeed) on several GPUs and no parallel size given, the layout is the\n"
    "planner's: the fastest layout of that engine on those GPUs that fits (llmmem plan),\n"
    "its TP x PP x DP, micro-batch, accumulation and recompute, said on a Layout line.\n"
    "Example: llmmem quick 7B --gpus 8 --gpu-mem 80 --engine zero3\n"
    "\n",
    27, quick_help_flags};

/* SIZE parameters; gpu-mem-calculator: a bare number below 10000 ("7") is 7B. */
static void quick_size(llmmem_model *m, const char *size)
{
    char sizebuf[64];
    char *end;
    if (strpbrk(size, ",_ '"))
        cli_fail_msg(LLMMEM_E_PARSE, EXIT_USAGE,
                     "quick: SIZE \"%s\": separators are not read; write 7B, 770M or 1.5e9", size);
    double plain = strtod(size, &end);
    if (*end == '\0' && end != size && plain > 0 && plain < 10000) {
        snprintf(sizebuf, sizeof sizebuf, "%sB", size);
        size = sizebuf;
    }
    int rc = llmmem_model_set(m, "num_parameters", size);
    if (rc)
        cli_fail_lib(rc, EXIT_USAGE, "quick SIZE");
}

/* Without --engine: megatron when a model-parallel size is above 1, else ddp on several
 * GPUs, else single. */
static void quick_default_engine(llmmem_config *cfg)
{
    int64_t gpus = cli_cfg_i64(cfg, LLMMEM_P_NUM_GPUS), dp = cli_cfg_i64(cfg, LLMMEM_P_DATA_PARALLEL);
    int64_t mp = cli_cfg_i64(cfg, LLMMEM_P_TENSOR_PARALLEL) *
                 cli_cfg_i64(cfg, LLMMEM_P_PIPELINE_PARALLEL) *
                 cli_cfg_i64(cfg, LLMMEM_P_CONTEXT_PARALLEL);
    const char *e = mp > 1 ? "megatron" : (gpus > 1 || dp > 1) ? "ddp" : "single";
    int rc = llmmem_config_set(cfg, "engine", e);
    if (rc)
        cli_fail_lib(rc, EXIT_USAGE, "quick");
}

/* Megatron on N GPUs with no parallel size given: the planner's fastest layout of that
 * engine that fits (the global batch micro-batch x accumulation x N, as llmmem plan keeps
 * it), instead of TP 1 x PP 1. Said on a Layout line (stderr beside JSON). */
static void quick_megatron_layout(llmmem_model *m, llmmem_config **cfg, const cli_opts *o)
{
    const int64_t engine = cli_cfg_i64(*cfg, LLMMEM_P_ENGINE), n = cli_cfg_i64(*cfg, LLMMEM_P_NUM_GPUS);
    if ((engine != LLMMEM_ENGINE_MEGATRON && engine != LLMMEM_ENGINE_MEGATRON_DEEPSPEED) || n <= 1)
        return;
    for (int i = 0; i < o->nparams; i++)
        if (strstr(o->params[i].name, "parallel_size") || !strcmp(o->params[i].name, "virtual_pipeline_size"))
            return; /* a layout given: estimated as given */
    FILE *out = o->json ? stderr : stdout;
    llmmem_plan *p = NULL;
    int rc = llmmem_plan_new(&p);
    if (rc == 0)
        rc = llmmem_plan_layouts(p, m, *cfg, 64);
    if (rc)
        cli_fail_lib(rc, EXIT_FAIL, "quick: the planner");
    int pick = -1;
    llmmem_config *c = NULL;
    for (int i = 0; i < llmmem_plan_count(p) && pick < 0; i++) {
        if ((rc = llmmem_plan_config(&c, p, i)) != 0)
            cli_fail_lib(rc, EXIT_FAIL, NULL);
        if (cli_cfg_i64(c, LLMMEM_P_ENGINE) == engine)
            pick = i;
        else
            llmmem_config_free(c);
    }
    llmmem_plan_free(p);
    char name[32];
    size_t need;
    llmmem_config_get_str(name, sizeof name, &need, *cfg, LLMMEM_P_ENGINE);
    if (pick < 0) {
        fprintf(out, "%-12sno %s layout of %lld GPUs fits (llmmem plan --gpus %lld lists what does); "
                     "estimated as given: TP 1 x PP 1\n",
                "Layout", name, (long long)n, (long long)n);
        return;
    }
    char rec[32];
    llmmem_config_get_str(rec, sizeof rec, &need, c, LLMMEM_P_CHECKPOINTING);
    fprintf(out,
            "%-12sthe planner's fastest %s layout of %lld GPUs that fits: TP %lld x PP %lld x DP %lld, "
            "micro-batch %lld x %lld accumulation, recompute %s (llmmem plan --gpus %lld lists the others)\n",
            "Layout", name, (long long)n, (long long)cli_cfg_i64(c, LLMMEM_P_TENSOR_PARALLEL),
            (long long)cli_cfg_i64(c, LLMMEM_P_PIPELINE_PARALLEL), (long long)cli_cfg_i64(c, LLMMEM_P_DATA_PARALLEL),
            (long long)cli_cfg_i64(c, LLMMEM_P_MICRO_BATCH_SIZE), (long long)cli_cfg_i64(c, LLMMEM_P_GRAD_ACCUM_STEPS),
            rec, (long long)n);
    llmmem_config_free(*cfg);
    *cfg = c;
}

int cli_run_quick(cli_opts *o)
{
    if (o->npositional != 1)
        cli_usage_error("quick: expected one SIZE (\"7B\"), got %d arguments", o->npositional);
    llmmem_model *m = NULL;
    llmmem_config *cfg = NULL;
    int rc = llmmem_model_new(&m);
    if (rc == 0)
        rc = llmmem_config_new(&cfg);
    if (rc == 0)
        rc = llmmem_config_set(cfg, "mode", "training");
    if (rc)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    quick_size(m, o->positional[0]);
    cli_apply_params(cfg, o, "quick");
    if (!o->engine)
        quick_default_engine(cfg);
    quick_megatron_layout(m, &cfg, o);
    return cli_estimate_print(m, cfg, o);
}
