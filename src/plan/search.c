/* The planner's inverse questions (llmmem_plan_max_batch, _max_seq_len,
 * _min_gpus, _inverse), answered by exponential then binary search on the
 * estimator's own LLMMEM_R_FITS; where the allocator replay makes the verdict
 * non-monotone near the capacity, the values below the search's boundary are
 * checked one by one, so that the answer is the largest value such that it and
 * every smaller value fit. */
#include "plan/plan.h"

#include <string.h>

/* 1: fits, 0: does not fit (or its byte count overflows), < 0: error. */
static int fits_at(struct llmmem_result *r, const llmmem_model *m, const struct llmmem_config *c)
{
    int rc = llmmem_estimate(r, m, c);
    if (rc == LLMMEM_E_OUT_OF_RANGE)
        return 0;
    if (rc)
        return rc;
    return r->v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i != 0;
}

/* Sets the integer parameter the search varies (a field of the table's). */
static void set(struct llmmem_config *c, int param, int64_t v)
{
    const llmmem__param_info *p = llmmem__param_find(param);
    memcpy((char *)c + p->offset, &v, sizeof v);
}

/* Largest v in [lo, hi] with fits(v), by doubling from lo then bisecting, so
 * that fits(answer) and !fits(answer + 1) hold on the estimator itself (or the
 * answer is hi). *out = lo - 1 when lo does not fit. An error at lo is
 * returned as is; above lo, an overflow counts as "does not fit". */
static int search_bounds(int64_t *out, const llmmem_model *m, struct llmmem_config *c, int param,
                         int64_t lo, int64_t hi)
{
    struct llmmem_result r;
    set(c, param, lo);
    int rc = llmmem_estimate(&r, m, c);
    if (rc)
        return rc;
    if (!r.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
        *out = lo - 1;
        return LLMMEM_OK;
    }
    int64_t bad = 0; /* 0: no value known not to fit */
    for (int64_t step = 1; !bad;) {
        int64_t next = hi - lo <= step ? hi : lo + step;
        set(c, param, next);
        int f = fits_at(&r, m, c);
        if (f < 0)
            return f;
        if (f) {
            lo = next;
            if (lo == hi) {
                *out = hi;
                return LLMMEM_OK;
            }
            step = step > INT64_MAX / 2 ? INT64_MAX : step * 2;
        } else {
            bad = next;
        }
    }
    while (bad - lo > 1) {
        int64_t mid = lo + (bad - lo) / 2;
        set(c, param, mid);
        int f = fits_at(&r, m, c);
        if (f < 0)
            return f;
        if (f)
            lo = mid;
        else
            bad = mid;
    }
    *out = lo;
    return LLMMEM_OK;
}


/* The search on the fast estimate (the allocator rule of thumb), then, when
 * the configuration replays the caching allocator, its answer confirmed on
 * the replay: the boundary searched again from the fast answer, up when it
 * fits, below it when it does not (a few replays, not one per probe). */
static int search_max(int64_t *out, const llmmem_model *m, struct llmmem_config *c, int param,
                      int64_t lo, int64_t hi)
{
    const int64_t replay = c->allocator_replay;
    c->allocator_replay = 0;
    int rc = search_bounds(out, m, c, param, lo, hi);
    c->allocator_replay = replay;
    if (rc || !replay)
        return rc;
    int64_t fast = *out < lo ? lo : *out;
    struct llmmem_result r;
    set(c, param, fast);
    int f = fits_at(&r, m, c);
    if (f < 0)
        return f;
    if (f)
        return search_bounds(out, m, c, param, fast, hi);
    if (fast == lo) {
        *out = lo - 1;
        return LLMMEM_OK;
    }
    return search_bounds(out, m, c, param, lo, fast - 1);
}

/* Values checked one by one below the search's boundary, at most (an estimate
 * with the replay takes about 1 to 3 ms). */
#define PREFIX_CHECKS 2048

/* The answer in full: the search's boundary b, then every value from lo up to
 * it (at most PREFIX_CHECKS) where the estimate replays the allocator, the
 * only source of a non-monotone verdict; the first that does not fit ends the
 * check. */
