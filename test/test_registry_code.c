/* The registry's compiled expressions (src/model/registry_code.c, written by
 * mk/gen_registry.c): for every expression of every family, tower and
 * composite, the code computes what llmmem__expr_eval reads in the text under
 * random values of the quantities (the value; or the status and the whole
 * error message, offset included: division by zero, overflow, cdiv and isqrt
 * of bad values), and the generated tables (the quantities' name table, the
 * canonical indices, the families by model_type) are what the library would
 * make from the tables itself. test_registry_regen.sh checks that the file is
 * what the generator makes of the current tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/registry.h"

static uint64_t rng = UINT64_C(0x9E3779B97F4A7C15);

static uint64_t next(void) /* xorshift64*: the same values on every run */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * UINT64_C(0x2545F4914F6CDD1D);
}

/* A value for a quantity: mostly small (shapes, flags, zero), some negative,
 * some huge (past them products and sums overflow). */
static int64_t value(void)
{
    switch (next() % 8) {
    case 0: return 0;
    case 1: return 1;
    case 2: return -(int64_t)(next() % 4) - 1;
    case 3: return (int64_t)(next() % (UINT64_C(1) << 40)) + (INT64_C(1) << 61);
    case 4: return -(int64_t)(next() % (UINT64_C(1) << 40)) - (INT64_C(1) << 61);
    default: return (int64_t)(next() % 200);
    }
}

static double real(void)
{
    switch (next() % 4) {
    case 0: return 0.0;
    case 1: return 1e19;
    default: return (double)(next() % 1000) / 64.0;
    }
}

typedef struct tally {
    long evals, errors, text;
} tally;

/* Code `at` against the text over `rounds` random fillings of q. */
static void compare(tally *t, int32_t at, const char *text, llmmem__qvals *q, int rounds, const char *entry)
{
    if (!text)
        return;
    if (at == LLMMEM__X_TEXT) {
        t->text++;
        return;
    }
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < q->n; i++) {
            q->v[i] = value();
            q->r[i] = real();
        }
        int64_t a = -7, b = -7;
        int ra = llmmem__expr_eval(&a, text, q);
        char ea[512];
        snprintf(ea, sizeof ea, "%s", ra ? llmmem_last_error() : "");
        int rb = llmmem__expr_run(&b, at, text, q);
        const char *eb = rb ? llmmem_last_error() : "";
        if (ra != rb || (!ra && a != b) || strcmp(ea, eb)) {
            print_error("%s: \"%s\": text %d %lld \"%s\", code %d %lld \"%s\"\n", entry, text, ra, (long long)a, ea,
                        rb, (long long)b, eb);
            fail();
        }
        t->evals++;
        t->errors += ra != 0;
    }
}

/* Every expression of one entry, and its tables. */
static void entry(tally *t, const char *what, const llmmem__qdef *d, int nq, const llmmem__tdef *rows, int nt,
                  const llmmem__pattern *mixer, const llmmem__pattern *ffn, const llmmem__xcode *x, int rounds)
{
    assert_non_null(x);
    assert_int_equal(x->nq, nq);
    assert_int_equal(x->nt, nt);
    llmmem__qvals made, copied;
    memset(&made, 0, sizeof made);
    memset(&copied, 0, sizeof copied);
    llmmem__qvals_init(&made, d, nq, NULL);
    llmmem__qvals_init(&copied, d, nq, x);
    assert_memory_equal(made.slot, copied.slot, sizeof made.slot);
    assert_memory_equal(made.len, copied.len, (size_t)nq);
    static const char *const canon[] = {
#define NAME(s) #s,
        LLMMEM__CANON(NAME)
#undef NAME
    };
    for (int c = 0; c < LLMMEM__NCANON; c++) {
        int i = -1;
        bool have = llmmem__qvals_find(&made, canon[c], strlen(canon[c]), &i);
        assert_int_equal(x->canon[c], have ? i : -1);
    }
    for (int i = 0; i < nq; i++) {
        const bool realq = LLMMEM__QT_BASE(d[i].type) == LLMMEM__QT_REAL;
        if (realq) { /* read by llmmem__registry_real */
            assert_int_equal(x->qdef[i], LLMMEM__X_TEXT);
            assert_int_equal(x->qnul[i], LLMMEM__X_TEXT);
            continue;
        }
        compare(t, x->qdef[i], d[i].def, &made, rounds, what);
        compare(t, x->qnul[i], d[i].nul, &made, rounds, what);
    }
    for (int i = 0; i < nt; i++) {
        compare(t, x->t[4 * i], rows[i].when, &made, rounds, what);
        compare(t, x->t[4 * i + 1], rows[i].rows, &made, rounds, what);
        compare(t, x->t[4 * i + 2], rows[i].cols, &made, rounds, what);
        compare(t, x->t[4 * i + 3], rows[i].count, &made, rounds, what);
    }
    if (mixer) {
        compare(t, x->mixer[0], mixer->arg, &made, rounds, what);
        compare(t, x->mixer[1], mixer->arg2, &made, rounds, what);
        compare(t, x->mixer[2], mixer->expr, &made, rounds, what);
        compare(t, x->ffn[0], ffn->arg, &made, rounds, what);
        compare(t, x->ffn[1], ffn->arg2, &made, rounds, what);
        compare(t, x->ffn[2], ffn->expr, &made, rounds, what);
    }
}

