/* Threads: many threads share models and configs read-only; each runs thousands of
 * estimates (every engine, training and inference) into its own result and compares every
 * figure with the one computed before the threads started, serialises the shared objects,
 * reads parameters, plans a batch, and provokes errors on private configs to check that
 * the error text is per thread. Runs in make check; `make tsan` runs it under
 * ThreadSanitizer (library and test built with -fsanitize=thread), which is what finds
 * races; without TSan the test still catches results that depend on another thread.
 * LLMMEM_THREADS_ITERS sets the estimates per thread (default 2000). */
#include "llmmem.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define NTHREADS 8
#define NMODELS 4
#define NCONFIGS 6
#define JSON_CAP (1 << 16)

static llmmem_model *models[NMODELS];
static llmmem_config *configs[NCONFIGS];

typedef struct reference {
    int rc;
    uint64_t peak, reserved, total;
    char json[JSON_CAP];
} reference;
static reference refs[NMODELS][NCONFIGS];
static char model_json[NMODELS][JSON_CAP];
static char config_json[NCONFIGS][JSON_CAP];
static int64_t ref_max_batch;
static int iters = 2000;

typedef struct worker {
    int id;
    int failures;
    char what[256];
    llmmem_result *res;
} worker;

static const char *const presets[NMODELS] = {"llama-3.2-1b", "qwen3-30b-a3b", "gpt2", "mixtral-8x7b"};

static void make_configs(void)
{
    static const char *const settings[NCONFIGS][6] = {
        {"micro_batch_size", "2", "seq_len", "1024", NULL, NULL},
        {"engine", "zero", "zero_stage", "3", "data_parallel_size", "8"},
        {"engine", "fsdp", "data_parallel_size", "4", "activation_checkpointing", "full"},
        {"engine", "megatron", "tensor_parallel_size", "2", "pipeline_parallel_size", "2"},
        {"mode", "inference", "batch_size", "8", "prompt_len", "2048"},
        {"mode", "inference", "runtime", "vllm", "gpu", "H100-80GB"},
    };
    for (int c = 0; c < NCONFIGS; c++) {
        assert_int_equal(llmmem_config_new(&configs[c]), 0);
        for (int k = 0; k < 6 && settings[c][k]; k += 2)
            if (llmmem_config_set(configs[c], settings[c][k], settings[c][k + 1]) != 0)
                fail_msg("config %d: %s=%s: %s", c, settings[c][k], settings[c][k + 1],
                         llmmem_last_error());
    }
}

static int setup(void **state)
{
    (void)state;
    for (int m = 0; m < NMODELS; m++)
        if (llmmem_model_from_preset(&models[m], presets[m]) != 0) {
            /* a preset list change must not hide the test: fall back to the first */
            if (llmmem_model_from_preset(&models[m], llmmem_preset_name(m)) != 0)
                return -1;
        }
    make_configs();
    const char *env = getenv("LLMMEM_THREADS_ITERS");
    if (env && atoi(env) > 0)
        iters = atoi(env);
    llmmem_result *res = NULL;
    assert_int_equal(llmmem_result_new(&res), 0);
    size_t need;
    for (int m = 0; m < NMODELS; m++) {
        assert_int_equal(llmmem_model_to_json(model_json[m], JSON_CAP, &need, models[m]), 0);
        for (int c = 0; c < NCONFIGS; c++) {
            reference *r = &refs[m][c];
            r->rc = llmmem_estimate(res, models[m], configs[c]);
            if (r->rc != 0)
                continue;
            assert_int_equal(llmmem_result_get_u64(&r->peak, res, LLMMEM_R_PEAK_ALLOCATED_BYTES), 0);
            assert_int_equal(llmmem_result_get_u64(&r->reserved, res, LLMMEM_R_PEAK_RESERVED_BYTES), 0);
            assert_int_equal(llmmem_result_get_u64(&r->total, res, LLMMEM_R_TOTAL_BYTES_PER_GPU), 0);
            assert_int_equal(llmmem_result_to_json(r->json, JSON_CAP, &need, res), 0);
        }
    }
    for (int c = 0; c < NCONFIGS; c++)
        assert_int_equal(llmmem_config_to_json(config_json[c], JSON_CAP, &need, configs[c]), 0);
    assert_int_equal(llmmem_plan_max_batch(&ref_max_batch, models[0], configs[0]), 0);
    llmmem_result_free(res);
    /* the fixture is useful only if most pairs estimate */
    int ok = 0;
    for (int m = 0; m < NMODELS; m++)
        for (int c = 0; c < NCONFIGS; c++)
            ok += refs[m][c].rc == 0;
    print_message("%d of %d model x config pairs estimate; %d estimates per thread, %d threads\n", ok,
                  NMODELS * NCONFIGS, iters, NTHREADS);
    return ok >= NMODELS * NCONFIGS / 2 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    for (int m = 0; m < NMODELS; m++)
        llmmem_model_free(models[m]);
    for (int c = 0; c < NCONFIGS; c++)
        llmmem_config_free(configs[c]);
    return 0;
}

