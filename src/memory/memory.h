/* The byte model: model states, optimizers, what autograd saves, loss and
 * logits, vision towers, the caching allocator and the peak of a result. It
 * never names an engine or a file format. Not installed. */
#ifndef LLMMEM_MEMORY_MEMORY_H
#define LLMMEM_MEMORY_MEMORY_H

#include "config/config.h"
#include "core/result.h"
#include "model/model.h"

/* ---- layer kinds (kinds.c) ----------------------------------------------------
 * The decoder layers by (mixer, feed-forward, per-layer variant) and what the
 * byte model can estimate of them. */
typedef struct llmmem__kind {
    int mixer, ffn; /* enum llmmem__mixer, enum llmmem__ffn */
    int variant;    /* index in m->variants, -1 when the family has none */
    uint64_t n;     /* layers of this kind */
} llmmem__kind;
#define LLMMEM__MAX_KINDS 24
typedef struct llmmem__kinds {
    int n;
    bool overflow; /* more kinds than LLMMEM__MAX_KINDS */
    uint64_t L;
    llmmem__kind k[LLMMEM__MAX_KINDS];
} llmmem__kinds;
void llmmem__kinds_of(llmmem__kinds *ks, const struct llmmem_model *m);
/* Every layer softmax attention (full or sliding window) with a dense MLP or
 * experts, all of one shape, no family structure beyond that: the attention
 * byte model applies as it was derived. */
bool llmmem__kinds_classic(const struct llmmem_model *m);
/* The mixer's name for messages and --explain ("gated delta rule (linear_attention)"). */
const char *llmmem__kinds_mixer_name(const struct llmmem_model *m, int mixer);
enum llmmem__kinds_use { LLMMEM__USE_TRAIN = 0, LLMMEM__USE_HF, LLMMEM__USE_VLLM, LLMMEM__USE_MEGATRON };
/* LLMMEM_OK when every layer kind of the model is estimated for `use`, else
 * LLMMEM_E_UNSUPPORTED naming the model_type and the kind (c: the training
 * recipe, read for use TRAIN). */
int llmmem__kinds_check(const struct llmmem_model *m, const struct llmmem_config *c, int use);

/* Vision-language accounting (vision.c). Text-only models give zeros. */
typedef struct llmmem__vision_bytes {
    uint64_t lm_tokens;     /* image tokens added to each sequence */
    uint64_t patches;       /* tower tokens per sample (all images, frames) */
    uint64_t saved;         /* tower + projector tensors kept for backward, micro-batch */
    uint64_t transient;     /* the encoder's largest working set (forward) */
    int64_t trainable;      /* tower + projector parameters that train */
} llmmem__vision_bytes;
int llmmem__vision_compute(llmmem__vision_bytes *out, const struct llmmem_model *m,
                           const struct llmmem_config *c, uint64_t batch, llmmem__ovf *o);


/* Applies the config's calibration profile to a result's components before the
 * peak is taken (calib.c); no-op without a profile. */
void llmmem__calib_apply(struct llmmem_result *r, const struct llmmem_config *c);

/* The beginning of the note that says why the allocator replay did not run
 * (reserved.c); the result's replay_skip_note indexes it. */
#define LLMMEM__NO_REPLAY "peak_reserved from the rule of thumb: "

/* The model a result describes: its model_type, and whether it is approximate
 * (LLMMEM_R_APPROXIMATE, with a note saying why). */
void llmmem__result_model(struct llmmem_result *r, const struct llmmem_model *m);

/* Sums each phase, picks the peak phase, applies the allocator model, adds the
 * CUDA context and compares with the GPU: fills the peak/fits keys. */
int llmmem__result_finish(struct llmmem_result *r, const struct llmmem_config *c);
/* A run that does not start (vLLM refusing its budget) after llmmem__result_finish:
 * the total becomes the capacity plus `shortfall` (> 0), the bytes it lacks, so that
 * fits, utilization and headroom say "does not fit" as the numbers do. */
void llmmem__result_short(struct llmmem_result *r, uint64_t shortfall);

/* ---- caching allocator model (alloc.c) ----------------------------------- */

/* Bytes the allocator counts for a request (512-byte rounding). */
uint64_t llmmem__alloc_block(uint64_t request);
/* Reserved-bytes model from the allocated peak and the largest tensors. */
uint64_t llmmem__alloc_reserved(uint64_t peak_allocated, uint64_t largest_block,
                                bool checkpointing, bool expandable_segments);

/* ---- allocation timeline and allocator replay (replay.c, record.c) ------- */

/* Streams whose blocks the allocator keeps apart (a pool per stream). */
enum llmmem__stream { LLMMEM__ST_DEFAULT = 0, LLMMEM__ST_COMM = 1, LLMMEM__STREAMS = 4 };

