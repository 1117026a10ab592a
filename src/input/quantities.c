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
    [LLMMEM__QT_INT] = {-(INT64_C(1) << 40), INT64_C(1) << 40},
};

/* The 1-based position of v among "a|b|c", 0 when it is none of them. */
static int64_t choice_of(const char *choices, const char *v, size_t vn)
{
    int64_t k = 1;
    for (const char *p = choices; p && *p; k++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == vn && !memcmp(p, v, vn))
            return k;
        if (!bar)
            break;
        p = bar + 1;
    }
    return 0;
}

/* QT_STR: the string's position among the choices; QT_NLIST: how many
 * entries of the per-layer list are among them. */
static int read_strings(int64_t *out, const llmmem__qdef *d, const llmmem__json *doc, const llmmem__jnode *n,
                        const char *path)
{
    if (d->type == LLMMEM__QT_STR) {
        const char *v = llmmem__json_string(n);
        if (!v)
            return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "expected a string");
        *out = choice_of(d->choices, v, strlen(v));
        return 0;
    }
    if (llmmem__json_type(n) != LLMMEM__J_ARRAY)
        return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "expected an array of strings");
    *out = 0;
    for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it)) {
        /* an integer entry is matched by its decimal text (DeepSeek-V4's compress_ratios) */
        char num[24];
        const char *v = llmmem__json_string(it);
        if (!v && llmmem__json_type(it) == LLMMEM__J_NUMBER) {
            int64_t x = 0;
            int rc = llmmem__json_read_i64(&x, doc, it, NULL, path, INT64_MIN / 2, INT64_MAX / 2, true);
            if (rc)
                return rc;
            snprintf(num, sizeof num, "%lld", (long long)x);
            v = num;
        }
        if (!v)
            return llmmem__json_error_at(doc, it, LLMMEM_E_SCHEMA, path, "expected a string or integer entry");
        *out += choice_of(d->choices, v, strlen(v)) > 0;
    }
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
    if (d->type == LLMMEM__QT_BOOL) {
        bool b = false;
        int rc = llmmem__json_read_bool(&b, doc, n, NULL, path, true);
        if (rc)
            return rc;
        m->q.v[i] = b;
    } else if (d->type == LLMMEM__QT_REAL) {
        int rc = llmmem__json_read_f64(&m->q.r[i], doc, n, NULL, path, -1e18, 1e18, true);
        if (rc)
            return rc;
    } else if (d->type == LLMMEM__QT_STR || d->type == LLMMEM__QT_NLIST) {
        int rc = read_strings(&m->q.v[i], d, doc, n, path);
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

/* Layer indices of an integer list (mlp_only_layers) as a bitmap over [0, L). */
static int index_list(uint8_t *bits, int64_t L, const llmmem__json *doc, const llmmem__jnode *n,
                      const char *path)
{
    if (llmmem__json_type(n) != LLMMEM__J_ARRAY)
        return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "expected an array of layer indices");
    for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it)) {
        int64_t v = 0;
        int rc = llmmem__json_read_i64(&v, doc, it, NULL, path, 0, INT64_C(1) << 22, true);
        if (rc)
            return rc;
        if (v < L)
            bits[v / 8] |= (uint8_t)(1u << (v % 8));
    }
    return 0;
}

/* A per-layer list of strings: its key, its node, and its entries (a
 * run-length list [[["global", "local"], 12], ...] expanded). */
typedef struct slist {
    const llmmem__jnode *node; /* NULL when absent */
    char path[96];
    const char **v; /* L entries, NULL for a pattern string */
} slist;

typedef struct lists {
    slist mixer, ffn;
    const llmmem__jnode *dense; /* FR_STEP: indices that stay dense */
    char dense_path[96];
} lists;

static int run_length(slist *l, int64_t *n, int64_t L, const llmmem__json *doc)
{
    for (const llmmem__jnode *run = llmmem__json_first(l->node); run; run = llmmem__json_next(run)) {
        const llmmem__jnode *kinds = llmmem__json_first(run);
        const llmmem__jnode *times = kinds ? llmmem__json_next(kinds) : NULL;
        int64_t k = 0;
        int rc;
        if (llmmem__json_type(run) != LLMMEM__J_ARRAY || llmmem__json_type(kinds) != LLMMEM__J_ARRAY || !times)
            return llmmem__json_error_at(doc, run, LLMMEM_E_SCHEMA, l->path, "expected [[kinds...], repeats]");
        if ((rc = llmmem__json_read_i64(&k, doc, times, NULL, l->path, 0, 100000, true)))
            return rc;
        for (int64_t r = 0; r < k; r++)
            for (const llmmem__jnode *it = llmmem__json_first(kinds); it; it = llmmem__json_next(it), (*n)++) {
                if (!llmmem__json_string(it))
                    return llmmem__json_error_at(doc, it, LLMMEM_E_SCHEMA, l->path, "expected a string entry");
                if (*n < L)
                    l->v[*n] = llmmem__json_string(it);
            }
    }
    return 0;
}

/* Reads a list: a pattern string (one character a layer) or an array of
 * strings, plain or run-length; it must have num_hidden_layers entries. */
