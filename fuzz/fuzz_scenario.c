/* libFuzzer target: a scenario JSON (llmmem_scenario_from_json, the project's format);
 * hf_config paths resolve against test/data/scenarios (the fuzzers run from the repository
 * root). A parsed scenario is estimated and serialised. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin(data, size);
    llmmem_model *model = NULL;
    llmmem_config *cfg = NULL;
    int rc = llmmem_scenario_from_json(&model, &cfg, (const char *)data, size, "test/data/scenarios");
    fuzz_check_status(rc);
    if (rc != 0) {
        FUZZ_CHECK(model == NULL && cfg == NULL);
        return 0;
    }
    FUZZ_CHECK(model != NULL && cfg != NULL);
    fuzz_check_model(model);
    fuzz_check_to_json(fuzz_config_json, cfg);
    fuzz_exercise(model, cfg);
    if (fuzz_thorough) {
        /* Only the config wanted: the same text must give the same verdict and values. */
        llmmem_config *cfg2 = NULL;
        rc = llmmem_scenario_from_json(NULL, &cfg2, (const char *)data, size, "test/data/scenarios");
        FUZZ_CHECK(rc == 0 && cfg2 != NULL);
        FUZZ_CHECK(fuzz_config_same(cfg, cfg2));
        llmmem_config_free(cfg2);
    }
    llmmem_config_free(cfg);
    llmmem_model_free(model);
    return 0;
}