/* PYTORCH_CUDA_ALLOC_CONF of the run and the memory its segments may take. */
typedef struct llmmem__alloc_conf {
    bool expandable;     /* expandable_segments:True */
    uint64_t max_split;  /* max_split_size_mb in bytes (0: unlimited) */
    double gc_threshold; /* garbage_collection_threshold (0: off) */
    uint64_t budget;     /* bytes of segments before a cudaMalloc fails (0: no limit) */
} llmmem__alloc_conf;

typedef struct llmmem__rp_block {
    uint64_t addr, size, req;
    int32_t prev, next; /* address neighbours in the segment; `next` chains spare slots */
    int32_t id;         /* tensor while allocated */
    int32_t up, lo, hi; /* in a free set: parent, children (a red-black tree by (size, addr)) */
    int64_t gc_base;    /* free-block searches when it was cached */
    uint8_t alloc, pool, stream, cat, mapped, exp, in_set, red;
    const char *what;   /* static label of the tensor */
} llmmem__rp_block;
typedef struct llmmem__rp_set { /* free blocks by (size, address) */
    int32_t root;  /* of the tree; -1: empty */
    int32_t n;     /* blocks in it */
    int32_t whole; /* of them, whole (unsplit) ordinary segments */
    int32_t exp;   /* of them, blocks of an expandable segment */
} llmmem__rp_set;
struct llmmem__tl;
typedef struct llmmem__replay {
    llmmem__alloc_conf conf;
    llmmem__rp_block *b;
    int32_t nb, capb, spare;
    int32_t *id2b;
    int32_t nid, capid;
    int32_t *scratch;
    int32_t capscratch;
    llmmem__rp_set free[2][LLMMEM__STREAMS]; /* [small, large][stream] */
    int32_t exp_head[2][LLMMEM__STREAMS];    /* first block of each expandable segment */
    uint64_t exp_base[2][LLMMEM__STREAMS];
    int64_t gc_calls[2];
    uint64_t next_addr;
    uint64_t reserved, allocated, peak_reserved, peak_allocated;
    uint64_t cat_bytes[LLMMEM__COMPONENTS];
    bool oom;   /* a segment did not fit the budget even after releasing the cache */
    bool nomem; /* the replay could not allocate its own bookkeeping */
    struct llmmem__tl *rec; /* NULL, or where every event is recorded */
} llmmem__replay;

void llmmem__rp_init(llmmem__replay *r, const llmmem__alloc_conf *conf);
void llmmem__rp_release(llmmem__replay *r);
/* Allocates `request` bytes of component `cat` on `stream`; returns the
 * tensor's id (negative when the replay ran out of its own memory). */
int32_t llmmem__rp_alloc(llmmem__replay *r, uint64_t request, int cat, int stream, const char *what);
void llmmem__rp_free(llmmem__replay *r, int32_t id);
void llmmem__rp_empty_cache(llmmem__replay *r);
/* A segment of `segment` bytes an earlier run left, holding a live block of
 * `request` bytes at its start (the autograd thread's cuBLAS workspace): its
 * id, or -1 (expandable segments, or a segment smaller than the block). */
int32_t llmmem__rp_prior_segment(llmmem__replay *r, uint64_t segment, uint64_t request, int cat, const char *what);
/* NULL, or the first rule of the replay's bookkeeping found broken (the free
 * sets' order, balance and counts, segment neighbours, merged free blocks,
 * the reserved and allocated sums): for tests; O(n^2) in the free blocks. */
const char *llmmem__rp_check(llmmem__replay *r);

/* A recorded timeline (record.c): every event with the allocator's state. */
enum llmmem__tl_op {
    LLMMEM__TL_ALLOC = 0, LLMMEM__TL_FREE, LLMMEM__TL_SEG_ALLOC, LLMMEM__TL_SEG_FREE,
    LLMMEM__TL_SEG_MAP, LLMMEM__TL_SEG_UNMAP, LLMMEM__TL_PHASE,
    LLMMEM__TL_MARK /* a point inside a phase (a layer, a decode step): `what`, index in `size` */
};
typedef struct llmmem__tl_event {
    uint64_t addr, size, req;
    uint64_t reserved; /* segment bytes after the event */
    const char *what;  /* static label (PHASE: the phase's name) */
    uint8_t op, cat, stream;
} llmmem__tl_event;
typedef struct llmmem__tl {
    llmmem__tl_event *ev;
    size_t n, cap;
    uint64_t capacity; /* the GPU's bytes for the allocator (budget) */
    bool nomem;
} llmmem__tl;
void llmmem__tl_alloc(struct llmmem__tl *t, const llmmem__replay *r, const llmmem__rp_block *b);
void llmmem__tl_free(struct llmmem__tl *t, const llmmem__replay *r, const llmmem__rp_block *b);
void llmmem__tl_segment(struct llmmem__tl *t, const llmmem__replay *r, int op, uint64_t addr, uint64_t bytes,
                        int stream);
void llmmem__tl_phase(struct llmmem__tl *t, const llmmem__replay *r, const char *name);
/* A mark inside a phase, for the chart's x axis: "layer" i (forward, or backward in the
 * backward phase), "head", "embedding", "decode step" i. */
