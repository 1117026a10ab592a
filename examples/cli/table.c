/* The estimate as a table: model and workload, live bytes per phase, the components of
 * the peak phase, the totals and the notes; with --explain the inputs and terms. */
#include "cli.h"

#include <stdarg.h>
#include <string.h>
#include <strings.h>

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

/* A configuration value as text ("" when unreadable). */
static const char *cfg_text(char *buf, size_t cap, const llmmem_config *cfg, int param)
{
    size_t need;
    if (llmmem_config_get_str(buf, cap, &need, cfg, param) != 0)
        buf[0] = '\0';
    return buf;
}

/* The model's name (a preset's, a scenario's), from its JSON; "" when it has none. */
static void model_name(char *out, size_t cap, const llmmem_model *m)
{
    char buf[4096];
    size_t need;
    out[0] = '\0';
    if (llmmem_model_to_json(buf, sizeof buf, &need, m) != 0 && need > sizeof buf)
        buf[sizeof buf - 1] = '\0';
    const char *p = strstr(buf, "\"name\": \"");
    if (!p)
        return;
    p += 9;
    size_t n = 0;
    while (p[n] && p[n] != '"' && p[n] != '\\' && n + 1 < cap)
        n++;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* Whether a result note is an assumption the estimate made (shown with the settings). */
static bool is_assumption(const char *note)
{
    return note && strncasecmp(note, "assum", 5) == 0;
}

typedef struct items {
    char (*v)[CLI_ITEM_MAX];
    int n, max;
} items;

static void item(items *it, const char *fmt, ...) LLMMEM_PRINTF_CLI(2, 3);
static void item(items *it, const char *fmt, ...)
{
    if (it->n >= it->max)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->v[it->n++], CLI_ITEM_MAX, fmt, ap);
    va_end(ap);
}

int cli_settings(char (*out)[CLI_ITEM_MAX], int max, const llmmem_result *r,
                 const llmmem_config *cfg)
{
    char a[64], b[64], c[64];
    items it = {out, 0, max};
    const bool lcpp = cli_cfg_i64(cfg, LLMMEM_P_RUNTIME) == LLMMEM_RUNTIME_LLAMA_CPP;
    if (cli_cfg_i64(cfg, LLMMEM_P_MODE) == 1 && lcpp) {
        /* llama.cpp's own settings (llama-server's flags), the context as resolved */
        const int64_t ngl = cli_cfg_i64(cfg, LLMMEM_P_N_GPU_LAYERS);
        item(&it, "inference (llama_cpp)");
        if (ngl < 0)
            item(&it, "all layers on the GPU");
        else
            item(&it, "%lld layers on the GPU (-ngl)", (long long)ngl);
        item(&it, "context %s tokens",
             cli_group(a, sizeof a, cli_result_i64(r, LLMMEM_R_MAX_CONTEXT_TOKENS)));
        item(&it, "batch %s, ubatch %s", cli_group(a, sizeof a, cli_cfg_i64(cfg, LLMMEM_P_N_BATCH)),
             cli_group(b, sizeof b, cli_cfg_i64(cfg, LLMMEM_P_N_UBATCH)));
        item(&it, "%lld sequence(s)%s", (long long)cli_cfg_i64(cfg, LLMMEM_P_N_PARALLEL),
             cli_cfg_i64(cfg, LLMMEM_P_KV_UNIFIED) ? " (unified KV)" : "");
        item(&it, "KV cache %s/%s%s", cfg_text(a, sizeof a, cfg, LLMMEM_P_CACHE_TYPE_K),
             cfg_text(b, sizeof b, cfg, LLMMEM_P_CACHE_TYPE_V),
             cli_cfg_i64(cfg, LLMMEM_P_NO_KV_OFFLOAD) ? " in host memory" : "");
        item(&it, "flash attention %s", cfg_text(a, sizeof a, cfg, LLMMEM_P_FLASH_ATTN));
        if (cli_cfg_i64(cfg, LLMMEM_P_N_CPU_MOE) > 0)
            item(&it, "experts of the first %lld layers on the CPU",
                 (long long)cli_cfg_i64(cfg, LLMMEM_P_N_CPU_MOE));
    } else if (cli_cfg_i64(cfg, LLMMEM_P_MODE) == 1) {
        item(&it, "inference (%s)", cfg_text(a, sizeof a, cfg, LLMMEM_P_RUNTIME));
        item(&it, "batch %s", cli_group(a, sizeof a, cli_cfg_i64(cfg, LLMMEM_P_BATCH_SIZE)));
        item(&it, "prompt %s + decode %s tokens",
             cli_group(a, sizeof a, cli_cfg_i64(cfg, LLMMEM_P_PROMPT_LEN)),
             cli_group(b, sizeof b, cli_cfg_i64(cfg, LLMMEM_P_DECODE_LEN)));
        item(&it, "weights %s", cfg_text(a, sizeof a, cfg, LLMMEM_P_WEIGHTS_FORMAT));
        item(&it, "KV cache %s", cfg_text(a, sizeof a, cfg, LLMMEM_P_KV_CACHE_DTYPE));
    } else {
        item(&it, "training");
        item(&it, "seq_len %s tokens", cli_group(a, sizeof a, cli_cfg_i64(cfg, LLMMEM_P_SEQ_LEN)));
        item(&it, "micro-batch %s x %s accumulation step(s)",
             cli_group(a, sizeof a, cli_cfg_i64(cfg, LLMMEM_P_MICRO_BATCH_SIZE)),
             cli_group(b, sizeof b, cli_cfg_i64(cfg, LLMMEM_P_GRAD_ACCUM_STEPS)));
        item(&it, "optimizer %s", cfg_text(a, sizeof a, cfg, LLMMEM_P_OPTIMIZER));
        item(&it, "activation checkpointing %s", cfg_text(a, sizeof a, cfg, LLMMEM_P_CHECKPOINTING));
        if (cli_cfg_i64(cfg, LLMMEM_P_LORA_RANK) > 0)
            item(&it, "LoRA rank %lld%s%s", (long long)cli_cfg_i64(cfg, LLMMEM_P_LORA_RANK),
                 cli_cfg_i64(cfg, LLMMEM_P_QLORA) ? ", QLoRA " : "",
                 cli_cfg_i64(cfg, LLMMEM_P_QLORA) ? cfg_text(c, sizeof c, cfg, LLMMEM_P_QLORA) : "");
        if (cli_cfg_i64(cfg, LLMMEM_P_ENGINE) == LLMMEM_ENGINE_ZERO)
            item(&it, "engine zero (ZeRO stage %lld)", (long long)cli_cfg_i64(cfg, LLMMEM_P_ZERO_STAGE));
        else
            item(&it, "engine %s", cfg_text(a, sizeof a, cfg, LLMMEM_P_ENGINE));
    }
    item(&it, "%lld GPU(s)", (long long)cli_result_i64(r, LLMMEM_R_NUM_GPUS));
    return it.n;
}

