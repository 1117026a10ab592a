/* Counting a model from its registry entry (src/model/registry.h): the
 * quantities not given take their defaults, the canonical ones fill struct
 * llmmem_model for the estimators, the layer pattern is derived where the
 * config did not list it, and the tensors are evaluated into the model's
 * tensor list, whose sums are the parameter counts. */
#include "model/model.h"

#include <stdio.h>
#include <string.h>


void llmmem__qvals_init(llmmem__qvals *q, const llmmem__qdef *d, int n, const llmmem__xcode *x)
{
    q->n = n;
    if (x) { /* the generator made the table (mk/gen_registry.c: the same hash and probes) */
        memcpy(q->slot, x->slot, sizeof q->slot);
        for (int i = 0; i < n; i++) {
            q->sym[i] = d[i].sym;
            q->len[i] = x->len[i];
            q->src[i] = LLMMEM__QS_DEFAULT;
            q->v[i] = 0;
            q->r[i] = 0;
        }
        return;
    }
    memset(q->slot, 0, sizeof q->slot);
    for (int i = 0; i < n; i++) {
        q->sym[i] = d[i].sym;
        q->len[i] = (uint8_t)strlen(d[i].sym);
        q->src[i] = LLMMEM__QS_DEFAULT;
        q->v[i] = 0;
        q->r[i] = 0;
        /* the first of equal names stays the one found, as in a search in order */
        unsigned h = llmmem__qvals_hash(d[i].sym, q->len[i]);
        while (q->slot[h] && !(q->len[q->slot[h] - 1] == q->len[i] && !memcmp(q->sym[q->slot[h] - 1], d[i].sym, q->len[i])))
            h = (h + 1) & (LLMMEM__Q_SLOTS - 1);
        if (!q->slot[h])
            q->slot[h] = (uint8_t)(i + 1);
    }
}

/* Declares the family's quantities in the model (none given yet). */
void llmmem__registry_init(struct llmmem_model *m, const llmmem__arch *f)
{
    m->fam = f;
    m->xc = llmmem__arch_code(f);
    m->family = f->act_family;
    llmmem__qvals_init(&m->q, f->q, f->nq, m->xc);
    memset(m->layers_of, 0, sizeof m->layers_of);
    m->layers_listed = false;
    /* the values and layer counts of the variants are written before they
     * are read (llmmem__registry_layer_add_at) */
    m->variants.n = m->variants.nsym = 0;
    memset(m->variants.sym, 0, sizeof m->variants.sym);
    for (int i = 0; i < f->nq && m->variants.nsym < LLMMEM__MAX_VSYMS; i++)
        if (f->q[i].type & LLMMEM__QT_LAYERWISE)
            m->variants.sym[m->variants.nsym++] = (uint8_t)i;
}

void llmmem__registry_composite(struct llmmem_model *m, const llmmem__composite *c)
{
    memset(&m->mm, 0, sizeof m->mm);
    m->mm.comp = c;
    m->mm.cxc = llmmem__composite_code(c);
    llmmem__qvals_init(&m->mm.q, c->q, c->nq, m->mm.cxc);
}

void llmmem__registry_tower(struct llmmem_model *m, int p, const llmmem__arch *tower)
{
    m->mm.tower[p] = tower;
    m->mm.txc[p] = llmmem__arch_code(tower);
    llmmem__qvals_init(&m->mm.tq[p], tower->q, tower->nq, m->mm.txc[p]);
}

bool llmmem__registry_set(struct llmmem_model *m, const char *sym, int64_t v)
{
    int i;
    if (!llmmem__qvals_find(&m->q, sym, strlen(sym), &i))
        return false;
    m->q.v[i] = v;
    m->q.src[i] = LLMMEM__QS_GIVEN;
    return true;
}

bool llmmem__registry_set_real(struct llmmem_model *m, const char *sym, double v)
{
    int i;
    if (!llmmem__qvals_find(&m->q, sym, strlen(sym), &i))
        return false;
    m->q.r[i] = v;
    m->q.src[i] = LLMMEM__QS_GIVEN;
    return true;
}

/* A real default: a number, or ratio(x, y) of two integer expressions. */
int llmmem__registry_real(double *out, const char *text, const llmmem__qvals *q)
{
    if (llmmem__parse_f64(out, text) == 0)
        return 0;
    size_t n = strlen(text);
    char buf[128];
    if (strncmp(text, "ratio(", 6) != 0 || text[n - 1] != ')' || n - 7 >= sizeof buf)
        return llmmem__error(LLMMEM_E_INTERNAL, "registry: real \"%s\" is not a number or ratio(x, y)", text);
    memcpy(buf, text + 6, n - 7);
    buf[n - 7] = '\0';
    int depth = 0;
    char *comma = NULL;
    for (char *p = buf; *p && !comma; p++) {
        depth += (*p == '(') - (*p == ')');
        if (*p == ',' && depth == 0)
            comma = p;
    }
    if (!comma)
        return llmmem__error(LLMMEM_E_INTERNAL, "registry: \"%s\" needs two arguments", text);
    *comma = '\0';
    int64_t x, y;
    int rc;
    if ((rc = llmmem__expr_eval(&x, buf, q)) || (rc = llmmem__expr_eval(&y, comma + 1, q)))
        return rc;
    *out = y ? (double)x / (double)y : 0.0;
    return 0;
}

/* Quantities not given take their default, in entry order (a default may use
 * the symbols before it), by the entry's code x when it has some; `what`
 * names the model in messages. */
