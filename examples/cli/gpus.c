/* llmmem gpus: the GPU table, name and memory as the driver reports it, as text or JSON;
 * with a run (a model and parameters as for estimate), which of the table's GPUs fit it. */
#include "cli.h"

#include <string.h>

const cli_help cli_help_gpus = {
    "usage: llmmem gpus [--json]\n"
    "       llmmem gpus [--scenario FILE] [model] [files] [--PARAM VALUE ...] [--json]\n"
    "\n"
    "Lists the GPU table: name and memory as the driver reports it (--json: an array of\n"
    "{\"name\", \"memory_bytes\"}). --gpu NAME takes these names in any case, the names\n"
    "nvidia-smi and torch.cuda.get_device_name() print (\"NVIDIA A100-SXM4-80GB\"), and a\n"
    "family that names one GPU (\"gh200\"); a family of several (\"a100\") is an error that\n"
    "lists them.\n"
    "\n"
    "With a run (the inputs of llmmem estimate): which cards fit it. The run is estimated on\n"
    "each GPU of the table (its memory, CUDA context and cuBLAS workspace), one line each:\n"
    "the verdict, the total per GPU and the headroom (--json: an array of {\"name\",\n"
    "\"memory_bytes\", \"fits\", \"total_bytes_per_gpu\", \"headroom_bytes\"}). --gpu and\n"
    "--gpu-mem are refused there: the table's GPUs are the question.\n",
    0, NULL};

/* Which GPUs of the table fit the run: one estimate per GPU. */
static int gpus_fit(cli_opts *o)
{
    for (int i = 0; i < o->nparams; i++)
        if (!strcmp(o->params[i].name, "gpu") || !strcmp(o->params[i].name, "gpu_memory_bytes"))
            cli_usage_error("gpus: %s with a run: the table's GPUs are compared (drop it)", o->params[i].flag);
    if (o->gpu_mem)
        cli_usage_error("gpus: --gpu-mem with a run: the table's GPUs are compared (drop it)");
    llmmem_model *m;
    llmmem_config *cfg;
    cli_build_inputs(&m, &cfg, o, "gpus");
    if (cli_cfg_i64(cfg, LLMMEM_P_GPU_MEMORY_BYTES) > 0)
        cli_usage_error("gpus: the inputs set gpu_memory_bytes: the table's GPUs are compared (drop it)");
    llmmem_result *r = NULL;
    int rc = llmmem_result_new(&r);
    if (rc)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    const int n = llmmem_gpu_count();
    if (o->json)
        printf("[\n");
    for (int i = 0; i < n; i++) {
        if ((rc = llmmem_config_set_i64(cfg, LLMMEM_P_GPU, i)) != 0 || (rc = llmmem_estimate(r, m, cfg)) != 0)
            cli_fail_lib(rc, EXIT_FAIL, llmmem_gpu_name(i));
        uint64_t cap = 0, total = 0;
        int64_t head = 0, fits = 0;
        llmmem_result_get_u64(&cap, r, LLMMEM_R_GPU_MEMORY_BYTES);
        llmmem_result_get_u64(&total, r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
        llmmem_result_get_i64(&head, r, LLMMEM_R_HEADROOM_BYTES);
        llmmem_result_get_i64(&fits, r, LLMMEM_R_FITS);
        if (o->json) {
            printf("  {\"name\": ");
            cli_json_str(llmmem_gpu_name(i));
            printf(", \"memory_bytes\": %llu, \"fits\": %s, \"total_bytes_per_gpu\": %llu, \"headroom_bytes\": %lld}%s\n",
                   (unsigned long long)cap, fits ? "true" : "false", (unsigned long long)total, (long long)head,
                   i + 1 < n ? "," : "");
            continue;
        }
        char a[64], b[64], c[64];
        const uint64_t ah = (uint64_t)(head < 0 ? -head : head);
        printf("%-20s %-6s %s of %s, %s %s\n", llmmem_gpu_name(i), fits ? "fits" : "no fit",
               cli_fmt_bytes(a, sizeof a, total, UNITS_GIB), cli_fmt_bytes(b, sizeof b, cap, UNITS_GIB),
               head < 0 ? "short by" : "headroom", cli_fmt_bytes(c, sizeof c, ah, UNITS_GIB));
    }
    if (o->json)
        printf("]\n");
    llmmem_result_free(r);
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    return 0;
}

int cli_run_gpus(cli_opts *o)
{
    if (o->scenario || o->hf_config || o->gguf || o->preset || o->nmodel > 0 || o->nparams > 0 || o->fw_config ||
        o->torchtune_config || o->axolotl_config || o->accelerate_config || o->llamafactory_config || o->ds_config ||
        o->hf_args || o->gpus || o->engine)
        return gpus_fit(o);
    int n = llmmem_gpu_count();
    if (o->json)
        printf("[\n");
    for (int i = 0; i < n; i++) {
        uint64_t bytes = 0;
        char a[64], b[40];
        llmmem_gpu_memory_bytes(&bytes, i);
        if (o->json) {
            printf("  {\"name\": ");
            cli_json_str(llmmem_gpu_name(i));
            printf(", \"memory_bytes\": %llu}%s\n", (unsigned long long)bytes, i + 1 < n ? "," : "");
            continue;
        }
        printf("%-20s %-22s %s bytes\n", llmmem_gpu_name(i),
               cli_fmt_bytes(a, sizeof a, bytes, UNITS_BOTH),
               cli_group(b, sizeof b, (long long)bytes));
    }
    if (o->json)
        printf("]\n");
    return 0;
}
