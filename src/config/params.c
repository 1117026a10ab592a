/* The configuration parameter table: one row per llmmem_param with its name,
 * scenario section, type, bounds, default and enum value names. Adding a
 * parameter is one enum value in the header, one field in struct llmmem_config
 * and one row here. */
#include "config/config.h"

#include <float.h>
#include <stddef.h>
#include <string.h>

/* The names of each enum parameter's values, from the one list of each
 * (config/enums.def, core/dtypes.def, config/engines.def, config/optimizers.def):
 * NULL-terminated, in value order by construction. */
#define NAMES(array, list) static const char *const array[] = {list(LLMMEM__LIST_NAME, _) NULL};
NAMES(mode_names, LLMMEM__MODES)
NAMES(quant_names, LLMMEM__QUANTS)
NAMES(tribool_names, LLMMEM__MASTERS)
NAMES(fp8_names, LLMMEM__FP8S)
NAMES(impl_names, LLMMEM__IMPLS)
NAMES(step_names, LLMMEM__STEPS)
NAMES(attn_names, LLMMEM__ATTNS)
NAMES(ckpt_names, LLMMEM__CKPTS)
NAMES(loss_names, LLMMEM__LOSSES)
NAMES(profile_names, LLMMEM__PROFILES)
NAMES(scope_names, LLMMEM__SCOPES)
NAMES(compile_names, LLMMEM__COMPILES)
NAMES(act_offload_names, LLMMEM__AOFFS)
NAMES(dropout_names, LLMMEM__DROPOUTS)
NAMES(qlora_names, LLMMEM__QLORAS)
NAMES(offload_names, LLMMEM__OFFLOADS)
NAMES(tri_names, LLMMEM__TRIS)
NAMES(fsdp_names, LLMMEM__FSDPS)
NAMES(acc_names, LLMMEM__ACCS)
NAMES(vllm_quant_names, LLMMEM__VQS)
NAMES(usage_names, LLMMEM__VUS)
NAMES(runner_names, LLMMEM__VRS)
NAMES(vision_names, LLMMEM__VTS)
NAMES(lcpp_cache_names, LLMMEM__LCPP_CACHES)
#undef NAMES
/* Dtypes and optimizers by their public value (core/dtypes.def, config/optimizers.def). */
#define DTYPE_NAME(P, V, name) [LLMMEM_DTYPE_##V] = name,
static const char *const dtype_names[LLMMEM__DT_COUNT + 1] = {LLMMEM__DTYPES(DTYPE_NAME, _)};
#undef DTYPE_NAME
#define OPTIMIZER_NAME(P, V, name, ...) [LLMMEM_OPTIMIZER_##V] = name,
static const char *const optim_names[LLMMEM__OPT_COUNT + 1] = {LLMMEM__OPTIMIZERS(OPTIMIZER_NAME, _)};
#undef OPTIMIZER_NAME
/* The engines and runtimes by value, from their one list (config/engines.def). */
enum {
    ENGINE_COUNT = 0
#define LLMMEM__ENGINE(value, name, row) +1
#include "config/engines.def"
    ,
    RUNTIME_COUNT = 0
#define LLMMEM__RUNTIME(value, name, row) +1
#include "config/engines.def"
};
static const char *const engine_names[ENGINE_COUNT + 1] = {
#define LLMMEM__ENGINE(value, name, row) [value] = name,
#include "config/engines.def"
};
static const char *const runtime_names[RUNTIME_COUNT + 1] = {
#define LLMMEM__RUNTIME(value, name, row) [value] = name,
#include "config/engines.def"
};
/* GPU names live in gpus.c; the enum parameter reads them through this list. */
extern const char *const llmmem__gpu_names[];

#define OFF(f) offsetof(struct llmmem_config, f)
#define I64(id, name, sec, f, lo, hi, def, doc)                                                   \
    {id, name, sec, LLMMEM_TYPE_I64, OFF(f), lo, hi, def, 0, 0, 0, NULL, NULL, doc}
#define BOOL(id, name, sec, f, def, doc)                                                          \
    {id, name, sec, LLMMEM_TYPE_BOOL, OFF(f), 0, 1, def, 0, 0, 0, NULL, NULL, doc}
#define ENUM(id, name, sec, f, names, def, doc)                                                   \
    {id, name, sec, LLMMEM_TYPE_ENUM, OFF(f), 0, 0, def, 0, 0, 0, NULL, names, doc}
#define F64(id, name, sec, f, lo, hi, def, doc)                                                   \
    {id, name, sec, LLMMEM_TYPE_F64, OFF(f), 0, 0, 0, lo, hi, def, NULL, NULL, doc}
#define STR(id, name, sec, f, def, doc)                                                           \
    {id, name, sec, LLMMEM_TYPE_STR, OFF(f), 0, 0, 0, 0, 0, 0, def, NULL, doc}

#define BIG INT64_C(1000000000000000) /* 1e15: bounds counts so products stay in range */
#define MAXTOK INT64_C(100000000)     /* 1e8 tokens */

