/* Every public function with NULL and garbage for each argument: NULL handles, NULL out
 * pointers, NULL and empty strings, unknown enum values and indices (negative, one past the
 * end, INT_MIN/INT_MAX), NaN/infinite/negative reals, a NULL buffer with a non-zero
 * capacity, zero and one-byte capacities, text that is not NUL-free or not UTF-8. Each call
 * must return its documented error (LLMMEM_E_INVALID_ARG for a NULL pointer, else the
 * status the header names) with a non-empty llmmem_last_error(), or NULL / 0 where the
 * header says so; never crash. Expected statuses come from include/llmmem.h. */
#include "llmmem.h"

#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const int bad_ints[] = {-1, INT_MIN, INT_MAX, 99, 1000000};

/* rc is `status` and the thread's error text says something. */
static void expect_status(int rc, int status, const char *call, int line)
{
    if (rc != status)
        fail_msg("line %d: %s returned %d (%s), want %d (%s); last error: %s", line, call, rc,
                 llmmem_status_name(rc), status, llmmem_status_name(status), llmmem_last_error());
    if (status != 0) {
        const char *e = llmmem_last_error();
        if (!e || !*e)
            fail_msg("line %d: %s failed with an empty llmmem_last_error()", line, call);
    }
}
#define EXPECT(call, status)                                                                       \
    do {                                                                                           \
        llmmem_clear_error();                                                                      \
        expect_status((call), (status), #call, __LINE__);                                          \
    } while (0)
#define EXPECT_NULL_ARG(call) EXPECT(call, LLMMEM_E_INVALID_ARG)
/* any error but INTERNAL, with a message */
#define EXPECT_FAIL(call)                                                                          \
    do {                                                                                           \
        llmmem_clear_error();                                                                      \
        int rc_ = (call);                                                                          \
        if (rc_ >= 0 || rc_ == LLMMEM_E_INTERNAL)                                                  \
            fail_msg("line %d: %s returned %d, want an error", __LINE__, #call, rc_);              \
        if (!*llmmem_last_error())                                                                 \
            fail_msg("line %d: %s: empty error text", __LINE__, #call);                            \
    } while (0)

typedef struct fixture {
    llmmem_model *model;
    llmmem_config *cfg;
    llmmem_result *res;
    llmmem_plan *plan;
} fixture;

static int setup(void **state)
{
    static fixture f;
    memset(&f, 0, sizeof f);
    if (llmmem_model_from_preset(&f.model, "llama-3.2-1b") != 0 || llmmem_config_new(&f.cfg) != 0 ||
        llmmem_result_new(&f.res) != 0 || llmmem_plan_new(&f.plan) != 0)
        return -1;
    if (llmmem_estimate(f.res, f.model, f.cfg) != 0)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    llmmem_plan_free(f->plan);
    llmmem_result_free(f->res);
    llmmem_config_free(f->cfg);
    llmmem_model_free(f->model);
    return 0;
}

static void info_and_names(void **state)
{
    (void)state;
    assert_true(llmmem_version_number() > 0);
    assert_non_null(llmmem_version_string());
    assert_true(llmmem_soversion() >= 0);
    assert_int_equal(llmmem_param_at(llmmem_param_count()), LLMMEM_E_INVALID_ARG);
    /* the table is in id order (the library finds a parameter by halves), and every
     * parameter is found by its id */
    for (int i = 0; i < llmmem_param_count(); i++) {
        int id = llmmem_param_at(i);
        if (i > 0 && id <= llmmem_param_at(i - 1))
            fail_msg("parameter %d (index %d) is not after %d: keep the table in id order", id, i,
                     llmmem_param_at(i - 1));
        assert_non_null(llmmem_param_name(id));
        assert_true(llmmem_param_type(id) >= 0);
        /* a configuration records that it was set in bit id % 100 of word id / 100 - 1
         * of its 12 (src/config/config.c, LLMMEM__SET_WORDS) */
        if (id % 100 >= 64 || id / 100 > 12)
            fail_msg("parameter %d has no bit in a configuration's set_mask (config.h LLMMEM__SET_WORDS)", id);
        assert_int_equal(llmmem_param_type(id + 1000000), LLMMEM_E_INVALID_ARG);
    }
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
        int v = bad_ints[i];
        /* unknown statuses still have a name and a text */
        if (v != -1) {
            assert_non_null(llmmem_status_name(v));
            assert_non_null(llmmem_strerror(v));
        }
        if (v != -1 && v != 99) {
            assert_null(llmmem_phase_name(v));
            assert_null(llmmem_component_name(v));
        }
        assert_null(llmmem_result_key_name(v));
        assert_int_equal(llmmem_result_key_type(v), LLMMEM_E_INVALID_ARG);
        assert_null(llmmem_result_enum_name(v, 0));
        assert_null(llmmem_result_enum_name(LLMMEM_R_GRAD_DTYPE, v == 1 ? 99 : v));
        assert_null(llmmem_model_key_name(v));
        assert_int_equal(llmmem_result_key_at(v), LLMMEM_E_INVALID_ARG);
        assert_int_equal(llmmem_model_key_at(v), LLMMEM_E_INVALID_ARG);
        if (v < 0 || v >= llmmem_param_count()) /* 99 is a valid index once there are 100 parameters */
            assert_int_equal(llmmem_param_at(v), LLMMEM_E_INVALID_ARG);
        assert_null(llmmem_param_name(v));
        assert_int_equal(llmmem_param_type(v), LLMMEM_E_INVALID_ARG);
        assert_null(llmmem_param_doc(v));
        assert_int_equal(llmmem_param_enum_count(v), 0);
        assert_null(llmmem_param_enum_name(v, 0));
        assert_null(llmmem_preset_name(v));
        assert_null(llmmem_preset_description(v));
        assert_null(llmmem_gpu_name(v));
        assert_null(llmmem_plan_reject_name(v));
    }
    assert_string_equal(llmmem_status_name(12345), "LLMMEM_E_UNKNOWN");
    assert_null(llmmem_phase_name(llmmem_phase_count()));
    assert_null(llmmem_component_name(llmmem_component_count()));
    assert_int_equal(llmmem_result_key_at(llmmem_result_key_count()), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_model_key_at(llmmem_model_key_count()), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_param_at(llmmem_param_count()), LLMMEM_E_INVALID_ARG);
    assert_null(llmmem_preset_name(llmmem_preset_count()));
    assert_null(llmmem_gpu_name(llmmem_gpu_count()));
    assert_null(llmmem_architecture_name(llmmem_architecture_count()));
    assert_null(llmmem_architecture_name(-1));
    assert_int_equal(llmmem_architecture_kind(-1), LLMMEM_E_INVALID_ARG);
    llmmem_clear_error();
    assert_string_equal(llmmem_last_error(), "");
}

static void param_introspection(void **state)
{
    (void)state;
    int p = 0;
    int64_t lo, hi, d;
    double flo, fhi, fd;
    EXPECT_NULL_ARG(llmmem_param_from_name(NULL, "seq_len"));
    EXPECT_NULL_ARG(llmmem_param_from_name(&p, NULL));
    EXPECT(llmmem_param_from_name(&p, ""), LLMMEM_E_UNKNOWN_PARAM);
    EXPECT(llmmem_param_from_name(&p, "seq_len\xff"), LLMMEM_E_UNKNOWN_PARAM);
    EXPECT(llmmem_param_from_name(&p, "SEQ_LEN "), LLMMEM_E_UNKNOWN_PARAM);
    EXPECT_NULL_ARG(llmmem_param_bounds_i64(NULL, &hi, LLMMEM_P_SEQ_LEN));
    EXPECT_NULL_ARG(llmmem_param_bounds_i64(&lo, NULL, LLMMEM_P_SEQ_LEN));
    EXPECT_NULL_ARG(llmmem_param_bounds_f64(NULL, &fhi, LLMMEM_P_LORA_ALPHA));
    EXPECT_NULL_ARG(llmmem_param_bounds_f64(&flo, NULL, LLMMEM_P_LORA_ALPHA));
    EXPECT_NULL_ARG(llmmem_param_default_i64(NULL, LLMMEM_P_SEQ_LEN));
    EXPECT_NULL_ARG(llmmem_param_default_f64(NULL, LLMMEM_P_LORA_ALPHA));
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
        EXPECT_NULL_ARG(llmmem_param_bounds_i64(&lo, &hi, bad_ints[i]));
        EXPECT_NULL_ARG(llmmem_param_bounds_f64(&flo, &fhi, bad_ints[i]));
        EXPECT_NULL_ARG(llmmem_param_default_i64(&d, bad_ints[i]));
        EXPECT_NULL_ARG(llmmem_param_default_f64(&fd, bad_ints[i]));
    }
    /* typed accessors of the wrong type */
    EXPECT(llmmem_param_bounds_i64(&lo, &hi, LLMMEM_P_LORA_ALPHA), LLMMEM_E_PARAM_TYPE);
    EXPECT(llmmem_param_bounds_f64(&flo, &fhi, LLMMEM_P_SEQ_LEN), LLMMEM_E_PARAM_TYPE);
    EXPECT(llmmem_param_default_i64(&d, LLMMEM_P_LORA_ALPHA), LLMMEM_E_PARAM_TYPE);
    EXPECT(llmmem_param_default_f64(&fd, LLMMEM_P_SEQ_LEN), LLMMEM_E_PARAM_TYPE);
    assert_null(llmmem_param_enum_name(LLMMEM_P_ENGINE, -1));
    assert_null(llmmem_param_enum_name(LLMMEM_P_ENGINE, INT64_MAX));
    assert_null(llmmem_param_enum_name(LLMMEM_P_ENGINE, INT64_MIN));
    assert_null(llmmem_param_enum_name(LLMMEM_P_ENGINE, llmmem_param_enum_count(LLMMEM_P_ENGINE)));
    assert_null(llmmem_param_enum_name(LLMMEM_P_SEQ_LEN, 0)); /* not an enum */
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
        EXPECT_NULL_ARG(llmmem_param_applies(bad_ints[i], LLMMEM_P_ENGINE, 0));
        EXPECT_NULL_ARG(llmmem_param_applies(LLMMEM_P_SEQ_LEN, bad_ints[i], 0));
    }
    EXPECT_NULL_ARG(llmmem_param_applies(LLMMEM_P_SEQ_LEN, LLMMEM_P_ENGINE, INT64_MIN));
    EXPECT_NULL_ARG(llmmem_param_applies(LLMMEM_P_SEQ_LEN, LLMMEM_P_RUNTIME, INT64_MAX));
    EXPECT_NULL_ARG(llmmem_param_applies(LLMMEM_P_SEQ_LEN, LLMMEM_P_MODE, 0)); /* not a gate */
    /* the number reader: NULLs, unknown kinds, text with trailing bytes; unknown ids read as 0 */
    {
        int64_t v = 7;
        EXPECT_NULL_ARG(llmmem_parse_value(NULL, "1", LLMMEM_VALUE_WHOLE));
        EXPECT_NULL_ARG(llmmem_parse_value(&v, NULL, LLMMEM_VALUE_WHOLE));
        for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
            EXPECT(llmmem_parse_value(&v, "1", bad_ints[i]), LLMMEM_E_INVALID_ARG);
            assert_int_equal(llmmem_param_value_kind(bad_ints[i]), 0);
            assert_int_equal(llmmem_model_key_value_kind(bad_ints[i]), 0);
        }
        EXPECT(llmmem_parse_value(&v, "12\xff", LLMMEM_VALUE_WHOLE), LLMMEM_E_PARSE);
        EXPECT_NULL_ARG(llmmem_config_param_applies(NULL, NULL, LLMMEM_P_SEQ_LEN));
        for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
            llmmem_config *ac = NULL;
            assert_int_equal(llmmem_config_new(&ac), 0);
            EXPECT(llmmem_config_param_applies(ac, NULL, bad_ints[i]), LLMMEM_E_INVALID_ARG);
            llmmem_config_free(ac);
        }
        EXPECT(llmmem_parse_value(&v, "4k\x80", LLMMEM_VALUE_TOKENS), LLMMEM_E_PARSE);
        assert_int_equal(v, 7);
    }
    uint64_t b;
    EXPECT_NULL_ARG(llmmem_gpu_memory_bytes(NULL, 0));
    {
        int g = -1;
        EXPECT_NULL_ARG(llmmem_gpu_find(NULL, "H200"));
        EXPECT_NULL_ARG(llmmem_gpu_find(&g, NULL));
        EXPECT_FAIL(llmmem_gpu_find(&g, ""));
        EXPECT_FAIL(llmmem_gpu_find(&g, "-"));
        EXPECT_FAIL(llmmem_gpu_find(&g, "nvidia "));
        EXPECT_FAIL(llmmem_gpu_find(&g, "a100"));
        assert_int_equal(g, -1);
    }
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
        EXPECT_FAIL(llmmem_gpu_memory_bytes(&b, bad_ints[i]));
}

