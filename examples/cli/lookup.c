/* The CLI's one name lookup (flags, values, did-you-mean suggestions) and its one reader
 * of numbers in flags (the library's llmmem_parse_value): below options.c, inputs.c and
 * every subcommand. */
#include "cli.h"

#include <string.h>

/* ---- names ------------------------------------------------------------------------------ */

bool cli_name_is(const char *written, const char *name)
{
    return strcmp(written, name) == 0;
}

int cli_find(const void *rows, size_t n, size_t size, const char *written)
{
    for (size_t i = 0; i < n; i++) {
        const cli_names *r = (const cli_names *)(const void *)((const char *)rows + i * size);
        if (cli_name_is(written, r->name) || (r->alias && cli_name_is(written, r->alias)))
            return (int)i;
    }
    return -1;
}

void cli_normalize(char *out, size_t cap, const char *in)
{
    size_t i = 0;
    for (; in[i] && i + 1 < cap; i++)
        out[i] = in[i] == '-' ? '_' : in[i];
    out[i] = '\0';
}

/* Folds case and treats '-' and '_' alike. */
static char fold(char c)
{
    if (c >= 'A' && c <= 'Z')
        return (char)(c - 'A' + 'a');
    return c == '-' ? '_' : c;
}

/* Optimal string alignment distance (edits and adjacent transpositions), folded; 99 for
 * names of 64 characters or more. */
static int distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n >= 64 || m >= 64)
        return 99;
    int d[64][64];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int v = d[i - 1][j - 1] + (fold(a[i - 1]) != fold(b[j - 1]));
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) &&
                fold(a[i - 2]) == fold(b[j - 1]) && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

static bool folded_prefix(const char *prefix, const char *name)
{
    for (; *prefix; prefix++, name++)
        if (!*name || fold(*prefix) != fold(*name))
            return false;
    return true;
}

const char *cli_suggest(const char *written, const char *const *names, int n)
{
    size_t len = strlen(written);
    int best_d = (len < 6 ? 1 : len < 9 ? 2 : 3) + 1, prefixes = 0;
    const char *best = NULL, *prefixed = NULL;
    for (int i = 0; i < n; i++) {
        if (!names[i])
            continue;
        int d = distance(written, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
        if (len >= 3 && folded_prefix(written, names[i]) && (!prefixed || strcmp(prefixed, names[i]))) {
            prefixed = names[i];
            prefixes++;
        }
    }
    return best ? best : prefixes == 1 ? prefixed : NULL;
}

void cli_did_you_mean(char *out, size_t cap, const char *prefix, const char *name)
{
    if (!name) {
        out[0] = '\0';
        return;
    }
    char shown[80];
    snprintf(shown, sizeof shown, "%s%s", prefix, name);
    if (prefix[0] == '-')
        for (char *c = shown; *c; c++)
            if (*c == '_')
                *c = '-';
    snprintf(out, cap, " (did you mean %s?)", shown);
}

/* ---- values ------------------------------------------------------------------------------- */

int64_t cli_value(const char *cmd, const char *flag, const char *value, int kind)
{
    int64_t v;
    int rc = llmmem_parse_value(&v, value, kind);
    if (rc)
        cli_fail_msg(rc, EXIT_USAGE, "%s: %s %s", cmd, flag, llmmem_last_error());
    return v;
}

long long cli_parse_count(const char *cmd, const char *flag, const char *value, long long lo,
                          long long hi)
{
    int64_t v = cli_value(cmd, flag, value, LLMMEM_VALUE_WHOLE);
    if (v < lo || v > hi)
        cli_usage_error("%s: %s \"%s\": expected an integer in %lld..%lld", cmd, flag, value, lo,
                        hi);
    return v;
}
