/* llmmem advise: what to change so that a run fits (or has the most headroom), ranked,
 * each suggestion an exact estimate of the changed configuration (llmmem_plan_advise),
 * with a ready command line: this command's own arguments with the suggestion's flags in
 * place of those they replace. */
#include "cli.h"

#include <string.h>

static const cli_help_line advise_help_flags[] = {
    {.flag = "top", .help = "how many suggestions to print (default 10; JSON has them all)"},
    {.flag = "json", .help = "the advice as JSON (docs/planner.md \"Advice\")"},
    {.flag = "units"},
    {.flag = "strict"},
    {.text = "Model, scenario, file and parameter options as for llmmem estimate.\n"},
    {0},
};
const cli_help cli_help_advise = {
    "usage: llmmem advise [--scenario FILE] [model] [files] [--PARAM VALUE ...]\n"
    "                     [--top K] [--json] [--units GiB|GB|both] [--strict]\n"
    "\n"
    "Estimates the run as given, then the usual changes one by one, and pairs of them\n"
    "where the run does not fit: activation checkpointing, a smaller micro-batch with more\n"
    "accumulation steps (the global batch kept), ZeRO / FSDP over the fewest GPUs that fit,\n"
    "CPU offload, tensor parallel (Megatron), 8-bit optimizers, LoRA / QLoRA, the longest\n"
    "sequence that fits; serving: tensor parallel, gpu_memory_utilization, an fp8 KV cache,\n"
    "max_model_len (vLLM), the batch and bitsandbytes weights (HF), -ngl and the context\n"
    "(llama.cpp). Each suggestion is estimated in full, so its total is what llmmem estimate\n"
    "prints for the command line shown. Ranked: those that fit; those that keep the run\n"
    "(same model, numerics and workload) before those that change it; fewer GPUs; less\n"
    "modelled step time per sequence (docs/planner.md).\n"
    "\n",
    23, advise_help_flags};

static int advice_json(char *buf, size_t cap, size_t *need, const void *a)
{
    return llmmem_advice_to_json(buf, cap, need, a);
}

/* The flags a suggestion sets, normalized ("data_parallel_size"), in names[]. */
static int suggestion_names(char (*names)[64], int cap, const char *flags)
{
    int n = 0;
    for (const char *p = strstr(flags, "--"); p && n < cap; p = strstr(p + 2, " --")) {
        if (*p == ' ')
            p++;
        const char *e = strchr(p + 2, ' ');
        char raw[64];
        size_t len = e ? (size_t)(e - p - 2) : strlen(p + 2);
        snprintf(raw, sizeof raw, "%.*s", (int)(len < 63 ? len : 63), p + 2);
        cli_normalize(names[n++], sizeof names[0], raw);
    }
    return n;
}

/* Whether the flag argv[i] (--name or --name=value) is replaced by the suggestion:
 * the same parameter, --engine where it sets the engine or the ZeRO stage, --gpus where
 * it sets num_gpus. */
static bool replaced(const char *arg, char (*names)[64], int n)
{
    char name[64], norm[64];
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
    snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), arg + 2);
    cli_normalize(norm, sizeof norm, name);
    for (int i = 0; i < n; i++) {
        if (!strcmp(norm, names[i]))
            return true;
        if (!strcmp(norm, "engine") && (!strcmp(names[i], "engine") || !strcmp(names[i], "zero_stage")))
            return true;
        if (!strcmp(norm, "gpus") && !strcmp(names[i], "num_gpus"))
            return true;
    }
    return false;
}

/* An argument as the shell reads it back: as is when it is plain, else in single quotes. */
static void print_shell_word(const char *s)
{
    bool plain = *s != '\0';
    for (const char *p = s; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,+@%", *p) != NULL;
    if (plain) {
        fputs(s, stdout);
        return;
    }
    putchar('\'');
    for (const char *p = s; *p; p++)
        if (*p == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*p);
    putchar('\'');
}

/* "llmmem estimate ARGS FLAGS": this command's arguments without the output flags and
 * those the suggestion replaces, then the suggestion's flags. */
static void print_command(const cli_opts *o, const char *flags)
{
    char names[16][64];
    int n = suggestion_names(names, 16, flags);
    fputs("      llmmem estimate", stdout);
    for (int i = 0; i < o->argc; i++) {
        const char *a = o->argv[i];
        bool flag = strncmp(a, "--", 2) == 0 && a[2] != '\0';
        char norm[64] = "";
        if (flag) {
            const char *eq = strchr(a, '=');
            char name[64];
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), a + 2);
            cli_normalize(norm, sizeof norm, name);
        }
        /* flags of advise itself: --top N, --json, --units U */
        const bool own_value = !strcmp(norm, "top") || !strcmp(norm, "units");
        const bool own_switch = !strcmp(norm, "json") || !strcmp(norm, "strict");
        const bool takes_value = flag && !strchr(a, '=') && !own_switch && i + 1 < o->argc;
        if (own_value || own_switch || (flag && replaced(a, names, n))) {
            if (takes_value)
                i++;
            continue;
        }
        putchar(' ');
        print_shell_word(a);
        if (takes_value) {
            putchar(' ');
            print_shell_word(o->argv[++i]);
        }
    }
    printf(" %s\n", flags);
}