static int defaults_of(llmmem__qvals *q, const llmmem__qdef *defs, int n, const char *what, const llmmem__xcode *x)
{
    for (int i = 0; i < n; i++) {
        if (q->src[i] == LLMMEM__QS_GIVEN || q->src[i] == LLMMEM__QS_LIST)
            continue;
        const llmmem__qdef *d = &defs[i];
        if (q->src[i] == LLMMEM__QS_PER_LAYER) { /* one number for every layer of a per-layer list */
            q->v[i] = (int64_t)q->r[i] * (x ? llmmem__qvals_canon(q, x, LLMMEM__CS_L, 1) : llmmem__qvals_get(q, "L", 1));
            continue;
        }
        const bool nul = q->src[i] == LLMMEM__QS_NULL;
        const char *e = nul ? d->nul : d->def;
        if (!e)
            return llmmem__error(LLMMEM_E_SCHEMA, "model \"%s\": \"%s\" is required", what,
                                 d->keys ? d->keys : d->sym);
        int rc = LLMMEM__QT_BASE(d->type) == LLMMEM__QT_REAL
                     ? llmmem__registry_real(&q->r[i], e, q)
                     : llmmem__expr_run(&q->v[i], x ? (nul ? x->qnul[i] : x->qdef[i]) : LLMMEM__X_TEXT, e, q);
        if (rc)
            return rc;
    }
    return 0;
}

static int defaults(struct llmmem_model *m)
{
    return defaults_of(&m->q, m->fam->q, m->fam->nq, m->model_type, m->xc);
}

/* ---- the registry ---------------------------------------------------------------------- */

static const struct {
    const llmmem__arch *rows;
    const int *count;
} tables[] = {
#define TABLE(t) {t, &t##_count},
    LLMMEM__FAMILY_TABLES(TABLE)
#undef TABLE
};

int llmmem__arch_count(void)
{
    int n = 0;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(tables); i++)
        n += *tables[i].count;
    return n;
}

const llmmem__arch *llmmem__arch_at(int index)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(tables); i++) {
        if (index < *tables[i].count)
            return index >= 0 ? &tables[i].rows[index] : NULL;
        index -= *tables[i].count;
    }
    return NULL;
}

const llmmem__arch *llmmem__arch_find(const char *type)
{
    const int n = llmmem__arch_count();
    if (n == llmmem__xcode_fams_count) {
        /* by halves over the generated order (registry_code.c): the first of
         * equal names, as a search in order finds */
        int lo = 0, hi = n;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (strcmp(llmmem__arch_at(llmmem__arch_by_type[mid])->type, type) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        const llmmem__arch *f = lo < n ? llmmem__arch_at(llmmem__arch_by_type[lo]) : NULL;
        return f && !strcmp(f->type, type) ? f : NULL;
    }
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(tables); i++)
        for (int j = 0; j < *tables[i].count; j++)
            if (strcmp(tables[i].rows[j].type, type) == 0)
                return &tables[i].rows[j];
    return NULL;
}

/* Whether p points into rows[0 .. n). */
static bool within(const void *p, const void *rows, int n, size_t size)
{
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)rows;
    return a >= b && a < b + (size_t)n * size;
}

/* The code the generator made for an entry of `nq` quantities and `nt`
 * tensors, when it matches it. */
static const llmmem__xcode *code_if(const llmmem__xcode *x, int nq, int nt)
{
    return x->nq == nq && x->nt == nt ? x : NULL;
}

const llmmem__xcode *llmmem__arch_code(const llmmem__arch *f)
{
    int base = 0;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(tables); i++) {
        if (within(f, tables[i].rows, *tables[i].count, sizeof *f)) {
            int k = base + (int)(f - tables[i].rows);
            return k < llmmem__xcode_fams_count ? code_if(&llmmem__xcode_fams[k], f->nq, f->nt) : NULL;
        }
        base += *tables[i].count;
    }
    if (within(f, llmmem__towers_multimodal, llmmem__towers_multimodal_count, sizeof *f)) {
        int k = (int)(f - llmmem__towers_multimodal);
        return k < llmmem__xcode_towers_count ? code_if(&llmmem__xcode_towers[k], f->nq, f->nt) : NULL;
    }
    return NULL;
}

const llmmem__xcode *llmmem__composite_code(const llmmem__composite *c)
{
    if (!within(c, llmmem__composites_multimodal, llmmem__composites_multimodal_count, sizeof *c))
        return NULL;
    int k = (int)(c - llmmem__composites_multimodal);
    return k < llmmem__xcode_composites_count ? code_if(&llmmem__xcode_composites[k], c->nq, c->nt) : NULL;
}

const llmmem__arch *llmmem__tower_find(const char *type)
{
    for (int j = 0; j < llmmem__towers_multimodal_count; j++)
        if (strcmp(llmmem__towers_multimodal[j].type, type) == 0)
            return &llmmem__towers_multimodal[j];
    return NULL;
}

int llmmem__tower_count(void) { return llmmem__towers_multimodal_count; }

const llmmem__arch *llmmem__tower_at(int index)
{
    return index >= 0 && index < llmmem__towers_multimodal_count ? &llmmem__towers_multimodal[index] : NULL;
}

const llmmem__composite *llmmem__composite_find(const char *type)
{
    for (int j = 0; j < llmmem__composites_multimodal_count; j++)
        if (strcmp(llmmem__composites_multimodal[j].type, type) == 0)
            return &llmmem__composites_multimodal[j];
    return NULL;
}

int llmmem__composite_count(void) { return llmmem__composites_multimodal_count; }

const llmmem__composite *llmmem__composite_at(int index)
{
    return index >= 0 && index < llmmem__composites_multimodal_count ? &llmmem__composites_multimodal[index]
                                                                     : NULL;
}

/* ---- the canonical quantities, as the estimators read them ----------------- */

/* A canonical quantity's value (its index from the entry's code, else its
 * name), or `def` when the entry has none. */
