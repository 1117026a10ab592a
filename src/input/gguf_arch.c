/* The model a GGUF header describes.
 *
 * Two readings of the same metadata:
 *  - llama.cpp's own hyperparameters (d->g->hp), read as llama-model.cpp
 *    load_hparams does: the generic keys "{arch}.block_count",
 *    "{arch}.attention.head_count" (a number or one per layer), ..., then the
 *    per-architecture part (models/<arch>.cpp load_arch_hparams) for what
 *    decides memory: the sliding-window layers and the recurrent state. The
 *    llama.cpp runtime sizes everything from these and the tensor list;
 *  - an HF-style description for the rest of the library: the keys are
 *    written as the config.json the GGUF was converted from
 *    (convert_hf_to_gguf.py wrote them the other way) and read by the same
 *    code as a config.json, so the model has the registry's counts.
 * An architecture this table does not know is read from the generic keys and
 * flagged approximate. */
#include "input/gguf.h"
#include "input/input.h"

#include "core/ggml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading values ------------------------------------------------------------------- */

typedef struct rdr {
    llmmem__gguf_doc *d;
    char arch[LLMMEM__NAME_MAX];
} rdr;

static const llmmem__gguf_kv *arch_kv(const rdr *r, const char *suffix)
{
    char key[160];
    snprintf(key, sizeof key, "%s.%s", r->arch, suffix);
    return llmmem__gguf_find(r->d, key);
}

/* Where a value's error points: its first byte, or an array's element count. */
static size_t val_at(const llmmem__gguf_kv *kv)
{
    return kv->type == LLMMEM__GGUF_T_ARRAY ? kv->value - 8 : kv->value;
}

static bool is_int_type(uint32_t t)
{
    return t <= LLMMEM__GGUF_T_INT32 || t == LLMMEM__GGUF_T_UINT64 || t == LLMMEM__GGUF_T_INT64 ||
           t == LLMMEM__GGUF_T_BOOL;
}

/* Element e of an integer value (signed types sign-extended). */
static int64_t int_at(const llmmem__gguf_doc *d, const llmmem__gguf_kv *kv, uint64_t e)
{
    const uint32_t sz = llmmem__gguf_type_size(kv->elem);
    const uint64_t v = llmmem__gguf_raw(d, kv->value + (size_t)(e * sz), (int)sz);
    switch (kv->elem) {
    case LLMMEM__GGUF_T_INT8: return (int8_t)v;
    case LLMMEM__GGUF_T_INT16: return (int16_t)v;
    case LLMMEM__GGUF_T_INT32: return (int32_t)v;
    case LLMMEM__GGUF_T_INT64: return (int64_t)v;
    default: return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
    }
}

static int bad_type(const rdr *r, const llmmem__gguf_kv *kv, const char *expected)
{
    return llmmem__error(LLMMEM_E_SCHEMA, "%s: byte %zu: key \"%.*s\" is %s%s, expected %s", r->d->src,
                         val_at(kv), (int)kv->key_len, kv->key,
                         kv->type == LLMMEM__GGUF_T_ARRAY ? "an array of " : "a ",
                         llmmem__gguf_type_name(kv->elem), expected);
}

/* A whole number in [lo, hi] (llama.cpp's get_key into a uint32_t); absent: *out unchanged,
 * or an error naming the key when required. */
static int get_u32(const rdr *r, uint32_t *out, const char *suffix, uint32_t lo, uint32_t hi, bool required)
{
    const llmmem__gguf_kv *kv = arch_kv(r, suffix);
    if (!kv) {
        if (required)
            return llmmem__error(LLMMEM_E_SCHEMA, "%s: key \"%s.%s\" is missing (llama.cpp requires it)",
                                 r->d->src, r->arch, suffix);
        return 0;
    }
    if (kv->type == LLMMEM__GGUF_T_ARRAY || !is_int_type(kv->type))
        return bad_type(r, kv, "a whole number");
    const int64_t v = int_at(r->d, kv, 0);
    if (v < (int64_t)lo || v > (int64_t)hi)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "%s: byte %zu: key \"%s.%s\" is %lld, outside [%u, %u]",
                             r->d->src, val_at(kv), r->arch, suffix, (long long)v, lo, hi);
    *out = (uint32_t)v;
    return 0;
}

