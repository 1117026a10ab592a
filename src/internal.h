/* Internal declarations shared by the modules of libllmmem. Not installed.
 * Internal non-static names are llmmem__<module>_<name>. */
#ifndef LLMMEM_INTERNAL_H
#define LLMMEM_INTERNAL_H

#define LLMMEM_BUILDING 1
#include "llmmem.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define LLMMEM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define LLMMEM_PRINTF(a, b)
#endif

#define LLMMEM_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- errors (error.c) ---------------------------------------------------- */

/* Records the thread-local detail text and returns status, so callers write
 * `return llmmem__error(LLMMEM_E_SCHEMA, "...", ...);`. */
int llmmem__error(int status, const char *fmt, ...) LLMMEM_PRINTF(2, 3);

/* ---- checked arithmetic (overflow is an error, never a wrap) ------------ */

/* Sticky overflow flag: a computation runs on, and the caller checks once. */
typedef struct llmmem__ovf {
    bool overflow;
} llmmem__ovf;

static inline uint64_t llmmem__add(llmmem__ovf *o, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        o->overflow = true;
        return UINT64_MAX;
    }
    return r;
}

static inline uint64_t llmmem__mul(llmmem__ovf *o, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        o->overflow = true;
        return UINT64_MAX;
    }
    return r;
}

static inline uint64_t llmmem__mul3(llmmem__ovf *o, uint64_t a, uint64_t b, uint64_t c)
{
    return llmmem__mul(o, llmmem__mul(o, a, b), c);
}

/* a - b, clamped at 0 (for "the part above"). */
static inline uint64_t llmmem__sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

static inline uint64_t llmmem__ceil_div(uint64_t a, uint64_t b) { return b ? a / b + (a % b != 0) : 0; }

static inline uint64_t llmmem__round_up(llmmem__ovf *o, uint64_t a, uint64_t m)
{
    return llmmem__mul(o, llmmem__ceil_div(a, m), m);
}