#define GET(sym, def) (x ? llmmem__qvals_canon(q, x, LLMMEM__CS_##sym, (def)) : llmmem__qvals_get(q, #sym, (def)))
#define REAL(sym, def)                                                                                         \
    (x ? (x->canon[LLMMEM__CS_##sym] >= 0 ? q->r[x->canon[LLMMEM__CS_##sym]] : (def)) : llmmem__qvals_real(q, #sym, (def)))

static void bind(struct llmmem_model *m)
{
    const llmmem__qvals *q = &m->q;
    const llmmem__arch *f = m->fam;
    const llmmem__xcode *x = m->xc;
    m->vocab_size = GET(V, 0);
    m->hidden_size = GET(h, 0);
    m->num_layers = GET(L, 0);
    m->num_heads = GET(a, 1);
    m->num_kv_heads = GET(k, m->num_heads);
    m->head_dim = GET(d, m->num_heads > 0 ? m->hidden_size / m->num_heads : 0);
    m->intermediate_size = GET(f, 4 * m->hidden_size);
    m->max_positions = GET(pos, 2048);
    m->tie_embeddings = GET(tie, 0) != 0;
    m->attention_bias = GET(ab, 0) != 0;
    m->o_bias = GET(ob, m->attention_bias) != 0;
    m->mlp_bias = GET(mb, 0) != 0;
    m->qk_norm = GET(qkn, 0) != 0;
    m->norm = (int)GET(norm, f->norm);
    m->norms_per_layer = (int)GET(npl, 2);
    m->gated_mlp = GET(gated, 1) != 0;
    m->parallel_block = GET(par, 0) != 0;
    m->partial_rotary_factor = REAL(prf, 1.0);
    m->attention_dropout = REAL(pa, 0.0);
    m->hidden_dropout = REAL(ph, 0.0);
    m->embedding_dropout = REAL(pe, 0.0);
    m->final_logit_softcapping = REAL(fsc, 0.0);
    m->attn_logit_softcapping = REAL(asc, 0.0);
    m->num_experts = GET(E, 0);
    m->experts_per_token = GET(K, 0);
    m->moe_intermediate_size = GET(fm, 0);
    m->n_shared_experts = GET(ns, 0);
    m->shared_expert_intermediate_size = GET(fs, 0);
    m->shared_expert_gate = GET(seg, 0) != 0;
    m->q_lora_rank = GET(ql, 0);
    m->kv_lora_rank = GET(kvl, 0);
    m->qk_nope_head_dim = GET(dn, 0);
    m->qk_rope_head_dim = GET(dr, 0);
    m->v_head_dim = GET(dv, 0);
    m->sliding_window = GET(sw, 0);
    m->chunk_size = GET(cw, 0);
    m->ssm.version = GET(ssm_version, 0);
    m->ssm.inner = GET(ssm_inner, 0);
    m->ssm.state = GET(ssm_state, 0);
    m->ssm.groups = GET(ssm_groups, 1);
    m->ssm.heads = GET(ssm_heads, m->ssm.inner);
    m->ssm.conv = GET(ssm_conv, 0);
    m->ssm.dt_rank = GET(ssm_dt_rank, 0);
    m->ssm.chunk = GET(ssm_chunk, 0);
    m->lin.kind = GET(lin_kind, 0);
    m->lin.k_heads = GET(lin_k_heads, 0);
    m->lin.k_dim = GET(lin_k_dim, 0);
    m->lin.v_heads = GET(lin_v_heads, 0);
    m->lin.v_dim = GET(lin_v_dim, 0);
    m->lin.conv = GET(lin_conv, 0);
    m->conv_kernel = GET(conv_L, 0);
    m->ssm_state_dtype = (int)GET(ssm_dtype, 0);
}

/* ---- the layer pattern ---------------------------------------------------------- */

/* A rule's expression e (code `k` of the pattern's: arg, arg2, expr), 0 without one. */
static int eval_or0(int64_t *out, const char *e, const int32_t *code, int k, const llmmem__qvals *q)
{
    *out = 0;
    return e ? llmmem__expr_run(out, code ? code[k] : LLMMEM__X_TEXT, e, q) : 0;
}

/* The index of quantity `sym` (canonical `cs`), false when the entry has none. */
static bool canon_slot(const struct llmmem_model *m, int cs, const char *sym, int *slot)
{
    if (m->xc) {
        *slot = m->xc->canon[cs];
        return *slot >= 0;
    }
    return llmmem__qvals_find(&m->q, sym, strlen(sym), slot);
}

/* The value of the loop symbol `i` lives in the model's table while a rule
 * runs; the entry declares it as a quantity (it is never read from a config). */
static int with_i(struct llmmem_model *m, int *slot)
{
    if (!canon_slot(m, LLMMEM__CS_i, "i", slot))
        return llmmem__error(LLMMEM_E_INTERNAL, "registry %s: an EXPR rule needs the quantity i",
                             m->fam->type);
    return 0;
}

int llmmem__registry_mixer_of(int *kind, struct llmmem_model *m, int64_t i)
{
    const llmmem__pattern *p = &m->fam->mixer;
    const int32_t *code = m->xc ? m->xc->mixer : NULL;
    int64_t a = 0, b = 0, v = 0;
    int rc, slot;
    switch (p->rule) {
    case LLMMEM__MR_SLIDING: *kind = LLMMEM__MX_SLIDING; return 0;
    case LLMMEM__MR_FROM:
        if ((rc = eval_or0(&a, p->arg, code, 0, &m->q)))
            return rc;
        *kind = i >= a ? LLMMEM__MX_SLIDING : LLMMEM__MX_FULL;
        return 0;
    case LLMMEM__MR_PERIODIC:
        if ((rc = eval_or0(&a, p->arg, code, 0, &m->q)) || (rc = eval_or0(&b, p->arg2, code, 1, &m->q)))
            return rc;
        *kind = a > 0 && (i + b) % a == 0 ? p->on : p->off;
        return 0;
    case LLMMEM__MR_EXPR:
        if ((rc = with_i(m, &slot)))
            return rc;
        m->q.v[slot] = i;
        if ((rc = llmmem__expr_run(&v, code ? code[2] : LLMMEM__X_TEXT, p->expr, &m->q)))
            return rc;
        *kind = (int)v;
        return 0;
    default: *kind = LLMMEM__MX_FULL; return 0;
    }
}

int llmmem__registry_ffn_of(int *kind, struct llmmem_model *m, int64_t i)
{
    const llmmem__pattern *p = &m->fam->ffn;
    const int32_t *code = m->xc ? m->xc->ffn : NULL;
    int64_t a = 0, b = 0, v = 0;
    int rc, slot;
    bool moe = m->num_experts > 0;
    switch (p->rule) {
    case LLMMEM__FR_MOE: *kind = moe ? LLMMEM__FF_MOE : LLMMEM__FF_DENSE; return 0;
    case LLMMEM__FR_FIRST_K:
        if ((rc = eval_or0(&a, p->arg, code, 0, &m->q)) || (rc = eval_or0(&b, p->arg2, code, 1, &m->q)))
            return rc;
        *kind = moe && i >= a && (b <= 1 || i % b == 0) ? LLMMEM__FF_MOE : LLMMEM__FF_DENSE;
        return 0;
    case LLMMEM__FR_STEP:     /* the dense-index list is applied by the config reader */
    case LLMMEM__FR_MOE_LIST: /* the MoE-index list too */
        if ((rc = eval_or0(&a, p->arg, code, 0, &m->q)))
            return rc;
        *kind = moe && (a <= 1 || (i + 1) % a == 0) ? LLMMEM__FF_MOE : LLMMEM__FF_DENSE;
        return 0;
    case LLMMEM__FR_EXPR:
        if ((rc = with_i(m, &slot)))
            return rc;
        m->q.v[slot] = i;
        if ((rc = llmmem__expr_run(&v, code ? code[2] : LLMMEM__X_TEXT, p->expr, &m->q)))
            return rc;
        *kind = (int)v;
        return 0;
    default: *kind = LLMMEM__FF_DENSE; return 0;
    }
}

static int layer_kinds(struct llmmem_model *m, int *mixer, int ffn)
{
    if (*mixer < 0 || *mixer >= LLMMEM__MX_COUNT || ffn < 0 || ffn >= LLMMEM__FF_COUNT)
        return llmmem__error(LLMMEM_E_INTERNAL, "registry %s: layer kind (%d, %d) out of range",
                             m->fam->type, *mixer, ffn);
    /* a sliding layer without a window attends to everything, a chunked one
     * without a chunk too */
    if ((*mixer == LLMMEM__MX_SLIDING && m->sliding_window <= 0) ||
        (*mixer == LLMMEM__MX_CHUNKED && m->chunk_size <= 0))
        *mixer = LLMMEM__MX_FULL;
    return 0;
}

int llmmem__registry_layer_add(struct llmmem_model *m, int mixer, int ffn)
{
    int rc = layer_kinds(m, &mixer, ffn);
    if (rc)
        return rc;
    if (m->variants.nsym > 0)
        return llmmem__error(LLMMEM_E_INTERNAL, "registry %s: per-layer quantities need the layer index",
                             m->fam->type);
    m->layers_of[mixer][ffn]++;
    return 0;
}

/* The values of the LAYERWISE quantities at layer i, into out (the model's
 * own values are left as they were): the symbols i and mx, when the entry
 * declares them, hold the layer's index and its mixer kind meanwhile. */
static int layer_values(int64_t *out, struct llmmem_model *m, int64_t i, int mixer,
                        const llmmem__layer_given *g)
{
    llmmem__variants *vs = &m->variants;
    int64_t keep[LLMMEM__MAX_VSYMS], keep_i = 0, keep_mx = 0;
    int slot = -1, mslot = -1, rc = 0;
    if (canon_slot(m, LLMMEM__CS_i, "i", &slot)) {
        keep_i = m->q.v[slot];
        m->q.v[slot] = i;
    }
    if (canon_slot(m, LLMMEM__CS_mx, "mx", &mslot)) {
        keep_mx = m->q.v[mslot];
        m->q.v[mslot] = mixer;
    }
    for (int s = 0; s < vs->nsym; s++)
        keep[s] = m->q.v[vs->sym[s]];
    for (int s = 0; s < vs->nsym && !rc; s++) {
        int q = vs->sym[s];
        int j = 0;
        while (g && j < g->n && g->sym[j] != q)
            j++;
        if (g && j < g->n)
            m->q.v[q] = g->v[j];
        else if (m->q.src[q] == LLMMEM__QS_DEFAULT || m->q.src[q] == LLMMEM__QS_NULL) {
            const bool nul = m->q.src[q] == LLMMEM__QS_NULL;
            rc = llmmem__expr_run(&m->q.v[q], m->xc ? (nul ? m->xc->qnul[q] : m->xc->qdef[q]) : LLMMEM__X_TEXT,
                                  nul ? m->fam->q[q].nul : m->fam->q[q].def, &m->q);
        }
        out[s] = m->q.v[q];
    }
    for (int s = 0; s < vs->nsym; s++)
        m->q.v[vs->sym[s]] = keep[s];
    if (slot >= 0)
        m->q.v[slot] = keep_i;
    if (mslot >= 0)
        m->q.v[mslot] = keep_mx;
    return rc;
}

int llmmem__registry_layer_add_at(struct llmmem_model *m, int64_t i, int mixer, int ffn,
                                  const llmmem__layer_given *given)
{
    llmmem__variants *vs = &m->variants;
    if (vs->nsym == 0)
        return llmmem__registry_layer_add(m, mixer, ffn);
    const int listed = mixer; /* the kind the config or the rule names */
    int rc = layer_kinds(m, &mixer, ffn);
    if (rc)
        return rc;
    if (i == 0) {
        vs->n = 0;
        memset(vs->layers, 0, sizeof vs->layers);
    }
    int64_t v[LLMMEM__MAX_VSYMS];
    if ((rc = layer_values(v, m, i, listed, given)))
        return rc;
    int k = 0;
    while (k < vs->n && memcmp(vs->v[k], v, (size_t)vs->nsym * sizeof v[0]) != 0)
        k++;
    if (k == vs->n) {
        if (vs->n == LLMMEM__MAX_VARIANTS)
            return llmmem__error(LLMMEM_E_UNSUPPORTED,
                                 "model \"%s\": layer %lld makes more than %d distinct layer shapes",
                                 m->model_type, (long long)i, LLMMEM__MAX_VARIANTS);
        memcpy(vs->v[k], v, (size_t)vs->nsym * sizeof v[0]);
        vs->n++;
    }
    vs->layers[k][mixer][ffn]++;
    m->layers_of[mixer][ffn]++;
    return 0;
}

/* The pattern from the entry's rules (the config listed no layers). */
static int pattern_from_rules(struct llmmem_model *m)
{
    memset(m->layers_of, 0, sizeof m->layers_of);
    const int mr = m->fam->mixer.rule, fr = m->fam->ffn.rule;
    if (m->variants.nsym == 0 && (mr == LLMMEM__MR_FULL || mr == LLMMEM__MR_SLIDING) &&
        (fr == LLMMEM__FR_DENSE || fr == LLMMEM__FR_MOE) && m->num_layers > 0) {
        /* rules without the layer index: every layer is the first's */
        int mx, ff, rc;
        if ((rc = llmmem__registry_mixer_of(&mx, m, 0)) || (rc = llmmem__registry_ffn_of(&ff, m, 0)) ||
            (rc = llmmem__registry_layer_add(m, mx, ff)))
            return rc;
        for (int x = 0; x < LLMMEM__MX_COUNT; x++)
            for (int y = 0; y < LLMMEM__FF_COUNT; y++)
                m->layers_of[x][y] *= m->num_layers;
        return 0;
    }
    for (int64_t i = 0; i < m->num_layers; i++) {
        int mx, ff, rc;
        if ((rc = llmmem__registry_mixer_of(&mx, m, i)) || (rc = llmmem__registry_ffn_of(&ff, m, i)) ||
            (rc = llmmem__registry_layer_add_at(m, i, mx, ff, NULL)))
            return rc;
    }
    return 0;
}

static int64_t layers_in(const int64_t (*of)[LLMMEM__FF_COUNT], unsigned where_kinds)
{
    unsigned where = where_kinds & ((1u << LLMMEM__WHERE_SHIFT) - 1), kinds = where_kinds >> LLMMEM__WHERE_SHIFT;
    int64_t n = 0;
    if (where == LLMMEM__W_LAYER) {
        for (int x = 0; x < LLMMEM__MX_COUNT; x++)
            for (int y = 0; y < LLMMEM__FF_COUNT; y++)
                n += of[x][y];
    } else if (where == LLMMEM__W_MIXER) {
        for (int x = 0; x < LLMMEM__MX_COUNT; x++)
            if (kinds & (1u << x))
                for (int y = 0; y < LLMMEM__FF_COUNT; y++)
                    n += of[x][y];
    } else if (where == LLMMEM__W_FFN) {
        for (int y = 0; y < LLMMEM__FF_COUNT; y++)
            if (kinds & (1u << y))
                for (int x = 0; x < LLMMEM__MX_COUNT; x++)
                    n += of[x][y];
    }
    return n;
}

static int64_t layers_where(const struct llmmem_model *m, unsigned where_kinds)
{
    return layers_in(m->layers_of, where_kinds);
}

/* The layers of each kind, as the symbols L_<kind> of the entries that
 * declare them (for the counts of shared blocks: zamba2's adapters). */
static void pattern_counts(struct llmmem_model *m)
{
    static const char *const mx[LLMMEM__MX_COUNT] = {"L_full", "L_sliding", "L_chunked", "L_linear", "L_mamba",
                                                     "L_conv", "L_none", "L_hybrid", "L_sparse"};
    static const char *const ff[LLMMEM__FF_COUNT] = {"L_dense", "L_moe", "L_noffn"};
    static const int cmx[LLMMEM__MX_COUNT] = {LLMMEM__CS_L_full,   LLMMEM__CS_L_sliding, LLMMEM__CS_L_chunked,
                                              LLMMEM__CS_L_linear, LLMMEM__CS_L_mamba,   LLMMEM__CS_L_conv,
                                              LLMMEM__CS_L_none,   LLMMEM__CS_L_hybrid,  LLMMEM__CS_L_sparse};
    static const int cff[LLMMEM__FF_COUNT] = {LLMMEM__CS_L_dense, LLMMEM__CS_L_moe, LLMMEM__CS_L_noffn};
    m->num_sliding_layers = layers_where(m, LLMMEM__W_MIXER | LLMMEM__MX(SLIDING) << LLMMEM__WHERE_SHIFT);
    m->num_moe_layers = layers_where(m, LLMMEM__W_FFN | LLMMEM__FF(MOE) << LLMMEM__WHERE_SHIFT);
    int slot;
    for (int x = 0; x < LLMMEM__MX_COUNT; x++)
        if (canon_slot(m, cmx[x], mx[x], &slot))
            m->q.v[slot] = layers_where(m, LLMMEM__W_MIXER | (1u << x) << LLMMEM__WHERE_SHIFT);
    for (int y = 0; y < LLMMEM__FF_COUNT; y++)
        if (canon_slot(m, cff[y], ff[y], &slot))
            m->q.v[slot] = layers_where(m, LLMMEM__W_FFN | (1u << y) << LLMMEM__WHERE_SHIFT);
}

/* ---- tensors and counts --------------------------------------------------------- */

typedef struct tally {
    llmmem__ovf o;
    uint64_t by_kind[LLMMEM__T_BIAS + 1]; /* weights and biases by the module's kind */
    uint64_t experts_per_layer;           /* routed experts of one MoE layer */
    uint64_t layer_linear;                /* Linear weights + biases + routers, all layers */
    uint64_t largest;
} tally;

/* One tensor row over `layers` layers (1 for W_ONCE), its expressions in q
 * by their code (when, rows, cols, count; NULL: their texts). */
static int eval_row(llmmem__tensor *x, const llmmem__tdef *d, const llmmem__qvals *q, int64_t layers,
                    const char *what, const int32_t *code)
{
    static const int32_t text[4] = {LLMMEM__X_TEXT, LLMMEM__X_TEXT, LLMMEM__X_TEXT, LLMMEM__X_TEXT};
    const int32_t *k = code ? code : text;
    int64_t rows = 0, cols = 1, mult = 1, on = 1;
    int rc;
    if ((d->when && (rc = llmmem__expr_run(&on, k[0], d->when, q))) ||
        (rc = llmmem__expr_run(&rows, k[1], d->rows, q)) ||
        (d->cols && (rc = llmmem__expr_run(&cols, k[2], d->cols, q))) ||
        (d->count && (rc = llmmem__expr_run(&mult, k[3], d->count, q))))
        return rc;
    x->name = d->name;
    x->path = NULL;
    x->kind = (d->flags & LLMMEM__TF_BIAS) ? LLMMEM__T_BIAS : d->kind;
    x->rows = rows;
    x->cols = cols;
    x->linear = (d->flags & LLMMEM__TF_LINEAR) != 0;
    x->layer = d->where != LLMMEM__W_ONCE;
    const char *dot = (d->flags & LLMMEM__TF_PARAM) ? strrchr(d->name, '.') : NULL;
    x->module_len = (int)(dot ? (size_t)(dot - d->name) : strlen(d->name));
    if (!on || rows == 0 || cols == 0 || mult == 0 || layers == 0) {
        x->count = 0;
        return 0;
    }
    if (rows < 0 || cols < 0 || mult < 0)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "model \"%s\": %s has a negative shape (%lld x %lld)", what,
                             d->name, (long long)rows, (long long)cols);
    llmmem__ovf o = {false};
    uint64_t c = llmmem__mul(&o, (uint64_t)mult, (uint64_t)layers);
    if (o.overflow || c > INT64_MAX)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "model \"%s\": %s: count overflows", what, d->name);
    x->count = (int64_t)c;
    return 0;
}

/* DeepSpeed's largest_layer_params: the largest module's own parameters (a
 * Linear's weight and bias, a fused module's parameters together). */
static uint64_t largest_module(const llmmem__tensors *ts)
{
    uint64_t best = 0;
    bool seen[LLMMEM__MAX_TENSORS] = {false}; /* counted with an earlier tensor of its module */
    for (int i = 0; i < ts->n; i++) {
        if (seen[i])
            continue;
        const llmmem__tensor *x = &ts->t[i];
        uint64_t sum = (uint64_t)x->rows * (uint64_t)x->cols;
        for (int j = i + 1; j < ts->n; j++) {
            const llmmem__tensor *y = &ts->t[j];
            if (y->module_len == x->module_len && y->layer == x->layer &&
                !strncmp(x->name, y->name, (size_t)x->module_len)) {
                sum += (uint64_t)y->rows * (uint64_t)y->cols;
                seen[j] = true;
            }
        }
        if (sum > best)
            best = sum;
    }
    return best;
}

static void tally_add(tally *k, const llmmem__tensor *x, const llmmem__tdef *d, int64_t moe_layers)
{
    uint64_t n = llmmem__mul3(&k->o, (uint64_t)x->rows, (uint64_t)x->cols, (uint64_t)x->count);
    k->by_kind[d->kind] = llmmem__add(&k->o, k->by_kind[d->kind], n);
    if (d->kind == LLMMEM__T_EXPERT && moe_layers > 0)
        k->experts_per_layer = llmmem__add(&k->o, k->experts_per_layer, n / (uint64_t)moe_layers);
    /* the Linear parameters of the layers (LoRA all-linear, autocast caches):
     * attention and MLP Linears with their biases and the routers */
    bool lin = ((d->flags & (LLMMEM__TF_LINEAR | LLMMEM__TF_BIAS)) && !(d->flags & LLMMEM__TF_PARAM)) ||
               d->kind == LLMMEM__T_ROUTER;
    if (x->layer && lin && (d->kind == LLMMEM__T_ATTN || d->kind == LLMMEM__T_MLP || d->kind == LLMMEM__T_ROUTER))
        k->layer_linear = llmmem__add(&k->o, k->layer_linear, n);
}

static void set_counts(struct llmmem_model *m, const tally *k)
{
    llmmem__ovf o = k->o;
    m->params_embedding = (int64_t)k->by_kind[LLMMEM__T_EMBED];
    m->params_attention = (int64_t)k->by_kind[LLMMEM__T_ATTN];
    m->params_experts = (int64_t)k->by_kind[LLMMEM__T_EXPERT];
    m->params_mlp = (int64_t)llmmem__add(&o, k->by_kind[LLMMEM__T_MLP], k->by_kind[LLMMEM__T_EXPERT]);
    m->params_router = (int64_t)k->by_kind[LLMMEM__T_ROUTER];
    m->params_norm = (int64_t)k->by_kind[LLMMEM__T_NORM];
    m->params_head = (int64_t)k->by_kind[LLMMEM__T_HEAD];
    m->layer_linear_params = m->num_layers > 0 ? (int64_t)(k->layer_linear / (uint64_t)m->num_layers) : 0;
}

/* Active per token: all but the routed experts a token does not use
 * (formulas.md 1.3: total - moe_layers x (E - top_k) x one expert). */
static void set_active(struct llmmem_model *m, const tally *k, uint64_t total)
{
    llmmem__ovf o = {false};
    uint64_t idle = 0;
    if (m->num_experts > 0 && m->num_moe_layers > 0) {
        int64_t topk = m->experts_per_token > 0 ? m->experts_per_token : 1;
        if (topk > m->num_experts)
            topk = m->num_experts;
        uint64_t one = k->experts_per_layer / (uint64_t)m->num_experts;
        idle = llmmem__mul3(&o, (uint64_t)m->num_moe_layers, (uint64_t)(m->num_experts - topk), one);
    }
    m->params_active = (int64_t)(total - (idle < total ? idle : total));
}

/* Adds a counted row to the list: a row counted once per variant (`merge`)
 * joins the tensor of the same row and shape (rows[] holds each tensor's
 * row); any other row is counted once. */
static int emit(llmmem__tensors *ts, int *rows, const llmmem__tensor *x, int row, const char *what, bool merge)
{
    for (int j = 0; merge && j < ts->n; j++)
        if (rows[j] == row && ts->t[j].rows == x->rows && ts->t[j].cols == x->cols) {
            ts->t[j].count += x->count;
            return 0;
        }
    if (ts->n >= LLMMEM__MAX_TENSORS)
        return llmmem__error(LLMMEM_E_INTERNAL, "registry %s: more than %d tensors", what, LLMMEM__MAX_TENSORS);
    rows[ts->n] = row;
    ts->t[ts->n++] = *x;
    return 0;
}

/* A layer row once per variant, with the variant's values of the LAYERWISE
 * quantities over its layers. */
static int variant_rows(struct llmmem_model *m, int *rows, int row, tally *k)
{
    const llmmem__variants *vs = &m->variants;
    const llmmem__tdef *d = &m->fam->t[row];
    int64_t keep[LLMMEM__MAX_VSYMS];
    for (int s = 0; s < vs->nsym; s++)
        keep[s] = m->q.v[vs->sym[s]];
    int rc = 0;
    for (int v = 0; v < vs->n && !rc; v++) {
        for (int s = 0; s < vs->nsym; s++)
            m->q.v[vs->sym[s]] = vs->v[v][s];
        llmmem__tensor x;
        if (!(rc = eval_row(&x, d, &m->q, layers_in(vs->layers[v], d->where), m->model_type,
                            m->xc ? &m->xc->t[4 * row] : NULL)) &&
            x.count > 0 &&
            !(rc = emit(&m->tensors, rows, &x, row, m->fam->type, true)))
            tally_add(k, &x, d, m->num_moe_layers);
    }
    for (int s = 0; s < vs->nsym; s++)
        m->q.v[vs->sym[s]] = keep[s];
    return rc;
}

/* In a composite, the text model's modules outside its layers move under the
 * composite's paths ("model.embed_tokens" -> "model.language_model.embed_tokens"). */
static void text_path(llmmem__tensor *x, const llmmem__composite *c)
{
    if (!c || x->layer)
        return;
    if (!strncmp(x->name, "model.", 6) && c->text_path && *c->text_path) {
        x->name += 6;
        x->module_len -= 6;
        x->path = c->text_path;
    } else if (c->head_path && *c->head_path) {
        x->path = c->head_path;
    }
}

static int tensors(struct llmmem_model *m)
{
    const llmmem__arch *f = m->fam;
    llmmem__tensors *ts = &m->tensors;
    int rows[LLMMEM__MAX_TENSORS];
    tally k;
    memset(&k, 0, sizeof k);
    ts->n = 0;
    ts->exact = true;
    ts->overflow = false;
    unsigned where = ~0u;
    int64_t where_layers = 0;
    for (int i = 0; i < f->nt; i++) {
        const llmmem__tdef *d = &f->t[i];
        int rc;
        /* W_COUNT: `count` is the row's total over the layers, whatever their variants */
        bool once = d->where == LLMMEM__W_ONCE || d->where == LLMMEM__W_COUNT;
        if (!once && m->variants.n > 0) {
            if ((rc = variant_rows(m, rows, i, &k)))
                return rc;
            continue;
        }
        llmmem__tensor x;
        if (!once && d->where != where) { /* most rows hold the same layers as the row before */
            where = d->where;
            where_layers = layers_where(m, where);
        }
        int64_t layers = once ? 1 : where_layers;
        if ((rc = eval_row(&x, d, &m->q, layers, m->model_type, m->xc ? &m->xc->t[4 * i] : NULL)))
            return rc;
        if (x.count == 0)
            continue;
        text_path(&x, m->mm.comp);
        if ((rc = emit(ts, rows, &x, i, f->type, false)))
            return rc;
        tally_add(&k, &x, d, m->num_moe_layers);
    }
    uint64_t total = 0;
    for (int i = 0; i <= LLMMEM__T_BIAS; i++)
        total = llmmem__add(&k.o, total, k.by_kind[i]);
    m->tower_params = 0;
    if (m->mm.comp && m->mm.comp->causal_lm_text) { /* AutoModelForCausalLM: the text model */
        m->tower_params = m->vision_params;
        m->vision_params = 0;
    }
    total = llmmem__add(&k.o, total, (uint64_t)(m->vision_params > 0 ? m->vision_params : 0));
    if (k.o.overflow || total > (uint64_t)INT64_MAX)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "model \"%s\": parameter count overflows 64 bits (hidden_size %lld, "
                             "num_layers %lld, vocab_size %lld)",
                             m->model_type, (long long)m->hidden_size, (long long)m->num_layers,
                             (long long)m->vocab_size);
    m->params = (int64_t)total;
    set_counts(m, &k);
    set_active(m, &k, total);
    m->largest_module_params = (int64_t)largest_module(ts);
    return 0;
}

