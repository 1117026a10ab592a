/* The vLLM runtime's wing (engines/vllm/): vLLM V1 at startup. The byte
 * model: the weights as vLLM stores them on one rank (vllm_weights.c), the KV
 * cache specs, groups and blocks (vllm_kv.c) and the profile run's peak
 * (vllm_profile.c); vllm.c puts them into the budget of each vLLM version and
 * holds the runtime's row (struct llmmem__engine). docs/inference.md "vLLM"
 * and docs/research/vllm-v1.md name the upstream file of every formula.
 * Not installed. */
#ifndef LLMMEM_ENGINES_VLLM_VLLM_H
#define LLMMEM_ENGINES_VLLM_VLLM_H

#include "engines/engines.h"

/* A vLLM version as one number: 0.10.2 -> 1002, 1.2.3 -> 10203. */
#define LLMMEM__VLLM_V(a, b, c) ((a) * 10000 + (b) * 100 + (c))

/* vLLM's releases x behaviours, as zstd's clevels.h is a table of levels: the
 * release from which each behaviour the budget and the byte model depend on
 * holds, in release order (docs/research/vllm-v1.md; the code that reads a
 * behaviour names the upstream change). A version has every behaviour of the
 * releases up to it: llmmem__vllm_behaviours. X(BEHAVIOUR, major, minor, patch). */
#define LLMMEM__VLLM_RELEASES(X)                                                                             \
    X(V1_BASELINE, 0, 9, 0)        /* the budget from init_device's baseline (0.8: total*util - all) */     \
    X(A100_SMALL_TIER, 0, 9, 0)    /* A100s take the small batch defaults (arg_utils.py) */                 \
    X(HYBRID_KV_MANAGER, 0, 9, 0)  /* the hybrid KV cache manager, unless disabled */                      \
    X(VISION_MODEL_DTYPE, 0, 9, 0) /* the profile's pixel values in the model dtype (fp32 before) */       \
    X(NVFP4_MARLIN, 0, 9, 0)       /* ModelOpt NVFP4 below sm_100 through Marlin (sm_80+) */                \
    X(CT_NVFP4, 0, 9, 2)           /* compressed-tensors NVFP4 on any sm_80+ (W4A4 falls back to Marlin) */ \
    X(V1_FP8_KV_ROCM, 0, 9, 2)     /* an fp8 KV cache on ROCm stays on V1 */                                \
    X(V1_FP32, 0, 10, 0)           /* no V0 fallback for --dtype float32 (0.9.2's oracle has it) */         \
    X(V1_FP8_KV_SM100, 0, 10, 0)   /* an fp8 KV cache on sm_100 stays on V1 (is_kv_cache_dtype_supported) */ \
    X(V1_PRE_AMPERE, 0, 10, 2)     /* no V0 fallback for compute capability < 8.0 */                       \
    X(V1_FP8_KV_MLA, 0, 10, 2)     /* an fp8 KV cache with MLA stays on V1 (FlashMLA, CUTLASS MLA) */      \
    X(MXFP4_TRITON, 0, 10, 2)      /* sm_90 MXFP4 experts through triton_kernels */                        \
    X(FULL_GRAPHS_MAMBA, 0, 10, 2) /* FULL decode graphs beside the piecewise ones for Mamba hybrids */    \
    X(V1_ONLY, 0, 11, 0)           /* the V0 engine removed: no fallback at all */                          \
    X(FULL_GRAPHS, 0, 11, 0)       /* ... for every model (cudagraph_mode FULL_AND_PIECEWISE) */           \
    X(COMMS_BEFORE_BASELINE, 0, 11, 0) /* PyNccl and the custom all-reduce made before the baseline */     \
    X(KERNELS_BUNDLED, 0, 12, 0)   /* FlashInfer and triton_kernels in pip's vllm (the image only before) */ \
    X(DP_UTILS, 0, 12, 0)          /* the DP padding all-reduce also under --enforce-eager (dp_utils.py) */ \
    X(GDN_PROFILE, 0, 12, 0)       /* the gated delta rule's profile buffers as laid out from 0.12 */       \
    X(VISION_ROPE_CACHE, 0, 13, 0) /* vision cos/sin from get_rope's cache in the model dtype */           \
    X(DP_SYNC_GLOO, 0, 14, 0)      /* async scheduling: the DP sync over gloo (without PP in 0.14) */      \
    X(KV_DTYPE_MODELOPT, 0, 14, 0) /* KV "auto" = a ModelOpt checkpoint's kv_cache_quant_algo */           \
    X(DP_SYNC_GLOO_PP, 0, 15, 0)   /* ... with PP too */                                                  \
    X(MAMBA_ALIGN, 0, 15, 0)       /* prefix caching's 'align' mode: two blocks per Mamba request */       \
    X(KV_DTYPE_CT_SCHEME, 0, 15, 0) /* a compressed-tensors kv_cache_scheme makes the KV cache fp8 */       \
    X(TRITON_TOPK, 0, 17, 0)       /* the Triton top-k/top-p kernel for 8 or more rows */                  \
    X(NO_SWAP_SPACE, 0, 18, 0)     /* --swap-space gone from EngineArgs (vLLM PR #36216) */               \
    X(KV_GROUP_LARGEST, 0, 18, 0)  /* hybrid groups sized by the largest kind when close */                \
    X(UTIL_092, 0, 20, 0)          /* gpu_memory_utilization 0.92 by default (0.9 before) */              \
    X(CG_ESTIMATE, 0, 20, 0)       /* VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on by default */            \
    X(CAPTURE_STEP_16, 0, 20, 0)   /* capture sizes from 256 on in steps of 16 (8 before) */              \
    X(CAPTURE_MAX_TOKENS, 0, 21, 0) /* max_num_batched_tokens added to the capture sizes when off-stride */ \
    X(FI_SAMPLER_DEFAULT, 0, 21, 0) /* the FlashInfer sampler on by default (cc 7.5 - 12.1) */            \
    X(KV_TOKENS_CONCURRENCY, 0, 21, 0) /* "GPU KV cache size" as int(concurrency x max_model_len) */       \
    X(RUNNER_V2_DENSE, 0, 25, 0)   /* the V2 model runner for dense models */                             \
    X(IN_FLIGHT_BATCHES, 0, 26, 0) /* max_concurrent_batches of tokens in flight beyond a window */         \
    X(LLM_NO_SWAP_SPACE, 0, 26, 0) /* ... and LLM(swap_space=) no longer popped with a warning */          \
    X(TOTAL_CONSUMED, 0, 27, 0)    /* the budget from total_consumed (the sampler state in it) */          \
    X(CAPTURE_1024_SM100, 0, 28, 0) /* capture sizes up to 1024 on compute capability 10.x */         \
    X(TIER_160GIB, 0, 28, 0)       /* the >= 160 GiB tier of batch defaults */                            \
    X(RUNNER_V2_ALL, 0, 29, 0)     /* the V2 model runner for every model */                              \
    X(GB10_SMALL_TIER, 0, 33, 0)   /* GB10 (cc 12.1) on the small tier of batch defaults */

