/* Inference estimator: weights in any storage format, the KV cache, the prefill
 * and decode peaks of HF transformers generation (runtime hf) and vLLM's
 * memory budget (runtime vllm). Pure arithmetic, no allocation.
 *
 * The HF model mirrors what PyTorch's caching allocator holds at each point of
 * a forward under torch.inference_mode (transformers 5.x, torch 2.x); every
 * term names the upstream code it follows. docs/inference.md has the formulas,
 * docs/accuracy-inference.md the comparison with the H200 measurements. */
#include "engines/engines.h"

#include <string.h>

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

/* ---- small helpers ------------------------------------------------------ */

/* Every allocation is rounded up to 512 bytes (pytorch/pytorch
 * c10/cuda/CUDACachingAllocator.cpp kMinBlockSize); memory_allocated counts
 * the rounded size. */
static uint64_t blk(llmmem__ovf *o, uint64_t n) { return n ? llmmem__round_up(o, n, 512) : 0; }

static uint64_t u(int64_t v) { return v > 0 ? (uint64_t)v : 0; }

/* Bytes per element of a dtype enum value (0 for auto). */
/* ---- weight storage formats -------------------------------------------- */

/* One group of identical linear layers: `count` matrices of in x out. */
typedef struct lin {
    uint64_t in, out, count;
    bool expert; /* routed expert (MXFP4 quantises only these) */
} lin;

#define MAX_LIN 12

/* The linear layers of all decoder layers of the model (per GPU before TP),
 * from the HF module layouts (formulas.md §1.2). */
static int enumerate_linears(lin *v, const struct llmmem_model *m, llmmem__ovf *o)
{
    int n = 0;
    uint64_t h = u(m->hidden_size), L = u(m->num_layers), a = u(m->num_heads);
    uint64_t k = u(m->num_kv_heads), d = u(m->head_dim), f = u(m->intermediate_size);
    uint64_t moe_layers = m->num_experts > 0 ? (m->num_moe_layers > 0 ? u(m->num_moe_layers) : L) : 0;
    uint64_t dense_layers = L > moe_layers ? L - moe_layers : 0;
    if (m->kv_lora_rank > 0) {
        /* modeling_deepseek_v3.py DeepseekV3Attention: q_a/q_b (or q_proj),
         * kv_a_proj_with_mqa, kv_b_proj, o_proj */
        uint64_t qk = u(m->qk_nope_head_dim) + u(m->qk_rope_head_dim);
        if (m->q_lora_rank > 0) {
            v[n++] = (lin){h, u(m->q_lora_rank), L, false};
            v[n++] = (lin){u(m->q_lora_rank), llmmem__mul(o, a, qk), L, false};
        } else {
            v[n++] = (lin){h, llmmem__mul(o, a, qk), L, false};
        }
        v[n++] = (lin){h, u(m->kv_lora_rank) + u(m->qk_rope_head_dim), L, false};
        v[n++] = (lin){u(m->kv_lora_rank),
                       llmmem__mul(o, a, u(m->qk_nope_head_dim) + u(m->v_head_dim)), L, false};
        v[n++] = (lin){llmmem__mul(o, a, u(m->v_head_dim)), h, L, false};
    } else {
        /* q, k, v, o (fused c_attn/qkv layouts hold the same elements) */
        v[n++] = (lin){h, llmmem__mul(o, a, d), L, false};
        v[n++] = (lin){h, llmmem__mul(o, k, d), llmmem__mul(o, 2, L), false};
        v[n++] = (lin){llmmem__mul(o, a, d), h, L, false};
    }
    uint64_t up = m->gated_mlp ? 2 : 1;
    if (dense_layers && f) {
        v[n++] = (lin){h, f, llmmem__mul(o, up, dense_layers), false};
        v[n++] = (lin){f, h, dense_layers, false};
    }
    if (moe_layers) {
        uint64_t fm = m->moe_intermediate_size > 0 ? u(m->moe_intermediate_size) : f;
        uint64_t e = llmmem__mul(o, u(m->num_experts), moe_layers);
        v[n++] = (lin){h, fm, llmmem__mul(o, up, e), true};
        v[n++] = (lin){fm, h, e, true};
        if (m->shared_expert_intermediate_size > 0) {
            uint64_t fs = u(m->shared_expert_intermediate_size);
            v[n++] = (lin){h, fs, llmmem__mul(o, up, moe_layers), false};
            v[n++] = (lin){fs, h, moe_layers, false};
        }
    }
    return n;
}

/* Bytes of one in x out matrix stored in `fmt` (formulas.md §4.3). */
static uint64_t lin_bytes(llmmem__ovf *o, int fmt, uint64_t in, uint64_t out, uint64_t bits,
                          uint64_t group)
{
    uint64_t el = llmmem__mul(o, in, out);
    switch (fmt) {
    case LLMMEM__Q_FP8:
    case LLMMEM__Q_INT8:
        /* fp8 W8A8 (compressed-tensors channel strategy) / bitsandbytes
         * LLM.int8 (Int8Params + SCB): 1 B per element + an fp32 scale per
         * output row */
        return llmmem__add(o, el, llmmem__mul(o, 4, out));
    case LLMMEM__Q_FP8_BLOCK:
        /* DeepSeek-V3 fp8 with weight_block_size [128,128]: fp32 scale_inv per
         * 128x128 block (transformers integrations/finegrained_fp8.py) */
        return llmmem__add(o, el, llmmem__mul3(o, 4, llmmem__ceil_div(out, 128),
                                               llmmem__ceil_div(in, 128)));
    case LLMMEM__Q_INT4:
        /* symmetric int4 with an fp16 scale per group of `group` inputs */
        return llmmem__add(o, llmmem__bits_to_bytes(o, el, 4),
                           llmmem__mul3(o, 2, out, llmmem__ceil_div(in, group)));
    case LLMMEM__Q_NF4:
    case LLMMEM__Q_FP4:
        /* bitsandbytes functional.quantize_4bit: 2 values per byte, one fp32
         * absmax per block of 64 */
        return llmmem__add(o, llmmem__ceil_div(el, 2), llmmem__mul(o, 4, llmmem__ceil_div(el, 64)));
    case LLMMEM__Q_NF4_DQ: {
        /* compress_statistics=True: absmax as uint8 (1 B per 64), an fp32
         * scale per 256 absmax values, plus fp32 offset and 256-entry fp32
         * code per tensor (QLoRA paper §3, Double Quantization) */
        uint64_t blocks = llmmem__ceil_div(el, 64);
        return llmmem__add(o, llmmem__add(o, llmmem__ceil_div(el, 2), blocks),
                           llmmem__add(o, llmmem__mul(o, 4, llmmem__ceil_div(blocks, 256)), 4 + 1024));
    }
    case LLMMEM__Q_GPTQ:
    case LLMMEM__Q_AWQ: {
        /* vllm quantization/gptq.py create_weights: qweight int32 [in/pack, out],
         * qzeros int32 [groups, out/pack], scales fp16 [groups, out], g_idx int32
         * [in] (GPTQ only); awq.py the same without g_idx. group -1 = per channel */
        uint64_t groups = group ? llmmem__ceil_div(in, group) : 1;
        uint64_t q = llmmem__bits_to_bytes(o, el, bits);
        uint64_t z = llmmem__bits_to_bytes(o, llmmem__mul(o, groups, out), bits);
        uint64_t s = llmmem__mul3(o, 2, groups, out);
        uint64_t g = fmt == LLMMEM__Q_GPTQ ? llmmem__mul(o, 4, in) : 0;
        return llmmem__add(o, llmmem__add(o, q, z), llmmem__add(o, s, g));
    }
    case LLMMEM__Q_MXFP4:
        /* OCP MX fp4 (e2m1) + one e8m0 scale byte per 32 values (gpt-oss
         * experts, transformers integrations/mxfp4.py blocks + scales) */
        return llmmem__add(o, llmmem__ceil_div(el, 2), llmmem__ceil_div(el, 32));
    default:
        return 0;
    }
}

