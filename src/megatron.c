#include "internal.h"
int llmmem_estimate_megatron(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = llmmem__check_args(out, model, cfg, "llmmem_estimate_megatron");
    return rc ? rc : llmmem__error(LLMMEM_E_UNSUPPORTED, "megatron not yet");
}
int llmmem_estimate_megatron_deepspeed(llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg)
{
    int rc = llmmem__check_args(out, model, cfg, "llmmem_estimate_megatron_deepspeed");
    return rc ? rc : llmmem__error(LLMMEM_E_UNSUPPORTED, "megatron_deepspeed not yet");
}
void llmmem__megatron_theoretical(double *weights_optim, double *activations,
                                  const struct llmmem_model *m, const struct llmmem_config *c,
                                  const llmmem__layout *l)
{
    (void)m; (void)c; (void)l; *weights_optim = 0; *activations = 0;
}
