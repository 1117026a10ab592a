/* The live bytes of each phase of a training step (forward, backward,
 * optimizer) from a (possibly sharded) training model, by component. Each
 * phase is the largest of its candidate points; each point is one function
 * that fills a row with what is alive there. */
#include "train/train.h"

#include <stdio.h>
#include <string.h>

typedef uint64_t row[LLMMEM__COMPONENTS];

/* What every point of one step reads. */
typedef struct step {
    const llmmem__train *t;
    const llmmem__states *st;
    uint64_t L;
    bool steady;   /* not the first step: the optimizer state exists */
    bool ga;       /* gradient accumulation: gradients live across forwards */
    row base;      /* live through the whole step */
    uint64_t saved; /* activations kept at the end of forward */
    uint64_t cache; /* autocast cache at the end of forward */
    llmmem__ovf o;
} step;

static void put(uint64_t *r, int comp, uint64_t v, llmmem__ovf *o) { r[comp] = llmmem__add(o, r[comp], v); }

static uint64_t row_total(const uint64_t *r, llmmem__ovf *o)
{
    uint64_t sum = 0;
    for (int k = 0; k < LLMMEM__COMPONENTS; k++)
        sum = llmmem__add(o, sum, r[k]);
    return sum;
}

/* Copies the candidate row into `phase` when its total exceeds *best. */
static void keep_larger(uint64_t *phase, uint64_t *best, const uint64_t *cand, llmmem__ovf *o)
{
    uint64_t sum = row_total(cand, o);
    if (sum > *best) {
        *best = sum;
        memcpy(phase, cand, sizeof(row));
    }
}

/* Live through the whole step: weights, masters, optimizer state (steady
 * state: created at the first step), input ids, one cuBLAS workspace. What
 * forward keeps: every layer's saved tensors (under checkpointing its input)
 * and the autocast casts kept by the layers' matmuls. */
static void step_init(step *p, const llmmem__train *t, const struct llmmem_config *c)
{
    memset(p, 0, sizeof *p);
    p->t = t;
    p->st = &t->st;
    p->L = (uint64_t)(t->layers > 0 ? t->layers : 1);
    p->steady = c->step != LLMMEM__STEP_FIRST;
    p->ga = c->grad_accum_steps > 1;
    llmmem__ovf *o = &p->o;
    put(p->base, LLMMEM_C_WEIGHTS, p->st->weights, o);
    put(p->base, LLMMEM_C_MASTER_WEIGHTS, p->st->master, o);
    put(p->base, LLMMEM_C_OPTIMIZER_STATE, p->steady ? p->st->optim : 0, o);
    put(p->base, LLMMEM_C_OTHER, t->inputs, o);
    put(p->base, LLMMEM_C_WORKSPACE, t->workspace, o);
    p->saved = t->checkpointing ? llmmem__mul(o, t->ckpt_layer, llmmem__min(p->L, t->ckpt_live_fwd))
                                : llmmem__mul(o, t->act_layer, p->L);
    p->saved = llmmem__add(o, p->saved, t->act_other);
    p->cache = t->checkpointing ? t->cast_other
                                : llmmem__add(o, llmmem__mul(o, t->cast_layer, p->L), t->cast_other);
}

static uint64_t ga_grads(const step *p) { return p->ga ? p->st->grads : 0; }

/* Checkpoint inputs on the GPU with `left` layers to go in backward
 * (offloading keeps only a few, recipes.c). */
static uint64_t ckpt_inputs_bwd(step *p, uint64_t left)
{
    return llmmem__mul(&p->o, p->t->ckpt_layer, llmmem__min(left, p->t->ckpt_live_bwd));
}

/* Gradients alive in backward with the optimizer stepped inside it (recipes.c):
 * a held tied-head sum and one parameter's gradient. */
static void optim_in_bwd_grads(uint64_t *r, step *p, uint64_t grad, uint64_t temp)
{
    put(r, LLMMEM_C_GRADIENTS, llmmem__add(&p->o, p->t->grad_held, grad), &p->o);
    put(r, LLMMEM_C_OPTIMIZER_TRANSIENT, temp, &p->o);
}

