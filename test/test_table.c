/* The table of engines and runtimes (issue 26): the per-engine entry points
 * are llmmem_estimate with the engine set, byte for byte, on every preset;
 * they refuse a configuration that names another engine (or mode) instead of
 * answering for it; and llmmem_param_applies, the rows' own list of the
 * options they read, is true to the estimates: an option it says an engine
 * does not read either changes nothing there or is refused by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llmmem.h>

typedef int (*estimate_fn)(llmmem_result *, const llmmem_model *, const llmmem_config *);

static const struct {
    int engine;
    estimate_fn fn;
    const char *fn_name;
} entries[] = {
    {LLMMEM_ENGINE_SINGLE, llmmem_estimate_single, "llmmem_estimate_single"},
    {LLMMEM_ENGINE_DDP, llmmem_estimate_ddp, "llmmem_estimate_ddp"},
    {LLMMEM_ENGINE_ZERO, llmmem_estimate_zero, "llmmem_estimate_zero"},
    {LLMMEM_ENGINE_FSDP, llmmem_estimate_fsdp, "llmmem_estimate_fsdp"},
    {LLMMEM_ENGINE_MEGATRON, llmmem_estimate_megatron, "llmmem_estimate_megatron"},
    {LLMMEM_ENGINE_MEGATRON_DEEPSPEED, llmmem_estimate_megatron_deepspeed, "llmmem_estimate_megatron_deepspeed"},
};
#define ENTRIES (int)(sizeof entries / sizeof entries[0])

static char json_a[1 << 17], json_b[1 << 17];

static void set(llmmem_config *c, const char *k, const char *v)
{
    if (llmmem_config_set(c, k, v) != 0)
        fail_msg("set %s=%s: %s", k, v, llmmem_last_error());
}

/* The JSON of a result into buf (or the error text), and the status. */
static int estimate_json(char *buf, size_t cap, estimate_fn fn, const llmmem_model *m, const llmmem_config *c)
{
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    int rc = fn(r, m, c);
    size_t need = 0;
    if (rc == 0)
        assert_int_equal(llmmem_result_to_json(buf, cap, &need, r), 0);
    else
        snprintf(buf, cap, "%s", llmmem_last_error());
    llmmem_result_free(r);
    return rc;
}

/* A configuration that each engine accepts on most models: 8 GPUs for the
 * distributed ones (TP 2 for the Megatron engines, ZeRO-3 / stage 1). */
static void engine_config(llmmem_config *c, int engine, int variant)
{
    static const char *const ckpt[] = {"none", "full", "selective"};
    set(c, "seq_len", variant % 2 ? "1024" : "2048");
    set(c, "micro_batch_size", variant % 3 ? "1" : "2");
    set(c, "activation_checkpointing", ckpt[variant % 3]);
    switch (engine) {
    case LLMMEM_ENGINE_SINGLE: break;
    case LLMMEM_ENGINE_DDP: set(c, "num_gpus", "2"); break;
    case LLMMEM_ENGINE_ZERO:
        set(c, "num_gpus", "8");
        set(c, "zero_stage", variant % 2 ? "2" : "3");
        break;
    case LLMMEM_ENGINE_FSDP: set(c, "num_gpus", "8"); break;
    case LLMMEM_ENGINE_MEGATRON:
        set(c, "num_gpus", "8");
        set(c, "tensor_parallel_size", "2");
        break;
    case LLMMEM_ENGINE_MEGATRON_DEEPSPEED:
        set(c, "num_gpus", "8");
        set(c, "tensor_parallel_size", "2");
        set(c, "zero_stage", "1");
        break;
    }
}

/* llmmem_estimate_X(m, c) == llmmem_estimate(m, c with engine X), on every preset,
 * the answer and the refusals alike; c leaves the engine unset for the wrapper. */