static const llmmem__param_info params[] = {
    ENUM(LLMMEM_P_MODE, "mode", "", mode, mode_names, 0, "training or inference"),
    I64(LLMMEM_P_MICRO_BATCH_SIZE, "micro_batch_size", "training", micro_batch_size, 1, 10000000, 1,
        "sequences per GPU per micro-step"),
    I64(LLMMEM_P_SEQ_LEN, "seq_len", "training", seq_len, 1, MAXTOK, 2048,
        "tokens per training sequence"),
    I64(LLMMEM_P_GRAD_ACCUM_STEPS, "gradient_accumulation_steps", "training", grad_accum_steps, 1,
        1000000, 1, "micro-steps per optimizer step (gradients stay allocated across them)"),
    I64(LLMMEM_P_BATCH_SIZE, "batch_size", "inference", batch_size, 1, 10000000, 1,
        "sequences generated at once"),
    I64(LLMMEM_P_PROMPT_LEN, "prompt_len", "inference", prompt_len, 1, MAXTOK, 1024,
        "prompt tokens per sequence"),
    I64(LLMMEM_P_DECODE_LEN, "decode_len", "inference", decode_len, 0, MAXTOK, 128,
        "generated tokens per sequence"),
    ENUM(LLMMEM_P_PEAK_SCOPE, "peak_scope", "training", peak_scope, scope_names, 0,
         "peak over: step (a training step, as torchtune logs it after resetting), process (also "
         "loading and quantising the weights: torch.cuda.max_memory_allocated since start, as LitGPT prints)"),
    ENUM(LLMMEM_P_PARAM_DTYPE, "param_dtype", "training", param_dtype, dtype_names, LLMMEM__DT_BF16,
         "dtype of the stored weights (fp32 with compute bf16 = autocast)"),
    ENUM(LLMMEM_P_COMPUTE_DTYPE, "compute_dtype", "training", compute_dtype, dtype_names,
         LLMMEM__DT_AUTO, "dtype of the matmuls; auto = param_dtype; differs = torch.autocast"),
    ENUM(LLMMEM_P_MASTER_WEIGHTS, "master_weights", "training", master_weights, tribool_names,
         LLMMEM__MASTER_AUTO,
         "separate fp32 master weights; auto = the engine's (ZeRO: with 16-bit compute and always "
         "at stages 1-2; Megatron: with 16-bit compute; single, DDP, FSDP: no)"),
    ENUM(LLMMEM_P_GRAD_DTYPE, "grad_dtype", "training", grad_dtype, dtype_names, LLMMEM__DT_AUTO,
         "gradient dtype; auto = the engine's (the dtype the model runs in; Megatron bf16: fp32 "
         "main grads)"),
    ENUM(LLMMEM_P_WEIGHTS_FORMAT, "weights_format", "inference", weights_format, quant_names,
         LLMMEM__Q_AUTO, "weight storage for inference; auto = quantization_config, else torch_dtype"),
    ENUM(LLMMEM_P_KV_CACHE_DTYPE, "kv_cache_dtype", "inference", kv_cache_dtype, dtype_names,
         LLMMEM__DT_AUTO, "KV cache dtype; auto = activation dtype"),
    I64(LLMMEM_P_QUANT_BITS, "quant_bits", "inference", quant_bits, 0, 16, 0,
        "GPTQ/AWQ bits; 0 = from the model's quantization_config (else 4)"),
    I64(LLMMEM_P_QUANT_GROUP_SIZE, "quant_group_size", "inference", quant_group_size, -1, 1 << 20, 0,
        "GPTQ/AWQ group size; 0 = from the model (else 128), -1 = per channel"),
    ENUM(LLMMEM_P_FP8_RECIPE, "fp8_recipe", "training", fp8_recipe, fp8_names, 0,
         "Transformer Engine fp8 compute recipe (documented model)"),
    ENUM(LLMMEM_P_OPTIMIZER, "optimizer", "training", optimizer, optim_names, LLMMEM__OPT_ADAMW,
         "optimizer (state layout and dtype from its implementation)"),
    ENUM(LLMMEM_P_OPTIMIZER_IMPL, "optimizer_impl", "training", optimizer_impl, impl_names, 0,
         "PyTorch optimizer implementation: foreach (default), fused, forloop"),
    ENUM(LLMMEM_P_OPTIMIZER_STATE_DTYPE, "optimizer_state_dtype", "training", optimizer_state_dtype,
         dtype_names, LLMMEM__DT_AUTO,
         "optimizer state dtype; auto = the engine's (fp32 beside masters, else the param dtype)"),
    ENUM(LLMMEM_P_STEP, "step", "training", step, step_names, 0,
         "which step: max of both, first (states created), steady"),
    BOOL(LLMMEM_P_OPTIMIZER_IN_BACKWARD, "optimizer_in_backward", "training", optimizer_in_backward, 0,
         "optimizer step per parameter inside backward, gradients freed as they go (torchtune "
         "optimizer_in_bwd)"),
    ENUM(LLMMEM_P_ATTENTION, "attention", "training", attention, attn_names, 0,
         "attention kernel: sdpa/flash keep no score matrix, eager does"),
    ENUM(LLMMEM_P_CHECKPOINTING, "activation_checkpointing", "training", checkpointing, ckpt_names,
         0, "activation checkpointing: none, full (per layer), selective (attention core), selective_op "
         "(op-level SAC keeping every other matmul output and the attention outputs, torchtitan)"),
    ENUM(LLMMEM_P_LOSS, "loss", "training", loss, loss_names, 0,
         "cross-entropy: hf (fp32 upcast), vocab_parallel, chunked, liger (fused linear CE), "
         "torchtune_chunked (CEWithChunkedOutputLoss), litgpt_chunked (128-token bf16 chunks)"),
    ENUM(LLMMEM_P_ACTIVATION_PROFILE, "activation_profile", "training", activation_profile,
         profile_names, 0, "model code whose saved tensors are counted: hf transformers, megatron-core, torchtune "
         "modules, litgpt model.py"),
    ENUM(LLMMEM_P_DROPOUT, "dropout", "training", dropout, dropout_names, 0,
         "dropout masks: as the model config says, forced off, forced on"),
    ENUM(LLMMEM_P_COMPILE, "compile", "training", compile, compile_names, 0,
         "torch.compile: none, layers (each decoder layer, torchtune/torchtitan), model (HF "
         "torch_compile); AOTAutograd's min-cut partitioner decides what is saved"),
    ENUM(LLMMEM_P_ACTIVATION_OFFLOADING, "activation_offloading", "training", activation_offloading,
         act_offload_names, 0,
         "checkpoint inputs to CPU: streams (torchtune/TRL OffloadActivations), save_on_cpu "
         "(torch.autograd.graph.save_on_cpu); needs activation_checkpointing full"),
    I64(LLMMEM_P_LOSS_CHUNKS, "loss_chunks", "training", loss_chunks, 0, 1000000, 0,
        "output chunks of loss torchtune_chunked (CEWithChunkedOutputLoss); 0 = its default 8"),
    BOOL(LLMMEM_P_LIGER_KERNELS, "liger_kernels", "training", liger_kernels, 0,
         "Liger's RMSNorm, SwiGLU and RoPE kernels replace the HF modules (apply_liger_kernel; the fused "
         "linear cross-entropy is loss liger)"),
    I64(LLMMEM_P_LORA_RANK, "lora_rank", "lora", lora_rank, 0, 65536, 0,
        "LoRA rank; 0 = full fine-tuning"),
    F64(LLMMEM_P_LORA_ALPHA, "lora_alpha", "lora", lora_alpha, 0.0, 1e9, 16.0, "LoRA alpha"),
    STR(LLMMEM_P_LORA_TARGETS, "lora_targets", "lora", lora_targets, "q_proj,v_proj",
        "comma-separated module names, or all-linear"),
    F64(LLMMEM_P_LORA_DROPOUT, "lora_dropout", "lora", lora_dropout, 0.0, 1.0, 0.0,
        "LoRA dropout probability (> 0 keeps a dropped copy of each adapter input)"),
    ENUM(LLMMEM_P_QLORA, "qlora", "lora", qlora, qlora_names, 0,
         "frozen base storage: none, nf4, fp4 (bitsandbytes 4-bit), int8"),
    BOOL(LLMMEM_P_QLORA_DOUBLE_QUANT, "qlora_double_quant", "lora", qlora_double_quant, 1,
         "bitsandbytes double quantization of the absmax"),
    ENUM(LLMMEM_P_QLORA_COMPUTE_DTYPE, "qlora_compute_dtype", "lora", qlora_compute_dtype, dtype_names,
         LLMMEM__DT_AUTO,
         "bitsandbytes 4-bit compute dtype (bnb_4bit_compute_dtype: fp32, bf16, fp16); auto = the "
         "framework's: fp32 for transformers' BitsAndBytesConfig without it, the model dtype for LitGPT "
         "(axolotl and TRL set it to the model dtype)"),
    ENUM(LLMMEM_P_QLORA_QUANTIZE_HEAD, "qlora_quantize_head", "lora", qlora_quantize_head, tri_names, 0,
         "output head stored in 4 bits too; auto = the framework's (LitGPT/Lightning "
         "BitsandbytesPrecision: on, no ignore_modules; transformers: off, lm_head skipped)"),
    ENUM(LLMMEM_P_ENGINE, "engine", "engine", engine, engine_names, 0, "training engine"),
    I64(LLMMEM_P_ZERO_STAGE, "zero_stage", "engine", zero_stage, 0, 3, 0, "DeepSpeed ZeRO stage"),
    ENUM(LLMMEM_P_OFFLOAD_OPTIMIZER, "offload_optimizer", "engine", offload_optimizer,
         offload_names, 0, "ZeRO optimizer offload"),
    ENUM(LLMMEM_P_OFFLOAD_PARAM, "offload_param", "engine", offload_param, offload_names, 0,
         "ZeRO-3 parameter offload"),
    F64(LLMMEM_P_BUCKET_CAP_MB, "bucket_cap_mb", "engine", bucket_cap_mb, 0.0, 1e7, 25.0,
        "DDP gradient bucket size in MiB"),
    BOOL(LLMMEM_P_GRADIENT_AS_BUCKET_VIEW, "gradient_as_bucket_view", "engine",
         gradient_as_bucket_view, 0, "DDP: gradients are views into the buckets"),
    I64(LLMMEM_P_REDUCE_BUCKET_SIZE, "reduce_bucket_size", "engine", reduce_bucket_size, 1, BIG,
        500000000, "ZeRO reduce bucket, elements"),
    I64(LLMMEM_P_ALLGATHER_BUCKET_SIZE, "allgather_bucket_size", "engine", allgather_bucket_size,
        1, BIG, 500000000, "ZeRO all-gather bucket, elements"),
    BOOL(LLMMEM_P_CONTIGUOUS_GRADIENTS, "contiguous_gradients", "engine", contiguous_gradients, 1,
         "ZeRO contiguous gradient buffer"),
    ENUM(LLMMEM_P_OVERLAP_COMM, "overlap_comm", "engine", overlap_comm, tri_names, 0,
         "ZeRO overlap_comm (auto: on for stage 3)"),
    I64(LLMMEM_P_STAGE3_MAX_LIVE_PARAMETERS, "stage3_max_live_parameters", "engine",
        stage3_max_live_parameters, 0, BIG, 1000000000, "ZeRO-3 parameters resident per GPU"),
    I64(LLMMEM_P_STAGE3_PREFETCH_BUCKET_SIZE, "stage3_prefetch_bucket_size", "engine",
        stage3_prefetch_bucket_size, 0, BIG, 50000000, "ZeRO-3 prefetch, elements"),
    I64(LLMMEM_P_STAGE3_PARAM_PERSISTENCE_THRESHOLD, "stage3_param_persistence_threshold",
        "engine", stage3_param_persistence_threshold, 0, BIG, 100000,
        "ZeRO-3: parameters smaller than this stay unpartitioned"),
    I64(LLMMEM_P_ZERO_HPZ_PARTITION_SIZE, "zero_hpz_partition_size", "engine",
        zero_hpz_partition_size, 1, 1000000, 1, "ZeRO++ hpZ secondary partition size"),
    I64(LLMMEM_P_FSDP_VERSION, "fsdp_version", "engine", fsdp_version, 1, 2, 2, "FSDP 1 or 2"),
    ENUM(LLMMEM_P_FSDP_SHARDING, "sharding_strategy", "engine", fsdp_sharding, fsdp_names, 0,
         "FSDP sharding strategy"),
    BOOL(LLMMEM_P_FSDP_CPU_OFFLOAD, "fsdp_cpu_offload", "engine", fsdp_cpu_offload, 0,
         "FSDP CPUOffload(offload_params=True)"),
    BOOL(LLMMEM_P_DISTRIBUTED_OPTIMIZER, "distributed_optimizer", "engine", distributed_optimizer,
         0, "Megatron distributed optimizer"),
    ENUM(LLMMEM_P_ACCOUNTING, "accounting", "engine", accounting, acc_names, 0,
         "runtime model, or reproduce DeepSpeed's / Megatron's own estimator"),
    BOOL(LLMMEM_P_ZERO_INIT, "zero_init", "engine", zero_init, 1,
         "deepspeed.zero.Init (DeepSpeed estimator mode)"),
    ENUM(LLMMEM_P_FSDP_PARAM_DTYPE, "fsdp_param_dtype", "engine", fsdp_param_dtype, dtype_names,
         LLMMEM__DT_AUTO,
         "FSDP MixedPrecisionPolicy param_dtype: all-gather and compute dtype; auto = no policy "
         "(the stored param_dtype)"),
    ENUM(LLMMEM_P_FSDP_REDUCE_DTYPE, "fsdp_reduce_dtype", "engine", fsdp_reduce_dtype, dtype_names,
         LLMMEM__DT_AUTO,
         "FSDP MixedPrecisionPolicy reduce_dtype (reduce-scatter); auto = the gradients' dtype "
         "(fsdp_param_dtype)"),
    I64(LLMMEM_P_FSDP_RESHARD_AFTER_FORWARD, "reshard_after_forward", "engine",
        fsdp_reshard_after_forward, -1, 1000000, -1,
        "FSDP2 reshard_after_forward: -1 auto (every unit but the root), 0 false, 1 true, "
        "k >= 2 reshard to k ranks"),
    BOOL(LLMMEM_P_FSDP_CUSTOM_SHARDED_LAYERS, "fsdp_custom_sharded_layers", "engine", fsdp_custom_sharded_layers, 0,
         "FSDP: embedding and output head wrapped as units of their own, not in the root "
         "(torchtune custom_sharded_layers)"),
    ENUM(LLMMEM_P_OFFLOAD_PIN_MEMORY, "offload_pin_memory", "engine", offload_pin_memory, tri_names, 0,
         "offloaded states in pinned host memory (DeepSpeed offload_*.pin_memory, FSDP2 "
         "CPUOffloadPolicy.pin_memory); auto = the framework's default: on (DeepSpeed >= 0.19.5, FSDP)"),
    I64(LLMMEM_P_NUM_GPUS, "num_gpus", "parallelism", num_gpus, 0, 10000000, 0,
        "total GPUs; 0 = dp*tp*pp*cp"),
    I64(LLMMEM_P_DATA_PARALLEL, "data_parallel_size", "parallelism", dp, 1, 10000000, 1,
        "data-parallel ranks"),
    I64(LLMMEM_P_TENSOR_PARALLEL, "tensor_parallel_size", "parallelism", tp, 1, 4096, 1,
        "tensor-parallel ranks"),
    I64(LLMMEM_P_PIPELINE_PARALLEL, "pipeline_parallel_size", "parallelism", pp, 1, 4096, 1,
        "pipeline stages"),
    I64(LLMMEM_P_CONTEXT_PARALLEL, "context_parallel_size", "parallelism", cp, 1, 4096, 1,
        "context-parallel ranks"),
    I64(LLMMEM_P_EXPERT_PARALLEL, "expert_parallel_size", "parallelism", ep, 1, 4096, 1,
        "expert-parallel ranks"),
    I64(LLMMEM_P_EXPERT_TENSOR_PARALLEL, "expert_tensor_parallel_size", "parallelism", etp, 1, 4096,
        1, "expert tensor-parallel ranks"),
    BOOL(LLMMEM_P_SEQUENCE_PARALLEL, "sequence_parallel", "parallelism", sequence_parallel, 0,
         "Megatron sequence parallelism"),
    I64(LLMMEM_P_VIRTUAL_PIPELINE, "virtual_pipeline_size", "parallelism", vpp, 1, 4096, 1,
        "interleaved model chunks per device"),
    I64(LLMMEM_P_NUM_MICROBATCHES, "num_microbatches", "parallelism", num_microbatches, 0, 1000000,
        0, "pipeline micro-batches per step; 0 = gradient_accumulation_steps"),
    I64(LLMMEM_P_GPUS_PER_NODE, "gpus_per_node", "parallelism", gpus_per_node, 1, 1024, 8,
        "GPUs per node"),
    ENUM(LLMMEM_P_RUNTIME, "runtime", "inference", runtime, runtime_names, 0,
         "serving runtime: hf generate or vllm"),
    F64(LLMMEM_P_GPU_MEMORY_UTILIZATION, "gpu_memory_utilization", "inference",
        gpu_memory_utilization, 0.0, 1.0, 0.0,
        "vLLM fraction of total GPU memory; 0 = the version's default (0.9, 0.92 from 0.20)"),
    I64(LLMMEM_P_MAX_NUM_BATCHED_TOKENS, "max_num_batched_tokens", "inference",
        max_num_batched_tokens, 0, MAXTOK, 0, "vLLM tokens per forward (chunked prefill); 0 = default"),
    I64(LLMMEM_P_MAX_NUM_SEQS, "max_num_seqs", "inference", max_num_seqs, 0, 1000000, 0,
        "vLLM maximum concurrent sequences; 0 = vLLM's default for the GPU and usage context"),
    I64(LLMMEM_P_KV_BLOCK_SIZE, "kv_block_size", "inference", kv_block_size, 0, 65536, 0,
        "paged KV block size in tokens; 0 = 16, raised for attention + Mamba hybrids"),
    I64(LLMMEM_P_MAX_MODEL_LEN, "max_model_len", "inference", max_model_len, 0, MAXTOK, 0,
        "vLLM maximum context; 0 = the model's max positions"),
    BOOL(LLMMEM_P_CUDA_GRAPHS, "cuda_graphs", "inference", cuda_graphs, 1,
         "vLLM CUDA graph capture"),
    STR(LLMMEM_P_VLLM_VERSION, "vllm_version", "inference", vllm_version, "",
        "vLLM version whose memory accounting applies (0.8.0 and later); empty = 0.33.0"),
    BOOL(LLMMEM_P_ENFORCE_EAGER, "enforce_eager", "inference", enforce_eager, 0,
         "vLLM --enforce-eager: no CUDA graphs"),
    ENUM(LLMMEM_P_QUANTIZATION, "quantization", "inference", quantization, vllm_quant_names, 0,
         "vLLM --quantization: auto = the checkpoint's method (Marlin kernels where vLLM picks "
         "them); gptq/awq = the original kernels; fp8/bitsandbytes on an unquantized checkpoint "
         "quantize while loading"),
    ENUM(LLMMEM_P_ENABLE_CHUNKED_PREFILL, "enable_chunked_prefill", "inference",
         enable_chunked_prefill, tri_names, 0,
         "vLLM chunked prefill; off: max_num_batched_tokens = max(max_model_len, 2048)"),
    ENUM(LLMMEM_P_VLLM_USAGE_CONTEXT, "vllm_usage_context", "inference", vllm_usage_context,
         usage_names, 0, "vLLM batch defaults of `vllm serve` or of the LLM class"),
    ENUM(LLMMEM_P_FLASHINFER_SAMPLER, "flashinfer_sampler", "inference", flashinfer_sampler,
         tri_names, 0,
         "vLLM's FlashInfer top-k/top-p sampler (VLLM_USE_FLASHINFER_SAMPLER): auto = the "
         "version's default (up to 0.11 when FlashInfer is installed, see vllm_image; from "
         "0.21), else PyTorch sort / Triton"),
    BOOL(LLMMEM_P_ENABLE_EXPERT_PARALLEL, "enable_expert_parallel", "inference",
         enable_expert_parallel, 0, "vLLM --enable-expert-parallel: experts split over tp x dp"),
    BOOL(LLMMEM_P_DISABLE_CUSTOM_ALL_REDUCE, "disable_custom_all_reduce", "inference",
         disable_custom_all_reduce, 0, "vLLM --disable-custom-all-reduce"),
    ENUM(LLMMEM_P_ENABLE_PREFIX_CACHING, "enable_prefix_caching", "inference",
         enable_prefix_caching, tri_names, 0,
         "vLLM prefix caching (on by default): Mamba groups hold 2 blocks per request ('align')"),
    I64(LLMMEM_P_KV_CACHE_MEMORY_BYTES, "kv_cache_memory_bytes", "inference",
        kv_cache_memory_bytes, 0, INT64_C(1) << 50, 0,
        "vLLM --kv-cache-memory in bytes; 0 = from gpu_memory_utilization"),
    BOOL(LLMMEM_P_DISABLE_HYBRID_KV_CACHE_MANAGER, "disable_hybrid_kv_cache_manager", "inference",
         disable_hybrid_kv_cache_manager, 0,
         "vLLM --disable-hybrid-kv-cache-manager: sliding-window layers sized as full attention"),
    I64(LLMMEM_P_NUM_GPU_BLOCKS_OVERRIDE, "num_gpu_blocks_override", "inference",
        num_gpu_blocks_override, 0, BIG, 0, "vLLM --num-gpu-blocks-override; 0 = none"),
    ENUM(LLMMEM_P_MAMBA_SSM_CACHE_DTYPE, "mamba_ssm_cache_dtype", "inference",
         mamba_ssm_cache_dtype, dtype_names, LLMMEM__DT_AUTO,
         "vLLM --mamba-ssm-cache-dtype; auto = the model dtype (set fp32 for a checkpoint with "
         "mamba_ssm_dtype float32)"),
    ENUM(LLMMEM_P_VLLM_MODEL_RUNNER, "vllm_model_runner", "inference", vllm_model_runner,
         runner_names, 0,
         "vLLM model runner: auto = the version's choice (V2 for dense models from 0.25, all "
         "from 0.29), or VLLM_USE_V2_MODEL_RUNNER"),
    ENUM(LLMMEM_P_CUDAGRAPH_MEMORY_ESTIMATE, "cudagraph_memory_estimate", "inference",
         cudagraph_memory_estimate, tri_names, 0,
         "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS: auto = subtracted from 0.20 on"),
    BOOL(LLMMEM_P_VLLM_IMAGE, "vllm_image", "inference", vllm_image, 0,
         "vLLM before 0.12 installed with FlashInfer and triton_kernels (the vllm/vllm-openai "
         "image); off = pip install vllm, which has neither"),
    I64(LLMMEM_P_N_GPU_LAYERS, "n_gpu_layers", "inference", n_gpu_layers, -1, 100000, -1,
        "llama.cpp -ngl: the last N of the n_layer + 1 layers (the output layer counts) on the GPU; "
        "-1 = all"),
    I64(LLMMEM_P_CTX_SIZE, "ctx_size", "inference", ctx_size, 0, MAXTOK, 0,
        "llama.cpp --ctx-size, all sequences together; 0 = the model's context_length"),
    I64(LLMMEM_P_N_BATCH, "n_batch", "inference", n_batch, 1, MAXTOK, 2048,
        "llama.cpp --batch-size: logical batch (at most the context)"),
    I64(LLMMEM_P_N_UBATCH, "n_ubatch", "inference", n_ubatch, 1, MAXTOK, 512,
        "llama.cpp --ubatch-size: tokens per graph (at most the batch)"),
    I64(LLMMEM_P_N_PARALLEL, "n_parallel", "inference", n_parallel, 1, 256, 1,
        "llama.cpp --parallel: sequences (llama-server's slots)"),
    ENUM(LLMMEM_P_CACHE_TYPE_K, "cache_type_k", "inference", cache_type_k, lcpp_cache_names, 0,
         "llama.cpp --cache-type-k"),
    ENUM(LLMMEM_P_CACHE_TYPE_V, "cache_type_v", "inference", cache_type_v, lcpp_cache_names, 0,
         "llama.cpp --cache-type-v (quantized needs flash attention)"),
    ENUM(LLMMEM_P_FLASH_ATTN, "flash_attn", "inference", flash_attn, tri_names, 0,
         "llama.cpp --flash-attn; auto = on where the device runs it (CPU, CUDA)"),
    BOOL(LLMMEM_P_KV_UNIFIED, "kv_unified", "inference", kv_unified, 0,
         "llama.cpp --kv-unified: one KV buffer shared by the sequences"),
    BOOL(LLMMEM_P_SWA_FULL, "swa_full", "inference", swa_full, 0,
         "llama.cpp --swa-full: sliding-window layers keep the whole context"),
    I64(LLMMEM_P_N_CPU_MOE, "n_cpu_moe", "inference", n_cpu_moe, 0, 100000, 0,
        "llama.cpp --n-cpu-moe: the expert tensors of the first N layers stay in host memory"),
    BOOL(LLMMEM_P_NO_KV_OFFLOAD, "no_kv_offload", "inference", no_kv_offload, 0,
         "llama.cpp --no-kv-offload: the KV cache in host memory"),
    STR(LLMMEM_P_OVERRIDE_TENSOR, "override_tensor", "inference", override_tensor, "",
        "llama.cpp --override-tensor (-ot): PATTERN=BUFFER[,...], PATTERN a regular expression "
        "searched in each tensor's name, BUFFER CPU (host memory) or CUDA0 (the GPU); the first "
        "match wins, before n_cpu_moe's patterns"),
    F64(LLMMEM_P_CPU_OFFLOAD_GB, "cpu_offload_gb", "inference", cpu_offload_gb, 0.0, 1048576.0, 0.0,
        "vLLM --cpu-offload-gb: GiB of each GPU's decoder-layer weights kept in pinned host memory "
        "(read through UVA); host_bytes reports them"),
    F64(LLMMEM_P_SWAP_SPACE, "swap_space", "inference", swap_space, 0.0, 1048576.0, 4.0,
        "vLLM --swap-space in GiB per GPU (4 = vLLM's default; the argument exists before 0.18, "
        "so setting it for 0.18+ is refused): the V1 engine allocates no CPU swap, so no host "
        "bytes"),
    ENUM(LLMMEM_P_GPU, "gpu", "hardware", gpu, llmmem__gpu_names, 0, "GPU model (llmmem gpus)"),
    I64(LLMMEM_P_GPU_MEMORY_BYTES, "gpu_memory_bytes", "hardware", gpu_memory_bytes, 0,
        INT64_C(1) << 50, 0, "GPU memory in bytes; 0 = from the GPU table"),
    I64(LLMMEM_P_CUDA_CONTEXT_BYTES, "cuda_context_bytes", "hardware", cuda_context_bytes, -1,
        INT64_C(1) << 40, -1, "CUDA context and non-PyTorch memory; -1 = GPU default"),
    I64(LLMMEM_P_CUBLAS_WORKSPACE_BYTES, "cublas_workspace_bytes", "hardware",
        cublas_workspace_bytes, -1, INT64_C(1) << 40, -1,
        "cuBLAS workspace per handle; -1 = GPU default"),
    BOOL(LLMMEM_P_EXPANDABLE_SEGMENTS, "expandable_segments", "hardware", expandable_segments, 0,
         "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
    BOOL(LLMMEM_P_ALLOCATOR_REPLAY, "allocator_replay", "hardware", allocator_replay, 1,
         "peak_reserved from a replay of PyTorch's caching allocator over the allocation timeline "
         "(off: allocated peak + largest transient block)"),
    I64(LLMMEM_P_MAX_SPLIT_SIZE_BYTES, "max_split_size_bytes", "hardware", max_split_size_bytes, 0,
        INT64_C(1) << 50, 0, "PYTORCH_CUDA_ALLOC_CONF max_split_size_mb in bytes; 0 = unlimited"),
    F64(LLMMEM_P_GC_THRESHOLD, "garbage_collection_threshold", "hardware", gc_threshold, 0.0, 1.0, 0.0,
        "PYTORCH_CUDA_ALLOC_CONF garbage_collection_threshold (with a per-process memory fraction); 0 = off"),
    I64(LLMMEM_P_EMPTY_CACHE_STEPS, "empty_cache_steps", "hardware", empty_cache_steps, 0, 1000000, 0,
        "torch.cuda.empty_cache() after every N optimizer steps (TrainingArguments.torch_empty_cache_steps); "
        "0 = never"),
    I64(LLMMEM_P_PRIOR_WORKSPACE_SEGMENT_BYTES, "prior_workspace_segment_bytes", "hardware", prior_ws_segment, 0,
        INT64_C(1) << 50, 0,
        "a process that trained before: the cached segment holding the autograd thread's cuBLAS workspace "
        "(its bytes, from that run's timeline); 0 = a fresh process"),
    I64(LLMMEM_P_HOST_MEMORY_BYTES, "host_memory_bytes", "hardware", host_memory_bytes, 0, INT64_C(1) << 50, 0,
        "host RAM per node in bytes, checked against the host figures (fits_host); 0 = not checked"),
    I64(LLMMEM_P_IMAGES_PER_SAMPLE, "images_per_sample", "vision", images_per_sample, 0, 10000, 0,
        "images per sequence (vision-language models; 0 = text only)"),
    I64(LLMMEM_P_IMAGE_HEIGHT, "image_height", "vision", image_height, 0, 1000000, 0,
        "image height in pixels; 0 = the processor's fixed size"),
    I64(LLMMEM_P_IMAGE_WIDTH, "image_width", "vision", image_width, 0, 1000000, 0,
        "image width in pixels; 0 = the processor's fixed size"),
    I64(LLMMEM_P_VIDEO_FRAMES, "video_frames", "vision", video_frames, 0, 100000, 0,
        "frames per video, each encoded like an image (Qwen2-VL merges temporal_patch_size frames)"),
    ENUM(LLMMEM_P_VISION_TRAINING, "vision_training", "vision", vision_training, vision_names, 0,
         "vision tower: frozen, full fine-tuning, or LoRA like the language model"),
    I64(LLMMEM_P_MIN_PIXELS, "min_pixels", "vision", min_pixels, 0, INT64_C(1) << 40, 0,
        "Qwen2-VL dynamic resolution: minimum pixels; 0 = processor default"),
    I64(LLMMEM_P_MAX_PIXELS, "max_pixels", "vision", max_pixels, 0, INT64_C(1) << 40, 0,
        "Qwen2-VL dynamic resolution: maximum pixels; 0 = processor default"),
    BOOL(LLMMEM_P_ENCODER_CACHE, "encoder_cache", "vision", encoder_cache, 1,
         "serving: keep the encoder outputs of admitted requests (vLLM encoder cache)"),
    ENUM(LLMMEM_P_LOAD_VISION_TOWER, "load_vision_tower", "vision", load_vision_tower, tri_names, 0,
         "the vision tower built and loaded; auto = the runtime's: vLLM, image/video inputs or a trained "
         "tower load it, else the class AutoModelForCausalLM builds (text only for llama4, qwen3_5, "
         "qwen3_5_moe); on = the ForConditionalGeneration class; off = the text model"),
};

/* Alternative spellings accepted by llmmem_param_from_name. */
static const struct {
    const char *alias;
    int id;
} aliases[] = {
    {"checkpointing", LLMMEM_P_CHECKPOINTING},
    {"gradient_checkpointing", LLMMEM_P_CHECKPOINTING},
    {"grad_accum_steps", LLMMEM_P_GRAD_ACCUM_STEPS},
    {"fsdp_sharding", LLMMEM_P_FSDP_SHARDING},
    {"dp", LLMMEM_P_DATA_PARALLEL},
    {"tp", LLMMEM_P_TENSOR_PARALLEL},
    {"pp", LLMMEM_P_PIPELINE_PARALLEL},
    {"cp", LLMMEM_P_CONTEXT_PARALLEL},
    {"ep", LLMMEM_P_EXPERT_PARALLEL},
    {"etp", LLMMEM_P_EXPERT_TENSOR_PARALLEL},
    {"vpp", LLMMEM_P_VIRTUAL_PIPELINE},
    {"weights_dtype", LLMMEM_P_WEIGHTS_FORMAT},
    {"kv_dtype", LLMMEM_P_KV_CACHE_DTYPE},
    {"stage", LLMMEM_P_ZERO_STAGE},
    {"block_size", LLMMEM_P_KV_BLOCK_SIZE},
    {"kv_cache_memory", LLMMEM_P_KV_CACHE_MEMORY_BYTES},
    {"fsdp_reshard_after_forward", LLMMEM_P_FSDP_RESHARD_AFTER_FORWARD},
    {"mp_param_dtype", LLMMEM_P_FSDP_PARAM_DTYPE},
    {"mp_reduce_dtype", LLMMEM_P_FSDP_REDUCE_DTYPE},
    {"optimizer_in_bwd", LLMMEM_P_OPTIMIZER_IN_BACKWARD},
    {"ngl", LLMMEM_P_N_GPU_LAYERS},
    {"gpu_layers", LLMMEM_P_N_GPU_LAYERS},
    {"ubatch_size", LLMMEM_P_N_UBATCH},
    {"parallel", LLMMEM_P_N_PARALLEL},
    {"fa", LLMMEM_P_FLASH_ATTN},
};

/* Parameters that count tokens: their text takes k = 1024 ("4k" = 4096, "128k" =
 * 131072), as context lengths are named (llmmem_parse_value). */
static const int token_params[] = {LLMMEM_P_SEQ_LEN,       LLMMEM_P_PROMPT_LEN,
                                   LLMMEM_P_DECODE_LEN,    LLMMEM_P_MAX_NUM_BATCHED_TOKENS,
                                   LLMMEM_P_KV_BLOCK_SIZE, LLMMEM_P_MAX_MODEL_LEN};

int llmmem_param_value_kind(int param)
{
    const llmmem__param_info *p = llmmem__param_find(param);
    if (!p)
        return 0;
    if (p->type == LLMMEM_TYPE_BOOL)
        return LLMMEM_VALUE_BOOL;
    if (p->type != LLMMEM_TYPE_I64)
        return 0;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(token_params); i++)
        if (token_params[i] == param)
            return LLMMEM_VALUE_TOKENS;
    return LLMMEM_VALUE_WHOLE;
}

