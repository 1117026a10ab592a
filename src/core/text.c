/* Text helpers: human-readable counts, name tables, snprintf-style buffers.
 * Output never depends on the locale: numbers are formatted as integers. */
#include "core/core.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void llmmem__str_vjoin(char *dst, size_t cap, va_list ap)
{
    size_t at = 0;
    for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *)) {
        size_t n = strlen(s);
        if (n > cap - 1 - at)
            n = cap - 1 - at;
        memcpy(dst + at, s, n);
        at += n;
    }
    dst[at] = '\0';
}

void llmmem__str_cat(char *dst, size_t cap, const llmmem__str *parts, int n)
{
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        size_t k = parts[i].n < cap - 1 - at ? parts[i].n : cap - 1 - at;
        if (k > 16) {
            memcpy(dst + at, parts[i].s, k);
        } else { /* most pieces: a loop beats the call */
            for (size_t j = 0; j < k; j++)
                dst[at + j] = parts[i].s[j];
        }
        at += k;
    }
    dst[at] = '\0';
}

void llmmem__str_join(char *dst, size_t cap, ...)
{
    va_list ap;
    va_start(ap, cap);
    llmmem__str_vjoin(dst, cap, ap);
    va_end(ap);
}

int llmmem__name_index(const char *const *names, const char *name)
{
    if (!names || !name)
        return -1;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

/* Folds case and treats '-' and '_' alike, for suggestions. */
static char fold(char c)
{
    if (c >= 'A' && c <= 'Z')
        return (char)(c - 'A' + 'a');
    return c == '-' ? '_' : c;
}

/* Optimal string alignment distance (Levenshtein with adjacent transpositions) of two
 * names of at most 63 characters; 99 for longer ones. */
int llmmem__edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63)
        return 99;
    int d[64][64];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int cost = fold(a[i - 1]) != fold(b[j - 1]);
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
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

const char *llmmem__suggest(const char *const *names, const char *written)
{
    if (!names || !written || !*written)
        return NULL;
    size_t len = strlen(written);
    int limit = len < 6 ? 1 : len < 9 ? 2 : 3;
    const char *best = NULL, *prefixed = NULL;
    int best_d = limit + 1, prefixes = 0;
    for (int i = 0; names[i]; i++) {
        int d = llmmem__edit_distance(written, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
        if (len >= 3 && folded_prefix(written, names[i])) {
            prefixed = names[i];
            prefixes++;
        }
    }
    if (best)
        return best;
    return prefixes == 1 ? prefixed : NULL;
}

/* Parses a decimal number without the locale: digits, optional fraction,
 * optional exponent. Returns the number of characters used, 0 if none. */
static size_t parse_decimal(double *out, const char *s)
{
    size_t i = 0;
    double v = 0.0, scale = 1.0;
    bool any = false;
    while (s[i] >= '0' && s[i] <= '9') {
        v = v * 10.0 + (s[i++] - '0');
        any = true;
    }
    if (s[i] == '.') {
        i++;
        while (s[i] >= '0' && s[i] <= '9') {
            scale /= 10.0;
            v += (s[i++] - '0') * scale;
            any = true;
        }
    }
    if (!any)
        return 0;
    if ((s[i] == 'e' || s[i] == 'E') && (s[i + 1] == '+' || s[i + 1] == '-' ||
                                          (s[i + 1] >= '0' && s[i + 1] <= '9'))) {
        size_t j = i + 1;
        int sign = 1, e = 0;
        if (s[j] == '+' || s[j] == '-')
            sign = s[j++] == '-' ? -1 : 1;
        if (!(s[j] >= '0' && s[j] <= '9'))
            return i;
        while (s[j] >= '0' && s[j] <= '9') {
            if (e < 400)
                e = e * 10 + (s[j] - '0');
            j++;
        }
        v *= pow(10.0, sign * e);
        i = j;
    }
    *out = v;
    return i;
}

/* ---- numbers written as text: the one reader (llmmem_parse_value) ------------ */

/* What each kind of value takes, for messages. */
static const char *value_form(int kind)
{
    switch (kind) {
    case LLMMEM_VALUE_TOKENS: return "a whole number of tokens (4096, 4k = 4096, 128k = 131072)";
    case LLMMEM_VALUE_SIZE: return "a parameter count (7B, 770M, 1.5e9; K = 10^3, M = 10^6, B = 10^9, T = 10^12)";
    case LLMMEM_VALUE_BOOL: return "true or false (also 1/0, yes/no, on/off)";
    default: return "a whole number (e-notation for large counts: 5e8)";
    }
}

static bool word_is(const char *text, const char *word)
{
    for (; *text && *word; text++, word++)
        if (tolower((unsigned char)*text) != *word)
            return false;
    return !*text && !*word;
}

/* A number as written: [+-]digits[.digits][(e|E)[+-]digits], then the suffix.
 * Exact: value = digits x 10^scale (`huge` past 64 bits of digits). */
typedef struct written_number {
    bool negative;
    bool huge; /* more digits than 64 bits hold */
    uint64_t digits;
    int scale;
    const char *rest;
} written_number;

static bool read_written(written_number *w, const char *s)
{
    int exp = 0;
    bool any = false;
    memset(w, 0, sizeof *w);
    if (*s == '-' || *s == '+')
        w->negative = *s++ == '-';
    for (; *s >= '0' && *s <= '9'; s++, any = true) {
        if (w->digits > (UINT64_MAX - 9) / 10)
            w->huge = true;
        else
            w->digits = w->digits * 10 + (uint64_t)(*s - '0');
    }
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++, any = true) {
            if (w->digits > (UINT64_MAX - 9) / 10) {
                w->huge = true;
                continue;
            }
            w->digits = w->digits * 10 + (uint64_t)(*s - '0');
            w->scale--;
        }
    if (!any)
        return false;
    if ((*s == 'e' || *s == 'E') && (s[1] == '-' || s[1] == '+' || (s[1] >= '0' && s[1] <= '9'))) {
        bool neg = s[1] == '-';
        s += s[1] == '-' || s[1] == '+' ? 2 : 1;
        if (!(*s >= '0' && *s <= '9'))
            return false;
        for (; *s >= '0' && *s <= '9'; s++)
            if (exp < 100)
                exp = exp * 10 + (*s - '0');
        w->scale += neg ? -exp : exp;
    }
    w->rest = s;
    return true;
}

