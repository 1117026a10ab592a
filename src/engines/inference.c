/* The skeleton of every inference estimate: the runtime rows (HF transformers
 * generate, hf/hf.c; vLLM's memory budget, vllm/vllm.c) start from what this
 * file computes. Pure arithmetic, no allocation. It checks the arguments,
 * computes what every runtime shares (weights and KV bytes per GPU under
 * tensor parallelism, the vision tokens), calls the row's infer hook and
 * searches the tensor-parallel size that fits. The byte model is in infer/
 * (weights.c, kv.c, prefill*.c, decode.c); the run, with the checks, is
 * memory/run.c's. */
#include "engines/engines.h"

#include <string.h>

#define u llmmem__nonneg

/* GPUs needed for serving: the configured TP when it fits, else the smallest
 * tensor-parallel size (a divisor of the heads above the configured one) whose
 * estimate fits; 0 when none does. Each try is a full estimate into a scratch
 * result on the stack (no allocation). */
static void set_gpus_needed(struct llmmem_result *r, const struct llmmem_model *m,
                            const struct llmmem_config *c, const llmmem__engine *e, int64_t tp, bool search)
{
    int64_t needed = tp;
    if (!r->v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
        needed = 0;
        if (search) {
            struct llmmem_config cc = *c;
            struct llmmem_result scratch;
            /* within the tensor_parallel_size bound of the parameter table (4096) */
            const int64_t tmax = m->num_heads < 4096 ? m->num_heads : 4096;
            for (int64_t t = tp + 1; t <= tmax; t++) {
                if (m->num_heads % t)
                    continue;
                cc.tp = t;
                if (llmmem__engine_infer(&scratch, m, &cc, e, false, NULL) == 0 &&
                    scratch.v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
                    needed = t;
                    break;
                }
            }
        }
    }
    if (needed == 0 && search)
        llmmem__no_gpu_count_fits(r, "no tensor-parallel size that divides the heads fits");
    else
        llmmem__result_set_i64(r, LLMMEM_R_GPUS_NEEDED, needed);
}

/* Weights, heads and KV bytes on one GPU of the tensor-parallel group. Tensor
 * parallel splits every matrix and the vocabulary (column/row-parallel
 * linears, VocabParallelEmbedding); norms are replicated but negligible. KV
 * heads are split, or replicated when there are fewer than TP ranks (vLLM
 * get_num_kv_heads: max(1, k / tp)). */
static void infer_base(llmmem__infer_base *b, llmmem__ovf *o, const llmmem__run *run)
{
    const struct llmmem_model *m = run->m;
    const struct llmmem_config *c = run->c;
    const uint64_t tp = run->tp;
    b->run = run;
    b->tp = (int64_t)tp;
    b->gpu = run->gpu;
    b->fmt = llmmem__weights_format(m, c);
    b->e = llmmem__weights_act_bytes(b->fmt, m, c);
    const uint64_t bits = c->quant_bits > 0   ? u(c->quant_bits)
                          : m->quant_bits > 0 ? u(m->quant_bits)
                                              : 4;
    int64_t gs = c->quant_group_size != 0   ? c->quant_group_size
                 : m->quant_group_size != 0 ? m->quant_group_size
                                            : 128;
    const uint64_t group = gs < 0 ? 0 : (uint64_t)gs;
    b->kvb = (uint64_t)llmmem__dtype_bytes((int)c->kv_cache_dtype);
    if (b->kvb == 0)
        b->kvb = b->e;
    b->ws = c->cublas_workspace_bytes >= 0 ? (uint64_t)c->cublas_workspace_bytes
                                           : b->gpu->cublas_workspace_bytes;
    b->weights = llmmem__ceil_div(llmmem__weights_bytes(o, m, b->fmt, b->e, bits, group), tp);
    b->a_r = run->a_r;
    b->k_r = run->k_r;
    b->kv_tl = llmmem__kv_token_layer(o, m, b->kvb, b->k_r);
    b->kv_tok = llmmem__mul(o, b->kv_tl, u(m->num_layers));
}

/* The keys every runtime reports; the weights term, unless the runtime stores
 * the weights its own way and reports them itself (vLLM, vllm/vllm.c). */
static void infer_keys(struct llmmem_result *r, const struct llmmem_model *m,
                       const llmmem__infer_base *b, bool weights_term)
{
    llmmem__result_set_i64(r, LLMMEM_R_PARAMS, m->params);
    llmmem__result_set_i64(r, LLMMEM_R_TRAINABLE_PARAMS, 0);
    llmmem__result_set_i64(r, LLMMEM_R_ACTIVE_PARAMS,
                           m->params_active ? m->params_active : m->params);
    llmmem__result_set_i64(r, LLMMEM_R_NUM_GPUS, b->tp);
    llmmem__result_set_u64(r, LLMMEM_R_WEIGHTS_BYTES, b->weights);
    llmmem__result_set_u64(r, LLMMEM_R_PERSISTENT_BYTES, b->weights);
    llmmem__result_set_u64(r, LLMMEM_R_KV_BYTES_PER_TOKEN, b->kv_tok);
    if (weights_term)
        llmmem__result_term(r, "weights", llmmem__weights_formula(b->fmt), b->weights);
}

int llmmem__engine_infer(struct llmmem_result *r, const struct llmmem_model *m, const struct llmmem_config *c,
                         const llmmem__engine *e, bool search, struct llmmem__tl *sink)
{
    if (!r || !m || !c)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_estimate_inference: NULL argument");
    llmmem__infer_base b;
    memset(&b, 0, sizeof b);
    llmmem__run run; /* resolved once, with the checks of every inference estimate (memory/run.c) */
    int rc = llmmem__run_resolve_infer(&run, m, c);
    if (rc || (rc = llmmem__kinds_check(m, c, e->kinds_use)) != 0)
        return rc;
    run.caps = e->flags;
    run.no_replay = e->no_replay;
    run.sink = sink;
    llmmem__ovf o = {false};
    llmmem__result_clear(r);
    r->mode = LLMMEM__MODE_INFERENCE;
    r->no_replay = e->no_replay;
    llmmem__result_model(r, m);
    if (e->gate == LLMMEM_P_RUNTIME && e->value == LLMMEM_RUNTIME_HF)
        llmmem__result_harness_gap(r, m, false); /* transformers' generate */
    infer_base(&b, &o, &run);
    /* Vision-language models (vision.c): image tokens join each prompt; the
     * frozen encoder's working set for the batch's images is a prefill point. */
    if ((rc = llmmem__vision_compute(&b.vb, m, c, run.B, run.S, &o)) != 0)
        return rc;
    b.overflow = o.overflow;
    infer_keys(r, m, &b, !(e->flags & LLMMEM__CAP_OWN_WEIGHTS));
    rc = e->infer(r, m, c, &b);
    if (rc == 0)
        set_gpus_needed(r, m, c, e, b.tp, search);
    return rc;
}
