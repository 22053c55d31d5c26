/* JSON text of a jansson value, written to a stream (json_text.h). It
 * follows jansson's own dump (dump.c, strconv.c) rule by rule: the same
 * indentation and separators, strings escaped alike ('"', '\\', the control
 * characters, \uXXXX in capitals; UTF-8 as is, '/' unescaped), integers as
 * "%lld" gives them, reals as "%.*g" (by strfromd: the same digits) with ".0" added when neither a point nor
 * an exponent is in it and the exponent's '+' and leading zeros dropped,
 * the locale's decimal point turned into '.'. */
#include "report/json_text.h"
#include "util/json_real.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The text goes through a buffer of its own: a report is made of many
 * short pieces, and a stdio call each cost as much as formatting them.
 * Containers opened piece by piece (json_text_open_object...) are a stack:
 * how many members each has so far. */
#define MAX_OPEN 64
struct json_text {
    FILE *f;
    int indent;
    bool failed, after_key;
    char real_format[8]; /* "%.16g": the precision is a literal for strfromd */
    int depth;
    size_t members[MAX_OPEN];
    size_t used;
    char buf[1 << 16];
};

static void flush(struct json_text *o)
{
    if (o->used && fwrite(o->buf, 1, o->used, o->f) != o->used)
        o->failed = true;
    o->used = 0;
}

static void put(struct json_text *o, const char *s, size_t n)
{
    if (n > sizeof o->buf - o->used) {
        flush(o);
        if (n > sizeof o->buf) {
            if (fwrite(s, 1, n, o->f) != n)
                o->failed = true;
            return;
        }
    }
    memcpy(o->buf + o->used, s, n);
    o->used += n;
}

static void put_char(struct json_text *o, char c)
{
    if (o->used == sizeof o->buf)
        flush(o);
    o->buf[o->used++] = c;
}

/* A new line and DEPTH levels of indentation; in compact text, nothing. */
static void new_line(struct json_text *o, int depth)
{
    if (o->indent <= 0)
        return;
    put_char(o, '\n');
    static const char spaces[] = "                                ";
    for (size_t n = (size_t)depth * (size_t)o->indent; n > 0;) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        put(o, spaces, k);
        n -= k;
    }
}

static void put_string(struct json_text *o, const char *s, size_t len)
{
    put_char(o, '"');
    const char *run = s, *end = s + len;
    for (const char *p = s; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        put(o, run, (size_t)(p - run));
        run = p + 1;
        char seq[8];
        const char *text = seq;
        size_t n = 2;
        switch (c) {
        case '\\': text = "\\\\"; break;
        case '"': text = "\\\""; break;
        case '\b': text = "\\b"; break;
        case '\f': text = "\\f"; break;
        case '\n': text = "\\n"; break;
        case '\r': text = "\\r"; break;
        case '\t': text = "\\t"; break;
        default:
            snprintf(seq, sizeof seq, "\\u%04X", (unsigned)c);
            n = 6;
            break;
        }
        put(o, text, n);
    }
    put(o, run, (size_t)(end - run));
    put_char(o, '"');
}

static void put_integer(struct json_text *o, json_int_t v)
{
    char buf[24];
    char *p = buf + sizeof buf;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    put(o, p, (size_t)(buf + sizeof buf - p));
}

static void put_real(struct json_text *o, double v)
{
    char buf[100];
    size_t len = json_real_text(v, o->real_format, buf, sizeof buf);
    if (!len) {
        o->failed = true;
        return;
    }
    put(o, buf, len);
}

