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

static const struct {
    const char *name;
    int type;
} result_keys[LLMMEM__RKEYS] = {
    {"params", LLMMEM_TYPE_I64},
    {"trainable_params", LLMMEM_TYPE_I64},
    {"peak_allocated_bytes", LLMMEM_TYPE_U64},
    {"peak_reserved_bytes", LLMMEM_TYPE_U64},
    {"total_bytes_per_gpu", LLMMEM_TYPE_U64},
    {"gpu_memory_bytes", LLMMEM_TYPE_U64},
    {"cuda_context_bytes", LLMMEM_TYPE_U64},
    {"peak_phase", LLMMEM_TYPE_ENUM},
    {"fits", LLMMEM_TYPE_BOOL},
    {"utilization", LLMMEM_TYPE_F64},
    {"headroom_bytes", LLMMEM_TYPE_I64},
    {"gpus_needed", LLMMEM_TYPE_I64},
    {"num_gpus", LLMMEM_TYPE_I64},
    {"host_bytes", LLMMEM_TYPE_U64},
    {"nvme_bytes", LLMMEM_TYPE_U64},
    {"weights_bytes", LLMMEM_TYPE_U64},
    {"persistent_bytes", LLMMEM_TYPE_U64},
    {"forward_saved_bytes", LLMMEM_TYPE_U64},
    {"kv_cache_bytes", LLMMEM_TYPE_U64},
    {"kv_bytes_per_token", LLMMEM_TYPE_U64},
    {"max_concurrent_seqs", LLMMEM_TYPE_I64},
    {"max_context_tokens", LLMMEM_TYPE_I64},
    {"kv_blocks", LLMMEM_TYPE_I64},
    {"pipeline_stages", LLMMEM_TYPE_I64},
    {"peak_stage", LLMMEM_TYPE_I64},
    {"active_params", LLMMEM_TYPE_I64},
    {"kv_available_bytes", LLMMEM_TYPE_U64},
    {"kv_tokens", LLMMEM_TYPE_I64},
    {"max_concurrency", LLMMEM_TYPE_F64},
    {"profile_peak_bytes", LLMMEM_TYPE_U64},
    {"non_torch_bytes", LLMMEM_TYPE_U64},
    {"cuda_graph_bytes", LLMMEM_TYPE_U64},
    {"kv_block_tokens", LLMMEM_TYPE_I64},
    {"requested_bytes", LLMMEM_TYPE_U64},
    {"param_dtype", LLMMEM_TYPE_ENUM},
    {"compute_dtype", LLMMEM_TYPE_ENUM},
    {"master_dtype", LLMMEM_TYPE_ENUM},
    {"grad_dtype", LLMMEM_TYPE_ENUM},
    {"optimizer_state_dtype", LLMMEM_TYPE_ENUM},
    {"managed_bytes", LLMMEM_TYPE_U64},
    {"load_peak_bytes", LLMMEM_TYPE_U64},
    {"approximate", LLMMEM_TYPE_BOOL},
    {"margin_bytes", LLMMEM_TYPE_U64},
    {"max_model_len", LLMMEM_TYPE_I64},
    {"estimated_max_model_len", LLMMEM_TYPE_I64},
};

_Static_assert(LLMMEM_R_ESTIMATED_MAX_MODEL_LEN - LLMMEM_R_PARAMS + 1 == LLMMEM__RKEYS,
               "result key table out of step with the header");

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

/* Names of the dtype result keys' values (order = LLMMEM__RDT: none, enum llmmem__dtype,
 * int8, int4). */
static const char *const result_dtype_names[] = {"none", "fp32", "fp16", "bf16",
                                                 "fp8",  "int8", "int4"};

const char *llmmem_result_enum_name(int key, int64_t value)
{
    if (key == LLMMEM_R_PEAK_PHASE)
        return value >= 0 && value < LLMMEM__PHASES ? phase_names[value] : NULL;
    if (key >= LLMMEM_R_PARAM_DTYPE && key <= LLMMEM_R_OPTIMIZER_STATE_DTYPE)
        return value >= 0 && value < (int64_t)LLMMEM_ARRAY_LEN(result_dtype_names)
                   ? result_dtype_names[value]
                   : NULL;
    return NULL;
}
