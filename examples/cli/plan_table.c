/* The table of llmmem plan: the workload, the candidates and why they were rejected, then
 * one row per layout with its memory (the estimator's peak, and the total per GPU of a
 * fresh estimate) and its step time. */
#include "cli.h"

#include <string.h>

/* The engine's options of a layout: ZeRO stage and offload, FSDP strategy, Megatron. */
static void plan_options(char *buf, size_t cap, const llmmem_config *c, int64_t engine)
{
    char v[16], w[16];
    size_t need;
    buf[0] = '\0';
    switch (engine) {
    case LLMMEM_ENGINE_ZERO:
        llmmem_config_get_str(v, sizeof v, &need, c, LLMMEM_P_OFFLOAD_OPTIMIZER);
        llmmem_config_get_str(w, sizeof w, &need, c, LLMMEM_P_OFFLOAD_PARAM);
        snprintf(buf, cap, "stage %lld%s%s%s%s", (long long)cli_cfg_i64(c, LLMMEM_P_ZERO_STAGE),
                 strcmp(v, "none") ? " opt>" : "", strcmp(v, "none") ? v : "",
                 strcmp(w, "none") ? " param>" : "", strcmp(w, "none") ? w : "");
        break;
    case LLMMEM_ENGINE_FSDP:
        llmmem_config_get_str(v, sizeof v, &need, c, LLMMEM_P_FSDP_SHARDING);
        snprintf(buf, cap, "%s%s", v,
                 cli_cfg_i64(c, LLMMEM_P_FSDP_CPU_OFFLOAD) ? " cpu-offload" : "");
        break;
    case LLMMEM_ENGINE_MEGATRON:
        snprintf(buf, cap, "%s%s", cli_cfg_i64(c, LLMMEM_P_DISTRIBUTED_OPTIMIZER) ? "dist-opt" : "",
                 cli_cfg_i64(c, LLMMEM_P_SEQUENCE_PARALLEL)
                     ? (cli_cfg_i64(c, LLMMEM_P_DISTRIBUTED_OPTIMIZER) ? " sp" : "sp")
                     : "");
        break;
    case LLMMEM_ENGINE_MEGATRON_DEEPSPEED:
        snprintf(buf, cap, "zero %lld%s", (long long)cli_cfg_i64(c, LLMMEM_P_ZERO_STAGE),
                 cli_cfg_i64(c, LLMMEM_P_SEQUENCE_PARALLEL) ? " sp" : "");
        break;
    default: break;
    }
}

/* "Plan: ..." with the workload, then the candidates and the rejected ones by reason. */
static void print_plan_header(const llmmem_plan *p, const llmmem_model *m,
                              const llmmem_config *cfg, bool inference)
{
    char t[64], a[48], b[48], mt[64], g[32];
    size_t need;
    llmmem_model_type(mt, sizeof mt, &need, m);
    llmmem_config_get_str(t, sizeof t, &need, cfg, LLMMEM_P_GPU);
    printf("Plan: %s on %lld x %s", mt, (long long)cli_cfg_i64(cfg, LLMMEM_P_NUM_GPUS), t);
    if (inference)
        printf(", batch %lld, prompt %lld + decode %lld tokens\n",
               (long long)cli_cfg_i64(cfg, LLMMEM_P_BATCH_SIZE),
               (long long)cli_cfg_i64(cfg, LLMMEM_P_PROMPT_LEN),
               (long long)cli_cfg_i64(cfg, LLMMEM_P_DECODE_LEN));
    else
        printf(", global batch %lld x %lld tokens\n", (long long)llmmem_plan_global_batch(p),
               (long long)cli_cfg_i64(cfg, LLMMEM_P_SEQ_LEN));
    int64_t rejected = 0;
    for (int r = 0; r < 4; r++)
        rejected += llmmem_plan_rejected(p, r);
    printf("Candidates %s: %s fit, rejected",
           cli_group(g, sizeof g, (long long)llmmem_plan_candidates(p)),
           cli_group(a, sizeof a, (long long)(llmmem_plan_candidates(p) - rejected)));
    for (int r = 0; r < 4; r++)
        printf("%s %s %s", r ? "," : "", llmmem_plan_reject_name(r),
               cli_group(b, sizeof b, (long long)llmmem_plan_rejected(p, r)));
    printf("\n");
    for (int i = 0; i < llmmem_plan_note_count(p); i++)
        printf("Note: %s\n", llmmem_plan_note(p, i));
    printf("\n");
}

