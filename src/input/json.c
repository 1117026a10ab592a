/* JSON layer: the only file that includes cJSON.
 *
 * The readers walk cJSON's node type. A parse builds that tree itself, in one
 * pass of a strict scanner over the text: cJSON's own parser accepts more
 * than RFC 8259 (leading zeros, "1.", raw control characters in strings, any
 * byte <= 0x20 as whitespace), keeps no positions and makes a malloc per node
 * and per string. The scanner validates the syntax, and its failure is the
 * one reported, as "source:line:col: what" (empty and truncated text
 * included); on the way it lays the nodes out in one arena, each beside the
 * offset and length of its value in the text, and the decoded strings in one
 * buffer. Lines and columns are counted from an offset only when an error is
 * reported. Objects of more than 8 members get a hash table of their names,
 * which the duplicate check fills and member lookups use. Nodes hold what
 * cJSON's parser would put there: the same types, strings decoded the same
 * way (\u escapes as UTF-8, surrogate pairs joined), numbers by strtod on the
 * number's text with the locale's decimal point (cJSON's parse_number), an
 * integer of at most 15 digits exactly without it.
 *
 * Documents built from YAML (yaml.c) are laid out the same way, with the
 * positions libyaml reported.
 *
 * The document points into the caller's text and source name, which must
 * outlive it (every caller parses, reads and frees within one call). It is
 * never shared between threads.
 *
 * Thread safety: of cJSON, only the node type and its type tests are used;
 * never cJSON_GetErrorPtr or cJSON_InitHooks, which touch globals. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strerror_r, fstat, open */
#endif
#include "input/input.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
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

/* A node of a parsed document: cJSON's node, where its value is in the text,
 * the hash of its member name, and for a large object the table of its
 * members by name. Nodes and tables live in the document's arena. */
typedef struct jnode {
    cJSON c; /* first: a jnode is read through its cJSON */
    uint32_t off, len; /* the value's text */
    uint64_t hash;     /* of c.string (members of an object) */
    const struct jnode **index; /* objects of more than 8 members: slots by name hash */
    uint32_t mask;     /* the index's slots - 1 */
    int line, col;     /* a YAML document's (a parsed one counts them from off) */
} jnode;

typedef struct chunk { /* one block of the arena */
    struct chunk *next;
    size_t cap, used;
    max_align_t data[];
} chunk;

struct llmmem__json {
    cJSON *root;
    const char *source; /* the caller's: outlives the document */
    const char *text;   /* likewise */
    size_t len, start;  /* start: after a UTF-8 byte order mark */
    chunk *arena;       /* the nodes, tables (and a YAML document's strings) */
    char *chars;        /* a parsed document's decoded strings */
    bool yaml;          /* built from YAML: the nodes hold their line and column */
};

/* A node's type as cJSON_Is* test it (the low byte of `type`), inline. */
#define JT(c, t) (((c)->type & 0xFF) == (t))
#define JT_OBJ(c) JT(c, cJSON_Object)
#define JT_ARR(c) JT(c, cJSON_Array)
#define JT_NULL(c) JT(c, cJSON_NULL)
#define JT_NUM(c) JT(c, cJSON_Number)
#define JT_STR(c) JT(c, cJSON_String)
#define JT_TRUE(c) JT(c, cJSON_True)
#define JT_BOOL(c) (JT(c, cJSON_True) || JT(c, cJSON_False))

/* ---- arena ----------------------------------------------------------------- */

/* A new block of the arena for `bytes`, or NULL. */
static chunk *arena_grow(chunk **head, size_t bytes, size_t first)
{
    chunk *c = *head;
    size_t cap = c ? 2 * c->cap : first;
    while (cap < bytes)
        cap *= 2;
    chunk *nc = malloc(sizeof *nc + cap);
    if (!nc)
        return NULL;
    nc->next = c;
    nc->cap = cap;
    nc->used = 0;
    *head = nc;
    return nc;
}

