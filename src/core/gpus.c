/* GPU table: memory as cudaMemGetInfo()/torch.cuda.get_device_properties()
 * .total_memory reports it, the memory held outside the PyTorch allocator (CUDA
 * context, kernels, cuBLAS handles), the cuBLAS workspace that goes through the
 * allocator, and dense bf16 rate and link bandwidth for the planner. */
#include "core/core.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

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
    {"H100-80GB", UINT64_C(85031714816), CTX_HOPPER, WS_SM90, 989.0, 450.0},
    {"H100-PCIe", UINT64_C(85031714816), CTX_HOPPER, WS_SM90, 756.0, 64.0},
    {"H100-NVL-94GB", UINT64_C(99983360000), CTX_HOPPER, WS_SM90, 835.0, 300.0},
    {"H200", UINT64_C(150121545728), CTX_HOPPER, WS_SM90, 989.0, 450.0},
    {"GH200-96GB", UINT64_C(102005473280), CTX_HOPPER, WS_SM90, 989.0, 450.0},
    {"B200", UINT64_C(192265846784), CTX_HOPPER, WS_SM90, 2250.0, 900.0},
    {"A100-40GB", UINT64_C(42505207808), CTX_OTHER, WS_OLD, 312.0, 300.0},
    {"A100-80GB", UINT64_C(85198045184), CTX_OTHER, WS_OLD, 312.0, 300.0},
    {"A10G", UINT64_C(23836098560), CTX_OTHER, WS_OLD, 70.0, 32.0},
    {"A6000", UINT64_C(51041271808), CTX_OTHER, WS_OLD, 155.0, 56.0},
    {"L4", UINT64_C(23580639232), CTX_OTHER, WS_OLD, 121.0, 32.0},
    {"L40S", UINT64_C(48305799168), CTX_OTHER, WS_OLD, 362.0, 32.0},
    {"V100-16GB", UINT64_C(16945512448), CTX_OTHER, WS_OLD, 125.0, 150.0},
    {"V100-32GB", UINT64_C(34089730048), CTX_OTHER, WS_OLD, 125.0, 150.0},
    {"T4", UINT64_C(15843721216), CTX_OTHER, WS_OLD, 65.0, 16.0},
    {"RTX-3090", UINT64_C(25447170048), CTX_OTHER, WS_OLD, 71.0, 32.0},
    {"RTX-4090", UINT64_C(25757220864), CTX_OTHER, WS_OLD, 165.0, 32.0},
    {"RTX-5090", UINT64_C(34190917632), CTX_HOPPER, WS_SM90, 209.0, 64.0},
    {"MI300X", UINT64_C(206158430208), CTX_HOPPER, WS_SM90, 1307.0, 64.0},
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

/* ---- GPUs by a written name ------------------------------------------------------------- */

/* Names the driver and PyTorch print (nvidia-smi, torch.cuda.get_device_name) and common
 * shorthands, in the folded form of gpu_key, with the table entry they mean. */
static const struct {
    const char *key, *name;
} gpu_aliases[] = {
    {"h100sxm", "H100-80GB"},     {"h100sxm5", "H100-80GB"},    {"h100sxm580gb", "H100-80GB"},
    {"h10080gbhbm3", "H100-80GB"}, {"h100hbm3", "H100-80GB"},   {"h100sxm80gb", "H100-80GB"},
    {"h100pcie80gb", "H100-PCIe"}, {"h10080gbpcie", "H100-PCIe"}, {"h100nvl", "H100-NVL-94GB"},
    {"h200sxm", "H200"},          {"h200141gb", "H200"},        {"h200sxm141gb", "H200"},
    {"a100sxm440gb", "A100-40GB"}, {"a100pcie40gb", "A100-40GB"}, {"a10040gbpcie", "A100-40GB"},
    {"a100sxm480gb", "A100-80GB"}, {"a100pcie80gb", "A100-80GB"}, {"a10080gbpcie", "A100-80GB"},
    {"rtxa6000", "A6000"},        {"v100sxm216gb", "V100-16GB"}, {"v100pcie16gb", "V100-16GB"},
    {"v100sxm232gb", "V100-32GB"}, {"v100pcie32gb", "V100-32GB"}, {"3090", "RTX-3090"},
    {"4090", "RTX-4090"},         {"5090", "RTX-5090"},
};

