/* GGUF header reader: magic, version, the metadata key/values and the tensor
 * infos of a GGUF v2 or v3 file (the format of ggml/docs/gguf.md; the checks
 * are those of ggml/src/gguf.cpp gguf_init_from_reader, which llama.cpp runs
 * on every file it loads, so a file it would refuse is refused here too). It
 * stops where the tensor data begins and never reads a weight.
 *
 * Every failure names the source and the byte offset of what is wrong:
 * "model.gguf: byte 1234: key 5 \"llama.block_count\": ...". A buffer that
 * holds only the start of a file (the web page reads a slice) fails with
 * LLMMEM_E_BUFFER_TOO_SMALL when the header goes on past it, so the caller
 * can read more and try again. The metadata the model needs is read by
 * gguf_arch.c from the key table kept here while the buffer is alive. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "input/gguf.h"

#include "core/ggml.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GGUF_MAGIC 0x46554747u            /* "GGUF" read as a little-endian uint32 */
#define GGUF_MAX_STRING (1024u * 1024u * 1024u) /* gguf.cpp GGUF_MAX_STRING_LENGTH */
#define GGUF_MAX_ARRAY (1024u * 1024u * 1024u)  /* GGUF_MAX_ARRAY_ELEMENTS */
#define GGUF_DEFAULT_ALIGNMENT 32u
/* A header larger than this is refused (a 256k-token vocabulary is ~10 MiB). */
#define GGUF_MAX_HEADER (UINT64_C(1) << 30)

static const char *const type_names[LLMMEM__GGUF_T_COUNT] = {
    "uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
    "bool",  "string", "array", "uint64", "int64", "float64"};
/* bytes of one value of each type (string: its length field; array: not sized here) */
static const uint8_t type_size[LLMMEM__GGUF_T_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 8, 0, 8, 8, 8};

const char *llmmem__gguf_type_name(uint32_t type)
{
    return type < LLMMEM__GGUF_T_COUNT ? type_names[type] : "unknown";
}

/* ---- the cursor ----------------------------------------------------------------- */

typedef struct rd {
    const uint8_t *p;
    size_t len;     /* bytes held */
    uint64_t file;  /* the whole file's size (>= len) */
    size_t i;       /* next byte */
    const char *src;
} rd;

/* Bytes left in the file after the cursor (what a count or a length may cover). */
static uint64_t file_left(const rd *r) { return r->file - r->i; }

static int fail(const rd *r, size_t at, int status, const char *fmt, ...) LLMMEM_PRINTF(4, 5);
static int fail(const rd *r, size_t at, int status, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return llmmem__error(status, "%s: byte %zu: %s", r->src, at, msg);
}

/* n more bytes must be there: LLMMEM_E_PARSE at the end of the file,
 * LLMMEM_E_BUFFER_TOO_SMALL at the end of a slice of it. */
static int need(const rd *r, uint64_t n, const char *what)
{
    if (n <= r->len - r->i)
        return 0;
    if (r->len < r->file && n <= file_left(r))
        return llmmem__error(LLMMEM_E_BUFFER_TOO_SMALL,
                             "%s: byte %zu: the header goes on past the %zu bytes given (%s); "
                             "read more of the file",
                             r->src, r->i, r->len, what);
    return fail(r, r->i, LLMMEM_E_PARSE, "the file ends inside %s (%llu bytes needed, %llu left)",
                what, (unsigned long long)n, (unsigned long long)file_left(r));
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; k--)
        v = (v << 8) | p[k];
    return v;
}

static int get(rd *r, uint64_t *v, int n, const char *what)
{
    int rc = need(r, (uint64_t)n, what);
    if (rc)
        return rc;
    *v = le(r->p + r->i, n);
    r->i += (size_t)n;
    return 0;
}

static int get_u32(rd *r, uint32_t *v, const char *what)
{
    uint64_t x = 0;
    int rc = get(r, &x, 4, what);
    *v = (uint32_t)x;
    return rc;
}

/* A string: its uint64 length, then that many bytes (no NUL). *s points into
 * the buffer. */
