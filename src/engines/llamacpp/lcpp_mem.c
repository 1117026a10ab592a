/* llama.cpp's memory from a GGUF file (docs: the llama.cpp runtime). Each term is
 * taken from the code that allocates it, in the llama.cpp tree vendored by
 * llama-cpp-python 0.3.36 (ggml 0.25.3):
 *  - weights: llama-model.cpp load_tensors (which device each layer's tensors go to,
 *    the input layer on the CPU), --n-cpu-moe (common/arg.cpp: the first N layers'
 *    *_exps tensors overridden to the CPU), the host part as the mmap range
 *    (llama-model-loader.cpp get_mapping_range);
 *  - KV cache: llama-kv-cache.cpp (K and V per layer: row of the cache type x cells x
 *    streams), llama-kv-cache-iswa.cpp (the SWA cache's cells), llama-context.cpp (n_ctx
 *    padded to 256, the cells per sequence);
 *  - recurrent state: llama-memory-recurrent.cpp (R and S rows per sequence, f32);
 *  - output buffer: llama-context.cpp output_reserve (logits of n_seq_max rows, f32);
 *  - compute buffers: lcpp_graph.c (this folder). */
#include "engines/llamacpp/llamacpp.h"

#include "core/ggml.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

#define PAD(x, n) (((x) + (n) - 1) / (n) * (n))

/* ---- the weights ------------------------------------------------------------------------ */

/* The device of layer il under -ngl (load_tensors get_layer_buft_list: the last
 * n_gpu_layers of the n_layer + 1 "layers", the output layer being the last). */
static bool layer_on_gpu(const llmmem__lcpp_cfg *c, uint32_t n_layer, int64_t il)
{
    if (!c->gpu)
        return false;
    const int64_t all = (int64_t)n_layer + 1;
    const int64_t ngl = c->n_gpu_layers < 0 || c->n_gpu_layers > all ? all : c->n_gpu_layers;
    const int64_t start = all - ngl;
    return il >= start && il - start < ngl;
}

static bool is_expert(const char *name)
{
    /* --n-cpu-moe / --cpu-moe: "blk\\.N\\.ffn_(up|down|gate)_(ch|)exps" */
    const char *p = strstr(name, ".ffn_");
    return p && (strstr(p, "_exps") || strstr(p, "_chexps"));
}

/* ---- --override-tensor ---------------------------------------------------------------- */

/* llama.cpp's -ot PATTERN=BUFFER,...: common/arg.cpp splits the list at commas and each item
 * at its last '='; llama-model.cpp load_tensors gives a tensor the buffer of the first pattern
 * std::regex_search finds in its name (ECMAScript grammar). Read here as POSIX extended
 * expressions, which agree with ECMAScript on what tensor patterns use (., [], (|), *, +, ?,
 * {}, ^, $, \.); \d, \w and \s are rewritten to their classes, and what ERE cannot say
 * ((?..., \b, backreferences) is refused rather than read otherwise. */
#define OT_MAX 16

typedef struct ot_list {
    int n;
    regex_t re[OT_MAX];
    bool gpu[OT_MAX]; /* CUDA0 (the GPU), else CPU (host memory) */
} ot_list;

static void ot_free(ot_list *l)
{
    for (int i = 0; i < l->n; i++)
        regfree(&l->re[i]);
    l->n = 0;
}

static int ot_error(const char *item, const char *why)
{
    return llmmem__error(LLMMEM_E_INVALID_ARG, "override_tensor: \"%s\": %s", item, why);
}

/* ECMAScript -> POSIX ERE, for the part of the grammar tensor patterns use */
static int ot_translate(char *out, size_t cap, const char *pat, const char *item)
{
    size_t n = 0;
    bool in_class = false;
    for (const char *p = pat; *p; p++) {
        const char *add = NULL;
        char one[3] = {0};
        if (*p == '\\' && p[1]) {
            const char c = *++p;
            if (c == 'd')
                add = in_class ? "0-9" : "[0-9]";
            else if (c == 'w')
                add = in_class ? "A-Za-z0-9_" : "[A-Za-z0-9_]";
            else if (c == 's')
                add = in_class ? "[:space:]" : "[[:space:]]";
            else if ((c >= '1' && c <= '9') || c == 'b' || c == 'B' || c == 'D' || c == 'W' || c == 'S')
                return ot_error(item, "a backreference, \\b or a negated class escape: not read here");
            else if (in_class) { /* in an ECMAScript class an escaped character is itself */
                one[0] = c;
                add = one;
            } else {
                one[0] = '\\';
                one[1] = c;
                add = one;
            }
        } else {
            if (*p == '(' && p[1] == '?')
                return ot_error(item, "(?...) groups and lookarounds are not read here");
            if (*p == '[' && !in_class)
                in_class = true;
            else if (*p == ']' && in_class)
                in_class = false;
            one[0] = *p;
            add = one;
        }
        const size_t k = strlen(add);
        if (n + k + 1 > cap)
            return ot_error(item, "pattern too long");
        memcpy(out + n, add, k);
        n += k;
    }
    out[n] = 0;
    return 0;
}

