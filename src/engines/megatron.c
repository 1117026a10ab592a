/* Megatron-LM (tensor, sequence, pipeline, context and expert parallelism,
 * distributed optimizer, selective/full recompute) and Megatron-DeepSpeed
 * (Megatron model parallelism with ZeRO-1/2 over the data-parallel group).
 *
 * Sources: NVIDIA/Megatron-LM megatron/training/theoretical_memory_usage.py
 * (reproduced exactly as accounting = megatron_theoretical),
 * megatron/core/distributed/param_and_grad_buffer.py (fp32 main-grad buffer),
 * megatron/core/optimizer/distrib_optimizer.py (masters and Adam state sharded
 * over the data-parallel x context-parallel group), Korthikanti et al. 2022
 * (arXiv 2205.05198) sections 4.1-4.3 and Table 2 for activations, generalised
 * to GQA and SwiGLU as docs/engines.md derives. */
#include "engines/engines.h"

#include <math.h>
#include <string.h>

/* Megatron pads the vocabulary to a multiple of 128 x tp
 * (megatron/training/tokenizer/tokenizer.py _vocab_size_with_padding). */
static uint64_t padded_vocab(const struct llmmem_model *m, int64_t tp)
{
    uint64_t mult = 128 * (uint64_t)tp;
    return llmmem__ceil_div((uint64_t)m->vocab_size, mult) * mult;
}

static int64_t microbatches(const struct llmmem_config *c)
{
    return c->num_microbatches > 0 ? c->num_microbatches : c->grad_accum_steps;
}

/* Parameters of one transformer layer's attention (theoretical_memory_usage.py
 * compute_weight_and_optimizer_memory): multi-latent attention (q and kv
 * low-rank projections with their norms) or 2 h^2 (1 + kv/a) x q-ratio. */
static double theo_attention_params(const struct llmmem_model *m, double norm)
{
    const double h = (double)m->hidden_size, a = (double)m->num_heads;
    const double kv = (double)m->num_kv_heads, d = (double)m->head_dim;
    const double qratio = d * a / h;
    if (m->kv_lora_rank > 0) { /* multi_latent_attention */
        const double qk = (double)m->qk_nope_head_dim, qr = (double)m->qk_rope_head_dim;
        const double vd = (double)m->v_head_dim, kl = (double)m->kv_lora_rank;
        double q = m->q_lora_rank > 0 ? (double)m->q_lora_rank * (h + a * (qk + qr) + norm) : h * a * (qk + qr);
        return q + kl * (h + a * (qk + vd) + norm) + h * qr + (a * vd) * h;
    }
    return 2 * h * h * ((1 + kv / a) * qratio);
}

/* compute_weight_and_optimizer_memory: the most loaded shard (first stage:
 * its layers + the embedding, + the head when pp = 1 and untied) x bytes per
 * parameter (18, or 6 + 12/dp with the distributed optimizer). */
static double theo_weight_and_optimizer(const struct llmmem_model *m, const struct llmmem_config *c,
                                        const llmmem__layout *l)
{
    const double h = (double)m->hidden_size;
    const double tp = (double)l->tp, pp = (double)l->pp, L = (double)m->num_layers;
    const double V = (double)padded_vocab(m, l->tp);
    const double glu = m->gated_mlp ? 1.5 : 1.0;
    const double norm = m->norm == LLMMEM__NORM_RMS ? 1.0 : 2.0;
    const bool moe = m->num_experts > 0 && m->num_moe_layers > 0;
    const double n_moe = moe ? (double)m->num_moe_layers : 0.0, n_dense = L - n_moe;
    const double E = moe ? (double)m->num_experts : 1.0;
    const double fm = moe ? (double)m->moe_intermediate_size : 0.0;
    const double fs = (double)m->shared_expert_intermediate_size;
    const double attn = theo_attention_params(m, norm);
    const double dense_layer = 2 * h * ((double)m->intermediate_size * glu + norm) + attn;
    const double moe_layer = 2 * h * (fm * E * glu + fs * glu + norm) + attn;
    const double emb = h * V;
    const double block = dense_layer * n_dense + moe_layer * n_moe + norm * h;
    double shard = (block / pp + emb) / tp;
    if (!m->tie_embeddings && l->pp == 1)
        shard += emb / tp;
    const double bpp = c->distributed_optimizer ? 6 + 12 / (double)l->dp : 18;
    return shard * bpp;
}

/* The part compute_activation_memory and its _without_sp twin share: x L
 * layers, + 8 sb pp (input ids) + sbh pp (embedding output), the interleaved
 * schedule's 1 + (pp - 1)/(pp vpp) (Korthikanti 4.2.3), the 1F1B factor
 * min(1, micro-batches / pp). */
static double theo_pipeline_activations(double per_layer, const struct llmmem_model *m,
                                        const struct llmmem_config *c, const llmmem__layout *l)
{
    const double h = (double)m->hidden_size, L = (double)m->num_layers, pp = (double)l->pp;
    const double s = (double)c->seq_len, b = (double)c->micro_batch_size;
    const double nmb = (double)microbatches(c);
    double act = per_layer;
    act *= L;
    act += 8 * s * b * pp;
    act += s * b * h * pp;
    if (l->vpp > 1)
        act *= 1 + (pp - 1) / (pp * (double)l->vpp);
    if (l->vpp <= 1 && l->pp > 1)
        act *= fmin(1, nmb / pp);
    return act;
}

