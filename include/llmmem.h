/**
 * @file llmmem.h
 * @brief libllmmem: per-GPU memory of LLM training and inference, before launch.
 *
 * Data flow: a model (llmmem_model, from a HuggingFace config.json, a preset name
 * or raw numbers) and a configuration (llmmem_config, enum-keyed parameters) go into
 * an estimator; it fills a result (llmmem_result) with per-phase, per-component
 * bytes, the peak, and whether it fits. The result serialises to JSON.
 *
 * Conventions (libgit2/zstd style):
 * - Every fallible function returns int: LLMMEM_OK (0) or a negative ::llmmem_status.
 *   llmmem_last_error() gives this thread's detail text (key, value, line:column).
 * - Out parameters come first. Handles are opaque; each has one *_free that takes NULL.
 * - The library never frees caller memory and never returns memory the caller must
 *   free: text goes into caller buffers, snprintf-style.
 * - Thread safety: every function is reentrant. Models and configs may be read by
 *   many threads at once; a handle being modified or freed must not be used by
 *   another thread at the same time. The error text is thread-local.
 * - Byte counts are uint64_t, element counts int64_t, ratios double.
 *
 * All functions appeared in version 0.1.0 unless noted.
 */
#ifndef LLMMEM_H
#define LLMMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(LLMMEM_STATIC)
#define LLMMEM_API
#elif defined(_WIN32)
#if defined(LLMMEM_BUILDING)
#define LLMMEM_API __declspec(dllexport)
#else
#define LLMMEM_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#define LLMMEM_API __attribute__((visibility("default")))
#else
#define LLMMEM_API
#endif

/** @name Version (the single source of the version; the Makefile reads these lines) */
/**@{*/
#define LLMMEM_VERSION_MAJOR 0
#define LLMMEM_VERSION_MINOR 2
#define LLMMEM_VERSION_PATCH 0
#define LLMMEM_VERSION_NUMBER                                                  \
    (LLMMEM_VERSION_MAJOR * 10000 + LLMMEM_VERSION_MINOR * 100 +               \
     LLMMEM_VERSION_PATCH)
#define LLMMEM_VERSION_STRING "0.2.0"
/** ABI major: the SONAME is libllmmem.so.LLMMEM_SOVERSION. */
#define LLMMEM_SOVERSION 1
/**@}*/

/* LLMMEM_CDEF_BEGIN: cffi.cdef() parses this section after "LLMMEM_API " is
 * removed. No preprocessor lines between the markers. */

/** A model description (architecture fields and exact parameter counts). */
typedef struct llmmem_model llmmem_model;
/** A workload, precision, engine, parallelism and hardware configuration. */
typedef struct llmmem_config llmmem_config;
/** The result of one estimate; reusable across estimates. */
typedef struct llmmem_result llmmem_result;

/** Status codes. Values are part of the ABI. */
typedef enum llmmem_status {
    LLMMEM_OK = 0,
    LLMMEM_E_INVALID_ARG = -1,   /**< NULL pointer or unknown enum value */
    LLMMEM_E_NOMEM = -2,         /**< allocation failed */
    LLMMEM_E_IO = -3,            /**< a file could not be read */
    LLMMEM_E_PARSE = -4,         /**< text is not valid JSON / not a number */
    LLMMEM_E_SCHEMA = -5,        /**< valid JSON, but a key is missing or mistyped */
    LLMMEM_E_UNKNOWN_PARAM = -6, /**< no parameter, preset or key of that name */
    LLMMEM_E_PARAM_TYPE = -7,    /**< typed accessor does not match the type */
    LLMMEM_E_OUT_OF_RANGE = -8,  /**< value outside its bounds, or an overflow */
    LLMMEM_E_UNSUPPORTED = -9,   /**< architecture or feature not modelled */
    LLMMEM_E_BUFFER_TOO_SMALL = -10, /**< caller buffer shorter than needed */
    LLMMEM_E_INCONSISTENT = -11, /**< values conflict (e.g. heads not divisible by TP) */
    LLMMEM_E_INTERNAL = -99      /**< a bug: please report it */
} llmmem_status;

/** Value type of a parameter or a result key. */
typedef enum llmmem_type {
    LLMMEM_TYPE_I64 = 1,  /**< integer */
    LLMMEM_TYPE_F64 = 2,  /**< real number */
    LLMMEM_TYPE_BOOL = 3, /**< integer 0 or 1 */
    LLMMEM_TYPE_ENUM = 4, /**< integer index into named values */
    LLMMEM_TYPE_STR = 5,  /**< text */
    LLMMEM_TYPE_U64 = 6   /**< byte count (result keys only) */
} llmmem_type;

/** Configuration parameters, grouped by hundreds; append only, never renumbered.
 *  Each has a name (llmmem_param_name), a type, bounds and a default. */
