/* HuggingFace config.json -> struct llmmem_model.
 *
 * The model_type names a registry entry (src/model/registry.h): its
 * quantities are read from their keys with the defaults of the family's
 * configuration class (huggingface/transformers
 * src/transformers/models/<type>/configuration_<type>.py), its per-layer
 * lists decide the layer pattern, and counting the entry gives the exact
 * parameter count. A composite (a ForConditionalGeneration model, registry.h)
 * reads its text model from its text sub-object and each tower from its own;
 * the older llava and qwen2_vl wrappers read their towers in towers.c.
 * Encoders, encoder-decoders and speech/vision
 * models are refused; an unknown model_type is estimated from the keys every
 * HF config shares, and flagged approximate. */
#include "input/hfctx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* A quantization args object of compressed-tensors (compressed_tensors
 * QuantizationArgs: num_bits, type "int"/"float", strategy, group_size,
 * block_structure) or of a ModelOpt config group, as a storage format;
 * LLMMEM__Q_AUTO when none of the library's formats holds it. The formats,
 * as vLLM's compressed-tensors schemes store them
 * (quantization/compressed_tensors/compressed_tensors.py _get_scheme_from_parts):
 * 4-bit float in groups of 16 = NVFP4 (CompressedTensorsW4A4Fp4 / W4A16Fp4),
 * 8-bit float = FP8 (W8A8Fp8 / W8A16Fp8; block strategy = 128x128 blocks),
 * 8-bit int = INT8 with a scale per channel (W8A8Int8), 4-bit int in groups =
 * INT4 (WNA16: packed int32 and a scale per group). */
static int ct_format(int *fmt, int64_t *bits, int64_t *group, ctx *c, const llmmem__jnode *w,
                     const char *path)
{
    *fmt = LLMMEM__Q_AUTO;
    if (!w || llmmem__json_type(w) != LLMMEM__J_OBJECT)
        return 0;
    char type[16] = "int", strategy[24] = "";
    int64_t nb = 0, gs = 0;
    char kp_buf[160];
    snprintf(kp_buf, sizeof kp_buf, "%s.num_bits", path);
    int rc = llmmem__json_read_i64(&nb, c->doc, w, "num_bits", kp_buf, 1, 64, false);
    if (rc)
        return rc;
    snprintf(kp_buf, sizeof kp_buf, "%s.type", path);
    if ((rc = llmmem__json_read_str(type, sizeof type, c->doc, w, "type", kp_buf, false)))
        return rc;
    snprintf(kp_buf, sizeof kp_buf, "%s.strategy", path);
    if ((rc = llmmem__json_read_str(strategy, sizeof strategy, c->doc, w, "strategy", kp_buf, false)))
        return rc;
    snprintf(kp_buf, sizeof kp_buf, "%s.group_size", path);
    if ((rc = llmmem__json_read_i64(&gs, c->doc, w, "group_size", kp_buf, -1, INT64_C(1) << 30, false)))
        return rc;
    const bool is_float = strcmp(type, "float") == 0;
    *bits = nb;
    *group = gs;
    if (is_float && nb == 4 && gs == 16)
        *fmt = LLMMEM__Q_NVFP4;
    else if (is_float && nb == 8)
        *fmt = strcmp(strategy, "block") == 0 ? LLMMEM__Q_FP8_BLOCK : LLMMEM__Q_FP8;
    else if (!is_float && nb == 8 && (strcmp(strategy, "channel") == 0 || strcmp(strategy, "tensor") == 0))
        *fmt = LLMMEM__Q_INT8;
    else if (!is_float && nb == 4 && gs > 0)
        *fmt = LLMMEM__Q_INT4;
    return 0;
}

/* ModelOpt's KV cache scheme in dict form: fp8 when static 8-bit float
 * (vllm utils/torch_utils.py get_kv_cache_quant_algo_string: dynamic False,
 * num_bits 8, type "float"; anything else falls back to "auto"). */
static bool kv_scheme_fp8(const llmmem__jnode *k)
{
    const llmmem__jnode *nb = llmmem__json_get(k, "num_bits"), *ty = llmmem__json_get(k, "type"),
                        *dy = llmmem__json_get(k, "dynamic");
    return llmmem__json_type(nb) == LLMMEM__J_NUMBER && llmmem__json_number(nb) == 8 &&
           llmmem__json_type(ty) == LLMMEM__J_STRING && strcmp(llmmem__json_string(ty), "float") == 0 &&
           dy && llmmem__json_is_bool(dy) && !llmmem__json_true(dy);
}

/* Python's truth of a JSON value (`a or b` in vLLM's config readers). */
static bool truthy(const llmmem__jnode *x)
{
    switch (llmmem__json_type(x)) {
    case LLMMEM__J_OBJECT:
    case LLMMEM__J_ARRAY: return llmmem__json_first(x) != NULL;
    case LLMMEM__J_STRING: return llmmem__json_string(x)[0] != 0;
    case LLMMEM__J_NUMBER: return llmmem__json_number(x) != 0;
    default: return llmmem__json_is_bool(x) && llmmem__json_true(x);
    }
}

/* compressed-tensors: any kv_cache_scheme makes vLLM's KV cache fp8
 * (attention/layer.py: "llm-compressor mdls need to set cache_dtype to fp8",
 * whatever the scheme says). */