/* compute_activation_memory (sequence parallel + selective recompute,
 * Korthikanti Table 2): sbh(18 + 4f/h) per layer, + the output layer when
 * pp = 1, / tp; else compute_activation_memory_without_sp: sbh(10 + 24/tp)
 * per layer, + logits and their input when pp = 1, x 1.05. */
static double theo_activations(const struct llmmem_model *m, const struct llmmem_config *c,
                               const llmmem__layout *l)
{
    const double h = (double)m->hidden_size, tp = (double)l->tp;
    const double V = (double)padded_vocab(m, l->tp);
    const double s = (double)c->seq_len, b = (double)c->micro_batch_size;
    const double f = (double)m->intermediate_size;
    double act;
    if (c->sequence_parallel && c->checkpointing == LLMMEM__CKPT_SELECTIVE) {
        act = theo_pipeline_activations((s * b * h) * (18 + 4 * (f / h)), m, c, l);
        if (l->pp == 1)
            act += s * b * h * 4 * (1 + V / h);
        act /= tp;
    } else {
        act = theo_pipeline_activations(s * b * h * (10 + 24 / tp), m, c, l);
        if (l->pp == 1)
            act += (s * b * V / tp + s * b * h) * 2;
        act *= 1.05;
    }
    return act;
}

/* theoretical_memory_usage.py, line by line, in doubles as Python does. */
void llmmem__megatron_theoretical(double *weights_optim, double *activations,
                                  const struct llmmem_model *m, const struct llmmem_config *c,
                                  const llmmem__layout *l)
{
    *weights_optim = theo_weight_and_optimizer(m, c, l);
    *activations = theo_activations(m, c, l);
}

static int theoretical_mode(struct llmmem_result *r, const struct llmmem_model *m,
                            const struct llmmem_config *c, const llmmem__layout *l)
{
    double w, a;
    llmmem__megatron_theoretical(&w, &a, m, c, l);
    if (!(w >= 0 && a >= 0 && w + a < 1.8e19))
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "megatron_theoretical: estimate out of range");
    uint64_t wb = (uint64_t)llround(w), ab = (uint64_t)llround(a);
    uint64_t *fw = r->bytes[LLMMEM_PHASE_FORWARD];
    fw[LLMMEM_C_OPTIMIZER_STATE] = wb;
    fw[LLMMEM_C_ACTIVATIONS] = ab;
    llmmem__engine_formula_keys(r, m, LLMMEM_PHASE_FORWARD);
    llmmem__result_term(r, "weight_and_optimizer",
                        "most loaded shard params x (18, or 6 + 12/dp with the distributed optimizer) "
                        "(theoretical_memory_usage.py compute_weight_and_optimizer_memory)",
                        wb);
    llmmem__result_term(r, "activation",
                        c->sequence_parallel && c->checkpointing == LLMMEM__CKPT_SELECTIVE
                            ? "sbh(18 + 4f/h) L + embedding terms, pipeline factor, /tp "
                              "(compute_activation_memory, Korthikanti Table 2)"
                            : "sbh(10 + 24/tp) L + embedding terms, pipeline factor, x1.05 "
                              "(compute_activation_memory_without_sp)",
                        ab);
    llmmem__result_note(r, "megatron_theoretical: Megatron's own formula (first pipeline stage; no "
                           "workspaces, buffers or allocator)");
    int rc = llmmem__result_finish(r, c);
    if (rc)
        return rc;
    llmmem__result_set_i64(r, LLMMEM_R_PIPELINE_STAGES, l->pp);
    llmmem__engine_keys(r, l, 0, 0);
    return LLMMEM_OK;
}

/* ---- runtime model ------------------------------------------------------------ */

/* Megatron runs bf16/fp16 activations. */
#define ACT_BYTES 2

/* Per token of an MoE layer (derived, docs/engines.md): router logits fp32,
 * the permuted tokens (top-k copies) and each expert's fc1 output and fc2
 * input, experts split over ep (tokens) and etp (width); the shared expert's
 * intermediates split by tp. */
static uint64_t moe_act_per_token(const struct llmmem_model *m, const llmmem__layout *l)
{
    const uint64_t h = (uint64_t)m->hidden_size, tp = (uint64_t)l->tp;
    const uint64_t kx = (uint64_t)m->experts_per_token, fm = (uint64_t)m->moe_intermediate_size;
    const uint64_t etp = (uint64_t)l->etp;
    uint64_t per_tok = 4 * (uint64_t)m->num_experts + 2 * kx * h +
                       kx * ((m->gated_mlp ? 6 : 4) * fm) / etp;
    if (m->shared_expert_intermediate_size > 0)
        per_tok += (uint64_t)(m->gated_mlp ? 6 : 4) * (uint64_t)m->shared_expert_intermediate_size / tp;
    return per_tok;
}

/* Saved activation bytes of one transformer layer for one micro-batch on one
 * GPU (Korthikanti 4.1 generalised): the replicated part (layer-norm inputs,
 * QKV and fc1 inputs, dropout masks) is split by tp only under sequence
 * parallelism; q, k, v, the attention core, the output-projection input and
 * the MLP intermediates are split by tp. `sb` is tokens on this GPU after
 * context parallelism; 16-bit activations. */
