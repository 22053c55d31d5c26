/* SQLite's library, loaded when first needed (see util/dynlib.h): the functions
 * tally calls, once, and the table they are reached through. */
#ifndef TALLY_ARCHIVE_LIBSQLITE_API_H
#define TALLY_ARCHIVE_LIBSQLITE_API_H

#include <sqlite3.h>
#include <stddef.h>

#include "util/dynlib.h"

#define TALLY_LIBSQLITE_FUNCTIONS(X) \
    X(sqlite3_bind_blob) \
    X(sqlite3_bind_double) \
    X(sqlite3_bind_int64) \
    X(sqlite3_bind_null) \
    X(sqlite3_bind_text) \
    X(sqlite3_busy_timeout) \
    X(sqlite3_changes) \
    X(sqlite3_clear_bindings) \
    X(sqlite3_close) \
    X(sqlite3_config) \
    X(sqlite3_column_blob) \
    X(sqlite3_column_bytes) \
    X(sqlite3_column_count) \
    X(sqlite3_column_double) \
    X(sqlite3_column_int64) \
    X(sqlite3_column_text) \
    X(sqlite3_column_type) \
    X(sqlite3_errmsg) \
    X(sqlite3_exec) \
    X(sqlite3_finalize) \
    X(sqlite3_free) \
    X(sqlite3_open_v2) \
    X(sqlite3_prepare_v2) \
    X(sqlite3_reset) \
    X(sqlite3_step) \
    X(sqlite3_wal_autocheckpoint) \
    X(sqlite3_wal_checkpoint_v2) \
    X(sqlite3_wal_hook)

struct libsqlite_api {
    TALLY_LIBSQLITE_FUNCTIONS(DYNLIB_POINTER)
};

/* Loads the library (once per process); NULL with the reason in why. */
const struct libsqlite_api *libsqlite_api_load(char *why, size_t why_size);

/* The table, once libsqlite_api_load has succeeded. */
const struct libsqlite_api *libsqlite_api(void);
#define SQLITE(f) (libsqlite_api()->f)

#endif
