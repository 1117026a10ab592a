/* Throughput of the hot calls a scheduler makes: llmmem_estimate over a sweep of
 * configurations, llmmem_result_to_json, and model construction from a preset.
 * `make bench` builds it against lib/libllmmem.a and runs it. Prints one line per case:
 * name, calls, nanoseconds per call. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <llmmem.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int check(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "bench: %s: %s: %s\n", what, llmmem_status_name(rc), llmmem_last_error());
        exit(1);
    }
    return rc;
}

static void report(const char *name, long calls, double ns)
{
    printf("%-40s %8ld calls %10.0f ns/call\n", name, calls, ns / (double)calls);
}

/* Estimates `calls` times, cycling micro-batch sizes so no call repeats its predecessor.
 * An engine the library does not model yet is reported and skipped. */
static void bench_estimate(const char *name, const llmmem_model *model, llmmem_config *cfg,
                           llmmem_result *res, long calls)
{
    int rc = llmmem_estimate(res, model, cfg);
    if (rc == LLMMEM_E_UNSUPPORTED) {
        printf("%-40s skipped: %s\n", name, llmmem_last_error());
        return;
    }
    check(rc, name);
    double t0 = now_ns();
    for (long i = 0; i < calls; i++) {
        check(llmmem_config_set_i64(cfg, LLMMEM_P_MICRO_BATCH_SIZE, 1 + i % 8), "set");
        check(llmmem_estimate(res, model, cfg), name);
    }
    report(name, calls, now_ns() - t0);
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 20000;
    llmmem_model *model = NULL;
    llmmem_config *cfg = NULL;
    llmmem_result *res = NULL;
    static char json[1 << 16];
    size_t needed = 0;

    check(llmmem_model_from_preset(&model, "llama-3.1-8b"), "preset");
    check(llmmem_config_new(&cfg), "config");
    check(llmmem_result_new(&res), "result");

    bench_estimate("estimate single (adamw, bf16)", model, cfg, res, calls);
    check(llmmem_config_set(cfg, "activation_checkpointing", "full"), "set");
    bench_estimate("estimate single, checkpointing", model, cfg, res, calls);
    check(llmmem_config_set(cfg, "engine", "zero"), "set");
    check(llmmem_config_set_i64(cfg, LLMMEM_P_ZERO_STAGE, 3), "set");
    check(llmmem_config_set_i64(cfg, LLMMEM_P_NUM_GPUS, 8), "set");
    check(llmmem_config_set_i64(cfg, LLMMEM_P_DATA_PARALLEL, 8), "set");
    bench_estimate("estimate zero-3, 8 GPUs", model, cfg, res, calls);
    check(llmmem_config_reset(cfg), "reset");
    check(llmmem_config_set(cfg, "mode", "inference"), "set");
    bench_estimate("estimate inference", model, cfg, res, calls);

    double t0 = now_ns();
    for (long i = 0; i < calls; i++)
        check(llmmem_result_to_json(json, sizeof json, &needed, res), "to_json");
    report("result_to_json", calls, now_ns() - t0);

    t0 = now_ns();
    for (long i = 0; i < calls; i++) {
        llmmem_model *m = NULL;
        check(llmmem_model_from_preset(&m, "llama-3.1-8b"), "preset");
        llmmem_model_free(m);
    }
    report("model_from_preset + free", calls, now_ns() - t0);

    /* HF config.json parsing, from the test data when run in the tree. */
    static char text[1 << 16];
    FILE *f = fopen("test/data/scenarios/configs/dev/llama-2-7b.json", "rb");
    if (f) {
        size_t len = fread(text, 1, sizeof text, f);
        fclose(f);
        t0 = now_ns();
        for (long i = 0; i < calls; i++) {
            llmmem_model *m = NULL;
            check(llmmem_model_from_hf_json(&m, text, len), "from_hf_json");
            llmmem_model_free(m);
        }
        report("model_from_hf_json (llama-2-7b) + free", calls, now_ns() - t0);
    }

    llmmem_result_free(res);
    llmmem_config_free(cfg);
    llmmem_model_free(model);
    return 0;
}