static uint64_t layer_act(const struct llmmem_model *m, const struct llmmem_config *c,
                          const llmmem__layout *l, uint64_t sb, uint64_t s_local, bool dropout)
{
    const uint64_t h = (uint64_t)m->hidden_size, a = (uint64_t)m->num_heads;
    const uint64_t k = (uint64_t)m->num_kv_heads, d = (uint64_t)m->head_dim;
    const uint64_t tp = (uint64_t)l->tp;
    const bool moe = m->num_experts > 0 && m->num_moe_layers > 0;
    uint64_t rep = 4 * sb * h + 2 * sb * h + 2 * sb * h + (dropout ? 2 * sb * h : 0);
    uint64_t split = 2 * sb * (a * d + 2 * k * d) + 2 * sb * a * d;
    if (c->attention == LLMMEM__ATTN_EAGER) {
        if (c->checkpointing != LLMMEM__CKPT_SELECTIVE) /* selective recomputes the core */
            split += (uint64_t)(dropout ? 5 : 4) * a * s_local * sb;
    } else {
        split += 4 * sb * a; /* flash-attention log-sum-exp, fp32 */
    }
    if (moe)
        split += sb * moe_act_per_token(m, l) * tp; /* routed tokens are not split by tp: undo the /tp below */
    else
        split += sb * (uint64_t)(m->gated_mlp ? 6 : 4) * (uint64_t)m->intermediate_size;
    if (c->sequence_parallel && l->tp > 1)
        return (rep + split) / tp;
    return rep + split / tp;
}

/* What every pipeline stage of one Megatron estimate shares. */
typedef struct mg_run {
    const llmmem__engine_run *run; /* the skeleton's estimate */
    const struct llmmem_model *m;
    const struct llmmem_config *c;
    llmmem__layout l;
    const llmmem__train *base; /* the single-GPU training model (on megatron_run's stack) */
    llmmem__ovf o;
    int zero_stage;     /* 0: Megatron's own optimizer; 1/2: DeepSpeed ZeRO */
    bool master, sp, dropout;
    bool lora;                   /* adapters train, the base is frozen */
    uint64_t adapters_per_layer; /* LoRA parameters of one layer on one GPU */
    uint64_t tp, pp, vpp, h, V, emb, head;
    uint64_t per_layer; /* parameters of one layer on one GPU */
    uint64_t lps;       /* layers per pipeline stage */
    uint64_t nmb;       /* micro-batches per step */
    uint64_t wbp, gbp;  /* bytes per weight / gradient */
    double obp, otp;    /* optimizer state / step temporaries, bytes per trainable param */
    uint64_t shard_div; /* ranks the optimizer states are sharded over */
    uint64_t sb;        /* tokens of one micro-batch on this GPU */
    uint64_t act1;      /* layer_act of one layer, one micro-batch */
    uint64_t ckpt1;     /* one layer's input kept under full recompute */
} mg_run;

/* Parameters of one layer on one GPU: dense params / (L tp) + experts / (L ep
 * etp); embedding and head are placed on the first and last stage. */
static uint64_t mg_params_per_layer(const struct llmmem_model *m, const llmmem__layout *l)
{
    const uint64_t L = (uint64_t)m->num_layers, P = (uint64_t)m->params;
    const uint64_t experts = (uint64_t)m->params_experts;
    const uint64_t body = llmmem__sub0(llmmem__sub0(P, (uint64_t)m->params_embedding),
                                       (uint64_t)m->params_head);
    const uint64_t dense_body = llmmem__sub0(body, experts);
    return dense_body / L / (uint64_t)l->tp + experts / L / (uint64_t)(l->ep * l->etp);
}

/* Bytes per parameter: the model in its stored dtype; gradients in the dtype
 * the engine's precision resolved (precision.c: Megatron's fp32 main-grad
 * buffer with --bf16, DeepSpeed's model-dtype grads); masters 4 B; optimizer
 * state per trainable param. The optimizer states are sharded over
 * DeepSpeed's data-parallel group (ZeRO) or, with the distributed optimizer,
 * over dp x cp (distrib_optimizer.py). */
static void mg_bytes_per_param(mg_run *r)
{
    const llmmem__states *st = &r->base->st;
    r->master = r->c->master_weights == LLMMEM__MASTER_ON;
    r->wbp = (uint64_t)(st->weight_bytes > 0 ? st->weight_bytes : 2);
    r->gbp = (uint64_t)(st->grad_bytes > 0 ? st->grad_bytes : 2);
    r->obp = st->trainable > 0 ? (double)st->optim / (double)st->trainable : 0;
    r->otp = st->trainable > 0 ? (double)st->optim_transient / (double)st->trainable : 0;
    r->shard_div = 1;
    if (r->zero_stage >= 1)
        r->shard_div = (uint64_t)r->l.dp; /* ZeRO over Megatron's data-parallel group */
    else if (r->c->distributed_optimizer)
        r->shard_div = (uint64_t)(r->l.dp * r->l.cp); /* distrib_optimizer.py: dp x cp group */
    /* LoRA (Megatron-Bridge peft/lora.py over megatron-core): the frozen base
     * has no main grad or optimizer state (param_and_grad_buffer.py and the
     * optimizer take requires_grad parameters only); the adapters sit in the
     * decoder layers, split over tp like the Linears they adapt. */
    r->lora = st->trainable < st->params;
    r->adapters_per_layer = r->lora ? (uint64_t)st->trainable / (uint64_t)r->m->num_layers /
                                          (uint64_t)r->l.tp
                                    : 0;
}