/* ---- forward ---------------------------------------------------------------- */

/* At the loss: all saved tensors plus the loss working set. The autograd
 * thread's cuBLAS workspace (see backward) stays allocated once the first
 * backward has created it: steady-state forwards hold it. Under
 * checkpointing the layers' saved tensors are dropped as the forward goes,
 * but autocast's cache keeps every cached cast (trainable weights) until the
 * region ends; frozen weights (LoRA) are cast per use and not cached, so only
 * the head's cast, kept by its matmul, is alive at the loss (the probe's p17,
 * qwen2.5-0.5b LoRA under bf16 autocast). A frozen head keeps no input, but
 * its input is alive at the loss (head_input_live). */
static void forward_at_loss(uint64_t *r, step *p)
{
    const llmmem__train *t = p->t;
    llmmem__ovf *o = &p->o;
    memcpy(r, p->base, sizeof(row));
    if (p->steady)
        put(r, LLMMEM_C_WORKSPACE, t->workspace, o);
    put(r, LLMMEM_C_GRADIENTS, ga_grads(p), o);
    put(r, LLMMEM_C_ACTIVATIONS, p->saved, o);
    uint64_t cache = t->checkpointing ? llmmem__add(o, llmmem__mul(o, t->cast_cached_layer, p->L), t->cast_other)
                                      : p->cache;
    put(r, LLMMEM_C_AUTOCAST_CACHE, cache, o);
    put(r, LLMMEM_C_LOGITS, llmmem__add(o, t->logits_saved, t->logits_fwd_extra), o);
    put(r, LLMMEM_C_ACTIVATION_TRANSIENT,
        llmmem__add(o, t->quant_transient, t->logits_fwd_extra ? t->head_input_live : t->fwd_transient), o);
}

/* The vision encoder runs first: its working set peaks while only the
 * tower's own tensors are kept. */
static void forward_encoder(uint64_t *r, step *p)
{
    memcpy(r, p->base, sizeof(row));
    put(r, LLMMEM_C_GRADIENTS, ga_grads(p), &p->o);
    put(r, LLMMEM_C_ACTIVATIONS, p->t->vision_saved, &p->o);
    put(r, LLMMEM_C_ACTIVATION_TRANSIENT, p->t->encoder_transient, &p->o);
}

/* Inside the last decoder layer, where a mixer's forward working set is
 * large (fwd_layer_transient: Mamba's discretised [b, I, s, N] tensors, the
 * Mamba-2 scan's broadcast products, saved_kinds.c): everything forward
 * keeps (the head's tensors are not made yet; they are small beside it) and
 * that working set. */
static void forward_in_layer(uint64_t *r, step *p)
{
    const llmmem__train *t = p->t;
    memcpy(r, p->base, sizeof(row));
    if (p->steady)
        put(r, LLMMEM_C_WORKSPACE, t->workspace, &p->o);
    put(r, LLMMEM_C_GRADIENTS, ga_grads(p), &p->o);
    put(r, LLMMEM_C_ACTIVATIONS, p->saved, &p->o);
    put(r, LLMMEM_C_AUTOCAST_CACHE, p->cache, &p->o);
    put(r, LLMMEM_C_ACTIVATION_TRANSIENT, llmmem__add(&p->o, t->fwd_layer_transient, t->quant_transient), &p->o);
}

static void phase_forward(uint64_t *fw, step *p)
{
    forward_at_loss(fw, p);
    if (p->t->fwd_layer_transient) {
        row in;
        forward_in_layer(in, p);
        uint64_t fw_total = row_total(fw, &p->o);
        keep_larger(fw, &fw_total, in, &p->o);
    }
    if (p->t->encoder_transient) {
        row enc;
        forward_encoder(enc, p);
        uint64_t fw_total = row_total(fw, &p->o);
        keep_larger(fw, &fw_total, enc, &p->o);
    }
}

/* ---- backward --------------------------------------------------------------- */

/* Every backward point starts from the step's base plus a second cuBLAS
 * workspace: the autograd thread runs matmuls with its own cuBLAS handle,
 * cached per handle and stream for the life of the process
 * (CublasHandlePool.cpp cublas_handle_stream_to_workspace; the H200 probe
 * runs, one fresh process each, measure it in the optimizer phase and in
 * every later forward, test/data/probe). */