void cli_verdict(char *buf, size_t cap, const llmmem_result *r, const llmmem_model *m,
                 const llmmem_config *cfg, enum cli_units u)
{
    char name[64], mtype[64] = "", t[64], c[64], h[64], g[64];
    size_t need;
    model_name(name, sizeof name, m);
    llmmem_model_type(mtype, sizeof mtype, &need, m);
    int64_t head = cli_result_i64(r, LLMMEM_R_HEADROOM_BYTES);
    cli_fmt_bytes(t, sizeof t, cli_result_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU), u);
    cli_fmt_bytes(c, sizeof c, cli_result_u64(r, LLMMEM_R_GPU_MEMORY_BYTES), u);
    cli_fmt_bytes(h, sizeof h, (uint64_t)(head < 0 ? -head : head), u);
    cfg_text(g, sizeof g, cfg, LLMMEM_P_GPU);
    snprintf(buf, cap, "%s: %s, %s of %s per %s GPU (%s %s)",
             name[0] ? name : mtype[0] ? mtype : "raw model",
             cli_result_i64(r, LLMMEM_R_FITS) ? "fits" : "does NOT fit", t, c, g, h,
             head < 0 ? "short" : "free");
}

const char *cli_precision(char *buf, size_t cap, const llmmem_result *r)
{
    buf[0] = '\0';
    const char *w = llmmem_result_enum_name(LLMMEM_R_PARAM_DTYPE, cli_result_i64(r, LLMMEM_R_PARAM_DTYPE));
    if (!w || !strcmp(w, "none"))
        return buf;
    const char *master = llmmem_result_enum_name(LLMMEM_R_MASTER_DTYPE, cli_result_i64(r, LLMMEM_R_MASTER_DTYPE));
    snprintf(buf, cap, "%s weights, %s compute, %s masters, %s grads, %s optimizer state", w,
             llmmem_result_enum_name(LLMMEM_R_COMPUTE_DTYPE, cli_result_i64(r, LLMMEM_R_COMPUTE_DTYPE)),
             master && strcmp(master, "none") ? master : "no",
             llmmem_result_enum_name(LLMMEM_R_GRAD_DTYPE, cli_result_i64(r, LLMMEM_R_GRAD_DTYPE)),
             llmmem_result_enum_name(LLMMEM_R_OPTIMIZER_STATE_DTYPE,
                                     cli_result_i64(r, LLMMEM_R_OPTIMIZER_STATE_DTYPE)));
    return buf;
}