enum llmmem__vllm_behaviour {
#define LLMMEM__VB_ENUM(name, a, b, c) LLMMEM__VB_##name,
    LLMMEM__VLLM_RELEASES(LLMMEM__VB_ENUM)
#undef LLMMEM__VB_ENUM
        LLMMEM__VB_COUNT
};
_Static_assert(LLMMEM__VB_COUNT <= 64, "a bit per behaviour");

/* The behaviours of vLLM version `ver` (LLMMEM__VLLM_V), a bit each (vllm.c). */
uint64_t llmmem__vllm_behaviours(int ver);
/* Whether behaviour NAME holds in the bits of a version. */
#define LLMMEM__VLLM_HAS(bits, name) ((((bits) >> LLMMEM__VB_##name) & 1u) != 0)

/* How the routed experts of an MXFP4 checkpoint are laid out
 * (model_executor/layers/quantization/mxfp4.py Mxfp4MoEMethod.create_weights
 * and process_weights_after_loading, by the backend get_mxfp4_backend picks). */
enum llmmem__vllm_mxfp4 {
    LLMMEM__MXFP4_MARLIN = 0, /* no native FP4 (< sm_90, or 0.10.1): I -> 128, h -> 256 */
    LLMMEM__MXFP4_TRITON,     /* sm_90/sm_100 triton_kernels: I -> 64, fp32 biases, and the
                                 swizzled scales beside the loaded ones (the layer keeps both) */
    LLMMEM__MXFP4_FI_256,     /* sm_100 FlashInfer BF16 / MXFP8-TRTLLM: I and h -> 256 */
    LLMMEM__MXFP4_FI_128      /* FlashInfer CUTLASS, ROCm: I and h -> 128 */
};

