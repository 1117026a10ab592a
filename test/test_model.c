/* Tests of the model side: HF config parsing, exact parameter counts, presets,
 * raw models, bad inputs. Expected counts come from test/data/params.tsv
 * (published counts of formulas.md 1.3 and the H200 measurements of
 * h200-dev.jsonl) or are computed by hand in the comments; none is copied from
 * the code's output. Runs from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "input/input.h"
#include "model/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA "test/data/"

static void assert_error_has(const char *fragment)
{
    const char *e = llmmem_last_error();
    if (!strstr(e, fragment))
        fail_msg("error \"%s\" lacks \"%s\"", e, fragment);
}

static llmmem_model *from_text(const char *json)
{
    llmmem_model *m = NULL;
    int rc = llmmem_model_from_hf_json(&m, json, strlen(json));
    if (rc)
        fail_msg("parse failed (%d): %s", rc, llmmem_last_error());
    return m;
}

static void bad_text(const char *json, int status, const char *frag1, const char *frag2)
{
    llmmem_model *m = (llmmem_model *)1;
    int rc = llmmem_model_from_hf_json(&m, json, strlen(json));
    if (rc != status)
        fail_msg("status %d, wanted %d (%s)", rc, status, llmmem_last_error());
    assert_ptr_equal(m, (llmmem_model *)1); /* unchanged on error */
    assert_error_has(frag1);
    if (frag2)
        assert_error_has(frag2);
}

/* ---- data-driven: params.tsv ---------------------------------------------- */

typedef struct row {
    char path[256];
    long long params;
} row;

static int read_table(row *rows, int cap)
{
    FILE *f = fopen(DATA "params.tsv", "r");
    assert_non_null(f);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f) && n < cap) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%255[^\t]\t%lld", rows[n].path, &rows[n].params) == 2)
            n++;
    }
    fclose(f);
    return n;
}

static void test_params_table(void **state)
{
    (void)state;
    row rows[128];
    int n = read_table(rows, 128);
    assert_true(n >= 53); /* 45 published + 8 measured */
    int dev = 0;
    for (int i = 0; i < n; i++) {
        char path[300];
        snprintf(path, sizeof path, DATA "configs/%s", rows[i].path);
        llmmem_model *m = NULL;
        int rc = llmmem_model_from_hf_file(&m, path);
        if (rc)
            fail_msg("%s: %s", path, llmmem_last_error());
        int64_t p = 0;
        assert_int_equal(llmmem_model_get_i64(&p, m, LLMMEM_M_PARAMS), 0);
        if (p != rows[i].params)
            fail_msg("%s: %lld parameters, expected %lld", path, (long long)p, rows[i].params);
        /* the components add up to the total */
        int64_t sum = m->params_embedding + m->params_attention + m->params_mlp +
                      m->params_router + m->params_norm + m->params_head + m->vision_params;
        assert_int_equal(sum, p);
        assert_true(m->params_active > 0 && m->params_active <= p);
        assert_true(m->largest_module_params > 0 && m->largest_module_params < p);
        assert_true(m->layer_linear_params > 0);
        dev += strncmp(rows[i].path, "dev/", 4) == 0;
        llmmem_model_free(m);
    }
    assert_int_equal(dev, 8);
}

/* Every dev config of the H200 set is in the table. */
static void test_dev_configs_listed(void **state)
{
    (void)state;
    static const char *const dev[] = {"gemma-2b", "gpt2-medium", "llama-2-7b", "llama-3.2-1b",
                                      "mistral-7b", "mixtral-mini", "phi-2", "qwen2.5-0.5b"};
    row rows[128];
    int n = read_table(rows, 128);
    for (size_t d = 0; d < LLMMEM_ARRAY_LEN(dev); d++) {
        char want[64];
        snprintf(want, sizeof want, "dev/%s.json", dev[d]);
        bool found = false;
        for (int i = 0; i < n; i++)
            found |= strcmp(rows[i].path, want) == 0;
        if (!found)
            fail_msg("%s missing from params.tsv", want);
    }
}

/* ---- presets ------------------------------------------------------------------ */

static void test_presets(void **state)
{
    (void)state;
    row rows[128];
    int n = read_table(rows, 128);
    int count = llmmem_preset_count(), matched = 0;
    assert_true(count >= 45);
    assert_null(llmmem_preset_name(count));
    assert_null(llmmem_preset_name(-1));
    for (int i = 0; i < count; i++) {
        const char *name = llmmem_preset_name(i);
        assert_non_null(name);
        assert_non_null(llmmem_preset_description(i));
        llmmem_model *m = NULL;
        if (llmmem_model_from_preset(&m, name))
            fail_msg("preset %s: %s", name, llmmem_last_error());
        assert_true(m->params > 0);
        assert_string_equal(m->name, name);
        assert_int_equal(llmmem__model_validate(m), 0);
        char want[128];
        snprintf(want, sizeof want, "published/%s.json", name);
        for (int r = 0; r < n; r++) {
            if (strcmp(rows[r].path, want) == 0) {
                if (m->params != rows[r].params)
                    fail_msg("preset %s: %lld, published %lld", name, (long long)m->params,
                             rows[r].params);
                matched++;
            }
        }
        llmmem_model_free(m);
    }
    assert_true(matched >= 40);
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "llama-9"), LLMMEM_E_UNKNOWN_PARAM);
    assert_error_has("llama-9");
    assert_int_equal(llmmem_model_from_preset(&m, "LLAMA-3.1-8B"), 0); /* case-insensitive */
    llmmem_model_free(m);
}

/* Published counts not in formulas.md (model cards / papers): OPT-1.3B 1,315,758,080
 * (Zhang et al. 2022 sizes, HF num_parameters), Pythia-6.9B 6,857,302,016 (Pythia paper
 * Table 1 non-embedding 6,444,163,072 + 2 x 50432 x 4096), OLMoE-1B-7B 6,919,161,856. */
/* llmmem_architecture_*: every name once; decoders are registry entries, multimodal
 * names composites or wrappers, and a refused one is refused by the reader with its
 * reason; indices out of range are NULL / LLMMEM_E_INVALID_ARG. */
/* An approximate model says so in the model (LLMMEM_M_APPROXIMATE) and in every
 * result (LLMMEM_R_APPROXIMATE, a note beginning "approximate:" that names why), whatever
 * the engine or runtime; a counted family, a preset and a raw model given its shape are not. */
