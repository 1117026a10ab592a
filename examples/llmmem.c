/* llmmem: command-line front end of libllmmem.
 *
 *   llmmem estimate --scenario FILE [--json] [--explain] [--units GiB|GB] [--svg FILE]
 *   llmmem model (--hf-config FILE | --preset NAME | raw numbers) [--json]
 *   llmmem quick SIZE --gpus N --gpu-mem GB --engine E
 *   llmmem plan (--scenario FILE | model) --gpus N [--top K] [--json]
 *   llmmem plan ... --max-batch | --max-seq-len | --min-gpus
 *   llmmem validate FILE | presets | gpus | params | explain ... | --version
 *
 * Uses only the public API (include/llmmem.h). Parameter flags are generated from the
 * library's parameter table at run time. Errors: one line on stderr,
 * "llmmem: LLMMEM_E_XXX: message"; exit status 2 for usage errors, 1 otherwise. */
#include "llmmem.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_USAGE 2
#define EXIT_FAIL 1
#define MAX_SETTINGS 256

/* ---- errors ------------------------------------------------------------------- */

/* Prints "llmmem: STATUS: message" as one line (newlines in the message become spaces). */
static void print_error(int status, const char *msg)
{
    fprintf(stderr, "llmmem: %s: ", llmmem_status_name(status));
    for (const char *p = msg; *p; p++)
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, stderr);
    fputc('\n', stderr);
}

static _Noreturn void fail_msg(int status, int exit_code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_error(status, msg);
    exit(exit_code);
}

/* The library's last error, prefixed with `what` when given. */
static _Noreturn void fail_lib(int rc, int exit_code, const char *what)
{
    const char *detail = llmmem_last_error();
    if (!detail || !*detail)
        detail = llmmem_strerror(rc);
    if (what && *what)
        fail_msg(rc, exit_code, "%s: %s", what, detail);
    fail_msg(rc, exit_code, "%s", detail);
}

#define usage_error(...) fail_msg(LLMMEM_E_INVALID_ARG, EXIT_USAGE, __VA_ARGS__)

/* ---- small helpers -------------------------------------------------------------- */

static void normalize(char *out, size_t cap, const char *in)
{
    size_t i = 0;
    for (; in[i] && i + 1 < cap; i++)
        out[i] = in[i] == '-' ? '_' : in[i];
    out[i] = '\0';
}

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg(LLMMEM_E_IO, EXIT_FAIL, "cannot open \"%s\": %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        fail_msg(LLMMEM_E_NOMEM, EXIT_FAIL, "out of memory reading \"%s\"", path);
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > ((size_t)64 << 20))
                fail_msg(LLMMEM_E_IO, EXIT_FAIL, "\"%s\" is larger than 64 MiB", path);
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                fail_msg(LLMMEM_E_NOMEM, EXIT_FAIL, "out of memory reading \"%s\"", path);
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err)
        fail_msg(LLMMEM_E_IO, EXIT_FAIL, "cannot read \"%s\" (a directory?)", path);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* 1234567 -> "1,234,567" */
static const char *group(char *buf, size_t cap, long long v)
{
    char raw[32];
    snprintf(raw, sizeof raw, "%lld", v < 0 ? -v : v);
    size_t len = strlen(raw), o = 0;
    if (v < 0 && o + 1 < cap)
        buf[o++] = '-';
    for (size_t i = 0; i < len && o + 2 < cap; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
    return buf;
}

enum units { UNITS_BOTH, UNITS_GIB, UNITS_GB };

static const char *fmt_scaled(char *buf, size_t cap, double v, bool binary)
{
    static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    static const char *const dec[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    double base = binary ? 1024.0 : 1000.0;
    int u = 0;
    while (v >= base && u < 5) {
        v /= base;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%.0f %s", v, binary ? bin[0] : dec[0]);
    else
        snprintf(buf, cap, "%.2f %s", v, binary ? bin[u] : dec[u]);
    return buf;
}

/* Bytes in the chosen units; both when they differ. */
static const char *fmt_bytes(char *buf, size_t cap, uint64_t bytes, enum units units)
{
    char a[24], b[24];
    fmt_scaled(a, sizeof a, (double)bytes, true);
    fmt_scaled(b, sizeof b, (double)bytes, false);
    if (units == UNITS_GIB)
        snprintf(buf, cap, "%s", a);
    else if (units == UNITS_GB)
        snprintf(buf, cap, "%s", b);
    else if (strcmp(a, b) == 0)
        snprintf(buf, cap, "%s", a);
    else
        snprintf(buf, cap, "%s / %s", a, b);
    return buf;
}

static void bar(FILE *out, uint64_t v, uint64_t max, int width)
{
    int n = max ? (int)((double)v / (double)max * width + 0.5) : 0;
    if (v > 0 && n == 0)
        n = 1;
    if (n > width)
        n = width;
    for (int i = 0; i < width; i++)
        fputc(i < n ? '#' : '.', out);
}

/* ---- options ---------------------------------------------------------------------- */

enum {
    OPT_SCENARIO = 1 << 0,
    OPT_MODEL = 1 << 1,   /* --hf-config, --preset, raw numbers */
    OPT_FILES = 1 << 2,   /* --deepspeed-config, --hf-training-args, --calibration */
    OPT_OUTPUT = 1 << 3,  /* --json, --explain, --units, --svg */
    OPT_JSON = 1 << 4,    /* --json only */
    OPT_PARAMS = 1 << 5,  /* --<parameter> */
    OPT_QUICK = 1 << 6,   /* --gpus, --gpu-mem, --engine */
    OPT_PLAN = 1 << 7,    /* --gpus, --top, --global-batch, --max-batch, --max-seq-len, --min-gpus */
};

typedef struct setting {
    const char *flag;  /* as written */
    char name[64];     /* normalized */
    const char *value;
} setting;

typedef struct opts {
    const char *scenario, *hf_config, *preset, *ds_config, *hf_args, *svg;
    const char *calibration;
    bool json, explain, help;
    enum units units;
    const char *positional[4];
    int npositional;
    setting model_set[MAX_SETTINGS];
    int nmodel;
    setting params[MAX_SETTINGS];
    int nparams;
    const char *gpus, *gpu_mem, *engine;
    const char *top, *global_batch;
    bool max_batch, max_seq_len, min_gpus;
} opts;

/* Spellings of the raw-number flags that the library's model key names do not
 * cover, and the library name they set (llmmem_model_set also takes its aliases). */
static const char *const model_alias[][2] = {
    {"num_layers", "num_hidden_layers"},       {"num_heads", "num_attention_heads"},
    {"num_kv_heads", "num_key_value_heads"},   {"max_positions", "max_position_embeddings"},
    {"max_seq_len", "max_position_embeddings"}, {"top_k", "num_experts_per_tok"},
    {"experts_per_token", "num_experts_per_tok"}, {"num_local_experts", "num_experts"},
    {"expert_intermediate_size", "moe_intermediate_size"}, {"tie_embeddings", "tie_word_embeddings"},
};

/* The library name of a settable model key (the raw numbers, not the read-only
 * counts), or NULL. */
static const char *model_key_canonical(const char *name)
{
    int n = llmmem_model_key_count();
    for (int i = 0; i < n; i++) {
        int key = llmmem_model_key_at(i);
        const char *kn = llmmem_model_key_name(key);
        if (key < LLMMEM_M_PARAMS && kn && strcmp(kn, name) == 0)
            return kn;
    }
    for (size_t i = 0; i < sizeof model_alias / sizeof model_alias[0]; i++)
        if (strcmp(model_alias[i][0], name) == 0)
            return model_alias[i][1];
    return NULL;
}

static void parse_opts(opts *o, int argc, char **argv, int allowed, const char *cmd)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            o->help = true;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            if (o->npositional >= 4)
                usage_error("%s: unexpected argument \"%s\"", cmd, arg);
            o->positional[o->npositional++] = arg;
            continue;
        }
        char name[64];
        const char *eq = strchr(arg, '=');
        size_t nlen = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (nlen >= sizeof name)
            fail_msg(LLMMEM_E_UNKNOWN_PARAM, EXIT_USAGE, "%s: unknown option \"%.80s\"", cmd, arg);
        char raw[64];
        memcpy(raw, arg + 2, nlen);
        raw[nlen] = '\0';
        normalize(name, sizeof name, raw);

        /* flags without a value */
        if ((allowed & (OPT_OUTPUT | OPT_JSON)) && strcmp(name, "json") == 0) {
            o->json = true;
            continue;
        }
        if ((allowed & OPT_OUTPUT) && strcmp(name, "explain") == 0) {
            o->explain = true;
            continue;
        }
        if ((allowed & OPT_PLAN) && (strcmp(name, "max_batch") == 0 || strcmp(name, "max_seq_len") == 0 ||
                                     strcmp(name, "min_gpus") == 0)) {
            if (eq)
                usage_error("%s: --%s takes no value", cmd, raw);
            *(name[1] == 'i' ? &o->min_gpus : name[4] == 'b' ? &o->max_batch : &o->max_seq_len) = true;
            continue;
        }
        /* everything else takes a value: --name VALUE or --name=VALUE */
        const char *value = eq ? eq + 1 : NULL;
#define TAKE()                                                                                   \
    do {                                                                                         \
        if (!value) {                                                                            \
            if (i + 1 >= argc)                                                                   \
                usage_error("%s: option \"--%s\" needs a value", cmd, raw);                      \
            value = argv[++i];                                                                   \
        }                                                                                        \
    } while (0)
        if ((allowed & OPT_SCENARIO) && strcmp(name, "scenario") == 0) {
            TAKE();
            o->scenario = value;
        } else if ((allowed & OPT_MODEL) && strcmp(name, "hf_config") == 0) {
            TAKE();
            o->hf_config = value;
        } else if ((allowed & OPT_MODEL) && strcmp(name, "preset") == 0) {
            TAKE();
            o->preset = value;
        } else if ((allowed & OPT_FILES) && strcmp(name, "deepspeed_config") == 0) {
            TAKE();
            o->ds_config = value;
        } else if ((allowed & OPT_FILES) && strcmp(name, "hf_training_args") == 0) {
            TAKE();
            o->hf_args = value;
        } else if ((allowed & OPT_FILES) && strcmp(name, "calibration") == 0) {
            TAKE();
            o->calibration = value;
        } else if ((allowed & OPT_OUTPUT) && strcmp(name, "svg") == 0) {
            TAKE();
            o->svg = value;
        } else if ((allowed & OPT_OUTPUT) && strcmp(name, "units") == 0) {
            TAKE();
            if (strcmp(value, "GiB") == 0 || strcmp(value, "gib") == 0)
                o->units = UNITS_GIB;
            else if (strcmp(value, "GB") == 0 || strcmp(value, "gb") == 0)
                o->units = UNITS_GB;
            else if (strcmp(value, "both") == 0)
                o->units = UNITS_BOTH;
            else
                usage_error("%s: --units \"%s\": expected GiB, GB or both", cmd, value);
        } else if ((allowed & OPT_PLAN) && strcmp(name, "top") == 0) {
            TAKE();
            o->top = value;
        } else if ((allowed & OPT_PLAN) && strcmp(name, "global_batch") == 0) {
            TAKE();
            o->global_batch = value;
        } else if ((allowed & (OPT_QUICK | OPT_PLAN)) && strcmp(name, "gpus") == 0) {
            TAKE();
            o->gpus = value;
        } else if ((allowed & OPT_QUICK) && strcmp(name, "gpu_mem") == 0) {
            TAKE();
            o->gpu_mem = value;
        } else if ((allowed & OPT_QUICK) && strcmp(name, "engine") == 0) {
            TAKE();
            o->engine = value;
        } else if ((allowed & OPT_MODEL) && model_key_canonical(name)) {
            TAKE();
            if (o->nmodel >= MAX_SETTINGS)
                usage_error("%s: too many options", cmd);
            setting *s = &o->model_set[o->nmodel++];
            s->flag = arg;
            snprintf(s->name, sizeof s->name, "%s", model_key_canonical(name));
            s->value = value;
        } else {
            int id;
            if (!(allowed & OPT_PARAMS) || llmmem_param_from_name(&id, name) != 0)
                fail_msg(LLMMEM_E_UNKNOWN_PARAM, EXIT_USAGE,
                         "%s: unknown option \"--%s\" (see llmmem %s --help)", cmd, raw, cmd);
            TAKE();
            if (o->nparams >= MAX_SETTINGS)
                usage_error("%s: too many options", cmd);
            setting *s = &o->params[o->nparams++];
            s->flag = arg;
            snprintf(s->name, sizeof s->name, "%s", name);
            s->value = value;
        }
#undef TAKE
    }
}

