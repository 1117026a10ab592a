/* Where each parameter is read (issue 25 item 1): the mode that reads it, the engine or
 * runtime rows that list it among their options (their `reads`, config/engines.def;
 * llmmem_param_applies), the layouts one GPU cannot have, and the settings that only mean
 * something beside another (the LoRA details beside a rank, the chunk count beside the
 * chunked loss, the vision keys beside a vision tower). The one definition: llmmem_estimate
 * refuses a setting that does not apply (set through the API, the CLI or Python) and lists
 * one a file set as not applying; llmmem_config_param_applies answers for one parameter. */
#include "engines/engines.h"

#include <stdio.h>
#include <string.h>

enum { IN_BOTH = 0, IN_TRAINING = 1, IN_INFERENCE = 2 };

/* The mode of the parameters that one mode reads; the rest are read by both. The engine's
 * and runtime's options follow from their gate (an engine is a training engine). */
static const struct {
    int param, mode;
} modes[] = {
    {LLMMEM_P_MICRO_BATCH_SIZE, IN_TRAINING},
    {LLMMEM_P_SEQ_LEN, IN_TRAINING},
    {LLMMEM_P_GRAD_ACCUM_STEPS, IN_TRAINING},
    {LLMMEM_P_PEAK_SCOPE, IN_TRAINING},
    {LLMMEM_P_MASTER_WEIGHTS, IN_TRAINING},
    {LLMMEM_P_GRAD_DTYPE, IN_TRAINING},
    {LLMMEM_P_FP8_RECIPE, IN_TRAINING},
    {LLMMEM_P_OPTIMIZER, IN_TRAINING},
    {LLMMEM_P_OPTIMIZER_IMPL, IN_TRAINING},
    {LLMMEM_P_OPTIMIZER_STATE_DTYPE, IN_TRAINING},
    {LLMMEM_P_STEP, IN_TRAINING},
    {LLMMEM_P_OPTIMIZER_IN_BACKWARD, IN_TRAINING},
    {LLMMEM_P_CHECKPOINTING, IN_TRAINING},
    {LLMMEM_P_LOSS, IN_TRAINING},
    {LLMMEM_P_ACTIVATION_PROFILE, IN_TRAINING},
    {LLMMEM_P_DROPOUT, IN_TRAINING},
    {LLMMEM_P_COMPILE, IN_TRAINING},
    {LLMMEM_P_ACTIVATION_OFFLOADING, IN_TRAINING},
    {LLMMEM_P_LOSS_CHUNKS, IN_TRAINING},
    {LLMMEM_P_LIGER_KERNELS, IN_TRAINING},
    {LLMMEM_P_LORA_RANK, IN_TRAINING},
    {LLMMEM_P_LORA_ALPHA, IN_TRAINING},
    {LLMMEM_P_LORA_TARGETS, IN_TRAINING},
    {LLMMEM_P_LORA_DROPOUT, IN_TRAINING},
    {LLMMEM_P_QLORA, IN_TRAINING},
    {LLMMEM_P_QLORA_DOUBLE_QUANT, IN_TRAINING},
    {LLMMEM_P_ENGINE, IN_TRAINING},
    {LLMMEM_P_CONTEXT_PARALLEL, IN_TRAINING},
    {LLMMEM_P_EXPERT_PARALLEL, IN_TRAINING},
    {LLMMEM_P_EXPERT_TENSOR_PARALLEL, IN_TRAINING},
    {LLMMEM_P_VIRTUAL_PIPELINE, IN_TRAINING},
    {LLMMEM_P_EMPTY_CACHE_STEPS, IN_TRAINING},
    {LLMMEM_P_VISION_TRAINING, IN_TRAINING},
    {LLMMEM_P_BATCH_SIZE, IN_INFERENCE},
    {LLMMEM_P_PROMPT_LEN, IN_INFERENCE},
    {LLMMEM_P_DECODE_LEN, IN_INFERENCE},
    {LLMMEM_P_WEIGHTS_FORMAT, IN_INFERENCE},
    {LLMMEM_P_KV_CACHE_DTYPE, IN_INFERENCE},
    {LLMMEM_P_QUANT_BITS, IN_INFERENCE},
    {LLMMEM_P_QUANT_GROUP_SIZE, IN_INFERENCE},
    {LLMMEM_P_RUNTIME, IN_INFERENCE},
};

