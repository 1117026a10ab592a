/* Advice tests (issue 29 item 1): llmmem_plan_advise.
 *
 * Each suggestion is checked against the public API, never against numbers of the code:
 * - its configuration (llmmem_advice_config) estimated again gives the total and the
 *   verdict the advice reports (llmmem_advice_result);
 * - its flags applied to the configuration as given through llmmem_config_set (the
 *   names with '-' read as '_') give that same estimate: the command line is ready;
 * - it needs less memory per GPU than the run as given, or fits where that does not;
 * - the ranking: fitting ones first; among them, those that keep the run first, then
 *   fewer GPUs; those that do not fit by total;
 * - a run that fits is never told to shorten its sequence; serving gets a tensor-parallel
 *   size that divides the heads; no suggestion pairs a bitsandbytes optimizer with
 *   CPU-offloaded optimizer state (a run the framework fails); bad arguments are errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmmem.h"

static llmmem_model *preset(const char *name)
{
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, name), 0);
    return m;
}

/* A configuration from "name=value" pairs. */
static llmmem_config *config(const char *const *kv)
{
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    for (int i = 0; kv[i]; i += 2) {
        int rc = llmmem_config_set(c, kv[i], kv[i + 1]);
        if (rc)
            fail_msg("%s=%s: %s", kv[i], kv[i + 1], llmmem_last_error());
    }
    return c;
}

static int64_t ri64(const llmmem_result *r, int key)
{
    int64_t v = 0;
    assert_int_equal(llmmem_result_get_i64(&v, r, key), 0);
    return v;
}

static uint64_t ru64(const llmmem_result *r, int key)
{
    uint64_t v = 0;
    assert_int_equal(llmmem_result_get_u64(&v, r, key), 0);
    return v;
}

/* Applies "--a-b v --c d" to cfg with llmmem_config_set. */
static void apply_flags(llmmem_config *cfg, const char *flags)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", flags);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        assert_true(strncmp(tok, "--", 2) == 0);
        char name[64];
        snprintf(name, sizeof name, "%s", tok + 2);
        for (char *p = name; *p; p++)
            if (*p == '-')
                *p = '_';
        char *value = strtok_r(NULL, " ", &save);
        assert_non_null(value);
        int rc = llmmem_config_set(cfg, name, value);
        if (rc)
            fail_msg("flag %s %s: %s", name, value, llmmem_last_error());
    }
}

