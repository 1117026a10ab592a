/* Framework YAML readers against the frameworks' own rules (issue 25 item 4): every row of
 * test/data/readers/cases.tsv (a file, and what the framework does with it: the parameters
 * it sets, or the refusal with its position and key), applied to a fresh configuration;
 * a refusal leaves the configuration as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llmmem.h"

static int kind_of(const char *k)
{
    for (int i = 0; llmmem_framework_name(i); i++)
        if (!strcmp(llmmem_framework_name(i), k))
            return i;
    fail_msg("unknown kind %s", k);
    return -1;
}

static int status_of(const char *name)
{
    for (int s = 0; s >= -40; s--)
        if (llmmem_status_name(s) && !strcmp(llmmem_status_name(s), name))
            return s;
    fail_msg("unknown status %s", name);
    return 1;
}

/* "\n" in the table is a newline; every other backslash stays (YAML escapes). */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] == 'n') {
            *o++ = '\n';
            s++;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

static void expect_param(const llmmem_config *c, const char *pair, const char *path, int line)
{
    char name[64];
    const char *eq = strchr(pair, '=');
    assert_non_null(eq);
    snprintf(name, sizeof name, "%.*s", (int)(eq - pair), pair);
    int id;
    assert_int_equal(llmmem_param_from_name(&id, name), 0);
    char buf[256];
    size_t need;
    assert_int_equal(llmmem_config_get_str(buf, sizeof buf, &need, c, id), 0);
    if (strcmp(buf, eq + 1))
        fail_msg("%s:%d: %s is %s, expected %s", path, line, name, buf, eq + 1);
}

static void run_table(const char *path, int min_rows)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s: cannot open", path);
    char line[4096];
    int no = 0, n = 0;
    while (fgets(line, sizeof line, f)) {
        no++;
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *save = NULL;
        char *kind = strtok_r(line, "\t", &save), *yaml = strtok_r(NULL, "\t", &save);
        char *expect = strtok_r(NULL, "\t", &save), *source = strtok_r(NULL, "\t", &save);
        assert_non_null(kind);
        assert_non_null(yaml);
        assert_non_null(expect);
        assert_non_null(source); /* every row cites the framework code it follows */
        unescape(yaml);
        llmmem_config *c, *before;
        assert_int_equal(llmmem_config_new(&c), 0);
        assert_int_equal(llmmem_config_new(&before), 0);
        int rc = llmmem_config_apply_framework_yaml(c, NULL, kind_of(kind), yaml, strlen(yaml));
        if (!strncmp(expect, "ok", 2)) {
            if (rc)
                fail_msg("%s:%d: %s", path, no, llmmem_last_error());
            char *p = expect + 2, *s2 = NULL;
            for (char *pair = strtok_r(p, " ", &s2); pair; pair = strtok_r(NULL, " ", &s2))
                expect_param(c, pair, path, no);
        } else {
            char status[64];
            const char *frag = strchr(expect, ' ');
            snprintf(status, sizeof status, "%.*s", frag ? (int)(frag - expect) : (int)strlen(expect), expect);
            if (rc != status_of(status))
                fail_msg("%s:%d: status %d (%s), expected %s", path, no, rc, rc ? llmmem_last_error() : "ok", status);
            if (frag && !strstr(llmmem_last_error(), frag + 1))
                fail_msg("%s:%d: \"%s\" lacks \"%s\"", path, no, llmmem_last_error(), frag + 1);
            /* all or nothing: the configuration is unchanged */
            char a[8192], b[8192];
            size_t na, nb;
            assert_int_equal(llmmem_config_to_json(a, sizeof a, &na, c), 0);
            assert_int_equal(llmmem_config_to_json(b, sizeof b, &nb, before), 0);
            assert_string_equal(a, b);
        }
        llmmem_config_free(c);
        llmmem_config_free(before);
        n++;
    }
    fclose(f);
    assert_true(n >= min_rows);
}

static void cases(void **state)
{
    (void)state;
    run_table("test/data/readers/cases.tsv", 20);
}

/* The value table (issue 25 item 7): each reader's memory-relevant keys and defaults. */
static void value_table(void **state)
{
    (void)state;
    run_table("test/data/readers/values.tsv", 25);
}

static llmmem_model *load_hf(const char *dir, const char *file, int *rc)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    llmmem_model *m = NULL;
    *rc = llmmem_model_from_hf_file(&m, path);
    return m;
}

static bool model_note_has(const llmmem_model *m, const char *frag)
{
    for (int i = 0; i < llmmem_model_note_count(m); i++)
        if (strstr(llmmem_model_note(m, i), frag))
            return true;
    return false;
}

