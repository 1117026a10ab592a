/* Tests of the scenario loader and the framework-file appliers (src/input/scenario.c,
 * deepspeed.c, training_args.c, values.c).
 *
 * 1. Good inputs: scenario files copied from ../shared/groundtruth (test/data/scenarios),
 *    gpu-mem-calculator's README config, DeepSpeed and HF TrainingArguments files. Each
 *    expected value is read off the input file (or computed by hand from the rule the
 *    code cites, e.g. HF Trainer's reduce_bucket_size = hidden^2), not from the code.
 * 2. Bad inputs, data-driven (jansson style): test/data/invalid/<case>/input.json + expect
 *    ("entry", "status", "contains" lines); line:col counted from the input text.
 * 3. API misuse from C: NULL handles, wrong-typed setters, NaN/inf, unknown names.
 *
 * Runs from the repository root (make check does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "input/input.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SCEN "test/data/scenarios/"
#define INVALID "test/data/invalid"

/* ---- helpers ---------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static int64_t geti(const llmmem_config *c, int p)
{
    int64_t v = -12345;
    assert_int_equal(llmmem_config_get_i64(&v, c, p), 0);
    return v;
}

static double getf(const llmmem_config *c, int p)
{
    double v = -1;
    assert_int_equal(llmmem_config_get_f64(&v, c, p), 0);
    return v;
}

static void assert_str_param(const llmmem_config *c, int p, const char *want)
{
    char buf[256];
    size_t need = 0;
    assert_int_equal(llmmem_config_get_str(buf, sizeof buf, &need, c, p), 0);
    if (strcmp(buf, want) != 0)
        fail_msg("parameter %s: got \"%s\", want \"%s\"", llmmem_param_name(p), buf, want);
}

static void load(llmmem_model **m, llmmem_config **c, const char *path)
{
    int rc = llmmem_scenario_from_file(m, c, path);
    if (rc != 0)
        fail_msg("%s: %s: %s", path, llmmem_status_name(rc), llmmem_last_error());
}

/* ---- good scenario files ------------------------------------------------------------ */

/* t01: llama-3.2-1b, 4 x 1024, fp32 weights + bf16 autocast, AdamW, SDPA, no checkpointing. */
static void test_t01(void **state)
{
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    load(&m, &c, SCEN "t01.json");
    assert_non_null(m);
    assert_str_param(c, LLMMEM_P_MODE, "training");
    assert_int_equal(geti(c, LLMMEM_P_MICRO_BATCH_SIZE), 4);
    assert_int_equal(geti(c, LLMMEM_P_SEQ_LEN), 1024);
    assert_str_param(c, LLMMEM_P_PARAM_DTYPE, "fp32");
    assert_str_param(c, LLMMEM_P_COMPUTE_DTYPE, "bf16");
    assert_str_param(c, LLMMEM_P_OPTIMIZER, "adamw");
    assert_str_param(c, LLMMEM_P_ATTENTION, "sdpa");
    assert_str_param(c, LLMMEM_P_CHECKPOINTING, "none");
    assert_str_param(c, LLMMEM_P_ENGINE, "single");
    /* 139.8 GiB = 139.8 * 2^30 = 150,109,106,995.2 bytes, rounded */
    assert_int_equal(geti(c, LLMMEM_P_GPU_MEMORY_BYTES), INT64_C(150109106995));
    /* llama-3.2-1b config.json: hidden_size 2048, 16 layers */
    int64_t h = 0, l = 0;
    assert_int_equal(llmmem_model_get_i64(&h, m, LLMMEM_M_HIDDEN_SIZE), 0);
    assert_int_equal(llmmem_model_get_i64(&l, m, LLMMEM_M_NUM_LAYERS), 0);
    assert_int_equal(h, 2048);
    assert_int_equal(l, 16);
    llmmem_model_free(m);
    llmmem_config_free(c);
}

static void test_optimizer_spellings(void **state)
{
    llmmem_config *c = NULL;
    load(NULL, &c, SCEN "t17.json"); /* adamw_fused */
    assert_str_param(c, LLMMEM_P_OPTIMIZER, "adamw");
    assert_str_param(c, LLMMEM_P_OPTIMIZER_IMPL, "fused");
    llmmem_config_free(c);
    load(NULL, &c, SCEN "t15.json"); /* sgd_momentum */
    assert_str_param(c, LLMMEM_P_OPTIMIZER, "sgd_momentum");
    llmmem_config_free(c);
    load(NULL, &c, SCEN "t16.json"); /* adafactor */
    assert_str_param(c, LLMMEM_P_OPTIMIZER, "adafactor");
    llmmem_config_free(c);
    const char *js = "{\"training\": {\"optimizer\": \"adamw_foreach_off\"}}";
    assert_int_equal(llmmem_scenario_from_json(NULL, &c, js, strlen(js), NULL), 0);
    assert_str_param(c, LLMMEM_P_OPTIMIZER, "adamw");
    assert_str_param(c, LLMMEM_P_OPTIMIZER_IMPL, "forloop");
    llmmem_config_free(c);
}

