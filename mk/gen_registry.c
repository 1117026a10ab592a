/* Writes src/model/registry_code.c: every expression of the registry's family
 * tables (src/model/fam_*.c) compiled into the ops of llmmem__expr_run
 * (src/model/expr.c), the index of each canonical quantity of each entry, and
 * the families in model_type order (src/model/registry.h says what each is).
 *
 *   cc -Iinclude -Isrc mk/gen_registry.c src/model/fam_*.c -o gen_registry
 *   ./gen_registry > src/model/registry_code.c
 *
 * The Makefile does that when a table changes; test/test_registry_code.sh
 * checks that the committed file is what the tables make, and test_model.c
 * that the code computes what llmmem__expr_eval reads in the text (values,
 * errors and their offsets).
 *
 * The compiler follows llmmem__expr_eval's parser step by step (expr.c: the
 * same grammar, the same moves over the text), so that each op that can fail
 * carries the offset the parser reports at that point. A text the parser
 * would fail on without a value to blame (a syntax error, a symbol the entry
 * does not declare, a function's arity, a literal that overflows) is not
 * compiled: it keeps LLMMEM__X_TEXT, and the parser reads it, whatever it
 * then says. So are the real defaults (llmmem__registry_real). */
#include "model/registry.h"
#include "model/expr_lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXOPS 256
#define MAXSTACK 32 /* llmmem__expr_run's stack (expr.c) */

/* ---- the compiler -------------------------------------------------------------- */

typedef struct cx {
    const char *text, *p;
    const llmmem__qdef *q; /* the symbols: the entry's quantities */
    int nq;
    llmmem__xop ops[MAXOPS];
    int n, pushes;
    bool bad; /* not compiled: the parser reads the text */
} cx;


static void skip(cx *e) { llmmem__lex_skip(&e->p); }

/* The next character after spaces (consumed). */
static char peek(cx *e)
{
    skip(e);
    return *e->p;
}

static bool eat(cx *e, const char *tok) { return llmmem__lex_eat(&e->p, tok); }

/* An op; its index (-1 once the text is given up). */
static int emit(cx *e, int op, int64_t arg)
{
    if (e->bad || e->n == MAXOPS || e->p - e->text > 65535) {
        e->bad = true;
        return -1;
    }
    /* only an op that can fail keeps its offset (the others share code) */
    const bool fails = op == LLMMEM__X_NEG || op == LLMMEM__X_MUL || op == LLMMEM__X_DIV || op == LLMMEM__X_MOD ||
                       op == LLMMEM__X_ADD || op == LLMMEM__X_SUB || op == LLMMEM__X_CDIV ||
                       op == LLMMEM__X_ISQRT || op == LLMMEM__X_RMUL;
    e->ops[e->n] = (llmmem__xop){arg, fails ? (uint16_t)(e->p - e->text) : 0, (uint8_t)op};
    if (op == LLMMEM__X_SYM || op == LLMMEM__X_CONST)
        e->pushes++;
    return e->n++;
}

static void target(cx *e, int at)
{
    if (at >= 0 && !e->bad)
        e->ops[at].arg = e->n;
}

/* qvals_find: the first quantity of that name. */
static int symbol(const cx *e, const char *s, size_t n)
{
    if (!n || n > 255)
        return -1;
    for (int i = 0; i < e->nq; i++)
        if (strlen(e->q[i].sym) == n && !memcmp(e->q[i].sym, s, n))
            return i;
    return -1;
}

static void expr(cx *e);

static void call(cx *e, const char *fn, size_t n)
{
    if (n == 4 && !memcmp(fn, "rmul", 4)) {
        expr(e);
        if (!eat(e, ",")) {
            e->bad = true;
            return;
        }
        skip(e);
        const char *s = e->p;
        while (llmmem__lex_ident(*e->p) || llmmem__lex_digit(*e->p))
            e->p++;
        int i = e->p == s ? -1 : symbol(e, s, (size_t)(e->p - s));
        if (i < 0 || !eat(e, ")")) {
            e->bad = true;
            return;
        }
        emit(e, LLMMEM__X_RMUL, i);
        return;
    }
    int argc = 0;
    do {
        expr(e);
        argc++;
    } while (!e->bad && eat(e, ","));
    if (e->bad || !eat(e, ")")) {
        e->bad = true;
        return;
    }
    bool unary_fn = n == 5 && !memcmp(fn, "isqrt", 5);
    if (argc != (unary_fn ? 1 : 2))
        e->bad = true;
    else if (unary_fn)
        emit(e, LLMMEM__X_ISQRT, 0);
    else if (n == 3 && !memcmp(fn, "max", 3))
        emit(e, LLMMEM__X_MAX, 0);
    else if (n == 3 && !memcmp(fn, "min", 3))
        emit(e, LLMMEM__X_MIN, 0);
    else if (n == 4 && !memcmp(fn, "cdiv", 4))
        emit(e, LLMMEM__X_CDIV, 0);
    else
        e->bad = true;
}

