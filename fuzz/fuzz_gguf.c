/* libFuzzer target: a GGUF file's header (llmmem_model_from_gguf), whole and as a slice of
 * itself; when it parses, the model through the serialisers, a clone, and (for one input in
 * eight) a default inference estimate and llama.cpp's (runtime llama_cpp, all layers and
 * -ngl 1). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin(data, size);
    llmmem_model *model = NULL;
    int rc = llmmem_model_from_gguf(&model, (const char *)data, size, 0);
    fuzz_check_status(rc);
    FUZZ_CHECK(rc != LLMMEM_E_BUFFER_TOO_SMALL); /* the whole file was given */
    if (rc != 0) {
        FUZZ_CHECK(model == NULL); /* unchanged on error */
        FUZZ_CHECK(strstr(llmmem_last_error(), "model.gguf") != NULL);
    }
    /* the first half as a slice of a file of `size` bytes: more needed, or the same verdict */
    if (size > 1) {
        llmmem_model *half = NULL;
        int hr = llmmem_model_from_gguf(&half, (const char *)data, size / 2, size);
        fuzz_check_status(hr == LLMMEM_E_BUFFER_TOO_SMALL ? 0 : hr);
        if (hr == 0) {
            FUZZ_CHECK(rc == 0);
            llmmem_model_free(half);
        }
    }
    if (rc != 0)
        return 0;
    FUZZ_CHECK(model != NULL);
    fuzz_check_model(model);
    llmmem_model *copy = NULL;
    FUZZ_CHECK(llmmem_model_clone(&copy, model) == 0);
    if (fuzz_thorough) {
        llmmem_config *cfg = NULL;
        FUZZ_CHECK(llmmem_config_new(&cfg) == 0);
        FUZZ_CHECK(llmmem_config_set(cfg, "mode", "inference") == 0);
        fuzz_exercise(copy, cfg);
        /* llama.cpp's own runtime: the weights by tensor, the KV cache, the graph replay */
        FUZZ_CHECK(llmmem_config_set(cfg, "runtime", "llama_cpp") == 0);
        fuzz_exercise(copy, cfg);
        FUZZ_CHECK(llmmem_config_set(cfg, "n_gpu_layers", "1") == 0);
        FUZZ_CHECK(llmmem_config_set(cfg, "ctx_size", "1024") == 0);
        fuzz_exercise(copy, cfg);
        llmmem_config_free(cfg);
    }
    llmmem_model_free(copy);
    llmmem_model_free(model);
    return 0;
}
