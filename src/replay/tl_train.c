/* The allocation timeline of a training run as the measuring process makes
 * it (shared/groundtruth/measure.py, examples/python/llmmem_probe.py): a
 * first matmul creates the 32 MiB cuBLAS workspace; the model is built on the
 * GPU one parameter at a time in module order (AutoModelForCausalLM
 * .from_config under torch.device("cuda")), LoRA adapters beside their base
 * Linear (peft); the input ids; then steps of forward, loss, backward (the
 * autograd thread's own cuBLAS workspace at its first matmul), the optimizer
 * step (states created at the first one, torch.optim's temporaries) and
 * zero_grad(set_to_none=True). The layers' own allocations are tl_layer.c's,
 * the ends of the model tl_head.c's. */
#include "replay/tl_gen.h"

#include <stdlib.h>
#include <string.h>

#define N llmmem__tl_new
#define DROP llmmem__tl_drop



static void phase(tl_gen *g, const char *name)
{
    if (g->rp->rec)
        llmmem__tl_phase(g->rp->rec, g->rp, name);
}

/* A mark for the chart's x axis (recording only). */
static void mark(tl_gen *g, const char *what, uint64_t i)
{
    if (g->rp->rec)
        llmmem__tl_mark(g->rp->rec, g->rp, what, i);
}

/* ---- parameters ------------------------------------------------------------------ */

static tl_param *param_new(tl_gen *g)
{
    if (g->np == g->cap_p) {
        int cap = g->cap_p ? 2 * g->cap_p : 256;
        tl_param *p = realloc(g->p, (size_t)cap * sizeof *p);
        if (!p) {
            g->rp->nomem = true;
            return NULL;
        }
        g->p = p;
        g->cap_p = cap;
    }
    tl_param *p = &g->p[g->np++];
    memset(p, 0, sizeof *p);
    p->grad = p->st[0] = p->st[1] = -1;
    return p;
}

static void param_add(tl_gen *g, const llmmem__tensor *x, int64_t layer, bool trains)
{
    tl_param *p = param_new(g);
    if (!p)
        return;
    p->name = x->name;
    p->kind = x->kind;
    p->linear = x->linear;
    p->rows = llmmem__nonneg(x->rows);
    p->cols = llmmem__nonneg(x->cols);
    p->n = p->rows * p->cols;
    p->layer = layer;
    p->trains = trains;
}

/* lora_A (r x in) and lora_B (out x r) registered after the base weight. */
static void adapters_add(tl_gen *g, const llmmem__tensor *x, int64_t layer)
{
    const uint64_t r = llmmem__nonneg(g->c->lora_rank);
    if (!g->rc.lora || !x->linear || x->kind == LLMMEM__T_BIAS || !llmmem__lora_targets(g->c->lora_targets, x))
        return;
    for (int k = 0; k < 2; k++) {
        tl_param *p = param_new(g);
        if (!p)
            return;
        p->name = k ? "lora_B" : "lora_A";
        p->kind = x->kind;
        p->adapter = true;
        p->rows = k ? llmmem__nonneg(x->rows) : r;
        p->cols = k ? r : llmmem__nonneg(x->cols);
        p->n = p->rows * p->cols;
        p->layer = layer;
        p->trains = true;
    }
}

/* model.parameters() order: what comes before the layers, each of the
 * `L` simulated layers (a tensor of fewer layers than the model in its
 * last ones), what comes after. */
static void params_build(tl_gen *g, const llmmem__tensors *ts, int64_t model_layers)
{
    const bool full = g->rc.full_ft;
    int first = ts->n;
    for (int i = 0; i < ts->n; i++)
        if (ts->t[i].layer) {
            first = i;
            break;
        }
    for (int i = 0; i < first; i++)
        param_add(g, &ts->t[i], -1, full);
    g->first_layer_param = g->np;
    for (uint64_t l = 0; l < g->L; l++)
        for (int i = first; i < ts->n; i++) {
            const llmmem__tensor *x = &ts->t[i];
            if (!x->layer)
                continue;
            uint64_t have = (uint64_t)(x->count > 0 ? x->count : 0);
            uint64_t here = model_layers > 0 ? (have * g->L + (uint64_t)model_layers - 1) / (uint64_t)model_layers : have;
            if (l + here < g->L)
                continue;
            param_add(g, x, (int64_t)l, full);
            adapters_add(g, x, (int64_t)l);
        }
    g->after_layer_param = g->np;
    for (int i = first; i < ts->n; i++)
        if (!ts->t[i].layer) {
            param_add(g, &ts->t[i], -1, full && !(g->m->tie_embeddings && ts->t[i].kind == LLMMEM__T_HEAD));
            adapters_add(g, &ts->t[i], -1);
        }
}

/* The weights as the model is built, in parameters() order; the stored
 * bytes per element follow the estimator's weights (quantised formats). */
