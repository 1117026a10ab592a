/* HuggingFace config.json -> struct llmmem_model.
 *
 * Defaults for absent keys are those of transformers' configuration classes
 * (huggingface/transformers: src/transformers/models/<type>/configuration_<type>.py,
 * the v5 @strict dataclass fields or the __init__ defaults); the module layout
 * each family implies is in src/model.c. One row of `types` per model_type. */
#include "input/input.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds for dimensions read from a config (generous, but they reject the
 * nonsense that would overflow a count). */
#define MAX_LAYERS 100000
#define MAX_DIM (INT64_C(1) << 22)   /* hidden, head_dim, intermediate: 4M */
#define MAX_HEADS 65536
#define MAX_VOCAB (INT64_C(1) << 26) /* 64M */
#define MAX_POS (INT64_C(1) << 40)
#define MAX_EXPERTS 65536

enum sw_rule {
    SW_NONE = 0, /* no sliding window */
    SW_ALL,      /* sliding_window (if not null) applies to every layer (mistral, phi3, starcoder2) */
    SW_QWEN,     /* use_sliding_window && layer >= max_window_layers (qwen2, qwen3) */
    SW_ALT,      /* every other layer starting at 0 (gemma2, gpt-oss) */
    SW_PATTERN   /* all but every sliding_window_pattern-th layer (gemma3) */
};

typedef struct hf_type {
    const char *type;
    int family;
    /* defaults (configuration_<type>.py) */
    int64_t V, h, f, L, a, kv, d, pos; /* kv 0 = a; d 0 = h / a */
    bool tie;
    int norm, norms, act;
    bool gated;
    int64_t sw;  /* default sliding_window */
    int sw_rule;
    int64_t E, topk, moe_f; /* MoE defaults */
} hf_type;

#define RMS LLMMEM__NORM_RMS
#define LN LLMMEM__NORM_LAYER
#define SILU LLMMEM__ACT_SILU_GLU
#define GEGLU LLMMEM__ACT_GELU_TANH_GLU

/* clang-format off */
static const hf_type types[] = {
    /* type          family                  V       h     f      L   a   kv  d    pos     tie    norm nrm act  gated  sw    rule        E   topk moe_f */
    {"llama",       LLMMEM__FAM_LLAMA,      32000,  4096, 11008, 32, 32, 0,  0,   2048,   false, RMS, 2, SILU, true, 0,    SW_NONE,    0,  0, 0},
    {"mistral",     LLMMEM__FAM_LLAMA,      32000,  4096, 14336, 32, 32, 8,  0,   131072, false, RMS, 2, SILU, true, 4096, SW_ALL,     0,  0, 0},
    {"mixtral",     LLMMEM__FAM_LLAMA,      32000,  4096, 14336, 32, 32, 8,  0,   131072, false, RMS, 2, SILU, true, 0,    SW_ALL,     8,  2, 0},
    {"qwen2",       LLMMEM__FAM_LLAMA,      151936, 4096, 22016, 32, 32, 32, 0,   32768,  false, RMS, 2, SILU, true, 4096, SW_QWEN,    0,  0, 0},
    {"qwen2_moe",   LLMMEM__FAM_LLAMA,      151936, 2048, 5632,  24, 16, 16, 0,   32768,  false, RMS, 2, SILU, true, 4096, SW_QWEN,    60, 4, 1408},
    {"qwen3",       LLMMEM__FAM_LLAMA,      151936, 4096, 22016, 32, 32, 32, 128, 32768,  false, RMS, 2, SILU, true, 4096, SW_QWEN,    0,  0, 0},
    {"qwen3_moe",   LLMMEM__FAM_LLAMA,      151936, 2048, 6144,  24, 32, 4,  0,   32768,  false, RMS, 2, SILU, true, 4096, SW_QWEN,    128, 8, 768},
    {"gemma",       LLMMEM__FAM_GEMMA,      256000, 3072, 24576, 28, 16, 16, 256, 8192,   true,  RMS, 2, GEGLU, true, 0,   SW_NONE,    0,  0, 0},
    {"gemma2",      LLMMEM__FAM_GEMMA,      256000, 2304, 9216,  26, 8,  4,  256, 8192,   true,  RMS, 4, GEGLU, true, 4096, SW_ALT,    0,  0, 0},
    {"gemma3_text", LLMMEM__FAM_GEMMA,      262208, 2304, 9216,  26, 8,  4,  256, 131072, true,  RMS, 4, GEGLU, true, 4096, SW_PATTERN, 0,  0, 0},
    {"phi",         LLMMEM__FAM_PHI,        51200,  2048, 8192,  24, 32, 0,  0,   2048,   false, LN,  1, LLMMEM__ACT_GELU_NEW, false, 0, SW_NONE, 0, 0, 0},
    {"phi3",        LLMMEM__FAM_PHI3,       32064,  3072, 8192,  32, 32, 0,  0,   4096,   false, RMS, 2, SILU, true, 0,    SW_ALL,     0,  0, 0},
    {"gpt2",        LLMMEM__FAM_GPT2,       50257,  768,  0,     12, 12, 0,  0,   1024,   true,  LN,  2, LLMMEM__ACT_GELU_NEW, false, 0, SW_NONE, 0, 0, 0},
    {"gpt_neox",    LLMMEM__FAM_GPT_NEOX,   50432,  6144, 24576, 44, 64, 0,  0,   2048,   false, LN,  2, LLMMEM__ACT_GELU, false, 0, SW_NONE, 0, 0, 0},
    {"gptj",        LLMMEM__FAM_GPTJ,       50400,  4096, 0,     28, 16, 0,  0,   2048,   false, LN,  1, LLMMEM__ACT_GELU_NEW, false, 0, SW_NONE, 0, 0, 0},
    {"opt",         LLMMEM__FAM_OPT,        50272,  768,  3072,  12, 12, 0,  0,   2048,   true,  LN,  2, LLMMEM__ACT_RELU, false, 0, SW_NONE, 0, 0, 0},
    {"falcon",      LLMMEM__FAM_FALCON,     65024,  4544, 0,     32, 71, 0,  0,   2048,   true,  LN,  1, LLMMEM__ACT_GELU, false, 0, SW_NONE, 0, 0, 0},
    {"olmo",        LLMMEM__FAM_OLMO,       50304,  4096, 11008, 32, 32, 0,  0,   2048,   false, LLMMEM__NORM_NONPARAM, 2, SILU, true, 0, SW_NONE, 0, 0, 0},
    {"olmo2",       LLMMEM__FAM_OLMO,       50304,  4096, 11008, 32, 32, 0,  0,   2048,   false, RMS, 2, SILU, true, 0,    SW_NONE,    0,  0, 0},
    {"olmoe",       LLMMEM__FAM_OLMO,       50304,  2048, 2048,  16, 16, 0,  0,   4096,   false, RMS, 2, SILU, true, 0,    SW_NONE,    64, 8, 0},
    {"starcoder2",  LLMMEM__FAM_STARCODER2, 49152,  3072, 12288, 30, 24, 2,  0,   4096,   true,  LN,  2, LLMMEM__ACT_GELU, false, 0, SW_ALL, 0, 0, 0},
    {"deepseek_v2", LLMMEM__FAM_DEEPSEEK,   32000,  4096, 11008, 32, 32, 0,  0,   2048,   false, RMS, 2, SILU, true, 0,    SW_NONE,    64, 0, 1407},
    {"deepseek_v3", LLMMEM__FAM_DEEPSEEK,   129280, 7168, 18432, 61, 128, 128, 0, 4096,   false, RMS, 2, SILU, true, 0,    SW_NONE,    256, 8, 2048},
    {"gpt_oss",     LLMMEM__FAM_GPT_OSS,    201088, 2880, 2880,  36, 64, 8,  64,  131072, false, RMS, 2, LLMMEM__ACT_SWIGLU_OAI, true, 128, SW_ALT, 128, 4, 0},
};
/* clang-format on */

