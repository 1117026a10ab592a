/* Runtime vllm: how vLLM V1 sizes its KV cache at startup, by version
 * (docs/inference.md "vLLM", docs/research/vllm-v1.md).
 *
 *   requested = total * gpu_memory_utilization      (v1/worker/gpu_worker.py init_device)
 *   available = requested - weights - profile peak - non-torch [- CUDA graph estimate]
 *                                                   (Worker.determine_available_memory)
 *   blocks    = available // (page * layers per group)   (v1/core/kv_cache_utils.py)
 *
 * The weights, the KV layout and the profile peak are the byte model's
 * (vllm_*.c of this folder); this file reads vLLM's arguments with the defaults of the
 * version, the GPU and the usage context, adds what lives outside PyTorch's
 * allocator and the CUDA graphs, applies the budget of the version and writes
 * the figures vLLM prints. Everything here is per rank. The runtime's row is at
 * the end. */
#include "engines/vllm/vllm.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#define u llmmem__nonneg

#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

/* The newest wheel read (docs/research/vllm-v1.md); the default version. */
#define VLLM_NEWEST LLMMEM__VLLM_V(0, 33, 0)

/* ---- memory outside PyTorch's allocator (non-torch) ------------------------------
 * What appears after init_device's baseline snapshot outside the caching
 * allocator. Environment-dependent (driver, NCCL, interconnect); the figures
 * below are the assumptions --explain states:
 *  - the cuBLAS handle and the kernel images the first GEMMs load: 68 MiB
 *    (71,303,168 B measured on an H200, torch 2.11 + CUDA 13, lazy loading:
 *    678,232,064 B in use after the first matmul - 552,402,944 B before - the
 *    allocator's 54,525,952 B; test/data/probe/h200-probe.jsonl);
 *  - each NCCL communicator made after the baseline (nccl_comms below: by
 *    version, which of vLLM's PyNcclCommunicator and torch's ProcessGroupNCCL
 *    ones): on NVLink/NVSwitch Hopper and Blackwell parts 0.42 GiB
 *    (llm-d-benchmark empirical-vllm-memory-results.md, vLLM 0.11 on H100:
 *    non-torch 0.55 GiB at TP=2 against 0.13 at TP=1, one communicator after
 *    the baseline); elsewhere NCCL's default buffers on 2 ring channels:
 *    SIMPLE 4 MiB (NCCL_BUFFSIZE) + LL 512 KiB per channel (NCCL
 *    src/include/comm.h defaults);
 *  - custom all-reduce (distributed/device_communicators/custom_all_reduce.py
 *    CustomAllreduce: an 8 MiB IPC buffer and meta_size() + 8 MiB, cudaMalloc'd)
 *    when on and made after the baseline (up to 0.10). */
#define NT_BASE UINT64_C(71303168)
#define NT_NCCL_NVSWITCH ((UINT64_C(42) * GiB) / 100)
#define NT_NCCL_CHANNEL (UINT64_C(4) * MiB + UINT64_C(512) * 1024)
#define NT_NCCL_CHANNELS 2
#define NT_CUSTOM_AR (UINT64_C(16) * MiB)
/* vLLM's own floor for the driver memory of one captured graph
 * (gpu_model_runner.py profile_cudagraph_memory: max(second capture, 1 MiB)). */
#define CG_PER_GRAPH MiB

/* ---- the version ------------------------------------------------------------------ */

static int parse_version(int *ver, bool *newer, const char *text)
{
    *newer = false;
    if (!text || !*text) {
        *ver = VLLM_NEWEST;
        return 0;
    }
    const char *p = text;
    if (*p == 'v' || *p == 'V')
        p++;
    long part[3] = {0, 0, 0};
    int n = 0;
    while (n < 3 && *p >= '0' && *p <= '9') {
        long v = 0;
        while (*p >= '0' && *p <= '9' && v < 1000)
            v = v * 10 + (*p++ - '0');
        part[n++] = v;
        if (*p != '.')
            break;
        p++;
    }
    if (n < 2 || part[0] > 9 || part[1] > 99 || part[2] > 99)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "vllm_version \"%.40s\": expected a version such as 0.10.2", text);
    *ver = (int)(part[0] * 10000 + part[1] * 100 + part[2]);
    if (*ver < LLMMEM__VLLM_V(0, 8, 0))
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "vllm_version %.40s: the V0 engine (before 0.8.0) is not modelled; "
                             "the V1 accounting starts at 0.8.0",
                             text);
    *newer = *ver > VLLM_NEWEST;
    return 0;
}