static int kv_scheme(struct llmmem_model *m, const llmmem__jnode *k)
{
    if (k && llmmem__json_type(k) == LLMMEM__J_OBJECT)
        m->kv_cache_quant = LLMMEM__DT_FP8;
    return 0;
}

/* compressed-tensors (llm-compressor's checkpoints): the scheme of the group
 * whose targets hold "Linear" (else the first group); a group's own "format"
 * or the top-level one. Mixed schemes over the linears are named in a note,
 * the Linear group's applied to all. */
static int read_compressed_tensors(struct llmmem_model *m, ctx *c, const llmmem__jnode *q)
{
    const llmmem__jnode *groups = llmmem__json_get(q, "config_groups");
    if (groups && llmmem__json_type(groups) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(c->doc, groups, LLMMEM_E_SCHEMA, "quantization_config.config_groups",
                                     "expected an object");
    const llmmem__jnode *pick = NULL;
    int kinds = 0, first_fmt = -1;
    for (const llmmem__jnode *g = llmmem__json_first(groups); g; g = llmmem__json_next(g)) {
        if (llmmem__json_type(g) != LLMMEM__J_OBJECT)
            continue;
        int fmt;
        int64_t b, gs;
        char path[128];
        snprintf(path, sizeof path, "quantization_config.config_groups.%.40s.weights", llmmem__json_key(g));
        int rc = ct_format(&fmt, &b, &gs, c, llmmem__json_get(g, "weights"), path);
        if (rc)
            return rc;
        if (fmt != first_fmt)
            kinds++;
        if (first_fmt < 0)
            first_fmt = fmt;
        const llmmem__jnode *t = llmmem__json_get(g, "targets");
        for (const llmmem__jnode *x = llmmem__json_first(t); x; x = llmmem__json_next(x))
            if (llmmem__json_type(x) == LLMMEM__J_STRING && strcmp(llmmem__json_string(x), "Linear") == 0 && !pick)
                pick = g;
    }
    if (!pick)
        pick = llmmem__json_first(groups);
    int fmt = LLMMEM__Q_AUTO;
    int64_t bits = 0, group = 0;
    if (pick) {
        char path[128];
        snprintf(path, sizeof path, "quantization_config.config_groups.%.40s.weights", llmmem__json_key(pick));
        int rc = ct_format(&fmt, &bits, &group, c, llmmem__json_get(pick, "weights"), path);
        if (rc)
            return rc;
    }
    if (fmt == LLMMEM__Q_AUTO) {
        llmmem__model_note(m, "quantization_config: a compressed-tensors scheme this library does not "
                              "model; weights follow the configuration's weights_format");
        return 0;
    }
    if (kinds > 1)
        llmmem__model_note(m, "quantization_config: compressed-tensors groups with different schemes; "
                              "the Linear group's is applied to every linear layer");
    m->quant_method = fmt;
    m->quant_bits = bits;
    m->quant_group_size = fmt == LLMMEM__Q_INT4 ? group : fmt == LLMMEM__Q_NVFP4 ? 16 : 0;
    return kv_scheme(m, llmmem__json_get(q, "kv_cache_scheme"));
}

/* ModelOpt (NVIDIA TensorRT Model Optimizer) checkpoints: quant_algo at the top
 * of quantization_config or under "quantization" (hf_quant_config.json's
 * layout); NVFP4 (group 16) and FP8 per tensor (vllm modelopt.py
 * ModelOptNvFp4Config, ModelOptFp8Config), the KV cache dtype from
 * kv_cache_quant_algo or kv_cache_scheme (vllm utils/torch_utils.py
 * get_kv_cache_quant_algo_string). */
static int read_modelopt(struct llmmem_model *m, ctx *c, const llmmem__jnode *q)
{
    const llmmem__jnode *in = llmmem__json_get(q, "quantization");
    if (llmmem__json_type(in) != LLMMEM__J_OBJECT)
        in = q;
    const llmmem__jnode *a = llmmem__json_get(in, "quant_algo");
    if (a && llmmem__json_type(a) != LLMMEM__J_STRING && llmmem__json_type(a) != LLMMEM__J_NULL)
        return llmmem__json_error_at(c->doc, a, LLMMEM_E_SCHEMA, "quantization_config.quant_algo",
                                     "expected a string");
    const char *algo = llmmem__json_type(a) == LLMMEM__J_STRING ? llmmem__json_string(a) : "";
    if (strstr(algo, "NVFP4") || strstr(algo, "nvfp4")) {
        m->quant_method = LLMMEM__Q_NVFP4;
        m->quant_bits = 4;
        m->quant_group_size = 16;
    } else if (strcmp(algo, "FP8") == 0) {
        m->quant_method = LLMMEM__Q_FP8;
        m->quant_bits = 8;
    } else {
        llmmem__model_note(m, "quantization_config.quant_algo \"%.40s\" (modelopt) not modelled; weights "
                              "follow the configuration's weights_format",
                           algo);
        return 0;
    }
    /* the first truthy of the inner and outer kv_cache_scheme, then the inner
     * and outer kv_cache_quant_algo (get_kv_cache_quant_algo_string); a dict
     * is fp8 when static 8-bit float, a string when it is "fp8" in any case */
    static const char *const keys[] = {"kv_cache_scheme", "kv_cache_quant_algo"};
    const llmmem__jnode *k = NULL;
    for (int i = 0; i < 2 && !k; i++) {
        const llmmem__jnode *x = llmmem__json_get(in, keys[i]), *y = llmmem__json_get(q, keys[i]);
        if (truthy(x))
            k = x;
        else if (truthy(y))
            k = y;
    }
    if ((llmmem__json_type(k) == LLMMEM__J_OBJECT && kv_scheme_fp8(k)) ||
        (llmmem__json_type(k) == LLMMEM__J_STRING && strcasecmp(llmmem__json_string(k), "fp8") == 0))
        m->kv_cache_quant = LLMMEM__DT_FP8;
    return 0;
}

/* quantization_config: transformers' quantizers (gptq, awq, bitsandbytes, fp8, mxfp4),
 * compressed-tensors and ModelOpt. */
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
    snprintf(m->quant_name, sizeof m->quant_name, "%s", method);
    int64_t bits = 0, group = 0;
    static const char *const bit_keys[] = {"bits", "w_bit", NULL};
    static const char *const group_keys[] = {"group_size", "q_group_size", NULL};
    if (strcmp(method, "compressed-tensors") == 0)
        return read_compressed_tensors(m, &c, q);
    if (strncmp(method, "modelopt", 8) == 0)
        return read_modelopt(m, &c, q);
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

/* ---- what is out of scope ----------------------------------------------------------- */

/* model_types refused with LLMMEM_E_UNSUPPORTED (the in_scope false families of
 * transformers 5.17 and their relatives), each with the reason the error gives. */
typedef struct refused_type {
    const char *type;
    const char *why;
} refused_type;

#define ENCODER "an encoder-only model"
#define ENCDEC "an encoder-decoder model, or the decoder of one"
#define SPEECH "a speech or audio model"
#define VISION "a vision- or multimodal-first model whose towers are not modelled"
#define LEGACY "a legacy or byte-level decoder this library does not model"

static const refused_type out_of_scope[] = {
    {"albert", ENCODER}, {"bert", ENCODER}, {"big_bird", ENCODER}, {"camembert", ENCODER},
    {"canine", ENCODER}, {"convbert", ENCODER}, {"data2vec-text", ENCODER}, {"deberta", ENCODER},
    {"deberta-v2", ENCODER}, {"distilbert", ENCODER}, {"electra", ENCODER}, {"ernie", ENCODER},
    {"esm", ENCODER}, {"flaubert", ENCODER}, {"fnet", ENCODER}, {"funnel", ENCODER},
    {"ibert", ENCODER}, {"layoutlm", ENCODER}, {"longformer", ENCODER}, {"luke", ENCODER},
    {"markuplm", ENCODER}, {"mega", ENCODER}, {"megatron-bert", ENCODER}, {"mobilebert", ENCODER},
    {"modernbert", ENCODER}, {"mpnet", ENCODER}, {"mra", ENCODER}, {"nezha", ENCODER},
    {"nystromformer", ENCODER}, {"qdqbert", ENCODER}, {"rembert", ENCODER}, {"roberta", ENCODER},
    {"roberta-prelayernorm", ENCODER}, {"roc_bert", ENCODER}, {"roformer", ENCODER},
    {"splinter", ENCODER}, {"squeezebert", ENCODER}, {"tapas", ENCODER}, {"xlm", ENCODER},
    {"xlm-roberta", ENCODER}, {"xlm-roberta-xl", ENCODER}, {"xlnet", ENCODER}, {"xmod", ENCODER},
    {"yoso", ENCODER}, {"bart", ENCDEC}, {"bert-generation", ENCDEC}, {"bigbird_pegasus", ENCDEC},
    {"blenderbot", ENCDEC}, {"blenderbot-small", ENCDEC}, {"encoder-decoder", ENCDEC},
    {"fsmt", ENCDEC}, {"led", ENCDEC}, {"longt5", ENCDEC}, {"m2m_100", ENCDEC}, {"marian", ENCDEC},
    {"mbart", ENCDEC}, {"mt5", ENCDEC}, {"mvp", ENCDEC}, {"nllb-moe", ENCDEC}, {"opt-encoder", ENCDEC},
    {"pegasus", ENCDEC}, {"pegasus_x", ENCDEC}, {"plbart", ENCDEC}, {"prophetnet", ENCDEC},
    {"switch_transformers", ENCDEC}, {"t5", ENCDEC}, {"trocr", ENCDEC}, {"umt5", ENCDEC},
    {"xlm-prophetnet", ENCDEC}, {"data2vec-audio", SPEECH}, {"moshi", SPEECH},
    {"seamless_m4t", SPEECH}, {"speech_to_text", SPEECH}, {"speecht5", SPEECH},
    {"wav2vec2", SPEECH}, {"whisper", SPEECH}, {"data2vec-vision", VISION}, {"emu3", VISION},
    {"fuyu", VISION}, {"gemma3n", VISION}, {"git", VISION}, {"got_ocr2", VISION},
    {"mllama", VISION}, {"phi4_multimodal", VISION}, {"biogpt", LEGACY}, {"blt", LEGACY},
    {"cpmant", LEGACY}, {"ctrl", LEGACY}, {"modernbert-decoder", LEGACY}, {"openai-gpt", LEGACY},
    {"reformer", LEGACY},
};

/* The reason `type` is refused, or NULL when it is not. */
static const char *refused_why(const char *type)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(out_of_scope); i++)
        if (out_of_scope[i].type[0] == type[0] && !strcmp(out_of_scope[i].type, type))
            return out_of_scope[i].why;
    return NULL;
}

