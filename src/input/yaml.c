/* YAML layer: the only file that includes libyaml.
 *
 * Framework configuration files (torchtune recipes, axolotl, LLaMA-Factory,
 * accelerate) are YAML. libyaml's event parser reads the text; this file
 * builds a small tree with every value's position (libyaml's marks: byte
 * index, 0-based line and column) and hands it to json.c, which builds the
 * same document type the JSON readers use, so one set of readers and one error
 * format ("file:line:col: key.path: ...") serve both.
 *
 * The input contract is the JSON one: a duplicate key is an error naming both
 * positions, documents deeper than YAML_MAX_DEPTH are refused, only one
 * document per file; anchors and aliases (*name) and explicit tags other
 * than the core schema's are refused rather than guessed. libyaml keeps no
 * global state: a parser per call is thread-safe. */
#include "input/input.h"

#include <yaml.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define YAML_MAX_DEPTH 512

/* Nodes are allocated from blocks freed together with the tree. */
typedef struct yblock {
    struct yblock *next;
    size_t used, cap;
    unsigned char data[];
} yblock;

typedef struct ybuild {
    yaml_parser_t parser;
    yaml_event_t ev;
    bool have_ev;
    yblock *blocks;
    const char *source;
    int rc;
} ybuild;

static void *yalloc(ybuild *b, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!b->blocks || b->blocks->used + n > b->blocks->cap) {
        size_t cap = n > 65536 ? n : 65536;
        yblock *nb = malloc(sizeof *nb + cap);
        if (!nb)
            return NULL;
        nb->next = b->blocks;
        nb->used = 0;
        nb->cap = cap;
        b->blocks = nb;
    }
    void *p = b->blocks->data + b->blocks->used;
    b->blocks->used += n;
    return p;
}

static void yfree(ybuild *b)
{
    while (b->blocks) {
        yblock *n = b->blocks->next;
        free(b->blocks);
        b->blocks = n;
    }
}

static int yerr(ybuild *b, const yaml_mark_t *m, int status, const char *fmt, const char *arg)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, arg ? arg : "");
    b->rc = llmmem__error(status, "%s:%d:%d: %s", b->source, (int)m->line + 1, (int)m->column + 1, msg);
    return b->rc;
}

/* The next event; a libyaml syntax error is reported with its position. */
static int next_event(ybuild *b)
{
    if (b->have_ev) {
        yaml_event_delete(&b->ev);
        b->have_ev = false;
    }
    if (!yaml_parser_parse(&b->parser, &b->ev)) {
        const yaml_parser_t *p = &b->parser;
        if (p->error == YAML_MEMORY_ERROR)
            return b->rc = llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", b->source);
        char what[200];
        snprintf(what, sizeof what, "%s%s%s", p->problem ? p->problem : "invalid YAML",
                 p->context ? " " : "", p->context ? p->context : "");
        return yerr(b, &p->problem_mark, LLMMEM_E_PARSE, "%s", what);
    }
    b->have_ev = true;
    return 0;
}

static llmmem__ynode *new_node(ybuild *b, int kind, const yaml_mark_t *m)
{
    llmmem__ynode *n = yalloc(b, sizeof *n);
    if (!n) {
        b->rc = llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", b->source);
        return NULL;
    }
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->off = m->index;
    n->line = (int)m->line + 1;
    n->col = (int)m->column + 1;
    return n;
}

static char *copy_text(ybuild *b, const unsigned char *s, size_t len)
{
    char *t = yalloc(b, len + 1);
    if (!t) {
        b->rc = llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", b->source);
        return NULL;
    }
    memcpy(t, s, len);
    t[len] = '\0';
    return t;
}

/* An explicit tag is accepted when it names a core-schema type (!!str,
 * !!int, ...); application tags (!!python/..., !custom) are refused. */
static int check_tag(ybuild *b, const yaml_char_t *tag, const yaml_mark_t *m)
{
    if (!tag)
        return 0;
    if (strncmp((const char *)tag, "tag:yaml.org,2002:", 18) == 0) {
        const char *t = (const char *)tag + 18;
        if (!strcmp(t, "str") || !strcmp(t, "int") || !strcmp(t, "float") || !strcmp(t, "bool") ||
            !strcmp(t, "null") || !strcmp(t, "map") || !strcmp(t, "seq"))
            return 0;
    }
    return yerr(b, m, LLMMEM_E_PARSE, "YAML tag %s is not read (only plain values, lists and mappings)",
                (const char *)tag);
}

