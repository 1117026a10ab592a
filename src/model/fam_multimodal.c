/* The Gemma 3n / Gemma 4 and Llama 4 text models, and the multimodal
 * composites (a ForConditionalGeneration model: text model + towers +
 * projectors, registry.h "composites") with their towers. Modeling files are
 * huggingface/transformers src/transformers/models/<type>/modeling_<type>.py
 * (5.17); defaults are those of configuration_<type>.py. */
#include "model/families.h"

#define GEMMA_NORMS                                                                               \
    NORM("input_layernorm", "h", "0", W_ALL), NORM("post_attention_layernorm", "h", "0", W_ALL),   \
        NORM("pre_feedforward_layernorm", "h", "0", W_ALL),                                       \
        NORM("post_feedforward_layernorm", "h", "0", W_ALL)
/* a row repeated `n` times outside the decoder layers (a tower's layers, a ModuleList) */
#define ONCE_N(name, rows, cols, kind, flags, n) {name, rows, cols, T_(kind), flags, W_ONCE, NULL, n}
#define ONCE_N_IF(name, rows, cols, kind, flags, n, when) {name, rows, cols, T_(kind), flags, W_ONCE, when, n}
/* nn.Linear(in, out) repeated n times outside the decoder layers, bias when `bias` */
#define LINEAR_ONCE_N(name, out, in, kind, bias, n)                                                    \
    ONCE_N(name, out, in, kind, LLMMEM__TF_LINEAR, n), ONCE_N_IF(name, out, NULL, kind, LLMMEM__TF_BIAS, n, bias)
/* LayerNorm (weight + bias when `bias`) or RMSNorm (bias "0") of width w, n times */
#define NORM_ONCE_N(name, w, bias, n) ONCE_N(name, w, NULL, NORM, 0, n), ONCE_N_IF(name, w, NULL, NORM, 0, n, bias)


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
    HEAD_NOBIAS("lm_head"),
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
    HEAD_NOBIAS("lm_head"),
};
/* Gemma4DecoderLayer: every layer MoE with enable_moe_block. */
#define GEMMA4_FFN FFN_EXPR("moe && E > 0 ? 1 : 0")
#define GEMMA4_MIXER                                                                                        \
    MIXER_LIST("layer_types", "sliding_attention=1,full_attention=0", LLMMEM__MR_PERIODIC, "6", "1", 0, 1, \
               NULL)

/* Gemma4UnifiedTextConfig: Gemma 4's text model without per-layer embeddings or
 * MoE, a 1024 window, 262144 positions. */
