/* vLLM V1 startup accounting (runtime vllm): the KV cache manager of hybrid
 * models, the versions' rules, the caching allocator's rounding of the
 * weights and the sampler paths. Expected values are hand computations from
 * vLLM's code (docs/research/vllm-v1.md, file and function named at each
 * test) checked against the public startup logs of test/data/anchors/vllm;
 * test/vllm_anchors.py re-predicts the whole anchor set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engines/engines.h"
#include "engines/vllm/vllm.h"

#define GIB 1073741824.0
#define MIB (UINT64_C(1) << 20)

static void set(llmmem_config *c, const char *name, const char *value)
{
    int rc = llmmem_config_set(c, name, value);
    if (rc)
        fail_msg("%s=%s: %s", name, value, llmmem_last_error());
}

static llmmem_config *vllm_config(void)
{
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    set(c, "mode", "inference");
    set(c, "runtime", "vllm");
    return c;
}

static int64_t get_i64(const llmmem_result *r, int key)
{
    int64_t v = 0;
    assert_int_equal(llmmem_result_get_i64(&v, r, key), 0);
    return v;
}

static uint64_t get_u64(const llmmem_result *r, int key)
{
    uint64_t v = 0;
    assert_int_equal(llmmem_result_get_u64(&v, r, key), 0);
    return v;
}

static double get_f64(const llmmem_result *r, int key)
{
    double v = 0;
    assert_int_equal(llmmem_result_get_f64(&v, r, key), 0);
    return v;
}

static void estimate(llmmem_result *r, const struct llmmem_model *m, const llmmem_config *c)
{
    int rc = llmmem_estimate_inference(r, m, c);
    if (rc)
        fail_msg("estimate: %s", llmmem_last_error());
}

/* Attention + gated-delta-rule hybrid (Qwen3-Next / Qwen3.5 layout) built by
 * hand: `full` attention layers and `linear` GDN layers. */
static void gdn_hybrid(struct llmmem_model *m, int64_t full, int64_t linear, int64_t h, int64_t a,
                       int64_t k, int64_t d, int64_t V)
{
    llmmem__model_cache_drop(m); /* a replay memo it gathered as an earlier model */
    memset(m, 0, sizeof *m);
    snprintf(m->model_type, sizeof m->model_type, "%s", "gdn_hybrid");
    m->family = LLMMEM__FAM_LLAMA;
    m->vocab_size = V;
    m->hidden_size = h;
    m->num_layers = full + linear;
    m->num_heads = a;
    m->num_kv_heads = k;
    m->head_dim = d;
    m->intermediate_size = 4 * h;
    m->gated_mlp = true;
    m->partial_rotary_factor = 0.25;
    m->torch_dtype = LLMMEM__DT_BF16;
    m->params = 1000000000;
    m->max_positions = 262144;
    m->layers_of[LLMMEM__MX_FULL][LLMMEM__FF_DENSE] = full;
    m->layers_of[LLMMEM__MX_LINEAR][LLMMEM__FF_DENSE] = linear;
    m->lin.kind = 1;
    m->lin.k_heads = 16;
    m->lin.k_dim = 128;
    m->lin.v_heads = 32;
    m->lin.v_dim = 128;
    m->lin.conv = 4;
}

/* Anchor a002 (Qwen3-Next-80B-A3B, 2 x H200, TP2, vLLM 0.10.2): the GDN state
 * per layer and rank is conv (2*16*128 + 32*128)/2 x 3 x 2 B = 24,576 B plus
 * recurrent 16 x 128 x 128 x 2 B = 524,288 B; the attention page of one token
 * 2 x 1 KV head x 256 x 2 = 1024 B, so the block is 16 * cdiv(548864, 16*1024)
 * = 544 tokens (HybridAttentionMambaModelConfig.verify_and_update_config; the
 * log prints "Setting attention block size to 544 tokens"). 12 attention + 36
 * GDN layers: groups of min(12, 36) = 12 layers, 4 groups; with the 47,878,721,024
 * bytes the log gives for the KV cache: 47878721024 // (544*1024*12) = 7162
 * blocks; tokens 7162 // 4 * 544 = 973,760; concurrency 7162 / (cdiv(262144,
 * 544) + 3) = 14.77 (all three printed). */
static void test_hybrid_gdn_blocks(void **state)
{
    (void)state;
    struct llmmem_model m = {0};
    gdn_hybrid(&m, 12, 36, 2048, 16, 2, 256, 151936);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "vllm_version", "0.10.2");
    set(c, "tensor_parallel_size", "2");
    set(c, "gpu", "H200");
    set(c, "max_model_len", "262144");
    set(c, "max_num_batched_tokens", "8192");
    set(c, "kv_cache_memory_bytes", "47878721024");
    estimate(r, &m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_BLOCK_TOKENS), 544);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_BLOCKS), 7162);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_TOKENS), 973760);
    assert_true(fabs(get_f64(r, LLMMEM_R_MAX_CONCURRENCY) - 14.77) < 0.005);
    /* from 0.15 prefix caching keeps two blocks per Mamba group ('align'):
     * 7162 / (482 + 3*2); from 0.21 the tokens are int(C * max_model_len) */
    set(c, "vllm_version", "0.29.0");
    estimate(r, &m, c);
    assert_true(fabs(get_f64(r, LLMMEM_R_MAX_CONCURRENCY) - 7162.0 / 488.0) < 1e-9);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_TOKENS), (int64_t)(7162.0 / 488.0 * 262144.0));
    /* without prefix caching, one block per request again */
    set(c, "enable_prefix_caching", "off");
    estimate(r, &m, c);
    assert_true(fabs(get_f64(r, LLMMEM_R_MAX_CONCURRENCY) - 14.77) < 0.005);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem__model_cache_drop(&m); /* the replay memo a stack model gathered */
}

/* Anchor a026 (Qwen3.5-4B, L4, vLLM 0.29): mamba_ssm_dtype float32 makes the
 * recurrent state 32 x 128 x 128 x 4 B; with the bf16 conv state 8192 x 3 x 2
 * that is 2,146,304 B per layer, block 16 * cdiv(2146304, 16*4096) = 528
 * tokens (printed). 8 attention + 24 GDN layers, groups of 8: with 9.1 GiB
 * available, 9.1 GiB // (528*4096*8) = 564 blocks; a request needs
 * cdiv(32768, 528) + 3 groups x 2 = 69, concurrency 8.17 (printed). */
