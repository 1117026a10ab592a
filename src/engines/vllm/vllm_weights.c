/* What vLLM's "Model loading took" counts on one rank: the torch-allocated
 * bytes after GPUModelRunner.load_model (v1/worker/gpu_model_runner.py, a
 * DeviceMemoryProfiler around model construction, weight loading and
 * process_weights_after_loading). Each parameter is taken as vLLM builds it:
 *  - tensor parallel (model_executor/layers/linear.py, vocab_parallel_embedding.py):
 *    column-parallel linears split their rows, row-parallel ones their
 *    columns; QKVParallelLinear keeps at least one KV head per rank
 *    (num_kv_head_replicas); the vocabulary is padded to a multiple of 64
 *    (DEFAULT_VOCAB_PADDING_SIZE, pad_vocab_size) and split; norms, routers
 *    (ReplicatedLinear) and row-parallel biases are replicated;
 *  - fused modules: q/k/v in one qkv_proj, gate/up in one gate_up_proj, the
 *    experts of a layer in w13/w2 (FusedMoE), split over TP by their
 *    intermediate size or, with expert parallelism, by whole experts;
 *  - quantized storage by method (quantization/fp8.py, gptq.py,
 *    gptq_marlin.py, awq.py, awq_marlin.py, bitsandbytes.py, mxfp4.py);
 *  - the rotary cos_sin_cache buffer (rotary_embedding get_rope, one per model)
 *    and the vision encoder;
 * and each allocation as PyTorch's caching allocator counts it
 * (llmmem__vllm_alloc below). */
#include "engines/vllm/vllm.h"

#include <string.h>

#define u llmmem__nonneg

#define MiB (UINT64_C(1) << 20)

/* ---- the caching allocator ----------------------------------------------------
 * pytorch c10/cuda/CUDACachingAllocator.cpp: a request is rounded to
 * kMinBlockSize (512); up to kSmallSize (1 MiB) it is cut from a 2 MiB small
 * segment; above, the best-fitting cached free block is used, else a new
 * segment of kLargeBuffer (20 MiB) below kMinLargeAlloc (10 MiB), else the
 * request rounded to kRoundLarge (2 MiB). A block is split only when the
 * remainder exceeds kSmallSize (should_split); otherwise the whole block is
 * allocated and counted in allocated_bytes. */
#define K_SMALL MiB
#define K_LARGE_BUFFER (UINT64_C(20) * MiB)
#define K_MIN_LARGE (UINT64_C(10) * MiB)
#define K_ROUND_LARGE (UINT64_C(2) * MiB)

static void pool_keep(llmmem__vllm_pool *p, uint64_t block)
{
    if (p->n < (int)LLMMEM_ARRAY_LEN(p->free_blocks))
        p->free_blocks[p->n++] = block;
}

uint64_t llmmem__vllm_alloc(llmmem__vllm_pool *p, llmmem__ovf *o, uint64_t bytes)
{
    if (bytes == 0)
        return 0;
    const uint64_t size = llmmem__round_up(o, bytes, 512);
    if (size <= K_SMALL)
        return size;
    int best = -1;
    for (int i = 0; i < p->n; i++)
        if (p->free_blocks[i] >= size && (best < 0 || p->free_blocks[i] < p->free_blocks[best]))
            best = i;
    uint64_t block;
    if (best >= 0) {
        block = p->free_blocks[best];
        p->free_blocks[best] = p->free_blocks[--p->n];
    } else {
        block = size < K_MIN_LARGE ? K_LARGE_BUFFER : llmmem__round_up(o, size, K_ROUND_LARGE);
    }
    if (block - size > K_SMALL) {
        pool_keep(p, block - size);
        return size;
    }
    return block;
}

/* ---- how one tensor is split over the tensor-parallel ranks ------------------ */

enum role {
    R_REPL = 0, /* replicated */
    R_VOCAB,    /* vocabulary-parallel embedding / lm_head */
    R_COL,      /* column parallel: rows split */
    R_ROW,      /* row parallel: columns split */
    R_KV,       /* k or v of QKVParallelLinear: max(1, k/tp) heads */
    R_QKV,      /* a fused q/k/v weight */
    R_EXP_UP,   /* routed experts, gate/up (output per expert split) */
    R_EXP_DOWN  /* routed experts, down (input per expert split) */
};

