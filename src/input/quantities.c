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
    [LLMMEM__QT_INT] = {-(INT64_C(1) << 40), INT64_C(1) << 40},
    [LLMMEM__QT_AUTO] = {1, INT64_C(1) << 22},   [LLMMEM__QT_BOOL] = {0, 1},
    [LLMMEM__QT_REAL] = {0, 0},                  [LLMMEM__QT_STR] = {0, 0},
    [LLMMEM__QT_LIST] = {0, INT64_C(1) << 22}, /* each entry (and one number for every layer) */
    [LLMMEM__QT_LEN] = {1, 100000},
};

/* Whether an item of a list of names is a number ("compressed|4": sep '|'),
 * or of a map ("M=4,*=0": sep ',', the part before '=') is a number, or, with
 * `number` false, one character long. */
static bool any_item(const char *list, char sep, bool number)
{
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, sep);
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        size_t kn = eq ? (size_t)(eq - p) : n;
        bool digits = kn > 0;
        for (size_t j = 0; j < kn; j++)
            digits &= p[j] >= '0' && p[j] <= '9';
        if (number ? digits : kn == 1)
            return true;
        if (!end)
            break;
        p = end + 1;
    }
    return false;
}

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

/* QT_LIST (registry.h): with choices, how many entries are among them (an
 * integer entry by its decimal text, where a choice is a number); without,
 * the sum of its integer entries. */
static int read_list(int64_t *out, const llmmem__qdef *d, const llmmem__json *doc, const llmmem__jnode *n,
                     const char *path)
{
    bool numbers = any_item(d->choices, '|', true);
    if (llmmem__json_type(n) != LLMMEM__J_ARRAY)
        return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "expected an array of %s",
                                     !d->choices ? "integers (one per layer) or one number"
                                     : numbers   ? "strings or integers (one per layer)"
                                                 : "strings (one per layer)");
    int64_t sum = 0;
    for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it)) {
        int64_t v = 0;
        const char *s = llmmem__json_string(it);
        char num[24];
        if (d->choices && !s && numbers && llmmem__json_type(it) == LLMMEM__J_NUMBER) {
            int rc = llmmem__json_read_i64(&v, doc, it, NULL, path, -(INT64_C(1) << 40), INT64_C(1) << 40, true);
            if (rc)
                return rc;
            snprintf(num, sizeof num, "%lld", (long long)v);
            s = num;
        }
        if (d->choices && !s)
            return llmmem__json_error_at(doc, it, LLMMEM_E_SCHEMA, path, "expected a string%s entry",
                                         numbers ? " or integer" : "");
        int rc = d->choices ? 0
                            : llmmem__json_read_i64(&v, doc, it, NULL, path, 0, qbounds[LLMMEM__QT_LIST].hi, true);
        if (rc)
            return rc;
        sum += d->choices ? choice_of(d->choices, s, strlen(s)) > 0 : v; /* at most 2^22 x 2^25 entries */
    }
    *out = sum;
    return 0;
}

/* QT_LEN: the length of an array or a string, within the type's bounds. */
static int read_len(int64_t *out, const llmmem__json *doc, const llmmem__jnode *n, const char *path)
{
    int t = llmmem__json_type(n);
    if (t != LLMMEM__J_ARRAY && t != LLMMEM__J_STRING)
        return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "expected an array or a string");
    *out = t == LLMMEM__J_STRING ? (int64_t)strlen(llmmem__json_string(n)) : llmmem__json_array_size(n);
    const bounds *b = &qbounds[LLMMEM__QT_LEN];
    if (*out < b->lo || *out > b->hi)
        return llmmem__json_error_at(doc, n, LLMMEM_E_OUT_OF_RANGE, path, "length %lld is out of [%lld, %lld]",
                                     (long long)*out, (long long)b->lo, (long long)b->hi);
    return 0;
}