/* ---- composites ------------------------------------------------------------------- */

/* The W_ONCE rows of a tower or of the composite into the composite's list,
 * their parameters into *sum. */
static int part_rows(struct llmmem_model *m, const llmmem__tdef *t, int nt, const llmmem__qvals *q,
                     const char *path, int64_t *sum, const char *what, const llmmem__xcode *xc)
{
    llmmem__tensors *ts = &m->mm.tensors;
    llmmem__ovf o = {false};
    uint64_t n = 0;
    for (int i = 0; i < nt; i++) {
        llmmem__tensor x;
        int rc = eval_row(&x, &t[i], q, 1, what, xc ? &xc->t[4 * i] : NULL);
        if (rc)
            return rc;
        if (x.count == 0)
            continue;
        x.layer = false;
        x.path = path;
        if (ts->n >= LLMMEM__MAX_TENSORS)
            return llmmem__error(LLMMEM_E_INTERNAL, "registry %s: more than %d tensors", what,
                                 LLMMEM__MAX_TENSORS);
        ts->t[ts->n++] = x;
        n = llmmem__add(&o, n, llmmem__mul3(&o, (uint64_t)x.rows, (uint64_t)x.cols, (uint64_t)x.count));
    }
    if (o.overflow || n > (uint64_t)INT64_MAX)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "model \"%s\": %s: parameter count overflows",
                             m->model_type, what);
    *sum = (int64_t)n;
    return 0;
}

