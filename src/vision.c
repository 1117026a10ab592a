/* Vision-language accounting: image tokens per sequence and the vision
 * tower's activations. Text-only models (no tower) contribute nothing. */
#include "internal.h"

#include <string.h>

int llmmem__vision_compute(llmmem__vision_bytes *out, const struct llmmem_model *m,
                           const struct llmmem_config *c, uint64_t batch, llmmem__ovf *o)
{
    memset(out, 0, sizeof *out);
    (void)batch;
    (void)o;
    if (m->vision.kind == LLMMEM__V_NONE || (c->images_per_sample == 0 && c->video_frames == 0))
        return LLMMEM_OK;
    return llmmem__error(LLMMEM_E_UNSUPPORTED, "vision workloads for %s are not modelled yet",
                         m->model_type);
}
