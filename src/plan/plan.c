/* Planner (issue 7).
 *
 * Inverse questions (llmmem_plan_max_batch, _max_seq_len, _min_gpus) are
 * answered by exponential then binary search on the estimator's own
 * LLMMEM_R_FITS, so each answer is the exact boundary of llmmem_estimate: the
 * answer fits and the next value does not.
 *
 * llmmem_plan_layouts enumerates every layout of N GPUs (engine, DP x TP x PP x
 * CP x EP, ZeRO stage / FSDP strategy / Megatron options, offload, recompute,
 * micro-batch), rejects the indivisible ones before estimating, estimates the
 * rest, and keeps the top K that fit by the step-time model below. Formulas,
 * constants and their sources: docs/planner.md.
 *
 * Allocation: llmmem_plan_new allocates the handle (fixed capacity: PLAN_MAX_K
 * layouts, the divisor lists and a scratch result); nothing else allocates, so
 * the estimate loop never does. Reentrant: all state is in the handle or on
 * the stack. */
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_MAX_K 64
#define REJECT_COUNT 4
#define MAX_N_DIV 1024       /* divisors of N <= 1e7: at most 448 */
#define MAX_B_DIV 8192       /* divisors of a global batch <= 1e12: at most 6720 */
#define MAX_GLOBAL_BATCH INT64_C(1000000000000)

/* ---- step-time model (docs/planner.md) -------------------------------------- */

/* Fraction of the dense bf16 rate reached by the matmuls: Narayanan et al. 2021
 * ("Efficient Large-Scale Language Model Training on GPU Clusters using
 * Megatron-LM", SC'21), Table 1: 44% to 52% of the theoretical peak for models
 * of 1.7B to 1T parameters on A100s; 0.5 is used for every GPU. */
#define EFFICIENCY 0.5
/* Bandwidth of a group that crosses nodes, bytes/s per GPU and direction: one
 * 400 Gb/s NDR InfiniBand adapter per GPU (DGX H100 system: 8 ConnectX-7 for 8
 * GPUs). Used only where it is below the GPU table's link_gbps. */
#define INTER_NODE_BYTES_S 50e9
/* Host <-> GPU copies: PCIe Gen4 x16, about 25 GB/s achieved per direction. */
#define PCIE_BYTES_S 25e9
/* One NVMe drive per GPU, about 3 GB/s (ZeRO-Infinity offload). */
#define NVME_BYTES_S 3e9
/* CPU optimizer step (DeepSpeed CPU-Adam): parameters updated per second by the
 * cores of one GPU's process. An assumption, not a measurement. */
#define CPU_OPTIM_PARAMS_S 1e9
/* Fixed cost per decoder layer per pass (forward, backward, recompute): kernel
 * launches and small element-wise kernels. An assumption that makes larger
 * micro-batches win ties, as they do on real GPUs. */
#define LAYER_PASS_S 20e-6
/* Latency of one small collective (decode-time tensor-parallel all-reduce). */
#define COLLECTIVE_LATENCY_S 10e-6

static double ring(double n) { return n > 1 ? (n - 1) / n : 0.0; }
static double dmax(double a, double b) { return a > b ? a : b; }

static int act_bytes(const struct llmmem_config *c)
{
    int dt = (int)(c->compute_dtype != LLMMEM__DT_AUTO ? c->compute_dtype : c->param_dtype);
    int n = llmmem__dtype_bytes(dt);
    return n > 0 ? n : 2;
}

/* Matmul parameters a token passes through: active parameters less the
 * embedding lookups and the vision tower, plus the tied head (its matmul uses
 * the embedding matrix). */
static double matmul_params(const struct llmmem_model *m)
{
    double p = (double)m->params_active - (double)m->params_embedding -
               (double)(m->vision_params > 0 ? m->vision_params : 0);
    if (m->tie_embeddings)
        p += (double)m->vocab_size * (double)m->hidden_size;
    return dmax(p, 0.0);
}

/* Sum over layers of the attended context for a query at position s:
 * sliding-window layers attend to at most the window. */
static double layer_context(const struct llmmem_model *m, double s)
{
    double L = (double)m->num_layers;
    double sl = m->sliding_window > 0 ? (double)(m->num_sliding_layers > 0 ? m->num_sliding_layers
                                                                            : m->num_layers)
                                      : 0.0;
    if (sl > L)
        sl = L;
    double w = m->sliding_window > 0 && (double)m->sliding_window < s ? (double)m->sliding_window : s;
    return (L - sl) * s + sl * w;
}