static int64_t result_approximate(const llmmem_model *m, const char *engine, const char *mode, const char *why)
{
    llmmem_config *c = NULL;
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(llmmem_result_new(&r), 0);
    assert_int_equal(llmmem_config_set(c, "mode", mode), 0);
    assert_int_equal(llmmem_config_set(c, "engine", engine), 0);
    if (!strcmp(engine, "zero"))
        assert_int_equal(llmmem_config_set(c, "zero_stage", "3"), 0);
    if (llmmem_estimate(r, m, c))
        fail_msg("%s %s: %s", engine, mode, llmmem_last_error());
    int64_t v = -1;
    assert_int_equal(llmmem_result_get_i64(&v, r, LLMMEM_R_APPROXIMATE), 0);
    int said = 0;
    for (int i = 0; i < llmmem_result_note_count(r); i++)
        said += !strncmp(llmmem_result_note(r, i), "approximate: ", 13) && strstr(llmmem_result_note(r, i), why);
    if (said != (v ? 1 : 0))
        fail_msg("%s %s: approximate = %lld with %d notes naming \"%s\"", engine, mode, (long long)v, said, why);
    char json[16384];
    size_t need;
    assert_int_equal(llmmem_result_to_json(json, sizeof json, &need, r), 0);
    assert_non_null(strstr(json, v ? "\"approximate\": true" : "\"approximate\": false"));
    llmmem_result_free(r);
    llmmem_config_free(c);
    return v;
}

static void test_approximate(void **state)
{
    (void)state;
    static const char *const engines[] = {"single", "ddp", "zero", "fsdp", "megatron", "megatron_deepspeed"};
    llmmem_model *unknown = from_text("{\"model_type\": \"foobar\", \"hidden_size\": 1024, "
                                      "\"num_hidden_layers\": 4, \"num_attention_heads\": 8, "
                                      "\"intermediate_size\": 4096, \"vocab_size\": 32000}");
    llmmem_model *counted = from_text("{\"model_type\": \"llama\", \"hidden_size\": 1024, "
                                      "\"num_hidden_layers\": 4, \"num_attention_heads\": 8, "
                                      "\"intermediate_size\": 4096, \"vocab_size\": 32000}");
    llmmem_model *sized = NULL, *shaped = NULL, *preset = NULL;
    assert_int_equal(llmmem_model_new(&sized), 0);
    assert_int_equal(llmmem_model_set(sized, "num_parameters", "1B"), 0);
    assert_int_equal(llmmem_model_new(&shaped), 0);
    assert_int_equal(llmmem_model_set(shaped, "num_layers", "4"), 0);
    assert_int_equal(llmmem_model_set(shaped, "hidden_size", "1024"), 0);
    assert_int_equal(llmmem_model_set(shaped, "num_heads", "8"), 0);
    assert_int_equal(llmmem_model_from_preset(&preset, "llama-3.2-1b"), 0);
    const struct {
        const llmmem_model *m;
        int64_t want;
        const char *why;
    } cases[] = {{unknown, 1, "\"foobar\" is not in the registry"},
                 {sized, 1, "num_parameters = 1000000000 alone"},
                 {counted, 0, ""},
                 {shaped, 0, ""},
                 {preset, 0, ""}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = -1;
        assert_int_equal(llmmem_model_get_i64(&v, cases[i].m, LLMMEM_M_APPROXIMATE), 0);
        assert_int_equal(v, cases[i].want);
        for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++)
            assert_int_equal(result_approximate(cases[i].m, engines[e], "training", cases[i].why), cases[i].want);
        assert_int_equal(result_approximate(cases[i].m, "single", "inference", cases[i].why), cases[i].want);
    }
    /* read only */
    assert_int_equal(llmmem_model_set_i64(shaped, LLMMEM_M_APPROXIMATE, 0), LLMMEM_E_INVALID_ARG);
    llmmem_model_free(unknown);
    llmmem_model_free(counted);
    llmmem_model_free(sized);
    llmmem_model_free(shaped);
    llmmem_model_free(preset);
}

/* The families the reference harness (issue 24) finds more than 5% off, the term not
 * yet found (memory/peak.c harness_gaps): approximate in the mode the harness measured
 * them in, over the transformers model code only (not Megatron's own model); a family
 * with no such gap (llama, above and here) stays exact. */