uint64_t llmmem__vllm_behaviours(int ver)
{
    static const int since[LLMMEM__VB_COUNT] = {
#define SINCE(name, a, b, c) [LLMMEM__VB_##name] = LLMMEM__VLLM_V(a, b, c),
        LLMMEM__VLLM_RELEASES(SINCE)
#undef SINCE
    };
    /* the table is in release order: a version has the first n behaviours (the
     * newest, the default, finds n at once) */
    int n = LLMMEM__VB_COUNT;
    while (n > 0 && since[n - 1] > ver)
        n--;
    return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

/* ---- the engine arguments with vLLM's defaults ------------------------------------ */

typedef struct vargs {
    int ver;
    uint64_t vb; /* its behaviours (vllm.h LLMMEM__VLLM_RELEASES) */
    bool newer;
    const llmmem__gpu *gpu;
    uint64_t total, requested;
    double util;
    uint64_t maxlen, seqs, tokens, reqs;
    uint64_t tp, pp, dp, ep;
    bool graphs, cg_applied, runner_v2, prefix_caching, hybrid_manager;
    int sampler;   /* enum llmmem__vllm_sampler */
    int fmt;       /* weight storage (enum llmmem__quant) */
    bool marlin;
    int mxfp4;
    uint64_t e, kvb, ssmb;
    uint64_t bits, group; /* GPTQ/AWQ packing */
    bool mamba_layers;
    bool ssm_from_config; /* the state dtype is the config's mamba_ssm_dtype */
    bool kv_from_checkpoint; /* the KV dtype is the checkpoint's KV scheme */
    uint64_t offload_max;    /* --cpu-offload-gb: int(gb * 1024**3) */
    bool online_quant;       /* --quantization fp8/bitsandbytes quantizes a 16-bit checkpoint */
    bool swap_given;         /* --swap-space set by the caller */
} vargs;

static bool has_mixer(const struct llmmem_model *m, int mx)
{
    for (int y = 0; y < LLMMEM__FF_COUNT; y++)
        if (m->layers_of[mx][y] > 0)
            return true;
    return false;
}

/* EngineArgs._set_default_args (engine/arg_utils.py): max_num_batched_tokens
 * and max_num_seqs by usage context and device memory; the A100 exclusion
 * from 0.9, the >= 160 GiB tier from 0.28, GB10 (cc 12.1) on the small tier
 * in 0.33. */
static void batch_defaults(uint64_t *tokens, uint64_t *seqs, const vargs *v, bool llm_class)
{
    const bool a100 = LLMMEM__VLLM_HAS(v->vb, A100_SMALL_TIER) && strncasecmp(v->gpu->name, "A100", 4) == 0;
    const bool gb10 = LLMMEM__VLLM_HAS(v->vb, GB10_SMALL_TIER) && v->gpu->cc == 121;
    if (LLMMEM__VLLM_HAS(v->vb, TIER_160GIB) && v->total >= 160 * GiB) {
        *tokens = 16384;
        *seqs = 1024;
    } else if (v->total >= 70 * GiB && !a100 && !gb10) {
        *tokens = llm_class ? 16384 : 8192;
        *seqs = 1024;
    } else {
        *tokens = llm_class ? 8192 : 2048;
        *seqs = 256;
    }
}

/* Which model runner runs the profile (config/vllm.py use_v2_model_runner):
 * V1 before 0.25; V2 for models that are neither MoE nor hybrid in
 * 0.25 - 0.28 (and the MoE architectures listed in
 * DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES); V2 for all from 0.29. */
static bool runner_v2(const struct llmmem_model *m, const struct llmmem_config *c, uint64_t vb)
{
    if (c->vllm_model_runner != LLMMEM__VR_AUTO)
        return c->vllm_model_runner == LLMMEM__VR_V2;
    if (LLMMEM__VLLM_HAS(vb, RUNNER_V2_ALL))
        return true;
    if (!LLMMEM__VLLM_HAS(vb, RUNNER_V2_DENSE))
        return false;
    const bool hybrid = has_mixer(m, LLMMEM__MX_LINEAR) || has_mixer(m, LLMMEM__MX_MAMBA) ||
                        has_mixer(m, LLMMEM__MX_CONV);
    const bool listed = strcmp(m->model_type, "deepseek_v2") == 0 ||
                        strcmp(m->model_type, "qwen2_moe") == 0 ||
                        strcmp(m->model_type, "granitemoe") == 0;
    return listed || (m->num_experts == 0 && !hybrid);
}

/* The dummy sampler run's path (v1/sample/ops/topk_topp_sampler.py
 * TopKTopPSampler.__init__ by version): FlashInfer up to 0.11 when it is
 * installed (VLLM_USE_FLASHINFER_SAMPLER unset counts as on; pip installs
 * lack it, the vllm-openai image has it) and again from 0.21 (default True,
 * compute capability 7.5 - 12.1); otherwise PyTorch's sort, replaced from 0.17
 * by the Triton kernel for 8 or more rows. */
static int sampler_path(const vargs *v, const struct llmmem_config *c)
{
    if (v->runner_v2)
        return LLMMEM__VSAMP_RUNNER_V2;
    const int cc = v->gpu->cc;
    bool fi;
    if (c->flashinfer_sampler != LLMMEM__TRI_AUTO)
        fi = c->flashinfer_sampler == LLMMEM__TRI_ON;
    else if (!LLMMEM__VLLM_HAS(v->vb, KERNELS_BUNDLED))
        fi = c->vllm_image != 0;
    else
        fi = LLMMEM__VLLM_HAS(v->vb, FI_SAMPLER_DEFAULT) && cc >= 75 && cc <= 121;
    if (fi)
        return LLMMEM__VSAMP_FLASHINFER;
    if (LLMMEM__VLLM_HAS(v->vb, TRITON_TOPK) && v->reqs >= 8)
        return LLMMEM__VSAMP_TRITON;
    return LLMMEM__VSAMP_SORT;
}

/* The weight storage: the checkpoint's method (or weights_format), vLLM's
 * --quantization, and the kernel it picks (gptq_marlin/awq_marlin on sm_80+
 * unless the original kernel is asked for; get_mxfp4_backend). */
static int storage(vargs *v, const struct llmmem_model *m, const struct llmmem_config *c)
{
    /* a quantized checkpoint whose scheme the reader does not model (an unknown
     * quant_method, a compressed-tensors or ModelOpt scheme outside
     * ct_format/read_modelopt): vLLM loads it quantized, so the 16-bit figure
     * would be wrong; weights_format set by the caller says what it stores */
    if (m->quant_name[0] && !m->quant_method && c->weights_format == LLMMEM__Q_AUTO)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "vllm: quantization_config.quant_method \"%s\" with a scheme this library "
                             "does not model (the model's notes say which); vLLM loads it quantized: set "
                             "weights_format to its storage to estimate it",
                             m->quant_name);
    int fmt = llmmem__weights_format(m, c);
    const bool plain = fmt == LLMMEM__Q_FP16 || fmt == LLMMEM__Q_BF16 || fmt == LLMMEM__Q_FP32;
    switch (c->quantization) {
    case LLMMEM__VQ_FP8:
        if (plain) /* online quantization: fp8 weights, one scale per shard */
            fmt = LLMMEM__Q_FP8;
        else if (fmt != LLMMEM__Q_FP8 && fmt != LLMMEM__Q_FP8_BLOCK)
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "vllm: --quantization fp8 on a %s checkpoint",
                                 llmmem_param_enum_name(LLMMEM_P_WEIGHTS_FORMAT, fmt));
        break;
    case LLMMEM__VQ_BITSANDBYTES:
        if (plain) /* in-flight 4-bit NF4 (bitsandbytes.py) */
            fmt = LLMMEM__Q_NF4;
        break;
    case LLMMEM__VQ_GPTQ:
    case LLMMEM__VQ_GPTQ_MARLIN:
        if (fmt != LLMMEM__Q_GPTQ)
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "vllm: --quantization gptq needs a GPTQ checkpoint");
        break;
    case LLMMEM__VQ_AWQ:
    case LLMMEM__VQ_AWQ_MARLIN:
        if (fmt != LLMMEM__Q_AWQ)
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "vllm: --quantization awq needs an AWQ checkpoint");
        break;
    case LLMMEM__VQ_MXFP4:
        if (fmt != LLMMEM__Q_MXFP4)
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "vllm: --quantization mxfp4 needs an MXFP4 checkpoint");
        break;
    /* ModelOpt: ModelOptNvFp4Config.override_quantization_method names a
     * modelopt NVFP4 checkpoint "modelopt_fp4", ModelOptFp8Config a FP8 one
     * "modelopt"; ModelConfig._verify_quantization refuses any other spelling */
    case LLMMEM__VQ_MODELOPT:
        if (strncmp(m->quant_name, "modelopt", 8) != 0 || fmt != LLMMEM__Q_FP8)
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "vllm: --quantization modelopt needs a ModelOpt FP8 checkpoint (an "
                                 "NVFP4 one is modelopt_fp4)");
        break;
    case LLMMEM__VQ_MODELOPT_FP4:
        if (strncmp(m->quant_name, "modelopt", 8) != 0 || fmt != LLMMEM__Q_NVFP4)
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "vllm: --quantization modelopt_fp4 needs a ModelOpt NVFP4 checkpoint");
        break;
    case LLMMEM__VQ_COMPRESSED_TENSORS:
        if (strcmp(m->quant_name, "compressed-tensors") != 0)
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "vllm: --quantization compressed-tensors needs a compressed-tensors "
                                 "checkpoint (quantization_config.quant_method is \"%s\")",
                                 m->quant_name[0] ? m->quant_name : "absent");
        break;
    default: break;
    }
    /* a compressed-tensors or ModelOpt checkpoint names its own method: another
     * --quantization is a mismatch vLLM refuses (ModelConfig._verify_quantization) */
    if (c->quantization != LLMMEM__VQ_AUTO && c->quantization != LLMMEM__VQ_COMPRESSED_TENSORS &&
        c->quantization != LLMMEM__VQ_MODELOPT && c->quantization != LLMMEM__VQ_MODELOPT_FP4 &&
        (strcmp(m->quant_name, "compressed-tensors") == 0 || strncmp(m->quant_name, "modelopt", 8) == 0))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "vllm: --quantization %s on a %s checkpoint: vLLM refuses the mismatch",
                             llmmem_param_enum_name(LLMMEM_P_QUANTIZATION, c->quantization), m->quant_name);
    v->online_quant = plain && fmt != llmmem__weights_format(m, c);
    v->fmt = fmt;
    const int cc = v->gpu->cc;
    /* NVFP4: 0.8.5's ModelOptNvFp4Config.get_min_capability is 100 (the CUTLASS
     * FP4 GEMM) and its compressed-tensors has no NVFP4 scheme; 0.9.0 adds the
     * Marlin path for ModelOpt (prepare_fp4_layer_for_marlin,
     * get_min_capability 80); compressed-tensors has W4A16Fp4 only in 0.9.0,
     * W4A4Fp4 without a Marlin fallback in 0.9.1, both on sm_80+ from 0.9.2
     * (cutlass_fp4_supported, else W4A16Fp4). Read in the 0.8.5.post1, 0.9.0,
     * 0.9.1 and 0.9.2 sources; compressed-tensors NVFP4 before 0.9.2 is refused
     * (the reader does not tell W4A4 from W4A16). */
    if (fmt == LLMMEM__Q_NVFP4 && cc != 0) {
        const bool marlin = LLMMEM__VLLM_HAS(v->vb, NVFP4_MARLIN);
        const char *vs = c->vllm_version[0] ? c->vllm_version : "(the newest read)";
        if (!LLMMEM__VLLM_HAS(v->vb, CT_NVFP4) && strcmp(m->quant_name, "compressed-tensors") == 0)
            return llmmem__error(LLMMEM_E_UNSUPPORTED,
                                 "vllm: compressed-tensors NVFP4 in vLLM %s: none before 0.9.0, W4A16 only "
                                 "in 0.9.0, W4A4 on sm_100 only in 0.9.1; 0.9.2 runs both on sm_80+",
                                 vs);
        if (cc < (marlin ? 80 : 100))
            return llmmem__error(LLMMEM_E_UNSUPPORTED,
                                 "vllm: NVFP4 weights need compute capability %d.0 in vLLM %s "
                                 "(ModelOptNvFp4Config.get_min_capability); %s is %d.%d",
                                 marlin ? 8 : 10, vs, v->gpu->name, cc / 10, cc % 10);
    }
    v->marlin = (fmt == LLMMEM__Q_GPTQ || fmt == LLMMEM__Q_AWQ) && c->quantization != LLMMEM__VQ_GPTQ &&
                c->quantization != LLMMEM__VQ_AWQ && cc >= 80;
    /* get_mxfp4_backend: FlashInfer on sm_100; triton_kernels on sm_90 (an optional
     * package in 0.10.2 - 0.11, vendored from 0.12); Marlin otherwise */
    const bool optional = LLMMEM__VLLM_HAS(v->vb, KERNELS_BUNDLED) || c->vllm_image;
    if (cc >= 100 && cc < 110 && optional)
        v->mxfp4 = LLMMEM__MXFP4_FI_256;
    else if (cc == 90 && LLMMEM__VLLM_HAS(v->vb, MXFP4_TRITON) && optional)
        v->mxfp4 = LLMMEM__MXFP4_TRITON;
    else if (cc == 0)
        v->mxfp4 = LLMMEM__MXFP4_FI_128; /* ROCm */
    else
        v->mxfp4 = LLMMEM__MXFP4_MARLIN;
    v->e = llmmem__weights_act_bytes(fmt, m, c);
    v->bits = c->quant_bits > 0 ? u(c->quant_bits) : m->quant_bits > 0 ? u(m->quant_bits) : 4;
    const int64_t g = c->quant_group_size != 0   ? c->quant_group_size
                      : m->quant_group_size != 0 ? m->quant_group_size
                                                 : 128;
    v->group = g < 0 ? 0 : (uint64_t)g;
    return 0;
}

