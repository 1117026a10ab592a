/* Engines: the parallel layout and the estimator of each training engine and
 * inference runtime. Not installed. */
#ifndef LLMMEM_ENGINES_ENGINES_H
#define LLMMEM_ENGINES_ENGINES_H

#include "memory/memory.h"

/* NULL checks shared by the estimator entry points, then llmmem__model_validate. */
int llmmem__check_args(const llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg,
                       const char *fn);


/* Settings that contradict the training engine or each other (common.c):
 * LLMMEM_E_INCONSISTENT naming both (zero_stage without DeepSpeed, offload or
 * FSDP/Megatron options on another engine, qlora without lora_rank, a router
 * with no expert, a sequence past a learned position table). */
int llmmem__engine_check(const struct llmmem_model *m, const struct llmmem_config *c, int engine);
/* The same for mode inference (engine, ZeRO and LoRA settings it cannot use). */
int llmmem__engine_check_inference(const struct llmmem_model *m, const struct llmmem_config *c);

/* A parallel layout: world = dp x tp x pp x cp; experts split over ep x etp. */
typedef struct llmmem__layout {
    int64_t world, dp, tp, pp, cp, ep, etp, vpp;
    int64_t per_node; /* GPUs of this job on one node: min(gpus_per_node, world) */
    int64_t nodes;    /* ceil(world / gpus_per_node) */
} llmmem__layout;
/* Reads and validates the layout (LLMMEM_E_INCONSISTENT naming the numbers).
 * model_parallel: the engine accepts TP/PP/CP/EP (Megatron); else they must be 1. */
int llmmem__engine_layout(llmmem__layout *l, const struct llmmem_model *m,
                          const struct llmmem_config *c, bool model_parallel, const char *engine);
/* bytes x num / den, rounded up, without 64-bit overflow of the product. */
uint64_t llmmem__engine_scale(uint64_t bytes, uint64_t num, uint64_t den);
/* Sets NUM_GPUS, HOST/NVME bytes and GPUS_NEEDED after llmmem__train_fill.
 * sharded: bytes per GPU at the peak that shrink as 1/dp (0 when none). */
void llmmem__engine_keys(struct llmmem_result *r, const llmmem__layout *l, uint64_t host,
                         uint64_t nvme, uint64_t sharded);
/* GPUS_NEEDED 0 and a note saying why no GPU count makes the workload fit. */
void llmmem__no_gpu_count_fits(struct llmmem_result *r, const char *why);
/* The keys of a result that reproduces a framework's own formula (accounting
 * deepspeed_estimator, megatron_theoretical): training mode, the model and its
 * parameter counts, the phase the formula fills. */
void llmmem__engine_formula_keys(struct llmmem_result *r, const struct llmmem_model *m, int phase);
/* DeepSpeed's estimate_zero2_model_states_mem_needs (stage 2) and
 * estimate_zero3_model_states_mem_needs (stage 3), exactly (zero.c). */
void llmmem__zero_estimator(uint64_t *gpu, uint64_t *cpu, int stage, uint64_t total_params,
                            uint64_t largest_layer_params, uint64_t gpus_per_node, uint64_t nodes,
                            bool offload_optimizer, bool offload_param, bool zero_init);
/* Megatron-LM theoretical_memory_usage.py (megatron.c): weights+optimizer and
 * activation bytes of the most loaded shard, in Megatron's own float arithmetic. */
void llmmem__megatron_theoretical(double *weights_optim, double *activations,
                                  const struct llmmem_model *m, const struct llmmem_config *c,
                                  const llmmem__layout *l);
/* What both inference runtimes start from (inference.c): one GPU of a
 * tensor-parallel group of tp. */
typedef struct llmmem__infer_base {
    int64_t tp;
    const llmmem__gpu *gpu;
    int fmt;                 /* weight storage format (enum llmmem__quant) */
    uint64_t e;              /* activation bytes per element */
    uint64_t kvb;            /* KV cache bytes per element */
    uint64_t ws;             /* cuBLAS workspace */
    uint64_t weights;        /* weight bytes on this GPU */
    uint64_t a_r, k_r;       /* attention and KV heads on this GPU */
    uint64_t kv_tl, kv_tok;  /* KV bytes per token per layer, per token of all layers */
    llmmem__vision_bytes vb; /* image tokens and the encoder's working set */
    bool overflow;           /* the shared part overflowed (reported by the runtime) */
} llmmem__infer_base;
/* HF transformers generate, prefill then decode (infer_hf.c): fills r's phases,
 * keys and terms and finishes it. */
int llmmem__infer_hf(struct llmmem_result *r, const struct llmmem_model *m,
                     const struct llmmem_config *c, const llmmem__infer_base *b);
/* vLLM's memory budget and KV pool (vllm.c): fills and finishes r. */
int llmmem__infer_vllm(struct llmmem_result *r, const struct llmmem_model *m,
                       const struct llmmem_config *c, const llmmem__infer_base *b);
/* The precision a training engine runs with (precision.c): a copy of c with
 * master_weights "auto" (and Megatron's grad_dtype "auto") resolved the way
 * the engine's own code decides. */
int llmmem__engine_precision(struct llmmem_config *out, const struct llmmem_config *c, int engine);
/* Reports the resolved dtypes (LLMMEM_R_PARAM_DTYPE .. OPTIMIZER_STATE_DTYPE)
 * and a note naming the engine's source. orig: the caller's config; c: the
 * resolved one; stored: the dtype of the stored weights; grad: the gradient
 * dtype the optimizer reads (0: from st->grad_bytes). */
void llmmem__engine_precision_report(struct llmmem_result *r, const struct llmmem_config *orig,
                                     const struct llmmem_config *c, const llmmem__states *st,
                                     int engine, int64_t stored, int64_t grad);
/* ---- end of the engines block ---- */

#endif /* LLMMEM_ENGINES_ENGINES_H */
