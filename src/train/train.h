/* The training byte model for one GPU holding the whole model (train.c and
 * its terms: states.c, optimizers.c, saved.c, saved_kinds.c, casts.c,
 * loss.c, transient.c, frameworks.c, compile.c, recipes.c) and the phases of
 * a result built from it (phases.c). Engines shard what it computes; they
 * never recompute it. It never names an engine or a file format. Not
 * installed. */
#ifndef LLMMEM_TRAIN_TRAIN_H
#define LLMMEM_TRAIN_TRAIN_H

#include "memory/kinds.h"
#include "memory/peak.h"
#include "memory/run.h"
#include "memory/vision.h"

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
    uint64_t B;                 /* sequences of a micro-batch (run->B): the replay's */
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
    uint64_t scores_transient;  /* eager attention's softmax backward beyond the layer's tensors
                                   before the softmax (transient.c; 0: no such point) */
    uint64_t scores_grads_later; /* gradients not made yet there: the layer's q/k/v, an untied
                                    embedding's */
    uint64_t quant_transient;   /* one dequantised weight (QLoRA) */
    uint64_t inputs;            /* input ids kept through the step */
    uint64_t vision_saved;      /* part of act_other kept by the vision tower */
    uint64_t encoder_transient; /* the vision encoder's forward working set */
    uint64_t workspace;         /* one cuBLAS workspace */
    bool checkpointing;         /* full recompute */
    /* training recipes (recipes.c) */
    uint64_t ckpt_live_fwd;     /* checkpoint inputs on the GPU at the end of forward (L unless offloaded) */
    uint64_t ckpt_live_bwd;     /* ... at most, during backward */
    uint64_t host_offload;      /* host bytes of offloaded activations (as requested) */
    uint64_t host_pinned;       /* ... in torch's pinned blocks (each a power of two) */
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

/* The training model of the run (its applied configuration, its capabilities:
 * run.h) on one GPU; the result gets the terms' explanation. */
int llmmem__train_compute(llmmem__train *t, struct llmmem_result *r, const llmmem__run *run);

/* The model's Linear weights (states.c): what autocast casts and QLoRA quantises. */
typedef struct llmmem__linears {
    uint64_t params;  /* elements of all Linear weights (biases aside) */
    uint64_t largest; /* elements of the largest one */
} llmmem__linears;
void llmmem__states_linears(llmmem__linears *lin, const llmmem__tensors *ts, llmmem__ovf *o);

/* What the training terms read; llmmem__train_compute builds it once. */
typedef struct llmmem__train_in {
    const llmmem__run *run;    /* the resolved run (memory/run.h) */
    const struct llmmem_model *m;
    const struct llmmem_config *c;
    llmmem__recipe rc;
    const llmmem__tensors *ts; /* the model's parameter tensors */
    llmmem__linears lin;
    llmmem__vision_bytes vb;   /* the vision tower (zeros for text-only models) */
    uint64_t B;                /* sequences of a micro-batch (run->B) */
    uint64_t s;                /* sequence with image tokens */
    uint64_t T;                /* tokens per micro-batch */
    uint64_t qlin;             /* QLoRA: elements of the quantised Linear weights */
    uint64_t qlin_largest;     /* QLoRA: elements of the largest of them */
    uint64_t qlin_largest_io;  /* ... its in + out features */
    uint64_t qcb;              /* QLoRA (bitsandbytes 4-bit): compute dtype bytes */
    bool qhead;                /* QLoRA: the output head is quantised too */
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
uint64_t llmmem__saved_eager_mask(uint64_t B, const llmmem__recipe *rc, uint64_t s, llmmem__ovf *o);
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
/* Refuses what the framework profile does not model (families, autocast, eager attention);
 * S: the run's sequence (run->S). */
int llmmem__frameworks_check(const struct llmmem_model *m, const struct llmmem_config *c,
                             const llmmem__recipe *rc, uint64_t S);
/* Saved bytes per token of one decoder layer in the framework's module code (eager). */
uint64_t llmmem__frameworks_saved_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                                        const llmmem__recipe *rc);
/* The Linears QLoRA quantises under the profile and qlora_quantize_head (in->qlin,
 * in->qlin_largest, in->qlin_largest_io, in->qhead) and the 4-bit compute dtype (in->qcb). */
void llmmem__frameworks_qlora_linears(llmmem__train_in *in, llmmem__ovf *o);
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
/* Fills a result's phases, keys and terms from a (possibly sharded) training
 * model (phases.c); the caller replays the allocator when it draws the run
 * (replay/) and finishes the result (llmmem__result_finish). */
int llmmem__train_fill(struct llmmem_result *r, const llmmem__train *t,
                       const llmmem__engine_extra *extra, const struct llmmem_model *m,
                       const struct llmmem_config *c);
/* The peak llmmem__result_finish would find in the rows llmmem__train_fill
 * makes (the largest phase total, or the weights' load peak above it), as a
 * number, without a result: false when a sum overflows (then the caller
 * makes the whole result, which says so). Calibration is not applied. */
bool llmmem__train_peak(uint64_t *peak, const llmmem__train *t, const llmmem__engine_extra *extra,
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
/* A bitsandbytes optimizer (its 8-bit or paged rows of config/optimizers.def):
 * a client optimizer to DeepSpeed, stepped by bitsandbytes' own kernels. */
bool llmmem__optim_bnb(int optim);
/* State tensors per parameter (torch.optim _init_group), and whether the
 * foreach implementation makes one list of temporaries over every parameter
 * (_multi_tensor_*): the catalogue's (config/optimizers.def). */
int llmmem__optim_states(int optim);
bool llmmem__optim_foreach_all(int optim);
/* The dtype an optimizer keeps its state in whatever optimizer_state_dtype says, as a
 * value of the dtype result keys (LLMMEM__RDT_INT8 for bitsandbytes/torchao 8-bit,
 * LLMMEM__RDT_INT4 for torchao 4-bit, fp32 for bitsandbytes 32-bit); 0 = the configured one. */
int64_t llmmem__optim_state_rdt(int optim);

#endif /* LLMMEM_TRAIN_TRAIN_H */