void llmmem__tl_mark(struct llmmem__tl *t, const llmmem__replay *r, const char *what, uint64_t index);
void llmmem__tl_release(struct llmmem__tl *t);

/* The timeline of a training run over `layers` decoder layers, `steps`
 * optimizer steps of at most `micro` micro-steps each (0: the configured
 * gradient accumulation) (tl_train.c), replayed into rp; *act_prog: the
 * first layer's saved bytes the layer program made (before the estimator's
 * remainder). */
struct llmmem__train;
int llmmem__timeline_train(llmmem__replay *rp, const struct llmmem__train *t, const struct llmmem_model *m,
                           const struct llmmem_config *c, uint64_t layers, int steps, int micro, uint64_t *act_prog);

/* Bytes of the model states, shared by every engine (states.c). Engines shard
 * or offload these; they never recompute them. */
typedef struct llmmem__states {
    int64_t params;           /* all parameters */
    int64_t trainable;        /* parameters with gradients (adapters under LoRA) */
    uint64_t weights;         /* stored weights (frozen base, possibly quantised, + adapters) */
    uint64_t master;          /* separate fp32 masters of trainable params */
    uint64_t grads;           /* gradient bytes of trainable params */
    uint64_t optim;           /* optimizer state */
    uint64_t optim_transient; /* step temporaries (foreach copies etc.) */
    uint64_t managed;         /* optimizer state in CUDA managed memory (paged), not in optim */
    int weight_bytes;         /* bytes per trainable weight element */
    int grad_bytes;
    int state_bytes;          /* bytes per element of a full-size optimizer state */
} llmmem__states;

/* Everything the training model computes for one GPU holding the whole model,
 * before an engine shards it. Activation bytes are for one micro-batch. */
typedef struct llmmem__train {
    llmmem__states st;
    int64_t layers;
    uint64_t tokens;            /* micro_batch_size * seq_len */
    uint64_t act_layer;         /* saved by autograd per decoder layer (no checkpointing) */
    uint64_t act_layer_max;     /* the largest one layer's, where layer kinds differ (kinds.c);
                                   0: every layer keeps act_layer */
    uint64_t fwd_layer_transient; /* the largest working set inside one layer's forward beyond what
                                     it saves, where a mixer's is large (saved_kinds.c); a forward
                                     point of its own. 0: none */
    uint64_t ckpt_layer;        /* kept per layer under full checkpointing (its input) */
    uint64_t act_other;         /* final norm, head input, embedding-side tensors */
    uint64_t cast_layer;        /* autocast low-precision weight copies per layer */
    uint64_t cast_cached_layer; /* of cast_layer, what autocast's cache keeps (trainable weights) */
    uint64_t cast_other;        /* the same for the head */
    uint64_t fwd_transient;     /* largest working set inside one layer's forward */
    uint64_t logits_saved;      /* loss tensors kept after forward */
    uint64_t logits_fwd_extra;  /* extra at the loss in forward */
    uint64_t head_input_live;   /* the final hidden states, alive at the loss when not saved */
    uint64_t logits_bwd_extra;  /* extra at the start of backward */
    uint64_t layer_grad;        /* gradient bytes of one layer's trainable params */
    uint64_t other_grad;        /* gradient bytes of embedding, head, final norm */
    uint64_t bwd_transient;     /* gradient temporaries inside one layer's backward */
    uint64_t mlp_tail;          /* what one layer saves after its recompute point (the MLP's down
                                   projection; Falcon's math attention: all after the softmax) */
    uint64_t recompute_transient; /* a checkpointed layer's recompute point beyond saved tensors
                                     (LoRA gate/up, Falcon's math softmax; 0: none) */
    uint64_t embed_grad_extra;  /* end of backward: a tied embedding's lookup gradient */
    uint64_t quant_transient;   /* one dequantised weight (QLoRA) */
    uint64_t inputs;            /* input ids kept through the step */
    uint64_t vision_saved;      /* part of act_other kept by the vision tower */
    uint64_t encoder_transient; /* the vision encoder's forward working set */
    uint64_t workspace;         /* one cuBLAS workspace */
    bool checkpointing;         /* full recompute */
    /* training recipes (recipes.c) */
    uint64_t ckpt_live_fwd;     /* checkpoint inputs on the GPU at the end of forward (L unless offloaded) */
    uint64_t ckpt_live_bwd;     /* ... at most, during backward */
    uint64_t host_offload;      /* pinned host bytes of offloaded activations */
    bool optim_in_bwd;          /* per-parameter step in backward: gradients do not accumulate */
    uint64_t grad_inflight;     /* optim_in_bwd: one layer parameter's gradient at a time */
    uint64_t step_inflight;     /* optim_in_bwd: that parameter's step temporaries */
    uint64_t grad_inflight_end; /* optim_in_bwd: the embedding's gradient and step temporaries */
    uint64_t grad_held;         /* optim_in_bwd: a tied head's gradient held until the embedding's */
    uint64_t loss_grad_accum;   /* head weight gradient sum + newest chunk's, at a chunked loss's backward */
    uint64_t managed;           /* CUDA managed memory (paged optimizer state), outside the phases */
    uint64_t load_peak;         /* peak while loading and quantising the weights (QLoRA), 0 otherwise */
    const char *loss_explain[3]; /* the loss terms' formulas (loss.c); NULL: HF's */
} llmmem__train;

