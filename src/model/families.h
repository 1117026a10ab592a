/* Shorthands for the registry's family tables (src/model/fam_*.c). Each
 * family is a list of quantities (Q rows) and tensors (the rows below), then
 * an llmmem__family entry; registry.h explains the fields. Not installed. */
#ifndef LLMMEM_MODEL_FAMILIES_H
#define LLMMEM_MODEL_FAMILIES_H

#include "model/model.h"

/* A quantity: symbol, keys ("a|b"; "x.y" reads a sub-object), default, value when null, type. */
#define Q(sym, keys, def, nul, type) {sym, keys, def, nul, LLMMEM__QT_##type, NULL}
/* A quantity computed from others (never read from the config). */
#define QD(sym, def) {sym, NULL, def, NULL, LLMMEM__QT_DIM0, NULL}
#define QR(sym, keys, def) {sym, keys, def, NULL, LLMMEM__QT_REAL, NULL}
/* A real whose key may be null (null reads as `nul`). */
#define QRN(sym, keys, def, nul) {sym, keys, def, nul, LLMMEM__QT_REAL, NULL}
/* A quantity whose strings are matched among `choices` ("a|b"): a STR (its 1-based position,
 * 0: none of them), a LIST (how many entries are among them), a BOOL (a string is true when
 * it is one of them). A LIST without choices is Q(..., LIST): the sum of its entries. */
#define QC(sym, keys, def, nul, type, choices) {sym, keys, def, nul, LLMMEM__QT_##type, choices}
#define QS(sym, keys, def, nul, choices) QC(sym, keys, def, nul, STR, choices)
/* A per-layer list read as the number of its entries among `choices` (absent or null: `def`). */
#define QN(sym, keys, def, choices) QC(sym, keys, def, def, LIST, choices)
/* The loop variable of MR_EXPR / FR_EXPR rules (and of LAYERWISE defaults). */
#define QI {"i", NULL, "0", NULL, LLMMEM__QT_COUNT, NULL}
/* The mixer kind of the layer a LAYERWISE default is evaluated for. */
#define QMX {"mx", NULL, "0", NULL, LLMMEM__QT_COUNT, NULL}
/* A quantity that may differ by layer (registry.h LLMMEM__QT_LAYERWISE): a
 * per-layer list, a per_layer_config override ("~attr" keys), or a default of i, mx. */
#define QL(sym, keys, def, nul, type) {sym, keys, def, nul, LLMMEM__QT_##type | LLMMEM__QT_LAYERWISE, NULL}
#define QDL(sym, def) {sym, NULL, def, NULL, LLMMEM__QT_DIM0 | LLMMEM__QT_LAYERWISE, NULL}

#define T_(kind) LLMMEM__T_##kind
#define W_ALL LLMMEM__W_LAYER
#define W_ONCE LLMMEM__W_ONCE
#define W_MX(mask) (LLMMEM__W_MIXER | ((mask) << LLMMEM__WHERE_SHIFT))
#define W_FF(mask) (LLMMEM__W_FFN | ((mask) << LLMMEM__WHERE_SHIFT))
#define ATTN_LAYERS W_MX(LLMMEM__ATTN_MIXERS)
#define DENSE_LAYERS W_FF(LLMMEM__FF(DENSE))
#define MOE_LAYERS W_FF(LLMMEM__FF(MOE))
/* Decoder-layer rows counted `count` times in all (registry.h LLMMEM__W_COUNT): in
 * that many layers, or a block the layers share held that many times. */
#define W_N LLMMEM__W_COUNT

/* nn.Linear(in, out): weight out x in, with a bias when `bias` is non-zero
 * (an expression; "0" for none). */
#define LINEAR(name, out, in, kind, where, bias)                                              \
    {name, out, in, T_(kind), LLMMEM__TF_LINEAR, where, NULL, NULL},                          \
        {name, out, NULL, T_(kind), LLMMEM__TF_BIAS, where, bias, NULL}
/* The same, present only when `when` is non-zero. */
#define LINEAR_IF(name, out, in, kind, where, bias, when)                                    \
    {name, out, in, T_(kind), LLMMEM__TF_LINEAR, where, when, NULL},                          \
        {name, out, NULL, T_(kind), LLMMEM__TF_BIAS, where, "(" when ") && (" bias ")", NULL}
/* A weight that is not an nn.Linear (embeddings, fused expert tensors, routers
 * kept as parameters): rows x cols. */
