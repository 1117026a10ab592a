/* JSON layer: the only file that includes cJSON.
 *
 * cJSON builds the tree; it keeps no positions, so a small strict RFC 8259
 * scanner walks the text first. It validates the syntax (and is the one that
 * reports "source:line:col: what" for bad input, including empty and
 * truncated text) and records the position of every value in pre-order
 * (object members in text order, duplicates included). cJSON builds its tree
 * in the same order, so after parsing the two are zipped into a side table
 * sorted by node address that llmmem__json_pos searches.
 *
 * Thread safety: only cJSON_ParseWithLengthOpts (with return_parse_end) and
 * the case-sensitive getters are used; never cJSON_GetErrorPtr or
 * cJSON_InitHooks, which touch globals. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strerror_r, fstat, open */
#endif
#include "internal.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Deeper documents are rejected before cJSON sees them (its own limit is
 * CJSON_NESTING_LIMIT = 1000), so a cJSON failure after a clean scan can only
 * be an allocation failure. */
#define JSON_MAX_DEPTH 512
/* Files larger than this are refused (a config.json is a few KiB). */
#define JSON_MAX_FILE (64u * 1024u * 1024u)
/* Integers above 2^53 cannot be held exactly by cJSON's double. */
#define JSON_MAX_EXACT 9007199254740992.0

typedef struct jpos {
    const cJSON *node;
    size_t off, len; /* raw text of the value (len clipped for containers) */
    int line, col;
} jpos;

struct llmmem__json {
    cJSON *root;
    char *source;
    jpos *pos;        /* sorted by node address after parsing */
    size_t npos;
    char *raw; /* copy of the text, for "got <raw>" in messages */
    size_t raw_len;
};

/* ---- strict scanner ------------------------------------------------------ */

typedef struct scan {
    const unsigned char *s;
    size_t n, i;
    int line, col;
    jpos *pos;
    size_t npos, cap;
    int depth;
    const char *err; /* static message, NULL while fine */
    char errbuf[64];
    int err_line, err_col;
    bool nomem;
} scan;

static void sc_adv(scan *sc)
{
    unsigned char c = sc->s[sc->i++];
    if (c == '\n') {
        sc->line++;
        sc->col = 1;
    } else if ((c & 0xC0) != 0x80) { /* columns count characters, not UTF-8 continuation bytes */
        sc->col++;
    }
}

static int sc_fail(scan *sc, const char *what)
{
    if (!sc->err) {
        sc->err = what;
        sc->err_line = sc->line;
        sc->err_col = sc->col;
    }
    return -1;
}

/* "unexpected character 'x'" or "unexpected end of input". */
static int sc_unexpected(scan *sc, const char *expected)
{
    if (sc->i >= sc->n)
        return sc_fail(sc, expected ? expected : "unexpected end of input");
    unsigned char c = sc->s[sc->i];
    if (c >= 0x20 && c < 0x7f)
        snprintf(sc->errbuf, sizeof sc->errbuf, "unexpected character '%c'%s%s", c,
                 expected ? ", " : "", expected ? expected : "");
    else
        snprintf(sc->errbuf, sizeof sc->errbuf, "unexpected byte 0x%02x%s%s", c,
                 expected ? ", " : "", expected ? expected : "");
    return sc_fail(sc, sc->errbuf);
}

static void sc_ws(scan *sc)
{
    size_t i = sc->i;
    int line = sc->line, col = sc->col;
    while (i < sc->n) {
        unsigned char c = sc->s[i];
        if (c == ' ' || c == '\t' || c == '\r') {
            col++;
        } else if (c == '\n') {
            line++;
            col = 1;
        } else {
            break;
        }
        i++;
    }
    sc->i = i;
    sc->line = line;
    sc->col = col;
}

