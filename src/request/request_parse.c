/* The parser of the OMIS-style request language (grammar in request.h and
 * docs/requests.md): a hand-written lexer and a recursive-descent parser that
 * build a struct request. Every error is one line naming the 1-based column,
 * what was expected and what was found. Sizes are bounded (request length,
 * objects per list, arguments per call, actions per request) so that hostile
 * input cannot make it use more memory than a small multiple of its length.
 * Whether services exist and take these arguments is request_services.c's
 * job; request_format (the inverse, for round trips and for forwarding
 * subrequests) lives here too, so the two spellings cannot drift apart. */
#include "request/request.h"
#include "util/vec.h"
#include "util/pid_text.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum token_kind {
    TOK_END,
    TOK_WORD,     /* service names and object tokens: [A-Za-z_][A-Za-z0-9_.@-]* */
    TOK_STRING,   /* "..." or '...' */
    TOK_NUMBER,   /* 12, -3.5, 1e3, 0x1f, 500ms */
    TOK_VARIABLE, /* $len */
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_LBRACKET,
    TOK_RBRACKET,
    TOK_COMMA,
    TOK_COLON,
};

struct token {
    enum token_kind kind;
    size_t start, len; /* byte span in the text */
};

struct parser {
    const char *text;
    size_t len;
    size_t at; /* where the lexer resumes */
    struct token tok;
    struct request_error *err;
};

/* Bounds on a number as written. The canonical form of any number is at
 * most 24 characters ("%.17g") plus its unit, so it stays within them. */
#define NUMBER_MAX_CHARS 64
#define UNIT_MAX_CHARS 15

__attribute__((format(printf, 3, 4))) static int fail(struct parser *p, size_t offset,
                                                      const char *fmt, ...)
{
    int column = offset + 1 > INT_MAX ? INT_MAX : (int)(offset + 1);
    p->err->pos = column;
    int n = snprintf(p->err->message, sizeof p->err->message, "column %d: ", column);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->message + n, sizeof p->err->message - n, fmt, ap);
    va_end(ap);
    return -1;
}

/* The token as written, quoted, shortened and with odd bytes escaped, for
 * "found ..." in messages. */
static const char *describe(const struct parser *p, const struct token *t, char *buf, size_t size)
{
    if (t->kind == TOK_END)
        return "end of request";
    size_t shown = t->len > 24 ? 24 : t->len;
    size_t n = 0;
    buf[n++] = '\'';
    for (size_t i = 0; i < shown && n + 8 < size; i++) {
        unsigned char c = p->text[t->start + i];
        if (c >= 0x20 && c < 0x7f)
            buf[n++] = c;
        else
            n += snprintf(buf + n, size - n, "\\x%02x", c);
    }
    if (shown < t->len && n + 5 < size) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n++] = '\'';
    buf[n] = '\0';
    return buf;
}

static bool is_word_start(int c)
{
    return isalpha(c) || c == '_';
}

static bool is_word_char(int c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '@' || c == '-';
}

