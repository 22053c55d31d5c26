/* Packing a summary's document against its row (see document_pack.h). */
#include "archive/document_pack.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/byte_codec.h"
#include "util/text_builder.h"

#define PACK_VERSION_SHAPED 3 /* the member order in the shapes table */
#define PACK_VERSION 2
#define PACK_VERSION_WIDE 1 /* still read: every reference in 2 or 3 bytes */
enum { ENTRY_END, ENTRY_FIELD, ENTRY_STRING, ENTRY_INTEGER, ENTRY_TEXT, ENTRY_KNOWN_TEXT,
       ENTRY_SHAPE_TEXT };
/* Version 2's one-byte references (a tag byte of version 1 is below 0x40):
 * 0x80 | FLAGS << 5 | ID a numeric field ID < 32 from its column,
 * 0x40 | K              string member K from its column,
 * 0x50 | K              integer member K from its column. */
#define SHORT_FIELD 0x80
#define SHORT_STRING 0x40
#define SHORT_INTEGER 0x50
enum { FLAG_INTEGER = 1, FLAG_BARE = 2 };

/* Members tally and resource_monitor write that no column holds: ENTRY_KNOWN_TEXT
 * names them by their position here instead of spelling the key. Append only:
 * stored documents refer to these positions. */
static const char *const known_keys[] = {"tally_version", "peak_times", "monitor_version",
                                         "snapshots", "limits_exceeded", "warnings"};
#define KNOWN_KEYS (sizeof known_keys / sizeof *known_keys)

/* Of those, the members every summary of a build of a tool holds with one
 * value (positions in known_keys: tally_version, monitor_version): a
 * shaped document keeps their JSON in its shape (ENTRY_SHAPE_TEXT), up to
 * SHAPE_TEXT_MAX bytes, instead of in every row. */
static bool same_in_a_build(size_t known) { return known == 0 || known == 2; }
#define SHAPE_TEXT_MAX 64

static const char *const string_keys[DOC_STRINGS] = {"name",    "category",  "set",   "host",
                                                     "command", "exit_type", "taskid"};
static const char *const integer_keys[DOC_INTEGERS] = {"level", "exit_status"};

static bool same_double(double a, double b) { return !memcmp(&a, &b, sizeof a); }

/* The flags when the member's number is what the column holds, else -1. */
static int number_from_column(const struct summary_member *n, double column)
{
    if (n->integer_number)
        return (n->integer > -(1LL << 53) && n->integer < (1LL << 53) &&
                (double)n->integer == column) ? FLAG_INTEGER : -1;
    /* -0 would come back as 0 from a column */
    return same_double(n->number, column) && !(column == 0 && signbit(column)) ? 0 : -1;
}

/* FLAGS when member is numeric field id's column value, else -1. */
static int field_flags(int id, const struct summary_members *m, const struct summary_member *v,
                       const struct document_columns *cols)
{
    if (id < 0 || id >= FIELD_COUNT || !cols->present[id])
        return -1;
    if (v->kind == MEMBER_INTEGER || v->kind == MEMBER_REAL) {
        int flags = number_from_column(v, cols->values[id]);
        return flags < 0 ? -1 : flags | FLAG_BARE;
    }
    const struct summary_field *f = summary_field_by_id((enum summary_field_id)id);
    if (v->kind != MEMBER_PAIR || strcmp(summary_members_at(m, v->string), f->unit))
        return -1;
    return number_from_column(v, cols->values[id]);
}

static int string_column(const char *key, const struct summary_members *m,
                         const struct summary_member *v, const struct document_columns *cols)
{
    if (v->kind != MEMBER_STRING)
        return -1;
    for (int k = 0; k < DOC_STRINGS; k++)
        if (key[0] == string_keys[k][0] && !strcmp(key, string_keys[k]))
            return cols->strings[k] && strlen(cols->strings[k]) == v->string_len &&
                           !memcmp(cols->strings[k], summary_members_at(m, v->string), v->string_len)
                       ? k : -1;
    return -1;
}