static int refuse(const llmmem__json *doc, const llmmem__jnode *root, const char *type, const char *why)
{
    return llmmem__json_error_at(doc, llmmem__json_get(root, "model_type"), LLMMEM_E_UNSUPPORTED,
                                 "model_type", "\"%s\" is out of scope (%s): libllmmem estimates "
                                 "decoder-only LLMs (llmmem architectures lists them)",
                                 type, why);
}

/* ---- multimodal wrappers ------------------------------------------------------------- */

typedef struct wrapper {
    const char *type;      /* the outer model_type */
    const char *text_type; /* text_config's family when it names none */
} wrapper;

static const wrapper wrappers[] = {
    {"llava", "llama"},
    {"qwen2_vl", "qwen2_vl_text"},
};

static const wrapper *find_wrapper(const char *type)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(wrappers); i++)
        if (!strcmp(wrappers[i].type, type))
            return &wrappers[i];
    return NULL;
}

/* The object holding the text model's keys and its family name. */
static int text_part(ctx *c, char *ttype, size_t cap, const wrapper *w)
{
    const llmmem__jnode *tc = llmmem__json_get(c->o, "text_config");
    snprintf(ttype, cap, "%s", w->text_type);
    if (!tc || llmmem__json_type(tc) == LLMMEM__J_NULL)
        return 0; /* older configs keep the text keys at the top level */
    if (llmmem__json_type(tc) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(c->doc, tc, LLMMEM_E_SCHEMA, "text_config", "expected an object");
    c->o = tc;
    c->prefix = "text_config.";
    return llmmem__json_read_str(ttype, cap, c->doc, tc, "model_type", "text_config.model_type", false);
}

/* ---- composites ------------------------------------------------------------------------ */

/* The sub-object `key` of a composite, or the JSON the entry reads in its place
 * when it is absent or null (parsed into *owned; NULL when the entry has none). */
static int sub_object(const llmmem__jnode **out, llmmem__json **owned, const llmmem__json *doc,
                      const llmmem__jnode *root, const char *key, const char *absent)
{
    const llmmem__jnode *n = llmmem__json_get(root, key);
    *out = NULL;
    *owned = NULL;
    if (n && llmmem__json_type(n) != LLMMEM__J_NULL) {
        if (llmmem__json_type(n) != LLMMEM__J_OBJECT)
            return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, key, "expected an object");
        *out = n;
        return 0;
    }
    if (!absent)
        return 0;
    int rc = llmmem__json_parse(owned, absent, strlen(absent), key);
    if (rc)
        return rc;
    *out = llmmem__json_root(*owned);
    return 0;
}

