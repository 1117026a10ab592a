/* llmmem_plan_layouts: enumerates every layout of N GPUs (engine, DP x TP x PP
 * x CP x EP, ZeRO stage / FSDP strategy / Megatron options, offload,
 * recompute, micro-batch), rejects the indivisible ones before estimating,
 * estimates the rest, and keeps the top K that fit by the step-time model
 * (steptime.c). Formulas, constants and their sources: docs/planner.md.
 *
 * Allocation: llmmem_plan_new allocates the handle (fixed capacity:
 * LLMMEM__PLAN_MAX_K layouts, the divisor lists and a scratch result); nothing
 * else allocates, so the estimate loop never does. Reentrant: all state is in
 * the handle or on the stack. */
#include "plan/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GLOBAL_BATCH INT64_C(1000000000000)

int llmmem_plan_new(llmmem_plan **out)
{
    if (!out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_plan_new: out is NULL");
    struct llmmem_plan *p = calloc(1, sizeof *p);
    if (!p)
        return llmmem__error(LLMMEM_E_NOMEM, "llmmem_plan_new: out of memory");
    *out = p;
    return LLMMEM_OK;
}

void llmmem_plan_free(llmmem_plan *plan) { free(plan); }

/* Orders layouts: shorter step time first; at equal time, less peak memory;
 * then the one found first. */
static bool before(double t, uint64_t peak, const llmmem__plan_layout *l)
{
    return t < l->time.total_s || (t == l->time.total_s && peak < l->peak_allocated);
}

/* Keeps the layout in p->scratch / c if it is among the top K. */
static void consider(struct llmmem_plan *p, const llmmem_model *m, const struct llmmem_config *c)
{
    const struct llmmem_result *r = &p->scratch;
    llmmem__steptime t;
    llmmem__plan_step_time(&t, m, c, r->v[LLMMEM_R_TRAINABLE_PARAMS - LLMMEM_R_PARAMS].i);
    const uint64_t peak = llmmem__result_u64(r, LLMMEM_R_PEAK_ALLOCATED_BYTES);
    int pos = p->count;
    while (pos > 0 && before(t.total_s, peak, &p->slot[p->order[pos - 1]]))
        pos--;
    if (pos >= p->top_k)
        return;
    int s;
    if (p->count < p->top_k) {
        s = p->count++;
    } else {
        s = p->order[p->top_k - 1];
    }
    memmove(&p->order[pos + 1], &p->order[pos], (size_t)(p->count - 1 - pos) * sizeof p->order[0]);
    p->order[pos] = s;
    llmmem__plan_layout *l = &p->slot[s];
    l->cfg = *c;
    l->cfg.no_applies_check = true; /* another layout than the caller's */
    l->time = t;
    l->peak_allocated = llmmem__result_u64(r, LLMMEM_R_PEAK_ALLOCATED_BYTES);
    l->peak_reserved = llmmem__result_u64(r, LLMMEM_R_PEAK_RESERVED_BYTES);
    l->total = llmmem__result_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
    l->capacity = llmmem__result_u64(r, LLMMEM_R_GPU_MEMORY_BYTES);
    l->peak_phase = r->v[LLMMEM_R_PEAK_PHASE - LLMMEM_R_PARAMS].i;
    if (l->peak_phase >= 0 && l->peak_phase < LLMMEM__PHASES)
        memcpy(l->comp, r->bytes[l->peak_phase], sizeof l->comp);
    else
        memset(l->comp, 0, sizeof l->comp);
}

typedef struct search {
    struct llmmem_plan *p;
    const llmmem_model *m;
    struct llmmem_config c; /* the candidate being built */
    int64_t n, G;
    int64_t hint[3]; /* per recompute mode: the largest micro-batch that fitted last */
} search;

/* Estimates one candidate; 0 or an error that stops the planner. */
static int estimate_one(search *s, bool *oom)
{
    struct llmmem_plan *p = s->p;
    p->estimates++;
    int rc = llmmem_estimate(&p->scratch, s->m, &s->c);
    switch (rc) {
    case LLMMEM_OK: break;
    case LLMMEM_E_UNSUPPORTED: p->rejected[LLMMEM_REJECT_UNSUPPORTED]++; return 0;
    case LLMMEM_E_INCONSISTENT: p->rejected[LLMMEM_REJECT_INDIVISIBLE]++; return 0;
    case LLMMEM_E_OUT_OF_RANGE: /* byte counts overflow: far beyond any GPU */
        *oom = true;
        p->rejected[LLMMEM_REJECT_OOM]++;
        return 0;
    default: return rc;
    }
    if (!p->scratch.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
        *oom = true;
        p->rejected[LLMMEM_REJECT_OOM]++;
        return 0;
    }
    p->feasible++;
    consider(p, s->m, &s->c);
    return 0;
}

/* Probe outcomes of one estimate. */
enum { PROBE_FIT = 0, PROBE_OOM = 1, PROBE_OTHER = 2 };

/* Estimates the candidate in s->c at micro-batch b without counting it:
 * PROBE_FIT / PROBE_OOM, or PROBE_OTHER with *reason set (unsupported,
 * indivisible); < 0 for an error that stops the planner. */
static int probe(search *s, int64_t b, int *reason)
{
    struct llmmem_plan *p = s->p;
    s->c.micro_batch_size = b;
    s->c.grad_accum_steps = s->G / (b * s->c.dp);
    p->estimates++;
    int rc = llmmem_estimate(&p->scratch, s->m, &s->c);
    switch (rc) {
    case LLMMEM_OK:
        if (!p->scratch.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i)
            return PROBE_OOM;
        p->trainable_hint = p->scratch.v[LLMMEM_R_TRAINABLE_PARAMS - LLMMEM_R_PARAMS].i;
        return PROBE_FIT;
    case LLMMEM_E_OUT_OF_RANGE: return PROBE_OOM; /* byte counts overflow: far beyond any GPU */
    case LLMMEM_E_UNSUPPORTED: *reason = LLMMEM_REJECT_UNSUPPORTED; return PROBE_OTHER;
    case LLMMEM_E_INCONSISTENT: *reason = LLMMEM_REJECT_INDIVISIBLE; return PROBE_OTHER;
    default: return rc;
    }
}

/* Could a layout of step time t enter the top K? (Equal times are decided by
 * memory, which needs the estimate.) */
static bool enters(const struct llmmem_plan *p, double t)
{
    return p->count < p->top_k || t <= p->slot[p->order[p->top_k - 1]].time.total_s;
}

/* The micro-batches of the layout in s->c that split the global batch
 * (b x dp divides it) into p->vb, shared by every recompute mode; the others
 * are rejected (LLMMEM_REJECT_BATCH) once per mode. Returns how many. */
static int valid_microbatches(search *s, int modes)
{
    struct llmmem_plan *p = s->p;
    const int64_t dp = s->c.dp;
    int nv = 0;
    for (int bi = 0; bi < p->n_bd; bi++) {
        const int64_t b = p->bd[bi];
        if (b <= s->G / dp && s->G % (b * dp) == 0)
            p->vb[nv++] = b;
    }
    p->rejected[LLMMEM_REJECT_BATCH] += (int64_t)(p->n_bd - nv) * (int64_t)modes;
    return nv;
}

/* What the boundary search knows about one recompute mode: fit = largest
 * index of p->vb that fits (-1: none), bad = smallest known not to (nv:
 * none); linear: the estimator answered something else than fit / OOM. */
typedef struct bracket {
    int fit, bad;
    bool linear;
} bracket;

/* From a fitting start, doubles the step up until one does not fit. */
static int gallop_up(search *s, bracket *k, int nv)
{
    int reason;
    for (int step = 1; k->fit + step < nv; step *= 2) {
        int r = probe(s, s->p->vb[k->fit + step], &reason);
        if (r < 0)
            return r;
        if (r != PROBE_FIT) {
            k->linear = r == PROBE_OTHER;
            k->bad = k->fit + step;
            return 0;
        }
        k->fit += step;
    }
    return 0;
}

/* From a start that does not fit, doubles the step down until one fits. */
static int gallop_down(search *s, bracket *k)
{
    int reason;
    for (int step = 1; k->bad > 0; step *= 2) {
        int at = k->bad - step < 0 ? 0 : k->bad - step;
        int r = probe(s, s->p->vb[at], &reason);
        if (r < 0)
            return r;
        if (r == PROBE_OTHER) {
            k->linear = true;
            return 0;
        }
        if (r == PROBE_FIT) {
            k->fit = at;
            return 0;
        }
        k->bad = at;
    }
    return 0;
}

/* Narrows fit < bad to adjacent indices. */
static int bisect(search *s, bracket *k)
{
    int reason;
    while (!k->linear && k->fit >= 0 && k->bad - k->fit > 1) {
        int mid = k->fit + (k->bad - k->fit) / 2;
        int r = probe(s, s->p->vb[mid], &reason);
        if (r < 0)
            return r;
        if (r == PROBE_OTHER)
            k->linear = true;
        else if (r == PROBE_FIT)
            k->fit = mid;
        else
            k->bad = mid;
    }
    return 0;
}

/* The largest fitting micro-batch of recompute mode ri: start at the boundary
 * this mode had in the previous layout (a hint: neighbouring layouts fit
 * similar micro-batches), then gallop and bisect. */
static int find_boundary(search *s, int ri, int nv, bracket *k)
{
    const int64_t *vb = s->p->vb;
    int h = 0;
    while (h + 1 < nv && vb[h + 1] <= s->hint[ri])
        h++;
    k->fit = -1;
    k->bad = nv;
    k->linear = false;
    int reason;
    int r = probe(s, vb[h], &reason);
    if (r < 0)
        return r;
    if (r == PROBE_OTHER) {
        k->linear = true;
    } else if (r == PROBE_FIT) {
        k->fit = h;
        r = gallop_up(s, k, nv);
    } else {
        k->bad = h;
        r = gallop_down(s, k);
    }
    if (r < 0 || (r = bisect(s, k)) < 0)
        return r;
    if (!k->linear)
        s->hint[ri] = vb[k->fit >= 0 ? k->fit : 0];
    return 0;
}

/* The fallback: estimates each micro-batch; once one does not fit, the larger
 * ones are OOM. */
static int estimate_each(search *s, int nv)
{
    struct llmmem_plan *p = s->p;
    bool oom = false;
    for (int i = 0; i < nv; i++) {
        if (oom) {
            p->rejected[LLMMEM_REJECT_OOM]++;
            continue;
        }
        int reason;
        int r = probe(s, p->vb[i], &reason);
        if (r < 0)
            return r;
        if (r == PROBE_OTHER) {
            p->rejected[reason]++;
        } else if (r == PROBE_OOM) {
            oom = true;
            p->rejected[LLMMEM_REJECT_OOM]++;
        } else {
            p->feasible++;
            consider(p, s->m, &s->c);
        }
    }
    return 0;
}

/* The micro-batches vb[from..fit] fit; each is estimated again only when its
 * step time enters the top K (its memory breakdown is kept). Trainable
 * parameters do not depend on the micro-batch: from any fitting probe. */
static int keep_fitting(search *s, int from, int fit)
{
    struct llmmem_plan *p = s->p;
    const int64_t trainable = p->trainable_hint;
    for (int i = from; i <= fit; i++) {
        s->c.micro_batch_size = p->vb[i];
        s->c.grad_accum_steps = s->G / (p->vb[i] * s->c.dp);
        llmmem__steptime t;
        llmmem__plan_step_time(&t, s->m, &s->c, trainable);
        if (!enters(p, t.total_s))
            continue;
        int reason;
        int r = probe(s, p->vb[i], &reason);
        if (r < 0)
            return r;
        if (r != PROBE_FIT) /* the same input estimated twice: cannot differ */
            return llmmem__error(LLMMEM_E_INTERNAL, "planner: estimate of micro-batch %lld changed",
                                 (long long)p->vb[i]);
        consider(p, s->m, &s->c);
    }
    return 0;
}

/* The micro-batch with one accumulation step (b x dp = the global batch),
 * index nv - 1 when it is valid: estimated on its own (see grid). */
static int single_step(search *s, int nv, int *fits)
{
    *fits = 0;
    int reason;
    int r = probe(s, s->p->vb[nv - 1], &reason);
    if (r < 0)
        return r;
    if (r == PROBE_OTHER) {
        s->p->rejected[reason]++;
        return 0;
    }
    if (r == PROBE_OOM) {
        s->p->rejected[LLMMEM_REJECT_OOM]++;
        return 0;
    }
    s->p->feasible++;
    *fits = 1;
    return keep_fitting(s, nv - 1, nv - 1);
}

/* One recompute mode over the valid micro-batches vb[0..nv). */
static int grid_mode(search *s, int ri, int nv)
{
    struct llmmem_plan *p = s->p;
    /* With gradient accumulation the gradients stay allocated through the
     * next micro-step's forward; with one step they are not there yet. So the
     * single-step micro-batch can fit where a smaller one with two steps does
     * not: it is estimated apart, and the search covers the others, whose
     * peak does not decrease with the micro-batch. */
    int last = nv;
    if (p->vb[nv - 1] * s->c.dp == s->G) {
        int fits, r = single_step(s, nv, &fits);
        if (r < 0)
            return r;
        last = nv - 1;
    }
    if (last == 0)
        return 0;
    bracket k;
    int r = find_boundary(s, ri, last, &k);
    if (r < 0)
        return r;
    if (k.linear)
        return estimate_each(s, last);
    p->rejected[LLMMEM_REJECT_OOM] += last - 1 - k.fit;
    if (k.fit < 0)
        return 0;
    p->feasible += k.fit + 1;
    return keep_fitting(s, 0, k.fit);
}

/* The recompute x micro-batch grid of the layout in s->c. pre: a reason that
 * rejects the whole grid before estimating, or -1.
 *
 * Per recompute mode the planner finds the largest micro-batch that fits by
 * bisection over the valid ones (the global batch must split into micro-batch
 * x accumulation x dp), grid_mode; the smaller ones fit and the larger ones
 * are counted as OOM. Any other answer of the estimator (unsupported,
 * inconsistent) makes that recompute mode fall back to estimating every
 * micro-batch. */
static int grid(search *s, int pre)
{
    static const int recs[] = {LLMMEM__CKPT_NONE, LLMMEM__CKPT_SELECTIVE, LLMMEM__CKPT_FULL};
    const int modes = (int)LLMMEM_ARRAY_LEN(recs);
    struct llmmem_plan *p = s->p;
    const int64_t cells = (int64_t)p->n_bd * (int64_t)modes;
    p->candidates += cells;
    if (pre >= 0) {
        p->rejected[pre] += cells;
        return 0;
    }
    const int nv = valid_microbatches(s, modes);
    for (int ri = 0; ri < modes && nv > 0; ri++) {
        s->c.checkpointing = recs[ri];
        int r = grid_mode(s, ri, nv);
        if (r < 0)
            return r;
    }
    return 0;
}

/* Divisibility rules of Megatron-LM: heads, query groups and the MLP width
 * split over TP (megatron/core/utils.py divide() in the attention and parallel
 * linear layers); layers over PP (megatron/training/arguments.py); the sequence
 * into 2 x CP chunks for load-balanced causal attention
 * (megatron/training/utils.py get_batch_on_this_cp_rank); routed experts over
 * EP (megatron/core/transformer/moe). */
static bool indivisible(const llmmem_model *m, const struct llmmem_config *c)
{
    const int64_t kvh = m->num_kv_heads > 0 ? m->num_kv_heads : m->num_heads;
    if (c->tp > 1 && (m->num_heads % c->tp || kvh % c->tp ||
                      (m->intermediate_size > 0 && m->intermediate_size % c->tp)))
        return true;
    if (c->pp > 1 && m->num_layers % c->pp)
        return true;
    if (c->cp > 1 && c->seq_len % (2 * c->cp))
        return true;
    if (c->ep > 1 && (m->num_experts <= 0 || m->num_experts % c->ep))
        return true;
    return false;
}

/* The engine options of one parallel layout (s->c has the sizes): the row's
 * variants, each a grid; an engine without options is one grid. */
static int visit_grid(void *ctx, int pre) { return grid(ctx, pre); }

static int variants(search *s, const llmmem__engine *e, int pre)
{
    return e->variants ? e->variants(&s->c, visit_grid, s, pre) : grid(s, pre);
}

/* Every engine option the rows' variants set, at its default (the variants set
 * them again for their own engine). */
static void reset_options(struct llmmem_config *c)
{
    for (int i = 0; llmmem__engine_at(i); i++) {
        const int *opt = llmmem__engine_at(i)->plan_options;
        for (int k = 0; opt && opt[k]; k++) {
            const llmmem__param_info *p = llmmem__param_find(opt[k]);
            memcpy((char *)c + p->offset, &p->def_i, sizeof(int64_t)); /* integer, bool or enum */
        }
    }
}

/* Candidate of engine e at the given sizes: every engine option at its
 * default (the variants set them), no interleaving, micro-batches from the
 * accumulation steps. */
static void set_layout(struct llmmem_config *c, const llmmem__engine *e, int64_t n, int64_t tp, int64_t pp,
                       int64_t cp, int64_t dp, int64_t ep)
{
    c->engine = e->value;
    reset_options(c);
    c->num_gpus = n;
    c->tp = tp;
    c->pp = pp;
    c->cp = cp;
    c->dp = dp;
    c->ep = ep;
    c->etp = 1;
    c->vpp = 1;
    c->num_microbatches = 0;
}

/* The expert-parallel sizes (divisors of dp x cp; MoE models, engines whose
 * row plans expert parallelism) of engine e at tp x pp x cp, each with its
 * engine options. */
static int enumerate_experts(search *s, const llmmem__engine *e, int64_t tp, int64_t pp, int64_t cp)
{
    const struct llmmem_plan *p = s->p;
    const bool moe = s->m->num_experts > 0;
    const bool plan_ep = (e->flags & LLMMEM__CAP_PLAN_EP) != 0;
    const int64_t dp = s->n / (tp * pp * cp);
    for (int q = 0; q < p->n_nd; q++) {
        const int64_t ep = p->nd[q];
        if (ep > dp * cp || (ep > 1 && (!moe || !plan_ep)))
            break;
        if ((dp * cp) % ep)
            continue;
        set_layout(&s->c, e, s->n, tp, pp, cp, dp, ep);
        int rc = variants(s, e, indivisible(s->m, &s->c) ? LLMMEM_REJECT_INDIVISIBLE : -1);
        if (rc)
            return rc;
    }
    return 0;
}

/* Every tp x pp x cp that divides N for engine e (model parallelism for the
 * rows that accept it, context parallelism for those that plan it). */
static int enumerate_engine(search *s, const llmmem__engine *e)
{
    const struct llmmem_plan *p = s->p;
    const int64_t N = s->n;
    const bool mp = (e->flags & LLMMEM__CAP_MODEL_PARALLEL) != 0;
    const bool plan_cp = (e->flags & LLMMEM__CAP_PLAN_CP) != 0;
    for (int i = 0; i < p->n_nd; i++) {
        const int64_t tp = p->nd[i];
        if (tp > 1 && !mp)
            break;
        for (int j = 0; j < p->n_nd; j++) {
            const int64_t pp = p->nd[j];
            if (pp > N / tp || (pp > 1 && !mp))
                break;
            if ((N / tp) % pp)
                continue;
            for (int k = 0; k < p->n_nd; k++) {
                const int64_t cp = p->nd[k];
                if (cp > N / (tp * pp) || (cp > 1 && !plan_cp))
                    break;
                if ((N / (tp * pp)) % cp)
                    continue;
                int rc = enumerate_experts(s, e, tp, pp, cp);
                if (rc)
                    return rc;
            }
        }
    }
    return 0;
}

/* Every training engine of the table, in its order (one-GPU engines on one GPU only). */
static int enumerate_training(search *s)
{
    for (int i = 0; llmmem__engine_at(i); i++) {
        const llmmem__engine *e = llmmem__engine_at(i);
        if (e->gate != LLMMEM_P_ENGINE || ((e->flags & LLMMEM__CAP_ONE_GPU) && s->n != 1))
            continue;
        int rc = enumerate_engine(s, e);
        if (rc)
            return rc;
    }
    return 0;
}

/* Inference: TP x replicas; each replica serves batch_size / replicas. */
static int enumerate_inference(search *s, int64_t batch)
{
    struct llmmem_plan *p = s->p;
    struct llmmem_config *c = &s->c;
    const int64_t kvh = s->m->num_kv_heads > 0 ? s->m->num_kv_heads : s->m->num_heads;
    for (int i = 0; i < p->n_nd; i++) {
        const int64_t tp = p->nd[i], replicas = s->n / tp;
        p->candidates++;
        /* vLLM: heads split over TP; KV heads split, or replicated when fewer
         * than TP (vllm/config get_num_kv_heads) */
        if (s->m->num_heads % tp || (kvh >= tp ? kvh % tp : tp % kvh)) {
            p->rejected[LLMMEM_REJECT_INDIVISIBLE]++;
            continue;
        }
        if (batch % replicas) {
            p->rejected[LLMMEM_REJECT_BATCH]++;
            continue;
        }
        c->tp = tp;
        c->dp = replicas;
        c->num_gpus = s->n;
        c->pp = c->cp = c->ep = 1;
        c->batch_size = batch / replicas;
        bool oom = false;
        int rc = estimate_one(s, &oom);
        if (rc)
            return rc;
    }
    return 0;
}

/* N: num_gpus, else dp x tp x pp x cp of the configuration given. */
static int plan_num_gpus(int64_t *n, const struct llmmem_config *cfg)
{
    llmmem__ovf o = {false};
    uint64_t v = cfg->num_gpus > 0
                     ? (uint64_t)cfg->num_gpus
                     : llmmem__mul(&o, llmmem__mul3(&o, (uint64_t)cfg->dp, (uint64_t)cfg->tp, (uint64_t)cfg->pp),
                                   (uint64_t)cfg->cp);
    if (o.overflow || v > (uint64_t)llmmem__plan_param_hi(LLMMEM_P_NUM_GPUS))
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "num_gpus: %llu GPUs is more than the planner takes",
                             (unsigned long long)v);
    *n = (int64_t)v;
    return LLMMEM_OK;
}

