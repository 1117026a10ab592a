/* Integer expressions of the architecture registry (src/model/registry.h):
 * the default of a quantity ("h / a"), a tensor's shape ("a * d"), its count
 * and its condition ("!tie"). The grammar is C's, for 64-bit integers:
 *
 *   expr  := or ['?' expr ':' expr]
 *   or    := and {'||' and}          and := cmp {'&&' cmp}
 *   cmp   := sum [('=='|'!='|'<'|'<='|'>'|'>=') sum]
 *   sum   := prod {('+'|'-') prod}   prod := unary {('*'|'/'|'%') unary}
 *   unary := ['-'|'!'] atom
 *   atom  := number | symbol | fn '(' expr {',' expr} ')' | '(' expr ')'
 *   fn    := max | min | cdiv | isqrt | rmul
 *            (cdiv(a, b): a / b rounded up; isqrt(a): the floor of the square
 *            root; rmul(x, r): floor(x * r), r a real quantity)
 *
 * Symbols are the quantities of the model (llmmem__qvals). Division by zero,
 * an overflow, an unknown symbol or a syntax error is an error with the
 * expression in the message: registry entries are data, and a wrong one must
 * fail loudly (test_model.c evaluates every entry). */
#include "model/model.h"
#include "model/expr_lex.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct ex {
    const char *p;
    const char *text;
    const llmmem__qvals *q;
    int err;  /* first error status, 0 = none */
    int skip; /* > 0 inside a branch whose value is not used: no errors */
} ex;

static int64_t fail(ex *e, int status, const char *what)
{
    if (!e->err && !e->skip) {
        e->err = status;
        llmmem__error(status, "registry expression \"%s\": %s at offset %d", e->text, what,
                      (int)(e->p - e->text));
    }
    return 0;
}

static void skip(ex *e) { llmmem__lex_skip(&e->p); }

/* The next character after spaces (consumed). */
static char peek(ex *e)
{
    skip(e);
    return *e->p;
}

static bool eat(ex *e, const char *tok) { return llmmem__lex_eat(&e->p, tok); }

static int64_t checked(ex *e, bool overflow, int64_t v)
{
    return overflow ? fail(e, LLMMEM_E_OUT_OF_RANGE, "overflow") : v;
}

static int64_t expr(ex *e);


bool llmmem__qvals_find(const llmmem__qvals *q, const char *sym, size_t len, int *index)
{
    if (!len || len > 255)
        return false;
    /* by the table qvals_init fills: the first symbol of that name */
    for (unsigned h = llmmem__qvals_hash(sym, len); q->slot[h]; h = (h + 1) & (LLMMEM__Q_SLOTS - 1)) {
        const int i = q->slot[h] - 1;
        if (i < q->n && q->len[i] == len) {
            size_t j = 0;
            while (j < len && q->sym[i][j] == sym[j])
                j++;
            if (j == len) {
                *index = i;
                return true;
            }
        }
    }
    return false;
}

/* floor(sqrt(v)) for v >= 0, in integers (Python's math.isqrt / floor(math.sqrt)) */
static int64_t isqrt64(int64_t v)
{
    int64_t r = 0;
    for (int64_t bit = INT64_C(1) << 31; bit > 0; bit >>= 1)
        if ((r + bit) <= v / (r + bit))
            r += bit;
    return r;
}

/* rmul(x, r): floor(x * r) for a real quantity r (Python's int(x * factor):
 * lfm2's block_ffn_dim_multiplier, xlstm's qk_dim_factor). */
static int64_t rmul(ex *e)
{
    int64_t x = expr(e);
    if (!eat(e, ","))
        return fail(e, LLMMEM_E_INTERNAL, "rmul takes two arguments");
    skip(e);
    const char *s = e->p;
    while (llmmem__lex_ident(*e->p) || llmmem__lex_digit(*e->p))
        e->p++;
    int i;
    if (e->p == s || !llmmem__qvals_find(e->q, s, (size_t)(e->p - s), &i)) {
        e->p = s;
        return fail(e, LLMMEM_E_INTERNAL, "rmul needs a real symbol");
    }
    if (!eat(e, ")"))
        return fail(e, LLMMEM_E_INTERNAL, "expected ')'");
    double v = floor((double)x * e->q->r[i]);
    if (!(v > -9.0e18 && v < 9.0e18))
        return fail(e, LLMMEM_E_OUT_OF_RANGE, "overflow");
    return (int64_t)v;
}