/* `bytes` from the arena (aligned for any type), or NULL. */
static inline void *arena_get(chunk **head, size_t bytes, size_t first)
{
    bytes = (bytes + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    chunk *c = *head;
    if (!c || c->cap - c->used < bytes) {
        if (!(c = arena_grow(head, bytes, first)))
            return NULL;
    }
    void *p = (char *)c->data + c->used;
    c->used += bytes;
    return p;
}

static void arena_free(chunk *c)
{
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JSON_LE 1
#else
#define JSON_LE 0
#endif

/* Hash of a member name of n bytes, a word at a time (the last word's bytes
 * in little-endian order). `padded`: the name is in the document's buffer,
 * whose room past every string lets the last word be read whole. */
static inline uint64_t name_hash(const char *k, size_t n, bool padded)
{
    uint64_t h = UINT64_C(0x9E3779B97F4A7C15) ^ n;
    for (; n >= 8; k += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, k, sizeof w);
        h = (h ^ w) * UINT64_C(0xBF58476D1CE4E5B9);
        h ^= h >> 31;
    }
    uint64_t w = 0;
    if (padded && JSON_LE) {
        memcpy(&w, k, sizeof w);
        w &= n ? ~UINT64_C(0) >> (64 - 8 * n) : 0;
    } else {
        for (size_t j = 0; j < n; j++)
            w |= (uint64_t)(unsigned char)k[j] << (8 * j);
    }
    h = (h ^ w) * UINT64_C(0x94D049BB133111EB);
    return h ^ (h >> 29);
}

/* ---- strict scanner ------------------------------------------------------ */

typedef struct scan {
    const unsigned char *s;
    size_t n, i;
    int depth;
    const char *err; /* static message, NULL while fine */
    char errbuf[64];
    size_t err_off;
    bool nomem;     /* the arena could not grow */
    chunk **arena;  /* where the nodes go */
    size_t first;   /* size of the arena's first block */
    char *out;      /* where the next decoded string goes */
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

/* RFC 8259's whitespace: space, tab, LF, CR. */
static const unsigned char ws_byte[256] = {['\t'] = 1, ['\n'] = 1, ['\r'] = 1, [' '] = 1};

static inline void sc_ws(scan *sc)
{
    size_t i = sc->i;
    const size_t n = sc->n;
    const unsigned char *s = sc->s;
    if (i < n && s[i] > ' ')
        return; /* no whitespace: most calls */
    while (i < n && ws_byte[s[i]])
        i++;
    sc->i = i;
}

/* A node for the value at sc->i, of cJSON type `type`; NULL when out of memory. */
static jnode *sc_node(scan *sc, int type)
{
    jnode *j = arena_get(sc->arena, sizeof *j, sc->first);
    if (!j) {
        sc->nomem = true;
        sc_fail(sc, "out of memory");
        return NULL;
    }
    memset(&j->c, 0, sizeof j->c);
    j->c.type = type;
    j->off = sc->i;
    j->len = 0;
    j->hash = 0;
    j->index = NULL;
    j->mask = 0;
    j->line = j->col = 0;
    return j;
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

/* At the 'u' of a \\u escape (the backslash at `at`): the escape, and the
 * low half that must follow a high surrogate, into *cp (the code point).
 * UTF-16 surrogates must pair (cJSON refuses a lone one): D800-DBFF, then
 * \\u DC00-DFFF. */
static int sc_unicode_escape(scan *sc, size_t at, long *cp)
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
        u = 0x10000 + (((u & 0x3FF) << 10) | (lo & 0x3FF));
    }
    *cp = u;
    return 0;
}

/* A code point as UTF-8 at o (cJSON's utf16_literal_to_utf8); past it. */
static char *put_utf8(char *o, long cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xC0 | (cp >> 6));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | (cp >> 12));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (cp >> 18));
        *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    }
    return o;
}

/* A string, decoded into the document's buffer: *out its text, *len its
 * bytes. Each string takes at most its quoted length there, NUL included;
 * plain bytes are copied a word at a time (the buffer has a word of room
 * past the last string). */