/* The item of an array by its decimal index (NULL if out of range). */
static const llmmem__jnode *array_item(const llmmem__jnode *arr, const char *key, size_t n)
{
    int64_t idx = 0;
    if (n == 0 || n > 9)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (key[i] < '0' || key[i] > '9')
            return NULL;
        idx = idx * 10 + (key[i] - '0');
    }
    const llmmem__jnode *it = llmmem__json_first(arr);
    while (it && idx-- > 0)
        it = llmmem__json_next(it);
    return it;
}

/* The node of a key ("a.b" reads member b of object a, or item b of array a;
 * an absent or null parent means the key is absent). */
static const llmmem__jnode *lookup(const llmmem__jnode *obj, const char *key, size_t n)
{
    char buf[96];
    if (llmmem__json_type(obj) == LLMMEM__J_ARRAY)
        return memchr(key, '.', n) ? NULL : array_item(obj, key, n);
    const char *dot = memchr(key, '.', n);
    if (!dot)
        return n >= sizeof buf ? NULL : llmmem__json_getn(obj, key, n);
    size_t pn = (size_t)(dot - key);
    if (pn >= sizeof buf)
        return NULL;
    memcpy(buf, key, pn);
    buf[pn] = '\0';
    const llmmem__jnode *parent = llmmem__json_get(obj, buf);
    int t = llmmem__json_type(parent);
    if (!parent || (t != LLMMEM__J_OBJECT && t != LLMMEM__J_ARRAY))
        return NULL;
    return lookup(parent, dot + 1, n - pn - 1);
}

/* The first present key of "k1|k2|...": its node and its name (*at: the end
 * of keys, or a copy into buf); *count is set when the key is "k#" (its items
 * are counted). Imports ("@part.sym") and per_layer_config attributes
 * ("~attr") are not keys of the object. */
static const llmmem__jnode *first_key(const llmmem__jnode *obj, const char *keys, const char **at, char *name,
                                      size_t cap, bool *count)
{
    for (const char *p = keys; *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        bool hash = n > 0 && p[n - 1] == '#';
        const llmmem__jnode *node = p[0] == '@' || p[0] == '~' ? NULL : lookup(obj, p, hash ? n - 1 : n);
        if (node) {
            if (!bar && !hash && n < cap) {
                *at = p; /* the last of the keys: no copy */
            } else {
                llmmem__str_cat(name, cap, &(llmmem__str){p, hash ? n - 1 : n}, 1);
                *at = name;
            }
            if (count)
                *count = hash;
            return node;
        }
        if (!bar)
            break;
        p = bar + 1;
    }
    return NULL;
}

/* One integer of a quantity (a list item included) within its type's bounds. */
static int read_int(int64_t *out, const llmmem__qdef *d, const llmmem__json *doc, const llmmem__jnode *n,
                    const char *path)
{
    int t = LLMMEM__QT_BASE(d->type);
    if (t == LLMMEM__QT_BOOL) {
        bool b = false;
        int rc = llmmem__json_read_bool(&b, doc, n, NULL, path, true);
        *out = b;
        return rc;
    }
    return llmmem__json_read_i64(out, doc, n, NULL, path, qbounds[t].lo, qbounds[t].hi, true);
}