static int integer_column(const char *key, const struct summary_member *v,
                          const struct document_columns *cols)
{
    if (v->kind != MEMBER_INTEGER)
        return -1;
    for (int k = 0; k < DOC_INTEGERS; k++)
        if (key[0] == integer_keys[k][0] && !strcmp(key, integer_keys[k]))
            return cols->has_integer[k] && cols->integers[k] == v->integer ? k : -1;
    return -1;
}

/* The entries of version 2 written to tags, except the LEN JSON of a
 * member kept as text, written to values (the same writer for version 2). */
static void pack_entries(const struct summary_members *m, const struct document_columns *cols,
                         struct byte_writer *tags, struct byte_writer *values)
{
    for (size_t i = 0; i < m->count; i++) {
        const struct summary_member *v = &m->items[i];
        const char *key = summary_members_at(m, v->key);
        int id = cols->member_fields ? cols->member_fields[i] : summary_field_id(key), flags, k;
        if ((flags = field_flags(id, m, v, cols)) >= 0) {
            if (id < 32) {
                byte_put_byte(tags, (unsigned char)(SHORT_FIELD | flags << 5 | id));
            } else {
                unsigned char entry[3] = {ENTRY_FIELD, (unsigned char)id, (unsigned char)flags};
                byte_put(tags, entry, 3);
            }
        } else if ((k = string_column(key, m, v, cols)) >= 0) {
            byte_put_byte(tags, (unsigned char)(SHORT_STRING | k));
        } else if ((k = integer_column(key, v, cols)) >= 0) {
            byte_put_byte(tags, (unsigned char)(SHORT_INTEGER | k));
        } else {
            char small[256];
            size_t n = summary_member_text(m, v, small, sizeof small);
            char *text = n <= sizeof small ? small : malloc(n);
            if (!text || (text != small && summary_member_text(m, v, text, n) != n)) {
                free(text);
                tags->failed = true;
                break;
            }
            size_t known = 0;
            while (known < KNOWN_KEYS &&
                   (key[0] != known_keys[known][0] || strcmp(key, known_keys[known])))
                known++;
            if (known < KNOWN_KEYS && tags != values && same_in_a_build(known) &&
                n <= SHAPE_TEXT_MAX) {
                byte_put_byte(tags, ENTRY_SHAPE_TEXT);
                byte_put_byte(tags, (unsigned char)known);
                byte_put_varint(tags, n);
                byte_put(tags, text, n);
            } else {
                if (known < KNOWN_KEYS) {
                    byte_put_byte(tags, ENTRY_KNOWN_TEXT);
                    byte_put_byte(tags, (unsigned char)known);
                } else {
                    byte_put_byte(tags, ENTRY_TEXT);
                    byte_put_varint(tags, v->key_len);
                    byte_put(tags, key, v->key_len);
                }
                byte_put_varint(values, n);
                byte_put(values, text, n);
            }
            if (text != small)
                free(text);
        }
    }
    byte_put_byte(tags, ENTRY_END);
}

unsigned char *document_pack_members(const struct summary_members *m,
                                     const struct document_columns *cols, size_t *len)
{
    struct byte_writer b = {NULL, 0, 0, false};
    byte_put_byte(&b, PACK_VERSION);
    pack_entries(m, cols, &b, &b);
    if (b.failed) {
        free(b.data);
        return NULL;
    }
    *len = b.len;
    return b.data;
}

int document_pack_shaped_into(const struct summary_members *m, const struct document_columns *cols,
                              struct byte_writer *values, struct byte_writer *shape)
{
    values->len = shape->len = 0;
    values->failed = shape->failed = false;
    byte_put_byte(values, PACK_VERSION_SHAPED);
    pack_entries(m, cols, shape, values);
    return values->failed || shape->failed ? -1 : 0;
}

unsigned char *document_pack_shaped(const struct summary_members *m,
                                    const struct document_columns *cols, size_t *len,
                                    size_t *shape_len)
{
    struct byte_writer values = {NULL, 0, 0, false}, shape = {NULL, 0, 0, false};
    unsigned char *packed = NULL;
    if (document_pack_shaped_into(m, cols, &values, &shape) == 0 &&
        (packed = malloc(values.len + shape.len))) {
        memcpy(packed, values.data, values.len);
        memcpy(packed + values.len, shape.data, shape.len); /* the shape after the document */
        *len = values.len;
        *shape_len = shape.len;
    }
    free(values.data);
    free(shape.data);
    return packed;
}