typedef enum llmmem_param {
    /* workload (1xx) */
    LLMMEM_P_MODE = 100,            /**< enum: training, inference */
    LLMMEM_P_MICRO_BATCH_SIZE = 101, /**< i64: sequences per GPU per micro-step */
    LLMMEM_P_SEQ_LEN = 102,         /**< i64: tokens per training sequence */
    LLMMEM_P_GRAD_ACCUM_STEPS = 103, /**< i64: micro-steps per optimizer step */
    LLMMEM_P_BATCH_SIZE = 104,      /**< i64: inference sequences */
    LLMMEM_P_PROMPT_LEN = 105,      /**< i64: inference prompt tokens */
    LLMMEM_P_DECODE_LEN = 106,      /**< i64: generated tokens */
    LLMMEM_P_PEAK_SCOPE = 107,      /**< enum: step, process (also loading and quantising) @since 0.2 */
    /* precision (2xx) */
    LLMMEM_P_PARAM_DTYPE = 200,     /**< enum dtype of the stored weights */
    LLMMEM_P_COMPUTE_DTYPE = 201,   /**< enum dtype of matmuls (autocast when != param) */
    LLMMEM_P_MASTER_WEIGHTS = 202,  /**< enum false, true, auto: separate fp32 master copy; auto
                                         (default) = the engine's own (ZeRO/Megatron keep one with
                                         16-bit compute); 0 and 1 keep their meaning (was a bool) */
    LLMMEM_P_GRAD_DTYPE = 203,      /**< enum: auto (= the engine's default), fp32, bf16, fp16 */
    LLMMEM_P_WEIGHTS_FORMAT = 204,  /**< enum: inference storage format (auto, fp32, ..., gptq, awq, mxfp4) */
    LLMMEM_P_KV_CACHE_DTYPE = 205,  /**< enum: auto, fp32, fp16, bf16, fp8 */
    LLMMEM_P_QUANT_BITS = 206,      /**< i64: GPTQ/AWQ bits (0 = from model) */
    LLMMEM_P_QUANT_GROUP_SIZE = 207, /**< i64: GPTQ/AWQ group size (0 = from model) */
    LLMMEM_P_FP8_RECIPE = 208,      /**< enum: none, delayed, blockwise (Transformer Engine) */
    /* optimizer (3xx) */
    LLMMEM_P_OPTIMIZER = 300,       /**< enum: adamw, adam, sgd, ... */
    LLMMEM_P_OPTIMIZER_IMPL = 301,  /**< enum: foreach, fused, forloop */
    LLMMEM_P_OPTIMIZER_STATE_DTYPE = 302, /**< enum: auto (= the engine's default: master/param dtype), fp32, bf16 */
    LLMMEM_P_STEP = 303,            /**< enum: max, first, steady */
    LLMMEM_P_OPTIMIZER_IN_BACKWARD = 304, /**< bool: per-parameter step inside backward, gradients
                                         freed as they go (torchtune optimizer_in_bwd) @since 0.2 */
    /* activations (4xx) */
    LLMMEM_P_ATTENTION = 400,       /**< enum: sdpa, flash, eager */
    LLMMEM_P_CHECKPOINTING = 401,   /**< enum: none, full, selective, selective_op */
    LLMMEM_P_LOSS = 402,            /**< enum: hf, vocab_parallel, chunked, liger, torchtune_chunked, litgpt_chunked */
    LLMMEM_P_ACTIVATION_PROFILE = 403, /**< enum: auto, hf, megatron, torchtune, litgpt */
    LLMMEM_P_DROPOUT = 404,         /**< enum: model (from config), off, on */
    LLMMEM_P_COMPILE = 405,         /**< enum: none, layers, model (torch.compile scope) @since 0.2 */
    LLMMEM_P_ACTIVATION_OFFLOADING = 406, /**< enum: none, streams, save_on_cpu @since 0.2 */
    LLMMEM_P_LOSS_CHUNKS = 407,     /**< i64: output chunks of torchtune_chunked (0 = 8) @since 0.2 */
    LLMMEM_P_LIGER_KERNELS = 408,   /**< bool: Liger RMSNorm, SwiGLU and RoPE kernels replace the HF
                                         modules @since 0.2 */
    /* LoRA / QLoRA (5xx) */
    LLMMEM_P_LORA_RANK = 500,       /**< i64: 0 = full fine-tuning */
    LLMMEM_P_LORA_ALPHA = 501,      /**< f64 */
    LLMMEM_P_LORA_TARGETS = 502,    /**< str: comma list of module names, or all-linear */
    LLMMEM_P_LORA_DROPOUT = 503,    /**< f64 */
    LLMMEM_P_QLORA = 504,           /**< enum: none, nf4, fp4, int8 (frozen base storage) */
    LLMMEM_P_QLORA_DOUBLE_QUANT = 505, /**< bool */
    LLMMEM_P_QLORA_COMPUTE_DTYPE = 506, /**< enum dtype: bitsandbytes 4-bit compute dtype
                                             (bnb_4bit_compute_dtype); auto = the framework's: fp32 for
                                             transformers' BitsAndBytesConfig without it, the model
                                             dtype for LitGPT/Lightning (axolotl and TRL set it to the
                                             model dtype) @since 0.2 */
    LLMMEM_P_QLORA_QUANTIZE_HEAD = 507, /**< enum: auto, off, on: the output head stored in 4 bits
                                             too; auto = the framework's (LitGPT/Lightning
                                             BitsandbytesPrecision: on; transformers: off) @since 0.2 */
    /* engine (6xx) */
    LLMMEM_P_ENGINE = 600,          /**< enum: single, ddp, zero, fsdp, megatron, megatron_deepspeed */
    LLMMEM_P_ZERO_STAGE = 601,      /**< i64 0..3 */
    LLMMEM_P_OFFLOAD_OPTIMIZER = 602, /**< enum: none, cpu, nvme */
    LLMMEM_P_OFFLOAD_PARAM = 603,   /**< enum: none, cpu, nvme */
    LLMMEM_P_BUCKET_CAP_MB = 604,   /**< f64: DDP bucket_cap_mb */
    LLMMEM_P_GRADIENT_AS_BUCKET_VIEW = 605, /**< bool */
    LLMMEM_P_REDUCE_BUCKET_SIZE = 606, /**< i64 elements */
    LLMMEM_P_ALLGATHER_BUCKET_SIZE = 607, /**< i64 elements */
    LLMMEM_P_CONTIGUOUS_GRADIENTS = 608, /**< bool */
    LLMMEM_P_OVERLAP_COMM = 609,    /**< enum: auto, off, on */
    LLMMEM_P_STAGE3_MAX_LIVE_PARAMETERS = 610, /**< i64 */
    LLMMEM_P_STAGE3_PREFETCH_BUCKET_SIZE = 611, /**< i64 */
    LLMMEM_P_STAGE3_PARAM_PERSISTENCE_THRESHOLD = 612, /**< i64 */
    LLMMEM_P_ZERO_HPZ_PARTITION_SIZE = 613, /**< i64: ZeRO++ secondary partition */
    LLMMEM_P_FSDP_VERSION = 614,    /**< i64 1 or 2 */
    LLMMEM_P_FSDP_SHARDING = 615,   /**< enum: full_shard, shard_grad_op, no_shard, hybrid_shard */
    LLMMEM_P_FSDP_CPU_OFFLOAD = 616, /**< bool */
    LLMMEM_P_DISTRIBUTED_OPTIMIZER = 617, /**< bool (Megatron) */
    LLMMEM_P_ACCOUNTING = 618,      /**< enum: runtime, deepspeed_estimator, megatron_theoretical */
    LLMMEM_P_ZERO_INIT = 619,       /**< bool: deepspeed.zero.Init (estimator mode) */
    LLMMEM_P_FSDP_PARAM_DTYPE = 620, /**< enum: MixedPrecisionPolicy.param_dtype, the dtype FSDP
                                          all-gathers in and computes with; auto = no policy (the
                                          stored dtype) @since 0.2 */
    LLMMEM_P_FSDP_REDUCE_DTYPE = 621, /**< enum: MixedPrecisionPolicy.reduce_dtype; auto = the
                                           gradient's dtype (= fsdp_param_dtype) @since 0.2 */
    LLMMEM_P_FSDP_RESHARD_AFTER_FORWARD = 622, /**< i64: FSDP2 reshard_after_forward: -1 auto (True
                                                    for every unit but the root), 0 False, 1 True,
                                                    k >= 2 reshard to k ranks @since 0.2 */
    LLMMEM_P_FSDP_CUSTOM_SHARDED_LAYERS = 623, /**< bool: embedding and head as FSDP units of their own
                                                 (torchtune custom_sharded_layers) @since 0.2 */
    LLMMEM_P_OFFLOAD_PIN_MEMORY = 624, /**< enum: auto, off, on: offloaded states in pinned (page-locked) host
                                            memory: DeepSpeed offload_*.pin_memory, FSDP2
                                            CPUOffloadPolicy.pin_memory; auto = the framework's default
                                            (on: DeepSpeed >= 0.19.5, FSDP) @since 0.2 */
    /* parallelism (7xx) */
    LLMMEM_P_NUM_GPUS = 700,        /**< i64: total GPUs (0 = product of the sizes) */
    LLMMEM_P_DATA_PARALLEL = 701,   /**< i64 */
    LLMMEM_P_TENSOR_PARALLEL = 702, /**< i64 */
    LLMMEM_P_PIPELINE_PARALLEL = 703, /**< i64 */
    LLMMEM_P_CONTEXT_PARALLEL = 704, /**< i64 */
    LLMMEM_P_EXPERT_PARALLEL = 705, /**< i64 */
    LLMMEM_P_EXPERT_TENSOR_PARALLEL = 706, /**< i64 */
    LLMMEM_P_SEQUENCE_PARALLEL = 707, /**< bool */
    LLMMEM_P_VIRTUAL_PIPELINE = 708, /**< i64: model chunks per device */
    LLMMEM_P_NUM_MICROBATCHES = 709, /**< i64: pipeline micro-batches per step (0 = PP) */
    LLMMEM_P_GPUS_PER_NODE = 710,   /**< i64 */
    /* serving runtime (8xx) */
    LLMMEM_P_RUNTIME = 800,         /**< enum: hf, vllm */
    LLMMEM_P_GPU_MEMORY_UTILIZATION = 801, /**< f64 in (0, 1] */
    LLMMEM_P_MAX_NUM_BATCHED_TOKENS = 802, /**< i64 */
    LLMMEM_P_MAX_NUM_SEQS = 803,    /**< i64 */
    LLMMEM_P_KV_BLOCK_SIZE = 804,   /**< i64 tokens */
    LLMMEM_P_MAX_MODEL_LEN = 805,   /**< i64 tokens (0 = model's max positions) */
    LLMMEM_P_CUDA_GRAPHS = 806,     /**< bool */
    LLMMEM_P_VLLM_VERSION = 807,    /**< str: vLLM version whose accounting applies ("" = newest modelled) */
    LLMMEM_P_ENFORCE_EAGER = 808,   /**< bool: vLLM --enforce-eager (no CUDA graphs) */
    LLMMEM_P_QUANTIZATION = 809,    /**< enum: vLLM --quantization (auto = the checkpoint's method) */
    LLMMEM_P_ENABLE_CHUNKED_PREFILL = 810, /**< enum: auto, off, on */
    LLMMEM_P_VLLM_USAGE_CONTEXT = 811, /**< enum: serve (vllm serve), llm (LLM class): batch defaults */
    LLMMEM_P_FLASHINFER_SAMPLER = 812, /**< enum: auto, off, on: FlashInfer top-k/top-p sampler */
    LLMMEM_P_ENABLE_EXPERT_PARALLEL = 813, /**< bool: vLLM --enable-expert-parallel */
    LLMMEM_P_DISABLE_CUSTOM_ALL_REDUCE = 814, /**< bool */
    LLMMEM_P_ENABLE_PREFIX_CACHING = 815, /**< enum: auto, off, on */
    LLMMEM_P_KV_CACHE_MEMORY_BYTES = 816, /**< i64: vLLM --kv-cache-memory (0 = from the utilization) */
    LLMMEM_P_DISABLE_HYBRID_KV_CACHE_MANAGER = 817, /**< bool */
    LLMMEM_P_NUM_GPU_BLOCKS_OVERRIDE = 818, /**< i64: 0 = none */
    LLMMEM_P_MAMBA_SSM_CACHE_DTYPE = 819, /**< enum: auto, fp32, fp16, bf16 */
    LLMMEM_P_VLLM_MODEL_RUNNER = 820, /**< enum: auto, v1, v2 (VLLM_USE_V2_MODEL_RUNNER) */
    LLMMEM_P_CUDAGRAPH_MEMORY_ESTIMATE = 821, /**< enum: auto, off, on (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS) */
    LLMMEM_P_VLLM_IMAGE = 822,      /**< bool: FlashInfer and triton_kernels installed (vllm-openai image) before 0.12 */
    LLMMEM_P_N_GPU_LAYERS = 823,    /**< i64: llama.cpp -ngl, layers on the GPU counting the output layer (-1 = all) @since 0.2 */
    LLMMEM_P_CTX_SIZE = 824,        /**< i64: llama.cpp --ctx-size (0 = the model's context_length) @since 0.2 */
    LLMMEM_P_N_BATCH = 825,         /**< i64: llama.cpp --batch-size @since 0.2 */
    LLMMEM_P_N_UBATCH = 826,        /**< i64: llama.cpp --ubatch-size @since 0.2 */
    LLMMEM_P_N_PARALLEL = 827,      /**< i64: llama.cpp --parallel (sequences) @since 0.2 */
    LLMMEM_P_CACHE_TYPE_K = 828,    /**< enum: llama.cpp --cache-type-k (f16, f32, bf16, q8_0, q4_0, ...) @since 0.2 */
    LLMMEM_P_CACHE_TYPE_V = 829,    /**< enum: llama.cpp --cache-type-v @since 0.2 */
    LLMMEM_P_FLASH_ATTN = 830,      /**< enum: llama.cpp --flash-attn auto, off, on @since 0.2 */
    LLMMEM_P_KV_UNIFIED = 831,      /**< bool: llama.cpp --kv-unified @since 0.2 */
    LLMMEM_P_SWA_FULL = 832,        /**< bool: llama.cpp --swa-full @since 0.2 */
    LLMMEM_P_N_CPU_MOE = 833,       /**< i64: llama.cpp --n-cpu-moe: experts of the first N layers on the CPU @since 0.2 */
    LLMMEM_P_NO_KV_OFFLOAD = 834,   /**< bool: llama.cpp --no-kv-offload: the KV cache in host memory @since 0.2 */
    LLMMEM_P_OVERRIDE_TENSOR = 835, /**< str: llama.cpp --override-tensor (-ot): PATTERN=BUFFER[,...] @since 0.2 */
    LLMMEM_P_CPU_OFFLOAD_GB = 836,  /**< f64: vLLM --cpu-offload-gb, GiB of weights per GPU in pinned host memory @since 0.2 */
    LLMMEM_P_SWAP_SPACE = 837,      /**< f64: vLLM --swap-space GiB per GPU (default 4; V1 allocates none; refused when set for 0.18+) @since 0.2 */
    /* hardware (9xx) */
    LLMMEM_P_GPU = 900,             /**< enum: GPU table (llmmem_gpu_name) */
    LLMMEM_P_GPU_MEMORY_BYTES = 901, /**< i64: overrides the table (0 = from GPU) */
    LLMMEM_P_CUDA_CONTEXT_BYTES = 902, /**< i64: -1 = default for the GPU */
    LLMMEM_P_CUBLAS_WORKSPACE_BYTES = 903, /**< i64: -1 = default for the GPU */
    LLMMEM_P_EXPANDABLE_SEGMENTS = 904, /**< bool: PYTORCH_CUDA_ALLOC_CONF */
    LLMMEM_P_ALLOCATOR_REPLAY = 905, /**< bool: peak_reserved from a replay of the caching allocator (0.2) */
    LLMMEM_P_MAX_SPLIT_SIZE_BYTES = 906, /**< i64: PYTORCH_CUDA_ALLOC_CONF max_split_size_mb x 2^20 (0 = unlimited; 0.2) */
    LLMMEM_P_GC_THRESHOLD = 907,    /**< f64: PYTORCH_CUDA_ALLOC_CONF garbage_collection_threshold (0 = off; 0.2) */
    LLMMEM_P_EMPTY_CACHE_STEPS = 908, /**< i64: torch.cuda.empty_cache() every N optimizer steps (0 = never; 0.2) */
    LLMMEM_P_PRIOR_WORKSPACE_SEGMENT_BYTES = 909, /**< i64: segment an earlier run left around the autograd thread's cuBLAS workspace (0 = fresh process; 0.2) */
    LLMMEM_P_HOST_MEMORY_BYTES = 910, /**< i64: host RAM per node the host figures are checked against
                                           (fits_host); 0 = not checked @since 0.2 */
    /* vision-language workloads (10xx) */
    LLMMEM_P_IMAGES_PER_SAMPLE = 1000, /**< i64: images per sequence (0 = text only) */
    LLMMEM_P_IMAGE_HEIGHT = 1001,   /**< i64 pixels (0 = the processor's fixed size) */
    LLMMEM_P_IMAGE_WIDTH = 1002,    /**< i64 pixels (0 = the processor's fixed size) */
    LLMMEM_P_VIDEO_FRAMES = 1003,   /**< i64: frames per video (each a sequence of images; 0 = none) */
    LLMMEM_P_VISION_TRAINING = 1004, /**< enum: frozen, full, lora (the vision tower) */
    LLMMEM_P_MIN_PIXELS = 1005,     /**< i64: Qwen2-VL dynamic resolution lower bound (0 = processor default) */
    LLMMEM_P_MAX_PIXELS = 1006,     /**< i64: Qwen2-VL dynamic resolution upper bound (0 = processor default) */
    LLMMEM_P_ENCODER_CACHE = 1007,  /**< bool: serving runtime keeps an encoder-output cache (vllm) */
    LLMMEM_P_LOAD_VISION_TOWER = 1008 /**< enum: auto, off, on: the vision tower is built and loaded;
                                           auto = the runtime's rule (docs/models.md): vLLM, image or
                                           video inputs, or a trained tower load it; otherwise the class
                                           AutoModelForCausalLM builds decides (text only for llama4,
                                           qwen3_5, qwen3_5_moe); on = the ForConditionalGeneration
                                           class, off = the text model @since 0.2 */
} llmmem_param;

