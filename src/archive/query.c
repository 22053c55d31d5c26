/* Query grammar → parameterised SQL (see query.h): a tokenizer and a
 * recursive-descent parser that writes the condition as it goes. Values are
 * always bound as parameters, never pasted into the SQL. */
#include "archive/query.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/fields.h"
#include "core/units.h"
#include "util/text_builder.h"

enum token_kind { TOK_END, TOK_WORD, TOK_STRING, TOK_OP, TOK_LPAREN, TOK_RPAREN };

struct token {
    enum token_kind kind;
    const char *start;
    size_t len;
    int position; /* 1-based */
};

struct parser {
    const char *text;
    const char *cursor;
    struct token tok;
    FILE *sql;
    struct compiled_query *q;
    char *why;
    size_t why_size;
    int failed;
    int depth;    /* nested '(' and 'not' being parsed */
};

/* Deeper nesting is refused: the parser recurses once per level (a query of
 * 100,000 '(' overflowed the stack) and SQLite refuses expressions deeper
 * than 1000. No real query comes close. */
#define QUERY_MAX_DEPTH 100

static void fail_at(struct parser *p, int position, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    int n = snprintf(p->why, p->why_size, "position %d: ", position);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < p->why_size)
        vsnprintf(p->why + n, p->why_size - (size_t)n, fmt, ap);
    va_end(ap);
}

static void out_of_memory(struct parser *p)
{
    if (p->failed)
        return;
    p->failed = 1;
    snprintf(p->why, p->why_size, "out of memory");
}

static bool is_word_char(char c)
{
    return c && !isspace((unsigned char)c) && !strchr("()=!<>'\"", c);
}

static void next_token(struct parser *p)
{
    const char *s = p->cursor;
    while (isspace((unsigned char)*s))
        s++;
    struct token t = {TOK_END, s, 0, (int)(s - p->text) + 1};
    if (!*s) {
        p->tok = t;
        p->cursor = s;
        return;
    }
    if (*s == '(' || *s == ')') {
        t.kind = *s == '(' ? TOK_LPAREN : TOK_RPAREN;
        t.len = 1;
    } else if (*s == '\'' || *s == '"') {
        const char *close = strchr(s + 1, *s);
        if (!close) {
            fail_at(p, t.position, "unterminated string");
            t.kind = TOK_END;
            p->tok = t;
            p->cursor = s + strlen(s);
            return;
        }
        t.kind = TOK_STRING;
        t.start = s + 1;
        t.len = (size_t)(close - s - 1);
        p->tok = t;
        p->cursor = close + 1;
        return;
    } else if (strchr("=!<>", *s)) {
        t.kind = TOK_OP;
        t.len = (s[1] == '=' || (s[0] == '<' && s[1] == '>')) ? 2 : 1;
        if (s[0] == '!' && t.len == 1) {
            fail_at(p, t.position, "'!' must be followed by '='");
        }
    } else {
        t.kind = TOK_WORD;
        while (is_word_char(s[t.len]))
            t.len++;
    }
    p->tok = t;
    p->cursor = s + t.len;
}

static bool token_is(const struct token *t, const char *keyword)
{
    return t->kind == TOK_WORD && strlen(keyword) == t->len &&
           !strncasecmp(t->start, keyword, t->len);
}

static bool is_keyword(const struct token *t)
{
    return token_is(t, "and") || token_is(t, "or") || token_is(t, "not");
}

enum field_kind { FIELD_NUMBER, FIELD_TEXT, FIELD_INTEGER };

struct query_field {
    const char *name;
    const char *column;
    enum field_kind kind;
    const struct summary_field *numeric;
};

static const struct query_field text_fields[] = {
    {"name", "name", FIELD_TEXT, NULL},         {"category", "category", FIELD_TEXT, NULL},
    {"set", "set_id", FIELD_TEXT, NULL},        {"host", "host", FIELD_TEXT, NULL},
    {"tool", "tool", FIELD_TEXT, NULL},         {"command", "command", FIELD_TEXT, NULL},
    {"exit_type", "exit_type", FIELD_TEXT, NULL}, {"taskid", "taskid", FIELD_TEXT, NULL},
    {"id", "id", FIELD_INTEGER, NULL},          {"exit_status", "exit_status", FIELD_INTEGER, NULL},
    {"level", "level", FIELD_INTEGER, NULL},    {"attempt", "attempt", FIELD_INTEGER, NULL},
};

