/* PyTorch's caching allocator as the byte model counts it (alloc.c): the
 * rounding of a request, the rule of thumb for the reserved bytes, and the
 * allocator settings of a configuration (what the replay, replay/, runs
 * with). Not installed. */
#ifndef LLMMEM_MEMORY_ALLOC_H
#define LLMMEM_MEMORY_ALLOC_H

#include "config/config.h"

/* Bytes memory_allocated counts for a tensor of n bytes: every allocation is
 * rounded up to 512 bytes (pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp
 * kMinBlockSize), no tensor counts 0. */
static inline uint64_t llmmem__alloc_tensor(llmmem__ovf *o, uint64_t n)
{
    return n ? llmmem__round_up(o, n, 512) : 0;
}
/* Bytes the allocator counts for a request (512-byte rounding). */
uint64_t llmmem__alloc_block(uint64_t request);
/* Reserved-bytes model from the allocated peak and the largest tensors. */
uint64_t llmmem__alloc_reserved(uint64_t peak_allocated, uint64_t largest_block,
                                bool checkpointing, bool expandable_segments);

/* The GPU's memory, one place: gpu_memory_bytes when the configuration sets it, else
 * what the GPU table says cudaMemGetInfo reports (0 without a GPU). */
static inline uint64_t llmmem__gpu_capacity(const struct llmmem_config *c, const llmmem__gpu *g)
{
    return c->gpu_memory_bytes > 0 ? (uint64_t)c->gpu_memory_bytes : g ? g->memory_bytes : 0;
}
/* The CUDA context and kernels outside the allocator: cuda_context_bytes when set,
 * else the GPU table's (0 without a GPU). */
static inline uint64_t llmmem__gpu_context(const struct llmmem_config *c, const llmmem__gpu *g)
{
    return c->cuda_context_bytes >= 0 ? (uint64_t)c->cuda_context_bytes : g ? g->cuda_context_bytes : 0;
}
/* The same, or the context a calibration measured (calibrate: calib_context_bytes). */
static inline uint64_t llmmem__gpu_context_calibrated(const struct llmmem_config *c, const llmmem__gpu *g)
{
    return c->calibrated && c->calib_context_bytes >= 0 ? (uint64_t)c->calib_context_bytes
                                                        : llmmem__gpu_context(c, g);
}

/* PYTORCH_CUDA_ALLOC_CONF of the run and the memory its segments may take. */
typedef struct llmmem__alloc_conf {
    bool expandable;     /* expandable_segments:True */
    uint64_t max_split;  /* max_split_size_mb in bytes (0: unlimited) */
    double gc_threshold; /* garbage_collection_threshold (0: off) */
    uint64_t budget;     /* bytes of segments before a cudaMalloc fails (0: no limit) */
} llmmem__alloc_conf;
/* The allocator settings and budget of a configuration (alloc.c). */
void llmmem__alloc_conf_of(llmmem__alloc_conf *conf, const struct llmmem_config *c);

#endif /* LLMMEM_MEMORY_ALLOC_H */
