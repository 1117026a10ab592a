/* Training recipes (issue 16 items 2-4): framework module code, torch.compile,
 * chunked losses, offloading, optimizer in backward, paged optimizer state, the
 * QLoRA load peak, and the framework YAML readers. Expected values are the
 * per-token sums written out here from the frameworks' modules (their files
 * named at each test, docs/research/training-recipes.md), not read back from
 * the library's code; the readers are checked through the parameters they set
 * and the errors they give (file, key path, line:col). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "train/train.h"

#define DEV "test/data/groundtruth/configs/dev/"

static llmmem_model *load(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, DEV "%s.json", name);
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_hf_file(&m, path), 0);
    return m;
}

static llmmem_config *cfg_of(const char *const *kv)
{
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(llmmem_config_set(c, "gpu", "H200"), 0);
    for (; kv && kv[0]; kv += 2) {
        int rc = llmmem_config_set(c, kv[0], kv[1]);
        if (rc)
            print_error("%s=%s: %s\n", kv[0], kv[1], llmmem_last_error());
        assert_int_equal(rc, 0);
    }
    return c;
}

static int compute_rc(llmmem__train *t, const llmmem_model *m, const llmmem_config *c)
{
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    llmmem__result_clear(r);
    /* what the single engine's row lets the byte model do (engines/single.c) */
    r->caps = LLMMEM__CAP_ONE_GPU | LLMMEM__CAP_REPLAY | LLMMEM__CAP_OPTIM_IN_BWD | LLMMEM__CAP_TORCH_RECOMPUTE;
    int rc = llmmem__train_compute(t, r, m, c);
    llmmem_result_free(r);
    return rc;
}

static llmmem__train compute(const llmmem_model *m, const llmmem_config *c)
{
    llmmem__train t;
    int rc = compute_rc(&t, m, c);
    if (rc)
        print_error("%s\n", llmmem_last_error());
    assert_int_equal(rc, 0);
    return t;
}

static uint64_t key_u64(const llmmem_result *r, int key)
{
    uint64_t v = 0;
    assert_int_equal(llmmem_result_get_u64(&v, r, key), 0);
    return v;
}

/* Llama-3.2-1B: h 2048, a 32, k 8, d 64, f 8192, L 16, V 128256, tied. */
enum { H = 2048, A = 32, K = 8, D = 64, F = 8192, V = 128256, L = 16 };

/* torchtune modules (0.3-0.4), pure bf16, full fine-tuning, per token:
 * sa_norm: fp32 x (4h) + rstd (4) + normed (2h, scale trains); its output
 * read by q/k/v (2h); attention: q after RoPE, k and v expanded to a heads,
 * output (2ad each) + lse (4a); mlp_norm as sa_norm; w1 out, silu out, w3
 * out, product (2f each). 16h + 8ad + 8f + 4a + 8. */