int llmmem__train_compute(llmmem__train *t, struct llmmem_result *r, const struct llmmem_model *m,
                          const struct llmmem_config *c);

/* ---- the terms of llmmem__train_compute ------------------------------------- */

/* The recipe of a run (recipe.c): the dtype of each class of tensor and the
 * switches that decide what each op keeps. */
typedef struct llmmem__recipe {
    uint64_t pdt;  /* configured parameter dtype bytes (the stored base weights) */
    uint64_t pb;   /* bytes of stored trainable weights (param dtype) */
    uint64_t cb;   /* compute (matmul output) bytes */
    uint64_t rb;   /* residual stream bytes: the param dtype (autocast) or cb */
    bool master;   /* separate fp32 master weights */
    bool amp;      /* torch.autocast: param dtype wider than compute dtype */
    bool lora;
    bool qlora;    /* LoRA over a quantised base */
    bool full_ft;  /* all base weights trainable */
    uint64_t ab;   /* LoRA adapter dtype bytes (peft casts adapters to fp32) */
    int64_t rank;
    double dropout_p;      /* residual / hidden dropout in training */
    double attn_dropout_p; /* attention-probability dropout */
    double lora_dropout;
    int attention;
    bool masked;   /* SDPA gets a materialised mask (sliding window shorter than s) */
    bool fp8;      /* Transformer Engine fp8 Linears */
    bool selective; /* Korthikanti et al. 2022 §5: the attention core is recomputed */
    bool liger;     /* Liger RMSNorm / SwiGLU kernels (saved.c) */
    bool norm_fp32; /* the RMSNorms multiply by their weight in fp32 and cast back */
} llmmem__recipe;
void llmmem__recipe_of(llmmem__recipe *rc, const struct llmmem_model *m, const struct llmmem_config *c);
/* Bytes of a configured dtype, or `fallback` for auto. */
uint64_t llmmem__recipe_bytes(int64_t dtype, uint64_t fallback);
/* Whether the config puts a LoRA adapter on the Linear named `name`. */
bool llmmem__recipe_lora_on(const struct llmmem_config *c, const char *name);

/* The model's Linear weights (states.c): what autocast casts and QLoRA quantises. */
typedef struct llmmem__linears {
    uint64_t params;  /* elements of all Linear weights (biases aside) */
    uint64_t largest; /* elements of the largest one */
} llmmem__linears;
void llmmem__states_linears(llmmem__linears *lin, const llmmem__tensors *ts, llmmem__ovf *o);

/* What the training terms read; llmmem__train_compute builds it once. */
typedef struct llmmem__train_in {
    const struct llmmem_model *m;
    const struct llmmem_config *c;
    llmmem__recipe rc;
    const llmmem__tensors *ts; /* the model's parameter tensors */
    llmmem__linears lin;
    llmmem__vision_bytes vb;   /* the vision tower (zeros for text-only models) */
    uint64_t s;                /* sequence with image tokens */
    uint64_t T;                /* tokens per micro-batch */
    uint64_t qlin;             /* QLoRA: elements of the quantised Linear weights */
    uint64_t qlin_largest;     /* QLoRA: elements of the largest of them */
    bool classic;              /* llmmem__kinds_classic(m), asked once */
} llmmem__train_in;

/* Weights, masters, gradients, optimizer state; per-layer and embedding
 * gradients (states.c). Fails on LoRA targets that match nothing. */
int llmmem__states_compute(llmmem__train *t, struct llmmem_result *r, const llmmem__train_in *in,
                           llmmem__ovf *o);
/* Saved bytes per token of one decoder layer, averaged over the model's layer
 * kinds (sliding-window/full, dense/MoE) (saved.c). */
uint64_t llmmem__saved_per_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                                 const llmmem__recipe *rc, uint64_t s, llmmem__ovf *o);
/* Per token: the final norm, the head's input and the embedding dropout
 * mask; *head_b receives the head input's dtype bytes (saved.c). */
uint64_t llmmem__saved_head(const struct llmmem_model *m, const struct llmmem_config *c,
                            const llmmem__recipe *rc, uint64_t *head_b);
/* The sliding-window bool mask SDPA keeps (0 when no layer gets one) (saved.c). */
uint64_t llmmem__saved_window_mask(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t s,
                                   llmmem__ovf *o);
/* Eager's causal mask (b, 1, s, s) in the compute dtype (saved.c). */
uint64_t llmmem__saved_eager_mask(const struct llmmem_config *c, const llmmem__recipe *rc, uint64_t s,
                                  llmmem__ovf *o);
