/* libFuzzer target: a DeepSpeed ds_config.json (llmmem_config_apply_deepspeed_json) applied
 * to a default config for a built-in model ("auto" values resolve from it), then estimated.
 * A failed apply must leave the config as it was. */
#include "fuzz_common.h"

static const llmmem_model *shared_model(void)
{
    static llmmem_model *m;
    if (!m)
        FUZZ_CHECK(llmmem_model_from_preset(&m, "llama-3.2-1b") == 0);
    return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin(data, size);
    llmmem_config *cfg = NULL;
    FUZZ_CHECK(llmmem_config_new(&cfg) == 0);
    llmmem_config *before = NULL;
    FUZZ_CHECK(llmmem_config_clone(&before, cfg) == 0);
    int rc = llmmem_config_apply_deepspeed_json(cfg, shared_model(), (const char *)data, size);
    fuzz_check_status(rc);
    if (rc != 0) {
        FUZZ_CHECK(fuzz_config_same(before, cfg));
    } else {
        fuzz_check_to_json(fuzz_config_json, cfg);
        FUZZ_CHECK(llmmem_config_set(cfg, "engine", "zero") == 0);
        fuzz_exercise(shared_model(), cfg);
    }
    llmmem_config_free(before);
    llmmem_config_free(cfg);
    return 0;
}