static int mode_of(int param)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(modes); i++)
        if (modes[i].param == param)
            return modes[i].mode;
    return IN_BOTH;
}

/* Whether a parameter holds its default (set or not: a default changes nothing). */
static bool at_default(const struct llmmem_config *c, const llmmem__param_info *p)
{
    const char *base = (const char *)c + p->offset;
    switch (p->type) {
    case LLMMEM_TYPE_F64: return *(const double *)(const void *)base == p->def_f;
    case LLMMEM_TYPE_STR: return strcmp(base, p->def_s) == 0;
    default: return *(const int64_t *)(const void *)base == p->def_i;
    }
}

static const char *mode_name(int64_t mode) { return llmmem_param_enum_name(LLMMEM_P_MODE, mode); }

/* Why `param` is not read by the configuration c (and model m, may be NULL): a message into
 * why[cap] and false; true when it is read. */
static bool reads(char *why, size_t cap, const struct llmmem_config *c, const struct llmmem_model *m,
                  const llmmem__param_info *p)
{
    const int param = p->id;
    const bool training = c->mode == LLMMEM__MODE_TRAINING;
    const int mode = mode_of(param);
    const int gate = training ? LLMMEM_P_ENGINE : LLMMEM_P_RUNTIME;
    const int64_t gv = training ? c->engine : c->runtime;
    const int other_gate = training ? LLMMEM_P_RUNTIME : LLMMEM_P_ENGINE;
    if ((mode == IN_TRAINING && !training) || (mode == IN_INFERENCE && training)) {
        snprintf(why, cap, "is read in mode %s only, and the mode is %s", mode == IN_TRAINING ? "training" : "inference",
                 mode_name(c->mode));
        return false;
    }
    /* an option of the other gate's rows (a vLLM option in training, a ZeRO option in inference) */
    if (param != other_gate) {
        for (int i = 0; llmmem__engine_at(i); i++) {
            const llmmem__engine *e = llmmem__engine_at(i);
            if (e->gate != other_gate || !e->reads)
                continue;
            for (int k = 0; e->reads[k]; k++)
                if (e->reads[k] == param) {
                    snprintf(why, cap, "is read by %s %s in mode %s, and the mode is %s", llmmem_param_name(other_gate),
                             e->name, training ? "inference" : "training", mode_name(c->mode));
                    return false;
                }
        }
    }
    if (llmmem_param_applies(param, gate, gv) == 0) {
        char list[160] = "";
        size_t n = 0;
        for (int i = 0; llmmem__engine_at(i); i++) {
            const llmmem__engine *e = llmmem__engine_at(i);
            for (int k = 0; e->gate == gate && e->reads && e->reads[k]; k++)
                if (e->reads[k] == param && n < sizeof list)
                    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? " or " : "", e->name);
        }
        snprintf(why, cap, "is read with %s %s only, and the %s is %s", llmmem_param_name(gate), list,
                 llmmem_param_name(gate), llmmem_param_enum_name(gate, gv));
        return false;
    }
    /* beside another setting */
    if ((param == LLMMEM_P_LORA_ALPHA || param == LLMMEM_P_LORA_TARGETS || param == LLMMEM_P_LORA_DROPOUT ||
         param == LLMMEM_P_QLORA_DOUBLE_QUANT) &&
        c->lora_rank <= 0) {
        snprintf(why, cap, "is a LoRA setting, and lora_rank is 0 (full fine-tuning)");
        return false;
    }
    if (param == LLMMEM_P_QLORA_DOUBLE_QUANT && c->qlora != LLMMEM__QLORA_NF4 && c->qlora != LLMMEM__QLORA_FP4) {
        snprintf(why, cap, "is read for a 4-bit qlora base only");
        return false;
    }
    if (m && param == LLMMEM_P_ENABLE_EXPERT_PARALLEL && m->num_experts <= 0) {
        snprintf(why, cap, "splits experts, and %s has none", m->model_type);
        return false;
    }
    if (param == LLMMEM_P_DISABLE_CUSTOM_ALL_REDUCE && c->tp <= 1) {
        snprintf(why, cap, "is read with tensor_parallel_size above 1 only (one GPU all-reduces nothing)");
        return false;
    }
    /* Megatron's distributed optimizer shards the optimizer over the data-parallel ranks
     * (distrib_optimizer.py): one rank holds it all */
    if (param == LLMMEM_P_DISTRIBUTED_OPTIMIZER && training) {
        const int64_t mp = (c->tp > 0 ? c->tp : 1) * (c->pp > 0 ? c->pp : 1) * (c->cp > 0 ? c->cp : 1);
        const int64_t dp = llmmem__config_was_set(c, LLMMEM_P_DATA_PARALLEL) || c->num_gpus <= 0 ? c->dp : c->num_gpus / mp;
        if (dp <= 1) {
            snprintf(why, cap, "shards the optimizer over the data-parallel ranks, and there is one (num_gpus / "
                               "(tensor x pipeline x context parallel))");
            return false;
        }
    }
    if (param == LLMMEM_P_LOSS_CHUNKS && c->loss != LLMMEM__LOSS_TORCHTUNE_CHUNKED) {
        snprintf(why, cap, "is read with loss torchtune_chunked only");
        return false;
    }
    if (m && m->vision_params <= 0 &&
        (param == LLMMEM_P_IMAGES_PER_SAMPLE || param == LLMMEM_P_IMAGE_HEIGHT || param == LLMMEM_P_IMAGE_WIDTH ||
         param == LLMMEM_P_VIDEO_FRAMES || param == LLMMEM_P_VISION_TRAINING || param == LLMMEM_P_MIN_PIXELS ||
         param == LLMMEM_P_MAX_PIXELS || param == LLMMEM_P_ENCODER_CACHE)) {
        snprintf(why, cap, "is read for a model with a vision tower, and %s has none", m->model_type);
        return false;
    }
    return true;
}