/* The shared quantities, after llmmem__train_compute filled r->base. */
static void mg_setup(mg_run *r)
{
    const struct llmmem_model *m = r->m;
    const struct llmmem_config *c = r->c;
    r->tp = (uint64_t)r->l.tp;
    r->pp = (uint64_t)r->l.pp;
    r->vpp = (uint64_t)r->l.vpp;
    r->h = (uint64_t)m->hidden_size;
    r->V = padded_vocab(m, r->l.tp);
    r->emb = (uint64_t)m->params_embedding;
    r->head = (uint64_t)m->params_head;
    r->per_layer = mg_params_per_layer(m, &r->l);
    r->lps = (uint64_t)m->num_layers / r->pp;
    r->nmb = (uint64_t)microbatches(c);
    mg_bytes_per_param(r);
    const uint64_t s_local = r->run->run.S / (uint64_t)r->l.cp; /* the run's micro-batch, resolved once */
    r->sb = llmmem__mul(&r->o, s_local, r->run->run.B);
    r->sp = c->sequence_parallel && r->l.tp > 1;
    r->dropout = c->dropout == LLMMEM__DROPOUT_ON ||
                 (c->dropout == LLMMEM__DROPOUT_MODEL && m->hidden_dropout > 0);
    r->act1 = layer_act(m, c, &r->l, r->sb, s_local, r->dropout);
    r->ckpt1 = llmmem__mul(&r->o, 2 * r->sb, r->h) / (r->sp ? r->tp : 1);
}

/* Warm-up micro-batches of stage si (megatron/core/pipeline_parallel/
 * schedules.py): 1F1B warms up pp - si - 1; the interleaved schedule
 * (pp - si - 1) x 2 + (vpp - 1) x pp model chunks. */
static uint64_t mg_warmup(uint64_t pp, uint64_t vpp, uint64_t si)
{
    return vpp > 1 ? (pp - si - 1) * 2 + (vpp - 1) * pp : pp - si - 1;
}

/* In-flight activations of stage si, in model chunks of lps / vpp layers: the
 * warm-up plus the current one, at most the nmb x vpp chunks of the step (for
 * the first stage, Korthikanti 4.2.3's 1 + (pp - 1)/(pp vpp) factor). */
static uint64_t mg_in_flight_chunks(uint64_t pp, uint64_t vpp, uint64_t si, uint64_t nmb)
{
    const uint64_t total_chunks = (nmb > 0 ? nmb : 1) * vpp;
    const uint64_t warm = mg_warmup(pp, vpp, si);
    return vpp > 1 ? llmmem__min(total_chunks, warm + 1) : llmmem__min(warm + 1, nmb > 0 ? nmb : 1) * vpp;
}

typedef struct mg_stage {
    uint64_t params;     /* parameters on this GPU */
    uint64_t in_flight;  /* micro-batches whose activations this stage holds (rounded up) */
    uint64_t in_flight_chunks; /* the same in model chunks (lps / vpp layers each) */
    bool first, last;
} mg_stage;

/* Stage si of `stages`: its parameters (lps layers, + embedding / tp on the
 * first stage, + head / tp on the last, the tied embedding's copy when pp > 1)
 * and its in-flight micro-batches. */
static mg_stage mg_stage_at(mg_run *r, int si, int stages)
{
    mg_stage st;
    st.first = si == 0;
    st.last = si == stages - 1;
    st.in_flight_chunks = mg_in_flight_chunks(r->pp, r->vpp, (uint64_t)si, r->nmb);
    st.in_flight = llmmem__ceil_div(st.in_flight_chunks, r->vpp);
    st.params = llmmem__mul(&r->o, r->per_layer, r->lps);
    if (st.first)
        st.params += r->emb / r->tp;
    if (st.last)
        st.params += (r->m->tie_embeddings && r->pp > 1 ? r->emb : r->head) / r->tp;
    return st;
}

/* Model states of n parameters on one GPU: weights, grads (partitioned under
 * ZeRO-2), masters and optimizer state (sharded by shard_div). Under LoRA the
 * trainable ones are the stage's adapters; the frozen base keeps only its
 * weights. */
static void mg_stage_states(mg_run *r, llmmem__train *t, uint64_t n)
{
    const uint64_t tr = r->lora ? llmmem__mul(&r->o, r->adapters_per_layer, r->lps) : n;
    const uint64_t tr_layer = r->lora ? r->adapters_per_layer : r->per_layer;
    t->st.params = (int64_t)n;
    t->st.trainable = (int64_t)tr;
    t->st.weights = llmmem__mul(&r->o, r->lora ? n + tr : n, r->wbp);
    t->st.grads = llmmem__mul(&r->o, tr, r->gbp);
    t->st.master = r->master ? llmmem__mul(&r->o, tr, 4) : 0;
    t->st.optim = (uint64_t)((double)tr * r->obp);
    t->st.optim_transient = (uint64_t)((double)tr * r->otp);
    t->st.master = llmmem__ceil_div(t->st.master, r->shard_div);
    t->st.optim = llmmem__ceil_div(t->st.optim, r->shard_div);
    t->st.optim_transient = llmmem__ceil_div(t->st.optim_transient, r->shard_div);
    if (r->zero_stage >= 2)
        t->st.grads = llmmem__ceil_div(t->st.grads, r->shard_div);
    t->layers = (int64_t)r->lps;
    t->layer_grad = llmmem__ceil_div(llmmem__mul(&r->o, tr_layer, r->gbp),
                                     r->zero_stage >= 2 ? r->shard_div : 1);
    t->other_grad = llmmem__sub0(t->st.grads, llmmem__mul(&r->o, t->layer_grad, r->lps));
}

