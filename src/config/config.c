/* Configuration handles: typed, bounded, enum-keyed parameters (zstd
 * ZSTD_CCtx_setParameter style). Values are never clamped. */
#include "config/config.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t *i64_field(struct llmmem_config *c, const llmmem__param_info *p)
{
    return (int64_t *)(void *)((char *)c + p->offset);
}
static const int64_t *ci64_field(const struct llmmem_config *c, const llmmem__param_info *p)
{
    return (const int64_t *)(const void *)((const char *)c + p->offset);
}
static double *f64_field(struct llmmem_config *c, const llmmem__param_info *p)
{
    return (double *)(void *)((char *)c + p->offset);
}
static char *str_field(struct llmmem_config *c, const llmmem__param_info *p)
{
    return (char *)c + p->offset;
}

/* A parameter's bit in set_mask: word id / 100 - 1 (its group of hundreds), bit
 * id % 100 (params.c checks every row has one); -1 when it has none. */
static int param_bit(int param)
{
    const int g = param / 100 - 1, b = param % 100;
    return param >= 100 && g < LLMMEM__SET_WORDS && b < 64 ? g * 64 + b : -1;
}

static void mark_set(struct llmmem_config *c, const llmmem__param_info *p)
{
    int i = param_bit(p->id);
    if (i >= 0)
        c->set_mask[i / 64] |= UINT64_C(1) << (i % 64);
}

bool llmmem__config_was_set(const struct llmmem_config *c, int param)
{
    int i = param_bit(param);
    return i >= 0 && (c->set_mask[i / 64] >> (i % 64) & 1);
}

void llmmem__config_set_origin(struct llmmem_config *c, int param, const char *where)
{
    llmmem__config_side *sd = c->side;
    if (!sd) /* a bare struct (no handle) keeps none */
        return;
    int k = 0;
    while (k < sd->origin_count && sd->origins[k].param != param)
        k++;
    if (k == sd->origin_count) {
        if (sd->origin_count == LLMMEM__ORIGINS) { /* keep the latest: drop the oldest */
            memmove(&sd->origins[0], &sd->origins[1], sizeof sd->origins[0] * (LLMMEM__ORIGINS - 1));
            k = LLMMEM__ORIGINS - 1;
        } else {
            sd->origin_count++;
        }
    }
    sd->origins[k].param = param;
    snprintf(sd->origins[k].where, sizeof sd->origins[k].where, " (set at %s)", where);
}

const char *llmmem__config_origin(const struct llmmem_config *c, int param)
{
    for (int k = 0; c->side && k < c->side->origin_count; k++)
        if (c->side->origins[k].param == param)
            return c->side->origins[k].where;
    return "";
}

static void set_defaults(struct llmmem_config *c)
{
    memset(c, 0, sizeof *c);
    llmmem_config_clear_calibration(c);
    /* the table's rows in order (a lookup by id per row made it quadratic) */
    const llmmem__param_info *rows = llmmem__param_info_at(0);
    for (int i = 0, n = llmmem_param_count(); i < n; i++) {
        const llmmem__param_info *p = &rows[i];
        switch (p->type) {
        case LLMMEM_TYPE_F64: *f64_field(c, p) = p->def_f; break;
        case LLMMEM_TYPE_STR: {
            size_t len = strlen(p->def_s); /* the struct is zeroed: the copy is terminated */
            memcpy(str_field(c, p), p->def_s, len < LLMMEM__STR_MAX ? len : LLMMEM__STR_MAX - 1);
            break;
        }
        default: *i64_field(c, p) = p->def_i; break;
        }
    }
}

/* A handle: the struct and its side storage (config.h), empty; NULL when out of memory. */
static struct llmmem_config *handle_new(void)
{
    struct llmmem_config *c = malloc(sizeof *c);
    llmmem__config_side *sd = malloc(sizeof *sd);
    if (!c || !sd) {
        free(c);
        free(sd);
        return NULL;
    }
    sd->note_count = sd->origin_count = 0;
    c->side = sd;
    return c;
}