static const char *const fmt_formula[LLMMEM__Q_COUNT] = {
    [LLMMEM__Q_FP32] = "params*4 [torch fp32]",
    [LLMMEM__Q_FP16] = "params*2 [torch fp16]",
    [LLMMEM__Q_BF16] = "params*2 [torch bf16]",
    [LLMMEM__Q_FP8] = "linears 1 B + fp32 scale per output row; rest 16-bit [compressed-tensors fp8]",
    [LLMMEM__Q_FP8_BLOCK] = "linears 1 B + fp32 per 128x128 block; rest 16-bit [finegrained_fp8]",
    [LLMMEM__Q_INT8] = "linears 1 B + fp32 SCB per row; rest 16-bit [bitsandbytes LLM.int8]",
    [LLMMEM__Q_INT4] = "linears 0.5 B + fp16 scale per group; rest 16-bit",
    [LLMMEM__Q_NF4] = "linears 0.5 B + fp32 absmax/64; rest 16-bit [bitsandbytes quantize_4bit]",
    [LLMMEM__Q_NF4_DQ] = "linears 0.5 B + 1/64 + 4/(64*256); rest 16-bit [QLoRA double quant]",
    [LLMMEM__Q_FP4] = "linears 0.5 B + fp32 absmax/64; rest 16-bit [bitsandbytes fp4]",
    [LLMMEM__Q_GPTQ] = "qweight bits/8 + qzeros + fp16 scales/group + g_idx 4*in [vllm gptq.py]",
    [LLMMEM__Q_AWQ] = "qweight bits/8 + qzeros + fp16 scales/group [vllm awq.py]",
    [LLMMEM__Q_MXFP4] = "experts 0.5 B + 1 B/32 (e8m0); rest bf16 [gpt-oss mxfp4]",
};

/* The storage format that applies: the parameter, else the model's
 * quantization_config, else param_dtype, else the config's torch_dtype. */
static int resolve_format(const struct llmmem_model *m, const struct llmmem_config *c)
{
    if (c->weights_format > LLMMEM__Q_AUTO && c->weights_format < LLMMEM__Q_COUNT)
        return (int)c->weights_format;
    if (m->quant_method > LLMMEM__Q_AUTO && m->quant_method < LLMMEM__Q_COUNT)
        return m->quant_method;
    int dt = (int)c->param_dtype;
    if (dt == LLMMEM__DT_AUTO)
        dt = m->torch_dtype;
    switch (dt) {
    case LLMMEM__DT_FP32: return LLMMEM__Q_FP32;
    case LLMMEM__DT_FP16: return LLMMEM__Q_FP16;
    case LLMMEM__DT_FP8: return LLMMEM__Q_FP8;
    default: return LLMMEM__Q_BF16;
    }
}

/* Bytes per element of activations (and of the unquantized tensors). */
static uint64_t act_bytes(int fmt, const struct llmmem_model *m, const struct llmmem_config *c)
{
    if (fmt == LLMMEM__Q_FP32)
        return 4;
    if (fmt == LLMMEM__Q_FP16 || fmt == LLMMEM__Q_BF16)
        return 2;
    /* quantized: the compute dtype (bnb_4bit_compute_dtype / model dtype) */
    int dt = c->compute_dtype != LLMMEM__DT_AUTO ? (int)c->compute_dtype : m->torch_dtype;
    return dt == LLMMEM__DT_FP32 ? 4 : 2;
}

/* Weight bytes of the whole model in `fmt` (before tensor parallelism).
 * Embeddings, output head, norms, routers and biases stay in the activation
 * dtype in every quantized format (transformers quantizers skip lm_head and
 * non-Linear modules; formulas.md §4.3). */
static uint64_t weights_total(llmmem__ovf *o, const struct llmmem_model *m, int fmt, uint64_t e,
                              uint64_t bits, uint64_t group)
{
    uint64_t P = u(m->params);
    if (fmt == LLMMEM__Q_FP32 || fmt == LLMMEM__Q_FP16 || fmt == LLMMEM__Q_BF16)
        return llmmem__mul(o, P, e);
    lin v[MAX_LIN];
    int n = enumerate_linears(v, m, o);
    uint64_t lin_el = 0, bytes = 0;
    for (int i = 0; i < n; i++) {
        if (fmt == LLMMEM__Q_MXFP4 && !v[i].expert)
            continue; /* only the routed experts are MXFP4 */
        lin_el = llmmem__add(o, lin_el, llmmem__mul3(o, v[i].in, v[i].out, v[i].count));
        bytes = llmmem__add(o, bytes, llmmem__mul(o, v[i].count,
                                                  lin_bytes(o, fmt, v[i].in, v[i].out, bits, group)));
    }
    if (lin_el > P) /* counts disagree with the layout: fall back to params */
        lin_el = P;
    return llmmem__add(o, bytes, llmmem__mul(o, P - lin_el, e));
}

/* ---- KV cache ----------------------------------------------------------- */

/* Bytes of K and V per token per layer on one GPU. */
static uint64_t kv_token_layer(llmmem__ovf *o, const struct llmmem_model *m, uint64_t kvb,
                               uint64_t a_r, uint64_t k_r, bool vllm)
{
    if (m->kv_lora_rank > 0) {
        if (vllm) /* vllm/v1/kv_cache_interface.py MLAAttentionSpec: one latent + rope */
            return llmmem__mul(o, u(m->kv_lora_rank) + u(m->qk_rope_head_dim), kvb);
        /* HF transformers 5.17 caches the compressed latent and the roped
         * key part, (kv_lora_rank + qk_rope_head_dim) per token, like vLLM:
         * measured on H200 for deepseek_v2 and deepseek_v3 (h13, h34:
         * 576 B per token per layer = (256 + 32) * 2) */
        (void)a_r;
        return llmmem__mul(o, u(m->kv_lora_rank) + u(m->qk_rope_head_dim), kvb);
    }
    /* cache_utils.DynamicLayer / vLLM AttentionSpec: 2*k*d elements */
    return llmmem__mul3(o, 2 * k_r, u(m->head_dim), kvb);
}

/* ---- the HF prefill/decode model ---------------------------------------- */

/* One candidate point of the peak, split by component. */
typedef struct point {
    uint64_t kv, act, logits, other;
} point;

static uint64_t ptotal(llmmem__ovf *o, const point *p)
{
    return llmmem__add(o, llmmem__add(o, p->kv, p->act), llmmem__add(o, p->logits, p->other));
}

typedef struct hf {
    /* inputs */
    uint64_t B, S, N, T, e, h, L, a, k, d, f, V;
    uint64_t kv_tl;       /* KV bytes per token per layer */
    uint64_t kv_part_tl;  /* the larger of its K and V parts (each is concatenated on its own) */
    uint64_t n_slide;     /* sliding layers */
    uint64_t window;
    bool half;            /* fp16 activations (fused half_to_float softmax) */
    bool eager;           /* eager attention (else SDPA) */
    bool repeat_kv;       /* GQA through repeat_kv when no enable_gqa (not Falcon) */
    bool math_gqa;        /* fp32 SDPA with enable_gqa: the math backend */
    /* results */
    point prefill, decode;
    uint64_t kv_after;    /* KV storage after decode (what stays) */
    uint64_t largest;
} hf;

/* cuBLASLt workspace of biased matmuls (see hf_prefill) */
#define LT_WORKSPACE MiB

static bool uses_rope(int fam) { return fam != LLMMEM__FAM_GPT2 && fam != LLMMEM__FAM_OPT; }

static void keep_max(llmmem__ovf *o, point *best, const point *p)
{
    if (ptotal(o, p) > ptotal(o, best))
        *best = *p;
}

/* Prefill peak of one forward over B x S tokens with use_cache=True and
 * logits_to_keep=1 (groundtruth/measure.py run_infer). The peak is inside the
 * last decoder layer, where the KV of every layer is allocated; candidates
 * are the points where the most transients coexist. */
