/* A model of the PyTorch CUDA caching allocator, after
 * pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp: requests are rounded up
 * to kMinBlockSize (512 B); large blocks live in segments rounded to
 * kRoundLarge (2 MiB). Freed blocks stay cached, so the reserved peak exceeds
 * the allocated peak by what could not be reused. This is a documented
 * approximation (docs/formulas.md), not a replay of the allocator: it adds the
 * largest transient block, whose freed segment is typically not reusable for
 * the next differently sized request. With expandable segments the segments
 * grow in place in 2 MiB pages and that slack disappears. */
#include "memory/alloc.h"

#define MIN_BLOCK UINT64_C(512)
#define ROUND_LARGE (UINT64_C(2) << 20)

uint64_t llmmem__alloc_block(uint64_t request)
{
    if (request <= MIN_BLOCK)
        return MIN_BLOCK;
    llmmem__ovf o = {false};
    uint64_t r = llmmem__round_up(&o, request, MIN_BLOCK);
    return o.overflow ? request : r;
}

uint64_t llmmem__alloc_reserved(uint64_t peak_allocated, uint64_t largest_block, bool checkpointing,
                                bool expandable_segments)
{
    llmmem__ovf o = {false};
    uint64_t slack = expandable_segments ? 0 : largest_block;
    (void)checkpointing;
    uint64_t r = llmmem__round_up(&o, llmmem__add(&o, peak_allocated, slack), ROUND_LARGE);
    return o.overflow ? UINT64_MAX : r;
}

/* PYTORCH_CUDA_ALLOC_CONF of the configuration; the budget is the GPU's memory
 * less the CUDA context (what the segments may take before a cudaMalloc fails). */
void llmmem__alloc_conf_of(llmmem__alloc_conf *conf, const struct llmmem_config *c)
{
    const llmmem__gpu *g = llmmem__gpu_at((int)c->gpu);
    const uint64_t cap = llmmem__gpu_capacity(c, g), ctx = llmmem__gpu_context_calibrated(c, g);
    conf->expandable = c->expandable_segments != 0;
    conf->max_split = c->max_split_size_bytes > 0 ? (uint64_t)c->max_split_size_bytes : 0;
    conf->gc_threshold = c->gc_threshold;
    conf->budget = cap > ctx ? cap - ctx : 0;
}
