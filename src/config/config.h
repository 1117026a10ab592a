/* Configurations: the enum values of the parameters, struct llmmem_config and
 * the parameter table (src/config/params.c). Not installed. */
#ifndef LLMMEM_CONFIG_CONFIG_H
#define LLMMEM_CONFIG_CONFIG_H

#include "config/enums.def"
#include "config/optimizers.def"
#include "core/core.h"

#define LLMMEM__STR_MAX 256
#define LLMMEM__COMPONENTS_MAX 16 /* >= LLMMEM__COMPONENTS */
#define LLMMEM__CFG_NOTES 12       /* notes a configuration keeps */

/* Enum values of the configuration, each from its list (config/enums.def). */
#define LLMMEM__ENUM(list, tag, prefix) enum tag { list(LLMMEM__LIST_VALUE, prefix) };
LLMMEM__ENUM(LLMMEM__MODES, llmmem__mode, LLMMEM__MODE_)
LLMMEM__ENUM(LLMMEM__ATTNS, llmmem__attn, LLMMEM__ATTN_)
LLMMEM__ENUM(LLMMEM__CKPTS, llmmem__ckpt, LLMMEM__CKPT_)
LLMMEM__ENUM(LLMMEM__LOSSES, llmmem__loss, LLMMEM__LOSS_)
LLMMEM__ENUM(LLMMEM__PROFILES, llmmem__profile, LLMMEM__PROFILE_)
/* torch.compile scope (compile.c) and activation offloading (recipes.c). */
LLMMEM__ENUM(LLMMEM__COMPILES, llmmem__compile, LLMMEM__COMPILE_)
LLMMEM__ENUM(LLMMEM__SCOPES, llmmem__peak_scope, LLMMEM__SCOPE_)
LLMMEM__ENUM(LLMMEM__AOFFS, llmmem__act_offload, LLMMEM__AOFF_)
LLMMEM__ENUM(LLMMEM__DROPOUTS, llmmem__dropout, LLMMEM__DROPOUT_)
LLMMEM__ENUM(LLMMEM__IMPLS, llmmem__impl, LLMMEM__IMPL_)
LLMMEM__ENUM(LLMMEM__STEPS, llmmem__step, LLMMEM__STEP_)
LLMMEM__ENUM(LLMMEM__QLORAS, llmmem__qlora, LLMMEM__QLORA_)
LLMMEM__ENUM(LLMMEM__OFFLOADS, llmmem__offload, LLMMEM__OFFLOAD_)
LLMMEM__ENUM(LLMMEM__TRIS, llmmem__tristate, LLMMEM__TRI_)
LLMMEM__ENUM(LLMMEM__FSDPS, llmmem__fsdp, LLMMEM__FSDP_)
LLMMEM__ENUM(LLMMEM__ACCS, llmmem__accounting, LLMMEM__ACC_)
/* vLLM --quantization, usage context (LLMMEM_P_VLLM_USAGE_CONTEXT), model runner
 * (LLMMEM_P_VLLM_MODEL_RUNNER). */
LLMMEM__ENUM(LLMMEM__VQS, llmmem__vquant, LLMMEM__VQ_)
LLMMEM__ENUM(LLMMEM__VUS, llmmem__vusage, LLMMEM__VU_)
LLMMEM__ENUM(LLMMEM__VRS, llmmem__vrunner, LLMMEM__VR_)
/* Values of LLMMEM_P_MASTER_WEIGHTS (0/1 were the bool's). */
LLMMEM__ENUM(LLMMEM__MASTERS, llmmem__master, LLMMEM__MASTER_)
LLMMEM__ENUM(LLMMEM__FP8S, llmmem__fp8, LLMMEM__FP8_)
/* Values of LLMMEM_P_VISION_TRAINING. */
LLMMEM__ENUM(LLMMEM__VTS, llmmem__vtrain, LLMMEM__VT_)
/* Values of LLMMEM_P_CACHE_TYPE_K / _V (llama.cpp). */
LLMMEM__ENUM(LLMMEM__LCPP_CACHES, llmmem__lcpp_cache, LLMMEM__LCPP_CACHE_)
#undef LLMMEM__ENUM
/* The training engines and serving runtimes: the public values (rows of
 * config/engines.def, src/engines/registry.c). */
enum llmmem__engine_id { LLMMEM__ENG_SINGLE = LLMMEM_ENGINE_SINGLE, LLMMEM__ENG_DDP = LLMMEM_ENGINE_DDP,
                      LLMMEM__ENG_ZERO = LLMMEM_ENGINE_ZERO, LLMMEM__ENG_FSDP = LLMMEM_ENGINE_FSDP,
                      LLMMEM__ENG_MEGATRON = LLMMEM_ENGINE_MEGATRON,
                      LLMMEM__ENG_MEGATRON_DEEPSPEED = LLMMEM_ENGINE_MEGATRON_DEEPSPEED };
/* What an engine or runtime does: the capability flags of its row
 * (struct llmmem__engine.flags, engines/engines.h). The driver copies them
 * into the run it resolves (memory/run.h), where the byte model reads the few it
 * needs. */