int llmmem_config_new(llmmem_config **out)
{
    if (!out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_new: out is NULL");
    struct llmmem_config *c = handle_new();
    if (!c)
        return llmmem__error(LLMMEM_E_NOMEM, "llmmem_config_new: out of memory");
    llmmem__config_side *sd = c->side;
    set_defaults(c);
    c->side = sd;
    *out = c;
    return LLMMEM_OK;
}

int llmmem_config_clone(llmmem_config **out, const llmmem_config *cfg)
{
    if (!out || !cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_clone: NULL argument");
    struct llmmem_config *c = handle_new();
    if (!c)
        return llmmem__error(LLMMEM_E_NOMEM, "llmmem_config_clone: out of memory");
    llmmem__config_side *sd = c->side;
    memcpy(c, cfg, sizeof *c);
    c->side = sd;
    if (cfg->side) { /* the parts in use */
        const llmmem__config_side *from = cfg->side;
        sd->note_count = from->note_count;
        sd->origin_count = from->origin_count;
        memcpy(sd->notes, from->notes, (size_t)from->note_count * sizeof sd->notes[0]);
        memcpy(sd->origins, from->origins, (size_t)from->origin_count * sizeof sd->origins[0]);
    }
    *out = c;
    return LLMMEM_OK;
}

void llmmem_config_free(llmmem_config *cfg)
{
    if (cfg)
        free(cfg->side);
    free(cfg);
}

int llmmem_config_reset(llmmem_config *cfg)
{
    if (!cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_reset: cfg is NULL");
    llmmem__config_side *sd = cfg->side;
    set_defaults(cfg);
    cfg->side = sd;
    if (sd)
        sd->note_count = sd->origin_count = 0;
    return LLMMEM_OK;
}

static const llmmem__param_info *lookup(const void *cfg, int param, const char *fn)
{
    if (!cfg) {
        llmmem__error(LLMMEM_E_INVALID_ARG, "%s: cfg is NULL", fn);
        return NULL;
    }
    const llmmem__param_info *p = llmmem__param_find(param);
    if (!p)
        llmmem__error(LLMMEM_E_INVALID_ARG, "%s: unknown parameter %d", fn, param);
    return p;
}

static int64_t hi_of(const llmmem__param_info *p)
{
    if (p->type == LLMMEM_TYPE_ENUM) {
        int64_t n = 0;
        while (p->enum_names[n])
            n++;
        return n - 1;
    }
    return p->hi;
}

static const char *type_word(int type)
{
    switch (type) {
    case LLMMEM_TYPE_I64: return "an integer";
    case LLMMEM_TYPE_F64: return "a real number";
    case LLMMEM_TYPE_BOOL: return "a boolean";
    case LLMMEM_TYPE_ENUM: return "one of its named values";
    case LLMMEM_TYPE_STR: return "text";
    default: return "a value";
    }
}

int llmmem_config_set_i64(llmmem_config *cfg, int param, int64_t value)
{
    const llmmem__param_info *p = lookup(cfg, param, "llmmem_config_set_i64");
    if (!p)
        return LLMMEM_E_INVALID_ARG;
    if (p->type == LLMMEM_TYPE_F64 || p->type == LLMMEM_TYPE_STR)
        return llmmem__error(LLMMEM_E_PARAM_TYPE, "parameter \"%s\" takes %s, not an integer",
                             p->name, type_word(p->type));
    int64_t hi = hi_of(p);
    if (value < p->lo || value > hi)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "parameter \"%s\": %lld is outside [%lld, %lld]",
                             p->name, (long long)value, (long long)p->lo, (long long)hi);
    *i64_field(cfg, p) = value;
    mark_set(cfg, p);
    return LLMMEM_OK;
}

int llmmem_config_set_f64(llmmem_config *cfg, int param, double value)
{
    const llmmem__param_info *p = lookup(cfg, param, "llmmem_config_set_f64");
    if (!p)
        return LLMMEM_E_INVALID_ARG;
    if (p->type != LLMMEM_TYPE_F64)
        return llmmem__error(LLMMEM_E_PARAM_TYPE, "parameter \"%s\" takes %s, not a real number",
                             p->name, type_word(p->type));
    if (!isfinite(value))
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "parameter \"%s\": value is not finite", p->name);
    if (value < p->lo_f || value > p->hi_f)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "parameter \"%s\": %g is outside [%g, %g]",
                             p->name, value, p->lo_f, p->hi_f);
    *f64_field(cfg, p) = value;
    mark_set(cfg, p);
    return LLMMEM_OK;
}

