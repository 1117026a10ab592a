/* Shorthands for the registry's family tables (src/model/fam_*.c). Each
 * family is a list of quantities (Q rows) and tensors (the rows below), then
 * an llmmem__family entry; registry.h explains the fields. Not installed. */
#ifndef LLMMEM_MODEL_FAMILIES_H
#define LLMMEM_MODEL_FAMILIES_H

#include "model/model.h"

/* A quantity: symbol, keys ("a|b"; "x.y" reads a sub-object), default, value when null, type. */
#define Q(sym, keys, def, nul, type) {sym, keys, def, nul, LLMMEM__QT_##type}
/* A quantity computed from others (never read from the config). */
#define QD(sym, def) {sym, NULL, def, NULL, LLMMEM__QT_DIM0}
#define QR(sym, keys, def) {sym, keys, def, NULL, LLMMEM__QT_REAL}
/* A real whose key may be null (null reads as `nul`). */
#define QRN(sym, keys, def, nul) {sym, keys, def, nul, LLMMEM__QT_REAL}
/* The loop variable of MR_EXPR / FR_EXPR rules. */
#define QI {"i", NULL, "0", NULL, LLMMEM__QT_COUNT}

#define T_(kind) LLMMEM__T_##kind
#define W_ALL LLMMEM__W_LAYER
#define W_ONCE LLMMEM__W_ONCE
#define W_MX(mask) (LLMMEM__W_MIXER | ((mask) << LLMMEM__WHERE_SHIFT))
#define W_FF(mask) (LLMMEM__W_FFN | ((mask) << LLMMEM__WHERE_SHIFT))
#define ATTN_LAYERS W_MX(LLMMEM__ATTN_MIXERS)
#define DENSE_LAYERS W_FF(LLMMEM__FF(DENSE))
#define MOE_LAYERS W_FF(LLMMEM__FF(MOE))

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

/* Rules of the layer pattern. */
#define MIXER_FULL {LLMMEM__MR_FULL, NULL, NULL, 0, 0, NULL, NULL, NULL}
#define MIXER_LIST(list, map, rule, arg, arg2, on, off, expr) {rule, arg, arg2, on, off, expr, list, map}
#define FFN_DENSE {LLMMEM__FR_DENSE, NULL, NULL, 0, 0, NULL, NULL, NULL}
#define FFN_MOE {LLMMEM__FR_MOE, NULL, NULL, 0, 0, NULL, NULL, NULL}
#define FFN_RULE(rule, arg, arg2, list) {rule, arg, arg2, 0, 0, NULL, list, NULL}
/* The feed-forward of each layer from a per-layer list ("dense=0,sparse=1"),
 * else by the rule. */
#define FFN_LIST(list, map, rule, arg, arg2, expr) {rule, arg, arg2, 0, 0, expr, list, map}

#define ROWS(x) (x), (int)LLMMEM_ARRAY_LEN(x)

#endif /* LLMMEM_MODEL_FAMILIES_H */
