/* Megatron's pipeline stages as numbers (src/engines/megatron.c, issue 27 item 4): each
 * stage's peak computed without its result (llmmem__train_peak), a stage with the inputs
 * of the one before taking its peak, and the result made for the peak stage alone. Held
 * to the estimate that makes every stage's whole result (llmmem__megatron_every_stage):
 * on random Megatron and Megatron-DeepSpeed runs (models, tp, pp, vpp, micro-batches,
 * checkpointing, sequence parallel, the distributed optimizer, ZeRO, LoRA, the step, the
 CUDA context up to 1 TiB, batches that overflow), the same JSON (every key, term, note and stage peak) byte for
 * byte, or the same status and message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engines/engines.h"
#include "llmmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS 1500
#define SHORTCUT_SEED 0x9E3779B97F4A7C15u
#include "shortcut.h"

static void stages_as_numbers(void **state)
{
    (void)state;
    static const char *const models[] = {"llama-3.1-8b", "llama-3-70b", "mixtral-8x7b", "qwen2.5-0.5b"};
    static const char *const pps[] = {"1", "2", "3", "4", "5", "8", "16", "16", "32", "64", "80"};
    static const char *const tps[] = {"1", "2", "4", "8"};
    static const char *const vpps[] = {"1", "1", "2", "4"};
    static const char *const nmbs[] = {"1", "1", "2", "3", "7", "16", "40", "200"};
    static const char *const mbs[] = {"1", "2", "4", "1", "2", "4", "65536"};
    static const char *const seqs[] = {"1024", "2048", "4096", "8192", "1024", "2048", "4096", "8192", "16777216"};
    static const char *const ckpts[] = {"none", "none", "full", "selective"};
    static const char *const bools[] = {"false", "true"};
    static const char *const steps[] = {"max", "first", "steady"};
    static const char *const loras[] = {"0", "0", "0", "16"};
    static const char *const contexts[] = {"-1", "-1", "536870912", "1099511627776"};
    int ok = 0, failed = 0, staged = 0;
    for (int i = 0; i < RUNS; i++) {
        llmmem_model *m = NULL;
        const char *model = PICK(models);
        assert_int_equal(llmmem_model_from_preset(&m, model), 0);
        llmmem_config *c = NULL;
        assert_int_equal(llmmem_config_new(&c), 0);
        const bool ds = rnd() % 3 == 0;
        const char *pp = PICK(pps), *tp = PICK(tps);
        const int dp = 1 + (int)(rnd() % 4);
        char gpus[32], dps[16];
        snprintf(gpus, sizeof gpus, "%d", atoi(pp) * atoi(tp) * dp);
        snprintf(dps, sizeof dps, "%d", dp);
        set(c, "engine", ds ? "megatron_deepspeed" : "megatron");
        set(c, "num_gpus", gpus);
        set(c, "pipeline_parallel_size", pp);
        set(c, "tensor_parallel_size", tp);
        set(c, "micro_batch_size", PICK(mbs));
        set(c, "seq_len", PICK(seqs));
        set(c, "num_microbatches", PICK(nmbs));
        set(c, "checkpointing", PICK(ckpts));
        set(c, "sequence_parallel", PICK(bools));
        set(c, "step", PICK(steps));
        set(c, "cuda_context_bytes", PICK(contexts));
        if (!ds) {
            set(c, "virtual_pipeline_size", PICK(vpps));
            set(c, "distributed_optimizer", PICK(bools));
            set(c, "lora_rank", PICK(loras));
        } else {
            char z[4];
            snprintf(z, sizeof z, "%d", (int)(rnd() % 3));
            set(c, "zero_stage", z);
        }
        int ra = estimate_json(json_a, m, c, &llmmem__megatron_every_stage, false);
        int rb = estimate_json(json_b, m, c, &llmmem__megatron_every_stage, true);
        if (ra != rb || strcmp(json_a, json_b) != 0)
            fail_msg("run %d (%s, %s, pp %s, tp %s, dp %d): the stages as numbers differ from every stage's "
                     "result:\n%.600s\n--- every stage:\n%.600s",
                     i, model, ds ? "megatron_deepspeed" : "megatron", pp, tp, dp, json_a, json_b);
        if (ra == 0) {
            ok++;
            staged += atoi(pp) > 1;
        } else {
            failed++;
        }
        llmmem_config_free(c);
        llmmem_model_free(m);
    }
    printf("stages as numbers: %d runs, %d estimates equal (%d of them over several stages), %d equal errors\n",
           RUNS, ok, staged, failed);
    /* the comparison must have had estimates over several stages to compare */
    assert_true(staged >= RUNS / 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(stages_as_numbers)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