static int read_one(llmmem__qvals *q, const char *what, const llmmem__qdef *d, int i, const llmmem__json *doc,
                    const llmmem__jnode *obj, const char *prefix)
{
    char buf[96], joined[160];
    const char *key;
    bool count = false;
    const llmmem__jnode *n = first_key(obj, d->keys, &key, buf, sizeof buf, &count);
    if (!n)
        return 0;
    const char *path = key; /* the key is the path at the top level */
    if (!prefix || *prefix) {
        llmmem__str_join(joined, sizeof joined, prefix, key, (const char *)NULL);
        path = joined;
    }
    int t = llmmem__json_type(n);
    if (count && t != LLMMEM__J_NULL) { /* "k#": items of a list, 1 for a scalar */
        q->v[i] = t == LLMMEM__J_ARRAY ? llmmem__json_array_size(n) : 1;
        q->src[i] = LLMMEM__QS_GIVEN;
        return 0;
    }
    if (t == LLMMEM__J_NULL) {
        if (!d->nul)
            return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path,
                                         "null: %s needs a value here", what);
        q->src[i] = LLMMEM__QS_NULL;
        return 0;
    }
    if (t == LLMMEM__J_ARRAY && (d->type & LLMMEM__QT_LAYERWISE)) { /* one value per layer */
        int64_t best = 0;
        bool any = false;
        for (const llmmem__jnode *it = llmmem__json_first(n); it; it = llmmem__json_next(it)) {
            int64_t v = 0;
            int rc = read_int(&v, d, doc, it, path);
            if (rc)
                return rc;
            best = !any || v > best ? v : best;
            any = true;
        }
        if (!any)
            return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "an empty list");
        q->v[i] = best;
        q->src[i] = LLMMEM__QS_LIST;
        return 0;
    }
    int type = LLMMEM__QT_BASE(d->type), rc = 0;
    const char *s = llmmem__json_string(n);
    if (type == LLMMEM__QT_AUTO && s && !strcmp(s, "auto"))
        return 0; /* the class computes it: the entry's default */
    if (type == LLMMEM__QT_LIST && t == LLMMEM__J_NUMBER && !d->choices) {
        int64_t v = 0; /* one number for every layer: r x L at each count */
        if ((rc = read_int(&v, d, doc, n, path)))
            return rc;
        q->r[i] = (double)v;
        q->src[i] = LLMMEM__QS_PER_LAYER;
        return 0;
    }
    if (type == LLMMEM__QT_LIST) {
        rc = read_list(&q->v[i], d, doc, n, path);
    } else if (type == LLMMEM__QT_LEN) {
        rc = read_len(&q->v[i], doc, n, path);
    } else if (type == LLMMEM__QT_REAL) {
        rc = llmmem__json_read_f64(&q->r[i], doc, n, NULL, path, -1e18, 1e18, true);
    } else if (type == LLMMEM__QT_STR && !s) {
        rc = llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, path, "expected a string");
    } else if ((type == LLMMEM__QT_STR || type == LLMMEM__QT_BOOL) && s && d->choices) {
        int64_t k = choice_of(d->choices, s, strlen(s)); /* BOOL: true when among the choices */
        q->v[i] = type == LLMMEM__QT_STR ? k : k > 0;
    } else {
        rc = read_int(&q->v[i], d, doc, n, path);
    }
    if (rc)
        return rc;
    q->src[i] = LLMMEM__QS_GIVEN;
    return 0;
}

int llmmem__read_qvals(llmmem__qvals *q, const llmmem__qdef *defs, int n, const char *what,
                       const llmmem__json *doc, const llmmem__jnode *obj, const char *prefix)
{
    for (int i = 0; i < n; i++) {
        if (!defs[i].keys)
            continue;
        int rc = read_one(q, what, &defs[i], i, doc, obj, prefix);
        if (rc)
            return rc;
    }
    return 0;
}

int llmmem__read_quantities(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *obj,
                            const char *prefix)
{
    return llmmem__read_qvals(&m->q, m->fam->q, m->fam->nq, m->model_type, doc, obj, prefix);
}

