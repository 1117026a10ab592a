/* The estimate as a table: model and workload, live bytes per phase, the components of
 * the peak phase, the totals and the notes; with --explain the inputs and terms. */
#include "cli.h"

#include <string.h>

#define MAX_ROWS 64

uint64_t cli_result_u64(const llmmem_result *r, int key)
{
    uint64_t v = 0;
    return llmmem_result_get_u64(&v, r, key) == 0 ? v : 0;
}

int64_t cli_result_i64(const llmmem_result *r, int key)
{
    int64_t v = 0;
    return llmmem_result_get_i64(&v, r, key) == 0 ? v : 0;
}

static void print_config_line(const llmmem_config *cfg, int param, const char *label)
{
    char v[128];
    size_t need;
    if (llmmem_config_get_str(v, sizeof v, &need, cfg, param) == 0)
        printf("%s%s", label, v);
}

/* The precision the estimate assumed, every "auto" resolved by the engine
 * (training only: the dtype keys are "none" otherwise). */
static void print_precision(const llmmem_result *r)
{
    const char *w = llmmem_result_enum_name(LLMMEM_R_PARAM_DTYPE, cli_result_i64(r, LLMMEM_R_PARAM_DTYPE));
    if (!w || !strcmp(w, "none"))
        return;
    const char *master = llmmem_result_enum_name(LLMMEM_R_MASTER_DTYPE, cli_result_i64(r, LLMMEM_R_MASTER_DTYPE));
    printf("precision   %s weights, %s compute, %s masters, %s grads, %s optimizer state\n", w,
           llmmem_result_enum_name(LLMMEM_R_COMPUTE_DTYPE, cli_result_i64(r, LLMMEM_R_COMPUTE_DTYPE)),
           master && strcmp(master, "none") ? master : "no",
           llmmem_result_enum_name(LLMMEM_R_GRAD_DTYPE, cli_result_i64(r, LLMMEM_R_GRAD_DTYPE)),
           llmmem_result_enum_name(LLMMEM_R_OPTIMIZER_STATE_DTYPE,
                                   cli_result_i64(r, LLMMEM_R_OPTIMIZER_STATE_DTYPE)));
}

static void print_header(const llmmem_result *r, const llmmem_model *m, const llmmem_config *cfg,
                         enum cli_units u)
{
    char a[64], b[64];
    char mtype[64] = "";
    size_t need;
    llmmem_model_type(mtype, sizeof mtype, &need, m);
    printf("model       %s, %s parameters", mtype[0] ? mtype : "(raw)",
           cli_group(a, sizeof a, cli_result_i64(r, LLMMEM_R_PARAMS)));
    int64_t trainable = cli_result_i64(r, LLMMEM_R_TRAINABLE_PARAMS);
    if (trainable != cli_result_i64(r, LLMMEM_R_PARAMS))
        printf(" (%s trainable)", cli_group(b, sizeof b, trainable));
    printf("\n");
    print_config_line(cfg, LLMMEM_P_MODE, "workload    ");
    print_config_line(cfg, LLMMEM_P_ENGINE, ", engine ");
    printf(", %lld GPU(s)\n", (long long)cli_result_i64(r, LLMMEM_R_NUM_GPUS));
    print_config_line(cfg, LLMMEM_P_GPU, "GPU         ");
    printf(", %s\n",
           cli_fmt_bytes(a, sizeof a, cli_result_u64(r, LLMMEM_R_GPU_MEMORY_BYTES), u));
    print_precision(r);
    printf("\n");
}

/* One bar per non-zero value, scaled to the largest; name column `label` wide. */
static void print_bars(const uint64_t *v, int n, const char *(*name)(int), int label, int width,
                       enum cli_units u)
{
    char a[64];
    uint64_t max = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > max)
            max = v[i];
    for (int i = 0; i < n; i++) {
        if (v[i] == 0)
            continue;
        printf("  %-*s ", label, name(i));
        cli_bar(stdout, v[i], max, width);
        printf(" %s\n", cli_fmt_bytes(a, sizeof a, v[i], u));
    }
}

static void print_phases(const llmmem_result *r, enum cli_units u)
{
    uint64_t v[MAX_ROWS];
    int n = llmmem_phase_count();
    n = n > MAX_ROWS ? MAX_ROWS : n;
    for (int p = 0; p < n; p++)
        if (llmmem_result_phase_bytes(&v[p], r, p) != 0)
            v[p] = 0;
    printf("Live bytes per phase (at each phase's peak)\n");
    print_bars(v, n, llmmem_phase_name, 10, 40, u);
}

