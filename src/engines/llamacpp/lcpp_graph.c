/* llama.cpp's compute buffer: a replay of ggml's graph allocator over the worst-case
 * graphs llama_context reserves (llama-context.cpp sched_reserve: a prompt ubatch of
 * T = min(n_ctx, n_ubatch) tokens with every token an output, then one token per
 * sequence; the buffer is the larger).
 *
 * The graph is written node by node as models/<arch>.cpp and llama-graph.cpp build it
 * (build_inp_embd, build_norm, build_qkv, build_attn + build_attn_mha, build_ffn,
 * build_moe_ffn, the head), in the order ggml_build_forward_expand visits it: each
 * node after its sources, sources in order. Weights and the KV cache live in other
 * buffers and are left out; so are views of them.
 *
 * The allocator is ggml-alloc.c's: graph inputs (leaves) first; then each node when it
 * is computed, reusing a source's memory in place when the op may (ggml_op_can_inplace:
 * rms_norm, mul, add, rope, soft_max, scale, ...), the source has no other consumer and
 * the same layout; a tensor freed after its last consumer (a view's source after its
 * last view), graph outputs never; free space in a best-fit list of blocks, the tail
 * block last (ggml_dyn_tallocr_alloc / _free_bytes); the buffer is the high-water
 * mark. */
#include "engines/llamacpp/llamacpp.h"

#include "core/ggml.h"

#include <stdlib.h>
#include <string.h>

#define EXT (-1) /* a weight, the KV cache or a view of them: not in this buffer */

enum { F_INPLACE = 1, F_VIEW = 2, F_INPUT = 4, F_OUTPUT = 8 };

typedef struct gnode {
    uint64_t size;
    int32_t src[4];
    int32_t view_src; /* the base tensor of a view */
    uint32_t flags;
    uint32_t layout;  /* same value = same type and shape (ggml_are_same_layout) */
    /* allocator state */
    int32_t children, views;
    bool allocated;
    uint64_t off;
} gnode;

typedef struct graph {
    gnode *n;
    int count, cap;
    bool oom;
} graph;

static int node(graph *g, uint64_t size, uint32_t layout, uint32_t flags, int s0, int s1, int s2, int s3)
{
    if (g->count == g->cap) {
        g->oom = true;
        return EXT;
    }
    gnode *x = &g->n[g->count];
    memset(x, 0, sizeof *x);
    x->size = size;
    x->layout = layout;
    x->flags = flags;
    x->src[0] = s0;
    x->src[1] = s1;
    x->src[2] = s2;
    x->src[3] = s3;
    x->view_src = EXT;
    return g->count++;
}

/* A view of node b (reshape, permute, a view at offset 0 when off0); of an external
 * tensor, nothing. */
static int view(graph *g, int b, bool off0)
{
    if (b == EXT)
        return EXT;
    const int base = g->n[b].flags & F_VIEW ? g->n[b].view_src : b;
    (void)off0; /* at offset 0 or not: a view is never reused in place (g_alloc) */
    const int v = node(g, 0, 0, F_VIEW, b, EXT, EXT, EXT);
    if (v != EXT)
        g->n[v].view_src = base;
    return v;
}

/* ---- ggml_dyn_tallocr ------------------------------------------------------------------ */

#define MAX_BLOCKS 256
typedef struct tallocr {
    uint64_t align, max_size;
    int nb;
    uint64_t off[MAX_BLOCKS], sz[MAX_BLOCKS];
    bool full;
} tallocr;

static uint64_t al(const tallocr *a, uint64_t s) { return (s + a->align - 1) / a->align * a->align; }

static void rm_block(tallocr *a, int i)
{
    memmove(&a->off[i], &a->off[i + 1], (size_t)(a->nb - i - 1) * sizeof a->off[0]);
    memmove(&a->sz[i], &a->sz[i + 1], (size_t)(a->nb - i - 1) * sizeof a->sz[0]);
    a->nb--;
}

static uint64_t t_alloc(tallocr *a, uint64_t size)
{
    size = al(a, size);
    int best = -1;
    uint64_t best_size = UINT64_MAX;
    for (int i = 0; i < a->nb - 1; i++)
        if (a->sz[i] >= size && a->sz[i] <= best_size) {
            best = i;
            best_size = a->sz[i];
        }
    if (best < 0)
        best = a->nb - 1; /* the tail, unbounded */
    const uint64_t off = a->off[best];
    a->off[best] += size;
    a->sz[best] -= size;
    if (a->sz[best] == 0)
        rm_block(a, best);
    if (off + size > a->max_size)
        a->max_size = off + size;
    return off;
}