static void models(void **state)
{
    fixture *f = *state;
    llmmem_model *m = (llmmem_model *)0x1; /* must stay untouched on error */
    const char ok[] = "{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                      " \"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100}";
    EXPECT_NULL_ARG(llmmem_model_from_hf_json(NULL, ok, strlen(ok)));
    EXPECT_NULL_ARG(llmmem_model_from_hf_json(&m, NULL, 10));
    assert_ptr_equal(m, (llmmem_model *)0x1);
    EXPECT(llmmem_model_from_hf_json(&m, ok, 0), LLMMEM_E_PARSE);
    EXPECT(llmmem_model_from_hf_json(&m, ok, strlen(ok) - 1), LLMMEM_E_PARSE); /* cut */
    EXPECT(llmmem_model_from_hf_json(&m, "{\"a\":1}\0garbage", 15), LLMMEM_E_PARSE);
    EXPECT(llmmem_model_from_hf_json(&m, "\xff\xfe{}", 4), LLMMEM_E_PARSE);
    EXPECT_FAIL(llmmem_model_from_hf_json(&m, "{}", 2));
    EXPECT_FAIL(llmmem_model_from_hf_json(&m, "[]", 2));
    EXPECT_FAIL(llmmem_model_from_hf_json(&m, "null", 4));
    assert_ptr_equal(m, (llmmem_model *)0x1);
    m = NULL;

    EXPECT_NULL_ARG(llmmem_model_from_hf_file(NULL, "test/data/configs/dev/gpt2-medium.json"));
    EXPECT_NULL_ARG(llmmem_model_from_hf_file(&m, NULL));
    EXPECT(llmmem_model_from_hf_file(&m, ""), LLMMEM_E_IO);
    EXPECT(llmmem_model_from_hf_file(&m, "test/data"), LLMMEM_E_IO); /* a directory */
    EXPECT(llmmem_model_from_hf_file(&m, "test/no/such/file.json"), LLMMEM_E_IO);
    EXPECT_NULL_ARG(llmmem_model_from_gguf_file(NULL, "fuzz/corpus/fuzz_gguf/llama.gguf"));
    EXPECT_NULL_ARG(llmmem_model_from_gguf_file(&m, NULL));
    EXPECT(llmmem_model_from_gguf_file(&m, ""), LLMMEM_E_IO);
    EXPECT(llmmem_model_from_gguf_file(&m, "test/data"), LLMMEM_E_IO); /* a directory */
    EXPECT(llmmem_model_from_gguf_file(&m, "test/data/configs/dev/gpt2-medium.json"), LLMMEM_E_PARSE);
    EXPECT_NULL_ARG(llmmem_model_from_gguf(NULL, "GGUF", 4, 0));
    EXPECT_NULL_ARG(llmmem_model_from_gguf(&m, NULL, 4, 0));
    EXPECT(llmmem_model_from_gguf(&m, "GGUF", 0, 0), LLMMEM_E_PARSE);
    EXPECT(llmmem_model_from_gguf(&m, "GGUF", 4, 0), LLMMEM_E_PARSE);
    EXPECT(llmmem_model_from_gguf(&m, "GGUF", 4, 100), LLMMEM_E_BUFFER_TOO_SMALL);
    EXPECT(llmmem_model_from_gguf(&m, "GGUF", 4, 2), LLMMEM_E_INVALID_ARG); /* size < len */
    EXPECT_NULL_ARG(llmmem_model_from_preset(NULL, "llama-3.2-1b"));
    EXPECT_NULL_ARG(llmmem_model_from_preset(&m, NULL));
    EXPECT(llmmem_model_from_preset(&m, ""), LLMMEM_E_UNKNOWN_PARAM);
    EXPECT(llmmem_model_from_preset(&m, "llama-3.2-1b "), LLMMEM_E_UNKNOWN_PARAM);
    EXPECT_NULL_ARG(llmmem_model_from_pretrained(NULL, "llama-3.2-1b", NULL));
    EXPECT_NULL_ARG(llmmem_model_from_pretrained(&m, NULL, NULL));
    EXPECT(llmmem_model_from_pretrained(&m, "", NULL), LLMMEM_E_UNKNOWN_PARAM);
    EXPECT(llmmem_model_from_pretrained(&m, "org/none", "test/no/such/cache"), LLMMEM_E_UNKNOWN_PARAM);
    EXPECT_NULL_ARG(llmmem_model_from_framework_file(NULL, LLMMEM_FW_AUTO, "x.yaml", NULL));
    EXPECT_NULL_ARG(llmmem_model_from_framework_file(&m, LLMMEM_FW_AUTO, NULL, NULL));
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
        EXPECT_NULL_ARG(llmmem_model_from_framework_file(&m, bad_ints[i], "x.yaml", NULL));
    EXPECT(llmmem_model_from_framework_file(&m, LLMMEM_FW_AUTO, "test/no/such.yaml", NULL), LLMMEM_E_IO);
    EXPECT_NULL_ARG(llmmem_model_new(NULL));
    EXPECT_NULL_ARG(llmmem_model_clone(NULL, f->model));
    EXPECT_NULL_ARG(llmmem_model_clone(&m, NULL));
    assert_null(m);
    llmmem_model_free(NULL);

    llmmem_model *raw = NULL;
    assert_int_equal(llmmem_model_new(&raw), 0);
    EXPECT_NULL_ARG(llmmem_model_set_i64(NULL, LLMMEM_M_HIDDEN_SIZE, 64));
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
        EXPECT_FAIL(llmmem_model_set_i64(raw, bad_ints[i], 64));
    EXPECT_FAIL(llmmem_model_set_i64(raw, LLMMEM_M_PARAMS, 64)); /* read only */
    EXPECT(llmmem_model_set_i64(raw, LLMMEM_M_HIDDEN_SIZE, -1), LLMMEM_E_OUT_OF_RANGE);
    EXPECT(llmmem_model_set_i64(raw, LLMMEM_M_HIDDEN_SIZE, INT64_MIN), LLMMEM_E_OUT_OF_RANGE);
    EXPECT_FAIL(llmmem_model_set_i64(raw, LLMMEM_M_HIDDEN_SIZE, INT64_MAX));
    EXPECT_NULL_ARG(llmmem_model_set(NULL, "hidden_size", "64"));
    EXPECT_NULL_ARG(llmmem_model_set(raw, NULL, "64"));
    EXPECT_NULL_ARG(llmmem_model_set(raw, "hidden_size", NULL));
    EXPECT(llmmem_model_set(raw, "", "64"), LLMMEM_E_UNKNOWN_PARAM);
    EXPECT(llmmem_model_set(raw, "no_such_key", "64"), LLMMEM_E_UNKNOWN_PARAM);
    EXPECT(llmmem_model_set(raw, "hidden_size", ""), LLMMEM_E_PARSE);
    EXPECT(llmmem_model_set(raw, "hidden_size", "64x"), LLMMEM_E_PARSE);
    EXPECT(llmmem_model_set(raw, "hidden_size", "nan"), LLMMEM_E_PARSE);
    EXPECT_FAIL(llmmem_model_set(raw, "hidden_size", "-64"));
    EXPECT_FAIL(llmmem_model_set(raw, "hidden_size", "99999999999999999999999"));
    EXPECT_FAIL(llmmem_model_set(raw, "num_parameters", "inf"));
    EXPECT_FAIL(llmmem_model_set(raw, "num_parameters", "-7B"));
    EXPECT_FAIL(llmmem_model_set(raw, "num_parameters", "1e400"));

    int64_t v;
    EXPECT_NULL_ARG(llmmem_model_get_i64(NULL, f->model, LLMMEM_M_PARAMS));
    EXPECT_NULL_ARG(llmmem_model_get_i64(&v, NULL, LLMMEM_M_PARAMS));
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
        EXPECT_FAIL(llmmem_model_get_i64(&v, f->model, bad_ints[i]));
    char buf[8];
    size_t need = 0;
    EXPECT_NULL_ARG(llmmem_model_type(buf, sizeof buf, &need, NULL));
    EXPECT_NULL_ARG(llmmem_model_type(NULL, 8, &need, f->model));
    EXPECT(llmmem_model_type(buf, 1, &need, f->model), LLMMEM_E_BUFFER_TOO_SMALL);
    assert_string_equal(buf, ""); /* truncated, still terminated */
    assert_true(need > 1);
    EXPECT_NULL_ARG(llmmem_model_to_json(buf, sizeof buf, &need, NULL));
    EXPECT_NULL_ARG(llmmem_model_to_json(NULL, 8, &need, f->model));
    EXPECT(llmmem_model_to_json(NULL, 0, &need, f->model), LLMMEM_E_BUFFER_TOO_SMALL);
    EXPECT(llmmem_model_to_json(buf, sizeof buf, NULL, f->model), LLMMEM_E_BUFFER_TOO_SMALL);
    assert_int_equal(strlen(buf), sizeof buf - 1);
    assert_int_equal(llmmem_model_note_count(NULL), 0);
    assert_null(llmmem_model_note(NULL, 0));
    assert_null(llmmem_model_note(f->model, -1));
    assert_null(llmmem_model_note(f->model, INT_MAX));
    assert_null(llmmem_model_note(f->model, llmmem_model_note_count(f->model)));
    llmmem_model_free(raw);
}

