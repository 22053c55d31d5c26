/* Reading a summary's members straight from its bytes (see summary_scan.h).
 * The grammar and its checks follow jansson 2.14's decoder (load.c: strict
 * UTF-8, the JSON escapes, \uD800-\uDFFF only as pairs, no \u0000, integers
 * that fit a long long, reals that do not overflow); the compact texts
 * follow its encoder (dump.c: the escapes it writes, %.17g reals with ".0"
 * added and the exponent's '+' and leading zeros removed). Anything else is
 * declined, for jansson to read. */
#include "archive/summary_scan.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

#define MAX_NUMBER 100
#define MAX_NESTED_KEYS 64

struct scanner {
    const unsigned char *p, *end;
    struct summary_members *m;
};

static int reserve(struct summary_members *m, size_t n)
{
    return m->len + n < m->capacity ? 0 : VEC_RESERVE(m->bytes, m->capacity, m->len + n + 1);
}

static int put(struct summary_members *m, const void *bytes, size_t n)
{
    if (reserve(m, n) < 0)
        return -1;
    memcpy(m->bytes + m->len, bytes, n);
    m->len += n;
    return 0;
}

static int put_byte(struct summary_members *m, char c)
{
    if (reserve(m, 1) < 0)
        return -1;
    m->bytes[m->len++] = c;
    return 0;
}

static void skip_blanks(struct scanner *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* The length of the valid UTF-8 sequence at p (jansson's utf8_check_first
 * and utf8_check_full), 0 when invalid. */
static size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n = c < 0x80 ? 1 : c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
    if (n <= 1)
        return n;
    if ((size_t)(end - p) < n)
        return 0;
    unsigned long value = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        value = (value << 6) | (p[i] & 0x3F);
    }
    if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF) ||
        (n == 3 && value < 0x800) || (n == 4 && value < 0x10000))
        return 0;
    return n;
}

static int hex4(const unsigned char *p, const unsigned char *end)
{
    if (end - p < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = p[i];
        int d = c >= '0' && c <= '9' ? (int)c - '0'
                : c >= 'a' && c <= 'f' ? (int)c - 'a' + 10
                : c >= 'A' && c <= 'F' ? (int)c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static int put_utf8(struct summary_members *m, long cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return put(m, b, n);
}

/* Whether the 8 bytes at p may hold one a string's plain run stops at (a
 * control character, '"', '\\' or a byte >= 0x80): a word at a time
 * (the zero-byte tests of "Bit Twiddling Hacks", never false when one is
 * there), the bytes then looked at one by one. Strings are most of a
 * summary's bytes. */
static bool special_in_8(const unsigned char *p)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
    uint64_t below_space = (w - ones * 0x20) & ~w;
    uint64_t zero_quote = (quote - ones) & ~quote, zero_backslash = (backslash - ones) & ~backslash;
    return ((w | below_space | zero_quote | zero_backslash) & highs) != 0;
}

/* Decodes the string whose opening quote is at s->p onto m's bytes, at *off
 * (*n bytes, then a NUL not counted); *plain when it held no escape (its
 * text is then its bytes between quotes). -1: declined. */
static int decode_string(struct scanner *s, size_t *off, size_t *n, bool *plain)
{
    struct summary_members *m = s->m;
    const unsigned char *p = s->p + 1, *end = s->end;
    *off = m->len;
    *plain = true;
    for (;;) {
        const unsigned char *run = p;
        while (end - p >= 8 && !special_in_8(p))
            p += 8;
        while (p < end && *p >= 0x20 && *p != '"' && *p != '\\' && *p < 0x80)
            p++;
        if (put(m, run, (size_t)(p - run)) < 0 || p >= end || *p < 0x20)
            return -1;
        if (*p == '"') {
            p++;
            break;
        }
        if (*p >= 0x80) {
            size_t k = utf8_length(p, end);
            if (!k || put(m, p, k) < 0)
                return -1;
            p += k;
            continue;
        }
        *plain = false; /* a backslash */
        if (++p >= end)
            return -1;
        unsigned char e = *p++;
        char c;
        switch (e) {
        case '"': case '\\': case '/': c = (char)e; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'u': {
            long cp = hex4(p, end);
            if (cp < 0)
                return -1;
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                long low = end - p >= 6 && p[0] == '\\' && p[1] == 'u' ? hex4(p + 2, end) : -1;
                if (low < 0xDC00 || low > 0xDFFF)
                    return -1;
                p += 6;
                cp = ((cp - 0xD800) << 10) + (low - 0xDC00) + 0x10000;
            } else if ((cp >= 0xDC00 && cp <= 0xDFFF) || cp == 0) {
                return -1; /* a lone low surrogate; \u0000 (jansson refuses it) */
            }
            if (put_utf8(m, cp) < 0)
                return -1;
            continue;
        }
        default: return -1;
        }
        if (put_byte(m, c) < 0)
            return -1;
    }
    *n = m->len - *off;
    if (put_byte(m, '\0') < 0)
        return -1;
    s->p = p;
    return 0;
}