static void wrappers_equal_estimate(void **state)
{
    (void)state;
    int compared = 0, estimated = 0;
    for (int p = 0; p < llmmem_preset_count(); p++) {
        llmmem_model *m = NULL;
        assert_int_equal(llmmem_model_from_preset(&m, llmmem_preset_name(p)), 0);
        for (int k = 0; k < ENTRIES; k++) {
            llmmem_config *plain = NULL, *with = NULL;
            assert_int_equal(llmmem_config_new(&plain), 0);
            engine_config(plain, entries[k].engine, p);
            assert_int_equal(llmmem_config_clone(&with, plain), 0);
            assert_int_equal(llmmem_config_set_i64(with, LLMMEM_P_ENGINE, entries[k].engine), 0);
            int ra = estimate_json(json_a, sizeof json_a, entries[k].fn, m, plain);
            int rb = estimate_json(json_b, sizeof json_b, llmmem_estimate, m, with);
            if (ra != rb || strcmp(json_a, json_b) != 0)
                fail_msg("%s on %s: status %d, llmmem_estimate with the engine set %d\n%.400s\n%.400s",
                         entries[k].fn_name, llmmem_preset_name(p), ra, rb, json_a, json_b);
            /* the config that already names the engine gives the same again */
            int rc = estimate_json(json_a, sizeof json_a, entries[k].fn, m, with);
            assert_int_equal(rc, rb);
            assert_string_equal(json_a, json_b);
            compared++;
            estimated += rb == 0;
            llmmem_config_free(plain);
            llmmem_config_free(with);
        }
        llmmem_model_free(m);
    }
    printf("  %d preset x engine pairs compared, %d of them estimates\n", compared, estimated);
    assert_true(estimated > compared / 2);
}

/* GPT-2's learned position table: llmmem_estimate adapts the default
 * sequence, and so does llmmem_estimate_single now (it used to refuse). */
static void wrappers_adapt_default_length(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_hf_file(&m, "test/data/configs/published/gpt2.json"), 0);
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(estimate_json(json_a, sizeof json_a, llmmem_estimate_single, m, c), 0);
    assert_int_equal(estimate_json(json_b, sizeof json_b, llmmem_estimate, m, c), 0);
    assert_string_equal(json_a, json_b);
    assert_non_null(strstr(json_a, "seq_len defaults to 1024"));
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* A wrapper never answers for another engine, or another mode. */
static void wrappers_refuse_another_engine(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-3.1-8b"), 0);
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    for (int k = 0; k < ENTRIES; k++)
        for (int other = 0; other < ENTRIES; other++) {
            if (other == k)
                continue;
            llmmem_config *c = NULL;
            assert_int_equal(llmmem_config_new(&c), 0);
            assert_int_equal(llmmem_config_set_i64(c, LLMMEM_P_ENGINE, entries[other].engine), 0);
            assert_int_equal(entries[k].fn(r, m, c), LLMMEM_E_INCONSISTENT);
            const char *mine = llmmem_param_enum_name(LLMMEM_P_ENGINE, entries[k].engine);
            const char *theirs = llmmem_param_enum_name(LLMMEM_P_ENGINE, entries[other].engine);
            char want[96];
            snprintf(want, sizeof want, "estimates engine %s, but the configuration sets engine %s", mine, theirs);
            if (!strstr(llmmem_last_error(), want))
                fail_msg("%s: \"%s\" does not say \"%s\"", entries[k].fn_name, llmmem_last_error(), want);
            llmmem_config_free(c);
        }
    /* mode inference: no training wrapper answers; llmmem_estimate_inference does */
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    set(c, "mode", "inference");
    for (int k = 0; k < ENTRIES; k++) {
        assert_int_equal(entries[k].fn(r, m, c), LLMMEM_E_INCONSISTENT);
        assert_non_null(strstr(llmmem_last_error(), "sets mode inference"));
    }
    assert_int_equal(estimate_json(json_a, sizeof json_a, llmmem_estimate_inference, m, c), 0);
    assert_int_equal(estimate_json(json_b, sizeof json_b, llmmem_estimate, m, c), 0);
    assert_string_equal(json_a, json_b);
    /* mode training set: llmmem_estimate_inference refuses; unset: it estimates inference */
    set(c, "mode", "training");
    assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_INCONSISTENT);
    assert_non_null(strstr(llmmem_last_error(), "sets mode training"));
    llmmem_config_free(c);
    assert_int_equal(llmmem_config_new(&c), 0);
    set(c, "runtime", "vllm");
    assert_int_equal(estimate_json(json_a, sizeof json_a, llmmem_estimate_inference, m, c), 0);
    set(c, "mode", "inference");
    assert_int_equal(estimate_json(json_b, sizeof json_b, llmmem_estimate, m, c), 0);
    assert_string_equal(json_a, json_b);
    llmmem_config_free(c);
    llmmem_result_free(r);
    llmmem_model_free(m);
}

