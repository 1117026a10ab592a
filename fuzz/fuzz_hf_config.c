/* libFuzzer target: a HuggingFace config.json (llmmem_model_from_hf_json), then the parsed
 * model through the serialisers and a default training and inference estimate. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin(data, size);
    llmmem_model *model = NULL;
    int rc = llmmem_model_from_hf_json(&model, (const char *)data, size);
    fuzz_check_status(rc);
    if (rc != 0) {
        FUZZ_CHECK(model == NULL); /* unchanged on error */
        return 0;
    }
    FUZZ_CHECK(model != NULL);
    fuzz_check_model(model);
    llmmem_model *copy = NULL;
    FUZZ_CHECK(llmmem_model_clone(&copy, model) == 0);
    llmmem_config *cfg = NULL;
    FUZZ_CHECK(llmmem_config_new(&cfg) == 0);
    fuzz_exercise(copy, cfg);
    FUZZ_CHECK(llmmem_config_set(cfg, "mode", "inference") == 0);
    fuzz_exercise(model, cfg);
    llmmem_config_free(cfg);
    llmmem_model_free(copy);
    llmmem_model_free(model);
    return 0;
}