static int parse_node(ybuild *b, llmmem__ynode **out, int depth);

/* Duplicate keys of one mapping, in linear time: an open-addressing set of
 * the members seen so far. */
typedef struct keyset {
    llmmem__ynode **slot;
    size_t cap, n;
} keyset;

static uint64_t hash_key(const char *k)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *k; k++)
        h = (h ^ (unsigned char)*k) * 1099511628211ull;
    return h;
}

/* Adds m; *dup receives an earlier member with the same key. -1 when out of memory. */
static int keyset_add(keyset *s, llmmem__ynode *m, llmmem__ynode **dup)
{
    *dup = NULL;
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        llmmem__ynode **slot = calloc(cap, sizeof *slot);
        if (!slot)
            return -1;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slot[i])
                continue;
            size_t j = hash_key(s->slot[i]->key) & (cap - 1);
            while (slot[j])
                j = (j + 1) & (cap - 1);
            slot[j] = s->slot[i];
        }
        free(s->slot);
        s->slot = slot;
        s->cap = cap;
    }
    size_t j = hash_key(m->key) & (s->cap - 1);
    while (s->slot[j]) {
        if (strcmp(s->slot[j]->key, m->key) == 0) {
            *dup = s->slot[j];
            return 0;
        }
        j = (j + 1) & (s->cap - 1);
    }
    s->slot[j] = m;
    s->n++;
    return 0;
}

static int parse_mapping(ybuild *b, llmmem__ynode *map, int depth)
{
    llmmem__ynode **tail = &map->child;
    keyset seen = {NULL, 0, 0};
    int rc = 0;
    for (;;) {
        if ((rc = next_event(b)) != 0)
            break;
        if (b->ev.type == YAML_MAPPING_END_EVENT) {
            map->len = b->ev.end_mark.index > map->off ? b->ev.end_mark.index - map->off : 0;
            break;
        }
        if (b->ev.type != YAML_SCALAR_EVENT) {
            rc = yerr(b, &b->ev.start_mark, LLMMEM_E_PARSE,
                      "a mapping key must be a plain value%s", b->ev.type == YAML_ALIAS_EVENT ? " (not an alias)" : "");
            break;
        }
        if (memchr(b->ev.data.scalar.value, 0, b->ev.data.scalar.length)) {
            rc = yerr(b, &b->ev.start_mark, LLMMEM_E_PARSE, "a NUL character (\\0) in a key is not read", NULL);
            break;
        }
        char *key = copy_text(b, b->ev.data.scalar.value, b->ev.data.scalar.length);
        yaml_mark_t key_mark = b->ev.start_mark;
        if (!key) {
            rc = b->rc;
            break;
        }
        if (!strcmp(key, "<<") && b->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
            rc = yerr(b, &key_mark, LLMMEM_E_PARSE, "YAML merge keys (<<) are not read", NULL);
            break;
        }
        llmmem__ynode *val = NULL;
        if ((rc = next_event(b)) != 0 || (rc = parse_node(b, &val, depth + 1)) != 0)
            break;
        val->key = key;
        val->kline = (int)key_mark.line + 1;
        val->kcol = (int)key_mark.column + 1;
        llmmem__ynode *dup;
        if (keyset_add(&seen, val, &dup)) {
            rc = b->rc = llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", b->source);
            break;
        }
        if (dup) {
            rc = b->rc = llmmem__error(LLMMEM_E_PARSE, "%s:%d:%d: duplicate key \"%.80s\" (first at %d:%d)",
                                       b->source, (int)key_mark.line + 1, (int)key_mark.column + 1, key,
                                       dup->kline, dup->kcol);
            break;
        }
        *tail = val;
        tail = &val->next;
    }
    free(seen.slot);
    return rc;
}

static int parse_sequence(ybuild *b, llmmem__ynode *seq, int depth)
{
    llmmem__ynode **tail = &seq->child;
    for (;;) {
        int rc = next_event(b);
        if (rc)
            return rc;
        if (b->ev.type == YAML_SEQUENCE_END_EVENT) {
            seq->len = b->ev.end_mark.index > seq->off ? b->ev.end_mark.index - seq->off : 0;
            return 0;
        }
        llmmem__ynode *item = NULL;
        if ((rc = parse_node(b, &item, depth + 1)) != 0)
            return rc;
        *tail = item;
        tail = &item->next;
    }
}

