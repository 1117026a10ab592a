/* llmmem_plan_advise: the changes to a configuration that make it fit, or give
 * the most headroom, each an exact estimate of the changed configuration
 * (issue 29 item 1). The candidates are the usual levers of the run's kind
 * (docs/planner.md "Advice"): activation checkpointing, a smaller micro-batch
 * with more accumulation steps (the global batch kept), ZeRO / FSDP over the
 * fewest GPUs that fit (llmmem_plan_min_gpus), CPU offload, tensor parallel,
 * 8-bit optimizers, LoRA / QLoRA and the longest sequence that fits
 * (largest_fitting); for serving the tensor-parallel size, the KV
 * cache dtype, max_model_len and the batch. Each is applied through the
 * parameter table (llmmem_config_set, the bounds and names every reader
 * uses) and estimated with the configured allocator setting: a candidate the
 * setter or the estimator refuses (an engine that cannot run it, a size that
 * does not divide the heads) is dropped, never shown, and so is one that needs
 * more memory than the run as given. Where the run does not fit, pairs of
 * changes are tried too (those that fit are kept; a pair holding a change that
 * fits alone is not). Ranked: those that fit first; then those that keep the
 * run (same model, numerics and workload) before those that change it; fewer
 * GPUs; less modelled step time per sequence (steptime.c); those that do not
 * fit by their total per GPU. */
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADVICE_MAX 32      /* suggestions kept */
#define CAND_MAX 24        /* single changes tried */
#define CHANGE_MAX 6       /* parameters one suggestion sets */
#define TEXT_MAX 256

/* One parameter a suggestion sets: its table name and the value as text. */
typedef struct change {
    const char *param;
    char value[40];
} change;

/* A candidate: what it does in words, whether it keeps the run, its settings. */
typedef struct cand {
    char what[TEXT_MAX];
    bool keeps; /* same model, numerics and workload (only memory and speed change) */
    bool paired; /* two changes (pair) */
    int n;
    change ch[CHANGE_MAX];
} cand;

typedef struct llmmem__advice_item {
    char what[TEXT_MAX];
    char flags[TEXT_MAX * 2];
    char key[TEXT_MAX * 2]; /* the settings sorted by name: one suggestion per set of them */
    bool keeps;
    double step_s, cost; /* modelled step time; that per sequence of the step */
    struct llmmem_config cfg;
    struct llmmem_result res;
} llmmem__advice_item;

struct llmmem_advice {
    bool done; /* llmmem_plan_advise succeeded on it */
    int count;
    int order[ADVICE_MAX];
    llmmem__advice_item item[ADVICE_MAX];
    struct llmmem_result base; /* the configuration as given */
    double base_step_s;
    int mode;
    /* scratch for a candidate being estimated */
    llmmem__advice_item scratch;
    cand cands[CAND_MAX], cands2[CAND_MAX];
};