static void train_time(llmmem__steptime *t, const struct llmmem_model *m,
                       const struct llmmem_config *c, int64_t trainable, const llmmem__gpu *g)
{
    const double tp = (double)c->tp, pp = (double)c->pp, cp = (double)c->cp, dp = (double)c->dp;
    const double ep = (double)c->ep;
    const double N = tp * pp * cp * dp;
    const double b = (double)c->micro_batch_size, s = (double)c->seq_len;
    const double ga = (double)c->grad_accum_steps;
    const double h = (double)m->hidden_size, L = (double)m->num_layers;
    const double ad = (double)m->num_heads * (double)m->head_dim;
    const double kvd = (double)(m->num_kv_heads > 0 ? m->num_kv_heads : m->num_heads) *
                       (double)m->head_dim;
    const double ab = act_bytes(c);
    const double pb = dmax(llmmem__dtype_bytes((int)c->param_dtype), 1);
    const double gb = dmax(llmmem__dtype_bytes((int)(c->grad_dtype != LLMMEM__DT_AUTO ? c->grad_dtype
                                                                                      : c->param_dtype)),
                           1);
    const bool full = c->checkpointing == LLMMEM__CKPT_FULL;
    const bool selective = c->checkpointing == LLMMEM__CKPT_SELECTIVE;
    const double gpn = (double)c->gpus_per_node;
    const double intra = g->link_gbps * 1e9;
    const double inter = intra < INTER_NODE_BYTES_S ? intra : INTER_NODE_BYTES_S;

    /* FLOPs (Narayanan et al. 2021 §5.1, eq. 3: per layer forward 24Bsh^2 +
     * 4Bs^2h, i.e. 2 x matmul parameters + 4 s h per token; logits 2BshV; the
     * backward pass is twice the forward, full recompute adds one forward).
     * Generalised to GQA/SwiGLU/MoE by counting the active matmul parameters
     * (Kaplan et al. 2020, Table 1: 2N per token) and a*d for the attention
     * width. LoRA: the frozen weights need no weight gradients, so the backward
     * pass is one forward's worth (input gradients only). Selective recompute
     * redoes the attention core (Korthikanti et al. 2022 §5): its 4 s a d. */
    const double tokens = b * ga * dp * s; /* per optimizer step, all replicas */
    const double f_mm = 2.0 * matmul_params(m);
    const double f_att = 4.0 * layer_context(m, s) * ad;
    const double bwd = c->lora_rank > 0 ? 1.0 : 2.0;
    t->flops = tokens * ((f_mm + f_att) * (1.0 + bwd + (full ? 1.0 : 0.0)) + (selective ? f_att : 0.0));
    t->compute_s = t->flops / (N * g->bf16_tflops * 1e12 * EFFICIENCY);

    /* Pipeline bubble, 1F1B (Narayanan et al. 2021 §2.2.1): (p - 1) / m of the
     * ideal time, m = micro-batches per pipeline, divided by the virtual stages. */
    if (c->pp > 1)
        t->bubble_s = t->compute_s * (pp - 1) / (ga * (double)(c->vpp > 0 ? c->vpp : 1));

    /* Elements of this GPU's shard of the model (TP and PP split every weight,
     * EP the routed experts). */
    const double E = (double)m->params_experts;
    const double P = (double)m->params;
    const double tr = (double)trainable;
    double w_el = (P - E) / (tp * pp) + E / (tp * pp * ep);
    double g_el = c->lora_rank > 0 || E <= 0 ? tr / (tp * pp) : (tr - E) / (tp * pp) + E / (tp * pp * ep);
    if (g_el < 0)
        g_el = tr / (tp * pp);

    /* Data-parallel traffic per GPU (ring collectives: all-reduce moves
     * 2(n-1)/n of the buffer, reduce-scatter and all-gather (n-1)/n each;
     * Rajbhandari et al. 2020 "ZeRO" §7: stage 1/2 = 2 x params, stage 3 =
     * 3 x params). The DP group of Megatron also spans CP (grads are
     * reduced over dp x cp). */
    const double n_dp = dp * cp;
    const double bw_dp = tp * cp * dp <= gpn ? intra : inter;
    const double G_B = g_el * gb, W_B = w_el * pb;
    double dp_bytes = 0, dp_s = 0;
    switch (c->engine) {
    case LLMMEM__ENG_SINGLE: break;
    case LLMMEM__ENG_DDP: dp_bytes = 2 * ring(n_dp) * G_B; break;
    case LLMMEM__ENG_MEGATRON:
        /* distributed optimizer: reduce-scatter grads, all-gather params
         * (megatron/core/optimizer/distrib_optimizer.py) */
        dp_bytes = c->distributed_optimizer ? ring(n_dp) * (G_B + W_B) : 2 * ring(n_dp) * G_B;
        break;
    case LLMMEM__ENG_ZERO:
    case LLMMEM__ENG_MEGATRON_DEEPSPEED:
        switch (c->zero_stage) {
        case 0: dp_bytes = 2 * ring(n_dp) * G_B; break;
        case 1: dp_bytes = ring(n_dp) * (G_B + W_B); break;
        /* stage 2 reduce-scatters gradients every micro-step */
        case 2: dp_bytes = ga * ring(n_dp) * G_B + ring(n_dp) * W_B; break;
        /* stage 3: all-gather in forward and backward, reduce-scatter, every micro-step */
        default: dp_bytes = ga * ring(n_dp) * (2 * W_B + G_B); break;
        }
        break;
    case LLMMEM__ENG_FSDP:
        switch (c->fsdp_sharding) {
        case LLMMEM__FSDP_FULL_SHARD: dp_bytes = ga * ring(n_dp) * (2 * W_B + G_B); break;
        /* parameters stay gathered from forward to backward */
        case LLMMEM__FSDP_SHARD_GRAD_OP: dp_bytes = ga * ring(n_dp) * (W_B + G_B); break;
        case LLMMEM__FSDP_NO_SHARD: dp_bytes = 2 * ring(n_dp) * G_B; break;
        default: {
            /* hybrid: full shard inside a node, all-reduce of the shard across nodes */
            double in = gpn < n_dp ? gpn : n_dp, across = n_dp / in;
            dp_s = ga * ring(in) * (2 * W_B + G_B) / intra + 2 * ring(across) * G_B / in / inter;
        } break;
        }
        break;
    }
    t->comm_s = dp_s + dp_bytes / bw_dp;

    /* Tensor parallel (Megatron, Shoeybi et al. 2019 §3): 2 all-reduces of
     * b s h per layer in forward, 2 in backward, 2 more with full recompute;
     * sequence parallelism moves the same bytes (Korthikanti et al. 2022 §4.2.2). */
    const double tokens_mb = b * s / cp;
    if (c->tp > 1) {
        double per_layer = (4.0 + (full ? 2.0 : 0.0)) * 2 * ring(tp) * tokens_mb * h * ab;
        t->comm_s += ga * (L / pp) * per_layer / (tp <= gpn ? intra : inter);
    }
    /* Context parallel (ring attention, megatron/core/transformer/
     * dot_product_attention context_parallel): K and V of the other chunks pass
     * every rank in forward, K, V and their gradients in backward. */
    if (c->cp > 1) {
        double kv = 2.0 * b * s * kvd * ab / tp;
        t->comm_s += ga * (L / pp) * (3.0 + (full ? 1.0 : 0.0)) * ring(cp) * kv /
                     (tp * cp <= gpn ? intra : inter);
    }
    /* Expert parallel: all-to-all dispatch and combine of top-k token copies per
     * MoE layer in forward, twice that in backward (Lepikhin et al. 2020 GShard). */
    if (c->ep > 1 && m->num_experts > 0) {
        double topk = (double)(m->experts_per_token > 0 ? m->experts_per_token : 1);
        double moe_layers = (double)(m->num_moe_layers > 0 ? m->num_moe_layers : m->num_layers);
        double per_layer = (3.0 + (full ? 1.0 : 0.0)) * 2 * ring(ep) * tokens_mb * topk * h * ab;
        t->comm_s += ga * (moe_layers / pp) * per_layer / (tp * cp * ep <= gpn ? intra : inter);
    }
    /* Pipeline: one activation send per micro-batch forward and one gradient
     * send backward (/tp with sequence parallelism). */
    if (c->pp > 1) {
        double msg = tokens_mb * h * ab / (c->sequence_parallel ? tp : 1.0);
        t->comm_s += ga * 2 * msg / (N <= gpn ? intra : inter);
    }

    /* Offload: ZeRO-Offload (Ren et al. 2021 §4) moves gradients to the host
     * every micro-step and updated parameters back once; the CPU runs the
     * optimizer over this GPU's shard. ZeRO-Infinity (Rajbhandari et al. 2021)
     * NVMe: optimizer states (12 B/param) read and written once per step;
     * parameter offload fetches the shard for forward and backward. */
    const double shard = tr / dp;
    bool opt_off = false, param_off = false;
    int opt_dev = 0, param_dev = 0;
    if (c->engine == LLMMEM__ENG_ZERO && c->zero_stage >= 1 && c->offload_optimizer) {
        opt_off = true;
        opt_dev = (int)c->offload_optimizer;
    }
    if (c->engine == LLMMEM__ENG_ZERO && c->zero_stage == 3 && c->offload_param) {
        param_off = true;
        param_dev = (int)c->offload_param;
    }
    if (c->engine == LLMMEM__ENG_FSDP && c->fsdp_cpu_offload) {
        opt_off = param_off = true;
        opt_dev = param_dev = LLMMEM__OFFLOAD_CPU;
    }
    if (opt_off) {
        t->offload_s += (ga * shard * gb + shard * pb) / PCIE_BYTES_S + shard / CPU_OPTIM_PARAMS_S;
        if (opt_dev == LLMMEM__OFFLOAD_NVME)
            t->offload_s += 2 * 12 * shard / NVME_BYTES_S;
    }
    if (param_off) {
        double bytes = ga * 2 * (w_el / dp) * pb;
        t->offload_s += bytes / PCIE_BYTES_S + (param_dev == LLMMEM__OFFLOAD_NVME ? bytes / NVME_BYTES_S : 0);
    }

    /* Per layer per pass latency: forward, backward, and the recompute forward. */
    double passes = 2.0 + (full || selective ? 1.0 : 0.0);
    t->overhead_s = ga * (double)llmmem__ceil_div((uint64_t)m->num_layers, (uint64_t)c->pp) * passes * LAYER_PASS_S;
}

