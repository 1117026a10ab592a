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

/* A Linear held by a shared block (W_SHARED: `count` copies at most). */
#define SLINEAR(name, out, in, kind, where, bias, count)                                        \
    {name, out, in, T_(kind), LLMMEM__TF_LINEAR, where, NULL, count},                           \
        {name, out, NULL, T_(kind), LLMMEM__TF_BIAS, where, bias, count}
#define SNORM(name, width, where, count) {name, width, NULL, T_(NORM), 0, where, NULL, count}

/* ---- shared rows ---------------------------------------------------------------- */

#define EMBED(name) WEIGHT(name, "V", "h", EMBED, W_ONCE)
#define LM_HEAD(name)                                                                 \
    {name, "V", "h", T_(HEAD), LLMMEM__TF_LINEAR, W_ONCE, "!tie", NULL},              \
        {name, "V", NULL, T_(HEAD), LLMMEM__TF_BIAS, W_ONCE, "0", NULL}
#define RMS(name, where) NORM(name, "h", "0", where)

/* q/k/v/o of `p` ("self_attn."): q has `q` rows (2 a d when gated), o reads a d. */
#define ATTN4(p, q, where, bias)                                                    \
    LINEAR(p "q_proj", q, "h", ATTN, where, bias), LINEAR(p "k_proj", "k * d", "h", ATTN, where, bias), \
        LINEAR(p "v_proj", "k * d", "h", ATTN, where, bias),                                            \
        LINEAR(p "o_proj", "h", "a * d", ATTN, where, bias)
/* act(gate(x)) * up(x) -> down, of width `f`. */
#define GATED_MLP(p, f, where, bias)                                                          \
    LINEAR(p "gate_proj", f, "h", MLP, where, bias), LINEAR(p "up_proj", f, "h", MLP, where, bias), \
        LINEAR(p "down_proj", "h", f, MLP, where, bias)
/* A layer's experts in transformers 5: gate_up_proj [E, 2 fm, h], down_proj [E, h, fm]. */
#define EXPERTS(p)                                                                           \
    PARAM(p "experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL),             \
        PARAM(p "experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL)

/* MambaMixer (modeling_mamba.py): in_proj (x, z) -> depthwise conv1d ->
 * x_proj (dt, B, C) -> dt_proj -> selective scan with A_log, D -> out_proj. */
#define MAMBA1(p, where)                                                                            \
    PARAM(p "A_log", "I", "N", ATTN, where, NULL), PARAM(p "D", "I", NULL, ATTN, where, NULL),      \
        PARAM(p "conv1d.weight", "I", "ck", ATTN, where, NULL),                                     \
        PARAM(p "conv1d.bias", "I", NULL, ATTN, where, "cb"),                                       \
        LINEAR(p "in_proj", "2 * I", "h", ATTN, where, "ub"),                                       \
        LINEAR(p "x_proj", "R + 2 * N", "I", ATTN, where, "0"),                                     \
        LINEAR(p "dt_proj", "I", "R", ATTN, where, "1"), LINEAR(p "out_proj", "h", "I", ATTN, where, "ub")
/* Mamba2Mixer (modeling_mamba2.py): in_proj (z, x B C, dt) -> depthwise conv1d
 * over x B C (CD = I + 2 G N channels) -> chunked SSD scan with dt_bias, A_log,
 * D per head -> gated RMSNorm (when mn) -> out_proj (bias `ob`). */
#define MAMBA2(p, where, ob)                                                                        \
    PARAM(p "dt_bias", "H", NULL, ATTN, where, NULL), PARAM(p "A_log", "H", NULL, ATTN, where, NULL), \
        PARAM(p "D", "H", NULL, ATTN, where, NULL), PARAM(p "conv1d.weight", "CD", "ck", ATTN, where, NULL), \
        PARAM(p "conv1d.bias", "CD", NULL, ATTN, where, "cb"),                                      \
        LINEAR(p "in_proj", "I + CD + H", "h", ATTN, where, "ub"), NORM_IF(p "norm", "I", "0", where, "mn"), \
        LINEAR(p "out_proj", "h", "I", ATTN, where, ob)

/* The canonical Mamba symbols. */
#define Q_SSM1 QD("ssm_version", "1"), QD("ssm_inner", "I"), QD("ssm_state", "N"), QD("ssm_groups", "1"), \
    QD("ssm_heads", "I"), QD("ssm_conv", "ck"), QD("ssm_dt_rank", "R")
#define Q_SSM2 QD("ssm_version", "2"), QD("ssm_inner", "I"), QD("ssm_state", "N"), QD("ssm_groups", "G"), \
    QD("ssm_heads", "H"), QD("ssm_conv", "ck"), QD("ssm_dt_rank", "0"), QD("CD", "I + 2 * G * N")
#define Q_TIE(def) Q("tie", "tie_word_embeddings", def, NULL, BOOL)
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
    Q_SSM1, Q_RMS("1"),
    QD("gated", "0"), QI,
};
static const llmmem__tdef t_mamba[] = {
    EMBED("backbone.embeddings"), RMS("norm", W_ALL), MAMBA1("mixer.", W_ALL), RMS("backbone.norm_f", W_ONCE),
    LM_HEAD("lm_head"),
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
    QD("I", "ex * h"), QD("mn", "1"), Q_SSM2, Q_RMS("1"), QD("gated", "0"), QI,
};
static const llmmem__tdef t_mamba2[] = {
    EMBED("backbone.embeddings"), RMS("norm", W_ALL), MAMBA2("mixer.", W_ALL, "ub"),
    RMS("backbone.norm_f", W_ONCE), LM_HEAD("lm_head"),
};

/* ---- the entries -------------------------------------------------------------------- */

#define HYBRID_FAMILY(type, fam, mixer, ffn, norm, act, about)                                       \
    {#type, LLMMEM__FAM_##fam, ROWS(q_##type), ROWS(t_##type), mixer, ffn, LLMMEM__NORM_##norm,      \
     LLMMEM__ACT_##act, about}

const llmmem__arch llmmem__fam_hybrid[] = {
    HYBRID_FAMILY(mamba, LLAMA, MIXER_ALL(LLMMEM__MX_MAMBA), FFN_NONE, RMS, SILU_GLU,
                  "modeling_mamba.py: Mamba-1 selective scan, no MLP"),
    HYBRID_FAMILY(falcon_mamba, LLAMA, MIXER_ALL(LLMMEM__MX_MAMBA), FFN_NONE, RMS, SILU_GLU,
                  "modeling_falcon_mamba.py: Mamba-1 with parameter-free B/C/dt norms"),
    HYBRID_FAMILY(mamba2, LLAMA, MIXER_ALL(LLMMEM__MX_MAMBA), FFN_NONE, RMS, SILU_GLU,
                  "modeling_mamba2.py: Mamba-2 (SSD) heads, gated RMSNorm"),
};
const int llmmem__fam_hybrid_count = (int)LLMMEM_ARRAY_LEN(llmmem__fam_hybrid);