typedef struct ctx {
    const llmmem__json *doc;
    const llmmem__jnode *o; /* the object holding the text model's keys */
    const char *prefix;     /* "" or "text_config." for messages */
    char path[128];
} ctx;

static const char *kp(ctx *c, const char *key)
{
    if (!c->prefix || !c->prefix[0])
        return key; /* top level: the key is the path (no formatting on the hot path) */
    snprintf(c->path, sizeof c->path, "%s%s", c->prefix, key);
    return c->path;
}

static bool has(const ctx *c, const char *key) { return llmmem__json_get(c->o, key) != NULL; }

static bool is_null(const ctx *c, const char *key)
{
    const llmmem__jnode *n = llmmem__json_get(c->o, key);
    return n && llmmem__json_type(n) == LLMMEM__J_NULL;
}

/* Integer with a default when absent or null. */
static int geti(int64_t *out, ctx *c, const char *key, int64_t def, int64_t lo, int64_t hi)
{
    *out = def;
    return llmmem__json_read_i64(out, c->doc, c->o, key, kp(c, key), lo, hi, false);
}

/* Integer where null means something else than absent (sliding_window: null = none). */
static int geti_null(int64_t *out, ctx *c, const char *key, int64_t absent, int64_t null_value,
                     int64_t lo, int64_t hi)
{
    if (is_null(c, key)) {
        *out = null_value;
        return 0;
    }
    return geti(out, c, key, absent, lo, hi);
}

static int getb(bool *out, ctx *c, const char *key, bool def)
{
    *out = def;
    return llmmem__json_read_bool(out, c->doc, c->o, key, kp(c, key), false);
}

static int getf(double *out, ctx *c, const char *key, double def)
{
    *out = def;
    return llmmem__json_read_f64(out, c->doc, c->o, key, kp(c, key), 0.0, 1.0, false);
}

/* A soft-capping value: null means none (Gemma2Config/Gemma3TextConfig). */
static int get_softcap(double *out, ctx *c, const char *key, double def)
{
    if (is_null(c, key)) {
        *out = 0;
        return 0;
    }
    *out = def;
    return llmmem__json_read_f64(out, c->doc, c->o, key, kp(c, key), 0.0, 1e9, false);
}

/* First present key of a list (aliases such as n_embd / hidden_size). */
static const char *alias(const ctx *c, const char *const *keys)
{
    for (; *keys; keys++)
        if (has(c, *keys))
            return *keys;
    return NULL;
}

static int geti_alias(int64_t *out, ctx *c, const char *const *keys, int64_t def, int64_t lo,
                      int64_t hi)
{
    const char *k = alias(c, keys);
    if (!k) {
        *out = def;
        return 0;
    }
    return geti(out, c, k, def, lo, hi);
}

static int act_of(const char *s, bool gated, int def)
{
    if (!s)
        return def;
    if (gated) {
        if (strncmp(s, "gelu", 4) == 0)
            return LLMMEM__ACT_GELU_TANH_GLU;
        return def;
    }
    if (strcmp(s, "gelu_new") == 0 || strcmp(s, "gelu_fast") == 0)
        return LLMMEM__ACT_GELU_NEW;
    if (strcmp(s, "relu") == 0)
        return LLMMEM__ACT_RELU;
    if (strncmp(s, "gelu", 4) == 0)
        return LLMMEM__ACT_GELU;
    return def;
}

static int read_act(struct llmmem_model *m, ctx *c)
{
    static const char *const keys[] = {"hidden_activation", "hidden_act", "activation_function",
                                       "activation", NULL};
    const char *k = alias(c, keys);
    if (!k || m->act == LLMMEM__ACT_SWIGLU_OAI)
        return 0;
    const llmmem__jnode *n = llmmem__json_get(c->o, k);
    if (llmmem__json_type(n) == LLMMEM__J_NULL)
        return 0;
    char s[64];
    int rc = llmmem__json_read_str(s, sizeof s, c->doc, c->o, k, kp(c, k), false);
    if (rc)
        return rc;
    m->act = act_of(s, m->gated_mlp, m->act);
    return 0;
}

/* dtype / torch_dtype */
static int read_dtype(struct llmmem_model *m, ctx *c)
{
    static const char *const keys[] = {"dtype", "torch_dtype", NULL};
    const char *k = alias(c, keys);
    if (!k || is_null(c, k))
        return 0;
    char s[32];
    int rc = llmmem__json_read_str(s, sizeof s, c->doc, c->o, k, kp(c, k), false);
    if (rc)
        return rc;
    if (strcmp(s, "float32") == 0)
        m->torch_dtype = LLMMEM__DT_FP32;
    else if (strcmp(s, "float16") == 0)
        m->torch_dtype = LLMMEM__DT_FP16;
    else if (strcmp(s, "bfloat16") == 0)
        m->torch_dtype = LLMMEM__DT_BF16;
    else if (strncmp(s, "float8", 6) == 0)
        m->torch_dtype = LLMMEM__DT_FP8;
    else
        llmmem__model_note(m, "%s \"%s\" not recognised; dtype left to the configuration", k, s);
    return 0;
}