static int ot_parse(ot_list *l, const char *spec)
{
    l->n = 0;
    if (!spec || !*spec)
        return 0;
    char item[LLMMEM__OT_ITEM], whole[LLMMEM__OT_ITEM];
    for (const char *s = spec; *s;) {
        const char *e = strchr(s, ',');
        const size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= sizeof item) {
            ot_free(l);
            return llmmem__error(LLMMEM_E_INVALID_ARG, "override_tensor: an item is longer than %zu characters",
                                 sizeof item - 1);
        }
        memcpy(item, s, len);
        item[len] = 0;
        memcpy(whole, item, len + 1);
        s += len + (e ? 1 : 0);
        char *eq = strrchr(item, '=');
        if (!eq || eq == item) {
            ot_free(l);
            return ot_error(whole, "expected PATTERN=BUFFER (llama.cpp --override-tensor)");
        }
        *eq = 0;
        const char *buf = eq + 1;
        bool gpu;
        if (strcmp(buf, "CPU") == 0)
            gpu = false;
        else if (strcmp(buf, "CUDA0") == 0)
            gpu = true;
        else {
            ot_free(l);
            return ot_error(whole, "the buffer must be CPU or CUDA0 (one GPU: other devices and the host "
                                  "buffer types are not modelled)");
        }
        if (l->n == OT_MAX) {
            ot_free(l);
            return llmmem__error(LLMMEM_E_INVALID_ARG, "override_tensor: more than %d patterns", OT_MAX);
        }
        char ere[2 * LLMMEM__OT_ITEM];
        int rc = ot_translate(ere, sizeof ere, item, whole);
        if (rc) {
            ot_free(l);
            return rc;
        }
        if (regcomp(&l->re[l->n], ere, REG_EXTENDED | REG_NOSUB) != 0) {
            ot_free(l);
            return ot_error(whole, "not a regular expression");
        }
        l->gpu[l->n++] = gpu;
    }
    return 0;
}

/* -1: no pattern matches the name; else 1 for the GPU, 0 for host memory */
static int ot_match(const ot_list *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (regexec(&l->re[i], name, 0, NULL, 0) == 0)
            return l->gpu[i];
    return -1;
}

/* A weight's bytes in a CUDA buffer (ggml-cuda.cu ggml_backend_cuda_buffer_type_get_alloc_size:
 * a quantized tensor whose rows are not a multiple of MATRIX_ROW_PADDING = 512 gets the rest of
 * one row more), placed at the buffer type's 128-byte alignment (ggml-alloc.c ggml_tallocr). */
static uint64_t gpu_bytes(const llmmem__gguf_tensor *t, llmmem__ovf *o)
{
    const llmmem__ggml_traits *tr = llmmem__ggml_type(t->type);
    uint64_t b = t->bytes;
    if (tr && tr->block > 1 && t->ne[0] % 512 != 0)
        b = llmmem__add(o, b, llmmem__ggml_row_bytes(o, tr, (uint64_t)(512 - t->ne[0] % 512)));
    return llmmem__round_up(o, b, 128);
}

static void weights(llmmem__lcpp_mem *m, const llmmem__gguf *g, const llmmem__lcpp_cfg *c, const ot_list *ot,
                    llmmem__ovf *o)
{
    const uint32_t L = g->hp.n_layer;
    uint64_t first = UINT64_MAX, last = 0, off = 0;
    for (uint32_t k = 0; k < g->n_tensors; off += PAD(g->t[k].bytes, g->alignment), k++) {
        const llmmem__gguf_tensor *t = &g->t[k];
        const char *name = llmmem__gguf_tensor_name(g, t);
        /* nextn / MTP blocks past n_layer count as layers of their own index */
        const int64_t il = t->layer == LLMMEM__GGUF_INPUT    ? -1
                           : t->layer == LLMMEM__GGUF_OUTPUT ? (int64_t)L
                                                             : t->layer;
        bool gpu = il >= 0 && layer_on_gpu(c, L, il < (int64_t)L ? il : (int64_t)L);
        /* the -ot patterns first, then --n-cpu-moe's (appended after them, common/arg.cpp) */
        const int forced = c->gpu ? ot_match(ot, name) : -1;
        if (forced >= 0) {
            gpu = forced == 1;
            m->overridden++;
        } else if (gpu && t->layer >= 0 && (uint32_t)t->layer < c->n_cpu_moe && is_expert(name))
            gpu = false;
        if (gpu) {
            m->w_gpu = llmmem__add(o, m->w_gpu, gpu_bytes(t, o));
        } else {
            m->w_cpu = llmmem__add(o, m->w_cpu, t->bytes);
            /* the tensors lie in order: the mapped range runs from the first host tensor to
             * the end of the last one */
            first = off < first ? off : first;
            last = off + t->bytes > last ? off + t->bytes : last;
        }
    }
    /* a head tied to token_embd is the input tensor again, duplicated into the output
     * layer's buffer when that layer is on a GPU (models/<arch>.cpp TENSOR_DUPLICATED) */
    if (!g->hp.has_output && layer_on_gpu(c, L, L))
        for (uint32_t k = 0; k < g->n_tensors; k++)
            if (strcmp(llmmem__gguf_tensor_name(g, &g->t[k]), "token_embd.weight") == 0)
                m->w_gpu = llmmem__add(o, m->w_gpu, gpu_bytes(&g->t[k], o));
    m->w_cpu_mapped = last > first ? last - first : 0;
    m->output_gpu = layer_on_gpu(c, L, L);
    m->layers_gpu = 0;
    for (uint32_t il = 0; il < L; il++)
        m->layers_gpu += layer_on_gpu(c, L, il);
}