/* Per token: what a frozen down projection's LoRA keeps of its input (saved.c). */
uint64_t llmmem__saved_mlp_down_frozen(const struct llmmem_model *m, const struct llmmem_config *c,
                                       const llmmem__recipe *rc);
/* Whether the model has MoE layers (their experts are saved per token by saved.c). */
bool llmmem__saved_has_moe(const struct llmmem_model *m);
/* Whether Falcon's SDPA call runs torch's math backend (fp32 upcast), and per
 * token what one such layer saves after its softmax (saved.c). */
bool llmmem__saved_falcon_math(const struct llmmem_model *m, const llmmem__recipe *rc);
uint64_t llmmem__saved_falcon_after_softmax(const struct llmmem_model *m, const struct llmmem_config *c,
                                            const llmmem__recipe *rc);
/* For the other layer kinds (saved.c, per token): what the Linears reading a
 * w-wide activation of in_b bytes keep (`all` readers, of which `trainable`
 * have trainable weights and `lora` adapters); an input norm of width w; the
 * attention half of a layer (its input norm, q/k/v, the core, the sublayer
 * tail; sliding: a windowed layer, masked when the window is shorter than s);
 * the feed-forward half of kind `ffn` (its norm, the MLP or the experts). */
uint64_t llmmem__saved_readers(const llmmem__recipe *rc, uint64_t in_b, uint64_t w, int all, int trainable,
                               int lora);
uint64_t llmmem__saved_norm_only(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t w);
uint64_t llmmem__saved_attention_part(const struct llmmem_model *m, const struct llmmem_config *c,
                                      const llmmem__recipe *rc, uint64_t s, bool sliding);
uint64_t llmmem__saved_ffn_part(const struct llmmem_model *m, const struct llmmem_config *c,
                                const llmmem__recipe *rc, int ffn);
/* Saved bytes of one decoder layer of `kind` over b sequences of s tokens
 * (saved_kinds.c), and of every layer (*largest: the largest one layer). */
uint64_t llmmem__saved_kind_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                                  const llmmem__recipe *rc, const llmmem__kind *kind, uint64_t b, uint64_t s,
                                  llmmem__ovf *o);
uint64_t llmmem__saved_kinds_all(const struct llmmem_model *m, const struct llmmem_config *c,
                                 const llmmem__recipe *rc, uint64_t b, uint64_t s, uint64_t *largest,
                                 llmmem__ovf *o);
/* The largest working sets of a non-attention layer in training
 * (saved_kinds.c): in forward beyond what it saves, in a checkpointed
 * forward, in backward. */
void llmmem__saved_kinds_transients(const struct llmmem_model *m, const llmmem__recipe *rc, uint64_t b,
                                    uint64_t s, uint64_t *fwd, uint64_t *ckpt, uint64_t *bwd, llmmem__ovf *o);
/* The residual stream's dtype bytes (fp32 where the family keeps it so). */
uint64_t llmmem__saved_kinds_residual_bytes(const struct llmmem_model *m, const llmmem__recipe *rc);
/* One --explain term per layer kind with the layers of each (inputs). */
void llmmem__saved_kinds_explain(struct llmmem_result *r, const struct llmmem_model *m,
                                 const struct llmmem_config *c, const llmmem__recipe *rc, uint64_t b,
                                 uint64_t s, llmmem__ovf *o);
/* Autocast / fp8 weight copies and the dequantised QLoRA weight (casts.c). */
void llmmem__casts_compute(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o);
/* logits_saved, logits_fwd_extra, logits_bwd_extra of the configured loss (loss.c). */
void llmmem__loss_compute(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o);
/* fwd_transient, bwd_transient, recompute_transient and mlp_tail (transient.c). */
void llmmem__transient_compute(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o);

/* ---- framework model code, torch.compile and the training recipes ---------
 * (frameworks.c, compile.c, recipes.c) */
/* Whether activation_profile names a framework's own model code (torchtune, litgpt). */
bool llmmem__frameworks_own(const struct llmmem_config *c);
/* Refuses what the framework profile does not model (families, autocast, eager attention). */
int llmmem__frameworks_check(const struct llmmem_model *m, const struct llmmem_config *c,
                             const llmmem__recipe *rc);
/* Saved bytes per token of one decoder layer in the framework's module code (eager). */
uint64_t llmmem__frameworks_saved_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                                        const llmmem__recipe *rc);
/* The Linears QLoRA quantises under the profile: *n their elements, *largest the largest. */
void llmmem__frameworks_qlora_linears(uint64_t *n, uint64_t *largest, const llmmem__train_in *in,
                                      llmmem__ovf *o);
/* Refuses compile settings the partitioner model does not cover. */
int llmmem__compile_check(const struct llmmem_model *m, const struct llmmem_config *c, const llmmem__recipe *rc);
/* Per token: what the min-cut partitioner saves for one compiled decoder layer. */
uint64_t llmmem__compile_saved_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                                     const llmmem__recipe *rc);
/* Per token: the compiled final norm (compile model). */
uint64_t llmmem__compile_saved_head(const struct llmmem_model *m, const struct llmmem_config *c,
                                    const llmmem__recipe *rc);
