/* The speed targets of issue 7, as one table (`make bench`; never a timed test).
 *
 *   estimate, training   ZeRO-3 on 64 H100, full recompute (issue 7: Llama-3-70B;
 *                        here 14 models, 1.2B to 671B, in turn)                       <= 1 us
 *   estimate, inference  HF generate and vLLM, TP 1-8, the same 14 models            <= 1 us
 *   parse config.json    a 2 KB HF config (Llama-3 fields with the defaults that
 *                        save_pretrained writes), 8 variants in turn                 <= 20 us
 *   plan                 Mixtral-8x7B on 512 H100, global batch 1024 (>= 100,000
 *                        candidate layouts), single-threaded                         <= 100 ms
 *   llmmem estimate      the CLI as a whole process, start to JSON out, 7 command
 *                        lines in turn                                               <= 5 ms
 *   llmmem plan          the CLI as a whole process on the plan case above           <= 100 ms
 *
 * The library cases are timed by bench.h: 7 rounds, CPU time of the bench's
 * thread, median and fastest round, wall-clock median beside them; every call's
 * status is checked (a failing call stops the bench, exit status 1). The plan
 * rows say how many candidate layouts the planner enumerated and how many of
 * them it actually estimated (the rest are rejected before estimating or
 * classified by the micro-batch boundary search). The CLI rows spawn the
 * process (posix_spawn, stdout to /dev/null, waitpid) and time it by the
 * children's CPU time (user + sys, getrusage), the wall clock beside.
 * Exit status 0; with BENCH_STRICT=1 in the environment, 1 when a case is
 * SLOW. Usage: bench_plan [CLI path] (default examples/llmmem). */
#include <inttypes.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hf_text.h"
#include "workloads.h"

extern char **environ;

/* ---- config.json ---------------------------------------------------------------- */

static void parse_load(bench_texts *t)
{
    for (int i = 0; i < HF_VARIANTS; i++) {
        int n = hf_text(t->text[i], sizeof t->text[i], i);
        if (n < 0) {
            fprintf(stderr, "bench_plan: config.json variant %d does not fit\n", i);
            exit(1);
        }
        bench_texts_add(t, hf_sizes[i].name, (size_t)n);
    }
}

/* ---- plan ------------------------------------------------------------------------- */

typedef struct plan_work {
    const char *preset;
    int gpus, global_batch;
} plan_work;

/* The issue-7 case first, then a cycle of 1.2B to 671B, 8 to 1024 GPUs. */
static const plan_work plan_target = {"mixtral-8x7b", 512, 1024};
static const plan_work plan_cycle[] = {
    {"llama-3.2-1b", 8, 64},       {"llama-3.1-8b", 64, 256}, {"qwen3-30b-a3b", 128, 512},
    {"llama-3-70b", 256, 512},     {"mixtral-8x7b", 512, 1024}, {"llama-3.1-405b", 1024, 2048},
    {"deepseek-v3", 1024, 1024},
};
#define PLAN_MAX (int)(sizeof plan_cycle / sizeof plan_cycle[0])

typedef struct plan_ctx {
    llmmem_plan *plan;
    llmmem_model *model[PLAN_MAX];
    llmmem_config *cfg[PLAN_MAX];
    const plan_work *work[PLAN_MAX];
    int n;
    int64_t candidates, estimates, feasible; /* over one call of each workload */
    char label[PLAN_MAX][96];
} plan_ctx;

static int body_plan(void *ctx, long i)
{
    plan_ctx *c = ctx;
    return llmmem_plan_layouts(c->plan, c->model[i % c->n], c->cfg[i % c->n], 10);
}

static const char *name_plan(void *ctx, long i)
{
    return ((plan_ctx *)ctx)->label[i];
}

/* A number of the plan's JSON ("estimates", "feasible": no getter in the API). */
static int64_t plan_json_count(const llmmem_plan *plan, const char *key)
{
    static char buf[1 << 16];
    size_t need = 0;
    bench_check(llmmem_plan_to_json(buf, sizeof buf, &need, plan), "plan_to_json");
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *at = strstr(buf, pat);
    if (!at) {
        fprintf(stderr, "bench_plan: no %s in the plan's JSON\n", key);
        exit(1);
    }
    return strtoll(at + strlen(pat), NULL, 10);
}