/* Every property of the header comment, on one run; returns the number of suggestions. */
static int check_advice(const char *model, const char *const *kv, bool expect_fit)
{
    llmmem_model *m = preset(model);
    llmmem_config *cfg = config(kv);
    llmmem_advice *a = NULL;
    llmmem_result *base = NULL, *r = NULL, *again = NULL;
    assert_int_equal(llmmem_advice_new(&a), 0);
    assert_int_equal(llmmem_result_new(&base), 0);
    assert_int_equal(llmmem_result_new(&r), 0);
    assert_int_equal(llmmem_result_new(&again), 0);
    int rc = llmmem_plan_advise(a, m, cfg);
    if (rc)
        fail_msg("llmmem_plan_advise: %s", llmmem_last_error());
    assert_int_equal(llmmem_advice_result(base, a, -1), 0);
    /* the run as given is the estimate of the configuration as given */
    assert_int_equal(llmmem_estimate(again, m, cfg), 0);
    assert_int_equal(ru64(base, LLMMEM_R_TOTAL_BYTES_PER_GPU), ru64(again, LLMMEM_R_TOTAL_BYTES_PER_GPU));
    const int n = llmmem_advice_count(a);
    assert_true(n > 0);
    const bool base_fits = ri64(base, LLMMEM_R_FITS) != 0;
    int prev_fits = 1, prev_keeps = 1;
    int64_t prev_gpus = 0;
    uint64_t prev_total = 0;
    bool any_fits = false;
    for (int i = 0; i < n; i++) {
        const char *what = llmmem_advice_change(a, i), *flags = llmmem_advice_flags(a, i);
        assert_non_null(what);
        assert_non_null(flags);
        assert_true(strlen(what) > 0 && strncmp(flags, "--", 2) == 0);
        assert_int_equal(llmmem_advice_result(r, a, i), 0);
        const int fits = (int)ri64(r, LLMMEM_R_FITS), keeps = llmmem_advice_keeps_run(a, i);
        const uint64_t total = ru64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
        const int64_t gpus = ri64(r, LLMMEM_R_NUM_GPUS);
        any_fits |= fits != 0;
        /* its configuration, estimated again */
        llmmem_config *c = NULL;
        assert_int_equal(llmmem_advice_config(&c, a, i), 0);
        assert_int_equal(llmmem_estimate(again, m, c), 0);
        assert_int_equal(ru64(again, LLMMEM_R_TOTAL_BYTES_PER_GPU), total);
        assert_int_equal(ri64(again, LLMMEM_R_FITS), fits);
        llmmem_config_free(c);
        /* its flags on the configuration as given */
        assert_int_equal(llmmem_config_clone(&c, cfg), 0);
        apply_flags(c, flags);
        assert_int_equal(llmmem_estimate(again, m, c), 0);
        if (ru64(again, LLMMEM_R_TOTAL_BYTES_PER_GPU) != total)
            fail_msg("suggestion %d (%s): the flags give %llu bytes, the advice %llu", i + 1, flags,
                     (unsigned long long)ru64(again, LLMMEM_R_TOTAL_BYTES_PER_GPU), (unsigned long long)total);
        llmmem_config_free(c);
        /* it helps */
        assert_true(total < ru64(base, LLMMEM_R_TOTAL_BYTES_PER_GPU) || (fits && !base_fits));
        /* a run that fits keeps its sequence */
        if (base_fits)
            assert_null(strstr(flags, "--seq-len"));
        /* ranked */
        assert_true(fits <= prev_fits);
        if (fits && prev_fits && i > 0) {
            assert_true(keeps <= prev_keeps);
            if (keeps == prev_keeps)
                assert_true(gpus >= prev_gpus);
        }
        if (!fits && !prev_fits)
            assert_true(total >= prev_total);
        prev_fits = fits;
        prev_keeps = keeps;
        prev_gpus = gpus;
        prev_total = total;
    }
    if (expect_fit)
        assert_true(any_fits);
    /* the JSON holds the same suggestions */
    size_t need = 0;
    assert_int_equal(llmmem_advice_to_json(NULL, 0, &need, a), LLMMEM_E_BUFFER_TOO_SMALL);
    char *buf = malloc(need + 1);
    assert_non_null(buf);
    assert_int_equal(llmmem_advice_to_json(buf, need + 1, &need, a), 0);
    cJSON *j = cJSON_ParseWithLengthOpts(buf, need, NULL, 1);
    assert_non_null(j);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "suggestions");
    assert_int_equal(cJSON_GetArraySize(s), n);
    const cJSON *first = cJSON_GetArrayItem(s, 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "flags")->valuestring, llmmem_advice_flags(a, 0));
    cJSON_Delete(j);
    free(buf);
    llmmem_result_free(base);
    llmmem_result_free(r);
    llmmem_result_free(again);
    llmmem_advice_free(a);
    llmmem_config_free(cfg);
    llmmem_model_free(m);
    return n;
}

/* Llama-3.1-8B full fine-tune, 8k tokens, micro-batch 2, one H100: does not fit; a
 * change that keeps the run makes it fit on that one GPU (checkpointing and a smaller
 * micro-batch together). */
