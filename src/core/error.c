/* Status names and the thread-local error text (libgit2 git_error_last style). */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>

#define ERROR_MAX 512

static _Thread_local char tls_error[ERROR_MAX];

int llmmem__error(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_error, sizeof tls_error, fmt, ap);
    va_end(ap);
    return status;
}

const char *llmmem_last_error(void) { return tls_error; }

void llmmem_clear_error(void) { tls_error[0] = '\0'; }

static const struct {
    int status;
    const char *name;
    const char *text;
} statuses[] = {
    {LLMMEM_OK, "LLMMEM_OK", "success"},
    {LLMMEM_E_INVALID_ARG, "LLMMEM_E_INVALID_ARG", "invalid argument"},
    {LLMMEM_E_NOMEM, "LLMMEM_E_NOMEM", "out of memory"},
    {LLMMEM_E_IO, "LLMMEM_E_IO", "file could not be read"},
    {LLMMEM_E_PARSE, "LLMMEM_E_PARSE", "syntax error"},
    {LLMMEM_E_SCHEMA, "LLMMEM_E_SCHEMA", "missing or mistyped key"},
    {LLMMEM_E_UNKNOWN_PARAM, "LLMMEM_E_UNKNOWN_PARAM", "unknown name"},
    {LLMMEM_E_PARAM_TYPE, "LLMMEM_E_PARAM_TYPE", "wrong type for this parameter"},
    {LLMMEM_E_OUT_OF_RANGE, "LLMMEM_E_OUT_OF_RANGE", "value out of range or overflow"},
    {LLMMEM_E_UNSUPPORTED, "LLMMEM_E_UNSUPPORTED", "not supported"},
    {LLMMEM_E_BUFFER_TOO_SMALL, "LLMMEM_E_BUFFER_TOO_SMALL", "buffer too small"},
    {LLMMEM_E_INCONSISTENT, "LLMMEM_E_INCONSISTENT", "inconsistent values"},
    {LLMMEM_E_INTERNAL, "LLMMEM_E_INTERNAL", "internal error"},
};

const char *llmmem_status_name(int status)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(statuses); i++)
        if (statuses[i].status == status)
            return statuses[i].name;
    return "LLMMEM_E_UNKNOWN";
}

const char *llmmem_strerror(int status)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(statuses); i++)
        if (statuses[i].status == status)
            return statuses[i].text;
    return "unknown status";
}