/* Where vLLM 0.8 - 0.10 falls back to the V0 engine
 * (engine/arg_utils.py EngineArgs._is_v1_supported_oracle, read in 0.8.5.post1,
 * 0.9.0, 0.9.1, 0.9.2, 0.10.0, 0.10.1.1 and 0.10.2): compute capability < 8.0
 * (up to 0.10.1), an explicit fp8 KV cache the V1 attention backend cannot
 * hold (FlashAttention 3 on sm_90 only; sm_100 from 0.10.0; MLA's backends
 * from 0.10.2; ROCm from 0.9.2), --dtype float32 (up to 0.9). V0 profiles and sizes differently
 * (worker/worker.py determine_num_available_blocks, its CUDA graphs captured
 * after the KV cache, the CPU swap space): not modelled, so refused with the
 * reason rather than answered with V1's figures. */
static int v0_fallback(const vargs *v, const struct llmmem_model *m, const struct llmmem_config *c)
{
    if (LLMMEM__VLLM_HAS(v->vb, V1_ONLY))
        return 0;
    const char *vs = c->vllm_version[0] ? c->vllm_version : "?";
    const int cc = v->gpu->cc;
    const char *why = NULL, *detail = "";
    if (cc != 0 && cc < 80 && !LLMMEM__VLLM_HAS(v->vb, V1_PRE_AMPERE))
        why = "Compute Capability < 8.0";
    else if (c->kv_cache_dtype == LLMMEM__DT_FP8) {
        bool ok = cc / 10 == 9 || (cc == 0 && LLMMEM__VLLM_HAS(v->vb, V1_FP8_KV_ROCM)) ||
                  (cc == 100 && LLMMEM__VLLM_HAS(v->vb, V1_FP8_KV_SM100)) ||
                  (m->kv_lora_rank > 0 && LLMMEM__VLLM_HAS(v->vb, V1_FP8_KV_MLA));
        if (!ok) {
            why = "--kv-cache-dtype";
            detail = " (fp8 needs FlashAttention 3 on sm_90 here)";
        }
    } else if (c->compute_dtype == LLMMEM__DT_FP32 && !LLMMEM__VLLM_HAS(v->vb, V1_FP32))
        why = "--dtype float32";
    if (!why)
        return 0;
    return llmmem__error(LLMMEM_E_UNSUPPORTED,
                         "vllm: vLLM %s on %s: \"%s is not supported by the V1 Engine. Falling back "
                         "to V0\"%s (arg_utils.py _is_v1_supported_oracle); the V0 engine's startup "
                         "(its profile run, CUDA graphs after the KV cache, swap space) is not modelled",
                         vs, v->gpu->name, why, detail);
}

/* Weights the kernel rewrites after loading (Marlin repacks of GPTQ/AWQ/NVFP4,
 * MXFP4's backends, online fp8 / bitsandbytes quantization of a 16-bit
 * checkpoint): process_weights_after_loading computes new tensors on the GPU
 * from the offloaded ones (replace_parameter / a new Parameter). */
static bool quant_repacks(const vargs *v)
{
    return v->marlin || v->online_quant || v->fmt == LLMMEM__Q_NVFP4 || v->fmt == LLMMEM__Q_MXFP4;
}

/* What vLLM itself refuses to start with. */
static int verify_args(const vargs *v, const struct llmmem_model *m, const struct llmmem_config *c)
{
    /* config/model.py _get_and_verify_max_len: a max_model_len past the model's (rope-scaled)
     * positions raises unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 */
    if (c->max_model_len > 0 && m->max_positions > 0) {
        const double f = m->rope_len_factor >= 1.0 ? m->rope_len_factor : 1.0;
        const double derived = (double)(m->rope_orig_positions > 0 ? m->rope_orig_positions : m->max_positions) * f;
        if ((double)c->max_model_len > derived)
            return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                                 "max_model_len %lld%s is greater than the model's %.0f positions "
                                 "(max_position_embeddings %lld%s): vLLM refuses it (config/model.py "
                                 "_get_and_verify_max_len) unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
                                 (long long)c->max_model_len, llmmem__config_origin(c, LLMMEM_P_MAX_MODEL_LEN), derived,
                                 (long long)m->max_positions, f > 1.0 ? " x rope_scaling factor" : "");
    }
    /* config/scheduler.py SchedulerConfig.verify_max_model_len */
    if (c->max_num_batched_tokens > 0 && c->max_num_seqs > 0 && v->tokens < v->seqs)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "max_num_batched_tokens %llu%s must be greater than or equal to max_num_seqs %llu%s "
                             "(vLLM config/scheduler.py verify_max_model_len)",
                             (unsigned long long)v->tokens, llmmem__config_origin(c, LLMMEM_P_MAX_NUM_BATCHED_TOKENS),
                             (unsigned long long)v->seqs, llmmem__config_origin(c, LLMMEM_P_MAX_NUM_SEQS));
    if (c->max_num_batched_tokens > 0 && c->enable_chunked_prefill == LLMMEM__TRI_OFF && v->tokens < v->maxlen)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "max_num_batched_tokens %llu%s is smaller than max_model_len %llu with chunked prefill "
                             "off: vLLM refuses it (config/scheduler.py verify_max_model_len)",
                             (unsigned long long)v->tokens, llmmem__config_origin(c, LLMMEM_P_MAX_NUM_BATCHED_TOKENS),
                             (unsigned long long)v->maxlen);
    /* v1/attention/backends/flash_attn.py get_kv_cache_shape: "Block size must be a multiple of 16." */
    if (c->kv_block_size > 0 && c->kv_block_size % 16 != 0)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "kv_block_size %lld%s: vLLM's FlashAttention backend needs a multiple of 16 "
                             "(v1/attention/backends/flash_attn.py get_kv_cache_shape)",
                             (long long)c->kv_block_size, llmmem__config_origin(c, LLMMEM_P_KV_BLOCK_SIZE));
    return LLMMEM_OK;
}

