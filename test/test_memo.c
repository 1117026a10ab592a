/* The memo of allocator replays on the model handle (src/memory/reserved.c): an
 * estimate answered from it is byte-identical to one that replays (a clone of the model
 * starts with an empty memo, so its estimate replays), across the replay's settings in
 * training and in generate, past the memo's capacity; setting the model drops it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "replay/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_CAP (1 << 16)

static char json_a[JSON_CAP], json_b[JSON_CAP];

/* The estimate's JSON into buf (its status returned). */
static int estimate_json(char *buf, llmmem_model *m, llmmem_config *c)
{
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    int rc = llmmem_estimate(r, m, c);
    size_t need = 0;
    if (rc == 0)
        assert_int_equal(llmmem_result_to_json(buf, JSON_CAP, &need, r), 0);
    else
        snprintf(buf, JSON_CAP, "error %d: %s", rc, llmmem_last_error());
    llmmem_result_free(r);
    return rc;
}

static int replays_kept(const llmmem_model *m) { return llmmem__memo_entries(m); }

/* Each setting: estimated on a model whose memo already holds it and on a fresh clone. */
static void same_as_a_replay(void **state)
{
    (void)state;
    static const char *const settings[][10] = {
        {NULL},
        {"micro_batch_size", "2", "seq_len", "2048", "activation_checkpointing", "full", NULL},
        {"lora_rank", "16", "lora_targets", "all-linear", "param_dtype", "bf16", NULL},
        {"expandable_segments", "true", "gradient_accumulation_steps", "4", NULL},
        {"max_split_size_bytes", "67108864", "garbage_collection_threshold", "0.6", NULL},
        {"gpu_memory_bytes", "40000000000", "empty_cache_steps", "1", NULL},
        {"prior_workspace_segment_bytes", "2147483648", "seq_len", "1024", NULL},
        {"attention", "eager", "optimizer", "adafactor", NULL},
        {"mode", "inference", NULL},
        {"mode", "inference", "batch_size", "4", "prompt_len", "1024", "decode_len", "64", NULL},
        {"mode", "inference", "expandable_segments", "true", "decode_len", "32", NULL},
        {"mode", "inference", "gpu_memory_bytes", "20000000000", "batch_size", "16", NULL},
    };
    const int n = (int)(sizeof settings / sizeof settings[0]);
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-3.2-1b"), 0);
    for (int round = 0; round < 2; round++) /* the second round runs past the memo's capacity */
        for (int i = 0; i < n; i++) {
            llmmem_config *c = NULL;
            assert_int_equal(llmmem_config_new(&c), 0);
            for (int k = 0; settings[i][k]; k += 2)
                assert_int_equal(llmmem_config_set(c, settings[i][k], settings[i][k + 1]), 0);
            int rc = estimate_json(json_a, m, c); /* from the memo, or kept in it */
            int rc2 = estimate_json(json_a + JSON_CAP / 2, m, c);
            llmmem_model *fresh = NULL;
            assert_int_equal(llmmem_model_clone(&fresh, m), 0);
            assert_int_equal(replays_kept(fresh), 0);
            int rc3 = estimate_json(json_b, fresh, c);
            assert_int_equal(rc, rc3);
            assert_int_equal(rc2, rc3);
            if (strcmp(json_a, json_b) || strcmp(json_a + JSON_CAP / 2, json_b))
                fail_msg("setting %d: the estimate from the memo differs from a replay", i);
            llmmem_model_free(fresh);
            llmmem_config_free(c);
        }
    assert_true(replays_kept(m) > 0);
    llmmem_model_free(m);
}

/* A value of one parameter more is another question; setting the model drops its memo. */
static void keys_and_drops(void **state)
{
    (void)state;
    llmmem_model *m = NULL, *fresh = NULL;
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-3.2-1b"), 0);
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(estimate_json(json_a, m, c), 0);
    assert_int_equal(replays_kept(m), 1);
    assert_int_equal(llmmem_config_set(c, "seq_len", "1024"), 0);
    assert_int_equal(estimate_json(json_a, m, c), 0);
    assert_int_equal(replays_kept(m), 2);
    assert_int_equal(llmmem_model_set(m, "num_hidden_layers", "8"), 0);
    assert_int_equal(replays_kept(m), 0);
    assert_int_equal(estimate_json(json_a, m, c), 0);
    assert_int_equal(llmmem_model_from_preset(&fresh, "llama-3.2-1b"), 0);
    assert_int_equal(llmmem_model_set(fresh, "num_hidden_layers", "8"), 0);
    assert_int_equal(estimate_json(json_b, fresh, c), 0);
    assert_string_equal(json_a, json_b);
    llmmem_model_free(fresh);
    llmmem_model_free(m);
    llmmem_config_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_as_a_replay),
        cmocka_unit_test(keys_and_drops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
