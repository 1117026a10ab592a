/* JSON layer: the only file that includes cJSON.
 *
 * cJSON builds the tree; it keeps no positions and accepts more than RFC 8259
 * (leading zeros, "1.", raw control characters in strings, any byte <= 0x20
 * as whitespace). So a small strict scanner walks the text first: it
 * validates the syntax, and its failure is the one reported, as
 * "source:line:col: what" (empty and truncated text included). The position of
 * every value is only needed to report a later error (a key of the wrong type,
 * a value out of range), so the table is built on the first such report: a
 * second scan records the offset of every value in pre-order (object members
 * in text order, duplicates included), which is the order of cJSON's tree, and
 * the two are zipped; lines and columns are counted from the offsets then.
 * A successful parse that is never asked for a position pays for one scan
 * without bookkeeping.
 *
 * The document points into the caller's text and source name, which must
 * outlive it (every caller parses, reads and frees within one call). It is
 * never shared between threads, so the lazy table needs no lock.
 *
 * Thread safety: only cJSON_ParseWithLengthOpts (with return_parse_end) and
 * the case-sensitive getters are used; never cJSON_GetErrorPtr or
 * cJSON_InitHooks, which touch globals. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strerror_r, fstat, open */
#endif
#include "input/input.h"

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
    const char *source; /* the caller's: outlives the document */
    const char *text;   /* likewise */
    size_t len, start;  /* start: after a UTF-8 byte order mark */
    jpos *pos;          /* built on the first position asked for (find_pos) */
    size_t npos;
    bool pos_tried;
};

/* ---- strict scanner ------------------------------------------------------ */

typedef struct scan {
    const unsigned char *s;
    size_t n, i;
    bool record; /* record the offset of every value (the position table) */
    jpos *pos;
    size_t npos, cap;
    int depth;
    const char *err; /* static message, NULL while fine */
    char errbuf[64];
    size_t err_off;
} scan;

static inline void sc_adv(scan *sc) { sc->i++; }

/* Advances a line and column (1-based; columns count characters, not UTF-8
 * continuation bytes; a tab is one) over text[from, to). */
static void line_col_step(const char *text, size_t len, size_t from, size_t to, int *line, int *col)
{
    for (size_t i = from; i < to; i++) {
        unsigned char b = (unsigned char)text[i];
        bool crlf = b == '\r' && i + 1 < len && text[i + 1] == '\n';
        if (b == '\n' || (b == '\r' && !crlf)) { /* LF, CR LF or a lone CR end a line */
            ++*line;
            *col = 1;
        } else if (b == '\r') {
            /* the CR of CR LF: the LF ends the line */
        } else if ((b & 0xC0) != 0x80) {
            ++*col;
        }
    }
}

/* Line and column of byte `off`, counting from `from` at line 1, col 1. */
static void line_col(const char *text, size_t len, size_t from, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    line_col_step(text, len, from, off, line, col);
}

static int sc_fail(scan *sc, const char *what)
{
    if (!sc->err) {
        sc->err = what;
        sc->err_off = sc->i;
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
    while (i < sc->n) {
        unsigned char c = sc->s[i];
        if (c != ' ' && c != '\n' && c != '\t' && c != '\r')
            break;
        i++;
    }
    sc->i = i;
}

static int sc_record(scan *sc, size_t *slot)
{
    if (!sc->record) {
        *slot = 0;
        return 0;
    }
    if (sc->npos == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 64;
        jpos *p = realloc(sc->pos, cap * sizeof *p);
        if (!p)
            return sc_fail(sc, "out of memory");
        sc->pos = p;
        sc->cap = cap;
    }
    *slot = sc->npos++;
    sc->pos[*slot] = (jpos){NULL, sc->i, 0, 0, 0};
    return 0;
}

static void sc_close(scan *sc, size_t slot)
{
    if (sc->record)
        sc->pos[slot].len = sc->i - sc->pos[slot].off;
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

/* Eight bytes at a time (SWAR): nonzero when one of them is '"', '\\' or a
 * control character (< 0x20), the bytes that end a plain run in a string.
 * Each test is exact as a whole-word yes/no (Hacker's Delight 6-1). */
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)
static inline uint64_t special8(uint64_t w)
{
    uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');
    return (((q - ONES) & ~q) | ((b - ONES) & ~b) | ((w - ONES * 0x20) & ~w)) & HIGHS;
}

/* At the 'u' of a \\u escape: reads it and its 4 hex digits; the code unit,
 * or -1 with the error set. */
static long sc_hex4(scan *sc)
{
    sc_adv(sc); /* u */
    long v = 0;
    for (int k = 0; k < 4; k++) {
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input inside a string");
        int d = hexval(sc->s[sc->i]);
        if (d < 0)
            return sc_fail(sc, "invalid \\u escape (expected 4 hex digits)");
        v = v * 16 + d;
        sc_adv(sc);
    }
    return v;
}

/* Index (0-7) of the lowest byte whose high bit is set in a nonzero mask, in
 * memory order on a little-endian machine; 0 elsewhere (the byte loop then
 * finds it). */
static inline int first_byte(uint64_t m)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
    return __builtin_ctzll(m) >> 3;
#else
    (void)m;
    return 0;
#endif
}

