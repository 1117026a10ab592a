/* Engines: the training engines and serving runtimes as rows of one table
 * (struct llmmem__engine, registered in registry.c from config/engines.def),
 * the skeleton every training estimate runs (estimate.c) and the one of
 * inference (inference.c), the parallel layout, and the pieces rows share.
 * docs/architecture.md says how to add an engine or a runtime. Not installed. */
#ifndef LLMMEM_ENGINES_ENGINES_H
#define LLMMEM_ENGINES_ENGINES_H

#include "replay/replay.h"

/* NULL checks shared by the estimator entry points, then llmmem__model_validate. */
int llmmem__check_args(const llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg,
                       const char *fn);


struct llmmem__engine;
/* Settings that contradict the training engine or each other (common.c):
 * LLMMEM_E_INCONSISTENT naming both (zero_stage without DeepSpeed, offload or
 * FSDP/Megatron options on another engine, qlora without lora_rank, a router
 * with no expert, a sequence past a learned position table). */
int llmmem__engine_check(const struct llmmem_model *m, const struct llmmem_config *c,
                         const struct llmmem__engine *e);
/* The same for mode inference (engine, ZeRO and LoRA settings it cannot use). */
int llmmem__engine_check_inference(const struct llmmem_model *m, const struct llmmem_config *c,
                                   const struct llmmem__engine *e);

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
/* Sets NUM_GPUS, NVME bytes and GPUS_NEEDED after llmmem__train_fill (host bytes:
 * llmmem__result_host). sharded: bytes per GPU at the peak that shrink as 1/dp (0 when none). */
void llmmem__engine_keys(struct llmmem_result *r, const llmmem__layout *l, uint64_t nvme, uint64_t sharded);
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
    struct llmmem__tl *sink; /* NULL, or where a replay records its events (llmmem_timeline) */
} llmmem__infer_base;
/* The dtype the matmuls run in: compute_dtype, else param_dtype. */
static inline int64_t llmmem__compute_of(const struct llmmem_config *c)
{
    return c->compute_dtype != LLMMEM__DT_AUTO ? c->compute_dtype : c->param_dtype;
}
static inline bool llmmem__is16(int64_t dt) { return dt == LLMMEM__DT_BF16 || dt == LLMMEM__DT_FP16; }
/* The precision a training engine runs with (precision.c): a copy of c with
 * master_weights "auto" (and what else the row's precision hook resolves)
 * decided the way the engine's own code decides. */
int llmmem__engine_precision(struct llmmem_config *out, const struct llmmem_config *c,
                             const struct llmmem__engine *e);
/* Reports the resolved dtypes (LLMMEM_R_PARAM_DTYPE .. OPTIMIZER_STATE_DTYPE)
 * and a note naming the engine's source. orig: the caller's config; c: the
 * resolved one; stored: the dtype of the stored weights; grad: the gradient
 * dtype the optimizer reads (0: from st->grad_bytes). */
void llmmem__engine_precision_report(struct llmmem_result *r, const struct llmmem_config *orig,
                                     const struct llmmem_config *c, const llmmem__states *st,
                                     const struct llmmem__engine *e, int64_t stored, int64_t grad);
/* PyTorch's own optimizers: what single and DDP run with (their precision_source). */
#define LLMMEM__PRECISION_TORCH                                                                        \
    "PyTorch: the optimizer steps the parameters, no masters; fp32 weights with 16-bit compute = "      \
    "torch.autocast (HF Trainer bf16/fp16)"

/* ---- the table of engines and runtimes ---------------------------------------- */

struct llmmem__engine_run;

/* What the planner's step-time model hands an engine to price its data-parallel
 * traffic (plan/steptime.c; docs/planner.md). */
typedef struct llmmem__dp_traffic {
    double n_dp;         /* ranks the gradients are reduced over (dp x cp) */
    double G_B, W_B;     /* this GPU's gradient and weight bytes */
    double ga;           /* micro-steps per optimizer step */
    double gpn;          /* GPUs per node */
    double intra, inter; /* link bandwidths within and across nodes, bytes/s per GPU */
    double bw;           /* the data-parallel group's link */
} llmmem__dp_traffic;
/* Ring collectives: all-reduce moves 2(n-1)/n of the buffer, reduce-scatter and
 * all-gather (n-1)/n each. */
static inline double llmmem__ring(double n) { return n > 1 ? (n - 1) / n : 0.0; }

/* The planner's callback for one set of engine options in c (plan/layouts.c):
 * pre is a reason that rejects the grid before estimating, or -1. */
typedef int (*llmmem__plan_visit)(void *ctx, int pre);

