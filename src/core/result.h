/* Result handles as the layers below the API fill them: per-phase,
 * per-component bytes, scalar keys, terms, notes and formula inputs. The public
 * getters and the JSON serialisation are in src/api/result.c. Not installed. */
#ifndef LLMMEM_CORE_RESULT_H
#define LLMMEM_CORE_RESULT_H

#include "core/core.h"
#include "core/rkeys.def"

#define LLMMEM__MAX_TERMS 48
#define LLMMEM__MAX_STAGES 64
#define LLMMEM__MAX_INPUTS 24
/* The scalar keys (core/rkeys.def), counted from their list. */
enum { LLMMEM__RKEYS = 0
#define LLMMEM__RKEY_COUNT(key, name, type) +1
       LLMMEM__RESULT_KEYS(LLMMEM__RKEY_COUNT)
#undef LLMMEM__RKEY_COUNT
};
/* Keys from here on are serialised only when set (non-zero), so that the JSON
 * of a result that does not use them is what it was before they existed. */
#define LLMMEM__RKEY_OPTIONAL LLMMEM_R_MANAGED_BYTES
/* Values of the dtype result keys: 0 "none", then enum llmmem__dtype, then int8, int4. */
#define LLMMEM__RDT_INT8 5
#define LLMMEM__RDT_INT4 6
#define LLMMEM__RDT_COUNT 7
_Static_assert(LLMMEM__DT_COUNT <= LLMMEM__RDT_INT8, "the dtype result keys' int8 value follows the dtypes");
/* Their names (names.c): llmmem_result_enum_name of the dtype keys. */
extern const char *const llmmem__result_dtype_names[LLMMEM__RDT_COUNT];

typedef struct llmmem__term {
    const char *name;    /* static */
    const char *formula; /* static: formula and source */
    uint64_t bytes;
} llmmem__term;

struct llmmem_result {
    uint64_t bytes[LLMMEM__PHASES][LLMMEM__COMPONENTS]; /* live bytes at each phase's peak */
    bool phase_used[LLMMEM__PHASES];
    /* scalars indexed by key - LLMMEM_R_PARAMS; the key's type says which member */
    union {
        uint64_t u;
        int64_t i;
        double f;
    } v[LLMMEM__RKEYS];
    int stage_count;
    uint64_t stage_peak[LLMMEM__MAX_STAGES];
    int term_count;
    llmmem__term terms[LLMMEM__MAX_TERMS];
    int note_count;
    char notes[LLMMEM__MAX_NOTES][LLMMEM__NOTE_MAX];
    int input_count;
    const char *input_name[LLMMEM__MAX_INPUTS]; /* static */
    int64_t input_value[LLMMEM__MAX_INPUTS];
    int mode;       /* enum llmmem__mode */
    int engine;     /* LLMMEM_ENGINE_* (training) */
    unsigned caps;  /* the engine's or runtime's enum llmmem__caps */
    const char *no_replay; /* static: why the allocator replay never draws this engine's run, or NULL */
    uint64_t largest_block; /* largest transient tensor (allocator model) */
    bool checkpointing;
    /* the caching allocator's replay (replay/reserved.c), when it ran */
    bool replayed;
    bool replay_oom;           /* a segment did not fit the GPU even after freeing the cache */
    uint64_t replay_reserved;  /* peak segment bytes */
    uint64_t replay_allocated; /* peak allocated bytes of the replayed timeline */
    int replay_skip_note;      /* the note saying why the replay did not run (reserved.c), -1 */
    char model_type[LLMMEM__NAME_MAX];
};

void llmmem__result_clear(struct llmmem_result *r);
/* Adds a term (ignored past LLMMEM__MAX_TERMS). */
void llmmem__result_term(struct llmmem_result *r, const char *name, const char *formula,
                         uint64_t bytes);
/* Adds a note (ignored past LLMMEM__MAX_NOTES, or when an earlier note says the same). */
void llmmem__result_note(struct llmmem_result *r, const char *fmt, ...) LLMMEM_PRINTF(2, 3);
/* The same, joined from the strings of the NULL-terminated list (llmmem__str_join): no
 * format to parse, for the notes every estimate makes. */
void llmmem__result_note_join(struct llmmem_result *r, ...) LLMMEM_SENTINEL;
/* The same from n pieces of known length (llmmem__str_cat). */
void llmmem__result_note_cat(struct llmmem_result *r, const llmmem__str *parts, int n);
/* Records an input symbol of the formulas (name static; ignored past the limit). */
void llmmem__result_input(struct llmmem_result *r, const char *name, int64_t value);
/* A scalar key of the result (every estimate sets a few dozen: inline). */
static inline void llmmem__result_set_u64(struct llmmem_result *r, int key, uint64_t v)
{
    r->v[key - LLMMEM_R_PARAMS].u = v;
}
static inline void llmmem__result_set_i64(struct llmmem_result *r, int key, int64_t v)
{
    r->v[key - LLMMEM_R_PARAMS].i = v;
}
static inline void llmmem__result_set_f64(struct llmmem_result *r, int key, double v)
{
    r->v[key - LLMMEM_R_PARAMS].f = v;
}
static inline uint64_t llmmem__result_u64(const struct llmmem_result *r, int key)
{
    return r->v[key - LLMMEM_R_PARAMS].u;
}
/* Host memory per node: adds pinned and pageable bytes to host_pinned_bytes and
 * host_pageable_bytes, and both to host_bytes (saturating). */
void llmmem__result_host(struct llmmem_result *r, uint64_t pinned, uint64_t pageable);
/* The bytes torch's pinned host allocator takes for a request of `bytes`: the
 * next power of two (ATen/core/CachingHostAllocator.h CachingHostAllocatorImpl::
 * allocate, c10::llvm::PowerOf2Ceil; .pin_memory(), pin_memory=True and
 * non_blocking copies to the CPU all go through it). 0 stays 0. */
uint64_t llmmem__pinned_block(uint64_t bytes);
/* Sum of a phase's components (overflow sets o). */
uint64_t llmmem__result_phase_total(const struct llmmem_result *r, int ph, llmmem__ovf *o);

#endif /* LLMMEM_CORE_RESULT_H */