static void test_gradient_accumulation_and_lora(void **state)
{
    llmmem_config *c = NULL;
    load(NULL, &c, SCEN "d01.json");
    assert_int_equal(geti(c, LLMMEM_P_GRAD_ACCUM_STEPS), 4);
    assert_str_param(c, LLMMEM_P_CHECKPOINTING, "full");
    llmmem_config_free(c);
    load(NULL, &c, SCEN "t07.json");
    assert_int_equal(geti(c, LLMMEM_P_LORA_RANK), 16);
    assert_true(getf(c, LLMMEM_P_LORA_ALPHA) == 32.0);
    assert_str_param(c, LLMMEM_P_LORA_TARGETS, "q_proj,k_proj,v_proj,o_proj");
    assert_str_param(c, LLMMEM_P_PARAM_DTYPE, "bf16");
    llmmem_config_free(c);
}

static void test_inference(void **state)
{
    llmmem_config *c = NULL;
    load(NULL, &c, SCEN "i01.json");
    assert_str_param(c, LLMMEM_P_MODE, "inference");
    assert_int_equal(geti(c, LLMMEM_P_BATCH_SIZE), 8);
    assert_int_equal(geti(c, LLMMEM_P_PROMPT_LEN), 2048);
    assert_int_equal(geti(c, LLMMEM_P_DECODE_LEN), 16);
    assert_str_param(c, LLMMEM_P_WEIGHTS_FORMAT, "bf16");
    assert_str_param(c, LLMMEM_P_KV_CACHE_DTYPE, "bf16");
    assert_str_param(c, LLMMEM_P_ATTENTION, "sdpa");
    llmmem_config_free(c);
}

static void test_engines(void **state)
{
    llmmem_config *c = NULL;
    load(NULL, &c, SCEN "x02.json"); /* DDP, gradient_as_bucket_view */
    assert_str_param(c, LLMMEM_P_ENGINE, "ddp");
    assert_true(getf(c, LLMMEM_P_BUCKET_CAP_MB) == 25.0);
    assert_int_equal(geti(c, LLMMEM_P_GRADIENT_AS_BUCKET_VIEW), 1);
    assert_int_equal(geti(c, LLMMEM_P_DATA_PARALLEL), 1);
    llmmem_config_free(c);
    load(NULL, &c, SCEN "x03.json"); /* FSDP2 FULL_SHARD, free-text wrap */
    assert_str_param(c, LLMMEM_P_ENGINE, "fsdp");
    assert_int_equal(geti(c, LLMMEM_P_FSDP_VERSION), 2);
    assert_str_param(c, LLMMEM_P_FSDP_SHARDING, "full_shard");
    llmmem_config_free(c);
}

/* gpu-mem-calculator's README "Configuration File Format", as is. */
static void test_gpu_mem_calculator_config(void **state)
{
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    load(&m, &c, SCEN "gpu-mem-calculator-llama2-7b-deepspeed.json");
    assert_str_param(c, LLMMEM_P_ENGINE, "zero");
    assert_int_equal(geti(c, LLMMEM_P_ZERO_STAGE), 3);
    assert_str_param(c, LLMMEM_P_OFFLOAD_OPTIMIZER, "cpu");
    assert_str_param(c, LLMMEM_P_OFFLOAD_PARAM, "none");
    assert_int_equal(geti(c, LLMMEM_P_MICRO_BATCH_SIZE), 4);   /* training.batch_size */
    assert_int_equal(geti(c, LLMMEM_P_GRAD_ACCUM_STEPS), 4);
    assert_str_param(c, LLMMEM_P_PARAM_DTYPE, "bf16");         /* training.dtype */
    assert_str_param(c, LLMMEM_P_COMPUTE_DTYPE, "bf16");
    assert_str_param(c, LLMMEM_P_CHECKPOINTING, "selective");  /* level 1 of 0..4 */
    assert_int_equal(geti(c, LLMMEM_P_SEQ_LEN), 4096);         /* model.max_seq_len */
    assert_int_equal(geti(c, LLMMEM_P_DATA_PARALLEL), 8);
    assert_int_equal(geti(c, LLMMEM_P_TENSOR_PARALLEL), 1);
    assert_int_equal(geti(c, LLMMEM_P_SEQUENCE_PARALLEL), 0);
    assert_int_equal(geti(c, LLMMEM_P_NUM_GPUS), 8);
    assert_int_equal(geti(c, LLMMEM_P_GPU_MEMORY_BYTES), INT64_C(80000000000)); /* 80 GB */
    int64_t layers = 0, hidden = 0, heads = 0, vocab = 0;
    assert_int_equal(llmmem_model_get_i64(&layers, m, LLMMEM_M_NUM_LAYERS), 0);
    assert_int_equal(llmmem_model_get_i64(&hidden, m, LLMMEM_M_HIDDEN_SIZE), 0);
    assert_int_equal(llmmem_model_get_i64(&heads, m, LLMMEM_M_NUM_HEADS), 0);
    assert_int_equal(llmmem_model_get_i64(&vocab, m, LLMMEM_M_VOCAB_SIZE), 0);
    assert_int_equal(layers, 32);
    assert_int_equal(hidden, 4096);
    assert_int_equal(heads, 32);
    assert_int_equal(vocab, 32000);
    llmmem_model_free(m);
    llmmem_config_free(c);
    /* the MoE variant with the other ModelConfig/GPUConfig keys */
    load(&m, &c, SCEN "gpu-mem-calculator-mixtral-moe.json");
    assert_str_param(c, LLMMEM_P_ENGINE, "megatron_deepspeed");
    assert_int_equal(geti(c, LLMMEM_P_ZERO_STAGE), 1);
    assert_str_param(c, LLMMEM_P_CHECKPOINTING, "full"); /* level 4 */
    assert_int_equal(geti(c, LLMMEM_P_TENSOR_PARALLEL), 2);
    assert_int_equal(geti(c, LLMMEM_P_SEQUENCE_PARALLEL), 1);
    int64_t experts = 0, topk = 0;
    assert_int_equal(llmmem_model_get_i64(&experts, m, LLMMEM_M_NUM_EXPERTS), 0);
    assert_int_equal(llmmem_model_get_i64(&topk, m, LLMMEM_M_EXPERTS_PER_TOKEN), 0);
    assert_int_equal(experts, 8);
    assert_int_equal(topk, 2);
    llmmem_model_free(m);
    llmmem_config_free(c);
}