static void print_components(const llmmem_result *r, enum cli_units u)
{
    int peak = (int)cli_result_i64(r, LLMMEM_R_PEAK_PHASE);
    const char *pname = llmmem_phase_name(peak);
    printf("\nComponents in the peak phase (%s)\n", pname ? pname : "?");
    uint64_t v[MAX_ROWS];
    int n = llmmem_component_count();
    n = n > MAX_ROWS ? MAX_ROWS : n;
    for (int c = 0; c < n; c++)
        if (llmmem_result_component_bytes(&v[c], r, peak, c) != 0)
            v[c] = 0;
    print_bars(v, n, llmmem_component_name, 20, 30, u);
    printf("\n");
}

static void print_totals(const llmmem_result *r, enum cli_units u)
{
    static const struct {
        const char *label;
        int key;
        bool when_nonzero;
    } rows[] = {
        {"Peak allocated", LLMMEM_R_PEAK_ALLOCATED_BYTES, false},
        {"Peak reserved", LLMMEM_R_PEAK_RESERVED_BYTES, false},
        {"CUDA context", LLMMEM_R_CUDA_CONTEXT_BYTES, false},
        {"Total per GPU", LLMMEM_R_TOTAL_BYTES_PER_GPU, false},
        {"Host RAM (offload)", LLMMEM_R_HOST_BYTES, true},
        {"NVMe (offload)", LLMMEM_R_NVME_BYTES, true},
        {"KV cache", LLMMEM_R_KV_CACHE_BYTES, true},
    };
    char a[64], b[64], t[64];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint64_t v = cli_result_u64(r, rows[i].key);
        if (v || !rows[i].when_nonzero)
            printf("%-22s%s\n", rows[i].label, cli_fmt_bytes(a, sizeof a, v, u));
    }
    int64_t fits = cli_result_i64(r, LLMMEM_R_FITS);
    int64_t head = cli_result_i64(r, LLMMEM_R_HEADROOM_BYTES);
    double util = 0.0;
    llmmem_result_get_f64(&util, r, LLMMEM_R_UTILIZATION);
    printf("Fits                  %s (%.1f%% of %s, %s %s)\n", fits ? "yes" : "NO", util * 100.0,
           cli_fmt_bytes(b, sizeof b, cli_result_u64(r, LLMMEM_R_GPU_MEMORY_BYTES), u),
           cli_fmt_bytes(t, sizeof t, (uint64_t)(head < 0 ? -head : head), u),
           head < 0 ? "short" : "free");
}

static void print_notes(const llmmem_result *r, const llmmem_model *m)
{
    int notes = llmmem_result_note_count(r);
    int mnotes = llmmem_model_note_count(m);
    if (notes > 0 || mnotes > 0)
        printf("\nNotes\n");
    for (int i = 0; i < notes; i++)
        printf("  - %s\n", llmmem_result_note(r, i));
    for (int i = 0; i < mnotes; i++)
        printf("  - model: %s\n", llmmem_model_note(m, i));
}

void cli_print_table(const llmmem_result *r, const llmmem_model *m, const llmmem_config *cfg,
                     enum cli_units u)
{
    print_header(r, m, cfg, u);
    print_phases(r, u);
    print_components(r, u);
    print_totals(r, u);
    print_notes(r, m);
}

void cli_print_terms(const llmmem_result *r, enum cli_units u)
{
    int ni = llmmem_result_input_count(r);
    if (ni > 0)
        printf("\nInputs of the formulas\n");
    for (int i = 0; i < ni; i++) {
        const char *name = NULL;
        int64_t v = 0;
        if (llmmem_result_input(&name, &v, r, i) == 0)
            printf("  %-36s %lld\n", name ? name : "?", (long long)v);
    }
    int n = llmmem_result_term_count(r);
    printf("\nTerms (name, bytes, formula and source)\n");
    for (int i = 0; i < n; i++) {
        const char *name = NULL, *formula = NULL;
        uint64_t bytes = 0;
        if (llmmem_result_term(&name, &formula, &bytes, r, i) != 0)
            continue;
        char a[64];
        printf("  %-28s %22s  %s\n", name ? name : "?", cli_fmt_bytes(a, sizeof a, bytes, u),
               formula ? formula : "");
    }
}