static void hf_configs(void **state)
{
    (void)state;
    const char *dir = "test/data/readers/hf";
    FILE *f = fopen("test/data/readers/hf.tsv", "r");
    assert_non_null(f);
    char line[2048];
    int no = 0, n = 0;
    while (fgets(line, sizeof line, f)) {
        no++;
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *save = NULL;
        char *file = strtok_r(line, "\t", &save), *expect = strtok_r(NULL, "\t", &save);
        assert_non_null(strtok_r(NULL, "\t", &save)); /* the source it follows */
        int rc;
        llmmem_model *m = load_hf(dir, file, &rc);
        if (!strncmp(expect, "LLMMEM_", 7)) {
            char status[64];
            const char *frag = strchr(expect, ' ');
            snprintf(status, sizeof status, "%.*s", (int)(frag - expect), expect);
            if (rc != status_of(status) || !strstr(llmmem_last_error(), frag + 1))
                fail_msg("hf.tsv:%d: status %d \"%s\", expected %s", no, rc, rc ? llmmem_last_error() : "",
                         expect);
            assert_null(m);
        } else {
            if (rc)
                fail_msg("hf.tsv:%d: %s", no, llmmem_last_error());
            if (!strncmp(expect, "note ", 5)) {
                if (!model_note_has(m, expect + 5))
                    fail_msg("hf.tsv:%d: no model note \"%s\"", no, expect + 5);
            } else if (!strncmp(expect, "same ", 5)) {
                int rc2;
                llmmem_model *ref = load_hf(dir, expect + 5, &rc2);
                assert_int_equal(rc2, 0);
                int64_t a, b;
                assert_int_equal(llmmem_model_get_i64(&a, m, LLMMEM_M_PARAMS), 0);
                assert_int_equal(llmmem_model_get_i64(&b, ref, LLMMEM_M_PARAMS), 0);
                assert_int_equal(a, b);
                llmmem_model_free(ref);
            } else if (!strcmp(expect, "dense")) {
                int64_t e;
                assert_int_equal(llmmem_model_get_i64(&e, m, LLMMEM_M_NUM_EXPERTS), 0);
                assert_int_equal(e, 0);
                llmmem_config *c;
                llmmem_result *r;
                assert_int_equal(llmmem_config_new(&c), 0);
                assert_int_equal(llmmem_config_set(c, "mode", "inference"), 0);
                assert_int_equal(llmmem_result_new(&r), 0);
                assert_int_equal(llmmem_estimate(r, m, c), 0);
                uint64_t w;
                int64_t p;
                assert_int_equal(llmmem_result_get_u64(&w, r, LLMMEM_R_WEIGHTS_BYTES), 0);
                assert_int_equal(llmmem_result_get_i64(&p, r, LLMMEM_R_PARAMS), 0);
                if ((double)w / (double)p > 1.1) /* it was 18.75 */
                    fail_msg("hf.tsv:%d: %.3f bytes per parameter", no, (double)w / (double)p);
                llmmem_result_free(r);
                llmmem_config_free(c);
            } else {
                fail_msg("hf.tsv:%d: unknown expectation %s", no, expect);
            }
        }
        llmmem_model_free(m);
        n++;
    }
    fclose(f);
    assert_true(n >= 8);
}

/* What vLLM's config classes and PyTorch's allocator options refuse is refused, naming the
 * parameter and the rule's source. */