/* quantization_config: transformers' quantizers (gptq, awq, bitsandbytes, fp8, mxfp4). */
static int read_quant(struct llmmem_model *m, ctx *top)
{
    const llmmem__jnode *q = llmmem__json_get(top->o, "quantization_config");
    if (!q || llmmem__json_type(q) == LLMMEM__J_NULL)
        return 0;
    if (llmmem__json_type(q) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(top->doc, q, LLMMEM_E_SCHEMA, "quantization_config",
                                     "expected an object");
    ctx c = {.doc = top->doc, .o = q, .prefix = "quantization_config."};
    char method[32] = "";
    int rc = llmmem__json_read_str(method, sizeof method, c.doc, q, "quant_method",
                                   kp(&c, "quant_method"), false);
    if (rc)
        return rc;
    int64_t bits = 0, group = 0;
    static const char *const bit_keys[] = {"bits", "w_bit", NULL};
    static const char *const group_keys[] = {"group_size", "q_group_size", NULL};
    if ((rc = geti_alias(&bits, &c, bit_keys, 0, -1, 64)) ||
        (rc = geti_alias(&group, &c, group_keys, 0, -1, INT64_C(1) << 30)))
        return rc;
    if (strcmp(method, "gptq") == 0) {
        m->quant_method = LLMMEM__Q_GPTQ;
        m->quant_bits = bits ? bits : 4;
        m->quant_group_size = group ? group : 128;
    } else if (strcmp(method, "awq") == 0) {
        m->quant_method = LLMMEM__Q_AWQ;
        m->quant_bits = bits ? bits : 4;
        m->quant_group_size = group ? group : 128;
    } else if (strcmp(method, "bitsandbytes") == 0) {
        bool b4 = false, b8 = false, dq = false;
        char qt[16] = "fp4"; /* BitsAndBytesConfig default bnb_4bit_quant_type */
        if ((rc = getb(&b4, &c, "load_in_4bit", false)) || (rc = getb(&b8, &c, "load_in_8bit", false)) ||
            (rc = getb(&dq, &c, "bnb_4bit_use_double_quant", false)) ||
            (rc = llmmem__json_read_str(qt, sizeof qt, c.doc, q, "bnb_4bit_quant_type",
                                        kp(&c, "bnb_4bit_quant_type"), false)))
            return rc;
        if (b4) {
            m->quant_method = strcmp(qt, "nf4") == 0 ? (dq ? LLMMEM__Q_NF4_DQ : LLMMEM__Q_NF4)
                                                     : LLMMEM__Q_FP4;
            m->quant_bits = 4;
        } else if (b8) {
            m->quant_method = LLMMEM__Q_INT8;
            m->quant_bits = 8;
        }
    } else if (strcmp(method, "fp8") == 0) {
        m->quant_method = llmmem__json_get(q, "weight_block_size") &&
                                  llmmem__json_type(llmmem__json_get(q, "weight_block_size")) ==
                                      LLMMEM__J_ARRAY
                              ? LLMMEM__Q_FP8_BLOCK
                              : LLMMEM__Q_FP8;
        m->quant_bits = 8;
    } else if (strcmp(method, "mxfp4") == 0) {
        m->quant_method = LLMMEM__Q_MXFP4;
        m->quant_bits = 4;
        m->quant_group_size = 32; /* OCP MX: 32 elements share one E8M0 scale */
    } else {
        llmmem__model_note(m, "quantization_config.quant_method \"%s\" not modelled; weights "
                              "follow the configuration's weights_format", method);
    }
    return 0;
}

/* Counts layers whose layer_types entry is "sliding_attention"; -1 if absent. */
static int count_layer_types(int64_t *n, ctx *c, int64_t L)
{
    const llmmem__jnode *lt = llmmem__json_get(c->o, "layer_types");
    *n = -1;
    if (!lt || llmmem__json_type(lt) == LLMMEM__J_NULL)
        return 0;
    if (llmmem__json_type(lt) != LLMMEM__J_ARRAY)
        return llmmem__json_error_at(c->doc, lt, LLMMEM_E_SCHEMA, kp(c, "layer_types"),
                                     "expected an array of strings");
    if (llmmem__json_array_size(lt) != L)
        return llmmem__json_error_at(c->doc, lt, LLMMEM_E_INCONSISTENT, kp(c, "layer_types"),
                                     "has %d entries but num_hidden_layers is %lld",
                                     llmmem__json_array_size(lt), (long long)L);
    int64_t k = 0;
    for (const llmmem__jnode *it = llmmem__json_first(lt); it; it = llmmem__json_next(it)) {
        const char *s = llmmem__json_string(it);
        if (!s)
            return llmmem__json_error_at(c->doc, it, LLMMEM_E_SCHEMA, kp(c, "layer_types"),
                                         "expected a string entry");
        if (strcmp(s, "sliding_attention") == 0)
            k++;
    }
    *n = k;
    return 0;
}

/* Whether layer i is MoE under the qwen2_moe/qwen3_moe rule
 * (modeling_qwen2_moe.py Qwen2MoeDecoderLayer: not in mlp_only_layers and
 * (i + 1) % decoder_sparse_step == 0). */
static int count_qwen_moe_layers(int64_t *n, ctx *c, int64_t L)
{
    int64_t step = 1;
    int rc = geti(&step, c, "decoder_sparse_step", 1, 1, MAX_LAYERS);
    if (rc)
        return rc;
    const llmmem__jnode *only = llmmem__json_get(c->o, "mlp_only_layers");
    if (only && llmmem__json_type(only) != LLMMEM__J_NULL &&
        llmmem__json_type(only) != LLMMEM__J_ARRAY)
        return llmmem__json_error_at(c->doc, only, LLMMEM_E_SCHEMA, kp(c, "mlp_only_layers"),
                                     "expected an array of layer indices");
    int64_t k = 0;
    for (int64_t i = 0; i < L; i++) {
        bool dense = false;
        for (const llmmem__jnode *it = llmmem__json_first(only); it; it = llmmem__json_next(it))
            if (llmmem__json_type(it) == LLMMEM__J_NUMBER && llmmem__json_number(it) == (double)i)
                dense = true;
        if (!dense && (i + 1) % step == 0)
            k++;
    }
    *n = k;
    return 0;
}

static int read_dropouts(struct llmmem_model *m, ctx *c, double attn, double hidden, double emb)
{
    static const char *const attn_keys[] = {"attention_dropout", "attn_pdrop", NULL};
    static const char *const hid_keys[] = {"resid_pdrop", "hidden_dropout", "residual_dropout",
                                           "dropout", NULL};
    static const char *const emb_keys[] = {"embd_pdrop", "embedding_dropout", NULL};
    const char *k;
    int rc;
    m->attention_dropout = attn;
    m->hidden_dropout = hidden;
    m->embedding_dropout = emb;
    if ((k = alias(c, attn_keys)) && (rc = getf(&m->attention_dropout, c, k, attn)))
        return rc;
    if ((k = alias(c, hid_keys)) && (rc = getf(&m->hidden_dropout, c, k, hidden)))
        return rc;
    if ((k = alias(c, emb_keys)) && (rc = getf(&m->embedding_dropout, c, k, emb)))
        return rc;
    return 0;
}

/* rope_parameters.partial_rotary_factor (v5) or a top-level key. */
static int read_partial_rotary(double *out, ctx *c, const char *key, double def)
{
    *out = def;
    const llmmem__jnode *rp = llmmem__json_get(c->o, "rope_parameters");
    if (!rp)
        rp = llmmem__json_get(c->o, "rope_scaling");
    if (rp && llmmem__json_type(rp) == LLMMEM__J_OBJECT &&
        llmmem__json_get(rp, "partial_rotary_factor")) {
        ctx r = {.doc = c->doc, .o = rp, .prefix = "rope_parameters."};
        return getf(out, &r, "partial_rotary_factor", def);
    }
    if (key && has(c, key))
        return getf(out, c, key, def);
    return 0;
}

/* ---- vision towers ------------------------------------------------------- */

/* CLIP vision model (modeling_clip.py CLIPVisionTransformer) + LLaVA projector
 * (modeling_llava.py LlavaMultiModalProjector), as in formulas.md 1.2. */
static int llava_vision(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *root,
                        int64_t text_h)
{
    ctx c = {.doc = doc, .o = llmmem__json_get(root, "vision_config"), .prefix = "vision_config."};
    if (c.o && llmmem__json_type(c.o) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(doc, c.o, LLMMEM_E_SCHEMA, "vision_config", "expected an object");
    /* LlavaConfig's default vision_config: CLIP ViT-L/14-336 */
    int64_t h = 1024, f = 4096, L = 24, img = 336, p = 14, ch = 3, heads = 16;
    int rc;
    if (c.o) {
        char mt[64] = "clip_vision_model";
        if ((rc = llmmem__json_read_str(mt, sizeof mt, doc, c.o, "model_type", kp(&c, "model_type"),
                                        false)))
            return rc;
        if (strcmp(mt, "clip_vision_model") != 0)
            return llmmem__json_error_at(doc, c.o, LLMMEM_E_UNSUPPORTED, "vision_config.model_type",
                                         "vision tower \"%s\" not modelled (only clip_vision_model)",
                                         mt);
        /* CLIPVisionConfig defaults when a key is absent */
        if ((rc = geti(&h, &c, "hidden_size", 768, 1, MAX_DIM)) ||
            (rc = geti(&f, &c, "intermediate_size", 3072, 1, MAX_DIM)) ||
            (rc = geti(&L, &c, "num_hidden_layers", 12, 1, MAX_LAYERS)) ||
            (rc = geti(&img, &c, "image_size", 224, 1, 1 << 20)) ||
            (rc = geti(&p, &c, "patch_size", 32, 1, 1 << 20)) ||
            (rc = geti(&ch, &c, "num_channels", 3, 1, 64)) ||
            (rc = geti(&heads, &c, "num_attention_heads", 12, 1, MAX_HEADS)))
            return rc;
    }
    if (img < p)
        return llmmem__json_error_at(doc, c.o, LLMMEM_E_SCHEMA, "vision_config.image_size",
                                     "image_size %lld is smaller than patch_size %lld",
                                     (long long)img, (long long)p);
    int64_t np = (img / p) * (img / p) + 1;
    llmmem__ovf o = {0};
    uint64_t v = (uint64_t)h;                                        /* class_embedding */
    v = llmmem__add(&o, v, llmmem__mul3(&o, ch, p * p, h));          /* patch conv, no bias */
    v = llmmem__add(&o, v, llmmem__mul(&o, np, h));                  /* position_embedding */
    v = llmmem__add(&o, v, 2 * h);                                   /* pre_layrnorm */
    uint64_t layer = llmmem__mul(&o, 4, h * h + h)                   /* q,k,v,out with bias */
                     + (uint64_t)(h * f + f) + (uint64_t)(f * h + h) /* fc1, fc2 */
                     + (uint64_t)(4 * h);                            /* layer_norm1, 2 */
    v = llmmem__add(&o, v, llmmem__mul(&o, L, layer));
    v = llmmem__add(&o, v, 2 * h); /* post_layernorm */
    /* projector: linear_1 (h * n_feature_layers -> text h), linear_2 (text h -> text h) */
    int64_t nfl = 1;
    const llmmem__jnode *vfl = llmmem__json_get(root, "vision_feature_layer");
    if (vfl && llmmem__json_type(vfl) == LLMMEM__J_ARRAY)
        nfl = llmmem__json_array_size(vfl);
    bool pbias = true;
    ctx rc_ = {.doc = doc, .o = root, .prefix = ""};
    if ((rc = getb(&pbias, &rc_, "multimodal_projector_bias", true)))
        return rc;
    uint64_t pin = (uint64_t)(h * nfl);
    uint64_t proj = llmmem__mul(&o, pin, text_h) + (pbias ? (uint64_t)text_h : 0);
    proj = llmmem__add(&o, proj, llmmem__mul(&o, text_h, text_h) + (pbias ? (uint64_t)text_h : 0));
    v = llmmem__add(&o, v, proj);
    if (o.overflow || v > INT64_MAX)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "vision_config: parameter count overflows");
    m->vision_params = (int64_t)v;
    /* The tower as vision.c runs it (modeling_llava.py get_image_features):
     * hidden_states[vision_feature_layer] of CLIPVisionModel(output_hidden_states)
     * is the output of layer L+1+fl (fl < 0; index 0 = pre_layrnorm output),
     * the largest index of a list; the 'default' strategy drops the CLS token. */
    int64_t run = 0;
    if (!vfl || llmmem__json_type(vfl) == LLMMEM__J_NULL) {
        run = L - 1; /* LlavaConfig default vision_feature_layer = -2 */
    } else {
        const llmmem__jnode *it = llmmem__json_type(vfl) == LLMMEM__J_ARRAY ? llmmem__json_first(vfl) : vfl;
        for (; it; it = llmmem__json_type(vfl) == LLMMEM__J_ARRAY ? llmmem__json_next(it) : NULL) {
            double x = llmmem__json_type(it) == LLMMEM__J_NUMBER ? llmmem__json_number(it) : 1e300;
            /* range first: converting a double outside int64 (or NaN) is undefined */
            if (!(x >= (double)-(L + 1) && x <= (double)L) || x != (double)(int64_t)x)
                return llmmem__json_error_at(doc, it, LLMMEM_E_OUT_OF_RANGE, "vision_feature_layer",
                                             "expected a layer index in [-%lld, %lld]",
                                             (long long)(L + 1), (long long)L);
            int64_t k = (int64_t)x < 0 ? L + 1 + (int64_t)x : (int64_t)x;
            run = k > run ? k : run;
        }
    }
    char strat[32] = "default";
    if ((rc = llmmem__json_read_str(strat, sizeof strat, doc, root, "vision_feature_select_strategy",
                                    "vision_feature_select_strategy", false)))
        return rc;
    if (strcmp(strat, "default") != 0 && strcmp(strat, "full") != 0)
        return llmmem__json_error_at(doc, llmmem__json_get(root, "vision_feature_select_strategy"),
                                     LLMMEM_E_SCHEMA, "vision_feature_select_strategy",
                                     "expected \"default\" or \"full\", got \"%s\"", strat);
    struct llmmem__vision_tower *t = &m->vision;
    t->kind = LLMMEM__V_CLIP;
    t->hidden = h, t->layers = L, t->heads = heads, t->intermediate = f;
    t->patch_size = p, t->image_size = img;
    t->projector_params = (int64_t)proj;
    t->feature_layer = run;
    t->drop_cls = strcmp(strat, "default") == 0;
    t->tokens_per_image = (img / p) * (img / p) + (t->drop_cls ? 0 : 1);
    return 0;
}

/* Qwen2-VL vision tower (modeling_qwen2_vl.py Qwen2VisionTransformerPretrainedModel). */
static int qwen2vl_vision(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *root,
                          int64_t text_h)
{
    ctx c = {.doc = doc, .o = llmmem__json_get(root, "vision_config"), .prefix = "vision_config."};
    if (c.o && llmmem__json_type(c.o) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(doc, c.o, LLMMEM_E_SCHEMA, "vision_config", "expected an object");
    /* Qwen2VLVisionConfig defaults (an absent vision_config reads as all defaults) */
    int64_t depth, e, out_h, ch, p, m2, tp, heads;
    double r = 4.0;
    int rc;
    if ((rc = geti(&depth, &c, "depth", 32, 1, MAX_LAYERS)) ||
        (rc = geti(&e, &c, "embed_dim", 1280, 1, MAX_DIM)) ||
        (rc = geti(&out_h, &c, "hidden_size", 3584, 1, MAX_DIM)) ||
        (rc = llmmem__json_read_f64(&r, doc, c.o, "mlp_ratio", kp(&c, "mlp_ratio"), 0.0, 64.0,
                                    false)) ||
        (rc = geti(&ch, &c, "in_channels", 3, 1, 64)) ||
        (rc = geti(&p, &c, "patch_size", 14, 1, 1 << 20)) ||
        (rc = geti(&m2, &c, "spatial_merge_size", 2, 1, 64)) ||
        (rc = geti(&tp, &c, "temporal_patch_size", 2, 1, 64)) ||
        (rc = geti(&heads, &c, "num_heads", 16, 1, MAX_HEADS)))
        return rc;
    (void)text_h;
    int64_t mh = (int64_t)((double)e * r); /* VisionMlp hidden = int(embed_dim * mlp_ratio) */
    llmmem__ovf o = {0};
    uint64_t v = llmmem__mul3(&o, (uint64_t)(ch * tp), (uint64_t)(p * p), (uint64_t)e); /* Conv3d, no bias */
    uint64_t blk = (uint64_t)(4 * e)                                          /* norm1, norm2 */
                   + llmmem__mul(&o, e, 3 * e) + (uint64_t)(3 * e)           /* qkv */
                   + llmmem__mul(&o, e, e) + (uint64_t)e                     /* proj */
                   + llmmem__mul(&o, e, mh) + (uint64_t)mh                   /* fc1 */
                   + llmmem__mul(&o, mh, e) + (uint64_t)e;                   /* fc2 */
    v = llmmem__add(&o, v, llmmem__mul(&o, depth, blk));
    int64_t me = m2 * m2 * e;
    uint64_t merger = (uint64_t)(2 * e);                                         /* merger.ln_q */
    merger = llmmem__add(&o, merger, llmmem__mul(&o, me, me) + (uint64_t)me);       /* merger mlp.0 */
    merger = llmmem__add(&o, merger, llmmem__mul(&o, me, out_h) + (uint64_t)out_h); /* merger mlp.2 */
    v = llmmem__add(&o, v, merger);
    if (o.overflow || v > INT64_MAX)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "vision_config: parameter count overflows");
    m->vision_params = (int64_t)v;
    /* The tower as vision.c runs it: image size is dynamic (smart_resize in
     * image_processing_qwen2_vl.py), the PatchMerger is the projector. */
    struct llmmem__vision_tower *t = &m->vision;
    t->kind = LLMMEM__V_QWEN2VL;
    t->hidden = e, t->layers = depth, t->heads = heads, t->intermediate = mh;
    t->patch_size = p, t->temporal_patch = tp, t->merge_size = m2;
    t->projector_params = (int64_t)merger;
    t->feature_layer = depth;
    return 0;
}

/* Gemma 3 vision: SigLIP (modeling_siglip.py SiglipVisionTransformer) and
 * Gemma3MultiModalProjector (modeling_gemma3.py: avg-pool to
 * mm_tokens_per_image, Gemma3RMSNorm, mm_input_projection_weight). */
static int gemma3_vision(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *root,
                         int64_t text_h)
{
    ctx c = {.doc = doc, .o = llmmem__json_get(root, "vision_config"), .prefix = "vision_config."};
    if (c.o && llmmem__json_type(c.o) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(doc, c.o, LLMMEM_E_SCHEMA, "vision_config", "expected an object");
    /* SiglipVisionConfig defaults (Gemma3Config uses SiglipVisionConfig() when absent) */
    int64_t h = 768, f = 3072, L = 12, heads = 12, img = 224, p = 16, ch = 3, mm = 256;
    bool head = true;
    int rc;
    if (c.o) {
        char mt[64] = "siglip_vision_model";
        if ((rc = llmmem__json_read_str(mt, sizeof mt, doc, c.o, "model_type", kp(&c, "model_type"),
                                        false)))
            return rc;
        if (strcmp(mt, "siglip_vision_model") != 0)
            return llmmem__json_error_at(doc, c.o, LLMMEM_E_UNSUPPORTED, "vision_config.model_type",
                                         "vision tower \"%s\" not modelled (only siglip_vision_model)",
                                         mt);
        if ((rc = geti(&h, &c, "hidden_size", 768, 1, MAX_DIM)) ||
            (rc = geti(&f, &c, "intermediate_size", 3072, 1, MAX_DIM)) ||
            (rc = geti(&L, &c, "num_hidden_layers", 12, 1, MAX_LAYERS)) ||
            (rc = geti(&heads, &c, "num_attention_heads", 12, 1, MAX_HEADS)) ||
            (rc = geti(&img, &c, "image_size", 224, 1, 1 << 20)) ||
            (rc = geti(&p, &c, "patch_size", 16, 1, 1 << 20)) ||
            (rc = geti(&ch, &c, "num_channels", 3, 1, 64)) ||
            (rc = getb(&head, &c, "vision_use_head", true)))
            return rc;
    }
    ctx top = {.doc = doc, .o = root, .prefix = ""};
    if ((rc = geti(&mm, &top, "mm_tokens_per_image", 256, 1, INT64_C(1) << 30)))
        return rc;
    const int64_t side = img / p; /* patches_per_image */
    int64_t tps = 1;              /* tokens_per_side = int(mm_tokens_per_image ** 0.5) */
    while ((tps + 1) * (tps + 1) <= mm)
        tps++;
    if (side < 1 || side % tps != 0)
        return llmmem__json_error_at(doc, c.o ? c.o : root, LLMMEM_E_SCHEMA, "mm_tokens_per_image",
                                     "%lld patches per side do not pool evenly to %lld tokens per side",
                                     (long long)side, (long long)tps);
    llmmem__ovf o = {0};
    uint64_t v = llmmem__add(&o, llmmem__mul3(&o, ch, p * p, h), h);   /* patch conv + bias */
    v = llmmem__add(&o, v, llmmem__mul3(&o, side, side, h));            /* position_embedding */
    uint64_t layer = llmmem__mul(&o, 4, h * h + h)                      /* q,k,v,out_proj with bias */
                     + (uint64_t)(h * f + f) + (uint64_t)(f * h + h)    /* fc1, fc2 */
                     + (uint64_t)(4 * h);                               /* layer_norm1, 2 */
    v = llmmem__add(&o, v, llmmem__mul(&o, L, layer));
    v = llmmem__add(&o, v, 2 * h); /* post_layernorm */
    if (head) /* SiglipMultiheadAttentionPoolingHead: probe, MultiheadAttention, LayerNorm, MLP */
        v = llmmem__add(&o, v, (uint64_t)h + 3 * (uint64_t)(h * h + h) + (uint64_t)(h * h + h) + 2 * (uint64_t)h +
                                   (uint64_t)(h * f + f) + (uint64_t)(f * h + h));
    uint64_t proj = llmmem__add(&o, llmmem__mul(&o, h, text_h), h); /* projection weight, soft-emb norm */
    v = llmmem__add(&o, v, proj);
    if (o.overflow || v > INT64_MAX)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "vision_config: parameter count overflows");
    m->vision_params = (int64_t)v;
    struct llmmem__vision_tower *t = &m->vision;
    t->kind = LLMMEM__V_SIGLIP;
    t->hidden = h, t->layers = L, t->heads = heads, t->intermediate = f;
    t->patch_size = p, t->image_size = img;
    t->projector_params = (int64_t)proj;
    t->feature_layer = L;
    t->tokens_per_image = tps * tps;
    return 0;
}

/* ---- the text model ------------------------------------------------------- */

static const hf_type *find_type(const char *t)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(types); i++)
        if (strcmp(types[i].type, t) == 0)
            return &types[i];
    return NULL;
}