/* The node a quantity was read from (NULL when it took its default). */
const llmmem__jnode *llmmem__quantity_node(const struct llmmem_model *m, const char *sym,
                                           const llmmem__jnode *obj, char *path, size_t cap, const char *prefix)
{
    int i;
    if (!llmmem__qvals_find(&m->q, sym, strlen(sym), &i) || !m->fam->q[i].keys)
        return NULL;
    char buf[96];
    const char *key = NULL;
    const llmmem__jnode *n = first_key(obj, m->fam->q[i].keys, &key, buf, sizeof buf, NULL);
    if (n)
        llmmem__str_join(path, cap, prefix, key, (const char *)NULL);
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
    if (llmmem__kv_heads_divide(m) && m->num_kv_heads > 0 && m->num_heads % m->num_kv_heads != 0) {
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

/* A per-layer list of kinds: a pattern string (one character a layer, where
 * the map has one-character values) or an array, plain or run-length
 * ([[["global", "local"], 12], ...] expanded); a cyclic one repeats over the
 * layers (recurrent_gemma's block_types: (block_types * 100)[:L]). */
typedef struct slist {
    const llmmem__jnode *node;  /* NULL when absent */
    const char *map;            /* its values -> kinds */
    bool cycle;
    const char *what;           /* "layer", "feed-forward": for messages */
    char path[96];
    const llmmem__jnode **item; /* the entries of an array, NULL for a pattern string */
    int64_t n;                  /* entries */
} slist;

static int run_length(slist *l, int64_t cap, const llmmem__json *doc)
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
            for (const llmmem__jnode *it = llmmem__json_first(kinds); it; it = llmmem__json_next(it), l->n++)
                if (l->n < cap)
                    l->item[l->n] = it;
    }
    return 0;
}

/* Reads a list; it must have num_hidden_layers entries (a cyclic one at least one). */
static int read_slist(slist *l, int64_t L, const llmmem__json *doc)
{
    int t = llmmem__json_type(l->node);
    if (t == LLMMEM__J_STRING && any_item(l->map, ',', false)) { /* one character a layer */
        l->n = (int64_t)strlen(llmmem__json_string(l->node));
    } else if (t != LLMMEM__J_ARRAY) {
        return llmmem__json_error_at(doc, l->node, LLMMEM_E_SCHEMA, l->path, "expected an array of layer kinds");
    } else {
        const llmmem__jnode *first = llmmem__json_first(l->node);
        bool runs = llmmem__json_type(first) == LLMMEM__J_ARRAY;
        int64_t cap = runs ? L : llmmem__json_array_size(l->node);
        l->item = calloc((size_t)cap + 1, sizeof *l->item);
        if (!l->item)
            return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", l->path);
        if (runs) {
            int rc = run_length(l, cap, doc);
            if (rc)
                return rc;
        } else {
            for (const llmmem__jnode *it = first; it; it = llmmem__json_next(it))
                l->item[l->n++] = it;
        }
    }
    if (l->cycle && l->n < 1)
        return llmmem__json_error_at(doc, l->node, LLMMEM_E_INCONSISTENT, l->path,
                                     "is empty: it repeats over the layers");
    if (!l->cycle && l->n != L)
        return llmmem__json_error_at(doc, l->node, LLMMEM_E_INCONSISTENT, l->path,
                                     "has %lld entries but num_hidden_layers is %lld", (long long)l->n,
                                     (long long)L);
    return 0;
}

/* The kinds of layer i in list l, through its map: a string entry is matched
 * whole; an integer (a boolean as 1 or 0) by its decimal text, where the map
 * has numbers. */
static int kind_at(int *mx, int *ff, const slist *l, const llmmem__arch *f, const llmmem__json *doc, int64_t i)
{
    const char *v;
    size_t vn;
    char num[32];
    if (!l->item) {
        v = llmmem__json_string(l->node) + i % l->n;
        vn = 1;
    } else {
        const llmmem__jnode *it = l->item[i % l->n];
        int t = llmmem__json_type(it);
        double x = t == LLMMEM__J_NUMBER ? llmmem__json_number(it) : 0;
        v = llmmem__json_string(it);
        if (t == LLMMEM__J_BOOL && any_item(l->map, ',', true)) {
            v = llmmem__json_true(it) ? "1" : "0";
        } else if (t == LLMMEM__J_NUMBER && any_item(l->map, ',', true)) {
            if (x > -9e15 && x < 9e15 && x == (double)(int64_t)x)
                snprintf(num, sizeof num, "%lld", (long long)x);
            else
                snprintf(num, sizeof num, "%g", x);
            v = num;
        }
        if (!v)
            return llmmem__json_error_at(doc, it, LLMMEM_E_SCHEMA, l->path, "expected a string entry");
        vn = strlen(v);
    }
    if (!map_value(l->map, v, vn, mx, ff))
        return llmmem__json_error_at(doc, l->node, LLMMEM_E_UNSUPPORTED, l->path,
                                     "layer %lld is \"%.*s\": not a %s kind of %s (%s)", (long long)i, (int)vn, v,
                                     l->what, f->type, l->map);
    return 0;
}

