/* llmmem_estimate, the per-engine entry points, and the skeleton every
 * training estimate runs.
 *
 * llmmem_estimate picks the row of the configuration's engine (mode training)
 * or runtime (mode inference) from the table (registry.c) and runs it; the
 * per-engine public functions are thin wrappers that set the engine and call
 * llmmem_estimate, so both give the same answer. The training skeleton is
 * written once: the common checks and the layout, the row's own checks, the
 * engine's precision, the single-GPU training model (train/train.c), what the
 * row shards, offloads and buffers, the phases (train/phases.c), the
 * allocator replay when the row draws it (replay/), the result's peak
 * (memory/peak.c), the row's terms and the GPU-count keys. Every engine differs only in its hooks
 * (engines.h); docs/engines.md lists the sources of each term. */
#include "engines/engines.h"

#include <stdlib.h>
#include <string.h>

/* A result an engine fills from scratch: cleared, tagged with its engine and
 * what the byte model reads of the row. */
static void result_begin(struct llmmem_result *out, const llmmem__engine *e)
{
    llmmem__result_clear(out);
    out->engine = e->value;
    out->caps = e->flags;
    out->no_replay = e->no_replay;
}

/* The checks before anything is computed: the common ones, the layout, the row's. */
static int run_checks(llmmem__engine_run *r, const struct llmmem_config *cfg)
{
    const llmmem__engine *e = r->e;
    int rc;
    if (e->precheck && (rc = e->precheck(cfg)) != 0)
        return rc;
    if ((rc = llmmem__engine_check(r->m, cfg, e)) != 0)
        return rc;
    /* one GPU: no layout to read (r->l stays unset) */
    if (!(e->flags & LLMMEM__CAP_ONE_GPU) &&
        (rc = llmmem__engine_layout(&r->l, r->m, cfg, (e->flags & LLMMEM__CAP_MODEL_PARALLEL) != 0, e->name)) != 0)
        return rc;
    return e->check ? e->check(r) : LLMMEM_OK;
}

/* The single-GPU training model the engine starts from: what the model
 * computes (activations, casts, loss) with r->cx, the model states with the
 * resolved precision r->c (a second pass when they differ: FSDP's policy). */
static int run_model(llmmem__engine_run *r)
{
    int rc = llmmem__train_compute(&r->t, r->out, r->m, r->cx);
    if (rc || r->cx == &r->c || r->cx->master_weights == r->c.master_weights)
        return rc;
    struct llmmem_result scratch;
    llmmem__train ts;
    llmmem__result_clear(&scratch);
    scratch.caps = r->e->flags;
    if ((rc = llmmem__train_compute(&ts, &scratch, r->m, &r->c)) != 0)
        return rc;
    r->t.st = ts.st;
    r->t.layer_grad = ts.layer_grad;
    r->t.other_grad = ts.other_grad;
    r->t.embed_grad_extra = ts.embed_grad_extra;
    return LLMMEM_OK;
}

/* After the phases: the row's terms, the GPU-count keys. */
static void run_keys(llmmem__engine_run *r)
{
    struct llmmem_result *out = r->out;
    if (r->e->terms)
        r->e->terms(r);
    /* host memory per node: the engine's offloaded states, and the activations
     * offloaded by every rank of the node (per GPU in the training model) */
    const uint64_t per_node = r->e->flags & LLMMEM__CAP_ONE_GPU ? 1 : (uint64_t)r->l.per_node;
    llmmem__ovf o = {false};
    llmmem__result_host(out, llmmem__add(&o, r->host_pinned, llmmem__mul(&o, r->t.host_pinned, per_node)),
                        r->host_pageable);
    if (!(r->e->flags & LLMMEM__CAP_ONE_GPU)) {
        llmmem__engine_keys(out, &r->l, r->nvme, r->sharded);
        return;
    }
    llmmem__result_set_i64(out, LLMMEM_R_NUM_GPUS, 1);
    llmmem__result_set_i64(out, LLMMEM_R_GPUS_NEEDED, 1);
    if (!out->v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i)
        llmmem__no_gpu_count_fits(out, r->e->no_split);
}