static int sc_record(scan *sc, size_t *slot)
{
    if (sc->npos == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 64;
        jpos *p = realloc(sc->pos, cap * sizeof *p);
        if (!p) {
            sc->nomem = true;
            return sc_fail(sc, "out of memory");
        }
        sc->pos = p;
        sc->cap = cap;
    }
    *slot = sc->npos++;
    sc->pos[*slot] = (jpos){NULL, sc->i, 0, sc->line, sc->col};
    return 0;
}

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int sc_string(scan *sc)
{
    sc_adv(sc); /* opening quote */
    for (;;) {
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input inside a string");
        /* Plain ASCII runs: advance without the per-byte line/column logic. */
        {
            const unsigned char *p0 = (const unsigned char *)sc->s + sc->i;
            const unsigned char *p = p0, *end = (const unsigned char *)sc->s + sc->n;
            while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
                p++;
            sc->i += (size_t)(p - p0);
            sc->col += (int)(p - p0);
            if (p == end)
                return sc_fail(sc, "unexpected end of input inside a string");
        }
        unsigned char c = sc->s[sc->i];
        if (c == '"') {
            sc_adv(sc);
            return 0;
        }
        if (c < 0x20)
            return sc_fail(sc, "control character inside a string (escape it)");
        if (c == '\\') {
            sc_adv(sc);
            if (sc->i >= sc->n)
                return sc_fail(sc, "unexpected end of input inside a string");
            c = sc->s[sc->i];
            if (c == 'u') {
                sc_adv(sc);
                for (int k = 0; k < 4; k++) {
                    if (sc->i >= sc->n)
                        return sc_fail(sc, "unexpected end of input inside a string");
                    if (hexval(sc->s[sc->i]) < 0)
                        return sc_fail(sc, "invalid \\u escape (expected 4 hex digits)");
                    sc_adv(sc);
                }
                continue;
            }
            if (!strchr("\"\\/bfnrt", c) || c == 0)
                return sc_fail(sc, "invalid escape sequence in a string");
        }
        sc_adv(sc);
    }
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* A run of ASCII digits: no newline or UTF-8 logic needed. */
static void sc_digits(scan *sc)
{
    size_t i = sc->i;
    while (i < sc->n && sc->s[i] >= '0' && sc->s[i] <= '9')
        i++;
    sc->col += (int)(i - sc->i);
    sc->i = i;
}

static int sc_number(scan *sc)
{
    if (sc->s[sc->i] == '-')
        sc_adv(sc);
    if (sc->i >= sc->n)
        return sc_fail(sc, "unexpected end of input inside a number");
    if (sc->s[sc->i] == '0') {
        sc_adv(sc);
    } else if (is_digit(sc->s[sc->i])) {
        sc_digits(sc);
    } else {
        return sc_unexpected(sc, "invalid number");
    }
    if (sc->i < sc->n && sc->s[sc->i] == '.') {
        sc_adv(sc);
        if (sc->i >= sc->n || !is_digit(sc->s[sc->i]))
            return sc_fail(sc, "invalid number: digit expected after '.'");
        sc_digits(sc);
    }
    if (sc->i < sc->n && (sc->s[sc->i] == 'e' || sc->s[sc->i] == 'E')) {
        sc_adv(sc);
        if (sc->i < sc->n && (sc->s[sc->i] == '+' || sc->s[sc->i] == '-'))
            sc_adv(sc);
        if (sc->i >= sc->n || !is_digit(sc->s[sc->i]))
            return sc_fail(sc, "invalid number: digit expected in exponent");
        sc_digits(sc);
    }
    if (sc->i < sc->n && (is_digit(sc->s[sc->i]) || sc->s[sc->i] == '.'))
        return sc_fail(sc, "invalid number (leading zero?)");
    return 0;
}

static int sc_literal(scan *sc, const char *word)
{
    size_t k = strlen(word);
    for (size_t j = 0; j < k; j++) {
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input");
        if (sc->s[sc->i] != (unsigned char)word[j]) {
            snprintf(sc->errbuf, sizeof sc->errbuf, "invalid literal (expected '%s')", word);
            return sc_fail(sc, sc->errbuf);
        }
        sc_adv(sc);
    }
    return 0;
}

static int sc_value(scan *sc);

static int sc_container_end(scan *sc, size_t slot)
{
    sc->pos[slot].len = sc->i - sc->pos[slot].off;
    sc->depth--;
    return 0;
}

static int sc_object(scan *sc, size_t slot)
{
    sc_adv(sc); /* { */
    sc_ws(sc);
    if (sc->i < sc->n && sc->s[sc->i] == '}') {
        sc_adv(sc);
        return sc_container_end(sc, slot);
    }
    for (;;) {
        sc_ws(sc);
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input: object not closed");
        if (sc->s[sc->i] != '"')
            return sc_unexpected(sc, "expected a member name in double quotes");
        if (sc_string(sc))
            return -1;
        sc_ws(sc);
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input: expected ':'");
        if (sc->s[sc->i] != ':')
            return sc_unexpected(sc, "expected ':' after a member name");
        sc_adv(sc);
        if (sc_value(sc))
            return -1;
        sc_ws(sc);
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input: object not closed");
        if (sc->s[sc->i] == ',') {
            sc_adv(sc);
            continue;
        }
        if (sc->s[sc->i] == '}') {
            sc_adv(sc);
            return sc_container_end(sc, slot);
        }
        return sc_unexpected(sc, "expected ',' or '}'");
    }
}

static int sc_array(scan *sc, size_t slot)
{
    sc_adv(sc); /* [ */
    sc_ws(sc);
    if (sc->i < sc->n && sc->s[sc->i] == ']') {
        sc_adv(sc);
        return sc_container_end(sc, slot);
    }
    for (;;) {
        if (sc_value(sc))
            return -1;
        sc_ws(sc);
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input: array not closed");
        if (sc->s[sc->i] == ',') {
            sc_adv(sc);
            continue;
        }
        if (sc->s[sc->i] == ']') {
            sc_adv(sc);
            return sc_container_end(sc, slot);
        }
        return sc_unexpected(sc, "expected ',' or ']'");
    }
}

static int sc_value(scan *sc)
{
    sc_ws(sc);
    if (sc->i >= sc->n)
        return sc_fail(sc, "unexpected end of input: a value was expected");
    size_t slot = 0;
    if (sc_record(sc, &slot))
        return -1;
    unsigned char c = sc->s[sc->i];
    int rc;
    switch (c) {
    case '{':
    case '[':
        if (++sc->depth > JSON_MAX_DEPTH)
            return sc_fail(sc, "nesting deeper than 512 levels");
        return c == '{' ? sc_object(sc, slot) : sc_array(sc, slot);
    case '"':
        rc = sc_string(sc);
        break;
    case 't':
        rc = sc_literal(sc, "true");
        break;
    case 'f':
        rc = sc_literal(sc, "false");
        break;
    case 'n':
        rc = sc_literal(sc, "null");
        break;
    default:
        if (c == '-' || is_digit(c))
            rc = sc_number(sc);
        else
            rc = sc_unexpected(sc, "a value was expected");
        break;
    }
    if (rc == 0)
        sc->pos[slot].len = sc->i - sc->pos[slot].off;
    return rc;
}

/* ---- document ------------------------------------------------------------ */

/* Pre-order walk of the cJSON tree, assigning recorded positions in order. */
static int zip(const cJSON *n, jpos *pos, size_t npos, size_t *k)
{
    for (; n; n = n->next) {
        if (*k >= npos)
            return -1;
        pos[(*k)++].node = n;
        if ((cJSON_IsObject(n) || cJSON_IsArray(n)) && zip(n->child, pos, npos, k))
            return -1;
    }
    return 0;
}

void llmmem__json_free(llmmem__json *doc)
{
    if (!doc)
        return;
    cJSON_Delete(doc->root);
    free(doc->source);
    free(doc->pos);
    free(doc->raw);
    free(doc);
}

int llmmem__json_parse(llmmem__json **out, const char *text, size_t len, const char *source)
{
    if (!out || (!text && len))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem__json_parse: NULL argument");
    *out = NULL;
    if (!text)
        text = "";
    if (!source)
        source = "<json>";

    scan sc = {.s = (const unsigned char *)text, .n = len, .line = 1, .col = 1};
    /* cJSON skips a UTF-8 byte order mark; so do we. */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        sc.i = 3;
    sc_ws(&sc);
    if (sc.i >= sc.n) {
        free(sc.pos);
        return llmmem__error(LLMMEM_E_PARSE, "%s:%d:%d: empty input: a JSON value was expected",
                             source, sc.line, sc.col);
    }
    if (sc_value(&sc) == 0) {
        sc_ws(&sc);
        if (sc.i < sc.n)
            sc_unexpected(&sc, "text after the end of the JSON value");
    }
    if (sc.err) {
        int st = sc.nomem ? LLMMEM_E_NOMEM : LLMMEM_E_PARSE;
        llmmem__error(st, "%s:%d:%d: %s", source, sc.err_line, sc.err_col, sc.err);
        free(sc.pos);
        return st;
    }

    llmmem__json *doc = calloc(1, sizeof *doc);
    size_t slen = strlen(source);
    char *src = malloc(slen + 1);
    char *raw = malloc(len + 1);
    if (!doc || !src || !raw) {
        free(doc);
        free(src);
        free(raw);
        free(sc.pos);
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", source);
    }
    memcpy(src, source, slen + 1);
    memcpy(raw, text, len);
    raw[len] = '\0';
    doc->source = src;
    doc->raw = raw;
    doc->raw_len = len;
    doc->pos = sc.pos;
    doc->npos = sc.npos;

    const char *end = NULL;
    doc->root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!doc->root) {
        /* The scan accepted the text, so this is cJSON running out of memory
         * (or a syntax detail the two disagree on): report where cJSON stopped. */
        int line = 1, col = 1;
        const char *stop = end && end >= text && end <= text + len ? end : text;
        for (const char *p = text; p < stop; p++) {
            if (*p == '\n') {
                line++;
                col = 1;
            } else if (((unsigned char)*p & 0xC0) != 0x80) {
                col++;
            }
        }
        llmmem__json_free(doc);
        return llmmem__error(LLMMEM_E_PARSE, "%s:%d:%d: cJSON could not build the document "
                             "(out of memory?)", source, line, col);
    }
    size_t k = 0;
    if (zip(doc->root, doc->pos, doc->npos, &k) || k != doc->npos) {
        llmmem__json_free(doc);
        return llmmem__error(LLMMEM_E_INTERNAL, "%s: JSON position table out of step with cJSON",
                             source);
    }
    *out = doc;
    return 0;
}

