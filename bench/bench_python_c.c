/* The C side of bench/bench_python.py: the same sequences of calls the Python cases make,
 * timed the same way (thread CPU time per call, best and median of the rounds), so each
 * Python figure stands beside the C figure of the same run. `make bench` builds it against
 * lib/libllmmem.a; bench_python.py runs it (alone it prints its own table).
 *
 *   bench_python_c [ROUNDS [CALLS]]     one line per case: name best_ns median_ns */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llmmem.h>

static double thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void check(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "bench_python_c: %s: %s: %s\n", what, llmmem_status_name(rc), llmmem_last_error());
        exit(1);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static llmmem_model *model;
static llmmem_config *cfg;
static llmmem_result *res;
static volatile uint64_t sink;

/* llmmem.estimate(model, config): a new result, the estimate (the result is freed by the
 * garbage collector in Python, so here too). */
static void case_bare(long i)
{
    llmmem_result *r = NULL;
    (void)i;
    check(llmmem_result_new(&r), "result_new");
    check(llmmem_estimate(r, model, cfg), "estimate");
    llmmem_result_free(r);
}

/* r.estimate(model, config): into a result that exists. */
static void case_reuse(long i)
{
    (void)i;
    check(llmmem_estimate(res, model, cfg), "estimate");
}

/* llmmem.estimate("llama-3.1-8b", micro_batch_size=1 + i % 8, seq_len=4096)["peak_allocated_bytes"]:
 * the preset model built once, a configuration made and set, the estimate, one key read. */
static void case_full(long i)
{
    llmmem_config *c = NULL;
    llmmem_result *r = NULL;
    uint64_t peak = 0;
    check(llmmem_config_new(&c), "config_new");
    check(llmmem_config_set_i64(c, LLMMEM_P_ALLOCATOR_REPLAY, 0), "set");
    check(llmmem_config_set_i64(c, LLMMEM_P_MICRO_BATCH_SIZE, 1 + i % 8), "set");
    check(llmmem_config_set_i64(c, LLMMEM_P_SEQ_LEN, 4096), "set");
    check(llmmem_result_new(&r), "result_new");
    check(llmmem_estimate(r, model, c), "estimate");
    check(llmmem_result_get_u64(&peak, r, LLMMEM_R_PEAK_ALLOCATED_BYTES), "get");
    sink = peak;
    llmmem_result_free(r);
    llmmem_config_free(c);
}

/* the same with the same keywords every call */
static void case_full_fixed(long i)
{
    (void)i;
    case_full(3);
}

/* llmmem.estimate(llmmem.Model.from_numbers(num_parameters="7B"), micro_batch_size=4)[key]:
 * a model from raw numbers each call (the path gpu-mem-calculator users take) */
static void case_numbers(long i)
{
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    llmmem_result *r = NULL;
    uint64_t peak = 0;
    (void)i;
    check(llmmem_model_new(&m), "model_new");
    check(llmmem_model_set(m, "num_parameters", "7B"), "model_set");
    check(llmmem_config_new(&c), "config_new");
    check(llmmem_config_set_i64(c, LLMMEM_P_ALLOCATOR_REPLAY, 0), "set");
    check(llmmem_config_set_i64(c, LLMMEM_P_MICRO_BATCH_SIZE, 4), "set");
    check(llmmem_result_new(&r), "result_new");
    check(llmmem_estimate(r, m, c), "estimate");
    check(llmmem_result_get_u64(&peak, r, LLMMEM_R_PEAK_ALLOCATED_BYTES), "get");
    sink = peak;
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* r["peak_allocated_bytes"] */
static void case_get(long i)
{
    uint64_t peak = 0;
    (void)i;
    check(llmmem_result_get_u64(&peak, res, LLMMEM_R_PEAK_ALLOCATED_BYTES), "get");
    sink = peak;
}

/* div: the case runs CALLS / div times (the raw-numbers model takes milliseconds) */
static const struct {
    const char *name;
    void (*fn)(long);
    long div;
} cases[] = {
    {"bare", case_bare, 1},   {"reuse", case_reuse, 1},           {"full", case_full, 1},
    {"full_fixed", case_full_fixed, 1}, {"full_float", case_full, 1}, {"numbers", case_numbers, 1000},
    {"get", case_get, 1},
};

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    long calls = argc > 2 ? atol(argv[2]) : 20000;
    if (rounds < 1 || rounds > 1000 || calls < 1) {
        fprintf(stderr, "usage: bench_python_c [ROUNDS [CALLS]]\n");
        return 2;
    }
    check(llmmem_model_from_preset(&model, "llama-3.1-8b"), "preset");
    check(llmmem_config_new(&cfg), "config");
    check(llmmem_config_set_i64(cfg, LLMMEM_P_ALLOCATOR_REPLAY, 0), "config");
    check(llmmem_result_new(&res), "result");
    check(llmmem_estimate(res, model, cfg), "estimate");

    double *t = malloc(sizeof *t * (size_t)rounds);
    if (!t)
        return 1;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        long n = calls / cases[k].div > 5 ? calls / cases[k].div : 5;
        for (long i = 0; i < n / 10; i++) /* warm-up */
            cases[k].fn(i);
        for (int r = 0; r < rounds; r++) {
            double t0 = thread_ns();
            for (long i = 0; i < n; i++)
                cases[k].fn(i);
            t[r] = (thread_ns() - t0) / (double)n;
        }
        qsort(t, (size_t)rounds, sizeof *t, cmp_double);
        printf("%-12s %8.1f %8.1f\n", cases[k].name, t[0], t[rounds / 2]);
    }
    free(t);
    llmmem_result_free(res);
    llmmem_config_free(cfg);
    llmmem_model_free(model);
    return 0;
}