static void atom(cx *e)
{
    skip(e);
    const char *s = e->p;
    if (llmmem__lex_digit(*s)) {
        int64_t v = 0;
        bool ovf = false;
        while (llmmem__lex_digit(*e->p)) {
            ovf |= __builtin_mul_overflow(v, 10, &v);
            ovf |= __builtin_add_overflow(v, *e->p - '0', &v);
            e->p++;
        }
        if (ovf)
            e->bad = true;
        else
            emit(e, LLMMEM__X_CONST, v);
        return;
    }
    if (llmmem__lex_ident(*s)) {
        while (llmmem__lex_ident(*e->p) || llmmem__lex_digit(*e->p))
            e->p++;
        size_t n = (size_t)(e->p - s);
        if (eat(e, "(")) {
            call(e, s, n);
            return;
        }
        int i = symbol(e, s, n);
        if (i < 0)
            e->bad = true;
        else
            emit(e, LLMMEM__X_SYM, i);
        return;
    }
    if (eat(e, "(")) {
        expr(e);
        if (!e->bad && !eat(e, ")"))
            e->bad = true;
        return;
    }
    e->bad = true;
}

static void unary(cx *e)
{
    const char c = peek(e);
    if (c != '-' && c != '!') {
        atom(e);
        return;
    }
    if (eat(e, "-")) {
        unary(e);
        emit(e, LLMMEM__X_NEG, 0);
        return;
    }
    if (eat(e, "!")) {
        unary(e);
        emit(e, LLMMEM__X_NOT, 0);
        return;
    }
    atom(e);
}

static void binary(cx *e, int min)
{
    unary(e);
    int last = 6;
    while (!e->bad) {
        const char c = peek(e), d = c ? e->p[1] : '\0';
        int prec, len = 1;
        if (c == '*' || c == '/' || c == '%')
            prec = 5;
        else if (c == '+' || c == '-')
            prec = 4;
        else if (c == '<' || c == '>')
            prec = 3, len = 1 + (d == '=');
        else if ((c == '=' || c == '!') && d == '=')
            prec = 3, len = 2;
        else if (c == '&' && d == '&')
            prec = 2, len = 2;
        else if (c == '|' && d == '|')
            prec = 1, len = 2;
        else
            return;
        if (prec < min || prec > last || (prec == 3 && last == 3))
            return;
        last = prec;
        e->p += len;
        int j;
        switch (prec) {
        case 5:
            unary(e);
            emit(e, c == '*' ? LLMMEM__X_MUL : c == '/' ? LLMMEM__X_DIV : LLMMEM__X_MOD, 0);
            break;
        case 4:
            binary(e, 5);
            emit(e, c == '+' ? LLMMEM__X_ADD : LLMMEM__X_SUB, 0);
            break;
        case 3:
            binary(e, 4);
            emit(e, c == '=' ? LLMMEM__X_EQ : c == '!' ? LLMMEM__X_NE : c == '<' ? (len == 2 ? LLMMEM__X_LE : LLMMEM__X_LT)
                                                                            : (len == 2 ? LLMMEM__X_GE : LLMMEM__X_GT),
                 0);
            break;
        case 2:
            j = emit(e, LLMMEM__X_AND, 0);
            binary(e, 3);
            emit(e, LLMMEM__X_BOOL, 0);
            target(e, j);
            break;
        default:
            j = emit(e, LLMMEM__X_OR, 0);
            binary(e, 2);
            emit(e, LLMMEM__X_BOOL, 0);
            target(e, j);
            break;
        }
    }
}

static void expr(cx *e)
{
    binary(e, 1);
    if (e->bad || peek(e) != '?' || !eat(e, "?"))
        return;
    int jz = emit(e, LLMMEM__X_JZ, 0);
    expr(e);
    if (e->bad || !eat(e, ":")) {
        e->bad = true;
        return;
    }
    int jmp = emit(e, LLMMEM__X_JMP, 0);
    target(e, jz);
    expr(e);
    target(e, jmp);
}