/* One rank of the engine as the byte model sees it. */
typedef struct llmmem__vllm_rank {
    int cc;           /* compute capability x10 (90 = sm_90) */
    uint64_t sms;     /* streaming multiprocessors */
    uint64_t tp;      /* tensor-parallel ranks */
    uint64_t ep;      /* ranks the routed experts are split over (1: none) */
    uint64_t pp, stage;
    uint64_t L0, L1;  /* decoder layers [L0, L1) on this pipeline stage */
    int fmt;          /* storage of the linear layers (enum llmmem__quant) */
    bool marlin;      /* GPTQ/AWQ repacked for the Marlin kernels (gptq_marlin, awq_marlin) */
    int mxfp4;        /* enum llmmem__vllm_mxfp4 */
    uint64_t e;       /* bytes of the unquantized tensors and the activations */
    uint64_t bits, group;
    uint64_t offload_max; /* --cpu-offload-gb in bytes: int(gb * 1024**3) */
} llmmem__vllm_rank;

/* "Model loading took": torch-allocated bytes after load_model, by part. */
typedef struct llmmem__vllm_weights {
    uint64_t bytes;     /* allocated (each tensor as the caching allocator hands it out) */
    uint64_t tensors;   /* the tensors' own bytes */
    uint64_t experts;   /* of which routed experts (with their scales and biases) */
    uint64_t rotary;    /* the rotary cos_sin_cache buffer */
    uint64_t vision;    /* the vision encoder and projector */
    uint64_t largest;   /* the largest tensor */
    uint64_t offloaded; /* --cpu-offload-gb: parameter bytes moved to host memory */
    uint64_t host;      /* ... as the pinned host allocator holds them (powers of two) */
} llmmem__vllm_weights;
/* The weights of one rank of stage r->stage (vllm_weights.c). */
void llmmem__vllm_weights_of(llmmem__vllm_weights *w, llmmem__ovf *o, const struct llmmem_model *m,
                             const llmmem__vllm_rank *r);
/* Tests only (test_vllm_layers): true walks every decoder layer, as before a
 * layer that repeats the one before was taken for all the rest, and counts
 * the CUDA graph capture sizes one by one (vllm.c). */
extern bool llmmem__vllm_every_layer;
/* The bytes the caching allocator counts for a sequence of allocations
 * (vllm_weights.c): a 512-byte round, and a whole 2 MiB-rounded segment when
 * the tail would be too small to split off (c10/cuda/CUDACachingAllocator.cpp). */
typedef struct llmmem__vllm_pool {
    int n;
    uint64_t free_blocks[64]; /* large-pool blocks split off and still free */
} llmmem__vllm_pool;
uint64_t llmmem__vllm_alloc(llmmem__vllm_pool *p, llmmem__ovf *o, uint64_t bytes);

/* ---- KV cache (vllm_kv.c) --------------------------------------------------- */

/* Kinds of KV cache spec (v1/kv_cache_interface.py). */
enum llmmem__vllm_spec {
    LLMMEM__VS_FULL = 0, /* FullAttentionSpec, MLAAttentionSpec */
    LLMMEM__VS_SLIDING,  /* SlidingWindowSpec */
    LLMMEM__VS_CHUNKED,  /* ChunkedLocalAttentionSpec */
    LLMMEM__VS_MAMBA,    /* MambaSpec: Mamba 1/2, gated delta rule, short convolution */
    LLMMEM__VS_KINDS
};

typedef struct llmmem__vllm_kv_in {
    uint64_t vb;         /* the version's behaviours (llmmem__vllm_behaviours) */
    uint64_t block;      /* --block-size (0: 16, raised for attention + Mamba hybrids) */
    uint64_t kvb;        /* KV element bytes */
    uint64_t ssmb;       /* Mamba SSM / recurrent state bytes (0: the model's dtype) */
    uint64_t e;          /* model dtype bytes (conv states) */
    uint64_t tp;
    uint64_t maxlen;     /* max_model_len */
    uint64_t in_flight;  /* tokens a sliding/chunked layer holds beyond its window */
    bool hybrid_manager; /* hybrid KV cache manager on (no --disable-hybrid-kv-cache-manager) */
    uint64_t mamba_pages; /* pages a request holds per Mamba group: 1 ("none"), 2 ("align") */
    uint64_t L0, L1;     /* decoder layers on this stage */
} llmmem__vllm_kv_in;