/* ---- the KV cache ---------------------------------------------------------------------- */

static uint32_t head_k(const llmmem__gguf_hparams *hp, uint32_t il)
{
    return hp->is_swa[il] ? hp->n_embd_head_k_swa : hp->n_embd_head_k;
}
static uint32_t head_v(const llmmem__gguf_hparams *hp, uint32_t il)
{
    return hp->is_swa[il] ? hp->n_embd_head_v_swa : hp->n_embd_head_v;
}

static int kv_cache(llmmem__lcpp_mem *m, const llmmem__gguf *g, const llmmem__lcpp_cfg *c, llmmem__ovf *o)
{
    const llmmem__gguf_hparams *hp = &g->hp;
    const llmmem__ggml_traits *tk = llmmem__ggml_type(c->type_k), *tv = llmmem__ggml_type(c->type_v);
    if (!tk || !tv)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llama.cpp: cache type %u/%u is not a ggml type",
                             c->type_k, c->type_v);
    if (!c->flash_attn && tv->block > 1)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "llama.cpp: cache_type_v %s needs flash attention (llama-context.cpp: "
                             "\"quantized V cache was requested, but this requires Flash Attention\")",
                             tv->name);
    /* V rows are the widest layer's when V is stored transposed (no flash attention) and
     * the widths differ (llama-kv-cache.cpp) */
    uint32_t v_max = 0;
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        const uint32_t w = head_v(hp, il) * hp->n_head_kv[il];
        v_max = w > v_max ? w : v_max;
    }
    m->kv_cells = m->n_ctx_seq;
    /* llama-kv-cache-iswa.cpp: the SWA cache holds the window of every sequence (unified)
     * or one (per stream) plus a ubatch, padded to 256 */
    uint64_t swa = (uint64_t)hp->n_swa * (c->kv_unified ? c->n_seq_max : 1) + m->n_ubatch;
    swa = swa < m->n_ctx_seq ? swa : m->n_ctx_seq;
    m->kv_cells_swa = c->swa_full ? m->n_ctx_seq : (uint32_t)PAD(swa, 256);
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        if (hp->is_recurrent[il] || hp->n_head_kv[il] == 0) /* hparams.has_kv */
            continue;
        const bool is_swa = hp->swa_type != LLMMEM__SWA_NONE && hp->is_swa[il];
        const uint64_t cells = is_swa ? m->kv_cells_swa : m->kv_cells;
        const uint64_t kw = (uint64_t)head_k(hp, il) * hp->n_head_kv[il];
        const uint64_t vw = c->flash_attn ? (uint64_t)head_v(hp, il) * hp->n_head_kv[il] : v_max;
        if (kw % tk->block || vw % tv->block)
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "llama.cpp: a KV row of %llu/%llu values is not a whole number of "
                                 "%s/%s blocks",
                                 (unsigned long long)kw, (unsigned long long)vw, tk->name, tv->name);
        const uint64_t k = llmmem__mul3(o, llmmem__ggml_row_bytes(o, tk, kw), cells, m->n_stream);
        const uint64_t v = llmmem__mul3(o, llmmem__ggml_row_bytes(o, tv, vw), cells, m->n_stream);
        if (is_swa) {
            m->kv_k_swa = llmmem__add(o, m->kv_k_swa, k);
            m->kv_v_swa = llmmem__add(o, m->kv_v_swa, v);
            m->kv_layers_swa++;
        } else {
            m->kv_k = llmmem__add(o, m->kv_k, k);
            m->kv_v = llmmem__add(o, m->kv_v, v);
            m->kv_layers++;
        }
        if (c->offload_kqv && layer_on_gpu(c, hp->n_layer, il))
            m->kv_gpu = llmmem__add(o, m->kv_gpu, k + v);
        else
            m->kv_cpu = llmmem__add(o, m->kv_cpu, k + v);
    }
    return 0;
}

