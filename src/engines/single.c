/* The single-GPU training engine: the training model of train/train.c as it
 * is, with no distributed wrapper. Its precision is PyTorch's own
 * (torch.optim steps the parameters themselves: no masters; HF Trainer's
 * bf16=True on an fp32 model is torch.autocast, accelerate native_amp; a bf16
 * model trains in bf16). The allocator replay (replay/reserved.c) draws its
 * run. */
#include "engines/engines.h"

const llmmem__engine llmmem__engine_single = {
    .name = "single",
    .fn = "llmmem_estimate_single",
    .gate = LLMMEM_P_ENGINE,
    .value = LLMMEM_ENGINE_SINGLE,
    .flags = LLMMEM__CAP_ONE_GPU | LLMMEM__CAP_REPLAY | LLMMEM__CAP_OPTIM_IN_BWD | LLMMEM__CAP_TORCH_RECOMPUTE,
    .precision_source = LLMMEM__STR(LLMMEM__PRECISION_TORCH),
    .no_split = "the single engine runs on one GPU; ddp, zero, fsdp or megatron split the memory",
};