static void plan_add(plan_ctx *c, const plan_work *w)
{
    int k = c->n++;
    c->work[k] = w;
    snprintf(c->label[k], sizeof c->label[k], "%s on %d GPUs, global batch %d", w->preset, w->gpus,
             w->global_batch);
    bench_check(llmmem_model_from_preset(&c->model[k], w->preset), w->preset);
    bench_check(llmmem_config_new(&c->cfg[k]), "config_new");
    bench_check(llmmem_config_set_i64(c->cfg[k], LLMMEM_P_NUM_GPUS, w->gpus), "set num_gpus");
    bench_check(llmmem_config_set_i64(c->cfg[k], LLMMEM_P_GRAD_ACCUM_STEPS, w->global_batch), "set ga");
    bench_check(llmmem_config_set_i64(c->cfg[k], LLMMEM_P_SEQ_LEN, 4096), "set seq_len");
    int rc = body_plan(c, k);
    if (rc)
        bench_fail(rc, "plan_layouts", c->label[k]);
    c->candidates += llmmem_plan_candidates(c->plan);
    c->estimates += plan_json_count(c->plan, "estimates");
    c->feasible += plan_json_count(c->plan, "feasible");
}

static void plan_free(plan_ctx *c)
{
    for (int k = 0; k < c->n; k++) {
        llmmem_model_free(c->model[k]);
        llmmem_config_free(c->cfg[k]);
    }
}

/* Times the workloads of c; the note counts enumerated and estimated layouts. */
static void plan_row(const char *name, plan_ctx *c, double target)
{
    bench_case pc = {"plan_layouts", body_plan, name_plan, c, c->n};
    bench_stat st = bench_time(&pc);
    char note[256];
    snprintf(note, sizeof note,
             "%s%" PRId64 " layouts enumerated, %" PRId64 " estimated (%.1f%%), %" PRId64
             " found to fit; %.2f us of planning per estimate made",
             c->n > 1 ? "per call; all together: " : "", c->candidates, c->estimates,
             100.0 * (double)c->estimates / (double)c->candidates, c->feasible,
             st.median * c->n / (double)c->estimates * 1e6);
    bench_row(name, st, target, "ms", note);
}

/* ---- the CLI as a process ----------------------------------------------------------- */

static double rusage_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
}

/* Runs argvs[r % n] `runs` times: the children's CPU time (user + sys,
 * getrusage) median and minimum, the wall-clock median. A process that fails
 * stops the bench. */
static bench_stat cli_process(const char *cli, char *const *const argvs[], int n, int runs)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1 /* O_WRONLY */, 0);
    double wall[64], cpu[64];
    runs = runs > 64 ? 64 : runs;
    for (int r = 0; r < runs; r++) {
        char *const *argv = argvs[r % n];
        pid_t pid;
        double c0 = rusage_s(), t0 = bench_wall();
        int st = 0;
        if (posix_spawn(&pid, cli, &fa, NULL, argv, environ) != 0 || waitpid(pid, &st, 0) < 0 ||
            !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "bench_plan: %s %s %s ... failed (status %d)\n", cli, argv[1], argv[2], st);
            exit(1);
        }
        wall[r] = bench_wall() - t0;
        cpu[r] = rusage_s() - c0;
    }
    posix_spawn_file_actions_destroy(&fa);
    bench_stat s = {0, 0, 0, runs};
    s.median = bench_median(cpu, runs);
    s.min = cpu[0];
    s.wall = bench_median(wall, runs);
    return s;
}