/* ---- building the model and the configuration ----------------------------------- */

static bool has_model_source(const opts *o)
{
    return o->hf_config || o->preset || o->nmodel > 0;
}

static llmmem_model *build_model(const opts *o, llmmem_model *base, const char *cmd)
{
    llmmem_model *m = base;
    int rc;
    if (o->hf_config && o->preset)
        usage_error("%s: give --hf-config or --preset, not both", cmd);
    if (o->hf_config || o->preset || (o->nmodel > 0 && !base)) {
        llmmem_model_free(base);
        m = NULL;
        if (o->hf_config)
            rc = llmmem_model_from_hf_file(&m, o->hf_config);
        else if (o->preset)
            rc = llmmem_model_from_preset(&m, o->preset);
        else
            rc = llmmem_model_new(&m);
        if (rc)
            fail_lib(rc, o->preset && rc == LLMMEM_E_UNKNOWN_PARAM ? EXIT_USAGE : EXIT_FAIL,
                     o->preset ? "--preset" : NULL);
    }
    for (int i = 0; i < o->nmodel; i++) {
        rc = llmmem_model_set(m, o->model_set[i].name, o->model_set[i].value);
        if (rc) {
            char what[160];
            snprintf(what, sizeof what, "%s %s", o->model_set[i].flag, o->model_set[i].value);
            fail_lib(rc, EXIT_USAGE, what);
        }
    }
    if (!m)
        usage_error("%s: no model: give --scenario, --hf-config FILE, --preset NAME or raw "
                    "numbers (--num-parameters 7B, --num-layers ..., --hidden-size ...)",
                    cmd);
    return m;
}

static void apply_params(llmmem_config *cfg, const opts *o)
{
    for (int i = 0; i < o->nparams; i++) {
        int rc = llmmem_config_set(cfg, o->params[i].name, o->params[i].value);
        if (rc) {
            char what[200];
            snprintf(what, sizeof what, "%.80s %.80s", o->params[i].flag, o->params[i].value);
            fail_lib(rc, EXIT_USAGE, what);
        }
    }
}

static void apply_files(llmmem_config *cfg, const llmmem_model *model, const opts *o)
{
    int rc;
    if (o->hf_args) {
        size_t len;
        char *text = read_text(o->hf_args, &len);
        rc = llmmem_config_apply_hf_training_args_json(cfg, text, len);
        free(text);
        if (rc)
            fail_lib(rc, EXIT_FAIL, o->hf_args);
    }
    if (o->ds_config) {
        size_t len;
        char *text = read_text(o->ds_config, &len);
        rc = llmmem_config_apply_deepspeed_json(cfg, model, text, len);
        free(text);
        if (rc)
            fail_lib(rc, EXIT_FAIL, o->ds_config);
    }
    if (o->calibration) {
        size_t len;
        char *text = read_text(o->calibration, &len);
        rc = llmmem_config_apply_calibration_json(cfg, text, len);
        free(text);
        if (rc)
            fail_lib(rc, EXIT_FAIL, o->calibration);
    }
}

/* Scenario, then model flags, then framework files, then parameter flags. */
static void build_inputs(llmmem_model **model, llmmem_config **cfg, const opts *o, const char *cmd)
{
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    int rc;
    if (o->scenario) {
        rc = llmmem_scenario_from_file(has_model_source(o) ? NULL : &m, &c, o->scenario);
        if (rc)
            fail_lib(rc, EXIT_FAIL, NULL);
    } else if ((rc = llmmem_config_new(&c)) != 0) {
        fail_lib(rc, EXIT_FAIL, NULL);
    }
    m = build_model(o, m, cmd);
    apply_files(c, m, o);
    apply_params(c, o);
    *model = m;
    *cfg = c;
}