#define WEIGHT(name, rows, cols, kind, where) {name, rows, cols, T_(kind), 0, where, NULL, NULL}
#define WEIGHT_IF(name, rows, cols, kind, where, when) {name, rows, cols, T_(kind), 0, where, when, NULL}
/* A parameter of a fused module ("experts.gate_up_proj", "self_attn.sinks"). */
#define PARAM(name, rows, cols, kind, where, when) \
    {name, rows, cols, T_(kind), LLMMEM__TF_PARAM, where, when, NULL}
/* A normalisation of `width` features: norm kind 0 RMSNorm (weight), 1
 * LayerNorm (weight + bias), 2 LayerNorm without bias, 3 no parameters. */
#define NORM(name, width, normkind, where)                                                    \
    {name, width, NULL, T_(NORM), 0, where, "(" normkind ") != 3", NULL},                     \
        {name, width, NULL, T_(NORM), 0, where, "(" normkind ") == 1", NULL}
#define NORM_IF(name, width, normkind, where, when)                                         \
    {name, width, NULL, T_(NORM), 0, where, "(" when ") && (" normkind ") != 3", NULL},       \
        {name, width, NULL, T_(NORM), 0, where, "(" when ") && (" normkind ") == 1", NULL}

/* W_N rows: `n` (an expression) in all, not once per layer of a kind: a part only `n`
 * layers hold (the "full" layers' indexer), a shape already summed over the layers
 * (n "1"), a shared block held `n` times (zamba's shared attention: L_hybrid or 1). */
#define LINEAR_N(name, out, in, kind, n, bias)                                                \
    {name, out, in, T_(kind), LLMMEM__TF_LINEAR, W_N, NULL, n},                               \
        {name, out, NULL, T_(kind), LLMMEM__TF_BIAS, W_N, bias, n}
#define PARAM_N(name, rows, cols, kind, n) {name, rows, cols, T_(kind), LLMMEM__TF_PARAM, W_N, NULL, n}
#define NORM_N(name, width, normkind, n)                                                      \
    {name, width, NULL, T_(NORM), 0, W_N, "(" normkind ") != 3", n},                          \
        {name, width, NULL, T_(NORM), 0, W_N, "(" normkind ") == 1", n}

/* ---- rows most decoder families share --------------------------------------------- */

#define EMBED_TOKENS WEIGHT("model.embed_tokens", "V", "h", EMBED, W_ONCE)
/* The output head: untied unless tie, its bias by hb. */
#define HEAD_ROWS(name)                                                  \
    {name, "V", "h", T_(HEAD), LLMMEM__TF_LINEAR, W_ONCE, "!tie", NULL}, \
        {name, "V", NULL, T_(HEAD), LLMMEM__TF_BIAS, W_ONCE, "hb", NULL}
#define LM_HEAD HEAD_ROWS("lm_head")
/* A head without a bias (entries that declare no hb). */
#define HEAD_NOBIAS(name) {name, "V", "h", T_(HEAD), LLMMEM__TF_LINEAR, W_ONCE, "!tie", NULL}
#define FINAL_NORM NORM("model.norm", "h", "norm", W_ONCE)
#define LAYER_NORMS NORM("input_layernorm", "h", "norm", W_ALL), NORM("post_attention_layernorm", "h", "norm", W_ALL)
/* LlamaAttention: q/k/v with bias `ab`, o with bias `ob`. */
#define ATTN_QKVO(where)                                             \
    LINEAR("self_attn.q_proj", "a * d", "h", ATTN, where, "ab"),     \
        LINEAR("self_attn.k_proj", "k * d", "h", ATTN, where, "ab"), \
        LINEAR("self_attn.v_proj", "k * d", "h", ATTN, where, "ab"), \
        LINEAR("self_attn.o_proj", "h", "a * d", ATTN, where, "ob")
/* q_norm/k_norm: per head (qwen3, gemma3: head_dim) or over the whole
 * projection (olmo2, olmoe), when qkn. */
#define QK_NORM(qwidth, kwidth, where)                         \
    NORM_IF("self_attn.q_norm", qwidth, "norm", where, "qkn"), \
        NORM_IF("self_attn.k_norm", kwidth, "norm", where, "qkn")
/* LlamaMLP: act(gate(x)) * up(x) -> down. */
#define MLP_GATED(prefix, width, where, bias)                    \
    LINEAR(prefix ".gate_proj", width, "h", MLP, where, bias),   \
        LINEAR(prefix ".up_proj", width, "h", MLP, where, bias), \
        LINEAR(prefix ".down_proj", "h", width, MLP, where, bias)
