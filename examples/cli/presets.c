/* llmmem presets: the built-in models, as text or JSON. */
#include "cli.h"

const cli_help cli_help_presets = {
    "usage: llmmem presets [--json]\n"
    "\n"
    "Lists the built-in model presets: name and description (--json: an array of\n"
    "{\"name\", \"description\"}). --preset NAME takes a name in any case, or one whose\n"
    "letters and digits match a single preset (llama3-8b = llama-3-8b).\n",
    0, NULL};

int cli_run_presets(cli_opts *o)
{
    int n = llmmem_preset_count();
    if (o->json)
        printf("[\n");
    for (int i = 0; i < n; i++) {
        const char *d = llmmem_preset_description(i);
        if (!o->json) {
            printf("%-28s %s\n", llmmem_preset_name(i), d ? d : "");
            continue;
        }
        printf("  {\"name\": ");
        cli_json_str(llmmem_preset_name(i));
        printf(", \"description\": ");
        cli_json_str(d ? d : "");
        printf("}%s\n", i + 1 < n ? "," : "");
    }
    if (o->json)
        printf("]\n");
    return 0;
}
