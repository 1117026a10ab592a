/* The planner (issue 7): the inverse questions (search.c), the enumeration of
 * layouts (layouts.c), the step-time model that ranks them (steptime.c) and
 * the reading of a plan (report.c). Formulas, constants and their sources:
 * docs/planner.md. Not installed. */
#ifndef LLMMEM_PLAN_PLAN_H
#define LLMMEM_PLAN_PLAN_H

#include "engines/engines.h"

#define LLMMEM__PLAN_MAX_K 64
#define LLMMEM__PLAN_REJECTS 4
#define LLMMEM__PLAN_MAX_NOTES 4
#define LLMMEM__PLAN_MAX_N_DIV 1024 /* divisors of N <= 1e7: at most 448 */
#define LLMMEM__PLAN_MAX_B_DIV 8192 /* divisors of a global batch <= 1e12: at most 6720 */

/* Modelled time of one optimizer step (training) or one generate call
 * (inference), in seconds, by part (docs/planner.md states every formula). */
typedef struct llmmem__steptime {
    double flops;      /* floating-point operations of the step, all GPUs together */
    double compute_s;  /* flops / (GPUs x dense bf16 rate x efficiency) */
    double bubble_s;   /* pipeline bubble: compute_s x (p - 1) / m */
    double comm_s;     /* DP/ZeRO/FSDP + TP + CP + EP + PP traffic / link bandwidth */
    double offload_s;  /* PCIe / NVMe traffic and the CPU optimizer */
    double overhead_s; /* per layer per pass latency (kernel launches) */
    double total_s;    /* the sum: no overlap is assumed */
} llmmem__steptime;
/* trainable: parameters with gradients (LLMMEM_R_TRAINABLE_PARAMS of the estimate). */
void llmmem__plan_step_time(llmmem__steptime *out, const struct llmmem_model *m,
                            const struct llmmem_config *c, int64_t trainable);

/* One kept layout: its configuration, step time and peak memory breakdown. */
typedef struct llmmem__plan_layout {
    struct llmmem_config cfg;
    llmmem__steptime time;
    uint64_t peak_allocated, peak_reserved, total, capacity;
    int64_t peak_phase;
    uint64_t comp[LLMMEM__COMPONENTS]; /* live bytes of the peak phase */
} llmmem__plan_layout;

/* The plan handle: fixed capacity, allocated once by llmmem_plan_new, so the
 * estimate loop never allocates. */
struct llmmem_plan {
    int count, top_k, mode, gpu;
    int64_t num_gpus, global_batch, candidates, feasible, estimates;
    int64_t rejected[LLMMEM__PLAN_REJECTS];
    int notes;
    char note[LLMMEM__PLAN_MAX_NOTES][LLMMEM__NOTE_MAX]; /* what the plan assumed (llmmem_plan_note) */
    char model_type[LLMMEM__NAME_MAX];
    int order[LLMMEM__PLAN_MAX_K]; /* slots by step time, fastest first */
    llmmem__plan_layout slot[LLMMEM__PLAN_MAX_K];
    int n_nd, n_bd;
    int64_t nd[LLMMEM__PLAN_MAX_N_DIV]; /* divisors of N */
    int64_t bd[LLMMEM__PLAN_MAX_B_DIV]; /* divisors of the global batch (micro-batch sizes) */
    int64_t vb[LLMMEM__PLAN_MAX_B_DIV]; /* those that split the global batch over the layout's dp */
    int64_t trainable_hint;             /* trainable parameters of the last fitting probe */
    struct llmmem_result scratch;
};

/* Divisors of n in ascending order (n >= 1); returns how many, at most cap (common.c). */
int llmmem__plan_divisors(int64_t *d, int cap, int64_t n);
/* The upper bound of a parameter in the parameter table (1 when unknown). */
int64_t llmmem__plan_param_hi(int param);

#endif /* LLMMEM_PLAN_PLAN_H */
