/* The recorded timeline: every allocation, free and segment event of a
 * replay with the reserved bytes after it, and the phase marks; what the
 * timeline outputs (api/timeline.c: JSON, SVG, a torch memory snapshot) read.
 * Only llmmem_timeline records; estimates replay without it. */
#include "replay/replay.h"

#include <stdlib.h>

static llmmem__tl_event *next_event(llmmem__tl *t)
{
    if (t->nomem)
        return NULL;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 4096;
        llmmem__tl_event *ev = realloc(t->ev, cap * sizeof *ev);
        if (!ev) {
            t->nomem = true;
            return NULL;
        }
        t->ev = ev;
        t->cap = cap;
    }
    return &t->ev[t->n++];
}

static void put_block(llmmem__tl *t, const llmmem__replay *r, const llmmem__rp_block *b, int op)
{
    llmmem__tl_event *e = next_event(t);
    if (!e)
        return;
    *e = (llmmem__tl_event){b->addr, b->size, b->req, r->reserved, b->what, (uint8_t)op, b->cat, b->stream};
}

void llmmem__tl_alloc(llmmem__tl *t, const llmmem__replay *r, const llmmem__rp_block *b)
{
    put_block(t, r, b, LLMMEM__TL_ALLOC);
}

void llmmem__tl_free(llmmem__tl *t, const llmmem__replay *r, const llmmem__rp_block *b)
{
    put_block(t, r, b, LLMMEM__TL_FREE);
}

void llmmem__tl_segment(llmmem__tl *t, const llmmem__replay *r, int op, uint64_t addr, uint64_t bytes, int stream)
{
    llmmem__tl_event *e = next_event(t);
    if (!e)
        return;
    *e = (llmmem__tl_event){addr, bytes, bytes, r->reserved, NULL, (uint8_t)op, LLMMEM_C_OTHER, (uint8_t)stream};
}

void llmmem__tl_phase(llmmem__tl *t, const llmmem__replay *r, const char *name)
{
    llmmem__tl_event *e = next_event(t);
    if (!e)
        return;
    *e = (llmmem__tl_event){0, 0, 0, r->reserved, name, LLMMEM__TL_PHASE, 0, 0};
}

void llmmem__tl_mark(llmmem__tl *t, const llmmem__replay *r, const char *what, uint64_t index)
{
    llmmem__tl_event *e = next_event(t);
    if (!e)
        return;
    *e = (llmmem__tl_event){0, index, 0, r->reserved, what, LLMMEM__TL_MARK, 0, 0};
}

void llmmem__tl_release(llmmem__tl *t)
{
    free(t->ev);
    t->ev = NULL;
    t->n = t->cap = 0;
}