/* Activations of the in-flight micro-batches: per layer act1 x chunks / vpp
 * (one under full recompute, which keeps ckpt1 x chunks / vpp instead); the
 * MLP input gradient sb x f/tp x 2 x 2 B in backward; no autocast copies. */
static void mg_stage_activations(mg_run *r, llmmem__train *t, const mg_stage *st)
{
    t->checkpointing = r->c->checkpointing == LLMMEM__CKPT_FULL;
    t->act_layer = t->checkpointing ? r->act1 : llmmem__mul(&r->o, r->act1, st->in_flight_chunks) / r->vpp;
    t->ckpt_layer = llmmem__mul(&r->o, r->ckpt1, st->in_flight_chunks) / r->vpp;
    t->cast_layer = 0;
    t->cast_other = 0;
    t->quant_transient = 0;
    t->fwd_transient = 0;
    t->bwd_transient = llmmem__mul3(&r->o, r->sb, (uint64_t)r->m->intermediate_size / r->tp, 2 * ACT_BYTES);
    t->inputs = 0;
    t->act_other = 0;
    t->logits_saved = t->logits_fwd_extra = t->logits_bwd_extra = 0;
}

/* First stage: input ids (8 B per token) and the embedding dropout mask per
 * in-flight micro-batch. */
static void mg_first_stage_inputs(mg_run *r, llmmem__train *t, const mg_stage *st)
{
    t->inputs = llmmem__mul3(&r->o, 8, r->sb, st->in_flight);
    if (r->dropout)
        t->act_other = llmmem__mul3(&r->o, r->sb, r->h, st->in_flight) / (r->sp ? r->tp : 1);
}

/* Last stage: final norm input + head input (16-bit), fp32 vocab-parallel
 * logits kept for cross entropy (cross_entropy.py), the 16-bit logits at the
 * forward peak, their gradient in backward. */
static void mg_last_stage_loss(mg_run *r, llmmem__train *t)
{
    t->act_other += llmmem__mul(&r->o, 4 * r->sb, r->h) / (r->sp ? r->tp : 1);
    uint64_t TV = llmmem__mul(&r->o, r->sb, r->V / r->tp);
    t->logits_saved = llmmem__mul(&r->o, TV, 4);
    t->logits_fwd_extra = llmmem__mul(&r->o, TV, ACT_BYTES);
    t->logits_bwd_extra = llmmem__mul(&r->o, TV, ACT_BYTES);
}

/* Communication buffers of a stage holding n parameters: the p2p send/recv
 * activation buffers 2 sbh x 2 B (/tp under SP) when pp > 1
 * (p2p_communication.py); DeepSpeed's reduce bucket min(reduce_bucket_size,
 * n) x grad bytes (stage_1_and_2.py ipg buffer). */
static void mg_stage_buffers(mg_run *r, llmmem__engine_extra *x, uint64_t n)
{
    memset(x, 0, sizeof *x);
    if (r->pp > 1) {
        uint64_t p2p = llmmem__mul3(&r->o, 2 * r->sb, r->h, ACT_BYTES) / (r->sp ? r->tp : 1);
        x->fwd[LLMMEM_C_COMM_BUFFERS] = p2p;
        x->bwd[LLMMEM_C_COMM_BUFFERS] = p2p;
    }
    if (r->zero_stage >= 1) {
        uint64_t elems = llmmem__min((uint64_t)r->c->reduce_bucket_size, n);
        x->bwd[LLMMEM_C_COMM_BUFFERS] += llmmem__mul(&r->o, elems, r->gbp);
    }
}

/* The training model and the engine's bytes of a stage. */
static void mg_stage_train(mg_run *r, llmmem__train *t, llmmem__engine_extra *x, const mg_stage *st)
{
    *t = *r->base;
    mg_stage_states(r, t, st->params);
    mg_stage_activations(r, t, st);
    if (st->first)
        mg_first_stage_inputs(r, t, st);
    if (st->last)
        mg_last_stage_loss(r, t);
    mg_stage_buffers(r, x, st->params);
}

/* Fills dst with the estimate of stage si. */
static int mg_stage_estimate(mg_run *r, struct llmmem_result *dst, int si, int stages)
{
    const mg_stage st = mg_stage_at(r, si, stages);
    llmmem__train t;
    llmmem__engine_extra x;
    mg_stage_train(r, &t, &x, &st);
    llmmem__result_clear(dst);
    dst->no_replay = r->run->e->no_replay;
    int rc = llmmem__train_fill(dst, &t, &x, r->m, r->c);
    return rc ? rc : llmmem__result_finish(dst, r->c);
}

/* Below these, no stage's sums can overflow in llmmem__result_finish (the
 * reserved bytes are under 2^57, the context and managed bytes under 2^60):
 * every stage's result would be made without an error. */
#define MG_PEAK_SAFE (UINT64_C(1) << 56)
#define MG_SIDE_SAFE (UINT64_C(1) << 60)

/* Each stage's peak as a number (llmmem__train_peak), the stage of the
 * largest (the first of equals) in *peak_stage: what the stages' results
 * would say, without making them. A stage with the inputs of the one before
 * (neither first nor last, the same chunks in flight: 1F1B's stages once the
 * micro-batches are fewer than the stages ahead) has its peak. False where
 * the numbers alone would not be the results' (calibration, sums near 2^64):
 * then the results are made. */
bool llmmem__megatron_every_stage = false;