static bool is_name_char(int c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '-';
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static char peek_at(const struct parser *p, size_t i)
{
    return i < p->len ? p->text[i] : '\0';
}

/* Scans a quoted string starting at p->at, checking its escapes; the value
 * is decoded later by decode_string, which can then not fail. */
static int lex_string(struct parser *p)
{
    size_t open = p->at;
    char quote = p->text[open];
    size_t i = open + 1;
    for (;;) {
        if (i >= p->len)
            return fail(p, open, "unterminated string (no closing %c)", quote);
        unsigned char c = p->text[i];
        if (c == (unsigned char)quote)
            break;
        if (c < 0x20 || c == 0x7f)
            return fail(p, i, "control character 0x%02x in string (write \\n, \\t or \\xHH)", c);
        if (c == '\\') {
            char e = peek_at(p, i + 1);
            if (e == 'x') {
                int hi = hex_value(peek_at(p, i + 2)), lo = hex_value(peek_at(p, i + 3));
                if (hi < 0 || lo < 0)
                    return fail(p, i, "expected two hexadecimal digits after '\\x'");
                if (hi == 0 && lo == 0)
                    return fail(p, i, "'\\x00' is not allowed in a string");
                i += 4;
                continue;
            }
            if (!strchr("\"'\\/ntr", e) || e == '\0') {
                if (i + 1 >= p->len)
                    return fail(p, open, "unterminated string (no closing %c)", quote);
                if ((unsigned char)e >= 0x20 && (unsigned char)e < 0x7f)
                    return fail(
                        p, i,
                        "unknown escape '\\%c' in string (use \\\" \\' \\\\ \\/ \\n \\t \\r \\xHH)",
                        e);
                return fail(p, i,
                            "unknown escape in string (use \\\" \\' \\\\ \\/ \\n \\t \\r \\xHH)");
            }
            i += 2;
            continue;
        }
        i++;
    }
    p->tok = (struct token){TOK_STRING, open, i + 1 - open};
    p->at = i + 1;
    return 0;
}

/* Scans a number: [-+] digits [. digits] [e[+-]digits] [unit letters], or
 * [-+] 0x hexdigits. The value is converted later by number_value. */
static int lex_number(struct parser *p)
{
    size_t start = p->at, i = start;
    if (p->text[i] == '-' || p->text[i] == '+')
        i++;
    if (p->text[i] == '0' && (peek_at(p, i + 1) == 'x' || peek_at(p, i + 1) == 'X')) {
        i += 2;
        size_t digits = i;
        while (i < p->len && isxdigit((unsigned char)p->text[i]))
            i++;
        if (i == digits)
            return fail(p, start, "expected hexadecimal digits after '0x'");
    } else {
        while (i < p->len && isdigit((unsigned char)p->text[i]))
            i++;
        if (peek_at(p, i) == '.') {
            i++;
            while (i < p->len && isdigit((unsigned char)p->text[i]))
                i++;
        }
        char e = peek_at(p, i);
        if (e == 'e' || e == 'E') {
            size_t j = i + 1;
            if (peek_at(p, j) == '+' || peek_at(p, j) == '-')
                j++;
            if (isdigit((unsigned char)peek_at(p, j))) {
                i = j;
                while (i < p->len && isdigit((unsigned char)p->text[i]))
                    i++;
            }
        }
        /* the unit suffix; none starts with x, which would read as hex
         * once formatted ("00x" is 0 with unit "x", written "0x") */
        size_t unit = i;
        if (peek_at(p, i) != 'x' && peek_at(p, i) != 'X')
            while (i < p->len && isalpha((unsigned char)p->text[i]))
                i++;
        if (i - unit > UNIT_MAX_CHARS)
            return fail(p, unit, "unit '%.*s...' is longer than %d letters", UNIT_MAX_CHARS,
                        p->text + unit, UNIT_MAX_CHARS);
    }
    if (i < p->len && is_word_char((unsigned char)p->text[i])) {
        size_t end = i;
        while (end < p->len && is_word_char((unsigned char)p->text[end]))
            end++;
        return fail(p, start, "malformed number '%.*s' (a number may end in one unit: 500ms, 2GB)",
                    (int)(end - start > 32 ? 32 : end - start), p->text + start);
    }
    if (i - start > NUMBER_MAX_CHARS)
        return fail(p, start, "number longer than %d characters", NUMBER_MAX_CHARS);
    p->tok = (struct token){TOK_NUMBER, start, i - start};
    p->at = i;
    return 0;
}

/* Moves to the next token; -1 with the error set on a lexical error. */
static int next(struct parser *p)
{
    while (p->at < p->len && p->text[p->at] && strchr(" \t\n\r\f\v", p->text[p->at]))
        p->at++;
    if (p->at >= p->len) {
        p->tok = (struct token){TOK_END, p->len, 0};
        return 0;
    }
    size_t start = p->at;
    unsigned char c = p->text[start];
    static const char punctuation[] = "()[],:";
    static const enum token_kind punctuation_kind[] = {TOK_LPAREN,   TOK_RPAREN, TOK_LBRACKET,
                                                       TOK_RBRACKET, TOK_COMMA,  TOK_COLON};
    const char *punct = c ? strchr(punctuation, c) : NULL;
    if (punct) {
        p->tok = (struct token){punctuation_kind[punct - punctuation], start, 1};
        p->at++;
        return 0;
    }
    if (c == '"' || c == '\'')
        return lex_string(p);
    if (c == '$') {
        size_t i = start + 1;
        if (!is_word_start((unsigned char)peek_at(p, i)))
            return fail(p, start, "expected a variable name after '$'");
        while (i < p->len && (isalnum((unsigned char)p->text[i]) || p->text[i] == '_'))
            i++;
        p->tok = (struct token){TOK_VARIABLE, start, i - start};
        p->at = i;
        return 0;
    }
    unsigned char c1 = peek_at(p, start + 1), c2 = peek_at(p, start + 2);
    if (isdigit(c) || (c == '.' && isdigit(c1)) ||
        ((c == '-' || c == '+') && (isdigit(c1) || (c1 == '.' && isdigit(c2)))))
        return lex_number(p);
    if (is_word_start(c)) {
        size_t i = start;
        while (i < p->len && is_word_char((unsigned char)p->text[i]))
            i++;
        p->tok = (struct token){TOK_WORD, start, i - start};
        p->at = i;
        return 0;
    }
    if (c == 0)
        return fail(p, start, "unexpected NUL byte");
    if (c >= 0x20 && c < 0x7f)
        return fail(p, start, "unexpected character '%c'", c);
    return fail(p, start, "unexpected byte 0x%02x", c);
}

static bool is(const struct parser *p, enum token_kind kind)
{
    return p->tok.kind == kind;
}

static int out_of_memory(struct parser *p)
{
    return fail(p, p->tok.start, "out of memory");
}

static char *copy_span(const char *text, size_t len)
{
    char *s = malloc(len + 1);
    if (s) {
        memcpy(s, text, len);
        s[len] = '\0';
    }
    return s;
}

/* Parses digits[from, to) as an unsigned decimal no larger than max; -1 when
 * empty, not all digits, or too large. */
static int parse_decimal(const char *text, size_t from, size_t to, unsigned long max,
                         unsigned long *value)
{
    if (from >= to)
        return -1;
    unsigned long v = 0;
    for (size_t i = from; i < to; i++) {
        if (!isdigit((unsigned char)text[i]))
            return -1;
        v = v * 10 + (unsigned long)(text[i] - '0');
        if (v > max)
            return -1;
    }
    *value = v;
    return 0;
}

static int check_name(struct parser *p, size_t from, size_t to, const char *what)
{
    if (from == to)
        return fail(p, from, "expected %s after '%.*s'", what, (int)(from - p->tok.start),
                    p->text + p->tok.start);
    for (size_t i = from; i < to; i++)
        if (!is_name_char((unsigned char)p->text[i]))
            return fail(p, i, "'%c' is not allowed in %s (letters, digits, '_', '.', '-')",
                        p->text[i], what);
    return 0;
}

struct object_prefix {
    const char *prefix;
    enum object_kind kind;
};

/* csr_ before c_ would not matter ("csr_" does not start with "c_"), but
 * the longer prefixes come first for clarity. a_ is the seed's spelling of
 * an application token ("[a_1]"), read as app_. */
static const struct object_prefix object_prefixes[] = {
    {"site_", OBJECT_SITE}, {"app_", OBJECT_APP},   {"csr_", OBJECT_CSR}, {"n_", OBJECT_NODE},
    {"p_", OBJECT_PROC},    {"c_", OBJECT_COUNTER}, {"a_", OBJECT_APP},
};

/* Reads the word token at p->tok into *object. */
static int parse_object_token(struct parser *p, struct object_token *object)
{
    char found[64];
    const char *word = p->text + p->tok.start;
    size_t start = p->tok.start, end = p->tok.start + p->tok.len;
    const struct object_prefix *prefix = NULL;
    for (size_t i = 0; i < sizeof object_prefixes / sizeof object_prefixes[0]; i++) {
        size_t n = strlen(object_prefixes[i].prefix);
        if (p->tok.len >= n && !memcmp(word, object_prefixes[i].prefix, n)) {
            prefix = &object_prefixes[i];
            break;
        }
    }
    if (!prefix)
        return fail(p, start,
                    "expected an object token (site_NAME, n_HOST, app_NAME, p_PID[@HOST], c_N, "
                    "csr_N), found %s",
                    describe(p, &p->tok, found, sizeof found));
    size_t body = start + strlen(prefix->prefix);
    object->kind = prefix->kind;
    object->pos = (int)start + 1;
    unsigned long value;
    switch (prefix->kind) {
    case OBJECT_SITE:
    case OBJECT_NODE:
    case OBJECT_APP: {
        static const char *const what[] = {[OBJECT_SITE] = "a site name",
                                           [OBJECT_NODE] = "a host name",
                                           [OBJECT_APP] = "an application name"};
        if (check_name(p, body, end, what[prefix->kind]) < 0)
            return -1;
        object->name = copy_span(p->text + body, end - body);
        return object->name ? 0 : out_of_memory(p);
    }
    case OBJECT_PROC: {
        size_t at = body;
        while (at < end && p->text[at] != '@')
            at++;
        if (at == body)
            return fail(p, body, "expected a pid after 'p_'");
        if (pid_parse_span(p->text + body, at - body, PID_KERNEL_LIMIT, &object->pid) < 0)
            return fail(p, body, "'%.*s' is not a pid (p_PID or p_PID@HOST, PID from 1 to %d)",
                        (int)(at - body > 32 ? 32 : at - body), p->text + body, PID_KERNEL_LIMIT);
        if (at < end) {
            if (check_name(p, at + 1, end, "a host name") < 0)
                return -1;
            object->name = copy_span(p->text + at + 1, end - at - 1);
            if (!object->name)
                return out_of_memory(p);
        }
        return 0;
    }
    case OBJECT_COUNTER:
    case OBJECT_CSR:
        if (parse_decimal(p->text, body, end, UINT_MAX, &value) < 0 || value == 0)
            return fail(p, body, "expected a number from 1 to %u after '%s', found '%.*s'",
                        UINT_MAX, prefix->prefix, (int)(end - body > 32 ? 32 : end - body),
                        p->text + body);
        object->number = (unsigned)value;
        return 0;
    }
    return -1;
}

static char *decode_string(const char *text, size_t len)
{
    /* text spans the quotes; escapes were checked by lex_string */
    char *out = malloc(len), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 1; i + 1 < len; i++) {
        char c = text[i];
        if (c != '\\') {
            *o++ = c;
            continue;
        }
        char e = text[++i];
        switch (e) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'x':
            *o++ = (char)(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
            i += 2;
            break;
        default: *o++ = e; break; /* " ' \ / */
        }
    }
    *o = '\0';
    return out;
}