static void vllm_and_allocator_rules(void **state)
{
    (void)state;
    static const struct {
        const char *mode, *k1, *v1, *k2, *v2;
        int status;
        const char *frag;
    } rows[] = {
        /* vllm/config/model.py _get_and_verify_max_len (Llama-3.1-8B: 131072 positions, llama3 rope) */
        {"vllm", "max_model_len", "200000", NULL, NULL, LLMMEM_E_OUT_OF_RANGE, "_get_and_verify_max_len"},
        {"vllm", "max_model_len", "131072", NULL, NULL, 0, NULL},
        /* vllm/config/scheduler.py verify_max_model_len */
        {"vllm", "max_num_batched_tokens", "64", "max_num_seqs", "128", LLMMEM_E_INCONSISTENT, "max_num_seqs 128"},
        {"vllm", "max_num_batched_tokens", "4096", "enable_chunked_prefill", "off", LLMMEM_E_INCONSISTENT,
         "chunked prefill"},
        /* v1/attention/backends/flash_attn.py get_kv_cache_shape */
        {"vllm", "kv_block_size", "7", NULL, NULL, LLMMEM_E_OUT_OF_RANGE, "multiple of 16"},
        {"vllm", "kv_block_size", "32", NULL, NULL, 0, NULL},
        {"vllm", "kv_block_size", "24", NULL, NULL, LLMMEM_E_OUT_OF_RANGE, "multiple of 16"}, /* a multiple of 8 */
        {"vllm", "kv_block_size", "16", NULL, NULL, 0, NULL},
        /* c10/core/AllocatorConfig.cpp (torch 2.11) */
        {"training", "max_split_size_bytes", "1", NULL, NULL, LLMMEM_E_OUT_OF_RANGE, "at least 20"},
        {"training", "max_split_size_bytes", "20971521", NULL, NULL, LLMMEM_E_OUT_OF_RANGE, "whole MiB"},
        {"training", "max_split_size_bytes", "20971520", NULL, NULL, 0, NULL},
        {"training", "max_split_size_bytes", "19922944", NULL, NULL, LLMMEM_E_OUT_OF_RANGE, "at least 20"}, /* 19 MiB */
        {"training", "max_split_size_bytes", "2097152", NULL, NULL, LLMMEM_E_OUT_OF_RANGE, "at least 20"},  /* 2 MiB */
        {"training", "garbage_collection_threshold", "1", NULL, NULL, LLMMEM_E_OUT_OF_RANGE, "0 < value < 1"},
    };
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-3.1-8b"), 0);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        llmmem_config *c;
        llmmem_result *r;
        assert_int_equal(llmmem_config_new(&c), 0);
        if (!strcmp(rows[i].mode, "vllm")) {
            assert_int_equal(llmmem_config_set(c, "mode", "inference"), 0);
            assert_int_equal(llmmem_config_set(c, "runtime", "vllm"), 0);
        }
        assert_int_equal(llmmem_config_set(c, rows[i].k1, rows[i].v1), 0);
        if (rows[i].k2)
            assert_int_equal(llmmem_config_set(c, rows[i].k2, rows[i].v2), 0);
        assert_int_equal(llmmem_result_new(&r), 0);
        int rc = llmmem_estimate(r, m, c);
        if (rc != rows[i].status || (rows[i].frag && !strstr(llmmem_last_error(), rows[i].frag)))
            fail_msg("%s=%s: status %d \"%s\", expected %d \"%s\"", rows[i].k1, rows[i].v1, rc,
                     rc ? llmmem_last_error() : "", rows[i].status, rows[i].frag ? rows[i].frag : "");
        if (rc)
            assert_non_null(strstr(llmmem_last_error(), rows[i].k1));
        llmmem_result_free(r);
        llmmem_config_free(c);
    }
    llmmem_model_free(m);
    /* a YaRN factor extends the positions vLLM accepts (config/model.py _get_and_verify_max_len:
     * max_position_embeddings x rope_scaling factor, "yarn" among the scaled types): a
     * Qwen2-shaped config of 32,768 positions x 4 takes max_model_len 131,072, not one more */
    static const char yarn[] =
        "{\"model_type\": \"qwen2\", \"hidden_size\": 1024, \"intermediate_size\": 2816, "
        "\"num_hidden_layers\": 4, \"num_attention_heads\": 16, \"num_key_value_heads\": 16, "
        "\"vocab_size\": 32000, \"max_position_embeddings\": 32768, "
        "\"rope_scaling\": {\"type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": 32768}}";
    assert_int_equal(llmmem_model_from_hf_json(&m, yarn, strlen(yarn)), 0);
    static const struct {
        const char *len;
        int status;
    } yl[] = {{"131072", 0}, {"131073", LLMMEM_E_OUT_OF_RANGE}};
    for (size_t i = 0; i < sizeof yl / sizeof yl[0]; i++) {
        llmmem_config *c = NULL;
        llmmem_result *r = NULL;
        assert_int_equal(llmmem_config_new(&c), 0);
        assert_int_equal(llmmem_config_set(c, "mode", "inference"), 0);
        assert_int_equal(llmmem_config_set(c, "runtime", "vllm"), 0);
        assert_int_equal(llmmem_config_set(c, "max_model_len", yl[i].len), 0);
        assert_int_equal(llmmem_result_new(&r), 0);
        int rc = llmmem_estimate(r, m, c);
        if (rc != yl[i].status)
            fail_msg("yarn x4, max_model_len %s: status %d \"%s\", expected %d", yl[i].len, rc,
                     rc ? llmmem_last_error() : "", yl[i].status);
        llmmem_result_free(r);
        llmmem_config_free(c);
    }
    llmmem_model_free(m);
    /* a scenario's "vllm" section: vLLM's own 0 refusals (cache.py gt=0, scheduler.py ge=1) */
    static const char *const zero[] = {"gpu_memory_utilization", "block_size", "max_num_seqs",
                                       "max_num_batched_tokens", "max_model_len", "num_gpu_blocks_override"};
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++) {
        char json[256];
        snprintf(json, sizeof json, "{\"model\": {\"preset\": \"llama-3.2-1b\"},\n \"vllm\": {\"%s\": 0}}", zero[i]);
        llmmem_model *sm = NULL;
        llmmem_config *sc = NULL;
        int rc = llmmem_scenario_from_json(&sm, &sc, json, strlen(json), NULL);
        if (rc != LLMMEM_E_OUT_OF_RANGE || !strstr(llmmem_last_error(), ":2:") || !strstr(llmmem_last_error(), zero[i]))
            fail_msg("vllm.%s = 0: status %d \"%s\"", zero[i], rc, rc ? llmmem_last_error() : "");
        llmmem_model_free(sm);
        llmmem_config_free(sc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cases),
        cmocka_unit_test(value_table),
        cmocka_unit_test(hf_configs),
        cmocka_unit_test(vllm_and_allocator_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