static int read_slist(slist *l, int64_t L, const llmmem__json *doc)
{
    int t = llmmem__json_type(l->node);
    if (t == LLMMEM__J_STRING) {
        int64_t n = (int64_t)strlen(llmmem__json_string(l->node));
        if (n != L)
            return llmmem__json_error_at(doc, l->node, LLMMEM_E_INCONSISTENT, l->path,
                                         "has %lld entries but num_hidden_layers is %lld", (long long)n,
                                         (long long)L);
        return 0;
    }
    if (t != LLMMEM__J_ARRAY)
        return llmmem__json_error_at(doc, l->node, LLMMEM_E_SCHEMA, l->path, "expected an array of layer kinds");
    l->v = calloc((size_t)L + 1, sizeof *l->v);
    if (!l->v)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", l->path);
    int64_t n = 0;
    const llmmem__jnode *first = llmmem__json_first(l->node);
    if (first && llmmem__json_type(first) == LLMMEM__J_ARRAY) {
        int rc = run_length(l, &n, L, doc);
        if (rc)
            return rc;
    } else {
        for (const llmmem__jnode *it = first; it; it = llmmem__json_next(it), n++) {
            if (!llmmem__json_string(it))
                return llmmem__json_error_at(doc, it, LLMMEM_E_SCHEMA, l->path, "expected a string entry");
            if (n < L)
                l->v[n] = llmmem__json_string(it);
        }
    }
    if (n != L)
        return llmmem__json_error_at(doc, l->node, LLMMEM_E_INCONSISTENT, l->path,
                                     "has %lld entries but num_hidden_layers is %lld", (long long)n, (long long)L);
    return 0;
}

/* The kind of layer i in list l, through `map`. */
static int kind_at(int *mx, int *ff, const slist *l, const char *map, const llmmem__arch *f,
                   const llmmem__json *doc, int64_t i)
{
    const char *v = l->v ? l->v[i] : llmmem__json_string(l->node) + i;
    size_t vn = l->v ? strlen(v) : 1;
    if (!map_value(map, v, vn, mx, ff))
        return llmmem__json_error_at(doc, l->node, LLMMEM_E_UNSUPPORTED, l->path,
                                     "layer %lld is \"%.*s\": not a layer kind of %s (%s)", (long long)i, (int)vn,
                                     v, f->type, map);
    return 0;
}

static int walk_layers(struct llmmem_model *m, const llmmem__json *doc, const lists *ls, const uint8_t *dense)
{
    const llmmem__arch *f = m->fam;
    memset(m->layers_of, 0, sizeof m->layers_of);
    for (int64_t i = 0; i < m->num_layers; i++) {
        int mx, ff, unused;
        int rc = llmmem__registry_ffn_of(&ff, m, i);
        if (!rc)
            rc = ls->mixer.node ? kind_at(&mx, &ff, &ls->mixer, f->mixer.map, f, doc, i)
                                : llmmem__registry_mixer_of(&mx, m, i);
        /* a feed-forward list decides over the mixer list's "/ffn" */
        if (!rc && ls->ffn.node)
            rc = kind_at(&ff, &unused, &ls->ffn, f->ffn.map, f, doc, i);
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

static const llmmem__jnode *list_node(const llmmem__jnode *obj, const char *key, char *path, size_t cap,
                                      const char *prefix)
{
    if (!key)
        return NULL;
    const llmmem__jnode *n = llmmem__json_get(obj, key);
    if (!n || llmmem__json_type(n) == LLMMEM__J_NULL)
        return NULL;
    snprintf(path, cap, "%s%s", prefix, key);
    return n;
}

static int read_lists(lists *ls, uint8_t **dense, struct llmmem_model *m, const llmmem__json *doc)
{
    int64_t L = m->num_layers;
    int rc;
    if ((ls->mixer.node && (rc = read_slist(&ls->mixer, L, doc))) ||
        (ls->ffn.node && (rc = read_slist(&ls->ffn, L, doc))))
        return rc;
    if (!ls->dense)
        return 0;
    *dense = calloc((size_t)(L / 8 + 1), 1);
    if (!*dense)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", ls->dense_path);
    return index_list(*dense, L, doc, ls->dense, ls->dense_path);
}

int llmmem__read_layer_lists(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *obj,
                             const char *prefix)
{
    const llmmem__arch *f = m->fam;
    lists ls;
    memset(&ls, 0, sizeof ls);
    ls.mixer.node = list_node(obj, f->mixer.list, ls.mixer.path, sizeof ls.mixer.path, prefix);
    if (f->ffn.map)
        ls.ffn.node = list_node(obj, f->ffn.list, ls.ffn.path, sizeof ls.ffn.path, prefix);
    else if (f->ffn.rule == LLMMEM__FR_STEP)
        ls.dense = list_node(obj, f->ffn.list, ls.dense_path, sizeof ls.dense_path, prefix);
    if (!ls.mixer.node && !ls.ffn.node && !ls.dense)
        return 0;
    uint8_t *dense = NULL;
    int rc = read_lists(&ls, &dense, m, doc);
    if (!rc)
        rc = walk_layers(m, doc, &ls, dense);
    free(dense);
    free(ls.mixer.v);
    free(ls.ffn.v);
    return rc;
}