static bool find_field(const struct token *t, struct query_field *out)
{
    char name[64];
    if (t->len >= sizeof name)
        return false;
    memcpy(name, t->start, t->len);
    name[t->len] = '\0';
    for (size_t i = 0; i < sizeof text_fields / sizeof text_fields[0]; i++)
        if (!strcasecmp(text_fields[i].name, name)) {
            *out = text_fields[i];
            return true;
        }
    const struct summary_field *f = summary_field_find(name);
    if (!f)
        return false;
    out->name = f->name;
    out->column = f->name;
    out->kind = FIELD_NUMBER;
    out->numeric = f;
    return true;
}

static int add_param(struct compiled_query *q, struct sql_value v)
{
    if (q->nparams >= QUERY_MAX_PARAMS)
        return -1;
    q->params[q->nparams++] = v;
    return 0;
}

int query_parse_time(const char *text, double *epoch)
{
    static const char *formats[] = {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M",
                                    "%Y-%m-%d %H:%M",    "%Y-%m-%d"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        struct tm tm = {0};
        const char *end = strptime(text, formats[i], &tm);
        if (end && (*end == '\0' || !strcmp(end, "Z"))) {
            *epoch = (double)timegm(&tm);
            return 0;
        }
    }
    char *end;
    double v = strtod(text, &end);
    if (end != text && *end == '\0' && isdigit((unsigned char)*text)) {
        *epoch = v;
        return 0;
    }
    return -1;
}

/* VALUE for a field: a quoted string, or the words up to the next keyword,
 * ')' or the end, joined by single spaces. */
static char *read_value(struct parser *p, int *position)
{
    *position = p->tok.position;
    if (p->tok.kind == TOK_STRING) {
        char *s = strndup(p->tok.start, p->tok.len);
        next_token(p);
        if (!s)
            out_of_memory(p);
        return s;
    }
    if (p->tok.kind != TOK_WORD || is_keyword(&p->tok)) {
        fail_at(p, p->tok.position, p->tok.kind == TOK_END ? "missing value at the end"
                                                          : "expected a value, found '%.*s'",
                (int)p->tok.len, p->tok.start);
        return NULL;
    }
    struct text_builder b;
    char ignored[32];
    if (text_builder_open(&b, ignored, sizeof ignored) < 0) {
        out_of_memory(p);
        return NULL;
    }
    bool first = true;
    while (p->tok.kind == TOK_WORD && !is_keyword(&p->tok)) {
        fprintf(b.out, "%s%.*s", first ? "" : " ", (int)p->tok.len, p->tok.start);
        first = false;
        next_token(p);
    }
    char *value = text_builder_finish(&b, ignored, sizeof ignored);
    if (!value)
        out_of_memory(p);
    return value;
}

static void parse_comparison(struct parser *p)
{
    struct query_field field;
    struct token name = p->tok;
    if (name.kind != TOK_WORD) {
        fail_at(p, name.position, name.kind == TOK_END ? "expected a condition at the end"
                                                       : "expected a field name, found '%.*s'",
                (int)name.len, name.start);
        return;
    }
    if (!find_field(&name, &field)) {
        fail_at(p, name.position, "unknown field '%.*s'", (int)name.len, name.start);
        return;
    }
    next_token(p);
    if (p->tok.kind != TOK_OP) {
        fail_at(p, p->tok.position, "expected a comparison (= != < <= > >=) after '%s'",
                field.name);
        return;
    }
    char op[3] = {0};
    memcpy(op, p->tok.start, p->tok.len);
    const char *sql_op = !strcmp(op, "==") ? "=" : !strcmp(op, "<>") ? "!=" : op;
    if (!strcmp(op, "=<") || !strcmp(op, "=>") || !strcmp(op, "!")) {
        fail_at(p, p->tok.position, "unknown comparison '%s'", op);
        return;
    }
    next_token(p);
    if (p->failed)
        return;
    int position;
    char *text = read_value(p, &position);
    if (!text)
        return;
    struct sql_value v;
    if (field.kind == FIELD_TEXT) {
        if (p->q->nstrings >= QUERY_MAX_PARAMS) {
            fail_at(p, position, "too many conditions");
            free(text);
            return;
        }
        p->q->strings[p->q->nstrings++] = text;
        v = sql_text(text);
    } else {
        double number;
        char reason[256];
        if (field.kind == FIELD_NUMBER &&
            (!strcmp(field.name, "start") || !strcmp(field.name, "end")) &&
            query_parse_time(text, &number) == 0) {
            v = sql_real(number);
        } else if (field.kind == FIELD_NUMBER) {
            if (units_parse(text, field.numeric->dim, field.numeric->unit, &number, reason,
                            sizeof reason) < 0) {
                fail_at(p, position, "%s: %s", field.name, reason);
                free(text);
                return;
            }
            v = sql_real(number);
        } else {
            char *end;
            long long integer = strtoll(text, &end, 10);
            if (end == text || *end) {
                fail_at(p, position, "%s: '%s' is not an integer", field.name, text);
                free(text);
                return;
            }
            v = sql_int(integer);
        }
        free(text);
    }
    if (add_param(p->q, v) < 0) {
        fail_at(p, position, "too many conditions");
        return;
    }
    fprintf(p->sql, "\"%s\" %s ?", field.column, sql_op);
}