static void weights_build(tl_gen *g)
{
    uint64_t elems = 0;
    for (int i = 0; i < g->np; i++)
        elems += g->p[i].adapter ? 0 : g->p[i].n;
    const uint64_t wbytes = g->t->st.weights;
    const uint64_t ab = g->rc.ab;
    for (int i = 0; i < g->np && !g->rp->nomem; i++) {
        const tl_param *p = &g->p[i];
        uint64_t b = p->adapter ? p->n * ab : (elems ? (uint64_t)((double)p->n / (double)elems * (double)wbytes) : 0);
        (void)N(g, b, LLMMEM_C_WEIGHTS, p->adapter ? "LoRA adapter" : p->name);
        if (g->t->st.master && p->trains)
            (void)N(g, p->n * 4, LLMMEM_C_MASTER_WEIGHTS, "fp32 master weight");
    }
}

/* ---- the optimizer ----------------------------------------------------------------- */

static void optimizer_step(tl_gen *g, bool first)
{
    const llmmem__states *st = &g->t->st;
    /* state tensors per parameter (torch.optim _init_group), the catalogue's */
    const int k = llmmem__optim_states((int)g->c->optimizer);
    uint64_t ntrain = 0, largest = 0;
    for (int i = 0; i < g->np; i++)
        if (g->p[i].trains) {
            ntrain += g->p[i].n;
            largest = g->p[i].n > largest ? g->p[i].n : largest;
        }
    if (!ntrain)
        return;
    const double per_state = k ? (double)st->optim / (double)ntrain / k : 0.0;
    if (first && k) /* _init_group: zeros_like (or clone of the gradient) per parameter */
        for (int i = 0; i < g->np; i++) {
            tl_param *p = &g->p[i];
            if (!p->trains || !p->n)
                continue;
            for (int s = 0; s < k && s < 2; s++)
                p->st[s] = N(g, (uint64_t)(per_state * (double)p->n * (k > 2 ? (double)k / 2 : 1.0)),
                             LLMMEM_C_OPTIMIZER_STATE, "optimizer state");
        }
    const uint64_t tmp = st->optim_transient;
    if (!tmp)
        return;
    /* the foreach implementation's one list of temporaries over every parameter
     * (_multi_tensor_*: _foreach_sqrt and the like), as the catalogue says */
    if (g->c->optimizer_impl == LLMMEM__IMPL_FOREACH && llmmem__optim_foreach_all((int)g->c->optimizer)) {
        /* one temporary per parameter, all alive, freed when the list goes
         * (CPython frees a list's items last to first) */
        int32_t *ids = malloc((size_t)g->np * sizeof *ids);
        if (!ids) {
            g->rp->nomem = true;
            return;
        }
        for (int i = 0; i < g->np; i++)
            ids[i] = g->p[i].trains ? N(g, (uint64_t)((double)tmp * (double)g->p[i].n / (double)ntrain),
                                        LLMMEM_C_OPTIMIZER_TRANSIENT, "_foreach temporaries")
                                    : -1;
        for (int i = g->np - 1; i >= 0; i--)
            DROP(g, ids[i]);
        free(ids);
        return;
    }
    /* a loop over parameters: the step's copies of one parameter at a time */
    for (int i = 0; i < g->np; i++) {
        if (!g->p[i].trains)
            continue;
        uint64_t b = (uint64_t)((double)tmp / 2 * (double)g->p[i].n / (double)largest);
        int32_t a = N(g, b, LLMMEM_C_OPTIMIZER_TRANSIENT, "optimizer step temporary");
        int32_t c = N(g, b, LLMMEM_C_OPTIMIZER_TRANSIENT, "optimizer step temporary");
        DROP(g, c);
        DROP(g, a);
    }
}

static void zero_grad(tl_gen *g)
{
    for (int i = 0; i < g->np; i++) {
        DROP(g, g->p[i].grad);
        g->p[i].grad = -1;
    }
}

/* ---- one micro-step ------------------------------------------------------------------ */

static void micro_step(tl_gen *g, tl_layer **ys)
{
    tl_kept head[3];
    memset(head, 0, sizeof head);
    phase(g, "forward");
    int32_t x = llmmem__tl_embed_fwd(g);
    for (uint64_t i = 0; i < g->L && !g->rp->nomem; i++) {
        int32_t prev = x;
        if (g->ckpt) {
            llmmem__tl_hold(g, x); /* the checkpoint keeps its inputs */
            g->saving = false;
        }
        mark(g, "layer", i);
        llmmem__tl_layer_fwd(g, ys[i], (int64_t)i, &x, false);
        g->saving = true;
        if (g->ckpt)
            llmmem__tl_layer_set_input(ys[i], prev);
        DROP(g, prev);
    }
    int32_t logits = -1;
    mark(g, "head", 0);
    llmmem__tl_head_fwd(g, head, x, &logits);
    llmmem__tl_cache_clear(g); /* the autocast region ends with the forward */
    if (!g->ckpt) {
        DROP(g, g->mask);
        g->mask = -1;
    }
    DROP(g, logits); /* del out */
    phase(g, "backward");
    int32_t dx = llmmem__tl_head_bwd(g, head);
    for (uint64_t i = g->L; i-- > 0 && !g->rp->nomem;) {
        mark(g, "layer", i);
        if (g->ckpt) { /* the first unpack of a saved tensor recomputes the layer */
            int32_t in = llmmem__tl_layer_input(ys[i]);
            llmmem__tl_hold(g, in);
            int32_t r = in;
            llmmem__tl_layer_fwd(g, ys[i], (int64_t)i, &r, true);
            llmmem__tl_layer_set_input(ys[i], in);
            llmmem__tl_drop(g, in);
            llmmem__tl_cache_clear(g);
        }
        llmmem__tl_layer_bwd(g, ys[i], (int64_t)i, &dx);
    }
    mark(g, "embedding", 0);
    llmmem__tl_embed_bwd(g, dx);
    for (int s = 0; s < 2; s++) {
        DROP(g, g->cos_sin[s]);
        g->cos_sin[s] = -1;
    }
    DROP(g, g->mask);
    g->mask = -1;
}