static void print_line(const char *label, const llmmem_result *r, enum cli_units u)
{
    int64_t fits = 0, gpus = 0, approx = 0;
    uint64_t total = 0, cap = 0;
    char t[64], c[64];
    llmmem_result_get_i64(&fits, r, LLMMEM_R_FITS);
    llmmem_result_get_i64(&gpus, r, LLMMEM_R_NUM_GPUS);
    llmmem_result_get_i64(&approx, r, LLMMEM_R_APPROXIMATE);
    llmmem_result_get_u64(&total, r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
    llmmem_result_get_u64(&cap, r, LLMMEM_R_GPU_MEMORY_BYTES);
    printf("%s%-8s %s of %s per GPU, %lld GPU(s)%s\n", label, fits ? "fits" : "no fit",
           cli_fmt_bytes(t, sizeof t, total, u), cli_fmt_bytes(c, sizeof c, cap, u), (long long)gpus,
           approx ? " (approximate model)" : "");
}

static void print_advice(const llmmem_advice *a, const cli_opts *o, int top)
{
    llmmem_result *r = NULL;
    int rc = llmmem_result_new(&r);
    if (rc || (rc = llmmem_advice_result(r, a, -1)) != 0)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    const enum cli_units u = o->units == UNITS_BOTH ? UNITS_GIB : o->units;
    print_line("As given     ", r, u);
    const int n = llmmem_advice_count(a);
    if (n == 0) {
        int64_t fits = 0;
        llmmem_result_get_i64(&fits, r, LLMMEM_R_FITS);
        printf("\n%sNo change this command knows needs less memory per GPU.\n",
               fits ? "It fits as given. " : "");
        llmmem_result_free(r);
        return;
    }
    printf("\nSuggestions (each an estimate of the changed run; ranked: fits, keeps the run,\n"
           "fewer GPUs, step time per sequence)\n");
    for (int i = 0; i < n && i < top; i++) {
        if ((rc = llmmem_advice_result(r, a, i)) != 0)
            cli_fail_lib(rc, EXIT_FAIL, NULL);
        char label[16];
        snprintf(label, sizeof label, "%3d  ", i + 1);
        printf("\n");
        print_line(label, r, u);
        printf("     %s%s\n", llmmem_advice_change(a, i),
               llmmem_advice_keeps_run(a, i) ? "" : " [changes the run]");
        print_command(o, llmmem_advice_flags(a, i));
    }
    if (n > top)
        printf("\n(%d more: --top %d, or --json)\n", n - top, n);
    llmmem_result_free(r);
}

int cli_run_advise(cli_opts *o)
{
    if (o->explain || o->max_batch || o->max_seq_len || o->min_gpus || o->max_ngl || o->global_batch)
        cli_usage_error("advise: %s is a flag of llmmem %s, not of advise",
                        o->explain ? "--explain" : o->global_batch ? "--global-batch" : "--max-batch/--max-seq-len/--min-gpus/--max-ngl",
                        o->explain ? "estimate" : "plan");
    int top = o->top ? (int)cli_parse_count("advise", "--top", o->top, 1, 64) : 10;
    llmmem_model *m;
    llmmem_config *cfg;
    cli_build_inputs(&m, &cfg, o, "advise");
    int64_t approximate = 0;
    llmmem_model_get_i64(&approximate, m, LLMMEM_M_APPROXIMATE);
    if (approximate)
        for (int i = 0; i < llmmem_model_note_count(m); i++)
            fprintf(o->json ? stderr : stdout, "%-12s%s\n", "WARNING", llmmem_model_note(m, i));
    llmmem_advice *a = NULL;
    int rc;
    if ((rc = llmmem_advice_new(&a)) != 0 || (rc = llmmem_plan_advise(a, m, cfg)) != 0)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    if (o->json)
        cli_print_json(advice_json, a, true);
    else
        print_advice(a, o, top);
    llmmem_advice_free(a);
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    if (approximate && o->strict) {
        fprintf(stderr, "llmmem: the model is approximate (see the notes) and --strict was given\n");
        return EXIT_APPROXIMATE;
    }
    return 0;
}
