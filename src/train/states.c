/* Model states of one GPU holding the whole model: stored weights (possibly
 * quantised), fp32 masters, gradients and optimizer state, and how the
 * gradients appear in backward (per layer, outside the layers, the tied
 * embedding's second one). Engines shard or offload these; they never
 * recompute them. */
#include "train/train.h"

void llmmem__states_linears(llmmem__linears *lin, const llmmem__tensors *ts, llmmem__ovf *o)
{
    lin->params = 0;
    lin->largest = 0;
    for (int i = 0; i < ts->n; i++) {
        if (ts->t[i].linear && ts->t[i].kind != LLMMEM__T_BIAS) {
            uint64_t n = (uint64_t)ts->t[i].rows * (uint64_t)ts->t[i].cols;
            lin->params = llmmem__add(o, lin->params, llmmem__mul(o, n, (uint64_t)ts->t[i].count));
            lin->largest = llmmem__max(lin->largest, n);
        }
    }
}

/* ---- LoRA adapters ------------------------------------------------------------- */

static int lora_shape(llmmem__lora_shape *ls, const llmmem__tensors *ts, const struct llmmem_config *c)
{
    ls->n = 0;
    ls->rank = c->lora_rank;
    for (int i = 0; i < ts->n; i++) {
        const llmmem__tensor *x = &ts->t[i];
        if (!llmmem__lora_targets(c->lora_targets, x))
            continue;
        ls->in[ls->n] = x->cols;
        ls->out[ls->n] = x->rows;
        ls->count[ls->n] = x->count;
        ls->n++;
    }
    if (ls->n == 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "lora_targets \"%s\": no Linear of this model has that name",
                             c->lora_targets);
    return LLMMEM_OK;
}

/* lora_A (r x in) and lora_B (out x r) per adapted module (peft LoraLayer). */
static uint64_t lora_params(const llmmem__lora_shape *ls, llmmem__ovf *o)
{
    uint64_t n = 0;
    for (int i = 0; i < ls->n; i++)
        n = llmmem__add(o, n, llmmem__mul3(o, (uint64_t)ls->rank, (uint64_t)(ls->in[i] + ls->out[i]),
                                           (uint64_t)ls->count[i]));
    return n;
}

/* ---- weights, masters, gradients ------------------------------------------------ */

/* bitsandbytes 4-bit storage of n weights (functional.py quantize_4bit):
 * packed 4-bit + absmax per 64; double quantization stores the absmax as
 * uint8 with an fp32 scale per 256 blocks (QLoRA §3). */
static uint64_t nf4_bytes(llmmem__ovf *o, uint64_t n, bool dq)
{
    uint64_t blocks = llmmem__ceil_div(n, 64);
    uint64_t b = llmmem__ceil_div(n, 2);
    if (dq)
        return llmmem__add(o, b, llmmem__add(o, blocks, 4 * llmmem__ceil_div(blocks, 256) + 4 + 1024));
    return llmmem__add(o, b, llmmem__mul(o, blocks, 4));
}

/* QLoRA base weights: every decoder Linear quantised (transformers
 * BitsAndBytesConfig skips the head; int8: + fp32 scale per row), the rest in
 * the compute dtype. */
static uint64_t states_weights_qlora(const llmmem__train_in *in, llmmem__ovf *o)
{
    const struct llmmem_model *m = in->m;
    const uint64_t h = (uint64_t)m->hidden_size;
    const uint64_t qlin = in->qlin; /* which Linears: frameworks.c llmmem__frameworks_qlora_linears */
    uint64_t rest = (uint64_t)m->params - qlin;
    uint64_t qb = in->c->qlora == LLMMEM__QLORA_INT8
                      ? llmmem__add(o, qlin, 4 * (qlin / (in->lin.largest ? h : 1)))
                      : nf4_bytes(o, qlin, in->c->qlora_double_quant != 0);
    return llmmem__add(o, qb, llmmem__mul(o, rest, in->rc.cb));
}

