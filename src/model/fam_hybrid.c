/* State-space, linear-attention and hybrid decoders
 * (huggingface/transformers src/transformers/models/<type>/modeling_<type>.py,
 * defaults from configuration_<type>.py of transformers 5.17): Mamba-1/2
 * mixers alone or between attention layers, gated delta rule and lightning
 * attention, short convolutions, RWKV, mLSTM and RG-LRU recurrences.
 *
 * Mixer tensors are of kind ATTN (the token mixer), conv1d weights are
 * parameters of their Conv1d module ([channels, 1, kernel] counted as
 * channels x kernel). The canonical mixer symbols (docs/models.md):
 * ssm_version ssm_inner ssm_state ssm_groups ssm_heads ssm_conv ssm_dt_rank
 * for Mamba layers, lin_kind lin_k_heads lin_k_dim lin_v_heads lin_v_dim
 * lin_conv for the linear recurrences, conv_L for short convolutions. Local
 * symbols: I (Mamba inner width), CD (Mamba-2 conv channels), H (Mamba-2
 * heads), N (state), ck (conv kernel), cb/ub (conv / projection biases). */
#include "model/families.h"

#define KF LLMMEM__K_FULL
#define KS LLMMEM__K_SLIDING
#define KL LLMMEM__K_LINEAR
#define KM LLMMEM__K_MAMBA
#define KN LLMMEM__K_NONE
#define KH LLMMEM__K_HYBRID
#define KD LLMMEM__K_DENSE
#define KE LLMMEM__K_MOE
#define KX LLMMEM__K_NOFFN

#define ON_MAMBA W_MX(LLMMEM__MX(MAMBA))
#define ON_LINEAR W_MX(LLMMEM__MX(LINEAR))
#define ON_CONV W_MX(LLMMEM__MX(CONV))
#define ON_HYBRID W_MX(LLMMEM__MX(HYBRID))
#define ON_FULL W_MX(LLMMEM__MX(FULL))
#define ON_SLIDING W_MX(LLMMEM__MX(SLIDING))
#define ON_SPARSE W_MX(LLMMEM__MX(SPARSE))

/* Every layer of one mixer kind (MR_PERIODIC without a period gives `off`). */
#define MIXER_ALL(kind) {LLMMEM__MR_PERIODIC, NULL, NULL, 0, kind, NULL, NULL, NULL, 0, NULL, 0}
#define FFN_NONE FFN_EXPR(KX)


/* ---- shared rows ---------------------------------------------------------------- */

#define EMBED(name) WEIGHT(name, "V", "h", EMBED, W_ONCE)
#define RMS(name, where) NORM(name, "h", "0", where)

/* q/k/v/o of `p` ("self_attn."): q has `q` rows (2 a d when gated), o reads a d. */
#define ATTN4(p, q, where, bias)                                                                         \
    LINEAR(p "q_proj", q, "h", ATTN, where, bias), LINEAR(p "k_proj", "k * d", "h", ATTN, where, bias),  \
        LINEAR(p "v_proj", "k * d", "h", ATTN, where, bias),                                             \
        LINEAR(p "o_proj", "h", "a * d", ATTN, where, bias)
/* act(gate(x)) * up(x) -> down, of width `f`. */
#define GATED_MLP(p, f, where, bias)                                                                 \
    LINEAR(p "gate_proj", f, "h", MLP, where, bias), LINEAR(p "up_proj", f, "h", MLP, where, bias),  \
        LINEAR(p "down_proj", "h", f, MLP, where, bias)
/* A layer's experts in transformers 5: gate_up_proj [E, 2 fm, h], down_proj [E, h, fm]. */
#define EXPERTS(p)                                                                 \
    PARAM(p "experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL),  \
        PARAM(p "experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL)

/* MambaMixer (modeling_mamba.py): in_proj (x, z) -> depthwise conv1d ->
 * x_proj (dt, B, C) -> dt_proj -> selective scan with A_log, D -> out_proj. */
#define MAMBA1(p, where)                                                                        \
    PARAM(p "A_log", "I", "N", ATTN, where, NULL), PARAM(p "D", "I", NULL, ATTN, where, NULL),  \
        PARAM(p "conv1d.weight", "I", "ck", ATTN, where, NULL),                                 \
        PARAM(p "conv1d.bias", "I", NULL, ATTN, where, "cb"),                                   \
        LINEAR(p "in_proj", "2 * I", "h", ATTN, where, "ub"),                                   \
        LINEAR(p "x_proj", "R + 2 * N", "I", ATTN, where, "0"),                                 \
        LINEAR(p "dt_proj", "I", "R", ATTN, where, "1"), LINEAR(p "out_proj", "h", "I", ATTN, where, "ub")
/* Mamba2Mixer (modeling_mamba2.py): in_proj (z, x B C, dt) -> depthwise conv1d
 * over x B C (CD = I + 2 G N channels) -> chunked SSD scan with dt_bias, A_log,
 * D per head -> gated RMSNorm (when mn) -> out_proj (bias `ob`). */
#define MAMBA2(p, where, ob)                                                                                  \
    PARAM(p "dt_bias", "H", NULL, ATTN, where, NULL), PARAM(p "A_log", "H", NULL, ATTN, where, NULL),         \
        PARAM(p "D", "H", NULL, ATTN, where, NULL), PARAM(p "conv1d.weight", "CD", "ck", ATTN, where, NULL),  \
        PARAM(p "conv1d.bias", "CD", NULL, ATTN, where, "cb"),                                                \
        LINEAR(p "in_proj", "I + CD + H", "h", ATTN, where, "ub"), NORM_IF(p "norm", "I", "0", where, "mn"),  \
        LINEAR(p "out_proj", "h", "I", ATTN, where, ob)

/* The canonical Mamba symbols. */
#define Q_SSM1 QD("ssm_version", "1"), QD("ssm_inner", "I"), QD("ssm_state", "N"), QD("ssm_groups", "1"),  \
    QD("ssm_heads", "I"), QD("ssm_conv", "ck"), QD("ssm_dt_rank", "R")
#define Q_SSM2 QD("ssm_version", "2"), QD("ssm_inner", "I"), QD("ssm_state", "N"), QD("ssm_groups", "G"),  \
    QD("ssm_heads", "H"), QD("ssm_conv", "ck"), QD("ssm_dt_rank", "0"), QD("CD", "I + 2 * G * N"),      \
    QD("ssm_chunk", "cs")
#define Q_RMS(npl) QD("norm", "0"), QD("npl", npl), QD("hb", "0")

/* ---- mamba, falcon_mamba, mamba2 ------------------------------------------------- */

/* MambaConfig / FalconMambaConfig: intermediate_size is expand x hidden_size
 * unless config.json names it (__post_init__ sets it before the extra keys),
 * time_step_rank "auto" = ceil(hidden / 16).
 * FalconMamba adds parameter-free RMS norms on B, C and dt. */
static const llmmem__qdef q_mamba[] = {
    Q("V", "vocab_size", "50280", NULL, VOCAB), Q("h", "hidden_size", "768", NULL, DIM),
    Q("L", "num_hidden_layers", "32", NULL, LAYERS), Q("N", "state_size", "16", NULL, DIM),
    Q("ex", "expand", "2", NULL, DIM), Q("ck", "conv_kernel", "4", NULL, DIM),
    Q("R", "time_step_rank", "cdiv(h, 16)", NULL, AUTO), Q("ub", "use_bias", "0", NULL, BOOL),
    Q("cb", "use_conv_bias", "1", NULL, BOOL), Q_TIE("1"), Q("I", "intermediate_size", "ex * h", NULL, DIM),
    Q_SSM1, Q_RMS("1"), Q("rf32", "residual_in_fp32", "1", NULL, BOOL),
    QD("gated", "0"), QI,
};
static const llmmem__tdef t_mamba[] = {
    EMBED("backbone.embeddings"), RMS("norm", W_ALL), MAMBA1("mixer.", W_ALL), RMS("backbone.norm_f", W_ONCE),
    HEAD_NOBIAS("lm_head"),
};
#define q_falcon_mamba q_mamba
#define t_falcon_mamba t_mamba

/* Mamba2Config: num_heads x head_dim must equal expand x hidden_size. */
static const llmmem__qdef q_mamba2[] = {
    Q("V", "vocab_size", "32768", NULL, VOCAB), Q("h", "hidden_size", "4096", NULL, DIM),
    Q("L", "num_hidden_layers", "64", NULL, LAYERS), Q("N", "state_size", "128", NULL, DIM),
    Q("ex", "expand", "2", NULL, DIM), Q("ck", "conv_kernel", "4", NULL, DIM), Q("H", "num_heads", "128", NULL, DIM),
    Q("P", "head_dim", "64", NULL, DIM), Q("G", "n_groups", "8", NULL, DIM), Q("ub", "use_bias", "0", NULL, BOOL),
    Q("cb", "use_conv_bias", "1", NULL, BOOL), Q("cs", "chunk_size", "256", NULL, DIM), Q_TIE("0"),
    QD("I", "ex * h"), QD("mn", "1"), Q_SSM2, Q_RMS("1"), Q("rf32", "residual_in_fp32", "1", NULL, BOOL),
    QD("gated", "0"), QI,
};
static const llmmem__tdef t_mamba2[] = {
    EMBED("backbone.embeddings"), RMS("norm", W_ALL), MAMBA2("mixer.", W_ALL, "ub"),
    RMS("backbone.norm_f", W_ONCE), HEAD_NOBIAS("lm_head"),
};

/* ---- bamba, granitemoehybrid, falcon_h1, nemotron_h (Mamba-2 hybrids) ------------------ */

/* The Mamba-2 keys of the mamba_* hybrids; mamba_d_head "auto" = expand h / heads. */
#define Q_MAMBA_KEYS(H, N)                                                                     \
    Q("H", "mamba_n_heads", H, NULL, DIM), Q("G", "mamba_n_groups", "1", NULL, DIM),           \
        Q("N", "mamba_d_state", N, NULL, DIM), Q("ck", "mamba_d_conv", "4", NULL, DIM),        \
        Q("ex", "mamba_expand", "2", NULL, DIM), Q("cb", "mamba_conv_bias", "1", NULL, BOOL),  \
        Q("ub", "mamba_proj_bias", "0", NULL, BOOL), Q("cs", "mamba_chunk_size", "256", "0", DIM0)
#define Q_ATTN(V, h, f, L, a, k, pos)                                                                 \
    Q("V", "vocab_size", V, NULL, VOCAB), Q("h", "hidden_size", h, NULL, DIM),                        \
        Q("f", "intermediate_size", f, NULL, DIM), Q("L", "num_hidden_layers", L, NULL, LAYERS),      \
        Q("a", "num_attention_heads", a, NULL, COUNT), Q("k", "num_key_value_heads", k, "a", COUNT),  \
        Q("pos", "max_position_embeddings", pos, NULL, POS)

/* BambaConfig: attention at attn_layer_indices, Mamba-2 elsewhere; every
 * layer has the MLP; partial_rotary_factor is fixed at 0.5. */
