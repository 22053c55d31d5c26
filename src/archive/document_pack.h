/* A stored summary's document, packed against its row's columns: every
 * member whose value a column already holds (the numeric fields of
 * core/fields.c as [number, "unit"] in the field's unit, the name, category,
 * set, host, command, exit type and task id strings, level and exit status)
 * is kept as a reference to that column; every other member is kept as its
 * JSON text. Unpacking gives back the same object: the same members in the
 * same order with the same values (numbers to the bit, integers as
 * integers), so nothing a user can get from the archive is lost, while a
 * tally summary's document shrinks from ~500 bytes to ~70.
 *
 * Layout: a version byte (2), then one entry per member, then 0:
 *   0x80|FLAGS<<5|ID  numeric field ID (< 32) from its column; FLAGS bit 0:
 *                     the JSON number is an integer, bit 1: a bare number,
 *                     not a pair
 *   1 ID FLAGS        the same for an ID of 32 or more
 *   0x40|K            string member K (see enum document_string) from its column
 *   0x50|K            integer member K (level, exit_status) from its column
 *   4 LEN KEY LEN JSON a member as text (lengths as varints)
 *   5 K LEN JSON      a member as text whose key is the K-th of the keys tally
 *                     writes that no column holds (tally_version, peak_times…)
 * Version 1 (still read) had only the entries 1 to 4, and 2 K and 3 K for
 * the string and integer members: a generated summary's document took 91
 * bytes, 46 in version 2.
 *
 * Version 3 (shaped, what ingest writes from schema version 8 on): the
 * entries without the LEN JSON of the members kept as text are the
 * document's shape, stored once per distinct shape in the document_shapes
 * table and named by the row's shape column; the document itself is the
 * version byte (3) and those LEN JSON, in the shape's order. Summaries of
 * one tool have one or a few shapes: a generated summary's document takes
 * 13 to 17 bytes (its seq and tally_version texts), 45 in version 2.
 * From schema version 11 on, a shape may also hold
 *   6 K LEN JSON      the known key K (tally_version or monitor_version, the
 *                     same in every summary of a build of a tool) with its
 *                     JSON, which the documents of that shape then lack
 * (a generated summary's document: 7 to 11 bytes, its seq's text). */
#ifndef TALLY_ARCHIVE_DOCUMENT_PACK_H
#define TALLY_ARCHIVE_DOCUMENT_PACK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "archive/store.h"
#include "archive/summary_members.h"
#include "core/fields.h"

enum document_string {
    DOC_NAME, DOC_CATEGORY, DOC_SET, DOC_HOST, DOC_COMMAND, DOC_EXIT_TYPE, DOC_TASKID,
    DOC_STRINGS
};
enum document_integer { DOC_LEVEL, DOC_EXIT_STATUS, DOC_INTEGERS };

/* What the row's columns hold (NULL / not present where the column is NULL). */
struct document_columns {
    const char *strings[DOC_STRINGS];
    bool has_integer[DOC_INTEGERS];
    long long integers[DOC_INTEGERS];
    bool present[FIELD_COUNT];
    double values[FIELD_COUNT];
    /* packing from members: each member's summary_field_id, when the caller
     * has them (NULL: looked up again) */
    const int *member_fields;
};

/* Packs root (a JSON object) against cols: a malloc'd buffer and its length
 * in *len. NULL when out of memory. */
unsigned char *document_pack(json_t *root, const struct document_columns *cols, size_t *len);
/* The same from the document's members (summary_members.h). */
unsigned char *document_pack_members(const struct summary_members *m,
                                     const struct document_columns *cols, size_t *len);
/* Version 3: the document in the first *len bytes of the malloc'd buffer,
 * its shape in the *shape_len bytes after them. NULL when out of memory. */
unsigned char *document_pack_shaped(const struct summary_members *m,
                                    const struct document_columns *cols, size_t *len,
                                    size_t *shape_len);
/* The same into two writers the caller keeps from one document to the
 * next (emptied first, their memory reused): the document in values, its
 * shape in shape. -1 when out of memory. */
int document_pack_shaped_into(const struct summary_members *m, const struct document_columns *cols,
                              struct byte_writer *values, struct byte_writer *shape);
/* The object packed in data; NULL when data is not a packed document. */
json_t *document_unpack(const unsigned char *data, size_t len, const struct document_columns *cols);
/* The same, the shape of a version 3 document given (NULL: none; versions 1
 * and 2 need none). */
json_t *document_unpack_shaped(const unsigned char *data, size_t len, const unsigned char *shape,
                               size_t shape_len, const struct document_columns *cols);

/* The columns to SELECT for a document, in the order document_from_row reads
 * them, after the FIELD_COUNT numeric field columns (written to out, each
 * followed by ", " except the last). shaped: the archive has document shapes
 * (schema version 8 on; a migration before it reads NULL for the shape). */
void document_select_columns(FILE *out, bool shaped);
#define DOCUMENT_SELECT_COLUMNS 11
/* The document of a row: fields = its FIELD_COUNT numeric columns, doc = the
 * DOCUMENT_SELECT_COLUMNS columns of document_select_columns. A document
 * archived as JSON text (before schema version 5) is parsed. NULL when
 * unreadable. */
json_t *document_from_row(const struct sql_value *fields, const struct sql_value *doc);
/* The document of the summary archived with this id (shaped: as above);
 * NULL when none. */
json_t *document_load(struct store *s, long long id, bool shaped, char *why, size_t why_size);

#endif