static void t_free(tallocr *a, uint64_t off, uint64_t size)
{
    size = al(a, size);
    for (int i = 0; i < a->nb; i++) {
        if (a->off[i] + a->sz[i] == off) { /* after block i */
            a->sz[i] += size;
            if (i < a->nb - 1 && a->off[i] + a->sz[i] == a->off[i + 1]) {
                a->sz[i] += a->sz[i + 1];
                rm_block(a, i + 1);
            }
            return;
        }
        if (off + size == a->off[i]) { /* before block i */
            a->off[i] = off;
            a->sz[i] += size;
            if (i > 0 && a->off[i - 1] + a->sz[i - 1] == a->off[i]) {
                a->sz[i - 1] += a->sz[i];
                rm_block(a, i);
            }
            return;
        }
    }
    if (a->nb == MAX_BLOCKS) {
        a->full = true;
        return;
    }
    int at = 0;
    while (at < a->nb && a->off[at] < off)
        at++;
    memmove(&a->off[at + 1], &a->off[at], (size_t)(a->nb - at) * sizeof a->off[0]);
    memmove(&a->sz[at + 1], &a->sz[at], (size_t)(a->nb - at) * sizeof a->sz[0]);
    a->off[at] = off;
    a->sz[at] = size;
    a->nb++;
}

/* ---- ggml_gallocr ------------------------------------------------------------------------ */

static void g_free(graph *g, tallocr *a, int i)
{
    gnode *x = &g->n[i];
    if (x->flags & F_OUTPUT)
        return;
    t_free(a, x->off, x->size);
    x->allocated = false;
}

static void g_alloc(graph *g, tallocr *a, int i)
{
    gnode *x = &g->n[i];
    if (x->allocated || (x->flags & F_VIEW))
        return;
    x->allocated = true;
    if (x->flags & F_INPLACE) {
        for (int k = 0; k < 4; k++) {
            const int p = x->src[k];
            if (p == EXT)
                continue;
            gnode *px = &g->n[p];
            /* a view is never the allocator's own (ggml_gallocr_is_own reads the view's own
             * hash node, which ggml_gallocr_allocate_node never marks allocated: views are
             * skipped there), so an op on a view is never done in place ("not reusing parent
             * ... as (nil) is external") */
            if (px->flags & F_VIEW)
                continue;
            if (px->flags & F_OUTPUT)
                continue;
            if (px->layout != x->layout || px->children != 1 || px->views != 0)
                continue;
            x->off = px->off;
            px->allocated = false;
            if (al(a, px->size) > al(a, x->size))
                t_free(a, x->off + al(a, x->size), al(a, px->size) - al(a, x->size));
            return;
        }
    }
    x->off = t_alloc(a, x->size);
}

/* The high-water mark of the graph's allocation (ggml_gallocr_alloc_graph_impl). */
static uint64_t replay(graph *g, uint64_t align)
{
    tallocr a;
    memset(&a, 0, sizeof a);
    a.align = align;
    a.nb = 1;
    a.sz[0] = UINT64_MAX / 2;
    for (int i = 0; i < g->count; i++) {
        gnode *x = &g->n[i];
        x->children = x->views = 0;
        x->allocated = false;
    }
    for (int i = 0; i < g->count; i++) {
        const gnode *x = &g->n[i];
        for (int k = 0; k < 4; k++)
            if (x->src[k] != EXT)
                g->n[x->src[k]].children++;
        if (x->flags & F_VIEW && x->view_src != EXT)
            g->n[x->view_src].views++;
    }
    for (int i = 0; i < g->count; i++) /* the inputs first */
        if (g->n[i].flags & F_INPUT)
            g_alloc(g, &a, i);
    for (int i = 0; i < g->count; i++) {
        gnode *x = &g->n[i];
        if (x->flags & F_INPUT)
            continue;
        g_alloc(g, &a, i);
        for (int k = 0; k < 4; k++) {
            const int p = x->src[k];
            if (p == EXT)
                continue;
            gnode *px = &g->n[p];
            px->children--;
            if (px->children != 0 || px->views != 0)
                continue;
            if (px->flags & F_VIEW) {
                if (px->view_src == EXT)
                    continue;
                gnode *b = &g->n[px->view_src];
                b->views--;
                if (b->views == 0 && b->children == 0 && b->allocated)
                    g_free(g, &a, px->view_src);
            } else if (px->allocated) {
                g_free(g, &a, p);
            }
        }
    }
    return a.full ? 0 : a.max_size;
}