/* The table is in id order (test_null_args.c checks it): a search by halves. */
const llmmem__param_info *llmmem__param_find(int id)
{
    size_t lo = 0, hi = LLMMEM_ARRAY_LEN(params);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (params[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < LLMMEM_ARRAY_LEN(params) && params[lo].id == id ? &params[lo] : NULL;
}

const llmmem__param_info *llmmem__param_info_at(int index)
{
    if (index < 0 || (size_t)index >= LLMMEM_ARRAY_LEN(params))
        return NULL;
    return &params[index];
}

const llmmem__param_info *llmmem__param_by_name(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(params); i++)
        if (strcmp(params[i].name, name) == 0)
            return &params[i];
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(aliases); i++)
        if (strcmp(aliases[i].alias, name) == 0)
            return llmmem__param_find(aliases[i].id);
    return NULL;
}

static int enum_count(const char *const *names)
{
    int n = 0;
    while (names && names[n])
        n++;
    return n;
}

/* Every parameter has a bit in a configuration's set_mask (config.c): its group of
 * hundreds is a word, id % 100 a bit of it; test_null_args.c checks every row. */
_Static_assert(LLMMEM_P_ENCODER_CACHE / 100 <= LLMMEM__SET_WORDS, "config set_mask has a word per group of parameters");