static int read_args(vargs *v, const struct llmmem_model *m, const struct llmmem_config *c,
                     const llmmem__infer_base *b)
{
    memset(v, 0, sizeof *v);
    int rc = parse_version(&v->ver, &v->newer, c->vllm_version);
    if (rc)
        return rc;
    v->vb = llmmem__vllm_behaviours(v->ver);
    v->gpu = b->gpu;
    v->total = llmmem__gpu_capacity(c, b->gpu);
    /* CacheConfig.gpu_memory_utilization: 0.9, 0.92 from 0.20 */
    v->util = c->gpu_memory_utilization > 0.0 ? c->gpu_memory_utilization
              : LLMMEM__VLLM_HAS(v->vb, UTIL_092) ? 0.92
                                                  : 0.9;
    v->requested = (uint64_t)floor((double)v->total * v->util);
    /* ModelConfig max_model_len: the config's max_position_embeddings */
    v->maxlen = c->max_model_len > 0   ? u(c->max_model_len)
                : m->max_positions > 0 ? u(m->max_positions)
                                       : 2048;
    uint64_t dtok, dseq;
    batch_defaults(&dtok, &dseq, v, c->vllm_usage_context == LLMMEM__VU_LLM);
    v->seqs = c->max_num_seqs > 0 ? u(c->max_num_seqs) : dseq;
    if (c->max_num_batched_tokens > 0)
        v->tokens = u(c->max_num_batched_tokens);
    else if (c->enable_chunked_prefill == LLMMEM__TRI_OFF) /* SchedulerConfig: max(len, 2048) */
        v->tokens = llmmem__max(v->maxlen, 2048);
    else
        v->tokens = dtok;
    v->reqs = llmmem__min(v->tokens, v->seqs);
    if ((rc = verify_args(v, m, c)) != 0)
        return rc;
    v->tp = (uint64_t)b->tp;
    v->pp = c->pp > 0 ? u(c->pp) : 1;
    v->dp = c->dp > 0 ? u(c->dp) : 1;
    v->ep = c->enable_expert_parallel && m->num_experts > 0 ? v->tp * v->dp : 1;
    if (v->pp > u(m->num_layers))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "pipeline_parallel_size %llu is larger than num_layers %lld",
                             (unsigned long long)v->pp, (long long)m->num_layers);
    v->graphs = c->cuda_graphs && !c->enforce_eager;
    /* VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS: "0" in 0.18 - 0.19, "1" from 0.20 */
    v->cg_applied = v->graphs && (c->cudagraph_memory_estimate == LLMMEM__TRI_ON ||
                                  (c->cudagraph_memory_estimate == LLMMEM__TRI_AUTO &&
                                   LLMMEM__VLLM_HAS(v->vb, CG_ESTIMATE)));
    v->runner_v2 = runner_v2(m, c, v->vb);
    v->sampler = sampler_path(v, c);
    v->prefix_caching = c->enable_prefix_caching != LLMMEM__TRI_OFF;
    /* the hybrid KV cache manager: from 0.9 unless disabled */
    v->hybrid_manager = LLMMEM__VLLM_HAS(v->vb, HYBRID_KV_MANAGER) && !c->disable_hybrid_kv_cache_manager;
    v->mamba_layers = has_mixer(m, LLMMEM__MX_LINEAR) || has_mixer(m, LLMMEM__MX_MAMBA) ||
                      has_mixer(m, LLMMEM__MX_CONV);
    if ((rc = storage(v, m, c)) != 0)
        return rc;
    v->kvb = (uint64_t)llmmem__dtype_bytes((int)c->kv_cache_dtype);
    /* "auto" follows the checkpoint's KV scheme: a ModelOpt kv_cache_quant_algo
     * from 0.14 (arg_utils.py resolve_kv_cache_dtype_string), a compressed-tensors
     * kv_cache_scheme from 0.15 (attention/layer.py: "llm-compressor models need
     * to set cache_dtype to fp8") */
    if (!v->kvb && m->kv_cache_quant != LLMMEM__DT_AUTO) {
        const bool ct = strcmp(m->quant_name, "compressed-tensors") == 0;
        if (ct ? LLMMEM__VLLM_HAS(v->vb, KV_DTYPE_CT_SCHEME) : LLMMEM__VLLM_HAS(v->vb, KV_DTYPE_MODELOPT)) {
            v->kvb = (uint64_t)llmmem__dtype_bytes(m->kv_cache_quant);
            v->kv_from_checkpoint = true;
        }
    }
    if (!v->kvb)
        v->kvb = v->e;
    if ((rc = v0_fallback(v, m, c)) != 0)
        return rc;
    /* --swap-space: V1 allocates no CPU swap (v1/engine/core.py
     * _initialize_kv_caches: num_cpu_blocks = 0); the argument left EngineArgs
     * in 0.18.0 (vLLM PR #36216), so `vllm serve --swap-space` is an unknown
     * argument there; the LLM class pops swap_space with a DeprecationWarning
     * in 0.18 - 0.25 (entrypoints/llm.py, read in the 0.18.0, 0.24.0, 0.25.0
     * wheels) and passes it on to EngineArgs, a TypeError, from 0.26 */
    const bool llm_class = c->vllm_usage_context == LLMMEM__VU_LLM;
    v->swap_given = llmmem__config_was_set(c, LLMMEM_P_SWAP_SPACE);
    if (v->swap_given && LLMMEM__VLLM_HAS(v->vb, NO_SWAP_SPACE) &&
        (!llm_class || LLMMEM__VLLM_HAS(v->vb, LLM_NO_SWAP_SPACE)))
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "vllm: swap_space %g: vLLM %s has no --swap-space (removed from "
                             "EngineArgs in 0.18.0; the LLM class ignored it up to 0.25; the V1 engine "
                             "never allocated it)",
                             c->swap_space, c->vllm_version[0] ? c->vllm_version : "(the newest read)");
    /* --cpu-offload-gb: CacheConfig (OffloadConfig.uva from 0.17) cpu_offload_gb,
     * the limit int(cpu_offload_gb * 1024**3) (gpu_model_runner.py
     * set_cpu_offload_max_bytes; create_offloader from 0.17) */
    v->offload_max = (uint64_t)(c->cpu_offload_gb * (double)GiB);
    /* the SSM / recurrent state: --mamba-ssm-cache-dtype, else the config's
     * mamba_ssm_dtype (model_executor/models/config.py
     * Qwen3_5ForConditionalGenerationConfig sets mamba_ssm_cache_dtype from it
     * while the flag is "auto"), else the model dtype (MambaStateDtypeCalculator) */
    v->ssmb = (uint64_t)llmmem__dtype_bytes((int)c->mamba_ssm_cache_dtype);
    if (!v->ssmb && v->mamba_layers && m->ssm_state_dtype) {
        v->ssmb = (uint64_t)llmmem__dtype_bytes(m->ssm_state_dtype);
        v->ssm_from_config = v->ssmb != 0;
    }
    return 0;
}

/* The layers of pipeline stage `s` (distributed/utils.py get_pp_indices: an
 * even split, the remainder to the stages before the last). */
static void stage_layers(uint64_t *L0, uint64_t *L1, uint64_t L, uint64_t pp, uint64_t s)
{
    uint64_t per[64], n = pp < 64 ? pp : 64, start = 0;
    for (uint64_t i = 0; i < n; i++)
        per[i] = L / n;
    for (uint64_t i = 2; i < L % n + 2 && i <= n; i++)
        per[n - i]++;
    for (uint64_t i = 0; i < s && i < n; i++)
        start += per[i];
    *L0 = start;
    *L1 = start + (s < n ? per[s] : 0);
}

/* ---- non-torch memory and CUDA graphs ---------------------------------------------- */

static bool nvswitch(const llmmem__gpu *g) { return g->cc >= 90 && g->link_gbps >= 300.0; }

/* NCCL communicators whose memory appears after init_device's baseline
 * snapshot, on a pipeline stage (`last`: the one that computes the logits).
 * A process group of more than one rank gets vLLM's PyNcclCommunicator when
 * initialize_model_parallel builds it (device_communicators/
 * cuda_communicator.py, with a warm-up all-reduce; not the EP group:
 * use_pynccl = "ep" not in unique_name), and torch's ProcessGroupNCCL
 * communicator of its device group when the first torch.distributed
 * collective runs on that group (new_group without a bound device_id is
 * lazy; VLLM_DISTRIBUTED_USE_SPLIT_GROUP, 0.25 on, is off by default). The
 * TP group's first is the logits all-gather of the profile's sampler run on
 * the last stage (LogitsProcessor._gather_logits -> base_device_communicator.py
 * all_gather -> dist.all_gather_into_tensor; CudaCommunicator.all_gather of
 * 0.25 - 0.33 passes a gather along the vocabulary to it). PP's send/recv
 * use PyNccl and none runs in the profile.
 *  - Up to 0.10 the snapshot precedes init_worker_distributed_environment
 *    (v1/worker/gpu_worker.py init_device): every group's PyNccl counts, and
 *    the TP group's torch communicator on the last stage (0.8 has no
 *    baseline: the same ones count).
 *  - From 0.11 init_device builds the groups first ("Initialize the
 *    distributed environment BEFORE taking memory snapshot"; read in 0.11 -
 *    0.33): the PyNccl communicators are in the baseline. After it come the
 *    TP group's torch communicator on the last stage, and the DP group's
 *    when the V1 runner's DP padding all-reduce runs over NCCL on its device
 *    group in the dummy run (forward_context.py DPMetadata.num_tokens_across_dp
 *    in 0.11, skipped with --enforce-eager; v1/worker/dp_utils.py from 0.12):
 *    up to 0.13, and in 0.14 with PP; from 0.14 async scheduling is on by
 *    default (0.14 turns it off with PP) and disable_nccl_for_dp_synchronization
 *    follows it to gloo; the V2 runner syncs over gloo (v1/worker/gpu/dp_utils.py). */
static uint64_t nccl_comms(const vargs *v, const struct llmmem_config *c, bool last)
{
    const uint64_t tp_torch = v->tp > 1 && last;
    if (!LLMMEM__VLLM_HAS(v->vb, COMMS_BEFORE_BASELINE))
        return (v->tp > 1) + tp_torch + (v->pp > 1) + (v->dp > 1);
    bool dp_nccl = v->dp > 1 && !v->runner_v2;
    if (!LLMMEM__VLLM_HAS(v->vb, DP_UTILS))
        dp_nccl = dp_nccl && !c->enforce_eager;
    else if (LLMMEM__VLLM_HAS(v->vb, DP_SYNC_GLOO_PP) || (LLMMEM__VLLM_HAS(v->vb, DP_SYNC_GLOO) && v->pp == 1))
        dp_nccl = false;
    return tp_torch + dp_nccl;
}

/* vLLM's custom all-reduce (custom_all_reduce.py CustomAllreduce, made with
 * the TP group's CudaCommunicator): TP group of 2..8 ranks on NVLink, or of 2
 * over PCIe, unless --disable-custom-all-reduce. */
static bool custom_allreduce(const vargs *v, const struct llmmem_config *c)
{
    return v->tp > 1 && v->tp <= 8 && !c->disable_custom_all_reduce &&
           (v->gpu->link_gbps >= 300.0 || v->tp == 2);
}

/* Non-torch memory after the baseline on one stage: the cuBLAS handle and
 * kernels, the NCCL communicators above, and the custom all-reduce buffers
 * up to 0.10 (from 0.11 they are made before the snapshot, with the TP
 * group's CudaCommunicator). */
static uint64_t non_torch(const vargs *v, const struct llmmem_config *c, bool last)
{
    const uint64_t nccl = nvswitch(v->gpu) ? NT_NCCL_NVSWITCH : NT_NCCL_CHANNELS * NT_NCCL_CHANNEL;
    const bool ar = custom_allreduce(v, c) && !LLMMEM__VLLM_HAS(v->vb, COMMS_BEFORE_BASELINE);
    return NT_BASE + nccl_comms(v, c, last) * nccl + (ar ? NT_CUSTOM_AR : 0);
}