/* A note of the plan (llmmem_plan_note); past LLMMEM__PLAN_MAX_NOTES they are dropped. */
static void plan_note(struct llmmem_plan *p, const char *fmt, ...)
{
    if (p->notes >= LLMMEM__PLAN_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->note[p->notes++], sizeof p->note[0], fmt, ap);
    va_end(ap);
}

/* The global batch: sequences per optimizer step, micro_batch_size x
 * gradient_accumulation_steps x the data-parallel size. That size is
 * data_parallel_size when given, else num_gpus / (TP x PP x CP), as an
 * estimate reads it (engines/common.c layout_world): the batch a run on these
 * GPUs has, so that data parallelism competes in the ranking. The plan's note
 * says which. */
static int plan_global_batch(struct llmmem_plan *p, int64_t *G, const struct llmmem_config *cfg,
                             int64_t n)
{
    const int64_t mp = cfg->tp * cfg->pp * cfg->cp;
    const bool dp_given = llmmem__config_was_set(cfg, LLMMEM_P_DATA_PARALLEL);
    const int64_t dp = dp_given || mp <= 0 || n % mp != 0 ? cfg->dp : n / mp;
    llmmem__ovf o = {false};
    uint64_t v = llmmem__mul3(&o, (uint64_t)cfg->micro_batch_size, (uint64_t)cfg->grad_accum_steps,
                              (uint64_t)dp);
    if (o.overflow || v > (uint64_t)MAX_GLOBAL_BATCH)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "global batch micro_batch_size x gradient_accumulation_steps x "
                             "data-parallel size = %llu sequences: at most %lld",
                             (unsigned long long)v, (long long)MAX_GLOBAL_BATCH);
    *G = (int64_t)v;
    const long long b = (long long)cfg->micro_batch_size, ga = (long long)cfg->grad_accum_steps;
    if (dp_given)
        plan_note(p, "global batch %llu sequences = micro_batch_size %lld x gradient_accumulation_steps "
                     "%lld x data_parallel_size %lld; every layout keeps it",
                  (unsigned long long)v, b, ga, (long long)dp);
    else if (dp == n / (mp > 0 ? mp : 1) && n % (mp > 0 ? mp : 1) == 0)
        plan_note(p, "global batch %llu sequences = micro_batch_size %lld x gradient_accumulation_steps "
                     "%lld x %lld data-parallel GPUs (data_parallel_size not given: num_gpus %lld / (TP "
                     "%lld x PP %lld x CP %lld)); every layout keeps it (llmmem plan --global-batch G "
                     "sets another)",
                  (unsigned long long)v, b, ga, (long long)dp, (long long)n, (long long)cfg->tp,
                  (long long)cfg->pp, (long long)cfg->cp);
    else
        plan_note(p, "global batch %llu sequences = micro_batch_size %lld x gradient_accumulation_steps "
                     "%lld x data_parallel_size %lld (num_gpus %lld is not a multiple of TP x PP x CP = "
                     "%lld); every layout keeps it",
                  (unsigned long long)v, b, ga, (long long)dp, (long long)n, (long long)mp);
    return LLMMEM_OK;
}