int llmmem__engine_estimate(struct llmmem_result *out, const struct llmmem_model *m,
                            const struct llmmem_config *cfg, const llmmem__engine *e, struct llmmem__tl *sink)
{
    int rc = llmmem__check_args(out, m, cfg, e->fn);
    if (rc)
        return rc;
    llmmem__engine_run r;
    r.e = e;
    r.m = m;
    r.orig = cfg;
    r.out = out;
    r.cx = &r.c;
    r.host_pinned = r.host_pageable = r.nvme = r.sharded = 0;
    if ((rc = run_checks(&r, cfg)) != 0)
        return rc;
    result_begin(out, e);
    llmmem__engine_precision(&r.c, cfg, e);
    if (cfg->accounting != LLMMEM__ACC_RUNTIME && e->formula)
        return e->formula(&r);
    if (e->compute)
        e->compute(&r);
    if ((rc = run_model(&r)) != 0)
        return rc;
    if (e->flags & LLMMEM__CAP_FUSED_ADAM)
        llmmem__optim_engine_fused(&r.t.st, &r.c);
    if (e->fill)
        return e->fill(&r);
    llmmem__engine_precision_report(out, cfg, &r.c, &r.t.st, e, 0, 0);
    const bool replay = (e->flags & LLMMEM__CAP_REPLAY) != 0; /* no engine buffers: the replay draws it */
    if (!replay)
        memset(&r.x, 0, sizeof r.x);
    if (e->shard && (rc = e->shard(&r)) != 0)
        return rc;
    if ((rc = llmmem__train_fill(out, &r.t, replay ? NULL : &r.x, m, r.cx)) != 0)
        return rc;
    if (replay && r.cx->allocator_replay && (rc = llmmem__reserved_train(out, &r.t, m, r.cx, sink)) != 0)
        return rc;
    if ((rc = llmmem__result_finish(out, r.cx)) != 0)
        return rc;
    run_keys(&r);
    return LLMMEM_OK;
}

/* ---- llmmem_estimate ---------------------------------------------------------- */

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

static int estimate_rows(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg,
                         struct llmmem__tl *sink);

/* A setting that does not apply is refused before anything is computed; one a file set is
 * listed in the result's notes after it. */
static int estimate_as_given(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg,
                             struct llmmem__tl *sink)
{
    int rc = llmmem__applies_check(cfg, model, NULL);
    if (rc == 0)
        rc = estimate_rows(out, model, cfg, sink);
    if (rc == 0)
        llmmem__applies_check(cfg, model, out);
    return rc;
}

static int estimate_rows(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg,
                         struct llmmem__tl *sink)
{
    const llmmem__engine *e = llmmem__engine_for(cfg);
    if (cfg->mode == LLMMEM__MODE_INFERENCE) {
        if (!e)
            return llmmem__error(LLMMEM_E_INVALID_ARG, "unknown runtime %lld", (long long)cfg->runtime);
        int rc = model ? llmmem__engine_check_inference(model, cfg, e) : 0;
        if (rc == 0)
            rc = llmmem__engine_infer(out, model, cfg, e, true, sink);
        if (rc == 0 && cfg->lora_rank > 0)
            llmmem__result_note(out, "lora_rank = %lld ignored in inference: the base model is "
                                     "estimated; adapter weights (and vLLM's enable_lora slots) are "
                                     "not counted",
                                (long long)cfg->lora_rank);
        return rc;
    }
    if (!e)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "unknown engine %lld", (long long)cfg->engine);
    return llmmem__engine_estimate(out, model, cfg, e, sink);
}