/* The string at s->p as JSON text appended to m's bytes (its decoded form
 * does not stay). */
static int scan_string_text(struct scanner *s)
{
    struct summary_members *m = s->m;
    const unsigned char *raw = s->p;
    size_t off, n;
    bool plain;
    if (decode_string(s, &off, &n, &plain) < 0)
        return -1;
    if (plain) { /* its text is what was read */
        m->len = off;
        return put(m, raw, (size_t)(s->p - raw));
    }
    size_t text = m->len;
    if (summary_members_put_json_string(m, off, n) < 0)
        return -1;
    memmove(m->bytes + off, m->bytes + text, m->len - text);
    m->len = off + (m->len - text);
    return 0;
}

/* The value of the number token [start, end) (JSON's grammar, checked) as
 * strtoll or strtod give it, without them when that is exact: an integer
 * of at most 18 digits; a real whose digits make an integer M < 2^53 and
 * whose power of ten 10^k has |k| <= 22 (exact doubles both), which one
 * IEEE multiplication or division rounds correctly (Clinger, "How to read
 * floating point numbers accurately", 1990). strtod was 7 % of ingest's
 * reading thread. false: not such a number (the caller asks libc). */
static bool exact_number(const unsigned char *p, const unsigned char *end, bool integer,
                         long long *ivalue, double *value)
{
    static const double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    bool negative = *p == '-';
    p += negative;
    uint64_t mantissa = 0;
    int digits = 0, scale = 0; /* scale: digits after the point */
    for (; p < end && is_digit(*p); p++, digits++)
        mantissa = mantissa * 10 + (uint64_t)(*p - '0');
    if (p < end && *p == '.')
        for (p++; p < end && is_digit(*p); p++, digits++, scale++)
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
    if (digits > 18) /* the mantissa might not fit (strtoll's range, or beyond 2^53) */
        return false;
    if (integer) {
        *ivalue = negative ? -(long long)mantissa : (long long)mantissa;
        *value = (double)*ivalue;
        return true;
    }
    int exponent = 0;
    if (p < end) { /* 'e' or 'E' */
        bool below = *++p == '-';
        p += *p == '-' || *p == '+';
        for (; p < end; p++) {
            exponent = exponent * 10 + (*p - '0');
            if (exponent > 1000)
                return false;
        }
        exponent = below ? -exponent : exponent;
    }
    int k = exponent - scale;
    if (mantissa > (UINT64_C(1) << 53) || k < -22 || k > 22)
        return false;
    double v = (double)mantissa;
    v = k < 0 ? v / powers[-k] : v * powers[k];
    *ivalue = 0;
    *value = negative ? -v : v;
    return true;
}

/* The number at s->p: *integer when it is one (jansson: no '.', 'e' or
 * 'E'), its value, and its JSON text in text (*text_len bytes) unless text
 * is NULL. */
static int scan_number(struct scanner *s, bool *integer, long long *ivalue, double *value,
                       char *text, size_t *text_len)
{
    const unsigned char *p = s->p, *end = s->end, *start = p;
    if (p < end && *p == '-')
        p++;
    if (p < end && *p == '0') {
        if (++p < end && is_digit(*p))
            return -1;
    } else if (p < end && is_digit(*p)) {
        while (p < end && is_digit(*p))
            p++;
    } else {
        return -1;
    }
    *integer = true;
    if (p < end && *p == '.') {
        *integer = false;
        if (++p >= end || !is_digit(*p))
            return -1;
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        *integer = false;
        if (++p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !is_digit(*p))
            return -1;
        while (p < end && is_digit(*p))
            p++;
    }
    size_t n = (size_t)(p - start);
    if (n > MAX_NUMBER)
        return -1;
    if (!exact_number(start, p, *integer, ivalue, value)) {
        char token[MAX_NUMBER + 1];
        memcpy(token, start, n);
        token[n] = '\0';
        errno = 0;
        if (*integer) {
            *ivalue = strtoll(token, NULL, 10);
            if (errno == ERANGE)
                return -1;
            *value = (double)*ivalue;
        } else {
            *ivalue = 0;
            *value = strtod(token, NULL);
            if ((*value == HUGE_VAL || *value == -HUGE_VAL) && errno == ERANGE)
                return -1;
        }
    }
    if (text && !(*text_len = summary_number_text(*integer, *ivalue, *value, text, MAX_NUMBER)))
        return -1;
    s->p = p;
    return 0;
}