/* The last dotted component of a module name. */
static const char *leaf(const char *name)
{
    const char *d = strrchr(name, '.');
    return d ? d + 1 : name;
}

static bool leaf_is(const char *name, const char *const *list)
{
    const char *l = leaf(name);
    for (; *list; list++)
        if (strcmp(l, *list) == 0)
            return true;
    return false;
}

/* Row-parallel projections of the decoder layers (o_proj, down_proj and
 * their spellings in other families). */
static const char *const row_names[] = {"o_proj",        "out_proj", "dense",  "c_proj",
                                        "down_proj",     "fc2",      "w2",     "dense_4h_to_h",
                                        "wo",            NULL};
/* MLA's low-rank input projections are ReplicatedLinear in vLLM
 * (models/deepseek_v2.py q_a_proj, kv_a_proj_with_mqa). */
static const char *const replicated_names[] = {"q_a_proj", "kv_a_proj_with_mqa", NULL};
static const char *const kv_names[] = {"k_proj", "v_proj", NULL};

static int role_of(const llmmem__tensor *t, const struct llmmem_model *m)
{
    const uint64_t h = u(m->hidden_size), d = u(m->head_dim);
    const uint64_t a = u(m->num_heads), k = llmmem__kv_heads(m);
    switch (t->kind) {
    case LLMMEM__T_EMBED:
    case LLMMEM__T_HEAD: return t->rows == m->vocab_size ? R_VOCAB : R_REPL;
    case LLMMEM__T_EXPERT: return strstr(leaf(t->name), "down") ? R_EXP_DOWN : R_EXP_UP;
    case LLMMEM__T_ATTN:
    case LLMMEM__T_MLP:
        if (!t->linear) /* per-head vectors (sinks, A_log, dt_bias, conv1d) split by heads */
            return t->layer && m->num_heads > 0 ? R_COL : R_REPL;
        if (leaf_is(t->name, replicated_names))
            return R_REPL;
        if (leaf_is(t->name, kv_names) && u(t->rows) == k * d)
            return R_KV;
        if (t->kind == LLMMEM__T_ATTN && u(t->cols) == h && u(t->rows) == (a + 2 * k) * d &&
            k != a)
            return R_QKV;
        if (leaf_is(t->name, row_names))
            return R_ROW;
        if (u(t->cols) == h || u(t->rows) != h)
            return R_COL;
        return R_ROW;
    default: return R_REPL;
    }
}

/* Fused modules: q/k/v into qkv_proj, gate/up into gate_up_proj
 * (QKVParallelLinear, MergedColumnParallelLinear). */
static int fuse_key(const char *name)
{
    static const char *const qkv[] = {"q_proj", "k_proj", "v_proj", NULL};
    static const char *const gate_up[] = {"gate_proj", "up_proj", "w1", "w3", NULL};
    if (leaf_is(name, qkv))
        return 1;
    if (leaf_is(name, gate_up))
        return 2;
    return 0;
}

/* ---- the bytes of one quantized matrix of rows x cols on this rank --------- */

/* The allocations of one linear weight, in creation order (up to 4). */
typedef struct parts {
    int n;
    uint64_t b[4];
} parts;

static void part(parts *p, uint64_t bytes)
{
    if (bytes && p->n < 4)
        p->b[p->n++] = bytes;
}

static uint64_t groups_of(uint64_t cols, uint64_t group)
{
    return group ? llmmem__ceil_div(cols, group) : 1;
}