static bool mg_stage_peaks(mg_run *r, int stages, uint64_t *peaks, int *peak_stage)
{
    if (llmmem__megatron_every_stage || r->c->calibrated || (r->c->cuda_context_bytes >= 0 && (uint64_t)r->c->cuda_context_bytes >= MG_SIDE_SAFE) ||
        r->base->managed >= MG_SIDE_SAFE)
        return false;
    mg_stage prev = {0};
    llmmem__train t, mid; /* mid: the middle stages' model, but for their activations */
    llmmem__engine_extra x, mid_x;
    bool have_mid = false;
    for (int si = 0; si < stages; si++) {
        const mg_stage st = mg_stage_at(r, si, stages);
        if (si > 1 && !st.first && !st.last && !prev.first && !prev.last &&
            st.in_flight_chunks == prev.in_flight_chunks) {
            peaks[si] = peaks[si - 1];
        } else {
            const bool middle = !st.first && !st.last;
            if (middle && have_mid) { /* the same parameters: only the chunks in flight differ */
                mg_stage_activations(r, &mid, &st);
            } else if (middle) {
                mg_stage_train(r, &mid, &mid_x, &st);
                have_mid = true;
            } else {
                mg_stage_train(r, &t, &x, &st);
            }
            if (!llmmem__train_peak(&peaks[si], middle ? &mid : &t, middle ? &mid_x : &x, r->c) ||
                peaks[si] >= MG_PEAK_SAFE)
                return false;
        }
        if (si == 0 || peaks[si] > peaks[*peak_stage])
            *peak_stage = si;
        prev = st;
    }
    return true;
}

/* Estimates every pipeline stage (up to LLMMEM__MAX_STAGES) and keeps the one
 * with the highest peak in out: the stages' peaks as numbers, the result of
 * the peak stage alone (or every stage's result, where mg_stage_peaks
 * declines). */
static int mg_stages(mg_run *r, struct llmmem_result *out)
{
    const int stages = (int)(r->pp < LLMMEM__MAX_STAGES ? r->pp : LLMMEM__MAX_STAGES);
    uint64_t stage_peaks[LLMMEM__MAX_STAGES];
    int peak_stage = 0;
    if (mg_stage_peaks(r, stages, stage_peaks, &peak_stage)) {
        int rc = mg_stage_estimate(r, out, peak_stage, stages);
        if (rc)
            return rc;
    } else {
        struct llmmem_result scratch;
        uint64_t peak = 0;
        peak_stage = 0;
        for (int si = 0; si < stages; si++) {
            int rc = mg_stage_estimate(r, &scratch, si, stages);
            if (rc)
                return rc;
            uint64_t sp_peak = llmmem__result_u64(&scratch, LLMMEM_R_PEAK_ALLOCATED_BYTES);
            stage_peaks[si] = sp_peak;
            if (si == 0 || sp_peak > peak) {
                peak = sp_peak;
                peak_stage = si;
                *out = scratch;
            }
        }
    }
    if (r->o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "Megatron estimate overflows 64-bit byte counts");
    out->stage_count = stages;
    memcpy(out->stage_peak, stage_peaks, sizeof(uint64_t) * (size_t)stages);
    llmmem__result_set_i64(out, LLMMEM_R_PEAK_STAGE, peak_stage);
    return LLMMEM_OK;
}

/* The keys and terms of the whole job, on the most loaded stage's result. */
static void mg_report(mg_run *r, struct llmmem_result *out, int engine)
{
    out->engine = engine;
    llmmem__result_set_i64(out, LLMMEM_R_PIPELINE_STAGES, (int64_t)r->pp);
    llmmem__result_set_i64(out, LLMMEM_R_PARAMS, r->m->params);
    llmmem__result_set_i64(out, LLMMEM_R_TRAINABLE_PARAMS, r->base->st.trainable);
    llmmem__result_term(out, "megatron_layer_activations",
                        "per layer, one micro-batch: (10 sbh replicated unless SP) + (q,k,v,o, attention "
                        "core, MLP intermediates)/tp (Korthikanti Table 2, GQA/SwiGLU generalised)",
                        r->act1);
    llmmem__result_term(out, "megatron_params_per_gpu",
                        "dense params/(tp x pp) + experts/(ep x etp x pp) + embedding/tp on the first "
                        "stage + head/tp on the last (x bytes)",
                        llmmem__result_u64(out, LLMMEM_R_WEIGHTS_BYTES));
    uint64_t sharded = 0;
    if (r->zero_stage >= 1 || r->c->distributed_optimizer) {
        const uint64_t *opb = out->bytes[LLMMEM_PHASE_OPTIMIZER];
        sharded = llmmem__add(&r->o, opb[LLMMEM_C_MASTER_WEIGHTS], opb[LLMMEM_C_OPTIMIZER_STATE]);
    }
    llmmem__engine_keys(out, &r->l, 0, sharded);
}

/* What each Megatron engine has for LoRA and QLoRA. Megatron-LM has no
 * adapters of its own; Megatron-Bridge (peft/lora.py, lora_layers.py) adds
 * LoRA over megatron-core's parallel Linears, with no 4-bit base (its
 * Linears are TE/megatron-core modules, never bitsandbytes). Megatron-DeepSpeed
 * has no adapter layer in megatron/model at all. */
