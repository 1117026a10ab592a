/* Llama-like families: a pre-norm decoder with q/k/v/o attention and a gated
 * MLP (huggingface/transformers src/transformers/models/<type>/modeling_<type>.py),
 * and their MoE variants with fused 3-D expert tensors (transformers 5 keeps a
 * layer's experts as experts.gate_up_proj [E, 2f, h] and experts.down_proj
 * [E, h, f]). Defaults are those of configuration_<type>.py. */
#include "model/families.h"


/* A sparse MoE block: the router's weight [E, h] and the fused experts. */
#define MOE_EXPERTS(router)                                                        \
    WEIGHT(router, "E", "h", ROUTER, MOE_LAYERS),                                  \
        PARAM("mlp.experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL), \
        PARAM("mlp.experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL)
/* Gemma2/3DecoderLayer: also pre_/post_feedforward_layernorm */
#define GEMMA2_NORMS                                                               \
    LAYER_NORMS, NORM("pre_feedforward_layernorm", "h", "norm", W_ALL),            \
        NORM("post_feedforward_layernorm", "h", "norm", W_ALL)
/* Olmo2DecoderLayer: post_attention_layernorm, post_feedforward_layernorm */
#define OLMO2_NORMS                                                                     \
    NORM("post_attention_layernorm", "h", "norm", W_ALL), NORM("post_feedforward_layernorm", "h", "norm", W_ALL)

#define Q_HEAD_DIM(def) Q("d", "head_dim", def, "h / a", DIM)
#define Q_RMS QD("norm", "0"), QD("npl", "2"), QD("hb", "0"), QD("gated", "1")

/* ---- llama, mistral, mixtral ------------------------------------------------------ */

