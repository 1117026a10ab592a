/* Copies and frees of a GGUF file's description (model/gguf.h). */
#include "model/gguf.h"

#include <stdlib.h>
#include <string.h>

llmmem__gguf *llmmem__gguf_clone(const llmmem__gguf *g)
{
    llmmem__gguf *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *g;
    c->t = malloc(g->n_tensors ? g->n_tensors * sizeof *c->t : 1);
    c->names = malloc(g->names_len ? g->names_len : 1);
    if (!c->t || !c->names) {
        free(c->t);
        free(c->names);
        free(c);
        return NULL;
    }
    if (g->n_tensors)
        memcpy(c->t, g->t, g->n_tensors * sizeof *c->t);
    if (g->names_len)
        memcpy(c->names, g->names, g->names_len);
    return c;
}

void llmmem__gguf_free(llmmem__gguf *g)
{
    if (!g)
        return;
    free(g->t);
    free(g->names);
    free(g);
}