int llmmem_advice_new(llmmem_advice **out)
{
    if (!out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_advice_new: out is NULL");
    struct llmmem_advice *a = calloc(1, sizeof *a);
    if (!a)
        return llmmem__error(LLMMEM_E_NOMEM, "llmmem_advice_new: out of memory");
    *out = a;
    return LLMMEM_OK;
}

void llmmem_advice_free(llmmem_advice *advice) { free(advice); }

static uint64_t u64(const struct llmmem_result *r, int key) { return r->v[key - LLMMEM_R_PARAMS].u; }
static int64_t i64(const struct llmmem_result *r, int key) { return r->v[key - LLMMEM_R_PARAMS].i; }

/* ---- candidates ------------------------------------------------------------------------- */

/* The candidates being collected: into arr[0 .. CAND_MAX). */
typedef struct cands {
    cand *arr;
    int n;
    bool shorter; /* a shorter sequence / context may be offered (the run does not fit) */
} cands;

static cand *add(cands *l, bool keeps, const char *what)
{
    if (l->n >= CAND_MAX)
        return NULL;
    cand *c = &l->arr[l->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->what, sizeof c->what, "%s", what);
    c->keeps = keeps;
    return c;
}

static void set(cand *c, const char *param, const char *fmt, long long v)
{
    if (!c || c->n >= CHANGE_MAX)
        return;
    c->ch[c->n].param = param;
    snprintf(c->ch[c->n].value, sizeof c->ch[0].value, fmt, v);
    c->n++;
}

static void set_s(cand *c, const char *param, const char *value)
{
    if (!c || c->n >= CHANGE_MAX)
        return;
    c->ch[c->n].param = param;
    snprintf(c->ch[c->n].value, sizeof c->ch[0].value, "%s", value);
    c->n++;
}

/* The GPUs of a data-parallel engine: llmmem_plan_min_gpus of the changed
 * configuration; 0 where no number of them fits. */
static int64_t gpus_for(const llmmem_model *m, const struct llmmem_config *c)
{
    int64_t n = 0;
    if (llmmem_plan_min_gpus(&n, m, c) != 0)
        n = 0;
    return n;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* dp data-parallel ranks, the global batch (micro-batch x accumulation x dp) kept where
 * it can be: the growth of the data-parallel size taken out of the accumulation steps,
 * then out of the micro-batch. Where it cannot, the text says the new global batch and
 * the suggestion changes the run. */
static void spread(cand *k, const struct llmmem_config *cfg, int64_t dp, int64_t gpus)
{
    if (!k)
        return;
    set(k, "data_parallel_size", "%lld", dp);
    if (cfg->num_gpus > 0)
        set(k, "num_gpus", "%lld", gpus);
    int64_t left = cfg->dp > 0 && dp % cfg->dp == 0 ? dp / cfg->dp : 0;
    int64_t ga = cfg->grad_accum_steps, mb = cfg->micro_batch_size;
    if (left > 1) {
        int64_t g = gcd64(ga, left);
        ga /= g;
        left /= g;
        g = gcd64(mb, left);
        mb /= g;
        left /= g;
    }
    size_t len = strlen(k->what);
    if (left == 1) {
        if (ga != cfg->grad_accum_steps)
            set(k, "gradient_accumulation_steps", "%lld", ga);
        if (mb != cfg->micro_batch_size)
            set(k, "micro_batch_size", "%lld", mb);
        snprintf(k->what + len, sizeof k->what - len, " (micro-batch %lld x %lld accumulation: the same global batch)",
                 (long long)mb, (long long)ga);
    } else {
        snprintf(k->what + len, sizeof k->what - len, " (global batch %lld sequences, was %lld)",
                 (long long)(cfg->micro_batch_size * cfg->grad_accum_steps * dp),
                 (long long)(cfg->micro_batch_size * cfg->grad_accum_steps * cfg->dp));
        k->keeps = false;
    }
}

/* A sharding engine on N GPUs: N from llmmem_plan_min_gpus on the engine's
 * configuration (not offered where no N fits, nor for one GPU). */
static void sharded(cands *l, const llmmem_model *m, const struct llmmem_config *cfg, int64_t engine,
                    int64_t stage)
{
    struct llmmem_config c = *cfg;
    if (llmmem_config_set_i64(&c, LLMMEM_P_ENGINE, engine) != 0 ||
        (engine == LLMMEM_ENGINE_ZERO && llmmem_config_set_i64(&c, LLMMEM_P_ZERO_STAGE, stage) != 0) ||
        (engine == LLMMEM_ENGINE_FSDP && llmmem_config_set_i64(&c, LLMMEM_P_FSDP_SHARDING, LLMMEM__FSDP_FULL_SHARD) != 0))
        return;
    const int64_t per = cfg->tp * cfg->pp * cfg->cp;
    const int64_t gpus = gpus_for(m, &c), dp = gpus / (per > 0 ? per : 1);
    if (dp <= 1)
        return;
    char what[TEXT_MAX];
    if (engine == LLMMEM_ENGINE_ZERO)
        snprintf(what, sizeof what, "DeepSpeed ZeRO-%lld over %lld GPUs", (long long)stage, (long long)gpus);
    else
        snprintf(what, sizeof what, "FSDP full_shard over %lld GPUs", (long long)gpus);
    cand *k = add(l, true, what);
    set_s(k, "engine", engine == LLMMEM_ENGINE_ZERO ? "zero" : "fsdp");
    if (engine == LLMMEM_ENGINE_ZERO)
        set(k, "zero_stage", "%lld", stage);
    else if (cfg->engine == LLMMEM_ENGINE_FSDP || llmmem__config_was_set(cfg, LLMMEM_P_FSDP_SHARDING))
        set_s(k, "sharding_strategy", "full_shard");
    spread(k, cfg, dp, gpus);
}

/* The largest value of integer parameter `param` in [1, hi] that fits: bisection on the fast
 * estimate (the allocator rule of thumb), then confirmed with the configured allocator
 * setting, stepping down by 1/16 at most 8 times; 0 when none was found. Cheaper than
 * llmmem_plan_inverse's check of every smaller value (hundreds of replays), which the
 * advice does not need: the suggestion is estimated again and shown with its verdict. */
static int64_t largest_fitting(const llmmem_model *m, const struct llmmem_config *cfg, int param, int64_t hi,
                               struct llmmem_result *r)
{
    struct llmmem_config c = *cfg;
    c.allocator_replay = 0;
    int64_t lo = 0, bad = hi + 1;
    while (bad - lo > 1) {
        const int64_t mid = lo + (bad - lo) / 2;
        if (llmmem_config_set_i64(&c, param, mid) == 0 && llmmem_estimate(r, m, &c) == 0 && i64(r, LLMMEM_R_FITS))
            lo = mid;
        else
            bad = mid;
    }
    c.allocator_replay = cfg->allocator_replay;
    for (int k = 0; k < 8 && lo > 0; k++) {
        if (llmmem_config_set_i64(&c, param, lo) == 0 && llmmem_estimate(r, m, &c) == 0 && i64(r, LLMMEM_R_FITS))
            return lo;
        lo -= lo / 16 > 0 ? lo / 16 : 1;
    }
    return 0;
}

static void training_cands(llmmem_advice *a, cands *l, const llmmem_model *m, const struct llmmem_config *cfg)
{
    char what[TEXT_MAX];
    cand *k;
    /* activation checkpointing: recompute in backward (torch.utils.checkpoint,
     * Megatron --recompute-granularity) */
    if (cfg->checkpointing == LLMMEM__CKPT_NONE) {
        set_s(add(l, true, "selective activation checkpointing (attention recomputed)"),
              "activation_checkpointing", "selective");
        set_s(add(l, true, "activation checkpointing of every layer"), "activation_checkpointing", "full");
    } else if (cfg->checkpointing != LLMMEM__CKPT_FULL) {
        set_s(add(l, true, "activation checkpointing of every layer"), "activation_checkpointing", "full");
    }
    /* a smaller micro-batch, more accumulation steps: the global batch kept */
    if (cfg->micro_batch_size > 1) {
        int64_t d[LLMMEM__PLAN_MAX_N_DIV];
        int nd = llmmem__plan_divisors(d, LLMMEM__PLAN_MAX_N_DIV, cfg->micro_batch_size);
        int64_t pick = 1;
        struct llmmem_result *r = &a->scratch.res;
        for (int i = nd - 2; i >= 0; i--) { /* the largest proper divisor that fits */
            struct llmmem_config c = *cfg;
            c.micro_batch_size = d[i];
            c.grad_accum_steps = cfg->grad_accum_steps * (cfg->micro_batch_size / d[i]);
            if (llmmem_estimate(r, m, &c) == 0 && i64(r, LLMMEM_R_FITS)) {
                pick = d[i];
                break;
            }
        }
        const int64_t ga = cfg->grad_accum_steps * (cfg->micro_batch_size / pick);
        snprintf(what, sizeof what, "micro-batch %lld with %lld accumulation steps (the same global batch)",
                 (long long)pick, (long long)ga);
        k = add(l, true, what);
        set(k, "micro_batch_size", "%lld", pick);
        set(k, "gradient_accumulation_steps", "%lld", ga);
    }
    /* ZeRO / FSDP over the fewest GPUs that fit */
    const bool data_parallel = cfg->engine == LLMMEM_ENGINE_SINGLE || cfg->engine == LLMMEM_ENGINE_DDP;
    if (data_parallel) {
        sharded(l, m, cfg, LLMMEM_ENGINE_ZERO, 2);
        sharded(l, m, cfg, LLMMEM_ENGINE_ZERO, 3);
        sharded(l, m, cfg, LLMMEM_ENGINE_FSDP, 0);
    } else if (cfg->engine == LLMMEM_ENGINE_ZERO && cfg->zero_stage < 3) {
        snprintf(what, sizeof what, "ZeRO stage 3 on the same %lld GPUs", (long long)(cfg->dp * cfg->tp * cfg->pp * cfg->cp));
        cand *z = add(l, true, what);
        set_s(z, "engine", "zero"); /* with the stage: a CLI's --engine zero2 says the stage too */
        set(z, "zero_stage", "%lld", 3);
    } else if (cfg->engine == LLMMEM_ENGINE_FSDP && cfg->fsdp_sharding != LLMMEM__FSDP_FULL_SHARD) {
        set_s(add(l, true, "FSDP full_shard on the same GPUs"), "sharding_strategy", "full_shard");
    }
    /* more GPUs of the same engine (data parallel shards ZeRO / FSDP state) */
    if (cfg->engine == LLMMEM_ENGINE_ZERO || cfg->engine == LLMMEM_ENGINE_FSDP) {
        const int64_t per = cfg->tp * cfg->pp * cfg->cp, gpus = gpus_for(m, cfg);
        const int64_t dp = gpus / (per > 0 ? per : 1);
        if (dp > cfg->dp) {
            snprintf(what, sizeof what, "%lld GPUs, data parallel %lld", (long long)gpus, (long long)dp);
            spread(add(l, true, what), cfg, dp, gpus);
        }
    }
    /* CPU offload: DeepSpeed offload_optimizer / offload_param (stage 3), FSDP CPUOffload */
    if (cfg->engine == LLMMEM_ENGINE_ZERO && cfg->offload_optimizer == LLMMEM__OFFLOAD_NONE)
        set_s(add(l, true, "optimizer state offloaded to CPU memory (DeepSpeed offload_optimizer)"),
              "offload_optimizer", "cpu");
    if (cfg->engine == LLMMEM_ENGINE_ZERO && cfg->zero_stage == 3 && cfg->offload_param == LLMMEM__OFFLOAD_NONE) {
        k = add(l, true, "parameters and optimizer state offloaded to CPU memory (DeepSpeed offload_param)");
        set_s(k, "offload_optimizer", "cpu");
        set_s(k, "offload_param", "cpu");
    }
    if (cfg->engine == LLMMEM_ENGINE_FSDP && !cfg->fsdp_cpu_offload)
        set_s(add(l, true, "FSDP CPU offload of parameters and gradients"), "fsdp_cpu_offload", "true");
    /* tensor parallel (Megatron): twice the size on the same GPUs */
    if ((cfg->engine == LLMMEM_ENGINE_MEGATRON || cfg->engine == LLMMEM_ENGINE_MEGATRON_DEEPSPEED) &&
        cfg->dp % 2 == 0) {
        snprintf(what, sizeof what, "tensor parallel %lld on the same GPUs (data parallel %lld)",
                 (long long)(cfg->tp * 2), (long long)(cfg->dp / 2));
        k = add(l, true, what);
        set(k, "tensor_parallel_size", "%lld", cfg->tp * 2);
        set(k, "data_parallel_size", "%lld", cfg->dp / 2);
    }
    /* 8-bit optimizers (bitsandbytes) in place of Adam / AdamW */
    if (cfg->optimizer == LLMMEM__OPT_ADAMW || cfg->optimizer == LLMMEM__OPT_ADAM) {
        const bool w = cfg->optimizer == LLMMEM__OPT_ADAMW;
        set_s(add(l, false, w ? "8-bit AdamW (bitsandbytes)" : "8-bit Adam (bitsandbytes)"), "optimizer",
              w ? "adamw_8bit" : "adam_8bit");
        set_s(add(l, false, w ? "paged 8-bit AdamW (bitsandbytes)" : "paged 8-bit Adam (bitsandbytes)"),
              "optimizer", w ? "paged_adamw_8bit" : "paged_adam_8bit");
    }
    /* LoRA / QLoRA (PEFT): the base frozen */
    if (cfg->lora_rank == 0) {
        set(add(l, false, "LoRA rank 16 (PEFT, the base model frozen)"), "lora_rank", "%lld", 16);
        k = add(l, false, "QLoRA: the base in 4-bit NF4 (bitsandbytes), LoRA rank 16");
        set(k, "lora_rank", "%lld", 16);
        set_s(k, "qlora", "nf4");
    } else if (cfg->qlora == LLMMEM__QLORA_NONE) {
        set_s(add(l, false, "QLoRA: the frozen base in 4-bit NF4 (bitsandbytes)"), "qlora", "nf4");
    }
    /* the longest sequence that fits (llmmem_plan_max_seq_len), to a multiple of 128; only
     * where the run does not fit as given */
    int64_t s = l->shorter && cfg->seq_len > 1
                    ? largest_fitting(m, cfg, LLMMEM_P_SEQ_LEN, cfg->seq_len - 1, &a->scratch.res)
                    : 0;
    if (s > 0) {
        const bool round = s >= 256;
        if (round)
            s -= s % 128;
        snprintf(what, sizeof what, "sequences of %lld tokens (near the longest that fits%s; llmmem plan "
                 "--max-seq-len finds the longest)", (long long)s, round ? ", to a multiple of 128" : "");
        set(add(l, false, what), "seq_len", "%lld", s);
    }
}

static void serving_cands(llmmem_advice *a, cands *l, const llmmem_model *m, const struct llmmem_config *cfg)
{
    char what[TEXT_MAX];
    const bool vllm = cfg->runtime == LLMMEM_RUNTIME_VLLM, lcpp = cfg->runtime == LLMMEM_RUNTIME_LLAMA_CPP;
    int64_t v = 0;
    if (lcpp) {
        /* llama.cpp: the most layers on the GPU that fit (llmmem_plan_max_gpu_layers) */
        if (llmmem_plan_max_gpu_layers(&v, m, cfg) == 0 && v >= 0 &&
            (cfg->n_gpu_layers < 0 || v < cfg->n_gpu_layers)) {
            snprintf(what, sizeof what, "%lld layers on the GPU (-ngl, the most that fit)", (long long)v);
            set(add(l, true, what), "n_gpu_layers", "%lld", v);
        }
        if (l->shorter && llmmem_plan_max_seq_len(&v, m, cfg) == 0 && v > 0) {
            if (v >= 256)
                v -= v % 128;
            snprintf(what, sizeof what, "a context of %lld tokens (--ctx-size, the longest that fits)", (long long)v);
            set(add(l, false, what), "ctx_size", "%lld", v);
        }
        return;
    }
    /* tensor parallel: the fewest GPUs that fit (llmmem_plan_min_gpus: divisors of the heads) */
    if (llmmem_plan_min_gpus(&v, m, cfg) == 0 && v > cfg->tp) {
        snprintf(what, sizeof what, "tensor parallel over %lld GPUs", (long long)v);
        cand *k = add(l, true, what);
        set(k, "tensor_parallel_size", "%lld", v);
        if (cfg->num_gpus > 0)
            set(k, "num_gpus", "%lld", v);
    }
    if (vllm) {
        if (cfg->gpu_memory_utilization < 0.95) {
            cand *k = add(l, true, "gpu_memory_utilization 0.95 (vLLM may take more of the GPU)");
            set_s(k, "gpu_memory_utilization", "0.95");
        }
        if (cfg->kv_cache_dtype != LLMMEM_DTYPE_FP8)
            set_s(add(l, false, "an fp8 KV cache (--kv-cache-dtype fp8)"), "kv_cache_dtype", "fp8");
        /* vLLM's own answer: the longest context one request can have (estimated_max_model_len) */
        v = i64(&a->base, LLMMEM_R_ESTIMATED_MAX_MODEL_LEN);
        if (l->shorter && v > 0) {
            if (v >= 256)
                v -= v % 128;
            snprintf(what, sizeof what, "max_model_len %lld (the longest context that fits)", (long long)v);
            set(add(l, false, what), "max_model_len", "%lld", v);
        }
        return;
    }
    /* HF generate: fewer sequences at once, bitsandbytes weights */
    v = l->shorter && cfg->batch_size > 1
            ? largest_fitting(m, cfg, LLMMEM_P_BATCH_SIZE, cfg->batch_size - 1, &a->scratch.res)
            : 0;
    if (v > 0) {
        snprintf(what, sizeof what, "batch of %lld sequences (the most that fit)", (long long)v);
        set(add(l, false, what), "batch_size", "%lld", v);
    }
    if (cfg->weights_format == 0 && m->quant_method == 0) { /* auto, a model not quantized */
        set_s(add(l, false, "8-bit weights (bitsandbytes load_in_8bit)"), "weights_format", "int8");
        set_s(add(l, false, "4-bit NF4 weights (bitsandbytes load_in_4bit)"), "weights_format", "nf4");
    }
}

/* ---- estimates and ranking ---------------------------------------------------------------- */

/* "--name value" for each change (the CLI's spelling: dashes). */
static void flags_of(char *dst, size_t cap, const change *ch, int n)
{
    size_t len = 0;
    dst[0] = '\0';
    for (int i = 0; i < n && len < cap; i++) {
        int w = snprintf(dst + len, cap - len, "%s--", i ? " " : "");
        len += w > 0 ? (size_t)w : 0;
        for (const char *p = ch[i].param; *p && len + 1 < cap; p++)
            dst[len++] = *p == '_' ? '-' : *p;
        if (len < cap)
            dst[len] = '\0';
        w = snprintf(dst + len, cap > len ? cap - len : 0, " %s", ch[i].value);
        len += w > 0 ? (size_t)w : 0;
    }
}

/* "name=value;" for each change, sorted by name. */
static void key_of(char *dst, size_t cap, const change *ch, int n)
{
    int idx[CHANGE_MAX];
    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (int i = 1; i < n; i++) /* insertion sort: at most CHANGE_MAX */
        for (int j = i; j > 0 && strcmp(ch[idx[j - 1]].param, ch[idx[j]].param) > 0; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    llmmem__buf b = {dst, cap, 0};
    for (int i = 0; i < n; i++)
        llmmem__buf_printf(&b, "%s=%s;", ch[idx[i]].param, ch[idx[i]].value);
    if (!n && cap)
        dst[0] = '\0';
    (void)llmmem__buf_finish(&b, NULL);
}

/* Whether a comes before b: fits; keeps the run; fewer GPUs; less step time per
 * sequence (the planner's model); else (neither fits) less memory per GPU. */
static bool before(const llmmem__advice_item *a, const llmmem__advice_item *b)
{
    const int64_t fa = i64(&a->res, LLMMEM_R_FITS), fb = i64(&b->res, LLMMEM_R_FITS);
    if (fa != fb)
        return fa > fb;
    if (fa && a->keeps != b->keeps)
        return a->keeps;
    const int64_t ga = i64(&a->res, LLMMEM_R_NUM_GPUS), gb = i64(&b->res, LLMMEM_R_NUM_GPUS);
    if (fa && ga != gb)
        return ga < gb;
    if (fa && a->cost != b->cost)
        return a->cost < b->cost;
    return u64(&a->res, LLMMEM_R_TOTAL_BYTES_PER_GPU) < u64(&b->res, LLMMEM_R_TOTAL_BYTES_PER_GPU);
}

/* Whether every setting of key `small` is one of key `big` ("name=value;" lists). */
static bool contains(const char *big, const char *small)
{
    for (const char *p = small; *p;) {
        const char *e = strchr(p, ';');
        if (!e)
            break;
        bool found = false;
        const size_t n = (size_t)(e - p) + 1;
        for (const char *q = big; *q && !found; q = strchr(q, ';') ? strchr(q, ';') + 1 : q + strlen(q))
            found = !strncmp(q, p, n);
        if (!found)
            return false;
        p = e + 1;
    }
    return true;
}

/* A bitsandbytes optimizer stepping FSDP's CPU-offloaded parameters: bitsandbytes 0.50.2 runs
 * it with its CPU kernels (backends/cpu/ops.py _optimizer_update_8bit_blockwise_cpu: fp32
 * copies of each state on the host; a paged one falls back to CPU state, optim/optimizer.py
 * get_state_buffer), earlier releases only on CUDA tensors; the estimate models neither
 * (a paged optimizer's state stays counted in managed_bytes). Never suggested. DeepSpeed
 * offload_optimizer with one is refused by the library itself (zero.c zero_check). */
static bool framework_refuses(const struct llmmem_config *c)
{
    const int64_t o = c->optimizer;
    const bool bnb = o == LLMMEM__OPT_ADAMW_8BIT || o == LLMMEM__OPT_PAGED_ADAMW_8BIT ||
                     o == LLMMEM__OPT_ADAM_8BIT || o == LLMMEM__OPT_PAGED_ADAM_8BIT ||
                     o == LLMMEM__OPT_PAGED_ADAMW_32BIT;
    return bnb && c->fsdp_cpu_offload;
}

/* Applies the changes to a copy of cfg and estimates it; keeps it, ranked, when the
 * library accepts it and it needs less than the configuration as given. */
static int try_changes(llmmem_advice *a, const llmmem_model *m, const struct llmmem_config *cfg, const cand *k,
                       bool only_fitting)
{
    const change *ch = k->ch;
    const int n = k->n;
    llmmem__advice_item *it = &a->scratch;
    it->cfg = *cfg;
    for (int i = 0; i < n; i++)
        if (llmmem_config_set(&it->cfg, ch[i].param, ch[i].value) != 0)
            return LLMMEM_OK; /* the parameter table refuses it: not a suggestion */
    if (framework_refuses(&it->cfg) && !framework_refuses(cfg))
        return LLMMEM_OK;
    int rc = llmmem_estimate(&it->res, m, &it->cfg);
    if (rc == LLMMEM_E_NOMEM)
        return rc;
    if (rc)
        return LLMMEM_OK; /* the estimator refuses it (unsupported, inconsistent) */
    if (u64(&it->res, LLMMEM_R_TOTAL_BYTES_PER_GPU) >= u64(&a->base, LLMMEM_R_TOTAL_BYTES_PER_GPU) &&
        !(i64(&it->res, LLMMEM_R_FITS) && !i64(&a->base, LLMMEM_R_FITS)))
        return LLMMEM_OK; /* no help */
    if (only_fitting && !i64(&it->res, LLMMEM_R_FITS))
        return LLMMEM_OK;
    snprintf(it->what, sizeof it->what, "%s", k->what);
    flags_of(it->flags, sizeof it->flags, ch, n);
    key_of(it->key, sizeof it->key, ch, n);
    for (int i = 0; i < a->count; i++) /* the same settings twice (x then y, y then x), or
                                          * more settings than one that fits already */
        if (!strcmp(a->item[i].key, it->key) ||
            (k->paired && i64(&a->item[i].res, LLMMEM_R_FITS) && contains(it->key, a->item[i].key)))
            return LLMMEM_OK;
    it->keeps = k->keeps;
    llmmem__steptime t;
    llmmem__plan_step_time(&t, m, &it->cfg, i64(&it->res, LLMMEM_R_TRAINABLE_PARAMS));
    it->step_s = t.total_s;
    const struct llmmem_config *c = &it->cfg;
    const double seqs = c->mode == LLMMEM__MODE_INFERENCE
                            ? (double)c->batch_size
                            : (double)c->micro_batch_size * (double)c->grad_accum_steps * (double)c->dp;
    it->cost = seqs > 0 ? t.total_s / seqs : t.total_s;
    int pos = 0;
    while (pos < a->count && !before(it, &a->item[a->order[pos]]))
        pos++;
    if (pos >= ADVICE_MAX)
        return LLMMEM_OK;
    int s = a->count < ADVICE_MAX ? a->count++ : a->order[ADVICE_MAX - 1];
    memmove(&a->order[pos + 1], &a->order[pos], (size_t)(a->count - 1 - pos) * sizeof a->order[0]);
    a->order[pos] = s;
    a->item[s] = *it;
    return LLMMEM_OK;
}

/* x then y as one candidate: y was found on the configuration x makes, so where both set
 * a parameter y's value is the one (x's micro-batch, then y's data-parallel size dividing
 * the accumulation steps again). */
static bool pair(cand *out, const cand *x, const cand *y)
{
    *out = *x;
    for (int j = 0; j < y->n; j++) {
        int i = 0;
        while (i < out->n && strcmp(out->ch[i].param, y->ch[j].param))
            i++;
        if (i == out->n) {
            if (out->n >= CHANGE_MAX)
                return false;
            out->n++;
        }
        out->ch[i] = y->ch[j];
    }
    snprintf(out->what, sizeof out->what, "%.120s, and %.120s", x->what, y->what);
    out->keeps = x->keeps && y->keeps;
    out->paired = true;
    return true;
}

static void collect(llmmem_advice *a, cands *l, const llmmem_model *m, const struct llmmem_config *cfg)
{
    if (cfg->mode == LLMMEM__MODE_INFERENCE)
        serving_cands(a, l, m, cfg);
    else
        training_cands(a, l, m, cfg);
}

static int advise(llmmem_advice *a, const llmmem_model *model, const llmmem_config *cfg);

int llmmem_plan_advise(llmmem_advice *advice, const llmmem_model *model, const llmmem_config *cfg)
{
    if (!advice || !model || !cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_plan_advise: %s is NULL",
                             !advice ? "advice" : !model ? "model" : "config");
    llmmem_advice *a = advice;
    a->count = 0;
    a->done = false;
    int rc = advise(a, model, cfg);
    if (rc)
        a->count = 0;
    else
        a->done = true;
    return rc;
}

static int advise(llmmem_advice *a, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = llmmem_estimate(&a->base, model, cfg);
    if (rc)
        return rc;
    a->mode = (int)cfg->mode;
    llmmem__steptime t;
    llmmem__plan_step_time(&t, model, cfg, i64(&a->base, LLMMEM_R_TRAINABLE_PARAMS));
    a->base_step_s = t.total_s;
    cands one = {a->cands, 0, !i64(&a->base, LLMMEM_R_FITS)};
    collect(a, &one, model, cfg);
    for (int i = 0; i < one.n; i++)
        if ((rc = try_changes(a, model, cfg, &one.arr[i], false)) != 0)
            return rc;
    if (i64(&a->base, LLMMEM_R_FITS))
        return LLMMEM_OK;
    /* a run that does not fit: each change that does not fit alone, then the changes of
     * the configuration it makes (their GPU counts and micro-batches found again there) */
    for (int i = 0; i < one.n; i++) {
        struct llmmem_config c = *cfg;
        bool ok = true;
        for (int k = 0; k < one.arr[i].n && ok; k++)
            ok = llmmem_config_set(&c, one.arr[i].ch[k].param, one.arr[i].ch[k].value) == 0;
        if (!ok || llmmem_estimate(&a->scratch.res, model, &c) != 0 || i64(&a->scratch.res, LLMMEM_R_FITS))
            continue; /* refused, or it fits alone */
        /* the longest sequence is searched again after checkpointing only (a search is
         * hundreds of estimates): the pair a long-context run needs */
        cands two = {a->cands2, 0, !strcmp(one.arr[i].ch[0].param, "activation_checkpointing")};
        collect(a, &two, model, &c);
        for (int j = 0; j < two.n; j++) {
            cand p;
            if (pair(&p, &one.arr[i], &two.arr[j]) && (rc = try_changes(a, model, cfg, &p, true)) != 0)
                return rc;
        }
    }
    return LLMMEM_OK;
}

/* ---- reading the advice ------------------------------------------------------------------- */

int llmmem_advice_count(const llmmem_advice *advice) { return advice ? advice->count : 0; }

static const llmmem__advice_item *item_at(const llmmem_advice *a, int index)
{
    return a && index >= 0 && index < a->count ? &a->item[a->order[index]] : NULL;
}

const char *llmmem_advice_change(const llmmem_advice *advice, int index)
{
    const llmmem__advice_item *it = item_at(advice, index);
    return it ? it->what : NULL;
}

const char *llmmem_advice_flags(const llmmem_advice *advice, int index)
{
    const llmmem__advice_item *it = item_at(advice, index);
    return it ? it->flags : NULL;
}

int llmmem_advice_keeps_run(const llmmem_advice *advice, int index)
{
    const llmmem__advice_item *it = item_at(advice, index);
    if (!it)
        return llmmem__error(!advice ? LLMMEM_E_INVALID_ARG : LLMMEM_E_OUT_OF_RANGE,
                             "llmmem_advice_keeps_run: suggestion %d of %d", index, advice ? advice->count : 0);
    return it->keeps ? 1 : 0;
}

int llmmem_advice_config(llmmem_config **out, const llmmem_advice *advice, int index)
{
    const llmmem__advice_item *it = item_at(advice, index);
    if (!out || !it)
        return llmmem__error(!out || !advice ? LLMMEM_E_INVALID_ARG : LLMMEM_E_OUT_OF_RANGE,
                             "llmmem_advice_config: suggestion %d of %d", index, advice ? advice->count : 0);
    return llmmem_config_clone(out, &it->cfg);
}

int llmmem_advice_result(llmmem_result *out, const llmmem_advice *advice, int index)
{
    if (!out || !advice)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_advice_result: %s is NULL", !out ? "out" : "advice");
    if (index == -1) {
        if (!advice->done)
            return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "llmmem_advice_result: the advice has not run "
                                                        "(llmmem_plan_advise)");
        *out = advice->base;
        return LLMMEM_OK;
    }
    const llmmem__advice_item *it = item_at(advice, index);
    if (!it)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "llmmem_advice_result: suggestion %d of %d", index,
                             advice->count);
    *out = it->res;
    return LLMMEM_OK;
}

static void json_estimate(llmmem__buf *b, const struct llmmem_result *r, double step_s)
{
    llmmem__buf_printf(b,
                       "\"fits\":%s,\"total_bytes_per_gpu\":%llu,\"peak_allocated_bytes\":%llu,"
                       "\"gpu_memory_bytes\":%llu,\"headroom_bytes\":%lld,\"num_gpus\":%lld,"
                       "\"approximate\":%s,\"step_time_s\":",
                       i64(r, LLMMEM_R_FITS) ? "true" : "false",
                       (unsigned long long)u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU),
                       (unsigned long long)u64(r, LLMMEM_R_PEAK_ALLOCATED_BYTES),
                       (unsigned long long)u64(r, LLMMEM_R_GPU_MEMORY_BYTES), (long long)i64(r, LLMMEM_R_HEADROOM_BYTES),
                       (long long)i64(r, LLMMEM_R_NUM_GPUS), i64(r, LLMMEM_R_APPROXIMATE) ? "true" : "false");
    llmmem__buf_f64(b, step_s);
}