/* ---- the V2 model runner's sampler state ---------------------------------------------
 * GPUModelRunner.load_model (v1/worker/gpu/model_runner.py) builds the
 * Sampler after "Model loading took", on the last pipeline stage of a
 * generating model; its PenaltiesState (v1/worker/gpu/sample/penalties.py)
 * allocates, whether or not a request ever asks for a penalty,
 * output_bin_counts int32 [max_num_reqs, vocab] and prompt_bin_mask int32
 * [max_num_reqs, cdiv(vocab, 32)] (max_num_reqs = max_num_seqs, vocab =
 * get_vocab_size(), unpadded; read in 0.21, 0.25.1 - 0.33; the other sampler
 * states are a few values per request). It is torch memory that is neither
 * weights nor profile peak: it enters the budget from 0.27, whose
 * total_consumed is the free memory taken since the baseline
 * (utils/mem_utils.py memory_profiling); the budget before (weights + peak
 * increase + non-torch) leaves it out. The V2 runner is the default for
 * models neither MoE nor hybrid from 0.25 and for all from 0.29 (runner_v2). */
static uint64_t sampler_state(llmmem__ovf *o, const vargs *v, const struct llmmem_model *m,
                              bool last)
{
    if (!v->runner_v2 || !last)
        return 0;
    const uint64_t V = u(m->vocab_size);
    llmmem__vllm_pool pool;
    memset(&pool, 0, sizeof pool);
    const uint64_t mask =
        llmmem__vllm_alloc(&pool, o, llmmem__mul3(o, v->seqs, llmmem__ceil_div(V, 32), 4));
    return llmmem__add(o, mask, llmmem__vllm_alloc(&pool, o, llmmem__mul3(o, v->seqs, V, 4)));
}

static bool state_in_budget(const vargs *v) { return LLMMEM__VLLM_HAS(v->vb, TOTAL_CONSUMED); }

/* CUDA graph capture sizes (config/vllm.py _set_cudagraph_sizes): before
 * 0.20 [1, 2, 4] + range(8, N + 1, 8); from 0.20 [1, 2, 4] + range(8, 256, 8)
 * + range(256, N + 1, 16); N = min(2 * max_num_seqs, 512, max_num_batched_tokens),
 * 1024 in place of 512 on compute capability 10.x from 0.28
 * (is_device_capability_family(100); read in the 0.27.0 and 0.28.0 wheels).
 * From 0.21 max_num_batched_tokens joins the list when it is at most N and off
 * the stride (read in 0.20.0: absent; 0.21.0: present). The count of sizes up
 * to `largest`. */
static bool on_stride(uint64_t s, uint64_t vb)
{
    if (s <= 4)
        return s == 1 || s == 2 || s == 4;
    if (LLMMEM__VLLM_HAS(vb, CAPTURE_STEP_16) && s >= 256)
        return (s - 256) % 16 == 0;
    return s % 8 == 0;
}

static uint64_t capture_sizes(uint64_t largest, const vargs *v)
{
    const uint64_t vb = v->vb;
    uint64_t n = 0;
    if (llmmem__vllm_every_layer) { /* the sizes one by one (tests: test_vllm_layers) */
        for (uint64_t s = 1; s <= largest; s++)
            n += on_stride(s, vb);
    } else {
        /* 1, 2 and 4, then the multiples of 8 (from 5 to 255: 31 of them), from 256
         * on every 16th where the version steps so */
        n = (uint64_t)(largest >= 1) + (largest >= 2) + (largest >= 4);
        if (LLMMEM__VLLM_HAS(vb, CAPTURE_STEP_16) && largest >= 256)
            n += 255 / 8 + (largest - 256) / 16 + 1;
        else
            n += largest / 8;
    }
    /* from 0.21 max_num_batched_tokens off the stride (largest <= N here) */
    if (LLMMEM__VLLM_HAS(vb, CAPTURE_MAX_TOKENS) && v->tokens && v->tokens <= largest && !on_stride(v->tokens, vb))
        n++;
    return n;
}

static uint64_t capture_max(const vargs *v)
{
    const uint64_t cap = LLMMEM__VLLM_HAS(v->vb, CAPTURE_1024_SM100) && v->gpu->cc / 10 == 10 ? 1024 : 512;
    return llmmem__min(llmmem__min(2 * v->seqs, cap), v->tokens);
}

/* The CUDA graph memory (gpu_model_runner.py profile_cudagraph_memory from
 * 0.18; the capture after the KV cache before): per mode the first capture
 * (the pool of the largest graph: the forward's working set at that size)
 * and vLLM's own 1 MiB per further graph. PIECEWISE graphs for every size;
 * FULL decode graphs up to max_num_seqs too when cudagraph_mode is
 * FULL_AND_PIECEWISE (0.11 on; 0.10.2 for Mamba hybrids). */
static uint64_t graph_memory(llmmem__ovf *o, const vargs *v, uint64_t fwd_tok, uint64_t *graphs)
{
    const uint64_t N = capture_max(v);
    const uint64_t pw = capture_sizes(N, v);
    uint64_t mem = llmmem__add(o, llmmem__mul(o, fwd_tok, N), llmmem__mul(o, pw, CG_PER_GRAPH));
    *graphs = pw;
    const bool full = LLMMEM__VLLM_HAS(v->vb, FULL_GRAPHS) || (LLMMEM__VLLM_HAS(v->vb, FULL_GRAPHS_MAMBA) && v->mamba_layers);
    if (full) {
        const uint64_t D = llmmem__min(v->seqs, N), fd = capture_sizes(D, v);
        mem = llmmem__add(o, mem, llmmem__add(o, llmmem__mul(o, fwd_tok, D), llmmem__mul(o, fd, CG_PER_GRAPH)));
        *graphs += fd;
    }
    return mem;
}

/* ---- one pipeline stage ------------------------------------------------------------ */

typedef struct vstage {
    llmmem__vllm_weights w;
    llmmem__vllm_profile prof;
    llmmem__vllm_kv kv;
    uint64_t fwd_tok;
    uint64_t nt;      /* non-torch memory after the baseline */
    uint64_t state;   /* the V2 runner's sampler state */
    bool last;        /* the last pipeline stage (logits, sampler) */
    double available; /* bytes (vLLM keeps it as a float) */
    uint64_t blocks;
} vstage;

static void rank_of(llmmem__vllm_rank *r, const vargs *v, uint64_t s, uint64_t L)
{
    memset(r, 0, sizeof *r);
    r->cc = v->gpu->cc;
    r->sms = (uint64_t)v->gpu->sms;
    r->tp = v->tp;
    r->ep = v->ep;
    r->pp = v->pp;
    r->stage = s;
    stage_layers(&r->L0, &r->L1, L, v->pp, s);
    r->fmt = v->fmt;
    r->marlin = v->marlin;
    r->mxfp4 = v->mxfp4;
    r->e = v->e;
    r->bits = v->bits;
    r->group = v->group;
    r->offload_max = v->offload_max;
}

static void kv_in_of(llmmem__vllm_kv_in *k, const vargs *v, const llmmem__vllm_rank *r,
                     uint64_t maxlen, uint64_t block)
{
    memset(k, 0, sizeof *k);
    k->vb = v->vb;
    k->block = block;
    k->kvb = v->kvb;
    k->ssmb = v->ssmb;
    k->e = v->e;
    k->tp = v->tp;
    k->maxlen = maxlen;
    /* tokens in flight beyond a window: max_num_batched_tokens; from 0.26
     * max_concurrent_batches of them (2 with async scheduling, pp with PP) */
    k->in_flight = v->tokens;
    if (LLMMEM__VLLM_HAS(v->vb, IN_FLIGHT_BATCHES))
        k->in_flight = v->tokens * (v->pp > 1 ? v->pp + (v->runner_v2 ? 1 : 0) : 2);
    k->hybrid_manager = v->hybrid_manager;
    /* Mamba groups: one block per request, two in prefix caching's 'align'
     * mode (default with prefix caching from 0.15; v1/kv_cache_interface.py
     * MambaSpec.max_memory_usage_bytes) */
    k->mamba_pages = v->prefix_caching && LLMMEM__VLLM_HAS(v->vb, MAMBA_ALIGN) ? 2 : 1;
    k->L0 = r->L0;
    k->L1 = r->L1;
}

