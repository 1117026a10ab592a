/* Arithmetic at the extremes: a 10-trillion-parameter model, a 10-million-token context,
 * a batch of a million. Each estimate returns either a correct figure or
 * LLMMEM_E_OUT_OF_RANGE, never a wrapped number; non-finite and negative reals are
 * rejected. Expected figures are by hand:
 *   - AdamW (torch.optim.AdamW, states zeros_like(param)) on bf16 weights without a master
 *     copy: weights 2 B, gradients 2 B, exp_avg + exp_avg_sq 4 B per parameter;
 *   - KV cache of llama-3.1-8b (config.json: 32 layers, 8 KV heads, head_dim 128, bf16):
 *     2 (K and V) x 32 x 8 x 128 x 2 B = 131072 B per token, times tokens times batch;
 *   - headroom_bytes = capacity - total exactly, so when that is below INT64_MIN the
 *     estimate must fail with LLMMEM_E_OUT_OF_RANGE.
 * Then a sweep over presets x engines x extreme settings checks the invariants of every
 * successful estimate (LLMMEM_OVERFLOW_FULL=1: every preset). */
#include "llmmem.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static uint64_t get_u64(const llmmem_result *r, int key)
{
    uint64_t v = 0;
    assert_int_equal(llmmem_result_get_u64(&v, r, key), 0);
    return v;
}

static uint64_t comp(const llmmem_result *r, int phase, int component)
{
    uint64_t v = 0;
    assert_int_equal(llmmem_result_component_bytes(&v, r, phase, component), 0);
    return v;
}

/* headroom == cap - total exactly (as a signed 65-bit quantity). */
static int headroom_exact(const llmmem_result *r)
{
    uint64_t cap = get_u64(r, LLMMEM_R_GPU_MEMORY_BYTES), total = get_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
    int64_t h = 0;
    assert_int_equal(llmmem_result_get_i64(&h, r, LLMMEM_R_HEADROOM_BYTES), 0);
    if (total <= cap)
        return h >= 0 && (uint64_t)h == cap - total;
    /* negative: -(h + 1) + 1 avoids negating INT64_MIN */
    return h < 0 && (uint64_t)(-(h + 1)) + 1 == total - cap;
}

static void set(llmmem_config *c, const char *name, const char *value)
{
    if (llmmem_config_set(c, name, value) != 0)
        fail_msg("%s=%s: %s", name, value, llmmem_last_error());
}

static void ten_trillion_parameters(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_model_new(&m), 0);
    assert_int_equal(llmmem_model_set(m, "num_parameters", "10T"), 0);
    int64_t p = 0;
    assert_int_equal(llmmem_model_get_i64(&p, m, LLMMEM_M_PARAMS), 0);
    assert_true(fabs((double)p - 1e13) < 1e13 * 1e-3); /* the shape is derived from the size */
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "param_dtype", "bf16");
    set(c, "optimizer", "adamw");
    set(c, "master_weights", "false");
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    uint64_t P = (uint64_t)p;
    assert_int_equal(get_u64(r, LLMMEM_R_WEIGHTS_BYTES), 2 * P);
    assert_int_equal(comp(r, LLMMEM_PHASE_OPTIMIZER, LLMMEM_C_WEIGHTS), 2 * P);
    assert_int_equal(comp(r, LLMMEM_PHASE_OPTIMIZER, LLMMEM_C_GRADIENTS), 2 * P);
    assert_int_equal(comp(r, LLMMEM_PHASE_OPTIMIZER, LLMMEM_C_OPTIMIZER_STATE), 4 * P);
    assert_true(get_u64(r, LLMMEM_R_PEAK_ALLOCATED_BYTES) >= 8 * P);
    assert_true(headroom_exact(r));
    /* a million sequences of 10M tokens of it: no 64-bit figure holds the activations */
    set(c, "micro_batch_size", "1000000");
    set(c, "seq_len", "10000000");
    llmmem_clear_error();
    assert_int_equal(llmmem_estimate(r, m, c), LLMMEM_E_OUT_OF_RANGE);
    assert_non_null(strstr(llmmem_last_error(), "overflow"));
    /* 10T in fp32 with a fp32 master copy on a million data-parallel ZeRO-3 ranks */
    set(c, "micro_batch_size", "1");
    set(c, "seq_len", "1024");
    set(c, "engine", "zero");
    set(c, "zero_stage", "3");
    set(c, "data_parallel_size", "1000000");
    int rc = llmmem_estimate(r, m, c);
    assert_true(rc == 0 || rc == LLMMEM_E_OUT_OF_RANGE);
    if (rc == 0)
        assert_true(headroom_exact(r));
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