int llmmem_config_set_str(llmmem_config *cfg, int param, const char *value)
{
    const llmmem__param_info *p = lookup(cfg, param, "llmmem_config_set_str");
    if (!p)
        return LLMMEM_E_INVALID_ARG;
    if (!value)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "parameter \"%s\": value is NULL", p->name);
    if (p->type == LLMMEM_TYPE_STR) {
        size_t n = strlen(value);
        if (n >= LLMMEM__STR_MAX)
            return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "parameter \"%s\": text of %zu bytes, at most %d",
                                 p->name, n, LLMMEM__STR_MAX - 1);
        memcpy(str_field(cfg, p), value, n + 1);
        mark_set(cfg, p);
        return LLMMEM_OK;
    }
    if (p->type == LLMMEM_TYPE_ENUM && p->id == LLMMEM_P_GPU) {
        int idx, first;
        int rc = llmmem__gpu_find(&idx, &first, value);
        if (rc)
            return rc;
        *i64_field(cfg, p) = idx;
        return LLMMEM_OK;
    }
    if (p->type == LLMMEM_TYPE_ENUM) {
        int idx = llmmem__name_index(p->enum_names, value);
        if (idx < 0 && strchr(value, '-') && strlen(value) < 64) {
            /* a value written with '-' for '_' (a command line's "sgd-momentum"): the names
             * are lower case with '_', none has a '-' (the GPU table's are read above) */
            char alt[64];
            size_t i = 0;
            for (; value[i]; i++)
                alt[i] = value[i] == '-' ? '_' : value[i];
            alt[i] = '\0';
            idx = llmmem__name_index(p->enum_names, alt);
        }
        if (idx < 0 && p->id == LLMMEM_P_OPTIMIZER) { /* a refused one: the reason, not "unknown" */
#define REFUSED(n, why)                                                                                  \
    if (!strcmp(value, n))                                                                               \
        return llmmem__error(LLMMEM_E_UNSUPPORTED, "parameter \"optimizer\": %s: %s", n, why);
            LLMMEM__OPTIMIZER_REFUSED(REFUSED)
#undef REFUSED
        }
        if (idx < 0) {
            const char *near = llmmem__suggest(p->enum_names, value);
            char list[400];
            size_t n = 0;
            list[0] = '\0';
            for (int i = 0; p->enum_names[i] && n < sizeof list - 1; i++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "",
                                      p->enum_names[i]);
            return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                                 "parameter \"%s\": unknown value \"%.60s\"%s%s%s (one of: %s)",
                                 p->name, value, near ? " (did you mean " : "", near ? near : "",
                                 near ? "?)" : "", list);
        }
        *i64_field(cfg, p) = idx;
        mark_set(cfg, p);
        return LLMMEM_OK;
    }
    return llmmem__error(LLMMEM_E_PARAM_TYPE, "parameter \"%s\" takes %s, not text", p->name,
                         type_word(p->type));
}

/* The bool spellings llmmem_config_set accepts (llmmem_parse_value): 1 true, 0 false,
 * -1 neither. */
static int bool_text(const char *value)
{
    int64_t b;
    if (llmmem_parse_value(&b, value, LLMMEM_VALUE_BOOL) != 0) {
        llmmem_clear_error();
        return -1;
    }
    return (int)b;
}

int llmmem_config_set(llmmem_config *cfg, const char *name, const char *value)
{
    if (!cfg || !name || !value)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_set: NULL argument");
    int id;
    int rc = llmmem_param_from_name(&id, name);
    if (rc)
        return rc;
    const llmmem__param_info *p = llmmem__param_find(id);
    if (llmmem__param_is_tribool(p) && bool_text(value) >= 0)
        return llmmem_config_set_i64(cfg, id, bool_text(value));
    switch (p->type) {
    case LLMMEM_TYPE_STR:
    case LLMMEM_TYPE_ENUM:
        return llmmem_config_set_str(cfg, id, value);
    case LLMMEM_TYPE_BOOL:
    case LLMMEM_TYPE_I64: {
        /* the one reader of numbers as text: whole numbers, k = 1024 for token counts */
        int64_t v;
        int prc = llmmem_parse_value(&v, value, llmmem_param_value_kind(id));
        if (prc != 0) {
            char why[200];
            snprintf(why, sizeof why, "%s", llmmem_last_error());
            return llmmem__error(prc, "parameter \"%s\": %s", p->name, why);
        }
        return llmmem_config_set_i64(cfg, id, v);
    }
    case LLMMEM_TYPE_F64: {
        double v;
        if (llmmem__parse_f64(&v, value) != 0)
            return llmmem__error(LLMMEM_E_PARSE, "parameter \"%s\": expected a number, got \"%.60s\"",
                                 p->name, value);
        return llmmem_config_set_f64(cfg, id, v);
    }
    }
    return llmmem__error(LLMMEM_E_INTERNAL, "parameter \"%s\": bad type", p->name);
}

