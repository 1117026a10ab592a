/* Families with their own layouts: GPT-2, GPT-NeoX, GPT-J, OPT, Falcon, Phi
 * (huggingface/transformers src/transformers/models/<type>/modeling_<type>.py),
 * DeepSeek-V2/V3 (MLA + MoE), and the two entries that are not a model_type:
 * `raw` (a llama-like model from numbers) and `generic` (an unknown
 * model_type, estimated from the keys the registry recognises). */
#include "model/families.h"

#define LN "1"
#define Q_LN QD("norm", "1")

/* A non-gated MLP of two Linears with biases `bias`. */
#define MLP2(up, down, bias) \
    LINEAR(up, "f", "h", MLP, W_ALL, bias), LINEAR(down, "h", "f", MLP, W_ALL, bias)

/* ---- GPT-2: Conv1D c_attn/c_proj/c_fc, learned positions ---------------------------- */

static const llmmem__qdef q_gpt2[] = {
    Q("V", "vocab_size", "50257", NULL, VOCAB), Q("h", "n_embd|hidden_size", "768", NULL, DIM),
    Q("L", "n_layer|num_hidden_layers", "12", NULL, LAYERS), Q("a", "n_head|num_attention_heads", "12", NULL, COUNT),
    Q("f", "n_inner", "4 * h", "4 * h", DIM), Q("pos", "n_positions|max_position_embeddings", "1024", NULL, POS),
    Q("tie", "tie_word_embeddings", "1", NULL, BOOL), QD("k", "a"), QD("d", "h / a"),
    QR("pa", "attn_pdrop", "0.1"), QR("ph", "resid_pdrop", "0.1"), QR("pe", "embd_pdrop", "0.1"), QR("prf", NULL, "0"),
    QD("ab", "1"), QD("mb", "1"), QD("hb", "0"), Q_LN, QD("npl", "2"), QD("gated", "0"),
};
static const llmmem__tdef t_gpt2[] = {
    WEIGHT("transformer.wte", "V", "h", EMBED, W_ONCE), WEIGHT("transformer.wpe", "pos", "h", EMBED, W_ONCE),
    NORM("ln_1", "h", LN, W_ALL), LINEAR("attn.c_attn", "3 * h", "h", ATTN, W_ALL, "1"),
    LINEAR("attn.c_proj", "h", "h", ATTN, W_ALL, "1"), NORM("ln_2", "h", LN, W_ALL),
    MLP2("mlp.c_fc", "mlp.c_proj", "1"), NORM("transformer.ln_f", "h", LN, W_ONCE), HEAD_ROWS("lm_head"),
};

/* ---- GPT-NeoX: fused query_key_value, partial rotary ---------------------------------- */

#define Q_ROTARY(key, def) \
    QR("prf", "rope_parameters.partial_rotary_factor|rope_scaling.partial_rotary_factor|" key, def)