static void hf_prefill(llmmem__ovf *o, hf *x, const struct llmmem_model *m,
                       const struct llmmem_config *c, uint64_t ws)
{
    const uint64_t B = x->B, S = x->S, T = x->T, e = x->e, h = x->h, a = x->a, k = x->k, d = x->d;
    const int fam = m->family;
    const bool eager = c->attention == LLMMEM__ATTN_EAGER;
    const uint64_t Th = blk(o, llmmem__mul3(o, e, T, h));        /* one hidden-state tensor */
    const uint64_t Q = blk(o, llmmem__mul3(o, e, T, llmmem__mul(o, a, d)));
    const uint64_t K = blk(o, llmmem__mul3(o, e, T, llmmem__mul(o, k, d)));
    const uint64_t kv_layer = blk(o, llmmem__mul3(o, B, S, x->kv_tl));
    const uint64_t kv_all = llmmem__mul(o, kv_layer, x->L);
    const uint64_t kv_prev = llmmem__mul(o, kv_layer, x->L - 1);
    /* the roped width of q and k: partial rotary, or MLA's rope part */
    const bool partial = m->partial_rotary_factor > 0.0 && m->partial_rotary_factor < 1.0;
    uint64_t rot = partial ? (uint64_t)((double)d * m->partial_rotary_factor) : d;
    if (m->kv_lora_rank > 0)
        rot = u(m->qk_rope_head_dim);

    /* Always alive during the layers: workspace, input ids (B*S int64, kept by
     * the caller), cache_position (S int64), RoPE cos/sin [1, S, rot] in the
     * model dtype (LlamaRotaryEmbedding.forward; position_ids =
     * cache_position.unsqueeze(0)), the embedding output (the `inputs_embeds`
     * local of LlamaModel.forward), learned positions (GPT-2 wpe). */
    uint64_t other = llmmem__add(o, ws, blk(o, llmmem__mul3(o, B, S, 8)));
    other = llmmem__add(o, other, blk(o, llmmem__mul(o, S, 8)));
    if (uses_rope(fam)) {
        /* Gemma3TextModel.forward computes one (cos, sin) pair per layer type
         * (`position_embeddings[layer_type] = self.rotary_emb(hidden_states,
         * position_ids, layer_type)`: local rope_theta for sliding layers,
         * global for full ones), both alive through the layers; the other
         * families compute one pair. */
        uint64_t pairs = strncmp(m->model_type, "gemma3", 6) == 0 && x->n_slide > 0 &&
                                 x->n_slide < x->L ? 2 : 1;
        other = llmmem__add(o, other, llmmem__mul(o, 2 * pairs, blk(o, llmmem__mul3(o, S, rot, e))));
    } else {
        other = llmmem__add(o, other, blk(o, llmmem__mul3(o, S, h, e)));
    }
    /* masks (transformers masking_utils): eager always builds a float
     * [B,1,S,S] mask (eager_mask: torch.where on the bool mask); sdpa skips the
     * mask (is_causal) unless a sliding window is not larger than the prompt
     * (_ignore_causal_mask_sdpa: kv_length < local_attention_size), and then
     * keeps a bool mask whose storage is [1,1,S,S] broadcast over the batch. */
    const uint64_t SS = llmmem__mul(o, S, S);
    const bool sdpa_mask = !eager && x->n_slide > 0 && S >= x->window;
    uint64_t mask = 0;
    if (eager) {
        /* models with sliding and full layers build one mask per layer type
         * (gemma2/gemma3/gpt-oss forward: causal_mask_mapping with
         * create_causal_mask and create_sliding_window_causal_mask), both
         * materialised by eager_mask */
        uint64_t kinds = x->n_slide > 0 && x->n_slide < x->L ? 2 : 1;
        mask = llmmem__mul(o, kinds, blk(o, llmmem__mul3(o, B, SS, e)));
    }
    else if (sdpa_mask)
        mask = blk(o, SS);
    other = llmmem__add(o, other, mask);
    /* each sliding layer's _sliding_window_tensor (int64 scalar) is moved to
     * the GPU at its first update (DynamicSlidingWindowLayer.lazy_initialization) */
    other = llmmem__add(o, other, llmmem__mul(o, x->n_slide, 512));
    /* a Linear with a bias runs as addmm with a 1-D bias, which takes the
     * cuBLASLt path (aten Blas.cpp addmm_out_cuda_impl useLtInterface ->
     * CUDABlas.cpp gemm_and_bias); its workspace (CublasHandlePool.cpp
     * getCUDABlasLtWorkspace, CUBLASLT_WORKSPACE_SIZE default 1024 KiB) is
     * allocated at the first biased matmul and stays, like the cuBLAS one
     * (H200 allocation trace of h03: 1,048,576 B at the first q_proj) */
    if (m->attention_bias || m->o_bias || m->mlp_bias)
        other = llmmem__add(o, other, LT_WORKSPACE);
    /* embeddings + the last layer's input (the loop variable of the model's
     * forward keeps it while the layer runs) */
    const uint64_t base_act = llmmem__mul(o, x->L > 1 ? 2 : 1, Th);

    point best = {0, 0, 0, 0}, p;
    const uint64_t x_norm = Th; /* the normed input of attention / MLP */

    /* (1) RoPE inside attention (llama apply_rotary_pos_emb): q, k, v plus
     * q*cos, rotate_half(q), rotate_half(q)*sin, before this layer's update */
    p = (point){kv_prev, 0, 0, other};
    {
        uint64_t t = llmmem__add(o, llmmem__mul(o, 4, Q), llmmem__mul(o, 2, K));
        if (!uses_rope(fam))
            t = llmmem__add(o, Q, llmmem__mul(o, 2, K)); /* fused c_attn output */
        p.act = llmmem__add(o, llmmem__add(o, base_act, x_norm), t);
    }
    keep_max(o, &best, &p);

    /* (2) the attention kernel, this layer's KV appended */
    const bool gqa = k < a;
    const uint64_t rep = gqa ? llmmem__mul(o, 2, blk(o, llmmem__mul3(o, e, B, llmmem__mul3(o, a, S, d))))
                             : 0; /* repeat_kv copies of K and V */
    uint64_t q_live = uses_rope(fam) ? Q : llmmem__add(o, Q, llmmem__mul(o, 2, K));
    if (fam == LLMMEM__FAM_PHI && partial) {
        /* PhiAttention.forward: query_pass/key_pass are views that keep the
         * q_proj and k_proj outputs, query_rot/key_rot hold the roped
         * rotary_ndims columns, and torch.cat builds the query (the key's cat
         * goes into the cache): beyond that query, Q + K + the two rotated
         * parts are alive at the attention (H200 allocation trace of the
         * probe's p12, phi-2 eager: 41 + 40 + 16 + 16 MiB). */
        q_live = llmmem__add(o, q_live, llmmem__add(o, Q, K));
        q_live = llmmem__add(o, q_live, blk(o, llmmem__mul3(o, e, T, llmmem__mul(o, a, rot))));
        q_live = llmmem__add(o, q_live, blk(o, llmmem__mul3(o, e, T, llmmem__mul(o, k, rot))));
    }
    p = (point){kv_all, 0, 0, other};
    if (eager) {
        /* eager_attention_forward: matmul -> *scaling -> +mask -> softmax(fp32)
         * -> .to(dtype). bf16: softmax converts its input to fp32 first
         * (aten softmax: input.toType(dtype)), so input 2 + copy 4 + output 4;
         * fp16 uses the fused half_to_float kernel (2 + 4); fp32 4 + 4. GPT-2's
         * softmax keeps the input dtype (2 tensors). */
        /* the peak is the larger of the softmax point (input + fp32 copy +
         * fp32 output in bf16: 10; fused half_to_float in fp16: 2 + 4) and
         * the `.to(query.dtype)` point (input + fp32 probs + the cast: 2 + 4
         * + 2 = 8 in fp16; h16 measures 8 B per score element for fp16) */
        uint64_t per = e == 4 ? 8 : (x->half ? 8 : 10);
        if (fam == LLMMEM__FAM_GPT2 || fam == LLMMEM__FAM_OPT)
            per = 2 * e;
        uint64_t sc = llmmem__mul3(o, B, a, SS);
        uint64_t scores = llmmem__mul(o, per, sc);
        if (fam == LLMMEM__FAM_GPT_OSS) {
            /* modeling_gpt_oss.py eager_attention_forward: the masked
             * scores [B,a,S,S] stay alive while torch.cat appends the sink
             * column ([B,a,S,S+1]), `combined - combined.max(-1).values`
             * makes a second one (max values + int64 indices alive), and
             * softmax(dtype=combined.dtype) stays in the compute dtype: e per
             * score + 2 e per (S+1)-column element, no fp32 copy */
            uint64_t sc1 = llmmem__mul3(o, B, a, llmmem__mul(o, S, S + 1));
            scores = llmmem__add(o, blk(o, llmmem__mul(o, e, sc)), llmmem__mul(o, 2, blk(o, llmmem__mul(o, e, sc1))));
            scores = llmmem__add(o, scores, blk(o, llmmem__mul3(o, e, B, llmmem__mul(o, a, S))));
            scores = llmmem__add(o, scores, blk(o, llmmem__mul3(o, 8, B, llmmem__mul(o, a, S))));
        }
        if (fam == LLMMEM__FAM_GPTJ) {
            /* modeling_gptj.py GPTJAttention._attn: query.to(float32),
             * key.to(float32) (both alive in _attn), fp32 scores + mask, the
             * `/ scale_attn` copy (8 B per score in any dtype); GPTJModel's
             * `outputs = block(...)` still holds the previous layer's returned
             * probabilities (e per score); q_pass/k_pass are views that keep
             * the q_proj and k_proj outputs, beside the rotated q_rot/k_rot
             * (rotary_dim columns) and the concatenated query. h31 measures
             * this point within 0.6 MiB. */
            uint64_t rd = (uint64_t)((double)d * m->partial_rotary_factor); /* rotary_dim */
            uint64_t q32 = blk(o, llmmem__mul3(o, 4, T, llmmem__mul(o, a, d)));
            uint64_t qrot = blk(o, llmmem__mul3(o, e, T, llmmem__mul(o, a, rd)));
            scores = llmmem__add(o, llmmem__mul(o, 8, sc), blk(o, llmmem__mul(o, e, sc)));
            scores = llmmem__add(o, scores, llmmem__add(o, llmmem__mul(o, 2, q32), llmmem__mul(o, 2, Q)));
            scores = llmmem__add(o, scores, llmmem__mul(o, 2, qrot));
        }
        p.act = llmmem__add(o, llmmem__add(o, base_act, x_norm),
                            llmmem__add(o, llmmem__add(o, q_live, rep), scores));
        x->largest = llmmem__max(x->largest, llmmem__mul(o, 4, sc));
    } else if (x->math_gqa && !sdpa_mask) {
        /* fp32 with GQA and no mask: transformers passes enable_gqa
         * (use_gqa_in_sdpa), flash has no fp32 and the memory-efficient kernel
         * no enable_gqa, so SDPA runs aten _scaled_dot_product_attention_math
         * (attention.cpp): the scaled query [B,a,S,d], the causal mask made
         * an fp32 [S,S] bias, K and V repeated to a heads
         * (pre_process_group_query_attention_input) and the scaled K, the fp32
         * scores [B,a,S,S] and _safe_softmax's output, 1 B per score of its
         * `eq(-inf)` mask and the [B,a,S,1] row mask (as h12's Falcon call);
         * the probe's p11 (llama-3.2-1b fp32, B 4, S 8192) measured this at
         * 80.6 GiB where the fused kernels would need 10.6. */
        uint64_t sc = llmmem__mul3(o, B, a, SS);
        uint64_t ahd = blk(o, llmmem__mul3(o, 4, B, llmmem__mul3(o, a, S, d)));
        uint64_t in = llmmem__mul(o, 4, ahd); /* scaled q, repeated k and v, scaled k */
        in = llmmem__add(o, in, blk(o, llmmem__mul(o, 4, SS)));
        in = llmmem__add(o, in, llmmem__mul(o, 2, blk(o, llmmem__mul(o, 4, sc))));
        in = llmmem__add(o, in, blk(o, sc));
        in = llmmem__add(o, in, blk(o, llmmem__mul3(o, B, a, S)));
        p.act = llmmem__add(o, llmmem__add(o, base_act, x_norm), llmmem__add(o, q_live, in));
        x->largest = llmmem__max(x->largest, blk(o, llmmem__mul(o, 4, sc)));
    } else if (fam == LLMMEM__FAM_FALCON && k < a) {
        /* FalconAttention (modeling_falcon.py) calls SDPA itself with the
         * one-head k/v of multi_query (no repeat, no enable_gqa): neither
         * flash nor mem-efficient accepts unequal head counts, so it runs
         * aten _scaled_dot_product_attention_math (attention.cpp): query_acc =
         * q.to(float) and query = query_acc * sqrt(scale) (both fp32 [B,a,S,d]),
         * key_acc/value_acc fp32, an fp32 [S,S] causal mask
         * (convert_boolean_attn_mask of ones.tril), fp32 scores [B,a,S,S],
         * _safe_softmax's fp32 output, and 1 B per score element more (the
         * `self.eq(-inf)` bool mask of _safe_softmax) with its [B,a,S,1] row
         * mask; outside the call the fused query_key_value output
         * (e*T*(a+2k)*d, its views alive) and the roped q. h12 measures the
         * point within 29 MiB (docs/accuracy-inference.md). */
        uint64_t sc = llmmem__mul3(o, B, a, SS);
        uint64_t q32 = blk(o, llmmem__mul3(o, 4, B, llmmem__mul3(o, a, S, d)));
        uint64_t k32 = blk(o, llmmem__mul3(o, 4, B, llmmem__mul3(o, k, S, d)));
        uint64_t fused = blk(o, llmmem__mul3(o, e, T, llmmem__mul(o, a + 2 * k, d)));
        uint64_t in = llmmem__add(o, llmmem__mul(o, 2, q32), llmmem__mul(o, 2, k32));
        in = llmmem__add(o, in, blk(o, llmmem__mul(o, 4, SS)));
        in = llmmem__add(o, in, llmmem__mul(o, 2, blk(o, llmmem__mul(o, 4, sc))));
        in = llmmem__add(o, in, blk(o, sc));
        in = llmmem__add(o, in, blk(o, llmmem__mul3(o, B, a, S)));
        p.act = llmmem__add(o, llmmem__add(o, base_act, x_norm), llmmem__add(o, llmmem__add(o, fused, Q), in));
        x->largest = llmmem__max(x->largest, blk(o, llmmem__mul(o, 4, sc)));
    } else if (sdpa_mask) {
        /* mask present: no enable_gqa (sdpa_attention.use_gqa_in_sdpa), K/V
         * repeated; aten convert_boolean_attn_mask makes a [B,1,S,S] additive
         * mask in the query dtype; mem-efficient kernel output */
        uint64_t fmask = blk(o, llmmem__mul3(o, B, SS, e));
        p.act = llmmem__add(o, llmmem__add(o, base_act, x_norm),
                            llmmem__add(o, llmmem__add(o, q_live, rep), llmmem__add(o, fmask, Q)));
        x->largest = llmmem__max(x->largest, fmask);
    } else {
        /* flash kernel (is_causal, enable_gqa): output + fp32 logsumexp */
        uint64_t lse = blk(o, llmmem__mul3(o, 4, B, llmmem__mul(o, a, S)));
        p.act = llmmem__add(o, llmmem__add(o, base_act, x_norm),
                            llmmem__add(o, llmmem__add(o, q_live, Q), lse));
    }
    keep_max(o, &best, &p);

    /* eager keeps the returned probabilities (`hidden_states, _ =
     * self.self_attn(...)`) until the layer returns */
    uint64_t held = 0;
    if (eager)
        held = blk(o, llmmem__mul3(o, B, llmmem__mul(o, a, SS), e));
    if (eager && fam == LLMMEM__FAM_GPT_OSS) /* the returned scores are a view of the [B,a,S,S+1] probs */
        held = blk(o, llmmem__mul3(o, B, llmmem__mul3(o, a, S, S + 1), e));

    /* (3) post-attention norm: RMSNorm holds an fp32 copy and the fp32
     * normalised tensor (8 B per element); LayerNorm is one fused op */
    const bool rms = m->norm == LLMMEM__NORM_RMS;
    const uint64_t norm_t = rms ? blk(o, llmmem__mul3(o, 8, T, h)) : Th;
    p = (point){kv_all, 0, 0, other};
    p.act = llmmem__add(o, llmmem__add(o, base_act, Th), llmmem__add(o, norm_t, held));
    keep_max(o, &best, &p);

    /* (4) the MLP (residual + normed input alive; parallel blocks keep the
     * attention output instead of the residual sum) */
    const uint64_t mlp_base = llmmem__add(o, llmmem__add(o, base_act, Th), llmmem__add(o, x_norm, held));
    const bool moe = m->num_experts > 0;
    const bool dense = !moe || (m->num_moe_layers > 0 && m->num_moe_layers < m->num_layers);
    if (dense && x->f) {
        uint64_t Tf = blk(o, llmmem__mul3(o, e, T, x->f));
        uint64_t n;
        if (m->gated_mlp && fam == LLMMEM__FAM_PHI3)
            n = 4; /* Phi3MLP: the fused gate_up_proj output [T, 2f] stays alive
                    * through its chunk views, + act(gate) + the product */
        else if (m->gated_mlp)
            n = 3; /* act(gate), up, their product (LlamaMLP.forward) */
        else if (m->act == LLMMEM__ACT_GELU_NEW)
            n = 4; /* NewGELUActivation in Python ops: fc1 out, 0.5*x, two chain temps */
        else
            n = 2; /* fc1 out + fused activation */
        p = (point){kv_all, llmmem__add(o, mlp_base, llmmem__mul(o, n, Tf)), 0, other};
        keep_max(o, &best, &p);
        x->largest = llmmem__max(x->largest, Tf);
    }
    if (moe) {
        /* transformers integrations/moe.py grouped_mm_experts_forward: S_k =
         * T*top_k (token, expert) pairs; gate_up [S_k, 2f] + act(gate) + gated
         * [S_k, f], one gathered [S_k, h] copy, int64 index vectors, router
         * logits [T, E] and top-k ids/weights */
        uint64_t fm = m->moe_intermediate_size > 0 ? u(m->moe_intermediate_size) : x->f;
        uint64_t Sk = llmmem__mul(o, T, u(m->experts_per_token));
        uint64_t E = u(m->num_experts);
        /* gate point: one gathered copy [S_k, h] + gate_up [S_k, 2f] +
         * act(gate) + product; weighting point (`proj_out *
         * sample_weights_g`, then `weighted_out[inv_perm]`): the gathered
         * copy, the down output, the weighted output and its reordered copy,
         * 4 [S_k, h] (h33/h15 measure the larger of the two). DeepSeek's
         * routers return fp32 top-k weights (modeling_deepseek_v2/v3
         * route_tokens_to_experts: the fp32 router logits' softmax or sigmoid,
         * not cast back), so type promotion makes the weighted output and its
         * reordered copy fp32; the other families cast the weights to the
         * hidden dtype first. An H200 allocation trace of h13/h34
         * (test/gpu/trace_alloc.py) shows the two fp32 [S_k, h] blocks. */
        const uint64_t Skh = blk(o, llmmem__mul3(o, e, Sk, h));
        const uint64_t wb = fam == LLMMEM__FAM_DEEPSEEK ? llmmem__max(e, 4) : e;
        const uint64_t weighted = llmmem__mul(o, 2, blk(o, llmmem__mul3(o, wb, Sk, h)));
        uint64_t t = llmmem__max(llmmem__add(o, Skh, llmmem__mul(o, 4, blk(o, llmmem__mul3(o, e, Sk, fm)))),
                                 llmmem__add(o, llmmem__mul(o, 2, Skh), weighted));
        t = llmmem__add(o, t, llmmem__mul(o, 4, blk(o, llmmem__mul(o, 8, Sk))));
        t = llmmem__add(o, t, blk(o, llmmem__mul(o, e, Sk)));
        t = llmmem__add(o, t, blk(o, llmmem__mul3(o, e, T, E)));
        t = llmmem__add(o, t, blk(o, llmmem__mul(o, 8 + e, Sk)));
        /* Qwen2MoeSparseMoeBlock.forward runs the shared expert first, so its
         * [T, h] output is alive during the routed experts */
        if (m->shared_expert_intermediate_size > 0 && strncmp(m->model_type, "qwen2_moe", 9) == 0)
            t = llmmem__add(o, t, Th);
        p = (point){kv_all, llmmem__add(o, mlp_base, t), 0, other};
        keep_max(o, &best, &p);
        if (m->shared_expert_intermediate_size > 0) {
            /* shared experts run after the routed ones (routed output alive) */
            uint64_t fs = u(m->shared_expert_intermediate_size);
            uint64_t s = llmmem__add(o, Th, llmmem__mul(o, 3, blk(o, llmmem__mul3(o, e, T, fs))));
            p = (point){kv_all, llmmem__add(o, mlp_base, s), 0, other};
            keep_max(o, &best, &p);
        }
        x->largest = llmmem__max(x->largest, blk(o, llmmem__mul3(o, 2 * e, Sk, fm)));
    }

    /* (5) final norm over all T positions, then the head on the last position
     * (LlamaForCausalLM: logits = lm_head(hidden_states[:, -1:, :])) */
    p = (point){kv_all, llmmem__add(o, llmmem__add(o, Th, Th), norm_t), 0, other};
    keep_max(o, &best, &p);
    p = (point){kv_all, Th, blk(o, llmmem__mul3(o, B, x->V, e)), other};
    keep_max(o, &best, &p);

    x->prefill = best;
}

