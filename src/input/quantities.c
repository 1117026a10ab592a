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
    [LLMMEM__QT_LIST] = {0, INT64_C(1) << 44},
};

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

/* The first present key of "k1|k2|...": its node and its name (into buf).
 * A key "name=value" looks up `name`; `match` (when not NULL) receives the
 * value to compare string entries with ("" when the key has none). */
static const llmmem__jnode *first_key(const llmmem__jnode *obj, const char *keys, char *name, size_t cap,
                                      char *match, size_t mcap)
{
    for (const char *p = keys; *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        size_t kn = eq ? (size_t)(eq - p) : n;
        const llmmem__jnode *node = lookup(obj, p, kn);
        if (node) {
            snprintf(name, cap, "%.*s", (int)kn, p);
            if (match)
                snprintf(match, mcap, "%.*s", eq ? (int)(n - kn - 1) : 0, eq ? eq + 1 : "");
            return node;
        }
        if (!bar)
            break;
        p = bar + 1;
    }
    return NULL;
}

/* A per-layer list read as one integer (LLMMEM__QT_LIST): the sum of its
 * integer entries, or with a `match` the number of string entries equal to it. */
static int read_list(int64_t *out, const llmmem__json *doc, const llmmem__jnode *n, const char *path,
                     const char *match)
{
    if (llmmem__json_type(n) != LLMMEM__J_ARRAY)
        return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path,
                                     *match ? "expected an array (one entry per layer)"
                                            : "expected an array (one entry per layer) or one number");
    int64_t sum = 0;
    for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it)) {
        int64_t v = 0;
        if (*match) {
            const char *s = llmmem__json_string(it);
            if (!s)
                return llmmem__json_error_at(doc, it, LLMMEM_E_SCHEMA, path, "expected a string entry");
            v = strcmp(s, match) == 0;
        } else {
            int rc = llmmem__json_read_i64(&v, doc, it, NULL, path, 0, INT64_C(1) << 22, true);
            if (rc)
                return rc;
        }
        sum += v; /* entries of at most 2^22 in a file of at most 64 MiB: no overflow */
    }
    *out = sum;
    return 0;
}