/* A value of parameter p other than its default, as text; NULL when none is known. */
static const char *other_value(char *buf, size_t cap, int p)
{
    const char *name = llmmem_param_name(p);
    int64_t lo, hi, def;
    double flo, fhi, fdef;
    switch (llmmem_param_type(p)) {
    case LLMMEM_TYPE_STR:
        return strcmp(name, "vllm_version") == 0 ? "0.10.2" : NULL;
    case LLMMEM_TYPE_F64:
        assert_int_equal(llmmem_param_bounds_f64(&flo, &fhi, p), 0);
        assert_int_equal(llmmem_param_default_f64(&fdef, p), 0);
        snprintf(buf, cap, "%.17g", fdef < fhi ? fdef + (fhi - fdef) / 2 : (flo + fdef) / 2);
        return buf;
    case LLMMEM_TYPE_ENUM:
        assert_int_equal(llmmem_param_default_i64(&def, p), 0);
        return llmmem_param_enum_name(p, (def + 1) % llmmem_param_enum_count(p));
    default:
        assert_int_equal(llmmem_param_bounds_i64(&lo, &hi, p), 0);
        assert_int_equal(llmmem_param_default_i64(&def, p), 0);
        snprintf(buf, cap, "%lld", (long long)(def < hi ? def + 1 : def - 1));
        return buf;
    }
}

/* Every option llmmem_param_applies says a value of the gate does not read:
 * set, it changes nothing there (the same JSON), or the estimate refuses it by
 * name. The options it says the value reads are its row's. */