/* How the linear layers of each storage format are allocated. */
static void linear_parts(parts *p, llmmem__ovf *o, const llmmem__vllm_rank *r, uint64_t rows,
                         uint64_t cols, uint64_t shards)
{
    const uint64_t el = llmmem__mul(o, rows, cols);
    memset(p, 0, sizeof *p);
    switch (r->fmt) {
    case LLMMEM__Q_FP8: /* fp8.py Fp8LinearMethod: weight + one fp32 scale per shard */
        part(p, el);
        part(p, 4 * shards);
        return;
    case LLMMEM__Q_FP8_BLOCK: /* weight_scale_inv fp32 per 128x128 block */
        part(p, el);
        part(p, llmmem__mul3(o, 4, llmmem__ceil_div(rows, 128), llmmem__ceil_div(cols, 128)));
        return;
    case LLMMEM__Q_INT8: /* bitsandbytes 8-bit: int8 weight + fp32 SCB per row */
        part(p, el);
        part(p, llmmem__mul(o, 4, rows));
        return;
    case LLMMEM__Q_NF4:
    case LLMMEM__Q_FP4: /* bitsandbytes.py 4-bit: packed uint8 + fp32 absmax per 64 */
        part(p, llmmem__ceil_div(el, 2));
        part(p, llmmem__mul(o, 4, llmmem__ceil_div(el, 64)));
        return;
    case LLMMEM__Q_NF4_DQ: /* double quantization: uint8 absmax per 64, fp32 per 256 of them */
        part(p, llmmem__ceil_div(el, 2));
        part(p, llmmem__ceil_div(el, 64));
        part(p, llmmem__mul(o, 4, llmmem__ceil_div(llmmem__ceil_div(el, 64), 256)));
        return;
    case LLMMEM__Q_NVFP4: {
        /* modelopt.py ModelOptNvFp4LinearMethod / compressed_tensors_w4a4_nvfp4.py:
         * weight uint8 [out, in/2], weight_scale fp8 [out, in/16]; the fp32
         * global scales become scalars in process_weights_after_loading (two
         * kept per layer here: weight_scale_2 and the input scale or alpha).
         * Native FP4 GEMMs (sm_100, sm_120: cutlass_fp4_supported) swizzle the
         * block scales, padding rows to 128 and scale columns to 4
         * (utils/quant_utils.py swizzle_blockscale); Marlin (other GPUs,
         * prepare_fp4_layer_for_marlin) keeps their count. */
        uint64_t srows = rows, scols = llmmem__ceil_div(cols, 16);
        if (r->cc >= 100 && r->cc < 130) {
            srows = llmmem__round_up(o, srows, 128);
            scols = llmmem__round_up(o, scols, 4);
        }
        part(p, llmmem__ceil_div(el, 2));
        part(p, llmmem__mul(o, srows, scols));
        part(p, 4);
        part(p, 4);
        return;
    }
    case LLMMEM__Q_INT4: {
        /* compressed_tensors_wNa16.py CompressedTensorsWNA16 (symmetric): weight_packed
         * int32 [out, in*bits/32], weight_scale [out, groups] in the model dtype,
         * weight_shape int64 [2]; the Marlin kernel repacks to the same size */
        const uint64_t g = groups_of(cols, r->group);
        part(p, llmmem__bits_to_bytes(o, el, r->bits));
        part(p, llmmem__mul3(o, r->e, g, rows));
        part(p, 16);
        return;
    }
    case LLMMEM__Q_GPTQ: {
        /* gptq.py: qweight int32 [in*bits/32, out], qzeros [groups, out*bits/32],
         * scales [groups, out], g_idx int32 [in]. gptq_marlin.py repacks qweight
         * to the same size, keeps the scales, and replaces the zeros of a
         * symmetric checkpoint and an unused g_idx by empty tensors. */
        const uint64_t g = groups_of(cols, r->group);
        part(p, llmmem__bits_to_bytes(o, el, r->bits));
        if (!r->marlin)
            part(p, llmmem__bits_to_bytes(o, llmmem__mul(o, g, rows), r->bits));
        part(p, llmmem__mul3(o, r->e, g, rows));
        if (!r->marlin)
            part(p, llmmem__mul(o, 4, cols));
        return;
    }
    case LLMMEM__Q_AWQ: {
        /* awq.py / awq_marlin.py: qweight int32 [in, out*bits/32], qzeros
         * [groups, out*bits/32], scales [groups, out] */
        const uint64_t g = groups_of(cols, r->group);
        part(p, llmmem__bits_to_bytes(o, el, r->bits));
        part(p, llmmem__bits_to_bytes(o, llmmem__mul(o, g, rows), r->bits));
        part(p, llmmem__mul3(o, r->e, g, rows));
        return;
    }
    case LLMMEM__Q_FP32: part(p, llmmem__mul(o, el, 4)); return;
    default: part(p, llmmem__mul(o, el, r->e)); return;
    }
}