/* ---- result output ----------------------------------------------------------------- */

static uint64_t get_u64(const llmmem_result *r, int key)
{
    uint64_t v = 0;
    return llmmem_result_get_u64(&v, r, key) == 0 ? v : 0;
}

static int64_t get_i64(const llmmem_result *r, int key)
{
    int64_t v = 0;
    return llmmem_result_get_i64(&v, r, key) == 0 ? v : 0;
}

static void print_json_result(const llmmem_result *r)
{
    size_t need = 0;
    int rc = llmmem_result_to_json(NULL, 0, &need, r);
    if (rc && rc != LLMMEM_E_BUFFER_TOO_SMALL)
        fail_lib(rc, EXIT_FAIL, NULL);
    char *buf = malloc(need);
    if (!buf)
        fail_msg(LLMMEM_E_NOMEM, EXIT_FAIL, "out of memory");
    if ((rc = llmmem_result_to_json(buf, need, &need, r)) != 0)
        fail_lib(rc, EXIT_FAIL, NULL);
    fputs(buf, stdout);
    if (need < 2 || buf[need - 2] != '\n')
        fputc('\n', stdout);
    free(buf);
}

static void print_config_line(const llmmem_config *cfg, int param, const char *label)
{
    char v[128];
    size_t need;
    if (llmmem_config_get_str(v, sizeof v, &need, cfg, param) == 0)
        printf("%s%s", label, v);
}

static void print_table(const llmmem_result *r, const llmmem_model *m, const llmmem_config *cfg,
                        const opts *o)
{
    char a[64], b[64], t[64];
    enum units u = o->units;
    char mtype[64] = "";
    size_t need;
    llmmem_model_type(mtype, sizeof mtype, &need, m);
    printf("model       %s, %s parameters", mtype[0] ? mtype : "(raw)",
           group(a, sizeof a, get_i64(r, LLMMEM_R_PARAMS)));
    int64_t trainable = get_i64(r, LLMMEM_R_TRAINABLE_PARAMS);
    if (trainable != get_i64(r, LLMMEM_R_PARAMS))
        printf(" (%s trainable)", group(b, sizeof b, trainable));
    printf("\n");
    print_config_line(cfg, LLMMEM_P_MODE, "workload    ");
    print_config_line(cfg, LLMMEM_P_ENGINE, ", engine ");
    printf(", %lld GPU(s)\n", (long long)get_i64(r, LLMMEM_R_NUM_GPUS));
    uint64_t cap = get_u64(r, LLMMEM_R_GPU_MEMORY_BYTES);
    print_config_line(cfg, LLMMEM_P_GPU, "GPU         ");
    printf(", %s\n\n", fmt_bytes(a, sizeof a, cap, u));

    int nph = llmmem_phase_count();
    uint64_t maxph = 0;
    for (int p = 0; p < nph; p++) {
        uint64_t v = 0;
        if (llmmem_result_phase_bytes(&v, r, p) == 0 && v > maxph)
            maxph = v;
    }
    printf("Live bytes per phase (at each phase's peak)\n");
    for (int p = 0; p < nph; p++) {
        uint64_t v = 0;
        if (llmmem_result_phase_bytes(&v, r, p) != 0 || v == 0)
            continue;
        printf("  %-10s ", llmmem_phase_name(p));
        bar(stdout, v, maxph, 40);
        printf(" %s\n", fmt_bytes(a, sizeof a, v, u));
    }
    int peak = (int)get_i64(r, LLMMEM_R_PEAK_PHASE);
    const char *pname = llmmem_phase_name(peak);
    printf("\nComponents in the peak phase (%s)\n", pname ? pname : "?");
    uint64_t maxc = 0;
    int nc = llmmem_component_count();
    for (int c = 0; c < nc; c++) {
        uint64_t v = 0;
        if (llmmem_result_component_bytes(&v, r, peak, c) == 0 && v > maxc)
            maxc = v;
    }
    for (int c = 0; c < nc; c++) {
        uint64_t v = 0;
        if (llmmem_result_component_bytes(&v, r, peak, c) != 0 || v == 0)
            continue;
        printf("  %-20s ", llmmem_component_name(c));
        bar(stdout, v, maxc, 30);
        printf(" %s\n", fmt_bytes(a, sizeof a, v, u));
    }
    printf("\n");
    printf("Peak allocated        %s\n", fmt_bytes(a, sizeof a, get_u64(r, LLMMEM_R_PEAK_ALLOCATED_BYTES), u));
    printf("Peak reserved         %s\n", fmt_bytes(a, sizeof a, get_u64(r, LLMMEM_R_PEAK_RESERVED_BYTES), u));
    printf("CUDA context          %s\n", fmt_bytes(a, sizeof a, get_u64(r, LLMMEM_R_CUDA_CONTEXT_BYTES), u));
    uint64_t total = get_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
    printf("Total per GPU         %s\n", fmt_bytes(a, sizeof a, total, u));
    uint64_t host = get_u64(r, LLMMEM_R_HOST_BYTES);
    if (host)
        printf("Host RAM (offload)    %s\n", fmt_bytes(a, sizeof a, host, u));
    uint64_t nvme = get_u64(r, LLMMEM_R_NVME_BYTES);
    if (nvme)
        printf("NVMe (offload)        %s\n", fmt_bytes(a, sizeof a, nvme, u));
    uint64_t kv = get_u64(r, LLMMEM_R_KV_CACHE_BYTES);
    if (kv)
        printf("KV cache              %s\n", fmt_bytes(a, sizeof a, kv, u));
    int64_t fits = get_i64(r, LLMMEM_R_FITS);
    int64_t head = get_i64(r, LLMMEM_R_HEADROOM_BYTES);
    double util = 0.0;
    llmmem_result_get_f64(&util, r, LLMMEM_R_UTILIZATION);
    printf("Fits                  %s (%.1f%% of %s, %s %s)\n", fits ? "yes" : "NO", util * 100.0,
           fmt_bytes(b, sizeof b, cap, u),
           fmt_bytes(t, sizeof t, (uint64_t)(head < 0 ? -head : head), u),
           head < 0 ? "short" : "free");
    int notes = llmmem_result_note_count(r);
    int mnotes = llmmem_model_note_count(m);
    if (notes > 0 || mnotes > 0)
        printf("\nNotes\n");
    for (int i = 0; i < notes; i++)
        printf("  - %s\n", llmmem_result_note(r, i));
    for (int i = 0; i < mnotes; i++)
        printf("  - model: %s\n", llmmem_model_note(m, i));
}

static void print_terms(const llmmem_result *r, enum units u)
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
        printf("  %-28s %22s  %s\n", name ? name : "?", fmt_bytes(a, sizeof a, bytes, u),
               formula ? formula : "");
    }
}

/* ---- SVG ------------------------------------------------------------------------------ */

static const char *const colours[] = {"#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f",
                                      "#8cd17d", "#b6992d", "#f1ce63", "#499894", "#86bcb6",
                                      "#e15759", "#ff9d9a", "#79706e", "#bab0ac"};