static void configs(void **state)
{
    fixture *f = *state;
    llmmem_config *c = NULL;
    EXPECT_NULL_ARG(llmmem_config_new(NULL));
    EXPECT_NULL_ARG(llmmem_config_clone(NULL, f->cfg));
    EXPECT_NULL_ARG(llmmem_config_clone(&c, NULL));
    assert_null(c);
    llmmem_config_free(NULL);
    EXPECT_NULL_ARG(llmmem_config_reset(NULL));
    assert_int_equal(llmmem_config_clone(&c, f->cfg), 0);

    EXPECT_NULL_ARG(llmmem_config_set_i64(NULL, LLMMEM_P_SEQ_LEN, 8));
    EXPECT_NULL_ARG(llmmem_config_set_f64(NULL, LLMMEM_P_LORA_ALPHA, 8));
    EXPECT_NULL_ARG(llmmem_config_set_str(NULL, LLMMEM_P_LORA_TARGETS, "q_proj"));
    EXPECT_NULL_ARG(llmmem_config_set_str(c, LLMMEM_P_LORA_TARGETS, NULL));
    EXPECT_NULL_ARG(llmmem_config_set(NULL, "seq_len", "8"));
    EXPECT_NULL_ARG(llmmem_config_set(c, NULL, "8"));
    EXPECT_NULL_ARG(llmmem_config_set(c, "seq_len", NULL));
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
        EXPECT_FAIL(llmmem_config_set_i64(c, bad_ints[i], 8));
        EXPECT_FAIL(llmmem_config_set_f64(c, bad_ints[i], 8));
        EXPECT_FAIL(llmmem_config_set_str(c, bad_ints[i], "8"));
    }
    EXPECT(llmmem_config_set_i64(c, LLMMEM_P_LORA_ALPHA, 8), LLMMEM_E_PARAM_TYPE);
    EXPECT(llmmem_config_set_f64(c, LLMMEM_P_SEQ_LEN, 8), LLMMEM_E_PARAM_TYPE);
    EXPECT(llmmem_config_set_i64(c, LLMMEM_P_SEQ_LEN, 0), LLMMEM_E_OUT_OF_RANGE);
    EXPECT(llmmem_config_set_i64(c, LLMMEM_P_SEQ_LEN, -1), LLMMEM_E_OUT_OF_RANGE);
    EXPECT(llmmem_config_set_i64(c, LLMMEM_P_SEQ_LEN, INT64_MIN), LLMMEM_E_OUT_OF_RANGE);
    EXPECT(llmmem_config_set_i64(c, LLMMEM_P_SEQ_LEN, INT64_MAX), LLMMEM_E_OUT_OF_RANGE);
    EXPECT(llmmem_config_set_i64(c, LLMMEM_P_ENGINE, -1), LLMMEM_E_OUT_OF_RANGE);
    EXPECT(llmmem_config_set_i64(c, LLMMEM_P_ENGINE, 1000), LLMMEM_E_OUT_OF_RANGE);
    EXPECT(llmmem_config_set_i64(c, LLMMEM_P_SEQUENCE_PARALLEL, 2), LLMMEM_E_OUT_OF_RANGE);
    const double bad_reals[] = {NAN, INFINITY, -INFINITY, -1.0, -0.0 - 1e-300, 1e308 * 10};
    for (size_t i = 0; i < sizeof bad_reals / sizeof bad_reals[0]; i++) {
        EXPECT(llmmem_config_set_f64(c, LLMMEM_P_GPU_MEMORY_UTILIZATION, bad_reals[i]),
               LLMMEM_E_OUT_OF_RANGE);
        EXPECT(llmmem_config_set_f64(c, LLMMEM_P_LORA_ALPHA, bad_reals[i]), LLMMEM_E_OUT_OF_RANGE);
        EXPECT(llmmem_config_set_f64(c, LLMMEM_P_BUCKET_CAP_MB, bad_reals[i]), LLMMEM_E_OUT_OF_RANGE);
    }
    EXPECT_FAIL(llmmem_config_set_str(c, LLMMEM_P_ENGINE, ""));
    EXPECT_FAIL(llmmem_config_set_str(c, LLMMEM_P_ENGINE, "zer0"));
    EXPECT_FAIL(llmmem_config_set_str(c, LLMMEM_P_SEQ_LEN, "8")); /* not text or enum */
    EXPECT(llmmem_config_set(c, "", "8"), LLMMEM_E_UNKNOWN_PARAM);
    EXPECT(llmmem_config_set(c, "seq_len\n", "8"), LLMMEM_E_UNKNOWN_PARAM);
    EXPECT(llmmem_config_set(c, "seq_len", ""), LLMMEM_E_PARSE);
    EXPECT(llmmem_config_set(c, "seq_len", "8 tokens"), LLMMEM_E_PARSE);
    EXPECT(llmmem_config_set(c, "seq_len", "0x10"), LLMMEM_E_PARSE);
    EXPECT_FAIL(llmmem_config_set(c, "seq_len", "99999999999999999999999"));
    EXPECT_FAIL(llmmem_config_set(c, "seq_len", "-9223372036854775808"));
    EXPECT(llmmem_config_set(c, "lora_alpha", "nan"), LLMMEM_E_PARSE);
    EXPECT(llmmem_config_set(c, "lora_alpha", "inf"), LLMMEM_E_PARSE);
    EXPECT_FAIL(llmmem_config_set(c, "lora_alpha", "1e400"));
    EXPECT_FAIL(llmmem_config_set(c, "lora_alpha", "-1"));
    EXPECT_FAIL(llmmem_config_set(c, "sequence_parallel", "maybe"));
    EXPECT_FAIL(llmmem_config_set(c, "engine", "\xff\xfe"));
    /* nothing above changed the copy */
    char a[8192], b[8192];
    size_t na, nb;
    assert_int_equal(llmmem_config_to_json(a, sizeof a, &na, c), 0);
    assert_int_equal(llmmem_config_to_json(b, sizeof b, &nb, f->cfg), 0);
    assert_string_equal(a, b);

    int64_t v;
    double d;
    char buf[4];
    size_t need = 0;
    EXPECT_NULL_ARG(llmmem_config_get_i64(NULL, c, LLMMEM_P_SEQ_LEN));
    EXPECT_NULL_ARG(llmmem_config_get_i64(&v, NULL, LLMMEM_P_SEQ_LEN));
    EXPECT_NULL_ARG(llmmem_config_get_f64(NULL, c, LLMMEM_P_LORA_ALPHA));
    EXPECT_NULL_ARG(llmmem_config_get_f64(&d, NULL, LLMMEM_P_LORA_ALPHA));
    EXPECT_NULL_ARG(llmmem_config_get_str(buf, sizeof buf, &need, NULL, LLMMEM_P_ENGINE));
    EXPECT_NULL_ARG(llmmem_config_get_str(NULL, 4, &need, c, LLMMEM_P_ENGINE));
    EXPECT(llmmem_config_get_i64(&v, c, LLMMEM_P_LORA_ALPHA), LLMMEM_E_PARAM_TYPE);
    EXPECT(llmmem_config_get_f64(&d, c, LLMMEM_P_SEQ_LEN), LLMMEM_E_PARAM_TYPE);
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
        EXPECT_FAIL(llmmem_config_get_i64(&v, c, bad_ints[i]));
        EXPECT_FAIL(llmmem_config_get_f64(&d, c, bad_ints[i]));
        EXPECT_FAIL(llmmem_config_get_str(buf, sizeof buf, &need, c, bad_ints[i]));
    }
    EXPECT(llmmem_config_get_str(buf, 1, &need, c, LLMMEM_P_ENGINE), LLMMEM_E_BUFFER_TOO_SMALL);
    assert_string_equal(buf, "");
    EXPECT(llmmem_config_get_str(NULL, 0, &need, c, LLMMEM_P_ENGINE), LLMMEM_E_BUFFER_TOO_SMALL);
    EXPECT_NULL_ARG(llmmem_config_to_json(buf, sizeof buf, &need, NULL));
    EXPECT_NULL_ARG(llmmem_config_to_json(NULL, 4, &need, c));
    EXPECT(llmmem_config_to_json(buf, sizeof buf, NULL, c), LLMMEM_E_BUFFER_TOO_SMALL);
    llmmem_config_free(c);
}