/* The vision tower by runtime (docs/models.md "Vision towers"): vLLM builds the
 * architectures' ForConditionalGeneration class (model_executor/models/
 * registry.py), image or video inputs and a trained tower need it; otherwise
 * the class AutoModelForCausalLM builds decides (transformers modeling_auto.py
 * MODEL_FOR_CAUSAL_LM_MAPPING_NAMES: the text model for llama4, qwen3_5,
 * qwen3_5_moe; the ForConditionalGeneration class for gemma3, gemma4, and the
 * llava/qwen2_vl configs as loaded). load_vision_tower overrides. */
static const char *tower_rule(bool *load, const struct llmmem_model *m, const struct llmmem_config *c)
{
    const bool training = c->mode == LLMMEM__MODE_TRAINING;
    if (c->load_vision_tower != LLMMEM__TRI_AUTO) {
        *load = c->load_vision_tower == LLMMEM__TRI_ON;
        return *load ? "load_vision_tower on (the ForConditionalGeneration class)"
                     : "load_vision_tower off (the text model)";
    }
    if (!training && c->runtime == LLMMEM__RT_VLLM) {
        *load = true;
        return "vLLM builds the ForConditionalGeneration class of the checkpoint's architectures";
    }
    if (c->images_per_sample > 0 || c->video_frames > 0) {
        *load = true;
        return "image or video inputs run the tower";
    }
    if (training && c->vision_training != LLMMEM__VT_FROZEN) {
        *load = true;
        return "vision_training trains the tower";
    }
    *load = m->tower_params == 0;
    return *load ? "AutoModelForCausalLM builds the ForConditionalGeneration class for this model_type"
                 : "AutoModelForCausalLM builds the text model for this model_type (transformers "
                   "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)";
}

/* A copy of the model with its towers counted (load) or left out. */
static struct llmmem_model *tower_view(const struct llmmem_model *m, bool load)
{
    struct llmmem_model *v = malloc(sizeof *v);
    if (!v)
        return NULL;
    *v = *m;
    v->memo = NULL;
    v->gguf = NULL; /* a GGUF model has no registry towers */
    const int64_t t = load ? m->tower_params : m->vision_params;
    v->params = load ? m->params + t : m->params - t;
    v->params_active = load ? m->params_active + t : m->params_active - t;
    v->vision_params = load ? t : 0;
    v->tower_params = load ? 0 : t;
    return v;
}

static int estimate_towers(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg,
                           struct llmmem__tl *sink);

int llmmem__estimate(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg, struct llmmem__tl *sink)
{
    if (!cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_estimate: config is NULL");
    const int64_t towers = model ? model->tower_params + model->vision_params : 0;
    if (!model || (towers == 0 && cfg->load_vision_tower == LLMMEM__TRI_AUTO))
        return estimate_towers(out, model, cfg, sink);
    if (towers == 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "load_vision_tower = %s: model \"%s\" has no vision tower",
                             llmmem_param_enum_name(LLMMEM_P_LOAD_VISION_TOWER, cfg->load_vision_tower),
                             model->model_type);
    bool load;
    const char *why = tower_rule(&load, model, cfg);
    if (!load && (cfg->images_per_sample > 0 || cfg->video_frames > 0 ||
                  (cfg->mode == LLMMEM__MODE_TRAINING && cfg->vision_training != LLMMEM__VT_FROZEN)))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "load_vision_tower = off with %s: the tower runs them",
                             cfg->images_per_sample > 0 || cfg->video_frames > 0 ? "image or video inputs"
                                                                                 : "vision_training");
    int rc;
    if (load == (model->vision_params > 0)) {
        rc = estimate_towers(out, model, cfg, sink);
    } else {
        struct llmmem_model *v = tower_view(model, load);
        if (!v)
            return llmmem__error(LLMMEM_E_NOMEM, "llmmem_estimate: out of memory");
        rc = estimate_towers(out, v, cfg, sink);
        free(v);
    }
    if (rc == 0)
        llmmem__result_note(out, "vision tower (%lld parameters with its projector) %s: %s", (long long)towers,
                            load ? "counted" : "left out", why);
    return rc;
}

