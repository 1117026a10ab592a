/* Result handles: per-phase, per-component bytes, scalar keys, explained
 * terms and notes; the common finishing step (peak, allocator, context, fits)
 * and the JSON serialisation. */
#include "core/result.h"
#include "config/config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int llmmem_result_new(llmmem_result **out)
{
    if (!out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_result_new: out is NULL");
    struct llmmem_result *r = malloc(sizeof *r);
    if (!r)
        return llmmem__error(LLMMEM_E_NOMEM, "llmmem_result_new: out of memory");
    llmmem__result_clear(r);
    *out = r;
    return LLMMEM_OK;
}

void llmmem_result_free(llmmem_result *res) { free(res); }

/* ---- public readers ---------------------------------------------------- */

static int key_check(const llmmem_result *res, int key, const char *fn, void *out)
{
    if (!res || !out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "%s: NULL argument", fn);
    int t = llmmem_result_key_type(key);
    if (t < 0)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "%s: unknown result key %d", fn, key);
    return t;
}

int llmmem_result_get_u64(uint64_t *out, const llmmem_result *res, int key)
{
    int t = key_check(res, key, "llmmem_result_get_u64", out);
    if (t < 0)
        return t;
    if (t != LLMMEM_TYPE_U64)
        return llmmem__error(LLMMEM_E_PARAM_TYPE, "result key \"%s\" is not a byte count; use get_%s",
                             llmmem_result_key_name(key), t == LLMMEM_TYPE_F64 ? "f64" : "i64");
    *out = res->v[key - LLMMEM_R_PARAMS].u;
    return LLMMEM_OK;
}

int llmmem_result_get_i64(int64_t *out, const llmmem_result *res, int key)
{
    int t = key_check(res, key, "llmmem_result_get_i64", out);
    if (t < 0)
        return t;
    if (t == LLMMEM_TYPE_U64 || t == LLMMEM_TYPE_F64)
        return llmmem__error(LLMMEM_E_PARAM_TYPE, "result key \"%s\" is not an integer; use get_%s",
                             llmmem_result_key_name(key), t == LLMMEM_TYPE_F64 ? "f64" : "u64");
    *out = res->v[key - LLMMEM_R_PARAMS].i;
    return LLMMEM_OK;
}

int llmmem_result_get_f64(double *out, const llmmem_result *res, int key)
{
    int t = key_check(res, key, "llmmem_result_get_f64", out);
    if (t < 0)
        return t;
    if (t != LLMMEM_TYPE_F64)
        return llmmem__error(LLMMEM_E_PARAM_TYPE, "result key \"%s\" is not a real number; use get_%s",
                             llmmem_result_key_name(key), t == LLMMEM_TYPE_U64 ? "u64" : "i64");
    *out = res->v[key - LLMMEM_R_PARAMS].f;
    return LLMMEM_OK;
}

int llmmem_result_component_bytes(uint64_t *out, const llmmem_result *res, int phase, int component)
{
    if (!out || !res)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_result_component_bytes: NULL argument");
    if (phase < 0 || phase >= LLMMEM__PHASES)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "unknown phase %d", phase);
    if (component < 0 || component >= LLMMEM__COMPONENTS)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "unknown component %d", component);
    *out = res->bytes[phase][component];
    return LLMMEM_OK;
}

int llmmem_result_phase_bytes(uint64_t *out, const llmmem_result *res, int phase)
{
    if (!out || !res)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_result_phase_bytes: NULL argument");
    if (phase < 0 || phase >= LLMMEM__PHASES)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "unknown phase %d", phase);
    llmmem__ovf o = {false};
    *out = llmmem__result_phase_total(res, phase, &o);
    return LLMMEM_OK;
}

int llmmem_result_stage_peak_bytes(uint64_t *out, const llmmem_result *res, int stage)
{
    if (!out || !res)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_result_stage_peak_bytes: NULL argument");
    if (stage < 0 || stage >= res->stage_count)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "stage %d: the result has %d stage(s)", stage,
                             res->stage_count);
    *out = res->stage_peak[stage];
    return LLMMEM_OK;
}

int llmmem_result_term_count(const llmmem_result *res) { return res ? res->term_count : 0; }

int llmmem_result_term(const char **name, const char **formula, uint64_t *bytes,
                       const llmmem_result *res, int index)
{
    if (!res)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_result_term: res is NULL");
    if (index < 0 || index >= res->term_count)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "term %d: the result has %d term(s)", index,
                             res->term_count);
    if (name)
        *name = res->terms[index].name;
    if (formula)
        *formula = res->terms[index].formula;
    if (bytes)
        *bytes = res->terms[index].bytes;
    return LLMMEM_OK;
}

int llmmem_result_input_count(const llmmem_result *res) { return res ? res->input_count : 0; }

int llmmem_result_input(const char **name, int64_t *value, const llmmem_result *res, int index)
{
    if (!res)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_result_input: res is NULL");
    if (index < 0 || index >= res->input_count)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "input %d: the result has %d input(s)", index,
                             res->input_count);
    if (name)
        *name = res->input_name[index];
    if (value)
        *value = res->input_value[index];
    return LLMMEM_OK;
}

int llmmem_result_note_count(const llmmem_result *res) { return res ? res->note_count : 0; }

const char *llmmem_result_note(const llmmem_result *res, int index)
{
    if (!res || index < 0 || index >= res->note_count)
        return NULL;
    return res->notes[index];
}

