/* vLLM's weights walk over the decoder layers (src/engines/vllm/vllm_weights.c, issue 27
 * item 3): a layer after the first that leaves the caching allocator's free blocks as it
 * found them stands for every later layer, whose bytes are added at once; the CUDA graph
 * capture sizes counted by a formula (vllm.c). Held to the walk over every layer and the
 * sizes one by one (llmmem__vllm_every_layer): every preset under random vLLM settings
 * (tensor and pipeline parallel sizes, expert parallelism, quantization methods, dtypes,
 * batches and lengths, versions), and hidden sizes made so that the tensors are not whole 2 MiB pages
 * (the allocator's pool then changes from layer to layer), the same JSON byte for byte, or
 * the same status and message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engines/vllm/vllm.h"
#include "llmmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHORTCUT_SEED 0x243F6A8885A308D3u
#include "shortcut.h"

/* One random vLLM configuration of model m, compared both ways; its status. */
static int compare_one(llmmem_model *m, const char *what)
{
    static const char *const tps[] = {"1", "1", "2", "4", "8"};
    static const char *const pps[] = {"1", "1", "1", "2", "3", "4"};
    static const char *const quants[] = {"auto", "auto", "auto", "fp8", "gptq", "gptq_marlin", "awq",
                                         "awq_marlin", "bitsandbytes", "mxfp4"};
    static const char *const dtypes[] = {"bf16", "bf16", "fp16", "fp32"};
    static const char *const seqs[] = {"1", "2", "3", "8", "64", "100", "127", "128", "129", "200", "256", "300"};
    static const char *const versions[] = {"", "", "0.10.2", "0.11.0", "0.15.0", "0.20.0"};
    static const char *const lens[] = {"512", "2048", "8192"};
    static const char *const bools[] = {"false", "true"};
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    const char *tp = PICK(tps), *pp = PICK(pps);
    char gpus[16];
    snprintf(gpus, sizeof gpus, "%d", atoi(tp) * atoi(pp));
    set(c, "mode", "inference");
    set(c, "runtime", "vllm");
    set(c, "num_gpus", gpus);
    set(c, "tensor_parallel_size", tp);
    set(c, "pipeline_parallel_size", pp);
    set(c, "quantization", PICK(quants));
    set(c, "param_dtype", PICK(dtypes));
    set(c, "max_num_seqs", PICK(seqs));
    set(c, "max_model_len", PICK(lens));
    int64_t experts = 0; /* expert parallelism is refused where there are no experts */
    assert_int_equal(llmmem_model_get_i64(&experts, m, LLMMEM_M_NUM_EXPERTS), 0);
    if (experts > 0)
        set(c, "enable_expert_parallel", PICK(bools));
    set(c, "enforce_eager", PICK(bools));
    const char *version = PICK(versions);
    if (*version)
        set(c, "vllm_version", version);
    /* --cpu-offload-gb: the first layers differ until the limit is reached */
    static const char *const offload[] = {"0", "0", "0", "0.01", "0.5", "3"};
    set(c, "cpu_offload_gb", PICK(offload));
    int ra = estimate_json(json_a, m, c, &llmmem__vllm_every_layer, false);
    int rb = estimate_json(json_b, m, c, &llmmem__vllm_every_layer, true);
    if (ra != rb || strcmp(json_a, json_b) != 0)
        fail_msg("%s (tp %s, pp %s): the repeated layers differ from the walk over every layer:\n%.600s\n"
                 "--- every layer:\n%.600s",
                 what, tp, pp, json_a, json_b);
    llmmem_config_free(c);
    return ra;
}

static void layers_taken_at_once(void **state)
{
    (void)state;
    int ok = 0, errors = 0;
    const int presets = llmmem_preset_count();
    assert_true(presets > 20);
    for (int p = 0; p < presets; p++) {
        const char *name = llmmem_preset_name(p);
        for (int k = 0; k < 6; k++) {
            llmmem_model *m = NULL;
            assert_int_equal(llmmem_model_from_preset(&m, name), 0);
            *(compare_one(m, name) == 0 ? &ok : &errors) += 1;
            llmmem_model_free(m);
        }
    }
    /* shapes whose tensors are not whole 2 MiB pages: the pool fills and may settle */
    static const char *const hidden[] = {"576", "896", "1000", "1536", "2880", "3000"};
    static const char *const inter[] = {"1500", "4864", "7000", "8960", "11000"};
    for (int k = 0; k < 300; k++) {
        llmmem_model *m = NULL;
        assert_int_equal(llmmem_model_from_preset(&m, k % 2 ? "qwen2.5-0.5b" : "llama-3.2-1b"), 0);
        if (llmmem_model_set(m, "hidden_size", PICK(hidden)) || llmmem_model_set(m, "intermediate_size", PICK(inter))) {
            llmmem_model_free(m);
            continue;
        }
        *(compare_one(m, "resized model") == 0 ? &ok : &errors) += 1;
        llmmem_model_free(m);
    }
    printf("vLLM layers at once: %d estimates equal, %d equal errors\n", ok, errors);
    assert_true(ok > 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(layers_taken_at_once)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