/* Every record of the measured dev set loads as is: the tree's copies (test/data/groundtruth,
 * byte-identical to ../shared/groundtruth's; test_accuracy.sh compares them). A file that
 * cannot be read fails the test: it never passes without having run. */
static void test_groundtruth_records(void **state)
{
    static const char *const files[] = {"test/data/groundtruth/h200-dev.jsonl",
                                        "test/data/groundtruth/h200-engines-ws1.jsonl"};
    int loaded = 0;
    for (size_t f = 0; f < LLMMEM_ARRAY_LEN(files); f++) {
        char *text = slurp(files[f], NULL);
        if (!text)
            fail_msg("%s cannot be read (run from the repository root)", files[f]);
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            llmmem_model *m = NULL;
            llmmem_config *c = NULL;
            int rc = llmmem_scenario_from_json(&m, &c, line, strlen(line), "test/data/groundtruth");
            if (rc != 0)
                fail_msg("%.40s: %s", line, llmmem_last_error());
            llmmem_model_free(m);
            llmmem_config_free(c);
            loaded++;
        }
        free(text);
    }
    if (loaded == 0)
        fail_msg("no record read from test/data/groundtruth (run from the repository root)");
    assert_true(loaded >= 40);
}

static void test_mode_from_sections_and_engine_string(void **state)
{
    llmmem_config *c = NULL;
    const char *js = "{\"inference\": {\"batch_size\": 3}, \"engine\": \"zero3\","
                     " \"params\": {\"micro-batch-size\": 5}}";
    assert_int_equal(llmmem_scenario_from_json(NULL, &c, js, strlen(js), NULL), 0);
    assert_str_param(c, LLMMEM_P_MODE, "inference");
    assert_str_param(c, LLMMEM_P_ENGINE, "zero");
    assert_int_equal(geti(c, LLMMEM_P_ZERO_STAGE), 3);
    assert_int_equal(geti(c, LLMMEM_P_MICRO_BATCH_SIZE), 5);
    assert_int_equal(geti(c, LLMMEM_P_BATCH_SIZE), 3);
    llmmem_config_free(c);
}

/* ---- DeepSpeed and HF TrainingArguments ---------------------------------------------- */

static void apply_file(llmmem_config *c, const llmmem_model *m, const char *path, bool ds)
{
    size_t len = 0;
    char *text = slurp(path, &len);
    assert_non_null(text);
    int rc = ds ? llmmem_config_apply_deepspeed_json(c, m, text, len)
                : llmmem_config_apply_hf_training_args_json(c, text, len);
    free(text);
    if (rc != 0)
        fail_msg("%s: %s", path, llmmem_last_error());
}