/* Contradictions between recipe switches (offloading without checkpointing,
 * optimizer in backward with accumulation) and with the engine's capabilities
 * caps (enum llmmem__caps) (recipes.c). */
int llmmem__recipes_check(const struct llmmem_model *m, const struct llmmem_config *c, unsigned caps);
/* Offloading residency, optimizer in backward, paged state, load peak (recipes.c). */
void llmmem__recipes_compute(llmmem__train *t, struct llmmem_result *r, const llmmem__train_in *in,
                             llmmem__ovf *o);

/* Per token: what op-level selective checkpointing keeps of one layer (recipes.c). */
uint64_t llmmem__recipes_sac_layer(const struct llmmem_model *m, const llmmem__recipe *rc);
/* The recipe terms of --explain (recipes.c). */
void llmmem__recipes_explain(struct llmmem_result *r, const llmmem__train *t, const struct llmmem_config *c);

/* The allocator settings and budget of a configuration (reserved.c). */
void llmmem__alloc_conf_of(llmmem__alloc_conf *conf, const struct llmmem_config *c);
/* Replays the training run's allocations (tl_train.c) through the caching
 * allocator and keeps its peaks in the result (reserved.c). */
int llmmem__reserved_train(struct llmmem_result *r, const llmmem__train *t, const struct llmmem_model *m,
                           const struct llmmem_config *c);

/* Extra bytes an engine adds per phase (buffers, gathered parameters). bwd
 * is added at every point of the backward; bwd_start only at its start (the
 * loss gradients), bwd_layer only inside the decoder layers (and the LoRA
 * recompute point); with end_point set, one more candidate is the end of
 * backward: the layers' gradients (layer_grad x L + other_grad) + bwd +
 * bwd_end (FSDP's root reduce-scatter, before the root's own shard exists). */
typedef struct llmmem__engine_extra {
    uint64_t fwd[LLMMEM__COMPONENTS], bwd[LLMMEM__COMPONENTS], opt[LLMMEM__COMPONENTS];
    uint64_t bwd_start[LLMMEM__COMPONENTS], bwd_layer[LLMMEM__COMPONENTS];
    uint64_t bwd_end[LLMMEM__COMPONENTS];
    bool end_point;
} llmmem__engine_extra;
/* Fills a result's phases from a (possibly sharded) training model (phases.c). */
int llmmem__train_fill(struct llmmem_result *r, const llmmem__train *t,
                       const llmmem__engine_extra *extra, const struct llmmem_model *m,
                       const struct llmmem_config *c);

/* Optimizer catalogue (optimizers.c). */
typedef struct llmmem__lora_shape {
    int n;               /* adapted module kinds */
    int64_t rank;
    int64_t in[LLMMEM__MAX_TENSORS], out[LLMMEM__MAX_TENSORS], count[LLMMEM__MAX_TENSORS];
} llmmem__lora_shape;
typedef struct llmmem__optim_bytes {
    uint64_t state;     /* persistent state bytes */
    uint64_t managed;   /* of which in CUDA managed memory (paged optimizers) */
    uint64_t transient; /* extra bytes at the peak of step() */
} llmmem__optim_bytes;
/* State and step temporaries of optimizer `optim` over the model's tensors, or
 * over the LoRA adapters when lora != NULL. state_bytes: bytes per element of a
 * full-size state (the param or master dtype). */
int llmmem__optim_compute(llmmem__optim_bytes *out, int optim, int impl, const llmmem__tensors *ts,
                          const llmmem__lora_shape *lora, int state_bytes, llmmem__ovf *o);
const char *llmmem__optim_source(int optim);
/* DeepSpeed and Megatron build their own fused Adam for adam/adamw
 * (deepspeed/runtime/engine.py _configure_basic_optimizer: FusedAdam unless
 * torch_adam; megatron/core/optimizer: apex/TE FusedAdam): multi-tensor
 * kernels that update in place, so the torch foreach copy does not exist.
 * Clears st->optim_transient in that case. */
void llmmem__optim_engine_fused(struct llmmem__states *st, const struct llmmem_config *c);
bool llmmem__optim_paged(int optim);
/* The dtype an optimizer keeps its state in whatever optimizer_state_dtype says, as a
 * value of the dtype result keys (LLMMEM__RDT_INT8 for bitsandbytes/torchao 8-bit,
 * LLMMEM__RDT_INT4 for torchao 4-bit, fp32 for bitsandbytes 32-bit); 0 = the configured one. */
int64_t llmmem__optim_state_rdt(int optim);

/* ---- inference: weights, KV cache, HF prefill and decode ------------------
 * (weights.c, kv.c, prefill.c, decode.c; the runtimes compose them in
 * engines/infer_hf.c and engines/vllm.c) */

/* Bytes memory_allocated counts for a tensor of n bytes: every allocation is
 * rounded up to 512 bytes (pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp
 * kMinBlockSize), no tensor counts 0. */