/* ---- the graph of a llama-style decoder ---------------------------------------------- */

/* Layouts: a tensor's shape and type packed into a small number (only equality matters). */
static uint32_t lay(uint64_t a, uint64_t b, uint32_t type)
{
    return (uint32_t)((a * 2654435761u) ^ (b * 40503u) ^ (type * 97u)) | 1u;
}

typedef struct gshape {
    uint64_t E, T, H, hk, hv, n_kv_full, n_kv_swa, ff, n_out;
    uint64_t kvd_k, kvd_v, v_max;
    uint32_t n_layer;
    bool fa, moe, qk_norm, qkv_bias, post_norms, fused_qkv, fused_up, softcap, embd_scale, q_scale;
    uint64_t n_exp, n_used, ff_exp, vocab;
    bool rot_k, rot_v;
    uint64_t rot, rot_nv; /* the rotations' sizes (K, V) */
    const uint8_t *is_swa;
    bool swa;
} gshape;

#define F32(n) ((uint64_t)(n) * 4)

static int rms(graph *g, const gshape *s, int x, uint64_t rows, uint64_t cols)
{
    /* build_norm: rms_norm, then mul by the weight (both in place when they can be) */
    const uint32_t l = lay(rows, cols, 0);
    const int n = node(g, F32(rows * cols), l, F_INPLACE, x, EXT, EXT, EXT);
    return node(g, F32(rows * cols), l, F_INPLACE, n, EXT, EXT, EXT);
}

static int mm(graph *g, uint64_t rows, uint64_t cols, int x)
{
    return node(g, F32(rows * cols), lay(rows, cols, 0), 0, x, EXT, EXT, EXT);
}

/* Q after its rope: scaled in place (gemma, phi3), then rotated when the K cache is
 * quantized (llama_mul_mat_hadamard: a reshape, then rot x Q). */
static int q_tail(graph *g, const gshape *s, int q, int rot_k)
{
    const uint64_t T = s->T;
    if (s->q_scale)
        q = node(g, F32(s->hk * s->H * T), lay(s->hk, s->H * T, 0), F_INPLACE, q, EXT, EXT, EXT);
    if (s->rot_k)
        q = node(g, F32(s->hk * s->H * T), lay(s->hk * s->H, T, 0), 0, rot_k, view(g, q, true), EXT, EXT);
    return q;
}