/* Decode: each step appends one token per layer with torch.cat (old and new
 * tensors coexist while one layer updates). DynamicSlidingWindowLayer keeps a
 * view of the last window-1 tokens of the concatenation, so its storage after
 * step n >= 1 is min(S+n, window) tokens, and during prefill the whole
 * prompt (cache_utils.py). Step 1 and step N are the candidates, each at
 * three points: the last layer's update (its keys or values held twice), the
 * logits after every layer, and the attention of the first or the last
 * layer. Sliding layers shrink at step 1 (prompt-long storage replaced by
 * window-long), so there the first layer's attention, with every other layer
 * still holding the prompt, is the larger; growing layers peak at the last. */
static void hf_decode(llmmem__ovf *o, hf *x, uint64_t ws)
{
    const uint64_t B = x->B, S = x->S, N = x->N, L = x->L, W = x->window;
    const uint64_t nf = L - x->n_slide, ns = x->n_slide;
    const uint64_t tok = llmmem__mul(o, B, x->kv_tl);
    /* storage in tokens, per layer kind, after step n (n = 0: after prefill) */
#define FULL_AT(n) (S + (n))
#define SLIDE_AT(n) ((n) == 0 ? S : llmmem__min(S + (n), W))
#define ALL_AT(n) llmmem__add(o, llmmem__mul3(o, nf, FULL_AT(n), tok), llmmem__mul3(o, ns, SLIDE_AT(n), tok))
    uint64_t tensors = ns ? llmmem__mul(o, ns, 512) : 0; /* _sliding_window_tensor per layer */
    x->kv_after = llmmem__add(o, ALL_AT(N), tensors);
    point best = {0, 0, 0, 0};
    const uint64_t ids = llmmem__add(o, blk(o, llmmem__mul3(o, B, S, 8)), 512);
    const uint64_t other = llmmem__add(o, ws, ids);
    const uint64_t logits = blk(o, llmmem__mul3(o, B, x->V, x->e));
    /* the step's own activations are B x 1 x width: small, counted as the
     * gated MLP of one token per sequence */
    const uint64_t step_act = llmmem__mul(o, 3, blk(o, llmmem__mul3(o, x->e, B, x->f ? x->f : 4 * x->h)));
    const uint64_t ad = llmmem__mul3(o, B, x->a, x->d); /* one token of K (or V) over all heads */
    for (int i = 0; i < 2 && N > 0; i++) {
        uint64_t n = i == 0 ? 1 : N;
        /* the last layer's update: DynamicLayer.update concatenates keys,
         * then values, each replacing its previous tensor, so one of them is
         * held twice at a time; the logits come after every layer */
        uint64_t prev = llmmem__max(nf ? FULL_AT(n - 1) : 0, ns ? SLIDE_AT(n - 1) : 0);
        const uint64_t all = llmmem__add(o, ALL_AT(n), tensors); /* every layer at step n */
        uint64_t part = llmmem__mul3(o, prev, B, x->kv_part_tl);
        point p = {llmmem__add(o, all, part), step_act, 0, other};
        keep_max(o, &best, &p);
        p = (point){all, step_act, logits, other};
        keep_max(o, &best, &p);
        /* attention of the first layer (sliding where there are any; the
         * others not updated yet) and of the last (full where there are any;
         * all updated, the previous tensor freed by the reassignment) */
        for (int j = 0; j < 2; j++) {
            bool slide = j == 0 ? ns > 0 : nf == 0;
            uint64_t ctx = slide ? SLIDE_AT(n) : FULL_AT(n);
            uint64_t kv = all;
            if (j == 0) {
                uint64_t before = slide ? SLIDE_AT(n - 1) : FULL_AT(n - 1);
                kv = llmmem__add(o, llmmem__sub0(ALL_AT(n - 1), llmmem__mul(o, before, tok)),
                                 llmmem__add(o, llmmem__mul(o, ctx, tok), tensors));
            }
            /* repeat_kv copies K and V to every head: always in eager with
             * GQA; in SDPA only where a mask is built (sdpa_mask skips it when
             * kv_length < the window: a sliding layer once S + n >= window;
             * a full layer of one token never), since use_gqa_in_sdpa needs
             * attention_mask None (sdpa_attention.py) */
            bool masked = slide && ctx >= W;
            bool rep = x->repeat_kv && (x->eager || masked);
            uint64_t act = rep ? llmmem__mul(o, 2, blk(o, llmmem__mul3(o, x->e, ad, ctx))) : 0;
            /* fp32 GQA without a mask: the math backend repeats K and V and
             * scales the repeated K (see hf_prefill) */
            if (x->math_gqa && !masked)
                act = llmmem__mul(o, 3, blk(o, llmmem__mul3(o, 4, ad, ctx)));
            if (x->eager) /* scores, fp32 softmax and the cast back: [B, a, 1, ctx] */
                act = llmmem__add(o, act, blk(o, llmmem__mul3(o, 10, llmmem__mul(o, B, x->a), ctx)));
            p = (point){kv, llmmem__add(o, act, step_act), 0, other};
            keep_max(o, &best, &p);
        }
    }
#undef FULL_AT
#undef SLIDE_AT
#undef ALL_AT
    x->decode = best;
}