static void ten_million_token_context(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-3.1-8b"), 0);
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "mode", "inference");
    set(c, "batch_size", "1");
    set(c, "prompt_len", "10000000");
    set(c, "decode_len", "1");
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    assert_int_equal(get_u64(r, LLMMEM_R_KV_BYTES_PER_TOKEN), 131072);
    assert_int_equal(get_u64(r, LLMMEM_R_KV_CACHE_BYTES), UINT64_C(131072) * 10000001);
    assert_true(headroom_exact(r));
    /* and a batch of a million of them: 2.6e18 bytes of KV still fits 64 bits */
    set(c, "batch_size", "1000000");
    set(c, "decode_len", "10000000");
    int rc = llmmem_estimate(r, m, c);
    assert_true(rc == 0 || rc == LLMMEM_E_OUT_OF_RANGE);
    if (rc == 0) {
        assert_int_equal(get_u64(r, LLMMEM_R_KV_CACHE_BYTES), UINT64_C(131072) * 20000000 * 1000000);
        assert_true(headroom_exact(r));
    }
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* Regression (fuzz/robustness sweep): with total - capacity above INT64_MAX the headroom
 * was converted to int64 and negated, giving a large positive number. llama-2-7b (32
 * layers, 32 KV heads, head_dim 128, fp16): 524288 B of KV per token; a million
 * sequences of 20M tokens are 1.05e19 B, beyond INT64_MAX but inside uint64. */
static void headroom_beyond_int64(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-2-7b"), 0);
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "mode", "inference");
    set(c, "batch_size", "1000000");
    set(c, "prompt_len", "10000000");
    set(c, "decode_len", "10000000");
    int rc = llmmem_estimate(r, m, c);
    if (rc == 0)
        assert_true(headroom_exact(r));
    else
        assert_int_equal(rc, LLMMEM_E_OUT_OF_RANGE);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* Regression: a calibration reserved_headroom factor (up to 100) times a huge allocator
 * headroom was converted from double to uint64 without a range check (undefined for
 * values >= 2^64) and added without overflow detection. */
static void calibrated_headroom_beyond_uint64(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-2-7b"), 0);
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(llmmem_result_new(&r), 0);
    const char *prof = "{\"reserved_headroom\": 100}";
    assert_int_equal(llmmem_config_apply_calibration_json(c, prof, strlen(prof)), 0);
    static const char *const sizes[][2] = {{"1000000", "10000000"}, {"100000", "10000000"},
                                           {"1000000", "1000000"},  {"10000", "10000000"}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        set(c, "mode", "inference"); /* training settings would not apply (issue 25 item 1) */
        set(c, "batch_size", sizes[i][0]);
        set(c, "prompt_len", sizes[i][1]);
        int rc = llmmem_estimate(r, m, c);
        if (rc != 0) {
            assert_int_equal(rc, LLMMEM_E_OUT_OF_RANGE);
            continue;
        }
        uint64_t a = get_u64(r, LLMMEM_R_PEAK_ALLOCATED_BYTES), res = get_u64(r, LLMMEM_R_PEAK_RESERVED_BYTES);
        assert_true(res >= a);
        assert_true(get_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU) >= res);
        assert_true(headroom_exact(r));
    }
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* Regression (fuzz_hf_config): a llava vision_feature_layer far beyond int64 was
 * converted to int64 before its range check (undefined behaviour). Numbers beyond the
 * 64-bit range anywhere in a config.json are LLMMEM_E_OUT_OF_RANGE (or a schema error). */
static void hf_config_huge_numbers(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "{\"model_type\": \"llava\", \"vision_feature_layer\": 647777777777777777777777777777777777777777777777777777777}",
        "{\"model_type\": \"llava\", \"vision_feature_layer\": -1e300}",
        "{\"model_type\": \"llava\", \"vision_feature_layer\": [1e19, -2]}",
        "{\"model_type\": \"llama\", \"hidden_size\": 1e30, \"num_hidden_layers\": 2,"
        " \"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100}",
        "{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 9223372036854775807,"
        " \"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100}",
        "{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
        " \"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 1e400}",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        llmmem_model *m = NULL;
        int rc = llmmem_model_from_hf_json(&m, cases[i], strlen(cases[i]));
        if (rc != LLMMEM_E_OUT_OF_RANGE && rc != LLMMEM_E_SCHEMA)
            fail_msg("case %zu: %d (%s)", i, rc, llmmem_last_error());
        assert_null(m);
    }
}