static void test_hybrid_gdn_fp32_state(void **state)
{
    (void)state;
    struct llmmem_model m = {0};
    gdn_hybrid(&m, 8, 24, 2560, 16, 4, 256, 248320);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "vllm_version", "0.29.0");
    set(c, "gpu", "L4");
    set(c, "max_model_len", "32768");
    set(c, "mamba_ssm_cache_dtype", "fp32");
    char bytes[32];
    snprintf(bytes, sizeof bytes, "%.0f", floor(9.1 * GIB));
    set(c, "kv_cache_memory_bytes", bytes);
    estimate(r, &m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_BLOCK_TOKENS), 528);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_BLOCKS), 564);
    assert_true(fabs(get_f64(r, LLMMEM_R_MAX_CONCURRENCY) - 8.17) < 0.005);
    /* the same from the model's own mamba_ssm_dtype with the flag at auto
     * (Qwen3_5ForConditionalGenerationConfig.verify_and_update_config) */
    m.ssm_state_dtype = LLMMEM__DT_FP32;
    set(c, "mamba_ssm_cache_dtype", "auto");
    estimate(r, &m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_BLOCK_TOKENS), 528);
    /* --mamba-ssm-cache-dtype wins over the config: a bf16 state of
     * 8192*3*2 + 32*128*128*2 = 1,097,728 B, 16 * cdiv(1097728, 16*4096) = 272 */
    set(c, "mamba_ssm_cache_dtype", "bf16");
    estimate(r, &m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_BLOCK_TOKENS), 272);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem__model_cache_drop(&m); /* the replay memo a stack model gathered */
}

/* Anchor a002's budget (vLLM 0.10.2, H200, TP2). The dummy sampler run of the
 * V1 runner holds the all-gathered logits, not the rank's shard as well
 * (LogitsProcessor._gather_logits rebinds them): with the sampler the peak,
 * the torch peak increase is the same at TP1 and TP2. Up to 0.10 the
 * baseline snapshot precedes the distributed init (gpu_worker.py
 * init_device), so the TP group's two NCCL communicators, vLLM's PyNccl and
 * torch's (made by the logits all-gather), and the custom all-reduce's
 * buffers are non-torch memory; from 0.11 the snapshot follows the init, the
 * PyNccl communicator and the custom all-reduce are in it, torch's is left
 * (the figure per communicator is an environment assumption; the count is
 * the code's). */
static void test_hybrid_budget_0_10(void **state)
{
    (void)state;
    struct llmmem_model m = {0};
    gdn_hybrid(&m, 12, 36, 2048, 16, 2, 256, 151936);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "gpu", "H200");
    set(c, "max_model_len", "262144");
    set(c, "max_num_batched_tokens", "8192");
    set(c, "max_num_seqs", "1024");
    uint64_t peak[2], nt[2][2];
    const char *const vers[2] = {"0.10.2", "0.11.0"};
    for (int v = 0; v < 2; v++)
        for (int t = 0; t < 2; t++) {
            set(c, "vllm_version", vers[v]);
            set(c, "tensor_parallel_size", t ? "2" : "1");
            estimate(r, &m, c);
            nt[v][t] = get_u64(r, LLMMEM_R_NON_TORCH_BYTES);
            if (v == 0)
                peak[t] = get_u64(r, LLMMEM_R_PROFILE_PEAK_BYTES);
        }
    assert_int_equal(peak[0], peak[1]);
    /* 0.10.2: two communicators and the custom all-reduce's 8 MiB IPC buffer
     * + 8 MiB rank data (custom_all_reduce.py); 0.11: torch's communicator */
    const uint64_t one = nt[1][1] - nt[1][0];
    assert_true(one > 0);
    assert_int_equal(nt[0][1] - nt[0][0], 2 * one + 16 * MIB);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem__model_cache_drop(&m); /* the replay memo a stack model gathered */
}

/* The other groups around the baseline (v1/worker/gpu_worker.py init_device).
 * PP: vLLM's PyNccl communicator (send/recv go through it; none runs in the
 * profile) counts up to 0.10 only. DP: up to 0.10 its PyNccl; from 0.11
 * torch's communicator of the DP device group, made by the V1 runner's DP
 * padding all-reduce in the dummy run (forward_context.py 0.11, not with
 * --enforce-eager; v1/worker/dp_utils.py 0.12 - 0.13); from 0.14 async
 * scheduling is on by default and the sync goes over gloo
 * (disable_nccl_for_dp_synchronization). */
static void test_groups_by_version(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-3.1-8b"), 0);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "gpu", "H100-80GB");
    set(c, "max_model_len", "8192");
    /* one communicator: what TP2 adds to TP1 in 0.11 (torch's, made by the
     * logits all-gather; the figure per communicator is the assumption) */
    set(c, "vllm_version", "0.11.0");
    estimate(r, m, c);
    const uint64_t tp1 = get_u64(r, LLMMEM_R_NON_TORCH_BYTES);
    set(c, "tensor_parallel_size", "2");
    estimate(r, m, c);
    const uint64_t one = get_u64(r, LLMMEM_R_NON_TORCH_BYTES) - tp1;
    assert_true(one > 0);
    set(c, "tensor_parallel_size", "1");
    static const struct {
        const char *ver, *eager;
        int pp_comms, dp_comms;
    } row[] = {
        {"0.10.2", "false", 1, 1}, {"0.11.0", "false", 0, 1}, {"0.11.0", "true", 0, 0},
        {"0.13.0", "false", 0, 1}, {"0.14.1", "false", 0, 0}, {"0.20.0", "false", 0, 0},
    };
    for (size_t i = 0; i < sizeof row / sizeof row[0]; i++) {
        set(c, "vllm_version", row[i].ver);
        set(c, "enforce_eager", row[i].eager);
        set(c, "pipeline_parallel_size", "1");
        set(c, "data_parallel_size", "1");
        estimate(r, m, c);
        const uint64_t alone = get_u64(r, LLMMEM_R_NON_TORCH_BYTES);
        set(c, "data_parallel_size", "2");
        estimate(r, m, c);
        const uint64_t dp = get_u64(r, LLMMEM_R_NON_TORCH_BYTES) - alone;
        set(c, "data_parallel_size", "1");
        set(c, "pipeline_parallel_size", "2");
        estimate(r, m, c);
        const uint64_t pp = get_u64(r, LLMMEM_R_NON_TORCH_BYTES) - alone;
        if (pp != row[i].pp_comms * one || dp != row[i].dp_comms * one)
            fail_msg("%s eager=%s: PP +%llu, DP +%llu", row[i].ver, row[i].eager,
                     (unsigned long long)pp, (unsigned long long)dp);
    }
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* The V2 model runner's sampler state (v1/worker/gpu/sample/penalties.py
 * PenaltiesState, built in load_model after "Model loading took"):
 * output_bin_counts int32 [max_num_seqs, V] and prompt_bin_mask int32
 * [max_num_seqs, cdiv(V, 32)]. Qwen3-0.6B (V 151,936) on an A100 (256
 * sequences by default): 155,578,368 + 4,861,952 B, both split from their
 * segments by the caching allocator (more than 1 MiB left over). From 0.27 the
 * budget is the free memory taken since the baseline (total_consumed), so it
 * comes out of the KV cache; the 0.26 budget (weights + peak + non-torch) does
 * not see it, and neither has the V1 runner. */
