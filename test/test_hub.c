/* Models named by a Hugging Face Hub id, offline (src/input/hub.c, presets.c):
 * llmmem_model_from_pretrained, llmmem_scenario_from_file_hub and
 * llmmem_model_from_framework_file.
 *
 * A Hugging Face cache folder is made at test time under a fresh temporary folder, laid out
 * as huggingface_hub writes it (file_download.py: models--ORG--NAME/refs/main holds the
 * commit, snapshots/<commit>/config.json the file, .no_exist/<commit>/config.json a cached
 * miss); its config.json is a published one of test/data/configs/published. What a cached
 * model resolves to is compared with llmmem_model_from_hf_file of the same file, and a Hub
 * id's preset with llmmem_model_from_preset, never with a number copied here.
 *
 * Runs from the repository root (make check does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "input/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG "test/data/configs/published/llama-3.2-1b.json"
#define SHA "0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d"

static char root[256]; /* the temporary folder */
static char hub[300];  /* root/hub: the cache */

/* ---- building the cache ------------------------------------------------------------------ */

static void put(const char *rel, const char *text, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *c = path + strlen(root) + 1; (c = strchr(c, '/')) != NULL; c++) {
        *c = '\0';
        mkdir(path, 0700);
        *c = '/';
    }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    *len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[*len] = '\0';
    return buf;
}

static void puts_text(const char *rel, const char *text) { put(rel, text, strlen(text)); }

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/llmmem-hub-XXXXXX");
    assert_non_null(mkdtemp(root));
    snprintf(hub, sizeof hub, "%s/hub", root);
    size_t len;
    const char *config = slurp(CONFIG, &len);
    /* acme/tiny-llama: refs/main -> SHA -> snapshots/SHA/config.json */
    puts_text("hub/models--acme--tiny-llama/refs/main", SHA);
    put("hub/models--acme--tiny-llama/snapshots/" SHA "/config.json", config, len);
    /* an older snapshot beside it is never used (no other revision is tried) */
    puts_text("hub/models--acme--tiny-llama/snapshots/1111111111111111111111111111111111111111/config.json",
              "{not json");
    /* acme/stale: refs/main names a commit with no snapshot */
    puts_text("hub/models--acme--stale/refs/main", SHA);
    put("hub/models--acme--stale/snapshots/2222222222222222222222222222222222222222/config.json", config, len);
    /* acme/gone: the Hub said there is no config.json at that commit (.no_exist) */
    puts_text("hub/models--acme--gone/refs/main", SHA);
    puts_text("hub/models--acme--gone/.no_exist/" SHA "/config.json", "");
    /* acme/noref: no refs folder, a snapshot folder named "main" (revision "main" as is) */
    put("hub/models--acme--noref/snapshots/main/config.json", config, len);
    /* acme/newline: refs/main with a newline is not a snapshot name (read() keeps it) */
    puts_text("hub/models--acme--newline/refs/main", SHA "\n");
    put("hub/models--acme--newline/snapshots/" SHA "/config.json", config, len);
    /* a local folder holding a config.json, as a torchtune checkpoint_dir */
    put("ckpt/config.json", config, len);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static int64_t params_of(const llmmem_model *m)
{
    int64_t p = 0;
    assert_int_equal(llmmem_model_get_i64(&p, m, LLMMEM_M_PARAMS), 0);
    assert_true(p > 0);
    return p;
}

static bool has_note(const llmmem_model *m, const char *part)
{
    for (int i = 0; i < llmmem_model_note_count(m); i++)
        if (strstr(llmmem_model_note(m, i), part))
            return true;
    return false;
}

static void expect_error(int rc, int status, const char *const *parts)
{
    assert_int_equal(rc, status);
    const char *e = llmmem_last_error();
    for (; *parts; parts++)
        if (!strstr(e, *parts))
            fail_msg("\"%s\" not in the error: %s", *parts, e);
}

/* ---- the presets' Hub ids ----------------------------------------------------------------- */

/* Every Hub id of the table is a valid org/name naming an existing preset once, and resolves
 * (any case) to that preset's model with a note saying so. */
