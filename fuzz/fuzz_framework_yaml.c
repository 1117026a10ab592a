/* libFuzzer target: the framework YAML readers (llmmem_config_apply_framework_yaml).
 * The first byte picks the kind (mod 5: auto, torchtune, axolotl, accelerate,
 * llamafactory); the rest is the YAML text. A failed apply must leave the config as it
 * was; a successful one is estimated. */
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
    int kind = data[0] % 5;
    const char *yaml = (const char *)data + 1;
    size_t len = size - 1;
    llmmem_config *cfg = NULL;
    FUZZ_CHECK(llmmem_config_new(&cfg) == 0);
    llmmem_config *before = NULL;
    FUZZ_CHECK(llmmem_config_clone(&before, cfg) == 0);
    int rc = llmmem_config_apply_framework_yaml(cfg, shared_model(), kind, yaml, len);
    fuzz_check_status(rc);
    int detected = -1;
    fuzz_check_status(llmmem_framework_detect(&detected, yaml, len));
    if (rc != 0) {
        FUZZ_CHECK(fuzz_config_same(before, cfg));
    } else {
        fuzz_check_to_json(fuzz_config_json, cfg);
        for (int i = 0; i < llmmem_config_note_count(cfg); i++)
            FUZZ_CHECK(llmmem_config_note(cfg, i) != NULL);
        fuzz_exercise(shared_model(), cfg);
    }
    llmmem_config_free(before);
    llmmem_config_free(cfg);
    return 0;
}