static int number_value(struct parser *p, struct request_arg *arg)
{
    const char *s = p->text + p->tok.start;
    size_t len = p->tok.len, digits_end = len;
    char buf[NUMBER_MAX_CHARS + 1];
    memcpy(buf, s, len);
    buf[len] = '\0';
    size_t sign = (buf[0] == '-' || buf[0] == '+');
    double value;
    if (buf[sign] == '0' && (buf[sign + 1] == 'x' || buf[sign + 1] == 'X')) {
        if (len - sign - 2 > 13) /* 13 hex digits: every value exact in a double */
            return fail(p, p->tok.start, "hexadecimal number '%s' is too large (at most 13 digits)",
                        buf);
        value = (double)strtoull(buf + sign + 2, NULL, 16);
        if (buf[0] == '-')
            value = -value;
    } else {
        while (digits_end > 0 && isalpha((unsigned char)buf[digits_end - 1]))
            digits_end--;
        /* an exponent's 'e' is not part of the unit: "1e3" has no unit */
        char *end;
        errno = 0;
        value = strtod(buf, &end);
        if ((size_t)(end - buf) != digits_end) /* the lexer saw all of it as a number */
            return fail(p, p->tok.start, "malformed number '%s'", buf);
        if (errno == ERANGE && fabs(value) > 1) /* underflow to 0 is harmless */
            return fail(p, p->tok.start, "number '%s' is out of range", buf);
        if (!isfinite(value))
            return fail(p, p->tok.start, "number '%s' is out of range", buf);
    }
    arg->number = value;
    arg->text = copy_span(s + digits_end, len - digits_end);
    return arg->text ? 0 : out_of_memory(p);
}

