/* The one registration array of engines and runtimes (zstd's block
 * compressors by strategy, libgit2's transports[]): every row of
 * config/engines.def, in table order, engines first. llmmem_estimate picks a
 * row here; the planner walks the rows; llmmem_param_applies answers from
 * their `reads` lists. */
#include "engines/engines.h"

static const llmmem__engine *const rows[] = {
#define LLMMEM__ENGINE(value, name, row) &row,
#define LLMMEM__RUNTIME(value, name, row) &row,
#include "config/engines.def"
};

const llmmem__engine *llmmem__engine_at(int index)
{
    return index >= 0 && (size_t)index < LLMMEM_ARRAY_LEN(rows) ? rows[index] : NULL;
}

const llmmem__engine *const llmmem__engine_by_value[LLMMEM__ENGINES] = {
#define LLMMEM__ENGINE(value, name, row) [value] = &row,
#include "config/engines.def"
};
const llmmem__engine *const llmmem__runtime_by_value[LLMMEM__RUNTIMES] = {
#define LLMMEM__RUNTIME(value, name, row) [value] = &row,
#include "config/engines.def"
};

static bool lists(const int *reads, int param)
{
    for (int i = 0; reads && reads[i]; i++)
        if (reads[i] == param)
            return true;
    return false;
}

int llmmem_param_applies(int param, int gate, int64_t value)
{
    if (!llmmem__param_find(param))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_param_applies: unknown parameter %d", param);
    if (gate != LLMMEM_P_ENGINE && gate != LLMMEM_P_RUNTIME)
        return llmmem__error(LLMMEM_E_INVALID_ARG,
                             "llmmem_param_applies: gate %d is not LLMMEM_P_ENGINE or LLMMEM_P_RUNTIME", gate);
    const llmmem__engine *e = llmmem__engine_of(gate, value);
    if (!e)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_param_applies: %s has no value %lld",
                             llmmem_param_name(gate), (long long)value);
    if (lists(e->reads, param))
        return 1;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(rows); i++)
        if (rows[i]->gate == gate && lists(rows[i]->reads, param))
            return 0; /* an option of other rows of the gate */
    return 1;
}
