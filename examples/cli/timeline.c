/* llmmem timeline: the predicted allocation timeline of a scenario (the caching allocator
 * replayed over the estimate's allocations, llmmem_timeline): an SVG chart of the active
 * bytes by category with the reserved bytes and the GPU, its JSON, or a
 * torch.cuda.memory._snapshot() JSON for pytorch.org/memory_viz. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const cli_help cli_help_timeline = {
    "usage: llmmem timeline [svg|json|snapshot] [--scenario FILE] [model] [files] [--PARAM VALUE ...]\n"
    "                       [--svg FILE] [--json]\n"
    "\n"
    "Replays the estimate's allocations (the measuring process: cuBLAS workspace, model\n"
    "build, three training steps, or a prefill and the decode steps) through a model of\n"
    "PyTorch's CUDA caching allocator and writes the timeline to stdout: svg (default, the\n"
    "active bytes stacked by category, the reserved bytes and the GPU as lines, the phases\n"
    "marked), json (the same points), or snapshot (the dictionary of\n"
    "torch.cuda.memory._snapshot() as JSON: drop it on https://pytorch.org/memory_viz to\n"
    "compare it with a measured snapshot). --svg FILE writes the chart to FILE instead;\n"
    "--json is the json format.\n"
    "Single-GPU training and HF generate only.\n",
    0, NULL};

int cli_run_timeline(cli_opts *o)
{
    int format = LLMMEM_TIMELINE_SVG;
    if (o->npositional > 1)
        cli_usage_error("timeline: one format at most (svg, json or snapshot)");
    if (o->npositional == 1) {
        format = -1;
        for (int f = LLMMEM_TIMELINE_JSON; f <= LLMMEM_TIMELINE_SNAPSHOT; f++)
            if (cli_name_is(o->positional[0], llmmem_timeline_format_name(f)))
                format = f;
        if (format < 0)
            cli_usage_error("timeline: unknown format \"%s\" (svg, json or snapshot)", o->positional[0]);
    }
    if (o->json) { /* --json is the json format, as with every other command */
        if (o->npositional == 1 && format != LLMMEM_TIMELINE_JSON)
            cli_usage_error("timeline: --json prints the json format, not %s", o->positional[0]);
        format = LLMMEM_TIMELINE_JSON;
    }
    if (o->svg && format != LLMMEM_TIMELINE_SVG)
        cli_usage_error("timeline: --svg writes the chart; leave out the format or name svg");
    llmmem_model *m;
    llmmem_config *cfg;
    cli_build_inputs(&m, &cfg, o, "timeline");
    size_t need = 0;
    int rc = llmmem_timeline(NULL, 0, &need, m, cfg, format);
    if (rc && rc != LLMMEM_E_BUFFER_TOO_SMALL)
        cli_fail_lib(rc, EXIT_FAIL, "timeline");
    char *buf = malloc(need);
    if (!buf)
        cli_fail_msg(LLMMEM_E_NOMEM, EXIT_FAIL, "timeline: out of memory");
    rc = llmmem_timeline(buf, need, &need, m, cfg, format);
    if (rc)
        cli_fail_lib(rc, EXIT_FAIL, "timeline");
    FILE *out = stdout;
    if (o->svg && !(out = fopen(o->svg, "w")))
        cli_fail_msg(LLMMEM_E_IO, EXIT_FAIL, "timeline: cannot write \"%s\"", o->svg);
    bool failed = fwrite(buf, 1, need - 1, out) != need - 1; /* needed counts the NUL */
    if (out != stdout)
        failed = fclose(out) != 0 || failed;
    if (failed)
        cli_fail_msg(LLMMEM_E_IO, EXIT_FAIL, "timeline: cannot write \"%s\"", o->svg ? o->svg : "stdout");
    free(buf);
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    return 0;
}
