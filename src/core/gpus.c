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

/* Capacities are CUDA's total (cudaMemGetInfo, which torch.cuda.mem_get_info,
 * torch's OOM message "total capacity" and vLLM's "Free memory on device
 * (free/total GiB)" print; ROCm: hipMemGetInfo). It is smaller than
 * nvidia-smi's total by what the driver keeps, and moves by ~0.1 GiB with the
 * driver. Readings printed as GiB with two decimals are GiB x 2^30, good to
 * +-5.4 MB. docs/research/gpu-capacities.md has the sources; an entry without
 * a reading is DERIVED by the rule its comment states:
 *  - rule S: a sibling with the same memory configuration has the reading;
 *  - rule R: marketed capacity (GiB) x the ratio CUDA total / marketed of the
 *    nearest sourced card of the same generation;
 *  - rule N: nvidia-smi's total (sourced) minus the H200's reserve
 *    (143771 MiB - 139.81 GiB = 605.6 MiB);
 *  - rule A: ROCm: HBM (GiB) minus the 16 MiB the MI300X reading keeps. */
static const llmmem__gpu gpus[] = {
    /* name, total bytes, context, workspace, bf16 dense TFLOP/s, link GB/s per direction,
     * compute capability x 10, SMs */
    /* 79.19 GiB: vLLM 0.10.2 "Free memory on device (78.66/79.19 GiB)" (anchor a003);
     * PyTorch OOM "total capacity of 79.19 GiB" (docs/research/gpu-capacities.md) */
    {"H100-80GB", UINT64_C(85031714816), CTX_HOPPER, WS_SM90, 989.0, 450.0, 90, 132},
    /* DERIVED (rule S): no reading; the H100 SXM's (same 80 GB, 81559 MiB) */
    {"H100-PCIe", UINT64_C(85031714816), CTX_HOPPER, WS_SM90, 756.0, 64.0, 90, 114},
    /* DERIVED (rule R): 94 x 79.19/80 = 93.05 GiB */
    {"H100-NVL-94GB", UINT64_C(99909797675), CTX_HOPPER, WS_SM90, 835.0, 300.0, 90, 132},
    /* 139.81 GiB: vLLM 0.10.2 "Free memory on device (139.21/139.81 GiB)" (anchor a002) */
    {"H200", UINT64_C(150121545728), CTX_HOPPER, WS_SM90, 989.0, 450.0, 90, 132},
    /* DERIVED (rule R): 96 x 79.19/80 = 95.03 GiB (vLLM >= 0.33 sizes UMA mode from RAM) */
    {"GH200-96GB", UINT64_C(102035538051), CTX_HOPPER, WS_SM90, 989.0, 450.0, 90, 132},
    /* DERIVED (rule N): nvidia-smi 183359 MiB ("8x NVIDIA B200 ... 183359MiB each",
     * docs/research/gpu-capacities.md) - 605.6 MiB = 178.47 GiB */
    {"B200", UINT64_C(191630871101), CTX_HOPPER, WS_SM90, 2250.0, 900.0, 100, 148},
    /* 39.49 GiB: vLLM 0.10.2 "Free memory on device (39.0/39.49 GiB)" (vllm#25970,
     * anchor a006) and NERSC Perlmutter A100-SXM4-40GB; 39.39-39.56 also seen */
    {"A100-40GB", UINT64_C(42402064630), CTX_OTHER, WS_OLD, 312.0, 300.0, 80, 108},
    /* 79.25 GiB: PyTorch OOM "total capacity of 79.25 GiB" on an A100 (HiDream-ai/VAREdit#6) */
    {"A100-80GB", UINT64_C(85094039552), CTX_OTHER, WS_OLD, 312.0, 300.0, 80, 108},
    /* DERIVED (rule S): the A10's 22.18 GiB (OpenBMB/MiniCPM-V#640); same 23028 MiB board */
    {"A10G", UINT64_C(23815593656), CTX_OTHER, WS_OLD, 70.0, 32.0, 86, 80},
    /* no reading: 47.54 GiB kept (ECC off, as the workstation card ships) */
    {"A6000", UINT64_C(51041271808), CTX_OTHER, WS_OLD, 155.0, 56.0, 86, 84},
    /* 22.03 GiB: vLLM 0.29 "Free memory on device (21.84/22.03 GiB)" on an L4 (anchor a026) */
    {"L4", UINT64_C(23654532383), CTX_OTHER, WS_OLD, 121.0, 32.0, 89, 58},
    /* 44.42 GiB: vLLM 0.10.2 "Free memory on device (43.93/44.42 GiB)" on 8x L40S
     * (nvidia-smi 46068 MiB; anchor a001) */
    {"L40S", UINT64_C(47695611822), CTX_OTHER, WS_OLD, 362.0, 32.0, 89, 142},
    /* 15.77 GiB: vllm#10637 "total capacity of 15.77 GiB" */
    {"V100-16GB", UINT64_C(16932908564), CTX_OTHER, WS_OLD, 125.0, 150.0, 70, 80},
    /* DERIVED (rule R): 32 x 15.77/16 = 31.54 GiB */
    {"V100-32GB", UINT64_C(33865817129), CTX_OTHER, WS_OLD, 125.0, 150.0, 70, 80},
    /* 14.74 GiB: PyTorch OOM on Colab "Tesla T4" (docs/research/gpu-capacities.md) */
    {"T4", UINT64_C(15826954486), CTX_OTHER, WS_OLD, 65.0, 16.0, 75, 40},
    /* 23.56 GiB: vLLM "Free memory on device (22.93/23.56 GiB)" on 8x RTX 3090
     * (wtdcode/vllm-backport#34, 2026); 23.58 in a 2024 V0 log (vllm#10517) */
    {"RTX-3090", UINT64_C(25297357373), CTX_OTHER, WS_OLD, 71.0, 32.0, 86, 82},
    /* 23.55 GiB: the vLLM logs of issue 15; PyTorch OOM messages on older drivers
     * read 23.61-23.68 (pinokiofactory/flux-webui#11, 3DTopia/Phidias-Diffusion#8) */
    {"RTX-4090", UINT64_C(25286619955), CTX_OTHER, WS_OLD, 165.0, 32.0, 89, 128},
    /* 31.84 GiB: vLLM "Free memory on device cuda:0 (30.2/31.84 GiB)" on an RTX 5090 */
    {"RTX-5090", UINT64_C(34187939676), CTX_HOPPER, WS_SM90, 209.0, 64.0, 120, 170},
    /* 206141652992 B (191.98 GiB): rocm-smi "VRAM Total Memory (B): 206141652992"
     * (ROCm/legacy-rocm-build#4750); PyTorch "total capacity of 191.98 GiB" */
    {"MI300X", UINT64_C(206141652992), CTX_HOPPER, WS_SM90, 1307.0, 64.0, 0, 304},
    /* ---- added for issue 15 (appended: the enum values above keep their numbers) ---- */
    /* 22.18 GiB: PyTorch OOM on an A10 (OpenBMB/MiniCPM-V#640) */
    {"A10", UINT64_C(23815593656), CTX_OTHER, WS_OLD, 125.0, 32.0, 86, 72},
    /* DERIVED (rule S): the L40S's 44.42 GiB (48 GB GDDR6 with ECC, 46068 MiB) */
    {"A40", UINT64_C(47695611822), CTX_OTHER, WS_OLD, 150.0, 56.0, 86, 84},
    /* DERIVED (rule S): the L40S's 44.42 GiB (same board memory) */
    {"L40", UINT64_C(47695611822), CTX_OTHER, WS_OLD, 181.0, 32.0, 89, 142},
    /* DERIVED (rule S): the L40S's 44.42 GiB (48 GB GDDR6 with ECC) */
    {"L20", UINT64_C(47695611822), CTX_OTHER, WS_OLD, 119.0, 32.0, 89, 92},
    /* 44.43 GiB: PyTorch OOM on an "NVIDIA RTX 6000 Ada Generation" with nvidia-smi
     * 46068 MiB (DINGYANB/MTVCrafter#21) */
    {"RTX-6000-Ada", UINT64_C(47706349240), CTX_OTHER, WS_OLD, 364.0, 32.0, 89, 142},
    /* DERIVED (rule R): 16 x 23.55/24 = 15.70 GiB */
    {"RTX-4080", UINT64_C(16857746637), CTX_OTHER, WS_OLD, 97.0, 32.0, 89, 76},
    /* DERIVED (rule R): 12 x 23.55/24 = 11.78 GiB */
    {"RTX-4070", UINT64_C(12643309978), CTX_OTHER, WS_OLD, 58.0, 32.0, 89, 46},
    /* DERIVED (rule R): 8 x 23.55/24 = 7.85 GiB */
    {"RTX-4060", UINT64_C(8428873318), CTX_OTHER, WS_OLD, 30.0, 16.0, 89, 24},
    /* 95.01 GiB: vLLM 0.27 "Free memory on device (94.05/95.01 GiB)" on an RTX PRO 6000
     * Blackwell (anchor a012); another 96 GB card prints 94.97 */
    {"RTX-PRO-6000", UINT64_C(102016210698), CTX_HOPPER, WS_SM90, 500.0, 64.0, 120, 188},
    /* DERIVED (rule R): 96 x 79.19/80 = 95.03 GiB (Hopper, 96 GB HBM3) */
    {"H20", UINT64_C(102035538051), CTX_HOPPER, WS_SM90, 148.0, 450.0, 90, 78},
    /* DERIVED (rule R): 288 x 178.47/180 (the B200 derived total over its 180 GB) = 285.6 GiB */
    {"B300", UINT64_C(306609393762), CTX_HOPPER, WS_SM90, 2250.0, 900.0, 103, 160},
    /* DERIVED (rule R): 186 x 178.47/180 = 184.42 GiB (GB200's 186 GB HBM3e per GPU) */
    {"GB200", UINT64_C(198018566804), CTX_HOPPER, WS_SM90, 2500.0, 900.0, 100, 148},
    /* 121.69 GiB: "CUDA free caps at ~102/121.69 GiB" and "1x DGX Spark GB10 128GB
     * (121.69 GiB unified)" (MiaAI-Lab issues #47, #30); unified memory */
    {"GB10", UINT64_C(130663642563), CTX_HOPPER, WS_SM90, 62.0, 32.0, 121, 48},
    /* DERIVED (rule A): one GCD, 64 GiB HBM2e - 16 MiB */
    {"MI250X", UINT64_C(68702699520), CTX_HOPPER, WS_SM90, 96.0, 50.0, 0, 110},
    /* DERIVED (rule A): 256 GiB HBM3e - 16 MiB */
    {"MI325X", UINT64_C(274861129728), CTX_HOPPER, WS_SM90, 1307.0, 64.0, 0, 304},
};

/* Enum value names of LLMMEM_P_GPU (same order as the table). */
const char *const llmmem__gpu_names[] = {
    "H100-80GB", "H100-PCIe", "H100-NVL-94GB", "H200", "GH200-96GB", "B200", "A100-40GB",
    "A100-80GB", "A10G", "A6000", "L4", "L40S", "V100-16GB", "V100-32GB", "T4", "RTX-3090",
    "RTX-4090", "RTX-5090", "MI300X", "A10", "A40", "L40", "L20", "RTX-6000-Ada", "RTX-4080",
    "RTX-4070", "RTX-4060", "RTX-PRO-6000", "H20", "B300", "GB200", "GB10", "MI250X", "MI325X",
    NULL};

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
    {"4090", "RTX-4090"},         {"5090", "RTX-5090"},         {"rtx6000adageneration", "RTX-6000-Ada"},
    {"4080", "RTX-4080"},         {"4070", "RTX-4070"},         {"4060", "RTX-4060"},
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
