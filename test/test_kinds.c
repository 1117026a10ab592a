/* Layer kinds other than softmax attention (src/memory/kinds.c,
 * saved_kinds.c): each kind's saved-tensor formula against what autograd
 * really keeps in tiny CPU models of the families
 * (test/data/kinds/saved_kinds.py -> saved-kinds.tsv, one row per decoder
 * layer; configs/<type>.json the models it built). Shapes scale linearly, so
 * a tiny model's dump checks the formula term by term: every layer of every
 * modelled family, in bf16 and fp32, full fine-tuning and a frozen base, at
 * three (batch, sequence) shapes that cross the chunked scans' chunks. The
 * recipes and families the library refuses must be refused, with a message
 * naming the model_type and the kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory/memory.h"

#define DIR "test/data/kinds/"
#define MAX_ROWS 4096

typedef struct row {
    char type[48], recipe[16];
    long b, s, layer;
    unsigned long long bytes;
    int attn; /* the layer's mixer is softmax attention */
} row;

static row rows[MAX_ROWS];
static int nrows;

static void load_rows(void)
{
    if (nrows)
        return;
    FILE *f = fopen(DIR "saved-kinds.tsv", "r");
    assert_non_null(f);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        row *r = &rows[nrows];
        if (sscanf(line, "%47s %15s %ld %ld %ld %llu %d", r->type, r->recipe, &r->b, &r->s, &r->layer, &r->bytes,
                   &r->attn) == 7)
            nrows++;
        assert_true(nrows < MAX_ROWS);
    }
    fclose(f);
    assert_true(nrows > 100);
}

static llmmem_model *load(const char *type)
{
    char path[256];
    snprintf(path, sizeof path, DIR "configs/%s.json", type);
    llmmem_model *m = NULL;
    int rc = llmmem_model_from_hf_file(&m, path);
    if (rc)
        fprintf(stderr, "%s: %s\n", path, llmmem_last_error());
    assert_int_equal(rc, 0);
    return m;
}

/* The run of a dump's recipe: bf16 / fp32 pure, amp (fp32 parameters under
 * bf16 autocast), frozen (bf16, base weights frozen). */
static llmmem_config *cfg_of(const char *recipe, long b, long s)
{
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(llmmem_config_set(c, "mode", "training"), 0);
    const bool amp = !strcmp(recipe, "amp"), fp32 = !strcmp(recipe, "fp32");
    assert_int_equal(llmmem_config_set(c, "param_dtype", amp || fp32 ? "fp32" : "bf16"), 0);
    assert_int_equal(llmmem_config_set(c, "compute_dtype", fp32 ? "fp32" : "bf16"), 0);
    assert_int_equal(llmmem_config_set_i64(c, LLMMEM_P_MICRO_BATCH_SIZE, b), 0);
    assert_int_equal(llmmem_config_set_i64(c, LLMMEM_P_SEQ_LEN, s), 0);
    return c;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Compares one dump (model, recipe, shape): the formula's bytes per layer
 * kind, repeated by the layers of the kind, against the dump's layers, both
 * sorted. Returns the mismatches; *refused when the library refuses it. */
static int check_dump(const char *type, const char *recipe, long b, long s, bool *refused, bool verbose)
{
    llmmem_model *m = load(type);
    llmmem_config *c = cfg_of(recipe, b, s);
    *refused = llmmem__kinds_check(m, c, LLMMEM__USE_TRAIN) != 0;
    if (*refused) {
        /* the message names the model_type */
        assert_non_null(strstr(llmmem_last_error(), type));
        llmmem_config_free(c);
        llmmem_model_free(m);
        return 0;
    }
    llmmem__recipe rc;
    llmmem__recipe_of(&rc, m, c);
    if (!strcmp(recipe, "frozen"))
        rc.full_ft = false;
    llmmem__kinds ks;
    llmmem__kinds_of(&ks, m);
    uint64_t want[256], got[256];
    int nw = 0, ng = 0;
    llmmem__ovf o = {false};
    /* fp32 SDPA runs the CPU flash kernel where CUDA runs the math backend
     * (saved.c): the attention layers of an fp32 dump are not CUDA's */
    const bool skip_attn = !strcmp(recipe, "fp32");
    for (int i = 0; i < ks.n; i++) {
        if (skip_attn && (ks.k[i].mixer == LLMMEM__MX_FULL || ks.k[i].mixer == LLMMEM__MX_SLIDING))
            continue;
        uint64_t v = llmmem__saved_kind_layer(m, c, &rc, &ks.k[i], (uint64_t)b, (uint64_t)s, &o);
        if (verbose)
            fprintf(stderr, "  kind mixer %d ffn %d x%llu: %llu\n", ks.k[i].mixer, ks.k[i].ffn,
                    (unsigned long long)ks.k[i].n, (unsigned long long)v);
        for (uint64_t j = 0; j < ks.k[i].n && ng < 256; j++)
            got[ng++] = v;
    }
    for (int r = 0; r < nrows; r++)
        if (!strcmp(rows[r].type, type) && !strcmp(rows[r].recipe, recipe) && rows[r].b == b && rows[r].s == s &&
            !(skip_attn && rows[r].attn) && nw < 256)
            want[nw++] = rows[r].bytes;
    assert_false(o.overflow);
    int bad = 0;
    if (nw != ng) {
        fprintf(stderr, "%s %s %ldx%ld: %d layers dumped, %d estimated\n", type, recipe, b, s, nw, ng);
        bad++;
    }
    qsort(want, (size_t)nw, sizeof want[0], cmp_u64);
    qsort(got, (size_t)ng, sizeof got[0], cmp_u64);
    for (int i = 0; i < nw && i < ng; i++) {
        /* a few parameter-sized constants (exp(A_log), masks) may be shared or
         * freed differently from layer to layer: 0.5% */
        double d = (double)got[i] - (double)want[i];
        if (d < 0)
            d = -d;
        if (d > 0.005 * (double)want[i] || verbose)
            fprintf(stderr, "%s %s %ldx%ld: layer %d: dumped %llu, estimated %llu (%+.3f%%)\n", type, recipe, b, s,
                    i, (unsigned long long)want[i], (unsigned long long)got[i],
                    100.0 * ((double)got[i] - (double)want[i]) / (double)want[i]);
        if (d > 0.005 * (double)want[i])
            bad++;
    }
    llmmem_config_free(c);
    llmmem_model_free(m);
    return bad;
}

/* Every dump of the families the byte model covers matches; the others are refused. */
static void saved_matches_dumps(void **state)
{
    (void)state;
    load_rows();
    const bool verbose = getenv("LLMMEM_KINDS_VERBOSE") != NULL;
    const char *only = getenv("LLMMEM_KINDS_ONLY");
    int bad = 0, checked = 0, refused_n = 0;
    for (int r = 0; r < nrows; r++) {
        bool first = true;
        for (int q = 0; q < r && first; q++)
            if (!strcmp(rows[q].type, rows[r].type) && !strcmp(rows[q].recipe, rows[r].recipe) &&
                rows[q].b == rows[r].b && rows[q].s == rows[r].s)
                first = false;
        if (!first || (only && strcmp(only, rows[r].type)))
            continue;
        bool refused;
        bad += check_dump(rows[r].type, rows[r].recipe, rows[r].b, rows[r].s, &refused, verbose);
        if (refused)
            refused_n++;
        else
            checked++;
    }
    fprintf(stderr, "saved-kinds: %d dumps checked, %d refused, %d mismatches\n", checked, refused_n, bad);
    assert_true(checked > 0);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(saved_matches_dumps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