int llmmem_config_get_i64(int64_t *out, const llmmem_config *cfg, int param)
{
    const llmmem__param_info *p = lookup(cfg, param, "llmmem_config_get_i64");
    if (!p)
        return LLMMEM_E_INVALID_ARG;
    if (!out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_get_i64: out is NULL");
    if (p->type == LLMMEM_TYPE_F64 || p->type == LLMMEM_TYPE_STR)
        return llmmem__error(LLMMEM_E_PARAM_TYPE, "parameter \"%s\" holds %s, not an integer", p->name,
                             type_word(p->type));
    *out = *ci64_field(cfg, p);
    return LLMMEM_OK;
}

int llmmem_config_get_f64(double *out, const llmmem_config *cfg, int param)
{
    const llmmem__param_info *p = lookup(cfg, param, "llmmem_config_get_f64");
    if (!p)
        return LLMMEM_E_INVALID_ARG;
    if (!out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_get_f64: out is NULL");
    if (p->type != LLMMEM_TYPE_F64)
        return llmmem__error(LLMMEM_E_PARAM_TYPE, "parameter \"%s\" holds %s, not a real number",
                             p->name, type_word(p->type));
    *out = *(const double *)(const void *)((const char *)cfg + p->offset);
    return LLMMEM_OK;
}

/* Writes one parameter's value as JSON (strings and enum names quoted). */
static void value_json(llmmem__buf *b, const struct llmmem_config *c, const llmmem__param_info *p,
                       bool quote)
{
    const char *base = (const char *)c + p->offset;
    switch (p->type) {
    case LLMMEM_TYPE_F64:
        llmmem__buf_f64(b, *(const double *)(const void *)base);
        break;
    case LLMMEM_TYPE_STR:
        if (quote)
            llmmem__buf_json_string(b, base);
        else
            llmmem__buf_printf(b, "%s", base);
        break;
    case LLMMEM_TYPE_ENUM: {
        int64_t v = *ci64_field(c, p);
        if (quote && llmmem__param_is_tribool(p) && v <= 1) /* a bool's JSON: true / false */
            llmmem__buf_printf(b, "%s", p->enum_names[v]);
        else if (quote)
            llmmem__buf_json_string(b, p->enum_names[v]);
        else
            llmmem__buf_printf(b, "%s", p->enum_names[v]);
        break;
    }
    case LLMMEM_TYPE_BOOL:
        llmmem__buf_printf(b, "%s", *ci64_field(c, p) ? "true" : "false");
        break;
    default:
        llmmem__buf_printf(b, "%lld", (long long)*ci64_field(c, p));
    }
}

int llmmem_config_get_str(char *buf, size_t cap, size_t *needed, const llmmem_config *cfg, int param)
{
    const llmmem__param_info *p = lookup(cfg, param, "llmmem_config_get_str");
    if (!p)
        return LLMMEM_E_INVALID_ARG;
    if (!buf && cap)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_get_str: buf is NULL");
    llmmem__buf b = {buf, cap, 0};
    value_json(&b, cfg, p, false);
    return llmmem__buf_finish(&b, needed);
}

int llmmem_config_to_json(char *buf, size_t cap, size_t *needed, const llmmem_config *cfg)
{
    if (!cfg || (!buf && cap))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_to_json: NULL argument");
    llmmem__buf b = {buf, cap, 0};
    llmmem__buf_printf(&b, "{");
    for (int i = 0; i < llmmem_param_count(); i++) {
        const llmmem__param_info *p = llmmem__param_find(llmmem_param_at(i));
        llmmem__buf_printf(&b, "%s\"%s\": ", i ? ", " : "", p->name);
        value_json(&b, cfg, p, true);
    }
    llmmem__buf_printf(&b, "}");
    return llmmem__buf_finish(&b, needed);
}

int llmmem_config_clear_calibration(llmmem_config *cfg)
{
    if (!cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_clear_calibration: cfg is NULL");
    cfg->calibrated = false;
    for (int k = 0; k < LLMMEM__COMPONENTS_MAX; k++)
        cfg->calib_component[k] = 1.0;
    cfg->calib_reserved = 1.0;
    cfg->calib_context_bytes = -1;
    cfg->calib_fragmentation_bytes = cfg->calib_overhead_bytes = 0;
    cfg->calib_safety_margin = 0.0;
    return LLMMEM_OK;
}

/* ---- notes of the framework-file readers ------------------------------------ */

void llmmem__config_take(struct llmmem_config *dst, struct llmmem_config *src)
{
    llmmem__config_side *mine = dst->side;
    *dst = *src;
    dst->side = src->side; /* the edited side moves to dst, dst's storage to src */
    src->side = mine;
}

void llmmem__config_note(struct llmmem_config *c, const char *fmt, ...)
{
    llmmem__config_side *sd = c->side;
    if (!sd || sd->note_count >= LLMMEM__CFG_NOTES) /* a bare struct (no handle) keeps none */
        return;
    char text[LLMMEM__NOTE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    for (int i = 0; i < sd->note_count; i++)
        if (strcmp(sd->notes[i], text) == 0)
            return;
    memcpy(sd->notes[sd->note_count++], text, sizeof text);
}

int llmmem_config_note_count(const llmmem_config *cfg) { return cfg ? llmmem__config_note_count(cfg) : 0; }

const char *llmmem_config_note(const llmmem_config *cfg, int index)
{
    if (!cfg || index < 0 || index >= llmmem__config_note_count(cfg))
        return NULL;
    return cfg->side->notes[index];
}
