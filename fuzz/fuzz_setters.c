/* libFuzzer target: parameter setters by name with arbitrary text. The input is split on
 * NUL bytes into (name, value) pairs; a name starting with '@' goes to llmmem_model_set on
 * a raw model (llmmem_model_new), any other name to llmmem_config_set. After each accepted
 * config value, llmmem_config_get_str must print it and the printed text must be accepted
 * again and print the same (a round trip; real parameters excepted from the second
 * comparison because they print with 6 decimals). A rejected value must leave the config
 * unchanged (checked for one input in eight). Finally the model and config are estimated. */
#include "fuzz_common.h"

#define MAX_PAIRS 64

static void get_text(char *buf, size_t cap, const llmmem_config *cfg, int param)
{
    size_t need = 0;
    int rc = llmmem_config_get_str(buf, cap, &need, cfg, param);
    FUZZ_CHECK(rc == 0 || (rc == LLMMEM_E_BUFFER_TOO_SMALL && need > cap));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin(data, size);
    char *text = fuzz_dup(data, size);
    llmmem_model *model = NULL;
    llmmem_config *cfg = NULL;
    FUZZ_CHECK(llmmem_model_new(&model) == 0);
    FUZZ_CHECK(llmmem_config_new(&cfg) == 0);
    size_t pos = 0;
    for (int pair = 0; pair < MAX_PAIRS && pos < size; pair++) {
        const char *name = text + pos;
        pos += strlen(name) + 1;
        const char *value = pos <= size ? text + pos : "";
        if (pos <= size)
            pos += strlen(value) + 1;
        if (name[0] == '@') {
            int rc = llmmem_model_set(model, name + 1, value);
            fuzz_check_status(rc);
            continue;
        }
        llmmem_config *before = NULL;
        FUZZ_CHECK(llmmem_config_clone(&before, cfg) == 0);
        int rc = llmmem_config_set(cfg, name, value);
        fuzz_check_status(rc);
        if (rc != 0 && fuzz_thorough) /* the full comparison is slow: one input in eight */
            FUZZ_CHECK(fuzz_config_same(before, cfg));
        llmmem_config_free(before);
        if (rc != 0)
            continue;
        int param = -1;
        FUZZ_CHECK(llmmem_param_from_name(&param, name) == 0);
        static char printed[4096], again[4096];
        get_text(printed, sizeof printed, cfg, param);
        rc = llmmem_config_set(cfg, name, printed);
        if (llmmem_param_type(param) != LLMMEM_TYPE_F64) {
            FUZZ_CHECK(rc == 0);
            get_text(again, sizeof again, cfg, param);
            FUZZ_CHECK(strcmp(printed, again) == 0);
        }
    }
    fuzz_check_model(model);
    fuzz_check_to_json(fuzz_config_json, cfg);
    fuzz_exercise(model, cfg);
    llmmem_config_free(cfg);
    llmmem_model_free(model);
    free(text);
    return 0;
}