/* Resets the plan's counts; checks top_k, the model and the GPU. */
static int plan_start(struct llmmem_plan *p, const llmmem_model *model, const llmmem_config *cfg,
                      int top_k)
{
    p->count = p->notes = 0;
    p->candidates = p->feasible = p->estimates = 0;
    memset(p->rejected, 0, sizeof p->rejected);
    if (top_k < 1 || top_k > LLMMEM__PLAN_MAX_K)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "llmmem_plan_layouts: top_k %d: expected 1..%d",
                             top_k, LLMMEM__PLAN_MAX_K);
    int rc = llmmem__model_validate(model);
    if (rc)
        return rc;
    if (!llmmem__gpu_at((int)cfg->gpu))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "gpu index %lld is not in the GPU table",
                             (long long)cfg->gpu);
    return LLMMEM_OK;
}

/* The kept layouts estimated again with the configuration's own allocator
 * setting (the replay of the caching allocator where it applies): their
 * reserved and total bytes become the replay's, and a layout the replay does
 * not fit leaves the plan as out of memory. */
static int confirm_layouts(struct llmmem_plan *p, const llmmem_model *m, const llmmem_config *cfg)
{
    if (!cfg->allocator_replay)
        return LLMMEM_OK;
    int kept = 0;
    for (int i = 0; i < p->count; i++) {
        llmmem__plan_layout *l = &p->slot[p->order[i]];
        l->cfg.allocator_replay = cfg->allocator_replay;
        int rc = llmmem_estimate(&p->scratch, m, &l->cfg);
        if (rc)
            return rc;
        if (!p->scratch.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
            p->rejected[LLMMEM_REJECT_OOM]++;
            p->feasible--;
            continue;
        }
        l->peak_reserved = p->scratch.v[LLMMEM_R_PEAK_RESERVED_BYTES - LLMMEM_R_PARAMS].u;
        l->total = p->scratch.v[LLMMEM_R_TOTAL_BYTES_PER_GPU - LLMMEM_R_PARAMS].u;
        p->order[kept++] = p->order[i];
    }
    p->count = kept;
    return LLMMEM_OK;
}