static void test_v2_sampler_state(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "qwen3-0.6b"), 0);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "gpu", "A100-80GB");
    set(c, "max_model_len", "4096");
    set(c, "vllm_version", "0.26.0");
    estimate(r, m, c);
    const uint64_t before = get_u64(r, LLMMEM_R_KV_AVAILABLE_BYTES);
    set(c, "vllm_version", "0.27.1");
    estimate(r, m, c);
    const uint64_t pen = UINT64_C(256) * 151936 * 4 + UINT64_C(256) * 4748 * 4;
    assert_int_equal(before - get_u64(r, LLMMEM_R_KV_AVAILABLE_BYTES), pen);
    bool named = false;
    for (int i = 0; i < llmmem_result_term_count(r); i++) {
        const char *name = NULL, *formula = NULL;
        uint64_t bytes = 0;
        assert_int_equal(llmmem_result_term(&name, &formula, &bytes, r, i), 0);
        if (strcmp(name, "sampler_state") == 0) {
            assert_int_equal(bytes, pen);
            named = true;
        }
    }
    assert_true(named);
    /* the V1 runner keeps no such state */
    set(c, "vllm_model_runner", "v1");
    estimate(r, m, c);
    for (int i = 0; i < llmmem_result_term_count(r); i++) {
        const char *name = NULL, *formula = NULL;
        uint64_t bytes = 0;
        assert_int_equal(llmmem_result_term(&name, &formula, &bytes, r, i), 0);
        assert_true(strcmp(name, "sampler_state") != 0);
    }
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* The encoder run of Qwen2-VL-7B's profile (qwen2_vl.py; embed 1280, 16
 * heads, MLP 5120, patch 14, temporal 2, merge 2, text hidden 3584, bf16):
 * the largest item is the preprocessor's max_pixels 12,845,056 = 3584^2, 256^2
 * = 65,536 patches and 16,384 tokens; the budget max(8192, 16384) admits one.
 * Per patch the block's working set 2 x (2 x 1280 + max(4 x 1280, 2 x 5120)) =
 * 25,600 B; held through the 32 blocks the pixel values 3 x 2 x 14 x 14 =
 * 1176 values, in bf16 (the processor wrapper's cast) from 0.9 and the
 * processor's fp32 in 0.8.5, and the rotary table 80 / 2 wide: fp32 up to
 * 0.11, cos + sin in bf16 from 0.13, 160 B either way. The 16,384 x 3584 bf16
 * outputs stay in the encoder cache. */
static void test_qwen2vl_encoder(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_hf_file(&m, "test/data/configs/vlm/qwen2-vl-7b.json"), 0);
    llmmem_config *c = vllm_config();
    static const struct {
        int ver;
        uint64_t pixel_bytes;
    } row[] = {{LLMMEM__VLLM_V(0, 8, 5), 4}, {LLMMEM__VLLM_V(0, 11, 0), 2}, {LLMMEM__VLLM_V(0, 20, 0), 2}};
    for (size_t i = 0; i < sizeof row / sizeof row[0]; i++) {
        llmmem__vllm_profile_in in;
        memset(&in, 0, sizeof in);
        in.vb = llmmem__vllm_behaviours(row[i].ver);
        in.tokens = 8192;
        in.reqs = 256;
        in.tp = 1;
        in.ep = 1;
        in.e = 2;
        in.k_r = 4;
        in.first_stage = true;
        llmmem__vllm_profile p;
        llmmem__ovf o = {0};
        assert_int_equal(llmmem__vllm_profile_run(&p, &o, m, c, &in), 0);
        assert_int_equal(p.enc_items, 1);
        assert_int_equal(p.enc_tokens, 16384);
        const uint64_t patches = 65536;
        const uint64_t want = patches * (25600 + 1176 * row[i].pixel_bytes + 160) + UINT64_C(16384) * 3584 * 2;
        assert_int_equal(p.encoder, want);
    }
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* Sliding window + full attention (gpt-oss-120b, anchor a024, 4 x A100 TP4,
 * vLLM 0.10.1): 18 + 18 layers in two groups of 18; 2 KV heads x 64 per rank,
 * page 2*16*2*64*2 = 8192 B; a request holds cdiv(16384, 16) = 1024 full
 * blocks and cdiv(min(128 - 1 + 2048, 16384), 16) + 1 = 137 sliding ones
 * (SlidingWindowSpec.max_memory_usage_bytes), tokens blocks // 2 * 16. The
 * printed 2,640,144 tokens are 330,018 blocks of 18 x 8192 B (45.32 GiB, as
 * printed); with that memory: 2,640,144 tokens and 330018 / 1161 = 284.25x
 * (printed). */
static void test_sliding_groups(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "gpt-oss-120b"), 0);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "vllm_version", "0.10.1");
    set(c, "gpu", "A100-80GB");
    set(c, "tensor_parallel_size", "4");
    set(c, "max_model_len", "16384");
    set(c, "kv_cache_memory_bytes", "48663134208"); /* 330018 x 18 x 8192 */
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_BLOCKS), 330018);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_TOKENS), 2640144);
    assert_true(fabs(get_f64(r, LLMMEM_R_MAX_CONCURRENCY) - 284.25) < 0.005);
    /* --disable-hybrid-kv-cache-manager: sliding layers sized as full
     * attention, one group of 36 layers and 1024 blocks per request */
    set(c, "disable_hybrid_kv_cache_manager", "true");
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_BLOCKS), 48663134208 / (8192 * 36));
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* PyTorch's caching allocator (c10/cuda/CUDACachingAllocator.cpp): a request
 * above 1 MiB and below 10 MiB is cut from a 20 MiB segment; from 10 MiB the
 * segment is the request rounded to 2 MiB, kept whole when the tail would be
 * 1 MiB or less. Qwen2-7B's qkv (31.5 MiB) takes 32 MiB, o_proj (24.5 MiB)
 * 24.5 MiB, gate_up (259 MiB) 260 MiB, down (129.5 MiB) 130 MiB: 2 MiB a
 * layer, the 57 MiB by which vLLM's "Model loading took 14.2488 GiB" (anchor
 * a019) exceeds the tensors' bytes and the 8 MiB rotary cache. */
