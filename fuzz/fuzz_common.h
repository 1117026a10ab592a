/* Shared helpers of the libFuzzer targets fuzz/fuzz_*.c (also built without libFuzzer by
 * fuzz/replay.c). Each target parses its input through one public entry point and, when the
 * parse succeeds, runs the objects through the estimators and serialisers, checking the
 * invariants that hold for every successful estimate. A broken invariant aborts, which the
 * fuzzer reports as a crash. Uses only the public API. */
#ifndef LLMMEM_FUZZ_COMMON_H
#define LLMMEM_FUZZ_COMMON_H

#include "llmmem.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s (last error: %s)\n", __FILE__, __LINE__,  \
                    #cond, llmmem_last_error());                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* A status is 0 or one of the documented negative values; INTERNAL means a bug. */
static inline void fuzz_check_status(int rc)
{
    FUZZ_CHECK(rc == 0 || (rc <= LLMMEM_E_INVALID_ARG && rc >= LLMMEM_E_INCONSISTENT));
    if (rc != 0) {
        const char *e = llmmem_last_error();
        FUZZ_CHECK(e != NULL);
        FUZZ_CHECK(strlen(e) < 4096);
    }
}

/* Whether the expensive checks run for this input (set by fuzz_begin from the input's
 * bytes, so a replay repeats the fuzzer's choice). JSON output costs far more than an
 * estimate, so the sizing and truncation calls run for one input in eight. */
static int fuzz_thorough;

static inline void fuzz_begin(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    fuzz_thorough = (h & 7) == 0;
}

/* snprintf-style serialiser: fills a large buffer and checks the length it reports;
 * thorough: also sizes with cap 0 and fills one byte short (still NUL-terminated). */
static inline void fuzz_check_to_json(int (*fn)(char *, size_t, size_t *, const void *), const void *obj)
{
    static char big[1 << 18];
    size_t need = 0;
    int rc = fn(big, sizeof big, &need, obj);
    FUZZ_CHECK(rc == 0 || (rc == LLMMEM_E_BUFFER_TOO_SMALL && need > sizeof big));
    if (rc != 0)
        return;
    FUZZ_CHECK(need >= 3); /* "{}" and the NUL */
    FUZZ_CHECK(strlen(big) + 1 == need);
    FUZZ_CHECK(big[0] == '{' || big[0] == '[');
    if (!fuzz_thorough)
        return;
    size_t need2 = 0;
    FUZZ_CHECK(fn(NULL, 0, &need2, obj) == LLMMEM_E_BUFFER_TOO_SMALL);
    FUZZ_CHECK(need2 == need);
    char *buf = malloc(need);
    FUZZ_CHECK(buf != NULL);
    FUZZ_CHECK(fn(buf, need - 1, &need2, obj) == LLMMEM_E_BUFFER_TOO_SMALL);
    FUZZ_CHECK(need2 == need);
    FUZZ_CHECK(buf[need - 2] == '\0');
    FUZZ_CHECK(memcmp(buf, big, need - 2) == 0);
    free(buf);
}

/* Every parameter of a and b has the same value (typed getters; text by get_str). */
static inline int fuzz_config_same(const llmmem_config *a, const llmmem_config *b)
{
    for (int i = 0; i < llmmem_param_count(); i++) {
        int p = llmmem_param_at(i);
        int t = llmmem_param_type(p);
        if (t == LLMMEM_TYPE_F64) {
            double x = 0, y = 0;
            FUZZ_CHECK(llmmem_config_get_f64(&x, a, p) == 0 && llmmem_config_get_f64(&y, b, p) == 0);
            if (memcmp(&x, &y, sizeof x) != 0)
                return 0;
        } else if (t == LLMMEM_TYPE_STR) {
            char x[1024], y[1024];
            size_t nx = 0, ny = 0;
            int rx = llmmem_config_get_str(x, sizeof x, &nx, a, p);
            int ry = llmmem_config_get_str(y, sizeof y, &ny, b, p);
            if (rx != ry || nx != ny || (rx == 0 && strcmp(x, y) != 0))
                return 0;
        } else {
            int64_t x = 0, y = 0;
            FUZZ_CHECK(llmmem_config_get_i64(&x, a, p) == 0 && llmmem_config_get_i64(&y, b, p) == 0);
            if (x != y)
                return 0;
        }
    }
    return 1;
}

/* Adapters: the serialisers take typed handles. */
static inline int fuzz_model_json(char *b, size_t c, size_t *n, const void *o)
{
    return llmmem_model_to_json(b, c, n, (const llmmem_model *)o);
}
static inline int fuzz_config_json(char *b, size_t c, size_t *n, const void *o)
{
    return llmmem_config_to_json(b, c, n, (const llmmem_config *)o);
}
static inline int fuzz_result_json(char *b, size_t c, size_t *n, const void *o)
{
    return llmmem_result_to_json(b, c, n, (const llmmem_result *)o);
}

/* Invariants of a successful estimate: reserved >= allocated, total = reserved + context
 * (whatever the engine), headroom = capacity - total, utilisation finite and >= 0, every component of every phase <=
 * the phase, every phase <= the peak, every term and the JSON well formed. */