static int get_str(rd *r, const char **s, uint64_t *n, const char *what)
{
    const size_t at = r->i;
    int rc = get(r, n, 8, what);
    if (rc)
        return rc;
    if (*n > GGUF_MAX_STRING)
        return fail(r, at, LLMMEM_E_PARSE, "%s: length %llu is above ggml's limit of %u bytes", what,
                    (unsigned long long)*n, GGUF_MAX_STRING);
    if (*n > file_left(r))
        return fail(r, at, LLMMEM_E_PARSE,
                    "%s: length %llu is longer than the rest of the file (%llu bytes)", what,
                    (unsigned long long)*n, (unsigned long long)file_left(r));
    if ((rc = need(r, *n, what)) != 0)
        return rc;
    *s = (const char *)r->p + r->i;
    r->i += (size_t)*n;
    return 0;
}

/* ---- names seen (keys and tensor names must be unique) ------------------------------ */

typedef struct nameset {
    const char **s;
    uint32_t *n;
    size_t cap; /* a power of two, at least twice the names */
} nameset;

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211u;
    return h;
}

static int set_init(nameset *set, uint64_t count, const rd *r)
{
    size_t cap = 16;
    while (cap < 2 * count)
        cap *= 2;
    set->s = calloc(cap, sizeof *set->s);
    set->n = calloc(cap, sizeof *set->n);
    set->cap = cap;
    if (!set->s || !set->n)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", r->src);
    return 0;
}

static void set_free(nameset *set)
{
    free(set->s);
    free(set->n);
}

/* false when the name is already there */
static bool set_add(nameset *set, const char *s, size_t n)
{
    size_t k = (size_t)hash(s, n) & (set->cap - 1);
    while (set->s[k]) {
        if (set->n[k] == n && memcmp(set->s[k], s, n) == 0)
            return false;
        k = (k + 1) & (set->cap - 1);
    }
    set->s[k] = s;
    set->n[k] = (uint32_t)n;
    return true;
}

/* ---- metadata ------------------------------------------------------------------------ */

/* Skips (and checks) one value of `type`; arrays hold scalars or strings. */
static int skip_value(rd *r, uint32_t type, const char *what)
{
    if (type == LLMMEM__GGUF_T_STRING) {
        const char *s;
        uint64_t n;
        return get_str(r, &s, &n, what);
    }
    if (type == LLMMEM__GGUF_T_BOOL) {
        int rc = need(r, 1, what);
        if (rc)
            return rc;
        if (r->p[r->i] > 1)
            return fail(r, r->i, LLMMEM_E_PARSE, "%s: a bool is 0 or 1, not %u", what, r->p[r->i]);
        r->i++;
        return 0;
    }
    int rc = need(r, type_size[type], what);
    if (rc == 0)
        r->i += type_size[type];
    return rc;
}

static int read_kv(rd *r, llmmem__gguf_kv *kv, uint64_t index, nameset *keys)
{
    char what[96];
    snprintf(what, sizeof what, "the name of key %llu", (unsigned long long)index);
    const size_t at = r->i;
    const char *key;
    uint64_t kn;
    int rc = get_str(r, &key, &kn, what);
    if (rc)
        return rc;
    if (kn == 0)
        return fail(r, at, LLMMEM_E_PARSE, "key %llu has an empty name", (unsigned long long)index);
    if (!set_add(keys, key, (size_t)kn))
        return fail(r, at, LLMMEM_E_PARSE, "key %llu \"%.*s\" appears twice",
                    (unsigned long long)index, kn > 200 ? 200 : (int)kn, key);
    snprintf(what, sizeof what, "key %llu \"%.*s\"", (unsigned long long)index,
             kn > 60 ? 60 : (int)kn, key);
    kv->key = key;
    kv->key_len = (size_t)kn;
    const size_t tat = r->i;
    if ((rc = get_u32(r, &kv->type, what)) != 0)
        return rc;
    if (kv->type >= LLMMEM__GGUF_T_COUNT)
        return fail(r, tat, LLMMEM_E_PARSE, "%s: value type %u is not a GGUF type (0..12)", what,
                    kv->type);
    kv->count = 1;
    kv->elem = kv->type;
    if (kv->type == LLMMEM__GGUF_T_ARRAY) {
        const size_t eat = r->i;
        if ((rc = get_u32(r, &kv->elem, what)) != 0)
            return rc;
        if (kv->elem >= LLMMEM__GGUF_T_COUNT)
            return fail(r, eat, LLMMEM_E_PARSE, "%s: array element type %u is not a GGUF type (0..12)",
                        what, kv->elem);
        if (kv->elem == LLMMEM__GGUF_T_ARRAY)
            return fail(r, eat, LLMMEM_E_PARSE,
                        "%s: an array of arrays (ggml's reader refuses nested arrays)", what);
        const size_t cat = r->i;
        if ((rc = get(r, &kv->count, 8, what)) != 0)
            return rc;
        if (kv->count > GGUF_MAX_ARRAY)
            return fail(r, cat, LLMMEM_E_PARSE, "%s: %llu elements, above ggml's limit of %u", what,
                        (unsigned long long)kv->count, GGUF_MAX_ARRAY);
        /* every element takes at least its fixed size (a string its 8-byte length) */
        if (kv->count > file_left(r) / type_size[kv->elem])
            return fail(r, cat, LLMMEM_E_PARSE,
                        "%s: %llu elements of %s cannot fit in the %llu bytes left in the file",
                        what, (unsigned long long)kv->count, type_names[kv->elem],
                        (unsigned long long)file_left(r));
    }
    kv->value = r->i;
    for (uint64_t e = 0; e < kv->count; e++)
        if ((rc = skip_value(r, kv->elem, what)) != 0)
            return rc;
    return 0;
}