static int parse_object_list(struct parser *p, struct request_arg *arg)
{
    char found[64];
    size_t capacity = 0;
    if (next(p) < 0)
        return -1;
    if (is(p, TOK_RBRACKET))
        return next(p);
    for (;;) {
        if (!is(p, TOK_WORD))
            return fail(p, p->tok.start, "expected an object token, found %s",
                        describe(p, &p->tok, found, sizeof found));
        if (arg->object_count >= REQUEST_MAX_OBJECTS)
            return fail(p, p->tok.start, "more than %d objects in one list", REQUEST_MAX_OBJECTS);
        struct object_token *object =
            vec_push((void **)&arg->objects, &arg->object_count, &capacity, sizeof *object);
        if (!object)
            return out_of_memory(p);
        if (parse_object_token(p, object) < 0 || next(p) < 0)
            return -1;
        if (is(p, TOK_RBRACKET))
            return next(p);
        if (!is(p, TOK_COMMA))
            return fail(p, p->tok.start, "expected ']' or ',' after object token, found %s",
                        describe(p, &p->tok, found, sizeof found));
        if (next(p) < 0)
            return -1;
    }
}

static int parse_arg(struct parser *p, struct request_arg *arg)
{
    char found[64];
    arg->pos = (int)p->tok.start + 1;
    switch (p->tok.kind) {
    case TOK_LBRACKET:
        arg->kind = ARG_OBJECTS;
        return parse_object_list(p, arg);
    case TOK_WORD:
        arg->kind = ARG_OBJECTS;
        arg->objects = calloc(1, sizeof *arg->objects);
        if (!arg->objects)
            return out_of_memory(p);
        arg->object_count = 1;
        if (parse_object_token(p, arg->objects) < 0)
            return -1;
        return next(p);
    case TOK_STRING:
        arg->kind = ARG_STRING;
        arg->text = decode_string(p->text + p->tok.start, p->tok.len);
        if (!arg->text)
            return out_of_memory(p);
        return next(p);
    case TOK_NUMBER:
        arg->kind = ARG_NUMBER;
        if (number_value(p, arg) < 0)
            return -1;
        return next(p);
    case TOK_VARIABLE:
        arg->kind = ARG_VARIABLE;
        arg->text = copy_span(p->text + p->tok.start + 1, p->tok.len - 1);
        if (!arg->text)
            return out_of_memory(p);
        return next(p);
    default:
        return fail(p, p->tok.start,
                    "expected an argument (object list, object token, string, number or "
                    "$variable), found %s",
                    describe(p, &p->tok, found, sizeof found));
    }
}

