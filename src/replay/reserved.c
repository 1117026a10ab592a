/* Peak reserved bytes from the allocator replay (replay.c) over the
 * allocation timeline of the run (tl_train.c): the configuration's
 * PYTORCH_CUDA_ALLOC_CONF and the GPU's memory less the CUDA context as the
 * budget the segments may take. Fills the result's replay fields, which
 * llmmem__result_finish (peak.c) reports. */
#include "replay/replay.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bound on a replay's length: events of one layer's forward and
 * backward in training (about; a decode step makes about 40 per layer), and
 * the most events replayed (about 40 ms). */
#define EVENTS_PER_LAYER UINT64_C(400)
#define MAX_EVENTS UINT64_C(400000)
/* A timeline records every event (48 bytes each): the most it draws, about
 * 1 s and 50 MB (its events are about half the bound's count). */
#define TL_MAX_EVENTS UINT64_C(2000000)


/* ---- the memo of replays on the model handle -------------------------------------
 *
 * A replay is a function of the model and of the configuration alone (the
 * training or generate quantities it reads are computed from them). The
 * model keeps the last MEMO_SLOTS replays made with it, each under the
 * configuration it was made for, compared value by value through the
 * parameter table (every parameter, the set-parameter mask, the
 * calibration): the same question again is answered with the same peaks,
 * byte for byte, without replaying. The memo is made on the first replay,
 * shared under its lock by the threads that estimate with the model, and
 * dropped when the model is set or freed (model.c). Timelines
 * (llmmem_timeline, which records every event into its sink) always replay. */
#define MEMO_SLOTS 8

typedef struct memo_entry {
    uint64_t key; /* 0: empty */
    int kind;     /* 1 training, 2 generate */
    struct llmmem_config c;
    uint64_t reserved, allocated;
    bool oom;
} memo_entry;

typedef struct memo {
    llmmem__model_cache base; /* first: the model's pointer is to it */
    pthread_mutex_t lock;
    int next; /* the slot the next replay takes */
    memo_entry e[MEMO_SLOTS];
} memo;

int llmmem__memo_entries(const struct llmmem_model *m)
{
    const memo *mm = (const memo *)(const void *)m->memo;
    int n = 0;
    for (int i = 0; mm && i < MEMO_SLOTS; i++)
        n += mm->e[i].key != 0;
    return n;
}

static void memo_release(llmmem__model_cache *self)
{
    memo *mm = (memo *)(void *)self;
    pthread_mutex_destroy(&mm->lock);
    free(mm);
}

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * UINT64_C(0x100000001B3) + (h >> 29); }

/* What of a configuration a replay can depend on: each parameter's value
 * (by the parameter table's offsets and types), the set-parameter mask and
 * the calibration (whose CUDA context sets the budget); DO(bytes, n) for
 * each value, DOS(text) for each string. */
#define CONFIG_VALUES(c, DO, DOS)                                                                \
    do {                                                                                         \
        const int np_ = llmmem_param_count();                                                    \
        const llmmem__param_info *rows_ = llmmem__param_info_at(0);                              \
        for (int i_ = 0; i_ < np_; i_++) {                                                       \
            const char *f_ = (const char *)(c) + rows_[i_].offset;                               \
            if (rows_[i_].type == LLMMEM_TYPE_STR)                                               \
                DOS(f_);                                                                         \
            else                                                                                 \
                DO(f_, rows_[i_].type == LLMMEM_TYPE_F64 ? sizeof(double) : sizeof(int64_t));    \
        }                                                                                        \
        DO((c)->set_mask, sizeof (c)->set_mask);                                                 \
        DO(&(c)->calibrated, sizeof (c)->calibrated);                                            \
        DO((c)->calib_component, sizeof (c)->calib_component);                                   \
        DO(&(c)->calib_reserved, sizeof (c)->calib_reserved);                                    \
        DO(&(c)->calib_context_bytes, sizeof (c)->calib_context_bytes);                          \
    } while (0)

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, b + k, sizeof w);
        h = mix(h, w);
    }
    for (; k < n; k++)
        h = mix(h, b[k]);
    return h;
}