/* One generate call: prefill of the prompt, then decode_len tokens, for the
 * sequences of one replica (batch_size each; num_gpus / tp replicas). */
static void infer_time(llmmem__steptime *t, const struct llmmem_model *m,
                       const struct llmmem_config *c, const llmmem__gpu *g)
{
    const double tp = (double)(c->tp > 0 ? c->tp : 1);
    const double n = c->num_gpus > 0 ? (double)c->num_gpus : tp;
    const double replicas = n / tp;
    const double B = (double)c->batch_size, S = (double)c->prompt_len, D = (double)c->decode_len;
    const double h = (double)m->hidden_size, L = (double)m->num_layers;
    const double ad = (double)m->num_heads * (double)m->head_dim;
    const double ab = act_bytes(c);
    const double intra = g->link_gbps * 1e9;
    const double inter = intra < INTER_NODE_BYTES_S ? intra : INTER_NODE_BYTES_S;
    const double bw = tp <= (double)c->gpus_per_node ? intra : inter;
    const double f_mm = 2.0 * matmul_params(m);
    /* Forward FLOPs as in training (Narayanan et al. 2021 eq. 3): prefill
     * attends over the prompt; decode token j attends over S + j positions. */
    double prefill = B * S * (f_mm + 4.0 * layer_context(m, S) * ad);
    double decode = B * D * f_mm;
    if (D > 0) /* sum over j = 1..D of 4 L (S + j) a d, sliding windows ignored */
        decode += 4.0 * L * ad * B * (D * S + D * (D + 1) / 2);
    t->flops = replicas * (prefill + decode);
    t->compute_s = (prefill + decode) / (tp * g->bf16_tflops * 1e12 * EFFICIENCY);
    /* TP: 2 all-reduces per layer per forward (Shoeybi et al. 2019 §3); decode
     * messages are tiny, so each also pays a collective latency. */
    if (c->tp > 1) {
        t->comm_s = 2 * L * 2 * ring(tp) * B * S * h * ab / bw;
        t->comm_s += D * 2 * L * (2 * ring(tp) * B * h * ab / bw + COLLECTIVE_LATENCY_S);
    }
    t->overhead_s = (1.0 + D) * L * LAYER_PASS_S;
}

void llmmem__plan_step_time(llmmem__steptime *out, const struct llmmem_model *m,
                            const struct llmmem_config *c, int64_t trainable)
{
    memset(out, 0, sizeof *out);
    const llmmem__gpu *g = llmmem__gpu_at((int)c->gpu);
    if (!g || m->num_layers <= 0)
        return;
    if (c->mode == LLMMEM__MODE_INFERENCE)
        infer_time(out, m, c, g);
    else
        train_time(out, m, c, trainable, g);
    out->total_s = out->compute_s + out->bubble_s + out->comm_s + out->offload_s + out->overhead_s;
}

/* ---- inverse questions ------------------------------------------------------- */

/* 1: fits, 0: does not fit (or its byte count overflows), < 0: error. */
static int fits_at(struct llmmem_result *r, const llmmem_model *m, const struct llmmem_config *c)
{
    int rc = llmmem_estimate(r, m, c);
    if (rc == LLMMEM_E_OUT_OF_RANGE)
        return 0;
    if (rc)
        return rc;
    return r->v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i != 0;
}

typedef void (*set_fn)(struct llmmem_config *c, int64_t v);

/* Largest v in [lo, hi] with fits(v), by doubling from lo then bisecting, so
 * that fits(answer) and !fits(answer + 1) hold on the estimator itself (or the
 * answer is hi). *out = lo - 1 when lo does not fit. An error at lo is
 * returned as is; above lo, an overflow counts as "does not fit". */
static int search_max(int64_t *out, const llmmem_model *m, struct llmmem_config *c, set_fn set,
                      int64_t lo, int64_t hi)
{
    struct llmmem_result r;
    set(c, lo);
    int rc = llmmem_estimate(&r, m, c);
    if (rc)
        return rc;
    if (!r.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
        *out = lo - 1;
        return LLMMEM_OK;
    }
    int64_t bad = 0; /* 0: no value known not to fit */
    for (int64_t step = 1; !bad;) {
        int64_t next = hi - lo <= step ? hi : lo + step;
        set(c, next);
        int f = fits_at(&r, m, c);
        if (f < 0)
            return f;
        if (f) {
            lo = next;
            if (lo == hi) {
                *out = hi;
                return LLMMEM_OK;
            }
            step = step > INT64_MAX / 2 ? INT64_MAX : step * 2;
        } else {
            bad = next;
        }
    }
    while (bad - lo > 1) {
        int64_t mid = lo + (bad - lo) / 2;
        set(c, mid);
        int f = fits_at(&r, m, c);
        if (f < 0)
            return f;
        if (f)
            lo = mid;
        else
            bad = mid;
    }
    *out = lo;
    return LLMMEM_OK;
}

static int64_t param_hi(int param)
{
    const llmmem__param_info *p = llmmem__param_find(param);
    return p ? p->hi : 1;
}

static void set_mbs(struct llmmem_config *c, int64_t v) { c->micro_batch_size = v; }
static void set_batch(struct llmmem_config *c, int64_t v) { c->batch_size = v; }
static void set_seq(struct llmmem_config *c, int64_t v) { c->seq_len = v; }
static void set_max_seqs(struct llmmem_config *c, int64_t v) { c->max_num_seqs = v; }
static void set_max_len(struct llmmem_config *c, int64_t v) { c->max_model_len = v; }
/* inference context = prompt + decode, decode held as configured */
static void set_prompt(struct llmmem_config *c, int64_t v) { c->prompt_len = v; }

static int inverse_args(const llmmem_model *model, const llmmem_config *cfg, const void *out,
                        const char *fn)
{
    if (!out || !model || !cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "%s: %s is NULL", fn,
                             !out ? "out" : !model ? "model" : "config");
    return llmmem__model_validate(model);
}

int llmmem_plan_max_batch(int64_t *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = inverse_args(model, cfg, out, "llmmem_plan_max_batch");
    if (rc)
        return rc;
    struct llmmem_config c = *cfg;
    if (c.mode == LLMMEM__MODE_INFERENCE && c.runtime == LLMMEM__RT_VLLM)
        return search_max(out, model, &c, set_max_seqs, 1, param_hi(LLMMEM_P_MAX_NUM_SEQS));
    if (c.mode == LLMMEM__MODE_INFERENCE)
        return search_max(out, model, &c, set_batch, 1, param_hi(LLMMEM_P_BATCH_SIZE));
    return search_max(out, model, &c, set_mbs, 1, param_hi(LLMMEM_P_MICRO_BATCH_SIZE));
}