static void test_harness_gaps(void **state)
{
    (void)state;
    const struct {
        const char *config;
        const char *engine, *mode;
        int64_t want;
        const char *why;
    } cases[] = {
        {"mpt", "single", "training", 1, "for mpt training; the term that differs is not yet found"},
        {"mpt", "fsdp", "training", 1, "for mpt training"},
        {"mpt", "single", "inference", 1, "peaks 38.1% above this estimate at prefill"},
        {"mpt", "megatron", "training", 0, ""},
        {"gpt_neox_japanese", "single", "training", 1, "for gpt_neox_japanese training"},
        {"gpt_neox_japanese", "single", "inference", 1, "for gpt_neox_japanese inference"},
        {"gpt_oss", "zero", "training", 1, "for gpt_oss training"},
        {"gpt_oss", "single", "inference", 1, "for gpt_oss inference"},
        {"mixtral", "ddp", "training", 1, "for mixtral training"},
        {"mixtral", "single", "inference", 0, ""},
        {"olmoe", "single", "training", 1, "for olmoe training"},
        {"olmoe", "single", "inference", 0, ""},
        {"gptj", "single", "training", 1, "for gptj training"},
        {"gptj", "single", "inference", 1, "for gptj inference"},
        {"codegen", "single", "training", 1, "for codegen training"},
        {"codegen", "single", "inference", 1, "peaks 9.7% above this estimate at prefill"},
        {"cohere", "single", "training", 1, "for cohere training"},
        {"cohere", "single", "inference", 0, ""},
        {"deepseek_v3", "single", "training", 1, "136,503,296 adapter parameters"},
        {"diffllama", "single", "training", 1, "with eager attention"},
        {"llama", "single", "training", 0, ""},
        {"llama", "single", "inference", 0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[160];
        snprintf(path, sizeof path, "test/data/reference/configs/matrix/%s.json", cases[i].config);
        llmmem_model *m = NULL;
        if (llmmem_model_from_hf_file(&m, path))
            fail_msg("%s: %s", path, llmmem_last_error());
        if (result_approximate(m, cases[i].engine, cases[i].mode, cases[i].why) != cases[i].want)
            fail_msg("%s %s %s: approximate should be %lld", cases[i].config, cases[i].engine, cases[i].mode,
                     (long long)cases[i].want);
        llmmem_model_free(m);
    }
}

static void test_architectures(void **state)
{
    (void)state;
    int n = llmmem_architecture_count(), per_kind[3] = {0, 0, 0};
    assert_true(n > 200);
    assert_null(llmmem_architecture_name(n));
    assert_null(llmmem_architecture_name(-1));
    assert_int_equal(llmmem_architecture_kind(n), LLMMEM_E_INVALID_ARG);
    assert_error_has("out of range");
    for (int i = 0; i < n; i++) {
        const char *name = llmmem_architecture_name(i);
        int kind = llmmem_architecture_kind(i);
        assert_non_null(name);
        assert_in_range(kind, LLMMEM_ARCH_DECODER, LLMMEM_ARCH_REFUSED);
        per_kind[kind]++;
        for (int j = 0; j < i; j++)
            if (!strcmp(name, llmmem_architecture_name(j)))
                fail_msg("model_type %s listed twice", name);
        if (kind == LLMMEM_ARCH_DECODER && !llmmem__arch_find(name))
            fail_msg("decoder %s is not a registry entry", name);
        if (kind == LLMMEM_ARCH_REFUSED) {
            char json[128];
            snprintf(json, sizeof json, "{\"model_type\": \"%s\", \"hidden_size\": 64}", name);
            bad_text(json, LLMMEM_E_UNSUPPORTED, name, "is out of scope (");
        }
    }
    assert_true(per_kind[LLMMEM_ARCH_DECODER] > 100 && per_kind[LLMMEM_ARCH_MULTIMODAL] >= 9 &&
                per_kind[LLMMEM_ARCH_REFUSED] > 50);
    /* internal entries are not model_types */
    for (int i = 0; i < n; i++)
        if (!strcmp(llmmem_architecture_name(i), "raw") || !strcmp(llmmem_architecture_name(i), "generic"))
            fail_msg("internal entry %s listed", llmmem_architecture_name(i));
}

static void test_presets_other_published(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        long long params;
    } t[] = {{"opt-1.3b", 1315758080LL}, {"pythia-6.9b", 6857302016LL}, {"olmoe-1b-7b", 6919161856LL}};
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(t); i++) {
        llmmem_model *m = NULL;
        assert_int_equal(llmmem_model_from_preset(&m, t[i].name), 0);
        if (m->params != t[i].params)
            fail_msg("%s: %lld vs %lld", t[i].name, (long long)m->params, t[i].params);
        llmmem_model_free(m);
    }
}

/* ---- architecture details -------------------------------------------------------- */

static void test_moe_active(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "mixtral-8x7b"), 0);
    /* total - L (E - k) 3 h f = 46,702,792,704 - 32*6*3*4096*14336 */
    assert_int_equal(m->params_active, 46702792704LL - 32LL * 6 * 3 * 4096 * 14336);
    /* routed experts: 32 layers x 8 x 3 h f; router 32 x 8 x 4096 */
    assert_int_equal(m->params_experts, 32LL * 8 * 3 * 4096 * 14336);
    assert_int_equal(m->params_router, 32LL * 8 * 4096);
    /* largest module: one layer's fused experts (8 x 3 x 4096 x 14336) */
    assert_int_equal(m->largest_module_params, 8LL * 3 * 4096 * 14336);
    assert_int_equal(m->num_moe_layers, 32);
    llmmem_model_free(m);

    /* DeepSeek-V3: 58 MoE layers; e_score_correction_bias is a buffer (not counted) */
    assert_int_equal(llmmem_model_from_preset(&m, "deepseek-v3"), 0);
    assert_int_equal(m->num_moe_layers, 58);
    assert_int_equal(m->params, 671026404352LL);
    assert_int_equal(m->quant_method, LLMMEM__Q_FP8_BLOCK);
    llmmem_model_free(m);

    /* gpt-oss: MXFP4 storage, alternating sliding window (12 of 24 layers) */
    assert_int_equal(llmmem_model_from_preset(&m, "gpt-oss-20b"), 0);
    assert_int_equal(m->quant_method, LLMMEM__Q_MXFP4);
    assert_int_equal(m->num_sliding_layers, 12);
    assert_int_equal(m->sliding_window, 128);
    assert_int_equal(m->act, LLMMEM__ACT_SWIGLU_OAI);
    llmmem_model_free(m);
}