static uint64_t memo_key(const struct llmmem_config *c, int kind)
{
    uint64_t h = UINT64_C(0xCBF29CE484222325) ^ (uint64_t)kind;
#define HASH(p, n) (h = hash_bytes(h, (p), (n)))
#define HASHS(s) (h = hash_bytes(h, (s), strlen(s) + 1))
    CONFIG_VALUES(c, HASH, HASHS);
#undef HASH
#undef HASHS
    return h ? h : 1;
}

/* Whether a and b agree on every value memo_key reads. */
static bool memo_same(const struct llmmem_config *a, const struct llmmem_config *b)
{
    bool same = true;
#define AT_A(p) ((const char *)a + ((const char *)(p) - (const char *)b))
#define CMP(p, n) (same = same && !memcmp(AT_A(p), (p), (n)))
#define CMPS(s) (same = same && !strcmp(AT_A(s), (s)))
    CONFIG_VALUES(b, CMP, CMPS);
#undef CMP
#undef CMPS
#undef AT_A
    return same;
}

/* The peaks of an earlier replay of the same question, when there is one. */
static bool memo_find(const struct llmmem_model *m, const struct llmmem_config *c, int kind, uint64_t key,
                      uint64_t *reserved, uint64_t *allocated, bool *oom)
{
    memo *mm = (memo *)(void *)__atomic_load_n(&m->memo, __ATOMIC_ACQUIRE);
    if (!mm)
        return false;
    bool hit = false;
    pthread_mutex_lock(&mm->lock);
    for (int i = 0; i < MEMO_SLOTS && !hit; i++) {
        const memo_entry *e = &mm->e[i];
        if (e->key == key && e->kind == kind && memo_same(c, &e->c)) {
            *reserved = e->reserved;
            *allocated = e->allocated;
            *oom = e->oom;
            hit = true;
        }
    }
    pthread_mutex_unlock(&mm->lock);
    return hit;
}