void cli_print_approximate(const llmmem_result *r)
{
    if (!cli_result_i64(r, LLMMEM_R_APPROXIMATE))
        return;
    static const char tag[] = "approximate: ";
    for (int i = 0; i < llmmem_result_note_count(r); i++)
        if (!strncmp(llmmem_result_note(r, i), tag, sizeof tag - 1))
            printf("%-12s%s\n", "WARNING", llmmem_result_note(r, i) + sizeof tag - 1);
    printf("%-12s%s\n", "", "the figures below are approximate (--strict makes this an error)");
}

static void print_header(const llmmem_result *r, const llmmem_model *m, const llmmem_config *cfg,
                         enum cli_units u)
{
    char a[64], b[64], name[64];
    char mtype[64] = "";
    size_t need;
    llmmem_model_type(mtype, sizeof mtype, &need, m);
    model_name(name, sizeof name, m);
    printf("%-12s", "Model");
    if (name[0] && strcmp(name, mtype) != 0)
        printf("%s (%s)", name, mtype[0] ? mtype : "raw");
    else
        printf("%s", mtype[0] ? mtype : "(raw)");
    printf(", %s parameters", cli_group(a, sizeof a, cli_result_i64(r, LLMMEM_R_PARAMS)));
    int64_t trainable = cli_result_i64(r, LLMMEM_R_TRAINABLE_PARAMS);
    if (trainable != cli_result_i64(r, LLMMEM_R_PARAMS))
        printf(" (%s trainable)", cli_group(b, sizeof b, trainable));
    printf("\n");
    cli_print_approximate(r);
    char it[CLI_MAX_ITEMS][CLI_ITEM_MAX];
    int n = cli_settings(it, CLI_MAX_ITEMS, r, cfg), col = printf("%-12s", "Settings");
    for (int i = 0; i < n; i++) {
        if (i && col + 2 + (int)strlen(it[i]) > 98)
            col = printf(",\n%-12s", "") - 2;
        else if (i)
            col += printf(", ");
        col += printf("%s", it[i]);
    }
    printf("\n");
    char prec[256];
    if (cli_precision(prec, sizeof prec, r)[0])
        printf("%-12s%s\n", "Precision", prec);
    /* the GPU and its capacity: what the verdict compares against */
    int64_t gpu = cli_cfg_i64(cfg, LLMMEM_P_GPU), def = 0;
    llmmem_param_default_i64(&def, LLMMEM_P_GPU);
    printf("%-12s%s, %s per GPU", "GPU", cfg_text(b, sizeof b, cfg, LLMMEM_P_GPU),
           cli_fmt_bytes(a, sizeof a, cli_result_u64(r, LLMMEM_R_GPU_MEMORY_BYTES), u));
    if (cli_cfg_i64(cfg, LLMMEM_P_GPU_MEMORY_BYTES) > 0)
        printf(" (memory as given, not the table's)");
    else if (gpu == def)
        printf(" (the default GPU; --gpu NAME for another)");
    printf("\n");
    int notes = llmmem_result_note_count(r);
    for (int i = 0; i < notes; i++)
        if (is_assumption(llmmem_result_note(r, i)))
            printf("%-12s%s\n", "Assumed", llmmem_result_note(r, i));
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
        {"  pinned", LLMMEM_R_HOST_PINNED_BYTES, true},
        {"  pageable", LLMMEM_R_HOST_PAGEABLE_BYTES, true},
        {"Host RAM at load", LLMMEM_R_HOST_LOAD_PEAK_BYTES, true},
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
    /* the second verdict, where a host RAM size per node was given */
    uint64_t host_cap = cli_result_u64(r, LLMMEM_R_HOST_MEMORY_BYTES);
    if (host_cap) {
        uint64_t need = cli_result_u64(r, LLMMEM_R_HOST_BYTES);
        uint64_t load = cli_result_u64(r, LLMMEM_R_HOST_LOAD_PEAK_BYTES);
        need = load > need ? load : need;
        printf("Fits host RAM         %s (%s of %s per node)\n", cli_result_i64(r, LLMMEM_R_FITS_HOST) ? "yes" : "NO",
               cli_fmt_bytes(a, sizeof a, need, u), cli_fmt_bytes(b, sizeof b, host_cap, u));
    }
    /* |headroom| within the estimate's own margin: a near-boundary verdict */
    uint64_t margin = cli_result_u64(r, LLMMEM_R_MARGIN_BYTES);
    if ((uint64_t)(head < 0 ? -head : head) < margin)
        printf("Margin                near the boundary: the %s %s is within the estimate's margin of %s\n"
               "                      (5%% of peak reserved); the allocator's fragmentation decides\n",
               t, head < 0 ? "short" : "free", cli_fmt_bytes(a, sizeof a, margin, u));
}