static void note(worker *w, const char *fmt, ...)
{
    if (w->failures++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->what, sizeof w->what, fmt, ap);
        va_end(ap);
    }
}

static void *run_worker(void *arg)
{
    worker *w = arg;
    char json[JSON_CAP];
    size_t need;
    llmmem_config *mine = NULL;
    if (llmmem_config_clone(&mine, configs[w->id % NCONFIGS]) != 0) {
        note(w, "clone failed");
        return NULL;
    }
    char bad[64];
    for (int i = 0; i < iters; i++) {
        int m = (i + w->id) % NMODELS;
        int c = (i / NMODELS + w->id) % NCONFIGS;
        const reference *r = &refs[m][c];
        int rc = llmmem_estimate(w->res, models[m], configs[c]);
        if (rc != r->rc) {
            note(w, "estimate %d/%d returned %d, serially %d", m, c, rc, r->rc);
            continue;
        }
        if (rc == 0) {
            uint64_t peak = 0, reserved = 0, total = 0;
            llmmem_result_get_u64(&peak, w->res, LLMMEM_R_PEAK_ALLOCATED_BYTES);
            llmmem_result_get_u64(&reserved, w->res, LLMMEM_R_PEAK_RESERVED_BYTES);
            llmmem_result_get_u64(&total, w->res, LLMMEM_R_TOTAL_BYTES_PER_GPU);
            if (peak != r->peak || reserved != r->reserved || total != r->total)
                note(w, "estimate %d/%d: %llu/%llu/%llu, serially %llu/%llu/%llu", m, c,
                     (unsigned long long)peak, (unsigned long long)reserved,
                     (unsigned long long)total, (unsigned long long)r->peak,
                     (unsigned long long)r->reserved, (unsigned long long)r->total);
            if (i % 64 == 0 &&
                (llmmem_result_to_json(json, JSON_CAP, &need, w->res) != 0 || strcmp(json, r->json) != 0))
                note(w, "result JSON of %d/%d differs from the serial one", m, c);
        }
        if (i % 128 == 0) {
            /* the shared objects serialise as before */
            if (llmmem_model_to_json(json, JSON_CAP, &need, models[m]) != 0 || strcmp(json, model_json[m]) != 0)
                note(w, "model %d JSON changed", m);
            if (llmmem_config_to_json(json, JSON_CAP, &need, configs[c]) != 0 ||
                strcmp(json, config_json[c]) != 0)
                note(w, "config %d JSON changed", c);
        }
        /* errors are per thread: a private failure names this thread's value */
        snprintf(bad, sizeof bad, "%d-%d", w->id, i);
        if (llmmem_config_set(mine, "micro_batch_size", bad) == 0)
            note(w, "micro_batch_size \"%s\" accepted", bad);
        else if (!strstr(llmmem_last_error(), bad))
            note(w, "error text \"%s\" does not name \"%s\"", llmmem_last_error(), bad);
        int64_t v;
        if (llmmem_config_get_i64(&v, configs[c], LLMMEM_P_MICRO_BATCH_SIZE) != 0)
            note(w, "get_i64 failed on a shared config");
    }
    int64_t mb = -1;
    if (llmmem_plan_max_batch(&mb, models[0], configs[0]) != 0 || mb != ref_max_batch)
        note(w, "plan_max_batch %lld, serially %lld", (long long)mb, (long long)ref_max_batch);
    llmmem_config_free(mine);
    return NULL;
}

static void shared_read_only(void **state)
{
    (void)state;
    pthread_t th[NTHREADS];
    static worker w[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        w[t].id = t;
        w[t].failures = 0;
        assert_int_equal(llmmem_result_new(&w[t].res), 0);
        assert_int_equal(pthread_create(&th[t], NULL, run_worker, &w[t]), 0);
    }
    int failures = 0;
    for (int t = 0; t < NTHREADS; t++) {
        assert_int_equal(pthread_join(th[t], NULL), 0);
        if (w[t].failures) {
            print_error("thread %d: %d failures, first: %s\n", t, w[t].failures, w[t].what);
            failures += w[t].failures;
        }
        llmmem_result_free(w[t].res);
    }
    assert_int_equal(failures, 0);
    /* the shared objects are unchanged after all threads */
    char json[JSON_CAP];
    size_t need;
    for (int c = 0; c < NCONFIGS; c++) {
        assert_int_equal(llmmem_config_to_json(json, JSON_CAP, &need, configs[c]), 0);
        assert_string_equal(json, config_json[c]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(shared_read_only, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