static void backward_point(uint64_t *r, step *p)
{
    memcpy(r, p->base, sizeof(row));
    put(r, LLMMEM_C_WORKSPACE, p->t->workspace, &p->o);
}

/* The start: the loss gradients beside everything forward kept. */
static void backward_start(uint64_t *r, step *p)
{
    backward_point(r, p);
    put(r, LLMMEM_C_GRADIENTS, llmmem__add(&p->o, ga_grads(p), p->t->loss_grad_accum), &p->o);
    put(r, LLMMEM_C_ACTIVATIONS, p->saved, &p->o);
    put(r, LLMMEM_C_AUTOCAST_CACHE, p->cache, &p->o);
    put(r, LLMMEM_C_LOGITS, llmmem__add(&p->o, p->t->logits_saved, p->t->logits_bwd_extra), &p->o);
}

/* A decoder layer in backward with `done` layers already through: saved
 * tensors fall while gradients grow; the layer's gradient temporaries. Under
 * checkpointing the layer's recomputed tensors and casts sit beside the
 * remaining checkpoint inputs. */
static void backward_layer(uint64_t *r, step *p, uint64_t done)
{
    const llmmem__train *t = p->t;
    llmmem__ovf *o = &p->o;
    const uint64_t head_grads = p->ga ? p->st->grads : t->other_grad;
    const uint64_t left = p->L - done;
    backward_point(r, p);
    if (t->optim_in_bwd)
        optim_in_bwd_grads(r, p, t->grad_inflight, t->step_inflight);
    else
        put(r, LLMMEM_C_GRADIENTS,
            p->ga ? p->st->grads : llmmem__add(o, head_grads, llmmem__mul(o, t->layer_grad, done)), o);
    if (t->checkpointing) {
        const uint64_t one = t->act_layer_max ? t->act_layer_max : t->act_layer; /* the recomputed layer */
        put(r, LLMMEM_C_ACTIVATIONS, llmmem__add(o, ckpt_inputs_bwd(p, left), one), o);
        put(r, LLMMEM_C_AUTOCAST_CACHE, llmmem__add(o, t->cast_layer, t->cast_other), o);
    } else {
        put(r, LLMMEM_C_ACTIVATIONS, llmmem__mul(o, t->act_layer, left), o);
        put(r, LLMMEM_C_AUTOCAST_CACHE, llmmem__add(o, llmmem__mul(o, t->cast_layer, left), t->cast_other), o);
    }
    put(r, LLMMEM_C_ACTIVATION_TRANSIENT, llmmem__add(o, t->bwd_transient, t->quant_transient), o);
}

/* The end: every gradient and the tied embedding's second one (states.c). */
static void backward_end(uint64_t *r, step *p)
{
    backward_point(r, p);
    if (p->t->optim_in_bwd)
        optim_in_bwd_grads(r, p, llmmem__add(&p->o, p->t->embed_grad_extra, p->t->grad_inflight_end), 0);
    else
        put(r, LLMMEM_C_GRADIENTS, llmmem__add(&p->o, p->st->grads, p->t->embed_grad_extra), &p->o);
}

/* The first layer's recompute, at its gate/up LoRA output (transient.c):
 * every checkpoint input, the layer's saved tensors but the down projection's,
 * and recompute_transient. An H200 allocation trace of the probe's p14
 * (mistral-7b LoRA, 2 x 8192 tokens) has exactly these at its peak. */
static void backward_recompute(uint64_t *r, step *p)
{
    const llmmem__train *t = p->t;
    llmmem__ovf *o = &p->o;
    backward_point(r, p);
    if (t->optim_in_bwd)
        optim_in_bwd_grads(r, p, t->grad_inflight, t->step_inflight);
    else
        put(r, LLMMEM_C_GRADIENTS, p->ga ? p->st->grads : t->other_grad, o);
    put(r, LLMMEM_C_ACTIVATIONS,
        llmmem__add(o, ckpt_inputs_bwd(p, p->L), llmmem__sub0(t->act_layer, t->mlp_tail)), o);
    put(r, LLMMEM_C_AUTOCAST_CACHE, llmmem__add(o, t->cast_layer, t->cast_other), o);
    put(r, LLMMEM_C_ACTIVATION_TRANSIENT, llmmem__add(o, t->recompute_transient, t->quant_transient), o);
}

