/* The Gemma 3n / Gemma 4 and Llama 4 text models, and the multimodal
 * composites (a ForConditionalGeneration model: text model + towers +
 * projectors, registry.h "composites") with their towers. Modeling files are
 * huggingface/transformers src/transformers/models/<type>/modeling_<type>.py
 * (5.17); defaults are those of configuration_<type>.py. */
#include "model/families.h"

/* ---- shared rows ---------------------------------------------------------------- */

#define EMBED_TOKENS WEIGHT("model.embed_tokens", "V", "h", EMBED, W_ONCE)
#define LM_HEAD {"lm_head", "V", "h", T_(HEAD), LLMMEM__TF_LINEAR, W_ONCE, "!tie", NULL}
#define GEMMA_NORMS                                                                               \
    NORM("input_layernorm", "h", "0", W_ALL), NORM("post_attention_layernorm", "h", "0", W_ALL),   \
        NORM("pre_feedforward_layernorm", "h", "0", W_ALL),                                       \
        NORM("post_feedforward_layernorm", "h", "0", W_ALL)
/* a row repeated `n` times outside the decoder layers (a tower's layers, a ModuleList) */
#define ONCE_N(name, rows, cols, kind, flags, n) {name, rows, cols, T_(kind), flags, W_ONCE, NULL, n}
#define ONCE_N_IF(name, rows, cols, kind, flags, n, when) {name, rows, cols, T_(kind), flags, W_ONCE, when, n}
/* nn.Linear(in, out) repeated n times outside the decoder layers, bias when `bias` */
#define LINEAR_N(name, out, in, kind, bias, n)                                                    \
    ONCE_N(name, out, in, kind, LLMMEM__TF_LINEAR, n), ONCE_N_IF(name, out, NULL, kind, LLMMEM__TF_BIAS, n, bias)
/* LayerNorm (weight + bias when `bias`) or RMSNorm (bias "0") of width w, n times */
#define NORM_N(name, w, bias, n) ONCE_N(name, w, NULL, NORM, 0, n), ONCE_N_IF(name, w, NULL, NORM, 0, n, bias)

#define Q_DROPOUT QR("pa", "attention_dropout", "0")

/* ---- gemma3n_text ------------------------------------------------------------------- */

/* Gemma3nTextConfig (google/gemma-3n-E4B). Every layer has, besides a Gemma 3
 * layer, AltUp (altup_num_inputs predictions of the residual stream: a router
 * Linear(h, n), n x n correction and n^2 x n prediction coefficients as
 * Linears, an output scale and a norm), a LAuReL low-rank residual
 * (linear_left/right of laurel_rank) and the per-layer-embedding input gate and
 * projection (hidden_size_per_layer_input); the model holds the per-layer
 * embedding table [vocab_size_per_layer_input, L x hp], its projection from h,
 * and n - 1 AltUp projections in and out. intermediate_size may be one value
 * per layer. The last num_kv_shared_layers layers reuse the keys and values of
 * the last earlier layer of their kind: no k_proj, v_proj, k_norm there
 * (is_kv_shared_layer: i >= L - kvs > 0). v_norm has no weight. */
