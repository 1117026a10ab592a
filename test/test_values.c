/* The one number reader (issue 25 item 2): every row of test/data/values.tsv through
 * llmmem_parse_value, llmmem_config_set (the path of the web page and of Python's text
 * values) and llmmem_model_set (scenario files' model section, Python's
 * Model.from_numbers), with the same answer on each; the parameters and model keys
 * report the kind their text is read as. */
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

typedef struct row {
    int line;
    int kind;
    char text[64];
    bool ok;
    int64_t value; /* ok */
    int status;    /* !ok */
} row;

static row rows[256];
static int nrows;

static int kind_of(const char *k)
{
    return !strcmp(k, "whole")    ? LLMMEM_VALUE_WHOLE
           : !strcmp(k, "tokens") ? LLMMEM_VALUE_TOKENS
           : !strcmp(k, "size")   ? LLMMEM_VALUE_SIZE
           : !strcmp(k, "bool")   ? LLMMEM_VALUE_BOOL
                                  : 0;
}

static int status_of(const char *name)
{
    for (int s = 0; s >= -40; s--)
        if (llmmem_status_name(s) && !strcmp(llmmem_status_name(s), name))
            return s;
    return 1;
}

static int load(void **state)
{
    (void)state;
    FILE *f = fopen("test/data/values.tsv", "r");
    assert_non_null(f);
    char line[256];
    int no = 0;
    while (fgets(line, sizeof line, f)) {
        no++;
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        assert_non_null(t2);
        *t1 = *t2 = '\0';
        row *r = &rows[nrows++];
        r->line = no;
        r->kind = kind_of(line);
        assert_true(r->kind > 0);
        snprintf(r->text, sizeof r->text, "%s", t1 + 1);
        const char *res = t2 + 1;
        r->ok = strncmp(res, "LLMMEM_", 7) != 0;
        if (r->ok)
            r->value = strtoll(res, NULL, 10);
        else
            assert_true((r->status = status_of(res)) < 0);
    }
    fclose(f);
    assert_true(nrows > 60);
    return 0;
}

static void report(const row *r, const char *path, int rc, int64_t got)
{
    print_error("values.tsv:%d: %s \"%s\": rc %d (%s) value %lld; want %s %lld\n", r->line, path, r->text, rc,
                rc ? llmmem_last_error() : "", (long long)got, r->ok ? "value" : llmmem_status_name(r->status),
                (long long)r->value);
}

/* llmmem_parse_value itself; the out value is untouched on error. */
static void parse_value_table(void **state)
{
    (void)state;
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        int64_t v = 12345;
        int rc = llmmem_parse_value(&v, r->text, r->kind);
        if (r->ok ? (rc != 0 || v != r->value) : (rc != r->status || v != 12345)) {
            report(r, "llmmem_parse_value", rc, v);
            fail();
        }
        if (rc)
            assert_true(strstr(llmmem_last_error(), r->text) != NULL || !r->text[0]);
    }
    int64_t v;
    assert_int_equal(llmmem_parse_value(&v, "1", 0), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_parse_value(&v, "1", 5), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_parse_value(NULL, "1", 1), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_parse_value(&v, NULL, 1), LLMMEM_E_INVALID_ARG);
}

/* The same text through llmmem_config_set on a parameter of each kind: the reader's
 * answer, then the parameter's bounds. */
static void config_set_table(void **state)
{
    (void)state;
    static const struct {
        int kind;
        const char *param;
    } by_kind[] = {{LLMMEM_VALUE_WHOLE, "reduce_bucket_size"},
                   {LLMMEM_VALUE_WHOLE, "cuda_context_bytes"},
                   {LLMMEM_VALUE_TOKENS, "seq_len"},
                   {LLMMEM_VALUE_TOKENS, "max_model_len"},
                   {LLMMEM_VALUE_BOOL, "sequence_parallel"}};
    for (size_t k = 0; k < sizeof by_kind / sizeof by_kind[0]; k++) {
        int id;
        assert_int_equal(llmmem_param_from_name(&id, by_kind[k].param), 0);
        assert_int_equal(llmmem_param_value_kind(id), by_kind[k].kind);
        int64_t lo, hi;
        assert_int_equal(llmmem_param_bounds_i64(&lo, &hi, id), 0);
        for (int i = 0; i < nrows; i++) {
            const row *r = &rows[i];
            if (r->kind != by_kind[k].kind)
                continue;
            llmmem_config *c;
            assert_int_equal(llmmem_config_new(&c), 0);
            int64_t before, got;
            assert_int_equal(llmmem_config_get_i64(&before, c, id), 0);
            int rc = llmmem_config_set(c, by_kind[k].param, r->text);
            assert_int_equal(llmmem_config_get_i64(&got, c, id), 0);
            int want = !r->ok ? r->status : (r->value < lo || r->value > hi) ? LLMMEM_E_OUT_OF_RANGE : 0;
            if (rc != want || (rc == 0 && got != r->value) || (rc != 0 && got != before)) {
                report(r, by_kind[k].param, rc, got);
                fail();
            }
            llmmem_config_free(c);
        }
    }
}