static int sc_string(scan *sc, char **out, size_t *len)
{
    const unsigned char *s = sc->s;
    const size_t n = sc->n;
    size_t i = sc->i + 1; /* after the opening quote */
    char *o = sc->out, *start = o;
    for (;;) {
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, sizeof w);
            memcpy(o, &w, sizeof w);
            uint64_t m = special8(w);
            if (m) {
                /* the lowest flagged byte is exact (borrows only run
                 * upwards); little-endian: the first in the text */
                size_t k = (size_t)first_byte(m);
                i += k;
                o += k;
                break;
            }
            i += 8;
            o += 8;
        }
        while (i < n && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\')
            *o++ = (char)s[i++];
        sc->i = i;
        if (i >= n)
            return sc_fail(sc, "unexpected end of input inside a string");
        unsigned char c = s[i];
        if (c == '"') {
            sc->i = i + 1;
            *o++ = '\0';
            sc->out = o;
            *out = start;
            *len = (size_t)(o - start - 1);
            return 0;
        }
        if (c < 0x20)
            return sc_fail(sc, "control character inside a string (escape it)");
        /* c == '\\' */
        sc->i = ++i;
        if (i >= n)
            return sc_fail(sc, "unexpected end of input inside a string");
        c = s[i];
        if (c == 'u') {
            long cp;
            if (sc_unicode_escape(sc, i - 1, &cp) < 0)
                return -1;
            o = put_utf8(o, cp);
            i = sc->i;
            continue;
        }
        static const char esc[] = "\"\\/bfnrt", val[] = "\"\\/\b\f\n\r\t";
        const char *e = c ? strchr(esc, c) : NULL;
        if (!e)
            return sc_fail(sc, "invalid escape sequence in a string");
        *o++ = val[e - esc];
        sc->i = ++i;
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

/* The value of a number's text t[0, n), as cJSON's parse_number makes it:
 * strtod over a copy with '.' as the locale's decimal point; an integer of
 * at most 15 digits (exact in a double) without it. */
static int number_value(scan *sc, jnode *j, const unsigned char *t, size_t n)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    /* Clinger's fast path: at most 15 significant digits m (exact in a
     * double) scaled by 10^e with |e| <= 22 (exact too) is one correctly
     * rounded multiplication or division, which is what strtod returns */
    const bool neg = t[0] == '-';
    size_t k = neg;
    uint64_t m = 0;
    int digits = 0, e = 0;
    bool point = false;
    for (; k < n && (is_digit(t[k]) || (t[k] == '.' && !point)); k++) {
        if (t[k] == '.') {
            point = true;
            continue;
        }
        e -= point;
        if (m || t[k] != '0') { /* a significant digit (leading zeros are not) */
            if (++digits <= 15)
                m = m * 10 + (uint64_t)(t[k] - '0');
        }
    }
    if (k < n && (t[k] == 'e' || t[k] == 'E')) {
        k++;
        const bool eneg = k < n && t[k] == '-';
        k += k < n && (t[k] == '-' || t[k] == '+');
        int x = 0;
        for (; k < n && is_digit(t[k]) && x < 10000; k++)
            x = x * 10 + (t[k] - '0');
        if (k < n) /* a longer exponent: strtod */
            digits = 99;
        e += eneg ? -x : x;
    }
    double v;
    if (digits <= 15 && e >= -22 && e <= 22) {
        v = e < 0 ? (double)m / p10[-e] : (double)m * p10[e];
        if (neg)
            v = -v;
    } else {
        char small[64], *b = n < sizeof small ? small : malloc(n + 1);
        if (!b) {
            sc->nomem = true;
            return sc_fail(sc, "out of memory");
        }
        const char dp = localeconv()->decimal_point[0];
        for (size_t i = 0; i < n; i++)
            b[i] = t[i] == '.' ? dp : (char)t[i];
        b[n] = '\0';
        v = strtod(b, NULL);
        if (b != small)
            free(b);
    }
    j->c.valuedouble = v;
    j->c.valueint = v >= INT_MAX ? INT_MAX : v <= (double)INT_MIN ? INT_MIN : (int)v;
    return 0;
}