int llmmem_plan_max_seq_len(int64_t *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = inverse_args(model, cfg, out, "llmmem_plan_max_seq_len");
    if (rc)
        return rc;
    struct llmmem_config c = *cfg;
    if (c.mode == LLMMEM__MODE_INFERENCE && c.runtime == LLMMEM__RT_VLLM)
        return search_max(out, model, &c, set_max_len, 1, param_hi(LLMMEM_P_MAX_MODEL_LEN));
    if (c.mode == LLMMEM__MODE_INFERENCE) {
        int64_t p = 0;
        rc = search_max(&p, model, &c, set_prompt, 1, param_hi(LLMMEM_P_PROMPT_LEN));
        if (rc)
            return rc;
        *out = p > 0 ? p + c.decode_len : 0;
        return LLMMEM_OK;
    }
    return search_max(out, model, &c, set_seq, 1, param_hi(LLMMEM_P_SEQ_LEN));
}

/* Divisors of n in ascending order (n >= 1); returns how many, at most cap. */
static int divisors(int64_t *d, int cap, int64_t n)
{
    int lo = 0, hi = 0;
    int64_t big[MAX_B_DIV];
    for (int64_t i = 1; i <= n / i; i++) {
        if (n % i)
            continue;
        if (lo < cap)
            d[lo++] = i;
        if (i != n / i && hi < MAX_B_DIV)
            big[hi++] = n / i;
    }
    for (int j = hi - 1; j >= 0 && lo < cap; j--)
        d[lo++] = big[j];
    return lo;
}

int llmmem_plan_min_gpus(int64_t *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = inverse_args(model, cfg, out, "llmmem_plan_min_gpus");
    if (rc)
        return rc;
    struct llmmem_config c = *cfg;
    struct llmmem_result r;
    *out = 0;
    if (c.mode == LLMMEM__MODE_INFERENCE) {
        /* tensor-parallel ranks, ascending; the sizes that do not split the
         * heads are skipped (the estimator answers LLMMEM_E_INCONSISTENT) */
        int64_t d[MAX_N_DIV];
        int64_t heads = model->num_heads > 0 ? model->num_heads : 1;
        int nd = divisors(d, MAX_N_DIV, heads);
        for (int i = 0; i < nd; i++) {
            c.tp = d[i];
            c.num_gpus = d[i];
            rc = llmmem_estimate(&r, model, &c);
            if (rc == LLMMEM_E_INCONSISTENT || rc == LLMMEM_E_OUT_OF_RANGE)
                continue;
            if (rc)
                return rc;
            if (r.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
                *out = d[i];
                return LLMMEM_OK;
            }
        }
        return LLMMEM_OK;
    }
    /* training: data-parallel ranks at the configured TP x PP x CP */
    const int64_t per = c.tp * c.pp * c.cp;
    if (c.engine == LLMMEM__ENG_SINGLE) {
        c.num_gpus = 1;
        int f = fits_at(&r, model, &c);
        if (f < 0)
            return f;
        *out = f ? 1 : 0;
        return LLMMEM_OK;
    }
    const int64_t hi = param_hi(LLMMEM_P_NUM_GPUS) / per;
    int64_t lo = 0, good = 0; /* lo: largest dp known not to fit (0 = none tried) */
    for (int64_t dp = 1; dp <= hi; dp = dp > hi / 2 ? (dp == hi ? hi + 1 : hi) : dp * 2) {
        c.dp = dp;
        c.num_gpus = dp * per;
        int f = fits_at(&r, model, &c);
        if (f == LLMMEM_E_INCONSISTENT) /* e.g. expert parallel does not divide dp */
            f = 0;
        if (f < 0)
            return f;
        if (f) {
            good = dp;
            break;
        }
        lo = dp;
    }
    if (!good)
        return LLMMEM_OK;
    while (good - lo > 1) {
        int64_t mid = lo + (good - lo) / 2;
        c.dp = mid;
        c.num_gpus = mid * per;
        int f = fits_at(&r, model, &c);
        if (f == LLMMEM_E_INCONSISTENT)
            f = 0;
        if (f < 0)
            return f;
        if (f)
            good = mid;
        else
            lo = mid;
    }
    *out = good * per;
    return LLMMEM_OK;
}

/* ---- layout enumeration -------------------------------------------------------- */

typedef struct plan_layout {
    struct llmmem_config cfg;
    llmmem__steptime time;
    uint64_t peak_allocated, peak_reserved, total, capacity;
    int64_t peak_phase;
    uint64_t comp[LLMMEM__COMPONENTS]; /* live bytes of the peak phase */
} plan_layout;

struct llmmem_plan {
    int count, top_k, mode, gpu;
    int64_t num_gpus, global_batch, candidates, feasible, estimates;
    int64_t rejected[REJECT_COUNT];
    char model_type[LLMMEM__NAME_MAX];
    int order[PLAN_MAX_K]; /* slots by step time, fastest first */
    plan_layout slot[PLAN_MAX_K];
    int n_nd, n_bd;
    int64_t nd[MAX_N_DIV]; /* divisors of N */
    int64_t bd[MAX_B_DIV]; /* divisors of the global batch (micro-batch sizes) */
    int64_t vb[MAX_B_DIV]; /* those that split the global batch over the layout's dp */
    int64_t trainable_hint; /* trainable parameters of the last fitting probe */
    struct llmmem_result scratch;
};

static const char *const reject_names[REJECT_COUNT] = {"indivisible", "oom", "unsupported", "batch"};

const char *llmmem_plan_reject_name(int reason)
{
    return reason >= 0 && reason < REJECT_COUNT ? reject_names[reason] : NULL;
}

