/* Lexer and recursive-descent parser of the Fig. 4 rulebase language (see
 * rulebase.h). Tokens carry their line and column so every error names them. */
#include "contract/rulebase.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tok_kind { T_EOF, T_IDENT, T_NUMBER, T_PUNCT, T_EQEQ, T_AND, T_OR, T_BAD };

struct token {
    enum tok_kind kind;
    const char *start;
    size_t len;
    double number;
    int line, col;
};

struct parser {
    const char *p, *end;
    int line, col;
    struct token tok;
    struct rulebase *rb;
    char *why;
    size_t why_size;
    int failed;
};

static void fail(struct parser *ps, int line, int col, const char *fmt, const char *what)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    char msg[160];
    snprintf(msg, sizeof msg, fmt, what);
    snprintf(ps->why, ps->why_size, "%d:%d: %s", line, col, msg);
}

static void advance_char(struct parser *ps)
{
    if (*ps->p == '\n') {
        ps->line++;
        ps->col = 1;
    } else {
        ps->col++;
    }
    ps->p++;
}

static void skip_blanks_and_comments(struct parser *ps)
{
    while (ps->p < ps->end) {
        char c = *ps->p;
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
            advance_char(ps);
        } else if (c == '#' || (c == '/' && ps->p + 1 < ps->end && ps->p[1] == '/')) {
            while (ps->p < ps->end && *ps->p != '\n')
                advance_char(ps);
        } else {
            break;
        }
    }
}

/* A number as the paper writes them: optional sign, digits, '.', exponent
 * (".5", "-1", "2e-3"). Returns the characters used, 0 when none. */
static size_t scan_number(const char *p, const char *end, double *out)
{
    char buf[64];
    size_t n = 0;
    const char *q = p;
    if (q < end && (*q == '-' || *q == '+'))
        q++;
    int digits = 0;
    while (q < end && isdigit((unsigned char)*q)) { q++; digits++; }
    if (q < end && *q == '.') {
        q++;
        while (q < end && isdigit((unsigned char)*q)) { q++; digits++; }
    }
    if (!digits)
        return 0;
    if (q < end && (*q == 'e' || *q == 'E')) {
        const char *e = q + 1;
        if (e < end && (*e == '-' || *e == '+'))
            e++;
        if (e < end && isdigit((unsigned char)*e)) {
            while (e < end && isdigit((unsigned char)*e))
                e++;
            q = e;
        }
    }
    n = (size_t)(q - p);
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, p, n);
    buf[n] = 0;
    *out = strtod(buf, NULL);
    return n;
}

static void next(struct parser *ps)
{
    skip_blanks_and_comments(ps);
    struct token *t = &ps->tok;
    t->line = ps->line;
    t->col = ps->col;
    t->start = ps->p;
    t->len = 0;
    if (ps->p >= ps->end) {
        t->kind = T_EOF;
        return;
    }
    char c = *ps->p;
    size_t n = 0;
    if (isalpha((unsigned char)c) || c == '_') {
        while (ps->p + n < ps->end && (isalnum((unsigned char)ps->p[n]) || ps->p[n] == '_'))
            n++;
        t->kind = T_IDENT;
    } else if (isdigit((unsigned char)c) || c == '.' || c == '-' || c == '+') {
        n = scan_number(ps->p, ps->end, &t->number);
        t->kind = n ? T_NUMBER : T_BAD;
        if (!n)
            n = 1;
    } else if (c == '=' && ps->p + 1 < ps->end && ps->p[1] == '=') {
        t->kind = T_EQEQ;
        n = 2;
    } else if (c == '&' && ps->p + 1 < ps->end && ps->p[1] == '&') {
        t->kind = T_AND;
        n = 2;
    } else if (c == '|' && ps->p + 1 < ps->end && ps->p[1] == '|') {
        t->kind = T_OR;
        n = 2;
    } else if (strchr("(){};,=", c) && c) {
        t->kind = T_PUNCT;
        n = 1;
    } else {
        t->kind = T_BAD;
        n = 1;
    }
    t->len = n;
    for (size_t i = 0; i < n; i++)
        advance_char(ps);
}