/* ---- tensor infos ------------------------------------------------------------------ */

/* "blk.N." -> N; input and output tensors by llama-arch.cpp LLM_TENSOR_INFOS (the
 * input layer: token and position embeddings; everything else outside the blocks
 * belongs to the output layer). */
static int32_t place_of(const char *name)
{
    if (strncmp(name, "blk.", 4) == 0) {
        int64_t n = 0;
        const char *p = name + 4;
        if (*p < '0' || *p > '9')
            return LLMMEM__GGUF_OUTPUT;
        while (*p >= '0' && *p <= '9' && n < 100000)
            n = n * 10 + (*p++ - '0');
        return *p == '.' ? (int32_t)n : LLMMEM__GGUF_OUTPUT;
    }
    if (strncmp(name, "token_embd", 10) == 0 || strncmp(name, "position_embd", 13) == 0 ||
        strncmp(name, "token_types", 11) == 0 || strncmp(name, "per_layer_token_embd", 20) == 0)
        return LLMMEM__GGUF_INPUT;
    return LLMMEM__GGUF_OUTPUT;
}

static int read_tensor(rd *r, llmmem__gguf *g, uint64_t index, nameset *names, size_t *arena)
{
    char what[96];
    snprintf(what, sizeof what, "the name of tensor %llu", (unsigned long long)index);
    const size_t at = r->i;
    const char *name;
    uint64_t nn;
    int rc = get_str(r, &name, &nn, what);
    if (rc)
        return rc;
    if (nn >= LLMMEM__GGUF_MAX_NAME)
        return fail(r, at, LLMMEM_E_PARSE, "tensor %llu: its name is %llu bytes, ggml's limit is %d",
                    (unsigned long long)index, (unsigned long long)nn, LLMMEM__GGUF_MAX_NAME - 1);
    if (memchr(name, '\0', (size_t)nn))
        return fail(r, at, LLMMEM_E_PARSE, "tensor %llu: its name holds a NUL byte",
                    (unsigned long long)index);
    if (!set_add(names, name, (size_t)nn))
        return fail(r, at, LLMMEM_E_PARSE, "tensor %llu \"%.*s\" appears twice",
                    (unsigned long long)index, (int)nn, name);
    llmmem__gguf_tensor *t = &g->t[index];
    memset(t, 0, sizeof *t);
    t->name = (uint32_t)*arena;
    memcpy(g->names + *arena, name, (size_t)nn);
    g->names[*arena + nn] = '\0';
    *arena += (size_t)nn + 1;
    const char *tn = g->names + t->name;
    snprintf(what, sizeof what, "tensor %llu \"%s\"", (unsigned long long)index, tn);
    const size_t dat = r->i;
    if ((rc = get_u32(r, &t->n_dims, what)) != 0)
        return rc;
    if (t->n_dims > LLMMEM__GGUF_MAX_DIMS)
        return fail(r, dat, LLMMEM_E_PARSE, "%s: %u dimensions, ggml has at most %d", what, t->n_dims,
                    LLMMEM__GGUF_MAX_DIMS);
    int64_t elems = 1;
    bool zero = false;
    for (uint32_t d = 0; d < LLMMEM__GGUF_MAX_DIMS; d++) {
        t->ne[d] = 1;
        if (d >= t->n_dims)
            continue;
        const size_t nat = r->i;
        uint64_t v = 0;
        if ((rc = get(r, &v, 8, what)) != 0)
            return rc;
        if (v > (uint64_t)INT64_MAX)
            return fail(r, nat, LLMMEM_E_PARSE, "%s: dimension %u is %lld, negative", what, d,
                        (long long)(int64_t)v);
        t->ne[d] = (int64_t)v;
        zero = zero || v == 0;
        if (v > 1 && elems > INT64_MAX / (int64_t)v && !zero)
            return fail(r, nat, LLMMEM_E_PARSE,
                        "%s: dimension %u of %llu makes more than 2^63 elements", what, d,
                        (unsigned long long)v);
        elems = zero ? 0 : elems * (int64_t)v;
    }
    const size_t tat = r->i;
    if ((rc = get_u32(r, &t->type, what)) != 0)
        return rc;
    const llmmem__ggml_traits *tr = llmmem__ggml_type(t->type);
    if (!tr)
        return fail(r, tat, LLMMEM_E_PARSE, "%s: ggml type %u is not a type ggml knows", what, t->type);
    if (t->ne[0] % tr->block != 0)
        return fail(r, tat, LLMMEM_E_PARSE,
                    "%s: %lld elements per row is not a multiple of the %s block (%u)", what,
                    (long long)t->ne[0], tr->name, tr->block);
    llmmem__ovf o = {false};
    const uint64_t rows = (uint64_t)(t->ne[0] ? elems / t->ne[0] : 0);
    t->bytes = llmmem__mul(&o, llmmem__ggml_row_bytes(&o, tr, (uint64_t)t->ne[0]), rows);
    if (o.overflow || t->bytes > (UINT64_C(1) << 62))
        return fail(r, tat, LLMMEM_E_PARSE, "%s: %lld x %lld x %lld x %lld of %s is too many bytes",
                    what, (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2],
                    (long long)t->ne[3], tr->name);
    const size_t oat = r->i;
    uint64_t off = 0;
    if ((rc = get(r, &off, 8, what)) != 0)
        return rc;
    /* gguf.cpp: the tensors lie one after another in the data section, each padded
     * to the alignment */
    if (off != g->data_bytes)
        return fail(r, oat, LLMMEM_E_PARSE, "%s: data offset %llu, expected %llu (the end of the "
                    "tensor before it, padded to %u)",
                    what, (unsigned long long)off, (unsigned long long)g->data_bytes, g->alignment);
    g->data_bytes += llmmem__round_up(&o, t->bytes, g->alignment);
    t->layer = place_of(tn);
    return 0;
}