/* A run one GPU holds (engine single) has no second GPU to split over; HF generate runs one
 * process that tensor parallelism alone splits. */
static bool layout_reads(char *why, size_t cap, const struct llmmem_config *c, int param)
{
    static const int sizes[] = {LLMMEM_P_NUM_GPUS, LLMMEM_P_DATA_PARALLEL, LLMMEM_P_TENSOR_PARALLEL,
                                LLMMEM_P_PIPELINE_PARALLEL, LLMMEM_P_CONTEXT_PARALLEL, LLMMEM_P_EXPERT_PARALLEL,
                                LLMMEM_P_EXPERT_TENSOR_PARALLEL, LLMMEM_P_VIRTUAL_PIPELINE, LLMMEM_P_GPUS_PER_NODE};
    bool size = false;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(sizes); i++)
        size = size || sizes[i] == param;
    if (!size)
        return true;
    /* one of each (num_gpus 0 or 1) is the one GPU every run has */
    const llmmem__param_info *p = llmmem__param_find(param);
    if (*(const int64_t *)(const void *)((const char *)c + p->offset) <= 1 && param != LLMMEM_P_GPUS_PER_NODE)
        return true;
    const llmmem__engine *e = llmmem__engine_for(c);
    if (c->mode == LLMMEM__MODE_TRAINING && e && (e->flags & LLMMEM__CAP_ONE_GPU)) {
        const bool model_parallel = param != LLMMEM_P_NUM_GPUS && param != LLMMEM_P_DATA_PARALLEL;
        snprintf(why, cap,
                 "is a layout of several GPUs, and engine %s trains on one: set engine %s (CLI: --engine %s)",
                 e->name, model_parallel ? "megatron" : "ddp, zero or fsdp", model_parallel ? "megatron" : "ddp");
        return false;
    }
    if (c->mode == LLMMEM__MODE_INFERENCE && c->runtime == LLMMEM__RT_HF &&
        (param == LLMMEM_P_PIPELINE_PARALLEL || param == LLMMEM_P_DATA_PARALLEL || param == LLMMEM_P_GPUS_PER_NODE)) {
        snprintf(why, cap, "is not read by HF generate (one process, split by tensor_parallel_size alone); vLLM "
                           "reads it (runtime vllm)");
        return false;
    }
    return true;
}

