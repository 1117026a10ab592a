/* A run, resolved once (run.c): what an estimate's terms read, decided by the
 * driver (the engines' skeletons) before any term is computed, so that a
 * derived quantity has one place: the KV heads of a model that names none, the
 * heads, KV heads and MLP width of one tensor-parallel rank, the tokens of a
 * micro-batch or a batch, the GPU, the engine's capabilities, the allocator
 * replay's recording sink. The checks every estimate of a kind needs are the
 * resolver's. Not installed. */
#ifndef LLMMEM_MEMORY_RUN_H
#define LLMMEM_MEMORY_RUN_H

#include "config/config.h"
#include "model/model.h"

/* A parallel layout: world = dp x tp x pp x cp; experts split over ep x etp. */
typedef struct llmmem__layout {
    int64_t world, dp, tp, pp, cp, ep, etp, vpp;
    int64_t per_node; /* GPUs of this job on one node: min(gpus_per_node, world) */
    int64_t nodes;    /* ceil(world / gpus_per_node) */
} llmmem__layout;

struct llmmem__tl;

typedef struct llmmem__run {
    const struct llmmem_model *m;
    const struct llmmem_config *c; /* the applied configuration: what the engine decides for "auto"
                                      resolved (engines/precision.c) */
    unsigned caps;                 /* the engine's or runtime's (enum llmmem__caps) */
    const char *no_replay;         /* why the allocator replay never draws it, or NULL */
    struct llmmem__tl *sink;       /* NULL, or where the replay records every event (llmmem_timeline) */
    const llmmem__gpu *gpu;
    llmmem__layout l; /* the parallel layout of a distributed training engine (else unset) */
    /* the model's shapes */
    uint64_t h, L, a, d, f, V;
    uint64_t k; /* KV heads: num_key_value_heads, else the heads (multi-head attention) */
    /* one of tp tensor-parallel ranks: heads and MLP width split; KV heads split, or
     * replicated when fewer than tp (vllm/config get_num_kv_heads: max(1, k / tp)) */
    uint64_t tp, a_r, k_r, f_r;
    /* the workload: B sequences (training: the micro-batch; inference: the batch) of S
     * tokens (the sequence; the prompt), T = B x S (image tokens not counted) */
    uint64_t B, S, T;
    uint64_t N; /* inference: the tokens decoded after the prompt (decode_len); training: 0 */
} llmmem__run;

/* The KV heads of a model (the heads when it names none): the one place of that rule. */
static inline uint64_t llmmem__kv_heads(const struct llmmem_model *m)
{
    return (uint64_t)(m->num_kv_heads > 0 ? m->num_kv_heads : m->num_heads > 0 ? m->num_heads : 0);
}
/* KV heads on one of tp (>= 1) ranks: split, or replicated when fewer than tp. */
static inline uint64_t llmmem__kv_heads_per_rank(uint64_t k, uint64_t tp)
{
    return k >= tp ? k / tp : 1;
}

/* The shapes of a training run (the single-GPU model the engines shard: tp 1;
 * B = micro_batch_size, S = seq_len) and its GPU. */
void llmmem__run_resolve_train(llmmem__run *r, const struct llmmem_model *m, const struct llmmem_config *c);
/* The shapes of an inference run on tensor_parallel_size ranks (B = batch_size,
 * S = prompt_len), with its checks: the model's dimensions positive, the batch
 * and lengths, tp dividing the heads and the KV heads (or divided by them), the
 * GPU in the table. */
int llmmem__run_resolve_infer(llmmem__run *r, const struct llmmem_model *m, const struct llmmem_config *c);

#endif /* LLMMEM_MEMORY_RUN_H */
