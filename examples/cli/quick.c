/* llmmem quick SIZE: training of a model known only by its size, with --gpus, --gpu-mem
 * and --engine as gpu-mem-calculator takes them. */
#include "cli.h"

#include <stdlib.h>

const cli_help cli_help_quick = {
    "usage: llmmem quick SIZE --gpus N --gpu-mem GB --engine ENGINE [--PARAM VALUE ...]\n"
    "                   [--json] [--explain] [--units GiB|GB|both] [--svg FILE]\n"
    "\n"
    "Estimates training of a model known only by its size (\"7B\", \"770M\"; a bare number\n"
    "below 10000 means billions, as in gpu-mem-calculator). The shape is derived from\n"
    "the size. ENGINE: single, ddp, zero1, zero2, zero3 (= deepspeed), fsdp, megatron,\n"
    "megatron_deepspeed. --gpus sets the data-parallel size (divided by the tensor, pipeline\n"
    "and context sizes when given); --gpu-mem is the memory of one GPU in GB (1e9 bytes).\n"
    "Example: llmmem quick 7B --gpus 8 --gpu-mem 80 --engine zero3\n",
    0, NULL};

/* SIZE parameters; gpu-mem-calculator: a bare number below 10000 ("7") is 7B. */
static void quick_size(llmmem_model *m, const char *size)
{
    char sizebuf[64];
    char *end;
    double plain = strtod(size, &end);
    if (*end == '\0' && end != size && plain > 0 && plain < 10000) {
        snprintf(sizebuf, sizeof sizebuf, "%sB", size);
        size = sizebuf;
    }
    int rc = llmmem_model_set(m, "num_parameters", size);
    if (rc)
        cli_fail_lib(rc, EXIT_USAGE, "quick SIZE");
}

static long long quick_gpus(const cli_opts *o)
{
    char *end;
    long long gpus = 1;
    if (o->gpus) {
        gpus = strtoll(o->gpus, &end, 10);
        if (*end || end == o->gpus || gpus < 1)
            cli_usage_error("quick: --gpus \"%s\": expected a positive integer", o->gpus);
    }
    return gpus;
}

/* Training with the --engine (default: ddp on several GPUs, else single) on `gpus` GPUs. */
static void quick_engine(llmmem_config *cfg, const cli_opts *o, long long gpus)
{
    const char *ename = o->engine ? o->engine : (gpus > 1 ? "ddp" : "single");
    const cli_engine *e = cli_engine_find(ename);
    if (!e)
        cli_usage_error("quick: --engine \"%s\": one of single, ddp, zero1, zero2, zero3, "
                        "deepspeed, fsdp, megatron, megatron_deepspeed",
                        ename);
    int rc;
    if ((rc = llmmem_config_set(cfg, "mode", "training")) != 0 ||
        (rc = llmmem_config_set(cfg, "engine", e->engine)) != 0 ||
        (rc = llmmem_config_set_i64(cfg, LLMMEM_P_NUM_GPUS, gpus)) != 0)
        cli_fail_lib(rc, EXIT_USAGE, "quick");
    if (e->stage >= 0 && (rc = llmmem_config_set_i64(cfg, LLMMEM_P_ZERO_STAGE, e->stage)) != 0)
        cli_fail_lib(rc, EXIT_USAGE, "quick");
}

/* --gpu-mem GB: the memory of one GPU in 1e9 bytes. */
static void quick_gpu_mem(llmmem_config *cfg, const cli_opts *o)
{
    if (!o->gpu_mem)
        return;
    char *end;
    double gb = strtod(o->gpu_mem, &end);
    if (*end || end == o->gpu_mem || !(gb > 0) || gb > 1e6)
        cli_usage_error("quick: --gpu-mem \"%s\": expected GB per GPU, like 80", o->gpu_mem);
    int rc = llmmem_config_set_i64(cfg, LLMMEM_P_GPU_MEMORY_BYTES, (int64_t)(gb * 1e9 + 0.5));
    if (rc)
        cli_fail_lib(rc, EXIT_USAGE, "--gpu-mem");
}

/* data parallel = GPUs / (TP x PP x CP) unless given */
static void quick_data_parallel(llmmem_config *cfg, const cli_opts *o, long long gpus)
{
    for (int i = 0; i < o->nparams; i++) {
        int id;
        if (llmmem_param_from_name(&id, o->params[i].name) == 0 && id == LLMMEM_P_DATA_PARALLEL)
            return;
    }
    int64_t tp = 1, pp = 1, cp = 1;
    llmmem_config_get_i64(&tp, cfg, LLMMEM_P_TENSOR_PARALLEL);
    llmmem_config_get_i64(&pp, cfg, LLMMEM_P_PIPELINE_PARALLEL);
    llmmem_config_get_i64(&cp, cfg, LLMMEM_P_CONTEXT_PARALLEL);
    int64_t mp = tp * pp * cp;
    if (mp < 1 || gpus % mp != 0)
        cli_usage_error("quick: --gpus %lld is not a multiple of TP x PP x CP = %lld", gpus,
                        (long long)mp);
    int rc = llmmem_config_set_i64(cfg, LLMMEM_P_DATA_PARALLEL, gpus / mp);
    if (rc)
        cli_fail_lib(rc, EXIT_USAGE, "--gpus");
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
    if (rc)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    quick_size(m, o->positional[0]);
    long long gpus = quick_gpus(o);
    quick_engine(cfg, o, gpus);
    quick_gpu_mem(cfg, o);
    cli_apply_params(cfg, o);
    quick_data_parallel(cfg, o, gpus);
    return cli_estimate_print(m, cfg, o);
}
