/* Peak reserved bytes from the allocator replay (replay.c) over the
 * allocation timeline of the run (tl_train.c): the configuration's
 * PYTORCH_CUDA_ALLOC_CONF and the GPU's memory less the CUDA context as the
 * budget the segments may take. Fills the result's replay fields, which
 * llmmem__result_finish (peak.c) reports. */
#include "replay/replay.h"

#include <stdio.h>
#include <string.h>

/* The bound on a replay's length: events of one layer's forward and
 * backward in training (about; a decode step makes about 40 per layer), and
 * the most events replayed (about 40 ms). */
#define EVENTS_PER_LAYER UINT64_C(400)
#define MAX_EVENTS UINT64_C(400000)


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
    uint64_t res, alloc;
    bool oom;
    /* the steady state is reached by the second step (the optimizer state
     * and the autograd workspace exist from the first) and the second
     * micro-step; llmmem_timeline replays three steps as measured */
    int rc = replay_train(&res, &alloc, &oom, t, m, c, L, sink ? 3 : 2, sink ? 0 : 2, sink);
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
    }
    llmmem__rp_release(&rp);
    return rc == LLMMEM_E_NOMEM ? llmmem__error(rc, "allocator replay: out of memory") : LLMMEM_OK;
}