static void hub_ids_resolve_to_their_presets(void **state)
{
    (void)state;
    int n = llmmem__hub_id_count();
    assert_true(n > 50);
    for (int i = 0; i < n; i++) {
        const char *preset = NULL, *id = llmmem__hub_id_at(i, &preset);
        assert_non_null(strchr(id, '/'));
        for (int j = 0; j < i; j++)
            if (!strcasecmp(llmmem__hub_id_at(j, NULL), id))
                fail_msg("Hub id %s listed twice", id);
        llmmem_model *p = NULL, *m = NULL, *u = NULL;
        assert_int_equal(llmmem_model_from_preset(&p, preset), 0);
        assert_int_equal(llmmem_model_from_pretrained(&m, id, NULL), 0);
        assert_int_equal(params_of(m), params_of(p));
        assert_true(has_note(m, id));
        assert_true(has_note(m, preset));
        char upper[128];
        snprintf(upper, sizeof upper, "%s", id);
        for (char *c = upper; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        assert_int_equal(llmmem_model_from_pretrained(&u, upper, hub), 0);
        assert_int_equal(params_of(u), params_of(p));
        llmmem_model_free(p);
        llmmem_model_free(m);
        llmmem_model_free(u);
    }
    assert_null(llmmem__hub_id_at(n, NULL));
    assert_null(llmmem__hub_id_at(-1, NULL));
    /* a preset's own name, any case, is the preset (no note) */
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_pretrained(&m, "LLAMA-3.1-8B", NULL), 0);
    assert_int_equal(llmmem_model_note_count(m), 0);
    llmmem_model_free(m);
}

/* ---- the cache ----------------------------------------------------------------------------- */

static void cache_finds_refs_main(void **state)
{
    (void)state;
    llmmem_model *m = NULL, *f = NULL;
    assert_int_equal(llmmem_model_from_pretrained(&m, "acme/tiny-llama", hub), 0);
    assert_int_equal(llmmem_model_from_hf_file(&f, CONFIG), 0);
    assert_int_equal(params_of(m), params_of(f));
    assert_string_equal(m->name, "acme/tiny-llama");
    assert_true(has_note(m, "snapshots/" SHA "/config.json"));
    llmmem_model_free(m);
    /* no refs: the revision is "main" itself */
    assert_int_equal(llmmem_model_from_pretrained(&m, "acme/noref", hub), 0);
    assert_int_equal(params_of(m), params_of(f));
    llmmem_model_free(m);
    /* a trailing slash on the cache folder is the same folder */
    char slash[320];
    snprintf(slash, sizeof slash, "%s/", hub);
    assert_int_equal(llmmem_model_from_pretrained(&m, "acme/tiny-llama", slash), 0);
    llmmem_model_free(m);
    llmmem_model_free(f);
}

static void cache_misses_say_why(void **state)
{
    (void)state;
    llmmem_model *m = NULL;
    const char *stale[] = {"acme/stale", "no snapshot " SHA, hub, NULL};
    expect_error(llmmem_model_from_pretrained(&m, "acme/stale", hub), LLMMEM_E_UNKNOWN_PARAM, stale);
    const char *gone[] = {"acme/gone", ".no_exist", NULL};
    expect_error(llmmem_model_from_pretrained(&m, "acme/gone", hub), LLMMEM_E_UNKNOWN_PARAM, gone);
    const char *nl[] = {"refs/main does not hold a commit name", NULL};
    expect_error(llmmem_model_from_pretrained(&m, "acme/newline", hub), LLMMEM_E_UNKNOWN_PARAM, nl);
    const char *none[] = {"no folder models--acme--nothing", "huggingface-cli download acme/nothing", NULL};
    expect_error(llmmem_model_from_pretrained(&m, "acme/nothing", hub), LLMMEM_E_UNKNOWN_PARAM, none);
    /* a quantized copy of a preset's model is not the preset: the nearest presets are named */
    const char *near[] = {"did you mean llama-3.1-8b?", "also near:", NULL};
    expect_error(llmmem_model_from_pretrained(&m, "meta-llama/Llama-3.1-8B-Instruct-FP8", hub),
                 LLMMEM_E_UNKNOWN_PARAM, near);
    /* no cache given: the cached model is not found, and the error says there was none */
    const char *nocache[] = {"no Hugging Face cache", NULL};
    expect_error(llmmem_model_from_pretrained(&m, "acme/tiny-llama", NULL), LLMMEM_E_UNKNOWN_PARAM, nocache);
    expect_error(llmmem_model_from_pretrained(&m, "acme/tiny-llama", ""), LLMMEM_E_UNKNOWN_PARAM, nocache);
    const char *nofolder[] = {"no such folder", NULL};
    char missing[320];
    snprintf(missing, sizeof missing, "%s/none", root);
    expect_error(llmmem_model_from_pretrained(&m, "acme/tiny-llama", missing), LLMMEM_E_UNKNOWN_PARAM, nofolder);
    /* not an id: a bare unknown name, two slashes, "--", characters the Hub refuses */
    const char *bare[] = {"no preset named \"llama3-8x\"", "did you mean llama-3-8b?", NULL};
    expect_error(llmmem_model_from_pretrained(&m, "llama3-8x", hub), LLMMEM_E_UNKNOWN_PARAM, bare);
    const char *bad[] = {"nor a Hugging Face id", NULL};
    const char *ids[] = {"a/b/c", "acme/x--y", "acme/x y", "/acme", "acme/", "acme/-x", "../hub/x", NULL};
    for (const char *const *id = ids; *id; id++)
        expect_error(llmmem_model_from_pretrained(&m, *id, hub), LLMMEM_E_UNKNOWN_PARAM, bad);
    assert_null(m);
    assert_int_equal(llmmem_model_from_pretrained(NULL, "gpt2", NULL), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_model_from_pretrained(&m, NULL, NULL), LLMMEM_E_INVALID_ARG);
}

