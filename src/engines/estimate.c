/* Estimator entry points: argument checks, the dispatcher, and the single-GPU
 * training engine. Every engine shares the training model (train.c) and
 * differs only in what it shards, replicates, offloads and buffers. */
#include "engines/engines.h"

int llmmem_estimate_single(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = llmmem__check_args(out, model, cfg, "llmmem_estimate_single");
    if (rc)
        return rc;
    if ((rc = llmmem__engine_check(model, cfg, LLMMEM__ENG_SINGLE)) != 0)
        return rc;
    struct llmmem_config c;
    llmmem__engine_precision(&c, cfg, LLMMEM__ENG_SINGLE);
    llmmem__result_clear(out);
    llmmem__train t;
    rc = llmmem__train_compute(&t, out, model, &c);
    if (rc)
        return rc;
    out->engine = LLMMEM__ENG_SINGLE;
    llmmem__result_set_i64(out, LLMMEM_R_NUM_GPUS, 1);
    llmmem__result_set_i64(out, LLMMEM_R_GPUS_NEEDED, 1);
    llmmem__engine_precision_report(out, cfg, &c, &t.st, LLMMEM__ENG_SINGLE, 0, 0);
    rc = llmmem__train_fill(out, &t, NULL, model, &c);
    if (rc == 0 && !out->v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i)
        llmmem__no_gpu_count_fits(out, "the single engine runs on one GPU; ddp, zero, fsdp or "
                                       "megatron split the memory");
    return rc;
}

/* A default sequence past a learned position table (GPT-2's 1024 rows) is not
 * the user's: the run takes the table's length, as a script that sets none
 * would (it could not run longer), with a note. An explicit setting that does
 * not fit stays an error (llmmem__engine_check). Returns true when *local
 * holds the adapted configuration. */
static bool fit_default_length(struct llmmem_config *local, const struct llmmem_model *m,
                               const struct llmmem_config *c)
{
    const bool learned = m && (m->family == LLMMEM__FAM_GPT2 || m->family == LLMMEM__FAM_OPT);
    if (!learned || m->max_positions <= 0)
        return false;
    if (c->mode == LLMMEM__MODE_TRAINING) {
        if (c->seq_len <= m->max_positions || llmmem__config_was_set(c, LLMMEM_P_SEQ_LEN))
            return false;
        *local = *c;
        local->seq_len = m->max_positions;
        return true;
    }
    if (c->prompt_len + c->decode_len <= m->max_positions || llmmem__config_was_set(c, LLMMEM_P_PROMPT_LEN) ||
        llmmem__config_was_set(c, LLMMEM_P_DECODE_LEN) || c->decode_len >= m->max_positions)
        return false;
    *local = *c;
    local->prompt_len = m->max_positions - c->decode_len;
    return true;
}

static int estimate_as_given(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg);

int llmmem_estimate(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    if (!cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_estimate: config is NULL");
    struct llmmem_config local;
    if (!fit_default_length(&local, model, cfg))
        return estimate_as_given(out, model, cfg);
    int rc = estimate_as_given(out, model, &local);
    if (rc == 0 && cfg->mode == LLMMEM__MODE_TRAINING)
        llmmem__result_note(out, "seq_len defaults to %lld, the length of %s's learned position table "
                                 "(max_position_embeddings); set it to choose another",
                            (long long)local.seq_len, model->model_type);
    else if (rc == 0)
        llmmem__result_note(out, "prompt_len defaults to %lld so that prompt and decode fit %s's learned "
                                 "position table of %lld (max_position_embeddings); set it to choose another",
                            (long long)local.prompt_len, model->model_type, (long long)model->max_positions);
    return rc;
}

static int estimate_as_given(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    if (cfg->mode == LLMMEM__MODE_INFERENCE) {
        int rc = model ? llmmem__engine_check_inference(model, cfg) : 0;
        if (rc == 0)
            rc = llmmem_estimate_inference(out, model, cfg);
        if (rc == 0 && cfg->lora_rank > 0)
            llmmem__result_note(out, "lora_rank = %lld ignored in inference: the base model is "
                                     "estimated; adapter weights (and vLLM's enable_lora slots) are "
                                     "not counted",
                                (long long)cfg->lora_rank);
        return rc;
    }
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