static void test_code_is_the_text(void **state)
{
    (void)state;
    tally t = {0, 0, 0};
    const int rounds = 40;
    assert_int_equal(llmmem__xcode_fams_count, llmmem__arch_count());
    assert_int_equal(llmmem__xcode_towers_count, llmmem__tower_count());
    assert_int_equal(llmmem__xcode_composites_count, llmmem__composite_count());
    for (int i = 0; i < llmmem__arch_count(); i++) {
        const llmmem__arch *f = llmmem__arch_at(i);
        assert_ptr_equal(llmmem__arch_code(f), &llmmem__xcode_fams[i]);
        entry(&t, f->type, f->q, f->nq, f->t, f->nt, &f->mixer, &f->ffn, llmmem__arch_code(f), rounds);
    }
    for (int i = 0; i < llmmem__tower_count(); i++) {
        const llmmem__arch *f = llmmem__tower_at(i);
        entry(&t, f->type, f->q, f->nq, f->t, f->nt, &f->mixer, &f->ffn, llmmem__arch_code(f), rounds);
    }
    for (int i = 0; i < llmmem__composite_count(); i++) {
        const llmmem__composite *c = llmmem__composite_at(i);
        entry(&t, c->type, c->q, c->nq, c->t, c->nt, NULL, NULL, llmmem__composite_code(c), rounds);
    }
    printf("compiled expressions: %ld evaluations equal to the text's (%ld of them errors), %ld texts read as text\n",
           t.evals, t.errors, t.text);
    assert_true(t.evals > 100000);
    assert_true(t.errors > 1000); /* the error paths were taken */
}

/* Texts the generator keeps as text, and errors in skipped branches, read by
 * the parser through the same entry point. */
static void test_text_fallback(void **state)
{
    (void)state;
    llmmem__qvals q;
    static const llmmem__qdef d[] = {{"h", NULL, "1", NULL, LLMMEM__QT_DIM, NULL},
                                     {"a", NULL, "1", NULL, LLMMEM__QT_DIM, NULL}};
    llmmem__qvals_init(&q, d, 2, NULL);
    q.v[0] = 12;
    q.v[1] = 0;
    int64_t v = 0;
    assert_int_equal(llmmem__expr_run(&v, LLMMEM__X_TEXT, "h / 4 + 1", &q), 0);
    assert_int_equal(v, 4);
    assert_int_equal(llmmem__expr_run(&v, LLMMEM__X_TEXT, "a && h / a", &q), 0);
    assert_int_equal(v, 0);
    assert_int_equal(llmmem__expr_run(&v, LLMMEM__X_TEXT, "h / a", &q), LLMMEM_E_OUT_OF_RANGE);
    assert_string_equal(llmmem_last_error(), "registry expression \"h / a\": division by zero at offset 5");
}

/* The families by model_type (registry_code.c) find what a search in order finds. */
static void test_find_by_type(void **state)
{
    (void)state;
    for (int i = 0; i < llmmem__arch_count(); i++) {
        const llmmem__arch *f = llmmem__arch_at(i), *first = NULL;
        for (int j = 0; j < llmmem__arch_count() && !first; j++)
            if (!strcmp(llmmem__arch_at(j)->type, f->type))
                first = llmmem__arch_at(j);
        assert_ptr_equal(llmmem__arch_find(f->type), first);
    }
    assert_null(llmmem__arch_find("no-such-model"));
    assert_null(llmmem__arch_find(""));
    assert_null(llmmem__arch_find("zzzz"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_code_is_the_text),
        cmocka_unit_test(test_text_fallback),
        cmocka_unit_test(test_find_by_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