static bool is_service_name(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!(isalnum((unsigned char)text[i]) || text[i] == '_'))
            return false;
    return len > 0 && !isdigit((unsigned char)text[0]);
}

/* call = NAME '(' [ arg { ',' arg } ] ')' */
static int parse_call(struct parser *p, struct request_call *call)
{
    char found[64];
    if (!is(p, TOK_WORD))
        return fail(p, p->tok.start, "expected a service name, found %s",
                    describe(p, &p->tok, found, sizeof found));
    if (!is_service_name(p->text + p->tok.start, p->tok.len))
        return fail(p, p->tok.start, "%s is not a service name (letters, digits and '_')",
                    describe(p, &p->tok, found, sizeof found));
    call->pos = (int)p->tok.start + 1;
    call->service = copy_span(p->text + p->tok.start, p->tok.len);
    if (!call->service)
        return out_of_memory(p);
    if (next(p) < 0)
        return -1;
    if (!is(p, TOK_LPAREN))
        return fail(p, p->tok.start, "expected '(' after '%.40s', found %s", call->service,
                    describe(p, &p->tok, found, sizeof found));
    if (next(p) < 0)
        return -1;
    if (is(p, TOK_RPAREN))
        return next(p);
    size_t capacity = 0;
    for (;;) {
        if (call->arg_count >= REQUEST_MAX_ARGS)
            return fail(p, p->tok.start, "more than %d arguments to %.40s", REQUEST_MAX_ARGS,
                        call->service);
        struct request_arg *arg =
            vec_push((void **)&call->args, &call->arg_count, &capacity, sizeof *arg);
        if (!arg)
            return out_of_memory(p);
        if (parse_arg(p, arg) < 0)
            return -1;
        if (is(p, TOK_RPAREN))
            return next(p);
        if (!is(p, TOK_COMMA))
            return fail(p, p->tok.start, "expected ')' or ',' after argument, found %s",
                        describe(p, &p->tok, found, sizeof found));
        if (next(p) < 0)
            return -1;
    }
}

