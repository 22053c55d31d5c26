/* A summary document as the list of its top-level members, each taken apart
 * as far as the archive needs it (a string, a number, a [number, "unit"]
 * pair) and kept as its compact JSON text (json_dumps's form: what
 * document_pack stores for a member no column holds). Two readers fill it:
 * summary_members_from_json from a jansson object, and summary_scan
 * (summary_scan.h) straight from the bytes without building a tree; the
 * archive row is built from it (ingest.h) and its document packed from it
 * (document_pack.h), so both readers give the same row. */
#ifndef TALLY_ARCHIVE_SUMMARY_MEMBERS_H
#define TALLY_ARCHIVE_SUMMARY_MEMBERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/byte_codec.h"

enum member_kind {
    MEMBER_STRING,
    MEMBER_INTEGER,
    MEMBER_REAL,
    MEMBER_PAIR,  /* [number, "unit"] */
    MEMBER_NULL,
    MEMBER_OTHER, /* true, false, another array, an object */
};

/* Strings are offsets into the list's bytes (decoded UTF-8, NUL-terminated;
 * a member's key and string never hold a NUL: JSON text with \u0000 is
 * refused). */
struct summary_member {
    size_t key, key_len;
    enum member_kind kind;
    size_t string, string_len; /* STRING: its value; PAIR: its unit */
    bool integer_number;       /* INTEGER, or a PAIR whose number is an integer */
    long long integer;         /* the number when integer_number */
    double number;             /* INTEGER, REAL, PAIR: the number as a double */
    size_t text, text_len;     /* the value as compact JSON; text_len 0: not written
                                * (a number or pair: summary_member_text) */
};

struct summary_members {
    char *bytes;
    size_t len, capacity;
    struct summary_member *items;
    size_t count, item_capacity;
    /* the reader's scratch for packing the document (ingest.c): kept, with
     * its memory, from one document to the next */
    struct byte_writer pack_values, pack_shape;
    /* the keys of the documents before, by position, with their field ids
     * (summary_members_field_id) */
    char *seen_keys;
    size_t seen_len, seen_capacity;
    struct summary_seen_key *seen;
    size_t nseen, seen_item_capacity;
};

struct summary_seen_key {
    size_t off, len; /* in seen_keys */
    int field;
};

/* Empties the list, keeping its memory for the next document. */
void summary_members_clear(struct summary_members *m);
void summary_members_free(struct summary_members *m);
/* Appends n bytes; the offset where they start, or (size_t)-1 when out of
 * memory. */
size_t summary_members_put(struct summary_members *m, const void *bytes, size_t n);
/* The bytes at offset off (valid until the next put). */
static inline const char *summary_members_at(const struct summary_members *m, size_t off)
{
    return m->bytes + off;
}
/* summary_field_id of member i's key. The key at position i in the
 * documents before is remembered with its id (kept by summary_members_clear):
 * a reader's documents mostly have their keys in one order, and comparing a
 * key with the one before costs a tenth of looking it up among the fields.
 * Asked for i = 0, 1, ... in turn (as ingest does), every key is remembered. */
int summary_members_field_id(struct summary_members *m, size_t i);
/* The member with this key, or NULL. */
const struct summary_member *summary_members_find(const struct summary_members *m,
                                                  const char *key);
/* The member's compact JSON text (written for a number or pair whose
 * text_len is 0) into buf when it fits in size bytes; its length (as
 * snprintf, no NUL). */
size_t summary_member_text(const struct summary_members *m, const struct summary_member *item,
                           char *buf, size_t size);
/* Appends the string of n bytes at offset off as JSON text, escaped as
 * jansson's encoder does (0 or -1). */
int summary_members_put_json_string(struct summary_members *m, size_t off, size_t n);
/* A number's JSON text as jansson's encoder writes it (a real with 17
 * significant digits); its length, 0 when it does not fit. */
size_t summary_number_text(bool integer, long long ivalue, double value, char *buf, size_t size);
/* Fills m from a JSON object's members (in its order). 0, or -1 when out of
 * memory. */
int summary_members_from_json(struct summary_members *m, json_t *object);

#endif