static int scan_literal(struct scanner *s, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n))
        return -1;
    s->p += n;
    return put(s->m, word, n);
}

/* After an item of an object or array: a ',' (copied: 1, another item
 * follows), its closing character (copied: 0, the container ended) or
 * anything else (-1). */
static int after_item(struct scanner *s, char close)
{
    skip_blanks(s);
    if (s->p < s->end && (*s->p == ',' || *s->p == close)) {
        char c = *s->p++;
        if (put_byte(s->m, c) < 0)
            return -1;
        return c == ',';
    }
    return -1;
}

/* The value at s->p (blanks skipped) as compact JSON text appended to m's
 * bytes; depth: of the value's container. */
static int scan_value(struct scanner *s, int depth)
{
    struct summary_members *m = s->m;
    skip_blanks(s);
    if (s->p >= s->end)
        return -1;
    switch (*s->p) {
    case '{': {
        if (depth >= SUMMARY_SCAN_DEPTH)
            return -1;
        size_t keys[MAX_NESTED_KEYS], key_lens[MAX_NESTED_KEYS], nkeys = 0;
        s->p++;
        if (put_byte(m, '{') < 0)
            return -1;
        skip_blanks(s);
        if (s->p < s->end && *s->p == '}') {
            s->p++;
            return put_byte(m, '}');
        }
        for (;;) {
            skip_blanks(s);
            if (s->p >= s->end || *s->p != '"' || nkeys == MAX_NESTED_KEYS)
                return -1;
            size_t key = m->len;
            if (scan_string_text(s) < 0)
                return -1;
            size_t key_len = m->len - key;
            for (size_t k = 0; k < nkeys; k++) /* the same text: the same key */
                if (key_lens[k] == key_len && !memcmp(m->bytes + keys[k], m->bytes + key, key_len))
                    return -1;
            keys[nkeys] = key;
            key_lens[nkeys++] = key_len;
            skip_blanks(s);
            if (s->p >= s->end || *s->p != ':')
                return -1;
            s->p++;
            if (put_byte(m, ':') < 0 || scan_value(s, depth + 1) < 0)
                return -1;
            int more = after_item(s, '}');
            if (more <= 0)
                return more;
        }
    }
    case '[': {
        if (depth >= SUMMARY_SCAN_DEPTH)
            return -1;
        s->p++;
        if (put_byte(m, '[') < 0)
            return -1;
        skip_blanks(s);
        if (s->p < s->end && *s->p == ']') {
            s->p++;
            return put_byte(m, ']');
        }
        for (;;) {
            if (scan_value(s, depth + 1) < 0)
                return -1;
            int more = after_item(s, ']');
            if (more <= 0)
                return more;
        }
    }
    case '"':
        return scan_string_text(s);
    case 't':
        return scan_literal(s, "true");
    case 'f':
        return scan_literal(s, "false");
    case 'n':
        return scan_literal(s, "null");
    default: {
        bool integer;
        long long i;
        double d;
        char text[MAX_NUMBER + 1];
        size_t len;
        return scan_number(s, &integer, &i, &d, text, &len) < 0 ? -1 : put(m, text, len);
    }
    }
}

/* A [number, "unit"] pair at s->p into item (its unit and text appended to
 * m's bytes); -1 when the value is anything else (nothing consumed then). */