/** Values of LLMMEM_P_ENGINE: the training engines. Append only, never renumbered;
 *  the names are llmmem_param_enum_name(LLMMEM_P_ENGINE, value). @since 0.2 */
typedef enum llmmem_engine {
    LLMMEM_ENGINE_SINGLE = 0,            /**< one GPU, no distributed wrapper */
    LLMMEM_ENGINE_DDP = 1,               /**< PyTorch DistributedDataParallel */
    LLMMEM_ENGINE_ZERO = 2,              /**< DeepSpeed ZeRO stage 0-3 */
    LLMMEM_ENGINE_FSDP = 3,              /**< PyTorch FSDP 1/2 */
    LLMMEM_ENGINE_MEGATRON = 4,          /**< Megatron-LM */
    LLMMEM_ENGINE_MEGATRON_DEEPSPEED = 5 /**< Megatron-DeepSpeed */
} llmmem_engine;

/** Values of LLMMEM_P_RUNTIME: the serving runtimes (mode inference). @since 0.2 */
typedef enum llmmem_runtime {
    LLMMEM_RUNTIME_HF = 0,  /**< HF transformers generate */
    LLMMEM_RUNTIME_VLLM = 1, /**< vLLM V1 */
    LLMMEM_RUNTIME_LLAMA_CPP = 2 /**< llama.cpp (a model read from a GGUF file) @since 0.2 */
} llmmem_runtime;

/** Values of the dtype parameters (LLMMEM_P_PARAM_DTYPE, COMPUTE_DTYPE, GRAD_DTYPE,
 *  KV_CACHE_DTYPE, OPTIMIZER_STATE_DTYPE, FSDP_PARAM_DTYPE, FSDP_REDUCE_DTYPE,
 *  MAMBA_SSM_CACHE_DTYPE; each accepts the subset its bounds allow). @since 0.2 */
typedef enum llmmem_dtype {
    LLMMEM_DTYPE_AUTO = 0, /**< the engine's or the model's choice */
    LLMMEM_DTYPE_FP32 = 1,
    LLMMEM_DTYPE_FP16 = 2,
    LLMMEM_DTYPE_BF16 = 3,
    LLMMEM_DTYPE_FP8 = 4
} llmmem_dtype;

/** Values of LLMMEM_P_OPTIMIZER. Append only. @since 0.2 */
typedef enum llmmem_optimizer {
    LLMMEM_OPTIMIZER_ADAMW = 0,
    LLMMEM_OPTIMIZER_ADAM = 1,
    LLMMEM_OPTIMIZER_SGD = 2,
    LLMMEM_OPTIMIZER_SGD_MOMENTUM = 3,
    LLMMEM_OPTIMIZER_NESTEROV = 4,
    LLMMEM_OPTIMIZER_ADAGRAD = 5,
    LLMMEM_OPTIMIZER_RMSPROP = 6,
    LLMMEM_OPTIMIZER_NADAM = 7,
    LLMMEM_OPTIMIZER_RADAM = 8,
    LLMMEM_OPTIMIZER_AMSGRAD = 9,
    LLMMEM_OPTIMIZER_ADAMAX = 10,
    LLMMEM_OPTIMIZER_ADAFACTOR = 11,
    LLMMEM_OPTIMIZER_LION = 12,
    LLMMEM_OPTIMIZER_LAMB = 13,
    LLMMEM_OPTIMIZER_SPARSE_ADAM = 14,
    LLMMEM_OPTIMIZER_ADAM_MINI = 15,
    LLMMEM_OPTIMIZER_MUON = 16,
    LLMMEM_OPTIMIZER_ADAMW_8BIT = 17,
    LLMMEM_OPTIMIZER_PAGED_ADAMW_8BIT = 18,
    LLMMEM_OPTIMIZER_ADAM_8BIT = 19,
    LLMMEM_OPTIMIZER_PAGED_ADAM_8BIT = 20,
    LLMMEM_OPTIMIZER_PAGED_ADAMW_32BIT = 21,
    LLMMEM_OPTIMIZER_ADAMW_TORCHAO_8BIT = 22,
    LLMMEM_OPTIMIZER_ADAMW_TORCHAO_4BIT = 23,
    LLMMEM_OPTIMIZER_ADABELIEF = 24,         /**< torch-optimizer AdaBelief @since 0.2 */
    LLMMEM_OPTIMIZER_ADABELIEF_AMSGRAD = 25  /**< the same with amsgrad=True @since 0.2 */
} llmmem_optimizer;

/** Model keys (llmmem_model_get_i64 / set_i64). Append only. */
typedef enum llmmem_model_key {
    LLMMEM_M_NUM_LAYERS = 100,
    LLMMEM_M_HIDDEN_SIZE = 101,
    LLMMEM_M_NUM_HEADS = 102,
    LLMMEM_M_NUM_KV_HEADS = 103,
    LLMMEM_M_HEAD_DIM = 104,
    LLMMEM_M_INTERMEDIATE_SIZE = 105,
    LLMMEM_M_VOCAB_SIZE = 106,
    LLMMEM_M_MAX_POSITIONS = 107,
    LLMMEM_M_NUM_EXPERTS = 108,
    LLMMEM_M_EXPERTS_PER_TOKEN = 109,
    LLMMEM_M_MOE_INTERMEDIATE_SIZE = 110,
    LLMMEM_M_TIE_EMBEDDINGS = 111,
    LLMMEM_M_SLIDING_WINDOW = 112,
    LLMMEM_M_NUM_PARAMETERS = 113, /**< set: a target size for a raw model ("7B") */
    /* exact counts (read only) */
    LLMMEM_M_PARAMS = 200,
    LLMMEM_M_PARAMS_EMBEDDING = 201,
    LLMMEM_M_PARAMS_ATTENTION = 202,
    LLMMEM_M_PARAMS_MLP = 203,
    LLMMEM_M_PARAMS_NORM = 204,
    LLMMEM_M_PARAMS_HEAD = 205,
    LLMMEM_M_PARAMS_VISION = 206,
    LLMMEM_M_PARAMS_ACTIVE = 207,
    LLMMEM_M_PARAMS_ROUTER = 208,
    LLMMEM_M_PARAMS_EXPERTS = 209,
    LLMMEM_M_APPROXIMATE = 210 /**< 1: a model_type the registry does not know (estimated from the
                                    keys every HF config shares) or a shape from a size alone; the
                                    model's notes say which (read only) @since 0.2 */
} llmmem_model_key;