/* Skips the plain bytes of a string (no quote, backslash or control byte):
 * whole words while no byte ends the run, then bytes. */
static void sc_plain_run(scan *sc)
{
    size_t i = sc->i;
    while (i + 8 <= sc->n) {
        uint64_t w;
        memcpy(&w, sc->s + i, sizeof w);
        uint64_t m = special8(w);
        if (m) {
            /* the lowest flagged byte is exact (borrows only run
             * upwards); little-endian: the first in the text */
            i += (size_t)first_byte(m);
            break;
        }
        i += 8;
    }
    while (i < sc->n && sc->s[i] >= 0x20 && sc->s[i] != '"' && sc->s[i] != '\\')
        i++;
    sc->i = i;
}

/* At the 'u' of a \\u escape (the backslash at `at`): the escape, and the
 * low half that must follow a high surrogate. UTF-16 surrogates must pair
 * (cJSON refuses a lone one): D800-DBFF, then \\u DC00-DFFF. */
static int sc_unicode_escape(scan *sc, size_t at)
{
    long u = sc_hex4(sc);
    if (u < 0)
        return -1;
    if (u == 0) {
        /* cJSON would end the string there ("adamw\u0000x" read as "adamw") */
        sc->i = at;
        return sc_fail(sc, "\\u0000 (NUL) inside a string is not accepted");
    }
    if (u >= 0xDC00 && u <= 0xDFFF) {
        sc->i = at;
        return sc_fail(sc, "invalid \\u escape: a lone low surrogate (DC00-DFFF)");
    }
    if (u >= 0xD800 && u <= 0xDBFF) {
        long lo = -1;
        if (sc->i + 1 < sc->n && sc->s[sc->i] == '\\' && sc->s[sc->i + 1] == 'u') {
            sc->i += 1;
            lo = sc_hex4(sc);
            if (lo < 0)
                return -1;
        }
        if (lo < 0xDC00 || lo > 0xDFFF) {
            sc->i = at;
            return sc_fail(sc, "invalid \\u escape: a high surrogate (D800-DBFF) not "
                               "followed by a \\u low surrogate");
        }
    }
    return 0;
}

static int sc_string(scan *sc)
{
    sc_adv(sc); /* opening quote */
    for (;;) {
        sc_plain_run(sc);
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input inside a string");
        unsigned char c = sc->s[sc->i];
        if (c == '"') {
            sc_adv(sc);
            return 0;
        }
        if (c < 0x20)
            return sc_fail(sc, "control character inside a string (escape it)");
        /* c == '\\' */
        sc_adv(sc);
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input inside a string");
        c = sc->s[sc->i];
        if (c == 'u') {
            if (sc_unicode_escape(sc, sc->i - 1) < 0)
                return -1;
            continue;
        }
        if (!strchr("\"\\/bfnrt", c) || c == 0)
            return sc_fail(sc, "invalid escape sequence in a string");
        sc_adv(sc);
    }
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* A run of ASCII digits. */
static void sc_digits(scan *sc)
{
    size_t i = sc->i;
    while (i < sc->n && sc->s[i] >= '0' && sc->s[i] <= '9')
        i++;
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
    sc_close(sc, slot);
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
        sc_close(sc, slot);
    return rc;
}

/* ---- document ------------------------------------------------------------ */

void llmmem__json_free(llmmem__json *doc)
{
    if (!doc)
        return;
    cJSON_Delete(doc->root);
    free(doc->pos);
    free(doc);
}

/* The strict scan of text[start, len): 0, or -1 with sc->err set. */
static int strict_scan(scan *sc)
{
    sc_ws(sc);
    if (sc->i >= sc->n)
        return sc_fail(sc, "empty input: a JSON value was expected");
    if (sc_value(sc) == 0) {
        sc_ws(sc);
        if (sc->i < sc->n)
            sc_unexpected(sc, "text after the end of the JSON value");
    }
    return sc->err ? -1 : 0;
}

/* ---- duplicate keys ------------------------------------------------------ */

/* A key written twice in one object is an error in every reader: Python's json
 * (hence transformers) keeps the last, DeepSpeed refuses it, and either way one
 * of the two values would be silently lost. Linear time: small objects compare
 * pairwise, larger ones go through a hash table of their keys. */

typedef struct dupkey {
    const cJSON *first, *second;
    char path[256];
} dupkey;

static uint64_t key_hash(const char *k)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *k; k++)
        h = (h ^ (unsigned char)*k) * UINT64_C(1099511628211);
    return h;
}

