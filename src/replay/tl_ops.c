/* Tensor lifetimes of the timeline generators: a tensor is one allocation of
 * the replay (replay.c) with a reference count, one for the Python name that
 * holds it and one per autograd node that saved it (torch/csrc/autograd
 * SavedVariable); the allocation is freed when the count reaches zero.
 * Gradients follow the autograd engine (torch/csrc/autograd/engine.cpp,
 * input_buffer.cpp): the first gradient of a tensor is kept, later ones are
 * added in place and freed; AccumulateGrad makes a parameter's first gradient
 * its .grad. */
#include "replay/tl_gen.h"

#include <stdlib.h>

int32_t llmmem__tl_new(tl_gen *g, uint64_t bytes, int cat, const char *what)
{
    if (!bytes)
        return -1;
    int32_t id = llmmem__rp_alloc(g->rp, bytes, cat, LLMMEM__ST_DEFAULT, what);
    if (id < 0)
        return -1;
    if (id >= g->capref) {
        int32_t cap = g->capref ? g->capref : 1024;
        while (cap <= id)
            cap *= 2;
        int32_t *ref = realloc(g->ref, (size_t)cap * sizeof *ref);
        if (!ref) {
            g->rp->nomem = true;
            return -1;
        }
        g->ref = ref;
        g->capref = cap;
    }
    g->ref[id] = 1;
    return id;
}

void llmmem__tl_hold(tl_gen *g, int32_t id)
{
    if (id >= 0)
        g->ref[id]++;
}

void llmmem__tl_drop(tl_gen *g, int32_t id)
{
    if (id >= 0 && g->ref[id] > 0 && --g->ref[id] == 0)
        llmmem__rp_free(g->rp, id);
}

uint64_t llmmem__tl_bytes(const tl_gen *g, int32_t id)
{
    const llmmem__replay *r = g->rp;
    if (id < 0 || id >= r->nid || r->id2b[id] < 0)
        return 0;
    return r->b[r->id2b[id]].size;
}

int32_t llmmem__tl_save(tl_gen *g, int32_t id)
{
    if (!g->saving || id < 0)
        return -1;
    llmmem__tl_hold(g, id);
    return id;
}

void llmmem__tl_keep(tl_gen *g, tl_kept *k, int32_t id)
{
    int32_t s = llmmem__tl_save(g, id);
    if (s >= 0 && k->n < TL_MAXSV)
        k->v[k->n++] = s;
    else if (s >= 0)
        llmmem__tl_drop(g, s);
}

void llmmem__tl_unkeep(tl_gen *g, tl_kept *k)
{
    for (int i = 0; i < k->n; i++)
        llmmem__tl_drop(g, k->v[i]);
    k->n = 0;
}

void llmmem__tl_acc(tl_gen *g, int32_t *buf, int32_t grad)
{
    if (grad < 0)
        return;
    if (*buf < 0)
        *buf = grad;
    else
        llmmem__tl_drop(g, grad);
}

int32_t llmmem__tl_weight_grad_mm(tl_gen *g, tl_param *p, bool cast)
{
    if (!p || !p->trains)
        return -1;
    const uint64_t mb = cast ? g->cb : g->gb;
    return llmmem__tl_new(g, p->n * mb, cast && mb != g->gb ? LLMMEM_C_ACTIVATION_TRANSIENT : LLMMEM_C_GRADIENTS,
                          "weight gradient");
}

void llmmem__tl_weight_grad_done(tl_gen *g, tl_param *p, int32_t grad, bool cast)
{
    if (!p || grad < 0)
        return;
    if (cast && g->cb != g->gb) {
        int32_t full = llmmem__tl_new(g, p->n * g->gb, LLMMEM_C_GRADIENTS, "weight gradient (ToCopyBackward)");
        llmmem__tl_drop(g, grad);
        grad = full;
    }
    llmmem__tl_acc(g, &p->grad, grad);
}

void llmmem__tl_bwd_matmul(tl_gen *g)
{
    if (!g->first_bwd)
        return;
    g->first_bwd = false;
    (void)llmmem__tl_new(g, g->t->workspace, LLMMEM_C_WORKSPACE, "cuBLAS workspace (autograd thread)");
}

void llmmem__tl_cache(tl_gen *g, int32_t id)
{
    if (id < 0)
        return;
    if (g->ncache == g->capcache) {
        int32_t cap = g->capcache ? 2 * g->capcache : 256;
        int32_t *c = realloc(g->cache, (size_t)cap * sizeof *c);
        if (!c) {
            g->rp->nomem = true;
            return;
        }
        g->cache = c;
        g->capcache = cap;
    }
    llmmem__tl_hold(g, id);
    g->cache[g->ncache++] = id;
}

void llmmem__tl_cache_clear(tl_gen *g)
{
    for (int32_t i = 0; i < g->ncache; i++)
        llmmem__tl_drop(g, g->cache[i]);
    g->ncache = 0;
}
