/* PyTorch DistributedDataParallel (torch/nn/parallel/distributed.py, reducer.cpp):
 * replicated model states plus the gradient buckets. */
#include "engines/engines.h"

#include <string.h>

/* DDP gradient buckets: trainable params x grad dtype bytes. The Reducer
 * allocates flat gradient buckets (reducer.cpp initialize_buckets: one
 * at::empty per bucket, in the parameter dtype) covering every trainable
 * parameter, so the buckets add one gradient-sized buffer for as long as DDP
 * lives (bucket_cap_mb sizes each bucket, not the total). */
static uint64_t ddp_buckets(const llmmem__train *t) { return t->st.grads; }

/* gradient_as_bucket_view: the .grad tensors are views into the buckets (the
 * docstring: "the saved memory size will be equal to the total gradients
 * size"): the gradients are counted once, as buffers, from the start. */
static void ddp_grads_as_bucket_views(llmmem__train *t)
{
    t->st.grads = 0;
    t->layer_grad = 0;
    t->other_grad = 0;
}

/* Measured on an H200 at world size 1 (docs/accuracy-engines.md): the first
 * rebuild_buckets (start of iteration 2) keeps the old buckets alive through
 * that forward when gradient_as_bucket_view is False; counted for the max of
 * both steps. */
static uint64_t ddp_bucket_rebuild(const struct llmmem_config *cfg, uint64_t buckets)
{
    return !cfg->gradient_as_bucket_view && cfg->step == LLMMEM__STEP_MAX ? buckets : 0;
}

/* Largest bucket (allocator): min(all buckets, max(bucket_cap_mb, the largest
 * parameter alone x grad bytes)). */
static uint64_t ddp_largest_bucket(const struct llmmem_model *model, const struct llmmem_config *cfg,
                                   const llmmem__train *t, uint64_t buckets, llmmem__ovf *o)
{
    uint64_t cap = (uint64_t)(cfg->bucket_cap_mb * 1048576.0);
    uint64_t big = llmmem__mul(o, (uint64_t)model->largest_module_params,
                               (uint64_t)(t->st.grad_bytes > 0 ? t->st.grad_bytes : 4));
    return llmmem__min(buckets, llmmem__max(cap, big));
}

/* What the buckets are, from shard to terms. */
typedef struct ddp_state {
    uint64_t buckets, rebuild;
    bool view;
} ddp_state;
LLMMEM__ENGINE_STATE_FITS(ddp_state);

/* torch/nn/parallel/distributed.py + torch/csrc/distributed/c10d/reducer.cpp:
 * every rank holds the whole model, gradients and optimizer state, plus the
 * gradient buckets through every phase. */
static int ddp_shard(llmmem__engine_run *r)
{
    const struct llmmem_config *cfg = &r->c;
    ddp_state *d = LLMMEM__ENGINE_STATE(ddp_state, r);
    d->buckets = ddp_buckets(&r->t);
    d->view = cfg->gradient_as_bucket_view != 0;
    if (d->view)
        ddp_grads_as_bucket_views(&r->t);
    d->rebuild = ddp_bucket_rebuild(cfg, d->buckets);
    r->x.fwd[LLMMEM_C_COMM_BUFFERS] = d->buckets + d->rebuild;
    r->x.bwd[LLMMEM_C_COMM_BUFFERS] = d->buckets;
    r->x.opt[LLMMEM_C_COMM_BUFFERS] = d->buckets;
    return LLMMEM_OK;
}

/* The engine's terms; the buckets live between steps. */
static void ddp_terms(llmmem__engine_run *r)
{
    struct llmmem_result *out = r->out;
    const ddp_state *d = LLMMEM__ENGINE_STATE(ddp_state, r);
    llmmem__result_term(out, "ddp_buckets",
                        "trainable params x grad dtype bytes: Reducer flat buckets (reducer.cpp "
                        "initialize_buckets; bucket_cap_mb sizes each, not the total)",
                        d->buckets);
    if (d->rebuild)
        llmmem__result_term(out, "ddp_bucket_rebuild",
                            "old buckets kept through the forward after rebuild_buckets (iteration 2; "
                            "measured, H200 world size 1)",
                            d->rebuild);
    if (d->view)
        llmmem__result_note_join(out, "gradient_as_bucket_view: .grad are views into the DDP buckets, "
                                      "counted under comm_buffers",
                                 (const char *)NULL);
    llmmem__ovf o = {false};
    llmmem__result_set_u64(out, LLMMEM_R_PERSISTENT_BYTES,
                           llmmem__add(&o, llmmem__result_u64(out, LLMMEM_R_PERSISTENT_BYTES), d->buckets));
    out->largest_block =
        llmmem__max(out->largest_block, ddp_largest_bucket(r->m, &r->c, &r->t, d->buckets, &o));
}

/* Step time: the gradients all-reduced once per step (reducer.cpp). */
static double ddp_dp_seconds(const struct llmmem_config *c, const llmmem__dp_traffic *d)
{
    (void)c;
    return 2 * llmmem__ring(d->n_dp) * d->G_B / d->bw;
}

static const int ddp_reads[] = {LLMMEM_P_BUCKET_CAP_MB, LLMMEM_P_GRADIENT_AS_BUCKET_VIEW, 0};

const llmmem__engine llmmem__engine_ddp = {
    .name = "ddp",
    .fn = "llmmem_estimate_ddp",
    .gate = LLMMEM_P_ENGINE,
    .value = LLMMEM_ENGINE_DDP,
    .flags = LLMMEM__CAP_TORCH_RECOMPUTE,
    .reads = ddp_reads,
    .precision_source = LLMMEM__STR(LLMMEM__PRECISION_TORCH),
    .no_replay = "a multi-GPU engine",
    .shard = ddp_shard,
    .terms = ddp_terms,
    .dp_seconds = ddp_dp_seconds,
};