/* The first repeated key among the members of obj (n of them); -1 on NOMEM. */
static int find_dup(const cJSON *obj, size_t n, dupkey *d)
{
    if (n <= 8) {
        for (const cJSON *m = obj->child; m; m = m->next)
            for (const cJSON *e = obj->child; e != m; e = e->next)
                if (!strcmp(e->string, m->string)) {
                    d->first = e, d->second = m;
                    return 1;
                }
        return 0;
    }
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    const cJSON **slot = calloc(cap, sizeof *slot);
    if (!slot)
        return -1;
    int found = 0;
    for (const cJSON *m = obj->child; m && !found; m = m->next) {
        size_t i = (size_t)key_hash(m->string) & (cap - 1);
        while (slot[i] && strcmp(slot[i]->string, m->string))
            i = (i + 1) & (cap - 1);
        if (slot[i]) {
            d->first = slot[i], d->second = m;
            found = 1;
        }
        slot[i] = m;
    }
    free(slot);
    return found;
}

static size_t path_push(char *path, size_t at, const char *key)
{
    int w = snprintf(path + at, 256 - at, at ? ".%s" : "%s", key);
    return w < 0 || (size_t)w >= 256 - at ? 255 : at + (size_t)w;
}

static int dup_walk(const cJSON *n, dupkey *d, size_t at)
{
    size_t count = 0;
    for (const cJSON *c = n->child; c; c = c->next)
        count++;
    if (cJSON_IsObject(n)) {
        int r = find_dup(n, count, d);
        if (r) {
            if (r > 0)
                path_push(d->path, at, d->second->string);
            return r;
        }
    }
    for (const cJSON *c = n->child; c; c = c->next) {
        if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
            continue;
        size_t next = cJSON_IsObject(n) ? path_push(d->path, at, c->string) : at;
        int r = dup_walk(c, d, next);
        if (r)
            return r;
        d->path[at] = '\0';
    }
    return 0;
}

static int check_duplicates(const llmmem__json *doc)
{
    dupkey d = {.first = NULL, .second = NULL, .path = ""};
    int r = dup_walk(doc->root, &d, 0);
    if (r < 0)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", doc->source);
    if (r == 0)
        return 0;
    int line, col;
    llmmem__json_pos(doc, d.first, &line, &col);
    return llmmem__json_error_at(doc, d.second, LLMMEM_E_SCHEMA, d.path, "duplicate key (first at %d:%d)", line,
                                 col);
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

    /* cJSON skips a UTF-8 byte order mark; so do we (columns count from after it). */
    size_t start = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    scan sc = {.s = (const unsigned char *)text, .n = len, .i = start};
    if (strict_scan(&sc)) {
        int line, col;
        line_col(text, len, start, sc.err_off, &line, &col);
        return llmmem__error(LLMMEM_E_PARSE, "%s:%d:%d: %s", source, line, col, sc.err);
    }

    llmmem__json *doc = calloc(1, sizeof *doc);
    if (!doc)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", source);
    doc->source = source;
    doc->text = text;
    doc->len = len;
    doc->start = start;

    const char *end = NULL;
    doc->root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!doc->root) {
        /* The scan accepted the text, so this is cJSON running out of memory
         * (or a detail the two disagree on): report where cJSON stopped. */
        int line, col;
        const char *stop = end && end >= text && end <= text + len ? end : text;
        line_col(text, len, start, (size_t)(stop - text) > start ? (size_t)(stop - text) : start, &line, &col);
        llmmem__json_free(doc);
        return llmmem__error(LLMMEM_E_PARSE, "%s:%d:%d: cJSON could not build the document "
                             "(out of memory?)", source, line, col);
    }
    int rc = check_duplicates(doc);
    if (rc) {
        llmmem__json_free(doc);
        return rc;
    }
    *out = doc;
    return 0;
}

