/* The lowest layer of libllmmem: errors, checked arithmetic, dtypes and storage
 * formats, the GPU table, small text helpers. Every other layer may include it;
 * it includes nothing of theirs. Not installed. Internal non-static names are
 * llmmem__<module>_<name>. docs/architecture.md draws the layers. */
#ifndef LLMMEM_CORE_CORE_H
#define LLMMEM_CORE_CORE_H

#define LLMMEM_BUILDING 1
#include "llmmem.h"
#include "core/dtypes.def"

#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define LLMMEM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define LLMMEM_SENTINEL __attribute__((sentinel))
#else
#define LLMMEM_PRINTF(a, b)
#define LLMMEM_SENTINEL
#endif

#define LLMMEM_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- errors (error.c) ---------------------------------------------------- */

/* Records the thread-local detail text and returns status, so callers write
 * `return llmmem__error(LLMMEM_E_SCHEMA, "...", ...);`. */
int llmmem__error(int status, const char *fmt, ...) LLMMEM_PRINTF(2, 3);

/* ---- checked arithmetic (overflow is an error, never a wrap) ------------ */

/* Sticky overflow flag: a computation runs on, and the caller checks once. */
typedef struct llmmem__ovf {
    bool overflow;
} llmmem__ovf;

static inline uint64_t llmmem__add(llmmem__ovf *o, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        o->overflow = true;
        return UINT64_MAX;
    }
    return r;
}

static inline uint64_t llmmem__mul(llmmem__ovf *o, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        o->overflow = true;
        return UINT64_MAX;
    }
    return r;
}

static inline uint64_t llmmem__mul3(llmmem__ovf *o, uint64_t a, uint64_t b, uint64_t c)
{
    return llmmem__mul(o, llmmem__mul(o, a, b), c);
}

/* a - b, clamped at 0 (for "the part above"). */
static inline uint64_t llmmem__sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

static inline uint64_t llmmem__ceil_div(uint64_t a, uint64_t b) { return b ? a / b + (a % b != 0) : 0; }

static inline uint64_t llmmem__round_up(llmmem__ovf *o, uint64_t a, uint64_t m)
{
    return llmmem__mul(o, llmmem__ceil_div(a, m), m);
}

static inline uint64_t llmmem__max(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t llmmem__min(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Bytes of a fractional per-element size (e.g. 0.5 B for 4-bit), rounded up;
 * n elements of `bits` bits each. */
static inline uint64_t llmmem__bits_to_bytes(llmmem__ovf *o, uint64_t n, uint64_t bits)
{
    return llmmem__ceil_div(llmmem__mul(o, n, bits), 8);
}

/* ---- dtypes ------------------------------------------------------------- */

/* Values of the enum parameters that hold a dtype (core/dtypes.def), the public
 * llmmem_dtype values. */
#define LLMMEM__DT_VALUE(P, V, name) LLMMEM__DT_##V = LLMMEM_DTYPE_##V,
enum llmmem__dtype { LLMMEM__DTYPES(LLMMEM__DT_VALUE, _) LLMMEM__DT_COUNT };
#undef LLMMEM__DT_VALUE
int llmmem__dtype_bytes(int dtype); /* 4, 2, 2, 1; 0 for auto */

/* Weight storage formats for inference (LLMMEM_P_WEIGHTS_FORMAT; core/dtypes.def). */
enum llmmem__quant { LLMMEM__QUANTS(LLMMEM__LIST_VALUE, LLMMEM__Q_) LLMMEM__Q_COUNT };

/* Sizes shared by models, configurations and results. */
#define LLMMEM__NAME_MAX 64
#define LLMMEM__MAX_NOTES 24
#define LLMMEM__NOTE_MAX 512
#define LLMMEM__PHASES 5
#define LLMMEM__COMPONENTS 14

/* ---- GPUs (gpus.c) -------------------------------------------------------- */

typedef struct llmmem__gpu {
    const char *name;
    uint64_t memory_bytes;          /* what cudaMemGetInfo reports as total */
    uint64_t cuda_context_bytes;    /* context + kernels outside the allocator */
    uint64_t cublas_workspace_bytes; /* per handle/stream, through the allocator */
    double bf16_tflops;             /* dense, for the planner */
    double link_gbps;               /* intra-node bandwidth, GB/s per direction */
    int cc;                         /* compute capability x 10 (90 = sm_90); ROCm: 0 */
    int sms;                        /* streaming multiprocessors (compute units) */
} llmmem__gpu;
const llmmem__gpu *llmmem__gpu_at(int index);
/* The GPU a written name means (llmmem_gpu_find); when it fits several, *first is the
 * first of them and the status LLMMEM_E_INCONSISTENT. */
int llmmem__gpu_find(int *out, int *first, const char *name);

/* ---- small text helpers (text.c) ------------------------------------------ */

/* Parses a real number without the locale ("0.9", "-1.5e3"); -1 if not one. */
int llmmem__parse_f64(double *out, const char *text);
/* Case-sensitive name lookup in a NULL-terminated list; -1 if absent. */
int llmmem__name_index(const char *const *names, const char *name);
/* The name of a NULL-terminated list nearest to `written` (case, '-' and '_' ignored;
 * edit distance with transpositions, or the only name it prefixes), NULL if none is near. */
const char *llmmem__suggest(const char *const *names, const char *written);
/* Edit distance of two names of at most 63 characters (case, '-' and '_' folded); 99 for longer. */
int llmmem__edit_distance(const char *a, const char *b);

/* Joins the strings of the NULL-terminated argument list into dst (cap > 0 bytes, cut
 * and always terminated): snprintf("%s%s...") without the format machinery, for the
 * notes every estimate writes. */
void llmmem__str_join(char *dst, size_t cap, ...) LLMMEM_SENTINEL;
void llmmem__str_vjoin(char *dst, size_t cap, va_list ap);

/* A string with its length known, most often a literal's (LLMMEM__STR): the pieces of
 * a note joined on every estimate, copied without a strlen each. */
typedef struct llmmem__str {
    const char *s;
    size_t n;
} llmmem__str;
#define LLMMEM__STR(lit) {"" lit, sizeof(lit) - 1}         /* an initializer */
#define LLMMEM__STRV(lit) ((llmmem__str)LLMMEM__STR(lit)) /* a value */

/* Joins parts[0..n) into dst (cap > 0 bytes, cut and always terminated). */
void llmmem__str_cat(char *dst, size_t cap, const llmmem__str *parts, int n);

/* snprintf-style output buffer that counts what it would need. */
typedef struct llmmem__buf {
    char *p;
    size_t cap;
    size_t len; /* bytes that would have been written, excluding NUL */
} llmmem__buf;
void llmmem__buf_printf(llmmem__buf *b, const char *fmt, ...) LLMMEM_PRINTF(2, 3);
void llmmem__buf_json_string(llmmem__buf *b, const char *s);
/* Writes a double without the locale (at most 6 decimals). */
void llmmem__buf_f64(llmmem__buf *b, double v);
/* Terminates and reports: LLMMEM_E_BUFFER_TOO_SMALL when it did not fit. */
int llmmem__buf_finish(llmmem__buf *b, size_t *needed);


#endif /* LLMMEM_CORE_CORE_H */