static const llmmem__qdef q_bamba[] = {
    Q_ATTN("128000", "4096", "14336", "32", "32", "8", "262144"), Q("d", "head_dim", "h / a", NULL, DIM),
    Q_TIE("0"), Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("mb", "mlp_bias", "0", NULL, BOOL),
    Q_MAMBA_KEYS("128", "256"), QD("I", "ex * h"), Q("P", "mamba_d_head", "I / H", NULL, AUTO), QD("mn", "1"),
    Q_SSM2, QR("prf", NULL, "0.5"), QR("pa", "attention_dropout", "0"), Q_RMS("2"), QD("gated", "1"), QI,
};
static const llmmem__tdef t_bamba[] = {
    EMBED("model.embed_tokens"), GATED_MLP("feed_forward.", "f", W_ALL, "mb"), RMS("input_layernorm", W_ALL),
    RMS("pre_ff_layernorm", W_ALL), MAMBA2("mamba.", ON_MAMBA, "ub"), ATTN4("self_attn.", "a * d", ATTN_LAYERS, "ab"),
    RMS("model.final_layernorm", W_ONCE), HEAD_NOBIAS("lm_head"),
};

/* GraniteMoeHybridConfig: layer_types (legacy "mamba"/"attention"), every
 * layer has the routed experts (when num_local_experts > 0) and the shared
 * MLP shared_mlp (input_linear 2 fs -> output_linear). */
static const llmmem__qdef q_granitemoehybrid[] = {
    Q("V", "vocab_size", "32000", NULL, VOCAB), Q("h", "hidden_size", "4096", NULL, DIM),
    Q("fm", "intermediate_size", "11008", NULL, DIM), Q("L", "num_hidden_layers", "32", NULL, LAYERS),
    Q("a", "num_attention_heads", "32", NULL, COUNT), Q("k", "num_key_value_heads", "a", "a", COUNT),
    Q("pos", "max_position_embeddings", "2048", NULL, POS), Q("d", "head_dim", "h / a", NULL, DIM), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("E", "num_local_experts", "8", NULL, COUNT),
    Q("K", "num_experts_per_tok", "2", NULL, COUNT), Q("fs", "shared_intermediate_size", "1024", NULL, DIM0),
    QD("f", "fs"), QD("ns", "fs > 0"), Q_MAMBA_KEYS("128", "256"), QD("I", "ex * h"),
    Q("P", "mamba_d_head", "I / H", NULL, AUTO), QD("mn", "1"), Q_SSM2, QR("pa", "attention_dropout", "0"),
    Q_RMS("2"), QD("gated", "1"), QI,
};
static const llmmem__tdef t_granitemoehybrid[] = {
    EMBED("model.embed_tokens"), RMS("input_layernorm", W_ALL), RMS("post_attention_layernorm", W_ALL),
    PARAM("block_sparse_moe.router.weight", "E", "h", ROUTER, MOE_LAYERS, NULL), EXPERTS("block_sparse_moe."),
    LINEAR("shared_mlp.input_linear", "2 * fs", "h", MLP, W_ALL, "0"),
    LINEAR("shared_mlp.output_linear", "h", "fs", MLP, W_ALL, "0"), MAMBA2("mamba.", ON_MAMBA, "ub"),
    ATTN4("self_attn.", "a * d", ATTN_LAYERS, "ab"), RMS("model.norm", W_ONCE), HEAD_NOBIAS("lm_head"),
};

/* FalconH1Config: every layer runs Mamba-2 and attention side by side on the
 * same input (a hybrid layer), then the MLP; mamba_d_ssm (null: expand h) is
 * the Mamba width; the gated norm only with mamba_rms_norm; out_proj's bias
 * is projectors_bias. */
static const llmmem__qdef q_falcon_h1[] = {
    Q_ATTN("128000", "4096", "14336", "32", "32", "8", "8192"), Q("d", "head_dim", "h / a", NULL, DIM),
    Q_TIE("0"), Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("mb", "mlp_bias", "0", NULL, BOOL),
    Q_MAMBA_KEYS("128", "256"), Q("I", "mamba_d_ssm", "1024", "ex * h", DIM),
    Q("P", "mamba_d_head", "I / H", NULL, AUTO), Q("pb", "projectors_bias", "0", NULL, BOOL),
    Q("mn", "mamba_rms_norm", "0", NULL, BOOL), Q_SSM2, QR("pa", "attention_dropout", "0"), Q_RMS("2"),
    QD("gated", "1"),
};
static const llmmem__tdef t_falcon_h1[] = {
    EMBED("model.embed_tokens"), GATED_MLP("feed_forward.", "f", W_ALL, "mb"), MAMBA2("mamba.", W_ALL, "pb"),
    ATTN4("self_attn.", "a * d", W_ALL, "ab"), RMS("input_layernorm", W_ALL), RMS("pre_ff_layernorm", W_ALL),
    RMS("model.final_layernorm", W_ONCE), HEAD_NOBIAS("lm_head"),
};

/* NemotronHConfig: each block is one of Mamba-2 ("M"), MoE ("E"), attention
 * ("*") or MLP ("-") after one norm, from layers_block_type (or the Hub's
 * hybrid_override_pattern); num_hidden_layers is its length. Non-gated relu2
 * MLP and experts (up_proj, down_proj), optional latent projections around the
 * experts, one shared MLP of moe_shared_expert_intermediate_size (0: intermediate_size,
 * NemotronHMLP's `intermediate_size or config.intermediate_size`). The Mamba
 * width is mamba_num_heads x mamba_head_dim; mamba_* keys override the plain ones.
 * NemotronHForCausalLM ties nothing (_tied_weights_keys is empty). */
static const llmmem__qdef q_nemotron_h[] = {
    Q("V", "vocab_size", "131072", NULL, VOCAB), Q("h", "hidden_size", "4096", NULL, DIM),
    Q("L", "layers_block_type|layer_types|hybrid_override_pattern", "4", NULL, LEN),
    Q("a", "num_attention_heads", "32", NULL, COUNT), Q("k", "num_key_value_heads", "8", "a", COUNT),
    Q("d", "head_dim", "128", "h / a", DIM), Q("pos", "max_position_embeddings", "4096", NULL, POS),
    Q("sw", "sliding_window", "0", "0", POS), Q("f", "intermediate_size", "21504", NULL, DIM),
    Q("mb", "mlp_bias", "0", NULL, BOOL), Q("H", "mamba_num_heads", "128", NULL, DIM),
    Q("P", "mamba_head_dim", "64", NULL, DIM), Q("N", "ssm_state_size", "128", NULL, DIM),
    Q("G", "mamba_n_groups|n_groups", "8", NULL, DIM), Q("ck", "mamba_d_conv|conv_kernel", "4", NULL, DIM),
    Q("cb", "mamba_conv_bias|use_conv_bias", "1", NULL, BOOL), Q("ub", "use_bias", "0", NULL, BOOL),
    Q("cs", "mamba_chunk_size|chunk_size", "128", NULL, DIM), QD("I", "H * P"), QD("mn", "1"), Q_SSM2,
    Q("E", "n_routed_experts|num_local_experts", "8", NULL, COUNT),
    Q("K", "num_experts_per_tok", "2", NULL, COUNT), Q("fm", "moe_intermediate_size", "7688", NULL, DIM),
    Q("fsk", "moe_shared_expert_intermediate_size", "7688", NULL, DIM0), QD("fs", "fsk ? fsk : f"), QD("ns", "1"),
    Q("lat", "moe_latent_size", "0", "0", DIM0), QD("ein", "lat ? lat : h"), QD("tie", "0"),
    QR("pa", "attention_dropout", "0"), QR("ph", "hidden_dropout", "0"), Q_RMS("1"), QD("gated", "0"), QI,
};
static const llmmem__tdef t_nemotron_h[] = {
    EMBED("model.embeddings"), RMS("norm", W_ALL), MAMBA2("mixer.", ON_MAMBA, "ub"),
    PARAM("mixer.gate.weight", "E", "h", ROUTER, MOE_LAYERS, NULL),
    PARAM("mixer.experts.up_proj", "E * fm", "ein", EXPERT, MOE_LAYERS, NULL),
    PARAM("mixer.experts.down_proj", "E * ein", "fm", EXPERT, MOE_LAYERS, NULL),
    LINEAR("mixer.shared_experts.up_proj", "fs", "h", MLP, MOE_LAYERS, "mb"),
    LINEAR("mixer.shared_experts.down_proj", "h", "fs", MLP, MOE_LAYERS, "mb"),
    LINEAR_IF("mixer.fc1_latent_proj", "lat", "h", MLP, MOE_LAYERS, "mb", "lat"),
    LINEAR_IF("mixer.fc2_latent_proj", "h", "lat", MLP, MOE_LAYERS, "mb", "lat"),
    ATTN4("mixer.", "a * d", ATTN_LAYERS, "0"), LINEAR("mixer.up_proj", "f", "h", MLP, DENSE_LAYERS, "mb"),
    LINEAR("mixer.down_proj", "h", "f", MLP, DENSE_LAYERS, "mb"), RMS("model.norm_f", W_ONCE), HEAD_NOBIAS("lm_head"),
};
#define NEMOTRON_H_KINDS  \
    "linear_attention=4/2,mamba=4/2,M=4/2,moe=6/1,E=6/1,full_attention=0/2,attention=0/2,*=0/2,mlp=6/0,-=6/0"

/* ---- jamba, zamba, zamba2 (Mamba hybrids with their own layouts) ------------------------ */

/* JambaConfig: attention where i % attn_layer_period == attn_layer_offset,
 * MoE where i % expert_layer_period == expert_layer_offset (num_experts > 1;
 * one expert is the dense MLP, so E is 0 then);
 * Mamba-1 with RMS norms on dt, B and C; the router is an nn.Linear. */
static const llmmem__qdef q_jamba[] = {
    Q_ATTN("65536", "4096", "14336", "32", "32", "8", "262144"), QD("d", "h / a"), Q_TIE("0"),
    Q("Ej", "num_experts|num_local_experts", "16", NULL, COUNT), QD("E", "Ej > 1 ? Ej : 0"),
    Q("K", "num_experts_per_tok", "2", NULL, COUNT), QD("fm", "f"),
    Q("ep", "expert_layer_period", "2", NULL, LAYERS), Q("eo", "expert_layer_offset", "1", NULL, COUNT),
    Q("ap", "attn_layer_period", "8", NULL, LAYERS), Q("ao", "attn_layer_offset", "4", NULL, COUNT),
    Q("N", "mamba_d_state", "16", NULL, DIM), Q("ck", "mamba_d_conv", "4", NULL, DIM),
    Q("ex", "mamba_expand", "2", NULL, DIM), Q("R", "mamba_dt_rank", "cdiv(h, 16)", NULL, AUTO),
    Q("cb", "mamba_conv_bias", "1", NULL, BOOL), Q("ub", "mamba_proj_bias", "0", NULL, BOOL), QD("I", "ex * h"),
    Q_SSM1, QR("pa", "attention_dropout", "0"), Q_RMS("2"), QD("gated", "1"), QI,
};
static const llmmem__tdef t_jamba[] = {
    EMBED("model.embed_tokens"), MAMBA1("mamba.", ON_MAMBA), NORM("mamba.dt_layernorm", "R", "0", ON_MAMBA),
    NORM("mamba.b_layernorm", "N", "0", ON_MAMBA), NORM("mamba.c_layernorm", "N", "0", ON_MAMBA),
    GATED_MLP("feed_forward.", "f", DENSE_LAYERS, "0"),
    LINEAR("feed_forward.router", "E", "h", ROUTER, MOE_LAYERS, "0"),
    EXPERTS("feed_forward."), RMS("input_layernorm", W_ALL), RMS("pre_ff_layernorm", W_ALL),
    ATTN4("self_attn.", "a * d", ATTN_LAYERS, "0"), RMS("model.final_layernorm", W_ONCE), HEAD_NOBIAS("lm_head"),
};