/* ---- the header ---------------------------------------------------------------------- */

const llmmem__gguf_kv *llmmem__gguf_find(const llmmem__gguf_doc *d, const char *key)
{
    const size_t n = strlen(key);
    for (uint64_t k = 0; k < d->n_kv; k++)
        if (d->kv[k].key_len == n && memcmp(d->kv[k].key, key, n) == 0)
            return &d->kv[k];
    return NULL;
}

/* general.alignment: a uint32 power of two (gguf.cpp). */
static int read_alignment(const rd *r, llmmem__gguf_doc *d)
{
    d->g->alignment = GGUF_DEFAULT_ALIGNMENT;
    const llmmem__gguf_kv *kv = llmmem__gguf_find(d, "general.alignment");
    if (!kv)
        return 0;
    if (kv->type != LLMMEM__GGUF_T_UINT32)
        return fail(r, kv->value, LLMMEM_E_PARSE, "general.alignment must be a uint32, not %s",
                    llmmem__gguf_type_name(kv->type));
    const uint32_t a = (uint32_t)le(r->p + kv->value, 4);
    if (a == 0 || (a & (a - 1)) != 0)
        return fail(r, kv->value, LLMMEM_E_PARSE, "general.alignment %u is not a power of 2", a);
    d->g->alignment = a;
    return 0;
}