/* One training engine or serving runtime. Every row lives in its own file (or
 * folder, for a runtime with a byte model of its own) and is registered by one
 * line of config/engines.def. The hooks are optional (NULL) unless said. */
typedef struct llmmem__engine {
    const char *name;             /* the value's name, as config/engines.def spells it */
    const char *fn;               /* its public function, named in argument errors */
    int gate;                     /* LLMMEM_P_ENGINE or LLMMEM_P_RUNTIME */
    int value;                    /* LLMMEM_ENGINE_* or LLMMEM_RUNTIME_* */
    unsigned flags;               /* enum llmmem__caps */
    /* The options of the gate this row reads, 0-terminated: an option some row
     * of the gate lists is read by the rows that list it only
     * (llmmem_param_applies; the CLI, Python and the web page ask it). */
    const int *reads;
    /* What to set instead of a parameter it does not read but another row of its gate
     * does (llama.cpp's n_parallel for batch_size), or NULL: said where one is refused
     * (applies.c). NULL: no such hints. */
    const char *(*instead)(int param);
    /* ---- training engines ---- */
    /* Where its precision comes from (the precision note) and its own choice
     * for what the config leaves "auto" (precision.c; NULL: no masters). */
    llmmem__str precision_source;
    bool (*masters)(const struct llmmem_config *c); /* separate fp32 masters when "auto" */
    void (*precision)(struct llmmem_config *out, const struct llmmem_config *c);
    /* Why no GPU count makes a run fit that does not (NULL: the layout's) and
     * why the allocator replay never draws its run (NULL: it does). */
    const char *no_split;
    const char *no_replay;
    int (*precheck)(const struct llmmem_config *c); /* before the common checks */
    int (*check)(struct llmmem__engine_run *r);     /* after the layout */
    /* accounting != runtime: the framework's own formula as the result (NULL:
     * the setting is not this engine's) */
    int (*formula)(struct llmmem__engine_run *r);
    /* What the model computes with when it is not r->c (FSDP's mixed-precision
     * policy): sets r->cx. */
    void (*compute)(struct llmmem__engine_run *r);
    /* What it shards, offloads and buffers: changes r->t, fills r->x and the
     * keys (r->host_pinned, r->host_pageable, r->nvme, r->sharded); what its terms need later it keeps
     * in r->state. */
    int (*shard)(struct llmmem__engine_run *r);
    /* Its terms, buffers and notes, once the phases are built (r->out). */
    void (*terms)(struct llmmem__engine_run *r);
    /* Builds the result its own way instead of shard + llmmem__train_fill
     * (Megatron: one estimate per pipeline stage). */
    int (*fill)(struct llmmem__engine_run *r);
    /* ---- the planner (plan/) ---- */
    const int *plan_options; /* options its variants set: reset per layout, printed per layout */
    /* every set of its options at the layout in c: calls visit once per set */
    int (*variants)(struct llmmem_config *c, llmmem__plan_visit visit, void *ctx, int pre);
    /* seconds of data-parallel traffic per step */
    double (*dp_seconds)(const struct llmmem_config *c, const llmmem__dp_traffic *d);
    /* where the optimizer and the parameters are offloaded (0, LLMMEM__OFFLOAD_CPU/_NVME) */
    void (*offloads)(const struct llmmem_config *c, int *opt_dev, int *param_dev);
    /* ---- serving runtimes ---- */
    int kinds_use; /* enum llmmem__kinds_use: the layer kinds it estimates */
    int plan_batch; /* the parameter llmmem_plan_max_batch varies */
    int plan_len;   /* the one llmmem_plan_max_seq_len varies (LLMMEM_P_PROMPT_LEN: + decode_len) */
    /* fills r's phases, keys and terms from what every runtime shares, finishes r (required) */
    int (*infer)(struct llmmem_result *r, const struct llmmem_model *m, const struct llmmem_config *c,
                 const llmmem__infer_base *b);
} llmmem__engine;

