/* llmmem gpus: the GPU table, name and memory as the driver reports it. */
#include "cli.h"

const cli_help cli_help_gpus = {
    "usage: llmmem gpus\n\nLists the GPU table: name and memory as the driver reports it.\n",
    0, NULL};

int cli_run_gpus(cli_opts *o)
{
    int n = llmmem_gpu_count();
    for (int i = 0; i < n; i++) {
        uint64_t bytes = 0;
        char a[64], b[40];
        llmmem_gpu_memory_bytes(&bytes, i);
        printf("%-20s %-22s %s bytes\n", llmmem_gpu_name(i),
               cli_fmt_bytes(a, sizeof a, bytes, UNITS_BOTH),
               cli_group(b, sizeof b, (long long)bytes));
    }
    return 0;
}
