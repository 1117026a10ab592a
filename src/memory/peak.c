/* The peak of a result: each phase summed, the peak phase, the allocator model,
 * the CUDA context and the fit against the GPU; a calibration profile applied
 * to the components first. */
#include "memory/peak.h"

#include <math.h>

/* The phase with the largest total (the first of equals); -1 when none is used. */
static int peak_phase_of(const struct llmmem_result *r, uint64_t *peak, llmmem__ovf *o)
{
    int peak_phase = -1;
    *peak = 0;
    for (int ph = 0; ph < LLMMEM__PHASES; ph++) {
        if (!r->phase_used[ph])
            continue;
        uint64_t t = llmmem__result_phase_total(r, ph, o);
        if (peak_phase < 0 || t > *peak) {
            *peak = t;
            peak_phase = ph;
        }
    }
    return peak_phase;
}

/* Reserved bytes beyond the allocated peak as the allocator replay found
 * them (reserved.c): the replay's own peaks differ from the phase model's by
 * the tensors it draws coarser, so its fragmentation (peak reserved less
 * peak allocated) is laid on the validated allocated peak. A run the replay
 * saw fit in the GPU after the allocator released its cache stays within
 * the budget. */
static uint64_t replayed_reserved(const struct llmmem_result *r, const struct llmmem_config *c, uint64_t peak,
                                  llmmem__ovf *o)
{
    uint64_t slack = r->replay_reserved > r->replay_allocated ? r->replay_reserved - r->replay_allocated : 0;
    uint64_t reserved = llmmem__add(o, peak, slack);
    llmmem__alloc_conf conf;
    llmmem__alloc_conf_of(&conf, c);
    if (!r->replay_oom && conf.budget && reserved > conf.budget && peak <= conf.budget)
        reserved = conf.budget;
    /* A replay that ran out of memory (a segment the budget could not hold even
     * after the cache was released) reserved more than the budget: the figure
     * says so too, so that the verdict follows from the numbers (fits iff total
     * <= capacity). The replay went on past the failure as if it had succeeded;
     * its peak reserved is what the run would have needed. */
    if (r->replay_oom && conf.budget) {
        uint64_t over = r->replay_reserved > conf.budget ? r->replay_reserved : llmmem__add(o, conf.budget, 1);
        if (reserved < over)
            reserved = over;
    }
    return reserved;
}

/* Reserved bytes: the allocator replay, or the rule of thumb (alloc.c); the
 * slack scaled by a calibration profile. */
static uint64_t reserved_of(const struct llmmem_result *r, const struct llmmem_config *c, uint64_t peak,
                            llmmem__ovf *o)
{
    uint64_t reserved = r->replayed ? replayed_reserved(r, c, peak, o)
                                    : llmmem__alloc_reserved(peak, r->largest_block, r->checkpointing,
                                                             c->expandable_segments != 0);
    if (c->calibrated && c->calib_reserved != 1.0) {
        double head = reserved > peak ? (double)(reserved - peak) * c->calib_reserved : 0.0;
        /* 1.8e19 < 2^64: the conversion is defined below it; above, an overflow */
        if (head >= 1.8e19)
            o->overflow = true;
        else
            reserved = llmmem__add(o, peak, (uint64_t)(head > 0 ? head : 0));
    }
    /* a flat fragmentation allowance of the profile (fragmentation_gib) */
    if (c->calibrated && c->calib_fragmentation_bytes)
        reserved = llmmem__add(o, reserved, c->calib_fragmentation_bytes);
    return reserved;
}

/* The allocator's settings act through the replay alone: where it did not
 * run (an engine it does not draw, allocator_replay off, a timeline past its
 * bounds) a setting other than its default would be ignored, so it is
 * refused. */
