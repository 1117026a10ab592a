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
    r->phase_used[LLMMEM_PHASE_FORWARD] = true;
    r->mode = LLMMEM__MODE_TRAINING;
    memcpy(r->model_type, m->model_type, sizeof r->model_type);
    llmmem__result_set_i64(r, LLMMEM_R_PARAMS, m->params);
    llmmem__result_set_i64(r, LLMMEM_R_TRAINABLE_PARAMS, m->params);
    llmmem__result_set_i64(r, LLMMEM_R_ACTIVE_PARAMS, m->params_active);
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
    llmmem__engine_keys(r, l, 0, 0, 0);
    return LLMMEM_OK;
}

/* ---- runtime model ------------------------------------------------------------ */

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
    if (moe) {
        /* MoE layer (derived, docs/engines.md): router logits fp32, the
         * permuted tokens (top-k copies) and each expert's fc1 output and fc2
         * input, experts split over ep (tokens) and etp (width). */
        const uint64_t kx = (uint64_t)m->experts_per_token, fm = (uint64_t)m->moe_intermediate_size;
        const uint64_t etp = (uint64_t)l->etp;
        uint64_t per_tok = 4 * (uint64_t)m->num_experts + 2 * kx * h +
                           kx * ((m->gated_mlp ? 6 : 4) * fm) / etp;
        if (m->shared_expert_intermediate_size > 0)
            per_tok += (uint64_t)(m->gated_mlp ? 6 : 4) * (uint64_t)m->shared_expert_intermediate_size / tp;
        split += sb * per_tok * tp; /* routed tokens are not split by tp: undo the /tp below */
    } else {
        split += sb * (uint64_t)(m->gated_mlp ? 6 : 4) * (uint64_t)m->intermediate_size;
    }
    if (c->sequence_parallel && l->tp > 1)
        return (rep + split) / tp;
    return rep + split / tp;
}

typedef struct mg_stage {
    uint64_t params;     /* parameters on this GPU */
    uint64_t layers;     /* transformer layers on this stage (all chunks) */
    uint64_t in_flight;  /* micro-batches whose activations this stage holds (rounded up) */
    uint64_t in_flight_chunks; /* the same in model chunks (lps / vpp layers each) */
    bool first, last;
} mg_stage;

