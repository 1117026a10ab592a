/* Result handles as the lower layers fill them (src/core/result.h); the
 * public getters and the JSON serialisation are in src/api/result.c. */
#include "core/result.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void llmmem__result_clear(struct llmmem_result *r)
{
    memset(r->bytes, 0, sizeof r->bytes);
    memset(r->phase_used, 0, sizeof r->phase_used);
    memset(r->v, 0, sizeof r->v);
    r->stage_count = 0;
    r->term_count = 0;
    r->note_count = 0;
    r->input_count = 0;
    r->mode = 0;
    r->engine = 0;
    r->caps = 0;
    r->no_replay = NULL;
    r->largest_block = 0;
    r->checkpointing = false;
    r->replayed = r->replay_oom = false;
    r->replay_reserved = r->replay_allocated = 0;
    r->replay_skip_note = -1;
    r->model_type[0] = '\0';
}

void llmmem__result_term(struct llmmem_result *r, const char *name, const char *formula, uint64_t bytes)
{
    if (r->term_count < LLMMEM__MAX_TERMS) {
        r->terms[r->term_count].name = name;
        r->terms[r->term_count].formula = formula;
        r->terms[r->term_count].bytes = bytes;
        r->term_count++;
    }
}

/* Keeps the note just written at notes[note_count] unless an earlier one says the same. */
static void note_keep(struct llmmem_result *r)
{
    for (int i = 0; i < r->note_count; i++)
        if (strcmp(r->notes[i], r->notes[r->note_count]) == 0)
            return; /* said once */
    r->note_count++;
}

void llmmem__result_note(struct llmmem_result *r, const char *fmt, ...)
{
    if (r->note_count >= LLMMEM__MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->note_count], LLMMEM__NOTE_MAX, fmt, ap);
    va_end(ap);
    note_keep(r);
}

void llmmem__result_note_join(struct llmmem_result *r, ...)
{
    if (r->note_count >= LLMMEM__MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, r);
    llmmem__str_vjoin(r->notes[r->note_count], LLMMEM__NOTE_MAX, ap);
    va_end(ap);
    note_keep(r);
}

void llmmem__result_note_cat(struct llmmem_result *r, const llmmem__str *parts, int n)
{
    if (r->note_count >= LLMMEM__MAX_NOTES)
        return;
    llmmem__str_cat(r->notes[r->note_count], LLMMEM__NOTE_MAX, parts, n);
    note_keep(r);
}

void llmmem__result_input(struct llmmem_result *r, const char *name, int64_t value)
{
    if (r->input_count < LLMMEM__MAX_INPUTS) {
        r->input_name[r->input_count] = name;
        r->input_value[r->input_count] = value;
        r->input_count++;
    }
}

uint64_t llmmem__result_phase_total(const struct llmmem_result *r, int ph, llmmem__ovf *o)
{
    uint64_t t = 0;
    for (int k = 0; k < LLMMEM__COMPONENTS; k++)
        t = llmmem__add(o, t, r->bytes[ph][k]);
    return t;
}

void llmmem__result_host(struct llmmem_result *r, uint64_t pinned, uint64_t pageable)
{
    llmmem__ovf o = {false};
    const uint64_t max = UINT64_MAX;
    uint64_t a = llmmem__add(&o, llmmem__result_u64(r, LLMMEM_R_HOST_PINNED_BYTES), pinned);
    uint64_t b = llmmem__add(&o, llmmem__result_u64(r, LLMMEM_R_HOST_PAGEABLE_BYTES), pageable);
    uint64_t t = llmmem__add(&o, llmmem__result_u64(r, LLMMEM_R_HOST_BYTES), llmmem__add(&o, pinned, pageable));
    llmmem__result_set_u64(r, LLMMEM_R_HOST_PINNED_BYTES, o.overflow ? max : a);
    llmmem__result_set_u64(r, LLMMEM_R_HOST_PAGEABLE_BYTES, o.overflow ? max : b);
    llmmem__result_set_u64(r, LLMMEM_R_HOST_BYTES, o.overflow ? max : t);
}

uint64_t llmmem__pinned_block(uint64_t bytes)
{
    if (bytes <= 1)
        return bytes;
    if (bytes > (UINT64_C(1) << 63))
        return UINT64_MAX;
    uint64_t p = 1;
    while (p < bytes)
        p <<= 1;
    return p;
}