static int search_prefix(int64_t *out, int64_t *again, int64_t *checked, const llmmem_model *m,
                         struct llmmem_config *c, int param, int64_t lo, int64_t hi)
{
    int64_t b;
    int rc = search_max(&b, m, c, param, lo, hi);
    *again = 0;
    *out = *checked = b;
    if (rc || b < lo)
        return rc;
    struct llmmem_result r;
    set(c, param, b);
    if ((rc = llmmem_estimate(&r, m, c)) != 0)
        return rc;
    if (!r.replayed) /* the estimate without the replay grows with the workload */
        return LLMMEM_OK;
    const int64_t end = b - lo >= PREFIX_CHECKS ? lo + PREFIX_CHECKS - 1 : b;
    for (int64_t v = lo; v <= end; v++) {
        set(c, param, v);
        int f = v == b ? 1 : fits_at(&r, m, c);
        if (f < 0)
            return f;
        if (!f) {
            *out = v - 1;
            *checked = v;
            *again = b;
            return LLMMEM_OK;
        }
    }
    *out = *checked = end;
    *again = end < b ? b : 0;
    return LLMMEM_OK;
}

/* The parameter a question varies for this configuration, from the engine's
 * row (inference: the runtime's batch, HF's batch or vLLM's max_num_seqs, and
 * its length, vLLM's max_model_len or HF's prompt, the context being prompt +
 * decode with decode held as configured). */
static int question_of(int *param, bool *prompt, const struct llmmem_config *c, int question)
{
    const llmmem__engine *e = llmmem__engine_for(c);
    const bool infer = c->mode == LLMMEM__MODE_INFERENCE && e;
    *prompt = false;
    switch (question) {
    case LLMMEM_PLAN_MAX_BATCH:
        *param = infer ? e->plan_batch : LLMMEM_P_MICRO_BATCH_SIZE;
        return LLMMEM_OK;
    case LLMMEM_PLAN_MAX_SEQ_LEN:
        *param = infer ? e->plan_len : LLMMEM_P_SEQ_LEN;
        *prompt = infer && e->plan_len == LLMMEM_P_PROMPT_LEN;
        return LLMMEM_OK;
    default:
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_plan_inverse: unknown question %d (1 max_batch, 2 "
                                                   "max_seq_len)",
                             question);
    }
}

static int inverse_args(const llmmem_model *model, const llmmem_config *cfg, const void *out,
                        const char *fn)
{
    if (!out || !model || !cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "%s: %s is NULL", fn,
                             !out ? "out" : !model ? "model" : "config");
    return llmmem__model_validate(model);
}

int llmmem_plan_inverse(int64_t *out, int64_t *again, int64_t *checked, const llmmem_model *model,
                        const llmmem_config *cfg, int question)
{
    if (!again || !checked)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_plan_inverse: %s is NULL", !again ? "again" : "checked");
    int rc = inverse_args(model, cfg, out, "llmmem_plan_inverse");
    if (rc)
        return rc;
    struct llmmem_config c = *cfg;
    int param = LLMMEM_P_MICRO_BATCH_SIZE;
    int64_t a, k, o;
    bool prompt;
    if ((rc = question_of(&param, &prompt, &c, question)) != 0 ||
        (rc = search_prefix(&o, &a, &k, model, &c, param, 1, llmmem__plan_param_hi(param))) != 0)
        return rc;
    /* inference: the context is prompt + decode */
    const int64_t d = prompt ? c.decode_len : 0;
    *out = o > 0 ? o + d : 0;
    *again = a > 0 ? a + d : 0;
    *checked = k > 0 ? k + d : 0;
    return LLMMEM_OK;
}

int llmmem_plan_max_batch(int64_t *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int64_t again, checked;
    int rc = inverse_args(model, cfg, out, "llmmem_plan_max_batch");
    return rc ? rc : llmmem_plan_inverse(out, &again, &checked, model, cfg, LLMMEM_PLAN_MAX_BATCH);
}

int llmmem_plan_max_seq_len(int64_t *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int64_t again, checked;
    int rc = inverse_args(model, cfg, out, "llmmem_plan_max_seq_len");
    return rc ? rc : llmmem_plan_inverse(out, &again, &checked, model, cfg, LLMMEM_PLAN_MAX_SEQ_LEN);
}

/* llama.cpp: the largest -ngl that fits. The GPU's bytes grow with every layer offloaded
 * (weights, their KV), so the answer is found by halves over 0 .. n_layer + 1 (the output
 * layer counts as one, llama-model.cpp load_tensors). */