/* The text sub-object of a composite and its family name. */
static int composite_text(ctx *c, llmmem__json **owned, char *ttype, size_t cap, char *prefix, size_t pcap,
                          const llmmem__composite *cp)
{
    const llmmem__jnode *tc;
    int rc = sub_object(&tc, owned, c->doc, c->o, cp->text_key, cp->text_absent);
    if (rc)
        return rc;
    snprintf(ttype, cap, "%s", cp->text_type);
    snprintf(prefix, pcap, "%s.", cp->text_key);
    if (*owned)
        c->doc = *owned;
    c->o = tc;
    c->prefix = prefix;
    char path[96];
    snprintf(path, sizeof path, "%smodel_type", prefix);
    rc = llmmem__json_read_str(ttype, cap, c->doc, tc, "model_type", path, false);
    /* The composite's config class builds its own text config whatever model_type the
     * sub-object names (configuration_qwen3_5.py:196 sub_configs["text_config"](**text_config);
     * gemma3, gemma4, llama4 alike); Mistral3Config alone picks the class by it (CONFIG_MAPPING). */
    if (rc == 0 && *ttype && strcmp(ttype, cp->text_type) && strcmp(cp->type, "mistral3")) {
        snprintf(c->ignored_type, sizeof c->ignored_type, "%s", ttype);
        snprintf(ttype, cap, "%s", cp->text_type);
    }
    return rc;
}

/* Each tower of a composite from its sub-object: the sub-object's model_type
 * names the tower entry (the part's own when it names none or the composite). */
static int composite_towers(struct llmmem_model *m, const llmmem__composite *cp, const llmmem__json *doc,
                            const llmmem__jnode *root)
{
    for (int p = 0; p < LLMMEM__MAX_PARTS && cp->parts[p].key; p++) {
        const llmmem__part *part = &cp->parts[p];
        const llmmem__jnode *sub;
        llmmem__json *owned = NULL;
        int rc = sub_object(&sub, &owned, doc, root, part->key, part->absent);
        if (rc || !sub)
            return rc;
        const llmmem__json *d = owned ? owned : doc;
        char type[LLMMEM__NAME_MAX] = "", prefix[80], path[96];
        snprintf(prefix, sizeof prefix, "%s.", part->key);
        snprintf(path, sizeof path, "%smodel_type", prefix);
        rc = llmmem__json_read_str(type, sizeof type, d, sub, "model_type", path, false);
        const llmmem__arch *t = !rc && *type && strcmp(type, cp->type) ? llmmem__tower_find(type)
                                                                       : llmmem__tower_find(part->type);
        if (!rc && !t)
            rc = llmmem__json_error_at(d, llmmem__json_get(sub, "model_type"), LLMMEM_E_UNSUPPORTED, path,
                                       "\"%s\": no such %s tower in the registry (%s has %s)", type,
                                       part->name, cp->type, part->type);
        if (!rc) {
            llmmem__registry_tower(m, p, t);
            rc = llmmem__read_qvals(&m->mm.tq[p], t->q, t->nq, t->type, d, sub, prefix);
        }
        llmmem__json_free(owned);
        if (rc)
            return rc;
    }
    return 0;
}