static int read_header(rd *r, llmmem__gguf_doc *d)
{
    llmmem__gguf *g = d->g;
    uint32_t magic = 0;
    int rc = get_u32(r, &magic, "the magic");
    if (rc)
        return rc;
    if (magic != GGUF_MAGIC) {
        const uint8_t *m = r->p;
        return fail(r, 0, LLMMEM_E_PARSE,
                    "not a GGUF file: it begins with bytes %02x %02x %02x %02x, not \"GGUF\"", m[0],
                    m[1], m[2], m[3]);
    }
    if ((rc = get_u32(r, &g->version, "the version")) != 0)
        return rc;
    if (g->version == 1)
        return fail(r, 4, LLMMEM_E_UNSUPPORTED, "GGUF version 1 is no longer read by llama.cpp "
                    "(nor here): convert the file again");
    if (g->version == 0 || g->version > 3)
        return fail(r, 4, LLMMEM_E_PARSE, "GGUF version %u: versions 2 and 3 are known%s",
                    g->version, (g->version & 0xFFFF) == 0 ? " (a big-endian file?)" : "");
    uint64_t nt = 0;
    if ((rc = get(r, &nt, 8, "the tensor count")) != 0 || (rc = get(r, &d->n_kv, 8, "the key count")) != 0)
        return rc;
    /* each tensor info takes at least 24 bytes (name length, dims, type, offset);
     * each key/value at least 13 (name length, type, one byte of value) */
    if (nt > file_left(r) / 24)
        return fail(r, 8, LLMMEM_E_PARSE,
                    "%llu tensors cannot fit in the %llu bytes left in the file (24 bytes each at least)",
                    (unsigned long long)nt, (unsigned long long)file_left(r));
    if (d->n_kv > file_left(r) / 13)
        return fail(r, 16, LLMMEM_E_PARSE,
                    "%llu keys cannot fit in the %llu bytes left in the file (13 bytes each at least)",
                    (unsigned long long)d->n_kv, (unsigned long long)file_left(r));
    g->n_kv = d->n_kv;
    d->kv = calloc(d->n_kv ? d->n_kv : 1, sizeof *d->kv);
    nameset keys = {0};
    if (!d->kv)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", r->src);
    if ((rc = set_init(&keys, d->n_kv, r)) != 0) {
        set_free(&keys);
        return rc;
    }
    for (uint64_t k = 0; k < d->n_kv && rc == 0; k++)
        rc = read_kv(r, &d->kv[k], k, &keys);
    set_free(&keys);
    if (rc || (rc = read_alignment(r, d)) != 0)
        return rc;
    /* the tensor infos: names go to one arena (each shorter than 64 bytes) */
    g->n_tensors = (uint32_t)nt;
    g->t = calloc(nt ? nt : 1, sizeof *g->t);
    g->names = malloc(nt ? nt * LLMMEM__GGUF_MAX_NAME : 1);
    nameset names = {0};
    if (!g->t || !g->names)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", r->src);
    if ((rc = set_init(&names, nt, r)) != 0) {
        set_free(&names);
        return rc;
    }
    size_t arena = 0;
    for (uint64_t k = 0; k < nt && rc == 0; k++)
        rc = read_tensor(r, g, k, &names, &arena);
    set_free(&names);
    if (rc)
        return rc;
    g->names_len = arena;
    /* the data section starts at the next multiple of the alignment */
    llmmem__ovf o = {false};
    g->data_offset = nt ? llmmem__round_up(&o, r->i, g->alignment) : r->i;
    d->header_end = r->i;
    if (r->file != UINT64_MAX && (o.overflow || g->data_offset > r->file ||
                                  g->data_bytes > r->file - g->data_offset))
        return fail(r, (size_t)r->file, LLMMEM_E_PARSE,
                    "the file ends here, but its tensor data needs %llu bytes from byte %llu: "
                    "a truncated download? (llama.cpp refuses it too)",
                    (unsigned long long)g->data_bytes, (unsigned long long)g->data_offset);
    return 0;
}

void llmmem__gguf_doc_free(llmmem__gguf_doc *d)
{
    free(d->kv);
    d->kv = NULL;
    llmmem__gguf_free(d->g);
    d->g = NULL;
}

