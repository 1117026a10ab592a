/* Inference weights in each storage format: the linear layers of the HF
 * module layouts, the bytes of one matrix per format (formulas.md §4.3), and
 * the tensors every quantized format leaves in the activation dtype. A new
 * format is one function and one row of `formats`. */
#include "infer/infer.h"

#define u llmmem__nonneg

/* One group of identical linear layers: `count` matrices of in x out. */
typedef struct lin {
    uint64_t in, out, count;
    bool expert; /* routed expert (MXFP4 quantises only these) */
} lin;

#define MAX_LIN 12

/* modeling_deepseek_v3.py DeepseekV3Attention: q_a/q_b (or q_proj),
 * kv_a_proj_with_mqa, kv_b_proj, o_proj */
static int linears_mla(lin *v, const struct llmmem_model *m, llmmem__ovf *o)
{
    int n = 0;
    uint64_t h = u(m->hidden_size), L = u(m->num_layers), a = u(m->num_heads);
    uint64_t qk = u(m->qk_nope_head_dim) + u(m->qk_rope_head_dim);
    if (m->q_lora_rank > 0) {
        v[n++] = (lin){h, u(m->q_lora_rank), L, false};
        v[n++] = (lin){u(m->q_lora_rank), llmmem__mul(o, a, qk), L, false};
    } else {
        v[n++] = (lin){h, llmmem__mul(o, a, qk), L, false};
    }
    v[n++] = (lin){h, u(m->kv_lora_rank) + u(m->qk_rope_head_dim), L, false};
    v[n++] = (lin){u(m->kv_lora_rank), llmmem__mul(o, a, u(m->qk_nope_head_dim) + u(m->v_head_dim)),
                   L, false};
    v[n++] = (lin){llmmem__mul(o, a, u(m->v_head_dim)), h, L, false};
    return n;
}

/* q, k, v, o (fused c_attn/qkv layouts hold the same elements) */
static int linears_attention(lin *v, const struct llmmem_model *m, llmmem__ovf *o)
{
    if (m->kv_lora_rank > 0)
        return linears_mla(v, m, o);
    uint64_t h = u(m->hidden_size), L = u(m->num_layers), a = u(m->num_heads);
    uint64_t k = u(m->num_kv_heads), d = u(m->head_dim);
    v[0] = (lin){h, llmmem__mul(o, a, d), L, false};
    v[1] = (lin){h, llmmem__mul(o, k, d), llmmem__mul(o, 2, L), false};
    v[2] = (lin){llmmem__mul(o, a, d), h, L, false};
    return 3;
}

/* The linear layers of all decoder layers of the model (per GPU before TP),
 * from the HF module layouts (formulas.md §1.2): attention, then the dense
 * MLPs, the routed experts and the shared experts. */