/* ---- vLLM --------------------------------------------------------------- */

/* Non-torch memory vLLM's profiler attributes to the run (cuBLAS handles,
 * NCCL): llm-d-benchmark config_explorer/empirical-vllm-memory-results.md,
 * vLLM 0.11 on H100: 0.13 GiB at TP=1, 0.54-0.55 GiB at TP=2. */
#define VLLM_NON_TORCH_TP1 (UINT64_C(133) * MiB)
#define VLLM_NON_TORCH_TPN (UINT64_C(563) * MiB)
/* Bytes per (sequence, vocab entry) live during the sampler warm-up
 * (vllm/v1/worker/gpu_model_runner.py _dummy_sampler_run over max_num_seqs
 * rows; vllm/v1/sample/ops/topk_topp_sampler.py): logits in the model dtype 2,
 * fp32 copy 4, sort values 4 + int64 indices 8, top-k and top-p bool masks
 * 1 + 1, softmax of the sorted logits 4, scatter back 4, probs 4, exponential
 * noise 4 = 36. */
#define VLLM_SAMPLER_BYTES 36

/* ---- the estimator ------------------------------------------------------- */

static int check_dims(const struct llmmem_model *m)
{
    if (m->hidden_size <= 0 || m->num_layers <= 0 || m->num_heads <= 0 || m->vocab_size <= 0 ||
        m->head_dim <= 0)
        return llmmem__error(LLMMEM_E_SCHEMA,
                             "model: hidden_size %lld, num_layers %lld, num_heads %lld, head_dim %lld "
                             "and vocab_size %lld must all be positive",
                             (long long)m->hidden_size, (long long)m->num_layers,
                             (long long)m->num_heads, (long long)m->head_dim,
                             (long long)m->vocab_size);
    if (m->num_experts > 0 && m->experts_per_token <= 0)
        return llmmem__error(LLMMEM_E_SCHEMA, "model: num_experts %lld needs experts_per_token > 0",
                             (long long)m->num_experts);
    return 0;
}