static void test_allocator_rounding(void **state)
{
    (void)state;
    llmmem__vllm_pool p;
    memset(&p, 0, sizeof p);
    llmmem__ovf o = {false};
    assert_int_equal(llmmem__vllm_alloc(&p, &o, 31 * MIB + MIB / 2), 32 * MIB);
    assert_int_equal(llmmem__vllm_alloc(&p, &o, 24 * MIB + MIB / 2), 24 * MIB + MIB / 2);
    assert_int_equal(llmmem__vllm_alloc(&p, &o, 259 * MIB), 260 * MIB);
    assert_int_equal(llmmem__vllm_alloc(&p, &o, 129 * MIB + MIB / 2), 130 * MIB);
    assert_int_equal(llmmem__vllm_alloc(&p, &o, 9216), 9216);
    assert_int_equal(llmmem__vllm_alloc(&p, &o, 100), 512);
    /* 8 MiB from a new 20 MiB segment; 12 MiB of it stays free and a later
     * 11.5 MiB request takes it whole (the 0.5 MiB tail is not split off) */
    assert_int_equal(llmmem__vllm_alloc(&p, &o, 8 * MIB), 8 * MIB);
    assert_int_equal(llmmem__vllm_alloc(&p, &o, 11 * MIB + MIB / 2), 12 * MIB);
    assert_false(o.overflow);
}

/* The dummy sampler run over N = min(max_num_batched_tokens, max_num_seqs)
 * rows of the vocabulary V: FlashInfer (0.10/0.11 when installed) holds the
 * bf16 logits, their fp32 copy, the top-k masked copy and the probabilities
 * (14 B a logit); without FlashInfer the PyTorch sort adds sorted values,
 * int64 indices, the int64 index input of the segmented sort and cub's
 * alternate key/value buffers (38 B a logit for N >= 128). The difference of
 * the two profile peaks is 24 B x N x V when the sampler is the peak. */
static void test_sampler_paths(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "qwen3-0.6b"), 0);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "vllm_version", "0.10.2");
    set(c, "gpu", "A100-80GB");
    set(c, "max_model_len", "4096");
    set(c, "max_num_batched_tokens", "8192");
    set(c, "max_num_seqs", "256");
    set(c, "flashinfer_sampler", "on");
    estimate(r, m, c);
    const uint64_t fi = get_u64(r, LLMMEM_R_PROFILE_PEAK_BYTES);
    set(c, "flashinfer_sampler", "auto"); /* pip install: no FlashInfer */
    estimate(r, m, c);
    const uint64_t sort = get_u64(r, LLMMEM_R_PROFILE_PEAK_BYTES);
    assert_int_equal(sort - fi, UINT64_C(24) * 256 * 151936);
    /* the same image with FlashInfer gives the FlashInfer figure */
    set(c, "vllm_image", "true");
    estimate(r, m, c);
    assert_int_equal(get_u64(r, LLMMEM_R_PROFILE_PEAK_BYTES), fi);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* The versions' rules: the default utilization (CacheConfig: 0.9, 0.92 from
 * 0.20), the batch defaults by device memory and usage context
 * (EngineArgs._set_default_args: 8192/1024 serve on a >= 70 GiB non-A100
 * GPU, 2048/256 otherwise), V0 refused, an unreadable version refused. */
static void test_version_rules(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-3.1-8b"), 0);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "gpu", "H100-80GB");
    set(c, "max_model_len", "8192");
    uint64_t total = 0;
    assert_int_equal(llmmem_gpu_memory_bytes(&total, 0), 0);
    set(c, "vllm_version", "0.19.0");
    estimate(r, m, c);
    assert_int_equal(get_u64(r, LLMMEM_R_REQUESTED_BYTES), (uint64_t)floor((double)total * 0.9));
    set(c, "vllm_version", "0.20.0");
    estimate(r, m, c);
    assert_int_equal(get_u64(r, LLMMEM_R_REQUESTED_BYTES), (uint64_t)floor((double)total * 0.92));
    /* from 0.20 the CUDA graph estimate comes out of the budget: the same run
     * with the estimate off has that much more KV memory */
    const uint64_t with = get_u64(r, LLMMEM_R_KV_AVAILABLE_BYTES);
    const uint64_t cg = get_u64(r, LLMMEM_R_CUDA_GRAPH_BYTES);
    set(c, "cudagraph_memory_estimate", "off");
    estimate(r, m, c);
    assert_true(cg > 0);
    assert_int_equal(get_u64(r, LLMMEM_R_KV_AVAILABLE_BYTES) - with, cg);
    set(c, "cudagraph_memory_estimate", "auto");
    /* --enforce-eager: no graphs at all */
    set(c, "enforce_eager", "true");
    estimate(r, m, c);
    assert_int_equal(get_u64(r, LLMMEM_R_CUDA_GRAPH_BYTES), 0);
    set(c, "vllm_version", "0.7.3");
    assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_UNSUPPORTED);
    assert_non_null(strstr(llmmem_last_error(), "V0"));
    set(c, "vllm_version", "latest");
    assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_OUT_OF_RANGE);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* "GPU KV cache size" up to 0.20 is blocks * block_size; from 0.21 it is
 * int(C * max_model_len) with C = blocks / cdiv(max_model_len, block)
 * (kv_cache_utils.py _report_kv_cache_config / get_kv_cache_capacity): with a
 * max_model_len that is not a multiple of 16 the two differ. */
static void test_tokens_by_version(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "qwen3-8b"), 0);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "gpu", "A100-80GB");
    set(c, "max_model_len", "10000");
    set(c, "kv_cache_memory_bytes", "10737418240");
    set(c, "vllm_version", "0.20.0");
    estimate(r, m, c);
    const int64_t blocks = get_i64(r, LLMMEM_R_KV_BLOCKS);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_TOKENS), blocks * 16);
    set(c, "vllm_version", "0.21.0");
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_KV_TOKENS), (int64_t)((double)blocks / 625.0 * 10000.0));
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* A start vLLM refuses: one max_model_len request needs more KV cache than is
 * available (check_enough_kv_cache_memory). gpt-oss-120b on an H100 at util
 * 0.95 and 131,072 tokens (anchor a008: 1.71 GiB available, 4.54 needed). */