/* The current token as text for messages ("end of input" at the end). */
static const char *tok_text(const struct parser *ps, char *buf, size_t buflen)
{
    if (ps->tok.kind == T_EOF)
        return "end of input";
    size_t n = ps->tok.len < 24 ? ps->tok.len : 24;
    snprintf(buf, buflen, "'%.*s'", (int)n, ps->tok.start);
    for (char *q = buf; *q; q++)
        if (!isprint((unsigned char)*q))
            *q = '?';
    return buf;
}

static int is_punct(const struct parser *ps, char c)
{
    return ps->tok.kind == T_PUNCT && ps->tok.start[0] == c;
}

static int is_word(const struct parser *ps, const char *w)
{
    return ps->tok.kind == T_IDENT && ps->tok.len == strlen(w) && !memcmp(ps->tok.start, w, ps->tok.len);
}

static int expect_punct(struct parser *ps, char c, const char *context)
{
    if (ps->failed)
        return -1;
    if (!is_punct(ps, c)) {
        char buf[48], what[160];
        snprintf(what, sizeof what, "expected '%c' %s, found %s", c, context, tok_text(ps, buf, sizeof buf));
        fail(ps, ps->tok.line, ps->tok.col, "%s", what);
        return -1;
    }
    next(ps);
    return 0;
}

static int expect_ident(struct parser *ps, char *out, const char *context)
{
    if (ps->failed)
        return -1;
    if (ps->tok.kind != T_IDENT) {
        char buf[48], what[160];
        snprintf(what, sizeof what, "expected %s, found %s", context, tok_text(ps, buf, sizeof buf));
        fail(ps, ps->tok.line, ps->tok.col, "%s", what);
        return -1;
    }
    if (ps->tok.len >= RULEBASE_NAME_MAX) {
        fail(ps, ps->tok.line, ps->tok.col, "name longer than %s characters", "31");
        return -1;
    }
    memcpy(out, ps->tok.start, ps->tok.len);
    out[ps->tok.len] = 0;
    next(ps);
    return 0;
}

static int expect_number(struct parser *ps, double *out, const char *context)
{
    if (ps->failed)
        return -1;
    if (ps->tok.kind != T_NUMBER || !isfinite(ps->tok.number)) {
        char buf[48], what[160];
        snprintf(what, sizeof what, "expected a number %s, found %s", context, tok_text(ps, buf, sizeof buf));
        fail(ps, ps->tok.line, ps->tok.col, "%s", what);
        return -1;
    }
    *out = ps->tok.number;
    next(ps);
    return 0;
}

/* set trapez NAME ( a, b, c, d ); | set triangle NAME ( m, l, r ); */
static void parse_set(struct parser *ps, struct fuzzy_var *v)
{
    next(ps); /* 'set' */
    int line = ps->tok.line, col = ps->tok.col;
    enum fuzzy_shape shape;
    int n_params;
    if (is_word(ps, "trapez")) {
        shape = FUZZY_TRAPEZ;
        n_params = 4;
    } else if (is_word(ps, "triangle")) {
        shape = FUZZY_TRIANGLE;
        n_params = 3;
    } else {
        char buf[48];
        fail(ps, line, col, "expected 'trapez' or 'triangle' after 'set', found %s",
             tok_text(ps, buf, sizeof buf));
        return;
    }
    next(ps);
    line = ps->tok.line;
    col = ps->tok.col;
    char name[RULEBASE_NAME_MAX];
    if (expect_ident(ps, name, "a set name") < 0)
        return;
    if (rulebase_find_set(v, name) >= 0) {
        fail(ps, line, col, "set '%s' defined twice", name);
        return;
    }
    if (v->n_sets == RULEBASE_MAX_SETS) {
        fail(ps, line, col, "too many sets in one variable (at most %s)", "16");
        return;
    }
    struct fuzzy_set *s = &v->sets[v->n_sets];
    memset(s, 0, sizeof *s);
    memcpy(s->name, name, sizeof name);
    s->shape = shape;
    if (expect_punct(ps, '(', "before the set's parameters") < 0)
        return;
    for (int i = 0; i < n_params; i++) {
        if (i > 0 && expect_punct(ps, ',', "between parameters") < 0)
            return;
        int pl = ps->tok.line, pc = ps->tok.col;
        if (expect_number(ps, &s->p[i], "as a set parameter") < 0)
            return;
        /* widths (trapez c d, triangle l r) cannot be negative */
        int is_width = shape == FUZZY_TRAPEZ ? i >= 2 : i >= 1;
        if (is_width && s->p[i] < 0) {
            fail(ps, pl, pc, "%s: a width cannot be negative", shape == FUZZY_TRAPEZ ? "trapez" : "triangle");
            return;
        }
    }
    if (shape == FUZZY_TRAPEZ && s->p[1] < s->p[0]) {
        fail(ps, line, col, "trapez %s: the top ends before it starts (b < a)", name);
        return;
    }
    if (ps->failed)
        return;
    if (!is_punct(ps, ')')) {
        char buf[48], what[160];
        snprintf(what, sizeof what, "expected ')' after %d parameters of %s, found %s", n_params,
                 shape == FUZZY_TRAPEZ ? "trapez" : "triangle", tok_text(ps, buf, sizeof buf));
        fail(ps, ps->tok.line, ps->tok.col, "%s", what);
        return;
    }
    next(ps);
    if (expect_punct(ps, ';', "after a set") < 0)
        return;
    v->n_sets++;
}