const llmmem__jnode *llmmem__json_root(const llmmem__json *doc) { return doc ? doc->root : NULL; }

const char *llmmem__json_source(const llmmem__json *doc) { return doc ? doc->source : ""; }

int llmmem__json_type(const llmmem__jnode *n)
{
    if (!n)
        return LLMMEM__J_INVALID;
    if (cJSON_IsNull(n))
        return LLMMEM__J_NULL;
    if (cJSON_IsBool(n))
        return LLMMEM__J_BOOL;
    if (cJSON_IsNumber(n))
        return LLMMEM__J_NUMBER;
    if (cJSON_IsString(n))
        return LLMMEM__J_STRING;
    if (cJSON_IsArray(n))
        return LLMMEM__J_ARRAY;
    if (cJSON_IsObject(n))
        return LLMMEM__J_OBJECT;
    return LLMMEM__J_INVALID;
}

const llmmem__jnode *llmmem__json_get(const llmmem__jnode *obj, const char *key)
{
    if (!obj || !key || !cJSON_IsObject(obj))
        return NULL;
    /* Case-sensitive, first match, as cJSON_GetObjectItemCaseSensitive; the
     * first-byte test skips most strcmp calls (hfconfig looks up ~100 keys). */
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && c->string[0] == key[0] && strcmp(c->string, key) == 0)
            return c;
    return NULL;
}