/* The rows by value (registry.c; the values are dense, params.c names them so). */
enum {
    LLMMEM__ENGINES = 0
#define LLMMEM__ENGINE(value, name, row) +1
#include "config/engines.def"
    ,
    LLMMEM__RUNTIMES = 0
#define LLMMEM__RUNTIME(value, name, row) +1
#include "config/engines.def"
};
extern const llmmem__engine *const llmmem__engine_by_value[LLMMEM__ENGINES];
extern const llmmem__engine *const llmmem__runtime_by_value[LLMMEM__RUNTIMES];
/* The row of a gate's value (LLMMEM_P_ENGINE or LLMMEM_P_RUNTIME); NULL when none. */
static inline const llmmem__engine *llmmem__engine_of(int gate, int64_t value)
{
    if (gate == LLMMEM_P_ENGINE)
        return value >= 0 && value < LLMMEM__ENGINES ? llmmem__engine_by_value[value] : NULL;
    if (gate == LLMMEM_P_RUNTIME)
        return value >= 0 && value < LLMMEM__RUNTIMES ? llmmem__runtime_by_value[value] : NULL;
    return NULL;
}
/* The row a configuration runs: its runtime in mode inference, else its engine. */
static inline const llmmem__engine *llmmem__engine_for(const struct llmmem_config *c)
{
    return c->mode == LLMMEM__MODE_INFERENCE ? llmmem__engine_of(LLMMEM_P_RUNTIME, c->runtime)
                                             : llmmem__engine_of(LLMMEM_P_ENGINE, c->engine);
}
/* Rows in table order (engines, then runtimes); NULL past the end. */
const llmmem__engine *llmmem__engine_at(int index);
/* Every setting that does not apply where it is set (engines/applies.c): with notes NULL
 * the first one set through the API is an error naming it and why; with a result, each
 * one a file set is listed in its notes. */
int llmmem__applies_check(const struct llmmem_config *c, const struct llmmem_model *m, struct llmmem_result *notes);

/* One training estimate as the skeleton runs it (estimate.c). */
#define LLMMEM__ENGINE_STATE_WORDS 64
typedef struct llmmem__engine_run {
    const llmmem__engine *e;
    const struct llmmem_model *m;
    const struct llmmem_config *orig; /* the caller's configuration */
    struct llmmem_config c;           /* with the engine's precision resolved */
    const struct llmmem_config *cx;   /* what the model computes with: &c, or &cx_own */
    struct llmmem_config cx_own;
    struct llmmem_result *out;
    llmmem__layout l; /* unset for a one-GPU engine */
    llmmem__train t;  /* the training model of one GPU, then the engine's share of it */
    llmmem__engine_extra x;
    uint64_t host_pinned, host_pageable, nvme; /* bytes per node off the GPU */
    uint64_t sharded;    /* bytes per GPU that shrink as 1/dp (gpus_needed) */
    /* the engine's own state from its shard hook to its terms hook
     * (LLMMEM__ENGINE_STATE: a struct of its file's, checked to fit) */
    union {
        uint64_t u[LLMMEM__ENGINE_STATE_WORDS];
        double d;
        void *p;
    } state;
} llmmem__engine_run;
/* The engine's state of type `type` in run r (a struct its file defines, after
 * LLMMEM__ENGINE_STATE_FITS(type) at file scope). */
#define LLMMEM__ENGINE_STATE(type, r) ((type *)(void *)(r)->state.u)
#define LLMMEM__ENGINE_STATE_FITS(type)                                                                 \
    _Static_assert(sizeof(type) <= sizeof(((llmmem__engine_run *)0)->state), #type " fits the run's state")
/* llmmem_estimate; sink: NULL, or where the allocator replay records every
 * event of the run it draws (llmmem_timeline) (estimate.c). */
int llmmem__estimate(struct llmmem_result *out, const struct llmmem_model *m, const struct llmmem_config *c,
                     struct llmmem__tl *sink);
/* The training estimate of row e: the skeleton (estimate.c). */
int llmmem__engine_estimate(struct llmmem_result *out, const struct llmmem_model *m,
                            const struct llmmem_config *c, const llmmem__engine *e, struct llmmem__tl *sink);
/* The inference estimate of runtime row e (inference.c); search: look for the
 * tensor-parallel size that fits when this one does not (those estimates
 * record nothing). */
int llmmem__engine_infer(struct llmmem_result *r, const struct llmmem_model *m, const struct llmmem_config *c,
                         const llmmem__engine *e, bool search, struct llmmem__tl *sink);

/* ZeRO's data-parallel traffic, also Megatron-DeepSpeed's (zero.c). */
double llmmem__zero_dp_seconds(const struct llmmem_config *c, const llmmem__dp_traffic *d);

/* The rows (config/engines.def). */
#define LLMMEM__ENGINE(value, name, row) extern const llmmem__engine row;
#define LLMMEM__RUNTIME(value, name, row) extern const llmmem__engine row;
#include "config/engines.def"

/* ---- end of the engines block ---- */

/* Tests only (test_megatron_stages): true makes every Megatron stage's whole
 * result, as before the stages' peaks were numbers (megatron.c). */
extern bool llmmem__megatron_every_stage;

#endif /* LLMMEM_ENGINES_ENGINES_H */