/* var NAME ( lo, hi ) { set ...; ... } */
static void parse_var(struct parser *ps)
{
    next(ps); /* 'var' */
    int line = ps->tok.line, col = ps->tok.col;
    char name[RULEBASE_NAME_MAX];
    if (expect_ident(ps, name, "a variable name after 'var'") < 0)
        return;
    struct rulebase *rb = ps->rb;
    if (rulebase_find_var(rb, name) >= 0) {
        fail(ps, line, col, "variable '%s' defined twice", name);
        return;
    }
    if (rb->n_vars == RULEBASE_MAX_VARS) {
        fail(ps, line, col, "too many variables (at most %s)", "16");
        return;
    }
    struct fuzzy_var *v = &rb->vars[rb->n_vars];
    memset(v, 0, sizeof *v);
    memcpy(v->name, name, sizeof name);
    if (expect_punct(ps, '(', "after the variable name") < 0)
        return;
    int rl = ps->tok.line, rc = ps->tok.col;
    if (expect_number(ps, &v->lo, "(the range's low end)") < 0 || expect_punct(ps, ',', "in the range") < 0 ||
        expect_number(ps, &v->hi, "(the range's high end)") < 0 || expect_punct(ps, ')', "after the range") < 0)
        return;
    if (!(v->lo < v->hi)) {
        fail(ps, rl, rc, "range of '%s' is empty (low end not below high end)", name);
        return;
    }
    if (expect_punct(ps, '{', "to open the variable's sets") < 0)
        return;
    while (!ps->failed && is_word(ps, "set"))
        parse_set(ps, v);
    if (ps->failed)
        return;
    if (v->n_sets == 0) {
        fail(ps, line, col, "variable '%s' has no set", name);
        return;
    }
    if (!is_punct(ps, '}')) {
        char buf[48];
        fail(ps, ps->tok.line, ps->tok.col, "expected 'set' or '}' in a variable, found %s",
             tok_text(ps, buf, sizeof buf));
        return;
    }
    next(ps);
    rb->n_vars++;
}

static int new_node(struct parser *ps, int line, int col)
{
    if (ps->rb->n_nodes == RULEBASE_MAX_NODES) {
        fail(ps, line, col, "conditions too large (at most %s terms in all)", "512");
        return -1;
    }
    return ps->rb->n_nodes++;
}

static int parse_or(struct parser *ps, int depth);

