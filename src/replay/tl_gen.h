/* What the timeline generators share (tl_*.c): the tensors of a replay with
 * their reference counts (a tensor is freed when its last Python reference
 * and its last autograd holder drop it), the shapes of the run and the
 * parameter tensors in model.parameters() order. Private to src/memory/. */
#ifndef LLMMEM_MEMORY_TL_GEN_H
#define LLMMEM_MEMORY_TL_GEN_H

#include "replay/replay.h"

/* One parameter tensor of one layer, in model.parameters() order. */
typedef struct tl_param {
    const char *name; /* module name (static) */
    int kind;         /* enum llmmem__tkind */
    bool linear;      /* an nn.Linear weight */
    bool adapter;     /* a LoRA lora_A / lora_B weight */
    uint64_t rows, cols, n; /* shape and elements */
    int64_t layer;   /* -1 outside the decoder layers */
    bool trains;
    int32_t grad;    /* .grad while it exists */
    int32_t st[2];   /* optimizer state tensors */
} tl_param;

typedef struct tl_gen {
    llmmem__replay *rp;
    int32_t *ref;
    int32_t capref;
    const struct llmmem_model *m;
    const struct llmmem_config *c;
    const llmmem__train *t;
    llmmem__recipe rc;
    /* shapes */
    uint64_t T, B, S, h, L, a, k, d, q, kv, f, V;
    uint64_t rb, cb, pb, gb, sb; /* residual, compute, parameter, gradient, state bytes */
    bool amp, ckpt, eager, gqa_expand, rope;
    bool saving;   /* autograd keeps what ops save (off in a checkpointed forward) */
    bool first_bwd; /* the autograd thread has no cuBLAS workspace yet */
    /* parameters */
    tl_param *p;
    int np, cap_p;
    int first_layer_param, after_layer_param; /* [first, after) are the layers' */
    int per_layer;   /* parameter tensors of one decoder layer */
    int32_t inputs;  /* the input ids */
    int32_t cos_sin[2];
    int32_t mask;    /* eager's float causal mask */
    int32_t *cache;  /* autocast's cached weight casts */
    int32_t ncache, capcache;
    uint64_t act_target; /* saved bytes per layer the estimator counts */
    uint64_t act_prog;   /* what the layer program saved (first layer) */
} tl_gen;

int32_t llmmem__tl_new(tl_gen *g, uint64_t bytes, int cat, const char *what);
void llmmem__tl_hold(tl_gen *g, int32_t id);
void llmmem__tl_drop(tl_gen *g, int32_t id);
/* The bytes the replay counts for a tensor (0 for none). */
uint64_t llmmem__tl_bytes(const tl_gen *g, int32_t id);
/* Keeps `id` for backward when autograd saves (returns it, or -1 when not). */
int32_t llmmem__tl_save(tl_gen *g, int32_t id);
/* Tensors one autograd node (or a group of them) keeps, released together. */
#define TL_MAXSV 64
typedef struct tl_kept {
    int32_t v[TL_MAXSV];
    int n;
} tl_kept;
void llmmem__tl_keep(tl_gen *g, tl_kept *k, int32_t id);
void llmmem__tl_unkeep(tl_gen *g, tl_kept *k);
/* Adds a gradient into a buffer: the first becomes it, later ones are
 * added in place (InputBuffer::accumulate) and freed. */
void llmmem__tl_acc(tl_gen *g, int32_t *buf, int32_t grad);
/* A weight's gradient as its matmul computes it (in the compute dtype when
 * `cast`: autocast cast the weight; -1 for a frozen or absent parameter), and
 * the nodes after it: the cast's ToCopyBackward to the parameter dtype, then
 * AccumulateGrad (kept as .grad, or added in place). */
int32_t llmmem__tl_weight_grad_mm(tl_gen *g, tl_param *p, bool cast);
void llmmem__tl_weight_grad_done(tl_gen *g, tl_param *p, int32_t grad, bool cast);
/* Hands a trainable weight's autocast cast to autocast's cache (released
 * when the forward's autocast region ends: llmmem__tl_cache_clear). */
void llmmem__tl_cache(tl_gen *g, int32_t id);
void llmmem__tl_cache_clear(tl_gen *g);
/* The first matmul on the autograd thread creates its cuBLAS workspace. */
void llmmem__tl_bwd_matmul(tl_gen *g);

/* The layer programs (tl_layer.c). A norm of the model's kind over an
 * `xb`-byte input: returns the output, *ob its dtype bytes; its backward adds
 * the input's gradient into *dx. */
int32_t llmmem__tl_norm_fwd(tl_gen *g, tl_kept *k, const tl_param *w, int32_t x, uint64_t xb, uint64_t *ob);
void llmmem__tl_norm_bwd(tl_gen *g, tl_kept *k, tl_param *w, int32_t dout, uint64_t xb, int32_t *dx);
typedef struct tl_layer tl_layer;
size_t llmmem__tl_layer_size(void);
/* Forward through layer `i` from the residual *x (replaced by the output). */
void llmmem__tl_layer_fwd(tl_gen *g, tl_layer *y, int64_t i, int32_t *x, bool recompute);
/* The checkpoint's hold on the layer input (released by the backward). */
void llmmem__tl_layer_set_input(tl_layer *y, int32_t x);
int32_t llmmem__tl_layer_input(const tl_layer *y);
/* The ends of the model (tl_head.c): the embedding (and what the layers
 * share: RoPE's cos/sin, eager's mask), the final norm, head and loss (k:
 * three kept lists), their backward, the embedding's gradient. */
int32_t llmmem__tl_embed_fwd(tl_gen *g);
void llmmem__tl_head_fwd(tl_gen *g, tl_kept *k, int32_t x, int32_t *logits);
int32_t llmmem__tl_head_bwd(tl_gen *g, tl_kept *k);
void llmmem__tl_embed_bwd(tl_gen *g, int32_t dx);
/* Backward through layer `i`: *dx (the output's gradient) becomes the
 * input's. */
void llmmem__tl_layer_bwd(tl_gen *g, tl_layer *y, int64_t i, int32_t *dx);

#endif /* LLMMEM_MEMORY_TL_GEN_H */