int llmmem_plan_new(llmmem_plan **out)
{
    if (!out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_plan_new: out is NULL");
    struct llmmem_plan *p = calloc(1, sizeof *p);
    if (!p)
        return llmmem__error(LLMMEM_E_NOMEM, "llmmem_plan_new: out of memory");
    *out = p;
    return LLMMEM_OK;
}

void llmmem_plan_free(llmmem_plan *plan) { free(plan); }

/* Orders layouts: shorter step time first; at equal time, less peak memory;
 * then the one found first. */
static bool before(double t, uint64_t peak, const plan_layout *l)
{
    return t < l->time.total_s || (t == l->time.total_s && peak < l->peak_allocated);
}

/* Keeps the layout in p->scratch / c if it is among the top K. */
static void consider(struct llmmem_plan *p, const llmmem_model *m, const struct llmmem_config *c)
{
    const struct llmmem_result *r = &p->scratch;
    llmmem__steptime t;
    llmmem__plan_step_time(&t, m, c, r->v[LLMMEM_R_TRAINABLE_PARAMS - LLMMEM_R_PARAMS].i);
    const uint64_t peak = llmmem__result_u64(r, LLMMEM_R_PEAK_ALLOCATED_BYTES);
    int pos = p->count;
    while (pos > 0 && before(t.total_s, peak, &p->slot[p->order[pos - 1]]))
        pos--;
    if (pos >= p->top_k)
        return;
    int s;
    if (p->count < p->top_k) {
        s = p->count++;
    } else {
        s = p->order[p->top_k - 1];
    }
    memmove(&p->order[pos + 1], &p->order[pos], (size_t)(p->count - 1 - pos) * sizeof p->order[0]);
    p->order[pos] = s;
    plan_layout *l = &p->slot[s];
    l->cfg = *c;
    l->time = t;
    l->peak_allocated = llmmem__result_u64(r, LLMMEM_R_PEAK_ALLOCATED_BYTES);
    l->peak_reserved = llmmem__result_u64(r, LLMMEM_R_PEAK_RESERVED_BYTES);
    l->total = llmmem__result_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
    l->capacity = llmmem__result_u64(r, LLMMEM_R_GPU_MEMORY_BYTES);
    l->peak_phase = r->v[LLMMEM_R_PEAK_PHASE - LLMMEM_R_PARAMS].i;
    if (l->peak_phase >= 0 && l->peak_phase < LLMMEM__PHASES)
        memcpy(l->comp, r->bytes[l->peak_phase], sizeof l->comp);
    else
        memset(l->comp, 0, sizeof l->comp);
}

typedef struct search {
    struct llmmem_plan *p;
    const llmmem_model *m;
    struct llmmem_config c; /* the candidate being built */
    int64_t n, G;
    int64_t hint[3]; /* per recompute mode: the largest micro-batch that fitted last */
} search;

/* Estimates one candidate; 0 or an error that stops the planner. */
static int estimate_one(search *s, bool *oom)
{
    struct llmmem_plan *p = s->p;
    p->estimates++;
    int rc = llmmem_estimate(&p->scratch, s->m, &s->c);
    switch (rc) {
    case LLMMEM_OK: break;
    case LLMMEM_E_UNSUPPORTED: p->rejected[LLMMEM_REJECT_UNSUPPORTED]++; return 0;
    case LLMMEM_E_INCONSISTENT: p->rejected[LLMMEM_REJECT_INDIVISIBLE]++; return 0;
    case LLMMEM_E_OUT_OF_RANGE: /* byte counts overflow: far beyond any GPU */
        *oom = true;
        p->rejected[LLMMEM_REJECT_OOM]++;
        return 0;
    default: return rc;
    }
    if (!p->scratch.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
        *oom = true;
        p->rejected[LLMMEM_REJECT_OOM]++;
        return 0;
    }
    p->feasible++;
    consider(p, s->m, &s->c);
    return 0;
}

/* Probe outcomes of one estimate. */
enum { PROBE_FIT = 0, PROBE_OOM = 1, PROBE_OTHER = 2 };

/* Estimates the candidate in s->c at micro-batch b without counting it:
 * PROBE_FIT / PROBE_OOM, or PROBE_OTHER with *reason set (unsupported,
 * indivisible); < 0 for an error that stops the planner. */
static int probe(search *s, int64_t b, int *reason)
{
    struct llmmem_plan *p = s->p;
    s->c.micro_batch_size = b;
    s->c.grad_accum_steps = s->G / (b * s->c.dp);
    p->estimates++;
    int rc = llmmem_estimate(&p->scratch, s->m, &s->c);
    switch (rc) {
    case LLMMEM_OK:
        if (!p->scratch.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i)
            return PROBE_OOM;
        p->trainable_hint = p->scratch.v[LLMMEM_R_TRAINABLE_PARAMS - LLMMEM_R_PARAMS].i;
        return PROBE_FIT;
    case LLMMEM_E_OUT_OF_RANGE: return PROBE_OOM; /* byte counts overflow: far beyond any GPU */
    case LLMMEM_E_UNSUPPORTED: *reason = LLMMEM_REJECT_UNSUPPORTED; return PROBE_OTHER;
    case LLMMEM_E_INCONSISTENT: *reason = LLMMEM_REJECT_INDIVISIBLE; return PROBE_OTHER;
    default: return rc;
    }
}

/* Could a layout of step time t enter the top K? (Equal times are decided by
 * memory, which needs the estimate.) */
static bool enters(const struct llmmem_plan *p, double t)
{
    return p->count < p->top_k || t <= p->slot[p->order[p->top_k - 1]].time.total_s;
}

/* The recompute x micro-batch grid of the layout in s->c. pre: a reason that
 * rejects the whole grid before estimating, or -1.
 *
 * Peak memory does not decrease with the micro-batch, so per recompute mode
 * the planner finds the largest micro-batch that fits by bisection over the
 * valid ones (the global batch must split into micro-batch x accumulation x
 * dp); the smaller ones fit and the larger ones are counted as OOM. A fitting
 * micro-batch is estimated again only when its step time enters the top K
 * (its memory breakdown is kept). Any other answer of the estimator
 * (unsupported, inconsistent) makes that recompute mode fall back to
 * estimating every micro-batch. */
static int grid(search *s, int pre)
{
    static const int recs[] = {LLMMEM__CKPT_NONE, LLMMEM__CKPT_SELECTIVE, LLMMEM__CKPT_FULL};
    struct llmmem_plan *p = s->p;
    const int64_t cells = (int64_t)p->n_bd * (int64_t)LLMMEM_ARRAY_LEN(recs);
    p->candidates += cells;
    if (pre >= 0) {
        p->rejected[pre] += cells;
        return 0;
    }
    const int64_t dp = s->c.dp;
    /* valid micro-batches: b x dp divides the global batch (shared by every mode) */
    int nv = 0;
    for (int bi = 0; bi < p->n_bd; bi++) {
        const int64_t b = p->bd[bi];
        if (b <= s->G / dp && s->G % (b * dp) == 0)
            p->vb[nv++] = b;
    }
    p->rejected[LLMMEM_REJECT_BATCH] += (int64_t)(p->n_bd - nv) * (int64_t)LLMMEM_ARRAY_LEN(recs);
    if (nv == 0)
        return 0;
    for (size_t ri = 0; ri < LLMMEM_ARRAY_LEN(recs); ri++) {
        s->c.checkpointing = recs[ri];
        int reason = -1, r;
        /* Start at the boundary this recompute mode had in the previous layout
         * (a hint: neighbouring layouts fit similar micro-batches), then gallop
         * and bisect: fit = largest index that fits (-1: none), bad = smallest
         * known not to (nv: none). */
        int h = 0;
        while (h + 1 < nv && p->vb[h + 1] <= s->hint[ri])
            h++;
        int fit = -1, bad = nv;
        bool linear = false;
        r = probe(s, p->vb[h], &reason);
        if (r < 0)
            return r;
        if (r == PROBE_OTHER) {
            linear = true;
        } else if (r == PROBE_FIT) {
            fit = h;
            for (int step = 1; fit + step < nv; step *= 2) { /* gallop up */
                r = probe(s, p->vb[fit + step], &reason);
                if (r < 0)
                    return r;
                if (r != PROBE_FIT) {
                    linear = r == PROBE_OTHER;
                    bad = fit + step;
                    break;
                }
                fit += step;
            }
        } else {
            bad = h;
            for (int step = 1; bad > 0; step *= 2) { /* gallop down */
                int at = bad - step < 0 ? 0 : bad - step;
                r = probe(s, p->vb[at], &reason);
                if (r < 0)
                    return r;
                if (r == PROBE_OTHER) {
                    linear = true;
                    break;
                }
                if (r == PROBE_FIT) {
                    fit = at;
                    break;
                }
                bad = at;
            }
        }
        while (!linear && fit >= 0 && bad - fit > 1) { /* bisect */
            int mid = fit + (bad - fit) / 2;
            r = probe(s, p->vb[mid], &reason);
            if (r < 0)
                return r;
            if (r == PROBE_OTHER)
                linear = true;
            else if (r == PROBE_FIT)
                fit = mid;
            else
                bad = mid;
        }
        if (!linear)
            s->hint[ri] = p->vb[fit >= 0 ? fit : 0];
        if (linear) {
            /* estimate each; once one does not fit, the larger ones are OOM */
            bool oom = false;
            for (int i = 0; i < nv; i++) {
                if (oom) {
                    p->rejected[LLMMEM_REJECT_OOM]++;
                    continue;
                }
                r = probe(s, p->vb[i], &reason);
                if (r < 0)
                    return r;
                if (r == PROBE_OTHER) {
                    p->rejected[reason]++;
                } else if (r == PROBE_OOM) {
                    oom = true;
                    p->rejected[LLMMEM_REJECT_OOM]++;
                } else {
                    p->feasible++;
                    consider(p, s->m, &s->c);
                }
            }
            continue;
        }
        p->rejected[LLMMEM_REJECT_OOM] += nv - 1 - fit;
        if (fit < 0)
            continue;
        p->feasible += fit + 1;
        /* trainable parameters do not depend on the micro-batch: from any fitting probe */
        int64_t trainable = p->trainable_hint;
        for (int i = 0; i <= fit; i++) {
            s->c.micro_batch_size = p->vb[i];
            s->c.grad_accum_steps = s->G / (p->vb[i] * dp);
            llmmem__steptime t;
            llmmem__plan_step_time(&t, s->m, &s->c, trainable);
            if (!enters(p, t.total_s))
                continue;
            r = probe(s, p->vb[i], &reason);
            if (r < 0)
                return r;
            if (r != PROBE_FIT) /* the same input estimated twice: cannot differ */
                return llmmem__error(LLMMEM_E_INTERNAL, "planner: estimate of micro-batch %lld changed",
                                     (long long)p->vb[i]);
            consider(p, s->m, &s->c);
        }
    }
    return 0;
}

/* Divisibility rules of Megatron-LM: heads, query groups and the MLP width
 * split over TP (megatron/core/utils.py divide() in the attention and parallel
 * linear layers); layers over PP (megatron/training/arguments.py); the sequence
 * into 2 x CP chunks for load-balanced causal attention
 * (megatron/training/utils.py get_batch_on_this_cp_rank); routed experts over
 * EP (megatron/core/transformer/moe). */
static bool indivisible(const llmmem_model *m, const struct llmmem_config *c)
{
    const int64_t kvh = m->num_kv_heads > 0 ? m->num_kv_heads : m->num_heads;
    if (c->tp > 1 && (m->num_heads % c->tp || kvh % c->tp ||
                      (m->intermediate_size > 0 && m->intermediate_size % c->tp)))
        return true;
    if (c->pp > 1 && m->num_layers % c->pp)
        return true;
    if (c->cp > 1 && c->seq_len % (2 * c->cp))
        return true;
    if (c->ep > 1 && (m->num_experts <= 0 || m->num_experts % c->ep))
        return true;
    return false;
}

static void engine_defaults(struct llmmem_config *c, int engine)
{
    c->engine = engine;
    c->zero_stage = 0;
    c->offload_optimizer = LLMMEM__OFFLOAD_NONE;
    c->offload_param = LLMMEM__OFFLOAD_NONE;
    c->fsdp_sharding = LLMMEM__FSDP_FULL_SHARD;
    c->fsdp_cpu_offload = 0;
    c->distributed_optimizer = 0;
    c->sequence_parallel = 0;
}

/* The engine options of one parallel layout (s->c has the sizes). */
static int variants(search *s, int pre)
{
    struct llmmem_config *c = &s->c;
    int rc = 0;
    switch (c->engine) {
    case LLMMEM__ENG_SINGLE:
    case LLMMEM__ENG_DDP: return grid(s, pre);
    case LLMMEM__ENG_ZERO:
        /* stage 0..2: optimizer offload to the CPU from stage 1; stage 3: optimizer
         * and parameters to none / cpu / nvme (ZeRO-Infinity) */
        for (int st = 0; st <= 3 && !rc; st++) {
            c->zero_stage = st;
            int max_opt = st == 0 ? 0 : st < 3 ? 1 : 2, max_par = st < 3 ? 0 : 2;
            for (int o = 0; o <= max_opt && !rc; o++)
                for (int q = 0; q <= max_par && !rc; q++) {
                    c->offload_optimizer = o;
                    c->offload_param = q;
                    rc = grid(s, pre);
                }
        }
        c->offload_optimizer = c->offload_param = 0;
        return rc;
    case LLMMEM__ENG_FSDP:
        for (int sh = 0; sh <= LLMMEM__FSDP_HYBRID_SHARD && !rc; sh++)
            for (int off = 0; off <= 1 && !rc; off++) {
                c->fsdp_sharding = sh;
                c->fsdp_cpu_offload = off;
                int why = pre;
                /* hybrid shards inside a node and replicates across whole nodes */
                if (why < 0 && sh == LLMMEM__FSDP_HYBRID_SHARD &&
                    (s->n <= c->gpus_per_node || s->n % c->gpus_per_node))
                    why = LLMMEM_REJECT_INDIVISIBLE;
                rc = grid(s, why);
            }
        return rc;
    case LLMMEM__ENG_MEGATRON:
        for (int d = 0; d <= 1 && !rc; d++)
            for (int sp = 0; sp <= (c->tp > 1) && !rc; sp++) {
                c->distributed_optimizer = d;
                c->sequence_parallel = sp;
                rc = grid(s, pre);
            }
        return rc;
    case LLMMEM__ENG_MEGATRON_DEEPSPEED:
        for (int st = 0; st <= 2 && !rc; st++)
            for (int sp = 0; sp <= (c->tp > 1) && !rc; sp++) {
                c->zero_stage = st;
                c->sequence_parallel = sp;
                int why = pre;
                /* DeepSpeed's pipeline engine runs ZeRO stage 0 or 1 only
                 * (deepspeed/runtime/pipe/engine.py asserts zero stage < 2) */
                if (why < 0 && c->pp > 1 && st >= 2)
                    why = LLMMEM_REJECT_UNSUPPORTED;
                rc = grid(s, why);
            }
        return rc;
    }
    return 0;
}

static int enumerate_training(search *s)
{
    struct llmmem_plan *p = s->p;
    struct llmmem_config *c = &s->c;
    const int64_t N = s->n;
    const bool moe = s->m->num_experts > 0;
    for (int e = LLMMEM__ENG_SINGLE; e <= LLMMEM__ENG_MEGATRON_DEEPSPEED; e++) {
        if (e == LLMMEM__ENG_SINGLE && N != 1)
            continue;
        const bool mp = e == LLMMEM__ENG_MEGATRON || e == LLMMEM__ENG_MEGATRON_DEEPSPEED;
        for (int i = 0; i < p->n_nd; i++) {
            const int64_t tp = p->nd[i];
            if (tp > 1 && !mp)
                break;
            for (int j = 0; j < p->n_nd; j++) {
                const int64_t pp = p->nd[j];
                if (pp > N / tp || (pp > 1 && !mp))
                    break;
                if ((N / tp) % pp)
                    continue;
                for (int k = 0; k < p->n_nd; k++) {
                    const int64_t cp = p->nd[k];
                    if (cp > N / (tp * pp) || (cp > 1 && e != LLMMEM__ENG_MEGATRON))
                        break;
                    if ((N / (tp * pp)) % cp)
                        continue;
                    const int64_t dp = N / (tp * pp * cp);
                    for (int q = 0; q < p->n_nd; q++) {
                        const int64_t ep = p->nd[q];
                        if (ep > dp * cp || (ep > 1 && (!moe || e != LLMMEM__ENG_MEGATRON)))
                            break;
                        if ((dp * cp) % ep)
                            continue;
                        engine_defaults(c, e);
                        c->num_gpus = N;
                        c->tp = tp;
                        c->pp = pp;
                        c->cp = cp;
                        c->dp = dp;
                        c->ep = ep;
                        c->etp = 1;
                        c->vpp = 1;
                        c->num_microbatches = 0;
                        int rc = variants(s, indivisible(s->m, c) ? LLMMEM_REJECT_INDIVISIBLE : -1);
                        if (rc)
                            return rc;
                    }
                }
            }
        }
    }
    return 0;
}

/* Inference: TP x replicas; each replica serves batch_size / replicas. */
static int enumerate_inference(search *s, int64_t batch)
{
    struct llmmem_plan *p = s->p;
    struct llmmem_config *c = &s->c;
    const int64_t kvh = s->m->num_kv_heads > 0 ? s->m->num_kv_heads : s->m->num_heads;
    for (int i = 0; i < p->n_nd; i++) {
        const int64_t tp = p->nd[i], replicas = s->n / tp;
        p->candidates++;
        /* vLLM: heads split over TP; KV heads split, or replicated when fewer
         * than TP (vllm/config get_num_kv_heads) */
        if (s->m->num_heads % tp || (kvh >= tp ? kvh % tp : tp % kvh)) {
            p->rejected[LLMMEM_REJECT_INDIVISIBLE]++;
            continue;
        }
        if (batch % replicas) {
            p->rejected[LLMMEM_REJECT_BATCH]++;
            continue;
        }
        c->tp = tp;
        c->dp = replicas;
        c->num_gpus = s->n;
        c->pp = c->cp = c->ep = 1;
        c->batch_size = batch / replicas;
        bool oom = false;
        int rc = estimate_one(s, &oom);
        if (rc)
            return rc;
    }
    return 0;
}

int llmmem_plan_layouts(llmmem_plan *plan, const llmmem_model *model, const llmmem_config *cfg,
                        int top_k)
{
    if (!plan || !model || !cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_plan_layouts: %s is NULL",
                             !plan ? "plan" : !model ? "model" : "config");
    struct llmmem_plan *p = plan;
    p->count = 0;
    p->candidates = p->feasible = p->estimates = 0;
    memset(p->rejected, 0, sizeof p->rejected);
    if (top_k < 1 || top_k > PLAN_MAX_K)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "llmmem_plan_layouts: top_k %d: expected 1..%d",
                             top_k, PLAN_MAX_K);
    int rc = llmmem__model_validate(model);
    if (rc)
        return rc;
    if (!llmmem__gpu_at((int)cfg->gpu))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "gpu index %lld is not in the GPU table",
                             (long long)cfg->gpu);
    search s = {.p = p, .m = model, .c = *cfg};
    llmmem__ovf o = {false};
    uint64_t n = cfg->num_gpus > 0
                     ? (uint64_t)cfg->num_gpus
                     : llmmem__mul(&o, llmmem__mul3(&o, (uint64_t)cfg->dp, (uint64_t)cfg->tp, (uint64_t)cfg->pp),
                                   (uint64_t)cfg->cp);
    if (o.overflow || n > (uint64_t)param_hi(LLMMEM_P_NUM_GPUS))
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "num_gpus: %llu GPUs is more than the planner takes",
                             (unsigned long long)n);
    s.n = (int64_t)n;
    p->top_k = top_k;
    p->mode = (int)cfg->mode;
    p->gpu = (int)cfg->gpu;
    p->num_gpus = s.n;
    snprintf(p->model_type, sizeof p->model_type, "%s", model->model_type);
    p->n_nd = divisors(p->nd, MAX_N_DIV, s.n);
    if (cfg->mode == LLMMEM__MODE_INFERENCE) {
        p->global_batch = cfg->batch_size;
        p->n_bd = 0;
        rc = enumerate_inference(&s, cfg->batch_size);
    } else {
        /* global batch: sequences per optimizer step of the configuration given */
        uint64_t G = llmmem__mul3(&o, (uint64_t)cfg->micro_batch_size, (uint64_t)cfg->grad_accum_steps,
                                  (uint64_t)cfg->dp);
        if (o.overflow || G > (uint64_t)MAX_GLOBAL_BATCH)
            return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                                 "global batch micro_batch_size x gradient_accumulation_steps x "
                                 "data_parallel_size = %llu sequences: at most %lld",
                                 (unsigned long long)G, (long long)MAX_GLOBAL_BATCH);
        s.G = (int64_t)G;
        p->global_batch = s.G;
        p->n_bd = divisors(p->bd, MAX_B_DIV, s.G);
        rc = enumerate_training(&s);
    }
    if (rc) {
        p->count = 0;
        return rc;
    }
    return LLMMEM_OK;
}