/* VAR == SET | ( or-expression ) */
static int parse_atom(struct parser *ps, int depth)
{
    if (ps->failed)
        return -1;
    if (depth > 32) {
        fail(ps, ps->tok.line, ps->tok.col, "conditions nested too deeply (at most %s)", "32");
        return -1;
    }
    if (is_punct(ps, '(')) {
        next(ps);
        int n = parse_or(ps, depth + 1);
        if (expect_punct(ps, ')', "to close a condition") < 0)
            return -1;
        return n;
    }
    int line = ps->tok.line, col = ps->tok.col;
    char var[RULEBASE_NAME_MAX], set[RULEBASE_NAME_MAX];
    if (expect_ident(ps, var, "a variable in a condition") < 0)
        return -1;
    int vi = rulebase_find_var(ps->rb, var);
    if (vi < 0) {
        fail(ps, line, col, "unknown variable '%s'", var);
        return -1;
    }
    if (ps->tok.kind != T_EQEQ) {
        char buf[48];
        fail(ps, ps->tok.line, ps->tok.col, "expected '==' after the variable, found %s",
             tok_text(ps, buf, sizeof buf));
        return -1;
    }
    next(ps);
    int sl = ps->tok.line, sc = ps->tok.col;
    if (expect_ident(ps, set, "a set name after '=='") < 0)
        return -1;
    int si = rulebase_find_set(&ps->rb->vars[vi], set);
    if (si < 0) {
        char what[96];
        snprintf(what, sizeof what, "'%s' is not a set of '%s'", set, var);
        fail(ps, sl, sc, "%s", what);
        return -1;
    }
    int n = new_node(ps, line, col);
    if (n < 0)
        return -1;
    ps->rb->nodes[n] = (struct cond_node){.kind = COND_IS, .var = vi, .set = si, .left = -1, .right = -1};
    return n;
}

static int parse_and(struct parser *ps, int depth)
{
    int left = parse_atom(ps, depth);
    while (!ps->failed && ps->tok.kind == T_AND) {
        int line = ps->tok.line, col = ps->tok.col;
        next(ps);
        int right = parse_atom(ps, depth);
        int n = right < 0 ? -1 : new_node(ps, line, col);
        if (n < 0)
            return -1;
        ps->rb->nodes[n] = (struct cond_node){.kind = COND_AND, .left = left, .right = right};
        left = n;
    }
    return left;
}

static int parse_or(struct parser *ps, int depth)
{
    int left = parse_and(ps, depth);
    while (!ps->failed && ps->tok.kind == T_OR) {
        int line = ps->tok.line, col = ps->tok.col;
        next(ps);
        int right = parse_and(ps, depth);
        int n = right < 0 ? -1 : new_node(ps, line, col);
        if (n < 0)
            return -1;
        ps->rb->nodes[n] = (struct cond_node){.kind = COND_OR, .left = left, .right = right};
        left = n;
    }
    return left;
}

/* Marks that a variable is read in a condition (inputs cannot be assigned). */
static int node_reads(const struct rulebase *rb, int n, int var)
{
    const struct cond_node *c = &rb->nodes[n];
    if (c->kind == COND_IS)
        return c->var == var;
    return node_reads(rb, c->left, var) || node_reads(rb, c->right, var);
}

/* if ( condition ) { VAR = SET; ... } */
static void parse_rule(struct parser *ps)
{
    int line = ps->tok.line, col = ps->tok.col;
    next(ps); /* 'if' */
    struct rulebase *rb = ps->rb;
    if (rb->n_rules == RULEBASE_MAX_RULES) {
        fail(ps, line, col, "too many rules (at most %s)", "64");
        return;
    }
    struct fuzzy_rule *r = &rb->rules[rb->n_rules];
    memset(r, 0, sizeof *r);
    if (expect_punct(ps, '(', "after 'if'") < 0)
        return;
    r->cond = parse_or(ps, 0);
    if (expect_punct(ps, ')', "after the condition") < 0 || expect_punct(ps, '{', "to open the rule's body") < 0)
        return;
    while (!ps->failed && !is_punct(ps, '}')) {
        int al = ps->tok.line, ac = ps->tok.col;
        char var[RULEBASE_NAME_MAX], set[RULEBASE_NAME_MAX];
        if (expect_ident(ps, var, "an assignment 'VARIABLE = SET;' or '}'") < 0)
            return;
        int vi = rulebase_find_var(rb, var);
        if (vi < 0) {
            fail(ps, al, ac, "unknown variable '%s'", var);
            return;
        }
        if (expect_punct(ps, '=', "in an assignment") < 0)
            return;
        int sl = ps->tok.line, sc = ps->tok.col;
        if (expect_ident(ps, set, "a set name after '='") < 0)
            return;
        int si = rulebase_find_set(&rb->vars[vi], set);
        if (si < 0) {
            char what[96];
            snprintf(what, sizeof what, "'%s' is not a set of '%s'", set, var);
            fail(ps, sl, sc, "%s", what);
            return;
        }
        if (expect_punct(ps, ';', "after an assignment") < 0)
            return;
        if (r->n_assign == RULEBASE_MAX_ASSIGN) {
            fail(ps, al, ac, "too many assignments in one rule (at most %s)", "8");
            return;
        }
        r->assign_var[r->n_assign] = vi;
        r->assign_set[r->n_assign] = si;
        r->n_assign++;
        rb->vars[vi].is_output = 1;
    }
    if (ps->failed)
        return;
    if (r->n_assign == 0) {
        fail(ps, ps->tok.line, ps->tok.col, "a rule's body assigns nothing%s", "");
        return;
    }
    next(ps); /* '}' */
    rb->n_rules++;
}

