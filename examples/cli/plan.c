/* llmmem plan: the fastest layouts of N GPUs that fit (plan_table.c prints them), or the
 * inverse questions --max-batch, --max-seq-len and --min-gpus. */
#include "cli.h"


static const cli_help_line plan_help_flags[] = {
    {.flag = "gpus"},
    {.flag = "global_batch"},
    {.flag = "top"},
    {.flag = "json", .help = "the plan as JSON (docs/planner.md)"},
    {.flag = "strict"},
    {.text = "Inverse questions (answered on the configuration as given, exact to one unit: the\n"
             "largest value such that it and every smaller value fit):\n"},
    {.flag = "max_batch"},
    {.flag = "max_seq_len"},
    {.flag = "min_gpus"},
    {.flag = "max_ngl"},
    {.text = "Model, scenario and file options as for llmmem estimate.\n"},
    {0},
};
const cli_help cli_help_plan = {
    "usage: llmmem plan [--scenario FILE] [model] [files] [--PARAM VALUE ...] --gpus N\n"
    "                   [--global-batch G] [--top K] [--json] [--units GiB|GB|both] [--strict]\n"
    "       llmmem plan [same inputs] --max-batch | --max-seq-len | --min-gpus [--json]\n"
    "       llmmem plan --gguf FILE [options] --max-ngl | --max-ctx [--json]\n"
    "\n"
    "Enumerates every layout of N GPUs of the configured kind (--gpu): engine, DP x TP x\n"
    "PP x CP x EP, ZeRO stage / FSDP strategy / Megatron options, offload, recompute and\n"
    "micro-batch; keeps those that fit; ranks them by the step-time model of\n"
    "docs/planner.md and prints the top K (default 10, at most 64) with their memory,\n"
    "and how many candidates were rejected for each reason. Inference (--mode inference):\n"
    "tensor-parallel size x replicas, the batch split over the replicas.\n"
    "\n",
    23, plan_help_flags};

/* ---- inverse questions ------------------------------------------------------------------ */

typedef struct question {
    bool asked;
    const char *key, *what;
    int which; /* llmmem_plan_question, or 0: llmmem_plan_min_gpus, -1: llmmem_plan_max_gpu_layers */
} question;

/* An answer: the value, and for the max questions the value that fits again above it
 * and the last one checked one by one (llmmem_plan_inverse). */
typedef struct answer {
    int64_t v, again, checked;
} answer;

static void print_answers(const question *q, const answer *a, int n, bool json)
{
    if (json) {
        const char *sep = "{";
        for (int i = 0; i < n; i++)
            if (q[i].asked) {
                printf("%s\"%s\":%lld", sep, q[i].key, (long long)a[i].v);
                if (a[i].again > 0)
                    printf(",\"%s_fits_again\":%lld,\"%s_checked\":%lld", q[i].key, (long long)a[i].again,
                           q[i].key, (long long)a[i].checked);
                sep = ",";
            }
        printf("}\n");
        return;
    }
    for (int i = 0; i < n; i++) {
        const long long v = a[i].v, again = a[i].again, checked = a[i].checked;
        if (!q[i].asked)
            continue;
        if (q[i].which < 0)
            printf(v < 0 ? "%-12s %lld  (not even -ngl 0 fits: the compute buffer and the context alone)\n"
                         : "%-12s %lld  (the most %s that fit; %lld = every layer and the output)\n",
                   q[i].key, v, q[i].what, (long long)a[i].checked);
        else if (!q[i].which && v > 0)
            printf("%-12s %lld  (fewest %s that fit)\n", q[i].key, v, q[i].what);
        else if (v <= 0 && again <= 0)
            printf("%-12s 0  (no %s fits)\n", q[i].key, q[i].what);
        else if (again <= 0)
            printf("%-12s %lld  (it and every smaller %s fit; %lld does not)\n", q[i].key, v, q[i].what, v + 1);
        else if (checked > v)
            printf("%-12s %lld  (it and every smaller %s fit; %lld does not; a larger one fits again\n"
                   "%-12s       up to %lld, near the boundary: the allocator's fragmentation decides)\n",
                   q[i].key, v, q[i].what, checked, "", again);
        else
            printf("%-12s %lld  (it and every smaller %s fit, checked one by one; above it only the\n"
                   "%-12s       search's values were checked: %lld fits, %lld does not)\n",
                   q[i].key, v, q[i].what, "", again, again + 1);
    }
}