static void files(void **state)
{
    fixture *f = *state;
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    const char *sc = "{\"model\": {\"preset\": \"llama-3.2-1b\"}, \"mode\": \"training\"}";
    EXPECT_NULL_ARG(llmmem_scenario_from_json(&m, &c, NULL, 5, "."));
    EXPECT(llmmem_scenario_from_json(NULL, NULL, sc, strlen(sc), NULL), 0); /* validate only */
    EXPECT(llmmem_scenario_from_json(&m, &c, sc, 0, "."), LLMMEM_E_PARSE);
    EXPECT(llmmem_scenario_from_json(&m, &c, sc, strlen(sc) - 1, "."), LLMMEM_E_PARSE);
    const char *hf = "{\"model\": {\"hf_config\": \"no-such-x.json\"}}";
    EXPECT(llmmem_scenario_from_json(&m, &c, hf, strlen(hf), NULL), LLMMEM_E_IO);
    EXPECT_FAIL(llmmem_scenario_from_json(&m, &c, "[1]", 3, ""));
    EXPECT_FAIL(llmmem_scenario_from_json(&m, &c, "\"\\ud800\"", 8, ""));
    assert_null(m);
    assert_null(c);
    EXPECT_NULL_ARG(llmmem_scenario_from_file(&m, &c, NULL));
    EXPECT(llmmem_scenario_from_file(&m, &c, ""), LLMMEM_E_IO);
    EXPECT(llmmem_scenario_from_file(&m, &c, "test"), LLMMEM_E_IO);
    EXPECT_NULL_ARG(llmmem_scenario_from_file_hub(&m, &c, NULL, NULL));
    EXPECT(llmmem_scenario_from_file_hub(&m, &c, "", "test"), LLMMEM_E_IO);
    assert_null(m);
    assert_null(c);

    const char *ds = "{\"train_micro_batch_size_per_gpu\": 2}";
    assert_int_equal(llmmem_config_clone(&c, f->cfg), 0);
    EXPECT_NULL_ARG(llmmem_config_apply_deepspeed_json(NULL, f->model, ds, strlen(ds)));
    EXPECT_NULL_ARG(llmmem_config_apply_deepspeed_json(c, f->model, NULL, 4));
    EXPECT(llmmem_config_apply_deepspeed_json(c, f->model, ds, 0), LLMMEM_E_PARSE);
    EXPECT(llmmem_config_apply_deepspeed_json(c, f->model, ds, 5), LLMMEM_E_PARSE);
    EXPECT_FAIL(llmmem_config_apply_deepspeed_json(c, f->model, "[]", 2));
    /* model NULL: "auto" values stay unresolved, a concrete config still applies */
    EXPECT(llmmem_config_apply_deepspeed_json(c, NULL, ds, strlen(ds)), 0);
    const char *ta = "{\"per_device_train_batch_size\": 2}";
    EXPECT_NULL_ARG(llmmem_config_apply_hf_training_args_json(NULL, ta, strlen(ta)));
    EXPECT_NULL_ARG(llmmem_config_apply_hf_training_args_json(c, NULL, 4));
    EXPECT(llmmem_config_apply_hf_training_args_json(c, ta, 0), LLMMEM_E_PARSE);
    EXPECT_FAIL(llmmem_config_apply_hf_training_args_json(c, "1", 1));
    const char *cal = "{\"components\": {\"activations\": 1.5}}";
    EXPECT_NULL_ARG(llmmem_config_apply_calibration_json(NULL, cal, strlen(cal)));
    EXPECT_NULL_ARG(llmmem_config_apply_calibration_json(c, NULL, 4));
    EXPECT(llmmem_config_apply_calibration_json(c, cal, 0), LLMMEM_E_PARSE);
    const char *neg = "{\"components\": {\"activations\": -0.5}}";
    EXPECT_FAIL(llmmem_config_apply_calibration_json(c, neg, strlen(neg)));
    EXPECT_NULL_ARG(llmmem_config_clear_calibration(NULL));
    /* the file readers: NULL arguments, a missing file, a directory, a device */
    EXPECT_NULL_ARG(llmmem_config_apply_deepspeed_file(NULL, f->model, "x.json"));
    EXPECT_NULL_ARG(llmmem_config_apply_deepspeed_file(c, f->model, NULL));
    EXPECT(llmmem_config_apply_deepspeed_file(c, f->model, "no-such-ds.json"), LLMMEM_E_IO);
    EXPECT_NULL_ARG(llmmem_config_apply_hf_training_args_file(NULL, "x.json"));
    EXPECT_NULL_ARG(llmmem_config_apply_hf_training_args_file(c, NULL));
    EXPECT(llmmem_config_apply_hf_training_args_file(c, "test"), LLMMEM_E_IO);
    EXPECT_NULL_ARG(llmmem_config_apply_calibration_file(NULL, "x.json"));
    EXPECT_NULL_ARG(llmmem_config_apply_calibration_file(c, NULL));
    EXPECT(llmmem_config_apply_calibration_file(c, "/dev/null"), LLMMEM_E_IO);
    /* framework YAML files and the configuration's notes */
    const char *tt = "model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\nbatch_size: 2\nfoo: 1\n";
    int kind = -1;
    EXPECT_NULL_ARG(llmmem_framework_detect(NULL, tt, strlen(tt)));
    EXPECT_NULL_ARG(llmmem_framework_detect(&kind, NULL, 4));
    assert_int_equal(llmmem_framework_detect(&kind, tt, strlen(tt)), 0);
    assert_int_equal(kind, LLMMEM_FW_TORCHTUNE);
    assert_string_equal(llmmem_framework_name(LLMMEM_FW_TORCHTUNE), "torchtune");
    assert_null(llmmem_framework_name(-1));
    assert_null(llmmem_framework_name(5));
    EXPECT_NULL_ARG(llmmem_config_apply_framework_yaml(NULL, NULL, 0, tt, strlen(tt)));
    EXPECT_NULL_ARG(llmmem_config_apply_framework_yaml(c, NULL, 0, NULL, 4));
    EXPECT(llmmem_config_apply_framework_yaml(c, NULL, 99, tt, strlen(tt)), LLMMEM_E_INVALID_ARG);
    EXPECT(llmmem_config_apply_framework_yaml(c, NULL, 0, tt, 0), LLMMEM_E_PARSE);
    EXPECT_NULL_ARG(llmmem_config_apply_framework_file(NULL, NULL, 0, "x.yaml"));
    EXPECT_NULL_ARG(llmmem_config_apply_framework_file(c, NULL, 0, NULL));
    EXPECT(llmmem_config_apply_framework_file(c, NULL, 0, "no-such.yaml"), LLMMEM_E_IO);
    EXPECT(llmmem_config_apply_framework_file(c, NULL, 0, "test"), LLMMEM_E_IO);
    assert_int_equal(llmmem_config_note_count(NULL), 0);
    assert_null(llmmem_config_note(NULL, 0));
    assert_int_equal(llmmem_config_apply_framework_yaml(c, NULL, 0, tt, strlen(tt)), 0);
    assert_true(llmmem_config_note_count(c) >= 1);
    assert_null(llmmem_config_note(c, -1));
    assert_null(llmmem_config_note(c, llmmem_config_note_count(c)));
    assert_non_null(strstr(llmmem_config_note(c, llmmem_config_note_count(c) - 1), "foo"));
    llmmem_config_free(c);
}

