/* Errors of the CLI: one line on stderr, "llmmem: LLMMEM_E_XXX: message", then exit
 * (2 for usage errors, 1 otherwise). */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>

/* Prints "llmmem: STATUS: message" as one line (newlines in the message become spaces). */
static void print_error(int status, const char *msg)
{
    fprintf(stderr, "llmmem: %s: ", llmmem_status_name(status));
    for (const char *p = msg; *p; p++)
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, stderr);
    fputc('\n', stderr);
}

_Noreturn void cli_fail_msg(int status, int exit_code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_error(status, msg);
    exit(exit_code);
}

/* The library's last error, prefixed with `what` when given. */
_Noreturn void cli_fail_lib(int rc, int exit_code, const char *what)
{
    const char *detail = llmmem_last_error();
    if (!detail || !*detail)
        detail = llmmem_strerror(rc);
    if (what && *what)
        cli_fail_msg(rc, exit_code, "%s: %s", what, detail);
    cli_fail_msg(rc, exit_code, "%s", detail);
}