/* Eager attention's softmax backward in a layer with `done` layers already
 * through (transient.c scores_point): every gradient made so far but the
 * layer's q/k/v (and an untied embedding's, made last), the layer's tensors
 * up to the softmax beside what the layers still to go keep (checkpoint inputs
 * and the recompute under checkpointing) and their weight casts, and the
 * score gradients. The head's cast is gone with the head's backward. */
static void backward_scores(uint64_t *r, step *p, uint64_t done)
{
    const llmmem__train *t = p->t;
    llmmem__ovf *o = &p->o;
    const uint64_t left = p->L - done;
    backward_point(r, p);
    if (t->optim_in_bwd)
        optim_in_bwd_grads(r, p, t->grad_inflight, t->step_inflight);
    else
        put(r, LLMMEM_C_GRADIENTS,
            p->ga ? p->st->grads
                  : llmmem__sub0(llmmem__add(o, t->other_grad, llmmem__mul(o, t->layer_grad, done + 1)),
                                 t->scores_grads_later),
            o);
    if (t->checkpointing) {
        put(r, LLMMEM_C_ACTIVATIONS, llmmem__add(o, ckpt_inputs_bwd(p, left), t->act_layer), o);
        put(r, LLMMEM_C_AUTOCAST_CACHE, t->cast_layer, o);
    } else {
        put(r, LLMMEM_C_ACTIVATIONS, llmmem__mul(o, t->act_layer, left), o);
        put(r, LLMMEM_C_AUTOCAST_CACHE, llmmem__mul(o, t->cast_layer, left), o);
    }
    put(r, LLMMEM_C_ACTIVATION_TRANSIENT, llmmem__add(o, t->scores_transient, t->quant_transient), o);
}

/* Adds an engine's extra bytes to a candidate row (x may be NULL). */
static void add_extra(uint64_t *r, const uint64_t *x, llmmem__ovf *o)
{
    if (!x)
        return;
    for (int k = 0; k < LLMMEM__COMPONENTS; k++)
        put(r, k, x[k], o);
}

/* The largest of: the start, the first and the last decoder layer, the end,
 * and the LoRA recompute point, each with the engine's bytes at that point. */
static void phase_backward(uint64_t *bw, step *p, const llmmem__engine_extra *x)
{
    uint64_t best = 0;
    row cand;
    const uint64_t *all = x ? x->bwd : NULL;
    backward_start(cand, p);
    add_extra(cand, all, &p->o);
    add_extra(cand, x ? x->bwd_start : NULL, &p->o);
    keep_larger(bw, &best, cand, &p->o);
    for (int i = 0; i < 2; i++) {
        backward_layer(cand, p, i == 0 ? 0 : p->L - 1);
        add_extra(cand, all, &p->o);
        add_extra(cand, x ? x->bwd_layer : NULL, &p->o);
        keep_larger(bw, &best, cand, &p->o);
    }
    if (p->t->embed_grad_extra || p->t->optim_in_bwd) {
        backward_end(cand, p);
        add_extra(cand, all, &p->o);
        keep_larger(bw, &best, cand, &p->o);
    }
    if (x && x->end_point) { /* the layers' gradients; the rest is the engine's */
        backward_point(cand, p);
        put(cand, LLMMEM_C_GRADIENTS,
            llmmem__add(&p->o, llmmem__mul(&p->o, p->t->layer_grad, p->L), p->t->other_grad), &p->o);
        add_extra(cand, all, &p->o);
        add_extra(cand, x->bwd_end, &p->o);
        keep_larger(bw, &best, cand, &p->o);
    }
    for (int i = 0; i < 2 && p->t->scores_transient; i++) {
        backward_scores(cand, p, i == 0 ? 0 : p->L - 1);
        add_extra(cand, all, &p->o);
        add_extra(cand, x ? x->bwd_layer : NULL, &p->o);
        keep_larger(bw, &best, cand, &p->o);
    }
    if (p->t->recompute_transient) {
        backward_recompute(cand, p);
        add_extra(cand, all, &p->o);
        add_extra(cand, x ? x->bwd_layer : NULL, &p->o);
        keep_larger(bw, &best, cand, &p->o);
    }
}