static int parse_text(struct llmmem_model *m, ctx *c, const hf_type *t, bool generic)
{
    int rc;
    const char *type = t->type;
    m->family = t->family;
    m->norm = t->norm;
    m->norms_per_layer = t->norms;
    m->act = t->act;
    m->gated_mlp = t->gated;
    m->partial_rotary_factor = 1.0;
    m->tie_embeddings = t->tie;

    /* core dimensions, with the per-type key names */
    static const char *const k_h[] = {"hidden_size", "n_embd", "d_model", NULL};
    static const char *const k_L[] = {"num_hidden_layers", "n_layer", "num_layers", NULL};
    static const char *const k_a[] = {"num_attention_heads", "n_head", NULL};
    static const char *const k_f[] = {"intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size", NULL};
    static const char *const k_pos[] = {"max_position_embeddings", "n_positions", NULL};
    const char *k;
    bool req = generic; /* an unknown type must name its dimensions */
    if (req) {
        if (!(k = alias(c, k_h)))
            return llmmem__json_error_at(c->doc, c->o, LLMMEM_E_SCHEMA, kp(c, "hidden_size"),
                                         "missing required key");
        if (!alias(c, k_L))
            return llmmem__json_error_at(c->doc, c->o, LLMMEM_E_SCHEMA,
                                         kp(c, "num_hidden_layers"), "missing required key");
        if (!alias(c, k_a))
            return llmmem__json_error_at(c->doc, c->o, LLMMEM_E_SCHEMA,
                                         kp(c, "num_attention_heads"), "missing required key");
        if (!has(c, "vocab_size"))
            return llmmem__json_error_at(c->doc, c->o, LLMMEM_E_SCHEMA, kp(c, "vocab_size"),
                                         "missing required key");
    }
    if ((rc = geti(&m->vocab_size, c, "vocab_size", t->V, 1, MAX_VOCAB)) ||
        (rc = geti_alias(&m->hidden_size, c, k_h, t->h, 1, MAX_DIM)) ||
        (rc = geti_alias(&m->num_layers, c, k_L, t->L, 1, MAX_LAYERS)) ||
        (rc = geti_alias(&m->num_heads, c, k_a, t->a, 1, MAX_HEADS)) ||
        (rc = geti_alias(&m->max_positions, c, k_pos, t->pos, 1, MAX_POS)))
        return rc;
    int64_t h = m->hidden_size, a = m->num_heads;
    /* intermediate: null / absent -> 4h for gpt2, gptj, falcon (n_inner, ffn_hidden_size) */
    int64_t fdef = t->f ? t->f : 4 * h;
    if ((rc = geti_alias(&m->intermediate_size, c, k_f, fdef, 1, MAX_DIM)))
        return rc;
    if (generic && !alias(c, k_f))
        llmmem__model_note(m, "intermediate_size absent: assumed 4 * hidden_size (gated MLP)");

    /* key/value heads */
    static const char *const k_kv[] = {"num_key_value_heads", "num_kv_heads", "n_head_kv", NULL};
    if ((rc = geti_alias(&m->num_kv_heads, c, k_kv, t->kv ? t->kv : a, 1, MAX_HEADS)))
        return rc;
    /* head_dim: explicit, else the type default, else h / a */
    if (h % a != 0 && !has(c, "head_dim") && !t->d)
        llmmem__model_note(m, "hidden_size %lld is not a multiple of num_attention_heads %lld: "
                              "head_dim = %lld (floor)",
                           (long long)h, (long long)a, (long long)(h / a));
    if ((rc = geti(&m->head_dim, c, "head_dim", t->d ? t->d : h / a, 1, MAX_DIM)))
        return rc;
    if (m->head_dim == 0)
        m->head_dim = h / a;

    /* An unknown type takes PretrainedConfig's default (True): transformers'
     * to_json_string omits the key exactly when it equals both the class's and
     * the base default, so a config it wrote without the key ties. */
    if ((rc = getb(&m->tie_embeddings, c, "tie_word_embeddings", generic ? true : t->tie)))
        return rc;
    if ((rc = read_act(m, c)) || (rc = read_dtype(m, c)))
        return rc;
    /* Gemma2Config defaults: final_logit_softcapping 30.0, attn_logit_softcapping 50.0;
     * Gemma3TextConfig: None for both. */
    {
        bool g2 = !strcmp(m->model_type, "gemma2");
        if ((rc = get_softcap(&m->final_logit_softcapping, c, "final_logit_softcapping", g2 ? 30.0 : 0.0)) ||
            (rc = get_softcap(&m->attn_logit_softcapping, c, "attn_logit_softcapping", g2 ? 50.0 : 0.0)))
            return rc;
    }

    double attn_do = 0, hid_do = 0, emb_do = 0;
    bool b;
    switch (t->family) {
    case LLMMEM__FAM_GPT2:
        attn_do = hid_do = emb_do = 0.1; /* GPT2Config attn/resid/embd_pdrop */
        m->attention_bias = m->o_bias = m->mlp_bias = true;
        m->partial_rotary_factor = 0.0; /* learned positions (wpe) */
        break;
    case LLMMEM__FAM_GPTJ: {
        /* q,k,v,out_proj without bias; fc_in/fc_out with bias (modeling_gptj.py) */
        m->mlp_bias = true;
        int64_t rd = 64;
        if ((rc = geti(&rd, c, "rotary_dim", 64, 1, MAX_DIM)))
            return rc;
        m->partial_rotary_factor = (double)rd / (double)m->head_dim;
        m->parallel_block = true;
        break;
    }
    case LLMMEM__FAM_GPT_NEOX:
        if ((rc = getb(&b, c, "attention_bias", true)))
            return rc;
        m->attention_bias = m->o_bias = b;
        m->mlp_bias = true;
        if ((rc = read_partial_rotary(&m->partial_rotary_factor, c, "rotary_pct", 0.25)))
            return rc;
        break;
    case LLMMEM__FAM_OPT: {
        attn_do = 0.0;
        hid_do = emb_do = 0.1; /* OPTConfig dropout */
        if ((rc = getb(&b, c, "enable_bias", true)))
            return rc;
        m->attention_bias = m->o_bias = m->mlp_bias = b;
        m->partial_rotary_factor = 0.0;
        int64_t wepd = h;
        bool pre = true, affine = true;
        if ((rc = geti(&wepd, c, "word_embed_proj_dim", h, 1, MAX_DIM)) ||
            (rc = getb(&pre, c, "do_layer_norm_before", true)) ||
            (rc = getb(&affine, c, "layer_norm_elementwise_affine", true)))
            return rc;
        if (wepd != h || !pre) {
            const llmmem__jnode *n = llmmem__json_get(c->o, wepd != h ? "word_embed_proj_dim"
                                                                     : "do_layer_norm_before");
            return llmmem__json_error_at(c->doc, n, LLMMEM_E_UNSUPPORTED,
                                         kp(c, wepd != h ? "word_embed_proj_dim"
                                                         : "do_layer_norm_before"),
                                         "OPT with project_in/out or post-norm (opt-350m) is not "
                                         "modelled");
        }
        if (!affine)
            m->norm = LLMMEM__NORM_NONPARAM;
        break;
    }
    case LLMMEM__FAM_FALCON: {
        /* modeling_falcon.py FalconAttention / FalconDecoderLayer */
        bool new_arch = false, mq = true, par = true, alibi = false;
        int64_t nln = 0;
        if ((rc = getb(&new_arch, c, "new_decoder_architecture", false)) ||
            (rc = getb(&mq, c, "multi_query", true)) || (rc = getb(&par, c, "parallel_attn", true)) ||
            (rc = getb(&b, c, "bias", false)) || (rc = getb(&alibi, c, "alibi", false)) ||
            (rc = geti(&nln, c, "num_ln_in_parallel_attn", 0, 0, 2)))
            return rc;
        m->attention_bias = m->o_bias = m->mlp_bias = b;
        if (!new_arch)
            m->num_kv_heads = mq ? 1 : a; /* qkv = h + 2d (MQA) or 3h */
        m->head_dim = h / a;
        if (new_arch && nln == 0)
            nln = 2;
        m->parallel_block = par && nln != 2;
        m->norms_per_layer = !par ? 2 : (nln == 2 ? 2 : 1);
        m->partial_rotary_factor = alibi ? 0.0 : 1.0;
        break;
    }
    case LLMMEM__FAM_PHI: {
        m->attention_bias = m->o_bias = m->mlp_bias = true;
        m->parallel_block = true;
        if ((rc = getb(&m->qk_norm, c, "qk_layernorm", false)) ||
            (rc = read_partial_rotary(&m->partial_rotary_factor, c, "partial_rotary_factor", 0.5)))
            return rc;
        break;
    }
    case LLMMEM__FAM_STARCODER2:
        if ((rc = getb(&b, c, "use_bias", true)))
            return rc;
        m->attention_bias = m->o_bias = m->mlp_bias = b;
        break;
    case LLMMEM__FAM_OLMO:
        if ((rc = getb(&b, c, "attention_bias", false)))
            return rc;
        m->attention_bias = m->o_bias = b;
        m->qk_norm = strcmp(type, "olmo") != 0; /* olmo2, olmoe: q_norm, k_norm */
        break;
    case LLMMEM__FAM_GPT_OSS:
        if ((rc = getb(&b, c, "attention_bias", true)))
            return rc;
        m->attention_bias = m->o_bias = b;
        m->mlp_bias = true; /* experts' gate_up_proj_bias, down_proj_bias */
        break;
    default: /* llama-like, gemma, phi3, deepseek */
        if (strcmp(type, "qwen2") == 0) {
            m->attention_bias = true; /* Qwen2Attention q,k,v bias=True, o_proj bias=False */
        } else if (strcmp(type, "qwen2_moe") == 0) {
            if ((rc = getb(&m->attention_bias, c, "qkv_bias", true)))
                return rc;
        } else if (strcmp(type, "mistral") == 0 || strcmp(type, "mixtral") == 0 ||
                   strcmp(type, "phi3") == 0) {
            /* no bias anywhere */
        } else {
            if ((rc = getb(&b, c, "attention_bias", false)))
                return rc;
            m->attention_bias = m->o_bias = b;
            if (strcmp(type, "llama") == 0 && (rc = getb(&m->mlp_bias, c, "mlp_bias", false)))
                return rc;
        }
        m->qk_norm = strcmp(type, "qwen3") == 0 || strcmp(type, "qwen3_moe") == 0 ||
                     strcmp(type, "gemma3_text") == 0;
        if (t->family == LLMMEM__FAM_PHI3 &&
            (rc = read_partial_rotary(&m->partial_rotary_factor, c, "partial_rotary_factor", 1.0)))
            return rc;
        break;
    }
    if ((rc = read_dropouts(m, c, attn_do, hid_do, emb_do)))
        return rc;

    /* ---- MoE ---- */
    static const char *const k_E[] = {"num_local_experts", "num_experts", "n_routed_experts", NULL};
    int64_t L = m->num_layers;
    if (t->E) {
        if ((rc = geti_null(&m->num_experts, c, alias(c, k_E) ? alias(c, k_E) : "num_experts",
                            t->E, 0, 0, MAX_EXPERTS)) ||
            (rc = geti_null(&m->experts_per_token, c, "num_experts_per_tok", t->topk, 0, 0,
                            MAX_EXPERTS)))
            return rc;
        if (m->num_experts > 0 && m->experts_per_token > m->num_experts) {
            return llmmem__json_error_at(c->doc, llmmem__json_get(c->o, "num_experts_per_tok"),
                                         LLMMEM_E_INCONSISTENT, kp(c, "num_experts_per_tok"),
                                         "%lld experts per token but only %lld experts",
                                         (long long)m->experts_per_token,
                                         (long long)m->num_experts);
        }
        /* expert width: moe_intermediate_size, or intermediate_size (mixtral, olmoe, gpt-oss) */
        if ((rc = geti(&m->moe_intermediate_size, c, "moe_intermediate_size",
                       t->moe_f ? t->moe_f : m->intermediate_size, 1, MAX_DIM)))
            return rc;
        m->num_moe_layers = m->num_experts > 0 ? L : 0;
        if (strcmp(type, "qwen2_moe") == 0 || strcmp(type, "qwen3_moe") == 0) {
            if (m->num_experts > 0 && (rc = count_qwen_moe_layers(&m->num_moe_layers, c, L)))
                return rc;
            if (strcmp(type, "qwen2_moe") == 0) {
                /* Qwen2MoeSparseMoeBlock: shared_expert + shared_expert_gate (h -> 1) */
                if ((rc = geti(&m->shared_expert_intermediate_size, c,
                               "shared_expert_intermediate_size", 5632, 0, MAX_DIM)))
                    return rc;
                m->n_shared_experts = m->shared_expert_intermediate_size > 0;
                m->shared_expert_gate = m->shared_expert_intermediate_size > 0;
            }
        } else if (t->family == LLMMEM__FAM_DEEPSEEK) {
            int64_t kd = 0, freq = 1;
            if ((rc = geti(&m->n_shared_experts, c, "n_shared_experts",
                           strcmp(type, "deepseek_v3") == 0 ? 1 : 2, 0, MAX_EXPERTS)) ||
                (rc = geti(&kd, c, "first_k_dense_replace",
                           strcmp(type, "deepseek_v3") == 0 ? 3 : 0, 0, MAX_LAYERS)) ||
                (rc = geti(&freq, c, "moe_layer_freq", 1, 1, MAX_LAYERS)))
                return rc;
            /* DeepseekV2/V3DecoderLayer: MoE for layer >= first_k_dense_replace (and on the
             * moe_layer_freq stride, as DeepSeek's own modeling code does) */
            int64_t nm = 0;
            for (int64_t i = kd; i < L; i++)
                if (m->num_experts > 0 && i % freq == 0)
                    nm++;
            m->num_moe_layers = nm;
            m->shared_expert_intermediate_size = m->n_shared_experts * m->moe_intermediate_size;
            if (freq != 1)
                llmmem__model_note(m, "moe_layer_freq %lld: MoE layers counted on that stride",
                                   (long long)freq);
        }
        if (m->num_experts > 0 && m->experts_per_token == 0)
            llmmem__model_note(m, "num_experts_per_tok absent: active parameters count one "
                                  "expert per token");
    }

    /* ---- MLA (deepseek) ---- */
    if (t->family == LLMMEM__FAM_DEEPSEEK) {
        if ((rc = geti_null(&m->q_lora_rank, c, "q_lora_rank", 1536, 0, 0, MAX_DIM)) ||
            (rc = geti(&m->kv_lora_rank, c, "kv_lora_rank", 512, 1, MAX_DIM)) ||
            (rc = geti(&m->qk_nope_head_dim, c, "qk_nope_head_dim", 128, 0, MAX_DIM)) ||
            (rc = geti(&m->qk_rope_head_dim, c, "qk_rope_head_dim", 64, 0, MAX_DIM)) ||
            (rc = geti(&m->v_head_dim, c, "v_head_dim", 128, 1, MAX_DIM)))
            return rc;
        m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;
        m->partial_rotary_factor = (double)m->qk_rope_head_dim / (double)m->head_dim;
    }

    /* ---- sliding window ---- */
    int64_t lt;
    if ((rc = count_layer_types(&lt, c, L)))
        return rc;
    switch (t->sw_rule) {
    case SW_ALL:
        if ((rc = geti_null(&m->sliding_window, c, "sliding_window", t->sw, 0, 0, MAX_POS)))
            return rc;
        m->num_sliding_layers = m->sliding_window > 0 ? L : 0;
        break;
    case SW_QWEN: {
        bool use = false;
        int64_t mwl = 28;
        if ((rc = getb(&use, c, "use_sliding_window", false)) ||
            (rc = geti(&mwl, c, "max_window_layers", 28, 0, MAX_LAYERS)) ||
            (rc = geti_null(&m->sliding_window, c, "sliding_window", t->sw, 0, 0, MAX_POS)))
            return rc;
        if (!use)
            m->sliding_window = 0;
        m->num_sliding_layers = m->sliding_window > 0 && L > mwl ? L - mwl : 0;
        break;
    }
    case SW_ALT:
        if ((rc = geti_null(&m->sliding_window, c, "sliding_window", t->sw, 0, 0, MAX_POS)))
            return rc;
        m->num_sliding_layers = m->sliding_window > 0 ? (L + 1) / 2 : 0;
        break;
    case SW_PATTERN: {
        int64_t pat = 6;
        if ((rc = geti_null(&m->sliding_window, c, "sliding_window", t->sw, 0, 0, MAX_POS)) ||
            (rc = geti(&pat, c, "sliding_window_pattern", 6, 1, MAX_LAYERS)))
            return rc;
        m->num_sliding_layers = m->sliding_window > 0 ? L - L / pat : 0;
        break;
    }
    default:
        break;
    }
    /* an explicit layer_types list decides which layers use the window */
    if (lt >= 0)
        m->num_sliding_layers = m->sliding_window > 0 ? lt : 0;
    return 0;
}