/* Stored weights: params x param dtype bytes (QLoRA: quantised base), plus
 * the LoRA adapters in the adapter dtype (on the language model and, with
 * vision_training lora, the tower). Beside fp32 masters the module holds the
 * compute dtype whatever it was loaded in (rc.pb): DeepSpeed casts it
 * (runtime/engine.py _configure_distributed_model: self.module.bfloat16() /
 * .half() when bf16 / fp16 is enabled), Megatron wraps it in Float16Module
 * (core/transformer/module.py: module.bfloat16()), and the optimizer's fp32
 * copies are the masters; an fp32-loaded model keeps no 4-byte weights. */
static uint64_t states_weights(const llmmem__train_in *in, uint64_t adapters, llmmem__ovf *o)
{
    const uint64_t bytes = in->rc.master ? in->rc.pb : in->rc.pdt;
    uint64_t base = in->rc.qlora ? states_weights_qlora(in, o) : llmmem__mul(o, (uint64_t)in->m->params, bytes);
    return llmmem__add(o, base, in->rc.lora ? llmmem__mul(o, adapters, in->rc.ab) : 0);
}

/* Separate fp32 masters of the trainable params (ZeRO paper §3.1). */
static uint64_t states_masters(const llmmem__recipe *rc, uint64_t trainable, llmmem__ovf *o)
{
    return rc->master && !rc->lora ? llmmem__mul(o, trainable, 4) : 0;
}

/* Bytes per gradient element: the adapter dtype, or the grad dtype (default:
 * the dtype the model runs in). */
static uint64_t grad_bytes(const llmmem__train_in *in)
{
    return in->rc.lora ? in->rc.ab : llmmem__recipe_bytes(in->c->grad_dtype, in->rc.pb);
}

/* Trainable params x grad dtype bytes (freed by zero_grad(set_to_none)). */
static uint64_t states_grads(const llmmem__train_in *in, uint64_t trainable, llmmem__ovf *o)
{
    return llmmem__mul(o, trainable, grad_bytes(in));
}

/* ---- optimizer ----------------------------------------------------------------- */

/* The optimizer's state and step temporaries (optimizers.c) over the model's
 * tensors or the LoRA adapters, plus a trainable vision tower as hidden-wide
 * matrices (the per-tensor layout only matters for factored/8-bit
 * optimizers). */
static int states_optimizer(llmmem__states *st, const llmmem__train_in *in, const llmmem__lora_shape *ls,
                            llmmem__ovf *o)
{
    const struct llmmem_config *c = in->c;
    const int sb = st->state_bytes;
    llmmem__optim_bytes ob;
    int rcode = llmmem__optim_compute(&ob, (int)c->optimizer, (int)c->optimizer_impl, in->ts, ls, sb, o);
    if (rcode)
        return rcode;
    st->optim = ob.state - ob.managed; /* paged state: CUDA managed memory, outside the allocator */
    st->managed = ob.managed;
    st->optim_transient = ob.transient;
    if (in->vb.trainable > 0 && in->m->vision.hidden > 0) {
        llmmem__tensors vt = {.n = 1,
                              .t = {{.name = "vision", .kind = LLMMEM__T_MLP, .rows = in->m->vision.hidden,
                                     .cols = in->vb.trainable / in->m->vision.hidden, .count = 1, .linear = true}}};
        if ((rcode = llmmem__optim_compute(&ob, (int)c->optimizer, (int)c->optimizer_impl, &vt, NULL, sb, o)))
            return rcode;
        st->optim = llmmem__add(o, st->optim, ob.state);
        st->optim_transient = llmmem__add(o, st->optim_transient, ob.transient);
    }
    return LLMMEM_OK;
}

/* ---- gradients in backward ------------------------------------------------------ */

/* Gradients per layer and outside the layers (embedding, head, final norm):
 * the per-layer tensors' params / L x grad bytes; LoRA adapters split evenly. */
