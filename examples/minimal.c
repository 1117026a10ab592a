/* The smallest use of libllmmem: how much memory does full fine-tuning of
 * Llama 3.1 8B take per GPU, and does it fit on one H100?
 *
 *   cc minimal.c $(pkg-config --cflags --libs llmmem) -o minimal && ./minimal
 */
#include <inttypes.h>
#include <stdio.h>

#include <llmmem.h>

int main(void)
{
    llmmem_model *model = NULL;
    llmmem_config *cfg = NULL;
    llmmem_result *res = NULL;
    uint64_t peak = 0;
    int64_t fits = 0;
    int rc;

    if ((rc = llmmem_model_from_preset(&model, "llama-3.1-8b")) != 0 ||
        (rc = llmmem_config_new(&cfg)) != 0 ||
        (rc = llmmem_config_set_str(cfg, LLMMEM_P_GPU, "H100-80GB")) != 0 ||
        (rc = llmmem_config_set_i64(cfg, LLMMEM_P_MICRO_BATCH_SIZE, 1)) != 0 ||
        (rc = llmmem_config_set_i64(cfg, LLMMEM_P_SEQ_LEN, 2048)) != 0 ||
        (rc = llmmem_config_set_str(cfg, LLMMEM_P_CHECKPOINTING, "full")) != 0 ||
        (rc = llmmem_result_new(&res)) != 0 || (rc = llmmem_estimate(res, model, cfg)) != 0 ||
        (rc = llmmem_result_get_u64(&peak, res, LLMMEM_R_PEAK_ALLOCATED_BYTES)) != 0 ||
        (rc = llmmem_result_get_i64(&fits, res, LLMMEM_R_FITS)) != 0) {
        fprintf(stderr, "llmmem: %s: %s\n", llmmem_status_name(rc), llmmem_last_error());
    } else {
        printf("peak allocated: %" PRIu64 " bytes (%.2f GiB)\n", peak,
               (double)peak / (1024.0 * 1024.0 * 1024.0));
        printf("fits: %s\n", fits ? "yes" : "no");
    }

    llmmem_result_free(res);
    llmmem_config_free(cfg);
    llmmem_model_free(model);
    return rc == 0 ? 0 : 1;
}