const llmmem__jnode *llmmem__json_first(const llmmem__jnode *n)
{
    if (!n || !(cJSON_IsObject(n) || cJSON_IsArray(n)))
        return NULL;
    return n->child;
}

const llmmem__jnode *llmmem__json_next(const llmmem__jnode *n) { return n ? n->next : NULL; }

const char *llmmem__json_key(const llmmem__jnode *n) { return n ? n->string : NULL; }

double llmmem__json_number(const llmmem__jnode *n)
{
    return n && cJSON_IsNumber(n) ? n->valuedouble : 0.0;
}

const char *llmmem__json_string(const llmmem__jnode *n)
{
    return n && cJSON_IsString(n) ? n->valuestring : NULL;
}

bool llmmem__json_true(const llmmem__jnode *n) { return n && cJSON_IsTrue(n); }

int llmmem__json_array_size(const llmmem__jnode *n)
{
    return n && cJSON_IsArray(n) ? cJSON_GetArraySize(n) : 0;
}

static const jpos *find_pos(const llmmem__json *doc, const llmmem__jnode *n)
{
    if (!doc || !n || !doc->pos)
        return NULL;
    /* Positions are only read to report an error: a linear search keeps the
     * successful parse free of sorting. */
    for (size_t i = 0; i < doc->npos; i++)
        if (doc->pos[i].node == n)
            return &doc->pos[i];
    return NULL;
}

void llmmem__json_pos(const llmmem__json *doc, const llmmem__jnode *n, int *line, int *col)
{
    const jpos *p = find_pos(doc, n);
    if (line)
        *line = p ? p->line : 0;
    if (col)
        *col = p ? p->col : 0;
}