static void test_deepspeed_auto(void **state)
{
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_model_from_hf_file(&m, SCEN "configs/dev/llama-3.2-1b.json"), 0);
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(llmmem_config_set(c, "micro_batch_size", "6"), 0);
    apply_file(c, m, SCEN "frameworks/ds_zero3_auto.json", true);
    assert_str_param(c, LLMMEM_P_ENGINE, "zero");
    assert_int_equal(geti(c, LLMMEM_P_ZERO_STAGE), 3);
    assert_str_param(c, LLMMEM_P_OFFLOAD_OPTIMIZER, "cpu");
    assert_str_param(c, LLMMEM_P_OFFLOAD_PARAM, "none");
    assert_str_param(c, LLMMEM_P_PARAM_DTYPE, "bf16");
    assert_int_equal(geti(c, LLMMEM_P_MASTER_WEIGHTS), 1);
    assert_str_param(c, LLMMEM_P_OPTIMIZER, "adamw");
    assert_str_param(c, LLMMEM_P_OVERLAP_COMM, "on");
    assert_int_equal(geti(c, LLMMEM_P_MICRO_BATCH_SIZE), 6); /* "auto": left as it was */
    /* HF Trainer with hidden_size 2048: h*h = 4,194,304; int(0.9*h*h) = 3,774,873;
     * 10*h = 20,480; stage3_max_live_parameters 1e9 as written */
    assert_int_equal(geti(c, LLMMEM_P_REDUCE_BUCKET_SIZE), 4194304);
    assert_int_equal(geti(c, LLMMEM_P_STAGE3_PREFETCH_BUCKET_SIZE), 3774873);
    assert_int_equal(geti(c, LLMMEM_P_STAGE3_PARAM_PERSISTENCE_THRESHOLD), 20480);
    assert_int_equal(geti(c, LLMMEM_P_STAGE3_MAX_LIVE_PARAMETERS), 1000000000);
    llmmem_config_free(c);

    /* without a model, "auto" sizes stay as they were */
    assert_int_equal(llmmem_config_new(&c), 0);
    int64_t before = geti(c, LLMMEM_P_REDUCE_BUCKET_SIZE);
    apply_file(c, NULL, SCEN "frameworks/ds_zero3_auto.json", true);
    assert_int_equal(geti(c, LLMMEM_P_REDUCE_BUCKET_SIZE), before);
    assert_int_equal(geti(c, LLMMEM_P_ZERO_STAGE), 3);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

static void test_deepspeed_zero2(void **state)
{
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    apply_file(c, NULL, SCEN "frameworks/ds_zero2.json", true);
    assert_int_equal(geti(c, LLMMEM_P_ZERO_STAGE), 2);
    assert_int_equal(geti(c, LLMMEM_P_MICRO_BATCH_SIZE), 8);
    assert_int_equal(geti(c, LLMMEM_P_GRAD_ACCUM_STEPS), 2);
    assert_str_param(c, LLMMEM_P_PARAM_DTYPE, "fp16");
    assert_int_equal(geti(c, LLMMEM_P_REDUCE_BUCKET_SIZE), 200000000);
    assert_int_equal(geti(c, LLMMEM_P_ALLGATHER_BUCKET_SIZE), 200000000);
    assert_str_param(c, LLMMEM_P_OVERLAP_COMM, "off");
    llmmem_config_free(c);
}

static void test_hf_training_args(void **state)
{
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    apply_file(c, NULL, SCEN "frameworks/hf_training_args.json", false);
    assert_int_equal(geti(c, LLMMEM_P_MICRO_BATCH_SIZE), 2);
    assert_int_equal(geti(c, LLMMEM_P_GRAD_ACCUM_STEPS), 8);
    assert_str_param(c, LLMMEM_P_COMPUTE_DTYPE, "bf16");
    assert_str_param(c, LLMMEM_P_CHECKPOINTING, "full");
    assert_str_param(c, LLMMEM_P_OPTIMIZER, "adamw");
    assert_str_param(c, LLMMEM_P_OPTIMIZER_IMPL, "fused");
    assert_true(getf(c, LLMMEM_P_BUCKET_CAP_MB) == 50.0);
    llmmem_config_free(c);

    /* LLaMA-Factory QLoRA: rank 16, alpha defaults to 2 * rank, lora_target all */
    assert_int_equal(llmmem_config_new(&c), 0);
    apply_file(c, NULL, SCEN "frameworks/llamafactory_qlora.json", false);
    assert_int_equal(geti(c, LLMMEM_P_LORA_RANK), 16);
    assert_true(getf(c, LLMMEM_P_LORA_ALPHA) == 32.0);
    assert_str_param(c, LLMMEM_P_LORA_TARGETS, "all-linear");
    assert_str_param(c, LLMMEM_P_QLORA, "nf4");
    assert_int_equal(geti(c, LLMMEM_P_SEQ_LEN), 2048);
    assert_str_param(c, LLMMEM_P_OPTIMIZER, "paged_adamw_8bit");
    assert_int_equal(geti(c, LLMMEM_P_MICRO_BATCH_SIZE), 1);
    llmmem_config_free(c);
}