/** Phases of a step. Append only. */
typedef enum llmmem_phase {
    LLMMEM_PHASE_FORWARD = 0,
    LLMMEM_PHASE_BACKWARD = 1,
    LLMMEM_PHASE_OPTIMIZER = 2,
    LLMMEM_PHASE_PREFILL = 3,
    LLMMEM_PHASE_DECODE = 4
} llmmem_phase;

/** Components of the live bytes in a phase. Append only. */
typedef enum llmmem_component {
    LLMMEM_C_WEIGHTS = 0,            /**< model weights (the shard this GPU holds) */
    LLMMEM_C_MASTER_WEIGHTS = 1,     /**< fp32 master copy */
    LLMMEM_C_GRADIENTS = 2,
    LLMMEM_C_OPTIMIZER_STATE = 3,
    LLMMEM_C_OPTIMIZER_TRANSIENT = 4, /**< step temporaries */
    LLMMEM_C_ACTIVATIONS = 5,        /**< tensors autograd saved for backward */
    LLMMEM_C_ACTIVATION_TRANSIENT = 6, /**< working tensors, recomputed layer */
    LLMMEM_C_LOGITS = 7,             /**< logits, loss and their gradients */
    LLMMEM_C_AUTOCAST_CACHE = 8,     /**< low-precision weight copies (autocast) */
    LLMMEM_C_KV_CACHE = 9,
    LLMMEM_C_COMM_BUFFERS = 10,      /**< DDP buckets, ZeRO/FSDP buffers */
    LLMMEM_C_GATHERED_PARAMS = 11,   /**< ZeRO-3/FSDP unsharded parameters */
    LLMMEM_C_WORKSPACE = 12,         /**< cuBLAS workspaces */
    LLMMEM_C_OTHER = 13
} llmmem_component;

/** Result keys (scalars). Each has a type: U64 bytes, I64 counts, F64 ratios,
 *  BOOL, ENUM (phase). Append only. */
typedef enum llmmem_result_key {
    LLMMEM_R_PARAMS = 100,             /**< i64 */
    LLMMEM_R_TRAINABLE_PARAMS = 101,   /**< i64 */
    LLMMEM_R_PEAK_ALLOCATED_BYTES = 102, /**< u64: max of torch.cuda.max_memory_allocated */
    LLMMEM_R_PEAK_RESERVED_BYTES = 103, /**< u64: allocator segments at the peak */
    LLMMEM_R_TOTAL_BYTES_PER_GPU = 104, /**< u64: reserved + CUDA context */
    LLMMEM_R_GPU_MEMORY_BYTES = 105,   /**< u64: capacity compared against */
    LLMMEM_R_CUDA_CONTEXT_BYTES = 106, /**< u64 */
    LLMMEM_R_PEAK_PHASE = 107,         /**< enum llmmem_phase */
    LLMMEM_R_FITS = 108,               /**< bool */
    LLMMEM_R_UTILIZATION = 109,        /**< f64: total / capacity */
    LLMMEM_R_HEADROOM_BYTES = 110,     /**< i64: capacity - total (negative: short) */
    LLMMEM_R_GPUS_NEEDED = 111,        /**< i64 */
    LLMMEM_R_NUM_GPUS = 112,           /**< i64 */
    LLMMEM_R_HOST_BYTES = 113,         /**< u64: host RAM per node for offload */
    LLMMEM_R_NVME_BYTES = 114,         /**< u64 */
    LLMMEM_R_WEIGHTS_BYTES = 115,      /**< u64: weights on this GPU */
    LLMMEM_R_PERSISTENT_BYTES = 116,   /**< u64: live between steps */
    LLMMEM_R_FORWARD_SAVED_BYTES = 117, /**< u64: saved by autograd + loss after forward */
    LLMMEM_R_KV_CACHE_BYTES = 118,     /**< u64 */
    LLMMEM_R_KV_BYTES_PER_TOKEN = 119, /**< u64: all layers */
    LLMMEM_R_MAX_CONCURRENT_SEQS = 120, /**< i64 (vllm) */
    LLMMEM_R_MAX_CONTEXT_TOKENS = 121, /**< i64 (vllm) */
    LLMMEM_R_KV_BLOCKS = 122,          /**< i64 (vllm) */
    LLMMEM_R_PIPELINE_STAGES = 123,    /**< i64 */
    LLMMEM_R_PEAK_STAGE = 124,         /**< i64: the pipeline stage with the peak */
    LLMMEM_R_ACTIVE_PARAMS = 125,      /**< i64: per token (MoE) */
    LLMMEM_R_KV_AVAILABLE_BYTES = 126, /**< u64: vLLM "Available KV cache memory" */
    LLMMEM_R_KV_TOKENS = 127,          /**< i64: vLLM "GPU KV cache size: N tokens" */
    LLMMEM_R_MAX_CONCURRENCY = 128,    /**< f64: vLLM "Maximum concurrency for max_model_len" */
    LLMMEM_R_PROFILE_PEAK_BYTES = 129, /**< u64: vLLM profile run's torch peak increase */
    LLMMEM_R_NON_TORCH_BYTES = 130,    /**< u64: vLLM non-torch memory after the baseline */
    LLMMEM_R_CUDA_GRAPH_BYTES = 131,   /**< u64: vLLM CUDA graph memory (estimate) */
    LLMMEM_R_KV_BLOCK_TOKENS = 132,    /**< i64: vLLM block size in tokens (hybrids raise it) */
    LLMMEM_R_REQUESTED_BYTES = 133,    /**< u64: vLLM total * gpu_memory_utilization */
    /* the precision a training estimate assumed, every "auto" resolved (training only;
     * "none" otherwise). Enum values: llmmem_result_enum_name(). @since 0.2 */
    LLMMEM_R_PARAM_DTYPE = 134,        /**< enum: dtype of the stored (sharded) weights */
    LLMMEM_R_COMPUTE_DTYPE = 135,      /**< enum: dtype of the matmuls */
    LLMMEM_R_MASTER_DTYPE = 136,       /**< enum: separate master weights (fp32), or none */
    LLMMEM_R_GRAD_DTYPE = 137,         /**< enum: dtype of the gradients the optimizer reads */
    LLMMEM_R_OPTIMIZER_STATE_DTYPE = 138, /**< enum: dtype of a full-size optimizer state */
    LLMMEM_R_MANAGED_BYTES = 139,      /**< u64: CUDA managed memory (bitsandbytes paged optimizer
                                            state): resident on the GPU, outside peak_allocated;
                                            counted in total_bytes_per_gpu @since 0.2 */
    LLMMEM_R_LOAD_PEAK_BYTES = 140,    /**< u64: peak allocated while the weights are loaded and
                                            quantised (QLoRA); 0 when not modelled @since 0.2 */
    LLMMEM_R_APPROXIMATE = 141,        /**< bool: the estimate is approximate (a model_type the
                                            registry does not know, estimated from the keys every HF
                                            config shares; a shape derived from a parameter count;
                                            QLoRA, unverified; full training in a precision no
                                            framework runs: fp8 parameters or pure fp16 Adam without
                                            masters; a family the reference harness finds more than
                                            5% off, not yet traced): a note beginning "approximate:"
                                            says why @since 0.2 */
    LLMMEM_R_MARGIN_BYTES = 142,       /**< u64: the estimate's own uncertainty at this total, 5% of
                                            peak_reserved_bytes (the bound the accuracy tests hold the
                                            allocator's figure to): a fit or a shortfall smaller than
                                            this (|headroom_bytes| < margin_bytes) is near the boundary,
                                            a larger one is clear @since 0.2 */
    LLMMEM_R_MAX_MODEL_LEN = 143,      /**< i64: vLLM's max_model_len (given, else the model's
                                            max_position_embeddings) @since 0.2 */
    LLMMEM_R_ESTIMATED_MAX_MODEL_LEN = 144, /**< i64: vLLM: the longest context one request can have
                                            in the KV cache memory available, at most the model's
                                            maximum ("the estimated maximum model length" vLLM names
                                            when max_model_len does not fit); 0 when vLLM does not
                                            start for another reason @since 0.2 */
    /* Host memory per node (all ranks of a node together). host_bytes = host_pinned_bytes +
     * host_pageable_bytes wherever the two are known (DeepSpeed's own estimator gives one figure). */
    LLMMEM_R_HOST_PINNED_BYTES = 145,  /**< u64: page-locked host memory per node (cudaHostAlloc; torch's
                                            pinned allocator rounds each block up to a power of two),
                                            part of host_bytes @since 0.2 */
    LLMMEM_R_HOST_PAGEABLE_BYTES = 146, /**< u64: ordinary (pageable) host memory per node, part of
                                             host_bytes @since 0.2 */
    LLMMEM_R_HOST_LOAD_PEAK_BYTES = 147, /**< u64: host memory per node while the weights are loaded
                                              (the framework's load path); 0 when not modelled @since 0.2 */
    LLMMEM_R_HOST_MEMORY_BYTES = 148,  /**< u64: host RAM per node compared against (the parameter
                                            host_memory_bytes); 0 = not checked @since 0.2 */
    LLMMEM_R_FITS_HOST = 149           /**< bool: max(host_bytes, host_load_peak_bytes) <= host_memory_bytes;
                                            meaningful (and in the JSON) only when host_memory_bytes is
                                            set @since 0.2 */
} llmmem_result_key;