static void write_svg(const char *path, const llmmem_result *r)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg(LLMMEM_E_IO, EXIT_FAIL, "cannot write \"%s\": %s", path, strerror(errno));
    int nph = llmmem_phase_count(), nc = llmmem_component_count();
    int phases[16], np = 0;
    uint64_t maxv = get_u64(r, LLMMEM_R_GPU_MEMORY_BYTES);
    for (int p = 0; p < nph && np < 16; p++) {
        uint64_t v = 0;
        if (llmmem_result_phase_bytes(&v, r, p) == 0 && v > 0) {
            phases[np++] = p;
            if (v > maxv)
                maxv = v;
        }
    }
    if (maxv == 0)
        maxv = 1;
    const int left = 70, top = 30, plot_h = 360, bar_w = 80, gap = 40;
    int plot_w = np * (bar_w + gap) + gap;
    int legend_x = left + plot_w + 30;
    int width = legend_x + 230, height = top + plot_h + 60;
    double gib = 1073741824.0;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            width, height, width, height);
    fprintf(f, "<title>llmmem: memory per GPU by phase</title>\n");
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    /* axis with 5 ticks in GiB */
    for (int i = 0; i <= 5; i++) {
        double v = (double)maxv * i / 5.0;
        double y = top + plot_h - plot_h * (double)i / 5.0;
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", left, y,
                left + plot_w, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.1f GiB</text>\n", left - 6,
                y + 4, v / gib);
    }
    for (int k = 0; k < np; k++) {
        int p = phases[k];
        int x = left + gap + k * (bar_w + gap);
        double y = top + plot_h;
        for (int c = 0; c < nc; c++) {
            uint64_t v = 0;
            if (llmmem_result_component_bytes(&v, r, p, c) != 0 || v == 0)
                continue;
            double h = plot_h * (double)v / (double)maxv;
            y -= h;
            fprintf(f, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\">"
                       "<title>%s: %.3f GiB</title></rect>\n",
                    x, y, bar_w, h, colours[c % 14], llmmem_component_name(c), (double)v / gib);
        }
        uint64_t tot = 0;
        llmmem_result_phase_bytes(&tot, r, p);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x + bar_w / 2,
                top + plot_h + 16, llmmem_phase_name(p));
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">%.2f GiB</text>\n",
                x + bar_w / 2, y - 4, (double)tot / gib);
    }
    uint64_t cap = get_u64(r, LLMMEM_R_GPU_MEMORY_BYTES);
    if (cap > 0) {
        double y = top + plot_h - plot_h * (double)cap / (double)maxv;
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#d62728\" "
                   "stroke-width=\"2\" stroke-dasharray=\"6,4\"/>\n",
                left, y, left + plot_w, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"#d62728\" text-anchor=\"end\">GPU capacity "
                   "%.1f GiB</text>\n",
                left + plot_w, y - 5, (double)cap / gib);
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", left,
            top + plot_h, left + plot_w, top + plot_h);
    int ly = top;
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">components</text>\n", legend_x, ly);
    for (int c = 0; c < nc; c++) {
        bool used = false;
        for (int k = 0; k < np && !used; k++) {
            uint64_t v = 0;
            used = llmmem_result_component_bytes(&v, r, phases[k], c) == 0 && v > 0;
        }
        if (!used)
            continue;
        ly += 18;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"%d\">%s</text>\n",
                legend_x, ly - 10, colours[c % 14], legend_x + 18, ly, llmmem_component_name(c));
    }
    fprintf(f, "</svg>\n");
    if (fclose(f) != 0)
        fail_msg(LLMMEM_E_IO, EXIT_FAIL, "cannot write \"%s\"", path);
}

/* ---- help ---------------------------------------------------------------------------- */

static const char *const type_words[] = {"?", "INT", "REAL", "BOOL", "NAME", "TEXT", "BYTES"};

static void print_param_flags(FILE *out)
{
    fprintf(out, "\nParameter flags (every parameter; '_' or '-'; see llmmem params):\n");
    int n = llmmem_param_count(), col = 0;
    for (int i = 0; i < n; i++) {
        int id = llmmem_param_at(i);
        const char *name = llmmem_param_name(id);
        int t = llmmem_param_type(id);
        char flag[96];
        snprintf(flag, sizeof flag, "--%s %s", name, t > 0 && t < 7 ? type_words[t] : "VALUE");
        for (char *p = flag + 2; *p && *p != ' '; p++)
            if (*p == '_')
                *p = '-';
        if (col + (int)strlen(flag) + 2 > 78) {
            fprintf(out, "\n");
            col = 0;
        }
        col += fprintf(out, "  %s", flag);
    }
    fprintf(out, "\n");
}

static const char help_estimate[] =
    "usage: llmmem estimate [--scenario FILE] [model] [files] [--PARAM VALUE ...]\n"
    "                       [--json] [--explain] [--units GiB|GB|both] [--svg FILE]\n"
    "\n"
    "Estimates the per-GPU memory of a training step or an inference run.\n"
    "\n"
    "  --scenario FILE          scenario JSON (docs/config-format.md); gpu-mem-calculator\n"
    "                           config files load as they are\n"
    "Model (replaces the scenario's model):\n"
    "  --hf-config FILE         a HuggingFace config.json\n"
    "  --preset NAME            a built-in model (llmmem presets)\n"
    "  --num-parameters 7B      raw numbers; also --num-layers, --hidden-size, --num-heads,\n"
    "                           --num-kv-heads, --head-dim, --intermediate-size, --vocab-size, ...\n"
    "Framework files (applied after the scenario, before the parameter flags):\n"
    "  --hf-training-args FILE  HF TrainingArguments JSON (also LLaMA-Factory keys)\n"
    "  --deepspeed-config FILE  DeepSpeed ds_config.json (\"auto\" resolved as HF Trainer does)\n"
    "  --calibration FILE       a calibration profile fitted from probe records\n"
    "                           (docs/calibration.md; default: none, the identity)\n"
    "Output:\n"
    "  --json                   the result as JSON (docs/json-schema.md)\n"
    "  --explain                every term with its formula, source and bytes\n"
    "  --units GiB|GB|both      units of the table (default both)\n"
    "  --svg FILE               a stacked bar per phase with the GPU capacity line\n";

static const char help_explain[] =
    "usage: llmmem explain [same options as estimate]\n"
    "\n"
    "Same as llmmem estimate --explain: the table, then each term of the estimate with\n"
    "its formula, its source and its bytes.\n";

static const char help_model[] =
    "usage: llmmem model (--hf-config FILE | --preset NAME | --scenario FILE | raw numbers) [--json]\n"
    "\n"
    "Prints the model description: architecture fields, exact parameter counts and the\n"
    "assumptions the parser made. Raw numbers: --num-parameters 7B, --num-layers N,\n"
    "--hidden-size N, --num-heads N, --num-kv-heads N, --intermediate-size N, --vocab-size N.\n";

static const char help_quick[] =
    "usage: llmmem quick SIZE --gpus N --gpu-mem GB --engine ENGINE [--PARAM VALUE ...]\n"
    "                   [--json] [--explain] [--units GiB|GB|both] [--svg FILE]\n"
    "\n"
    "Estimates training of a model known only by its size (\"7B\", \"770M\"; a bare number\n"
    "below 10000 means billions, as in gpu-mem-calculator). The shape is derived from\n"
    "the size. ENGINE: single, ddp, zero1, zero2, zero3 (= deepspeed), fsdp, megatron,\n"
    "megatron_deepspeed. --gpus sets the data-parallel size (divided by the tensor, pipeline\n"
    "and context sizes when given); --gpu-mem is the memory of one GPU in GB (1e9 bytes).\n"
    "Example: llmmem quick 7B --gpus 8 --gpu-mem 80 --engine zero3\n";

static const char help_plan[] =
    "usage: llmmem plan [--scenario FILE] [model] [files] [--PARAM VALUE ...] --gpus N\n"
    "                   [--global-batch G] [--top K] [--json] [--units GiB|GB|both]\n"
    "       llmmem plan [same inputs] --max-batch | --max-seq-len | --min-gpus [--json]\n"
    "\n"
    "Enumerates every layout of N GPUs of the configured kind (--gpu): engine, DP x TP x\n"
    "PP x CP x EP, ZeRO stage / FSDP strategy / Megatron options, offload, recompute and\n"
    "micro-batch; keeps those that fit; ranks them by the step-time model of\n"
    "docs/planner.md and prints the top K (default 10, at most 64) with their memory,\n"
    "and how many candidates were rejected for each reason. Inference (--mode inference):\n"
    "tensor-parallel size x replicas, the batch split over the replicas.\n"
    "\n"
    "  --gpus N             GPUs to lay out (default: num_gpus, else dp x tp x pp x cp)\n"
    "  --global-batch G     sequences per optimizer step (default: micro_batch_size x\n"
    "                       gradient_accumulation_steps x data_parallel_size)\n"
    "  --top K              layouts to print (1..64, default 10)\n"
    "  --json               the plan as JSON (docs/planner.md)\n"
    "Inverse questions (answered on the configuration as given, exact to one unit):\n"
    "  --max-batch          largest micro_batch_size (inference: batch_size; vllm:\n"
    "                       max_num_seqs) that fits\n"
    "  --max-seq-len        longest seq_len (inference: prompt_len + decode_len; vllm:\n"
    "                       max_model_len) that fits\n"
    "  --min-gpus           fewest GPUs: data-parallel ranks x tp x pp x cp for training with\n"
    "                       the configured engine, tensor-parallel ranks for inference\n"
    "Model, scenario and file options as for llmmem estimate.\n";

