/* A scheduler's use of libllmmem: load a model once, estimate many configurations and
 * take the first that fits. Here the fastest first: no activation checkpointing before
 * full checkpointing, and the largest micro-batch before smaller ones.
 *
 *   ./scheduler [PRESET [GPU [SEQ_LEN]]]     defaults: llama-3.1-8b H100-80GB 4096
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <llmmem.h>

static int fail(int rc)
{
    fprintf(stderr, "scheduler: %s: %s\n", llmmem_status_name(rc), llmmem_last_error());
    return rc;
}

int main(int argc, char **argv)
{
    const char *preset = argc > 1 ? argv[1] : "llama-3.1-8b";
    const char *gpu = argc > 2 ? argv[2] : "H100-80GB";
    const char *seq_len = argc > 3 ? argv[3] : "4096";
    static const char *const checkpointing[] = {"none", "full"};
    static const int64_t micro_batches[] = {16, 8, 4, 2, 1};
    llmmem_model *model = NULL;
    llmmem_config *cfg = NULL;
    llmmem_result *res = NULL;
    int rc, found = 0;

    /* The model and the result are made once; each estimate reuses them. */
    if ((rc = llmmem_model_from_preset(&model, preset)) != 0 ||
        (rc = llmmem_config_new(&cfg)) != 0 || (rc = llmmem_result_new(&res)) != 0 ||
        (rc = llmmem_config_set_str(cfg, LLMMEM_P_GPU, gpu)) != 0 ||
        (rc = llmmem_config_set(cfg, "seq_len", seq_len)) != 0 ||
        (rc = llmmem_config_set_str(cfg, LLMMEM_P_PARAM_DTYPE, "bf16")) != 0) {
        fail(rc);
        goto out;
    }

    printf("%-13s %6s %16s %6s\n", "checkpointing", "micro", "peak GiB", "fits");
    for (size_t c = 0; c < sizeof checkpointing / sizeof *checkpointing && !found; c++) {
        for (size_t m = 0; m < sizeof micro_batches / sizeof *micro_batches && !found; m++) {
            uint64_t total = 0;
            int64_t fits = 0;
            if ((rc = llmmem_config_set_str(cfg, LLMMEM_P_CHECKPOINTING, checkpointing[c])) != 0 ||
                (rc = llmmem_config_set_i64(cfg, LLMMEM_P_MICRO_BATCH_SIZE, micro_batches[m])) !=
                    0 ||
                (rc = llmmem_estimate(res, model, cfg)) != 0 ||
                (rc = llmmem_result_get_u64(&total, res, LLMMEM_R_TOTAL_BYTES_PER_GPU)) != 0 ||
                (rc = llmmem_result_get_i64(&fits, res, LLMMEM_R_FITS)) != 0) {
                fail(rc);
                goto out;
            }
            printf("%-13s %6" PRId64 " %16.2f %6s\n", checkpointing[c], micro_batches[m],
                   (double)total / (1024.0 * 1024.0 * 1024.0), fits ? "yes" : "no");
            if (fits) {
                printf("chosen: checkpointing=%s micro_batch_size=%" PRId64 "\n", checkpointing[c],
                       micro_batches[m]);
                found = 1;
            }
        }
    }
    if (!found)
        printf("nothing fits on one %s: shard with ZeRO/FSDP or use more GPUs\n", gpu);

out:
    llmmem_result_free(res);
    llmmem_config_free(cfg);
    llmmem_model_free(model);
    return rc == 0 ? 0 : 1;
}