/* "@text.h", "@vision.h", "@vision": the composite's imports, set before its defaults. */
static int imports(struct llmmem_model *m)
{
    struct llmmem__mm *mm = &m->mm;
    const llmmem__composite *c = mm->comp;
    for (int i = 0; i < c->nq; i++) {
        const char *k = c->q[i].keys;
        if (!k || k[0] != '@')
            continue;
        const char *dot = strchr(k, '.');
        size_t n = dot ? (size_t)(dot - k - 1) : strlen(k + 1);
        const llmmem__qvals *from = NULL;
        bool present = false;
        if (n == 4 && !strncmp(k + 1, "text", 4)) {
            from = &m->q;
            present = true;
        }
        for (int p = 0; p < LLMMEM__MAX_PARTS && !from; p++)
            if (c->parts[p].name && strlen(c->parts[p].name) == n && !strncmp(k + 1, c->parts[p].name, n)) {
                from = &mm->tq[p];
                present = mm->tower[p] != NULL;
            }
        int j = -1;
        if (!from || (dot && present && !llmmem__qvals_find(from, dot + 1, strlen(dot + 1), &j)))
            return llmmem__error(LLMMEM_E_INTERNAL, "registry %s: import \"%s\" names nothing", c->type, k);
        mm->q.v[i] = !dot ? present : (present ? from->v[j] : 0);
        mm->q.r[i] = dot && present ? from->r[j] : 0;
        mm->q.src[i] = LLMMEM__QS_GIVEN;
    }
    return 0;
}