/* Formats that quantize the decoder's linear layers (MXFP4 only the experts). */
static bool quantizes_linears(int fmt)
{
    return fmt != LLMMEM__Q_AUTO && fmt != LLMMEM__Q_FP32 && fmt != LLMMEM__Q_FP16 &&
           fmt != LLMMEM__Q_BF16 && fmt != LLMMEM__Q_MXFP4;
}

/* ---- the walk ---------------------------------------------------------------- */

typedef struct walk {
    llmmem__vllm_weights *w;
    llmmem__ovf *o;
    const struct llmmem_model *m;
    const llmmem__vllm_rank *r;
    llmmem__vllm_pool pool;
    /* the fused module being collected */
    int key;
    const char *fname; /* its first tensor's name (the prefix must match) */
    size_t fpre;       /* the length of its module prefix (before the leaf) */
    bool quant;
    uint64_t rows, cols, bias_rows, shards;
    /* What the names say of each tensor of the model's list, read once per call: the
     * same in every layer, and the name tests were half of the walk's time. */
    int8_t role[LLMMEM__MAX_TENSORS];  /* role_of */
    int8_t brole[LLMMEM__MAX_TENSORS]; /* a bias: the role of the Linear of its name */
    int8_t key_of[LLMMEM__MAX_TENSORS]; /* fuse_key */
    uint16_t pre[LLMMEM__MAX_TENSORS]; /* the module prefix's length */
    /* the routed experts of a layer: the down projection's input width, biases */
    uint64_t exp_down_cols;
    bool exp_up_bias, exp_down_bias;
    bool in_layer; /* taking a decoder layer's parameters (make_layers), with --cpu-offload-gb */
} walk;

static void take(walk *k, uint64_t bytes)
{
    if (!bytes)
        return;
    /* --cpu-offload-gb: make_layers hands each decoder layer to
     * maybe_offload_to_cpu (models/utils.py; offloader/uva.py UVAOffloader from
     * 0.17), which moves its parameters in order into pinned host memory while
     * the bytes moved so far are below the limit, per parameter, and reads
     * them through a UVA view: off the GPU, on the host. */
    if (k->in_layer && k->w->offloaded < k->r->offload_max) { /* in_layer only when offloading */
        k->w->offloaded = llmmem__add(k->o, k->w->offloaded, bytes);
        k->w->host = llmmem__add(k->o, k->w->host, llmmem__pinned_block(bytes));
        return;
    }
    k->w->tensors = llmmem__add(k->o, k->w->tensors, bytes);
    k->w->bytes = llmmem__add(k->o, k->w->bytes, llmmem__vllm_alloc(&k->pool, k->o, bytes));
    k->w->largest = llmmem__max(k->w->largest, bytes);
}

static void take_linear(walk *k, uint64_t rows, uint64_t cols, bool quant, uint64_t shards)
{
    if (!rows || !cols)
        return;
    parts p;
    if (quant) {
        linear_parts(&p, k->o, k->r, rows, cols, shards);
    } else {
        memset(&p, 0, sizeof p);
        part(&p, llmmem__mul3(k->o, rows, cols, k->r->e));
    }
    for (int i = 0; i < p.n; i++)
        take(k, p.b[i]);
}

static void flush(walk *k)
{
    if (k->key) {
        take_linear(k, k->rows, k->cols, k->quant, k->shards);
        take(k, llmmem__mul(k->o, k->bias_rows, k->r->e));
    }
    k->key = 0;
    k->fname = NULL;
    k->fpre = 0;
    k->rows = k->cols = k->bias_rows = k->shards = 0;
}

