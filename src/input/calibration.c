/* Calibration profiles: a user fits scale factors for named result
 * components (and the allocator headroom, the CUDA context) from their own
 * probe records (examples/python/llmmem_probe.py) and applies them here. The
 * default is the identity; docs/calibration.md states the limits. */
#include "input/input.h"

#include <math.h>
#include <string.h>

/* "components": {"<component name>": factor, ...} */
static int read_components(struct llmmem_config *c, const llmmem__json *doc, const llmmem__jnode *n)
{
    if (llmmem__json_type(n) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(doc, n, LLMMEM_E_SCHEMA, "components", "expected an object");
    for (const llmmem__jnode *cn = llmmem__json_first(n); cn; cn = llmmem__json_next(cn)) {
        const char *name = llmmem__json_key(cn);
        int comp = -1;
        for (int k = 0; k < LLMMEM__COMPONENTS; k++)
            if (!strcmp(llmmem_component_name(k), name))
                comp = k;
        if (comp < 0)
            return llmmem__json_error_at(doc, cn, LLMMEM_E_UNKNOWN_PARAM, "components",
                                         "unknown component \"%.60s\" (see llmmem_component_name)", name);
        double v = 1.0;
        int rc = llmmem__json_read_f64(&v, doc, n, name, name, 0.0, 100.0, true);
        if (rc)
            return rc;
        c->calib_component[comp] = v;
    }
    return 0;
}

static int read_member(struct llmmem_config *c, const llmmem__json *doc, const llmmem__jnode *root,
                       const llmmem__jnode *n)
{
    const char *key = llmmem__json_key(n);
    if (!strcmp(key, "components"))
        return read_components(c, doc, n);
    if (!strcmp(key, "reserved_headroom"))
        return llmmem__json_read_f64(&c->calib_reserved, doc, root, key, key, 0.0, 100.0, true);
    if (!strcmp(key, "cuda_context_bytes"))
        return llmmem__json_read_i64(&c->calib_context_bytes, doc, root, key, key, 0, INT64_C(1) << 40, true);
    if (!strcmp(key, "fragmentation_gib") || !strcmp(key, "overhead_gib")) {
        /* flat GiB (2^30 bytes), as the seed tools' settings take them, to 1 TiB */
        double gib = 0.0;
        int rc = llmmem__json_read_f64(&gib, doc, root, key, key, 0.0, 1024.0, true);
        if (rc)
            return rc;
        uint64_t bytes = (uint64_t)llround(gib * 1073741824.0);
        if (key[0] == 'f')
            c->calib_fragmentation_bytes = bytes;
        else
            c->calib_overhead_bytes = bytes;
        return 0;
    }
    if (!strcmp(key, "safety_margin"))
        return llmmem__json_read_f64(&c->calib_safety_margin, doc, root, key, key, 0.0, 0.5, true);
    if (!strcmp(key, "description") || !strcmp(key, "records") || !strcmp(key, "fitted_from"))
        return 0; /* free-form provenance */
    return llmmem__json_error_at(doc, n, LLMMEM_E_UNKNOWN_PARAM, key,
                                 "unknown key (components, reserved_headroom, cuda_context_bytes, "
                                 "fragmentation_gib, overhead_gib, safety_margin, description, records, "
                                 "fitted_from)");
}

/* The whole profile replaces any earlier one (all or nothing: the caller's
 * configuration is a copy until it succeeds, llmmem__input_apply_copy). */
static int apply(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg, const void *unused)
{
    static const char *const keys[] = {"components",   "reserved_headroom", "cuda_context_bytes",
                                       "fragmentation_gib", "overhead_gib", "safety_margin", NULL};
    if (llmmem__json_type(root) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "calibration", "expected an object");
    llmmem_config_clear_calibration(cfg);
    int rc;
    for (const llmmem__jnode *n = llmmem__json_first(root); n; n = llmmem__json_next(n))
        if ((rc = read_member(cfg, doc, root, n)))
            return rc;
    /* only provenance keys, or {}: a profile that changes nothing is a mistake */
    if ((rc = llmmem__input_expect_keys(doc, root, keys, "a calibration profile")))
        return rc;
    cfg->calibrated = true;
    return 0;
}

int llmmem_config_apply_calibration_json(llmmem_config *cfg, const char *json, size_t len)
{
    if (!cfg || !json)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_apply_calibration_json: NULL argument");
    return llmmem__input_apply_copy(cfg, json, len, "calibration", apply, NULL);
}

int llmmem_config_apply_calibration_file(llmmem_config *cfg, const char *path)
{
    return llmmem__input_apply_file(cfg, path, "llmmem_config_apply_calibration_file", apply, NULL);
}