static void torchtune_layer_full(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const char *kv[] = {"activation_profile", "torchtune", "param_dtype", "bf16", "compute_dtype", "bf16",
                        "micro_batch_size", "1", "seq_len", "1024", NULL};
    llmmem_config *c = cfg_of(kv);
    llmmem__train t = compute(m, c);
    assert_int_equal(t.act_layer, (uint64_t)1024 * (16 * H + 8 * A * D + 8 * F + 4 * A + 8));
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* Compiled layer (min-cut partitioner, torch/_functorch/partitioners.py):
 * input (2h) + rstd (4) + norm output (2h) twice, q (2ad), k and v as the
 * kernel gets them (torchtune: 2ad each; HF SDPA with enable_gqa: 2kd each),
 * output (2ad) + lse (4a), gate and up and the product (2f each). */
static void compiled_layer(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const char *tt[] = {"activation_profile", "torchtune", "param_dtype", "bf16", "compute_dtype", "bf16",
                        "compile", "layers", "micro_batch_size", "1", "seq_len", "1024", NULL};
    llmmem_config *c = cfg_of(tt);
    llmmem__train t = compute(m, c);
    assert_int_equal(t.act_layer, (uint64_t)1024 * (8 * H + 8 + 8 * A * D + 4 * A + 6 * F));
    llmmem_config_free(c);
    const char *hf[] = {"param_dtype", "bf16", "compute_dtype", "bf16", "compile", "layers",
                        "micro_batch_size", "1", "seq_len", "1024", NULL};
    c = cfg_of(hf);
    t = compute(m, c);
    assert_int_equal(t.act_layer, (uint64_t)1024 * (8 * H + 8 + 4 * A * D + 4 * K * D + 4 * A + 6 * F));
    llmmem__train eager;
    llmmem_config_set(c, "compile", "none");
    eager = compute(m, c);
    assert_true(eager.act_layer > t.act_layer); /* the fp32 norm copies and silu output are gone */
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* torchtune CEWithChunkedOutputLoss, 8 chunks: compiled keeps the 16-bit
 * chunks (2TV) and per-row reductions (8T); eager the fp32 log-probs (4TV).
 * A trainable (tied) head sums its chunk gradients: sum + newest, 2 V h x 2. */
static void torchtune_chunked_loss(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const uint64_t T = 2048, TV = T * V;
    const char *kv[] = {"activation_profile", "torchtune", "param_dtype", "bf16", "compute_dtype", "bf16",
                        "loss", "torchtune_chunked", "compile", "layers", "micro_batch_size", "1", "seq_len",
                        "2048", NULL};
    llmmem_config *c = cfg_of(kv);
    llmmem__train t = compute(m, c);
    assert_int_equal(t.logits_saved, 2 * TV + 8 * T);
    assert_int_equal(t.logits_bwd_extra, 2 * (TV / 8));
    assert_int_equal(t.loss_grad_accum, (uint64_t)2 * V * H * 2);
    assert_int_equal(llmmem_config_set(c, "compile", "none"), 0);
    t = compute(m, c);
    assert_int_equal(t.logits_saved, 4 * TV);
    assert_int_equal(t.logits_bwd_extra, (8 + 2) * (TV / 8));
    assert_int_equal(llmmem_config_set(c, "lora_rank", "8"), 0);
    t = compute(m, c);
    assert_int_equal(t.loss_grad_accum, 0); /* a frozen head */
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* LitGPT: Fabric returns the logit chunks in fp32 (convert_output) and the CE
 * keeps fp32 log-probs: 8 TV; adapters in the model dtype (bf16). */
static void litgpt_loss_and_adapters(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const uint64_t T = 1024;
    const char *kv[] = {"activation_profile", "litgpt", "param_dtype", "bf16", "compute_dtype", "bf16",
                        "loss", "litgpt_chunked", "lora_rank", "8", "lora_targets", "q_proj,v_proj",
                        "micro_batch_size", "2", "seq_len", "512", NULL};
    llmmem_config *c = cfg_of(kv);
    llmmem__train t = compute(m, c);
    assert_int_equal(t.logits_saved, 8 * T * V);
    /* q: 8 x (2048 + 2048), v: 8 x (2048 + 512) per layer; grads in bf16 */
    const uint64_t adapters = (uint64_t)L * 8 * (2 * H + H + K * D);
    assert_int_equal(t.st.grads, adapters * 2);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* Offloading: torchtune's streams keep 3 checkpoint inputs in forward
 * (max_fwd_stash_size 5 packed ids, two per layer), 2 in backward;
 * save_on_cpu none and 1. Host: every layer's input (T h 2 bytes). */
static void offloading(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const char *kv[] = {"param_dtype", "bf16", "compute_dtype", "bf16", "activation_checkpointing", "full",
                        "activation_offloading", "save_on_cpu", "micro_batch_size", "1", "seq_len", "1024", NULL};
    llmmem_config *c = cfg_of(kv);
    llmmem__train t = compute(m, c);
    assert_int_equal(t.ckpt_live_fwd, 0);
    assert_int_equal(t.ckpt_live_bwd, 1);
    assert_int_equal(t.host_offload, (uint64_t)L * 1024 * H * 2);
    assert_int_equal(llmmem_config_set(c, "activation_offloading", "streams"), 0);
    t = compute(m, c);
    assert_int_equal(t.ckpt_live_fwd, 3);
    assert_int_equal(t.ckpt_live_bwd, 2);
    /* and the final norm's saved tensors (fp32 input, rstd, normed: 6h + 4) */
    assert_int_equal(t.host_offload, (uint64_t)L * 1024 * H * 2 + (uint64_t)1024 * (6 * H + 4));
    /* offloading needs full checkpointing */
    assert_int_equal(llmmem_config_set(c, "activation_checkpointing", "none"), 0);
    assert_int_equal(compute_rc(&t, m, c), LLMMEM_E_INCONSISTENT);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* Optimizer in backward: no step phase (no gradients, no temporaries), a tied
 * head's gradient (V h x 2) held through backward; refused with accumulation. */
static void optimizer_in_backward(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const char *kv[] = {"param_dtype", "bf16", "compute_dtype", "bf16", "activation_checkpointing", "full",
                        "optimizer_in_backward", "true", "micro_batch_size", "1", "seq_len", "1024", NULL};
    llmmem_config *c = cfg_of(kv);
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    uint64_t g = 1, tmp = 1;
    assert_int_equal(llmmem_result_component_bytes(&g, r, LLMMEM_PHASE_OPTIMIZER, LLMMEM_C_GRADIENTS), 0);
    assert_int_equal(llmmem_result_component_bytes(&tmp, r, LLMMEM_PHASE_OPTIMIZER, LLMMEM_C_OPTIMIZER_TRANSIENT), 0);
    assert_int_equal(g, 0);
    assert_int_equal(tmp, 0);
    llmmem__train t = compute(m, c);
    assert_int_equal(t.grad_held, (uint64_t)V * H * 2);
    /* the whole-model gradient never exists: backward holds far less than P x 2 */
    uint64_t bw = 0;
    assert_int_equal(llmmem_result_component_bytes(&bw, r, LLMMEM_PHASE_BACKWARD, LLMMEM_C_GRADIENTS), 0);
    assert_true(bw < (uint64_t)t.st.trainable * 2);
    assert_int_equal(llmmem_config_set(c, "gradient_accumulation_steps", "4"), 0);
    assert_int_equal(llmmem_estimate(r, m, c), LLMMEM_E_INCONSISTENT);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* Paged bnb 32-bit AdamW: fp32 state1/2 (8 B per element) of every tensor of
 * at least 1e5 elements in managed memory, outside peak_allocated and inside
 * total_bytes_per_gpu; smaller tensors (the norms, 2048) stay allocated. */
static void paged_state(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const char *kv[] = {"param_dtype", "bf16", "compute_dtype", "bf16", "optimizer", "paged_adamw_32bit",
                        "micro_batch_size", "1", "seq_len", "512", NULL};
    llmmem_config *c = cfg_of(kv);
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    int64_t params = 0;
    assert_int_equal(llmmem_model_get_i64(&params, m, LLMMEM_M_PARAMS), 0);
    /* norms: 2 per layer + the final one, 2048 elements each */
    const uint64_t norms = (uint64_t)(2 * L + 1) * H;
    assert_int_equal(key_u64(r, LLMMEM_R_MANAGED_BYTES), 8 * ((uint64_t)params - norms));
    uint64_t st = 0;
    assert_int_equal(llmmem_result_component_bytes(&st, r, LLMMEM_PHASE_OPTIMIZER, LLMMEM_C_OPTIMIZER_STATE), 0);
    assert_int_equal(st, 8 * norms);
    assert_int_equal(key_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU),
                     key_u64(r, LLMMEM_R_PEAK_RESERVED_BYTES) + key_u64(r, LLMMEM_R_CUDA_CONTEXT_BYTES) +
                         key_u64(r, LLMMEM_R_MANAGED_BYTES));
    /* bitsandbytes 32-bit state is fp32 on a bf16 model (optim_bits 32) */
    int64_t dt = 0;
    assert_int_equal(llmmem_result_get_i64(&dt, r, LLMMEM_R_OPTIMIZER_STATE_DTYPE), 0);
    assert_string_equal(llmmem_result_enum_name(LLMMEM_R_OPTIMIZER_STATE_DTYPE, dt), "fp32");
    /* torchao AdamW8bit: allocator-visible, uint8 + fp32 scale per 256 */
    assert_int_equal(llmmem_config_set(c, "optimizer", "adamw_torchao_8bit"), 0);
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    assert_int_equal(key_u64(r, LLMMEM_R_MANAGED_BYTES), 0);
    assert_int_equal(llmmem_result_get_i64(&dt, r, LLMMEM_R_OPTIMIZER_STATE_DTYPE), 0);
    assert_string_equal(llmmem_result_enum_name(LLMMEM_R_OPTIMIZER_STATE_DTYPE, dt), "int8");
    /* torchao AdamW4bit: 4-bit codes */
    assert_int_equal(llmmem_config_set(c, "optimizer", "adamw_torchao_4bit"), 0);
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    assert_int_equal(llmmem_result_get_i64(&dt, r, LLMMEM_R_OPTIMIZER_STATE_DTYPE), 0);
    assert_string_equal(llmmem_result_enum_name(LLMMEM_R_OPTIMIZER_STATE_DTYPE, dt), "int4");
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* QLoRA load peak (peak_scope process): the final weights plus one 16-bit
 * copy of the largest quantised Linear and bnb's fp32 absmax and its centred
 * copy (8 B per 64). The MLP's 2048 x 8192 is the largest; off by default. */
static void qlora_load_peak(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const char *kv[] = {"param_dtype", "bf16", "compute_dtype", "bf16", "lora_rank", "8", "qlora", "nf4",
                        "micro_batch_size", "1", "seq_len", "512", NULL};
    llmmem_config *c = cfg_of(kv);
    llmmem__train t = compute(m, c);
    assert_int_equal(t.load_peak, 0);
    assert_int_equal(llmmem_config_set(c, "peak_scope", "process"), 0);
    t = compute(m, c);
    const uint64_t n = (uint64_t)H * F;
    assert_int_equal(t.load_peak, t.st.weights + n * 2 + 8 * (n / 64));
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* What the profiles and compile do not model is refused, not estimated. */
/* bitsandbytes 4-bit compute dtype and quantised head (issue 28 item 8):
 * Linear4bit.forward casts its input to compute_dtype and the matmul
 * dequantises the weight to it (bitsandbytes 0.50 nn/modules.py, backends/
 * cuda/ops.py _dequant_linear_fallback); transformers' BitsAndBytesConfig
 * makes it fp32 without bnb_4bit_compute_dtype. On Llama-3.2-1B the largest
 * quantised Linear is an MLP projection (f x h; the tied head is an
 * Embedding's weight): bf16 = its 16-bit dequantised copy; fp32 = a 32-bit
 * copy plus the fp32 input and output of that layer (T x (h + f) x 4). */
static void bnb_compute_dtype(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const uint64_t W = (uint64_t)F * H, T = 512;
    const char *bf16[] = {"param_dtype", "bf16", "compute_dtype", "bf16", "lora_rank", "8", "qlora", "nf4",
                          "micro_batch_size", "1", "seq_len", "512", "qlora_compute_dtype", "bf16", NULL};
    llmmem_config *c = cfg_of(bf16);
    assert_int_equal(compute(m, c).quant_transient, W * 2);
    assert_int_equal(llmmem_config_set(c, "qlora_compute_dtype", "auto"), 0); /* transformers' fp32 */
    assert_int_equal(compute(m, c).quant_transient, W * 4 + T * (H + F) * 4);
    assert_int_equal(llmmem_config_set(c, "qlora_compute_dtype", "fp32"), 0);
    assert_int_equal(compute(m, c).quant_transient, W * 4 + T * (H + F) * 4);
    /* LitGPT: BitsandbytesPrecision sets the compute dtype to its own (bf16);
     * _quantize_weight quantises an fp16 copy: fp16 dequantised, then bf16 */
    assert_int_equal(llmmem_config_set(c, "qlora_compute_dtype", "auto"), 0);
    assert_int_equal(llmmem_config_set(c, "activation_profile", "litgpt"), 0);
    assert_int_equal(compute(m, c).quant_transient, W * (2 + 2));
    llmmem_config_free(c);

    /* the head: Llama-2-7B's untied lm_head (32000 x 4096) in 4 bits with
     * qlora_quantize_head on (LitGPT's default), 16-bit otherwise
     * (transformers skips lm_head): the weights drop by 2 B - its NF4 bytes
     * (0.5 B + the double-quantised absmax) per element, and the head is the
     * largest dequantised weight */
    llmmem_model *m7 = load("llama-2-7b");
    const uint64_t head = 32000ULL * 4096;
    bf16[13] = "bf16";
    c = cfg_of(bf16);
    llmmem__train off = compute(m7, c);
    assert_int_equal(off.quant_transient, 11008ULL * 4096 * 2);
    assert_int_equal(llmmem_config_set(c, "qlora_quantize_head", "on"), 0);
    llmmem__train on = compute(m7, c);
    assert_int_equal(on.quant_transient, head * 2);
    const uint64_t drop = off.st.weights - on.st.weights;
    assert_true(drop > head * 2 - head * 6 / 10 && drop < head * 2 - head / 2);
    llmmem_config_free(c);

    /* the settings are bitsandbytes' 4-bit ones: refused elsewhere, named */
    const char *bad[][6] = {{"qlora_compute_dtype", "bf16", "qlora", "none", "lora_rank", "8"},
                            {"qlora_quantize_head", "on", "qlora", "int8", "lora_rank", "8"},
                            {"qlora_compute_dtype", "fp32", "qlora", "nf4", "activation_profile", "torchtune"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *kv[] = {bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4], bad[i][5],
                            "lora_rank", "8", NULL};
        c = cfg_of(kv);
        llmmem_result *r = NULL;
        assert_int_equal(llmmem_result_new(&r), 0);
        assert_int_equal(llmmem_estimate(r, m, c), LLMMEM_E_INCONSISTENT);
        assert_non_null(strstr(llmmem_last_error(), bad[i][0]));
        llmmem_result_free(r);
        llmmem_config_free(c);
    }
    const char *fp8[] = {"qlora", "nf4", "lora_rank", "8", "qlora_compute_dtype", "fp8", NULL};
    c = cfg_of(fp8);
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    assert_int_equal(llmmem_estimate(r, m, c), LLMMEM_E_OUT_OF_RANGE);
    assert_non_null(strstr(llmmem_last_error(), "qlora_compute_dtype"));
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m7);
    llmmem_model_free(m);
}

static void refusals(void **state)
{
    (void)state;
    llmmem_model *moe = load("mixtral-mini"), *llama = load("llama-3.2-1b");
    llmmem__train t;
    const char *tt_amp[] = {"activation_profile", "torchtune", "param_dtype", "fp32", "compute_dtype", "bf16", NULL};
    llmmem_config *c = cfg_of(tt_amp);
    assert_int_equal(compute_rc(&t, llama, c), LLMMEM_E_UNSUPPORTED);
    assert_non_null(strstr(llmmem_last_error(), "autocast"));
    llmmem_config_free(c);
    const char *comp[] = {"compile", "layers", "param_dtype", "bf16", "compute_dtype", "bf16", NULL};
    c = cfg_of(comp);
    assert_int_equal(compute_rc(&t, moe, c), LLMMEM_E_UNSUPPORTED);
    assert_int_equal(compute_rc(&t, llama, c), 0);
    assert_int_equal(llmmem_config_set(c, "lora_dropout", "0.1"), 0);
    assert_int_equal(llmmem_config_set(c, "lora_rank", "8"), 0);
    assert_int_equal(compute_rc(&t, llama, c), LLMMEM_E_UNSUPPORTED);
    llmmem_config_free(c);
    const char *sac[] = {"activation_checkpointing", "selective_op", NULL};
    c = cfg_of(sac);
    assert_int_equal(compute_rc(&t, moe, c), LLMMEM_E_UNSUPPORTED);
    llmmem_config_free(c);
    llmmem_model_free(moe);
    llmmem_model_free(llama);
}

/* torchtitan's op-level SAC keeps per token the input (2h), q (2ad), v (2kd),
 * the attention output (2ad) + lse (4a), gate (2f) and the down output (2h). */
static void selective_op(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const char *kv[] = {"param_dtype", "bf16", "compute_dtype", "bf16", "activation_checkpointing", "selective_op",
                        "micro_batch_size", "1", "seq_len", "1024", NULL};
    llmmem_config *c = cfg_of(kv);
    llmmem__train t = compute(m, c);
    assert_true(t.checkpointing);
    assert_int_equal(t.ckpt_layer, (uint64_t)1024 * (4 * H + 4 * A * D + 2 * K * D + 2 * F + 4 * A));
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* Liger kernels on HF Llama (liger_kernel ops/rms_norm.py, swiglu.py): each
 * RMSNorm keeps its 16-bit input and fp32 rstd (2h + 4, its output still read
 * by the Linears), SwiGLU keeps gate and up: HF's 16h + 4ad + 4kd + 8f + 4a + 8
 * becomes 8h + 4ad + 4kd + 6f + 4a + 8. */
static void liger_kernels(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const char *kv[] = {"param_dtype", "bf16", "compute_dtype", "bf16", "liger_kernels", "true",
                        "micro_batch_size", "1", "seq_len", "1024", NULL};
    llmmem_config *c = cfg_of(kv);
    llmmem__train t = compute(m, c);
    assert_int_equal(t.act_layer, (uint64_t)1024 * (8 * H + 4 * A * D + 4 * K * D + 6 * F + 4 * A + 8));
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* ---- the YAML readers --------------------------------------------------------- */

static void expect_param(const llmmem_config *c, const char *name, const char *value)
{
    int id;
    assert_int_equal(llmmem_param_from_name(&id, name), 0);
    char buf[256];
    size_t need;
    assert_int_equal(llmmem_config_get_str(buf, sizeof buf, &need, c, id), 0);
    if (strcmp(buf, value))
        print_error("%s: %s, expected %s\n", name, buf, value);
    assert_string_equal(buf, value);
}

static int apply(llmmem_config *c, int kind, const char *yaml)
{
    return llmmem_config_apply_framework_yaml(c, NULL, kind, yaml, strlen(yaml));
}

static void torchtune_reader(void **state)
{
    (void)state;
    const char *yaml = "# a LoRA recipe\n"
                       "model:\n"
                       "  _component_: torchtune.models.llama3_2.qlora_llama3_2_3b\n"
                       "  lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']\n"
                       "  apply_lora_to_mlp: True\n"
                       "  lora_rank: 64\n"
                       "  lora_alpha: 128\n"
                       "tokenizer:\n  max_seq_len: 4096\n"
                       "dataset:\n  packed: True\n"
                       "batch_size: 2\n"
                       "optimizer:\n  _component_: torch.optim.AdamW\n  fused: True\n  lr: 2e-5\n"
                       "loss:\n  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\n"
                       "compile: True\nenable_activation_checkpointing: True\nenable_activation_offloading: True\n"
                       "dtype: bf16\nmetric_logger:\n  log_dir: /tmp\nnot_a_key: 1\n";
    llmmem_config *c = cfg_of(NULL);
    assert_int_equal(apply(c, LLMMEM_FW_AUTO, yaml), 0);
    expect_param(c, "activation_profile", "torchtune");
    expect_param(c, "lora_rank", "64");
    expect_param(c, "lora_targets", "q_proj,v_proj,o_proj,gate_proj,up_proj,down_proj");
    expect_param(c, "qlora", "nf4");
    expect_param(c, "seq_len", "4096");
    expect_param(c, "micro_batch_size", "2");
    expect_param(c, "optimizer_impl", "fused");
    expect_param(c, "loss", "torchtune_chunked");
    expect_param(c, "compile", "layers");
    expect_param(c, "activation_checkpointing", "full");
    expect_param(c, "activation_offloading", "streams");
    bool noted = false;
    for (int i = 0; i < llmmem_config_note_count(c); i++)
        noted = noted || strstr(llmmem_config_note(c, i), "not_a_key") != NULL;
    assert_true(noted);
    /* DoRA is refused at its key, with the position */
    const char *dora = "model:\n  _component_: x.lora_llama3_2_3b\n  lora_attn_modules: [q_proj]\n"
                       "  lora_rank: 8\n  use_dora: True\n";
    assert_int_equal(apply(c, LLMMEM_FW_TORCHTUNE, dora), LLMMEM_E_UNSUPPORTED);
    assert_non_null(strstr(llmmem_last_error(), ":5:13: \"model.use_dora\""));
    /* an unknown loss is refused */
    const char *loss = "model:\n  _component_: x.llama3_2_3b\nloss:\n  _component_: my.Loss\n";
    assert_int_equal(apply(c, LLMMEM_FW_TORCHTUNE, loss), LLMMEM_E_UNSUPPORTED);
    llmmem_config_free(c);
}

static void yaml_contract(void **state)
{
    (void)state;
    llmmem_config *c = cfg_of(NULL);
    /* duplicate keys name both positions */
    assert_int_equal(apply(c, LLMMEM_FW_TORCHTUNE, "batch_size: 2\nbatch_size: 3\n"), LLMMEM_E_PARSE);
    assert_non_null(strstr(llmmem_last_error(), "framework config:2:1: duplicate key \"batch_size\" (first at 1:1)"));
    /* aliases and a second document are refused */
    assert_int_equal(apply(c, LLMMEM_FW_TORCHTUNE, "a: &x 1\nbatch_size: *x\n"), LLMMEM_E_PARSE);
    assert_int_equal(apply(c, LLMMEM_FW_TORCHTUNE, "batch_size: 1\n---\nbatch_size: 2\n"), LLMMEM_E_PARSE);
    /* a syntax error has its line:col */
    assert_int_equal(apply(c, LLMMEM_FW_TORCHTUNE, "a: [1, 2\n"), LLMMEM_E_PARSE);
    assert_non_null(strstr(llmmem_last_error(), "framework config:"));
    /* a quoted number is a string: a type error at its key */
    assert_int_equal(apply(c, LLMMEM_FW_TORCHTUNE, "batch_size: \"2\"\n"), LLMMEM_E_SCHEMA);
    assert_non_null(strstr(llmmem_last_error(), ":1:13: \"batch_size\""));
    /* nothing applied on failure: all or nothing */
    const char *bad = "batch_size: 7\nenable_activation_offloading: maybe\n";
    assert_int_equal(apply(c, LLMMEM_FW_TORCHTUNE, bad), LLMMEM_E_SCHEMA);
    expect_param(c, "micro_batch_size", "1");
    /* what is none of the kinds is said so */
    assert_int_equal(apply(c, LLMMEM_FW_AUTO, "hello: 1\n"), LLMMEM_E_SCHEMA);
    llmmem_config_free(c);
}

static void other_readers(void **state)
{
    (void)state;
    llmmem_config *c = cfg_of(NULL);
    int kind = 0;
    const char *axo = "base_model: meta-llama/Llama-3.1-8B\nadapter: qlora\nload_in_4bit: true\nlora_r: 16\n"
                      "lora_target_linear: true\nsequence_len: 2048\nmicro_batch_size: 2\nbf16: true\n"
                      "gradient_checkpointing: offload\nliger_fused_linear_cross_entropy: true\n";
    assert_int_equal(llmmem_framework_detect(&kind, axo, strlen(axo)), 0);
    assert_int_equal(kind, LLMMEM_FW_AXOLOTL);
    assert_int_equal(apply(c, LLMMEM_FW_AUTO, axo), 0);
    expect_param(c, "qlora", "nf4");
    expect_param(c, "qlora_compute_dtype", "bf16"); /* bnb_4bit_compute_dtype = cfg.torch_dtype */
    expect_param(c, "lora_targets", "all-linear");
    expect_param(c, "activation_offloading", "save_on_cpu");
    expect_param(c, "loss", "liger");
    assert_int_equal(apply(c, LLMMEM_FW_AXOLOTL, "base_model: x\ncut_cross_entropy: true\n"), LLMMEM_E_UNSUPPORTED);
    llmmem_config_free(c);

    c = cfg_of(NULL);
    const char *acc = "compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\nnum_processes: 8\n"
                      "mixed_precision: bf16\nfsdp_config:\n  fsdp_version: 2\n  fsdp_offload_params: true\n"
                      "dynamo_config:\n  dynamo_backend: INDUCTOR\n  dynamo_use_regional_compilation: true\n";
    assert_int_equal(apply(c, LLMMEM_FW_AUTO, acc), 0);
    expect_param(c, "engine", "fsdp");
    expect_param(c, "num_gpus", "8");
    expect_param(c, "fsdp_cpu_offload", "true");
    expect_param(c, "compile", "layers");
    llmmem_config_free(c);

    c = cfg_of(NULL);
    const char *lf = "model_name_or_path: x\nstage: sft\nfinetuning_type: lora\nlora_rank: 8\n"
                     "cutoff_len: 1024\nper_device_train_batch_size: 4\nbf16: true\n";
    assert_int_equal(apply(c, LLMMEM_FW_AUTO, lf), 0);
    expect_param(c, "activation_checkpointing", "full"); /* LLaMA-Factory's default */
    expect_param(c, "lora_targets", "all-linear");
    assert_int_equal(apply(c, LLMMEM_FW_LLAMAFACTORY, "model_name_or_path: x\nstage: dpo\n"), LLMMEM_E_UNSUPPORTED);
    llmmem_config_free(c);

    /* HF TrainingArguments: Liger, compile, checkpoint kwargs */
    c = cfg_of(NULL);
    const char *ta = "{\"use_liger_kernel\": true, \"torch_compile\": true, \"gradient_checkpointing\": true,"
                     " \"gradient_checkpointing_kwargs\": {\"use_reentrant\": false, \"offload\": true}}";
    assert_int_equal(llmmem_config_apply_hf_training_args_json(c, ta, strlen(ta)), 0);
    expect_param(c, "loss", "liger");
    expect_param(c, "liger_kernels", "true");
    expect_param(c, "compile", "model");
    expect_param(c, "activation_offloading", "save_on_cpu");
    const char *mode = "{\"torch_compile\": true, \"torch_compile_mode\": \"max-autotune\"}";
    assert_int_equal(llmmem_config_apply_hf_training_args_json(c, mode, strlen(mode)), LLMMEM_E_UNSUPPORTED);
    llmmem_config_free(c);
}

static uint64_t term_bytes(const llmmem_result *r, const char *name)
{
    for (int i = 0; i < llmmem_result_term_count(r); i++) {
        const char *n, *f;
        uint64_t b;
        assert_int_equal(llmmem_result_term(&n, &f, &b, r, i), 0);
        if (!strcmp(n, name))
            return b;
    }
    print_error("no term %s\n", name);
    fail();
    return 0;
}

static bool has_term(const llmmem_result *r, const char *name)
{
    for (int i = 0; i < llmmem_result_term_count(r); i++) {
        const char *n, *f;
        uint64_t b;
        assert_int_equal(llmmem_result_term(&n, &f, &b, r, i), 0);
        if (!strcmp(n, name))
            return true;
    }
    return false;
}

/* The recipes on the fsdp engine (FSDP2 units, its MixedPrecisionPolicy):
 * custom_sharded_layers takes the (tied) embedding out of the root, which
 * keeps the final norm; frozen LoRA bases have no gradient to reduce-scatter
 * (_fsdp_collectives.py foreach_reduce); a policy's param_dtype is what the
 * torchtune modules run in; a saved TrainingArguments' fsdp_config is read
 * only with FSDP on. */
static void fsdp_recipes(void **state)
{
    (void)state;
    llmmem_model *m = load("llama-3.2-1b");
    const char *kv[] = {"engine", "fsdp", "fsdp_version", "2", "num_gpus", "8",
                        "data_parallel_size", "8", "param_dtype", "bf16", "micro_batch_size", "1",
                        "seq_len", "512", NULL};
    llmmem_config *c = cfg_of(kv);
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    assert_int_equal(term_bytes(r, "fsdp_root_unsharded"), 2 * ((uint64_t)V * H + H));
    assert_false(has_term(r, "fsdp_embedding_head_unit"));
    assert_int_equal(llmmem_config_set(c, "fsdp_custom_sharded_layers", "true"), 0);
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    assert_int_equal(term_bytes(r, "fsdp_root_unsharded"), 2 * (uint64_t)H);
    assert_int_equal(term_bytes(r, "fsdp_embedding_head_unit"), 2 * (uint64_t)V * H);

    /* LoRA r 8 on q and v: 8 (h + h) + 8 (h + k d) trainable elements per layer */
    assert_int_equal(llmmem_config_set(c, "fsdp_custom_sharded_layers", "false"), 0);
    assert_int_equal(llmmem_config_set(c, "lora_rank", "8"), 0);
    assert_int_equal(llmmem_config_set(c, "lora_targets", "q_proj,v_proj"), 0);
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    const uint64_t adapters = 8 * (uint64_t)(H + H) + 8 * (uint64_t)(H + K * D);
    assert_int_equal(term_bytes(r, "fsdp_reduce_scatter"), 2 * adapters);
    assert_int_equal(term_bytes(r, "fsdp_root_reduce_scatter"), 0);
    llmmem_config_free(c);

    /* torchtitan: fp32 shards, MixedPrecisionPolicy(bf16, fp32), torchtune-like modules */
    const char *tt[] = {"engine", "fsdp", "fsdp_version", "2", "num_gpus", "8",
                        "data_parallel_size", "8", "param_dtype", "fp32", "compute_dtype", "bf16",
                        "fsdp_param_dtype", "bf16", "fsdp_reduce_dtype", "fp32",
                        "activation_profile", "torchtune", NULL};
    c = cfg_of(tt);
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    assert_int_equal(llmmem_config_set(c, "fsdp_param_dtype", "auto"), 0); /* autocast: refused */
    assert_int_equal(llmmem_estimate(r, m, c), LLMMEM_E_UNSUPPORTED);
    llmmem_config_free(c);

    c = cfg_of(NULL);
    const char *saved =
        "{\"fsdp\": [], \"fsdp_config\": {\"min_num_params\": 0, \"offload_params\": true}}";
    assert_int_equal(llmmem_config_apply_hf_training_args_json(c, saved, strlen(saved)), 0);
    expect_param(c, "fsdp_cpu_offload", "false");
    assert_int_equal(llmmem_config_note_count(c), 0);
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    const char *on = "{\"fsdp\": \"full_shard\", \"fsdp_config\": {\"offload_params\": true}}";
    assert_int_equal(llmmem_config_apply_hf_training_args_json(c, on, strlen(on)), 0);
    expect_param(c, "fsdp_cpu_offload", "true");
    llmmem_config_free(c);
    llmmem_result_free(r);
    llmmem_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torchtune_layer_full), cmocka_unit_test(compiled_layer),
        cmocka_unit_test(torchtune_chunked_loss), cmocka_unit_test(litgpt_loss_and_adapters),
        cmocka_unit_test(offloading), cmocka_unit_test(optimizer_in_backward),
        cmocka_unit_test(paged_state), cmocka_unit_test(qlora_load_peak), cmocka_unit_test(bnb_compute_dtype),
        cmocka_unit_test(refusals), cmocka_unit_test(selective_op), cmocka_unit_test(liger_kernels),
        cmocka_unit_test(torchtune_reader), cmocka_unit_test(yaml_contract),
        cmocka_unit_test(other_readers), cmocka_unit_test(fsdp_recipes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