/* zero_stage: 0 = Megatron's own optimizer (distributed or not), 1/2 = DeepSpeed ZeRO. */
static int megatron_run(struct llmmem_result *out, const struct llmmem_model *m,
                        const struct llmmem_config *c, int engine, int zero_stage)
{
    llmmem__layout l;
    int rc = llmmem__engine_layout(&l, m, c, true,
                                   engine == LLMMEM__ENG_MEGATRON ? "megatron" : "megatron_deepspeed");
    if (rc)
        return rc;
    llmmem__result_clear(out);
    out->engine = engine;
    if (c->accounting == LLMMEM__ACC_MEGATRON)
        return theoretical_mode(out, m, c, &l);
    if (c->accounting == LLMMEM__ACC_DEEPSPEED)
        return llmmem__error(LLMMEM_E_INCONSISTENT, "accounting deepspeed_estimator needs engine zero");
    llmmem__train base;
    if ((rc = llmmem__train_compute(&base, out, m, c)) != 0)
        return rc;
    llmmem__optim_engine_fused(&base.st, c);
    llmmem__ovf o = {false};
    const uint64_t L = (uint64_t)m->num_layers, P = (uint64_t)m->params;
    const uint64_t tp = (uint64_t)l.tp, pp = (uint64_t)l.pp, ept = (uint64_t)(l.ep * l.etp);
    const uint64_t h = (uint64_t)m->hidden_size, V = padded_vocab(m, l.tp);
    const uint64_t emb = (uint64_t)m->params_embedding, head = (uint64_t)m->params_head;
    const uint64_t experts = (uint64_t)m->params_experts;
    const uint64_t body = llmmem__sub0(llmmem__sub0(P, emb), head);
    const uint64_t dense_body = llmmem__sub0(body, experts);
    const uint64_t per_layer = dense_body / L / tp + experts / L / ept;
    /* Bytes per parameter: the model in its stored dtype; gradients in the
     * fp32 main-grad buffer when training with fp32 masters (Megatron's
     * accumulate_allreduce_grads_in_fp32 default; DeepSpeed keeps 16-bit
     * grads); masters 4 B; optimizer state per trainable param. */
    const bool master = base.st.master > 0;
    const uint64_t wbp = (uint64_t)(base.st.weight_bytes > 0 ? base.st.weight_bytes : 2);
    const uint64_t gbp = master && c->grad_dtype == LLMMEM__DT_AUTO && zero_stage == 0
                             ? 4 : (uint64_t)(base.st.grad_bytes > 0 ? base.st.grad_bytes : 2);
    const double obp = base.st.trainable > 0 ? (double)base.st.optim / (double)base.st.trainable : 0;
    const double otp = base.st.trainable > 0 ? (double)base.st.optim_transient / (double)base.st.trainable : 0;
    const uint64_t dpcp = (uint64_t)(l.dp * l.cp);
    const uint64_t nmb = (uint64_t)microbatches(c);
    const uint64_t cb = 2; /* Megatron runs bf16/fp16 activations */
    const uint64_t s_local = (uint64_t)c->seq_len / (uint64_t)l.cp;
    const uint64_t sb = llmmem__mul(&o, s_local, (uint64_t)c->micro_batch_size);
    const bool sp = c->sequence_parallel && l.tp > 1;
    const bool dropout = c->dropout == LLMMEM__DROPOUT_ON ||
                         (c->dropout == LLMMEM__DROPOUT_MODEL && m->hidden_dropout > 0);
    const uint64_t act1 = layer_act(m, c, &l, sb, s_local, dropout);
    const uint64_t ckpt1 = llmmem__mul(&o, 2 * sb, h) / (sp ? tp : 1);
    const uint64_t lps = L / pp;

    int peak_stage = 0;
    uint64_t peak = 0;
    struct llmmem_result scratch;
    const int stages = (int)(pp < LLMMEM__MAX_STAGES ? pp : LLMMEM__MAX_STAGES);
    uint64_t stage_peaks[LLMMEM__MAX_STAGES];
    for (int si = 0; si < stages; si++) {
        mg_stage st;
        st.first = si == 0;
        st.last = si == stages - 1;
        st.layers = lps;
        /* In-flight activations, in model chunks of lps / vpp layers
         * (megatron/core/pipeline_parallel/schedules.py): 1F1B warms up
         * pp - i - 1 micro-batches and holds one more; the interleaved
         * schedule warms up (pp - i - 1) * 2 + (vpp - 1) * pp chunk
         * micro-batches out of nmb * vpp, plus the current one. For the first
         * stage this is Korthikanti 4.2.3's 1 + (pp - 1)/(pp vpp) factor. */
        const uint64_t vpp = (uint64_t)l.vpp, total_chunks = (nmb > 0 ? nmb : 1) * vpp;
        uint64_t warm = vpp > 1 ? (pp - (uint64_t)si - 1) * 2 + (vpp - 1) * pp : pp - (uint64_t)si - 1;
        uint64_t chunks = vpp > 1 ? llmmem__min(total_chunks, warm + 1)
                                  : llmmem__min(warm + 1, nmb > 0 ? nmb : 1) * vpp;
        st.in_flight_chunks = chunks;
        st.in_flight = llmmem__ceil_div(chunks, vpp);
        st.params = llmmem__mul(&o, per_layer, lps);
        if (st.first)
            st.params += emb / tp;
        if (st.last)
            st.params += (m->tie_embeddings && pp > 1 ? emb : head) / tp;

        llmmem__train t = base;
        const uint64_t n = st.params;
        t.st.params = (int64_t)n;
        t.st.trainable = (int64_t)n;
        t.st.weights = llmmem__mul(&o, n, wbp);
        t.st.grads = llmmem__mul(&o, n, gbp);
        t.st.master = master ? llmmem__mul(&o, n, 4) : 0;
        t.st.optim = (uint64_t)((double)n * obp);
        t.st.optim_transient = (uint64_t)((double)n * otp);
        uint64_t shard_div = 1;
        if (zero_stage >= 1)
            shard_div = (uint64_t)l.dp; /* ZeRO over Megatron's data-parallel group */
        else if (c->distributed_optimizer)
            shard_div = dpcp; /* distrib_optimizer.py: dp x cp group */
        t.st.master = llmmem__ceil_div(t.st.master, shard_div);
        t.st.optim = llmmem__ceil_div(t.st.optim, shard_div);
        t.st.optim_transient = llmmem__ceil_div(t.st.optim_transient, shard_div);
        if (zero_stage >= 2)
            t.st.grads = llmmem__ceil_div(t.st.grads, shard_div);
        t.layers = (int64_t)lps;
        t.layer_grad = llmmem__ceil_div(llmmem__mul(&o, per_layer, gbp), zero_stage >= 2 ? shard_div : 1);
        t.other_grad = llmmem__sub0(t.st.grads, llmmem__mul(&o, t.layer_grad, lps));
        /* Activations of the in-flight micro-batches. */
        t.checkpointing = c->checkpointing == LLMMEM__CKPT_FULL;
        t.act_layer = t.checkpointing ? act1 : llmmem__mul(&o, act1, st.in_flight_chunks) / (uint64_t)l.vpp;
        t.ckpt_layer = llmmem__mul(&o, ckpt1, st.in_flight_chunks) / (uint64_t)l.vpp;
        t.cast_layer = 0;
        t.cast_other = 0;
        t.quant_transient = 0;
        t.fwd_transient = 0;
        t.bwd_transient = llmmem__mul3(&o, sb, (uint64_t)m->intermediate_size / tp, 2 * cb);
        t.inputs = st.first ? llmmem__mul3(&o, 8, sb, st.in_flight) : 0;
        t.act_other = 0;
        if (st.first && dropout) /* embedding dropout mask per micro-batch */
            t.act_other = llmmem__mul3(&o, sb, h, st.in_flight) / (sp ? tp : 1);
        t.logits_saved = t.logits_fwd_extra = t.logits_bwd_extra = 0;
        if (st.last) {
            /* final norm input + head input (16-bit), fp32 vocab-parallel
             * logits kept for cross entropy (cross_entropy.py), the 16-bit
             * logits at the forward peak, their gradient in backward. */
            t.act_other += llmmem__mul(&o, 4 * sb, h) / (sp ? tp : 1);
            uint64_t TV = llmmem__mul(&o, sb, V / tp);
            t.logits_saved = llmmem__mul(&o, TV, 4);
            t.logits_fwd_extra = llmmem__mul(&o, TV, cb);
            t.logits_bwd_extra = llmmem__mul(&o, TV, cb);
        }
        llmmem__engine_extra x;
        memset(&x, 0, sizeof x);
        if (pp > 1) { /* p2p send/recv activation buffers (p2p_communication.py) */
            uint64_t p2p = llmmem__mul3(&o, 2 * sb, h, cb) / (sp ? tp : 1);
            x.fwd[LLMMEM_C_COMM_BUFFERS] = p2p;
            x.bwd[LLMMEM_C_COMM_BUFFERS] = p2p;
        }
        if (zero_stage >= 1) { /* DeepSpeed reduce bucket (stage_1_and_2.py ipg buffer) */
            uint64_t elems = llmmem__min((uint64_t)c->reduce_bucket_size, n);
            x.bwd[LLMMEM_C_COMM_BUFFERS] += llmmem__mul(&o, elems, gbp);
        }
        struct llmmem_result *dst = &scratch;
        llmmem__result_clear(dst);
        if ((rc = llmmem__train_fill(dst, &t, &x, m, c)) != 0)
            return rc;
        uint64_t sp_peak = llmmem__result_u64(dst, LLMMEM_R_PEAK_ALLOCATED_BYTES);
        stage_peaks[si] = sp_peak;
        if (si == 0 || sp_peak > peak) {
            peak = sp_peak;
            peak_stage = si;
            *out = *dst;
        }
    }
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "Megatron estimate overflows 64-bit byte counts");
    out->engine = engine;
    out->stage_count = stages;
    memcpy(out->stage_peak, stage_peaks, sizeof(uint64_t) * (size_t)stages);
    llmmem__result_set_i64(out, LLMMEM_R_PIPELINE_STAGES, (int64_t)pp);
    llmmem__result_set_i64(out, LLMMEM_R_PEAK_STAGE, peak_stage);
    llmmem__result_set_i64(out, LLMMEM_R_PARAMS, m->params);
    llmmem__result_set_i64(out, LLMMEM_R_TRAINABLE_PARAMS, base.st.trainable);
    llmmem__result_term(out, "megatron_layer_activations",
                        "per layer, one micro-batch: (10 sbh replicated unless SP) + (q,k,v,o, attention "
                        "core, MLP intermediates)/tp (Korthikanti Table 2, GQA/SwiGLU generalised)",
                        act1);
    llmmem__result_term(out, "megatron_params_per_gpu",
                        "dense params/(tp x pp) + experts/(ep x etp x pp) + embedding/tp on the first "
                        "stage + head/tp on the last (x bytes)",
                        llmmem__result_u64(out, LLMMEM_R_WEIGHTS_BYTES));
    uint64_t sharded = 0;
    if (zero_stage >= 1 || c->distributed_optimizer) {
        const uint64_t *opb = out->bytes[LLMMEM_PHASE_OPTIMIZER];
        sharded = llmmem__add(&o, opb[LLMMEM_C_MASTER_WEIGHTS], opb[LLMMEM_C_OPTIMIZER_STATE]);
    }
    llmmem__engine_keys(out, &l, 0, 0, sharded);
    return LLMMEM_OK;
}

int llmmem_estimate_megatron(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = llmmem__check_args(out, model, cfg, "llmmem_estimate_megatron");
    if (rc)
        return rc;
    return megatron_run(out, model, cfg, LLMMEM__ENG_MEGATRON, 0);
}

int llmmem_estimate_megatron_deepspeed(llmmem_result *out, const llmmem_model *model,
                                       const llmmem_config *cfg)
{
    int rc = llmmem__check_args(out, model, cfg, "llmmem_estimate_megatron_deepspeed");
    if (rc)
        return rc;
    if (cfg->zero_stage > 2)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "megatron_deepspeed: zero_stage = %lld; Megatron-DeepSpeed pipelines "
                             "support ZeRO stages 0-2",
                             (long long)cfg->zero_stage);
    return megatron_run(out, model, cfg, LLMMEM__ENG_MEGATRON_DEEPSPEED, (int)cfg->zero_stage);
}