/* llama_model_loader::get_key_or_arr: one number for every layer, or an array of
 * n_layer numbers. */
static int get_per_layer(const rdr *r, uint32_t *arr, uint32_t n_layer, const char *suffix, uint32_t hi,
                         bool *found)
{
    const llmmem__gguf_kv *kv = arch_kv(r, suffix);
    if (found)
        *found = kv != NULL;
    if (!kv)
        return 0;
    if (!is_int_type(kv->elem))
        return bad_type(r, kv, "whole numbers");
    if (kv->type == LLMMEM__GGUF_T_ARRAY && kv->count != n_layer)
        return llmmem__error(LLMMEM_E_SCHEMA, "%s: byte %zu: key \"%s.%s\" has %llu values for %u layers",
                             r->d->src, val_at(kv), r->arch, suffix, (unsigned long long)kv->count, n_layer);
    for (uint32_t il = 0; il < n_layer; il++) {
        const int64_t v = int_at(r->d, kv, kv->type == LLMMEM__GGUF_T_ARRAY ? il : 0);
        if (v < 0 || v > (int64_t)hi)
            return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                                 "%s: byte %zu: key \"%s.%s\" is %lld for layer %u, outside [0, %u]",
                                 r->d->src, val_at(kv), r->arch, suffix, (long long)v, il, hi);
        arr[il] = (uint32_t)v;
    }
    return 0;
}

/* A string key copied (cut to cap); "" when absent. */
static int get_str(const llmmem__gguf_doc *d, char *out, size_t cap, const char *key, bool required)
{
    out[0] = '\0';
    const llmmem__gguf_kv *kv = llmmem__gguf_find(d, key);
    if (!kv) {
        if (required)
            return llmmem__error(LLMMEM_E_SCHEMA, "%s: key \"%s\" is missing (llama.cpp requires it)",
                                 d->src, key);
        return 0;
    }
    if (kv->type != LLMMEM__GGUF_T_STRING)
        return llmmem__error(LLMMEM_E_SCHEMA, "%s: byte %zu: key \"%s\" is a %s, expected a string",
                             d->src, val_at(kv), key, llmmem__gguf_type_name(kv->type));
    const uint64_t n = llmmem__gguf_raw(d, kv->value, 8);
    const size_t k = n < cap - 1 ? (size_t)n : cap - 1;
    memcpy(out, (const char *)d->data + kv->value + 8, k);
    out[k] = '\0';
    for (size_t i = 0; i < k; i++) /* names go into messages and JSON: printable ASCII */
        if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
            out[i] = '?';
    return 0;
}

/* ---- the architectures ------------------------------------------------------------------ */

/* What decides memory per architecture (models/<arch>.cpp load_arch_hparams), and the HF
 * model_type the converter read it from. swa: the window type when the file has a window
 * ("{arch}.attention.sliding_window" > 0, or always for gemma2 with 4096), pattern: every
 * pattern-th layer is full (set_swa_pattern; dense_first: the first of each group). */
typedef struct arch_info {
    const char *arch;    /* llama-arch.cpp LLM_ARCH_NAMES */
    const char *hf;      /* HF model_type */
    int swa;             /* enum llmmem__gguf_swa */
    uint32_t pattern;
    bool dense_first;
    uint32_t swa_default; /* a window without the key (gemma2: 4096) */
    int recurrent;        /* 1: every layer (llm_arch_is_recurrent) */
} arch_info;