static const char help_validate[] =
    "usage: llmmem validate FILE\n"
    "\n"
    "Loads a scenario file (and its model) and prints \"FILE: OK ...\" or the error with\n"
    "the key path and line:column. Exit status 0 when valid, 1 when not.\n";

static const char help_presets[] = "usage: llmmem presets\n\nLists the built-in model presets.\n";
static const char help_gpus[] =
    "usage: llmmem gpus\n\nLists the GPU table: name and memory as the driver reports it.\n";
static const char help_params[] =
    "usage: llmmem params [--json]\n"
    "\n"
    "Lists every configuration parameter with its type, bounds, default, named values\n"
    "and description. Each is settable as --NAME VALUE on estimate, explain and quick,\n"
    "and as a key of its section in a scenario file.\n";

static const char help_main[] =
    "usage: llmmem COMMAND [options]\n"
    "\n"
    "Per-GPU memory of LLM training and inference, before launch.\n"
    "\n"
    "Commands:\n"
    "  estimate   estimate a scenario (--scenario FILE, or model + parameter flags)\n"
    "  explain    estimate and show every term with its formula and source\n"
    "  model      describe a model (HF config.json, preset or raw numbers)\n"
    "  quick      estimate from a model size: quick 7B --gpus 8 --gpu-mem 80 --engine zero3\n"
    "  plan       fastest layouts that fit N GPUs; --max-batch, --max-seq-len, --min-gpus\n"
    "  validate   check a scenario file\n"
    "  presets    list the built-in models\n"
    "  gpus       list the GPU table\n"
    "  params     list the configuration parameters\n"
    "\n"
    "llmmem COMMAND --help shows a command's options. llmmem --version prints the version.\n"
    "Errors: one line on stderr, \"llmmem: LLMMEM_E_...: message\"; exit status 2 for\n"
    "usage errors, 1 for other errors.\n";

/* ---- commands --------------------------------------------------------------------------- */

static void need_no_positional(const opts *o, const char *cmd)
{
    if (o->npositional > 0)
        usage_error("%s: unexpected argument \"%s\"", cmd, o->positional[0]);
}

static int run_estimate(llmmem_model *m, llmmem_config *cfg, const opts *o)
{
    llmmem_result *r = NULL;
    int rc = llmmem_result_new(&r);
    if (rc)
        fail_lib(rc, EXIT_FAIL, NULL);
    rc = llmmem_estimate(r, m, cfg);
    if (rc)
        fail_lib(rc, EXIT_FAIL, NULL);
    if (o->svg)
        write_svg(o->svg, r);
    if (o->json) {
        print_json_result(r);
    } else {
        print_table(r, m, cfg, o);
        if (o->explain)
            print_terms(r, o->units);
    }
    llmmem_result_free(r);
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    return 0;
}

static int cmd_estimate(int argc, char **argv, bool explain)
{
    const char *cmd = explain ? "explain" : "estimate";
    opts o;
    parse_opts(&o, argc, argv, OPT_SCENARIO | OPT_MODEL | OPT_FILES | OPT_OUTPUT | OPT_PARAMS, cmd);
    if (o.help) {
        fputs(explain ? help_explain : help_estimate, stdout);
        print_param_flags(stdout);
        return 0;
    }
    need_no_positional(&o, cmd);
    if (explain)
        o.explain = true;
    llmmem_model *m;
    llmmem_config *cfg;
    build_inputs(&m, &cfg, &o, cmd);
    return run_estimate(m, cfg, &o);
}

static void print_json_model(const llmmem_model *m)
{
    size_t need = 0;
    int rc = llmmem_model_to_json(NULL, 0, &need, m);
    if (rc && rc != LLMMEM_E_BUFFER_TOO_SMALL)
        fail_lib(rc, EXIT_FAIL, NULL);
    char *buf = malloc(need);
    if (!buf)
        fail_msg(LLMMEM_E_NOMEM, EXIT_FAIL, "out of memory");
    if ((rc = llmmem_model_to_json(buf, need, &need, m)) != 0)
        fail_lib(rc, EXIT_FAIL, NULL);
    fputs(buf, stdout);
    if (need < 2 || buf[need - 2] != '\n')
        fputc('\n', stdout);
    free(buf);
}

static int cmd_model(int argc, char **argv)
{
    opts o;
    parse_opts(&o, argc, argv, OPT_SCENARIO | OPT_MODEL | OPT_JSON, "model");
    if (o.help) {
        fputs(help_model, stdout);
        return 0;
    }
    need_no_positional(&o, "model");
    llmmem_model *m;
    llmmem_config *cfg;
    build_inputs(&m, &cfg, &o, "model");
    if (o.json) {
        print_json_model(m);
    } else {
        char mtype[64] = "";
        size_t need;
        llmmem_model_type(mtype, sizeof mtype, &need, m);
        printf("model_type            %s\n", mtype[0] ? mtype : "(raw)");
        int n = llmmem_model_key_count();
        for (int i = 0; i < n; i++) {
            int key = llmmem_model_key_at(i);
            int64_t v;
            char g[40];
            if (llmmem_model_get_i64(&v, m, key) == 0)
                printf("%-21s %s\n", llmmem_model_key_name(key), group(g, sizeof g, v));
        }
        int notes = llmmem_model_note_count(m);
        for (int i = 0; i < notes; i++)
            printf("note: %s\n", llmmem_model_note(m, i));
    }
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    return 0;
}