static int enumerate_linears(lin *v, const struct llmmem_model *m, llmmem__ovf *o)
{
    int n = linears_attention(v, m, o);
    uint64_t h = u(m->hidden_size), L = u(m->num_layers), f = u(m->intermediate_size);
    uint64_t moe_layers =
        m->num_experts > 0 ? (m->num_moe_layers > 0 ? u(m->num_moe_layers) : L) : 0;
    uint64_t dense_layers = L > moe_layers ? L - moe_layers : 0;
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

/* ---- bytes of one in x out matrix in each format (formulas.md §4.3) ------ */

/* fp8 W8A8 (compressed-tensors channel strategy) / bitsandbytes LLM.int8
 * (Int8Params + SCB): 1 B per element + an fp32 scale per output row */
static uint64_t lin_8bit_row_scale(llmmem__ovf *o, uint64_t in, uint64_t out, uint64_t bits,
                                   uint64_t group)
{
    return llmmem__add(o, llmmem__mul(o, in, out), llmmem__mul(o, 4, out));
}

/* DeepSeek-V3 fp8 with weight_block_size [128,128]: fp32 scale_inv per
 * 128x128 block (transformers integrations/finegrained_fp8.py) */
static uint64_t lin_fp8_block(llmmem__ovf *o, uint64_t in, uint64_t out, uint64_t bits,
                              uint64_t group)
{
    return llmmem__add(o, llmmem__mul(o, in, out),
                       llmmem__mul3(o, 4, llmmem__ceil_div(out, 128), llmmem__ceil_div(in, 128)));
}

/* symmetric int4 with an fp16 scale per group of `group` inputs */
static uint64_t lin_int4_group(llmmem__ovf *o, uint64_t in, uint64_t out, uint64_t bits,
                               uint64_t group)
{
    return llmmem__add(o, llmmem__bits_to_bytes(o, llmmem__mul(o, in, out), 4),
                       llmmem__mul3(o, 2, out, llmmem__ceil_div(in, group)));
}

/* bitsandbytes functional.quantize_4bit (nf4 and fp4): 2 values per byte, one
 * fp32 absmax per block of 64 */
static uint64_t lin_bnb_4bit(llmmem__ovf *o, uint64_t in, uint64_t out, uint64_t bits,
                             uint64_t group)
{
    uint64_t el = llmmem__mul(o, in, out);
    return llmmem__add(o, llmmem__ceil_div(el, 2), llmmem__mul(o, 4, llmmem__ceil_div(el, 64)));
}

/* nf4 with compress_statistics=True: absmax as uint8 (1 B per 64), an fp32
 * scale per 256 absmax values, plus fp32 offset and 256-entry fp32 code per
 * tensor (QLoRA paper §3, Double Quantization) */
static uint64_t lin_nf4_double_quant(llmmem__ovf *o, uint64_t in, uint64_t out, uint64_t bits,
                                     uint64_t group)
{
    uint64_t el = llmmem__mul(o, in, out);
    uint64_t blocks = llmmem__ceil_div(el, 64);
    return llmmem__add(o, llmmem__add(o, llmmem__ceil_div(el, 2), blocks),
                       llmmem__add(o, llmmem__mul(o, 4, llmmem__ceil_div(blocks, 256)), 4 + 1024));
}

/* vllm quantization/awq.py create_weights: qweight int32 [in/pack, out],
 * qzeros int32 [groups, out/pack], scales fp16 [groups, out]; group -1 (0
 * here) = per channel */
static uint64_t lin_awq(llmmem__ovf *o, uint64_t in, uint64_t out, uint64_t bits, uint64_t group)
{
    uint64_t groups = group ? llmmem__ceil_div(in, group) : 1;
    uint64_t q = llmmem__bits_to_bytes(o, llmmem__mul(o, in, out), bits);
    uint64_t z = llmmem__bits_to_bytes(o, llmmem__mul(o, groups, out), bits);
    uint64_t s = llmmem__mul3(o, 2, groups, out);
    return llmmem__add(o, llmmem__add(o, q, z), s);
}

/* vllm quantization/gptq.py create_weights: awq.py's tensors plus g_idx
 * int32 [in] */
static uint64_t lin_gptq(llmmem__ovf *o, uint64_t in, uint64_t out, uint64_t bits, uint64_t group)
{
    return llmmem__add(o, lin_awq(o, in, out, bits, group), llmmem__mul(o, 4, in));
}

/* OCP MX fp4 (e2m1) + one e8m0 scale byte per 32 values (gpt-oss experts,
 * transformers integrations/mxfp4.py blocks + scales) */
static uint64_t lin_mxfp4(llmmem__ovf *o, uint64_t in, uint64_t out, uint64_t bits, uint64_t group)
{
    uint64_t el = llmmem__mul(o, in, out);
    return llmmem__add(o, llmmem__ceil_div(el, 2), llmmem__ceil_div(el, 32));
}

/* NVFP4 (ModelOpt NVFP4, compressed-tensors nvfp4-pack-quantized): e2m1 packed two
 * a byte, one fp8 (e4m3) scale per 16 inputs, and fp32 global scales of the weight
 * and its input (vllm quantization/modelopt.py ModelOptNvFp4LinearMethod.create_weights:
 * weight uint8 [out, in/2], weight_scale fp8 [out, in/16], weight_scale_2 and
 * input_scale fp32; compressed_tensors_w4a4_nvfp4.py the same tensors as
 * weight_packed, weight_scale, weight_global_scale, input_global_scale) */
static uint64_t lin_nvfp4(llmmem__ovf *o, uint64_t in, uint64_t out, uint64_t bits, uint64_t group)
{
    uint64_t el = llmmem__mul(o, in, out);
    return llmmem__add(o, llmmem__add(o, llmmem__ceil_div(el, 2), llmmem__mul(o, out, llmmem__ceil_div(in, 16))),
                       8);
}

typedef uint64_t (*lin_fn)(llmmem__ovf *o, uint64_t in, uint64_t out, uint64_t bits,
                           uint64_t group);

/* Each format: the bytes of one quantized matrix (NULL: every tensor in the
 * activation dtype), whether only the routed experts are quantized, and the
 * formula of the `weights` term. */
static const struct {
    lin_fn lin;
    bool experts_only;
    const char *formula;
} formats[LLMMEM__Q_COUNT] = {
    [LLMMEM__Q_FP32] = {NULL, false, "params*4 [torch fp32]"},
    [LLMMEM__Q_FP16] = {NULL, false, "params*2 [torch fp16]"},
    [LLMMEM__Q_BF16] = {NULL, false, "params*2 [torch bf16]"},
    [LLMMEM__Q_FP8] =
        {lin_8bit_row_scale, false,
         "linears 1 B + fp32 scale per output row; rest 16-bit [compressed-tensors fp8]"},
    [LLMMEM__Q_FP8_BLOCK] = {lin_fp8_block, false,
                             "linears 1 B + fp32 per 128x128 block; rest 16-bit [finegrained_fp8]"},
    [LLMMEM__Q_INT8] = {lin_8bit_row_scale, false,
                        "linears 1 B + fp32 SCB per row; rest 16-bit [bitsandbytes LLM.int8]"},
    [LLMMEM__Q_INT4] = {lin_int4_group, false, "linears 0.5 B + fp16 scale per group; rest 16-bit"},
    [LLMMEM__Q_NF4] = {lin_bnb_4bit, false,
                       "linears 0.5 B + fp32 absmax/64; rest 16-bit [bitsandbytes quantize_4bit]"},
    [LLMMEM__Q_NF4_DQ] = {lin_nf4_double_quant, false,
                          "linears 0.5 B + 1/64 + 4/(64*256); rest 16-bit [QLoRA double quant]"},
    [LLMMEM__Q_FP4] = {lin_bnb_4bit, false,
                       "linears 0.5 B + fp32 absmax/64; rest 16-bit [bitsandbytes fp4]"},
    [LLMMEM__Q_GPTQ] = {lin_gptq, false,
                        "qweight bits/8 + qzeros + fp16 scales/group + g_idx 4*in [vllm gptq.py]"},
    [LLMMEM__Q_AWQ] = {lin_awq, false, "qweight bits/8 + qzeros + fp16 scales/group [vllm awq.py]"},
    [LLMMEM__Q_MXFP4] = {lin_mxfp4, true,
                         "experts 0.5 B + 1 B/32 (e8m0); rest bf16 [gpt-oss mxfp4]"},
    [LLMMEM__Q_NVFP4] = {lin_nvfp4, false,
                         "linears 0.5 B + fp8 scale per 16 + fp32 global scales; rest 16-bit "
                         "[vllm modelopt.py ModelOptNvFp4LinearMethod]"},
};

const char *llmmem__weights_formula(int fmt)
{
    bool known = fmt >= 0 && fmt < LLMMEM__Q_COUNT && formats[fmt].formula;
    return known ? formats[fmt].formula : "params*bytes";
}

int llmmem__weights_format(const struct llmmem_model *m, const struct llmmem_config *c)
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

uint64_t llmmem__weights_act_bytes(int fmt, const struct llmmem_model *m,
                                   const struct llmmem_config *c)
{
    if (fmt == LLMMEM__Q_FP32)
        return 4;
    if (fmt == LLMMEM__Q_FP16 || fmt == LLMMEM__Q_BF16)
        return 2;
    /* quantized: the compute dtype (bnb_4bit_compute_dtype / model dtype) */
    int dt = c->compute_dtype != LLMMEM__DT_AUTO ? (int)c->compute_dtype : m->torch_dtype;
    return dt == LLMMEM__DT_FP32 ? 4 : 2;
}

/* Embeddings, output head, norms, routers and biases stay in the activation
 * dtype in every quantized format (transformers quantizers skip lm_head and
 * non-Linear modules; formulas.md §4.3): params minus the quantized linears'
 * elements, times e. */
uint64_t llmmem__weights_bytes(llmmem__ovf *o, const struct llmmem_model *m, int fmt, uint64_t e,
                               uint64_t bits, uint64_t group)
{
    uint64_t P = u(m->params);
    if (fmt < 0 || fmt >= LLMMEM__Q_COUNT || !formats[fmt].lin)
        return llmmem__mul(o, P, e);
    lin v[MAX_LIN];
    int n = enumerate_linears(v, m, o);
    uint64_t lin_el = 0, bytes = 0;
    for (int i = 0; i < n; i++) {
        if (formats[fmt].experts_only && !v[i].expert)
            continue;
        lin_el = llmmem__add(o, lin_el, llmmem__mul3(o, v[i].in, v[i].out, v[i].count));
        bytes = llmmem__add(
            o, bytes,
            llmmem__mul(o, v[i].count, formats[fmt].lin(o, v[i].in, v[i].out, bits, group)));
    }
    if (lin_el > P) /* counts disagree with the layout: fall back to params */
        lin_el = P;
    return llmmem__add(o, bytes, llmmem__mul(o, P - lin_el, e));
}