static int megatron_lora_check(const struct llmmem_config *c, int engine)
{
    if (c->lora_rank <= 0)
        return LLMMEM_OK;
    if (engine == LLMMEM__ENG_MEGATRON_DEEPSPEED)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "lora_rank = %lld with engine megatron_deepspeed: Megatron-DeepSpeed has "
                             "no LoRA layers (megatron/model); use engine zero (peft over DeepSpeed) or "
                             "megatron (Megatron-Bridge LoRA)",
                             (long long)c->lora_rank);
    if (c->qlora != LLMMEM__QLORA_NONE)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "qlora = %s with engine megatron: Megatron-LM and Megatron-Bridge have no "
                             "quantised (bitsandbytes) base for LoRA; use engine single, ddp, zero or "
                             "fsdp for QLoRA",
                             c->qlora == LLMMEM__QLORA_NF4   ? "nf4"
                             : c->qlora == LLMMEM__QLORA_FP4 ? "fp4"
                                                             : "int8");
    return LLMMEM_OK;
}

/* Layer kinds its activation model does not have (kinds.c), then LoRA. */
/* Megatron-LM builds its own optimizer from --optimizer (config/optimizers.def
 * LLMMEM__OPTIMIZER_MEGATRON): another optimizer (bitsandbytes, torchao, Adafactor...)
 * is not one Megatron runs. */
static int megatron_optimizer_check(const struct llmmem_config *c)
{
#define MG_RUNS(choice, VALUE) || c->optimizer == LLMMEM__OPT_##VALUE
    if (false LLMMEM__OPTIMIZER_MEGATRON(MG_RUNS))
        return LLMMEM_OK;
#undef MG_RUNS
    return llmmem__error(LLMMEM_E_INCONSISTENT,
                         "optimizer %s%s with engine megatron: Megatron-LM's --optimizer is adam, sgd, muon, "
                         "lion (megatron/training/arguments.py); set optimizer adamw, sgd_momentum, muon or lion",
                         llmmem_param_enum_name(LLMMEM_P_OPTIMIZER, c->optimizer),
                         llmmem__config_origin(c, LLMMEM_P_OPTIMIZER));
}

static int megatron_check(llmmem__engine_run *r)
{
    int rc;
    if (r->e->value == LLMMEM_ENGINE_MEGATRON && (rc = megatron_optimizer_check(r->orig)) != 0)
        return rc;
    if (!llmmem__kinds_classic(r->m) && (rc = llmmem__kinds_check(r->m, r->orig, LLMMEM__USE_MEGATRON)) != 0)
        return rc;
    return megatron_lora_check(r->orig, r->e->value);
}

/* accounting megatron_theoretical: Megatron's own formula; deepspeed_estimator is ZeRO's. */
static int megatron_formula(llmmem__engine_run *r)
{
    if (r->orig->accounting == LLMMEM__ACC_MEGATRON)
        return theoretical_mode(r->out, r->m, r->orig, &r->l);
    return llmmem__error(LLMMEM_E_INCONSISTENT, "accounting deepspeed_estimator needs engine zero");
}

/* One estimate per pipeline stage from the single-GPU training model (the
 * skeleton's r->t), the most loaded one kept; the precision note after it. */
static int megatron_fill(llmmem__engine_run *run)
{
    mg_run r;
    memset(&r, 0, sizeof r);
    r.run = run;
    r.l = run->l;
    r.base = &run->t;
    r.m = run->m;
    r.c = &run->c;
    r.zero_stage = run->e->value == LLMMEM__ENG_MEGATRON_DEEPSPEED ? (int)run->orig->zero_stage : 0;
    mg_setup(&r);
    int rc = mg_stages(&r, run->out);
    if (rc)
        return rc;
    mg_report(&r, run->out, run->e->value);
    llmmem__engine_precision_report(run->out, run->orig, &run->c, &run->t.st, run->e, 0, 0);
    return LLMMEM_OK;
}

/* Megatron-DeepSpeed pipelines run ZeRO stages 0-2. */
static int megatron_deepspeed_precheck(const struct llmmem_config *cfg)
{
    if (cfg->zero_stage > 2)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "megatron_deepspeed: zero_stage = %lld; Megatron-DeepSpeed pipelines "
                             "support ZeRO stages 0-2",
                             (long long)cfg->zero_stage);
    return LLMMEM_OK;
}

/* ---- precision -------------------------------------------------------------------
 * Megatron --bf16 / --fp16: fp32 main params and Adam state
 * (megatron/core/optimizer/optimizer.py Float16OptimizerWithFloat16Params,
 * distrib_optimizer.py); fp32 main grads with --bf16 (training/arguments.py
 * forces accumulate_allreduce_grads_in_fp32), 16-bit with --fp16.
 * Megatron-DeepSpeed: DeepSpeed's optimizer over Megatron's model, as ZeRO. */
static bool megatron_masters(const struct llmmem_config *c) { return llmmem__is16(llmmem__compute_of(c)); }

/* Megatron's main-grad buffer: fp32 with --bf16, the 16-bit dtype with --fp16
 * (accumulate_allreduce_grads_in_fp32 defaults to False there). */
static void megatron_precision(struct llmmem_config *out, const struct llmmem_config *c)
{
    if (c->grad_dtype == LLMMEM__DT_AUTO && out->master_weights == LLMMEM__MASTER_ON)
        out->grad_dtype = llmmem__compute_of(c) == LLMMEM__DT_BF16 ? LLMMEM__DT_FP32 : llmmem__compute_of(c);
}

static bool megatron_deepspeed_masters(const struct llmmem_config *c)
{
    return llmmem__is16(llmmem__compute_of(c)) || c->zero_stage >= 1;
}