static int read_one(struct llmmem_model *m, const llmmem__qdef *d, int i, const llmmem__json *doc,
                    const llmmem__jnode *obj, const char *prefix)
{
    char key[96], path[160], match[64];
    const llmmem__jnode *n = first_key(obj, d->keys, key, sizeof key, match, sizeof match);
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
    if (d->type == LLMMEM__QT_LIST && t == LLMMEM__J_NUMBER && !*match) {
        int64_t v = 0; /* one number for every layer: r x L at each count */
        int rc = llmmem__json_read_i64(&v, doc, n, NULL, path, 0, INT64_C(1) << 22, true);
        if (rc)
            return rc;
        m->q.r[i] = (double)v;
        m->q.src[i] = LLMMEM__QS_PER_LAYER;
        return 0;
    }
    if (d->type == LLMMEM__QT_LIST) {
        int rc = read_list(&m->q.v[i], doc, n, path, match);
        if (rc)
            return rc;
    } else if (d->type == LLMMEM__QT_BOOL && *match && t == LLMMEM__J_STRING) {
        m->q.v[i] = strcmp(llmmem__json_string(n), match) == 0; /* "name=value": a string or a boolean */
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
    const llmmem__jnode *n = first_key(obj, m->fam->q[i].keys, key, sizeof key, NULL, 0);
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

typedef struct lists {
    const llmmem__jnode *mixer; /* array or string, NULL when absent */
    const llmmem__jnode *dense; /* FR_STEP: indices that stay dense */
    const llmmem__jnode *ffn;   /* the feed-forward of each layer (mlp_layer_types), NULL when absent */
    char mixer_path[96], dense_path[96], ffn_path[96];
} lists;

static int mixer_at(int *mx, int *ff, struct llmmem_model *m, const llmmem__json *doc, const lists *ls,
                    const llmmem__jnode **it, int64_t i)
{
    const llmmem__arch *f = m->fam;
    int rc;
    if ((rc = llmmem__registry_ffn_of(ff, m, i)))
        return rc;
    if (!ls->mixer)
        return llmmem__registry_mixer_of(mx, m, i);
    const char *v;
    size_t vn;
    if (llmmem__json_type(ls->mixer) == LLMMEM__J_STRING) {
        v = llmmem__json_string(ls->mixer) + i;
        vn = 1;
    } else {
        v = llmmem__json_string(*it);
        if (!v)
            return llmmem__json_error_at(doc, *it, LLMMEM_E_SCHEMA, ls->mixer_path, "expected a string entry");
        vn = strlen(v);
        *it = llmmem__json_next(*it);
    }
    if (!map_value(f->mixer.map, v, vn, mx, ff))
        return llmmem__json_error_at(doc, ls->mixer, LLMMEM_E_UNSUPPORTED, ls->mixer_path,
                                     "layer %lld is \"%.*s\": not a layer kind of %s (%s)", (long long)i,
                                     (int)vn, v, f->type, f->mixer.map);
    return 0;
}

/* The feed-forward of layer i from the per-layer list ("dense=0,sparse=1"). */
static int ffn_at(int *ff, const llmmem__arch *f, const llmmem__json *doc, const lists *ls,
                  const llmmem__jnode **it, int64_t i)
{
    const char *v = llmmem__json_string(*it);
    if (!v)
        return llmmem__json_error_at(doc, *it, LLMMEM_E_SCHEMA, ls->ffn_path, "expected a string entry");
    int unused = 0;
    if (!map_value(f->ffn.map, v, strlen(v), ff, &unused))
        return llmmem__json_error_at(doc, ls->ffn, LLMMEM_E_UNSUPPORTED, ls->ffn_path,
                                     "layer %lld is \"%s\": not a feed-forward kind of %s (%s)", (long long)i, v,
                                     f->type, f->ffn.map);
    *it = llmmem__json_next(*it);
    return 0;
}

static int walk_layers(struct llmmem_model *m, const llmmem__json *doc, const lists *ls, const uint8_t *dense)
{
    const llmmem__jnode *it = ls->mixer && llmmem__json_type(ls->mixer) == LLMMEM__J_ARRAY
                                  ? llmmem__json_first(ls->mixer)
                                  : NULL;
    const llmmem__jnode *fit = ls->ffn ? llmmem__json_first(ls->ffn) : NULL;
    memset(m->layers_of, 0, sizeof m->layers_of);
    for (int64_t i = 0; i < m->num_layers; i++) {
        int mx, ff;
        int rc = mixer_at(&mx, &ff, m, doc, ls, &it, i);
        if (rc || (ls->ffn && (rc = ffn_at(&ff, m->fam, doc, ls, &fit, i))))
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

int llmmem__read_layer_lists(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *obj,
                             const char *prefix)
{
    const llmmem__arch *f = m->fam;
    lists ls;
    memset(&ls, 0, sizeof ls);
    ls.mixer = list_node(obj, f->mixer.list, ls.mixer_path, sizeof ls.mixer_path, prefix);
    ls.dense = f->ffn.rule == LLMMEM__FR_STEP && !f->ffn.map
                   ? list_node(obj, f->ffn.list, ls.dense_path, sizeof ls.dense_path, prefix)
                   : NULL;
    ls.ffn = f->ffn.map ? list_node(obj, f->ffn.list, ls.ffn_path, sizeof ls.ffn_path, prefix) : NULL;
    if (!ls.mixer && !ls.dense && !ls.ffn)
        return 0;
    int64_t L = m->num_layers;
    if (ls.ffn && llmmem__json_type(ls.ffn) != LLMMEM__J_ARRAY)
        return llmmem__json_error_at(doc, ls.ffn, LLMMEM_E_SCHEMA, ls.ffn_path, "expected an array of layer kinds");
    if (ls.ffn && llmmem__json_array_size(ls.ffn) != L)
        return llmmem__json_error_at(doc, ls.ffn, LLMMEM_E_INCONSISTENT, ls.ffn_path,
                                     "has %d entries but num_hidden_layers is %lld", llmmem__json_array_size(ls.ffn),
                                     (long long)L);
    if (ls.mixer) {
        int t = llmmem__json_type(ls.mixer);
        int64_t n = t == LLMMEM__J_ARRAY    ? llmmem__json_array_size(ls.mixer)
                    : t == LLMMEM__J_STRING ? (int64_t)strlen(llmmem__json_string(ls.mixer))
                                            : -1;
        if (n < 0)
            return llmmem__json_error_at(doc, ls.mixer, LLMMEM_E_SCHEMA, ls.mixer_path,
                                         "expected an array of layer kinds");
        if (n != L)
            return llmmem__json_error_at(doc, ls.mixer, LLMMEM_E_INCONSISTENT, ls.mixer_path,
                                         "has %lld entries but num_hidden_layers is %lld", (long long)n,
                                         (long long)L);
    }
    uint8_t *dense = NULL;
    if (ls.dense) {
        dense = calloc((size_t)(L / 8 + 1), 1);
        if (!dense)
            return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", ls.dense_path);
        int rc = index_list(dense, L, doc, ls.dense, ls.dense_path);
        if (rc) {
            free(dense);
            return rc;
        }
    }
    int rc = walk_layers(m, doc, &ls, dense);
    free(dense);
    return rc;
}
