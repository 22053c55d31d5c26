/* The archive's store: one interface over two backends (store_backend.h).
 * Callers write SQL that both dialects accept, with '?' placeholders; values
 * always travel as parameters, never pasted into the SQL text. Opening an
 * archive with its schema brought up to date is schema.h's store_open. */
#ifndef TALLY_ARCHIVE_STORE_H
#define TALLY_ARCHIVE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "archive/store_backend.h"

/* Connects to LOCATION: a postgresql:// or postgres:// URI, else an SQLite
 * file path (its directory is created). NULL means the default location.
 * The schema is not looked at (schema.h's store_open does). NULL and a
 * reason. */
struct store *store_connect(const char *location, char *why, size_t why_size);
void store_close(struct store *s);
/* The text kept in the store's memo slot (0 <= slot < STORE_MEMO_SLOTS), NULL
 * when none; store_memo_keep hands text (malloc'd) to the store, which frees
 * it on closing, and returns it. */
const char *store_memo(const struct store *s, size_t slot);
const char *store_memo_keep(struct store *s, size_t slot, char *text);

/* $TALLY_DB, else $XDG_DATA_HOME/tally/archive.db, else
 * ~/.local/share/tally/archive.db. Returns a malloc'd string. */
char *store_default_location(void);
bool store_location_is_postgres(const char *location);

/* A store_row_fn for a query of one integer: *(long long *)ctx gets the
 * first column of the first row (left as it was when that is NULL). */
int store_first_integer(void *ctx, size_t ncols, const struct sql_value *row);
/* The same for one text: *(char **)ctx gets a malloc'd copy of the first
 * column of the first row (left NULL when that is not text, or no memory). */
int store_first_text(void *ctx, size_t ncols, const struct sql_value *row);

long long store_exec(struct store *s, const char *sql, const struct sql_value *params,
                     size_t nparams, char *why, size_t why_size);
int store_query(struct store *s, const char *sql, const struct sql_value *params, size_t nparams,
                store_row_fn fn, void *ctx, char *why, size_t why_size);
/* A statement sent without waiting for its end: PostgreSQL's server runs it
 * while the caller goes on (ingest encodes the next aggregate rows while the
 * server writes the last ones); a backend without that (SQLite) runs it at
 * once. store_wait then gives its outcome, as store_exec's, and must come
 * before any other statement on the store. store_send: 0, or -1 with a
 * reason (nothing to wait for then). */
int store_send(struct store *s, const char *sql, const struct sql_value *params, size_t nparams,
               char *why, size_t why_size);
long long store_wait(struct store *s, char *why, size_t why_size);
/* Bulk insert of nrows × ncols values into table's columns (comma-separated)
 * where the backend has one (store_can_copy). 0 or -1. */
bool store_can_copy(const struct store *s);
int store_copy(struct store *s, const char *table, const char *columns,
               const struct sql_value *values, size_t nrows, size_t ncols, char *why,
               size_t why_size);
/* A bulk insert in two steps, so that the caller prepares one while the
 * server runs another (ingest encodes a batch's rows while the server takes
 * its keys). store_copy_encode: the values as they will be sent; it runs a
 * statement only if statements_allowed (false while a COPY or a statement
 * sent is under way), and gives 1, nothing encoded, when it would need one;
 * 0, or -1 with a reason. store_copy_send: sends them without waiting for
 * the outcome, which store_wait gives as for store_send; 0, or -1 with a
 * reason and nothing to wait for. store_copy_data_free frees the encoding. */
int store_copy_encode(struct store *s, const char *table, const char *columns,
                      const struct sql_value *values, size_t nrows, size_t ncols,
                      bool statements_allowed, struct store_copy_data *out, char *why,
                      size_t why_size);
int store_copy_send(struct store *s, const struct store_copy_data *data, char *why, size_t why_size);
void store_copy_data_free(struct store_copy_data *data);
/* The archive's size in bytes (the SQLite file's pages; the PostgreSQL
 * database), or -1 with a reason. */
long long store_size(struct store *s, char *why, size_t why_size);
/* Gives the space of deleted and rewritten rows back to the file system
 * (SQLite VACUUM, PostgreSQL VACUUM FULL): needs room for a copy of the
 * archive and locks it for writers meanwhile. 0 or -1. */
int store_compact(struct store *s, char *why, size_t why_size);
/* Many transactions are about to be written in a row (on), or were (off):
 * the backend may do its housekeeping in a thread of its own meanwhile. */
void store_bulk_writing(struct store *s, bool on);
int store_begin(struct store *s, char *why, size_t why_size);
int store_commit(struct store *s, char *why, size_t why_size);
void store_rollback(struct store *s);

#endif