static void put_value(struct json_text *o, const json_t *v, int depth)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        void *it = json_object_iter((json_t *)v);
        put_char(o, '{');
        if (!it) {
            put_char(o, '}');
            return;
        }
        new_line(o, depth + 1);
        while (it) {
            void *next = json_object_iter_next((json_t *)v, it);
            const char *key = json_object_iter_key(it);
            put_string(o, key, strlen(key));
            put(o, ": ", o->indent > 0 ? 2 : 1);
            put_value(o, json_object_iter_value(it), depth + 1);
            if (next) {
                put_char(o, ',');
                new_line(o, depth + 1);
            } else {
                new_line(o, depth);
            }
            it = next;
        }
        put_char(o, '}');
        return;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        put_char(o, '[');
        if (!n) {
            put_char(o, ']');
            return;
        }
        new_line(o, depth + 1);
        for (size_t i = 0; i < n; i++) {
            put_value(o, json_array_get(v, i), depth + 1);
            if (i + 1 < n) {
                put_char(o, ',');
                new_line(o, depth + 1);
            } else {
                new_line(o, depth);
            }
        }
        put_char(o, ']');
        return;
    }
    case JSON_STRING:
        put_string(o, json_string_value(v), json_string_length(v));
        return;
    case JSON_INTEGER:
        put_integer(o, json_integer_value(v));
        return;
    case JSON_REAL:
        put_real(o, json_real_value(v));
        return;
    case JSON_TRUE:
        put(o, "true", 4);
        return;
    case JSON_FALSE:
        put(o, "false", 5);
        return;
    case JSON_NULL:
        put(o, "null", 4);
        return;
    }
    o->failed = true;
}

struct json_text *json_text_open(FILE *f, int indent, int precision)
{
    struct json_text *t = malloc(sizeof *t);
    if (!t)
        return NULL;
    t->f = f;
    t->indent = indent;
    snprintf(t->real_format, sizeof t->real_format, "%%.%dg", precision > 0 && precision < 100 ? precision : 17);
    t->failed = t->after_key = false;
    t->depth = 0;
    t->used = 0;
    return t;
}

int json_text_close(struct json_text *t)
{
    if (!t)
        return -1;
    flush(t);
    int rc = t->failed || t->depth ? -1 : 0;
    free(t);
    return rc;
}

/* Where a member or an element starts: after the first, a comma; then a
 * new line at the container's indentation. */
static void item_start(struct json_text *t)
{
    if (t->members[t->depth - 1]++)
        put_char(t, ',');
    new_line(t, t->depth);
}

/* Before a value: an element of an array starts here (a member's started
 * at its key). */
static void value_start(struct json_text *t)
{
    if (t->depth && !t->after_key)
        item_start(t);
    t->after_key = false;
}

void json_text_key(struct json_text *t, const char *key)
{
    item_start(t);
    put_string(t, key, strlen(key));
    put(t, ": ", t->indent > 0 ? 2 : 1);
    t->after_key = true;
}

static void open_container(struct json_text *t, char c)
{
    value_start(t);
    put_char(t, c);
    if (t->depth == MAX_OPEN) {
        t->failed = true;
        return;
    }
    t->members[t->depth++] = 0;
}

static void close_container(struct json_text *t, char c)
{
    if (!t->depth) {
        t->failed = true;
        return;
    }
    if (t->members[t->depth - 1])
        new_line(t, t->depth - 1);
    t->depth--;
    put_char(t, c);
}

void json_text_open_object(struct json_text *t) { open_container(t, '{'); }
void json_text_close_object(struct json_text *t) { close_container(t, '}'); }
void json_text_open_array(struct json_text *t) { open_container(t, '['); }
void json_text_close_array(struct json_text *t) { close_container(t, ']'); }

void json_text_value(struct json_text *t, const json_t *v)
{
    value_start(t);
    if (v)
        put_value(t, v, t->depth);
    else
        t->failed = true;
}

void json_text_integer(struct json_text *t, json_int_t v)
{
    value_start(t);
    put_integer(t, v);
}

void json_text_real(struct json_text *t, double v)
{
    value_start(t);
    put_real(t, v);
}

void json_text_bool(struct json_text *t, bool v)
{
    value_start(t);
    put(t, v ? "true" : "false", v ? 4 : 5);
}

void json_text_string(struct json_text *t, const char *s)
{
    value_start(t);
    put_string(t, s, strlen(s));
}

int json_text_write(FILE *f, const json_t *value, int indent, int precision)
{
    if (!value) /* as json_dumps: nothing to write */
        return -1;
    struct json_text *t = json_text_open(f, indent, precision);
    if (!t)
        return -1;
    json_text_value(t, value);
    return json_text_close(t);
}