enum llmmem__caps {
    LLMMEM__CAP_INFERENCE = 1u << 0,        /* a serving runtime (mode inference) */
    LLMMEM__CAP_ONE_GPU = 1u << 1,          /* one GPU: no layout; planned on 1 GPU only */
    LLMMEM__CAP_MODEL_PARALLEL = 1u << 2,   /* accepts tensor, pipeline, context, expert sizes */
    LLMMEM__CAP_PLAN_CP = 1u << 3,          /* the planner tries context parallelism */
    LLMMEM__CAP_PLAN_EP = 1u << 4,          /* the planner tries expert parallelism (MoE) */
    LLMMEM__CAP_ZERO = 1u << 5,             /* DeepSpeed's optimizer: zero_stage */
    LLMMEM__CAP_ZERO_OFFLOAD = 1u << 6,     /* DeepSpeed's offload_optimizer / offload_param */
    LLMMEM__CAP_FSDP = 1u << 7,             /* FSDP's CPUOffload, MixedPrecisionPolicy, resharding */
    LLMMEM__CAP_DIST_OPTIMIZER = 1u << 8,   /* Megatron's --use-distributed-optimizer */
    LLMMEM__CAP_FUSED_ADAM = 1u << 9,       /* builds its own fused Adam (optimizers.c) */
    LLMMEM__CAP_REPLAY = 1u << 10,          /* the allocator replay draws its run */
    LLMMEM__CAP_OPTIM_IN_BWD = 1u << 11,    /* optimizer_in_backward */
    LLMMEM__CAP_TORCH_RECOMPUTE = 1u << 12, /* its model is torch modules: op-level SAC, activation offloading */
    LLMMEM__CAP_POSITIONS = 1u << 13,       /* inference: prompt + decode index a learned position table */
    LLMMEM__CAP_OWN_WEIGHTS = 1u << 14      /* inference: reports its weights its own way */
};
enum llmmem__runtime { LLMMEM__RT_HF = LLMMEM_RUNTIME_HF, LLMMEM__RT_VLLM = LLMMEM_RUNTIME_VLLM };

/* The optimizers (config/optimizers.def): the public values. */
#define LLMMEM__OPT_VALUE(P, V, name, ...) LLMMEM__OPT_##V = LLMMEM_OPTIMIZER_##V,
enum llmmem__optim { LLMMEM__OPTIMIZERS(LLMMEM__OPT_VALUE, _) LLMMEM__OPT_COUNT };
#undef LLMMEM__OPT_VALUE

/* Where a reader set a parameter: "source:line:col key.path" (config.c). */
#define LLMMEM__ORIGINS 16
#define LLMMEM__ORIGIN_MAX 160
typedef struct llmmem__origin {
    int param;
    char where[LLMMEM__ORIGIN_MAX];
} llmmem__origin;

/* Words of the set-parameter mask: one per group of hundreds of parameter ids (config.c;
 * test_null_args.c checks every id has its bit). */
#define LLMMEM__SET_WORDS 12

