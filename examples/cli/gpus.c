/* llmmem gpus: the GPU table, name and memory as the driver reports it, as text or JSON. */
#include "cli.h"

const cli_help cli_help_gpus = {
    "usage: llmmem gpus [--json]\n"
    "\n"
    "Lists the GPU table: name and memory as the driver reports it (--json: an array of\n"
    "{\"name\", \"memory_bytes\"}). --gpu NAME takes these names in any case, the names\n"
    "nvidia-smi and torch.cuda.get_device_name() print (\"NVIDIA A100-SXM4-80GB\"), and a\n"
    "family that names one GPU (\"gh200\"); a family of several (\"a100\") is an error that\n"
    "lists them.\n",
    0, NULL};

int cli_run_gpus(cli_opts *o)
{
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