/* Read, and no byte of memory follows from it: DDP's bucket cap splits the buckets, whose
 * bytes hold every gradient whatever their size (torch/csrc/distributed/c10d/reducer.cpp
 * initialize_buckets). Listed as not applying, never refused. */
static bool read_no_memory(int param) { return param == LLMMEM_P_BUCKET_CAP_MB; }

/* The index of the lowest set bit of x (x != 0). */
static int lowest_bit(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int i = 0;
    while (!(x & 1)) {
        x >>= 1;
        i++;
    }
    return i;
#endif
}

static void value_text(char *buf, size_t cap, const struct llmmem_config *c, int param)
{
    size_t need;
    if (llmmem_config_get_str(buf, cap, &need, c, param) != 0)
        snprintf(buf, cap, "?");
}

int llmmem__applies_check(const struct llmmem_config *c, const struct llmmem_model *m, struct llmmem_result *notes)
{
    if (c->no_applies_check)
        return LLMMEM_OK;
    /* the parameters set, in table order: a set_mask bit is (id / 100 - 1) x 64 + id % 100
     * (config.c), increasing with the id, and the table is in id order (params.c); the
     * default question sets none and costs a dozen words' test */
    for (int w = 0; w < LLMMEM__SET_WORDS; w++)
        for (uint64_t bits = c->set_mask[w]; bits; bits &= bits - 1) {
            const llmmem__param_info *p = llmmem__param_find((w + 1) * 100 + lowest_bit(bits));
            if (!p || at_default(c, p))
                continue;
            char why[256];
            const bool read = reads(why, sizeof why, c, m, p) && layout_reads(why, sizeof why, c, p->id);
            const bool no_memory = read && read_no_memory(p->id);
            if (no_memory)
                snprintf(why, sizeof why, "splits DDP's buckets, whose bytes hold every gradient whatever their size "
                                          "(c10d/reducer.cpp): the memory is the same");
            else if (read)
                continue;
            char v[96];
            value_text(v, sizeof v, c, p->id);
            const char *origin = llmmem__config_origin(c, p->id);
            if (*origin || no_memory) { /* a file set it (it may serve other runs too), or it is read without a
                                           byte of difference: listed */
                if (notes)
                    llmmem__result_note(notes, "not applying: %s = %s%s %s", p->name, v, origin, why);
                continue;
            }
            if (!notes) {
                const llmmem__engine *e = llmmem__engine_for(c);
                const char *instead = e && e->instead ? e->instead(p->id) : NULL;
                if (instead)
                    return llmmem__error(LLMMEM_E_INCONSISTENT, "%s = %s does not apply: it %s; with %s %s, set %s",
                                         p->name, v, why, llmmem_param_name(e->gate), e->name, instead);
                return llmmem__error(LLMMEM_E_INCONSISTENT, "%s = %s does not apply: it %s; set it where it is read, or "
                                                            "leave it out",
                                     p->name, v, why);
            }
        }
    return LLMMEM_OK;
}

int llmmem_config_param_applies(const llmmem_config *cfg, const llmmem_model *model, int param)
{
    if (!cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_param_applies: cfg is NULL");
    const llmmem__param_info *p = llmmem__param_find(param);
    if (!p)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_param_applies: unknown parameter %d", param);
    char why[256];
    if (reads(why, sizeof why, cfg, model, p) && layout_reads(why, sizeof why, cfg, param))
        return 1;
    char v[96];
    value_text(v, sizeof v, cfg, param);
    llmmem__error(LLMMEM_E_INCONSISTENT, "%s = %s does not apply: it %s; set it where it is read, or leave it out",
                  p->name, v, why);
    return 0;
}
