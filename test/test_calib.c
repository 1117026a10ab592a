/* Calibration profiles: identity by default, component scales applied to every
 * phase, headroom and context overrides, errors naming key and line:col. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "replay/replay.h"

static void estimate(llmmem_result *r, const llmmem_model *m, const llmmem_config *c)
{
    assert_int_equal(llmmem_estimate(r, m, c), 0);
}

static void scales_components(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    llmmem_result *r0 = NULL, *r1 = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-3.2-1b"), 0);
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(llmmem_result_new(&r0), 0);
    assert_int_equal(llmmem_result_new(&r1), 0);
    estimate(r0, m, c);
    const char *prof = "{\"description\": \"test\", \"components\": {\"activations\": 2.0, \"logits\": 0.5},"
                       " \"cuda_context_bytes\": 1000}";
    assert_int_equal(llmmem_config_apply_calibration_json(c, prof, strlen(prof)), 0);
    estimate(r1, m, c);
    for (int ph = LLMMEM_PHASE_FORWARD; ph <= LLMMEM_PHASE_OPTIMIZER; ph++) {
        uint64_t a0, a1, l0, l1, w0, w1;
        assert_int_equal(llmmem_result_component_bytes(&a0, r0, ph, LLMMEM_C_ACTIVATIONS), 0);
        assert_int_equal(llmmem_result_component_bytes(&a1, r1, ph, LLMMEM_C_ACTIVATIONS), 0);
        assert_int_equal(llmmem_result_component_bytes(&l0, r0, ph, LLMMEM_C_LOGITS), 0);
        assert_int_equal(llmmem_result_component_bytes(&l1, r1, ph, LLMMEM_C_LOGITS), 0);
        assert_int_equal(llmmem_result_component_bytes(&w0, r0, ph, LLMMEM_C_WEIGHTS), 0);
        assert_int_equal(llmmem_result_component_bytes(&w1, r1, ph, LLMMEM_C_WEIGHTS), 0);
        assert_int_equal(a1, 2 * a0);
        assert_int_equal(l1, (l0 + 1) / 2); /* llround: halves round away from zero */
        assert_int_equal(w1, w0);
    }
    uint64_t ctx;
    assert_int_equal(llmmem_result_get_u64(&ctx, r1, LLMMEM_R_CUDA_CONTEXT_BYTES), 0);
    assert_int_equal(ctx, 1000);
    /* clearing restores the identity */
    assert_int_equal(llmmem_config_clear_calibration(c), 0);
    estimate(r1, m, c);
    uint64_t p0, p1;
    assert_int_equal(llmmem_result_get_u64(&p0, r0, LLMMEM_R_PEAK_ALLOCATED_BYTES), 0);
    assert_int_equal(llmmem_result_get_u64(&p1, r1, LLMMEM_R_PEAK_ALLOCATED_BYTES), 0);
    assert_int_equal(p0, p1);
    llmmem_result_free(r0);
    llmmem_result_free(r1);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

static void bad_profiles(void **state)
{
    (void)state;
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    static const struct {
        const char *json;
        int status;
        const char *fragment;
    } cases[] = {
        {"{\"components\": {\"activatoins\": 1.1}}", LLMMEM_E_UNKNOWN_PARAM, "activatoins"},
        {"{\"components\": {\"activations\": -1}}", LLMMEM_E_OUT_OF_RANGE, "1:32"},
        {"{\"components\": {\"activations\": \"x\"}}", LLMMEM_E_SCHEMA, "activations"},
        {"{\"headroom\": 1.0}", LLMMEM_E_UNKNOWN_PARAM, "headroom"},
        {"{\"components\": [1]}", LLMMEM_E_SCHEMA, "components"},
        {"[1, 2]", LLMMEM_E_SCHEMA, "calibration"},
        {"{\"reserved_headroom\": 1.0", LLMMEM_E_PARSE, "1:"},
        {"{\"cuda_context_bytes\": -5}", LLMMEM_E_OUT_OF_RANGE, "cuda_context_bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = llmmem_config_apply_calibration_json(c, cases[i].json, strlen(cases[i].json));
        if (rc != cases[i].status || !strstr(llmmem_last_error(), cases[i].fragment))
            fail_msg("case %zu: status %d (%s), want %d with \"%s\"", i, rc, llmmem_last_error(),
                     cases[i].status, cases[i].fragment);
        assert_false(c->calibrated); /* a failed profile leaves the config unchanged */
    }
    assert_int_equal(llmmem_config_apply_calibration_json(NULL, "{}", 2), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_config_clear_calibration(NULL), LLMMEM_E_INVALID_ARG);
    llmmem_config_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(scales_components), cmocka_unit_test(bad_profiles)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