/* ZambaConfig: Mamba-1 layers, and every attn_layer_period-th layer (from
 * attn_layer_offset, after two Mamba layers and a hybrid one) a hybrid layer:
 * its own Mamba decoder (mamba_decoder), a Linear and the shared transformer
 * block (shared_transf, tied across the hybrid layers: held once) over
 * [hidden, embeddings], so attention_hidden_size = 2 h (untied copies when
 * tie_word_embeddings is false). The Mamba heads split
 * x_proj / dt_proj into n_mamba_heads parameter tensors. */
static const llmmem__qdef q_zamba[] = {
    Q("V", "vocab_size", "32000", NULL, VOCAB), Q("h", "hidden_size", "3712", NULL, DIM),
    Q("ah", "attention_hidden_size", "2 * h", "2 * h", DIM), Q("f", "intermediate_size", "14848", NULL, DIM),
    Q("L", "num_hidden_layers", "76", NULL, LAYERS), Q("a", "num_attention_heads", "16", NULL, COUNT),
    Q("d", "attention_head_dim|head_dim", "2 * h / a", "2 * h / a", DIM),
    Q("k", "num_key_value_heads", "16", NULL, COUNT), Q("pos", "max_position_embeddings", "4096", NULL, POS),
    Q("Hm", "n_mamba_heads", "2", NULL, DIM), Q("ap", "attn_layer_period", "6", NULL, LAYERS),
    Q("ao", "attn_layer_offset", "4", NULL, COUNT), Q("N", "mamba_d_state", "16", NULL, DIM),
    Q("ck", "mamba_d_conv", "4", NULL, DIM), Q("ex", "mamba_expand", "2", NULL, DIM),
    Q("R", "mamba_dt_rank", "cdiv(h, 16)", NULL, AUTO), Q("cb", "mamba_conv_bias", "1", NULL, BOOL),
    Q("ub", "mamba_proj_bias", "0", NULL, BOOL), Q_TIE("1"), QD("I", "ex * h"), QD("mhd", "I / Hm"),
    QD("L_hybrid", "0"),
    QD("ssm_version", "1"), QD("ssm_inner", "I"), QD("ssm_state", "N"), QD("ssm_groups", "1"),
    QD("ssm_heads", "Hm"), QD("ssm_conv", "ck"), QD("ssm_dt_rank", "R"), QR("pa", "attention_dropout", "0"),
    Q_RMS("2"), QD("gated", "1"), QI,
};
#define ZAMBA_MAMBA(p, where)                                                                                          \
    PARAM(p "x_proj_weight", "Hm * (R + 2 * N)", "mhd", ATTN, where, NULL),                                            \
        PARAM(p "dt_proj_weight", "Hm * mhd", "R", ATTN, where, NULL),                                                 \
        PARAM(p "dt_proj_bias", "Hm * mhd", NULL, ATTN, where, NULL),                                                  \
        PARAM(p "A_log", "Hm * mhd", "N", ATTN, where, NULL), PARAM(p "D", "Hm * mhd", NULL, ATTN, where, NULL),       \
        PARAM(p "conv1d.weight", "I", "ck", ATTN, where, NULL), PARAM(p "conv1d.bias", "I", NULL, ATTN, where, "cb"),  \
        LINEAR(p "in_proj", "2 * I", "h", ATTN, where, "ub"), LINEAR(p "out_proj", "h", "I", ATTN, where, "ub")
/* The hybrid layers' blocks are tied (one copy) only when tie_word_embeddings
 * is true: transformers 5 applies _tied_weights_keys under that flag alone. */
#define ZAMBA_COPIES "tie ? min(1, L_hybrid) : L_hybrid"
static const llmmem__tdef t_zamba[] = {
    EMBED("model.embed_tokens"), ZAMBA_MAMBA("mamba.", ON_MAMBA), RMS("input_layernorm", ON_MAMBA),
    ZAMBA_MAMBA("mamba_decoder.mamba.", ON_HYBRID), RMS("mamba_decoder.input_layernorm", ON_HYBRID),
    LINEAR("linear", "h", "h", ATTN, ON_HYBRID, "0"),
    LINEAR_N("shared_transf.self_attn.q_proj", "a * d", "ah", ATTN, ZAMBA_COPIES, "0"),
    LINEAR_N("shared_transf.self_attn.k_proj", "k * d", "ah", ATTN, ZAMBA_COPIES, "0"),
    LINEAR_N("shared_transf.self_attn.v_proj", "k * d", "ah", ATTN, ZAMBA_COPIES, "0"),
    LINEAR_N("shared_transf.self_attn.o_proj", "h", "a * d", ATTN, ZAMBA_COPIES, "0"),
    LINEAR_N("shared_transf.feed_forward.gate_proj", "f", "h", MLP, ZAMBA_COPIES, "0"),
    LINEAR_N("shared_transf.feed_forward.up_proj", "f", "h", MLP, ZAMBA_COPIES, "0"),
    LINEAR_N("shared_transf.feed_forward.down_proj", "h", "f", MLP, ZAMBA_COPIES, "0"),
    NORM_N("shared_transf.input_layernorm", "ah", "0", ZAMBA_COPIES),
    NORM_N("shared_transf.pre_ff_layernorm", "h", "0", ZAMBA_COPIES), RMS("model.final_layernorm", W_ONCE),
    HEAD_NOBIAS("lm_head"),
};
#define ZAMBA_RULE "i == 2 || i > 2 && (i - 3) % ap == ao"

/* Zamba2Config: Mamba-2 layers and hybrid layers (hybrid_layer_ids) whose
 * shared transformer blocks cycle through num_mem_blocks tied copies (held
 * min(num_mem_blocks, hybrid layers) times); each hybrid layer has its own
 * LoRA-like adapter in the block's MLP (gate_up_proj_adapter_list, rank
 * adapter_rank) and, with use_shared_attention_adapter, on q/k/v. The layers
 * are the entries of layers_block_type (54 by default); attention reads
 * [hidden, embeddings] (2 h), head_dim = 2 h / heads (attention_hidden_size and
 * attention_head_dim in config.json override them, as save_pretrained writes
 * them). hybrid_layer_ids must agree with layers_block_type (the adapter
 * lists have its length). */
static const llmmem__qdef q_zamba2[] = {
    Q("V", "vocab_size", "32000", NULL, VOCAB), Q("h", "hidden_size", "2560", NULL, DIM),
    Q("L", "layers_block_type|layer_types", "54", NULL, LEN), Q("f", "intermediate_size", "4 * h", "4 * h", DIM),
    Q("a", "num_attention_heads", "32", NULL, COUNT), Q("k", "num_key_value_heads", "a", "a", COUNT),
    Q("ah", "attention_hidden_size", "2 * h", NULL, DIM), Q("d", "attention_head_dim|head_dim", "2 * h / a", NULL, DIM),
    Q("pos", "max_position_embeddings", "4096", NULL, POS), QD("L_hybrid", "0"),
    Q("N", "mamba_d_state", "64", NULL, DIM), Q("ck", "mamba_d_conv", "4", NULL, DIM),
    Q("ex", "mamba_expand", "2", NULL, DIM), Q("G", "mamba_ngroups", "1", NULL, DIM),
    Q("H", "n_mamba_heads", "8", NULL, DIM), Q("ub", "add_bias_linear", "0", NULL, BOOL),
    Q("nmem", "num_mem_blocks", "1", NULL, LAYERS), Q("asa", "use_shared_attention_adapter", "0", NULL, BOOL),
    Q("r", "adapter_rank", "128", NULL, DIM), Q_TIE("1"), QD("I", "ex * h"), QD("cb", "1"), QD("mn", "1"),
    Q("cs", "chunk_size", "256", NULL, DIM), Q_SSM2,
    QR("pa", "attention_dropout", "0"), Q_RMS("2"), QD("gated", "1"), QI,
};
/* tied: the blocks cycle through num_mem_blocks copies, and hybrid layer i's
 * adapter sits in copy i % num_mem_blocks; untied (tie_word_embeddings false),
 * each hybrid layer's copy holds the adapters of all layers of its residue:
 * sum over residues of count^2. */
#define Z2_COPIES "tie ? min(nmem, L_hybrid) : L_hybrid"
#define Z2_ADAPTERS                                                                        \
    "tie ? L_hybrid : L_hybrid % nmem * (L_hybrid / nmem + 1) * (L_hybrid / nmem + 1) + "  \
    "(nmem - L_hybrid % nmem) * (L_hybrid / nmem) * (L_hybrid / nmem)"
#define Z2_ADAPTER(p, out, in, when)                                              \
    {p ".{j}.{j}", "r", in, T_(ATTN), LLMMEM__TF_LINEAR, W_N, when, Z2_ADAPTERS}, \
        {p ".{j}.{j}", out, "r", T_(ATTN), LLMMEM__TF_LINEAR, W_N, when, Z2_ADAPTERS}
static const llmmem__tdef t_zamba2[] = {
    EMBED("model.embed_tokens"), MAMBA2("mamba.", ON_MAMBA, "ub"), RMS("input_layernorm", ON_MAMBA),
    MAMBA2("mamba_decoder.mamba.", ON_HYBRID, "ub"), RMS("mamba_decoder.input_layernorm", ON_HYBRID),
    LINEAR("linear", "h", "h", ATTN, ON_HYBRID, "0"),
    LINEAR_N("shared_transformer.self_attn.q_proj", "a * d", "ah", ATTN, Z2_COPIES, "0"),
    LINEAR_N("shared_transformer.self_attn.k_proj", "k * d", "ah", ATTN, Z2_COPIES, "0"),
    LINEAR_N("shared_transformer.self_attn.v_proj", "k * d", "ah", ATTN, Z2_COPIES, "0"),
    LINEAR_N("shared_transformer.self_attn.o_proj", "h", "a * d", ATTN, Z2_COPIES, "0"),
    LINEAR_N("shared_transformer.feed_forward.gate_up_proj", "2 * f", "h", MLP, Z2_COPIES, "ub"),
    LINEAR_N("shared_transformer.feed_forward.down_proj", "h", "f", MLP, Z2_COPIES, "ub"),
    NORM_N("shared_transformer.input_layernorm", "ah", "0", Z2_COPIES),
    NORM_N("shared_transformer.pre_ff_layernorm", "h", "0", Z2_COPIES),
    Z2_ADAPTER("shared_transformer.feed_forward.gate_up_proj_adapter_list", "2 * f", "h", NULL),
    Z2_ADAPTER("shared_transformer.self_attn.linear_q_adapter_list", "ah", "ah", "asa"),
    Z2_ADAPTER("shared_transformer.self_attn.linear_k_adapter_list", "ah", "ah", "asa"),
    Z2_ADAPTER("shared_transformer.self_attn.linear_v_adapter_list", "ah", "ah", "asa"),
    RMS("model.final_layernorm", W_ONCE), HEAD_NOBIAS("lm_head"),
};
#define ZAMBA2_RULE "i > 0 && i <= 42 && i % 6 == 0 || i == 47 || i == 51"