static const arch_info arches[] = {
    {"llama", "llama", LLMMEM__SWA_NONE, 0, false, 0, 0},
    {"mistral3", "mistral", LLMMEM__SWA_NONE, 0, false, 0, 0},
    {"qwen2", "qwen2", LLMMEM__SWA_NONE, 0, false, 0, 0},
    {"qwen2moe", "qwen2_moe", LLMMEM__SWA_NONE, 0, false, 0, 0},
    {"qwen3", "qwen3", LLMMEM__SWA_NONE, 0, false, 0, 0},
    {"qwen3moe", "qwen3_moe", LLMMEM__SWA_NONE, 0, false, 0, 0},
    {"gemma", "gemma", LLMMEM__SWA_NONE, 0, false, 0, 0},
    {"gemma2", "gemma2", LLMMEM__SWA_STANDARD, 2, false, 4096, 0},
    {"gemma3", "gemma3_text", LLMMEM__SWA_STANDARD, 6, false, 0, 0},
    {"cohere2", "cohere2", LLMMEM__SWA_STANDARD, 4, false, 0, 0},
    {"olmo2", "olmo2", LLMMEM__SWA_STANDARD, 4, false, 0, 0},
    {"gpt-oss", "gpt_oss", LLMMEM__SWA_STANDARD, 2, false, 0, 0},
    {"llama4", "llama4_text", LLMMEM__SWA_CHUNKED, 4, false, 0, 0},
    /* phi3: a window in the file is ignored ("Phi SWA is currently disabled") */
    {"phi3", "phi3", LLMMEM__SWA_NONE, 0, false, 0, 0},
    {"starcoder2", "starcoder2", LLMMEM__SWA_NONE, 0, false, 0, 0},
    {"mamba", "mamba", LLMMEM__SWA_NONE, 0, false, 0, 1},
    {"mamba2", "mamba2", LLMMEM__SWA_NONE, 0, false, 0, 1},
};

static const arch_info *arch_find(const char *arch)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(arches); i++)
        if (strcmp(arches[i].arch, arch) == 0)
            return &arches[i];
    return NULL;
}

static const llmmem__gguf_tensor *tensor_named(const llmmem__gguf *g, const char *name)
{
    for (uint32_t k = 0; k < g->n_tensors; k++)
        if (strcmp(llmmem__gguf_tensor_name(g, &g->t[k]), name) == 0)
            return &g->t[k];
    return NULL;
}

/* ---- llama.cpp's hyperparameters --------------------------------------------------------- */

static int read_swa(const rdr *r, llmmem__gguf_hparams *hp, const arch_info *a)
{
    hp->swa_type = LLMMEM__SWA_NONE;
    if (!a || a->swa == LLMMEM__SWA_NONE)
        return 0;
    uint32_t n_swa = a->swa_default;
    const char *key = a->swa == LLMMEM__SWA_CHUNKED ? "attention.chunk_size" : "attention.sliding_window";
    int rc = get_u32(r, &n_swa, key, 0, UINT32_MAX, false);
    if (rc || n_swa == 0)
        return rc;
    hp->n_swa = n_swa;
    hp->swa_type = a->swa;
    /* load_swa_pattern: an array of bools per layer, or a number, or the default */
    const llmmem__gguf_kv *kv = arch_kv(r, "attention.sliding_window_pattern");
    if (kv && kv->type == LLMMEM__GGUF_T_ARRAY) {
        if (!is_int_type(kv->elem) || kv->count != hp->n_layer)
            return llmmem__error(LLMMEM_E_SCHEMA,
                                 "%s: byte %zu: key \"%s.attention.sliding_window_pattern\" must hold "
                                 "one bool per layer (%u)",
                                 r->d->src, val_at(kv), r->arch, hp->n_layer);
        for (uint32_t il = 0; il < hp->n_layer; il++)
            hp->is_swa[il] = int_at(r->d, kv, il) != 0;
        return 0;
    }
    uint32_t pattern = a->pattern;
    if ((rc = get_u32(r, &pattern, "attention.sliding_window_pattern", 0, UINT32_MAX, false)) != 0)
        return rc;
    for (uint32_t il = 0; il < hp->n_layer; il++) /* llama-hparams.cpp set_swa_pattern */
        hp->is_swa[il] = pattern == 0 || (a->dense_first ? il % pattern != 0 : il % pattern < pattern - 1);
    return 0;
}