/* Compiles `text` over the quantities q; false when the parser keeps it. */
static bool compile(cx *e, const char *text, const llmmem__qdef *q, int nq)
{
    memset(e, 0, sizeof *e);
    e->text = e->p = text;
    e->q = q;
    e->nq = nq;
    /* llmmem__expr_eval's shortcuts: a lone symbol the entry has, a lone
     * number of at most 18 digits */
    const char *p = text;
    if (llmmem__lex_ident(*p)) {
        while (llmmem__lex_ident(*p) || llmmem__lex_digit(*p))
            p++;
        int i = symbol(e, text, (size_t)(p - text));
        if (!*p && i >= 0) {
            emit(e, LLMMEM__X_RET_SYM, i);
            return true;
        }
    } else if (llmmem__lex_digit(*p)) {
        int64_t v = 0;
        while (llmmem__lex_digit(*p) && p - text < 18)
            v = v * 10 + (*p++ - '0');
        if (!*p) {
            emit(e, LLMMEM__X_RET_CONST, v);
            return true;
        }
    }
    expr(e);
    skip(e);
    if (*e->p)
        e->bad = true;
    emit(e, LLMMEM__X_END, 0);
    return !e->bad && e->pushes <= MAXSTACK;
}

/* ---- the output ------------------------------------------------------------------- */

/* Every compiled expression's ops, each sequence once. */
static llmmem__xop *all;
static int nall, capall;
typedef struct seq {
    int at, n;
} seq;
static seq *seqs;
static int nseqs, capseqs;

static void *grow(void *p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return p;
    int n = *cap ? *cap : 1024;
    while (n < need)
        n *= 2;
    void *q = realloc(p, (size_t)n * elem);
    if (!q) {
        fprintf(stderr, "gen_registry: out of memory\n");
        exit(1);
    }
    *cap = n;
    return q;
}

static bool same_ops(const llmmem__xop *a, const llmmem__xop *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].arg != b[i].arg || a[i].off != b[i].off || a[i].op != b[i].op)
            return false;
    return true;
}

static const char *const opname[LLMMEM__X_COUNT_] = {
    "RET_SYM", "RET_CONST", "END", "SYM", "CONST", "NEG", "NOT", "MUL", "DIV", "MOD", "ADD", "SUB", "EQ", "NE", "LT",
    "LE", "GT", "GE", "AND", "OR", "BOOL", "JZ", "JMP", "MAX", "MIN", "CDIV", "ISQRT", "RMUL"};

/* Where the code of `text` over q starts (LLMMEM__X_TEXT: not compiled, or
 * no text). The code is written to `out` the first time. */
static FILE *code_out;
static int compiled, kept;
static int32_t code_of(const char *text, const llmmem__qdef *q, int nq)
{
    static cx e;
    if (!text)
        return LLMMEM__X_TEXT;
    if (!compile(&e, text, q, nq)) {
        kept++;
        return LLMMEM__X_TEXT;
    }
    compiled++;
    /* jumps are relative to the sequence until it is placed */
    for (int s = 0; s < nseqs; s++) {
        if (seqs[s].n != e.n)
            continue;
        bool same = true;
        for (int i = 0; i < e.n && same; i++) {
            llmmem__xop a = all[seqs[s].at + i], b = e.ops[i];
            if (b.op == LLMMEM__X_AND || b.op == LLMMEM__X_OR || b.op == LLMMEM__X_JZ || b.op == LLMMEM__X_JMP)
                b.arg += seqs[s].at;
            same = same_ops(&a, &b, 1);
        }
        if (same)
            return seqs[s].at;
    }
    all = grow(all, &capall, nall + e.n, sizeof *all);
    seqs = grow(seqs, &capseqs, nseqs + 1, sizeof *seqs);
    seqs[nseqs++] = (seq){nall, e.n};
    fprintf(code_out, "    /* %d: \"", nall);
    for (const char *c = text; *c; c++)
        fputc(*c == '*' && c[1] == '/' ? '.' : *c, code_out); /* no end of comment inside */
    fprintf(code_out, "\" */\n   ");
    for (int i = 0; i < e.n; i++) {
        llmmem__xop o = e.ops[i];
        if (o.op == LLMMEM__X_AND || o.op == LLMMEM__X_OR || o.op == LLMMEM__X_JZ || o.op == LLMMEM__X_JMP)
            o.arg += nall;
        all[nall + i] = o;
        fprintf(code_out, " {%lld, %u, LLMMEM__X_%s},", (long long)o.arg, (unsigned)o.off, opname[o.op]);
    }
    fputc('\n', code_out);
    nall += e.n;
    return seqs[nseqs - 1].at;
}

/* Arrays of slots and of canonical indices, each content once: its name. */
typedef struct arr {
    char name[16];
    int32_t *v;
    int n;
} arr;
static arr *arrs;
static int narrs, caparrs;
static FILE *arr_out;