static void build(graph *g, const gshape *s)
{
    const uint64_t T = s->T, E = s->E;
    /* inputs (graph leaves), allocated first in the order the graph first reaches them:
     * the tokens and the embeddings (build_inp_embd), then layer 0's Q (through the K
     * rotation when there is one, then its positions), V (the V rotation), the cache
     * indices of cpy_k and cpy_v, the mask of layer 0's kind, the other mask, and the
     * output ids at the last layer */
    const int tokens = node(g, (uint64_t)T * 4, lay(T, 1, 26), F_INPUT, EXT, EXT, EXT, EXT);
    node(g, F32(E * T), lay(E, T, 0), F_INPUT, EXT, EXT, EXT, EXT); /* inp_embd, the other branch */
    /* then, for the cache of layer 0's kind (the SWA one when layer 0 slides) and then the
     * other one's (llm_graph_input_attn_kv_iswa: each cache has its own rotations, indices
     * and mask), as layer 0 and the first layer of the other kind reach them: the K
     * rotation (Q's, right after its rope), the positions (once), the V rotation, the
     * indices of cpy_k and cpy_v, the mask */
    const uint64_t mb = s->fa ? 2 : 4;
    const bool swa0 = s->swa && s->is_swa[0];
    int pos = EXT, rot_k[2] = {EXT, EXT}, rot_v[2] = {EXT, EXT}, k_idx[2] = {EXT, EXT}, v_idx[2] = {EXT, EXT},
        mask[2] = {EXT, EXT}; /* [0] the full cache's, [1] the SWA cache's */
    for (int kind = 0; kind < (s->swa ? 2 : 1); kind++) {
        const int c = kind == 0 ? swa0 : !swa0;
        const uint64_t n_kv = c ? s->n_kv_swa : s->n_kv_full;
        if (s->rot_k)
            rot_k[c] = node(g, F32(s->rot * s->rot), lay(s->rot, s->rot, 7), F_INPUT, EXT, EXT, EXT, EXT);
        if (kind == 0)
            pos = node(g, (uint64_t)T * 4, lay(T, 2, 26), F_INPUT, EXT, EXT, EXT, EXT);
        if (s->rot_v)
            rot_v[c] = node(g, F32(s->rot_nv * s->rot_nv), lay(s->rot_nv, s->rot_nv, 7), F_INPUT, EXT, EXT,
                            EXT, EXT);
        k_idx[c] = node(g, (uint64_t)T * 8, lay(T, 3, 27), F_INPUT, EXT, EXT, EXT, EXT);
        v_idx[c] = node(g, (uint64_t)T * 8 * (s->fa ? 1 : s->v_max), lay(T, 4, 27), F_INPUT, EXT, EXT, EXT,
                        EXT);
        mask[c] = node(g, n_kv * T * mb, lay(n_kv, T, 5 + c), F_INPUT, EXT, EXT, EXT, EXT);
    }
    const int out_ids = node(g, (uint64_t)s->n_out * 4, lay(s->n_out, 8, 26), F_INPUT, EXT, EXT, EXT, EXT);
    int inpL = node(g, F32(E * T), lay(E, T, 0), 0, tokens, EXT, EXT, EXT); /* get_rows */
    if (s->embd_scale) /* gemma: the embeddings scaled by sqrt(n_embd) */
        inpL = node(g, F32(E * T), lay(E, T, 0), F_INPLACE, inpL, EXT, EXT, EXT);
    for (uint32_t il = 0; il < s->n_layer; il++) {
        const bool last = il + 1 == s->n_layer;
        const bool swa = s->swa && s->is_swa[il];
        const uint64_t n_kv = swa ? s->n_kv_swa : s->n_kv_full;
        const int m = mask[swa], rk = rot_k[swa], rv = rot_v[swa];
        const int inpSA = inpL;
        int cur = rms(g, s, inpL, E, T);
        /* Q, then V, then K: build_attn rotates each (llama_mul_mat_hadamard, when the cache
         * is quantized) and then expands q_cur, v_cur, k_cur in that order, so each one's
         * chain, its rotation included, comes whole before the next (ggml_visit_parents) */
        int q, k, v;
        if (s->fused_qkv) {
            const int qkv = mm(g, E + s->kvd_k + s->kvd_v, T, cur);
            /* rope of a view: never in place (g_alloc) */
            q = node(g, F32(E * T), lay(s->hk, s->H * T, 0), F_INPLACE, view(g, qkv, true), pos, EXT, EXT);
            q = q_tail(g, s, q, rk);
            v = view(g, qkv, false);
            if (s->rot_v) { /* the strided view of the fused output: ggml_cont_2d, then the matmul */
                const uint64_t rows = T * s->kvd_v / s->rot_nv;
                v = node(g, F32(s->kvd_v * T), lay(s->rot_nv, rows, 1), 0, v, EXT, EXT, EXT);
                v = node(g, F32(s->kvd_v * T), lay(s->rot_nv, rows, 0), 0, rv, v, EXT, EXT);
            }
            else if (!s->fa) /* cpy_v: a strided view of the fused output is made contiguous first */
                v = node(g, F32(s->kvd_v * T), lay(s->kvd_v, T, 0), 0, v, EXT, EXT, EXT);
            k = node(g, F32(s->kvd_k * T), lay(s->hk, T * 9, 0), F_INPLACE, view(g, qkv, false), pos, EXT,
                     EXT);
            if (s->rot_k)
                k = node(g, F32(s->kvd_k * T), lay(s->kvd_k, T, 0), 0, rk, view(g, k, true), EXT, EXT);
        } else {
            q = mm(g, s->hk * s->H, T, cur);
            if (s->qkv_bias)
                q = node(g, F32(s->hk * s->H * T), lay(s->hk * s->H, T, 0), F_INPLACE, q, EXT, EXT, EXT);
            q = view(g, q, true);
            if (s->qk_norm)
                q = rms(g, s, q, s->hk, s->H * T);
            q = node(g, F32(s->hk * s->H * T), lay(s->hk, s->H * T, 0), F_INPLACE, q, pos, EXT, EXT);
            q = q_tail(g, s, q, rk);
            v = mm(g, s->kvd_v, T, cur);
            if (s->qkv_bias)
                v = node(g, F32(s->kvd_v * T), lay(s->kvd_v, T, 0), F_INPLACE, v, EXT, EXT, EXT);
            v = view(g, v, true);
            if (s->rot_v)
                v = node(g, F32(s->kvd_v * T), lay(s->kvd_v, T, 0), 0, rv, view(g, v, true), EXT, EXT);
            k = mm(g, s->kvd_k, T, cur);
            if (s->qkv_bias)
                k = node(g, F32(s->kvd_k * T), lay(s->kvd_k, T, 0), F_INPLACE, k, EXT, EXT, EXT);
            k = view(g, k, true);
            if (s->qk_norm)
                k = rms(g, s, k, s->hk, T * s->kvd_k / s->hk);
            k = node(g, F32(s->kvd_k * T), lay(s->hk, T * s->kvd_k / s->hk, 0), F_INPLACE, k, pos, EXT, EXT);
            if (s->rot_k)
                k = node(g, F32(s->kvd_k * T), lay(s->kvd_k, T, 0), 0, rk, view(g, k, true), EXT, EXT);
        }
        /* cpy_k, cpy_v: set_rows into the cache (views of it: no memory here) */
        node(g, 0, 0, F_VIEW, view(g, k, true), k_idx[swa], EXT, EXT);
        g->n[g->count - 1].view_src = EXT;
        node(g, 0, 0, F_VIEW, view(g, v, true), v_idx[swa], EXT, EXT);
        g->n[g->count - 1].view_src = EXT;
        /* build_attn_mha */
        const int qp = view(g, q, false); /* permute */
        if (s->fa) {
            cur = node(g, F32(s->hv * s->H * T), lay(s->hv * s->H, T, 0), 0, qp, m, EXT, EXT);
            cur = view(g, cur, true);
        } else {
            int kq = node(g, F32(n_kv * T * s->H), lay(n_kv, T * s->H, 0), 0, qp, EXT, EXT, EXT);
            if (s->softcap) {
                for (int r = 0; r < 3; r++) /* scale, tanh, scale */
                    kq = node(g, F32(n_kv * T * s->H), lay(n_kv, T * s->H, 0), F_INPLACE, kq, EXT, EXT, EXT);
            }
            kq = node(g, F32(n_kv * T * s->H), lay(n_kv, T * s->H, 0), F_INPLACE, kq, m, EXT, EXT);
            const int kqv = node(g, F32(s->hv * T * s->H), lay(s->hv, T * s->H, 0), 0, kq, EXT, EXT, EXT);
            cur = node(g, F32(s->hv * s->H * T), lay(s->hv * s->H, T, 1), 0, view(g, kqv, false), EXT, EXT,
                       EXT); /* cont */
            cur = view(g, cur, true);
        }
        if (s->rot_v)
            cur = node(g, F32(s->hv * s->H * T), lay(s->hv * s->H, T, 0), 0, rv, cur, EXT, EXT);
        cur = mm(g, E, T, cur); /* wo */
        int res = inpSA;
        uint64_t Tn = T;
        if (last) {
            Tn = s->n_out;
            cur = node(g, F32(E * Tn), lay(E, Tn, 0), 0, cur, out_ids, EXT, EXT);
            res = node(g, F32(E * Tn), lay(E, Tn, 0), 0, inpSA, out_ids, EXT, EXT);
        }
        if (s->post_norms)
            cur = rms(g, s, cur, E, Tn);
        const int ffn_inp = node(g, F32(E * Tn), lay(E, Tn, 0), F_INPLACE, cur, res, EXT, EXT);
        cur = rms(g, s, ffn_inp, E, Tn);
        if (s->moe) {
            const uint64_t X = s->n_exp, U = s->n_used, F = s->ff_exp;
            int logits = mm(g, X, Tn, cur);
            int probs = node(g, F32(X * Tn), lay(X, Tn, 0), F_INPLACE, logits, EXT, EXT, EXT); /* soft_max */
            const int sel = node(g, X * Tn * 4, lay(X, Tn, 26), 0, probs, EXT, EXT, EXT);     /* argsort */
            const int top = view(g, sel, true);                                               /* top k */
            int w = node(g, F32(U * Tn), lay(U, Tn, 0), 0, view(g, probs, true), top, EXT, EXT); /* get_rows */
            const int wv = view(g, w, true);
            const int sum = node(g, F32(Tn), lay(1, Tn, 0), 0, wv, EXT, EXT, EXT);
            const int clamp = node(g, F32(Tn), lay(1, Tn, 0), F_INPLACE, sum, EXT, EXT, EXT);
            w = node(g, F32(U * Tn), lay(U, Tn, 0), F_INPLACE, wv, clamp, EXT, EXT); /* div */
            w = view(g, w, true);
            const int x3 = view(g, cur, true);
            const int up = node(g, F32(F * U * Tn), lay(F, U * Tn, 0), 0, x3, top, EXT, EXT);
            const int gate = node(g, F32(F * U * Tn), lay(F, U * Tn, 0), 0, x3, top, EXT, EXT);
            const int par = node(g, F32(F * U * Tn), lay(F, U * Tn, 0), 0, gate, up, EXT, EXT);
            int ex = node(g, F32(E * U * Tn), lay(E, U * Tn, 0), 0, par, top, EXT, EXT);
            ex = node(g, F32(E * U * Tn), lay(E, U * Tn, 0), F_INPLACE, ex, w, EXT, EXT); /* mul */
            /* the experts summed: views of each, then adds */
            int acc = view(g, ex, true);
            for (uint64_t e = 1; e < U; e++)
                acc = node(g, F32(E * Tn), lay(E, Tn, 0), F_INPLACE, acc, view(g, ex, false), EXT, EXT);
            cur = U > 1 ? acc : node(g, F32(E * Tn), lay(E, Tn, 3), 0, acc, EXT, EXT, EXT);
        } else if (s->fused_up) { /* phi3: ggml_swiglu of one [2 n_ff, T] tensor */
            const int up = mm(g, 2 * s->ff, Tn, cur);
            const int par = node(g, F32(s->ff * Tn), lay(s->ff, Tn, 0), 0, up, EXT, EXT, EXT);
            cur = mm(g, E, Tn, par);
        } else {
            const int gate = mm(g, s->ff, Tn, cur);
            const int up = mm(g, s->ff, Tn, cur);
            const int par = node(g, F32(s->ff * Tn), lay(s->ff, Tn, 0), 0, gate, up, EXT, EXT);
            cur = mm(g, E, Tn, par);
        }
        if (s->post_norms)
            cur = rms(g, s, cur, E, Tn);
        inpL = s->fused_up ? node(g, F32(E * Tn), lay(E, Tn, 0), F_INPLACE, ffn_inp, cur, EXT, EXT)
                           : node(g, F32(E * Tn), lay(E, Tn, 0), F_INPLACE, cur, ffn_inp, EXT, EXT);
    }
    const int norm = rms(g, s, inpL, E, s->n_out);
    g->n[norm].flags |= F_OUTPUT;
    int logits = mm(g, s->vocab, s->n_out, norm);
    if (s->softcap) /* final logit soft-capping: scale, tanh, scale, in place */
        for (int r = 0; r < 3; r++)
            logits = node(g, F32(s->vocab * s->n_out), lay(s->vocab, s->n_out, 0), F_INPLACE, logits, EXT, EXT,
                          EXT);
    g->n[logits].flags |= F_OUTPUT;
}