static void test_training_single(void **state)
{
    (void)state;
    const char *kv[] = {"gpu", "H100-80GB", "seq_len", "8192", "micro_batch_size", "2", NULL};
    check_advice("llama-3.1-8b", kv, true);
    llmmem_model *m = preset("llama-3.1-8b");
    llmmem_config *cfg = config(kv);
    llmmem_advice *a = NULL;
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_advice_new(&a), 0);
    assert_int_equal(llmmem_result_new(&r), 0);
    assert_int_equal(llmmem_plan_advise(a, m, cfg), 0);
    assert_int_equal(llmmem_advice_result(r, a, 0), 0);
    assert_int_equal(ri64(r, LLMMEM_R_FITS), 1);
    assert_int_equal(llmmem_advice_keeps_run(a, 0), 1);
    assert_int_equal(ri64(r, LLMMEM_R_NUM_GPUS), 1);
    /* the global batch kept: micro-batch x accumulation of the first suggestion */
    llmmem_config *c = NULL;
    int64_t b = 0, ga = 0;
    assert_int_equal(llmmem_advice_config(&c, a, 0), 0);
    assert_int_equal(llmmem_config_get_i64(&b, c, LLMMEM_P_MICRO_BATCH_SIZE), 0);
    assert_int_equal(llmmem_config_get_i64(&ga, c, LLMMEM_P_GRAD_ACCUM_STEPS), 0);
    assert_int_equal(b * ga, 2);
    llmmem_config_free(c);
    llmmem_result_free(r);
    llmmem_advice_free(a);
    llmmem_config_free(cfg);
    llmmem_model_free(m);
}

/* Llama-3.1-70B with ZeRO-3 on 8 H100s (no checkpointing): offload and checkpointing. */
static void test_training_zero3(void **state)
{
    (void)state;
    const char *kv[] = {"gpu", "H100-80GB", "engine", "zero", "zero_stage", "3", "data_parallel_size", "8",
                        NULL};
    check_advice("llama-3.1-70b", kv, true);
}

/* A run that fits: the advice is about headroom; no shorter sequence. */
static void test_training_fits(void **state)
{
    (void)state;
    const char *kv[] = {"gpu", "H100-80GB", "lora_rank", "16", NULL};
    llmmem_model *m = preset("llama-3.1-8b");
    llmmem_config *cfg = config(kv);
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    assert_int_equal(llmmem_estimate(r, m, cfg), 0);
    assert_int_equal(ri64(r, LLMMEM_R_FITS), 1);
    llmmem_result_free(r);
    llmmem_config_free(cfg);
    llmmem_model_free(m);
    check_advice("llama-3.1-8b", kv, true);
}

/* Qwen2.5-72B on vLLM, TP 2 on A100-80GB: does not fit; TP 4 (a divisor of the 64
 * heads) does, and so do vLLM's own levers. */
static void test_serving_vllm(void **state)
{
    (void)state;
    const char *kv[] = {"mode", "inference", "runtime", "vllm", "gpu", "A100-80GB", "tensor_parallel_size", "2",
                        NULL};
    check_advice("qwen2.5-72b", kv, true);
    llmmem_model *m = preset("qwen2.5-72b");
    llmmem_config *cfg = config(kv);
    llmmem_advice *a = NULL;
    assert_int_equal(llmmem_advice_new(&a), 0);
    assert_int_equal(llmmem_plan_advise(a, m, cfg), 0);
    int64_t heads = 0;
    assert_int_equal(llmmem_model_get_i64(&heads, m, LLMMEM_M_NUM_HEADS), 0);
    bool tp = false;
    for (int i = 0; i < llmmem_advice_count(a); i++) {
        llmmem_config *c = NULL;
        int64_t t = 0;
        assert_int_equal(llmmem_advice_config(&c, a, i), 0);
        assert_int_equal(llmmem_config_get_i64(&t, c, LLMMEM_P_TENSOR_PARALLEL), 0);
        if (t != 2) {
            tp = true;
            assert_int_equal(heads % t, 0);
        }
        llmmem_config_free(c);
    }
    assert_true(tp);
    llmmem_advice_free(a);
    llmmem_config_free(cfg);
    llmmem_model_free(m);
}

