/* Bytes per element of the dtype enum values. */
#include "core/core.h"

int llmmem__dtype_bytes(int dtype)
{
    switch (dtype) {
    case LLMMEM__DT_FP32: return 4;
    case LLMMEM__DT_FP16:
    case LLMMEM__DT_BF16: return 2;
    case LLMMEM__DT_FP8: return 1;
    default: return 0;
    }
}
