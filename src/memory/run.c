/* The resolver (run.h): the shapes of a run and the checks of every estimate
 * of a kind, computed once by the driver. */
#include "memory/run.h"
#include "memory/recipe.h"

#define u llmmem__nonneg

/* The model's shapes, and one of tp ranks'. */
static void shapes(llmmem__run *r, const struct llmmem_model *m, const struct llmmem_config *c, uint64_t tp)
{
    r->m = m;
    r->c = c;
    r->caps = 0;
    r->no_replay = NULL;
    r->sink = NULL;
    r->gpu = NULL; /* the layout r->l stays unset: a distributed engine's driver sets it */
    r->h = u(m->hidden_size);
    r->L = u(m->num_layers);
    r->a = u(m->num_heads);
    r->k = llmmem__kv_heads(m);
    r->d = u(m->head_dim);
    r->f = u(m->intermediate_size);
    r->V = u(m->vocab_size);
    r->tp = tp;
    if (tp == 1) { /* training's single-GPU model, most inference */
        r->a_r = r->a;
        r->k_r = r->k;
        r->f_r = r->f;
        return;
    }
    r->a_r = tp ? r->a / tp : 0;
    r->k_r = llmmem__kv_heads_per_rank(r->k, tp);
    r->f_r = tp ? r->f / tp : 0;
}

void llmmem__run_resolve_train(llmmem__run *r, const struct llmmem_model *m, const struct llmmem_config *c)
{
    shapes(r, m, c, 1);
    r->gpu = llmmem__gpu_at((int)c->gpu); /* NULL outside the table: refused when the result is finished (peak.c) */
    r->B = u(c->micro_batch_size);
    r->S = u(c->seq_len);
    r->T = r->B * r->S; /* both bounded by the parameter table (1e7 x 1e8) */
    r->N = 0;
}

/* The model's dimensions every inference term divides by or multiplies with. */
static int check_dims(const struct llmmem_model *m)
{
    if (m->hidden_size <= 0 || m->num_layers <= 0 || m->num_heads <= 0 || m->vocab_size <= 0 ||
        m->head_dim <= 0)
        return llmmem__error(
            LLMMEM_E_SCHEMA,
            "model: hidden_size %lld, num_layers %lld, num_heads %lld, head_dim %lld "
            "and vocab_size %lld must all be positive",
            (long long)m->hidden_size, (long long)m->num_layers, (long long)m->num_heads,
            (long long)m->head_dim, (long long)m->vocab_size);
    if (m->num_experts > 0 && m->experts_per_token <= 0)
        return llmmem__error(LLMMEM_E_SCHEMA, "model: num_experts %lld needs experts_per_token > 0",
                             (long long)m->num_experts);
    return 0;
}

/* The batch, prompt and tensor-parallel arguments; the GPU (*g). */
static int check_run(const struct llmmem_model *m, const struct llmmem_config *c, const llmmem__gpu **g)
{
    if (c->batch_size < 1)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "batch_size %lld: must be at least 1",
                             (long long)c->batch_size);
    if (c->prompt_len < 1)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "prompt_len %lld: must be at least 1",
                             (long long)c->prompt_len);
    if (c->decode_len < 0)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "decode_len %lld: must not be negative",
                             (long long)c->decode_len);
    const int64_t tp = c->tp > 0 ? c->tp : 1;
    const int64_t kvh = (int64_t)llmmem__kv_heads(m);
    if (m->num_heads % tp != 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "tensor_parallel %lld does not divide num_heads %lld", (long long)tp,
                             (long long)m->num_heads);
    if (kvh >= tp ? kvh % tp != 0 : tp % kvh != 0)
        return llmmem__error(
            LLMMEM_E_INCONSISTENT,
            "tensor_parallel %lld and num_kv_heads %lld: one must divide the other", (long long)tp,
            (long long)kvh);
    *g = llmmem__gpu_at((int)c->gpu);
    if (!*g)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "gpu index %lld is not in the GPU table",
                             (long long)c->gpu);
    return 0;
}

int llmmem__run_resolve_infer(llmmem__run *r, const struct llmmem_model *m, const struct llmmem_config *c)
{
    const llmmem__gpu *g;
    int rc = check_dims(m);
    if (rc || (rc = check_run(m, c, &g)) != 0)
        return rc;
    shapes(r, m, c, u(c->tp > 0 ? c->tp : 1));
    r->gpu = g;
    r->B = u(c->batch_size);
    r->S = u(c->prompt_len);
    r->T = r->B * r->S;
    r->N = u(c->decode_len);
    return LLMMEM_OK;
}
