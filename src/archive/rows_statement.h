/* One statement for many rows: "HEAD (ROW), (ROW), ... TAIL", so that a
 * batch's small upserts and lookups (name/field pairs, aggregate day rows)
 * go to the store in a few statements instead of one round trip each, the
 * cost that dominated PostgreSQL's ingest. Both backends take the same
 * text: multi-row VALUES, row values and upserts are in SQLite since 3.24. */
#ifndef TALLY_ARCHIVE_ROWS_STATEMENT_H
#define TALLY_ARCHIVE_ROWS_STATEMENT_H

#include <stddef.h>

/* Rows per statement: well under SQLite's 32,766 parameters and
 * PostgreSQL's 65,535 for rows of up to 4 parameters, and few distinct
 * texts to prepare (full chunks, then one remainder per batch). */
#define ROWS_STATEMENT_CHUNK 256

/* HEAD, then NROWS times ROW (each in parentheses, ROW's '?' unchanged,
 * '#' replaced by the row's position, 0 first), then TAIL: malloc'd, or
 * NULL with "out of memory" in why. */
char *rows_statement(const char *head, const char *row, size_t nrows, const char *tail,
                     char *why, size_t why_size);

#endif