static void test_arch_fields(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_hf_file(&m, DATA "configs/dev/phi-2.json"), 0);
    assert_int_equal(m->family, LLMMEM__FAM_PHI);
    assert_true(m->parallel_block);
    assert_int_equal(m->norms_per_layer, 1);
    assert_int_equal(m->norm, LLMMEM__NORM_LAYER);
    assert_int_equal(m->act, LLMMEM__ACT_GELU_NEW);
    assert_true(m->partial_rotary_factor == 0.4);
    llmmem_model_free(m);

    assert_int_equal(llmmem_model_from_hf_file(&m, DATA "configs/dev/gpt2-medium.json"), 0);
    assert_true(m->attention_dropout == 0.1 && m->hidden_dropout == 0.1 &&
                m->embedding_dropout == 0.1);
    assert_true(m->tie_embeddings);
    assert_int_equal(m->intermediate_size, 4 * 1024); /* n_inner null -> 4h */
    llmmem_model_free(m);

    assert_int_equal(llmmem_model_from_hf_file(&m, DATA "configs/dev/mistral-7b.json"), 0);
    assert_int_equal(m->sliding_window, 4096);
    assert_int_equal(m->num_sliding_layers, 32);
    llmmem_model_free(m);

    /* qwen2.5 dev config: use_sliding_window false, layer_types all full */
    assert_int_equal(llmmem_model_from_hf_file(&m, DATA "configs/dev/qwen2.5-0.5b.json"), 0);
    assert_int_equal(m->sliding_window, 0);
    assert_int_equal(m->num_sliding_layers, 0);
    assert_true(m->attention_bias && !m->o_bias);
    llmmem_model_free(m);

    /* gemma-3-1b: every 6th layer global: 26 - 4 = 22 sliding */
    assert_int_equal(llmmem_model_from_preset(&m, "gemma-3-1b"), 0);
    assert_int_equal(m->num_sliding_layers, 22);
    assert_int_equal(m->norms_per_layer, 4);
    assert_true(m->qk_norm);
    llmmem_model_free(m);

    /* dtype, GPTQ quantization */
    m = from_text("{\"model_type\": \"llama\", \"dtype\": \"bfloat16\", \"quantization_config\": "
                  "{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 128}}");
    assert_int_equal(m->torch_dtype, LLMMEM__DT_BF16);
    assert_int_equal(m->quant_method, LLMMEM__Q_GPTQ);
    assert_int_equal(m->quant_bits, 4);
    assert_int_equal(m->quant_group_size, 128);
    /* all defaults of LlamaConfig = Llama-2-7B shape with 2048 positions */
    assert_int_equal(m->params, 6738415616LL);
    llmmem_model_free(m);

    m = from_text("{\"model_type\": \"mistral\", \"torch_dtype\": \"float16\", \"quantization_config\": "
                  "{\"quant_method\": \"bitsandbytes\", \"load_in_4bit\": true, "
                  "\"bnb_4bit_quant_type\": \"nf4\", \"bnb_4bit_use_double_quant\": true}}");
    assert_int_equal(m->torch_dtype, LLMMEM__DT_FP16);
    assert_int_equal(m->quant_method, LLMMEM__Q_NF4_DQ);
    /* MistralConfig defaults: Mistral-7B shape, sliding_window 4096 */
    assert_int_equal(m->params, 7241732096LL);
    assert_int_equal(m->sliding_window, 4096);
    llmmem_model_free(m);
}

/* An unknown model_type with the generic keys: llama-like estimate with a note. */
static void test_generic(void **state)
{
    (void)state;
    llmmem_model *m = from_text("{\"model_type\": \"yi\", \"hidden_size\": 4096, "
                                "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, "
                                "\"vocab_size\": 32000, \"intermediate_size\": 11008, "
                                "\"tie_word_embeddings\": false}");
    assert_true(m->generic);
    assert_int_equal(m->params, 6738415616LL); /* = Llama-2-7B */
    llmmem_model_free(m);
    /* Without the key an unknown type ties (PretrainedConfig's default, which
     * to_json_string leaves out): Llama-2-7B less one 32000 x 4096 head. */
    m = from_text("{\"model_type\": \"yi\", \"hidden_size\": 4096, \"num_hidden_layers\": 32, "
                  "\"num_attention_heads\": 32, \"vocab_size\": 32000, \"intermediate_size\": 11008}");
    assert_int_equal(m->params, 6738415616LL - 32000LL * 4096);
    assert_true(llmmem_model_note_count(m) >= 1);
    assert_non_null(strstr(llmmem_model_note(m, 0), "\"yi\""));
    assert_null(llmmem_model_note(m, 99));
    llmmem_model_free(m);
}

/* ---- every registry entry ----------------------------------------------------------- */

static int64_t tensor_sum(const llmmem__tensors *ts)
{
    int64_t n = 0;
    for (int i = 0; i < ts->n; i++)
        n += ts->t[i].rows * ts->t[i].cols * ts->t[i].count;
    return n;
}

/* Every family, tower and composite of the registry counts from its defaults
 * alone (a config naming only the model_type; a composite with every tower
 * present), with expressions that evaluate, and its count is its tensors: the
 * text model's plus the towers' and projectors' (vision_params). The exact
 * values are held against transformers by test_families.sh. */
static void test_registry_entries(void **state)
{
    (void)state;
    char json[512];
    for (int i = 0; i < llmmem__arch_count(); i++) {
        const llmmem__arch *f = llmmem__arch_at(i);
        if (!strcmp(f->type, "raw") || !strcmp(f->type, "generic"))
            continue;
        snprintf(json, sizeof json, "{\"model_type\": \"%s\"}", f->type);
        int required = -1; /* a quantity its configuration class has no default for (dots1's experts) */
        for (int q = 0; q < f->nq && required < 0; q++)
            if (f->q[q].keys && !f->q[q].def)
                required = q;
        if (required >= 0) {
            bad_text(json, LLMMEM_E_SCHEMA, f->q[required].keys, "is required");
            continue;
        }
        llmmem_model *m = from_text(json);
        if (m->params != tensor_sum(&m->tensors) + m->vision_params)
            fail_msg("%s: params %lld, tensors %lld", f->type, (long long)m->params,
                     (long long)tensor_sum(&m->tensors));
        assert_false(m->generic);
        llmmem_model_free(m);
    }
    for (int i = 0; i < llmmem__composite_count(); i++) {
        const llmmem__composite *c = llmmem__composite_at(i);
        if (!llmmem__arch_find(c->text_type))
            continue; /* its text family is not in this registry (yet) */
        int n = snprintf(json, sizeof json, "{\"model_type\": \"%s\"", c->type);
        for (int p = 0; p < LLMMEM__MAX_PARTS && c->parts[p].key; p++)
            n += snprintf(json + n, sizeof json - (size_t)n, ", \"%s\": {}", c->parts[p].key);
        snprintf(json + n, sizeof json - (size_t)n, "}");
        llmmem_model *m = from_text(json);
        assert_ptr_equal(m->mm.comp, c);
        for (int p = 0; p < LLMMEM__MAX_PARTS; p++)
            if (c->parts[p].key && !m->mm.tower[p])
                fail_msg("%s: no %s tower", c->type, c->parts[p].name);
        /* the towers: in params, or (AutoModelForCausalLM builds the text model:
         * c->causal_lm_text) apart in tower_params */
        const int64_t towers = m->vision_params + m->tower_params;
        assert_true(towers > 0);
        assert_true(c->causal_lm_text ? m->vision_params == 0 : m->tower_params == 0);
        if (towers != tensor_sum(&m->mm.tensors) || m->params != tensor_sum(&m->tensors) + m->vision_params)
            fail_msg("%s: params %lld, vision %lld, vision tensors %lld", c->type, (long long)m->params,
                     (long long)m->vision_params, (long long)tensor_sum(&m->mm.tensors));
        llmmem_model_free(m);
    }
    for (int i = 0; i < llmmem__tower_count(); i++)
        assert_non_null(llmmem__tower_find(llmmem__tower_at(i)->type));
}