static int cmd_quick(int argc, char **argv)
{
    opts o;
    parse_opts(&o, argc, argv, OPT_QUICK | OPT_OUTPUT | OPT_PARAMS, "quick");
    if (o.help) {
        fputs(help_quick, stdout);
        print_param_flags(stdout);
        return 0;
    }
    if (o.npositional != 1)
        usage_error("quick: expected one SIZE (\"7B\"), got %d arguments", o.npositional);
    const char *size = o.positional[0];
    char sizebuf[64];
    char *end;
    double plain = strtod(size, &end);
    if (*end == '\0' && end != size && plain > 0 && plain < 10000) { /* gpu-mem-calculator: "7" = 7B */
        snprintf(sizebuf, sizeof sizebuf, "%sB", size);
        size = sizebuf;
    }
    llmmem_model *m = NULL;
    llmmem_config *cfg = NULL;
    int rc = llmmem_model_new(&m);
    if (rc == 0)
        rc = llmmem_config_new(&cfg);
    if (rc)
        fail_lib(rc, EXIT_FAIL, NULL);
    if ((rc = llmmem_model_set(m, "num_parameters", size)) != 0)
        fail_lib(rc, EXIT_USAGE, "quick SIZE");

    long long gpus = 1;
    if (o.gpus) {
        gpus = strtoll(o.gpus, &end, 10);
        if (*end || end == o.gpus || gpus < 1)
            usage_error("quick: --gpus \"%s\": expected a positive integer", o.gpus);
    }
    static const struct {
        const char *name, *engine;
        int stage;
    } engines[] = {{"single", "single", -1}, {"ddp", "ddp", -1},     {"zero", "zero", 2},
                   {"zero0", "zero", 0},     {"zero1", "zero", 1},   {"zero2", "zero", 2},
                   {"zero3", "zero", 3},     {"deepspeed", "zero", 3}, {"fsdp", "fsdp", -1},
                   {"megatron", "megatron", -1}, {"megatron_deepspeed", "megatron_deepspeed", 1}};
    const char *ename = o.engine ? o.engine : (gpus > 1 ? "ddp" : "single");
    char en[64];
    normalize(en, sizeof en, ename);
    int found = -1;
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
        if (strcmp(engines[i].name, en) == 0)
            found = (int)i;
    if (found < 0)
        usage_error("quick: --engine \"%s\": one of single, ddp, zero1, zero2, zero3, deepspeed, "
                    "fsdp, megatron, megatron_deepspeed",
                    ename);
    if ((rc = llmmem_config_set(cfg, "mode", "training")) != 0 ||
        (rc = llmmem_config_set(cfg, "engine", engines[found].engine)) != 0 ||
        (rc = llmmem_config_set_i64(cfg, LLMMEM_P_NUM_GPUS, gpus)) != 0)
        fail_lib(rc, EXIT_USAGE, "quick");
    if (engines[found].stage >= 0 &&
        (rc = llmmem_config_set_i64(cfg, LLMMEM_P_ZERO_STAGE, engines[found].stage)) != 0)
        fail_lib(rc, EXIT_USAGE, "quick");
    if (o.gpu_mem) {
        double gb = strtod(o.gpu_mem, &end);
        if (*end || end == o.gpu_mem || !(gb > 0) || gb > 1e6)
            usage_error("quick: --gpu-mem \"%s\": expected GB per GPU, like 80", o.gpu_mem);
        if ((rc = llmmem_config_set_i64(cfg, LLMMEM_P_GPU_MEMORY_BYTES, (int64_t)(gb * 1e9 + 0.5))) != 0)
            fail_lib(rc, EXIT_USAGE, "--gpu-mem");
    }
    apply_params(cfg, &o);
    /* data parallel = GPUs / (TP x PP x CP) unless given */
    bool dp_given = false;
    for (int i = 0; i < o.nparams; i++) {
        int id;
        if (llmmem_param_from_name(&id, o.params[i].name) == 0 && id == LLMMEM_P_DATA_PARALLEL)
            dp_given = true;
    }
    if (!dp_given) {
        int64_t tp = 1, pp = 1, cp = 1;
        llmmem_config_get_i64(&tp, cfg, LLMMEM_P_TENSOR_PARALLEL);
        llmmem_config_get_i64(&pp, cfg, LLMMEM_P_PIPELINE_PARALLEL);
        llmmem_config_get_i64(&cp, cfg, LLMMEM_P_CONTEXT_PARALLEL);
        int64_t mp = tp * pp * cp;
        if (mp < 1 || gpus % mp != 0)
            usage_error("quick: --gpus %lld is not a multiple of TP x PP x CP = %lld", gpus,
                        (long long)mp);
        if ((rc = llmmem_config_set_i64(cfg, LLMMEM_P_DATA_PARALLEL, gpus / mp)) != 0)
            fail_lib(rc, EXIT_USAGE, "--gpus");
    }
    return run_estimate(m, cfg, &o);
}

/* ---- plan ----------------------------------------------------------------------------- */

static long long parse_count(const char *cmd, const char *flag, const char *value, long long lo,
                             long long hi)
{
    char *end;
    errno = 0;
    long long v = strtoll(value, &end, 10);
    if (*end || end == value || errno || v < lo || v > hi)
        usage_error("%s: %s \"%s\": expected an integer in %lld..%lld", cmd, flag, value, lo, hi);
    return v;
}

static int64_t cfg_i64(const llmmem_config *cfg, int param)
{
    int64_t v = 0;
    llmmem_config_get_i64(&v, cfg, param);
    return v;
}

static void plan_inverse(const llmmem_model *m, const llmmem_config *cfg, const opts *o)
{
    const bool inference = cfg_i64(cfg, LLMMEM_P_MODE) == 1;
    char runtime[16] = "";
    size_t need;
    llmmem_config_get_str(runtime, sizeof runtime, &need, cfg, LLMMEM_P_RUNTIME);
    const bool vllm = inference && strcmp(runtime, "vllm") == 0;
    struct {
        bool asked;
        const char *key, *what;
        int (*fn)(int64_t *, const llmmem_model *, const llmmem_config *);
    } q[] = {
        {o->max_batch, "max_batch",
         vllm ? "max_num_seqs" : inference ? "batch_size" : "micro_batch_size", llmmem_plan_max_batch},
        {o->max_seq_len, "max_seq_len",
         vllm ? "max_model_len" : inference ? "prompt_len + decode_len" : "seq_len",
         llmmem_plan_max_seq_len},
        {o->min_gpus, "min_gpus", inference ? "tensor-parallel GPUs" : "GPUs (dp x tp x pp x cp)",
         llmmem_plan_min_gpus},
    };
    int64_t v[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        if (!q[i].asked)
            continue;
        int rc = q[i].fn(&v[i], m, cfg);
        if (rc)
            fail_lib(rc, EXIT_FAIL, q[i].key);
    }
    if (o->json) {
        const char *sep = "{";
        for (int i = 0; i < 3; i++)
            if (q[i].asked) {
                printf("%s\"%s\":%lld", sep, q[i].key, (long long)v[i]);
                sep = ",";
            }
        printf("}\n");
        return;
    }
    for (int i = 0; i < 3; i++) {
        if (!q[i].asked)
            continue;
        if (v[i] <= 0)
            printf("%-12s 0  (no %s fits)\n", q[i].key, q[i].what);
        else if (i == 2)
            printf("%-12s %lld  (fewest %s that fit)\n", q[i].key, (long long)v[i], q[i].what);
        else
            printf("%-12s %lld  (largest %s that fits; one more does not)\n", q[i].key, (long long)v[i],
                   q[i].what);
    }
}

static void plan_options(char *buf, size_t cap, const llmmem_config *c, int64_t engine)
{
    char v[16], w[16];
    size_t need;
    buf[0] = '\0';
    switch (engine) {
    case 2: /* zero */
        llmmem_config_get_str(v, sizeof v, &need, c, LLMMEM_P_OFFLOAD_OPTIMIZER);
        llmmem_config_get_str(w, sizeof w, &need, c, LLMMEM_P_OFFLOAD_PARAM);
        snprintf(buf, cap, "stage %lld%s%s%s%s", (long long)cfg_i64(c, LLMMEM_P_ZERO_STAGE),
                 strcmp(v, "none") ? " opt>" : "", strcmp(v, "none") ? v : "", strcmp(w, "none") ? " param>" : "",
                 strcmp(w, "none") ? w : "");
        break;
    case 3: /* fsdp */
        llmmem_config_get_str(v, sizeof v, &need, c, LLMMEM_P_FSDP_SHARDING);
        snprintf(buf, cap, "%s%s", v, cfg_i64(c, LLMMEM_P_FSDP_CPU_OFFLOAD) ? " cpu-offload" : "");
        break;
    case 4: /* megatron */
        snprintf(buf, cap, "%s%s", cfg_i64(c, LLMMEM_P_DISTRIBUTED_OPTIMIZER) ? "dist-opt" : "",
                 cfg_i64(c, LLMMEM_P_SEQUENCE_PARALLEL)
                     ? (cfg_i64(c, LLMMEM_P_DISTRIBUTED_OPTIMIZER) ? " sp" : "sp")
                     : "");
        break;
    case 5: /* megatron_deepspeed */
        snprintf(buf, cap, "zero %lld%s", (long long)cfg_i64(c, LLMMEM_P_ZERO_STAGE),
                 cfg_i64(c, LLMMEM_P_SEQUENCE_PARALLEL) ? " sp" : "");
        break;
    default: break;
    }
}