/* ---- reading a plan ------------------------------------------------------------ */

int llmmem_plan_count(const llmmem_plan *plan) { return plan ? plan->count : 0; }

int64_t llmmem_plan_candidates(const llmmem_plan *plan) { return plan ? plan->candidates : 0; }

int64_t llmmem_plan_rejected(const llmmem_plan *plan, int reason)
{
    if (!plan || reason < 0 || reason >= REJECT_COUNT)
        return 0;
    return plan->rejected[reason];
}

static const plan_layout *layout_at(const llmmem_plan *plan, int index, const void *out, const char *fn)
{
    if (!plan || !out) {
        llmmem__error(LLMMEM_E_INVALID_ARG, "%s: NULL argument", fn);
        return NULL;
    }
    if (index < 0 || index >= plan->count) {
        llmmem__error(LLMMEM_E_OUT_OF_RANGE, "%s: layout %d: the plan has %d", fn, index, plan->count);
        return NULL;
    }
    return &plan->slot[plan->order[index]];
}

static int layout_status(const llmmem_plan *plan, const void *out)
{
    return !plan || !out ? LLMMEM_E_INVALID_ARG : LLMMEM_E_OUT_OF_RANGE;
}

int llmmem_plan_config(llmmem_config **out, const llmmem_plan *plan, int index)
{
    const plan_layout *l = layout_at(plan, index, out, "llmmem_plan_config");
    if (!l)
        return layout_status(plan, out);
    return llmmem_config_clone(out, &l->cfg);
}