/* Whether tensor i (named `name`) joins the fused module being collected: same kind
 * of fusion and the same module prefix ("mlp." vs "mlp.shared_expert."). */
static bool joins(const walk *k, const char *name, int i)
{
    const int key = k->key_of[i];
    if (!key || key != k->key || !k->fname)
        return false;
    return k->pre[i] == k->fpre && strncmp(name, k->fname, k->fpre) == 0;
}

/* Rows of this rank for a column-parallel output of `rows` (heads split). */
static uint64_t split(uint64_t n, uint64_t tp) { return tp ? llmmem__ceil_div(n, tp) : n; }

/* The rank's rows x cols of a decoder or model tensor. */
static void shape_of(uint64_t *rows, uint64_t *cols, const walk *k, const llmmem__tensor *t, int role)
{
    const struct llmmem_model *m = k->m;
    const uint64_t tp = k->r->tp, d = u(m->head_dim);
    const uint64_t a = u(m->num_heads), kv = llmmem__kv_heads(m);
    const uint64_t k_r = llmmem__kv_heads_per_rank(kv, tp);
    *rows = u(t->rows);
    *cols = u(t->cols);
    switch (role) {
    case R_VOCAB: *rows = split(llmmem__round_up(k->o, *rows, 64), tp); break;
    case R_COL: *rows = split(*rows, tp); break;
    case R_ROW: *cols = split(*cols, tp); break;
    case R_KV: *rows = k_r * d; break;
    case R_QKV: *rows = (a / tp + 2 * k_r) * d; break;
    default: break;
    }
}

/* ---- routed experts (FusedMoE, fused_moe/layer.py) ------------------------- */

/* One MoE layer's w13/w2 and their scales and biases on this rank. up_rows:
 * the gate/up output of one expert (2I gated); down_cols: I. */
static void experts_layer(walk *k, uint64_t up_rows, uint64_t down_cols, bool up_bias,
                          bool down_bias)
{
    const llmmem__vllm_rank *r = k->r;
    const struct llmmem_model *m = k->m;
    llmmem__ovf *o = k->o;
    const uint64_t E = u(m->num_experts), h = u(m->hidden_size);
    const uint64_t E_r = r->ep > 1 ? llmmem__ceil_div(E, r->ep) : E;
    const uint64_t tp_i = r->ep > 1 ? 1 : r->tp; /* EP: whole experts, no TP inside */
    uint64_t up = split(up_rows, tp_i), I = split(down_cols, tp_i);
    const uint64_t before = k->w->tensors;
    if (r->fmt == LLMMEM__Q_MXFP4) {
        /* mxfp4.py Mxfp4MoEMethod.create_weights: uint8 weights (2 values a
         * byte), uint8 E8M0 scales per 32, biases; padding by backend */
        uint64_t Ip = I, hp = h, bias_b = 2, gated = up_rows == 2 * down_cols ? 2 : 1;
        switch (r->mxfp4) {
        case LLMMEM__MXFP4_MARLIN:
            Ip = llmmem__round_up(o, I, 128);
            hp = llmmem__round_up(o, h, 256);
            break;
        case LLMMEM__MXFP4_FI_256:
            Ip = llmmem__round_up(o, I, 256);
            hp = llmmem__round_up(o, h, 256);
            break;
        case LLMMEM__MXFP4_FI_128:
            Ip = llmmem__round_up(o, I, 128);
            hp = llmmem__round_up(o, h, 128);
            break;
        default: /* Triton: intermediate to 64; biases become fp32 */
            Ip = llmmem__round_up(o, I, 64);
            bias_b = 4;
            break;
        }
        const uint64_t up_p = gated * Ip;
        const uint64_t w13 = llmmem__mul3(o, E_r, up_p, hp / 2), w13s = llmmem__mul3(o, E_r, up_p, hp / 32);
        const uint64_t w2 = llmmem__mul3(o, E_r, hp, Ip / 2), w2s = llmmem__mul3(o, E_r, hp, Ip / 32);
        take(k, w13);
        take(k, w13s);
        take(k, llmmem__mul3(o, E_r, up_p, bias_b));
        take(k, w2);
        take(k, w2s);
        take(k, llmmem__mul3(o, E_r, hp, bias_b));
        if (r->mxfp4 == LLMMEM__MXFP4_TRITON) { /* _swizzle_mxfp4's scale copies */
            take(k, w13s);
            take(k, w2s);
        }
    } else {
        const bool q = quantizes_linears(r->fmt);
        /* FusedMoE allocates [E, rows, cols] per projection; quantized methods add
         * their scales per expert (fp8.py Fp8MoEMethod, gptq_marlin_moe, awq_marlin) */
        parts pu, pd;
        if (q) {
            linear_parts(&pu, o, r, up, h, 2);
            linear_parts(&pd, o, r, h, I, 1);
        } else {
            memset(&pu, 0, sizeof pu);
            memset(&pd, 0, sizeof pd);
            part(&pu, llmmem__mul3(o, up, h, r->e));
            part(&pd, llmmem__mul3(o, h, I, r->e));
        }
        for (int i = 0; i < pu.n; i++)
            take(k, llmmem__mul(o, E_r, pu.b[i]));
        for (int i = 0; i < pd.n; i++)
            take(k, llmmem__mul(o, E_r, pd.b[i]));
        if (up_bias)
            take(k, llmmem__mul3(o, E_r, up, r->e));
        if (down_bias)
            take(k, llmmem__mul3(o, E_r, h, r->e));
    }
    k->w->experts = llmmem__add(o, k->w->experts, k->w->tensors - before);
}