static uint64_t graph_bytes(const llmmem__lcpp_mem *m, const llmmem__gguf *gg, const llmmem__lcpp_cfg *c,
                            uint64_t T, uint64_t align, llmmem__ovf *o)
{
    const llmmem__gguf_hparams *hp = &gg->hp;
    gshape s;
    memset(&s, 0, sizeof s);
    s.E = hp->n_embd;
    s.T = T;
    s.n_out = T;
    s.H = hp->n_head[0] ? hp->n_head[0] : 1;
    s.hk = hp->n_embd_head_k;
    s.hv = hp->n_embd_head_v;
    s.kvd_k = s.hk * hp->n_head_kv[0];
    s.kvd_v = s.hv * hp->n_head_kv[0];
    s.v_max = s.kvd_v;
    s.n_kv_full = m->kv_cells;
    s.n_kv_swa = m->kv_cells_swa;
    s.swa = hp->swa_type != LLMMEM__SWA_NONE && m->kv_layers_swa > 0;
    s.is_swa = hp->is_swa;
    s.n_layer = hp->n_layer;
    s.fa = c->flash_attn;
    s.vocab = hp->n_vocab;
    for (uint32_t il = 0; il < hp->n_layer; il++)
        s.ff = hp->n_ff[il] > s.ff ? hp->n_ff[il] : s.ff;
    s.moe = hp->n_expert > 0;
    s.n_exp = hp->n_expert;
    s.n_used = hp->n_expert_used;
    s.ff_exp = hp->n_ff_exp ? hp->n_ff_exp : s.ff;
    const char *a = gg->arch;
    s.qk_norm = strcmp(a, "qwen3") == 0 || strcmp(a, "qwen3moe") == 0 || strcmp(a, "gemma3") == 0;
    s.qkv_bias = strcmp(a, "qwen2") == 0 || strcmp(a, "qwen2moe") == 0;
    s.post_norms = strcmp(a, "gemma2") == 0 || strcmp(a, "gemma3") == 0;
    s.softcap = strcmp(a, "gemma2") == 0;
    s.embd_scale = s.post_norms;
    s.q_scale = s.post_norms || strcmp(a, "phi3") == 0;
    s.fused_qkv = strcmp(a, "phi3") == 0;
    s.fused_up = strcmp(a, "phi3") == 0;
    /* llama-kv-cache.cpp attn_rot_k / _v: Hadamard rotations for quantized caches */
    const llmmem__ggml_traits *tk = llmmem__ggml_type(c->type_k), *tv = llmmem__ggml_type(c->type_v);
    s.rot_k = !c->attn_rot_off && tk && tk->block > 1 && s.hk % 64 == 0;
    s.rot_v = !c->attn_rot_off && tv && tv->block > 1 && s.hv % 64 == 0;
    /* build_input_k_rot: the largest power of two from 64 that divides the head */
    s.rot = s.rot_nv = 64;
    while (s.hk % (s.rot * 2) == 0)
        s.rot *= 2;
    while (s.hv % (s.rot_nv * 2) == 0)
        s.rot_nv *= 2;
    graph g = {0};
    g.cap = 64 + (int)hp->n_layer * (48 + 2 * (int)s.n_used);
    g.n = malloc((size_t)g.cap * sizeof *g.n);
    if (!g.n) {
        o->overflow = true;
        return 0;
    }
    build(&g, &s);
    const uint64_t bytes = g.oom ? 0 : replay(&g, align);
    free(g.n);
    return bytes;
}