/* The same through llmmem_model_set on a raw model (scenario files' model section). */
static void model_set_table(void **state)
{
    (void)state;
    static const struct {
        int kind;
        int key;
    } by_kind[] = {{LLMMEM_VALUE_WHOLE, LLMMEM_M_NUM_LAYERS},
                   {LLMMEM_VALUE_TOKENS, LLMMEM_M_MAX_POSITIONS},
                   {LLMMEM_VALUE_SIZE, LLMMEM_M_NUM_PARAMETERS},
                   {LLMMEM_VALUE_BOOL, LLMMEM_M_TIE_EMBEDDINGS}};
    for (size_t k = 0; k < sizeof by_kind / sizeof by_kind[0]; k++) {
        const char *name = llmmem_model_key_name(by_kind[k].key);
        assert_int_equal(llmmem_model_key_value_kind(by_kind[k].key), by_kind[k].kind);
        for (int i = 0; i < nrows; i++) {
            const row *r = &rows[i];
            if (r->kind != by_kind[k].kind)
                continue;
            llmmem_model *m, *ref;
            assert_int_equal(llmmem_model_new(&m), 0);
            assert_int_equal(llmmem_model_new(&ref), 0);
            int rc = llmmem_model_set(m, name, r->text);
            /* the number itself through the integer setter: the same status, the same model */
            int want = r->ok ? llmmem_model_set_i64(ref, by_kind[k].key, r->value) : r->status;
            if (rc != want) {
                report(r, name, rc, 0);
                fail();
            }
            if (rc == 0) {
                char a[8192], b[8192];
                size_t na, nb;
                assert_int_equal(llmmem_model_to_json(a, sizeof a, &na, m), 0);
                assert_int_equal(llmmem_model_to_json(b, sizeof b, &nb, ref), 0);
                assert_string_equal(a, b);
            }
            llmmem_model_free(m);
            llmmem_model_free(ref);
        }
    }
    /* computed counts have no text form */
    assert_int_equal(llmmem_model_key_value_kind(LLMMEM_M_PARAMS), 0);
    assert_int_equal(llmmem_model_key_value_kind(-1), 0);
    int mode;
    assert_int_equal(llmmem_param_from_name(&mode, "mode"), 0);
    assert_int_equal(llmmem_param_value_kind(mode), 0);
    assert_int_equal(llmmem_param_value_kind(-1), 0);
}

/* Every parameter of the token-count kind reads 4k as 4096 and refuses 1M; every other
 * integer parameter refuses 4k. */
static void every_param(void **state)
{
    (void)state;
    int tokens = 0;
    for (int i = 0; i < llmmem_param_count(); i++) {
        int id = llmmem_param_at(i);
        int kind = llmmem_param_value_kind(id), type = llmmem_param_type(id);
        assert_int_equal(kind, type == LLMMEM_TYPE_BOOL  ? LLMMEM_VALUE_BOOL
                               : type != LLMMEM_TYPE_I64 ? 0
                               : kind);
        if (type != LLMMEM_TYPE_I64)
            continue;
        assert_true(kind == LLMMEM_VALUE_WHOLE || kind == LLMMEM_VALUE_TOKENS);
        llmmem_config *c;
        assert_int_equal(llmmem_config_new(&c), 0);
        int rc = llmmem_config_set(c, llmmem_param_name(id), "4k");
        if (kind == LLMMEM_VALUE_TOKENS) {
            tokens++;
            int64_t v;
            assert_int_equal(rc, 0);
            assert_int_equal(llmmem_config_get_i64(&v, c, id), 0);
            assert_int_equal(v, 4096);
            assert_int_equal(llmmem_config_set(c, llmmem_param_name(id), "1M"), LLMMEM_E_PARSE);
        } else {
            assert_int_equal(rc, LLMMEM_E_PARSE);
        }
        llmmem_config_free(c);
    }
    assert_int_equal(tokens, 6); /* seq_len, prompt_len, decode_len, max_num_batched_tokens, kv_block_size, max_model_len */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_value_table),
        cmocka_unit_test(config_set_table),
        cmocka_unit_test(model_set_table),
        cmocka_unit_test(every_param),
    };
    return cmocka_run_group_tests(tests, load, NULL);
}