/* ---- one decoder layer and the model's own tensors --------------------------- */

/* Whether layer l holds one of the `count` instances of a decoder tensor,
 * spread evenly over the L layers (exact when count == L). */
static bool present(uint64_t l, uint64_t count, uint64_t L)
{
    if (count >= L)
        return true;
    return (l + 1) * count / L > l * count / L;
}

/* The rotary cos_sin_cache: [max_position, rotary_dim] in the model dtype,
 * made once by get_rope and shared by the layers (rotary_embedding/base.py). */
static uint64_t rotary_bytes(llmmem__ovf *o, const struct llmmem_model *m, uint64_t e)
{
    if (m->family == LLMMEM__FAM_GPT2 || m->family == LLMMEM__FAM_OPT)
        return 0; /* learned positions */
    uint64_t rot = m->kv_lora_rank > 0 ? u(m->qk_rope_head_dim)
                                        : (uint64_t)((double)u(m->head_dim) *
                                                         (m->partial_rotary_factor > 0.0
                                                              ? m->partial_rotary_factor
                                                              : 1.0) +
                                                     0.5);
    rot &= ~UINT64_C(1);
    return llmmem__mul3(o, u(m->max_positions), rot, e);
}

/* Reads the names of the model's tensors once (walk's role, brole, key_of, pre and the
 * experts' fields). */
static void names_of(walk *k, const llmmem__tensors *ts)
{
    for (int i = 0; i < ts->n; i++) {
        const llmmem__tensor *t = &ts->t[i];
        k->role[i] = (int8_t)role_of(t, k->m);
        k->key_of[i] = (int8_t)fuse_key(t->name);
        k->pre[i] = (uint16_t)(leaf(t->name) - t->name);
        k->brole[i] = R_REPL; /* a bias follows its Linear (the last of the name) */
        if (t->kind == LLMMEM__T_BIAS)
            for (int j = 0; j < ts->n; j++)
                if (ts->t[j].linear && strcmp(ts->t[j].name, t->name) == 0)
                    k->brole[i] = (int8_t)role_of(&ts->t[j], k->m);
        if (t->kind == LLMMEM__T_EXPERT) { /* the layer's down projection and biases */
            bool down = strstr(leaf(t->name), "down") != NULL;
            if (t->cols == 1)
                (down ? &k->exp_down_bias : &k->exp_up_bias)[0] = true;
            else if (down)
                k->exp_down_cols = u(t->cols);
        }
    }
}

