/* Small readers over one object of a config.json, shared by the HF config
 * reader (hfconfig.c) and the vision towers (towers.c). Not installed. */
#ifndef LLMMEM_INPUT_HFCTX_H
#define LLMMEM_INPUT_HFCTX_H

#include "input/input.h"

#include <stdio.h>

/* Bounds for dimensions read from a config (generous, but they reject the
 * nonsense that would overflow a count). */
#define MAX_LAYERS 100000
#define MAX_DIM (INT64_C(1) << 22)   /* hidden, head_dim, intermediate: 4M */
#define MAX_HEADS 65536
#define MAX_VOCAB (INT64_C(1) << 26) /* 64M */
#define MAX_POS (INT64_C(1) << 40)
#define MAX_EXPERTS 65536

typedef struct ctx {
    const llmmem__json *doc;
    const llmmem__jnode *o; /* the object holding the text model's keys */
    const char *prefix;     /* "" or "text_config." for messages */
    char path[128];
    char ignored_type[64];  /* a composite's text model_type its config class does not read */
} ctx;

static inline const char *kp(ctx *c, const char *key)
{
    if (!c->prefix || !c->prefix[0])
        return key; /* top level: the key is the path (no formatting on the hot path) */
    snprintf(c->path, sizeof c->path, "%s%s", c->prefix, key);
    return c->path;
}

static inline bool has(const ctx *c, const char *key) { return llmmem__json_get(c->o, key) != NULL; }

static inline bool is_null(const ctx *c, const char *key)
{
    const llmmem__jnode *n = llmmem__json_get(c->o, key);
    return n && llmmem__json_type(n) == LLMMEM__J_NULL;
}

/* Integer with a default when absent or null. */
static inline int geti(int64_t *out, ctx *c, const char *key, int64_t def, int64_t lo, int64_t hi)
{
    *out = def;
    return llmmem__json_read_i64(out, c->doc, c->o, key, kp(c, key), lo, hi, false);
}

/* Integer where null means something else than absent (sliding_window: null = none). */
static inline int geti_null(int64_t *out, ctx *c, const char *key, int64_t absent, int64_t null_value,
                     int64_t lo, int64_t hi)
{
    if (is_null(c, key)) {
        *out = null_value;
        return 0;
    }
    return geti(out, c, key, absent, lo, hi);
}

static inline int getb(bool *out, ctx *c, const char *key, bool def)
{
    *out = def;
    return llmmem__json_read_bool(out, c->doc, c->o, key, kp(c, key), false);
}

static inline int getf(double *out, ctx *c, const char *key, double def)
{
    *out = def;
    return llmmem__json_read_f64(out, c->doc, c->o, key, kp(c, key), 0.0, 1.0, false);
}

/* A soft-capping value: null means none (Gemma2Config/Gemma3TextConfig). */
static inline int get_softcap(double *out, ctx *c, const char *key, double def)
{
    if (is_null(c, key)) {
        *out = 0;
        return 0;
    }
    *out = def;
    return llmmem__json_read_f64(out, c->doc, c->o, key, kp(c, key), 0.0, 1e9, false);
}

/* First present key of a list (aliases such as n_embd / hidden_size). */
static inline const char *alias(const ctx *c, const char *const *keys)
{
    for (; *keys; keys++)
        if (has(c, *keys))
            return *keys;
    return NULL;
}

static inline int geti_alias(int64_t *out, ctx *c, const char *const *keys, int64_t def, int64_t lo,
                      int64_t hi)
{
    const char *k = alias(c, keys);
    if (!k) {
        *out = def;
        return 0;
    }
    return geti(out, c, k, def, lo, hi);
}

#endif /* LLMMEM_INPUT_HFCTX_H */
