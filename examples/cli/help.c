/* Help texts: a command's help (its text and its flags from the table of options.c) and the
 * list of parameter flags generated from the library's parameter table. */
#include "cli.h"

#include <string.h>

/* "  --name METAVAR" padded to the column, then the help text; each '\n' in it goes on
 * at the column. */
static void print_flag(FILE *out, int column, const cli_help_line *l)
{
    char flag[96];
    const char *help;
    cli_flag_doc(flag, sizeof flag, &help, l->flag);
    if (l->help)
        help = l->help;
    fprintf(out, "  %-*s ", column - 3, flag);
    for (const char *c = help; *c; c++) {
        if (*c == '\n')
            fprintf(out, "\n%*s", column, "");
        else
            fputc(*c, out);
    }
    fputc('\n', out);
}

void cli_help_print(FILE *out, const cli_help *h)
{
    fputs(h->text, out);
    for (const cli_help_line *l = h->lines; l && (l->text || l->flag); l++) {
        if (l->flag)
            print_flag(out, h->column, l);
        else
            fputs(l->text, out);
    }
}

static const char *const type_words[] = {"?", "INT", "REAL", "BOOL", "NAME", "TEXT", "BYTES"};

void cli_print_param_flags(FILE *out)
{
    fprintf(out, "\nParameter flags (every parameter; '_' or '-'; see llmmem params; TOKENS take\n"
                 "k = 1024):\n");
    int n = llmmem_param_count(), col = 0;
    for (int i = 0; i < n; i++) {
        int id = llmmem_param_at(i);
        const char *name = llmmem_param_name(id);
        int t = llmmem_param_type(id);
        char flag[96];
        snprintf(flag, sizeof flag, "--%s %s", name,
                 llmmem_param_value_kind(id) == LLMMEM_VALUE_TOKENS ? "TOKENS" : t > 0 && t < 7 ? type_words[t] : "VALUE");
        for (char *p = flag + 2; *p && *p != ' '; p++)
            if (*p == '_')
                *p = '-';
        if (col + (int)strlen(flag) + 2 > 78) {
            fprintf(out, "\n");
            col = 0;
        }
        col += fprintf(out, "  %s", flag);
    }
    fprintf(out, "\n");
}