/* ---- library information ------------------------------------------------ */

/** @return LLMMEM_VERSION_NUMBER of the library that is running. */
LLMMEM_API unsigned llmmem_version_number(void);
/** @return LLMMEM_VERSION_STRING of the library that is running (static). */
LLMMEM_API const char *llmmem_version_string(void);
/** @return LLMMEM_SOVERSION of the library that is running. */
LLMMEM_API int llmmem_soversion(void);

/* ---- errors ------------------------------------------------------------- */

/** @return "LLMMEM_E_PARSE" etc. for a status; "LLMMEM_E_UNKNOWN" if unknown. Static. */
LLMMEM_API const char *llmmem_status_name(int status);
/** @return a static one-line description of a status. */
LLMMEM_API const char *llmmem_strerror(int status);
/** @return this thread's last error detail, "" if none. Valid until the next
 *  failing call on this thread. A success does not clear it. */
LLMMEM_API const char *llmmem_last_error(void);
/** Clears this thread's error detail. */
LLMMEM_API void llmmem_clear_error(void);

/* ---- enum names (for bindings: every enum is reachable at run time) ---- */

/** @return "forward", ...; NULL if @p phase is unknown. */
LLMMEM_API const char *llmmem_phase_name(int phase);
/** @return "weights", ...; NULL if unknown. */
LLMMEM_API const char *llmmem_component_name(int component);
/** @return the JSON key of a result key ("peak_allocated_bytes"); NULL if unknown. */
LLMMEM_API const char *llmmem_result_key_name(int key);
/** @return the type of a result key, or LLMMEM_E_INVALID_ARG. */
LLMMEM_API int llmmem_result_key_type(int key);
/** @return the name of value @p value of an enum result key ("backward" for
 *  LLMMEM_R_PEAK_PHASE, "bf16" for LLMMEM_R_GRAD_DTYPE); NULL if out of range. @since 0.2 */
LLMMEM_API const char *llmmem_result_enum_name(int key, int64_t value);
/** @return the name of a model key ("hidden_size"); NULL if unknown. */
LLMMEM_API const char *llmmem_model_key_name(int key);
/** Number of phases, for iteration. */
LLMMEM_API int llmmem_phase_count(void);
/** Number of components, for iteration. */
LLMMEM_API int llmmem_component_count(void);
/** Number of result keys, for iteration. */
LLMMEM_API int llmmem_result_key_count(void);
/** @return the i-th result key (0-based), or LLMMEM_E_INVALID_ARG. */
LLMMEM_API int llmmem_result_key_at(int index);
/** Number of model keys, for iteration. */
LLMMEM_API int llmmem_model_key_count(void);
/** @return the i-th model key (0-based), or LLMMEM_E_INVALID_ARG. */
LLMMEM_API int llmmem_model_key_at(int index);

/* ---- parameter introspection (static table, no handle) ------------------ */

/** Number of configuration parameters. */
LLMMEM_API int llmmem_param_count(void);
/** @return the i-th parameter (0-based, in enum order), or LLMMEM_E_INVALID_ARG. */
LLMMEM_API int llmmem_param_at(int index);
/** @return the parameter's name ("micro_batch_size"); NULL if unknown. */
LLMMEM_API const char *llmmem_param_name(int param);
/** Looks a parameter up by name (aliases accepted). */
LLMMEM_API int llmmem_param_from_name(int *out, const char *name);
/** @return the parameter's ::llmmem_type, or LLMMEM_E_INVALID_ARG. */
LLMMEM_API int llmmem_param_type(int param);
/** @return a static one-line description; NULL if unknown. */
LLMMEM_API const char *llmmem_param_doc(int param);
/** Bounds of an integer, bool or enum parameter (inclusive). */
LLMMEM_API int llmmem_param_bounds_i64(int64_t *lo, int64_t *hi, int param);
/** Bounds of a real parameter (inclusive). */
LLMMEM_API int llmmem_param_bounds_f64(double *lo, double *hi, int param);
/** Default of an integer, bool or enum parameter. */
LLMMEM_API int llmmem_param_default_i64(int64_t *out, int param);
/** Default of a real parameter. */
LLMMEM_API int llmmem_param_default_f64(double *out, int param);
/** Number of named values of an enum parameter (0 for other types). */
LLMMEM_API int llmmem_param_enum_count(int param);
/** @return the name of value @p value of an enum parameter; NULL if out of range. */
LLMMEM_API const char *llmmem_param_enum_name(int param, int64_t value);
/** Whether an estimate reads @p param when @p gate (LLMMEM_P_ENGINE or LLMMEM_P_RUNTIME)
 *  has value @p value: the engines' and runtimes' own table says which of their options each
 *  reads. @return 1 when it is read there (or is not an option of @p gate's engines or
 *  runtimes at all: then every value reads it), 0 when only other values read it,
 *  LLMMEM_E_INVALID_ARG for an unknown parameter, gate or value. @since 0.2 */
LLMMEM_API int llmmem_param_applies(int param, int gate, int64_t value);
/** Whether an estimate of @p cfg (and @p model, may be NULL) reads @p param as the
 *  configuration stands: its mode, engine or runtime, the layout one GPU holds, the setting
 *  it only means something beside (the LoRA details beside a rank, the vision keys beside a
 *  vision tower). llmmem_estimate refuses a setting that does not apply
 *  (LLMMEM_E_INCONSISTENT, naming it and why) and lists one a file set in the result's
 *  notes. @return 1 read, 0 not read (llmmem_last_error() says why, and what to set),
 *  LLMMEM_E_INVALID_ARG. @since 0.2 */
LLMMEM_API int llmmem_config_param_applies(const llmmem_config *cfg, const llmmem_model *model, int param);

/** How a value written as text is read (llmmem_parse_value): the one number reader
 *  behind llmmem_config_set, llmmem_model_set, scenario files, the CLI, Python and the
 *  web page. Separators (`,` `_` spaces) are never read; hexadecimal is not a number.
 *  @since 0.2 */
typedef enum llmmem_value_kind {
    LLMMEM_VALUE_WHOLE = 1,  /**< a whole number: 4096, -1, 5e8, 1.5e3 (not 1.5, 1,5, 1 5, 0x10) */
    LLMMEM_VALUE_TOKENS = 2, /**< a token count: a whole number, or with k = 1024 (4k = 4096,
                                  128k = 131072); M, G, B, T refused */
    LLMMEM_VALUE_SIZE = 3,   /**< a parameter count: K = 10^3, M = 10^6, B = G = 10^9, T = 10^12
                                  (7B, 1.5B, 770M, 1.5e9); the result whole */
    LLMMEM_VALUE_BOOL = 4    /**< true/false, 1/0, yes/no, on/off (any case): 1 or 0 */
} llmmem_value_kind;

/** Reads @p text as a value of ::llmmem_value_kind @p kind into @p out (unchanged on
 *  error). @return LLMMEM_E_PARSE (not of that form), LLMMEM_E_OUT_OF_RANGE (beyond int64).
 *  @since 0.2 */
LLMMEM_API int llmmem_parse_value(int64_t *out, const char *text, int kind);
/** @return the ::llmmem_value_kind an integer or bool parameter's text is read as
 *  (LLMMEM_VALUE_TOKENS for seq_len, prompt_len, ...), 0 for reals, enums and text or an
 *  unknown parameter. @since 0.2 */
LLMMEM_API int llmmem_param_value_kind(int param);
/** @return the ::llmmem_value_kind a settable model key's text is read as
 *  (LLMMEM_VALUE_SIZE for num_parameters, LLMMEM_VALUE_TOKENS for max_position_embeddings
 *  and sliding_window, LLMMEM_VALUE_BOOL for tie_word_embeddings), 0 for a computed count or
 *  an unknown key. @since 0.2 */
LLMMEM_API int llmmem_model_key_value_kind(int key);

/* ---- models ------------------------------------------------------------- */

/** Parses a HuggingFace config.json held in memory.
 *  @param out receives a new model (free with llmmem_model_free); unchanged on error.
 *  @param json the text, need not be NUL-terminated; @param len its length.
 *  @return LLMMEM_E_PARSE (line:column in the error), LLMMEM_E_SCHEMA,
 *  LLMMEM_E_UNSUPPORTED (unknown model_type without generic fields). */
LLMMEM_API int llmmem_model_from_hf_json(llmmem_model **out, const char *json, size_t len);
/** Reads and parses a HuggingFace config.json file. LLMMEM_E_IO if unreadable. */
LLMMEM_API int llmmem_model_from_hf_file(llmmem_model **out, const char *path);
/** Reads the header of a GGUF file (v2 or v3: llama.cpp's format) and describes the
 *  model: every tensor's name, shape and ggml type (weight bytes exact per tensor) and
 *  the hyperparameters llama.cpp reads from the metadata. Reads only the header, never
 *  the weights. Errors name the path and the byte offset ("model.gguf: byte 1234:
 *  ..."): LLMMEM_E_PARSE for a malformed or truncated file, LLMMEM_E_UNSUPPORTED for
 *  GGUF v1, LLMMEM_E_SCHEMA for a missing key llama.cpp requires, LLMMEM_E_IO if
 *  unreadable. @since 0.2 */
LLMMEM_API int llmmem_model_from_gguf_file(llmmem_model **out, const char *path);
/** The same from memory: @p data holds the first @p len bytes of a GGUF file whose
 *  whole size is @p file_size (0: @p data is the whole file). When the header goes on
 *  past @p len, LLMMEM_E_BUFFER_TOO_SMALL: read more of the file and call again (a web
 *  page reads a slice of a file of many GB). Errors name "model.gguf" and the byte
 *  offset. @since 0.2 */
LLMMEM_API int llmmem_model_from_gguf(llmmem_model **out, const char *data, size_t len,
                                      uint64_t file_size);