int llmmem_parse_value(int64_t *out, const char *text, int kind)
{
    if (!out || !text)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_parse_value: NULL argument");
    if (kind < LLMMEM_VALUE_WHOLE || kind > LLMMEM_VALUE_BOOL)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_parse_value: unknown kind %d (1 whole .. 4 bool)", kind);
    const char *form = value_form(kind);
    if (kind == LLMMEM_VALUE_BOOL) {
        static const char *const yes[] = {"true", "1", "yes", "on"}, *const no[] = {"false", "0", "no", "off"};
        for (int i = 0; i < 4; i++)
            if (word_is(text, yes[i]) || word_is(text, no[i])) {
                *out = word_is(text, yes[i]);
                return LLMMEM_OK;
            }
        return llmmem__error(LLMMEM_E_PARSE, "\"%.60s\": expected %s", text, form);
    }
    /* separators are never read: "1,5" is not 15, "1 5" not 15 */
    if (strpbrk(text, ",_ '\t\n\r"))
        return llmmem__error(LLMMEM_E_PARSE, "\"%.60s\": separators are not read; expected %s", text, form);
    written_number w;
    if (!read_written(&w, text))
        return llmmem__error(LLMMEM_E_PARSE, "\"%.60s\": expected %s", text, form);
    uint64_t mult = 1;
    const char *suf = w.rest;
    if (*suf) {
        char c = *suf;
        if (suf[1] != '\0')
            return llmmem__error(LLMMEM_E_PARSE, "\"%.60s\": expected %s", text, form);
        if (kind == LLMMEM_VALUE_TOKENS && (c == 'k' || c == 'K'))
            mult = 1024;
        else if (kind == LLMMEM_VALUE_TOKENS && strchr("mMgGbBtT", c))
            return llmmem__error(LLMMEM_E_PARSE,
                                 "\"%.60s\": token counts take k = 1024 only (1M tokens: write 1024k or 1048576)", text);
        else if (kind == LLMMEM_VALUE_SIZE && (c == 'k' || c == 'K'))
            mult = UINT64_C(1000);
        else if (kind == LLMMEM_VALUE_SIZE && (c == 'm' || c == 'M'))
            mult = UINT64_C(1000000);
        else if (kind == LLMMEM_VALUE_SIZE && strchr("bBgG", c))
            mult = UINT64_C(1000000000);
        else if (kind == LLMMEM_VALUE_SIZE && (c == 't' || c == 'T'))
            mult = UINT64_C(1000000000000);
        else
            return llmmem__error(LLMMEM_E_PARSE, "\"%.60s\": expected %s", text, form);
    }
    /* digits x mult x 10^scale, exactly */
    uint64_t v = w.digits;
    if (w.huge || v > UINT64_MAX / mult)
        goto too_large;
    v *= mult;
    for (int i = w.scale; i < 0; i++) {
        if (v % 10 != 0)
            return llmmem__error(LLMMEM_E_PARSE, "\"%.60s\": not a whole number; expected %s", text, form);
        v /= 10;
    }
    for (int i = 0; i < w.scale; i++) {
        if (v > UINT64_MAX / 10)
            goto too_large;
        v *= 10;
    }
    if (v > (uint64_t)INT64_MAX)
        goto too_large;
    *out = w.negative ? -(int64_t)v : (int64_t)v;
    return LLMMEM_OK;
too_large:
    return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "\"%.60s\": beyond the 64-bit range", text);
}