static int estimate_towers(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg,
                           struct llmmem__tl *sink)
{
    struct llmmem_config local;
    if (!fit_default_length(&local, model, cfg)) {
        int rc = estimate_as_given(out, model, cfg, sink);
        if (rc == 0)
            llmmem__result_host_verdict(out, cfg);
        return rc;
    }
    int rc = estimate_as_given(out, model, &local, sink);
    if (rc == 0)
        llmmem__result_host_verdict(out, cfg);
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

int llmmem_estimate(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    return llmmem__estimate(out, model, cfg, NULL);
}

/* ---- the per-engine entry points ------------------------------------------------
 * llmmem_estimate_X(m, c) is llmmem_estimate on c with the engine set to X
 * (mode training). A configuration that sets another engine, or mode
 * inference, is refused naming both: the wrapper never answers for another
 * engine than its own. llmmem_estimate_inference is the same for mode. */

static int estimate_engine(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg, int engine,
                           const char *fn)
{
    int rc = llmmem__check_args(out, model, cfg, fn);
    if (rc)
        return rc;
    const char *name = llmmem_param_enum_name(LLMMEM_P_ENGINE, engine);
    if (llmmem__config_was_set(cfg, LLMMEM_P_ENGINE) && cfg->engine != engine)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "%s estimates engine %s, but the configuration sets engine %s%s: call "
                             "llmmem_estimate, or set engine %s",
                             fn, name, llmmem_param_enum_name(LLMMEM_P_ENGINE, cfg->engine),
                             llmmem__config_origin(cfg, LLMMEM_P_ENGINE), name);
    if (cfg->mode != LLMMEM__MODE_TRAINING)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "%s estimates training with engine %s, but the configuration sets mode "
                             "inference%s: call llmmem_estimate or llmmem_estimate_inference",
                             fn, name, llmmem__config_origin(cfg, LLMMEM_P_MODE));
    if (cfg->engine == engine)
        return llmmem_estimate(out, model, cfg);
    struct llmmem_config local = *cfg;
    local.engine = engine;
    return llmmem_estimate(out, model, &local);
}

#define LLMMEM__ENGINE_ENTRY(fn, value)                                                                \
    int fn(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)                     \
    {                                                                                                  \
        return estimate_engine(out, model, cfg, value, #fn);                                           \
    }
LLMMEM__ENGINE_ENTRY(llmmem_estimate_single, LLMMEM_ENGINE_SINGLE)
LLMMEM__ENGINE_ENTRY(llmmem_estimate_ddp, LLMMEM_ENGINE_DDP)
LLMMEM__ENGINE_ENTRY(llmmem_estimate_zero, LLMMEM_ENGINE_ZERO)
LLMMEM__ENGINE_ENTRY(llmmem_estimate_fsdp, LLMMEM_ENGINE_FSDP)
LLMMEM__ENGINE_ENTRY(llmmem_estimate_megatron, LLMMEM_ENGINE_MEGATRON)
LLMMEM__ENGINE_ENTRY(llmmem_estimate_megatron_deepspeed, LLMMEM_ENGINE_MEGATRON_DEEPSPEED)

int llmmem_estimate_inference(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    static const char fn[] = "llmmem_estimate_inference";
    if (!out || !model || !cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "%s: %s is NULL", fn,
                             !out ? "result" : !model ? "model" : "config");
    if (llmmem__config_was_set(cfg, LLMMEM_P_MODE) && cfg->mode != LLMMEM__MODE_INFERENCE)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "%s estimates inference, but the configuration sets mode training%s: call "
                             "llmmem_estimate, or set mode inference",
                             fn, llmmem__config_origin(cfg, LLMMEM_P_MODE));
    if (cfg->mode == LLMMEM__MODE_INFERENCE)
        return llmmem_estimate(out, model, cfg);
    struct llmmem_config local = *cfg;
    local.mode = LLMMEM__MODE_INFERENCE;
    return llmmem_estimate(out, model, &local);
}