static void test_refused_start(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "gpt-oss-120b"), 0);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "vllm_version", "0.11.0");
    set(c, "gpu", "H100-80GB");
    set(c, "gpu_memory_utilization", "0.95");
    set(c, "max_model_len", "131072");
    set(c, "max_num_batched_tokens", "1024");
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_FITS), 0);
    assert_true(get_f64(r, LLMMEM_R_MAX_CONCURRENCY) < 1.0);
    bool said = false;
    for (int i = 0; i < llmmem_result_note_count(r); i++)
        said = said || strstr(llmmem_result_note(r, i), "estimated maximum model length");
    assert_true(said);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* The releases x behaviours table (vllm.h) is in release order: a later version has every
 * behaviour of an earlier one, and each behaviour starts at its own release. */
static void test_release_table(void **state)
{
    (void)state;
    static const int since[] = {
#define SINCE(name, a, b, c) LLMMEM__VLLM_V(a, b, c),
        LLMMEM__VLLM_RELEASES(SINCE)
#undef SINCE
    };
    for (int i = 0; i < LLMMEM__VB_COUNT; i++) {
        if (i > 0)
            assert_true(since[i] >= since[i - 1]);
        assert_true((llmmem__vllm_behaviours(since[i]) >> i) & 1);
        assert_false((llmmem__vllm_behaviours(since[i] - 1) >> i) & 1);
    }
    assert_int_equal(llmmem__vllm_behaviours(LLMMEM__VLLM_V(0, 8, 5)), 0);
    assert_true(LLMMEM__VLLM_HAS(llmmem__vllm_behaviours(LLMMEM__VLLM_V(0, 33, 0)), GB10_SMALL_TIER));
}

/* A small Llama in NVFP4 as ModelOpt and llm-compressor write it (h 512, 2 layers,
 * 4 heads of 128, f 1024, V 8192, untied). vLLM's modelopt.py
 * ModelOptNvFp4LinearMethod.create_weights: weight uint8 [out, in/2] and
 * weight_scale fp8 [out, in/16] per fused linear, the global scales left as
 * fp32 scalars by process_weights_after_loading (two kept per linear, 512 B
 * each once the caching allocator rounds them); Marlin on an H100 keeps the
 * scales' count. Per layer: two norms 2 x 1024; qkv 1536 x 256 + 1536 x 32;
 * o 512 x 256 + 512 x 32; gate_up 2048 x 256 + 2048 x 32; down 512 x 512 +
 * 512 x 64; + 4 x 1024 of scalars = 1,480,704 B. The model: embedding and
 * lm_head 8 MiB each (bf16, never quantized), the rotary cache 1024 x 128 x 2,
 * the final norm: 20,001,792 B. The KV cache follows the checkpoint's
 * kv_cache_quant_algo from 0.14 (resolve_kv_cache_dtype_string): 2 x 4 x 128
 * x 1 B a token and layer, against 2 B before. */
static const char nvfp4_llama[] =
    "{\"model_type\": \"llama\", \"hidden_size\": 512, \"intermediate_size\": 1024, "
    "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"num_key_value_heads\": 4, "
    "\"head_dim\": 128, \"vocab_size\": 8192, \"max_position_embeddings\": 1024, "
    "\"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", \"quantization_config\": "
    "{\"quant_method\": \"%s\", %s}}";

