/* Estimator entry points: argument checks, the dispatcher, and the single-GPU
 * training engine. Every engine shares the training model (train.c) and
 * differs only in what it shards, replicates, offloads and buffers. */
#include "engines/engines.h"

int llmmem_estimate_single(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = llmmem__check_args(out, model, cfg, "llmmem_estimate_single");
    if (rc)
        return rc;
    llmmem__result_clear(out);
    llmmem__train t;
    rc = llmmem__train_compute(&t, out, model, cfg);
    if (rc)
        return rc;
    out->engine = LLMMEM__ENG_SINGLE;
    llmmem__result_set_i64(out, LLMMEM_R_NUM_GPUS, 1);
    llmmem__result_set_i64(out, LLMMEM_R_GPUS_NEEDED, 1);
    rc = llmmem__train_fill(out, &t, NULL, model, cfg);
    if (rc == 0 && !out->v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i)
        llmmem__no_gpu_count_fits(out, "the single engine runs on one GPU; ddp, zero, fsdp or "
                                       "megatron split the memory");
    return rc;
}

int llmmem_estimate(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    if (!cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_estimate: config is NULL");
    if (cfg->mode == LLMMEM__MODE_INFERENCE)
        return llmmem_estimate_inference(out, model, cfg);
    switch (cfg->engine) {
    case LLMMEM__ENG_SINGLE: return llmmem_estimate_single(out, model, cfg);
    case LLMMEM__ENG_DDP: return llmmem_estimate_ddp(out, model, cfg);
    case LLMMEM__ENG_ZERO: return llmmem_estimate_zero(out, model, cfg);
    case LLMMEM__ENG_FSDP: return llmmem_estimate_fsdp(out, model, cfg);
    case LLMMEM__ENG_MEGATRON: return llmmem_estimate_megatron(out, model, cfg);
    case LLMMEM__ENG_MEGATRON_DEEPSPEED: return llmmem_estimate_megatron_deepspeed(out, model, cfg);
    }
    return llmmem__error(LLMMEM_E_INVALID_ARG, "unknown engine %lld", (long long)cfg->engine);
}