/* Keeps a replay's peaks (nothing when memory is short: the next asks again). */
static void memo_put(const struct llmmem_model *cm, const struct llmmem_config *c, int kind, uint64_t key,
                     uint64_t reserved, uint64_t allocated, bool oom)
{
    struct llmmem_model *m = (struct llmmem_model *)cm; /* the memo is the handle's, behind its lock */
    llmmem__model_cache *have = __atomic_load_n(&m->memo, __ATOMIC_ACQUIRE);
    if (!have) {
        memo *fresh = calloc(1, sizeof *fresh);
        if (!fresh || pthread_mutex_init(&fresh->lock, NULL)) {
            free(fresh);
            return;
        }
        fresh->base.release = memo_release;
        if (__atomic_compare_exchange_n(&m->memo, &have, &fresh->base, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            have = &fresh->base;
        else /* another thread made it first: `have` now holds it */
            memo_release(&fresh->base);
    }
    memo *mm = (memo *)(void *)have;
    pthread_mutex_lock(&mm->lock);
    memo_entry *e = &mm->e[mm->next];
    mm->next = (mm->next + 1) % MEMO_SLOTS;
    e->key = key;
    e->kind = kind;
    e->c = *c;
    e->c.side = NULL;
    e->reserved = reserved;
    e->allocated = allocated;
    e->oom = oom;
    pthread_mutex_unlock(&mm->lock);
}

/* One replay of a training run over `layers` layers: its peaks. */
static int replay_train(uint64_t *reserved, uint64_t *allocated, bool *oom, const llmmem__train *t,
                        const struct llmmem_model *m, const struct llmmem_config *c, uint64_t layers, int steps,
                        int micro, struct llmmem__tl *rec)
{
    llmmem__alloc_conf conf;
    llmmem__alloc_conf_of(&conf, c);
    llmmem__replay rp;
    llmmem__rp_init(&rp, &conf);
    rp.rec = rec;
    int rc = llmmem__timeline_train(&rp, t, m, c, layers, steps, micro, NULL);
    *reserved = rp.peak_reserved;
    *allocated = rp.peak_allocated;
    *oom = rp.oom;
    llmmem__rp_release(&rp);
    return rc;
}

/* The replay steps aside: peak_reserved from the rule of thumb, and the note
 * that says why, which llmmem_timeline and the allocator settings' check cite. */
static void skip(struct llmmem_result *r, const char *why)
{
    llmmem__result_note(r, LLMMEM__NO_REPLAY "%s", why);
    for (int i = r->note_count; i-- > 0;)
        if (!strncmp(r->notes[i], LLMMEM__NO_REPLAY, sizeof LLMMEM__NO_REPLAY - 1) &&
            !strcmp(r->notes[i] + sizeof LLMMEM__NO_REPLAY - 1, why)) {
            r->replay_skip_note = i;
            return;
        }
}

/* Whether a replay of about `events` events over tensors of up to `largest`
 * bytes stays within the replay's bounds; a note says why not. */
static bool replay_bounded(struct llmmem_result *r, uint64_t events, bool overflow)
{
    if (overflow) {
        skip(r, "the allocation timeline's tensor sizes overflow 64-bit byte counts");
        return false;
    }
    if (events > MAX_EVENTS) {
        char why[160];
        snprintf(why, sizeof why, "the allocation timeline would have about %llu events (the replay stops at %llu)",
                 (unsigned long long)events, (unsigned long long)MAX_EVENTS);
        skip(r, why);
        return false;
    }
    return true;
}

/* Whether a recorded timeline of about `events` events stays within
 * TL_MAX_EVENTS (decided before it starts); a note says why not, which
 * llmmem_timeline's refusal quotes. */
static bool timeline_bounded(struct llmmem_result *r, uint64_t events)
{
    if (events <= TL_MAX_EVENTS)
        return true;
    char why[160];
    snprintf(why, sizeof why, "the allocation timeline would have about %llu events (a timeline stops at %llu)",
             (unsigned long long)events, (unsigned long long)TL_MAX_EVENTS);
    skip(r, why);
    return false;
}

/* What of a training recipe the timeline (tl_train.c) does not draw: it
 * draws HF transformers' eager modules, the Trainer's loop and an optimizer
 * whose state lives in the caching allocator. NULL when it draws the run. */
static const char *undrawn_recipe(const struct llmmem_config *c)
{
    if (c->compile != LLMMEM__COMPILE_NONE)
        return "torch.compile";
    if (c->activation_offloading != LLMMEM__AOFF_NONE)
        return "activation offloading";
    if (c->optimizer_in_backward)
        return "the optimizer in backward";
    if (c->liger_kernels)
        return "Liger kernels";
    if (llmmem__optim_paged((int)c->optimizer))
        return "a paged optimizer";
    if (c->activation_profile == LLMMEM__PROFILE_TORCHTUNE || c->activation_profile == LLMMEM__PROFILE_LITGPT)
        return c->activation_profile == LLMMEM__PROFILE_TORCHTUNE ? "torchtune's modules" : "LitGPT's modules";
    return NULL;
}

int llmmem__reserved_train(struct llmmem_result *r, const llmmem__train *t, const struct llmmem_model *m,
                           const struct llmmem_config *c, struct llmmem__tl *sink)
{
    const char *undrawn = undrawn_recipe(c);
    if (!undrawn && !llmmem__kinds_classic(m))
        undrawn = "layers other than softmax attention (kinds.c)";
    if (undrawn) {
        char why[160];
        snprintf(why, sizeof why, "the allocation timeline does not draw %s", undrawn);
        skip(r, why);
        return LLMMEM_OK;
    }
    const uint64_t L = (uint64_t)(t->layers > 0 ? t->layers : 1);
    llmmem__ovf o = {false};
    /* the largest tensors of the timeline: logits and loss, MLP and score-sized ones */
    const uint64_t T = t->tokens, h = llmmem__nonneg(m->hidden_size), V = llmmem__nonneg(m->vocab_size);
    const uint64_t S = c->micro_batch_size > 0 ? T / (uint64_t)c->micro_batch_size : T;
    (void)llmmem__mul3(&o, T, V, 16);
    (void)llmmem__mul3(&o, T, llmmem__nonneg(m->intermediate_size) + h, 16 * (1 + llmmem__nonneg(m->experts_per_token)));
    (void)llmmem__mul3(&o, llmmem__mul(&o, T, S), llmmem__nonneg(m->num_heads), 8);
    if (!replay_bounded(r, llmmem__mul(&o, L, 4 * EVENTS_PER_LAYER), o.overflow))
        return LLMMEM_OK;
    /* the steady state is reached by the second step (the optimizer state
     * and the autograd workspace exist from the first) and the second
     * micro-step: an estimate replays two of each; llmmem_timeline replays
     * three steps as measured, each of its micro-steps up to
     * LLMMEM__TL_MAX_MICRO */
    int steps = 2, micro = 2;
    if (sink) {
        const int64_t ga = c->grad_accum_steps > 1 ? c->grad_accum_steps : 1;
        steps = 3;
        micro = ga < LLMMEM__TL_MAX_MICRO ? (int)ga : LLMMEM__TL_MAX_MICRO;
        const uint64_t drawn = (uint64_t)(c->step == LLMMEM__STEP_FIRST ? 1 : steps) * (uint64_t)micro;
        if (!timeline_bounded(r, llmmem__mul(&o, L, drawn * EVENTS_PER_LAYER)))
            return LLMMEM_OK;
    }
    uint64_t res, alloc;
    bool oom;
    const uint64_t key = sink ? 0 : memo_key(c, 1);
    int rc = LLMMEM_OK;
    if (!key || !memo_find(m, c, 1, key, &res, &alloc, &oom)) {
        rc = replay_train(&res, &alloc, &oom, t, m, c, L, steps, micro, sink);
        if (rc == LLMMEM_OK && key)
            memo_put(m, c, 1, key, res, alloc, oom);
    }
    if (rc == LLMMEM_OK) {
        r->replayed = true;
        r->replay_oom = oom;
        r->replay_reserved = res;
        r->replay_allocated = alloc;
    }
    return rc == LLMMEM_E_NOMEM ? llmmem__error(rc, "allocator replay: out of memory") : LLMMEM_OK;
}

int llmmem__reserved_infer(struct llmmem_result *r, const llmmem__infer *x, const struct llmmem_model *m,
                           const struct llmmem_config *c, uint64_t weights, uint64_t ws, struct llmmem__tl *sink)
{
    if (!llmmem__kinds_classic(m)) { /* tl_infer.c draws attention layers and their KV only */
        skip(r, "the allocation timeline does not draw layers other than softmax attention (kinds.c)");
        return LLMMEM_OK;
    }
    llmmem__ovf o = {false};
    (void)llmmem__mul3(&o, x->T, x->V + x->h + x->f, 16);
    (void)llmmem__mul3(&o, llmmem__mul(&o, x->B, x->S + x->N), llmmem__mul(&o, x->S + x->N, x->a), 8);
    (void)llmmem__mul3(&o, llmmem__mul(&o, x->B, x->S + x->N), x->kv_tl + 1, 4 * x->L);
    if (!replay_bounded(r, llmmem__mul(&o, x->L, llmmem__add(&o, llmmem__mul(&o, x->N, 40), 100)), o.overflow))
        return LLMMEM_OK;
    const uint64_t key = sink ? 0 : memo_key(c, 2);
    if (key && memo_find(m, c, 2, key, &r->replay_reserved, &r->replay_allocated, &r->replay_oom)) {
        r->replayed = true;
        return LLMMEM_OK;
    }
    llmmem__alloc_conf conf;
    llmmem__alloc_conf_of(&conf, c);
    llmmem__replay rp;
    llmmem__rp_init(&rp, &conf);
    rp.rec = sink;
    int rc = llmmem__timeline_infer(&rp, x, m, weights, ws, llmmem__prefill_cublaslt_workspace(m),
                                    (uint64_t)c->prior_ws_segment, x->L);
    if (rc == LLMMEM_OK && !rp.nomem) {
        r->replayed = true;
        r->replay_oom = rp.oom;
        r->replay_reserved = rp.peak_reserved;
        r->replay_allocated = rp.peak_allocated;
        if (key)
            memo_put(m, c, 2, key, rp.peak_reserved, rp.peak_allocated, rp.oom);
    }
    llmmem__rp_release(&rp);
    return rc == LLMMEM_E_NOMEM ? llmmem__error(rc, "allocator replay: out of memory") : LLMMEM_OK;
}
