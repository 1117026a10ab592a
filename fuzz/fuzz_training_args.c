/* libFuzzer target: the other framework files applied to a config. The first byte picks
 * the parser: even = HF TrainingArguments JSON (llmmem_config_apply_hf_training_args_json),
 * odd = calibration profile (llmmem_config_apply_calibration_json); the rest is the text.
 * A failed apply must leave the config as it was; a successful one is estimated. */
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
    if (size < 1)
        return 0;
    fuzz_begin(data, size);
    int calib = data[0] & 1;
    const char *json = (const char *)data + 1;
    size_t len = size - 1;
    llmmem_config *cfg = NULL;
    FUZZ_CHECK(llmmem_config_new(&cfg) == 0);
    llmmem_config *before = NULL;
    FUZZ_CHECK(llmmem_config_clone(&before, cfg) == 0);
    int rc = calib ? llmmem_config_apply_calibration_json(cfg, json, len)
                   : llmmem_config_apply_hf_training_args_json(cfg, json, len);
    fuzz_check_status(rc);
    if (rc != 0) {
        FUZZ_CHECK(fuzz_config_same(before, cfg));
    } else {
        fuzz_check_to_json(fuzz_config_json, cfg);
        fuzz_exercise(shared_model(), cfg);
        llmmem_config *copy = NULL;
        FUZZ_CHECK(llmmem_config_clone(&copy, cfg) == 0);
        FUZZ_CHECK(llmmem_config_clear_calibration(copy) == 0);
        llmmem_config_free(copy);
    }
    llmmem_config_free(before);
    llmmem_config_free(cfg);
    return 0;
}
