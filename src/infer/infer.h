/* The inference byte model (weights.c, kv.c, prefill*.c, decode.c): weights
 * in any storage format, the KV cache, and the peaks of one HF generate call's
 * prefill and decode; the runtimes compose them (engines/hf, engines/vllm).
 * Not installed. */
#ifndef LLMMEM_INFER_INFER_H
#define LLMMEM_INFER_INFER_H

#include "memory/kinds.h"
#include "memory/peak.h"
#include "memory/vision.h"

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
/* Decode peak over steps 1..N and the KV that stays (decode.c). */
void llmmem__decode_peak(llmmem__ovf *o, llmmem__infer *x, const struct llmmem_model *m,
                         uint64_t ws);

#endif /* LLMMEM_INFER_INFER_H */