/* The towers (each with its own quantities), then the composite's own rows:
 * their sum is vision_params. */
static int count_parts(struct llmmem_model *m)
{
    struct llmmem__mm *mm = &m->mm;
    const llmmem__composite *c = mm->comp;
    mm->tensors.n = 0;
    mm->tensors.exact = true;
    mm->tensors.overflow = false;
    llmmem__ovf o = {false};
    uint64_t total = 0;
    int rc;
    for (int p = 0; p < LLMMEM__MAX_PARTS; p++) {
        const llmmem__arch *t = mm->tower[p];
        mm->part_params[p] = 0;
        if (!t)
            continue;
        if ((rc = defaults_of(&mm->tq[p], t->q, t->nq, t->type, mm->txc[p])) ||
            (rc = part_rows(m, t->t, t->nt, &mm->tq[p], c->parts[p].path, &mm->part_params[p], t->type,
                            mm->txc[p])))
            return rc;
        total = llmmem__add(&o, total, (uint64_t)mm->part_params[p]);
    }
    if ((rc = imports(m)) || (rc = defaults_of(&mm->q, c->q, c->nq, c->type, mm->cxc)) ||
        (rc = part_rows(m, c->t, c->nt, &mm->q, NULL, &mm->own_params, c->type, mm->cxc)))
        return rc;
    total = llmmem__add(&o, total, (uint64_t)mm->own_params);
    if (o.overflow || total > (uint64_t)INT64_MAX)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "model \"%s\": tower parameters overflow", m->model_type);
    m->vision_params = (int64_t)total;
    return 0;
}

int llmmem__registry_prepare(struct llmmem_model *m)
{
    int rc = defaults(m);
    if (rc)
        return rc;
    bind(m);
    return 0;
}

int llmmem__registry_count(struct llmmem_model *m)
{
    int rc = llmmem__registry_prepare(m);
    if (rc)
        return rc;
    if (m->mm.comp && (rc = count_parts(m)))
        return rc;
    if (!m->layers_listed && (rc = pattern_from_rules(m)))
        return rc;
    pattern_counts(m);
    return tensors(m);
}