/* DeepseekV3Attention (MLA): q through q_a_proj / q_a_layernorm / q_b_proj, or
 * one q_proj when q_lora_rank (ql) is 0; kv_a_proj_with_mqa (the latent and the
 * shared rope key), kv_a_layernorm, kv_b_proj, o_proj; biases by ab. */
#define MLA_ATTN(where)                                                                        \
    LINEAR_IF("self_attn.q_a_proj", "ql", "h", ATTN, where, "ab", "ql > 0"),                   \
        NORM_IF("self_attn.q_a_layernorm", "ql", "0", where, "ql > 0"),                        \
        LINEAR_IF("self_attn.q_b_proj", "a * (dn + dr)", "ql", ATTN, where, "0", "ql > 0"),    \
        LINEAR_IF("self_attn.q_proj", "a * (dn + dr)", "h", ATTN, where, "0", "ql == 0"),      \
        LINEAR("self_attn.kv_a_proj_with_mqa", "kvl + dr", "h", ATTN, where, "ab"),            \
        NORM("self_attn.kv_a_layernorm", "kvl", "0", where),                                   \
        LINEAR("self_attn.kv_b_proj", "a * (dn + dv)", "kvl", ATTN, where, "0"),               \
        LINEAR("self_attn.o_proj", "h", "a * dv", ATTN, where, "ab")

/* The dimensions every llama-like config has, with the class's defaults
 * (num_key_value_heads None = num_attention_heads). */
#define Q_BASE(V, h, f, L, a, k, pos)                                          \
    Q("V", "vocab_size", V, NULL, VOCAB), Q("h", "hidden_size", h, NULL, DIM), \
        Q("f", "intermediate_size", f, NULL, DIM),                             \
        Q("L", "num_hidden_layers", L, NULL, LAYERS),                          \
        Q("a", "num_attention_heads", a, NULL, COUNT),                         \
        Q("k", "num_key_value_heads", k, "a", COUNT),                          \
        Q("pos", "max_position_embeddings", pos, NULL, POS)
#define Q_TIE(def) Q("tie", "tie_word_embeddings", def, NULL, BOOL)
#define Q_DROPOUT QR("pa", "attention_dropout", "0")

/* Rules of the layer pattern. */
#define MIXER_FULL {LLMMEM__MR_FULL, NULL, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0}
#define MIXER_LIST(list, map, rule, arg, arg2, on, off, expr) {rule, arg, arg2, on, off, expr, list, map, 0, NULL, 0}
/* The per-layer list, else the layers of the index list `idx` (counted from
 * `base`) are `on` and the others `off`, else the rule. */
#define MIXER_IDX(list, map, idx, base, on, off, rule, arg, arg2, expr) \
    {rule, arg, arg2, on, off, expr, list, map, 0, idx, base}
/* A list that repeats over the layers (recurrent_gemma's block_types). */
#define MIXER_CYCLE(list, map, rule, arg, arg2, on, off) {rule, arg, arg2, on, off, NULL, list, map, 1, NULL, 0}
#define FFN_DENSE {LLMMEM__FR_DENSE, NULL, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0}
#define FFN_MOE {LLMMEM__FR_MOE, NULL, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0}
#define FFN_RULE(rule, arg, arg2, list) {rule, arg, arg2, 0, 0, NULL, list, NULL, 0, NULL, 0}
/* A per-layer list of feed-forward kinds (mlp_layer_types: "dense=0,sparse=1"), which decides
 * over a mixer map's "/ffn"; without the list, the rule. */
#define FFN_LIST(list, map, rule, arg, arg2, expr) {rule, arg, arg2, 0, 0, expr, list, map, 0, NULL, 0}
/* The rule's expression of i (MR_EXPR / FR_EXPR). */
#define MIXER_EXPR(expr) {LLMMEM__MR_EXPR, NULL, NULL, 0, 0, expr, NULL, NULL, 0, NULL, 0}
#define FFN_EXPR(expr) {LLMMEM__FR_EXPR, NULL, NULL, 0, 0, expr, NULL, NULL, 0, NULL, 0}

#define ROWS(x) (x), (int)LLMMEM_ARRAY_LEN(x)

#endif /* LLMMEM_MODEL_FAMILIES_H */