static int infer(llmmem_result *r, const llmmem_model *m, const llmmem_config *c, bool search);

/* GPUs needed for serving: the configured TP when it fits, else the smallest
 * tensor-parallel size (a divisor of the heads above the configured one) whose
 * estimate fits; 0 when none does. Each try is a full estimate into a scratch
 * result on the stack (no allocation). */
static void set_gpus_needed(struct llmmem_result *r, const struct llmmem_model *m,
                            const struct llmmem_config *c, int64_t tp, bool search)
{
    int64_t needed = tp;
    if (!r->v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
        needed = 0;
        if (search) {
            struct llmmem_config cc = *c;
            struct llmmem_result scratch;
            /* within the tensor_parallel_size bound of the parameter table (4096) */
            const int64_t tmax = m->num_heads < 4096 ? m->num_heads : 4096;
            for (int64_t t = tp + 1; t <= tmax; t++) {
                if (m->num_heads % t)
                    continue;
                cc.tp = t;
                if (infer(&scratch, m, &cc, false) == 0 && scratch.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
                    needed = t;
                    break;
                }
            }
        }
    }
    llmmem__result_set_i64(r, LLMMEM_R_GPUS_NEEDED, needed);
}

int llmmem_estimate_inference(llmmem_result *r, const llmmem_model *m, const llmmem_config *c)
{
    return infer(r, m, c, true);
}

