/* The inputs the bench programs cycle through: models from 1B to 671B (presets,
 * dense and MoE, and raw models described by a size alone) under every
 * training engine and both inference runtimes, each input with its own
 * micro-batch, sequence length and recompute mode, so that no call repeats
 * the input of the call before it. Every configuration is estimated once
 * when it is built: an input the library rejects stops the bench. */
#ifndef LLMMEM_BENCH_WORKLOADS_H
#define LLMMEM_BENCH_WORKLOADS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

/* Presets, 1.2B to 671B: dense, MoE (qwen3-30b-a3b, mixtral-8x7b,
 * qwen3-235b-a22b) and MLA + MoE (deepseek-v3). */
static const char *const bench_presets[] = {"llama-3.2-1b",    "qwen2.5-7b",   "llama-3.1-8b",
                                            "mistral-nemo-12b", "qwen3-30b-a3b", "qwen2.5-32b",
                                            "mixtral-8x7b",    "llama-3-70b",  "qwen3-235b-a22b",
                                            "llama-3.1-405b",  "deepseek-v3"};
/* Raw models: a size alone (llmmem_model_set "num_parameters"). */
static const char *const bench_raw[] = {"3B", "13B", "175B"};

#define BENCH_MODELS (int)(sizeof bench_presets / sizeof bench_presets[0] + sizeof bench_raw / sizeof bench_raw[0])
#define BENCH_MAX_INPUTS 64

typedef struct bench_models {
    llmmem_model *m[BENCH_MODELS];
    const char *name[BENCH_MODELS];
} bench_models;

static inline void bench_models_load(bench_models *ms)
{
    const int np = (int)(sizeof bench_presets / sizeof bench_presets[0]);
    for (int i = 0; i < np; i++) {
        ms->name[i] = bench_presets[i];
        bench_check(llmmem_model_from_preset(&ms->m[i], bench_presets[i]), bench_presets[i]);
    }
    for (int i = np; i < BENCH_MODELS; i++) {
        ms->name[i] = bench_raw[i - np];
        bench_check(llmmem_model_new(&ms->m[i]), "model_new");
        bench_check(llmmem_model_set(ms->m[i], "num_parameters", bench_raw[i - np]), bench_raw[i - np]);
    }
}

static inline void bench_models_free(bench_models *ms)
{
    for (int i = 0; i < BENCH_MODELS; i++)
        llmmem_model_free(ms->m[i]);
}

static inline int64_t bench_model_i64(const llmmem_model *m, int key)
{
    int64_t v = 0;
    bench_check(llmmem_model_get_i64(&v, m, key), "model_get_i64");
    return v;
}

/* The largest of the candidates (descending, ending in 1) that divides every n given (n > 0). */
static inline int64_t bench_largest_divisor(const int64_t *cands, int64_t a, int64_t b)
{
    for (int i = 0;; i++)
        if (cands[i] == 1 || ((a <= 0 || a % cands[i] == 0) && (b <= 0 || b % cands[i] == 0)))
            return cands[i];
}

/* ---- inputs: (model, configuration) pairs ------------------------------------- */

typedef struct bench_input {
    const llmmem_model *model;
    llmmem_config *cfg;
    char label[160];
} bench_input;

typedef struct bench_inputs {
    const char *what;
    bench_input in[BENCH_MAX_INPUTS];
    int n;
    llmmem_result *res;
} bench_inputs;