typedef int (*estimator)(llmmem_result *, const llmmem_model *, const llmmem_config *);

static void results(void **state)
{
    fixture *f = *state;
    static const estimator est[] = {
        llmmem_estimate,       llmmem_estimate_single,   llmmem_estimate_ddp,
        llmmem_estimate_zero,  llmmem_estimate_fsdp,     llmmem_estimate_megatron,
        llmmem_estimate_megatron_deepspeed, llmmem_estimate_inference,
    };
    llmmem_result *r = NULL;
    EXPECT_NULL_ARG(llmmem_result_new(NULL));
    llmmem_result_free(NULL);
    assert_int_equal(llmmem_result_new(&r), 0);
    for (size_t i = 0; i < sizeof est / sizeof est[0]; i++) {
        EXPECT_NULL_ARG(est[i](NULL, f->model, f->cfg));
        EXPECT_NULL_ARG(est[i](r, NULL, f->cfg));
        EXPECT_NULL_ARG(est[i](r, f->model, NULL));
    }
    /* an empty raw model (nothing set) is rejected, not estimated as zeros */
    llmmem_model *raw = NULL;
    assert_int_equal(llmmem_model_new(&raw), 0);
    EXPECT_FAIL(llmmem_estimate(r, raw, f->cfg));
    llmmem_model_free(raw);
    llmmem_result_free(r);

    uint64_t u;
    int64_t v;
    double d;
    const llmmem_result *res = f->res;
    EXPECT_NULL_ARG(llmmem_result_get_u64(NULL, res, LLMMEM_R_PEAK_ALLOCATED_BYTES));
    EXPECT_NULL_ARG(llmmem_result_get_u64(&u, NULL, LLMMEM_R_PEAK_ALLOCATED_BYTES));
    EXPECT_NULL_ARG(llmmem_result_get_i64(NULL, res, LLMMEM_R_PARAMS));
    EXPECT_NULL_ARG(llmmem_result_get_i64(&v, NULL, LLMMEM_R_PARAMS));
    EXPECT_NULL_ARG(llmmem_result_get_f64(NULL, res, LLMMEM_R_UTILIZATION));
    EXPECT_NULL_ARG(llmmem_result_get_f64(&d, NULL, LLMMEM_R_UTILIZATION));
    EXPECT(llmmem_result_get_u64(&u, res, LLMMEM_R_PARAMS), LLMMEM_E_PARAM_TYPE);
    EXPECT(llmmem_result_get_i64(&v, res, LLMMEM_R_UTILIZATION), LLMMEM_E_PARAM_TYPE);
    EXPECT(llmmem_result_get_f64(&d, res, LLMMEM_R_PEAK_ALLOCATED_BYTES), LLMMEM_E_PARAM_TYPE);
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
        int k = bad_ints[i];
        EXPECT_FAIL(llmmem_result_get_u64(&u, res, k));
        EXPECT_FAIL(llmmem_result_get_i64(&v, res, k));
        EXPECT_FAIL(llmmem_result_get_f64(&d, res, k));
        if (k != 99) {
            EXPECT_FAIL(llmmem_result_component_bytes(&u, res, k, LLMMEM_C_WEIGHTS));
            EXPECT_FAIL(llmmem_result_component_bytes(&u, res, LLMMEM_PHASE_FORWARD, k));
            EXPECT_FAIL(llmmem_result_phase_bytes(&u, res, k));
        }
        EXPECT_FAIL(llmmem_result_stage_peak_bytes(&u, res, k));
    }
    EXPECT_NULL_ARG(llmmem_result_component_bytes(NULL, res, 0, 0));
    EXPECT_NULL_ARG(llmmem_result_component_bytes(&u, NULL, 0, 0));
    EXPECT_NULL_ARG(llmmem_result_phase_bytes(NULL, res, 0));
    EXPECT_NULL_ARG(llmmem_result_phase_bytes(&u, NULL, 0));
    EXPECT_NULL_ARG(llmmem_result_stage_peak_bytes(NULL, res, 0));
    EXPECT_NULL_ARG(llmmem_result_stage_peak_bytes(&u, NULL, 0));
    EXPECT_FAIL(llmmem_result_phase_bytes(&u, res, llmmem_phase_count()));
    EXPECT_FAIL(llmmem_result_component_bytes(&u, res, 0, llmmem_component_count()));
    assert_int_equal(llmmem_result_term_count(NULL), 0);
    const char *name = NULL, *formula = NULL;
    EXPECT_NULL_ARG(llmmem_result_term(&name, &formula, &u, NULL, 0));
    EXPECT_FAIL(llmmem_result_term(&name, &formula, &u, res, -1));
    EXPECT_FAIL(llmmem_result_term(&name, &formula, &u, res, llmmem_result_term_count(res)));
    EXPECT_FAIL(llmmem_result_term(&name, &formula, &u, res, INT_MAX));
    /* any out pointer may be NULL when not wanted, or all are required: never a crash */
    llmmem_clear_error();
    int rc = llmmem_result_term(NULL, NULL, NULL, res, 0);
    assert_true(rc == 0 || rc == LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_result_input_count(NULL), 0);
    int64_t iv = 0;
    EXPECT_NULL_ARG(llmmem_result_input(&name, &iv, NULL, 0));
    EXPECT_FAIL(llmmem_result_input(&name, &iv, res, -1));
    EXPECT_FAIL(llmmem_result_input(&name, &iv, res, INT_MIN));
    EXPECT_FAIL(llmmem_result_input(&name, &iv, res, llmmem_result_input_count(res)));
    llmmem_clear_error();
    rc = llmmem_result_input(NULL, NULL, res, 0);
    assert_true(rc == 0 || rc == LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_result_note_count(NULL), 0);
    assert_null(llmmem_result_note(NULL, 0));
    assert_null(llmmem_result_note(res, -1));
    assert_null(llmmem_result_note(res, llmmem_result_note_count(res)));
    char buf[8];
    size_t need = 0;
    EXPECT_NULL_ARG(llmmem_result_to_json(buf, sizeof buf, &need, NULL));
    EXPECT_NULL_ARG(llmmem_result_to_json(NULL, 8, &need, res));
    EXPECT(llmmem_result_to_json(buf, 1, &need, res), LLMMEM_E_BUFFER_TOO_SMALL);
    assert_string_equal(buf, "");
    EXPECT(llmmem_result_to_json(buf, sizeof buf, NULL, res), LLMMEM_E_BUFFER_TOO_SMALL);
}