static void applies_is_true_to_the_estimates(void **state)
{
    (void)state;
    llmmem_model *preset = NULL, *gguf = NULL;
    assert_int_equal(llmmem_model_from_preset(&preset, "llama-3.2-1b"), 0);
    /* runtime llama_cpp estimates a model read from a GGUF file */
    assert_int_equal(llmmem_model_from_gguf_file(&gguf, "fuzz/corpus/fuzz_gguf/llama.gguf"), 0);
    int unread = 0, refused = 0;
    for (int gate_i = 0; gate_i < 2; gate_i++) {
        const int gate = gate_i ? LLMMEM_P_RUNTIME : LLMMEM_P_ENGINE;
        for (int v = 0; v < llmmem_param_enum_count(gate); v++) {
            llmmem_model *m = gate == LLMMEM_P_RUNTIME && v == LLMMEM_RUNTIME_LLAMA_CPP ? gguf : preset;
            llmmem_config *base = NULL;
            assert_int_equal(llmmem_config_new(&base), 0);
            assert_int_equal(llmmem_config_set_i64(base, gate, v), 0);
            if (gate == LLMMEM_P_RUNTIME)
                set(base, "mode", "inference");
            else
                engine_config(base, v, 1);
            assert_int_equal(estimate_json(json_a, sizeof json_a, llmmem_estimate, m, base), 0);
            for (int i = 0; i < llmmem_param_count(); i++) {
                const int p = llmmem_param_at(i);
                const int a = llmmem_param_applies(p, gate, v);
                assert_true(a == 0 || a == 1);
                if (a)
                    continue;
                char buf[64];
                const char *value = other_value(buf, sizeof buf, p);
                assert_non_null(value);
                llmmem_config *c = NULL;
                assert_int_equal(llmmem_config_clone(&c, base), 0);
                set(c, llmmem_param_name(p), value);
                int rc = estimate_json(json_b, sizeof json_b, llmmem_estimate, m, c);
                if (rc == LLMMEM_E_INCONSISTENT || rc == LLMMEM_E_UNSUPPORTED) {
                    if (!strstr(json_b, llmmem_param_name(p)))
                        fail_msg("%s %s: %s = %s refused without naming it: %s", llmmem_param_name(gate),
                                 llmmem_param_enum_name(gate, v), llmmem_param_name(p), value, json_b);
                    refused++;
                } else if (rc != 0 || strcmp(json_a, json_b) != 0) {
                    fail_msg("%s %s does not read %s (llmmem_param_applies), but %s = %s changes its "
                             "estimate (status %d)",
                             llmmem_param_name(gate), llmmem_param_enum_name(gate, v), llmmem_param_name(p),
                             llmmem_param_name(p), value, rc);
                } else {
                    unread++;
                }
                llmmem_config_free(c);
            }
            llmmem_config_free(base);
        }
    }
    printf("  options another row reads: %d change nothing, %d are refused by name\n", unread, refused);
    /* issue 25 item 1: a setting that does not apply is refused, never dropped quietly */
    assert_true(unread == 0 && refused > 0);
    llmmem_model_free(preset);
    llmmem_model_free(gguf);
}

/* The answers of llmmem_param_applies the API promises. */
static void applies_answers(void **state)
{
    (void)state;
    /* an option of some engines: read by those, not by the others */
    assert_int_equal(llmmem_param_applies(LLMMEM_P_ZERO_STAGE, LLMMEM_P_ENGINE, LLMMEM_ENGINE_ZERO), 1);
    assert_int_equal(llmmem_param_applies(LLMMEM_P_ZERO_STAGE, LLMMEM_P_ENGINE, LLMMEM_ENGINE_DDP), 0);
    assert_int_equal(llmmem_param_applies(LLMMEM_P_MAX_NUM_SEQS, LLMMEM_P_RUNTIME, LLMMEM_RUNTIME_VLLM), 1);
    assert_int_equal(llmmem_param_applies(LLMMEM_P_MAX_NUM_SEQS, LLMMEM_P_RUNTIME, LLMMEM_RUNTIME_HF), 0);
    /* no engine's option: every engine reads it */
    for (int v = 0; v < llmmem_param_enum_count(LLMMEM_P_ENGINE); v++)
        assert_int_equal(llmmem_param_applies(LLMMEM_P_SEQ_LEN, LLMMEM_P_ENGINE, v), 1);
    /* every option read by some value of its gate, never by none */
    for (int i = 0; i < llmmem_param_count(); i++) {
        const int p = llmmem_param_at(i);
        for (int gate_i = 0; gate_i < 2; gate_i++) {
            const int gate = gate_i ? LLMMEM_P_RUNTIME : LLMMEM_P_ENGINE;
            int readers = 0;
            for (int v = 0; v < llmmem_param_enum_count(gate); v++)
                readers += llmmem_param_applies(p, gate, v);
            if (readers == 0)
                fail_msg("%s: no %s reads it", llmmem_param_name(p), llmmem_param_name(gate));
        }
    }
    assert_int_equal(llmmem_param_applies(12345, LLMMEM_P_ENGINE, 0), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_param_applies(LLMMEM_P_SEQ_LEN, LLMMEM_P_SEQ_LEN, 0), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_param_applies(LLMMEM_P_SEQ_LEN, LLMMEM_P_ENGINE, 99), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_param_applies(LLMMEM_P_SEQ_LEN, LLMMEM_P_RUNTIME, -1), LLMMEM_E_INVALID_ARG);
    assert_non_null(strstr(llmmem_last_error(), "runtime"));
}