static void test_nvfp4_weights(void **state)
{
    (void)state;
    char json[2048];
    snprintf(json, sizeof json, nvfp4_llama, "modelopt",
             "\"quant_algo\": \"NVFP4\", \"kv_cache_quant_algo\": \"FP8\", \"config_groups\": "
             "{\"group_0\": {\"weights\": {\"num_bits\": 4, \"type\": \"float\", \"group_size\": 16}, "
             "\"targets\": [\"Linear\"]}}, \"ignore\": [\"lm_head\"]");
    llmmem_model *m = NULL;
    if (llmmem_model_from_hf_json(&m, json, strlen(json)))
        fail_msg("%s", llmmem_last_error());
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "vllm_version", "0.13.0");
    set(c, "gpu", "H100-80GB");
    estimate(r, m, c);
    assert_int_equal(get_u64(r, LLMMEM_R_WEIGHTS_BYTES), 20001792);
    assert_int_equal(get_u64(r, LLMMEM_R_KV_BYTES_PER_TOKEN), 2 * 2 * 4 * 128 * 2);
    set(c, "vllm_version", "0.14.1");
    estimate(r, m, c);
    assert_int_equal(get_u64(r, LLMMEM_R_KV_BYTES_PER_TOKEN), 2 * 2 * 4 * 128 * 1);
    /* --quantization as vLLM spells it: modelopt_fp4 is this checkpoint's
     * method; fp8, modelopt (FP8 only) and compressed-tensors are refused */
    set(c, "quantization", "modelopt_fp4");
    estimate(r, m, c);
    const char *refused[] = {"fp8", "modelopt", "compressed-tensors"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        set(c, "quantization", refused[i]);
        assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_INCONSISTENT);
    }
    /* where vLLM has no NVFP4 kernel: below sm_80 (Marlin's floor, a T4), and
     * below sm_100 in 0.8.5 (ModelOptNvFp4Config.get_min_capability 100) */
    set(c, "quantization", "modelopt_fp4");
    set(c, "gpu", "T4");
    assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_UNSUPPORTED);
    assert_non_null(strstr(llmmem_last_error(), "compute capability 8.0"));
    set(c, "gpu", "H100-80GB");
    set(c, "vllm_version", "0.8.5");
    assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_UNSUPPORTED);
    assert_non_null(strstr(llmmem_last_error(), "compute capability 10.0"));
    set(c, "vllm_version", "0.9.0"); /* ModelOpt's Marlin path: sm_80+ */
    estimate(r, m, c);
    set(c, "vllm_version", "0.8.5");
    set(c, "gpu", "B200");
    estimate(r, m, c);
    set(c, "gpu", "H100-80GB");
    llmmem_model_free(m);
    /* the same storage from llm-compressor's nvfp4-pack-quantized; its
     * kv_cache_scheme makes the KV cache fp8 from 0.15 (attention/layer.py) */
    snprintf(json, sizeof json, nvfp4_llama, "compressed-tensors",
             "\"format\": \"nvfp4-pack-quantized\", \"kv_cache_scheme\": {\"num_bits\": 8, \"type\": "
             "\"float\", \"dynamic\": false}, \"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], "
             "\"weights\": {\"num_bits\": 4, \"type\": \"float\", \"strategy\": \"tensor_group\", "
             "\"group_size\": 16}}}");
    if (llmmem_model_from_hf_json(&m, json, strlen(json)))
        fail_msg("%s", llmmem_last_error());
    set(c, "quantization", "compressed-tensors");
    set(c, "vllm_version", "0.14.1");
    estimate(r, m, c);
    assert_int_equal(get_u64(r, LLMMEM_R_WEIGHTS_BYTES), 20001792);
    assert_int_equal(get_u64(r, LLMMEM_R_KV_BYTES_PER_TOKEN), 2 * 2 * 4 * 128 * 2);
    set(c, "vllm_version", "0.15.1");
    estimate(r, m, c);
    assert_int_equal(get_u64(r, LLMMEM_R_KV_BYTES_PER_TOKEN), 2 * 2 * 4 * 128 * 1);
    set(c, "quantization", "modelopt_fp4");
    assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_INCONSISTENT);
    llmmem_model_free(m);
    m = NULL;
    /* the KV dtype as get_kv_cache_quant_algo_string reads ModelOpt's fields:
     * kv_cache_scheme first, fp8 only when static 8-bit float (dynamic true
     * falls back to "auto" and hides kv_cache_quant_algo); compressed-tensors
     * makes any kv_cache_scheme fp8 (attention/layer.py) */
    set(c, "quantization", "auto");
    set(c, "vllm_version", "0.15.1");
    static const struct {
        const char *method, *extra;
        uint64_t kvb;
    } kv_cases[] = {
        {"modelopt", "\"quant_algo\": \"NVFP4\", \"kv_cache_scheme\": {\"num_bits\": 8, \"type\": \"float\", "
                     "\"dynamic\": true}, \"kv_cache_quant_algo\": \"FP8\"", 2},
        {"modelopt", "\"quant_algo\": \"NVFP4\", \"kv_cache_scheme\": {}, \"kv_cache_quant_algo\": \"fp8\"", 1},
        {"compressed-tensors", "\"config_groups\": {\"g\": {\"targets\": [\"Linear\"], \"weights\": {\"num_bits\": 4, "
                               "\"type\": \"float\", \"group_size\": 16}}}, \"kv_cache_scheme\": {\"num_bits\": 8, "
                               "\"type\": \"int\"}", 1},
    };
    for (size_t i = 0; i < sizeof kv_cases / sizeof kv_cases[0]; i++) {
        llmmem_model_free(m);
        snprintf(json, sizeof json, nvfp4_llama, kv_cases[i].method, kv_cases[i].extra);
        if (llmmem_model_from_hf_json(&m, json, strlen(json)))
            fail_msg("%s", llmmem_last_error());
        estimate(r, m, c);
        if (get_u64(r, LLMMEM_R_KV_BYTES_PER_TOKEN) != 2 * 2 * 4 * 128 * kv_cases[i].kvb)
            fail_msg("kv case %zu: %llu B a token", i,
                     (unsigned long long)get_u64(r, LLMMEM_R_KV_BYTES_PER_TOKEN));
    }
    llmmem_model_free(m);
    m = NULL;
    /* a scheme the reader does not model (ModelOpt W4A8_AWQ): vLLM loads it
     * quantized, so no 16-bit answer; weights_format given by the caller is
     * taken as the storage. Malformed blocks are schema errors. */
    snprintf(json, sizeof json, nvfp4_llama, "modelopt", "\"quant_algo\": \"W4A8_AWQ\"");
    if (llmmem_model_from_hf_json(&m, json, strlen(json)))
        fail_msg("%s", llmmem_last_error());
    set(c, "quantization", "auto");
    assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_UNSUPPORTED);
    assert_non_null(strstr(llmmem_last_error(), "does not model"));
    set(c, "weights_format", "int4");
    estimate(r, m, c);
    set(c, "weights_format", "auto");
    llmmem_model_free(m);
    m = NULL;
    snprintf(json, sizeof json, nvfp4_llama, "modelopt", "\"quant_algo\": 7");
    assert_int_equal(llmmem_model_from_hf_json(&m, json, strlen(json)), LLMMEM_E_SCHEMA);
    assert_non_null(strstr(llmmem_last_error(), "quantization_config.quant_algo"));
    snprintf(json, sizeof json, nvfp4_llama, "compressed-tensors", "\"config_groups\": 5");
    assert_int_equal(llmmem_model_from_hf_json(&m, json, strlen(json)), LLMMEM_E_SCHEMA);
    assert_non_null(strstr(llmmem_last_error(), "quantization_config.config_groups"));
    snprintf(json, sizeof json, nvfp4_llama, "compressed-tensors",
             "\"format\": \"nvfp4-pack-quantized\", \"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], "
             "\"weights\": {\"num_bits\": 4, \"type\": \"float\", \"strategy\": \"tensor_group\", "
             "\"group_size\": 16}}}");
    if (llmmem_model_from_hf_json(&m, json, strlen(json)))
        fail_msg("%s", llmmem_last_error());
    set(c, "quantization", "compressed-tensors");
    /* compressed-tensors NVFP4 before 0.9.2: none (0.8.5), W4A16 only (0.9.0),
     * W4A4 on sm_100 only (0.9.1): refused */
    set(c, "quantization", "compressed-tensors");
    set(c, "vllm_version", "0.8.5");
    assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_UNSUPPORTED);
    set(c, "vllm_version", "0.9.1");
    assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_UNSUPPORTED);
    set(c, "vllm_version", "0.9.2");
    estimate(r, m, c);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* vLLM 0.8 - 0.10 falls back to the V0 engine where its V1 oracle says so
 * (arg_utils.py _is_v1_supported_oracle, read in 0.8.5.post1, 0.9.2, 0.10.0,
 * 0.10.1.1, 0.10.2): V0 is not modelled, so the estimate refuses with vLLM's reason
 * instead of giving V1's figures; where V1 runs, it answers. */
