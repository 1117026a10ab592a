/* The planner's step-time model (docs/planner.md): FLOPs over the GPUs' dense
 * rate, the pipeline bubble, the traffic of every parallel dimension over its
 * link, offload traffic and a per-layer latency. It ranks layouts that fit;
 * it never decides whether one fits. */
#include "plan/plan.h"

#include <string.h>

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

/* Link bandwidths, bytes/s per GPU: within a node (the GPU table's link), and
 * across nodes (the lower of that and INTER_NODE_BYTES_S). */
static double intra_bw(const llmmem__gpu *g) { return g->link_gbps * 1e9; }
static double inter_bw(const llmmem__gpu *g)
{
    const double intra = intra_bw(g);
    return intra < INTER_NODE_BYTES_S ? intra : INTER_NODE_BYTES_S;
}

/* ---- training ----------------------------------------------------------------- */

/* The sizes of one training layout, as doubles. */
typedef struct train_dims {
    const struct llmmem_model *m;
    const struct llmmem_config *c;
    const llmmem__gpu *g;
    double tp, pp, cp, dp, ep, N; /* parallel sizes; N = tp x pp x cp x dp */
    double b, s, ga;              /* micro-batch, sequence, accumulation steps */
    double h, L;                  /* hidden size, layers */
    double ab, pb, gb;            /* activation, parameter, gradient bytes */
    double gpn, intra, inter;     /* GPUs per node, link bandwidths */
    double tokens_mb;             /* tokens of one micro-batch on one CP rank */
    double w_el, g_el;            /* this GPU's weight / gradient elements */
    bool full, selective;         /* recompute */
} train_dims;

/* Elements of this GPU's shard of the model: TP and PP split every weight, EP
 * the routed experts; gradients likewise over the trainable parameters
 * (LoRA: the adapters, split by TP and PP only). */
static void shard_elements(train_dims *d, int64_t trainable)
{
    const double E = (double)d->m->params_experts;
    const double P = (double)d->m->params;
    const double tr = (double)trainable;
    d->w_el = (P - E) / (d->tp * d->pp) + E / (d->tp * d->pp * d->ep);
    d->g_el = d->c->lora_rank > 0 || E <= 0 ? tr / (d->tp * d->pp)
                                              : (tr - E) / (d->tp * d->pp) + E / (d->tp * d->pp * d->ep);
    if (d->g_el < 0)
        d->g_el = tr / (d->tp * d->pp);
}

static void train_dims_of(train_dims *d, const struct llmmem_model *m, const struct llmmem_config *c,
                          int64_t trainable, const llmmem__gpu *g)
{
    d->m = m;
    d->c = c;
    d->g = g;
    d->tp = (double)c->tp;
    d->pp = (double)c->pp;
    d->cp = (double)c->cp;
    d->dp = (double)c->dp;
    d->ep = (double)c->ep;
    d->N = d->tp * d->pp * d->cp * d->dp;
    d->b = (double)c->micro_batch_size;
    d->s = (double)c->seq_len;
    d->ga = (double)c->grad_accum_steps;
    d->h = (double)m->hidden_size;
    d->L = (double)m->num_layers;
    d->ab = act_bytes(c);
    d->pb = dmax(llmmem__dtype_bytes((int)c->param_dtype), 1);
    d->gb = dmax(llmmem__dtype_bytes((int)(c->grad_dtype != LLMMEM__DT_AUTO ? c->grad_dtype
                                                                            : c->param_dtype)),
                 1);
    d->full = c->checkpointing == LLMMEM__CKPT_FULL;
    d->selective = c->checkpointing == LLMMEM__CKPT_SELECTIVE;
    d->gpn = (double)c->gpus_per_node;
    d->intra = intra_bw(g);
    d->inter = inter_bw(g);
    d->tokens_mb = d->b * d->s / d->cp;
    shard_elements(d, trainable);
}

/* FLOPs (Narayanan et al. 2021 §5.1, eq. 3: per layer forward 24Bsh^2 +
 * 4Bs^2h, i.e. 2 x matmul parameters + 4 s h per token; logits 2BshV; the
 * backward pass is twice the forward, full recompute adds one forward).
 * Generalised to GQA/SwiGLU/MoE by counting the active matmul parameters
 * (Kaplan et al. 2020, Table 1: 2N per token) and a*d for the attention
 * width. LoRA: the frozen weights need no weight gradients, so the backward
 * pass is one forward's worth (input gradients only). Selective recompute
 * redoes the attention core (Korthikanti et al. 2022 §5): its 4 s a d. */