/* A failed apply leaves the configuration as it was. */
static void test_failed_apply_leaves_config(void **state)
{
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    char before[8192], after[8192];
    size_t need;
    assert_int_equal(llmmem_config_to_json(before, sizeof before, &need, c), 0);
    const char *ds = "{\"train_micro_batch_size_per_gpu\": 9, \"zero_optimization\": {\"stage\": 9}}";
    assert_int_equal(llmmem_config_apply_deepspeed_json(c, NULL, ds, strlen(ds)),
                     LLMMEM_E_OUT_OF_RANGE);
    assert_int_equal(llmmem_config_to_json(after, sizeof after, &need, c), 0);
    assert_string_equal(before, after);
    const char *hf = "{\"per_device_train_batch_size\": 9, \"optim\": \"no_such_optim\"}";
    assert_int_equal(llmmem_config_apply_hf_training_args_json(c, hf, strlen(hf)),
                     LLMMEM_E_UNSUPPORTED);
    assert_int_equal(llmmem_config_to_json(after, sizeof after, &need, c), 0);
    assert_string_equal(before, after);
    llmmem_config_free(c);
}

/* ---- bad inputs as files --------------------------------------------------------------- */

typedef struct bad_case {
    char name[256];
    char dir[300];
} bad_case;

static void run_bad_case(void **state)
{
    const bad_case *bc = *state;
    char path[400];
    snprintf(path, sizeof path, "%s/expect", bc->dir);
    char *expect = slurp(path, NULL);
    if (!expect)
        fail_msg("%s: no expect file", bc->name);
    char entry[64] = "", status[64] = "";
    char *save = NULL;
    for (char *line = strtok_r(expect, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "entry ", 6) == 0)
            snprintf(entry, sizeof entry, "%s", line + 6);
        else if (strncmp(line, "status ", 7) == 0)
            snprintf(status, sizeof status, "%s", line + 7);
    }
    free(expect);
    snprintf(path, sizeof path, "%s/input.json", bc->dir);
    int rc;
    llmmem_clear_error();
    if (strcmp(entry, "estimate") == 0) { /* a scenario that loads, refused by the estimate */
        llmmem_model *m = NULL;
        llmmem_config *c = NULL;
        rc = llmmem_scenario_from_file(&m, &c, path);
        if (rc)
            fail_msg("%s: the scenario does not load: %s", bc->name, llmmem_last_error());
        llmmem_result *r = NULL;
        assert_int_equal(llmmem_result_new(&r), 0);
        rc = llmmem_estimate(r, m, c);
        llmmem_result_free(r);
        llmmem_model_free(m);
        llmmem_config_free(c);
    } else if (strcmp(entry, "scenario") == 0) {
        llmmem_model *m = (llmmem_model *)(uintptr_t)1; /* must stay untouched */
        llmmem_config *c = (llmmem_config *)(uintptr_t)1;
        rc = llmmem_scenario_from_file(&m, &c, path);
        assert_true(m == (llmmem_model *)(uintptr_t)1);
        assert_true(c == (llmmem_config *)(uintptr_t)1);
    } else {
        size_t len = 0;
        char *text = slurp(path, &len);
        assert_non_null(text);
        llmmem_config *c = NULL;
        assert_int_equal(llmmem_config_new(&c), 0);
        if (strcmp(entry, "deepspeed") == 0)
            rc = llmmem_config_apply_deepspeed_json(c, NULL, text, len);
        else if (strcmp(entry, "hf_args") == 0)
            rc = llmmem_config_apply_hf_training_args_json(c, text, len);
        else
            fail_msg("%s: unknown entry \"%s\"", bc->name, entry);
        llmmem_config_free(c);
        free(text);
    }
    if (strcmp(llmmem_status_name(rc), status) != 0)
        fail_msg("%s: status %s, want %s (%s)", bc->name, llmmem_status_name(rc), status,
                 llmmem_last_error());
    /* each "contains" fragment is in the error text */
    snprintf(path, sizeof path, "%s/expect", bc->dir);
    expect = slurp(path, NULL);
    for (char *line = strtok_r(expect, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "contains ", 9) != 0)
            continue;
        if (!strstr(llmmem_last_error(), line + 9)) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s: error \"%s\" lacks \"%s\"", bc->name, llmmem_last_error(),
                     line + 9);
            free(expect);
            fail_msg("%s", msg);
        }
    }
    free(expect);
}

/* The cases found under test/data/invalid (filled by main before the tests run). */
static const bad_case *found_cases;
static size_t nfound_cases;

/* 71 cases today (70 case() rows of make_cases.py and scenario_directory): the folder
 * may grow, never shrink or go missing unnoticed. Raise it when cases are added. */
#define MIN_INVALID_CASES 71

/* The name after `prefix` up to the next '"' on a line of make_cases.py, or NULL. */
static const char *case_name_after(char *line, const char *prefix)
{
    char *p = strstr(line, prefix);
    if (!p)
        return NULL;
    p += strlen(prefix);
    char *q = strchr(p, '"');
    if (!q)
        return NULL;
    *q = '\0';
    return p;
}

/* Every case make_cases.py writes (case("name", ...) and the directory case,
 * os.path.join(root, "name")) is a folder the loop below ran, and there are at
 * least MIN_INVALID_CASES: an empty or partly deleted folder fails here. */
