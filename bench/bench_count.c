/* Instructions per call of each path of issue 27, counted by callgrind (which
 * does not depend on the machine's load, unlike the times of bench_plan and
 * bench_estimate): the difference between 2N and N calls of the same input,
 * divided by N, so that the process's start and the inputs' setup cancel out.
 *
 *   bench_count               the table: every case under valgrind --tool=callgrind
 *                             (when valgrind is on the PATH; else it says so)
 *   bench_count CASE N        CASE N times (what the table runs under callgrind)
 *
 * Cases, Llama-3.1-8B unless named: the default training estimate (the allocator
 * replay on, answered again from the model's memo of replays: what a caller asking
 * the same question gets), the same with a fresh model each call (a whole replay),
 * training with the replay off, HF generate (memo, and fresh), vLLM on Llama-3.1-8B
 * and on DeepSeek-V3, parsing the 2 KB config.json of bench_plan (hf_text.h),
 * Megatron with 16 pipeline stages, and the plan of Mixtral-8x7B on 512 H100. Each
 * status is checked: a failing call stops the program (exit status 1). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hf_text.h"

typedef struct count_case {
    const char *name, *what;
    long target; /* instructions per call, issue 27 (0: none) */
    long n;      /* calls of the smaller run */
} count_case;

static const count_case cases[] = {
    {"train", "training estimate, single GPU, replay (memo)", 30000, 50},
    {"train_fresh", "the same, a fresh model each call (whole replay)", 0, 2},
    {"train_noreplay", "training estimate, allocator_replay false", 5000, 200},
    {"generate", "HF generate, TP 1, replay (memo)", 30000, 50},
    {"generate_fresh", "the same, a fresh model each call (whole replay)", 0, 2},
    {"vllm_8b", "vLLM estimate, Llama-3.1-8B", 30000, 20},
    {"vllm_dsv3", "vLLM estimate, DeepSeek-V3", 100000, 10},
    {"parse", "config.json of 2 KB into a model (+ free)", 60000, 50},
    {"megatron_pp16", "Megatron estimate, 16 pipeline stages", 20000, 20},
    {"plan_mixtral", "plan_layouts Mixtral-8x7B, 512 H100, batch 1024", 0, 1},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static llmmem_model *preset(const char *name)
{
    llmmem_model *m = NULL;
    bench_check(llmmem_model_from_preset(&m, name), name);
    return m;
}

static void set(llmmem_config *c, const char *k, const char *v)
{
    int rc = llmmem_config_set(c, k, v);
    if (rc)
        bench_fail(rc, k, v);
}

/* Runs case `name` n times. */
static int run_case(const char *name, long n)
{
    llmmem_config *c = NULL;
    llmmem_result *r = NULL;
    bench_check(llmmem_config_new(&c), "config_new");
    bench_check(llmmem_result_new(&r), "result_new");
    const bool fresh = strstr(name, "_fresh") != NULL;
    llmmem_model *m = preset(!strcmp(name, "vllm_dsv3")       ? "deepseek-v3"
                             : !strcmp(name, "plan_mixtral") ? "mixtral-8x7b"
                                                             : "llama-3.1-8b");
    if (!strcmp(name, "train_noreplay"))
        set(c, "allocator_replay", "false");
    if (!strncmp(name, "generate", 8) || !strncmp(name, "vllm", 4))
        set(c, "mode", "inference");
    if (!strncmp(name, "vllm", 4))
        set(c, "runtime", "vllm");
    if (!strcmp(name, "megatron_pp16")) {
        set(c, "engine", "megatron");
        set(c, "num_gpus", "16");
        set(c, "pipeline_parallel_size", "16");
    }
    if (!strcmp(name, "parse")) {
        char text[4096];
        int len = hf_text(text, sizeof text, 2); /* Meta-Llama-3-8B */
        for (long i = 0; i < n; i++) {
            llmmem_model *p = NULL;
            bench_check(llmmem_model_from_hf_json(&p, text, (size_t)len), "model_from_hf_json");
            llmmem_model_free(p);
        }
    } else if (!strcmp(name, "plan_mixtral")) {
        llmmem_plan *plan = NULL;
        bench_check(llmmem_plan_new(&plan), "plan_new");
        set(c, "num_gpus", "512"); /* as bench_plan: global batch 1024 */
        set(c, "gradient_accumulation_steps", "1024");
        set(c, "seq_len", "4096");
        for (long i = 0; i < n; i++)
            bench_check(llmmem_plan_layouts(plan, m, c, 10), "plan_layouts");
        llmmem_plan_free(plan);
    } else {
        for (long i = 0; i < n; i++) {
            llmmem_model *use = m;
            if (fresh) /* a clone starts with an empty memo of replays */
                bench_check(llmmem_model_clone(&use, m), "model_clone");
            bench_check(llmmem_estimate(r, use, c), name);
            if (fresh)
                llmmem_model_free(use);
        }
    }
    llmmem_model_free(m);
    llmmem_result_free(r);
    llmmem_config_free(c);
    return 0;
}

/* Instructions callgrind counts for `self CASE n`; -1 when it cannot run. */
static long long counted(const char *self, const char *name, long n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "valgrind --tool=callgrind --callgrind-out-file=/dev/null '%s' %s %ld 2>&1", self,
             name, n);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[512];
    long long v = -1;
    while (fgets(line, sizeof line, p)) {
        const char *at = strstr(line, "Collected : ");
        if (at)
            v = atoll(at + 12);
    }
    return pclose(p) == 0 ? v : -1;
}

int main(int argc, char **argv)
{
    if (argc == 3)
        return run_case(argv[1], atol(argv[2]));
    if (system("valgrind --version > /dev/null 2>&1") != 0) {
        printf("bench_count: valgrind is not installed (apt-get install valgrind): no instruction counts\n");
        return 0;
    }
    printf("bench_count: instructions per call, callgrind, (I(2N) - I(N)) / N; targets of issue 27\n\n");
    printf("| %-16s | %-50s | %14s | %10s |      |\n", "case", "what", "instructions", "target");
    printf("|------------------|----------------------------------------------------|----------------|------------|------|\n");
    int slow = 0;
    for (int i = 0; i < NCASES; i++) {
        const count_case *k = &cases[i];
        long long a = counted(argv[0], k->name, k->n), b = counted(argv[0], k->name, 2 * k->n);
        if (a < 0 || b < 0) {
            fprintf(stderr, "bench_count: case %s failed under valgrind\n", k->name);
            return 1;
        }
        long long per = (b - a) / k->n;
        char target[32] = "-";
        if (k->target)
            snprintf(target, sizeof target, "%ld", k->target);
        const char *verdict = !k->target ? "" : per <= k->target ? "ok" : "SLOW";
        slow += k->target && per > k->target;
        printf("| %-16s | %-50s | %14lld | %10s | %-4s |\n", k->name, k->what, per, target, verdict);
        fflush(stdout);
    }
    const char *strict = getenv("BENCH_STRICT");
    return strict && *strict == '1' && slow ? 1 : 0;
}
