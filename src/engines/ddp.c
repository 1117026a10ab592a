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

static void ddp_terms(struct llmmem_result *out, uint64_t buckets, uint64_t rebuild, bool view)
{
    llmmem__result_term(out, "ddp_buckets",
                        "trainable params x grad dtype bytes: Reducer flat buckets (reducer.cpp "
                        "initialize_buckets; bucket_cap_mb sizes each, not the total)",
                        buckets);
    if (rebuild)
        llmmem__result_term(out, "ddp_bucket_rebuild",
                            "old buckets kept through the forward after rebuild_buckets (iteration 2; "
                            "measured, H200 world size 1)",
                            rebuild);
    if (view)
        llmmem__result_note(out, "gradient_as_bucket_view: .grad are views into the DDP buckets, "
                                 "counted under comm_buffers");
}

/* torch/nn/parallel/distributed.py + torch/csrc/distributed/c10d/reducer.cpp:
 * every rank holds the whole model, gradients and optimizer state, plus the
 * gradient buckets through every phase. */
int llmmem_estimate_ddp(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = llmmem__check_args(out, model, cfg, "llmmem_estimate_ddp");
    if (rc)
        return rc;
    llmmem__layout l;
    if ((rc = llmmem__engine_check(model, cfg, LLMMEM__ENG_DDP)) != 0 ||
        (rc = llmmem__engine_layout(&l, model, cfg, false, "ddp")) != 0)
        return rc;
    const struct llmmem_config *orig = cfg;
    struct llmmem_config resolved;
    llmmem__engine_precision(&resolved, orig, LLMMEM__ENG_DDP);
    cfg = &resolved;
    llmmem__result_clear(out);
    llmmem__train t;
    if ((rc = llmmem__train_compute(&t, out, model, cfg)) != 0)
        return rc;
    out->engine = LLMMEM__ENG_DDP;
    llmmem__engine_precision_report(out, orig, cfg, &t.st, LLMMEM__ENG_DDP, 0, 0);

    llmmem__engine_extra x;
    memset(&x, 0, sizeof x);
    const uint64_t buckets = ddp_buckets(&t);
    const bool view = cfg->gradient_as_bucket_view != 0;
    if (view)
        ddp_grads_as_bucket_views(&t);
    const uint64_t rebuild = ddp_bucket_rebuild(cfg, buckets);
    x.fwd[LLMMEM_C_COMM_BUFFERS] = buckets + rebuild;
    x.bwd[LLMMEM_C_COMM_BUFFERS] = buckets;
    x.opt[LLMMEM_C_COMM_BUFFERS] = buckets;
    if ((rc = llmmem__train_fill(out, &t, &x, model, cfg)) != 0)
        return rc;
    ddp_terms(out, buckets, rebuild, view);
    /* Persistent: the buckets live between steps. */
    llmmem__ovf o = {false};
    llmmem__result_set_u64(out, LLMMEM_R_PERSISTENT_BYTES,
                           llmmem__add(&o, llmmem__result_u64(out, LLMMEM_R_PERSISTENT_BYTES), buckets));
    out->largest_block = llmmem__max(out->largest_block, ddp_largest_bucket(model, cfg, &t, buckets, &o));
    llmmem__engine_keys(out, &l, 0, 0, 0);
    return LLMMEM_OK;
}