typedef struct lists {
    slist mixer, ffn;           /* per-layer kinds */
    const llmmem__jnode *dense; /* FR_STEP: indices that stay dense; FR_MOE_LIST: indices that are MoE */
    const llmmem__jnode *idx;   /* mixer.idx: the layers that are mixer.on (when no mixer list) */
    const llmmem__jnode *plc;   /* per_layer_config: {"<layer>": {key: value}} */
    const llmmem__jnode *item[LLMMEM__MAX_VSYMS]; /* the current item of each LAYERWISE list */
    char dense_path[96], idx_path[96], plc_path[96];
} lists;

/* Whether "k1|k2|..." names k. */
static bool has_key(const char *keys, const char *k) { return choice_of(keys, k, strlen(k)) > 0; }

/* The quantity a per_layer_config attribute overrides: a LAYERWISE one keyed
 * by the attribute (or by "~attribute": per_layer_config only); -2 when only
 * a quantity that does not vary by layer has that key; -1 when none has. */
static int attr_quantity(const llmmem__arch *f, const char *attr)
{
    char tilde[80];
    snprintf(tilde, sizeof tilde, "~%s", attr);
    int plain = -1;
    for (int q = 0; q < f->nq; q++) {
        bool own = has_key(f->q[q].keys, tilde), named = has_key(f->q[q].keys, attr);
        if ((own || named) && (f->q[q].type & LLMMEM__QT_LAYERWISE))
            return q;
        if (named)
            plain = -2;
    }
    return plain;
}

/* What the config gives for layer i: the items of the LAYERWISE lists and
 * the overrides of per_layer_config["i"] (keys zero-padded or not). */
static int layer_given(llmmem__layer_given *g, struct llmmem_model *m, const llmmem__json *doc, lists *ls,
                       int64_t i)
{
    const llmmem__variants *vs = &m->variants;
    g->n = 0;
    for (int s = 0; s < vs->nsym; s++) {
        if (!ls->item[s])
            continue;
        int q = vs->sym[s];
        char path[128];
        snprintf(path, sizeof path, "%s[%lld]", m->fam->q[q].keys, (long long)i);
        int64_t v = 0;
        int rc = read_int(&v, &m->fam->q[q], doc, ls->item[s], path);
        if (rc)
            return rc;
        g->sym[g->n] = (uint8_t)q;
        g->v[g->n++] = v;
        ls->item[s] = llmmem__json_next(ls->item[s]);
    }
    if (!ls->plc)
        return 0;
    for (const llmmem__jnode *e = llmmem__json_first(ls->plc); e; e = llmmem__json_next(e)) {
        const char *k = llmmem__json_key(e);
        char *end = NULL;
        long long idx = strtoll(k, &end, 10);
        if (!*k || *end || idx < 0 || idx >= m->num_layers)
            return llmmem__json_error_at(doc, e, LLMMEM_E_SCHEMA, ls->plc_path,
                                         "key \"%s\" is not a layer index in [0, %lld)", k,
                                         (long long)m->num_layers);
        if (idx != i)
            continue;
        if (llmmem__json_type(e) != LLMMEM__J_OBJECT)
            return llmmem__json_error_at(doc, e, LLMMEM_E_SCHEMA, ls->plc_path, "layer %s: expected an object",
                                         k);
        for (const llmmem__jnode *a = llmmem__json_first(e); a; a = llmmem__json_next(a)) {
            const char *attr = llmmem__json_key(a);
            int q = attr_quantity(m->fam, attr);
            char path[160];
            snprintf(path, sizeof path, "%s.%s.%s", ls->plc_path, k, attr);
            if (!strcmp(attr, "skip") || q == -2)
                return llmmem__json_error_at(doc, a, LLMMEM_E_UNSUPPORTED, path,
                                             "%s does not describe \"%s\" layer by layer", m->fam->type,
                                             attr);
            if (q < 0)
                continue; /* an attribute no parameter depends on (rope_parameters, sliding_window) */
            int j = 0;
            while (j < g->n && g->sym[j] != q)
                j++;
            if (j == LLMMEM__MAX_VSYMS)
                continue;
            int64_t v = 0;
            int rc = read_int(&v, &m->fam->q[q], doc, a, path);
            if (rc)
                return rc;
            g->sym[j] = (uint8_t)q;
            g->v[j] = v;
            if (j == g->n)
                g->n++;
        }
    }
    return 0;
}