/* ---- bad inputs ---------------------------------------------------------------------- */

static void test_bad_inputs(void **state)
{
    (void)state;
    bad_text("{\"model_type\": \"llama\", \"hidden_size\": 4096", LLMMEM_E_PARSE, "config.json:1:",
             "end of input");
    bad_text("", LLMMEM_E_PARSE, "config.json:1:1", "empty");
    bad_text("{\n  \"model_type\": \"llama\",\n  \"num_hidden_layers\": \"abc\"\n}", LLMMEM_E_SCHEMA,
             "config.json:3:24: \"num_hidden_layers\"", "got \"abc\"");
    bad_text("{\"model_type\": \"llama\", \"num_hidden_layers\": -4}", LLMMEM_E_OUT_OF_RANGE,
             "\"num_hidden_layers\": expected an integer in [1, 100000], got -4", "1:46");
    bad_text("{\"model_type\": \"llama\", \"hidden_size\": 0}", LLMMEM_E_OUT_OF_RANGE,
             "\"hidden_size\"", "got 0");
    bad_text("{\"model_type\": \"llama\", \"num_hidden_layers\": 1e12}", LLMMEM_E_OUT_OF_RANGE,
             "num_hidden_layers", "1e12");
    bad_text("{\"model_type\": \"llama\", \"num_attention_heads\": 2.5}", LLMMEM_E_SCHEMA,
             "num_attention_heads", "got 2.5");
    bad_text("{\"model_type\": \"llama\", \"tie_word_embeddings\": \"yes\"}", LLMMEM_E_SCHEMA,
             "\"tie_word_embeddings\": expected true or false", "1:48");
    bad_text("{\"model_type\": \"llama\", \"num_attention_heads\": 32, \"num_key_value_heads\": 5}",
             LLMMEM_E_INCONSISTENT, "\"num_key_value_heads\": 5 does not divide num_attention_heads 32", "1:75");
    bad_text("{\"model_type\": \"hyena\", \"d_state\": 16}", LLMMEM_E_UNSUPPORTED,
             "\"hyena\" is not a supported architecture", "config.json:1:16");
    /* the hybrid families' lists and "auto" values */
    bad_text("{\"model_type\": \"nemotron_h\", \"hybrid_override_pattern\": \"M*X\"}", LLMMEM_E_UNSUPPORTED,
             "layer 2 is \"X\": not a layer kind of nemotron_h", "1:57");
    bad_text("{\"model_type\": \"nemotron_h\", \"hybrid_override_pattern\": 7}", LLMMEM_E_SCHEMA,
             "\"hybrid_override_pattern\": expected an array or a string", "1:57");
    bad_text("{\"model_type\": \"mamba\", \"time_step_rank\": \"fast\"}", LLMMEM_E_SCHEMA,
             "\"time_step_rank\": expected an integer", "1:43");
    bad_text("{\"model_type\": \"hrm_text\", \"L_bp_cycles\": [1, \"2\"]}", LLMMEM_E_SCHEMA,
             "\"L_bp_cycles\": expected an integer", "1:47");
    bad_text("{\"model_type\": \"bamba\", \"attn_layer_indices\": \"0\"}", LLMMEM_E_SCHEMA,
             "expected an array of layer indices", "1:47");
    bad_text("{\"model_type\": \"recurrent_gemma\", \"block_types\": []}", LLMMEM_E_INCONSISTENT,
             "\"block_types\": is empty", "1:50");
    bad_text("{\"model_type\": \"newthing\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
             "\"num_attention_heads\": 2}",
             LLMMEM_E_UNSUPPORTED, "lacks \"vocab_size\"", NULL);
    bad_text("[1, 2]", LLMMEM_E_SCHEMA, "must be a JSON object", NULL);
    bad_text("{\"model_type\": 7}", LLMMEM_E_SCHEMA, "\"model_type\": expected a string", NULL);
    bad_text("{\"hidden_size\": 64}", LLMMEM_E_SCHEMA, "\"model_type\": missing required key",
             NULL);
    bad_text("{\"model_type\": \"mixtral\", \"num_local_experts\": 4, \"num_experts_per_tok\": 6}",
             LLMMEM_E_INCONSISTENT, "num_experts_per_tok", "6 experts per token");
    bad_text("{\"model_type\": \"llava\", \"vision_config\": {\"model_type\": \"siglip_vision_model\"}}",
             LLMMEM_E_UNSUPPORTED, "siglip_vision_model", NULL);
    /* composites and per-layer values */
    bad_text("{\"model_type\": \"gemma3\", \"vision_config\": {\"model_type\": \"clip_vision_model\"}}",
             LLMMEM_E_UNSUPPORTED, "\"vision_config.model_type\": \"clip_vision_model\": no such vision tower",
             "1:58");
    bad_text("{\"model_type\": \"gemma3\", \"vision_config\": {\"hidden_size\": \"wide\"}}", LLMMEM_E_SCHEMA,
             "\"vision_config.hidden_size\"", "got \"wide\"");
    bad_text("{\"model_type\": \"gemma4\", \"text_config\": [1]}", LLMMEM_E_SCHEMA,
             "\"text_config\": expected an object", NULL);
    bad_text("{\"model_type\": \"gemma3n_text\", \"num_hidden_layers\": 3, \"intermediate_size\": [8, 8]}",
             LLMMEM_E_INCONSISTENT, "\"intermediate_size\": has 2 entries but num_hidden_layers is 3", NULL);
    bad_text("{\"model_type\": \"gemma3n_text\", \"intermediate_size\": [8, \"x\"]}", LLMMEM_E_SCHEMA,
             "intermediate_size", "got \"x\"");
    bad_text("{\"model_type\": \"gemma4_text\", \"num_hidden_layers\": 2, \"per_layer_config\": {\"2\": {}}}",
             LLMMEM_E_SCHEMA, "\"per_layer_config\": key \"2\" is not a layer index in [0, 2)", NULL);
    bad_text("{\"model_type\": \"gemma4_text\", \"per_layer_config\": {\"0\": {\"skip\": [\"mlp\"]}}}",
             LLMMEM_E_UNSUPPORTED, "\"per_layer_config.0.skip\"", "does not describe \"skip\" layer by layer");
    bad_text("{\"model_type\": \"gemma4_text\", \"per_layer_config\": {\"0\": {\"hidden_size\": 64}}}",
             LLMMEM_E_UNSUPPORTED, "does not describe \"hidden_size\" layer by layer", NULL);
    /* nine distinct MLP widths: more layer shapes than a model keeps */
    bad_text("{\"model_type\": \"gemma3n_text\", \"num_hidden_layers\": 9, \"num_kv_shared_layers\": 0, "
             "\"intermediate_size\": [1, 2, 3, 4, 5, 6, 7, 8, 9]}",
             LLMMEM_E_UNSUPPORTED, "layer 8 makes more than 8 distinct layer shapes", NULL);

    llmmem_model *m = (llmmem_model *)1;
    assert_int_equal(llmmem_model_from_hf_file(&m, DATA "configs"), LLMMEM_E_IO);
    assert_error_has("directory");
    assert_int_equal(llmmem_model_from_hf_file(&m, DATA "configs/nope.json"), LLMMEM_E_IO);
    assert_error_has("configs/nope.json");
    assert_ptr_equal(m, (llmmem_model *)1);
    assert_int_equal(llmmem_model_from_hf_file(NULL, "x"), LLMMEM_E_INVALID_ARG);
}