/* The node whose first event is b->ev. */
static int parse_node(ybuild *b, llmmem__ynode **out, int depth)
{
    const yaml_event_t *e = &b->ev;
    if (depth > YAML_MAX_DEPTH)
        return yerr(b, &e->start_mark, LLMMEM_E_PARSE, "nested deeper than 512 levels", NULL);
    switch (e->type) {
    case YAML_ALIAS_EVENT:
        return yerr(b, &e->start_mark, LLMMEM_E_PARSE, "YAML aliases (*%s) are not read; write the value out",
                    (const char *)e->data.alias.anchor);
    case YAML_SCALAR_EVENT: {
        /* a "\0" escape in a double-quoted scalar: the text would end there in C */
        if (memchr(e->data.scalar.value, 0, e->data.scalar.length))
            return yerr(b, &e->start_mark, LLMMEM_E_PARSE, "a NUL character (\\0) in a value is not read", NULL);
        if (e->data.scalar.anchor)
            return yerr(b, &e->start_mark, LLMMEM_E_PARSE, "YAML anchors (&%s) are not read",
                        (const char *)e->data.scalar.anchor);
        if (check_tag(b, e->data.scalar.tag, &e->start_mark))
            return b->rc;
        llmmem__ynode *n = new_node(b, LLMMEM__Y_SCALAR, &e->start_mark);
        if (!n || !(n->text = copy_text(b, e->data.scalar.value, e->data.scalar.length)))
            return b->rc;
        n->plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !e->data.scalar.tag;
        n->len = e->end_mark.index - e->start_mark.index;
        *out = n;
        return 0;
    }
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT: {
        bool map = e->type == YAML_MAPPING_START_EVENT;
        const yaml_char_t *anchor = map ? e->data.mapping_start.anchor : e->data.sequence_start.anchor;
        const yaml_char_t *tag = map ? e->data.mapping_start.tag : e->data.sequence_start.tag;
        if (anchor)
            return yerr(b, &e->start_mark, LLMMEM_E_PARSE, "YAML anchors (&%s) are not read", (const char *)anchor);
        if (check_tag(b, tag, &e->start_mark))
            return b->rc;
        llmmem__ynode *n = new_node(b, map ? LLMMEM__Y_MAP : LLMMEM__Y_SEQ, &e->start_mark);
        if (!n)
            return b->rc;
        *out = n;
        return map ? parse_mapping(b, n, depth) : parse_sequence(b, n, depth);
    }
    default:
        return yerr(b, &e->start_mark, LLMMEM_E_PARSE, "unexpected YAML event", NULL);
    }
}

/* stream-start, document-start, node, document-end, stream-end; a second
 * document is refused. */
static int parse_stream(ybuild *b, llmmem__ynode **root)
{
    int rc;
    if ((rc = next_event(b)) != 0)
        return rc;
    if ((rc = next_event(b)) != 0)
        return rc;
    if (b->ev.type == YAML_STREAM_END_EVENT)
        return yerr(b, &b->ev.start_mark, LLMMEM_E_PARSE, "empty document", NULL);
    if ((rc = next_event(b)) != 0 || (rc = parse_node(b, root, 1)) != 0)
        return rc;
    if ((rc = next_event(b)) != 0) /* document end */
        return rc;
    if ((rc = next_event(b)) != 0)
        return rc;
    if (b->ev.type != YAML_STREAM_END_EVENT)
        return yerr(b, &b->ev.start_mark, LLMMEM_E_PARSE, "a second YAML document is not read (one per file)",
                    NULL);
    return 0;
}

int llmmem__yaml_parse(llmmem__json **out, const char *text, size_t len, const char *source)
{
    if (!out || (!text && len))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem__yaml_parse: NULL argument");
    *out = NULL;
    if (!source)
        source = "<yaml>";
    if (!text)
        text = "";
    if (memchr(text, '\0', len))
        return llmmem__error(LLMMEM_E_PARSE, "%s: a NUL byte in YAML text", source);
    ybuild b;
    memset(&b, 0, sizeof b);
    b.source = source;
    if (!yaml_parser_initialize(&b.parser))
        return llmmem__error(LLMMEM_E_NOMEM, "%s: out of memory", source);
    yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
    llmmem__ynode *root = NULL;
    int rc = parse_stream(&b, &root);
    if (b.have_ev)
        yaml_event_delete(&b.ev);
    yaml_parser_delete(&b.parser);
    if (!rc)
        rc = llmmem__json_from_yaml(out, root, text, len, source);
    yfree(&b);
    return rc;
}
