/* LoRA target names against the model's tensors (the registry names every
 * tensor as the modeling code names its module, src/model/registry.h). */
#include "model/model.h"

#include <string.h>

/* Whether a LoRA target list selects a tensor, as peft resolves
 * target_modules (peft/tuners/tuners_utils.py check_target_module_exists): an
 * entry matches a module whose name equals it or ends with "." + entry.
 * "all-linear" is peft's: every Linear (and Conv1D) but the output head. */
bool llmmem__lora_targets(const char *targets, const llmmem__tensor *x)
{
    if (!x->linear || x->kind == LLMMEM__T_BIAS)
        return false;
    if (!strcmp(targets, "all-linear") || !strcmp(targets, "all_linear"))
        return x->kind != LLMMEM__T_HEAD;
    const size_t len = x->module_len > 0 ? (size_t)x->module_len : strlen(x->name);
    const char *p = targets;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && *p == ' ') {
            p++;
            n--;
        }
        while (n && p[n - 1] == ' ')
            n--;
        if (n && n <= len && !strncmp(p, x->name + len - n, n) && (n == len || x->name[len - n - 1] == '.'))
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}