static struct request_call *add_action(struct parser *p, struct request *r, size_t *capacity)
{
    if (r->action_count >= REQUEST_MAX_ACTIONS) {
        fail(p, p->tok.start, "more than %d actions in one request", REQUEST_MAX_ACTIONS);
        return NULL;
    }
    struct request_call *call =
        vec_push((void **)&r->actions, &r->action_count, capacity, sizeof *call);
    if (!call)
        out_of_memory(p);
    return call;
}

/* request = [ call ] ':' actions | actions ;  actions = call { ',' call } */
static int parse_request(struct parser *p, struct request *r)
{
    char found[64];
    size_t capacity = 0;
    if (next(p) < 0)
        return -1;
    if (is(p, TOK_END))
        return fail(p, p->tok.start, "empty request: expected ':' or a service name");
    bool saw_colon = is(p, TOK_COLON), first_may_be_event = !saw_colon;
    if (saw_colon && next(p) < 0)
        return -1;
    for (;;) {
        struct request_call *call = add_action(p, r, &capacity);
        if (!call || parse_call(p, call) < 0)
            return -1;
        if (first_may_be_event && is(p, TOK_COLON)) {
            r->conditional = true;
            r->event = *call;
            r->action_count = 0;
            first_may_be_event = false;
            saw_colon = true;
            if (next(p) < 0)
                return -1;
            continue;
        }
        first_may_be_event = false;
        if (is(p, TOK_END))
            return 0;
        if (!is(p, TOK_COMMA))
            return fail(p, p->tok.start, "expected %s after '%.40s(...)', found %s",
                        saw_colon || r->action_count > 1 ? "',' or end of request"
                                                         : "':', ',' or end of request",
                        call->service, describe(p, &p->tok, found, sizeof found));
        if (next(p) < 0)
            return -1;
    }
}

