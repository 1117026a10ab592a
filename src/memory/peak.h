/* The peak of a result (peak.c): sums each phase, applies the allocator
 * model (the replay's peaks when it ran, replay/) and the calibration
 * profile, compares with the GPU. Not installed. */
#ifndef LLMMEM_MEMORY_PEAK_H
#define LLMMEM_MEMORY_PEAK_H

#include "core/result.h"
#include "memory/alloc.h"
#include "model/model.h"

/* Applies the config's calibration profile to a result's components before the
 * peak is taken (calib.c); no-op without a profile. */
void llmmem__calib_apply(struct llmmem_result *r, const struct llmmem_config *c);

/* The beginning of the note that says why the allocator replay did not run
 * (reserved.c); the result's replay_skip_note indexes it. */
#define LLMMEM__NO_REPLAY "peak_reserved from the rule of thumb: "

/* The model a result describes: its model_type, and whether it is approximate
 * (LLMMEM_R_APPROXIMATE, with a note saying why). */
void llmmem__result_model(struct llmmem_result *r, const struct llmmem_model *m);
/* Marks the result approximate, with a note, where the reference harness (issue 24)
 * found the model_type's estimate off by more than 5% in that mode (training, else
 * HF inference) and the term is not yet found (the table in peak.c). For runs of
 * the transformers model code only: HF generate, and training engines other than
 * Megatron. */
void llmmem__result_harness_gap(struct llmmem_result *r, const struct llmmem_model *m, bool training);

/* Sums each phase, picks the peak phase, applies the allocator model, adds the
 * CUDA context and compares with the GPU: fills the peak/fits keys. */
int llmmem__result_finish(struct llmmem_result *r, const struct llmmem_config *c);
/* A run that does not start (vLLM refusing its budget) after llmmem__result_finish:
 * the total becomes the capacity plus `shortfall` (> 0), the bytes it lacks, so that
 * fits, utilization and headroom say "does not fit" as the numbers do. */
void llmmem__result_short(struct llmmem_result *r, uint64_t shortfall);

/* The host verdict, once every host figure is in: with a host RAM size per node
 * (host_memory_bytes > 0) sets host_memory_bytes and fits_host = max(host_bytes,
 * host_load_peak_bytes) <= that size, with a note when it does not fit. */
void llmmem__result_host_verdict(struct llmmem_result *r, const struct llmmem_config *c);

#endif /* LLMMEM_MEMORY_PEAK_H */