static const llmmem__qdef q_llama[] = {
    Q_BASE("32000", "4096", "11008", "32", "32", "a", "2048"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("mb", "mlp_bias", "0", NULL, BOOL),
    Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_llama[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

static const llmmem__qdef q_mistral[] = {
    Q_BASE("32000", "4096", "14336", "32", "32", "8", "131072"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("sw", "sliding_window", "4096", "0", POS), QD("ab", "0"), QD("ob", "0"), QD("mb", "0"),
    Q_DROPOUT, Q_RMS,
};
#define t_mistral t_llama

static const llmmem__qdef q_mixtral[] = {
    Q_BASE("32000", "4096", "14336", "32", "32", "8", "131072"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("sw", "sliding_window", "0", "0", POS), QD("ab", "0"), QD("ob", "0"), QD("mb", "0"),
    Q("E", "num_local_experts|num_experts", "8", "0", COUNT), Q("K", "num_experts_per_tok", "2", "0", COUNT),
    QD("fm", "f"), Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_mixtral[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", DENSE_LAYERS, "mb"), MOE_EXPERTS("mlp.gate"),
    LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- qwen2, qwen2_moe, qwen3, qwen3_moe ---------------------------------------------- */

/* Qwen2Config: sliding_window applies only with use_sliding_window, from
 * max_window_layers on (modeling_qwen2.py Qwen2Attention). */
#define Q_QWEN_WINDOW                                                     \
    Q("usw", "use_sliding_window", "0", NULL, BOOL),                      \
        Q("mwl", "max_window_layers", "28", NULL, LAYERS),                \
        Q("swk", "sliding_window", "4096", "0", POS), QD("sw", "usw ? swk : 0")
#define QWEN_WINDOW_RULE \
    MIXER_LIST("layer_types", "sliding_attention=1,full_attention=0", LLMMEM__MR_FROM, "mwl", NULL, 0, 0, NULL)

static const llmmem__qdef q_qwen2[] = {
    Q_BASE("151936", "4096", "22016", "32", "32", "32", "32768"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q_QWEN_WINDOW, QD("ab", "1"), QD("ob", "0"), QD("mb", "0"), Q_DROPOUT, Q_RMS,
};
#define t_qwen2 t_llama

/* Qwen2VLTextConfig (the text model of qwen2_vl; Qwen2-VL-72B's shape by default). */
static const llmmem__qdef q_qwen2_vl_text[] = {
    Q_BASE("152064", "8192", "29568", "80", "64", "8", "32768"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q_QWEN_WINDOW, QD("ab", "1"), QD("ob", "0"), QD("mb", "0"), Q_DROPOUT, Q_RMS,
};
#define t_qwen2_vl_text t_llama

static const llmmem__qdef q_qwen2_moe[] = {
    Q_BASE("151936", "2048", "5632", "24", "16", "16", "32768"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q_QWEN_WINDOW, Q("ab", "qkv_bias", "1", NULL, BOOL), QD("ob", "0"), QD("mb", "0"),
    Q("E", "num_experts|num_local_experts", "60", "0", COUNT), Q("K", "num_experts_per_tok", "4", "0", COUNT),
    Q("fm", "moe_intermediate_size", "1408", NULL, DIM),
    Q("fs", "shared_expert_intermediate_size", "5632", NULL, DIM0), QD("ns", "fs > 0"), QD("seg", "fs > 0"),
    Q("step", "decoder_sparse_step", "1", NULL, LAYERS), Q_DROPOUT, Q_RMS,
};
/* Qwen2MoeSparseMoeBlock: gate, experts, shared_expert (an MLP of width fs)
 * and shared_expert_gate Linear(h, 1). */
static const llmmem__tdef t_qwen2_moe[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", DENSE_LAYERS, "0"), MOE_EXPERTS("mlp.gate"),
    MLP_GATED("mlp.shared_expert", "fs", MOE_LAYERS, "0"),
    {"mlp.shared_expert_gate", "1", "h", T_(ROUTER), LLMMEM__TF_LINEAR, MOE_LAYERS, "seg", NULL}, /* nn.Linear(h, 1) */
    LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

static const llmmem__qdef q_qwen3[] = {
    Q_BASE("151936", "4096", "22016", "32", "32", "32", "32768"), Q_HEAD_DIM("128"), Q_TIE("0"),
    Q_QWEN_WINDOW, Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"),
    QD("qkn", "1"), Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_qwen3[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("d", "d", W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"),
    LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

static const llmmem__qdef q_qwen3_moe[] = {
    Q_BASE("151936", "2048", "6144", "24", "32", "4", "32768"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q_QWEN_WINDOW, Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"),
    QD("qkn", "1"), Q("E", "num_experts|num_local_experts", "128", "0", COUNT), Q("K", "num_experts_per_tok", "8", "0", COUNT),
    Q("fm", "moe_intermediate_size", "768", NULL, DIM), Q("step", "decoder_sparse_step", "1", NULL, LAYERS),
    Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_qwen3_moe[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("d", "d", W_ALL), MLP_GATED("mlp", "f", DENSE_LAYERS, "0"),
    MOE_EXPERTS("mlp.gate"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};
/* Qwen2MoeDecoderLayer: MoE unless the layer is in mlp_only_layers, on the
 * decoder_sparse_step stride. */
#define QWEN_MOE_RULE FFN_RULE(LLMMEM__FR_STEP, "step", NULL, "mlp_only_layers")

/* ---- gemma, gemma2, gemma3_text ------------------------------------------------------ */

/* GemmaRMSNorm scales by (1 + weight): one weight per feature all the same. */
static const llmmem__qdef q_gemma[] = {
    Q_BASE("256000", "3072", "24576", "28", "16", "16", "8192"), Q_HEAD_DIM("256"), Q_TIE("1"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), Q_DROPOUT, Q_RMS,
};
#define t_gemma t_llama

/* Gemma2: pre- and post-norms around attention and MLP (4 per layer),
 * sliding window on every other layer from 0, logit soft-capping. */
static const llmmem__qdef q_gemma2[] = {
    Q_BASE("256000", "2304", "9216", "26", "8", "4", "8192"), Q_HEAD_DIM("256"), Q_TIE("1"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"),
    Q("sw", "sliding_window", "4096", "0", POS), QRN("fsc", "final_logit_softcapping", "30", "0"),
    QRN("asc", "attn_logit_softcapping", "50", "0"), Q_DROPOUT, QD("norm", "0"), QD("npl", "4"), QD("hb", "0"),
    QD("gated", "1"),
};
static const llmmem__tdef t_gemma2[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"), GEMMA2_NORMS, FINAL_NORM, LM_HEAD,
};

/* Gemma3: q/k norms over head_dim; sliding on all but every
 * sliding_window_pattern-th layer. */
static const llmmem__qdef q_gemma3_text[] = {
    Q_BASE("262208", "2304", "9216", "26", "8", "4", "131072"), Q_HEAD_DIM("256"), Q_TIE("1"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"),
    Q("sw", "sliding_window", "4096", "0", POS), Q("pat", "sliding_window_pattern", "6", NULL, LAYERS),
    QRN("fsc", "final_logit_softcapping", "0", "0"), QRN("asc", "attn_logit_softcapping", "0", "0"), QD("qkn", "1"),
    Q_DROPOUT, QD("norm", "0"), QD("npl", "4"), QD("hb", "0"), QD("gated", "1"),
};
static const llmmem__tdef t_gemma3_text[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("d", "d", W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"),
    GEMMA2_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- phi3, olmo, olmo2, olmoe, starcoder2 --------------------------------------------- */

/* Phi3Attention: one fused qkv_proj; Phi3MLP: gate_up_proj then down_proj. */
static const llmmem__qdef q_phi3[] = {
    Q_BASE("32064", "3072", "8192", "32", "32", "a", "4096"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("sw", "sliding_window", "0", "0", POS), QR("prf", "partial_rotary_factor", "1"), Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_phi3[] = {
    EMBED_TOKENS,
    LINEAR("self_attn.qkv_proj", "a * d + 2 * k * d", "h", ATTN, W_ALL, "0"),
    LINEAR("self_attn.o_proj", "h", "a * d", ATTN, W_ALL, "0"),
    LINEAR("mlp.gate_up_proj", "2 * f", "h", MLP, W_ALL, "0"),
    LINEAR("mlp.down_proj", "h", "f", MLP, W_ALL, "0"),
    LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* OlmoLayerNorm has no parameters (norm kind 3). */
static const llmmem__qdef q_olmo[] = {
    Q_BASE("50304", "4096", "11008", "32", "32", "a", "2048"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), Q_DROPOUT,
    QD("norm", "3"), QD("npl", "2"), QD("hb", "0"), QD("gated", "1"),
};
#define t_olmo t_llama

/* OLMo-2: post-norms only (post_attention_layernorm, post_feedforward_layernorm)
 * and q_norm/k_norm over the whole projection. */
static const llmmem__qdef q_olmo2[] = {
    Q_BASE("50304", "4096", "11008", "32", "32", "a", "2048"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), QD("qkn", "1"), Q_DROPOUT,
    Q_RMS,
};
static const llmmem__tdef t_olmo2[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("a * d", "k * d", W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"),
    OLMO2_NORMS, FINAL_NORM, LM_HEAD,
};

static const llmmem__qdef q_olmoe[] = {
    Q_BASE("50304", "2048", "2048", "16", "16", "a", "4096"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), QD("qkn", "1"),
    Q("E", "num_experts|num_local_experts", "64", "0", COUNT), Q("K", "num_experts_per_tok", "8", "0", COUNT), QD("fm", "f"),
    Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_olmoe[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("a * d", "k * d", W_ALL), MLP_GATED("mlp", "f", DENSE_LAYERS, "0"),
    MOE_EXPERTS("mlp.gate"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* Starcoder2: LayerNorm, a non-gated c_fc/c_proj MLP, biases by use_bias. */
static const llmmem__qdef q_starcoder2[] = {
    Q_BASE("49152", "3072", "12288", "30", "24", "2", "4096"), Q_HEAD_DIM("h / a"), Q_TIE("1"),
    Q("sw", "sliding_window", "0", "0", POS), Q("ab", "use_bias", "1", NULL, BOOL), QD("ob", "ab"),
    QD("mb", "ab"), Q_DROPOUT, QR("ph", "residual_dropout", "0"), QR("pe", "embedding_dropout", "0"),
    QD("norm", "1"), QD("npl", "2"), QD("hb", "0"), QD("gated", "0"),
};
static const llmmem__tdef t_starcoder2[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), LINEAR("mlp.c_fc", "f", "h", MLP, W_ALL, "mb"),
    LINEAR("mlp.c_proj", "h", "f", MLP, W_ALL, "mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- gpt-oss --------------------------------------------------------------------- */

/* GptOssAttention: biased q/k/v/o and one learned sink per head;
 * GptOssTopKRouter: weight [E, h] + bias [E]; GptOssExperts: gate_up_proj
 * [E, h, 2f] + bias [E, 2f], down_proj [E, f, h] + bias [E, h]. Sliding
 * window on every other layer from 0. */
static const llmmem__qdef q_gpt_oss[] = {
    Q_BASE("201088", "2880", "2880", "36", "64", "8", "131072"), Q_HEAD_DIM("64"), Q_TIE("0"),
    Q("ab", "attention_bias", "1", NULL, BOOL), QD("ob", "ab"), QD("mb", "1"),
    Q("sw", "sliding_window", "128", "0", POS), Q("E", "num_local_experts|num_experts", "128", "0", COUNT),
    Q("K", "num_experts_per_tok", "4", "0", COUNT), QD("fm", "f"), Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_gpt_oss[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), PARAM("self_attn.sinks", "a", NULL, ATTN, W_ALL, NULL),
    PARAM("mlp.router.weight", "E", "h", ROUTER, MOE_LAYERS, NULL),
    PARAM("mlp.router.bias", "E", NULL, ROUTER, MOE_LAYERS, NULL),
    PARAM("mlp.experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.experts.gate_up_proj_bias", "E * 2 * fm", NULL, EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.experts.down_proj_bias", "E * h", NULL, EXPERT, MOE_LAYERS, NULL),
    MLP_GATED("mlp", "f", DENSE_LAYERS, "0"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};
#define ALT_WINDOW                                                                            \
    MIXER_LIST("layer_types", "sliding_attention=1,full_attention=0", LLMMEM__MR_PERIODIC, "2", "0", \
               LLMMEM__MX_SLIDING, LLMMEM__MX_FULL, NULL)

/* ---- the entries -------------------------------------------------------------------- */

#define LLAMA_FAMILY(type, fam, mixer, ffn, act, about) \
    {#type, LLMMEM__FAM_##fam, ROWS(q_##type), ROWS(t_##type), mixer, ffn, LLMMEM__NORM_RMS, LLMMEM__ACT_##act, about}
#define LAYER_TYPES(rule) MIXER_LIST("layer_types", "sliding_attention=1,full_attention=0", rule, NULL, NULL, 0, 0, NULL)

const llmmem__arch llmmem__fam_llama[] = {
    LLAMA_FAMILY(llama, LLAMA, MIXER_FULL, FFN_DENSE, SILU_GLU, "modeling_llama.py"),
    LLAMA_FAMILY(mistral, LLAMA, LAYER_TYPES(LLMMEM__MR_SLIDING), FFN_DENSE, SILU_GLU,
                 "modeling_mistral.py: sliding window on every layer"),
    LLAMA_FAMILY(mixtral, LLAMA, LAYER_TYPES(LLMMEM__MR_SLIDING), FFN_MOE, SILU_GLU,
                 "modeling_mixtral.py: every layer MoE"),
    LLAMA_FAMILY(qwen2, LLAMA, QWEN_WINDOW_RULE, FFN_DENSE, SILU_GLU, "modeling_qwen2.py: q/k/v biases"),
    LLAMA_FAMILY(qwen2_vl_text, LLAMA, QWEN_WINDOW_RULE, FFN_DENSE, SILU_GLU, "modeling_qwen2_vl.py: the text model"),
    LLAMA_FAMILY(qwen2_moe, LLAMA, QWEN_WINDOW_RULE, QWEN_MOE_RULE, SILU_GLU,
                 "modeling_qwen2_moe.py: shared expert and its gate"),
    LLAMA_FAMILY(qwen3, LLAMA, QWEN_WINDOW_RULE, FFN_DENSE, SILU_GLU, "modeling_qwen3.py: q/k norms"),
    LLAMA_FAMILY(qwen3_moe, LLAMA, QWEN_WINDOW_RULE, QWEN_MOE_RULE, SILU_GLU, "modeling_qwen3_moe.py"),
    LLAMA_FAMILY(gemma, GEMMA, MIXER_FULL, FFN_DENSE, GELU_TANH_GLU, "modeling_gemma.py: GeGLU, tied"),
    LLAMA_FAMILY(gemma2, GEMMA, ALT_WINDOW, FFN_DENSE, GELU_TANH_GLU,
                 "modeling_gemma2.py: four norms per layer, soft-capping"),
    LLAMA_FAMILY(gemma3_text, GEMMA,
                 MIXER_LIST("layer_types", "sliding_attention=1,full_attention=0", LLMMEM__MR_PERIODIC, "pat", "1",
                            LLMMEM__MX_FULL, LLMMEM__MX_SLIDING, NULL),
                 FFN_DENSE, GELU_TANH_GLU, "modeling_gemma3.py: 5 sliding : 1 full"),
    LLAMA_FAMILY(phi3, PHI3, LAYER_TYPES(LLMMEM__MR_SLIDING), FFN_DENSE, SILU_GLU,
                 "modeling_phi3.py: fused qkv_proj and gate_up_proj"),
    LLAMA_FAMILY(olmo, OLMO, MIXER_FULL, FFN_DENSE, SILU_GLU, "modeling_olmo.py: non-parametric LayerNorm"),
    LLAMA_FAMILY(olmo2, OLMO, MIXER_FULL, FFN_DENSE, SILU_GLU, "modeling_olmo2.py: post-norms"),
    LLAMA_FAMILY(olmoe, OLMO, MIXER_FULL, FFN_MOE, SILU_GLU, "modeling_olmoe.py"),
    LLAMA_FAMILY(starcoder2, STARCODER2, LAYER_TYPES(LLMMEM__MR_SLIDING), FFN_DENSE, GELU,
                 "modeling_starcoder2.py: LayerNorm, c_fc/c_proj"),
    LLAMA_FAMILY(gpt_oss, GPT_OSS, ALT_WINDOW, FFN_MOE, SWIGLU_OAI,
                 "modeling_gpt_oss.py: attention sinks, biased experts"),
};
const int llmmem__fam_llama_count = (int)LLMMEM_ARRAY_LEN(llmmem__fam_llama);