/* A local folder with a config.json, or the file itself, as from_pretrained takes them. */
static void local_folder_and_file(void **state)
{
    (void)state;
    char dir[320];
    snprintf(dir, sizeof dir, "%s/ckpt", root);
    llmmem_model *m = NULL, *f = NULL;
    assert_int_equal(llmmem_model_from_hf_file(&f, CONFIG), 0);
    assert_int_equal(llmmem_model_from_pretrained(&m, dir, NULL), 0);
    assert_int_equal(params_of(m), params_of(f));
    llmmem_model_free(m);
    assert_int_equal(llmmem_model_from_pretrained(&m, CONFIG, NULL), 0);
    assert_int_equal(params_of(m), params_of(f));
    llmmem_model_free(m);
    const char *empty[] = {"a folder without config.json", NULL};
    expect_error(llmmem_model_from_pretrained(&m, root, NULL), LLMMEM_E_IO, empty);
    llmmem_model_free(f);
}

/* ---- scenarios -------------------------------------------------------------------------------- */

static void scenario_with_hub_ids(void **state)
{
    (void)state;
    char path[320];
    snprintf(path, sizeof path, "%s/s1.json", root);
    puts_text("s1.json", "{\"model\": \"acme/tiny-llama\", \"training\": {\"micro_batch_size\": 2}}");
    llmmem_model *m = NULL, *f = NULL;
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_model_from_hf_file(&f, CONFIG), 0);
    assert_int_equal(llmmem_scenario_from_file_hub(&m, &c, path, hub), 0);
    assert_int_equal(params_of(m), params_of(f));
    int64_t b = 0;
    assert_int_equal(llmmem_config_get_i64(&b, c, LLMMEM_P_MICRO_BATCH_SIZE), 0);
    assert_int_equal(b, 2);
    llmmem_model_free(m);
    llmmem_config_free(c);
    /* without the cache, the error is at the key, with its line:column */
    const char *at[] = {"s1.json:1:11: \"model\":", "no Hugging Face cache", NULL};
    expect_error(llmmem_scenario_from_file(&m, &c, path), LLMMEM_E_UNKNOWN_PARAM, at);
    /* model.preset takes a preset's Hub id, with no cache */
    snprintf(path, sizeof path, "%s/s2.json", root);
    puts_text("s2.json", "{\"model\": {\"preset\": \"Qwen/Qwen2.5-7B-Instruct\"}}");
    llmmem_model *p = NULL;
    assert_int_equal(llmmem_scenario_from_file(&m, &c, path), 0);
    assert_int_equal(llmmem_model_from_preset(&p, "qwen2.5-7b"), 0);
    assert_int_equal(params_of(m), params_of(p));
    llmmem_model_free(m);
    llmmem_model_free(p);
    llmmem_config_free(c);
    /* a scenario's model is never a local path (hf_config is) */
    snprintf(path, sizeof path, "%s/s3.json", root);
    puts_text("s3.json", "{\"model\": \"" CONFIG "\"}");
    const char *nopath[] = {"s3.json:1:11: \"model\":", NULL};
    expect_error(llmmem_scenario_from_file_hub(&m, &c, path, hub), LLMMEM_E_UNKNOWN_PARAM, nopath);
    llmmem_model_free(f);
}

/* ---- framework files --------------------------------------------------------------------------- */

static int framework(llmmem_model **m, int kind, const char *name, const char *yaml)
{
    char path[320];
    snprintf(path, sizeof path, "%s/%s", root, name);
    puts_text(name, yaml);
    return llmmem_model_from_framework_file(m, kind, path, hub);
}

