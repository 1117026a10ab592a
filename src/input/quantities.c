/* Reading a family's quantities and per-layer lists from a config.json (the
 * registry entry says which keys, src/model/registry.h). A mapped key of the
 * wrong JSON type or out of its bounds is an error naming the key and its
 * position; JSON null is an error unless the entry says what null means (the
 * configuration class accepts None there). */
#include "input/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bounds {
    int64_t lo, hi;
} bounds;

static const bounds qbounds[LLMMEM__QT_COUNT_] = {
    [LLMMEM__QT_DIM] = {1, INT64_C(1) << 22},    [LLMMEM__QT_DIM0] = {0, INT64_C(1) << 22},
    [LLMMEM__QT_LAYERS] = {1, 100000},           [LLMMEM__QT_COUNT] = {0, INT64_C(1) << 22},
    [LLMMEM__QT_VOCAB] = {1, INT64_C(1) << 26},  [LLMMEM__QT_POS] = {0, INT64_C(1) << 40},
    [LLMMEM__QT_BOOL] = {0, 1},                  [LLMMEM__QT_REAL] = {0, 0},
    [LLMMEM__QT_AUTO] = {1, INT64_C(1) << 22},   [LLMMEM__QT_LEN] = {1, 100000},
    [LLMMEM__QT_SUM] = {0, INT64_C(1) << 22},
};

/* QT_LEN: the length of an array or a string; QT_SUM: the sum of an integer
 * array. Out of the type's bounds is an error at the key. */
static int read_aggregate(int64_t *out, const llmmem__qdef *d, const llmmem__json *doc, const llmmem__jnode *n,
                          const char *path)
{
    int t = llmmem__json_type(n);
    if (d->type == LLMMEM__QT_LEN && t == LLMMEM__J_STRING)
        *out = (int64_t)strlen(llmmem__json_string(n));
    else if (t != LLMMEM__J_ARRAY)
        return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "expected an array%s",
                                     d->type == LLMMEM__QT_LEN ? " or a string" : " of integers");
    else if (d->type == LLMMEM__QT_LEN)
        *out = llmmem__json_array_size(n);
    else {
        *out = 0;
        for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it)) {
            int64_t v = 0;
            int rc = llmmem__json_read_i64(&v, doc, it, NULL, path, 0, qbounds[d->type].hi, true);
            if (rc)
                return rc;
            *out += v;
        }
    }
    if (*out < qbounds[d->type].lo || *out > qbounds[d->type].hi)
        return llmmem__json_error_at(doc, n, LLMMEM_E_OUT_OF_RANGE, path, "%s %lld is out of [%lld, %lld]",
                                     d->type == LLMMEM__QT_LEN ? "length" : "sum", (long long)*out,
                                     (long long)qbounds[d->type].lo, (long long)qbounds[d->type].hi);
    return 0;
}

/* The node of a key ("a.b" reads member b of object a; an absent or null
 * parent means the key is absent). */
static const llmmem__jnode *lookup(const llmmem__jnode *obj, const char *key, size_t n)
{
    char buf[96];
    const char *dot = memchr(key, '.', n);
    if (!dot) {
        if (n >= sizeof buf)
            return NULL;
        memcpy(buf, key, n);
        buf[n] = '\0';
        return llmmem__json_get(obj, buf);
    }
    size_t pn = (size_t)(dot - key);
    if (pn >= sizeof buf)
        return NULL;
    memcpy(buf, key, pn);
    buf[pn] = '\0';
    const llmmem__jnode *parent = llmmem__json_get(obj, buf);
    if (!parent || llmmem__json_type(parent) != LLMMEM__J_OBJECT)
        return NULL;
    return lookup(parent, dot + 1, n - pn - 1);
}

/* The first present key of "k1|k2|...": its node and its name (into buf). */
static const llmmem__jnode *first_key(const llmmem__jnode *obj, const char *keys, char *name, size_t cap)
{
    for (const char *p = keys; *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        const llmmem__jnode *node = lookup(obj, p, n);
        if (node) {
            snprintf(name, cap, "%.*s", (int)n, p);
            return node;
        }
        if (!bar)
            break;
        p = bar + 1;
    }
    return NULL;
}