static int infer(llmmem_result *r, const llmmem_model *m, const llmmem_config *c, bool search)
{
    if (!r || !m || !c)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_estimate_inference: NULL argument");
    int rc = check_dims(m);
    if (rc)
        return rc;
    if (c->batch_size < 1)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "batch_size %lld: must be at least 1",
                             (long long)c->batch_size);
    if (c->prompt_len < 1)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "prompt_len %lld: must be at least 1",
                             (long long)c->prompt_len);
    if (c->decode_len < 0)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "decode_len %lld: must not be negative",
                             (long long)c->decode_len);
    const int64_t tp = c->tp > 0 ? c->tp : 1;
    const int64_t kvh = m->num_kv_heads > 0 ? m->num_kv_heads : m->num_heads;
    if (m->num_heads % tp != 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "tensor_parallel %lld does not divide num_heads %lld",
                             (long long)tp, (long long)m->num_heads);
    if (kvh >= tp ? kvh % tp != 0 : tp % kvh != 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "tensor_parallel %lld and num_kv_heads %lld: one must divide the other",
                             (long long)tp, (long long)kvh);
    const llmmem__gpu *g = llmmem__gpu_at((int)c->gpu);
    if (!g)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "gpu index %lld is not in the GPU table",
                             (long long)c->gpu);

    llmmem__ovf o = {false};
    llmmem__result_clear(r);
    r->mode = LLMMEM__MODE_INFERENCE;
    memcpy(r->model_type, m->model_type, sizeof r->model_type);
    r->model_type[sizeof r->model_type - 1] = '\0';

    const bool vllm = c->runtime == LLMMEM__RT_VLLM;
    const int fmt = resolve_format(m, c);
    const uint64_t e = act_bytes(fmt, m, c);
    const uint64_t bits = c->quant_bits > 0 ? u(c->quant_bits)
                          : m->quant_bits > 0 ? u(m->quant_bits) : 4;
    int64_t gs = c->quant_group_size != 0 ? c->quant_group_size
                 : m->quant_group_size != 0 ? m->quant_group_size : 128;
    const uint64_t group = gs < 0 ? 0 : (uint64_t)gs;
    uint64_t kvb = (uint64_t)llmmem__dtype_bytes((int)c->kv_cache_dtype);
    if (kvb == 0)
        kvb = e;
    const uint64_t ws = c->cublas_workspace_bytes >= 0 ? (uint64_t)c->cublas_workspace_bytes
                                                       : g->cublas_workspace_bytes;

    /* weights: tensor parallel splits every matrix and the vocabulary
     * (column/row-parallel linears, VocabParallelEmbedding); norms are
     * replicated but negligible */
    const uint64_t w_all = weights_total(&o, m, fmt, e, bits, group);
    const uint64_t W = llmmem__ceil_div(w_all, (uint64_t)tp);
    const uint64_t a_r = u(m->num_heads) / (uint64_t)tp;
    /* KV heads are split, or replicated when there are fewer than TP ranks
     * (vLLM get_num_kv_heads: max(1, k / tp)) */
    const uint64_t k_r = (uint64_t)(kvh >= tp ? kvh / tp : 1);
    const uint64_t kv_tl = kv_token_layer(&o, m, kvb, a_r, k_r, vllm);
    const uint64_t kv_tok = llmmem__mul(&o, kv_tl, u(m->num_layers));
    /* Vision-language models (vision.c): image tokens join each prompt; the
     * frozen encoder's working set for the batch's images is a prefill point. */
    llmmem__vision_bytes vb;
    if ((rc = llmmem__vision_compute(&vb, m, c, u(c->batch_size), &o)) != 0)
        return rc;

    llmmem__result_set_i64(r, LLMMEM_R_PARAMS, m->params);
    llmmem__result_set_i64(r, LLMMEM_R_TRAINABLE_PARAMS, 0);
    llmmem__result_set_i64(r, LLMMEM_R_ACTIVE_PARAMS, m->params_active ? m->params_active : m->params);
    llmmem__result_set_i64(r, LLMMEM_R_NUM_GPUS, tp);
    llmmem__result_set_u64(r, LLMMEM_R_WEIGHTS_BYTES, W);
    llmmem__result_set_u64(r, LLMMEM_R_PERSISTENT_BYTES, W);
    llmmem__result_set_u64(r, LLMMEM_R_KV_BYTES_PER_TOKEN, kv_tok);
    llmmem__result_term(r, "weights", fmt_formula[fmt] ? fmt_formula[fmt] : "params*bytes", W);

    if (!vllm) {
        hf x;
        memset(&x, 0, sizeof x);
        x.B = u(c->batch_size);
        x.S = llmmem__add(&o, u(c->prompt_len), vb.lm_tokens);
        x.N = u(c->decode_len);
        x.T = llmmem__mul(&o, x.B, x.S);
        x.e = e;
        x.h = u(m->hidden_size);
        x.L = u(m->num_layers);
        x.a = a_r;
        x.k = k_r;
        x.d = u(m->head_dim);
        x.f = u(m->intermediate_size) / (uint64_t)tp;
        x.V = u(m->vocab_size);
        x.kv_tl = kv_tl;
        /* MLA caches the latent as keys and the roped part as values */
        x.kv_part_tl = m->kv_lora_rank > 0
                           ? llmmem__mul(&o, llmmem__max(u(m->kv_lora_rank), u(m->qk_rope_head_dim)), kvb)
                           : llmmem__mul3(&o, x.k, u(m->head_dim), kvb);
        x.half = fmt == LLMMEM__Q_FP16 ||
                 (fmt != LLMMEM__Q_BF16 && fmt != LLMMEM__Q_FP32 && m->torch_dtype == LLMMEM__DT_FP16);
        x.window = u(m->sliding_window);
        x.n_slide = x.window ? llmmem__min(u(m->num_sliding_layers), x.L) : 0;
        x.eager = c->attention == LLMMEM__ATTN_EAGER;
        x.repeat_kv = x.k < x.a && m->family != LLMMEM__FAM_FALCON;
        x.math_gqa = c->attention == LLMMEM__ATTN_SDPA && x.e == 4 && x.k < x.a &&
                     m->family != LLMMEM__FAM_FALCON;
        hf_prefill(&o, &x, m, c, ws);
        /* The encoder runs before the language model (weights only besides
         * its own working set), so it is a separate point of the prefill. */
        if (vb.transient > llmmem__add(&o, x.prefill.act, x.prefill.kv)) {
            x.prefill.act = vb.transient;
            x.prefill.kv = 0;
            x.prefill.logits = 0;
        }
        /* the decode steps also hold the cuBLASLt workspace of a biased model */
        hf_decode(&o, &x, ws + (m->attention_bias || m->o_bias || m->mlp_bias ? LT_WORKSPACE : 0));
        if (o.overflow)
            return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                                 "batch_size %lld x prompt_len %lld x decode_len %lld overflows "
                                 "64-bit byte counts",
                                 (long long)c->batch_size, (long long)c->prompt_len,
                                 (long long)c->decode_len);
        const int P = LLMMEM_PHASE_PREFILL, D = LLMMEM_PHASE_DECODE;
        r->phase_used[P] = true;
        r->bytes[P][LLMMEM_C_WEIGHTS] = W;
        r->bytes[P][LLMMEM_C_KV_CACHE] = x.prefill.kv;
        r->bytes[P][LLMMEM_C_ACTIVATION_TRANSIENT] = x.prefill.act;
        r->bytes[P][LLMMEM_C_LOGITS] = x.prefill.logits;
        r->bytes[P][LLMMEM_C_WORKSPACE] = ws;
        r->bytes[P][LLMMEM_C_OTHER] = llmmem__sub0(x.prefill.other, ws);
        if (x.N > 0) {
            r->phase_used[D] = true;
            r->bytes[D][LLMMEM_C_WEIGHTS] = W;
            r->bytes[D][LLMMEM_C_KV_CACHE] = x.decode.kv;
            r->bytes[D][LLMMEM_C_ACTIVATION_TRANSIENT] = x.decode.act;
            r->bytes[D][LLMMEM_C_LOGITS] = x.decode.logits;
            r->bytes[D][LLMMEM_C_WORKSPACE] = ws;
            r->bytes[D][LLMMEM_C_OTHER] = llmmem__sub0(x.decode.other, ws);
        }
        r->largest_block = llmmem__max(x.largest, kv_tl ? llmmem__mul3(&o, x.B, x.S + x.N, kv_tl) : 0);
        llmmem__result_set_u64(r, LLMMEM_R_KV_CACHE_BYTES, x.kv_after);
        llmmem__result_term(r, "kv_cache",
                            "2*k*d*bytes*B*(prompt+decode) per full layer, min(prompt+decode, window) "
                            "per sliding layer [transformers cache_utils.DynamicLayer, "
                            "DynamicSlidingWindowLayer]",
                            x.kv_after);
        llmmem__result_term(r, "prefill_transient",
                            "max over the last layer's RoPE, attention kernel, norm, MLP/experts and "
                            "final norm of the live intermediates [modeling_llama.py, sdpa_attention.py, "
                            "integrations/moe.py]",
                            x.prefill.act);
        llmmem__result_term(r, "prefill_kv_at_peak", "KV of every layer for the prompt at the peak",
                            x.prefill.kv);
        llmmem__result_term(r, "inputs_rope_masks",
                            "ids B*S*8 + cache_position S*8 + cos/sin 2*S*rot*bytes per rope "
                            "(2 for gemma3) + masks [masking_utils.py] + 1 MiB cuBLASLt workspace "
                            "if a Linear has a bias",
                            llmmem__sub0(x.prefill.other, ws));
        llmmem__result_term(r, "cublas_workspace", "per handle [CublasHandlePool.cpp]", ws);
        if (vb.lm_tokens)
            llmmem__result_term(r, "vision_encoder_transient",
                                "the frozen encoder's largest working set for the batch's images (vision.c)",
                                vb.transient);
        if (x.N > 0)
            llmmem__result_term(r, "decode_peak_kv", "KV after a step + the layer tensor torch.cat replaces",
                                x.decode.kv);
        if ((rc = llmmem__result_finish(r, c)) != 0)
            return rc;
        set_gpus_needed(r, m, c, tp, search);
        return LLMMEM_OK;
    }

    /* vLLM (vllm/v1/worker/gpu_worker.py determine_available_memory): the
     * KV pool is what is left of total*gpu_memory_utilization after weights,
     * the profile run's peak activations and non-torch memory. */
    const uint64_t total = c->gpu_memory_bytes > 0 ? (uint64_t)c->gpu_memory_bytes : g->memory_bytes;
    const double util = c->gpu_memory_utilization > 0.0 ? c->gpu_memory_utilization : 0.9;
    const uint64_t requested = (uint64_t)((double)total * util);
    const uint64_t seqs = c->max_num_seqs > 0 ? u(c->max_num_seqs) : 256;
    const uint64_t maxlen = c->max_model_len > 0 ? u(c->max_model_len)
                            : m->max_positions > 0 ? u(m->max_positions) : 4096;
    uint64_t tokens = c->max_num_batched_tokens > 0 ? u(c->max_num_batched_tokens) : 8192;
    /* vLLM's encoder budget (multimodal/encoder_budget / compute_encoder_budget):
     * at least one item's worth of encoder tokens; the profile run encodes
     * dummy images and keeps their outputs in the encoder cache. */
    const uint64_t enc_tok = vb.lm_tokens ? llmmem__max(tokens, vb.lm_tokens) : 0;
    const uint64_t block = c->kv_block_size > 0 ? u(c->kv_block_size) : 16;
    const uint64_t h = u(m->hidden_size), V = u(m->vocab_size);
    const uint64_t f = u(m->intermediate_size) / (uint64_t)tp;
    /* profile run: one forward over max_num_batched_tokens dummy tokens with
     * fused kernels (qkv_proj, SiluAndMul: gate_up 2f + out f, residual and
     * hidden h each), logits for at most max_num_seqs rows ... */
    uint64_t fwd = llmmem__mul3(&o, tokens, e, llmmem__add(&o, 2 * h, 3 * f));
    if (m->num_experts > 0) { /* fused_moe intermediate caches per (token, expert) */
        uint64_t fm = (m->moe_intermediate_size > 0 ? u(m->moe_intermediate_size) : f) / (uint64_t)tp;
        uint64_t pairs = llmmem__mul(&o, tokens, u(m->experts_per_token));
        fwd = llmmem__max(fwd, llmmem__mul3(&o, pairs, e, llmmem__add(&o, 3 * fm, h)));
    }
    fwd = llmmem__add(&o, fwd, llmmem__mul3(&o, llmmem__min(seqs, tokens), V, 4));
    /* ... and the sampler warm-up over max_num_seqs rows of the vocabulary */
    const uint64_t sampler = llmmem__mul3(&o, seqs, V, VLLM_SAMPLER_BYTES);
    uint64_t act = llmmem__max(fwd, sampler);
    if (enc_tok) {
        /* encoder pass of the profile run, then its outputs cached */
        uint64_t per_item = vb.lm_tokens ? vb.transient / (u(c->batch_size) ? u(c->batch_size) : 1) : 0;
        act = llmmem__max(act, llmmem__mul(&o, per_item, llmmem__ceil_div(enc_tok, vb.lm_tokens)));
        if (c->encoder_cache)
            act = llmmem__add(&o, act, llmmem__mul3(&o, enc_tok, h, e));
    }
    const uint64_t non_torch = tp > 1 ? VLLM_NON_TORCH_TPN : VLLM_NON_TORCH_TP1;
    const uint64_t used = llmmem__add(&o, llmmem__add(&o, W, act), non_torch);
    const uint64_t avail = llmmem__sub0(requested, used);
    /* page per layer (AttentionSpec.page_size_bytes = block * per-token bytes);
     * every layer gets a page per block (sliding layers as full attention
     * without the hybrid allocator) */
    const uint64_t page_all = llmmem__mul(&o, block, kv_tok);
    const uint64_t blocks = page_all ? avail / page_all : 0;
    const uint64_t per_seq = llmmem__ceil_div(maxlen, block);
    uint64_t conc = per_seq ? blocks / per_seq : 0;
    if (conc > seqs)
        conc = seqs;
    const uint64_t pool = llmmem__mul(&o, blocks, page_all);
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "vllm budget overflows 64-bit byte counts");
    const int D = LLMMEM_PHASE_DECODE;
    r->phase_used[D] = true;
    r->bytes[D][LLMMEM_C_WEIGHTS] = W;
    r->bytes[D][LLMMEM_C_ACTIVATION_TRANSIENT] = act;
    r->bytes[D][LLMMEM_C_OTHER] = non_torch;
    /* when not even one max_model_len sequence fits, show what one needs */
    r->bytes[D][LLMMEM_C_KV_CACHE] = conc ? pool : llmmem__mul(&o, per_seq, page_all);
    r->largest_block = llmmem__mul(&o, blocks, llmmem__mul(&o, block, kv_tl));
    llmmem__result_set_u64(r, LLMMEM_R_KV_CACHE_BYTES, pool);
    llmmem__result_set_i64(r, LLMMEM_R_KV_BLOCKS, (int64_t)blocks);
    llmmem__result_set_i64(r, LLMMEM_R_MAX_CONCURRENT_SEQS, (int64_t)conc);
    llmmem__result_set_i64(r, LLMMEM_R_MAX_CONTEXT_TOKENS, (int64_t)llmmem__mul(&o, blocks, block));
    llmmem__result_term(r, "profile_activation",
                        "max(forward over max_num_batched_tokens, max_num_seqs*vocab*36 sampler "
                        "warm-up) [vllm gpu_model_runner profile_run/_dummy_sampler_run]",
                        act);
    llmmem__result_term(r, "non_torch", "0.13 GiB TP=1, 0.55 GiB TP>1 [llm-d vLLM measurements]",
                        non_torch);
    llmmem__result_term(r, "kv_pool",
                        "floor((total*util - weights - activation - non_torch) / (block*kv_bytes_per_token))"
                        " blocks [vllm gpu_worker.determine_available_memory, kv_cache_utils]",
                        pool);
    if (!conc)
        llmmem__result_note(r, "vllm: the KV pool (%llu blocks of %llu tokens) cannot hold one "
                               "sequence of max_model_len %llu",
                            (unsigned long long)blocks, (unsigned long long)block,
                            (unsigned long long)maxlen);
    if (c->cuda_graphs)
        llmmem__result_note(r, "vllm: CUDA graph memory is not subtracted from the KV budget "
                               "(vLLM < 0.21 behaviour)");
    rc = llmmem__result_finish(r, c);
    if (rc == 0 && !conc)
        llmmem__result_set_i64(r, LLMMEM_R_FITS, 0);
    if (rc == 0)
        set_gpus_needed(r, m, c, tp, search);
    return rc;
}