/* ---- errors and typed readers --------------------------------------------- */

static int verror_at(const llmmem__json *doc, const llmmem__jnode *n, int status, const char *path,
                     const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const char *src = llmmem__json_source(doc);
    int line, col;
    llmmem__json_pos(doc, n, &line, &col);
    if (line > 0) {
        if (path && *path)
            return llmmem__error(status, "%s:%d:%d: \"%s\": %s", src, line, col, path, msg);
        return llmmem__error(status, "%s:%d:%d: %s", src, line, col, msg);
    }
    if (path && *path)
        return llmmem__error(status, "%s: \"%s\": %s", src, path, msg);
    return llmmem__error(status, "%s: %s", src, msg);
}

int llmmem__json_error_at(const llmmem__json *doc, const llmmem__jnode *n, int status,
                          const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verror_at(doc, n, status, path, fmt, ap);
    va_end(ap);
    return rc;
}

/* The value as written in the source ("abc" with its quotes, 1.5, [...]),
 * shortened to fit `cap`. */
static const char *raw_text(char *buf, size_t cap, const llmmem__json *doc, const llmmem__jnode *n)
{
    const jpos *p = find_pos(doc, n);
    if (!p || !doc->raw || p->off >= doc->raw_len) {
        snprintf(buf, cap, "%s", "a value");
        return buf;
    }
    size_t len = p->len;
    if (p->off + len > doc->raw_len)
        len = doc->raw_len - p->off;
    const char *s = doc->raw + p->off;
    size_t keep = len;
    bool cut = false;
    if (keep > 40) {
        keep = 40;
        cut = true;
    }
    /* stop at the first line break inside the value (objects, arrays) */
    for (size_t j = 0; j < keep; j++) {
        if (s[j] == '\n' || s[j] == '\r') {
            keep = j;
            cut = true;
            break;
        }
    }
    snprintf(buf, cap, "%.*s%s", (int)keep, s, cut ? "..." : "");
    return buf;
}

static int missing(const llmmem__json *doc, const llmmem__jnode *obj, const char *key,
                   const char *path)
{
    return llmmem__json_error_at(doc, obj, LLMMEM_E_SCHEMA, path ? path : key,
                                 "missing required key");
}

/* Looks up obj[key]; returns 1 when present and not null, 0 when absent or
 * null (error if required), negative on error. */
static int lookup(const llmmem__jnode **v, const llmmem__json *doc, const llmmem__jnode *obj,
                  const char *key, const char *path, bool required)
{
    *v = llmmem__json_get(obj, key);
    if (!*v || cJSON_IsNull(*v))
        return required ? missing(doc, obj, key, path) : 0;
    return 1;
}

int llmmem__json_read_i64(int64_t *out, const llmmem__json *doc, const llmmem__jnode *obj,
                          const char *key, const char *path, int64_t lo, int64_t hi, bool required)
{
    const llmmem__jnode *v;
    int rc = lookup(&v, doc, obj, key, path, required);
    if (rc <= 0)
        return rc;
    if (!path)
        path = key;
    char raw[64];
    if (!cJSON_IsNumber(v))
        return llmmem__json_error_at(doc, v, LLMMEM_E_SCHEMA, path,
                                     "expected an integer in [%lld, %lld], got %s", (long long)lo,
                                     (long long)hi, raw_text(raw, sizeof raw, doc, v));
    double d = v->valuedouble;
    if (!isfinite(d) || fabs(d) > JSON_MAX_EXACT)
        return llmmem__json_error_at(doc, v, LLMMEM_E_OUT_OF_RANGE, path,
                                     "expected an integer in [%lld, %lld], got %s (beyond 2^53)",
                                     (long long)lo, (long long)hi,
                                     raw_text(raw, sizeof raw, doc, v));
    if (d != floor(d))
        return llmmem__json_error_at(doc, v, LLMMEM_E_SCHEMA, path,
                                     "expected an integer in [%lld, %lld], got %s", (long long)lo,
                                     (long long)hi, raw_text(raw, sizeof raw, doc, v));
    int64_t i = (int64_t)d;
    if (i < lo || i > hi)
        return llmmem__json_error_at(doc, v, LLMMEM_E_OUT_OF_RANGE, path,
                                     "expected an integer in [%lld, %lld], got %s", (long long)lo,
                                     (long long)hi, raw_text(raw, sizeof raw, doc, v));
    *out = i;
    return 0;
}