static int replay_settings_check(const struct llmmem_result *r, const struct llmmem_config *c)
{
    static const struct {
        int param;
        const char *name;
    } knobs[] = {{LLMMEM_P_MAX_SPLIT_SIZE_BYTES, "max_split_size_bytes"},
                 {LLMMEM_P_GC_THRESHOLD, "garbage_collection_threshold"},
                 {LLMMEM_P_EMPTY_CACHE_STEPS, "empty_cache_steps"},
                 {LLMMEM_P_PRIOR_WORKSPACE_SEGMENT_BYTES, "prior_workspace_segment_bytes"}};
    const double value[] = {(double)c->max_split_size_bytes, c->gc_threshold, (double)c->empty_cache_steps,
                            (double)c->prior_ws_segment};
    /* PYTORCH_CUDA_ALLOC_CONF as torch 2.11 parses it (c10/core/AllocatorConfig.cpp):
     * parseMaxSplitSize takes whole MiB, "max_split_size_mb too small, must be >= 20"
     * (kLargeBuffer); parseGarbageCollectionThreshold needs 0 < value < 1 */
    const int64_t MiB = INT64_C(1) << 20;
    if (c->max_split_size_bytes > 0 && (c->max_split_size_bytes < 20 * MiB || c->max_split_size_bytes % MiB))
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "max_split_size_bytes = %lld%s: PyTorch reads max_split_size_mb in whole MiB of at "
                             "least 20 (c10/core/AllocatorConfig.cpp parseMaxSplitSize); 0 = unlimited",
                             (long long)c->max_split_size_bytes, llmmem__config_origin(c, LLMMEM_P_MAX_SPLIT_SIZE_BYTES));
    if (c->gc_threshold >= 1.0)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "garbage_collection_threshold = %g%s: PyTorch refuses 1.0 and above "
                             "(c10/core/AllocatorConfig.cpp parseGarbageCollectionThreshold: 0 < value < 1); 0 = off",
                             c->gc_threshold, llmmem__config_origin(c, LLMMEM_P_GC_THRESHOLD));
    if (r->replayed)
        return LLMMEM_OK;
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
        if (value[i] != 0.0)
            return llmmem__error(LLMMEM_E_UNSUPPORTED,
                                 "%s = %.16g%s, but the caching allocator was not replayed (%s): the "
                                 "replay draws single-GPU training and HF inference with "
                                 "allocator_replay on; leave it at 0",
                                 knobs[i].name, value[i], llmmem__config_origin(c, knobs[i].param),
                                 !c->allocator_replay       ? "allocator_replay is off"
                                 : r->no_replay             ? r->no_replay
                                 : r->replay_skip_note >= 0 ? r->notes[r->replay_skip_note]
                                                            : "the timeline does not draw this run");
    return LLMMEM_OK;
}

/* Families whose estimate the reference harness (issue 24: the real transformers
 * step on fake tensors, test/reference/harness.py) finds more than 5% off, with
 * the term that differs not yet found: their results say approximate rather than
 * give a confident wrong figure. Source: the rows of
 * test/data/reference/matrix.harness.jsonl (their "known" bands, also listed in
 * matrix-known.txt); each entry names its rows and the gap they measure. Remove an
 * entry when its gap is traced and fixed. */
static const struct {
    const char *model_type;
    bool training; /* training (else HF inference) */
    const char *gap; /* how far the harness's phase peak is from the estimate, its rows */
} harness_gaps[] = {
    {"gpt_neox_japanese", true,
     "peaks up to 23.3% above this estimate (rows gpt_neox_japanese.lora forward -23.31%, .bf16 -19.74%, "
     ".amp -17.27%; .eager +7.76%, below it)"},
    {"gpt_neox_japanese", false, "peaks 47.8% above this estimate at prefill (row gpt_neox_japanese.generate)"},
    {"mpt", true, "peaks up to 20.4% above this estimate (rows mpt.lora forward -20.40%, .bf16 -13.99%, .amp -9.68%)"},
    {"mpt", false, "peaks 38.1% above this estimate at prefill (row mpt.generate)"},
    {"gpt_oss", true,
     "peaks up to 9.5% above this estimate in backward (rows gpt_oss.bf16 and .ckpt -9.50%, .eager -8.30%, "
     ".amp -7.71%)"},
    {"gpt_oss", false, "peaks 5.4% above this estimate at prefill (row gpt_oss.generate)"},
    {"mixtral", true,
     "peaks up to 9.1% above this estimate in backward (rows mixtral.eager -9.09%, .bf16 and .ckpt -8.2%, "
     ".amp -7.69%)"},
    {"olmoe", true,
     "peaks up to 7.7% above this estimate in backward (rows olmoe.eager -7.70%, .bf16 and .ckpt -7.60%, "
     ".amp -6.71%)"},
    {"gptj", true, "peaks up to 6.4% above this estimate (rows gptj.bf16 forward -6.41%, backward -6.24%)"},
    {"gptj", false, "peaks 8.1% above this estimate at prefill (row gptj.generate)"},
    {"codegen", true,
     "peaks up to 6.4% above this estimate (rows codegen.bf16 forward -6.42%, backward -6.25%, .lora forward "
     "-6.01%)"},
    {"codegen", false, "peaks 9.7% above this estimate at prefill (row codegen.generate)"},
    {"cohere", true,
     "peaks up to 10.9% above this estimate in backward (rows cohere.amp -10.94%, .bf16 and .ckpt -10.93%)"},
    {"deepseek_v3", true,
     "peaks up to 41.7% above this estimate with LoRA (rows deepseek_v3.lora backward -41.72%, forward "
     "-37.95%: the real model trains 136,503,296 adapter parameters where this counts 10,489,856)"},
    {"diffllama", true,
     "peaks up to 20.3% above this estimate with eager attention (rows diffllama.eager forward -20.31%, "
     "backward -19.74%)"},
};