struct llmmem_config {
    /* workload */
    int64_t mode;
    int64_t micro_batch_size, seq_len, grad_accum_steps;
    int64_t batch_size, prompt_len, decode_len, peak_scope;
    /* precision */
    int64_t param_dtype, compute_dtype, master_weights, grad_dtype;
    int64_t weights_format, kv_cache_dtype, quant_bits, quant_group_size, fp8_recipe;
    /* optimizer */
    int64_t optimizer, optimizer_impl, optimizer_state_dtype, step, optimizer_in_backward;
    /* activations */
    int64_t attention, checkpointing, loss, activation_profile, dropout;
    int64_t compile, activation_offloading, loss_chunks, liger_kernels;
    /* LoRA */
    int64_t lora_rank;
    double lora_alpha;
    char lora_targets[LLMMEM__STR_MAX];
    double lora_dropout;
    int64_t qlora, qlora_double_quant, qlora_compute_dtype, qlora_quantize_head;
    /* engine */
    int64_t engine, zero_stage, offload_optimizer, offload_param;
    double bucket_cap_mb;
    int64_t gradient_as_bucket_view, reduce_bucket_size, allgather_bucket_size;
    int64_t contiguous_gradients, overlap_comm;
    int64_t stage3_max_live_parameters, stage3_prefetch_bucket_size;
    int64_t stage3_param_persistence_threshold, zero_hpz_partition_size;
    int64_t fsdp_version, fsdp_sharding, fsdp_cpu_offload, distributed_optimizer;
    int64_t accounting, zero_init;
    int64_t fsdp_param_dtype, fsdp_reduce_dtype, fsdp_reshard_after_forward;
    int64_t fsdp_custom_sharded_layers, offload_pin_memory;
    /* parallelism */
    int64_t num_gpus, dp, tp, pp, cp, ep, etp, sequence_parallel, vpp, num_microbatches;
    int64_t gpus_per_node;
    /* serving */
    int64_t runtime;
    double gpu_memory_utilization;
    double cpu_offload_gb, swap_space; /* vLLM --cpu-offload-gb, --swap-space (GiB) */
    int64_t max_num_batched_tokens, max_num_seqs, kv_block_size, max_model_len, cuda_graphs;
    char vllm_version[LLMMEM__STR_MAX];
    int64_t enforce_eager, quantization, enable_chunked_prefill, vllm_usage_context;
    int64_t flashinfer_sampler, enable_expert_parallel, disable_custom_all_reduce;
    int64_t enable_prefix_caching, kv_cache_memory_bytes, disable_hybrid_kv_cache_manager;
    int64_t num_gpu_blocks_override, mamba_ssm_cache_dtype, vllm_model_runner;
    int64_t cudagraph_memory_estimate, vllm_image;
    /* llama.cpp */
    int64_t n_gpu_layers, ctx_size, n_batch, n_ubatch, n_parallel, cache_type_k, cache_type_v;
    int64_t flash_attn, kv_unified, swa_full, n_cpu_moe, no_kv_offload;
    char override_tensor[LLMMEM__STR_MAX];
    /* hardware */
    int64_t gpu, gpu_memory_bytes, cuda_context_bytes, cublas_workspace_bytes;
    int64_t expandable_segments;
    int64_t allocator_replay, max_split_size_bytes, empty_cache_steps, prior_ws_segment;
    int64_t host_memory_bytes;
    double gc_threshold;
    /* vision-language */
    int64_t load_vision_tower;
    int64_t images_per_sample, image_height, image_width, video_frames, vision_training;
    int64_t min_pixels, max_pixels, encoder_cache;
    /* which parameters were set (by llmmem_config_set_*): bit id % 100 of word id / 100 - 1 */
    uint64_t set_mask[LLMMEM__SET_WORDS];
    /* a candidate the planner builds from the caller's configuration: its settings are
     * the caller's for another layout, not checked against it (engines/applies.c) */
    bool no_applies_check;
    /* calibration profile (calib.c); all 1.0 / 0 = identity */
    bool calibrated;
    double calib_component[LLMMEM__COMPONENTS_MAX];
    double calib_reserved;      /* multiplies peak_reserved - peak_allocated (allocator headroom) */
    int64_t calib_context_bytes; /* replaces the CUDA context when >= 0 */
    uint64_t calib_fragmentation_bytes; /* flat bytes added to peak reserved (fragmentation_gib) */
    uint64_t calib_overhead_bytes;      /* flat bytes added to the total per GPU (overhead_gib) */
    double calib_safety_margin;         /* share of the capacity kept free for the verdict */
    /* the readers' notes and origins: owned by the handle (llmmem_config_new/clone/free)
     * and shared, read only, by the copies an estimate makes, which stay small; NULL in
     * a struct no handle made */
    struct llmmem__config_side *side;
};

/* What a handle keeps beside its values: the notes of the framework-file readers
 * (llmmem__config_note), copied into results, and where the readers found the last
 * LLMMEM__ORIGINS parameters they set (llmmem__config_set_origin). */
typedef struct llmmem__config_side {
    int note_count;
    int origin_count;
    char notes[LLMMEM__CFG_NOTES][LLMMEM__NOTE_MAX];
    llmmem__origin origins[LLMMEM__ORIGINS];
} llmmem__config_side;

/* The number of notes of a configuration and the i-th (0 <= i < count). */
static inline int llmmem__config_note_count(const struct llmmem_config *c)
{
    return c->side ? c->side->note_count : 0;
}

/* Replaces dst's values with src's (a clone that was edited), the notes and
 * origins included; each handle keeps its own side storage. */
void llmmem__config_take(struct llmmem_config *dst, struct llmmem_config *src);

/* Adds a note to a configuration (ignored past LLMMEM__CFG_NOTES; a repeated
 * text is kept once). */
void llmmem__config_note(struct llmmem_config *c, const char *fmt, ...) LLMMEM_PRINTF(2, 3);

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
/* The row of the i-th parameter (table order), NULL out of range. */
const llmmem__param_info *llmmem__param_info_at(int index);
const llmmem__param_info *llmmem__param_by_name(const char *name);
/* Whether a parameter was set since the config was made or reset (any setter). */
bool llmmem__config_was_set(const struct llmmem_config *c, int param);
/* Records where a reader set a parameter ("ds.json:4:12 zero_optimization.stage"). */
void llmmem__config_set_origin(struct llmmem_config *c, int param, const char *where);
/* " (set at <where>)" for a parameter a reader set, else "" (static or c's storage). */
const char *llmmem__config_origin(const struct llmmem_config *c, int param);
/* An enum whose values are false, true, auto (LLMMEM_P_MASTER_WEIGHTS): read and
 * written like a bool, plus "auto". */
static inline bool llmmem__param_is_tribool(const llmmem__param_info *p)
{
    return p->type == LLMMEM_TYPE_ENUM && p->enum_names && p->enum_names[0] && p->enum_names[1] &&
           p->enum_names[0][0] == 'f' && p->enum_names[1][0] == 't' && p->enum_names[2] &&
           p->enum_names[2][0] == 'a';
}


#endif /* LLMMEM_CONFIG_CONFIG_H */