static const llmmem__qdef q_gemma4_unified_text[] = {
    Q_GEMMA4("262144", "2304", "9216", "30", "8", "4", "262144", "1024"),
};
static const llmmem__tdef t_gemma4_unified_text[] = {
    EMBED_TOKENS, GEMMA4_ATTN, NORM("model.norm", "h", "0", W_ONCE), HEAD_NOBIAS("lm_head"),
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
    NORM("model.norm", "h", "0", W_ONCE), HEAD_NOBIAS("lm_head"),
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

/* ---- towers ----------------------------------------------------------------------- */

/* A tower's rows lie outside the decoder layers: its layers are W_ONCE rows
 * counted L times, named with "{j}" for the layer index as the modeling code
 * nests them; the composite's part gives the path before them. */

/* SiglipVisionModel (modeling_siglip.py; Gemma 3's vision tower): Conv2d patch
 * embedding with bias, learned positions, pre-norm layers with biased
 * q/k/v/out_proj and fc1/fc2, post_layernorm, and unless vision_use_head is
 * false the attention-pooling head (probe, nn.MultiheadAttention's packed
 * in_proj and out_proj, LayerNorm, MLP). */
static const llmmem__qdef q_siglip[] = {
    Q("h", "hidden_size", "768", NULL, DIM), Q("f", "intermediate_size", "3072", NULL, DIM),
    Q("L", "num_hidden_layers", "12", NULL, LAYERS), Q("a", "num_attention_heads", "12", NULL, COUNT),
    Q("ch", "num_channels", "3", NULL, COUNT), Q("img", "image_size", "224", NULL, POS),
    Q("p", "patch_size", "16", NULL, DIM), Q("head", "vision_use_head", "1", NULL, BOOL),
    QD("np", "(img / p) * (img / p)"),
};
#define SIGLIP_LAYER(x) "encoder.layers.{j}." x
static const llmmem__tdef t_siglip[] = {
    ONCE_N("embeddings.patch_embedding", "h", "ch * p * p", EMBED, 0, "1"),
    ONCE_N("embeddings.patch_embedding", "h", NULL, EMBED, LLMMEM__TF_BIAS, "1"),
    ONCE_N("embeddings.position_embedding", "np", "h", EMBED, 0, "1"),
    NORM_ONCE_N(SIGLIP_LAYER("layer_norm1"), "h", "1", "L"),
    LINEAR_ONCE_N(SIGLIP_LAYER("self_attn.k_proj"), "h", "h", ATTN, "1", "L"),
    LINEAR_ONCE_N(SIGLIP_LAYER("self_attn.v_proj"), "h", "h", ATTN, "1", "L"),
    LINEAR_ONCE_N(SIGLIP_LAYER("self_attn.q_proj"), "h", "h", ATTN, "1", "L"),
    LINEAR_ONCE_N(SIGLIP_LAYER("self_attn.out_proj"), "h", "h", ATTN, "1", "L"),
    NORM_ONCE_N(SIGLIP_LAYER("layer_norm2"), "h", "1", "L"),
    LINEAR_ONCE_N(SIGLIP_LAYER("mlp.fc1"), "f", "h", MLP, "1", "L"),
    LINEAR_ONCE_N(SIGLIP_LAYER("mlp.fc2"), "h", "f", MLP, "1", "L"),
    NORM_ONCE_N("post_layernorm", "h", "1", "1"),
    ONCE_N("head.probe", "1", "h", ATTN, 0, "head"),
    ONCE_N("head.attention.in_proj_weight", "3 * h", "h", ATTN, 0, "head"),
    ONCE_N("head.attention.in_proj_bias", "3 * h", NULL, ATTN, 0, "head"),
    LINEAR_ONCE_N("head.attention.out_proj", "h", "h", ATTN, "1", "head"),
    NORM_ONCE_N("head.layernorm", "h", "1", "head"),
    LINEAR_ONCE_N("head.mlp.fc1", "f", "h", MLP, "1", "head"),
    LINEAR_ONCE_N("head.mlp.fc2", "h", "f", MLP, "1", "head"),
};

/* Gemma4VisionModel (modeling_gemma4.py): a linear patch embedder (3 p^2 -> h)
 * with a [2, position_embedding_size, h] table of factorised positions, then
 * Gemma 4 layers of Gemma4ClippableLinear (an nn.Linear named "linear" inside)
 * q/k/v/o and gated MLP, q/k norms (v_norm has no weight) and four norms. */
static const llmmem__qdef q_gemma4_vision[] = {
    Q("h", "hidden_size", "768", NULL, DIM), Q("f", "intermediate_size", "3072", NULL, DIM),
    Q("L", "num_hidden_layers", "16", NULL, LAYERS), Q("a", "num_attention_heads", "12", NULL, COUNT),
    Q("k", "num_key_value_heads", "12", NULL, COUNT), Q("d", "head_dim", "64", NULL, DIM),
    Q("p", "patch_size", "16", NULL, DIM), Q("pes", "position_embedding_size", "10240", NULL, POS),
};
#define G4V_LAYER(x) "encoder.layers.{j}." x
static const llmmem__tdef t_gemma4_vision[] = {
    ONCE_N("patch_embedder.position_embedding_table", "2 * pes", "h", EMBED, 0, "1"),
    LINEAR_ONCE_N("patch_embedder.input_proj", "h", "3 * p * p", EMBED, "0", "1"),
    LINEAR_ONCE_N(G4V_LAYER("self_attn.q_proj.linear"), "a * d", "h", ATTN, "0", "L"),
    LINEAR_ONCE_N(G4V_LAYER("self_attn.k_proj.linear"), "k * d", "h", ATTN, "0", "L"),
    LINEAR_ONCE_N(G4V_LAYER("self_attn.v_proj.linear"), "k * d", "h", ATTN, "0", "L"),
    LINEAR_ONCE_N(G4V_LAYER("self_attn.o_proj.linear"), "h", "a * d", ATTN, "0", "L"),
    NORM_ONCE_N(G4V_LAYER("self_attn.q_norm"), "d", "0", "L"),
    NORM_ONCE_N(G4V_LAYER("self_attn.k_norm"), "d", "0", "L"),
    LINEAR_ONCE_N(G4V_LAYER("mlp.gate_proj.linear"), "f", "h", MLP, "0", "L"),
    LINEAR_ONCE_N(G4V_LAYER("mlp.up_proj.linear"), "f", "h", MLP, "0", "L"),
    LINEAR_ONCE_N(G4V_LAYER("mlp.down_proj.linear"), "h", "f", MLP, "0", "L"),
    NORM_ONCE_N(G4V_LAYER("input_layernorm"), "h", "0", "L"),
    NORM_ONCE_N(G4V_LAYER("post_attention_layernorm"), "h", "0", "L"),
    NORM_ONCE_N(G4V_LAYER("pre_feedforward_layernorm"), "h", "0", "L"),
    NORM_ONCE_N(G4V_LAYER("post_feedforward_layernorm"), "h", "0", "L"),
};

/* Gemma4AudioModel (modeling_gemma4.py, a Universal Speech Model conformer):
 * two strided 3x3 Conv2d (subsampling_conv_channels, LayerNorm without bias)
 * and a Linear from (c0 / 4) x c1 to h; per layer two macaron feed-forwards
 * (4h, pre/post norms), chunked local attention with a relative-position key
 * projection and a per-dimension scale, a light conv block (Linear to 2h for
 * the GLU, depthwise Conv1d of conv_kernel_size, Linear, two norms) and three
 * norms; output_proj (biased) to output_proj_dims. */
static const llmmem__qdef q_gemma4_audio[] = {
    Q("h", "hidden_size", "1024", NULL, DIM), Q("L", "num_hidden_layers", "12", NULL, LAYERS),
    Q("a", "num_attention_heads", "8", NULL, COUNT), Q("c0", "subsampling_conv_channels.0", "128", NULL, DIM),
    Q("c1", "subsampling_conv_channels.1", "32", NULL, DIM), Q("ck", "conv_kernel_size", "5", NULL, DIM),
    Q("op", "output_proj_dims", "1536", NULL, DIM), QD("d", "h / a"),
};
#define G4A_LAYER(x) "layers.{j}." x
#define G4A_FFW(n)                                                                            \
    LINEAR_ONCE_N(G4A_LAYER(n ".ffw_layer_1.linear"), "4 * h", "h", MLP, "0", "L"),                \
        LINEAR_ONCE_N(G4A_LAYER(n ".ffw_layer_2.linear"), "h", "4 * h", MLP, "0", "L"),            \
        NORM_ONCE_N(G4A_LAYER(n ".pre_layer_norm"), "h", "0", "L"),                                \
        NORM_ONCE_N(G4A_LAYER(n ".post_layer_norm"), "h", "0", "L")
static const llmmem__tdef t_gemma4_audio[] = {
    ONCE_N("subsample_conv_projection.layer0.conv", "c0", "9", EMBED, 0, "1"),
    NORM_ONCE_N("subsample_conv_projection.layer0.norm", "c0", "0", "1"),
    ONCE_N("subsample_conv_projection.layer1.conv", "c1", "c0 * 9", EMBED, 0, "1"),
    NORM_ONCE_N("subsample_conv_projection.layer1.norm", "c1", "0", "1"),
    LINEAR_ONCE_N("subsample_conv_projection.input_proj_linear", "h", "c0 / 4 * c1", EMBED, "0", "1"),
    G4A_FFW("feed_forward1"), G4A_FFW("feed_forward2"),
    ONCE_N(G4A_LAYER("self_attn.per_dim_scale"), "d", NULL, ATTN, 0, "L"),
    LINEAR_ONCE_N(G4A_LAYER("self_attn.q_proj.linear"), "a * d", "h", ATTN, "0", "L"),
    LINEAR_ONCE_N(G4A_LAYER("self_attn.k_proj.linear"), "a * d", "h", ATTN, "0", "L"),
    LINEAR_ONCE_N(G4A_LAYER("self_attn.v_proj.linear"), "a * d", "h", ATTN, "0", "L"),
    LINEAR_ONCE_N(G4A_LAYER("self_attn.post.linear"), "h", "h", ATTN, "0", "L"),
    LINEAR_ONCE_N(G4A_LAYER("self_attn.relative_k_proj"), "a * d", "h", ATTN, "0", "L"),
    LINEAR_ONCE_N(G4A_LAYER("lconv1d.linear_start.linear"), "2 * h", "h", MLP, "0", "L"),
    LINEAR_ONCE_N(G4A_LAYER("lconv1d.linear_end.linear"), "h", "h", MLP, "0", "L"),
    ONCE_N(G4A_LAYER("lconv1d.depthwise_conv1d"), "h", "ck", MLP, 0, "L"),
    NORM_ONCE_N(G4A_LAYER("lconv1d.pre_layer_norm"), "h", "0", "L"),
    NORM_ONCE_N(G4A_LAYER("lconv1d.conv_norm"), "h", "0", "L"),
    NORM_ONCE_N(G4A_LAYER("norm_pre_attn"), "h", "0", "L"),
    NORM_ONCE_N(G4A_LAYER("norm_post_attn"), "h", "0", "L"),
    NORM_ONCE_N(G4A_LAYER("norm_out"), "h", "0", "L"),
    LINEAR_ONCE_N("output_proj", "op", "h", MLP, "1", "1"),
};

/* Gemma4UnifiedVisionEmbedder (modeling_gemma4_unified.py): no encoder; merged
 * (patch_size x pooling_kernel_size)^2 x 3 pixel patches go through LayerNorm,
 * a biased Linear to mm_embed_dim and LayerNorm, plus factorised positions
 * [mm_posemb_size, 2, mm_embed_dim] and a LayerNorm. Its projection to the
 * text width is the composite's. The audio embedder has nothing but that
 * projection (gemma4_unified_audio). */
static const llmmem__qdef q_gemma4u_vision[] = {
    Q("p", "patch_size", "16", NULL, DIM), Q("pk", "pooling_kernel_size", "3", NULL, DIM),
    Q("me", "mm_embed_dim", "3840", NULL, DIM), Q("mp", "mm_posemb_size", "1120", NULL, POS),
    Q("op", "output_proj_dims", "3840", NULL, DIM), QD("pd", "(p * pk) * (p * pk) * 3"),
};
static const llmmem__tdef t_gemma4u_vision[] = {
    ONCE_N("pos_embedding", "mp * 2", "me", EMBED, 0, "1"),
    NORM_ONCE_N("patch_ln1", "pd", "1", "1"),
    LINEAR_ONCE_N("patch_dense", "me", "pd", EMBED, "1", "1"),
    NORM_ONCE_N("patch_ln2", "me", "1", "1"),
    NORM_ONCE_N("pos_norm", "me", "1", "1"),
};
static const llmmem__qdef q_gemma4u_audio[] = {
    Q("op", "audio_embed_dim|output_proj_dims|hidden_size|audio_samples_per_token", "640", NULL, DIM),
};

/* Llama4VisionModel (modeling_llama4.py): an unfolded-patch Linear (no bias),
 * a class embedding and learned positions ((image/patch)^2 + 1), LayerNorms
 * before and after, layers of biased q/k/v/o and fc1/fc2 with two LayerNorms
 * (under "model.layers"), and the pixel-shuffle adapter's bias-free MLP
 * (intermediate_size -> projector_input_dim, projector_output_dim square). */
static const llmmem__qdef q_llama4_vision[] = {
    Q("h", "hidden_size", "768", NULL, DIM), Q("f", "intermediate_size", "5632", NULL, DIM),
    Q("L", "num_hidden_layers", "34", NULL, LAYERS), Q("a", "num_attention_heads", "16", NULL, COUNT),
    Q("ch", "num_channels", "3", NULL, COUNT), Q("img", "image_size", "448", NULL, POS),
    Q("p", "patch_size", "14", NULL, DIM), Q("pin", "projector_input_dim", "4096", NULL, DIM),
    Q("pout", "projector_output_dim", "4096", NULL, DIM), Q("vo", "vision_output_dim", "7680", NULL, DIM),
    QD("np", "(img / p) * (img / p) + 1"), QD("d", "h / a"),
};
#define L4V_LAYER(x) "model.layers.{j}." x
static const llmmem__tdef t_llama4_vision[] = {
    LINEAR_ONCE_N("patch_embedding.linear", "h", "ch * p * p", EMBED, "0", "1"),
    ONCE_N("class_embedding", "h", NULL, EMBED, 0, "1"),
    ONCE_N("positional_embedding_vlm", "np", "h", EMBED, 0, "1"),
    NORM_ONCE_N("layernorm_pre", "h", "1", "1"), NORM_ONCE_N("layernorm_post", "h", "1", "1"),
    LINEAR_ONCE_N(L4V_LAYER("self_attn.q_proj"), "a * d", "h", ATTN, "1", "L"),
    LINEAR_ONCE_N(L4V_LAYER("self_attn.k_proj"), "a * d", "h", ATTN, "1", "L"),
    LINEAR_ONCE_N(L4V_LAYER("self_attn.v_proj"), "a * d", "h", ATTN, "1", "L"),
    LINEAR_ONCE_N(L4V_LAYER("self_attn.o_proj"), "h", "a * d", ATTN, "1", "L"),
    LINEAR_ONCE_N(L4V_LAYER("mlp.fc1"), "f", "h", MLP, "1", "L"),
    LINEAR_ONCE_N(L4V_LAYER("mlp.fc2"), "h", "f", MLP, "1", "L"),
    NORM_ONCE_N(L4V_LAYER("input_layernorm"), "h", "1", "L"),
    NORM_ONCE_N(L4V_LAYER("post_attention_layernorm"), "h", "1", "L"),
    LINEAR_ONCE_N("vision_adapter.mlp.fc1", "pin", "f", MLP, "0", "1"),
    LINEAR_ONCE_N("vision_adapter.mlp.fc2", "pout", "pout", MLP, "0", "1"),
};

/* Qwen3_5VisionModel (modeling_qwen3_5.py, also Qwen3.5-MoE's): a biased
 * Conv3d patch embedding (temporal_patch_size x patch_size^2), an
 * nn.Embedding of num_position_embeddings interpolated positions, blocks of
 * LayerNorms, fused qkv and proj, linear_fc1/fc2 (all biased), and the patch
 * merger (LayerNorm, spatial_merge_size^2 x h square Linear, Linear to
 * out_hidden_size) that is its projector. */
static const llmmem__qdef q_qwen3_5_vision[] = {
    Q("h", "hidden_size", "1152", NULL, DIM), Q("f", "intermediate_size", "4304", NULL, DIM),
    Q("L", "depth", "27", NULL, LAYERS), Q("a", "num_heads", "16", NULL, COUNT),
    Q("ch", "in_channels", "3", NULL, COUNT), Q("p", "patch_size", "16", NULL, DIM),
    Q("tp", "temporal_patch_size", "2", NULL, DIM), Q("m", "spatial_merge_size", "2", NULL, DIM),
    Q("oh", "out_hidden_size", "3584", NULL, DIM), Q("npe", "num_position_embeddings", "2304", NULL, POS),
    QD("mh", "h * m * m"),
};
#define Q35V_BLOCK(x) "blocks.{j}." x
static const llmmem__tdef t_qwen3_5_vision[] = {
    ONCE_N("patch_embed.proj", "h", "ch * tp * p * p", EMBED, 0, "1"),
    ONCE_N("patch_embed.proj", "h", NULL, EMBED, LLMMEM__TF_BIAS, "1"),
    ONCE_N("pos_embed", "npe", "h", EMBED, 0, "1"),
    NORM_ONCE_N(Q35V_BLOCK("norm1"), "h", "1", "L"), NORM_ONCE_N(Q35V_BLOCK("norm2"), "h", "1", "L"),
    LINEAR_ONCE_N(Q35V_BLOCK("attn.qkv"), "3 * h", "h", ATTN, "1", "L"),
    LINEAR_ONCE_N(Q35V_BLOCK("attn.proj"), "h", "h", ATTN, "1", "L"),
    LINEAR_ONCE_N(Q35V_BLOCK("mlp.linear_fc1"), "f", "h", MLP, "1", "L"),
    LINEAR_ONCE_N(Q35V_BLOCK("mlp.linear_fc2"), "h", "f", MLP, "1", "L"),
    NORM_ONCE_N("merger.norm", "h", "1", "1"),
    LINEAR_ONCE_N("merger.linear_fc1", "mh", "mh", MLP, "1", "1"),
    LINEAR_ONCE_N("merger.linear_fc2", "oh", "mh", MLP, "1", "1"),
};

/* PixtralVisionModel (modeling_pixtral.py; Mistral 3's vision tower): a Conv2d
 * patch embedding without bias, RMSNorm ln_pre, and layers of bias-free
 * q/k/v/o and gated MLP with attention_norm / ffn_norm. */
static const llmmem__qdef q_pixtral[] = {
    Q("h", "hidden_size", "1024", NULL, DIM), Q("f", "intermediate_size", "4096", NULL, DIM),
    Q("L", "num_hidden_layers", "24", NULL, LAYERS), Q("a", "num_attention_heads", "16", NULL, COUNT),
    Q("ch", "num_channels", "3", NULL, COUNT), Q("p", "patch_size", "16", NULL, DIM),
    Q("img", "image_size", "1024", NULL, POS),
};
#define PIX_LAYER(x) "transformer.layers.{j}." x
static const llmmem__tdef t_pixtral[] = {
    ONCE_N("patch_conv", "h", "ch * p * p", EMBED, 0, "1"),
    NORM_ONCE_N("ln_pre", "h", "0", "1"),
    NORM_ONCE_N(PIX_LAYER("attention_norm"), "h", "0", "L"),
    LINEAR_ONCE_N(PIX_LAYER("feed_forward.gate_proj"), "f", "h", MLP, "0", "L"),
    LINEAR_ONCE_N(PIX_LAYER("feed_forward.up_proj"), "f", "h", MLP, "0", "L"),
    LINEAR_ONCE_N(PIX_LAYER("feed_forward.down_proj"), "h", "f", MLP, "0", "L"),
    LINEAR_ONCE_N(PIX_LAYER("attention.k_proj"), "h", "h", ATTN, "0", "L"),
    LINEAR_ONCE_N(PIX_LAYER("attention.v_proj"), "h", "h", ATTN, "0", "L"),
    LINEAR_ONCE_N(PIX_LAYER("attention.q_proj"), "h", "h", ATTN, "0", "L"),
    LINEAR_ONCE_N(PIX_LAYER("attention.o_proj"), "h", "h", ATTN, "0", "L"),
    NORM_ONCE_N(PIX_LAYER("ffn_norm"), "h", "0", "L"),
};

#define TOWER(type, q, t, about) \
    {type, LLMMEM__FAM_LLAMA, ROWS(q), ROWS(t), MIXER_FULL, FFN_DENSE, LLMMEM__NORM_LAYER, LLMMEM__ACT_GELU, about}
#define TOWER_NT(type, q, about) \
    {type, LLMMEM__FAM_LLAMA, ROWS(q), NULL, 0, MIXER_FULL, FFN_DENSE, LLMMEM__NORM_LAYER, LLMMEM__ACT_GELU, about}

const llmmem__arch llmmem__towers_multimodal[] = {
    TOWER("siglip_vision_model", q_siglip, t_siglip, "modeling_siglip.py SiglipVisionModel"),
    TOWER("gemma4_vision", q_gemma4_vision, t_gemma4_vision, "modeling_gemma4.py Gemma4VisionModel"),
    TOWER("gemma4_audio", q_gemma4_audio, t_gemma4_audio, "modeling_gemma4.py Gemma4AudioModel (conformer)"),
    TOWER("gemma4_unified_vision", q_gemma4u_vision, t_gemma4u_vision,
          "modeling_gemma4_unified.py Gemma4UnifiedVisionEmbedder (no encoder)"),
    TOWER_NT("gemma4_unified_audio", q_gemma4u_audio,
             "modeling_gemma4_unified.py: raw audio frames, projected by the composite"),
    TOWER("llama4_vision_model", q_llama4_vision, t_llama4_vision, "modeling_llama4.py Llama4VisionModel"),
    TOWER("qwen3_5_vision", q_qwen3_5_vision, t_qwen3_5_vision, "modeling_qwen3_5.py Qwen3_5VisionModel"),
    TOWER("qwen3_5_moe_vision", q_qwen3_5_vision, t_qwen3_5_vision,
          "modeling_qwen3_5_moe.py Qwen3_5MoeVisionModel (Qwen3.5's)"),
    TOWER("pixtral", q_pixtral, t_pixtral, "modeling_pixtral.py PixtralVisionModel"),
};
const int llmmem__towers_multimodal_count = (int)LLMMEM_ARRAY_LEN(llmmem__towers_multimodal);

/* ---- composites ------------------------------------------------------------------ */

/* Gemma3ForConditionalGeneration: SigLIP, and Gemma3MultiModalProjector (an
 * RMSNorm of the tower width and a [vision h, text h] parameter after the
 * average pool to mm_tokens_per_image). */
static const llmmem__qdef q_gemma3[] = {
    Q("tie", "tie_word_embeddings", "1", NULL, BOOL), Q("mm", "mm_tokens_per_image", "256", NULL, POS),
    Q("vh", "@vision.h", "0", NULL, DIM0), Q("th", "@text.h", "0", NULL, DIM0),
};
static const llmmem__tdef t_gemma3[] = {
    ONCE_N("model.multi_modal_projector.mm_input_projection_weight", "vh", "th", MLP, 0, "1"),
    NORM_ONCE_N("model.multi_modal_projector.mm_soft_emb_norm", "vh", "0", "1"),
};

/* Gemma4ForConditionalGeneration: towers only where the config has their
 * sub-objects; each feeds the text model through Gemma4MultimodalEmbedder (an
 * RMSNorm without weight and a Linear to the text width). */
static const llmmem__qdef q_gemma4[] = {
    Q("tie", "tie_word_embeddings", "1", NULL, BOOL), Q("hv", "@vision", "0", NULL, BOOL),
    Q("vh", "@vision.h", "0", NULL, DIM0), Q("ha", "@audio", "0", NULL, BOOL), Q("ao", "@audio.op", "0", NULL, DIM0),
    Q("th", "@text.h", "0", NULL, DIM0),
};
static const llmmem__tdef t_gemma4[] = {
    ONCE_N_IF("model.embed_vision.embedding_projection", "th", "vh", MLP, LLMMEM__TF_LINEAR, "1", "hv"),
    ONCE_N_IF("model.embed_audio.embedding_projection", "th", "ao", MLP, LLMMEM__TF_LINEAR, "1", "ha"),
};
/* Gemma4UnifiedForConditionalGeneration: the vision embedder's last projection
 * and the audio projection. */
static const llmmem__qdef q_gemma4_unified[] = {
    Q("tie", "tie_word_embeddings", "1", NULL, BOOL), Q("hv", "@vision", "0", NULL, BOOL),
    Q("vo", "@vision.op", "0", NULL, DIM0), Q("ha", "@audio", "0", NULL, BOOL), Q("ao", "@audio.op", "0", NULL, DIM0),
    Q("th", "@text.h", "0", NULL, DIM0),
};
static const llmmem__tdef t_gemma4_unified[] = {
    ONCE_N_IF("model.embed_vision.multimodal_embedder.embedding_projection", "th", "vo", MLP, LLMMEM__TF_LINEAR, "1",
              "hv"),
    ONCE_N_IF("model.embed_audio.embedding_projection", "th", "ao", MLP, LLMMEM__TF_LINEAR, "1", "ha"),
};

/* Llama4ForConditionalGeneration: Llama4MultiModalProjector, one bias-free
 * Linear from vision_output_dim to the text width; the text model is a whole
 * Llama4ForCausalLM under "language_model". */
static const llmmem__qdef q_llama4[] = {
    Q("tie", "tie_word_embeddings", "0", NULL, BOOL), Q("vo", "@vision.vo", "0", NULL, DIM0),
    Q("th", "@text.h", "0", NULL, DIM0),
};
static const llmmem__tdef t_llama4[] = {
    LINEAR_ONCE_N("multi_modal_projector.linear_1", "th", "vo", MLP, "0", "1"),
};

/* Qwen3_5(Moe)ForConditionalGeneration: the vision model's merger is the projector. */
static const llmmem__qdef q_qwen3_5[] = {
    Q("tie", "tie_word_embeddings", "0", NULL, BOOL),
};

/* Mistral3ForConditionalGeneration: Mistral3MultiModalProjector (RMSNorm of
 * the tower width, the patch merger's bias-free Linear from
 * spatial_merge_size^2 x h, then linear_1 from h x the number of
 * vision_feature_layer entries and linear_2, biased by
 * multimodal_projector_bias). Without sub-objects, Mistral3Config builds
 * Mistral Small 3.1's text and vision shapes, not the classes' defaults. */
static const llmmem__qdef q_mistral3[] = {
    Q("tie", "tie_word_embeddings", "1", NULL, BOOL), Q("nfl", "vision_feature_layer#", "1", NULL, COUNT),
    Q("pb", "multimodal_projector_bias", "0", NULL, BOOL), Q("sm", "spatial_merge_size", "2", NULL, DIM),
    Q("vh", "@vision.h", "0", NULL, DIM0), Q("th", "@text.h", "0", NULL, DIM0),
};
static const llmmem__tdef t_mistral3[] = {
    NORM_ONCE_N("model.multi_modal_projector.norm", "vh", "0", "1"),
    LINEAR_ONCE_N("model.multi_modal_projector.patch_merger.merging_layer", "vh", "vh * sm * sm", MLP, "0", "1"),
    LINEAR_ONCE_N("model.multi_modal_projector.linear_1", "th", "vh * nfl", MLP, "pb", "1"),
    LINEAR_ONCE_N("model.multi_modal_projector.linear_2", "th", "th", MLP, "pb", "1"),
};
#define MISTRAL3_TEXT                                                                                    \
    "{\"model_type\": \"mistral\", \"attention_dropout\": 0.0, \"head_dim\": 128, \"hidden_act\": \"silu\", " \
    "\"hidden_size\": 5120, \"intermediate_size\": 32768, \"max_position_embeddings\": 131072, "            \
    "\"num_attention_heads\": 32, \"num_hidden_layers\": 40, \"num_key_value_heads\": 8, "                 \
    "\"sliding_window\": null, \"vocab_size\": 131072}"
#define MISTRAL3_VISION                                                                                   \
    "{\"model_type\": \"pixtral\", \"intermediate_size\": 4096, \"hidden_size\": 1024, \"patch_size\": 14, " \
    "\"image_size\": 1540, \"num_hidden_layers\": 24, \"num_attention_heads\": 16, \"head_dim\": 64}"

#define TEXT_PATH "model.language_model.", ""
#define PART(name, key, type, absent, path) {name, key, type, absent, path}
#define NO_PART {NULL, NULL, NULL, NULL, NULL}

const llmmem__composite llmmem__composites_multimodal[] = {
    {"gemma3", "text_config", "gemma3_text", "{}", TEXT_PATH,
     {PART("vision", "vision_config", "siglip_vision_model", "{}", "model.vision_tower."), NO_PART, NO_PART},
     ROWS(q_gemma3), ROWS(t_gemma3), "modeling_gemma3.py Gemma3ForConditionalGeneration: SigLIP + projector", NULL},
    {"gemma4", "text_config", "gemma4_text", "{}", TEXT_PATH,
     {PART("vision", "vision_config", "gemma4_vision", NULL, "model.vision_tower."),
      PART("audio", "audio_config", "gemma4_audio", NULL, "model.audio_tower."), NO_PART},
     ROWS(q_gemma4), ROWS(t_gemma4), "modeling_gemma4.py Gemma4ForConditionalGeneration: vision and audio towers", NULL},
    {"gemma4_unified", "text_config", "gemma4_unified_text", "{}", TEXT_PATH,
     {PART("vision", "vision_config", "gemma4_unified_vision", NULL, "model.embed_vision."),
      PART("audio", "audio_config", "gemma4_unified_audio", NULL, "model.embed_audio."), NO_PART},
     ROWS(q_gemma4_unified), ROWS(t_gemma4_unified),
     "modeling_gemma4_unified.py Gemma4UnifiedForConditionalGeneration: encoder-free embedders", NULL},
    {"llama4", "text_config", "llama4_text", "{}", "language_model.model.", "language_model.",
     {PART("vision", "vision_config", "llama4_vision_model", "{}", "vision_model."), NO_PART, NO_PART},
     ROWS(q_llama4), ROWS(t_llama4), "modeling_llama4.py Llama4ForConditionalGeneration", "Llama4ForCausalLM"},
    {"qwen3_5", "text_config", "qwen3_5_text", "{}", TEXT_PATH,
     {PART("vision", "vision_config", "qwen3_5_vision", "{}", "model.visual."), NO_PART, NO_PART},
     ROWS(q_qwen3_5), NULL, 0, "modeling_qwen3_5.py Qwen3_5ForConditionalGeneration", "Qwen3_5ForCausalLM"},
    {"qwen3_5_moe", "text_config", "qwen3_5_moe_text", "{}", TEXT_PATH,
     {PART("vision", "vision_config", "qwen3_5_moe_vision", "{}", "model.visual."), NO_PART, NO_PART},
     ROWS(q_qwen3_5), NULL, 0, "modeling_qwen3_5_moe.py Qwen3_5MoeForConditionalGeneration", "Qwen3_5MoeForCausalLM"},
    {"mistral3", "text_config", "mistral", MISTRAL3_TEXT, TEXT_PATH,
     {PART("vision", "vision_config", "pixtral", MISTRAL3_VISION, "model.vision_tower."), NO_PART, NO_PART},
     ROWS(q_mistral3), ROWS(t_mistral3), "modeling_mistral3.py Mistral3ForConditionalGeneration: Pixtral", NULL},
};
const int llmmem__composites_multimodal_count = (int)LLMMEM_ARRAY_LEN(llmmem__composites_multimodal);