static int64_t call(ex *e, const char *fn, size_t n)
{
    if (n == 4 && !memcmp(fn, "rmul", 4))
        return rmul(e);
    int64_t args[2] = {0, 0};
    int argc = 0;
    do {
        int64_t v = expr(e);
        if (argc < 2)
            args[argc] = v;
        argc++;
    } while (eat(e, ","));
    if (!eat(e, ")"))
        return fail(e, LLMMEM_E_INTERNAL, "expected ')'");
    bool unary_fn = n == 5 && !memcmp(fn, "isqrt", 5);
    if (argc != (unary_fn ? 1 : 2))
        return fail(e, LLMMEM_E_INTERNAL, unary_fn ? "isqrt takes one argument" : "a function takes two arguments");
    if (unary_fn) {
        if (args[0] < 0)
            return fail(e, LLMMEM_E_OUT_OF_RANGE, "isqrt of a negative value");
        return isqrt64(args[0]);
    }
    if (n == 3 && !memcmp(fn, "max", 3))
        return args[0] > args[1] ? args[0] : args[1];
    if (n == 3 && !memcmp(fn, "min", 3))
        return args[0] < args[1] ? args[0] : args[1];
    if (n == 4 && !memcmp(fn, "cdiv", 4)) {
        if (args[1] <= 0 || args[0] < 0)
            return fail(e, LLMMEM_E_OUT_OF_RANGE, "cdiv by a non-positive value");
        return args[0] / args[1] + (args[0] % args[1] != 0);
    }
    return fail(e, LLMMEM_E_INTERNAL, "unknown function");
}

static int64_t atom(ex *e)
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
        return checked(e, ovf, v);
    }
    if (llmmem__lex_ident(*s)) {
        while (llmmem__lex_ident(*e->p) || llmmem__lex_digit(*e->p))
            e->p++;
        size_t n = (size_t)(e->p - s);
        if (eat(e, "("))
            return call(e, s, n);
        int i;
        if (!llmmem__qvals_find(e->q, s, n, &i)) {
            /* a misspelt symbol is an error in either branch */
            int skip = e->skip;
            e->p = s;
            e->skip = 0;
            fail(e, LLMMEM_E_INTERNAL, "unknown symbol");
            e->skip = skip;
            return 0;
        }
        return e->q->v[i];
    }
    if (eat(e, "(")) {
        int64_t v = expr(e);
        if (!eat(e, ")"))
            return fail(e, LLMMEM_E_INTERNAL, "expected ')'");
        return v;
    }
    return fail(e, LLMMEM_E_INTERNAL, "expected a number, a symbol or '('");
}

static int64_t unary(ex *e)
{
    const char c = peek(e);
    if (c != '-' && c != '!')
        return atom(e);
    if (eat(e, "-")) {
        int64_t v = unary(e);
        return checked(e, v == INT64_MIN, -v);
    }
    if (eat(e, "!"))
        return !unary(e);
    return atom(e);
}

/* The binary operators by precedence climbing over the grammar above: 5 the
 * products, 4 the sums, 3 one comparison (they do not chain), 2 &&, 1 ||.
 * An operator is taken when its precedence is at least `min` and at most
 * that of the last one taken at this level (less for a second comparison),
 * so each level accepts exactly the grammar's sentences, with the same
 * position at each error; && and || parse the operand whose value is not
 * needed without its errors (e->skip). */