/* Sets a parameter from printf-style text and appends "name value" to the label. */
static inline void bench_set(bench_input *in, const char *name, const char *fmt, ...)
{
    char v[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    int rc = llmmem_config_set(in->cfg, name, v);
    if (rc)
        bench_fail(rc, name, v);
    size_t len = strlen(in->label);
    snprintf(in->label + len, sizeof in->label - len, " %s=%s", name, v);
}

/* Configures input k of a cycle for model m (the engine's options). */
typedef void (*bench_setup)(bench_input *in, const llmmem_model *m, int k);

/* The training workload of input k: micro-batch 1-4, sequence 2048-8192,
 * every recompute mode, accumulation 1-8. */
static inline void bench_training_common(bench_input *in, int k)
{
    static const char *const ckpt[] = {"none", "selective", "full"};
    bench_set(in, "micro_batch_size", "%d", 1 + k % 4);
    bench_set(in, "seq_len", "%d", 2048 << (k % 3));
    bench_set(in, "activation_checkpointing", "%s", ckpt[(k / 2) % 3]);
    bench_set(in, "gradient_accumulation_steps", "%d", 1 + k % 8);
}

/* Builds one input per model (models cycled in order, k counts the inputs)
 * and estimates each once. */
static inline void bench_inputs_build(bench_inputs *s, const char *what, const bench_models *ms, bench_setup setup)
{
    s->what = what;
    s->n = BENCH_MODELS;
    bench_check(llmmem_result_new(&s->res), "result_new");
    for (int k = 0; k < s->n; k++) {
        bench_input *in = &s->in[k];
        in->model = ms->m[k];
        snprintf(in->label, sizeof in->label, "%s", ms->name[k]);
        bench_check(llmmem_config_new(&in->cfg), "config_new");
        /* the plain estimate unless the setup turns the allocator replay on */
        bench_check(llmmem_config_set(in->cfg, "allocator_replay", "false"), "allocator_replay");
        setup(in, in->model, k);
        int rc = llmmem_estimate(s->res, in->model, in->cfg);
        if (rc)
            bench_fail(rc, what, in->label);
    }
}

static inline void bench_inputs_free(bench_inputs *s)
{
    for (int k = 0; k < s->n; k++)
        llmmem_config_free(s->in[k].cfg);
    llmmem_result_free(s->res);
}

static inline int bench_body_estimate(void *ctx, long i)
{
    bench_inputs *s = ctx;
    const bench_input *in = &s->in[i % s->n];
    return llmmem_estimate(s->res, in->model, in->cfg);
}

static inline const char *bench_name_input(void *ctx, long i)
{
    return ((bench_inputs *)ctx)->in[i].label;
}

static inline bench_case bench_estimate_case(bench_inputs *s)
{
    bench_case c = {s->what, bench_body_estimate, bench_name_input, s, s->n};
    return c;
}

/* ---- engine setups ------------------------------------------------------------- */

static inline void setup_single(bench_input *in, const llmmem_model *m, int k)
{
    (void)m;
    bench_training_common(in, k);
}

static inline void setup_ddp(bench_input *in, const llmmem_model *m, int k)
{
    (void)m;
    bench_set(in, "engine", "ddp");
    bench_set(in, "num_gpus", "%d", 2 << (k % 3));
    bench_set(in, "gradient_as_bucket_view", "%s", k % 2 ? "true" : "false");
    bench_training_common(in, k);
}

static inline void setup_zero(bench_input *in, int stage, int k)
{
    static const char *const off[] = {"none", "cpu", "nvme"};
    bench_set(in, "engine", "zero");
    bench_set(in, "zero_stage", "%d", stage);
    bench_set(in, "num_gpus", "%d", 8 << (k % 4));
    if (stage >= 1)
        bench_set(in, "offload_optimizer", "%s", off[k % (stage == 3 ? 3 : 2)]);
    if (stage == 3) {
        bench_set(in, "offload_param", "%s", off[(k / 3) % 3]);
        bench_set(in, "zero_hpz_partition_size", "%d", k % 4 == 1 ? 8 : 1);
    }
    bench_training_common(in, k);
}

static inline void setup_zero1(bench_input *in, const llmmem_model *m, int k)
{
    (void)m;
    setup_zero(in, 1, k);
}

static inline void setup_zero2(bench_input *in, const llmmem_model *m, int k)
{
    (void)m;
    setup_zero(in, 2, k);
}

static inline void setup_zero3(bench_input *in, const llmmem_model *m, int k)
{
    (void)m;
    setup_zero(in, 3, k);
}

/* The issue-7 training target generalised: ZeRO-3 on 64 H100, full recompute,
 * sequence 4096, micro-batch 1-2 (every model of the cycle). */
static inline void setup_zero3_x64(bench_input *in, const llmmem_model *m, int k)
{
    (void)m;
    bench_set(in, "engine", "zero");
    bench_set(in, "zero_stage", "3");
    bench_set(in, "num_gpus", "64");
    bench_set(in, "activation_checkpointing", "full");
    bench_set(in, "seq_len", "4096");
    bench_set(in, "micro_batch_size", "%d", 1 + k % 2);
}

static inline void setup_fsdp(bench_input *in, const llmmem_model *m, int k)
{
    static const char *const strat[] = {"full_shard", "shard_grad_op", "hybrid_shard", "no_shard"};
    (void)m;
    bench_set(in, "engine", "fsdp");
    bench_set(in, "num_gpus", "%d", 16 << (k % 3));
    bench_set(in, "sharding_strategy", "%s", strat[k % 4]);
    bench_set(in, "fsdp_cpu_offload", "%s", k % 5 == 2 ? "true" : "false");
    bench_set(in, "fsdp_version", "%d", 1 + (k / 2) % 2);
    bench_training_common(in, k);
}

/* Megatron: TP up to 8 (dividing the heads), PP up to 4 (dividing the layers,
 * interleaved on every third input), EP over the data-parallel ranks on MoE
 * models, sequence parallelism and the distributed optimizer on half. */
static inline void setup_megatron_layout(bench_input *in, const llmmem_model *m, int k, bool deepspeed)
{
    static const int64_t tps[] = {8, 4, 2, 1}, pps[] = {4, 2, 1};
    const int64_t heads = bench_model_i64(m, LLMMEM_M_NUM_HEADS);
    const int64_t kvh = bench_model_i64(m, LLMMEM_M_NUM_KV_HEADS);
    const int64_t layers = bench_model_i64(m, LLMMEM_M_NUM_LAYERS);
    const int64_t experts = bench_model_i64(m, LLMMEM_M_NUM_EXPERTS);
    const int64_t tp = bench_largest_divisor(tps + k % 2, heads, kvh);
    const int64_t pp = bench_largest_divisor(pps, layers, 0);
    const int64_t vpp = !deepspeed && pp > 1 && k % 3 == 0 && layers % (pp * 2) == 0 ? 2 : 1;
    const int64_t dp = 4;
    bench_set(in, "engine", deepspeed ? "megatron_deepspeed" : "megatron");
    bench_set(in, "num_gpus", "%lld", (long long)(tp * pp * dp));
    bench_set(in, "tensor_parallel_size", "%lld", (long long)tp);
    bench_set(in, "pipeline_parallel_size", "%lld", (long long)pp);
    bench_set(in, "virtual_pipeline_size", "%lld", (long long)vpp);
    bench_set(in, "sequence_parallel", "%s", tp > 1 && k % 2 == 0 ? "true" : "false");
    if (!deepspeed && experts > 0 && experts % dp == 0)
        bench_set(in, "expert_parallel_size", "%lld", (long long)dp);
    if (!deepspeed)
        bench_set(in, "distributed_optimizer", "%s", k % 2 ? "true" : "false");
    else
        bench_set(in, "zero_stage", "%d", pp > 1 ? k % 2 : k % 3);
    bench_training_common(in, k);
    bench_set(in, "gradient_accumulation_steps", "%lld", (long long)(pp * (1 + k % 2)));
}

static inline void setup_megatron(bench_input *in, const llmmem_model *m, int k)
{
    setup_megatron_layout(in, m, k, false);
}

static inline void setup_megatron_ds(bench_input *in, const llmmem_model *m, int k)
{
    setup_megatron_layout(in, m, k, true);
}

/* Inference: TP 1-8 (dividing the heads), HF generate (batch, prompt, decode)
 * or vLLM (max_model_len, max_num_seqs, KV cache dtype). */
static inline void setup_inference(bench_input *in, const llmmem_model *m, int k, bool vllm)
{
    static const int64_t tps[] = {8, 4, 2, 1};
    const int64_t heads = bench_model_i64(m, LLMMEM_M_NUM_HEADS);
    const int64_t kvh = bench_model_i64(m, LLMMEM_M_NUM_KV_HEADS);
    bench_set(in, "mode", "inference");
    bench_set(in, "tensor_parallel_size", "%lld", (long long)bench_largest_divisor(tps + k % 4, heads, kvh));
    if (vllm) {
        bench_set(in, "runtime", "vllm");
        bench_set(in, "max_model_len", "%d", 4096 << (k % 4));
        bench_set(in, "max_num_seqs", "%d", 64 << (k % 3));
        bench_set(in, "kv_cache_dtype", "%s", k % 2 ? "fp8" : "auto");
    } else {
        bench_set(in, "batch_size", "%d", 1 << (k % 6));
        bench_set(in, "prompt_len", "%d", 512 << (k % 5));
        bench_set(in, "decode_len", "%d", 128 << (k % 2));
    }
}

static inline void setup_hf(bench_input *in, const llmmem_model *m, int k) { setup_inference(in, m, k, false); }
/* The same with peak_reserved from the replay of the caching allocator. */
static inline void setup_single_replay(bench_input *in, const llmmem_model *m, int k)
{
    setup_single(in, m, k);
    bench_check(llmmem_config_set(in->cfg, "allocator_replay", "true"), "allocator_replay");
}
static inline void setup_hf_replay(bench_input *in, const llmmem_model *m, int k)
{
    setup_hf(in, m, k);
    bench_check(llmmem_config_set(in->cfg, "allocator_replay", "true"), "allocator_replay");
}
static inline void setup_vllm(bench_input *in, const llmmem_model *m, int k) { setup_inference(in, m, k, true); }

/* ---- config.json texts ------------------------------------------------------------- */

#define BENCH_MAX_TEXTS 16
#define BENCH_TEXT_MAX 8192

/* config.json texts held in memory, parsed in turn (llmmem_model_from_hf_json + free). */
typedef struct bench_texts {
    const char *name[BENCH_MAX_TEXTS];
    char text[BENCH_MAX_TEXTS][BENCH_TEXT_MAX];
    size_t len[BENCH_MAX_TEXTS];
    int n;
    size_t lo, hi; /* shortest, longest */
} bench_texts;

/* Adds the text just written to t->text[t->n]. */
static inline void bench_texts_add(bench_texts *t, const char *name, size_t len)
{
    t->name[t->n] = name;
    t->len[t->n++] = len;
    t->lo = t->n == 1 || len < t->lo ? len : t->lo;
    t->hi = len > t->hi ? len : t->hi;
}

static inline int bench_body_hf_json(void *ctx, long i)
{
    const bench_texts *t = ctx;
    llmmem_model *m = NULL;
    int rc = llmmem_model_from_hf_json(&m, t->text[i % t->n], t->len[i % t->n]);
    llmmem_model_free(m);
    return rc;
}

static inline const char *bench_name_text(void *ctx, long i)
{
    return ((const bench_texts *)ctx)->name[i];
}

static inline bench_case bench_texts_case(bench_texts *t)
{
    bench_case c = {"model_from_hf_json", bench_body_hf_json, bench_name_text, t, t->n};
    return c;
}

#endif /* LLMMEM_BENCH_WORKLOADS_H */