void llmmem__buf_printf(llmmem__buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->len < b->cap ? b->cap - b->len : 0;
    int n = vsnprintf(room ? b->p + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n;
}

/* Appends n bytes (counted even when they do not fit). */
static void buf_put(llmmem__buf *b, const char *s, size_t n)
{
    if (b->p && b->len < b->cap) {
        size_t room = b->cap - b->len;
        memcpy(b->p + b->len, s, n < room ? n : room);
    }
    b->len += n;
}

void llmmem__buf_json_string(llmmem__buf *b, const char *s)
{
    buf_put(b, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p) {
        /* the run of bytes that need no escape, in one copy */
        const unsigned char *q = p;
        while (*q && *q != '"' && *q != '\\' && *q >= 0x20)
            q++;
        if (q > p)
            buf_put(b, (const char *)p, (size_t)(q - p));
        if (!*q)
            break;
        switch (*q) {
        case '"': buf_put(b, "\\\"", 2); break;
        case '\\': buf_put(b, "\\\\", 2); break;
        case '\n': buf_put(b, "\\n", 2); break;
        case '\t': buf_put(b, "\\t", 2); break;
        case '\r': buf_put(b, "\\r", 2); break;
        default: {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", *q);
            buf_put(b, esc, 6);
        }
        }
        p = q + 1;
    }
    buf_put(b, "\"", 1);
}

int llmmem__buf_finish(llmmem__buf *b, size_t *needed)
{
    if (needed)
        *needed = b->len + 1;
    if (b->cap > 0 && b->p) {
        if (b->len < b->cap)
            b->p[b->len] = '\0';
        else
            b->p[b->cap - 1] = '\0';
    }
    if (b->len + 1 > b->cap)
        return llmmem__error(LLMMEM_E_BUFFER_TOO_SMALL, "buffer of %zu bytes, %zu needed", b->cap,
                             b->len + 1);
    return LLMMEM_OK;
}

int llmmem__parse_f64(double *out, const char *text)
{
    if (!out || !text)
        return -1;
    const char *s = text;
    int sign = 1;
    if (*s == '-' || *s == '+')
        sign = *s++ == '-' ? -1 : 1;
    double v = 0.0;
    size_t used = parse_decimal(&v, s);
    if (used == 0 || s[used] != '\0' || !isfinite(v))
        return -1;
    *out = sign * v;
    return 0;
}

void llmmem__buf_f64(llmmem__buf *b, double v)
{
    /* Locale-independent: integer part and 6 decimals, trailing zeros trimmed. */
    if (!isfinite(v)) {
        llmmem__buf_printf(b, "null");
        return;
    }
    if (v < 0) {
        llmmem__buf_printf(b, "-");
        v = -v;
    }
    if (v >= 9.0e12) {
        /* beyond what llround(v * 1e6) holds: whole units (digits only, no
         * locale separator) */
        llmmem__buf_printf(b, "%.0f", v);
        return;
    }
    long long scaled = llround(v * 1e6);
    long long ip = scaled / 1000000, fp = scaled % 1000000;
    if (fp == 0) {
        llmmem__buf_printf(b, "%lld", ip);
        return;
    }
    char frac[8];
    snprintf(frac, sizeof frac, "%06lld", fp);
    for (int i = 5; i > 0 && frac[i] == '0'; i--)
        frac[i] = '\0';
    llmmem__buf_printf(b, "%lld.%s", ip, frac);
}