static inline void fuzz_check_result(const llmmem_result *res)
{
    uint64_t alloc = 0, reserved = 0, total = 0, ctx = 0;
    FUZZ_CHECK(llmmem_result_get_u64(&alloc, res, LLMMEM_R_PEAK_ALLOCATED_BYTES) == 0);
    FUZZ_CHECK(llmmem_result_get_u64(&reserved, res, LLMMEM_R_PEAK_RESERVED_BYTES) == 0);
    FUZZ_CHECK(llmmem_result_get_u64(&total, res, LLMMEM_R_TOTAL_BYTES_PER_GPU) == 0);
    FUZZ_CHECK(llmmem_result_get_u64(&ctx, res, LLMMEM_R_CUDA_CONTEXT_BYTES) == 0);
    FUZZ_CHECK(reserved >= alloc);
    FUZZ_CHECK(total >= reserved);
    FUZZ_CHECK(alloc != UINT64_MAX && total != UINT64_MAX); /* a saturated overflow */
    /* headroom = capacity - total exactly (int64; beyond it the estimate must fail) */
    uint64_t cap = 0;
    int64_t head = 0;
    FUZZ_CHECK(llmmem_result_get_u64(&cap, res, LLMMEM_R_GPU_MEMORY_BYTES) == 0);
    FUZZ_CHECK(llmmem_result_get_i64(&head, res, LLMMEM_R_HEADROOM_BYTES) == 0);
    if (total <= cap)
        FUZZ_CHECK(head >= 0 && (uint64_t)head == cap - total);
    else
        FUZZ_CHECK(head < 0 && (uint64_t)(-(head + 1)) + 1 == total - cap);
    double util = -1;
    FUZZ_CHECK(llmmem_result_get_f64(&util, res, LLMMEM_R_UTILIZATION) == 0);
    FUZZ_CHECK(isfinite(util) && util >= 0);
    for (int k = 0; k < llmmem_result_key_count(); k++) {
        int key = llmmem_result_key_at(k);
        uint64_t u;
        int64_t i;
        double f;
        switch (llmmem_result_key_type(key)) {
        case LLMMEM_TYPE_U64:
            FUZZ_CHECK(llmmem_result_get_u64(&u, res, key) == 0);
            break;
        case LLMMEM_TYPE_F64:
            FUZZ_CHECK(llmmem_result_get_f64(&f, res, key) == 0);
            FUZZ_CHECK(isfinite(f));
            break;
        default:
            FUZZ_CHECK(llmmem_result_get_i64(&i, res, key) == 0);
            break;
        }
    }
    for (int p = 0; p < llmmem_phase_count(); p++) {
        uint64_t phase = 0;
        FUZZ_CHECK(llmmem_result_phase_bytes(&phase, res, p) == 0);
        for (int c = 0; c < llmmem_component_count(); c++) {
            uint64_t b = 0;
            FUZZ_CHECK(llmmem_result_component_bytes(&b, res, p, c) == 0);
            FUZZ_CHECK(b <= phase);
        }
    }
    int terms = llmmem_result_term_count(res);
    FUZZ_CHECK(terms >= 0);
    for (int t = 0; t < terms; t++) {
        const char *name = NULL, *formula = NULL;
        uint64_t b = 0;
        FUZZ_CHECK(llmmem_result_term(&name, &formula, &b, res, t) == 0);
        FUZZ_CHECK(name && formula);
    }
    int notes = llmmem_result_note_count(res);
    for (int n = 0; n < notes; n++)
        FUZZ_CHECK(llmmem_result_note(res, n) != NULL);
    FUZZ_CHECK(llmmem_result_note(res, notes) == NULL);
    fuzz_check_to_json(fuzz_result_json, res);
}

/* Estimates model x cfg as configured; checks a successful result. The replay of the
 * caching allocator (allocator_replay, milliseconds per estimate) runs on one call in 16;
 * the others take the plain estimate. */
static inline void fuzz_exercise(const llmmem_model *model, const llmmem_config *cfg)
{
    static unsigned calls;
    llmmem_result *res = NULL;
    FUZZ_CHECK(llmmem_result_new(&res) == 0);
    llmmem_config *c = NULL;
    FUZZ_CHECK(llmmem_config_clone(&c, cfg) == 0);
    if (calls++ % 16)
        FUZZ_CHECK(llmmem_config_set(c, "allocator_replay", "false") == 0);
    int rc = llmmem_estimate(res, model, c);
    llmmem_config_free(c);
    fuzz_check_status(rc);
    FUZZ_CHECK(rc != LLMMEM_E_NOMEM);
    if (rc == 0)
        fuzz_check_result(res);
    llmmem_result_free(res);
}

static inline void fuzz_check_model(const llmmem_model *model)
{
    for (int k = 0; k < llmmem_model_key_count(); k++) {
        int64_t v = -1;
        FUZZ_CHECK(llmmem_model_get_i64(&v, model, llmmem_model_key_at(k)) == 0);
    }
    int64_t params = -1;
    FUZZ_CHECK(llmmem_model_get_i64(&params, model, LLMMEM_M_PARAMS) == 0);
    FUZZ_CHECK(params >= 0);
    char type[80];
    size_t need = 0;
    FUZZ_CHECK(llmmem_model_type(type, sizeof type, &need, model) == 0 || need > sizeof type);
    int notes = llmmem_model_note_count(model);
    FUZZ_CHECK(notes >= 0);
    for (int n = 0; n < notes; n++)
        FUZZ_CHECK(llmmem_model_note(model, n) != NULL);
    fuzz_check_to_json(fuzz_model_json, model);
}

/* A private NUL-terminated copy (the entry points take a length; the copy keeps ASan
 * precise about reads past the end). */
static inline char *fuzz_dup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    FUZZ_CHECK(s != NULL);
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