static void grads_per_layer(llmmem__train *t, const llmmem__train_in *in, llmmem__ovf *o)
{
    const llmmem__tensors *ts = in->ts;
    const struct llmmem_model *m = in->m;
    uint64_t layer_params = 0;
    for (int i = 0; i < ts->n; i++)
        if (ts->t[i].kind != LLMMEM__T_EMBED && ts->t[i].kind != LLMMEM__T_HEAD && !(ts->t[i].count == 1))
            layer_params = llmmem__add(o, layer_params,
                                       llmmem__mul3(o, (uint64_t)ts->t[i].rows, (uint64_t)ts->t[i].cols,
                                                    (uint64_t)ts->t[i].count));
    const uint64_t L = (uint64_t)(m->num_layers > 0 ? m->num_layers : 1);
    const uint64_t grads = t->st.grads;
    if (in->rc.lora) {
        t->layer_grad = grads / L;
        t->other_grad = grads - t->layer_grad * L;
    } else {
        t->layer_grad = llmmem__mul(o, layer_params / L, grad_bytes(in));
        t->other_grad = llmmem__sub0(grads, t->layer_grad * L);
    }
}

/* The embedding lookup's backward is the last step: embedding_dense_backward
 * makes a dense [V, h] gradient in the gradient dtype. A tied embedding
 * already holds the head's gradient, so AccumulateGrad adds the new one into
 * it while both exist; an untied one takes the new tensor as its .grad. The
 * probe's p19 (gemma-2b, tied, full fine-tuning) peaks its backward there:
 * every gradient plus one more 256000 x 2048 fp32. */
static uint64_t grad_embedding_dense(const llmmem__train_in *in, llmmem__ovf *o)
{
    if (in->rc.lora || !in->m->tie_embeddings || in->rc.qlora)
        return 0;
    return llmmem__mul3(o, (uint64_t)in->m->vocab_size, (uint64_t)in->m->hidden_size, grad_bytes(in));
}

/* ---- the states -------------------------------------------------------------------- */

int llmmem__states_compute(llmmem__train *t, struct llmmem_result *r, const llmmem__train_in *in,
                           llmmem__ovf *o)
{
    const struct llmmem_model *m = in->m;
    const llmmem__recipe *rc = &in->rc;
    llmmem__states *st = &t->st;
    llmmem__lora_shape ls;
    uint64_t adapters = 0;
    if (rc->lora) {
        int rcode = lora_shape(&ls, in->ts, in->c);
        if (rcode)
            return rcode;
        adapters = lora_params(&ls, o);
    }
    /* A frozen vision tower has no gradients or optimizer state. */
    const int64_t vt = in->vb.trainable;
    const uint64_t vision_frozen = (uint64_t)(m->vision_params > vt ? m->vision_params - vt : 0);
    const uint64_t trainable = rc->lora ? adapters + (uint64_t)vt : (uint64_t)m->params - vision_frozen;
    st->params = m->params;
    st->trainable = (int64_t)trainable;
    st->weight_bytes = (int)rc->pb;
    st->weights = states_weights(in, adapters + (uint64_t)vt, o);
    st->master = states_masters(rc, trainable, o);
    st->grad_bytes = (int)grad_bytes(in);
    st->grads = states_grads(in, trainable, o);
    /* Optimizer state dtype: fp32 beside masters, else the trainable weights'. */
    st->state_bytes = (int)llmmem__recipe_bytes(in->c->optimizer_state_dtype,
                                                rc->master ? 4 : (rc->lora ? rc->ab : rc->pdt));
    int rcode = states_optimizer(st, in, rc->lora ? &ls : NULL, o);
    if (rcode)
        return rcode;
    if (llmmem__optim_paged((int)in->c->optimizer))
        llmmem__result_note(r, "paged optimizer state (tensors >= 1e5 elements) lives in CUDA managed memory: "
                               "managed_bytes, outside peak_allocated, in total_bytes_per_gpu; evictable");
    grads_per_layer(t, in, o);
    t->embed_grad_extra = grad_embedding_dense(in, o);
    return LLMMEM_OK;
}