static void test_invalid_cases_present(void **state)
{
    (void)state;
    if (nfound_cases < MIN_INVALID_CASES)
        fail_msg("%zu cases under %s, want at least %d", nfound_cases, INVALID, MIN_INVALID_CASES);
    char *gen = slurp(INVALID "/make_cases.py", NULL);
    assert_non_null(gen);
    size_t named = 0;
    char *save = NULL;
    for (char *line = strtok_r(gen, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        const char *name = strncmp(line, "case(\"", 6) == 0 ? case_name_after(line, "case(\"")
                                                            : case_name_after(line, "(root, \"");
        if (!name)
            continue;
        named++;
        size_t i = 0;
        while (i < nfound_cases && strcmp(found_cases[i].name, name) != 0)
            i++;
        if (i == nfound_cases) {
            char msg[300];
            snprintf(msg, sizeof msg, "case %s of make_cases.py has no folder under %s", name,
                     INVALID);
            free(gen);
            fail_msg("%s", msg);
        }
    }
    free(gen);
    if (named < MIN_INVALID_CASES)
        fail_msg("make_cases.py names %zu cases, want at least %d", named, MIN_INVALID_CASES);
}

static int cmp_case(const void *a, const void *b)
{
    return strcmp(((const bad_case *)a)->name, ((const bad_case *)b)->name);
}

/* ---- API misuse from C -------------------------------------------------------------------- */

/* Asking for the configuration alone gives the same verdict and values as
 * asking for both (fuzz finding 7: a string model.max_seq_len, a raw-model
 * value, was refused when the model was not read). */
static void test_config_only_agrees(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "{\"model\": {\"max_seq_len\": \"2k\", \"num_parameters\": \"1B\", \"num_layers\": 16}}",
        "{\"model\": {\"max_seq_len\": 2048, \"num_parameters\": \"1B\", \"num_layers\": 16},"
        " \"training\": {\"micro_batch_size\": 2}}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        llmmem_model *m = NULL;
        llmmem_config *both = NULL, *alone = NULL;
        assert_int_equal(llmmem_scenario_from_json(&m, &both, texts[i], strlen(texts[i]), NULL), 0);
        assert_int_equal(llmmem_scenario_from_json(NULL, &alone, texts[i], strlen(texts[i]), NULL), 0);
        char a[8192], b[8192];
        size_t need = 0;
        assert_int_equal(llmmem_config_to_json(a, sizeof a, &need, both), 0);
        assert_int_equal(llmmem_config_to_json(b, sizeof b, &need, alone), 0);
        assert_string_equal(a, b);
        llmmem_config_free(both);
        llmmem_config_free(alone);
        llmmem_model_free(m);
    }
    /* the model's text values are read by llmmem_parse_value: "2   " is no longer 2 */
    const char *spaced = "{\"model\": {\"max_seq_len\": \"2   \", \"num_parameters\": \"1B\"}}";
    llmmem_model *m = NULL;
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_scenario_from_json(&m, &c, spaced, strlen(spaced), NULL), LLMMEM_E_PARSE);
    assert_non_null(strstr(llmmem_last_error(), "model.max_seq_len"));
}

/* GPU names as people write them (llmmem_gpu_find): the driver's and PyTorch's names,
 * case and separators, families that name one GPU; a family of several is an error that
 * lists them, an unknown name suggests the nearest. */