static double train_flops(const train_dims *d)
{
    const double ad = (double)d->m->num_heads * (double)d->m->head_dim;
    const double tokens = d->b * d->ga * d->dp * d->s; /* per optimizer step, all replicas */
    const double f_mm = 2.0 * matmul_params(d->m);
    const double f_att = 4.0 * layer_context(d->m, d->s) * ad;
    const double bwd = d->c->lora_rank > 0 ? 1.0 : 2.0;
    return tokens * ((f_mm + f_att) * (1.0 + bwd + (d->full ? 1.0 : 0.0)) + (d->selective ? f_att : 0.0));
}

/* Pipeline bubble, 1F1B (Narayanan et al. 2021 §2.2.1): (p - 1) / m of the
 * ideal time, m = micro-batches per pipeline, divided by the virtual stages. */
static double pipeline_bubble(const train_dims *d, double compute_s)
{
    if (d->c->pp <= 1)
        return 0.0;
    return compute_s * (d->pp - 1) / (d->ga * (double)(d->c->vpp > 0 ? d->c->vpp : 1));
}

/* Data-parallel traffic per GPU, as the engine's row prices it (ring
 * collectives; an engine with none has none). The DP group of Megatron also
 * spans CP (grads are reduced over dp x cp). */
static double dp_comm_time(const train_dims *d)
{
    const llmmem__engine *e = llmmem__engine_of(LLMMEM_P_ENGINE, d->c->engine);
    if (!e || !e->dp_seconds)
        return 0.0;
    const llmmem__dp_traffic t = {
        .n_dp = d->dp * d->cp,
        .G_B = d->g_el * d->gb,
        .W_B = d->w_el * d->pb,
        .ga = d->ga,
        .gpn = d->gpn,
        .intra = d->intra,
        .inter = d->inter,
        .bw = d->tp * d->cp * d->dp <= d->gpn ? d->intra : d->inter,
    };
    return e->dp_seconds(d->c, &t);
}

/* Tensor parallel (Megatron, Shoeybi et al. 2019 §3): 2 all-reduces of
 * b s h per layer in forward, 2 in backward, 2 more with full recompute;
 * sequence parallelism moves the same bytes (Korthikanti et al. 2022 §4.2.2). */
static double tp_comm_time(const train_dims *d)
{
    double per_layer = (4.0 + (d->full ? 2.0 : 0.0)) * 2 * llmmem__ring(d->tp) * d->tokens_mb * d->h * d->ab;
    return d->ga * (d->L / d->pp) * per_layer / (d->tp <= d->gpn ? d->intra : d->inter);
}

/* Context parallel (ring attention, megatron/core/transformer/
 * dot_product_attention context_parallel): K and V of the other chunks pass
 * every rank in forward, K, V and their gradients in backward. */
static double cp_comm_time(const train_dims *d)
{
    const struct llmmem_model *m = d->m;
    const double kvd = (double)llmmem__kv_heads(m) *
                       (double)m->head_dim;
    double kv = 2.0 * d->b * d->s * kvd * d->ab / d->tp;
    return d->ga * (d->L / d->pp) * (3.0 + (d->full ? 1.0 : 0.0)) * llmmem__ring(d->cp) * kv /
           (d->tp * d->cp <= d->gpn ? d->intra : d->inter);
}

/* Expert parallel: all-to-all dispatch and combine of top-k token copies per
 * MoE layer in forward, twice that in backward (Lepikhin et al. 2020 GShard). */
static double ep_comm_time(const train_dims *d)
{
    const struct llmmem_model *m = d->m;
    double topk = (double)(m->experts_per_token > 0 ? m->experts_per_token : 1);
    double moe_layers = (double)(m->num_moe_layers > 0 ? m->num_moe_layers : m->num_layers);
    double per_layer = (3.0 + (d->full ? 1.0 : 0.0)) * 2 * llmmem__ring(d->ep) * d->tokens_mb * topk * d->h * d->ab;
    return d->ga * (moe_layers / d->pp) * per_layer / (d->tp * d->cp * d->ep <= d->gpn ? d->intra : d->inter);
}

