/* The helpers the framework-file readers share (framework.h): a key's value
 * by type, a parameter set at a node, a refusal at a node, a note, the keys a
 * reader does not know. Below the readers (torchtune.c, axolotl.c,
 * accelerate.c, llamafactory.c, hf_recipes.c) and framework.c, which
 * dispatches to them. */
#include "input/framework.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const llmmem__jnode *llmmem__fw_get(const llmmem__jnode *obj, const char *key)
{
    const llmmem__jnode *n = llmmem__json_get(obj, key);
    return n && !llmmem__json_is_null(n) ? n : NULL;
}

bool llmmem__fw_in(const char *key, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(key, *list))
            return true;
    return false;
}

int llmmem__fw_bool(int *out, fw_ctx *x, const llmmem__jnode *obj, const char *key, const char *path)
{
    *out = -1;
    const llmmem__jnode *n = llmmem__fw_get(obj, key);
    if (!n)
        return LLMMEM_OK;
    if (!llmmem__json_is_bool(n))
        return llmmem__input_type_error(x->doc, n, path, "true or false");
    *out = llmmem__json_true(n) ? 1 : 0;
    return LLMMEM_OK;
}

int llmmem__fw_int(int64_t *out, bool *present, fw_ctx *x, const llmmem__jnode *obj, const char *key,
           const char *path)
{
    *present = false;
    const llmmem__jnode *n = llmmem__fw_get(obj, key);
    if (!n)
        return LLMMEM_OK;
    int rc = llmmem__input_node_i64(out, x->doc, n, path);
    if (rc == 0)
        *present = true;
    return rc;
}

int llmmem__fw_str(const char **out, fw_ctx *x, const llmmem__jnode *obj, const char *key, const char *path)
{
    *out = NULL;
    const llmmem__jnode *n = llmmem__fw_get(obj, key);
    if (!n)
        return LLMMEM_OK;
    if (!llmmem__json_is_string(n))
        return llmmem__input_type_error(x->doc, n, path, "a string");
    *out = llmmem__json_string(n);
    return LLMMEM_OK;
}

int llmmem__fw_set(fw_ctx *x, int param, const char *value, const llmmem__jnode *n, const char *path)
{
    return llmmem__input_set_str(x->doc, x->cfg, param, value, n, path);
}

int llmmem__fw_set_i64(fw_ctx *x, int param, int64_t value, const llmmem__jnode *n, const char *path)
{
    return llmmem__input_set_i64(x->doc, x->cfg, param, value, n, path);
}

int llmmem__fw_refuse(fw_ctx *x, const llmmem__jnode *n, const char *path, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return llmmem__json_error_at(x->doc, n, LLMMEM_E_UNSUPPORTED, path, "%s: %s", x->reader, msg);
}

void llmmem__fw_note(fw_ctx *x, const char *fmt, ...)
{
    char msg[LLMMEM__NOTE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    llmmem__config_note(x->cfg, "%s: %s", x->reader, msg);
}

void llmmem__fw_tally(fw_ctx *x, const char *key, const char *const *read, const char *const *ignored)
{
    if (llmmem__fw_in(key, read))
        x->read_n++;
    else if (!llmmem__fw_in(key, ignored))
        llmmem__fw_unread(x, key);
}

void llmmem__fw_unread(fw_ctx *x, const char *path)
{
    size_t used = strlen(x->unread);
    if (used + 4 >= sizeof x->unread)
        return;
    snprintf(x->unread + used, sizeof x->unread - used, "%s%s", used ? ", " : "", path);
    x->unread_n++;
}