/* The composite's own keys; its tie_word_embeddings (or its class's default)
 * ties the text model's head, as PreTrainedModel.tie_weights reads the
 * top-level config. */
static int composite_keys(struct llmmem_model *m, const llmmem__composite *cp, ctx *top)
{
    llmmem__registry_composite(m, cp);
    int rc = llmmem__read_qvals(&m->mm.q, cp->q, cp->nq, cp->type, top->doc, top->o, "");
    if (rc)
        return rc;
    int i;
    if (llmmem__qvals_find(&m->mm.q, "tie", 3, &i)) {
        int64_t tie = m->mm.q.v[i];
        if (m->mm.q.src[i] != LLMMEM__QS_GIVEN &&
            (rc = llmmem__expr_run(&tie, m->mm.cxc ? m->mm.cxc->qdef[i] : LLMMEM__X_TEXT, cp->q[i].def, &m->mm.q)))
            return rc;
        llmmem__registry_set(m, "tie", tie != 0);
    }
    if (!m->torch_dtype && (rc = read_dtype(m, top)))
        return rc;
    return composite_towers(m, cp, top->doc, top->o);
}

/* ---- the text model ------------------------------------------------------------------- */

/* An unknown model_type needs the dimensions every HF config names. */
static int check_generic(ctx *c, const llmmem__json *rdoc, const llmmem__jnode *root, const char *type)
{
    static const char *const need[][4] = {
        {"hidden_size", "n_embd", "d_model", NULL},
        {"num_hidden_layers", "n_layer", "num_layers", NULL},
        {"num_attention_heads", "n_head", "num_heads", NULL},
        {"vocab_size", "padded_vocab_size", NULL, NULL},
    };
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(need); i++) {
        if (alias(c, need[i]))
            continue;
        if (!*type)
            return llmmem__json_error_at(rdoc, root, LLMMEM_E_SCHEMA, "model_type",
                                         "missing required key (and no generic hidden_size/"
                                         "num_hidden_layers/... to estimate from)");
        return llmmem__json_error_at(rdoc, llmmem__json_get(root, "model_type"), LLMMEM_E_UNSUPPORTED,
                                     "model_type",
                                     "\"%s\" is not a supported architecture and the config lacks "
                                     "\"%s\" to estimate it from",
                                     type, need[i][0]);
    }
    return 0;
}

/* rope_scaling (rope_parameters in transformers 5): the factor by which vLLM extends the
 * positions it accepts as max_model_len (vllm/config/model.py _get_and_verify_max_len:
 * every rope type but su, longrope and llama3 multiplies by "factor"; yarn multiplies
 * original_max_position_embeddings). Values it cannot read leave the positions as they are. */
static void read_rope_length(struct llmmem_model *m, ctx *c)
{
    const llmmem__jnode *rs = llmmem__json_get(c->o, "rope_scaling");
    if (!rs || !llmmem__json_is_object(rs))
        rs = llmmem__json_get(c->o, "rope_parameters");
    if (!rs || !llmmem__json_is_object(rs))
        return;
    const llmmem__jnode *t = llmmem__json_get(rs, "rope_type");
    if (!t)
        t = llmmem__json_get(rs, "type");
    const char *type = t && llmmem__json_is_string(t) ? llmmem__json_string(t) : "default";
    const llmmem__jnode *f = llmmem__json_get(rs, "factor");
    if (!strcmp(type, "su") || !strcmp(type, "longrope") || !strcmp(type, "llama3") || !f ||
        !llmmem__json_is_number(f) || !(llmmem__json_number(f) >= 1.0) || llmmem__json_number(f) > 1e6)
        return;
    m->rope_len_factor = llmmem__json_number(f);
    const llmmem__jnode *o = llmmem__json_get(rs, "original_max_position_embeddings");
    if (!strcmp(type, "yarn") && o && llmmem__json_is_number(o) && llmmem__json_number(o) >= 1 &&
        llmmem__json_number(o) <= 1e9)
        m->rope_orig_positions = (int64_t)llmmem__json_number(o);
}

static int read_text(struct llmmem_model *m, ctx *c, const llmmem__arch *f)
{
    llmmem__registry_init(m, f);
    m->norm = f->norm;
    m->act = f->act;
    int rc;
    if ((rc = llmmem__read_quantities(m, c->doc, c->o, c->prefix)) || (rc = llmmem__registry_prepare(m)) ||
        (rc = llmmem__check_quantities(m, c->doc, c->o, c->prefix)))
        return rc;
    if (m->num_heads > 0 && m->hidden_size % m->num_heads != 0 && !has(c, "head_dim") &&
        llmmem__qvals_get(&m->q, "d", 0) == m->hidden_size / m->num_heads)
        llmmem__model_note(m, "hidden_size %lld is not a multiple of num_attention_heads %lld: "
                              "head_dim = %lld (floor)",
                           (long long)m->hidden_size, (long long)m->num_heads,
                           (long long)(m->hidden_size / m->num_heads));
    if ((rc = read_act(m, c)) || (rc = read_dtype(m, c)))
        return rc;
    read_rope_length(m, c);
    return llmmem__read_layer_lists(m, c->doc, c->o, c->prefix);
}