static const llmmem__qdef q_gemma3n_text[] = {
    Q("V", "vocab_size", "262400", NULL, VOCAB), Q("h", "hidden_size", "2048", NULL, DIM),
    QL("f", "intermediate_size", "16384", NULL, DIM), Q("L", "num_hidden_layers", "35", NULL, LAYERS),
    Q("a", "num_attention_heads", "8", NULL, COUNT), Q("k", "num_key_value_heads", "2", NULL, COUNT),
    Q("d", "head_dim", "256", NULL, DIM), Q("pos", "max_position_embeddings", "32768", NULL, POS),
    Q("tie", "tie_word_embeddings", "1", NULL, BOOL), Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"),
    QD("mb", "0"), Q("sw", "sliding_window", "512", "0", POS), QRN("fsc", "final_logit_softcapping", "30", "0"),
    Q("Vp", "vocab_size_per_layer_input", "262144", NULL, VOCAB),
    Q("hp", "hidden_size_per_layer_input", "256", NULL, DIM0), Q("an", "altup_num_inputs", "4", NULL, COUNT),
    Q("lr", "laurel_rank", "64", NULL, DIM0), Q("kvs", "num_kv_shared_layers", "15", NULL, COUNT), QI,
    QDL("kvsh", "L - kvs > 0 && i >= L - kvs"), QD("qkn", "1"), Q_DROPOUT, QD("norm", "0"), QD("npl", "4"),
    QD("hb", "0"), QD("gated", "1"),
};
static const llmmem__tdef t_gemma3n_text[] = {
    EMBED_TOKENS,
    LINEAR("self_attn.q_proj", "a * d", "h", ATTN, W_ALL, "ab"),
    NORM("self_attn.q_norm", "d", "0", W_ALL),
    LINEAR_IF("self_attn.k_proj", "k * d", "h", ATTN, W_ALL, "ab", "!kvsh"),
    LINEAR_IF("self_attn.v_proj", "k * d", "h", ATTN, W_ALL, "ab", "!kvsh"),
    NORM_IF("self_attn.k_norm", "d", "0", W_ALL, "!kvsh"),
    LINEAR("self_attn.o_proj", "h", "a * d", ATTN, W_ALL, "ab"),
    LINEAR("mlp.gate_proj", "f", "h", MLP, W_ALL, "0"), LINEAR("mlp.up_proj", "f", "h", MLP, W_ALL, "0"),
    LINEAR("mlp.down_proj", "h", "f", MLP, W_ALL, "0"),
    GEMMA_NORMS,
    PARAM("altup.correct_output_scale", "h", NULL, NORM, W_ALL, NULL),
    LINEAR("altup.correction_coefs", "an", "an", ATTN, W_ALL, "0"),
    LINEAR("altup.prediction_coefs", "an * an", "an", ATTN, W_ALL, "0"),
    LINEAR("altup.modality_router", "an", "h", ATTN, W_ALL, "0"),
    NORM("altup.router_norm", "h", "0", W_ALL),
    LINEAR("laurel.linear_left", "lr", "h", ATTN, W_ALL, "0"),
    LINEAR("laurel.linear_right", "h", "lr", ATTN, W_ALL, "0"),
    NORM("laurel.post_laurel_norm", "h", "0", W_ALL),
    LINEAR("per_layer_input_gate", "hp", "h", MLP, W_ALL, "0"),
    LINEAR("per_layer_projection", "h", "hp", MLP, W_ALL, "0"),
    NORM("post_per_layer_input_norm", "h", "0", W_ALL),
    NORM("model.norm", "h", "0", W_ONCE),
    WEIGHT("model.embed_tokens_per_layer", "Vp", "L * hp", EMBED, W_ONCE),
    LINEAR("model.per_layer_model_projection", "L * hp", "h", ATTN, W_ONCE, "0"),
    NORM("model.per_layer_projection_norm", "hp", "0", W_ONCE),
    ONCE_N("model.altup_projections.{j}", "h", "h", ATTN, LLMMEM__TF_LINEAR, "an - 1"),
    ONCE_N("model.altup_unembed_projections.{j}", "h", "h", ATTN, LLMMEM__TF_LINEAR, "an - 1"),
    LM_HEAD,
};

/* ---- gemma4_text, gemma4_unified_text ------------------------------------------------- */

/* Gemma4TextConfig (google/gemma-4-e2b-it). A Gemma 3 layer whose attention
 * takes its head_dim and num_key_value_heads layer by layer (per_layer_config;
 * without one, the full-attention layers take global_head_dim and, with
 * attention_k_eq_v, num_global_key_value_heads); with attention_k_eq_v the
 * full-attention layers have no v_proj (values are the keys). The last
 * num_kv_shared_layers layers reuse earlier keys and values (no k/v
 * projections or k_norm; i >= L - kvs >= 0) and, with use_double_wide_mlp,
 * have an MLP twice as wide (i >= L - kvs > 0). hidden_size_per_layer_input
 * > 0 adds Gemma 3n's per-layer embeddings; enable_moe_block adds to every
 * layer a router (norm without weight, proj, scale, per_expert_scale),
 * num_experts fused experts and three more norms, beside the dense MLP. */