unsigned char *document_pack(json_t *root, const struct document_columns *cols, size_t *len)
{
    struct summary_members m = {0};
    unsigned char *packed = summary_members_from_json(&m, root) == 0
                                ? document_pack_members(&m, cols, len) : NULL;
    summary_members_free(&m);
    return packed;
}

static json_t *field_value(const struct document_columns *cols, unsigned id, unsigned flags)
{
    if (id >= FIELD_COUNT || !cols->present[id])
        return NULL;
    double v = cols->values[id];
    json_t *n = flags & FLAG_INTEGER ? json_integer((json_int_t)v) : json_real(v);
    if (flags & FLAG_BARE)
        return n;
    return json_pack("[o, s]", n, summary_field_by_id((enum summary_field_id)id)->unit);
}

json_t *document_unpack(const unsigned char *data, size_t len, const struct document_columns *cols)
{
    return document_unpack_shaped(data, len, NULL, 0, cols);
}

json_t *document_unpack_shaped(const unsigned char *data, size_t len, const unsigned char *shape,
                               size_t shape_len, const struct document_columns *cols)
{
    struct byte_reader values = {data, data ? data + len : data, false},
                       tags = {shape, shape ? shape + shape_len : shape, false};
    unsigned version = byte_get_byte(&values);
    if (version != PACK_VERSION && version != PACK_VERSION_WIDE &&
        !(version == PACK_VERSION_SHAPED && shape))
        return NULL;
    bool short_refs = version != PACK_VERSION_WIDE;
    /* versions 1 and 2: the tags and the texts in one stream */
    struct byte_reader *t = version == PACK_VERSION_SHAPED ? &tags : &values, *v = &values;
    json_t *root = json_object();
    bool failed = false;
    for (unsigned tag; root && !failed && (tag = byte_get_byte(t)) != ENTRY_END;
         failed = failed || t->failed || v->failed) {
        if (tag == ENTRY_FIELD || (short_refs && tag >= SHORT_FIELD)) {
            unsigned id = tag == ENTRY_FIELD ? byte_get_byte(t) : tag & 31;
            unsigned flags = tag == ENTRY_FIELD ? byte_get_byte(t) : (tag >> 5) & 3;
            json_t *value = t->failed ? NULL : field_value(cols, id, flags);
            if (!value ||
                json_object_set_new(root, summary_field_by_id((enum summary_field_id)id)->name, value) < 0)
                failed = true;
        } else if (tag == ENTRY_STRING || tag == ENTRY_INTEGER ||
                   (short_refs && tag >= SHORT_STRING && tag < SHORT_INTEGER + 16)) {
            bool string = tag == ENTRY_STRING || (tag >= SHORT_STRING && tag < SHORT_INTEGER);
            unsigned k = tag < SHORT_STRING ? byte_get_byte(t) : tag & 15;
            if (t->failed || k >= (string ? DOC_STRINGS : DOC_INTEGERS) ||
                (string ? !cols->strings[k] : !cols->has_integer[k]) ||
                json_object_set_new(root, string ? string_keys[k] : integer_keys[k],
                                    string ? json_string(cols->strings[k])
                                           : json_integer(cols->integers[k])) < 0)
                failed = true;
        } else if (tag == ENTRY_TEXT || (short_refs && tag == ENTRY_KNOWN_TEXT) ||
                   (t != v && tag == ENTRY_SHAPE_TEXT)) {
            size_t klen = 0;
            const unsigned char *key = NULL;
            if (tag == ENTRY_TEXT) {
                klen = byte_get_varint(t);
                key = byte_get_bytes(t, klen);
            } else {
                unsigned known = byte_get_byte(t);
                if (!t->failed && known < KNOWN_KEYS) {
                    key = (const unsigned char *)known_keys[known];
                    klen = strlen(known_keys[known]);
                }
            }
            /* the text in the shape, or in the document */
            struct byte_reader *from = tag == ENTRY_SHAPE_TEXT ? t : v;
            size_t vlen = byte_get_varint(from);
            const unsigned char *text = byte_get_bytes(from, vlen);
            json_t *value = text ? json_loadb((const char *)text, vlen, JSON_DECODE_ANY, NULL) : NULL;
            /* a JSON document's keys are UTF-8 without NUL (found by
             * stored_archive_fuzz); json_stringn checks the UTF-8 */
            json_t *valid = key && !memchr(key, 0, klen) ? json_stringn((const char *)key, klen) : NULL;
            json_decref(valid);
            if (!value || !valid) {
                json_decref(value);
                failed = true;
            } else if (json_object_setn_new(root, (const char *)key, klen, value) < 0) {
                failed = true; /* value is released by jansson */
            }
        } else {
            failed = true;
        }
    }
    /* a shaped document's texts end where its shape does */
    if (failed || t->failed || v->failed || (t != v && v->p != v->end)) {
        json_decref(root);
        return NULL;
    }
    return root;
}