/* ---- documents built from YAML (yaml.c) -------------------------------------- */

/* A plain YAML scalar by the core schema's rules: null, bool, a number when
 * the whole text parses as one (YAML 1.2 and the 1.1 forms PyYAML and
 * OmegaConf accept, "2e-5" included), else a string. */
static cJSON *yaml_scalar(const llmmem__ynode *y)
{
    const char *t = y->text;
    if (!y->plain)
        return cJSON_CreateString(t);
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
    static const char *const trues[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
    static const char *const falses[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++)
        if (!strcmp(t, nulls[i]))
            return cJSON_CreateNull();
    for (size_t i = 0; i < sizeof trues / sizeof *trues; i++)
        if (!strcmp(t, trues[i]))
            return cJSON_CreateTrue();
    for (size_t i = 0; i < sizeof falses / sizeof *falses; i++)
        if (!strcmp(t, falses[i]))
            return cJSON_CreateFalse();
    /* a number: digits with an optional sign, point and exponent; no hex,
     * no leading '+' inf/nan forms */
    const char *p = t;
    if (*p == '-' || *p == '+')
        p++;
    bool digits = false, ok = true;
    while (*p >= '0' && *p <= '9') {
        p++;
        digits = true;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            p++;
            digits = true;
        }
    }
    if (digits && (*p == 'e' || *p == 'E')) {
        p++;
        if (*p == '-' || *p == '+')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            ok = false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (digits && ok && *p == '\0') {
        char *end;
        errno = 0;
        double v = strtod(t, &end);
        if (*end == '\0' && errno != ERANGE && isfinite(v))
            return cJSON_CreateNumber(v);
    }
    return cJSON_CreateString(t);
}

/* Builds the cJSON tree and the position table in pre-order (the order
 * find_pos and zip use). */
static cJSON *yaml_build(const llmmem__ynode *y, jpos *pos, size_t *k)
{
    cJSON *n;
    if (y->kind == LLMMEM__Y_SCALAR)
        n = yaml_scalar(y);
    else
        n = y->kind == LLMMEM__Y_MAP ? cJSON_CreateObject() : cJSON_CreateArray();
    if (!n)
        return NULL;
    pos[*k] = (jpos){n, y->off, y->len, y->line, y->col};
    (*k)++;
    for (const llmmem__ynode *c = y->child; c; c = c->next) {
        cJSON *v = yaml_build(c, pos, k);
        if (!v) {
            cJSON_Delete(n);
            return NULL;
        }
        if (y->kind == LLMMEM__Y_MAP)
            cJSON_AddItemToObject(n, c->key, v);
        else
            cJSON_AddItemToArray(n, v);
    }
    return n;
}

static size_t yaml_count(const llmmem__ynode *y)
{
    size_t n = 1;
    for (const llmmem__ynode *c = y->child; c; c = c->next)
        n += yaml_count(c);
    return n;
}

int llmmem__json_from_yaml(llmmem__json **out, const llmmem__ynode *root, const char *text, size_t len,
                           const char *source)
{
    if (!out || !root)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem__json_from_yaml: NULL argument");
    *out = NULL;
    llmmem__json *doc = calloc(1, sizeof *doc);
    size_t npos = yaml_count(root);
    jpos *pos = doc ? calloc(npos, sizeof *pos) : NULL;
    if (!pos) {
        free(doc);
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", source);
    }
    size_t k = 0;
    doc->root = yaml_build(root, pos, &k);
    if (!doc->root) {
        free(pos);
        free(doc);
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", source);
    }
    doc->source = source;
    doc->text = text;
    doc->len = len;
    doc->pos = pos;
    doc->npos = k;
    doc->pos_tried = true;
    *out = doc;
    return 0;
}

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

/* The position table, built once: a recording scan (of text the first scan
 * accepted), zipped with the tree; lines and columns in one pass over the
 * offsets, which pre-order keeps ascending. NULL when out of memory. */
static const jpos *positions(const llmmem__json *cdoc)
{
    llmmem__json *doc = (llmmem__json *)cdoc; /* the lazy cache; see the top */
    if (doc->pos_tried)
        return doc->pos;
    doc->pos_tried = true;
    scan sc = {.s = (const unsigned char *)doc->text, .n = doc->len, .i = doc->start, .record = true};
    size_t k = 0;
    if (strict_scan(&sc) || zip(doc->root, sc.pos, sc.npos, &k) || k != sc.npos) {
        free(sc.pos);
        return NULL;
    }
    int line = 1, col = 1;
    size_t at = doc->start;
    for (size_t i = 0; i < sc.npos; i++) {
        line_col_step(doc->text, doc->len, at, sc.pos[i].off, &line, &col);
        at = sc.pos[i].off;
        sc.pos[i].line = line;
        sc.pos[i].col = col;
    }
    doc->pos = sc.pos;
    doc->npos = sc.npos;
    return doc->pos;
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
    if (!doc || !n || !positions(doc))
        return NULL;
    /* Positions are only read to report an error: a linear search. */
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
    if (!p || p->off >= doc->len) {
        snprintf(buf, cap, "%s", "a value");
        return buf;
    }
    size_t len = p->len;
    if (p->off + len > doc->len)
        len = doc->len - p->off;
    const char *s = doc->text + p->off;
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
    *v = key ? llmmem__json_get(obj, key) : obj; /* no key: obj is the value */
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

/* Opens a regular file for reading; *cap: the buffer to start with, the
 * file's size + 1. Only regular files are read: a directory, a FIFO (whose
 * reader would wait for a writer forever), a device or a socket is refused,
 * and so is a file over the limit. O_NONBLOCK keeps open() itself from
 * waiting on a FIFO; it is cleared before reading. */
static int open_for_read(int *fd_out, size_t *cap, const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
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
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return llmmem__error(LLMMEM_E_IO, "cannot read \"%s\": not a regular file (%s)", path,
                             S_ISFIFO(st.st_mode)  ? "a FIFO"
                             : S_ISCHR(st.st_mode) ? "a character device"
                             : S_ISBLK(st.st_mode) ? "a block device"
                             : S_ISSOCK(st.st_mode) ? "a socket"
                                                    : "not a file");
    }
    if ((uint64_t)st.st_size > JSON_MAX_FILE) {
        close(fd);
        return llmmem__error(LLMMEM_E_IO,
                             "cannot read \"%s\": %llu bytes is larger than the %u MiB limit",
                             path, (unsigned long long)st.st_size, JSON_MAX_FILE >> 20);
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    *cap = (size_t)st.st_size + 1;
    *fd_out = fd;
    return 0;
}

/* Doubles *buf (capacity *cap) up to the limit; frees it on failure. */
static int grow(char **buf, size_t *cap, const char *path)
{
    if (*cap > JSON_MAX_FILE) {
        free(*buf);
        return llmmem__error(LLMMEM_E_IO, "cannot read \"%s\": larger than the %u MiB limit", path,
                             JSON_MAX_FILE >> 20);
    }
    char *nb = realloc(*buf, *cap * 2);
    if (!nb) {
        free(*buf);
        return llmmem__error(LLMMEM_E_NOMEM, "cannot read \"%s\": out of memory", path);
    }
    *buf = nb;
    *cap *= 2;
    return 0;
}

/* Reads fd to its end into a NUL-terminated buffer; closes fd. */
static int read_all(char **out, size_t *len, int fd, size_t cap, const char *path)
{
    size_t n = 0;
    char *buf = malloc(cap);
    int rc = buf ? 0 : llmmem__error(LLMMEM_E_NOMEM, "cannot read \"%s\": out of memory", path);
    while (rc == 0) {
        if (n + 1 >= cap && (rc = grow(&buf, &cap, path)) != 0)
            break;
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = io_error("cannot read", path, errno);
            free(buf);
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (rc)
        return rc;
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

int llmmem__read_file(char **out, size_t *len, const char *path)
{
    if (!out || !path)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem__read_file: NULL argument");
    *out = NULL;
    if (len)
        *len = 0;
    int fd = -1;
    size_t cap = 0, n = 0;
    int rc = open_for_read(&fd, &cap, path);
    if (rc == 0)
        rc = read_all(out, &n, fd, cap, path);
    if (rc == 0 && len)
        *len = n;
    return rc;
}
