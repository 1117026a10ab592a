/* The registry expressions' tokens, read once for the parser (expr.c) and the
 * build-time compiler that follows it move for move (mk/gen_registry.c): the
 * same moves over the text, so the compiled ops carry the offsets the parser
 * reports. Tokens are one or two characters, compared in place (this runs for
 * every operator of every expression of every parse). */
#ifndef LLMMEM_MODEL_EXPR_LEX_H
#define LLMMEM_MODEL_EXPR_LEX_H

#include <stdbool.h>

static inline bool llmmem__lex_ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static inline bool llmmem__lex_digit(char c) { return c >= '0' && c <= '9'; }

/* *p past the spaces. */
static inline void llmmem__lex_skip(const char **p)
{
    while (**p == ' ')
        (*p)++;
}

/* Whether tok comes next after spaces; *p past it when it does. */
static inline bool llmmem__lex_eat(const char **pp, const char *tok)
{
    llmmem__lex_skip(pp);
    const char *p = *pp;
    if (p[0] != tok[0])
        return false;
    if (tok[1]) {
        if (p[1] != tok[1])
            return false;
        *pp += 2;
        return true;
    }
    /* '<' must not eat the first character of '<=', '!' not of '!=' */
    if ((tok[0] == '<' || tok[0] == '>' || tok[0] == '!' || tok[0] == '=') && p[1] == '=')
        return false;
    if ((tok[0] == '&' || tok[0] == '|') && p[1] == tok[0])
        return false;
    *pp += 1;
    return true;
}

#endif /* LLMMEM_MODEL_EXPR_LEX_H */