int llmmem_param_count(void) { return (int)LLMMEM_ARRAY_LEN(params); }

int llmmem_param_at(int index)
{
    if (index < 0 || (size_t)index >= LLMMEM_ARRAY_LEN(params))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "parameter index %d: expected 0..%d", index,
                             (int)LLMMEM_ARRAY_LEN(params) - 1);
    return params[index].id;
}

const char *llmmem_param_name(int param)
{
    const llmmem__param_info *p = llmmem__param_find(param);
    return p ? p->name : NULL;
}

int llmmem_param_from_name(int *out, const char *name)
{
    if (!out || !name)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_param_from_name: NULL argument");
    const char *src = name;
    char norm[64];
    size_t n = 0;
    for (; *src && n + 1 < sizeof norm; src++)
        norm[n++] = *src == '-' ? '_' : *src;
    norm[n] = '\0';
    const llmmem__param_info *p = *src ? NULL : llmmem__param_by_name(norm);
    if (!p)
        return llmmem__error(LLMMEM_E_UNKNOWN_PARAM, "unknown parameter \"%.80s\"", name);
    *out = p->id;
    return LLMMEM_OK;
}

static const llmmem__param_info *need(int param)
{
    const llmmem__param_info *p = llmmem__param_find(param);
    if (!p)
        llmmem__error(LLMMEM_E_INVALID_ARG, "unknown parameter %d", param);
    return p;
}