/** Builds a built-in preset ("llama-3.1-8b"); LLMMEM_E_UNKNOWN_PARAM if unknown. */
LLMMEM_API int llmmem_model_from_preset(llmmem_model **out, const char *name);
/** A model named as transformers' from_pretrained(name, local_files_only=True) names it,
 *  found offline, never over the network, in this order:
 *  1. a path to a config.json, or a folder holding one;
 *  2. a built-in preset: its name (any case) or a Hugging Face Hub id whose config.json is
 *     the preset's ("meta-llama/Llama-3.1-8B-Instruct" is llama-3.1-8b; a model note says so);
 *  3. a Hub id "org/name" in the local Hugging Face cache @p hub_cache (the folder
 *     huggingface_hub calls HF_HUB_CACHE), found as huggingface_hub's try_to_load_from_cache
 *     finds it: HUB_CACHE/models--org--name/snapshots/COMMIT/config.json, COMMIT read from
 *     refs/main.
 *     The library reads no environment variable: the caller passes the folder (the CLI and
 *     the Python package pass $HF_HUB_CACHE, else $HF_HOME/hub, else
 *     ~/.cache/huggingface/hub); NULL or "" looks in no cache.
 *  Otherwise LLMMEM_E_UNKNOWN_PARAM, whose message names the nearest presets and what was
 *  missing in the cache. @since 0.2 */
LLMMEM_API int llmmem_model_from_pretrained(llmmem_model **out, const char *name, const char *hub_cache);
/** The model a framework file (YAML) names, found as llmmem_model_from_pretrained finds it:
 *  axolotl's base_model_config, else base_model; LLaMA-Factory's model_name_or_path;
 *  torchtune's checkpointer.checkpoint_dir when that folder holds a config.json, else the
 *  preset model._component_ builds ("torchtune.models.llama3_1.lora_llama3_1_8b"). Relative
 *  paths are the current directory's, as the framework reads them. @p kind is a
 *  ::llmmem_framework (LLMMEM_FW_AUTO detects it); errors name the file, the key and
 *  line:column; LLMMEM_E_SCHEMA when the file names no model (an accelerate config never
 *  does). @since 0.2 */
LLMMEM_API int llmmem_model_from_framework_file(llmmem_model **out, int kind, const char *path,
                                                const char *hub_cache);
/** Makes an empty dense decoder to be described by raw numbers with
 *  llmmem_model_set_i64 / llmmem_model_set. */
LLMMEM_API int llmmem_model_new(llmmem_model **out);
/** Copies a model. */
LLMMEM_API int llmmem_model_clone(llmmem_model **out, const llmmem_model *model);
/** Frees a model; NULL is allowed. */
LLMMEM_API void llmmem_model_free(llmmem_model *model);
/** Sets a raw-number field of a model made by llmmem_model_new (counts are recomputed). */
LLMMEM_API int llmmem_model_set_i64(llmmem_model *model, int key, int64_t value);
/** Sets a field by name from text: ("num_parameters", "7B"), ("hidden_size", "4096"). */
LLMMEM_API int llmmem_model_set(llmmem_model *model, const char *name, const char *value);
/** Reads a field or an exact count. */
LLMMEM_API int llmmem_model_get_i64(int64_t *out, const llmmem_model *model, int key);
/** Copies the model_type ("llama") into @p buf (snprintf-style, @p needed incl. NUL). */
LLMMEM_API int llmmem_model_type(char *buf, size_t cap, size_t *needed, const llmmem_model *model);
/** Serialises the model description (fields, counts, notes) as JSON into @p buf.
 *  @return LLMMEM_E_BUFFER_TOO_SMALL when @p cap < *needed (call with cap 0 to size). */
LLMMEM_API int llmmem_model_to_json(char *buf, size_t cap, size_t *needed, const llmmem_model *model);
/** Number of notes (assumptions the parser made). */
LLMMEM_API int llmmem_model_note_count(const llmmem_model *model);
/** @return the i-th note (owned by the model), NULL if out of range. */
LLMMEM_API const char *llmmem_model_note(const llmmem_model *model, int index);

/** Built-in presets, for listing. */
LLMMEM_API int llmmem_preset_count(void);
/** @return the name of preset @p index, NULL if out of range. */
LLMMEM_API const char *llmmem_preset_name(int index);
/** @return a one-line description of preset @p index, NULL if out of range. */
LLMMEM_API const char *llmmem_preset_description(int index);

/** How a config.json's model_type is read (llmmem_architecture_kind). */
typedef enum llmmem_arch_kind {
    LLMMEM_ARCH_DECODER = 0,    /**< a decoder-only LM, counted exactly from its config */
    LLMMEM_ARCH_MULTIMODAL = 1, /**< a multimodal wrapper: its text model plus the towers it describes */
    LLMMEM_ARCH_REFUSED = 2     /**< known and refused with LLMMEM_E_UNSUPPORTED (encoder,
                                     encoder-decoder, speech or vision-first model) */
} llmmem_arch_kind;

/** The model_types the config.json reader knows: decoders, then multimodal wrappers, then
 *  the refused ones. A model_type outside the list is estimated from the keys the registry
 *  recognises and flagged approximate (LLMMEM_R_APPROXIMATE in every result). */
LLMMEM_API int llmmem_architecture_count(void);
/** @return model_type @p index ("llama", "gemma3", "bert"), NULL if out of range. */
LLMMEM_API const char *llmmem_architecture_name(int index);
/** @return the llmmem_arch_kind of @p index, LLMMEM_E_INVALID_ARG if out of range. */
LLMMEM_API int llmmem_architecture_kind(int index);

/** GPU table (the values of the enum parameter LLMMEM_P_GPU). */
LLMMEM_API int llmmem_gpu_count(void);
/** @return the GPU's name ("H100-80GB"), NULL if out of range. */
LLMMEM_API const char *llmmem_gpu_name(int index);
/** Memory of GPU @p index, bytes as the driver reports them. */
LLMMEM_API int llmmem_gpu_memory_bytes(uint64_t *out, int index);
/** Finds the GPU a written name means: case, spaces, '-' and '_' do not matter, vendor
 *  words in front are dropped, the names nvidia-smi and torch.cuda.get_device_name()
 *  print are known ("NVIDIA A100-SXM4-80GB", "Tesla T4"), and a family names its only
 *  GPU ("GH200"). The parameter LLMMEM_P_GPU takes its names through this function.
 *  @return 0 with the index in @p out; LLMMEM_E_INCONSISTENT when the name fits several
 *  GPUs ("A100": the error lists A100-40GB and A100-80GB); LLMMEM_E_OUT_OF_RANGE when
 *  none (the error suggests the nearest name). @since 0.2.0 */
LLMMEM_API int llmmem_gpu_find(int *out, const char *name);

/* ---- configurations ----------------------------------------------------- */

/** Makes a configuration with every parameter at its default. */
LLMMEM_API int llmmem_config_new(llmmem_config **out);
/** Copies a configuration. */
LLMMEM_API int llmmem_config_clone(llmmem_config **out, const llmmem_config *cfg);
/** Frees a configuration; NULL is allowed. */
LLMMEM_API void llmmem_config_free(llmmem_config *cfg);
/** Puts every parameter back to its default. */
LLMMEM_API int llmmem_config_reset(llmmem_config *cfg);
/** Sets an integer, bool or enum parameter. LLMMEM_E_PARAM_TYPE on a real or text
 *  parameter, LLMMEM_E_OUT_OF_RANGE outside the bounds (never clamped). */
LLMMEM_API int llmmem_config_set_i64(llmmem_config *cfg, int param, int64_t value);
/** Sets a real parameter; rejects NaN, infinities and out-of-range values. */
LLMMEM_API int llmmem_config_set_f64(llmmem_config *cfg, int param, double value);
/** Sets a text parameter, or an enum parameter by value name ('-' is read as '_':
 *  "sgd-momentum"); a value the library refuses with a reason (optimizer "shampoo") is
 *  LLMMEM_E_UNSUPPORTED with that reason. */
LLMMEM_API int llmmem_config_set_str(llmmem_config *cfg, int param, const char *value);
/** Sets any parameter by name from text ("micro_batch_size", "8"); the value is
 *  parsed by the parameter's type (bool: true/false/1/0; enum: a value name). */
LLMMEM_API int llmmem_config_set(llmmem_config *cfg, const char *name, const char *value);
/** Reads an integer, bool or enum parameter. */
LLMMEM_API int llmmem_config_get_i64(int64_t *out, const llmmem_config *cfg, int param);
/** Reads a real parameter. */
LLMMEM_API int llmmem_config_get_f64(double *out, const llmmem_config *cfg, int param);
/** Reads any parameter as text (enum: the value name), snprintf-style. */
LLMMEM_API int llmmem_config_get_str(char *buf, size_t cap, size_t *needed,
                                     const llmmem_config *cfg, int param);
/** Number of notes the framework-file readers left on @p cfg (keys read with an
 *  assumption, keys not read); estimates copy them into their result. @since 0.2 */
LLMMEM_API int llmmem_config_note_count(const llmmem_config *cfg);
/** @return the i-th note of @p cfg (owned by it), NULL if out of range. @since 0.2 */
LLMMEM_API const char *llmmem_config_note(const llmmem_config *cfg, int index);
/** Serialises every parameter as a flat JSON object of name: value. */
LLMMEM_API int llmmem_config_to_json(char *buf, size_t cap, size_t *needed, const llmmem_config *cfg);

/* ---- allocation timeline ----------------------------------------------- */

/** Formats of llmmem_timeline (0.2). */
typedef enum llmmem_timeline_format {
    LLMMEM_TIMELINE_JSON = 0,    /**< active bytes by category and reserved bytes over the events, phases */
    LLMMEM_TIMELINE_SVG = 1,     /**< the same over the run's phases: the CUDA context, the bytes by category, the reserved and GPU lines, the peak */
    LLMMEM_TIMELINE_SNAPSHOT = 2 /**< torch.cuda.memory._snapshot() as JSON, for pytorch.org/memory_viz */
} llmmem_timeline_format;