int llmmem_advice_to_json(char *buf, size_t cap, size_t *needed, const llmmem_advice *advice)
{
    if (!advice || (!buf && cap > 0))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_advice_to_json: %s is NULL", !advice ? "advice" : "buf");
    llmmem__buf b = {buf, cap, 0};
    if (!advice->done) { /* a handle llmmem_plan_advise has not filled: nothing to say */
        llmmem__buf_printf(&b, "{\"mode\":null,\"as_configured\":null,\"suggestions\":[]}");
        return llmmem__buf_finish(&b, needed);
    }
    llmmem__buf_printf(&b, "{\"mode\":\"%s\",\"as_configured\":{",
                       llmmem_param_enum_name(LLMMEM_P_MODE, advice->mode));
    json_estimate(&b, &advice->base, advice->base_step_s);
    llmmem__buf_printf(&b, "},\"suggestions\":[");
    for (int i = 0; i < advice->count; i++) {
        const llmmem__advice_item *it = &advice->item[advice->order[i]];
        llmmem__buf_printf(&b, "%s{\"rank\":%d,\"change\":", i ? "," : "", i + 1);
        llmmem__buf_json_string(&b, it->what);
        llmmem__buf_printf(&b, ",\"flags\":");
        llmmem__buf_json_string(&b, it->flags);
        llmmem__buf_printf(&b, ",\"keeps_run\":%s,", it->keeps ? "true" : "false");
        json_estimate(&b, &it->res, it->step_s);
        llmmem__buf_printf(&b, "}");
    }
    llmmem__buf_printf(&b, "]}");
    return llmmem__buf_finish(&b, needed);
}
