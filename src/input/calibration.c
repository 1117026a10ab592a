/* Calibration profiles: a user fits scale factors for named result
 * components (and the allocator headroom, the CUDA context) from their own
 * probe records (examples/python/llmmem_probe.py) and applies them here. The
 * default is the identity; docs/calibration.md states the limits. */
#include "input/input.h"

#include <math.h>
#include <string.h>

int llmmem_config_apply_calibration_json(llmmem_config *cfg, const char *json, size_t len)
{
    if (!cfg || !json)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_apply_calibration_json: NULL argument");
    llmmem__json *doc = NULL;
    int rc = llmmem__json_parse(&doc, json, len, "calibration");
    if (rc)
        return rc;
    struct llmmem_config tmp = *cfg; /* all or nothing */
    llmmem_config_clear_calibration(&tmp);
    const llmmem__jnode *root = llmmem__json_root(doc);
    if (llmmem__json_type(root) != LLMMEM__J_OBJECT) {
        rc = llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "calibration", "expected an object");
        goto out;
    }
    for (const llmmem__jnode *n = llmmem__json_first(root); n; n = llmmem__json_next(n)) {
        const char *key = llmmem__json_key(n);
        if (!strcmp(key, "components")) {
            if (llmmem__json_type(n) != LLMMEM__J_OBJECT) {
                rc = llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, "components", "expected an object");
                goto out;
            }
            for (const llmmem__jnode *cn = llmmem__json_first(n); cn; cn = llmmem__json_next(cn)) {
                const char *name = llmmem__json_key(cn);
                int comp = -1;
                for (int k = 0; k < LLMMEM__COMPONENTS; k++)
                    if (!strcmp(llmmem_component_name(k), name))
                        comp = k;
                if (comp < 0) {
                    rc = llmmem__json_error_at(doc, cn, LLMMEM_E_UNKNOWN_PARAM, "components",
                                               "unknown component \"%.60s\" (see llmmem_component_name)", name);
                    goto out;
                }
                double v = 1.0;
                if ((rc = llmmem__json_read_f64(&v, doc, n, name, name, 0.0, 100.0, true)))
                    goto out;
                tmp.calib_component[comp] = v;
            }
        } else if (!strcmp(key, "reserved_headroom")) {
            if ((rc = llmmem__json_read_f64(&tmp.calib_reserved, doc, root, key, key, 0.0, 100.0, true)))
                goto out;
        } else if (!strcmp(key, "cuda_context_bytes")) {
            if ((rc = llmmem__json_read_i64(&tmp.calib_context_bytes, doc, root, key, key, 0,
                                            INT64_C(1) << 40, true)))
                goto out;
        } else if (!strcmp(key, "description") || !strcmp(key, "records") || !strcmp(key, "fitted_from")) {
            continue; /* free-form provenance */
        } else {
            rc = llmmem__json_error_at(doc, n, LLMMEM_E_UNKNOWN_PARAM, key,
                                       "unknown key (components, reserved_headroom, cuda_context_bytes, "
                                       "description, records, fitted_from)");
            goto out;
        }
    }
    tmp.calibrated = true;
    *cfg = tmp;
out:
    llmmem__json_free(doc);
    return rc;
}
