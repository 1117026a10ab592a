/* Copies of weights made for the matmuls: autocast's compute-dtype cast of
 * each matmul weight, Transformer Engine's fp8 copies, and the dequantised
 * weight of a QLoRA Linear. The phases decide how long each copy lives
 * (phases.c); this file only sizes them. */
#include "train/train.h"

/* Autocast caches the low-precision copy of each trainable fp32 weight
 * (autocast_mode.cpp cached_cast: leaf tensors that require grad); frozen fp32
 * weights are cast on every use, and kept by the Linear's backward either way.
 * The head (tied or not) is one V x h matmul weight. Experts are 3-D
 * parameters, not nn.Linear, and run uncast (saved.c saved_experts). */
static void autocast_cache_amp(llmmem__train *t, const llmmem__train_in *in, uint64_t matmul_params,
                               llmmem__ovf *o)
{
    const struct llmmem_model *m = in->m;
    const uint64_t L = (uint64_t)(m->num_layers > 0 ? m->num_layers : 1);
    const uint64_t head = (uint64_t)m->vocab_size * (uint64_t)m->hidden_size;
    uint64_t body = llmmem__sub0(matmul_params, head);
    t->cast_layer = llmmem__mul(o, body / L, in->rc.cb);
    t->cast_other = llmmem__mul(o, head, in->rc.cb);
    t->cast_cached_layer = in->rc.full_ft ? t->cast_layer : 0;
}

/* fp8 compute (documented model, docs/formulas.md): Transformer Engine keeps
 * an fp8 copy of each Linear weight and its transpose for the backward (1 B
 * each), per-tensor scaling state aside; the delayed recipe adds an amax
 * history of 1024 fp32 values per tensor (negligible). */
static void autocast_cache_fp8(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    const struct llmmem_model *m = in->m;
    const uint64_t L = (uint64_t)(m->num_layers > 0 ? m->num_layers : 1);
    const uint64_t head = (uint64_t)m->vocab_size * (uint64_t)m->hidden_size;
    uint64_t body = llmmem__sub0(in->lin.params, m->tie_embeddings ? 0 : head);
    t->cast_layer = llmmem__mul(o, body / L, 2);
    t->cast_other = 0;
    t->cast_cached_layer = t->cast_layer;
}

/* QLoRA: one dequantised weight (the largest quantised Linear) in the
 * compute dtype, alive while its matmul runs (bitsandbytes functional.py
 * dequantize_4bit). torchtune's torchao NF4Tensor in eager
 * (get_original_weight) also holds both nibble planes as int64 (8 B per
 * element) and three 16-bit intermediates at its return; compiled, the
 * dequantisation fuses and only the 16-bit weight remains. */
static uint64_t cast_qlora_dequant(const llmmem__train_in *in, llmmem__ovf *o)
{
    if (!in->rc.qlora)
        return 0;
    if (in->c->activation_profile == LLMMEM__PROFILE_TORCHTUNE) /* torchao NF4: the model dtype */
        return llmmem__mul(o, in->qlin_largest,
                           in->c->compile == LLMMEM__COMPILE_NONE ? 8 + 3 * in->rc.cb : in->rc.cb);
    /* bitsandbytes: the weight dequantised to the compute dtype (Lightning's
     * _Linear4bit._quantize_weight quantises an fp16 copy, so dequantize_4bit
     * returns fp16 and MatMul4Bit casts it to the input dtype) */
    const uint64_t qcb = in->qcb;
    uint64_t per = in->c->activation_profile == LLMMEM__PROFILE_LITGPT ? 2 + qcb : qcb;
    uint64_t t = llmmem__mul(o, in->qlin_largest, per);
    /* a compute dtype other than the model's: Linear4bit.forward's input cast
     * and the matmul's output in that dtype, beside the dequantised weight
     * (x.to(compute_dtype); the result .to(inp_dtype) after); the input copy is
     * not saved (MatMul4Bit ctx.tensors = (None, B)) */
    if (qcb != in->rc.cb)
        t = llmmem__add(o, t, llmmem__mul3(o, in->T, in->qlin_largest_io, qcb));
    return t;
}

void llmmem__casts_compute(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    const struct llmmem_model *m = in->m;
    /* the matmul weights: the Linears, and lm_head when it uses the embedding */
    uint64_t matmul_params = in->lin.params;
    if (m->tie_embeddings)
        matmul_params = llmmem__add(o, matmul_params,
                                    llmmem__mul(o, (uint64_t)m->vocab_size, (uint64_t)m->hidden_size));
    if (in->rc.amp)
        autocast_cache_amp(t, in, matmul_params, o);
    if (in->rc.fp8)
        autocast_cache_fp8(t, in, o); /* replaces autocast's copies */
    t->quant_transient = cast_qlora_dequant(in, o);
}