/* Tensor i of the model's list, in one layer. */
static void layer_tensor(walk *k, const llmmem__tensor *t, int i)
{
    const struct llmmem_model *m = k->m;
    const int role = k->role[i];
    uint64_t rows, cols;
    if (t->kind == LLMMEM__T_EXPERT) {
        if (t->cols == 1) /* expert biases go with their projection (below) */
            return;
        flush(k);
        const uint64_t E = u(m->num_experts) ? u(m->num_experts) : 1;
        if (role == R_EXP_DOWN)
            return; /* taken with gate/up */
        /* this gate/up tensor and the down projection of the same layer */
        experts_layer(k, u(t->rows) / E, k->exp_down_cols, k->exp_up_bias, k->exp_down_bias);
        return;
    }
    if (t->kind == LLMMEM__T_BIAS) {
        /* a bias follows its linear: split like its rows when column parallel */
        const int lrole = k->brole[i];
        shape_of(&rows, &cols, k, t, lrole == R_ROW ? R_REPL : lrole);
        if (joins(k, t->name, i)) {
            k->bias_rows += rows;
            return;
        }
        flush(k);
        take(k, llmmem__mul(k->o, rows, k->r->e));
        return;
    }
    shape_of(&rows, &cols, k, t, role);
    const bool quant = t->linear && quantizes_linears(k->r->fmt) &&
                       (t->kind == LLMMEM__T_ATTN || t->kind == LLMMEM__T_MLP);
    const int key = t->linear ? k->key_of[i] : 0;
    if (key && joins(k, t->name, i)) {
        k->rows += rows;
        k->shards++;
        return;
    }
    flush(k);
    if (key) {
        k->key = key;
        k->fname = t->name;
        k->fpre = k->pre[i];
        k->quant = quant;
        k->rows = rows;
        k->cols = cols;
        k->shards = 1;
        return;
    }
    if (t->linear)
        take_linear(k, rows, cols, quant, 1);
    else
        take(k, llmmem__mul3(k->o, rows, cols, k->r->e));
}

static void model_tensor(walk *k, const llmmem__tensor *t, int i)
{
    uint64_t rows, cols;
    shape_of(&rows, &cols, k, t, k->role[i]);
    take(k, llmmem__mul3(k->o, rows, cols, k->r->e));
}

/* Instances of a decoder tensor of `count` in layer l of L: count/L of an
 * every-layer tensor, else one in the layers that have it. */
static uint64_t times_in(uint64_t l, uint64_t count, uint64_t L)
{
    return count >= L && L ? count / L : present(l, count, L);
}

/* Whether layers l and l + 1 hold the same tensors (the walk below). */
static bool same_as_next(const llmmem__tensors *ts, uint64_t l, uint64_t L)
{
    for (int i = 0; i < ts->n; i++) {
        const uint64_t c = u(ts->t[i].count);
        if (ts->t[i].layer && c < L && present(l, c, L) != present(l + 1, c, L))
            return false;
    }
    return true;
}

/* Whether every decoder layer holds the same tensors: each layer tensor's
 * count at least L, or 0. */
static bool same_layers(const llmmem__tensors *ts, uint64_t L)
{
    for (int i = 0; i < ts->n; i++) {
        const uint64_t c = u(ts->t[i].count);
        if (ts->t[i].layer && c && c < L)
            return false;
    }
    return true;
}

static bool pool_equal(const llmmem__vllm_pool *a, const llmmem__vllm_pool *b)
{
    return a->n == b->n && !memcmp(a->free_blocks, b->free_blocks, (size_t)a->n * sizeof a->free_blocks[0]);
}

bool llmmem__vllm_every_layer = false;

