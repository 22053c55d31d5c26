/* The members of a summary document (see summary_members.h). */
#include "archive/summary_members.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fields.h"
#include "util/json_real.h"
#include "util/json_string.h"
#include "util/vec.h"

void summary_members_clear(struct summary_members *m)
{
    m->len = 0;
    m->count = 0;
}

void summary_members_free(struct summary_members *m)
{
    free(m->bytes);
    free(m->items);
    free(m->pack_values.data);
    free(m->pack_shape.data);
    free(m->seen_keys);
    free(m->seen);
    memset(m, 0, sizeof *m);
}

size_t summary_members_put(struct summary_members *m, const void *bytes, size_t n)
{
    if (VEC_RESERVE(m->bytes, m->capacity, m->len + n + 1) < 0)
        return (size_t)-1;
    size_t off = m->len;
    memcpy(m->bytes + off, bytes, n);
    m->len += n;
    return off;
}

int summary_members_field_id(struct summary_members *m, size_t i)
{
    const char *key = m->bytes + m->items[i].key;
    size_t len = m->items[i].key_len;
    if (i < m->nseen && m->seen[i].len == len && !memcmp(m->seen_keys + m->seen[i].off, key, len))
        return m->seen[i].field;
    int id = summary_field_id(key);
    if (i > m->nseen)
        return id; /* (asked out of turn: not remembered) */
    /* remembered at i, in place of the keys from i on */
    size_t off = i < m->nseen ? m->seen[i].off : m->seen_len;
    m->nseen = i;
    m->seen_len = off;
    if (VEC_RESERVE(m->seen_keys, m->seen_capacity, off + len + 1) < 0 || /* (never NULL) */
        VEC_RESERVE(m->seen, m->seen_item_capacity, i + 1) < 0)
        return id; /* (out of memory: not remembered) */
    memcpy(m->seen_keys + off, key, len);
    m->seen[i] = (struct summary_seen_key){off, len, id};
    m->nseen = i + 1;
    m->seen_len = off + len;
    return id;
}

const struct summary_member *summary_members_find(const struct summary_members *m,
                                                  const char *key)
{
    /* the first letter first: a dozen look-ups among ~20 members a summary */
    for (size_t i = 0; i < m->count; i++) {
        const char *k = m->bytes + m->items[i].key;
        if (k[0] == key[0] && !strcmp(k, key))
            return &m->items[i];
    }
    return NULL;
}

/* Appends a NUL-terminated copy of n bytes; its offset, or -1. */
static size_t put_string(struct summary_members *m, const char *s, size_t n)
{
    size_t off = summary_members_put(m, s, n);
    if (off != (size_t)-1 && summary_members_put(m, "", 1) == (size_t)-1)
        return (size_t)-1;
    return off;
}

static void take_number(struct summary_member *item, const json_t *n)
{
    item->integer_number = json_is_integer(n);
    item->integer = item->integer_number ? json_integer_value(n) : 0;
    item->number = json_number_value(n);
}

int summary_members_from_json(struct summary_members *m, json_t *object)
{
    summary_members_clear(m);
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value) {
        struct summary_member *item = VEC_PUSH(m->items, m->count, m->item_capacity);
        if (!item)
            return -1;
        item->key_len = strlen(key);
        item->key = put_string(m, key, item->key_len);
        if (json_is_string(value)) {
            item->kind = MEMBER_STRING;
            item->string_len = json_string_length(value);
            item->string = put_string(m, json_string_value(value), item->string_len);
        } else if (json_is_number(value)) {
            item->kind = json_is_integer(value) ? MEMBER_INTEGER : MEMBER_REAL;
            take_number(item, value);
        } else if (json_is_array(value) && json_array_size(value) == 2 &&
                   json_is_number(json_array_get(value, 0)) &&
                   json_is_string(json_array_get(value, 1))) {
            item->kind = MEMBER_PAIR;
            take_number(item, json_array_get(value, 0));
            json_t *unit = json_array_get(value, 1);
            item->string_len = json_string_length(unit);
            item->string = put_string(m, json_string_value(unit), item->string_len);
        } else {
            item->kind = json_is_null(value) ? MEMBER_NULL : MEMBER_OTHER;
        }
        /* 17 significant digits: every double comes back to the bit */
        char *text = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER |
                                           JSON_REAL_PRECISION(17));
        if (!text)
            return -1;
        item->text_len = strlen(text);
        item->text = summary_members_put(m, text, item->text_len);
        free(text);
        if (item->key == (size_t)-1 || item->string == (size_t)-1 || item->text == (size_t)-1)
            return -1;
    }
    return 0;
}

int summary_members_put_json_string(struct summary_members *m, size_t off, size_t n)
{
    if (VEC_RESERVE(m->bytes, m->capacity, m->len + JSON_STRING_ROOM(n)) < 0)
        return -1;
    m->len += json_string_text((const unsigned char *)m->bytes + off, n, m->bytes + m->len);
    return 0;
}


size_t summary_number_text(bool integer, long long ivalue, double value, char *buf, size_t size)
{
    if (!integer)
        return json_real_text(value, "%.17g", buf, size);
    int w = snprintf(buf, size, "%lld", ivalue);
    return w > 0 && (size_t)w < size ? (size_t)w : 0;
}

size_t summary_member_text(const struct summary_members *m, const struct summary_member *item,
                           char *buf, size_t size)
{
    if (item->text_len) {
        if (item->text_len <= size)
            memcpy(buf, m->bytes + item->text, item->text_len);
        return item->text_len;
    }
    char number[64];
    size_t n = summary_number_text(item->integer_number, item->integer, item->number, number,
                                   sizeof number);
    if (item->kind != MEMBER_PAIR) {
        if (n <= size)
            memcpy(buf, number, n);
        return n;
    }
    const unsigned char *unit = (const unsigned char *)m->bytes + item->string;
    size_t len = n + 3 + json_string_text(unit, item->string_len, NULL);
    if (len <= size) {
        buf[0] = '[';
        memcpy(buf + 1, number, n);
        buf[n + 1] = ',';
        json_string_text(unit, item->string_len, buf + n + 2);
        buf[len - 1] = ']';
    }
    return len;
}