static int64_t binary(ex *e, int min)
{
    int64_t v = unary(e);
    int last = 6;
    for (;;) {
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
            return v;
        if (prec < min || prec > last || (prec == 3 && last == 3))
            return v;
        last = prec;
        e->p += len;
        int64_t w, r = 0;
        bool ovf;
        switch (prec) {
        case 5:
            w = unary(e); /* no space after it is read before an error */
            if (c == '*') {
                ovf = __builtin_mul_overflow(v, w, &r);
                v = checked(e, ovf, r);
            } else if (w == 0) {
                fail(e, LLMMEM_E_OUT_OF_RANGE, "division by zero");
                v = 0;
            } else {
                v = c == '/' ? v / w : v % w;
            }
            break;
        case 4:
            w = binary(e, 5);
            ovf = c == '+' ? __builtin_add_overflow(v, w, &r) : __builtin_sub_overflow(v, w, &r);
            v = checked(e, ovf, r);
            break;
        case 3:
            w = binary(e, 4);
            v = c == '=' ? v == w : c == '!' ? v != w : c == '<' ? (len == 2 ? v <= w : v < w)
                                                                : (len == 2 ? v >= w : v > w);
            break;
        case 2: /* the right operand's value only when the left is true */
            if (v) {
                v = binary(e, 3) != 0;
            } else {
                e->skip++;
                binary(e, 3);
                e->skip--;
            }
            break;
        default: /* || : the right operand's value only when the left is false */
            if (v) {
                e->skip++;
                binary(e, 2);
                e->skip--;
                v = 1;
            } else {
                v = binary(e, 2) != 0;
            }
            break;
        }
    }
}

/* Parses an expression whose value is not needed (the other branch of ?:):
 * syntax is still checked, values are not. */
static int64_t unused(ex *e)
{
    e->skip++;
    expr(e);
    e->skip--;
    return 0;
}

static int64_t expr(ex *e)
{
    int64_t c = binary(e, 1);
    if (peek(e) != '?' || !eat(e, "?"))
        return c;
    int64_t a = c ? expr(e) : unused(e);
    if (!eat(e, ":"))
        return fail(e, LLMMEM_E_INTERNAL, "expected ':'");
    int64_t b = c ? unused(e) : expr(e);
    return c ? a : b;
}

int llmmem__expr_eval(int64_t *out, const char *text, const llmmem__qvals *q)
{
    /* a lone symbol or a short number (most rows' shapes and flags: "h", "V",
     * "mb", "0") is read without the parser; anything else, or a symbol the
     * model lacks, takes the parser (which reports it) */
    const char *p = text;
    if (llmmem__lex_ident(*p)) {
        while (llmmem__lex_ident(*p) || llmmem__lex_digit(*p))
            p++;
        int i;
        if (!*p && llmmem__qvals_find(q, text, (size_t)(p - text), &i)) {
            *out = q->v[i];
            return 0;
        }
    } else if (llmmem__lex_digit(*p)) {
        int64_t v = 0;
        while (llmmem__lex_digit(*p) && p - text < 18)
            v = v * 10 + (*p++ - '0');
        if (!*p) {
            *out = v;
            return 0;
        }
    }
    ex e = {.p = text, .text = text, .q = q, .err = 0, .skip = 0};
    int64_t v = expr(&e);
    skip(&e);
    if (!e.err && *e.p)
        fail(&e, LLMMEM_E_INTERNAL, "unexpected text");
    if (e.err)
        return e.err;
    *out = v;
    return 0;
}

/* ---- compiled expressions (registry.h) -------------------------------------------------- */

static int run_fail(const char *text, int status, const char *what, const llmmem__xop *o)
{
    return llmmem__error(status, "registry expression \"%s\": %s at offset %d", text, what, (int)o->off);
}