int llmmem_plan_step_time(double *out, const llmmem_plan *plan, int index)
{
    const plan_layout *l = layout_at(plan, index, out, "llmmem_plan_step_time");
    if (!l)
        return layout_status(plan, out);
    *out = l->time.total_s;
    return LLMMEM_OK;
}

int llmmem_plan_peak_bytes(uint64_t *out, const llmmem_plan *plan, int index)
{
    const plan_layout *l = layout_at(plan, index, out, "llmmem_plan_peak_bytes");
    if (!l)
        return layout_status(plan, out);
    *out = l->peak_allocated;
    return LLMMEM_OK;
}

static const char *enum_name(int param, int64_t v)
{
    const char *s = llmmem_param_enum_name(param, v);
    return s ? s : "?";
}

static void json_layout(llmmem__buf *b, const plan_layout *l, int rank, int mode)
{
    const struct llmmem_config *c = &l->cfg;
    llmmem__buf_printf(b, "{\"rank\":%d,", rank);
    if (mode == LLMMEM__MODE_INFERENCE) {
        llmmem__buf_printf(b, "\"tp\":%lld,\"replicas\":%lld,\"batch_size\":%lld,", (long long)c->tp,
                           (long long)c->dp, (long long)c->batch_size);
    } else {
        llmmem__buf_printf(b, "\"engine\":\"%s\",", enum_name(LLMMEM_P_ENGINE, c->engine));
        llmmem__buf_printf(b, "\"dp\":%lld,\"tp\":%lld,\"pp\":%lld,\"cp\":%lld,\"ep\":%lld,",
                           (long long)c->dp, (long long)c->tp, (long long)c->pp, (long long)c->cp,
                           (long long)c->ep);
        if (c->engine == LLMMEM__ENG_ZERO || c->engine == LLMMEM__ENG_MEGATRON_DEEPSPEED)
            llmmem__buf_printf(b, "\"zero_stage\":%lld,", (long long)c->zero_stage);
        if (c->engine == LLMMEM__ENG_ZERO)
            llmmem__buf_printf(b, "\"offload_optimizer\":\"%s\",\"offload_param\":\"%s\",",
                               enum_name(LLMMEM_P_OFFLOAD_OPTIMIZER, c->offload_optimizer),
                               enum_name(LLMMEM_P_OFFLOAD_PARAM, c->offload_param));
        if (c->engine == LLMMEM__ENG_FSDP)
            llmmem__buf_printf(b, "\"sharding_strategy\":\"%s\",\"fsdp_cpu_offload\":%s,",
                               enum_name(LLMMEM_P_FSDP_SHARDING, c->fsdp_sharding),
                               c->fsdp_cpu_offload ? "true" : "false");
        if (c->engine == LLMMEM__ENG_MEGATRON)
            llmmem__buf_printf(b, "\"distributed_optimizer\":%s,",
                               c->distributed_optimizer ? "true" : "false");
        if (c->engine == LLMMEM__ENG_MEGATRON || c->engine == LLMMEM__ENG_MEGATRON_DEEPSPEED)
            llmmem__buf_printf(b, "\"sequence_parallel\":%s,", c->sequence_parallel ? "true" : "false");
        llmmem__buf_printf(b, "\"activation_checkpointing\":\"%s\",",
                           enum_name(LLMMEM_P_CHECKPOINTING, c->checkpointing));
        llmmem__buf_printf(b, "\"micro_batch_size\":%lld,\"gradient_accumulation_steps\":%lld,",
                           (long long)c->micro_batch_size, (long long)c->grad_accum_steps);
    }
    const llmmem__steptime *t = &l->time;
    const struct {
        const char *k;
        double v;
    } times[] = {{"step_time_s", t->total_s}, {"compute_s", t->compute_s}, {"bubble_s", t->bubble_s},
                 {"comm_s", t->comm_s}, {"offload_s", t->offload_s}, {"overhead_s", t->overhead_s}};
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(times); i++) {
        llmmem__buf_printf(b, "\"%s\":", times[i].k);
        llmmem__buf_f64(b, times[i].v);
        llmmem__buf_printf(b, ",");
    }
    /* whole FLOPs: "%.0f" has no decimal point, so no locale can change it */
    llmmem__buf_printf(b, "\"flops\":%.0f,", t->flops);
    llmmem__buf_printf(b,
                       "\"peak_allocated_bytes\":%llu,\"peak_reserved_bytes\":%llu,"
                       "\"total_bytes_per_gpu\":%llu,\"gpu_memory_bytes\":%llu,\"peak_phase\":\"%s\","
                       "\"components\":{",
                       (unsigned long long)l->peak_allocated, (unsigned long long)l->peak_reserved,
                       (unsigned long long)l->total, (unsigned long long)l->capacity,
                       llmmem_phase_name((int)l->peak_phase) ? llmmem_phase_name((int)l->peak_phase) : "?");
    for (int k = 0; k < LLMMEM__COMPONENTS; k++)
        llmmem__buf_printf(b, "%s\"%s\":%llu", k ? "," : "", llmmem_component_name(k),
                           (unsigned long long)l->comp[k]);
    llmmem__buf_printf(b, "}}");
}