static int run_stage(vstage *st, llmmem__ovf *o, const vargs *v, const struct llmmem_model *m,
                     const struct llmmem_config *c, const llmmem__infer_base *b, uint64_t s,
                     uint64_t *cg_out, uint64_t *graphs)
{
    const uint64_t L = u(m->num_layers);
    llmmem__vllm_rank r;
    rank_of(&r, v, s, L);
    llmmem__vllm_weights_of(&st->w, o, m, &r);
    if (!m->tensors.n) {
        /* a model described without its tensor list (raw numbers): the
         * parameter count in its storage format, split over TP and stages */
        const uint64_t w = llmmem__ceil_div(b->weights, v->pp);
        st->w.bytes = llmmem__add(o, st->w.bytes, w);
        st->w.tensors = llmmem__add(o, st->w.tensors, w);
        st->w.largest = llmmem__max(st->w.largest, w / (u(m->num_layers) ? u(m->num_layers) : 1));
    }
    llmmem__vllm_profile_in pi;
    memset(&pi, 0, sizeof pi);
    pi.vb = v->vb;
    pi.tokens = v->tokens;
    pi.reqs = v->reqs;
    pi.tp = v->tp;
    pi.ep = v->ep;
    pi.e = v->e;
    pi.k_r = b->run->k_r;
    pi.fmt = v->fmt;
    pi.sampler = v->sampler;
    pi.last_stage = s + 1 == v->pp;
    pi.first_stage = s == 0;
    pi.mrv1_rand = !v->runner_v2;
    pi.sms = (uint64_t)v->gpu->sms;
    pi.ws = c->cublas_workspace_bytes >= 0 ? (uint64_t)c->cublas_workspace_bytes
                                           : v->gpu->cublas_workspace_bytes;
    pi.L0 = r.L0;
    pi.L1 = r.L1;
    int rc = llmmem__vllm_profile_run(&st->prof, o, m, c, &pi);
    if (rc)
        return rc;
    st->fwd_tok = llmmem__vllm_forward_token(o, m, &pi);
    llmmem__vllm_kv_in ki;
    kv_in_of(&ki, v, &r, v->maxlen, u(c->kv_block_size));
    if ((rc = llmmem__vllm_kv_layout(&st->kv, o, m, &ki)) != 0)
        return rc;
    uint64_t cg = v->graphs ? graph_memory(o, v, st->fwd_tok, graphs) : 0;
    *cg_out = llmmem__max(*cg_out, cg);
    st->last = pi.last_stage;
    st->nt = non_torch(v, c, pi.last_stage);
    st->state = sampler_state(o, v, m, pi.last_stage);
    double avail;
    if (c->kv_cache_memory_bytes > 0) {
        avail = (double)c->kv_cache_memory_bytes;
    } else {
        double non_kv = (double)st->w.bytes + (double)st->prof.peak + (double)st->nt;
        if (state_in_budget(v))
            non_kv += (double)st->state;
        if (!LLMMEM__VLLM_HAS(v->vb, V1_BASELINE)) /* 0.8: no baseline, the CUDA context counts */
            non_kv += (double)llmmem__gpu_context(c, v->gpu);
        avail = (double)v->total * v->util - non_kv - (v->cg_applied ? (double)cg : 0.0);
    }
    st->available = avail;
    st->blocks = avail > 0 && st->kv.bytes_per_block
                     ? (uint64_t)(floor(avail) / (double)st->kv.bytes_per_block)
                     : 0;
    if (c->num_gpu_blocks_override > 0)
        st->blocks = u(c->num_gpu_blocks_override);
    return 0;
}

/* The longest max_model_len up to `hi` whose request fits `avail` bytes
 * (kv_cache_utils.py estimate_max_model_len, a binary search; 0 when 1 token does not). */
static uint64_t longest_len(llmmem__ovf *o, const vargs *v, const struct llmmem_model *m,
                            const struct llmmem_config *c, const vstage *st, double avail, uint64_t hi)
{
    uint64_t lo = 0;
    llmmem__vllm_rank r;
    rank_of(&r, v, 0, u(m->num_layers));
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        llmmem__vllm_kv_in ki;
        llmmem__vllm_kv k;
        kv_in_of(&ki, v, &r, mid, u(c->kv_block_size));
        ki.L0 = 0;
        ki.L1 = u(m->num_layers);
        if (llmmem__vllm_kv_layout(&k, o, m, &ki) != 0)
            break;
        double need = (double)k.per_request * (double)k.bytes_per_block;
        if (need <= avail)
            lo = mid;
        else
            hi = mid - 1;
    }
    (void)st;
    return lo;
}

/* ---- the result ---------------------------------------------------------------------- */

static const char *sampler_name(int s)
{
    switch (s) {
    case LLMMEM__VSAMP_FLASHINFER: return "FlashInfer top-k/top-p (12 B per logit)";
    case LLMMEM__VSAMP_TRITON: return "Triton top-k/top-p in place (12 B per logit + SM buffer)";
    case LLMMEM__VSAMP_RUNNER_V2: return "V2 model runner, greedy dummy batch (logits only)";
    default: return "PyTorch sort of the fp32 logits (36-48 B per logit)";
    }
}

static void terms(struct llmmem_result *r, const vargs *v, const vstage *st, uint64_t cg,
                  uint64_t kv_bytes)
{
    llmmem__result_term(r, "requested",
                        "total * gpu_memory_utilization (total = cudaMemGetInfo, the GPU table) "
                        "[vllm v1/worker/gpu_worker.py init_device]",
                        v->requested);
    llmmem__result_term(r, "weights",
                        "each tensor as vLLM stores it on this rank (TP/EP split, fused qkv and "
                        "gate_up, quantized layout, vocab padded to 64, rotary cache) as the caching "
                        "allocator counts it [gpu_model_runner.py load_model; linear.py, "
                        "fused_moe/layer.py, quantization/*.py]",
                        st->w.bytes);
    llmmem__result_term(r, "weights_rotary", "max_position * rotary_dim * dtype [rotary_embedding get_rope]",
                        st->w.rotary);
    llmmem__result_term(r, "weights_allocator_rounding",
                        "segments of 2 MiB kept whole when the tail is <= 1 MiB "
                        "[c10/cuda/CUDACachingAllocator.cpp]",
                        st->w.bytes - st->w.tensors);
    llmmem__result_term(r, "profile_forward",
                        "max_num_batched_tokens x the largest layer piece: residual + gate_up + act "
                        "(dense), fused_moe caches (MoE), qkv + roped q/k + attention output "
                        "[gpu_model_runner.py profile_run/_dummy_run, fused_moe.py]",
                        st->prof.forward);
    llmmem__result_term(r, "profile_sampler",
                        v->runner_v2 ? "held [T,h] + [N,h] rows, logits [N,V/tp] (+ all-gather), the sampler "
                                       "path's bytes per logit [gpu_model_runner.py _dummy_sampler_run, "
                                       "v1/sample/ops/topk_topp_sampler.py]"
                                     : "held [T,h] + 2 [N,h] rows, the all-gathered logits [N,V] (the "
                                       "rank's shard is freed), the sampler path's bytes per logit "
                                       "[gpu_model_runner.py _dummy_sampler_run, logits_processor.py, "
                                       "v1/sample/ops/topk_topp_sampler.py]",
                        st->prof.sampler);
    if (st->prof.encoder)
        llmmem__result_term(r, "profile_encoder",
                            "encoder over max(1, budget/item tokens) items of the largest size + "
                            "their cached outputs [profile_run, encoder_cache_manager.py]",
                            st->prof.encoder);
    llmmem__result_term(r, "profile_peak",
                        "max(forward, sampler, encoder) + cuBLAS workspace: torch peak increase "
                        "[utils memory_profiling]",
                        st->prof.peak);
    const char *nt_formula =
        !LLMMEM__VLLM_HAS(v->vb, COMMS_BEFORE_BASELINE)
            ? "68 MiB cuBLAS/kernels + each NCCL communicator made after the baseline (TP: vLLM's "
              "PyNccl, and torch's on the last stage, made by the logits all-gather; PP, DP: "
              "PyNccl) [+ 16 MiB custom all-reduce] [gpu_worker.py init_device, pynccl.py, "
              "base_device_communicator.py, custom_all_reduce.py]"
            : "68 MiB cuBLAS/kernels + torch's NCCL communicators made after the baseline (TP: "
              "the logits all-gather, last stage; DP: the V1 runner's padding all-reduce over "
              "NCCL, up to 0.13); vLLM's PyNccl and custom all-reduce precede it [gpu_worker.py "
              "init_device, base_device_communicator.py all_gather, dp_utils.py]";
    llmmem__result_term(r, "non_torch", nt_formula, st->nt);
    if (st->state)
        llmmem__result_term(r, "sampler_state",
                            state_in_budget(v)
                                ? "V2 runner PenaltiesState: int32 output_bin_counts [max_num_seqs, V] "
                                  "+ prompt_bin_mask [max_num_seqs, V/32], made after \"Model loading "
                                  "took\", in total_consumed [v1/worker/gpu/sample/penalties.py]"
                                : "V2 runner PenaltiesState: int32 output_bin_counts [max_num_seqs, V] "
                                  "+ prompt_bin_mask [max_num_seqs, V/32], outside the budget before "
                                  "0.27 [v1/worker/gpu/sample/penalties.py]",
                            st->state);
    llmmem__result_term(r, "cuda_graphs",
                        v->cg_applied ? "largest graph's pool + 1 MiB per graph, subtracted "
                                        "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, 0.20 on) "
                                        "[gpu_model_runner.py profile_cudagraph_memory]"
                                      : "largest graph's pool + 1 MiB per graph, captured after "
                                        "the KV cache, outside the budget [capture_model]",
                        cg);
    llmmem__result_term(r, "kv_available",
                        LLMMEM__VLLM_HAS(v->vb, V1_BASELINE)
                            ? "requested - weights - profile_peak - non_torch [- sampler_state, "
                              "0.27+] [- cuda_graphs] [gpu_worker.py determine_available_memory]"
                            : "total*util - (weights + profile peak) - (non_torch + CUDA context) "
                              "[0.8 gpu_worker.py determine_available_memory]",
                        st->available > 0 ? (uint64_t)st->available : 0);
    llmmem__result_term(r, "kv_cache",
                        "floor(available / (page * layers per group)) blocks x page x layers per "
                        "group [kv_cache_utils.py get_kv_cache_config(s)]",
                        kv_bytes);
}

