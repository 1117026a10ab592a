/* The loss and its logits: what the loss keeps after forward (logits_saved),
 * its extra working set at the loss in forward (logits_fwd_extra) and at the
 * start of backward (logits_bwd_extra), one function per loss implementation. */
#include "memory/memory.h"

/* transformers loss/loss_utils.py ForCausalLMLoss: logits in the compute
 * dtype, .float() upcast, log_softmax kept (fp32). Forward peak holds logits +
 * fp32 copy + log-probs; backward starts with the kept log-probs plus two fp32
 * gradients (nll and log_softmax backward). cap * tanh(logits / cap)
 * (gemma2 final_logit_softcapping): tanh keeps its output. */
static void loss_hf_fp32_upcast(llmmem__train *t, const llmmem__train_in *in, uint64_t TV, llmmem__ovf *o)
{
    const uint64_t cb = in->rc.cb;
    t->logits_saved = llmmem__mul(o, TV, 4);
    if (in->m->final_logit_softcapping > 0)
        t->logits_saved = llmmem__add(o, t->logits_saved, llmmem__mul(o, TV, cb));
    uint64_t up = cb == 4 ? 0 : 4;
    t->logits_fwd_extra = llmmem__mul(o, TV, cb + up);
    t->logits_bwd_extra = llmmem__mul(o, TV, 8);
}

/* Liger fused linear cross entropy: chunks of next_pow2(ceil(T/ceil(V/h)))
 * rows; grad_input (T x h) and grad_weight (V x h) computed in forward. */
static void loss_liger_fused(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    const uint64_t T = in->T, h = (uint64_t)in->m->hidden_size, V = (uint64_t)in->m->vocab_size;
    uint64_t ratio = llmmem__ceil_div(V, h);
    uint64_t rows = llmmem__ceil_div(T, ratio ? ratio : 1), chunk = 1;
    while (chunk < rows)
        chunk <<= 1;
    t->logits_saved = llmmem__add(o, llmmem__mul3(o, T, h, in->rc.cb),
                                  llmmem__add(o, llmmem__mul3(o, V, h, in->rc.pb), 4 * T));
    t->logits_fwd_extra = llmmem__mul3(o, chunk, V, in->rc.cb + 4);
    t->logits_bwd_extra = 0;
}

/* Chunked CE: logits of 1024-token chunks recomputed in backward. */
static void loss_chunked(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    const uint64_t V = (uint64_t)in->m->vocab_size, cb = in->rc.cb;
    uint64_t chunk = llmmem__min(in->T, 1024);
    t->logits_saved = 4 * in->T;
    t->logits_fwd_extra = llmmem__mul3(o, chunk, V, cb + 8);
    t->logits_bwd_extra = llmmem__mul3(o, chunk, V, cb + 12);
}

/* Megatron vocab-parallel CE (tensor_parallel/cross_entropy.py): fp32 logits
 * kept, softmax computed in place; grad written in place. */
static void loss_vocab_parallel(llmmem__train *t, const llmmem__train_in *in, uint64_t TV, llmmem__ovf *o)
{
    t->logits_saved = llmmem__mul(o, TV, 4);
    t->logits_fwd_extra = llmmem__mul(o, TV, in->rc.cb);
    t->logits_bwd_extra = llmmem__mul(o, TV, in->rc.cb);
}

void llmmem__loss_compute(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    const uint64_t TV = llmmem__mul(o, in->T, (uint64_t)in->m->vocab_size); /* the logits' elements */
    switch (in->c->loss) {
    case LLMMEM__LOSS_LIGER:
        loss_liger_fused(t, in, o);
        break;
    case LLMMEM__LOSS_CHUNKED:
        loss_chunked(t, in, o);
        break;
    case LLMMEM__LOSS_VOCAB_PARALLEL:
        loss_vocab_parallel(t, in, TV, o);
        break;
    default:
        loss_hf_fp32_upcast(t, in, TV, o);
    }
}