static int sc_literal(scan *sc, const char *word, size_t k)
{
    /* true, null (4 bytes), false (5): a word compare, the fifth byte apart */
    if (sc->n - sc->i >= k) {
        uint32_t a, b;
        memcpy(&a, sc->s + sc->i, 4);
        memcpy(&b, word, 4);
        if (a == b && (k == 4 || sc->s[sc->i + 4] == (unsigned char)word[4])) {
            sc->i += k;
            return 0;
        }
    }
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

static jnode *sc_value(scan *sc);

/* Ends a container: its text's length, cJSON's link from the first child
 * back to the last. */
static int sc_container_end(scan *sc, jnode *j, jnode *last)
{
    j->len = sc->i - j->off;
    if (last)
        j->c.child->prev = &last->c;
    sc->depth--;
    return 0;
}

static void sc_link(jnode *parent, jnode **last, jnode *v, uint32_t *count)
{
    if (*last) {
        (*last)->c.next = &v->c;
        v->c.prev = &(*last)->c;
    } else {
        parent->c.child = &v->c;
    }
    *last = v;
    ++*count;
}

static int sc_object(scan *sc, jnode *obj)
{
    sc_adv(sc); /* { */
    sc_ws(sc);
    if (sc->i < sc->n && sc->s[sc->i] == '}') {
        sc_adv(sc);
        return sc_container_end(sc, obj, NULL);
    }
    jnode *last = NULL;
    uint32_t count = 0;
    for (;;) {
        sc_ws(sc);
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input: object not closed");
        if (sc->s[sc->i] != '"')
            return sc_unexpected(sc, "expected a member name in double quotes");
        char *key;
        size_t klen;
        if (sc_string(sc, &key, &klen))
            return -1;
        sc_ws(sc);
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input: expected ':'");
        if (sc->s[sc->i] != ':')
            return sc_unexpected(sc, "expected ':' after a member name");
        sc_adv(sc);
        jnode *v = sc_value(sc);
        if (!v)
            return -1;
        v->c.string = key;
        v->hash = name_hash(key, klen, true);
        sc_link(obj, &last, v, &count);
        obj->mask = count; /* the member count until the index is made */
        sc_ws(sc);
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input: object not closed");
        if (sc->s[sc->i] == ',') {
            sc_adv(sc);
            continue;
        }
        if (sc->s[sc->i] == '}') {
            sc_adv(sc);
            return sc_container_end(sc, obj, last);
        }
        return sc_unexpected(sc, "expected ',' or '}'");
    }
}

static int sc_array(scan *sc, jnode *arr)
{
    sc_adv(sc); /* [ */
    sc_ws(sc);
    if (sc->i < sc->n && sc->s[sc->i] == ']') {
        sc_adv(sc);
        return sc_container_end(sc, arr, NULL);
    }
    jnode *last = NULL;
    uint32_t count = 0;
    for (;;) {
        jnode *v = sc_value(sc);
        if (!v)
            return -1;
        sc_link(arr, &last, v, &count);
        sc_ws(sc);
        if (sc->i >= sc->n)
            return sc_fail(sc, "unexpected end of input: array not closed");
        if (sc->s[sc->i] == ',') {
            sc_adv(sc);
            continue;
        }
        if (sc->s[sc->i] == ']') {
            sc_adv(sc);
            return sc_container_end(sc, arr, last);
        }
        return sc_unexpected(sc, "expected ',' or ']'");
    }
}

/* The value at sc->i as a node, or NULL with the error set. */
static jnode *sc_value(scan *sc)
{
    sc_ws(sc);
    if (sc->i >= sc->n) {
        sc_fail(sc, "unexpected end of input: a value was expected");
        return NULL;
    }
    unsigned char c = sc->s[sc->i];
    jnode *j;
    int rc;
    const size_t at = sc->i;
    switch (c) {
    case '{':
    case '[':
        if (!(j = sc_node(sc, c == '{' ? cJSON_Object : cJSON_Array)))
            return NULL;
        if (++sc->depth > JSON_MAX_DEPTH) {
            sc_fail(sc, "nesting deeper than 512 levels");
            return NULL;
        }
        return (c == '{' ? sc_object(sc, j) : sc_array(sc, j)) ? NULL : j;
    case '"':
        if (!(j = sc_node(sc, cJSON_String)))
            return NULL;
        {
            size_t len;
            rc = sc_string(sc, &j->c.valuestring, &len);
        }
        break;
    case 't':
        if (!(j = sc_node(sc, cJSON_True)))
            return NULL;
        j->c.valueint = 1;
        rc = sc_literal(sc, "true", 4);
        break;
    case 'f':
        if (!(j = sc_node(sc, cJSON_False)))
            return NULL;
        rc = sc_literal(sc, "false", 5);
        break;
    case 'n':
        if (!(j = sc_node(sc, cJSON_NULL)))
            return NULL;
        rc = sc_literal(sc, "null", 4);
        break;
    default:
        if (c == '-' || is_digit(c)) {
            if (!(j = sc_node(sc, cJSON_Number)))
                return NULL;
            rc = sc_number(sc);
            if (rc == 0)
                rc = number_value(sc, j, sc->s + at, sc->i - at);
        } else {
            sc_unexpected(sc, "a value was expected");
            return NULL;
        }
        break;
    }
    if (rc)
        return NULL;
    j->len = sc->i - j->off;
    return j;
}

/* ---- document ------------------------------------------------------------ */

void llmmem__json_free(llmmem__json *doc)
{
    if (!doc)
        return;
    arena_free(doc->arena);
    free(doc->chars);
    free(doc);
}

/* The strict scan of text[start, len) into the tree: its root, or NULL with
 * sc->err set. */
static jnode *strict_scan(scan *sc)
{
    sc_ws(sc);
    if (sc->i >= sc->n) {
        sc_fail(sc, "empty input: a JSON value was expected");
        return NULL;
    }
    jnode *root = sc_value(sc);
    if (root) {
        sc_ws(sc);
        if (sc->i < sc->n)
            sc_unexpected(sc, "text after the end of the JSON value");
    }
    return sc->err ? NULL : root;
}

/* ---- duplicate keys ------------------------------------------------------ */

/* A key written twice in one object is an error in every reader: Python's json
 * (hence transformers) keeps the last, DeepSpeed refuses it, and either way one
 * of the two values would be silently lost. Linear time: small objects compare
 * pairwise, larger ones go through a hash table of their members' names, which
 * stays with the object for llmmem__json_get. Objects are checked in
 * pre-order, each before what it contains; the error names the key path. */

typedef struct dupkey {
    const cJSON *first, *second;
    const char *keys[JSON_MAX_DEPTH + 2]; /* the member names down to the object */
    int depth;
} dupkey;

static inline const jnode *jn_of(const cJSON *c) { return (const jnode *)(const void *)c; }

/* The first repeated key among the members of obj; -1 on NOMEM. */
static int find_dup(jnode *obj, chunk **arena, size_t first, dupkey *d)
{
    const uint32_t n = obj->mask;
    if (n <= 8) {
        for (const cJSON *m = obj->c.child; m; m = m->next)
            for (const cJSON *e = obj->c.child; e != m; e = e->next)
                if (jn_of(e)->hash == jn_of(m)->hash && !strcmp(e->string, m->string)) {
                    d->first = e, d->second = m;
                    return 1;
                }
        obj->mask = 0;
        return 0;
    }
    uint32_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    const jnode **slot = arena_get(arena, cap * sizeof *slot, first);
    if (!slot)
        return -1;
    memset(slot, 0, cap * sizeof *slot);
    obj->index = slot;
    obj->mask = cap - 1;
    for (const cJSON *m = obj->c.child; m; m = m->next) {
        const jnode *jm = jn_of(m);
        uint32_t i = (uint32_t)jm->hash & obj->mask;
        while (slot[i] && (slot[i]->hash != jm->hash || strcmp(slot[i]->c.string, m->string)))
            i = (i + 1) & obj->mask;
        if (slot[i]) {
            d->first = &slot[i]->c, d->second = m;
            return 1;
        }
        slot[i] = jm;
    }
    return 0;
}

static int dup_walk(jnode *n, chunk **arena, size_t first, dupkey *d)
{
    if (JT_OBJ(&n->c)) {
        int r = find_dup(n, arena, first, d);
        if (r) {
            if (r > 0)
                d->keys[d->depth++] = d->second->string;
            return r;
        }
    }
    for (cJSON *c = n->c.child; c; c = c->next) {
        if (!JT_OBJ(c) && !JT_ARR(c))
            continue;
        const bool named = JT_OBJ(&n->c);
        if (named)
            d->keys[d->depth++] = c->string;
        int r = dup_walk((jnode *)(void *)c, arena, first, d);
        if (r)
            return r;
        if (named)
            d->depth--;
    }
    return 0;
}

static int check_duplicates(llmmem__json *doc, size_t first)
{
    dupkey d;
    d.first = d.second = NULL;
    d.depth = 0;
    int r = dup_walk((jnode *)(void *)doc->root, &doc->arena, first, &d);
    if (r < 0)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", doc->source);
    if (r == 0)
        return 0;
    /* "a.b.key", cut at 255 bytes */
    char path[256];
    size_t at = 0;
    for (int k = 0; k < d.depth && at < sizeof path - 1; k++) {
        if (at)
            path[at++] = '.';
        for (const char *p = d.keys[k]; *p && at < sizeof path - 1; p++)
            path[at++] = *p;
    }
    path[at < sizeof path ? at : sizeof path - 1] = '\0';
    int line, col;
    llmmem__json_pos(doc, d.first, &line, &col);
    return llmmem__json_error_at(doc, d.second, LLMMEM_E_SCHEMA, path, "duplicate key (first at %d:%d)", line,
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

    llmmem__json *doc = malloc(sizeof *doc);
    char *chars = malloc(len + 16); /* the strings, and a word of room past the last */
    if (!doc || !chars) {
        free(doc);
        free(chars);
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", source);
    }
    /* cJSON skips a UTF-8 byte order mark; so do we (columns count from after it). */
    size_t start = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    *doc = (llmmem__json){.source = source, .text = text, .len = len, .start = start, .chars = chars};
    /* the arena's first block: a node is about 100 bytes, and a 2 KB
     * config.json has about 80 of them */
    const size_t first = 4096 + (len < (1u << 20) ? 4 * len : (1u << 22));
    scan sc = {.s = (const unsigned char *)text, .n = len, .i = start, .arena = &doc->arena, .first = first,
               .out = chars};
    jnode *root = strict_scan(&sc);
    if (!root) {
        llmmem__json_free(doc);
        if (sc.nomem)
            return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", source);
        int line, col;
        line_col(text, len, start, sc.err_off, &line, &col);
        return llmmem__error(LLMMEM_E_PARSE, "%s:%d:%d: %s", source, line, col, sc.err);
    }
    doc->root = &root->c;
    int rc = check_duplicates(doc, first);
    if (rc) {
        llmmem__json_free(doc);
        return rc;
    }
    *out = doc;
    return 0;
}

/* ---- documents built from YAML (yaml.c) -------------------------------------- */

/* A node of a YAML document in the arena, of cJSON type `type`, with its
 * position; NULL when out of memory. */
static jnode *y_node(llmmem__json *doc, const llmmem__ynode *y, int type)
{
    jnode *j = arena_get(&doc->arena, sizeof *j, 4096);
    if (!j)
        return NULL;
    memset(j, 0, sizeof *j);
    j->c.type = type;
    j->off = y->off;
    j->len = y->len;
    j->line = y->line;
    j->col = y->col;
    return j;
}

/* A copy of a string in the arena. */
static char *y_str(llmmem__json *doc, const char *t)
{
    size_t n = strlen(t);
    char *c = arena_get(&doc->arena, n + 1, 4096);
    if (c)
        memcpy(c, t, n + 1);
    return c;
}

static jnode *y_string(llmmem__json *doc, const llmmem__ynode *y)
{
    jnode *j = y_node(doc, y, cJSON_String);
    if (j && !(j->c.valuestring = y_str(doc, y->text)))
        return NULL;
    return j;
}

/* A plain YAML scalar by the core schema's rules: null, bool, a number when
 * the whole text parses as one (YAML 1.2 and the 1.1 forms PyYAML and
 * OmegaConf accept, "2e-5" included), else a string. */
static jnode *yaml_scalar(llmmem__json *doc, const llmmem__ynode *y)
{
    const char *t = y->text;
    if (!y->plain)
        return y_string(doc, y);
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
    static const char *const trues[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
    static const char *const falses[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++)
        if (!strcmp(t, nulls[i]))
            return y_node(doc, y, cJSON_NULL);
    for (size_t i = 0; i < sizeof trues / sizeof *trues; i++)
        if (!strcmp(t, trues[i]))
            return y_node(doc, y, cJSON_True);
    for (size_t i = 0; i < sizeof falses / sizeof *falses; i++)
        if (!strcmp(t, falses[i]))
            return y_node(doc, y, cJSON_False);
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
        if (*end == '\0' && errno != ERANGE && isfinite(v)) {
            jnode *j = y_node(doc, y, cJSON_Number);
            if (j) { /* as cJSON_CreateNumber */
                j->c.valuedouble = v;
                j->c.valueint = v >= INT_MAX ? INT_MAX : v <= (double)INT_MIN ? INT_MIN : (int)v;
            }
            return j;
        }
    }
    return y_string(doc, y);
}

/* Builds the tree in the arena, positions from the YAML nodes. */
static jnode *yaml_build(llmmem__json *doc, const llmmem__ynode *y)
{
    jnode *n;
    if (y->kind == LLMMEM__Y_SCALAR)
        return yaml_scalar(doc, y);
    n = y_node(doc, y, y->kind == LLMMEM__Y_MAP ? cJSON_Object : cJSON_Array);
    if (!n)
        return NULL;
    jnode *last = NULL;
    uint32_t count = 0;
    for (const llmmem__ynode *c = y->child; c; c = c->next) {
        jnode *v = yaml_build(doc, c);
        if (!v)
            return NULL;
        if (y->kind == LLMMEM__Y_MAP && !(v->c.string = y_str(doc, c->key)))
            return NULL;
        sc_link(n, &last, v, &count);
    }
    if (last)
        n->c.child->prev = &last->c;
    return n;
}

int llmmem__json_from_yaml(llmmem__json **out, const llmmem__ynode *root, const char *text, size_t len,
                           const char *source)
{
    if (!out || !root)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem__json_from_yaml: NULL argument");
    *out = NULL;
    llmmem__json *doc = malloc(sizeof *doc);
    if (!doc)
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", source);
    *doc = (llmmem__json){.source = source, .text = text, .len = len, .yaml = true};
    jnode *r = yaml_build(doc, root);
    if (!r) {
        llmmem__json_free(doc);
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", source);
    }
    doc->root = &r->c;
    *out = doc;
    return 0;
}

const llmmem__jnode *llmmem__json_root(const llmmem__json *doc) { return doc ? doc->root : NULL; }

const char *llmmem__json_source(const llmmem__json *doc) { return doc ? doc->source : ""; }

int llmmem__json_type(const llmmem__jnode *n)
{
    if (!n)
        return LLMMEM__J_INVALID;
    if (JT_NULL(n))
        return LLMMEM__J_NULL;
    if (JT_BOOL(n))
        return LLMMEM__J_BOOL;
    if (JT_NUM(n))
        return LLMMEM__J_NUMBER;
    if (JT_STR(n))
        return LLMMEM__J_STRING;
    if (JT_ARR(n))
        return LLMMEM__J_ARRAY;
    if (JT_OBJ(n))
        return LLMMEM__J_OBJECT;
    return LLMMEM__J_INVALID;
}

const llmmem__jnode *llmmem__json_getn(const llmmem__jnode *obj, const char *key, size_t n)
{
    if (!obj || !key || (obj->type & 0xFF) != cJSON_Object)
        return NULL;
    /* Case-sensitive, first match, as cJSON_GetObjectItemCaseSensitive: by
     * the name table of a large parsed object (its names are distinct); else
     * in order, the first byte tested first */
    const jnode *j = jn_of(obj);
    if (j->index) {
        const uint64_t h = name_hash(key, n, false);
        for (uint32_t i = (uint32_t)h & j->mask; j->index[i]; i = (i + 1) & j->mask) {
            const char *name = j->index[i]->c.string;
            if (j->index[i]->hash == h && !memcmp(name, key, n) && name[n] == '\0')
                return &j->index[i]->c;
        }
        return NULL;
    }
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && (n == 0 || c->string[0] == key[0]) && !strncmp(c->string, key, n) && c->string[n] == '\0')
            return c;
    return NULL;
}

const llmmem__jnode *llmmem__json_get(const llmmem__jnode *obj, const char *key)
{
    return key ? llmmem__json_getn(obj, key, strlen(key)) : NULL;
}

const llmmem__jnode *llmmem__json_first(const llmmem__jnode *n)
{
    if (!n || !(JT_OBJ(n) || JT_ARR(n)))
        return NULL;
    return n->child;
}

const llmmem__jnode *llmmem__json_next(const llmmem__jnode *n) { return n ? n->next : NULL; }

const char *llmmem__json_key(const llmmem__jnode *n) { return n ? n->string : NULL; }

double llmmem__json_number(const llmmem__jnode *n)
{
    return n && JT_NUM(n) ? n->valuedouble : 0.0;
}

const char *llmmem__json_string(const llmmem__jnode *n)
{
    return n && JT_STR(n) ? n->valuestring : NULL;
}

bool llmmem__json_true(const llmmem__jnode *n) { return n && JT_TRUE(n); }

int llmmem__json_array_size(const llmmem__jnode *n)
{
    return n && JT_ARR(n) ? cJSON_GetArraySize(n) : 0;
}

/* Where node n's value is: its offset, and the line and column (a YAML
 * document's node holds them; a parsed one's are counted from the offset,
 * which only happens to report an error). */
static bool find_pos(jpos *p, const llmmem__json *doc, const llmmem__jnode *n)
{
    if (!doc || !n)
        return false;
    const jnode *j = jn_of(n);
    *p = (jpos){n, j->off, j->len, j->line, j->col};
    if (!doc->yaml)
        line_col(doc->text, doc->len, doc->start, j->off, &p->line, &p->col);
    return true;
}

void llmmem__json_pos(const llmmem__json *doc, const llmmem__jnode *n, int *line, int *col)
{
    jpos p;
    const bool found = find_pos(&p, doc, n);
    if (line)
        *line = found ? p.line : 0;
    if (col)
        *col = found ? p.col : 0;
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
    jpos p;
    if (!find_pos(&p, doc, n) || p.off >= doc->len) {
        snprintf(buf, cap, "%s", "a value");
        return buf;
    }
    size_t len = p.len;
    if (p.off + len > doc->len)
        len = doc->len - p.off;
    const char *s = doc->text + p.off;
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
    if (!*v || JT_NULL(*v))
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
    if (!JT_NUM(v))
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
    if (!JT_NUM(v))
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
    if (!JT_BOOL(v))
        return llmmem__json_error_at(doc, v, LLMMEM_E_SCHEMA, path,
                                     "expected true or false, got %s",
                                     raw_text(raw, sizeof raw, doc, v));
    *out = JT_TRUE(v);
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
    if (!JT_STR(v) || !v->valuestring)
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