static void reals_rejected(void **state)
{
    (void)state;
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    static const double bad[] = {NAN, INFINITY, -INFINITY, -1.0, -1e-300, -1e300};
    static const char *const bad_text[] = {"nan", "NaN", "inf", "-inf", "infinity", "1e400", "-1",
                                           "-1e-300", "-0.5"};
    int reals = 0;
    for (int i = 0; i < llmmem_param_count(); i++) {
        int p = llmmem_param_at(i);
        if (llmmem_param_type(p) != LLMMEM_TYPE_F64)
            continue;
        reals++;
        double lo = -1, hi = -1;
        assert_int_equal(llmmem_param_bounds_f64(&lo, &hi, p), 0);
        assert_true(isfinite(lo) && isfinite(hi) && lo >= 0 && hi >= lo);
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
            if (llmmem_config_set_f64(c, p, bad[k]) != LLMMEM_E_OUT_OF_RANGE)
                fail_msg("%s accepted %g", llmmem_param_name(p), bad[k]);
        for (size_t k = 0; k < sizeof bad_text / sizeof bad_text[0]; k++) {
            int rc = llmmem_config_set(c, llmmem_param_name(p), bad_text[k]);
            if (rc != LLMMEM_E_OUT_OF_RANGE && rc != LLMMEM_E_PARSE)
                fail_msg("%s accepted \"%s\" (%d)", llmmem_param_name(p), bad_text[k], rc);
        }
    }
    assert_true(reals >= 3);
    /* the same through JSON: a number beyond double, and a negative one */
    llmmem_config *out = NULL;
    const char *j1 = "{\"model\": {\"preset\": \"gpt2\"}, \"training\": {\"lora_alpha\": 1e400}}";
    const char *j2 = "{\"model\": {\"preset\": \"gpt2\"}, \"training\": {\"lora_alpha\": -2}}";
    assert_true(llmmem_scenario_from_json(NULL, &out, j1, strlen(j1), NULL) < 0);
    assert_true(llmmem_scenario_from_json(NULL, &out, j2, strlen(j2), NULL) < 0);
    assert_null(out);
    llmmem_config_free(c);
}

/* ---- sweep ------------------------------------------------------------------ */

static const char *const engines[][4] = {
    {"mode", "training", "engine", "single"}, {"mode", "training", "engine", "ddp"},
    {"mode", "training", "engine", "zero"},   {"mode", "training", "engine", "fsdp"},
    {"mode", "training", "engine", "megatron"}, {"mode", "training", "engine", "megatron_deepspeed"},
    {"mode", "inference", "runtime", "hf"},   {"mode", "inference", "runtime", "vllm"},
};
static const char *const extremes[][2] = {
    {"micro_batch_size", "1000000"},     {"seq_len", "10000000"},
    {"batch_size", "1000000"},           {"prompt_len", "10000000"},
    {"decode_len", "10000000"},          {"max_model_len", "10000000"},
    {"num_gpus", "1000000"},             {"data_parallel_size", "1000000"},
    {"max_num_seqs", "1000000"},         {"max_num_batched_tokens", "10000000"},
    {"gpu_memory_bytes", "9223372036854775807"}, {"reduce_bucket_size", "9223372036854775807"},
    {"stage3_max_live_parameters", "9223372036854775807"},
    {"stage3_prefetch_bucket_size", "9223372036854775807"},
    {"allgather_bucket_size", "9223372036854775807"}, {"bucket_cap_mb", "1e15"},
    {"cuda_context_bytes", "9223372036854775807"}, {"lora_rank", "1000000"},
    {"gradient_accumulation_steps", "1000000"},
};
#define NEXT (sizeof extremes / sizeof extremes[0])

