/* Dense and MoE decoder families, model_types h-z (and granite*): each entry
 * describes the modules of huggingface/transformers (v5.17)
 * src/transformers/models/<type>/modeling_<type>.py, with the defaults of
 * configuration_<type>.py (attribute_map aliases listed as extra keys). The
 * quirks of a modeling file (a projection sized by hidden_size instead of
 * heads x head_dim, a parameter only some layers hold) are kept as the code
 * has them: the count is what model.parameters() holds on the meta device. */
#include "model/families.h"


/* A router kept as a parameter [E, h] and the fused experts of transformers 5
 * (gate_up_proj [E, 2 fm, h], down_proj [E, h, fm]) under `prefix`. */
#define MOE_EXPERTS(prefix, router)                                                                \
    WEIGHT(prefix "." router, "E", "h", ROUTER, MOE_LAYERS),                                       \
        PARAM(prefix ".experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL), \
        PARAM(prefix ".experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL)

/* A Linear whose rows already total its layers (per-layer sizes summed from a list: a
 * W_N row counted once), present when `when` is non-zero. */
#define LINEAR_SUMMED_IF(name, out, in, kind, bias, when)                      \
    {name, out, in, T_(kind), LLMMEM__TF_LINEAR, W_N, when, "1"},                \
        {name, out, NULL, T_(kind), LLMMEM__TF_BIAS, W_N, "(" when ") && (" bias ")", "1"}
/* A Linear (or norm) repeated `n` times in each layer (a ModuleList of sub-blocks), unlike
 * families.h's LINEAR_N (`n` layers in all). */
#define LINEAR_SUBS(name, out, in, kind, where, bias, when, n)    \
    {name, out, in, T_(kind), LLMMEM__TF_LINEAR, where, when, n}, \
        {name, out, NULL, T_(kind), LLMMEM__TF_BIAS, where, "(" when ") && (" bias ")", n}
#define NORM_SUBS(name, width, where, when, n) {name, width, NULL, T_(NORM), 0, where, when, n}

/* head_dim: getattr(config, "head_dim", h // a) in most attention classes. */
#define Q_HEAD_DIM(def) Q("d", "head_dim", def, "h / a", DIM)
#define Q_ROTARY(def) QR("prf", "rope_parameters.partial_rotary_factor|partial_rotary_factor", def)
#define Q_RMS QD("norm", "0"), QD("npl", "2"), QD("hb", "0"), QD("gated", "1")
#define Q_LN QD("norm", "1"), QD("npl", "2"), QD("hb", "0")

#define LAYER_TYPES "sliding_attention=1,full_attention=0"
#define MLP_TYPES "dense=0,sparse=1"

/* ---- granite, granite_swa -------------------------------------------------------- */

/* GraniteConfig: llama's layout with embedding/residual/attention/logit
 * multipliers (scalars, no parameters). */