static void cli_rows(const char *cli)
{
    char note[256];
    if (access(cli, X_OK) != 0) {
        snprintf(note, sizeof note, "%.200s not built (make examples)", cli);
        bench_row_na("llmmem estimate / plan (process)", note);
        return;
    }
    char *c = (char *)cli;
    char *e0[] = {c, "estimate", "--preset", "llama-3-70b", "--json", NULL};
    char *e1[] = {c, "estimate", "--preset", "llama-3.2-1b", "--engine", "zero", "--zero-stage", "2",
                  "--num-gpus", "8", "--json", NULL};
    char *e2[] = {c, "estimate", "--preset", "mixtral-8x7b", "--engine", "fsdp", "--num-gpus", "16",
                  "--json", NULL};
    char *e3[] = {c, "estimate", "--preset", "deepseek-v3", "--engine", "megatron", "--num-gpus", "64",
                  "--tensor-parallel-size", "8", "--expert-parallel-size", "8", "--json", NULL};
    char *e4[] = {c, "estimate", "--preset", "qwen2.5-7b", "--mode", "inference", "--runtime", "vllm",
                  "--json", NULL};
    char *e5[] = {c, "estimate", "--num-parameters", "175B", "--engine", "zero", "--zero-stage", "3",
                  "--num-gpus", "64", "--json", NULL};
    char *e6[] = {c, "estimate", "--preset", "qwen3-235b-a22b", "--mode", "inference",
                  "--tensor-parallel-size", "8", "--batch-size", "16", "--json", NULL};
    char *const *const est[] = {e0, e1, e2, e3, e4, e5, e6};
    bench_row("llmmem estimate ... --json (process)", cli_process(cli, est, 7, 42), 5e-3, "ms",
              "42 processes over 7 command lines (1.2B-671B, 5 engines, inference)");
    char *p0[] = {c, "plan", "--preset", "mixtral-8x7b", "--gpus", "512", "--global-batch", "1024",
                  "--seq-len", "4096", NULL};
    char *const *const plan[] = {p0};
    bench_row("llmmem plan, Mixtral-8x7B x512 (process)", cli_process(cli, plan, 1, 11), 100e-3, "ms",
              "11 processes, table of the top 10");
}

/* The estimate targets: ZeRO-3 on 64 H100 with full recompute (issue 7's
 * Llama-3-70B case over 14 models), the single-GPU training model alone, and
 * both inference runtimes. */
static const struct {
    const char *name;
    bench_setup setup;
    const char *note;
} estimates[] = {
    {"estimate: ZeRO-3 x64 H100, full recompute", setup_zero3_x64,
     "14 models, 1.2B-671B (11 presets, 3 raw sizes), micro-batch 1-2, seq 4096"},
    {"estimate: single GPU (training model alone)", setup_single,
     "14 models; micro-batch 1-4, seq 2048-8192, each recompute mode"},
    {"estimate: inference, HF generate, TP 1-8", setup_hf, "14 models; batch 1-32, prompt 512-8192, decode 128-256"},
    {"estimate: inference, vLLM, TP 1-8", setup_vllm,
     "14 models; max_model_len 4K-32K, max_num_seqs 64-256, KV fp8/auto"},
};
#define ESTIMATES (int)(sizeof estimates / sizeof estimates[0])

int main(int argc, char **argv)
{
    const char *cli = argc > 1 ? argv[1] : "examples/llmmem";
    static bench_models ms;
    static bench_inputs sets[ESTIMATES];
    bench_models_load(&ms);
    printf("bench_plan: the targets of issue 7; library cases: CPU time per call, %d rounds\n\n", BENCH_ROUNDS);
    bench_header();

    for (int k = 0; k < ESTIMATES; k++) {
        bench_inputs_build(&sets[k], estimates[k].name, &ms, estimates[k].setup);
        bench_case c = bench_estimate_case(&sets[k]);
        bench_row(estimates[k].name, bench_time(&c), 1e-6, "us", estimates[k].note);
    }

    static bench_texts texts;
    parse_load(&texts);
    bench_case cp = bench_texts_case(&texts);
    char note[256];
    snprintf(note, sizeof note, "%d variants of %zu-%zu bytes (1B-405B sizes), includes model_free",
             texts.n, texts.lo, texts.hi);
    bench_row("parse config.json into a model", bench_time(&cp), 20e-6, "us", note);

    static plan_ctx target, cycle;
    bench_check(llmmem_plan_new(&target.plan), "plan_new");
    cycle.plan = target.plan;
    plan_add(&target, &plan_target);
    plan_row("plan: Mixtral-8x7B on 512 H100, batch 1024", &target, 100e-3);
    for (int k = 0; k < PLAN_MAX; k++)
        plan_add(&cycle, &plan_cycle[k]);
    plan_row("plan: 7 workloads, 1.2B-671B, 8-1024 GPUs", &cycle, 0);

    cli_rows(cli);

    plan_free(&target);
    plan_free(&cycle);
    llmmem_plan_free(target.plan);
    for (int k = 0; k < ESTIMATES; k++)
        bench_inputs_free(&sets[k]);
    bench_models_free(&ms);
    return bench_exit_status();
}