/* Words before the model name that say nothing about the GPU ("NVIDIA GeForce RTX 4090",
 * "Tesla T4", "AMD Instinct MI300X"), folded. */
static const char *const gpu_vendor_words[] = {"nvidia", "tesla", "geforce", "amd", "instinct"};

/* The folded form of a GPU name: lower case, letters and digits only; "80G" ends as
 * "80gb". Up to `cap` - 1 characters (longer names do not match). */
static void gpu_key(char *out, size_t cap, const char *name, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && name[i] && o + 1 < cap; i++) {
        char c = name[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            out[o++] = c;
    }
    out[o] = '\0';
    if (o >= 3 && out[o - 1] == 'g' && out[o - 2] >= '0' && out[o - 2] <= '9' && o + 1 < cap) {
        out[o++] = 'b';
        out[o] = '\0';
    }
}

/* The written name without the vendor words in front of it. */
static const char *gpu_skip_vendor(const char *name)
{
    for (bool again = true; again;) {
        again = false;
        while (*name == ' ' || *name == '-' || *name == '_')
            name++;
        for (size_t i = 0; i < LLMMEM_ARRAY_LEN(gpu_vendor_words); i++) {
            size_t n = strlen(gpu_vendor_words[i]);
            if (strncasecmp(name, gpu_vendor_words[i], n) == 0 &&
                (name[n] == ' ' || name[n] == '-' || name[n] == '_')) {
                name += n;
                again = true;
            }
        }
    }
    return name;
}

static int gpu_index_of(const char *name)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(gpus); i++)
        if (strcmp(gpus[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Whether `key` is the folded form of a leading part of the table name up to one of its
 * '-' ("A100" of "A100-40GB", "H100-NVL" of "H100-NVL-94GB"). */
static bool gpu_family_is(const char *name, const char *key)
{
    for (size_t i = 1; name[i]; i++) {
        if (name[i] != '-')
            continue;
        char k[32];
        gpu_key(k, sizeof k, name, i);
        if (strcmp(k, key) == 0)
            return true;
    }
    return false;
}

/* Appends ", s" (or s first) to a list of `cap` bytes; what does not fit is cut. */
static void list_add(char *list, size_t cap, const char *s)
{
    size_t used = strlen(list);
    if (used + 1 < cap)
        snprintf(list + used, cap - used, "%s%s", used ? ", " : "", s);
}

int llmmem__gpu_find(int *out, int *first, const char *name)
{
    const int n = (int)LLMMEM_ARRAY_LEN(gpus);
    const char *written = gpu_skip_vendor(name);
    char key[48], k[48];
    gpu_key(key, sizeof key, written, strlen(written));
    *first = -1;
    for (int i = 0; i < n && key[0]; i++) {
        gpu_key(k, sizeof k, gpus[i].name, strlen(gpus[i].name));
        if (strcmp(k, key) == 0) {
            *out = i;
            return LLMMEM_OK;
        }
    }
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(gpu_aliases) && key[0]; i++)
        if (strcmp(gpu_aliases[i].key, key) == 0) {
            *out = gpu_index_of(gpu_aliases[i].name);
            return LLMMEM_OK;
        }
    char list[320] = "";
    int count = 0;
    for (int i = 0; i < n && key[0]; i++) {
        if (!gpu_family_is(gpus[i].name, key))
            continue;
        if (*first < 0)
            *first = i;
        count++;
        list_add(list, sizeof list, gpus[i].name);
    }
    if (count == 1) {
        *out = *first;
        return LLMMEM_OK;
    }
    if (count > 1)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "GPU \"%.60s\" is ambiguous: one of %s",
                             name, list);
    const char *near = llmmem__suggest(llmmem__gpu_names, written);
    list[0] = '\0';
    for (int i = 0; i < n; i++)
        list_add(list, sizeof list, gpus[i].name);
    return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "unknown GPU \"%.60s\"%s%s%s (one of: %s)", name,
                         near ? " (did you mean " : "", near ? near : "", near ? "?)" : "", list);
}

int llmmem_gpu_find(int *out, const char *name)
{
    if (!out || !name)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_gpu_find: NULL argument");
    int first, index;
    int rc = llmmem__gpu_find(&index, &first, name);
    if (rc == 0)
        *out = index;
    return rc;
}