static void print_plan_columns(bool inference)
{
    if (inference)
        printf("%3s  %4s %8s %6s  %-22s %-22s %10s\n", "#", "tp", "replicas", "batch",
               "peak allocated", "total per GPU", "time (s)");
    else
        printf("%3s  %-18s %4s %3s %3s %3s %3s  %-22s %-9s %4s %5s  %-22s %-22s %10s\n", "#",
               "engine", "dp", "tp", "pp", "cp", "ep", "options", "recompute", "mbs", "accum",
               "peak allocated", "total per GPU", "step (s)");
}

/* Total per GPU (reserved + context) from a fresh estimate of the layout. */
static uint64_t layout_total(const llmmem_model *m, const llmmem_config *c)
{
    llmmem_result *r = NULL;
    uint64_t total = 0;
    if (llmmem_result_new(&r) == 0 && llmmem_estimate(r, m, c) == 0)
        llmmem_result_get_u64(&total, r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
    llmmem_result_free(r);
    return total;
}

/* One row: i (0-based), its layout c; a and b the peak and total as text, st the time. */
static void print_plan_row(int i, const llmmem_config *c, const char *a, const char *b,
                           double st, bool inference)
{
    if (inference) {
        printf("%3d  %4lld %8lld %6lld  %-22s %-22s %10.4f\n", i + 1,
               (long long)cli_cfg_i64(c, LLMMEM_P_TENSOR_PARALLEL),
               (long long)cli_cfg_i64(c, LLMMEM_P_DATA_PARALLEL),
               (long long)cli_cfg_i64(c, LLMMEM_P_BATCH_SIZE), a, b, st);
        return;
    }
    char e[32], opt[128], rec[16];
    size_t need;
    llmmem_config_get_str(e, sizeof e, &need, c, LLMMEM_P_ENGINE);
    llmmem_config_get_str(rec, sizeof rec, &need, c, LLMMEM_P_CHECKPOINTING);
    plan_options(opt, sizeof opt, c, cli_cfg_i64(c, LLMMEM_P_ENGINE));
    printf("%3d  %-18s %4lld %3lld %3lld %3lld %3lld  %-22s %-9s %4lld %5lld  %-22s %-22s %10.4f\n",
           i + 1, e, (long long)cli_cfg_i64(c, LLMMEM_P_DATA_PARALLEL),
           (long long)cli_cfg_i64(c, LLMMEM_P_TENSOR_PARALLEL),
           (long long)cli_cfg_i64(c, LLMMEM_P_PIPELINE_PARALLEL),
           (long long)cli_cfg_i64(c, LLMMEM_P_CONTEXT_PARALLEL),
           (long long)cli_cfg_i64(c, LLMMEM_P_EXPERT_PARALLEL), opt, rec,
           (long long)cli_cfg_i64(c, LLMMEM_P_MICRO_BATCH_SIZE),
           (long long)cli_cfg_i64(c, LLMMEM_P_GRAD_ACCUM_STEPS), a, b, st);
}

void cli_print_plan_table(const llmmem_plan *p, const llmmem_model *m, const llmmem_config *cfg,
                          enum cli_units units)
{
    const bool inference = cli_cfg_i64(cfg, LLMMEM_P_MODE) == 1;
    print_plan_header(p, m, cfg, inference);
    if (llmmem_plan_count(p) == 0) {
        printf("No layout fits.\n");
        return;
    }
    print_plan_columns(inference);
    for (int i = 0; i < llmmem_plan_count(p); i++) {
        llmmem_config *c = NULL;
        int rc = llmmem_plan_config(&c, p, i);
        if (rc)
            cli_fail_lib(rc, EXIT_FAIL, NULL);
        double st = 0;
        uint64_t peak = 0;
        char a[48], b[48];
        llmmem_plan_step_time(&st, p, i);
        llmmem_plan_peak_bytes(&peak, p, i);
        cli_fmt_bytes(a, sizeof a, peak, units);
        cli_fmt_bytes(b, sizeof b, layout_total(m, c), units);
        print_plan_row(i, c, a, b, st, inference);
        llmmem_config_free(c);
    }
    printf("\nStep time: docs/planner.md (FLOPs at 50%% of the dense bf16 rate + communication,\n"
           "no overlap). Memory: the estimator's peak for each layout.\n");
}
