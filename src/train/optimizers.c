/* The optimizer catalogue's byte model: state layout and dtype of each
 * implementation, and the temporaries its step allocates, from the one row per
 * optimizer of config/optimizers.def (which also holds its names and the
 * frameworks' spellings of it). Per-tensor rules
 * (factored moments, 8-bit thresholds, 2-D-only momentum) read the model's
 * tensor list (tensors.c). */
#include "train/train.h"

/* How a state tensor is laid out. */
enum state_kind {
    ST_NONE = 0,
    ST_FULL,        /* one tensor like the parameter (torch zeros_like(p)) */
    ST_FACTORED,    /* Adafactor: rows + cols for >= 2-D, full for vectors (fp32) */
    ST_8BIT,        /* bitsandbytes: uint8 + fp32 absmax per 256 if n >= 4096, else fp32 */
    ST_BLOCK,       /* Adam-mini: one value per output row, full for embedding/head */
    ST_MATRIX_ONLY, /* Muon: momentum for 2-D hidden matrices; the rest go to AdamW */
    ST_FP32,        /* bitsandbytes 32-bit: fp32 whatever the parameter dtype */
    ST_AO_8BIT,     /* torchao: uint8 + fp32 scale per 256 if n >= 4096 and n % 256 == 0, else like p */
    ST_AO_4BIT      /* torchao: 4-bit codes + fp32 scale per 128 under the same rule (block 128) */
};

/* How the step's temporaries scale. */
enum temp_kind {
    TMP_NONE = 0,   /* in-place kernels (fused, SGD) */
    TMP_ALL,        /* foreach: `tmp_states` copies of the whole group */
    TMP_LARGEST     /* per-parameter loop: copies of the largest tensor */
};

typedef struct optim_row {
    const char *name;
    int states;        /* state tensors of kind `kind` per parameter */
    int kind;
    int temp;          /* temp kind for the default (foreach) implementation */
    int tmp_states;    /* how many state-sized copies that temp holds */
    int loop_copies;   /* copies of the largest tensor in the for-loop implementation */
    bool scalar_state; /* a 0-dim tensor per parameter on the GPU (512-byte block) */
    const char *source;
    bool paged;        /* bitsandbytes is_paged: states of tensors >= 1e5 elements in managed memory */
} optim_row;