/* ---- optimizer step ------------------------------------------------------------ */

/* All gradients, the state (created now at the first step), the step's
 * temporaries and the autograd thread's workspace; activations are gone. */
static void phase_optimizer(uint64_t *op, step *p)
{
    memcpy(op, p->base, sizeof(row));
    op[LLMMEM_C_OPTIMIZER_STATE] = p->st->optim;
    if (p->t->optim_in_bwd) { /* stepped inside backward (recipes.c): no gradients left */
        put(op, LLMMEM_C_WORKSPACE, p->t->workspace, &p->o);
        return;
    }
    put(op, LLMMEM_C_GRADIENTS, p->st->grads, &p->o);
    put(op, LLMMEM_C_OPTIMIZER_TRANSIENT, p->st->optim_transient, &p->o);
    put(op, LLMMEM_C_WORKSPACE, p->t->workspace, &p->o);
}

/* ---- the result --------------------------------------------------------------- */

static void set_keys(struct llmmem_result *r, step *p, const struct llmmem_model *m)
{
    const llmmem__train *t = p->t;
    llmmem__result_set_i64(r, LLMMEM_R_PARAMS, p->st->params);
    llmmem__result_set_i64(r, LLMMEM_R_TRAINABLE_PARAMS, p->st->trainable);
    llmmem__result_set_i64(r, LLMMEM_R_ACTIVE_PARAMS, m->params_active);
    llmmem__result_set_u64(r, LLMMEM_R_WEIGHTS_BYTES, p->st->weights);
    uint64_t persistent = row_total(p->base, &p->o);
    llmmem__result_set_u64(r, LLMMEM_R_PERSISTENT_BYTES, llmmem__sub0(persistent, t->workspace));
    llmmem__result_set_u64(r, LLMMEM_R_FORWARD_SAVED_BYTES,
                           llmmem__add(&p->o, llmmem__add(&p->o, p->saved, p->cache), t->logits_saved));
    r->largest_block = llmmem__max(t->logits_bwd_extra / 2, t->bwd_transient);
    llmmem__result_set_u64(r, LLMMEM_R_MANAGED_BYTES, t->managed);
    llmmem__result_set_u64(r, LLMMEM_R_LOAD_PEAK_BYTES, t->load_peak);
    r->checkpointing = t->checkpointing;
    r->mode = LLMMEM__MODE_TRAINING;
    llmmem__result_model(r, m);
}

/* Recipes neither measured nor checked against the real program: QLoRA
 * (bitsandbytes' 4-bit Linear quantises its weight on a CUDA device, which
 * the reference harness's fake tensors cannot stand in for, and no QLoRA run
 * was measured; test/reference/README.md). */
static void unverified(struct llmmem_result *r, const struct llmmem_config *c)
{
    if (c->qlora == LLMMEM__QLORA_NONE)
        return;
    llmmem__result_set_i64(r, LLMMEM_R_APPROXIMATE, 1);
    llmmem__result_note(r, "approximate: QLoRA is neither measured nor checked against the real program "
                           "(bitsandbytes' 4-bit Linear quantises on a CUDA device, which the reference "
                           "harness cannot stand in for): the NF4 weights, their dequantisation and the "
                           "adapters' terms follow bitsandbytes' and peft's code, unverified");
}