static void plans(void **state)
{
    fixture *f = *state;
    int64_t v;
    typedef int (*search)(int64_t *, const llmmem_model *, const llmmem_config *);
    static const search s[] = {llmmem_plan_max_batch, llmmem_plan_max_seq_len, llmmem_plan_min_gpus,
                               llmmem_plan_max_gpu_layers};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        EXPECT_NULL_ARG(s[i](NULL, f->model, f->cfg));
        EXPECT_NULL_ARG(s[i](&v, NULL, f->cfg));
        EXPECT_NULL_ARG(s[i](&v, f->model, NULL));
    }
    /* -ngl is llama.cpp's: another runtime or a model not from a GGUF file is refused */
    EXPECT(llmmem_plan_max_gpu_layers(&v, f->model, f->cfg), LLMMEM_E_UNSUPPORTED);
    {
        int64_t a, k;
        EXPECT_NULL_ARG(llmmem_plan_inverse(NULL, &a, &k, f->model, f->cfg, LLMMEM_PLAN_MAX_BATCH));
        EXPECT_NULL_ARG(llmmem_plan_inverse(&v, NULL, &k, f->model, f->cfg, LLMMEM_PLAN_MAX_BATCH));
        EXPECT_NULL_ARG(llmmem_plan_inverse(&v, &a, NULL, f->model, f->cfg, LLMMEM_PLAN_MAX_BATCH));
        EXPECT_NULL_ARG(llmmem_plan_inverse(&v, &a, &k, NULL, f->cfg, LLMMEM_PLAN_MAX_BATCH));
        EXPECT_NULL_ARG(llmmem_plan_inverse(&v, &a, &k, f->model, NULL, LLMMEM_PLAN_MAX_BATCH));
        for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
            EXPECT(llmmem_plan_inverse(&v, &a, &k, f->model, f->cfg, bad_ints[i]), LLMMEM_E_INVALID_ARG);
    }
    EXPECT_NULL_ARG(llmmem_plan_new(NULL));
    llmmem_plan_free(NULL);
    EXPECT_NULL_ARG(llmmem_plan_layouts(NULL, f->model, f->cfg, 4));
    EXPECT_NULL_ARG(llmmem_plan_layouts(f->plan, NULL, f->cfg, 4));
    EXPECT_NULL_ARG(llmmem_plan_layouts(f->plan, f->model, NULL, 4));
    EXPECT_FAIL(llmmem_plan_layouts(f->plan, f->model, f->cfg, 0));
    EXPECT_FAIL(llmmem_plan_layouts(f->plan, f->model, f->cfg, -1));
    EXPECT_FAIL(llmmem_plan_layouts(f->plan, f->model, f->cfg, INT_MIN));
    assert_int_equal(llmmem_plan_count(NULL), 0);
    assert_int_equal(llmmem_plan_candidates(NULL), 0);
    assert_int_equal(llmmem_plan_global_batch(NULL), 0);
    assert_int_equal(llmmem_plan_note_count(NULL), 0);
    assert_null(llmmem_plan_note(NULL, 0));
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
        assert_null(llmmem_plan_note(f->plan, bad_ints[i]));
    assert_int_equal(llmmem_plan_rejected(NULL, 0), 0);
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
        assert_int_equal(llmmem_plan_rejected(f->plan, bad_ints[i]), 0);
    llmmem_config *c = NULL;
    double t;
    uint64_t u;
    EXPECT_NULL_ARG(llmmem_plan_config(NULL, f->plan, 0));
    EXPECT_NULL_ARG(llmmem_plan_config(&c, NULL, 0));
    EXPECT_NULL_ARG(llmmem_plan_step_time(NULL, f->plan, 0));
    EXPECT_NULL_ARG(llmmem_plan_step_time(&t, NULL, 0));
    EXPECT_NULL_ARG(llmmem_plan_peak_bytes(NULL, f->plan, 0));
    EXPECT_NULL_ARG(llmmem_plan_peak_bytes(&u, NULL, 0));
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
        EXPECT_FAIL(llmmem_plan_config(&c, f->plan, bad_ints[i]));
        EXPECT_FAIL(llmmem_plan_step_time(&t, f->plan, bad_ints[i]));
        EXPECT_FAIL(llmmem_plan_peak_bytes(&u, f->plan, bad_ints[i]));
    }
    assert_null(c);
    char buf[8];
    size_t need = 0;
    EXPECT_NULL_ARG(llmmem_plan_to_json(buf, sizeof buf, &need, NULL));
    EXPECT_NULL_ARG(llmmem_plan_to_json(NULL, 8, &need, f->plan));
    /* an empty plan serialises (it has nothing in it, but is a valid object) */
    EXPECT(llmmem_plan_to_json(NULL, 0, &need, f->plan), LLMMEM_E_BUFFER_TOO_SMALL);
    /* the allocation timeline: NULL handles, a NULL buffer with a capacity, unknown formats */
    EXPECT_NULL_ARG(llmmem_timeline(buf, sizeof buf, &need, NULL, f->cfg, LLMMEM_TIMELINE_JSON));
    EXPECT_NULL_ARG(llmmem_timeline(buf, sizeof buf, &need, f->model, NULL, LLMMEM_TIMELINE_SVG));
    EXPECT_NULL_ARG(llmmem_timeline(NULL, 8, &need, f->model, f->cfg, LLMMEM_TIMELINE_SNAPSHOT));
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
        if (bad_ints[i] >= LLMMEM_TIMELINE_JSON && bad_ints[i] <= LLMMEM_TIMELINE_SNAPSHOT)
            continue;
        EXPECT_FAIL(llmmem_timeline(buf, sizeof buf, &need, f->model, f->cfg, bad_ints[i]));
        assert_null(llmmem_timeline_format_name(bad_ints[i]));
    }
    assert_string_equal(llmmem_timeline_format_name(LLMMEM_TIMELINE_SVG), "svg");
}