static void framework_files_name_the_model(void **state)
{
    (void)state;
    llmmem_model *m = NULL, *p = NULL, *f = NULL;
    assert_int_equal(llmmem_model_from_preset(&p, "llama-3.1-8b"), 0);
    assert_int_equal(llmmem_model_from_hf_file(&f, CONFIG), 0);
    /* axolotl: base_model a preset's Hub id; base_model_config wins over it */
    assert_int_equal(framework(&m, LLMMEM_FW_AUTO, "ax.yaml",
                               "base_model: meta-llama/Llama-3.1-8B-Instruct\nsequence_len: 4096\n"),
                     0);
    assert_int_equal(params_of(m), params_of(p));
    llmmem_model_free(m);
    assert_int_equal(framework(&m, LLMMEM_FW_AXOLOTL, "ax2.yaml",
                               "base_model: meta-llama/Llama-3.1-8B-Instruct\nbase_model_config: acme/tiny-llama\n"),
                     0);
    assert_int_equal(params_of(m), params_of(f));
    llmmem_model_free(m);
    /* LLaMA-Factory: model_name_or_path in the cache */
    assert_int_equal(framework(&m, LLMMEM_FW_AUTO, "lf.yaml",
                               "model_name_or_path: acme/tiny-llama\nstage: sft\nfinetuning_type: lora\n"),
                     0);
    assert_int_equal(params_of(m), params_of(f));
    llmmem_model_free(m);
    /* torchtune: a checkpoint_dir holding config.json wins over the builder */
    char yaml[600];
    snprintf(yaml, sizeof yaml,
             "model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n  lora_rank: 8\n"
             "checkpointer:\n  _component_: torchtune.training.FullModelHFCheckpointer\n"
             "  checkpoint_dir: %s/ckpt\ntokenizer:\n  path: x\n",
             root);
    assert_int_equal(framework(&m, LLMMEM_FW_TORCHTUNE, "tt1.yaml", yaml), 0);
    assert_int_equal(params_of(m), params_of(f));
    llmmem_model_free(m);
    /* ... and without one, the builder's preset (lora_ builds the same model) */
    assert_int_equal(framework(&m, LLMMEM_FW_TORCHTUNE, "tt2.yaml",
                               "model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n"
                               "checkpointer:\n  checkpoint_dir: /nonexistent/ckpt\ntokenizer:\n  path: x\n"),
                     0);
    assert_int_equal(params_of(m), params_of(p));
    assert_true(has_note(m, "lora_llama3_1_8b"));
    llmmem_model_free(m);
    const char *builder[] = {"tt3.yaml:2:16: \"model._component_\":", "my_model", NULL};
    expect_error(framework(&m, LLMMEM_FW_TORCHTUNE, "tt3.yaml",
                           "model:\n  _component_: my_model\ntokenizer:\n  path: x\ncheckpointer:\n  x: 1\n"),
                 LLMMEM_E_UNKNOWN_PARAM, builder);
    /* an unknown Hub id: the file, the key and its place, and the nearest presets */
    const char *unknown[] = {"ax3.yaml:1:13: \"base_model\":", "acme/unknown-model", "did you mean", NULL};
    expect_error(framework(&m, LLMMEM_FW_AXOLOTL, "ax3.yaml", "base_model: acme/unknown-model\n"),
                 LLMMEM_E_UNKNOWN_PARAM, unknown);
    /* names none: an accelerate config, an axolotl file without base_model */
    const char *acc[] = {"accelerate", NULL};
    expect_error(framework(&m, LLMMEM_FW_ACCELERATE, "acc.yaml", "distributed_type: MULTI_GPU\n"),
                 LLMMEM_E_SCHEMA, acc);
    const char *nobase[] = {"base_model", NULL};
    expect_error(framework(&m, LLMMEM_FW_AXOLOTL, "ax4.yaml", "sequence_len: 4096\n"), LLMMEM_E_SCHEMA, nobase);
    const char *type[] = {"base_model", "string", NULL};
    expect_error(framework(&m, LLMMEM_FW_AXOLOTL, "ax5.yaml", "base_model: [1, 2]\n"), LLMMEM_E_SCHEMA, type);
    assert_null(m);
    assert_int_equal(llmmem_model_from_framework_file(&m, 9, CONFIG, NULL), LLMMEM_E_INVALID_ARG);
    assert_int_equal(llmmem_model_from_framework_file(&m, LLMMEM_FW_AUTO, "/nonexistent.yaml", NULL), LLMMEM_E_IO);
    llmmem_model_free(p);
    llmmem_model_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hub_ids_resolve_to_their_presets),
        cmocka_unit_test(cache_finds_refs_main),
        cmocka_unit_test(cache_misses_say_why),
        cmocka_unit_test(local_folder_and_file),
        cmocka_unit_test(scenario_with_hub_ids),
        cmocka_unit_test(framework_files_name_the_model),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