/** Replays the estimate's allocation timeline (the measuring process: workspace, model build,
 *  three training steps or a prefill and the decode steps) through the model of PyTorch's
 *  caching allocator and writes it in `format` (::llmmem_timeline_format) into @p buf,
 *  snprintf-style (@p needed incl. NUL; call with cap 0 to size). Single-GPU training and HF
 *  generate only: LLMMEM_E_UNSUPPORTED for other engines and runtimes, and for a timeline of
 *  more than about 2,000,000 events (decided before it starts). Each training step draws at
 *  most 8 micro-steps (the output's notes say so; the peaks are the same). (0.2) */
LLMMEM_API int llmmem_timeline(char *buf, size_t cap, size_t *needed, const llmmem_model *model,
                               const llmmem_config *cfg, int format);
/** "json", "svg", "snapshot"; NULL for an unknown format. Static. (0.2) */
LLMMEM_API const char *llmmem_timeline_format_name(int format);

/* ---- scenario and framework files --------------------------------------- */

/** Loads a scenario JSON (the project's format, a superset of gpu-mem-calculator's):
 *  a model (hf_config path resolved against @p base_dir, preset, or raw numbers)
 *  and a configuration. Either out pointer may be NULL when not wanted.
 *  Errors name the key path and line:column. */
LLMMEM_API int llmmem_scenario_from_json(llmmem_model **model_out, llmmem_config **cfg_out,
                                         const char *json, size_t len, const char *base_dir);
/** Loads a scenario file; hf_config paths resolve against the file's directory. A model
 *  named by a Hub id ("model": "org/name", or model.preset) must be a preset's. */
LLMMEM_API int llmmem_scenario_from_file(llmmem_model **model_out, llmmem_config **cfg_out,
                                         const char *path);
/** llmmem_scenario_from_file, with a model named by a Hub id also looked up in the Hugging
 *  Face cache @p hub_cache (llmmem_model_from_pretrained; NULL: none). @since 0.2 */
LLMMEM_API int llmmem_scenario_from_file_hub(llmmem_model **model_out, llmmem_config **cfg_out,
                                             const char *path, const char *hub_cache);
/** Applies a DeepSpeed ds_config.json to @p cfg ("auto" values resolved from
 *  @p model where HF Trainer would, else left at the current value). */
LLMMEM_API int llmmem_config_apply_deepspeed_json(llmmem_config *cfg, const llmmem_model *model,
                                                  const char *json, size_t len);
/** Applies a DeepSpeed ds_config.json file (a regular file of at most 64 MiB);
 *  errors name the path, the key and line:column. */
LLMMEM_API int llmmem_config_apply_deepspeed_file(llmmem_config *cfg, const llmmem_model *model,
                                                  const char *path);
/** Applies an HF TrainingArguments JSON file (a regular file of at most 64 MiB). */
LLMMEM_API int llmmem_config_apply_hf_training_args_file(llmmem_config *cfg, const char *path);
/** Applies HF TrainingArguments saved as JSON (also LLaMA-Factory keys). */
LLMMEM_API int llmmem_config_apply_hf_training_args_json(llmmem_config *cfg, const char *json,
                                                         size_t len);

/** Kinds of framework configuration file (YAML) read by
 *  llmmem_config_apply_framework_file. Values are part of the ABI. @since 0.2 */
typedef enum llmmem_framework {
    LLMMEM_FW_AUTO = 0,        /**< detect from the keys */
    LLMMEM_FW_TORCHTUNE = 1,   /**< a torchtune recipe config (tune run ... --config) */
    LLMMEM_FW_AXOLOTL = 2,     /**< an axolotl config */
    LLMMEM_FW_ACCELERATE = 3,  /**< an accelerate config (accelerate config / --config_file) */
    LLMMEM_FW_LLAMAFACTORY = 4 /**< a LLaMA-Factory training YAML */
} llmmem_framework;
/** @return "torchtune", ...; NULL if unknown. @since 0.2 */
LLMMEM_API const char *llmmem_framework_name(int kind);
/** Which kind of framework file @p yaml is (LLMMEM_FW_AUTO when none). @since 0.2 */
LLMMEM_API int llmmem_framework_detect(int *kind, const char *yaml, size_t len);
/** Applies a framework configuration in YAML to @p cfg, all or nothing: every
 *  memory-relevant key is set, refused (LLMMEM_E_UNSUPPORTED naming the key
 *  path and line:column) or noted (llmmem_config_note). @p kind is a
 *  ::llmmem_framework; @p model may be NULL. @since 0.2 */
LLMMEM_API int llmmem_config_apply_framework_yaml(llmmem_config *cfg, const llmmem_model *model, int kind,
                                                  const char *yaml, size_t len);
/** The same from a file (a regular file of at most 64 MiB); errors name the path. @since 0.2 */
LLMMEM_API int llmmem_config_apply_framework_file(llmmem_config *cfg, const llmmem_model *model, int kind,
                                                  const char *path);

/** Applies a calibration profile (JSON, docs/calibration.md) to @p cfg: scale
 *  factors for named result components (e.g. "activations": 1.02), an
 *  allocator-headroom factor for peak_reserved, and fixed bytes such as the CUDA
 *  context, fitted by the user from their own probe records. The default
 *  (no profile) is the identity. Errors name the key and line:column. */
LLMMEM_API int llmmem_config_apply_calibration_json(llmmem_config *cfg, const char *json, size_t len);
/** Applies a calibration profile file (a regular file of at most 64 MiB). */
LLMMEM_API int llmmem_config_apply_calibration_file(llmmem_config *cfg, const char *path);
/** Removes any calibration profile from @p cfg (back to the identity). */
LLMMEM_API int llmmem_config_clear_calibration(llmmem_config *cfg);

/* ---- results and estimators --------------------------------------------- */

/** Makes an empty result; estimators fill it without allocating. */
LLMMEM_API int llmmem_result_new(llmmem_result **out);
/** Frees a result; NULL is allowed. */
LLMMEM_API void llmmem_result_free(llmmem_result *res);

/** Estimates with the engine that LLMMEM_P_ENGINE and LLMMEM_P_MODE name. */
LLMMEM_API int llmmem_estimate(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg);
/** Training on one GPU, no distributed wrapper. */
LLMMEM_API int llmmem_estimate_single(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg);
/** PyTorch DistributedDataParallel. */
LLMMEM_API int llmmem_estimate_ddp(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg);
/** DeepSpeed ZeRO stage 0-3 with offload. */
LLMMEM_API int llmmem_estimate_zero(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg);
/** PyTorch FSDP 1/2. */
LLMMEM_API int llmmem_estimate_fsdp(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg);
/** Megatron-LM (TP, PP, SP, CP, EP). */
LLMMEM_API int llmmem_estimate_megatron(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg);
/** Megatron-DeepSpeed: Megatron model parallel with ZeRO-1/2 over data parallel. */
LLMMEM_API int llmmem_estimate_megatron_deepspeed(llmmem_result *out, const llmmem_model *model,
                                                  const llmmem_config *cfg);
/** Inference (HF generate or vLLM-style serving, LLMMEM_P_RUNTIME). */
LLMMEM_API int llmmem_estimate_inference(llmmem_result *out, const llmmem_model *model,
                                         const llmmem_config *cfg);

/** Reads a byte-count result key. LLMMEM_E_PARAM_TYPE for keys of another type. */
LLMMEM_API int llmmem_result_get_u64(uint64_t *out, const llmmem_result *res, int key);
/** Reads an integer, bool or enum result key. */
LLMMEM_API int llmmem_result_get_i64(int64_t *out, const llmmem_result *res, int key);
/** Reads a real result key. */
LLMMEM_API int llmmem_result_get_f64(double *out, const llmmem_result *res, int key);
/** Live bytes of one component in one phase (of the peak pipeline stage). */
LLMMEM_API int llmmem_result_component_bytes(uint64_t *out, const llmmem_result *res, int phase,
                                             int component);
/** Live bytes in one phase (sum of its components). */
LLMMEM_API int llmmem_result_phase_bytes(uint64_t *out, const llmmem_result *res, int phase);
/** Peak allocated bytes of pipeline stage @p stage (0-based). */
LLMMEM_API int llmmem_result_stage_peak_bytes(uint64_t *out, const llmmem_result *res, int stage);
/** Number of explained terms. */
LLMMEM_API int llmmem_result_term_count(const llmmem_result *res);
/** The i-th term: its name, formula with source, and bytes. Strings are owned by the
 *  result and valid until the next estimate into it. */
LLMMEM_API int llmmem_result_term(const char **name, const char **formula, uint64_t *bytes,
                                  const llmmem_result *res, int index);
/** Number of inputs the terms' formulas use (T, h, L, a, k, d, f, V, ...). */
LLMMEM_API int llmmem_result_input_count(const llmmem_result *res);
/** The i-th input: its symbol (static text, e.g. "T tokens per micro-batch") and value. */
LLMMEM_API int llmmem_result_input(const char **name, int64_t *value, const llmmem_result *res, int index);
/** Number of notes (assumptions, fallbacks). */
LLMMEM_API int llmmem_result_note_count(const llmmem_result *res);
/** @return the i-th note (owned by the result), NULL if out of range. */
LLMMEM_API const char *llmmem_result_note(const llmmem_result *res, int index);
/** Serialises the result as JSON (schema in docs/json-schema.md), snprintf-style. */
LLMMEM_API int llmmem_result_to_json(char *buf, size_t cap, size_t *needed, const llmmem_result *res);

/* ---- planner -------------------------------------------------------------- */