/* ---- registry rules used by the dense/MoE families a-g (fam_dense1.c) ------------------- */

/* The recurrent state's dtype and the vision tower of a Qwen3.5 composite
 * (test/data/anchors/vllm/configs/qwen3.5-4b.json): text_config names
 * mamba_ssm_dtype "float32" (read as the canonical ssm_dtype); a text model
 * without the key leaves it auto. The vision tower is Qwen3-VL's: hidden
 * 1024, 24 blocks, patch 16, merge 2, a 2304-entry position table, and the
 * merger as projector: LayerNorm 2*1024, fc1 4096*4096 + 4096, fc2
 * 2560*4096 + 2560 = 27,271,680. */
static void test_qwen3_5_state_and_tower(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_hf_file(&m, DATA "anchors/vllm/configs/qwen3.5-4b.json"), 0);
    assert_int_equal(m->ssm_state_dtype, LLMMEM__DT_FP32);
    assert_int_equal(m->vision.kind, LLMMEM__V_QWEN3VL);
    assert_int_equal(m->vision.hidden, 1024);
    assert_int_equal(m->vision.layers, 24);
    assert_int_equal(m->vision.patch_size, 16);
    assert_int_equal(m->vision.merge_size, 2);
    assert_int_equal(m->vision.pos_embed, 2304);
    assert_int_equal(m->vision.projector_params, 2 * 1024 + 4096 * 4096 + 4096 + 2560 * 4096 + 2560);
    llmmem_model_free(m);
    m = from_text("{\"model_type\": \"qwen3_5_text\", \"num_hidden_layers\": 4}");
    assert_int_equal(m->ssm_state_dtype, LLMMEM__DT_AUTO);
    llmmem_model_free(m);
    m = from_text("{\"model_type\": \"qwen3_5_text\", \"num_hidden_layers\": 4, "
                  "\"mamba_ssm_dtype\": \"bfloat16\"}");
    assert_int_equal(m->ssm_state_dtype, LLMMEM__DT_BF16);
    llmmem_model_free(m);
}