static const llmmem__qdef q_granite[] = {
    Q_BASE("32000", "4096", "11008", "32", "32", "a", "2048"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("mb", "mlp_bias", "0", NULL, BOOL),
    Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_granite[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* GraniteSWAConfig: one learned sink per head in every layer; full attention
 * on every 4th layer from 0, sliding elsewhere; per-layer rope thetas (0 =
 * NoPE) change no parameter. */
static const llmmem__qdef q_granite_swa[] = {
    Q_BASE("100352", "2560", "8192", "24", "20", "4", "8192"), Q_HEAD_DIM("h / a"), Q_TIE("1"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("mb", "mlp_bias", "0", NULL, BOOL),
    Q("sw", "sliding_window", "128", "0", POS), Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_granite_swa[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), PARAM("self_attn.sinks", "a", NULL, ATTN, W_ALL, NULL),
    MLP_GATED("mlp", "f", W_ALL, "mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};
#define EVERY_4TH_FULL(arg2) \
    MIXER_LIST("layer_types", LAYER_TYPES, LLMMEM__MR_PERIODIC, "4", arg2, LLMMEM__MX_FULL, LLMMEM__MX_SLIDING, NULL)

/* ---- granitemoe, granitemoe_swa, granitemoeshared ------------------------------------ */

/* GraniteMoeMoE: router.weight [E, h] (a parameter) and the fused experts of
 * width intermediate_size in every layer; granitemoeshared and granitemoe_swa
 * add shared_mlp (input_linear [2 fs, h], output_linear [h, fs]) when
 * shared_intermediate_size > 0. */
#define Q_GRANITEMOE                                                                                  \
    Q_BASE("32000", "4096", "11008", "32", "32", "a", "2048"), Q_HEAD_DIM("h / a"), Q_TIE("0"),        \
        Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"),                     \
        Q("E", "num_local_experts", "8", NULL, COUNT), Q("K", "num_experts_per_tok", "2", NULL, COUNT), \
        QD("fm", "f"), Q_DROPOUT, Q_RMS
#define GRANITE_MOE                                                                              \
    WEIGHT("block_sparse_moe.router", "E", "h", ROUTER, MOE_LAYERS),                             \
        PARAM("block_sparse_moe.experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL), \
        PARAM("block_sparse_moe.experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL)
#define GRANITE_SHARED_MLP                                                     \
    LINEAR("shared_mlp.input_linear", "2 * fs", "h", MLP, W_ALL, "0"),         \
        LINEAR("shared_mlp.output_linear", "h", "fs", MLP, W_ALL, "0")

static const llmmem__qdef q_granitemoe[] = {Q_GRANITEMOE};
static const llmmem__tdef t_granitemoe[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), GRANITE_MOE, LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

static const llmmem__qdef q_granitemoeshared[] = {
    Q_GRANITEMOE, Q("fs", "shared_intermediate_size", "0", NULL, DIM0), QD("ns", "fs > 0"),
};
static const llmmem__tdef t_granitemoeshared[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), GRANITE_MOE, GRANITE_SHARED_MLP, LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

static const llmmem__qdef q_granitemoe_swa[] = {
    Q_GRANITEMOE, Q("fs", "shared_intermediate_size", "0", NULL, DIM0), QD("ns", "fs > 0"),
    Q("sw", "sliding_window", "128", "0", POS),
};
static const llmmem__tdef t_granitemoe_swa[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), PARAM("self_attn.sinks", "a", NULL, ATTN, W_ALL, NULL), GRANITE_MOE,
    GRANITE_SHARED_MLP, LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- helium, hyperclovax ---------------------------------------------------------------- */

/* HeliumAttention: o_proj is Linear(hidden_size, hidden_size), not a x d. */
static const llmmem__qdef q_helium[] = {
    Q_BASE("48000", "2560", "7040", "24", "20", "20", "4096"), Q_HEAD_DIM("128"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "0"), Q("mb", "mlp_bias", "0", NULL, BOOL),
    Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_helium[] = {
    EMBED_TOKENS,
    LINEAR("self_attn.q_proj", "a * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.k_proj", "k * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.v_proj", "k * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.o_proj", "h", "h", ATTN, W_ALL, "0"),
    MLP_GATED("mlp", "f", W_ALL, "mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* HyperCLOVAXDecoderLayer: granite's layout plus post_norm1/post_norm2 after
 * each sub-block (use_post_norm, "peri-layer normalisation"). */
static const llmmem__qdef q_hyperclovax[] = {
    Q_BASE("32000", "4096", "11008", "32", "32", "a", "2048"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("mb", "mlp_bias", "0", NULL, BOOL),
    Q("pn", "use_post_norm", "1", NULL, BOOL), Q_DROPOUT, QD("norm", "0"), QD("npl", "pn ? 4 : 2"), QD("hb", "0"),
    QD("gated", "1"),
};
static const llmmem__tdef t_hyperclovax[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"), LAYER_NORMS,
    NORM_IF("post_norm1", "h", "norm", W_ALL, "pn"), NORM_IF("post_norm2", "h", "norm", W_ALL, "pn"),
    FINAL_NORM, LM_HEAD,
};

/* ---- mellum, ministral3, smollm3, seed_oss ------------------------------------------- */

/* MellumAttention: q_norm/k_norm over head_dim; MellumDecoderLayer: a sparse
 * MoE block (gate [E, h] + fused experts) or a dense MLP by mlp_layer_types. */
static const llmmem__qdef q_mellum[] = {
    Q_BASE("98304", "2304", "7168", "28", "32", "4", "131072"), Q_HEAD_DIM("128"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), QD("qkn", "1"),
    Q("sw", "sliding_window", "1024", "0", POS), Q("E", "num_experts|num_local_experts", "64", NULL, COUNT),
    Q("K", "num_experts_per_tok", "8", NULL, COUNT), Q("fm", "moe_intermediate_size", "896", NULL, DIM),
    Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_mellum[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("d", "d", W_ALL), MLP_GATED("mlp", "f", DENSE_LAYERS, "0"),
    MOE_EXPERTS("mlp", "gate"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* Ministral3: mistral's layout; sliding_window (None by default) applies to
 * every layer. */
static const llmmem__qdef q_ministral3[] = {
    Q_BASE("131072", "4096", "14336", "34", "32", "8", "262144"), Q_HEAD_DIM("128"), Q_TIE("0"),
    Q("sw", "sliding_window", "0", "0", POS), QD("ab", "0"), QD("ob", "0"), QD("mb", "0"), Q_DROPOUT, Q_RMS,
};
#define t_ministral3 t_granite

/* SmolLM3: every no_rope_layer_interval-th layer has no rope; those layers
 * slide when use_sliding_window and sliding_window are set. */
static const llmmem__qdef q_smollm3[] = {
    Q_BASE("128256", "2048", "11008", "36", "16", "4", "32768"), Q_HEAD_DIM("h / a"), Q_TIE("1"),
    Q("usw", "use_sliding_window", "0", NULL, BOOL), Q("swk", "sliding_window", "0", "0", POS),
    QD("sw", "usw ? swk : 0"), Q("nri", "no_rope_layer_interval", "4", NULL, LAYERS),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("mb", "mlp_bias", "0", NULL, BOOL),
    Q_DROPOUT, Q_RMS, QI,
};
#define t_smollm3 t_granite

/* SeedOssAttention: q/k/v bias attention_bias, o bias attention_out_bias. */
static const llmmem__qdef q_seed_oss[] = {
    Q_BASE("155136", "4096", "27648", "64", "80", "8", "524288"), Q_HEAD_DIM("128"), Q_TIE("0"),
    Q("ab", "attention_bias", "1", NULL, BOOL), Q("ob", "attention_out_bias", "0", NULL, BOOL),
    Q("mb", "mlp_bias", "0", NULL, BOOL), QR("pa", "attention_dropout", "0.1"), QR("ph", "residual_dropout", "0.1"),
    Q_RMS,
};
#define t_seed_oss t_granite

/* ---- solar_open, vaultgemma, olmo3, stablelm ------------------------------------------ */

/* SolarOpenMoE in every layer: gate [E, h] (its e_score_correction_bias is a
 * buffer), fused experts and shared_experts of width n_shared_experts x
 * moe_intermediate_size; o_proj without bias. No dense MLP. */
static const llmmem__qdef q_solar_open[] = {
    Q("V", "vocab_size", "196608", NULL, VOCAB), Q("h", "hidden_size", "4096", NULL, DIM),
    Q("L", "num_hidden_layers", "48", NULL, LAYERS), Q("a", "num_attention_heads", "64", NULL, COUNT),
    Q("k", "num_key_value_heads", "8", "a", COUNT), Q("pos", "max_position_embeddings", "131072", NULL, POS),
    Q_HEAD_DIM("128"), Q_TIE("0"), Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "0"), QD("mb", "0"),
    Q("E", "n_routed_experts|num_local_experts", "128", NULL, COUNT), Q("K", "num_experts_per_tok", "8", NULL, COUNT),
    Q("fm", "moe_intermediate_size", "1280", NULL, DIM), Q("ns", "n_shared_experts", "1", NULL, COUNT),
    QD("fs", "ns * fm"), QD("f", "fm"), Q_ROTARY("1"), Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_solar_open[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MOE_EXPERTS("mlp", "gate"), MLP_GATED("mlp.shared_experts", "fs", MOE_LAYERS, "0"),
    LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* VaultGemma: gemma's scaled embedding and (1 + w) RMSNorm, input_layernorm
 * and pre_feedforward_layernorm only; sliding on even layers; soft-capping. */
static const llmmem__qdef q_vaultgemma[] = {
    Q_BASE("256000", "2304", "9216", "26", "8", "4", "8192"), Q_HEAD_DIM("256"), Q_TIE("1"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"),
    Q("sw", "sliding_window", "4096", "0", POS), QRN("fsc", "final_logit_softcapping", "30", "0"),
    QRN("asc", "attn_logit_softcapping", "50", "0"), QRN("pa", "attention_dropout", "0", "0"), Q_RMS,
};
static const llmmem__tdef t_vaultgemma[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"), NORM("input_layernorm", "h", "norm", W_ALL),
    NORM("pre_feedforward_layernorm", "h", "norm", W_ALL), FINAL_NORM, LM_HEAD,
};

/* Olmo3: OLMo-2's post-norms and q/k norms over the whole projection;
 * sliding on all but every 4th layer. */
static const llmmem__qdef q_olmo3[] = {
    Q_BASE("50304", "4096", "11008", "32", "32", "a", "2048"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), QD("qkn", "1"),
    Q("sw", "sliding_window", "4096", "0", POS), Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_olmo3[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("a * d", "k * d", W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"),
    NORM("post_attention_layernorm", "h", "norm", W_ALL), NORM("post_feedforward_layernorm", "h", "norm", W_ALL),
    FINAL_NORM, LM_HEAD,
};

/* StableLmAttention: head_dim = h / a, o_proj Linear(h, h), per-head q/k
 * LayerNorms without bias (qk_layernorm); LayerNorm with bias elsewhere; no
 * post_attention_layernorm with use_parallel_residual. */
static const llmmem__qdef q_stablelm[] = {
    Q_BASE("50304", "2560", "6912", "32", "32", "32", "4096"), QD("d", "h / a"), Q_TIE("0"),
    Q("ab", "use_qkv_bias", "0", NULL, BOOL), QD("ob", "0"), QD("mb", "0"),
    Q("qkn", "qk_layernorm", "0", NULL, BOOL), Q("par", "use_parallel_residual", "0", NULL, BOOL),
    Q_ROTARY("0.25"), Q_DROPOUT, QR("ph", "hidden_dropout", "0"), QD("norm", "1"), QD("npl", "par ? 1 : 2"),
    QD("hb", "0"), QD("gated", "1"),
};
static const llmmem__tdef t_stablelm[] = {
    EMBED_TOKENS,
    LINEAR("self_attn.q_proj", "a * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.k_proj", "k * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.v_proj", "k * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.o_proj", "h", "h", ATTN, W_ALL, "0"),
    NORM_IF("self_attn.q_layernorm", "a * d", "2", W_ALL, "qkn"),
    NORM_IF("self_attn.k_layernorm", "k * d", "2", W_ALL, "qkn"),
    MLP_GATED("mlp", "f", W_ALL, "0"), NORM("input_layernorm", "h", "1", W_ALL),
    NORM_IF("post_attention_layernorm", "h", "1", W_ALL, "!par"), NORM("model.norm", "h", "1", W_ONCE), LM_HEAD,
};

/* ---- phimoe, persimmon, nanochat, jais2 ------------------------------------------------- */

/* Phimoe: LayerNorm with bias, router an nn.Linear(h, E), fused experts of
 * width intermediate_size, lm_head bias lm_head_bias; sliding_window (None by
 * default) on every layer. */
static const llmmem__qdef q_phimoe[] = {
    Q_BASE("32064", "4096", "6400", "32", "32", "8", "131072"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), Q("hb", "lm_head_bias", "0", NULL, BOOL),
    Q("sw", "sliding_window", "0", "0", POS), Q("E", "num_local_experts", "16", NULL, COUNT),
    Q("K", "num_experts_per_tok", "2", NULL, COUNT), QD("fm", "f"), Q_DROPOUT, QD("norm", "1"), QD("npl", "2"),
    QD("gated", "1"),
};
static const llmmem__tdef t_phimoe[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), LINEAR("mlp.router", "E", "h", ROUTER, MOE_LAYERS, "0"),
    PARAM("mlp.experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* PersimmonAttention: fused query_key_value (3h) and dense with biases,
 * per-head q/k LayerNorms (qk_layernorm), partial rotary; a relu2 MLP
 * dense_h_to_4h/dense_4h_to_h with biases. */
static const llmmem__qdef q_persimmon[] = {
    Q("V", "vocab_size", "262144", NULL, VOCAB), Q("h", "hidden_size", "4096", NULL, DIM),
    Q("f", "intermediate_size", "16384", NULL, DIM), Q("L", "num_hidden_layers", "36", NULL, LAYERS),
    Q("a", "num_attention_heads", "64", NULL, COUNT), Q("pos", "max_position_embeddings", "16384", NULL, POS),
    QD("k", "a"), QD("d", "h / a"), Q_TIE("0"), Q("qkn", "qk_layernorm", "1", NULL, BOOL), Q_ROTARY("0.5"),
    QD("ab", "1"), QD("ob", "1"), QD("mb", "1"), Q_DROPOUT, QR("ph", "hidden_dropout", "0"), Q_LN, QD("gated", "0"),
};
static const llmmem__tdef t_persimmon[] = {
    EMBED_TOKENS,
    LINEAR("self_attn.query_key_value", "3 * h", "h", ATTN, W_ALL, "1"),
    LINEAR("self_attn.dense", "h", "a * d", ATTN, W_ALL, "1"),
    NORM_IF("self_attn.q_layernorm", "d", "1", W_ALL, "qkn"), NORM_IF("self_attn.k_layernorm", "d", "1", W_ALL, "qkn"),
    LINEAR("mlp.dense_h_to_4h", "f", "h", MLP, W_ALL, "1"), LINEAR("mlp.dense_4h_to_h", "h", "f", MLP, W_ALL, "1"),
    NORM("input_layernorm", "h", "1", W_ALL), NORM("post_attention_layernorm", "h", "1", W_ALL),
    NORM("model.final_layernorm", "h", "1", W_ONCE), LM_HEAD,
};

/* NanoChat: parameter-free RMSNorms everywhere (q/k norms included), a relu2
 * MLP fc1/fc2 without bias, final logit soft-capping. */
static const llmmem__qdef q_nanochat[] = {
    Q_BASE("50304", "768", "8192", "12", "6", "a", "2048"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), QD("qkn", "1"),
    QRN("fsc", "final_logit_softcapping", "15", "0"), Q_DROPOUT, QD("norm", "3"), QD("npl", "2"), QD("hb", "0"),
    QD("gated", "0"),
};
static const llmmem__tdef t_nanochat[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), LINEAR("mlp.fc1", "f", "h", MLP, W_ALL, "0"),
    LINEAR("mlp.fc2", "h", "f", MLP, W_ALL, "0"), LM_HEAD,
};

/* Jais2: LayerNorm with bias, biased q/k/v/o (attention_bias), a relu2 MLP
 * up_proj/down_proj (mlp_bias). */
static const llmmem__qdef q_jais2[] = {
    Q_BASE("150272", "3328", "26624", "32", "26", "a", "8192"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "1", NULL, BOOL), QD("ob", "ab"), Q("mb", "mlp_bias", "1", NULL, BOOL),
    QRN("pa", "attention_dropout", "0", "0"), Q_LN, QD("gated", "0"),
    QD("kv_nodiv", "1"), /* Jais2Config validates hidden_size % heads only: k need not divide a */
};
static const llmmem__tdef t_jais2[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), LINEAR("mlp.up_proj", "f", "h", MLP, W_ALL, "mb"),
    LINEAR("mlp.down_proj", "h", "f", MLP, W_ALL, "mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- mpt, xglm ----------------------------------------------------------------------- */

/* MptModel (transformer.*): fused Wqkv and out_proj without bias, ALiBi (no
 * position parameters), LayerNorms whose bias the modeling code removes, an
 * MLP of 4 x d_model whatever expansion_ratio says (MptMLP). */
static const llmmem__qdef q_mpt[] = {
    Q("V", "vocab_size", "50368", NULL, VOCAB), Q("h", "d_model|hidden_size", "2048", NULL, DIM),
    Q("L", "n_layers|num_hidden_layers", "24", NULL, LAYERS), Q("a", "n_heads|num_attention_heads", "16", NULL, COUNT),
    Q("pos", "max_seq_len", "2048", NULL, POS), QD("k", "a"), QD("d", "h / a"), QD("f", "4 * h"), Q_TIE("1"),
    QD("ab", "0"), QD("ob", "0"), QD("mb", "0"), QR("prf", NULL, "0"), QR("pa", "attn_config.attn_pdrop", "0"),
    QR("ph", "resid_pdrop", "0"), QR("pe", "emb_pdrop", "0"), QD("norm", "2"), QD("npl", "2"), QD("hb", "0"),
    QD("gated", "0"),
};
static const llmmem__tdef t_mpt[] = {
    WEIGHT("transformer.wte", "V", "h", EMBED, W_ONCE), NORM("norm_1", "h", "2", W_ALL),
    LINEAR("attn.Wqkv", "3 * h", "h", ATTN, W_ALL, "0"), LINEAR("attn.out_proj", "h", "h", ATTN, W_ALL, "0"),
    NORM("norm_2", "h", "2", W_ALL), LINEAR("ffn.up_proj", "f", "h", MLP, W_ALL, "0"),
    LINEAR("ffn.down_proj", "h", "f", MLP, W_ALL, "0"), NORM("transformer.norm_f", "h", "2", W_ONCE), LM_HEAD,
};

/* XGLM: OPT-like pre-LN decoder with biases everywhere, sinusoidal positions
 * (a buffer, no parameters), scaled embedding; add_cross_attention adds an
 * encoder_attn block and its LayerNorm to every layer. */
static const llmmem__qdef q_xglm[] = {
    Q("V", "vocab_size", "256008", NULL, VOCAB), Q("h", "d_model|hidden_size", "1024", NULL, DIM),
    Q("f", "ffn_dim", "4096", NULL, DIM), Q("L", "num_layers|num_hidden_layers", "24", NULL, LAYERS),
    Q("a", "attention_heads|num_attention_heads", "16", NULL, COUNT),
    Q("pos", "max_position_embeddings", "2048", NULL, POS), QD("k", "a"), QD("d", "h / a"), Q_TIE("1"),
    Q("ca", "add_cross_attention", "0", NULL, BOOL), QD("ab", "1"), QD("ob", "1"), QD("mb", "1"), QR("prf", NULL, "0"),
    QR("pa", "attention_dropout", "0.1"), QR("ph", "dropout", "0.1"), Q_LN, QD("gated", "0"),
};
static const llmmem__tdef t_xglm[] = {
    EMBED_TOKENS,
    LINEAR("self_attn.k_proj", "h", "h", ATTN, W_ALL, "1"), LINEAR("self_attn.v_proj", "h", "h", ATTN, W_ALL, "1"),
    LINEAR("self_attn.q_proj", "h", "h", ATTN, W_ALL, "1"), LINEAR("self_attn.out_proj", "h", "h", ATTN, W_ALL, "1"),
    NORM("self_attn_layer_norm", "h", "1", W_ALL),
    LINEAR_IF("encoder_attn.k_proj", "h", "h", ATTN, W_ALL, "1", "ca"),
    LINEAR_IF("encoder_attn.v_proj", "h", "h", ATTN, W_ALL, "1", "ca"),
    LINEAR_IF("encoder_attn.q_proj", "h", "h", ATTN, W_ALL, "1", "ca"),
    LINEAR_IF("encoder_attn.out_proj", "h", "h", ATTN, W_ALL, "1", "ca"),
    NORM_IF("encoder_attn_layer_norm", "h", "1", W_ALL, "ca"),
    LINEAR("fc1", "f", "h", MLP, W_ALL, "1"), LINEAR("fc2", "h", "f", MLP, W_ALL, "1"),
    NORM("final_layer_norm", "h", "1", W_ALL), NORM("model.layer_norm", "h", "1", W_ONCE), LM_HEAD,
};

/* ---- youtu, minicpm3: multi-head latent attention, dense MLP ------------------------- */

/* DeepSeek-V2's MLA (q through q_a/q_b with q_lora_rank, else one q_proj;
 * kv_a_proj_with_mqa then kv_b_proj), q_a/kv_a/o biases by attention_bias. */
#define Q_MLA(ql, kvl, dn, dr)                                                                   \
    Q("ql", "q_lora_rank", ql, "0", DIM0), Q("kvl", "kv_lora_rank", kvl, NULL, DIM),              \
        Q("dn", "qk_nope_head_dim", dn, NULL, DIM0), Q("dr", "qk_rope_head_dim", dr, NULL, DIM0), \
        QD("d", "dn + dr"), QR("prf", NULL, "ratio(dr, d)")

static const llmmem__qdef q_youtu[] = {
    Q_BASE("128256", "2048", "6144", "32", "16", "16", "131072"), Q_TIE("1"), Q_MLA("1536", "512", "128", "64"),
    Q("dv", "v_head_dim", "128", NULL, DIM), Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"),
    QRN("pa", "attention_dropout", "0", "0"), Q_RMS,
};
static const llmmem__tdef t_youtu[] = {
    EMBED_TOKENS, MLA_ATTN(W_ALL), MLP_GATED("mlp", "f", W_ALL, "0"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* MiniCPM3: MLA with v_head_dim = h / a by default, scaled embedding, mlp_bias. */
static const llmmem__qdef q_minicpm3[] = {
    Q_BASE("73448", "2560", "6400", "62", "40", "40", "32768"), Q_TIE("1"), Q_MLA("768", "256", "64", "32"),
    Q("dv", "v_head_dim", "h / a", "h / a", DIM), Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"),
    Q("mb", "mlp_bias", "0", NULL, BOOL), QRN("pa", "attention_dropout", "0", "0"), Q_RMS,
};
static const llmmem__tdef t_minicpm3[] = {
    EMBED_TOKENS, MLA_ATTN(W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- hy_v3, hy_v4 -------------------------------------------------------------------- */

/* HYV3DecoderLayer: a dense MLP or HYV3MoE by mlp_layer_types (first layer
 * dense): gate [E, h] (e_score_correction_bias is a buffer), fused experts,
 * shared_experts of width moe_intermediate_size x num_shared_experts, which
 * HYV3MLP turns into intermediate_size when it is 0 (`intermediate_size or
 * config.intermediate_size`); mlp_bias on the dense and the shared MLPs. */
static const llmmem__qdef q_hy_v3[] = {
    Q_BASE("120832", "4096", "13312", "80", "64", "8", "131072"), Q_HEAD_DIM("128"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("mb", "mlp_bias", "0", NULL, BOOL), QD("qkn", "1"),
    Q("E", "num_experts|num_local_experts", "192", NULL, COUNT), Q("K", "num_experts_per_tok", "8", NULL, COUNT),
    Q("ns", "num_shared_experts", "1", NULL, COUNT), Q("fm", "moe_intermediate_size", "1536", NULL, DIM),
    QD("fs", "ns > 0 ? ns * fm : f"), Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_hy_v3[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("d", "d", W_ALL), MLP_GATED("mlp", "f", DENSE_LAYERS, "mb"),
    MOE_EXPERTS("mlp", "gate"), MLP_GATED("mlp.shared_experts", "fs", MOE_LAYERS, "mb"), LAYER_NORMS, FINAL_NORM,
    LM_HEAD,
};
#define FIRST_DENSE FFN_LIST("mlp_layer_types", MLP_TYPES, LLMMEM__FR_FIRST_K, "1", NULL, NULL)

/* HYV4: DeepSeek-V3.2-style MLA (num_key_value_heads forced to heads) with a
 * per-head output gate_proj and sinks; a DSA indexer (wq_b, wk, LayerNorm
 * k_norm, weights_proj) only in the layers whose indexer_types entry is
 * "full" (layer 0 and every 4th from 1 by default; the others reuse it);
 * hyper-connections around both sub-blocks (attn_hc, ffn_hc: fn [2m, m h],
 * base [2m], scale [2] with m = hc_mult residual streams) and a final
 * hc_head (hc_fn [m, m h], hc_base [m], hc_scale [1]). */
static const llmmem__qdef q_hy_v4[] = {
    Q("V", "vocab_size", "120832", NULL, VOCAB), Q("h", "hidden_size", "2816", NULL, DIM),
    Q("f", "intermediate_size", "6912", NULL, DIM), Q("L", "num_hidden_layers", "34", NULL, LAYERS),
    Q("a", "num_attention_heads", "32", NULL, COUNT), QD("k", "a"),
    Q("pos", "max_position_embeddings", "262144", NULL, POS), Q_TIE("0"), Q_MLA("1536", "512", "192", "64"),
    Q("dv", "v_head_dim", "256", NULL, DIM), Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"),
    Q("E", "n_routed_experts|num_local_experts", "256", NULL, COUNT), Q("K", "num_experts_per_tok", "8", NULL, COUNT),
    Q("fm", "moe_intermediate_size", "768", NULL, DIM), Q("ns", "n_shared_experts", "1", NULL, COUNT),
    QD("fs", "ns * fm"), Q("ihd", "index_head_dim", "128", NULL, DIM), Q("inh", "index_n_heads", "16", NULL, COUNT),
    QN("nidx", "indexer_types", "L >= 2 ? 2 + (L - 2) / 4 : 1", "full"), Q("hc", "hc_mult", "4", NULL, COUNT),
    Q_DROPOUT, Q_RMS,
};
#define HC(name, where) \
    PARAM(name ".fn", "2 * hc", "hc * h", NORM, where, NULL), PARAM(name ".base", "2 * hc", NULL, NORM, where, NULL), \
        PARAM(name ".scale", "2", NULL, NORM, where, NULL)
static const llmmem__tdef t_hy_v4[] = {
    EMBED_TOKENS, PARAM("self_attn.sinks", "a", NULL, ATTN, W_ALL, NULL), MLA_ATTN(W_ALL),
    LINEAR("self_attn.gate_proj", "a * dv", "h", ATTN, W_ALL, "0"),
    LINEAR_N("self_attn.indexer.wq_b", "inh * ihd", "ql", ATTN, "nidx", "0"),
    LINEAR_N("self_attn.indexer.wk", "ihd", "h", ATTN, "nidx", "0"),
    NORM_N("self_attn.indexer.k_norm", "ihd", "1", "nidx"),
    LINEAR_N("self_attn.indexer.weights_proj", "inh", "h", ATTN, "nidx", "0"),
    MLP_GATED("mlp", "f", DENSE_LAYERS, "0"), MOE_EXPERTS("mlp", "gate"),
    MLP_GATED("mlp.shared_experts", "fs", MOE_LAYERS, "0"), LAYER_NORMS, HC("attn_hc", W_ALL), HC("ffn_hc", W_ALL),
    FINAL_NORM, PARAM("model.hc_head.hc_fn", "hc", "hc * h", NORM, W_ONCE, NULL),
    PARAM("model.hc_head.hc_base", "hc", NULL, NORM, W_ONCE, NULL),
    PARAM("model.hc_head.hc_scale", "1", NULL, NORM, W_ONCE, NULL), LM_HEAD,
};

/* ---- jetmoe, laguna ------------------------------------------------------------------ */

/* JetMoE: mixture of attention heads (MoA: per expert a query projection
 * input_linear [E, k kv_channels, h] and an output projection output_linear
 * [E, h, k kv_channels], a router Linear(h, E) and an output bias [h]; keys
 * and values through one shared kv_proj) and a MoE MLP (input_linear
 * [E, 2 f, h], output_linear [E, h, f], router, bias). Heads = kv heads x
 * top-k. The attention experts are counted as experts too, so that active
 * parameters leave out the (E - K) idle attention experts as well. */
static const llmmem__qdef q_jetmoe[] = {
    Q("V", "vocab_size", "32000", NULL, VOCAB), Q("h", "hidden_size", "2048", NULL, DIM),
    Q("L", "num_hidden_layers", "12", NULL, LAYERS), Q("k", "num_key_value_heads", "16", NULL, COUNT),
    Q("d", "kv_channels|head_dim", "128", NULL, DIM), Q("f", "intermediate_size", "5632", NULL, DIM),
    Q("pos", "max_position_embeddings", "4096", NULL, POS), Q("E", "num_local_experts", "8", NULL, COUNT),
    Q("K", "num_experts_per_tok", "2", NULL, COUNT), QD("a", "k * K"), QD("fm", "f"), Q_TIE("1"), QD("ab", "0"),
    QD("ob", "1"), QD("mb", "1"), Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_jetmoe[] = {
    EMBED_TOKENS,
    PARAM("self_attention.experts.input_linear.weight", "E * k * d", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("self_attention.experts.output_linear.weight", "E * h", "k * d", EXPERT, MOE_LAYERS, NULL),
    PARAM("self_attention.experts.bias", "h", NULL, ATTN, W_ALL, NULL),
    LINEAR("self_attention.experts.router.layer", "E", "h", ROUTER, W_ALL, "0"),
    LINEAR("self_attention.kv_proj", "2 * k * d", "h", ATTN, W_ALL, "0"),
    PARAM("mlp.input_linear.weight", "E * 2 * f", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.output_linear.weight", "E * h", "f", EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.bias", "h", NULL, MLP, W_ALL, NULL), LINEAR("mlp.router.layer", "E", "h", ROUTER, W_ALL, "0"),
    LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* LagunaAttention: heads per layer from num_attention_heads_per_layer (q_proj,
 * o_proj and g_proj are sized by them: their rows are summed over the layers),
 * q/k norms over head_dim, an output gate g_proj of one value per head
 * (gating true or "per-head") or per channel; the sparse block's gate holds
 * e_score_correction_bias as a parameter; shared_experts of
 * shared_expert_intermediate_size; dense or sparse by mlp_layer_types. */
static const llmmem__qdef q_laguna[] = {
    Q_BASE("100352", "2048", "8192", "40", "48", "8", "131072"), Q_HEAD_DIM("128"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), QD("qkn", "1"),
    Q("asum", "num_attention_heads_per_layer", "a * L", "a * L", LIST), QD("uni", "asum == a * L"),
    QC("gph", "gating", "1", NULL, BOOL, "per-head"),
    Q("sw", "sliding_window", "512", NULL, POS), Q("E", "num_experts", "256", NULL, COUNT),
    Q("K", "num_experts_per_tok", "8", NULL, COUNT), Q("fm", "moe_intermediate_size", "512", NULL, DIM),
    Q("fs", "shared_expert_intermediate_size", "512", NULL, DIM0), QD("ns", "1"),
    QR("prf", "rope_parameters.full_attention.partial_rotary_factor|rope_parameters.partial_rotary_factor", "0.5"),
    Q_DROPOUT, Q_RMS,
};
/* Heads the same in every layer (uniform): per-layer rows; else rows summed
 * over the layers (exact counts; a LoRA adapter on them is then counted with
 * one input width for all layers). */
static const llmmem__tdef t_laguna[] = {
    EMBED_TOKENS, LINEAR_IF("self_attn.q_proj", "a * d", "h", ATTN, W_ALL, "ab", "uni"),
    LINEAR_SUMMED_IF("self_attn.q_proj", "asum * d", "h", ATTN, "ab", "!uni"),
    LINEAR("self_attn.k_proj", "k * d", "h", ATTN, W_ALL, "ab"), LINEAR("self_attn.v_proj", "k * d", "h", ATTN, W_ALL, "ab"),
    LINEAR_IF("self_attn.o_proj", "h", "a * d", ATTN, W_ALL, "ob", "uni"),
    {"self_attn.o_proj", "h", "asum * d", T_(ATTN), LLMMEM__TF_LINEAR, W_N, "!uni", "1"},
    {"self_attn.o_proj", "h", NULL, T_(ATTN), LLMMEM__TF_BIAS, W_ALL, "!uni && ob", NULL}, QK_NORM("d", "d", W_ALL),
    LINEAR_IF("self_attn.g_proj", "gph ? a : a * d", "h", ATTN, W_ALL, "0", "uni"),
    LINEAR_SUMMED_IF("self_attn.g_proj", "gph ? asum : asum * d", "h", ATTN, "0", "!uni"),
    MLP_GATED("mlp", "f", DENSE_LAYERS, "0"), PARAM("mlp.gate.weight", "E", "h", ROUTER, MOE_LAYERS, NULL),
    PARAM("mlp.gate.e_score_correction_bias", "E", NULL, ROUTER, MOE_LAYERS, NULL),
    PARAM("mlp.experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL),
    MLP_GATED("mlp.shared_experts", "fs", MOE_LAYERS, "0"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- longcat_flash, mimo_v2_flash, zaya ----------------------------------------------- */

/* LongcatFlashDecoderLayer (num_layers of them; num_hidden_layers counts the
 * attention sub-layers, two per layer): two MLA blocks self_attn.{0,1}, two
 * dense MLPs mlps.{0,1}, two input/post-attention norm pairs, and one MoE
 * whose router classifier Linear(h, E + Z) also scores Z zero-computation
 * (identity) experts. transformers allocates gate_up_proj for all E + Z
 * experts (the Z extra rows are never read) and down_proj for E; the unread
 * rows are expert weights too, so that active parameters (E - K idle experts
 * of the average size) leave most of them out. */
static const llmmem__qdef q_longcat_flash[] = {
    Q("V", "vocab_size", "131072", NULL, VOCAB), Q("h", "hidden_size", "6144", NULL, DIM),
    Q("L", "num_layers", "28", NULL, LAYERS), Q("a", "num_attention_heads", "64", NULL, COUNT),
    Q("k", "num_key_value_heads", "a", "a", COUNT), Q("pos", "max_position_embeddings", "131072", NULL, POS),
    Q("f", "ffn_hidden_size|intermediate_size", "12288", NULL, DIM), Q_TIE("0"), Q_MLA("1536", "512", "128", "64"),
    Q("dv", "v_head_dim", "128", NULL, DIM), Q("dq", "qk_head_dim", "dn + dr", "dn + dr", DIM),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"),
    Q("E", "n_routed_experts|num_local_experts", "512", NULL, COUNT), Q("Z", "zero_expert_num", "256", "0", COUNT),
    Q("K", "moe_topk|num_experts_per_tok", "12", NULL, COUNT), Q("fm", "expert_ffn_hidden_size", "2048", NULL, DIM),
    Q("rb", "router_bias", "0", NULL, BOOL), QD("spl", "2"), Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_longcat_flash[] = {
    EMBED_TOKENS,
    LINEAR_SUBS("self_attn.{j}.q_a_proj", "ql", "h", ATTN, W_ALL, "ab", "ql > 0", "spl"),
    NORM_SUBS("self_attn.{j}.q_a_layernorm", "ql", W_ALL, "ql > 0", "spl"),
    LINEAR_SUBS("self_attn.{j}.q_b_proj", "a * dq", "ql", ATTN, W_ALL, "0", "ql > 0", "spl"),
    LINEAR_SUBS("self_attn.{j}.q_proj", "a * dq", "h", ATTN, W_ALL, "0", "ql == 0", "spl"),
    LINEAR_SUBS("self_attn.{j}.kv_a_proj_with_mqa", "kvl + dr", "h", ATTN, W_ALL, "ab", "1", "spl"),
    NORM_SUBS("self_attn.{j}.kv_a_layernorm", "kvl", W_ALL, NULL, "spl"),
    LINEAR_SUBS("self_attn.{j}.kv_b_proj", "a * (dn + dv)", "kvl", ATTN, W_ALL, "0", "1", "spl"),
    LINEAR_SUBS("self_attn.{j}.o_proj", "h", "a * dv", ATTN, W_ALL, "ab", "1", "spl"),
    LINEAR_SUBS("mlps.{j}.gate_proj", "f", "h", MLP, W_ALL, "0", "1", "spl"),
    LINEAR_SUBS("mlps.{j}.up_proj", "f", "h", MLP, W_ALL, "0", "1", "spl"),
    LINEAR_SUBS("mlps.{j}.down_proj", "h", "f", MLP, W_ALL, "0", "1", "spl"),
    NORM_SUBS("input_layernorm.{j}", "h", W_ALL, NULL, "spl"),
    NORM_SUBS("post_attention_layernorm.{j}", "h", W_ALL, NULL, "spl"),
    LINEAR("mlp.router.classifier", "E + Z", "h", ROUTER, W_ALL, "rb"),
    PARAM("mlp.experts.gate_up_proj", "(E + Z) * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL), FINAL_NORM, LM_HEAD,
};

/* MiMoV2FlashAttention: sliding layers have twice the kv heads and a learned
 * sink per head; v and o use v_head_dim; o_proj never has a bias. Full
 * attention on layer 0 and every 6th layer by default, the first layer dense
 * (mlp_layer_types); gate [E, h] (its e_score_correction_bias is a buffer). */
static const llmmem__qdef q_mimo_v2_flash[] = {
    Q_BASE("152576", "4096", "16384", "48", "64", "4", "131072"), Q_HEAD_DIM("192"),
    Q("dv", "v_head_dim", "128", NULL, DIM), Q_TIE("0"), Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "0"),
    QD("mb", "0"), Q("sw", "sliding_window", "128", NULL, POS),
    Q("E", "n_routed_experts|num_local_experts", "256", NULL, COUNT), Q("K", "num_experts_per_tok", "8", NULL, COUNT),
    Q("fm", "moe_intermediate_size", "2048", NULL, DIM),
    QR("prf", "rope_parameters.full_attention.partial_rotary_factor|rope_parameters.partial_rotary_factor", "0.334"),
    Q_DROPOUT, Q_RMS, QI,
};
#define SWA_LAYERS W_MX(LLMMEM__MX(SLIDING))
#define FULL_LAYERS W_MX(LLMMEM__MX(FULL))
static const llmmem__tdef t_mimo_v2_flash[] = {
    EMBED_TOKENS, LINEAR("self_attn.q_proj", "a * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.k_proj", "k * d", "h", ATTN, FULL_LAYERS, "ab"),
    LINEAR("self_attn.v_proj", "k * dv", "h", ATTN, FULL_LAYERS, "ab"),
    LINEAR("self_attn.k_proj", "2 * k * d", "h", ATTN, SWA_LAYERS, "ab"),
    LINEAR("self_attn.v_proj", "2 * k * dv", "h", ATTN, SWA_LAYERS, "ab"),
    PARAM("self_attn.sinks", "a", NULL, ATTN, SWA_LAYERS, NULL), LINEAR("self_attn.o_proj", "h", "a * dv", ATTN, W_ALL, "0"),
    MLP_GATED("mlp", "f", DENSE_LAYERS, "0"), MOE_EXPERTS("mlp", "gate"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ZayaAttention: compressed convolutional attention (CCA): q/k/v projections
 * (v split into v_proj_current and v_proj_delayed, k*d/2 each), a depthwise
 * and a grouped causal Conv1d over the q/k channels ((a + k) d, kernels
 * cca_time0 and cca_time1, with bias), a per-kv-head temperature; o_proj.
 * Every layer is MoE: a router MLP (down_proj Linear(h, r) with bias,
 * router_mlp: RMSNorm(r), fc1/fc2 Linear(r, r) with bias, out_proj
 * Linear(r, E + 1) for the E experts and a skip class) and, from layer 1 on,
 * router_states_scale [r]; fused experts of moe_intermediate_size, top-1.
 * Learned residual scalings after both sub-blocks (four [h] vectors each) and
 * an input scale and bias [h] on the embeddings. */
static const llmmem__qdef q_zaya[] = {
    Q("V", "vocab_size", "262272", NULL, VOCAB), Q("h", "hidden_size", "2048", NULL, DIM),
    Q("L", "num_hidden_layers", "40", NULL, LAYERS), Q("a", "num_attention_heads", "8", NULL, COUNT),
    Q("k", "num_key_value_heads", "2", NULL, COUNT), Q("d", "head_dim", "128", NULL, DIM),
    Q("pos", "max_position_embeddings", "131072", NULL, POS), Q_TIE("1"), Q("ab", "attention_bias", "0", NULL, BOOL),
    QD("ob", "ab"), QD("mb", "0"), Q("sw", "sliding_window", "0", "0", POS), Q("E", "num_experts", "16", NULL, COUNT),
    Q("K", "num_experts_per_tok", "1", NULL, COUNT), Q("fm", "moe_intermediate_size", "2048", NULL, DIM), QD("f", "fm"),
    Q("r", "router_hidden_size", "256", NULL, DIM), Q("t0", "cca_time0", "2", NULL, DIM), Q("t1", "cca_time1", "2", NULL, DIM),
    QR("prf", "rope_parameters.hybrid.partial_rotary_factor|rope_parameters.partial_rotary_factor", "0.5"), Q_DROPOUT, QD("norm", "0"), QD("npl", "2"), Q("hb", "lm_head_bias", "0", NULL, BOOL),
    QD("gated", "1"),
};
#define RESIDUAL_SCALE(name)                                                                   \
    PARAM(name ".hidden_states_scale", "h", NULL, NORM, W_ALL, NULL),                          \
        PARAM(name ".hidden_states_bias", "h", NULL, NORM, W_ALL, NULL),                       \
        PARAM(name ".residual_scale", "h", NULL, NORM, W_ALL, NULL), PARAM(name ".residual_bias", "h", NULL, NORM, W_ALL, NULL)
static const llmmem__tdef t_zaya[] = {
    PARAM("model.input_hidden_states_scale", "h", NULL, NORM, W_ONCE, NULL),
    PARAM("model.input_hidden_states_bias", "h", NULL, NORM, W_ONCE, NULL), EMBED_TOKENS,
    LINEAR("self_attn.o_proj", "h", "a * d", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.qkv_proj.q_proj", "a * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.qkv_proj.k_proj", "k * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.qkv_proj.v_proj_current", "k * d / 2", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.qkv_proj.v_proj_delayed", "k * d / 2", "h", ATTN, W_ALL, "ab"),
    PARAM("self_attn.qkv_proj.conv_qk_depthwise.weight", "(a + k) * d", "t0", ATTN, W_ALL, NULL),
    PARAM("self_attn.qkv_proj.conv_qk_depthwise.bias", "(a + k) * d", NULL, ATTN, W_ALL, NULL),
    PARAM("self_attn.qkv_proj.conv_qk_grouped.weight", "(a + k) * d", "d * t1", ATTN, W_ALL, NULL),
    PARAM("self_attn.qkv_proj.conv_qk_grouped.bias", "(a + k) * d", NULL, ATTN, W_ALL, NULL),
    PARAM("self_attn.qk_norm.temp", "k", NULL, NORM, W_ALL, NULL),
    LINEAR("mlp.gate.down_proj", "r", "h", ROUTER, MOE_LAYERS, "1"),
    NORM("mlp.gate.router_mlp.norm", "r", "0", MOE_LAYERS),
    LINEAR("mlp.gate.router_mlp.fc1", "r", "r", ROUTER, MOE_LAYERS, "1"),
    LINEAR("mlp.gate.router_mlp.fc2", "r", "r", ROUTER, MOE_LAYERS, "1"),
    LINEAR("mlp.gate.router_mlp.out_proj", "E + 1", "r", ROUTER, MOE_LAYERS, "0"),
    PARAM_N("mlp.gate.router_states_scale", "r", NULL, ROUTER, "E > 0 ? L - 1 : 0"), /* MoE layers 1 .. L-1 */
    PARAM("mlp.experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL), LAYER_NORMS,
    RESIDUAL_SCALE("post_attention_residual_scale"), RESIDUAL_SCALE("post_mlp_residual_scale"), FINAL_NORM, LM_HEAD,
};

/* ---- dbrx, dots1, hunyuan_v1_dense, hunyuan_v1_moe -------------------------------------- */

/* DbrxModel (transformer.blocks): norm_attn_norm holds norm_1, attn (fused
 * Wqkv: h + 2 kv_n_heads x head_dim, out_proj, no biases) and norm_2
 * (LayerNorms without bias); ffn: router.layer Linear(h, E) and the experts
 * as three [E x ffn_hidden_size, h] parameters w1 (gate), v1 (up), w2 (down).
 * attn_config and ffn_config are sub-objects; ffn_config.hidden_size is
 * overwritten with d_model. */
static const llmmem__qdef q_dbrx[] = {
    Q("V", "vocab_size", "32000", NULL, VOCAB), Q("h", "d_model|hidden_size", "2048", NULL, DIM),
    Q("L", "n_layers|num_hidden_layers", "24", NULL, LAYERS), Q("a", "n_heads|num_attention_heads", "16", NULL, COUNT),
    Q("k", "attn_config.kv_n_heads", "1", NULL, COUNT), Q("pos", "max_seq_len|max_position_embeddings", "2048", NULL, POS),
    QD("d", "h / a"), Q_TIE("0"), Q("E", "ffn_config.moe_num_experts", "4", NULL, COUNT),
    Q("K", "ffn_config.moe_top_k", "1", NULL, COUNT), Q("fm", "ffn_config.ffn_hidden_size", "3584", NULL, DIM),
    QD("f", "fm"), QD("ab", "0"), QD("ob", "0"), QD("mb", "0"), QR("pa", "attn_config.attn_pdrop", "0"),
    QR("ph", "resid_pdrop", "0"), QR("pe", "emb_pdrop", "0"), QD("norm", "2"), QD("npl", "2"), QD("hb", "0"),
    QD("gated", "1"),
};
static const llmmem__tdef t_dbrx[] = {
    WEIGHT("transformer.wte", "V", "h", EMBED, W_ONCE), NORM("norm_attn_norm.norm_1", "h", "2", W_ALL),
    LINEAR("norm_attn_norm.attn.Wqkv", "h + 2 * k * d", "h", ATTN, W_ALL, "0"),
    LINEAR("norm_attn_norm.attn.out_proj", "h", "h", ATTN, W_ALL, "0"), NORM("norm_attn_norm.norm_2", "h", "2", W_ALL),
    LINEAR("ffn.router.layer", "E", "h", ROUTER, MOE_LAYERS, "0"),
    PARAM("ffn.experts.mlp.w1", "E * fm", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("ffn.experts.mlp.v1", "E * fm", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("ffn.experts.mlp.w2", "E * fm", "h", EXPERT, MOE_LAYERS, NULL), NORM("transformer.norm_f", "h", "2", W_ONCE),
    LM_HEAD,
};

/* Dots1: q/k norms over head_dim; MoE (gate [E, h], fused experts, shared
 * experts of n_shared_experts x moe_intermediate_size) from
 * first_k_dense_replace on; sliding from max_window_layers on when
 * sliding_window is set. n_routed_experts, num_experts_per_tok and
 * n_shared_experts have no usable default (None). */
static const llmmem__qdef q_dots1[] = {
    Q_BASE("152064", "4608", "10944", "62", "32", "32", "2048"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), QD("qkn", "1"),
    Q("sw", "sliding_window", "4096", "0", POS), Q("mwl", "max_window_layers", "62", "0", COUNT),
    Q("E", "n_routed_experts|num_local_experts", NULL, NULL, COUNT), Q("K", "num_experts_per_tok", NULL, NULL, COUNT),
    Q("ns", "n_shared_experts", NULL, NULL, COUNT), Q("fm", "moe_intermediate_size", "1408", NULL, DIM),
    QD("fs", "ns * fm"), Q("kd", "first_k_dense_replace", "0", "0", COUNT), QRN("pa", "attention_dropout", "0", "0"),
    Q_RMS,
};
static const llmmem__tdef t_dots1[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("d", "d", W_ALL), MLP_GATED("mlp", "f", DENSE_LAYERS, "0"),
    MOE_EXPERTS("mlp", "gate"), MLP_GATED("mlp.shared_experts", "fs", MOE_LAYERS, "0"), LAYER_NORMS, FINAL_NORM,
    LM_HEAD,
};

/* HunYuanDenseV1Attention: query_layernorm/key_layernorm over head_dim; the
 * class leaves head_dim None (the attention then fails): h / a here. */
static const llmmem__qdef q_hunyuan_v1_dense[] = {
    Q_BASE("290943", "4096", "11008", "32", "32", "a", "2048"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), QD("qkn", "1"), Q_DROPOUT, Q_RMS,
};
#define HUNYUAN_QK_NORM \
    NORM("self_attn.query_layernorm", "d", "0", W_ALL), NORM("self_attn.key_layernorm", "d", "0", W_ALL)
static const llmmem__tdef t_hunyuan_v1_dense[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), HUNYUAN_QK_NORM, MLP_GATED("mlp", "f", W_ALL, "0"), LAYER_NORMS, FINAL_NORM,
    LM_HEAD,
};

/* HunYuanMoEV1Moe in every layer: gate.wg Linear(h, E) (kept in fp32), fused
 * experts and shared_mlp, all of width intermediate_size; moe_topk may be a
 * per-layer list (its mean is the top-k). */
static const llmmem__qdef q_hunyuan_v1_moe[] = {
    Q_BASE("290943", "4096", "11008", "32", "32", "a", "2048"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), QD("qkn", "1"),
    Q("E", "num_experts|num_local_experts", "1", NULL, COUNT), Q("ktot", "moe_topk|num_experts_per_tok", "L", NULL, LIST),
    QD("K", "ktot / L"), QD("fm", "f"), QD("fs", "f"), QD("ns", "1"), Q_DROPOUT, Q_RMS,
};
static const llmmem__tdef t_hunyuan_v1_moe[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), HUNYUAN_QK_NORM, LINEAR("mlp.gate.wg", "E", "h", ROUTER, MOE_LAYERS, "0"),
    PARAM("mlp.experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL),
    MLP_GATED("mlp.shared_mlp", "fs", MOE_LAYERS, "0"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- lfm2_moe, nemotron, ministral, cohere_compass_text ------------------------------ */

/* Lfm2Moe: each layer is attention (q/k/v/out_proj, q_layernorm/k_layernorm
 * over head_dim) or a gated short convolution (conv: in_proj Linear(h, 3h),
 * depthwise Conv1d(h, kernel conv_L_cache), out_proj; biases by conv_bias) by
 * layer_types; then a dense MLP w1/w3/w2 for the first num_dense_layers, else
 * a MoE (gate [E, h]; expert_bias is a buffer). operator_norm and ffn_norm;
 * the final norm is embedding_norm. */
static const llmmem__qdef q_lfm2_moe[] = {
    Q_BASE("65536", "2048", "7168", "32", "32", "8", "128000"), QD("d", "h / a"),
    Q("tie", "tie_word_embeddings|tie_embedding", "1", NULL, BOOL), Q("cb", "conv_bias", "0", NULL, BOOL),
    Q("conv_L", "conv_L_cache", "3", NULL, DIM), Q("E", "num_experts", "32", NULL, COUNT),
    Q("K", "num_experts_per_tok", "4", NULL, COUNT), Q("fm", "moe_intermediate_size", "1792", NULL, DIM),
    Q("kd", "num_dense_layers", "2", NULL, COUNT), QD("ab", "0"), QD("ob", "0"), QD("mb", "0"), QD("qkn", "1"), Q_RMS,
};
#define CONV_LAYERS W_MX(LLMMEM__MX(CONV))
static const llmmem__tdef t_lfm2_moe[] = {
    EMBED_TOKENS, LINEAR("self_attn.q_proj", "a * d", "h", ATTN, ATTN_LAYERS, "0"),
    LINEAR("self_attn.k_proj", "k * d", "h", ATTN, ATTN_LAYERS, "0"),
    LINEAR("self_attn.v_proj", "k * d", "h", ATTN, ATTN_LAYERS, "0"),
    LINEAR("self_attn.out_proj", "h", "a * d", ATTN, ATTN_LAYERS, "0"),
    NORM("self_attn.q_layernorm", "d", "0", ATTN_LAYERS), NORM("self_attn.k_layernorm", "d", "0", ATTN_LAYERS),
    PARAM("conv.conv.weight", "h", "conv_L", ATTN, CONV_LAYERS, NULL),
    PARAM("conv.conv.bias", "h", NULL, ATTN, CONV_LAYERS, "cb"), LINEAR("conv.in_proj", "3 * h", "h", ATTN, CONV_LAYERS, "cb"),
    LINEAR("conv.out_proj", "h", "h", ATTN, CONV_LAYERS, "cb"), LINEAR("feed_forward.w1", "f", "h", MLP, DENSE_LAYERS, "0"),
    LINEAR("feed_forward.w3", "f", "h", MLP, DENSE_LAYERS, "0"), LINEAR("feed_forward.w2", "h", "f", MLP, DENSE_LAYERS, "0"),
    MOE_EXPERTS("feed_forward", "gate"), NORM("operator_norm", "h", "0", W_ALL), NORM("ffn_norm", "h", "0", W_ALL),
    NORM("model.embedding_norm", "h", "0", W_ONCE), LM_HEAD,
};

/* Nemotron: LayerNorm1P (weight + bias, scaled by 1 + weight), a relu2 MLP
 * up_proj/down_proj (mlp_bias), partial rotary; num_key_value_heads has no
 * default (None) there: num_attention_heads here. */
static const llmmem__qdef q_nemotron[] = {
    Q_BASE("256000", "6144", "24576", "32", "48", "a", "4096"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("mb", "mlp_bias", "0", NULL, BOOL), Q_ROTARY("0.5"),
    Q_DROPOUT, Q_LN, QD("gated", "0"),
};
static const llmmem__tdef t_nemotron[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), LINEAR("mlp.up_proj", "f", "h", MLP, W_ALL, "mb"),
    LINEAR("mlp.down_proj", "h", "f", MLP, W_ALL, "mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* Ministral: mistral's layout, every layer sliding when sliding_window is set
 * (layer_types); head_dim None there: h / a here. */
static const llmmem__qdef q_ministral[] = {
    Q_BASE("32000", "4096", "14336", "32", "32", "8", "131072"), Q_HEAD_DIM("h / a"), Q_TIE("0"),
    Q("sw", "sliding_window", "4096", "0", POS), QD("ab", "0"), QD("ob", "0"), QD("mb", "0"), Q_DROPOUT, Q_RMS,
};
#define t_ministral t_granite

/* CohereCompassTextModel: cohere's parallel block (one input_layernorm, a
 * LayerNorm without bias, feeding attention and MLP), head_dim = h / a,
 * tied; sliding layers by layer_types (all full by default). */
static const llmmem__qdef q_cohere_compass_text[] = {
    Q_BASE("256000", "8192", "22528", "40", "64", "a", "8192"), QD("d", "h / a"), Q_TIE("1"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "0"), Q("sw", "sliding_window", "4096", "0", POS),
    QD("par", "1"), Q_DROPOUT, QD("norm", "2"), QD("npl", "1"), QD("hb", "0"), QD("gated", "1"),
};
static const llmmem__tdef t_cohere_compass_text[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", W_ALL, "0"), NORM("input_layernorm", "h", "2", W_ALL),
    NORM("model.norm", "h", "2", W_ONCE), LM_HEAD,
};

/* ---- the entries -------------------------------------------------------------------- */

#define ENTRY(type, fam, mixer, ffn, norm, act, about) \
    {#type, LLMMEM__FAM_##fam, ROWS(q_##type), ROWS(t_##type), mixer, ffn, LLMMEM__NORM_##norm, LLMMEM__ACT_##act, about}
#define SLIDING_ALL MIXER_LIST(NULL, NULL, LLMMEM__MR_SLIDING, NULL, NULL, 0, 0, NULL)
#define LAYER_TYPES_SLIDING MIXER_LIST("layer_types", LAYER_TYPES, LLMMEM__MR_SLIDING, NULL, NULL, 0, 0, NULL)

const llmmem__arch llmmem__fam_dense2[] = {
    ENTRY(granite, LLAMA, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_granite.py: llama with scalar multipliers"),
    ENTRY(granite_swa, LLAMA, EVERY_4TH_FULL("0"), FFN_DENSE, RMS, SILU_GLU,
          "modeling_granite_swa.py: attention sinks, 3 sliding : 1 full"),
    ENTRY(granitemoe, LLAMA, MIXER_FULL, FFN_MOE, RMS, SILU_GLU, "modeling_granitemoe.py: every layer MoE"),
    ENTRY(granitemoeshared, LLAMA, MIXER_FULL, FFN_MOE, RMS, SILU_GLU,
          "modeling_granitemoeshared.py: MoE + shared_mlp"),
    ENTRY(granitemoe_swa, LLAMA, EVERY_4TH_FULL("0"), FFN_MOE, RMS, SILU_GLU,
          "modeling_granitemoe_swa.py: sinks, 3 sliding : 1 full, MoE + shared_mlp"),
    ENTRY(helium, LLAMA, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_helium.py: o_proj h x h"),
    ENTRY(hyperclovax, LLAMA, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_hyperclovax.py: peri-layer post norms"),
    ENTRY(mellum, LLAMA, MIXER_LIST("layer_types", LAYER_TYPES, LLMMEM__MR_FULL, NULL, NULL, 0, 0, NULL),
          FFN_LIST("mlp_layer_types", MLP_TYPES, LLMMEM__FR_MOE, NULL, NULL, NULL), RMS, SILU_GLU,
          "modeling_mellum.py: q/k norms, MoE or dense by mlp_layer_types"),
    ENTRY(ministral3, LLAMA, SLIDING_ALL, FFN_DENSE, RMS, SILU_GLU, "modeling_ministral3.py: mistral's layout"),
    ENTRY(smollm3, LLAMA, MIXER_LIST("layer_types", LAYER_TYPES, LLMMEM__MR_EXPR, NULL, NULL, 0, 0, "(i + 1) % nri == 0"),
          FFN_DENSE, RMS, SILU_GLU, "modeling_smollm3.py: NoPE (and sliding) every 4th layer"),
    ENTRY(seed_oss, LLAMA, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_seed_oss.py: q/k/v biases"),
    ENTRY(solar_open, LLAMA, MIXER_FULL, FFN_MOE, RMS, SILU_GLU, "modeling_solar_open.py: MoE + shared experts"),
    ENTRY(vaultgemma, GEMMA,
          MIXER_LIST("layer_types", LAYER_TYPES, LLMMEM__MR_PERIODIC, "2", "1", LLMMEM__MX_FULL, LLMMEM__MX_SLIDING,
                     NULL),
          FFN_DENSE, RMS, GELU_TANH_GLU, "modeling_vaultgemma.py: gemma-2 without post-norms"),
    ENTRY(olmo3, OLMO, EVERY_4TH_FULL("1"), FFN_DENSE, RMS, SILU_GLU, "modeling_olmo3.py: olmo2 + 3 sliding : 1 full"),
    ENTRY(stablelm, LLAMA, MIXER_FULL, FFN_DENSE, LAYER, SILU_GLU, "modeling_stablelm.py: LayerNorm, partial rotary"),
    ENTRY(phimoe, LLAMA, SLIDING_ALL, FFN_MOE, LAYER, SILU_GLU, "modeling_phimoe.py: LayerNorm, Linear router"),
    ENTRY(persimmon, GPT_NEOX, MIXER_FULL, FFN_DENSE, LAYER, RELU, "modeling_persimmon.py: fused qkv, relu2"),
    ENTRY(nanochat, LLAMA, MIXER_FULL, FFN_DENSE, NONPARAM, RELU, "modeling_nanochat.py: parameter-free norms, relu2"),
    ENTRY(jais2, STARCODER2, MIXER_FULL, FFN_DENSE, LAYER, RELU, "modeling_jais2.py: LayerNorm, relu2 up/down"),
    ENTRY(mpt, GPT_NEOX, MIXER_FULL, FFN_DENSE, LAYER_NOBIAS, GELU, "modeling_mpt.py: fused Wqkv, ALiBi"),
    ENTRY(xglm, OPT, MIXER_FULL, FFN_DENSE, LAYER, GELU, "modeling_xglm.py: sinusoidal positions (a buffer)"),
    ENTRY(youtu, DEEPSEEK, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_youtu.py: MLA, dense MLP"),
    ENTRY(minicpm3, DEEPSEEK, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_minicpm3.py: MLA, dense MLP"),
    ENTRY(hy_v3, LLAMA, MIXER_FULL, FIRST_DENSE, RMS, SILU_GLU,
          "modeling_hy_v3.py: q/k norms, first layer dense, MoE + shared experts"),
    ENTRY(hy_v4, DEEPSEEK, MIXER_LIST("layer_types", "deepseek_sparse_attention=0", LLMMEM__MR_FULL, NULL, NULL, 0, 0, NULL),
          FIRST_DENSE, RMS, SILU_GLU, "modeling_hy_v4.py: MLA + sparse-attention indexer, hyper-connections"),
    ENTRY(jetmoe, LLAMA, MIXER_FULL, FFN_MOE, RMS, SILU_GLU, "modeling_jetmoe.py: mixture of attention heads + MoE"),
    ENTRY(laguna, LLAMA, MIXER_LIST("layer_types", LAYER_TYPES, LLMMEM__MR_FULL, NULL, NULL, 0, 0, NULL), FIRST_DENSE, RMS,
          SILU_GLU, "modeling_laguna.py: heads per layer, gated attention output"),
    ENTRY(longcat_flash, DEEPSEEK, MIXER_FULL, FFN_MOE, RMS, SILU_GLU,
          "modeling_longcat_flash.py: two MLA + MLP sub-blocks per layer, zero-computation experts"),
    ENTRY(mimo_v2_flash, LLAMA,
          MIXER_LIST("layer_types", LAYER_TYPES, LLMMEM__MR_EXPR, NULL, NULL, 0, 0, "i == 0 || (i + 1) % 6 == 0 ? 0 : 1"),
          FIRST_DENSE, RMS, SILU_GLU, "modeling_mimo_v2_flash.py: sliding layers with 2x kv heads and sinks"),
    ENTRY(zaya, LLAMA, MIXER_LIST("layer_types", "hybrid=0,hybrid_sliding=1", LLMMEM__MR_FULL, NULL, NULL, 0, 0, NULL),
          FFN_MOE, RMS, SILU_GLU, "modeling_zaya.py: convolutional attention (CCA), router MLP"),
    ENTRY(dbrx, LLAMA, MIXER_FULL, FFN_MOE, LAYER_NOBIAS, SILU_GLU, "modeling_dbrx.py: fused Wqkv, w1/v1/w2 experts"),
    ENTRY(dots1, LLAMA, MIXER_LIST("layer_types", LAYER_TYPES, LLMMEM__MR_FROM, "mwl", NULL, 0, 0, NULL),
          FFN_RULE(LLMMEM__FR_FIRST_K, "kd", NULL, NULL), RMS, SILU_GLU, "modeling_dots1.py: q/k norms, MoE + shared"),
    ENTRY(hunyuan_v1_dense, LLAMA, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_hunyuan_v1_dense.py: q/k norms"),
    ENTRY(hunyuan_v1_moe, LLAMA, MIXER_FULL, FFN_MOE, RMS, SILU_GLU,
          "modeling_hunyuan_v1_moe.py: q/k norms, MoE + shared_mlp"),
    ENTRY(lfm2_moe, LLAMA, MIXER_LIST("layer_types", "full_attention=0,conv=5", LLMMEM__MR_FULL, NULL, NULL, 0, 0, NULL),
          FFN_RULE(LLMMEM__FR_FIRST_K, "kd", NULL, NULL), RMS, SILU_GLU,
          "modeling_lfm2_moe.py: short convolutions and attention, MoE after the dense layers"),
    ENTRY(nemotron, STARCODER2, MIXER_FULL, FFN_DENSE, LAYER, RELU, "modeling_nemotron.py: LayerNorm1P, relu2"),
    ENTRY(ministral, LLAMA, LAYER_TYPES_SLIDING, FFN_DENSE, RMS, SILU_GLU, "modeling_ministral.py: sliding layers"),
    ENTRY(cohere_compass_text, LLAMA, MIXER_LIST("layer_types", LAYER_TYPES, LLMMEM__MR_FULL, NULL, NULL, 0, 0, NULL),
          FFN_DENSE, LAYER_NOBIAS, SILU_GLU, "modeling_cohere_compass.py: the text model, parallel block"),
};
const int llmmem__fam_dense2_count = (int)LLMMEM_ARRAY_LEN(llmmem__fam_dense2);