int request_parse_n(const char *text, size_t len, struct request *out, struct request_error *err)
{
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    struct parser p = {.text = text, .len = len, .err = err};
    if (len > REQUEST_MAX_BYTES) {
        fail(&p, REQUEST_MAX_BYTES, "request is %zu bytes long, more than the %d allowed", len,
             REQUEST_MAX_BYTES);
        return -1;
    }
    if (parse_request(&p, out) < 0) {
        request_free(out);
        return -1;
    }
    return 0;
}

int request_parse(const char *text, struct request *out, struct request_error *err)
{
    return request_parse_n(text, strnlen(text, REQUEST_MAX_BYTES + 1), out, err);
}

static void free_call(struct request_call *call)
{
    for (size_t i = 0; i < call->arg_count; i++) {
        struct request_arg *arg = &call->args[i];
        for (size_t j = 0; j < arg->object_count; j++)
            free(arg->objects[j].name);
        free(arg->objects);
        free(arg->text);
    }
    free(call->args);
    free(call->service);
    memset(call, 0, sizeof *call);
}

void request_free(struct request *request)
{
    if (!request)
        return;
    if (request->conditional)
        free_call(&request->event);
    for (size_t i = 0; i < request->action_count; i++)
        free_call(&request->actions[i]);
    free(request->actions);
    memset(request, 0, sizeof *request);
}

/* ---- request_format: the canonical text of a request ---- */

void request_format_object(const struct object_token *o, char *buf, size_t size)
{
    switch (o->kind) {
    case OBJECT_SITE: snprintf(buf, size, "site_%s", o->name ? o->name : ""); return;
    case OBJECT_NODE: snprintf(buf, size, "n_%s", o->name ? o->name : ""); return;
    case OBJECT_APP: snprintf(buf, size, "app_%s", o->name ? o->name : ""); return;
    case OBJECT_PROC:
        if (o->name)
            snprintf(buf, size, "p_%d@%s", (int)o->pid, o->name);
        else
            snprintf(buf, size, "p_%d", (int)o->pid);
        return;
    case OBJECT_COUNTER: snprintf(buf, size, "c_%u", o->number); return;
    case OBJECT_CSR: snprintf(buf, size, "csr_%u", o->number); return;
    }
    snprintf(buf, size, "?");
}

static void format_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c == '\n')
            fputs("\\n", out);
        else if (*c == '\t')
            fputs("\\t", out);
        else if (*c == '\r')
            fputs("\\r", out);
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(out, "\\x%02x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

static void format_number(FILE *out, double value, const char *unit)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", value);
    if (strtod(buf, NULL) != value)
        snprintf(buf, sizeof buf, "%.17g", value);
    fprintf(out, "%s%s", buf, unit ? unit : "");
}

static void format_call(FILE *out, const struct request_call *call)
{
    fprintf(out, "%s(", call->service);
    for (size_t i = 0; i < call->arg_count; i++) {
        const struct request_arg *arg = &call->args[i];
        if (i)
            fputs(", ", out);
        switch (arg->kind) {
        case ARG_OBJECTS:
            fputc('[', out);
            for (size_t j = 0; j < arg->object_count; j++) {
                char token[300];
                request_format_object(&arg->objects[j], token, sizeof token);
                fprintf(out, "%s%s", j ? ", " : "", token);
            }
            fputc(']', out);
            break;
        case ARG_STRING: format_string(out, arg->text); break;
        case ARG_NUMBER: format_number(out, arg->number, arg->text); break;
        case ARG_VARIABLE: fprintf(out, "$%s", arg->text); break;
        }
    }
    fputc(')', out);
}

char *request_format(const struct request *request)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return NULL;
    if (request->conditional)
        format_call(out, &request->event);
    fputs(request->conditional ? ": " : ":", out);
    for (size_t i = 0; i < request->action_count; i++) {
        if (i)
            fputs(", ", out);
        format_call(out, &request->actions[i]);
    }
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
