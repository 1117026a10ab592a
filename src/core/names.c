/* Version queries and the names of every public enum, so that bindings
 * (ctypes, cffi) reach them at run time (libsodium style). */
#include "core/result.h"

unsigned llmmem_version_number(void) { return LLMMEM_VERSION_NUMBER; }
const char *llmmem_version_string(void) { return LLMMEM_VERSION_STRING; }
int llmmem_soversion(void) { return LLMMEM_SOVERSION; }

static const char *const phase_names[LLMMEM__PHASES] = {"forward", "backward", "optimizer",
                                                        "prefill", "decode"};

static const char *const component_names[LLMMEM__COMPONENTS] = {
    "weights",     "master_weights", "gradients",      "optimizer_state", "optimizer_transient",
    "activations", "activation_transient", "logits",   "autocast_cache",  "kv_cache",
    "comm_buffers", "gathered_params", "workspace",    "other"};

/* The result keys' names and types, by key (core/rkeys.def). */
static const struct {
    const char *name;
    int type;
} result_keys[LLMMEM__RKEYS] = {
#define KEY(key, name, type) [key - LLMMEM_R_PARAMS] = {name, LLMMEM_TYPE_##type},
    LLMMEM__RESULT_KEYS(KEY)
#undef KEY
};

const char *llmmem_phase_name(int phase)
{
    return phase >= 0 && phase < LLMMEM__PHASES ? phase_names[phase] : NULL;
}

const char *llmmem_component_name(int component)
{
    return component >= 0 && component < LLMMEM__COMPONENTS ? component_names[component] : NULL;
}

int llmmem_phase_count(void) { return LLMMEM__PHASES; }
int llmmem_component_count(void) { return LLMMEM__COMPONENTS; }
int llmmem_result_key_count(void) { return LLMMEM__RKEYS; }

int llmmem_result_key_at(int index)
{
    if (index < 0 || index >= LLMMEM__RKEYS)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "result key index %d: expected 0..%d", index,
                             LLMMEM__RKEYS - 1);
    return LLMMEM_R_PARAMS + index;
}

const char *llmmem_result_key_name(int key)
{
    int64_t i = (int64_t)key - LLMMEM_R_PARAMS; /* key may be INT_MIN */
    return i >= 0 && i < LLMMEM__RKEYS ? result_keys[i].name : NULL;
}

int llmmem_result_key_type(int key)
{
    int64_t i = (int64_t)key - LLMMEM_R_PARAMS; /* key may be INT_MIN */
    if (i < 0 || i >= LLMMEM__RKEYS)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "unknown result key %d", key);
    return result_keys[i].type;
}

/* Names of the dtype result keys' values: 0 "none", the dtypes (core/dtypes.def), then the
 * optimizers' 8- and 4-bit states (LLMMEM__RDT_INT8, _INT4). */
#define DTYPE_NAME(P, V, name) [LLMMEM__DT_##V] = name,
const char *const llmmem__result_dtype_names[LLMMEM__RDT_COUNT] = {
    [0] = "none", LLMMEM__DTYPES_SIZED(DTYPE_NAME, _)[LLMMEM__RDT_INT8] = "int8", [LLMMEM__RDT_INT4] = "int4"};
#undef DTYPE_NAME

const char *llmmem_result_enum_name(int key, int64_t value)
{
    if (key == LLMMEM_R_PEAK_PHASE)
        return value >= 0 && value < LLMMEM__PHASES ? phase_names[value] : NULL;
    if (key >= LLMMEM_R_PARAM_DTYPE && key <= LLMMEM_R_OPTIMIZER_STATE_DTYPE)
        return value >= 0 && value < (int64_t)LLMMEM_ARRAY_LEN(llmmem__result_dtype_names)
                   ? llmmem__result_dtype_names[value]
                   : NULL;
    return NULL;
}