/* Explained terms (static formulas with sources). */
static void explain_terms(struct llmmem_result *r, step *p, const struct llmmem_config *c)
{
    const llmmem__train *t = p->t;
    const llmmem__states *st = p->st;
    llmmem__result_term(r, "weights", "params x param dtype bytes (QLoRA: NF4 + absmax, bitsandbytes functional.py)",
                        st->weights);
    if (st->master)
        llmmem__result_term(r, "master_weights", "4 B x trainable params (fp32 masters, ZeRO paper 3.1)", st->master);
    llmmem__result_term(r, "gradients", "trainable params x grad dtype bytes (freed by zero_grad(set_to_none))",
                        st->grads);
    llmmem__result_term(r, "optimizer_state", llmmem__optim_source((int)c->optimizer), st->optim);
    llmmem__result_term(r, "optimizer_transient", "step temporaries of the implementation (foreach copies)",
                        st->optim_transient);
    llmmem__result_term(r, "activations_per_layer",
                        "saved tensors of one decoder layer x tokens (autograd saved-tensor accounting, "
                        "HF modeling code)", t->act_layer);
    if (t->checkpointing)
        llmmem__result_term(r, "checkpoint_inputs_per_layer",
                            c->checkpointing == LLMMEM__CKPT_SELECTIVE_OP
                                ? "input + q + v + attention out/lse + gate + down out per token (torchtitan "
                                  "_save_list op-level SAC; recipes.c llmmem__recipes_sac_layer)"
                                : "tokens x hidden x residual dtype (torch.utils.checkpoint non-reentrant)",
                            t->ckpt_layer);
    llmmem__result_term(r, "activations_other", "final norm + head input (+ dropout masks, vision tower)",
                        t->act_other);
    if (t->vision_saved || t->encoder_transient) {
        llmmem__result_term(r, "vision_activations", "tower + projector tensors kept for backward (vision.c, "
                                                     "modeling_clip/siglip/qwen2_vl)", t->vision_saved);
        llmmem__result_term(r, "vision_encoder_transient", "the encoder's largest forward working set (vision.c)",
                            t->encoder_transient);
    }
    if (t->cast_layer || t->cast_other)
        llmmem__result_term(r, "autocast_cache", "compute-dtype copies of matmul weights (autocast_mode.cpp)",
                            llmmem__add(&p->o, llmmem__mul(&p->o, t->cast_layer, p->L), t->cast_other));
    const char *const *lx = t->loss_explain;
    llmmem__result_term(r, "loss_saved", lx[0] ? lx[0] : "4 x tokens x vocab (fp32 log_softmax, loss_utils.py ForCausalLMLoss)",
                        t->logits_saved);
    llmmem__result_term(r, "loss_forward_peak", lx[1] ? lx[1] : "tokens x vocab x (compute bytes + 4 fp32 upcast)",
                        t->logits_fwd_extra);
    llmmem__result_term(r, "loss_backward_peak", lx[2] ? lx[2] : "8 x tokens x vocab (fp32 grads of log-probs and logits)",
                        t->logits_bwd_extra);
    llmmem__result_term(r, "cublas_workspace", "per handle/stream (CublasHandlePool.cpp); 2 in backward",
                        t->workspace);
    llmmem__recipes_explain(r, t, c);
}

/* The three phases' rows (fw and bw cleared by the caller), the engine's
 * bytes added. */
static void fill_rows(uint64_t *fw, uint64_t *bw, uint64_t *op, step *p, const llmmem__engine_extra *extra)
{
    phase_forward(fw, p);
    phase_backward(bw, p, extra);
    phase_optimizer(op, p);
    if (extra) {
        for (int k = 0; k < LLMMEM__COMPONENTS; k++) {
            put(fw, k, extra->fwd[k], &p->o);
            put(op, k, extra->opt[k], &p->o);
        }
    }
}

bool llmmem__train_peak(uint64_t *peak, const llmmem__train *t, const llmmem__engine_extra *extra,
                        const struct llmmem_config *c)
{
    step p;
    step_init(&p, t, c);
    row rows[3];
    memset(rows, 0, sizeof rows);
    fill_rows(rows[0], rows[1], rows[2], &p, extra);
    uint64_t best = 0;
    for (int ph = 0; ph < 3; ph++) { /* llmmem__result_finish: the largest phase total */
        uint64_t sum = row_total(rows[ph], &p.o);
        if (sum > best)
            best = sum;
    }
    *peak = t->load_peak > best ? t->load_peak : best;
    return !p.o.overflow;
}