static void sweep(void **state)
{
    (void)state;
    static const char *const subset[] = {"llama-2-7b", "llama-3.1-405b", "mixtral-8x22b",
                                         "qwen3-235b-a22b", "gemma-2-27b", "gpt2"};
    int full = getenv("LLMMEM_OVERFLOW_FULL") != NULL;
    int nmodels = full ? llmmem_preset_count() + 1 : (int)(sizeof subset / sizeof subset[0]) + 1;
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    long runs = 0, ok = 0, oor = 0;
    for (int mi = 0; mi < nmodels; mi++) {
        llmmem_model *m = NULL;
        if (mi == 0) {
            assert_int_equal(llmmem_model_new(&m), 0);
            assert_int_equal(llmmem_model_set(m, "num_parameters", "10T"), 0);
        } else {
            const char *name = full ? llmmem_preset_name(mi - 1) : subset[mi - 1];
            if (llmmem_model_from_preset(&m, name) != 0)
                continue; /* a renamed preset must not fail the sweep */
        }
        for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++)
            for (unsigned mask = 1; mask < 32; mask++)
                for (size_t x0 = 0; x0 < NEXT; x0 += 5) {
                    llmmem_config *c = NULL;
                    assert_int_equal(llmmem_config_new(&c), 0);
                    set(c, engines[e][0], engines[e][1]);
                    set(c, engines[e][2], engines[e][3]);
                    for (unsigned k = 0; k < 5; k++)
                        if (mask & (1u << k)) {
                            size_t i = (x0 + k) % NEXT;
                            /* a bound below the extreme rejects it: that is the other allowed answer */
                            int src = llmmem_config_set(c, extremes[i][0], extremes[i][1]);
                            if (src != 0 && src != LLMMEM_E_OUT_OF_RANGE)
                                fail_msg("%s=%s: %s", extremes[i][0], extremes[i][1], llmmem_last_error());
                        }
                    int rc = llmmem_estimate(r, m, c);
                    runs++;
                    if (rc == LLMMEM_E_OUT_OF_RANGE)
                        oor++;
                    if (rc == LLMMEM_E_INTERNAL || rc == LLMMEM_E_NOMEM)
                        fail_msg("model %d engine %zu mask %u x0 %zu: %d %s", mi, e, mask, x0, rc,
                                 llmmem_last_error());
                    if (rc == 0) {
                        ok++;
                        uint64_t a = get_u64(r, LLMMEM_R_PEAK_ALLOCATED_BYTES);
                        uint64_t res = get_u64(r, LLMMEM_R_PEAK_RESERVED_BYTES);
                        uint64_t t = get_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
                        double u = -1;
                        assert_int_equal(llmmem_result_get_f64(&u, r, LLMMEM_R_UTILIZATION), 0);
                        if (!(res >= a && t >= res && headroom_exact(r) && isfinite(u) && u >= 0 &&
                              a != UINT64_MAX))
                            fail_msg("model %d engine %zu mask %u x0 %zu: allocated %llu reserved %llu "
                                     "total %llu utilization %g",
                                     mi, e, mask, x0, (unsigned long long)a, (unsigned long long)res,
                                     (unsigned long long)t, u);
                        for (int ph = 0; ph < llmmem_phase_count(); ph++) {
                            uint64_t sum = 0, pb = 0;
                            assert_int_equal(llmmem_result_phase_bytes(&pb, r, ph), 0);
                            for (int k = 0; k < llmmem_component_count(); k++) {
                                uint64_t b = comp(r, ph, k);
                                assert_true(sum + b >= sum); /* components of a phase sum in 64 bits */
                                sum += b;
                            }
                            assert_true(sum == pb);
                            assert_true(pb <= a || ph == LLMMEM_PHASE_DECODE || ph == LLMMEM_PHASE_PREFILL ||
                                        pb <= t);
                        }
                    }
                    llmmem_config_free(c);
                }
        llmmem_model_free(m);
    }
    print_message("%ld estimates: %ld figures, %ld LLMMEM_E_OUT_OF_RANGE\n", runs, ok, oor);
    assert_true(ok > 0 && oor > 0);
    llmmem_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ten_trillion_parameters),
        cmocka_unit_test(ten_million_token_context),
        cmocka_unit_test(headroom_beyond_int64),
        cmocka_unit_test(calibrated_headroom_beyond_uint64),
        cmocka_unit_test(hf_config_huge_numbers),
        cmocka_unit_test(reals_rejected),
        cmocka_unit_test(sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