#define Q_GEMMA4(V, h, f, L, a, k, pos, sw)                                                                   \
    Q("V", "vocab_size", V, NULL, VOCAB), Q("h", "hidden_size", h, NULL, DIM),                                 \
        Q("f", "intermediate_size", f, NULL, DIM), Q("L", "num_hidden_layers", L, NULL, LAYERS),                \
        Q("a", "num_attention_heads", a, NULL, COUNT), Q("k", "num_key_value_heads", k, NULL, COUNT),           \
        Q("d", "head_dim", "256", NULL, DIM), Q("pos", "max_position_embeddings", pos, NULL, POS),              \
        Q("tie", "tie_word_embeddings", "1", NULL, BOOL), Q("ab", "attention_bias", "0", NULL, BOOL),           \
        QD("ob", "ab"), QD("mb", "0"), Q("sw", "sliding_window", sw, "0", POS),                                \
        QRN("fsc", "final_logit_softcapping", "0", "0"), Q("keqv", "attention_k_eq_v", "0", NULL, BOOL),        \
        Q("kvs", "num_kv_shared_layers", "0", NULL, COUNT), Q("dw", "use_double_wide_mlp", "0", NULL, BOOL),   \
        Q("gd", "global_head_dim", "512", NULL, DIM), Q("gk", "num_global_key_value_heads", "0", "0", COUNT),   \
        Q("plc", "per_layer_config#", "0", "0", COUNT), QI, QMX,                                               \
        QL("dl", "~head_dim", "!plc && mx == 0 ? gd : d", NULL, DIM),                                          \
        QL("kl", "~num_key_value_heads", "!plc && mx == 0 && keqv && gk > 0 ? gk : k", NULL, COUNT),           \
        QDL("kvsh", "L - kvs >= 0 && i >= L - kvs"), QDL("fl", "dw && L - kvs > 0 && i >= L - kvs ? 2 * f : f"), \
        QDL("vp", "!kvsh && !(keqv && mx != 1)"), QD("qkn", "1"), Q_DROPOUT, QD("norm", "0"), QD("npl", "4"),  \
        QD("hb", "0"), QD("gated", "1")

static const llmmem__qdef q_gemma4_text[] = {
    Q_GEMMA4("262144", "2304", "9216", "30", "8", "4", "131072", "512"),
    Q("Vp", "vocab_size_per_layer_input", "262144", NULL, VOCAB),
    Q("hp", "hidden_size_per_layer_input", "256", "0", DIM0),
    Q("moe", "enable_moe_block", "0", NULL, BOOL), Q("E0", "num_experts", "0", "0", COUNT),
    QD("E", "moe ? E0 : 0"), Q("K", "top_k_experts", "0", "0", COUNT),
    Q("fm", "moe_intermediate_size|expert_intermediate_size", "0", "0", DIM0), QD("fs", "moe ? f : 0"),
    QD("ns", "moe"),
};
/* The attention of both: q_proj/q_norm/o_proj on every layer, k/v only where not shared. */
#define GEMMA4_ATTN                                                                        \
    LINEAR("self_attn.q_proj", "a * dl", "h", ATTN, W_ALL, "ab"),                          \
        NORM("self_attn.q_norm", "dl", "0", W_ALL),                                        \
        NORM_IF("self_attn.k_norm", "dl", "0", W_ALL, "!kvsh"),                            \
        LINEAR_IF("self_attn.k_proj", "kl * dl", "h", ATTN, W_ALL, "ab", "!kvsh"),         \
        LINEAR_IF("self_attn.v_proj", "kl * dl", "h", ATTN, W_ALL, "ab", "vp"),            \
        LINEAR("self_attn.o_proj", "h", "a * dl", ATTN, W_ALL, "ab"),                      \
        LINEAR("mlp.gate_proj", "fl", "h", MLP, W_ALL, "0"), LINEAR("mlp.up_proj", "fl", "h", MLP, W_ALL, "0"), \
        LINEAR("mlp.down_proj", "h", "fl", MLP, W_ALL, "0"), GEMMA_NORMS
