/* The loss and its logits: what the loss keeps after forward (logits_saved),
 * its extra working set at the loss in forward (logits_fwd_extra) and at the
 * start of backward (logits_bwd_extra), one function per loss implementation. */
#include "train/train.h"

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
    t->loss_explain[0] = "T x h x cb + V x h x pb + 4T: grad_input, grad_weight and fp32 loss computed in forward (liger ops/fused_linear_cross_entropy.py)";
    t->loss_explain[1] = "one chunk of logits (next_pow2(ceil(T / ceil(V/h))) rows x V) x (cb + 4)";
    t->loss_explain[2] = "none: the gradients were made in forward";
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
    t->loss_explain[0] = "4 x tokens (fp32 per-token loss; logits of 1024-token chunks recomputed)";
    t->loss_explain[1] = "one 1024-token chunk x vocab x (cb + 8)";
    t->loss_explain[2] = "one 1024-token chunk x vocab x (cb + 12)";
    const uint64_t V = (uint64_t)in->m->vocab_size, cb = in->rc.cb;
    uint64_t chunk = llmmem__min(in->T, 1024);
    t->logits_saved = 4 * in->T;
    t->logits_fwd_extra = llmmem__mul3(o, chunk, V, cb + 8);
    t->logits_bwd_extra = llmmem__mul3(o, chunk, V, cb + 12);
}

/* HF ForCausalLMLoss inside a compiled model graph (compile model): the
 * partitioner saves the 16-bit logits (a matmul output) and the per-row
 * reductions; the fp32 upcast, softmax and their gradients are recomputed and
 * fused (compile.c), so backward makes only the 16-bit logits gradient. */
static void loss_hf_compiled(llmmem__train *t, const llmmem__train_in *in, uint64_t TV, llmmem__ovf *o)
{
    t->loss_explain[0] = "tokens x vocab x compute bytes + 8 x tokens (16-bit logits and row reductions; partitioners.py, loss.c loss_hf_compiled)";
    t->loss_explain[1] = "8 x tokens (the fused kernel's reductions)";
    t->loss_explain[2] = "tokens x vocab x compute bytes (the 16-bit logits gradient, fused)";
    t->logits_saved = llmmem__add(o, llmmem__mul(o, TV, in->rc.cb), 8 * in->T);
    t->logits_fwd_extra = 8 * in->T;
    t->logits_bwd_extra = llmmem__mul(o, TV, in->rc.cb);
}

/* torchtune CEWithChunkedOutputLoss (modules/loss/ce_chunked_output_loss.py)
 * with TransformerDecoder.chunked_output: the model returns n 16-bit logit
 * chunks (h.chunk(n, dim=1), all alive at once) and the loss runs
 * F.cross_entropy(chunk.float(), reduction="sum") per chunk.
 * Eager: each chunk's fp32 log-probs are kept (4 TV in all); the 16-bit
 * chunks die with `del logits` (the .float() keeps nothing); at the last
 * chunk the 16-bit chunks and one fp32 upcast are alive; backward makes per
 * chunk two fp32 gradients and the 16-bit one.
 * Compiled (training.compile_loss compiles compute_cross_entropy): each
 * chunk's graph keeps its 16-bit input and per-row reductions; backward
 * makes the 16-bit gradient of one chunk. */
static void loss_torchtune_chunked(llmmem__train *t, const llmmem__train_in *in, uint64_t TV, llmmem__ovf *o)
{
    t->loss_explain[0] = "compiled: tokens x vocab x cb + 8T (16-bit chunks); eager: 4 x tokens x vocab (fp32 log-probs) (ce_chunked_output_loss.py; loss.c loss_torchtune_chunked)";
    t->loss_explain[1] = "eager: the 16-bit chunks + one fp32 chunk upcast; compiled: row reductions";
    t->loss_explain[2] = "per chunk: compiled its 16-bit gradient; eager two fp32 gradients + the 16-bit cast";
    const uint64_t cb = in->rc.cb, n = in->c->loss_chunks > 0 ? (uint64_t)in->c->loss_chunks : 8;
    const uint64_t chunk = llmmem__ceil_div(TV, n);
    if (in->c->compile != LLMMEM__COMPILE_NONE) {
        t->logits_saved = llmmem__add(o, llmmem__mul(o, TV, cb), 8 * in->T);
        t->logits_fwd_extra = 8 * in->T;
        t->logits_bwd_extra = llmmem__mul(o, chunk, cb);
        return;
    }
    t->logits_saved = llmmem__mul(o, TV, 4);
    t->logits_fwd_extra = llmmem__add(o, llmmem__mul(o, TV, cb), llmmem__mul(o, chunk, 4));
    t->logits_bwd_extra = llmmem__mul(o, chunk, 8 + cb);
}