/* llama-memory-recurrent.cpp: per layer, R = n_embd_r f32 and S = n_embd_s f32 per cell,
 * one cell per sequence (mem_size = max(1, n_seq_max)); llama-hparams.cpp n_embd_r/_s. */
static void recurrent(llmmem__lcpp_mem *m, const llmmem__gguf *g, const llmmem__lcpp_cfg *c, llmmem__ovf *o)
{
    const llmmem__gguf_hparams *hp = &g->hp;
    uint64_t r = 0, s = 0;
    if (hp->wkv_head_size) { /* RWKV */
        r = (uint64_t)hp->token_shift_count * hp->n_embd;
        s = (uint64_t)hp->n_embd * hp->wkv_head_size;
    } else if (hp->ssm_d_inner) { /* Mamba: conv states of x, B and C; the SSM state */
        r = (uint64_t)(hp->ssm_d_conv ? hp->ssm_d_conv - 1 : 0) *
            (hp->ssm_d_inner + 2ull * hp->ssm_n_group * hp->ssm_d_state);
        s = (uint64_t)hp->ssm_d_state * hp->ssm_d_inner;
    }
    const uint64_t cells = c->n_seq_max ? c->n_seq_max : 1;
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        if (!hp->is_recurrent[il])
            continue;
        const uint64_t rb = llmmem__mul3(o, r, 4, cells), sb = llmmem__mul3(o, s, 4, cells);
        m->rs_r = llmmem__add(o, m->rs_r, rb);
        m->rs_s = llmmem__add(o, m->rs_s, sb);
        if (c->offload_kqv && layer_on_gpu(c, hp->n_layer, il))
            m->kv_gpu = llmmem__add(o, m->kv_gpu, rb + sb);
        else
            m->kv_cpu = llmmem__add(o, m->kv_cpu, rb + sb);
    }
}

/* ---- the context -------------------------------------------------------------------------- */

int llmmem__lcpp_memory(llmmem__lcpp_mem *m, const llmmem__gguf *g, const llmmem__lcpp_cfg *c)
{
    memset(m, 0, sizeof *m);
    if (c->n_seq_max < 1 || c->n_seq_max > 256)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "llama.cpp: parallel %u outside [1, 256] (LLAMA_MAX_SEQ)",
                             c->n_seq_max);
    /* llama-context.cpp: n_ctx (0: the training context) padded to 256; per sequence
     * unless the cache is unified; the batch limited by the context, the ubatch by the
     * batch */
    uint64_t n_ctx = c->n_ctx ? c->n_ctx : g->hp.n_ctx_train;
    n_ctx = PAD(n_ctx, 256);
    uint64_t seq = n_ctx;
    if (!c->kv_unified) {
        seq = PAD(n_ctx / c->n_seq_max, 256);
        if (seq == 0)
            return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "llama.cpp: n_ctx_seq == 0");
        n_ctx = seq * c->n_seq_max;
    }
    if (n_ctx > UINT32_MAX)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "llama.cpp: context of %llu tokens is above 2^32",
                             (unsigned long long)n_ctx);
    m->n_ctx = (uint32_t)n_ctx;
    m->n_ctx_seq = (uint32_t)seq;
    m->n_stream = c->kv_unified ? 1 : c->n_seq_max;
    m->n_batch = c->n_batch < m->n_ctx ? c->n_batch : m->n_ctx;
    m->n_ubatch = c->n_ubatch && c->n_ubatch < m->n_batch ? c->n_ubatch : m->n_batch;
    llmmem__ovf o = {false};
    ot_list ot;
    int rc = ot_parse(&ot, c->override_tensor);
    if (rc)
        return rc;
    weights(m, g, c, &ot, &o);
    ot_free(&ot);
    rc = kv_cache(m, g, c, &o);
    if (rc)
        return rc;
    recurrent(m, g, c, &o);
    /* output_reserve: logits for max(n_outputs, n_seq_max) = n_seq_max rows */
    m->output = llmmem__mul3(&o, g->hp.n_vocab, c->n_seq_max, 4);
    m->compute_gpu = c->gpu ? llmmem__lcpp_compute(m, g, c, true, &o) : 0;
    m->compute_cpu = llmmem__lcpp_compute(m, g, c, false, &o);
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "llama.cpp: a size overflows 64 bits");
    return 0;
}