static const llmmem__tdef t_gemma4_text[] = {
    EMBED_TOKENS,
    GEMMA4_ATTN,
    LINEAR_IF("per_layer_input_gate", "hp", "h", MLP, W_ALL, "0", "hp > 0"),
    LINEAR_IF("per_layer_projection", "h", "hp", MLP, W_ALL, "0", "hp > 0"),
    NORM_IF("post_per_layer_input_norm", "h", "0", W_ALL, "hp > 0"),
    LINEAR("router.proj", "E", "h", ROUTER, MOE_LAYERS, "0"),
    PARAM("router.scale", "h", NULL, ROUTER, MOE_LAYERS, NULL),
    PARAM("router.per_expert_scale", "E", NULL, ROUTER, MOE_LAYERS, NULL),
    PARAM("experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL),
    NORM("post_feedforward_layernorm_1", "h", "0", MOE_LAYERS),
    NORM("post_feedforward_layernorm_2", "h", "0", MOE_LAYERS),
    NORM("pre_feedforward_layernorm_2", "h", "0", MOE_LAYERS),
    NORM("model.norm", "h", "0", W_ONCE),
    WEIGHT_IF("model.embed_tokens_per_layer", "Vp", "L * hp", EMBED, W_ONCE, "hp > 0"),
    LINEAR_IF("model.per_layer_model_projection", "L * hp", "h", ATTN, W_ONCE, "0", "hp > 0"),
    NORM_IF("model.per_layer_projection_norm", "hp", "0", W_ONCE, "hp > 0"),
    LM_HEAD,
};
/* Gemma4DecoderLayer: every layer MoE with enable_moe_block. */
#define GEMMA4_FFN {LLMMEM__FR_EXPR, NULL, NULL, 0, 0, "moe && E > 0 ? 1 : 0", NULL, NULL}
#define GEMMA4_MIXER                                                                                        \
    MIXER_LIST("layer_types", "sliding_attention=1,full_attention=0", LLMMEM__MR_PERIODIC, "6", "1", 0, 1, \
               NULL)

/* Gemma4UnifiedTextConfig: Gemma 4's text model without per-layer embeddings or
 * MoE, a 1024 window, 262144 positions. */
static const llmmem__qdef q_gemma4_unified_text[] = {
    Q_GEMMA4("262144", "2304", "9216", "30", "8", "4", "262144", "1024"),
};
static const llmmem__tdef t_gemma4_unified_text[] = {
    EMBED_TOKENS, GEMMA4_ATTN, NORM("model.norm", "h", "0", W_ONCE), LM_HEAD,
};

/* ---- llama4_text -------------------------------------------------------------------- */

/* Llama4TextConfig (Llama-4-Scout-17B-16E). MoE layers (moe_layers, else every
 * interleave_moe_layer_step-th) hold a router Linear(h, E), E fused experts of
 * intermediate_size ([E, h, 2f] and [E, f, h]) and a shared expert of the same
 * width; the other layers a dense MLP of intermediate_size_mlp. Layers that
 * use RoPE (no_rope_layers[i] = 1, by default all but every
 * no_rope_layer_interval-th) attend within attention_chunk_size chunks, the
 * others attend fully without RoPE (temperature-tuned queries); use_qk_norm is
 * a weightless L2 norm on the RoPE layers. */
static const llmmem__qdef q_llama4_text[] = {
    Q("V", "vocab_size", "202048", NULL, VOCAB), Q("h", "hidden_size", "5120", NULL, DIM),
    Q("f", "intermediate_size_mlp", "16384", NULL, DIM), Q("fm", "intermediate_size", "8192", NULL, DIM),
    QD("fs", "fm"), QD("ns", "1"), Q("L", "num_hidden_layers", "48", NULL, LAYERS),
    Q("a", "num_attention_heads", "40", NULL, COUNT), Q("k", "num_key_value_heads", "8", "a", COUNT),
    Q("d", "head_dim", "128", "h / a", DIM), Q("pos", "max_position_embeddings", "131072", NULL, POS),
    Q("tie", "tie_word_embeddings", "0", NULL, BOOL), Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"),
    QD("mb", "0"), Q("E", "num_local_experts", "16", NULL, COUNT), Q("K", "num_experts_per_tok", "1", NULL, COUNT),
    Q("step", "interleave_moe_layer_step", "1", NULL, LAYERS), Q("cw", "attention_chunk_size", "8192", "0", POS),
    Q("nri", "no_rope_layer_interval", "4", NULL, LAYERS), Q("qkn", "use_qk_norm", "1", NULL, BOOL), QI, Q_DROPOUT,
    QD("norm", "0"), QD("npl", "2"), QD("hb", "0"), QD("gated", "1"),
};
static const llmmem__tdef t_llama4_text[] = {
    EMBED_TOKENS,
    LINEAR("self_attn.q_proj", "a * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.k_proj", "k * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.v_proj", "k * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.o_proj", "h", "a * d", ATTN, W_ALL, "ab"),
    LINEAR("feed_forward.gate_proj", "f", "h", MLP, DENSE_LAYERS, "0"),
    LINEAR("feed_forward.up_proj", "f", "h", MLP, DENSE_LAYERS, "0"),
    LINEAR("feed_forward.down_proj", "h", "f", MLP, DENSE_LAYERS, "0"),
    LINEAR("feed_forward.router", "E", "h", ROUTER, MOE_LAYERS, "0"),
    PARAM("feed_forward.experts.gate_up_proj", "E * h", "2 * fm", EXPERT, MOE_LAYERS, NULL),
    PARAM("feed_forward.experts.down_proj", "E * fm", "h", EXPERT, MOE_LAYERS, NULL),
    LINEAR("feed_forward.shared_expert.gate_proj", "fs", "h", MLP, MOE_LAYERS, "0"),
    LINEAR("feed_forward.shared_expert.up_proj", "fs", "h", MLP, MOE_LAYERS, "0"),
    LINEAR("feed_forward.shared_expert.down_proj", "h", "fs", MLP, MOE_LAYERS, "0"),
    NORM("input_layernorm", "h", "0", W_ALL), NORM("post_attention_layernorm", "h", "0", W_ALL),
    NORM("model.norm", "h", "0", W_ONCE), LM_HEAD,
};
#define LLAMA4_MIXER                                                                                   \
    MIXER_LIST("layer_types|no_rope_layers", "chunked_attention=2,full_attention=0,1=2,0=0", LLMMEM__MR_EXPR, \
               NULL, NULL, 0, 0, "(i + 1) % nri != 0 ? 2 : 0")

/* ---- the text families ----------------------------------------------------------------- */

const llmmem__arch llmmem__fam_multimodal[] = {
    {"gemma3n_text", LLMMEM__FAM_GEMMA, ROWS(q_gemma3n_text), ROWS(t_gemma3n_text),
     MIXER_LIST("layer_types", "sliding_attention=1,full_attention=0", LLMMEM__MR_PERIODIC, "5", "1", 0, 1, NULL),
     FFN_DENSE, LLMMEM__NORM_RMS, LLMMEM__ACT_GELU_TANH_GLU,
     "modeling_gemma3n.py: AltUp, LAuReL, per-layer embeddings, KV-shared last layers, per-layer MLP width"},
    {"gemma4_text", LLMMEM__FAM_GEMMA, ROWS(q_gemma4_text), ROWS(t_gemma4_text), GEMMA4_MIXER, GEMMA4_FFN,
     LLMMEM__NORM_RMS, LLMMEM__ACT_GELU_TANH_GLU,
     "modeling_gemma4.py: per-layer head_dim/KV heads, k=v, KV-shared layers, per-layer embeddings, MoE block"},
    {"gemma4_unified_text", LLMMEM__FAM_GEMMA, ROWS(q_gemma4_unified_text), ROWS(t_gemma4_unified_text),
     GEMMA4_MIXER, FFN_DENSE, LLMMEM__NORM_RMS, LLMMEM__ACT_GELU_TANH_GLU,
     "modeling_gemma4_unified.py: Gemma 4's text model without per-layer embeddings or MoE"},
    {"llama4_text", LLMMEM__FAM_LLAMA, ROWS(q_llama4_text), ROWS(t_llama4_text), LLAMA4_MIXER,
     FFN_RULE(LLMMEM__FR_MOE_LIST, "step", NULL, "moe_layers"), LLMMEM__NORM_RMS, LLMMEM__ACT_SILU_GLU,
     "modeling_llama4.py: chunked attention on RoPE layers, MoE layer list, shared expert"},
};
const int llmmem__fam_multimodal_count = (int)LLMMEM_ARRAY_LEN(llmmem__fam_multimodal);

const llmmem__arch llmmem__towers_multimodal[] = {
    {"none", 0, NULL, 0, NULL, 0, MIXER_FULL, FFN_DENSE, 0, 0, "placeholder"},
};
const int llmmem__towers_multimodal_count = 0;
const llmmem__composite llmmem__composites_multimodal[] = {
    {"none", NULL, NULL, NULL, NULL, NULL, {{0}}, NULL, 0, NULL, 0, "placeholder"},
};
const int llmmem__composites_multimodal_count = 0;