static inline uint64_t llmmem__alloc_tensor(llmmem__ovf *o, uint64_t n)
{
    return n ? llmmem__round_up(o, n, 512) : 0;
}
/* A count of the model or the config as unsigned; negatives (unset) as 0. */
static inline uint64_t llmmem__nonneg(int64_t v) { return v > 0 ? (uint64_t)v : 0; }

/* The storage format that applies (enum llmmem__quant): the parameter, else the
 * model's quantization_config, else param_dtype, else torch_dtype (weights.c). */
int llmmem__weights_format(const struct llmmem_model *m, const struct llmmem_config *c);
/* Bytes per element of activations and of the tensors a format leaves unquantized. */
uint64_t llmmem__weights_act_bytes(int fmt, const struct llmmem_model *m,
                                   const struct llmmem_config *c);
/* Weight bytes of the whole model stored in `fmt` (before tensor parallelism);
 * e: bytes of the unquantized tensors, bits/group: GPTQ/AWQ/int4 packing. */
uint64_t llmmem__weights_bytes(llmmem__ovf *o, const struct llmmem_model *m, int fmt, uint64_t e,
                               uint64_t bits, uint64_t group);
/* The formula string of the `weights` term of format `fmt`. */
const char *llmmem__weights_formula(int fmt);

/* Layer kinds by what their cache keeps (kv.c). A new kind (chunked
 * attention, a recurrent state) is one value here and one case in
 * llmmem__kv_layer_tokens / llmmem__kv_layer_state. */
enum llmmem__kv_kind { LLMMEM__KV_FULL = 0, LLMMEM__KV_SLIDING, LLMMEM__KV_KINDS };
typedef struct llmmem__kv_layers {
    uint64_t n[LLMMEM__KV_KINDS]; /* attention layers of each kind (the decoder layers that keep K and V) */
    uint64_t window;              /* sliding_window (tokens), 0 without one */
    uint64_t state;               /* the fixed-size states (conv, recurrent) of the other layers over the
                                     batch (state.c); 0 for a model of attention layers only */
} llmmem__kv_layers;
/* The model's L decoder layers by kind. */
void llmmem__kv_layers_of(llmmem__kv_layers *l, const struct llmmem_model *m, uint64_t L);
/* Bytes of K and V per token per layer on one GPU (k_r KV heads per rank);
 * the per-token width of each attention kind (MHA/GQA, MLA) lives here. */
uint64_t llmmem__kv_token_layer(llmmem__ovf *o, const struct llmmem_model *m, uint64_t kvb,
                                uint64_t k_r);
/* The larger of the K and V parts of llmmem__kv_token_layer (each is
 * concatenated on its own at a decode update). */
uint64_t llmmem__kv_part_token_layer(llmmem__ovf *o, const struct llmmem_model *m, uint64_t kvb,
                                     uint64_t k_r);
/* Tokens one layer of `kind` stores after decode step `step` of an S-token
 * prompt (step 0: after prefill). */
uint64_t llmmem__kv_layer_tokens(const llmmem__kv_layers *l, int kind, uint64_t S, uint64_t step);
/* Bytes one layer of `kind` keeps beside its tokens. */
uint64_t llmmem__kv_layer_state(int kind);
/* Cache bytes of every layer after step `step`; tok: bytes per token of one layer
 * over the batch. Beside them, llmmem__kv_state_all. */
uint64_t llmmem__kv_bytes_at(llmmem__ovf *o, const llmmem__kv_layers *l, uint64_t S, uint64_t step,
                             uint64_t tok);
/* llmmem__kv_layer_state summed over the layers. */
uint64_t llmmem__kv_state_all(llmmem__ovf *o, const llmmem__kv_layers *l);
/* The most tokens any one layer stores after step `step`. */
uint64_t llmmem__kv_layer_tokens_max(const llmmem__kv_layers *l, uint64_t S, uint64_t step);

/* One candidate point of an inference peak, split by component. */
typedef struct llmmem__point {
    uint64_t kv, act, logits, other;
} llmmem__point;
/* Keeps in *best the larger of *best and *p by total; the earlier on a tie (prefill.c). */
void llmmem__point_keep_max(llmmem__ovf *o, llmmem__point *best, const llmmem__point *p);

/* One HF generate call on one GPU (prefill.c, decode.c): shapes after tensor
 * parallelism, then what the phases find. */
typedef struct llmmem__infer {
    uint64_t B, S, N, T, e, h, L, a, k, d, f, V; /* batch, prompt, decode steps, B*S, ... */
    uint64_t tp;          /* tensor-parallel ranks (the shapes above are one rank's) */
    uint64_t kv_tl;       /* KV bytes per token per layer */
    uint64_t kv_part_tl;  /* the larger of its K and V parts (each is concatenated on its own) */
    llmmem__kv_layers layers;
    bool half;            /* fp16 activations (fused half_to_float softmax) */
    bool eager;           /* eager attention (else SDPA) */
    bool repeat_kv;       /* GQA through repeat_kv when no enable_gqa (not Falcon) */
    bool math_gqa;        /* fp32 SDPA with enable_gqa: the math backend */
    bool classic;         /* llmmem__kinds_classic(m), asked once */
    /* results */
    llmmem__point prefill, decode;
    uint64_t kv_after;    /* KV storage after decode (what stays) */
    uint64_t largest;     /* the largest transient block */
    uint64_t largest_mixer; /* the largest working set of a non-attention mixer (state.c), 0: none */
} llmmem__infer;
/* Prefill peak of one forward over B x S tokens (prefill.c); ws: cuBLAS workspace. */
void llmmem__prefill_peak(llmmem__ovf *o, llmmem__infer *x, const struct llmmem_model *m,
                          uint64_t ws);
