/* The precision a training engine runs with where the config leaves it to
 * the engine (master_weights, grad_dtype, optimizer_state_dtype "auto"): each
 * row's own choice (its `masters` and `precision` hooks, read from the
 * engine's code and named by its precision_source), and the dtypes the result
 * reports. */
#include "engines/engines.h"

#include <stdio.h>
#include <string.h>

int llmmem__engine_precision(struct llmmem_config *out, const struct llmmem_config *c,
                            const llmmem__engine *e)
{
    memcpy(out, c, sizeof *out);
    if (c->master_weights == LLMMEM__MASTER_AUTO)
        out->master_weights = e->masters && e->masters(c) ? LLMMEM__MASTER_ON : LLMMEM__MASTER_OFF;
    if (e->precision)
        e->precision(out, c);
    return LLMMEM_OK;
}

/* The 16-bit dtype of a run: compute, else param, else bf16. */
static int64_t dtype16(const struct llmmem_config *c)
{
    if (llmmem__is16(llmmem__compute_of(c)))
        return llmmem__compute_of(c);
    return llmmem__is16(c->param_dtype) ? c->param_dtype : LLMMEM__DT_BF16;
}

/* A dtype enum from bytes per element (2: the run's 16-bit dtype). */
static int64_t dtype_of_bytes(const struct llmmem_config *c, int bytes)
{
    switch (bytes) {
    case 4: return LLMMEM__DT_FP32;
    case 2: return dtype16(c);
    case 1: return LLMMEM__DT_FP8;
    default: return 0;
    }
}

void llmmem__engine_precision_report(struct llmmem_result *r, const struct llmmem_config *orig,
                                     const struct llmmem_config *c, const llmmem__states *st,
                                     const llmmem__engine *e, int64_t stored, int64_t grad)
{
    const bool defaulted = orig->master_weights == LLMMEM__MASTER_AUTO ||
                           orig->grad_dtype == LLMMEM__DT_AUTO ||
                           orig->optimizer_state_dtype == LLMMEM__DT_AUTO;
    if (stored == 0) /* with masters the module runs in the compute dtype */
        stored = c->master_weights == LLMMEM__MASTER_ON ? llmmem__compute_of(c) : c->param_dtype;
    llmmem__result_set_i64(r, LLMMEM_R_PARAM_DTYPE, stored);
    llmmem__result_set_i64(r, LLMMEM_R_COMPUTE_DTYPE, llmmem__compute_of(c));
    const bool master = st->master > 0 || c->master_weights == LLMMEM__MASTER_ON;
    llmmem__result_set_i64(r, LLMMEM_R_MASTER_DTYPE, master ? LLMMEM__DT_FP32 : 0);
    llmmem__result_set_i64(r, LLMMEM_R_GRAD_DTYPE, grad ? grad : dtype_of_bytes(c, st->grad_bytes));
    int64_t state = llmmem__optim_state_rdt((int)c->optimizer);
    if (!state)
        state = dtype_of_bytes(c, st->state_bytes);
    llmmem__result_set_i64(r, LLMMEM_R_OPTIMIZER_STATE_DTYPE, state);
    /* the dtype result keys' value names (core/dtypes.def), with their lengths */
#define DTYPE_STR(P, V, name) [LLMMEM__DT_##V] = LLMMEM__STR(name),
    static const llmmem__str names[LLMMEM__RDT_COUNT] = {[0] = LLMMEM__STR("none"), LLMMEM__DTYPES_SIZED(DTYPE_STR, _)
                                                         [LLMMEM__RDT_INT8] = LLMMEM__STR("int8"),
                                                         [LLMMEM__RDT_INT4] = LLMMEM__STR("int4")};
#undef DTYPE_STR
    const int64_t g = r->v[LLMMEM_R_GRAD_DTYPE - LLMMEM_R_PARAMS].i;
    const llmmem__str parts[] = {LLMMEM__STR("precision: "),
                                 names[stored],
                                 LLMMEM__STR(" weights, "),
                                 names[llmmem__compute_of(c)],
                                 LLMMEM__STR(" compute, "),
                                 master ? LLMMEM__STRV("fp32") : LLMMEM__STRV("no"),
                                 LLMMEM__STR(" masters, "),
                                 names[g],
                                 LLMMEM__STR(" grads, "),
                                 names[state],
                                 LLMMEM__STR(" optimizer state ("),
                                 defaulted ? LLMMEM__STRV("engine defaults: ") : LLMMEM__STRV("as configured; "),
                                 e->precision_source,
                                 LLMMEM__STR(")")};
    llmmem__result_note_cat(r, parts, (int)LLMMEM_ARRAY_LEN(parts));
}
