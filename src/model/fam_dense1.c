/* Dense and MoE decoders, model_types a-g, as transformers 5.17 builds them
 * (huggingface/transformers src/transformers/models/<type>/modeling_<type>.py;
 * defaults from configuration_<type>.py). Rows name the modules as the
 * modeling code does, so LoRA targets resolve as peft resolves them. MoE
 * layers keep their experts fused (experts.gate_up_proj [E, 2fm, h],
 * experts.down_proj [E, h, fm]) unless said otherwise. */
#include "model/families.h"


/* the same, present only when `when` is non-zero */
#define MLP_GATED_IF(prefix, width, where, bias, when)                    \
    LINEAR_IF(prefix ".gate_proj", width, "h", MLP, where, bias, when),   \
        LINEAR_IF(prefix ".up_proj", width, "h", MLP, where, bias, when), \
        LINEAR_IF(prefix ".down_proj", "h", width, MLP, where, bias, when)
/* act(up(x)) -> down (relu2, xielu) */
#define MLP_UP_DOWN(bias) \
    LINEAR("mlp.up_proj", "f", "h", MLP, W_ALL, bias), LINEAR("mlp.down_proj", "h", "f", MLP, W_ALL, bias)
/* the fused experts of a MoE layer */
#define EXPERTS                                                                     \
    PARAM("mlp.experts.gate_up_proj", "E * 2 * fm", "h", EXPERT, MOE_LAYERS, NULL), \
        PARAM("mlp.experts.down_proj", "E * h", "fm", EXPERT, MOE_LAYERS, NULL)
/* a router kept as a parameter [E, h] (TopKRouter.weight) */
#define ROUTER_PARAM(name) WEIGHT(name, "E", "h", ROUTER, MOE_LAYERS)
/* post-norms only (olmo2 style) */
#define POST_NORMS \
    NORM("post_attention_layernorm", "h", "norm", W_ALL), NORM("post_feedforward_layernorm", "h", "norm", W_ALL)

/* head_dim read as getattr(config, "head_dim", h // a): a class without the
 * field still takes it from config.json. */
#define Q_HEAD_DIM Q("d", "head_dim", "h / a", NULL, DIM)
/* head_dim = h // a when None (the class's __post_init__) */
#define Q_HEAD_DIM_OR(def) Q("d", "head_dim", def, "h / a", DIM)
#define Q_RMS(npl) QD("norm", "0"), QD("npl", npl), QD("hb", "0"), QD("gated", "1")
#define Q_ATTN_BIAS(def) Q("ab", "attention_bias", def, NULL, BOOL), QD("ob", "ab")
#define Q_ROTARY(key, def) \
    QR("prf", "rope_parameters.partial_rotary_factor|rope_scaling.partial_rotary_factor|" key, def)

#define LAYER_TYPES_MAP "sliding_attention=1,full_attention=0"
/* sliding but for every p-th layer ((i + 1) % p == 0: full) */
#define EVERY_PTH_FULL(p)                                                                                        \
    MIXER_LIST("layer_types", LAYER_TYPES_MAP, LLMMEM__MR_PERIODIC, p, "1", LLMMEM__MX_FULL, LLMMEM__MX_SLIDING, \
               NULL)
#define MLP_LAYER_TYPES_MAP "sparse=1,dense=0"

/* ---- afmoe ------------------------------------------------------------------------- */

/* AfmoeAttention: q/k norms, an output gate (gate_proj, sigmoid) and RoPE on
 * the sliding layers only; four norms per layer; MoE from num_dense_layers
 * on with a sigmoid router (router.gate, an nn.Linear), a selection bias
 * kept as a parameter (expert_bias) and num_shared_experts shared experts. */
static const llmmem__qdef q_afmoe[] = {
    Q_BASE("200192", "2048", "6144", "32", "16", "a", "16384"), Q("d", "head_dim", "128", NULL, DIM),
    Q_TIE("0"), Q_ATTN_BIAS("0"), QD("mb", "0"), QD("qkn", "1"),
    Q("E", "num_experts", "64", NULL, COUNT), Q("K", "num_experts_per_tok", "6", NULL, COUNT),
    Q("fm", "moe_intermediate_size", "1408", NULL, DIM), Q("ns", "num_shared_experts", "2", NULL, COUNT),
    QD("fs", "ns * fm"), Q("kd", "num_dense_layers", "1", NULL, COUNT),
    Q("sw", "sliding_window", "1024", "0", POS), Q("gn", "global_attn_every_n_layers", "4", NULL, LAYERS),
    Q_DROPOUT, Q_RMS("4"),
};
static const llmmem__tdef t_afmoe[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("d", "d", W_ALL),
    LINEAR("self_attn.gate_proj", "a * d", "h", ATTN, W_ALL, "0"),
    LAYER_NORMS, NORM("pre_mlp_layernorm", "h", "norm", W_ALL), NORM("post_mlp_layernorm", "h", "norm", W_ALL),
    MLP_GATED("mlp", "f", DENSE_LAYERS, "0"), LINEAR("mlp.router.gate", "E", "h", ROUTER, MOE_LAYERS, "0"),
    PARAM("mlp.expert_bias", "E", NULL, ROUTER, MOE_LAYERS, NULL),
    MLP_GATED("mlp.shared_experts", "fs", MOE_LAYERS, "0"),
    EXPERTS, FINAL_NORM, LM_HEAD,
};

/* ---- apertus, arcee: up/down MLPs ----------------------------------------------------- */

/* ApertusMLP: down(xielu(up(x))); XIELUActivation has two parameters
 * (alpha_p, alpha_n) per layer when hidden_act is "xielu". Pre-norms
 * attention_layernorm / feedforward_layernorm; q/k norms over head_dim. */
static const llmmem__qdef q_apertus[] = {
    Q_BASE("131072", "4096", "14336", "32", "32", "a", "65536"), Q_HEAD_DIM, Q_TIE("0"), Q_ATTN_BIAS("0"),
    QD("mb", "0"), QD("qkn", "1"), QS("xielu", "hidden_act", "1", NULL, "xielu"), Q_DROPOUT, QD("norm", "0"),
    QD("npl", "2"), QD("hb", "0"), QD("gated", "0"),
};
static const llmmem__tdef t_apertus[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("d", "d", W_ALL), MLP_UP_DOWN("0"),
    PARAM("mlp.act_fn.alpha_p", "1", NULL, MLP, W_ALL, "xielu"),
    PARAM("mlp.act_fn.alpha_n", "1", NULL, MLP, W_ALL, "xielu"),
    NORM("attention_layernorm", "h", "norm", W_ALL), NORM("feedforward_layernorm", "h", "norm", W_ALL), FINAL_NORM,
    LM_HEAD,
};