int llmmem_plan_layouts(llmmem_plan *plan, const llmmem_model *model, const llmmem_config *cfg,
                        int top_k)
{
    if (!plan || !model || !cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_plan_layouts: %s is NULL",
                             !plan ? "plan" : !model ? "model" : "config");
    struct llmmem_plan *p = plan;
    search s = {.p = p, .m = model, .c = *cfg};
    s.c.no_applies_check = true; /* the caller's settings tried on other engines and layouts */
    s.c.allocator_replay = 0; /* the fast path; the kept layouts are confirmed below */
    int rc;
    if ((rc = plan_start(p, model, cfg, top_k)) != 0 || (rc = plan_num_gpus(&s.n, cfg)) != 0)
        return rc;
    p->top_k = top_k;
    p->mode = (int)cfg->mode;
    p->gpu = (int)cfg->gpu;
    p->num_gpus = s.n;
    snprintf(p->model_type, sizeof p->model_type, "%s", model->model_type);
    p->n_nd = llmmem__plan_divisors(p->nd, LLMMEM__PLAN_MAX_N_DIV, s.n);
    if (cfg->mode == LLMMEM__MODE_INFERENCE && cfg->runtime == LLMMEM_RUNTIME_LLAMA_CPP)
        /* the layouts are TP x replicas of an HF/vLLM server; llama.cpp's questions are its own */
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "runtime llama_cpp: no layouts of %lld GPUs to rank (llama.cpp splits layers, "
                             "not tensor-parallel ranks): ask for the most layers on the GPU or the longest "
                             "context that fit (llmmem_plan_max_gpu_layers, llmmem_plan_max_seq_len; llmmem "
                             "plan --max-ngl --max-ctx)",
                             (long long)s.n);
    if (cfg->mode == LLMMEM__MODE_INFERENCE) {
        p->global_batch = cfg->batch_size;
        p->n_bd = 0;
        rc = enumerate_inference(&s, cfg->batch_size);
    } else {
        if ((rc = plan_global_batch(p, &s.G, cfg, s.n)) != 0)
            return rc;
        p->global_batch = s.G;
        p->n_bd = llmmem__plan_divisors(p->bd, LLMMEM__PLAN_MAX_B_DIV, s.G);
        rc = enumerate_training(&s);
    }
    if (rc) {
        p->count = 0;
        return rc;
    }
    return confirm_layouts(p, model, cfg);
}