/* ---- the planner ---------------------------------------------------------------- */

/* Each with sequence parallel off / on (with TP): Megatron-LM with the
 * distributed optimizer off / on; Megatron-DeepSpeed with ZeRO stage 0..2,
 * where the pipeline engine runs stage 0 or 1 only
 * (deepspeed/runtime/pipe/engine.py asserts zero stage < 2). */
static int megatron_variants_of(struct llmmem_config *c, llmmem__plan_visit visit, void *ctx, int pre, bool ds)
{
    int rc = 0;
    for (int o = 0; o <= (ds ? 2 : 1) && !rc; o++)
        for (int sp = 0; sp <= (c->tp > 1) && !rc; sp++) {
            if (ds)
                c->zero_stage = o;
            else
                c->distributed_optimizer = o;
            c->sequence_parallel = sp;
            int why = pre;
            if (ds && why < 0 && c->pp > 1 && o >= 2)
                why = LLMMEM_REJECT_UNSUPPORTED;
            rc = visit(ctx, why);
        }
    return rc;
}

static int megatron_variants(struct llmmem_config *c, llmmem__plan_visit visit, void *ctx, int pre)
{
    return megatron_variants_of(c, visit, ctx, pre, false);
}

static int megatron_deepspeed_variants(struct llmmem_config *c, llmmem__plan_visit visit, void *ctx, int pre)
{
    return megatron_variants_of(c, visit, ctx, pre, true);
}

/* Data-parallel traffic: the gradients all-reduced, or with the distributed
 * optimizer reduce-scattered and the parameters all-gathered
 * (megatron/core/optimizer/distrib_optimizer.py). */
static double megatron_dp_seconds(const struct llmmem_config *c, const llmmem__dp_traffic *d)
{
    const double bytes = c->distributed_optimizer ? llmmem__ring(d->n_dp) * (d->G_B + d->W_B)
                                                  : 2 * llmmem__ring(d->n_dp) * d->G_B;
    return bytes / d->bw;
}

static const int megatron_reads[] = {LLMMEM_P_DISTRIBUTED_OPTIMIZER, LLMMEM_P_SEQUENCE_PARALLEL,
                                     LLMMEM_P_NUM_MICROBATCHES, LLMMEM_P_ACCOUNTING, 0};
static const int megatron_plan_options[] = {LLMMEM_P_DISTRIBUTED_OPTIMIZER, LLMMEM_P_SEQUENCE_PARALLEL, 0};
static const int megatron_deepspeed_reads[] = {LLMMEM_P_ZERO_STAGE,
                                               LLMMEM_P_REDUCE_BUCKET_SIZE,
                                               LLMMEM_P_ALLGATHER_BUCKET_SIZE,
                                               LLMMEM_P_CONTIGUOUS_GRADIENTS,
                                               LLMMEM_P_SEQUENCE_PARALLEL,
                                               LLMMEM_P_NUM_MICROBATCHES,
                                               LLMMEM_P_ACCOUNTING,
                                               0};
static const int megatron_deepspeed_plan_options[] = {LLMMEM_P_ZERO_STAGE, LLMMEM_P_SEQUENCE_PARALLEL, 0};

const llmmem__engine llmmem__engine_megatron = {
    .name = "megatron",
    .fn = "llmmem_estimate_megatron",
    .gate = LLMMEM_P_ENGINE,
    .value = LLMMEM_ENGINE_MEGATRON,
    .flags = LLMMEM__CAP_MODEL_PARALLEL | LLMMEM__CAP_PLAN_CP | LLMMEM__CAP_PLAN_EP |
             LLMMEM__CAP_DIST_OPTIMIZER | LLMMEM__CAP_FUSED_ADAM,
    .reads = megatron_reads,
    .precision_source = LLMMEM__STR("Megatron --bf16/--fp16: fp32 main params and Adam state, fp32 main grads "
                                    "with bf16 (optimizer.py Float16OptimizerWithFloat16Params, arguments.py)"),
    .masters = megatron_masters,
    .precision = megatron_precision,
    .no_replay = "a multi-GPU engine",
    .check = megatron_check,
    .formula = megatron_formula,
    .fill = megatron_fill,
    .plan_options = megatron_plan_options,
    .variants = megatron_variants,
    .dp_seconds = megatron_dp_seconds,
};

const llmmem__engine llmmem__engine_megatron_deepspeed = {
    .name = "megatron_deepspeed",
    .fn = "llmmem_estimate_megatron_deepspeed",
    .gate = LLMMEM_P_ENGINE,
    .value = LLMMEM_ENGINE_MEGATRON_DEEPSPEED,
    .flags = LLMMEM__CAP_MODEL_PARALLEL | LLMMEM__CAP_ZERO | LLMMEM__CAP_FUSED_ADAM,
    .reads = megatron_deepspeed_reads,
    .precision_source = LLMMEM__STR("Megatron-DeepSpeed: DeepSpeed's optimizer, fp32 masters and Adam state, "
                                    "grads in the model dtype (zero/stage_1_and_2.py)"),
    .masters = megatron_deepspeed_masters,
    .no_replay = "a multi-GPU engine",
    .precheck = megatron_deepspeed_precheck,
    .check = megatron_check,
    .formula = megatron_formula,
    .fill = megatron_fill,
    .plan_options = megatron_deepspeed_plan_options,
    .variants = megatron_deepspeed_variants,
    .dp_seconds = llmmem__zero_dp_seconds,
};
