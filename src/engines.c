/* Distributed engines not modelled yet: they answer LLMMEM_E_UNSUPPORTED
 * rather than a made-up number (the engines issue replaces this file). */
#include "internal.h"

static int not_yet(const llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg,
                   const char *fn, const char *engine)
{
    int rc = llmmem__check_args(out, model, cfg, fn);
    if (rc)
        return rc;
    return llmmem__error(LLMMEM_E_UNSUPPORTED, "engine \"%s\" is not modelled yet", engine);
}

int llmmem_estimate_ddp(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    return not_yet(out, model, cfg, "llmmem_estimate_ddp", "ddp");
}
int llmmem_estimate_zero(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    return not_yet(out, model, cfg, "llmmem_estimate_zero", "zero");
}
int llmmem_estimate_fsdp(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    return not_yet(out, model, cfg, "llmmem_estimate_fsdp", "fsdp");
}
int llmmem_estimate_megatron(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    return not_yet(out, model, cfg, "llmmem_estimate_megatron", "megatron");
}
int llmmem_estimate_megatron_deepspeed(llmmem_result *out, const llmmem_model *model,
                                       const llmmem_config *cfg)
{
    return not_yet(out, model, cfg, "llmmem_estimate_megatron_deepspeed", "megatron_deepspeed");
}
