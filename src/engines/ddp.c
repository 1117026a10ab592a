/* PyTorch DistributedDataParallel (torch/nn/parallel/distributed.py, reducer.cpp):
 * replicated model states plus the gradient buckets. */
#include "engines/engines.h"

#include <string.h>

/* torch/nn/parallel/distributed.py + torch/csrc/distributed/c10d/reducer.cpp:
 * every rank holds the whole model, gradients and optimizer state; the
 * Reducer allocates flat gradient buckets (initialize_buckets: one at::empty
 * per bucket, in the parameter dtype) covering every trainable parameter, so
 * the buckets add one gradient-sized buffer for as long as DDP lives. With
 * gradient_as_bucket_view the .grad tensors are views into the buckets (the
 * docstring: "the saved memory size will be equal to the total gradients
 * size"). Measured on an H200 at world size 1 (docs/accuracy-engines.md): the
 * first rebuild_buckets (start of iteration 2) keeps the old buckets alive
 * through that forward when gradient_as_bucket_view is False. */
int llmmem_estimate_ddp(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = llmmem__check_args(out, model, cfg, "llmmem_estimate_ddp");
    if (rc)
        return rc;
    llmmem__layout l;
    if ((rc = llmmem__engine_layout(&l, model, cfg, false, "ddp")) != 0)
        return rc;
    llmmem__result_clear(out);
    llmmem__train t;
    if ((rc = llmmem__train_compute(&t, out, model, cfg)) != 0)
        return rc;
    out->engine = LLMMEM__ENG_DDP;

    llmmem__engine_extra x;
    memset(&x, 0, sizeof x);
    const uint64_t buckets = t.st.grads; /* trainable params x grad dtype */
    const bool view = cfg->gradient_as_bucket_view != 0;
    if (view) {
        /* The gradients are the buckets: counted once, as buffers, from the start. */
        t.st.grads = 0;
        t.layer_grad = 0;
        t.other_grad = 0;
    }
    x.fwd[LLMMEM_C_COMM_BUFFERS] = buckets;
    x.bwd[LLMMEM_C_COMM_BUFFERS] = buckets;
    x.opt[LLMMEM_C_COMM_BUFFERS] = buckets;
    uint64_t rebuild = 0;
    if (!view && cfg->step == LLMMEM__STEP_MAX) {
        rebuild = buckets; /* old buckets alive through the forward of iteration 2 */
        x.fwd[LLMMEM_C_COMM_BUFFERS] += rebuild;
    }
    if ((rc = llmmem__train_fill(out, &t, &x, model, cfg)) != 0)
        return rc;
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
    /* Persistent: the buckets live between steps. */
    llmmem__ovf o = {false};
    llmmem__result_set_u64(out, LLMMEM_R_PERSISTENT_BYTES,
                           llmmem__add(&o, llmmem__result_u64(out, LLMMEM_R_PERSISTENT_BYTES), buckets));
    /* Largest bucket (allocator): bucket_cap_mb or the largest parameter alone. */
    uint64_t cap = (uint64_t)(cfg->bucket_cap_mb * 1048576.0);
    uint64_t big = llmmem__mul(&o, (uint64_t)model->largest_module_params,
                               (uint64_t)(t.st.grad_bytes > 0 ? t.st.grad_bytes : 4));
    out->largest_block = llmmem__max(out->largest_block, llmmem__min(buckets, llmmem__max(cap, big)));
    llmmem__engine_keys(out, &l, 0, 0, 0);
    return LLMMEM_OK;
}
