/* ggml's tensor types: the block each stores its elements in (ggml_type, its
 * name, elements per block, bytes per block). One catalogue, ggml.c. Not
 * installed. */
#ifndef LLMMEM_CORE_GGML_H
#define LLMMEM_CORE_GGML_H

#include "core/core.h"

/* The ggml_type values a GGUF file stores (ggml/include/ggml.h; values are
 * the file format's, gaps are types ggml removed). */
#define LLMMEM__GGML_TYPE_COUNT 43
enum llmmem__ggml_type {
    LLMMEM__GGML_F32 = 0, LLMMEM__GGML_F16 = 1, LLMMEM__GGML_Q4_0 = 2, LLMMEM__GGML_Q4_1 = 3,
    LLMMEM__GGML_Q5_0 = 6, LLMMEM__GGML_Q5_1 = 7, LLMMEM__GGML_Q8_0 = 8, LLMMEM__GGML_Q8_1 = 9,
    LLMMEM__GGML_Q2_K = 10, LLMMEM__GGML_Q3_K = 11, LLMMEM__GGML_Q4_K = 12, LLMMEM__GGML_Q5_K = 13,
    LLMMEM__GGML_Q6_K = 14, LLMMEM__GGML_Q8_K = 15, LLMMEM__GGML_IQ2_XXS = 16,
    LLMMEM__GGML_IQ2_XS = 17, LLMMEM__GGML_IQ3_XXS = 18, LLMMEM__GGML_IQ1_S = 19,
    LLMMEM__GGML_IQ4_NL = 20, LLMMEM__GGML_IQ3_S = 21, LLMMEM__GGML_IQ2_S = 22,
    LLMMEM__GGML_IQ4_XS = 23, LLMMEM__GGML_I8 = 24, LLMMEM__GGML_I16 = 25, LLMMEM__GGML_I32 = 26,
    LLMMEM__GGML_I64 = 27, LLMMEM__GGML_F64 = 28, LLMMEM__GGML_IQ1_M = 29, LLMMEM__GGML_BF16 = 30,
    LLMMEM__GGML_TQ1_0 = 34, LLMMEM__GGML_TQ2_0 = 35, LLMMEM__GGML_MXFP4 = 39,
    LLMMEM__GGML_NVFP4 = 40, LLMMEM__GGML_Q1_0 = 41, LLMMEM__GGML_Q2_0 = 42
};

typedef struct llmmem__ggml_traits {
    const char *name;  /* ggml_type_name: "q4_K" */
    uint32_t block;    /* elements per block (ggml_blck_size) */
    uint32_t bytes;    /* bytes per block (ggml_type_size) */
} llmmem__ggml_traits;

/* The traits of a type, NULL for a value that is no type (removed or unknown). */
const llmmem__ggml_traits *llmmem__ggml_type(uint32_t type);
/* The type named `name` (case-insensitive: "q8_0", "Q4_K", "f16"), -1 if none. */
int llmmem__ggml_type_find(const char *name);
/* Bytes of one row of `n` elements (ggml_row_size): n / block x bytes; the
 * caller has checked that block divides n. */
static inline uint64_t llmmem__ggml_row_bytes(llmmem__ovf *o, const llmmem__ggml_traits *t, uint64_t n)
{
    return llmmem__mul(o, n / t->block, t->bytes);
}

#endif /* LLMMEM_CORE_GGML_H */