void llmmem__vllm_weights_of(llmmem__vllm_weights *w, llmmem__ovf *o, const struct llmmem_model *m,
                             const llmmem__vllm_rank *r)
{
    memset(w, 0, sizeof *w);
    walk k;
    memset(&k, 0, sizeof k);
    k.w = w;
    k.o = o;
    k.m = m;
    k.r = r;
    const llmmem__tensors *ts = &m->tensors;
    names_of(&k, ts);
    const bool first = r->stage == 0, last = r->stage + 1 >= r->pp;
    const uint64_t L = u(m->num_layers);
    /* embeddings first (first stage), as the model's __init__ builds them */
    for (int i = 0; i < ts->n; i++)
        if (!ts->t[i].layer && ts->t[i].kind == LLMMEM__T_EMBED && first)
            model_tensor(&k, &ts->t[i], i);
    /* A layer after the first that leaves the allocator's free blocks as it
     * found them (each tensor a whole number of 2 MiB pages, or a pool that
     * settled) adds the same bytes again in every later layer of its run (the
     * layers holding the same tensors: all of them, or those between two of
     * a tensor spread over fewer layers, such as DeepSeek's dense MLPs),
     * which are then added at once (the walk is flushed at each layer's end;
     * the sums only grow, so an overflow is one either way). */
    const bool repeat = !llmmem__vllm_every_layer;
    const bool uniform = same_layers(ts, L);
    llmmem__vllm_pool pool0;
    llmmem__vllm_weights w0;
    for (uint64_t l = r->L0; l < r->L1; l++) {
        /* with --cpu-offload-gb only once the offload is complete: the layers
         * before differ (their first parameters leave the GPU) */
        const bool probe = repeat && l > r->L0 && l + 1 < r->L1 && (uniform || same_as_next(ts, l, L)) &&
                           w->offloaded >= r->offload_max;
        if (probe) {
            pool0 = k.pool;
            w0 = *w;
        }
        if (l == r->L0) { /* get_rope in the first layer's attention */
            w->rotary = rotary_bytes(o, m, r->e);
            take(&k, w->rotary);
        }
        k.in_layer = r->offload_max != 0; /* the rotary cache above is a buffer, not offloaded */
        for (int i = 0; i < ts->n; i++) {
            const llmmem__tensor *t = &ts->t[i];
            if (!t->layer)
                continue;
            /* instances in this layer: count/L of an every-layer tensor, else
             * one in the layers that have it; the experts of a layer at once */
            uint64_t times = times_in(l, u(t->count), L);
            if (t->kind == LLMMEM__T_EXPERT && times > 1)
                times = 1;
            for (uint64_t j = 0; j < times; j++)
                layer_tensor(&k, t, i);
        }
        flush(&k);
        k.in_layer = false;
        if (probe && pool_equal(&pool0, &k.pool)) {
            uint64_t end = l + 1; /* the run: layers l + 1 .. end - 1 hold layer l's tensors */
            if (uniform)
                end = r->L1;
            else
                while (end < r->L1 && same_as_next(ts, end - 1, L))
                    end++;
            const uint64_t rest = end - 1 - l;
            w->tensors = llmmem__add(o, w->tensors, llmmem__mul(o, w->tensors - w0.tensors, rest));
            w->bytes = llmmem__add(o, w->bytes, llmmem__mul(o, w->bytes - w0.bytes, rest));
            w->experts = llmmem__add(o, w->experts, llmmem__mul(o, w->experts - w0.experts, rest));
            l = end - 1; /* the walk goes on at the run's end, from the same pool */
        }
    }
    for (int i = 0; i < ts->n; i++) {
        const llmmem__tensor *t = &ts->t[i];
        if (t->layer || t->kind == LLMMEM__T_EMBED)
            continue;
        if (last)
            model_tensor(&k, t, i);
    }
    /* A tied lm_head on a last stage that is not the first keeps its own copy
     * (PPMissingLayer for embed_tokens there). */
    if (m->tie_embeddings && last && !first)
        for (int i = 0; i < ts->n; i++)
            if (!ts->t[i].layer && ts->t[i].kind == LLMMEM__T_EMBED &&
                ts->t[i].rows == m->vocab_size)
                model_tensor(&k, &ts->t[i], i);
    /* The vision encoder and projector (first stage), split over TP like the
     * language model's linears, in the model dtype. */
    if (first && m->vision_params > 0) {
        w->vision = llmmem__mul(o, split(u(m->vision_params), r->tp), r->e);
        w->tensors = llmmem__add(o, w->tensors, w->vision);
        w->bytes = llmmem__add(o, w->bytes, w->vision);
    }
}