static int scan_pair(struct scanner *s, struct summary_member *item)
{
    struct summary_members *m = s->m;
    const unsigned char *start = s->p;
    size_t mark = m->len;
    size_t unit, unit_len;
    bool plain;
    s->p++;
    skip_blanks(s);
    if (s->p >= s->end || (*s->p != '-' && !is_digit(*s->p)) ||
        scan_number(s, &item->integer_number, &item->integer, &item->number, NULL, NULL) < 0)
        goto other;
    skip_blanks(s);
    if (s->p >= s->end || *s->p != ',')
        goto other;
    s->p++;
    skip_blanks(s);
    if (s->p >= s->end || *s->p != '"' || decode_string(s, &unit, &unit_len, &plain) < 0)
        goto other;
    skip_blanks(s);
    if (s->p >= s->end || *s->p != ']')
        goto other;
    s->p++;
    item->kind = MEMBER_PAIR;
    item->string = unit;
    item->string_len = unit_len;
    return 0; /* its text is written when needed (summary_member_text) */
other:
    s->p = start;
    m->len = mark;
    item->integer_number = false;
    item->integer = 0;
    item->number = 0;
    return -1;
}

/* One top-level member's value at s->p into item. */
static int scan_member_value(struct scanner *s, struct summary_member *item)
{
    struct summary_members *m = s->m;
    skip_blanks(s);
    if (s->p >= s->end)
        return -1;
    unsigned char c = *s->p;
    if (c == '"') {
        bool plain;
        const unsigned char *raw = s->p;
        if (decode_string(s, &item->string, &item->string_len, &plain) < 0)
            return -1;
        item->kind = MEMBER_STRING;
        item->text = m->len;
        if ((plain ? put(m, raw, (size_t)(s->p - raw))
                   : summary_members_put_json_string(m, item->string, item->string_len)) < 0)
            return -1;
        item->text_len = m->len - item->text;
        return 0;
    }
    if (c == '-' || is_digit(c)) {
        if (scan_number(s, &item->integer_number, &item->integer, &item->number, NULL, NULL) < 0)
            return -1;
        item->kind = item->integer_number ? MEMBER_INTEGER : MEMBER_REAL;
        return 0; /* its text is written when needed (summary_member_text) */
    }
    if (c == '[' && scan_pair(s, item) == 0)
        return 0;
    item->text = m->len;
    if (scan_value(s, 1) < 0)
        return -1;
    item->text_len = m->len - item->text;
    item->kind = item->text_len == 4 && !memcmp(m->bytes + item->text, "null", 4) ? MEMBER_NULL
                                                                                  : MEMBER_OTHER;
    return 0;
}

int summary_scan(const char *text, size_t len, struct summary_members *m, size_t *used)
{
    struct scanner s = {(const unsigned char *)text, (const unsigned char *)text + len, m};
    summary_members_clear(m);
    skip_blanks(&s);
    if (s.p >= s.end || *s.p != '{')
        return 0;
    s.p++;
    skip_blanks(&s);
    if (s.p < s.end && *s.p == '}') {
        *used = (size_t)(s.p + 1 - (const unsigned char *)text);
        return 1;
    }
    /* a bit per (length, first and last byte) of the keys met: a key whose
     * bit is clear is none of them, without comparing it to each */
    uint64_t keys_met = 0;
    for (;;) {
        skip_blanks(&s);
        if (s.p >= s.end || *s.p != '"')
            return 0;
        if (m->count == m->item_capacity &&
            VEC_RESERVE(m->items, m->item_capacity, m->count + 1) < 0)
            return 0;
        struct summary_member *item = &m->items[m->count++];
        *item = (struct summary_member){0};
        bool plain;
        if (decode_string(&s, &item->key, &item->key_len, &plain) < 0)
            return 0;
        const unsigned char *key = (const unsigned char *)m->bytes + item->key;
        uint64_t bit = (uint64_t)1 << ((item->key_len * 7 + (item->key_len ? key[0] * 3u + key[item->key_len - 1] : 0)) & 63);
        if (keys_met & bit) /* perhaps met: a duplicated key (jansson keeps the last) */
            for (size_t k = 0; k + 1 < m->count; k++)
                if (m->items[k].key_len == item->key_len &&
                    !memcmp(m->bytes + m->items[k].key, key, item->key_len))
                    return 0;
        keys_met |= bit;
        skip_blanks(&s);
        if (s.p >= s.end || *s.p != ':')
            return 0;
        s.p++;
        if (scan_member_value(&s, item) < 0)
            return 0;
        skip_blanks(&s);
        if (s.p < s.end && *s.p == ',') {
            s.p++;
            continue;
        }
        if (s.p < s.end && *s.p == '}') {
            *used = (size_t)(s.p + 1 - (const unsigned char *)text);
            return 1;
        }
        return 0;
    }
}