static const llmmem__qdef q_gpt_neox[] = {
    Q("V", "vocab_size", "50432", NULL, VOCAB), Q("h", "hidden_size", "6144", NULL, DIM),
    Q("f", "intermediate_size", "24576", NULL, DIM), Q("L", "num_hidden_layers", "44", NULL, LAYERS),
    Q("a", "num_attention_heads", "64", NULL, COUNT), Q("pos", "max_position_embeddings", "2048", NULL, POS),
    Q("tie", "tie_word_embeddings", "0", NULL, BOOL), QD("k", "a"), QD("d", "h / a"),
    Q("ab", "attention_bias", "1", NULL, BOOL), QD("mb", "1"), QD("hb", "0"), Q_ROTARY("rotary_pct", "0.25"),
    QR("pa", "attention_dropout", "0"), QR("ph", "hidden_dropout", "0"), Q_LN, QD("npl", "2"), QD("gated", "0"),
};
static const llmmem__tdef t_gpt_neox[] = {
    WEIGHT("gpt_neox.embed_in", "V", "h", EMBED, W_ONCE), NORM("input_layernorm", "h", LN, W_ALL),
    NORM("post_attention_layernorm", "h", LN, W_ALL),
    LINEAR("attention.query_key_value", "3 * h", "h", ATTN, W_ALL, "ab"),
    LINEAR("attention.dense", "h", "h", ATTN, W_ALL, "ab"),
    MLP2("mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "1"), NORM("gpt_neox.final_layer_norm", "h", LN, W_ONCE),
    HEAD_ROWS("embed_out"),
};

/* ---- GPT-J: parallel block, rotary_dim, biased lm_head --------------------------------- */

static const llmmem__qdef q_gptj[] = {
    Q("V", "vocab_size", "50400", NULL, VOCAB), Q("h", "n_embd|hidden_size", "4096", NULL, DIM),
    Q("L", "n_layer|num_hidden_layers", "28", NULL, LAYERS), Q("a", "n_head|num_attention_heads", "16", NULL, COUNT),
    Q("f", "n_inner", "4 * h", "4 * h", DIM), Q("pos", "n_positions|max_position_embeddings", "2048", NULL, POS),
    Q("tie", "tie_word_embeddings", "0", NULL, BOOL), QD("k", "a"), QD("d", "h / a"),
    Q("rd", "rotary_dim", "64", "d", DIM), QR("prf", NULL, "ratio(rd, d)"),
    QR("pa", "attn_pdrop", "0"), QR("ph", "resid_pdrop", "0"), QR("pe", "embd_pdrop", "0"),
    QD("ab", "0"), QD("mb", "1"), QD("hb", "1"), QD("par", "1"), Q_LN, QD("npl", "1"), QD("gated", "0"),
};
static const llmmem__tdef t_gptj[] = {
    WEIGHT("transformer.wte", "V", "h", EMBED, W_ONCE), NORM("ln_1", "h", LN, W_ALL),
    LINEAR("attn.q_proj", "h", "h", ATTN, W_ALL, "0"), LINEAR("attn.k_proj", "h", "h", ATTN, W_ALL, "0"),
    LINEAR("attn.v_proj", "h", "h", ATTN, W_ALL, "0"), LINEAR("attn.out_proj", "h", "h", ATTN, W_ALL, "0"),
    MLP2("mlp.fc_in", "mlp.fc_out", "1"), NORM("transformer.ln_f", "h", LN, W_ONCE), HEAD_ROWS("lm_head"),
};

/* ---- OPT: learned positions with offset 2, optional project_in/out ---------------------- */

static const llmmem__qdef q_opt[] = {
    Q("V", "vocab_size", "50272", NULL, VOCAB), Q("h", "hidden_size", "768", NULL, DIM),
    Q("f", "ffn_dim", "3072", NULL, DIM), Q("L", "num_hidden_layers", "12", NULL, LAYERS),
    Q("a", "num_attention_heads", "12", NULL, COUNT), Q("pos", "max_position_embeddings", "2048", NULL, POS),
    Q("tie", "tie_word_embeddings", "1", NULL, BOOL), QD("k", "a"), QD("d", "h / a"),
    Q("ab", "enable_bias", "1", NULL, BOOL), QD("mb", "ab"), QD("hb", "0"),
    Q("wd", "word_embed_proj_dim", "h", "h", DIM), Q("pre", "do_layer_norm_before", "1", NULL, BOOL),
    Q("aff", "layer_norm_elementwise_affine", "1", NULL, BOOL), QD("norm", "aff ? 1 : 3"),
    QR("pa", "attention_dropout", "0"), QR("ph", "dropout", "0.1"), QR("pe", "dropout", "0.1"), QR("prf", NULL, "0"),
    QD("npl", "2"), QD("gated", "0"),
};
static const llmmem__tdef t_opt[] = {
    WEIGHT("model.decoder.embed_tokens", "V", "wd", EMBED, W_ONCE),
    WEIGHT("model.decoder.embed_positions", "pos + 2", "h", EMBED, W_ONCE),
    LINEAR_IF("model.decoder.project_in", "h", "wd", ATTN, W_ONCE, "0", "wd != h"),
    LINEAR_IF("model.decoder.project_out", "wd", "h", ATTN, W_ONCE, "0", "wd != h"),
    LINEAR("self_attn.q_proj", "h", "h", ATTN, W_ALL, "ab"), LINEAR("self_attn.k_proj", "h", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.v_proj", "h", "h", ATTN, W_ALL, "ab"), LINEAR("self_attn.out_proj", "h", "h", ATTN, W_ALL, "ab"),
    NORM("self_attn_layer_norm", "h", "norm", W_ALL), MLP2("fc1", "fc2", "mb"),
    NORM("final_layer_norm", "h", "norm", W_ALL), NORM_IF("model.decoder.final_layer_norm", "h", "norm", W_ONCE, "pre"),
    {"lm_head", "V", "wd", T_(HEAD), LLMMEM__TF_LINEAR, W_ONCE, "!tie", NULL},
};

/* ---- Falcon: multi-query or grouped query_key_value, parallel attention ------------------ */

static const llmmem__qdef q_falcon[] = {
    Q("V", "vocab_size", "65024", NULL, VOCAB), Q("h", "hidden_size", "4544", NULL, DIM),
    Q("L", "num_hidden_layers", "32", NULL, LAYERS), Q("a", "num_attention_heads", "71", NULL, COUNT),
    Q("f", "ffn_hidden_size", "4 * h", "4 * h", DIM), Q("pos", "max_position_embeddings", "2048", NULL, POS),
    Q("tie", "tie_word_embeddings", "1", NULL, BOOL), Q("na", "new_decoder_architecture", "0", NULL, BOOL),
    Q("mq", "multi_query", "1", NULL, BOOL), Q("pat", "parallel_attn", "1", NULL, BOOL),
    Q("ab", "bias", "0", NULL, BOOL), QD("mb", "ab"), QD("hb", "0"), Q("alibi", "alibi", "0", NULL, BOOL),
    Q("nln0", "num_ln_in_parallel_attn", "0", "0", COUNT), QD("nln", "na && nln0 == 0 ? 2 : nln0"),
    Q("kvk", "num_kv_heads", "a", "a", COUNT), QD("k", "na ? kvk : (mq ? 1 : a)"), QD("d", "h / a"),
    QD("par", "pat && nln != 2"), QD("npl", "!pat ? 2 : (nln == 2 ? 2 : 1)"),
    QR("prf", NULL, "ratio(!alibi, 1)"), QR("pa", "attention_dropout", "0"), QR("ph", "hidden_dropout", "0"), Q_LN,
    QD("gated", "0"),
};
static const llmmem__tdef t_falcon[] = {
    WEIGHT("transformer.word_embeddings", "V", "h", EMBED, W_ONCE),
    LINEAR("self_attention.query_key_value", "a * d + 2 * k * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attention.dense", "h", "a * d", ATTN, W_ALL, "ab"),
    MLP2("mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "ab"),
    NORM_IF("ln_attn", "h", LN, W_ALL, "nln == 2"), NORM_IF("ln_mlp", "h", LN, W_ALL, "nln == 2"),
    NORM_IF("input_layernorm", "h", LN, W_ALL, "nln != 2"),
    NORM_IF("post_attention_layernorm", "h", LN, W_ALL, "nln != 2 && !pat"),
    NORM("transformer.ln_f", "h", LN, W_ONCE), HEAD_ROWS("lm_head"),
};

/* ---- Phi (1, 1.5, 2): parallel block, one LayerNorm, biases, partial rotary --------------- */

static const llmmem__qdef q_phi[] = {
    Q("V", "vocab_size", "51200", NULL, VOCAB), Q("h", "hidden_size", "2048", NULL, DIM),
    Q("f", "intermediate_size", "8192", NULL, DIM), Q("L", "num_hidden_layers", "24", NULL, LAYERS),
    Q("a", "num_attention_heads", "32", NULL, COUNT), Q("k", "num_key_value_heads", "a", "a", COUNT),
    Q("pos", "max_position_embeddings", "2048", NULL, POS), Q("tie", "tie_word_embeddings", "0", NULL, BOOL),
    QD("d", "h / a"), Q("qkn", "qk_layernorm", "0", NULL, BOOL), Q_ROTARY("partial_rotary_factor", "0.5"),
    QR("pa", "attention_dropout", "0"), QR("ph", "resid_pdrop", "0"), QR("pe", "embd_pdrop", "0"),
    QD("ab", "1"), QD("mb", "1"), QD("hb", "1"), QD("par", "1"), Q_LN, QD("npl", "1"), QD("gated", "0"),
};
static const llmmem__tdef t_phi[] = {
    WEIGHT("model.embed_tokens", "V", "h", EMBED, W_ONCE),
    LINEAR("self_attn.q_proj", "a * d", "h", ATTN, W_ALL, "1"), LINEAR("self_attn.k_proj", "k * d", "h", ATTN, W_ALL, "1"),
    LINEAR("self_attn.v_proj", "k * d", "h", ATTN, W_ALL, "1"), LINEAR("self_attn.dense", "h", "a * d", ATTN, W_ALL, "1"),
    NORM_IF("self_attn.q_layernorm", "d", LN, W_ALL, "qkn"), NORM_IF("self_attn.k_layernorm", "d", LN, W_ALL, "qkn"),
    MLP2("mlp.fc1", "mlp.fc2", "1"), NORM("input_layernorm", "h", LN, W_ALL), NORM("model.final_layernorm", "h", LN, W_ONCE),
    HEAD_ROWS("lm_head"),
};

/* ---- DeepSeek-V2/V3: multi-head latent attention and MoE with shared experts ------------- */

#define Q_DEEPSEEK(V, h, f, L, a, pos, E, K, fm, ns, kd)                                      \
    Q("V", "vocab_size", V, NULL, VOCAB), Q("h", "hidden_size", h, NULL, DIM),                 \
        Q("f", "intermediate_size", f, NULL, DIM), Q("L", "num_hidden_layers", L, NULL, LAYERS), \
        Q("a", "num_attention_heads", a, NULL, COUNT), Q("k", "num_key_value_heads", "a", "a", COUNT), \
        Q("pos", "max_position_embeddings", pos, NULL, POS), Q("tie", "tie_word_embeddings", "0", NULL, BOOL), \
        Q("ab", "attention_bias", "0", NULL, BOOL), QD("hb", "0"),                            \
        Q("E", "n_routed_experts", E, "0", COUNT), Q("K", "num_experts_per_tok", K, "0", COUNT), \
        Q("fm", "moe_intermediate_size", fm, NULL, DIM), Q("ns", "n_shared_experts", ns, "0", COUNT), \
        QD("fs", "ns * fm"), Q("kd", "first_k_dense_replace", kd, NULL, COUNT),              \
        Q("freq", "moe_layer_freq", "1", NULL, LAYERS), Q("ql", "q_lora_rank", "1536", "0", DIM0), \
        Q("kvl", "kv_lora_rank", "512", NULL, DIM), Q("dn", "qk_nope_head_dim", "128", NULL, DIM0), \
        Q("dr", "qk_rope_head_dim", "64", NULL, DIM0), Q("dv", "v_head_dim", "128", NULL, DIM), \
        QD("d", "dn + dr"), QR("prf", NULL, "ratio(dr, d)"), QR("pa", "attention_dropout", "0"), \
        QD("norm", "0"), QD("npl", "2"), QD("gated", "1")

static const llmmem__qdef q_deepseek_v2[] = {
    Q_DEEPSEEK("32000", "4096", "11008", "32", "32", "2048", "64", "0", "1407", "2", "0"),
};
static const llmmem__qdef q_deepseek_v3[] = {
    Q_DEEPSEEK("129280", "7168", "18432", "61", "128", "4096", "256", "8", "2048", "1", "3"),
};
/* The DeepSeek MoE block: router, fused routed experts and the shared experts'
 * gated MLP of width fs (DeepseekV3MoE, and the generic entry's MoE layers). */
#define DEEPSEEK_MOE                                                                           \
    WEIGHT("mlp.gate", "E", "h", ROUTER, MOE_LAYERS),                                          \
        PARAM("mlp.experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL),        \
        PARAM("mlp.experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL),               \
        LINEAR("mlp.shared_experts.gate_proj", "fs", "h", MLP, MOE_LAYERS, "0"),              \
        LINEAR("mlp.shared_experts.up_proj", "fs", "h", MLP, MOE_LAYERS, "0"),                \
        LINEAR("mlp.shared_experts.down_proj", "h", "fs", MLP, MOE_LAYERS, "0")
/* DeepseekV3Attention: q through a low-rank q_a/q_b pair (q_lora_rank) or
 * one q_proj; keys and values through kv_a_proj_with_mqa (the latent and the
 * shared rope key) then kv_b_proj. */
static const llmmem__tdef t_deepseek[] = {
    EMBED_TOKENS, MLA_ATTN(W_ALL),
    LINEAR("mlp.gate_proj", "f", "h", MLP, DENSE_LAYERS, "0"), LINEAR("mlp.up_proj", "f", "h", MLP, DENSE_LAYERS, "0"),
    LINEAR("mlp.down_proj", "h", "f", MLP, DENSE_LAYERS, "0"),
    DEEPSEEK_MOE,
    NORM("input_layernorm", "h", "0", W_ALL), NORM("post_attention_layernorm", "h", "0", W_ALL),
    NORM("model.norm", "h", "0", W_ONCE), HEAD_ROWS("lm_head"),
};
#define t_deepseek_v2 t_deepseek
#define t_deepseek_v3 t_deepseek
/* DeepseekV2/V3DecoderLayer: MoE from first_k_dense_replace on, on the
 * moe_layer_freq stride (as DeepSeek's own modeling code does). */
#define DEEPSEEK_FFN FFN_RULE(LLMMEM__FR_FIRST_K, "kd", "freq", NULL)

/* ---- raw models and unknown model_types --------------------------------------------------- */

/* A model from numbers (llmmem_model_new + setters, `quick 7B`): llama-like. */
static const llmmem__qdef q_raw[] = {
    Q("V", NULL, "32000", NULL, VOCAB), Q("h", NULL, NULL, NULL, DIM), Q("L", NULL, NULL, NULL, LAYERS),
    Q("a", NULL, "1", NULL, COUNT), Q("k", NULL, "a", NULL, COUNT), Q("d", NULL, "h / a", NULL, DIM),
    Q("f", NULL, "4 * h", NULL, DIM), Q("pos", NULL, "4096", NULL, POS), Q("tie", NULL, "0", NULL, BOOL),
    Q("sw", NULL, "0", NULL, POS), Q("E", NULL, "0", NULL, COUNT), Q("K", NULL, "0", NULL, COUNT),
    Q("fm", NULL, "f", NULL, DIM), QD("ab", "0"), QD("ob", "0"), QD("mb", "0"), QD("hb", "0"),
    QD("norm", "0"), QD("npl", "2"), QD("gated", "1"),
};
static const llmmem__tdef t_raw[] = {
    WEIGHT("model.embed_tokens", "V", "h", EMBED, W_ONCE),
    LINEAR("self_attn.q_proj", "a * d", "h", ATTN, W_ALL, "ab"), LINEAR("self_attn.k_proj", "k * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.v_proj", "k * d", "h", ATTN, W_ALL, "ab"), LINEAR("self_attn.o_proj", "h", "a * d", ATTN, W_ALL, "ob"),
    LINEAR("mlp.gate_proj", "f", "h", MLP, DENSE_LAYERS, "mb"), LINEAR("mlp.up_proj", "f", "h", MLP, DENSE_LAYERS, "mb"),
    LINEAR("mlp.down_proj", "h", "f", MLP, DENSE_LAYERS, "mb"),
    WEIGHT("mlp.gate", "E", "h", ROUTER, MOE_LAYERS),
    PARAM("mlp.experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL),
    NORM("input_layernorm", "h", "0", W_ALL), NORM("post_attention_layernorm", "h", "0", W_ALL),
    NORM("model.norm", "h", "0", W_ONCE), HEAD_ROWS("lm_head"),
};

/* An unknown model_type: only the keys that mean the same across HF configs,
 * a llama-like decoder with optional routed and shared experts, and the
 * PretrainedConfig default of tie_word_embeddings (True). The result is
 * flagged approximate (docs/models.md). */
static const llmmem__qdef q_generic[] = {
    Q("V", "vocab_size|padded_vocab_size", NULL, NULL, VOCAB),
    Q("h", "hidden_size|n_embd|d_model|dim|model_dim", NULL, NULL, DIM),
    Q("L", "num_hidden_layers|n_layer|num_layers|n_layers", NULL, NULL, LAYERS),
    Q("a", "num_attention_heads|n_head|num_heads|n_heads", NULL, NULL, COUNT),
    Q("k", "num_key_value_heads|num_kv_heads|n_head_kv|n_kv_heads|multi_query_group_num", "a", "a", COUNT),
    Q("d", "head_dim|kv_channels", "h / a", "h / a", DIM),
    Q("f", "intermediate_size|n_inner|ffn_dim|ffn_hidden_size|ffn_intermediate_size", "4 * h", "4 * h", DIM),
    Q("pos", "max_position_embeddings|n_positions|max_sequence_length|seq_length", "4096", "4096", POS),
    Q("tie", "tie_word_embeddings", "1", NULL, BOOL),
    Q("sw", "sliding_window", "0", "0", POS),
    Q("E", "num_local_experts|num_experts|n_routed_experts|moe_num_experts|num_routed_experts", "0", "0", COUNT),
    Q("K", "num_experts_per_tok|num_experts_per_token|moe_top_k|top_k_experts|moe_k", "0", "0", COUNT),
    Q("fm", "moe_intermediate_size|expert_intermediate_size|moe_ffn_hidden_size", "f", "f", DIM),
    Q("ns", "n_shared_experts|num_shared_experts|moe_num_shared_experts", "0", "0", COUNT),
    Q("fs", "shared_expert_intermediate_size", "ns * fm", "ns * fm", DIM0),
    Q("kd", "first_k_dense_replace|first_k_dense|num_dense_layers", "0", "0", COUNT),
    Q("ab", "attention_bias|qkv_bias", "0", NULL, BOOL), QD("ob", "0"), Q("mb", "mlp_bias", "0", NULL, BOOL),
    QD("hb", "0"), QD("norm", "0"), QD("npl", "2"), QD("gated", "1"), QR("pa", "attention_dropout", "0"),
};
static const llmmem__tdef t_generic[] = {
    WEIGHT("model.embed_tokens", "V", "h", EMBED, W_ONCE),
    LINEAR("self_attn.q_proj", "a * d", "h", ATTN, W_ALL, "ab"), LINEAR("self_attn.k_proj", "k * d", "h", ATTN, W_ALL, "ab"),
    LINEAR("self_attn.v_proj", "k * d", "h", ATTN, W_ALL, "ab"), LINEAR("self_attn.o_proj", "h", "a * d", ATTN, W_ALL, "ob"),
    LINEAR("mlp.gate_proj", "f", "h", MLP, DENSE_LAYERS, "mb"), LINEAR("mlp.up_proj", "f", "h", MLP, DENSE_LAYERS, "mb"),
    LINEAR("mlp.down_proj", "h", "f", MLP, DENSE_LAYERS, "mb"),
    DEEPSEEK_MOE,
    NORM("input_layernorm", "h", "0", W_ALL), NORM("post_attention_layernorm", "h", "0", W_ALL),
    NORM("model.norm", "h", "0", W_ONCE), HEAD_ROWS("lm_head"),
};

const llmmem__arch llmmem__fam_classic[] = {
    {"gpt2", LLMMEM__FAM_GPT2, ROWS(q_gpt2), ROWS(t_gpt2), MIXER_FULL, FFN_DENSE, LLMMEM__NORM_LAYER,
     LLMMEM__ACT_GELU_NEW, "modeling_gpt2.py: Conv1D, learned positions"},
    /* GPT-SW3 is GPT2LMHeadModel (CONFIG_MAPPING "gpt-sw3": GPT2Config) */
    {"gpt-sw3", LLMMEM__FAM_GPT2, ROWS(q_gpt2), ROWS(t_gpt2), MIXER_FULL, FFN_DENSE, LLMMEM__NORM_LAYER,
     LLMMEM__ACT_GELU_NEW, "modeling_gpt2.py (gpt-sw3 configs are GPT2Config)"},
    {"gpt_neox", LLMMEM__FAM_GPT_NEOX, ROWS(q_gpt_neox), ROWS(t_gpt_neox), MIXER_FULL, FFN_DENSE,
     LLMMEM__NORM_LAYER, LLMMEM__ACT_GELU, "modeling_gpt_neox.py: fused query_key_value"},
    {"gptj", LLMMEM__FAM_GPTJ, ROWS(q_gptj), ROWS(t_gptj), MIXER_FULL, FFN_DENSE, LLMMEM__NORM_LAYER,
     LLMMEM__ACT_GELU_NEW, "modeling_gptj.py: parallel block"},
    {"opt", LLMMEM__FAM_OPT, ROWS(q_opt), ROWS(t_opt), MIXER_FULL, FFN_DENSE, LLMMEM__NORM_LAYER,
     LLMMEM__ACT_RELU, "modeling_opt.py: positions offset by 2"},
    {"falcon", LLMMEM__FAM_FALCON, ROWS(q_falcon), ROWS(t_falcon), MIXER_FULL, FFN_DENSE, LLMMEM__NORM_LAYER,
     LLMMEM__ACT_GELU, "modeling_falcon.py: multi-query, parallel attention"},
    {"phi", LLMMEM__FAM_PHI, ROWS(q_phi), ROWS(t_phi), MIXER_FULL, FFN_DENSE, LLMMEM__NORM_LAYER,
     LLMMEM__ACT_GELU_NEW, "modeling_phi.py: parallel block, partial rotary"},
    {"deepseek_v2", LLMMEM__FAM_DEEPSEEK, ROWS(q_deepseek_v2), ROWS(t_deepseek_v2), MIXER_FULL, DEEPSEEK_FFN,
     LLMMEM__NORM_RMS, LLMMEM__ACT_SILU_GLU, "modeling_deepseek_v2.py: MLA, shared experts"},
    {"deepseek_v3", LLMMEM__FAM_DEEPSEEK, ROWS(q_deepseek_v3), ROWS(t_deepseek_v3), MIXER_FULL, DEEPSEEK_FFN,
     LLMMEM__NORM_RMS, LLMMEM__ACT_SILU_GLU, "modeling_deepseek_v3.py: MLA, 3 dense layers first"},
    /* Kimi K2's Hub config names model_type kimi_k2 (its own remote code) and
     * architectures DeepseekV3ForCausalLM: the DeepSeek-V3 layout and keys. */
    {"kimi_k2", LLMMEM__FAM_DEEPSEEK, ROWS(q_deepseek_v3), ROWS(t_deepseek_v3), MIXER_FULL, DEEPSEEK_FFN,
     LLMMEM__NORM_RMS, LLMMEM__ACT_SILU_GLU, "Kimi K2 (remote code; DeepseekV3ForCausalLM layout)"},
    {"raw", LLMMEM__FAM_LLAMA, ROWS(q_raw), ROWS(t_raw), MIXER_FULL, FFN_MOE, LLMMEM__NORM_RMS,
     LLMMEM__ACT_SILU_GLU, "a llama-like decoder from numbers"},
    {"generic", LLMMEM__FAM_LLAMA, ROWS(q_generic), ROWS(t_generic),
     MIXER_LIST("layer_types", "sliding_attention=1,full_attention=0", LLMMEM__MR_SLIDING, NULL, NULL, 0, 0, NULL),
     FFN_RULE(LLMMEM__FR_FIRST_K, "kd", NULL, NULL), LLMMEM__NORM_RMS, LLMMEM__ACT_SILU_GLU,
     "an unknown model_type: the keys that mean the same in every HF config"},
};
const int llmmem__fam_classic_count = (int)LLMMEM_ARRAY_LEN(llmmem__fam_classic);