static void test_registry_rules(void **state)
{
    (void)state;
    /* GPT-NeoX-Japanese, V 10, h 4, 2 layers, f = 2h: embed_in 40; a layer: two LayerNorms 16,
     * query_key_value 48, dense 16, h_to_4h 32, 4h_to_h 32 = 144; dense_bias 4 in the last
     * layer only; final LayerNorm 8; embed_out tied. */
    llmmem_model *m = from_text("{\"model_type\": \"gpt_neox_japanese\", \"vocab_size\": 10, \"hidden_size\": 4, "
                                "\"num_hidden_layers\": 2, \"num_attention_heads\": 2, "
                                "\"intermediate_multiple_size\": 2}");
    assert_int_equal(m->params, 40 + 2 * 144 + 4 + 8);
    llmmem_model_free(m);

    /* GPT-Neo with a run-length attention_types: global, local, local (window 2). wte 40,
     * wpe 20; a layer: ln_1 8, q/k/v 48, out_proj 20, ln_2 8, c_fc 80, c_proj 68 = 232;
     * ln_f 8; tied. */
    m = from_text("{\"model_type\": \"gpt_neo\", \"vocab_size\": 10, \"hidden_size\": 4, \"num_layers\": 3, "
                  "\"num_heads\": 2, \"max_position_embeddings\": 5, \"window_size\": 2, "
                  "\"attention_types\": [[[\"global\", \"local\"], 1], [[\"local\"], 1]]}");
    assert_int_equal(m->params, 40 + 20 + 3 * 232 + 8);
    assert_int_equal(m->num_sliding_layers, 2);
    assert_int_equal(m->sliding_window, 2);
    llmmem_model_free(m);
    bad_text("{\"model_type\": \"gpt_neo\", \"num_layers\": 3, \"attention_types\": [[[\"global\"], 2]]}",
             LLMMEM_E_INCONSISTENT, "\"attention_types\"", "has 2 entries but num_hidden_layers is 3");
    bad_text("{\"model_type\": \"gpt_neo\", \"num_layers\": 3, \"attention_types\": [[\"global\", 3]]}",
             LLMMEM_E_SCHEMA, "\"attention_types\"", "[[kinds...], repeats]");

    /* Doge with CDMoE, V 10, h 4, f 6, one layer, 2 heads of 2, 10 experts, top-2:
     * embed 40, q/k/v/o 64, A 2, dt_proj 8, q/k norms 4, two norms and two residual scales 16,
     * shared gated MLP 72, router_gate 2 x isqrt(10) x 4 = 24, down/up_embed 80, final norm 4,
     * lm_head 40 = 354; one expert is 2h = 8, so 8 idle experts leave 354 - 64 active. */
    m = from_text("{\"model_type\": \"doge\", \"vocab_size\": 10, \"hidden_size\": 4, \"intermediate_size\": 6, "
                  "\"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"is_moe\": true, \"num_experts\": 10, "
                  "\"num_experts_per_tok\": 2}");
    assert_int_equal(m->params, 354);
    assert_int_equal(m->params_active, 354 - 64);
    assert_int_equal(m->num_moe_layers, 1);
    llmmem_model_free(m);

    /* ERNIE 4.5 MoE: MoE where (i + 1) % 2 == 0 and 1 <= i <= end (-1: the last layer) */
    m = from_text("{\"model_type\": \"ernie4_5_moe\", \"num_hidden_layers\": 6, \"moe_layer_interval\": 2, "
                  "\"moe_layer_end_index\": -1, \"hidden_size\": 64, \"intermediate_size\": 64, "
                  "\"num_attention_heads\": 4, \"num_key_value_heads\": 4, \"moe_intermediate_size\": 32, "
                  "\"vocab_size\": 100}");
    assert_int_equal(m->num_moe_layers, 3); /* 1, 3, 5 */
    llmmem_model_free(m);
    m = from_text("{\"model_type\": \"ernie4_5_moe\", \"num_hidden_layers\": 6, \"moe_layer_interval\": 2, "
                  "\"moe_layer_end_index\": 3, \"hidden_size\": 64, \"intermediate_size\": 64, "
                  "\"num_attention_heads\": 4, \"num_key_value_heads\": 4, \"moe_intermediate_size\": 32, "
                  "\"vocab_size\": 100}");
    assert_int_equal(m->num_moe_layers, 2); /* 1, 3 */
    llmmem_model_free(m);

    /* mlp_layer_types decides the feed-forward of each layer */
    m = from_text("{\"model_type\": \"exaone_moe\", \"num_hidden_layers\": 3, \"vocab_size\": 100, "
                  "\"hidden_size\": 64, \"intermediate_size\": 64, \"num_attention_heads\": 4, "
                  "\"num_key_value_heads\": 4, \"moe_intermediate_size\": 32, \"num_experts\": 8, "
                  "\"mlp_layer_types\": [\"sparse\", \"dense\", \"sparse\"]}");
    assert_int_equal(m->num_moe_layers, 2);
    llmmem_model_free(m);
    bad_text("{\"model_type\": \"exaone_moe\", \"num_hidden_layers\": 2, \"mlp_layer_types\": [\"sparse\", \"moe\"]}",
             LLMMEM_E_UNSUPPORTED, "\"mlp_layer_types\"", "layer 1 is \"moe\": not a feed-forward kind of exaone_moe");

    /* string and list-count keys: a wrong JSON type is an error at the key */
    bad_text("{\"model_type\": \"apertus\", \"hidden_act\": 7}", LLMMEM_E_SCHEMA, "\"hidden_act\"",
             "expected a string");
    bad_text("{\"model_type\": \"glm_moe_dsa\", \"indexer_types\": \"full\"}", LLMMEM_E_SCHEMA, "\"indexer_types\"",
             "expected an array of strings");
    /* entries are strings, integers too where a choice is a number (compress_ratios 4 and 128) */
    bad_text("{\"model_type\": \"glm_moe_dsa\", \"indexer_types\": [\"full\", [1]]}", LLMMEM_E_SCHEMA,
             "\"indexer_types\"", "expected a string entry");
    bad_text("{\"model_type\": \"deepseek_v4\", \"num_hidden_layers\": 2, \"compress_ratios\": [4, [1]]}",
             LLMMEM_E_SCHEMA, "\"compress_ratios\"", "expected a string or integer entry");
    m = from_text("{\"model_type\": \"deepseek_v4\", \"num_hidden_layers\": 4, \"compress_ratios\": [4, 128, 4, 0]}");
    llmmem_model *named = from_text("{\"model_type\": \"deepseek_v4\", \"num_hidden_layers\": 4, "
                  "\"layer_types\": [\"compressed_sparse_attention\", \"heavily_compressed_attention\", "
                  "\"compressed_sparse_attention\", \"sliding_attention\"]}");
    assert_int_equal(m->params, named->params); /* the same layers named by ratio or by kind */
    llmmem_model_free(named);
    llmmem_model_free(m);
    /* XIELUActivation's two parameters per layer go with hidden_act "xielu" */
    llmmem_model *x = from_text("{\"model_type\": \"apertus\", \"num_hidden_layers\": 3}");
    m = from_text("{\"model_type\": \"apertus\", \"num_hidden_layers\": 3, \"hidden_act\": \"relu2\"}");
    assert_int_equal(x->params - m->params, 2 * 3);
    llmmem_model_free(x);
    llmmem_model_free(m);
}

/* ---- raw models and the key API -------------------------------------------------------- */