static int read_hparams(rdr *r, const arch_info *a)
{
    llmmem__gguf *g = r->d->g;
    llmmem__gguf_hparams *hp = &g->hp;
    int rc;
    if ((rc = get_u32(r, &hp->n_ctx_train, "context_length", 0, UINT32_MAX, true)) ||
        (rc = get_u32(r, &hp->n_embd, "embedding_length", 1, 1u << 24, true)) ||
        (rc = get_u32(r, &hp->n_layer, "block_count", 1, LLMMEM__GGUF_MAX_LAYERS, true)) ||
        (rc = get_u32(r, &hp->n_expert, "expert_count", 0, 4096, false)) ||
        (rc = get_u32(r, &hp->n_expert_used, "expert_used_count", 0, 4096, false)) ||
        (rc = get_u32(r, &hp->n_ff_exp, "expert_feed_forward_length", 0, 1u << 24, false)) ||
        (rc = get_u32(r, &hp->n_ff_shexp, "expert_shared_feed_forward_length", 0, 1u << 24, false)))
        return rc;
    if (hp->n_expert_used > hp->n_expert)
        return llmmem__error(LLMMEM_E_INCONSISTENT, "%s: %s.expert_used_count %u is above expert_count %u",
                             r->d->src, r->arch, hp->n_expert_used, hp->n_expert);
    const uint32_t L = hp->n_layer;
    bool kv_found = false;
    if ((rc = get_per_layer(r, hp->n_ff, L, "feed_forward_length", 1u << 24, NULL)) ||
        (rc = get_per_layer(r, hp->n_head, L, "attention.head_count", 1u << 16, NULL)))
        return rc;
    memcpy(hp->n_head_kv, hp->n_head, sizeof hp->n_head); /* n_head_kv defaults to n_head */
    if ((rc = get_per_layer(r, hp->n_head_kv, L, "attention.head_count_kv", 1u << 16, &kv_found)))
        return rc;
    if (hp->n_head[0] > 0) {
        hp->n_embd_head_k = hp->n_embd_head_v = hp->n_embd / hp->n_head[0];
        if ((rc = get_u32(r, &hp->n_embd_head_k, "attention.key_length", 0, 1u << 20, false)) ||
            (rc = get_u32(r, &hp->n_embd_head_v, "attention.value_length", 0, 1u << 20, false)))
            return rc;
    }
    hp->n_embd_head_k_swa = hp->n_embd_head_k;
    hp->n_embd_head_v_swa = hp->n_embd_head_v;
    hp->n_rot = hp->n_embd_head_k;
    if ((rc = get_u32(r, &hp->n_embd_head_k_swa, "attention.key_length_swa", 0, 1u << 20, false)) ||
        (rc = get_u32(r, &hp->n_embd_head_v_swa, "attention.value_length_swa", 0, 1u << 20, false)) ||
        (rc = get_u32(r, &hp->n_rot, "rope.dimension_count", 0, 1u << 20, false)) ||
        (rc = get_u32(r, &hp->n_lora_kv, "attention.kv_lora_rank", 0, 1u << 20, false)))
        return rc;
    if ((rc = read_swa(r, hp, a)) != 0)
        return rc;
    /* the recurrent state (llama-hparams.cpp n_embd_r, n_embd_s) */
    if ((rc = get_u32(r, &hp->ssm_d_conv, "ssm.conv_kernel", 0, 1u << 16, false)) ||
        (rc = get_u32(r, &hp->ssm_d_inner, "ssm.inner_size", 0, 1u << 24, false)) ||
        (rc = get_u32(r, &hp->ssm_d_state, "ssm.state_size", 0, 1u << 20, false)) ||
        (rc = get_u32(r, &hp->ssm_dt_rank, "ssm.time_step_rank", 0, 1u << 20, false)) ||
        (rc = get_u32(r, &hp->ssm_n_group, "ssm.group_count", 0, 1u << 16, false)) ||
        (rc = get_u32(r, &hp->wkv_head_size, "wkv.head_size", 0, 1u << 16, false)) ||
        (rc = get_u32(r, &hp->token_shift_count, "token_shift_count", 0, 16, false)))
        return rc;
    hp->recurrent_arch = a && a->recurrent;
    for (uint32_t il = 0; il < L; il++)
        hp->is_recurrent[il] = hp->recurrent_arch;
    /* the vocabulary: llama.cpp counts the tokenizer's tokens */
    const llmmem__gguf_kv *tok = llmmem__gguf_find(r->d, "tokenizer.ggml.tokens");
    const llmmem__gguf_tensor *embd = tensor_named(g, "token_embd.weight");
    if (tok && tok->type == LLMMEM__GGUF_T_ARRAY)
        hp->n_vocab = tok->count > UINT32_MAX ? UINT32_MAX : (uint32_t)tok->count;
    else if (embd && embd->n_dims == 2 && embd->ne[1] <= UINT32_MAX)
        hp->n_vocab = (uint32_t)embd->ne[1];
    hp->has_output = tensor_named(g, "output.weight") != NULL;
    (void)kv_found;
    return 0;
}