static void test_gpu_names(void **state)
{
    (void)state;
    static const struct {
        const char *written, *want;
    } ok[] = {
        {"H200", "H200"},
        {"h200", "H200"},
        {"NVIDIA H200", "H200"},
        {"NVIDIA A100-SXM4-80GB", "A100-80GB"},
        {"NVIDIA A100-PCIE-40GB", "A100-40GB"},
        {"a100 80g", "A100-80GB"},
        {"a100_40gb", "A100-40GB"},
        {"NVIDIA H100 80GB HBM3", "H100-80GB"},
        {"NVIDIA H100 PCIe", "H100-PCIe"},
        {"h100 nvl", "H100-NVL-94GB"},
        {"Tesla T4", "T4"},
        {"Tesla V100-SXM2-16GB", "V100-16GB"},
        {"NVIDIA GeForce RTX 4090", "RTX-4090"},
        {"rtx3090", "RTX-3090"},
        {"NVIDIA RTX A6000", "A6000"},
        {"AMD Instinct MI300X", "MI300X"},
        {"gh200", "GH200-96GB"},
        {"NVIDIA RTX 6000 Ada Generation", "RTX-6000-Ada"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int g = -1;
        if (llmmem_gpu_find(&g, ok[i].written) != 0)
            fail_msg("\"%s\": %s", ok[i].written, llmmem_last_error());
        assert_string_equal(llmmem_gpu_name(g), ok[i].want);
    }
    int g = -1;
    assert_int_equal(llmmem_gpu_find(&g, "a100"), LLMMEM_E_INCONSISTENT);
    assert_non_null(strstr(llmmem_last_error(), "A100-40GB, A100-80GB"));
    assert_int_equal(llmmem_gpu_find(&g, "H100"), LLMMEM_E_INCONSISTENT);
    assert_non_null(strstr(llmmem_last_error(), "H100-80GB, H100-PCIe, H100-NVL-94GB"));
    /* H20 is its own GPU, not a prefix of H200; an unknown name gets the nearest */
    assert_int_equal(llmmem_gpu_find(&g, "h20"), 0);
    assert_string_equal(llmmem_gpu_name(g), "H20");
    g = -1;
    assert_int_equal(llmmem_gpu_find(&g, "H300"), LLMMEM_E_OUT_OF_RANGE);
    assert_non_null(strstr(llmmem_last_error(), "did you mean"));
    assert_int_equal(llmmem_gpu_find(&g, "Z9000"), LLMMEM_E_OUT_OF_RANGE);
    assert_null(strstr(llmmem_last_error(), "did you mean"));
    assert_int_equal(g, -1);

    /* the parameter takes the same names; a scenario too, where the memory given
     * settles an ambiguous family */
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(llmmem_config_set(c, "gpu", "nvidia a100-sxm4-80gb"), 0);
    char name[32];
    size_t need;
    assert_int_equal(llmmem_config_get_str(name, sizeof name, &need, c, LLMMEM_P_GPU), 0);
    assert_string_equal(name, "A100-80GB");
    assert_int_equal(llmmem_config_set(c, "gpu", "A100"), LLMMEM_E_INCONSISTENT);
    assert_int_equal(llmmem_config_set(c, "optimizer", "adamq"), LLMMEM_E_OUT_OF_RANGE);
    assert_non_null(strstr(llmmem_last_error(), "did you mean adamw?"));
    llmmem_config_free(c);
    const char *amb = "{\"model\": \"gpt2\", \"hardware\": {\"gpu\": \"A100\"}}";
    assert_int_equal(llmmem_scenario_from_json(NULL, &c, amb, strlen(amb), NULL),
                     LLMMEM_E_INCONSISTENT);
    assert_non_null(strstr(llmmem_last_error(), "hardware.gpu"));
    const char *with_mem =
        "{\"model\": \"gpt2\", \"hardware\": {\"gpu\": \"A100\", \"gpu_memory_gb\": 80}}";
    assert_int_equal(llmmem_scenario_from_json(NULL, &c, with_mem, strlen(with_mem), NULL), 0);
    llmmem_config_free(c);
}

static void test_api_misuse(void **state)
{
    llmmem_config *c = NULL;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    const char *js = "{}";
    struct {
        int rc, want;
        const char *fragment;
    } r[32];
    int n = 0;
#define CASE(call, st, frag)                                                                     \
    do {                                                                                         \
        r[n].rc = (call);                                                                        \
        r[n].want = (st);                                                                        \
        r[n].fragment = (frag);                                                                  \
        if (r[n].rc != r[n].want)                                                                \
            fail_msg("%s: got %s, want %s (%s)", #call, llmmem_status_name(r[n].rc),             \
                     llmmem_status_name(r[n].want), llmmem_last_error());                       \
        if (!strstr(llmmem_last_error(), frag))                                                  \
            fail_msg("%s: error \"%s\" lacks \"%s\"", #call, llmmem_last_error(), frag);         \
        n++;                                                                                     \
    } while (0)
    CASE(llmmem_scenario_from_json(&m, &c, NULL, 3, NULL), LLMMEM_E_INVALID_ARG, "NULL");
    CASE(llmmem_scenario_from_file(&m, &c, NULL), LLMMEM_E_INVALID_ARG, "NULL");
    CASE(llmmem_scenario_from_file(&m, &c, "test/data/no-such-scenario.json"), LLMMEM_E_IO,
         "no-such-scenario.json");
    CASE(llmmem_config_apply_deepspeed_json(NULL, NULL, js, 2), LLMMEM_E_INVALID_ARG, "NULL");
    CASE(llmmem_config_apply_deepspeed_json(c, NULL, NULL, 2), LLMMEM_E_INVALID_ARG, "NULL");
    CASE(llmmem_config_apply_hf_training_args_json(NULL, js, 2), LLMMEM_E_INVALID_ARG, "NULL");
    CASE(llmmem_config_set_i64(NULL, LLMMEM_P_SEQ_LEN, 4), LLMMEM_E_INVALID_ARG, "NULL");
    CASE(llmmem_config_set_i64(c, 12345, 4), LLMMEM_E_INVALID_ARG, "12345");
    CASE(llmmem_config_set_f64(c, LLMMEM_P_LORA_ALPHA, NAN), LLMMEM_E_OUT_OF_RANGE, "lora_alpha");
    CASE(llmmem_config_set_f64(c, LLMMEM_P_BUCKET_CAP_MB, INFINITY), LLMMEM_E_OUT_OF_RANGE,
         "bucket_cap_mb");
    CASE(llmmem_config_set_f64(c, LLMMEM_P_LORA_DROPOUT, -0.5), LLMMEM_E_OUT_OF_RANGE,
         "lora_dropout");
    CASE(llmmem_config_set_i64(c, LLMMEM_P_LORA_ALPHA, 16), LLMMEM_E_PARAM_TYPE, "lora_alpha");
    CASE(llmmem_config_set_f64(c, LLMMEM_P_MICRO_BATCH_SIZE, 2.0), LLMMEM_E_PARAM_TYPE,
         "micro_batch_size");
    CASE(llmmem_config_set_str(c, LLMMEM_P_SEQ_LEN, "512"), LLMMEM_E_PARAM_TYPE, "seq_len");
    CASE(llmmem_config_set_i64(c, LLMMEM_P_SEQ_LEN, -1), LLMMEM_E_OUT_OF_RANGE, "seq_len");
    CASE(llmmem_config_set_i64(c, LLMMEM_P_OPTIMIZER, 999), LLMMEM_E_OUT_OF_RANGE, "optimizer");
    CASE(llmmem_config_set_str(c, LLMMEM_P_OPTIMIZER, "adamq"), LLMMEM_E_OUT_OF_RANGE, "adamq");
    CASE(llmmem_config_set(c, "no_such_param", "1"), LLMMEM_E_UNKNOWN_PARAM, "no_such_param");
    CASE(llmmem_config_set(c, "micro_batch_size", "four"), LLMMEM_E_PARSE, "four");
    CASE(llmmem_param_from_name(NULL, "seq_len"), LLMMEM_E_INVALID_ARG, "NULL");
    CASE(llmmem_model_from_preset(&m, "no-such-model-7b"), LLMMEM_E_UNKNOWN_PARAM,
         "no-such-model-7b");
    CASE(llmmem_scenario_from_json(NULL, &c, "{\"training\": {\"seq_len\": -1}}", 29, NULL),
         LLMMEM_E_OUT_OF_RANGE, "scenario:1:26:");
#undef CASE
    assert_null(m);
    assert_true(n >= 20);
    llmmem_config_free(c);
}

/* ---- main ------------------------------------------------------------------------------------- */

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_t01),
        cmocka_unit_test(test_optimizer_spellings),
        cmocka_unit_test(test_gradient_accumulation_and_lora),
        cmocka_unit_test(test_inference),
        cmocka_unit_test(test_engines),
        cmocka_unit_test(test_gpu_mem_calculator_config),
        cmocka_unit_test(test_groundtruth_records),
        cmocka_unit_test(test_mode_from_sections_and_engine_string),
        cmocka_unit_test(test_deepspeed_auto),
        cmocka_unit_test(test_deepspeed_zero2),
        cmocka_unit_test(test_hf_training_args),
        cmocka_unit_test(test_failed_apply_leaves_config),
        cmocka_unit_test(test_gpu_names),
        cmocka_unit_test(test_api_misuse),
        cmocka_unit_test(test_config_only_agrees),
        cmocka_unit_test(test_invalid_cases_present),
    };
    size_t nfixed = sizeof fixed / sizeof fixed[0];

    /* one test per directory of test/data/invalid */
    bad_case *cases = calloc(256, sizeof *cases);
    size_t ncases = 0;
    DIR *d = opendir(INVALID);
    if (!d) {
        fprintf(stderr, "cannot open %s (run from the repository root)\n", INVALID);
        return 1;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (ncases == 256) {
            fprintf(stderr, "more than 256 cases under %s: raise the limit\n", INVALID);
            return 1;
        }
        char full[400];
        struct stat st;
        snprintf(full, sizeof full, "%s/%s", INVALID, e->d_name);
        if (stat(full, &st) != 0 || !S_ISDIR(st.st_mode))
            continue; /* make_cases.py */
        snprintf(cases[ncases].name, sizeof cases[ncases].name, "%s", e->d_name);
        snprintf(cases[ncases].dir, sizeof cases[ncases].dir, "%s/%s", INVALID, e->d_name);
        ncases++;
    }
    closedir(d);
    qsort(cases, ncases, sizeof *cases, cmp_case);
    found_cases = cases;
    nfound_cases = ncases;
    struct CMUnitTest *tests = calloc(nfixed + ncases, sizeof *tests);
    memcpy(tests, fixed, sizeof fixed);
    for (size_t i = 0; i < ncases; i++) {
        tests[nfixed + i].name = cases[i].name;
        tests[nfixed + i].test_func = run_bad_case;
        tests[nfixed + i].initial_state = &cases[i];
    }
    int rc = _cmocka_run_group_tests("scenario", tests, nfixed + ncases, NULL, NULL);
    free(tests);
    free(cases);
    return rc;
}