static inline uint64_t llmmem__max(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t llmmem__min(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Bytes of a fractional per-element size (e.g. 0.5 B for 4-bit), rounded up;
 * n elements of `bits` bits each. */
static inline uint64_t llmmem__bits_to_bytes(llmmem__ovf *o, uint64_t n, uint64_t bits)
{
    return llmmem__ceil_div(llmmem__mul(o, n, bits), 8);
}

/* ---- dtypes ------------------------------------------------------------- */

/* Values of the enum parameters that hold a dtype (order = enum names in params.c). */
enum llmmem__dtype {
    LLMMEM__DT_AUTO = 0,
    LLMMEM__DT_FP32 = 1,
    LLMMEM__DT_FP16 = 2,
    LLMMEM__DT_BF16 = 3,
    LLMMEM__DT_FP8 = 4,
    LLMMEM__DT_COUNT
};
int llmmem__dtype_bytes(int dtype); /* 4, 2, 2, 1; 0 for auto */

/* ---- models (model.c, arch.c, presets.c, hfconfig.c) --------------------- */

enum llmmem__norm { LLMMEM__NORM_RMS = 0, LLMMEM__NORM_LAYER = 1, LLMMEM__NORM_LAYER_NOBIAS = 2,
                    LLMMEM__NORM_NONPARAM = 3 };

/* How the MLP computes, which decides what autograd keeps. */
enum llmmem__act {
    LLMMEM__ACT_SILU_GLU = 0,     /* SwiGLU, act(gate) * up (llama, mistral, qwen) */
    LLMMEM__ACT_GELU_TANH_GLU = 1, /* GeGLU with gelu_pytorch_tanh (gemma) */
    LLMMEM__ACT_GELU = 2,          /* fused F.gelu, non-gated (starcoder2, opt relu too) */
    LLMMEM__ACT_GELU_NEW = 3,      /* NewGELUActivation in Python ops (gpt2, phi, gptj) */
    LLMMEM__ACT_RELU = 4,          /* non-gated relu (opt) */
    LLMMEM__ACT_SWIGLU_OAI = 5     /* gpt-oss clamped swiglu on fused gate_up */
};

enum llmmem__family {
    LLMMEM__FAM_LLAMA = 0, /* llama-like: pre-norm, separate q/k/v/o, gated MLP */
    LLMMEM__FAM_GEMMA,
    LLMMEM__FAM_PHI,       /* phi-1/1.5/2: parallel block, one LayerNorm */
    LLMMEM__FAM_PHI3,
    LLMMEM__FAM_GPT2,
    LLMMEM__FAM_GPT_NEOX,
    LLMMEM__FAM_GPTJ,
    LLMMEM__FAM_OPT,
    LLMMEM__FAM_FALCON,
    LLMMEM__FAM_OLMO,
    LLMMEM__FAM_STARCODER2,
    LLMMEM__FAM_DEEPSEEK,  /* MLA + MoE */
    LLMMEM__FAM_GPT_OSS,
    LLMMEM__FAM_COUNT
};

#define LLMMEM__NAME_MAX 64
#define LLMMEM__MAX_NOTES 8
#define LLMMEM__NOTE_MAX 160

/* ---- parameter tensors (tensors.c) ---------------------------------------- */

enum llmmem__tkind { LLMMEM__T_EMBED = 0, LLMMEM__T_ATTN, LLMMEM__T_MLP, LLMMEM__T_EXPERT,
                     LLMMEM__T_ROUTER, LLMMEM__T_NORM, LLMMEM__T_HEAD, LLMMEM__T_BIAS };
#define LLMMEM__MAX_TENSORS 48
typedef struct llmmem__tensor {
    const char *name; /* HF module name (static) */
    int kind;         /* enum llmmem__tkind */
    int64_t rows, cols; /* cols = 1 for vectors */
    int64_t count;    /* how many such tensors in the model */
    bool linear;      /* weight of an nn.Linear (LoRA target, autocast-cast) */
} llmmem__tensor;
typedef struct llmmem__tensors {
    int n;
    bool exact; /* false: approximated from component counts */
    bool overflow; /* a dimension was out of range while listing */
    llmmem__tensor t[LLMMEM__MAX_TENSORS];
} llmmem__tensors;
struct llmmem_model;
void llmmem__tensors_of(llmmem__tensors *t, const struct llmmem_model *m);
bool llmmem__lora_targets(const char *targets, const llmmem__tensor *x);

/* The parsed description of a model. Field meanings follow HF config names.
 * Everything an estimator needs is here; counts are filled by
 * llmmem__model_count(). */
struct llmmem_model {
    char model_type[LLMMEM__NAME_MAX]; /* "llama" */
    char name[LLMMEM__NAME_MAX];       /* preset name or "" */
    int family;                        /* enum llmmem__family */
    bool generic;                      /* unknown model_type estimated as dense decoder */
    bool from_size_only;               /* shape derived from num_parameters */

    int64_t vocab_size;
    int64_t hidden_size;
    int64_t num_layers;
    int64_t num_heads;
    int64_t num_kv_heads;
    int64_t head_dim;                  /* explicit or hidden/heads */
    int64_t intermediate_size;
    int64_t max_positions;
    bool tie_embeddings;
    bool attention_bias;               /* q,k,v (and o where the family does) */
    bool o_bias;
    bool mlp_bias;
    bool qk_norm;                      /* qwen3/gemma3/olmo2 q_norm,k_norm */
    int norm;                          /* enum llmmem__norm */
    int norms_per_layer;               /* 1 (parallel), 2, 4 (gemma2/3, olmo2 post-norms) */
    int act;                           /* enum llmmem__act */
    bool gated_mlp;
    bool parallel_block;               /* attention and MLP read the same norm output */
    double partial_rotary_factor;      /* 1.0 = full rotary */
    double attention_dropout;
    double hidden_dropout;             /* residual / embedding dropout probability */
    double embedding_dropout;

    /* MoE */
    int64_t num_experts;               /* routed experts, 0 = dense */
    int64_t experts_per_token;
    int64_t moe_intermediate_size;
    int64_t shared_expert_intermediate_size; /* total width of shared experts */
    int64_t n_shared_experts;
    int64_t num_moe_layers;            /* how many layers are MoE */
    bool shared_expert_gate;

    /* MLA (deepseek) */
    int64_t q_lora_rank;
    int64_t kv_lora_rank;
    int64_t qk_nope_head_dim;
    int64_t qk_rope_head_dim;
    int64_t v_head_dim;

    /* logit soft-capping cap * tanh(x / cap) (gemma2); 0 = none */
    double final_logit_softcapping;
    double attn_logit_softcapping;

    /* sliding window */
    int64_t sliding_window;            /* 0 = none */
    int64_t num_sliding_layers;        /* layers that use the window */

    /* storage described by the config */
    int torch_dtype;                   /* enum llmmem__dtype, AUTO if absent */
    int quant_method;                  /* enum llmmem__quant (infer.c), 0 = none */
    int64_t quant_bits;
    int64_t quant_group_size;

    /* vision (llava, qwen2_vl, gemma3, ...): parameter count of tower + projector */
    int64_t vision_params;
    struct llmmem__vision_tower {
        int kind;                 /* enum llmmem__vkind; 0 = no tower */
        int64_t hidden, layers, heads, intermediate;
        int64_t patch_size, image_size; /* fixed processor size (clip/siglip) */
        int64_t temporal_patch, merge_size; /* qwen2_vl */
        int64_t projector_params;  /* part of vision_params */
        int64_t feature_layer;     /* llava vision_feature_layer (layers actually run) */
        bool drop_cls;             /* llava 'default' strategy drops the CLS token */
        int64_t tokens_per_image;  /* LM tokens per image at the fixed size (gemma3: mm_tokens_per_image) */
    } vision;

    /* exact counts */
    int64_t params;
    int64_t params_embedding;          /* input embedding (+ positions) */
    int64_t params_attention;
    int64_t params_mlp;                /* dense MLPs + experts + shared experts */
    int64_t params_experts;            /* routed experts only */
    int64_t params_router;
    int64_t params_norm;
    int64_t params_head;               /* 0 when tied */
    int64_t params_active;
    /* Largest single module's parameters (DeepSpeed largest_layer_params). */
    int64_t largest_module_params;
    /* Parameters of the linear layers inside one decoder layer (for LoRA
     * all-linear and autocast caches): filled by llmmem__model_count. */
    int64_t layer_linear_params;
    /* parameter tensors (llmmem__tensors_of), filled by llmmem__model_count */
    llmmem__tensors tensors;

    int note_count;
    char notes[LLMMEM__MAX_NOTES][LLMMEM__NOTE_MAX];
};

enum llmmem__vkind { LLMMEM__V_NONE = 0, LLMMEM__V_CLIP, LLMMEM__V_SIGLIP, LLMMEM__V_QWEN2VL };

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

/* Recomputes every count from the fields. Returns LLMMEM_E_OUT_OF_RANGE on
 * overflow, LLMMEM_E_SCHEMA if a required field is missing. */
int llmmem__model_count(struct llmmem_model *m);
/* Checks that an estimator can use the model (positive dims etc.). */
int llmmem__model_validate(const struct llmmem_model *m);
void llmmem__model_note(struct llmmem_model *m, const char *fmt, ...) LLMMEM_PRINTF(2, 3);

/* ---- configurations (params.c, config.c) --------------------------------- */

#define LLMMEM__STR_MAX 256
#define LLMMEM__COMPONENTS_MAX 16 /* >= LLMMEM__COMPONENTS */

/* Enum values of the configuration (order = the names in params.c). */
enum llmmem__mode { LLMMEM__MODE_TRAINING = 0, LLMMEM__MODE_INFERENCE = 1 };
enum llmmem__attn { LLMMEM__ATTN_SDPA = 0, LLMMEM__ATTN_FLASH = 1, LLMMEM__ATTN_EAGER = 2 };
enum llmmem__ckpt { LLMMEM__CKPT_NONE = 0, LLMMEM__CKPT_FULL = 1, LLMMEM__CKPT_SELECTIVE = 2 };
enum llmmem__loss { LLMMEM__LOSS_HF = 0, LLMMEM__LOSS_VOCAB_PARALLEL = 1, LLMMEM__LOSS_CHUNKED = 2,
                    LLMMEM__LOSS_LIGER = 3 };
enum llmmem__profile { LLMMEM__PROFILE_AUTO = 0, LLMMEM__PROFILE_HF = 1, LLMMEM__PROFILE_MEGATRON = 2 };
enum llmmem__dropout { LLMMEM__DROPOUT_MODEL = 0, LLMMEM__DROPOUT_OFF = 1, LLMMEM__DROPOUT_ON = 2 };
enum llmmem__impl { LLMMEM__IMPL_FOREACH = 0, LLMMEM__IMPL_FUSED = 1, LLMMEM__IMPL_FORLOOP = 2 };
enum llmmem__step { LLMMEM__STEP_MAX = 0, LLMMEM__STEP_FIRST = 1, LLMMEM__STEP_STEADY = 2 };
enum llmmem__qlora { LLMMEM__QLORA_NONE = 0, LLMMEM__QLORA_NF4 = 1, LLMMEM__QLORA_FP4 = 2,
                     LLMMEM__QLORA_INT8 = 3 };
enum llmmem__engine { LLMMEM__ENG_SINGLE = 0, LLMMEM__ENG_DDP = 1, LLMMEM__ENG_ZERO = 2,
                      LLMMEM__ENG_FSDP = 3, LLMMEM__ENG_MEGATRON = 4,
                      LLMMEM__ENG_MEGATRON_DEEPSPEED = 5 };
enum llmmem__offload { LLMMEM__OFFLOAD_NONE = 0, LLMMEM__OFFLOAD_CPU = 1, LLMMEM__OFFLOAD_NVME = 2 };
enum llmmem__tristate { LLMMEM__TRI_AUTO = 0, LLMMEM__TRI_OFF = 1, LLMMEM__TRI_ON = 2 };
enum llmmem__fsdp { LLMMEM__FSDP_FULL_SHARD = 0, LLMMEM__FSDP_SHARD_GRAD_OP = 1,
                    LLMMEM__FSDP_NO_SHARD = 2, LLMMEM__FSDP_HYBRID_SHARD = 3 };
enum llmmem__accounting { LLMMEM__ACC_RUNTIME = 0, LLMMEM__ACC_DEEPSPEED = 1,
                          LLMMEM__ACC_MEGATRON = 2 };
enum llmmem__runtime { LLMMEM__RT_HF = 0, LLMMEM__RT_VLLM = 1 };
enum llmmem__fp8 { LLMMEM__FP8_NONE = 0, LLMMEM__FP8_DELAYED = 1, LLMMEM__FP8_BLOCKWISE = 2 };
/* Weight storage formats for inference (LLMMEM_P_WEIGHTS_FORMAT). */
enum llmmem__quant {
    LLMMEM__Q_AUTO = 0, LLMMEM__Q_FP32, LLMMEM__Q_FP16, LLMMEM__Q_BF16, LLMMEM__Q_FP8,
    LLMMEM__Q_FP8_BLOCK, LLMMEM__Q_INT8, LLMMEM__Q_INT4, LLMMEM__Q_NF4, LLMMEM__Q_NF4_DQ,
    LLMMEM__Q_FP4, LLMMEM__Q_GPTQ, LLMMEM__Q_AWQ, LLMMEM__Q_MXFP4, LLMMEM__Q_COUNT
};

/* The optimizer catalogue (optimizers.c); enum order = names in params.c. */
enum llmmem__optim {
    LLMMEM__OPT_ADAMW = 0, LLMMEM__OPT_ADAM, LLMMEM__OPT_SGD, LLMMEM__OPT_SGD_MOMENTUM,
    LLMMEM__OPT_NESTEROV, LLMMEM__OPT_ADAGRAD, LLMMEM__OPT_RMSPROP, LLMMEM__OPT_NADAM,
    LLMMEM__OPT_RADAM, LLMMEM__OPT_AMSGRAD, LLMMEM__OPT_ADAMAX, LLMMEM__OPT_ADAFACTOR,
    LLMMEM__OPT_LION, LLMMEM__OPT_LAMB, LLMMEM__OPT_SPARSE_ADAM, LLMMEM__OPT_ADAM_MINI,
    LLMMEM__OPT_MUON, LLMMEM__OPT_ADAMW_8BIT, LLMMEM__OPT_PAGED_ADAMW_8BIT,
    LLMMEM__OPT_ADAM_8BIT, LLMMEM__OPT_PAGED_ADAM_8BIT, LLMMEM__OPT_COUNT
};

struct llmmem_config {
    /* workload */
    int64_t mode;
    int64_t micro_batch_size, seq_len, grad_accum_steps;
    int64_t batch_size, prompt_len, decode_len;
    /* precision */
    int64_t param_dtype, compute_dtype, master_weights, grad_dtype;
    int64_t weights_format, kv_cache_dtype, quant_bits, quant_group_size, fp8_recipe;
    /* optimizer */
    int64_t optimizer, optimizer_impl, optimizer_state_dtype, step;
    /* activations */
    int64_t attention, checkpointing, loss, activation_profile, dropout;
    /* LoRA */
    int64_t lora_rank;
    double lora_alpha;
    char lora_targets[LLMMEM__STR_MAX];
    double lora_dropout;
    int64_t qlora, qlora_double_quant;
    /* engine */
    int64_t engine, zero_stage, offload_optimizer, offload_param;
    double bucket_cap_mb;
    int64_t gradient_as_bucket_view, reduce_bucket_size, allgather_bucket_size;
    int64_t contiguous_gradients, overlap_comm;
    int64_t stage3_max_live_parameters, stage3_prefetch_bucket_size;
    int64_t stage3_param_persistence_threshold, zero_hpz_partition_size;
    int64_t fsdp_version, fsdp_sharding, fsdp_cpu_offload, distributed_optimizer;
    int64_t accounting, zero_init;
    /* parallelism */
    int64_t num_gpus, dp, tp, pp, cp, ep, etp, sequence_parallel, vpp, num_microbatches;
    int64_t gpus_per_node;
    /* serving */
    int64_t runtime;
    double gpu_memory_utilization;
    int64_t max_num_batched_tokens, max_num_seqs, kv_block_size, max_model_len, cuda_graphs;
    /* hardware */
    int64_t gpu, gpu_memory_bytes, cuda_context_bytes, cublas_workspace_bytes;
    int64_t expandable_segments;
    /* vision-language */
    int64_t images_per_sample, image_height, image_width, video_frames, vision_training;
    int64_t min_pixels, max_pixels, encoder_cache;
    /* calibration profile (calib.c); all 1.0 / 0 = identity */
    bool calibrated;
    double calib_component[LLMMEM__COMPONENTS_MAX];
    double calib_reserved;      /* multiplies peak_reserved - peak_allocated (allocator headroom) */
    int64_t calib_context_bytes; /* replaces the CUDA context when >= 0 */
};

/* Applies the config's calibration profile to a result's components before the
 * peak is taken (calib.c); no-op without a profile. */
void llmmem__calib_apply(struct llmmem_result *r, const struct llmmem_config *c);

/* One row of the parameter table (params.c). */
typedef struct llmmem__param_info {
    int id;                    /* llmmem_param */
    const char *name;
    const char *section;       /* scenario JSON section: "training", "engine", ... */
    int type;                  /* llmmem_type */
    size_t offset;             /* into struct llmmem_config */
    int64_t lo, hi, def_i;     /* integer, bool, enum */
    double lo_f, hi_f, def_f;  /* real */
    const char *def_s;         /* text */
    const char *const *enum_names; /* NULL-terminated, for enums */
    const char *doc;
} llmmem__param_info;

const llmmem__param_info *llmmem__param_find(int id);
const llmmem__param_info *llmmem__param_by_name(const char *name);

/* ---- GPUs (gpus.c) -------------------------------------------------------- */

typedef struct llmmem__gpu {
    const char *name;
    uint64_t memory_bytes;          /* what cudaMemGetInfo reports as total */
    uint64_t cuda_context_bytes;    /* context + kernels outside the allocator */
    uint64_t cublas_workspace_bytes; /* per handle/stream, through the allocator */
    double bf16_tflops;             /* dense, for the planner */
    double link_gbps;               /* intra-node bandwidth, GB/s per direction */
} llmmem__gpu;
const llmmem__gpu *llmmem__gpu_at(int index);

/* ---- results (result.c) --------------------------------------------------- */

#define LLMMEM__PHASES 5
#define LLMMEM__COMPONENTS 14
#define LLMMEM__MAX_TERMS 48
#define LLMMEM__MAX_STAGES 64
#define LLMMEM__MAX_INPUTS 24
#define LLMMEM__RKEYS 26 /* LLMMEM_R_PARAMS .. LLMMEM_R_ACTIVE_PARAMS */

typedef struct llmmem__term {
    const char *name;    /* static */
    const char *formula; /* static: formula and source */
    uint64_t bytes;
} llmmem__term;

struct llmmem_result {
    uint64_t bytes[LLMMEM__PHASES][LLMMEM__COMPONENTS]; /* live bytes at each phase's peak */
    bool phase_used[LLMMEM__PHASES];
    /* scalars indexed by key - LLMMEM_R_PARAMS; the key's type says which member */
    union {
        uint64_t u;
        int64_t i;
        double f;
    } v[LLMMEM__RKEYS];
    int stage_count;
    uint64_t stage_peak[LLMMEM__MAX_STAGES];
    int term_count;
    llmmem__term terms[LLMMEM__MAX_TERMS];
    int note_count;
    char notes[LLMMEM__MAX_NOTES][LLMMEM__NOTE_MAX];
    int input_count;
    const char *input_name[LLMMEM__MAX_INPUTS]; /* static */
    int64_t input_value[LLMMEM__MAX_INPUTS];
    int mode;       /* enum llmmem__mode */
    int engine;     /* enum llmmem__engine */
    uint64_t largest_block; /* largest transient tensor (allocator model) */
    bool checkpointing;
    char model_type[LLMMEM__NAME_MAX];
};

void llmmem__result_clear(struct llmmem_result *r);
/* Adds a term (ignored past LLMMEM__MAX_TERMS). */
void llmmem__result_term(struct llmmem_result *r, const char *name, const char *formula,
                         uint64_t bytes);
void llmmem__result_note(struct llmmem_result *r, const char *fmt, ...) LLMMEM_PRINTF(2, 3);
/* Records an input symbol of the formulas (name static; ignored past the limit). */
void llmmem__result_input(struct llmmem_result *r, const char *name, int64_t value);
void llmmem__result_set_u64(struct llmmem_result *r, int key, uint64_t v);
void llmmem__result_set_i64(struct llmmem_result *r, int key, int64_t v);
void llmmem__result_set_f64(struct llmmem_result *r, int key, double v);
uint64_t llmmem__result_u64(const struct llmmem_result *r, int key);
/* Sums each phase, picks the peak phase, applies the allocator model, adds the
 * CUDA context and compares with the GPU: fills the peak/fits keys. */
int llmmem__result_finish(struct llmmem_result *r, const struct llmmem_config *c);

/* ---- caching allocator model (alloc.c) ----------------------------------- */

/* Bytes the allocator counts for a request (512-byte rounding). */
uint64_t llmmem__alloc_block(uint64_t request);
/* Reserved-bytes model from the allocated peak and the largest tensors. */
uint64_t llmmem__alloc_reserved(uint64_t peak_allocated, uint64_t largest_block,
                                bool checkpointing, bool expandable_segments);

/* ---- small text helpers (text.c) ------------------------------------------ */

/* Parses a human-readable count: "7B", "1.5e9", "770M", "13b", "1,000". */
int llmmem__parse_count(int64_t *out, const char *text);
/* Parses a real number without the locale ("0.9", "-1.5e3"); -1 if not one. */
int llmmem__parse_f64(double *out, const char *text);
/* Case-sensitive name lookup in a NULL-terminated list; -1 if absent. */
int llmmem__name_index(const char *const *names, const char *name);

/* snprintf-style output buffer that counts what it would need. */
typedef struct llmmem__buf {
    char *p;
    size_t cap;
    size_t len; /* bytes that would have been written, excluding NUL */
} llmmem__buf;
void llmmem__buf_printf(llmmem__buf *b, const char *fmt, ...) LLMMEM_PRINTF(2, 3);
void llmmem__buf_json_string(llmmem__buf *b, const char *s);
/* Writes a double without the locale (at most 6 decimals). */
void llmmem__buf_f64(llmmem__buf *b, double v);
/* Terminates and reports: LLMMEM_E_BUFFER_TOO_SMALL when it did not fit. */
int llmmem__buf_finish(llmmem__buf *b, size_t *needed);

/* ---- JSON (json.c: the only file that includes cJSON) --------------------- */

typedef struct llmmem__json llmmem__json;     /* a parsed document with positions */
typedef struct cJSON llmmem__jnode;           /* a node in it */

enum llmmem__jtype { LLMMEM__J_NULL = 0, LLMMEM__J_BOOL, LLMMEM__J_NUMBER, LLMMEM__J_STRING,
                     LLMMEM__J_ARRAY, LLMMEM__J_OBJECT, LLMMEM__J_INVALID };

/* Parses text; `source` names it in errors ("config.json"). LLMMEM_E_PARSE with
 * "source:line:col: ..." on bad JSON. The document points into `text` and
 * `source`, which must outlive it. */
int llmmem__json_parse(llmmem__json **out, const char *text, size_t len, const char *source);
void llmmem__json_free(llmmem__json *doc);
const llmmem__jnode *llmmem__json_root(const llmmem__json *doc);
const char *llmmem__json_source(const llmmem__json *doc);
int llmmem__json_type(const llmmem__jnode *n);
/* Case-sensitive member lookup; NULL if absent or n is not an object. */
const llmmem__jnode *llmmem__json_get(const llmmem__jnode *obj, const char *key);
/* Iteration over object members and array items. */
const llmmem__jnode *llmmem__json_first(const llmmem__jnode *n);
const llmmem__jnode *llmmem__json_next(const llmmem__jnode *n);
const char *llmmem__json_key(const llmmem__jnode *n); /* member name */
double llmmem__json_number(const llmmem__jnode *n);
const char *llmmem__json_string(const llmmem__jnode *n);
bool llmmem__json_true(const llmmem__jnode *n);
int llmmem__json_array_size(const llmmem__jnode *n);
/* 1-based line and column of a node's value in the source text. */
void llmmem__json_pos(const llmmem__json *doc, const llmmem__jnode *n, int *line, int *col);
/* Typed readers that fail with "source:line:col: key: expected ..." (LLMMEM_E_SCHEMA)
 * or LLMMEM_E_OUT_OF_RANGE. `path` is the key path for the message ("model.hidden_size").
 * A JSON null or an absent key leaves *out unchanged and returns 0 when !required. */
int llmmem__json_read_i64(int64_t *out, const llmmem__json *doc, const llmmem__jnode *obj,
                          const char *key, const char *path, int64_t lo, int64_t hi, bool required);
int llmmem__json_read_f64(double *out, const llmmem__json *doc, const llmmem__jnode *obj,
                          const char *key, const char *path, double lo, double hi, bool required);
int llmmem__json_read_bool(bool *out, const llmmem__json *doc, const llmmem__jnode *obj,
                           const char *key, const char *path, bool required);
/* Copies a string member into buf (truncation is an error). */
int llmmem__json_read_str(char *buf, size_t cap, const llmmem__json *doc, const llmmem__jnode *obj,
                          const char *key, const char *path, bool required);
/* Reports an error at a node: "source:line:col: path: message". */
int llmmem__json_error_at(const llmmem__json *doc, const llmmem__jnode *n, int status,
                          const char *path, const char *fmt, ...) LLMMEM_PRINTF(5, 6);
/* Reads a whole file into a NUL-terminated malloc'd buffer (LLMMEM_E_IO names the path). */
int llmmem__read_file(char **out, size_t *len, const char *path);

/* HF config.json -> model fields (hfconfig.c). */
int llmmem__model_from_json_doc(struct llmmem_model *m, const llmmem__json *doc,
                                const llmmem__jnode *root);

/* ---- estimators ------------------------------------------------------------ */

/* Bytes of the model states, shared by every engine (train.c). Engines shard
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
/* NULL checks shared by the estimator entry points, then llmmem__model_validate. */
int llmmem__check_args(const llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg,
                       const char *fn);
/* Extra bytes an engine adds per phase (buffers, gathered parameters). */
typedef struct llmmem__engine_extra {
    uint64_t fwd[LLMMEM__COMPONENTS], bwd[LLMMEM__COMPONENTS], opt[LLMMEM__COMPONENTS];
} llmmem__engine_extra;
/* Fills a result's phases from a (possibly sharded) training model. */
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

/* ---- planner (plan.c) ------------------------------------------------------ */

/* Modelled time of one optimizer step (training) or one generate call
 * (inference), in seconds, by part (docs/planner.md states every formula). */
typedef struct llmmem__steptime {
    double flops;      /* floating-point operations of the step, all GPUs together */
    double compute_s;  /* flops / (GPUs x dense bf16 rate x efficiency) */
    double bubble_s;   /* pipeline bubble: compute_s x (p - 1) / m */
    double comm_s;     /* DP/ZeRO/FSDP + TP + CP + EP + PP traffic / link bandwidth */
    double offload_s;  /* PCIe / NVMe traffic and the CPU optimizer */
    double overhead_s; /* per layer per pass latency (kernel launches) */
    double total_s;    /* the sum: no overlap is assumed */
} llmmem__steptime;
/* trainable: parameters with gradients (LLMMEM_R_TRAINABLE_PARAMS of the estimate). */
void llmmem__plan_step_time(llmmem__steptime *out, const struct llmmem_model *m,
                            const struct llmmem_config *c, int64_t trainable);

/* ---- distributed engines (engines.c, zero.c, fsdp.c, megatron.c) --------- */
/* Added for the engines issue. */

/* A parallel layout: world = dp x tp x pp x cp; experts split over ep x etp. */
typedef struct llmmem__layout {
    int64_t world, dp, tp, pp, cp, ep, etp, vpp;
    int64_t per_node; /* GPUs of this job on one node: min(gpus_per_node, world) */
    int64_t nodes;    /* ceil(world / gpus_per_node) */
} llmmem__layout;
/* Reads and validates the layout (LLMMEM_E_INCONSISTENT naming the numbers).
 * model_parallel: the engine accepts TP/PP/CP/EP (Megatron); else they must be 1. */
int llmmem__engine_layout(llmmem__layout *l, const struct llmmem_model *m,
                          const struct llmmem_config *c, bool model_parallel, const char *engine);
/* bytes x num / den, rounded up, without 64-bit overflow of the product. */
uint64_t llmmem__engine_scale(uint64_t bytes, uint64_t num, uint64_t den);
/* Sets NUM_GPUS, HOST/NVME bytes and GPUS_NEEDED after llmmem__train_fill.
 * sharded: bytes per GPU at the peak that shrink as 1/dp (0 when none). */
void llmmem__engine_keys(struct llmmem_result *r, const llmmem__layout *l, uint64_t host,
                         uint64_t nvme, uint64_t sharded);
/* DeepSpeed's estimate_zero2_model_states_mem_needs (stage 2) and
 * estimate_zero3_model_states_mem_needs (stage 3), exactly (zero.c). */
void llmmem__zero_estimator(uint64_t *gpu, uint64_t *cpu, int stage, uint64_t total_params,
                            uint64_t largest_layer_params, uint64_t gpus_per_node, uint64_t nodes,
                            bool offload_optimizer, bool offload_param, bool zero_init);
/* Megatron-LM theoretical_memory_usage.py (megatron.c): weights+optimizer and
 * activation bytes of the most loaded shard, in Megatron's own float arithmetic. */
void llmmem__megatron_theoretical(double *weights_optim, double *activations,
                                  const struct llmmem_model *m, const struct llmmem_config *c,
                                  const llmmem__layout *l);
/* ---- end of the engines block ---- */

/* ---- vision (vision.c) ---------------------------------------------------- */
/* Values of LLMMEM_P_VISION_TRAINING (order = vision_names in params.c). */
enum llmmem__vtrain { LLMMEM__VT_FROZEN = 0, LLMMEM__VT_FULL = 1, LLMMEM__VT_LORA = 2 };
/* ---- end of the vision block ---- */

#endif /* LLMMEM_INTERNAL_H */