static void parse_or(struct parser *p);

static void parse_factor_nested(struct parser *p);

static void parse_factor(struct parser *p)
{
    if (p->failed)
        return;
    bool nests = token_is(&p->tok, "not") || p->tok.kind == TOK_LPAREN;
    if (nests && p->depth >= QUERY_MAX_DEPTH) {
        fail_at(p, p->tok.position, "more than %d nested '(' or 'not'", QUERY_MAX_DEPTH);
        return;
    }
    p->depth += nests;
    parse_factor_nested(p);
    p->depth -= nests;
}

static void parse_factor_nested(struct parser *p)
{
    if (token_is(&p->tok, "not")) {
        next_token(p);
        fputs("NOT (", p->sql);
        parse_factor(p);
        fputs(")", p->sql);
    } else if (p->tok.kind == TOK_LPAREN) {
        int open_position = p->tok.position;
        next_token(p);
        fputs("(", p->sql);
        parse_or(p);
        if (p->failed)
            return;
        if (p->tok.kind != TOK_RPAREN) {
            fail_at(p, p->tok.position, "expected ')' to close the '(' at position %d",
                    open_position);
            return;
        }
        fputs(")", p->sql);
        next_token(p);
    } else {
        parse_comparison(p);
    }
}

static void parse_and(struct parser *p)
{
    parse_factor(p);
    while (!p->failed && token_is(&p->tok, "and")) {
        next_token(p);
        fputs(" AND ", p->sql);
        parse_factor(p);
    }
}

static void parse_or(struct parser *p)
{
    parse_and(p);
    while (!p->failed && token_is(&p->tok, "or")) {
        next_token(p);
        fputs(" OR ", p->sql);
        parse_and(p);
    }
}

int query_compile(const char *expression, struct compiled_query *q, char *why, size_t why_size)
{
    memset(q, 0, sizeof *q);
    struct parser p = {.text = expression, .cursor = expression, .q = q, .why = why,
                       .why_size = why_size};
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return -1;
    p.sql = b.out;
    next_token(&p);
    if (p.tok.kind == TOK_END && !p.failed) {
        fputs("1 = 1", p.sql); /* an empty query matches everything */
    } else {
        parse_or(&p);
        if (!p.failed && p.tok.kind != TOK_END)
            fail_at(&p, p.tok.position, "unexpected '%.*s' (expected and, or, or the end)",
                    (int)p.tok.len, p.tok.start);
    }
    char ignored[32];
    q->where = text_builder_finish(&b, ignored, sizeof ignored);
    if (!q->where)
        out_of_memory(&p);
    if (p.failed) {
        compiled_query_free(q);
        return -1;
    }
    return 0;
}

int query_add_condition(struct compiled_query *q, const char *column, const char *op, double value)
{
    if (add_param(q, sql_real(value)) < 0)
        return -1;
    char *where;
    if (asprintf(&where, "(%s) AND \"%s\" %s ?", q->where, column, op) < 0)
        return -1;
    free(q->where);
    q->where = where;
    return 0;
}

void compiled_query_free(struct compiled_query *q)
{
    free(q->where);
    for (size_t i = 0; i < q->nstrings; i++)
        free(q->strings[i]);
    memset(q, 0, sizeof *q);
}