/* ---- qwen3_next, qwen3_5_text, qwen3_5_moe_text, olmo_hybrid (gated delta rule) -------------- */

/* The gated DeltaNet keys (Qwen3NextConfig, Qwen3_5TextConfig) and the
 * canonical linear-attention symbols: lk key heads of dk, lv value heads of
 * dv, depthwise conv of lck over q, k, v. */
#define Q_GDN(lk, lv)                                                                                          \
    Q("lck", "linear_conv_kernel_dim", "4", NULL, DIM), Q("ldk", "linear_key_head_dim", "128", NULL, DIM),     \
        Q("ldv", "linear_value_head_dim", "128", NULL, DIM), Q("lhk", "linear_num_key_heads", lk, NULL, DIM),  \
        Q("lhv", "linear_num_value_heads", lv, NULL, DIM)
#define Q_LIN(kind)                                                                                    \
    QD("lin_kind", kind), QD("lin_k_heads", "lhk"), QD("lin_k_dim", "ldk"), QD("lin_v_heads", "lhv"),  \
        QD("lin_v_dim", "ldv"), QD("lin_conv", "lck"), QD("QK", "lhk * ldk"), QD("VV", "lhv * ldv")
/* Layer i is full attention when (i + 1) % full_attention_interval == 0. */
#define Q_QWEN_LAYERS                                                                      \
    Q("fai", "full_attention_interval", "4", NULL, LAYERS),                                \
        QR("prf", "partial_rotary_factor|rope_parameters.partial_rotary_factor", "0.25"),  \
        QR("pa", "attention_dropout", "0"), Q_RMS("2"), QD("gated", "1"), QD("qkn", "1"), QI
/* Qwen3NextAttention: q_proj gives the query and its output gate (2 a d). */
#define QWEN_GATED_ATTN                                                                                    \
    ATTN4("self_attn.", "2 * a * d", ATTN_LAYERS, "ab"), NORM("self_attn.q_norm", "d", "0", ATTN_LAYERS),  \
        NORM("self_attn.k_norm", "d", "0", ATTN_LAYERS)
/* Qwen3NextGatedDeltaNet: in_proj_qkvz (q, k, v, z) and in_proj_ba (beta, a). */
#define QWEN3_NEXT_GDN                                                                     \
    PARAM("linear_attn.dt_bias", "lhv", NULL, ATTN, ON_LINEAR, NULL),                      \
        PARAM("linear_attn.A_log", "lhv", NULL, ATTN, ON_LINEAR, NULL),                    \
        PARAM("linear_attn.conv1d.weight", "2 * QK + VV", "lck", ATTN, ON_LINEAR, NULL),   \
        LINEAR("linear_attn.in_proj_qkvz", "2 * QK + 2 * VV", "h", ATTN, ON_LINEAR, "0"),  \
        LINEAR("linear_attn.in_proj_ba", "2 * lhv", "h", ATTN, ON_LINEAR, "0"),            \
        NORM("linear_attn.norm", "ldv", "0", ON_LINEAR), LINEAR("linear_attn.out_proj", "h", "VV", ATTN, ON_LINEAR, "0")
/* Qwen3_5GatedDeltaNet: the same with in_proj_qkv, in_proj_z, in_proj_b, in_proj_a. */
#define QWEN3_5_GDN                                                                       \
    PARAM("linear_attn.dt_bias", "lhv", NULL, ATTN, ON_LINEAR, NULL),                     \
        PARAM("linear_attn.A_log", "lhv", NULL, ATTN, ON_LINEAR, NULL),                   \
        PARAM("linear_attn.conv1d.weight", "2 * QK + VV", "lck", ATTN, ON_LINEAR, NULL),  \
        NORM("linear_attn.norm", "ldv", "0", ON_LINEAR),                                  \
        LINEAR("linear_attn.out_proj", "h", "VV", ATTN, ON_LINEAR, "0"),                  \
        LINEAR("linear_attn.in_proj_qkv", "2 * QK + VV", "h", ATTN, ON_LINEAR, "0"),      \
        LINEAR("linear_attn.in_proj_z", "VV", "h", ATTN, ON_LINEAR, "0"),                 \
        LINEAR("linear_attn.in_proj_b", "lhv", "h", ATTN, ON_LINEAR, "0"),                \
        LINEAR("linear_attn.in_proj_a", "lhv", "h", ATTN, ON_LINEAR, "0")
/* Qwen2-MoE style block: gate, experts, shared_expert (width fs) and its gate. */
#define QWEN_MOE                                                        \
    WEIGHT("mlp.gate", "E", "h", ROUTER, MOE_LAYERS), EXPERTS("mlp."),  \
        GATED_MLP("mlp.shared_expert.", "fs", MOE_LAYERS, "0"),         \
        LINEAR("mlp.shared_expert_gate", "1", "h", ROUTER, MOE_LAYERS, "0")
#define QWEN_TAIL LINEAR_NORMS, RMS("model.norm", W_ONCE), HEAD_NOBIAS("lm_head")
#define LINEAR_NORMS RMS("input_layernorm", W_ALL), RMS("post_attention_layernorm", W_ALL)

/* Qwen3NextConfig: 3 gated-DeltaNet layers to 1 gated full-attention layer,
 * MoE on the decoder_sparse_step stride but mlp_only_layers. */
static const llmmem__qdef q_qwen3_next[] = {
    Q_ATTN("151936", "2048", "5632", "48", "16", "2", "32768"), Q("d", "head_dim", "256", NULL, DIM), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q_GDN("16", "32"), Q_LIN("1"),
    Q("step", "decoder_sparse_step", "1", NULL, LAYERS), Q("fm", "moe_intermediate_size", "512", NULL, DIM),
    Q("fs", "shared_expert_intermediate_size", "512", NULL, DIM0), QD("ns", "fs > 0"), QD("seg", "1"),
    Q("K", "num_experts_per_tok", "10", NULL, COUNT), Q("E", "num_experts", "512", NULL, COUNT), Q_QWEN_LAYERS,
};
static const llmmem__tdef t_qwen3_next[] = {
    EMBED("model.embed_tokens"), QWEN3_NEXT_GDN, QWEN_GATED_ATTN, GATED_MLP("mlp.", "f", DENSE_LAYERS, "0"),
    QWEN_MOE, QWEN_TAIL,
};

/* Qwen3_5TextConfig's mamba_ssm_dtype: the dtype of the gated DeltaNet's
 * recurrent state (the checkpoints say "float32"; vLLM reads it in
 * model_executor/models/config.py Qwen3_5ForConditionalGenerationConfig),
 * as the canonical ssm_dtype (enum llmmem__dtype: 1 fp32, 2 fp16, 3 bf16;
 * 0 when absent: the model dtype). */
#define Q_SSM_DTYPE QS("ssm_dtype", "mamba_ssm_dtype", "0", "0", "float32|float16|bfloat16")

/* Qwen3_5TextConfig (the text model of qwen3_5): dense MLP in every layer. */
static const llmmem__qdef q_qwen3_5_text[] = {
    Q_ATTN("248320", "4096", "12288", "32", "16", "4", "32768"), Q("d", "head_dim", "256", NULL, DIM), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q_GDN("16", "32"), Q_LIN("1"), Q_SSM_DTYPE,
    Q_QWEN_LAYERS,
};
static const llmmem__tdef t_qwen3_5_text[] = {
    EMBED("model.embed_tokens"), QWEN3_5_GDN, QWEN_GATED_ATTN, GATED_MLP("mlp.", "f", W_ALL, "0"), QWEN_TAIL,
};

/* Qwen3_5MoeTextConfig: every layer MoE with the shared expert. */
static const llmmem__qdef q_qwen3_5_moe_text[] = {
    Q("V", "vocab_size", "248320", NULL, VOCAB), Q("h", "hidden_size", "2048", NULL, DIM),
    Q("L", "num_hidden_layers", "40", NULL, LAYERS), Q("a", "num_attention_heads", "16", NULL, COUNT),
    Q("k", "num_key_value_heads", "2", "a", COUNT), Q("pos", "max_position_embeddings", "32768", NULL, POS),
    Q("d", "head_dim", "256", NULL, DIM), Q_TIE("0"), Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"),
    Q_GDN("16", "32"), Q_LIN("1"), Q_SSM_DTYPE, Q("fm", "moe_intermediate_size", "512", NULL, DIM), QD("f", "fm"),
    Q("fs", "shared_expert_intermediate_size", "512", NULL, DIM0), QD("ns", "fs > 0"), QD("seg", "1"),
    Q("K", "num_experts_per_tok", "8", NULL, COUNT), Q("E", "num_experts", "256", NULL, COUNT), Q_QWEN_LAYERS,
};
static const llmmem__tdef t_qwen3_5_moe_text[] = {
    EMBED("model.embed_tokens"), QWEN3_5_GDN, QWEN_GATED_ATTN, QWEN_MOE, QWEN_TAIL,
};
#define QWEN_LINEAR_RULE                                                                                 \
    MIXER_LIST("layer_types", "linear_attention=3,full_attention=0", LLMMEM__MR_EXPR, NULL, NULL, 0, 0,  \
               "(i + 1) % fai ? " KL " : " KF)

/* OlmoHybridConfig: gated DeltaNet (q/k/v/a/b/g projections, one conv over
 * q k v, allow_neg_eigval) in 3 layers of 4, OLMo-2 attention (q/k norms over
 * the whole projection) in the 4th; linear layers have pre-norms
 * (input_layernorm, post_attention_layernorm), attention layers post-norms
 * (post_attention_layernorm, post_feedforward_layernorm). Linear heads default
 * to the attention heads, key head dim to int(0.75 h / heads), value to 2x. */