static void test_v0_fallback(void **state)
{
    (void)state;
    struct llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "qwen3-0.6b"), 0);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    static const struct {
        const char *ver, *gpu, *kv, *dtype, *why; /* why NULL: V1 runs */
    } cases[] = {
        {"0.8.5", "V100-32GB", "auto", "auto", "Compute Capability < 8.0"},
        {"0.10.1", "T4", "auto", "auto", "Compute Capability < 8.0"},
        {"0.10.2", "T4", "auto", "auto", NULL},
        {"0.9.2", "A100-80GB", "fp8", "auto", "--kv-cache-dtype"},
        {"0.9.2", "H100-80GB", "fp8", "auto", NULL},
        {"0.9.2", "B200", "fp8", "auto", "--kv-cache-dtype"},
        {"0.10.0", "B200", "fp8", "auto", NULL},
        {"0.10.2", "A100-80GB", "fp8", "auto", "--kv-cache-dtype"},
        {"0.11.0", "A100-80GB", "fp8", "auto", NULL},
        {"0.9.2", "A100-80GB", "auto", "fp32", "--dtype float32"},
        {"0.10.0", "A100-80GB", "auto", "fp32", NULL},
        {"0.11.0", "V100-32GB", "auto", "auto", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        set(c, "vllm_version", cases[i].ver);
        set(c, "gpu", cases[i].gpu);
        set(c, "kv_cache_dtype", cases[i].kv);
        set(c, "compute_dtype", cases[i].dtype);
        set(c, "param_dtype", cases[i].dtype);
        const int rc = llmmem_estimate_inference(r, m, c);
        if (!cases[i].why) {
            if (rc)
                fail_msg("case %zu: %s", i, llmmem_last_error());
            continue;
        }
        assert_int_equal(rc, LLMMEM_E_UNSUPPORTED);
        char want[96];
        snprintf(want, sizeof want, "\"%s is not supported by the V1 Engine. Falling back to V0\"",
                 cases[i].why);
        if (!strstr(llmmem_last_error(), want))
            fail_msg("case %zu: %s", i, llmmem_last_error());
    }
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* --cpu-offload-gb and --swap-space (issue 28). The small bf16 Llama of the
 * NVFP4 test: per layer qkv_proj 1536 x 512 x 2 = 1,572,864 B, o_proj 524,288,
 * gate_up_proj 2,097,152, down_proj 1,048,576, two norms of 1024. With
 * --cpu-offload-gb 2/1024 (int(gb * 1024**3) = 2 MiB) maybe_offload_to_cpu
 * moves layer 0's parameters in order while the bytes moved are below the
 * limit: qkv (1.5 MiB) then o (2 MiB reached), 2,097,152 B off the GPU. The
 * pinned host allocator rounds each to a power of two (CachingHostAllocator
 * PowerOf2Ceil): 2,097,152 + 524,288 = 2,621,440 B. A limit of one byte
 * moves the first parameter only. V1 allocates no swap space (host bytes 0);
 * 0.18 removed the argument. */
static void test_cpu_offload_swap(void **state)
{
    (void)state;
    char json[2048];
    snprintf(json, sizeof json, nvfp4_llama, "none", "\"bits\": 16");
    char *q = strstr(json, ", \"quantization_config\"");
    assert_non_null(q);
    strcpy(q, "}");
    llmmem_model *m = NULL;
    if (llmmem_model_from_hf_json(&m, json, strlen(json)))
        fail_msg("%s", llmmem_last_error());
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "vllm_version", "0.14.1");
    set(c, "gpu", "H100-80GB");
    estimate(r, m, c);
    const uint64_t w0 = get_u64(r, LLMMEM_R_WEIGHTS_BYTES), kv0 = get_u64(r, LLMMEM_R_KV_CACHE_BYTES);
    assert_int_equal(get_u64(r, LLMMEM_R_HOST_BYTES), 0);
    set(c, "cpu_offload_gb", "0.001953125");
    estimate(r, m, c);
    assert_int_equal(w0 - get_u64(r, LLMMEM_R_WEIGHTS_BYTES), 2097152);
    assert_int_equal(get_u64(r, LLMMEM_R_HOST_BYTES), 2621440);
    assert_int_equal(get_u64(r, LLMMEM_R_HOST_PINNED_BYTES), 2621440); /* all of it pinned */
    assert_int_equal(get_u64(r, LLMMEM_R_HOST_PAGEABLE_BYTES), 0);
    assert_true(get_u64(r, LLMMEM_R_KV_CACHE_BYTES) > kv0);
    set(c, "host_memory_bytes", "2621439"); /* the second verdict: host RAM */
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_FITS_HOST), 0);
    set(c, "host_memory_bytes", "2621440");
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_FITS_HOST), 1);
    set(c, "host_memory_bytes", "0");
    set(c, "cpu_offload_gb", "0.000000001"); /* int(gb * 2**30) = 1 byte */
    estimate(r, m, c);
    assert_int_equal(w0 - get_u64(r, LLMMEM_R_WEIGHTS_BYTES), 1572864);
    assert_int_equal(get_u64(r, LLMMEM_R_HOST_BYTES), 2097152);
    /* the same in 0.17's UVAOffloader, two ranks on the node: each its own half */
    set(c, "vllm_version", "0.17.1");
    set(c, "tensor_parallel_size", "2");
    estimate(r, m, c);
    assert_int_equal(get_u64(r, LLMMEM_R_HOST_BYTES), 2 * 1048576);
    assert_int_equal(get_i64(r, LLMMEM_R_APPROXIMATE), 0);
    /* online fp8 quantizes the offloaded bf16 weights into new GPU tensors
     * (Fp8LinearMethod.process_weights_after_loading): flagged approximate */
    set(c, "quantization", "fp8");
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_APPROXIMATE), 1);
    set(c, "quantization", "auto");
    set(c, "tensor_parallel_size", "1");
    set(c, "cpu_offload_gb", "0");
    /* --swap-space: accepted up to 0.17, no host bytes on V1; gone in 0.18 */
    set(c, "swap_space", "16");
    estimate(r, m, c);
    assert_int_equal(get_u64(r, LLMMEM_R_HOST_BYTES), 0);
    assert_int_equal(get_u64(r, LLMMEM_R_WEIGHTS_BYTES), w0);
    set(c, "vllm_version", "0.18.0");
    assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_UNSUPPORTED);
    assert_non_null(strstr(llmmem_last_error(), "0.18.0"));
    /* the LLM class pops it with a DeprecationWarning in 0.18 - 0.25, and
     * hands it to EngineArgs (a TypeError) from 0.26 */
    set(c, "vllm_usage_context", "llm");
    set(c, "vllm_version", "0.25.0");
    estimate(r, m, c);
    assert_int_equal(get_u64(r, LLMMEM_R_HOST_BYTES), 0);
    set(c, "vllm_version", "0.26.0");
    assert_int_equal(llmmem_estimate_inference(r, m, c), LLMMEM_E_UNSUPPORTED);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* The CUDA graph capture sizes by version and GPU (config/vllm.py
 * _set_cudagraph_sizes): [1, 2, 4] + multiples of 8 below 256 + multiples of
 * 16 from 256 up to N = min(2 x max_num_seqs, 512, max_num_batched_tokens);
 * from 0.28 1024 in place of 512 on compute capability 10.x; from 0.21
 * max_num_batched_tokens joins when off the stride. With max_num_seqs 1024
 * and 8192 tokens: N = 512 -> 3 + 31 + 17 = 51 sizes; N = 1024 (0.28, B200)
 * -> 3 + 31 + 49 = 83; FULL decode graphs (0.11 on) up to max_num_seqs double
 * that. With 256 sequences and 300 tokens: N = 300 -> 3 + 31 + 3 = 37 sizes,
 * + 300 itself from 0.21, and FULL graphs up to 256: 3 + 31 + 1 = 35. */