static int read_one(struct llmmem_model *m, const llmmem__qdef *d, int i, const llmmem__json *doc,
                    const llmmem__jnode *obj, const char *prefix)
{
    char key[96], path[160];
    const llmmem__jnode *n = first_key(obj, d->keys, key, sizeof key);
    if (!n)
        return 0;
    snprintf(path, sizeof path, "%s%s", prefix, key);
    int t = llmmem__json_type(n);
    if (t == LLMMEM__J_NULL) {
        if (!d->nul)
            return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path,
                                         "null: %s needs a value here", m->model_type);
        m->q.src[i] = LLMMEM__QS_NULL;
        return 0;
    }
    if (d->type == LLMMEM__QT_AUTO && t == LLMMEM__J_STRING && !strcmp(llmmem__json_string(n), "auto"))
        return 0; /* the class computes it: the entry's default */
    if (d->type == LLMMEM__QT_LEN || d->type == LLMMEM__QT_SUM) {
        int rc = read_aggregate(&m->q.v[i], d, doc, n, path);
        if (rc)
            return rc;
    } else if (d->type == LLMMEM__QT_BOOL) {
        bool b = false;
        int rc = llmmem__json_read_bool(&b, doc, n, NULL, path, true);
        if (rc)
            return rc;
        m->q.v[i] = b;
    } else if (d->type == LLMMEM__QT_REAL) {
        int rc = llmmem__json_read_f64(&m->q.r[i], doc, n, NULL, path, -1e18, 1e18, true);
        if (rc)
            return rc;
    } else {
        int rc = llmmem__json_read_i64(&m->q.v[i], doc, n, NULL, path, qbounds[d->type].lo,
                                       qbounds[d->type].hi, true);
        if (rc)
            return rc;
    }
    m->q.src[i] = LLMMEM__QS_GIVEN;
    return 0;
}

int llmmem__read_quantities(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *obj,
                            const char *prefix)
{
    const llmmem__arch *f = m->fam;
    for (int i = 0; i < f->nq; i++) {
        if (!f->q[i].keys)
            continue;
        int rc = read_one(m, &f->q[i], i, doc, obj, prefix);
        if (rc)
            return rc;
    }
    return 0;
}

/* The node a quantity was read from (NULL when it took its default). */
const llmmem__jnode *llmmem__quantity_node(const struct llmmem_model *m, const char *sym,
                                           const llmmem__jnode *obj, char *path, size_t cap, const char *prefix)
{
    int i;
    if (!llmmem__qvals_find(&m->q, sym, strlen(sym), &i) || !m->fam->q[i].keys)
        return NULL;
    char key[96];
    const llmmem__jnode *n = first_key(obj, m->fam->q[i].keys, key, sizeof key);
    if (n)
        snprintf(path, cap, "%s%s", prefix, key);
    return n;
}

/* Contradictions between quantities, reported at the key that gave the
 * second one (llmmem__model_validate repeats them for models from numbers). */
int llmmem__check_quantities(const struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *obj,
                             const char *prefix)
{
    char path[160];
    const llmmem__jnode *n;
    if (m->num_experts > 0 && m->experts_per_token > m->num_experts) {
        n = llmmem__quantity_node(m, "K", obj, path, sizeof path, prefix);
        return llmmem__json_error_at(doc, n ? n : obj, LLMMEM_E_INCONSISTENT, n ? path : "num_experts_per_tok",
                                     "%lld experts per token but only %lld experts", (long long)m->experts_per_token,
                                     (long long)m->num_experts);
    }
    if (m->family != LLMMEM__FAM_DEEPSEEK && m->num_kv_heads > 0 && m->num_heads % m->num_kv_heads != 0) {
        n = llmmem__quantity_node(m, "k", obj, path, sizeof path, prefix);
        return llmmem__json_error_at(doc, n ? n : obj, LLMMEM_E_INCONSISTENT, n ? path : "num_key_value_heads",
                                     "%lld does not divide num_attention_heads %lld",
                                     (long long)m->num_kv_heads, (long long)m->num_heads);
    }
    return 0;
}

/* ---- per-layer lists ---------------------------------------------------------------- */

/* The kinds a list value maps to in "v1=m[/f],v2=m[/f]" (mixer, optional
 * feed-forward); false if the value is not in the map. */