static void inputs(struct llmmem_result *r, const vargs *v, const vstage *st)
{
    llmmem__result_input(r, "vllm version (major*10000+minor*100+patch)", v->ver);
    llmmem__result_input(r, "T max_num_batched_tokens", (int64_t)v->tokens);
    llmmem__result_input(r, "N dummy requests = min(T, max_num_seqs)", (int64_t)v->reqs);
    llmmem__result_input(r, "max_num_seqs", (int64_t)v->seqs);
    llmmem__result_input(r, "max_model_len", (int64_t)v->maxlen);
    llmmem__result_input(r, "block tokens", (int64_t)st->kv.block);
    llmmem__result_input(r, "page bytes (one block, one layer)", (int64_t)st->kv.page);
    llmmem__result_input(r, "layers per group", (int64_t)st->kv.group_size);
    llmmem__result_input(r, "KV cache groups", (int64_t)st->kv.groups);
    llmmem__result_input(r, "blocks per max_model_len request", (int64_t)st->kv.per_request);
    llmmem__result_input(r, "tensor parallel", (int64_t)v->tp);
    llmmem__result_input(r, "experts split over (EP)", (int64_t)v->ep);
}

static void notes(struct llmmem_result *r, const vargs *v, const struct llmmem_config *c,
                  const vstage *st, uint64_t graphs, bool custom_ar)
{
    const int va = v->ver / 10000, vb = v->ver / 100 % 100, vc = v->ver % 100;
    llmmem__result_note(r, "vllm %d.%d.%d: %s%s", va, vb, vc,
                        LLMMEM__VLLM_HAS(v->vb, TOTAL_CONSUMED) ? "total_consumed + transient headroom"
                        : LLMMEM__VLLM_HAS(v->vb, V1_BASELINE) ? "weights + peak + non-torch"
                                                             : "0.8 budget without baseline",
                        v->cg_applied ? ", CUDA graph estimate subtracted" : "");
    if (v->newer)
        llmmem__result_note(r, "vllm: newer than 0.33.0, the newest read; its accounting assumed");
    llmmem__result_note(r, "vllm: %s model runner; sampler: %s", v->runner_v2 ? "V2" : "V1",
                        sampler_name(v->sampler));
    if (!LLMMEM__VLLM_HAS(v->vb, KERNELS_BUNDLED))
        llmmem__result_note(r, "vllm: %s (vllm_image); no other process on the GPU",
                            c->vllm_image ? "FlashInfer and triton_kernels installed"
                                          : "pip install: no FlashInfer, no triton_kernels");
    else
        llmmem__result_note(r, "vllm: no other process on the GPU");
    const char *nccl =
        nvswitch(v->gpu) ? "0.42 GiB (llm-d H100)" : "2 channels x 4.5 MiB (NCCL defaults)";
    const unsigned long long comms = (unsigned long long)nccl_comms(v, c, st->last);
    if (!LLMMEM__VLLM_HAS(v->vb, COMMS_BEFORE_BASELINE) && (v->tp > 1 || v->pp > 1 || v->dp > 1))
        llmmem__result_note(r, "vllm: NCCL communicators after the baseline: %llu x %s%s%s "
                               "(environment-dependent)",
                            comms, nccl, v->tp > 1 && st->last ? " (TP: PyNccl, torch's)" : "",
                            custom_ar ? ", custom all-reduce" : "");
    else if (v->tp > 1 || v->pp > 1 || v->dp > 1)
        llmmem__result_note(r, "vllm: NCCL communicators after the baseline: %llu x %s (torch's); "
                               "PyNccl%s before it (environment-dependent)",
                            comms, nccl, custom_ar ? " and custom all-reduce" : "");
    if (v->graphs)
        llmmem__result_note(r, "vllm: %llu CUDA graphs; driver memory per graph assumed 1 MiB "
                               "(vLLM's floor): a lower bound, the driver's memory per kernel node of "
                               "each piecewise graph is not modelled (docs/research/vllm-v1.md, "
                               "\"CUDA graph memory against the logs\")",
                            (unsigned long long)graphs);
    if (st->kv.hybrid)
        llmmem__result_note(r, "vllm: hybrid KV cache manager, %llu groups of %llu layers, "
                               "block %llu tokens",
                            (unsigned long long)st->kv.groups, (unsigned long long)st->kv.group_size,
                            (unsigned long long)st->kv.block);
    if (v->kv_from_checkpoint)
        llmmem__result_note(r, "vllm: KV cache in %llu-byte elements, the checkpoint's KV cache scheme "
                               "(--kv-cache-dtype \"auto\" follows it)",
                            (unsigned long long)v->kvb);
    if (v->ssm_from_config)
        llmmem__result_note(r, "vllm: recurrent state in %llu-byte elements (the config's mamba_ssm_dtype; "
                               "--mamba-ssm-cache-dtype overrides)",
                            (unsigned long long)v->ssmb);
    if (st->prof.enc_items)
        llmmem__result_note(r, "vllm: encoder profiled with %llu items of the largest size "
                               "(budget %llu tokens)",
                            (unsigned long long)st->prof.enc_items,
                            (unsigned long long)st->prof.enc_tokens);
}

