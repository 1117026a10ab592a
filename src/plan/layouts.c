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

/* The recompute x micro-batch grid of the layout in s->c. pre: a reason that
 * rejects the whole grid before estimating, or -1.
 *
 * Peak memory does not decrease with the micro-batch, so per recompute mode
 * the planner finds the largest micro-batch that fits by bisection over the
 * valid ones (the global batch must split into micro-batch x accumulation x
 * dp); the smaller ones fit and the larger ones are counted as OOM. A fitting
 * micro-batch is estimated again only when its step time enters the top K
 * (its memory breakdown is kept). Any other answer of the estimator
 * (unsupported, inconsistent) makes that recompute mode fall back to
 * estimating every micro-batch. */
static int grid(search *s, int pre)
{
    static const int recs[] = {LLMMEM__CKPT_NONE, LLMMEM__CKPT_SELECTIVE, LLMMEM__CKPT_FULL};
    struct llmmem_plan *p = s->p;
    const int64_t cells = (int64_t)p->n_bd * (int64_t)LLMMEM_ARRAY_LEN(recs);
    p->candidates += cells;
    if (pre >= 0) {
        p->rejected[pre] += cells;
        return 0;
    }
    const int64_t dp = s->c.dp;
    /* valid micro-batches: b x dp divides the global batch (shared by every mode) */
    int nv = 0;
    for (int bi = 0; bi < p->n_bd; bi++) {
        const int64_t b = p->bd[bi];
        if (b <= s->G / dp && s->G % (b * dp) == 0)
            p->vb[nv++] = b;
    }
    p->rejected[LLMMEM_REJECT_BATCH] += (int64_t)(p->n_bd - nv) * (int64_t)LLMMEM_ARRAY_LEN(recs);
    if (nv == 0)
        return 0;
    for (size_t ri = 0; ri < LLMMEM_ARRAY_LEN(recs); ri++) {
        s->c.checkpointing = recs[ri];
        int reason = -1, r;
        /* Start at the boundary this recompute mode had in the previous layout
         * (a hint: neighbouring layouts fit similar micro-batches), then gallop
         * and bisect: fit = largest index that fits (-1: none), bad = smallest
         * known not to (nv: none). */
        int h = 0;
        while (h + 1 < nv && p->vb[h + 1] <= s->hint[ri])
            h++;
        int fit = -1, bad = nv;
        bool linear = false;
        r = probe(s, p->vb[h], &reason);
        if (r < 0)
            return r;
        if (r == PROBE_OTHER) {
            linear = true;
        } else if (r == PROBE_FIT) {
            fit = h;
            for (int step = 1; fit + step < nv; step *= 2) { /* gallop up */
                r = probe(s, p->vb[fit + step], &reason);
                if (r < 0)
                    return r;
                if (r != PROBE_FIT) {
                    linear = r == PROBE_OTHER;
                    bad = fit + step;
                    break;
                }
                fit += step;
            }
        } else {
            bad = h;
            for (int step = 1; bad > 0; step *= 2) { /* gallop down */
                int at = bad - step < 0 ? 0 : bad - step;
                r = probe(s, p->vb[at], &reason);
                if (r < 0)
                    return r;
                if (r == PROBE_OTHER) {
                    linear = true;
                    break;
                }
                if (r == PROBE_FIT) {
                    fit = at;
                    break;
                }
                bad = at;
            }
        }
        while (!linear && fit >= 0 && bad - fit > 1) { /* bisect */
            int mid = fit + (bad - fit) / 2;
            r = probe(s, p->vb[mid], &reason);
            if (r < 0)
                return r;
            if (r == PROBE_OTHER)
                linear = true;
            else if (r == PROBE_FIT)
                fit = mid;
            else
                bad = mid;
        }
        if (!linear)
            s->hint[ri] = p->vb[fit >= 0 ? fit : 0];
        if (linear) {
            /* estimate each; once one does not fit, the larger ones are OOM */
            bool oom = false;
            for (int i = 0; i < nv; i++) {
                if (oom) {
                    p->rejected[LLMMEM_REJECT_OOM]++;
                    continue;
                }
                r = probe(s, p->vb[i], &reason);
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
            continue;
        }
        p->rejected[LLMMEM_REJECT_OOM] += nv - 1 - fit;
        if (fit < 0)
            continue;
        p->feasible += fit + 1;
        /* trainable parameters do not depend on the micro-batch: from any fitting probe */
        int64_t trainable = p->trainable_hint;
        for (int i = 0; i <= fit; i++) {
            s->c.micro_batch_size = p->vb[i];
            s->c.grad_accum_steps = s->G / (p->vb[i] * dp);
            llmmem__steptime t;
            llmmem__plan_step_time(&t, s->m, &s->c, trainable);
            if (!enters(p, t.total_s))
                continue;
            r = probe(s, p->vb[i], &reason);
            if (r < 0)
                return r;
            if (r != PROBE_FIT) /* the same input estimated twice: cannot differ */
                return llmmem__error(LLMMEM_E_INTERNAL, "planner: estimate of micro-batch %lld changed",
                                     (long long)p->vb[i]);
            consider(p, s->m, &s->c);
        }
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

static void engine_defaults(struct llmmem_config *c, int engine)
{
    c->engine = engine;
    c->zero_stage = 0;
    c->offload_optimizer = LLMMEM__OFFLOAD_NONE;
    c->offload_param = LLMMEM__OFFLOAD_NONE;
    c->fsdp_sharding = LLMMEM__FSDP_FULL_SHARD;
    c->fsdp_cpu_offload = 0;
    c->distributed_optimizer = 0;
    c->sequence_parallel = 0;
}

/* The engine options of one parallel layout (s->c has the sizes). */
static int variants(search *s, int pre)
{
    struct llmmem_config *c = &s->c;
    int rc = 0;
    switch (c->engine) {
    case LLMMEM__ENG_SINGLE:
    case LLMMEM__ENG_DDP: return grid(s, pre);
    case LLMMEM__ENG_ZERO:
        /* stage 0..2: optimizer offload to the CPU from stage 1; stage 3: optimizer
         * and parameters to none / cpu / nvme (ZeRO-Infinity) */
        for (int st = 0; st <= 3 && !rc; st++) {
            c->zero_stage = st;
            int max_opt = st == 0 ? 0 : st < 3 ? 1 : 2, max_par = st < 3 ? 0 : 2;
            for (int o = 0; o <= max_opt && !rc; o++)
                for (int q = 0; q <= max_par && !rc; q++) {
                    c->offload_optimizer = o;
                    c->offload_param = q;
                    rc = grid(s, pre);
                }
        }
        c->offload_optimizer = c->offload_param = 0;
        return rc;
    case LLMMEM__ENG_FSDP:
        for (int sh = 0; sh <= LLMMEM__FSDP_HYBRID_SHARD && !rc; sh++)
            for (int off = 0; off <= 1 && !rc; off++) {
                c->fsdp_sharding = sh;
                c->fsdp_cpu_offload = off;
                int why = pre;
                /* hybrid shards inside a node and replicates across whole nodes */
                if (why < 0 && sh == LLMMEM__FSDP_HYBRID_SHARD &&
                    (s->n <= c->gpus_per_node || s->n % c->gpus_per_node))
                    why = LLMMEM_REJECT_INDIVISIBLE;
                rc = grid(s, why);
            }
        return rc;
    case LLMMEM__ENG_MEGATRON:
        for (int d = 0; d <= 1 && !rc; d++)
            for (int sp = 0; sp <= (c->tp > 1) && !rc; sp++) {
                c->distributed_optimizer = d;
                c->sequence_parallel = sp;
                rc = grid(s, pre);
            }
        return rc;
    case LLMMEM__ENG_MEGATRON_DEEPSPEED:
        for (int st = 0; st <= 2 && !rc; st++)
            for (int sp = 0; sp <= (c->tp > 1) && !rc; sp++) {
                c->zero_stage = st;
                c->sequence_parallel = sp;
                int why = pre;
                /* DeepSpeed's pipeline engine runs ZeRO stage 0 or 1 only
                 * (deepspeed/runtime/pipe/engine.py asserts zero stage < 2) */
                if (why < 0 && c->pp > 1 && st >= 2)
                    why = LLMMEM_REJECT_UNSUPPORTED;
                rc = grid(s, why);
            }
        return rc;
    }
    return 0;
}

static int enumerate_training(search *s)
{
    struct llmmem_plan *p = s->p;
    struct llmmem_config *c = &s->c;
    const int64_t N = s->n;
    const bool moe = s->m->num_experts > 0;
    for (int e = LLMMEM__ENG_SINGLE; e <= LLMMEM__ENG_MEGATRON_DEEPSPEED; e++) {
        if (e == LLMMEM__ENG_SINGLE && N != 1)
            continue;
        const bool mp = e == LLMMEM__ENG_MEGATRON || e == LLMMEM__ENG_MEGATRON_DEEPSPEED;
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
                    if (cp > N / (tp * pp) || (cp > 1 && e != LLMMEM__ENG_MEGATRON))
                        break;
                    if ((N / (tp * pp)) % cp)
                        continue;
                    const int64_t dp = N / (tp * pp * cp);
                    for (int q = 0; q < p->n_nd; q++) {
                        const int64_t ep = p->nd[q];
                        if (ep > dp * cp || (ep > 1 && (!moe || e != LLMMEM__ENG_MEGATRON)))
                            break;
                        if ((dp * cp) % ep)
                            continue;
                        engine_defaults(c, e);
                        c->num_gpus = N;
                        c->tp = tp;
                        c->pp = pp;
                        c->cp = cp;
                        c->dp = dp;
                        c->ep = ep;
                        c->etp = 1;
                        c->vpp = 1;
                        c->num_microbatches = 0;
                        int rc = variants(s, indivisible(s->m, c) ? LLMMEM_REJECT_INDIVISIBLE : -1);
                        if (rc)
                            return rc;
                    }
                }
            }
        }
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

int llmmem_plan_layouts(llmmem_plan *plan, const llmmem_model *model, const llmmem_config *cfg,
                        int top_k)
{
    if (!plan || !model || !cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_plan_layouts: %s is NULL",
                             !plan ? "plan" : !model ? "model" : "config");
    struct llmmem_plan *p = plan;
    p->count = 0;
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
    search s = {.p = p, .m = model, .c = *cfg};
    llmmem__ovf o = {false};
    uint64_t n = cfg->num_gpus > 0
                     ? (uint64_t)cfg->num_gpus
                     : llmmem__mul(&o, llmmem__mul3(&o, (uint64_t)cfg->dp, (uint64_t)cfg->tp, (uint64_t)cfg->pp),
                                   (uint64_t)cfg->cp);
    if (o.overflow || n > (uint64_t)llmmem__plan_param_hi(LLMMEM_P_NUM_GPUS))
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "num_gpus: %llu GPUs is more than the planner takes",
                             (unsigned long long)n);
    s.n = (int64_t)n;
    p->top_k = top_k;
    p->mode = (int)cfg->mode;
    p->gpu = (int)cfg->gpu;
    p->num_gpus = s.n;
    snprintf(p->model_type, sizeof p->model_type, "%s", model->model_type);
    p->n_nd = llmmem__plan_divisors(p->nd, LLMMEM__PLAN_MAX_N_DIV, s.n);
    if (cfg->mode == LLMMEM__MODE_INFERENCE) {
        p->global_batch = cfg->batch_size;
        p->n_bd = 0;
        rc = enumerate_inference(&s, cfg->batch_size);
    } else {
        /* global batch: sequences per optimizer step of the configuration given */
        uint64_t G = llmmem__mul3(&o, (uint64_t)cfg->micro_batch_size, (uint64_t)cfg->grad_accum_steps,
                                  (uint64_t)cfg->dp);
        if (o.overflow || G > (uint64_t)MAX_GLOBAL_BATCH)
            return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                                 "global batch micro_batch_size x gradient_accumulation_steps x "
                                 "data_parallel_size = %llu sequences: at most %lld",
                                 (unsigned long long)G, (long long)MAX_GLOBAL_BATCH);
        s.G = (int64_t)G;
        p->global_batch = s.G;
        p->n_bd = llmmem__plan_divisors(p->bd, LLMMEM__PLAN_MAX_B_DIV, s.G);
        rc = enumerate_training(&s);
    }
    if (rc) {
        p->count = 0;
        return rc;
    }
    return LLMMEM_OK;
}