static const char *array_of(const char *prefix, const int32_t *v, int n, const char *type)
{
    for (int i = 0; i < narrs; i++)
        if (arrs[i].n == n && !memcmp(arrs[i].v, v, (size_t)n * sizeof *v) && arrs[i].name[0] == prefix[0])
            return arrs[i].name;
    arrs = grow(arrs, &caparrs, narrs + 1, sizeof *arrs);
    arr *a = &arrs[narrs];
    snprintf(a->name, sizeof a->name, "%s%d", prefix, narrs);
    a->v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!a->v) {
        fprintf(stderr, "gen_registry: out of memory\n");
        exit(1);
    }
    memcpy(a->v, v, (size_t)n * sizeof *v);
    a->n = n;
    narrs++;
    fprintf(arr_out, "static const %s %s[] = {", type, a->name);
    for (int i = 0; i < n; i++)
        fprintf(arr_out, "%s%d", i ? ", " : "", (int)v[i]);
    fprintf(arr_out, "%s};\n", n ? "" : "0");
    return a->name;
}

/* One entry's code, as the initializer of its llmmem__xcode. */
static void entry(FILE *out, const char *what, const llmmem__qdef *q, int nq, const llmmem__tdef *t, int nt,
                  const llmmem__pattern *mixer, const llmmem__pattern *ffn)
{
    int32_t *qd = malloc((size_t)(nq + 1) * sizeof *qd), *qn = malloc((size_t)(nq + 1) * sizeof *qn);
    int32_t *tv = malloc((size_t)(4 * nt + 1) * sizeof *tv), canon[LLMMEM__NCANON];
    if (!qd || !qn || !tv) {
        fprintf(stderr, "gen_registry: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < nq; i++) {
        bool real = LLMMEM__QT_BASE(q[i].type) == LLMMEM__QT_REAL;
        qd[i] = real ? LLMMEM__X_TEXT : code_of(q[i].def, q, nq);
        qn[i] = real ? LLMMEM__X_TEXT : code_of(q[i].nul, q, nq);
    }
    for (int i = 0; i < nt; i++) {
        tv[4 * i] = code_of(t[i].when, q, nq);
        tv[4 * i + 1] = code_of(t[i].rows, q, nq);
        tv[4 * i + 2] = code_of(t[i].cols, q, nq);
        tv[4 * i + 3] = code_of(t[i].count, q, nq);
    }
    static const char *const canon_syms[] = {
#define NAME(s) #s,
        LLMMEM__CANON(NAME)
#undef NAME
    };
    cx e;
    e.q = q;
    e.nq = nq;
    for (int c = 0; c < LLMMEM__NCANON; c++)
        canon[c] = symbol(&e, canon_syms[c], strlen(canon_syms[c]));
    int32_t pat[6] = {LLMMEM__X_TEXT, LLMMEM__X_TEXT, LLMMEM__X_TEXT, LLMMEM__X_TEXT, LLMMEM__X_TEXT, LLMMEM__X_TEXT};
    if (mixer) {
        pat[0] = code_of(mixer->arg, q, nq);
        pat[1] = code_of(mixer->arg2, q, nq);
        pat[2] = code_of(mixer->expr, q, nq);
        pat[3] = code_of(ffn->arg, q, nq);
        pat[4] = code_of(ffn->arg2, q, nq);
        pat[5] = code_of(ffn->expr, q, nq);
    }
    const char *a = array_of("q", qd, nq, "int32_t"), *b = array_of("q", qn, nq, "int32_t");
    const char *c = array_of("t", tv, 4 * nt, "int32_t");
    int32_t cw[LLMMEM__NCANON];
    for (int i = 0; i < LLMMEM__NCANON; i++)
        cw[i] = canon[i];
    const char *d = array_of("c", cw, LLMMEM__NCANON, "int8_t");
    /* llmmem__qvals_init's table: each name at its hash, probing on; the
     * first of equal names keeps the slot */
    int32_t slot[LLMMEM__Q_SLOTS] = {0}, len[LLMMEM__MAX_Q] = {0};
    for (int i = 0; i < nq && i < LLMMEM__MAX_Q; i++) {
        len[i] = (int32_t)strlen(q[i].sym);
        unsigned h = llmmem__qvals_hash(q[i].sym, (size_t)len[i]);
        while (slot[h] && !(len[slot[h] - 1] == len[i] && !memcmp(q[slot[h] - 1].sym, q[i].sym, (size_t)len[i])))
            h = (h + 1) & (LLMMEM__Q_SLOTS - 1);
        if (!slot[h])
            slot[h] = i + 1;
    }
    const char *sl = array_of("s", slot, LLMMEM__Q_SLOTS, "uint8_t"), *ln = array_of("n", len, nq, "uint8_t");
    fprintf(out, "    {%d, %d, %s, %s, %s, %s, %s, {%d, %d, %d}, {%d, %d, %d}, %s}, /* %s */\n", nq, nt, sl, ln, a, b, c,
            (int)pat[0], (int)pat[1], (int)pat[2], (int)pat[3], (int)pat[4], (int)pat[5], d, what);
    free(qd);
    free(qn);
    free(tv);
}

typedef struct named {
    const char *type;
    int index;
} named;

static int by_type(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->type, y->type);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

int main(void)
{
    /* three parts written apart, then joined: the ops, the arrays, the entries */
    FILE *ops = tmpfile(), *arrays = tmpfile(), *entries = tmpfile();
    if (!ops || !arrays || !entries) {
        fprintf(stderr, "gen_registry: no temporary file\n");
        return 1;
    }
    code_out = ops;
    arr_out = arrays;
    struct {
        const llmmem__arch *rows;
        int n;
    } tables[] = {
#define TABLE(t) {t, 0},
        LLMMEM__FAMILY_TABLES(TABLE)
#undef TABLE
    };
    const int *counts[] = {
#define COUNT(t) &t##_count,
        LLMMEM__FAMILY_TABLES(COUNT)
#undef COUNT
    };
    int nfam = 0;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        tables[i].n = *counts[i];
        nfam += tables[i].n;
    }
    named *names = malloc((size_t)nfam * sizeof *names);
    if (!names)
        return 1;
    int k = 0;
    fprintf(entries, "const llmmem__xcode llmmem__xcode_fams[] = {\n");
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        for (int j = 0; j < tables[i].n; j++, k++) {
            const llmmem__arch *f = &tables[i].rows[j];
            entry(entries, f->type, f->q, f->nq, f->t, f->nt, &f->mixer, &f->ffn);
            names[k] = (named){f->type, k};
        }
    fprintf(entries, "};\nconst int llmmem__xcode_fams_count = %d;\n\n", nfam);
    fprintf(entries, "const llmmem__xcode llmmem__xcode_towers[] = {\n");
    for (int j = 0; j < llmmem__towers_multimodal_count; j++) {
        const llmmem__arch *f = &llmmem__towers_multimodal[j];
        entry(entries, f->type, f->q, f->nq, f->t, f->nt, &f->mixer, &f->ffn);
    }
    fprintf(entries, "};\nconst int llmmem__xcode_towers_count = %d;\n\n", llmmem__towers_multimodal_count);
    fprintf(entries, "const llmmem__xcode llmmem__xcode_composites[] = {\n");
    for (int j = 0; j < llmmem__composites_multimodal_count; j++) {
        const llmmem__composite *c = &llmmem__composites_multimodal[j];
        entry(entries, c->type, c->q, c->nq, c->t, c->nt, NULL, NULL);
    }
    fprintf(entries, "};\nconst int llmmem__xcode_composites_count = %d;\n\n", llmmem__composites_multimodal_count);
    qsort(names, (size_t)nfam, sizeof *names, by_type);
    fprintf(entries, "/* llmmem__arch_at indices by model_type */\nconst uint16_t llmmem__arch_by_type[] = {");
    for (int i = 0; i < nfam; i++)
        fprintf(entries, "%s%d", i == 0 ? "\n    " : i % 16 ? ", " : ",\n    ", names[i].index);
    fprintf(entries, "\n};\n");

    printf("/* Generated by mk/gen_registry.c from the family tables (src/model/fam_*.c): do not\n"
           " * edit. The Makefile writes it again when a table changes; test_registry_code.sh\n"
           " * checks it is current. registry.h says what each table is. */\n"
           "#include \"model/registry.h\"\n\n"
           "/* %d ops: each expression's code once, after its text */\n"
           "const llmmem__xop llmmem__xops[] = {\n",
           nall);
    FILE *parts[] = {ops, arrays, entries};
    for (int p = 0; p < 3; p++) {
        if (p == 1)
            printf("};\n\n");
        rewind(parts[p]);
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, parts[p])) > 0)
            fwrite(buf, 1, n, stdout);
        if (p == 1)
            printf("\n");
        fclose(parts[p]);
    }
    free(names);
    fprintf(stderr, "gen_registry: %d expressions compiled into %d ops, %d read as text\n", compiled, nall, kept);
    return ferror(stdout) ? 1 : 0;
}