int llmmem__expr_run(int64_t *out, int32_t at, const char *text, const llmmem__qvals *q)
{
    if (at < 0)
        return llmmem__expr_eval(out, text, q);
    const llmmem__xop *const base = llmmem__xops;
    const llmmem__xop *o = base + at;
    if (o->op == LLMMEM__X_RET_SYM) {
        *out = q->v[o->arg];
        return 0;
    }
    if (o->op == LLMMEM__X_RET_CONST) {
        *out = o->arg;
        return 0;
    }
    int64_t st[32], r, a, b; /* the generator keeps an expression's pushes within 32 */
    int sp = -1;
    for (;; o++) {
        switch (o->op) {
        case LLMMEM__X_END: *out = st[sp]; return 0;
        case LLMMEM__X_SYM: st[++sp] = q->v[o->arg]; break;
        case LLMMEM__X_CONST: st[++sp] = o->arg; break;
        case LLMMEM__X_NEG:
            if (st[sp] == INT64_MIN)
                return run_fail(text, LLMMEM_E_OUT_OF_RANGE, "overflow", o);
            st[sp] = -st[sp];
            break;
        case LLMMEM__X_NOT: st[sp] = !st[sp]; break;
        case LLMMEM__X_MUL:
        case LLMMEM__X_ADD:
        case LLMMEM__X_SUB:
            a = st[sp - 1], b = st[sp--];
            if (o->op == LLMMEM__X_MUL ? __builtin_mul_overflow(a, b, &r)
                : o->op == LLMMEM__X_ADD ? __builtin_add_overflow(a, b, &r)
                                         : __builtin_sub_overflow(a, b, &r))
                return run_fail(text, LLMMEM_E_OUT_OF_RANGE, "overflow", o);
            st[sp] = r;
            break;
        case LLMMEM__X_DIV:
        case LLMMEM__X_MOD:
            a = st[sp - 1], b = st[sp--];
            if (b == 0)
                return run_fail(text, LLMMEM_E_OUT_OF_RANGE, "division by zero", o);
            st[sp] = o->op == LLMMEM__X_DIV ? a / b : a % b;
            break;
        case LLMMEM__X_EQ: b = st[sp--]; st[sp] = st[sp] == b; break;
        case LLMMEM__X_NE: b = st[sp--]; st[sp] = st[sp] != b; break;
        case LLMMEM__X_LT: b = st[sp--]; st[sp] = st[sp] < b; break;
        case LLMMEM__X_LE: b = st[sp--]; st[sp] = st[sp] <= b; break;
        case LLMMEM__X_GT: b = st[sp--]; st[sp] = st[sp] > b; break;
        case LLMMEM__X_GE: b = st[sp--]; st[sp] = st[sp] >= b; break;
        case LLMMEM__X_AND: /* the right operand only when the left is true */
            if (!st[sp])
                o = base + o->arg - 1;
            else
                sp--;
            break;
        case LLMMEM__X_OR: /* the right operand only when the left is false */
            if (st[sp]) {
                st[sp] = 1;
                o = base + o->arg - 1;
            } else {
                sp--;
            }
            break;
        case LLMMEM__X_BOOL: st[sp] = st[sp] != 0; break;
        case LLMMEM__X_JZ:
            if (!st[sp--])
                o = base + o->arg - 1;
            break;
        case LLMMEM__X_JMP: o = base + o->arg - 1; break;
        case LLMMEM__X_MAX: b = st[sp--]; st[sp] = st[sp] > b ? st[sp] : b; break;
        case LLMMEM__X_MIN: b = st[sp--]; st[sp] = st[sp] < b ? st[sp] : b; break;
        case LLMMEM__X_CDIV:
            a = st[sp - 1], b = st[sp--];
            if (b <= 0 || a < 0)
                return run_fail(text, LLMMEM_E_OUT_OF_RANGE, "cdiv by a non-positive value", o);
            st[sp] = a / b + (a % b != 0);
            break;
        case LLMMEM__X_ISQRT:
            if (st[sp] < 0)
                return run_fail(text, LLMMEM_E_OUT_OF_RANGE, "isqrt of a negative value", o);
            st[sp] = isqrt64(st[sp]);
            break;
        case LLMMEM__X_RMUL: {
            double v = floor((double)st[sp] * q->r[o->arg]);
            if (!(v > -9.0e18 && v < 9.0e18))
                return run_fail(text, LLMMEM_E_OUT_OF_RANGE, "overflow", o);
            st[sp] = (int64_t)v;
            break;
        }
        default: return llmmem__error(LLMMEM_E_INTERNAL, "registry expression \"%s\": bad code", text);
        }
    }
}