/* Full training in a precision no framework runs (issue 25): the estimate counts
 * it as given, flagged approximate with the reason.
 *  - fp8 parameters stepped without fp32 masters: torch.optim has no float8
 *    kernels (torch 2.11 optim/adam.py:457 exp_avg.lerp_(grad, ...) and :705
 *    torch._foreach_lerp_ raise NotImplementedError for Float8_e4m3fn); the fp8
 *    recipes (Transformer Engine, torchao float8) keep 16/32-bit weights and
 *    cast to fp8 for the matmuls only (fp8_recipe).
 *  - fp16 parameters stepped by an Adam-family optimizer without fp32 masters:
 *    fp16 training needs loss scaling and torch.amp.GradScaler refuses fp16
 *    gradients (torch 2.11 amp/grad_scaler.py:275 "Attempting to unscale FP16
 *    gradients."); HF Trainer --fp16, DeepSpeed fp16 and Megatron --fp16 all
 *    keep fp32 masters. */
static void unusual_precision(struct llmmem_result *r, const struct llmmem_config *c)
{
    if (c->lora_rank > 0 || c->master_weights == LLMMEM__MASTER_ON)
        return;
    if (c->param_dtype == LLMMEM__DT_FP8) {
        llmmem__result_set_i64(r, LLMMEM_R_APPROXIMATE, 1);
        llmmem__result_note(r, "approximate: fp8 parameters trained without fp32 masters, which no framework "
                               "does: torch.optim has no float8 kernels (optim/adam.py exp_avg.lerp_ raises "
                               "NotImplementedError for Float8_e4m3fn) and fp8 training keeps 16/32-bit "
                               "weights, casting to fp8 for the matmuls only (fp8_recipe); counted as given, "
                               "with fp8 gradients and optimizer state");
        return;
    }
    const int64_t o = c->optimizer;
    const bool adam = o == LLMMEM__OPT_ADAMW || o == LLMMEM__OPT_ADAM || o == LLMMEM__OPT_AMSGRAD ||
                      o == LLMMEM__OPT_NADAM || o == LLMMEM__OPT_RADAM || o == LLMMEM__OPT_ADAMAX;
    const int64_t compute = c->compute_dtype != LLMMEM__DT_AUTO ? c->compute_dtype : c->param_dtype;
    if (c->param_dtype == LLMMEM__DT_FP16 && compute == LLMMEM__DT_FP16 && adam) {
        llmmem__result_set_i64(r, LLMMEM_R_APPROXIMATE, 1);
        llmmem__result_note(r, "approximate: pure fp16 %s without fp32 masters, which no framework runs: fp16 "
                               "training needs loss scaling and torch.amp.GradScaler refuses fp16 gradients "
                               "(grad_scaler.py \"Attempting to unscale FP16 gradients.\"); HF Trainer --fp16, "
                               "DeepSpeed fp16 and Megatron --fp16 keep fp32 masters (master_weights on); "
                               "counted as given, with fp16 gradients and optimizer state",
                            llmmem_param_enum_name(LLMMEM_P_OPTIMIZER, o));
    }
}

int llmmem__train_fill(struct llmmem_result *r, const llmmem__train *t, const llmmem__engine_extra *extra,
                       const struct llmmem_model *m, const struct llmmem_config *c)
{
    step p;
    step_init(&p, t, c);
    fill_rows(r->bytes[LLMMEM_PHASE_FORWARD], r->bytes[LLMMEM_PHASE_BACKWARD], r->bytes[LLMMEM_PHASE_OPTIMIZER],
              &p, extra);
    r->phase_used[LLMMEM_PHASE_FORWARD] = true;
    r->phase_used[LLMMEM_PHASE_BACKWARD] = true;
    r->phase_used[LLMMEM_PHASE_OPTIMIZER] = true;
    set_keys(r, &p, m);
    if (c->engine != LLMMEM_ENGINE_MEGATRON && c->engine != LLMMEM_ENGINE_MEGATRON_DEEPSPEED)
        llmmem__result_harness_gap(r, m, true); /* the transformers model code's step */
    unverified(r, c);
    unusual_precision(r, c);
    explain_terms(r, &p, c);
    if (p.o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "training estimate overflows 64-bit byte counts");
    return LLMMEM_OK;
}