static void plan_inverse(const llmmem_model *m, const llmmem_config *cfg, const cli_opts *o)
{
    const bool inference = cli_cfg_i64(cfg, LLMMEM_P_MODE) == 1;
    const bool vllm = inference && cli_cfg_i64(cfg, LLMMEM_P_RUNTIME) == LLMMEM_RUNTIME_VLLM;
    const bool lcpp = inference && cli_cfg_i64(cfg, LLMMEM_P_RUNTIME) == LLMMEM_RUNTIME_LLAMA_CPP;
    const question q[] = {
        {o->max_batch, "max_batch",
         vllm ? "max_num_seqs" : lcpp ? "n_parallel" : inference ? "batch_size" : "micro_batch_size",
         LLMMEM_PLAN_MAX_BATCH},
        {o->max_seq_len, lcpp ? "max_ctx" : "max_seq_len",
         vllm ? "max_model_len" : lcpp ? "ctx_size" : inference ? "prompt_len + decode_len" : "seq_len",
         LLMMEM_PLAN_MAX_SEQ_LEN},
        {o->min_gpus, "min_gpus", inference ? "tensor-parallel GPUs" : "GPUs (dp x tp x pp x cp)", 0},
        {o->max_ngl, "max_ngl", "layers on the GPU (-ngl)", -1},
    };
    answer a[4] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (int i = 0; i < 4; i++) {
        if (!q[i].asked)
            continue;
        int rc = q[i].which > 0  ? llmmem_plan_inverse(&a[i].v, &a[i].again, &a[i].checked, m, cfg, q[i].which)
                 : q[i].which < 0 ? llmmem_plan_max_gpu_layers(&a[i].v, m, cfg)
                                  : llmmem_plan_min_gpus(&a[i].v, m, cfg);
        if (rc)
            cli_fail_lib(rc, EXIT_FAIL, q[i].key);
        if (q[i].which < 0) { /* n_layer + 1: all (printed beside the answer) */
            int64_t layers = 0;
            llmmem_model_get_i64(&layers, m, LLMMEM_M_NUM_LAYERS);
            a[i].checked = layers + 1;
        }
    }
    print_answers(q, a, 4, o->json);
}

/* ---- layouts ------------------------------------------------------------------------------ */

static int plan_json(char *buf, size_t cap, size_t *need, const void *p)
{
    return llmmem_plan_to_json(buf, cap, need, p);
}

/* --global-batch G on the configuration (--gpus N is num_gpus, set with the parameters). */
static void plan_flags(llmmem_config *cfg, const cli_opts *o)
{
    int rc;
    if (o->global_batch) {
        long long gb = cli_parse_count("plan", "--global-batch", o->global_batch, 1, 1000000);
        if ((rc = llmmem_config_set_i64(cfg, LLMMEM_P_MICRO_BATCH_SIZE, 1)) != 0 ||
            (rc = llmmem_config_set_i64(cfg, LLMMEM_P_DATA_PARALLEL, 1)) != 0 ||
            (rc = llmmem_config_set_i64(cfg, LLMMEM_P_GRAD_ACCUM_STEPS, gb)) != 0)
            cli_fail_lib(rc, EXIT_USAGE, "--global-batch");
    }
}

/* The top layouts, as JSON or a table; num_gpus defaults to dp x tp x pp x cp. */
static void plan_layouts(const llmmem_model *m, llmmem_config *cfg, const cli_opts *o, int top)
{
    int rc;
    if (cli_cfg_i64(cfg, LLMMEM_P_NUM_GPUS) == 0 &&
        (rc = llmmem_config_set_i64(cfg, LLMMEM_P_NUM_GPUS,
                                    cli_cfg_i64(cfg, LLMMEM_P_DATA_PARALLEL) *
                                        cli_cfg_i64(cfg, LLMMEM_P_TENSOR_PARALLEL) *
                                        cli_cfg_i64(cfg, LLMMEM_P_PIPELINE_PARALLEL) *
                                        cli_cfg_i64(cfg, LLMMEM_P_CONTEXT_PARALLEL))) != 0)
        cli_fail_lib(rc, EXIT_USAGE, "num_gpus");
    llmmem_plan *p = NULL;
    if ((rc = llmmem_plan_new(&p)) != 0 || (rc = llmmem_plan_layouts(p, m, cfg, top)) != 0)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    if (o->json)
        cli_print_json(plan_json, p, true);
    else
        cli_print_plan_table(p, m, cfg, o->units);
    llmmem_plan_free(p);
}

int cli_run_plan(cli_opts *o)
{
    int top = o->top ? (int)cli_parse_count("plan", "--top", o->top, 1, 64) : 10;
    llmmem_model *m;
    llmmem_config *cfg;
    cli_build_inputs(&m, &cfg, o, "plan");
    plan_flags(cfg, o);
    /* an approximate model: said before the layouts (on stderr beside JSON) */
    int64_t approximate = 0;
    llmmem_model_get_i64(&approximate, m, LLMMEM_M_APPROXIMATE);
    if (approximate)
        for (int i = 0; i < llmmem_model_note_count(m); i++)
            fprintf(o->json ? stderr : stdout, "%-12s%s\n", "WARNING", llmmem_model_note(m, i));
    if (o->max_batch || o->max_seq_len || o->min_gpus || o->max_ngl)
        plan_inverse(m, cfg, o);
    else
        plan_layouts(m, cfg, o, top);
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    if (approximate && o->strict) {
        fprintf(stderr, "llmmem: the model is approximate (see the notes) and --strict was given\n");
        return EXIT_APPROXIMATE;
    }
    return 0;
}
