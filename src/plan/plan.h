/* The planner's step-time model. Not installed. */
#ifndef LLMMEM_PLAN_PLAN_H
#define LLMMEM_PLAN_PLAN_H

#include "engines/engines.h"

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

#endif /* LLMMEM_PLAN_PLAN_H */
