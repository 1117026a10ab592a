/* ggml's type traits: for every ggml_type a GGUF file may name, its name,
 * the elements in one block and the bytes of the block. Source: ggml/src/ggml.c
 * type_traits[] (blck_size, type_size = sizeof(block_*)) with the block structs
 * of ggml/src/ggml-common.h (ggml 0.25.3, llama.cpp as vendored by
 * llama-cpp-python 0.3.36). The byte counts are the sizes of those structs:
 * e.g. block_q4_K = 2 half scales + 12 bytes of 6-bit scales + 128 bytes of
 * 4-bit quants = 144 bytes per 256 weights. */
#include "core/ggml.h"

#include <strings.h>

static const llmmem__ggml_traits types[LLMMEM__GGML_TYPE_COUNT] = {
    [LLMMEM__GGML_F32] = {"f32", 1, 4},
    [LLMMEM__GGML_F16] = {"f16", 1, 2},
    [LLMMEM__GGML_Q4_0] = {"q4_0", 32, 18},   /* half d + 16 nibbles */
    [LLMMEM__GGML_Q4_1] = {"q4_1", 32, 20},   /* half d, m + 16 nibbles */
    [LLMMEM__GGML_Q5_0] = {"q5_0", 32, 22},   /* half d + 4 bytes of 5th bits + 16 */
    [LLMMEM__GGML_Q5_1] = {"q5_1", 32, 24},
    [LLMMEM__GGML_Q8_0] = {"q8_0", 32, 34},   /* half d + 32 int8 */
    [LLMMEM__GGML_Q8_1] = {"q8_1", 32, 36},   /* half d, s + 32 int8 */
    [LLMMEM__GGML_Q2_K] = {"q2_K", 256, 84},
    [LLMMEM__GGML_Q3_K] = {"q3_K", 256, 110},
    [LLMMEM__GGML_Q4_K] = {"q4_K", 256, 144},
    [LLMMEM__GGML_Q5_K] = {"q5_K", 256, 176},
    [LLMMEM__GGML_Q6_K] = {"q6_K", 256, 210},
    [LLMMEM__GGML_Q8_K] = {"q8_K", 256, 292},  /* float d + 256 int8 + 16 int16 sums */
    [LLMMEM__GGML_IQ2_XXS] = {"iq2_xxs", 256, 66},
    [LLMMEM__GGML_IQ2_XS] = {"iq2_xs", 256, 74},
    [LLMMEM__GGML_IQ3_XXS] = {"iq3_xxs", 256, 98},
    [LLMMEM__GGML_IQ1_S] = {"iq1_s", 256, 50},
    [LLMMEM__GGML_IQ4_NL] = {"iq4_nl", 32, 18},
    [LLMMEM__GGML_IQ3_S] = {"iq3_s", 256, 110},
    [LLMMEM__GGML_IQ2_S] = {"iq2_s", 256, 82},
    [LLMMEM__GGML_IQ4_XS] = {"iq4_xs", 256, 136},
    [LLMMEM__GGML_I8] = {"i8", 1, 1},
    [LLMMEM__GGML_I16] = {"i16", 1, 2},
    [LLMMEM__GGML_I32] = {"i32", 1, 4},
    [LLMMEM__GGML_I64] = {"i64", 1, 8},
    [LLMMEM__GGML_F64] = {"f64", 1, 8},
    [LLMMEM__GGML_IQ1_M] = {"iq1_m", 256, 56},
    [LLMMEM__GGML_BF16] = {"bf16", 1, 2},
    [LLMMEM__GGML_TQ1_0] = {"tq1_0", 256, 54},
    [LLMMEM__GGML_TQ2_0] = {"tq2_0", 256, 66},
    [LLMMEM__GGML_MXFP4] = {"mxfp4", 32, 17},  /* e8m0 scale + 16 bytes of e2m1 */
    [LLMMEM__GGML_NVFP4] = {"nvfp4", 64, 36},  /* 4 e4m3 scales + 32 bytes of e2m1 */
    [LLMMEM__GGML_Q1_0] = {"q1_0", 128, 18},
    [LLMMEM__GGML_Q2_0] = {"q2_0", 64, 18},
};

const llmmem__ggml_traits *llmmem__ggml_type(uint32_t type)
{
    if (type >= LLMMEM__GGML_TYPE_COUNT || !types[type].name)
        return NULL;
    return &types[type];
}

int llmmem__ggml_type_find(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < LLMMEM__GGML_TYPE_COUNT; i++)
        if (types[i].name && strcasecmp(types[i].name, name) == 0)
            return i;
    return -1;
}