/* The published values are the names' positions (the header's constants are what
 * bindings switch on). */
static void published_values(void **state)
{
    (void)state;
    static const struct {
        int param, value;
        const char *name;
    } v[] = {
        {LLMMEM_P_ENGINE, LLMMEM_ENGINE_SINGLE, "single"},
        {LLMMEM_P_ENGINE, LLMMEM_ENGINE_DDP, "ddp"},
        {LLMMEM_P_ENGINE, LLMMEM_ENGINE_ZERO, "zero"},
        {LLMMEM_P_ENGINE, LLMMEM_ENGINE_FSDP, "fsdp"},
        {LLMMEM_P_ENGINE, LLMMEM_ENGINE_MEGATRON, "megatron"},
        {LLMMEM_P_ENGINE, LLMMEM_ENGINE_MEGATRON_DEEPSPEED, "megatron_deepspeed"},
        {LLMMEM_P_RUNTIME, LLMMEM_RUNTIME_HF, "hf"},
        {LLMMEM_P_RUNTIME, LLMMEM_RUNTIME_VLLM, "vllm"},
        {LLMMEM_P_RUNTIME, LLMMEM_RUNTIME_LLAMA_CPP, "llama_cpp"},
        {LLMMEM_P_PARAM_DTYPE, LLMMEM_DTYPE_AUTO, "auto"},
        {LLMMEM_P_PARAM_DTYPE, LLMMEM_DTYPE_FP32, "fp32"},
        {LLMMEM_P_PARAM_DTYPE, LLMMEM_DTYPE_FP16, "fp16"},
        {LLMMEM_P_PARAM_DTYPE, LLMMEM_DTYPE_BF16, "bf16"},
        {LLMMEM_P_PARAM_DTYPE, LLMMEM_DTYPE_FP8, "fp8"},
        {LLMMEM_P_OPTIMIZER, LLMMEM_OPTIMIZER_ADAMW, "adamw"},
        {LLMMEM_P_OPTIMIZER, LLMMEM_OPTIMIZER_SGD, "sgd"},
        {LLMMEM_P_OPTIMIZER, LLMMEM_OPTIMIZER_ADAFACTOR, "adafactor"},
        {LLMMEM_P_OPTIMIZER, LLMMEM_OPTIMIZER_PAGED_ADAMW_8BIT, "paged_adamw_8bit"},
        {LLMMEM_P_OPTIMIZER, LLMMEM_OPTIMIZER_ADAMW_TORCHAO_4BIT, "adamw_torchao_4bit"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        assert_string_equal(llmmem_param_enum_name(v[i].param, v[i].value), v[i].name);
    assert_int_equal(llmmem_param_enum_count(LLMMEM_P_ENGINE), LLMMEM_ENGINE_MEGATRON_DEEPSPEED + 1);
    assert_int_equal(llmmem_param_enum_count(LLMMEM_P_RUNTIME), LLMMEM_RUNTIME_LLAMA_CPP + 1);
    assert_int_equal(llmmem_param_enum_count(LLMMEM_P_OPTIMIZER), LLMMEM_OPTIMIZER_ADAMW_TORCHAO_4BIT + 1);
    assert_int_equal(llmmem_param_enum_count(LLMMEM_P_PARAM_DTYPE), LLMMEM_DTYPE_FP8 + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wrappers_equal_estimate),          cmocka_unit_test(wrappers_adapt_default_length),
        cmocka_unit_test(wrappers_refuse_another_engine),   cmocka_unit_test(applies_is_true_to_the_estimates),
        cmocka_unit_test(applies_answers),                  cmocka_unit_test(published_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