/* The rows of the catalogue (config/optimizers.def), by the optimizer's value. */
#define ROW(P, V, name, states, kind, temp, tmp_states, loop_copies, scalar_state, paged, source)            \
    [LLMMEM__OPT_##V] = {name, states, ST_##kind, TMP_##temp, tmp_states, loop_copies, scalar_state, source, paged},
static const optim_row rows[LLMMEM__OPT_COUNT] = {LLMMEM__OPTIMIZERS(ROW, _)};
#undef ROW

const char *llmmem__optim_source(int id)
{
    return id >= 0 && id < LLMMEM__OPT_COUNT ? rows[id].source : "";
}

bool llmmem__optim_paged(int id) { return id >= 0 && id < LLMMEM__OPT_COUNT && rows[id].paged; }

bool llmmem__optim_bnb(int id)
{
    return id >= 0 && id < LLMMEM__OPT_COUNT && (rows[id].kind == ST_8BIT || rows[id].paged);
}

int llmmem__optim_states(int id) { return id >= 0 && id < LLMMEM__OPT_COUNT ? rows[id].states : 0; }

bool llmmem__optim_foreach_all(int id) { return id >= 0 && id < LLMMEM__OPT_COUNT && rows[id].temp == TMP_ALL; }

int64_t llmmem__optim_state_rdt(int id)
{
    if (id < 0 || id >= LLMMEM__OPT_COUNT)
        return 0;
    switch (rows[id].kind) {
    case ST_8BIT:
    case ST_AO_8BIT: return LLMMEM__RDT_INT8;
    case ST_AO_4BIT: return LLMMEM__RDT_INT4;
    case ST_FP32: return LLMMEM__DT_FP32;
    default: return 0;
    }
}

/* bitsandbytes get_state_buffer: a paged optimizer puts the states of
 * tensors of at least 1e5 elements in managed memory. */
#define BNB_PAGED_MIN 100000

/* bitsandbytes: min_8bit_size = 4096, blocksize 256 (functional.py). */
#define BNB_MIN_8BIT 4096
#define BNB_BLOCK 256

static uint64_t state_of_tensor(const optim_row *r, const llmmem__tensor *x, int sb, bool embed_like,
                                llmmem__ovf *o)
{
    const uint64_t n = llmmem__mul(o, (uint64_t)x->rows, (uint64_t)x->cols);
    switch (r->kind) {
    case ST_FULL:
        return llmmem__mul3(o, n, (uint64_t)sb, (uint64_t)r->states);
    case ST_FACTORED: /* fp32 rows + cols for matrices, full for vectors */
        if (x->cols > 1)
            return llmmem__alloc_block(4 * (uint64_t)x->rows) + llmmem__alloc_block(4 * (uint64_t)x->cols);
        return llmmem__alloc_block(llmmem__mul(o, n, 4));
    case ST_8BIT:
        if (n >= BNB_MIN_8BIT)
            return llmmem__mul(o, 2, llmmem__add(o, n, 4 * llmmem__ceil_div(n, BNB_BLOCK)));
        return llmmem__mul(o, n, 8);
    case ST_BLOCK: /* m full; v one per row, full for embedding/head */
        return llmmem__add(o, llmmem__mul(o, n, (uint64_t)sb),
                           embed_like ? llmmem__mul(o, n, (uint64_t)sb) : (uint64_t)x->rows * sb);
    case ST_MATRIX_ONLY: /* momentum for hidden matrices; AdamW (2 states) otherwise */
        if (x->cols > 1 && !embed_like)
            return llmmem__mul(o, n, (uint64_t)sb);
        return llmmem__mul3(o, n, (uint64_t)sb, 2);
    case ST_FP32:
        return llmmem__mul3(o, n, 4, (uint64_t)r->states);
    case ST_AO_8BIT: /* torchao _new_buffer: quantised when n >= 4096 and n % 256 == 0 */
        if (n >= 4096 && n % 256 == 0)
            return llmmem__mul(o, (uint64_t)r->states, llmmem__add(o, n, 4 * (n / 256)));
        return llmmem__mul3(o, n, (uint64_t)sb, (uint64_t)r->states);
    case ST_AO_4BIT: /* subclass_4bit.py zeros: n/2 codes + fp32 scale per 128 */
        if (n >= 4096 && n % 128 == 0)
            return llmmem__mul(o, (uint64_t)r->states, llmmem__add(o, n / 2, 4 * (n / 128)));
        return llmmem__mul3(o, n, (uint64_t)sb, (uint64_t)r->states);
    default:
        return 0;
    }
}

/* Sums over the tensors an optimizer updates. */
typedef struct tally {
    uint64_t state;   /* persistent state bytes */
    uint64_t managed; /* of which in CUDA managed memory (paged optimizers) */
    uint64_t largest; /* elements of the largest tensor */
    uint64_t elems;   /* elements of all tensors */
    int64_t tensors;  /* how many tensors */
} tally;

static void tally_tensor(tally *a, const optim_row *r, const llmmem__tensor *x, int64_t count, int sb,
                         bool embed_like, llmmem__ovf *o)
{
    uint64_t s = state_of_tensor(r, x, sb, embed_like, o);
    a->state = llmmem__add(o, a->state, llmmem__mul(o, s, (uint64_t)count));
    uint64_t n = llmmem__mul(o, (uint64_t)x->rows, (uint64_t)x->cols);
    if (r->paged && n >= BNB_PAGED_MIN) {
        /* state1/2 paged; 8-bit absmax (fp32 per 256) stay in the allocator */
        uint64_t absmax = r->kind == ST_8BIT && n >= BNB_MIN_8BIT
                              ? llmmem__mul3(o, (uint64_t)r->states, 4, llmmem__ceil_div(n, BNB_BLOCK))
                              : 0;
        a->managed = llmmem__add(o, a->managed, llmmem__mul(o, s - absmax, (uint64_t)count));
    }
    a->largest = llmmem__max(a->largest, n);
    a->elems = llmmem__add(o, a->elems, llmmem__mul(o, n, (uint64_t)count));
    a->tensors += count;
}

/* The model's parameter tensors; embedding and head count as embedding-like. */
static void tally_model(tally *a, const optim_row *r, const llmmem__tensors *ts, int sb, llmmem__ovf *o)
{
    for (int i = 0; i < ts->n; i++) {
        const llmmem__tensor *x = &ts->t[i];
        bool embed_like = x->kind == LLMMEM__T_EMBED || x->kind == LLMMEM__T_HEAD;
        tally_tensor(a, r, x, x->count, sb, embed_like, o);
    }
}

/* Adapters: lora_A (r x in) and lora_B (out x r) per module. */
static void tally_adapters(tally *a, const optim_row *r, const llmmem__lora_shape *lora, int sb, llmmem__ovf *o)
{
    for (int i = 0; i < lora->n; i++) {
        llmmem__tensor la = {"lora_A", LLMMEM__T_ATTN, lora->rank, lora->in[i], 1, true, true, 0, NULL};
        llmmem__tensor lb = {"lora_B", LLMMEM__T_ATTN, lora->out[i], lora->rank, 1, true, true, 0, NULL};
        tally_tensor(a, r, &la, lora->count[i], sb, false, o);
        tally_tensor(a, r, &lb, lora->count[i], sb, false, o);
    }
}

/* 0-dim tensors per parameter on the GPU: the fused/capturable `step`
 * (torch/optim/adam.py _init_group) and Adafactor's RMS; one 512-byte block
 * each. */
static uint64_t optimizer_scalar_state(const optim_row *r, int impl, int64_t tensors, llmmem__ovf *o)
{
    bool scalar = r->scalar_state || (impl == LLMMEM__IMPL_FUSED && r->kind == ST_FULL);
    return scalar ? llmmem__mul(o, (uint64_t)tensors, 512) : 0;
}

/* How the step's temporaries scale under implementation `impl`: fused
 * kernels update in place (H200: no step peak); the for-loop implementation
 * copies one tensor at a time. */
static int step_temp_kind(const optim_row *r, int impl)
{
    if (impl == LLMMEM__IMPL_FUSED && r->kind == ST_FULL)
        return TMP_NONE;
    if (impl == LLMMEM__IMPL_FORLOOP && r->temp == TMP_ALL)
        return TMP_LARGEST;
    return r->temp;
}

/* The foreach implementation: `tmp_states` state-sized copies of the whole
 * group at once (e.g. _multi_tensor_adamw's _foreach_sqrt, config/optimizers.def). */
static uint64_t optimizer_step_foreach_temp(const optim_row *r, uint64_t elems, int sb, llmmem__ovf *o)
{
    return llmmem__mul3(o, elems, (uint64_t)sb, (uint64_t)r->tmp_states);
}

/* A per-parameter loop: copies of the largest tensor. Adafactor
 * (transformers optimization.py Adafactor.step) works in fp32: the update and
 * its replacement (_approx_sq_grad, then `-update`) for the largest
 * parameter, and for 16-bit parameters also `grad.float()` and `p.float()`
 * (16 B per element in all; the probe's p13, gpt2-medium bf16, measured 16 B
 * x the 51.5 M-element embedding). */
static uint64_t optimizer_step_loop_temp(const optim_row *r, uint64_t largest, int sb, llmmem__ovf *o)
{
    uint64_t eb = r->kind == ST_FACTORED ? 4 : (uint64_t)sb;
    uint64_t copies = (uint64_t)r->loop_copies + (r->kind == ST_FACTORED && sb < 4 ? 2 : 0);
    return llmmem__mul3(o, largest, eb, copies);
}

int llmmem__optim_compute(llmmem__optim_bytes *out, int optim, int impl, const llmmem__tensors *ts,
                          const llmmem__lora_shape *lora, int state_bytes, llmmem__ovf *o)
{
    if (optim < 0 || optim >= LLMMEM__OPT_COUNT)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "unknown optimizer %d", optim);
    const optim_row *r = &rows[optim];
    tally a = {0, 0, 0, 0, 0};
    if (lora)
        tally_adapters(&a, r, lora, state_bytes, o);
    else
        tally_model(&a, r, ts, state_bytes, o);
    out->state = llmmem__add(o, a.state, optimizer_scalar_state(r, impl, a.tensors, o));
    out->managed = a.managed; /* part of out->state */
    switch (step_temp_kind(r, impl)) {
    case TMP_ALL:
        out->transient = optimizer_step_foreach_temp(r, a.elems, state_bytes, o);
        break;
    case TMP_LARGEST:
        out->transient = optimizer_step_loop_temp(r, a.largest, state_bytes, o);
        break;
    default:
        out->transient = 0;
    }
    return LLMMEM_OK;
}

void llmmem__optim_engine_fused(struct llmmem__states *st, const struct llmmem_config *c)
{
    bool adam = c->optimizer == LLMMEM__OPT_ADAMW || c->optimizer == LLMMEM__OPT_ADAM;
    if (adam && c->optimizer_impl != LLMMEM__IMPL_FORLOOP)
        st->optim_transient = 0;
}