void llmmem__result_harness_gap(struct llmmem_result *r, const struct llmmem_model *m, bool training)
{
    for (size_t i = 0; i < sizeof harness_gaps / sizeof harness_gaps[0]; i++)
        if (harness_gaps[i].training == training && llmmem__model_type_is(m, harness_gaps[i].model_type)) {
            llmmem__result_set_i64(r, LLMMEM_R_APPROXIMATE, 1);
            llmmem__result_note(r, "approximate: the reference harness (the real transformers step on fake "
                                   "tensors, test/data/reference/matrix.harness.jsonl) %s for %s %s; the term "
                                   "that differs is not yet found",
                                harness_gaps[i].gap, m->model_type, training ? "training" : "inference");
            return;
        }
}

void llmmem__result_model(struct llmmem_result *r, const struct llmmem_model *m)
{
    /* both are LLMMEM__NAME_MAX long: the model's name always fits */
    _Static_assert(sizeof r->model_type >= sizeof m->model_type, "a model_type fits the result's");
    memcpy(r->model_type, m->model_type, sizeof m->model_type);
    const bool approximate = m->generic || m->from_size_only;
    llmmem__result_set_i64(r, LLMMEM_R_APPROXIMATE, approximate);
    if (m->generic)
        llmmem__result_note(r, "approximate: model_type \"%s\" is not in the registry; estimated as a "
                               "decoder from the keys every HF config shares (layers, hidden, heads, "
                               "head_dim, MLP, experts, vocabulary)",
                            m->model_type);
    else if (m->from_size_only && m->size_derived[0])
        llmmem__result_note(r, "approximate: %s derived from num_parameters = %lld (a llama-like decoder "
                               "of that size, around the keys given); give them, or leave num_parameters "
                               "out, for the model's own",
                            m->size_derived, (long long)m->raw_target);
    else if (m->from_size_only)
        llmmem__result_note(r, "approximate: the shape is derived from num_parameters = %lld alone "
                               "(a llama-like decoder of that size); give num_layers, hidden_size and "
                               "num_heads for the model's own",
                            (long long)m->raw_target);
}

int llmmem__result_finish(struct llmmem_result *r, const struct llmmem_config *c)
{
    llmmem__ovf o = {false};
    llmmem__calib_apply(r, c);
    uint64_t peak;
    int peak_phase = peak_phase_of(r, &peak, &o);
    if (peak_phase < 0)
        return llmmem__error(LLMMEM_E_INTERNAL, "estimate produced no phase");
    const llmmem__gpu *g = llmmem__gpu_at((int)c->gpu);
    if (!g)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "gpu index %lld is not in the GPU table",
                             (long long)c->gpu);
    int rc = replay_settings_check(r, c);
    if (rc)
        return rc;
    /* Loading and quantising the weights (QLoRA) can peak above the step:
     * max_memory_allocated is over the whole process. */
    const uint64_t load_peak = llmmem__result_u64(r, LLMMEM_R_LOAD_PEAK_BYTES);
    if (load_peak > peak) {
        peak = load_peak;
        llmmem__result_note(r, "the peak is reached while the weights are loaded and quantised, not in a step");
    }
    uint64_t reserved = reserved_of(r, c, peak, &o);
    uint64_t ctx = llmmem__gpu_context_calibrated(c, g);
    /* paged (CUDA managed) optimizer state: resident beside the allocator's segments */
    uint64_t total = llmmem__add(&o, llmmem__add(&o, reserved, ctx), llmmem__result_u64(r, LLMMEM_R_MANAGED_BYTES));
    uint64_t cap = llmmem__gpu_capacity(c, g);
    /* the profile's flat overhead (overhead_gib: other processes, NCCL, what the user
     * knows of) and safety margin (a share of the capacity kept free): the verdict and
     * the headroom count against cap - margin, said in a note */
    uint64_t keep = 0;
    if (c->calibrated) {
        total = llmmem__add(&o, total, c->calib_overhead_bytes);
        keep = (uint64_t)ceil((double)cap * c->calib_safety_margin);
        if (c->calib_overhead_bytes)
            llmmem__result_note(r, "calibration: a flat overhead of %.2f GiB is in the total per GPU (overhead_gib)",
                                (double)c->calib_overhead_bytes / 1073741824.0);
        if (c->calib_fragmentation_bytes)
            llmmem__result_note(r, "calibration: a flat fragmentation allowance of %.2f GiB is in peak reserved "
                                   "(fragmentation_gib)",
                                (double)c->calib_fragmentation_bytes / 1073741824.0);
        if (keep)
            llmmem__result_note(r, "calibration: a safety margin of %g%% of the GPU (%.2f GiB) is kept free: fits "
                                   "and headroom count against %.2f GiB (safety_margin)",
                                c->calib_safety_margin * 100.0, (double)keep / 1073741824.0,
                                (double)(cap - keep) / 1073741824.0);
    }
    const uint64_t usable = cap - keep; /* keep <= cap / 2 */
    /* headroom_bytes is int64: total - cap beyond INT64_MAX has no representation */
    if (total > usable && total - usable > (uint64_t)INT64_MAX)
        o.overflow = true;
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "estimate overflows 64-bit byte counts (the workload is too large to represent)");
    if (r->stage_count == 0) {
        r->stage_count = 1;
        r->stage_peak[0] = peak;
    }
    llmmem__result_set_u64(r, LLMMEM_R_PEAK_ALLOCATED_BYTES, peak);
    llmmem__result_set_u64(r, LLMMEM_R_PEAK_RESERVED_BYTES, reserved);
    llmmem__result_set_u64(r, LLMMEM_R_CUDA_CONTEXT_BYTES, ctx);
    llmmem__result_set_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU, total);
    llmmem__result_set_u64(r, LLMMEM_R_GPU_MEMORY_BYTES, cap);
    llmmem__result_set_i64(r, LLMMEM_R_PEAK_PHASE, peak_phase);
    /* the verdict is a function of the numbers: fits iff total <= capacity (less the
     * profile's safety margin) */
    llmmem__result_set_i64(r, LLMMEM_R_FITS, total <= usable);
    /* near the boundary within 5% of the reserved bytes: the ceiling test/data/tolerances.tsv
     * holds the allocator's peak_reserved_bytes to (docs/accuracy.md) */
    llmmem__result_set_u64(r, LLMMEM_R_MARGIN_BYTES, reserved / 20 + (reserved % 20 != 0));
    llmmem__result_set_f64(r, LLMMEM_R_UTILIZATION, cap ? (double)total / (double)cap : 0.0);
    llmmem__result_set_i64(r, LLMMEM_R_HEADROOM_BYTES,
                           total <= usable ? (int64_t)(usable - total) : -(int64_t)(total - usable));
    if (r->v[LLMMEM_R_PIPELINE_STAGES - LLMMEM_R_PARAMS].i == 0)
        llmmem__result_set_i64(r, LLMMEM_R_PIPELINE_STAGES, r->stage_count);
    for (int i = 0; i < llmmem__config_note_count(c); i++)
        llmmem__result_note_join(r, c->side->notes[i], (const char *)NULL);
    return LLMMEM_OK;
}

