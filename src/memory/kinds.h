/* The decoder layers by kind (kinds.c) and what each keeps beside K and V
 * (state.c): the layer-kind catalogue training, inference and the replay
 * read. Not installed. */
#ifndef LLMMEM_MEMORY_KINDS_H
#define LLMMEM_MEMORY_KINDS_H

#include "memory/alloc.h"
#include "memory/recipe.h"

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

#endif /* LLMMEM_MEMORY_KINDS_H */