/* ---- the HF-style description ---------------------------------------------------------- */

static const char *dtype_of(int64_t ftype)
{
    switch (ftype) { /* llama_ftype: ALL_F32 0, MOSTLY_F16 1, MOSTLY_BF16 32 */
    case 0: return "float32";
    case 1: return "float16";
    case 32: return "bfloat16";
    default: return NULL;
    }
}

static int hf_model(struct llmmem_model **out, const rdr *r, const arch_info *a)
{
    const llmmem__gguf *g = r->d->g;
    const llmmem__gguf_hparams *hp = &g->hp;
    uint32_t kvh = 0;
    for (uint32_t il = 0; il < hp->n_layer; il++)
        kvh = hp->n_head_kv[il] > kvh ? hp->n_head_kv[il] : kvh;
    uint32_t ff = 0;
    for (uint32_t il = 0; il < hp->n_layer; il++)
        ff = hp->n_ff[il] > ff ? hp->n_ff[il] : ff;
    const bool moe = hp->n_expert > 0;
    const char *type = a ? a->hf : r->arch;
    if (a && strcmp(a->arch, "llama") == 0 && moe)
        type = "mixtral";
    char json[2048];
    int n;
    if (hp->recurrent_arch && hp->ssm_d_inner) { /* MambaConfig */
        n = snprintf(json, sizeof json,
                     "{\"model_type\": \"%s\", \"hidden_size\": %u, \"num_hidden_layers\": %u, "
                     "\"intermediate_size\": %u, \"state_size\": %u, \"conv_kernel\": %u, "
                     "\"time_step_rank\": %u, \"vocab_size\": %u, \"tie_word_embeddings\": %s}",
                     type, hp->n_embd, hp->n_layer, hp->ssm_d_inner, hp->ssm_d_state, hp->ssm_d_conv,
                     hp->ssm_dt_rank, hp->n_vocab, hp->has_output ? "false" : "true");
        goto parse;
    }
    n = snprintf(json, sizeof json,
                     "{\"model_type\": \"%s\", \"hidden_size\": %u, \"num_hidden_layers\": %u, "
                     "\"num_attention_heads\": %u, \"num_key_value_heads\": %u, \"head_dim\": %u, "
                     "\"intermediate_size\": %u, \"vocab_size\": %u, \"max_position_embeddings\": %u, "
                     "\"tie_word_embeddings\": %s",
                     type, hp->n_embd, hp->n_layer, hp->n_head[0], kvh, hp->n_embd_head_k,
                     ff ? ff : hp->n_ff_exp, hp->n_vocab, hp->n_ctx_train,
                     hp->has_output ? "false" : "true");
    if (moe)
        n += snprintf(json + n, sizeof json - (size_t)n,
                      ", \"num_local_experts\": %u, \"num_experts\": %u, \"num_experts_per_tok\": %u, "
                      "\"moe_intermediate_size\": %u",
                      hp->n_expert, hp->n_expert, hp->n_expert_used, hp->n_ff_exp ? hp->n_ff_exp : ff);
    if (hp->n_swa)
        n += snprintf(json + n, sizeof json - (size_t)n, ", \"sliding_window\": %u", hp->n_swa);
    const char *dt = dtype_of(g->file_type);
    if (dt)
        n += snprintf(json + n, sizeof json - (size_t)n, ", \"torch_dtype\": \"%s\"", dt);
    snprintf(json + n, sizeof json - (size_t)n, "}");
parse:;
    char src[300];
    snprintf(src, sizeof src, "%s (its metadata as a config.json)", r->d->src);
    llmmem__json *doc = NULL;
    int rc = llmmem__json_parse(&doc, json, strlen(json), src);
    if (rc)
        return rc;
    struct llmmem_model *m = malloc(sizeof *m);
    if (!m) {
        llmmem__json_free(doc);
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", r->d->src);
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

int llmmem__gguf_model(struct llmmem_model **out, llmmem__gguf_doc *d)
{
    rdr r = {d, ""};
    llmmem__gguf *g = d->g;
    int rc = get_str(d, r.arch, sizeof r.arch, "general.architecture", true);
    if (rc)
        return rc;
    if (!r.arch[0])
        return llmmem__error(LLMMEM_E_SCHEMA, "%s: general.architecture is empty", d->src);
    memcpy(g->arch, r.arch, sizeof g->arch);
    if ((rc = get_str(d, g->name, sizeof g->name, "general.name", false)) != 0)
        return rc;
    /* gguf-split shards (llama-model-loader.cpp LLM_KV_SPLIT_COUNT): this header lists only
     * its own tensors; summing them would undercount the model */
    const llmmem__gguf_kv *sc = llmmem__gguf_find(d, "split.count");
    if (sc && sc->type != LLMMEM__GGUF_T_ARRAY && is_int_type(sc->type) && int_at(d, sc, 0) > 1)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "%s: byte %zu: split.count is %lld: this is one shard of a split GGUF and "
                             "holds only its own tensors; reading the other shards is not supported yet "
                             "(merge them with llama-gguf-split --merge)",
                             d->src, sc->value, (long long)int_at(d, sc, 0));
    const llmmem__gguf_kv *ft = llmmem__gguf_find(d, "general.file_type");
    if (ft && ft->type != LLMMEM__GGUF_T_ARRAY && is_int_type(ft->type))
        g->file_type = int_at(d, ft, 0);
    const arch_info *a = arch_find(r.arch);
    if ((rc = read_hparams(&r, a)) != 0)
        return rc;
    struct llmmem_model *m = NULL;
    if ((rc = hf_model(&m, &r, a)) != 0) {
        /* the registry's message names the HF key: say which file and where it came from */
        char inner[400];
        snprintf(inner, sizeof inner, "%s", llmmem_last_error());
        return llmmem__error(rc, "%s: architecture \"%s\": the metadata does not describe a valid model: %s",
                             d->src, r.arch, inner);
    }
    if (!a)
        llmmem__model_note(m, "approximate: GGUF architecture \"%s\" is not in the table of "
                              "input/gguf_arch.c: its sliding-window and recurrent layers are not known",
                           r.arch);
    if (g->name[0]) /* general.name: what the verdict calls the model */
        snprintf(m->name, sizeof m->name, "%s", g->name);
    m->gguf = g;
    d->g = NULL; /* the model owns it now */
    *out = m;
    return 0;
}

/* ---- public entry points -------------------------------------------------------------------- */

int llmmem_model_from_gguf(llmmem_model **out, const char *data, size_t len, uint64_t file_size)
{
    if (!out || (!data && len))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_from_gguf: NULL argument");
    if (len == 0 && file_size == 0)
        return llmmem__error(LLMMEM_E_PARSE, "model.gguf: byte 0: no bytes given, not a GGUF file");
    llmmem__gguf_doc d;
    int rc = llmmem__gguf_parse(&d, data ? data : "", len, file_size, "model.gguf");
    if (rc)
        return rc;
    rc = llmmem__gguf_model(out, &d);
    llmmem__gguf_doc_free(&d);
    return rc;
}

int llmmem_model_from_gguf_file(llmmem_model **out, const char *path)
{
    if (!out || !path)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_from_gguf_file: NULL argument");
    llmmem__gguf_doc d;
    uint8_t *buf = NULL;
    int rc = llmmem__gguf_parse_file(&d, &buf, path);
    if (rc)
        return rc;
    rc = llmmem__gguf_model(out, &d);
    llmmem__gguf_doc_free(&d);
    free(buf);
    return rc;
}