typedef struct llmmem__vllm_kv {
    uint64_t n[LLMMEM__VS_KINDS]; /* layers of each kind on the stage */
    uint64_t block;               /* tokens per block */
    uint64_t page;                /* bytes of one block of one layer (uniform after padding) */
    uint64_t attn_page;           /* the attention page before any padding */
    uint64_t mamba_page;          /* one Mamba layer's state before padding (0: none) */
    uint64_t group_size;          /* layers that share one block id */
    uint64_t groups;              /* KV cache groups */
    uint64_t bytes_per_block;     /* page * group_size */
    uint64_t per_request;         /* blocks one max_model_len request holds, all groups */
    uint64_t kv_bytes_per_token;  /* attention layers, per token (for the result key) */
    bool hybrid;                  /* more than one spec kind kept apart */
} llmmem__vllm_kv;
/* The KV layout of one stage; LLMMEM_E_UNSUPPORTED for a mixer vLLM's
 * MambaSpec is not modelled for. */
int llmmem__vllm_kv_layout(llmmem__vllm_kv *k, llmmem__ovf *o, const struct llmmem_model *m,
                           const llmmem__vllm_kv_in *in);

/* ---- the profile run (vllm_profile.c) ------------------------------------- */

/* How the dummy sampler run samples (v1/sample/ops/topk_topp_sampler.py by
 * version, or the V2 model runner's sampler). */
enum llmmem__vllm_sampler {
    LLMMEM__VSAMP_FLASHINFER = 0, /* top_k_top_p_sampling_from_logits: 14 B per logit */
    LLMMEM__VSAMP_SORT,           /* PyTorch sort of the fp32 logits (cub segmented sort) */
    LLMMEM__VSAMP_TRITON,         /* apply_top_k_top_p_triton in place + softmax + noise */
    LLMMEM__VSAMP_RUNNER_V2       /* v1/worker/gpu: greedy dummy batch, logits only */
};

typedef struct llmmem__vllm_profile_in {
    uint64_t vb;       /* the version's behaviours (llmmem__vllm_behaviours) */
    uint64_t tokens;   /* max_num_batched_tokens */
    uint64_t reqs;     /* min(tokens, max_num_seqs) */
    uint64_t tp, ep;
    uint64_t e;
    uint64_t k_r;      /* KV heads per rank */
    int fmt;           /* storage format (quantized activations of fp8 MoE) */
    int sampler;       /* enum llmmem__vllm_sampler */
    bool last_stage;   /* the sampler runs here */
    bool first_stage;  /* the multimodal encoder runs here */
    bool mrv1_rand;    /* the V1 runner's rand_like of the sampled hidden states */
    uint64_t sms;      /* Triton sampler buffer rows */
    uint64_t ws;       /* cuBLAS workspace made by the first matmul */
    uint64_t L0, L1;
} llmmem__vllm_profile_in;

typedef struct llmmem__vllm_profile {
    uint64_t forward;    /* the dummy forward's working set beyond what was allocated before */
    uint64_t sampler;    /* the dummy sampler run's working set */
    uint64_t encoder;    /* the multimodal encoder's working set and cached outputs */
    uint64_t persistent; /* of the peak, what stays allocated (workspaces, sampler buffer) */
    uint64_t peak;       /* torch peak increase: max of the three + persistent */
    uint64_t enc_tokens; /* encoder budget tokens (0: text only) */
    uint64_t enc_items;  /* dummy items of the largest size */
} llmmem__vllm_profile;
int llmmem__vllm_profile_run(llmmem__vllm_profile *p, llmmem__ovf *o, const struct llmmem_model *m,
                             const struct llmmem_config *c, const llmmem__vllm_profile_in *in);
/* The forward working set of one token (the largest layer piece), for the CUDA graph pool. */
uint64_t llmmem__vllm_forward_token(llmmem__ovf *o, const struct llmmem_model *m,
                                    const llmmem__vllm_profile_in *in);

#endif /* LLMMEM_ENGINES_VLLM_VLLM_H */