/* The architectures whose graph build() writes (models/<arch>.cpp). */
static bool graph_known(const char *arch)
{
    static const char *const known[] = {"llama", "mistral3", "qwen2", "qwen3", "qwen3moe",
                                        "gemma2", "gemma3", "phi3", NULL};
    for (int i = 0; known[i]; i++)
        if (strcmp(arch, known[i]) == 0)
            return true;
    return false;
}

uint64_t llmmem__lcpp_compute(llmmem__lcpp_mem *m, const llmmem__gguf *g, const llmmem__lcpp_cfg *c,
                              bool gpu, llmmem__ovf *o)
{
    if (!graph_known(g->arch) || g->hp.n_head[0] == 0 || g->hp.n_embd_head_k == 0) {
        m->compute_inexact = LLMMEM__LCPP_GRAPH_NONE;
        return 0;
    }
    const uint64_t T = m->n_ubatch < m->n_ctx ? m->n_ubatch : m->n_ctx;
    /* ggml-cpu: buffers aligned to TENSOR_ALIGNMENT 32; ggml-cuda: 128 */
    const uint64_t align = gpu ? 128 : 32;
    /* the host's share with every layer on a GPU: the ubatch's embeddings (get_rows on the
     * CPU-resident token_embd); with layers on the CPU the host runs their part of the graph:
     * taken as the whole graph's buffer (an upper bound, said in the estimate) */
    if (c->gpu && !gpu && m->layers_gpu == (int32_t)g->hp.n_layer && m->output_gpu)
        return llmmem__mul3(o, g->hp.n_embd, T, 4);
    const uint64_t pp = graph_bytes(m, g, c, T, align, o);
    const uint64_t tg = graph_bytes(m, g, c, c->n_seq_max, align, o);
    return llmmem__max(pp, tg);
}
