/* The ends of a training forward and backward around the decoder layers:
 * the embedding (and Gemma's scaling, GPT-2's learned positions), RoPE's cos
 * and sin, eager's causal mask; after the layers the final norm, the head and
 * transformers' causal-LM loss (loss/loss_utils.py ForCausalLMLoss: logits
 * .float(), log_softmax kept, nll_loss); in backward the loss gradients (nll
 * then log_softmax backward, each T x V fp32), the cast back, the head's
 * matmul, the slice's zero-filled gradient, the final norm, and at the end
 * the embedding's dense gradient. */
#include "replay/tl_gen.h"

#include <string.h>

#define N llmmem__tl_new
#define HOLD llmmem__tl_hold
#define DROP llmmem__tl_drop

/* Parameters outside the layers by kind (the first of a kind). */
static tl_param *param_of(tl_gen *g, int kind)
{
    for (int i = 0; i < g->np; i++)
        if (g->p[i].layer < 0 && g->p[i].kind == kind && !g->p[i].adapter)
            return &g->p[i];
    return NULL;
}

static tl_param *final_norm(tl_gen *g)
{
    for (int i = g->np - 1; i >= 0; i--)
        if (g->p[i].layer < 0 && g->p[i].kind == LLMMEM__T_NORM)
            return &g->p[i];
    return NULL;
}

/* The residual stream entering layer 0, and what the layers share. */
int32_t llmmem__tl_embed_fwd(tl_gen *g)
{
    const uint64_t Th = g->T * g->h;
    const struct llmmem_model *m = g->m;
    int32_t x = N(g, Th * g->rb, LLMMEM_C_ACTIVATION_TRANSIENT, "embedding");
    if (m->family == LLMMEM__FAM_GEMMA) { /* inputs_embeds * normalizer */
        int32_t s = N(g, Th * g->rb, LLMMEM_C_ACTIVATION_TRANSIENT, "embedding * sqrt(hidden)");
        DROP(g, x);
        x = s;
    } else if (m->family == LLMMEM__FAM_GPT2 || m->family == LLMMEM__FAM_OPT) {
        int32_t pos = N(g, g->S * g->h * g->rb, LLMMEM_C_ACTIVATION_TRANSIENT, "position embeddings");
        int32_t s = N(g, Th * g->rb, LLMMEM_C_ACTIVATION_TRANSIENT, "embeddings + positions");
        DROP(g, x);
        DROP(g, pos);
        x = s;
    }
    if (g->rope) {
        uint64_t rot = g->d;
        if (m->partial_rotary_factor > 0 && m->partial_rotary_factor < 1)
            rot = (uint64_t)((double)g->d * m->partial_rotary_factor);
        int32_t fr = N(g, g->S * rot * 2, LLMMEM_C_ACTIVATION_TRANSIENT, "RoPE freqs");
        int32_t emb = N(g, g->S * rot * 4, LLMMEM_C_ACTIVATION_TRANSIENT, "RoPE cat(freqs, freqs)");
        DROP(g, fr);
        g->cos_sin[0] = N(g, g->S * rot * g->rb, LLMMEM_C_OTHER, "RoPE cos");
        g->cos_sin[1] = N(g, g->S * rot * g->rb, LLMMEM_C_OTHER, "RoPE sin");
        DROP(g, emb);
    }
    g->mask = -1;
    if (g->eager) {
        llmmem__ovf o = {false};
        uint64_t mb = llmmem__saved_eager_mask(g->B, &g->rc, g->S, &o);
        if (g->rb > g->cb)
            mb = mb / g->cb * g->rb;
        g->mask = N(g, mb, LLMMEM_C_OTHER, "eager causal mask");
    }
    return x;
}

/* End of forward over the last layer's output `x` (dropped): the final norm,
 * the head, the loss. *logits receives the logits the output object holds
 * (until `del out`). */