/* Pipeline: one activation send per micro-batch forward and one gradient
 * send backward (/tp with sequence parallelism). */
static double pp_comm_time(const train_dims *d)
{
    double msg = d->tokens_mb * d->h * d->ab / (d->c->sequence_parallel ? d->tp : 1.0);
    return d->ga * 2 * msg / (d->N <= d->gpn ? d->intra : d->inter);
}

/* All the communication of a step, added in a fixed order: DP, TP, CP, EP, PP. */
static double comm_time(const train_dims *d)
{
    const struct llmmem_config *c = d->c;
    double comm = dp_comm_time(d);
    if (c->tp > 1)
        comm += tp_comm_time(d);
    if (c->cp > 1)
        comm += cp_comm_time(d);
    if (c->ep > 1 && d->m->num_experts > 0)
        comm += ep_comm_time(d);
    if (c->pp > 1)
        comm += pp_comm_time(d);
    return comm;
}

/* Where the optimizer and the parameters are offloaded (0 = not, else
 * LLMMEM__OFFLOAD_CPU / _NVME), as the engine's row says. */
static void offload_devices(const struct llmmem_config *c, int *opt_dev, int *param_dev)
{
    *opt_dev = *param_dev = 0;
    const llmmem__engine *e = llmmem__engine_of(LLMMEM_P_ENGINE, c->engine);
    if (e && e->offloads)
        e->offloads(c, opt_dev, param_dev);
}

/* Offload: ZeRO-Offload (Ren et al. 2021 §4) moves gradients to the host
 * every micro-step and updated parameters back once; the CPU runs the
 * optimizer over this GPU's shard. ZeRO-Infinity (Rajbhandari et al. 2021)
 * NVMe: optimizer states (12 B/param) read and written once per step;
 * parameter offload fetches the shard for forward and backward. */
static double offload_time(const train_dims *d, int64_t trainable)
{
    const double shard = (double)trainable / d->dp;
    int opt_dev, param_dev;
    offload_devices(d->c, &opt_dev, &param_dev);
    double t = 0;
    if (opt_dev) {
        t += (d->ga * shard * d->gb + shard * d->pb) / PCIE_BYTES_S + shard / CPU_OPTIM_PARAMS_S;
        if (opt_dev == LLMMEM__OFFLOAD_NVME)
            t += 2 * 12 * shard / NVME_BYTES_S;
    }
    if (param_dev) {
        double bytes = d->ga * 2 * (d->w_el / d->dp) * d->pb;
        t += bytes / PCIE_BYTES_S + (param_dev == LLMMEM__OFFLOAD_NVME ? bytes / NVME_BYTES_S : 0);
    }
    return t;
}

/* Per layer per pass latency: forward, backward, and the recompute forward,
 * for the layers of one pipeline stage, every micro-step. */
static double layer_overhead(const train_dims *d)
{
    double passes = 2.0 + (d->full || d->selective ? 1.0 : 0.0);
    return d->ga * (double)llmmem__ceil_div((uint64_t)d->m->num_layers, (uint64_t)d->c->pp) * passes *
           LAYER_PASS_S;
}

static void train_time(llmmem__steptime *t, const struct llmmem_model *m,
                       const struct llmmem_config *c, int64_t trainable, const llmmem__gpu *g)
{
    train_dims d;
    train_dims_of(&d, m, c, trainable, g);
    t->flops = train_flops(&d);
    t->compute_s = t->flops / (d.N * g->bf16_tflops * 1e12 * EFFICIENCY);
    t->bubble_s = pipeline_bubble(&d, t->compute_s);
    t->comm_s = comm_time(&d);
    t->offload_s = offload_time(&d, trainable);
    t->overhead_s = layer_overhead(&d);
}

/* ---- inference ---------------------------------------------------------------- */

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
    const double bw = tp <= (double)c->gpus_per_node ? intra_bw(g) : inter_bw(g);
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
        t->comm_s = 2 * L * 2 * llmmem__ring(tp) * B * S * h * ab / bw;
        t->comm_s += D * 2 * L * (2 * llmmem__ring(tp) * B * h * ab / bw + COLLECTIVE_LATENCY_S);
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