/* What every prefill term reads (prefill.c computes it once per forward). */
typedef struct llmmem__prefill {
    const llmmem__infer *x;
    const struct llmmem_model *m;
    int fam;            /* m->family */
    bool rope;          /* RoPE (not GPT-2/OPT's learned positions) */
    bool partial;       /* partial rotary */
    bool two_kinds;     /* sliding and full layers */
    bool sdpa_mask;     /* SDPA builds a mask (a window not larger than the prompt) */
    uint64_t Th, Q, K;  /* one hidden-state tensor, q and k of the layer */
    uint64_t SS;        /* S*S */
    uint64_t rot;       /* the roped width of q and k */
} llmmem__prefill;
/* A float [B,1,S,S] mask in the activation dtype (prefill_attn.c). */
uint64_t llmmem__prefill_float_mask(llmmem__ovf *o, const llmmem__prefill *p);
/* The attention kernel point beyond the residual stream and the normed input;
 * raises *largest to its largest block (prefill_attn.c). */
uint64_t llmmem__prefill_attention(llmmem__ovf *o, const llmmem__prefill *p, uint64_t *largest);
/* Attention probabilities the layer keeps after the call (prefill_attn.c). */
uint64_t llmmem__prefill_held_probs(llmmem__ovf *o, const llmmem__prefill *p);
/* The MLP's candidate working sets beyond what stays live, in order: dense MLP,
 * routed experts, shared experts (those the model has); returns how many and
 * raises *largest (prefill_mlp.c). */
#define LLMMEM__PREFILL_MLP_POINTS 3
int llmmem__prefill_mlp(llmmem__ovf *o, const llmmem__prefill *p,
                        uint64_t act[LLMMEM__PREFILL_MLP_POINTS], uint64_t *largest);
/* The cuBLASLt workspace a model with a biased Linear holds from its first
 * matmul on (prefill.c; the decode steps hold it too). */
uint64_t llmmem__prefill_cublaslt_workspace(const struct llmmem_model *m);
/* Logits of the last position, [B, 1, V] in the activation dtype (prefill.c). */
uint64_t llmmem__prefill_logits_last(llmmem__ovf *o, const llmmem__infer *x);
/* Layers other than softmax attention in HF generation (state.c): the state
 * of one layer of `mixer` over B sequences (channels split over tp), the
 * attention layers by kind with every other layer's state (for a model
 * that is not llmmem__kinds_classic), and the working set of one layer's
 * mixer in a prefill of B x S tokens and in a decode step, beyond its input. */
uint64_t llmmem__state_layer(llmmem__ovf *o, const struct llmmem_model *m, int mixer, uint64_t B, uint64_t e,
                             uint64_t tp);
void llmmem__state_kv_layers(llmmem__kv_layers *l, llmmem__ovf *o, const struct llmmem_model *m, uint64_t B,
                             uint64_t e, uint64_t tp);
uint64_t llmmem__state_prefill_ws(llmmem__ovf *o, const struct llmmem_model *m, int mixer, uint64_t B, uint64_t S,
                                  uint64_t e, uint64_t tp);
uint64_t llmmem__state_decode_ws(llmmem__ovf *o, const struct llmmem_model *m, int mixer, uint64_t B, uint64_t e,
                                 uint64_t tp);
/* The timeline of one generate call over `layers` decoder layers
 * (tl_infer.c), replayed into r; lt_ws: the cuBLASLt workspace of the first
 * biased matmul (0: none); prior: a segment an earlier run left around the
 * autograd thread's workspace (0: a fresh process). */
int llmmem__timeline_infer(llmmem__replay *r, const llmmem__infer *x, const struct llmmem_model *m,
                           uint64_t weights, uint64_t ws, uint64_t lt_ws, uint64_t prior, uint64_t layers);
/* The replay of a generate call's timeline into the result (reserved.c). */
int llmmem__reserved_infer(struct llmmem_result *r, const llmmem__infer *x, const struct llmmem_model *m,
                           const struct llmmem_config *c, uint64_t weights, uint64_t ws);
/* Decode peak over steps 1..N and the KV that stays (decode.c). */
void llmmem__decode_peak(llmmem__ovf *o, llmmem__infer *x, const struct llmmem_model *m,
                         uint64_t ws);

#endif /* LLMMEM_MEMORY_MEMORY_H */