static bool map_value(const char *map, const char *v, size_t vn, int *mixer, int *ffn)
{
    for (const char *p = map; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (eq && (size_t)(eq - p) == vn && !memcmp(p, v, vn)) {
            *mixer = eq[1] - '0';
            if (eq + 2 < p + n && eq[2] == '/')
                *ffn = eq[3] - '0';
            return true;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return false;
}

/* Layer indices of an integer list (mlp_only_layers, attn_layer_indices) as a
 * bitmap over [0, L); indices count from `base` (1 for kimi's lists). */
static int index_list(uint8_t *bits, int64_t L, int base, const llmmem__json *doc, const llmmem__jnode *n,
                      const char *path)
{
    if (llmmem__json_type(n) != LLMMEM__J_ARRAY)
        return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "expected an array of layer indices");
    for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it)) {
        int64_t v = 0;
        int rc = llmmem__json_read_i64(&v, doc, it, NULL, path, 0, INT64_C(1) << 22, true);
        if (rc)
            return rc;
        v -= base;
        if (v >= 0 && v < L)
            bits[v / 8] |= (uint8_t)(1u << (v % 8));
    }
    return 0;
}

typedef struct lists {
    const llmmem__jnode *mixer; /* array or string, NULL when absent */
    const llmmem__jnode *ffn;   /* per-layer feed-forward kinds (ffn.map), NULL when absent */
    const llmmem__jnode *dense; /* FR_STEP: indices that stay dense */
    const llmmem__jnode *idx;   /* mixer.idx: the layers that are mixer.on */
    char mixer_path[96], ffn_path[96], dense_path[96], idx_path[96];
} lists;

/* The i-th value of a per-layer list: a string item, a number or boolean as
 * its integer text ("0", "1": moe_layer_freq), or a pattern string's
 * character; `it` walks an array, starting over at its end (cyclic lists). */
static int list_value(const char **v, size_t *vn, char *buf, size_t cap, const llmmem__json *doc,
                      const llmmem__jnode *list, const char *path, const llmmem__jnode **it, int64_t i)
{
    if (llmmem__json_type(list) == LLMMEM__J_STRING) {
        const char *s = llmmem__json_string(list);
        *v = s + i % (int64_t)strlen(s);
        *vn = 1;
        return 0;
    }
    if (!*it)
        *it = llmmem__json_first(list);
    const llmmem__jnode *n = *it;
    *it = llmmem__json_next(n);
    int t = llmmem__json_type(n);
    if (t == LLMMEM__J_STRING) {
        *v = llmmem__json_string(n);
    } else if (t == LLMMEM__J_BOOL) {
        *v = llmmem__json_true(n) ? "1" : "0";
    } else if (t == LLMMEM__J_NUMBER && llmmem__json_number(n) == (double)(int64_t)llmmem__json_number(n)) {
        snprintf(buf, cap, "%lld", (long long)llmmem__json_number(n));
        *v = buf;
    } else {
        return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "expected a string entry");
    }
    *vn = strlen(*v);
    return 0;
}

static int unknown_kind(const llmmem__json *doc, const llmmem__jnode *list, const char *path, int64_t i,
                        const char *v, size_t vn, const llmmem__arch *f, const char *map)
{
    return llmmem__json_error_at(doc, list, LLMMEM_E_UNSUPPORTED, path, "layer %lld is \"%.*s\": not a layer kind of %s (%s)",
                                 (long long)i, (int)vn, v, f->type, map);
}

typedef struct cursor {
    const llmmem__jnode *mixer, *ffn; /* array items of the lists */
} cursor;

static int kinds_at(int *mx, int *ff, struct llmmem_model *m, const llmmem__json *doc, const lists *ls,
                    const uint8_t *on, cursor *c, int64_t i)
{
    const llmmem__arch *f = m->fam;
    const char *v;
    size_t vn;
    char buf[32];
    int rc;
    if ((rc = llmmem__registry_ffn_of(ff, m, i)))
        return rc;
    if (ls->mixer) {
        if ((rc = list_value(&v, &vn, buf, sizeof buf, doc, ls->mixer, ls->mixer_path, &c->mixer, i)))
            return rc;
        if (!map_value(f->mixer.map, v, vn, mx, ff))
            return unknown_kind(doc, ls->mixer, ls->mixer_path, i, v, vn, f, f->mixer.map);
    } else if (on) {
        *mx = (on[i / 8] >> (i % 8) & 1) ? f->mixer.on : f->mixer.off;
    } else if ((rc = llmmem__registry_mixer_of(mx, m, i))) {
        return rc;
    }
    if (ls->ffn) {
        int unused = 0;
        if ((rc = list_value(&v, &vn, buf, sizeof buf, doc, ls->ffn, ls->ffn_path, &c->ffn, i)))
            return rc;
        if (!map_value(f->ffn.map, v, vn, ff, &unused))
            return unknown_kind(doc, ls->ffn, ls->ffn_path, i, v, vn, f, f->ffn.map);
    }
    return 0;
}