static void test_raw_model(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_new(&m), 0);
    assert_int_equal(llmmem__model_validate(m), LLMMEM_E_SCHEMA);
    assert_int_equal(llmmem_model_set(m, "num_parameters", "7B"), 0);
    int64_t p = 0;
    assert_int_equal(llmmem_model_get_i64(&p, m, LLMMEM_M_PARAMS), 0);
    /* within 0.1% of the target */
    assert_true(p > 6993000000LL && p < 7007000000LL);
    assert_true(m->from_size_only);
    assert_int_equal(llmmem__model_validate(m), 0);
    assert_non_null(strstr(llmmem_model_note(m, 0), "approximate"));

    /* a given shape is counted exactly: Llama-2-7B */
    llmmem_model *r = NULL;
    assert_int_equal(llmmem_model_new(&r), 0);
    assert_int_equal(llmmem_model_set(r, "hidden_size", "4096"), 0);
    assert_int_equal(llmmem_model_set(r, "layers", "32"), 0);
    assert_int_equal(llmmem_model_set_i64(r, LLMMEM_M_INTERMEDIATE_SIZE, 11008), 0);
    assert_int_equal(llmmem_model_set_i64(r, LLMMEM_M_VOCAB_SIZE, 32000), 0);
    assert_int_equal(llmmem_model_get_i64(&p, r, LLMMEM_M_PARAMS), 0);
    assert_int_equal(p, 6738415616LL);
    assert_int_equal(r->num_heads, 32); /* head_dim 128 */
    assert_false(r->from_size_only);
    /* GQA with 8 KV heads: -2 * 32 * (4096 * 4096 - 4096 * 1024) */
    assert_int_equal(llmmem_model_set(r, "num_key_value_heads", "8"), 0);
    assert_int_equal(r->params, 6738415616LL - 2LL * 32 * (4096LL * 4096 - 4096LL * 1024));
    assert_int_equal(llmmem_model_set(r, "tie_word_embeddings", "true"), 0);
    assert_int_equal(r->params_head, 0);

    /* errors leave the model unchanged */
    int64_t before = r->params;
    assert_int_equal(llmmem_model_set_i64(r, LLMMEM_M_HIDDEN_SIZE, -1), LLMMEM_E_OUT_OF_RANGE);
    assert_error_has("hidden_size");
    assert_true(llmmem_model_set(r, "hidden_size", "-1") < 0);
    assert_int_equal(llmmem_model_set(r, "bogus", "1"), LLMMEM_E_UNKNOWN_PARAM);
    assert_error_has("bogus");
    assert_int_equal(llmmem_model_set(r, "tie", "maybe"), LLMMEM_E_PARSE);
    assert_int_equal(llmmem_model_set_i64(r, LLMMEM_M_PARAMS, 5), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_model_set_i64(r, 9999, 5), LLMMEM_E_UNKNOWN_PARAM);
    assert_int_equal(r->params, before);

    llmmem_model *c = NULL;
    assert_int_equal(llmmem_model_clone(&c, r), 0);
    assert_int_equal(c->params, r->params);
    llmmem_model_free(c);
    llmmem_model_free(r);
    llmmem_model_free(m);
    llmmem_model_free(NULL);

    /* explicit fields win whatever the order: the size target after or before them */
    static const char *const orders[2][4] = {
        {"num_parameters", "num_layers", "hidden_size", "num_heads"},
        {"num_layers", "hidden_size", "num_heads", "num_parameters"},
    };
    static const char *const values[] = {"5e8", "24", "1024", "16"};
    int64_t counts[2];
    for (int o = 0; o < 2; o++) {
        assert_int_equal(llmmem_model_new(&m), 0);
        for (int k = 0; k < 4; k++) {
            int at = 0;
            while (strcmp(orders[0][at], orders[o][k]) != 0)
                at++;
            assert_int_equal(llmmem_model_set(m, orders[o][k], values[at]), 0);
        }
        assert_int_equal(m->num_layers, 24);
        assert_int_equal(m->hidden_size, 1024);
        assert_int_equal(m->num_heads, 16);
        assert_int_equal(m->num_kv_heads, 16);
        assert_true(m->params > 495000000 && m->params < 505000000);
        counts[o] = m->params;
        llmmem_model_free(m);
    }
    assert_int_equal(counts[0], counts[1]);
    /* sizes alone: heads a multiple of 8 (tensor parallel 8 divides them) */
    static const char *const sizes[] = {"30B", "34B", "65B", "70B", "405B"};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        assert_int_equal(llmmem_model_new(&m), 0);
        assert_int_equal(llmmem_model_set(m, "num_parameters", sizes[i]), 0);
        assert_int_equal(m->num_heads % 8, 0);
        assert_int_equal(m->num_kv_heads % 8, 0);
        assert_int_equal(m->intermediate_size % 8, 0);
        llmmem_model_free(m);
    }

    /* num_parameters only describes raw models */
    assert_int_equal(llmmem_model_from_preset(&m, "gpt2"), 0);
    assert_int_equal(llmmem_model_set(m, "num_parameters", "1B"), LLMMEM_E_INCONSISTENT);
    llmmem_model_free(m);
}

static void test_keys_and_json(void **state)
{
    (void)state;
    int n = llmmem_model_key_count();
    assert_int_equal(n, 25);
    for (int i = 0; i < n; i++)
        assert_non_null(llmmem_model_key_name(llmmem_model_key_at(i)));
    assert_int_equal(llmmem_model_key_at(n), LLMMEM_E_INVALID_ARG);
    assert_null(llmmem_model_key_name(12345));
    assert_string_equal(llmmem_model_key_name(LLMMEM_M_HIDDEN_SIZE), "hidden_size");

    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, "qwen3-30b-a3b"), 0);
    size_t need = 0;
    assert_int_equal(llmmem_model_to_json(NULL, 0, &need, m), LLMMEM_E_BUFFER_TOO_SMALL);
    assert_true(need > 100);
    char *buf = malloc(need);
    assert_int_equal(llmmem_model_to_json(buf, need, &need, m), 0);
    llmmem__json *doc = NULL;
    assert_int_equal(llmmem__json_parse(&doc, buf, strlen(buf), "out"), 0);
    const llmmem__jnode *r = llmmem__json_root(doc);
    static const char *const want[] = {"model_type", "name", "params", "active_params",
                                       "components", "notes", "hidden_size", "num_experts"};
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(want); i++)
        if (!llmmem__json_get(r, want[i]))
            fail_msg("to_json lacks \"%s\"", want[i]);
    assert_true(llmmem__json_number(llmmem__json_get(r, "params")) == 30532122624.0);
    const llmmem__jnode *comp = llmmem__json_get(r, "components");
    static const char *const cw[] = {"embedding", "attention", "mlp", "experts",
                                     "router", "norm", "head", "vision"};
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(cw); i++)
        assert_non_null(llmmem__json_get(comp, cw[i]));
    llmmem__json_free(doc);
    free(buf);

    char t[4];
    assert_int_equal(llmmem_model_type(t, sizeof t, &need, m), LLMMEM_E_BUFFER_TOO_SMALL);
    assert_int_equal(need, strlen("qwen3_moe") + 1);
    char t2[16];
    assert_int_equal(llmmem_model_type(t2, sizeof t2, NULL, m), 0);
    assert_string_equal(t2, "qwen3_moe");
    llmmem_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_table),  cmocka_unit_test(test_dev_configs_listed),
        cmocka_unit_test(test_presets),       cmocka_unit_test(test_presets_other_published),
        cmocka_unit_test(test_moe_active),    cmocka_unit_test(test_arch_fields),
        cmocka_unit_test(test_generic),       cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_raw_model),     cmocka_unit_test(test_keys_and_json),
        cmocka_unit_test(test_registry_entries),
        cmocka_unit_test(test_registry_rules),
        cmocka_unit_test(test_architectures),
        cmocka_unit_test(test_approximate),
        cmocka_unit_test(test_harness_gaps),
        cmocka_unit_test(test_qwen3_5_state_and_tower),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