static const llmmem__qdef q_olmo_hybrid[] = {
    Q_ATTN("100352", "3840", "11008", "32", "30", "a", "65536"), QD("d", "h / a"), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("lck", "linear_conv_kernel_dim", "4", NULL, DIM),
    Q("lhk", "linear_num_key_heads", "a", "a", DIM), Q("lhv", "linear_num_value_heads", "a", "a", DIM),
    Q("ldk", "linear_key_head_dim", "3 * h / (4 * lhk)", "3 * h / (4 * lhk)", DIM),
    Q("ldv", "linear_value_head_dim", "2 * ldk", "2 * ldk", DIM), Q_LIN("1"), QR("pa", "attention_dropout", "0"),
    Q_RMS("2"), QD("gated", "1"), QD("qkn", "1"), QI,
};
static const llmmem__tdef t_olmo_hybrid[] = {
    EMBED("model.embed_tokens"), GATED_MLP("mlp.", "f", W_ALL, "0"), RMS("input_layernorm", ON_LINEAR),
    RMS("post_attention_layernorm", W_ALL), PARAM("linear_attn.A_log", "lhv", NULL, ATTN, ON_LINEAR, NULL),
    PARAM("linear_attn.dt_bias", "lhv", NULL, ATTN, ON_LINEAR, NULL),
    LINEAR("linear_attn.q_proj", "QK", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("linear_attn.k_proj", "QK", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("linear_attn.v_proj", "VV", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("linear_attn.a_proj", "lhv", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("linear_attn.b_proj", "lhv", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("linear_attn.g_proj", "VV", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("linear_attn.o_proj", "h", "VV", ATTN, ON_LINEAR, "0"),
    PARAM("linear_attn.conv1d.weight", "2 * QK + VV", "lck", ATTN, ON_LINEAR, NULL),
    NORM("linear_attn.o_norm", "ldv", "0", ON_LINEAR), ATTN4("self_attn.", "a * d", ATTN_LAYERS, "ab"),
    NORM("self_attn.q_norm", "a * d", "0", ATTN_LAYERS), NORM("self_attn.k_norm", "k * d", "0", ATTN_LAYERS),
    RMS("post_feedforward_layernorm", ATTN_LAYERS), RMS("model.norm", W_ONCE), HEAD_NOBIAS("lm_head"),
};

/* ---- minimax, minimax_m2, minimax_m3_vl_text ------------------------------------------- */

/* MiniMaxConfig: lightning (linear) attention and softmax attention
 * alternate (full at even layers); lightning attention has a fused qkv_proj,
 * an output gate and a norm over a d. */
static const llmmem__qdef q_minimax[] = {
    Q_ATTN("32000", "4096", "14336", "32", "32", "8", "131072"), Q("d", "head_dim", "h / a", "h / a", DIM),
    Q_TIE("0"), Q("sw", "sliding_window", "0", "0", POS), Q("K", "num_experts_per_tok", "2", NULL, COUNT),
    Q("E", "num_local_experts|num_experts", "8", NULL, COUNT), QD("fm", "f"), QD("lin_kind", "2"),
    QD("lin_k_heads", "a"), QD("lin_k_dim", "d"), QD("lin_v_heads", "a"), QD("lin_v_dim", "d"), QD("lin_conv", "0"),
    Q("bs", "block_size", "256", NULL, DIM), QR("pa", "attention_dropout", "0"), Q_RMS("2"), QD("gated", "1"), QI,
};
static const llmmem__tdef t_minimax[] = {
    EMBED("model.embed_tokens"), ATTN4("self_attn.", "a * d", ATTN_LAYERS, "0"), LINEAR_NORMS,
    WEIGHT("mlp.gate", "E", "h", ROUTER, MOE_LAYERS), EXPERTS("mlp."), NORM("self_attn.norm", "a * d", "0", ON_LINEAR),
    LINEAR("self_attn.qkv_proj", "3 * a * d", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("self_attn.out_proj", "h", "a * d", ATTN, ON_LINEAR, "0"),
    LINEAR("self_attn.output_gate", "a * d", "h", ATTN, ON_LINEAR, "0"), RMS("model.norm", W_ONCE),
    HEAD_NOBIAS("lm_head"),
};

/* MiniMaxM2Config: softmax attention with q/k norms over the whole
 * projection, every layer MoE (no linear attention). */
static const llmmem__qdef q_minimax_m2[] = {
    Q_ATTN("200064", "3072", "1536", "62", "48", "8", "196608"), Q("d", "head_dim", "128", NULL, DIM), Q_TIE("0"),
    Q("K", "num_experts_per_tok", "8", NULL, COUNT), Q("E", "num_local_experts|num_experts", "256", NULL, COUNT),
    QD("fm", "f"), QD("qkn", "1"), QR("pa", "attention_dropout", "0"), Q_RMS("2"), QD("gated", "1"),
};
static const llmmem__tdef t_minimax_m2[] = {
    EMBED("model.embed_tokens"), ATTN4("self_attn.", "a * d", W_ALL, "0"),
    NORM("self_attn.q_norm", "a * d", "0", W_ALL),
    NORM("self_attn.k_norm", "k * d", "0", W_ALL), WEIGHT("mlp.gate", "E", "h", ROUTER, MOE_LAYERS), EXPERTS("mlp."),
    LINEAR_NORMS, RMS("model.norm", W_ONCE), HEAD_NOBIAS("lm_head"),
};

/* MiniMaxM3VLTextConfig: softmax attention with per-head q/k norms;
 * minimax_m3_sparse layers add an indexer (q_proj over index_n_heads, one
 * key head, norms) that picks index_topk_blocks blocks; mlp_layer_types
 * chooses MoE (routed + a shared MLP) or a dense MLP of dense_intermediate_size.
 * The Hub's sparse_attention_config / moe_layer_freq lists are read too. */
static const llmmem__qdef q_minimax_m3_vl_text[] = {
    Q("V", "vocab_size", "200064", NULL, VOCAB), Q("h", "hidden_size", "6144", NULL, DIM),
    Q("fm", "intermediate_size", "3072", NULL, DIM), Q("f", "dense_intermediate_size", "12288", NULL, DIM),
    Q("fs", "shared_intermediate_size", "3072", NULL, DIM0), QD("ns", "fs > 0"),
    Q("L", "num_hidden_layers", "60", NULL, LAYERS), Q("a", "num_attention_heads", "64", NULL, COUNT),
    Q("k", "num_key_value_heads", "4", NULL, COUNT), Q("d", "head_dim", "128", NULL, DIM),
    Q("pos", "max_position_embeddings", "524288", NULL, POS), Q_TIE("0"),
    Q("K", "num_experts_per_tok", "4", NULL, COUNT),
    Q("E", "num_local_experts|num_experts", "128", NULL, COUNT),
    Q("ih", "sparse_attention_config.sparse_num_index_heads|index_n_heads", "4", NULL, DIM),
    Q("id", "sparse_attention_config.sparse_index_dim|index_head_dim", "128", NULL, DIM),
    Q("rd", "rotary_dim", "64", NULL, DIM), QR("prf", NULL, "ratio(rd, d)"), QD("qkn", "1"),
    QR("pa", "attention_dropout", "0"), Q_RMS("2"), QD("gated", "1"),
};
static const llmmem__tdef t_minimax_m3_vl_text[] = {
    EMBED("model.embed_tokens"), ATTN4("self_attn.", "a * d", W_ALL, "0"), NORM("self_attn.q_norm", "d", "0", W_ALL),
    NORM("self_attn.k_norm", "d", "0", W_ALL), LINEAR("self_attn.indexer.q_proj", "ih * id", "h", ATTN, ON_SPARSE, "0"),
    LINEAR("self_attn.indexer.k_proj", "id", "h", ATTN, ON_SPARSE, "0"),
    NORM("self_attn.indexer.q_norm", "id", "0", ON_SPARSE), NORM("self_attn.indexer.k_norm", "id", "0", ON_SPARSE),
    LINEAR("mlp.gate_up_proj", "2 * f", "h", MLP, DENSE_LAYERS, "0"),
    LINEAR("mlp.down_proj", "h", "f", MLP, DENSE_LAYERS, "0"),
    PARAM("mlp.gate.weight", "E", "h", ROUTER, MOE_LAYERS, NULL), EXPERTS("mlp."),
    LINEAR("mlp.shared_experts.gate_up_proj", "2 * fs", "h", MLP, MOE_LAYERS, "0"),
    LINEAR("mlp.shared_experts.down_proj", "h", "fs", MLP, MOE_LAYERS, "0"), LINEAR_NORMS, RMS("model.norm", W_ONCE),
    HEAD_NOBIAS("lm_head"),
};

/* ---- kimi_linear, lfm2 ------------------------------------------------------------------ */

/* KimiLinearConfig: Kimi delta attention (q/k/v, one conv over them,
 * low-rank forget gate and output gate, beta) and MLA (DeepSeek-V2 layout)
 * layers; layer_types, else the Hub's 1-based linear_attn_config lists, else
 * full attention at 4, 8, ...; the first first_k_dense_replace layers dense,
 * MoE after (routed + num_shared_experts x moe_intermediate_size shared MLP).
 * The head is never tied (_tied_weights_keys is empty). */
static const llmmem__qdef q_kimi_linear[] = {
    Q_ATTN("163840", "2304", "9216", "27", "32", "a", "1048576"), Q("fm", "moe_intermediate_size", "1024", NULL, DIM),
    Q("ns", "num_shared_experts|n_shared_experts", "1", NULL, COUNT), QD("fs", "fm * ns"),
    Q("kvl", "kv_lora_rank", "512", NULL, DIM), Q("ql", "q_lora_rank", "0", "0", DIM0),
    Q("dr", "qk_rope_head_dim", "64", NULL, DIM), Q("dv", "v_head_dim", "128", NULL, DIM),
    Q("dn", "qk_nope_head_dim", "128", NULL, DIM), QD("d", "dn + dr"),
    Q("E", "num_experts|num_local_experts", "256", NULL, COUNT),
    Q("K", "num_experts_per_token|num_experts_per_tok", "8", NULL, COUNT), QD("tie", "0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"),
    Q("lhd", "linear_attn_config.head_dim|linear_head_dim", "128", NULL, DIM),
    Q("lnh", "linear_attn_config.num_heads|linear_num_heads", "32", NULL, DIM),
    Q("lck", "linear_attn_config.short_conv_kernel_size|linear_conv_kernel_dim", "4", NULL, DIM),
    QD("lin_kind", "3"), QD("lin_k_heads", "lnh"), QD("lin_k_dim", "lhd"), QD("lin_v_heads", "lnh"),
    QD("lin_v_dim", "lhd"), QD("lin_conv", "lck"), QD("QK", "lnh * lhd"),
    Q("fkd", "first_k_dense_replace", "1", NULL, COUNT), QR("pa", "attention_dropout", "0"), Q_RMS("2"),
    QD("gated", "1"), QI,
};
static const llmmem__tdef t_kimi_linear[] = {
    EMBED("model.embed_tokens"), LINEAR("self_attn.q_proj", "QK", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("self_attn.k_proj", "QK", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("self_attn.v_proj", "QK", "h", ATTN, ON_LINEAR, "0"),
    PARAM("self_attn.conv1d.weight", "3 * QK", "lck", ATTN, ON_LINEAR, NULL),
    PARAM("self_attn.forget_gate.dt_bias", "QK", NULL, ATTN, ON_LINEAR, NULL),
    PARAM("self_attn.forget_gate.A_log", "lnh", NULL, ATTN, ON_LINEAR, NULL),
    LINEAR("self_attn.forget_gate.f_a_proj", "lhd", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("self_attn.forget_gate.f_b_proj", "QK", "lhd", ATTN, ON_LINEAR, "0"),
    LINEAR("self_attn.b_proj", "lnh", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("self_attn.g_a_proj", "lhd", "h", ATTN, ON_LINEAR, "0"),
    LINEAR("self_attn.g_b_proj", "QK", "lhd", ATTN, ON_LINEAR, "0"), NORM("self_attn.o_norm", "lhd", "0", ON_LINEAR),
    LINEAR("self_attn.o_proj", "h", "QK", ATTN, ON_LINEAR, "0"),
    LINEAR_IF("self_attn.q_proj", "a * (dn + dr)", "h", ATTN, ATTN_LAYERS, "0", "!ql"),
    LINEAR_IF("self_attn.q_a_proj", "ql", "h", ATTN, ATTN_LAYERS, "ab", "ql"),
    NORM_IF("self_attn.q_a_layernorm", "ql", "0", ATTN_LAYERS, "ql"),
    LINEAR_IF("self_attn.q_b_proj", "a * (dn + dr)", "ql", ATTN, ATTN_LAYERS, "0", "ql"),
    LINEAR("self_attn.kv_a_proj_with_mqa", "kvl + dr", "h", ATTN, ATTN_LAYERS, "ab"),
    NORM("self_attn.kv_a_layernorm", "kvl", "0", ATTN_LAYERS),
    LINEAR("self_attn.kv_b_proj", "a * (dn + dv)", "kvl", ATTN, ATTN_LAYERS, "0"),
    LINEAR("self_attn.o_proj", "h", "a * dv", ATTN, ATTN_LAYERS, "ab"), GATED_MLP("mlp.", "f", DENSE_LAYERS, "0"),
    PARAM("mlp.gate.weight", "E", "h", ROUTER, MOE_LAYERS, NULL), EXPERTS("mlp."),
    GATED_MLP("mlp.shared_experts.", "fs", MOE_LAYERS, "0"), LINEAR_NORMS, RMS("model.norm", W_ONCE),
    HEAD_NOBIAS("lm_head"),
};

/* Lfm2Config: gated short convolutions (in_proj B C x, depthwise conv of
 * conv_L_cache, out_proj) and attention layers (q/k layernorms per head);
 * layer_types, else full_attn_idxs, else all attention. The SwiGLU width is
 * int(2 f / 3), times block_ffn_dim_multiplier and rounded up to
 * block_multiple_of when block_auto_adjust_ff_dim. The final norm is
 * embedding_norm. */
static const llmmem__qdef q_lfm2[] = {
    Q("V", "vocab_size", "65536", NULL, VOCAB), Q("h", "hidden_size", "2560", NULL, DIM),
    Q("fi", "block_ff_dim|intermediate_size", "12288", NULL, DIM), Q("L", "num_hidden_layers", "32", NULL, LAYERS),
    Q("a", "num_attention_heads", "32", NULL, COUNT), Q("k", "num_key_value_heads", "8", NULL, COUNT),
    Q("d", "head_dim", "h / a", NULL, DIM), Q("pos", "max_position_embeddings", "128000", NULL, POS),
    Q("tie", "tie_embedding|tie_word_embeddings", "1", NULL, BOOL), Q("cbias", "conv_bias", "0", NULL, BOOL),
    Q("conv_L", "conv_L_cache", "3", NULL, DIM), Q("mo", "block_multiple_of", "256", NULL, DIM),
    QRN("ffm", "block_ffn_dim_multiplier", "1", "0"), Q("aa", "block_auto_adjust_ff_dim", "1", NULL, BOOL),
    QD("f", "!aa ? fi : rmul(2 * fi / 3, ffm) > 0 ? cdiv(rmul(2 * fi / 3, ffm), mo) * mo : 2 * fi / 3"),
    QD("qkn", "1"), Q_RMS("2"), QD("gated", "1"),
};
static const llmmem__tdef t_lfm2[] = {
    EMBED("model.embed_tokens"), LINEAR("self_attn.q_proj", "a * d", "h", ATTN, ATTN_LAYERS, "0"),
    LINEAR("self_attn.k_proj", "k * d", "h", ATTN, ATTN_LAYERS, "0"),
    LINEAR("self_attn.v_proj", "k * d", "h", ATTN, ATTN_LAYERS, "0"),
    LINEAR("self_attn.out_proj", "h", "a * d", ATTN, ATTN_LAYERS, "0"),
    NORM("self_attn.q_layernorm", "d", "0", ATTN_LAYERS), NORM("self_attn.k_layernorm", "d", "0", ATTN_LAYERS),
    LINEAR("conv.in_proj", "3 * h", "h", ATTN, ON_CONV, "cbias"),
    PARAM("conv.conv.weight", "h", "conv_L", ATTN, ON_CONV, NULL),
    PARAM("conv.conv.bias", "h", NULL, ATTN, ON_CONV, "cbias"),
    LINEAR("conv.out_proj", "h", "h", ATTN, ON_CONV, "cbias"),
    LINEAR("feed_forward.w1", "f", "h", MLP, W_ALL, "0"), LINEAR("feed_forward.w3", "f", "h", MLP, W_ALL, "0"),
    LINEAR("feed_forward.w2", "h", "f", MLP, W_ALL, "0"), RMS("operator_norm", W_ALL), RMS("ffn_norm", W_ALL),
    RMS("model.embedding_norm", W_ONCE), HEAD_NOBIAS("lm_head"),
};

/* ---- recurrent_gemma, rwkv, xlstm (recurrent layers) ---------------------------------- */

/* RecurrentGemmaConfig: block_types repeated over the layers (2 RG-LRU
 * recurrent blocks, then local attention of attention_window_size); the
 * recurrent block: linear_x / linear_y (biased) into lru_width, depthwise
 * conv1d (biased), RG-LRU with block-diagonal input and recurrence gates per
 * head, linear_out; the GeGLU MLP has width intermediate_size / 2 with
 * biases; o_proj is biased. */
static const llmmem__qdef q_recurrent_gemma[] = {
    Q("V", "vocab_size", "256000", NULL, VOCAB), Q("h", "hidden_size", "2560", NULL, DIM),
    Q("fi", "intermediate_size", "7680", NULL, DIM), QD("f", "fi / 2"), Q("L", "num_hidden_layers", "26", NULL, LAYERS),
    Q("a", "num_attention_heads", "10", NULL, COUNT), Q("k", "num_key_value_heads", "a", "a", COUNT),
    Q("d", "head_dim", "h / a", NULL, DIM), Q("lw", "lru_width", "h", "h", DIM),
    Q("sw", "attention_window_size|sliding_window", "2048", NULL, POS), Q("ck", "conv1d_width", "4", NULL, DIM),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "1"), QD("mb", "1"), Q_TIE("1"), QD("pos", "sw"),
    QR("prf", "partial_rotary_factor|rope_parameters.partial_rotary_factor", "0.5"),
    QRN("fsc", "logits_soft_cap", "30", "0"),
    QR("pa", "attention_dropout", "0"), QD("lin_kind", "6"), QD("lin_k_heads", "a"), QD("lin_k_dim", "1"),
    QD("lin_v_heads", "a"), QD("lin_v_dim", "lw / a"), QD("lin_conv", "ck"), Q_RMS("2"), QD("gated", "1"),
};
static const llmmem__tdef t_recurrent_gemma[] = {
    EMBED("model.embed_tokens"), RMS("temporal_pre_norm", W_ALL), RMS("channel_pre_norm", W_ALL),
    LINEAR("temporal_block.linear_y", "lw", "h", ATTN, ON_LINEAR, "1"),
    LINEAR("temporal_block.linear_x", "lw", "h", ATTN, ON_LINEAR, "1"),
    LINEAR("temporal_block.linear_out", "h", "lw", ATTN, ON_LINEAR, "1"),
    PARAM("temporal_block.conv_1d.weight", "lw", "ck", ATTN, ON_LINEAR, NULL),
    PARAM("temporal_block.conv_1d.bias", "lw", NULL, ATTN, ON_LINEAR, NULL),
    PARAM("temporal_block.rg_lru.recurrent_param", "lw", NULL, ATTN, ON_LINEAR, NULL),
    PARAM("temporal_block.rg_lru.input_gate_weight", "a * (lw / a)", "lw / a", ATTN, ON_LINEAR, NULL),
    PARAM("temporal_block.rg_lru.input_gate_bias", "a * (lw / a)", NULL, ATTN, ON_LINEAR, NULL),
    PARAM("temporal_block.rg_lru.recurrent_gate_weight", "a * (lw / a)", "lw / a", ATTN, ON_LINEAR, NULL),
    PARAM("temporal_block.rg_lru.recurrent_gate_bias", "a * (lw / a)", NULL, ATTN, ON_LINEAR, NULL),
    LINEAR("temporal_block.q_proj", "a * d", "h", ATTN, ATTN_LAYERS, "ab"),
    LINEAR("temporal_block.k_proj", "k * d", "h", ATTN, ATTN_LAYERS, "ab"),
    LINEAR("temporal_block.v_proj", "k * d", "h", ATTN, ATTN_LAYERS, "ab"),
    LINEAR("temporal_block.o_proj", "h", "a * d", ATTN, ATTN_LAYERS, "1"), GATED_MLP("mlp_block.", "f", W_ALL, "1"),
    RMS("model.final_norm", W_ONCE), HEAD_NOBIAS("lm_head"),
};

/* RwkvConfig: time mixing (key/value/receptance of attention_hidden_size,
 * output; time_decay, time_first, time_mix_* per channel) and channel mixing
 * (key to intermediate_size, receptance, value) in every block; LayerNorms
 * with bias, block 0 has one more (pre_ln); the head is `head`. */
static const llmmem__qdef q_rwkv[] = {
    Q("V", "vocab_size", "50277", NULL, VOCAB), Q("h", "hidden_size", "4096", NULL, DIM),
    Q("A", "attention_hidden_size", "h", "h", DIM), Q("f", "intermediate_size", "4 * h", "4 * h", DIM),
    Q("L", "num_hidden_layers", "32", NULL, LAYERS),
    Q("pos", "context_length|max_position_embeddings", "1024", NULL, POS),
    Q_TIE("0"), QD("lin_kind", "4"), QD("lin_k_heads", "1"), QD("lin_k_dim", "1"), QD("lin_v_heads", "1"),
    QD("lin_v_dim", "A"), QD("lin_conv", "0"), QR("prf", NULL, "0"), QD("norm", "1"), QD("npl", "2"), QD("hb", "0"),
    QD("gated", "0"),
};
#define LN(name, where) NORM(name, "h", "1", where)
static const llmmem__tdef t_rwkv[] = {
    EMBED("rwkv.embeddings"), LN("rwkv.blocks.0.pre_ln", W_ONCE), LN("ln1", W_ALL), LN("ln2", W_ALL),
    PARAM("attention.time_decay", "A", NULL, ATTN, W_ALL, NULL),
    PARAM("attention.time_first", "A", NULL, ATTN, W_ALL, NULL),
    PARAM("attention.time_mix_key", "h", NULL, ATTN, W_ALL, NULL),
    PARAM("attention.time_mix_value", "h", NULL, ATTN, W_ALL, NULL),
    PARAM("attention.time_mix_receptance", "h", NULL, ATTN, W_ALL, NULL),
    LINEAR("attention.key", "A", "h", ATTN, W_ALL, "0"), LINEAR("attention.value", "A", "h", ATTN, W_ALL, "0"),
    LINEAR("attention.receptance", "A", "h", ATTN, W_ALL, "0"), LINEAR("attention.output", "h", "A", ATTN, W_ALL, "0"),
    PARAM("feed_forward.time_mix_key", "h", NULL, MLP, W_ALL, NULL),
    PARAM("feed_forward.time_mix_receptance", "h", NULL, MLP, W_ALL, NULL),
    LINEAR("feed_forward.key", "f", "h", MLP, W_ALL, "0"), LINEAR("feed_forward.receptance", "h", "h", MLP, W_ALL, "0"),
    LINEAR("feed_forward.value", "h", "f", MLP, W_ALL, "0"), LN("rwkv.ln_out", W_ONCE), HEAD_NOBIAS("head"),
};

/* xLSTMConfig: mLSTM blocks (q, k of int(h qk_dim_factor), v and the output
 * gate of int(h v_dim_factor), input/forget gates per head with bias, a
 * multi-head norm, out_proj) and a SwiGLU of h ffn_proj_factor rounded up to
 * ffn_round_up_to_multiple_of; use_bias adds biases to the projections and
 * norms. Names are those of weight_mode "single" ("fused" has the same counts
 * in qkv_opreact, ifgate_preact, proj_up_gate_z). xLSTMForCausalLM declares no
 * tied weights: lm_head is its own even with tie_word_embeddings. */
static const llmmem__qdef q_xlstm[] = {
    Q("V", "vocab_size", "50304", NULL, VOCAB), Q("e", "embedding_dim", "0", "0", DIM0),
    Q("h", "hidden_size", "4096", "e", DIM), QD("he", "e ? e : h"), Q("Ln", "num_hidden_layers", "32", "0", COUNT),
    Q("nb", "num_blocks", "0", "0", COUNT), QD("L", "nb ? nb : Ln"), Q("nh", "num_heads", "8", NULL, DIM),
    Q("ub", "use_bias", "0", NULL, BOOL), QR("qkf", "qk_dim_factor", "0.5"), QR("vf", "v_dim_factor", "1"),
    QR("fpf", "ffn_proj_factor", "2.667"), Q("frm", "ffn_round_up_to_multiple_of", "64", NULL, DIM),
    QD("tie", "0"), QD("QK", "rmul(h, qkf)"), QD("VV", "rmul(h, vf)"), QD("up", "cdiv(rmul(h, fpf), frm) * frm"),
    QD("f", "up"), QD("lin_kind", "5"), QD("lin_k_heads", "nh"), QD("lin_k_dim", "QK / nh"), QD("lin_v_heads", "nh"),
    QD("lin_v_dim", "VV / nh"), QD("lin_conv", "0"), QR("prf", NULL, "0"),
    QRN("fsc", "output_logit_soft_cap", "30", "0"),
    QD("norm", "ub"), QD("npl", "2"), QD("hb", "0"), QD("gated", "1"),
};
static const llmmem__tdef t_xlstm[] = {
    WEIGHT("backbone.embeddings", "V", "he", EMBED, W_ONCE), NORM("norm_mlstm", "h", "ub", W_ALL),
    LINEAR("mlstm_layer.q", "QK", "h", ATTN, W_ALL, "ub"), LINEAR("mlstm_layer.k", "QK", "h", ATTN, W_ALL, "ub"),
    LINEAR("mlstm_layer.v", "VV", "h", ATTN, W_ALL, "ub"),
    LINEAR("mlstm_layer.ogate_preact", "VV", "h", ATTN, W_ALL, "ub"),
    LINEAR("mlstm_layer.igate_preact", "nh", "h", ATTN, W_ALL, "1"),
    LINEAR("mlstm_layer.fgate_preact", "nh", "h", ATTN, W_ALL, "1"),
    NORM("mlstm_layer.multihead_norm", "nh * (VV / nh)", "ub", W_ALL),
    LINEAR("mlstm_layer.out_proj", "h", "VV", ATTN, W_ALL, "ub"),
    NORM("norm_ffn", "h", "ub", W_ALL), LINEAR("ffn.proj_up_gate", "up", "h", MLP, W_ALL, "ub"),
    LINEAR("ffn.proj_up", "up", "h", MLP, W_ALL, "ub"), LINEAR("ffn.proj_down", "h", "up", MLP, W_ALL, "ub"),
    RMS("backbone.out_norm", W_ONCE), HEAD_NOBIAS("lm_head"),
};

/* ---- hrm_text, inkling_text ------------------------------------------------------------- */

/* HrmTextConfig: two stacks of num_layers_per_stack layers (L_module,
 * H_module) run in H_cycles x (L_cycles + 1) stack passes; num_hidden_layers
 * is the number of layer passes (each has its KV cache slot), so the stacks'
 * weights are held once (W_N rows) and L counts the passes. Only the last
 * L_bp_cycles L-passes of each H cycle (padded with 1s in front) and the H
 * passes keep activations for backward (L_grad passes). Attention has a
 * sigmoid output gate (gate_proj); RMS norms have no weight; z_L_init is a
 * frozen parameter. */
static const llmmem__qdef q_hrm_text[] = {
    Q("V", "vocab_size", "151808", NULL, VOCAB), Q("h", "hidden_size", "1536", NULL, DIM),
    Q("f", "intermediate_size", "4096", NULL, DIM), Q("nl", "num_hidden_layers", "16", NULL, LAYERS),
    Q("nls", "num_layers_per_stack", "0", "0", DIM0), Q("Hc", "H_cycles", "2", NULL, LAYERS),
    Q("Lc", "L_cycles", "3", NULL, LAYERS), QD("S", "nls ? nls : nl"), QD("L", "nls ? nl : nl * Hc * (Lc + 1)"),
    Q("bps", "L_bp_cycles", "2", "2", LIST), Q("bpn", "L_bp_cycles", "1", "1", LEN),
    QD("L_grad", "S * (Hc + max(Hc - bpn, 0) + bps)"), Q("a", "num_attention_heads", "12", NULL, COUNT), QD("k", "a"),
    Q("d", "head_dim", "128", NULL, DIM), Q("pos", "max_position_embeddings", "2048", NULL, POS), Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "ab"), Q("mb", "mlp_bias", "0", NULL, BOOL),
    QR("pa", "attention_dropout", "0"), QD("norm", "3"), QD("npl", "2"), QD("hb", "0"), QD("gated", "1"),
};
#define HRM_STACK(p)                                                      \
    LINEAR_N(p "self_attn.q_proj", "a * d", "h", ATTN, "S", "ab"),        \
        LINEAR_N(p "self_attn.k_proj", "a * d", "h", ATTN, "S", "ab"),    \
        LINEAR_N(p "self_attn.v_proj", "a * d", "h", ATTN, "S", "ab"),    \
        LINEAR_N(p "self_attn.o_proj", "h", "a * d", ATTN, "S", "ab"),    \
        LINEAR_N(p "self_attn.gate_proj", "a * d", "h", ATTN, "S", "ab"), \
        LINEAR_N(p "mlp.gate_proj", "f", "h", MLP, "S", "mb"),            \
        LINEAR_N(p "mlp.up_proj", "f", "h", MLP, "S", "mb"),              \
        LINEAR_N(p "mlp.down_proj", "h", "f", MLP, "S", "mb")
static const llmmem__tdef t_hrm_text[] = {
    WEIGHT("model.z_L_init", "h", NULL, EMBED, W_ONCE), EMBED("model.embed_tokens"), HRM_STACK(""),
    HRM_STACK("model.H_module.layers.{j}."), HEAD_NOBIAS("lm_head"),
};

/* InklingTextConfig: every layer is attention with relative-position logits
 * (r_proj, rel_logits_proj) and short convolutions on k, v and around
 * attention and MLP (attn_sconv, mlp_sconv: 4 conv states per layer);
 * "hybrid_sliding" layers use the swa_* heads and sliding_window_size,
 * "hybrid" layers the full heads and rel_extent. The MoE router scores
 * n_routed_experts + n_shared_experts (shared experts weighted like routed
 * ones, kept as [n_shared, ...] parameters); dense layers (mlp_layer_types)
 * have a SwiGLU of intermediate_size with a global scale. The head is never
 * tied (_tied_weights_keys is empty). */
static const llmmem__qdef q_inkling_text[] = {
    Q("V", "vocab_size", "201024", NULL, VOCAB), Q("h", "hidden_size", "6144", NULL, DIM),
    Q("L", "num_hidden_layers", "66", NULL, LAYERS), Q("a", "num_attention_heads", "64", NULL, COUNT),
    Q("k", "num_key_value_heads", "8", NULL, COUNT), Q("d", "head_dim", "128", NULL, DIM),
    Q("sa", "swa_num_attention_heads", "64", NULL, COUNT), Q("sk", "swa_num_key_value_heads", "16", NULL, COUNT),
    Q("sd", "swa_head_dim", "128", NULL, DIM), Q("sw", "sliding_window_size|sliding_window", "512", NULL, POS),
    Q("drel", "d_rel", "16", NULL, DIM), Q("rext", "rel_extent", "1024", NULL, DIM),
    Q("pos", "max_position_embeddings|model_max_length", "131072", NULL, POS),
    Q("conv_L", "conv_kernel_size|sconv_kernel_size", "4", NULL, DIM),
    Q("f", "dense_intermediate_size|intermediate_size", "24576", NULL, DIM),
    Q("fm", "moe_intermediate_size", "3072", NULL, DIM),
    Q("E", "n_routed_experts|num_local_experts", "256", NULL, COUNT),
    Q("K", "num_experts_per_tok", "6", NULL, COUNT), Q("ns", "n_shared_experts", "2", NULL, COUNT),
    QD("fs", "ns * fm"), Q("dmi", "dense_mlp_idx", "0", NULL, COUNT), QD("tie", "0"), QD("qkn", "1"),
    QR("pa", "attention_dropout", "0"), Q_RMS("2"), QD("gated", "1"), QI,
};
#define INKLING_ATTN(a_, k_, d_, ext, where)                                                 \
    LINEAR("self_attn.q_proj", a_ " * " d_, "h", ATTN, where, "0"),                          \
        LINEAR("self_attn.k_proj", k_ " * " d_, "h", ATTN, where, "0"),                      \
        LINEAR("self_attn.v_proj", k_ " * " d_, "h", ATTN, where, "0"),                      \
        LINEAR("self_attn.r_proj", a_ " * drel", "h", ATTN, where, "0"),                     \
        LINEAR("self_attn.o_proj", "h", a_ " * " d_, ATTN, where, "0"),                      \
        PARAM("self_attn.k_sconv.conv1d.weight", k_ " * " d_, "conv_L", ATTN, where, NULL),  \
        PARAM("self_attn.v_sconv.conv1d.weight", k_ " * " d_, "conv_L", ATTN, where, NULL),  \
        NORM("self_attn.q_norm", d_, "0", where), NORM("self_attn.k_norm", d_, "0", where),  \
        PARAM("self_attn.rel_logits_proj.proj", "drel", ext, ATTN, where, NULL)
static const llmmem__tdef t_inkling_text[] = {
    EMBED("model.embed_tokens"), INKLING_ATTN("a", "k", "d", "rext", ON_FULL),
    INKLING_ATTN("sa", "sk", "sd", "sw", ON_SLIDING),
    GATED_MLP("mlp.", "f", DENSE_LAYERS, "0"), PARAM("mlp.global_scale", "1", NULL, MLP, DENSE_LAYERS, NULL),
    PARAM("mlp.gate.weight", "E + ns", "h", ROUTER, MOE_LAYERS, NULL),
    PARAM("mlp.gate.global_scale", "1", NULL, ROUTER, MOE_LAYERS, NULL), EXPERTS("mlp."),
    PARAM("mlp.shared_experts.gate_proj", "ns * fm", "h", MLP, MOE_LAYERS, NULL),
    PARAM("mlp.shared_experts.up_proj", "ns * fm", "h", MLP, MOE_LAYERS, NULL),
    PARAM("mlp.shared_experts.down_proj", "ns * h", "fm", MLP, MOE_LAYERS, NULL), LINEAR_NORMS,
    PARAM("attn_sconv.conv1d.weight", "h", "conv_L", ATTN, W_ALL, NULL),
    PARAM("mlp_sconv.conv1d.weight", "h", "conv_L", MLP, W_ALL, NULL), RMS("model.norm", W_ONCE),
    RMS("model.embed_norm", W_ONCE), HEAD_NOBIAS("lm_head"),
};

/* ---- the entries -------------------------------------------------------------------- */

#define HYBRID_FAMILY(type, fam, mixer, ffn, norm, act, about)                                   \
    {#type, LLMMEM__FAM_##fam, ROWS(q_##type), ROWS(t_##type), mixer, ffn, LLMMEM__NORM_##norm,  \
     LLMMEM__ACT_##act, about}

const llmmem__arch llmmem__fam_hybrid[] = {
    HYBRID_FAMILY(mamba, LLAMA, MIXER_ALL(LLMMEM__MX_MAMBA), FFN_NONE, RMS, SILU_GLU,
                  "modeling_mamba.py: Mamba-1 selective scan, no MLP"),
    HYBRID_FAMILY(falcon_mamba, LLAMA, MIXER_ALL(LLMMEM__MX_MAMBA), FFN_NONE, RMS, SILU_GLU,
                  "modeling_falcon_mamba.py: Mamba-1 with parameter-free B/C/dt norms"),
    HYBRID_FAMILY(mamba2, LLAMA, MIXER_ALL(LLMMEM__MX_MAMBA), FFN_NONE, RMS, SILU_GLU,
                  "modeling_mamba2.py: Mamba-2 (SSD) heads, gated RMSNorm"),
    HYBRID_FAMILY(bamba, LLAMA,
                  MIXER_IDX(NULL, NULL, "attn_layer_indices", 0, LLMMEM__MX_FULL, LLMMEM__MX_MAMBA, LLMMEM__MR_PERIODIC,
                            NULL, NULL, NULL),
                  FFN_DENSE, RMS, SILU_GLU, "modeling_bamba.py: Mamba-2, attention at attn_layer_indices"),
    HYBRID_FAMILY(granitemoehybrid, LLAMA,
                  MIXER_IDX("layer_types|layers_block_type",
                            "linear_attention=4,mamba=4,full_attention=0,attention=0", NULL, 0, 0,
                            LLMMEM__MX_MAMBA, LLMMEM__MR_PERIODIC, NULL, NULL, NULL),
                  FFN_MOE, RMS, SILU_GLU, "modeling_granitemoehybrid.py: Mamba-2/attention, MoE + shared MLP"),
    HYBRID_FAMILY(falcon_h1, LLAMA, MIXER_ALL(LLMMEM__MX_HYBRID), FFN_DENSE, RMS, SILU_GLU,
                  "modeling_falcon_h1.py: Mamba-2 and attention in parallel in every layer"),
    HYBRID_FAMILY(nemotron_h, LLAMA,
                  MIXER_LIST("layers_block_type|layer_types|hybrid_override_pattern", NEMOTRON_H_KINDS,
                             LLMMEM__MR_EXPR, NULL, NULL, 0, 0, "i == 0 ? " KM " : i == 2 ? " KF " : " KN),
                  FFN_EXPR("i == 1 ? " KE " : i == 3 ? " KD " : " KX), RMS, RELU,
                  "modeling_nemotron_h.py: one of Mamba-2 / MoE / attention / MLP per block"),
    HYBRID_FAMILY(jamba, LLAMA, MIXER_EXPR("i % ap == ao ? " KF " : " KM),
                  FFN_EXPR("E > 1 && i % ep == eo ? " KE " : " KD), RMS, SILU_GLU,
                  "modeling_jamba.py: Mamba-1 with 1 attention layer in 8, MoE every other layer"),
    HYBRID_FAMILY(zamba, LLAMA,
                  MIXER_LIST("layers_block_type|layer_types", "linear_attention=4/2,mamba=4/2,hybrid=7/0",
                             LLMMEM__MR_EXPR, NULL, NULL, 0, 0, ZAMBA_RULE " ? " KH " : " KM),
                  FFN_EXPR(ZAMBA_RULE " ? " KD " : " KX), RMS, GELU_TANH_GLU,
                  "modeling_zamba.py: Mamba-1, a shared attention block every 6th layer"),
    HYBRID_FAMILY(zamba2, LLAMA,
                  MIXER_LIST("layers_block_type|layer_types", "linear_attention=4/2,mamba=4/2,hybrid=7/0",
                             LLMMEM__MR_EXPR, NULL, NULL, 0, 0, ZAMBA2_RULE " ? " KH " : " KM),
                  FFN_EXPR(ZAMBA2_RULE " ? " KD " : " KX), RMS, GELU_TANH_GLU,
                  "modeling_zamba2.py: Mamba-2, num_mem_blocks shared blocks with per-layer adapters"),
    HYBRID_FAMILY(qwen3_next, LLAMA, QWEN_LINEAR_RULE, FFN_RULE(LLMMEM__FR_STEP, "step", NULL, "mlp_only_layers"),
                  RMS, SILU_GLU, "modeling_qwen3_next.py: gated DeltaNet 3:1 gated attention, MoE + shared expert"),
    HYBRID_FAMILY(qwen3_5_text, LLAMA, QWEN_LINEAR_RULE, FFN_DENSE, RMS, SILU_GLU,
                  "modeling_qwen3_5.py: the text model, gated DeltaNet 3:1 gated attention"),
    HYBRID_FAMILY(qwen3_5_moe_text, LLAMA, QWEN_LINEAR_RULE, FFN_MOE, RMS, SILU_GLU,
                  "modeling_qwen3_5_moe.py: the text model, every layer MoE"),
    HYBRID_FAMILY(olmo_hybrid, OLMO,
                  MIXER_LIST("layer_types", "linear_attention=3,full_attention=0", LLMMEM__MR_EXPR, NULL, NULL, 0, 0,
                             "i % 4 == 3 || L < 4 && i == L - 1 ? " KF " : " KL),
                  FFN_DENSE, RMS, SILU_GLU, "modeling_olmo_hybrid.py: gated DeltaNet 3:1 OLMo-2 attention"),
    HYBRID_FAMILY(minimax, LLAMA,
                  MIXER_LIST("layer_types", "full_attention=0,sliding_attention=1,linear_attention=3", LLMMEM__MR_EXPR,
                             NULL, NULL, 0, 0, "i % 2 ? " KL " : " KF),
                  FFN_MOE, RMS, SILU_GLU,
                  "modeling_minimax.py: lightning attention alternating with softmax attention"),
    HYBRID_FAMILY(minimax_m2, LLAMA, MIXER_FULL, FFN_MOE, RMS, SILU_GLU,
                  "modeling_minimax_m2.py: attention with q/k norms, every layer MoE"),
    HYBRID_FAMILY(minimax_m3_vl_text, LLAMA,
                  MIXER_LIST("layer_types|sparse_attention_config.sparse_attention_freq",
                             "full_attention=0,minimax_m3_sparse=8,0=0,1=8", LLMMEM__MR_FULL, NULL, NULL, 0, 0, NULL),
                  FFN_LIST("mlp_layer_types|moe_layer_freq", "dense=0,sparse=1,0=0,1=1", LLMMEM__FR_MOE, NULL, NULL,
                           NULL),
                  RMS, SWIGLU_OAI, "modeling_minimax_m3_vl.py: the text model, indexer-sparse attention layers"),
    HYBRID_FAMILY(kimi_linear, DEEPSEEK,
                  MIXER_IDX("layer_types", "linear_attention=3,full_attention=0",
                            "linear_attn_config.full_attn_layers", 1,
                            LLMMEM__MX_FULL, LLMMEM__MX_LINEAR, LLMMEM__MR_EXPR, NULL, NULL,
                            "i > 0 && i % 4 == 0 ? " KF " : " KL),
                  FFN_LIST("mlp_layer_types", "dense=0,sparse=1", LLMMEM__FR_FIRST_K, "fkd", NULL, NULL), RMS, SILU_GLU,
                  "modeling_kimi_linear.py: Kimi delta attention 3:1 MLA, MoE after the first layer"),
    HYBRID_FAMILY(lfm2, LLAMA,
                  MIXER_IDX("layer_types", "full_attention=0,conv=5,linear_attention=5", "full_attn_idxs", 0,
                            LLMMEM__MX_FULL, LLMMEM__MX_CONV, LLMMEM__MR_FULL, NULL, NULL, NULL),
                  FFN_DENSE, RMS, SILU_GLU, "modeling_lfm2.py: gated short convolutions and attention"),
    HYBRID_FAMILY(recurrent_gemma, GEMMA,
                  MIXER_CYCLE("block_types", "recurrent=3,attention=1", LLMMEM__MR_PERIODIC, "3", "1",
                              LLMMEM__MX_SLIDING,
                              LLMMEM__MX_LINEAR),
                  FFN_DENSE, RMS, GELU_TANH_GLU, "modeling_recurrent_gemma.py: 2 RG-LRU blocks to 1 local attention"),
    HYBRID_FAMILY(rwkv, LLAMA, MIXER_ALL(LLMMEM__MX_LINEAR), FFN_DENSE, LAYER, RELU,
                  "modeling_rwkv.py: RWKV-4 time mixing and channel mixing"),
    HYBRID_FAMILY(xlstm, LLAMA, MIXER_ALL(LLMMEM__MX_LINEAR), FFN_DENSE, RMS, SILU_GLU,
                  "modeling_xlstm.py: mLSTM blocks with a SwiGLU"),
    HYBRID_FAMILY(hrm_text, LLAMA, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU,
                  "modeling_hrm_text.py: two stacks recurring in H/L cycles, gated attention"),
    HYBRID_FAMILY(inkling_text, LLAMA,
                  MIXER_IDX("layer_types", "hybrid_sliding=1,hybrid=0", "local_layer_ids", 0, LLMMEM__MX_SLIDING,
                            LLMMEM__MX_FULL, LLMMEM__MR_EXPR, NULL, NULL, "(i + 1) % 6 ? " KS " : " KF),
                  FFN_LIST("mlp_layer_types", "dense=0,sparse=1", LLMMEM__FR_FIRST_K, "dmi", NULL, NULL), RMS, SILU_GLU,
                  "modeling_inkling.py: the text model, attention with short convolutions, 5 local : 1 global"),
};
const int llmmem__fam_hybrid_count = (int)LLMMEM_ARRAY_LEN(llmmem__fam_hybrid);