/* The outer config of a wrapper may set tie_word_embeddings and the dtype. */
static int outer_keys(struct llmmem_model *m, ctx *top)
{
    int rc;
    if (has(top, "tie_word_embeddings") && !is_null(top, "tie_word_embeddings")) {
        bool tie = false;
        if ((rc = getb(&tie, top, "tie_word_embeddings", false)))
            return rc;
        llmmem__registry_set(m, "tie", tie);
    }
    if (!m->torch_dtype && (rc = read_dtype(m, top)))
        return rc;
    return 0;
}

/* ---- what the modeling code refuses ---------------------------------------------------- */

/* The first of `keys` present in the text object (for an error's position), else the object. */
static const llmmem__jnode *first_key(ctx *c, const char *const *keys, const char **which)
{
    for (; *keys; keys++) {
        const llmmem__jnode *n = llmmem__json_get(c->o, *keys);
        if (n) {
            *which = *keys;
            return n;
        }
    }
    *which = "";
    return c->o;
}

/* An integer key of the text object, -1 when absent or not one. */
static int64_t int_key(ctx *c, const char *key)
{
    const llmmem__jnode *n = llmmem__json_get(c->o, key);
    return n && llmmem__json_is_number(n) && llmmem__json_number(n) >= 0 && llmmem__json_number(n) < 1e15
               ? (int64_t)llmmem__json_number(n)
               : -1;
}

/* The layers the modeling code builds as MoE blocks whatever the expert count (a family
 * not listed builds a dense MLP when it has no experts: doge, granitemoehybrid, jamba,
 * qwen3_moe, ...): mixtral (modeling_mixtral.py:348) and gpt_oss (modeling_gpt_oss.py:343)
 * every layer, deepseek_v3 the layers from first_k_dense_replace on
 * (modeling_deepseek_v3.py:504), llama4 those of moe_layers (modeling_llama4.py:407). */
static int64_t routed_layers(const struct llmmem_model *m, ctx *c)
{
    const char *t = m->fam ? m->fam->type : "";
    int64_t L = m->num_layers;
    if (!strcmp(t, "mixtral") || !strcmp(t, "gpt_oss"))
        return L;
    if (!strcmp(t, "deepseek_v3")) {
        int64_t k = int_key(c, "first_k_dense_replace");
        return k < 0 ? L : (k < L ? L - k : 0);
    }
    if (!strcmp(t, "llama4_text")) {
        const llmmem__jnode *ml = llmmem__json_get(c->o, "moe_layers");
        int64_t step = int_key(c, "interleave_moe_layer_step");
        if (ml && llmmem__json_type(ml) == LLMMEM__J_ARRAY)
            return (int64_t)llmmem__json_array_size(ml);
        return step > 0 ? L / step : L;
    }
    return 0;
}

/* A config the transformers 5.17 modeling code refuses to build or to run, refused at its
 * key; what it accepts with a warning, noted. */