static int walk_layers(struct llmmem_model *m, const llmmem__json *doc, lists *ls, const uint8_t *dense,
                       const uint8_t *on)
{
    const llmmem__arch *f = m->fam;
    bool moe_list = f->ffn.rule == LLMMEM__FR_MOE_LIST && ls->dense;
    memset(m->layers_of, 0, sizeof m->layers_of);
    for (int64_t i = 0; i < m->num_layers; i++) {
        int mx, ff, unused;
        llmmem__layer_given g;
        int rc = llmmem__registry_ffn_of(&ff, m, i);
        if (rc)
            return rc;
        if (ls->mixer.node)
            rc = kind_at(&mx, &ff, &ls->mixer, f, doc, i);
        else if (on)
            mx = (on[i / 8] >> (i % 8) & 1) ? f->mixer.on : f->mixer.off;
        else
            rc = llmmem__registry_mixer_of(&mx, m, i);
        /* a feed-forward list decides over the mixer list's "/ffn" */
        if (!rc && ls->ffn.node)
            rc = kind_at(&ff, &unused, &ls->ffn, f, doc, i);
        if (rc || (rc = layer_given(&g, m, doc, ls, i)))
            return rc;
        bool listed = dense && (dense[i / 8] >> (i % 8) & 1);
        if (moe_list)
            ff = listed && m->num_experts > 0 ? LLMMEM__FF_MOE : LLMMEM__FF_DENSE;
        else if (listed && ff == LLMMEM__FF_MOE)
            ff = LLMMEM__FF_DENSE;
        if ((rc = llmmem__registry_layer_add_at(m, i, mx, ff, &g)))
            return rc;
    }
    m->layers_listed = true;
    return 0;
}

/* The node of a list key ("a|b": the first present, non-null, non-empty one,
 * or with `empty_ok` the first present, non-null one; "x.y" reads a sub-object). */
static const llmmem__jnode *list_node(const llmmem__jnode *obj, const char *keys, bool empty_ok, char *path,
                                      size_t cap, const char *prefix)
{
    for (const char *p = keys; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        const llmmem__jnode *node = lookup(obj, p, n);
        int t = llmmem__json_type(node);
        if (node && t != LLMMEM__J_NULL &&
            (empty_ok || !(t == LLMMEM__J_ARRAY && llmmem__json_array_size(node) == 0))) {
            snprintf(path, cap, "%s%.*s", prefix, (int)n, p);
            return node;
        }
        if (!bar)
            break;
        p = bar + 1;
    }
    return NULL;
}