static int infer_vllm(struct llmmem_result *r, const struct llmmem_model *m, const struct llmmem_config *c,
                      const llmmem__infer_base *b)
{
    llmmem__ovf o = {b->overflow};
    vargs v;
    int rc = read_args(&v, m, c, b);
    if (rc)
        return rc;
    const bool custom_ar = custom_allreduce(&v, c);
    /* each stage sizes its own pool; the engine keeps the smallest
     * (get_kv_cache_configs / unify_kv_cache_configs) */
    vstage st, best;
    uint64_t cg = 0, graphs = 0, host = 0, offloaded = 0;
    memset(&best, 0, sizeof best);
    for (uint64_t s = 0; s < v.pp; s++) {
        if ((rc = run_stage(&st, &o, &v, m, c, b, s, &cg, &graphs)) != 0)
            return rc;
        if (s == 0 || st.blocks < best.blocks)
            best = st;
        host = llmmem__max(host, st.w.host);
        offloaded = llmmem__max(offloaded, st.w.offloaded);
    }
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "vllm budget overflows 64-bit byte counts");
    const uint64_t blocks = best.blocks;
    const double conc = best.kv.per_request ? (double)blocks / (double)best.kv.per_request : 0.0;
    /* "GPU KV cache size": blocks // groups * block up to 0.20, int(C * max_model_len) from 0.21 */
    uint64_t tokens;
    if (LLMMEM__VLLM_HAS(v.vb, KV_TOKENS_CONCURRENCY))
        tokens = (uint64_t)(conc * (double)v.maxlen);
    else
        tokens = llmmem__mul(&o, blocks / (best.kv.groups ? best.kv.groups : 1), best.kv.block);
    const uint64_t kv_bytes = llmmem__mul(&o, blocks, best.kv.bytes_per_block);
    const double need = (double)best.kv.per_request * (double)best.kv.bytes_per_block;
    const uint64_t free_at_start =
        llmmem__sub0(v.total, llmmem__gpu_context(c, v.gpu));
    const bool room = !LLMMEM__VLLM_HAS(v.vb, V1_BASELINE) || c->kv_cache_memory_bytes > 0 ||
                      v.requested <= free_at_start;
    const bool started = room && best.available > 0 && need <= best.available;

    const int D = LLMMEM_PHASE_DECODE;
    r->phase_used[D] = true;
    r->bytes[D][LLMMEM_C_WEIGHTS] = best.w.bytes;
    r->bytes[D][LLMMEM_C_ACTIVATION_TRANSIENT] = best.prof.peak;
    /* what the budget holds besides weights, peak and KV (the CUDA graphs
     * before 0.20 and the sampler state before 0.27 come on top of it) */
    r->bytes[D][LLMMEM_C_OTHER] = llmmem__add(&o, llmmem__add(&o, best.nt, v.cg_applied ? cg : 0),
                                              state_in_budget(&v) ? best.state : 0);
    /* not started: the KV cache counted is one max_model_len request's, what vLLM says it
     * needs; the pool it would have made is not a KV cache it has */
    const uint64_t kv_counted = started ? kv_bytes : (uint64_t)(need > 0 ? need : 0);
    r->bytes[D][LLMMEM_C_KV_CACHE] = kv_counted;
    r->largest_block = best.w.largest;
    llmmem__result_set_u64(r, LLMMEM_R_WEIGHTS_BYTES, best.w.bytes);
    llmmem__result_set_u64(r, LLMMEM_R_PERSISTENT_BYTES, best.w.bytes);
    llmmem__result_set_u64(r, LLMMEM_R_KV_BYTES_PER_TOKEN, best.kv.kv_bytes_per_token);
    llmmem__result_set_u64(r, LLMMEM_R_KV_CACHE_BYTES, kv_counted);
    llmmem__result_set_i64(r, LLMMEM_R_KV_BLOCKS, (int64_t)blocks);
    uint64_t seqs = conc > 0 ? (uint64_t)conc : 0;
    llmmem__result_set_i64(r, LLMMEM_R_MAX_CONCURRENT_SEQS, (int64_t)llmmem__min(seqs, v.seqs));
    llmmem__result_set_i64(r, LLMMEM_R_MAX_CONTEXT_TOKENS,
                           (int64_t)llmmem__mul(&o, blocks, best.kv.block));
    llmmem__result_set_u64(r, LLMMEM_R_KV_AVAILABLE_BYTES,
                           best.available > 0 ? (uint64_t)best.available : 0);
    llmmem__result_set_i64(r, LLMMEM_R_KV_TOKENS, (int64_t)tokens);
    llmmem__result_set_f64(r, LLMMEM_R_MAX_CONCURRENCY, conc);
    llmmem__result_set_u64(r, LLMMEM_R_PROFILE_PEAK_BYTES, best.prof.peak);
    llmmem__result_set_u64(r, LLMMEM_R_NON_TORCH_BYTES, best.nt);
    llmmem__result_set_u64(r, LLMMEM_R_CUDA_GRAPH_BYTES, cg);
    llmmem__result_set_i64(r, LLMMEM_R_KV_BLOCK_TOKENS, (int64_t)best.kv.block);
    llmmem__result_set_u64(r, LLMMEM_R_REQUESTED_BYTES, v.requested);
    /* the longest context one request can have in the memory available, up to the model's
     * own maximum (ModelConfig refuses a longer max_model_len): max_model_len itself when it
     * is the model's and fits, else vLLM's estimate_max_model_len over [1, that bound] */
    const uint64_t model_max = m->max_positions > 0 ? u(m->max_positions) : 2048;
    const uint64_t bound = llmmem__max(v.maxlen, model_max);
    uint64_t longest = 0;
    if (room && best.available > 0)
        longest = started && v.maxlen >= bound ? v.maxlen
                                               : longest_len(&o, &v, m, c, &best, best.available, bound);
    llmmem__result_set_i64(r, LLMMEM_R_MAX_MODEL_LEN, (int64_t)v.maxlen);
    llmmem__result_set_i64(r, LLMMEM_R_ESTIMATED_MAX_MODEL_LEN, (int64_t)longest);
    /* host RAM per node: each rank's pinned offload (the largest stage's) x
     * the ranks on a node, min(tp x pp x dp, gpus_per_node) */
    const uint64_t ranks = v.tp * v.pp * v.dp;
    const uint64_t per_node = llmmem__min(ranks, u(c->gpus_per_node > 0 ? c->gpus_per_node : 1));
    llmmem__result_host(r, llmmem__mul(&o, host, per_node), 0); /* all pinned */
    terms(r, &v, &best, cg, kv_bytes);
    if (v.offload_max) {
        llmmem__result_term(r, "cpu_offload",
                            "decoder-layer parameters moved in order to pinned host memory until "
                            "--cpu-offload-gb is reached, each in a power-of-two pinned block, per rank "
                            "[models/utils.py maybe_offload_to_cpu; offloader/uva.py; "
                            "ATen CachingHostAllocator]",
                            host);
        llmmem__result_note(r, "vllm: --cpu-offload-gb %g: %.2f GiB of parameters per rank in pinned host "
                               "memory (%.2f GiB as the pinned allocator holds them), read over PCIe/NVLink-C2C "
                               "through UVA; host_bytes = that x %llu ranks per node",
                            c->cpu_offload_gb, (double)offloaded / (double)GiB, (double)host / (double)GiB,
                            (unsigned long long)per_node);
        if (quant_repacks(&v)) {
            llmmem__result_set_i64(r, LLMMEM_R_APPROXIMATE, 1);
            llmmem__result_note(r, "vllm: --cpu-offload-gb with %s weights: the kernel repacks them after "
                                   "loading (process_weights_after_loading), which may bring offloaded "
                                   "tensors back to the GPU; offloaded bytes counted as created (approximate)",
                                llmmem_param_enum_name(LLMMEM_P_WEIGHTS_FORMAT, v.fmt));
        }
    }
    if (v.swap_given)
        llmmem__result_note(r, "vllm: --swap-space %g GiB: the V1 engine allocates no CPU swap "
                               "(v1/engine/core.py: num_cpu_blocks = 0); no host bytes%s",
                            c->swap_space,
                            LLMMEM__VLLM_HAS(v.vb, NO_SWAP_SPACE)
                                ? " (the LLM class drops it with a DeprecationWarning here)"
                                : "");
    inputs(r, &v, &best);
    notes(r, &v, c, &best, graphs, custom_ar);
    if (best.prof.enc_items && m->vision.kind == LLMMEM__V_QWEN3VL && c->max_pixels <= 0)
        llmmem__result_note(r, "vllm: largest image %lld pixels, the checkpoints' processor size "
                               "(preprocessor_config.json, not in config.json; max_pixels overrides)",
                            (long long)m->vision.max_pixels);
    if (!room)
        llmmem__result_note(r, "vllm: free memory at start (total - CUDA context) is less than "
                               "total * gpu_memory_utilization: vLLM refuses to start");
    else if (best.available <= 0)
        llmmem__result_note(r, "vllm: \"No available memory for the cache blocks\"");
    else if (!started)
        llmmem__result_note(r, "vllm: one max_model_len request needs %.2f GiB of KV cache, %.2f "
                               "available; estimated maximum model length %llu",
                            need / (double)GiB, best.available / (double)GiB, (unsigned long long)longest);
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "vllm budget overflows 64-bit byte counts");
    rc = llmmem__result_finish(r, c);
    /* fits iff total <= capacity: a vLLM that refuses to start is short of the
     * bytes its budget lacks (free memory at start below the requested total, or
     * the KV cache of one max_model_len request beyond what is available); one
     * that starts with --num-gpu-blocks-override past the GPU does not fit by its
     * total */
    if (rc == 0 && !started) {
        double lack = !room ? (double)v.requested - (double)free_at_start : need - (double)best.available;
        llmmem__result_short(r, lack >= 1.8e19 ? UINT64_MAX : lack > 1 ? (uint64_t)lack : 1);
        llmmem__result_note(r, "vllm does not start: total_bytes_per_gpu is the GPU's capacity plus the %.2f GiB "
                               "its budget lacks",
                            lack > 0 ? lack / (double)GiB : 0.0);
    }
    return rc;
}

/* The options only vLLM reads. */
static const int vllm_reads[] = {LLMMEM_P_GPU_MEMORY_UTILIZATION,
                                 LLMMEM_P_MAX_NUM_BATCHED_TOKENS,
                                 LLMMEM_P_MAX_NUM_SEQS,
                                 LLMMEM_P_KV_BLOCK_SIZE,
                                 LLMMEM_P_MAX_MODEL_LEN,
                                 LLMMEM_P_CUDA_GRAPHS,
                                 LLMMEM_P_VLLM_VERSION,
                                 LLMMEM_P_ENFORCE_EAGER,
                                 LLMMEM_P_QUANTIZATION,
                                 LLMMEM_P_ENABLE_CHUNKED_PREFILL,
                                 LLMMEM_P_VLLM_USAGE_CONTEXT,
                                 LLMMEM_P_FLASHINFER_SAMPLER,
                                 LLMMEM_P_ENABLE_EXPERT_PARALLEL,
                                 LLMMEM_P_DISABLE_CUSTOM_ALL_REDUCE,
                                 LLMMEM_P_ENABLE_PREFIX_CACHING,
                                 LLMMEM_P_KV_CACHE_MEMORY_BYTES,
                                 LLMMEM_P_DISABLE_HYBRID_KV_CACHE_MANAGER,
                                 LLMMEM_P_NUM_GPU_BLOCKS_OVERRIDE,
                                 LLMMEM_P_MAMBA_SSM_CACHE_DTYPE,
                                 LLMMEM_P_VLLM_MODEL_RUNNER,
                                 LLMMEM_P_CUDAGRAPH_MEMORY_ESTIMATE,
                                 LLMMEM_P_VLLM_IMAGE,
                                 LLMMEM_P_ENCODER_CACHE,
                                 LLMMEM_P_CPU_OFFLOAD_GB,
                                 LLMMEM_P_SWAP_SPACE,
                                 0};

const llmmem__engine llmmem__runtime_vllm = {
    .name = "vllm",
    .fn = "llmmem_estimate_inference",
    .gate = LLMMEM_P_RUNTIME,
    .value = LLMMEM_RUNTIME_VLLM,
    .flags = LLMMEM__CAP_INFERENCE | LLMMEM__CAP_OWN_WEIGHTS,
    .reads = vllm_reads,
    .no_replay = "vLLM's budget",
    .kinds_use = LLMMEM__USE_VLLM,
    .plan_batch = LLMMEM_P_MAX_NUM_SEQS,
    .plan_len = LLMMEM_P_MAX_MODEL_LEN,
    .infer = infer_vllm,
};