/* Every function the header declares is called in this file (a new function must get its
 * NULL/garbage cases here): names from include/llmmem.h, text of this file. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 18];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *copy = malloc(n + 1);
    if (copy)
        memcpy(copy, buf, n + 1);
    return copy;
}

static void every_function_covered(void **state)
{
    (void)state;
    char *header = slurp("include/llmmem.h");
    char *self = slurp("test/test_null_args.c");
    if (!header || !self) {
        free(header);
        free(self);
        fail_msg("include/llmmem.h or test/test_null_args.c not found: run from the repository root");
        return;
    }
    int functions = 0, missing = 0;
    for (const char *p = header; (p = strstr(p, "LLMMEM_API ")) != NULL; p++) {
        const char *name = strstr(p, "llmmem_");
        const char *paren = name ? strchr(name, '(') : NULL;
        const char *eol = strchr(p, '\n');
        if (!name || !paren || (eol && paren > eol) || paren - name > 60)
            continue;
        char call[80];
        snprintf(call, sizeof call, "%.*s(", (int)(paren - name), name);
        functions++;
        /* a call, or the name passed as a function pointer (estimators, searches) */
        char ref[80];
        snprintf(ref, sizeof ref, "%.*s,", (int)(paren - name), name);
        char ref2[80];
        snprintf(ref2, sizeof ref2, "%.*s}", (int)(paren - name), name);
        if (!strstr(self, call) && !strstr(self, ref) && !strstr(self, ref2)) {
            print_error("not exercised here: %s\n", call);
            missing++;
        }
    }
    free(header);
    free(self);
    assert_true(functions >= 100);
    assert_int_equal(missing, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(info_and_names),
        cmocka_unit_test(param_introspection),
        cmocka_unit_test_setup_teardown(models, setup, teardown),
        cmocka_unit_test_setup_teardown(configs, setup, teardown),
        cmocka_unit_test_setup_teardown(files, setup, teardown),
        cmocka_unit_test_setup_teardown(results, setup, teardown),
        cmocka_unit_test_setup_teardown(plans, setup, teardown),
        cmocka_unit_test(every_function_covered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