static int validate_architecture(struct llmmem_model *m, ctx *c)
{
    char path[128];
    const char *which;
    /* every MoE layer routes top-k of the experts: torch.topk(k > n) raises (the routers
     * of modeling_gpt_oss.py, modeling_deepseek_v3.py, modeling_llama4.py, ...) */
    static const char *const ek[] = {"num_local_experts", "n_routed_experts", "num_experts", "moe_num_experts", NULL};
    const llmmem__jnode *en = first_key(c, ek, &which);
    /* experts no layer routes to (DeepSeek-V3 with first_k_dense_replace >= num_hidden_layers:
     * every DeepseekV3DecoderLayer builds a dense MLP): a dense model, as the count already has it */
    if (m->fam && m->num_experts > 0 && m->num_moe_layers == 0 && m->num_layers > 0 &&
        llmmem__registry_set(m, "E", 0)) {
        llmmem__registry_set(m, "K", 0);
        int rc = llmmem__model_count(m);
        if (rc)
            return rc;
        llmmem__model_note(m, "no layer routes to the %s experts of the config (every layer's MLP is dense): "
                              "estimated as a dense model",
                           which);
    }
    if (m->experts_per_token > 0 && m->experts_per_token > m->num_experts && *which && routed_layers(m, c) > 0) {
        const llmmem__jnode *n = en;
        snprintf(path, sizeof path, "%s%s", c->prefix, which);
        return llmmem__json_error_at(c->doc, n, LLMMEM_E_SCHEMA, path,
                                     "%lld experts with %lld routed per token: the router's torch.topk of more "
                                     "experts than exist fails in the modeling code",
                                     (long long)m->num_experts, (long long)m->experts_per_token);
    }
    /* routed layers choosing no expert: torch.topk(k = 0) returns nothing, the MoE block sums no
     * expert (every estimate refuses it, engines/common.c); said here, at the key. A null
     * (DeepseekV2Config's default num_experts_per_tok=None) builds the model all the same: its
     * parameters are counted and every estimate refuses it there */
    static const char *const kk[] = {"num_experts_per_tok", "moe_topk", "top_k", "num_selected_experts", NULL};
    const char *kwhich;
    const llmmem__jnode *kn = first_key(c, kk, &kwhich);
    if (*kwhich && kn && !llmmem__json_is_null(kn) && m->num_experts > 0 && m->experts_per_token == 0 &&
        m->num_moe_layers > 0) {
        snprintf(path, sizeof path, "%s%s", c->prefix, kwhich);
        return llmmem__json_error_at(c->doc, kn, LLMMEM_E_INCONSISTENT, path,
                                     "%lld experts with 0 routed per token: the router picks no expert",
                                     (long long)m->num_experts);
    }
    /* configuration_jamba.py:119 validate_architecture: offset < period */
    static const char *const jamba[][2] = {{"attn_layer_offset", "attn_layer_period"},
                                           {"expert_layer_offset", "expert_layer_period"}};
    for (size_t i = 0; i < 2; i++) {
        int64_t off = int_key(c, jamba[i][0]), per = int_key(c, jamba[i][1]);
        if (off >= 0 && per > 0 && off >= per) {
            snprintf(path, sizeof path, "%s%s", c->prefix, jamba[i][0]);
            return llmmem__json_error_at(c->doc, llmmem__json_get(c->o, jamba[i][0]), LLMMEM_E_SCHEMA, path,
                                         "%lld is not smaller than %s %lld: JambaConfig refuses it "
                                         "(configuration_jamba.py validate_architecture)",
                                         (long long)off, jamba[i][1], (long long)per);
        }
    }
    /* Mamba-2 mixers repeat B and C over num_heads // n_groups (modeling_nemotron_h.py:216,
     * modeling_mamba2.py): heads a multiple of the groups */
    if (m->ssm.version == 2 && m->ssm.groups > 0 && m->ssm.heads > 0 && m->ssm.heads % m->ssm.groups) {
        static const char *const hk[] = {"mamba_num_heads", "mamba_n_heads", "n_groups", "mamba_n_groups", NULL};
        const llmmem__jnode *n = first_key(c, hk, &which);
        snprintf(path, sizeof path, "%s%s", c->prefix, which);
        return llmmem__json_error_at(c->doc, n, LLMMEM_E_SCHEMA, path,
                                     "Mamba-2 heads %lld are not a multiple of its %lld groups: the mixer's "
                                     "B and C do not expand over them (modeling_nemotron_h.py, modeling_mamba2.py)",
                                     (long long)m->ssm.heads, (long long)m->ssm.groups);
    }
    /* configuration_mamba2.py:96 validate_architecture: hidden_size * expand == num_heads * head_dim */
    if (!strcmp(m->model_type, "mamba2")) {
        int64_t h = int_key(c, "hidden_size"), e = int_key(c, "expand"), a = int_key(c, "num_heads"),
                d = int_key(c, "head_dim");
        if (h > 0 && e > 0 && a > 0 && d > 0 && h * e != a * d) {
            snprintf(path, sizeof path, "%snum_heads", c->prefix);
            return llmmem__json_error_at(c->doc, llmmem__json_get(c->o, "num_heads"), LLMMEM_E_SCHEMA, path,
                                         "hidden_size * expand (%lld) must equal num_heads * head_dim (%lld) "
                                         "(configuration_mamba2.py validate_architecture)",
                                         (long long)(h * e), (long long)(a * d));
        }
    }
    /* configuration_nemotron_h.py:172: a pattern shorter or longer than num_hidden_layers
     * wins, with a warning; so here */
    const llmmem__jnode *pat = llmmem__json_get(c->o, "hybrid_override_pattern");
    int64_t nl = int_key(c, "num_hidden_layers");
    if (pat && llmmem__json_is_string(pat) && nl >= 0 && (int64_t)strlen(llmmem__json_string(pat)) != nl)
        llmmem__model_note(m, "num_hidden_layers %lld differs from hybrid_override_pattern's %zu layers: the pattern "
                              "wins, as NemotronHConfig does (with a warning)",
                           (long long)nl, strlen(llmmem__json_string(pat)));
    return LLMMEM_OK;
}

/* A refusal raised after the keys were read (a registry expression dividing by a
 * zero head count, the model's own checks) names no place in the file: it is
 * put at the first shape key of the text object whose value is not positive,
 * with its line:column (issue 25: every file-borne refusal names the file, the
 * place and the key). One already placed, or with no such key, stays as it is. */
static int locate(ctx *c, int rc)
{
    if (rc == 0 || rc == LLMMEM_E_NOMEM || !c->doc || !c->o)
        return rc;
    const char *src = llmmem__json_source(c->doc), *msg = llmmem_last_error();
    const size_t n = src ? strlen(src) : 0;
    if (!src || !msg || (!strncmp(msg, src, n) && msg[n] == ':'))
        return rc;
    static const char *const shape[] = {
        "num_attention_heads", "n_head",     "num_heads",           "n_heads",        "num_key_value_heads",
        "num_kv_heads",        "multi_query_group_num",             "max_position_embeddings",
        "n_positions",         "n_ctx",      "seq_length",          "num_experts_per_tok",
        "num_hidden_layers",   "n_layer",    "num_layers",          "hidden_size",    "n_embd",
        "d_model",             "intermediate_size",                 "n_inner",        "ffn_hidden_size",
        "vocab_size",          "head_dim",   "num_local_experts",   "num_experts",    "n_routed_experts",
        "moe_intermediate_size", NULL};
    for (size_t i = 0; shape[i]; i++) {
        const llmmem__jnode *k = llmmem__json_get(c->o, shape[i]);
        if (!k || !llmmem__json_is_number(k) || llmmem__json_number(k) > 0)
            continue;
        char copy[512];
        snprintf(copy, sizeof copy, "%s", msg);
        return llmmem__json_error_at(c->doc, k, rc, kp(c, shape[i]), "%s", copy);
    }
    return rc;
}

