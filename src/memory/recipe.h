/* The recipe of a run (recipe.c): the dtype of each class of tensor and the
 * switches that decide what each op keeps, read from the configuration once;
 * the byte model's small numeric helpers. Not installed. */
#ifndef LLMMEM_MEMORY_RECIPE_H
#define LLMMEM_MEMORY_RECIPE_H

#include "config/config.h"
#include "core/result.h"
#include "model/model.h"

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
    bool batched;   /* more than one sequence a micro-batch (run->B > 1): set by the training
                       model from the run (train/train.c), false elsewhere */
} llmmem__recipe;
void llmmem__recipe_of(llmmem__recipe *rc, const struct llmmem_model *m, const struct llmmem_config *c);
/* Bytes of a configured dtype, or `fallback` for auto. */
uint64_t llmmem__recipe_bytes(int64_t dtype, uint64_t fallback);
/* Whether the config puts a LoRA adapter on the Linear named `name`. */
bool llmmem__recipe_lora_on(const struct llmmem_config *c, const char *name);
/* Whether activation_profile names a framework's own model code (torchtune, litgpt). */
bool llmmem__frameworks_own(const struct llmmem_config *c);

/* A count of the model or the config as unsigned; negatives (unset) as 0. */
static inline uint64_t llmmem__nonneg(int64_t v) { return v > 0 ? (uint64_t)v : 0; }

#endif /* LLMMEM_MEMORY_RECIPE_H */