int llmmem_plan_to_json(char *buf, size_t cap, size_t *needed, const llmmem_plan *plan)
{
    if (!plan || (!buf && cap > 0))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_plan_to_json: %s is NULL",
                             !plan ? "plan" : "buf");
    llmmem__buf b = {buf, cap, 0};
    const llmmem_plan *p = plan;
    llmmem__buf_printf(&b, "{\"mode\":\"%s\",\"model_type\":", enum_name(LLMMEM_P_MODE, p->mode));
    llmmem__buf_json_string(&b, p->model_type);
    llmmem__buf_printf(&b, ",\"gpu\":\"%s\",\"num_gpus\":%lld,\"%s\":%lld,", enum_name(LLMMEM_P_GPU, p->gpu),
                       (long long)p->num_gpus, p->mode == LLMMEM__MODE_INFERENCE ? "batch_size" : "global_batch",
                       (long long)p->global_batch);
    llmmem__buf_printf(&b, "\"candidates\":%lld,\"feasible\":%lld,\"estimates\":%lld,\"rejected\":{",
                       (long long)p->candidates, (long long)p->feasible, (long long)p->estimates);
    for (int i = 0; i < REJECT_COUNT; i++)
        llmmem__buf_printf(&b, "%s\"%s\":%lld", i ? "," : "", reject_names[i], (long long)p->rejected[i]);
    llmmem__buf_printf(&b, "},\"layouts\":[");
    for (int i = 0; i < p->count; i++) {
        if (i)
            llmmem__buf_printf(&b, ",");
        json_layout(&b, &p->slot[p->order[i]], i + 1, p->mode);
    }
    llmmem__buf_printf(&b, "]}");
    return llmmem__buf_finish(&b, needed);
}