static int walk_layers(struct llmmem_model *m, const llmmem__json *doc, const lists *ls, const uint8_t *dense,
                       const uint8_t *on)
{
    cursor c = {NULL, NULL};
    memset(m->layers_of, 0, sizeof m->layers_of);
    for (int64_t i = 0; i < m->num_layers; i++) {
        int mx, ff;
        int rc = kinds_at(&mx, &ff, m, doc, ls, on, &c, i);
        if (rc)
            return rc;
        if (dense && ff == LLMMEM__FF_MOE && (dense[i / 8] >> (i % 8) & 1))
            ff = LLMMEM__FF_DENSE;
        if ((rc = llmmem__registry_layer_add(m, mx, ff)))
            return rc;
    }
    m->layers_listed = true;
    return 0;
}

/* The first present, non-null key of "a|b" ("x.y" reads a sub-object). */
static const llmmem__jnode *list_node(const llmmem__jnode *obj, const char *keys, char *path, size_t cap,
                                      const char *prefix)
{
    if (!keys)
        return NULL;
    for (const char *p = keys; *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        const llmmem__jnode *node = lookup(obj, p, n);
        if (node && llmmem__json_type(node) != LLMMEM__J_NULL) {
            snprintf(path, cap, "%s%.*s", prefix, (int)n, p);
            return node;
        }
        if (!bar)
            break;
        p = bar + 1;
    }
    return NULL;
}

/* A per-layer list has one entry per layer (at least one when cyclic). */
static int check_length(const llmmem__json *doc, const llmmem__jnode *list, const char *path, int64_t L,
                        bool cycle)
{
    int t = llmmem__json_type(list);
    int64_t n = t == LLMMEM__J_ARRAY    ? llmmem__json_array_size(list)
                : t == LLMMEM__J_STRING ? (int64_t)strlen(llmmem__json_string(list))
                                        : -1;
    if (n < 0)
        return llmmem__json_error_at(doc, list, LLMMEM_E_SCHEMA, path, "expected an array of layer kinds");
    if (cycle && n < 1)
        return llmmem__json_error_at(doc, list, LLMMEM_E_INCONSISTENT, path, "is empty: it repeats over the layers");
    if (!cycle && n != L)
        return llmmem__json_error_at(doc, list, LLMMEM_E_INCONSISTENT, path,
                                     "has %lld entries but num_hidden_layers is %lld", (long long)n, (long long)L);
    return 0;
}

static int bitmap(uint8_t **out, int64_t L, int base, const llmmem__json *doc, const llmmem__jnode *n,
                  const char *path)
{
    *out = calloc((size_t)(L / 8 + 1), 1);
    if (!*out)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", path);
    return index_list(*out, L, base, doc, n, path);
}

int llmmem__read_layer_lists(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *obj,
                             const char *prefix)
{
    const llmmem__arch *f = m->fam;
    lists ls;
    memset(&ls, 0, sizeof ls);
    ls.mixer = list_node(obj, f->mixer.list, ls.mixer_path, sizeof ls.mixer_path, prefix);
    ls.idx = ls.mixer ? NULL : list_node(obj, f->mixer.idx, ls.idx_path, sizeof ls.idx_path, prefix);
    if (f->ffn.map)
        ls.ffn = list_node(obj, f->ffn.list, ls.ffn_path, sizeof ls.ffn_path, prefix);
    else if (f->ffn.rule == LLMMEM__FR_STEP)
        ls.dense = list_node(obj, f->ffn.list, ls.dense_path, sizeof ls.dense_path, prefix);
    if (!ls.mixer && !ls.idx && !ls.ffn && !ls.dense)
        return 0;
    int64_t L = m->num_layers;
    int rc = 0;
    if ((ls.mixer && (rc = check_length(doc, ls.mixer, ls.mixer_path, L, f->mixer.cycle))) ||
        (ls.ffn && (rc = check_length(doc, ls.ffn, ls.ffn_path, L, f->ffn.cycle))))
        return rc;
    uint8_t *dense = NULL, *on = NULL;
    if ((!ls.dense || !(rc = bitmap(&dense, L, 0, doc, ls.dense, ls.dense_path))) &&
        (!ls.idx || !(rc = bitmap(&on, L, f->mixer.base, doc, ls.idx, ls.idx_path))))
        rc = walk_layers(m, doc, &ls, dense, on);
    free(dense);
    free(on);
    return rc;
}