int llmmem_param_type(int param)
{
    const llmmem__param_info *p = need(param);
    return p ? p->type : LLMMEM_E_INVALID_ARG;
}

const char *llmmem_param_doc(int param)
{
    const llmmem__param_info *p = llmmem__param_find(param);
    return p ? p->doc : NULL;
}

static bool is_integral(const llmmem__param_info *p)
{
    return p->type == LLMMEM_TYPE_I64 || p->type == LLMMEM_TYPE_BOOL || p->type == LLMMEM_TYPE_ENUM;
}

int llmmem_param_bounds_i64(int64_t *lo, int64_t *hi, int param)
{
    const llmmem__param_info *p = need(param);
    if (!p)
        return LLMMEM_E_INVALID_ARG;
    if (!lo || !hi)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_param_bounds_i64: NULL argument");
    if (!is_integral(p))
        return llmmem__error(LLMMEM_E_PARAM_TYPE, "parameter \"%s\" is not an integer", p->name);
    *lo = p->lo;
    *hi = p->type == LLMMEM_TYPE_ENUM ? enum_count(p->enum_names) - 1 : p->hi;
    return LLMMEM_OK;
}

int llmmem_param_bounds_f64(double *lo, double *hi, int param)
{
    const llmmem__param_info *p = need(param);
    if (!p)
        return LLMMEM_E_INVALID_ARG;
    if (!lo || !hi)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_param_bounds_f64: NULL argument");
    if (p->type != LLMMEM_TYPE_F64)
        return llmmem__error(LLMMEM_E_PARAM_TYPE, "parameter \"%s\" is not a real number", p->name);
    *lo = p->lo_f;
    *hi = p->hi_f;
    return LLMMEM_OK;
}