/* ArceeMLP: down(relu2(up(x))), mlp_bias. */
static const llmmem__qdef q_arcee[] = {
    Q_BASE("32000", "2560", "18432", "32", "32", "a", "4096"), Q_HEAD_DIM_OR("h / a"), Q_TIE("0"),
    Q_ATTN_BIAS("0"), Q("mb", "mlp_bias", "0", NULL, BOOL), Q_DROPOUT, QD("norm", "0"), QD("npl", "2"),
    QD("hb", "0"), QD("gated", "0"),
};
static const llmmem__tdef t_arcee[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_UP_DOWN("mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- aria_text ------------------------------------------------------------------------ */

/* AriaTextMoELayer: router nn.Linear(h, E), grouped experts fc1.weight
 * [E, h, 2f] and fc2.weight [E, f, h] (x @ W, not nn.Linear) and shared
 * experts of width f * moe_num_shared_experts; every layer MoE. */
static const llmmem__qdef q_aria_text[] = {
    Q_BASE("32000", "4096", "4096", "32", "32", "a", "2048"), Q_HEAD_DIM_OR("h / a"), Q_TIE("0"), Q_ATTN_BIAS("0"),
    Q("mb", "mlp_bias", "0", NULL, BOOL), Q("E", "moe_num_experts", "8", NULL, COUNT),
    Q("K", "moe_topk", "2", NULL, COUNT), Q("ns", "moe_num_shared_experts", "2", NULL, COUNT), QD("fm", "f"),
    QD("fs", "f * ns"), Q_DROPOUT, Q_RMS("2"),
};
static const llmmem__tdef t_aria_text[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), LINEAR("mlp.router", "E", "h", ROUTER, MOE_LAYERS, "0"),
    PARAM("mlp.experts.fc1.weight", "E * h", "2 * fm", EXPERT, MOE_LAYERS, NULL),
    PARAM("mlp.experts.fc2.weight", "E * fm", "h", EXPERT, MOE_LAYERS, NULL),
    MLP_GATED("mlp.shared_experts", "fs", MOE_LAYERS, "mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- multi-head latent attention (DeepSeek-V3 style) ------------------------------------ */

/* The MLA and routing quantities of DeepseekV3Config and its descendants
 * (`ekeys`: the keys of n_routed_experts; V3.2 and GLM-5 also take a
 * num_experts argument). */
#define E_KEYS "n_routed_experts|num_local_experts"
#define E_KEYS_NUM "num_experts|n_routed_experts|num_local_experts"
#define Q_MLA(V, h, f, fm, L, a, pos, ekeys, E, K, ql, kvl, dn, dr, dv, qlnul)                                  \
    Q("V", "vocab_size", V, NULL, VOCAB), Q("h", "hidden_size", h, NULL, DIM),                                  \
        Q("f", "intermediate_size", f, NULL, DIM), Q("fm", "moe_intermediate_size", fm, NULL, DIM),             \
        Q("L", "num_hidden_layers", L, NULL, LAYERS), Q("a", "num_attention_heads", a, NULL, COUNT),            \
        Q("k", "num_key_value_heads", "a", "a", COUNT), Q("pos", "max_position_embeddings", pos, NULL, POS),    \
        Q_TIE("0"), Q("ab", "attention_bias", "0", NULL, BOOL), QD("hb", "0"),                                  \
        Q("E", ekeys, E, NULL, COUNT),                                                                          \
        Q("K", "num_experts_per_tok", K, NULL, COUNT), Q("ns", "n_shared_experts", "1", NULL, COUNT),           \
        QD("fs", "ns * fm"), Q("ql", "q_lora_rank", ql, qlnul, DIM0), Q("kvl", "kv_lora_rank", kvl, NULL, DIM), \
        Q("dn", "qk_nope_head_dim", dn, NULL, DIM0), Q("dr", "qk_rope_head_dim", dr, NULL, DIM0),               \
        Q("dv", "v_head_dim", dv, NULL, DIM), QD("d", "dn + dr"), QR("prf", NULL, "ratio(dr, d)"),              \
        Q_DROPOUT, QD("norm", "0"), QD("npl", "2"), QD("gated", "1")
/* DeepseekV3MoE: gate (TopkRouter.weight; e_score_correction_bias is a
 * buffer), experts, shared_experts of width n_shared_experts * fm. */
#define MLA_MOE_ROWS                                                             \
    MLP_GATED("mlp", "f", DENSE_LAYERS, "0"), ROUTER_PARAM("mlp.gate"), EXPERTS, \
        MLP_GATED("mlp.shared_experts", "fs", MOE_LAYERS, "0")
/* The DeepSeek-V3.2 sparse-attention indexer (DSA): its own query from the
 * q LoRA latent (wq_b), one key head (wk, k_norm a LayerNorm with bias) and
 * per-head weights (weights_proj); index_topk keys kept per query. */
#define INDEXER_ROWS(where_n)                                                            \
    LINEAR_N("self_attn.indexer.wq_b", "idx_heads * idx_dim", "ql", ATTN, where_n, "0"), \
        LINEAR_N("self_attn.indexer.wk", "idx_dim", "h", ATTN, where_n, "0"),            \
        NORM_N("self_attn.indexer.k_norm", "idx_dim", "1", where_n),                     \
        LINEAR_N("self_attn.indexer.weights_proj", "idx_heads", "h", ATTN, where_n, "0")
#define Q_INDEXER(ih, id, topk)                                                                      \
    Q("idx_heads", "index_n_heads", ih, NULL, COUNT), Q("idx_dim", "index_head_dim", id, NULL, DIM), \
        Q("idx_topk", "index_topk", topk, NULL, POS)
#define DSA_LAYERS                                                                                               \
    MIXER_LIST("layer_types", "deepseek_sparse_attention=0,full_attention=0", LLMMEM__MR_FULL, NULL, NULL, 0, 0, \
               NULL)
#define MLA_FFN_LIST(first, freq) \
    FFN_LIST("mlp_layer_types", MLP_LAYER_TYPES_MAP, LLMMEM__FR_FIRST_K, first, freq, NULL)

/* ---- axk1, axk2 ----------------------------------------------------------------------- */

/* A.X-K1: DeepSeek-V3 with a post_mlp_layernorm on the MoE block's output. */
static const llmmem__qdef q_axk1[] = {
    Q_MLA("163840", "7168", "18432", "2048", "61", "64", "32768", E_KEYS, "192",
          "8", "1536", "512", "128", "64", "128", NULL),
    Q("kd", "first_k_dense_replace", "1", NULL, COUNT),
};
static const llmmem__tdef t_axk1[] = {
    EMBED_TOKENS, MLA_ATTN(W_ALL), MLA_MOE_ROWS, NORM("mlp.post_mlp_layernorm", "h", "0", MOE_LAYERS), LAYER_NORMS,
    FINAL_NORM, LM_HEAD,
};

/* A.X-K2: MLA without q_b_proj (q_gate_proj reads [q latent, q latent] and
 * gives the query and an output gate), a DSA indexer in every layer, and
 * gated norms (AXK2GatedRMSNorm: RMSNorm then a rank-gated_norm_rank sigmoid
 * gate mlp.fc1/fc2) before attention and before the MoE blocks. */
static const llmmem__qdef q_axk2[] = {
    Q_MLA("163840", "2048", "5120", "512", "48", "32", "131072", E_KEYS, "128",
          "8", "384", "128", "64", "32", "64", NULL),
    Q("kd", "first_k_dense_replace", "1", NULL, COUNT), Q("freq", "moe_layer_freq", "1", NULL, LAYERS),
    Q_INDEXER("16", "128", "2048"), Q("gnr", "gated_norm_rank", "16", NULL, DIM), QD("idx_layers", "L"),
};
#define GATED_NORM(name, where)                                                                 \
    NORM(name ".norm", "h", "0", where), LINEAR(name ".mlp.fc1", "gnr", "h", NORM, where, "0"), \
        LINEAR(name ".mlp.fc2", "h", "gnr", NORM, where, "0")
static const llmmem__tdef t_axk2[] = {
    EMBED_TOKENS,
    LINEAR("self_attn.q_a_proj", "ql", "h", ATTN, W_ALL, "ab"),
    NORM("self_attn.q_a_layernorm", "ql", "0", W_ALL),
    LINEAR("self_attn.q_gate_proj", "a * (d + dv)", "2 * ql", ATTN, W_ALL, "0"),
    LINEAR("self_attn.kv_a_proj_with_mqa", "kvl + dr", "h", ATTN, W_ALL, "ab"),
    NORM("self_attn.kv_a_layernorm", "kvl", "0", W_ALL),
    LINEAR("self_attn.kv_b_proj", "a * (dn + dv)", "kvl", ATTN, W_ALL, "0"),
    LINEAR("self_attn.o_proj", "h", "a * dv", ATTN, W_ALL, "ab"),
    INDEXER_ROWS("idx_layers"), MLA_MOE_ROWS, GATED_NORM("input_layernorm", W_ALL),
    GATED_NORM("post_attention_layernorm", MOE_LAYERS), NORM("post_attention_layernorm", "h", "0", DENSE_LAYERS),
    FINAL_NORM, LM_HEAD,
};

/* ---- bitnet ---------------------------------------------------------------------------- */

/* BitNet b1.58: a llama with sub-norms before o_proj (attn_sub_norm, h) and
 * before down_proj (ffn_sub_norm, f); relu2-gated MLP. */
static const llmmem__qdef q_bitnet[] = {
    Q_BASE("128256", "2560", "6912", "30", "20", "5", "2048"), Q_HEAD_DIM, Q_TIE("0"), Q_ATTN_BIAS("0"),
    QD("mb", "0"), Q_DROPOUT, Q_RMS("2"),
};
static const llmmem__tdef t_bitnet[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), NORM("self_attn.attn_sub_norm", "h", "norm", W_ALL),
    MLP_GATED("mlp", "f", W_ALL, "0"), NORM("mlp.ffn_sub_norm", "f", "norm", W_ALL), LAYER_NORMS, FINAL_NORM,
    LM_HEAD,
};

/* ---- bloom, codegen -------------------------------------------------------------------- */

/* BLOOM: ALiBi (no rotary), a LayerNorm after the word embeddings, fused
 * query_key_value and everything biased; hidden_size from n_embed in old
 * configs. */
static const llmmem__qdef q_bloom[] = {
    Q("V", "vocab_size", "250880", NULL, VOCAB), Q("h", "n_embed|hidden_size", "64", NULL, DIM),
    Q("L", "n_layer|num_hidden_layers", "2", NULL, LAYERS), Q("a", "n_head|num_attention_heads", "8", NULL, COUNT),
    Q_TIE("1"), QD("k", "a"), QD("d", "h / a"), QD("f", "4 * h"), QD("ab", "1"), QD("mb", "1"), QD("hb", "0"),
    QR("prf", NULL, "0"), QR("pa", "attention_dropout", "0"), QR("ph", "hidden_dropout", "0"), QD("norm", "1"),
    QD("npl", "2"), QD("gated", "0"),
};
static const llmmem__tdef t_bloom[] = {
    WEIGHT("transformer.word_embeddings", "V", "h", EMBED, W_ONCE),
    NORM("transformer.word_embeddings_layernorm", "h", "1", W_ONCE), NORM("input_layernorm", "h", "1", W_ALL),
    LINEAR("self_attention.query_key_value", "3 * h", "h", ATTN, W_ALL, "1"),
    LINEAR("self_attention.dense", "h", "h", ATTN, W_ALL, "1"), NORM("post_attention_layernorm", "h", "1", W_ALL),
    LINEAR("mlp.dense_h_to_4h", "f", "h", MLP, W_ALL, "1"), LINEAR("mlp.dense_4h_to_h", "h", "f", MLP, W_ALL, "1"),
    NORM("transformer.ln_f", "h", "1", W_ONCE), LM_HEAD,
};

/* CodeGen: GPT-J's parallel block with a fused qkv_proj (no biases), rotary
 * on rotary_dim, biased fc_in/fc_out and a biased lm_head. */
static const llmmem__qdef q_codegen[] = {
    Q("V", "vocab_size", "50400", NULL, VOCAB), Q("h", "n_embd|hidden_size", "4096", NULL, DIM),
    Q("L", "n_layer|num_hidden_layers", "28", NULL, LAYERS), Q("a", "n_head|num_attention_heads", "16", NULL, COUNT),
    Q("f", "n_inner", "4 * h", "4 * h", DIM), Q("pos", "n_positions|max_position_embeddings", "2048", NULL, POS),
    Q_TIE("0"), QD("k", "a"), QD("d", "h / a"), Q("rd", "rotary_dim", "64", NULL, DIM),
    QR("prf", NULL, "ratio(rd, d)"), QR("pa", "attn_pdrop", "0"), QR("ph", "resid_pdrop", "0"),
    QR("pe", "embd_pdrop", "0"), QD("ab", "0"), QD("mb", "1"), QD("hb", "1"), QD("par", "1"), QD("norm", "1"),
    QD("npl", "1"), QD("gated", "0"),
};
static const llmmem__tdef t_codegen[] = {
    WEIGHT("transformer.wte", "V", "h", EMBED, W_ONCE), NORM("ln_1", "h", "1", W_ALL),
    LINEAR("attn.qkv_proj", "3 * h", "h", ATTN, W_ALL, "0"), LINEAR("attn.out_proj", "h", "h", ATTN, W_ALL, "0"),
    LINEAR("mlp.fc_in", "f", "h", MLP, W_ALL, "1"), LINEAR("mlp.fc_out", "h", "f", MLP, W_ALL, "1"),
    NORM("transformer.ln_f", "h", "1", W_ONCE), LM_HEAD,
};

/* ---- cohere, cohere2, cohere2_moe ------------------------------------------------------ */

/* Command-R: a parallel block (attention and MLP read one input_layernorm),
 * CohereLayerNorm without bias, optional q/k norms of shape (heads,
 * head_dim), tied embeddings. */
static const llmmem__qdef q_cohere[] = {
    Q_BASE("256000", "8192", "22528", "40", "64", "a", "8192"), Q_HEAD_DIM, Q_TIE("1"), Q_ATTN_BIAS("0"),
    QD("mb", "0"), Q("qkn", "use_qk_norm", "0", NULL, BOOL), Q_DROPOUT, QD("norm", "2"), QD("npl", "1"),
    QD("par", "1"), QD("hb", "0"), QD("gated", "1"),
};
static const llmmem__tdef t_cohere[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("a * d", "k * d", W_ALL), MLP_GATED("mlp", "f", W_ALL, "0"),
    NORM("input_layernorm", "h", "norm", W_ALL), FINAL_NORM, LM_HEAD,
};

/* Command-R7B / A: head_dim h / a (a head_dim key given still wins: it is
 * set after __post_init__); sliding window on all but every
 * sliding_window_pattern-th layer (a key the class pops when layer_types is
 * absent). */
static const llmmem__qdef q_cohere2[] = {
    Q_BASE("256000", "8192", "22528", "40", "64", "a", "8192"), Q_HEAD_DIM, Q_TIE("1"), Q_ATTN_BIAS("0"),
    QD("mb", "0"), Q("sw", "sliding_window", "4096", "0", POS), Q("swp", "sliding_window_pattern", "4", NULL, LAYERS),
    Q_DROPOUT, QD("norm", "2"), QD("npl", "1"), QD("par", "1"), QD("hb", "0"), QD("gated", "1"),
};
static const llmmem__tdef t_cohere2[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", W_ALL, "0"), NORM("input_layernorm", "h", "norm", W_ALL),
    FINAL_NORM, LM_HEAD,
};

/* Cohere2-MoE: the cohere2 block with routed experts of width
 * intermediate_size, shared experts of width num_shared_experts *
 * intermediate_size (none by default), dense prefix layers of width
 * prefix_dense_intermediate_size (None: intermediate_size) with their own
 * window pattern; RMSNorm when rms_norm_eps is set, else a bias-free
 * LayerNorm (the same parameters). */
static const llmmem__qdef q_cohere2_moe[] = {
    Q_BASE("256000", "8192", "22528", "40", "64", "a", "8192"), Q("d", "head_dim", "128", NULL, DIM), Q_TIE("1"),
    Q_ATTN_BIAS("0"), QD("mb", "0"), Q("sw", "sliding_window", "4096", "0", POS),
    Q("swp", "sliding_window_pattern", "4", NULL, LAYERS),
    Q("swp0", "prefix_dense_sliding_window_pattern", "1", NULL, LAYERS),
    Q("kd", "first_k_dense_replace", "0", NULL, COUNT), Q("E", "num_experts", "8", NULL, COUNT),
    Q("K", "num_experts_per_tok", "2", NULL, COUNT), Q("ns", "num_shared_experts", "0", NULL, COUNT), QD("fm", "f"),
    QD("fs", "ns * f"), Q("fd", "prefix_dense_intermediate_size", "f", "f", DIM), QI, Q_DROPOUT, QD("norm", "2"),
    QD("npl", "1"), QD("par", "1"), QD("hb", "0"), QD("gated", "1"),
};
static const llmmem__tdef t_cohere2_moe[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "fd", DENSE_LAYERS, "0"), ROUTER_PARAM("mlp.gate"), EXPERTS,
    MLP_GATED_IF("mlp.shared_experts", "fs", MOE_LAYERS, "0", "ns > 0"),
    NORM("input_layernorm", "h", "norm", W_ALL), FINAL_NORM,
    LM_HEAD,
};

/* ---- cwm ---------------------------------------------------------------------------------- */

/* Code World Model: a llama with a sliding window on all but every 4th layer
 * from 0. */
static const llmmem__qdef q_cwm[] = {
    Q_BASE("128256", "6144", "21504", "64", "48", "8", "131072"), Q_HEAD_DIM_OR("128"), Q_TIE("0"), QD("ab", "0"),
    QD("ob", "0"), Q("mb", "mlp_bias", "0", NULL, BOOL), Q("sw", "sliding_window", "8192", "0", POS), Q_DROPOUT,
    Q_RMS("2"),
};
static const llmmem__tdef t_cwm[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- deepseek_v32, glm_moe_dsa: MLA with the DSA indexer ------------------------------------ */

/* DeepSeek-V3.2: DeepSeek-V3 plus an indexer in every layer; the MoE layers
 * from mlp_layer_types (first_k_dense_replace dense ones by default). */
static const llmmem__qdef q_deepseek_v32[] = {
    Q_MLA("129280", "7168", "18432", "2048", "61", "128", "163840", E_KEYS_NUM, "256",
          "8", "1536", "512", "128", "64", "128", NULL),
    Q("kd", "first_k_dense_replace", "3", NULL, COUNT), Q_INDEXER("64", "128", "2048"), QD("idx_layers", "L"),
};
static const llmmem__tdef t_deepseek_v32[] = {
    EMBED_TOKENS, MLA_ATTN(W_ALL), INDEXER_ROWS("idx_layers"), MLA_MOE_ROWS, LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* GLM-5 (glm_moe_dsa): DeepSeek-V3.2's layout; a layer whose indexer_types
 * entry is "shared" reuses the previous layer's top-k and has no indexer
 * (by default "full" for layers < index_skip_topk_offset, then every
 * index_topk_freq-th). */
static const llmmem__qdef q_glm_moe_dsa[] = {
    Q_MLA("154880", "6144", "12288", "2048", "78", "64", "202752", E_KEYS_NUM, "256",
          "8", "2048", "512", "192", "64", "256", NULL),
    Q("kd", "first_k_dense_replace", "3", NULL, COUNT), Q_INDEXER("32", "128", "2048"),
    Q("ifreq", "index_topk_freq", "1", NULL, LAYERS), Q("ioff", "index_skip_topk_offset", "2", NULL, COUNT),
    QN("idx_layers", "indexer_types", "min(ioff, L) + max(L - ioff, 0) / ifreq", "full"),
};
#define t_glm_moe_dsa t_deepseek_v32

/* ---- deepseek_v4 ------------------------------------------------------------------------- */

/* DeepSeek-V4: one shared KV head (kv_proj, read as key and value) with a
 * sliding window on every layer, q through a LoRA (q_a_proj, q_a_norm,
 * q_b_proj), a grouped low-rank output (o_a_proj: an nn.Linear of o_groups
 * blocks, o_b_proj), one sink per head. "compressed_sparse_attention" layers
 * add a compressor of 2 x head_dim series over compress_rate tokens with a
 * lightning indexer (its own compressor at index_head_dim and a query from
 * the q latent); "heavily_compressed_attention" layers a compressor of
 * head_dim over their rate. Every layer is MoE (hash-routed or learned: the
 * same parameters; tid2eid is a buffer) with one shared expert of the expert
 * width, and the residual is hc_mult streams mixed by two hyper-connections
 * per layer (fn, base, scale) and hc_head before the final norm. Configs
 * written before transformers 5 give compress_ratios (0, 4 or 128 per
 * layer), compress_rate_csa/hca and qk_rope_head_dim instead. */
static const llmmem__qdef q_deepseek_v4[] = {
    Q("V", "vocab_size", "129280", NULL, VOCAB), Q("h", "hidden_size", "4096", NULL, DIM),
    Q("fm", "moe_intermediate_size|intermediate_size", "2048", NULL, DIM), QD("f", "fm"),
    Q("L", "num_hidden_layers", "43", NULL, LAYERS), Q("a", "num_attention_heads", "64", NULL, COUNT),
    Q("k", "num_key_value_heads", "1", NULL, COUNT), Q("d", "head_dim", "512", NULL, DIM),
    Q("pos", "max_position_embeddings", "1048576", NULL, POS), Q_TIE("0"), QD("ab", "0"), QD("ob", "0"),
    Q("mb", "mlp_bias", "0", NULL, BOOL), QD("hb", "0"), Q("ql", "q_lora_rank", "1024", NULL, DIM),
    Q("E", "n_routed_experts|num_local_experts", "256", NULL, COUNT), Q("K", "num_experts_per_tok", "6", NULL, COUNT),
    QD("ns", "1"), QD("fs", "fm"), Q("sw", "sliding_window", "128", NULL, POS), Q("og", "o_groups", "8", NULL, COUNT),
    Q("ol", "o_lora_rank", "1024", NULL, DIM), Q_INDEXER("64", "128", "512"), Q("hc_mult", "hc_mult", "4", NULL, COUNT),
    Q("csa_rate", "compress_rate_csa|compress_rates.compressed_sparse_attention", "4", NULL, COUNT),
    Q("hca_rate", "compress_rate_hca|compress_rates.heavily_compressed_attention", "128", NULL, COUNT),
    QN("n_csa", "layer_types|compress_ratios", "max(L - 2, 0) / 2", "compressed_sparse_attention|4"),
    QN("n_hca", "layer_types|compress_ratios", "min(L, 2) + (max(L - 2, 0) + 1) / 2",
       "heavily_compressed_attention|128"),
    Q("rd", "qk_rope_head_dim", "d / 8", NULL, DIM0),
    QRN("prf", "partial_rotary_factor", "ratio(rd, d)", "ratio(rd, d)"),
    Q_DROPOUT, Q_RMS("2"),
};
#define HC_ROWS(name)                                                               \
    PARAM(name ".fn", "(2 + hc_mult) * hc_mult", "hc_mult * h", NORM, W_ALL, NULL), \
        PARAM(name ".base", "(2 + hc_mult) * hc_mult", NULL, NORM, W_ALL, NULL),    \
        PARAM(name ".scale", "3", NULL, NORM, W_ALL, NULL)
static const llmmem__tdef t_deepseek_v4[] = {
    EMBED_TOKENS, PARAM("self_attn.sinks", "a", NULL, ATTN, W_ALL, NULL),
    LINEAR("self_attn.q_a_proj", "ql", "h", ATTN, W_ALL, "0"), NORM("self_attn.q_a_norm", "ql", "0", W_ALL),
    LINEAR("self_attn.q_b_proj", "a * d", "ql", ATTN, W_ALL, "0"),
    LINEAR("self_attn.kv_proj", "d", "h", ATTN, W_ALL, "0"),
    NORM("self_attn.kv_norm", "d", "0", W_ALL), LINEAR("self_attn.o_a_proj", "og * ol", "a * d / og", ATTN, W_ALL, "0"),
    LINEAR("self_attn.o_b_proj", "h", "og * ol", ATTN, W_ALL, "0"),
    /* DeepseekV4HCACompressor */
    PARAM_N("self_attn.compressor.position_bias", "hca_rate", "d", ATTN, "n_hca"),
    LINEAR_N("self_attn.compressor.kv_proj", "d", "h", ATTN, "n_hca", "0"),
    LINEAR_N("self_attn.compressor.gate_proj", "d", "h", ATTN, "n_hca", "0"),
    NORM_N("self_attn.compressor.kv_norm", "d", "0", "n_hca"),
    /* DeepseekV4CSACompressor and its DeepseekV4Indexer */
    PARAM_N("self_attn.compressor.position_bias", "csa_rate", "2 * d", ATTN, "n_csa"),
    LINEAR_N("self_attn.compressor.kv_proj", "2 * d", "h", ATTN, "n_csa", "0"),
    LINEAR_N("self_attn.compressor.gate_proj", "2 * d", "h", ATTN, "n_csa", "0"),
    NORM_N("self_attn.compressor.kv_norm", "d", "0", "n_csa"),
    PARAM_N("self_attn.compressor.indexer.position_bias", "csa_rate", "2 * idx_dim", ATTN, "n_csa"),
    LINEAR_N("self_attn.compressor.indexer.kv_proj", "2 * idx_dim", "h", ATTN, "n_csa", "0"),
    LINEAR_N("self_attn.compressor.indexer.gate_proj", "2 * idx_dim", "h", ATTN, "n_csa", "0"),
    NORM_N("self_attn.compressor.indexer.kv_norm", "idx_dim", "0", "n_csa"),
    LINEAR_N("self_attn.compressor.indexer.q_b_proj", "idx_heads * idx_dim", "ql", ATTN, "n_csa", "0"),
    LINEAR_N("self_attn.compressor.indexer.scorer.weights_proj", "idx_heads", "h", ATTN, "n_csa", "0"),
    ROUTER_PARAM("mlp.gate"), EXPERTS, MLP_GATED("mlp.shared_experts", "fs", MOE_LAYERS, "mb"), LAYER_NORMS,
    HC_ROWS("attn_hc"), HC_ROWS("ffn_hc"), FINAL_NORM,
    PARAM("model.hc_head.hc_fn", "hc_mult", "hc_mult * h", NORM, W_ONCE, NULL),
    PARAM("model.hc_head.hc_base", "hc_mult", NULL, NORM, W_ONCE, NULL),
    PARAM("model.hc_head.hc_scale", "1", NULL, NORM, W_ONCE, NULL), LM_HEAD,
};

/* ---- diffllama, doge ------------------------------------------------------------------ */

/* DiffLlamaAttention: differential attention with four learned lambda
 * vectors of head_dim and a parameter-free RMSNorm over 2 x head_dim. */
static const llmmem__qdef q_diffllama[] = {
    Q_BASE("32000", "2048", "8192", "16", "32", "a", "2048"), Q_HEAD_DIM_OR("h / a"), Q_TIE("0"), Q_ATTN_BIAS("0"),
    QD("mb", "0"), Q_DROPOUT, Q_RMS("2"),
};
static const llmmem__tdef t_diffllama[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), PARAM("self_attn.lambda_q1", "d", NULL, ATTN, W_ALL, NULL),
    PARAM("self_attn.lambda_k1", "d", NULL, ATTN, W_ALL, NULL),
    PARAM("self_attn.lambda_q2", "d", NULL, ATTN, W_ALL, NULL),
    PARAM("self_attn.lambda_k2", "d", NULL, ATTN, W_ALL, NULL), MLP_GATED("mlp", "f", W_ALL, "0"), LAYER_NORMS,
    FINAL_NORM, LM_HEAD,
};

/* Doge: dynamic-mask attention (A [k] and dt_proj from the values), q/k
 * norms, learned residual scales (input_residual, post_attention_residual);
 * with is_moe the MLP becomes a CDMoE: the gated MLP as a shared expert plus
 * num_experts single-neuron experts (down_embed, up_embed: E x h embeddings)
 * picked by a product-key router of 2 x floor(sqrt(E)) keys. Without is_moe
 * (the default) nothing routes: num_experts_per_tok is unused (modeling_doge.py
 * DogeDecoderLayer builds DogeMLP). */
static const llmmem__qdef q_doge[] = {
    Q_BASE("32768", "1024", "2048", "32", "8", "a", "2048"), Q_HEAD_DIM, Q_TIE("0"), Q_ATTN_BIAS("0"),
    Q("mb", "mlp_bias", "0", NULL, BOOL), QD("qkn", "1"), Q("sw", "sliding_window", "0", "0", POS),
    Q("moe", "is_moe", "0", NULL, BOOL), Q("ne", "num_experts", "16384", NULL, COUNT), QD("E", "moe ? ne : 0"),
    Q("K0", "num_experts_per_tok", "64", NULL, COUNT), QD("K", "moe ? K0 : 0"), QD("fm", "1"), QD("ns", "moe"),
    QD("fs", "moe ? f : 0"),
    QD("nk", "isqrt(ne)"), Q_DROPOUT, QR("ph", "hidden_dropout", "0"), Q_RMS("2"),
};
static const llmmem__tdef t_doge[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), PARAM("self_attn.A", "k", NULL, ATTN, W_ALL, NULL),
    LINEAR("self_attn.dt_proj", "k", "k * d", ATTN, W_ALL, "ab"), QK_NORM("d", "d", W_ALL),
    NORM("input_layernorm", "h", "norm", W_ALL), PARAM("input_residual", "h", NULL, NORM, W_ALL, NULL),
    NORM("post_attention_layernorm", "h", "norm", W_ALL),
    PARAM("post_attention_residual", "h", NULL, NORM, W_ALL, NULL),
    MLP_GATED("mlp", "f", W_ALL, "mb"), LINEAR("mlp.router_gate", "2 * nk", "h", ROUTER, MOE_LAYERS, "0"),
    WEIGHT("mlp.down_embed", "E", "h", EXPERT, MOE_LAYERS), WEIGHT("mlp.up_embed", "E", "h", EXPERT, MOE_LAYERS),
    FINAL_NORM, LM_HEAD,
};

/* ---- ernie4_5, ernie4_5_moe -------------------------------------------------------------- */

/* ERNIE 4.5: a llama with use_bias on every projection, tied embeddings. */
static const llmmem__qdef q_ernie4_5[] = {
    Q_BASE("103424", "1024", "3072", "18", "16", "2", "131072"), Q_HEAD_DIM_OR("128"), Q_TIE("1"),
    Q("ab", "use_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "ab"), Q_RMS("2"),
};
static const llmmem__tdef t_ernie4_5[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", W_ALL, "mb"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ERNIE 4.5 MoE: MoE on the layers i in [moe_layer_start_index,
 * moe_layer_end_index (-1: the last)] with (i + 1) % moe_layer_interval == 0;
 * the router keeps its e_score_correction_bias [1, E] as a parameter
 * (gate.moe_statics); shared experts of width moe_num_shared_experts * fm;
 * lm_head biased with use_bias. */
static const llmmem__qdef q_ernie4_5_moe[] = {
    Q_BASE("103424", "2560", "12288", "28", "20", "4", "131072"), Q_HEAD_DIM, Q_TIE("1"),
    Q("ab", "use_bias", "0", NULL, BOOL), QD("ob", "ab"), QD("mb", "ab"), QD("hb", "ab"),
    Q("E", "moe_num_experts|num_experts", "64", NULL, COUNT), Q("K", "moe_k|num_experts_per_tok", "6", NULL, COUNT),
    Q("fm", "moe_intermediate_size", "1536", NULL, DIM), Q("ns", "moe_num_shared_experts", "2", NULL, COUNT),
    QD("fs", "ns * fm"), Q("ms", "moe_layer_start_index", "1", NULL, INT),
    Q("me0", "moe_layer_end_index", "-1", NULL, INT), QD("me", "me0 == -1 ? L - 1 : me0"),
    Q("mi", "moe_layer_interval", "1", NULL, LAYERS), QI, QD("norm", "0"), QD("npl", "2"), QD("gated", "1"),
};
static const llmmem__tdef t_ernie4_5_moe[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), MLP_GATED("mlp", "f", DENSE_LAYERS, "mb"), ROUTER_PARAM("mlp.gate"),
    PARAM("mlp.gate.moe_statics.e_score_correction_bias", "E", NULL, ROUTER, MOE_LAYERS, NULL), EXPERTS,
    MLP_GATED_IF("mlp.shared_experts", "fs", MOE_LAYERS, "mb", "ns > 0"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- exaone4, exaone_moe -------------------------------------------------------------------- */

/* EXAONE 4.0: post-norms only (post_attention_layernorm,
 * post_feedforward_layernorm), q/k norms, sliding on all but every 4th
 * layer. sliding_window_pattern may be a string ("LLLG") in hub configs,
 * which always list layer_types, so it is not read. */
static const llmmem__qdef q_exaone4[] = {
    Q_BASE("102400", "4096", "16384", "32", "32", "32", "2048"), Q_HEAD_DIM, Q_TIE("0"), QD("ab", "0"), QD("ob", "0"),
    QD("mb", "0"), QD("qkn", "1"), Q("sw", "sliding_window", "4096", "0", POS), Q_DROPOUT, Q_RMS("2"),
};
static const llmmem__tdef t_exaone4[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("d", "d", W_ALL), MLP_GATED("mlp", "f", W_ALL, "0"), POST_NORMS, FINAL_NORM,
    LM_HEAD,
};

/* EXAONE MoE: pre-norms, q/k norms, DeepSeek-V3 routing (the correction bias
 * a buffer) with shared experts of num_shared_experts * fm, MoE layers from
 * mlp_layer_types (first_k_dense_replace dense ones by default). */
static const llmmem__qdef q_exaone_moe[] = {
    Q_BASE("102400", "4096", "16384", "32", "32", "32", "2048"), Q_HEAD_DIM, Q_TIE("0"), QD("ab", "0"),
    QD("ob", "0"), QD("mb", "0"), QD("qkn", "1"), Q("sw", "sliding_window", "4096", "0", POS),
    Q("kd", "first_k_dense_replace", "1", NULL, COUNT), Q("E", "num_experts", "64", NULL, COUNT),
    Q("K", "num_experts_per_tok", "8", NULL, COUNT), Q("fm", "moe_intermediate_size", "1024", NULL, DIM),
    Q("ns", "num_shared_experts", "1", NULL, COUNT), QD("fs", "ns * fm"), Q_DROPOUT, Q_RMS("2"),
};
static const llmmem__tdef t_exaone_moe[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("d", "d", W_ALL), MLP_GATED("mlp", "f", DENSE_LAYERS, "0"),
    ROUTER_PARAM("mlp.gate"), EXPERTS, MLP_GATED("mlp.shared_experts", "fs", MOE_LAYERS, "0"), LAYER_NORMS,
    FINAL_NORM, LM_HEAD,
};

/* ---- flex_olmo -------------------------------------------------------------------------- */

/* FlexOlmo: OLMoE's experts with OLMo-2's post-norms and q/k norms over the
 * whole projection; every layer MoE. */
static const llmmem__qdef q_flex_olmo[] = {
    Q_BASE("100352", "4096", "11008", "32", "32", "a", "4096"), Q_HEAD_DIM, Q_TIE("0"), Q_ATTN_BIAS("0"),
    QD("mb", "0"), QD("qkn", "1"), Q("E", "num_experts|num_local_experts", "7", NULL, COUNT),
    Q("K", "num_experts_per_tok", "5", NULL, COUNT), QD("fm", "f"), Q_DROPOUT, Q_RMS("2"),
};
static const llmmem__tdef t_flex_olmo[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("a * d", "k * d", W_ALL), ROUTER_PARAM("mlp.gate"), EXPERTS, POST_NORMS,
    FINAL_NORM, LM_HEAD,
};

/* ---- glm, glm4, glm4_moe, glm4_moe_lite --------------------------------------------------- */

/* GLM-4 (glm): biased q/k/v, o_proj without bias, a fused gate_up_proj,
 * half-rotary heads. */
static const llmmem__qdef q_glm[] = {
    Q_BASE("151552", "4096", "13696", "40", "32", "2", "131072"), Q("d", "head_dim", "128", NULL, DIM), Q_TIE("0"),
    Q("ab", "attention_bias", "1", NULL, BOOL), QD("ob", "0"), QD("mb", "0"), Q_ROTARY("partial_rotary_factor", "0.5"),
    Q_DROPOUT, Q_RMS("2"),
};
static const llmmem__tdef t_glm[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), LINEAR("mlp.gate_up_proj", "2 * f", "h", MLP, W_ALL, "0"),
    LINEAR("mlp.down_proj", "h", "f", MLP, W_ALL, "0"), LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* GLM-4-0414 (glm4): glm plus post-sublayer norms (post_self_attn_layernorm,
 * post_mlp_layernorm). */
static const llmmem__qdef q_glm4[] = {
    Q_BASE("151552", "4096", "13696", "40", "32", "2", "131072"), Q("d", "head_dim", "128", NULL, DIM), Q_TIE("0"),
    Q("ab", "attention_bias", "1", NULL, BOOL), QD("ob", "0"), QD("mb", "0"), Q_ROTARY("partial_rotary_factor", "0.5"),
    Q_DROPOUT, Q_RMS("4"),
};
static const llmmem__tdef t_glm4[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), LINEAR("mlp.gate_up_proj", "2 * f", "h", MLP, W_ALL, "0"),
    LINEAR("mlp.down_proj", "h", "f", MLP, W_ALL, "0"), LAYER_NORMS,
    NORM("post_self_attn_layernorm", "h", "norm", W_ALL),
    NORM("post_mlp_layernorm", "h", "norm", W_ALL), FINAL_NORM, LM_HEAD,
};

/* GLM-4.5 (glm4_moe): head_dim h // a unless given (4032 = 96 x 42 by
 * default), o_proj without bias, optional q/k norms, DeepSeek-V3 routing
 * with shared experts, MoE from first_k_dense_replace on; the MTP layers
 * (num_nextn_predict_layers) are not built. */
static const llmmem__qdef q_glm4_moe[] = {
    Q_BASE("151552", "4096", "10944", "46", "96", "8", "131072"), Q_HEAD_DIM, Q_TIE("0"),
    Q("ab", "attention_bias", "0", NULL, BOOL), QD("ob", "0"), QD("mb", "0"), Q("qkn", "use_qk_norm", "0", NULL, BOOL),
    Q("E", "n_routed_experts|num_local_experts", "128", NULL, COUNT), Q("K", "num_experts_per_tok", "8", NULL, COUNT),
    Q("fm", "moe_intermediate_size", "1408", NULL, DIM), Q("ns", "n_shared_experts", "1", NULL, COUNT),
    QD("fs", "ns * fm"), Q("kd", "first_k_dense_replace", "1", NULL, COUNT),
    Q_ROTARY("partial_rotary_factor", "0.5"), Q_DROPOUT, Q_RMS("2"),
};
static const llmmem__tdef t_glm4_moe[] = {
    EMBED_TOKENS, ATTN_QKVO(W_ALL), QK_NORM("d", "d", W_ALL), MLA_MOE_ROWS, LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* GLM-4.7-Flash (glm4_moe_lite): DeepSeek-V3's MLA and MoE; the MoE layers
 * from mlp_layer_types (all but the first by default). */
static const llmmem__qdef q_glm4_moe_lite[] = {
    Q_MLA("154880", "2048", "10240", "1536", "47", "20", "202752", E_KEYS, "64",
          "4", "768", "512", "192", "64", "256", "0"),
};
static const llmmem__tdef t_glm4_moe_lite[] = {
    EMBED_TOKENS, MLA_ATTN(W_ALL), MLA_MOE_ROWS, LAYER_NORMS, FINAL_NORM, LM_HEAD,
};

/* ---- gpt_bigcode, gpt_neo, gpt_neox_japanese --------------------------------------------- */

/* GPT-BigCode (StarCoder): GPT-2's block with nn.Linear, multi-query
 * attention (one K/V head) by default, learned positions; with
 * add_cross_attention a cross-attention block (c_attn 2h, q_attn, c_proj)
 * and its LayerNorm. */
static const llmmem__qdef q_gpt_bigcode[] = {
    Q("V", "vocab_size", "50257", NULL, VOCAB), Q("h", "n_embd|hidden_size", "768", NULL, DIM),
    Q("L", "n_layer|num_hidden_layers", "12", NULL, LAYERS), Q("a", "n_head|num_attention_heads", "12", NULL, COUNT),
    Q("f", "n_inner", "4 * h", "4 * h", DIM), Q("pos", "n_positions|max_position_embeddings", "1024", NULL, POS),
    Q_TIE("1"), Q("mq", "multi_query", "1", NULL, BOOL), QD("k", "mq ? 1 : a"), QD("d", "h / a"),
    Q("xa", "add_cross_attention", "0", NULL, BOOL), QR("pa", "attn_pdrop", "0.1"), QR("ph", "resid_pdrop", "0.1"),
    QR("pe", "embd_pdrop", "0.1"), QR("prf", NULL, "0"), QD("ab", "1"), QD("mb", "1"), QD("hb", "0"), QD("norm", "1"),
    QD("npl", "2"), QD("gated", "0"),
};
static const llmmem__tdef t_gpt_bigcode[] = {
    WEIGHT("transformer.wte", "V", "h", EMBED, W_ONCE), WEIGHT("transformer.wpe", "pos", "h", EMBED, W_ONCE),
    NORM("ln_1", "h", "1", W_ALL), LINEAR("attn.c_attn", "h + 2 * k * d", "h", ATTN, W_ALL, "1"),
    LINEAR("attn.c_proj", "h", "h", ATTN, W_ALL, "1"), NORM("ln_2", "h", "1", W_ALL),
    LINEAR_IF("crossattention.c_attn", "2 * h", "h", ATTN, W_ALL, "1", "xa"),
    LINEAR_IF("crossattention.q_attn", "h", "h", ATTN, W_ALL, "1", "xa"),
    LINEAR_IF("crossattention.c_proj", "h", "h", ATTN, W_ALL, "1", "xa"),
    NORM_IF("ln_cross_attn", "h", "1", W_ALL, "xa"),
    LINEAR("mlp.c_fc", "f", "h", MLP, W_ALL, "1"), LINEAR("mlp.c_proj", "h", "f", MLP, W_ALL, "1"),
    NORM("transformer.ln_f", "h", "1", W_ONCE), LM_HEAD,
};

/* GPT-Neo: learned positions, q/k/v without bias, a biased out_proj, local
 * (window_size) and global layers from attention_layers (the expanded list
 * the configuration saves), else attention_types, a run-length list
 * ([[["global", "local"], 12]] by default). */
static const llmmem__qdef q_gpt_neo[] = {
    Q("V", "vocab_size", "50257", NULL, VOCAB), Q("h", "hidden_size", "2048", NULL, DIM),
    Q("L", "num_layers|num_hidden_layers", "24", NULL, LAYERS),
    Q("a", "num_heads|num_attention_heads", "16", NULL, COUNT),
    Q("f", "intermediate_size", "4 * h", "4 * h", DIM), Q("pos", "max_position_embeddings", "2048", NULL, POS),
    Q_TIE("1"), QD("k", "a"), QD("d", "h / a"), Q("sw", "window_size", "256", NULL, POS),
    QR("pa", "attention_dropout", "0"), QR("ph", "resid_dropout", "0"), QR("pe", "embed_dropout", "0"),
    QR("prf", NULL, "0"), QD("ab", "0"), QD("mb", "1"), QD("hb", "0"), QD("norm", "1"), QD("npl", "2"),
    QD("gated", "0"),
};
static const llmmem__tdef t_gpt_neo[] = {
    WEIGHT("transformer.wte", "V", "h", EMBED, W_ONCE), WEIGHT("transformer.wpe", "pos", "h", EMBED, W_ONCE),
    NORM("ln_1", "h", "1", W_ALL), LINEAR("attn.attention.k_proj", "h", "h", ATTN, W_ALL, "0"),
    LINEAR("attn.attention.v_proj", "h", "h", ATTN, W_ALL, "0"),
    LINEAR("attn.attention.q_proj", "h", "h", ATTN, W_ALL, "0"),
    LINEAR("attn.attention.out_proj", "h", "h", ATTN, W_ALL, "1"), NORM("ln_2", "h", "1", W_ALL),
    LINEAR("mlp.c_fc", "f", "h", MLP, W_ALL, "1"), LINEAR("mlp.c_proj", "h", "f", MLP, W_ALL, "1"),
    NORM("transformer.ln_f", "h", "1", W_ONCE), LM_HEAD,
};

/* GPT-NeoX-Japanese: fused query_key_value and MLP without biases, the
 * attention output bias (dense_bias) only in the last layer, intermediate
 * width hidden_size x intermediate_multiple_size, tied embed_out. */
static const llmmem__qdef q_gpt_neox_japanese[] = {
    Q("V", "vocab_size", "32000", NULL, VOCAB), Q("h", "hidden_size", "2560", NULL, DIM),
    Q("L", "num_hidden_layers", "32", NULL, LAYERS), Q("a", "num_attention_heads", "32", NULL, COUNT),
    Q("ims", "intermediate_multiple_size", "4", NULL, COUNT), QD("f", "h * ims"),
    Q("pos", "max_position_embeddings", "2048", NULL, POS), Q_TIE("1"), QD("k", "a"), QD("d", "h / a"),
    Q_ROTARY("rotary_pct", "1"), QR("pa", "attention_dropout", "0.1"), QR("ph", "hidden_dropout", "0"), QD("ab", "0"),
    QD("mb", "0"), QD("hb", "0"), QD("norm", "1"), QD("npl", "2"), QD("gated", "0"),
};
static const llmmem__tdef t_gpt_neox_japanese[] = {
    WEIGHT("gpt_neox_japanese.embed_in", "V", "h", EMBED, W_ONCE), NORM("input_layernorm", "h", "1", W_ALL),
    NORM("post_attention_layernorm", "h", "1", W_ALL),
    LINEAR("attention.query_key_value", "3 * h", "h", ATTN, W_ALL, "0"),
    LINEAR("attention.dense", "h", "h", ATTN, W_ALL, "0"),
    PARAM_N("attention.dense_bias", "h", NULL, ATTN, "1"), LINEAR("mlp.dense_h_to_4h", "f", "h", MLP, W_ALL, "0"),
    LINEAR("mlp.dense_4h_to_h", "h", "f", MLP, W_ALL, "0"),
    NORM("gpt_neox_japanese.final_layer_norm", "h", "1", W_ONCE),
    HEAD_ROWS("embed_out"),
};

/* ---- the entries -------------------------------------------------------------------------- */

#define FAMILY(type, fam, mixer, ffn, norm, act, about)                                                            \
    {#type, LLMMEM__FAM_##fam, ROWS(q_##type), ROWS(t_##type), mixer, ffn, LLMMEM__NORM_##norm, LLMMEM__ACT_##act, \
     about}
#define ALL_SLIDING MIXER_LIST("layer_types", LAYER_TYPES_MAP, LLMMEM__MR_SLIDING, NULL, NULL, 0, 0, NULL)

const llmmem__arch llmmem__fam_dense1[] = {
    FAMILY(afmoe, LLAMA, EVERY_PTH_FULL("gn"), FFN_RULE(LLMMEM__FR_FIRST_K, "kd", NULL, NULL), RMS, SILU_GLU,
           "modeling_afmoe.py: gated attention, NoPE full layers, sigmoid router with expert_bias"),
    FAMILY(apertus, LLAMA, MIXER_FULL, FFN_DENSE, RMS, GELU_NEW, "modeling_apertus.py: xIELU up/down MLP"),
    FAMILY(arcee, LLAMA, MIXER_FULL, FFN_DENSE, RMS, RELU, "modeling_arcee.py: relu2 up/down MLP"),
    FAMILY(aria_text, LLAMA, MIXER_FULL, FFN_MOE, RMS, SILU_GLU,
           "modeling_aria.py: the text model, grouped-GEMM experts and shared experts"),
    FAMILY(axk1, DEEPSEEK, MIXER_FULL, FFN_RULE(LLMMEM__FR_FIRST_K, "kd", NULL, NULL), RMS, SILU_GLU,
           "modeling_axk1.py: DeepSeek-V3 MLA/MoE, post_mlp_layernorm"),
    FAMILY(axk2, DEEPSEEK, DSA_LAYERS, MLA_FFN_LIST("kd", "freq"), RMS, SILU_GLU,
           "modeling_axk2.py: MLA with q_gate_proj, DSA indexer, gated norms"),
    FAMILY(bitnet, LLAMA, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_bitnet.py: sub-norms, relu2 GLU"),
    FAMILY(bloom, GPT_NEOX, MIXER_FULL, FFN_DENSE, LAYER, GELU_NEW, "modeling_bloom.py: ALiBi, embedding LayerNorm"),
    FAMILY(codegen, GPTJ, MIXER_FULL, FFN_DENSE, LAYER, GELU_NEW,
           "modeling_codegen.py: parallel block, fused qkv_proj"),
    FAMILY(cohere, LLAMA, MIXER_FULL, FFN_DENSE, LAYER_NOBIAS, SILU_GLU,
           "modeling_cohere.py: parallel block, bias-free LayerNorm"),
    FAMILY(cohere2, LLAMA, EVERY_PTH_FULL("swp"), FFN_DENSE, LAYER_NOBIAS, SILU_GLU,
           "modeling_cohere2.py: parallel block, 3 sliding : 1 full"),
    FAMILY(cohere2_moe, LLAMA,
           MIXER_LIST("layer_types", LAYER_TYPES_MAP, LLMMEM__MR_EXPR, NULL, NULL, 0, 0,
                      "i < kd ? (i + 1) % swp0 != 0 : (i - kd + 1) % swp != 0"),
           FFN_LIST("mlp_layer_types", MLP_LAYER_TYPES_MAP, LLMMEM__FR_FIRST_K, "kd", NULL, NULL), LAYER_NOBIAS,
           SILU_GLU, "modeling_cohere2_moe.py: parallel block, dense prefix layers"),
    FAMILY(cwm, LLAMA,
           MIXER_LIST("layer_types", LAYER_TYPES_MAP, LLMMEM__MR_PERIODIC, "4", "0", LLMMEM__MX_FULL,
                      LLMMEM__MX_SLIDING, NULL),
           FFN_DENSE, RMS, SILU_GLU, "modeling_cwm.py: full attention every 4th layer from 0"),
    FAMILY(deepseek_v32, DEEPSEEK, DSA_LAYERS, MLA_FFN_LIST("kd", NULL), RMS, SILU_GLU,
           "modeling_deepseek_v32.py: MLA with the DSA indexer"),
    FAMILY(deepseek_v4, LLAMA,
           MIXER_LIST("layer_types",
                      "sliding_attention=1,compressed_sparse_attention=1,heavily_compressed_attention=1",
                      LLMMEM__MR_SLIDING, NULL, NULL, 0, 0, NULL),
           FFN_MOE, RMS, SILU_GLU, "modeling_deepseek_v4.py: shared-KV MQA, compressed attention, hyper-connections"),
    FAMILY(diffllama, LLAMA, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_diffllama.py: differential attention"),
    FAMILY(doge, LLAMA, ALL_SLIDING, FFN_MOE, RMS, SILU_GLU, "modeling_doge.py: dynamic mask attention, CDMoE"),
    FAMILY(ernie4_5, LLAMA, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_ernie4_5.py: use_bias"),
    FAMILY(ernie4_5_moe, LLAMA, MIXER_FULL,
           FFN_LIST(NULL, NULL, LLMMEM__FR_EXPR, NULL, NULL, "E > 0 && (i + 1) % mi == 0 && i >= ms && i <= me"), RMS,
           SILU_GLU, "modeling_ernie4_5_moe.py: MoE layer range and interval"),
    FAMILY(exaone4, OLMO, EVERY_PTH_FULL("4"), FFN_DENSE, RMS, SILU_GLU, "modeling_exaone4.py: post-norms, q/k norms"),
    FAMILY(exaone_moe, LLAMA, EVERY_PTH_FULL("4"), MLA_FFN_LIST("kd", NULL), RMS, SILU_GLU,
           "modeling_exaone_moe.py: q/k norms, shared experts"),
    FAMILY(flex_olmo, OLMO, MIXER_FULL, FFN_MOE, RMS, SILU_GLU, "modeling_flex_olmo.py: OLMoE with post-norms"),
    FAMILY(glm, PHI3, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_glm.py: fused gate_up_proj, half rotary"),
    FAMILY(glm4, PHI3, MIXER_FULL, FFN_DENSE, RMS, SILU_GLU, "modeling_glm4.py: four norms per layer"),
    FAMILY(glm4_moe, LLAMA, MIXER_FULL, FFN_RULE(LLMMEM__FR_FIRST_K, "kd", NULL, NULL), RMS, SILU_GLU,
           "modeling_glm4_moe.py: shared experts, first dense layers"),
    FAMILY(glm4_moe_lite, DEEPSEEK, MIXER_FULL, MLA_FFN_LIST("1", NULL), RMS, SILU_GLU,
           "modeling_glm4_moe_lite.py: DeepSeek-V3 MLA/MoE"),
    FAMILY(glm_moe_dsa, DEEPSEEK, DSA_LAYERS, MLA_FFN_LIST("kd", NULL), RMS, SILU_GLU,
           "modeling_glm_moe_dsa.py: MLA with a DSA indexer on the \"full\" layers"),
    FAMILY(gpt_bigcode, GPT2, MIXER_FULL, FFN_DENSE, LAYER, GELU, "modeling_gpt_bigcode.py: multi-query c_attn"),
    FAMILY(gpt_neo, GPT2,
           MIXER_LIST("attention_layers|attention_types", "global=0,local=1", LLMMEM__MR_PERIODIC, "2", "0",
                      LLMMEM__MX_FULL, LLMMEM__MX_SLIDING, NULL),
           FFN_DENSE, LAYER, GELU_NEW, "modeling_gpt_neo.py: alternating global and local attention"),
    FAMILY(gpt_neox_japanese, GPT_NEOX, MIXER_FULL, FFN_DENSE, LAYER, GELU,
           "modeling_gpt_neox_japanese.py: last-layer dense_bias"),
};
const int llmmem__fam_dense1_count = (int)LLMMEM_ARRAY_LEN(llmmem__fam_dense1);
