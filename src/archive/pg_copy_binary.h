/* PostgreSQL's binary COPY format (the "PGCOPY" stream of COPY ... FROM
 * STDIN WITH (FORMAT binary)): a batch of rows of sql_values written for
 * their columns' types. It spares the archive's bulk ingest formatting
 * every real as 17 decimal digits and every byte as two hex digits, and
 * the server parsing them back: about a third of both sides' work in the
 * text format. Types it does not know, or a value that does not fit its
 * column exactly, leave the batch to the text format. */
#ifndef TALLY_ARCHIVE_PG_COPY_BINARY_H
#define TALLY_ARCHIVE_PG_COPY_BINARY_H

#include <stdbool.h>
#include <stddef.h>

#include "archive/store_backend.h"
#include "util/byte_codec.h"

/* The type OIDs (pg_type) of the columns the archive writes and reads. */
enum { OID_BYTEA = 17, OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_TEXT = 25, OID_FLOAT4 = 700,
       OID_FLOAT8 = 701, OID_VARCHAR = 1043, OID_NUMERIC = 1700 };

/* The stream's header; one row; its trailer. A row is written when every
 * value of it can be, in the binary format of its column's type (types[c]):
 * NULL anywhere; an integer into int2/int4/int8 within range or into
 * float8; a real into float8, or into an integer column when it is a whole
 * number in range; text into text/varchar; bytes into bytea. Otherwise the
 * row returns false and leaves b as it was: the batch is for the text
 * format. */
void pg_copy_binary_header(struct byte_writer *b);
bool pg_copy_binary_row(struct byte_writer *b, const unsigned *types, const struct sql_value *row,
                        size_t ncols);
void pg_copy_binary_trailer(struct byte_writer *b);

#endif