/* The LAYERWISE quantities given as lists: each must have one item per layer. */
static int layerwise_lists(lists *ls, struct llmmem_model *m, const llmmem__json *doc,
                           const llmmem__jnode *obj, const char *prefix, bool *any)
{
    const llmmem__variants *vs = &m->variants;
    for (int s = 0; s < vs->nsym; s++) {
        int q = vs->sym[s];
        ls->item[s] = NULL;
        if (m->q.src[q] != LLMMEM__QS_LIST)
            continue;
        char path[96];
        const llmmem__jnode *n = list_node(obj, m->fam->q[q].keys, false, path, sizeof path, prefix);
        if (!n)
            continue;
        if (llmmem__json_array_size(n) != m->num_layers)
            return llmmem__json_error_at(doc, n, LLMMEM_E_INCONSISTENT, path,
                                         "has %d entries but num_hidden_layers is %lld",
                                         llmmem__json_array_size(n), (long long)m->num_layers);
        ls->item[s] = llmmem__json_first(n);
        *any = true;
    }
    return 0;
}

static int slist_at(slist *l, const llmmem__pattern *p, const char *what, const llmmem__jnode *obj,
                    const char *prefix)
{
    l->map = p->map;
    l->what = what;
    l->cycle = p->cycle != 0;
    /* an empty list is absent, but a cyclic one cannot repeat: an error */
    l->node = p->map ? list_node(obj, p->list, l->cycle, l->path, sizeof l->path, prefix) : NULL;
    return l->node != NULL;
}

static int bitmap(uint8_t **out, int64_t L, int base, const llmmem__json *doc, const llmmem__jnode *n,
                  const char *path)
{
    if (!n)
        return 0;
    *out = calloc((size_t)(L / 8 + 1), 1);
    if (!*out)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", path);
    return index_list(*out, L, base, doc, n, path);
}

static int read_lists(lists *ls, uint8_t **dense, uint8_t **on, struct llmmem_model *m, const llmmem__json *doc)
{
    int64_t L = m->num_layers;
    int rc;
    if ((ls->mixer.node && (rc = read_slist(&ls->mixer, L, doc))) ||
        (ls->ffn.node && (rc = read_slist(&ls->ffn, L, doc))) ||
        (rc = bitmap(dense, L, 0, doc, ls->dense, ls->dense_path)))
        return rc;
    return bitmap(on, L, m->fam->mixer.base, doc, ls->idx, ls->idx_path);
}

int llmmem__read_layer_lists(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *obj,
                             const char *prefix)
{
    const llmmem__arch *f = m->fam;
    lists ls;
    memset(&ls, 0, sizeof ls);
    bool per_layer = false;
    int rc;
    per_layer |= slist_at(&ls.mixer, &f->mixer, "layer", obj, prefix);
    per_layer |= slist_at(&ls.ffn, &f->ffn, "feed-forward", obj, prefix);
    if (!f->ffn.map && (f->ffn.rule == LLMMEM__FR_STEP || f->ffn.rule == LLMMEM__FR_MOE_LIST))
        ls.dense = list_node(obj, f->ffn.list, false, ls.dense_path, sizeof ls.dense_path, prefix);
    if (!ls.mixer.node)
        ls.idx = list_node(obj, f->mixer.idx, true, ls.idx_path, sizeof ls.idx_path, prefix); /* [] = none */
    per_layer |= ls.dense != NULL || ls.idx != NULL;
    if (m->variants.nsym > 0) {
        if ((rc = layerwise_lists(&ls, m, doc, obj, prefix, &per_layer)))
            return rc;
        ls.plc = list_node(obj, "per_layer_config", false, ls.plc_path, sizeof ls.plc_path, prefix);
        if (ls.plc && llmmem__json_type(ls.plc) != LLMMEM__J_OBJECT)
            return llmmem__json_error_at(doc, ls.plc, LLMMEM_E_SCHEMA, ls.plc_path, "expected an object");
        per_layer |= ls.plc != NULL;
    }
    if (!per_layer)
        return 0;
    uint8_t *dense = NULL, *on = NULL;
    rc = read_lists(&ls, &dense, &on, m, doc);
    if (!rc)
        rc = walk_layers(m, doc, &ls, dense, on);
    free(dense);
    free(on);
    free(ls.mixer.item);
    free(ls.ffn.item);
    return rc;
}
