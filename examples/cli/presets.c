/* llmmem presets: the built-in models. */
#include "cli.h"

const cli_help cli_help_presets = {
    "usage: llmmem presets\n\nLists the built-in model presets.\n",
    0, NULL};

int cli_run_presets(cli_opts *o)
{
    int n = llmmem_preset_count();
    for (int i = 0; i < n; i++) {
        const char *d = llmmem_preset_description(i);
        printf("%-28s %s\n", llmmem_preset_name(i), d ? d : "");
    }
    return 0;
}