/* ---- JSON ----------------------------------------------------------------- */

static void key_json(llmmem__buf *b, const llmmem_result *r, int key)
{
    int t = llmmem_result_key_type(key);
    const char *name = llmmem_result_key_name(key);
    llmmem__buf_printf(b, "\"%s\": ", name);
    const int i = key - LLMMEM_R_PARAMS;
    switch (t) {
    case LLMMEM_TYPE_U64: llmmem__buf_printf(b, "%llu", (unsigned long long)r->v[i].u); break;
    case LLMMEM_TYPE_F64: llmmem__buf_f64(b, r->v[i].f); break;
    case LLMMEM_TYPE_BOOL: llmmem__buf_printf(b, "%s", r->v[i].i ? "true" : "false"); break;
    case LLMMEM_TYPE_ENUM: {
        const char *v = llmmem_result_enum_name(key, r->v[i].i);
        llmmem__buf_json_string(b, v ? v : "none");
        break;
    }
    default: llmmem__buf_printf(b, "%lld", (long long)r->v[i].i);
    }
}

int llmmem_result_to_json(char *buf, size_t cap, size_t *needed, const llmmem_result *res)
{
    if (!res || (!buf && cap))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_result_to_json: NULL argument");
    const struct llmmem_result *r = res;
    llmmem__buf b = {buf, cap, 0};
    llmmem__buf_printf(&b, "{\"mode\": ");
    llmmem__buf_json_string(&b, llmmem_param_enum_name(LLMMEM_P_MODE, r->mode));
    llmmem__buf_printf(&b, ", \"engine\": ");
    llmmem__buf_json_string(&b, llmmem_param_enum_name(LLMMEM_P_ENGINE, r->engine));
    llmmem__buf_printf(&b, ", \"model_type\": ");
    llmmem__buf_json_string(&b, r->model_type);
    for (int i = 0; i < LLMMEM__RKEYS; i++) {
        /* the optional keys only where non-zero; "approximate" always, true or false;
         * "fits_host" wherever a host RAM size was given to compare with */
        const int key = LLMMEM_R_PARAMS + i;
        if (key >= LLMMEM__RKEY_OPTIONAL && key != LLMMEM_R_APPROXIMATE && r->v[i].u == 0 &&
            !(key == LLMMEM_R_FITS_HOST && llmmem__result_u64(r, LLMMEM_R_HOST_MEMORY_BYTES) != 0))
            continue;
        llmmem__buf_printf(&b, ", ");
        key_json(&b, r, LLMMEM_R_PARAMS + i);
    }
    int peak = (int)r->v[LLMMEM_R_PEAK_PHASE - LLMMEM_R_PARAMS].i;
    llmmem__buf_printf(&b, ", \"components\": {");
    for (int k = 0; k < LLMMEM__COMPONENTS; k++)
        llmmem__buf_printf(&b, "%s\"%s\": %llu", k ? ", " : "", llmmem_component_name(k),
                           (unsigned long long)r->bytes[peak][k]);
    llmmem__buf_printf(&b, "}, \"phases\": {");
    bool first = true;
    for (int ph = 0; ph < LLMMEM__PHASES; ph++) {
        if (!r->phase_used[ph])
            continue;
        llmmem__ovf o = {false};
        llmmem__buf_printf(&b, "%s\"%s\": {\"total\": %llu, \"components\": {", first ? "" : ", ",
                           llmmem_phase_name(ph), (unsigned long long)llmmem__result_phase_total(r, ph, &o));
        first = false;
        for (int k = 0; k < LLMMEM__COMPONENTS; k++)
            llmmem__buf_printf(&b, "%s\"%s\": %llu", k ? ", " : "", llmmem_component_name(k),
                               (unsigned long long)r->bytes[ph][k]);
        llmmem__buf_printf(&b, "}}");
    }
    llmmem__buf_printf(&b, "}, \"stages\": [");
    for (int s = 0; s < r->stage_count; s++)
        llmmem__buf_printf(&b, "%s%llu", s ? ", " : "", (unsigned long long)r->stage_peak[s]);
    llmmem__buf_printf(&b, "], \"terms\": [");
    for (int t = 0; t < r->term_count; t++) {
        llmmem__buf_printf(&b, "%s{\"name\": ", t ? ", " : "");
        llmmem__buf_json_string(&b, r->terms[t].name);
        llmmem__buf_printf(&b, ", \"formula\": ");
        llmmem__buf_json_string(&b, r->terms[t].formula);
        llmmem__buf_printf(&b, ", \"bytes\": %llu}", (unsigned long long)r->terms[t].bytes);
    }
    llmmem__buf_printf(&b, "], \"inputs\": {");
    for (int i = 0; i < r->input_count; i++) {
        if (i)
            llmmem__buf_printf(&b, ", ");
        llmmem__buf_json_string(&b, r->input_name[i]);
        llmmem__buf_printf(&b, ": %lld", (long long)r->input_value[i]);
    }
    llmmem__buf_printf(&b, "}, \"notes\": [");
    for (int n = 0; n < r->note_count; n++) {
        if (n)
            llmmem__buf_printf(&b, ", ");
        llmmem__buf_json_string(&b, r->notes[n]);
    }
    llmmem__buf_printf(&b, "]}");
    return llmmem__buf_finish(&b, needed);
}
