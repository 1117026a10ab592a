/* GPU table: memory as cudaMemGetInfo()/torch.cuda.get_device_properties()
 * .total_memory reports it, the memory held outside the PyTorch allocator (CUDA
 * context, kernels, cuBLAS handles), the cuBLAS workspace that goes through the
 * allocator, and dense bf16 rate and link bandwidth for the planner. */
#include "core/core.h"

#define MiB (UINT64_C(1) << 20)

/* cuBLAS workspace per (handle, stream), pytorch/pytorch
 * aten/src/ATen/cuda/CublasHandlePool.cpp getChosenWorkspaceSize: 4096*8 KiB
 * = 32 MiB on compute capability >= 9.0, else 4096*1024*2 + 16*1024*8. */
#define WS_SM90 (UINT64_C(32) * MiB)
#define WS_OLD (UINT64_C(4096) * 1024 * 2 + UINT64_C(16) * 1024 * 8)

/* Context: memory outside the PyTorch allocator once the first matmul has
 * loaded the kernels and created the cuBLAS handle. On an H200 (torch 2.11 +
 * CUDA 13, lazy module loading) 552,402,944 B are in use before the first
 * allocation and 678,232,064 B after the first matmul, of which the allocator
 * has reserved 54,525,952 B (its segments for the two operands and the 32 MiB
 * workspace, counted in peak_reserved): 623,706,112 B outside it, the same in
 * six fresh processes (test/data/probe/h200-probe.jsonl cuda_context_bytes;
 * shared/groundtruth/README.md gives the 647 MiB total with the reserve).
 * Older GPUs/CUDA versions load less: ~500 MiB is the PyTorch maintainers'
 * figure for CUDA >= 11.7 with lazy loading (pytorch/pytorch#107667). */
#define CTX_HOPPER UINT64_C(623706112)
#define CTX_OTHER (UINT64_C(500) * MiB)

static const llmmem__gpu gpus[] = {
    /* name, total bytes, context, workspace, bf16 dense TFLOP/s, link GB/s per direction */
    {"H100-80GB", UINT64_C(85031714816), CTX_HOPPER, WS_SM90, 989.0, 450.0, 90, 132},
    {"H100-PCIe", UINT64_C(85031714816), CTX_HOPPER, WS_SM90, 756.0, 64.0, 90, 114},
    {"H100-NVL-94GB", UINT64_C(99983360000), CTX_HOPPER, WS_SM90, 835.0, 300.0, 90, 132},
    {"H200", UINT64_C(150121545728), CTX_HOPPER, WS_SM90, 989.0, 450.0, 90, 132},
    {"GH200-96GB", UINT64_C(102005473280), CTX_HOPPER, WS_SM90, 989.0, 450.0, 90, 132},
    {"B200", UINT64_C(192265846784), CTX_HOPPER, WS_SM90, 2250.0, 900.0, 100, 148},
    {"A100-40GB", UINT64_C(42505207808), CTX_OTHER, WS_OLD, 312.0, 300.0, 80, 108},
    {"A100-80GB", UINT64_C(85198045184), CTX_OTHER, WS_OLD, 312.0, 300.0, 80, 108},
    {"A10G", UINT64_C(23836098560), CTX_OTHER, WS_OLD, 70.0, 32.0, 86, 80},
    {"A6000", UINT64_C(51041271808), CTX_OTHER, WS_OLD, 155.0, 56.0, 86, 84},
    {"L4", UINT64_C(23580639232), CTX_OTHER, WS_OLD, 121.0, 32.0, 89, 58},
    {"L40S", UINT64_C(48305799168), CTX_OTHER, WS_OLD, 362.0, 32.0, 89, 142},
    {"V100-16GB", UINT64_C(16945512448), CTX_OTHER, WS_OLD, 125.0, 150.0, 70, 80},
    {"V100-32GB", UINT64_C(34089730048), CTX_OTHER, WS_OLD, 125.0, 150.0, 70, 80},
    {"T4", UINT64_C(15843721216), CTX_OTHER, WS_OLD, 65.0, 16.0, 75, 40},
    {"RTX-3090", UINT64_C(25447170048), CTX_OTHER, WS_OLD, 71.0, 32.0, 86, 82},
    {"RTX-4090", UINT64_C(25757220864), CTX_OTHER, WS_OLD, 165.0, 32.0, 89, 128},
    {"RTX-5090", UINT64_C(34190917632), CTX_HOPPER, WS_SM90, 209.0, 64.0, 120, 170},
    {"MI300X", UINT64_C(206158430208), CTX_HOPPER, WS_SM90, 1307.0, 64.0, 0, 304},
};

/* Enum value names of LLMMEM_P_GPU (same order as the table). */
const char *const llmmem__gpu_names[] = {
    "H100-80GB", "H100-PCIe", "H100-NVL-94GB", "H200", "GH200-96GB", "B200", "A100-40GB",
    "A100-80GB", "A10G", "A6000", "L4", "L40S", "V100-16GB", "V100-32GB", "T4", "RTX-3090",
    "RTX-4090", "RTX-5090", "MI300X", NULL};

_Static_assert(LLMMEM_ARRAY_LEN(gpus) + 1 == LLMMEM_ARRAY_LEN(llmmem__gpu_names),
               "GPU names and table differ");

const llmmem__gpu *llmmem__gpu_at(int index)
{
    if (index < 0 || (size_t)index >= LLMMEM_ARRAY_LEN(gpus))
        return NULL;
    return &gpus[index];
}

int llmmem_gpu_count(void) { return (int)LLMMEM_ARRAY_LEN(gpus); }

const char *llmmem_gpu_name(int index)
{
    const llmmem__gpu *g = llmmem__gpu_at(index);
    return g ? g->name : NULL;
}

int llmmem_gpu_memory_bytes(uint64_t *out, int index)
{
    const llmmem__gpu *g = llmmem__gpu_at(index);
    if (!out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_gpu_memory_bytes: out is NULL");
    if (!g)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "GPU index %d: expected 0..%d", index,
                             llmmem_gpu_count() - 1);
    *out = g->memory_bytes;
    return LLMMEM_OK;
}