int llmmem__model_from_json_doc(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *root)
{
    if (!m || !doc || !root)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem__model_from_json_doc: NULL argument");
    if (llmmem__json_type(root) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "", "a config.json must be a JSON object");
    llmmem__model_clear(m);
    ctx top = {.doc = doc, .o = root, .prefix = ""};
    char type[LLMMEM__NAME_MAX] = "", ttype[LLMMEM__NAME_MAX];
    int rc;
    if ((rc = llmmem__json_read_str(type, sizeof type, doc, root, "model_type", "model_type", false)))
        return rc;
    llmmem__str_join(m->model_type, sizeof m->model_type, type, (const char *)NULL);
    const char *why = refused_why(type);
    if (why)
        return refuse(doc, root, type, why);
    bool encdec = false;
    if ((rc = getb(&encdec, &top, "is_encoder_decoder", false)))
        return rc;
    if (encdec)
        return refuse(doc, root, type, "is_encoder_decoder is true");
    ctx c = top;
    llmmem__str_join(ttype, sizeof ttype, type, (const char *)NULL);
    const wrapper *w = find_wrapper(type);
    const llmmem__composite *cp = llmmem__composite_find(type);
    llmmem__json *owned = NULL;
    char tprefix[80];
    if (w && (rc = text_part(&c, ttype, sizeof ttype, w)))
        return rc;
    if (cp && (rc = composite_text(&c, &owned, ttype, sizeof ttype, tprefix, sizeof tprefix, cp))) {
        llmmem__json_free(owned);
        return rc;
    }
    const llmmem__arch *f = llmmem__arch_find(ttype);
    if (!f || !strcmp(ttype, "raw") || !strcmp(ttype, "generic")) {
        if ((rc = check_generic(&c, doc, root, ttype))) {
            llmmem__json_free(owned);
            return rc;
        }
        f = llmmem__arch_find("generic");
        m->generic = true;
    }
    rc = read_text(m, &c, f);
    if (rc == 0 && c.ignored_type[0])
        llmmem__model_note(m, "%smodel_type \"%s\" is not read: %s's config class builds its %s text config "
                              "whatever the sub-object names",
                           tprefix, c.ignored_type, type, ttype);
    if (rc == 0 && m->generic)
        llmmem__model_note(m, "model_type \"%s\" is not in the registry: estimated from the keys every "
                              "HF config shares (approximate)",
                           ttype[0] ? ttype : "(none)");
    if (rc == 0 && ((w && (rc = outer_keys(m, &top))) || (cp && (rc = composite_keys(m, cp, &top))) ||
                    (rc = read_quant(m, &top)) || (w && (rc = llmmem__hf_towers(m, type, doc, root)))))
        (void)0;
    if (rc == 0 && ((rc = llmmem__model_count(m)) || (cp && (rc = llmmem__hf_vision_geometry(m)))))
        (void)0;
    if (rc == 0)
        rc = validate_architecture(m, &c);
    if (rc == 0)
        rc = llmmem__model_validate(m);
    rc = locate(&c, rc);
    llmmem__json_free(owned); /* the text object c reads may live in it */
    return rc;
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

/* ---- the model_types this reader knows ----------------------------------------------- */

/* Registry entries that are not model_types: raw numbers and the unknown-type fallback. */
static bool internal_entry(const char *type) { return !strcmp(type, "raw") || !strcmp(type, "generic"); }

static int decoder_count(void)
{
    int n = 0;
    for (int i = 0; i < llmmem__arch_count(); i++)
        n += !internal_entry(llmmem__arch_at(i)->type);
    return n;
}

static const char *decoder_at(int index)
{
    for (int i = 0; i < llmmem__arch_count(); i++) {
        const char *type = llmmem__arch_at(i)->type;
        if (!internal_entry(type) && index-- == 0)
            return type;
    }
    return NULL;
}

/* Index -> (kind, name): decoders, then composites and wrappers, then the refused. */
static const char *architecture_at(int index, int *kind)
{
    if (index < 0)
        return NULL;
    *kind = LLMMEM_ARCH_DECODER;
    if (index < decoder_count())
        return decoder_at(index);
    index -= decoder_count();
    *kind = LLMMEM_ARCH_MULTIMODAL;
    if (index < llmmem__composite_count())
        return llmmem__composite_at(index)->type;
    index -= llmmem__composite_count();
    if (index < (int)LLMMEM_ARRAY_LEN(wrappers))
        return wrappers[index].type;
    index -= (int)LLMMEM_ARRAY_LEN(wrappers);
    *kind = LLMMEM_ARCH_REFUSED;
    return index < (int)LLMMEM_ARRAY_LEN(out_of_scope) ? out_of_scope[index].type : NULL;
}

int llmmem_architecture_count(void)
{
    return decoder_count() + llmmem__composite_count() + (int)LLMMEM_ARRAY_LEN(wrappers) +
           (int)LLMMEM_ARRAY_LEN(out_of_scope);
}

const char *llmmem_architecture_name(int index)
{
    int kind;
    return architecture_at(index, &kind);
}

int llmmem_architecture_kind(int index)
{
    int kind;
    if (!architecture_at(index, &kind))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_architecture_kind: index %d is out of range "
                             "[0, %d)", index, llmmem_architecture_count());
    return kind;
}