static int graphs_noted(const llmmem_result *r)
{
    for (int i = 0; i < llmmem_result_note_count(r); i++) {
        int n;
        if (sscanf(llmmem_result_note(r, i), "vllm: %d CUDA graphs;", &n) == 1)
            return n;
    }
    return -1;
}

static void test_capture_sizes(void **state)
{
    (void)state;
    struct llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "qwen3-0.6b"), 0);
    llmmem_config *c = vllm_config();
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    set(c, "max_num_seqs", "1024");
    set(c, "max_num_batched_tokens", "8192");
    set(c, "max_model_len", "4096");
    static const struct {
        const char *ver, *gpu, *tokens, *seqs;
        int graphs;
    } cases[] = {
        {"0.27.0", "B200", "8192", "1024", 2 * 51}, {"0.28.0", "B200", "8192", "1024", 2 * 83},
        {"0.28.0", "H100-80GB", "8192", "1024", 2 * 51}, {"0.20.0", "H100-80GB", "300", "256", 37 + 35},
        {"0.21.0", "H100-80GB", "300", "256", 38 + 35},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        set(c, "vllm_version", cases[i].ver);
        set(c, "gpu", cases[i].gpu);
        set(c, "max_num_batched_tokens", cases[i].tokens);
        set(c, "max_num_seqs", cases[i].seqs);
        estimate(r, m, c);
        if (graphs_noted(r) != cases[i].graphs)
            fail_msg("case %zu: %d graphs, want %d", i, graphs_noted(r), cases[i].graphs);
    }
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* The capacity keys: max_model_len is the one served (given, else the config's
 * max_position_embeddings); estimated_max_model_len is an exact boundary of the estimator
 * (max_model_len N starts vLLM, N + 1 does not) capped at the model's maximum; when vLLM
 * does not start, kv_cache_bytes is the KV cache the component counts (one max_model_len
 * request), not the pool it could not make. */
static void test_capacity_keys(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-3.1-8b"), 0);
    int64_t maxpos = 0;
    assert_int_equal(llmmem_model_get_i64(&maxpos, m, LLMMEM_M_MAX_POSITIONS), 0);
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    /* L4: the model's own 131,072 tokens do not fit */
    llmmem_config *c = vllm_config();
    set(c, "gpu", "L4");
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_FITS), 0);
    assert_int_equal(get_i64(r, LLMMEM_R_MAX_MODEL_LEN), maxpos);
    uint64_t kv = 0;
    assert_int_equal(llmmem_result_component_bytes(&kv, r, LLMMEM_PHASE_DECODE, LLMMEM_C_KV_CACHE), 0);
    assert_int_equal(get_u64(r, LLMMEM_R_KV_CACHE_BYTES), kv);
    assert_true(kv > get_u64(r, LLMMEM_R_KV_AVAILABLE_BYTES));
    const int64_t longest = get_i64(r, LLMMEM_R_ESTIMATED_MAX_MODEL_LEN);
    assert_true(longest > 0 && longest < maxpos);
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)longest);
    set(c, "max_model_len", text);
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_FITS), 1);
    assert_int_equal(get_i64(r, LLMMEM_R_ESTIMATED_MAX_MODEL_LEN), longest);
    snprintf(text, sizeof text, "%lld", (long long)longest + 1);
    set(c, "max_model_len", text);
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_FITS), 0);
    llmmem_config_free(c);
    /* H100: the model's maximum fits; a shorter max_model_len reports the longer one */
    c = vllm_config();
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_FITS), 1);
    assert_int_equal(get_i64(r, LLMMEM_R_ESTIMATED_MAX_MODEL_LEN), maxpos);
    set(c, "max_model_len", "8192");
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_MAX_MODEL_LEN), 8192);
    assert_int_equal(get_i64(r, LLMMEM_R_ESTIMATED_MAX_MODEL_LEN), maxpos);
    assert_true(get_f64(r, LLMMEM_R_MAX_CONCURRENCY) > 1.0);
    llmmem_config_free(c);
    /* vLLM refuses to start before profiling (free memory below total x utilization): no
     * context fits */
    c = vllm_config();
    set(c, "gpu", "L4");
    set(c, "gpu_memory_utilization", "0.99");
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_FITS), 0);
    assert_int_equal(get_i64(r, LLMMEM_R_ESTIMATED_MAX_MODEL_LEN), 0);
    llmmem_config_free(c);
    /* not vLLM: no capacity keys */
    c = vllm_config();
    set(c, "runtime", "hf");
    estimate(r, m, c);
    assert_int_equal(get_i64(r, LLMMEM_R_MAX_MODEL_LEN), 0);
    assert_int_equal(get_i64(r, LLMMEM_R_ESTIMATED_MAX_MODEL_LEN), 0);
    llmmem_config_free(c);
    llmmem_result_free(r);
    llmmem_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_release_table),
        cmocka_unit_test(test_hybrid_gdn_blocks),   cmocka_unit_test(test_hybrid_gdn_fp32_state),
        cmocka_unit_test(test_hybrid_budget_0_10),  cmocka_unit_test(test_groups_by_version),
        cmocka_unit_test(test_v2_sampler_state),    cmocka_unit_test(test_qwen2vl_encoder),
        cmocka_unit_test(test_sliding_groups),      cmocka_unit_test(test_allocator_rounding),
        cmocka_unit_test(test_sampler_paths),       cmocka_unit_test(test_version_rules),
        cmocka_unit_test(test_tokens_by_version),   cmocka_unit_test(test_refused_start),
        cmocka_unit_test(test_nvfp4_weights),       cmocka_unit_test(test_v0_fallback),
        cmocka_unit_test(test_cpu_offload_swap),    cmocka_unit_test(test_capture_sizes),
        cmocka_unit_test(test_capacity_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