void llmmem__tl_head_fwd(tl_gen *g, tl_kept *k, int32_t x, int32_t *logits)
{
    const uint64_t Th = g->T * g->h, TV = g->T * g->V;
    const llmmem__train *t = g->t;
    uint64_t nb;
    int32_t n = llmmem__tl_norm_fwd(g, &k[0], final_norm(g), x, g->rb, &nb);
    DROP(g, x);
    tl_param *head = param_of(g, LLMMEM__T_HEAD);
    if (!head)
        head = param_of(g, LLMMEM__T_EMBED);
    int32_t cin = n;
    if (g->amp && nb != g->cb)
        cin = N(g, Th * g->cb, LLMMEM_C_ACTIVATIONS, "lm_head: autocast input cast");
    else
        HOLD(g, cin);
    if (head && head->trains)
        llmmem__tl_keep(g, &k[1], cin);
    if (g->amp && head) {
        int32_t wc = N(g, head->n * g->cb, LLMMEM_C_AUTOCAST_CACHE, "lm_head: autocast weight cast");
        if (head->trains)
            llmmem__tl_cache(g, wc);
        llmmem__tl_keep(g, &k[1], wc);
        DROP(g, wc);
    }
    int32_t lg = N(g, TV * g->cb, LLMMEM_C_LOGITS, "logits");
    DROP(g, cin);
    if (g->c->loss == LLMMEM__LOSS_HF) {
        int32_t up = lg;
        if (g->cb != 4)
            up = N(g, TV * 4, LLMMEM_C_LOGITS, "loss: logits.float()");
        else
            HOLD(g, up);
        if (g->m->final_logit_softcapping > 0) {
            int32_t th = N(g, TV * g->cb, LLMMEM_C_LOGITS, "soft-capping tanh");
            llmmem__tl_keep(g, &k[2], th);
            DROP(g, th);
        }
        int32_t ls = N(g, TV * 4, LLMMEM_C_LOGITS, "loss: log_softmax");
        llmmem__tl_keep(g, &k[2], ls);
        DROP(g, ls);
        DROP(g, up);
    } else { /* the other losses: what the estimator keeps and their peak */
        int32_t ex = N(g, t->logits_fwd_extra, LLMMEM_C_LOGITS, "loss working set");
        int32_t sv = N(g, t->logits_saved, LLMMEM_C_LOGITS, "loss saved");
        llmmem__tl_keep(g, &k[2], sv);
        DROP(g, sv);
        DROP(g, ex);
    }
    /* the final hidden states stay referenced until the model returns */
    DROP(g, n);
    *logits = lg;
}

/* Backward of the loss and the head: returns the gradient of the last
 * layer's output. */
int32_t llmmem__tl_head_bwd(tl_gen *g, tl_kept *k)
{
    const uint64_t Th = g->T * g->h, TV = g->T * g->V;
    tl_param *head = param_of(g, LLMMEM__T_HEAD);
    if (!head)
        head = param_of(g, LLMMEM__T_EMBED);
    int32_t d;
    if (g->c->loss == LLMMEM__LOSS_HF) {
        int32_t d1 = N(g, TV * 4, LLMMEM_C_LOGITS, "nll_loss backward");
        int32_t d2 = N(g, TV * 4, LLMMEM_C_LOGITS, "log_softmax backward");
        llmmem__tl_unkeep(g, &k[2]);
        DROP(g, d1);
        d = d2;
        if (g->cb != 4) {
            int32_t d3 = N(g, TV * g->cb, LLMMEM_C_LOGITS, "logits.float() backward");
            DROP(g, d2);
            d = d3;
        }
    } else {
        d = N(g, g->t->logits_bwd_extra ? g->t->logits_bwd_extra : TV * g->cb, LLMMEM_C_LOGITS, "loss backward");
        llmmem__tl_unkeep(g, &k[2]);
    }
    llmmem__tl_bwd_matmul(g);
    int32_t din = N(g, Th * g->cb, LLMMEM_C_ACTIVATION_TRANSIENT, "lm_head backward: input gradient");
    int32_t dw = llmmem__tl_weight_grad_mm(g, head, g->amp);
    DROP(g, d);
    llmmem__tl_unkeep(g, &k[1]);
    llmmem__tl_weight_grad_done(g, head, dw, g->amp);
    uint64_t nb = g->amp ? 4 : g->rb;
    if (g->amp && g->m->norm == LLMMEM__NORM_RMS &&
        (g->m->family == LLMMEM__FAM_GEMMA || !strcmp(g->m->model_type, "olmo2")))
        nb = g->rb;
    if (g->amp && nb != g->cb) {
        int32_t d32 = N(g, Th * nb, LLMMEM_C_ACTIVATION_TRANSIENT, "lm_head input cast backward");
        DROP(g, din);
        din = d32;
    }
    int32_t sl = N(g, Th * nb, LLMMEM_C_ACTIVATION_TRANSIENT, "hidden_states[:, slice] backward");
    DROP(g, din);
    int32_t dx = -1;
    llmmem__tl_norm_bwd(g, &k[0], final_norm(g), sl, g->rb, &dx);
    return dx;
}

/* The embedding's backward: its dense gradient (added into a tied head's). */
void llmmem__tl_embed_bwd(tl_gen *g, int32_t dx)
{
    tl_param *e = param_of(g, LLMMEM__T_EMBED);
    int32_t idx = N(g, g->T * 8 * 4, LLMMEM_C_ACTIVATION_TRANSIENT, "embedding backward: sorted indices");
    int32_t dw = llmmem__tl_weight_grad_mm(g, e, false);
    DROP(g, idx);
    DROP(g, dx);
    llmmem__tl_weight_grad_done(g, e, dw, false);
}
