/* llmmem presets: the built-in models, as text or JSON. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

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

const cli_help cli_help_architectures = {
    "usage: llmmem architectures [--json]\n"
    "\n"
    "Lists the config.json model_types the library knows, in three groups: decoder\n"
    "(counted exactly), multimodal (the text model plus the vision/audio towers the\n"
    "config describes) and refused (encoders, encoder-decoders, speech and vision-first\n"
    "models: LLMMEM_E_UNSUPPORTED). Any other model_type is estimated from the keys every\n"
    "HF config shares and flagged approximate. --json: an array of {\"model_type\", \"kind\"}.\n",
    0, NULL};

static const char *const arch_kind_names[] = {"decoder", "multimodal", "refused"};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int cli_run_architectures(cli_opts *o)
{
    int n = llmmem_architecture_count();
    if (o->json) {
        printf("[\n");
        for (int i = 0; i < n; i++) {
            printf("  {\"model_type\": ");
            cli_json_str(llmmem_architecture_name(i));
            printf(", \"kind\": \"%s\"}%s\n", arch_kind_names[llmmem_architecture_kind(i)],
                   i + 1 < n ? "," : "");
        }
        printf("]\n");
        return 0;
    }
    /* One paragraph per kind, sorted, wrapped at 88 columns. */
    const char **names = malloc((size_t)n * sizeof *names);
    if (!names)
        cli_fail_msg(LLMMEM_E_NOMEM, EXIT_FAIL, "out of memory");
    for (int kind = LLMMEM_ARCH_DECODER; kind <= LLMMEM_ARCH_REFUSED; kind++) {
        int count = 0, col = 0;
        for (int i = 0; i < n; i++)
            if (llmmem_architecture_kind(i) == kind)
                names[count++] = llmmem_architecture_name(i);
        qsort(names, (size_t)count, sizeof *names, by_name);
        printf("%s%s (%d):\n", kind ? "\n" : "", arch_kind_names[kind], count);
        for (int i = 0; i < count; i++) {
            int w = (int)strlen(names[i]) + 1;
            if (col && col + w > 88) {
                printf("\n");
                col = 0;
            }
            col += printf("%s%s", col ? " " : "  ", names[i]);
        }
        printf("\n");
    }
    free(names);
    return 0;
}