int llmmem__model_from_json_doc(struct llmmem_model *m, const llmmem__json *doc,
                                const llmmem__jnode *root)
{
    if (!m || !doc || !root)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem__model_from_json_doc: NULL argument");
    if (llmmem__json_type(root) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "",
                                     "a config.json must be a JSON object");
    memset(m, 0, sizeof *m);
    ctx top = {.doc = doc, .o = root, .prefix = ""};
    int rc;
    char type[LLMMEM__NAME_MAX] = "";
    if ((rc = llmmem__json_read_str(type, sizeof type, doc, root, "model_type", "model_type", false)))
        return rc;
    snprintf(m->model_type, sizeof m->model_type, "%s", type);

    /* multimodal wrappers: the text model sits in text_config */
    bool llava = strcmp(type, "llava") == 0, qwen2vl = strcmp(type, "qwen2_vl") == 0,
         gemma3 = strcmp(type, "gemma3") == 0;
    ctx c = top;
    char ttype[LLMMEM__NAME_MAX];
    snprintf(ttype, sizeof ttype, "%s", type);
    if (llava || qwen2vl || gemma3) {
        const llmmem__jnode *tc = llmmem__json_get(root, "text_config");
        if (tc && llmmem__json_type(tc) != LLMMEM__J_NULL) {
            if (llmmem__json_type(tc) != LLMMEM__J_OBJECT)
                return llmmem__json_error_at(doc, tc, LLMMEM_E_SCHEMA, "text_config",
                                             "expected an object");
            c.o = tc;
            c.prefix = "text_config.";
        }
        /* text_config.model_type: llava's default text model is llama */
        snprintf(ttype, sizeof ttype, "%s", llava ? "llama" : qwen2vl ? "qwen2" : "gemma3_text");
        if (c.o != root && (rc = llmmem__json_read_str(ttype, sizeof ttype, doc, c.o, "model_type",
                                                       "text_config.model_type", false)))
            return rc;
        if (strcmp(ttype, "qwen2_vl_text") == 0)
            ttype[5] = '\0'; /* "qwen2": same text layout, q/k/v bias */
    }
    const hf_type *t = find_type(ttype);
    hf_type qvl;
    if (qwen2vl && t) {
        /* Qwen2VLTextConfig defaults (Qwen2-VL-72B shape) */
        qvl = *t;
        qvl.V = 152064, qvl.h = 8192, qvl.f = 29568, qvl.L = 80, qvl.a = 64, qvl.kv = 8;
        t = &qvl;
    }
    bool generic = false;
    if (!t) {
        /* unknown model_type: a llama-like dense decoder if the generic keys are there */
        static const char *const need[] = {"hidden_size", "num_hidden_layers",
                                           "num_attention_heads", "vocab_size", NULL};
        for (const char *const *k = need; *k; k++) {
            if (!has(&c, *k)) {
                if (!*type)
                    return llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "model_type",
                                                 "missing required key (and no generic "
                                                 "hidden_size/num_hidden_layers/... to estimate "
                                                 "from)");
                const llmmem__jnode *n = llmmem__json_get(root, "model_type");
                return llmmem__json_error_at(doc, n, LLMMEM_E_UNSUPPORTED, "model_type",
                                             "\"%s\" is not a supported architecture and the "
                                             "config lacks \"%s\" to estimate it as a dense "
                                             "decoder",
                                             ttype, *k);
            }
        }
        t = find_type("llama");
        generic = true;
    }
    if ((rc = parse_text(m, &c, t, generic)))
        return rc;
    if (generic) {
        m->generic = true;
        llmmem__model_note(m, "model_type \"%s\" is not modelled: estimated as a llama-like dense "
                              "decoder from its generic fields",
                           ttype[0] ? ttype : "(none)");
    }
    if (c.o != root) {
        /* tie_word_embeddings and dtype may sit on the outer config */
        if (has(&top, "tie_word_embeddings") && (rc = getb(&m->tie_embeddings, &top,
                                                            "tie_word_embeddings", m->tie_embeddings)))
            return rc;
        if (!m->torch_dtype && (rc = read_dtype(m, &top)))
            return rc;
    }
    if ((rc = read_quant(m, &top)))
        return rc;
    if (llava && (rc = llava_vision(m, doc, root, m->hidden_size)))
        return rc;
    if (qwen2vl && (rc = qwen2vl_vision(m, doc, root, m->hidden_size)))
        return rc;
    if (gemma3 && (rc = gemma3_vision(m, doc, root, m->hidden_size)))
        return rc;
    rc = llmmem__model_count(m);
    if (rc)
        return rc;
    return llmmem__model_validate(m);
}

/* ---- HF config.json entry points ---------------------------------------------------- */

static int from_text(llmmem_model **out, const char *json, size_t len, const char *source)
{
    llmmem__json *doc = NULL;
    int rc = llmmem__json_parse(&doc, json, len, source);
    if (rc)
        return rc;
    struct llmmem_model *m = malloc(sizeof *m);
    if (!m) {
        llmmem__json_free(doc);
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", source);
    }
    rc = llmmem__model_from_json_doc(m, doc, llmmem__json_root(doc));
    llmmem__json_free(doc);
    if (rc) {
        free(m);
        return rc;
    }
    *out = m;
    return 0;
}

int llmmem_model_from_hf_json(llmmem_model **out, const char *json, size_t len)
{
    if (!out || (!json && len))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_from_hf_json: NULL argument");
    return from_text(out, json ? json : "", len, "config.json");
}

int llmmem_model_from_hf_file(llmmem_model **out, const char *path)
{
    if (!out || !path)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_from_hf_file: NULL argument");
    char *text = NULL;
    size_t len = 0;
    int rc = llmmem__read_file(&text, &len, path);
    if (rc)
        return rc;
    rc = from_text(out, text, len, path);
    free(text);
    return rc;
}