void llmmem__result_host_verdict(struct llmmem_result *r, const struct llmmem_config *c)
{
    if (c->host_memory_bytes <= 0)
        return;
    const uint64_t cap = (uint64_t)c->host_memory_bytes;
    const uint64_t step = llmmem__result_u64(r, LLMMEM_R_HOST_BYTES);
    const uint64_t load = llmmem__result_u64(r, LLMMEM_R_HOST_LOAD_PEAK_BYTES);
    const uint64_t need = llmmem__max(step, load);
    llmmem__result_set_u64(r, LLMMEM_R_HOST_MEMORY_BYTES, cap);
    llmmem__result_set_i64(r, LLMMEM_R_FITS_HOST, need <= cap);
    if (need > cap)
        llmmem__result_note(r, "host RAM: %.2f GiB per node needed %s, %.2f GiB given (host_memory_bytes): "
                               "does not fit",
                            (double)need / 1073741824.0,
                            load > step ? "while the weights load (host_load_peak_bytes)" : "(host_bytes)",
                            (double)cap / 1073741824.0);
}

void llmmem__result_short(struct llmmem_result *r, uint64_t shortfall)
{
    const uint64_t cap = llmmem__result_u64(r, LLMMEM_R_GPU_MEMORY_BYTES);
    uint64_t total = llmmem__result_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
    if (shortfall == 0)
        shortfall = 1;
    if (shortfall > (uint64_t)INT64_MAX - cap)
        shortfall = (uint64_t)INT64_MAX - cap;
    if (total <= cap)
        total = cap + shortfall;
    llmmem__result_set_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU, total);
    llmmem__result_set_i64(r, LLMMEM_R_FITS, 0);
    llmmem__result_set_f64(r, LLMMEM_R_UTILIZATION, cap ? (double)total / (double)cap : 0.0);
    llmmem__result_set_i64(r, LLMMEM_R_HEADROOM_BYTES, -(int64_t)(total - cap));
}

void llmmem__calib_apply(struct llmmem_result *r, const struct llmmem_config *c)
{
    if (!c->calibrated)
        return;
    for (int ph = 0; ph < LLMMEM__PHASES; ph++)
        for (int k = 0; k < LLMMEM__COMPONENTS; k++) {
            double s = c->calib_component[k];
            if (s != 1.0 && r->bytes[ph][k]) {
                double v = (double)r->bytes[ph][k] * s;
                r->bytes[ph][k] = v >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(v);
            }
        }
}