void document_select_columns(FILE *out, bool shaped)
{
    fputs("name, category, set_id, host, command, exit_type, taskid, level, exit_status, document, ",
          out);
    /* document_shapes has no column named shape: it is the row's */
    fputs(shaped ? "(SELECT members FROM document_shapes WHERE document_shapes.id = shape)" : "NULL",
          out);
}

static const char *text_of(const struct sql_value *v) { return v->type == SQL_TEXT ? v->text : NULL; }

json_t *document_from_row(const struct sql_value *fields, const struct sql_value *doc)
{
    const struct sql_value *packed = &doc[DOCUMENT_SELECT_COLUMNS - 2];
    const struct sql_value *shape = &doc[DOCUMENT_SELECT_COLUMNS - 1];
    if (packed->type == SQL_TEXT) /* archived as JSON text */
        return json_loads(packed->text, 0, NULL);
    if (packed->type != SQL_BLOB)
        return NULL;
    struct document_columns cols;
    memset(&cols, 0, sizeof cols);
    for (int k = 0; k < DOC_STRINGS; k++)
        cols.strings[k] = text_of(&doc[k]);
    for (int k = 0; k < DOC_INTEGERS; k++) {
        const struct sql_value *v = &doc[DOC_STRINGS + k];
        cols.has_integer[k] = v->type == SQL_INT || v->type == SQL_REAL;
        cols.integers[k] = v->type == SQL_INT ? v->integer : (long long)v->real;
    }
    for (int f = 0; f < FIELD_COUNT; f++) {
        cols.present[f] = fields[f].type == SQL_REAL || fields[f].type == SQL_INT;
        cols.values[f] = fields[f].real;
    }
    return document_unpack_shaped((const unsigned char *)packed->text, packed->length,
                                  shape->type == SQL_BLOB ? (const unsigned char *)shape->text : NULL,
                                  shape->type == SQL_BLOB ? shape->length : 0, &cols);
}

struct loaded {
    json_t *doc;
};

static int take_document(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct loaded *l = ctx;
    if (ncols == FIELD_COUNT + DOCUMENT_SELECT_COLUMNS)
        l->doc = document_from_row(row, row + FIELD_COUNT);
    return 1;
}

json_t *document_load(struct store *s, long long id, bool shaped, char *why, size_t why_size)
{
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return NULL;
    fputs("SELECT ", b.out);
    for (int f = 0; f < FIELD_COUNT; f++) /* names from fields.c, not from users */
        fprintf(b.out, "\"%s\", ", summary_field_by_id((enum summary_field_id)f)->name);
    document_select_columns(b.out, shaped);
    fputs(" FROM summaries WHERE id = ?", b.out);
    char *sql = text_builder_finish(&b, why, why_size);
    if (!sql)
        return NULL;
    struct loaded l = {NULL};
    struct sql_value param = sql_int(id);
    store_query(s, sql, &param, 1, take_document, &l, why, why_size);
    free(sql);
    return l.doc;
}
