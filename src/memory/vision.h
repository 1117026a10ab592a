/* Vision-language accounting (vision.c): image tokens and the towers'
 * saved tensors and working sets. Not installed. */
#ifndef LLMMEM_MEMORY_VISION_H
#define LLMMEM_MEMORY_VISION_H

#include "memory/recipe.h"

typedef struct llmmem__vision_bytes {
    uint64_t lm_tokens;     /* image tokens added to each sequence */
    uint64_t patches;       /* tower tokens per sample (all images, frames) */
    uint64_t saved;         /* tower + projector tensors kept for backward, micro-batch */
    uint64_t transient;     /* the encoder's largest working set (forward) */
    int64_t trainable;      /* tower + projector parameters that train */
} llmmem__vision_bytes;
/* batch: the sequences of a micro-batch (training) or a batch (inference); seq: the
 * text tokens of one training sequence (run->S; read only when the tower trains). */
int llmmem__vision_compute(llmmem__vision_bytes *out, const struct llmmem_model *m,
                           const struct llmmem_config *c, uint64_t batch, uint64_t seq, llmmem__ovf *o);

#endif /* LLMMEM_MEMORY_VISION_H */