/* A bitsandbytes optimizer stepping CPU-offloaded state: DeepSpeed ZeRO-Offload refuses it
 * (engine.py _configure_optimizer; the library refuses it too, zero.c zero_check), FSDP
 * CPUOffload runs it with bitsandbytes' CPU kernels, which the estimate does not model:
 * never suggested, from either side. */
static void no_bnb_offload(const char *const *kv)
{
    llmmem_model *m = preset("llama-3.1-70b");
    llmmem_config *cfg = config(kv);
    llmmem_advice *a = NULL;
    assert_int_equal(llmmem_advice_new(&a), 0);
    assert_int_equal(llmmem_plan_advise(a, m, cfg), 0);
    assert_true(llmmem_advice_count(a) > 0);
    for (int i = 0; i < llmmem_advice_count(a); i++) {
        llmmem_config *c = NULL;
        char opt[64], off[16];
        size_t need;
        int64_t fsdp_off = 0;
        assert_int_equal(llmmem_advice_config(&c, a, i), 0);
        assert_int_equal(llmmem_config_get_str(opt, sizeof opt, &need, c, LLMMEM_P_OPTIMIZER), 0);
        assert_int_equal(llmmem_config_get_str(off, sizeof off, &need, c, LLMMEM_P_OFFLOAD_OPTIMIZER), 0);
        assert_int_equal(llmmem_config_get_i64(&fsdp_off, c, LLMMEM_P_FSDP_CPU_OFFLOAD), 0);
        const bool bnb = strstr(opt, "8bit") != NULL || strstr(opt, "paged") != NULL;
        if (bnb && (strcmp(off, "none") != 0 || fsdp_off))
            fail_msg("suggestion %d (%s): %s with CPU-offloaded optimizer state", i + 1, llmmem_advice_flags(a, i), opt);
        llmmem_config_free(c);
    }
    llmmem_advice_free(a);
    llmmem_config_free(cfg);
    llmmem_model_free(m);
}

static void test_no_bnb_with_offload(void **state)
{
    (void)state;
    const char *zero[] = {"gpu", "H100-80GB", "engine", "zero", "zero_stage", "3", "data_parallel_size", "8", NULL};
    const char *fsdp[] = {"gpu", "H100-80GB", "engine", "fsdp", "data_parallel_size", "8", NULL};
    const char *bnb[] = {"gpu", "H100-80GB", "engine", "zero", "zero_stage", "3", "data_parallel_size", "8",
                         "optimizer", "adamw_8bit", NULL};
    no_bnb_offload(zero);
    no_bnb_offload(fsdp);
    no_bnb_offload(bnb);
}

static void test_errors(void **state)
{
    (void)state;
    llmmem_advice *a = NULL;
    llmmem_model *m = preset("llama-3.2-1b");
    llmmem_config *cfg = NULL;
    assert_int_equal(llmmem_config_new(&cfg), 0);
    assert_int_equal(llmmem_advice_new(NULL), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_advice_new(&a), 0);
    assert_int_equal(llmmem_plan_advise(NULL, m, cfg), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_plan_advise(a, NULL, cfg), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_plan_advise(a, m, NULL), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_advice_count(NULL), 0);
    assert_null(llmmem_advice_change(a, 0));
    assert_null(llmmem_advice_flags(a, -1));
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_advice_config(&c, a, 0), LLMMEM_E_OUT_OF_RANGE);
    assert_int_equal(llmmem_advice_keeps_run(a, 5), LLMMEM_E_OUT_OF_RANGE);
    assert_int_equal(llmmem_advice_to_json(NULL, 4, NULL, a), LLMMEM_E_INVALID_ARG);
    llmmem_advice_free(a);
    llmmem_advice_free(NULL);
    llmmem_config_free(cfg);
    llmmem_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_training_single), cmocka_unit_test(test_training_zero3),
        cmocka_unit_test(test_training_fits),   cmocka_unit_test(test_serving_vllm),
        cmocka_unit_test(test_no_bnb_with_offload),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