int llmmem_plan_max_gpu_layers(int64_t *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = inverse_args(model, cfg, out, "llmmem_plan_max_gpu_layers");
    if (rc)
        return rc;
    if (cfg->mode != LLMMEM__MODE_INFERENCE || cfg->runtime != LLMMEM_RUNTIME_LLAMA_CPP || !model->gguf)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "llmmem_plan_max_gpu_layers: llama.cpp's -ngl: needs mode inference, runtime "
                             "llama_cpp and a model read from a GGUF file");
    struct llmmem_config c = *cfg;
    struct llmmem_result r;
    int64_t lo = -1, hi = (int64_t)model->gguf->hp.n_layer + 1; /* lo fits (or -1), above hi nothing */
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        c.n_gpu_layers = mid;
        if ((rc = llmmem_estimate(&r, model, &c)) != 0)
            return rc;
        if (r.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i)
            lo = mid;
        else
            hi = mid - 1;
    }
    *out = lo;
    return LLMMEM_OK;
}

/* Inference: the smallest tensor-parallel size that fits, ascending over the
 * divisors of the heads; the sizes that do not split the heads are skipped
 * (the estimator answers LLMMEM_E_INCONSISTENT). */
static int min_gpus_inference(int64_t *out, const llmmem_model *model, struct llmmem_config *c)
{
    struct llmmem_result r;
    int64_t d[LLMMEM__PLAN_MAX_N_DIV];
    int64_t heads = model->num_heads > 0 ? model->num_heads : 1;
    int nd = llmmem__plan_divisors(d, LLMMEM__PLAN_MAX_N_DIV, heads);
    for (int i = 0; i < nd; i++) {
        c->tp = d[i];
        c->num_gpus = d[i];
        int rc = llmmem_estimate(&r, model, c);
        if (rc == LLMMEM_E_INCONSISTENT || rc == LLMMEM_E_OUT_OF_RANGE)
            continue;
        if (rc)
            return rc;
        if (r.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
            *out = d[i];
            return LLMMEM_OK;
        }
    }
    return LLMMEM_OK;
}

/* fits_at with dp data-parallel ranks of `per` GPUs each; a layout the engine
 * rejects as inconsistent (e.g. expert parallel does not divide dp) does not fit. */
static int fits_dp(struct llmmem_result *r, const llmmem_model *model, struct llmmem_config *c,
                   int64_t dp, int64_t per)
{
    c->dp = dp;
    c->num_gpus = dp * per;
    int f = fits_at(r, model, c);
    return f == LLMMEM_E_INCONSISTENT ? 0 : f;
}

/* Training: the smallest data-parallel size at the configured TP x PP x CP
 * that fits, by doubling then bisecting (the last doubling step is hi). */
static int min_gpus_training(int64_t *out, const llmmem_model *model, struct llmmem_config *c)
{
    struct llmmem_result r;
    const int64_t per = c->tp * c->pp * c->cp;
    const llmmem__engine *e = llmmem__engine_of(LLMMEM_P_ENGINE, c->engine);
    if (e && (e->flags & LLMMEM__CAP_ONE_GPU)) {
        c->num_gpus = 1;
        int f = fits_at(&r, model, c);
        if (f < 0)
            return f;
        *out = f ? 1 : 0;
        return LLMMEM_OK;
    }
    const int64_t hi = llmmem__plan_param_hi(LLMMEM_P_NUM_GPUS) / per;
    int64_t lo = 0, good = 0; /* lo: largest dp known not to fit (0 = none tried) */
    for (int64_t dp = 1; dp <= hi; dp = dp > hi / 2 ? (dp == hi ? hi + 1 : hi) : dp * 2) {
        int f = fits_dp(&r, model, c, dp, per);
        if (f < 0)
            return f;
        if (f) {
            good = dp;
            break;
        }
        lo = dp;
    }
    if (!good)
        return LLMMEM_OK;
    while (good - lo > 1) {
        int64_t mid = lo + (good - lo) / 2;
        int f = fits_dp(&r, model, c, mid, per);
        if (f < 0)
            return f;
        if (f)
            good = mid;
        else
            lo = mid;
    }
    *out = good * per;
    return LLMMEM_OK;
}

int llmmem_plan_min_gpus(int64_t *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = inverse_args(model, cfg, out, "llmmem_plan_min_gpus");
    if (rc)
        return rc;
    struct llmmem_config c = *cfg;
    *out = 0;
    if (c.mode == LLMMEM__MODE_INFERENCE)
        return min_gpus_inference(out, model, &c);
    return min_gpus_training(out, model, &c);
}
