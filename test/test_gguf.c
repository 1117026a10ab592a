/* Tests of the GGUF header reader (src/input/gguf.c, gguf_arch.c) and the ggml type
 * catalogue (src/core/ggml.c). The files are written here, byte by byte, by a small
 * writer that follows the format (ggml/docs/gguf.md): a valid llama-style header, and
 * one malformed variant per row of the table below, each with the status, a fragment
 * of the message and the byte offset the error must name. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/ggml.h"
#include "input/gguf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a GGUF writer ------------------------------------------------------------------ */

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
} wbuf;

static void put(wbuf *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void le(wbuf *b, uint64_t v, int n)
{
    uint8_t x[8];
    for (int i = 0; i < n; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    put(b, x, (size_t)n);
}
static void u32(wbuf *b, uint32_t v) { le(b, v, 4); }
static void u64(wbuf *b, uint64_t v) { le(b, v, 8); }
static void str(wbuf *b, const char *s)
{
    u64(b, strlen(s));
    put(b, s, strlen(s));
}
static void kv_u32(wbuf *b, const char *k, uint32_t v)
{
    str(b, k);
    u32(b, 4);
    u32(b, v);
}
static void kv_str(wbuf *b, const char *k, const char *v)
{
    str(b, k);
    u32(b, 8);
    str(b, v);
}

/* What to break in the file written by build(). */
enum variant {
    V_OK = 0, V_MAGIC, V_V1, V_V4, V_NT_HUGE, V_NKV_HUGE, V_KEYLEN_PAST_END, V_KEYLEN_HUGE,
    V_VTYPE, V_NESTED, V_ARR_COUNT, V_BOOL, V_DUP_KEY, V_EMPTY_KEY, V_ALIGN_TYPE, V_ALIGN_POW2,
    V_NAME_LONG, V_DUP_TENSOR, V_NDIMS, V_NEG_DIM, V_DIM_OVERFLOW, V_GGML_TYPE, V_BLOCK, V_OFFSET,
    V_DATA_SHORT, V_NO_ARCH, V_NO_BLOCKS, V_BLOCKS_TYPE, V_KV_ARRAY_LEN, V_ARCH_TYPE, V_V2, V_SPLIT
};

#define E 64   /* n_embd */
#define L 2    /* layers */
#define V 100  /* vocabulary */

typedef struct tinfo {
    char name[80];
    uint32_t type;
    int nd;
    int64_t ne[4];
} tinfo;

static int tensors(tinfo *t)
{
    int n = 0;
    t[n++] = (tinfo){"token_embd.weight", LLMMEM__GGML_F16, 2, {E, V, 1, 1}};
    for (int l = 0; l < L; l++) {
        static const char *w[] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};
        static const int64_t rows[] = {E, E / 2, E / 2, E, 128, 128, E};
        for (int k = 0; k < 7; k++) {
            t[n] = (tinfo){"", LLMMEM__GGML_Q8_0, 2, {k == 6 ? 128 : E, rows[k], 1, 1}};
            snprintf(t[n].name, sizeof t[n].name, "blk.%d.%s.weight", l, w[k]);
            n++;
        }
        t[n] = (tinfo){"", LLMMEM__GGML_F32, 1, {E, 1, 1, 1}};
        snprintf(t[n++].name, 80, "blk.%d.attn_norm.weight", l);
    }
    t[n++] = (tinfo){"output_norm.weight", LLMMEM__GGML_F32, 1, {E, 1, 1, 1}};
    t[n++] = (tinfo){"output.weight", LLMMEM__GGML_Q6_K, 2, {256, V, 1, 1}};
    return n;
}

/* Writes the file; *at: the byte offset the variant's error must name (0 if none). */
static wbuf build(enum variant v, size_t *at)
{
    wbuf b = {0};
    *at = 0;
    put(&b, v == V_MAGIC ? "GGUG" : "GGUF", 4);
    u32(&b, v == V_V1 ? 1 : v == V_V4 ? 4 : v == V_V2 ? 2 : 3);
    tinfo t[64];
    const int nt = tensors(t);
    u64(&b, v == V_NT_HUGE ? UINT64_C(1) << 40 : (uint64_t)nt);
    int nkv = 9 + (v == V_DUP_KEY || v == V_EMPTY_KEY || v == V_ALIGN_TYPE || v == V_ALIGN_POW2 ||
                   v == V_NESTED || v == V_VTYPE || v == V_ARR_COUNT || v == V_BOOL || v == V_KEYLEN_HUGE ||
                   v == V_KEYLEN_PAST_END || v == V_SPLIT);
    if (v == V_NO_ARCH)
        nkv--;
    u64(&b, v == V_NKV_HUGE ? UINT64_C(1) << 50 : (uint64_t)nkv);
    if (v == V_NT_HUGE)
        *at = 8;
    if (v == V_NKV_HUGE)
        *at = 16;
    /* the extra key of a variant comes first */
    if (v == V_KEYLEN_PAST_END || v == V_KEYLEN_HUGE) {
        *at = b.n;
        u64(&b, v == V_KEYLEN_HUGE ? (UINT64_C(1) << 31) : 100000000);
        put(&b, "xyz", 3);
    } else if (v == V_VTYPE) {
        str(&b, "my.key");
        *at = b.n;
        u32(&b, 13);
        u32(&b, 0);
    } else if (v == V_NESTED || v == V_ARR_COUNT) {
        str(&b, "my.array");
        u32(&b, 9);
        if (v == V_NESTED)
            *at = b.n;
        u32(&b, v == V_NESTED ? 9 : 4);
        if (v == V_ARR_COUNT)
            *at = b.n;
        u64(&b, v == V_ARR_COUNT ? UINT64_C(1) << 29 : 1);
        u32(&b, 0);
    } else if (v == V_BOOL) {
        str(&b, "my.bool");
        u32(&b, 7);
        *at = b.n;
        put(&b, "\2", 1);
    } else if (v == V_DUP_KEY) {
        kv_u32(&b, "llama.block_count", L);
    } else if (v == V_EMPTY_KEY) {
        *at = b.n;
        kv_u32(&b, "", 1);
    } else if (v == V_SPLIT) {
        str(&b, "split.count");
        u32(&b, 2); /* uint16 */
        *at = b.n;
        le(&b, 3, 2);
    } else if (v == V_ALIGN_TYPE || v == V_ALIGN_POW2) {
        str(&b, "general.alignment");
        u32(&b, v == V_ALIGN_TYPE ? 10 : 4);
        *at = b.n;
        if (v == V_ALIGN_TYPE)
            u64(&b, 32);
        else
            u32(&b, 48);
    }
    if (v != V_NO_ARCH) {
        if (v == V_ARCH_TYPE) {
            str(&b, "general.architecture");
            u32(&b, 4);
            *at = b.n;
            u32(&b, 7);
        } else {
            kv_str(&b, "general.architecture", "llama");
        }
    }
    kv_str(&b, "general.name", "test model");
    kv_u32(&b, "llama.context_length", 2048);
    kv_u32(&b, "llama.embedding_length", E);
    if (v == V_DUP_KEY)
        *at = b.n;
    if (v == V_BLOCKS_TYPE) {
        *at = b.n + 8 + strlen("llama.block_count") + 4;
        kv_str(&b, "llama.block_count", "two");
    } else {
        kv_u32(&b, v == V_NO_BLOCKS ? "llama.blocks" : "llama.block_count", L);
    }
    kv_u32(&b, "llama.feed_forward_length", 128);
    kv_u32(&b, "llama.attention.head_count", 4);
    if (v == V_KV_ARRAY_LEN) {
        str(&b, "llama.attention.head_count_kv");
        u32(&b, 9);
        u32(&b, 4);
        *at = b.n;
        u64(&b, 3);
        for (int i = 0; i < 3; i++)
            u32(&b, 2);
    } else {
        kv_u32(&b, "llama.attention.head_count_kv", 2);
    }
    /* tokenizer.ggml.tokens: V strings */
    str(&b, "tokenizer.ggml.tokens");
    u32(&b, 9);
    u32(&b, 8);
    u64(&b, V);
    for (int i = 0; i < V; i++) {
        char tok[16];
        snprintf(tok, sizeof tok, "t%d", i);
        str(&b, tok);
    }
    /* tensor infos */
    uint64_t off = 0;
    for (int k = 0; k < nt; k++) {
        tinfo x = t[k];
        const size_t start = b.n;
        if (v == V_NAME_LONG && k == 3) {
            memset(x.name, 'a', 64);
            x.name[64] = '\0';
        }
        if (v == V_DUP_TENSOR && k == 3)
            strcpy(x.name, t[1].name);
        if ((v == V_NAME_LONG || v == V_DUP_TENSOR) && k == 3)
            *at = start;
        str(&b, x.name);
        if (v == V_NDIMS && k == 2)
            *at = b.n;
        u32(&b, v == V_NDIMS && k == 2 ? 5 : (uint32_t)x.nd);
        for (int d = 0; d < x.nd; d++) {
            int64_t ne = x.ne[d];
            if (v == V_NEG_DIM && k == 2 && d == 1) {
                *at = b.n;
                ne = -5;
            }
            if (v == V_DIM_OVERFLOW && k == 2 && d == 1) {
                *at = b.n;
                ne = INT64_C(1) << 62;
            }
            u64(&b, (uint64_t)ne);
        }
        if ((v == V_GGML_TYPE || v == V_BLOCK) && k == 2)
            *at = b.n;
        if (v == V_BLOCK && k == 2)
            x.type = LLMMEM__GGML_Q4_K; /* a row of 64 is not a multiple of 256 */
        u32(&b, v == V_GGML_TYPE && k == 2 ? 4 : x.type);
        if (v == V_OFFSET && k == 4)
            *at = b.n;
        u64(&b, v == V_OFFSET && k == 4 ? off + 1 : off);
        const llmmem__ggml_traits *tr = llmmem__ggml_type(x.type);
        uint64_t bytes = (uint64_t)(x.ne[0] / tr->block) * tr->bytes * (uint64_t)(x.ne[1] * x.ne[2] * x.ne[3]);
        off += (bytes + 31) / 32 * 32;
    }
    const size_t pad = (b.n + 31) / 32 * 32 - b.n;
    static const uint8_t zeros[64];
    put(&b, zeros, pad);
    const uint64_t data = v == V_DATA_SHORT ? off - 1 : off;
    for (uint64_t k = 0; k < data; k += 64)
        put(&b, zeros, data - k < 64 ? (size_t)(data - k) : 64);
    if (v == V_DATA_SHORT)
        *at = b.n;
    return b;
}

/* ---- the catalogue -------------------------------------------------------------------- */

static void test_types(void **state)
{
    (void)state;
    /* block layouts written out from ggml-common.h: q4_K = 2 halves d, dmin + 12 bytes of
     * 6-bit scales + 256/2 bytes of nibbles; q6_K = 256/2 low nibbles + 256/4 high bits +
     * 16 int8 scales + half d; iq4_xs = half d + uint16 scales_h + 256/64 scales_l + 256/2 */
    assert_int_equal(llmmem__ggml_type(LLMMEM__GGML_Q4_K)->bytes, 2 + 2 + 12 + 256 / 2);
    assert_int_equal(llmmem__ggml_type(LLMMEM__GGML_Q6_K)->bytes, 256 / 2 + 256 / 4 + 16 + 2);
    assert_int_equal(llmmem__ggml_type(LLMMEM__GGML_IQ4_XS)->bytes, 2 + 2 + 256 / 64 + 256 / 2);
    assert_int_equal(llmmem__ggml_type(LLMMEM__GGML_Q8_0)->bytes, 2 + 32);
    assert_int_equal(llmmem__ggml_type(LLMMEM__GGML_MXFP4)->bytes, 1 + 32 / 2);
    assert_null(llmmem__ggml_type(4));  /* Q4_2, removed */
    assert_null(llmmem__ggml_type(31)); /* Q4_0_4_4, removed from files */
    assert_null(llmmem__ggml_type(LLMMEM__GGML_TYPE_COUNT));
    assert_int_equal(llmmem__ggml_type_find("Q4_K"), LLMMEM__GGML_Q4_K);
    assert_int_equal(llmmem__ggml_type_find("q8_0"), LLMMEM__GGML_Q8_0);
    assert_int_equal(llmmem__ggml_type_find("q4_2"), -1);
    /* every type's bytes per element below 8.1, and a block is a power of two */
    for (uint32_t t = 0; t < LLMMEM__GGML_TYPE_COUNT; t++) {
        const llmmem__ggml_traits *tr = llmmem__ggml_type(t);
        if (!tr)
            continue;
        assert_true(tr->block > 0 && (tr->block & (tr->block - 1)) == 0);
        assert_true((double)tr->bytes / tr->block <= 8.0);
    }
}

/* ---- a valid header ---------------------------------------------------------------------- */

static void test_valid(void **state)
{
    (void)state;
    size_t at;
    for (int ver = 0; ver < 2; ver++) {
        wbuf b = build(ver ? V_V2 : V_OK, &at);
        llmmem_model *m = NULL;
        int rc = llmmem_model_from_gguf(&m, (const char *)b.p, b.n, 0);
        if (rc)
            fail_msg("%s", llmmem_last_error());
        const llmmem__gguf *g = m->gguf;
        assert_string_equal(g->arch, "llama");
        assert_string_equal(g->name, "test model");
        assert_int_equal(g->version, ver ? 2 : 3);
        assert_int_equal(g->n_tensors, 1 + 8 * L + 2);
        assert_int_equal(g->hp.n_layer, L);
        assert_int_equal(g->hp.n_embd, E);
        assert_int_equal(g->hp.n_vocab, V);
        assert_int_equal(g->hp.n_head_kv[1], 2);
        assert_int_equal(g->hp.n_embd_head_k, E / 4);
        assert_true(g->hp.has_output);
        /* bytes per tensor: q8_0 blk.0.attn_k = 32 rows of 64 = 2 blocks of 34 bytes */
        const llmmem__gguf_tensor *k = &g->t[2];
        assert_string_equal(llmmem__gguf_tensor_name(g, k), "blk.0.attn_k.weight");
        assert_int_equal(k->bytes, 32 * 2 * 34);
        assert_int_equal(k->layer, 0);
        assert_int_equal(g->t[0].layer, LLMMEM__GGUF_INPUT);
        assert_int_equal(g->t[g->n_tensors - 1].layer, LLMMEM__GGUF_OUTPUT);
        /* output.weight q6_K: 100 rows of one 210-byte block */
        assert_int_equal(g->t[g->n_tensors - 1].bytes, 100 * 210);
        assert_int_equal(g->data_offset + g->data_bytes, b.n);
        int64_t layers = 0;
        assert_int_equal(llmmem_model_get_i64(&layers, m, LLMMEM_M_NUM_LAYERS), 0);
        assert_int_equal(layers, L);
        /* a clone owns its copy */
        llmmem_model *c = NULL;
        assert_int_equal(llmmem_model_clone(&c, m), 0);
        assert_ptr_not_equal(c->gguf, m->gguf);
        llmmem_model_free(m);
        assert_string_equal(llmmem__gguf_tensor_name(c->gguf, &c->gguf->t[2]), "blk.0.attn_k.weight");
        llmmem_model_free(c);
        free(b.p);
    }
}

/* The same file read from disk, and slices of it. */
static void test_file_and_slices(void **state)
{
    (void)state;
    size_t at;
    wbuf b = build(V_OK, &at);
    char path[] = "/tmp/llmmem-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, b.p, b.n), (ssize_t)b.n);
    close(fd);
    llmmem_model *m = NULL;
    int rc = llmmem_model_from_gguf_file(&m, path);
    if (rc)
        fail_msg("%s", llmmem_last_error());
    assert_int_equal(m->gguf->file_bytes, b.n);
    llmmem_model_free(m);
    /* truncated files fail with the path and a byte offset, whatever the cut */
    for (size_t cut = 0; cut < b.n; cut += cut < 600 ? 1 : 97) {
        FILE *f = fopen(path, "wb");
        fwrite(b.p, 1, cut, f);
        fclose(f);
        m = (llmmem_model *)1;
        rc = llmmem_model_from_gguf_file(&m, path);
        assert_int_equal(rc, LLMMEM_E_PARSE);
        assert_non_null(strstr(llmmem_last_error(), path));
        assert_non_null(strstr(llmmem_last_error(), "byte "));
        assert_ptr_equal(m, (llmmem_model *)1); /* unchanged on error */
    }
    unlink(path);
    /* a slice: too short for the header is BUFFER_TOO_SMALL, long enough reads */
    m = NULL;
    assert_int_equal(llmmem_model_from_gguf(&m, (const char *)b.p, 200, b.n), LLMMEM_E_BUFFER_TOO_SMALL);
    assert_non_null(strstr(llmmem_last_error(), "read more of the file"));
    assert_int_equal(llmmem_model_from_gguf(&m, (const char *)b.p, b.n - 100, b.n), 0);
    llmmem_model_free(m);
    assert_int_equal(llmmem_model_from_gguf_file(&m, "/nonexistent/x.gguf"), LLMMEM_E_IO);
    assert_int_equal(llmmem_model_from_gguf_file(&m, "/tmp"), LLMMEM_E_IO);
    assert_int_equal(llmmem_model_from_gguf(NULL, (const char *)b.p, b.n, 0), LLMMEM_E_INVALID_ARG);
    free(b.p);
}

/* ---- malformed headers ------------------------------------------------------------------- */

typedef struct bad {
    enum variant v;
    int status;
    const char *fragment;
} bad;

static const bad bads[] = {
    {V_MAGIC, LLMMEM_E_PARSE, "not a GGUF file: it begins with bytes 47 47 55 47"},
    {V_V1, LLMMEM_E_UNSUPPORTED, "GGUF version 1"},
    {V_V4, LLMMEM_E_PARSE, "GGUF version 4: versions 2 and 3"},
    {V_NT_HUGE, LLMMEM_E_PARSE, "1099511627776 tensors cannot fit"},
    {V_NKV_HUGE, LLMMEM_E_PARSE, "keys cannot fit"},
    {V_KEYLEN_PAST_END, LLMMEM_E_PARSE, "length 100000000 is longer than the rest of the file"},
    {V_KEYLEN_HUGE, LLMMEM_E_PARSE, "length 2147483648 is above ggml's limit"},
    {V_VTYPE, LLMMEM_E_PARSE, "key 0 \"my.key\": value type 13 is not a GGUF type"},
    {V_NESTED, LLMMEM_E_PARSE, "an array of arrays"},
    {V_ARR_COUNT, LLMMEM_E_PARSE, "536870912 elements of uint32 cannot fit"},
    {V_BOOL, LLMMEM_E_PARSE, "a bool is 0 or 1, not 2"},
    {V_DUP_KEY, LLMMEM_E_PARSE, "\"llama.block_count\" appears twice"},
    {V_EMPTY_KEY, LLMMEM_E_PARSE, "key 0 has an empty name"},
    {V_ALIGN_TYPE, LLMMEM_E_PARSE, "general.alignment must be a uint32, not uint64"},
    {V_ALIGN_POW2, LLMMEM_E_PARSE, "general.alignment 48 is not a power of 2"},
    {V_NAME_LONG, LLMMEM_E_PARSE, "tensor 3: its name is 64 bytes, ggml's limit is 63"},
    {V_DUP_TENSOR, LLMMEM_E_PARSE, "tensor 3 \"blk.0.attn_q.weight\" appears twice"},
    {V_NDIMS, LLMMEM_E_PARSE, "5 dimensions, ggml has at most 4"},
    {V_NEG_DIM, LLMMEM_E_PARSE, "dimension 1 is -5, negative"},
    {V_DIM_OVERFLOW, LLMMEM_E_PARSE, "dimension 1 of 4611686018427387904 makes more than 2^63"},
    {V_GGML_TYPE, LLMMEM_E_PARSE, "ggml type 4 is not a type ggml knows"},
    {V_BLOCK, LLMMEM_E_PARSE, "64 elements per row is not a multiple of the q4_K block (256)"},
    {V_OFFSET, LLMMEM_E_PARSE, "data offset"},
    {V_DATA_SHORT, LLMMEM_E_PARSE, "a truncated download?"},
    {V_NO_ARCH, LLMMEM_E_SCHEMA, "key \"general.architecture\" is missing"},
    {V_NO_BLOCKS, LLMMEM_E_SCHEMA, "key \"llama.block_count\" is missing"},
    {V_BLOCKS_TYPE, LLMMEM_E_SCHEMA, "key \"llama.block_count\" is a string, expected a whole number"},
    {V_KV_ARRAY_LEN, LLMMEM_E_SCHEMA, "has 3 values for 2 layers"},
    {V_ARCH_TYPE, LLMMEM_E_SCHEMA, "key \"general.architecture\" is a uint32, expected a string"},
    {V_SPLIT, LLMMEM_E_UNSUPPORTED, "split.count is 3: this is one shard of a split GGUF"},
};

static void test_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(bads); i++) {
        size_t at;
        wbuf b = build(bads[i].v, &at);
        llmmem_model *m = (llmmem_model *)1;
        const int rc = llmmem_model_from_gguf(&m, (const char *)b.p, b.n, 0);
        const char *e = llmmem_last_error();
        if (rc != bads[i].status || !strstr(e, bads[i].fragment))
            fail_msg("case %zu: status %d (want %d), error \"%s\" (want \"%s\")", i, rc, bads[i].status,
                     e, bads[i].fragment);
        assert_ptr_equal(m, (llmmem_model *)1);
        char where[48];
        snprintf(where, sizeof where, "model.gguf: byte %zu: ", at);
        if (at && !strstr(e, where))
            fail_msg("case %zu: error \"%s\" does not name \"%s\"", i, e, where);
        free(b.p);
    }
}

/* Every byte of a valid header flipped to each of a few values: a clean status, never a
 * crash (the fuzz target does this at random; this is the deterministic part). */
static void test_flips(void **state)
{
    (void)state;
    size_t at;
    wbuf b = build(V_OK, &at);
    const size_t header = 1400;
    static const uint8_t vals[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    for (size_t i = 0; i < header && i < b.n; i++) {
        const uint8_t keep = b.p[i];
        for (size_t k = 0; k < sizeof vals; k++) {
            b.p[i] = vals[k];
            llmmem_model *m = NULL;
            const int rc = llmmem_model_from_gguf(&m, (const char *)b.p, b.n, 0);
            if (rc == 0)
                llmmem_model_free(m);
            else
                assert_true(rc <= LLMMEM_E_INVALID_ARG && rc >= LLMMEM_E_INCONSISTENT);
        }
        b.p[i] = keep;
    }
    free(b.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_file_and_slices),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_flips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