int llmmem__gguf_parse(llmmem__gguf_doc *d, const void *data, size_t len, uint64_t file_size,
                       const char *source)
{
    memset(d, 0, sizeof *d);
    d->data = data;
    d->len = len;
    d->src = source;
    d->g = calloc(1, sizeof *d->g);
    if (!d->g)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", source);
    d->g->file_type = -1;
    /* file_size 0: the buffer is the whole file; UINT64_MAX: the size is not known */
    rd r = {data, len, file_size ? file_size : len, 0, source};
    if (file_size && file_size != UINT64_MAX && file_size < len) {
        llmmem__gguf_doc_free(d);
        return llmmem__error(LLMMEM_E_INVALID_ARG, "%s: file size %llu is smaller than the %zu bytes given",
                             source, (unsigned long long)file_size, len);
    }
    d->g->file_bytes = r.file == UINT64_MAX ? 0 : r.file;
    int rc = read_header(&r, d);
    if (rc)
        llmmem__gguf_doc_free(d);
    return rc;
}

/* Little-endian value of a scalar key at byte `at` of the buffer. */
uint64_t llmmem__gguf_raw(const llmmem__gguf_doc *d, size_t at, int bytes)
{
    return le((const uint8_t *)d->data + at, bytes);
}

uint32_t llmmem__gguf_type_size(uint32_t type) { return type < LLMMEM__GGUF_T_COUNT ? type_size[type] : 0; }

/* ---- files ------------------------------------------------------------------------------- */

static int io_error(const char *what, const char *path, int e)
{
    char buf[128] = "";
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    const char *m = strerror_r(e, buf, sizeof buf);
#else
    const char *m = strerror_r(e, buf, sizeof buf) == 0 ? buf : "error";
#endif
    return llmmem__error(LLMMEM_E_IO, "%s \"%s\": %s", what, path, m);
}

/* Reads bytes [0, n) of fd into buf (which holds `have` of them already). */
static int read_upto(int fd, uint8_t *buf, size_t have, size_t n, const char *path)
{
    while (have < n) {
        ssize_t k = pread(fd, buf + have, n - have, (off_t)have);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return io_error("cannot read", path, errno);
        if (k == 0)
            return llmmem__error(LLMMEM_E_IO, "cannot read \"%s\": it shrank while being read", path);
        have += (size_t)k;
    }
    return 0;
}

int llmmem__gguf_parse_file(llmmem__gguf_doc *d, uint8_t **buf_out, const char *path)
{
    *buf_out = NULL;
    memset(d, 0, sizeof *d);
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return io_error("cannot open", path, errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return io_error("cannot stat", path, e);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return llmmem__error(LLMMEM_E_IO, "cannot read \"%s\": %s", path,
                             S_ISDIR(st.st_mode) ? "it is a directory, not a file"
                                                 : "not a regular file");
    }
    const uint64_t size = (uint64_t)st.st_size;
    if (size == 0) {
        close(fd);
        return llmmem__error(LLMMEM_E_PARSE, "%s: byte 0: the file is empty, not a GGUF file", path);
    }
    /* the header only: start with 4 MiB and double while it goes on */
    size_t n = size < (UINT64_C(4) << 20) ? (size_t)size : (size_t)4 << 20, have = 0;
    uint8_t *buf = NULL;
    int rc;
    for (;;) {
        uint8_t *nb = realloc(buf, n ? n : 1);
        if (!nb) {
            rc = llmmem__error(LLMMEM_E_NOMEM, "cannot read \"%s\": out of memory", path);
            break;
        }
        buf = nb;
        if ((rc = read_upto(fd, buf, have, n, path)) != 0)
            break;
        have = n;
        rc = llmmem__gguf_parse(d, buf, n, size, path);
        if (rc != LLMMEM_E_BUFFER_TOO_SMALL)
            break;
        if (n >= GGUF_MAX_HEADER) {
            rc = llmmem__error(LLMMEM_E_UNSUPPORTED, "%s: the header is larger than %llu MiB", path,
                               (unsigned long long)(GGUF_MAX_HEADER >> 20));
            break;
        }
        n = (uint64_t)n * 2 > size ? (size_t)size : n * 2;
    }
    close(fd);
    if (rc) {
        free(buf);
        return rc;
    }
    *buf_out = buf;
    return 0;
}