/* ---- the run --------------------------------------------------------------------------- */

static void shapes(tl_gen *g)
{
    const struct llmmem_model *m = g->m;
    const llmmem__train *t = g->t;
    const struct llmmem_config *c = g->c;
    g->T = t->tokens;
    g->B = llmmem__nonneg(c->micro_batch_size);
    if (!g->B)
        g->B = 1;
    g->S = g->T / g->B;
    g->h = llmmem__nonneg(m->hidden_size);
    g->a = llmmem__nonneg(m->num_heads);
    g->k = llmmem__nonneg(m->num_kv_heads ? m->num_kv_heads : m->num_heads);
    g->d = llmmem__nonneg(m->head_dim);
    g->q = g->a * g->d;
    g->kv = g->k * g->d;
    g->f = llmmem__nonneg(m->intermediate_size);
    g->V = llmmem__nonneg(m->vocab_size);
    g->rb = g->rc.rb;
    g->cb = g->rc.cb;
    g->pb = g->rc.pb;
    g->gb = (uint64_t)(t->st.grad_bytes > 0 ? t->st.grad_bytes : 2);
    g->amp = g->rc.amp;
    g->ckpt = t->checkpointing;
    g->eager = c->attention == LLMMEM__ATTN_EAGER;
    g->rope = m->family != LLMMEM__FAM_GPT2 && m->family != LLMMEM__FAM_OPT;
    g->gqa_expand = g->k < g->a && m->family != LLMMEM__FAM_FALCON && (g->eager || g->rc.masked);
    g->act_target = t->act_layer + (g->amp ? t->cast_layer : 0);
}

int llmmem__timeline_train(llmmem__replay *rp, const llmmem__train *t, const struct llmmem_model *m,
                           const struct llmmem_config *c, uint64_t layers, int steps, int micro, uint64_t *act_prog)
{
    tl_gen g;
    memset(&g, 0, sizeof g);
    g.rp = rp;
    g.m = m;
    g.c = c;
    g.t = t;
    llmmem__recipe_of(&g.rc, m, c);
    g.L = layers;
    shapes(&g);
    g.saving = true;
    g.first_bwd = true;
    g.cos_sin[0] = g.cos_sin[1] = g.mask = -1;
    llmmem__tensors local;
    const llmmem__tensors *ts = &m->tensors;
    if (ts->n == 0) {
        llmmem__tensors_of(&local, m);
        ts = &local;
    }
    params_build(&g, ts, m->num_layers);
    tl_layer **ys = calloc(g.L ? g.L : 1, sizeof *ys);
    char *store = calloc(g.L ? g.L : 1, llmmem__tl_layer_size());
    if (!ys || !store)
        rp->nomem = true;
    for (uint64_t i = 0; ys && store && i < g.L; i++)
        ys[i] = (tl_layer *)(store + i * llmmem__tl_layer_size());

    phase(&g, "process start");
    (void)N(&g, t->workspace, LLMMEM_C_WORKSPACE, "cuBLAS workspace (first matmul)");
    if (c->prior_ws_segment > 0 &&
        llmmem__rp_prior_segment(rp, (uint64_t)c->prior_ws_segment, t->workspace, LLMMEM_C_WORKSPACE,
                                 "cuBLAS workspace (autograd thread, earlier run)") >= 0)
        g.first_bwd = false;
    phase(&g, "model build");
    weights_build(&g);
    g.inputs = N(&g, t->inputs, LLMMEM_C_OTHER, "input ids");
    if (c->step == LLMMEM__STEP_FIRST || steps < 1)
        steps = 1;
    int64_t ga = c->grad_accum_steps > 1 ? c->grad_accum_steps : 1;
    if (micro > 0 && ga > micro)
        ga = micro;
    for (int s = 0; s < steps && !rp->nomem && ys && store; s++) {
        for (int64_t mi = 0; mi < ga && !rp->nomem; mi++)
            micro_step(&g, ys);
        phase(&g, "optimizer");
        optimizer_step(&g, s == 0);
        zero_grad(&g);
        if (c->empty_cache_steps > 0 && (s + 1) % c->empty_cache_steps == 0)
            llmmem__rp_empty_cache(rp);
    }
    if (act_prog)
        *act_prog = g.act_prog;
    free(store);
    free(ys);
    free(g.p);
    free(g.ref);
    free(g.cache);
    return rp->nomem ? LLMMEM_E_NOMEM : LLMMEM_OK;
}
