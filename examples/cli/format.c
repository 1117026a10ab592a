/* Numbers and bytes as text, bars, JSON on stdout, and a configuration's integers. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const char *cli_group(char *buf, size_t cap, long long v)
{
    char raw[32];
    snprintf(raw, sizeof raw, "%lld", v < 0 ? -v : v);
    size_t len = strlen(raw), o = 0;
    if (v < 0 && o + 1 < cap)
        buf[o++] = '-';
    for (size_t i = 0; i < len && o + 2 < cap; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
    return buf;
}

static const char *fmt_scaled(char *buf, size_t cap, double v, bool binary)
{
    static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    static const char *const dec[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    double base = binary ? 1024.0 : 1000.0;
    int u = 0;
    while (v >= base && u < 5) {
        v /= base;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%.0f %s", v, binary ? bin[0] : dec[0]);
    else
        snprintf(buf, cap, "%.2f %s", v, binary ? bin[u] : dec[u]);
    return buf;
}

const char *cli_fmt_bytes(char *buf, size_t cap, uint64_t bytes, enum cli_units units)
{
    char a[24], b[24];
    fmt_scaled(a, sizeof a, (double)bytes, true);
    fmt_scaled(b, sizeof b, (double)bytes, false);
    if (units == UNITS_GIB)
        snprintf(buf, cap, "%s", a);
    else if (units == UNITS_GB)
        snprintf(buf, cap, "%s", b);
    else if (strcmp(a, b) == 0)
        snprintf(buf, cap, "%s", a);
    else
        snprintf(buf, cap, "%s / %s", a, b);
    return buf;
}

void cli_bar(FILE *out, uint64_t v, uint64_t max, int width)
{
    int n = max ? (int)((double)v / (double)max * width + 0.5) : 0;
    if (v > 0 && n == 0)
        n = 1;
    if (n > width)
        n = width;
    for (int i = 0; i < width; i++)
        fputc(i < n ? '#' : '.', out);
}

void cli_json_str(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

void cli_print_json(cli_to_json to_json, const void *obj, bool always_newline)
{
    size_t need = 0;
    int rc = to_json(NULL, 0, &need, obj);
    if (rc && rc != LLMMEM_E_BUFFER_TOO_SMALL)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    char *buf = malloc(need);
    if (!buf)
        cli_fail_msg(LLMMEM_E_NOMEM, EXIT_FAIL, "out of memory");
    if ((rc = to_json(buf, need, &need, obj)) != 0)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    fputs(buf, stdout);
    if (always_newline || need < 2 || buf[need - 2] != '\n')
        fputc('\n', stdout);
    free(buf);
}

int64_t cli_cfg_i64(const llmmem_config *cfg, int param)
{
    int64_t v = 0;
    llmmem_config_get_i64(&v, cfg, param);
    return v;
}