/** A set of ranked layouts found by llmmem_plan_layouts(). @since 0.1.0 */
typedef struct llmmem_plan llmmem_plan;

/** Reasons a candidate layout is rejected, counted by llmmem_plan_rejected(). */
typedef enum llmmem_reject {
    LLMMEM_REJECT_INDIVISIBLE = 0, /**< heads, layers, experts or GPUs do not divide */
    LLMMEM_REJECT_OOM = 1,         /**< does not fit in GPU memory */
    LLMMEM_REJECT_UNSUPPORTED = 2, /**< the engine cannot run that combination */
    LLMMEM_REJECT_BATCH = 3        /**< global batch not reachable with that micro-batch */
} llmmem_reject;

/** Largest micro-batch (training), batch (inference) or max_num_seqs (vLLM) such that it and
 *  every smaller one fit; 0 when even 1 does not fit. llmmem_plan_inverse() also says whether
 *  a larger one fits again. */
LLMMEM_API int llmmem_plan_max_batch(int64_t *out, const llmmem_model *model, const llmmem_config *cfg);
/** Longest sequence (training), prompt + decode context (inference) or max_model_len (vLLM)
 *  such that it and every shorter one fit at the configured batch; 0 when even 1 token does not. */
LLMMEM_API int llmmem_plan_max_seq_len(int64_t *out, const llmmem_model *model, const llmmem_config *cfg);

/** The inverse questions of llmmem_plan_inverse(). @since 0.2 */
typedef enum llmmem_plan_question {
    LLMMEM_PLAN_MAX_BATCH = 1,  /**< llmmem_plan_max_batch */
    LLMMEM_PLAN_MAX_SEQ_LEN = 2 /**< llmmem_plan_max_seq_len */
} llmmem_plan_question;

/** An inverse question answered in full. Near the GPU's capacity the allocator replay can make
 *  the verdict non-monotone (a longer sequence fitting where a shorter one does not), so
 *  the answer is checked value by value from 1 up (at most 2048 estimates):
 *  @param out the largest value such that it and every smaller value fit (what
 *         llmmem_plan_max_batch / _max_seq_len return);
 *  @param again the largest value above *out that fits again (the search's boundary: it
 *         fits and the next does not), 0 when none;
 *  @param checked the largest value checked one by one: *out + 1 (which does not fit) when
 *         the first failing value was found, *out when every value up to the boundary fits,
 *         or *out with *again > 0 and no failure found when the work bound stopped the check.
 *  @param model the model; @param cfg the configuration as given (not changed);
 *  @param question a ::llmmem_plan_question.
 *  @return LLMMEM_E_INVALID_ARG for an unknown question. @since 0.2 */
LLMMEM_API int llmmem_plan_inverse(int64_t *out, int64_t *again, int64_t *checked, const llmmem_model *model,
                                   const llmmem_config *cfg, int question);
/** llama.cpp (runtime llama_cpp, a model from a GGUF file): the largest -ngl (layers on
 *  the GPU, the output layer counting as one; n_layer + 1 = all) that fits; -1 when even 0
 *  does not. LLMMEM_E_UNSUPPORTED for another runtime. @since 0.2 */
LLMMEM_API int llmmem_plan_max_gpu_layers(int64_t *out, const llmmem_model *model, const llmmem_config *cfg);
/** Fewest GPUs of the configured kind (data-parallel ranks for training with
 *  the configured engine, tensor-parallel ranks for inference) that fit. */
LLMMEM_API int llmmem_plan_min_gpus(int64_t *out, const llmmem_model *model, const llmmem_config *cfg);
/** Makes an empty plan. */
LLMMEM_API int llmmem_plan_new(llmmem_plan **out);
/** Frees a plan; NULL is allowed. */
LLMMEM_API void llmmem_plan_free(llmmem_plan *plan);
/** Enumerates every layout of LLMMEM_P_NUM_GPUS GPUs for the model and workload
 *  (DP x TP x PP x CP x EP, engine and ZeRO/FSDP mode, offload, recompute,
 *  micro-batch), keeps the @p top_k fastest that fit by the step-time model
 *  (docs/planner.md) and counts the rejected ones by reason. */
LLMMEM_API int llmmem_plan_layouts(llmmem_plan *plan, const llmmem_model *model, const llmmem_config *cfg,
                                   int top_k);
/** Number of layouts kept. */
LLMMEM_API int llmmem_plan_count(const llmmem_plan *plan);
/** Sequences per optimizer step every layout keeps (training): micro_batch_size x
 *  gradient_accumulation_steps x the data-parallel size, which is data_parallel_size when
 *  set, else num_gpus / (TP x PP x CP); inference: batch_size. @since 0.2 */
LLMMEM_API int64_t llmmem_plan_global_batch(const llmmem_plan *plan);
/** Number of notes of the plan (what it assumed, e.g. where the global batch came from).
 *  @since 0.2 */
LLMMEM_API int llmmem_plan_note_count(const llmmem_plan *plan);
/** @return the i-th note (owned by the plan), NULL if out of range. @since 0.2 */
LLMMEM_API const char *llmmem_plan_note(const llmmem_plan *plan, int index);
/** Number of candidates considered. */
LLMMEM_API int64_t llmmem_plan_candidates(const llmmem_plan *plan);
/** Candidates rejected for @p reason (a ::llmmem_reject). */
LLMMEM_API int64_t llmmem_plan_rejected(const llmmem_plan *plan, int reason);
/** @return the name of a rejection reason ("oom"), NULL if unknown. */
LLMMEM_API const char *llmmem_plan_reject_name(int reason);
/** Copies layout @p index (0 = best) as a configuration the caller owns. */
LLMMEM_API int llmmem_plan_config(llmmem_config **out, const llmmem_plan *plan, int index);
/** Modelled step time of layout @p index in seconds. */
LLMMEM_API int llmmem_plan_step_time(double *out, const llmmem_plan *plan, int index);
/** Peak allocated bytes per GPU of layout @p index. */
LLMMEM_API int llmmem_plan_peak_bytes(uint64_t *out, const llmmem_plan *plan, int index);
/** Serialises the plan (layouts with breakdowns, rejection counts) as JSON. */
LLMMEM_API int llmmem_plan_to_json(char *buf, size_t cap, size_t *needed, const llmmem_plan *plan);

/** Advice found by llmmem_plan_advise(): ranked changes of a configuration. @since 0.2 */
typedef struct llmmem_advice llmmem_advice;
/** Makes an empty advice handle. @since 0.2 */
LLMMEM_API int llmmem_advice_new(llmmem_advice **out);
/** Frees an advice handle; NULL is allowed. @since 0.2 */
LLMMEM_API void llmmem_advice_free(llmmem_advice *advice);
/** What to change so that the run fits, or has the most headroom when it fits already:
 *  the usual levers of the run's kind (training: activation checkpointing, a smaller
 *  micro-batch with more accumulation steps keeping the global batch, ZeRO / FSDP over the
 *  fewest GPUs that fit, CPU offload, tensor parallel (Megatron), 8-bit optimizers, LoRA /
 *  QLoRA, the longest sequence that fits; serving: tensor parallel, vLLM's
 *  gpu_memory_utilization, KV cache dtype and max_model_len, HF's batch and bitsandbytes
 *  weights, llama.cpp's -ngl and context), pairs of them when no single one fits. Each
 *  suggestion is the configuration changed through the parameter table and estimated in
 *  full (the allocator setting as configured); one the library refuses is not offered, nor
 *  one that needs more memory than the configuration as given. Ranked: those that fit, then
 *  those that keep the run (llmmem_advice_keeps_run), then the planner's step time
 *  (docs/planner.md); those that do not fit by total per GPU. @since 0.2 */
LLMMEM_API int llmmem_plan_advise(llmmem_advice *advice, const llmmem_model *model, const llmmem_config *cfg);
/** Number of suggestions. @since 0.2 */
LLMMEM_API int llmmem_advice_count(const llmmem_advice *advice);
/** @return the change of suggestion @p index in words (owned by the handle), NULL if out of
 *  range. @since 0.2 */
LLMMEM_API const char *llmmem_advice_change(const llmmem_advice *advice, int index);
/** @return the parameters suggestion @p index sets as command-line flags ("--zero-stage 3
 *  --data-parallel-size 4": the llmmem CLI's, and vLLM's for its parameters), owned by the
 *  handle; NULL if out of range. @since 0.2 */
LLMMEM_API const char *llmmem_advice_flags(const llmmem_advice *advice, int index);
/** 1 when suggestion @p index keeps the run (same model, numerics and workload: only memory
 *  and speed change), 0 when it changes it (LoRA, 8-bit optimizer state, a shorter context,
 *  quantized weights or KV cache); negative on error. @since 0.2 */
LLMMEM_API int llmmem_advice_keeps_run(const llmmem_advice *advice, int index);
/** Copies the configuration of suggestion @p index as one the caller owns. @since 0.2 */
LLMMEM_API int llmmem_advice_config(llmmem_config **out, const llmmem_advice *advice, int index);
/** Copies the estimate of suggestion @p index into @p out (from llmmem_result_new); index -1:
 *  the configuration as given (LLMMEM_E_OUT_OF_RANGE before llmmem_plan_advise succeeded).
 *  @since 0.2 */
LLMMEM_API int llmmem_advice_result(llmmem_result *out, const llmmem_advice *advice, int index);
/** Serialises the advice as JSON (docs/planner.md "Advice"), snprintf-style; a handle not
 *  yet advised gives {"mode":null,"as_configured":null,"suggestions":[]}. @since 0.2 */
LLMMEM_API int llmmem_advice_to_json(char *buf, size_t cap, size_t *needed, const llmmem_advice *advice);

/* LLMMEM_CDEF_END */

#ifdef __cplusplus
}
#endif
#endif /* LLMMEM_H */