static void print_plan_table(const llmmem_plan *p, const llmmem_model *m, const llmmem_config *cfg,
                             enum units units)
{
    char t[64], a[48], b[48], mt[64], g[32];
    size_t need;
    const bool inference = cfg_i64(cfg, LLMMEM_P_MODE) == 1;
    llmmem_model_type(mt, sizeof mt, &need, m);
    llmmem_config_get_str(t, sizeof t, &need, cfg, LLMMEM_P_GPU);
    printf("Plan: %s on %lld x %s", mt, (long long)cfg_i64(cfg, LLMMEM_P_NUM_GPUS), t);
    if (inference)
        printf(", batch %lld, prompt %lld + decode %lld tokens\n", (long long)cfg_i64(cfg, LLMMEM_P_BATCH_SIZE),
               (long long)cfg_i64(cfg, LLMMEM_P_PROMPT_LEN), (long long)cfg_i64(cfg, LLMMEM_P_DECODE_LEN));
    else
        printf(", global batch %lld x %lld tokens\n",
               (long long)(cfg_i64(cfg, LLMMEM_P_MICRO_BATCH_SIZE) * cfg_i64(cfg, LLMMEM_P_GRAD_ACCUM_STEPS) *
                           cfg_i64(cfg, LLMMEM_P_DATA_PARALLEL)),
               (long long)cfg_i64(cfg, LLMMEM_P_SEQ_LEN));
    int64_t rejected = 0;
    for (int r = 0; r < 4; r++)
        rejected += llmmem_plan_rejected(p, r);
    printf("Candidates %s: %s fit, rejected", group(g, sizeof g, (long long)llmmem_plan_candidates(p)),
           group(a, sizeof a, (long long)(llmmem_plan_candidates(p) - rejected)));
    for (int r = 0; r < 4; r++)
        printf("%s %s %s", r ? "," : "", llmmem_plan_reject_name(r),
               group(b, sizeof b, (long long)llmmem_plan_rejected(p, r)));
    printf("\n\n");
    if (llmmem_plan_count(p) == 0) {
        printf("No layout fits.\n");
        return;
    }
    if (inference)
        printf("%3s  %4s %8s %6s  %-22s %-22s %10s\n", "#", "tp", "replicas", "batch", "peak allocated",
               "total per GPU", "time (s)");
    else
        printf("%3s  %-18s %4s %3s %3s %3s %3s  %-22s %-9s %4s %5s  %-22s %-22s %10s\n", "#", "engine", "dp",
               "tp", "pp", "cp", "ep", "options", "recompute", "mbs", "accum", "peak allocated",
               "total per GPU", "step (s)");
    for (int i = 0; i < llmmem_plan_count(p); i++) {
        llmmem_config *c = NULL;
        int rc = llmmem_plan_config(&c, p, i);
        if (rc)
            fail_lib(rc, EXIT_FAIL, NULL);
        double st = 0;
        uint64_t peak = 0;
        llmmem_plan_step_time(&st, p, i);
        llmmem_plan_peak_bytes(&peak, p, i);
        /* total per GPU (reserved + context) from a fresh estimate of the layout */
        llmmem_result *r = NULL;
        uint64_t total = 0;
        if (llmmem_result_new(&r) == 0 && llmmem_estimate(r, m, c) == 0)
            llmmem_result_get_u64(&total, r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
        llmmem_result_free(r);
        fmt_bytes(a, sizeof a, peak, units);
        fmt_bytes(b, sizeof b, total, units);
        if (inference) {
            printf("%3d  %4lld %8lld %6lld  %-22s %-22s %10.4f\n", i + 1, (long long)cfg_i64(c, LLMMEM_P_TENSOR_PARALLEL),
                   (long long)cfg_i64(c, LLMMEM_P_DATA_PARALLEL), (long long)cfg_i64(c, LLMMEM_P_BATCH_SIZE), a, b, st);
        } else {
            char e[32], opt[128], rec[16];
            int64_t engine = cfg_i64(c, LLMMEM_P_ENGINE);
            llmmem_config_get_str(e, sizeof e, &need, c, LLMMEM_P_ENGINE);
            llmmem_config_get_str(rec, sizeof rec, &need, c, LLMMEM_P_CHECKPOINTING);
            plan_options(opt, sizeof opt, c, engine);
            printf("%3d  %-18s %4lld %3lld %3lld %3lld %3lld  %-22s %-9s %4lld %5lld  %-22s %-22s %10.4f\n", i + 1, e,
                   (long long)cfg_i64(c, LLMMEM_P_DATA_PARALLEL), (long long)cfg_i64(c, LLMMEM_P_TENSOR_PARALLEL),
                   (long long)cfg_i64(c, LLMMEM_P_PIPELINE_PARALLEL), (long long)cfg_i64(c, LLMMEM_P_CONTEXT_PARALLEL),
                   (long long)cfg_i64(c, LLMMEM_P_EXPERT_PARALLEL), opt, rec,
                   (long long)cfg_i64(c, LLMMEM_P_MICRO_BATCH_SIZE), (long long)cfg_i64(c, LLMMEM_P_GRAD_ACCUM_STEPS),
                   a, b, st);
        }
        llmmem_config_free(c);
    }
    printf("\nStep time: docs/planner.md (FLOPs at 50%% of the dense bf16 rate + communication,\n"
           "no overlap). Memory: the estimator's peak for each layout.\n");
}

static int cmd_plan(int argc, char **argv)
{
    opts o;
    parse_opts(&o, argc, argv, OPT_SCENARIO | OPT_MODEL | OPT_FILES | OPT_JSON | OPT_PARAMS | OPT_PLAN, "plan");
    if (o.help) {
        fputs(help_plan, stdout);
        print_param_flags(stdout);
        return 0;
    }
    need_no_positional(&o, "plan");
    int top = o.top ? (int)parse_count("plan", "--top", o.top, 1, 64) : 10;
    llmmem_model *m;
    llmmem_config *cfg;
    build_inputs(&m, &cfg, &o, "plan");
    int rc;
    if (o.gpus && (rc = llmmem_config_set_i64(cfg, LLMMEM_P_NUM_GPUS,
                                              parse_count("plan", "--gpus", o.gpus, 1, 10000000))) != 0)
        fail_lib(rc, EXIT_USAGE, "--gpus");
    if (o.global_batch) {
        long long gb = parse_count("plan", "--global-batch", o.global_batch, 1, 1000000);
        if ((rc = llmmem_config_set_i64(cfg, LLMMEM_P_MICRO_BATCH_SIZE, 1)) != 0 ||
            (rc = llmmem_config_set_i64(cfg, LLMMEM_P_DATA_PARALLEL, 1)) != 0 ||
            (rc = llmmem_config_set_i64(cfg, LLMMEM_P_GRAD_ACCUM_STEPS, gb)) != 0)
            fail_lib(rc, EXIT_USAGE, "--global-batch");
    }
    if (o.max_batch || o.max_seq_len || o.min_gpus) {
        plan_inverse(m, cfg, &o);
    } else {
        if (cfg_i64(cfg, LLMMEM_P_NUM_GPUS) == 0 &&
            (rc = llmmem_config_set_i64(cfg, LLMMEM_P_NUM_GPUS,
                                        cfg_i64(cfg, LLMMEM_P_DATA_PARALLEL) * cfg_i64(cfg, LLMMEM_P_TENSOR_PARALLEL) *
                                            cfg_i64(cfg, LLMMEM_P_PIPELINE_PARALLEL) *
                                            cfg_i64(cfg, LLMMEM_P_CONTEXT_PARALLEL))) != 0)
            fail_lib(rc, EXIT_USAGE, "num_gpus");
        llmmem_plan *p = NULL;
        if ((rc = llmmem_plan_new(&p)) != 0 || (rc = llmmem_plan_layouts(p, m, cfg, top)) != 0)
            fail_lib(rc, EXIT_FAIL, NULL);
        if (o.json) {
            size_t need = 0;
            rc = llmmem_plan_to_json(NULL, 0, &need, p);
            if (rc && rc != LLMMEM_E_BUFFER_TOO_SMALL)
                fail_lib(rc, EXIT_FAIL, NULL);
            char *buf = malloc(need);
            if (!buf)
                fail_msg(LLMMEM_E_NOMEM, EXIT_FAIL, "out of memory");
            if ((rc = llmmem_plan_to_json(buf, need, &need, p)) != 0)
                fail_lib(rc, EXIT_FAIL, NULL);
            puts(buf);
            free(buf);
        } else {
            print_plan_table(p, m, cfg, o.units);
        }
        llmmem_plan_free(p);
    }
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    return 0;
}

static int cmd_validate(int argc, char **argv)
{
    opts o;
    parse_opts(&o, argc, argv, 0, "validate");
    if (o.help) {
        fputs(help_validate, stdout);
        return 0;
    }
    if (o.npositional != 1)
        usage_error("validate: expected one FILE, got %d arguments", o.npositional);
    llmmem_model *m = NULL;
    llmmem_config *cfg = NULL;
    int rc = llmmem_scenario_from_file(&m, &cfg, o.positional[0]);
    if (rc)
        fail_lib(rc, EXIT_FAIL, NULL);
    char mtype[64] = "", mode[32] = "", engine[32] = "", g[40];
    size_t need;
    int64_t params = 0;
    llmmem_model_type(mtype, sizeof mtype, &need, m);
    llmmem_model_get_i64(&params, m, LLMMEM_M_PARAMS);
    llmmem_config_get_str(mode, sizeof mode, &need, cfg, LLMMEM_P_MODE);
    llmmem_config_get_str(engine, sizeof engine, &need, cfg, LLMMEM_P_ENGINE);
    printf("%s: OK (model %s, %s parameters; %s, engine %s)\n", o.positional[0],
           mtype[0] ? mtype : "(raw)", group(g, sizeof g, params), mode, engine);
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    return 0;
}

static int cmd_presets(int argc, char **argv)
{
    opts o;
    parse_opts(&o, argc, argv, 0, "presets");
    if (o.help) {
        fputs(help_presets, stdout);
        return 0;
    }
    need_no_positional(&o, "presets");
    int n = llmmem_preset_count();
    for (int i = 0; i < n; i++) {
        const char *d = llmmem_preset_description(i);
        printf("%-28s %s\n", llmmem_preset_name(i), d ? d : "");
    }
    return 0;
}

static int cmd_gpus(int argc, char **argv)
{
    opts o;
    parse_opts(&o, argc, argv, 0, "gpus");
    if (o.help) {
        fputs(help_gpus, stdout);
        return 0;
    }
    need_no_positional(&o, "gpus");
    int n = llmmem_gpu_count();
    for (int i = 0; i < n; i++) {
        uint64_t bytes = 0;
        char a[64], b[40];
        llmmem_gpu_memory_bytes(&bytes, i);
        printf("%-20s %-22s %s bytes\n", llmmem_gpu_name(i), fmt_bytes(a, sizeof a, bytes, UNITS_BOTH),
               group(b, sizeof b, (long long)bytes));
    }
    return 0;
}

static void json_str(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

static int cmd_params(int argc, char **argv)
{
    opts o;
    parse_opts(&o, argc, argv, OPT_JSON, "params");
    if (o.help) {
        fputs(help_params, stdout);
        return 0;
    }
    need_no_positional(&o, "params");
    static const char *const tnames[] = {"?", "i64", "f64", "bool", "enum", "str", "u64"};
    int n = llmmem_param_count();
    if (o.json)
        printf("[\n");
    for (int i = 0; i < n; i++) {
        int id = llmmem_param_at(i);
        int t = llmmem_param_type(id);
        const char *tn = t > 0 && t < 7 ? tnames[t] : "?";
        char range[96] = "", def[96] = "";
        int64_t lo, hi, di;
        double lf, hf, df;
        if (t == LLMMEM_TYPE_F64) {
            if (llmmem_param_bounds_f64(&lf, &hf, id) == 0)
                snprintf(range, sizeof range, "%.17g..%.17g", lf, hf);
            if (llmmem_param_default_f64(&df, id) == 0)
                snprintf(def, sizeof def, "%.17g", df);
        } else if (t == LLMMEM_TYPE_ENUM) {
            if (llmmem_param_default_i64(&di, id) == 0) {
                const char *dn = llmmem_param_enum_name(id, di);
                snprintf(def, sizeof def, "%s", dn ? dn : "?");
            }
        } else if (t == LLMMEM_TYPE_I64 || t == LLMMEM_TYPE_BOOL) {
            if (llmmem_param_bounds_i64(&lo, &hi, id) == 0)
                snprintf(range, sizeof range, "%lld..%lld", (long long)lo, (long long)hi);
            if (llmmem_param_default_i64(&di, id) == 0)
                snprintf(def, sizeof def, t == LLMMEM_TYPE_BOOL ? (di ? "true" : "false") : "%lld",
                         (long long)di);
        } else if (t == LLMMEM_TYPE_STR) {
            /* the default of a text parameter is read from a fresh configuration */
            llmmem_config *c = NULL;
            size_t need;
            if (llmmem_config_new(&c) == 0)
                llmmem_config_get_str(def, sizeof def, &need, c, id);
            llmmem_config_free(c);
        }
        const char *doc = llmmem_param_doc(id);
        int ne = llmmem_param_enum_count(id);
        if (o.json) {
            printf("  {\"name\": ");
            json_str(llmmem_param_name(id));
            printf(", \"id\": %d, \"type\": \"%s\", \"default\": ", id, tn);
            json_str(def);
            printf(", \"range\": ");
            json_str(range);
            printf(", \"values\": [");
            for (int k = 0; k < ne; k++) {
                if (k)
                    printf(", ");
                json_str(llmmem_param_enum_name(id, k));
            }
            printf("], \"doc\": ");
            json_str(doc ? doc : "");
            printf("}%s\n", i + 1 < n ? "," : "");
            continue;
        }
        printf("%-36s %-5s default %-12s", llmmem_param_name(id), tn, def);
        if (range[0])
            printf(" range %s", range);
        if (ne > 0) {
            printf(" values ");
            for (int k = 0; k < ne; k++)
                printf("%s%s", k ? "|" : "", llmmem_param_enum_name(id, k));
        }
        printf("\n    %s\n", doc ? doc : "");
    }
    if (o.json)
        printf("]\n");
    return 0;
}

static const struct {
    const char *name;
    const char *help;
} commands[] = {
    {"estimate", help_estimate}, {"explain", help_explain}, {"model", help_model},
    {"quick", help_quick},       {"plan", help_plan},         {"validate", help_validate},
    {"presets", help_presets},
    {"gpus", help_gpus},         {"params", help_params},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(help_main, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(help_main, stdout);
        return 0;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            fputs(help_main, stdout);
            return 0;
        }
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(commands[i].name, argv[2]) == 0) {
                fputs(commands[i].help, stdout);
                return 0;
            }
        fail_msg(LLMMEM_E_UNKNOWN_PARAM, EXIT_USAGE, "help: unknown command \"%s\"", argv[2]);
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
        printf("llmmem %s (library %s, soversion %d)\n", LLMMEM_VERSION_STRING,
               llmmem_version_string(), llmmem_soversion());
        return 0;
    }
    int sub_argc = argc - 2;
    char **sub_argv = argv + 2;
    if (strcmp(cmd, "estimate") == 0)
        return cmd_estimate(sub_argc, sub_argv, false);
    if (strcmp(cmd, "explain") == 0)
        return cmd_estimate(sub_argc, sub_argv, true);
    if (strcmp(cmd, "model") == 0)
        return cmd_model(sub_argc, sub_argv);
    if (strcmp(cmd, "quick") == 0)
        return cmd_quick(sub_argc, sub_argv);
    if (strcmp(cmd, "plan") == 0)
        return cmd_plan(sub_argc, sub_argv);
    if (strcmp(cmd, "validate") == 0)
        return cmd_validate(sub_argc, sub_argv);
    if (strcmp(cmd, "presets") == 0)
        return cmd_presets(sub_argc, sub_argv);
    if (strcmp(cmd, "gpus") == 0)
        return cmd_gpus(sub_argc, sub_argv);
    if (strcmp(cmd, "params") == 0)
        return cmd_params(sub_argc, sub_argv);
    fail_msg(LLMMEM_E_UNKNOWN_PARAM, EXIT_USAGE, "unknown command \"%s\" (see llmmem --help)", cmd);
    return EXIT_USAGE;
}
