/* llama.cpp's compute buffer: the high-water mark of ggml's graph allocator over the
 * worst-case graphs llama_context reserves (llama-context.cpp sched_reserve: a prompt
 * ubatch of T = min(n_ctx, n_ubatch) tokens with every output, and one token per
 * sequence; the buffer is the largest of the two).
 *
 * ggml-alloc.c allocates every node when it is computed and frees it after its last
 * consumer (an op in ggml_op_can_inplace reuses a parent with no other consumer: the
 * softmax of KQ is the KQ tensor); graph inputs are allocated first and live until
 * their last use, graph outputs to the end. So the peak is the largest live set, one
 * of three points of the last layer (models/<arch>.cpp graph, llama-graph.cpp
 * build_attn_mha, build_ffn, build_moe_ffn), all f32:
 *   attention   KQ [n_kv, T, n_head] + KQV [head_v, T, n_head] (without flash
 *               attention; with it the output [head_v, n_head, T]) + the residual [n_embd, T]
 *               + Q [head_k, n_head, T] until KQ exists
 *   FFN         up, gate and their GLU [n_ff, T] each (ggml_swiglu_split is not in place)
 *               + the residual; MoE: the same over [n_ff_exp, n_used, T]
 *   head        logits [n_vocab, T] + the final norm [n_embd, T] (both graph outputs)
 * plus the inputs alive across the layers: the KQ mask [n_kv, T] f32 (f16 after the cast
 * flash attention takes; a SWA model has one per cache), positions and output ids
 * (i32 [T]). On a GPU the allocator's alignment and the inputs copied from the host are
 * below a page; the host buffer then holds the token embeddings of the ubatch
 * (get_rows on the CPU-resident token_embd). */
#include "memory/llamacpp.h"

#include "core/ggml.h"

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c) { return llmmem__max(a, llmmem__max(b, c)); }

/* The live bytes of the ubatch graph with T tokens. */
static uint64_t graph_peak(const llmmem__lcpp_mem *m, const llmmem__gguf *g, const llmmem__lcpp_cfg *c,
                           uint64_t T, llmmem__ovf *o)
{
    const llmmem__gguf_hparams *hp = &g->hp;
    const uint64_t E = hp->n_embd, H = hp->n_head[0] ? hp->n_head[0] : 1;
    const uint64_t hk = hp->n_embd_head_k, hv = hp->n_embd_head_v;
    uint64_t ff = 0;
    for (uint32_t il = 0; il < hp->n_layer; il++)
        ff = hp->n_ff[il] > ff ? hp->n_ff[il] : ff;
    const bool swa_any = hp->swa_type != LLMMEM__SWA_NONE && m->kv_layers_swa > 0;
    const uint64_t n_kv = m->kv_layers ? m->kv_cells : m->kv_cells_swa;
    /* inputs: the masks, positions and output ids */
    const uint64_t mask_b = c->flash_attn ? 2 : 4;
    uint64_t inputs = llmmem__mul3(o, m->kv_layers ? m->kv_cells : 0, T, mask_b);
    if (swa_any)
        inputs = llmmem__add(o, inputs, llmmem__mul3(o, m->kv_cells_swa, T, mask_b));
    inputs = llmmem__add(o, inputs, llmmem__mul(o, T, 8));
    const uint64_t resid = llmmem__mul3(o, E, T, 4);
    /* attention */
    uint64_t attn;
    if (c->flash_attn) {
        attn = llmmem__mul3(o, hk * H + hv * H, T, 4);
    } else {
        const uint64_t kq = llmmem__mul3(o, llmmem__mul(o, n_kv, T), H, 4);
        attn = llmmem__add(o, kq, llmmem__mul3(o, llmmem__max(hk, hv), H * T, 4));
    }
    attn = llmmem__add(o, attn, resid);
    /* FFN */
    uint64_t ffn;
    if (hp->n_expert) {
        const uint64_t fe = hp->n_ff_exp ? hp->n_ff_exp : ff / (hp->n_expert_used ? hp->n_expert_used : 1);
        ffn = llmmem__mul3(o, 3 * fe, (uint64_t)hp->n_expert_used * T, 4);
        ffn = llmmem__add(o, ffn, llmmem__mul3(o, E, T, 4)); /* the normed input */
    } else {
        ffn = llmmem__mul3(o, 3 * ff, T, 4);
    }
    ffn = llmmem__add(o, ffn, resid);
    /* head: every token an output in the prompt graph */
    const uint64_t head = llmmem__add(o, llmmem__mul3(o, hp->n_vocab, T, 4), resid);
    return llmmem__add(o, inputs, max3(attn, ffn, head));
}

uint64_t llmmem__lcpp_compute(llmmem__lcpp_mem *m, const llmmem__gguf *g, const llmmem__lcpp_cfg *c,
                              bool gpu, llmmem__ovf *o)
{
    const uint64_t T = m->n_ubatch < m->n_ctx ? m->n_ubatch : m->n_ctx;
    const uint64_t pp = graph_peak(m, g, c, T, o);
    const uint64_t tg = graph_peak(m, g, c, c->n_seq_max, o);
    const uint64_t peak = llmmem__max(pp, tg);
    if (!c->gpu || gpu)
        return peak;
    /* the host's share when the layers are on a GPU: the ubatch's token embeddings */
    return llmmem__mul3(o, g->hp.n_embd, T, 4);
}