int llmmem__json_read_f64(double *out, const llmmem__json *doc, const llmmem__jnode *obj,
                          const char *key, const char *path, double lo, double hi, bool required)
{
    const llmmem__jnode *v;
    int rc = lookup(&v, doc, obj, key, path, required);
    if (rc <= 0)
        return rc;
    if (!path)
        path = key;
    char raw[64];
    if (!cJSON_IsNumber(v))
        return llmmem__json_error_at(doc, v, LLMMEM_E_SCHEMA, path,
                                     "expected a number in [%g, %g], got %s", lo, hi,
                                     raw_text(raw, sizeof raw, doc, v));
    double d = v->valuedouble;
    if (!isfinite(d) || d < lo || d > hi)
        return llmmem__json_error_at(doc, v, LLMMEM_E_OUT_OF_RANGE, path,
                                     "expected a number in [%g, %g], got %s", lo, hi,
                                     raw_text(raw, sizeof raw, doc, v));
    *out = d;
    return 0;
}

int llmmem__json_read_bool(bool *out, const llmmem__json *doc, const llmmem__jnode *obj,
                           const char *key, const char *path, bool required)
{
    const llmmem__jnode *v;
    int rc = lookup(&v, doc, obj, key, path, required);
    if (rc <= 0)
        return rc;
    if (!path)
        path = key;
    char raw[64];
    if (!cJSON_IsBool(v))
        return llmmem__json_error_at(doc, v, LLMMEM_E_SCHEMA, path,
                                     "expected true or false, got %s",
                                     raw_text(raw, sizeof raw, doc, v));
    *out = cJSON_IsTrue(v);
    return 0;
}

int llmmem__json_read_str(char *buf, size_t cap, const llmmem__json *doc, const llmmem__jnode *obj,
                          const char *key, const char *path, bool required)
{
    const llmmem__jnode *v;
    int rc = lookup(&v, doc, obj, key, path, required);
    if (rc <= 0)
        return rc;
    if (!path)
        path = key;
    char raw[64];
    if (!cJSON_IsString(v) || !v->valuestring)
        return llmmem__json_error_at(doc, v, LLMMEM_E_SCHEMA, path, "expected a string, got %s",
                                     raw_text(raw, sizeof raw, doc, v));
    size_t len = strlen(v->valuestring);
    if (!buf || len >= cap)
        return llmmem__json_error_at(doc, v, LLMMEM_E_OUT_OF_RANGE, path,
                                     "string of %zu bytes is longer than the %zu allowed", len,
                                     cap ? cap - 1 : 0);
    memcpy(buf, v->valuestring, len + 1);
    return 0;
}

/* ---- files ---------------------------------------------------------------- */

static int io_error(const char *what, const char *path, int err)
{
    char msg[128];
    /* XSI strerror_r (thread-safe); _POSIX_C_SOURCE=200809L selects it. */
    if (strerror_r(err, msg, sizeof msg) != 0)
        snprintf(msg, sizeof msg, "error %d", err);
    return llmmem__error(LLMMEM_E_IO, "%s \"%s\": %s", what, path, msg);
}

int llmmem__read_file(char **out, size_t *len, const char *path)
{
    if (!out || !path)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem__read_file: NULL argument");
    *out = NULL;
    if (len)
        *len = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return io_error("cannot open", path, errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return io_error("cannot stat", path, e);
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return llmmem__error(LLMMEM_E_IO, "cannot read \"%s\": it is a directory, not a file",
                             path);
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > JSON_MAX_FILE) {
        close(fd);
        return llmmem__error(LLMMEM_E_IO,
                             "cannot read \"%s\": %llu bytes is larger than the %u MiB limit",
                             path, (unsigned long long)st.st_size, JSON_MAX_FILE >> 20);
    }
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 4096;
    size_t n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return llmmem__error(LLMMEM_E_NOMEM, "cannot read \"%s\": out of memory", path);
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > JSON_MAX_FILE) {
                free(buf);
                close(fd);
                return llmmem__error(LLMMEM_E_IO, "cannot read \"%s\": larger than the %u MiB limit",
                                     path, JSON_MAX_FILE >> 20);
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                close(fd);
                return llmmem__error(LLMMEM_E_NOMEM, "cannot read \"%s\": out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            close(fd);
            return io_error("cannot read", path, e);
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return 0;
}