struct rulebase *rulebase_parse(const char *text, size_t len, char *why, size_t why_size)
{
    struct rulebase *rb = calloc(1, sizeof *rb);
    if (!rb) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    struct parser ps = {.p = text, .end = text + len, .line = 1, .col = 1, .rb = rb, .why = why, .why_size = why_size};
    next(&ps);
    while (!ps.failed && ps.tok.kind != T_EOF) {
        if (is_word(&ps, "var")) {
            if (rb->n_rules > 0) {
                fail(&ps, ps.tok.line, ps.tok.col, "variables must come before the rules%s", "");
                break;
            }
            parse_var(&ps);
        } else if (is_word(&ps, "if")) {
            parse_rule(&ps);
        } else {
            char buf[48];
            fail(&ps, ps.tok.line, ps.tok.col, "expected 'var' or 'if', found %s", tok_text(&ps, buf, sizeof buf));
        }
    }
    if (!ps.failed && rb->n_rules == 0)
        fail(&ps, ps.line, ps.col, "no rule ('if (...) { ... }') in the rulebase%s", "");
    /* a variable cannot be both read by a condition and assigned */
    for (int r = 0; !ps.failed && r < rb->n_rules; r++)
        for (int v = 0; v < rb->n_vars; v++)
            if (rb->vars[v].is_output && node_reads(rb, rb->rules[r].cond, v)) {
                fail(&ps, ps.line, ps.col, "variable '%s' is both tested and assigned", rb->vars[v].name);
                break;
            }
    if (ps.failed) {
        free(rb);
        return NULL;
    }
    return rb;
}

int rulebase_find_var(const struct rulebase *rb, const char *name)
{
    for (int i = 0; i < rb->n_vars; i++)
        if (!strcmp(rb->vars[i].name, name))
            return i;
    return -1;
}

int rulebase_find_set(const struct fuzzy_var *v, const char *name)
{
    for (int i = 0; i < v->n_sets; i++)
        if (!strcmp(v->sets[i].name, name))
            return i;
    return -1;
}

size_t rulebase_default_text(double none_at, double total_at, char *buf, size_t buflen)
{
    double slope = total_at - none_at;
    int n = snprintf(buf, buflen,
                     "var distance(0, %g) {\n"
                     "  set trapez LOW ( 0, %g, 0, %g );\n"
                     "  set trapez HIGH ( %g, %g, %g, 0 ); }\n"
                     "var violation(-1, 2) {\n"
                     "  set triangle NONE ( 0, 1, 1 );\n"
                     "  set triangle TOTAL ( 1, 1, 1 ); }\n"
                     "\n"
                     "if ( distance == LOW )\n"
                     "{ violation = NONE; }\n"
                     "if ( distance == HIGH )\n"
                     "{ violation = TOTAL; }\n",
                     2 * total_at, none_at, slope, total_at, 2 * total_at, slope);
    return n < 0 ? 0 : (size_t)n;
}
