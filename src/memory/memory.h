/* The byte model: model states, optimizers, what autograd saves, loss and
 * logits, vision towers, the caching allocator and the peak of a result. It
 * never names an engine or a file format. Not installed. */
#ifndef LLMMEM_MEMORY_MEMORY_H
#define LLMMEM_MEMORY_MEMORY_H

#include "config/config.h"
#include "core/result.h"
#include "model/model.h"

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

/* Sums each phase, picks the peak phase, applies the allocator model, adds the
 * CUDA context and compares with the GPU: fills the peak/fits keys. */
int llmmem__result_finish(struct llmmem_result *r, const struct llmmem_config *c);

/* ---- caching allocator model (alloc.c) ----------------------------------- */

/* Bytes the allocator counts for a request (512-byte rounding). */
uint64_t llmmem__alloc_block(uint64_t request);
/* Reserved-bytes model from the allocated peak and the largest tensors. */
uint64_t llmmem__alloc_reserved(uint64_t peak_allocated, uint64_t largest_block,
                                bool checkpointing, bool expandable_segments);

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
    uint64_t mlp_tail;          /* what the MLP's down projection keeps (one layer) */
    uint64_t recompute_transient; /* LoRA gate/up recompute point beyond saved tensors (0: none) */
    uint64_t embed_grad_extra;  /* end of backward: a tied embedding's lookup gradient */
    uint64_t quant_transient;   /* one dequantised weight (QLoRA) */
    uint64_t inputs;            /* input ids kept through the step */
    uint64_t vision_saved;      /* part of act_other kept by the vision tower */
    uint64_t encoder_transient; /* the vision encoder's forward working set */
    uint64_t workspace;         /* one cuBLAS workspace */
    bool checkpointing;         /* full recompute */
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
/* Autocast / fp8 weight copies and the dequantised QLoRA weight (casts.c). */
void llmmem__casts_compute(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o);
/* logits_saved, logits_fwd_extra, logits_bwd_extra of the configured loss (loss.c). */
void llmmem__loss_compute(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o);
/* fwd_transient, bwd_transient, recompute_transient and mlp_tail (transient.c). */
void llmmem__transient_compute(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o);

/* Extra bytes an engine adds per phase (buffers, gathered parameters). */
typedef struct llmmem__engine_extra {
    uint64_t fwd[LLMMEM__COMPONENTS], bwd[LLMMEM__COMPONENTS], opt[LLMMEM__COMPONENTS];
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

#endif /* LLMMEM_MEMORY_MEMORY_H */