int llmmem_param_default_i64(int64_t *out, int param)
{
    const llmmem__param_info *p = need(param);
    if (!p)
        return LLMMEM_E_INVALID_ARG;
    if (!out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_param_default_i64: NULL argument");
    if (!is_integral(p))
        return llmmem__error(LLMMEM_E_PARAM_TYPE, "parameter \"%s\" is not an integer", p->name);
    *out = p->def_i;
    return LLMMEM_OK;
}

int llmmem_param_default_f64(double *out, int param)
{
    const llmmem__param_info *p = need(param);
    if (!p)
        return LLMMEM_E_INVALID_ARG;
    if (!out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_param_default_f64: NULL argument");
    if (p->type != LLMMEM_TYPE_F64)
        return llmmem__error(LLMMEM_E_PARAM_TYPE, "parameter \"%s\" is not a real number", p->name);
    *out = p->def_f;
    return LLMMEM_OK;
}

int llmmem_param_enum_count(int param)
{
    const llmmem__param_info *p = llmmem__param_find(param);
    return p && p->type == LLMMEM_TYPE_ENUM ? enum_count(p->enum_names) : 0;
}

const char *llmmem_param_enum_name(int param, int64_t value)
{
    const llmmem__param_info *p = llmmem__param_find(param);
    if (!p || p->type != LLMMEM_TYPE_ENUM || value < 0 || value >= enum_count(p->enum_names))
        return NULL;
    return p->enum_names[value];
}