/* LitGPT finetune (finetune/{full,lora}.py): model(input_ids,
 * lm_head_chunk_size=128) returns one logit chunk per 128 positions, and
 * Fabric's _FabricModule.forward hands them back through
 * precision.convert_output, which casts floating outputs to the default dtype
 * (fp32) outside the forward context: the list of fp32 chunks stays alive in
 * fit() through backward. utils.chunked_cross_entropy runs F.cross_entropy
 * per chunk on them, keeping fp32 log-probs. At the conversion the 16-bit
 * chunks and the fp32 copies exist together; backward makes per chunk the
 * nll and log_softmax fp32 gradients and the 16-bit one of the cast. */
static void loss_litgpt_chunked(llmmem__train *t, const llmmem__train_in *in, uint64_t TV, llmmem__ovf *o)
{
    t->loss_explain[0] = "8 x tokens x vocab: fp32 chunks (Fabric convert_output) + fp32 log-probs (litgpt/utils.py chunked_cross_entropy; loss.c loss_litgpt_chunked)";
    t->loss_explain[1] = "the 16-bit chunks during the fp32 cast + the per-position losses";
    t->loss_explain[2] = "per 128-position chunk: two fp32 gradients + the 16-bit cast";
    const uint64_t cb = in->rc.cb, s = in->s ? in->s : 1;
    const uint64_t chunk = llmmem__ceil_div(TV, llmmem__ceil_div(s, 128));
    t->logits_saved = llmmem__mul(o, TV, 8);
    t->logits_fwd_extra = llmmem__add(o, llmmem__mul(o, TV, cb == 4 ? 0 : cb), 4 * in->T);
    t->logits_bwd_extra = llmmem__mul(o, chunk, 8 + cb);
}

/* The head weight's gradient while a chunked loss runs backward: every
 * chunk's Linear makes a full V x h gradient, which autograd sums into the
 * weight's input buffer in place (InputBuffer::add): the sum and the newest
 * one exist at once from the first chunk on (torch/csrc/autograd/input_buffer.cpp). */
static uint64_t loss_head_grad_accum(const llmmem__train_in *in, llmmem__ovf *o)
{
    const int64_t loss = in->c->loss;
    bool chunked = loss == LLMMEM__LOSS_TORCHTUNE_CHUNKED || loss == LLMMEM__LOSS_LITGPT_CHUNKED;
    uint64_t n = loss == LLMMEM__LOSS_LITGPT_CHUNKED ? llmmem__ceil_div(in->s ? in->s : 1, 128)
                 : in->c->loss_chunks > 0      ? (uint64_t)in->c->loss_chunks
                                               : 8;
    if (!chunked || n < 2 || !in->rc.full_ft)
        return 0;
    uint64_t gb = in->rc.pb; /* the frameworks' gradients take the weights' dtype */
    return llmmem__mul(o, 2, llmmem__mul3(o, (uint64_t)in->m->vocab_size, (uint64_t)in->m->hidden_size, gb));
}

/* Megatron vocab-parallel CE (tensor_parallel/cross_entropy.py): fp32 logits
 * kept, softmax computed in place; grad written in place. */
static void loss_vocab_parallel(llmmem__train *t, const llmmem__train_in *in, uint64_t TV, llmmem__ovf *o)
{
    t->loss_explain[0] = "4 x tokens x vocab (fp32 logits kept; Megatron tensor_parallel/cross_entropy.py)";
    t->loss_explain[1] = "tokens x vocab x cb";
    t->loss_explain[2] = "tokens x vocab x cb (gradient written in place)";
    t->logits_saved = llmmem__mul(o, TV, 4);
    t->logits_fwd_extra = llmmem__mul(o, TV, in->rc.cb);
    t->logits_bwd_extra = llmmem__mul(o, TV, in->rc.cb);
}

void llmmem__loss_compute(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    const uint64_t TV = llmmem__mul(o, in->T, (uint64_t)in->m->vocab_size); /* the logits' elements */
    t->loss_grad_accum = loss_head_grad_accum(in, o);
    switch (in->c->loss) {
    case LLMMEM__LOSS_TORCHTUNE_CHUNKED:
        loss_torchtune_chunked(t, in, TV, o);
        break;
    case LLMMEM__LOSS_LITGPT_CHUNKED:
        loss_litgpt_chunked(t, in, TV, o);
        break;
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
        if (in->c->compile == LLMMEM__COMPILE_MODEL)
            loss_hf_compiled(t, in, TV, o);
        else
            loss_hf_fp32_upcast(t, in, TV, o);
    }
}