static void print_notes(const llmmem_result *r, const llmmem_model *m)
{
    int notes = 0;
    for (int i = 0; i < llmmem_result_note_count(r); i++)
        notes += !is_assumption(llmmem_result_note(r, i));
    int mnotes = llmmem_model_note_count(m);
    if (notes > 0 || mnotes > 0)
        printf("\nNotes\n");
    notes = llmmem_result_note_count(r);
    for (int i = 0; i < notes; i++)
        if (!is_assumption(llmmem_result_note(r, i)))
            printf("  - %s\n", llmmem_result_note(r, i));
    for (int i = 0; i < mnotes; i++)
        printf("  - model: %s\n", llmmem_model_note(m, i));
}

/* The note of a result that begins with `prefix`, NULL when none. */
static const char *note_with(const llmmem_result *r, const char *prefix)
{
    for (int i = 0; i < llmmem_result_note_count(r); i++)
        if (!strncmp(llmmem_result_note(r, i), prefix, strlen(prefix)))
            return llmmem_result_note(r, i);
    return NULL;
}

/* vLLM's capacity first, in the words vLLM logs (gpu_model_runner.py "Model loading took",
 * gpu_worker.py "Available KV cache memory", kv_cache_utils.py "GPU KV cache size",
 * "Maximum concurrency for N tokens per request"), or the error it stops with
 * (kv_cache_utils.py _check_enough_kv_cache_memory), then the longest context that fits.
 * Only for vLLM results (max_model_len set). */
static void print_vllm(const llmmem_result *r)
{
    const int64_t len = cli_result_i64(r, LLMMEM_R_MAX_MODEL_LEN);
    if (len <= 0)
        return;
    const int64_t longest = cli_result_i64(r, LLMMEM_R_ESTIMATED_MAX_MODEL_LEN);
    const uint64_t avail = cli_result_u64(r, LLMMEM_R_KV_AVAILABLE_BYTES);
    const double gib = 1073741824.0;
    double conc = 0;
    llmmem_result_get_f64(&conc, r, LLMMEM_R_MAX_CONCURRENCY);
    char a[64], b[64];
    const bool starts = cli_result_i64(r, LLMMEM_R_FITS) != 0;
    printf("vLLM, per GPU (as it logs them)%s\n", starts ? "" : ": it does not start");
    printf("  Model loading took %.4f GiB\n", (double)cli_result_u64(r, LLMMEM_R_WEIGHTS_BYTES) / gib);
    const char *refused = note_with(r, "vllm: free memory at start");
    if (refused) {
        printf("  %s\n", refused + 6);
    } else if (avail == 0) {
        printf("  No available memory for the cache blocks. Try increasing `gpu_memory_utilization`\n"
               "  when initializing the engine.\n");
    } else {
        printf("  Available KV cache memory: %.2f GiB\n", (double)avail / gib);
        if (starts) {
            printf("  GPU KV cache size: %s tokens\n",
                   cli_group(a, sizeof a, cli_result_i64(r, LLMMEM_R_KV_TOKENS)));
            printf("  Maximum concurrency for %s tokens per request: %.2fx\n", cli_group(b, sizeof b, len),
                   conc);
        } else {
            printf("  To serve at least one request with the model's max seq len (%lld), (%.2f GiB KV\n"
                   "  cache is needed, which is larger than the available KV cache memory (%.2f GiB).\n",
                   (long long)len, (double)cli_result_u64(r, LLMMEM_R_KV_CACHE_BYTES) / gib,
                   (double)avail / gib);
            if (longest > 0)
                printf("  Based on the available memory, the estimated maximum model length is %lld.\n",
                       (long long)longest);
            printf("  Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when\n"
                   "  initializing the engine.\n");
        }
    }
    if (longest > 0) {
        printf("  Longest context that fits: %s tokens", cli_group(a, sizeof a, longest));
        if (longest < len)
            printf(" (--max-model-len %lld starts it)", (long long)longest);
        else if (longest > len)
            printf(" (--max-model-len up to %lld)", (long long)longest);
        else
            printf(" (= max_model_len)");
        printf("\n");
    }
    printf("\n");
}

void cli_print_table(const llmmem_result *r, const llmmem_model *m, const llmmem_config *cfg,
                     enum cli_units u)
{
    print_header(r, m, cfg, u);
    print_vllm(r);
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
